/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_tty_batches.c -- one byte versus many bytes per read batch, with a
 * blocking read and with a poll before the read: each batch opens one TTY
 * command interaction whose byte count, source range and arrival bounds
 * match what the program did, whose output epoch ends at the last write
 * before the program waited again, and whose dispatch and end are the end
 * of its read and the start of that wait.  And a program that never blocks
 * but checks for typeahead with zero-timeout polls, selects or pselects
 * (1 ms apart): a check that finds nothing bounds the arrival from below
 * (known empty at its start), the one that finds the input bounds it
 * from above.  And a
 * prefix key (tty_probe prefix): two one-byte reads without output or a
 * wait between them make one interaction of two batches, which keeps the
 * first batch's arrival bounds apart from the decisive (second) one's,
 * counts the extra read and both batches' bytes, and points its first and
 * decisive source ranges at the two batches.
 */
#include "profile_view.h"
#include "pty_harness.h"

/* Start tty_probe MODE, traced into a new profile in the test directory,
   and wait for its READY: the profile's path (to free), or NULL when it
   did not start. */
static char *
probe_start (const char *mode, struct ph_child *c)
{
  char *file = tu_strf ("%s/%s.emlat", tu_tmpdir (), mode);
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char *argv[] = { probe, (char *)mode, NULL };
  int rc = ph_spawn (c, argv, ph_trace_env (file, NULL));
  free (probe);
  if (rc != 0)
    {
      free (file);
      return NULL;
    }
  ph_expect (c, "READY", 5000);
  return file;
}

/* Wait for the probe to exit (status 0), then load its profile FILE into
   V and print it: 0, or -1 when it could not be loaded. */
static int
probe_load (struct ph_child *c, const char *file, const char *mode,
            struct pv *v)
{
  CHECK_EQ_I64 (ph_finish (c, 10000), 0);
  if (pv_load (v, file) != 0)
    return -1;
  TEST_DIAG ("mode %s", mode);
  pv_print (v);
  return 0;
}

static void
run (const char *mode)
{
  struct ph_child c;
  char *file = probe_start (mode, &c);
  if (!file)
    return;
  ph_send (&c, "a", 1);
  ph_expect (&c, "1;", 5000);
  ph_sleep_ms (50);
  ph_send (&c, "bcdefghi", 8);
  ph_expect (&c, "8;", 5000);
  ph_sleep_ms (50);
  ph_send (&c, "q", 1);
  ph_expect (&c, "1;", 5000);
  struct pv v;
  if (probe_load (&c, file, mode, &v) != 0)
    return;
  int poll_mode = strcmp (mode, "pollbatch") == 0;
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 3);
  uint64_t sizes[3] = { 1, 8, 1 };
  for (size_t k = 0; k < 3; k++)
    {
      const struct emlat_interaction *ix = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, k);
      uint64_t bytes = 0, end = 0, out = 0, rb = 0, re = 0, latest = 0, fe = 0;
      enum emlat_quality q = 0;
      CHECK (pv_counter (&v, ix, EMLAT_C_READ_BATCH_BYTES, &bytes),
             "batch %zu has a byte count", k);
      CHECK_EQ_U64 (bytes, sizes[k]);
      CHECK (pv_value (&v, ix, EMLAT_V_DECISIVE_SOURCE_END, &end), "source");
      CHECK_EQ_U64 (end, sizes[k]);
      CHECK (pv_time (&v, ix, EMLAT_T_READ_BEGIN, &rb, NULL)
               && pv_time (&v, ix, EMLAT_T_READ_END, &re, NULL) && rb <= re,
             "read interval of batch %zu", k);
      CHECK (pv_time (&v, ix, EMLAT_T_INPUT_LATEST, &latest, &q),
             "latest arrival of batch %zu", k);
      CHECK_LE_U64 (latest, re);
      if (poll_mode && sizes[k] == 1)
        {
          /* One byte after a poll: the poll's readiness bounds it. */
          uint64_t ready = 0;
          CHECK (pv_time (&v, ix, EMLAT_T_INPUT_READY, &ready, NULL),
                 "readiness of batch %zu", k);
          CHECK_EQ_U64 (latest, ready);
          CHECK_EQ_U64 (q, EMLAT_Q_MAIN_POLL_READY);
        }
      else
        {
          CHECK_EQ_U64 (latest, re);
          CHECK_EQ_U64 (q, EMLAT_Q_READ);
        }
      if (!poll_mode)
        {
          uint64_t ready;
          CHECK (!pv_time (&v, ix, EMLAT_T_INPUT_READY, &ready, NULL),
                 "no readiness without a poll or the observer");
        }
      /* The program blocked 50 ms before the later batches: their earliest
         arrival is the start of that wait, inferred.  (The first byte is
         sent at once, so its wait may not have blocked.) */
      uint64_t earliest = 0;
      enum emlat_quality eq = 0;
      int have_earliest
        = pv_time (&v, ix, EMLAT_T_INPUT_EARLIEST, &earliest, &eq);
      if (k > 0)
        {
          CHECK (have_earliest, "earliest arrival of batch %zu", k);
          CHECK_EQ_U64 (eq, EMLAT_Q_INFERRED);
          CHECK_GE_U64 (latest - earliest, 40000000u);
        }
      if (have_earliest)
        CHECK_LE_U64 (earliest, latest);
      /* The acknowledgement is its output epoch, closed by the write. */
      CHECK (pv_counter (&v, ix, EMLAT_C_TTY_BYTES, &out), "tty bytes");
      CHECK_EQ_U64 (out, 2);
      CHECK (pv_time (&v, ix, EMLAT_T_FLUSH_END, &fe, &q), "flush end");
      CHECK_EQ_U64 (q, EMLAT_Q_WRITE);
      CHECK_GE_U64 (fe, re);
      uint64_t i2f = pv_dur (&v, ix, EMLAT_T_INPUT_LATEST, EMLAT_T_FLUSH_END);
      CHECK (i2f != UINT64_MAX && i2f < 1000000000u,
             "input_to_flush_min of batch %zu: %llu ns", k,
             (unsigned long long)i2f);
      CHECK_EQ_U64 (ix->status, EMLAT_STATUS_NORMAL);
      /* Dispatched at the end of its read, ended where its work ended
         (the start of the next wait or read): the times of the calls,
         no clock read of the library's own (docs/TTY.md). */
      uint64_t disp = 0, work_end = 0, ix_end = 0;
      CHECK (pv_time (&v, ix, EMLAT_T_DISPATCH_BEGIN, &disp, NULL),
             "dispatch of batch %zu", k);
      CHECK_EQ_U64 (disp, re);
      CHECK (pv_time (&v, ix, EMLAT_T_ROOT_WORK_END, &work_end, NULL)
               && pv_time (&v, ix, EMLAT_T_INTERACTION_END, &ix_end, NULL),
             "work end and end of batch %zu", k);
      CHECK_EQ_U64 (ix_end, work_end);
      CHECK_GE_U64 (work_end, fe);
    }
  /* "READY" had no input behind it. */
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_UNATTRIBUTED_OUTPUT), 1);
  size_t nin;
  const struct emlat_rd_input *in = emlat_profile_inputs (v.p, &nin);
  CHECK_EQ_U64 (nin, 3);
  for (size_t k = 0; k < nin && k < 3; k++)
    {
      CHECK_EQ_U64 (in[k].bytes, sizes[k]);
      CHECK_EQ_U64 (in[k].mask & EMLAT_IB_FIRST_READY,
                    poll_mode ? EMLAT_IB_FIRST_READY : 0);
    }
  pv_free (&v);
  free (file);
}

/* Zero-timeout checks only (tty_probe typeahead: polls; MODE
   typeahead-select and typeahead-pselect: selects, pselects): every
   batch's arrival lies between the start of the last check that found
   nothing and the end of the one that found it, both main-poll
   observations; neither is inferred (a check cannot wait, however long
   it took).  The probe says how far apart those two were by its own
   clock: a wider interval in the profile would mean a check's
   observation was lost. */
static void
run_typeahead (const char *mode)
{
  struct ph_child c;
  char *file = probe_start (mode, &c);
  if (!file)
    return;
  const char *keys = "abq";
  unsigned long long gap_us[3] = { 0, 0, 0 };
  for (int k = 0; k < 3; k++)
    {
      ph_sleep_ms (30);
      ph_send (&c, keys + k, 1);
      if (ph_expect (&c, "1;G", 5000) && ph_expect (&c, ";", 5000))
        {
          /* The number between the G and the ';' just found. */
          size_t g = c.cursor - 1;
          while (g > 0 && c.out[g - 1] != 'G')
            g--;
          CHECK (sscanf (c.out + g, "%llu;", &gap_us[k]) == 1 && gap_us[k] > 0,
                 "key %d: the probe's checks around it (%.20s)", k, c.out + g);
        }
    }
  struct pv v;
  if (probe_load (&c, file, mode, &v) != 0)
    return;
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 3);
  for (size_t k = 0; k < 3; k++)
    {
      const struct emlat_interaction *ix = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, k);
      uint64_t earliest = 0, ready = 0, latest = 0, rb = 0;
      enum emlat_quality eq = 0, rq = 0;
      CHECK (pv_time (&v, ix, EMLAT_T_INPUT_EARLIEST, &earliest, &eq),
             "batch %zu: known empty before it", k);
      CHECK_EQ_U64 (eq, EMLAT_Q_MAIN_POLL_READY);
      CHECK (pv_time (&v, ix, EMLAT_T_INPUT_READY, &ready, &rq), "batch %zu: readiness", k);
      CHECK_EQ_U64 (rq, EMLAT_Q_MAIN_POLL_READY);
      CHECK (pv_time (&v, ix, EMLAT_T_INPUT_LATEST, &latest, NULL)
               && pv_time (&v, ix, EMLAT_T_READ_BEGIN, &rb, NULL),
             "batch %zu: latest arrival and read", k);
      CHECK_EQ_U64 (latest, ready); /* one byte: the poll that found it */
      CHECK (earliest < ready && ready <= rb, "batch %zu: empty %llu < ready %llu <= read %llu",
             k, (unsigned long long)earliest, (unsigned long long)ready,
             (unsigned long long)rb);
      /* Within the probe's own interval (its clock reads enclose the
         library's), with 100 us for the two clocks' rates. */
      CHECK (ready - earliest <= gap_us[k] * 1000u + 100000u,
             "batch %zu: arrival known within %llu ns, the probe's checks %llu us apart", k,
             (unsigned long long)(ready - earliest), gap_us[k]);
    }
  pv_free (&v);
  free (file);
}

static void
run_prefix (void)
{
  struct ph_child c;
  char *file = probe_start ("prefix", &c);
  if (!file)
    return;
  for (int k = 0; k < 2; k++)
    {
      ph_sleep_ms (30);
      ph_send (&c, "x", 1);
      ph_sleep_ms (30);
      ph_send (&c, "y", 1);
      ph_expect (&c, "2;", 5000);
    }
  ph_sleep_ms (30);
  ph_send (&c, "q", 1);
  struct pv v;
  if (probe_load (&c, file, "prefix", &v) != 0)
    return;
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 3);
  size_t nin;
  const struct emlat_rd_input *in = emlat_profile_inputs (v.p, &nin);
  CHECK_EQ_U64 (nin, 5);
  for (size_t k = 0; k < 2; k++)
    {
      const struct emlat_interaction *ix = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, k);
      uint64_t extra = 0, bytes = 0, fe = 0, fl = 0, e = 0, l = 0, rb = 0, re = 0, out = 0;
      enum emlat_quality feq = 0, flq = 0, eq = 0, lq = 0;
      CHECK (pv_counter (&v, ix, EMLAT_C_EXTRA_READS, &extra) && extra == 1,
             "key %zu: one extra read (%llu)", k, (unsigned long long)extra);
      CHECK (pv_counter (&v, ix, EMLAT_C_READ_BATCH_BYTES, &bytes) && bytes == 2,
             "key %zu: both batches' bytes (%llu)", k, (unsigned long long)bytes);
      CHECK (pv_time (&v, ix, EMLAT_T_FIRST_INPUT_EARLIEST, &fe, &feq)
               && pv_time (&v, ix, EMLAT_T_FIRST_INPUT_LATEST, &fl, &flq),
             "key %zu: the first batch's arrival bounds", k);
      CHECK (pv_time (&v, ix, EMLAT_T_INPUT_EARLIEST, &e, &eq)
               && pv_time (&v, ix, EMLAT_T_INPUT_LATEST, &l, &lq)
               && pv_time (&v, ix, EMLAT_T_READ_BEGIN, &rb, NULL)
               && pv_time (&v, ix, EMLAT_T_READ_END, &re, NULL),
             "key %zu: the decisive batch's bounds and read", k);
      /* The first byte came after a blocking read began (inferred empty),
         ended that read (of default quality, its end); the second came
         after a poll that found nothing and before the one that found it
         (main-poll readiness, one byte). */
      CHECK_EQ_U64 (feq, EMLAT_Q_INFERRED);
      CHECK_EQ_U64 (flq, EMLAT_Q_READ);
      CHECK_EQ_U64 (eq, EMLAT_Q_MAIN_POLL_READY);
      CHECK_EQ_U64 (lq, EMLAT_Q_MAIN_POLL_READY);
      CHECK (fe < fl && fl <= e && e < l && l <= rb && rb <= re,
             "key %zu: first [%llu, %llu] then decisive [%llu, %llu], read at %llu", k,
             (unsigned long long)fe, (unsigned long long)fl, (unsigned long long)e,
             (unsigned long long)l, (unsigned long long)rb);
      CHECK_GE_U64 (l - fl, 20000000u); /* the bytes were sent 30 ms apart */
      uint64_t fb = 0, db = 0, fend = 0, dend = 0;
      CHECK (pv_value (&v, ix, EMLAT_V_FIRST_SOURCE_BATCH, &fb)
               && pv_value (&v, ix, EMLAT_V_DECISIVE_SOURCE_BATCH, &db)
               && pv_value (&v, ix, EMLAT_V_FIRST_SOURCE_END, &fend)
               && pv_value (&v, ix, EMLAT_V_DECISIVE_SOURCE_END, &dend),
             "key %zu: source ranges", k);
      CHECK (nin == 5 && fb == in[2 * k].batch_id && db == in[2 * k + 1].batch_id,
             "key %zu: first batch %llu, decisive %llu", k, (unsigned long long)fb,
             (unsigned long long)db);
      CHECK (fend == 1 && dend == 1, "key %zu: one byte each", k);
      CHECK (pv_counter (&v, ix, EMLAT_C_TTY_BYTES, &out) && out == 2, "key %zu: its output",
             k);
    }
  /* The 'q' alone: one batch, no first-batch bounds apart. */
  const struct emlat_interaction *q = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, 2);
  uint64_t x = 0;
  CHECK (q && !pv_time (&v, q, EMLAT_T_FIRST_INPUT_LATEST, &x, NULL)
           && !pv_counter (&v, q, EMLAT_C_EXTRA_READS, &x),
         "a one-batch key has no extra read and no first-batch bounds");
  pv_free (&v);
  free (file);
}

int
main (void)
{
  run ("batch");
  run ("pollbatch");
  run_typeahead ("typeahead");
  run_typeahead ("typeahead-select");
  run_typeahead ("typeahead-pselect");
  run_prefix ();
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_tty_model.c -- the terminal model runs where the ring is read
 * (src/record/ttymodel.c): terminal call records (ttycall.h) stored by a
 * thread become interactions and input batches in the profile, with the
 * fields docs/TTY.md ("The model") gives them, without the program's
 * thread doing more than storing the calls.
 *
 *  - a sequence of calls with known times (a zero-timeout wait that finds
 *    the input empty, a one-byte read, a second read, a write, a wait, then
 *    stdio output with nothing open, a failed write, the thread's close)
 *    gives one TTY command interaction (arrival bounds and their
 *    qualities, extra read, first-batch bounds, output and flush bounds,
 *    epoch, bytes, write calls) and one unattributed-output interaction
 *    (stdio calls, flush failure), two input batches that the command
 *    names as its first and decisive sources, and no loss;
 *  - malformed call records (unknown operation, a flag the operation does
 *    not have, an end before the start, a quality out of range, a
 *    two-slot record that is not a read with an observer time) are each
 *    one LOSS record_invalid and change nothing else;
 *  - the model's state is in the checkpoint: a process that read a key,
 *    flushed (a pass and a checkpoint), wrote the echo and was killed with
 *    SIGKILL leaves, once its profile is recovered, one TTY command
 *    interaction that carries both the read and the write (without the
 *    model's state the write would open an unattributed interaction).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "profile_view.h"
#include "record/ttycall.h"
#include "tap.h"
#include "testutil.h"

#define US 1000u

/* Load the profile at FILE into V (0, or a failed check) and free FILE. */
static int
load (struct pv *v, char *file)
{
  int rc = pv_load (v, file);
  CHECK (rc == 0, "load %s", file);
  free (file);
  return rc;
}

static uint64_t
loss_records (const struct pv *v, unsigned reason)
{
  size_t n = 0;
  const struct emlat_loss_entry *l = emlat_profile_losses (v->p, &n);
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++)
    if (l[i].loss.reason == reason)
      sum += l[i].loss.records;
  return sum;
}

static uint64_t
field_t (const struct pv *v, const struct emlat_interaction *ix, unsigned f, unsigned *q)
{
  uint64_t t = 0;
  enum emlat_quality qq = 0;
  if (!pv_time (v, ix, f, &t, &qq))
    return 0;
  if (q)
    *q = qq;
  return t;
}

static uint64_t
counter (const struct pv *v, const struct emlat_interaction *ix, unsigned c)
{
  uint64_t x = 0;
  return pv_counter (v, ix, c, &x) ? x : UINT64_MAX;
}

static uint64_t
value (const struct pv *v, const struct emlat_interaction *ix, unsigned f)
{
  uint64_t x = 0;
  return pv_value (v, ix, f, &x) ? x : UINT64_MAX;
}

static void
test_sequence (void)
{
  char *file = tu_strf ("%s/seq.emlat", tu_tmpdir ());
  struct emlat_options o = { .path = file };
  CHECK_OK (emlat_start (&o));
  uint64_t b = emlat_now ();
  /* A check for typeahead that finds nothing (known empty at b + 10). */
  emlat_tty_put (EMLAT_TTY_WAIT_END, 0, 0, b + 10 * US, b + 10 * US, b + 10 * US, 0, 0);
  /* A blocking wait that reports input: readable at b + 40. */
  emlat_tty_put (EMLAT_TTY_WAIT_BEGIN, 0, 0, b + 20 * US, 0, 0, 0, 0);
  emlat_tty_put (EMLAT_TTY_WAIT_END, EMLAT_TTY_F_READY | EMLAT_TTY_F_BLOCKED, 0, b + 20 * US,
                 b + 40 * US, 0, 0, 0);
  /* The key (1 byte), then the rest of a sequence (2 bytes) at once. */
  emlat_tty_put (EMLAT_TTY_READ, 0, 0, b + 50 * US, b + 51 * US, 1, 0, 0);
  emlat_tty_put (EMLAT_TTY_READ, 0, 0, b + 60 * US, b + 61 * US, 2, 0, 0);
  /* The echo, then the program waits again. */
  emlat_tty_put (EMLAT_TTY_OUTPUT, EMLAT_TTY_F_OK | EMLAT_TTY_F_WRITE_CALL,
                 EMLAT_Q_WRITE | EMLAT_Q_WRITE << 8, b + 70 * US, b + 72 * US, 9, 0, 0);
  emlat_tty_put (EMLAT_TTY_WAIT_BEGIN, 0, 0, b + 80 * US, 0, 0, 0, 0);
  emlat_tty_put (EMLAT_TTY_WAIT_END, 0, 0, b + 80 * US, b + 90 * US, b + 90 * US, 0, 0);
  /* Output with nothing open: a failed fflush that still emitted 5 bytes,
     a failed write. */
  emlat_tty_put (EMLAT_TTY_OUTPUT, EMLAT_TTY_F_STDIO_CALL | EMLAT_TTY_F_FLUSH_FAILED,
                 EMLAT_Q_WRITE | EMLAT_Q_FLUSH << 8, b + 100 * US, b + 101 * US, 5, 0, 0);
  emlat_tty_put (EMLAT_TTY_OUTPUT, EMLAT_TTY_F_WRITE_CALL | EMLAT_TTY_F_WRITE_FAILED, 0,
                 b + 110 * US, b + 111 * US, 0, 0, 0);
  emlat_tty_put (EMLAT_TTY_CLOSE, 0, 0, b + 120 * US, 0, 0, 0, 0);
  CHECK_OK (emlat_stop ());

  struct pv v;
  if (load (&v, file) != 0)
    return;
  CHECK_EQ_U64 (v.n_ix, 2);
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 1);
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_UNATTRIBUTED_OUTPUT), 1);
  CHECK_EQ_U64 (loss_records (&v, EMLAT_LOSS_RECORD_INVALID), 0);
  const struct emlat_interaction *k = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, 0);
  if (k)
    {
      unsigned q = 0;
      CHECK_EQ_U64 (k->status, EMLAT_STATUS_NORMAL);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_DISPATCH_BEGIN, 0), b + 51 * US);
      /* The blocking wait's start is an inferred known-empty time, later
         than the observed one. */
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_INPUT_EARLIEST, &q), b + 20 * US);
      CHECK_EQ_U64 (q, EMLAT_Q_INFERRED);
      /* The decisive batch is the second (2 bytes): its latest is its
         read's end; the first batch (1 byte) had the readable time. */
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_INPUT_LATEST, 0), b + 61 * US);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_FIRST_INPUT_LATEST, &q), b + 40 * US);
      CHECK_EQ_U64 (q, EMLAT_Q_MAIN_POLL_READY);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_FIRST_INPUT_EARLIEST, 0), b + 20 * US);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_READ_BEGIN, 0), b + 60 * US);
      CHECK_EQ_U64 (counter (&v, k, EMLAT_C_EXTRA_READS), 1);
      CHECK_EQ_U64 (counter (&v, k, EMLAT_C_READ_BATCH_BYTES), 3);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_OUTPUT_BEGIN, 0), b + 70 * US);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_WRITE_FIRST_BEGIN, 0), b + 70 * US);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_WRITE_LAST_END, 0), b + 72 * US);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_FLUSH_END, 0), b + 72 * US);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_INTERACTION_END, 0), b + 80 * US);
      CHECK_EQ_U64 (field_t (&v, k, EMLAT_T_ROOT_WORK_END, 0), b + 80 * US);
      CHECK_EQ_U64 (counter (&v, k, EMLAT_C_TTY_BYTES), 9);
      CHECK_EQ_U64 (counter (&v, k, EMLAT_C_WRITE_CALLS), 1);
      CHECK_EQ_U64 (counter (&v, k, EMLAT_C_OUTPUT_EPOCHS), 1);
      CHECK_EQ_U64 (value (&v, k, EMLAT_V_FINAL_OUTPUT_EPOCH), 1);
      CHECK_EQ_U64 (value (&v, k, EMLAT_V_DECISIVE_SOURCE_END), 2);
      CHECK_EQ_U64 (value (&v, k, EMLAT_V_FIRST_SOURCE_END), 1);
      size_t ni = 0;
      const struct emlat_rd_input *in = emlat_profile_inputs (v.p, &ni);
      CHECK_EQ_U64 (ni, 2);
      if (ni == 2)
        {
          CHECK_EQ_U64 (value (&v, k, EMLAT_V_FIRST_SOURCE_BATCH), in[0].batch_id);
          CHECK_EQ_U64 (value (&v, k, EMLAT_V_DECISIVE_SOURCE_BATCH), in[1].batch_id);
          CHECK (in[0].batch_id != in[1].batch_id, "two batch ids");
          CHECK_EQ_U64 (in[0].bytes, 1);
          /* A batch carries observed known-empty times only: the last
             one was inferred. */
          CHECK_EQ_U64 (in[0].mask & EMLAT_IB_KNOWN_EMPTY, 0);
          CHECK_EQ_U64 (in[0].t_first_ready, b + 40 * US);
          CHECK_EQ_U64 (in[1].mask & EMLAT_IB_FIRST_READY, 0);
        }
    }
  const struct emlat_interaction *u = pv_nth (&v, EMLAT_ROOT_UNATTRIBUTED_OUTPUT, 0);
  if (u)
    {
      unsigned q = 0;
      CHECK_EQ_U64 (field_t (&v, u, EMLAT_T_DISPATCH_BEGIN, 0), b + 100 * US);
      CHECK_EQ_U64 (counter (&v, u, EMLAT_C_STDIO_CALLS), 1);
      CHECK_EQ_U64 (counter (&v, u, EMLAT_C_TTY_BYTES), 5);
      CHECK_EQ_U64 (counter (&v, u, EMLAT_C_FLUSH_FAILURES), 2);
      CHECK_EQ_U64 (counter (&v, u, EMLAT_C_WRITE_CALLS), 1);
      CHECK_EQ_U64 (value (&v, u, EMLAT_V_FINAL_OUTPUT_EPOCH), 2);
      CHECK_EQ_U64 (field_t (&v, u, EMLAT_T_WRITE_FIRST_END, &q), b + 101 * US);
      CHECK_EQ_U64 (q, EMLAT_Q_FLUSH);
      /* A flush that failed is no successful flush. */
      CHECK_EQ_U64 (field_t (&v, u, EMLAT_T_FLUSH_END, 0), 0);
      CHECK_EQ_U64 (field_t (&v, u, EMLAT_T_INTERACTION_END, 0), b + 120 * US);
    }
  pv_free (&v);
}

static void
test_malformed (void)
{
  char *file = tu_strf ("%s/bad.emlat", tu_tmpdir ());
  struct emlat_options o = { .path = file };
  CHECK_OK (emlat_start (&o));
  uint64_t b = emlat_now ();
  emlat_tty_put (EMLAT_TTY_OP_MAX + 1, 0, 0, b, b, 0, 0, 0);             /* operation */
  emlat_tty_put (EMLAT_TTY_WAIT_BEGIN, EMLAT_TTY_F_READY, 0, b, 0, 0, 0, 0); /* flag */
  emlat_tty_put (EMLAT_TTY_READ, 0, 0, b + 5, b, 1, 0, 0);                /* end < start */
  emlat_tty_put (EMLAT_TTY_OUTPUT, EMLAT_TTY_F_OK, EMLAT_Q_MAX + 1, b, b + 1, 3, 0, 0);
  emlat_tty_put (EMLAT_TTY_WAIT_END, 0, 0, b, b + 1, b, 1, b);           /* 2 slots */
  emlat_tty_put (EMLAT_TTY_WAIT_END, 0, 0, b, b + 10, b + 11, 0, 0);     /* empty_at */
  /* A good record after them still counts. */
  emlat_tty_put (EMLAT_TTY_READ, 0, 0, b + 20, b + 21, 4, 0, 0);
  CHECK_OK (emlat_stop ());
  struct pv v;
  if (load (&v, file) != 0)
    return;
  CHECK_EQ_U64 (loss_records (&v, EMLAT_LOSS_RECORD_INVALID), 6);
  CHECK_EQ_U64 (v.n_ix, 1);
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 1);
  pv_free (&v);
}

static void
test_recovered (void)
{
  char *file = tu_strf ("%s/killed.emlat", tu_tmpdir ());
  pid_t pid = fork ();
  if (pid == 0)
    {
      struct emlat_options o = { .path = file };
      if (emlat_start (&o) != 0)
        _exit (3);
      uint64_t b = emlat_now ();
      emlat_tty_put (EMLAT_TTY_READ, 0, 0, b, b + 1, 1, 0, 0);
      if (emlat_flush () != 0) /* a pass and its checkpoint */
        _exit (4);
      emlat_tty_put (EMLAT_TTY_OUTPUT, EMLAT_TTY_F_OK | EMLAT_TTY_F_WRITE_CALL,
                     EMLAT_Q_WRITE | EMLAT_Q_WRITE << 8, b + 10, b + 20, 7, 0, 0);
      emlat_tty_put (EMLAT_TTY_WAIT_BEGIN, 0, 0, b + 30, 0, 0, 0, 0);
      raise (SIGKILL);
      _exit (5);
    }
  int st = 0;
  CHECK (pid > 0 && waitpid (pid, &st, 0) == pid, "child ran");
  CHECK (WIFSIGNALED (st) && WTERMSIG (st) == SIGKILL, "child was killed (status %d)", st);
  struct pv v;
  if (load (&v, file) != 0) /* recovers the ring file first */
    return;
  CHECK_EQ_U64 (v.n_ix, 1);
  const struct emlat_interaction *k = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, 0);
  CHECK (k != NULL, "the key's interaction survived");
  if (k)
    {
      CHECK_EQ_U64 (k->status, EMLAT_STATUS_NORMAL);
      CHECK_EQ_U64 (counter (&v, k, EMLAT_C_TTY_BYTES), 7);
      CHECK_EQ_U64 (counter (&v, k, EMLAT_C_WRITE_CALLS), 1);
    }
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_UNATTRIBUTED_OUTPUT), 0);
  pv_free (&v);
}

int
main (void)
{
  test_sequence ();
  test_malformed ();
  test_recovered ();
  return tap_done ();
}

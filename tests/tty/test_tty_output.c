/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_tty_output.c -- the output side of interactions:
 *  - stdio output completed by fflush: bytes buffered by fputs leave at the
 *    fflush 40 ms later; the interaction's flush end is that fflush (quality
 *    flush), tty_emit covers the sleep, and the bytes are counted once;
 *  - backpressure: 256 KiB written in one write(2) while the master stops
 *    reading for 300 ms; the write blocks, and tty_emit (flush end - output
 *    begin) shows it (>= 250 ms; 2 noisy cores);
 *  - output with no input behind it: three "tick" lines, each followed by a
 *    poll that times out, are three unattributed-output interactions and no
 *    TTY command, each of one write call;
 *  - a failed write: per key a write(2) that fails (EFAULT) and one that
 *    succeeds are two write calls, one flush failure, the good write's
 *    bytes, and the flush is the good write;
 *  - spans per call only when asked: by default a write, a stdio flush and
 *    a wait record no span (the interaction carries what they measured);
 *    with EMLAT_TTY_SPANS=1 each write is a tty_write span with its bytes,
 *    serving the interaction its output opened, the fflush a tty_flush
 *    span and each timed wait an event_poll span,
 *    and the SESSION metadata says tty.spans = 1.
 */
#include "profile_view.h"
#include "pty_harness.h"

static struct ph_child c;

static int
start (const char *file, char *const argv[])
{
  return ph_spawn (&c, argv, ph_trace_env (file, NULL));
}

static void
test_stdio (void)
{
  char *file = tu_strf ("%s/stdio.emlat", tu_tmpdir ());
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char *argv[] = { probe, (char *)"stdio", (char *)"40", NULL };
  if (start (file, argv) != 0)
    return;
  ph_expect (&c, "READY", 5000);
  ph_send (&c, "a", 1);
  ph_expect (&c, "stdio-out", 5000);
  ph_send (&c, "q", 1);
  CHECK_EQ_I64 (ph_finish (&c, 10000), 0);
  struct pv v;
  if (pv_load (&v, file) != 0)
    return;
  pv_print (&v);
  const struct emlat_interaction *ix = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, 0);
  uint64_t bytes = 0, calls = 0, fe = 0;
  enum emlat_quality q = 0;
  CHECK (pv_counter (&v, ix, EMLAT_C_TTY_BYTES, &bytes), "tty bytes");
  CHECK_EQ_U64 (bytes, strlen ("stdio-out"));
  CHECK (pv_counter (&v, ix, EMLAT_C_STDIO_CALLS, &calls), "stdio calls");
  CHECK_EQ_U64 (calls, 2); /* fputs, fflush */
  CHECK (pv_time (&v, ix, EMLAT_T_FLUSH_END, &fe, &q), "flush end");
  CHECK_EQ_U64 (q, EMLAT_Q_FLUSH);
  uint64_t emit = pv_dur (&v, ix, EMLAT_T_OUTPUT_BEGIN, EMLAT_T_FLUSH_END);
  uint64_t i2f = pv_dur (&v, ix, EMLAT_T_READ_END, EMLAT_T_FLUSH_END);
  TEST_DIAG ("stdio: read end to flush end %.1f ms", (double)i2f / 1e6);
  CHECK_GE_U64 (i2f, 35000000u);
  CHECK_LE_U64 (emit, i2f);
  pv_free (&v);
  free (file);
  free (probe);
}

static void
test_backpressure (void)
{
  char *file = tu_strf ("%s/flood.emlat", tu_tmpdir ());
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char *argv[] = { probe, (char *)"flood", (char *)"256", NULL };
  if (start (file, argv) != 0)
    return;
  ph_expect (&c, "READY", 5000);
  ph_send (&c, "a", 1);
  ph_sleep_ms (300); /* not reading: the program's write must block */
  ph_expect (&c, "END", 10000);
  ph_send (&c, "q", 1);
  CHECK_EQ_I64 (ph_finish (&c, 10000), 0);
  struct pv v;
  if (pv_load (&v, file) != 0)
    return;
  pv_print (&v);
  const struct emlat_interaction *ix = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, 0);
  uint64_t bytes = 0;
  CHECK (pv_counter (&v, ix, EMLAT_C_TTY_BYTES, &bytes), "tty bytes");
  CHECK_EQ_U64 (bytes, 256 * 1024 + 3);
  uint64_t emit = pv_dur (&v, ix, EMLAT_T_OUTPUT_BEGIN, EMLAT_T_FLUSH_END);
  TEST_DIAG ("backpressure: tty_emit %.1f ms", (double)emit / 1e6);
  CHECK_GE_U64 (emit, 250000000u);
  CHECK_LE_U64 (emit, 5000000000u);
  pv_free (&v);
  free (file);
  free (probe);
}

static void
test_unattributed (void)
{
  char *file = tu_strf ("%s/ticks.emlat", tu_tmpdir ());
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char *argv[] = { probe, (char *)"ticks", (char *)"3", (char *)"30", NULL };
  if (start (file, argv) != 0)
    return;
  CHECK_EQ_I64 (ph_finish (&c, 10000), 0);
  struct pv v;
  if (pv_load (&v, file) != 0)
    return;
  pv_print (&v);
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 0);
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_UNATTRIBUTED_OUTPUT), 3);
  for (size_t k = 0; k < 3; k++)
    {
      const struct emlat_interaction *ix
        = pv_nth (&v, EMLAT_ROOT_UNATTRIBUTED_OUTPUT, k);
      uint64_t bytes = 0, t;
      CHECK (pv_counter (&v, ix, EMLAT_C_TTY_BYTES, &bytes), "bytes");
      CHECK_EQ_U64 (bytes, 6);
      CHECK (!pv_time (&v, ix, EMLAT_T_INPUT_LATEST, &t, NULL),
             "no input bounds without input");
      CHECK (pv_time (&v, ix, EMLAT_T_FLUSH_END, &t, NULL), "flush end");
      CHECK_EQ_U64 (ix->status, EMLAT_STATUS_NORMAL);
      uint64_t calls = 0;
      CHECK (pv_counter (&v, ix, EMLAT_C_WRITE_CALLS, &calls), "write calls");
      CHECK_EQ_U64 (calls, 1);
      CHECK (!pv_counter (&v, ix, EMLAT_C_FLUSH_FAILURES, &calls), "no flush failure");
    }
  pv_free (&v);
  free (file);
  free (probe);
}

static void
test_failed_write (void)
{
  char *file = tu_strf ("%s/badwrite.emlat", tu_tmpdir ());
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char *argv[] = { probe, (char *)"badwrite", NULL };
  if (start (file, argv) != 0)
    return;
  ph_expect (&c, "READY", 5000);
  for (int k = 0; k < 2; k++)
    {
      ph_send (&c, "a", 1);
      ph_expect (&c, "ok", 5000);
    }
  ph_send (&c, "q", 1);
  CHECK_EQ_I64 (ph_finish (&c, 10000), 0);
  struct pv v;
  if (pv_load (&v, file) != 0)
    return;
  pv_print (&v);
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 3); /* two keys and the q */
  for (size_t k = 0; k < 2; k++)
    {
      const struct emlat_interaction *ix = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, k);
      uint64_t calls = 0, failures = 0, bytes = 0, wb = 0, we = 0, fb = 0, fe = 0;
      CHECK (pv_counter (&v, ix, EMLAT_C_WRITE_CALLS, &calls), "write calls");
      CHECK_EQ_U64 (calls, 2);
      CHECK (pv_counter (&v, ix, EMLAT_C_FLUSH_FAILURES, &failures), "flush failures");
      CHECK_EQ_U64 (failures, 1);
      CHECK (pv_counter (&v, ix, EMLAT_C_TTY_BYTES, &bytes), "bytes");
      CHECK_EQ_U64 (bytes, 2);
      /* The only write that emitted bytes is the first, the last and the
         flush. */
      CHECK (pv_time (&v, ix, EMLAT_T_WRITE_FIRST_BEGIN, &wb, NULL), "first write");
      CHECK (pv_time (&v, ix, EMLAT_T_WRITE_LAST_END, &we, NULL), "last write");
      CHECK (pv_time (&v, ix, EMLAT_T_FLUSH_BEGIN, &fb, NULL), "flush begin");
      CHECK (pv_time (&v, ix, EMLAT_T_FLUSH_END, &fe, NULL), "flush end");
      CHECK_EQ_U64 (fb, wb);
      CHECK_EQ_U64 (fe, we);
    }
  pv_free (&v);
  free (file);
  free (probe);
}

/* Spans of KIND in the profile at FILE (loaded with every span), their
   bytes (tty_bytes) summed into *BYTES, and in *SERVED how many serve an
   interaction of root kind unattributed output of the profile (their
   cause names it). */
static size_t
spans_of (const char *file, unsigned kind, uint64_t *bytes, size_t *served)
{
  const char *paths[1] = { file };
  struct emlat_profile *p = NULL;
  int rc = emlat_profile_load (paths, 1, NULL, EMLAT_LOAD_SPANS, &p);
  CHECK (rc == 0 && p, "load %s with spans: %d", file, rc);
  if (rc != 0 || !p)
    return 0;
  size_t n = 0, k = 0;
  const uint64_t *pool = NULL;
  const struct emlat_span *s = emlat_profile_spans (p, &n, &pool);
  *bytes = 0;
  *served = 0;
  for (size_t i = 0; i < n; i++)
    if (s[i].kind == kind)
      {
        uint64_t b;
        if (emlat_span_counter (&s[i], pool, EMLAT_C_TTY_BYTES, &b))
          *bytes += b;
        const struct emlat_interaction *ix
          = s[i].cause ? emlat_profile_find_interaction (p, s[i].cause) : NULL;
        if (ix && ix->root_kind == EMLAT_ROOT_UNATTRIBUTED_OUTPUT)
          ++*served;
        k++;
      }
  emlat_profile_free (p);
  return k;
}

static void
test_spans (int asked)
{
  char *file = tu_strf ("%s/spans-%d.emlat", tu_tmpdir (), asked);
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char *argv[] = { probe, (char *)"ticks", (char *)"3", (char *)"30", NULL };
  if (ph_spawn (&c, argv, ph_trace_env (file, asked ? "EMLAT_TTY_SPANS=1" : NULL)) != 0)
    return;
  CHECK_EQ_I64 (ph_finish (&c, 10000), 0);
  uint64_t bytes = 0, none = 0;
  size_t served = 0, polls_served = 0;
  size_t writes = spans_of (file, EMLAT_SPAN_TTY_WRITE, &bytes, &served);
  size_t polls = spans_of (file, EMLAT_SPAN_EVENT_POLL, &none, &polls_served);
  TEST_DIAG ("EMLAT_TTY_SPANS=%d: %zu tty_write spans (%llu bytes), %zu event_poll spans",
             asked, writes, (unsigned long long)bytes, polls);
  if (asked)
    {
      CHECK_EQ_U64 (writes, 3); /* one write per tick line */
      CHECK_EQ_U64 (bytes, 18);
      /* Each write serves the interaction its output opened (the model
         runs where the ring is read: the span names it by its ring). */
      CHECK_EQ_U64 (served, 3);
      CHECK_GE_U64 (polls, 3);  /* each tick's timed-out poll */
    }
  else
    {
      CHECK_EQ_U64 (writes, 0);
      CHECK_EQ_U64 (polls, 0);
    }
  struct pv v;
  if (pv_load (&v, file) == 0)
    {
      /* The interactions are the same either way. */
      CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_UNATTRIBUTED_OUTPUT), 3);
      pv_free (&v);
    }
  free (file);
  free (probe);
}

int
main (void)
{
  test_stdio ();
  test_backpressure ();
  test_unattributed ();
  test_failed_write ();
  test_spans (0);
  test_spans (1);
  TEST_DONE ();
}

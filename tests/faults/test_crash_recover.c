/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_crash_recover.c -- every record published before a recording
 * process dies is in its profile once a reader has recovered the ring file
 * (DESIGN.md section 8.3, FORMAT.md section 15), even though the writer
 * never woke to drain it.
 *
 * A child records numbered user spans (detail = 1, 2, 3, ...) at a steady
 * rate, far below the rings' high-water mark, and after each one stores
 * into memory shared with the parent how many it has published and when.
 * The parent kills it at a random moment with SIGKILL, SIGABRT, SIGSEGV or
 * SIGHUP.  Then, before any reader touches it:
 *   - the profile holds its header and SESSION chunk only: the writer
 *     never wrote a span (it was asleep);
 *   - loading the profile (emlat_profile_load, which recovers first) finds
 *     every span whose end the child had published, each exactly once,
 *     numbered 1..N without a gap; in particular every one published 10 ms
 *     or more before the kill; at most one more span is there unended (the
 *     signal came between its begin and its end);
 *   - the recovered STATS says stats.recovered = 1 and stats.final = 0 (a
 *     death, not a stop), and the ring file is gone.
 * A last round stops with EMLAT_OPT_DEFER_FINISH instead of dying: the
 * recovered profile then ends cleanly (stats.final = 1).
 * Rounds: ROUNDS per signal (environment EMLAT_CRASH_ROUNDS, default 5).
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "record/ring.h"
#include "publog.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

/* The child must die of the signal it is sent, as a program without a
   sanitizer does.  A sanitizer that catches SIGSEGV to report it can hang
   in its report (seen under TSan: the report waits on a lock of the
   runtime that another thread of the child holds), and the round then
   never ends; with these options the runtimes leave both signals alone.
   The functions are read by the runtimes at start and unused otherwise. */
const char *__asan_default_options (void);
const char *__tsan_default_options (void);
const char *
__asan_default_options (void)
{
  return "handle_segv=0:handle_abort=0";
}
const char *
__tsan_default_options (void)
{
  return "handle_segv=0:handle_abort=0";
}

/* The child's ring: its high-water mark (a quarter, emlat_ring_mark) is
   32,768 slots, 16,383 spans, more than the child publishes in the
   longest round (about 11,000 spans in 200 ms), so the writer sleeps
   through every round but the last. */
#define RING_SLOTS 131072

/* What the child publishes, in memory shared with the parent. */
struct progress
{
  struct publog log;
  _Atomic uint64_t started;    /* the child records */
};

static void
child (const char *path, struct progress *pg, int defer_stop)
{
  struct rlimit no_core = { 0, 0 };
  setrlimit (RLIMIT_CORE, &no_core);
  struct emlat_options o = { .path = path,
                             .ring_slots = RING_SLOTS,
                             .flags = defer_stop ? EMLAT_OPT_DEFER_FINISH : 0 };
  if (emlat_start (&o) != 0)
    _exit (3);
  atomic_store (&pg->started, 1);
  for (uint64_t n = 1; n <= 20000; n++)
    {
      publog_span (&pg->log, n);
    }
  if (defer_stop)
    _exit (emlat_stop () == 0 ? 0 : 5);
  for (;;)
    pause ();
}

static void
collect_details (const char *path, struct numbered *sn, uint64_t *recovered, uint64_t *final)
{
  struct emlat_profile *p = 0;
  const char *paths[] = { path };
  CHECK_OK (emlat_profile_load (paths, 1, 0, EMLAT_LOAD_SPANS, &p));
  if (!p)
    return;
  numbered_spans_of (p, sn);
  size_t nkv;
  const struct emlat_kv *kv = emlat_profile_stats (p, &nkv);
  const struct emlat_kv *rec = emlat_kv_find (kv, nkv, "stats.recovered");
  const struct emlat_kv *fin = emlat_kv_find (kv, nkv, "stats.final");
  *recovered = rec ? rec->u : UINT64_MAX;
  *final = fin ? fin->u : UINT64_MAX;
  emlat_profile_free (p);
}

/* One round: start a child, kill it with SIG after DELAY_MS (0: let it
   stop with a deferred finish), check the profile. */
static void
round_with (const char *dir, int sig, int delay_ms, int idx)
{
  char *path = tu_strf ("%s/crash-%d-%d.emlat", dir, sig, idx);
  struct progress *pg = mmap (0, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                              -1, 0);
  CHECK (pg != MAP_FAILED, "shared progress page");
  memset (pg, 0, sizeof *pg);
  pid_t pid = fork ();
  if (pid == 0)
    child (path, pg, sig == 0);
  while (!atomic_load (&pg->started))
    usleep (200);
  int status = 0;
  uint64_t kill_t = 0;
  if (sig)
    {
      usleep ((useconds_t)delay_ms * 1000);
      kill_t = emlat_now ();
      kill (pid, sig);
    }
  waitpid (pid, &status, 0);
  /* (A sanitizer runtime that ignored the options above would catch
     SIGSEGV and SIGABRT, report, and exit with an error instead.) */
  if (sig)
    CHECK ((WIFSIGNALED (status) && WTERMSIG (status) == sig)
             || ((sig == SIGSEGV || sig == SIGABRT) && WIFEXITED (status) && WEXITSTATUS (status)),
           "round %d: child died of %d (status 0x%x)", idx, sig, status);
  else
    CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0, "deferred stop: child exit %d",
           WEXITSTATUS (status));
  uint64_t published = atomic_load_explicit (&pg->log.published, memory_order_acquire);
  /* Published 10 ms or more before the kill. */
  uint64_t early = publog_before (&pg->log, sig ? kill_t : UINT64_MAX);

  /* Before any reader: while the ring stayed below its high-water mark
     (emlat_ring_mark: a quarter of RING_SLOTS; two slots per span, and
     the writer runs within a record of the mark), the writer never
     drained, so the profile has its header and SESSION chunk only. */
  struct tally t0 = { 0 };
  struct emlat_scan_result res;
  tally_file (path, &t0, 0, &res);
  if (published * 2 + 2 <= emlat_ring_mark (RING_SLOTS))
    CHECK_EQ_U64 (t0.span_complete, 0);
  tally_free (&t0);

  struct numbered sn = { 0 };
  sn.cap = 20002;
  sn.have = calloc (sn.cap, 1);
  uint64_t recovered = 0, final = 0;
  collect_details (path, &sn, &recovered, &final);
  uint64_t missing = 0;
  for (uint64_t d = 1; d <= published; d++)
    if (!sn.have[d])
      missing++;
  TEST_DIAG ("signal %2d after %3d ms: published %llu (%llu 10 ms before), profile %llu, "
             "missing %llu, duplicate %llu, unended %llu",
             sig, delay_ms, (unsigned long long)published, (unsigned long long)early,
             (unsigned long long)sn.max, (unsigned long long)missing,
             (unsigned long long)sn.dup, (unsigned long long)sn.unended);
  CHECK (published > 0, "the child published spans");
  CHECK_EQ_U64 (missing, 0);
  CHECK_EQ_U64 (sn.dup, 0);
  CHECK_EQ_U64 (sn.bad, 0);
  /* At most the one span the child was inside when it died. */
  CHECK_LE_U64 (sn.unended, sig ? 1 : 0);
  CHECK (early <= sn.max, "every span published 10 ms before the kill is there");
  /* The child may have stored one more span than it counted. */
  CHECK (sn.max <= published + 1, "no span beyond what was published (%llu > %llu)",
         (unsigned long long)sn.max, (unsigned long long)published);
  CHECK_EQ_U64 (recovered, 1);
  CHECK_EQ_U64 (final, sig ? 0 : 1);
  /* The ring file is gone: a second load changes nothing. */
  struct emlat_recovery r;
  CHECK_OK (emlat_recover (path, &r));
  CHECK_EQ_U64 (r.found, 0);
  free (sn.have);
  munmap (pg, sizeof *pg);
  unlink (path);
  free (path);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  const char *env = getenv ("EMLAT_CRASH_ROUNDS");
  int rounds = env ? atoi (env) : 5;
  srand ((unsigned)time (0) ^ (unsigned)getpid ());
  static const int sigs[] = { SIGKILL, SIGABRT, SIGSEGV, SIGHUP };
  int idx = 0;
  for (int r = 0; r < rounds; r++)
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
      round_with (dir, sigs[k], 20 + rand () % 180, idx++);
  round_with (dir, 0, 0, idx++);
  TEST_DONE ();
}

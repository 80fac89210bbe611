/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_replay_endings.c -- a replay ends cleanly however CMD behaves, and
 * says how it ended (exit codes documented in docs/REPLAY.md).
 *
 *  - CMD hangs (tests/progs/pty_hang.c ignores SIGHUP and SIGTERM) and the
 *    workload outlasts --timeout: SIGTERM, then SIGKILL after --grace;
 *    exit 1, "timeout", and the run takes about timeout + grace (bounded
 *    at timeout + grace + 5 s: a generous tolerance, not a timing test).
 *  - CMD hangs after a completed workload: hangup, SIGTERM, SIGKILL; exit 0.
 *  - CMD exits early (pty_die: status 3, or SIGABRT): exit 1, the keys it
 *    answered are measured, the profile is valid.
 *  - CMD cannot be started: exit 2 and no profile left behind.
 *  - The profile exists: exit 2, the file is untouched.
 */
#include "replay_test.h"

#include <unistd.h>

#define SEC 1000000000ull

static char *write_script (const char *dir, const char *name, const char *text)
{
  char *p = tu_strf ("%s/%s", dir, name);
  CHECK_OK (tu_write_file (p, text, strlen (text)));
  return p;
}

static void hang_timeout (const char *dir)
{
  char *s = write_script (dir, "long.script", "set gap 100ms\nkey a*3\npause 60s\nkey b\n");
  char *prof = tu_strf ("%s/hang.emlat", dir);
  char *prog = rt_prog ("pty_hang");
  char *args[] = { "--script", s, "--timeout", "2", "--grace", "300ms",
                   "--settle", "100ms", "-o", prof, "--", prog, NULL };
  struct tu_result r;
  if (rt_replay (args, 60000, &r))
    goto out;
  CHECK_EQ_I64 (r.exit_code, 1);
  CHECK_CONTAINS (r.out, "result:        timeout after 2.0 s");
  CHECK_CONTAINS (r.out, "killed by SIGKILL; the driver sent SIGTERM, SIGKILL");
  CHECK_EQ_I64 (rt_count_before (r.out, "sent"), 3);
  CHECK_GE_U64 (r.elapsed_ns, 2 * SEC);
  CHECK_LE_U64 (r.elapsed_ns, 2 * SEC + 300000000ull * 2 + 5 * SEC);
  struct rt_profile v;
  if (rt_load (&v, prof) == 0)
    {
      CHECK_EQ_U64 (v.n_ix, 3);
      rt_free (&v);
    }
  tu_result_free (&r);
out:
  free (prog);
  free (prof);
  free (s);
}

static void hang_after_workload (const char *dir)
{
  char *s = write_script (dir, "short.script", "set gap 50ms\nkey a*2\n");
  char *prof = tu_strf ("%s/hang2.emlat", dir);
  char *prog = rt_prog ("pty_hang");
  char *args[] = { "--script", s, "--grace", "200ms", "--linger", "100ms",
                   "--settle", "100ms", "-o", prof, "--", prog, NULL };
  struct tu_result r;
  if (rt_replay (args, 60000, &r))
    goto out;
  CHECK_EQ_I64 (r.exit_code, 0);
  CHECK_CONTAINS (r.out, "result:        completed");
  CHECK_CONTAINS (r.out, "killed by SIGKILL; the driver sent hangup, SIGTERM, SIGKILL");
  tu_result_free (&r);
out:
  free (prog);
  free (prof);
  free (s);
}

static void dies (const char *dir, int do_abort)
{
  char *s = write_script (dir, "five.script", "set gap 100ms\nkey a*5\n");
  char *prof = tu_strf ("%s/die%d.emlat", dir, do_abort);
  char *prog = rt_prog ("pty_die");
  char *args[] = { "--script", s, "--settle", "100ms", "-o", prof, "--", prog,
                   "2", do_abort ? "abort" : NULL, NULL };
  struct tu_result r;
  if (rt_replay (args, 60000, &r))
    goto out;
  CHECK_EQ_I64 (r.exit_code, 1);
  CHECK_CONTAINS (r.out, "result:        CMD ended before the workload finished");
  CHECK_CONTAINS (r.out, do_abort ? "killed by SIGABRT; the driver sent nothing"
                                  : "exited with status 3; the driver sent nothing");
  CHECK_EQ_I64 (rt_count_before (r.out, "sent"), 2);
  struct rt_profile v;
  if (rt_load (&v, prof) == 0)
    {
      CHECK_EQ_U64 (v.n_ix, 2);
      /* The first key was answered and went quiet before the second. */
      if (v.n_ix >= 1)
        CHECK (rt_time (&v, &v.ix[0], EMLAT_T_EXTERNAL_FIRST_OUTPUT) != UINT64_MAX,
               "first key has a first output");
      rt_free (&v);
    }
  tu_result_free (&r);
out:
  free (prog);
  free (prof);
  free (s);
}

static void cannot_start (const char *dir)
{
  char *prof = tu_strf ("%s/none.emlat", dir);
  char *args[] = { "--keys", "3", "-o", prof, "--", "/nonexistent/emlat-no-such-program", NULL };
  struct tu_result r;
  if (rt_replay (args, 30000, &r))
    goto out;
  CHECK_EQ_I64 (r.exit_code, 2);
  CHECK_CONTAINS (r.err, "cannot run /nonexistent/emlat-no-such-program");
  CHECK (access (prof, F_OK) != 0, "no profile left behind");
  tu_result_free (&r);
out:
  free (prof);
}

static void profile_exists (const char *dir)
{
  char *prof = tu_strf ("%s/exists.emlat", dir);
  CHECK_OK (tu_write_file (prof, "keep", 4));
  char *prog = rt_prog ("pty_echo");
  char *args[] = { "--keys", "3", "-o", prof, "--", prog, NULL };
  struct tu_result r;
  if (rt_replay (args, 30000, &r))
    goto out;
  CHECK_EQ_I64 (r.exit_code, 2);
  CHECK_CONTAINS (r.err, "File exists");
  uint8_t *b;
  size_t n;
  if (tu_read_file (prof, &b, &n) == 0)
    {
      CHECK (n == 4 && memcmp (b, "keep", 4) == 0, "existing file untouched");
      free (b);
    }
  tu_result_free (&r);
out:
  free (prog);
  free (prof);
}

int main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  hang_timeout (dir);
  hang_after_workload (dir);
  dies (dir, 0);
  dies (dir, 1);
  cannot_start (dir);
  profile_exists (dir);
  TEST_DONE ();
}

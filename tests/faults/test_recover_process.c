/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_recover_process.c -- a parent finishes the profiles its child left
 * behind, knowing only the child's process id (emlat_recover_process,
 * emlat_reader.h; DESIGN.md sections 11.4 and 17):
 *
 *   - EMLAT_FINISH=reader: tests/progs/autostart (EMLAT_AUTOSTART, three
 *     named sections, stopped at exit) leaves its last records in the ring
 *     file: read as it is (EMLAT_LOAD_NO_RECOVER), its profile has no
 *     section and no final STATS.  emlat_recover_process with another
 *     process id touches nothing; with the child's it finds one ring file
 *     of a stopped process and writes its records; the profile then holds
 *     the three sections and ends cleanly; the ring file is gone (a second
 *     call finds none).  Without EMLAT_FINISH the profile is complete at
 *     exit and nothing is left to find.
 *   - A child that records and dies by SIGKILL before emlat_stop: found by
 *     its process id too, as a process that did not stop, every span it
 *     published in the profile.
 *   - Two sessions one after the other in one child, both deferred: both
 *     ring files are found and both profiles finished.
 *   - A process id below 1 is -EINVAL.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "tap.h"
#include "testutil.h"

/* Named sections (user spans) in PATH, read as it is (no recovery), and
   whether it ends with the final STATS; -1 when it does not load. */
static long
sections_as_is (const char *path, int *clean)
{
  const char *paths[] = { path };
  struct emlat_profile *p = NULL;
  if (emlat_profile_load (paths, 1, NULL, EMLAT_LOAD_NO_RECOVER, &p) != 0 || !p)
    return -1;
  size_t n = 0;
  emlat_profile_named_spans (p, &n);
  *clean = emlat_profile_totals (p)->clean_stop;
  emlat_profile_free (p);
  return (long)n;
}

/* tests/progs/autostart with tracing on into FILE, EMLAT_FINISH=reader
   when FINISH_READER; returns its process id, reaped. */
static pid_t
run_autostart (const char *file, int finish_reader)
{
  char *prog = tu_build_path ("tests/progs/autostart");
  pid_t pid = fork ();
  if (pid == 0)
    {
      setenv ("EMLAT_TRACE", "1", 1);
      setenv ("EMLAT_FILE", file, 1);
      if (finish_reader)
        setenv ("EMLAT_FINISH", "reader", 1);
      else
        unsetenv ("EMLAT_FINISH");
      execl (prog, prog, (char *)NULL);
      _exit (127);
    }
  int status = 0;
  waitpid (pid, &status, 0);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 1, "autostart traced and exited (%d)",
         WEXITSTATUS (status));
  free (prog);
  return pid;
}

static void
test_finish_reader (const char *tmp)
{
  char *file = tu_strf ("%s/deferred.emlat", tmp);
  pid_t pid = run_autostart (file, 1);
  int clean = -1;
  CHECK_EQ_I64 (sections_as_is (file, &clean), 0);
  CHECK (clean == 0, "deferred: no final STATS before the parent finishes it");

  struct emlat_recovery r;
  CHECK_OK (emlat_recover_process (getpid (), &r));
  CHECK (r.found == 0, "another process id finds nothing (%d)", r.found);
  CHECK_EQ_I64 (sections_as_is (file, &clean), 0);

  CHECK_OK (emlat_recover_process (pid, &r));
  CHECK (r.found == 1 && r.process_stopped == 1 && r.broken == 0,
         "the child's ring file: found %d, stopped %d, broken %d", r.found, r.process_stopped,
         r.broken);
  CHECK (r.records >= 6, "its records written (%llu)", (unsigned long long)r.records);
  CHECK_EQ_I64 (sections_as_is (file, &clean), 3);
  CHECK (clean == 1, "finished: the final STATS");

  CHECK_OK (emlat_recover_process (pid, &r));
  CHECK (r.found == 0, "the ring file is gone (%d)", r.found);
  free (file);

  /* Without EMLAT_FINISH the program finishes its own profile. */
  file = tu_strf ("%s/own.emlat", tmp);
  pid = run_autostart (file, 0);
  CHECK_EQ_I64 (sections_as_is (file, &clean), 3);
  CHECK (clean == 1, "not deferred: finished at exit");
  CHECK_OK (emlat_recover_process (pid, &r));
  CHECK (r.found == 0, "nothing left to find (%d)", r.found);
  free (file);
}

/* A child that records SPANS sections into FILE and dies by SIGKILL. */
static void
test_killed (const char *tmp)
{
  char *file = tu_strf ("%s/killed.emlat", tmp);
  enum { SPANS = 50 };
  pid_t pid = fork ();
  if (pid == 0)
    {
      struct emlat_options opt = { .path = file };
      if (emlat_start (&opt) != 0)
        _exit (2);
      for (int i = 0; i < SPANS; i++)
        {
          EMLAT_SCOPE ("doomed");
        }
      raise (SIGKILL);
      _exit (3);
    }
  int status = 0;
  waitpid (pid, &status, 0);
  CHECK (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL, "the child died by SIGKILL");
  int clean = -1;
  CHECK_EQ_I64 (sections_as_is (file, &clean), 0);
  struct emlat_recovery r;
  CHECK_OK (emlat_recover_process (pid, &r));
  CHECK (r.found == 1 && r.process_stopped == 0, "killed: found %d, stopped %d", r.found,
         r.process_stopped);
  CHECK_EQ_I64 (sections_as_is (file, &clean), SPANS);
  CHECK (clean == 0, "a death is not a clean stop");
  free (file);
}

/* Two deferred sessions one after the other in one process. */
static void
test_two_sessions (const char *tmp)
{
  char *a = tu_strf ("%s/first.emlat", tmp), *b = tu_strf ("%s/second.emlat", tmp);
  pid_t pid = fork ();
  if (pid == 0)
    {
      const char *files[] = { a, b };
      for (int k = 0; k < 2; k++)
        {
          struct emlat_options opt = { .path = files[k], .flags = EMLAT_OPT_DEFER_FINISH };
          if (emlat_start (&opt) != 0)
            _exit (2);
          for (int i = 0; i <= k; i++)
            {
              EMLAT_SCOPE ("twice");
            }
          if (emlat_stop () != 0)
            _exit (3);
        }
      _exit (0);
    }
  int status = 0;
  waitpid (pid, &status, 0);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0, "two sessions recorded (%d)",
         WEXITSTATUS (status));
  struct emlat_recovery r;
  CHECK_OK (emlat_recover_process (pid, &r));
  CHECK (r.found == 2 && r.process_stopped == 2, "both ring files: found %d, stopped %d",
         r.found, r.process_stopped);
  int clean = -1;
  CHECK_EQ_I64 (sections_as_is (a, &clean), 1);
  CHECK (clean == 1, "the first profile finished");
  CHECK_EQ_I64 (sections_as_is (b, &clean), 2);
  CHECK (clean == 1, "the second profile finished");
  free (a);
  free (b);
}

int
main (void)
{
  const char *tmp = tu_tmpdir ();
  if (!tmp)
    return 1;
  struct emlat_recovery r;
  CHECK (emlat_recover_process (0, &r) == -EINVAL, "process id 0: -EINVAL");
  CHECK (emlat_recover_process (-1, NULL) == -EINVAL, "process id -1: -EINVAL");
  test_finish_reader (tmp);
  test_killed (tmp);
  test_two_sessions (tmp);
  TEST_DONE ();
}

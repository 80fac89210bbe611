/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_tty_record.c -- `emlat record`: runs the command on the terminal
 * with the library preloaded, propagates its exit status, prints the
 * profile's path and a five-line summary whose command count matches the
 * keys typed, and refuses to overwrite an existing file; a program it
 * cannot enter (statically linked) leaves no empty file.
 */
#include "profile_view.h"
#include "pty_harness.h"

#include <sys/stat.h>

int
main (void)
{
  const char *dir = tu_tmpdir ();
  char *emlat = ph_build_abs ("emlat");
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char *file = tu_strf ("%s/rec.emlat", dir);
  char *argv[] = { emlat, (char *)"record", (char *)"-o", file, (char *)"--",
                   probe, (char *)"batch", NULL };
  char *env[] = { (char *)"TERM=xterm", NULL };
  struct ph_child c;
  if (ph_spawn (&c, argv, env) != 0)
    TEST_DONE ();
  ph_expect (&c, "READY", 5000);
  for (int k = 0; k < 3; k++)
    {
      ph_send (&c, "a", 1);
      ph_expect (&c, "1;", 5000);
    }
  ph_send (&c, "q", 1);
  CHECK_EQ_I64 (ph_finish (&c, 10000), 0);
  CHECK_CONTAINS (c.out, "emlat: profile: ");
  CHECK_CONTAINS (c.out, file);
  CHECK_CONTAINS (c.out, "terminal commands      4 (4 with terminal output");
  CHECK_CONTAINS (c.out, "input to flush (min)   median");
  CHECK_CONTAINS (c.out, "tty emit               median");
  CHECK_CONTAINS (c.out, "stopped cleanly");
  struct pv v;
  if (pv_load (&v, file) == 0)
    {
      CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 4);
      pv_free (&v);
    }

  /* The same file again: refused, nothing run. */
  struct tu_cmd cmd = { .argv = argv };
  struct tu_result res;
  CHECK_OK (tu_run (&cmd, &res));
  CHECK_EQ_I64 (res.exit_code, 2);
  CHECK_CONTAINS (res.err, "never overwrites");
  tu_result_free (&res);

  /* A program the library cannot enter (Debian's ldconfig is statically
     linked): said so, and the empty file made for it is gone. */
  char *stat_file = tu_strf ("%s/static.emlat", dir);
  char *argv3[] = { emlat, (char *)"record", (char *)"-o", stat_file, (char *)"--",
                    (char *)"/sbin/ldconfig", (char *)"--version", NULL };
  struct tu_cmd cmd3 = { .argv = argv3 };
  if (access ("/sbin/ldconfig", X_OK) == 0)
    {
      CHECK_OK (tu_run (&cmd3, &res));
      CHECK_EQ_I64 (res.exit_code, 0);
      struct stat st;
      if (strstr (res.err, "no profile was written"))
        CHECK (access (stat_file, F_OK) != 0, "no empty profile is left behind");
      else /* an ldconfig linked dynamically: then a real profile */
        CHECK (stat (stat_file, &st) == 0 && st.st_size > 0,
               "either no profile, or one with bytes (%s)", res.err);
      tu_result_free (&res);
    }
  free (stat_file);

  /* The command's exit status comes back; the default file lands in
     $XDG_STATE_HOME/emlat. */
  char *xdg = tu_strf ("XDG_STATE_HOME=%s/xdg", dir);
  char *env2[] = { xdg, NULL };
  char *argv2[] = { emlat, (char *)"record", (char *)"--", probe,
                    (char *)"nosuchmode", NULL };
  struct tu_cmd cmd2 = { .argv = argv2, .env_set = env2 };
  CHECK_OK (tu_run (&cmd2, &res));
  CHECK_EQ_I64 (res.exit_code, 2); /* tty_probe's usage error */
  CHECK_CONTAINS (res.out, "/xdg/emlat/emlat-");
  tu_result_free (&res);

  free (xdg);
  free (file);
  free (probe);
  free (emlat);
  TEST_DONE ();
}

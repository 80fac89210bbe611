/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_tty_shell.c -- an interactive shell under `emlat record` runs its
 * commands untraced (docs/TTY.md, "Process rules"): bash builds its
 * children's environments from its own copy of the variables, so the
 * library must scrub them at every exec (tty_exec.c).  For `bash -i` and
 * `sh -i` typing pipelines:
 *   - no line of the library or of emlat appears on the terminal while the
 *     shell runs (the library never writes to the program's terminal);
 *   - exactly one profile exists afterwards (the shell's), and none in the
 *     default state directory;
 *   - a program the shell executes sees none of the library's variables
 *     and no libemlat-tty.so in LD_PRELOAD;
 *   - with --follow-children, the commands the shell executed have a
 *     profile each, NAME-PID.emlat, and record says how many.
 */
#include "profile_view.h"
#include "pty_harness.h"
#include "sanitizer.h"

#include <dirent.h>
#include <sys/stat.h>

/* Profiles (*.emlat) in DIR. */
static int
count_profiles (const char *dir)
{
  DIR *d = opendir (dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir (d)))
    {
      size_t len = strlen (e->d_name);
      if (len > 6 && strcmp (e->d_name + len - 6, ".emlat") == 0)
        n++;
    }
  closedir (d);
  return n;
}

/* Run SHELL (argv after "--") under emlat record into DIR/NAME.emlat,
   type the pipelines, exit; returns the terminal output (heap). */
static char *
run_shell (const char *dir, const char *name, char *const *shell, int follow)
{
  char *emlat = ph_build_abs ("emlat");
  char *file = tu_strf ("%s/%s.emlat", dir, name);
  char *xdg = tu_strf ("XDG_STATE_HOME=%s/state-%s", dir, name);
  char *argv[16];
  int k = 0;
  argv[k++] = emlat;
  argv[k++] = (char *)"record";
  argv[k++] = (char *)"-o";
  argv[k++] = file;
  if (follow)
    argv[k++] = (char *)"--follow-children";
  argv[k++] = (char *)"--";
  /* An instrumented libemlat-tty.so needs the ASan runtime: the shell is
     started through the program interpreter with the runtime preloaded
     (sanitizer.h), so that emlat itself does not see it. */
  char *rt = TU_ASAN ? tu_asan_runtime () : NULL;
  if (TU_ASAN)
    {
      const char *interp = tu_interp ();
      CHECK (rt && interp, "ASan build: the shared ASan runtime and the interpreter are found");
      argv[k++] = (char *)(interp ? interp : "/lib64/ld-linux-x86-64.so.2");
      argv[k++] = (char *)"--preload";
      argv[k++] = rt ? rt : (char *)"";
    }
  for (int i = 0; shell[i]; i++)
    argv[k++] = shell[i];
  argv[k] = NULL;
  char *env[] = { (char *)"TERM=xterm", (char *)"PS1=PROMPT> ", xdg,
                  TU_ASAN ? (char *)TU_ASAN_PRELOAD_OPTIONS : NULL, NULL };
  struct ph_child c;
  char *out = NULL;
  if (ph_spawn (&c, argv, env) == 0)
    {
      ph_expect (&c, "PROMPT> ", 5000);
      /* The third line shows what an executed program's environment
         holds of ours: "0 ours" unless children are followed. */
      static const char *const lines[] = { "echo one | cat\n", "ls / | wc -l\n",
                                           "date +%Y-marker\n",
                                           "echo x$(env | grep -c -e EMLAT_ -e 'lib[e]mlat-tty') ours\n",
                                           "exit\n" };
      const char *wants[] = { "one", "\n", "-marker", follow ? " ours" : "x0 ours", NULL };
      for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        {
          ph_send (&c, lines[i], strlen (lines[i]));
          if (wants[i])
            ph_expect (&c, wants[i], 5000);
          if (i + 1 < sizeof lines / sizeof lines[0])
            ph_expect (&c, "PROMPT> ", 5000);
        }
      CHECK_EQ_I64 (ph_finish (&c, 15000), 0);
      out = strdup (c.out);
    }
  char *state = tu_strf ("%s/state-%s/emlat", dir, name);
  CHECK_EQ_I64 (count_profiles (state), 0);
  free (state);
  free (xdg);
  free (file);
  free (emlat);
  free (rt);
  return out;
}

/* What the terminal showed before emlat record's own summary. */
static void
check_quiet (const char *out, const char *what)
{
  if (!out)
    return;
  const char *end = strstr (out, "emlat: profile: ");
  size_t n = end ? (size_t)(end - out) : strlen (out);
  char *before = strndup (out, n);
  CHECK (!strstr (before, "libemlat") && !strstr (before, "emlat:")
           && !strstr (before, "not recording"),
         "%s: a line from emlat on the terminal: %s", what, before);
  CHECK (end != NULL, "%s: record printed its summary", what);
  free (before);
}

/* Remove the EMLAT_ variables the test itself inherited (the test
   runner's EMLAT_EMACS_BINS, say): the children's environment is counted
   for the library's variables only. */
static void
clear_inherited_emlat_vars (void)
{
  extern char **environ;
  for (int again = 1; again;)
    {
      again = 0;
      for (char **e = environ; e && *e; e++)
        if (strncmp (*e, "EMLAT_", 6) == 0)
          {
            const char *eq = strchr (*e, '=');
            char name[256];
            size_t n = eq ? (size_t)(eq - *e) : strlen (*e);
            if (n >= sizeof name)
              continue;
            memcpy (name, *e, n);
            name[n] = 0;
            unsetenv (name);
            again = 1; /* environ changed under us: start over */
            break;
          }
    }
}

int
main (void)
{
  clear_inherited_emlat_vars ();
  const char *dir = tu_tmpdir ();
  char *bash[] = { (char *)"/bin/bash", (char *)"--norc", (char *)"--noprofile",
                   (char *)"-i", NULL };
  char *sh[] = { (char *)"/bin/sh", (char *)"-i", NULL };

  char *d1 = tu_strf ("%s/bash", dir);
  mkdir (d1, 0700);
  char *out = run_shell (d1, "b", bash, 0);
  check_quiet (out, "bash -i");
  CHECK_EQ_I64 (count_profiles (d1), 1);
  free (out);

  char *d2 = tu_strf ("%s/sh", dir);
  mkdir (d2, 0700);
  out = run_shell (d2, "s", sh, 0);
  check_quiet (out, "sh -i");
  CHECK_EQ_I64 (count_profiles (d2), 1);
  free (out);

  /* --follow-children: cat, ls, wc, date, env and grep ran from exec; each records
     into its own profile (a subshell that runs a builtin forks without
     exec and records nothing: the library turns itself off in a fork
     child). */
  char *d3 = tu_strf ("%s/follow", dir);
  if (TU_ASAN)
    {
      /* The children get the instrumented library without the runtime
         (only the shell was started with it preloaded): the plain build
         checks this part. */
      TEST_DIAG ("ASan build: --follow-children not run");
      free (d1);
      free (d2);
      free (d3);
      TEST_DONE ();
    }
  mkdir (d3, 0700);
  out = run_shell (d3, "f", bash, 1);
  check_quiet (out, "bash -i --follow-children");
  int n = count_profiles (d3);
  TEST_DIAG ("--follow-children: %d profiles", n);
  CHECK (n == 7, "the shell's profile and one for each of cat, ls, wc, date, env, grep (%d)",
         n);
  if (out)
    CHECK_CONTAINS (out, "6 child profiles");
  free (out);

  free (d1);
  free (d2);
  free (d3);
  TEST_DONE ();
}

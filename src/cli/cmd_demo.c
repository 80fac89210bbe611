/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_demo.c -- `emlat demo`: record the bundled synthetic interactive
 * workload (demo_workload.c) through the public producer API, then show
 * what `emlat check`, `emlat dump` and `emlat report` say about the file.
 *
 * Exit codes: 0 recorded (and, when the check verb is built, checked
 * valid); 1 the recording failed, the check did not find the file valid,
 * or a write error; 2 invalid arguments, or an -o FILE that exists or
 * cannot be created.
 *
 * Invariants: an existing file is never overwritten (-o FILE must not
 * exist); without -o the file goes into a new private directory made with
 * mkdtemp under $TMPDIR (or /tmp), and the path is printed first; the
 * session metadata names the workload, never the user, the terminal or the
 * environment.  check and dump run in a child process after the session
 * stopped (the writer thread is gone, so fork is safe), so the demo can
 * shorten the dump and survives a verb that crashes.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "workload/demo_workload.h"
#include "emlat/emlat.h"

#define DEMO_DEFAULT_LINES 30

static const char *const root_kind_names[EMLAT_ROOT_KIND_MAX + 1] = {
  [EMLAT_ROOT_TTY_COMMAND] = "tty command",
  [EMLAT_ROOT_SYNTHETIC_COMMAND] = "synthetic command",
  [EMLAT_ROOT_TIMER] = "timer",
  [EMLAT_ROOT_PROCESS_DATA] = "process data",
  [EMLAT_ROOT_PROCESS_SENTINEL] = "process sentinel",
  [EMLAT_ROOT_FILE_NOTIFICATION] = "file notification",
  [EMLAT_ROOT_RESIZE] = "resize",
  [EMLAT_ROOT_THREAD_WAKEUP] = "thread wakeup",
  [EMLAT_ROOT_MAINTENANCE] = "maintenance",
  [EMLAT_ROOT_UNATTRIBUTED_OUTPUT] = "unattributed output",
};

static const char *const status_names[EMLAT_STATUS_MAX + 1] = {
  [EMLAT_STATUS_NORMAL] = "normal",
  [EMLAT_STATUS_QUIT] = "quit",
  [EMLAT_STATUS_ERROR] = "error",
  [EMLAT_STATUS_THROW] = "throw",
  [EMLAT_STATUS_SUPERSEDED] = "superseded",
  [EMLAT_STATUS_DROPPED] = "dropped",
  [EMLAT_STATUS_OPEN] = "open",
};

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: emlat demo [-o FILE] [-n LINES] [--seed N]\n"
           "\n"
           "Record a simulated terminal editor session of about 3 seconds\n"
           "(typing, cursor keys, slow and failing commands, typeahead, a\n"
           "two-key sequence, a resize, timers and subprocess output on a\n"
           "second thread) through libemlat, then show what 'emlat check',\n"
           "'emlat dump' and 'emlat report' say about the file.\n"
           "\n"
           "  -o FILE     write the profile to FILE, which must not exist\n"
           "              (default: FILE in a new directory under $TMPDIR)\n"
           "  -n LINES    show at most LINES lines of the dump (default %d,\n"
           "              0 shows all)\n"
           "  --seed N    another session structure (default %" PRIu64 ")\n"
           "  -h, --help  this text;  -V, --version  the version\n"
           "\n"
           "Exit codes: 0 recorded and checked; 1 the recording failed, the\n"
           "file did not check valid, or a write error; 2 invalid arguments,\n"
           "or a FILE that exists or cannot be created.\n",
           DEMO_DEFAULT_LINES, (uint64_t)DEMO_DEFAULT_SEED);
}

/* Run verb NAME on PATH in a child process.  Shows at most MAX_LINES lines
   of its standard output (0: all) and how many were left out.  Returns the
   verb's exit code, or -1 when it could not be run. */
static int
run_verb (const char *name, const char *path, unsigned long max_lines)
{
  int fds[2];
  if (pipe (fds) != 0)
    return -1;
  fflush (NULL);
  pid_t pid = fork ();
  if (pid < 0)
    {
      close (fds[0]);
      close (fds[1]);
      return -1;
    }
  if (pid == 0)
    {
      close (fds[0]);
      if (dup2 (fds[1], STDOUT_FILENO) < 0)
        _exit (127);
      close (fds[1]);
      char *argv[] = { (char *)name, (char *)path, NULL };
      int rc = emlat_verb_run (name, 2, argv);
      fflush (NULL);
      _exit (rc);
    }
  close (fds[1]);
  FILE *in = fdopen (fds[0], "r");
  unsigned long lines = 0;
  if (in)
    {
      char *line = NULL;
      size_t cap = 0;
      while (getline (&line, &cap, in) >= 0)
        if (max_lines == 0 || ++lines <= max_lines)
          fputs (line, stdout);
      free (line);
      fclose (in);
    }
  else
    close (fds[0]);
  int status;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (max_lines && lines > max_lines)
    printf ("... %lu more lines (emlat %s %s)\n", lines - max_lines, name,
            path);
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  printf ("emlat %s was killed by signal %d\n", name,
          WIFSIGNALED (status) ? WTERMSIG (status) : 0);
  return -1;
}

static void
print_tally (const struct demo_tally *t, uint64_t wall_ns)
{
  printf ("recorded %" PRIu64 " interactions in %.1f s:", t->interactions,
          (double)wall_ns / 1e9);
  const char *sep = " ";
  for (int k = 1; k <= EMLAT_ROOT_KIND_MAX; k++)
    if (t->by_kind[k])
      {
        printf ("%s%" PRIu64 " %s", sep, t->by_kind[k], root_kind_names[k]);
        sep = ", ";
      }
  printf ("\n  statuses:");
  sep = " ";
  for (int s = 1; s <= EMLAT_STATUS_MAX; s++)
    if (t->by_status[s])
      {
        printf ("%s%" PRIu64 " %s", sep, t->by_status[s], status_names[s]);
        sep = ", ";
      }
  printf ("\n  %" PRIu64 " spans (%" PRIu64 " left to be unwound), %" PRIu64
          " input batches of %" PRIu64 " bytes, %" PRIu64
          " flushed to the terminal, %" PRIu64 " threads\n",
          t->spans, t->spans_unwound, t->input_batches, t->input_bytes,
          t->flushed, t->threads);
}

static void
print_status (const struct emlat_status *st)
{
  printf ("libemlat: %" PRIu64 " records written, %" PRIu64 " dropped, %" PRIu64
          " bytes in %" PRIu64 " chunks",
          st->records_written, st->records_dropped, st->bytes_written,
          st->chunks_written);
  if (st->records_written)
    printf (" (%.1f bytes/record)",
            (double)st->bytes_written / (double)st->records_written);
  printf ("\n  ring high-water %" PRIu64 " of %" PRIu64 " slots, writer CPU %.2f"
          " ms, clock read %" PRIu64 " ns\n",
          st->ring_high_water, st->ring_slots,
          (double)st->writer_cpu_ns / 1e6, st->clock_read_ns);
}

struct demo_opts
{
  const char *out; /* -o FILE, or NULL */
  uint64_t seed, lines;
};

/* Fills O from ARGV.  Returns -1 to go on, or the exit code. */
static int
parse_options (int argc, char **argv, struct demo_opts *o)
{
  static const struct option longopts[] = {
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { "seed", required_argument, NULL, 's' },
    { NULL, 0, NULL, 0 },
  };
  int c;
  while ((c = getopt_long (argc, argv, ":o:n:hV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'o':
        o->out = optarg;
        break;
      case 'n':
        if (emlat_cli_opt_u64 ("demo", "-n", optarg, 0, ULONG_MAX, &o->lines) != 0)
          return EMLAT_EXIT_USAGE;
        break;
      case 's':
        if (emlat_cli_opt_u64 ("demo", "--seed", optarg, 0, UINT64_MAX, &o->seed) != 0)
          return EMLAT_EXIT_USAGE;
        break;
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("demo");
        return EMLAT_EXIT_OK;
      default:
        return emlat_cli_bad_option ("demo", c, argv, longopts);
      }
  if (optind != argc)
    return emlat_cli_usage_error ("demo", "unexpected argument '%s'", argv[optind]);
  return -1;
}

/* The profile's path: OUT, or demo.emlat in a new private directory under
   $TMPDIR.  NULL after saying why. */
static char *
profile_path (const char *out)
{
  char *path = NULL;
  if (out)
    path = strdup (out);
  else
    {
      const char *tmp = getenv ("TMPDIR");
      char *dir = NULL;
      if (asprintf (&dir, "%s/emlat-demo-XXXXXX", tmp && *tmp ? tmp : "/tmp")
          < 0)
        dir = NULL;
      if (!dir || !mkdtemp (dir))
        {
          emlat_cli_error (dir, UINT64_MAX, "cannot make a directory: %s",
                           strerror (errno));
          free (dir);
          return NULL;
        }
      if (asprintf (&path, "%s/demo.emlat", dir) < 0)
        path = NULL;
      free (dir);
    }
  if (!path)
    emlat_cli_error (NULL, UINT64_MAX, "out of memory");
  return path;
}

/* An error of emlat_start that says the path given cannot be used. */
static int
path_unusable (int e)
{
  return e == EEXIST || e == ENOENT || e == ENOTDIR || e == EACCES || e == EPERM
         || e == EISDIR || e == EROFS || e == ELOOP || e == ENAMETOOLONG;
}

/* Record the synthetic session into PATH (given with -o when NAMED) and
   print what was recorded.  Returns -1 when recorded, else the exit
   code. */
static int
record_session (const char *path, int named, uint64_t seed)
{
  static const char program[] = "emlat demo";
  static const char workload[] = "synthetic-editor-1";
  const struct emlat_meta meta[] = {
    { .key = "program.name", .type = EMLAT_META_STR, .s = program,
      .s_len = sizeof program - 1 },
    { .key = "program.version", .type = EMLAT_META_STR,
      .s = EMLAT_VERSION_STRING, .s_len = strlen (EMLAT_VERSION_STRING) },
    { .key = "demo.workload", .type = EMLAT_META_STR, .s = workload,
      .s_len = sizeof workload - 1 },
    { .key = "demo.seed", .type = EMLAT_META_UINT, .u = seed },
    { .key = "terminal.rows", .type = EMLAT_META_UINT, .u = 24 },
    { .key = "terminal.cols", .type = EMLAT_META_UINT, .u = 80 },
  };
  struct emlat_options opt = { .path = path,
                               .meta = meta,
                               .n_meta = sizeof meta / sizeof meta[0] };
  int rc = emlat_start (&opt);
  if (rc != 0)
    {
      emlat_cli_error (path, UINT64_MAX, "cannot record: %s", strerror (-rc));
      return named && path_unusable (-rc) ? EMLAT_EXIT_USAGE : EMLAT_EXIT_FAIL;
    }
  printf ("emlat demo: recording a simulated terminal editor session to\n"
          "  %s\n",
          path);
  fflush (stdout);

  struct demo_tally tally;
  uint64_t t0 = emlat_now ();
  int wrc = demo_workload_run (seed, &tally);
  uint64_t wall = emlat_now () - t0;
  int src = emlat_stop ();
  struct emlat_status st;
  emlat_status (&st);
  if (wrc != 0)
    {
      emlat_cli_error (path, UINT64_MAX, "the workload could not run: %s",
                       strerror (-wrc));
      return EMLAT_EXIT_FAIL;
    }
  print_tally (&tally, wall);
  print_status (&st);
  if (src != 0)
    {
      emlat_cli_error (path, UINT64_MAX, "recording failed: %s",
                       strerror (-src));
      return EMLAT_EXIT_FAIL;
    }
  return -1;
}

/* What check, dump (its first LINES lines) and report say about PATH.
   Returns the exit code: 1 when one of them failed. */
static int
show_verbs (const char *path, unsigned long lines)
{
  int result = EMLAT_EXIT_OK;
  static const char *const verbs[] = { "check", "dump", "report" };
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
    {
      printf ("\n$ emlat %s %s\n", verbs[i], path);
      if (!emlat_verb_find (verbs[i]))
        {
          printf ("(emlat %s is not part of this build yet)\n", verbs[i]);
          continue;
        }
      int vrc = run_verb (verbs[i], path,
                          strcmp (verbs[i], "dump") == 0 ? lines : 0);
      if (vrc != 0)
        {
          printf ("(emlat %s exited with %d)\n", verbs[i], vrc);
          result = EMLAT_EXIT_FAIL;
        }
    }
  return result;
}

static int
demo_main (int argc, char **argv)
{
  struct demo_opts o = { .seed = DEMO_DEFAULT_SEED, .lines = DEMO_DEFAULT_LINES };
  int rc = parse_options (argc, argv, &o);
  if (rc >= 0)
    return rc;
  char *path = profile_path (o.out);
  if (!path)
    return EMLAT_EXIT_FAIL;
  rc = record_session (path, o.out != NULL, o.seed);
  if (rc < 0)
    {
      rc = show_verbs (path, (unsigned long)o.lines);
      printf ("\nThe profile is %s\n", path);
    }
  free (path);
  return rc;
}

EMLAT_VERB (demo_verb, "demo",
            "record a synthetic editor session and show check and dump",
            demo_main)

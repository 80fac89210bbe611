/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_record.c -- `emlat record [-o FILE] -- CMD [ARGS...]`: run CMD on the
 * user's terminal with libemlat-tty.so preloaded and tracing on, then say
 * where the profile is and summarise its latencies in five lines.
 *
 * The library is found next to the emlat binary, then in ../lib relative to
 * it (an installed layout), unless EMLAT_TTY_LIB names it (tty_lib.c).  The profile is
 * FILE, or a new emlat-YYYYmmdd-HHMMSS-PID[-N].emlat in
 * ${XDG_STATE_HOME:-~/.local/state}/emlat/ (created with mode 0700).  An
 * existing file is never overwritten (-o with an existing FILE is a usage
 * error; the library itself opens with O_EXCL).
 *
 * CMD runs in emlat's process group, in the foreground, as `time` runs it:
 * emlat ignores SIGINT and SIGQUIT while CMD runs so that ^C reaches CMD
 * alone.  Exit status: CMD's; 128 + N when CMD died of signal N; 127 when
 * CMD could not be run; 2 for usage errors (the command must follow "--";
 * options parsed as every verb's, cli.h); 1 when CMD succeeded but the
 * summary could not be written.
 */
#include "cli/cli.h"
#include "emlat/emlat_reader.h"
#include "common/machine.h"
#include "common/statedir.h"
#include "record/drain.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void
record_usage (FILE *f)
{
  fprintf (f,
           "usage: emlat record [-o FILE] [--follow-children] -- CMD [ARGS...]\n"
           "\n"
           "Run CMD on this terminal with the interposition library\n"
           "(libemlat-tty.so) preloaded, record its terminal input and\n"
           "output latencies, and print a summary when it exits.  CMD and its\n"
           "arguments follow '--', which is required; nothing after it is an\n"
           "option of emlat.\n"
           "\n"
           "  -o FILE     write the profile to FILE (must not exist); default:\n"
           "              a new file in ${XDG_STATE_HOME:-~/.local/state}/emlat/\n"
           "  --follow-children\n"
           "              trace the programs CMD executes too, each into a\n"
           "              profile of its own named after FILE: NAME-PID.emlat\n"
           "              (by default they run untraced)\n"
           "  -h, --help  this text;  -V, --version  the version\n"
           "\n"
           "Environment passed to CMD: EMLAT_TRACE=1, EMLAT_FILE,\n"
           "EMLAT_FINISH=drain:PID, EMLAT_MACHINE (this machine's clock\n"
           "source, CPU count and model, read once here), LD_PRELOAD\n"
           "(EMLAT_TRACE_CHILDREN=1 with --follow-children).  Set\n"
           "EMLAT_OBSERVER=1 for the readiness\n"
           "observer thread and EMLAT_LOG=FILE to have the library's own\n"
           "messages written there (it never writes to the terminal).\n"
           "Exit status: CMD's (128+N if it died of signal N), 127 if CMD\n"
           "could not be run, 2 for invalid arguments, 1 if CMD succeeded\n"
           "but the summary could not be written or if how CMD ended cannot\n"
           "be known (SIGCHLD ignored by the caller).\n");
}

/* A new default profile path, created empty (emlat_cli_reserve_profile).
   0 or -errno. */
static int
record_default_path (char *out, size_t n)
{
  char dir[PATH_MAX];
  int rc = emlat_state_dir (dir, sizeof dir);
  if (rc == 0)
    rc = emlat_mkdir_p (dir);
  if (rc != 0)
    return rc;
  time_t now = time (NULL);
  struct tm tm;
  localtime_r (&now, &tm);
  char stamp[32];
  strftime (stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  for (int k = 0; k < 1000; k++)
    {
      int w = k ? snprintf (out, n, "%s/emlat-%s-%ld-%d.emlat", dir, stamp,
                            (long)getpid (), k)
                : snprintf (out, n, "%s/emlat-%s-%ld.emlat", dir, stamp,
                            (long)getpid ());
      if (w < 0 || (size_t)w >= n)
        return -ENAMETOOLONG;
      rc = emlat_cli_reserve_profile (out);
      if (rc != -EEXIST)
        return rc;
    }
  return -EEXIST;
}

static int
record_cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* "median 1.23 ms  p90 ...  p99 ...  max ..." of V[0..N), sorted here. */
static void
record_dist (const char *label, uint64_t *v, size_t n)
{
  if (n == 0)
    {
      printf ("  %-22s no samples\n", label);
      return;
    }
  qsort (v, n, sizeof *v, record_cmp_u64);
  double q[4] = { 0.5, 0.9, 0.99, 1.0 };
  double ms[4];
  for (int i = 0; i < 4; i++)
    {
      size_t k = (size_t)(q[i] * (double)(n - 1) + 0.5);
      ms[i] = (double)v[k] / 1e6;
    }
  printf ("  %-22s median %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms"
          "  (n=%zu)\n",
          label, ms[0], ms[1], ms[2], ms[3], n);
}

/* A growing array of durations (8 bytes per sample: the exact
   percentiles of the summary). */
struct record_samples
{
  uint64_t *v;
  size_t n, cap;
};

static int
record_push (struct record_samples *s, uint64_t d)
{
  if (s->n == s->cap)
    {
      size_t cap = s->cap ? 2 * s->cap : 1024;
      uint64_t *v = realloc (s->v, cap * sizeof *v);
      if (!v)
        return -1;
      s->v = v;
      s->cap = cap;
    }
  s->v[s->n++] = d;
  return 0;
}

/* What the summary gathers from each interaction, one at a time. */
struct record_tally
{
  struct record_samples lo, hi, emit;
  size_t cmds, silent, unattr;
  int nomem;
};

static int
record_tally_ix (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  struct record_tally *t = ctx;
  uint64_t d;
  if (ix->root_kind == EMLAT_ROOT_UNATTRIBUTED_OUTPUT)
    t->unattr++;
  if (ix->root_kind != EMLAT_ROOT_TTY_COMMAND)
    return 0;
  t->cmds++;
  if (emlat_profile_ix_duration (p, ix, EMLAT_T_INPUT_LATEST, EMLAT_T_FLUSH_END, &d))
    t->nomem |= record_push (&t->lo, d);
  else
    t->silent++;
  if (emlat_profile_ix_duration (p, ix, EMLAT_T_INPUT_EARLIEST, EMLAT_T_FLUSH_END, &d))
    t->nomem |= record_push (&t->hi, d);
  if (emlat_profile_ix_duration (p, ix, EMLAT_T_OUTPUT_BEGIN, EMLAT_T_FLUSH_END, &d))
    t->nomem |= record_push (&t->emit, d);
  return t->nomem ? -ENOMEM : 0;
}

/* The five-line summary of PATH, read in one streaming pass (reader API):
   memory grows by 24 bytes per terminal command, not with the profile. */
static void
record_summary (const char *path)
{
  struct emlat_profile *p = NULL;
  struct emlat_input in = { .path = path, .fd = -1, .name = NULL };
  struct record_tally t;
  memset (&t, 0, sizeof t);
  int rc = emlat_profile_load_each (&in, 1, NULL, 0, record_tally_ix, &t, &p);
  if (rc != 0 || !p)
    {
      emlat_cli_error (path, UINT64_MAX, rc == -ENOMEM && t.nomem ? "out of memory"
                                                               : "cannot read the profile");
      goto out;
    }
  const struct emlat_profile_totals *tot = emlat_profile_totals (p);
  printf ("  %-22s %zu (%zu with terminal output, %zu without)\n",
          "terminal commands", t.cmds, t.cmds - t.silent, t.silent);
  record_dist ("input to flush (min)", t.lo.v, t.lo.n);
  record_dist ("input to flush (max)", t.hi.v, t.hi.n);
  record_dist ("tty emit", t.emit.v, t.emit.n);
  printf ("  %-22s %zu interactions; %llu records lost; %s\n",
          "unattributed output", t.unattr, (unsigned long long)tot->lost_records,
          tot->clean_stop ? "stopped cleanly" : "not stopped cleanly");
out:
  free (t.lo.v);
  free (t.hi.v);
  free (t.emit.v);
  emlat_profile_free (p);
}

/* --follow-children: the children's profiles, NAME-PID.emlat beside
   NAME.emlat (tty_session.c); each finished from its ring file if it was
   killed, and counted. */
static void
record_children (const char *path)
{
  size_t len = strlen (path);
  if (len > 6 && strcmp (path + len - 6, ".emlat") == 0)
    len -= 6;
  char pattern[PATH_MAX + 16];
  if ((size_t)snprintf (pattern, sizeof pattern, "%.*s-[0-9]*.emlat", (int)len, path)
      >= sizeof pattern)
    return;
  glob_t g;
  size_t n = 0;
  if (glob (pattern, 0, NULL, &g) == 0)
    {
      n = g.gl_pathc;
      for (size_t k = 0; k < g.gl_pathc; k++)
        emlat_recover (g.gl_pathv[k], NULL);
      globfree (&g);
    }
  printf ("emlat: %zu child profile%s: %s\n", n, n == 1 ? "" : "s", pattern);
}

static int
record_run (int argc, char **argv)
{
  enum { O_FOLLOW = 256 };
  static const struct option longopts[] = {
    { "follow-children", no_argument, NULL, O_FOLLOW },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };
  const char *out_file = NULL;
  int follow = 0;
  int c;
  /* "-": an operand before "--" comes back as 1 instead of being
     permuted, so the command is only ever what follows "--". */
  while ((c = getopt_long (argc, argv, "-:o:hV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'o':
        out_file = optarg;
        break;
      case O_FOLLOW:
        follow = 1;
        break;
      case 'h':
        record_usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("record");
        return EMLAT_EXIT_OK;
      case 1:
        return emlat_cli_usage_error ("record", "the command goes after '--': emlat record "
                                      "[-o FILE] -- %s ...", optarg);
      default:
        return emlat_cli_bad_option ("record", c, argv, longopts);
      }
  int i = optind;
  if (i >= argc)
    return emlat_cli_usage_error ("record", "no command given");
  char lib[PATH_MAX];
  if (emlat_cli_find_tty_lib (lib, sizeof lib) != 0)
    {
      emlat_cli_error (getenv ("EMLAT_TTY_LIB"), UINT64_MAX, "%s", emlat_cli_tty_lib_missing ());
      return EMLAT_EXIT_USAGE;
    }
  char path[PATH_MAX];
  if (out_file)
    {
      if (strlen (out_file) >= sizeof path)
        {
          emlat_cli_error (out_file, UINT64_MAX, "name too long");
          return EMLAT_EXIT_USAGE;
        }
      strcpy (path, out_file);
      /* Created here, empty: CMD's recorder writes into it and pays no
         file creation (EMLAT_OPT_ADOPT_EMPTY). */
      int rc = emlat_cli_reserve_profile (path);
      if (rc == -EEXIST)
        {
          emlat_cli_error (out_file, UINT64_MAX,
                           "exists; emlat record never overwrites");
          return EMLAT_EXIT_USAGE;
        }
      if (rc != 0)
        {
          emlat_cli_error (out_file, UINT64_MAX, "cannot create: %s", strerror (-rc));
          return EMLAT_EXIT_USAGE;
        }
    }
  else
    {
      int rc = record_default_path (path, sizeof path);
      if (rc != 0)
        {
          emlat_cli_error (NULL, UINT64_MAX,
                           "no profile directory: %s", strerror (-rc));
          return EMLAT_EXIT_FAIL;
        }
    }

  fflush (NULL);
  struct sigaction ign, old_int, old_quit;
  memset (&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigaction (SIGINT, &ign, &old_int);
  sigaction (SIGQUIT, &ign, &old_quit);
  pid_t self = getpid ();
  /* The machine's facts, read once here and handed down, so that CMD's
     recorder does not read them at its start (src/common/machine.h). */
  struct emlat_machine machine;
  emlat_machine_read (&machine);
  char machine_env[EMLAT_MACHINE_VALUE_MAX];
  int have_machine = emlat_machine_format (&machine, machine_env, sizeof machine_env) >= 0;
  pid_t pid = fork ();
  if (pid < 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "cannot fork: %s", strerror (errno));
      unlink (path);
      return EMLAT_EXIT_FAIL;
    }
  if (pid == 0)
    {
      sigaction (SIGINT, &old_int, NULL);
      sigaction (SIGQUIT, &old_quit, NULL);
      const char *pre = getenv ("LD_PRELOAD");
      char *val = NULL;
      if (pre && *pre)
        {
          size_t len = strlen (lib) + strlen (pre) + 2;
          val = malloc (len);
          if (val)
            snprintf (val, len, "%s:%s", lib, pre);
        }
      setenv ("LD_PRELOAD", val ? val : lib, 1);
      setenv ("EMLAT_TRACE", "1", 1);
      setenv ("EMLAT_FILE", path, 1);
      /* We drain CMD's rings while it runs, and finish the profile
         ourselves once CMD, our child, exited. */
      char finish[32];
      snprintf (finish, sizeof finish, "drain:%ld", (long)self);
      setenv ("EMLAT_FINISH", finish, 1);
      if (have_machine)
        setenv ("EMLAT_MACHINE", machine_env, 1);
      else
        unsetenv ("EMLAT_MACHINE");
      if (follow)
        setenv ("EMLAT_TRACE_CHILDREN", "1", 1);
      else
        unsetenv ("EMLAT_TRACE_CHILDREN");
      execvp (argv[i], argv + i);
      emlat_cli_error (argv[i], UINT64_MAX, "cannot run: %s", strerror (errno));
      _exit (127);
    }
  /* CMD's rings are drained here while it runs (src/record/drain.h):
     CMD runs no writer thread.  Started after the fork: the child of a
     process with threads may only exec. */
  struct emlat_drainer *drainer = NULL;
  int drc = emlat_drainer_start (path, pid, &drainer);
  if (drc != 0)
    /* CMD's rings then keep what they can hold until it exits; the rest
       is counted as lost (LOSS ring_full). */
    emlat_cli_error (path, UINT64_MAX,
                     "cannot drain the program's rings while it runs (%s): what they "
                     "cannot hold will be counted as lost",
                     strerror (-drc));
  /* The drainer stops when CMD has exited but before it is reaped, so
     that its last resource sample still finds CMD in /proc. */
  siginfo_t si;
  while (waitid (P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
    ;
  emlat_drainer_stop (drainer, NULL);
  int st = 0;
  pid_t reaped;
  while ((reaped = waitpid (pid, &st, 0)) < 0 && errno == EINTR)
    ;
  sigaction (SIGINT, &old_int, NULL);
  sigaction (SIGQUIT, &old_quit, NULL);
  int code = reaped != pid      ? EMLAT_EXIT_FAIL
             : WIFEXITED (st)   ? WEXITSTATUS (st)
             : WIFSIGNALED (st) ? 128 + WTERMSIG (st)
                                : EMLAT_EXIT_FAIL;
  if (reaped != pid)
    /* SIGCHLD ignored by whoever started us: the kernel reaped CMD. */
    emlat_cli_error (argv[i], UINT64_MAX, "cannot learn how the command ended: %s",
                     strerror (errno));
  /* Any other profile CMD itself recorded (a profiled Emacs, a program
     started by emlat_start_from_env) was left to us too (EMLAT_FINISH):
     found by CMD's process id.  Its STATS say how CMD ended, when we
     reaped it (not when SIGCHLD was ignored and the kernel did). */
  int how = reaped == pid ? st : -1;
  emlat_recover_process_exited (pid, how, NULL);

  if (!emlat_cli_profile_written (path))
    {
      /* 127: CMD could not be run, and the child said so. */
      if (code != 127)
        emlat_cli_error (argv[i], UINT64_MAX,
                         "no profile was written (is it dynamically linked?)");
      return code;
    }
  /* The library leaves its last records in the ring file (it stops with
     EMLAT_OPT_DEFER_FINISH, and a killed CMD never stops): write them into
     the profile now, in this process, not in CMD's. */
  struct emlat_recovery rec;
  int rrc = emlat_recover_exited (path, how, &rec);
  if (rrc != 0 && rrc != -EBUSY)
    emlat_cli_error (path, UINT64_MAX, "cannot finish the profile from its ring file: %s",
                     strerror (-rrc));
  printf ("emlat: profile: %s\n", path);
  record_summary (path);
  if (follow)
    record_children (path);
  fflush (stdout);
  return code;
}

EMLAT_VERB (record_verb, "record",
            "run a terminal program with the interposition library, summarise",
            record_run)

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_replay.c -- `emlat replay`: run a command in a pseudo-terminal, send it
 * a timed workload, measure each keystroke's time to first output and to
 * quiescence from the master side, write those observations into an .emlat
 * profile and print a summary.  docs/REPLAY.md is the user documentation.
 *
 * Exit codes: 0 the workload ran to its end (whatever CMD's own status);
 * 1 it did not (CMD ended early, --timeout, a wait timed out, interrupted,
 * a terminal error), the profile could not be written completely, or a
 * write error on an output; 2 invalid arguments, a script error, an
 * unusable output path, or a CMD that cannot be started.
 *
 * Options are parsed as every verb's (cli.h); CMD follows "--", which is
 * required, so that nothing of CMD's arguments is taken for an option.
 *
 * Privacy: the profile's SESSION metadata holds the driver's settings, the
 * workload name, the window size and TERM; never the typed text, a script's
 * name or contents, CMD, its arguments or any path.
 */
#include "cli/cli.h"
#include "common/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay/replay_measure.h"
#include "replay/replay_pty.h"
#include "replay/replay_run.h"
#include "replay/replay_script.h"
#include "replay/replay_term.h"
#include "replay/replay_workload.h"
#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "record/drain.h"

extern char **environ;

#define MS (1000000ull)
#define SEC (1000000000ull)

struct opts
{
  const char *workload, *script, *out, *term, *tsv, *make_file;
  unsigned rows, cols, wpm, keys;
  uint64_t lines;
  int interpose, print_script;
  struct replay_config cfg;
};

static void usage (FILE *f)
{
  fprintf (f,
    "usage: emlat replay [--workload NAME | --script FILE] [OPTIONS] -- CMD [ARGS...]\n"
    "       emlat replay --make-file PATH [--lines N]\n"
    "       emlat replay --workload NAME --print-script\n"
    "\n"
    "Run CMD in a pseudo-terminal, type a workload into it with exact timing,\n"
    "and measure from outside each keystroke's time to first output and to\n"
    "output quiescence.  The observations go into an .emlat profile.  CMD\n"
    "follows '--', which is required.\n"
    "\n"
    "workload:\n"
    "  --workload NAME   typing (default), paging, editing or resize\n"
    "  --script FILE     a script (format in docs/REPLAY.md)\n"
    "  --keys N          keystrokes of a built-in workload (resizes for resize)\n"
    "  --wpm N           typing speed, words (5 characters) per minute; 60\n"
    "  --print-script    print the built-in workload as a script and exit\n"
    "terminal:\n"
    "  --rows R --cols C window size; 24x80\n"
    "  --term TERM       TERM for CMD; xterm-256color\n"
    "  --interpose       preload libemlat-tty.so into CMD (its profile goes\n"
    "                    to FILE with .emlat replaced by .tty.emlat)\n"
    "timing (a number is milliseconds unless it has a unit: 2s, 500ms):\n"
    "  --quiet T         output gap that defines quiescence; 50ms\n"
    "  --settle T        start-up is over after this much quiet; 300ms\n"
    "  --settle-max T    ... or after this long anyway; 10s\n"
    "  --linger T        after the workload, let CMD exit by itself; 500ms\n"
    "  --grace T         between hangup, SIGTERM and SIGKILL; 2s\n"
    "  --timeout SECS    whole run, then SIGTERM and SIGKILL; 600\n"
    "output:\n"
    "  -o FILE           profile (never overwritten); default a new file in\n"
    "                    $XDG_STATE_HOME/emlat (~/.local/state/emlat)\n"
    "  --tsv FILE        one line per measured send (timings only)\n"
    "other:\n"
    "  --make-file PATH  write a text file of --lines N lines (100000) and exit\n"
    "  -h, --help        this text;  -V, --version  the version\n"
    "\n"
    "Exit codes: 0 the workload ran to its end; 1 it did not (CMD ended\n"
    "early, timeout, a wait timed out, interrupted) or the profile, --tsv\n"
    "file or standard output had a write error; 2 invalid arguments, a\n"
    "script error, an existing -o FILE, or CMD cannot start.\n");
}

/* A time argument: a number in DEFAULT_UNIT ("ms" or "s"), or a duration
   with its unit. */
static int parse_time (const char *arg, const char *default_unit, uint64_t *ns)
{
  char buf[64];
  size_t n = strlen (arg);
  if (n == 0 || n > 40)
    return -1;
  if (arg[n - 1] >= '0' && arg[n - 1] <= '9')
    {
      snprintf (buf, sizeof buf, "%s%s", arg, default_unit);
      return replay_parse_duration (buf, strlen (buf), ns);
    }
  return replay_parse_duration (arg, n, ns);
}

static int valid_term (const char *t)
{
  size_t n = strlen (t);
  if (n == 0 || n > 64)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z')
          || (t[i] >= '0' && t[i] <= '9') || strchr ("._+-", t[i])))
      return 0;
  return 1;
}

/* Option OPT's duration ARG (parse_time) into *NS, above 0 when NONZERO;
   on failure says so naming OPT and returns -1. */
static int opt_time (const char *opt, const char *arg, const char *default_unit,
                     int nonzero, uint64_t *ns)
{
  if (parse_time (arg, default_unit, ns) == 0 && (!nonzero || *ns))
    return 0;
  emlat_cli_usage_error ("replay", "option '%s' wants a duration%s (a number of %s, or "
                         "with a unit: 2s, 500ms), not '%s'",
                         opt, nonzero ? " above 0" : "",
                         strcmp (default_unit, "s") == 0 ? "seconds" : "milliseconds", arg);
  return -1;
}

/* Option OPT's whole number ARG, 1..MAX, into *OUT; -1 after saying why. */
static int opt_count (const char *opt, const char *arg, uint64_t max, unsigned *out)
{
  uint64_t v;
  if (emlat_cli_opt_u64 ("replay", opt, arg, 1, max, &v) != 0)
    return -1;
  *out = (unsigned)v;
  return 0;
}

enum {
  O_WORKLOAD = 256, O_SCRIPT, O_ROWS, O_COLS, O_INTERPOSE, O_TERM, O_TIMEOUT,
  O_QUIET, O_SETTLE, O_SETTLE_MAX, O_LINGER, O_GRACE, O_WPM, O_KEYS, O_TSV,
  O_MAKE_FILE, O_LINES, O_PRINT
};

/* One option C with value A into O.  0, or -1 after saying why. */
static int set_option (struct opts *o, int c, const char *a)
{
  struct replay_config *cfg = &o->cfg;
  switch (c)
    {
    case O_WORKLOAD: o->workload = a; return 0;
    case O_SCRIPT: o->script = a; return 0;
    case O_ROWS: return opt_count ("--rows", a, 9999, &o->rows);
    case O_COLS: return opt_count ("--cols", a, 9999, &o->cols);
    case O_INTERPOSE: o->interpose = 1; return 0;
    case O_TERM:
      o->term = a;
      if (valid_term (a))
        return 0;
      emlat_cli_usage_error ("replay", "option '--term' wants a terminal type (letters, digits "
                             "and ._+-), not '%s'", a);
      return -1;
    case O_TIMEOUT: return opt_time ("--timeout", a, "s", 1, &cfg->timeout_ns);
    case O_QUIET: return opt_time ("--quiet", a, "ms", 1, &cfg->quiet_ns);
    case O_SETTLE: return opt_time ("--settle", a, "ms", 0, &cfg->settle_ns);
    case O_SETTLE_MAX: return opt_time ("--settle-max", a, "ms", 0, &cfg->settle_max_ns);
    case O_LINGER: return opt_time ("--linger", a, "ms", 0, &cfg->linger_ns);
    case O_GRACE: return opt_time ("--grace", a, "ms", 0, &cfg->grace_ns);
    case O_WPM: return opt_count ("--wpm", a, REPLAY_MAX_WPM, &o->wpm);
    case O_KEYS: return opt_count ("--keys", a, 1000000, &o->keys);
    case O_TSV: o->tsv = a; return 0;
    case O_MAKE_FILE: o->make_file = a; return 0;
    case O_LINES: return emlat_cli_opt_u64 ("replay", "--lines", a, 1, 100000000, &o->lines);
    case O_PRINT: o->print_script = 1; return 0;
    case 'o': o->out = a; return 0;
    }
  return -1;
}

/* Fills O from ARGV; *CMD_AT is where CMD begins (argc when there is
   none).  Returns -1 to go on, or the exit code. */
static int parse_args (int argc, char **argv, struct opts *o, int *cmd_at)
{
  static const struct option longopts[] = {
    { "workload", required_argument, 0, O_WORKLOAD },
    { "script", required_argument, 0, O_SCRIPT },
    { "rows", required_argument, 0, O_ROWS },
    { "cols", required_argument, 0, O_COLS },
    { "interpose", no_argument, 0, O_INTERPOSE },
    { "term", required_argument, 0, O_TERM },
    { "timeout", required_argument, 0, O_TIMEOUT },
    { "quiet", required_argument, 0, O_QUIET },
    { "settle", required_argument, 0, O_SETTLE },
    { "settle-max", required_argument, 0, O_SETTLE_MAX },
    { "linger", required_argument, 0, O_LINGER },
    { "grace", required_argument, 0, O_GRACE },
    { "wpm", required_argument, 0, O_WPM },
    { "keys", required_argument, 0, O_KEYS },
    { "tsv", required_argument, 0, O_TSV },
    { "make-file", required_argument, 0, O_MAKE_FILE },
    { "lines", required_argument, 0, O_LINES },
    { "print-script", no_argument, 0, O_PRINT },
    { "help", no_argument, 0, 'h' },
    { "version", no_argument, 0, 'V' },
    { 0, 0, 0, 0 }
  };
  int c;
  /* "-": an operand before "--" comes back as 1 instead of being
     permuted, so CMD is only ever what follows "--". */
  while ((c = getopt_long (argc, argv, "-:o:hV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("replay");
        return EMLAT_EXIT_OK;
      case 1:
        return emlat_cli_usage_error ("replay", "the command goes after '--': emlat replay "
                                      "[OPTIONS] -- %s ...", optarg);
      case ':':
      case '?':
        return emlat_cli_bad_option ("replay", c, argv, longopts);
      default:
        if (set_option (o, c, optarg) != 0)
          return EMLAT_EXIT_USAGE;
      }
  *cmd_at = optind;
  o->cfg.rows = o->rows;
  o->cfg.cols = o->cols;
  o->cfg.drain_max_ns = 5 * SEC > o->cfg.quiet_ns * 4 ? 5 * SEC : o->cfg.quiet_ns * 4;
  return -1;
}

/* The default profile: a new file in the state directory. */
static char *default_profile (void)
{
  const char *xdg = getenv ("XDG_STATE_HOME");
  const char *home = getenv ("HOME");
  char dir[PATH_MAX], *path;
  if (xdg && xdg[0] == '/')
    snprintf (dir, sizeof dir, "%s/emlat", xdg);
  else if (home && home[0] == '/')
    snprintf (dir, sizeof dir, "%s/.local/state/emlat", home);
  else
    return NULL;
  for (char *s = dir + 1; *s; s++)
    if (*s == '/')
      {
        *s = 0;
        mkdir (dir, 0700);
        *s = '/';
      }
  if (mkdir (dir, 0700) && errno != EEXIST)
    return NULL;
  time_t now = time (NULL);
  struct tm tm;
  char stamp[32];
  localtime_r (&now, &tm);
  strftime (stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  if (asprintf (&path, "%s/replay-%s-%ld.emlat", dir, stamp, (long)getpid ()) < 0)
    return NULL;
  return path;
}

/* FILE with a trailing ".emlat" replaced by ".tty.emlat". */
static char *tty_profile (const char *file)
{
  size_t n = strlen (file);
  char *s;
  if (n > 6 && strcmp (file + n - 6, ".emlat") == 0)
    n -= 6;
  if (asprintf (&s, "%.*s.tty.emlat", (int)n, file) < 0)
    return NULL;
  return s;
}

/* The environment of CMD: ours without TERM, COLUMNS and LINES (a real
   terminal window sets neither of the last two) plus TERM and
   EMLAT_FINISH=drain:OUR_PID (a recorder in CMD leaves its last records
   to us: drive finishes its profiles once it exited; and drive drains
   the rings of one session of CMD while CMD runs, src/record/drain.h:
   with --interpose the profile it created for CMD, else the first
   session CMD starts on a profile of its own naming, as a profiled
   Emacs does) with EMLAT_MACHINE, the machine's facts read here for it,
   and with --interpose the preload variables.  *OWN_FROM: the index of
   the first entry allocated here (all after it are, but the literal
   EMLAT_TRACE=1; run_env_free). */
static char **child_env (const char *term, const char *preload,
                         const char *tty_file, size_t *own_from)
{
  size_t n = 0;
  while (environ[n])
    n++;
  char **env = calloc (n + 7, sizeof *env);
  const char *old_preload = NULL;
  size_t k = 0;
  if (!env)
    return NULL;
  for (size_t i = 0; i < n; i++)
    {
      const char *e = environ[i];
      if (strncmp (e, "TERM=", 5) == 0 || strncmp (e, "COLUMNS=", 8) == 0
          || strncmp (e, "LINES=", 6) == 0)
        continue;
      if (strncmp (e, "EMLAT_FINISH=", 13) == 0 || strncmp (e, "EMLAT_MACHINE=", 14) == 0
          || (preload
              && (strncmp (e, "EMLAT_TRACE=", 12) == 0 || strncmp (e, "EMLAT_FILE=", 11) == 0)))
        continue;
      if (preload && strncmp (e, "LD_PRELOAD=", 11) == 0)
        {
          old_preload = e + 11;
          continue;
        }
      env[k++] = (char *)e;
    }
  *own_from = k;
  if (asprintf (&env[k++], "TERM=%s", term) < 0)
    return NULL;
  /* We finish CMD's profiles ourselves once it exited (drive): a
     recorder in CMD, whose parent we are, leaves them to us. */
  if (asprintf (&env[k++], "EMLAT_FINISH=drain:%ld", (long)getpid ()) < 0)
    return NULL;
  /* The machine's facts, read once here and handed down with it, so
     that a recorder in CMD does not read them at its start
     (src/common/machine.h). */
  struct emlat_machine machine;
  emlat_machine_read (&machine);
  char machine_env[EMLAT_MACHINE_VALUE_MAX];
  if (emlat_machine_format (&machine, machine_env, sizeof machine_env) >= 0
      && asprintf (&env[k++], "EMLAT_MACHINE=%s", machine_env) < 0)
    return NULL;
  if (preload)
    {
      if (old_preload && old_preload[0])
        {
          if (asprintf (&env[k++], "LD_PRELOAD=%s:%s", preload, old_preload) < 0)
            return NULL;
        }
      else if (asprintf (&env[k++], "LD_PRELOAD=%s", preload) < 0)
        return NULL;
      env[k++] = (char *)"EMLAT_TRACE=1";
      if (asprintf (&env[k++], "EMLAT_FILE=%s", tty_file) < 0)
        return NULL;
    }
  env[k] = NULL;
  return env;
}

static char *preload_path (void)
{
  char path[PATH_MAX];
  return emlat_cli_find_tty_lib (path, sizeof path) == 0 ? strdup (path) : NULL;
}

static void print_dist (const char *label, const struct replay_dist *d,
                        const char *extra)
{
  if (!d->n)
    {
      printf ("  %-14s none measured%s\n", label, extra);
      return;
    }
  printf ("  %-14s median %.3f ms, p90 %.3f ms, p99 %.3f ms "
          "(min %.3f, max %.3f, n=%zu)%s\n",
          label, d->median / 1e6, d->p90 / 1e6, d->p99 / 1e6, d->min / 1e6,
          d->max / 1e6, d->n, extra);
}

static const char *sig_name (int sig)
{
  const char *s = sigabbrev_np (sig);
  return s ? s : "?";
}

static const char *why_text (enum replay_why w)
{
  switch (w)
    {
    case REPLAY_END_COMPLETED: return "completed";
    case REPLAY_END_CMD_EXITED: return "CMD ended before the workload finished";
    case REPLAY_END_TIMEOUT: return "timeout";
    case REPLAY_END_WAIT_FAILED: return "wait timed out";
    case REPLAY_END_INTERRUPTED: return "interrupted";
    case REPLAY_END_IO_ERROR: return "terminal error";
    }
  return "?";
}

/* "nothing", "hangup", "hangup, SIGTERM", "SIGTERM, SIGKILL", ... */
static void print_sent (const struct replay_result *r)
{
  const char *sep = "";
  printf ("; the driver sent ");
  if (!r->sent_hangup && !r->sent_term && !r->sent_kill)
    printf ("nothing");
  if (r->sent_hangup)
    printf ("%shangup", sep), sep = ", ";
  if (r->sent_term)
    printf ("%sSIGTERM", sep), sep = ", ";
  if (r->sent_kill)
    printf ("%sSIGKILL", sep);
  printf ("\n");
}

static void summary (const struct opts *o, const char *name,
                     const struct replay_script *s, const struct replay_term *t,
                     const struct replay_measure *m, const struct replay_result *r,
                     const char *profile, int profile_rc)
{
  struct replay_dist first, quiet, late;
  size_t nq = 0, nsup = 0, nsilent = 0, nunf = 0, measured = 0;
  char extra[64];
  for (size_t i = 0; i < m->n; i++)
    {
      const struct replay_obs *ob = &m->v[i];
      if (!ob->t_send)
        continue;
      measured++;
      if (ob->state == REPLAY_OBS_SUPERSEDED)
        nsup++;
      else if (ob->state == REPLAY_OBS_UNFINISHED)
        nunf++;
      else if (!ob->t_first)
        nsilent++;
      else
        nq++;
    }
  replay_measure_dist (m, REPLAY_M_FIRST, &first);
  replay_measure_dist (m, REPLAY_M_QUIET, &quiet);
  replay_measure_dist (m, REPLAY_M_LATENESS, &late);

  printf ("emlat replay: workload %s, %ux%u, TERM=%s\n", name, o->rows, o->cols,
          o->term);
  printf ("  keystrokes:    %zu planned, %llu sent, %zu measured "
          "(%zu quiet, %zu superseded, %zu silent, %zu unfinished)\n",
          s->keystrokes, (unsigned long long)r->keys_sent, measured, nq, nsup,
          nsilent, nunf);
  print_dist ("first output:", &first, "");
  snprintf (extra, sizeof extra, " [quiet gap %.0f ms]", o->cfg.quiet_ns / 1e6);
  print_dist ("quiescence:", &quiet, extra);
  print_dist ("send lateness:", &late, "");
  if (r->t_workload)
    printf ("  start-up:      %s after %.1f ms\n",
            r->settled ? "settled" : "did not settle, workload started",
            (r->t_workload - r->t_spawn) / 1e6);
  printf ("  terminal:      %llu queries answered (DA1 %llu, DA2 %llu, DSR %llu, "
          "CPR %llu, window %llu, other %llu); %llu output bytes, "
          "%llu unattributed\n",
          (unsigned long long)replay_term_answered (t),
          (unsigned long long)t->answered[REPLAY_Q_DA1],
          (unsigned long long)t->answered[REPLAY_Q_DA2],
          (unsigned long long)t->answered[REPLAY_Q_DSR],
          (unsigned long long)t->answered[REPLAY_Q_CPR],
          (unsigned long long)t->answered[REPLAY_Q_WINOPS],
          (unsigned long long)(t->answered[REPLAY_Q_XTVERSION]
                               + t->answered[REPLAY_Q_DECRQM]
                               + t->answered[REPLAY_Q_COLOR]
                               + t->answered[REPLAY_Q_DCS]),
          (unsigned long long)m->output_bytes,
          (unsigned long long)m->unattributed_bytes);
  printf ("  result:        %s", why_text (r->why));
  if (r->why == REPLAY_END_TIMEOUT)
    printf (" after %.1f s", o->cfg.timeout_ns / 1e9);
  if (r->why != REPLAY_END_COMPLETED)
    {
      printf (" (%zu of %zu steps", r->steps_done, r->steps_total);
      if (r->failed_line && o->script)
        printf (", stopped at line %u", r->failed_line);
      printf (")");
    }
  if (r->io_errno)
    printf (": %s", strerror (r->io_errno));
  printf ("\n");
  if (!r->reaped)
    printf ("  cmd:           not reaped\n");
  else
    {
      if (WIFEXITED (r->wait_status))
        printf ("  cmd:           exited with status %d",
                WEXITSTATUS (r->wait_status));
      else
        printf ("  cmd:           killed by SIG%s",
                sig_name (WTERMSIG (r->wait_status)));
      print_sent (r);
      printf ("  cmd cpu:       %.3f ms (user %.3f ms, system %.3f ms)\n",
              (r->cmd_user_ns + r->cmd_sys_ns) / 1e6, r->cmd_user_ns / 1e6,
              r->cmd_sys_ns / 1e6);
    }
  printf ("  duration:      %.3f s\n", (r->t_end - r->t_spawn) / 1e9);
  if (profile_rc)
    printf ("  profile:       %s (write error: %s)\n", profile,
            strerror (-profile_rc));
  else
    printf ("  profile:       %s\n", profile);
}

static int write_tsv (const char *path, const struct replay_measure *m)
{
  /* A new file, never a symlink followed, private like the profiles. */
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
  if (fd < 0)
    return -errno;
  FILE *f = fdopen (fd, "w");
  if (!f)
    {
      int e = errno;
      close (fd);
      return -e;
    }
  fprintf (f, "# index\tkind\tlateness_ns\tfirst_output_ns\tquiescent_ns"
              "\tout_bytes\tsent_bytes\tstate\n");
  static const char *const states[] = { "open", "quiet", "superseded",
                                        "unfinished" };
  for (size_t i = 0; i < m->n; i++)
    {
      const struct replay_obs *o = &m->v[i];
      if (!o->t_send)
        continue;
      fprintf (f, "%zu\t%s\t%llu\t", i + 1, o->resize ? "resize" : "key",
               (unsigned long long)(o->t_send > o->t_sched ? o->t_send - o->t_sched : 0));
      if (o->t_first)
        fprintf (f, "%llu\t", (unsigned long long)(o->t_first - o->t_send));
      else
        fprintf (f, "-\t");
      if (o->t_first && o->state == REPLAY_OBS_QUIET)
        fprintf (f, "%llu\t", (unsigned long long)(o->t_last - o->t_send));
      else
        fprintf (f, "-\t");
      fprintf (f, "%llu\t%u\t%s\n", (unsigned long long)o->out_bytes,
               o->sent_bytes,
               o->state == REPLAY_OBS_QUIET && !o->t_first ? "silent"
                                                           : states[o->state & 3]);
    }
  int e = ferror (f) ? EIO : 0;
  if (fclose (f) && !e)
    e = errno;
  return -e;
}

static int build_script (const struct opts *o, const char *name,
                         struct replay_script *s)
{
  struct replay_script_defaults d = { o->wpm, 200 * MS, 10 * SEC };
  unsigned line = 0;
  char err[256] = "";
  if (o->script)
    {
      if (replay_script_load (s, o->script, &d, &line, err, sizeof err))
        {
          if (line)
            emlat_cli_error_line (o->script, line, "%s", err);
          else
            emlat_cli_error (o->script, UINT64_MAX, "%s", err);
          return -1;
        }
      if (s->keystrokes == 0 && s->n == 0)
        {
          emlat_cli_error (o->script, UINT64_MAX, "the script has no steps");
          return -1;
        }
      return 0;
    }
  struct replay_workload_params p = { o->keys, o->wpm, o->rows, o->cols };
  if (!p.keys)
    p.keys = replay_workload_default_keys (name);
  char *text = replay_workload_script (name, &p);
  if (!text)
    {
      emlat_cli_usage_error ("replay", "unknown workload '%s' (typing, paging, editing, resize)",
                             name);
      return -1;
    }
  int rc = replay_script_parse (s, text, strlen (text), &d, &line, err, sizeof err);
  if (rc == 0 && o->print_script)
    fputs (text, stdout);
  free (text);
  if (rc)
    emlat_cli_error (NULL, UINT64_MAX, "workload %s, line %u: %s", name, line, err);
  return rc;
}

static void opts_init (struct opts *o)
{
  memset (o, 0, sizeof *o);
  o->rows = 24;
  o->cols = 80;
  o->wpm = 60;
  o->term = "xterm-256color";
  o->lines = 100000;
  o->cfg.quiet_ns = 50 * MS;
  o->cfg.settle_ns = 300 * MS;
  o->cfg.settle_max_ns = 10 * SEC;
  o->cfg.linger_ns = 500 * MS;
  o->cfg.grace_ns = 2 * SEC;
  o->cfg.timeout_ns = 600 * SEC;
}

/* --make-file: O->lines lines into O->make_file, never overwritten. */
static int make_file (const struct opts *o, int has_cmd)
{
  if (has_cmd)
    return emlat_cli_usage_error ("replay", "--make-file takes no command");
  int e = replay_make_file (o->make_file, o->lines);
  if (e)
    {
      emlat_cli_error (o->make_file, UINT64_MAX, "%s", strerror (-e));
      return EMLAT_EXIT_USAGE;
    }
  printf ("emlat replay: wrote %llu lines to %s\n",
          (unsigned long long)o->lines, o->make_file);
  return EMLAT_EXIT_OK;
}

/* What a run needs besides the options; run_env_free releases it. */
struct run_env
{
  char *profile;  /* -o FILE or a new file in the state directory */
  char *preload;  /* --interpose: the library and its profile */
  char *tty_file;
  char **env;     /* CMD's environment (child_env) */
  size_t env_own; /* env[env_own..] were allocated by child_env */
};

static void run_env_free (struct run_env *e)
{
  if (e->env)
    {
      /* Only the entries we allocated follow the inherited ones. */
      for (size_t k = e->env_own; e->env[k]; k++)
        if (strncmp (e->env[k], "EMLAT_TRACE=", 12) != 0)
          free (e->env[k]);
      free (e->env);
    }
  free (e->preload);
  free (e->tty_file);
  free (e->profile);
}

/* Fills E and blocks the signals the run handles.  Returns -1 to go on,
   or the exit code. */
static int prepare (const struct opts *o, struct run_env *e)
{
  e->profile = o->out ? strdup (o->out) : default_profile ();
  if (!e->profile)
    return emlat_cli_usage_error ("replay", "no state directory for the profile; give -o FILE");
  if (o->interpose)
    {
      e->preload = preload_path ();
      e->tty_file = tty_profile (e->profile);
      if (!e->preload)
        {
          emlat_cli_error (getenv ("EMLAT_TTY_LIB"), UINT64_MAX, "--interpose: %s",
                           emlat_cli_tty_lib_missing ());
          return EMLAT_EXIT_USAGE;
        }
    }
  e->env = child_env (o->term, e->preload, e->tty_file, &e->env_own);
  if (!e->env)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  /* Before the recorder's writer thread exists, so it inherits the mask. */
  if (replay_run_block_signals ())
    {
      emlat_cli_error (NULL, UINT64_MAX, "cannot set up signals");
      return EMLAT_EXIT_FAIL;
    }
  return -1;
}

/* Start the recorder on PROFILE with the driver's settings as SESSION
   metadata (never CMD, paths or the typed text).  Returns -1 or the exit
   code. */
static int start_profile (const struct opts *o, const char *name,
                          const struct replay_script *script, const char *profile)
{
  char ver[64];
  snprintf (ver, sizeof ver, "emlat replay %s", EMLAT_VERSION_STRING);
  struct emlat_meta meta[] = {
    { "replay.driver", EMLAT_META_STR, 0, 0, ver, strlen (ver) },
    { "replay.workload", EMLAT_META_STR, 0, 0, name, strlen (name) },
    { "replay.rows", EMLAT_META_UINT, o->rows, 0, NULL, 0 },
    { "replay.cols", EMLAT_META_UINT, o->cols, 0, NULL, 0 },
    { "replay.term", EMLAT_META_STR, 0, 0, o->term, strlen (o->term) },
    { "replay.wpm", EMLAT_META_UINT, o->wpm, 0, NULL, 0 },
    { "replay.keystrokes_planned", EMLAT_META_UINT, script->keystrokes, 0, NULL, 0 },
    { "replay.quiet_ns", EMLAT_META_UINT, o->cfg.quiet_ns, 0, NULL, 0 },
    { "replay.settle_ns", EMLAT_META_UINT, o->cfg.settle_ns, 0, NULL, 0 },
    { "replay.timeout_ns", EMLAT_META_UINT, o->cfg.timeout_ns, 0, NULL, 0 },
    { "replay.grace_ns", EMLAT_META_UINT, o->cfg.grace_ns, 0, NULL, 0 },
    { "replay.interpose", EMLAT_META_UINT, (uint64_t)o->interpose, 0, NULL, 0 },
    { "replay.identity", EMLAT_META_STR, 0, 0, "da1=62;22 da2=1;10;0", 20 },
  };
  struct emlat_options eo;
  memset (&eo, 0, sizeof eo);
  eo.path = profile;
  eo.meta = meta;
  eo.n_meta = sizeof meta / sizeof meta[0];
  int rc = emlat_start (&eo);
  if (rc)
    {
      emlat_cli_error (profile, UINT64_MAX, "cannot start the profile: %s",
                       strerror (-rc));
      return EMLAT_EXIT_USAGE;
    }
  return -1;
}

/* Stop the drainer at *ARG (a struct emlat_drainer **), if any. */
static void stop_drainer (void *arg)
{
  struct emlat_drainer **d = arg;
  emlat_drainer_stop (*d, NULL);
  *d = NULL;
}

/* With the profile started: spawn CMD, type SCRIPT, measure, stop the
   profile, print the summary and write --tsv.  Returns the exit code. */
static int drive (const struct opts *o, const char *name, const struct replay_script *script,
                  const struct run_env *e, char **cmd)
{
  struct replay_pty pty;
  char err[256];
  /* --interpose: CMD's profile is created here, empty, and CMD's
     recorder writes into it (EMLAT_OPT_ADOPT_EMPTY): CMD pays no file
     creation in the profile's directory. */
  int rc = o->interpose ? emlat_cli_reserve_profile (e->tty_file) : 0;
  if (rc)
    {
      emlat_cli_error (e->tty_file, UINT64_MAX, "cannot create the command's profile: %s",
                       rc == -EEXIST ? "it exists (never overwritten)" : strerror (-rc));
      emlat_stop ();
      unlink (e->profile);
      return EMLAT_EXIT_USAGE;
    }
  if (replay_pty_spawn (&pty, cmd, e->env, o->rows, o->cols, err, sizeof err))
    {
      emlat_cli_error (NULL, UINT64_MAX, "%s", err);
      emlat_stop ();
      unlink (e->profile);
      if (o->interpose)
        unlink (e->tty_file);
      return EMLAT_EXIT_USAGE;
    }

  static struct replay_term term; /* 66 KiB: not on the stack */
  struct replay_measure m;
  struct replay_result r;
  replay_term_init (&term, o->rows, o->cols);
  replay_measure_init (&m, o->cfg.quiet_ns);
  pid_t child = pty.pid;
  /* CMD's rings are drained here while it runs (EMLAT_FINISH=
     drain:OUR_PID): CMD runs no writer thread for that session.  With
     --interpose the session is the one writing the profile we created;
     without, the first one CMD starts on a profile it names itself (a
     profiled Emacs's --latency-profile=FILE), found by CMD's process id.
     Started after the spawn: the child of a process with threads may
     only exec. */
  struct emlat_drainer *drainer = NULL;
  int drc = emlat_drainer_start (o->interpose ? e->tty_file : NULL, child, &drainer);
  if (drc != 0)
    /* CMD's rings then keep what they can hold until it exits; the rest
       is counted as lost (LOSS ring_full). */
    emlat_cli_error (o->interpose ? e->tty_file : NULL, UINT64_MAX,
                     "cannot drain the command's rings while it runs (%s): what they "
                     "cannot hold will be counted as lost",
                     strerror (-drc));
  /* The drainer stops when CMD has exited but before it is reaped, so
     that its last resource sample still finds CMD in /proc. */
  struct replay_config cfg = o->cfg;
  cfg.before_reap = stop_drainer;
  cfg.before_reap_arg = &drainer;
  replay_run (&cfg, script, &pty, &term, &m, &r);
  replay_pty_hangup (&pty);
  stop_drainer (&drainer); /* if CMD was never reaped */
  int stop_rc = emlat_stop ();
  /* CMD's own profiles (--interpose, or a profiled Emacs): the recorder
     left its last records in the ring file (EMLAT_FINISH=reader:PID, or CMD
     was killed); write them into the profiles now, here rather than in
     CMD.  The tty profile by its name (its ring file may be beside it),
     any other by CMD's process id; with how CMD ended, when it was
     reaped (STATS stats.exit_code or stats.exit_signal). */
  int how = r.reaped ? r.wait_status : -1;
  if (o->interpose)
    emlat_recover_exited (e->tty_file, how, 0);
  emlat_recover_process_exited (child, how, 0);

  summary (o, name, script, &term, &m, &r, e->profile, stop_rc);
  int exit_code = r.why == REPLAY_END_COMPLETED && stop_rc == 0 ? EMLAT_EXIT_OK
                                                                : EMLAT_EXIT_FAIL;
  if (o->tsv)
    {
      int te = write_tsv (o->tsv, &m);
      if (te)
        {
          emlat_cli_error (o->tsv, UINT64_MAX, "%s", strerror (-te));
          exit_code = EMLAT_EXIT_FAIL;
        }
    }
  if (o->interpose)
    {
      if (emlat_cli_profile_written (e->tty_file))
        printf ("  cmd profile:   %s\n", e->tty_file);
      else
        printf ("  cmd profile:   none (the command recorded nothing: is it dynamically "
                "linked?)\n");
    }
  replay_measure_free (&m);
  return exit_code;
}

static int run_replay (int argc, char **argv)
{
  struct opts o;
  int cmd_at = argc;
  opts_init (&o);
  int rc = parse_args (argc, argv, &o, &cmd_at);
  if (rc >= 0)
    return rc;
  if (o.make_file)
    return make_file (&o, cmd_at < argc);
  if (o.workload && o.script)
    return emlat_cli_usage_error ("replay", "give --workload or --script, not both");
  const char *name = o.script ? "script" : o.workload ? o.workload : "typing";
  struct replay_script script = { 0 };
  if (build_script (&o, name, &script))
    rc = EMLAT_EXIT_USAGE;
  else if (o.print_script)
    rc = EMLAT_EXIT_OK;
  else if (cmd_at >= argc)
    rc = emlat_cli_usage_error ("replay", "no command (emlat replay [OPTIONS] -- CMD [ARGS...])");
  if (rc >= 0)
    {
      replay_script_free (&script);
      return rc;
    }
  struct run_env e = { 0 };
  rc = prepare (&o, &e);
  if (rc < 0)
    rc = start_profile (&o, name, &script, e.profile);
  if (rc < 0)
    rc = drive (&o, name, &script, &e, argv + cmd_at);
  run_env_free (&e);
  replay_script_free (&script);
  return rc;
}

EMLAT_VERB (replay_verb, "replay",
            "run a command in a pseudo-terminal, type a workload, measure",
            run_replay)

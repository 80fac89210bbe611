/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_session.c -- activation of libemlat-tty.so (DESIGN.md section 11.4: one
 * variable), the recording session, and the process-level rules: exit, fork
 * and exec.
 *
 * At load (constructor): EMLAT_TRACE exactly "1" or "true" turns the
 * library on; any other value, or none, leaves it off and nothing else
 * happens (no file, no directory, no thread).  On: find the terminal
 * descriptors, start a session through emlat_start with SESSION metadata
 * (docs/TTY.md, "Session metadata": program base name, TERM when it looks
 * like a terminal name, rows/cols, pty or device for stdin/stdout, whether
 * an SSH variable is present -- never a value, path or argument), remove
 * this library from LD_PRELOAD so exec'd children run untraced (unless
 * EMLAT_TRACE_CHILDREN=1), start the observer when EMLAT_OBSERVER=1.
 *
 * At exit (atexit): complete the exiting thread's interaction and stop the
 * session with EMLAT_OPT_DEFER_FINISH: the records not yet in the profile
 * stay in the ring file, and `emlat record` (or the next reader) writes
 * them, so the program pays nothing for its profile at exit.  Fatal
 * signals are not caught: the ring file keeps every record published
 * before a kill.  In a fork child the library turns itself off before the child
 * runs any code (pthread_atfork), so the child neither records into the
 * parent's session nor stops it at exit.
 */
#include "tty.h"
#include "common/statedir.h"
#include "record/envstart.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

__thread struct tty_thread_words tty_self TTY_TLS;

static int
tty_env_is (const char *name, const char *a, const char *b)
{
  const char *v = getenv (name);
  return v && (strcmp (v, a) == 0 || (b && strcmp (v, b) == 0));
}

/* "pty", "device" or "none" for descriptor FD, 0 or 1 (never its path),
   after tty_fd_scan_std: its isatty is the descriptor's role. */
static const char *
tty_kind (int fd)
{
  struct stat st;
  if (!(tty_fd_role (fd) & (TTY_ROLE_IN | TTY_ROLE_OUT)) || fstat (fd, &st) != 0)
    return "none";
  unsigned maj = major (st.st_rdev);
  /* Unix98 pty slaves use majors 136..143 (devices.txt). */
  return maj >= 136 && maj <= 143 ? "pty" : "device";
}

/* TERM is recorded only when it looks like a terminal type name. */
static int
tty_term_ok (const char *t)
{
  size_t n = t ? strlen (t) : 0;
  if (n == 0 || n > 64)
    return 0;
  for (size_t i = 0; i < n; i++)
    {
      char c = t[i];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '+'
            || c == '_'))
        return 0;
    }
  return 1;
}

/* Remove this library from LD_PRELOAD (entries are separated by ':' or
   ' '); other preloaded libraries stay. */
static void
tty_strip_preload (void)
{
  const char *v = getenv ("LD_PRELOAD");
  if (!v)
    return;
  size_t n = strlen (v);
  char *out = malloc (n + 1);
  if (!out)
    return;
  size_t o = 0;
  const char *p = v;
  while (*p)
    {
      size_t len = strcspn (p, ": ");
      if (len)
        {
          const char *base = p;
          for (size_t i = 0; i < len; i++)
            if (p[i] == '/')
              base = p + i + 1;
          size_t blen = len - (size_t)(base - p);
          if (!(blen >= 15 && memcmp (base, "libemlat-tty.so", 15) == 0))
            {
              if (o)
                out[o++] = ':';
              memcpy (out + o, p, len);
              o += len;
            }
        }
      p += len;
      if (*p)
        p++;
    }
  out[o] = '\0';
  if (o)
    setenv ("LD_PRELOAD", out, 1);
  else
    unsetenv ("LD_PRELOAD");
  free (out);
}

static void
tty_atexit (void)
{
  if (!tty_active ())
    return;
  tty_self.nest++;
  tty_ix_close_thread (emlat_now ());
  /* relaxed: see tty_active(); later calls find no session either way. */
  atomic_store_explicit (&tty_hot.on, 0, memory_order_relaxed);
  tty_observer_stop ();
  emlat_stop ();
  tty_self.nest--;
}

static void
tty_atfork_child (void)
{
  atomic_store_explicit (&tty_hot.on, 0, memory_order_relaxed);
  tty_observer_stop ();
}

#define TTY_META_MAX 14

static void
tty_meta_str (struct emlat_meta *m, size_t *n, const char *key, const char *s)
{
  m[*n] = (struct emlat_meta){ .key = key, .type = EMLAT_META_STR, .s = s,
                               .s_len = strlen (s) };
  (*n)++;
}

static void
tty_meta_uint (struct emlat_meta *m, size_t *n, const char *key, uint64_t u)
{
  m[*n] = (struct emlat_meta){ .key = key, .type = EMLAT_META_UINT, .u = u };
  (*n)++;
}

/* Never on the program's terminal (the program owns it): into EMLAT_LOG
   when set, else nowhere -- `emlat record` tells the user when no profile
   appeared. */
static void
tty_complain (const char *what, int err)
{
  tty_log ("not recording: %s: %s", what, strerror (err));
}

/* EMLAT_OBSERVER_BUDGET (read only when the observer is asked for): the
   observer's CPU budget in percent of wall
   time, a decimal number in (0, 100] (default 1: the continuous-mode budget
   of DESIGN.md section 8.5); anything else keeps the default, and says so
   in the library's log. */
static uint32_t
tty_observer_budget_ppm (void)
{
  const uint32_t dflt = 10000;
  const char *v = getenv ("EMLAT_OBSERVER_BUDGET");
  if (!v)
    return dflt;
  char *end;
  errno = 0;
  double pct = strtod (v, &end);
  if (errno || end == v || *end || !(pct > 0) || pct > 100)
    {
      tty_log ("EMLAT_OBSERVER_BUDGET: not a percentage in (0, 100]; the "
               "observer keeps its budget of 1%%");
      return dflt;
    }
  double ppm = pct * 10000.0;
  return ppm < 1 ? 1 : (uint32_t)ppm;
}

__attribute__ ((constructor)) static void
tty_init (void)
{
  tty_real_resolve_all ();
  if (!tty_env_is ("EMLAT_TRACE", "1", "true"))
    return;
  tty_self.nest++;
  int saved_errno = errno;
  int children = tty_env_is ("EMLAT_TRACE_CHILDREN", "1", NULL);
  int observer = tty_env_is ("EMLAT_OBSERVER", "1", NULL);
  tty_hot.spans = tty_env_is ("EMLAT_TTY_SPANS", "1", NULL);
  tty_fd_scan_std ();

  struct emlat_meta meta[TTY_META_MAX];
  size_t nm = 0;
  tty_meta_str (meta, &nm, "tty.layer", "interpose");
  tty_meta_str (meta, &nm, "program.name", program_invocation_short_name);
  const char *term = getenv ("TERM");
  if (tty_term_ok (term))
    tty_meta_str (meta, &nm, "tty.term", term);
  struct winsize ws;
  int wfd = (tty_fd_role (1) & TTY_ROLE_OUT) ? 1 : 0;
  if (ioctl (wfd, TIOCGWINSZ, &ws) == 0)
    {
      tty_meta_uint (meta, &nm, "tty.rows", ws.ws_row);
      tty_meta_uint (meta, &nm, "tty.cols", ws.ws_col);
    }
  tty_meta_str (meta, &nm, "tty.stdin", tty_kind (0));
  tty_meta_str (meta, &nm, "tty.stdout", tty_kind (1));
  tty_meta_uint (meta, &nm, "tty.ssh",
                 getenv ("SSH_CONNECTION") || getenv ("SSH_CLIENT")
                   || getenv ("SSH_TTY"));
  tty_meta_uint (meta, &nm, "tty.observer", (uint64_t)observer);
  uint32_t budget_ppm = observer ? tty_observer_budget_ppm () : 0;
  if (observer)
    tty_meta_uint (meta, &nm, "tty.observer_budget_ppm", budget_ppm);
  tty_meta_uint (meta, &nm, "tty.trace_children", (uint64_t)children);
  tty_meta_uint (meta, &nm, "tty.spans", (uint64_t)tty_spans ());
  tty_meta_uint (meta, &nm, "tty.block_ns", EMLAT_TTY_BLOCK_NS);

  struct emlat_options opt;
  memset (&opt, 0, sizeof opt);
  opt.meta = meta;
  opt.n_meta = nm;
  /* An interactive program records a few dozen records per keystroke: a
     writer pass per keystroke would cost more CPU than the program's own
     work (docs/PERFORMANCE.md).  The writer drains only when a ring is half
     full; the ring file keeps every record until then.  Under `emlat
     record` or `emlat replay --interpose` (EMLAT_FINISH=reader) the final
     drain is left to them too: they finish the profile after the program
     exited, so the program pays nothing for it. */
  char dir[PATH_MAX];
  const char *file = getenv ("EMLAT_FILE");
  /* With a file: `emlat record` and `emlat replay --interpose` create it,
     empty, for the program they run (its parent), so that it pays no
     creation in the file's directory (docs/PERFORMANCE.md:
     EMLAT_OPT_ADOPT_EMPTY), and drain the rings while it runs
     (docs/DESIGN.md 8.7: EMLAT_OPT_DRIVER_DRAINS, no writer thread
     here). */
  opt.flags = emlat_finish_flags (file && *file);
  int rc;
  if (file && *file)
    {
      opt.path = file;
      rc = emlat_start (&opt);
      if (rc == -EEXIST && children)
        {
          /* A traced child of a traced process: a file of its own, named
             after the parent's: NAME.emlat -> NAME-PID.emlat. */
          size_t len = strlen (file);
          if (len > 6 && strcmp (file + len - 6, ".emlat") == 0)
            len -= 6;
          int w = snprintf (dir, sizeof dir, "%.*s-%ld.emlat", (int)len, file,
                            (long)getpid ());
          if (w > 0 && (size_t)w < sizeof dir)
            {
              opt.path = dir;
              /* Nobody finishes a child's profile for it. */
              opt.flags &= ~(EMLAT_OPT_DEFER_FINISH | EMLAT_OPT_ADOPT_EMPTY
                             | EMLAT_OPT_DRIVER_DRAINS);
              rc = emlat_start (&opt);
            }
        }
      if (rc != 0)
        tty_complain (file, -rc);
    }
  else
    {
      rc = emlat_state_dir (dir, sizeof dir);
      if (rc == 0)
        rc = emlat_mkdir_p (dir);
      if (rc == 0)
        {
          opt.dir = dir;
          rc = emlat_start (&opt);
        }
      if (rc != 0)
        tty_complain ("profile directory", -rc);
    }
  /* From now on exec and spawn calls pass an environment without our
     variables (tty_exec.c), unless children are traced too; also when
     this process could not record, so that its children do not try. */
  tty_scrub_children_env = children ? 1 : 0;
  if (!children)
    tty_strip_preload ();
  if (rc == 0)
    {
      pthread_atfork (NULL, NULL, tty_atfork_child);
      atexit (tty_atexit);
      if (observer)
        tty_observer_enable (budget_ppm);
      /* relaxed: see tty_active(). */
      atomic_store_explicit (&tty_hot.on, 1, memory_order_relaxed);
      int in = tty_fd_first_input ();
      if (in >= 0)
        tty_observer_attach (in);
    }
  errno = saved_errno;
  tty_self.nest--;
}

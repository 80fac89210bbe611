/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * envstart.c -- activation by the environment (DESIGN.md section 11.4):
 * emlat_start_from_env and emlat_autostart (emlat.h).
 *
 * The one switch is EMLAT_TRACE, on for exactly "1" or "true" and off for
 * every other value or none.  Off means nothing at all: this file reads
 * EMLAT_TRACE and returns, creating no file, no directory and no thread.
 * On, the profile goes to EMLAT_FILE (that exact file, never replaced; an
 * empty one is written into when EMLAT_FINISH names the parent, which
 * created it), else to a new file in EMLAT_DIR, else in the state directory
 * ($XDG_STATE_HOME/emlat or ~/.local/state/emlat, statedir.h); a directory
 * is created (mode 0700) only then.  EMLAT_FINISH=reader:PID (set by `emlat
 * replay` and `emlat record`, PID their own process id) adds
 * EMLAT_OPT_DEFER_FINISH in the program they run, whose parent PID is:
 * the caller finishes the profile once the program exited
 * (emlat_recover_process, by the program's process id), so the program
 * pays nothing at its stop.  EMLAT_FINISH=drain:PID (what they set now)
 * says the same and that the parent drains the rings while the program
 * records (drain.h): with EMLAT_FILE, EMLAT_OPT_DRIVER_DRAINS too, and
 * the program starts no writer thread.  A process further down (the program under a
 * wrapper such as a shell, strace or valgrind, which passes the variable
 * on) finishes its profile itself: nobody would look for its ring file by
 * its process id.  EMLAT_FINISH=reader alone defers in any process.
 * These are the only environment variables the library reads, and only
 * when the program calls one of these two functions -- but for
 * EMLAT_MACHINE, which emlat_start reads under EMLAT_OPT_DRIVER_DRAINS
 * (the machine's facts as the driver read them: common/machine.h).
 */
#include "emlat/emlat.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/statedir.h"
#include "record/envstart.h"

int
emlat_trace_requested (void)
{
  const char *v = getenv ("EMLAT_TRACE");
  return v && (strcmp (v, "1") == 0 || strcmp (v, "true") == 0);
}

int
emlat_start_from_env (const struct emlat_options *base)
{
  if (!emlat_trace_requested ())
    return 0;
  struct emlat_options opt;
  if (base)
    opt = *base;
  else
    memset (&opt, 0, sizeof opt);
  opt.path = NULL;
  opt.dir = NULL;
  char dir[PATH_MAX];
  const char *file = getenv ("EMLAT_FILE");
  const char *edir = getenv ("EMLAT_DIR");
  int rc = 0;
  /* The parent that finishes the profile created it for us, and may
     drain it while we record. */
  opt.flags |= emlat_finish_flags (file && *file);
  if (file && *file)
    opt.path = file;
  else
    {
      if (edir && *edir)
        {
          if (strlen (edir) >= sizeof dir)
            return -ENAMETOOLONG;
          strcpy (dir, edir);
        }
      else
        rc = emlat_state_dir (dir, sizeof dir);
      if (rc == 0)
        rc = emlat_mkdir_p (dir);
      if (rc != 0)
        return rc;
      opt.dir = dir;
    }
  rc = emlat_start (&opt);
  return rc == 0 ? 1 : rc;
}

/* What EMLAT_FINISH says: FINISH_NONE, FINISH_ANYWHERE ("reader"),
   FINISH_BY_PARENT ("reader:PID", PID this process's parent) or
   DRAIN_BY_PARENT ("drain:PID": the parent also drains the rings while
   this process records, drain.h). */
enum finish_mode { FINISH_NONE, FINISH_ANYWHERE, FINISH_BY_PARENT, DRAIN_BY_PARENT };

static enum finish_mode
finish_mode (void)
{
  const char *v = getenv ("EMLAT_FINISH");
  if (!v)
    return FINISH_NONE;
  enum finish_mode by_parent;
  if (strncmp (v, "reader", 6) == 0)
    {
      if (v[6] == 0)
        return FINISH_ANYWHERE;
      v += 6;
      by_parent = FINISH_BY_PARENT;
    }
  else if (strncmp (v, "drain", 5) == 0)
    {
      v += 5;
      by_parent = DRAIN_BY_PARENT;
    }
  else
    return FINISH_NONE;
  if (v[0] != ':' || v[1] < '1' || v[1] > '9')
    return FINISH_NONE;
  /* WORD:PID: only a child of process PID defers. */
  unsigned long long pid = 0;
  for (const char *c = v + 1; *c; c++)
    {
      if (*c < '0' || *c > '9' || pid > (unsigned long long)INT_MAX / 10)
        return FINISH_NONE;
      pid = pid * 10 + (unsigned)(*c - '0');
    }
  return pid <= (unsigned long long)INT_MAX && (pid_t)pid == getppid () ? by_parent
                                                                        : FINISH_NONE;
}

int
emlat_finish_requested (void)
{
  return finish_mode () != FINISH_NONE;
}

int
emlat_drain_by_parent (void)
{
  return finish_mode () == DRAIN_BY_PARENT;
}

unsigned
emlat_finish_flags (int with_file)
{
  enum finish_mode m = finish_mode ();
  unsigned flags = m != FINISH_NONE ? EMLAT_OPT_DEFER_FINISH : 0;
  if (with_file && (m == FINISH_BY_PARENT || m == DRAIN_BY_PARENT))
    flags |= EMLAT_OPT_ADOPT_EMPTY;
  if (with_file && m == DRAIN_BY_PARENT)
    flags |= EMLAT_OPT_DRIVER_DRAINS;
  return flags;
}

int
emlat_drain_requested (void)
{
  /* With EMLAT_FILE the parent drains the session writing that file
     (emlat_start_from_env, the interposition library), not this one. */
  const char *file = getenv ("EMLAT_FILE");
  return emlat_drain_by_parent () && !(file && *file);
}

static void
autostop (void)
{
  emlat_stop ();
}

static pthread_once_t auto_once = PTHREAD_ONCE_INIT;
static int auto_rc;

static void
autostart_once (void)
{
  auto_rc = emlat_start_from_env (NULL);
  if (auto_rc > 0)
    atexit (autostop);
}

int
emlat_autostart (void)
{
  pthread_once (&auto_once, autostart_once);
  return auto_rc;
}

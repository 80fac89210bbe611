/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_exec.c -- the programs a traced program executes run untraced: every
 * exec and spawn call passes an environment without this library's
 * variables (EMLAT_TRACE, EMLAT_FILE, EMLAT_FINISH, EMLAT_MACHINE,
 * EMLAT_OBSERVER, EMLAT_LOG, EMLAT_TRACE_CHILDREN) and without this
 * library in LD_PRELOAD, whatever environment the program hands over
 * (docs/TTY.md, "Process rules").  Stripping our own process's
 * environment at load is not enough: a shell such as bash builds its
 * children's environments from its own copy of the variables, so the
 * call is where the scrubbing must happen.
 *
 * With EMLAT_TRACE_CHILDREN=1 the variables stay (each child records into
 * a file of its own, tty_session.c), except EMLAT_FINISH and
 * EMLAT_MACHINE: only the first process's profile is finished, and
 * drained, by `emlat record`.
 *
 * The l-variants (execl, execlp, execle) and execv/execvp are built on the
 * scrubbing execve/execvpe, with the process's environ where they use it.
 * Invariants: no call is traced before the library activated
 * (tty_scrub_children_env says how); errno is the real call's; the memory
 * a failed exec allocated is released.
 */
#include "tty.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* -1: the library is not recording (nothing to scrub); 0: scrub; 1: keep
   for traced children. */
int tty_scrub_children_env = -1;

static int
has_prefix (const char *s, const char *p)
{
  return strncmp (s, p, strlen (p)) == 0;
}

/* Whether entry E is one of ours, to drop. */
static int
ours (const char *e)
{
  /* The driver's words are for its own child only: a traced child of
     ours is not its child (envstart.c, common/machine.h). */
  if (has_prefix (e, "EMLAT_FINISH=") || has_prefix (e, "EMLAT_MACHINE="))
    return 1;
  if (tty_scrub_children_env == 1)
    return 0;
  return has_prefix (e, "EMLAT_TRACE=") || has_prefix (e, "EMLAT_FILE=")
         || has_prefix (e, "EMLAT_OBSERVER=") || has_prefix (e, "EMLAT_LOG=")
         || has_prefix (e, "EMLAT_TRACE_CHILDREN=");
}

/* LD_PRELOAD=... without libemlat-tty.so, a new string, or NULL (then the
   entry is dropped: nothing else was preloaded). */
static char *
preload_without_us (const char *entry)
{
  const char *v = entry + strlen ("LD_PRELOAD=");
  size_t n = strlen (v);
  char *out = malloc (strlen ("LD_PRELOAD=") + n + 1);
  if (!out)
    return NULL;
  strcpy (out, "LD_PRELOAD=");
  size_t o = strlen (out), start = o;
  const char *p = v;
  while (*p)
    {
      size_t len = strcspn (p, ": ");
      const char *base = p;
      for (size_t i = 0; i < len; i++)
        if (p[i] == '/')
          base = p + i + 1;
      size_t blen = len - (size_t)(base - p);
      if (len && !(blen >= 15 && memcmp (base, "libemlat-tty.so", 15) == 0))
        {
          if (o > start)
            out[o++] = ':';
          memcpy (out + o, p, len);
          o += len;
        }
      p += len;
      if (*p)
        p++;
    }
  out[o] = '\0';
  if (o == start)
    {
      free (out);
      return NULL;
    }
  return out;
}

char **
tty_env_scrubbed (char *const envp[])
{
  if (tty_scrub_children_env < 0 || !envp)
    return NULL;
  size_t n = 0;
  while (envp[n])
    n++;
  /* Slot 0 keeps the new LD_PRELOAD string for tty_env_free; the array
     handed out starts at slot 1 and ends with its NULL. */
  char **mem = calloc (n + 2, sizeof *mem);
  if (!mem)
    return NULL;
  char **env = mem + 1;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    {
      const char *e = envp[i];
      if (ours (e))
        continue;
      if (tty_scrub_children_env == 0 && has_prefix (e, "LD_PRELOAD="))
        {
          free (mem[0]);
          mem[0] = preload_without_us (e);
          if (mem[0])
            env[k++] = mem[0];
          continue;
        }
      env[k++] = (char *)e;
    }
  env[k] = NULL;
  return env;
}

void
tty_env_free (char **env)
{
  if (!env)
    return;
  free (env[-1]);
  free (env - 1);
}

void
tty_log (const char *fmt, ...)
{
  const char *path = getenv ("EMLAT_LOG");
  if (!path || !*path)
    return;
  FILE *f = fopen (path, "ae");
  if (!f)
    return;
  va_list ap;
  va_start (ap, fmt);
  fprintf (f, "libemlat-tty[%ld]: ", (long)getpid ());
  vfprintf (f, fmt, ap);
  fputc ('\n', f);
  va_end (ap);
  fclose (f);
}

/* ------------------------------------------------------------------ */
/* The wrappers                                                        */

typedef int (*execve_fn) (const char *, char *const[], char *const[]);
typedef int (*fexecve_fn) (int, char *const[], char *const[]);
typedef int (*spawn_fn) (pid_t *, const char *, const posix_spawn_file_actions_t *,
                         const posix_spawnattr_t *, char *const[], char *const[]);

TTY_EXPORT int
execve (const char *path, char *const argv[], char *const envp[])
{
  execve_fn f = (execve_fn)tty_real (TR_execve);
  char **e = tty_env_scrubbed (envp);
  int r = f (path, argv, e ? e : envp);
  int err = errno;
  tty_env_free (e);
  errno = err;
  return r;
}

TTY_EXPORT int
execvpe (const char *file, char *const argv[], char *const envp[])
{
  execve_fn f = (execve_fn)tty_real (TR_execvpe);
  char **e = tty_env_scrubbed (envp);
  int r = f (file, argv, e ? e : envp);
  int err = errno;
  tty_env_free (e);
  errno = err;
  return r;
}

TTY_EXPORT int
execv (const char *path, char *const argv[])
{
  return execve (path, argv, environ);
}

TTY_EXPORT int
execvp (const char *file, char *const argv[])
{
  return execvpe (file, argv, environ);
}

TTY_EXPORT int
fexecve (int fd, char *const argv[], char *const envp[])
{
  fexecve_fn f = (fexecve_fn)tty_real (TR_fexecve);
  char **e = tty_env_scrubbed (envp);
  int r = f (fd, argv, e ? e : envp);
  int err = errno;
  tty_env_free (e);
  errno = err;
  return r;
}

/* The arguments after ARG0 up to the NULL (and, for execle, the envp after
   it) as an argv array; NULL when too many. */
#define TTY_EXECL_MAX 4096
#define TTY_EXECL_COLLECT(arg0, ap, argv, n)                                   \
  do                                                                           \
    {                                                                          \
      (argv)[0] = (char *)(arg0);                                              \
      (n) = 1;                                                                 \
      while ((n) < TTY_EXECL_MAX && ((argv)[(n)] = va_arg ((ap), char *)))     \
        (n)++;                                                                 \
    }                                                                          \
  while (0)

TTY_EXPORT int
execl (const char *path, const char *arg0, ...)
{
  char *argv[TTY_EXECL_MAX + 1];
  size_t n;
  va_list ap;
  va_start (ap, arg0);
  TTY_EXECL_COLLECT (arg0, ap, argv, n);
  va_end (ap);
  if (n >= TTY_EXECL_MAX)
    {
      errno = E2BIG;
      return -1;
    }
  return execve (path, argv, environ);
}

TTY_EXPORT int
execlp (const char *file, const char *arg0, ...)
{
  char *argv[TTY_EXECL_MAX + 1];
  size_t n;
  va_list ap;
  va_start (ap, arg0);
  TTY_EXECL_COLLECT (arg0, ap, argv, n);
  va_end (ap);
  if (n >= TTY_EXECL_MAX)
    {
      errno = E2BIG;
      return -1;
    }
  return execvpe (file, argv, environ);
}

TTY_EXPORT int
execle (const char *path, const char *arg0, ...)
{
  char *argv[TTY_EXECL_MAX + 1];
  size_t n;
  va_list ap;
  va_start (ap, arg0);
  TTY_EXECL_COLLECT (arg0, ap, argv, n);
  char *const *envp = n < TTY_EXECL_MAX ? va_arg (ap, char *const *) : NULL;
  va_end (ap);
  if (n >= TTY_EXECL_MAX)
    {
      errno = E2BIG;
      return -1;
    }
  return execve (path, argv, envp);
}

TTY_EXPORT int
posix_spawn (pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
             const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
  spawn_fn f = (spawn_fn)tty_real (TR_posix_spawn);
  char **e = tty_env_scrubbed (envp);
  int r = f (pid, path, fa, attr, argv, e ? e : envp);
  tty_env_free (e);
  return r;
}

TTY_EXPORT int
posix_spawnp (pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
              const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
  spawn_fn f = (spawn_fn)tty_real (TR_posix_spawnp);
  char **e = tty_env_scrubbed (envp);
  int r = f (pid, file, fa, attr, argv, e ? e : envp);
  tty_env_free (e);
  return r;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * testutil.c -- temporary directories, file I/O, build paths and child
 * processes for tests (see testutil.h for the contract).
 *
 * Invariants: temporary directories are tracked in a small fixed table and
 * removed depth-first without following symlinks; tu_run builds the child's
 * environment before fork so the child only calls async-signal-safe
 * functions and exec; the child leads its own process group so a timeout
 * kills everything it started.
 */
#include "testutil.h"

#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TU_MAX_TMPDIRS 16
static char *tmpdirs[TU_MAX_TMPDIRS];
static int n_tmpdirs;

static int
remove_entry (const char *path, const struct stat *sb, int flag,
              struct FTW *ftw)
{
  (void)sb;
  (void)ftw;
  if (flag == FTW_DP)
    rmdir (path);
  else
    unlink (path);
  return 0;
}

static void
remove_tmpdirs (void)
{
  const char *keep = getenv ("EMLAT_TEST_KEEP");
  for (int i = 0; i < n_tmpdirs; i++)
    {
      if (keep && strcmp (keep, "1") == 0)
        printf ("# kept %s\n", tmpdirs[i]);
      else
        nftw (tmpdirs[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
      free (tmpdirs[i]);
    }
  n_tmpdirs = 0;
}

const char *
tu_tmpdir (void)
{
  if (n_tmpdirs == TU_MAX_TMPDIRS)
    {
      tap_fail (__FILE__, __LINE__, "tu_tmpdir", "more than %d directories",
                TU_MAX_TMPDIRS);
      return NULL;
    }
  const char *base = getenv ("TMPDIR");
  if (!base || !*base)
    base = "/tmp";
  char *path = tu_strf ("%s/emlat-test-XXXXXX", base);
  if (!mkdtemp (path))
    {
      tap_fail (__FILE__, __LINE__, "mkdtemp", "%s: %s", path,
                strerror (errno));
      free (path);
      return NULL;
    }
  if (n_tmpdirs == 0)
    atexit (remove_tmpdirs);
  tmpdirs[n_tmpdirs++] = path;
  return path;
}

char *
tu_strf (const char *fmt, ...)
{
  va_list ap;
  char *s = NULL;
  va_start (ap, fmt);
  int n = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (n < 0)
    {
      fprintf (stderr, "tu_strf: out of memory\n");
      abort ();
    }
  return s;
}

int
tu_read_file (const char *path, uint8_t **buf, size_t *len)
{
  *buf = NULL;
  *len = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  size_t cap = 4096, n = 0;
  uint8_t *b = malloc (cap + 1);
  if (!b)
    {
      close (fd);
      return -ENOMEM;
    }
  for (;;)
    {
      if (n == cap)
        {
          uint8_t *nb = realloc (b, cap * 2 + 1);
          if (!nb)
            {
              free (b);
              close (fd);
              return -ENOMEM;
            }
          b = nb;
          cap *= 2;
        }
      ssize_t r = read (fd, b + n, cap - n);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          int e = errno;
          free (b);
          close (fd);
          return -e;
        }
      if (r == 0)
        break;
      n += (size_t)r;
    }
  close (fd);
  b[n] = 0;
  *buf = b;
  *len = n;
  return 0;
}

int
tu_write_file (const char *path, const void *buf, size_t len)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return -errno;
  const uint8_t *p = buf;
  while (len > 0)
    {
      ssize_t w = write (fd, p, len);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        {
          int e = errno;
          close (fd);
          return -e;
        }
      p += w;
      len -= (size_t)w;
    }
  if (close (fd) != 0)
    return -errno;
  return 0;
}

const char *
tu_build_dir (void)
{
  const char *b = getenv ("BUILD");
  return b && *b ? b : "build";
}

char *
tu_build_path (const char *rel)
{
  return tu_strf ("%s/%s", tu_build_dir (), rel);
}

uint64_t
tu_now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The inherited environment with SET's entries added or replacing entries of
   the same name.  The strings are shared with environ and SET. */
static char **
child_env (char *const *set)
{
  size_t n_env = 0, n_set = 0;
  while (environ[n_env])
    n_env++;
  while (set && set[n_set])
    n_set++;
  char **env = calloc (n_env + n_set + 1, sizeof *env);
  if (!env)
    return NULL;
  size_t n = 0;
  for (size_t i = 0; i < n_env; i++)
    {
      const char *eq = strchr (environ[i], '=');
      size_t name_len = eq ? (size_t)(eq - environ[i]) : strlen (environ[i]);
      int replaced = 0;
      for (size_t k = 0; k < n_set; k++)
        if (strncmp (set[k], environ[i], name_len) == 0
            && set[k][name_len] == '=')
          replaced = 1;
      if (!replaced)
        env[n++] = environ[i];
    }
  for (size_t k = 0; k < n_set; k++)
    env[n++] = set[k];
  env[n] = NULL;
  return env;
}

/* Append what is readable on FD to *BUF; returns 0 at EOF, 1 otherwise. */
static int
drain (int fd, char **buf, size_t *len, size_t *cap)
{
  for (;;)
    {
      if (*cap - *len < 4097)
        {
          size_t ncap = *cap ? *cap * 2 : 8192;
          char *nb = realloc (*buf, ncap);
          if (!nb)
            return 0;
          *buf = nb;
          *cap = ncap;
        }
      ssize_t r = read (fd, *buf + *len, *cap - *len - 1);
      if (r > 0)
        {
          *len += (size_t)r;
          continue;
        }
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0 && errno == EAGAIN)
        return 1;
      return 0;
    }
}

int
tu_run (const struct tu_cmd *cmd, struct tu_result *res)
{
  memset (res, 0, sizeof *res);
  int in[2], out[2], err[2];
  if (pipe2 (in, O_CLOEXEC) != 0)
    return -errno;
  if (pipe2 (out, O_CLOEXEC) != 0)
    {
      int e = errno;
      close (in[0]);
      close (in[1]);
      return -e;
    }
  if (pipe2 (err, O_CLOEXEC) != 0)
    {
      int e = errno;
      close (in[0]);
      close (in[1]);
      close (out[0]);
      close (out[1]);
      return -e;
    }
  char **env = child_env (cmd->env_set);
  struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
  sigaction (SIGPIPE, &ign, &old_pipe);
  uint64_t t0 = tu_now_ns ();
  pid_t pid = env ? fork () : -1;
  if (pid == 0)
    {
      setpgid (0, 0);
      dup2 (in[0], 0);
      dup2 (out[1], 1);
      dup2 (err[1], 2);
      signal (SIGPIPE, SIG_DFL);
      execvpe (cmd->argv[0], cmd->argv, env);
      static const char msg[] = "tu_run: exec failed\n";
      (void)!write (2, msg, sizeof msg - 1);
      _exit (127);
    }
  int fork_errno = pid < 0 ? (env ? errno : ENOMEM) : 0;
  free (env);
  close (in[0]);
  close (out[1]);
  close (err[1]);
  if (pid < 0)
    {
      close (in[1]);
      close (out[0]);
      close (err[0]);
      sigaction (SIGPIPE, &old_pipe, NULL);
      return -fork_errno;
    }
  fcntl (in[1], F_SETFL, O_NONBLOCK);
  fcntl (out[0], F_SETFL, O_NONBLOCK);
  fcntl (err[0], F_SETFL, O_NONBLOCK);

  const uint8_t *sin = cmd->stdin_data;
  size_t sin_left = sin ? cmd->stdin_len : 0;
  int in_fd = in[1];
  if (sin_left == 0)
    {
      close (in_fd);
      in_fd = -1;
    }
  size_t out_cap = 0, err_cap = 0;
  int out_open = 1, err_open = 1, status = 0, reaped = 0;
  uint64_t limit_ns = (uint64_t)(cmd->timeout_ms ? cmd->timeout_ms : 30000)
                      * 1000000u;
  while (!reaped || out_open || err_open)
    {
      struct pollfd p[3];
      int np = 0;
      if (out_open)
        p[np++] = (struct pollfd){ .fd = out[0], .events = POLLIN };
      if (err_open)
        p[np++] = (struct pollfd){ .fd = err[0], .events = POLLIN };
      if (in_fd >= 0)
        p[np++] = (struct pollfd){ .fd = in_fd, .events = POLLOUT };
      poll (p, (nfds_t)np, reaped ? 0 : 20);
      if (out_open)
        out_open = drain (out[0], &res->out, &res->out_len, &out_cap);
      if (err_open)
        err_open = drain (err[0], &res->err, &res->err_len, &err_cap);
      if (in_fd >= 0)
        {
          ssize_t w = write (in_fd, sin, sin_left);
          if (w > 0)
            {
              sin += w;
              sin_left -= (size_t)w;
            }
          if (sin_left == 0 || (w < 0 && errno != EAGAIN && errno != EINTR))
            {
              close (in_fd);
              in_fd = -1;
            }
        }
      if (!reaped && waitpid (pid, &status, WNOHANG) == pid)
        {
          reaped = 1;
          /* A grandchild may hold the pipes open: after the child is gone,
             take what is already there and stop.  */
          if (out_open)
            drain (out[0], &res->out, &res->out_len, &out_cap);
          if (err_open)
            drain (err[0], &res->err, &res->err_len, &err_cap);
          out_open = err_open = 0;
        }
      if (!reaped && tu_now_ns () - t0 > limit_ns)
        {
          res->timed_out = 1;
          kill (-pid, SIGKILL);
          kill (pid, SIGKILL);
          waitpid (pid, &status, 0);
          reaped = 1;
          out_open = err_open = 0;
        }
    }
  if (in_fd >= 0)
    close (in_fd);
  close (out[0]);
  close (err[0]);
  sigaction (SIGPIPE, &old_pipe, NULL);
  res->elapsed_ns = tu_now_ns () - t0;
  if (!res->out)
    res->out = calloc (1, 1);
  if (!res->err)
    res->err = calloc (1, 1);
  if (!res->out || !res->err)
    {
      tu_result_free (res);
      return -ENOMEM;
    }
  res->out[res->out_len] = 0;
  res->err[res->err_len] = 0;
  if (WIFEXITED (status))
    {
      res->exited = 1;
      res->exit_code = WEXITSTATUS (status);
    }
  else if (WIFSIGNALED (status))
    {
      res->signaled = 1;
      res->term_signal = WTERMSIG (status);
    }
  return 0;
}

void
tu_result_free (struct tu_result *res)
{
  free (res->out);
  free (res->err);
  res->out = res->err = NULL;
  res->out_len = res->err_len = 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pty_harness.h -- run a program on the slave side of a pseudo-terminal
 * with libemlat-tty.so preloaded, type into it and read what it prints, for
 * the tests in tests/tty/.  Header-only: each test_*.c is built alone.
 *
 * Invariants: the child never outlives ph_finish (SIGKILL after its
 * timeout); everything the child prints is read from the master (so output
 * never blocks it) except while a test deliberately stops reading; the
 * child's environment is the test's plus exactly the entries given.
 */
#ifndef EMLAT_TTY_PTY_HARNESS_H
#define EMLAT_TTY_PTY_HARNESS_H

#include "tap.h"
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

struct ph_child
{
  pid_t pid;
  int master;
  char out[1 << 16]; /* the tail of what was read, NUL-terminated */
  size_t out_len;
  size_t cursor;     /* ph_expect searches from here */
  uint64_t total;    /* bytes read from the master */
};

/* Absolute path of a file in the build directory (heap). */
static inline char *
ph_build_abs (const char *rel)
{
  char *p = tu_build_path (rel);
  char *abs = realpath (p, NULL);
  if (abs)
    {
      free (p);
      return abs;
    }
  return p;
}

/* Start ARGV (argv[0] a path) in a new 24x80 PTY with ENV_SET entries
   ("NAME=VALUE") added to the environment.  0 or -1 (reported). */
static inline int
ph_spawn (struct ph_child *c, char *const argv[], char *const env_set[])
{
  memset (c, 0, sizeof *c);
  struct winsize ws = { .ws_row = 24, .ws_col = 80 };
  pid_t pid = forkpty (&c->master, NULL, NULL, &ws);
  if (pid < 0)
    {
      CHECK (0, "forkpty: %s", strerror (errno));
      return -1;
    }
  if (pid == 0)
    {
      for (size_t i = 0; env_set && env_set[i]; i++)
        putenv (env_set[i]);
      execv (argv[0], argv);
      _exit (127);
    }
  c->pid = pid;
  return 0;
}

/* Read what is available from the master within TIMEOUT_MS.  Returns the
   bytes read, 0 on timeout, -1 at end (child side closed). */
static inline ssize_t
ph_pump (struct ph_child *c, int timeout_ms)
{
  struct pollfd p = { .fd = c->master, .events = POLLIN };
  int r = poll (&p, 1, timeout_ms);
  if (r <= 0)
    return 0;
  char buf[4096];
  ssize_t n = read (c->master, buf, sizeof buf);
  if (n <= 0)
    return -1;
  c->total += (uint64_t)n;
  if (c->out_len + (size_t)n >= sizeof c->out)
    {
      /* Keep the tail: drop the searched part. */
      size_t drop = c->out_len / 2;
      memmove (c->out, c->out + drop, c->out_len - drop);
      c->out_len -= drop;
      c->cursor = c->cursor > drop ? c->cursor - drop : 0;
    }
  memcpy (c->out + c->out_len, buf, (size_t)n);
  c->out_len += (size_t)n;
  c->out[c->out_len] = '\0';
  return n;
}

/* Read until PAT appears after the cursor (then move the cursor past it),
   or TIMEOUT_MS passes.  1 found, 0 not (reported). */
static inline int
ph_expect (struct ph_child *c, const char *pat, int timeout_ms)
{
  uint64_t end = tu_now_ns () + (uint64_t)timeout_ms * 1000000u;
  for (;;)
    {
      char *hit = memmem (c->out + c->cursor, c->out_len - c->cursor, pat,
                          strlen (pat));
      if (hit)
        {
          c->cursor = (size_t)(hit - c->out) + strlen (pat);
          return 1;
        }
      uint64_t now = tu_now_ns ();
      if (now >= end)
        break;
      if (ph_pump (c, (int)((end - now) / 1000000u) + 1) < 0)
        break;
    }
  CHECK (0, "expected \"%s\" from the program; it printed \"%.200s\"", pat,
         c->out + c->cursor);
  return 0;
}

static inline void
ph_send (struct ph_child *c, const char *s, size_t n)
{
  while (n > 0)
    {
      ssize_t w = write (c->master, s, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          CHECK (0, "write to the pty master: %s", strerror (errno));
          return;
        }
      s += w;
      n -= (size_t)w;
    }
}

static inline void
ph_sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* Drain output until the child exits or TIMEOUT_MS passes (then SIGKILL).
   Returns the child's exit code, or -1 (reported). */
static inline int
ph_finish (struct ph_child *c, int timeout_ms)
{
  uint64_t end = tu_now_ns () + (uint64_t)timeout_ms * 1000000u;
  int st = 0;
  for (;;)
    {
      pid_t w = waitpid (c->pid, &st, WNOHANG);
      if (w == c->pid)
        break;
      if (tu_now_ns () >= end)
        {
          kill (c->pid, SIGKILL);
          waitpid (c->pid, &st, 0);
          CHECK (0, "child did not exit within %d ms", timeout_ms);
          close (c->master);
          return -1;
        }
      if (ph_pump (c, 20) < 0)
        ph_sleep_ms (5);
    }
  while (ph_pump (c, 0) > 0)
    ;
  close (c->master);
  if (!WIFEXITED (st))
    {
      CHECK (0, "child died of signal %d", WIFSIGNALED (st) ? WTERMSIG (st) : 0);
      return -1;
    }
  return WEXITSTATUS (st);
}

/* The environment entries that turn tracing on into FILE, plus EXTRA and
   EXTRA2 (each may be NULL), in a static array valid until the next call. */
static inline char *const *
ph_trace_env2 (const char *file, const char *extra, const char *extra2)
{
  static char *env[7];
  static char *lib, *fentry;
  free (lib);
  free (fentry);
  char *so = ph_build_abs ("libemlat-tty.so");
  lib = tu_strf ("LD_PRELOAD=%s", so);
  free (so);
  fentry = tu_strf ("EMLAT_FILE=%s", file);
  size_t n = 0;
  env[n++] = lib;
  env[n++] = (char *)"EMLAT_TRACE=1";
  env[n++] = fentry;
  env[n++] = (char *)"TERM=xterm";
  if (extra)
    env[n++] = (char *)extra;
  if (extra2)
    env[n++] = (char *)extra2;
  env[n] = NULL;
  return env;
}

/* The same with one extra entry at most. */
static inline char *const *
ph_trace_env (const char *file, const char *extra)
{
  return ph_trace_env2 (file, extra, NULL);
}

#endif /* EMLAT_TTY_PTY_HARNESS_H */

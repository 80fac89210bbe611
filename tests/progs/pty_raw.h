/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pty_raw.h -- what the pty_* test programs share: raw mode on the terminal
 * (so the line discipline neither echoes nor buffers: every output byte is
 * one the program wrote), millisecond sleeps and a complete write.
 * Header-only so each pty_*.c builds as one program.
 */
#ifndef EMLAT_PTY_RAW_H
#define EMLAT_PTY_RAW_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static inline int pty_raw_mode (int fd)
{
  struct termios t;
  if (tcgetattr (fd, &t))
    return -1;
  cfmakeraw (&t);
  return tcsetattr (fd, TCSANOW, &t);
}

static inline void pty_sleep_ms (unsigned ms)
{
  struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) && errno == EINTR)
    ;
}

/* Write all N bytes of P; returns 0 or -1. */
static inline int pty_write_all (int fd, const void *p, size_t n)
{
  const char *c = p;
  while (n)
    {
      ssize_t w = write (fd, c, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return -1;
      c += w;
      n -= (size_t)w;
    }
  return 0;
}

#endif /* EMLAT_PTY_RAW_H */

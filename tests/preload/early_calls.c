/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * early_calls.c -- a shared object whose constructor makes the calls a
 * key runs (read, write, poll, select) and __read_chk and writev on a
 * pipe, for tests/tty/test_tty_process.c.  Preloaded after
 * libemlat-tty.so, its constructor runs before the library's, when the
 * library's real-function slots still hold their stand-ins (the first
 * four) or nothing (the others; src/tty/tty_real.c): each call must reach
 * the real function and return its result.
 *
 * Prints "EARLY OK\r\n" on descriptor 1, or "EARLY BAD <call>\r\n" and
 * exits with status 3 at the first call that went wrong.
 *
 * Invariant: only the descriptors of its own pipe are read or polled.
 */
#include <poll.h>
#include <string.h>
#include <sys/select.h>
#include <sys/uio.h>
#include <unistd.h>

ssize_t __read_chk (int fd, void *buf, size_t n, size_t buflen);

static void
early_say (const char *s)
{
  (void)!write (1, s, strlen (s));
}

static void
early_bad (const char *what)
{
  early_say ("EARLY BAD ");
  early_say (what);
  early_say ("\r\n");
  _exit (3);
}

__attribute__ ((constructor)) static void
early_calls (void)
{
  int p[2];
  if (pipe (p) != 0)
    early_bad ("pipe");
  struct pollfd pf = { .fd = p[0], .events = POLLIN };
  if (poll (&pf, 1, 0) != 0)
    early_bad ("poll (empty)");
  fd_set rs;
  FD_ZERO (&rs);
  FD_SET (p[0], &rs);
  struct timeval tv = { 0, 0 };
  if (select (p[0] + 1, &rs, NULL, NULL, &tv) != 0)
    early_bad ("select (empty)");
  if (write (p[1], "abc", 3) != 3)
    early_bad ("write");
  struct iovec iov[2] = { { (void *)"de", 2 }, { (void *)"f", 1 } };
  if (writev (p[1], iov, 2) != 3)
    early_bad ("writev");
  if (poll (&pf, 1, 1000) != 1 || !(pf.revents & POLLIN))
    early_bad ("poll (ready)");
  FD_ZERO (&rs);
  FD_SET (p[0], &rs);
  tv.tv_sec = 1;
  if (select (p[0] + 1, &rs, NULL, NULL, &tv) != 1 || !FD_ISSET (p[0], &rs))
    early_bad ("select (ready)");
  char buf[8] = { 0 };
  if (read (p[0], buf, 3) != 3 || memcmp (buf, "abc", 3) != 0)
    early_bad ("read");
  if (__read_chk (p[0], buf, 3, sizeof buf) != 3 || memcmp (buf, "def", 3) != 0)
    early_bad ("__read_chk");
  close (p[0]);
  close (p[1]);
  early_say ("EARLY OK\r\n");
}

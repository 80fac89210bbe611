/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pty_winch.c -- a terminal program that reports window size changes, for
 * replay tests.
 *
 *   pty_winch LOG_FILE
 *
 * Raw mode.  On every SIGWINCH it reads the size (TIOCGWINSZ), prints
 * "size ROWSxCOLS\r\n" and appends the same line (without CR) to LOG_FILE.
 * Key presses are answered with "x"; 'q' or end of file ends it.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "pty_raw.h"

static volatile sig_atomic_t winch; /* set by the handler, cleared by main */

static void on_winch (int sig)
{
  (void)sig;
  winch = 1;
}

int main (int argc, char **argv)
{
  struct sigaction sa;
  if (argc != 2)
    {
      fprintf (stderr, "usage: pty_winch LOG_FILE\n");
      return 2;
    }
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_winch;
  sigaction (SIGWINCH, &sa, NULL);
  /* SIGWINCH is blocked except inside ppoll, so none is missed between the
     flag check and the wait. */
  sigset_t block, waitmask;
  sigemptyset (&block);
  sigaddset (&block, SIGWINCH);
  sigprocmask (SIG_BLOCK, &block, &waitmask);
  sigdelset (&waitmask, SIGWINCH);
  if (pty_raw_mode (0))
    return 2;
  for (;;)
    {
      if (winch)
        {
          struct winsize ws;
          char line[64];
          winch = 0;
          if (ioctl (0, TIOCGWINSZ, &ws) == 0)
            {
              int n = snprintf (line, sizeof line, "size %ux%u\r\n",
                                (unsigned)ws.ws_row, (unsigned)ws.ws_col);
              pty_write_all (1, line, (size_t)n);
              FILE *f = fopen (argv[1], "a");
              if (f)
                {
                  fprintf (f, "size %ux%u\n", (unsigned)ws.ws_row,
                           (unsigned)ws.ws_col);
                  fclose (f);
                }
            }
        }
      struct pollfd p = { 0, POLLIN, 0 };
      if (ppoll (&p, 1, NULL, &waitmask) < 0)
        continue; /* EINTR: a SIGWINCH */
      char in[256];
      ssize_t r = read (0, in, sizeof in);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0 || memchr (in, 'q', (size_t)r))
        return 0;
      pty_write_all (1, "x", 1);
    }
}

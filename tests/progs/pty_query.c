/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pty_query.c -- a terminal program that queries the terminal at start-up
 * the way Emacs 28 does under TERM=xterm*, for replay tests.
 *
 *   pty_query REPORT_FILE
 *
 * Raw mode.  It sends the secondary device-attributes request (ESC [ > 0 c)
 * and reads until the answer's final 'c' or 2 s pass; any other byte that
 * arrives meanwhile is swallowed (counted), as Emacs swallows keys typed
 * while it waits.  Then it moves the cursor to row 5, column 10 and asks
 * for the cursor position (ESC [ 6 n), then for the text area size
 * (ESC [ 18 t).  It writes what it got to REPORT_FILE:
 *   da2=<the answer's parameters or "none">
 *   cpr=<row;col or "none">
 *   size=<rows;cols or "none">
 *   swallowed=<bytes>
 * and then prints "ready\r\n" and answers every read batch with "x" until
 * 'q' or end of file.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>

#include "pty_raw.h"

static size_t swallowed;

/* Send Q, then collect the reply that starts with PREFIX and ends with
   FINAL into OUT (parameters only).  Returns 0 or -1 after 2 s. */
static int ask (const char *q, const char *prefix, char final, char *out,
                size_t out_size)
{
  size_t plen = strlen (prefix), got = 0, k = 0;
  pty_write_all (1, q, strlen (q));
  for (;;)
    {
      struct pollfd p = { 0, POLLIN, 0 };
      if (poll (&p, 1, 2000) <= 0)
        {
          snprintf (out, out_size, "none");
          return -1;
        }
      char c;
      if (read (0, &c, 1) != 1)
        return -1;
      if (got < plen)
        {
          if (c == prefix[got])
            got++;
          else
            {
              swallowed += got + 1;
              got = (c == prefix[0]);
              if (got)
                swallowed--;
            }
          continue;
        }
      if (c == final)
        {
          out[k] = 0;
          return 0;
        }
      if (k + 1 < out_size)
        out[k++] = c;
    }
}

int main (int argc, char **argv)
{
  char da2[64], cpr[64], size[64];
  if (argc != 2)
    {
      fprintf (stderr, "usage: pty_query REPORT_FILE\n");
      return 2;
    }
  if (pty_raw_mode (0))
    return 2;
  ask ("\033[>0c", "\033[>", 'c', da2, sizeof da2);
  ask ("\033[5;10H\033[6n", "\033[", 'R', cpr, sizeof cpr);
  ask ("\033[18t", "\033[8;", 't', size, sizeof size);
  FILE *f = fopen (argv[1], "w");
  if (!f)
    return 1;
  fprintf (f, "da2=%s\ncpr=%s\nsize=%s\nswallowed=%zu\n", da2, cpr, size,
           swallowed);
  fclose (f);
  pty_write_all (1, "ready\r\n", 7);
  for (;;)
    {
      char in[256];
      ssize_t r = read (0, in, sizeof in);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0 || memchr (in, 'q', (size_t)r))
        return 0;
      pty_write_all (1, "x", 1);
    }
}

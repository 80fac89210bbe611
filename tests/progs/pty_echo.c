/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pty_echo.c -- a terminal program with known timing, for replay tests.
 *
 *   pty_echo [-d DELAY_MS] [-n BYTES] [-c CHUNKS] [-g GAP_MS] [-r]
 *
 * Raw mode.  For every read batch from the terminal it waits DELAY_MS
 * (default 0), then writes BYTES bytes (default 1) of 'x' in CHUNKS writes
 * (default 1) separated by GAP_MS (default 0).  So an external observer sees
 * first output >= DELAY_MS after a key and the last byte >= DELAY_MS +
 * (CHUNKS-1)*GAP_MS after it.  -r prints "pty_echo ready\r\n" at start.
 * A batch containing 'q', end of file or a read error ends it with status 0.
 */
#include <stdio.h>

#include "pty_raw.h"

int main (int argc, char **argv)
{
  unsigned delay = 0, bytes = 1, chunks = 1, gap = 0;
  int ready = 0, c;
  while ((c = getopt (argc, argv, "d:n:c:g:r")) != -1)
    switch (c)
      {
      case 'd': delay = (unsigned)atoi (optarg); break;
      case 'n': bytes = (unsigned)atoi (optarg); break;
      case 'c': chunks = (unsigned)atoi (optarg); break;
      case 'g': gap = (unsigned)atoi (optarg); break;
      case 'r': ready = 1; break;
      default:
        fprintf (stderr, "usage: pty_echo [-d MS] [-n BYTES] [-c CHUNKS] [-g MS] [-r]\n");
        return 2;
      }
  if (chunks == 0 || chunks > bytes)
    chunks = bytes ? bytes : 1;
  if (pty_raw_mode (0))
    {
      perror ("pty_echo: not a terminal");
      return 2;
    }
  if (ready && pty_write_all (1, "pty_echo ready\r\n", 16))
    return 1;
  char *out = malloc (bytes ? bytes : 1);
  if (!out)
    return 1;
  memset (out, 'x', bytes ? bytes : 1);
  for (;;)
    {
      char in[256];
      ssize_t r = read (0, in, sizeof in);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return 0;
      if (memchr (in, 'q', (size_t)r))
        return 0;
      pty_sleep_ms (delay);
      size_t per = bytes / chunks, done = 0;
      for (unsigned k = 0; k < chunks; k++)
        {
          size_t n = k + 1 == chunks ? bytes - done : per;
          if (k)
            pty_sleep_ms (gap);
          if (pty_write_all (1, out + done, n))
            return 1;
          done += n;
        }
    }
}

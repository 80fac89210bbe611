/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pty_die.c -- a terminal program that dies, for replay tests.
 *
 *   pty_die N [abort]
 *
 * Raw mode; answers each of the first N read batches with "k\r\n", then
 * exits with status 3 (or, with "abort", dies of SIGABRT) without reading
 * any further input.
 */
#include <signal.h>
#include <stdio.h>

#include "pty_raw.h"

int main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: pty_die N [abort]\n");
      return 2;
    }
  int n = atoi (argv[1]);
  int do_abort = argc > 2 && strcmp (argv[2], "abort") == 0;
  pty_raw_mode (0);
  for (int i = 0; i < n; i++)
    {
      char in[64];
      ssize_t r = read (0, in, sizeof in);
      if (r < 0 && errno == EINTR)
        {
          i--;
          continue;
        }
      if (r <= 0)
        return 0;
      pty_write_all (1, "k\r\n", 3);
    }
  if (do_abort)
    {
      signal (SIGABRT, SIG_DFL);
      abort ();
    }
  return 3;
}

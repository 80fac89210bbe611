/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pty_hang.c -- a terminal program that hangs, for replay tests: it ignores
 * SIGHUP, SIGTERM, SIGINT and SIGQUIT, never reads, and sleeps until
 * SIGKILL.  It prints "hanging\r\n" once at start.
 */
#include <signal.h>

#include "pty_raw.h"

int main (void)
{
  signal (SIGHUP, SIG_IGN);
  signal (SIGTERM, SIG_IGN);
  signal (SIGINT, SIG_IGN);
  signal (SIGQUIT, SIG_IGN);
  pty_raw_mode (0);
  pty_write_all (1, "hanging\r\n", 9);
  for (;;)
    pause ();
}

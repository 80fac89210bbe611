/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fntrace.c -- automatic function tracing: a program compiled with
 * -finstrument-functions and linked with libemlat records the entry and
 * exit of every one of its functions (docs/API.md "Function tracing"),
 * without a single call of its own but EMLAT_AUTOSTART.
 *
 *   make examples       (builds build/examples/fntrace with
 *                        -finstrument-functions)
 *   EMLAT_TRACE=1 EMLAT_FILE=/tmp/fn.emlat build/examples/fntrace
 *   emlat report --symbols build/examples/fntrace /tmp/fn.emlat
 *   emlat export --format=chrome --symbols build/examples/fntrace \
 *       -o fn.json /tmp/fn.emlat
 *
 * The profile holds module-relative addresses and the module's build id;
 * the names come from the binary given to --symbols when the profile is
 * read.  A stripped binary shows module+offset.
 */
#include <stdio.h>
#include <stdlib.h>

#include <emlat/emlat.h>

EMLAT_AUTOSTART ();

__attribute__ ((noinline)) static long
fib (int n)
{
  return n < 2 ? n : fib (n - 1) + fib (n - 2);
}

__attribute__ ((noinline)) static int
parse (const char *s)
{
  return atoi (s);
}

__attribute__ ((noinline)) static long
compute (int n)
{
  long sum = 0;
  for (int i = 0; i < 3; i++)
    sum += fib (n);
  return sum;
}

__attribute__ ((noinline)) static void
render (int n, long v)
{
  printf ("3 x fib(%d) = %ld\n", n, v);
}

int
main (int argc, char **argv)
{
  int n = parse (argc > 1 ? argv[1] : "12");
  render (n, compute (n));
  return 0;
}

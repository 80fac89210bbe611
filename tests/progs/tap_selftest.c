/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tap_selftest.c -- a helper program for tests/unit/test_testlib.c that uses
 * tests/lib/tap.h the way a test does, so that the test can assert what a
 * passing, a failing and a skipping test print and return.
 *
 *   tap_selftest pass   every check holds: exit 0, summary "0 failed"
 *   tap_selftest fail   one failing check of each kind: exit 1, each failure
 *                       names file:line and shows both values
 *   tap_selftest skip   exit 77 with the reason on stdout
 */
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int
returns_enoent (void)
{
  return -ENOENT;
}

int
main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp (mode, "skip") == 0)
    TEST_SKIP ("no frobnicator on this machine");
  int fail = strcmp (mode, "fail") == 0;
  if (!fail && strcmp (mode, "pass") != 0)
    {
      fprintf (stderr, "usage: tap_selftest pass|fail|skip\n");
      return 2;
    }
  /* Each argument is evaluated once even when the check fails. */
  int evaluated = 0;
  CHECK_EQ_U64 (++evaluated, 1);
  CHECK (evaluated == 1, "argument evaluated %d times", evaluated);

  uint64_t big = 18446744073709551615u;
  CHECK_EQ_U64 (big, fail ? 42u : big);
  CHECK_EQ_I64 (-5, fail ? 5 : -5);
  CHECK_LE_U64 (fail ? 7u : 3u, 4u);
  CHECK_EQ_STR ("alpha\n", fail ? "beta" : "alpha\n");
  static const unsigned char a[32] = { 1, 2, 3 };
  unsigned char b[32] = { 1, 2, 3 };
  if (fail)
    b[20] = 0xab;
  CHECK_EQ_MEM (a, b, sizeof a);
  CHECK_CONTAINS ("needle in a haystack", fail ? "thread" : "needle");
  CHECK (fail ? 1 + 1 == 3 : 1 + 1 == 2, "arithmetic says %d", 1 + 1);
  if (fail)
    CHECK_OK (returns_enoent ());
  else
    CHECK_OK (0);
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * autostart.c -- a program that opts in to tracing from the environment
 * at load (EMLAT_AUTOSTART, emlat.h), for tests/record/test_env_start.c:
 * it records three named sections and exits without calling emlat_stop;
 * the library stops the session at exit.  Exit status: 1 when tracing was
 * on (emlat_active), 0 when off.
 */
#include "emlat/emlat.h"

EMLAT_AUTOSTART ();

int
main (void)
{
  for (int i = 0; i < 3; i++)
    {
      EMLAT_SCOPE ("auto");
    }
  return emlat_active () ? 1 : 0;
}

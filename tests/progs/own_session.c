/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * own_session.c -- a program that records a profile of its own, as the
 * profiled Emacs does (emacs/src/latency.c, latency_start): it starts a
 * session into the file named by its first argument, with
 * EMLAT_OPT_DEFER_FINISH when emlat_finish_requested () and
 * EMLAT_OPT_DRIVER_DRAINS when emlat_drain_requested (), records three named
 * sections and stops.  For tests/replay/test_replay_finish.c, under
 * `emlat replay` and `emlat record`.  Exit status: 0, or 2 when the session did not start.
 */

#include "emlat/emlat.h"

int
main (int argc, char **argv)
{
  if (argc < 2)
    return 2;
  struct emlat_options opt = { .path = argv[1] };
  if (emlat_finish_requested ())
    opt.flags |= EMLAT_OPT_DEFER_FINISH;
  if (emlat_drain_requested ())
    opt.flags |= EMLAT_OPT_DRIVER_DRAINS; /* `emlat replay` drains it */
  if (emlat_start (&opt) != 0)
    return 2;
  for (int i = 0; i < 3; i++)
    {
      EMLAT_SCOPE ("own");
    }
  return emlat_stop () == 0 ? 0 : 2;
}

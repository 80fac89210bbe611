/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * drain.h -- the driver as the writer (docs/DESIGN.md section 8.7): a
 * process that created a program's profile and runs the program (`emlat
 * record`, `emlat replay --interpose`, with EMLAT_FINISH=drain:OUR_PID)
 * drains the program's rings from the program's ring file while the
 * program records, so that the program runs no writer thread; also a
 * session the program started on a profile it named itself (`emlat
 * replay` of a profiled Emacs), found by the program's process id.  Internal:
 * used by the command, not exported.
 *
 * The drainer is a thread of the driver.  It waits (inotify, no polling)
 * until the program's session created its ring file in /dev/shm, opens it
 * with the drainers' lock (ringfile.h), waits for the session's first
 * checkpoint, writes the profile's start that the session kept in the
 * ring file (the program writes nothing into its profile: FORMAT.md
 * F-106), and then runs the writer's own loop (writer.c) on it:
 * passes at high water, at a thread's exit and at a flush of the program,
 * checkpoints after each, resource samples of the program from /proc.
 * When the program stops its session, or emlat_drainer_stop is called
 * (the program exited), it ends after its last checkpoint and leaves the
 * rest to emlat_recover, as at any deferred finish.  Without a driven
 * session (the program drains itself, or records nothing) it does
 * nothing.
 *
 * Invariants: the drainer never writes the profile before the program's
 * first checkpoint nor after emlat_drainer_stop returned; it trusts
 * nothing in the ring file but what the writer validates.
 */
#ifndef EMLAT_RECORD_DRAIN_H
#define EMLAT_RECORD_DRAIN_H

#include <sys/types.h>

struct emlat_drainer;

/* What a drainer did, for the driver's summary. */
struct emlat_drain_result
{
  int attached;            /* it drained a driven session */
  unsigned long long passes, wakeups;
  unsigned long long writer_cpu_ns; /* the drainer thread's CPU time */
  int error;               /* 0, or why it could not attach (negative
                              errno; -EPERM: the program drains itself,
                              -ENOENT: it made no ring file) */
};

/* Start draining PROFILE (created by the caller for its child PID) in a
   new thread; with PROFILE NULL, the profile of the first driven session
   that PID starts with a path of its own choosing (a profiled Emacs's
   --latency-profile=FILE): found by its ring file in /dev/shm.  Call it
   after fork (a child of a multi-threaded process may only exec).
   Returns 0 and *OUT, or a negative errno (nothing started). */
int emlat_drainer_start (const char *profile, pid_t pid, struct emlat_drainer **out);

/* Stop draining (the program exited, or the caller gives up): the drainer
   ends after the pass it is in, its last checkpoint saved, the profile
   and ring file closed; then D is freed.  The caller finishes the profile
   with emlat_recover.  RES (may be NULL) receives what it did. */
void emlat_drainer_stop (struct emlat_drainer *d, struct emlat_drain_result *res);

#endif /* EMLAT_RECORD_DRAIN_H */

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * demo_workload.h -- the synthetic interactive workload `emlat demo` records:
 * a simulated terminal editor session of a few seconds, recorded through the
 * public producer API (include/emlat/emlat.h) only.
 *
 * The structure of the session (which commands run, in which order, with
 * which keys, batches and statuses) depends only on the seed; the durations
 * are real (CPU burnt, sleeps taken) and so vary from run to run.  The tally
 * counts what the workload asked the recorder to record, so a test can
 * compare it with what a reader finds in the file.
 */
#ifndef EMLAT_DEMO_WORKLOAD_H
#define EMLAT_DEMO_WORKLOAD_H

#include <stdint.h>

#include "emlat/emlat_types.h"

struct demo_tally
{
  uint64_t interactions;
  uint64_t by_kind[EMLAT_ROOT_KIND_MAX + 1]; /* indexed by root kind */
  uint64_t by_status[EMLAT_STATUS_MAX + 1];  /* indexed by status */
  uint64_t spans;          /* spans begun */
  uint64_t spans_unwound;  /* spans left for an enclosing end to unwind */
  uint64_t input_batches;
  uint64_t input_bytes;
  uint64_t flushed;        /* interactions that reached a terminal flush */
  uint64_t threads;        /* threads that recorded */
};

/* The seed `emlat demo` uses unless told otherwise. */
#define DEMO_DEFAULT_SEED 0x656d6c6174646d6fu /* "emlatdmo" */

/* Run the workload into the active session.  Returns 0, or a negative errno
   value when a resource the simulation needs (the /dev/null output stream,
   the second thread) cannot be had. */
int demo_workload_run (uint64_t seed, struct demo_tally *tally);

#endif /* EMLAT_DEMO_WORKLOAD_H */

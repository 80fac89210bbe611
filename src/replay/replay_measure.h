/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_measure.h -- what `emlat replay` measures from the master side, and
 * how it goes into the profile.
 *
 * One observation per measured send (a keystroke, a pasted chunk or a
 * resize).  Output is attributed to the most recent send:
 *   first output = when the driver saw the first output byte after the send
 *                  (poll returned readable; before the read);
 *   quiescence   = the time of the last output byte before a gap of QUIET_NS
 *                  with no output, when that gap ends before the next send.
 * A send whose output has not gone quiet when the next one is sent is
 * "superseded": its quiescence is absent, its status SUPERSEDED.  A send
 * with no output before the next one has neither time.  Output seen while
 * no send is open (after quiescence) is counted as unattributed.
 *
 * Each observation is one interaction in the profile (root kind
 * SYNTHETIC_COMMAND, or RESIZE for a resize) with the EXTERNAL_* time
 * fields and the TTY_BYTES counter; without an active session the emlat_*
 * calls do nothing and the measurement is unchanged.
 */
#ifndef EMLAT_REPLAY_MEASURE_H
#define EMLAT_REPLAY_MEASURE_H

#include <stddef.h>
#include <stdint.h>

enum replay_obs_state { REPLAY_OBS_OPEN, REPLAY_OBS_QUIET,
                        REPLAY_OBS_SUPERSEDED, REPLAY_OBS_UNFINISHED };

struct replay_obs
{
  uint64_t t_sched;   /* when the schedule wanted the send */
  uint64_t t_send;    /* just before the write that carried its first byte;
                         0 while still queued */
  uint64_t t_first;   /* 0: no output */
  uint64_t t_last;
  uint64_t out_bytes;
  uint64_t cause;     /* interaction id in the profile, 0 without a session */
  uint32_t sent_bytes;
  uint16_t rows, cols;/* resize only */
  uint8_t resize;
  uint8_t state;      /* enum replay_obs_state */
};

struct replay_measure
{
  struct replay_obs *v;
  size_t n, cap;
  size_t open;              /* index + 1 of the open observation, or 0 */
  uint64_t quiet_ns;
  uint64_t unattributed_bytes;
  uint64_t output_bytes;
};

void replay_measure_init (struct replay_measure *m, uint64_t quiet_ns);
void replay_measure_free (struct replay_measure *m);

/* A new send is about to be written: closes the open observation and opens
   one.  Returns its index, or -1 when out of memory. */
long replay_measure_begin (struct replay_measure *m, uint64_t t_sched,
                           uint32_t sent_bytes, int resize, unsigned rows,
                           unsigned cols);

/* The first byte of observation I went out at T. */
void replay_measure_sent (struct replay_measure *m, long i, uint64_t t);

/* N output bytes seen at T. */
void replay_measure_output (struct replay_measure *m, uint64_t t, size_t n);

/* Close the open observation if its output has been quiet long enough by
   NOW.  Returns when the open observation will go quiet without more
   output, or UINT64_MAX. */
uint64_t replay_measure_tick (struct replay_measure *m, uint64_t now);

/* The run ends: close the open observation (quiet if its gap has passed,
   else unfinished). */
void replay_measure_finish (struct replay_measure *m, uint64_t now);

/* Summary statistics of one latency population, in nanoseconds. */
struct replay_dist
{
  size_t n;
  uint64_t min, median, p90, p99, max;
};

enum replay_metric { REPLAY_M_FIRST, REPLAY_M_QUIET, REPLAY_M_LATENESS };
void replay_measure_dist (const struct replay_measure *m,
                          enum replay_metric which, struct replay_dist *d);

#endif /* EMLAT_REPLAY_MEASURE_H */

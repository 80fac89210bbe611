/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sample.h -- resource samples of the recording process, taken by the
 * writer thread (never by a timer or a signal in the program) and written
 * as RESOURCE records (FORMAT.md 6.10): resident set size, user and
 * system CPU time, the CPU share since the previous sample, voluntary and
 * involuntary context switches.
 *
 * When: one sample when the writer starts (the baseline), one in the
 * final pass, and in between either every sample_interval_ms (the writer
 * then sets its wait's timeout to the next sample) or, without an
 * interval, with a pass that happens anyway at least stats_interval_ms
 * after the last sample -- so a program that records nothing still costs
 * no wake-up (DESIGN.md section 8.6).
 *
 * Every value is bounded: a reading that fails, or is beyond what a
 * process can have (an RSS above the machine's memory, CPU time that goes
 * backwards, a share above every core), is absent from the sample, never
 * 0.  Writer thread only (and never in a recovering reader, which would
 * sample itself; a driver draining a live process samples that process).
 */
#ifndef EMLAT_RECORD_SAMPLE_H
#define EMLAT_RECORD_SAMPLE_H

#include <stdint.h>

#include "format/encode.h"

struct emlat_session;

/* The sampler's state in the session (writer-private). */
struct emlat_sampler
{
  uint64_t interval_ns;          /* 0: piggy-back on passes */
  uint64_t min_gap_ns;           /* without an interval: at most this often */
  uint64_t last_t;               /* time of the last sample, 0 before any */
  uint64_t last_cpu;             /* its user + sys, when it had both */
  int last_cpu_ok;
  struct emlat_enc_sample *pending; /* taken, not yet encoded */
  size_t npending, cap;
  uint64_t taken, failed_fields; /* counts for STATS */
  int pid;                       /* the process sampled: 0 for this one;
                                    else another (a driver's, DESIGN.md
                                    8.7), read from /proc/PID: RSS and CPU
                                    time (in clock ticks), no context
                                    switches (/proc gives them per thread) */
};

/* Test hook: fields (EMLAT_RES_* bits) every sample treats as failed
   readings (tests/record/test_resources.c).  0 in production. */
extern __attribute__ ((visibility ("hidden"))) _Atomic uint32_t emlat_sample_fail_mask;

void emlat_sampler_init (struct emlat_sampler *sm, uint32_t interval_ms, uint32_t stats_ms);
void emlat_sampler_free (struct emlat_sampler *sm);
/* Take a sample now (kept pending). */
void emlat_sampler_take (struct emlat_sampler *sm, uint64_t now);
/* Whether a sample is due at NOW: the period passed (with an interval),
   or, with PASSING (a pass runs anyway), the minimum gap passed. */
int emlat_sampler_due (const struct emlat_sampler *sm, uint64_t now, int passing);
/* The wait timeout until the next periodic sample (0: none). */
uint64_t emlat_sampler_timeout (const struct emlat_sampler *sm, uint64_t now);
/* In a pass: take a sample when due (always when FINAL), then encode the
   pending ones into a RESOURCE chunk.  Returns 0 or -1 (memory: the
   samples are dropped; they are not ring records). */
int emlat_sampler_encode (struct emlat_session *s, int final);

#endif /* EMLAT_RECORD_SAMPLE_H */

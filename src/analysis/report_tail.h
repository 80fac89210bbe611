/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_tail.h -- which interaction the waterfall shows, and the slowest
 * interactions (docs/REPORT.md "The tail interaction").
 *
 * The tail metric is the first of input_to_flush_max_ns,
 * external_first_output_ns, command_ns, wall_ns that at least one
 * interaction has.  The interactions having it are ordered by (value,
 * cause id); the tail is the one at the nearest-rank p99 of that order and
 * the slowest are its last REPORT_SLOWEST, slowest first.
 *
 * This is a pass of its own, cheaper than the report model (two
 * boundaries per interaction for the usual metric), so that `emlat report`
 * can fetch the tail's spans on a second thread while it builds the model.
 */
#ifndef EMLAT_ANALYSIS_REPORT_TAIL_H
#define EMLAT_ANALYSIS_REPORT_TAIL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/report_metrics.h"
#include "emlat/emlat_reader.h"

#define REPORT_SLOWEST 20

struct report_slow
{
  uint64_t cause, value;
};

struct report_tail
{
  int has;                          /* some interaction has a tail metric */
  enum report_metric metric;
  uint64_t n, rank;                 /* 1-based rank among n */
  uint64_t cause, value;
  struct report_slow slow[REPORT_SLOWEST];
  size_t n_slow;
};

/* The order of the candidate metrics. */
extern const enum report_metric emlat_report_tail_chain[4];

/* Fill *T from P.  Returns 0 or -ENOMEM. */
int emlat_report_tail_pick (const struct emlat_profile *p, struct report_tail *t);

#endif /* EMLAT_ANALYSIS_REPORT_TAIL_H */

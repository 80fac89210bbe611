/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_tail.h -- the tail pick (emlat_report.h, "tail") as a stream: the
 * interactions in any order, once each; the result is the one of
 * emlat_report_tail_pick on the same interactions, ties of value broken by
 * cause id as there.
 *
 * Memory: 16 bytes per interaction that has the tail metric (its value and
 * cause), for the pass; the p99 is then selected in place (a radix select
 * on (value, cause): linear, no scratch) and the slowest kept in a heap of
 * EMLAT_REPORT_SLOWEST while streaming.
 */
#ifndef EMLAT_ANALYSIS_REPORT_TAIL_H
#define EMLAT_ANALYSIS_REPORT_TAIL_H

#include "emlat/emlat_report.h"

struct emlat_tail_pair
{
  uint64_t value, cause;
};

struct emlat_report_tail_stream
{
  int c;                      /* index in emlat_report_tail_chain of the
                                 pairs kept; EMLAT_REPORT_TAIL_CHAIN
                                 before any */
  struct emlat_tail_pair *v;
  size_t n, cap;
  struct emlat_tail_pair slow[EMLAT_REPORT_SLOWEST]; /* a min-heap */
  size_t n_slow;
};

void emlat_report_tail_stream_init (struct emlat_report_tail_stream *ts);
/* IX of P, whose metrics are MT (emlat_report_metrics_compute).  0 or
   -ENOMEM. */
int emlat_report_tail_stream_add (struct emlat_report_tail_stream *ts,
                                  const struct emlat_profile *p,
                                  const struct emlat_interaction *ix,
                                  const struct emlat_report_metrics *mt);
/* The pick, into *T; frees what the stream kept.  0 (always). */
int emlat_report_tail_stream_end (struct emlat_report_tail_stream *ts,
                                  struct emlat_report_tail *t);
void emlat_report_tail_stream_free (struct emlat_report_tail_stream *ts);

#endif /* EMLAT_ANALYSIS_REPORT_TAIL_H */

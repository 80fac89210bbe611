/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_marks.h -- the interactions the HTML report's timeline draws,
 * collected while `emlat report` streams the profile (its first pass), in
 * memory that does not grow with the profile (docs/REPORT.md "HTML").
 *
 * Every interaction is offered once.  Up to REPORT_MARKS_MAX all are kept.
 * Past that the timeline is a sample: the REPORT_MARKS_TOP highest marks
 * (by the value they are drawn at, then cause id) always, and a uniform
 * random sample of the others (reservoir sampling, algorithm R, seeded
 * with a constant so the same profile gives the same page).  Besides the
 * sample, an aggregate of every interaction over session time:
 * REPORT_MARKS_BINS bins of equal width (doubled, neighbours merged, when
 * an interaction falls past the last), each with its count and the largest
 * drawn value.
 *
 * A mark is drawn at the first of the group lead metrics
 * (emlat_report_group_primary's order: latency_lower_ns, the headline,
 * first) the interaction has, at its start: t_input_latest (where the
 * headline starts), else t_dispatch_begin, else t_input_earliest, else
 * t_interaction_end; an interaction with none of these is counted but not
 * drawn.
 */
#ifndef EMLAT_RENDER_REPORT_MARKS_H
#define EMLAT_RENDER_REPORT_MARKS_H

#include <stddef.h>
#include <stdint.h>

#include "emlat/emlat_report.h"

#define REPORT_MARKS_MAX 20000u
#define REPORT_MARKS_TOP 1000u
#define REPORT_MARKS_BINS 512u
#define REPORT_MARKS_SEED 0x656d6c6174ull

struct report_mark
{
  uint64_t cause, thread;
  uint64_t t;              /* start, profiler clock */
  uint32_t root_kind;
  enum emlat_report_pop pop;
  int metric;              /* the metric drawn, -1 none (drawn at 0) */
  uint64_t value;          /* its value */
  struct emlat_report_times times;
};

struct report_marks
{
  uint64_t offered;        /* interactions offered */
  uint64_t undrawn;        /* without any start time */
  struct report_mark *top; /* min-heap by (value, cause), n_top <= TOP */
  size_t n_top;
  struct report_mark *res; /* the reservoir, n_res <= MAX - TOP */
  size_t n_res, cap_res;
  uint64_t res_offered;    /* marks offered to the reservoir */
  struct emlat_report_rng rng;
  int has_t;
  uint64_t t_min, t_max;   /* of every drawn interaction */
  int has_bins;
  uint64_t bin_origin, bin_width;
  uint64_t bin_n[REPORT_MARKS_BINS];
  uint64_t bin_max[REPORT_MARKS_BINS];
  int bin_has_max[REPORT_MARKS_BINS];
};

void report_marks_init (struct report_marks *k);
/* Offer IX of P.  Returns 0 or -ENOMEM. */
int report_marks_add (struct report_marks *k, const struct emlat_profile *p,
                      const struct emlat_interaction *ix);
/* The kept marks sorted by (t, cause) into *OUT (malloc'd, free it);
   returns how many, or (size_t)-1 when memory ran out. */
size_t report_marks_sorted (const struct report_marks *k, struct report_mark **out);
/* 1 when the timeline is a sample (more interactions than marks). */
int report_marks_sampled (const struct report_marks *k);
void report_marks_free (struct report_marks *k);

#endif /* EMLAT_RENDER_REPORT_MARKS_H */

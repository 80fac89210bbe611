/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_metrics.h -- the derived metrics of one interaction (seed 000
 * section 4, docs/REPORT.md "Metrics") and its population.
 *
 * An interaction's raw boundaries are first gathered into a struct
 * report_times (from a loaded profile, or from a decoded INTERACTION record
 * for `emlat export --format=jsonl`), then emlat_report_metrics_compute derives
 * every metric whose boundaries are present.  A metric is present exactly
 * when its bit is set in the mask; an absent metric has no value at all,
 * never 0.  A duration whose end precedes its start is not computed either
 * (it is counted in the inverted mask instead), except where the definition
 * itself clamps at 0 (prefix_dwell_min_ns, main_off_cpu_ns).
 *
 * Populations (docs/REPORT.md "Populations"), decided in this order:
 *   superseded  status is superseded;
 *   flushed     t_flush_end is present (a stdio flush completed its output)
 *               or t_external_first_output is (emlat replay saw output);
 *   no output   every other interaction (including open ones).
 */
#ifndef EMLAT_ANALYSIS_REPORT_METRICS_H
#define EMLAT_ANALYSIS_REPORT_METRICS_H

#include <stdint.h>

#include "emlat/emlat_reader.h"

enum report_metric {
  RM_BATCH_READY_WAIT,
  RM_INPUT_QUEUE,
  RM_KEY_DECODE,
  RM_PRE_COMMAND,
  RM_COMMAND,
  RM_POST_COMMAND,
  RM_REDISPLAY_WAIT,
  RM_REDISPLAY,
  RM_TTY_EMIT,
  RM_INPUT_TO_COMMAND_MIN,
  RM_INPUT_TO_COMMAND_MAX,
  RM_INPUT_TO_FLUSH_MIN,
  RM_INPUT_TO_FLUSH_MAX,
  RM_MAIN_CPU,
  RM_MAIN_OFF_CPU,
  RM_PREFIX_DWELL_MIN,
  RM_PREFIX_DWELL_MAX,
  RM_WALL,
  RM_INPUT_UNCERTAINTY,
  RM_EXTERNAL_FIRST_OUTPUT,
  RM_EXTERNAL_QUIESCENT,
  RM_COUNT
};

enum report_pop { POP_FLUSHED = 0, POP_NO_OUTPUT = 1, POP_SUPERSEDED = 2, POP_COUNT = 3 };

/* The raw boundaries of one interaction. */
struct report_times
{
  uint32_t status;
  uint32_t tmask;                   /* bit f: t[f] present */
  uint64_t t[EMLAT_T_FIELD_COUNT];
  int has_cpu_begin, has_cpu_end;
  uint64_t cpu_begin, cpu_end;      /* thread CPU clock readings */
};

struct report_metrics
{
  uint32_t mask;                    /* bit m: v[m] present */
  uint32_t inverted;                /* bit m: boundaries present, end < start */
  uint32_t clamped;                 /* bit m: a clamped-at-0 metric was negative */
  uint64_t v[RM_COUNT];
};

/* The metric's JSON name ("command_ns") and its short column label. */
const char *emlat_report_metric_name (enum report_metric m);
const char *emlat_report_metric_label (enum report_metric m);
/* "flushed", "no_output", "superseded" (JSON) and "flushed", "no output",
   "superseded" (text). */
const char *emlat_report_pop_key (enum report_pop p);
const char *emlat_report_pop_label (enum report_pop p);

/* Gather IX's boundaries from P. */
void emlat_report_times_from_profile (const struct emlat_profile *p,
                                const struct emlat_interaction *ix,
                                struct report_times *t);
/* Gather a decoded INTERACTION complete record's boundaries. */
void emlat_report_times_from_record (const struct emlat_rd_ix *r, struct report_times *t);

/* The boundary that ends an interaction's wall time: the latest present of
   t_root_work_end, t_redisplay_end and t_flush_end, else t_interaction_end.
   Returns 0 when none is present. */
int emlat_report_completion (const struct report_times *t, uint64_t *out);

void emlat_report_metrics_compute (const struct report_times *t, struct report_metrics *m);
enum report_pop emlat_report_population (const struct report_times *t);

#endif /* EMLAT_ANALYSIS_REPORT_METRICS_H */

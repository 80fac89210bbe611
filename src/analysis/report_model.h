/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_model.h -- everything `emlat report` and `emlat compare` compute
 * from a loaded profile before anything is printed: per root kind and
 * population, the sorted samples and the distribution of every metric;
 * per population, how often each boundary was missing.
 *
 * Root kinds outside 1..EMLAT_ROOT_KIND_MAX (damaged or newer files) are
 * counted as kind 0, "unknown".
 *
 * The tail interaction is picked separately (report_tail.h) and stored
 * in the model by the caller.
 *
 * Invariant: the model points into the profile (it does not copy it), so
 * the profile must outlive it.
 */
#ifndef EMLAT_ANALYSIS_REPORT_MODEL_H
#define EMLAT_ANALYSIS_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/report_metrics.h"
#include "analysis/report_stats.h"
#include "analysis/report_tail.h"
#include "emlat/emlat_reader.h"

#define REPORT_KINDS (EMLAT_ROOT_KIND_MAX + 1)

struct report_series
{
  uint64_t *v;          /* ascending once the model is built */
  size_t n, cap;
};

struct report_group
{
  uint32_t root_kind;
  enum report_pop pop;
  uint64_t n;                          /* interactions in the group */
  struct report_series s[RM_COUNT];
  struct report_dist d[RM_COUNT];
  uint64_t inverted[RM_COUNT];         /* boundaries present but reversed */
  uint64_t clamped[RM_COUNT];          /* clamped at 0 */
};

struct report_model
{
  const struct emlat_profile *p;
  struct report_group g[REPORT_KINDS][POP_COUNT];
  uint64_t n_ix;
  uint64_t n_pop[POP_COUNT];
  uint64_t n_status[EMLAT_STATUS_MAX + 1];     /* index 0: out of range */
  uint64_t n_kind[REPORT_KINDS];
  /* Interactions of each population that have each boundary. */
  uint64_t present_t[POP_COUNT][EMLAT_T_FIELD_COUNT];
  uint64_t present_cpu_begin[POP_COUNT], present_cpu_end[POP_COUNT];
  /* The tail and the slowest interactions (emlat_report_tail_pick); the model
     build leaves it empty. */
  struct report_tail tail;
};

/* Build *M from P.  Returns 0 or -ENOMEM (then *M is freed). */
int emlat_report_model_build (const struct emlat_profile *p, struct report_model *m);
void emlat_report_model_free (struct report_model *m);

/* The metric a group's latency chart and comparison lead with: the first
   of input_to_flush_max_ns, external_first_output_ns,
   input_to_command_max_ns, command_ns, wall_ns that the group has samples
   of; -1 when it has none. */
int emlat_report_group_primary (const struct report_group *g);

#endif /* EMLAT_ANALYSIS_REPORT_MODEL_H */

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_compare.h -- is session B comparable with session A, and if so,
 * how did each population's latency quantiles move (docs/REPORT.md
 * "Comparison")?
 *
 * Guards (each failing key is named with both values; a key present in
 * one session and absent in the other fails too):
 *   identity  every SESSION key under program., build. or emacs.;
 *   terminal  tty.term, tty.rows, tty.cols (libemlat-tty),
 *             replay.term, replay.rows, replay.cols (emlat replay),
 *             terminal.type, terminal.rows, terminal.cols (Emacs, demo);
 *   profiler  every SESSION key under profiler.;
 *   workload  replay.workload, demo.workload.
 * Any failing guard makes the sessions not comparable: no delta is
 * computed.
 *
 * Populations (root kind x flushed / no output / superseded) are compared
 * only when both sessions have at least REPORT_COMPARE_MIN_N interactions
 * in them; the others are listed with both counts.  In a compared
 * population each metric of input_to_flush_max_ns,
 * external_first_output_ns, input_to_command_max_ns, command_ns, wall_ns
 * with at least REPORT_COMPARE_MIN_N samples on both sides gets the delta
 * B - A of its median, p90 and p99 with a bootstrap 95% interval, and a
 * verdict: slower (the interval is above 0), faster (below 0) or no
 * significant change (it contains 0).
 */
#ifndef EMLAT_CLI_REPORT_COMPARE_H
#define EMLAT_CLI_REPORT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "cli/report_bootstrap.h"
#include "analysis/report_model.h"

#define REPORT_COMPARE_MIN_N 30u
#define REPORT_COMPARE_METRICS 5
#define REPORT_COMPARE_QUANTILES 3

enum report_guard { GUARD_IDENTITY, GUARD_TERMINAL, GUARD_PROFILER, GUARD_WORKLOAD };

struct report_guard_fail
{
  enum report_guard guard;
  char key[72];
  char a[80], b[80];   /* printable values, "(absent)" when absent */
};

enum report_verdict { VERDICT_SAME = 0, VERDICT_FASTER = 1, VERDICT_SLOWER = 2 };

struct report_cmp_quantile
{
  uint64_t a, b;                /* the quantile in A and in B */
  struct report_boot_ci ci;
  enum report_verdict verdict;
};

struct report_cmp_metric
{
  enum report_metric metric;
  uint64_t n_a, n_b;
  int compared;                 /* both have >= REPORT_COMPARE_MIN_N */
  struct report_cmp_quantile q[REPORT_COMPARE_QUANTILES];
};

struct report_cmp_pop
{
  uint32_t root_kind;
  enum report_pop pop;
  uint64_t n_a, n_b;
  int compared;
  struct report_cmp_metric m[REPORT_COMPARE_METRICS];
  size_t n_m;
};

struct report_comparison
{
  struct report_guard_fail *fails;
  size_t n_fails;
  struct report_cmp_pop *pops;
  size_t n_pops;
  size_t n_compared;            /* populations compared */
  unsigned resamples;
  uint64_t seed;
};

extern const char *const report_quantile_names[REPORT_COMPARE_QUANTILES];
const char *report_guard_name (enum report_guard g);
const char *report_verdict_name (enum report_verdict v);

/* Compare A (profile PA, model MA) with B.  Returns 0 or -ENOMEM. */
int report_compare (const struct emlat_profile *pa, const struct report_model *ma,
                    const struct emlat_profile *pb, const struct report_model *mb,
                    unsigned resamples, uint64_t seed, struct report_comparison *out);
void report_comparison_free (struct report_comparison *c);

#endif /* EMLAT_CLI_REPORT_COMPARE_H */

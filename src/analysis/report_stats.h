/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_stats.h -- exact order statistics of nanosecond samples: a stable
 * LSD radix sort of uint64_t keys (optionally carrying a uint64_t payload),
 * nearest-rank quantiles and the distribution summary every report prints.
 *
 * The percentile rule (docs/REPORT.md "Percentiles"): for n sorted samples
 * x[1..n] and a fraction p in (0, 1], the p-quantile is x[ceil(p * n)]
 * (nearest rank), computed in integer arithmetic from p = num / den, so the
 * result is always one of the samples and never interpolated.  min is
 * x[1], max is x[n], the median is x[ceil(n / 2)].  p99.9 is reported only
 * when n >= 1000, the smallest n at which its rank (ceil(0.999 n)) differs
 * from the maximum's.
 *
 * Invariants: a summary of n = 0 samples has n = 0 and nothing else valid;
 * totals saturate at UINT64_MAX instead of wrapping (total_saturated says
 * so); the sort is stable, so equal keys keep their input order.
 */
#ifndef EMLAT_ANALYSIS_REPORT_STATS_H
#define EMLAT_ANALYSIS_REPORT_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Smallest sample count for which p99.9 is reported. */
#define REPORT_P999_MIN_N 1000u

struct report_dist
{
  uint64_t n;
  uint64_t min, p50, p90, p95, p99, p999, max;
  int has_p999;        /* n >= REPORT_P999_MIN_N */
  uint64_t total;      /* sum of the samples, saturating */
  int total_saturated;
  double mean;         /* total / n (from the exact sum) */
};

/* Sort KEYS[0..N) ascending, stably; PAYLOAD (may be NULL) moves with its
   key.  Returns 0, or -1 when the scratch memory could not be allocated
   (then the arrays are unchanged). */
int emlat_report_sort_u64 (uint64_t *keys, uint64_t *payload, size_t n);

/* The 0-based index of the nearest-rank NUM/DEN quantile of N >= 1 sorted
   samples: ceil(NUM * N / DEN) - 1, at least 0.  0 < NUM <= DEN. */
size_t emlat_report_rank_index (size_t n, uint64_t num, uint64_t den);

/* Summarize SORTED[0..N) (ascending) into *D. */
void emlat_report_dist_of_sorted (const uint64_t *sorted, size_t n, struct report_dist *d);

#endif /* EMLAT_ANALYSIS_REPORT_STATS_H */

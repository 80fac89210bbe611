/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_bootstrap.h -- bootstrap confidence intervals for the difference
 * of one quantile between two samples, deterministic for a given seed
 * (docs/REPORT.md "Comparison").
 *
 * Method: percentile bootstrap.  Each of R resamples draws n_A values from
 * A and n_B from B with replacement, takes the nearest-rank q-quantile of
 * each and records delta = qB* - qA*.  The interval is the nearest-rank
 * 2.5th and 97.5th percentile of the R deltas.
 *
 * A resample's k-th order statistic is drawn directly instead of drawing
 * n values: the k-th smallest of n uniform indices floor(n U_i) is
 * floor(n U_(k)), and U_(k) ~ Beta(k, n - k + 1).  This is exact (the
 * mapping U -> floor(n U) is monotone) and costs O(1) per resample, so a
 * million-sample session bootstraps as fast as a small one.
 *
 * The generator is xoshiro256** seeded through splitmix64; Beta variates
 * come from two Gamma variates (Marsaglia and Tsang's method, shape >= 1
 * here since 1 <= k <= n), normals from the polar method.
 */
#ifndef EMLAT_CLI_REPORT_BOOTSTRAP_H
#define EMLAT_CLI_REPORT_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_BOOT_DEFAULT_RESAMPLES 2000u
#define REPORT_BOOT_DEFAULT_SEED 0x656d6c6174ull /* "emlat" */

struct report_rng
{
  uint64_t s[4];
};

void report_rng_seed (struct report_rng *r, uint64_t seed);
uint64_t report_rng_next (struct report_rng *r);
/* Uniform in (0, 1), never 0 or 1. */
double report_rng_uniform (struct report_rng *r);
/* Beta(a, b) for a, b >= 1. */
double report_rng_beta (struct report_rng *r, double a, double b);

/* The 0-based index, in a sorted sample of N, of the K-th smallest (K
   1-based) of N draws with replacement. */
size_t report_boot_order_stat (struct report_rng *r, size_t n, size_t k);

struct report_boot_ci
{
  int64_t delta;     /* qB - qA of the samples themselves */
  int64_t lo, hi;    /* the 95% interval of the bootstrap deltas */
};

/* The interval for quantile NUM/DEN (nearest rank) of sorted A[0..NA) and
   B[0..NB), both non-empty, with RESAMPLES resamples from SEED.  Returns
   0, or -1 when memory for the deltas could not be allocated. */
int report_boot_quantile_delta (const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                                uint64_t num, uint64_t den, unsigned resamples, uint64_t seed,
                                struct report_boot_ci *ci);

#endif /* EMLAT_CLI_REPORT_BOOTSTRAP_H */

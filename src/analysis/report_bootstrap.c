/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_bootstrap.c -- seeded generator, Beta variates and the quantile-
 * difference bootstrap (method and references in emlat_report.h, "bootstrap").
 *
 * Invariant: the output depends only on the samples, the quantile, the
 * number of resamples and the seed -- never on time, addresses or other
 * comparisons run before.
 */
#include "emlat/emlat_report.h"

#include <math.h>
#include <stdlib.h>


static uint64_t
splitmix (uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

void
emlat_report_rng_seed (struct emlat_report_rng *r, uint64_t seed)
{
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix (&x);
}

static uint64_t
rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

uint64_t
emlat_report_rng_next (struct emlat_report_rng *r)
{
  uint64_t *s = r->s;
  uint64_t out = rotl (s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return out;
}

double
emlat_report_rng_uniform (struct emlat_report_rng *r)
{
  return ((double)(emlat_report_rng_next (r) >> 11) + 0.5) * 0x1.0p-53;
}

static double
normal (struct emlat_report_rng *r)
{
  for (;;)
    {
      double u = 2 * emlat_report_rng_uniform (r) - 1, v = 2 * emlat_report_rng_uniform (r) - 1;
      double s = u * u + v * v;
      if (s > 0 && s < 1)
        return u * sqrt (-2 * log (s) / s);
    }
}

/* Gamma(a, 1) for a >= 1: Marsaglia and Tsang (2000). */
static double
gamma_ge1 (struct emlat_report_rng *r, double a)
{
  double d = a - 1.0 / 3.0, c = 1.0 / sqrt (9.0 * d);
  for (;;)
    {
      double x, v;
      do
        {
          x = normal (r);
          v = 1.0 + c * x;
        }
      while (v <= 0);
      v = v * v * v;
      double u = emlat_report_rng_uniform (r);
      if (u < 1.0 - 0.0331 * x * x * x * x)
        return d * v;
      if (log (u) < 0.5 * x * x + d * (1.0 - v + log (v)))
        return d * v;
    }
}

double
emlat_report_rng_beta (struct emlat_report_rng *r, double a, double b)
{
  double x = gamma_ge1 (r, a), y = gamma_ge1 (r, b);
  return x / (x + y);
}

size_t
emlat_report_boot_order_stat (struct emlat_report_rng *r, size_t n, size_t k)
{
  if (n <= 1)
    return 0;
  double u = emlat_report_rng_beta (r, (double)k, (double)(n - k + 1));
  double idx = floor ((double)n * u);
  if (idx < 0)
    idx = 0;
  if (idx > (double)(n - 1))
    idx = (double)(n - 1);
  return (size_t)idx;
}

int
emlat_report_boot_quantile_delta (const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                            uint64_t num, uint64_t den, unsigned resamples, uint64_t seed,
                            struct emlat_report_boot_ci *ci)
{
  size_t ka = emlat_report_rank_index (na, num, den) + 1, kb = emlat_report_rank_index (nb, num, den) + 1;
  ci->delta = (int64_t)(b[kb - 1] - a[ka - 1]);
  if (resamples == 0)
    resamples = 1;
  /* Deltas offset by 2^63 so that an unsigned sort orders them. */
  uint64_t *d = malloc (resamples * sizeof *d);
  if (!d)
    return -1;
  struct emlat_report_rng r;
  emlat_report_rng_seed (&r, seed);
  for (unsigned i = 0; i < resamples; i++)
    {
      uint64_t va = a[emlat_report_boot_order_stat (&r, na, ka)];
      uint64_t vb = b[emlat_report_boot_order_stat (&r, nb, kb)];
      d[i] = (vb - va) ^ (1ull << 63);
    }
  if (emlat_report_sort_u64 (d, NULL, resamples) != 0)
    {
      free (d);
      return -1;
    }
  ci->lo = (int64_t)(d[emlat_report_rank_index (resamples, 25, 1000)] ^ (1ull << 63));
  ci->hi = (int64_t)(d[emlat_report_rank_index (resamples, 975, 1000)] ^ (1ull << 63));
  free (d);
  return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_stats.c -- radix sort, nearest-rank quantiles and distribution
 * summaries (see emlat_report.h for the rules).
 *
 * The sort is a least-significant-digit radix sort with 8-bit digits: each
 * pass is a stable counting sort, so the whole sort is stable.  A pass whose
 * digit is the same for every key (common for the high bytes of
 * nanosecond durations) is skipped.  A million keys sort in a few
 * milliseconds, which keeps `emlat report` on a million interactions well
 * under its 2 s budget (bench/bench_report.c).
 */
#include "emlat/emlat_report.h"

#include <stdlib.h>
#include <string.h>

int
emlat_report_sort_u64 (uint64_t *keys, uint64_t *payload, size_t n)
{
  if (n < 2)
    return 0;
  uint64_t *tk = malloc (n * sizeof *tk);
  uint64_t *tp = payload ? malloc (n * sizeof *tp) : NULL;
  if (!tk || (payload && !tp))
    {
      free (tk);
      free (tp);
      return -1;
    }
  /* All eight digit histograms in one read of the keys. */
  size_t (*count)[256] = calloc (8, sizeof *count);
  if (!count)
    {
      free (tk);
      free (tp);
      return -1;
    }
  for (size_t i = 0; i < n; i++)
    {
      uint64_t k = keys[i];
      for (int d = 0; d < 8; d++)
        count[d][(k >> (8 * d)) & 0xff]++;
    }
  uint64_t *sk = keys, *sp = payload, *dk = tk, *dp = tp;
  for (int d = 0; d < 8; d++)
    {
      size_t *c = count[d];
      if (c[(sk[0] >> (8 * d)) & 0xff] == n)
        continue; /* every key has this digit: the pass would not move anything */
      size_t pos = 0;
      for (int b = 0; b < 256; b++)
        {
          size_t k = c[b];
          c[b] = pos;
          pos += k;
        }
      unsigned shift = (unsigned)(8 * d);
      if (sp)
        for (size_t i = 0; i < n; i++)
          {
            size_t at = c[(sk[i] >> shift) & 0xff]++;
            dk[at] = sk[i];
            dp[at] = sp[i];
          }
      else
        for (size_t i = 0; i < n; i++)
          dk[c[(sk[i] >> shift) & 0xff]++] = sk[i];
      uint64_t *t = sk;
      sk = dk;
      dk = t;
      t = sp;
      sp = dp;
      dp = t;
    }
  if (sk != keys)
    {
      memcpy (keys, sk, n * sizeof *keys);
      if (payload)
        memcpy (payload, sp, n * sizeof *payload);
    }
  free (count);
  free (tk);
  free (tp);
  return 0;
}

size_t
emlat_report_rank_index (size_t n, uint64_t num, uint64_t den)
{
  /* ceil (num * n / den) without floating point; n < 2^40 and den <= 10^4
     in every use, so the product cannot overflow. */
  uint64_t r = ((uint64_t)n * num + den - 1) / den;
  return r ? (size_t)(r - 1) : 0;
}

void
emlat_report_dist_of_sorted (const uint64_t *s, size_t n, struct emlat_report_dist *d)
{
  memset (d, 0, sizeof *d);
  d->n = n;
  if (n == 0)
    return;
  d->min = s[0];
  d->max = s[n - 1];
  d->p50 = s[emlat_report_rank_index (n, 1, 2)];
  d->p90 = s[emlat_report_rank_index (n, 90, 100)];
  d->p95 = s[emlat_report_rank_index (n, 95, 100)];
  d->p99 = s[emlat_report_rank_index (n, 99, 100)];
  d->has_p999 = n >= EMLAT_REPORT_P999_MIN_N;
  if (d->has_p999)
    d->p999 = s[emlat_report_rank_index (n, 999, 1000)];
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (__builtin_add_overflow (total, s[i], &total))
        {
          total = UINT64_MAX;
          d->total_saturated = 1;
          break;
        }
    }
  d->total = total;
  if (d->total_saturated)
    {
      /* The mean from a long double sum: only when the exact sum overflows. */
      long double sum = 0;
      for (size_t i = 0; i < n; i++)
        sum += (long double)s[i];
      d->mean = (double)(sum / (long double)n);
    }
  else
    d->mean = (double)total / (double)n;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_rank.h -- exact nearest-rank quantiles of values seen in passes,
 * without keeping the values (docs/REPORT.md "Percentiles", the bounded
 * method).
 *
 * Pass 1 counts each series' values in a histogram of 7424 buckets: every
 * value below 256 has its own bucket, above that each power of two is cut
 * into 128 buckets (a bucket is less than 0.8 % of its values wide), and
 * keeps the exact count, minimum, maximum and sum.  A wanted rank then lies
 * in one known bucket, with a known number of values below it.  Each
 * further pass (the same values again, in any order) narrows every open
 * rank: when its bucket holds few enough values they are collected and the
 * rank is read from them sorted; else the bucket's range is cut into 4096
 * equal parts and counted again.  Ranges are integer intervals that shrink
 * 4096-fold per counting pass, so a rank is exact after at most six passes
 * whatever the values; on latencies, after one.
 *
 * Memory: 58 KiB per series that has a value; per pass at most
 * EMLAT_RANK_COLLECT_MAX collected values (8 bytes each) and 32 KiB per
 * range being counted.  Nothing grows with the number of values.
 */
#ifndef EMLAT_REPORT_RANK_H
#define EMLAT_REPORT_RANK_H

#include <stddef.h>
#include <stdint.h>

#define EMLAT_RANK_SUB_BITS 7
#define EMLAT_RANK_BUCKETS ((64 - EMLAT_RANK_SUB_BITS) * (1u << EMLAT_RANK_SUB_BITS) + 128)
#define EMLAT_RANK_PARTS 4096u
/* Values collected in one pass, all ranks together (64 MiB). */
#define EMLAT_RANK_COLLECT_MAX ((size_t)8 << 20)

/* One series' first pass. */
struct emlat_rank_series
{
  uint64_t n, min, max;
  uint64_t sum_lo, sum_hi;  /* the exact sum, 128 bits */
  uint64_t *hist;           /* EMLAT_RANK_BUCKETS counts; NULL before a value */
};

/* Count V into S.  0, or -1 when the histogram could not be allocated. */
int emlat_rank_add (struct emlat_rank_series *s, uint64_t v);
void emlat_rank_series_free (struct emlat_rank_series *s);

/* The ranks wanted of a set of series, and the passes that find them. */
struct emlat_rank_target;

struct emlat_rank_set
{
  size_t collect_max;         /* 0: EMLAT_RANK_COLLECT_MAX (tests set less) */
  struct emlat_rank_target *t;
  size_t n, cap;
  int pass_open;              /* a pass is being fed */
  /* During a pass: the targets that take values, grouped by series:
     ACTIVE[FIRST[s] .. FIRST[s + 1]) are series s's (s < N_SERIES). */
  uint32_t *active, *first;
  uint32_t n_series;
};

/* Want the value of 0-based RANK among the N = S->n sorted values of
   series number SERIES (S after its first pass; RANK < N).  Returns the
   target's number (for emlat_rank_value), or -1 without memory. */
long emlat_rank_want (struct emlat_rank_set *rs, uint32_t series,
                      const struct emlat_rank_series *s, uint64_t rank);
/* 1 when every wanted rank is known, else 0: a pass is needed, feeding
   every value of every series again through emlat_rank_feed, then
   emlat_rank_pass_end.  Returns -1 without memory. */
int emlat_rank_pass_begin (struct emlat_rank_set *rs);
/* V, a value of series SERIES, in the pass. */
void emlat_rank_feed (struct emlat_rank_set *rs, uint32_t series, uint64_t v);
/* After a pass: 1 when every rank is known, 0 when another pass is
   needed (call emlat_rank_pass_begin again), -1 without memory. */
int emlat_rank_pass_end (struct emlat_rank_set *rs);
/* The value of target T (known after the passes). */
uint64_t emlat_rank_value (const struct emlat_rank_set *rs, long t);
/* 1 when series SERIES has a target (its values must be fed). */
int emlat_rank_wants_series (const struct emlat_rank_set *rs, uint32_t series);
void emlat_rank_set_free (struct emlat_rank_set *rs);

#endif /* EMLAT_REPORT_RANK_H */

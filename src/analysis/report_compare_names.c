/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_compare_names.c -- two names sessions compared group by group,
 * the groups matched by root kind and name (rules in emlat_report.h,
 * "names", and docs/REPORT.md "Comparison").
 *
 * Matching is by the name's bytes, not its string id: ids are numbered per
 * session.  A name whose string is missing in its session is matched by
 * its printed form "#ID", which only matches the same id in the other
 * session.  Each row's generator seed is derived from the user seed and
 * the row's index in A's order (or B's, past A's rows), so a row's
 * interval does not depend on the other rows.
 */
#include "emlat/emlat_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t q_num[EMLAT_REPORT_COMPARE_QUANTILES] = { 1, 90, 99 };
static const uint64_t q_den[EMLAT_REPORT_COMPARE_QUANTILES] = { 2, 100, 100 };

/* 1 when groups X (of PX) and Y (of PY) are the same work. */
static int
same_group (const struct emlat_profile *px, const struct emlat_report_name_group *x,
            const struct emlat_profile *py, const struct emlat_report_name_group *y)
{
  if (x->root_kind != y->root_kind || x->has_name != y->has_name)
    return 0;
  if (!x->has_name)
    return 1;
  if (x->name && y->name)
    return x->name_len == y->name_len && memcmp (x->name, y->name, x->name_len) == 0;
  char a[32], b[32];
  if (x->name || y->name)
    return 0;
  return strcmp (emlat_report_name_format (px, x->string_id, a, sizeof a),
                 emlat_report_name_format (py, y->string_id, b, sizeof b))
         == 0;
}

/* Fill ROW's metric from the samples of GA and GB (either may be NULL). */
static int
compare_row (const struct emlat_report_name_group *ga, const struct emlat_report_name_group *gb,
             unsigned resamples, uint64_t seed, struct emlat_report_cmp_name *row)
{
  struct emlat_report_cmp_metric *cm = &row->m;
  cm->metric = EMLAT_REPORT_NAME_METRIC;
  cm->n_a = ga ? ga->d.n : 0;
  cm->n_b = gb ? gb->d.n : 0;
  cm->compared = cm->n_a >= EMLAT_REPORT_COMPARE_MIN_N && cm->n_b >= EMLAT_REPORT_COMPARE_MIN_N;
  if (!cm->compared)
    return 0;
  for (int q = 0; q < EMLAT_REPORT_COMPARE_QUANTILES; q++)
    {
      struct emlat_report_cmp_quantile *cq = &cm->q[q];
      cq->a = ga->samples[emlat_report_rank_index (ga->d.n, q_num[q], q_den[q])];
      cq->b = gb->samples[emlat_report_rank_index (gb->d.n, q_num[q], q_den[q])];
      if (emlat_report_boot_quantile_delta (ga->samples, ga->d.n, gb->samples, gb->d.n, q_num[q],
                                            q_den[q], resamples, seed ^ (uint64_t)q, &cq->ci)
          != 0)
        return -ENOMEM;
      cq->verdict = cq->ci.lo > 0   ? EMLAT_VERDICT_SLOWER
                    : cq->ci.hi < 0 ? EMLAT_VERDICT_FASTER
                                    : EMLAT_VERDICT_SAME;
    }
  return 0;
}

void
emlat_report_name_comparison_free (struct emlat_report_name_comparison *c)
{
  free (c->rows);
  memset (c, 0, sizeof *c);
}

static void
describe (struct emlat_report_cmp_name *row, const struct emlat_report_name_group *g)
{
  row->root_kind = g->root_kind;
  row->has_name = g->has_name;
  row->name = g->name;
  row->name_len = g->name_len;
  row->string_id = g->string_id;
}

int
emlat_report_compare_names (const struct emlat_profile *pa, const struct emlat_report_names *na,
                            const struct emlat_profile *pb, const struct emlat_report_names *nb,
                            unsigned resamples, uint64_t seed,
                            struct emlat_report_name_comparison *out)
{
  memset (out, 0, sizeof *out);
  if (!na->has || !nb->has)
    return 0;
  out->has = 1;
  if (!na->n && !nb->n)
    return 0;
  out->rows = calloc (na->n + nb->n, sizeof *out->rows);
  char *b_used = calloc (nb->n ? nb->n : 1, 1);
  if (!out->rows || !b_used)
    goto nomem;
  /* Quadratic in the number of groups (names, not interactions): a few
     hundred commands at most in practice. */
  for (size_t i = 0; i < na->n; i++)
    {
      const struct emlat_report_name_group *ga = &na->g[i], *gb = NULL;
      for (size_t k = 0; k < nb->n && !gb; k++)
        if (!b_used[k] && same_group (pa, ga, pb, &nb->g[k]))
          {
            gb = &nb->g[k];
            b_used[k] = 1;
          }
      struct emlat_report_cmp_name *row = &out->rows[out->n++];
      describe (row, ga);
      row->n_a = ga->n;
      row->n_b = gb ? gb->n : 0;
      if (compare_row (ga, gb, resamples, seed ^ ((uint64_t)(i + 1) << 8), row) != 0)
        goto nomem;
      out->n_compared += (size_t)row->m.compared;
    }
  for (size_t k = 0; k < nb->n; k++)
    if (!b_used[k])
      {
        struct emlat_report_cmp_name *row = &out->rows[out->n++];
        describe (row, &nb->g[k]);
        row->n_b = nb->g[k].n;
        compare_row (NULL, &nb->g[k], resamples, seed, row);
      }
  free (b_used);
  return 0;
nomem:
  free (b_used);
  emlat_report_name_comparison_free (out);
  return -ENOMEM;
}

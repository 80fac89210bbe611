/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_tail.c -- pick the tail interaction and the slowest ones (see
 * emlat_report.h, "tail").  A candidate metric's value is computed exactly as
 * emlat_report_metrics_compute defines it: both boundaries present and in order.
 */
#include "emlat/emlat_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


const enum emlat_report_metric emlat_report_tail_chain[4] = {
  EMLAT_RM_INPUT_TO_FLUSH_MAX, EMLAT_RM_EXTERNAL_FIRST_OUTPUT, EMLAT_RM_COMMAND, EMLAT_RM_WALL,
};

/* Candidate C's value for IX: 1 and *V when present. */
static int
value_of (const struct emlat_profile *p, const struct emlat_interaction *ix, int c, uint64_t *v)
{
  static const enum emlat_time_field from[3] = {
    EMLAT_T_INPUT_EARLIEST, EMLAT_T_EXTERNAL_SEND, EMLAT_T_COMMAND_BEGIN,
  };
  static const enum emlat_time_field to[3] = {
    EMLAT_T_FLUSH_END, EMLAT_T_EXTERNAL_FIRST_OUTPUT, EMLAT_T_COMMAND_END,
  };
  if (c < 3)
    return emlat_profile_ix_duration (p, ix, from[c], to[c], v);
  struct emlat_report_times t;
  struct emlat_report_metrics m;
  emlat_report_times_from_profile (p, ix, &t);
  emlat_report_metrics_compute (&t, &m);
  if (!(m.mask >> EMLAT_RM_WALL & 1u))
    return 0;
  *v = m.v[EMLAT_RM_WALL];
  return 1;
}

int
emlat_report_tail_pick (const struct emlat_profile *p, struct emlat_report_tail *t)
{
  memset (t, 0, sizeof *t);
  size_t n;
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &n);
  uint64_t v;
  int c = 0;
  size_t count = 0;
  for (; c < 4; c++)
    {
      count = 0;
      for (size_t i = 0; i < n; i++)
        count += (size_t)value_of (p, &ix[i], c, &v);
      if (count)
        break;
    }
  if (!count)
    return 0;
  uint64_t *val = malloc (count * sizeof *val), *cause = malloc (count * sizeof *cause);
  if (!val || !cause)
    {
      free (val);
      free (cause);
      return -ENOMEM;
    }
  size_t k = 0;
  /* Interactions come sorted by cause, and the sort is stable: equal
     values stay in cause order. */
  for (size_t i = 0; i < n && k < count; i++)
    if (value_of (p, &ix[i], c, &v))
      {
        val[k] = v;
        cause[k++] = ix[i].cause;
      }
  if (emlat_report_sort_u64 (val, cause, k) != 0)
    {
      free (val);
      free (cause);
      return -ENOMEM;
    }
  size_t at = emlat_report_rank_index (k, 99, 100);
  t->has = 1;
  t->metric = emlat_report_tail_chain[c];
  t->n = k;
  t->rank = at + 1;
  t->cause = cause[at];
  t->value = val[at];
  for (size_t i = 0; i < EMLAT_REPORT_SLOWEST && i < k; i++)
    {
      t->slow[i].cause = cause[k - 1 - i];
      t->slow[i].value = val[k - 1 - i];
      t->n_slow = i + 1;
    }
  free (val);
  free (cause);
  return 0;
}

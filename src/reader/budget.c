/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * budget.c -- see budget.h.  Invariant: b->used is the sum of the live
 * allocations charged to b.
 */
#include "reader/budget.h"

#include <stdlib.h>

int emlat_budget_take (struct emlat_budget *b, uint64_t n)
{
  if (n > b->limit || b->used > b->limit - n)
    {
      b->exceeded = 1;
      return -1;
    }
  b->used += n;
  return 0;
}

void emlat_budget_give (struct emlat_budget *b, uint64_t n)
{
  b->used = n > b->used ? 0 : b->used - n;
}

int emlat_vec_reserve (struct emlat_budget *b, struct emlat_vec *v, size_t need,
                       size_t elem, uint64_t max_elems)
{
  if (need <= v->cap)
    return 0;
  if (need > max_elems || need > SIZE_MAX / 2 / elem)
    return -1;
  size_t ncap = v->cap ? v->cap : 16;
  while (ncap < need)
    ncap *= 2;
  if (ncap > max_elems)
    ncap = (size_t)max_elems;
  if (emlat_budget_take (b, (uint64_t)(ncap - v->cap) * elem))
    {
      /* Retry with exactly what is needed before giving up. */
      ncap = need;
      b->exceeded = 0;
      if (emlat_budget_take (b, (uint64_t)(ncap - v->cap) * elem))
        return -1;
    }
  void *n = realloc (v->p, ncap * elem);
  if (!n)
    {
      emlat_budget_give (b, (uint64_t)(ncap - v->cap) * elem);
      return -1;
    }
  v->p = n;
  v->cap = ncap;
  return 0;
}

void emlat_vec_free (struct emlat_budget *b, struct emlat_vec *v, size_t elem)
{
  free (v->p);
  if (b)
    emlat_budget_give (b, (uint64_t)v->cap * elem);
  v->p = NULL;
  v->n = v->cap = 0;
}

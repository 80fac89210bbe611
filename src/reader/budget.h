/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * budget.h -- allocation accounting for a reader load.
 *
 * Every allocation a load makes is first taken from a budget whose limit is
 * struct emlat_limits.max_alloc_bytes; a refused take is a clean failure
 * (the caller reports EMLAT_DIAG_LIMIT), never an unbounded allocation.
 * emlat_vec_reserve grows an array geometrically under the budget and under
 * an element-count bound.  Single-threaded: a load owns its budget.
 */
#ifndef EMLAT_BUDGET_H
#define EMLAT_BUDGET_H

#include <stddef.h>
#include <stdint.h>

struct emlat_budget
{
  uint64_t used, limit;
  int exceeded;   /* set when a take was refused for the limit */
};

/* Charge N bytes; returns 0, or -1 (and sets exceeded) past the limit. */
int emlat_budget_take (struct emlat_budget *b, uint64_t n);
void emlat_budget_give (struct emlat_budget *b, uint64_t n);

/* A growable array of N elements (of a size each caller passes), typed at
   use: ((T *)v.p)[i]. */
struct emlat_vec
{
  void *p;
  size_t n, cap;
};
#define EMLAT_VEC_AT(v, T, i) (((T *)(v).p)[i])

/* Ensure V has room for NEED elements of ELEM bytes, NEED <= MAX_ELEMS.
   Returns 0, or -1 when a bound, the budget or memory refused (V is then
   unchanged). */
int emlat_vec_reserve (struct emlat_budget *b, struct emlat_vec *v, size_t need,
                       size_t elem, uint64_t max_elems);
/* Free V's storage and give its bytes back (B may be NULL). */
void emlat_vec_free (struct emlat_budget *b, struct emlat_vec *v, size_t elem);

#endif /* EMLAT_BUDGET_H */

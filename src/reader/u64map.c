/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * u64map.c -- see u64map.h.  Invariant: every key sits in the probe run
 * starting at its hash slot, with no empty slot in between; deletion
 * shifts later members of the run back to keep it so.
 */
#include "reader/u64map.h"

#include <stdlib.h>

static inline size_t slot_of (uint64_t key, size_t cap)
{
  /* Fibonacci hashing: ids are dense and sequential, so spread them. */
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

uint64_t *emlat_u64map_get (const struct emlat_u64map *m, uint64_t key)
{
  if (m->cap == 0 || key == 0)
    return NULL;
  for (size_t i = slot_of (key, m->cap);; i = (i + 1) & (m->cap - 1))
    {
      if (m->keys[i] == key)
        return &m->vals[i];
      if (m->keys[i] == 0)
        return NULL;
    }
}

static int grow (struct emlat_u64map *m, struct emlat_budget *b)
{
  size_t ncap = m->cap ? m->cap * 2 : 64;
  size_t bytes = ncap * 2 * sizeof (uint64_t);
  if (emlat_budget_take (b, bytes))
    return -1;
  uint64_t *keys = calloc (ncap, sizeof *keys);
  uint64_t *vals = calloc (ncap, sizeof *vals);
  if (!keys || !vals)
    {
      free (keys);
      free (vals);
      emlat_budget_give (b, bytes);
      return -1;
    }
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i])
      {
        size_t j = slot_of (m->keys[i], ncap);
        while (keys[j])
          j = (j + 1) & (ncap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
      }
  free (m->keys);
  free (m->vals);
  emlat_budget_give (b, m->cap * 2 * sizeof (uint64_t));
  m->keys = keys;
  m->vals = vals;
  m->cap = ncap;
  return 0;
}

int emlat_u64map_put (struct emlat_u64map *m, struct emlat_budget *b, uint64_t key,
                      uint64_t **val, int *added)
{
  *added = 0;
  if (key == 0)
    return -1;
  uint64_t *v = emlat_u64map_get (m, key);
  if (v)
    {
      *val = v;
      return 0;
    }
  if ((m->n + 1) * 2 > m->cap && grow (m, b))
    return -1;
  size_t i = slot_of (key, m->cap);
  while (m->keys[i])
    i = (i + 1) & (m->cap - 1);
  m->keys[i] = key;
  m->vals[i] = 0;
  m->n++;
  *val = &m->vals[i];
  *added = 1;
  return 0;
}

void emlat_u64map_del (struct emlat_u64map *m, uint64_t key)
{
  if (m->cap == 0 || key == 0)
    return;
  size_t mask = m->cap - 1, i = slot_of (key, m->cap);
  while (m->keys[i] != key)
    {
      if (m->keys[i] == 0)
        return;
      i = (i + 1) & mask;
    }
  /* Backward shift: move each later member of the run whose home slot is
     not in (i, j] into the hole. */
  size_t j = i;
  for (;;)
    {
      j = (j + 1) & mask;
      if (m->keys[j] == 0)
        break;
      size_t home = slot_of (m->keys[j], m->cap);
      int in_between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (in_between)
        continue;
      m->keys[i] = m->keys[j];
      m->vals[i] = m->vals[j];
      i = j;
    }
  m->keys[i] = 0;
  m->vals[i] = 0;
  m->n--;
}

void emlat_u64map_free (struct emlat_u64map *m, struct emlat_budget *b)
{
  free (m->keys);
  free (m->vals);
  if (b)
    emlat_budget_give (b, m->cap * 2 * sizeof (uint64_t));
  m->keys = m->vals = NULL;
  m->cap = m->n = 0;
}

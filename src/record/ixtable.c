/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ixtable.c -- see ixtable.h.
 */
#include "record/ixtable.h"

#include <stdlib.h>
#include <string.h>

static size_t
hash (uint64_t k, size_t mask)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (size_t)k & mask;
}

void
emlat_ixtable_free (struct emlat_ixtable *t)
{
  free (t->slots);
  free (t->entries);
  memset (t, 0, sizeof *t);
}

static size_t
find_slot (const struct emlat_ixtable *t, uint64_t cause)
{
  size_t mask = t->nslots - 1;
  size_t i = hash (cause, mask);
  while (t->slots[i] && t->entries[t->slots[i] - 1].ix.cause != cause)
    i = (i + 1) & mask;
  return i;
}

struct emlat_ix_entry *
emlat_ixtable_probe (struct emlat_ixtable *t, uint64_t cause)
{
  if (!t->nslots)
    return 0;
  size_t i = find_slot (t, cause);
  if (!t->slots[i])
    return 0;
  t->last = t->slots[i] - 1;
  return &t->entries[t->last];
}

static int
rehash (struct emlat_ixtable *t, size_t nslots)
{
  uint32_t *s = calloc (nslots, sizeof *s);
  if (!s)
    return -1;
  free (t->slots);
  t->slots = s;
  t->nslots = nslots;
  for (size_t e = 0; e < t->nentries; e++)
    t->slots[find_slot (t, t->entries[e].ix.cause)] = (uint32_t)(e + 1);
  return 0;
}

struct emlat_ix_entry *
emlat_ixtable_add (struct emlat_ixtable *t, uint64_t cause)
{
  if (t->nentries >= EMLAT_IX_OPEN_MAX)
    return 0;
  if ((t->nentries + 1) * 2 > t->nslots && rehash (t, t->nslots ? t->nslots * 2 : 256) != 0)
    return 0;
  if (t->nentries == t->cap)
    {
      size_t c = t->cap ? t->cap * 2 : 64;
      struct emlat_ix_entry *e = realloc (t->entries, c * sizeof *e);
      if (!e)
        return 0;
      /* Every entry's bytes are defined once (checkpoints copy them). */
      memset (e + t->cap, 0, (c - t->cap) * sizeof *e);
      t->entries = e;
      t->cap = c;
    }
  struct emlat_ix_entry *e = &t->entries[t->nentries];
  /* Everything but the field arrays, which are read only where a mask bit
     says the field was set (ixtable.h). */
  e->ix.thread = 0;
  e->ix.cause = cause;
  e->ix.kind = e->ix.status = 0;
  e->ix.parent = e->ix.sched = e->ix.t_dispatch = 0;
  e->ix.tmask = e->ix.vmask = e->ix.cmask = 0;
  e->represents = 0;
  e->ended_pass = 0;
  e->begin_written = 0;
  e->has_begin = 0;
  t->slots[find_slot (t, cause)] = (uint32_t)(t->nentries + 1);
  t->last = t->nentries++;
  return e;
}

void
emlat_ixtable_remove_at (struct emlat_ixtable *t, size_t idx)
{
  size_t mask = t->nslots - 1;
  size_t i = find_slot (t, t->entries[idx].ix.cause);
  /* Backward-shift deletion keeps every probe chain unbroken. */
  t->slots[i] = 0;
  size_t j = i;
  for (;;)
    {
      j = (j + 1) & mask;
      if (!t->slots[j])
        break;
      size_t home = hash (t->entries[t->slots[j] - 1].ix.cause, mask);
      /* Move slot j into the hole at i if its home is not in (i, j]. */
      if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j)))
        {
          t->slots[i] = t->slots[j];
          t->slots[j] = 0;
          i = j;
        }
    }
  /* Move the last entry into idx and repoint its slot. */
  size_t last = t->nentries - 1;
  if (idx != last)
    {
      t->entries[idx] = t->entries[last];
      t->slots[find_slot (t, t->entries[idx].ix.cause)] = (uint32_t)(idx + 1);
    }
  t->nentries--;
}

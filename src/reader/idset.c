/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * idset.c -- see idset.h.  Invariant: an id is in the set iff its bit is
 * set in the word of its block; a word, once present, is never removed.
 */
#include "reader/idset.h"

int emlat_idset_add (struct emlat_idset *s, struct emlat_budget *b, uint64_t id,
                     uint64_t max_words)
{
  if (id == 0)
    return 0;
  uint64_t key = (id >> 6) + 1, bit = (uint64_t)1 << (id & 63);
  uint64_t *w = emlat_u64map_get (&s->words, key);
  if (w)
    {
      if (*w & bit)
        return 1;
      *w |= bit;
      return 0;
    }
  int added;
  if (s->words.n >= max_words || emlat_u64map_put (&s->words, b, key, &w, &added))
    return -1;
  *w = bit;
  return 0;
}

int emlat_idset_has (const struct emlat_idset *s, uint64_t id)
{
  const uint64_t *w = id ? emlat_u64map_get (&s->words, (id >> 6) + 1) : NULL;
  return w && (*w >> (id & 63) & 1);
}

void emlat_idset_free (struct emlat_idset *s, struct emlat_budget *b)
{
  emlat_u64map_free (&s->words, b);
}

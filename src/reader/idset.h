/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * idset.h -- a set of identifiers, for the uniqueness rules of a load
 * (docs/FORMAT.md F-5, F-92): has this span id or input batch id been seen?
 *
 * One 64-bit word of presence bits per block of 64 consecutive ids, kept in
 * a u64map keyed by block number + 1 (0 is the map's empty key).  The
 * recorder hands out ids in blocks per thread, so a session's ids are dense
 * and cost about one bit each; ids scattered on purpose cost at most one
 * word (32 bytes of map) each.  Growth is bounded by a word count and
 * charged to the budget.
 */
#ifndef EMLAT_IDSET_H
#define EMLAT_IDSET_H

#include <stdint.h>

#include "reader/budget.h"
#include "reader/u64map.h"

struct emlat_idset
{
  struct emlat_u64map words; /* (id >> 6) + 1 -> presence bits of 64 ids */
};

/* Add ID: 0 when it is new (or 0, which is not an id), 1 when it was
   already in the set, -1 when the set could not grow (MAX_WORDS words or
   the budget B); the set is then unchanged. */
int emlat_idset_add (struct emlat_idset *s, struct emlat_budget *b, uint64_t id,
                     uint64_t max_words);
/* 1 when ID is in the set. */
int emlat_idset_has (const struct emlat_idset *s, uint64_t id);
void emlat_idset_free (struct emlat_idset *s, struct emlat_budget *b);

#endif /* EMLAT_IDSET_H */

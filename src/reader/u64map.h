/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * u64map.h -- an open-addressing hash map from nonzero uint64_t keys to
 * uint64_t values, with deletion, used for identifiers (F-5: 0 is never an
 * id, so key 0 marks an empty slot).
 *
 * Linear probing, power-of-two capacity, load factor <= 1/2, backward-shift
 * deletion (no tombstones, so lookups stay short after many deletions).
 * Growth is charged to a struct emlat_budget and fails cleanly at its limit.
 */
#ifndef EMLAT_U64MAP_H
#define EMLAT_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#include "reader/budget.h"

struct emlat_u64map
{
  uint64_t *keys;
  uint64_t *vals;
  size_t cap;  /* 0 or a power of two */
  size_t n;
};

/* Lookup: pointer to KEY's value, or NULL. */
uint64_t *emlat_u64map_get (const struct emlat_u64map *m, uint64_t key);
/* Insert or find KEY; *VAL points to its value slot (0 for a new key) and
   *ADDED says whether it is new.  Returns 0 or -1 (budget or memory). */
int emlat_u64map_put (struct emlat_u64map *m, struct emlat_budget *b, uint64_t key,
                      uint64_t **val, int *added);
/* Remove KEY if present. */
void emlat_u64map_del (struct emlat_u64map *m, uint64_t key);
void emlat_u64map_free (struct emlat_u64map *m, struct emlat_budget *b);

#endif /* EMLAT_U64MAP_H */

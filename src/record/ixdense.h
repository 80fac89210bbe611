/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ixdense.h -- an interaction's fields gathered in a dense store and
 * recorded with one ring record: emlat_ix_commit (emlat.h) for a recording
 * layer that uses a few known fields and keeps them in thread-local memory
 * touched on every key.  Internal: not exported from the libraries.
 *
 * struct emlat_ix_fields has a slot for every field (about 700 bytes, 11
 * cache lines); a layer that sets 15 time fields, 7 values and 7 counters
 * writes a few words on each of those lines, and a key typed after the
 * machine idled finds every one of them cold (docs/PERFORMANCE.md, "A key
 * after idle").  The dense store keeps only the fields of its layout: the
 * layer names them with three masks (LAYOUT_T, LAYOUT_V, LAYOUT_C, the
 * time fields, values and counters it may set), and field K's word is at
 * the index of K among the layout's fields (all time fields first, then the
 * values, then the counters, each in ascending bit order), so the words of
 * the set fields are already in the order of the IX_FIELDS record
 * (FORMAT.md) and the commit copies them without a lookup table.
 *
 * Invariants: a field is set when its bit is in the store's mask; its word
 * is meaningful only then (a layer may stage a word before setting the
 * bit); the quality nibble of a time field is nonzero only for a set field
 * of nondefault quality.  The index functions are constant-folded when the
 * field is a constant, and EMLAT_IXD_CHECK makes a field outside the
 * layout a compile-time error.
 */
#ifndef EMLAT_RECORD_IXDENSE_H
#define EMLAT_RECORD_IXDENSE_H

#include <stdint.h>

#include "emlat/emlat.h"

struct emlat_ixd_head
{
  uint32_t tmask; /* bit f: time field f is set */
  uint32_t vmask; /* bit f: value field f is set */
  uint32_t cmask; /* bit c: counter c is set */
  uint32_t unused;
  /* Nondefault qualities, as the IX_FIELDS record carries them: nibble
     f % 16 of q[f / 16] is time field f's, 0 for its default. */
  uint64_t q[2];
};

/* Index of time field K, value field K, counter K among the words of a
   layout (T, V, C). */
static inline unsigned
emlat_ixd_tindex (uint32_t lt, unsigned k)
{
  return (unsigned)__builtin_popcount (lt & ((1u << k) - 1u));
}

static inline unsigned
emlat_ixd_vindex (uint32_t lt, uint32_t lv, unsigned k)
{
  return (unsigned)__builtin_popcount (lt)
         + (unsigned)__builtin_popcount (lv & ((1u << k) - 1u));
}

static inline unsigned
emlat_ixd_cindex (uint32_t lt, uint32_t lv, uint32_t lc, unsigned k)
{
  return (unsigned)__builtin_popcount (lt) + (unsigned)__builtin_popcount (lv)
         + (unsigned)__builtin_popcount (lc & ((1u << k) - 1u));
}

/* The number of words of a layout (an integer constant expression when
   the masks are). */
#define EMLAT_IXD_WORDS(lt, lv, lc)                                          \
  (__builtin_popcount (lt) + __builtin_popcount (lv) + __builtin_popcount (lc))

/* Fails to compile when bit K is not in the layout mask L. */
#define EMLAT_IXD_CHECK(l, k)                                                \
  _Static_assert (((l) >> (k)) & 1u, "field outside the dense layout")

static inline void
emlat_ixd_clear (struct emlat_ixd_head *h)
{
  h->tmask = h->vmask = h->cmask = 0;
  h->q[0] = h->q[1] = 0;
}

/* Set quality Q (0: the field's default) of time field K. */
static inline void
emlat_ixd_quality (struct emlat_ixd_head *h, unsigned k, enum emlat_quality q)
{
  unsigned shift = 4 * (k & 15u);
  h->q[k >> 4] = (h->q[k >> 4] & ~((uint64_t)0xf << shift))
                 | (uint64_t)((unsigned)q & 0xfu) << shift;
}

/* Record every field set in H (words W, layout LT, LV, LC) for interaction
   CAUSE in one IX_FIELDS ring record, as emlat_ix_commit_at does for a
   struct emlat_ix_fields: with STATUS nonzero the interaction also ends,
   at END (0: now).  The time field EMLAT_T_INTERACTION_END must not be in
   the layout (nothing is recorded when it is). */
void emlat_ix_commit_dense (uint64_t cause, const struct emlat_ixd_head *h,
                            const uint64_t *w, uint32_t lt, uint32_t lv,
                            uint32_t lc, enum emlat_ix_status status,
                            uint64_t end);

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ixtable.h -- the writer's table of interactions not yet written as
 * complete records (FORMAT.md 6.5).
 *
 * Interaction fields arrive as separate ring records, possibly from several
 * threads; the writer gathers them here by cause id.  An interaction that
 * ended in pass N is written in pass N+1: a record that happened-before the
 * end on another thread is then guaranteed to have been drained (its ring's
 * head was published before the end's, and pass N+1 loads every head after
 * pass N saw the end).  Open addressing with linear probing and
 * backward-shift deletion; entries live in a separate array.
 *
 * A new entry's field arrays (t, q, v, c) are not cleared: an element is
 * read only when its bit in tmask, vmask or cmask is set, which happens
 * when it is written (writer.c, encode.c); an entry that is reused may
 * carry a former entry's values in unset elements, which nothing reads
 * (checkpoints copy them as they are).
 *
 * Writer thread only; no synchronization.
 */
#ifndef EMLAT_IXTABLE_H
#define EMLAT_IXTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "format/encode.h"

#define EMLAT_IX_OPEN_MAX (1u << 20)

struct emlat_ix_entry
{
  struct emlat_enc_ix ix;
  uint64_t represents;   /* ring records folded into it */
  uint64_t ended_pass;   /* 0 while open */
  int begin_written;
  int has_begin;
};

struct emlat_ixtable
{
  uint32_t *slots;        /* index+1 into entries, 0 = empty */
  size_t nslots;          /* power of two */
  struct emlat_ix_entry *entries;
  size_t nentries, cap;
  size_t last;            /* the entry found or added last: a hint, checked
                             against its cause before use (entries move) */
};

void emlat_ixtable_free (struct emlat_ixtable *t);
/* The entry of CAUSE by probing, or NULL. */
struct emlat_ix_entry *emlat_ixtable_probe (struct emlat_ixtable *t, uint64_t cause);
/* The entry of CAUSE, or NULL.  The fields of one interaction come in a
   run of ring records: the entry of the last lookup is tried first (causes
   are unique in the table, so a match is the entry). */
static inline struct emlat_ix_entry *
emlat_ixtable_find (struct emlat_ixtable *t, uint64_t cause)
{
  if (t->last < t->nentries && t->entries[t->last].ix.cause == cause)
    return &t->entries[t->last];
  return emlat_ixtable_probe (t, cause);
}
/* Insert a new entry for CAUSE (not present); NULL when full or out of
   memory. */
struct emlat_ix_entry *emlat_ixtable_add (struct emlat_ixtable *t, uint64_t cause);
/* Remove entry number I (entries are moved: iterate backwards when
   removing while iterating). */
void emlat_ixtable_remove_at (struct emlat_ixtable *t, size_t i);

#endif /* EMLAT_IXTABLE_H */

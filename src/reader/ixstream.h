/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ixstream.h -- interactions as a stream: the INTERACTION records of a set
 * turned into interactions one at a time, exactly as a load that keeps
 * them all would make them (profile_load.c, profile_finish.c), without
 * keeping them.  Used by a load with EMLAT_LOAD_STREAM and by every
 * emlat_profile_each_interaction re-scan.
 *
 * What a load keeping every interaction decides, decided on the way:
 *   - an interaction is final at its complete record (F-65: the first one;
 *     a later complete record is a duplicate, a begin record after it adds
 *     nothing, F-92); it is handed over then, with its begin record's root
 *     kind when the complete record says 0;
 *   - an interaction with a begin record and no complete record is open:
 *     handed over at the end, in the order its cause was first seen;
 *   - a cause first named by a span is an interaction only if a begin or
 *     complete record defines it later; spans whose cause never is are
 *     "unknown cause" (their aggregates go to the unattributed ones);
 *   - the diagnostics (duplicates, open interactions) and the
 *     max_interactions limit count causes as that load counts them: every
 *     cause seen, in the order first seen.
 *
 * Memory: a cause is kept only from the first record naming it to its
 * complete record (a begin record usually precedes its complete record by
 * one writer pass), plus one bit per cause completed (idset.h: causes are
 * handed out in blocks, so about one bit each); every growth is charged to
 * the budget and bounded by max_interactions.
 */
#ifndef EMLAT_READER_IXSTREAM_H
#define EMLAT_READER_IXSTREAM_H

#include "emlat/emlat_reader.h"
#include "reader/budget.h"
#include "reader/idset.h"
#include "reader/u64map.h"

/* The most uint64_t words of one interaction's packed fields. */
#define EMLAT_IX_WORDS_MAX                                                                    \
  (EMLAT_T_FIELD_COUNT + EMLAT_V_FIELD_COUNT + EMLAT_C_COUNTER_COUNT                          \
   + (EMLAT_T_FIELD_COUNT + 15) / 16)

/* A private bit of struct emlat_interaction.flags: priv_slot is the
   address of the packed fields, not an arena index (an interaction handed
   over by a stream, valid during the call). */
#define EMLAT_IX_PRIV_DIRECT 0x80000000u

struct emlat_ixstream
{
  struct emlat_budget *budget;
  uint64_t max_interactions;
  int track_spans;            /* spans are fed: unknown causes are told */
  /* Diagnostics (may be NULL) and the receiver of each interaction (may
     be NULL; a nonzero return stops the stream and is returned). */
  void (*diag) (void *ctx, enum emlat_diag_kind kind, uint32_t file, uint64_t offset,
                uint64_t cause);
  int (*deliver) (void *ctx, const struct emlat_interaction *ix);
  void *ctx;
  const char *limit;          /* the limit that stopped the stream */

  struct emlat_u64map pending;  /* cause -> entry index + 1 */
  struct emlat_vec entries;     /* struct emlat_ixs_entry; free ones listed */
  struct emlat_vec free_entries;/* uint32_t */
  struct emlat_idset done;      /* causes whose complete record was taken */
  struct emlat_vec open_done;   /* struct emlat_ixs_open: complete, status open */
  struct emlat_vec aggs;        /* struct emlat_agg_node of unknown causes */
  uint32_t agg_free;            /* free list of AGGS, index + 1 */
  uint64_t created;             /* causes seen (the load's interaction count) */
  uint64_t interactions, open;  /* handed over; of those, open */
  uint64_t words[EMLAT_IX_WORDS_MAX];
};

/* Each returns 0, or the receiver's nonzero value, or -1 at a limit
   (S->limit names it). */
int emlat_ixs_begin (struct emlat_ixstream *s, const struct emlat_rd_ix_begin *b,
                     uint64_t thread, uint32_t file, uint64_t offset);
int emlat_ixs_complete (struct emlat_ixstream *s, const struct emlat_rd_ix *c, uint64_t thread,
                        uint32_t file, uint64_t offset);
/* A finished span of cause CAUSE (not 0), KIND, inclusive DURATION. */
int emlat_ixs_span (struct emlat_ixstream *s, uint64_t cause, uint32_t kind, uint64_t duration);
/* The end of the set: open interactions diagnosed and handed over in the
   order first seen; spans of causes no record defined added to
   UNATTRIBUTED (indexed by kind) and counted in *UNKNOWN_SPANS. */
int emlat_ixs_finish (struct emlat_ixstream *s, struct emlat_span_agg *unattributed,
                      uint64_t *unknown_spans);
void emlat_ixs_free (struct emlat_ixstream *s);

#endif /* EMLAT_READER_IXSTREAM_H */

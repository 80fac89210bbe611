/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spanjoin.h -- turning SPAN records into spans (6.6, F-67, F-68).
 *
 * A complete record is a span at once.  A begin record waits in a table of
 * open spans until the end record with its id arrives; the pair is then a
 * span.  An end without a known begin is an orphan (reported, not used);
 * begins left at the end are incomplete spans; a span whose end precedes
 * its start is backwards (F-93: reported, not used).  With a cause filter only
 * spans of that cause are kept, and unmatched ends are not orphans (their
 * begins belonged to other causes).
 *
 * The open table is bounded by limits.max_open_spans and the budget.
 */
#ifndef EMLAT_SPANJOIN_H
#define EMLAT_SPANJOIN_H

#include "emlat/emlat_reader.h"
#include "reader/budget.h"
#include "reader/u64map.h"

struct emlat_open_span
{
  struct emlat_span s; /* as begun; s.cpu_ns is the absolute CPU reading */
  uint32_t file;
  uint64_t offset;
};

struct emlat_spanjoin
{
  struct emlat_budget *budget;
  uint64_t max_open;
  uint64_t filter_cause;   /* 0: every cause */
  struct emlat_vec open;   /* struct emlat_open_span, slots reused */
  struct emlat_vec free_slots; /* uint32_t */
  struct emlat_u64map ids; /* span id -> slot + 1 */
};

enum emlat_join_result {
  EMLAT_JOIN_NONE = 0,     /* nothing to do (filtered out) */
  EMLAT_JOIN_DONE = 1,     /* *out is a finished span */
  EMLAT_JOIN_OPENED = 2,   /* a begin record now waits for its end */
  EMLAT_JOIN_ORPHAN = 3,   /* an end without begin */
  EMLAT_JOIN_DUPLICATE = 4,/* a begin whose id is already open */
  EMLAT_JOIN_LIMIT = 5,    /* the open table is full */
  EMLAT_JOIN_BACKWARDS = 6 /* *out ends before it starts (F-93): not a span;
                              its begin, if any, is no longer open */
};

/* A finished span and its counters, indexed by counter. */
struct emlat_joined
{
  struct emlat_span s;
  uint64_t counters[EMLAT_C_COUNTER_COUNT];
};

enum emlat_join_result emlat_spanjoin_feed (struct emlat_spanjoin *j,
                                            const struct emlat_record *r,
                                            uint32_t file, uint64_t offset,
                                            struct emlat_joined *out);
/* Call FN for every span still open (incomplete), in slot order. */
void emlat_spanjoin_each_open (const struct emlat_spanjoin *j,
                               void (*fn) (void *ctx, const struct emlat_open_span *o),
                               void *ctx);
void emlat_spanjoin_free (struct emlat_spanjoin *j);

/* Append SPAN (with counters from J's array, per its mask) to SPANS
   (struct emlat_span) and POOL (uint64_t), at most MAX_SPANS spans.
   Returns 0 or -1. */
int emlat_spanset_push (struct emlat_budget *b, struct emlat_vec *spans,
                        struct emlat_vec *pool, const struct emlat_span *span,
                        const uint64_t *counters, uint64_t max_spans);

#endif /* EMLAT_SPANJOIN_H */

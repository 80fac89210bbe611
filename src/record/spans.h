/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spans.h -- the writer's per-ring span pairing (FORMAT.md 6.6, F-67..F-69).
 *
 * The producer stores only "begin kind/id/cause/t" and "end id/status/t";
 * the writer rebuilds nesting from the ring's order: a span's parent is the
 * innermost open span of its thread when it began; ending a span ends every
 * span opened inside it as unwound.  A span whose begin and end are drained
 * in the same pass becomes one complete record; a span still open at the
 * end of a pass is written as a begin record, and its end later as an end
 * record.  Staged records keep begin (= id) order without sorting: a slot is
 * reserved when the span begins and filled when it ends.
 *
 * Writer thread only; no synchronization.
 */
#ifndef EMLAT_SPANS_H
#define EMLAT_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "format/encode.h"

#define EMLAT_SPAN_STACK_MAX 4096

struct emlat_open_span
{
  uint64_t id, parent, cause, t_start, cpu_begin;
  uint64_t name; /* string id of a named section (app.c), the end's
                    detail when the end gives none; 0 = none */
  uint8_t kind, has_cpu, begin_written;
  long staged; /* index in staged[] while begun this pass, else -1 */
  uint32_t ncounters;
  struct emlat_counter_pair counters[EMLAT_C_COUNTER_COUNT];
};

struct emlat_staged_span
{
  struct emlat_enc_span enc;
  size_t pair_off;     /* counters live in pairs[pair_off .. + enc.ncounters] */
  uint64_t represents; /* ring records it carries */
  int filled;          /* complete/end data present (else: still open) */
};

struct emlat_span_state
{
  uint64_t thread;
  struct emlat_open_span *stack;
  size_t depth, stack_cap;
  struct emlat_staged_span *staged;
  size_t nstaged, staged_cap;
  struct emlat_counter_pair *pairs;
  size_t npairs, pairs_cap;
  uint64_t discarded;   /* records rejected (stack overflow, unknown span) */
  uint64_t lost_memory; /* records lost to a failed allocation (staging, or
                           encoding in emlat_spans_emit); the writer turns
                           both counts into LOSS records and clears them */
};

void emlat_spans_reset (struct emlat_span_state *ss, uint64_t thread);
void emlat_spans_free (struct emlat_span_state *ss);
void emlat_spans_begin (struct emlat_span_state *ss, uint64_t id, unsigned kind, uint64_t cause,
                        uint64_t t, int has_cpu, uint64_t cpu);
void emlat_spans_end (struct emlat_span_state *ss, uint64_t id, unsigned status, uint64_t t,
                      uint64_t detail, int has_cpu, uint64_t cpu);
void emlat_spans_count (struct emlat_span_state *ss, uint64_t id, unsigned counter, uint64_t v);
/* The span ID just begun (the top of the stack) is a section named NAME
   (a string id): its end record carries NAME as detail when the end gives
   none (FORMAT.md F-44). */
void emlat_spans_name_top (struct emlat_span_state *ss, uint64_t id, uint64_t name);
/* End of pass: stage begin records for open spans not yet written, encode
   everything staged into SPAN chunks of at most CHUNK_BYTES payload, and
   clear the staging area.  Returns 0 or -1 (allocation): the records of
   the chunks added to OUT are then the caller's to account for, the rest
   of what was staged is counted in lost_memory. */
int emlat_spans_emit (struct emlat_span_state *ss, struct emlat_arena *a,
                      struct emlat_chunk_list *out, size_t chunk_bytes);
/* Records still held (open spans' counters are carried by later records). */
int emlat_spans_idle (const struct emlat_span_state *ss);

#endif /* EMLAT_SPANS_H */

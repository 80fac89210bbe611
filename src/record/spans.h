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
 * record.
 *
 * Record order is begin (= id) order, without sorting: a span begun in the
 * pass reserves a staged slot when it begins, filled when it ends; an end
 * record (of a span begun in an earlier pass, or an orphan) is staged when
 * it is drained.  Records are encoded as soon as every slot before them is
 * filled, straight into the ring's open SPAN chunk of the pass (the staging
 * queue holds only what waits for an open span before it), and a span
 * whose end directly follows its begin in the ring, with nothing waiting,
 * is encoded without being staged at all.  The bytes are exactly those of
 * staging everything and encoding at the end of the pass: the same records
 * in the same order into the same chunks (a chunk is finished before a
 * record when its payload reached the limit).
 *
 * A pass: emlat_spans_pass_begin, emlat_spans_drain over the ring's span
 * records, emlat_spans_emit.  Between pass_begin and emit the ring's SPAN
 * chunk is open at the end of the writer's arena: nothing else may append
 * to the arena in between (the writer drains one ring at a time and
 * encodes its other chunks before or after).
 *
 * Writer thread only; no synchronization.
 */
#ifndef EMLAT_SPANS_H
#define EMLAT_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "format/encode.h"
#include "record/ring.h"

#define EMLAT_SPAN_STACK_MAX 4096

/* Saved as it is in checkpoints (checkpoint.h): a change of layout is a
   change of the ring file's layout word. */
struct emlat_open_span
{
  uint64_t id, parent, cause, t_start, cpu_begin;
  uint64_t name; /* string id of a named section (a begin of kind user
                    carrying a name, ringrec.h): the end record's detail
                    when the end gives none; 0 = none */
  uint8_t kind, has_cpu, begin_written;
  long staged; /* index in staged[] while begun this pass, else -1 */
  uint32_t ncounters;
  /* The ring records that set them (SPAN_COUNT: one counter each;
     SPAN_COUNTS: several; a counter set twice: two): what the span's
     record represents besides its begin and end. */
  uint32_t count_records;
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
  /* staged[0 .. head) are encoded; staged[head] is the first record that
     waits (unfilled, or behind one); head == nstaged: nothing waits, and
     then both are 0. */
  struct emlat_staged_span *staged;
  size_t nstaged, staged_cap, head;
  struct emlat_counter_pair *pairs;
  size_t npairs, pairs_cap;
  uint64_t discarded;   /* records rejected (stack overflow, unknown span) */
  uint64_t lost_memory; /* records lost to a failed allocation (staging, or
                           encoding); the writer turns both counts into
                           LOSS records and clears them */
  /* The pass's SPAN chunk (pass_begin .. emit). */
  struct emlat_arena *arena;
  struct emlat_chunk_list *out;
  size_t chunk_bytes;
  struct emlat_cb cb;
  size_t fast_end; /* while the arena's length is below it, a complete
                      record fits in the open chunk: no chunk to finish,
                      room for it, nothing failed (else 0) */
  int cb_open;
  int enc_failed; /* an allocation failed while encoding: the rest of the
                     pass's records are counted in lost_memory */
  /* The counts of a served record (ringrec.h, EMLAT_RR_SERVED) of an open
     span whose cause is SERVED_CAUSE (0: none waiting): the drain stops
     after that record, and the caller adds them to the interaction's
     counters and sets SERVED_CAUSE back to 0.  Bit c of SERVED_MASK:
     SERVED[c] is counter c's value. */
  uint64_t served_cause;
  uint32_t served_mask;
  uint64_t served[EMLAT_C_COUNTER_COUNT];
  /* The open interaction of the ring's terminal model (ttymodel.c), 0 =
     none: the cause of a begin whose record says EMLAT_CAUSE_OPEN_TTY
     (ttycall.h). */
  uint64_t tty_cause;
};

void emlat_spans_reset (struct emlat_span_state *ss, uint64_t thread);
void emlat_spans_free (struct emlat_span_state *ss);
/* Start a pass: records are encoded into SPAN chunks of at most
   CHUNK_BYTES payload in arena A, finished chunks appended to OUT. */
void emlat_spans_pass_begin (struct emlat_span_state *ss, struct emlat_arena *a,
                             struct emlat_chunk_list *out, size_t chunk_bytes);
/* Drain the valid span records (begin, end, count) of ring SLOTS (MASK =
   slots - 1) from TAIL, up to SNAP, and return the position after the
   last one taken: it stops at the first record that is not a span record,
   or is malformed (the caller's to account for), and returns TAIL when
   that is the first.  Validates exactly as writer.c's drain loop; a
   begin carrying a name (ringrec.h) must be of kind user. */
uint64_t emlat_spans_drain (struct emlat_span_state *ss, const struct emlat_slot *slots,
                            uint64_t mask, uint64_t tail, uint64_t snap);
/* End of pass: begin records for open spans not yet written, encode
   everything still staged, finish the chunk.  Returns 0 or -1 (allocation
   failed in this pass): the records of the chunks added to OUT are then
   the caller's to account for, the rest of the pass's records are counted
   in lost_memory. */
int emlat_spans_emit (struct emlat_span_state *ss);
/* The spans still open will never end (their thread exited, or this is the
   session's final pass): their counters, which only an end record can
   carry (FORMAT.md 6.6), are counted in DISCARDED. */
void emlat_spans_abandon (struct emlat_span_state *ss);
/* Records still held (open spans' counters are carried by later records). */
int emlat_spans_idle (const struct emlat_span_state *ss);

#endif /* EMLAT_SPANS_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ringrec.h -- the in-memory layout of records in a thread's ring.
 *
 * Not a file format: rings live only inside one process, between a producer
 * call (producer.c) and the writer (writer.c), which validates every field
 * before encoding it (a malformed record becomes a LOSS record_invalid).
 *
 * Slot word 0 is the record head:
 *   bits 0..7   record type (EMLAT_RR_*)
 *   bits 8..15  a: kind, field, status or counter
 *   bits 16..23 b: quality, flags or operation
 *   bits 24..31 number of slots of the record (1 to EMLAT_RR_MAX_SLOTS)
 *
 *   type          a         b            w1        w2        w3      slot 2
 *   SPAN_BEGIN    kind      CPU flag     span id   cause     t       w0 = cpu
 *   SPAN_END      status    CPU flag     span id   t         detail  w0 = cpu
 *   SPAN_COUNT    counter   served       span id   value     -
 *   SPAN_COUNTS   n (1..29) served       span id   counter   value 1 slots 2..N:
 *                                                  mask              values 2..n
 *   IX_BEGIN      root kind -            cause     parent    sched   w0 = t
 *   IX_TIME       field     quality/0    cause     t         -
 *   IX_VALUE      field     -            cause     value     -
 *   IX_COUNT      counter   0 set 1 add  cause     value     -
 *   IX_END        status    -            cause     t         -
 *   INPUT         mask      quality      batch     t_empty   t_ready w0 = t_rbegin,
 *                                                                  w1 = t_rend,
 *                                                                  w2 = bytes
 *   APP           event tag -            id        t         value
 *   IX_FIELDS     status    Q flag       cause     masks     cmask   slots 2..N:
 *                 (0: does                         (t | v<<32)       words
 *                 not end)
 *   TTY           operation flags        t0        t1        value   w0 = observer
 *                                                                  time (READ with
 *                                                                  the OBS flag)
 *
 * TTY (ttycall.h) is one terminal call of a program under the terminal
 * library, as it happened: the interaction model that turns such calls
 * into interactions and input batches runs where the ring is read
 * (ttymodel.c), not in the program.  Bits 32..47 of its head word carry
 * the two qualities of an OUTPUT (bits 32..39 of its t0, 40..47 of its
 * t1); the other operations leave them 0.
 *
 * Bits 32..63 of the head word carry a string id (app.c, emlat_app.h): the
 * name of a section in a SPAN_BEGIN of kind user, the name of an APP
 * event; the other records leave them 0.  IX_BEGIN of root kind
 * application carries its name in word 1 of its second slot.  APP (1
 * slot) is an EVENT record (FORMAT.md 6.9): the tag is enum
 * emlat_event_tag, the value an int64_t or the bits of a double.
 *
 * SPAN_COUNTS (emlat_span_counts) carries N counters of one span in
 * 1 + ceil((N - 1) / 4) slots (at most EMLAT_RR_SPAN_COUNTS_MAX_SLOTS):
 * the mask has N bits set, below EMLAT_C_COUNTER_COUNT; the value of the
 * k-th set counter (ascending) is word 3 of the head slot for k = 1, then
 * word (k - 2) % 4 of slot 1 + (k - 2) / 4; the words after the last
 * value are 0.
 *
 * IX_FIELDS (emlat_ix_commit) carries many fields of one interaction in
 * 2..EMLAT_RR_MAX_SLOTS slots: after the head slot, a sequence of 64-bit
 * words -- two words of 4-bit qualities when the Q flag is set (nibble i
 * % 16 of word i / 16 is the quality of time field i, 0 = default and 0
 * for a field the record does not carry; since EMLAT_RR_REVISION 2),
 * then the set time fields, value fields and counters, each in ascending
 * bit order -- padded with zeros to whole slots.  A nonzero status ends the
 * interaction; its end time is then the time field
 * EMLAT_T_INTERACTION_END among the words.
 */
#ifndef EMLAT_RINGREC_H
#define EMLAT_RINGREC_H

#include <stdint.h>

enum emlat_ring_record {
  EMLAT_RR_SPAN_BEGIN = 1,
  EMLAT_RR_SPAN_END = 2,
  EMLAT_RR_SPAN_COUNT = 3,
  EMLAT_RR_IX_BEGIN = 4,
  EMLAT_RR_IX_TIME = 5,
  EMLAT_RR_IX_VALUE = 6,
  EMLAT_RR_IX_COUNT = 7,
  EMLAT_RR_IX_END = 8,
  EMLAT_RR_INPUT = 9,
  EMLAT_RR_IX_FIELDS = 10,
  EMLAT_RR_APP = 11,
  EMLAT_RR_SPAN_COUNTS = 12,
  EMLAT_RR_TTY = 13
};
/* One more than the highest record type: part of the ring file's layout
   word (ringfile.c), so that a reader that does not know a type never
   reads a ring file that may hold it. */
#define EMLAT_RR_TYPE_END 14
#define EMLAT_RR_NAME(h) ((h) >> 32)

/* The revision of what the ring file holds, part of the layout word too:
   a record whose words change meaning, or a checkpoint whose structures
   change, without changing a size (2: the qualities of IX_FIELDS by field
   rather than by rank among the set fields; 3: an open span's count of
   the counter records it carries, count_records in spans.h; 4: the
   identifier counters in the shared counters, a checkpoint's rings with
   their terminal model). */
#define EMLAT_RR_REVISION 4

/* The most slots one record takes (IX_FIELDS: a head slot, 2 quality words
   and 32 + 15 + 29 field words in 4-word slots, rounded up). */
#define EMLAT_RR_MAX_SLOTS 21

/* The most slots a SPAN_COUNTS record takes: 29 counters. */
#define EMLAT_RR_SPAN_COUNTS_MAX_SLOTS 8

#define EMLAT_RR_CPU 1u

/* Field b of SPAN_COUNT and SPAN_COUNTS: the counts are also added to the
   counters of the interaction the span serves (its cause), if that
   interaction is still open (emlat_span_counts_served); 0 = the span's
   only. */
#define EMLAT_RR_SERVED 1u

/* The cause of a SPAN_BEGIN that serves the open terminal interaction of
   its ring (ttycall.h, ENSURE): never an interaction id, which count up
   from 1. */
#define EMLAT_CAUSE_OPEN_TTY UINT64_MAX

static inline uint64_t
emlat_rr_head (unsigned type, unsigned a, unsigned b, unsigned nslots)
{
  return (uint64_t)type | (uint64_t)(a & 0xff) << 8 | (uint64_t)(b & 0xff) << 16
         | (uint64_t)nslots << 24;
}
#define EMLAT_RR_TYPE(h) ((unsigned)((h) & 0xff))
#define EMLAT_RR_A(h) ((unsigned)(((h) >> 8) & 0xff))
#define EMLAT_RR_B(h) ((unsigned)(((h) >> 16) & 0xff))
#define EMLAT_RR_NSLOTS(h) ((unsigned)(((h) >> 24) & 0xff))

#endif /* EMLAT_RINGREC_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ttymodel.h -- the terminal interaction model, run where a ring is read
 * (docs/TTY.md, "The model"; docs/DESIGN.md section 8.5): the writer's
 * drain of a ring (in the process, in the driver, or in a recovering
 * reader) turns the ring's terminal call records (ttycall.h) into
 * interactions in the writer's table and input batches, exactly as the
 * program's thread would have.  One model per ring (one ring per thread).
 *
 * Invariants: writer thread (or recovering reader) only; the model's state
 * is plain data (struct emlat_tty_model), saved with its ring in every
 * checkpoint so that a recovery resumes it; the open interaction it names
 * is in the writer's table (or was lost there, counted); interaction,
 * input batch and output epoch numbers come from the session's shared
 * counters (ring.h), the sequences the producers use.
 */
#ifndef EMLAT_TTYMODEL_H
#define EMLAT_TTYMODEL_H

#include <stdint.h>

struct emlat_session;
struct emlat_ring_ws;
struct emlat_slot;

struct emlat_tty_model
{
  uint64_t cause;          /* the open interaction, 0 = none */
  uint64_t t_empty;        /* when the input was last known empty, 0 = never */
  uint64_t t_ready;        /* the first main-poll readable since the last
                              batch, 0 = none */
  uint64_t stdio_pending;  /* stdio calls seen while no interaction was open */
  uint64_t first_earliest, first_latest; /* the first batch's bounds, staged
                                            until a second batch */
  uint64_t unfolded;       /* call records that belong to no interaction yet:
                              folded into the next one that opens */
  uint8_t kind;            /* the open interaction's root kind */
  uint8_t empty_q;         /* the quality of t_empty */
  uint8_t first_earliest_q, first_latest_q; /* as recorded (0: default) */
  uint32_t flush_failures_pending; /* failed fflush calls among stdio_pending */
};

/* A new owner, or none. */
void emlat_tty_model_reset (struct emlat_tty_model *m);

/* Records of the ring were lost (ring full) before the next one: what the
   model knew of the input no longer holds. */
void emlat_tty_model_gap (struct emlat_tty_model *m);

/* Apply one TTY record of NS slots (A its head slot, B its second slot or
   A) of the ring whose writer state is WS.  Returns 0, or -1 for a
   malformed record (the caller counts it as invalid). */
int emlat_tty_drain (struct emlat_session *s, struct emlat_ring_ws *ws, unsigned ns,
                     const struct emlat_slot *a, const struct emlat_slot *b);

#endif /* EMLAT_TTYMODEL_H */

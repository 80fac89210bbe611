/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * checkpoint.h -- the writer's state between passes, saved into the ring
 * file after every pass that wrote (ringfile.h) and restored by recovery
 * (recover.c), so that a reader can finish the profile of a process that
 * died: which file and how many of its bytes are complete, the next chunk
 * sequence number, each ring's drained position, open spans and terminal
 * model, the
 * interactions still open, the losses not yet written, the counters of
 * STATS.
 *
 * The body is this build's structures copied as they are (a private
 * format: the layout word of the ring file says which build wrote it):
 *   struct emlat_ckpt_fixed
 *   nlosses x struct emlat_pending_loss
 *   nrings x (struct emlat_ckpt_ring + depth x struct emlat_open_span)
 *   nix x struct emlat_ix_entry
 * Restoring validates every count and index against the sizes it was
 * given; a body that does not add up is refused, never half applied.
 */
#ifndef EMLAT_CHECKPOINT_H
#define EMLAT_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "record/ttymodel.h"

struct emlat_session;

#define EMLAT_CKPT_MAGIC "EMLATCKP"

/* One ring's drained position and span state. */
struct emlat_ckpt_ring
{
  uint32_t index;
  uint32_t retired;      /* drained to the end and handed back (RETIRING) */
  uint64_t thread;       /* the owner this state belongs to */
  uint64_t tail;         /* every record below it is in the profile */
  uint64_t drops_reported, drop_bytes_reported;
  uint64_t depth;        /* open spans that follow */
  struct emlat_tty_model tty; /* the ring's terminal model (ttymodel.h) */
};

struct emlat_ckpt_fixed
{
  char magic[8];
  uint64_t rotation, out_size, chunk_seq, strings_in_file;
  uint64_t records_written, records_dropped, bytes_written, chunks_written;
  uint64_t ring_high_water, write_errors, writer_cpu_ns;
  int64_t last_error, first_error;
  uint64_t noring_reported, noring_bytes_reported, retired_accepted;
  uint64_t strings_refused_reported, pass, last_stats_t;
  uint64_t wakeups, highwater_wakes, ahead_wakes;
  uint64_t nlosses, nrings, nix;
};

/* The layout words emlat_rf_layout hashes. */
#define EMLAT_CKPT_LAYOUT_COUNT 6
#define EMLAT_CKPT_LAYOUT_WORDS 1
void emlat_ckpt_layout (uint64_t words[EMLAT_CKPT_LAYOUT_COUNT]);

/* S's state after a pass whose rings were drained to SNAPS (indexed like
   the pool; STATES as the pass saw them), as the pieces of the body in
   order: a small new buffer for the fixed part and the rings' records,
   and the losses, the rings' open spans and the interactions where they
   are (no copy: they are unchanged until the body is written). */
struct emlat_ckpt_body
{
  struct iovec *v;
  int n;
  size_t len; /* bytes in all */
  void *own;  /* what to free: the buffer and the vector */
};
int emlat_ckpt_save (const struct emlat_session *s, const uint64_t *snaps, const int *states,
                     uint32_t used, struct emlat_ckpt_body *body);
void emlat_ckpt_body_free (struct emlat_ckpt_body *body);

/* Restore S's writer state from BUF[0..LEN); *TAILS (S's max_threads
   entries, UINT64_MAX where the checkpoint has no state for that ring) and
   *RETIRED receive each ring's position.  S must be freshly allocated
   with its per-ring state.  Returns 0, -EINVAL for a body that does not
   add up, or -ENOMEM. */
int emlat_ckpt_restore (struct emlat_session *s, const void *buf, size_t len, uint64_t *tails,
                        uint64_t *threads, uint8_t *retired);

#endif /* EMLAT_CHECKPOINT_H */

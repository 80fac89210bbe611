/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ttycall.h -- a terminal call as one ring record (ringrec.h, EMLAT_RR_TTY):
 * what the terminal library (src/tty) stores for each call it traces, and
 * what the terminal model (ttymodel.c) reads where the ring is drained.
 * Internal: shared by the library's parts, not exported.
 *
 *   operation    flags                        t0        t1        value
 *   WAIT_BEGIN   -                            start     -         -
 *                  a wait for terminal input with a nonzero timeout began
 *   WAIT_END     READY, BLOCKED               start     end       empty_at
 *                  a wait that watched terminal input returned; empty_at
 *                  (t0 <= empty_at <= t1) when it found it not readable
 *                  (of a run of such empty observations, a wait's or a
 *                  read's, the library stores only the last: tty_ix.c)
 *   READ         OBS                          start     end       bytes
 *                  a read of terminal input that returned BYTES (0: it
 *                  found the input empty, by 0 or EAGAIN; a read that
 *                  failed otherwise is not stored); with OBS, a second
 *                  slot's word 0 is the observer's first readable time
 *                  since the previous consuming read
 *   OUTPUT       OK, WRITE_CALL, WRITE_FAILED, start    end       bytes
 *                STDIO_CALL, FLUSH_FAILED
 *                  a write or stdio call on terminal output; bytes it
 *                  emitted (0: none); head bits 32..39 and 40..47 are the
 *                  qualities of t0 and t1 (nonzero when bytes > 0)
 *   ENSURE       -                            now       -         -
 *                  a span that serves the open interaction follows
 *                  (EMLAT_TTY_SPANS=1): open one if none is
 *   CLOSE        -                            now       -         -
 *                  the thread's open interaction ends (session stop)
 *
 * Unused words are 0.  A span begin whose cause is EMLAT_CAUSE_OPEN_TTY
 * serves the ring's open terminal interaction (ringrec.h; spans.c
 * substitutes it).
 *
 * Invariant: emlat_tty_put is a producer call (state.h): the calling
 * thread's ring, one or two slots, one release store; no allocation, lock
 * or system call.
 */
#ifndef EMLAT_TTYCALL_H
#define EMLAT_TTYCALL_H

#include <stdint.h>

#include "common/hot.h"
#include "record/ringrec.h"
#include "record/state.h"

enum emlat_tty_op {
  EMLAT_TTY_WAIT_BEGIN = 1,
  EMLAT_TTY_WAIT_END = 2,
  EMLAT_TTY_READ = 3,
  EMLAT_TTY_OUTPUT = 4,
  EMLAT_TTY_ENSURE = 5,
  EMLAT_TTY_CLOSE = 6
};
#define EMLAT_TTY_OP_MAX 6

/* WAIT_END */
#define EMLAT_TTY_F_READY 1u
#define EMLAT_TTY_F_BLOCKED 2u
/* READ */
#define EMLAT_TTY_F_OBS 4u
/* OUTPUT */
#define EMLAT_TTY_F_OK 1u
#define EMLAT_TTY_F_WRITE_CALL 2u
#define EMLAT_TTY_F_WRITE_FAILED 4u
#define EMLAT_TTY_F_STDIO_CALL 8u
#define EMLAT_TTY_F_FLUSH_FAILED 16u

/* A wait or read that took at least this long is taken to have blocked
   on an empty descriptor (docs/TTY.md, "Arrival bounds"). */
#define EMLAT_TTY_BLOCK_NS 1000000u

/* Store one terminal call (OP, FLAGS, AUX: head bits 32..63) in the
   calling thread's ring; with HAS_OBS, two slots, OBS in the second. */
EMLAT_HOT static inline void
emlat_tty_put (unsigned op, unsigned flags, uint32_t aux, uint64_t t0, uint64_t t1,
               uint64_t value, int has_obs, uint64_t obs)
{
  unsigned n = has_obs ? 2 : 1;
  struct emlat_ring *r = emlat_my_ring (n);
  if (EMLAT_UNLIKELY (!r))
    return;
  uint64_t h;
  struct emlat_slot *s = emlat_ring_reserve (r, n, t1 ? t1 : t0, &h);
  if (EMLAT_UNLIKELY (!s))
    return;
  s->w[0] = emlat_rr_head (EMLAT_RR_TTY, op, flags, n) | (uint64_t)aux << 32;
  s->w[1] = t0;
  s->w[2] = t1;
  s->w[3] = value;
  if (has_obs)
    {
      struct emlat_slot *b = emlat_ring_next (r, s);
      b->w[0] = obs;
      b->w[1] = b->w[2] = b->w[3] = 0;
    }
  emlat_ring_publish (r, h, n);
}

/* emlat_tty_put of a one-slot record in its common case, calling
   nothing: the thread's ring claimed in the active session (the test of
   emlat_my_ring) and room below the ring's limit (emlat_ring_reserve's).
   1 when stored; 0, nothing stored, when emlat_tty_put must take it (no
   session, no ring yet, the limit reached: a look at the tail, a wake-up
   or a drop).  A caller that has nothing else to call on this path stays
   a leaf: no register saved, no frame (docs/PERFORMANCE.md, "A record
   without a call"). */
EMLAT_HOT static inline int
emlat_tty_put1_try (unsigned op, unsigned flags, uint32_t aux, uint64_t t0, uint64_t t1,
                    uint64_t value)
{
  /* Relaxed: see emlat_g_active_gen (state.h). */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  if (EMLAT_UNLIKELY (gen != emlat_thread_line.gen))
    return 0;
  struct emlat_ring *r = emlat_thread_line.ring;
  if (!r)
    __builtin_unreachable (); /* a matching generation implies a ring */
  /* Relaxed: only this thread stores head. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  if (EMLAT_UNLIKELY (h + 1 > r->limit))
    return 0;
  struct emlat_slot *s = &r->slots[h & r->mask];
  s->w[0] = emlat_rr_head (EMLAT_RR_TTY, op, flags, 1) | (uint64_t)aux << 32;
  s->w[1] = t0;
  s->w[2] = t1;
  s->w[3] = value;
  emlat_ring_publish (r, h, 1);
  return 1;
}

#endif /* EMLAT_TTYCALL_H */

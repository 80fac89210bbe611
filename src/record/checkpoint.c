/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * checkpoint.c -- saving and restoring the writer's state (checkpoint.h).
 *
 * Runs on the writer thread (save) or in a recovering reader (restore);
 * neither touches a ring.  Restore trusts nothing: the body comes from a
 * file another process wrote, so every count is checked against the bytes
 * that remain and every ring index against the session's ring count.
 */
#include "record/checkpoint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/session.h"

void
emlat_ckpt_layout (uint64_t words[EMLAT_CKPT_LAYOUT_COUNT])
{
  words[0] = sizeof (struct emlat_ckpt_fixed);
  words[1] = sizeof (struct emlat_pending_loss);
  words[2] = sizeof (struct emlat_ckpt_ring);
  words[3] = sizeof (struct emlat_open_span);
  words[4] = sizeof (struct emlat_ix_entry);
  words[5] = EMLAT_C_COUNTER_COUNT | (uint64_t)EMLAT_T_FIELD_COUNT << 16
             | (uint64_t)EMLAT_V_FIELD_COUNT << 32;
}

static int
ring_saved (int state)
{
  return state == EMLAT_RING_OWNED || state == EMLAT_RING_RETIRING;
}

/* The next piece of the body. */
static void
piece (struct emlat_ckpt_body *b, const void *p, size_t n)
{
  if (!n)
    return;
  b->v[b->n].iov_base = (void *)p;
  b->v[b->n++].iov_len = n;
  b->len += n;
}

int
emlat_ckpt_save (const struct emlat_session *s, const uint64_t *snaps, const int *states,
                 uint32_t used, struct emlat_ckpt_body *body)
{
  size_t nrings = 0;
  for (uint32_t i = 0; i < used; i++)
    if (ring_saved (states[i]))
      nrings++;
  /* One allocation: the fixed part, the rings' records, the vector (the
     fixed part, the losses, each ring's record and open spans, the
     interactions). */
  size_t nv = 3 + 2 * nrings;
  size_t head = sizeof (struct emlat_ckpt_fixed) + nrings * sizeof (struct emlat_ckpt_ring);
  char *buf = malloc (head + nv * sizeof (struct iovec));
  if (!buf)
    return -ENOMEM;
  memset (buf, 0, head);
  body->own = buf;
  body->v = (struct iovec *)(buf + head);
  body->n = 0;
  body->len = 0;
  struct emlat_ckpt_fixed *f = (struct emlat_ckpt_fixed *)buf;
  memcpy (f->magic, EMLAT_CKPT_MAGIC, 8);
  f->rotation = s->rotation;
  f->out_size = s->out.size;
  f->chunk_seq = s->chunk_seq;
  f->strings_in_file = s->strings_in_file;
  f->records_written = s->records_written;
  f->records_dropped = s->records_dropped;
  f->bytes_written = s->bytes_written;
  f->chunks_written = s->chunks_written;
  f->ring_high_water = s->ring_high_water;
  f->write_errors = s->write_errors;
  f->writer_cpu_ns = s->writer_cpu_ns;
  f->last_error = s->last_error;
  f->first_error = s->first_error;
  f->noring_reported = s->noring_reported;
  f->noring_bytes_reported = s->noring_bytes_reported;
  f->retired_accepted = s->retired_accepted;
  f->strings_refused_reported = s->strings_refused_reported;
  f->pass = s->pass;
  f->last_stats_t = s->last_stats_t;
  f->wakeups = s->wakeups;
  f->highwater_wakes = s->highwater_wakes;
  f->ahead_wakes = s->ahead_wakes;
  f->nlosses = s->nlosses;
  f->nrings = nrings;
  f->nix = s->ix.nentries;
  piece (body, f, sizeof *f);
  piece (body, s->losses, s->nlosses * sizeof (struct emlat_pending_loss));
  struct emlat_ckpt_ring *r = (struct emlat_ckpt_ring *)(buf + sizeof *f);
  for (uint32_t i = 0; i < used; i++)
    {
      if (!ring_saved (states[i]))
        continue;
      const struct emlat_ring_ws *ws = &s->ws[i];
      r->index = i;
      r->retired = states[i] == EMLAT_RING_RETIRING;
      r->thread = s->pool->rings[i].thread_id;
      r->tail = snaps[i];
      r->drops_reported = ws->drops_reported;
      r->drop_bytes_reported = ws->drop_bytes_reported;
      r->depth = states[i] == EMLAT_RING_OWNED ? ws->spans.depth : 0;
      r->tty = ws->tty;
      piece (body, r, sizeof *r);
      piece (body, ws->spans.stack, r->depth * sizeof (struct emlat_open_span));
      r++;
    }
  piece (body, s->ix.entries, s->ix.nentries * sizeof (struct emlat_ix_entry));
  return 0;
}

void
emlat_ckpt_body_free (struct emlat_ckpt_body *body)
{
  free (body->own);
  body->own = 0;
}

/* Take N bytes from the cursor, or NULL when fewer remain. */
static const char *
take (const char **p, const char *end, size_t n)
{
  if ((size_t)(end - *p) < n)
    return 0;
  const char *q = *p;
  *p += n;
  return q;
}

int
emlat_ckpt_restore (struct emlat_session *s, const void *buf, size_t len, uint64_t *tails,
                    uint64_t *threads, uint8_t *retired)
{
  const char *p = buf, *end = p + len;
  const struct emlat_ckpt_fixed *f = (const void *)take (&p, end, sizeof *f);
  if (!f || memcmp (f->magic, EMLAT_CKPT_MAGIC, 8) != 0 || f->nrings > s->max_threads
      || f->nlosses > (1u << 20) || f->nix > EMLAT_IX_OPEN_MAX)
    return -EINVAL;
  struct emlat_ckpt_fixed fx;
  memcpy (&fx, f, sizeof fx);
  for (uint32_t i = 0; i < s->max_threads; i++)
    {
      tails[i] = UINT64_MAX;
      threads[i] = 0;
      retired[i] = 0;
    }
  const char *losses = take (&p, end, fx.nlosses * sizeof (struct emlat_pending_loss));
  if (!losses)
    return -EINVAL;
  if (fx.nlosses > s->losses_cap)
    {
      struct emlat_pending_loss *v = realloc (s->losses, fx.nlosses * sizeof *v);
      if (!v)
        return -ENOMEM;
      s->losses = v;
      s->losses_cap = fx.nlosses;
    }
  if (fx.nlosses)
    memcpy (s->losses, losses, fx.nlosses * sizeof (struct emlat_pending_loss));
  s->nlosses = fx.nlosses;
  for (uint64_t k = 0; k < fx.nrings; k++)
    {
      struct emlat_ckpt_ring r;
      const char *rp = take (&p, end, sizeof r);
      if (!rp)
        return -EINVAL;
      memcpy (&r, rp, sizeof r);
      if (r.index >= s->max_threads || r.depth > EMLAT_SPAN_STACK_MAX
          || tails[r.index] != UINT64_MAX || r.tty.kind > EMLAT_ROOT_KIND_MAX
          || r.tty.empty_q > EMLAT_Q_MAX || r.tty.first_earliest_q > EMLAT_Q_MAX
          || r.tty.first_latest_q > EMLAT_Q_MAX)
        return -EINVAL;
      const char *stack = take (&p, end, r.depth * sizeof (struct emlat_open_span));
      if (!stack)
        return -EINVAL;
      struct emlat_ring_ws *ws = &s->ws[r.index];
      emlat_spans_reset (&ws->spans, r.thread);
      if (r.depth)
        {
          struct emlat_open_span *v = realloc (ws->spans.stack, r.depth * sizeof *v);
          if (!v)
            return -ENOMEM;
          ws->spans.stack = v;
          ws->spans.stack_cap = r.depth;
          memcpy (v, stack, r.depth * sizeof *v);
          for (uint64_t d = 0; d < r.depth; d++)
            {
              v[d].staged = -1; /* begin records were written (emit) */
              /* Counters come with the records that set them. */
              if (v[d].ncounters > EMLAT_C_COUNTER_COUNT
                  || (v[d].ncounters == 0) != (v[d].count_records == 0))
                return -EINVAL;
            }
          ws->spans.depth = r.depth;
        }
      ws->thread = r.thread;
      ws->tty = r.tty;
      ws->spans.tty_cause = r.tty.cause;
      ws->drops_reported = r.drops_reported;
      ws->drop_bytes_reported = r.drop_bytes_reported;
      tails[r.index] = r.tail;
      threads[r.index] = r.thread;
      retired[r.index] = r.retired != 0;
    }
  for (uint64_t k = 0; k < fx.nix; k++)
    {
      struct emlat_ix_entry e;
      const char *ep = take (&p, end, sizeof e);
      if (!ep)
        return -EINVAL;
      memcpy (&e, ep, sizeof e);
      if (e.ix.cause == 0 || emlat_ixtable_find (&s->ix, e.ix.cause))
        return -EINVAL;
      struct emlat_ix_entry *n = emlat_ixtable_add (&s->ix, e.ix.cause);
      if (!n)
        return -ENOMEM;
      *n = e;
    }
  if (p != end)
    return -EINVAL;
  s->rotation = fx.rotation;
  s->out.size = fx.out_size;
  s->chunk_seq = fx.chunk_seq;
  s->strings_in_file = fx.strings_in_file;
  s->records_written = fx.records_written;
  s->records_dropped = fx.records_dropped;
  s->bytes_written = fx.bytes_written;
  s->chunks_written = fx.chunks_written;
  s->ring_high_water = fx.ring_high_water;
  s->write_errors = fx.write_errors;
  s->writer_cpu_ns = fx.writer_cpu_ns;
  s->last_error = (int)fx.last_error;
  s->first_error = (int)fx.first_error;
  s->noring_reported = fx.noring_reported;
  s->noring_bytes_reported = fx.noring_bytes_reported;
  s->retired_accepted = fx.retired_accepted;
  s->strings_refused_reported = fx.strings_refused_reported;
  s->pass = fx.pass;
  s->passes_started = s->passes_done = fx.pass;
  s->last_stats_t = fx.last_stats_t;
  s->wakeups = fx.wakeups;
  s->highwater_wakes = fx.highwater_wakes;
  s->ahead_wakes = fx.ahead_wakes;
  return 0;
}

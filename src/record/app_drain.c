/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * app_drain.c -- the writer's part of the application API (app.h): APP
 * ring records become EVENT records (FORMAT.md 6.9), and application
 * interactions (root kind application, named) are written as INTERACTION
 * type version 2 records (FORMAT.md 6.5), the others staying version 1 so
 * that a reader of format 1.0 still reads every Emacs and terminal record.
 *
 * Writer thread (or recovering reader) only.  Every APP record is either
 * encoded in an EVENT chunk of this pass or counted as loss (F-70): a
 * malformed one by the caller (record_invalid), one the writer has no
 * memory for here (writer_memory), one an encoder could not place by the
 * pass (writer_memory, through *lost).
 */
#include "record/app.h"

#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "record/ringrec.h"
#include "record/session.h"

struct emlat_app_event
{
  uint64_t thread;
  struct emlat_enc_event e;
};

int
emlat_app_drain (struct emlat_session *s, uint64_t thread, uint64_t h, const struct emlat_slot *a)
{
  unsigned tag = EMLAT_RR_A (h);
  uint64_t name = EMLAT_RR_NAME (h);
  if (tag < 1 || tag > EMLAT_EV_TAG_MAX || EMLAT_RR_B (h) != 0
      || (EMLAT_EVENT_HAS_ID (tag) && a->w[1] == 0)
      || (EMLAT_EVENT_NEEDS_NAME (tag) && name == 0))
    return -1;
  if (s->napp_events == s->app_events_cap)
    {
      size_t c = s->app_events_cap ? 2 * s->app_events_cap : 256;
      struct emlat_app_event *v = realloc (s->app_events, c * sizeof *v);
      if (!v)
        {
          emlat_writer_loss (s, thread, EMLAT_LOSS_WRITER_MEMORY, a->w[2], a->w[2], 1,
                             EMLAT_SLOT_BYTES);
          return 0;
        }
      s->app_events = v;
      s->app_events_cap = c;
    }
  struct emlat_app_event *ev = &s->app_events[s->napp_events++];
  ev->thread = thread;
  ev->e.tag = tag;
  ev->e.name = name;
  ev->e.t = a->w[2];
  ev->e.id = EMLAT_EVENT_HAS_ID (tag) || EMLAT_EVENT_IS_FN (tag) ? a->w[1] : 0;
  ev->e.iv = (int64_t)a->w[3];
  memcpy (&ev->e.fv, &a->w[3], sizeof ev->e.fv);
  return 0;
}

/* EVENT chunks: the events in drain order, which is ring by ring, so a
   block (one thread, F-53) ends where the thread changes. */
static int
encode_events (struct emlat_session *s, uint64_t *lost)
{
  if (!s->napp_events)
    return 0;
  struct emlat_cb cb;
  size_t done = 0;
  int rc = 0;
  emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_EVENT, s->app_events[0].e.t,
                  s->app_events[0].thread);
  for (size_t i = 0; i < s->napp_events; i++)
    {
      struct emlat_app_event *ev = &s->app_events[i];
      if (ev->thread != cb.thread || emlat_cb_payload_bytes (&cb) >= s->chunk_bytes)
        {
          if ((rc = emlat_cb_finish (&cb, &s->chunks, 0)) != 0)
            break;
          emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_EVENT, ev->e.t, ev->thread);
        }
      if ((rc = emlat_enc_event (&cb, &ev->e, 1)) != 0)
        break;
      done++;
    }
  if (rc == 0)
    rc = emlat_cb_finish (&cb, &s->chunks, 0);
  if (rc != 0)
    *lost += cb.represents + (s->napp_events - done);
  s->napp_events = 0;
  return rc;
}

/* The interactions of INTERACTION version 2 chunks (application
   interactions, and complete records holding the write bounds, F-66b),
   with the rule of writer.c's
   encode_interactions: complete records of those that ended in an earlier
   pass (every one when FINAL), begin records of those not yet written. */
static int
encode_app_interactions (struct emlat_session *s, int final, uint64_t *lost)
{
  struct emlat_cb cb;
  int open = 0;
  for (size_t i = s->ix.nentries; i-- > 0;)
    {
      struct emlat_ix_entry *e = &s->ix.entries[i];
      int complete = final || (e->ended_pass && e->ended_pass < s->pass);
      if (!emlat_enc_ix_needs_v2 (&e->ix, complete))
        continue;
      if (!complete && e->begin_written)
        continue;
      if (open && emlat_cb_payload_bytes (&cb) >= s->chunk_bytes)
        {
          open = 0;
          if (emlat_cb_finish (&cb, &s->chunks, 0) != 0)
            goto lost;
        }
      if (!open)
        {
          emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_INTERACTION, e->ix.t_dispatch, 0);
          emlat_cb_set_version (&cb, EMLAT_IX_VERSION_NAMED);
          open = 1;
        }
      if (complete)
        {
          if (!e->ended_pass)
            e->ix.status = EMLAT_STATUS_OPEN;
          if (emlat_enc_ix_complete (&cb, &e->ix, e->represents) != 0)
            goto lost;
          emlat_ixtable_remove_at (&s->ix, i);
        }
      else
        {
          if (emlat_enc_ix_begin (&cb, &e->ix, 0) != 0)
            goto lost;
          e->begin_written = 1;
        }
    }
  if (!open || emlat_cb_finish (&cb, &s->chunks, 0) == 0)
    return 0;
lost:
  *lost += cb.represents;
  return -1;
}

int
emlat_app_encode (struct emlat_session *s, int final, uint64_t *lost)
{
  int rc = encode_events (s, lost);
  rc |= encode_app_interactions (s, final, lost);
  return rc;
}

void
emlat_app_session_free (struct emlat_session *s)
{
  free (s->app_events);
  s->app_events = 0;
  s->napp_events = s->app_events_cap = 0;
}

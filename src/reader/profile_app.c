/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_app.c -- what the application API (emlat_app.h) recorded, as a
 * load keeps it (and the writer's resource samples, RESOURCE records): the EVENT records (instants, named counters, async
 * slices, flows, thread and process names; FORMAT.md 6.9) in reading
 * order, and the name and duration of every finished named section (a
 * span of kind user whose detail names it, F-44), for the per-name report.
 *
 * Invariants: both arrays grow only through the load's budget and a count
 * bound (limits.max_events, limits.max_spans); reaching one stops the load
 * with EMLAT_DIAG_LIMIT.  A name is kept as the string id the file gave:
 * an id the dictionary lacks is kept too and shown as the number (F-41).
 */
#include "emlat/emlat_reader.h"
#include "reader/profile.h"

int
emlat_profile_on_event (struct emlat_profile *p, const struct emlat_record *r)
{
  if (emlat_vec_reserve (&p->budget, &p->events, p->events.n + 1, sizeof (struct emlat_event),
                         p->lim.max_events))
    {
      emlat_profile_limit (p, "max_events");
      return 1;
    }
  struct emlat_event *e = &EMLAT_VEC_AT (p->events, struct emlat_event, p->events.n++);
  e->thread = r->thread;
  e->ev = r->u.event;
  return 0;
}

int
emlat_profile_on_named_span (struct emlat_profile *p, const struct emlat_span *s)
{
  if (s->kind != EMLAT_SPAN_USER || !(s->flags & EMLAT_SPAN_HAS_DETAIL) || s->detail == 0
      || !(s->flags & EMLAT_SPAN_HAS_END))
    return 0;
  if (emlat_vec_reserve (&p->budget, &p->named, p->named.n + 1,
                         sizeof (struct emlat_named_span), p->lim.max_spans))
    {
      emlat_profile_limit (p, "max_spans (named sections)");
      return 1;
    }
  struct emlat_named_span *n = &EMLAT_VEC_AT (p->named, struct emlat_named_span, p->named.n++);
  n->name = s->detail;
  n->duration = s->end - s->start;
  n->thread = s->thread;
  n->cause = s->cause;
  return 0;
}

int
emlat_profile_on_sample (struct emlat_profile *p, const struct emlat_record *r)
{
  if (emlat_vec_reserve (&p->budget, &p->samples, p->samples.n + 1,
                         sizeof (struct emlat_rd_sample), p->lim.max_events))
    {
      emlat_profile_limit (p, "max_events (resource samples)");
      return 1;
    }
  EMLAT_VEC_AT (p->samples, struct emlat_rd_sample, p->samples.n++) = r->u.sample;
  return 0;
}

EMLAT_API const struct emlat_rd_sample *
emlat_profile_samples (const struct emlat_profile *p, size_t *n)
{
  *n = p->samples.n;
  return p->samples.p;
}

EMLAT_API const struct emlat_event *
emlat_profile_events (const struct emlat_profile *p, size_t *n)
{
  *n = p->events.n;
  return p->events.p;
}

EMLAT_API const struct emlat_named_span *
emlat_profile_named_spans (const struct emlat_profile *p, size_t *n)
{
  *n = p->named.n;
  return p->named.p;
}

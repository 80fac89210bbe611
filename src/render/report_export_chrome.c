/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_export_chrome.c -- a profile as Chrome Trace Event JSON (format in
 * report_export.h; the Trace Event Format document of the Chromium
 * project describes the event phases used).
 *
 * In memory that does not grow with the profile: one walk over every span
 * (emlat_profile_each_span) and one over every interaction
 * (emlat_profile_each_interaction) put each event's fields, as varints,
 * into a spool keyed by span id, by cause id and by thread (spool.h: an
 * external merge sort, runs of 64 MiB in a temporary file), which gives
 * them back in the order the trace lists them: threads, spans by id,
 * interactions by cause.
 *
 * Invariants: timestamps are the profiler clock in microseconds written
 * as exact decimals (ns / 1000 with three decimals), never rounded through
 * floating point; every span of the profile is written exactly once; an
 * async slice is closed ("e") only when its interaction has a completion
 * boundary at or after its start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/leb128.h"
#include "render/json.h"
#include "render/spool.h"
#include "render/report_export.h"
#include "emlat/emlat_report.h"
#include "render/report_render.h"

static void
event_head (struct emlat_json *j, const char *ph, const char *name, const char *cat,
            uint64_t tid)
{
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "ph", ph);
  emlat_json_kv_str (j, "name", name);
  if (cat)
    emlat_json_kv_str (j, "cat", cat);
  emlat_json_kv_u64 (j, "pid", 1);
  emlat_json_kv_u64 (j, "tid", tid);
}

static void
ts (struct emlat_json *j, const char *key, uint64_t ns)
{
  emlat_json_key (j, key);
  emlat_json_fixed (j, ns, 3);
}

/* ------------------------------------------------------------------ */
/* Records of the spools: unsigned varints                             */

struct rec
{
  uint8_t b[1024];
  size_t n;
};

static void
put (struct rec *r, uint64_t v)
{
  r->n += emlat_put_uvarint (r->b + r->n, v);
}

struct cur
{
  const uint8_t *p, *end;
};

static uint64_t
get (struct cur *c)
{
  uint64_t v = 0;
  size_t n = emlat_get_uvarint (c->p, c->end, &v);
  c->p += n ? n : (size_t)(c->end - c->p); /* our own bytes: never short */
  return v;
}

/* What the export gathers in one walk over spans, one over interactions:
   each spooled by the key it is written in (span id, cause id, thread). */
struct gather
{
  struct spool spans, ixs, threads;
  uint64_t recent[256];       /* threads put lately: not put again */
  int rc;
};

static void
thread_seen (struct gather *g, uint64_t t)
{
  uint64_t *slot = &g->recent[(t ^ t >> 17) & 255];
  if (*slot == t + 1)
    return;
  *slot = t + 1;
  int rc = spool_put (&g->threads, t, NULL, 0);
  if (rc && !g->rc)
    g->rc = rc;
}

static int
span_in (void *ctx, const struct emlat_span *s, const uint64_t *pool)
{
  struct gather *g = ctx;
  struct rec r = { .n = 0 };
  thread_seen (g, s->thread);
  put (&r, s->parent);
  put (&r, s->cause);
  put (&r, s->thread);
  put (&r, s->start);
  put (&r, s->end);
  put (&r, s->cpu_ns);
  put (&r, s->detail);
  put (&r, s->kind);
  put (&r, s->status);
  put (&r, s->flags);
  put (&r, s->counter_mask);
  for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
    {
      uint64_t v;
      if (emlat_span_counter (s, pool, (enum emlat_counter)c, &v))
        put (&r, v);
    }
  int rc = spool_put (&g->spans, s->id, r.b, r.n);
  return rc ? rc : g->rc;
}

static int
ix_in (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  struct gather *g = ctx;
  thread_seen (g, ix->thread);
  struct emlat_report_times t;
  struct emlat_report_metrics m;
  emlat_report_times_from_profile (p, ix, &t);
  emlat_report_metrics_compute (&t, &m);
  uint64_t start = 0, done = 0;
  if (t.tmask >> EMLAT_T_INPUT_EARLIEST & 1u)
    start = t.t[EMLAT_T_INPUT_EARLIEST];
  else if (t.tmask >> EMLAT_T_DISPATCH_BEGIN & 1u)
    start = t.t[EMLAT_T_DISPATCH_BEGIN];
  else
    return g->rc; /* no slice: only its thread is named */
  int has_done = emlat_report_completion (&t, &done) && done >= start;
  struct rec r = { .n = 0 };
  put (&r, ix->thread);
  put (&r, ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0);
  put (&r, ix->status);
  put (&r, (uint64_t)emlat_report_population (&t));
  put (&r, start);
  put (&r, (uint64_t)has_done);
  put (&r, done);
  put (&r, m.mask);
  for (int k = 0; k < EMLAT_RM_COUNT; k++)
    if (m.mask >> k & 1u)
      put (&r, m.v[k]);
  uint32_t cmask = 0;
  uint64_t cv[EMLAT_C_COUNTER_COUNT];
  for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
    if (emlat_profile_ix_counter (p, ix, (enum emlat_counter)c, &cv[c]))
      cmask |= 1u << c;
  put (&r, has_done ? cmask : 0);
  for (unsigned c = 0; has_done && c < EMLAT_C_COUNTER_COUNT; c++)
    if (cmask >> c & 1u)
      put (&r, cv[c]);
  int rc = spool_put (&g->ixs, ix->cause, r.b, r.n);
  return rc ? rc : g->rc;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

struct thread_out
{
  struct emlat_json *j;
  uint64_t last;
  int any;
};

/* thread_name metadata for every thread that has a span or interaction
   (the spool hands them sorted, repeats included). */
static int
thread_out (void *ctx, uint64_t t, const uint8_t *b, size_t n)
{
  struct thread_out *o = ctx;
  (void)b;
  (void)n;
  if (o->any && t == o->last)
    return 0;
  o->any = 1;
  o->last = t;
  char name[48];
  snprintf (name, sizeof name, "emlat thread %" PRIu64, t);
  event_head (o->j, "M", "thread_name", NULL, t);
  emlat_json_key (o->j, "args");
  emlat_json_begin_object (o->j);
  emlat_json_kv_str (o->j, "name", name);
  emlat_json_end_object (o->j);
  emlat_json_end_object (o->j);
  return o->j->error ? -EIO : 0;
}

static int
span_out (void *ctx, uint64_t id, const uint8_t *b, size_t n)
{
  struct emlat_json *j = ctx;
  struct cur c = { b, b + n };
  uint64_t parent = get (&c), cause = get (&c), thread = get (&c), start = get (&c);
  uint64_t end = get (&c), cpu = get (&c), detail = get (&c);
  uint32_t kind = (uint32_t)get (&c), status = (uint32_t)get (&c), flags = (uint32_t)get (&c);
  uint32_t cmask = (uint32_t)get (&c);
  int ended = (flags & EMLAT_SPAN_HAS_END) && end >= start;
  event_head (j, ended ? "X" : "B", emlat_span_kind_name (kind), "span", thread);
  ts (j, "ts", start);
  if (ended)
    ts (j, "dur", end - start);
  emlat_json_key (j, "args");
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "span_id", id);
  emlat_json_kv_u64 (j, "parent", parent);
  emlat_json_kv_u64 (j, "cause", cause);
  emlat_json_kv_str (j, "status", emlat_span_status_name (status));
  if (flags & EMLAT_SPAN_HAS_CPU)
    emlat_json_kv_u64 (j, "cpu_ns", cpu);
  if (flags & EMLAT_SPAN_HAS_DETAIL)
    emlat_json_kv_u64 (j, "detail", detail);
  for (unsigned k = 0; k < EMLAT_C_COUNTER_COUNT; k++)
    if (cmask >> k & 1u)
      emlat_json_kv_u64 (j, emlat_counter_name (k), get (&c));
  emlat_json_end_object (j);
  emlat_json_end_object (j);
  return j->error ? -EIO : 0;
}

static int
ix_out (void *ctx, uint64_t cause, const uint8_t *b, size_t n)
{
  struct emlat_json *j = ctx;
  struct cur c = { b, b + n };
  uint64_t thread = get (&c);
  unsigned kind = (unsigned)get (&c), status = (unsigned)get (&c);
  enum emlat_report_pop pop = (enum emlat_report_pop)get (&c);
  uint64_t start = get (&c);
  int has_done = (int)get (&c);
  uint64_t done = get (&c);
  uint32_t mask = (uint32_t)get (&c);
  event_head (j, "b", report_kind_key (kind), "interaction", thread);
  emlat_json_kv_u64 (j, "id", cause);
  ts (j, "ts", start);
  emlat_json_key (j, "args");
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "cause", cause);
  emlat_json_kv_str (j, "status", emlat_status_name (status));
  emlat_json_kv_str (j, "population", emlat_report_pop_key (pop));
  for (int k = 0; k < EMLAT_RM_COUNT; k++)
    if (mask >> k & 1u)
      emlat_json_kv_u64 (j, emlat_report_metric_name ((enum emlat_report_metric)k), get (&c));
  emlat_json_end_object (j);
  emlat_json_end_object (j);
  uint32_t cmask = (uint32_t)get (&c);
  if (has_done)
    {
      event_head (j, "e", report_kind_key (kind), "interaction", thread);
      emlat_json_kv_u64 (j, "id", cause);
      ts (j, "ts", done);
      emlat_json_end_object (j);
    }
  for (unsigned k = 0; k < EMLAT_C_COUNTER_COUNT; k++)
    {
      if (!(cmask >> k & 1u))
        continue;
      uint64_t v = get (&c);
      event_head (j, "C", emlat_counter_name (k), NULL, thread);
      ts (j, "ts", done);
      emlat_json_key (j, "args");
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, emlat_counter_name (k), v);
      emlat_json_end_object (j);
      emlat_json_end_object (j);
    }
  return j->error ? -EIO : 0;
}

static void
losses (struct emlat_json *j, const struct emlat_profile *p)
{
  size_t n;
  const struct emlat_loss_entry *l = emlat_profile_losses (p, &n);
  for (size_t i = 0; i < n; i++)
    {
      char name[64];
      snprintf (name, sizeof name, "LOSS %s", emlat_loss_reason_name (l[i].loss.reason));
      event_head (j, "i", name, "loss", l[i].loss.stream);
      emlat_json_kv_str (j, "s", "g");
      ts (j, "ts", l[i].loss.first);
      emlat_json_key (j, "args");
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "stream", l[i].loss.stream);
      emlat_json_kv_u64 (j, "first_ns", l[i].loss.first);
      emlat_json_kv_u64 (j, "last_ns", l[i].loss.last);
      emlat_json_kv_u64 (j, "records", l[i].loss.records);
      emlat_json_kv_u64 (j, "bytes", l[i].loss.bytes);
      emlat_json_end_object (j);
      emlat_json_end_object (j);
    }
}

int
report_export_chrome (struct emlat_profile *p, FILE *f)
{
  struct gather g;
  memset (&g, 0, sizeof g);
  spool_init (&g.spans);
  spool_init (&g.ixs);
  spool_init (&g.threads);
  int rc = emlat_profile_each_span (p, span_in, &g);
  if (rc == 0)
    rc = emlat_profile_each_interaction (p, NULL, 0, ix_in, &g);
  if (rc == 0)
    rc = g.rc;
  struct emlat_json j;
  emlat_json_init (&j, f);
  if (rc == 0)
    {
      emlat_json_begin_object (&j);
      emlat_json_kv_str (&j, "displayTimeUnit", "ns");
      emlat_json_key (&j, "otherData");
      emlat_json_begin_object (&j);
      const struct emlat_file_header *h = emlat_profile_header (p);
      char uuid[37];
      if (h)
        emlat_uuid_format (h->uuid, uuid);
      emlat_json_kv_str (&j, "emlat_session", h ? uuid : NULL);
      emlat_json_kv_str (&j, "clock", "profiler clock, microseconds");
      emlat_json_end_object (&j);
      emlat_json_key (&j, "traceEvents");
      emlat_json_begin_array (&j);
      event_head (&j, "M", "process_name", NULL, 0);
      emlat_json_key (&j, "args");
      emlat_json_begin_object (&j);
      emlat_json_kv_str (&j, "name", "emlat session");
      emlat_json_end_object (&j);
      emlat_json_end_object (&j);
      struct thread_out to = { &j, 0, 0 };
      rc = spool_each (&g.threads, thread_out, &to);
    }
  if (rc == 0)
    rc = spool_each (&g.spans, span_out, &j);
  if (rc == 0)
    rc = spool_each (&g.ixs, ix_out, &j);
  spool_free (&g.spans);
  spool_free (&g.ixs);
  spool_free (&g.threads);
  if (rc != 0)
    return rc < 0 ? rc : -EIO;
  losses (&j, p);
  emlat_json_end_array (&j);
  emlat_json_end_object (&j);
  emlat_json_line (&j);
  return j.error ? -EIO : 0;
}

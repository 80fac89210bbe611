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
 * The application API's records (EVENT, FORMAT.md 6.9) are those the
 * load keeps (limits.max_events) and are written from there.
 *
 * Invariants: timestamps are the profiler clock in microseconds written
 * as exact decimals (ns / 1000 with three decimals), never rounded through
 * floating point; every span of the profile is written exactly once, as
 * a complete slice "X" (one left open ends at the session's end -- the
 * latest time the export saw -- with args.incomplete); every
 * interaction's async slice "b" has its "e" (at its completion, else at
 * the session's end with args.incomplete), and starts at the latest
 * arrival (t_input_latest, the headline's start; t_input_earliest in
 * args); causal links (parent, scheduled_by) are flow "s"/"f" pairs,
 * written together with their source's slice or not at all.  Names come from the application API
 * (report_names.h): a named section is a slice with its name (category
 * "section"), an application interaction's slice has its name, every
 * EVENT record is one event -- instants "i", counters "C" (one track per
 * counter name), async slices "b"/"e" (category "async"), flows "s", "t",
 * "f" (category "flow", the steps and end named as their begin) -- and
 * threads and the process get the names the program gave them, with the
 * recording process's id (SESSION process.pid) as pid.
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
#include "render/report_names.h"
#include "render/report_syms.h"
#include "emlat/emlat_report.h"
#include "render/report_render.h"

/* The process id every event carries: the recording process's
   (SESSION process.pid), else 1. */
static uint64_t export_pid = 1;

/* An event's opening keys; NAME, or when NULL the string NAME_ID of P
   (report_names.h). */
static void
event_head_id (struct emlat_json *j, const char *ph, const char *name,
               const struct emlat_profile *p, uint64_t name_id, const char *cat, uint64_t tid)
{
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "ph", ph);
  if (name)
    emlat_json_kv_str (j, "name", name);
  else
    {
      emlat_json_key (j, "name");
      if (name_id)
        report_name_json (j, p, name_id);
      else
        emlat_json_str (j, "(unnamed)");
    }
  if (cat)
    emlat_json_kv_str (j, "cat", cat);
  emlat_json_kv_u64 (j, "pid", export_pid);
  emlat_json_kv_u64 (j, "tid", tid);
}

static void
event_head (struct emlat_json *j, const char *ph, const char *name, const char *cat,
            uint64_t tid)
{
  event_head_id (j, ph, name, NULL, 0, cat, tid);
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
  uint64_t t_end;             /* the latest time of the session seen */
  int rc;
};

/* The records of the interactions' spool: an interaction's own, and a
   causal link out of it (keyed by the link's source). */
enum { IXREC_OWN = 0, IXREC_LINK = 1 };

static void
seen_time (struct gather *g, uint64_t t)
{
  if (t > g->t_end)
    g->t_end = t;
}

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
  seen_time (g, s->start);
  if (s->flags & EMLAT_SPAN_HAS_END)
    seen_time (g, s->end);
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
  for (uint32_t b = t.tmask; b; b &= b - 1)
    seen_time (g, t.t[__builtin_ctz (b)]);
  /* The slice starts at the latest arrival (the headline's start); the
     earliest goes into its args. */
  uint64_t start = 0, done = 0;
  if (t.tmask >> EMLAT_T_INPUT_LATEST & 1u)
    start = t.t[EMLAT_T_INPUT_LATEST];
  else if (t.tmask >> EMLAT_T_DISPATCH_BEGIN & 1u)
    start = t.t[EMLAT_T_DISPATCH_BEGIN];
  else if (t.tmask >> EMLAT_T_INPUT_EARLIEST & 1u)
    start = t.t[EMLAT_T_INPUT_EARLIEST];
  else
    return g->rc; /* no slice: only its thread is named */
  int has_done = emlat_report_completion (&t, &done) && done >= start;
  /* Causal links as flows: one record under the source's cause, written
     with the source (so that no flow lacks its start or its end). */
  static const enum emlat_value_field links[2] = { EMLAT_V_PARENT_CAUSE,
                                                   EMLAT_V_SCHEDULED_BY_CAUSE };
  for (int l = 0; l < 2; l++)
    {
      uint64_t src;
      if (!emlat_profile_ix_value (p, ix, links[l], &src) || src == 0 || src == ix->cause)
        continue;
      struct rec lr = { .n = 0 };
      put (&lr, IXREC_LINK);
      put (&lr, (uint64_t)l);
      put (&lr, ix->cause);
      put (&lr, ix->thread);
      put (&lr, start);
      int rc = spool_put (&g->ixs, src, lr.b, lr.n);
      if (rc)
        return rc;
    }
  struct rec r = { .n = 0 };
  put (&r, IXREC_OWN);
  put (&r, ix->thread);
  put (&r, t.tmask >> EMLAT_T_INPUT_EARLIEST & 1u);
  put (&r, t.tmask >> EMLAT_T_INPUT_EARLIEST & 1u ? t.t[EMLAT_T_INPUT_EARLIEST] : 0);
  put (&r, ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0);
  put (&r, ix->name);
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
  const struct emlat_profile *p;
  const struct report_thread_names *tn;
  uint64_t last;
  int any;
};

/* thread_name metadata for every thread that has a span, an interaction
   or an event (the spool hands them sorted, repeats included): the name
   the program gave it (EVENT thread_name), else "emlat thread N". */
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
  uint64_t given = report_thread_name (o->tn, t);
  event_head (o->j, "M", "thread_name", NULL, t);
  emlat_json_key (o->j, "args");
  emlat_json_begin_object (o->j);
  emlat_json_key (o->j, "name");
  if (given)
    report_name_json (o->j, o->p, given);
  else
    emlat_json_str (o->j, name);
  emlat_json_end_object (o->j);
  emlat_json_end_object (o->j);
  return o->j->error ? -EIO : 0;
}

/* A causal link waiting for its source's own record (same key). */
struct link
{
  uint64_t type, target, thread, ts;
};

/* The writing callbacks' context. */
struct out
{
  struct emlat_json *j;
  const struct emlat_profile *p;
  uint64_t t_end;              /* where what is left open ends */
  /* The interaction being written (key), whether its own record was
     seen, where its slice starts and on which thread; the links out of
     it seen before its own record. */
  uint64_t key, src_thread, src_ts;
  int have_key, have_own;
  struct link *pend;
  size_t n_pend, cap_pend;
};

static int
span_out (void *ctx, uint64_t id, const uint8_t *b, size_t n)
{
  const struct out *o = ctx;
  struct emlat_json *j = o->j;
  struct cur c = { b, b + n };
  uint64_t parent = get (&c), cause = get (&c), thread = get (&c), start = get (&c);
  uint64_t end = get (&c), cpu = get (&c), detail = get (&c);
  uint32_t kind = (uint32_t)get (&c), status = (uint32_t)get (&c), flags = (uint32_t)get (&c);
  uint32_t cmask = (uint32_t)get (&c);
  int ended = (flags & EMLAT_SPAN_HAS_END) && end >= start;
  /* A span left open ends at the session's end, marked incomplete: no
     slice without an end. */
  uint64_t stop = ended ? end : o->t_end > start ? o->t_end : start;
  /* F-44: a user span's detail names it (a named section). */
  if (kind == EMLAT_SPAN_USER && (flags & EMLAT_SPAN_HAS_DETAIL) && detail != 0)
    event_head_id (j, "X", NULL, o->p, detail, "section", thread);
  else
    event_head (j, "X", emlat_span_kind_name (kind), "span", thread);
  ts (j, "ts", start);
  ts (j, "dur", stop - start);
  emlat_json_key (j, "args");
  emlat_json_begin_object (j);
  if (!ended)
    {
      emlat_json_key (j, "incomplete");
      emlat_json_bool (j, 1);
    }
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

/* A flow from the interaction being written (O->key) to L->target: "s"
   on the source's thread at its slice's start, "f" bound to the target's
   (Trace Event Format flow events; the id names the link). */
static void
flow_out (struct out *o, const struct link *l)
{
  struct emlat_json *j = o->j;
  char id[64];
  const char *what = l->type == 0 ? "parent" : "scheduled_by";
  snprintf (id, sizeof id, "%s:%" PRIu64, what, l->target);
  event_head (j, "s", what, "causal", o->src_thread);
  emlat_json_kv_str (j, "id", id);
  ts (j, "ts", o->src_ts);
  emlat_json_end_object (j);
  event_head (j, "f", what, "causal", l->thread);
  emlat_json_kv_str (j, "id", id);
  emlat_json_kv_str (j, "bp", "e");
  ts (j, "ts", l->ts);
  emlat_json_end_object (j);
}

static int
ix_out (void *ctx, uint64_t cause, const uint8_t *b, size_t n)
{
  struct out *o = ctx;
  struct emlat_json *j = o->j;
  struct cur c = { b, b + n };
  if (!o->have_key || cause != o->key)
    {
      /* Links whose source has no slice are dropped, both ends. */
      o->key = cause;
      o->have_key = 1;
      o->have_own = 0;
      o->n_pend = 0;
    }
  if (get (&c) == IXREC_LINK)
    {
      struct link l;
      l.type = get (&c);
      l.target = get (&c);
      l.thread = get (&c);
      l.ts = get (&c);
      if (o->have_own)
        flow_out (o, &l);
      else
        {
          if (o->n_pend == o->cap_pend)
            {
              size_t cap = o->cap_pend ? 2 * o->cap_pend : 8;
              struct link *nl = realloc (o->pend, cap * sizeof *nl);
              if (!nl)
                return -ENOMEM;
              o->pend = nl;
              o->cap_pend = cap;
            }
          o->pend[o->n_pend++] = l;
        }
      return j->error ? -EIO : 0;
    }
  uint64_t thread = get (&c);
  int has_earliest = (int)get (&c);
  uint64_t earliest = get (&c);
  unsigned kind = (unsigned)get (&c);
  uint64_t name = get (&c);
  unsigned status = (unsigned)get (&c);
  enum emlat_report_pop pop = (enum emlat_report_pop)get (&c);
  uint64_t start = get (&c);
  int has_done = (int)get (&c);
  uint64_t done = get (&c);
  uint32_t mask = (uint32_t)get (&c);
  /* An interaction left open ends at the session's end, marked
     incomplete: no "b" without its "e". */
  uint64_t stop = has_done ? done : o->t_end > start ? o->t_end : start;
  /* An application interaction is shown by its name (F-66a). */
  const char *kname = name ? NULL : report_kind_key (kind);
  event_head_id (j, "b", kname, o->p, name, "interaction", thread);
  emlat_json_kv_u64 (j, "id", cause);
  ts (j, "ts", start);
  emlat_json_key (j, "args");
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "cause", cause);
  emlat_json_kv_str (j, "root_kind", report_kind_key (kind));
  emlat_json_kv_str (j, "status", emlat_status_name (status));
  emlat_json_kv_str (j, "population", emlat_report_pop_key (pop));
  emlat_json_kv_u64_opt (j, "t_input_earliest", has_earliest, earliest);
  if (!has_done)
    {
      emlat_json_key (j, "incomplete");
      emlat_json_bool (j, 1);
    }
  for (int k = 0; k < EMLAT_RM_COUNT; k++)
    if (mask >> k & 1u)
      emlat_json_kv_u64 (j, emlat_report_metric_name ((enum emlat_report_metric)k), get (&c));
  emlat_json_end_object (j);
  emlat_json_end_object (j);
  uint32_t cmask = (uint32_t)get (&c);
  event_head_id (j, "e", kname, o->p, name, "interaction", thread);
  emlat_json_kv_u64 (j, "id", cause);
  ts (j, "ts", stop);
  if (!has_done)
    {
      emlat_json_key (j, "args");
      emlat_json_begin_object (j);
      emlat_json_key (j, "incomplete");
      emlat_json_bool (j, 1);
      emlat_json_end_object (j);
    }
  emlat_json_end_object (j);
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
  o->have_own = 1;
  o->src_thread = thread;
  o->src_ts = start;
  for (size_t i = 0; i < o->n_pend; i++)
    flow_out (o, &o->pend[i]);
  o->n_pend = 0;
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

/* The name of every flow id, from its begin (F-96): sorted (id, name)
   pairs, to name the steps and the end. */
struct flow_names
{
  uint64_t *v; /* 2 * n words */
  size_t n;
};

static int
cmp_pair (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void
flow_names_build (const struct emlat_profile *p, struct flow_names *fn)
{
  size_t ne;
  const struct emlat_event *e = emlat_profile_events (p, &ne);
  fn->n = 0;
  fn->v = NULL;
  size_t k = 0;
  for (size_t i = 0; i < ne; i++)
    k += e[i].ev.tag == EMLAT_EV_FLOW_BEGIN;
  if (!k || !(fn->v = malloc (2 * k * sizeof *fn->v)))
    return; /* without memory, steps and ends stay unnamed */
  for (size_t i = 0; i < ne; i++)
    if (e[i].ev.tag == EMLAT_EV_FLOW_BEGIN)
      {
        fn->v[2 * fn->n] = e[i].ev.id;
        fn->v[2 * fn->n + 1] = e[i].ev.name;
        fn->n++;
      }
  qsort (fn->v, fn->n, 2 * sizeof *fn->v, cmp_pair);
}

static uint64_t
flow_name (const struct flow_names *fn, uint64_t id)
{
  size_t lo = 0, hi = fn->n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (fn->v[2 * mid] < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < fn->n && fn->v[2 * lo] == id ? fn->v[2 * lo + 1] : 0;
}

/* Every EVENT record of the application API (FORMAT.md 6.9). */
static void
events (struct emlat_json *j, const struct emlat_profile *p)
{
  size_t ne;
  const struct emlat_event *e = emlat_profile_events (p, &ne);
  struct flow_names fn;
  flow_names_build (p, &fn);
  for (size_t i = 0; i < ne; i++)
    {
      const struct emlat_rd_event *v = &e[i].ev;
      uint64_t tid = e[i].thread;
      switch (v->tag)
        {
        case EMLAT_EV_INSTANT:
          event_head_id (j, "i", NULL, p, v->name, "instant", tid);
          emlat_json_kv_str (j, "s", "t");
          ts (j, "ts", v->t);
          break;
        case EMLAT_EV_COUNTER:
        case EMLAT_EV_COUNTER_F:
          /* One counter track per name (pid-wide), whichever thread sets it. */
          event_head_id (j, "C", NULL, p, v->name, NULL, tid);
          ts (j, "ts", v->t);
          emlat_json_key (j, "args");
          emlat_json_begin_object (j);
          emlat_json_key (j, "value");
          if (v->tag == EMLAT_EV_COUNTER)
            emlat_json_i64 (j, v->iv);
          else
            emlat_json_double (j, v->fv);
          emlat_json_end_object (j);
          break;
        case EMLAT_EV_ASYNC_BEGIN:
        case EMLAT_EV_ASYNC_END:
          event_head_id (j, v->tag == EMLAT_EV_ASYNC_BEGIN ? "b" : "e", NULL, p, v->name, "async",
                         tid);
          emlat_json_kv_u64 (j, "id", v->id);
          ts (j, "ts", v->t);
          break;
        case EMLAT_EV_FLOW_BEGIN:
        case EMLAT_EV_FLOW_STEP:
        case EMLAT_EV_FLOW_END:
          {
            uint64_t name = v->name ? v->name : flow_name (&fn, v->id);
            const char *ph = v->tag == EMLAT_EV_FLOW_BEGIN  ? "s"
                             : v->tag == EMLAT_EV_FLOW_STEP ? "t"
                                                            : "f";
            event_head_id (j, ph, NULL, p, name, "flow", tid);
            emlat_json_kv_u64 (j, "id", v->id);
            if (v->tag == EMLAT_EV_FLOW_END)
              emlat_json_kv_str (j, "bp", "e"); /* bound to the enclosing slice */
            ts (j, "ts", v->t);
            break;
          }
        default: /* thread and process names: metadata; calls: one_call */
          continue;
        }
      emlat_json_end_object (j);
    }
  free (fn.v);
}

/* Every call of a -finstrument-functions trace: "X" named by its
   function (report_syms.h), "B" for one still open at the end. */
struct calls_ctx
{
  struct emlat_json *j;
  const struct emlat_profile *p;
  struct report_syms *syms;
  uint64_t t_end;
};

static void
one_call (void *ctx, const struct emlat_report_call *c)
{
  struct calls_ctx *x = ctx;
  struct emlat_json *j = x->j;
  uint64_t stop = c->has_end && c->end >= c->start ? c->end
                  : x->t_end > c->start ? x->t_end : c->start;
  event_head (j, "X", report_syms_name (x->syms, c->module, c->offset), "function", c->thread);
  ts (j, "ts", c->start);
  ts (j, "dur", stop - c->start);
  emlat_json_key (j, "args");
  emlat_json_begin_object (j);
  if (!c->has_end)
    {
      emlat_json_key (j, "incomplete");
      emlat_json_bool (j, 1);
    }
  emlat_json_key (j, "module");
  report_name_json (j, x->p, c->module);
  emlat_json_kv_u64 (j, "offset", c->offset);
  emlat_json_end_object (j);
  emlat_json_end_object (j);
}

int
report_export_chrome (struct emlat_profile *p, FILE *f)
{
  return report_export_chrome_syms (p, f, NULL);
}

int
report_export_chrome_syms (struct emlat_profile *p, FILE *f, struct report_syms *syms)
{
  struct gather g;
  memset (&g, 0, sizeof g);
  spool_init (&g.spans);
  spool_init (&g.ixs);
  spool_init (&g.threads);
  int rc = emlat_profile_each_span (p, span_in, &g);
  if (rc == 0)
    rc = emlat_profile_each_interaction (p, NULL, 0, ix_in, &g);
  size_t ne;
  const struct emlat_event *ev = emlat_profile_events (p, &ne);
  for (size_t i = 0; i < ne && rc == 0; i++)
    {
      thread_seen (&g, ev[i].thread);
      seen_time (&g, ev[i].ev.t);
    }
  if (rc == 0)
    rc = g.rc;
  struct report_thread_names tn;
  if (report_thread_names_build (p, &tn) != 0)
    memset (&tn, 0, sizeof tn);
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
      uint64_t pid;
      export_pid = report_session_uint (p, "process.pid", &pid) && pid ? pid : 1;
      char pname[128];
      event_head (&j, "M", "process_name", NULL, 0);
      emlat_json_key (&j, "args");
      emlat_json_begin_object (&j);
      emlat_json_key (&j, "name");
      if (tn.process)
        report_name_json (&j, p, tn.process);
      else
        emlat_json_str (&j, report_session_str (p, "program.name", pname, sizeof pname)
                              ? pname
                              : "emlat session");
      emlat_json_end_object (&j);
      emlat_json_end_object (&j);
      struct thread_out to = { &j, p, &tn, 0, 0 };
      rc = spool_each (&g.threads, thread_out, &to);
    }
  report_thread_names_free (&tn);
  struct out o = { .j = &j, .p = p, .t_end = g.t_end };
  if (rc == 0)
    rc = spool_each (&g.spans, span_out, &o);
  if (rc == 0)
    rc = spool_each (&g.ixs, ix_out, &o);
  free (o.pend);
  spool_free (&g.spans);
  spool_free (&g.ixs);
  spool_free (&g.threads);
  if (rc != 0)
    return rc < 0 ? rc : -EIO;
  events (&j, p);
  struct report_syms *own = syms ? NULL : report_syms_new (p, NULL, 0);
  struct calls_ctx cx = { &j, p, syms ? syms : own, g.t_end };
  if (emlat_report_calls_walk (p, one_call, &cx) != 0)
    j.error = 1;
  report_syms_free (own);
  losses (&j, p);
  emlat_json_end_array (&j);
  emlat_json_end_object (&j);
  emlat_json_line (&j);
  return j.error ? -EIO : 0;
}

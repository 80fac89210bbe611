/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_export_chrome.c -- a profile as Chrome Trace Event JSON (format in
 * report_export.h; the Trace Event Format document of the Chromium
 * project describes the event phases used).
 *
 * Invariants: timestamps are the profiler clock in microseconds written
 * as exact decimals (ns / 1000 with three decimals), never rounded through
 * floating point; every span of the profile is written exactly once; an
 * async slice is closed ("e") only when its interaction has a completion
 * boundary at or after its start.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/json.h"
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

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* thread_name metadata for every thread that has a span or interaction. */
static void
threads (struct emlat_json *j, const struct emlat_profile *p)
{
  size_t ns, ni;
  const struct emlat_span *s = emlat_profile_spans (p, &ns, NULL);
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &ni);
  uint64_t *t = malloc ((ns + ni + 1) * sizeof *t);
  size_t n = 0;
  if (!t)
    return;
  for (size_t i = 0; i < ns; i++)
    t[n++] = s[i].thread;
  for (size_t i = 0; i < ni; i++)
    t[n++] = ix[i].thread;
  qsort (t, n, sizeof *t, cmp_u64);
  for (size_t i = 0; i < n; i++)
    {
      if (i && t[i] == t[i - 1])
        continue;
      char name[48];
      snprintf (name, sizeof name, "emlat thread %" PRIu64, t[i]);
      event_head (j, "M", "thread_name", NULL, t[i]);
      emlat_json_key (j, "args");
      emlat_json_begin_object (j);
      emlat_json_kv_str (j, "name", name);
      emlat_json_end_object (j);
      emlat_json_end_object (j);
    }
  free (t);
}

static void
spans (struct emlat_json *j, const struct emlat_profile *p)
{
  size_t n;
  const uint64_t *pool;
  const struct emlat_span *s = emlat_profile_spans (p, &n, &pool);
  for (size_t i = 0; i < n; i++)
    {
      int ended = (s[i].flags & EMLAT_SPAN_HAS_END) && s[i].end >= s[i].start;
      event_head (j, ended ? "X" : "B", emlat_span_kind_name (s[i].kind), "span", s[i].thread);
      ts (j, "ts", s[i].start);
      if (ended)
        ts (j, "dur", s[i].end - s[i].start);
      emlat_json_key (j, "args");
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "span_id", s[i].id);
      emlat_json_kv_u64 (j, "parent", s[i].parent);
      emlat_json_kv_u64 (j, "cause", s[i].cause);
      emlat_json_kv_str (j, "status", emlat_span_status_name (s[i].status));
      if (s[i].flags & EMLAT_SPAN_HAS_CPU)
        emlat_json_kv_u64 (j, "cpu_ns", s[i].cpu_ns);
      if (s[i].flags & EMLAT_SPAN_HAS_DETAIL)
        emlat_json_kv_u64 (j, "detail", s[i].detail);
      for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
        {
          uint64_t v;
          if (emlat_span_counter (&s[i], pool, (enum emlat_counter)c, &v))
            emlat_json_kv_u64 (j, emlat_counter_name (c), v);
        }
      emlat_json_end_object (j);
      emlat_json_end_object (j);
    }
}

static void
interactions (struct emlat_json *j, const struct emlat_profile *p)
{
  size_t n;
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &n);
  for (size_t i = 0; i < n; i++)
    {
      struct emlat_report_times t;
      struct emlat_report_metrics m;
      emlat_report_times_from_profile (p, &ix[i], &t);
      emlat_report_metrics_compute (&t, &m);
      unsigned kind = ix[i].root_kind <= EMLAT_ROOT_KIND_MAX ? ix[i].root_kind : 0;
      uint64_t start = 0, done = 0;
      int has_start = 0;
      if (t.tmask >> EMLAT_T_INPUT_EARLIEST & 1u)
        start = t.t[EMLAT_T_INPUT_EARLIEST], has_start = 1;
      else if (t.tmask >> EMLAT_T_DISPATCH_BEGIN & 1u)
        start = t.t[EMLAT_T_DISPATCH_BEGIN], has_start = 1;
      if (!has_start)
        continue;
      int has_done = emlat_report_completion (&t, &done) && done >= start;
      event_head (j, "b", report_kind_key (kind), "interaction", ix[i].thread);
      emlat_json_kv_u64 (j, "id", ix[i].cause);
      ts (j, "ts", start);
      emlat_json_key (j, "args");
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "cause", ix[i].cause);
      emlat_json_kv_str (j, "status", emlat_status_name (ix[i].status));
      emlat_json_kv_str (j, "population", emlat_report_pop_key (emlat_report_population (&t)));
      for (int k = 0; k < EMLAT_RM_COUNT; k++)
        if (m.mask >> k & 1u)
          emlat_json_kv_u64 (j, emlat_report_metric_name ((enum emlat_report_metric)k), m.v[k]);
      emlat_json_end_object (j);
      emlat_json_end_object (j);
      if (!has_done)
        continue;
      event_head (j, "e", report_kind_key (kind), "interaction", ix[i].thread);
      emlat_json_kv_u64 (j, "id", ix[i].cause);
      ts (j, "ts", done);
      emlat_json_end_object (j);
      for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
        {
          uint64_t v;
          if (!emlat_profile_ix_counter (p, &ix[i], (enum emlat_counter)c, &v))
            continue;
          event_head (j, "C", emlat_counter_name (c), NULL, ix[i].thread);
          ts (j, "ts", done);
          emlat_json_key (j, "args");
          emlat_json_begin_object (j);
          emlat_json_kv_u64 (j, emlat_counter_name (c), v);
          emlat_json_end_object (j);
          emlat_json_end_object (j);
        }
    }
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
report_export_chrome (const struct emlat_profile *p, FILE *f)
{
  struct emlat_json j;
  emlat_json_init (&j, f);
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
  threads (&j, p);
  spans (&j, p);
  interactions (&j, p);
  losses (&j, p);
  emlat_json_end_array (&j);
  emlat_json_end_object (&j);
  emlat_json_line (&j);
  return j.error ? -1 : 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_json.c -- `emlat report --json`: the text report's content as one
 * JSON document (schema "emlat-report/1", documented field by field in
 * docs/REPORT.md "JSON schema").
 *
 * Invariants: an absent value is null or a missing key, never 0; times are
 * integer nanoseconds of the profiler clock (absolute) or durations; every
 * LOSS record the reader kept is listed.
 */
#include <stdio.h>
#include <string.h>

#include "common/leb128.h"
#include "render/json.h"
#include "render/record_json.h"
#include "render/report_fmt.h"
#include "render/report_render.h"
#include "render/spool.h"
#include "render/report_app_render.h"
#include "render/report_res_render.h"
#include "render/report_names.h"
#include "render/report_headline.h"

#define HIST_BUCKETS 40

static void
dist (struct emlat_json *j, const struct emlat_report_dist *d)
{
  int h = d->n > 0;
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "n", d->n);
  emlat_json_kv_u64_opt (j, "min", h, d->min);
  emlat_json_kv_u64_opt (j, "median", h, d->p50);
  emlat_json_kv_u64_opt (j, "p90", h, d->p90);
  emlat_json_kv_u64_opt (j, "p95", h, d->p95);
  emlat_json_kv_u64_opt (j, "p99", h, d->p99);
  emlat_json_kv_u64_opt (j, "p99_9", d->has_p999, d->p999);
  emlat_json_kv_u64_opt (j, "max", h, d->max);
  emlat_json_key (j, "mean");
  if (h)
    emlat_json_double (j, d->mean);
  else
    emlat_json_null (j);
  emlat_json_kv_u64_opt (j, "total", h && !d->total_saturated, d->total);
  emlat_json_end_object (j);
}

static void
session_meta (struct emlat_json *j, const struct emlat_profile *p)
{
  size_t n;
  const struct emlat_kv *kv = emlat_profile_session (p, &n);
  emlat_json_key (j, "session_meta");
  emlat_json_begin_object (j);
  for (size_t i = 0; i < n; i++)
    {
      char key[80];
      size_t kl = kv[i].key_len < sizeof key - 1 ? kv[i].key_len : sizeof key - 1;
      memcpy (key, kv[i].key, kl);
      key[kl] = 0;
      emlat_json_key (j, key);
      record_json_kv_value (j, &kv[i]);
    }
  emlat_json_end_object (j);
}

static void
files (struct emlat_json *j, const struct report_ctx *c)
{
  size_t nf;
  const struct emlat_file_summary *f = emlat_profile_files (c->p, &nf);
  emlat_json_key (j, "files");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < nf; i++)
    {
      emlat_json_begin_object (j);
      emlat_json_kv_str (j, "path", f[i].path);
      emlat_json_key (j, "ignored");
      emlat_json_bool (j, f[i].ignored);
      emlat_json_kv_str (j, "read_error", f[i].read_error ? strerror (f[i].read_error) : NULL);
      emlat_json_kv_str (j, "stop", emlat_stop_name (f[i].scan.stop));
      emlat_json_kv_u64 (j, "stop_offset", f[i].scan.stop_offset);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
}

static void
counts (struct emlat_json *j, const struct report_ctx *c)
{
  const struct emlat_report_model *m = c->m;
  const struct emlat_profile_totals *t = emlat_profile_totals (c->p);
  emlat_json_key (j, "interactions");
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "total", m->n_ix);
  for (int q = 0; q < EMLAT_POP_COUNT; q++)
    emlat_json_kv_u64 (j, emlat_report_pop_key ((enum emlat_report_pop)q), m->n_pop[q]);
  emlat_json_key (j, "by_status");
  emlat_json_begin_object (j);
  for (unsigned s = 1; s <= EMLAT_STATUS_MAX; s++)
    emlat_json_kv_u64 (j, emlat_status_name (s), m->n_status[s]);
  emlat_json_kv_u64 (j, "unknown", m->n_status[0]);
  emlat_json_end_object (j);
  emlat_json_key (j, "by_root_kind");
  emlat_json_begin_object (j);
  for (unsigned k = 0; k < EMLAT_REPORT_KINDS; k++)
    emlat_json_kv_u64 (j, report_kind_key (k), m->n_kind[k]);
  emlat_json_end_object (j);
  emlat_json_end_object (j);
  emlat_json_key (j, "spans");
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "complete", t->spans_complete);
  emlat_json_kv_u64 (j, "incomplete", t->spans_incomplete);
  emlat_json_kv_u64 (j, "orphan_ends", t->spans_orphan_end);
  emlat_json_end_object (j);
  emlat_json_kv_u64 (j, "input_batches", t->input_batches);
}

static void
groups (struct emlat_json *j, const struct report_ctx *c)
{
  emlat_json_key (j, "groups");
  emlat_json_begin_array (j);
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      {
        const struct emlat_report_group *g = &c->m->g[k][q];
        if (!g->n)
          continue;
        emlat_json_begin_object (j);
        emlat_json_kv_str (j, "root_kind", report_kind_key (g->root_kind));
        emlat_json_kv_str (j, "population", emlat_report_pop_key (g->pop));
        emlat_json_key (j, "name");
        report_name_json (j, c->p, g->name);
        emlat_json_kv_u64 (j, "interactions", g->n);
        int lead = emlat_report_group_primary (g);
        emlat_json_kv_str (j, "primary_metric",
                           lead >= 0 ? emlat_report_metric_name ((enum emlat_report_metric)lead) : NULL);
        emlat_json_key (j, "metrics");
        emlat_json_begin_object (j);
        for (int i = 0; i < EMLAT_RM_COUNT; i++)
          {
            emlat_json_key (j, emlat_report_metric_name ((enum emlat_report_metric)i));
            dist (j, &g->d[i]);
          }
        emlat_json_end_object (j);
        emlat_json_key (j, "inverted");
        emlat_json_begin_object (j);
        for (int i = 0; i < EMLAT_RM_COUNT; i++)
          if (g->inverted[i])
            emlat_json_kv_u64 (j, emlat_report_metric_name ((enum emlat_report_metric)i), g->inverted[i]);
        emlat_json_end_object (j);
        emlat_json_key (j, "clamped");
        emlat_json_begin_object (j);
        for (int i = 0; i < EMLAT_RM_COUNT; i++)
          if (g->clamped[i])
            emlat_json_kv_u64 (j, emlat_report_metric_name ((enum emlat_report_metric)i), g->clamped[i]);
        emlat_json_end_object (j);
        emlat_json_key (j, "histogram");
        if (lead >= 0)
          {
            const struct emlat_report_series *s = &g->s[lead];
            uint64_t cnt[HIST_BUCKETS];
            double edges[HIST_BUCKETS + 1];
            report_log_hist (s->v, s->n, HIST_BUCKETS, cnt, edges);
            emlat_json_begin_object (j);
            emlat_json_kv_str (j, "metric", emlat_report_metric_name ((enum emlat_report_metric)lead));
            emlat_json_key (j, "edges_ns");
            emlat_json_begin_array (j);
            for (int b = 0; b <= HIST_BUCKETS; b++)
              emlat_json_double (j, edges[b]);
            emlat_json_end_array (j);
            emlat_json_key (j, "counts");
            emlat_json_begin_array (j);
            for (int b = 0; b < HIST_BUCKETS; b++)
              emlat_json_u64 (j, cnt[b]);
            emlat_json_end_array (j);
            emlat_json_end_object (j);
          }
        else
          emlat_json_null (j);
        emlat_json_end_object (j);
      }
  emlat_json_end_array (j);
}

static void
present_metrics (struct emlat_json *j, const struct emlat_report_metrics *m)
{
  emlat_json_begin_object (j);
  for (int i = 0; i < EMLAT_RM_COUNT; i++)
    if (m->mask >> i & 1u)
      emlat_json_kv_u64 (j, emlat_report_metric_name ((enum emlat_report_metric)i), m->v[i]);
  emlat_json_end_object (j);
}

static void
tail (struct emlat_json *j, const struct report_ctx *c)
{
  const struct emlat_report_model *m = c->m;
  emlat_json_key (j, "slowest");
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "metric", m->tail.has ? emlat_report_metric_name (m->tail.metric) : NULL);
  emlat_json_key (j, "interactions");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < m->tail.n_slow; i++)
    {
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "cause", m->tail.slow[i].cause);
      emlat_json_kv_u64 (j, "value_ns", m->tail.slow[i].value);
      char name[REPORT_NAME_LEN];
      if (c->names && c->names->has)
        emlat_json_kv_str (j, "name", report_ix_name (c, m->tail.slow[i].cause, name, sizeof name));
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_end_object (j);

  const struct emlat_report_waterfall *w = c->w;
  emlat_json_key (j, "tail");
  if (!w)
    {
      emlat_json_null (j);
      return;
    }
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "reason", c->w_why);
  int is_tail = strcmp (c->w_why, "tail") == 0;
  emlat_json_kv_str (j, "metric", is_tail ? emlat_report_metric_name (m->tail.metric) : NULL);
  emlat_json_kv_u64_opt (j, "rank", is_tail, m->tail.rank);
  emlat_json_kv_u64_opt (j, "of", is_tail, m->tail.n);
  emlat_json_kv_u64_opt (j, "value_ns", is_tail, m->tail.value);
  emlat_json_kv_u64 (j, "cause", w->cause);
  emlat_json_kv_str (j, "root_kind",
                     report_kind_key (w->root_kind <= EMLAT_ROOT_KIND_MAX ? w->root_kind : 0));
  emlat_json_kv_str (j, "population", emlat_report_pop_key (w->pop));
  emlat_json_kv_str (j, "status", emlat_status_name (w->status));
  emlat_json_kv_u64 (j, "thread", w->thread);
  emlat_json_key (j, "times");
  emlat_json_begin_object (j);
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if (w->t.tmask >> f & 1u)
      emlat_json_kv_u64 (j, emlat_time_field_name (f), w->t.t[f]);
  emlat_json_end_object (j);
  emlat_json_key (j, "metrics");
  present_metrics (j, &w->m);
  emlat_json_key (j, "axis");
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "t0", w->t0);
  emlat_json_kv_u64 (j, "t1", w->t1);
  emlat_json_end_object (j);
  emlat_json_kv_str (j, "spans_error", w->spans_error ? strerror (-w->spans_error) : NULL);
  static const char *const types[] = { "input", "first_input", "span", "phase" };
  emlat_json_key (j, "rows");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < w->n_rows; i++)
    {
      const struct emlat_report_wf_row *r = &w->rows[i];
      emlat_json_begin_object (j);
      emlat_json_kv_str (j, "type", types[r->type]);
      emlat_json_kv_str (j, "name", r->name);
      emlat_json_kv_u64 (j, "depth", (uint64_t)r->depth);
      emlat_json_kv_u64 (j, "start_ns", r->start);
      emlat_json_kv_u64_opt (j, "end_ns", r->has_end, r->end);
      emlat_json_kv_u64 (j, "thread", r->thread);
      int span = r->type == EMLAT_WF_SPAN; /* the other rows are no span */
      emlat_json_kv_u64_opt (j, "id", span, r->id);
      emlat_json_kv_u64_opt (j, "parent", span, r->parent);
      emlat_json_kv_str (j, "status", span ? emlat_span_status_name (r->status) : NULL);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_key (j, "split");
  emlat_json_begin_object (j);
  emlat_json_kv_u64_opt (j, "wall_ns", w->has_wall, w->wall);
  emlat_json_kv_u64_opt (j, "main_cpu_ns", w->has_cpu, w->cpu);
  uint64_t c0 = 0, c1 = 0;
  int window = w->has_cpu && emlat_report_cpu_window (&w->t, &c0, &c1);
  emlat_json_kv_u64_opt (j, "cpu_window_ns", window, c1 - c0);
  emlat_json_kv_u64 (j, "measured_wait_ns", w->waits);
  emlat_json_kv_u64 (j, "wait_spans", w->n_wait_spans);
  emlat_json_kv_u64_opt (j, "unknown_off_cpu_ns", w->has_unknown, w->unknown);
  emlat_json_kv_u64_opt (j, "unknown_off_cpu_excess_ns", w->has_unknown, w->excess);
  emlat_json_kv_u64_opt (j, "tty_emit_ns", w->has_tty_emit, w->tty_emit);
  emlat_json_end_object (j);
  emlat_json_key (j, "counters");
  emlat_json_begin_object (j);
  for (unsigned k = 0; k < EMLAT_C_COUNTER_COUNT; k++)
    if (w->counter_mask >> k & 1u)
      emlat_json_kv_u64 (j, emlat_counter_name (k), w->counters[k]);
  emlat_json_end_object (j);
  emlat_json_key (j, "span_counters");
  emlat_json_begin_object (j);
  for (unsigned k = 0; k < EMLAT_C_COUNTER_COUNT; k++)
    if (w->span_counter_mask >> k & 1u)
      emlat_json_kv_u64 (j, emlat_counter_name (k), w->span_counters[k]);
  emlat_json_end_object (j);
  emlat_json_end_object (j);
}

static void
overhead (struct emlat_json *j, const struct report_ctx *c)
{
  const struct emlat_report_overhead *o = &c->ovh;
  emlat_json_key (j, "overhead");
  emlat_json_begin_object (j);
  for (int f = 0; f < EMLAT_OVH_COUNT; f++)
    emlat_json_kv_u64_opt (j, emlat_report_ovh_name ((enum emlat_report_ovh_field)f), o->mask >> f & 1u, o->v[f]);
  emlat_json_key (j, "writer_share_of_core");
  if (o->has_writer_share)
    emlat_json_double (j, o->writer_share);
  else
    emlat_json_null (j);
  emlat_json_key (j, "final_stats");
  emlat_json_bool (j, o->final_stats);
  emlat_json_key (j, "writer_in_driver");
  emlat_json_bool (j, o->writer_in_driver);
  /* How the program ended (null: not recorded, or the other way). */
  emlat_json_kv_u64_opt (j, "exit_code", o->exit_known && !o->exit_signal,
                         (uint64_t)o->exit_code);
  emlat_json_kv_u64_opt (j, "exit_signal", o->exit_known && o->exit_signal,
                         (uint64_t)o->exit_signal);
  emlat_json_end_object (j);
}

static void
losses (struct emlat_json *j, const struct report_ctx *c)
{
  size_t n, nf;
  const struct emlat_loss_entry *l = emlat_profile_losses (c->p, &n);
  const struct emlat_file_summary *fs = emlat_profile_files (c->p, &nf);
  const struct emlat_profile_totals *t = emlat_profile_totals (c->p);
  emlat_json_key (j, "losses");
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "loss_records", t->loss_records);
  emlat_json_kv_u64 (j, "lost_records", t->lost_records);
  emlat_json_kv_u64 (j, "lost_bytes", t->lost_bytes);
  emlat_json_key (j, "intervals");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < n; i++)
    {
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "stream", l[i].loss.stream);
      emlat_json_kv_str (j, "reason", emlat_loss_reason_name (l[i].loss.reason));
      emlat_json_kv_u64 (j, "first_ns", l[i].loss.first);
      emlat_json_kv_u64 (j, "last_ns", l[i].loss.last);
      emlat_json_kv_u64 (j, "records", l[i].loss.records);
      emlat_json_kv_u64 (j, "bytes", l[i].loss.bytes);
      emlat_json_kv_str (j, "file", l[i].file < nf ? fs[l[i].file].path : NULL);
      emlat_json_kv_u64 (j, "offset", l[i].offset);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_end_object (j);
}

static void
unavailable (struct emlat_json *j, const struct report_ctx *c)
{
  const struct emlat_report_model *m = c->m;
  emlat_json_key (j, "unavailable");
  emlat_json_begin_object (j);
  for (int q = 0; q < EMLAT_POP_COUNT; q++)
    {
      emlat_json_key (j, emlat_report_pop_key ((enum emlat_report_pop)q));
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "interactions", m->n_pop[q]);
      emlat_json_key (j, "missing");
      emlat_json_begin_object (j);
      for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
        emlat_json_kv_u64 (j, emlat_time_field_name (f), m->n_pop[q] - m->present_t[q][f]);
      emlat_json_kv_u64 (j, "thread_cpu_begin", m->n_pop[q] - m->present_cpu_begin[q]);
      emlat_json_kv_u64 (j, "thread_cpu_end", m->n_pop[q] - m->present_cpu_end[q]);
      emlat_json_end_object (j);
      emlat_json_end_object (j);
    }
  emlat_json_end_object (j);
}

static void
diagnostics (struct emlat_json *j, const struct report_ctx *c)
{
  size_t nd, nf;
  const struct emlat_diag *d = emlat_profile_diags (c->p, &nd);
  const struct emlat_file_summary *fs = emlat_profile_files (c->p, &nf);
  emlat_json_key (j, "diagnostics");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < nd; i++)
    {
      emlat_json_begin_object (j);
      record_json_diag_keys (j, &d[i], d[i].file < nf ? fs[d[i].file].path : NULL);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
}

int
report_per_ix_put (struct spool *s, const struct emlat_profile *p,
                   const struct emlat_interaction *ix)
{
  struct emlat_report_times t;
  struct emlat_report_metrics mt;
  emlat_report_times_from_profile (p, ix, &t);
  emlat_report_metrics_compute (&t, &mt);
  uint8_t b[8 + EMLAT_VARINT_MAX * (EMLAT_RM_COUNT + 2)];
  size_t n = 0;
  b[n++] = (uint8_t)(ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0);
  b[n++] = (uint8_t)(ix->status <= 255 ? ix->status : 255);
  b[n++] = (uint8_t)emlat_report_population (&t);
  n += emlat_put_uvarint (b + n, mt.mask);
  for (int k = 0; k < EMLAT_RM_COUNT; k++)
    if (mt.mask >> k & 1u)
      n += emlat_put_uvarint (b + n, mt.v[k]);
  return spool_put (s, ix->cause, b, n);
}

/* One element of "per_interaction", from its spooled record. */
static int
per_ix_out (void *ctx, uint64_t cause, const uint8_t *b, size_t n)
{
  struct emlat_json *j = ctx;
  const uint8_t *end = b + n;
  unsigned kind = b[0], status = b[1];
  enum emlat_report_pop pop = (enum emlat_report_pop)b[2];
  b += 3;
  struct emlat_report_metrics mt;
  memset (&mt, 0, sizeof mt);
  uint64_t v = 0;
  b += emlat_get_uvarint (b, end, &v);
  mt.mask = (uint32_t)v;
  for (int k = 0; k < EMLAT_RM_COUNT; k++)
    if (mt.mask >> k & 1u)
      b += emlat_get_uvarint (b, end, &mt.v[k]);
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "cause", cause);
  emlat_json_kv_str (j, "root_kind", report_kind_key (kind));
  emlat_json_kv_str (j, "status", emlat_status_name (status));
  emlat_json_kv_str (j, "population", emlat_report_pop_key (pop));
  emlat_json_key (j, "metrics");
  present_metrics (j, &mt);
  emlat_json_end_object (j);
  return j->error ? -1 : 0;
}

static int
per_interaction (struct emlat_json *j, const struct report_ctx *c)
{
  emlat_json_key (j, "per_interaction");
  emlat_json_begin_array (j);
  int rc = c->per_ix ? spool_each (c->per_ix, per_ix_out, j) : 0;
  if (!c->per_ix)
    {
      /* The interactions the profile keeps, in cause order. */
      size_t n;
      const struct emlat_interaction *ix = emlat_profile_interactions (c->p, &n);
      struct spool s;
      spool_init (&s);
      for (size_t i = 0; i < n && rc == 0; i++)
        rc = report_per_ix_put (&s, c->p, &ix[i]);
      if (rc == 0)
        rc = spool_each (&s, per_ix_out, j);
      spool_free (&s);
    }
  emlat_json_end_array (j);
  return rc;
}

int
report_json (const struct report_ctx *c, FILE *f)
{
  struct emlat_json j;
  emlat_json_init (&j, f);
  emlat_json_begin_object (&j);
  emlat_json_kv_str (&j, "schema", "emlat-report/1");
  const struct emlat_file_header *h = emlat_profile_header (c->p);
  char uuid[37];
  if (h)
    emlat_uuid_format (h->uuid, uuid);
  emlat_json_kv_str (&j, "session", h ? uuid : NULL);
  files (&j, c);
  emlat_json_key (&j, "damaged");
  emlat_json_bool (&j, c->damaged);
  session_meta (&j, c->p);
  emlat_json_key (&j, "percentiles");
  emlat_json_begin_object (&j);
  emlat_json_kv_str (&j, "rule", "nearest-rank: x[ceil(p*n)] of the n sorted samples");
  emlat_json_kv_u64 (&j, "p99_9_min_n", EMLAT_REPORT_P999_MIN_N);
  emlat_json_end_object (&j);
  counts (&j, c);
  report_json_headline (&j, c);
  report_json_joined (&j, c);
  groups (&j, c);
  report_json_names (&j, c);
  report_json_app (&j, c);
  report_json_functions (&j, c);
  emlat_json_key (&j, "resources");
  report_json_resources_value (&j, &c->res);
  tail (&j, c);
  overhead (&j, c);
  losses (&j, c);
  unavailable (&j, c);
  diagnostics (&j, c);
  if (c->per_interaction && per_interaction (&j, c) != 0)
    j.error = 1;
  emlat_json_end_object (&j);
  emlat_json_line (&j);
  return j.error ? -1 : 0;
}

void
report_json_dist (struct emlat_json *j, const struct emlat_report_dist *d)
{
  dist (j, d);
}

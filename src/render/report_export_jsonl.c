/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_export_jsonl.c -- every decoded record of a profile as one JSON
 * object per line (format in report_export.h and docs/REPORT.md).
 *
 * The files are those the profile loaded, in rotation order, skipping the
 * ones it ignored; each is scanned again from the bytes the profile holds
 * (emlat_profile_file_data, so standard input works too) with emlat_scan,
 * which delivers only records of chunks that decoded cleanly (F-27), so
 * every line is a record the reader accepted.  Common keys: "record" (its
 * kind), "file" (index in the set), "chunk" (offset of its chunk),
 * "thread".
 *
 * Invariant: a field that is absent in the record is absent in the line;
 * strings (SESSION values, STRING records) go through the JSON writer,
 * which escapes control bytes and replaces invalid UTF-8.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/json.h"
#include "render/report_export.h"
#include "emlat/emlat_report.h"
#include "render/report_render.h"
#include "emlat/emlat.h"
#include "format/format.h"

struct jl
{
  struct emlat_json j;
  uint32_t file;
};

static void
kv_key (struct emlat_json *j, const uint8_t *k, uint32_t n)
{
  char key[80];
  size_t l = n < sizeof key - 1 ? n : sizeof key - 1;
  memcpy (key, k, l);
  key[l] = 0;
  emlat_json_kv_str (j, "key", key);
}

static void
interaction (struct emlat_json *j, const struct emlat_rd_ix *r)
{
  unsigned kind = r->root_kind <= EMLAT_ROOT_KIND_MAX ? r->root_kind : 0;
  emlat_json_kv_u64 (j, "cause", r->cause);
  emlat_json_kv_str (j, "root_kind", report_kind_key (kind));
  emlat_json_kv_str (j, "status", emlat_status_name (r->status));
  emlat_json_key (j, "times");
  emlat_json_begin_object (j);
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if (r->time_mask >> f & 1u)
      emlat_json_kv_u64 (j, emlat_time_field_name (f), r->t[f]);
  emlat_json_end_object (j);
  emlat_json_key (j, "qualities");
  emlat_json_begin_object (j);
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if (r->time_mask >> f & 1u)
      emlat_json_kv_str (j, emlat_time_field_name (f), emlat_quality_name (r->q[f]));
  emlat_json_end_object (j);
  emlat_json_key (j, "values");
  emlat_json_begin_object (j);
  for (unsigned f = 0; f < EMLAT_V_FIELD_COUNT; f++)
    if (r->value_mask >> f & 1u)
      emlat_json_kv_u64 (j, emlat_value_field_name (f), r->v[f]);
  emlat_json_end_object (j);
  emlat_json_key (j, "counters");
  emlat_json_begin_object (j);
  for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
    if (r->counter_mask >> c & 1u)
      emlat_json_kv_u64 (j, emlat_counter_name (c), r->c[c]);
  emlat_json_end_object (j);
  struct emlat_report_times t;
  struct emlat_report_metrics m;
  emlat_report_times_from_record (r, &t);
  emlat_report_metrics_compute (&t, &m);
  emlat_json_kv_str (j, "population", emlat_report_pop_key (emlat_report_population (&t)));
  emlat_json_key (j, "metrics");
  emlat_json_begin_object (j);
  for (int k = 0; k < EMLAT_RM_COUNT; k++)
    if (m.mask >> k & 1u)
      emlat_json_kv_u64 (j, emlat_report_metric_name ((enum emlat_report_metric)k), m.v[k]);
  emlat_json_end_object (j);
}

static void
span (struct emlat_json *j, enum emlat_rec_kind k, const struct emlat_rd_span *s)
{
  emlat_json_kv_u64 (j, "span_id", s->id);
  if (k != EMLAT_REC_SPAN_END)
    {
      emlat_json_kv_str (j, "kind", emlat_span_kind_name (s->kind));
      emlat_json_kv_u64 (j, "parent", s->parent);
      emlat_json_kv_u64 (j, "cause", s->cause);
      emlat_json_kv_u64 (j, "start", s->start);
    }
  if (k != EMLAT_REC_SPAN_BEGIN)
    {
      emlat_json_kv_u64 (j, "end", s->end);
      emlat_json_kv_str (j, "status", emlat_span_status_name (s->status));
    }
  if (s->flags & EMLAT_RD_SPAN_CPU)
    emlat_json_kv_u64 (j, k == EMLAT_REC_SPAN_COMPLETE ? "cpu_ns" : "cpu_reading", s->cpu);
  if (s->flags & EMLAT_RD_SPAN_DETAIL)
    emlat_json_kv_u64 (j, "detail", s->detail);
  if (s->n_counters)
    {
      emlat_json_key (j, "counters");
      emlat_json_begin_object (j);
      for (uint32_t i = 0; i < s->n_counters && i < EMLAT_C_COUNTER_COUNT; i++)
        emlat_json_kv_u64 (j, emlat_counter_name (s->counter_id[i]), s->counter_val[i]);
      emlat_json_end_object (j);
    }
}

static int
on_record (void *ctx, const struct emlat_chunk_info *c, const struct emlat_record *r)
{
  struct jl *x = ctx;
  struct emlat_json *j = &x->j;
  static const char *const kinds[] = {
    [EMLAT_REC_STRING] = "string",         [EMLAT_REC_INPUT] = "input",
    [EMLAT_REC_IX_BEGIN] = "interaction_begin", [EMLAT_REC_IX_COMPLETE] = "interaction",
    [EMLAT_REC_SPAN_COMPLETE] = "span",    [EMLAT_REC_SPAN_BEGIN] = "span_begin",
    [EMLAT_REC_SPAN_END] = "span_end",     [EMLAT_REC_LOSS] = "loss",
  };
  const char *kind = r->kind == EMLAT_REC_KV
                       ? (r->chunk_type == EMLAT_CHUNK_SESSION ? "session" : "stats")
                     : (unsigned)r->kind < sizeof kinds / sizeof kinds[0] && kinds[r->kind]
                       ? kinds[r->kind]
                       : "unknown";
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "record", kind);
  emlat_json_kv_u64 (j, "file", x->file);
  emlat_json_kv_u64 (j, "chunk", c->offset);
  emlat_json_kv_u64 (j, "thread", r->thread);
  switch (r->kind)
    {
    case EMLAT_REC_KV:
      kv_key (j, r->u.kv.key, r->u.kv.key_len);
      emlat_json_key (j, "value");
      if (r->u.kv.type == 0)
        emlat_json_u64 (j, r->u.kv.u);
      else if (r->u.kv.type == 1)
        emlat_json_i64 (j, r->u.kv.i);
      else
        emlat_json_strn (j, r->u.kv.s, r->u.kv.s_len);
      break;
    case EMLAT_REC_STRING:
      emlat_json_kv_u64 (j, "id", r->u.str.id);
      emlat_json_key (j, "bytes");
      emlat_json_strn (j, r->u.str.bytes, r->u.str.len);
      break;
    case EMLAT_REC_INPUT:
      emlat_json_kv_u64 (j, "batch_id", r->u.input.batch_id);
      if (r->u.input.mask & EMLAT_IB_KNOWN_EMPTY)
        emlat_json_kv_u64 (j, "t_known_empty", r->u.input.t_known_empty);
      if (r->u.input.mask & EMLAT_IB_FIRST_READY)
        {
          emlat_json_kv_u64 (j, "t_first_ready", r->u.input.t_first_ready);
          emlat_json_kv_str (j, "ready_quality", emlat_quality_name (r->u.input.ready_quality));
        }
      if (r->u.input.mask & EMLAT_IB_READ_BEGIN)
        emlat_json_kv_u64 (j, "t_read_begin", r->u.input.t_read_begin);
      if (r->u.input.mask & EMLAT_IB_READ_END)
        emlat_json_kv_u64 (j, "t_read_end", r->u.input.t_read_end);
      if (r->u.input.mask & EMLAT_IB_BYTES)
        emlat_json_kv_u64 (j, "bytes", r->u.input.bytes);
      break;
    case EMLAT_REC_IX_BEGIN:
      emlat_json_kv_u64 (j, "cause", r->u.ix_begin.cause);
      emlat_json_kv_str (j, "root_kind",
                         report_kind_key (r->u.ix_begin.root_kind <= EMLAT_ROOT_KIND_MAX
                                            ? r->u.ix_begin.root_kind
                                            : 0));
      emlat_json_kv_u64 (j, "parent", r->u.ix_begin.parent);
      emlat_json_kv_u64 (j, "scheduled_by", r->u.ix_begin.scheduled_by);
      emlat_json_kv_u64 (j, "t_dispatch_begin", r->u.ix_begin.t_dispatch_begin);
      break;
    case EMLAT_REC_IX_COMPLETE:
      interaction (j, &r->u.ix);
      break;
    case EMLAT_REC_SPAN_COMPLETE:
    case EMLAT_REC_SPAN_BEGIN:
    case EMLAT_REC_SPAN_END:
      span (j, r->kind, &r->u.span);
      break;
    case EMLAT_REC_LOSS:
      emlat_json_kv_u64 (j, "stream", r->u.loss.stream);
      emlat_json_kv_str (j, "reason", emlat_loss_reason_name (r->u.loss.reason));
      emlat_json_kv_u64 (j, "first", r->u.loss.first);
      emlat_json_kv_u64 (j, "last", r->u.loss.last);
      emlat_json_kv_u64 (j, "records", r->u.loss.records);
      emlat_json_kv_u64 (j, "bytes", r->u.loss.bytes);
      break;
    }
  emlat_json_end_object (j);
  emlat_json_line (j);
  return j->error ? 1 : 0;
}

int
report_export_jsonl (const struct emlat_profile *p, FILE *f)
{
  size_t nf;
  const struct emlat_file_summary *fs = emlat_profile_files (p, &nf);
  struct jl x;
  emlat_json_init (&x.j, f);
  for (size_t i = 0; i < nf; i++)
    {
      if (fs[i].ignored || fs[i].read_error || !fs[i].scan.header_ok)
        continue;
      size_t len;
      const uint8_t *buf = emlat_profile_file_data (p, i, &len);
      if (!buf)
        continue;
      struct emlat_scan_params sp;
      struct emlat_scan_result res;
      memset (&sp, 0, sizeof sp);
      sp.file_index = (uint32_t)i;
      sp.visitor.ctx = &x;
      sp.visitor.on_record = on_record;
      x.file = (uint32_t)i;
      emlat_scan (buf, len, &sp, &res);
      if (x.j.error)
        return -EIO;
    }
  return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * record_json.c -- records, diagnostics and the dump's header lines as
 * JSON, in the vocabulary of record_json.h (docs/JSON.md "Records").
 *
 * One function per record kind, each writing the keys FORMAT.md section 6
 * gives that kind, in its order.  Invariant: a record kind always has the
 * same keys (null for an absent optional field), so a line can be checked
 * against docs/schema/record.schema.json with no key left undocumented.
 */
#include "render/record_json.h"

#include <stdint.h>

#include "emlat/emlat.h"
#include "format/format.h"

static const char *
record_kind (const struct emlat_record *r)
{
  switch (r->kind)
    {
    case EMLAT_REC_KV:
      return r->chunk_type == EMLAT_CHUNK_STATS ? "stats" : "session";
    case EMLAT_REC_STRING:
      return "string";
    case EMLAT_REC_INPUT:
      return "input";
    case EMLAT_REC_IX_BEGIN:
      return "interaction_begin";
    case EMLAT_REC_IX_COMPLETE:
      return "interaction_complete";
    case EMLAT_REC_SPAN_COMPLETE:
      return "span_complete";
    case EMLAT_REC_SPAN_BEGIN:
      return "span_begin";
    case EMLAT_REC_SPAN_END:
      return "span_end";
    case EMLAT_REC_LOSS:
      return "loss";
    case EMLAT_REC_EVENT:
      return "event";
    case EMLAT_REC_SAMPLE:
      return "sample";
    }
  return "?";
}

void
record_json_kv_value (struct emlat_json *j, const struct emlat_kv *kv)
{
  if (!kv)
    emlat_json_null (j);
  else if (kv->type == 0)
    emlat_json_u64 (j, kv->u);
  else if (kv->type == 1)
    emlat_json_i64 (j, kv->i);
  else
    emlat_json_strn (j, kv->s, kv->s_len);
}

/* SESSION and STATS entries (FORMAT.md 6.2). */
static void
kv_keys (struct emlat_json *j, const struct emlat_kv *kv)
{
  emlat_json_key (j, "key");
  emlat_json_strn (j, kv->key, kv->key_len);
  emlat_json_key (j, "value");
  record_json_kv_value (j, kv);
}

/* STRING (6.3): the bytes as a string, and their count (the string may
   hold replacement characters where the bytes were not UTF-8). */
static void
string_keys (struct emlat_json *j, uint64_t id, const uint8_t *bytes, uint32_t len)
{
  emlat_json_kv_u64 (j, "id", id);
  emlat_json_key (j, "value");
  emlat_json_strn (j, bytes, len);
  emlat_json_kv_u64 (j, "length", len);
}

/* INPUT (6.4): every optional field, null when its mask bit is clear. */
static void
input_keys (struct emlat_json *j, const struct emlat_rd_input *in)
{
  emlat_json_kv_u64 (j, "id", in->batch_id);
  emlat_json_kv_u64_opt (j, "t_known_empty", in->mask & EMLAT_IB_KNOWN_EMPTY, in->t_known_empty);
  emlat_json_kv_u64_opt (j, "t_first_ready", in->mask & EMLAT_IB_FIRST_READY, in->t_first_ready);
  emlat_json_kv_str (j, "ready_quality",
                     in->mask & EMLAT_IB_FIRST_READY ? emlat_quality_name (in->ready_quality)
                                                     : NULL);
  emlat_json_kv_u64_opt (j, "t_read_begin", in->mask & EMLAT_IB_READ_BEGIN, in->t_read_begin);
  emlat_json_kv_u64_opt (j, "t_read_end", in->mask & EMLAT_IB_READ_END, in->t_read_end);
  emlat_json_kv_u64_opt (j, "bytes", in->mask & EMLAT_IB_BYTES, in->bytes);
}

/* INTERACTION begin record (6.5). */
static void
ix_begin_keys (struct emlat_json *j, const struct emlat_rd_ix_begin *b)
{
  emlat_json_kv_u64 (j, "cause", b->cause);
  emlat_json_kv_str (j, "root_kind", emlat_root_kind_name (b->root_kind));
  emlat_json_kv_u64 (j, "name_id", b->name);
  emlat_json_kv_u64 (j, "parent_cause", b->parent);
  emlat_json_kv_u64 (j, "scheduled_by_cause", b->scheduled_by);
  emlat_json_kv_u64 (j, "t_dispatch_begin", b->t_dispatch_begin);
}

/* NAME: {field: value} of the fields whose bit is set in MASK. */
static void
u64_map (struct emlat_json *j, const char *name, uint32_t mask, unsigned count,
         const char *(*field_name) (unsigned), const uint64_t *v)
{
  emlat_json_key (j, name);
  emlat_json_begin_object (j);
  for (unsigned f = 0; f < count; f++)
    if (mask >> f & 1u)
      emlat_json_kv_u64 (j, field_name (f), v[f]);
  emlat_json_end_object (j);
}

/* INTERACTION complete record (6.5): the present time fields, the quality
   of each (explicit or its default, 7.3), values and counters. */
static void
ix_complete_keys (struct emlat_json *j, const struct emlat_rd_ix *ix)
{
  emlat_json_kv_u64 (j, "cause", ix->cause);
  emlat_json_kv_str (j, "root_kind", emlat_root_kind_name (ix->root_kind));
  emlat_json_kv_u64 (j, "name_id", ix->name);
  emlat_json_kv_str (j, "status", emlat_status_name (ix->status));
  u64_map (j, "times", ix->time_mask, EMLAT_T_FIELD_COUNT, emlat_time_field_name, ix->t);
  emlat_json_key (j, "qualities");
  emlat_json_begin_object (j);
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if (ix->time_mask >> f & 1u)
      emlat_json_kv_str (j, emlat_time_field_name (f), emlat_quality_name (ix->q[f]));
  emlat_json_end_object (j);
  u64_map (j, "values", ix->value_mask, EMLAT_V_FIELD_COUNT, emlat_value_field_name, ix->v);
  u64_map (j, "counters", ix->counter_mask, EMLAT_C_COUNTER_COUNT, emlat_counter_name, ix->c);
}

static void
span_counters (struct emlat_json *j, const struct emlat_rd_span *s)
{
  emlat_json_key (j, "counters");
  emlat_json_begin_object (j);
  for (uint32_t i = 0; i < s->n_counters && i < EMLAT_C_COUNTER_COUNT; i++)
    emlat_json_kv_u64 (j, emlat_counter_name (s->counter_id[i]), s->counter_val[i]);
  emlat_json_end_object (j);
}

/* What a complete and a begin record share: the span's start. */
static void
span_start_keys (struct emlat_json *j, const struct emlat_rd_span *s)
{
  emlat_json_kv_u64 (j, "id", s->id);
  emlat_json_kv_u64 (j, "parent", s->parent);
  emlat_json_kv_u64 (j, "cause", s->cause);
  emlat_json_kv_str (j, "kind", emlat_span_kind_name (s->kind));
  emlat_json_kv_u64 (j, "t_start", s->start);
}

/* SPAN records (6.6).  The thread-CPU field is a duration in a complete
   record and an absolute reading in a begin or end record, hence three
   names. */
static void
span_keys (struct emlat_json *j, enum emlat_rec_kind k, const struct emlat_rd_span *s)
{
  int cpu = (s->flags & EMLAT_RD_SPAN_CPU) != 0;
  if (k == EMLAT_REC_SPAN_BEGIN)
    {
      span_start_keys (j, s);
      emlat_json_kv_u64_opt (j, "thread_cpu_begin", cpu, s->cpu);
      return;
    }
  if (k == EMLAT_REC_SPAN_COMPLETE)
    span_start_keys (j, s);
  else
    emlat_json_kv_u64 (j, "id", s->id);
  emlat_json_kv_u64 (j, "t_end", s->end);
  emlat_json_kv_str (j, "status", emlat_span_status_name (s->status));
  emlat_json_kv_u64_opt (j, k == EMLAT_REC_SPAN_COMPLETE ? "thread_cpu_ns" : "thread_cpu_end",
                         cpu, s->cpu);
  emlat_json_kv_u64_opt (j, "detail", s->flags & EMLAT_RD_SPAN_DETAIL, s->detail);
  span_counters (j, s);
}

/* LOSS (6.7). */
static void
loss_keys (struct emlat_json *j, const struct emlat_rd_loss *l)
{
  emlat_json_kv_u64 (j, "stream", l->stream);
  emlat_json_kv_str (j, "reason", emlat_loss_reason_name (l->reason));
  emlat_json_kv_u64 (j, "t_first", l->first);
  emlat_json_kv_u64 (j, "t_last", l->last);
  emlat_json_kv_u64 (j, "records", l->records);
  emlat_json_kv_u64 (j, "bytes", l->bytes);
}

/* EVENT (6.9): the id of async and flow records, the value of counters
   (a number; a floating value that is not finite is null). */
static void
event_keys (struct emlat_json *j, const struct emlat_rd_event *e)
{
  emlat_json_kv_str (j, "tag", emlat_event_tag_name (e->tag));
  emlat_json_kv_u64 (j, "name_id", e->name);
  emlat_json_kv_u64 (j, "t", e->t);
  emlat_json_kv_u64_opt (j, "id", EMLAT_EVENT_HAS_ID (e->tag) || EMLAT_EVENT_IS_FN (e->tag), e->id);
  emlat_json_key (j, "value");
  if (e->tag == EMLAT_EV_COUNTER)
    emlat_json_i64 (j, e->iv);
  else if (e->tag == EMLAT_EV_COUNTER_F)
    emlat_json_double (j, e->fv);
  else
    emlat_json_null (j);
}

/* RESOURCE (6.10): every field, null when absent. */
static void
sample_keys (struct emlat_json *j, const struct emlat_rd_sample *s)
{
  emlat_json_kv_u64 (j, "t", s->t);
  for (unsigned f = 0; f < EMLAT_RES_FIELD_COUNT; f++)
    emlat_json_kv_u64_opt (j, emlat_resource_field_name (f), s->mask >> f & 1u, s->v[f]);
}

uint64_t
record_json_name_id (const struct emlat_record *r)
{
  switch (r->kind)
    {
    case EMLAT_REC_EVENT:
      return r->u.event.name;
    case EMLAT_REC_IX_BEGIN:
      return r->u.ix_begin.name;
    case EMLAT_REC_IX_COMPLETE:
      return r->u.ix.name;
    case EMLAT_REC_SPAN_COMPLETE:
    case EMLAT_REC_SPAN_END:
      /* F-44: a user span's detail names it; an end record does not say
         its kind, and carries a detail only for the spans that have one. */
      if ((r->kind == EMLAT_REC_SPAN_END || r->u.span.kind == EMLAT_SPAN_USER)
          && (r->u.span.flags & EMLAT_RD_SPAN_DETAIL))
        return r->u.span.detail;
      return 0;
    default:
      return 0;
    }
}

int
record_json_has_name (const struct emlat_record *r)
{
  return r->kind == EMLAT_REC_EVENT || r->kind == EMLAT_REC_IX_BEGIN
         || r->kind == EMLAT_REC_IX_COMPLETE || r->kind == EMLAT_REC_SPAN_COMPLETE
         || r->kind == EMLAT_REC_SPAN_BEGIN || r->kind == EMLAT_REC_SPAN_END;
}

void
record_json_name_key (struct emlat_json *j, const uint8_t *bytes, size_t len)
{
  emlat_json_key (j, "name");
  if (bytes)
    emlat_json_strn (j, bytes, len);
  else
    emlat_json_null (j);
}

void
record_json_keys (struct emlat_json *j, const char *file, const struct emlat_chunk_info *ci,
                  const struct emlat_record *r)
{
  emlat_json_kv_str (j, "record", record_kind (r));
  emlat_json_kv_str (j, "file", file);
  emlat_json_kv_u64 (j, "chunk", ci->offset);
  emlat_json_kv_u64 (j, "thread", r->thread);
  switch (r->kind)
    {
    case EMLAT_REC_KV:
      kv_keys (j, &r->u.kv);
      break;
    case EMLAT_REC_STRING:
      string_keys (j, r->u.str.id, r->u.str.bytes, r->u.str.len);
      break;
    case EMLAT_REC_INPUT:
      input_keys (j, &r->u.input);
      break;
    case EMLAT_REC_IX_BEGIN:
      ix_begin_keys (j, &r->u.ix_begin);
      break;
    case EMLAT_REC_IX_COMPLETE:
      ix_complete_keys (j, &r->u.ix);
      break;
    case EMLAT_REC_SPAN_COMPLETE:
    case EMLAT_REC_SPAN_BEGIN:
    case EMLAT_REC_SPAN_END:
      span_keys (j, r->kind, &r->u.span);
      break;
    case EMLAT_REC_LOSS:
      loss_keys (j, &r->u.loss);
      break;
    case EMLAT_REC_EVENT:
      event_keys (j, &r->u.event);
      break;
    case EMLAT_REC_SAMPLE:
      sample_keys (j, &r->u.sample);
      break;
    }
}

void
record_json_diag_keys (struct emlat_json *j, const struct emlat_diag *d, const char *file)
{
  char message[256];
  struct emlat_diag c = *d;
  c.offset = UINT64_MAX; /* the message without "offset N: " */
  emlat_diag_format (&c, message, sizeof message);
  emlat_json_kv_str (j, "kind", emlat_diag_kind_name (d->kind));
  emlat_json_kv_str (j, "file", file);
  emlat_json_kv_u64_opt (j, "offset", d->offset != UINT64_MAX, d->offset);
  emlat_json_kv_str (j, "message", message);
}

void
record_json_file_header_line (struct emlat_json *j, const char *file,
                              const struct emlat_file_header *h, const char *uuid)
{
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "record", "file_header");
  emlat_json_kv_str (j, "file", file);
  emlat_json_kv_u64 (j, "major", h->major);
  emlat_json_kv_u64 (j, "minor", h->minor);
  emlat_json_kv_str (j, "session", uuid);
  emlat_json_kv_u64 (j, "rotation", h->rotation);
  emlat_json_kv_u64 (j, "realtime_start", h->realtime_start);
  emlat_json_kv_u64 (j, "monotonic_start", h->monotonic_start);
  emlat_json_end_object (j);
  emlat_json_line (j);
}

void
record_json_chunk_header_line (struct emlat_json *j, const char *file,
                               const struct emlat_chunk_info *ci, int decoded)
{
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "record", "chunk_header");
  emlat_json_kv_str (j, "file", file);
  emlat_json_kv_u64 (j, "chunk", ci->offset);
  emlat_json_kv_u64 (j, "type", ci->type);
  const char *name = emlat_chunk_type_name (ci->type);
  emlat_json_kv_str (j, "type_name", name[0] == '?' ? NULL : name);
  emlat_json_kv_u64 (j, "version", ci->version);
  emlat_json_kv_u64 (j, "flags", ci->flags);
  emlat_json_kv_u64 (j, "sequence", ci->sequence);
  emlat_json_kv_u64 (j, "stored", ci->stored);
  emlat_json_key (j, "decoded");
  emlat_json_bool (j, decoded);
  emlat_json_kv_u64_opt (j, "base_time", decoded, ci->base_time);
  emlat_json_kv_u64_opt (j, "thread", decoded, ci->thread);
  emlat_json_kv_u64_opt (j, "records", decoded, ci->count);
  emlat_json_end_object (j);
  emlat_json_line (j);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_dump.c -- `emlat dump [--json] [--chunks] [--hex] FILE...`: every
 * chunk and record of .emlat files, as the scanner decodes them.
 *
 * Human form: one header line per chunk ("chunk 3 SPAN @1240 seq 3 thread
 * 2 records 10"), then one indented line per record; times are shown
 * relative to the file's monotonic start ("+1234" ns).  JSON form: one
 * object per line (file header, chunk, record, diagnostic), with absolute
 * profiler-clock timestamps.  Each file is dumped alone, as written; the
 * dump never joins begin and end records (that is the profile's job).
 * FILE "-" is standard input (load.h, cli_stdin).
 *
 * Exit: 0 every file read to a clean end, 1 some file damaged (everything
 * before the damage was dumped), 2 unreadable input or usage.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/load.h"
#include "render/json.h"
#include "emlat/emlat_reader.h"
#include "format/format.h"

struct dump
{
  const char *path;
  const uint8_t *buf;
  int json, chunks_only, hex;
  uint64_t mono0;          /* file's monotonic start: origin of "+t" */
  uint64_t chunk_no;
  struct emlat_json j;
};

/* ------------------------------------------------------------------ */
/* Text helpers                                                        */

static void put_rel (const struct dump *d, const char *name, uint64_t t)
{
  int64_t rel = (int64_t)(t - d->mono0);
  printf (" %s=%+" PRId64, name, rel);
}

static void put_bytes (const uint8_t *s, size_t n)
{
  putchar ('"');
  for (size_t i = 0; i < n; i++)
    {
      uint8_t c = s[i];
      if (c == '"' || c == '\\')
        printf ("\\%c", c);
      else if (c >= 0x20 && c < 0x7f)
        putchar (c);
      else
        printf ("\\x%02x", c);
    }
  putchar ('"');
}

static void hexdump (const uint8_t *p, size_t n, uint64_t base)
{
  for (size_t i = 0; i < n; i += 16)
    {
      printf ("    %08" PRIx64 " ", base + i);
      for (size_t k = i; k < i + 16; k++)
        {
          if (k < n)
            printf (" %02x", p[k]);
          else
            printf ("   ");
        }
      printf ("  |");
      for (size_t k = i; k < i + 16 && k < n; k++)
        putchar (p[k] >= 0x20 && p[k] < 0x7f ? p[k] : '.');
      printf ("|\n");
    }
}

/* ------------------------------------------------------------------ */
/* Human-readable records                                              */

static void text_record (struct dump *d, const struct emlat_record *r)
{
  switch (r->kind)
    {
    case EMLAT_REC_KV:
      {
        const struct emlat_kv *kv = &r->u.kv;
        printf ("  %s %.*s = ", r->chunk_type == EMLAT_CHUNK_STATS ? "stat" : "meta",
                (int)kv->key_len, (const char *)kv->key);
        if (kv->type == 0)
          printf ("%" PRIu64 "\n", kv->u);
        else if (kv->type == 1)
          printf ("%" PRId64 "\n", kv->i);
        else
          {
            put_bytes (kv->s, kv->s_len);
            putchar ('\n');
          }
        return;
      }
    case EMLAT_REC_STRING:
      printf ("  string id=%" PRIu64 " len=%u ", r->u.str.id, r->u.str.len);
      put_bytes (r->u.str.bytes, r->u.str.len);
      putchar ('\n');
      return;
    case EMLAT_REC_INPUT:
      {
        const struct emlat_rd_input *in = &r->u.input;
        printf ("  input batch=%" PRIu64 " thread=%" PRIu64, in->batch_id, in->thread);
        if (in->mask & 0x01)
          put_rel (d, "known_empty", in->t_known_empty);
        if (in->mask & 0x02)
          {
            put_rel (d, "first_ready", in->t_first_ready);
            printf ("(%s)", emlat_quality_name (in->ready_quality));
          }
        if (in->mask & 0x04)
          put_rel (d, "read_begin", in->t_read_begin);
        if (in->mask & 0x08)
          put_rel (d, "read_end", in->t_read_end);
        if (in->mask & 0x10)
          printf (" bytes=%" PRIu64, in->bytes);
        putchar ('\n');
        return;
      }
    case EMLAT_REC_IX_BEGIN:
      {
        const struct emlat_rd_ix_begin *b = &r->u.ix_begin;
        printf ("  interaction begin cause=%" PRIu64 " thread=%" PRIu64 " kind=%s", b->cause,
                r->thread, emlat_root_kind_name (b->root_kind));
        if (b->parent)
          printf (" parent=%" PRIu64, b->parent);
        if (b->scheduled_by)
          printf (" scheduled_by=%" PRIu64, b->scheduled_by);
        put_rel (d, "dispatch_begin", b->t_dispatch_begin);
        putchar ('\n');
        return;
      }
    case EMLAT_REC_IX_COMPLETE:
      {
        const struct emlat_rd_ix *ix = &r->u.ix;
        printf ("  interaction complete cause=%" PRIu64 " thread=%" PRIu64
                " kind=%s status=%s",
                ix->cause, r->thread, emlat_root_kind_name (ix->root_kind),
                emlat_status_name (ix->status));
        for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
          if (ix->time_mask & (1u << f))
            {
              put_rel (d, emlat_time_field_name (f), ix->t[f]);
              if (ix->q_explicit_mask & (1u << f))
                printf ("(%s)", emlat_quality_name (ix->q[f]));
            }
        for (unsigned f = 0; f < EMLAT_V_FIELD_COUNT; f++)
          if (ix->value_mask & (1u << f))
            printf (" %s=%" PRIu64, emlat_value_field_name (f), ix->v[f]);
        for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
          if (ix->counter_mask & (1u << c))
            printf (" %s=%" PRIu64, emlat_counter_name (c), ix->c[c]);
        putchar ('\n');
        return;
      }
    case EMLAT_REC_SPAN_COMPLETE:
    case EMLAT_REC_SPAN_BEGIN:
    case EMLAT_REC_SPAN_END:
      {
        const struct emlat_rd_span *s = &r->u.span;
        const char *what = r->kind == EMLAT_REC_SPAN_COMPLETE ? "complete"
                           : r->kind == EMLAT_REC_SPAN_BEGIN  ? "begin"
                                                              : "end";
        printf ("  span %s id=%" PRIu64, what, s->id);
        if (r->kind != EMLAT_REC_SPAN_END)
          {
            printf (" parent=%" PRIu64 " cause=%" PRIu64 " kind=%s", s->parent, s->cause,
                    emlat_span_kind_name (s->kind));
            put_rel (d, "start", s->start);
          }
        if (r->kind == EMLAT_REC_SPAN_COMPLETE)
          printf (" dur=%" PRIu64, s->end - s->start);
        if (r->kind == EMLAT_REC_SPAN_END)
          put_rel (d, "end", s->end);
        if (s->flags & EMLAT_RD_SPAN_CPU)
          printf (r->kind == EMLAT_REC_SPAN_COMPLETE ? " cpu=%" PRIu64 : " cpu_clock=%" PRIu64,
                  s->cpu);
        if (r->kind != EMLAT_REC_SPAN_BEGIN)
          printf (" status=%s", emlat_span_status_name (s->status));
        if (s->flags & EMLAT_RD_SPAN_DETAIL)
          printf (" detail=%" PRIu64, s->detail);
        for (uint32_t i = 0; i < s->n_counters; i++)
          printf (" %s=%" PRIu64, emlat_counter_name (s->counter_id[i]), s->counter_val[i]);
        putchar ('\n');
        return;
      }
    case EMLAT_REC_LOSS:
      {
        const struct emlat_rd_loss *l = &r->u.loss;
        printf ("  loss stream=%" PRIu64 " reason=%s", l->stream,
                emlat_loss_reason_name (l->reason));
        put_rel (d, "first", l->first);
        put_rel (d, "last", l->last);
        printf (" records=%" PRIu64 " bytes=%" PRIu64 "\n", l->records, l->bytes);
        return;
      }
    }
}

/* ------------------------------------------------------------------ */
/* JSON records                                                        */

static void json_record (struct dump *d, const struct emlat_chunk_info *ci,
                         const struct emlat_record *r)
{
  struct emlat_json *j = &d->j;
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "chunk", d->chunk_no);
  emlat_json_kv_u64 (j, "offset", ci->offset);
  emlat_json_kv_u64 (j, "thread", r->thread);
  switch (r->kind)
    {
    case EMLAT_REC_KV:
      emlat_json_kv_str (j, "record", r->chunk_type == EMLAT_CHUNK_STATS ? "stat" : "meta");
      emlat_json_key (j, "key");
      emlat_json_strn (j, r->u.kv.key, r->u.kv.key_len);
      emlat_json_key (j, "value");
      if (r->u.kv.type == 0)
        emlat_json_u64 (j, r->u.kv.u);
      else if (r->u.kv.type == 1)
        emlat_json_i64 (j, r->u.kv.i);
      else
        emlat_json_strn (j, r->u.kv.s, r->u.kv.s_len);
      break;
    case EMLAT_REC_STRING:
      emlat_json_kv_str (j, "record", "string");
      emlat_json_kv_u64 (j, "id", r->u.str.id);
      emlat_json_key (j, "bytes");
      emlat_json_strn (j, r->u.str.bytes, r->u.str.len);
      break;
    case EMLAT_REC_INPUT:
      {
        const struct emlat_rd_input *in = &r->u.input;
        emlat_json_kv_str (j, "record", "input");
        emlat_json_kv_u64 (j, "batch", in->batch_id);
        if (in->mask & 0x01)
          emlat_json_kv_u64 (j, "t_known_empty", in->t_known_empty);
        if (in->mask & 0x02)
          {
            emlat_json_kv_u64 (j, "t_first_ready", in->t_first_ready);
            emlat_json_kv_str (j, "ready_quality", emlat_quality_name (in->ready_quality));
          }
        if (in->mask & 0x04)
          emlat_json_kv_u64 (j, "t_read_begin", in->t_read_begin);
        if (in->mask & 0x08)
          emlat_json_kv_u64 (j, "t_read_end", in->t_read_end);
        if (in->mask & 0x10)
          emlat_json_kv_u64 (j, "bytes", in->bytes);
        break;
      }
    case EMLAT_REC_IX_BEGIN:
      emlat_json_kv_str (j, "record", "interaction_begin");
      emlat_json_kv_u64 (j, "cause", r->u.ix_begin.cause);
      emlat_json_kv_str (j, "kind", emlat_root_kind_name (r->u.ix_begin.root_kind));
      if (r->u.ix_begin.parent)
        emlat_json_kv_u64 (j, "parent_cause", r->u.ix_begin.parent);
      if (r->u.ix_begin.scheduled_by)
        emlat_json_kv_u64 (j, "scheduled_by_cause", r->u.ix_begin.scheduled_by);
      emlat_json_kv_u64 (j, "t_dispatch_begin", r->u.ix_begin.t_dispatch_begin);
      break;
    case EMLAT_REC_IX_COMPLETE:
      {
        const struct emlat_rd_ix *ix = &r->u.ix;
        emlat_json_kv_str (j, "record", "interaction");
        emlat_json_kv_u64 (j, "cause", ix->cause);
        emlat_json_kv_str (j, "kind", emlat_root_kind_name (ix->root_kind));
        emlat_json_kv_str (j, "status", emlat_status_name (ix->status));
        emlat_json_key (j, "times");
        emlat_json_begin_object (j);
        for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
          if (ix->time_mask & (1u << f))
            emlat_json_kv_u64 (j, emlat_time_field_name (f), ix->t[f]);
        emlat_json_end_object (j);
        emlat_json_key (j, "qualities");
        emlat_json_begin_object (j);
        for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
          if (ix->time_mask & (1u << f))
            emlat_json_kv_str (j, emlat_time_field_name (f), emlat_quality_name (ix->q[f]));
        emlat_json_end_object (j);
        emlat_json_key (j, "values");
        emlat_json_begin_object (j);
        for (unsigned f = 0; f < EMLAT_V_FIELD_COUNT; f++)
          if (ix->value_mask & (1u << f))
            emlat_json_kv_u64 (j, emlat_value_field_name (f), ix->v[f]);
        emlat_json_end_object (j);
        emlat_json_key (j, "counters");
        emlat_json_begin_object (j);
        for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
          if (ix->counter_mask & (1u << c))
            emlat_json_kv_u64 (j, emlat_counter_name (c), ix->c[c]);
        emlat_json_end_object (j);
        break;
      }
    case EMLAT_REC_SPAN_COMPLETE:
    case EMLAT_REC_SPAN_BEGIN:
    case EMLAT_REC_SPAN_END:
      {
        const struct emlat_rd_span *s = &r->u.span;
        emlat_json_kv_str (j, "record", r->kind == EMLAT_REC_SPAN_COMPLETE ? "span"
                                        : r->kind == EMLAT_REC_SPAN_BEGIN  ? "span_begin"
                                                                           : "span_end");
        emlat_json_kv_u64 (j, "id", s->id);
        if (r->kind != EMLAT_REC_SPAN_END)
          {
            emlat_json_kv_u64 (j, "parent", s->parent);
            emlat_json_kv_u64 (j, "cause", s->cause);
            emlat_json_kv_str (j, "kind", emlat_span_kind_name (s->kind));
            emlat_json_kv_u64 (j, "t_start", s->start);
          }
        if (r->kind != EMLAT_REC_SPAN_BEGIN)
          {
            emlat_json_kv_u64 (j, "t_end", s->end);
            emlat_json_kv_str (j, "status", emlat_span_status_name (s->status));
          }
        if (s->flags & EMLAT_RD_SPAN_CPU)
          emlat_json_kv_u64 (j, r->kind == EMLAT_REC_SPAN_COMPLETE ? "cpu_ns" : "cpu_clock_ns",
                             s->cpu);
        if (s->flags & EMLAT_RD_SPAN_DETAIL)
          emlat_json_kv_u64 (j, "detail", s->detail);
        if (s->n_counters)
          {
            emlat_json_key (j, "counters");
            emlat_json_begin_object (j);
            for (uint32_t i = 0; i < s->n_counters; i++)
              emlat_json_kv_u64 (j, emlat_counter_name (s->counter_id[i]), s->counter_val[i]);
            emlat_json_end_object (j);
          }
        break;
      }
    case EMLAT_REC_LOSS:
      emlat_json_kv_str (j, "record", "loss");
      emlat_json_kv_u64 (j, "stream", r->u.loss.stream);
      emlat_json_kv_str (j, "reason", emlat_loss_reason_name (r->u.loss.reason));
      emlat_json_kv_u64 (j, "t_first", r->u.loss.first);
      emlat_json_kv_u64 (j, "t_last", r->u.loss.last);
      emlat_json_kv_u64 (j, "records", r->u.loss.records);
      emlat_json_kv_u64 (j, "bytes", r->u.loss.bytes);
      break;
    }
  emlat_json_end_object (j);
  emlat_json_line (j);
}

/* ------------------------------------------------------------------ */
/* Visitor                                                             */

static int on_header (void *ctx, const struct emlat_file_header *h)
{
  struct dump *d = ctx;
  d->mono0 = h->monotonic_start;
  char uuid[37];
  emlat_cli_uuid (h->uuid, uuid);
  if (d->json)
    {
      struct emlat_json *j = &d->j;
      emlat_json_begin_object (j);
      emlat_json_kv_str (j, "file", d->path);
      emlat_json_kv_u64 (j, "major", h->major);
      emlat_json_kv_u64 (j, "minor", h->minor);
      emlat_json_kv_str (j, "session", uuid);
      emlat_json_kv_u64 (j, "rotation", h->rotation);
      emlat_json_kv_u64 (j, "realtime_start", h->realtime_start);
      emlat_json_kv_u64 (j, "monotonic_start", h->monotonic_start);
      emlat_json_end_object (j);
      emlat_json_line (j);
      return 0;
    }
  printf ("file %s: format %u.%u session %s rotation %" PRIu64 " realtime_start %" PRIu64
          " monotonic_start %" PRIu64 "\n",
          d->path, h->major, h->minor, uuid, h->rotation, h->realtime_start,
          h->monotonic_start);
  if (d->hex)
    hexdump (d->buf, EMLAT_FILE_HEADER_SIZE, 0);
  return 0;
}

static int on_chunk (void *ctx, const struct emlat_chunk_info *ci, int decoded)
{
  struct dump *d = ctx;
  d->chunk_no++;
  if (d->json)
    {
      struct emlat_json *j = &d->j;
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "chunk", d->chunk_no);
      emlat_json_kv_u64 (j, "offset", ci->offset);
      emlat_json_kv_u64 (j, "type", ci->type);
      emlat_json_kv_str (j, "type_name", emlat_chunk_type_name (ci->type));
      emlat_json_kv_u64 (j, "version", ci->version);
      emlat_json_kv_u64 (j, "sequence", ci->sequence);
      emlat_json_kv_u64 (j, "stored", ci->stored);
      emlat_json_key (j, "decoded");
      emlat_json_bool (j, decoded);
      if (decoded)
        {
          emlat_json_kv_u64 (j, "base_time", ci->base_time);
          emlat_json_kv_u64 (j, "thread", ci->thread);
          emlat_json_kv_u64 (j, "records", ci->count);
        }
      emlat_json_end_object (j);
      emlat_json_line (j);
    }
  else
    {
      printf ("chunk %" PRIu64 " %s @%" PRIu64 " seq %" PRIu64, d->chunk_no,
              emlat_chunk_type_name (ci->type), ci->offset, ci->sequence);
      if (decoded)
        printf (" thread %" PRIu64 " records %" PRIu64 " base %+" PRId64 "\n", ci->thread,
                ci->count, ci->base_time ? (int64_t)(ci->base_time - d->mono0) : 0);
      else
        printf (" type %u version %u stored %u: not decoded\n", ci->type, ci->version,
                ci->stored);
      if (d->hex)
        {
          uint32_t n = ci->stored < 256 ? ci->stored : 256;
          hexdump (d->buf + ci->offset, ci->header_size + n, ci->offset);
        }
    }
  return 0;
}

static int on_record (void *ctx, const struct emlat_chunk_info *ci, const struct emlat_record *r)
{
  struct dump *d = ctx;
  if (d->chunks_only)
    return 0;
  if (d->json)
    json_record (d, ci, r);
  else
    text_record (d, r);
  return 0;
}

static void on_diag (void *ctx, const struct emlat_diag *dg)
{
  struct dump *d = ctx;
  struct emlat_diag c = *dg;
  c.offset = UINT64_MAX;
  char buf[256];
  emlat_diag_format (&c, buf, sizeof buf);
  if (d->json)
    {
      struct emlat_json *j = &d->j;
      emlat_json_begin_object (j);
      emlat_json_kv_str (j, "diagnostic", emlat_diag_kind_name (dg->kind));
      emlat_json_kv_u64 (j, "offset", dg->offset);
      emlat_json_kv_str (j, "message", buf);
      emlat_json_end_object (j);
      emlat_json_line (j);
    }
  else
    printf ("%s @%" PRIu64 ": %s\n", dg->kind == EMLAT_DIAG_DAMAGE ? "damage" : "note",
            dg->offset, buf);
  if (dg->kind == EMLAT_DIAG_DAMAGE)
    emlat_cli_error (d->path, dg->offset, "%s", buf);
}

static void usage (FILE *f)
{
  fprintf (f,
           "usage: emlat dump [--json] [--chunks] [--hex] FILE...\n"
           "\n"
           "Print every chunk and record of .emlat files: one line per chunk\n"
           "header and one per record, with times relative to the file's\n"
           "monotonic start (+ns).  Skipped and invalid chunks and the damage\n"
           "that stopped reading are shown where they occur.  FILE - reads\n"
           "standard input.\n"
           "\n"
           "  --json      JSON lines: one object per header, chunk, record and\n"
           "              diagnostic, with absolute timestamps (ns)\n"
           "  --chunks    chunk headers only\n"
           "  --hex       also hex-dump the file header and each chunk header\n"
           "              with the first 256 payload bytes\n"
           "  --help      show this help\n"
           "  --version   show the version\n"
           "\n"
           "Exit codes: 0 every file read to a clean end; 1 some file damaged\n"
           "(what came before the damage was printed); 2 unreadable file or\n"
           "invalid arguments.\n");
}

static int run_dump (int argc, char **argv)
{
  static const struct option opts[] = {
    { "json", no_argument, NULL, 'j' },
    { "chunks", no_argument, NULL, 'c' },
    { "hex", no_argument, NULL, 'x' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };
  struct dump d;
  memset (&d, 0, sizeof d);
  int c;
  while ((c = getopt_long (argc, argv, "jcxh", opts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        d.json = 1;
        break;
      case 'c':
        d.chunks_only = 1;
        break;
      case 'x':
        d.hex = 1;
        break;
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("dump");
        return EMLAT_EXIT_OK;
      default:
        usage (stderr);
        return EMLAT_EXIT_USAGE;
      }
  if (optind >= argc)
    {
      emlat_cli_error (NULL, UINT64_MAX, "dump: no FILE given");
      usage (stderr);
      return EMLAT_EXIT_USAGE;
    }
  if (d.json && d.hex)
    {
      emlat_cli_error (NULL, UINT64_MAX, "dump: --hex is for the text form, not --json");
      return EMLAT_EXIT_USAGE;
    }
  int rc = EMLAT_EXIT_OK;
  for (int i = optind; i < argc; i++)
    {
      uint8_t *owned = NULL;
      const uint8_t *buf = NULL;
      size_t len;
      int e = cli_is_stdin (argv[i]) ? cli_stdin (&buf, &len)
                                     : emlat_read_file (argv[i], NULL, &owned, &len);
      if (owned)
        buf = owned;
      if (e)
        {
          emlat_cli_error (argv[i], UINT64_MAX, "%s", strerror (-e));
          rc = EMLAT_EXIT_USAGE;
          continue;
        }
      d.path = argv[i];
      d.buf = buf;
      d.chunk_no = 0;
      d.mono0 = 0;
      emlat_json_init (&d.j, stdout);
      struct emlat_scan_params sp;
      struct emlat_scan_result res;
      memset (&sp, 0, sizeof sp);
      sp.visitor.ctx = &d;
      sp.visitor.on_header = on_header;
      sp.visitor.on_chunk = on_chunk;
      sp.visitor.on_record = on_record;
      sp.visitor.on_diag = on_diag;
      emlat_scan (buf, len, &sp, &res);
      free (owned);
      if (!res.header_ok)
        rc = EMLAT_EXIT_USAGE;
      else if (res.stop != EMLAT_STOP_CLEAN || res.chunks_invalid)
        {
          if (rc == EMLAT_EXIT_OK)
            rc = EMLAT_EXIT_FAIL;
        }
    }
  return rc;
}

EMLAT_VERB (dump_verb, "dump", "print every chunk and record of .emlat files", run_dump)

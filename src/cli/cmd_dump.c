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
 * FILE "-" is standard input (load.h, cli_stdin_fd).  Each file is read
 * one chunk at a time (emlat_scan_fd), never held whole; --hex reads the
 * bytes it shows again.
 *
 * Exit: 0 every file read to a clean end; 1 some file damaged (everything
 * before the damage was dumped), a chunk skipped undecoded (data lost),
 * missing chunks, a rotated file of a session missing among the files
 * given (F-81, as `emlat check` judges it), or a write error; 2 a file
 * missing or unreadable, or usage.  Every problem is also on stderr.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/load.h"
#include "common/input_open.h"
#include "render/json.h"
#include "render/record_json.h"
#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"
#include "format/format.h"

struct dump
{
  const char *path;
  int fd;                  /* the file, read again for --hex */
  uint64_t base;           /* offset of its byte 0 in FD */
  int json, chunks_only, hex;
  int damaged;             /* a diagnostic of this file lost data */
  uint64_t mono0;          /* file's monotonic start: origin of "+t" */
  uint64_t chunk_no;
  struct emlat_json j;
  /* The file's strings read so far, by id (ids up to DUMP_STRINGS_MAX,
     copies: the file is streamed, a record's bytes live only during its
     callback): names of events, sections and application interactions
     (F-41, F-44). */
  struct dump_string { uint8_t *b; uint32_t len; int set; } *strings;
  size_t n_strings;
  uint64_t string_bytes;   /* kept, at most DUMP_STRING_BYTES_MAX */
};

#define DUMP_STRINGS_MAX (1u << 20)
#define DUMP_STRING_BYTES_MAX (64u << 20)

static void note_string (struct dump *d, uint64_t id, const uint8_t *b, uint32_t len)
{
  if (id == 0 || id > DUMP_STRINGS_MAX || d->string_bytes + len > DUMP_STRING_BYTES_MAX)
    return; /* the name is shown as its id */
  if (id >= d->n_strings)
    {
      size_t n = d->n_strings ? d->n_strings : 64;
      while (n <= id)
        n *= 2;
      struct dump_string *v = realloc (d->strings, n * sizeof *v);
      if (!v)
        return;
      memset (v + d->n_strings, 0, (n - d->n_strings) * sizeof *v);
      d->strings = v;
      d->n_strings = n;
    }
  if (d->strings[id].set)
    return;
  uint8_t *copy = malloc (len ? len : 1);
  if (!copy)
    return;
  memcpy (copy, b, len);
  d->strings[id] = (struct dump_string){ copy, len, 1 };
  d->string_bytes += len;
}

static void dump_strings_free (struct dump *d)
{
  for (size_t i = 0; i < d->n_strings; i++)
    free (d->strings[i].b);
  free (d->strings);
  d->strings = NULL;
  d->n_strings = 0;
  d->string_bytes = 0;
}

static const struct dump_string *find_string (const struct dump *d, uint64_t id)
{
  return id && id < d->n_strings && d->strings[id].set ? &d->strings[id] : NULL;
}

/* ------------------------------------------------------------------ */
/* Text helpers                                                        */

static void put_rel (const struct dump *d, const char *name, uint64_t t)
{
  int64_t rel = (int64_t)(t - d->mono0);
  printf (" %s=%+" PRId64, name, rel);
}

static void put_bytes (const uint8_t *s, size_t n);

/* " name=\"...\"" for a string the file defined, " name=#ID" otherwise. */
static void put_name (const struct dump *d, uint64_t id)
{
  const struct dump_string *s = find_string (d, id);
  if (s)
    {
      printf (" name=");
      put_bytes (s->b, s->len);
    }
  else
    printf (" name=#%" PRIu64, id);
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
  if (!p)
    return;
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
        if (b->name)
          put_name (d, b->name);
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
        if (ix->name)
          put_name (d, ix->name);
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
        if (record_json_name_id (r))
          put_name (d, s->detail);
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
    case EMLAT_REC_SAMPLE:
      {
        const struct emlat_rd_sample *sm = &r->u.sample;
        printf ("  sample");
        put_rel (d, "t", sm->t);
        for (unsigned f = 0; f < EMLAT_RES_FIELD_COUNT; f++)
          if (sm->mask & (1u << f))
            printf (" %s=%" PRIu64, emlat_resource_field_name (f), sm->v[f]);
        putchar ('\n');
        return;
      }
    case EMLAT_REC_EVENT:
      {
        const struct emlat_rd_event *e = &r->u.event;
        printf ("  event %s thread=%" PRIu64, emlat_event_tag_name (e->tag), r->thread);
        if (e->name)
          put_name (d, e->name);
        put_rel (d, "t", e->t);
        if (e->id)
          printf (" id=%" PRIu64, e->id);
        if (e->tag == EMLAT_EV_COUNTER)
          printf (" value=%" PRId64, e->iv);
        else if (e->tag == EMLAT_EV_COUNTER_F)
          printf (" value=%.17g", e->fv);
        putchar ('\n');
        return;
      }
    }
}

/* ------------------------------------------------------------------ */
/* JSON records (vocabulary in render/record_json.h, docs/JSON.md)      */

static void json_record (struct dump *d, const struct emlat_chunk_info *ci,
                         const struct emlat_record *r)
{
  emlat_json_begin_object (&d->j);
  record_json_keys (&d->j, d->path, ci, r);
  if (record_json_has_name (r))
    {
      const struct dump_string *s = find_string (d, record_json_name_id (r));
      record_json_name_key (&d->j, s ? s->b : NULL, s ? s->len : 0);
    }
  emlat_json_end_object (&d->j);
  emlat_json_line (&d->j);
}

/* N bytes of the file at OFF (N <= 4096 + 256, a chunk header and the
   start of its payload), read again: the scanner keeps only the chunk it
   is on.  NULL when they cannot be read (the scan framed them, so only an
   I/O error can). */
static const uint8_t *bytes_at (const struct dump *d, uint64_t off, size_t n)
{
  static uint8_t buf[EMLAT_CHUNK_HEADER_MAX + 256];
  if (n > sizeof buf)
    return NULL;
  for (size_t got = 0; got < n;)
    {
      ssize_t r = pread (d->fd, buf + got, n - got, (off_t)(d->base + off + got));
      if (r <= 0)
        return NULL;
      got += (size_t)r;
    }
  return buf;
}

/* ------------------------------------------------------------------ */
/* Visitor                                                             */

static int on_header (void *ctx, const struct emlat_file_header *h)
{
  struct dump *d = ctx;
  d->mono0 = h->monotonic_start;
  char uuid[37];
  emlat_uuid_format (h->uuid, uuid);
  if (d->json)
    {
      record_json_file_header_line (&d->j, d->path, h, uuid);
      return 0;
    }
  printf ("file %s: format %u.%u session %s rotation %" PRIu64 " realtime_start %" PRIu64
          " monotonic_start %" PRIu64 "\n",
          d->path, h->major, h->minor, uuid, h->rotation, h->realtime_start,
          h->monotonic_start);
  if (d->hex)
    hexdump (bytes_at (d, 0, EMLAT_FILE_HEADER_SIZE), EMLAT_FILE_HEADER_SIZE, 0);
  return 0;
}

static int on_chunk (void *ctx, const struct emlat_chunk_info *ci, int decoded)
{
  struct dump *d = ctx;
  d->chunk_no++;
  if (d->json)
    record_json_chunk_header_line (&d->j, d->path, ci, decoded);
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
          hexdump (bytes_at (d, ci->offset, ci->header_size + n), ci->header_size + n,
                   ci->offset);
        }
    }
  return 0;
}

static int on_record (void *ctx, const struct emlat_chunk_info *ci, const struct emlat_record *r)
{
  struct dump *d = ctx;
  if (r->kind == EMLAT_REC_STRING)
    note_string (d, r->u.str.id, r->u.str.bytes, r->u.str.len);
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
      emlat_json_begin_object (&d->j);
      emlat_json_kv_str (&d->j, "record", "diagnostic");
      record_json_diag_keys (&d->j, dg, d->path);
      emlat_json_end_object (&d->j);
      emlat_json_line (&d->j);
    }
  else
    printf ("%s @%" PRIu64 ": %s\n", dg->kind == EMLAT_DIAG_DAMAGE ? "damage" : "note",
            dg->offset, buf);
  if (emlat_report_diag_is_damage (dg->kind))
    {
      d->damaged = 1;
      emlat_cli_error (d->path, dg->offset, "%s", buf);
    }
}

/* A file's place in its session, for the rotation check across files. */
struct placed
{
  const char *path;
  uint8_t uuid[16];
  uint64_t rotation;
};

static int cmp_placed (const void *a, const void *b)
{
  const struct placed *x = a, *y = b;
  int c = memcmp (x->uuid, y->uuid, 16);
  if (c)
    return c;
  return x->rotation < y->rotation ? -1 : x->rotation > y->rotation;
}

/* F-81 across the N files given: in each session, every rotation from 0 to
   the highest given is there.  Each gap is said as the reader says it
   (emlat check, report); returns the number of gaps. */
static size_t missing_rotations (struct placed *v, size_t n)
{
  size_t gaps = 0;
  qsort (v, n, sizeof *v, cmp_placed);
  for (size_t i = 0; i < n; i++)
    {
      int first = i == 0 || memcmp (v[i].uuid, v[i - 1].uuid, 16) != 0;
      uint64_t expect = first ? 0 : v[i - 1].rotation + 1;
      if (v[i].rotation <= expect || (!first && v[i].rotation == v[i - 1].rotation))
        continue;
      struct emlat_diag dg = { .kind = EMLAT_DIAG_ROTATION_MISSING, .offset = UINT64_MAX,
                               .a = expect, .b = v[i].rotation - 1, .what = "" };
      char buf[256];
      emlat_diag_format (&dg, buf, sizeof buf);
      emlat_cli_error (v[i].path, UINT64_MAX, "%s", buf);
      gaps++;
    }
  return gaps;
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
           "  -h, --help  this text;  -V, --version  the version\n"
           "\n"
           "Exit codes: 0 every file read to a clean end; 1 some file damaged\n"
           "(what came before the damage was printed), chunks skipped or\n"
           "missing, a rotated file of a session missing, or a write error;\n"
           "each problem is on stderr; 2 a file missing or unreadable, or\n"
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
  while ((c = getopt_long (argc, argv, ":jcxhV", opts, NULL)) != -1)
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
        return emlat_cli_bad_option ("dump", c, argv, opts);
      }
  if (optind >= argc)
    return emlat_cli_usage_error ("dump", "no FILE given");
  if (d.json && d.hex)
    return emlat_cli_usage_error ("dump", "--hex is for the text form, not --json");
  struct placed *placed = calloc ((size_t)(argc - optind), sizeof *placed);
  size_t n_placed = 0;
  if (!placed)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  int rc = EMLAT_EXIT_OK;
  for (int i = optind; i < argc; i++)
    {
      int fd;
      struct stat st;
      if (cli_is_stdin (argv[i]))
        fd = cli_stdin_fd ();
      else
        fd = emlat_input_open (argv[i], &st); /* a regular file, or refused */
      if (fd < 0)
        {
          char why[160];
          emlat_cli_error (argv[i], UINT64_MAX, "%s",
                           cli_read_error (argv[i], -fd, why, sizeof why));
          rc = EMLAT_EXIT_USAGE;
          continue;
        }
      off_t base = lseek (fd, 0, SEEK_CUR);
      d.path = argv[i];
      d.fd = fd;
      d.base = base > 0 ? (uint64_t)base : 0;
      d.chunk_no = 0;
      d.mono0 = 0;
      d.damaged = 0;
      emlat_json_init (&d.j, stdout);
      struct emlat_scan_params sp;
      struct emlat_scan_result res;
      memset (&sp, 0, sizeof sp);
      sp.visitor.ctx = &d;
      sp.visitor.on_header = on_header;
      sp.visitor.on_chunk = on_chunk;
      sp.visitor.on_record = on_record;
      sp.visitor.on_diag = on_diag;
      int e = emlat_scan_fd (fd, &sp, &res);
      if (!cli_is_stdin (argv[i]))
        close (fd);
      dump_strings_free (&d);
      if (e)
        {
          char why[160];
          emlat_cli_error (argv[i], UINT64_MAX, "%s",
                           cli_read_error (argv[i], -e, why, sizeof why));
          rc = EMLAT_EXIT_USAGE;
          continue;
        }
      if (!res.header_ok)
        {
          rc = EMLAT_EXIT_USAGE;
          continue;
        }
      placed[n_placed].path = argv[i];
      memcpy (placed[n_placed].uuid, res.header.uuid, 16);
      placed[n_placed++].rotation = res.header.rotation;
      if ((res.stop != EMLAT_STOP_CLEAN || res.chunks_invalid || d.damaged)
          && rc == EMLAT_EXIT_OK)
        rc = EMLAT_EXIT_FAIL;
    }
  if (missing_rotations (placed, n_placed) && rc == EMLAT_EXIT_OK)
    rc = EMLAT_EXIT_FAIL;
  free (placed);
  return rc;
}

EMLAT_VERB (dump_verb, "dump", "print every chunk and record of .emlat files", run_dump)

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_format_doc.c -- docs/FORMAT.md cannot drift from the code: this test
 * reads the document itself (docs/FORMAT.md under $SRCDIR) and checks what it
 * claims against the decoder, the encoder and the reader's names.
 *
 *  - The worked example (fenced block "emlat-hex"): every line's offset
 *    follows the previous bytes, every byte run is annotated; the bytes
 *    scan as a valid file whose headers and records, printed one per line,
 *    are exactly the block "emlat-decoded"; the encoder, given those
 *    records, writes the same bytes again (F-24: what the writer produces),
 *    and the loaded profile is valid (F-94).
 *  - The varint test vectors (block "emlat-varint", F-2, F-3): each valid
 *    encoding decodes to its value with the leb128 decoders and inside a
 *    payload, and the encoder writes its shortest form; each invalid one is
 *    rejected, inside a payload for the stated reason.
 *  - The enumeration tables (after "<!-- emlat-enum: NAME -->"): every row
 *    names the value the reader names (emlat_*_name), the values are
 *    exactly the closed range of the type (F-9), and the time fields'
 *    default qualities are the decoder's.
 *
 * A mismatch prints what the code produced, so the document can be fixed.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "craft.h"
#include "emlat/emlat.h"
#include "emlat/emlat_report.h"
#include "format/encode.h"
#include "tap.h"
#include "testutil.h"

static struct collect c;

/* ------------------------------------------------------------------ */
/* The document                                                        */

static char *doc;

/* Lines of the fenced block whose info string is INFO ("```INFO"), as a
   NULL-terminated array of heap strings; NULL when there is none. */
static char **fenced (const char *info)
{
  char open[64];
  snprintf (open, sizeof open, "```%s\n", info);
  const char *s = strstr (doc, open);
  if (!s)
    return NULL;
  s += strlen (open);
  size_t n = 0, cap = 64;
  char **lines = calloc (cap, sizeof *lines);
  while (*s && strncmp (s, "```", 3) != 0)
    {
      const char *e = strchr (s, '\n');
      if (!e)
        break;
      if (n + 2 > cap)
        lines = realloc (lines, (cap *= 2) * sizeof *lines);
      lines[n++] = strndup (s, (size_t)(e - s));
      s = e + 1;
    }
  lines[n] = NULL;
  return lines;
}

static void free_lines (char **l)
{
  for (size_t i = 0; l && l[i]; i++)
    free (l[i]);
  free (l);
}

/* ------------------------------------------------------------------ */
/* Printing what the scanner decoded, one line per header or record   */

struct text
{
  char buf[1 << 16];
  size_t n;
};

static void put (struct text *t, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
static void put (struct text *t, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  int k = vsnprintf (t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
  va_end (ap);
  if (k > 0)
    t->n += (size_t)k < sizeof t->buf - t->n ? (size_t)k : sizeof t->buf - t->n - 1;
}

static void put_bytes (struct text *t, const uint8_t *p, size_t n)
{
  put (t, "\"");
  for (size_t i = 0; i < n; i++)
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
      put (t, "%c", p[i]);
    else
      put (t, "\\x%02x", p[i]);
  put (t, "\"");
}

static void put_counters (struct text *t, const struct emlat_rd_span *s)
{
  if (s->flags & EMLAT_RD_SPAN_CPU)
    put (t, " cpu=%" PRIu64, s->cpu);
  if (s->flags & EMLAT_RD_SPAN_DETAIL)
    put (t, " detail=%" PRIu64, s->detail);
  for (uint32_t i = 0; i < s->n_counters; i++)
    put (t, " %s=%" PRIu64, emlat_counter_name (s->counter_id[i]), s->counter_val[i]);
}

static void print_record (struct text *t, const struct emlat_record *r)
{
  switch (r->kind)
    {
    case EMLAT_REC_KV:
      put (t, "kv key=%.*s", (int)r->u.kv.key_len, (const char *)r->u.kv.key);
      if (r->u.kv.type == EMLAT_KV_UINT)
        put (t, " unsigned=%" PRIu64, r->u.kv.u);
      else if (r->u.kv.type == EMLAT_KV_SINT)
        put (t, " signed=%" PRId64, r->u.kv.i);
      else
        {
          put (t, " string=");
          put_bytes (t, r->u.kv.s, r->u.kv.s_len);
        }
      break;
    case EMLAT_REC_STRING:
      put (t, "string id=%" PRIu64 " bytes=", r->u.str.id);
      put_bytes (t, r->u.str.bytes, r->u.str.len);
      break;
    case EMLAT_REC_INPUT:
      {
        const struct emlat_rd_input *in = &r->u.input;
        put (t, "input thread=%" PRIu64 " batch=%" PRIu64, in->thread, in->batch_id);
        if (in->mask & EMLAT_IB_KNOWN_EMPTY)
          put (t, " known_empty=%" PRIu64, in->t_known_empty);
        if (in->mask & EMLAT_IB_FIRST_READY)
          put (t, " first_ready=%" PRIu64 " ready_quality=%s", in->t_first_ready,
               emlat_quality_name (in->ready_quality));
        if (in->mask & EMLAT_IB_READ_BEGIN)
          put (t, " read_begin=%" PRIu64, in->t_read_begin);
        if (in->mask & EMLAT_IB_READ_END)
          put (t, " read_end=%" PRIu64, in->t_read_end);
        if (in->mask & EMLAT_IB_BYTES)
          put (t, " bytes=%" PRIu64, in->bytes);
        break;
      }
    case EMLAT_REC_IX_BEGIN:
      {
        const struct emlat_rd_ix_begin *b = &r->u.ix_begin;
        put (t, "interaction_begin thread=%" PRIu64 " cause=%" PRIu64 " root_kind=%s parent=%" PRIu64
             " scheduled_by=%" PRIu64 " t_dispatch_begin=%" PRIu64, r->thread, b->cause,
             emlat_root_kind_name (b->root_kind), b->parent, b->scheduled_by, b->t_dispatch_begin);
        if (b->name)
          put (t, " name=%" PRIu64, b->name);
        break;
      }
    case EMLAT_REC_IX_COMPLETE:
      {
        const struct emlat_rd_ix *ix = &r->u.ix;
        put (t, "interaction thread=%" PRIu64 " cause=%" PRIu64 " root_kind=%s status=%s", r->thread,
             ix->cause, emlat_root_kind_name (ix->root_kind), emlat_status_name (ix->status));
        if (ix->name)
          put (t, " name=%" PRIu64, ix->name);
        for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
          if (ix->time_mask & (1u << f))
            {
              put (t, " %s=%" PRIu64, emlat_time_field_name (f), ix->t[f]);
              if (ix->q_explicit_mask & (1u << f))
                put (t, " %s.quality=%s", emlat_time_field_name (f), emlat_quality_name (ix->q[f]));
            }
        for (unsigned f = 0; f < EMLAT_V_FIELD_COUNT; f++)
          if (ix->value_mask & (1u << f))
            put (t, " %s=%" PRIu64, emlat_value_field_name (f), ix->v[f]);
        for (unsigned f = 0; f < EMLAT_C_COUNTER_COUNT; f++)
          if (ix->counter_mask & (1u << f))
            put (t, " %s=%" PRIu64, emlat_counter_name (f), ix->c[f]);
        break;
      }
    case EMLAT_REC_SPAN_COMPLETE:
    case EMLAT_REC_SPAN_BEGIN:
      {
        const struct emlat_rd_span *s = &r->u.span;
        int complete = r->kind == EMLAT_REC_SPAN_COMPLETE;
        put (t, "%s thread=%" PRIu64 " id=%" PRIu64 " parent=%" PRIu64 " cause=%" PRIu64
             " kind=%s", complete ? "span" : "span_begin", r->thread, s->id, s->parent, s->cause,
             emlat_span_kind_name (s->kind));
        if (complete)
          put (t, " status=%s", emlat_span_status_name (s->status));
        put (t, " start=%" PRIu64, s->start);
        if (complete)
          put (t, " end=%" PRIu64, s->end);
        put_counters (t, s);
        break;
      }
    case EMLAT_REC_SPAN_END:
      {
        const struct emlat_rd_span *s = &r->u.span;
        put (t, "span_end thread=%" PRIu64 " id=%" PRIu64 " status=%s end=%" PRIu64, r->thread,
             s->id, emlat_span_status_name (s->status), s->end);
        put_counters (t, s);
        break;
      }
    case EMLAT_REC_LOSS:
      {
        const struct emlat_rd_loss *l = &r->u.loss;
        put (t, "loss stream=%" PRIu64 " reason=%s first=%" PRIu64 " last=%" PRIu64
             " records=%" PRIu64 " bytes=%" PRIu64, l->stream, emlat_loss_reason_name (l->reason),
             l->first, l->last, l->records, l->bytes);
        break;
      }
    case EMLAT_REC_SAMPLE:
      {
        const struct emlat_rd_sample *sm = &r->u.sample;
        put (t, "sample t=%" PRIu64, sm->t);
        for (unsigned f = 0; f < EMLAT_RES_FIELD_COUNT; f++)
          if (sm->mask & (1u << f))
            put (t, " %s=%" PRIu64, emlat_resource_field_name (f), sm->v[f]);
        break;
      }
    case EMLAT_REC_EVENT:
      {
        const struct emlat_rd_event *e = &r->u.event;
        put (t, "event thread=%" PRIu64 " tag=%s name=%" PRIu64 " t=%" PRIu64, r->thread,
             emlat_event_tag_name (e->tag), e->name, e->t);
        if (e->tag >= EMLAT_EV_ASYNC_BEGIN && e->tag <= EMLAT_EV_FLOW_END)
          put (t, " id=%" PRIu64, e->id);
        if (e->tag == EMLAT_EV_COUNTER)
          put (t, " value=%" PRId64, e->iv);
        else if (e->tag == EMLAT_EV_COUNTER_F)
          put (t, " value=%.17g", e->fv);
        break;
      }
    }
  put (t, "\n");
}

/* The scan in C, printed: the file header, then each chunk and its
   records in file order. */
static void print_scan (struct text *t)
{
  const struct emlat_file_header *h = &c.res.header;
  put (t, "header major=%u minor=%u flags=%u uuid=", h->major, h->minor, h->flags);
  for (int i = 0; i < 16; i++)
    put (t, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", h->uuid[i]);
  put (t, " rotation=%" PRIu64 " realtime_start=%" PRIu64 " monotonic_start=%" PRIu64
       " reserved=%u\n", h->rotation, h->realtime_start, h->monotonic_start, h->reserved);
  size_t r = 0;
  for (size_t k = 0; k < c.n_chunks; k++)
    {
      const struct emlat_chunk_info *ci = &c.chunks[k];
      put (t, "chunk offset=%" PRIu64 " type=%s version=%u flags=%u stored=%u sequence=%" PRIu64
           " base_time=%" PRIu64 " thread=%" PRIu64 " count=%" PRIu64 "\n", ci->offset,
           emlat_chunk_type_name (ci->type), ci->version, ci->flags, ci->stored, ci->sequence,
           ci->base_time, ci->thread, ci->count);
      for (uint64_t i = 0; c.decoded[k] && i < ci->count && r < c.n_recs; i++)
        print_record (t, &c.recs[r++]);
    }
}

/* The document's block as lines: a line that starts with white space
   continues the one before it; runs of spaces count as one. */
static void doc_text (char **lines, struct text *t)
{
  for (size_t i = 0; lines[i]; i++)
    {
      const char *s = lines[i];
      int cont = *s == ' ';
      while (*s == ' ')
        s++;
      if (!*s)
        continue;
      if (cont && t->n && t->buf[t->n - 1] == '\n')
        t->buf[t->n - 1] = ' ';
      for (int sp = 0; *s; s++)
        {
          if (*s == ' ' && sp)
            continue;
          sp = *s == ' ';
          put (t, "%c", *s);
        }
      put (t, "\n");
    }
}

/* ------------------------------------------------------------------ */
/* The worked example                                                  */

/* Bytes of the "emlat-hex" block: "OFFSET  HH HH ...  ; what" lines and
   "#" comment lines.  Checks offsets and annotations on the way. */
static uint8_t *example_bytes (char **lines, size_t *len)
{
  uint8_t *b = malloc (65536);
  size_t n = 0, bad = 0;
  for (size_t i = 0; lines[i]; i++)
    {
      const char *s = lines[i];
      if (*s == '#' || *s == 0)
        continue;
      const char *semi = strchr (s, ';');
      char *end;
      unsigned long off = strtoul (s, &end, 16);
      if (!semi || end == s || off != n || semi[1] == 0)
        {
          if (bad++ < 3)
            TEST_DIAG ("hex line %zu: \"%s\": offset must be 0x%zx and a \"; what\" follow", i, s, n);
          continue;
        }
      for (s = end; s < semi; )
        {
          while (s < semi && *s == ' ')
            s++;
          if (s >= semi)
            break;
          if (!isxdigit ((unsigned char)s[0]) || !isxdigit ((unsigned char)s[1])
              || (s[2] != ' ' && s + 2 != semi) || n >= 65536)
            {
              bad++;
              break;
            }
          b[n++] = (uint8_t)strtoul ((char[3]){ s[0], s[1], 0 }, NULL, 16);
          s += 2;
        }
    }
  CHECK (bad == 0, "%zu malformed lines in the emlat-hex block", bad);
  *len = n;
  return b;
}

/* Encode the records C decoded, chunk by chunk, as the writer would, and
   return the whole file (header included). */
static uint8_t *reencode (size_t *len)
{
  struct emlat_arena a = { 0 };
  struct emlat_chunk_list l = { 0 };
  const struct emlat_file_header *h = &c.res.header;
  size_t r = 0;
  for (size_t k = 0; k < c.n_chunks; k++)
    {
      const struct emlat_chunk_info *ci = &c.chunks[k];
      struct emlat_cb cb;
      emlat_cb_begin (&cb, &a, ci->type, ci->base_time, ci->thread);
      emlat_cb_set_version (&cb, ci->version);
      for (uint64_t i = 0; i < ci->count && r < c.n_recs; i++)
        {
          const struct emlat_record *rec = &c.recs[r++];
          switch (rec->kind)
            {
            case EMLAT_REC_KV:
              {
                char key[EMLAT_KEY_MAX + 1];
                memcpy (key, rec->u.kv.key, rec->u.kv.key_len);
                key[rec->u.kv.key_len] = 0;
                if (rec->u.kv.type == EMLAT_KV_UINT)
                  emlat_enc_kv_uint (&cb, key, rec->u.kv.u);
                else if (rec->u.kv.type == EMLAT_KV_SINT)
                  emlat_enc_kv_sint (&cb, key, rec->u.kv.i);
                else
                  emlat_enc_kv_str (&cb, key, (const char *)rec->u.kv.s, rec->u.kv.s_len);
                break;
              }
            case EMLAT_REC_STRING:
              emlat_enc_string (&cb, rec->u.str.id, (const char *)rec->u.str.bytes, rec->u.str.len);
              break;
            case EMLAT_REC_INPUT:
              {
                const struct emlat_rd_input *in = &rec->u.input;
                struct emlat_enc_input e = { in->thread, in->batch_id, in->mask, in->ready_quality,
                                             { in->t_known_empty, in->t_first_ready,
                                               in->t_read_begin, in->t_read_end }, in->bytes };
                emlat_enc_input (&cb, &e);
                break;
              }
            case EMLAT_REC_IX_BEGIN:
              {
                struct emlat_enc_ix e;
                memset (&e, 0, sizeof e);
                e.thread = rec->thread;
                e.cause = rec->u.ix_begin.cause;
                e.kind = rec->u.ix_begin.root_kind;
                e.parent = rec->u.ix_begin.parent;
                e.sched = rec->u.ix_begin.scheduled_by;
                e.t_dispatch = rec->u.ix_begin.t_dispatch_begin;
                e.name = rec->u.ix_begin.name;
                emlat_enc_ix_begin (&cb, &e, 1);
                break;
              }
            case EMLAT_REC_IX_COMPLETE:
              {
                const struct emlat_rd_ix *ix = &rec->u.ix;
                struct emlat_enc_ix e;
                memset (&e, 0, sizeof e);
                e.thread = rec->thread;
                e.cause = ix->cause;
                e.kind = ix->root_kind;
                e.status = ix->status;
                e.tmask = ix->time_mask;
                e.vmask = ix->value_mask;
                e.cmask = ix->counter_mask;
                memcpy (e.t, ix->t, sizeof e.t);
                for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
                  e.q[f] = (ix->q_explicit_mask & (1u << f)) ? ix->q[f] : 0;
                memcpy (e.v, ix->v, sizeof e.v);
                memcpy (e.c, ix->c, sizeof e.c);
                e.name = ix->name;
                emlat_enc_ix_complete (&cb, &e, 1);
                break;
              }
            case EMLAT_REC_SPAN_COMPLETE:
            case EMLAT_REC_SPAN_BEGIN:
            case EMLAT_REC_SPAN_END:
              {
                const struct emlat_rd_span *s = &rec->u.span;
                struct emlat_counter_pair pairs[EMLAT_C_COUNTER_COUNT];
                for (uint32_t i2 = 0; i2 < s->n_counters; i2++)
                  {
                    pairs[i2].counter = s->counter_id[i2];
                    pairs[i2].value = s->counter_val[i2];
                  }
                struct emlat_enc_span e;
                memset (&e, 0, sizeof e);
                e.rec = rec->kind == EMLAT_REC_SPAN_COMPLETE ? EMLAT_SPAN_REC_COMPLETE
                        : rec->kind == EMLAT_REC_SPAN_BEGIN  ? EMLAT_SPAN_REC_BEGIN
                                                             : EMLAT_SPAN_REC_END;
                e.kind = s->kind;
                e.status = s->status;
                e.has_cpu = (s->flags & EMLAT_RD_SPAN_CPU) != 0;
                e.id = s->id;
                e.parent = s->parent;
                e.cause = s->cause;
                e.t_start = s->start;
                e.t_end = s->end;
                e.cpu_a = e.rec == EMLAT_SPAN_REC_BEGIN ? s->cpu : 0;
                e.cpu_b = e.rec == EMLAT_SPAN_REC_BEGIN ? 0 : s->cpu;
                e.detail = s->detail;
                e.counters = pairs;
                e.ncounters = s->n_counters;
                emlat_enc_span (&cb, &e, 1);
                break;
              }
            case EMLAT_REC_LOSS:
              {
                const struct emlat_rd_loss *lo = &rec->u.loss;
                emlat_enc_loss (&cb, lo->stream, lo->reason, lo->first, lo->last, lo->records,
                                lo->bytes);
                break;
              }
            case EMLAT_REC_SAMPLE:
              {
                struct emlat_enc_sample e;
                e.t = rec->u.sample.t;
                e.mask = rec->u.sample.mask;
                memcpy (e.v, rec->u.sample.v, sizeof e.v);
                emlat_enc_sample (&cb, &e);
                break;
              }
            case EMLAT_REC_EVENT:
              {
                const struct emlat_rd_event *ev = &rec->u.event;
                struct emlat_enc_event e = { ev->tag, ev->name, ev->t, ev->id, ev->iv, ev->fv };
                emlat_enc_event (&cb, &e, 1);
                break;
              }
            }
        }
      CHECK_OK (emlat_cb_finish (&cb, &l, 1));
      if (l.n)
        emlat_chunk_seal (a.buf + l.v[l.n - 1].off, ci->sequence);
    }
  uint8_t *out = malloc (EMLAT_FILE_HEADER_SIZE + a.len);
  emlat_file_header (out, h->uuid, h->rotation, h->realtime_start, h->monotonic_start);
  size_t n = EMLAT_FILE_HEADER_SIZE;
  for (size_t k = 0; k < l.n; k++)
    {
      memcpy (out + n, a.buf + l.v[k].off, l.v[k].len);
      n += l.v[k].len;
    }
  emlat_arena_free (&a);
  emlat_chunk_list_free (&l);
  *len = n;
  return out;
}

static void dump_hex (const char *what, const uint8_t *b, size_t n)
{
  TEST_DIAG ("%s (%zu bytes):", what, n);
  for (size_t i = 0; i < n; i += 16)
    {
      char line[80];
      size_t k = (size_t)snprintf (line, sizeof line, "%04zx ", i);
      for (size_t j = i; j < n && j < i + 16; j++)
        k += (size_t)snprintf (line + k, sizeof line - k, " %02x", b[j]);
      TEST_DIAG ("%s", line);
    }
}

static void test_example (void)
{
  char **hex = fenced ("emlat-hex"), **dec = fenced ("emlat-decoded");
  CHECK (hex && dec, "FORMAT.md has an emlat-hex and an emlat-decoded block");
  if (!hex || !dec)
    return;
  size_t len;
  uint8_t *b = example_bytes (hex, &len);
  collect_scan (&c, b, len, NULL);
  CHECK (c.res.stop == EMLAT_STOP_CLEAN && c.res.chunks_invalid == 0 && c.res.damage == 0
           && c.res.final_stats,
         "the example is a valid file that stopped cleanly: stop %s, invalid %" PRIu64
         ", damage %" PRIu64, emlat_stop_name (c.res.stop), c.res.chunks_invalid, c.res.damage);
  for (unsigned t = EMLAT_CHUNK_SESSION; t <= EMLAT_CHUNK_STATS; t++)
    if (t != EMLAT_CHUNK_INPUT && t != EMLAT_CHUNK_LOSS)
      CHECK (c.res.chunks_by_type[t] == 1, "the example has one %s chunk",
             emlat_chunk_type_name (t));

  static struct text got, want;
  got.n = want.n = 0;
  print_scan (&got);
  doc_text (dec, &want);
  CHECK (got.n == want.n && memcmp (got.buf, want.buf, got.n) == 0,
         "the emlat-decoded block is what the bytes decode to");
  if (got.n != want.n || memcmp (got.buf, want.buf, got.n) != 0)
    TEST_DIAG ("decoded:\n%.*s", (int)got.n, got.buf);

  size_t rlen;
  uint8_t *re = reencode (&rlen);
  CHECK (rlen == len && memcmp (re, b, len) == 0,
         "the encoder writes the example's bytes for its records");
  if (rlen != len || memcmp (re, b, len) != 0)
    dump_hex ("the encoder wrote", re, rlen);

  /* The whole file is valid for the profile and its judgement (F-94). */
  const char *dir = tu_tmpdir ();
  if (dir)
    {
      char *path = tu_strf ("%s/example.emlat", dir);
      CHECK_OK (tu_write_file (path, b, len));
      struct emlat_profile *p = NULL;
      const char *paths[] = { path };
      CHECK_OK (emlat_profile_load (paths, 1, NULL, 0, &p));
      if (p)
        {
          CHECK (emlat_report_health (p) == EMLAT_HEALTH_VALID, "the example is valid");
          size_t nd;
          emlat_profile_diags (p, &nd);
          CHECK_EQ_U64 (nd, 0);
          emlat_profile_free (p);
        }
      free (path);
    }
  free (re);
  free (b);
  free_lines (hex);
  free_lines (dec);
}

/* ------------------------------------------------------------------ */
/* Varint vectors                                                      */

/* VALUE or reason of BYTES as a KV value of type TYPE inside a STATS
   chunk: 0 and *OUT when valid, else the invalid reason. */
static enum emlat_invalid in_payload (int sign, const uint8_t *bytes, size_t n, uint64_t *out)
{
  struct craft f = { 0 }, p = { 0 };
  craft_file_header (&f, craft_uuid_a, 0);
  craft_session (&p, "k", 1);
  craft_chunk (&f, EMLAT_CHUNK_SESSION, 1, &p);
  craft_block (&p, 0, 0, 1);
  craft_uv (&p, 1);
  craft_u8 (&p, 'v');
  craft_uv (&p, sign ? EMLAT_KV_SINT : EMLAT_KV_UINT);
  craft_bytes (&p, bytes, n);
  craft_chunk (&f, EMLAT_CHUNK_STATS, 2, &p);
  collect_scan (&c, f.b, f.n, NULL);
  enum emlat_invalid why = EMLAT_INVALID_NONE;
  const struct emlat_diag *d = collect_find (&c, EMLAT_DIAG_INVALID_CHUNK);
  if (d)
    why = (enum emlat_invalid)d->a;
  else if (c.n_recs == 2)
    *out = sign ? (uint64_t)c.recs[1].u.kv.i : c.recs[1].u.kv.u;
  craft_free (&f);
  craft_free (&p);
  return why;
}

/* Parse "HH HH ..." from S up to END into B; returns the count. */
static size_t parse_hex (const char *s, const char *end, uint8_t *b, size_t max)
{
  size_t n = 0;
  while (s < end && n < max)
    {
      while (s < end && *s == ' ')
        s++;
      if (s + 1 >= end || !isxdigit ((unsigned char)s[0]))
        break;
      b[n++] = (uint8_t)strtoul ((char[3]){ s[0], s[1], 0 }, NULL, 16);
      s += 2;
    }
  return n;
}

static void test_varints (void)
{
  char **v = fenced ("emlat-varint");
  CHECK (v != NULL, "FORMAT.md has an emlat-varint block");
  if (!v)
    return;
  size_t n_valid = 0, n_invalid = 0;
  for (size_t i = 0; v[i]; i++)
    {
      const char *s = v[i];
      if (*s == '#' || *s == 0)
        continue;
      int sign = *s == 's';
      CHECK (*s == 's' || *s == 'u', "varint line \"%s\" starts with u or s", s);
      const char *eq = strchr (s, '='), *bang = strchr (s, '!');
      const char *mid = eq ? eq : bang;
      if (!mid)
        {
          CHECK (0, "varint line \"%s\" has = or !", s);
          continue;
        }
      uint8_t b[16], sh[16];
      size_t n = parse_hex (s + 1, mid, b, sizeof b);
      uint64_t u = 0, pu = 0;
      int64_t si = 0;
      size_t got = sign ? emlat_get_svarint (b, b + n, &si) : emlat_get_uvarint (b, b + n, &u);
      if (sign)
        u = (uint64_t)si;
      if (eq)
        {
          n_valid++;
          const char *vs = eq + 1;
          uint64_t want = sign ? (uint64_t)strtoll (vs, NULL, 10) : strtoull (vs, NULL, 10);
          CHECK (got == n && u == want, "%s: decodes to %" PRIu64 " in %zu bytes (got %" PRIu64
                 " in %zu)", s, want, n, u, got);
          CHECK (in_payload (sign, b, n, &pu) == EMLAT_INVALID_NONE && pu == want,
                 "%s: in a payload too", s);
          /* "-> HH ..." gives the shortest form of a longer encoding. */
          const char *shortest = strstr (vs, "->");
          size_t ns = shortest ? parse_hex (shortest + 2, shortest + strlen (shortest), sh,
                                            sizeof sh)
                               : n;
          if (!shortest)
            memcpy (sh, b, n);
          uint8_t enc[16];
          size_t ne = sign ? emlat_put_svarint (enc, (int64_t)want) : emlat_put_uvarint (enc, want);
          CHECK (ne == ns && memcmp (enc, sh, ns) == 0, "%s: the encoder writes the shortest form",
                 s);
        }
      else
        {
          n_invalid++;
          CHECK (got == 0, "%s: rejected by the decoder", s);
          const char *reason = bang + 1;
          while (*reason == ' ')
            reason++;
          enum emlat_invalid want = strncmp (reason, "truncated", 9) == 0 ? EMLAT_INVALID_SHORT
                                                                          : EMLAT_INVALID_VARINT;
          enum emlat_invalid why = in_payload (sign, b, n, &pu);
          CHECK (why == want, "%s: in a payload, invalid as \"%s\" (got \"%s\")", s,
                 emlat_invalid_name (want), emlat_invalid_name (why));
        }
    }
  CHECK (n_valid >= 20 && n_invalid >= 8, "%zu valid and %zu invalid vectors", n_valid, n_invalid);
  free_lines (v);
}

/* ------------------------------------------------------------------ */
/* Enumeration tables                                                  */

/* Rows of the table after "<!-- emlat-enum: NAME -->": first cell (a
   number), second cell (a name, backquotes dropped), third cell. */
struct row
{
  long value;
  char name[64], third[64];
};

static size_t table (const char *name, struct row *rows, size_t max)
{
  char mark[96];
  snprintf (mark, sizeof mark, "<!-- emlat-enum: %s -->", name);
  const char *s = strstr (doc, mark);
  CHECK (s != NULL, "FORMAT.md has the %s table", name);
  if (!s)
    return 0;
  /* The table starts at the next line whose first non-blank is '|' (it
     may be indented inside a list item) and runs while lines do. */
  s = strchr (s, '\n');
  while (s && s[1] && s[1 + strspn (s + 1, " ")] != '|')
    s = strchr (s + 1, '\n');
  size_t n = 0;
  for (int line = 0; s && s[1 + strspn (s + 1, " ")] == '|' && n < max; line++)
    {
      const char *e = strchr (s + 1, '\n');
      if (!e)
        break;
      if (line >= 2) /* after the header and the separator */
        {
          char cells[3][64] = { "", "", "" };
          const char *p = s + 1 + strspn (s + 1, " ") + 1;
          for (int k = 0; k < 3 && p < e; k++)
            {
              const char *q = memchr (p, '|', (size_t)(e - p));
              if (!q)
                break;
              size_t m = 0;
              for (const char *x = p; x < q && m < 63; x++)
                if (*x != '`' && !(m == 0 && *x == ' '))
                  cells[k][m++] = *x;
              while (m > 0 && cells[k][m - 1] == ' ')
                m--;
              cells[k][m] = 0;
              p = q + 1;
            }
          rows[n].value = strtol (cells[0], NULL, 10);
          snprintf (rows[n].name, sizeof rows[n].name, "%s", cells[1]);
          snprintf (rows[n].third, sizeof rows[n].third, "%s", cells[2]);
          n++;
        }
      s = e;
    }
  return n;
}

/* The table NAME lists exactly LO..HI, each row named as NAMEOF names it. */
static void check_enum (const char *name, long lo, long hi, const char *(*nameof) (unsigned))
{
  struct row rows[64];
  size_t n = table (name, rows, 64);
  CHECK (n == (size_t)(hi - lo + 1), "%s: %zu rows for %ld..%ld", name, n, lo, hi);
  for (size_t i = 0; i < n; i++)
    {
      CHECK (rows[i].value == lo + (long)i, "%s: row %zu has value %ld", name, i, rows[i].value);
      CHECK (strcmp (rows[i].name, nameof ((unsigned)rows[i].value)) == 0,
             "%s %ld: the document says \"%s\", the reader \"%s\"", name, rows[i].value,
             rows[i].name, nameof ((unsigned)rows[i].value));
    }
}

static void test_enums (void)
{
  check_enum ("chunk_type", 1, EMLAT_CHUNK_TYPE_MAX_KNOWN, emlat_chunk_type_name);
  check_enum ("root_kind", 0, EMLAT_ROOT_KIND_MAX, emlat_root_kind_name);
  check_enum ("status", 1, EMLAT_STATUS_MAX, emlat_status_name);
  check_enum ("quality", 1, EMLAT_Q_MAX, emlat_quality_name);
  check_enum ("time_field", 0, EMLAT_T_FIELD_COUNT - 1, emlat_time_field_name);
  check_enum ("value_field", 0, EMLAT_V_FIELD_COUNT - 1, emlat_value_field_name);
  check_enum ("counter", 0, EMLAT_C_COUNTER_COUNT - 1, emlat_counter_name);
  check_enum ("span_kind", 1, EMLAT_SPAN_KIND_MAX, emlat_span_kind_name);
  check_enum ("span_status", 0, EMLAT_SPAN_STATUS_MAX, emlat_span_status_name);
  check_enum ("loss_reason", 1, EMLAT_LOSS_REASON_MAX, emlat_loss_reason_name);
  check_enum ("event_tag", 1, EMLAT_EV_TAG_MAX, emlat_event_tag_name);
  /* F-94: the damage table names every diagnostic kind as the reader
     does, and says "yes" exactly for those emlat_diag_is_damage counts. */
  struct row d[64];
  size_t nd = table ("diagnostic", d, 64), kinds = 0;
  for (unsigned k = 1; k < 64; k++)
    kinds += strcmp (emlat_diag_kind_name ((enum emlat_diag_kind)k), "?") != 0;
  CHECK (nd == kinds, "the damage table has %zu rows for %zu diagnostic kinds", nd, kinds);
  for (size_t i = 0; i < nd; i++)
    {
      enum emlat_diag_kind k = (enum emlat_diag_kind)d[i].value;
      CHECK (strcmp (d[i].name, emlat_diag_kind_name (k)) == 0,
             "diagnostic %ld: the document says \"%s\", the reader \"%s\"", d[i].value,
             d[i].name, emlat_diag_kind_name (k));
      const char *want = emlat_diag_is_damage (k) ? "yes" : "no";
      CHECK (strcmp (d[i].third, want) == 0, "diagnostic %ld (%s): damage \"%s\", the reader %s",
             d[i].value, d[i].name, d[i].third, want);
    }
  /* 7.3's third column: the default quality of each time field (F-64). */
  struct row rows[64];
  size_t n = table ("time_field", rows, 64);
  for (size_t i = 0; i < n; i++)
    CHECK (strcmp (rows[i].third, emlat_quality_name (emlat_time_default_quality (
                                     (enum emlat_time_field)rows[i].value)))
             == 0,
           "time field %ld: default quality \"%s\" in the document", rows[i].value,
           rows[i].third);
}

int main (void)
{
  const char *src = getenv ("SRCDIR");
  char *path = tu_strf ("%s/%s", src ? src : ".", "docs/FORMAT.md");
  size_t len;
  if (tu_read_file (path, (uint8_t **)&doc, &len) != 0)
    {
      CHECK (0, "cannot read %s", path);
      TEST_DONE ();
    }
  test_example ();
  test_varints ();
  test_enums ();
  free (doc);
  free (path);
  TEST_DONE ();
}

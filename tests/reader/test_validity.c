/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_validity.c -- the validity rules of docs/FORMAT.md on crafted files,
 * each at its boundary (the last valid value passes, the first invalid one
 * does not), and the one judgement built on them (F-94):
 *
 *  - closed enumerations per record type (F-9, F-91): root kind, status,
 *    quality, time field (28..31 in INTERACTION version 2 only, F-66b),
 *    span kind, span status, loss reason, key/value
 *    type, record tags, chunk type 0 and type version 0 (F-31);
 *  - reserved bits (F-95): chunk flags, INPUT mask, INTERACTION masks, span
 *    head bits 8.. and a begin record's bits 3..7; key characters outside
 *    a-z 0-9 _ . (upper case included); lengths and counts past their limit;
 *  - block thread ids (F-53): none in SESSION, STRING, STATS and LOSS;
 *  - a counter or a quality field repeated in one record (F-91);
 *  - in a load: a repeated span id, input batch, interaction begin or
 *    complete record (F-92), a span that ends before it starts (F-93), a
 *    header-only file (F-43): each reported with its diagnostic, the later
 *    record ignored, the profile damaged;
 *  - what is not damage: an unknown chunk type appended (F-31), a newer
 *    type version; what is: a known chunk in an unknown codec (F-30);
 *  - damage counted even when the diagnostics themselves were dropped;
 *  - `emlat check` and `emlat report` agree on exit codes for each.
 *
 * Payloads are written in a small notation (see spec()) so that every case
 * is one line of the tables below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect.h"
#include "craft.h"
#include "emlat/emlat_report.h"
#include "tap.h"
#include "testutil.h"

static struct collect c;

/* Append to P the payload written as SPEC, space-separated tokens:
     uN   uvarint N (decimal or 0x hex)     sN   svarint N (may be negative)
     kTXT uvarint length then the bytes TXT  xHH  one raw byte (hex)
   A record block is spelled out in full: "u1 uBASE uTHREAD uCOUNT ...". */
static void spec (struct craft *p, const char *s)
{
  p->n = 0;
  while (*s)
    {
      while (*s == ' ')
        s++;
      if (!*s)
        break;
      char tok = *s++;
      const char *end = s;
      while (*end && *end != ' ')
        end++;
      char word[128];
      size_t n = (size_t)(end - s) < sizeof word - 1 ? (size_t)(end - s) : sizeof word - 1;
      memcpy (word, s, n);
      word[n] = 0;
      switch (tok)
        {
        case 'u':
          craft_uv (p, strtoull (word, NULL, 0));
          break;
        case 's':
          craft_sv (p, strtoll (word, NULL, 0));
          break;
        case 'k':
          craft_uv (p, n);
          craft_bytes (p, word, n);
          break;
        case 'x':
          craft_u8 (p, (uint8_t)strtoul (word, NULL, 16));
          break;
        default:
          abort ();
        }
      s = end;
    }
}

/* header + SESSION (seq 1) */
static void start_file (struct craft *f)
{
  struct craft p = { 0 };
  f->n = 0;
  craft_file_header (f, craft_uuid_a, 0);
  craft_session (&p, "k", 1);
  craft_chunk (f, EMLAT_CHUNK_SESSION, 1, &p);
  craft_free (&p);
}

/* ------------------------------------------------------------------ */
/* Record-level validity (F-9, F-27, F-53, F-91, F-95)                 */

struct rcase
{
  const char *name;
  uint16_t type;
  const char *payload;
  enum emlat_invalid want; /* EMLAT_INVALID_NONE: the chunk is valid */
};

#define I EMLAT_CHUNK_INPUT
#define X EMLAT_CHUNK_INTERACTION
#define S EMLAT_CHUNK_SPAN
#define L EMLAT_CHUNK_LOSS
#define OK EMLAT_INVALID_NONE
#define RANGE EMLAT_INVALID_RANGE
#define RESERVED EMLAT_INVALID_RESERVED
#define DUP EMLAT_INVALID_DUPLICATE
#define BLOCK EMLAT_INVALID_BLOCK

/* INTERACTION complete record prefix: tag 1, cause 4, then root kind. */
#define IXC "u1 u100 u1 u1 u1 u4 "
/* The same in an INTERACTION chunk of type version 2 (F-66a): block
   version 2; a name follows the root kind. */
#define IXC2 "u2 u100 u1 u1 u1 u4 "
/* A complete span record of thread 1: head, kind, id, parent, cause,
   start, duration. */
#define SPB "u1 u100 u1 u1 "

static const struct rcase rcases[] = {
  /* INPUT (6.4): tag, batch id, mask, ready quality 1..8. */
  { "input: batch, ready quality 8", I, "u1 u100 u1 u1 u1 u5 u2 u8 s0", OK },
  { "input: ready quality 9", I, "u1 u100 u1 u1 u1 u5 u2 u9 s0", RANGE },
  { "input: ready quality 0", I, "u1 u100 u1 u1 u1 u5 u2 u0 s0", RANGE },
  { "input: tag 2", I, "u1 u100 u1 u1 u2 u5 u0", RANGE },
  { "input: batch id 0", I, "u1 u100 u1 u1 u1 u0 u0", RANGE },
  { "input: mask 0x1f", I, "u1 u100 u1 u1 u1 u5 u0x1f u3 s0 s1 s2 s3 u9", OK },
  { "input: mask bit 5", I, "u1 u100 u1 u1 u1 u5 u0x20", RESERVED },
  { "input: no thread in block or record", I, "u1 u100 u0 u1 u1 u0 u5 u0", OK },
  /* INTERACTION (6.5): tags, root kind 0..10, status 1..7, qualities. */
  { "ix: tag 0", X, "u1 u100 u1 u1 u0", RANGE },
  { "ix: tag 3", X, "u1 u100 u1 u1 u3", RANGE },
  { "ix begin: root kind 10", X, "u1 u100 u1 u1 u2 u4 u10 u0 u0 s0", OK },
  { "ix begin: root kind 11", X, "u1 u100 u1 u1 u2 u4 u11 u0 u0 s0", RANGE },
  { "ix begin: cause 0", X, "u1 u100 u1 u1 u2 u0 u1 u0 u0 s0", RANGE },
  { "ix: root kind 0 (unknown), status 7", X, IXC "u0 u7 u0 u0 u0 u0", OK },
  { "ix: root kind 11", X, IXC "u11 u1 u0 u0 u0 u0", RANGE },
  { "ix: status 0", X, IXC "u1 u0 u0 u0 u0 u0", RANGE },
  { "ix: status 8", X, IXC "u1 u8 u0 u0 u0 u0", RANGE },
  { "ix: quality 8 for field 3", X, IXC "u1 u1 u8 s5 u1 u3 u8 u0 u0", OK },
  { "ix: quality 9", X, IXC "u1 u1 u8 s5 u1 u3 u9 u0 u0", RANGE },
  { "ix: quality 0", X, IXC "u1 u1 u8 s5 u1 u3 u0 u0 u0", RANGE },
  { "ix: quality field 28", X, IXC "u1 u1 u8 s5 u1 u28 u8 u0 u0", RANGE },
  { "ix: quality field not present", X, IXC "u1 u1 u8 s5 u1 u4 u8 u0 u0", RANGE },
  { "ix: quality field repeated", X, IXC "u1 u1 u8 s5 u2 u3 u8 u3 u7 u0 u0", DUP },
  { "ix: 29 quality pairs", X, IXC "u1 u1 u0 u29", RANGE },
  { "ix: time mask bit 27", X, IXC "u1 u1 u0x8000000 s5 u0 u0 u0", OK },
  { "ix: time mask bit 28", X, IXC "u1 u1 u0x10000000 s5 u0 u0 u0", RESERVED },
  { "ix: value mask bit 14", X, IXC "u1 u1 u0 u0 u0x4000 u9 u0", OK },
  { "ix: value mask bit 15", X, IXC "u1 u1 u0 u0 u0x8000 u9 u0", RESERVED },
  { "ix: counter mask bit 28", X, IXC "u1 u1 u0 u0 u0 u0x10000000 u9", OK },
  { "ix: counter mask bit 29", X, IXC "u1 u1 u0 u0 u0 u0x20000000 u9", RESERVED },
  { "ix v1: time mask bit 31", X, IXC "u1 u1 u0x80000000 s5 u0 u0 u0", RESERVED },
  /* SPAN (6.6): head, kind 1..22, status 0..4, counters. */
  { "span: kind 22, status 4", S, SPB "u0x81 u22 s1 s0 s0 s0 u1", OK },
  { "span: kind 0", S, SPB "u1 u0 s1 s0 s0 s0 u1", RANGE },
  { "span: kind 23", S, SPB "u1 u23 s1 s0 s0 s0 u1", RANGE },
  { "span: head kind 0", S, SPB "u0 u1 s1 s0 s0 s0 u1", RANGE },
  { "span: complete status 5", S, SPB "u0xa1 u1 s1 s0 s0 s0 u1", RANGE },
  { "span: end status 7", S, SPB "u0xe3 s1 s0", RANGE },
  { "span: head bit 8", S, SPB "u0x101 u1 s1 s0 s0 s0 u1", RESERVED },
  { "span: begin with bit 3 (detail)", S, SPB "u0x0a u1 s1 s0 s0 s0 u5", RESERVED },
  { "span: begin with bit 4 (counters)", S, SPB "u0x12 u1 s1 s0 s0 s0 u1 u3 u1", RESERVED },
  { "span: begin with a status", S, SPB "u0x22 u1 s1 s0 s0 s0", RESERVED },
  { "span: begin with CPU reading", S, SPB "u0x06 u1 s1 s0 s0 s0 u77", OK },
  { "span: id 0", S, SPB "u1 u1 s0 s0 s0 s0 u1", RANGE },
  { "span: parent 0 (delta = id)", S, SPB "u1 u1 s5 s5 s0 s0 u1", RANGE },
  { "span: counters 29 distinct", S,
    SPB "u0x11 u1 s1 s0 s0 s0 u1 u29 u0 u1 u1 u1 u2 u1 u3 u1 u4 u1 u5 u1 u6 u1 u7 u1 u8 u1 u9 u1 "
        "u10 u1 u11 u1 u12 u1 u13 u1 u14 u1 u15 u1 u16 u1 u17 u1 u18 u1 u19 u1 u20 u1 u21 u1 "
        "u22 u1 u23 u1 u24 u1 u25 u1 u26 u1 u27 u1 u28 u1", OK },
  { "span: counters n 0", S, SPB "u0x11 u1 s1 s0 s0 s0 u1 u0", RANGE },
  { "span: counters n 30", S, SPB "u0x11 u1 s1 s0 s0 s0 u1 u30", RANGE },
  { "span: counter 29", S, SPB "u0x11 u1 s1 s0 s0 s0 u1 u1 u29 u1", RANGE },
  { "span: counter repeated", S, SPB "u0x11 u1 s1 s0 s0 s0 u1 u2 u3 u1 u3 u2", DUP },
  { "span: end record with counter repeated", S, SPB "u0x13 s1 s0 u2 u0 u1 u0 u2", DUP },
  /* LOSS (6.7): reason 1..6, no block thread (F-53). */
  { "loss: reason 6", L, "u1 u100 u0 u1 u1 u6 s0 u0 u1 u32", OK },
  { "loss: reason 0", L, "u1 u100 u0 u1 u1 u0 s0 u0 u1 u32", RANGE },
  { "loss: reason 7", L, "u1 u100 u0 u1 u1 u7 s0 u0 u1 u32", RANGE },
  { "loss: block thread 1", L, "u1 u100 u1 u1 u1 u1 s0 u0 u1 u32", BLOCK },
  /* Key/value entries (6.2): key 1..64 of a-z 0-9 _ ., type 0..2. */
  { "kv: key of every allowed byte", EMLAT_CHUNK_STATS, "u1 u0 u0 u1 kaz09_. u0 u1", OK },
  { "kv: upper-case key", EMLAT_CHUNK_STATS, "u1 u0 u0 u1 kstats.Final u0 u1", RANGE },
  { "kv: key with '-'", EMLAT_CHUNK_STATS, "u1 u0 u0 u1 kcpu-count u0 u1", RANGE },
  { "kv: key length 0", EMLAT_CHUNK_STATS, "u1 u0 u0 u1 u0 u0 u1", RANGE },
  { "kv: key length 65", EMLAT_CHUNK_STATS, "u1 u0 u0 u1 u65", RANGE },
  { "kv: value type 3", EMLAT_CHUNK_STATS, "u1 u0 u0 u1 ka u3 u1", RANGE },
  { "kv: string value of 1025 bytes", EMLAT_CHUNK_STATS, "u1 u0 u0 u1 ka u2 u1025", RANGE },
  { "kv: signed value", EMLAT_CHUNK_STATS, "u1 u0 u0 u1 ka u1 s-5", OK },
  { "stats: block thread 1", EMLAT_CHUNK_STATS, "u1 u0 u1 u1 ka u0 u1", BLOCK },
  { "stats: base time 1", EMLAT_CHUNK_STATS, "u1 u1 u0 u1 ka u0 u1", BLOCK },
  /* STRING (6.3): id >= 1, length 0..4096. */
  { "string: empty", EMLAT_CHUNK_STRING, "u1 u0 u0 u1 u7 u0", OK },
  { "string: id 0", EMLAT_CHUNK_STRING, "u1 u0 u0 u1 u0 u0", RANGE },
  { "string: length 4097", EMLAT_CHUNK_STRING, "u1 u0 u0 u1 u7 u4097", RANGE },
};

/* The same in chunks of type version 2 (INTERACTION): the write bounds,
   time fields 28..31, only there (F-66b). */
static const struct rcase rcases_v2[] = {
  { "ix v2: time mask bits 28..31", X, IXC2 "u1 u0 u1 u0xf0000000 s5 s1 s2 s3 u0 u0 u0", OK },
  { "ix v2: time mask bit 32", X, IXC2 "u1 u0 u1 u0x100000000 s5 u0 u0 u0", RESERVED },
  { "ix v2: quality 8 for field 31", X, IXC2 "u1 u0 u1 u0x80000000 s5 u1 u31 u8 u0 u0", OK },
  { "ix v2: quality field 32", X, IXC2 "u1 u0 u1 u0x80000000 s5 u1 u32 u8 u0 u0", RANGE },
  { "ix v2: 32 quality pairs", X,
    IXC2 "u1 u0 u1 u0xffffffff s1 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 "
         "s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 s0 u32 u0 u8 u1 u8 u2 u8 u3 u8 u4 u8 u5 u8 u6 u8 u7 u8 "
         "u8 u8 u9 u8 u10 u8 u11 u8 u12 u8 u13 u8 u14 u8 u15 u8 u16 u8 u17 u8 u18 u8 u19 u8 u20 u8 "
         "u21 u8 u22 u8 u23 u8 u24 u8 u25 u8 u26 u8 u27 u8 u28 u8 u29 u8 u30 u8 u31 u8 u0 u0",
    OK },
  { "ix v2: 33 quality pairs", X, IXC2 "u1 u0 u1 u0 u33", RANGE },
};

static void test_record_cases (const struct rcase *cases, size_t ncases, uint16_t version)
{
  struct craft f = { 0 }, p = { 0 };
  for (size_t i = 0; i < ncases; i++)
    {
      const struct rcase *rc = &cases[i];
      start_file (&f);
      spec (&p, rc->payload);
      size_t off = craft_chunk_ex (&f, rc->type, version, 0, 2, p.b, p.n);
      collect_scan (&c, f.b, f.n, NULL);
      const struct emlat_diag *d = collect_find (&c, EMLAT_DIAG_INVALID_CHUNK);
      if (rc->want == OK)
        CHECK (c.res.chunks_invalid == 0 && c.decoded[1] && c.res.damage == 0,
               "%s: valid, got %s", rc->name, d ? emlat_invalid_name ((enum emlat_invalid)d->a)
                                                : "no record");
      else
        CHECK (d && d->offset == off && d->a == (uint64_t)rc->want && !c.decoded[1]
                 && c.n_recs == 1 && c.res.damage == 1,
               "%s: want %s, got %s", rc->name, emlat_invalid_name (rc->want),
               d ? emlat_invalid_name ((enum emlat_invalid)d->a) : "valid");
    }
  craft_free (&f);
  craft_free (&p);
}

static void test_records (void)
{
  struct craft f = { 0 }, p = { 0 };
  test_record_cases (rcases, sizeof rcases / sizeof rcases[0], EMLAT_TYPE_VERSION);
  test_record_cases (rcases_v2, sizeof rcases_v2 / sizeof rcases_v2[0], EMLAT_IX_VERSION_NAMED);
  /* A SESSION chunk with a block thread (F-53): the file's first chunk. */
  f.n = 0;
  craft_file_header (&f, craft_uuid_a, 0);
  spec (&p, "u1 u0 u3 u1 kk u0 u1");
  craft_chunk (&f, EMLAT_CHUNK_SESSION, 1, &p);
  collect_scan (&c, f.b, f.n, NULL);
  const struct emlat_diag *d = collect_find (&c, EMLAT_DIAG_INVALID_CHUNK);
  CHECK (d && d->a == EMLAT_INVALID_BLOCK, "SESSION with a block thread is invalid");
  craft_free (&f);
  craft_free (&p);
}

/* ------------------------------------------------------------------ */
/* Chunk-level classification (F-22a, F-30..F-33)                      */

static void test_chunk_classes (void)
{
  struct craft f = { 0 }, p = { 0 };
  spec (&p, SPB "u1 u1 s9 s0 s0 s0 u1");
  /* Type 0: invalid, not skipped (F-31). */
  start_file (&f);
  size_t off = craft_chunk_ex (&f, 0, 1, 0, 2, p.b, p.n);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK (c.res.chunks_invalid == 1 && c.res.chunks_skipped == 0 && c.res.damage == 1
           && c.diags[0].offset == off && c.diags[0].a == EMLAT_INVALID_RANGE,
         "type 0 is an invalid chunk");
  /* Reserved flag bit 8 of a known type (F-22a). */
  start_file (&f);
  craft_chunk_ex (&f, EMLAT_CHUNK_SPAN, 1, 0x100, 2, p.b, p.n);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK (c.res.chunks_invalid == 1 && c.n_recs == 1 && c.diags[0].a == EMLAT_INVALID_RESERVED,
         "reserved chunk flag bits make the chunk invalid");
  /* F-33: an unknown type is skipped whatever its codec or flags: not damage. */
  start_file (&f);
  craft_chunk_ex (&f, 99, 1, 0x103, 2, p.b, p.n);
  craft_chunk_ex (&f, EMLAT_CHUNK_SPAN, 7, 5, 3, p.b, p.n);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK (c.res.chunks_skipped == 2 && c.res.damage == 0 && c.n_diags == 2
           && c.diags[0].kind == EMLAT_DIAG_SKIP_TYPE && c.diags[1].kind == EMLAT_DIAG_SKIP_VERSION,
         "unknown type and newer version: skipped, reported, not damage");
  /* A known type in an unknown codec: skipped as lost data, damage (F-30). */
  start_file (&f);
  craft_chunk_ex (&f, EMLAT_CHUNK_SPAN, 1, 3, 2, p.b, p.n);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK (c.res.chunks_skipped == 1 && c.res.damage == 1 && c.diags[0].kind == EMLAT_DIAG_SKIP_CODEC,
         "unknown codec of a known chunk: damage");
  /* F-43: a header and no chunk. */
  f.n = 0;
  craft_file_header (&f, craft_uuid_a, 0);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK (c.res.stop == EMLAT_STOP_CLEAN && c.res.missing_session && c.res.damage == 1
           && c.n_diags == 1 && c.diags[0].kind == EMLAT_DIAG_MISSING_SESSION
           && c.diags[0].offset == EMLAT_FILE_HEADER_SIZE,
         "header-only file: missing SESSION at offset 64");
  craft_free (&f);
  craft_free (&p);
}

/* ------------------------------------------------------------------ */
/* Load-level rules (F-92, F-93) and the judgement (F-94)              */

static const char *dir;
static unsigned n_written;

/* Write F to a new file in the test directory; returns its path (heap). */
static char *put (const struct craft *f)
{
  char *path = tu_strf ("%s/f%u.emlat", dir, n_written++);
  CHECK_OK (tu_write_file (path, f->b, f->n));
  return path;
}

static struct emlat_profile *load (const char *path, const struct emlat_limits *lim)
{
  struct emlat_profile *p = NULL;
  const char *paths[] = { path };
  CHECK_OK (emlat_profile_load (paths, 1, lim, EMLAT_LOAD_SPANS, &p));
  return p;
}

static size_t count_diags (const struct emlat_profile *p, enum emlat_diag_kind k, uint64_t a)
{
  size_t nd, n = 0;
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  for (size_t i = 0; i < nd; i++)
    n += d[i].kind == k && d[i].a == a;
  return n;
}

/* `emlat VERB PATH`: its exit code, or -1. */
static int run_verb (const char *verb, const char *path)
{
  const char *emlat = getenv ("EMLAT");
  char *def = tu_build_path ("emlat");
  char *argv[] = { (char *)(emlat ? emlat : def), (char *)verb, (char *)path, NULL };
  struct tu_cmd cmd = { .argv = argv };
  struct tu_result r;
  int code = -1;
  if (tu_run (&cmd, &r) == 0)
    {
      if (r.exited)
        code = r.exit_code;
      tu_result_free (&r);
    }
  free (def);
  return code;
}

/* F-94: the library says HEALTH, and check and report both exit CODE. */
static void judged (const char *name, const char *path, struct emlat_profile *p,
                    enum emlat_report_health health, int code)
{
  CHECK (emlat_report_health (p) == health, "%s: health %d, want %d", name,
         (int)emlat_report_health (p), (int)health);
  CHECK (emlat_report_damaged (p) == (health != EMLAT_HEALTH_VALID), "%s: damaged", name);
  size_t nf;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  CHECK (nf == 1 && emlat_report_file_health (&f[0]) == health, "%s: the file's own health",
         name);
  int ck = run_verb ("check", path), rp = run_verb ("report", path);
  CHECK (ck == code && rp == code, "%s: check exit %d, report exit %d, want %d", name, ck, rp,
         code);
}

/* Span id 7 completed (cause 3), then repeated: completed again for the
   same cause, for another cause, and begun.  The first record is kept by
   the load and by the per-interaction re-scan alike. */
static void test_duplicate_span (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f);
  craft_span1 (&p, 7, 3, 1000, 50, EMLAT_SPAN_GC);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  craft_span1 (&p, 7, 3, 2000, 60, EMLAT_SPAN_GC);
  size_t off = craft_chunk (&f, EMLAT_CHUNK_SPAN, 3, &p);
  craft_span1 (&p, 7, 5, 2500, 60, EMLAT_SPAN_GC);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 4, &p);
  spec (&p, "u1 u3000 u1 u1 u2 u9 s7 s0 s0 s0");
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 5, &p);
  char *path = put (&f);
  struct emlat_profile *pr = load (path, NULL);
  if (pr)
    {
      size_t ns, nd;
      const struct emlat_span *s = emlat_profile_spans (pr, &ns, NULL);
      CHECK (ns == 1 && s[0].id == 7 && s[0].cause == 3 && s[0].start == 1000 && s[0].end == 1050,
             "the first record of span 7 is kept (%zu spans)", ns);
      CHECK_EQ_U64 (count_diags (pr, EMLAT_DIAG_DUPLICATE_SPAN, 7), 3);
      const struct emlat_diag *d = emlat_profile_diags (pr, &nd);
      for (size_t i = 0; i < nd; i++)
        if (d[i].kind == EMLAT_DIAG_DUPLICATE_SPAN)
          {
            CHECK_EQ_U64 (d[i].offset, off); /* the first repeat, at its chunk */
            break;
          }
      CHECK_EQ_U64 (emlat_profile_totals (pr)->spans_incomplete, 0);
      struct emlat_span_set set;
      if (emlat_profile_ix_spans (pr, 3, &set) == 0)
        {
          CHECK (set.n == 1 && set.spans[0].start == 1000, "re-scan of cause 3: %zu spans", set.n);
          emlat_span_set_free (&set);
        }
      if (emlat_profile_ix_spans (pr, 5, &set) == 0)
        {
          CHECK (set.n == 0, "re-scan of cause 5: the repeat is not used (%zu spans)", set.n);
          emlat_span_set_free (&set);
        }
      judged ("duplicate span", path, pr, EMLAT_HEALTH_DAMAGED, 1);
      emlat_profile_free (pr);
    }
  free (path);
  craft_free (&f);
  craft_free (&p);
}

/* F-93: an end before its begin's start, and a complete record whose
   duration wraps past 2^64: reported, not spans, not incomplete. */
static void test_backwards_span (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f);
  spec (&p, "u1 u5000 u1 u1 u2 u9 s3 s0 s4 s0"); /* begin span 3, cause 4, t 5000 */
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  spec (&p, "u1 u4000 u1 u1 u3 s3 s0"); /* end span 3 at t 4000 */
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 3, &p);
  spec (&p, "u1 u0xfffffffffffffff0 u1 u1 u1 u9 s5 s0 s0 s0 u0x20"); /* ends at 2^64 + 16 */
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 4, &p);
  craft_span1 (&p, 6, 0, 100, 0, EMLAT_SPAN_GC); /* zero duration: a span */
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 5, &p);
  char *path = put (&f);
  struct emlat_profile *pr = load (path, NULL);
  if (pr)
    {
      size_t ns;
      const struct emlat_span *s = emlat_profile_spans (pr, &ns, NULL);
      CHECK (ns == 1 && s[0].id == 6, "only span 6 is a span (%zu)", ns);
      CHECK_EQ_U64 (count_diags (pr, EMLAT_DIAG_SPAN_BACKWARDS, 3), 1);
      CHECK_EQ_U64 (count_diags (pr, EMLAT_DIAG_SPAN_BACKWARDS, 5), 1);
      const struct emlat_profile_totals *t = emlat_profile_totals (pr);
      CHECK_EQ_U64 (t->spans_incomplete, 0);
      CHECK_EQ_U64 (t->spans_orphan_end, 0);
      CHECK_EQ_U64 (t->spans_complete, 1);
      struct emlat_span_set set;
      if (emlat_profile_ix_spans (pr, 4, &set) == 0)
        {
          CHECK (set.n == 0, "re-scan: span 3 is not a span, nor incomplete (%zu)", set.n);
          emlat_span_set_free (&set);
        }
      judged ("span ends before its start", path, pr, EMLAT_HEALTH_DAMAGED, 1);
      emlat_profile_free (pr);
    }
  free (path);
  craft_free (&f);
  craft_free (&p);
}

/* F-92: an INPUT batch repeated (the same chunk twice, re-sequenced), and
   an interaction begun twice and completed twice. */
static void test_duplicate_input_and_ix (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f);
  spec (&p, "u1 u100 u1 u2 u1 u5 u0x1c s0 s10 u3 u1 u6 u0x0c s20 s5"); /* batches 5, 6 */
  craft_chunk (&f, EMLAT_CHUNK_INPUT, 2, &p);
  craft_chunk (&f, EMLAT_CHUNK_INPUT, 3, &p);
  char *path = put (&f);
  struct emlat_profile *pr = load (path, NULL);
  if (pr)
    {
      size_t n;
      emlat_profile_inputs (pr, &n);
      CHECK_EQ_U64 (n, 2);
      CHECK_EQ_U64 (emlat_profile_totals (pr)->input_batches, 2);
      CHECK_EQ_U64 (count_diags (pr, EMLAT_DIAG_DUPLICATE_INPUT, 5), 1);
      CHECK_EQ_U64 (count_diags (pr, EMLAT_DIAG_DUPLICATE_INPUT, 6), 1);
      judged ("duplicate input batch", path, pr, EMLAT_HEALTH_DAMAGED, 1);
      emlat_profile_free (pr);
    }
  free (path);

  start_file (&f);
  spec (&p, "u1 u100 u1 u1 u2 u4 u1 u0 u0 s0"); /* begin cause 4 */
  craft_chunk (&f, EMLAT_CHUNK_INTERACTION, 2, &p);
  craft_chunk (&f, EMLAT_CHUNK_INTERACTION, 3, &p);
  spec (&p, IXC "u1 u1 u0x100 s0 u0 u0 u0"); /* complete cause 4 */
  craft_chunk (&f, EMLAT_CHUNK_INTERACTION, 4, &p);
  spec (&p, IXC "u1 u2 u0x100 s50 u0 u0 u0"); /* completed again, status quit */
  craft_chunk (&f, EMLAT_CHUNK_INTERACTION, 5, &p);
  path = put (&f);
  pr = load (path, NULL);
  if (pr)
    {
      size_t n;
      const struct emlat_interaction *ix = emlat_profile_interactions (pr, &n);
      CHECK (n == 1 && ix[0].status == EMLAT_STATUS_NORMAL, "the first complete record wins");
      CHECK_EQ_U64 (count_diags (pr, EMLAT_DIAG_DUPLICATE_BEGIN, 4), 1);
      CHECK_EQ_U64 (count_diags (pr, EMLAT_DIAG_DUPLICATE_COMPLETE, 4), 1);
      judged ("interaction begun and completed twice", path, pr, EMLAT_HEALTH_DAMAGED, 1);
      emlat_profile_free (pr);
    }
  free (path);
  craft_free (&f);
  craft_free (&p);
}

/* F-31, F-94: an unknown chunk type appended to a valid file keeps it
   valid for every verb; an unknown codec of a known type does not; nor
   does a header-only file (F-43). */
static void test_judgement (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f);
  craft_span1 (&p, 1, 0, 100, 10, EMLAT_SPAN_GC);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  spec (&p, "u1 u0 u0 u1 kstats.final u0 u1");
  craft_chunk (&f, EMLAT_CHUNK_STATS, 3, &p);
  char *path = put (&f);
  struct emlat_profile *pr = load (path, NULL);
  if (pr)
    {
      judged ("baseline", path, pr, EMLAT_HEALTH_VALID, 0);
      emlat_profile_free (pr);
    }
  free (path);

  size_t base = f.n;
  spec (&p, "u1 u0 u0 u0");
  craft_chunk_ex (&f, 99, 1, 0, 4, p.b, p.n);
  path = put (&f);
  pr = load (path, NULL);
  if (pr)
    {
      CHECK_EQ_U64 (emlat_profile_totals (pr)->chunks_skipped, 1);
      judged ("unknown chunk type appended", path, pr, EMLAT_HEALTH_VALID, 0);
      emlat_profile_free (pr);
    }
  free (path);

  f.n = base;
  craft_span1 (&p, 2, 0, 200, 10, EMLAT_SPAN_GC);
  craft_chunk_ex (&f, EMLAT_CHUNK_SPAN, 1, 4, 4, p.b, p.n);
  path = put (&f);
  pr = load (path, NULL);
  if (pr)
    {
      judged ("known chunk in an unknown codec", path, pr, EMLAT_HEALTH_DAMAGED, 1);
      emlat_profile_free (pr);
    }
  free (path);

  f.n = 0;
  craft_file_header (&f, craft_uuid_a, 0);
  path = put (&f);
  pr = load (path, NULL);
  if (pr)
    {
      judged ("header only", path, pr, EMLAT_HEALTH_DAMAGED, 1);
      emlat_profile_free (pr);
    }
  free (path);
  craft_free (&f);
  craft_free (&p);
}

/* Damage is counted, not looked up in the kept diagnostics: with room for
   one diagnostic, filled by orphan ends (not damage), a later repeated span
   id still makes the profile damaged. */
static void test_damage_counted (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f);
  spec (&p, "u1 u100 u1 u3 u3 s10 s0 u3 s1 s0 u3 s1 s0"); /* ends of 10, 11, 12 */
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  craft_span1 (&p, 20, 0, 100, 1, EMLAT_SPAN_GC);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 3, &p);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 4, &p);
  spec (&p, "u1 u0 u0 u1 kstats.final u0 u1");
  craft_chunk (&f, EMLAT_CHUNK_STATS, 5, &p);
  char *path = put (&f);
  struct emlat_limits lim;
  emlat_limits_default (&lim);
  lim.max_diagnostics = 1;
  struct emlat_profile *pr = load (path, &lim);
  if (pr)
    {
      size_t nd;
      emlat_profile_diags (pr, &nd);
      const struct emlat_profile_totals *t = emlat_profile_totals (pr);
      CHECK (nd == 1 && t->diagnostics_dropped == 3 && t->damage == 1,
             "kept %zu, dropped %llu, damage %llu", nd,
             (unsigned long long)t->diagnostics_dropped, (unsigned long long)t->damage);
      CHECK (emlat_report_health (pr) == EMLAT_HEALTH_DAMAGED, "damaged though not kept");
      emlat_profile_free (pr);
    }
  free (path);
  craft_free (&f);
  craft_free (&p);
}

int main (void)
{
  test_records ();
  test_chunk_classes ();
  dir = tu_tmpdir ();
  if (!dir)
    TEST_DONE ();
  test_duplicate_span ();
  test_backwards_span ();
  test_duplicate_input_and_ix ();
  test_judgement ();
  test_damage_counted ();
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_scan_crafted.c -- the scanner on hand-crafted files: skipping (F-30,
 * F-31, F-32), invalid payloads with valid CRCs (F-27), sequence gaps
 * (F-23), a missing SESSION (F-40), every file-header and chunk-framing
 * stop (F-10, F-11, F-21, F-22, F-26) with its offset, and varint edge
 * cases (F-2, F-3).  Each case says which rule it exercises.
 */
#include <stdio.h>

#include "collect.h"
#include "craft.h"
#include "tap.h"

static struct collect c;

/* header + SESSION (seq 1) */
static void start_file (struct craft *f, struct craft *p)
{
  f->n = 0;
  craft_file_header (f, craft_uuid_a, 0);
  craft_session (p, "k", 1);
  craft_chunk (f, EMLAT_CHUNK_SESSION, 1, p);
}

static void test_baseline (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_span1 (&p, 7, 3, 5000, 250, EMLAT_SPAN_REDISPLAY);
  size_t off = craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (c.res.stop_offset, f.n);
  CHECK_EQ_U64 (c.res.chunks, 2);
  CHECK_EQ_U64 (c.n_recs, 2);
  CHECK_EQ_U64 (c.n_diags, 0);
  CHECK_EQ_U64 (c.recs[1].kind, EMLAT_REC_SPAN_COMPLETE);
  CHECK_EQ_U64 (c.recs[1].u.span.id, 7);
  CHECK_EQ_U64 (c.recs[1].u.span.cause, 3);
  CHECK_EQ_U64 (c.recs[1].u.span.start, 5000);
  CHECK_EQ_U64 (c.recs[1].u.span.end, 5250);
  CHECK_EQ_U64 (c.recs[1].u.span.kind, EMLAT_SPAN_REDISPLAY);
  CHECK_EQ_U64 (c.recs[1].thread, 1);
  CHECK_EQ_U64 (c.chunks[1].offset, off);
  CHECK_EQ_U64 (c.res.final_stats, 0);
  craft_free (&f);
  craft_free (&p);
}

/* F-30, F-31, F-32, F-33: skipped by length and reported (or, for type
   version 0, invalid), never decoded; the chunk after each is read
   normally. */
static void test_skips (void)
{
  struct craft f = { 0 }, p = { 0 }, junk = { 0 };
  start_file (&f, &p);
  /* A payload that would decode as a valid SPAN block if misread. */
  craft_span1 (&junk, 99, 1, 10, 10, EMLAT_SPAN_GC);
  size_t o_type = craft_chunk_ex (&f, 99, 1, 0, 2, junk.b, junk.n);
  size_t o_ver = craft_chunk_ex (&f, EMLAT_CHUNK_SPAN, 2, 0, 3, junk.b, junk.n);
  size_t o_v0 = craft_chunk_ex (&f, EMLAT_CHUNK_SPAN, 0, 0, 4, junk.b, junk.n);
  craft_chunk_ex (&f, 0x8001, 1, 0, 5, junk.b, junk.n);
  size_t o_codec = craft_chunk_ex (&f, EMLAT_CHUNK_SPAN, 1, 3, 6, junk.b, junk.n);
  craft_span1 (&p, 5, 2, 100, 1, EMLAT_SPAN_COMMAND);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 7, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (c.res.chunks, 7);
  CHECK_EQ_U64 (c.res.chunks_skipped, 3);
  CHECK_EQ_U64 (c.res.chunks_invalid, 1);
  CHECK_EQ_U64 (c.res.chunks_experimental, 1);
  CHECK_EQ_U64 (c.res.sequence_gaps, 0);
  CHECK_EQ_U64 (c.n_recs, 2); /* SESSION entry and span 5 only */
  for (size_t i = 0; i < c.n_recs; i++)
    CHECK (!(c.recs[i].kind == EMLAT_REC_SPAN_COMPLETE && c.recs[i].u.span.id == 99),
           "a skipped chunk's payload was decoded");
  CHECK_EQ_U64 (c.recs[1].u.span.id, 5);
  CHECK_EQ_U64 (c.n_diags, 4); /* experimental chunks are silent */
  CHECK_EQ_U64 (c.diags[0].kind, EMLAT_DIAG_SKIP_TYPE);
  CHECK_EQ_U64 (c.diags[0].offset, o_type);
  CHECK_EQ_U64 (c.diags[0].type, 99);
  CHECK_EQ_U64 (c.diags[0].version, 1);
  CHECK_EQ_U64 (c.diags[1].kind, EMLAT_DIAG_SKIP_VERSION);
  CHECK_EQ_U64 (c.diags[1].offset, o_ver);
  CHECK_EQ_U64 (c.diags[1].version, 2);
  CHECK_EQ_U64 (c.diags[2].kind, EMLAT_DIAG_INVALID_CHUNK); /* F-31: version 0 */
  CHECK_EQ_U64 (c.diags[2].offset, o_v0);
  CHECK_EQ_U64 (c.diags[2].a, EMLAT_INVALID_RANGE);
  CHECK_EQ_U64 (c.diags[3].kind, EMLAT_DIAG_SKIP_CODEC);
  CHECK_EQ_U64 (c.diags[3].offset, o_codec);
  CHECK_EQ_U64 (c.diags[3].a, 3);
  for (size_t i = 1; i < 6; i++)
    CHECK (!c.decoded[i], "skipped chunk %zu reported as decoded", i);
  CHECK (c.decoded[6], "the chunk after the skips is decoded");
  craft_free (&f);
  craft_free (&p);
  craft_free (&junk);
}

/* F-27: a payload that passes its CRC but does not decode. */
static void invalid_case (const char *name, const struct craft *payload, uint16_t type,
                          enum emlat_invalid why)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  size_t off = craft_chunk (&f, type, 2, payload);
  craft_span1 (&p, 5, 2, 100, 1, EMLAT_SPAN_COMMAND);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 3, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK (c.res.stop == EMLAT_STOP_CLEAN, "%s: stop %d", name, c.res.stop);
  CHECK (c.res.chunks_invalid == 1, "%s: invalid chunks %llu", name,
         (unsigned long long)c.res.chunks_invalid);
  const struct emlat_diag *d = collect_find (&c, EMLAT_DIAG_INVALID_CHUNK);
  CHECK (d && d->offset == off && d->a == (uint64_t)why, "%s: diag %s offset %llu reason %llu",
         name, d ? "present" : "missing", d ? (unsigned long long)d->offset : 0ull,
         d ? (unsigned long long)d->a : 0ull);
  /* No record of the invalid chunk; the next chunk's record is there. */
  CHECK (c.n_recs == 2 && c.recs[1].u.span.id == 5, "%s: records %zu", name, c.n_recs);
  CHECK (!c.decoded[1] && c.decoded[2], "%s: decoded flags", name);
  craft_free (&f);
  craft_free (&p);
}

static void test_invalid (void)
{
  struct craft p = { 0 };
  /* Trailing byte after the records (F-50). */
  craft_span1 (&p, 9, 1, 10, 1, EMLAT_SPAN_GC);
  craft_u8 (&p, 0);
  invalid_case ("trailing", &p, EMLAT_CHUNK_SPAN, EMLAT_INVALID_TRAILING);
  /* Count says 2, one record present (F-50). */
  craft_span1 (&p, 9, 1, 10, 1, EMLAT_SPAN_GC);
  p.b[3] = 2;
  invalid_case ("count", &p, EMLAT_CHUNK_SPAN, EMLAT_INVALID_SHORT);
  /* Head bit 8 set (reserved). */
  craft_block (&p, 10, 1, 1);
  craft_uv (&p, 0x101);
  craft_uv (&p, 1);
  craft_sv (&p, 1);
  craft_sv (&p, 0);
  craft_sv (&p, 0);
  craft_sv (&p, 0);
  craft_uv (&p, 1);
  invalid_case ("head reserved", &p, EMLAT_CHUNK_SPAN, EMLAT_INVALID_RESERVED);
  /* Span kind 23 (out of range). */
  craft_span1 (&p, 9, 1, 10, 1, 23);
  invalid_case ("span kind", &p, EMLAT_CHUNK_SPAN, EMLAT_INVALID_RANGE);
  /* Span status in a begin record. */
  craft_block (&p, 10, 1, 1);
  craft_uv (&p, EMLAT_SPAN_REC_BEGIN | (1u << 5));
  craft_uv (&p, 1);
  craft_sv (&p, 1);
  craft_sv (&p, 0);
  craft_sv (&p, 0);
  craft_sv (&p, 0);
  invalid_case ("begin status", &p, EMLAT_CHUNK_SPAN, EMLAT_INVALID_RESERVED);
  /* Schema version 2 in a version-1 chunk (6.1). */
  craft_span1 (&p, 9, 1, 10, 1, EMLAT_SPAN_GC);
  p.b[0] = 2;
  invalid_case ("schema", &p, EMLAT_CHUNK_SPAN, EMLAT_INVALID_SCHEMA);
  /* SPAN block with thread 0 (6.6). */
  craft_span1 (&p, 9, 1, 10, 1, EMLAT_SPAN_GC);
  p.b[2] = 0;
  invalid_case ("span thread 0", &p, EMLAT_CHUNK_SPAN, EMLAT_INVALID_BLOCK);
  /* Span id 0 (F-5). */
  craft_span1 (&p, 0, 1, 10, 1, EMLAT_SPAN_GC);
  invalid_case ("span id 0", &p, EMLAT_CHUNK_SPAN, EMLAT_INVALID_RANGE);
  /* Key with an upper-case letter (6.2). */
  craft_session (&p, "Key", 1);
  invalid_case ("key chars", &p, EMLAT_CHUNK_STATS, EMLAT_INVALID_RANGE);
  /* Interaction status 8 (7.1). */
  craft_block (&p, 100, 1, 1);
  craft_uv (&p, EMLAT_IX_TAG_COMPLETE);
  craft_uv (&p, 4);
  craft_uv (&p, 1);
  craft_uv (&p, 8);
  craft_uv (&p, 0);
  craft_uv (&p, 0);
  craft_uv (&p, 0);
  craft_uv (&p, 0);
  invalid_case ("ix status", &p, EMLAT_CHUNK_INTERACTION, EMLAT_INVALID_RANGE);
  /* A quality for a field whose bit is not set (6.5). */
  craft_block (&p, 100, 1, 1);
  craft_uv (&p, EMLAT_IX_TAG_COMPLETE);
  craft_uv (&p, 4);
  craft_uv (&p, 1);
  craft_uv (&p, 1);
  craft_uv (&p, 1u << 3);
  craft_sv (&p, 5);
  craft_uv (&p, 1);
  craft_uv (&p, 4);
  craft_uv (&p, 3);
  craft_uv (&p, 0);
  craft_uv (&p, 0);
  invalid_case ("quality field", &p, EMLAT_CHUNK_INTERACTION, EMLAT_INVALID_RANGE);
  /* Time mask bit 28 (reserved). */
  craft_block (&p, 100, 1, 1);
  craft_uv (&p, EMLAT_IX_TAG_COMPLETE);
  craft_uv (&p, 4);
  craft_uv (&p, 1);
  craft_uv (&p, 1);
  craft_uv (&p, 1u << 28);
  craft_sv (&p, 5);
  craft_uv (&p, 0);
  craft_uv (&p, 0);
  craft_uv (&p, 0);
  invalid_case ("time mask", &p, EMLAT_CHUNK_INTERACTION, EMLAT_INVALID_RESERVED);
  /* INPUT mask bit 5 (reserved). */
  craft_block (&p, 100, 1, 1);
  craft_uv (&p, EMLAT_INPUT_TAG_BATCH);
  craft_uv (&p, 1);
  craft_uv (&p, 0x20);
  invalid_case ("input mask", &p, EMLAT_CHUNK_INPUT, EMLAT_INVALID_RESERVED);
  /* LOSS reason 7 (7.7). */
  craft_block (&p, 100, 0, 1);
  craft_uv (&p, 1);
  craft_uv (&p, 7);
  craft_sv (&p, 0);
  craft_uv (&p, 0);
  craft_uv (&p, 1);
  craft_uv (&p, 32);
  invalid_case ("loss reason", &p, EMLAT_CHUNK_LOSS, EMLAT_INVALID_RANGE);
  /* STRING id repeated within one chunk (F-62). */
  craft_block (&p, 0, 0, 2);
  craft_uv (&p, 3);
  craft_uv (&p, 1);
  craft_u8 (&p, 'a');
  craft_uv (&p, 3);
  craft_uv (&p, 1);
  craft_u8 (&p, 'b');
  invalid_case ("string repeated", &p, EMLAT_CHUNK_STRING, EMLAT_INVALID_DUPLICATE);
  /* STRING base time nonzero (6.1). */
  craft_block (&p, 5, 0, 0);
  invalid_case ("string base", &p, EMLAT_CHUNK_STRING, EMLAT_INVALID_BLOCK);
  /* Empty payload: no schema version at all. */
  p.n = 0;
  invalid_case ("empty payload", &p, EMLAT_CHUNK_SPAN, EMLAT_INVALID_SHORT);
  craft_free (&p);
}

/* F-62 across chunks: a second STRING chunk redefining an id is invalid;
   its other ids are not used either. */
static void test_string_across_chunks (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_block (&p, 0, 0, 1);
  craft_uv (&p, 3);
  craft_uv (&p, 1);
  craft_u8 (&p, 'a');
  craft_chunk (&f, EMLAT_CHUNK_STRING, 2, &p);
  craft_block (&p, 0, 0, 2);
  craft_uv (&p, 4);
  craft_uv (&p, 1);
  craft_u8 (&p, 'b');
  craft_uv (&p, 3);
  craft_uv (&p, 1);
  craft_u8 (&p, 'c');
  size_t off = craft_chunk (&f, EMLAT_CHUNK_STRING, 3, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.chunks_invalid, 1);
  const struct emlat_diag *d = collect_find (&c, EMLAT_DIAG_INVALID_CHUNK);
  CHECK (d && d->offset == off && d->a == EMLAT_INVALID_DUPLICATE, "duplicate string chunk");
  CHECK_EQ_U64 (c.n_recs, 2); /* SESSION entry and string 3 = "a" */
  CHECK_EQ_U64 (c.recs[1].u.str.id, 3);
  CHECK_EQ_U64 (c.recs[1].u.str.bytes[0], 'a');
  craft_free (&f);
  craft_free (&p);
}

/* F-23 and F-40. */
static void test_gap_and_session (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_span1 (&p, 1, 1, 1, 1, EMLAT_SPAN_GC);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  size_t off = craft_chunk (&f, EMLAT_CHUNK_SPAN, 5, &p);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 6, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.sequence_gaps, 1);
  const struct emlat_diag *d = collect_find (&c, EMLAT_DIAG_SEQUENCE_GAP);
  CHECK (d && d->offset == off && d->a == 3 && d->b == 5, "gap expected 3 found 5");
  CHECK_EQ_U64 (c.res.chunks, 4); /* kept reading */
  CHECK_EQ_U64 (c.res.missing_session, 0);

  f.n = 0;
  craft_file_header (&f, craft_uuid_a, 0);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 1, &p);
  craft_session (&p, "k", 1);
  size_t o2 = craft_chunk (&f, EMLAT_CHUNK_SESSION, 2, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.missing_session, 1);
  d = collect_find (&c, EMLAT_DIAG_MISSING_SESSION);
  CHECK (d && d->offset == EMLAT_FILE_HEADER_SIZE, "missing SESSION at offset 64");
  d = collect_find (&c, EMLAT_DIAG_EXTRA_SESSION);
  CHECK (d && d->offset == o2, "late SESSION reported");
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (c.n_recs, 2); /* both chunks still read */
  craft_free (&f);
  craft_free (&p);
}

/* F-10, F-11, F-12. */
static void test_file_header (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  uint8_t *b = malloc (f.n);
  memcpy (b, f.b, f.n);
  collect_scan (&c, b, 5, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_TRUNCATED_HEADER);
  collect_scan (&c, b, 63, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_TRUNCATED_HEADER);
  CHECK_EQ_U64 (c.res.header_ok, 0);
  collect_scan (&c, (const uint8_t *)"#!/bin/sh\n", 10, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_BAD_MAGIC);
  collect_scan (&c, b, 0, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_TRUNCATED_HEADER);
  b[20] ^= 1; /* UUID byte: header CRC */
  collect_scan (&c, b, f.n, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_HEADER_CRC);
  CHECK_EQ_U64 (c.res.stop_offset, 0);
  CHECK_EQ_U64 (c.res.chunks, 0);
  memcpy (b, f.b, f.n);
  emlat_put16 (b + EMLAT_FH_MAJOR, 2);
  emlat_put32 (b + EMLAT_FH_CRC, emlat_crc32c (0, b, EMLAT_FH_CRC));
  collect_scan (&c, b, f.n, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_BAD_VERSION);
  /* A newer minor version is readable (F-11); nonzero flags reported (F-12). */
  memcpy (b, f.b, f.n);
  emlat_put16 (b + EMLAT_FH_MINOR, 3);
  emlat_put32 (b + EMLAT_FH_FLAGS, 0x10);
  emlat_put32 (b + EMLAT_FH_CRC, emlat_crc32c (0, b, EMLAT_FH_CRC));
  collect_scan (&c, b, f.n, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (c.res.header.minor, 3);
  CHECK_EQ_U64 (c.n_recs, 1);
  CHECK (collect_find (&c, EMLAT_DIAG_HEADER_RESERVED) != NULL, "flags reported");
  free (b);
  craft_free (&f);
  craft_free (&p);
}

/* F-21, F-22, F-26: each framing failure stops at the chunk's offset and
   keeps the chunks before it. */
static void framing_case (const char *name, void (*edit) (uint8_t *h, struct craft *f),
                          enum emlat_stop want, int fix_crc)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_span1 (&p, 1, 1, 1, 1, EMLAT_SPAN_GC); /* 11-byte payload: 5 padding bytes */
  size_t off = craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 3, &p);
  edit (f.b + off, &f);
  if (fix_crc)
    craft_fix_chunk_crc (&f, off);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK (c.res.stop == want, "%s: stop %s, want %s", name, emlat_stop_name (c.res.stop),
         emlat_stop_name (want));
  CHECK (c.res.stop_offset == off, "%s: stop offset %llu, want %zu", name,
         (unsigned long long)c.res.stop_offset, off);
  CHECK (c.res.chunks == 1 && c.n_recs == 1, "%s: kept %llu chunks", name,
         (unsigned long long)c.res.chunks);
  const struct emlat_diag *d = collect_find (&c, EMLAT_DIAG_DAMAGE);
  CHECK (d && d->offset == off && d->a == (uint64_t)want, "%s: damage diagnostic", name);
  craft_free (&f);
  craft_free (&p);
}

static void e_magic (uint8_t *h, struct craft *f) { (void)f; h[0] = 'X'; }
static void e_crc (uint8_t *h, struct craft *f) { (void)f; h[EMLAT_CH_SEQUENCE] ^= 0x40; }
static void e_hsize41 (uint8_t *h, struct craft *f) { (void)f; emlat_put32 (h + EMLAT_CH_HEADER_SIZE, 41); }
static void e_hsize32 (uint8_t *h, struct craft *f) { (void)f; emlat_put32 (h + EMLAT_CH_HEADER_SIZE, 32); }
static void e_hsize_big (uint8_t *h, struct craft *f) { (void)f; emlat_put32 (h + EMLAT_CH_HEADER_SIZE, 4104); }
static void e_stored_big (uint8_t *h, struct craft *f)
{
  (void)f;
  emlat_put32 (h + EMLAT_CH_STORED, (16u << 20) + 8);
  emlat_put32 (h + EMLAT_CH_UNCOMPRESSED, (16u << 20) + 8);
}
static void e_uncompressed (uint8_t *h, struct craft *f) { (void)f; emlat_put32 (h + EMLAT_CH_UNCOMPRESSED, 12); }
static void e_stored_past_end (uint8_t *h, struct craft *f)
{
  (void)f;
  emlat_put32 (h + EMLAT_CH_STORED, 4000);
  emlat_put32 (h + EMLAT_CH_UNCOMPRESSED, 4000);
}
static void e_padding (uint8_t *h, struct craft *f) { (void)f; h[EMLAT_CHUNK_HEADER_SIZE + 11] = 1; }
static void e_payload (uint8_t *h, struct craft *f) { (void)f; h[EMLAT_CHUNK_HEADER_SIZE + 5] ^= 4; }
static void e_cut_header (uint8_t *h, struct craft *f) { f->n = (size_t)(h - f->b) + 39; }
static void e_cut_payload (uint8_t *h, struct craft *f) { f->n = (size_t)(h - f->b) + 45; }

static void test_framing (void)
{
  framing_case ("chunk magic", e_magic, EMLAT_STOP_BAD_MAGIC, 0);
  framing_case ("chunk header CRC", e_crc, EMLAT_STOP_HEADER_CRC, 0);
  framing_case ("header size 41", e_hsize41, EMLAT_STOP_IMPOSSIBLE_SIZE, 1);
  framing_case ("header size 32", e_hsize32, EMLAT_STOP_IMPOSSIBLE_SIZE, 0);
  framing_case ("header size 4104", e_hsize_big, EMLAT_STOP_IMPOSSIBLE_SIZE, 0);
  framing_case ("payload > 16 MiB", e_stored_big, EMLAT_STOP_IMPOSSIBLE_SIZE, 1);
  framing_case ("uncompressed != stored", e_uncompressed, EMLAT_STOP_IMPOSSIBLE_SIZE, 1);
  framing_case ("payload past end", e_stored_past_end, EMLAT_STOP_TRUNCATED_PAYLOAD, 1);
  framing_case ("nonzero padding", e_padding, EMLAT_STOP_NONZERO_PADDING, 0);
  framing_case ("payload CRC", e_payload, EMLAT_STOP_PAYLOAD_CRC, 0);
  framing_case ("cut in header", e_cut_header, EMLAT_STOP_TRUNCATED_HEADER, 0);
  framing_case ("cut in payload", e_cut_payload, EMLAT_STOP_TRUNCATED_PAYLOAD, 0);
}

/* F-21: header sizes past 40 (multiples of 8) are accepted and skipped. */
static void test_long_header (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_span1 (&p, 4, 1, 1, 1, EMLAT_SPAN_GC);
  size_t off = f.n;
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  /* Insert 8 extra header bytes after byte 40 of the chunk. */
  struct craft g = { 0 };
  craft_bytes (&g, f.b, off + EMLAT_CHUNK_HEADER_SIZE);
  static const uint8_t extra[8] = { 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee };
  craft_bytes (&g, extra, 8);
  craft_bytes (&g, f.b + off + EMLAT_CHUNK_HEADER_SIZE, f.n - off - EMLAT_CHUNK_HEADER_SIZE);
  emlat_put32 (g.b + off + EMLAT_CH_HEADER_SIZE, 48);
  craft_fix_chunk_crc (&g, off);
  collect_scan (&c, g.b, g.n, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (c.n_recs, 2);
  CHECK_EQ_U64 (c.recs[1].u.span.id, 4);
  craft_free (&f);
  craft_free (&g);
  craft_free (&p);
}

/* F-2, F-3: varint edge cases through a STATS value (uvarint) and a span
   start delta (svarint). */
static int stats_value (const uint8_t *enc, size_t n, uint64_t *out)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_block (&p, 0, 0, 1);
  craft_uv (&p, 1);
  craft_u8 (&p, 'v');
  craft_uv (&p, EMLAT_KV_UINT);
  craft_bytes (&p, enc, n);
  craft_chunk (&f, EMLAT_CHUNK_STATS, 2, &p);
  collect_scan (&c, f.b, f.n, NULL);
  int ok = c.res.chunks_invalid == 0 && c.n_recs == 2;
  if (ok)
    *out = c.recs[1].u.kv.u;
  craft_free (&f);
  craft_free (&p);
  return ok;
}

static int span_delta (const uint8_t *enc, size_t n, uint64_t *start)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_SPAN_REC_BEGIN);
  craft_uv (&p, EMLAT_SPAN_GC);
  craft_sv (&p, 1);
  craft_sv (&p, 0);
  craft_sv (&p, 0);
  craft_bytes (&p, enc, n);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  collect_scan (&c, f.b, f.n, NULL);
  int ok = c.res.chunks_invalid == 0 && c.n_recs == 2;
  if (ok)
    *start = c.recs[1].u.span.start;
  craft_free (&f);
  craft_free (&p);
  return ok;
}

static void test_varints (void)
{
  uint64_t v = 0;
  static const uint8_t zero[] = { 0x00 }, b127[] = { 0x7f }, b128[] = { 0x80, 0x01 },
    nonshort[] = { 0x81, 0x80, 0x00 },
    max[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
    p63[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 },
    over[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 },
    eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
  CHECK (stats_value (zero, 1, &v) && v == 0, "uvarint 0");
  CHECK (stats_value (b127, 1, &v) && v == 127, "uvarint 127");
  CHECK (stats_value (b128, 2, &v) && v == 128, "uvarint 128");
  CHECK (stats_value (nonshort, 3, &v) && v == 1, "non-shortest uvarint accepted (F-2)");
  CHECK (stats_value (max, 10, &v) && v == UINT64_MAX, "uvarint 2^64-1");
  CHECK (stats_value (p63, 10, &v) && v == (1ull << 63), "uvarint 2^63");
  CHECK (!stats_value (over, 10, &v), "uvarint 10th byte 0x02 rejected");
  CHECK (c.res.chunks_invalid == 1 && c.diags[0].a == EMLAT_INVALID_VARINT, "as bad varint");
  CHECK (!stats_value (eleven, 11, &v), "11-byte uvarint rejected");
  CHECK (c.diags[0].a == EMLAT_INVALID_VARINT, "as bad varint");
  CHECK (!stats_value (b128, 1, &v), "uvarint cut by the payload end");
  CHECK (c.diags[0].a == EMLAT_INVALID_SHORT, "as short payload");

  static const uint8_t m1[] = { 0x7f }, p64[] = { 0xc0, 0x00 }, m65[] = { 0xbf, 0x7f },
    smin[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f },
    smax[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 },
    sbad[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7e };
  CHECK (span_delta (m1, 1, &v) && v == UINT64_MAX, "svarint -1 wraps modulo 2^64 (F-4)");
  CHECK (span_delta (p64, 2, &v) && v == 64, "svarint 64");
  CHECK (span_delta (m65, 2, &v) && v == (uint64_t)-65, "svarint -65");
  CHECK (span_delta (smin, 10, &v) && v == (uint64_t)INT64_MIN, "svarint INT64_MIN");
  CHECK (span_delta (smax, 10, &v) && v == (uint64_t)INT64_MAX, "svarint INT64_MAX");
  CHECK (!span_delta (sbad, 10, &v), "svarint overflowing 64 bits rejected (F-3)");
}

/* F-42: the final STATS chunk is the last chunk. */
static void test_final_stats (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_session (&p, "stats.final", 1);
  craft_chunk (&f, EMLAT_CHUNK_STATS, 2, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.final_stats, 1);
  craft_span1 (&p, 1, 1, 1, 1, EMLAT_SPAN_GC);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 3, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.final_stats, 0);
  craft_free (&f);
  craft_free (&p);
}

/* A limit stops the scan with EMLAT_STOP_LIMIT, not as damage of the file. */
static void test_limit (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_span1 (&p, 1, 1, 1, 1, EMLAT_SPAN_GC);
  size_t off = craft_chunk (&f, EMLAT_CHUNK_SPAN, 2, &p);
  struct emlat_limits lim;
  emlat_limits_default (&lim);
  lim.max_chunk_payload = 8;
  collect_scan (&c, f.b, f.n, &lim);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_LIMIT);
  CHECK_EQ_U64 (c.res.stop_offset, off);
  craft_free (&f);
  craft_free (&p);
}

int main (void)
{
  test_baseline ();
  test_skips ();
  test_invalid ();
  test_string_across_chunks ();
  test_gap_and_session ();
  test_file_header ();
  test_framing ();
  test_long_header ();
  test_varints ();
  test_final_stats ();
  test_limit ();
  TEST_DONE ();
}

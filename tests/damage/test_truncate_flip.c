/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_truncate_flip.c -- damage to a file written by the real recorder.
 *
 *  - Truncated at every byte offset: the scanner returns exactly the chunks
 *    that were complete (and their records), stops at the first incomplete
 *    one with its offset, and calls the end clean only at a chunk boundary
 *    (F-25, F-26).
 *  - Every single-bit flip: in the file header the file is rejected (F-10)
 *    or, in the reserved field, reported (F-12); in a chunk (header,
 *    payload or padding) reading stops exactly at that chunk with every
 *    chunk before it kept (F-26).  Nothing is silently misread.
 *  - The profile loader agrees: a truncated file is damaged, never a crash.
 */
#include <stdio.h>
#include <string.h>

#include "collect.h"
#include "emlat/emlat.h"
#include "format/format.h"
#include "tap.h"
#include "testutil.h"

static struct collect ref, c;

/* A small file with every chunk type the recorder writes in a session:
   SESSION, STRING, INPUT, INTERACTION, SPAN, LOSS (a counter for a span
   that is not open, record_invalid, always; and a tiny ring overflowing,
   when the writer does not keep up with the burst), STATS. */
static int record_sample (const char *path)
{
  struct emlat_options o;
  memset (&o, 0, sizeof o);
  o.path = path;
  o.ring_slots = 64;
  o.stats_interval_ms = 1;
  if (emlat_start (&o) != 0)
    return -1;
  uint64_t sid = emlat_string ("sample", 6);
  for (int k = 0; k < 6; k++)
    {
      uint64_t ix = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      struct emlat_input_batch b;
      memset (&b, 0, sizeof b);
      b.batch_id = emlat_input_batch_id ();
      b.mask = EMLAT_IB_READ_BEGIN | EMLAT_IB_READ_END | EMLAT_IB_BYTES;
      b.t_read_begin = emlat_now ();
      b.t_read_end = b.t_read_begin + 500;
      b.bytes = 1;
      emlat_input_batch (&b);
      emlat_ix_time (ix, EMLAT_T_READ_END, b.t_read_end);
      uint64_t s = emlat_span_begin (EMLAT_SPAN_COMMAND, ix);
      emlat_span_end (emlat_span_begin (EMLAT_SPAN_REDISPLAY, ix), EMLAT_SPAN_OK, sid);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
      emlat_ix_count (ix, EMLAT_C_TTY_BYTES, (uint64_t)k);
      emlat_ix_end (ix, EMLAT_STATUS_NORMAL);
      if (k == 3)
        {
          emlat_span_count ((uint64_t)123456 << 1, EMLAT_C_GC_COUNT, 1); /* LOSS */
          for (int i = 0; i < 200; i++) /* overflow the 64-slot ring: LOSS */
            emlat_span_end (emlat_span_begin (EMLAT_SPAN_GC, 0), EMLAT_SPAN_OK, 0);
        }
      emlat_flush ();
    }
  return emlat_stop () == 0 ? 0 : -1;
}

static size_t chunk_end (const struct emlat_chunk_info *ci)
{
  return (size_t)ci->offset + ci->header_size + ci->stored + EMLAT_PAD8 (ci->stored);
}

/* Records of reference chunks [0, k). */
static size_t records_before (size_t k)
{
  size_t n = 0;
  for (size_t i = 0; i < k; i++)
    n += ref.decoded[i] ? ref.chunks[i].count : 0;
  return n;
}

static void test_truncation (const uint8_t *buf, size_t len)
{
  size_t bad = 0;
  for (size_t l = 0; l < len; l++)
    {
      collect_scan (&c, buf, l, NULL);
      if (l < EMLAT_FILE_HEADER_SIZE)
        {
          if (c.res.stop != EMLAT_STOP_TRUNCATED_HEADER || c.res.header_ok || c.n_recs)
            bad++;
          continue;
        }
      size_t k = 0; /* complete chunks within l bytes */
      while (k < ref.n_chunks && chunk_end (&ref.chunks[k]) <= l)
        k++;
      int boundary = l == EMLAT_FILE_HEADER_SIZE || (k > 0 && chunk_end (&ref.chunks[k - 1]) == l);
      uint64_t want_off = k < ref.n_chunks ? ref.chunks[k].offset : l;
      int ok = c.res.chunks == k && c.n_recs == records_before (k)
               && (boundary ? c.res.stop == EMLAT_STOP_CLEAN && c.res.stop_offset == l
                            : (c.res.stop == EMLAT_STOP_TRUNCATED_HEADER
                               || c.res.stop == EMLAT_STOP_TRUNCATED_PAYLOAD)
                                && c.res.stop_offset == want_off);
      if (!ok && bad++ < 5)
        TEST_DIAG ("truncated at %zu: stop %s @%llu, %llu chunks (want %zu)", l,
                   emlat_stop_name (c.res.stop), (unsigned long long)c.res.stop_offset,
                   (unsigned long long)c.res.chunks, k);
    }
  CHECK (bad == 0, "%zu of %zu truncations misreported", bad, len);
}

static void test_bit_flips (const uint8_t *buf, size_t len)
{
  uint8_t *b = malloc (len);
  memcpy (b, buf, len);
  size_t bad = 0, flips = 0;
  for (size_t byte = 0; byte < len; byte++)
    for (int bit = 0; bit < 8; bit++)
      {
        flips++;
        b[byte] ^= (uint8_t)(1u << bit);
        collect_scan (&c, b, len, NULL);
        int ok;
        if (byte >= EMLAT_FH_RESERVED && byte < EMLAT_FILE_HEADER_SIZE)
          /* Not covered by the CRC: must be reported, and nothing else changes. */
          ok = c.res.stop == EMLAT_STOP_CLEAN && c.res.chunks == ref.n_chunks
               && collect_find (&c, EMLAT_DIAG_HEADER_RESERVED) != NULL;
        else if (byte < EMLAT_FILE_HEADER_SIZE)
          ok = !c.res.header_ok && c.res.stop != EMLAT_STOP_CLEAN && c.n_recs == 0;
        else
          {
            size_t k = 0;
            while (k < ref.n_chunks && chunk_end (&ref.chunks[k]) <= byte)
              k++;
            ok = c.res.stop != EMLAT_STOP_CLEAN && c.res.stop_offset == ref.chunks[k].offset
                 && c.res.chunks == k && c.n_recs == records_before (k);
          }
        if (!ok && bad++ < 5)
          TEST_DIAG ("flip byte %zu bit %d: stop %s @%llu, %llu chunks", byte, bit,
                     emlat_stop_name (c.res.stop), (unsigned long long)c.res.stop_offset,
                     (unsigned long long)c.res.chunks);
        b[byte] ^= (uint8_t)(1u << bit);
      }
  CHECK (bad == 0, "%zu of %zu bit flips not detected at their chunk", bad, flips);
  free (b);
}

static void test_profile_truncated (const char *dir, const uint8_t *buf)
{
  char *path = tu_strf ("%s/cut.emlat", dir);
  /* Cut inside the last chunk: the session did not stop cleanly. */
  size_t cut = (size_t)ref.chunks[ref.n_chunks - 1].offset + 20;
  CHECK_OK (tu_write_file (path, buf, cut));
  struct emlat_profile *p = NULL;
  const char *paths[] = { path };
  CHECK_OK (emlat_profile_load (paths, 1, NULL, 0, &p));
  if (p)
    {
      const struct emlat_profile_totals *t = emlat_profile_totals (p);
      CHECK_EQ_U64 (t->damaged_files, 1);
      CHECK_EQ_U64 (t->clean_stop, 0);
      CHECK_EQ_U64 (t->chunks, ref.n_chunks - 1);
      size_t nf;
      const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
      CHECK_EQ_U64 (f[0].scan.stop, EMLAT_STOP_TRUNCATED_HEADER);
      CHECK_EQ_U64 (f[0].scan.stop_offset, ref.chunks[ref.n_chunks - 1].offset);
      emlat_profile_free (p);
    }
  free (path);
}

int main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    TEST_DONE ();
  char *path = tu_strf ("%s/sample.emlat", dir);
  CHECK_OK (record_sample (path));
  uint8_t *buf = NULL;
  size_t len = 0;
  CHECK_OK (tu_read_file (path, &buf, &len));
  if (!buf)
    TEST_DONE ();
  collect_scan (&ref, buf, len, NULL);
  CHECK_EQ_U64 (ref.res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (ref.res.chunks_invalid, 0);
  CHECK_EQ_U64 (ref.res.final_stats, 1);
  for (unsigned t = EMLAT_CHUNK_SESSION; t <= EMLAT_CHUNK_STATS; t++)
    CHECK (ref.res.chunks_by_type[t] > 0, "sample has a %s chunk", emlat_chunk_type_name (t));
  TEST_DIAG ("sample: %zu bytes, %zu chunks, %zu records", len, ref.n_chunks, ref.n_recs);
  test_truncation (buf, len);
  test_bit_flips (buf, len);
  test_profile_truncated (dir, buf);
  free (buf);
  free (path);
  TEST_DONE ();
}

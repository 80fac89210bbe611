/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_rotation.c -- the writer side of rotation (FORMAT.md F-41, F-80..F-82):
 * by size and on request, files are named NAME.N.emlat, share the session
 * UUID, carry consecutive rotation numbers, each starts with a SESSION chunk
 * followed by every string defined so far, chunk sequences continue across
 * files without a gap, and no span id appears twice in the set.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

int
main (void)
{
  const char *dir = tu_tmpdir ();
  char *base = tu_strf ("%s/rot.emlat", dir);
  struct emlat_options o = { .path = base, .rotate_bytes = 64 * 1024, .chunk_bytes = 4096,
                             .ring_slots = 1u << 16 };
  CHECK_EQ_I64 (emlat_start (&o), 0);
  uint64_t str = emlat_string ("rotation-detail", 15);
  enum { PAIRS = 60000 };
  for (int i = 0; i < PAIRS; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
      emlat_span_end (s, EMLAT_SPAN_OK, str);
      if (i % 5000 == 0)
        emlat_flush ();
    }
  CHECK_EQ_I64 (emlat_rotate (), 0);
  uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
  emlat_span_end (s, EMLAT_SPAN_OK, str);
  struct emlat_status st;
  emlat_status (&st);
  CHECK_EQ_I64 (emlat_stop (), 0);
  TEST_DIAG ("%llu files, %llu bytes", (unsigned long long)st.files,
             (unsigned long long)st.bytes_written);
  CHECK_GE_U64 (st.files, 4);

  uint8_t uuid0[16];
  uint64_t next_seq = 1, spans = 0, dups = 0;
  uint64_t seen_bits = 4 * PAIRS;
  uint8_t *seen = calloc (seen_bits / 8 + 1, 1);
  for (uint64_t f = 0; f < st.files + 1; f++)
    {
      char *path = f == 0 ? tu_strf ("%s", base) : tu_strf ("%s/rot.%llu.emlat", dir, (unsigned long long)f);
      if (f == st.files)
        {
          CHECK (access (path, F_OK) != 0, "no file past the last rotation");
          free (path);
          break;
        }
      struct tally t;
      struct emlat_scan_result res;
      CHECK_EQ_I64 (tally_file (path, &t, seen_bits, &res), 0);
      CHECK_EQ_U64 (res.stop, EMLAT_STOP_CLEAN);
      CHECK_EQ_U64 (res.header.rotation, f);
      CHECK_EQ_U64 (res.missing_session, 0);
      CHECK_EQ_U64 (res.session_chunks, 1);
      CHECK_GE_U64 (t.strings, 1); /* the dictionary is repeated in each file */
      CHECK_EQ_U64 (res.first_sequence, next_seq);
      CHECK_EQ_U64 (res.sequence_gaps, 0);
      next_seq = res.last_sequence + 1;
      if (f == 0)
        memcpy (uuid0, res.header.uuid, 16);
      else
        CHECK_EQ_MEM (res.header.uuid, uuid0, 16);
      CHECK_EQ_U64 (res.final_stats, f == st.files - 1);
      if (f + 1 < st.files)
        CHECK_LE_U64 (res.file_bytes, o.rotate_bytes + 8192);
      /* Span ids across files: merge this file's bitmap into the set. */
      for (uint64_t i = 0; i < seen_bits / 8 + 1; i++)
        {
          if (seen[i] & t.seen[i])
            dups++;
          seen[i] |= t.seen[i];
        }
      spans += t.span_complete + t.span_begin;
      tally_free (&t);
      free (path);
    }
  CHECK_EQ_U64 (spans, PAIRS + 1);
  CHECK_EQ_U64 (dups, 0);
  free (seen);
  free (base);
  TEST_DONE ();
}

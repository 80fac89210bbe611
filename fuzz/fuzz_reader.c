/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_reader.c -- libFuzzer target for the reader: the scanner and the
 * profile loader (with the per-interaction span re-scan) on arbitrary bytes
 * under strict limits.
 *
 * Invariants checked beyond "no crash, no leak, no UB": the scanner stops
 * within the input and never reports more bytes read than given; a clean
 * stop ends exactly at the end of the input (F-25); every interaction's
 * absent fields read as absent; the spans re-scanned for an interaction
 * are its own, in start order; the profile holds the input's bytes as
 * given.  The input is loaded from memory (emlat_profile_load_buffers,
 * lent, no copy), so a run costs what decoding costs.  The low bits of
 * the input's length choose the shape of the run: odd lengths are loaded
 * as a set of the same file twice, a repeated rotation (F-81); lengths
 * with bit 1 set are read with their CRCs recomputed (fuzz_repair.h), so
 * that mutations reach the decoder, the others as they are, so that they
 * reach the CRC checks.
 * Also built without libFuzzer by tests/reader/test_fuzz_corpus.c, which
 * replays the corpus through emlat_fuzz_reader_one.
 */
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_reader.h"
#include "fuzz_repair.h"

int emlat_fuzz_reader_one (const uint8_t *data, size_t size);
#ifndef EMLAT_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
#endif

static void reader_limits (struct emlat_limits *l)
{
  emlat_limits_default (l);
  l->max_file_bytes = 1 << 20;
  l->max_chunk_payload = 1 << 20;
  l->max_files = 4;
  l->max_interactions = 1000;
  l->max_spans = 4000;
  l->max_open_spans = 500;
  l->max_strings = 500;
  l->max_string_bytes = 64 << 10;
  l->max_input_batches = 1000;
  l->max_losses = 100;
  l->max_diagnostics = 200;
  l->max_alloc_bytes = 16 << 20;
}

static int count_record (void *ctx, const struct emlat_chunk_info *ci, const struct emlat_record *r)
{
  (void)ci;
  (void)r;
  ++*(uint64_t *)ctx;
  return 0;
}

static void reader_one (const uint8_t *data, size_t size)
{
  struct emlat_limits lim;
  reader_limits (&lim);

  struct emlat_scan_params sp;
  struct emlat_scan_result res;
  uint64_t n = 0;
  memset (&sp, 0, sizeof sp);
  sp.limits = &lim;
  sp.visitor.ctx = &n;
  sp.visitor.on_record = count_record;
  if (emlat_scan (data, size, &sp, &res) != 0)
    abort ();
  if (res.stop_offset > size || n != res.records)
    abort ();
  if (res.stop == EMLAT_STOP_CLEAN && res.stop_offset != size)
    abort ();

  /* The same file twice: a repeated rotation sequence (F-81). */
  struct emlat_buffer files[2] = { { .data = data, .len = size, .name = "a" },
                                   { .data = data, .len = size, .name = "b" } };
  struct emlat_profile *p;
  if (emlat_profile_load_buffers (files, 1 + (size & 1), &lim, EMLAT_LOAD_SPANS, &p) == 0)
    {
      size_t len;
      const uint8_t *held = emlat_profile_file_data (p, 0, &len);
      if (held && size && (held != data || len != size))
        abort ();
      size_t nix;
      const struct emlat_interaction *ix = emlat_profile_interactions (p, &nix);
      for (size_t i = 0; i < nix; i++)
        {
          uint64_t v;
          for (unsigned t = 0; t < EMLAT_T_FIELD_COUNT; t++)
            if (emlat_profile_ix_time (p, &ix[i], (enum emlat_time_field)t, &v, NULL)
                != !!(ix[i].time_mask & (1u << t)))
              abort ();
          size_t na;
          emlat_profile_ix_aggs (p, &ix[i], &na);
        }
      /* One interaction's spans, re-scanned: each re-scan decodes the
         whole set again, and one exercises the same code as many. */
      struct emlat_span_set set;
      if (nix && emlat_profile_ix_spans (p, ix[size % nix].cause, &set) == 0)
        {
          for (size_t i = 0; i < set.n; i++)
            if (set.spans[i].cause != ix[size % nix].cause
                || (i && set.spans[i].start < set.spans[i - 1].start))
              abort ();
          emlat_span_set_free (&set);
        }
      size_t ns;
      const uint64_t *pool;
      const struct emlat_span *s = emlat_profile_spans (p, &ns, &pool);
      for (size_t i = 0; i < ns; i++)
        {
          uint64_t v;
          for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
            emlat_span_counter (&s[i], pool, (enum emlat_counter)c, &v);
        }
      size_t nd;
      const struct emlat_diag *d = emlat_profile_diags (p, &nd);
      char buf[256];
      for (size_t i = 0; i < nd; i++)
        emlat_diag_format (&d[i], buf, sizeof buf);
      emlat_profile_free (p);
    }
}

int emlat_fuzz_reader_one (const uint8_t *data, size_t size)
{
  uint8_t *repaired = size & 2 ? fuzz_repair_crcs (data, size) : NULL;
  reader_one (repaired ? repaired : data, size);
  free (repaired);
  return 0;
}

#ifndef EMLAT_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return emlat_fuzz_reader_one (data, size);
}
#endif

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_report.c -- libFuzzer target for `emlat report` on arbitrary
 * profiles: the input, its CRCs recomputed (fuzz_repair.h; the CRC
 * checks themselves are the reader target's), is loaded from memory under
 * strict small limits, then analysed as cmd_report.c does (tail pick,
 * report model, waterfall of the tail interaction and of the first one,
 * overhead) and rendered as text and as JSON (src/render) into /dev/null.
 *
 * Invariants checked beyond "no crash, no leak, no UB": the analysis
 * succeeds on whatever the reader accepted (no -ENOMEM under these
 * limits); the tail, when there is one, is an interaction of the profile
 * and its rank lies within 1..n; a waterfall is built for every
 * interaction asked for; the JSON writer ends balanced (report_json
 * returns 0); the work by name (emlat_report_names_build) is built, and
 * compared with itself, for a profile that says it records names, and
 * counts every interaction once.  The low bits of the input's length choose the text
 * options (Unicode bars, per-interaction JSON) so both paths are run.
 * Seeded with fuzz/corpus/report and the reader's corpus.  Also built
 * without libFuzzer by tests/reader/test_fuzz_corpus.c, which replays the
 * corpora through emlat_fuzz_report_one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"
#include "fuzz_repair.h"
#include "render/report_render.h"

int emlat_fuzz_report_one (const uint8_t *data, size_t size);
#ifndef EMLAT_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
#endif

static void report_limits (struct emlat_limits *l)
{
  emlat_limits_default (l);
  l->max_file_bytes = 1 << 20;
  l->max_chunk_payload = 1 << 20;
  l->max_files = 2;
  l->max_interactions = 500;
  l->max_spans = 2000;
  l->max_open_spans = 200;
  l->max_strings = 200;
  l->max_string_bytes = 32 << 10;
  l->max_input_batches = 500;
  l->max_losses = 50;
  l->max_diagnostics = 100;
  l->max_alloc_bytes = 16 << 20;
}

/* Where the renderers write: opened once per process. */
static FILE *sink (void)
{
  static FILE *f;
  if (!f && !(f = fopen ("/dev/null", "w")))
    abort ();
  return f;
}

/* Build the waterfall of CAUSE, which P has: it must succeed. */
static void waterfall_of (const struct emlat_profile *p, uint64_t cause,
                          struct emlat_report_waterfall *w)
{
  if (!emlat_profile_find_interaction (p, cause))
    abort ();
  if (emlat_report_waterfall_build (p, cause, w) != 0)
    abort ();
}

static void analyse_and_render (const struct emlat_profile *p, size_t size)
{
  struct emlat_report_tail tail;
  if (emlat_report_tail_pick (p, &tail) != 0)
    abort ();
  if (tail.has && (tail.rank < 1 || tail.rank > tail.n || tail.n_slow > EMLAT_REPORT_SLOWEST
                   || !emlat_profile_find_interaction (p, tail.cause)))
    abort ();
  struct emlat_report_model m;
  if (emlat_report_model_build (p, &m) != 0)
    abort ();
  m.tail = tail;
  struct report_ctx ctx = { .p = p, .m = &m, .damaged = emlat_report_damaged (p),
                            .unicode = (int)(size & 1), .per_interaction = (int)(size >> 1 & 1) };
  emlat_report_overhead_of (p, &ctx.ovh);
  struct emlat_report_names names;
  if (emlat_report_names_build (p, &names) != 0)
    abort ();
  if (names.has && names.named + names.unnamed != m.n_ix)
    abort ();
  ctx.names = &names;
  struct emlat_report_name_comparison nc;
  if (emlat_report_compare_names (p, &names, p, &names, 100, 1, &nc) != 0)
    abort ();
  emlat_report_name_comparison_free (&nc);
  struct emlat_report_waterfall w, first;
  int have_w = 0, have_first = 0;
  if (tail.has)
    {
      waterfall_of (p, tail.cause, &w);
      have_w = 1;
      ctx.w = &w;
      ctx.w_why = "tail";
    }
  FILE *f = sink ();
  report_text (&ctx, f);
  if (report_json (&ctx, f) != 0)
    abort ();
  /* The waterfall of an interaction the user names (--interaction). */
  size_t nix;
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &nix);
  if (nix)
    {
      waterfall_of (p, ix[0].cause, &first);
      have_first = 1;
      ctx.w = &first;
      ctx.w_why = "requested";
      report_text (&ctx, f);
    }
  if (have_first)
    emlat_report_waterfall_free (&first);
  if (have_w)
    emlat_report_waterfall_free (&w);
  emlat_report_names_free (&names);
  emlat_report_model_free (&m);
}

int emlat_fuzz_report_one (const uint8_t *data, size_t size)
{
  struct emlat_limits lim;
  report_limits (&lim);
  uint8_t *repaired = fuzz_repair_crcs (data, size);
  struct emlat_buffer file = { .data = repaired, .len = size, .name = "fuzz" };
  struct emlat_profile *p;
  if (emlat_profile_load_buffers (&file, 1, &lim, 0, &p) == 0)
    {
      if (emlat_report_usable (p))
        analyse_and_render (p, size);
      emlat_profile_free (p);
    }
  free (repaired);
  return 0;
}

#ifndef EMLAT_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return emlat_fuzz_report_one (data, size);
}
#endif

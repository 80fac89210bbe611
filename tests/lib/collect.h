/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * collect.h -- a scanner visitor for tests that keeps what it was told:
 * chunk headers (with their decoded flag), records and diagnostics, in
 * order, in fixed arrays (tests scan small files).  Header-only; used by
 * tests/reader and tests/damage (hence in tests/lib).
 */
#ifndef EMLAT_TEST_COLLECT_H
#define EMLAT_TEST_COLLECT_H

#include <string.h>

#include "emlat/emlat_reader.h"

#define COLLECT_MAX 4096

struct collect
{
  struct emlat_chunk_info chunks[COLLECT_MAX];
  int decoded[COLLECT_MAX];
  size_t n_chunks;
  struct emlat_record recs[COLLECT_MAX];
  size_t n_recs;
  struct emlat_diag diags[COLLECT_MAX];
  size_t n_diags;
  struct emlat_scan_result res;
};

static inline int collect_chunk (void *ctx, const struct emlat_chunk_info *ci, int decoded)
{
  struct collect *c = ctx;
  if (c->n_chunks < COLLECT_MAX)
    {
      c->chunks[c->n_chunks] = *ci;
      c->decoded[c->n_chunks++] = decoded;
    }
  return 0;
}

static inline int collect_record (void *ctx, const struct emlat_chunk_info *ci,
                           const struct emlat_record *r)
{
  struct collect *c = ctx;
  (void)ci;
  if (c->n_recs < COLLECT_MAX)
    c->recs[c->n_recs++] = *r;
  return 0;
}

static inline void collect_diag (void *ctx, const struct emlat_diag *d)
{
  struct collect *c = ctx;
  if (c->n_diags < COLLECT_MAX)
    c->diags[c->n_diags++] = *d;
}

/* Scan BUF[0..LEN) into C (reset first); LIM may be NULL. */
static inline void collect_scan (struct collect *c, const uint8_t *buf, size_t len,
                          const struct emlat_limits *lim)
{
  memset (c, 0, sizeof *c);
  struct emlat_scan_params p;
  memset (&p, 0, sizeof p);
  p.limits = lim;
  p.visitor.ctx = c;
  p.visitor.on_chunk = collect_chunk;
  p.visitor.on_record = collect_record;
  p.visitor.on_diag = collect_diag;
  emlat_scan (buf, len, &p, &c->res);
}

/* The first diagnostic of KIND, or NULL. */
static inline const struct emlat_diag *collect_find (const struct collect *c, enum emlat_diag_kind kind)
{
  for (size_t i = 0; i < c->n_diags; i++)
    if (c->diags[i].kind == kind)
      return &c->diags[i];
  return NULL;
}

#endif /* EMLAT_TEST_COLLECT_H */

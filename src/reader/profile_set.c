/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_set.c -- the files of one session into one struct emlat_profile,
 * wherever they come from (profile_source.h).
 *
 * Steps, one function each:
 *  1. take_files: ask the source for each file in input order and take a
 *     first look at it: a regular file (a path, a descriptor) only for its
 *     identity, size and 64-byte header -- it is streamed by every scan,
 *     never held (profile_files.c); a stream is read into memory header
 *     first; a buffer is kept as handed over.  A buffer or stream longer
 *     than max_file_bytes or than what the allocation budget has left is
 *     refused, and that limit stops taking files (the rest are skipped,
 *     ECANCELED).  Every byte held is charged to the budget, whether the
 *     reader read it or was handed it.
 *  2. order_by_rotation: the session is that of the first file with a
 *     valid header (F-81); its files come first in rotation order, the
 *     others after, in input order.
 *  3. place_in_set: per file, a repeated rotation is ignored, a missing
 *     one reported (F-81), start times compared with the first (F-13);
 *     files of other sessions are reported and ignored.
 *  4. scan_file: the session's files are scanned with the record visitor
 *     (profile_load.c), the chunk sequence continuing from one file to the
 *     next (F-23) unless a rotation is missing between them.
 *  5. emlat_profile_finish (profile_finish.c).
 *
 * Invariants: each file the source hands over is released exactly once
 * (at once when refused, else by emlat_profile_free); the loader never
 * reads more of a stream than it may still allocate, nor holds a regular
 * file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_reader.h"
#include "reader/limits.h"
#include "reader/profile.h"
#include "reader/profile_source.h"
#include "reader/readfile.h"

static void release_buffer (const struct emlat_buffer *b)
{
  if (b->release)
    b->release (b->release_ctx, b->data, b->len);
}

/* Skip files FROM.. of SRC (released, not listed). */
static void skip_from (const struct emlat_source *src, size_t from)
{
  for (size_t i = from; i < src->n; i++)
    src->skip (src->ctx, i);
}

static struct emlat_profile *profile_new (const struct emlat_limits *lim, unsigned flags)
{
  struct emlat_profile *p = calloc (1, sizeof *p);
  if (!p)
    return NULL;
  emlat_limits_resolve (lim, &p->lim);
  p->flags = flags;
  p->budget.limit = p->lim.max_alloc_bytes;
  p->join.budget = &p->budget;
  p->join.max_open = p->lim.max_open_spans < UINT32_MAX ? p->lim.max_open_spans : UINT32_MAX;
  return p;
}

/* ------------------------------------------------------------------ */
/* 1. Taking the files                                                 */

/* Refuse file I at limit WHAT: loading stops. */
static void refuse (struct emlat_profile *p, size_t i, const char *what)
{
  p->files[i].read_error = EFBIG;
  p->cur_file = (uint32_t)i;
  emlat_profile_limit (p, what);
}

/* Keep buffer B as file I, or refuse it at a limit.  BUDGET_TIGHTER: the
   stream was read with no more than the budget has left, less than
   max_file_bytes; its EFBIG then names the budget. */
static void keep_or_refuse (struct emlat_profile *p, size_t i, const struct emlat_buffer *b,
                            int budget_tighter)
{
  struct emlat_pfile *f = &p->files[i];
  const char *limit = NULL;
  if (b->error == EFBIG)
    limit = budget_tighter ? "max_alloc_bytes (file buffers)" : "max_file_bytes";
  else if (b->error)
    f->read_error = b->error;
  else if (!b->data && b->len)
    f->read_error = EINVAL;
  else if (b->len > p->lim.max_file_bytes)
    limit = "max_file_bytes";
  else if (emlat_budget_take (&p->budget, b->len))
    limit = "max_alloc_bytes (file buffers)";
  if (limit)
    refuse (p, i, limit);
  if (f->read_error)
    {
      release_buffer (b);
      return;
    }
  f->buf = b->data ? b->data : emlat_pfile_empty ();
  f->len = b->len;
  f->release = b->release;
  f->release_ctx = b->release_ctx;
  f->header_ok = emlat_parse_file_header (f->buf, f->len, &f->header) == EMLAT_STOP_CLEAN;
}

/* Release function of streams the loader read with malloc. */
static void release_malloced (void *ctx, const uint8_t *data, size_t len)
{
  (void)ctx;
  (void)len;
  free ((void *)data);
}

/* Read the stream FD into memory, header first (readfile.h), as file I. */
static void take_stream (struct emlat_profile *p, size_t i, int fd)
{
  uint64_t left = p->budget.limit - p->budget.used;
  int budget_tighter = left < p->lim.max_file_bytes;
  struct emlat_buffer b;
  memset (&b, 0, sizeof b);
  uint8_t *buf;
  int rc = emlat_read_profile_stream (fd, budget_tighter ? left : p->lim.max_file_bytes, &buf,
                                      &b.len);
  if (rc)
    b.error = -rc;
  else
    {
      b.data = buf;
      b.release = release_malloced;
    }
  keep_or_refuse (p, i, &b, budget_tighter);
}

/* Take file I from SRC into P->files[I].  Returns 0 or -ENOMEM. */
static int take_file (struct emlat_profile *p, const struct emlat_source *src, size_t i)
{
  struct emlat_pfile *f = &p->files[i];
  f->fd = -1;
  if (p->stop_all)
    {
      const char *name = src->skip (src->ctx, i);
      f->read_error = ECANCELED;
      f->path = strdup (name ? name : "");
      return f->path ? 0 : -ENOMEM;
    }
  struct emlat_source_file sf;
  memset (&sf, 0, sizeof sf);
  sf.fd = -1;
  src->fetch (src->ctx, i, &sf);
  const char *name = sf.kind == EMLAT_SOURCE_MEMORY ? sf.mem.name : sf.name;
  f->path = strdup (name ? name : "");
  if (!f->path)
    {
      if (sf.kind == EMLAT_SOURCE_MEMORY)
        release_buffer (&sf.mem);
      return -ENOMEM;
    }
  int rc;
  switch (sf.kind)
    {
    case EMLAT_SOURCE_MEMORY:
      keep_or_refuse (p, i, &sf.mem, 0);
      break;
    case EMLAT_SOURCE_PATH:
      rc = sf.path ? emlat_pfile_open_path (f, sf.path) : -EINVAL;
      f->read_error = rc < 0 ? -rc : 0;
      break;
    case EMLAT_SOURCE_FD:
      rc = emlat_pfile_open_fd (f, sf.fd);
      if (rc == 1)
        take_stream (p, i, sf.fd);
      else
        f->read_error = rc < 0 ? -rc : 0;
      break;
    }
  return 0;
}

/* Take every file of SRC (up to max_files).  Returns 0 or -ENOMEM; on
   either, every file of SRC was fetched or skipped. */
static int take_files (struct emlat_profile *p, const struct emlat_source *src)
{
  size_t n = src->n;
  if (n > p->lim.max_files)
    {
      emlat_profile_limit (p, "max_files");
      n = (size_t)p->lim.max_files;
    }
  p->files = calloc (n, sizeof *p->files);
  p->summaries = calloc (n, sizeof *p->summaries);
  if (!p->files || !p->summaries)
    {
      skip_from (src, 0);
      return -ENOMEM;
    }
  p->n_files = n;
  for (size_t i = 0; i < n; i++)
    if (take_file (p, src, i) != 0)
      {
        skip_from (src, i + 1);
        return -ENOMEM;
      }
  skip_from (src, n);
  return 0;
}

/* ------------------------------------------------------------------ */
/* 2. Ordering                                                         */

struct order
{
  size_t input;   /* index in input order */
  int group;      /* 0 this session, 1 ignored */
  uint64_t rotation;
};

static int cmp_order (const void *a, const void *b)
{
  const struct order *x = a, *y = b;
  if (x->group != y->group)
    return x->group - y->group;
  if (x->group == 0 && x->rotation != y->rotation)
    return x->rotation < y->rotation ? -1 : 1;
  return x->input < y->input ? -1 : x->input > y->input;
}

/* Mark the session's files and sort P->files (F-81).  Returns 0 or
   -ENOMEM. */
static int order_by_rotation (struct emlat_profile *p)
{
  size_t n = p->n_files;
  const struct emlat_pfile *first = NULL;
  for (size_t i = 0; i < n && !first; i++)
    if (p->files[i].header_ok)
      first = &p->files[i];
  struct order *ord = calloc (n, sizeof *ord);
  struct emlat_pfile *sorted = calloc (n, sizeof *sorted);
  if (!ord || !sorted)
    {
      free (ord);
      free (sorted);
      return -ENOMEM;
    }
  for (size_t i = 0; i < n; i++)
    {
      struct emlat_pfile *f = &p->files[i];
      f->in_session = f->header_ok && memcmp (f->header.uuid, first->header.uuid, 16) == 0;
      ord[i].input = i;
      ord[i].rotation = f->header.rotation;
      ord[i].group = !f->in_session;
    }
  qsort (ord, n, sizeof *ord, cmp_order);
  for (size_t i = 0; i < n; i++)
    sorted[i] = p->files[ord[i].input];
  free (ord);
  free (p->files);
  p->files = sorted;
  return 0;
}

/* ------------------------------------------------------------------ */
/* 3. and 4. Each file in its place                                    */

/* Walking the set in rotation order. */
struct set_walk
{
  uint64_t expect_rotation; /* the next rotation sequence (F-81) */
  uint64_t last_seq;        /* last chunk sequence of the previous file */
  int chained;              /* the previous file was read and no rotation
                               is missing since: sequences continue */
};

/* Rotation and start-time checks of file I; sets its summary's ignored. */
static void place_in_set (struct emlat_profile *p, size_t i, struct set_walk *w)
{
  const struct emlat_pfile *f = &p->files[i];
  struct emlat_file_summary *sum = &p->summaries[i];
  if (!f->in_session)
    {
      if (f->header_ok)
        {
          sum->ignored = 1;
          emlat_profile_diag (p, EMLAT_DIAG_MIXED_SESSION, (uint32_t)i, 0, 0, 0, "");
        }
      return;
    }
  if (f->header.rotation < w->expect_rotation) /* F-81: repeated */
    {
      sum->ignored = 1;
      emlat_profile_diag (p, EMLAT_DIAG_ROTATION_DUPLICATE, (uint32_t)i, 0, f->header.rotation,
                          0, "");
      return;
    }
  if (f->header.rotation > w->expect_rotation) /* F-81: missing */
    {
      emlat_profile_diag (p, EMLAT_DIAG_ROTATION_MISSING, (uint32_t)i, 0, w->expect_rotation,
                          f->header.rotation - 1, "");
      w->chained = 0;
    }
  w->expect_rotation = f->header.rotation + 1;
  if (!p->have_header)
    {
      p->have_header = 1;
      p->header = f->header;
    }
  else if (f->header.realtime_start != p->header.realtime_start
           || f->header.monotonic_start != p->header.monotonic_start) /* F-13 */
    emlat_profile_diag (p, EMLAT_DIAG_START_MISMATCH, (uint32_t)i, 0, f->header.realtime_start,
                        f->header.monotonic_start, "");
}

/* Scan file I: into the profile when it is one of the session's, else only
   for its summary (and, when its header is unreadable, its damage). */
static void scan_file (struct emlat_profile *p, size_t i, struct set_walk *w)
{
  const struct emlat_pfile *f = &p->files[i];
  struct emlat_file_summary *sum = &p->summaries[i];
  sum->path = f->path;
  sum->read_error = f->read_error;
  if (f->read_error)
    return;
  struct emlat_scan_params sp;
  memset (&sp, 0, sizeof sp);
  sp.limits = &p->lim;
  sp.file_index = (uint32_t)i;
  int use = f->in_session && !sum->ignored && !p->stop_all;
  if (use)
    {
      emlat_profile_visitor (p, &sp.visitor);
      /* F-23 across files: continue from the previous file's last chunk. */
      if (w->chained && w->last_seq)
        sp.expect_sequence = w->last_seq + 1;
    }
  else if (!f->header_ok)
    {
      /* Unreadable header: report its damage like any other file's. */
      struct emlat_scan_visitor v;
      emlat_profile_visitor (p, &v);
      sp.visitor.ctx = v.ctx;
      sp.visitor.on_diag = v.on_diag;
    }
  int rc = emlat_pfile_scan (f, &sp, &sum->scan, &p->budget);
  if (rc < 0)
    {
      /* The file changed since its first look, or cannot be opened again. */
      memset (&sum->scan, 0, sizeof sum->scan);
      sum->read_error = -rc;
      return;
    }
  if (!use)
    return;
  p->totals.files_read++;
  if (sum->scan.stop == EMLAT_STOP_LIMIT)
    emlat_profile_limit (p, "scanner limit (max_chunk_payload, max_strings)");
  if (sum->scan.chunks)
    w->last_seq = sum->scan.last_sequence;
  w->chained = 1;
}

/* ------------------------------------------------------------------ */

int emlat_profile_load_source (const struct emlat_source *src, const struct emlat_limits *lim,
                               unsigned flags, struct emlat_profile **out)
{
  if (!src)
    return -EINVAL;
  if (!out || src->n == 0)
    {
      skip_from (src, 0);
      return -EINVAL;
    }
  *out = NULL;
  struct emlat_profile *p = profile_new (lim, flags);
  if (!p)
    {
      skip_from (src, 0);
      return -ENOMEM;
    }
  if (flags & EMLAT_LOAD_STREAM)
    {
      emlat_profile_stream_init (p);
      p->deliver = src->deliver;
      p->deliver_ctx = src->deliver_ctx;
    }
  int rc = take_files (p, src);
  if (rc == 0)
    rc = order_by_rotation (p);
  if (rc != 0)
    {
      emlat_profile_free (p);
      return rc;
    }
  struct set_walk w = { 0, 0, 0 };
  for (size_t i = 0; i < p->n_files; i++)
    {
      p->cur_file = (uint32_t)i;
      place_in_set (p, i, &w);
      scan_file (p, i, &w);
    }
  if (!p->deliver_rc)
    emlat_profile_finish (p);
  if (p->deliver_rc)
    {
      /* The receiver of the interactions stopped the load. */
      rc = p->deliver_rc;
      emlat_profile_free (p);
      return rc;
    }
  *out = p;
  return 0;
}

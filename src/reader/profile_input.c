/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_input.c -- the public ways into a profile, one source each
 * (profile_source.h), all loaded by emlat_profile_load_source:
 *
 *   emlat_profile_load          paths (regular files, streamed);
 *   emlat_profile_load_buffers  buffers the caller holds or hands over;
 *   emlat_profile_load_fd       one descriptor: a regular file streamed,
 *                               a stream read to its end, bounded;
 *   emlat_profile_load_inputs   paths and descriptors mixed;
 *
 * and the ways back to a loaded set's files: emlat_profile_file_data (the
 * bytes a profile holds in memory) and emlat_profile_rescan (any file,
 * read again).  The same bytes give the same profile through any of them:
 * the sources differ only in where the bytes come from, who releases
 * them, and what is charged to the budget for holding them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_reader.h"
#include "reader/profile.h"
#include "reader/profile_source.h"

/* ------------------------------------------------------------------ */
/* Paths                                                               */

static void path_fetch (void *ctx, size_t i, struct emlat_source_file *out)
{
  const char *const *paths = ctx;
  out->kind = EMLAT_SOURCE_PATH;
  out->name = out->path = paths[i];
}

static const char *path_skip (void *ctx, size_t i)
{
  return ((const char *const *)ctx)[i];
}

/* A ring file left by the recording process holds what the files lack:
   write it into them first (recover.c).  A session still recording
   (-EBUSY), or a ring file recovery cannot use, leaves the files as they
   are; the first file of a set finds the ring file, the others none. */
static void recover_first (const char *path, unsigned flags)
{
  if (path && !(flags & EMLAT_LOAD_NO_RECOVER))
    emlat_recover (path, 0);
}

EMLAT_API int emlat_profile_load (const char *const *paths, size_t n,
                                  const struct emlat_limits *lim, unsigned flags,
                                  struct emlat_profile **out)
{
  if (!paths)
    return -EINVAL;
  for (size_t i = 0; i < n; i++)
    recover_first (paths[i], flags);
  if (!(flags & EMLAT_LOAD_NO_RECOVER))
    emlat_recover_sweep ();
  struct emlat_source src = { (void *)paths, n, path_fetch, path_skip, NULL, NULL };
  return emlat_profile_load_source (&src, lim, flags, out);
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */

#define MEMORY_NAME "(memory)"

static void buffer_fetch (void *ctx, size_t i, struct emlat_source_file *out)
{
  out->kind = EMLAT_SOURCE_MEMORY;
  out->mem = ((const struct emlat_buffer *)ctx)[i];
  if (!out->mem.name)
    out->mem.name = MEMORY_NAME;
}

static const char *buffer_skip (void *ctx, size_t i)
{
  const struct emlat_buffer *b = &((const struct emlat_buffer *)ctx)[i];
  if (b->release)
    b->release (b->release_ctx, b->data, b->len);
  return b->name ? b->name : MEMORY_NAME;
}

EMLAT_API int emlat_profile_load_buffers (const struct emlat_buffer *files, size_t n,
                                          const struct emlat_limits *lim, unsigned flags,
                                          struct emlat_profile **out)
{
  if (!files)
    return -EINVAL;
  struct emlat_source src = { (void *)files, n, buffer_fetch, buffer_skip, NULL, NULL };
  return emlat_profile_load_source (&src, lim, flags, out);
}

/* ------------------------------------------------------------------ */
/* One stream                                                          */

struct stream
{
  int fd;
  const char *name;
};

static void stream_fetch (void *ctx, size_t i, struct emlat_source_file *out)
{
  const struct stream *s = ctx;
  (void)i;
  out->kind = EMLAT_SOURCE_FD;
  out->fd = s->fd;
  out->name = s->name;
}

static const char *stream_skip (void *ctx, size_t i)
{
  (void)i;
  return ((const struct stream *)ctx)->name;
}

EMLAT_API int emlat_profile_load_fd (int fd, const char *name, const struct emlat_limits *lim,
                                     unsigned flags, struct emlat_profile **out)
{
  if (fd < 0)
    return -EINVAL;
  struct stream s = { fd, name ? name : "-" };
  struct emlat_source src = { &s, 1, stream_fetch, stream_skip, NULL, NULL };
  return emlat_profile_load_source (&src, lim, flags, out);
}

/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* Paths and descriptors                                               */

static void input_fetch (void *ctx, size_t i, struct emlat_source_file *out)
{
  const struct emlat_input *in = &((const struct emlat_input *)ctx)[i];
  if (in->fd >= 0)
    {
      out->kind = EMLAT_SOURCE_FD;
      out->fd = in->fd;
      out->name = in->name ? in->name : "-";
    }
  else
    {
      out->kind = EMLAT_SOURCE_PATH;
      out->path = in->path;
      out->name = in->name ? in->name : in->path;
    }
}

static const char *input_skip (void *ctx, size_t i)
{
  const struct emlat_input *in = &((const struct emlat_input *)ctx)[i];
  return in->name ? in->name : in->fd >= 0 ? "-" : in->path;
}

EMLAT_API int emlat_profile_load_inputs (const struct emlat_input *inputs, size_t n,
                                         const struct emlat_limits *lim, unsigned flags,
                                         struct emlat_profile **out)
{
  if (!inputs)
    return -EINVAL;
  for (size_t i = 0; i < n; i++)
    if (inputs[i].fd < 0)
      recover_first (inputs[i].path, flags);
  if (!(flags & EMLAT_LOAD_NO_RECOVER))
    emlat_recover_sweep ();
  struct emlat_source src = { (void *)inputs, n, input_fetch, input_skip, NULL, NULL };
  return emlat_profile_load_source (&src, lim, flags, out);
}

EMLAT_API int emlat_profile_load_each (const struct emlat_input *inputs, size_t n,
                                       const struct emlat_limits *lim, unsigned flags,
                                       emlat_interaction_fn fn, void *ctx,
                                       struct emlat_profile **out)
{
  if (!inputs)
    return -EINVAL;
  for (size_t i = 0; i < n; i++)
    if (inputs[i].fd < 0)
      recover_first (inputs[i].path, flags);
  if (!(flags & EMLAT_LOAD_NO_RECOVER))
    emlat_recover_sweep ();
  struct emlat_source src = { (void *)inputs, n, input_fetch, input_skip, fn, ctx };
  return emlat_profile_load_source (&src, lim, flags | EMLAT_LOAD_STREAM, out);
}

/* ------------------------------------------------------------------ */

EMLAT_API const uint8_t *emlat_profile_file_data (const struct emlat_profile *p, size_t i,
                                                  size_t *len)
{
  *len = 0;
  if (!p || i >= p->n_files || p->files[i].streamed || !p->files[i].buf)
    return NULL;
  *len = p->files[i].len;
  return p->files[i].buf;
}

EMLAT_API int emlat_profile_rescan (const struct emlat_profile *p, size_t i,
                                    const struct emlat_scan_params *params,
                                    struct emlat_scan_result *res)
{
  if (res)
    memset (res, 0, sizeof *res);
  if (!p || !params || !res || i >= p->n_files)
    return -EINVAL;
  const struct emlat_pfile *f = &p->files[i];
  if (f->read_error || (!f->streamed && !f->buf))
    return -EINVAL;
  struct emlat_budget b = { 0, p->lim.max_alloc_bytes, 0 };
  return emlat_pfile_scan (f, params, res, &b);
}

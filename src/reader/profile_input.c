/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_input.c -- the public ways into a profile, one source each
 * (profile_source.h), all loaded by emlat_profile_load_source:
 *
 *   emlat_profile_load          paths, each read with read(2) when the
 *                               loader reaches it, bounded (readfile.c);
 *   emlat_profile_load_buffers  buffers the caller holds or hands over;
 *   emlat_profile_load_fd       one stream read to its end, bounded;
 *
 * and emlat_profile_file_data, the bytes a profile holds of each file.
 * The same bytes give the same profile through any of them: the sources
 * differ only in where the bytes come from and who releases them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_reader.h"
#include "reader/profile.h"
#include "reader/profile_source.h"
#include "reader/readfile.h"

/* Release function of buffers the reader read with malloc. */
static void release_malloced (void *ctx, const uint8_t *data, size_t len)
{
  (void)ctx;
  (void)len;
  free ((void *)data);
}

/* ------------------------------------------------------------------ */
/* Paths                                                               */

static void path_fetch (void *ctx, size_t i, uint64_t max, struct emlat_buffer *out)
{
  const char *const *paths = ctx;
  out->name = paths[i];
  if (!paths[i])
    {
      out->error = EINVAL;
      return;
    }
  uint8_t *buf;
  int rc = emlat_read_path_max (paths[i], max, &buf, &out->len);
  if (rc)
    {
      out->error = -rc;
      return;
    }
  out->data = buf;
  out->release = release_malloced;
}

static const char *path_skip (void *ctx, size_t i)
{
  return ((const char *const *)ctx)[i];
}

EMLAT_API int emlat_profile_load (const char *const *paths, size_t n,
                                  const struct emlat_limits *lim, unsigned flags,
                                  struct emlat_profile **out)
{
  if (!paths)
    return -EINVAL;
  /* A ring file left by the recording process holds what the files lack:
     write it into them first (recover.c).  A session still recording
     (-EBUSY), or a ring file recovery cannot use, leaves the files as they
     are; the first file of a set finds the ring file, the others none. */
  if (!(flags & EMLAT_LOAD_NO_RECOVER))
    {
      for (size_t i = 0; i < n; i++)
        if (paths[i])
          emlat_recover (paths[i], 0);
      emlat_recover_sweep ();
    }
  struct emlat_source src = { (void *)paths, n, path_fetch, path_skip };
  return emlat_profile_load_source (&src, lim, flags, out);
}

/* ------------------------------------------------------------------ */
/* Buffers                                                             */

#define MEMORY_NAME "(memory)"

static void buffer_fetch (void *ctx, size_t i, uint64_t max, struct emlat_buffer *out)
{
  (void)max; /* the loader checks the length */
  *out = ((const struct emlat_buffer *)ctx)[i];
  if (!out->name)
    out->name = MEMORY_NAME;
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
  struct emlat_source src = { (void *)files, n, buffer_fetch, buffer_skip };
  return emlat_profile_load_source (&src, lim, flags, out);
}

/* ------------------------------------------------------------------ */
/* One stream                                                          */

struct stream
{
  int fd;
  const char *name;
};

static void stream_fetch (void *ctx, size_t i, uint64_t max, struct emlat_buffer *out)
{
  const struct stream *s = ctx;
  (void)i;
  out->name = s->name;
  uint8_t *buf;
  int rc = emlat_read_fd_max (s->fd, max, &buf, &out->len);
  if (rc)
    {
      out->error = -rc;
      return;
    }
  out->data = buf;
  out->release = release_malloced;
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
  struct emlat_source src = { &s, 1, stream_fetch, stream_skip };
  return emlat_profile_load_source (&src, lim, flags, out);
}

/* ------------------------------------------------------------------ */

EMLAT_API const uint8_t *emlat_profile_file_data (const struct emlat_profile *p, size_t i,
                                                  size_t *len)
{
  *len = 0;
  if (!p || i >= p->n_files || !p->files[i].buf)
    return NULL;
  *len = p->files[i].len;
  return p->files[i].buf;
}

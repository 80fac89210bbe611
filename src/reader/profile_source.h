/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_source.h -- where the files of a set come from, as the loader
 * (profile_set.c) sees them: a source hands over file I as a struct
 * emlat_buffer when the loader asks for it, in input order, so that a
 * source that reads (paths, a stream) reads only files the loader will
 * keep and never more bytes than it may still allocate.  The public entry
 * points (profile_input.c) are one source each: paths read with read(2),
 * caller's buffers, one stream.  A source that maps files (mmap) is one
 * more fetch function.
 *
 * Contract: for each I in [0, N) the loader calls exactly one of FETCH or
 * SKIP, in increasing I; every buffer fetched is released through its own
 * release function by the loader, whether it keeps the file or not.
 */
#ifndef EMLAT_READER_PROFILE_SOURCE_H
#define EMLAT_READER_PROFILE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "emlat/emlat_reader.h"

struct emlat_source
{
  void *ctx;
  size_t n;             /* files in the set */
  /* Fill *OUT with file I: its bytes, or out->error.  A source that reads
     reads at most MAX bytes and reports EFBIG past them; a source that
     holds the bytes already may ignore MAX (the loader checks the
     length). */
  void (*fetch) (void *ctx, size_t i, uint64_t max, struct emlat_buffer *out);
  /* File I will not be read (loading stopped at a limit): release what
     the source holds of it and return its display name (NULL: ""). */
  const char *(*skip) (void *ctx, size_t i);
};

/* Load the files of SRC as one session (emlat_profile_load and the other
   entry points of emlat_reader.h).  Returns 0 with *OUT set, -EINVAL or
   -ENOMEM; on every return each file of SRC was fetched or skipped. */
int emlat_profile_load_source (const struct emlat_source *src, const struct emlat_limits *lim,
                               unsigned flags, struct emlat_profile **out);

#endif /* EMLAT_READER_PROFILE_SOURCE_H */

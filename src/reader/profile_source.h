/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_source.h -- where the files of a set come from, as the loader
 * (profile_set.c) sees them: a source describes file I when the loader
 * asks for it, in input order, as a path, a descriptor or bytes in memory.
 * The loader opens paths itself (profile_files.c: never blocking, regular
 * files only), streams regular files instead of holding them, and reads a
 * stream (a pipe) into memory only after its file header, never more bytes
 * than it may still allocate.  The public entry points (profile_input.c)
 * are sources: paths, caller's buffers, one descriptor, and a mix of
 * paths and descriptors.
 *
 * Contract: for each I in [0, N) the loader calls exactly one of FETCH or
 * SKIP, in increasing I; every buffer fetched is released through its own
 * release function by the loader, whether it keeps the file or not; a
 * descriptor stays the caller's (the loader keeps a duplicate).
 */
#ifndef EMLAT_READER_PROFILE_SOURCE_H
#define EMLAT_READER_PROFILE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "emlat/emlat_reader.h"

enum emlat_source_kind
{
  EMLAT_SOURCE_MEMORY = 0, /* MEM: a buffer (its name, error, release) */
  EMLAT_SOURCE_PATH = 1,   /* PATH: opened by the loader, named NAME */
  EMLAT_SOURCE_FD = 2      /* FD: read by the loader, named NAME */
};

struct emlat_source_file
{
  enum emlat_source_kind kind;
  const char *name;     /* display name (PATH and FD) */
  const char *path;
  int fd;
  struct emlat_buffer mem;
};

struct emlat_source
{
  void *ctx;
  size_t n;             /* files in the set */
  /* Describe file I into *OUT (zeroed by the loader). */
  void (*fetch) (void *ctx, size_t i, struct emlat_source_file *out);
  /* File I will not be read (loading stopped at a limit): release what
     the source holds of it and return its display name (NULL: ""). */
  const char *(*skip) (void *ctx, size_t i);
  /* With EMLAT_LOAD_STREAM: the receiver of each interaction (may be
     NULL); its nonzero return stops the load, which then returns it. */
  int (*deliver) (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix);
  void *deliver_ctx;
};

/* Load the files of SRC as one session (emlat_profile_load and the other
   entry points of emlat_reader.h).  Returns 0 with *OUT set, -EINVAL,
   -ENOMEM or the receiver's nonzero return; on every return each file of
   SRC was fetched or skipped. */
int emlat_profile_load_source (const struct emlat_source *src, const struct emlat_limits *lim,
                               unsigned flags, struct emlat_profile **out);

#endif /* EMLAT_READER_PROFILE_SOURCE_H */

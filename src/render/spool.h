/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * spool.h -- records put in any order, taken back sorted by a 64-bit key,
 * in memory bounded whatever their number: an external merge sort.
 *
 * Records (a key and up to 64 KiB of bytes) gather in a run buffer; a full
 * buffer is sorted by key and written to a private temporary file (in
 * $TMPDIR, else /tmp; unlinked at once) as a run.  Taking them back merges
 * the runs, each read through its own small buffer; records of equal key
 * come back in the order they were put (the sort and the merge are
 * stable).  When everything fit in the buffer, nothing is written.
 *
 * Memory: the run buffer (SPOOL_RUN_BYTES of records plus 16 bytes of
 * index per record, and the sort's scratch for the index) and up to 256
 * KiB per run while merging (one run per 64 MiB of records: 4 MiB per GiB
 * spooled); disk: the records' bytes plus 12 per record.
 */
#ifndef EMLAT_RENDER_SPOOL_H
#define EMLAT_RENDER_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#define SPOOL_RUN_BYTES ((size_t)64 << 20)

struct spool_run
{
  uint64_t offset, bytes;     /* in the temporary file */
};

struct spool
{
  size_t run_bytes;           /* 0: SPOOL_RUN_BYTES (tests set less) */
  uint8_t *buf;               /* this run's records: bytes only */
  size_t len, cap;
  uint64_t *keys, *at;        /* per record: key, and offset << 16 | length */
  size_t n, ncap;
  int fd;                     /* the temporary file, -1 before the first run */
  uint64_t file_bytes;
  struct spool_run *runs;
  size_t n_runs;
  int error;                  /* an errno that stopped the spool */
};

void spool_init (struct spool *s);
/* Put a record.  0, or a negative errno (-ENOMEM, -EIO: the temporary
   file), also remembered in S->error. */
int spool_put (struct spool *s, uint64_t key, const void *bytes, size_t len);
/* Every record in key order to FN (a nonzero return stops and is
   returned).  Returns 0, FN's return, or a negative errno. */
int spool_each (struct spool *s, int (*fn) (void *ctx, uint64_t key, const uint8_t *bytes,
                                            size_t len),
                void *ctx);
void spool_free (struct spool *s);

/* A new private temporary file under $TMPDIR (else /tmp), already
   unlinked (O_TMPFILE, else a mkostemp name STEM-XXXXXX removed at once):
   its descriptor, or -errno. */
int spool_temp_file (const char *stem);

#endif /* EMLAT_RENDER_SPOOL_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * window.h -- a forward-only view of one input for the scanner: bytes in
 * memory, or a regular file read with pread(2) through a buffer that never
 * holds much more than one chunk, or a stream read with read(2) the same
 * way.
 *
 * The scanner asks for the bytes [off, off + need) with an OFF that never
 * decreases; it gets a pointer to byte OFF and how many of the NEED bytes
 * exist (fewer only at the end of the input, or after a read error).  A
 * file or stream is thus scanned with one buffer of at most the largest
 * chunk (40-byte header up to 4 KiB, payload up to 16 MiB, F-21, F-22)
 * plus the read-ahead, whatever its length; the file header is read alone
 * (64 bytes), so an input that is not a profile costs one small read.
 *
 * Memory: the buffer is charged to a budget (limits.max_alloc_bytes); a
 * growth the budget refuses leaves the window short (ERR = ENOMEM), which
 * the scanner reports as a limit.
 */
#ifndef EMLAT_READER_WINDOW_H
#define EMLAT_READER_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "reader/budget.h"

/* Bytes read ahead past what the scanner asked for. */
#define EMLAT_WINDOW_READ_AHEAD (1u << 20)

struct emlat_window
{
  const uint8_t *mem;   /* a buffer in memory (MEM_LEN bytes), or NULL */
  size_t mem_len;
  int fd;               /* else this descriptor */
  int seekable;         /* pread from BASE + offset; else read(2) in order */
  uint64_t base;        /* file offset of the input's byte 0 (seekable) */
  uint64_t size;        /* the input's length; UINT64_MAX: until end of file */
  struct emlat_budget *budget;
  uint8_t *buf;         /* holds input bytes [at, at + have) */
  size_t cap, have;
  uint64_t at;
  uint64_t consumed;    /* input bytes read from FD so far */
  int eof;              /* FD ended before SIZE */
  int err;              /* errno of a failed read or growth, else 0 */
};

/* A window over LEN bytes at BUF (not copied; BUF may be NULL if LEN is
   0). */
void emlat_window_mem (struct emlat_window *w, const uint8_t *buf, size_t len);
/* A window over FD: SEEKABLE, bytes [BASE, BASE + SIZE) read with pread,
   the descriptor's offset untouched; else read(2) from its current
   position, SIZE bytes at most (UINT64_MAX: to its end).  FD stays the
   caller's.  The buffer is charged to BUDGET (not NULL). */
void emlat_window_fd (struct emlat_window *w, int fd, int seekable, uint64_t base,
                      uint64_t size, struct emlat_budget *budget);
/* Bytes [OFF, OFF + NEED) of the input, OFF not below any earlier OFF:
   a pointer to byte OFF and in *AVAIL how many of the NEED bytes there
   are (fewer only at the end of the input or when W->err is set). */
const uint8_t *emlat_window_get (struct emlat_window *w, uint64_t off, size_t need,
                                 size_t *avail);
/* The input's length when known (memory, a sized file, or a stream read
   to its end), else the bytes read so far. */
uint64_t emlat_window_length (const struct emlat_window *w);
/* Free the buffer (the descriptor is the caller's). */
void emlat_window_free (struct emlat_window *w);

#endif /* EMLAT_READER_WINDOW_H */

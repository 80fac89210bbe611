/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * readfile.h -- reading one input into memory under an exact byte bound:
 * a regular file, a pipe or standard input.  The bound is what a load may
 * still allocate for this input (max_file_bytes, or less when the
 * allocation budget has less left), so that no more than MAX bytes are
 * ever allocated for an input, however long it is.
 */
#ifndef EMLAT_READER_READFILE_H
#define EMLAT_READER_READFILE_H

#include <stddef.h>
#include <stdint.h>

/* Read FD from its current position to its end.  Returns 0 with *BUF (free
   with free(); never NULL) and *LEN, -EFBIG when the input holds more than
   MAX bytes (at most MAX bytes were allocated), -EISDIR for a directory,
   or another negative errno.  FD is left open. */
int emlat_read_fd_max (int fd, uint64_t max, uint8_t **buf, size_t *len);

/* Read the stream FD as emlat_read_fd_max does, but its 64-byte file
   header first: when that is not a valid header (F-10, F-11), only those
   bytes (or fewer, at the end of the stream) are read and returned. */
int emlat_read_profile_stream (int fd, uint64_t max, uint8_t **buf, size_t *len);

/* Open PATH and read it as emlat_read_fd_max does. */
int emlat_read_path_max (const char *path, uint64_t max, uint8_t **buf, size_t *len);

#endif /* EMLAT_READER_READFILE_H */

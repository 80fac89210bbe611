/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * readfile.c -- read one file or stream into memory with an exact size
 * bound (readfile.h), and the public emlat_read_file / emlat_read_fd.
 *
 * The loader holds no regular file in memory (profile_files.c streams
 * them); what is read here is a stream handed over as a descriptor, and
 * what the public emlat_read_file / emlat_read_fd are asked for.
 * read(2) rather than mmap(2): a file truncated by another process while it
 * is being read must give a short buffer, never SIGBUS.  A regular file
 * larger than the bound is refused from its size before anything is
 * allocated.  A profile stream is read header first: when its first 64
 * bytes are not a valid file header, nothing more is read.  Streams (pipes, terminals, sockets: size unknown) grow the
 * buffer geometrically up to the bound; once the buffer is full, one more
 * byte is read into a local variable to tell "ended exactly here" from
 * "too long", so the allocation never exceeds the bound.
 */
#include "reader/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/input_open.h"
#include "emlat/emlat_reader.h"
#include "format/format.h"
#include "reader/limits.h"

/* First allocation for an input of unknown size. */
#define STREAM_FIRST_CAP 65536u

/* read(2) that retries on EINTR and waits on a non-blocking descriptor
   (standard input may have been left non-blocking by another program). */
static ssize_t read_some (int fd, void *buf, size_t n)
{
  for (;;)
    {
      ssize_t r = read (fd, buf, n);
      if (r >= 0)
        return r;
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        {
          struct pollfd pfd = { .fd = fd, .events = POLLIN };
          if (poll (&pfd, 1, -1) >= 0 || errno == EINTR)
            continue;
        }
      return -1;
    }
}

/* Grow *BUF from *CAP toward MAX (MAX > *CAP).  Returns 0 or -ENOMEM. */
static int grow (uint8_t **buf, size_t *cap, size_t max)
{
  size_t ncap = *cap < STREAM_FIRST_CAP / 2 ? STREAM_FIRST_CAP : *cap * 2;
  if (ncap > max || ncap < *cap)
    ncap = max;
  uint8_t *nb = realloc (*buf, ncap ? ncap : 1);
  if (!nb)
    return -ENOMEM;
  *buf = nb;
  *cap = ncap;
  return 0;
}

/* Read FD to its end into a buffer of at most MAX bytes that starts with
   PREFIX[0..PLEN) (bytes already read from FD, PLEN <= MAX). */
static int read_rest (int fd, size_t max, const uint8_t *prefix, size_t plen, uint8_t **out,
                      size_t *out_len)
{
  struct stat st;
  if (fstat (fd, &st) != 0)
    return -errno;
  if (S_ISDIR (st.st_mode))
    return -EISDIR;
  size_t cap = plen;
  if (S_ISREG (st.st_mode))
    {
      if (st.st_size > 0 && (uint64_t)st.st_size > max)
        return -EFBIG;
      if (st.st_size > 0 && (uint64_t)st.st_size > cap)
        cap = (size_t)st.st_size;
    }
  uint8_t *buf = malloc (cap ? cap : 1);
  if (!buf)
    return -ENOMEM;
  if (plen)
    memcpy (buf, prefix, plen);
  size_t len = plen;
  int rc = 0;
  for (;;)
    {
      if (len == cap)
        {
          /* Full: does the input end here? */
          uint8_t one;
          ssize_t r = read_some (fd, &one, 1);
          if (r <= 0)
            {
              rc = r < 0 ? -errno : 0;
              break;
            }
          if (cap >= max)
            {
              rc = -EFBIG;
              break;
            }
          if ((rc = grow (&buf, &cap, max)) != 0)
            break;
          buf[len++] = one;
          continue;
        }
      ssize_t r = read_some (fd, buf + len, cap - len);
      if (r <= 0)
        {
          rc = r < 0 ? -errno : 0;
          break;
        }
      len += (size_t)r;
    }
  if (rc)
    {
      free (buf);
      return rc;
    }
  *out = buf;
  *out_len = len;
  return 0;
}

int emlat_read_fd_max (int fd, uint64_t max64, uint8_t **out, size_t *out_len)
{
  *out = NULL;
  *out_len = 0;
  size_t max = max64 < SIZE_MAX ? (size_t)max64 : SIZE_MAX;
  return read_rest (fd, max, NULL, 0, out, out_len);
}

int emlat_read_profile_stream (int fd, uint64_t max64, uint8_t **out, size_t *out_len)
{
  *out = NULL;
  *out_len = 0;
  size_t max = max64 < SIZE_MAX ? (size_t)max64 : SIZE_MAX;
  uint8_t h[EMLAT_FILE_HEADER_SIZE];
  size_t n = 0;
  while (n < sizeof h && n < max)
    {
      ssize_t r = read_some (fd, h + n, (sizeof h < max ? sizeof h : max) - n);
      if (r < 0)
        return -errno;
      if (r == 0)
        break;
      n += (size_t)r;
    }
  struct emlat_file_header fh;
  if (n < sizeof h || emlat_parse_file_header (h, n, &fh) != EMLAT_STOP_CLEAN)
    {
      /* Not a profile (or the whole stream was shorter than a header):
         what was read is all the scan needs to say so. */
      uint8_t *buf = malloc (n ? n : 1);
      if (!buf)
        return -ENOMEM;
      memcpy (buf, h, n);
      *out = buf;
      *out_len = n;
      return 0;
    }
  return read_rest (fd, max, h, n, out, out_len);
}

int emlat_read_path_max (const char *path, uint64_t max, uint8_t **out, size_t *out_len)
{
  *out = NULL;
  *out_len = 0;
  struct stat st;
  int fd = emlat_input_open (path, &st);
  if (fd < 0)
    return fd;
  int rc = emlat_read_fd_max (fd, max, out, out_len);
  close (fd);
  return rc;
}

EMLAT_API int emlat_read_file (const char *path, const struct emlat_limits *lim,
                               uint8_t **out, size_t *out_len)
{
  struct emlat_limits l;
  emlat_limits_resolve (lim, &l);
  return emlat_read_path_max (path, l.max_file_bytes, out, out_len);
}

EMLAT_API int emlat_read_fd (int fd, const struct emlat_limits *lim, uint8_t **out,
                             size_t *out_len)
{
  struct emlat_limits l;
  emlat_limits_resolve (lim, &l);
  return emlat_read_fd_max (fd, l.max_file_bytes, out, out_len);
}

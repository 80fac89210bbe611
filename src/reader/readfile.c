/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * readfile.c -- read one file or stream into memory with an exact size
 * bound (readfile.h), and the public emlat_read_file / emlat_read_fd.
 *
 * read(2) rather than mmap(2): a file truncated by another process while it
 * is being read must give a short buffer, never SIGBUS.  A regular file
 * larger than the bound is refused from its size before anything is
 * allocated.  Streams (pipes, terminals, sockets: size unknown) grow the
 * buffer geometrically up to the bound; once the buffer is full, one more
 * byte is read into a local variable to tell "ended exactly here" from
 * "too long", so the allocation never exceeds the bound.
 */
#include "reader/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emlat/emlat_reader.h"
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

int emlat_read_fd_max (int fd, uint64_t max64, uint8_t **out, size_t *out_len)
{
  *out = NULL;
  *out_len = 0;
  size_t max = max64 < SIZE_MAX ? (size_t)max64 : SIZE_MAX;
  struct stat st;
  if (fstat (fd, &st) != 0)
    return -errno;
  if (S_ISDIR (st.st_mode))
    return -EISDIR;
  size_t cap = 0;
  if (S_ISREG (st.st_mode))
    {
      if (st.st_size > 0 && (uint64_t)st.st_size > max)
        return -EFBIG;
      cap = st.st_size > 0 ? (size_t)st.st_size : 0;
    }
  uint8_t *buf = malloc (cap ? cap : 1);
  if (!buf)
    return -ENOMEM;
  size_t len = 0;
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

int emlat_read_path_max (const char *path, uint64_t max, uint8_t **out, size_t *out_len)
{
  *out = NULL;
  *out_len = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
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

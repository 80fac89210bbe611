/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * readfile.c -- read one file into memory with a size bound.
 *
 * read(2) rather than mmap(2): a file truncated by another process while it
 * is being read must give a short buffer, never SIGBUS.  Works on pipes
 * (size unknown in advance) by growing the buffer, bounded by the limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emlat/emlat_reader.h"
#include "reader/limits.h"

EMLAT_API int emlat_read_file (const char *path, const struct emlat_limits *lim,
                               uint8_t **out, size_t *out_len)
{
  struct emlat_limits l;
  emlat_limits_resolve (lim, &l);
  *out = NULL;
  *out_len = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      int e = errno;
      close (fd);
      return -e;
    }
  if (S_ISDIR (st.st_mode))
    {
      close (fd);
      return -EISDIR;
    }
  size_t cap = S_ISREG (st.st_mode) ? (size_t)st.st_size + 1 : 65536;
  if (S_ISREG (st.st_mode) && (uint64_t)st.st_size > l.max_file_bytes)
    {
      close (fd);
      return -EFBIG;
    }
  if (cap > l.max_file_bytes + 1)
    cap = (size_t)l.max_file_bytes + 1;
  uint8_t *buf = malloc (cap);
  if (!buf)
    {
      close (fd);
      return -ENOMEM;
    }
  size_t len = 0;
  for (;;)
    {
      if (len == cap)
        {
          /* Grown only for non-regular files or a file growing under us. */
          if (cap > l.max_file_bytes)
            {
              free (buf);
              close (fd);
              return -EFBIG;
            }
          size_t ncap = cap * 2 > l.max_file_bytes + 1 ? (size_t)l.max_file_bytes + 1 : cap * 2;
          uint8_t *nb = realloc (buf, ncap);
          if (!nb)
            {
              free (buf);
              close (fd);
              return -ENOMEM;
            }
          buf = nb;
          cap = ncap;
        }
      ssize_t r = read (fd, buf + len, cap - len);
      if (r < 0)
        {
          if (errno == EINTR)
            continue;
          int e = errno;
          free (buf);
          close (fd);
          return -e;
        }
      if (r == 0)
        break;
      len += (size_t)r;
    }
  close (fd);
  if (len > l.max_file_bytes)
    {
      free (buf);
      return -EFBIG;
    }
  *out = buf;
  *out_len = len;
  return 0;
}

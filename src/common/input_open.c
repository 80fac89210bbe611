/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * input_open.c -- see input_open.h.  Invariant: a descriptor is returned
 * only for a regular file; every other one is closed before returning.
 */
#include "common/input_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int
emlat_input_open (const char *path, struct stat *st)
{
  /* A special file is refused from its name alone when it can be: opening
     some devices does something (a modem line, a tape).  The type that
     counts is still the one of the file finally opened (below). */
  if (stat (path, st) != 0)
    return -errno;
  if (!S_ISREG (st->st_mode))
    return S_ISDIR (st->st_mode) ? -EISDIR : -ENODEV;
  memset (st, 0, sizeof *st);
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return -errno;
  if (fstat (fd, st) != 0)
    {
      int e = errno;
      close (fd);
      return -e;
    }
  if (S_ISREG (st->st_mode))
    return fd;
  close (fd);
  return S_ISDIR (st->st_mode) ? -EISDIR : -ENODEV;
}

const char *
emlat_input_type_name (mode_t mode)
{
  switch (mode & S_IFMT)
    {
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    default:
      return NULL;
    }
}

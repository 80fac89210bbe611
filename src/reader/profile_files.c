/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_files.c -- the files of a loaded set: a first look at each
 * (identity, size, the 64-byte file header), every later scan of it, and
 * giving it back (profile.h, struct emlat_pfile).
 *
 * A regular file is never held in memory: the load and each re-scan read
 * it through a window of one chunk (window.h).  A file named by a path is
 * opened again for each scan, with emlat_input_open (never blocking,
 * regular files only), and must be the file first seen -- same device and
 * inode, at least as long -- or the scan is refused with ESTALE; it is
 * read up to the length it had then, so a recording that goes on growing
 * gives the same records to every scan of one load.  A file handed over
 * as a descriptor is kept as a duplicate and read with pread(2), which
 * leaves the caller's offset alone.
 *
 * Invariant: a pfile owns at most one descriptor (FD, closed by
 * emlat_pfile_release) and at most one buffer (released once).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/input_open.h"
#include "format/format.h"
#include "reader/profile.h"
#include "reader/scan.h"
#include "reader/window.h"

/* The header of the file open on FD at BASE, SIZE bytes long, into F. */
static void
read_header (struct emlat_pfile *f, int fd, uint64_t base, uint64_t size)
{
  uint8_t h[EMLAT_FILE_HEADER_SIZE];
  size_t want = size < sizeof h ? (size_t)size : sizeof h, got = 0;
  while (got < want)
    {
      ssize_t r = pread (fd, h + got, want - got, (off_t)(base + got));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += (size_t)r;
    }
  f->header_ok = emlat_parse_file_header (h, got, &f->header) == EMLAT_STOP_CLEAN;
}

int
emlat_pfile_open_path (struct emlat_pfile *f, const char *path)
{
  struct stat st;
  int fd = emlat_input_open (path, &st);
  if (fd < 0)
    return fd;
  f->streamed = f->by_path = 1;
  f->fd = -1;
  f->dev = (uint64_t)st.st_dev;
  f->ino = (uint64_t)st.st_ino;
  f->base = 0;
  f->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
  read_header (f, fd, 0, f->size);
  close (fd);
  return 0;
}

int
emlat_pfile_open_fd (struct emlat_pfile *f, int fd)
{
  struct stat st;
  if (fstat (fd, &st) != 0)
    return -errno;
  if (S_ISDIR (st.st_mode))
    return -EISDIR;
  off_t pos = S_ISREG (st.st_mode) ? lseek (fd, 0, SEEK_CUR) : -1;
  if (pos < 0)
    return 1; /* a stream: read into memory */
  int dup = fcntl (fd, F_DUPFD_CLOEXEC, 3);
  if (dup < 0)
    return -errno;
  f->streamed = 1;
  f->by_path = 0;
  f->fd = dup;
  f->dev = (uint64_t)st.st_dev;
  f->ino = (uint64_t)st.st_ino;
  f->base = (uint64_t)pos;
  f->size = st.st_size > pos ? (uint64_t)(st.st_size - pos) : 0;
  read_header (f, dup, f->base, f->size);
  return 0;
}

int
emlat_pfile_scan (const struct emlat_pfile *f, const struct emlat_scan_params *sp,
                  struct emlat_scan_result *res, struct emlat_budget *b)
{
  struct emlat_window w;
  if (!f->streamed)
    {
      emlat_window_mem (&w, f->buf, f->len);
      emlat_scan_window (&w, sp, res);
      return 0;
    }
  int fd = f->fd;
  if (f->by_path)
    {
      struct stat st;
      fd = emlat_input_open (f->path, &st);
      if (fd < 0)
        return fd;
      if ((uint64_t)st.st_dev != f->dev || (uint64_t)st.st_ino != f->ino
          || st.st_size < 0 || (uint64_t)st.st_size < f->size)
        {
          close (fd);
          return -ESTALE;
        }
    }
  emlat_window_fd (&w, fd, 1, f->base, f->size, b);
  emlat_scan_window (&w, sp, res);
  emlat_window_free (&w);
  if (f->by_path)
    close (fd);
  return 0;
}

/* Stands for the bytes of an empty buffer handed over as NULL. */
static const uint8_t empty_file[1];

const uint8_t *
emlat_pfile_empty (void)
{
  return empty_file;
}

void
emlat_pfile_release (struct emlat_pfile *f)
{
  if (f->release)
    f->release (f->release_ctx, f->buf == empty_file ? NULL : f->buf, f->len);
  if (f->streamed && !f->by_path && f->fd >= 0)
    close (f->fd);
  f->fd = -1;
  f->release = NULL;
  f->buf = NULL;
  f->len = 0;
}

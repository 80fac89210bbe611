/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fileout.c -- see fileout.h.
 */
#include "record/fileout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The start of each open call: O emptied (no descriptor, no path) and a
   copy of PATH in *COPY, made before any file is touched, so that nothing
   is left to undo when memory ran out.  0, -ENAMETOOLONG or -ENOMEM. */
static int
out_reset (struct emlat_out *o, const char *path, char **copy)
{
  memset (o, 0, sizeof *o);
  o->fd = -1;
  if (strlen (path) >= EMLAT_OUT_PATH_MAX)
    return -ENAMETOOLONG;
  *copy = strdup (path);
  return *copy ? 0 : -ENOMEM;
}

int
emlat_out_open (struct emlat_out *o, const char *path, enum emlat_out_mode mode)
{
  char *copy;
  int rc = out_reset (o, path, &copy);
  if (rc != 0)
    return rc;
  int overwrite = mode == EMLAT_OUT_OVERWRITE;
  /* O_NONBLOCK: opening a FIFO for writing must not wait for a reader; the
     type is checked right after, and the flag cleared for a file. */
  int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
              | (overwrite ? 0 : O_EXCL);
  int fd = open (path, flags, 0600);
  int adopted = 0;
  if (fd < 0 && errno == EEXIST && mode == EMLAT_OUT_ADOPT_EMPTY)
    {
      /* The file the caller's finisher created for us: opened without
         O_CREAT, kept only if it is an empty regular file of ours. */
      fd = open (path, flags & ~(O_CREAT | O_EXCL));
      adopted = 1;
    }
  int e = 0;
  struct stat st;
  if (fd < 0)
    e = errno;
  else if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    e = fstat (fd, &st) == 0 ? EINVAL : errno;
  else if (adopted && (st.st_size != 0 || st.st_uid != geteuid ()))
    e = EEXIST;
  else if ((overwrite && ftruncate (fd, 0) != 0)
           || fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK) != 0)
    e = errno;
  if (e != 0)
    {
      if (fd >= 0)
        close (fd);
      free (copy);
      return -e;
    }
  o->fd = fd;
  o->dev = st.st_dev;
  o->ino = st.st_ino;
  o->size = 0;
  o->path = copy;
  return 0;
}

int
emlat_out_rotated_name (char *out, size_t cap, const char *base, uint64_t seq)
{
  size_t n = strlen (base);
  const char *ext = ".emlat";
  size_t elen = strlen (ext);
  int r;
  if (n > elen && strcmp (base + n - elen, ext) == 0)
    r = snprintf (out, cap, "%.*s.%llu%s", (int)(n - elen), base, (unsigned long long)seq, ext);
  else
    r = snprintf (out, cap, "%s.%llu", base, (unsigned long long)seq);
  return (r < 0 || (size_t)r >= cap) ? -ENAMETOOLONG : 0;
}

int
emlat_out_open_in_dir (struct emlat_out *o, const char *dir)
{
  char name[4096];
  time_t now = time (0);
  struct tm tm;
  localtime_r (&now, &tm);
  char stamp[32];
  strftime (stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  for (int i = 0; i < 1000; i++)
    {
      int r = i == 0 ? snprintf (name, sizeof name, "%s/emlat-%s-%ld.emlat", dir, stamp, (long)getpid ())
                     : snprintf (name, sizeof name, "%s/emlat-%s-%ld-%d.emlat", dir, stamp,
                                 (long)getpid (), i);
      if (r < 0 || (size_t)r >= sizeof name)
        return -ENAMETOOLONG;
      int e = emlat_out_open (o, name, EMLAT_OUT_NEW);
      if (e != -EEXIST)
        return e;
    }
  return -EEXIST;
}

static int
still_ours (struct emlat_out *o)
{
  struct stat st;
  if (o->fd < 0 || o->lost)
    return 0;
  if (fstat (o->fd, &st) != 0 || st.st_dev != o->dev || st.st_ino != o->ino)
    {
      /* Closed, or the number now names another file of the host: never
         write to it again, never close it (it is not ours any more). */
      o->lost = 1;
      o->fd = -1;
      return 0;
    }
  return 1;
}

int
emlat_out_append (struct emlat_out *o, const struct iovec *iov_in, int iovcnt)
{
  if (!still_ours (o))
    return -EBADF;
  size_t total = 0;
  for (int i = 0; i < iovcnt; i++)
    total += iov_in[i].iov_len;
  size_t done = 0;
  int idx = 0;
  size_t skip = 0; /* bytes of iov_in[idx] already written */
  while (done < total)
    {
      struct iovec v[IOV_MAX < 1024 ? IOV_MAX : 1024];
      int nv = 0;
      for (int i = idx; i < iovcnt && nv < (int)(sizeof v / sizeof v[0]); i++)
        {
          v[nv].iov_base = (char *)iov_in[i].iov_base + (i == idx ? skip : 0);
          v[nv].iov_len = iov_in[i].iov_len - (i == idx ? skip : 0);
          nv++;
        }
      ssize_t w = writev (o->fd, v, nv);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          int e = w < 0 ? errno : EIO;
          /* Roll back to the last complete chunk (F-24). */
          if (done > 0 && ftruncate (o->fd, (off_t)o->size) == 0)
            lseek (o->fd, (off_t)o->size, SEEK_SET);
          else if (done > 0)
            o->size += done; /* could not roll back: the reader stops there */
          return -e;
        }
      done += (size_t)w;
      size_t adv = (size_t)w;
      while (adv > 0)
        {
          size_t left = iov_in[idx].iov_len - skip;
          if (adv >= left)
            {
              adv -= left;
              idx++;
              skip = 0;
            }
          else
            {
              skip += adv;
              adv = 0;
            }
        }
    }
  o->size += total;
  return 0;
}

void
emlat_out_close (struct emlat_out *o)
{
  if (o->fd >= 0 && still_ours (o))
    close (o->fd);
  o->fd = -1;
}

void
emlat_out_free (struct emlat_out *o)
{
  emlat_out_close (o);
  free (o->path);
  o->path = 0;
}

int
emlat_out_adopt_unopened (struct emlat_out *o, const char *path)
{
  memset (o, 0, sizeof *o);
  o->fd = -1;
  if (strlen (path) >= EMLAT_OUT_PATH_MAX)
    return -ENAMETOOLONG;
  struct stat st;
  if (lstat (path, &st) != 0)
    return errno == ENOENT ? emlat_out_open (o, path, EMLAT_OUT_NEW) : -errno;
  if (S_ISLNK (st.st_mode))
    return -ELOOP; /* as O_NOFOLLOW answers */
  if (S_ISDIR (st.st_mode))
    return -EISDIR;
  if (!S_ISREG (st.st_mode))
    return -EINVAL;
  if (st.st_size != 0 || st.st_uid != geteuid ())
    return -EEXIST;
  o->path = strdup (path);
  if (!o->path)
    return -ENOMEM;
  o->dev = st.st_dev;
  o->ino = st.st_ino;
  return 0;
}

/* Cut FD to nothing and write START (LEN bytes) at its beginning. */
static int
write_start (int fd, const void *start, size_t len)
{
  if (ftruncate (fd, 0) != 0)
    return -errno;
  size_t done = 0;
  while (done < len)
    {
      ssize_t w = pwrite (fd, (const char *)start + done, len - done, (off_t)done);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          int e = w < 0 ? errno : EIO;
          if (ftruncate (fd, 0) != 0)
            {
              /* Nothing more to undo: the reader stops at the first
                 incomplete chunk. */
            }
          return -e;
        }
      done += (size_t)w;
    }
  return 0;
}

/* emlat_out_reopen's file: PATH opened and set up, *SIZE the bytes it
   keeps, *ST its identity.  Returns the descriptor or a negative errno. */
static int
open_to_append (const char *path, uint64_t *size, const void *start, size_t len,
                struct stat *st)
{
  int fd = open (path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return -errno;
  if (fstat (fd, st) != 0 || !S_ISREG (st->st_mode))
    {
      close (fd);
      return -EINVAL;
    }
  if (start && (uint64_t)st->st_size < len)
    {
      /* Nobody wrote the file's start yet (or not all of it). */
      int rc = write_start (fd, start, len);
      if (rc != 0)
        {
          close (fd);
          return rc;
        }
      st->st_size = (off_t)len;
    }
  if ((uint64_t)st->st_size < *size)
    *size = (uint64_t)st->st_size; /* shorter than the writer left it */
  if (((uint64_t)st->st_size > *size && ftruncate (fd, (off_t)*size) != 0)
      || lseek (fd, (off_t)*size, SEEK_SET) < 0)
    {
      int e = errno;
      close (fd);
      return -e;
    }
  return fd;
}

int
emlat_out_reopen (struct emlat_out *o, const char *path, uint64_t size, const void *start,
                  size_t len)
{
  char *copy;
  int rc = out_reset (o, path, &copy);
  if (rc != 0)
    return rc;
  struct stat st;
  int fd = open_to_append (path, &size, start, len, &st);
  if (fd < 0)
    {
      free (copy);
      return fd;
    }
  o->fd = fd;
  o->dev = st.st_dev;
  o->ino = st.st_ino;
  o->size = size;
  o->path = copy;
  return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * spool.c -- see spool.h.
 *
 * A run on disk is a sequence of records, each 8 bytes of key
 * (little-endian), 4 of length, then the bytes, in key order.  Invariants:
 * AT[i] locates record i of the buffered run (offset << 16 | length); the
 * merge (a heap of the runs' heads) takes from the run whose head has the
 * smallest key, the lowest run on ties, so equal keys keep the order they
 * were put in.
 */
#include "render/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emlat/emlat_report.h"

#define RUN_READ_BYTES ((size_t)256 << 10)
#define MAX_RECORD 65535u

void
spool_init (struct spool *s)
{
  memset (s, 0, sizeof *s);
  s->fd = -1;
}

static int
fail (struct spool *s, int err)
{
  if (!s->error)
    s->error = err;
  return -s->error;
}

int
spool_temp_file (const char *stem)
{
  const char *dir = getenv ("TMPDIR");
  if (!dir || !*dir)
    dir = "/tmp";
  int fd = open (dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0)
    return fd;
  char path[4096];
  if ((size_t)snprintf (path, sizeof path, "%s/%s-XXXXXX", dir, stem) >= sizeof path)
    return -ENAMETOOLONG;
  fd = mkostemp (path, O_CLOEXEC);
  if (fd < 0)
    return -errno;
  unlink (path);
  return fd;
}

static int
write_all (int fd, const uint8_t *p, size_t n)
{
  while (n)
    {
      ssize_t w = write (fd, p, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return -1;
      p += w;
      n -= (size_t)w;
    }
  return 0;
}

/* Sort the buffered records by key (stably: the index goes along as the
   payload of a radix sort).  0 or -ENOMEM. */
static int
sort_buffered (struct spool *s)
{
  return emlat_report_sort_u64 (s->keys, s->at, s->n) == 0 ? 0 : -ENOMEM;
}

/* Write the buffered records, sorted, as a run.  0 or a negative errno. */
static int
flush_run (struct spool *s)
{
  if (s->n == 0)
    return 0;
  if (s->fd < 0 && (s->fd = spool_temp_file ("emlat-spool")) < 0)
    return fail (s, -s->fd);
  if (sort_buffered (s) != 0)
    return fail (s, ENOMEM);
  struct spool_run *r = realloc (s->runs, (s->n_runs + 1) * sizeof *r);
  if (!r)
    return fail (s, ENOMEM);
  s->runs = r;
  r = &s->runs[s->n_runs];
  r->offset = s->file_bytes;
  /* Records through a buffer of the run's size at most. */
  uint8_t out[1 << 16];
  size_t used = 0;
  for (size_t i = 0; i < s->n; i++)
    {
      size_t len = (size_t)(s->at[i] & 0xffff), off = (size_t)(s->at[i] >> 16);
      if (used + 12 + len > sizeof out)
        {
          if (write_all (s->fd, out, used) != 0)
            return fail (s, EIO);
          s->file_bytes += used;
          used = 0;
        }
      for (int b = 0; b < 8; b++)
        out[used + (size_t)b] = (uint8_t)(s->keys[i] >> (8 * b));
      for (int b = 0; b < 4; b++)
        out[used + 8 + (size_t)b] = (uint8_t)(len >> (8 * b));
      memcpy (out + used + 12, s->buf + off, len);
      used += 12 + len;
    }
  if (write_all (s->fd, out, used) != 0)
    return fail (s, EIO);
  s->file_bytes += used;
  r->bytes = s->file_bytes - r->offset;
  s->n_runs++;
  s->n = s->len = 0;
  return 0;
}

int
spool_put (struct spool *s, uint64_t key, const void *bytes, size_t len)
{
  if (s->error)
    return -s->error;
  if (len > MAX_RECORD)
    return fail (s, EINVAL);
  size_t limit = s->run_bytes ? s->run_bytes : SPOOL_RUN_BYTES;
  if (s->len + len > limit && flush_run (s) != 0)
    return -s->error;
  if (!s->buf || s->len + len > s->cap)
    {
      size_t cap = s->cap ? s->cap * 2 : 65536;
      while (cap < s->len + len)
        cap *= 2;
      uint8_t *nb = realloc (s->buf, cap);
      if (!nb)
        return fail (s, ENOMEM);
      s->buf = nb;
      s->cap = cap;
    }
  if (s->n == s->ncap)
    {
      size_t cap = s->ncap ? s->ncap * 2 : 4096;
      uint64_t *k = realloc (s->keys, cap * sizeof *k);
      if (!k)
        return fail (s, ENOMEM);
      s->keys = k;
      uint64_t *a = realloc (s->at, cap * sizeof *a);
      if (!a)
        return fail (s, ENOMEM);
      s->at = a;
      s->ncap = cap;
    }
  if (len)
    memcpy (s->buf + s->len, bytes, len);
  s->keys[s->n] = key;
  s->at[s->n++] = (uint64_t)s->len << 16 | len;
  s->len += len;
  return 0;
}

/* A run being merged: its records read through BUF. */
struct reader
{
  uint64_t pos, end;          /* in the file */
  uint8_t *buf;
  size_t size;                /* of BUF: a record always fits */
  size_t have, at;            /* BUF holds [at, have) unread */
  uint64_t key;               /* the head record's */
  size_t len;
  const uint8_t *bytes;
  int done;
};

/* Make at least N bytes readable at R->buf + R->at.  0 or -1. */
static int
fill (int fd, struct reader *r, size_t n)
{
  if (r->have - r->at >= n)
    return 0;
  memmove (r->buf, r->buf + r->at, r->have - r->at);
  r->have -= r->at;
  r->at = 0;
  while (r->have < n && r->pos < r->end)
    {
      size_t want = r->size - r->have;
      if (want > r->end - r->pos)
        want = (size_t)(r->end - r->pos);
      ssize_t got = pread (fd, r->buf + r->have, want, (off_t)r->pos);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return -1;
      r->have += (size_t)got;
      r->pos += (uint64_t)got;
    }
  return r->have >= n ? 0 : -1;
}

/* Step R to its next record (R->done at the end).  0 or -1. */
static int
advance (int fd, struct reader *r)
{
  if (r->have == r->at && r->pos == r->end)
    {
      r->done = 1;
      return 0;
    }
  if (fill (fd, r, 12) != 0)
    return -1;
  const uint8_t *h = r->buf + r->at;
  uint64_t key = 0;
  uint32_t len = 0;
  for (int b = 0; b < 8; b++)
    key |= (uint64_t)h[b] << (8 * b);
  for (int b = 0; b < 4; b++)
    len |= (uint32_t)h[8 + b] << (8 * b);
  if (len > MAX_RECORD || fill (fd, r, 12 + (size_t)len) != 0)
    return -1;
  r->key = key;
  r->len = len;
  r->bytes = r->buf + r->at + 12;
  r->at += 12 + len;
  return 0;
}

/* Run A's head comes before run B's: smaller key, or the earlier run on
   a tie (the order records were put in). */
static int
before (const struct reader *r, size_t a, size_t b)
{
  return r[a].key != r[b].key ? r[a].key < r[b].key : a < b;
}

static void
heap_down (const struct reader *r, size_t *h, size_t n, size_t i)
{
  for (;;)
    {
      size_t l = 2 * i + 1, m = i;
      if (l < n && before (r, h[l], h[m]))
        m = l;
      if (l + 1 < n && before (r, h[l + 1], h[m]))
        m = l + 1;
      if (m == i)
        return;
      size_t t = h[i];
      h[i] = h[m];
      h[m] = t;
      i = m;
    }
}

static void
heap_push (const struct reader *r, size_t *h, size_t *n, size_t run)
{
  size_t i = (*n)++;
  h[i] = run;
  while (i > 0 && before (r, h[i], h[(i - 1) / 2]))
    {
      size_t p = (i - 1) / 2, t = h[i];
      h[i] = h[p];
      h[p] = t;
      i = p;
    }
}

int
spool_each (struct spool *s, int (*fn) (void *ctx, uint64_t key, const uint8_t *bytes,
                                        size_t len),
            void *ctx)
{
  if (s->error)
    return -s->error;
  if (s->n_runs == 0)
    {
      /* Everything fit: sorted in memory. */
      if (sort_buffered (s) != 0)
        return fail (s, ENOMEM);
      for (size_t i = 0; i < s->n; i++)
        {
          int rc = fn (ctx, s->keys[i], s->buf + (s->at[i] >> 16), (size_t)(s->at[i] & 0xffff));
          if (rc)
            return rc;
        }
      return 0;
    }
  if (flush_run (s) != 0)
    return -s->error;
  free (s->buf);
  free (s->keys);
  free (s->at);
  s->buf = NULL;
  s->keys = s->at = NULL;
  s->cap = s->ncap = 0;
  struct reader *r = calloc (s->n_runs, sizeof *r);
  size_t *heap = malloc (s->n_runs * sizeof *heap), nh = 0;
  int rc = r && heap ? 0 : fail (s, ENOMEM);
  for (size_t i = 0; i < s->n_runs && rc == 0; i++)
    {
      r[i].pos = s->runs[i].offset;
      r[i].end = s->runs[i].offset + s->runs[i].bytes;
      r[i].size = s->runs[i].bytes < RUN_READ_BYTES ? (size_t)s->runs[i].bytes : RUN_READ_BYTES;
      if (r[i].size < 12 + MAX_RECORD)
        r[i].size = 12 + MAX_RECORD;
      if (!(r[i].buf = malloc (r[i].size)) || advance (s->fd, &r[i]) != 0)
        rc = fail (s, r[i].buf ? EIO : ENOMEM);
      else if (!r[i].done)
        heap_push (r, heap, &nh, i);
    }
  while (rc == 0 && nh > 0)
    {
      size_t best = heap[0];
      rc = fn (ctx, r[best].key, r[best].bytes, r[best].len);
      if (rc == 0 && advance (s->fd, &r[best]) != 0)
        rc = fail (s, EIO);
      if (rc == 0)
        {
          heap[0] = heap[--nh];
          heap_down (r, heap, nh, 0);
          if (!r[best].done)
            heap_push (r, heap, &nh, best);
        }
    }
  for (size_t i = 0; r && i < s->n_runs; i++)
    free (r[i].buf);
  free (r);
  free (heap);
  return rc;
}

void
spool_free (struct spool *s)
{
  free (s->buf);
  free (s->keys);
  free (s->at);
  free (s->runs);
  if (s->fd >= 0)
    close (s->fd);
  spool_init (s);
}

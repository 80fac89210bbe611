/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * window.c -- see window.h.
 *
 * Invariants: for a descriptor, BUF holds the input bytes [AT, AT + HAVE)
 * and AT only grows; a request moves the bytes it still needs to the
 * front, grows the buffer to what it needs plus the read-ahead (under the
 * budget), then reads until it has them or the input ends.  The request
 * at offset 0 (the file header) reads exactly what it asks for.
 */
#include "reader/window.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
emlat_window_mem (struct emlat_window *w, const uint8_t *buf, size_t len)
{
  static const uint8_t none[1];
  memset (w, 0, sizeof *w);
  w->mem = buf ? buf : none;
  w->mem_len = buf ? len : 0;
  w->fd = -1;
  w->size = w->mem_len;
}

void
emlat_window_fd (struct emlat_window *w, int fd, int seekable, uint64_t base, uint64_t size,
                 struct emlat_budget *budget)
{
  memset (w, 0, sizeof *w);
  w->fd = fd;
  w->seekable = seekable;
  w->base = base;
  w->size = size;
  w->budget = budget;
}

/* Up to N bytes of the input at offset OFF (a stream: the next ones).
   Returns the count, 0 at the end, -1 with errno. */
static ssize_t
read_at (struct emlat_window *w, uint8_t *dst, size_t n, uint64_t off)
{
  for (;;)
    {
      ssize_t r = w->seekable ? pread (w->fd, dst, n, (off_t)(w->base + off))
                              : read (w->fd, dst, n);
      if (r >= 0)
        return r;
      if (errno == EINTR)
        continue;
      if (!w->seekable && (errno == EAGAIN || errno == EWOULDBLOCK))
        {
          /* A stream left non-blocking by another program: wait for it. */
          struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
          if (poll (&pfd, 1, -1) >= 0 || errno == EINTR)
            continue;
        }
      return -1;
    }
}

/* Make room for TARGET bytes in the buffer (at least NEED of them).
   Returns the room made, 0 when even NEED was refused (W->err set). */
static size_t
reserve (struct emlat_window *w, size_t need, size_t target)
{
  if (target <= w->cap)
    return target;
  for (int attempt = 0; attempt < 2; attempt++)
    {
      size_t ncap = attempt == 0 ? target : need;
      if (ncap <= w->cap)
        return w->cap;
      if (emlat_budget_take (w->budget, ncap - w->cap) != 0)
        continue;
      uint8_t *nb = realloc (w->buf, ncap);
      if (!nb)
        {
          emlat_budget_give (w->budget, ncap - w->cap);
          continue;
        }
      w->buf = nb;
      w->cap = ncap;
      return ncap;
    }
  w->err = ENOMEM;
  return 0;
}

/* Discard the stream's bytes up to input offset OFF (past AT + HAVE). */
static int
skip_to (struct emlat_window *w, uint64_t off)
{
  uint8_t sink[4096];
  uint64_t pos = w->at + w->have;
  while (pos < off)
    {
      size_t n = off - pos < sizeof sink ? (size_t)(off - pos) : sizeof sink;
      ssize_t r = read_at (w, sink, n, pos);
      if (r < 0)
        {
          w->err = errno;
          return -1;
        }
      if (r == 0)
        {
          w->eof = 1;
          return -1;
        }
      pos += (uint64_t)r;
      w->consumed += (uint64_t)r;
    }
  return 0;
}

/* What a request returns before the buffer exists: nothing to read. */
static const uint8_t nothing[1];

const uint8_t *
emlat_window_get (struct emlat_window *w, uint64_t off, size_t need, size_t *avail)
{
  *avail = 0;
  if (w->mem)
    {
      if (off >= w->mem_len)
        return w->mem + w->mem_len;
      *avail = w->mem_len - off < need ? (size_t)(w->mem_len - off) : need;
      return w->mem + off;
    }
  if (off < w->at)
    {
      w->err = EINVAL; /* the scanner only moves forward */
      return w->buf ? w->buf : nothing;
    }
  /* What exists of [OFF, OFF + NEED). */
  uint64_t left = w->size == UINT64_MAX ? UINT64_MAX : w->size > off ? w->size - off : 0;
  size_t want = left < need ? (size_t)left : need;
  if (!w->buf && want == 0)
    return nothing;
  if (off + want <= w->at + w->have)
    {
      *avail = want;
      return w->buf + (off - w->at);
    }
  /* Keep only what is still needed, at the front. */
  if (off < w->at + w->have)
    {
      size_t drop = (size_t)(off - w->at);
      memmove (w->buf, w->buf + drop, w->have - drop);
      w->have -= drop;
    }
  else
    {
      if (!w->seekable && off > w->at + w->have && skip_to (w, off) != 0)
        return w->buf ? w->buf : nothing;
      w->have = 0;
    }
  w->at = off;
  if (w->err || want == 0)
    return w->buf ? w->buf : nothing;
  size_t ahead = off == 0 ? 0 : EMLAT_WINDOW_READ_AHEAD;
  size_t target = left - want < ahead ? (size_t)left : want + ahead;
  size_t room = reserve (w, want, target);
  while (room && w->have < want && !w->eof)
    {
      ssize_t r = read_at (w, w->buf + w->have, room - w->have, w->at + w->have);
      if (r < 0)
        {
          w->err = errno;
          break;
        }
      if (r == 0)
        {
          w->eof = 1;
          break;
        }
      w->have += (size_t)r;
      w->consumed = w->at + w->have > w->consumed ? w->at + w->have : w->consumed;
    }
  *avail = w->have < want ? w->have : want;
  return w->buf ? w->buf : nothing;
}

uint64_t
emlat_window_length (const struct emlat_window *w)
{
  if (w->mem)
    return w->mem_len;
  if (w->size != UINT64_MAX)
    return w->size;
  return w->consumed;
}

void
emlat_window_free (struct emlat_window *w)
{
  if (w->buf)
    {
      free (w->buf);
      emlat_budget_give (w->budget, w->cap);
    }
  w->buf = NULL;
  w->cap = w->have = 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_spool.c -- the export's spool (src/render/spool.h) gives back every
 * record once, sorted by key, records of equal key in the order they were
 * put, whether everything fit in memory or runs went through a temporary
 * file and were merged: 200,000 records of random keys (many repeated) and
 * lengths 0..300 with runs of 4 KiB, 1 MiB and the default; the bytes of
 * each record are checked.  A record too long is refused, and a stop
 * asked by the receiver is returned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render/spool.h"
#include "tap.h"
#include "testutil.h"

enum { N = 200000 };

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next (void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* Record I: its key, length and bytes (derived from I alone). */
static uint64_t key_of (size_t i)
{
  return (i * 2654435761u) % 5003; /* about 40 records per key */
}

static size_t len_of (size_t i)
{
  return (i * 7) % 301;
}

static void bytes_of (size_t i, uint8_t *b)
{
  for (size_t k = 0; k < len_of (i); k++)
    b[k] = (uint8_t)(i * 31 + k);
}

struct check
{
  uint64_t last_key;
  size_t last_index, seen, bad_order, bad_bytes;
  int first;
};

static int receive (void *ctx, uint64_t key, const uint8_t *b, size_t n)
{
  struct check *c = ctx;
  /* The record's index is in its first bytes when it has room. */
  size_t i = SIZE_MAX;
  if (n >= 4)
    i = (size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16 | (size_t)b[3] << 24;
  if (!c->first && (key < c->last_key || (key == c->last_key && i != SIZE_MAX
                                          && c->last_index != SIZE_MAX && i < c->last_index)))
    c->bad_order++;
  if (i != SIZE_MAX)
    {
      uint8_t want[301];
      bytes_of (i, want);
      memcpy (want, b, 4);
      if (i >= N || key != key_of (i) || n != len_of (i) || memcmp (want + 4, b + 4, n - 4) != 0)
        c->bad_bytes++;
      c->last_index = i;
    }
  else if (key == c->last_key && !c->first)
    ; /* a short record: its order among equals is not visible */
  else
    c->last_index = SIZE_MAX;
  c->first = 0;
  c->last_key = key;
  c->seen++;
  return 0;
}

static void run (size_t run_bytes)
{
  struct spool s;
  spool_init (&s);
  s.run_bytes = run_bytes;
  uint8_t b[301];
  for (size_t i = 0; i < N; i++)
    {
      bytes_of (i, b);
      if (len_of (i) >= 4)
        {
          b[0] = (uint8_t)i;
          b[1] = (uint8_t)(i >> 8);
          b[2] = (uint8_t)(i >> 16);
          b[3] = (uint8_t)(i >> 24);
        }
      CHECK_OK (spool_put (&s, key_of (i), b, len_of (i)));
    }
  size_t runs = s.n_runs;
  struct check c = { .first = 1 };
  CHECK_OK (spool_each (&s, receive, &c));
  CHECK_EQ_U64 (c.seen, N);
  CHECK (c.bad_order == 0 && c.bad_bytes == 0, "runs of %zu: %zu out of order, %zu wrong",
         run_bytes, c.bad_order, c.bad_bytes);
  TEST_DIAG ("runs of %zu bytes: %zu runs written", run_bytes, runs + (runs > 0));
  if (run_bytes && run_bytes < (1u << 20))
    CHECK (runs > 10, "small runs go through the file (%zu)", runs);
  spool_free (&s);
}

static int stop_at_3 (void *ctx, uint64_t key, const uint8_t *b, size_t n)
{
  (void)key;
  (void)b;
  (void)n;
  return ++*(int *)ctx == 3 ? 42 : 0;
}

int main (void)
{
  (void)next;
  run (4096);
  run (1u << 20);
  run (0);
  struct spool s;
  spool_init (&s);
  static uint8_t big[70000];
  CHECK_EQ_I64 (spool_put (&s, 1, big, sizeof big), -EINVAL);
  spool_free (&s);
  spool_init (&s);
  for (int i = 0; i < 10; i++)
    CHECK_OK (spool_put (&s, (uint64_t)i, NULL, 0));
  int calls = 0;
  CHECK_EQ_I64 (spool_each (&s, stop_at_3, &calls), 42);
  spool_free (&s);
  TEST_DONE ();
}

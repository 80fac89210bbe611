/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_leb128.c -- the varints of FORMAT.md F-2 and F-3: every boundary value
 * round-trips with the shortest encoding; decoders reject truncated input,
 * encodings longer than 10 bytes and values that overflow 64 bits, accept
 * non-shortest encodings within 10 bytes, and never read past the end.
 * The encoders' short cuts (one and two bytes) write exactly the bytes of
 * the plain one-byte-at-a-time algorithm (ref_put_*), for every value up to
 * three bytes and around every power of two.
 */
#include <stdint.h>
#include <string.h>

#include "common/leb128.h"
#include "tap.h"

static size_t
expected_ulen (uint64_t v)
{
  size_t n = 1;
  while (v >= 0x80)
    {
      v >>= 7;
      n++;
    }
  return n;
}

/* The textbook encoders, one 7-bit group per iteration. */
static size_t
ref_put_uvarint (uint8_t *p, uint64_t v)
{
  size_t n = 0;
  do
    {
      uint8_t byte = (uint8_t)(v & 0x7f);
      v >>= 7;
      p[n++] = v ? (uint8_t)(byte | 0x80) : byte;
    }
  while (v);
  return n;
}

static size_t
ref_put_svarint (uint8_t *p, int64_t v)
{
  size_t n = 0;
  for (;;)
    {
      uint8_t byte = (uint8_t)(v & 0x7f);
      v >>= 7;
      if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)))
        {
          p[n++] = byte;
          return n;
        }
      p[n++] = (uint8_t)(byte | 0x80);
    }
}

/* Number of values whose encoding differs from the reference. */
static unsigned long
differ (uint64_t u, int64_t s)
{
  uint8_t a[16], r[16];
  unsigned long bad = 0;
  size_t n = emlat_put_uvarint (a, u);
  if (n != ref_put_uvarint (r, u) || memcmp (a, r, n) != 0)
    bad++;
  n = emlat_put_svarint (a, s);
  if (n != ref_put_svarint (r, s) || memcmp (a, r, n) != 0)
    bad++;
  return bad;
}

int
main (void)
{
  uint8_t b[16];
  unsigned long bad = 0;
  for (int64_t v = -(1 << 21) - 2; v <= (1 << 21) + 2; v++)
    bad += differ ((uint64_t)v + (1 << 21) + 2, v);
  for (int k = 0; k < 64; k++)
    for (int d = -2; d <= 2; d++)
      {
        uint64_t u = ((uint64_t)1 << k) + (uint64_t)(int64_t)d;
        bad += differ (u, (int64_t)u) + differ (~u, (int64_t)(0 - u));
      }
  CHECK_EQ_U64 (bad, 0);
  /* Unsigned: 0, every 2^k - 1, 2^k, 2^k + 1, max. */
  for (int k = 0; k <= 64; k++)
    for (int d = -1; d <= 1; d++)
      {
        uint64_t v = k == 64 ? UINT64_MAX : ((uint64_t)1 << k) + (uint64_t)(int64_t)d;
        if (k == 0 && d < 0)
          v = 0;
        size_t n = emlat_put_uvarint (b, v);
        CHECK_EQ_U64 (n, expected_ulen (v));
        uint64_t out = 0;
        CHECK_EQ_U64 (emlat_get_uvarint (b, b + n, &out), n);
        CHECK_EQ_U64 (out, v);
        /* One byte short: rejected, nothing read past the end. */
        CHECK_EQ_U64 (emlat_get_uvarint (b, b + n - 1, &out), 0);
      }
  /* Signed: around every power of two, both signs, extremes. */
  for (int k = 0; k <= 62; k++)
    for (int d = -1; d <= 1; d++)
      for (int sign = -1; sign <= 1; sign += 2)
        {
          int64_t v = sign * (((int64_t)1 << k) + d);
          size_t n = emlat_put_svarint (b, v);
          int64_t out = 0;
          CHECK_EQ_U64 (emlat_get_svarint (b, b + n, &out), n);
          CHECK_EQ_I64 (out, v);
          CHECK_EQ_U64 (emlat_get_svarint (b, b + n - 1, &out), 0);
        }
  int64_t ext[] = { INT64_MIN, INT64_MAX, 0, -1, 63, 64, -64, -65 };
  size_t ext_len[] = { 10, 10, 1, 1, 1, 2, 1, 2 };
  for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
    {
      size_t n = emlat_put_svarint (b, ext[i]);
      CHECK_EQ_U64 (n, ext_len[i]);
      int64_t out = 1;
      CHECK_EQ_U64 (emlat_get_svarint (b, b + n, &out), n);
      CHECK_EQ_I64 (out, ext[i]);
    }

  /* Over-long and overflowing encodings (F-2, F-3). */
  uint64_t u;
  int64_t s;
  memset (b, 0x80, 11);
  b[10] = 0x00;
  CHECK_EQ_U64 (emlat_get_uvarint (b, b + 11, &u), 0); /* 11 bytes */
  CHECK_EQ_U64 (emlat_get_svarint (b, b + 11, &s), 0);
  memset (b, 0xff, 9);
  b[9] = 0x02; /* bit 64 set */
  CHECK_EQ_U64 (emlat_get_uvarint (b, b + 10, &u), 0);
  b[9] = 0x01;
  CHECK_EQ_U64 (emlat_get_uvarint (b, b + 10, &u), 10);
  CHECK_EQ_U64 (u, UINT64_MAX);
  b[9] = 0x3f; /* signed: bits 63..69 not a sign extension */
  CHECK_EQ_U64 (emlat_get_svarint (b, b + 10, &s), 0);
  /* Non-shortest but within 10 bytes: accepted (F-2). */
  const uint8_t padded[] = { 0x81, 0x80, 0x80, 0x00 };
  CHECK_EQ_U64 (emlat_get_uvarint (padded, padded + 4, &u), 4);
  CHECK_EQ_U64 (u, 1);
  /* Empty input. */
  CHECK_EQ_U64 (emlat_get_uvarint (b, b, &u), 0);
  CHECK_EQ_U64 (emlat_get_svarint (b, b, &s), 0);
  TEST_DONE ();
}

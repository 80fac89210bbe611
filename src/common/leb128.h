/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * leb128.h -- bounded LEB128 varints (FORMAT.md F-2, F-3).
 *
 * Encoders write at most 10 bytes and need the caller to guarantee room
 * (EMLAT_VARINT_MAX).  Decoders never read past END and reject encodings
 * longer than 10 bytes or overflowing 64 bits; they return the number of
 * bytes consumed, or 0 on error (0 is never a valid length).
 */
#ifndef EMLAT_LEB128_H
#define EMLAT_LEB128_H

#include <stddef.h>
#include <stdint.h>

#define EMLAT_VARINT_MAX 10

static inline size_t emlat_put_uvarint (uint8_t *p, uint64_t v)
{
  if (v < 0x80)
    {
      p[0] = (uint8_t)v; /* the common case: one byte */
      return 1;
    }
  if (v < 0x4000)
    {
      p[0] = (uint8_t)(v | 0x80); /* two bytes, without the loop */
      p[1] = (uint8_t)(v >> 7);
      return 2;
    }
  size_t n = 0;
  while (v >= 0x80)
    {
      p[n++] = (uint8_t)(v | 0x80);
      v >>= 7;
    }
  p[n++] = (uint8_t)v;
  return n;
}

static inline size_t emlat_put_svarint (uint8_t *p, int64_t v)
{
  if (v >= -64 && v < 64)
    {
      p[0] = (uint8_t)(v & 0x7f); /* the common case: one byte */
      return 1;
    }
  if (v >= -8192 && v < 8192)
    {
      /* Two bytes, without the loop: bit 6 of the second is the sign. */
      p[0] = (uint8_t)((v & 0x7f) | 0x80);
      p[1] = (uint8_t)((v >> 7) & 0x7f);
      return 2;
    }
  size_t n = 0;
  for (;;)
    {
      uint8_t byte = (uint8_t)(v & 0x7f);
      /* Arithmetic shift: implementation-defined for negative values in C17,
         but GCC and Clang define it as arithmetic, which the build relies on
         (checked in tests/unit/test_leb128.c). */
      v >>= 7;
      if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)))
        {
          p[n++] = byte;
          return n;
        }
      p[n++] = byte | 0x80;
    }
}

static inline size_t emlat_get_uvarint (const uint8_t *p, const uint8_t *end, uint64_t *out)
{
  uint64_t v = 0;
  for (size_t i = 0; i < EMLAT_VARINT_MAX; i++)
    {
      if (p + i >= end)
        return 0;
      uint8_t b = p[i];
      if (i == 9 && b > 1)
        return 0; /* overflows 64 bits (F-2) */
      v |= (uint64_t)(b & 0x7f) << (7 * i);
      if (!(b & 0x80))
        {
          *out = v;
          return i + 1;
        }
    }
  return 0; /* longer than 10 bytes */
}

static inline size_t emlat_get_svarint (const uint8_t *p, const uint8_t *end, int64_t *out)
{
  uint64_t v = 0;
  for (size_t i = 0; i < EMLAT_VARINT_MAX; i++)
    {
      if (p + i >= end)
        return 0;
      uint8_t b = p[i];
      if (i == 9)
        {
          /* The 10th byte holds bits 63..69; the value fits in 64 bits only
             when they are all copies of the sign bit 63 (F-3). */
          if (b != 0x00 && b != 0x7f)
            return 0;
          v |= (uint64_t)(b & 1) << 63;
          *out = (int64_t)v;
          return 10;
        }
      v |= (uint64_t)(b & 0x7f) << (7 * i);
      if (!(b & 0x80))
        {
          unsigned shift = 7 * (unsigned)(i + 1);
          if (shift < 64 && (b & 0x40))
            v |= ~(uint64_t)0 << shift; /* sign-extend */
          *out = (int64_t)v;
          return i + 1;
        }
    }
  return 0;
}

#endif /* EMLAT_LEB128_H */

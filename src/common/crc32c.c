/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * crc32c.c -- CRC32C: a portable slicing-by-8 table implementation and an
 * x86-64 SSE4.2 implementation selected at run time (cpuid).
 *
 * The crc32 instruction has a latency of three cycles and a throughput of
 * one: on a long buffer the SSE4.2 path runs three independent CRCs over
 * three consecutive blocks and combines them (the CRC of A||B is the CRC of
 * A shifted over |B| zero bytes, xor the CRC of B from zero), the method of
 * Mark Adler's crc32c.c; the shift is a table lookup per byte, built for
 * each block size on the first buffer that needs it.  Building a block
 * size's tables costs more than the three-way loop saves on a few
 * kilobytes, so buffers shorter than CRC_3WAY_MIN take the serial loop: a
 * program whose profile's start is a SESSION chunk of a kilobyte (its only
 * CRC under a driver) builds none.  The writer's chunks are tens of
 * kilobytes (docs/PERFORMANCE.md, "Writer").
 *
 * Invariant: for every input, emlat_crc32c_portable and emlat_crc32c_hw
 * return the same value (tests/unit/test_crc32c.c).  The table is built on
 * first use of the portable path, and the CPU is asked once, each under
 * pthread_once, so the functions are thread-safe and a process on a CPU
 * with SSE4.2 never builds the table.
 */
#include "crc32c.h"
#include "hot.h"

#include <pthread.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u /* reflected Castagnoli polynomial */

EMLAT_BIG_BSS static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;   /* the table */
static pthread_once_t crc_hw_once = PTHREAD_ONCE_INIT; /* crc_hw */
static int crc_hw; /* written once inside pthread_once, read after it */

/* The blocks of the three-way SSE4.2 loop, and the operators that shift a
   CRC over that many zero bytes (each pair built on the first buffer long
   enough to need it, under its pthread_once); the shortest buffer that
   takes the three-way loop. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC_LONG 8192
#define CRC_SHORT 256
#define CRC_3WAY_MIN 4096
EMLAT_BIG_BSS static uint32_t crc_zeros_long[4][256];
EMLAT_BIG_BSS static uint32_t crc_zeros_short[4][256];
static pthread_once_t crc_zeros_short_once = PTHREAD_ONCE_INIT;
static pthread_once_t crc_zeros_long_once = PTHREAD_ONCE_INIT;

static uint32_t
crc_shift (const uint32_t zeros[4][256], uint32_t crc)
{
  return zeros[0][crc & 0xff] ^ zeros[1][(crc >> 8) & 0xff] ^ zeros[2][(crc >> 16) & 0xff]
         ^ zeros[3][crc >> 24];
}

#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
/* glibc found the CPU's features at start-up: asking it costs no CPUID
   instruction (each one leaves the guest under a hypervisor). */
static int
cpu_has_sse42 (void)
{
  return CPU_FEATURE_ACTIVE (SSE4_2) != 0;
}
#else
#include <cpuid.h>
static int
cpu_has_sse42 (void)
{
  unsigned a, b, c, d;
  if (!__get_cpuid (1, &a, &b, &c, &d))
    return 0;
  return (c & bit_SSE4_2) != 0;
}
#endif
#else
static int cpu_has_sse42 (void) { return 0; }
#endif

static void
crc_init (void)
{
  for (uint32_t i = 0; i < 256; i++)
    {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
      crc_table[0][i] = c;
    }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++)
      crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

static void
crc_hw_init (void)
{
  crc_hw = cpu_has_sse42 ();
}

uint32_t
emlat_crc32c_portable (uint32_t crc, const void *buf, size_t len)
{
  pthread_once (&crc_once, crc_init);
  const uint8_t *p = buf;
  crc = ~crc;
  while (len && ((uintptr_t)p & 7))
    {
      crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
      len--;
    }
  while (len >= 8)
    {
      uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
      uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
      crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff]
            ^ crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24]
            ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff]
            ^ crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
      p += 8;
      len -= 8;
    }
  while (len--)
    crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The raw (non-inverted) CRC state S carried over LEN zero bytes, LEN a
   multiple of 8: the crc32 instruction with zero data does exactly that. */
__attribute__ ((target ("sse4.2"))) static uint32_t
crc_over_zeros (uint32_t s, size_t len)
{
  uint64_t c = s;
  for (size_t i = 0; i < len; i += 8)
    c = __builtin_ia32_crc32di (c, 0);
  return (uint32_t)c;
}

/* Carrying a state over zeros is linear in the state: an entry of a
   byte-indexed table is the xor of the entries of its bits. */
static void
crc_zeros_fill (uint32_t zeros[4][256])
{
  for (int k = 0; k < 4; k++)
    {
      zeros[k][0] = 0;
      for (uint32_t n = 3; n < 256; n++)
        if (n & (n - 1))
          zeros[k][n] = zeros[k][n & (n - 1)] ^ zeros[k][n & -n];
    }
}

/* The short shift tables: the 32 single-bit states carried over
   CRC_SHORT zero bytes by the instruction (about 17,000 instructions,
   once per process, by callgrind). */
static void
crc_zeros_short_init (void)
{
  for (int k = 0; k < 4; k++)
    for (uint32_t bit = 1; bit < 256; bit <<= 1)
      crc_zeros_short[k][bit] = crc_over_zeros (bit << (8 * k), CRC_SHORT);
  crc_zeros_fill (crc_zeros_short);
}

/* The long shift tables: the same states carried over CRC_LONG as
   CRC_LONG / CRC_SHORT short shifts (about 28,000 instructions). */
static void
crc_zeros_long_init (void)
{
  pthread_once (&crc_zeros_short_once, crc_zeros_short_init);
  for (int k = 0; k < 4; k++)
    for (uint32_t bit = 1; bit < 256; bit <<= 1)
      {
        uint32_t v = bit << (8 * k);
        for (int i = 0; i < CRC_LONG / CRC_SHORT; i++)
          v = crc_shift (crc_zeros_short, v);
        crc_zeros_long[k][bit] = v;
      }
  crc_zeros_fill (crc_zeros_long);
}

/* Three CRCs over the three BLOCK-byte blocks at P, combined into C. */
#define CRC_3WAY(block, zeros)                                                 \
  while (len >= 3 * (block))                                                   \
    {                                                                          \
      uint64_t c1 = 0, c2 = 0;                                                 \
      const uint8_t *end = p + (block);                                        \
      do                                                                       \
        {                                                                      \
          uint64_t w0, w1, w2;                                                 \
          memcpy (&w0, p, 8);                                                  \
          memcpy (&w1, p + (block), 8);                                        \
          memcpy (&w2, p + 2 * (block), 8);                                    \
          c = __builtin_ia32_crc32di (c, w0);                                  \
          c1 = __builtin_ia32_crc32di (c1, w1);                                \
          c2 = __builtin_ia32_crc32di (c2, w2);                                \
          p += 8;                                                              \
        }                                                                      \
      while (p < end);                                                         \
      c = crc_shift (zeros, (uint32_t)c) ^ (uint32_t)c1;                       \
      c = crc_shift (zeros, (uint32_t)c) ^ (uint32_t)c2;                       \
      p += 2 * (block);                                                        \
      len -= 3 * (block);                                                      \
    }

__attribute__ ((target ("sse4.2"))) uint32_t
emlat_crc32c_hw (uint32_t crc, const void *buf, size_t len)
{
  const uint8_t *p = buf;
  uint64_t c = (uint32_t)~crc;
  while (len && ((uintptr_t)p & 7))
    {
      c = __builtin_ia32_crc32qi ((uint32_t)c, *p++);
      len--;
    }
  if (len >= CRC_3WAY_MIN)
    {
      if (len >= 3 * CRC_LONG)
        {
          pthread_once (&crc_zeros_long_once, crc_zeros_long_init);
          CRC_3WAY (CRC_LONG, crc_zeros_long)
        }
      pthread_once (&crc_zeros_short_once, crc_zeros_short_init);
      CRC_3WAY (CRC_SHORT, crc_zeros_short)
    }
  while (len >= 8)
    {
      uint64_t w;
      memcpy (&w, p, 8); /* little-endian host: x86-64 */
      c = __builtin_ia32_crc32di (c, w);
      p += 8;
      len -= 8;
    }
  while (len--)
    c = __builtin_ia32_crc32qi ((uint32_t)c, *p++);
  return ~(uint32_t)c;
}
#undef CRC_3WAY
#else
uint32_t
emlat_crc32c_hw (uint32_t crc, const void *buf, size_t len)
{
  (void)crc; (void)buf; (void)len;
  return 0;
}
#endif

int
emlat_crc32c_hw_available (void)
{
  pthread_once (&crc_hw_once, crc_hw_init);
  return crc_hw;
}

uint32_t
emlat_crc32c (uint32_t crc, const void *buf, size_t len)
{
  if (emlat_crc32c_hw_available ())
    return emlat_crc32c_hw (crc, buf, len);
  return emlat_crc32c_portable (crc, buf, len);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * crc32c.c -- CRC32C: a portable slicing-by-8 table implementation and an
 * x86-64 SSE4.2 implementation selected at run time (cpuid).
 *
 * Invariant: for every input, emlat_crc32c_portable and emlat_crc32c_hw
 * return the same value (tests/unit/test_crc32c.c).  The table is built on
 * first use of the portable path, and the CPU is asked once, each under
 * pthread_once, so the functions are thread-safe and a process on a CPU
 * with SSE4.2 never builds the table.
 */
#include "crc32c.h"

#include <pthread.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u /* reflected Castagnoli polynomial */

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;   /* the table */
static pthread_once_t crc_hw_once = PTHREAD_ONCE_INIT; /* crc_hw */
static int crc_hw; /* written once inside pthread_once, read after it */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
static int
cpu_has_sse42 (void)
{
  unsigned a, b, c, d;
  if (!__get_cpuid (1, &a, &b, &c, &d))
    return 0;
  return (c & bit_SSE4_2) != 0;
}
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

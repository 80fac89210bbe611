/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_crc32c.c -- CRC32C (FORMAT.md F-6): the standard check value for the
 * portable table and for the SSE4.2 instruction path (when the CPU has it),
 * known vectors (RFC 3720 B.4), the two implementations agreeing on every
 * length and alignment up to 1 KiB and on long buffers (the three-way
 * SSE4.2 loop and the combination of its blocks), and incremental
 * computation equal to one-shot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "tap.h"

int
main (void)
{
  const char *check = "123456789";
  CHECK_EQ_U64 (emlat_crc32c_portable (0, check, 9), 0xE3069283u);
  CHECK_EQ_U64 (emlat_crc32c (0, check, 9), 0xE3069283u);
  CHECK_EQ_U64 (emlat_crc32c_portable (0, "", 0), 0);

  /* RFC 3720 appendix B.4: 32 bytes of zeros, of 0xff, ascending. */
  uint8_t v[32];
  memset (v, 0, sizeof v);
  CHECK_EQ_U64 (emlat_crc32c_portable (0, v, 32), 0x8A9136AAu);
  memset (v, 0xff, sizeof v);
  CHECK_EQ_U64 (emlat_crc32c_portable (0, v, 32), 0x62A8AB43u);
  for (int i = 0; i < 32; i++)
    v[i] = (uint8_t)i;
  CHECK_EQ_U64 (emlat_crc32c_portable (0, v, 32), 0x46DD794Eu);

  uint8_t buf[1024 + 16];
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)(i * 131 + 7);
  int hw = emlat_crc32c_hw_available ();
  if (hw)
    CHECK_EQ_U64 (emlat_crc32c_hw (0, check, 9), 0xE3069283u);
  else
    TEST_DIAG ("no SSE4.2 on this CPU: only the portable path is tested");
  for (size_t off = 0; off < 8; off++)
    for (size_t len = 0; len <= 1024; len++)
      {
        uint32_t p = emlat_crc32c_portable (0, buf + off, len);
        if (hw && emlat_crc32c_hw (0, buf + off, len) != p)
          {
            CHECK (0, "hw and portable differ at offset %zu length %zu", off, len);
            break;
          }
        /* Incremental: split anywhere, same result. */
        size_t cut = len / 3;
        uint32_t inc = emlat_crc32c (emlat_crc32c (0, buf + off, cut), buf + off + cut, len - cut);
        if (inc != p)
          {
            CHECK (0, "incremental differs at offset %zu length %zu", off, len);
            break;
          }
      }
  /* Long buffers: the three-way SSE4.2 loop (blocks of 256 and 8192
     bytes, from 4096 bytes) and its combination, at every alignment; the
     first a long one, so that the long blocks' tables are built before
     the short ones they need. */
  size_t longs[] = { 70000, 767, 768, 769, 3 * 256 + 8, 4000, 4095, 4096, 4097, 4096 + 767,
                     3 * 8192 - 1, 3 * 8192, 3 * 8192 + 1, 3 * 8192 + 3 * 256 + 5, 200003 };
  size_t big = 200003 + 16;
  uint8_t *lb = malloc (big);
  CHECK (lb != NULL, "allocating %zu bytes", big);
  if (lb)
    {
      for (size_t i = 0; i < big; i++)
        lb[i] = (uint8_t)(i * 2654435761u >> 13);
      for (size_t k = 0; k < sizeof longs / sizeof longs[0]; k++)
        for (size_t off = 0; off < 8; off++)
          {
            uint32_t p = emlat_crc32c_portable (0, lb + off, longs[k]);
            if (hw && emlat_crc32c_hw (0, lb + off, longs[k]) != p)
              CHECK (0, "hw and portable differ at offset %zu length %zu", off, longs[k]);
            uint32_t inc = emlat_crc32c (emlat_crc32c (0, lb + off, 1000), lb + off + 1000,
                                         longs[k] - (longs[k] > 1000 ? 1000 : longs[k]));
            if (longs[k] > 1000 && inc != p)
              CHECK (0, "incremental differs at offset %zu length %zu", off, longs[k]);
          }
      free (lb);
    }
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_crc32c.c -- CRC32C (FORMAT.md F-6): the standard check value for the
 * portable table and for the SSE4.2 instruction path (when the CPU has it),
 * known vectors (RFC 3720 B.4), the two implementations agreeing on every
 * length and alignment up to 1 KiB, and incremental computation equal to
 * one-shot.
 */
#include <stdio.h>
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
  TEST_DONE ();
}

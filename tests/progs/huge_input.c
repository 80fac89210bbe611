/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * huge_input.c -- large hostile inputs for the reader's memory tests
 * (tests/reader/test_huge_inputs.sh) and benchmarks, written to a file a
 * chunk at a time (never held whole):
 *
 *   huge_input random PATH BYTES   BYTES of pseudo-random data (not a
 *                                  profile: refused at its header)
 *   huge_input open PATH BYTES     a valid profile of about BYTES: a
 *                                  SESSION chunk, then INTERACTION chunks
 *                                  of begin records only, every one a new
 *                                  cause -- interactions begun and never
 *                                  completed, as many as fit (about 9
 *                                  bytes each); no final STATS
 *
 * Exit 0, or 1 with a message when the file cannot be written.  With
 * HUGE_INPUT_NO_MAIN defined, huge_input_write is for including
 * (bench/bench_scale.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EMLAT_TEST_CRAFT_H /* included already by a bench (no tests/lib path there) */
#include "craft.h"
#endif

static int huge_write_all (FILE *f, const void *p, size_t n)
{
  return fwrite (p, 1, n, f) == n ? 0 : -1;
}

static int huge_random_file (FILE *f, uint64_t bytes)
{
  static uint64_t buf[1 << 14];
  uint64_t x = 0x2545f4914f6cdd1dull;
  while (bytes)
    {
      for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
        {
          x ^= x << 13;
          x ^= x >> 7;
          x ^= x << 17;
          buf[i] = x;
        }
      size_t n = bytes < sizeof buf ? (size_t)bytes : sizeof buf;
      if (huge_write_all (f, buf, n) != 0)
        return -1;
      bytes -= n;
    }
  return 0;
}

/* Begin records (FORMAT.md 6.5, tag 2) of causes FIRST.., into chunks of
   about 1 MiB, until the file reaches BYTES. */
static int huge_open_file (FILE *f, uint64_t bytes)
{
  struct craft file = { 0 }, payload = { 0 };
  craft_file_header (&file, craft_uuid_a, 0);
  craft_session (&payload, "program.name", 1);
  craft_chunk (&file, EMLAT_CHUNK_SESSION, 1, &payload);
  uint64_t written = 0, seq = 2, cause = 1;
  enum { PER_CHUNK = 100000 };
  while (written + file.n < bytes)
    {
      if (huge_write_all (f, file.b, file.n) != 0)
        return -1;
      written += file.n;
      file.n = 0;
      craft_block (&payload, 1000000, 1, PER_CHUNK);
      for (int i = 0; i < PER_CHUNK; i++)
        {
          craft_uv (&payload, 2);                  /* begin */
          craft_uv (&payload, cause++);            /* cause */
          craft_uv (&payload, EMLAT_ROOT_TTY_COMMAND);
          craft_uv (&payload, 0);                  /* parent */
          craft_uv (&payload, 0);                  /* scheduled by */
          craft_sv (&payload, 100);                /* dispatch begin */
        }
      craft_chunk (&file, EMLAT_CHUNK_INTERACTION, seq++, &payload);
    }
  int rc = huge_write_all (f, file.b, file.n);
  craft_free (&file);
  craft_free (&payload);
  return rc;
}

/* Write the input KIND ("random", "open") of BYTES to PATH: 0, -1 on a
   write error, -2 for an unknown kind. */
static int huge_input_write (const char *kind, const char *path, uint64_t bytes)
{
  FILE *f = fopen (path, "wb");
  if (!f)
    return -1;
  int rc = strcmp (kind, "random") == 0 ? huge_random_file (f, bytes)
           : strcmp (kind, "open") == 0 ? huge_open_file (f, bytes)
                                        : -2;
  if (fclose (f) != 0 && rc == 0)
    rc = -1;
  return rc;
}

#ifndef HUGE_INPUT_NO_MAIN
int main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: huge_input random|open PATH BYTES\n");
      return 2;
    }
  int rc = huge_input_write (argv[1], argv[2], strtoull (argv[3], NULL, 0));
  if (rc == -2)
    {
      fprintf (stderr, "huge_input: unknown kind %s\n", argv[1]);
      return 2;
    }
  if (rc != 0)
    {
      fprintf (stderr, "huge_input: %s: %s\n", argv[2], strerror (errno));
      return 1;
    }
  return 0;
}
#endif

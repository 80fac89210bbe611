/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * profile_fixture.c -- small .emlat inputs for the command's tests that a
 * shell script cannot make by itself.
 *
 *   profile_fixture rotated BASE.emlat
 *       record a short session through the public API and rotate it twice:
 *       BASE.emlat, BASE.1.emlat and BASE.2.emlat, one session (F-80).
 *   profile_fixture set-codec FILE OFFSET CODEC
 *       give the chunk whose header starts at byte OFFSET of FILE the codec
 *       CODEC (FORMAT.md F-30) and reseal its header CRC, so that a reader
 *       skips the chunk as one it cannot decode: data lost, not framing
 *       damage.
 *   profile_fixture exit N [ARGS...]
 *       exit with status N at once: a command for `emlat record` built
 *       like the rest of the build (with the sanitizers of a sanitizer
 *       build, so that the preloaded libemlat-tty.so finds its runtime).
 *   profile_fixture signal N
 *       die of signal N at once, with its default action (no handler, no
 *       exit handlers run): a command that `emlat record` sees killed.
 *
 * Exit status 0, or 1 with a message on stderr (exit: N).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/endian.h"
#include "emlat/emlat.h"
#include "format/encode.h"
#include "format/format.h"

static int
rotated (const char *base)
{
  struct emlat_options o = { .path = base };
  int rc = emlat_start (&o);
  for (int f = 0; rc == 0 && f < 3; f++)
    {
      for (int i = 0; i < 20; i++)
        emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, 0), EMLAT_SPAN_OK, 0);
      rc = f < 2 ? emlat_rotate () : 0;
    }
  int src = emlat_stop ();
  if (rc == 0)
    rc = src;
  if (rc != 0)
    fprintf (stderr, "profile_fixture: %s: %s\n", base, strerror (-rc));
  return rc != 0;
}

static int
set_codec (const char *path, long offset, unsigned codec)
{
  FILE *f = fopen (path, "r+b");
  uint8_t h[EMLAT_CHUNK_HEADER_SIZE];
  if (!f || fseek (f, offset, SEEK_SET) != 0 || fread (h, 1, sizeof h, f) != sizeof h
      || emlat_le32 (h + EMLAT_CH_HEADER_SIZE) != EMLAT_CHUNK_HEADER_SIZE)
    {
      fprintf (stderr, "profile_fixture: %s: no chunk header of %d bytes at %ld\n", path,
               EMLAT_CHUNK_HEADER_SIZE, offset);
      if (f)
        fclose (f);
      return 1;
    }
  uint32_t flags = emlat_le32 (h + EMLAT_CH_FLAGS);
  emlat_put32 (h + EMLAT_CH_FLAGS, (flags & ~EMLAT_CH_CODEC_MASK) | (codec & EMLAT_CH_CODEC_MASK));
  emlat_chunk_seal (h, emlat_le64 (h + EMLAT_CH_SEQUENCE));
  if (fseek (f, offset, SEEK_SET) != 0 || fwrite (h, 1, sizeof h, f) != sizeof h
      || fclose (f) != 0)
    {
      fprintf (stderr, "profile_fixture: %s: %s\n", path, strerror (errno));
      return 1;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "rotated") == 0)
    return rotated (argv[2]);
  if (argc >= 3 && strcmp (argv[1], "exit") == 0)
    return atoi (argv[2]);
  if (argc == 3 && strcmp (argv[1], "signal") == 0)
    {
      int sig = atoi (argv[2]);
      signal (sig, SIG_DFL);
      raise (sig);
      fprintf (stderr, "profile_fixture: signal %d did not end the process\n", sig);
      return 1;
    }
  if (argc == 5 && strcmp (argv[1], "set-codec") == 0)
    return set_codec (argv[2], atol (argv[3]), (unsigned)atoi (argv[4]));
  fprintf (stderr, "usage: profile_fixture rotated BASE.emlat\n"
                   "       profile_fixture set-codec FILE OFFSET CODEC\n"
                   "       profile_fixture exit N [ARGS...]\n"
                   "       profile_fixture signal N\n");
  return 1;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_fuzz_corpus.c -- the regression driver of fuzz/fuzz_reader.c: runs
 * the fuzz target's body (scanner, profile loader, span re-scan, with its
 * invariant checks that abort) on every file of fuzz/corpus/reader, and on
 * every prefix and single-byte corruption of each, without libFuzzer, in
 * the plain test run.  A crash or abort fails the test.
 */
#define EMLAT_FUZZ_NO_MAIN 1
#include "../../fuzz/fuzz_reader.c"

#include <dirent.h>

#include "tap.h"
#include "testutil.h"

int main (void)
{
  const char *src = getenv ("SRCDIR");
  char *dir = tu_strf ("%s/fuzz/corpus/reader", src ? src : ".");
  DIR *d = opendir (dir);
  CHECK (d != NULL, "corpus directory %s", dir);
  size_t files = 0, runs = 0;
  struct dirent *e;
  while (d && (e = readdir (d)))
    {
      if (e->d_name[0] == '.')
        continue;
      char *path = tu_strf ("%s/%s", dir, e->d_name);
      uint8_t *buf;
      size_t len;
      if (tu_read_file (path, &buf, &len) == 0)
        {
          files++;
          CHECK_EQ_U64 (emlat_fuzz_one (buf, len), 0);
          /* Prefixes at a stride and byte corruptions: cheap extra coverage. */
          for (size_t l = 0; l < len; l += 1 + len / 64, runs++)
            emlat_fuzz_one (buf, l);
          for (size_t i = 0; i < len; i += 1 + len / 64, runs++)
            {
              buf[i] ^= 0xa5;
              emlat_fuzz_one (buf, len);
              buf[i] ^= 0xa5;
            }
          free (buf);
        }
      free (path);
    }
  if (d)
    closedir (d);
  CHECK (files >= 5, "corpus has %zu files", files);
  TEST_DIAG ("%zu corpus files, %zu extra runs", files, runs);
  free (dir);
  TEST_DONE ();
}

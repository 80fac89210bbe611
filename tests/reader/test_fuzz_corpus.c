/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_fuzz_corpus.c -- the regression driver of the three libFuzzer
 * targets of fuzz/, without libFuzzer, in the plain test run: each
 * target's body, with its invariant checks that abort, runs on every file
 * of its seed corpora and on prefixes and single-byte corruptions of each:
 *
 *   fuzz_reader.c         fuzz/corpus/reader
 *   fuzz_replay_script.c  fuzz/corpus/replay_script, and every built-in
 *                         workload as generated now
 *   fuzz_report.c         fuzz/corpus/report and fuzz/corpus/reader
 *
 * A crash or abort fails the test.  Beyond that, the seeds must still be
 * what they stand for: every script seed but docs-errors* parses, the
 * built-in workloads parse, and most report seeds are usable profiles.
 */
#define EMLAT_FUZZ_NO_MAIN 1
#include "../../fuzz/fuzz_reader.c"
#include "../../fuzz/fuzz_replay_script.c"
#include "../../fuzz/fuzz_report.c"

#include <dirent.h>

#include "replay/replay_workload.h"
#include "tap.h"
#include "testutil.h"

typedef int (*fuzz_fn) (const uint8_t *data, size_t size);

/* Run FN on BUF, its prefixes and its byte corruptions; counts runs. */
static void run_variants (fuzz_fn fn, uint8_t *buf, size_t len, size_t *runs)
{
  CHECK_EQ_U64 (fn (buf, len), 0);
  ++*runs;
  for (size_t l = 0; l < len; l += 1 + len / 64, ++*runs)
    fn (buf, l);
  for (size_t i = 0; i < len; i += 1 + len / 64, ++*runs)
    {
      buf[i] ^= 0xa5;
      fn (buf, len);
      buf[i] ^= 0xa5;
    }
}

/* Seeds of corpus NAME: calls EACH (path, name, buf, len) per file;
   returns the number of files. */
static size_t each_seed (const char *name,
                         void (*each) (const char *file, uint8_t *buf, size_t len, void *ctx),
                         void *ctx)
{
  const char *src = getenv ("SRCDIR");
  char *dir = tu_strf ("%s/fuzz/corpus/%s", src ? src : ".", name);
  DIR *d = opendir (dir);
  CHECK (d != NULL, "corpus directory %s", dir);
  size_t files = 0;
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
          each (e->d_name, buf, len, ctx);
          free (buf);
        }
      free (path);
    }
  if (d)
    closedir (d);
  free (dir);
  return files;
}

struct replay_ctx
{
  fuzz_fn fn;
  size_t runs;
  size_t usable;  /* report: seeds that are usable profiles */
};

static void seed_reader (const char *file, uint8_t *buf, size_t len, void *ctx)
{
  (void)file;
  struct replay_ctx *c = ctx;
  run_variants (emlat_fuzz_reader_one, buf, len, &c->runs);
}

static void seed_report (const char *file, uint8_t *buf, size_t len, void *ctx)
{
  (void)file;
  struct replay_ctx *c = ctx;
  struct emlat_buffer b = { .data = buf, .len = len };
  struct emlat_profile *p;
  if (emlat_profile_load_buffers (&b, 1, NULL, 0, &p) == 0)
    {
      c->usable += emlat_report_usable (p) && emlat_profile_totals (p)->interactions > 0;
      emlat_profile_free (p);
    }
  run_variants (emlat_fuzz_report_one, buf, len, &c->runs);
}

/* A script seed parses cleanly unless its name says it holds errors. */
static void parses (const char *what, const char *text, size_t len, int want_ok)
{
  struct replay_script s;
  memset (&s, 0, sizeof s);
  struct replay_script_defaults d = { 60, 200000000ull, 10000000000ull };
  unsigned line = 0;
  char err[256] = "";
  int rc = replay_script_parse (&s, text, len, &d, &line, err, sizeof err);
  if (want_ok)
    CHECK (rc == 0 && s.keystrokes > 0, "%s parses (line %u: %s)", what, line, err);
  else
    CHECK (rc == -1, "%s is refused", what);
  replay_script_free (&s);
}

static void seed_script (const char *file, uint8_t *buf, size_t len, void *ctx)
{
  struct replay_ctx *c = ctx;
  parses (file, (const char *)buf, len, strncmp (file, "docs-errors", 11) != 0);
  run_variants (emlat_fuzz_replay_script_one, buf, len, &c->runs);
}

int main (void)
{
  struct replay_ctx reader = { 0 }, report = { 0 }, script = { 0 };

  size_t n = each_seed ("reader", seed_reader, &reader);
  CHECK (n >= 5, "reader corpus has %zu files", n);
  TEST_DIAG ("reader: %zu seeds, %zu runs", n, reader.runs);

  n = each_seed ("report", seed_report, &report);
  n += each_seed ("reader", seed_report, &report);
  CHECK (report.usable >= 4, "%zu usable profiles among the report seeds", report.usable);
  TEST_DIAG ("report: %zu seeds (%zu usable), %zu runs", n, report.usable, report.runs);

  n = each_seed ("replay_script", seed_script, &script);
  CHECK (n >= 5, "replay_script corpus has %zu files", n);
  for (size_t i = 0; replay_workload_names[i]; i++)
    {
      struct replay_workload_params wp
        = { replay_workload_default_keys (replay_workload_names[i]), 60, 24, 80 };
      char *text = replay_workload_script (replay_workload_names[i], &wp);
      CHECK (text != NULL, "workload %s generates a script", replay_workload_names[i]);
      if (!text)
        continue;
      parses (replay_workload_names[i], text, strlen (text), 1);
      run_variants (emlat_fuzz_replay_script_one, (uint8_t *)text, strlen (text), &script.runs);
      free (text);
      n++;
    }
  TEST_DIAG ("replay_script: %zu seeds and workloads, %zu runs", n, script.runs);
  TEST_DONE ();
}

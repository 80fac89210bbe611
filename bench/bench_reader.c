/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_reader.c -- how fast the reader decodes records, through the public
 * reader API (include/emlat/emlat_reader.h).
 *
 *   bench_reader [--pairs N] [--runs R]
 *
 * Records a file of N span begin/end pairs (default 2,000,000) and N/20
 * interactions with a few fields, flushing often so nothing is lost, reads
 * it into memory once, then:
 *   reader_scan_records_per_s     emlat_scan over the buffer with a visitor
 *                                 that counts records (median of R runs)
 *   reader_profile_records_per_s  emlat_profile_load of the file (file read
 *                                 included), records / median time
 * Prints "METRIC name value unit" lines for bench/run.sh.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t
median (uint64_t *v, size_t n)
{
  qsort (v, n, sizeof *v, cmp_u64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int
count_record (void *ctx, const struct emlat_chunk_info *c,
              const struct emlat_record *r)
{
  (void)c;
  (void)r;
  ++*(uint64_t *)ctx;
  return 0;
}

static int
record_file (const char *path, uint64_t pairs)
{
  struct emlat_options opt = { .path = path };
  int rc = emlat_start (&opt);
  if (rc != 0)
    {
      fprintf (stderr, "bench_reader: emlat_start %s: %s\n", path,
               strerror (-rc));
      return -1;
    }
  uint64_t cause = 0;
  for (uint64_t i = 0; i < pairs; i++)
    {
      if (i % 20 == 0)
        {
          if (cause)
            {
              emlat_ix_mark (cause, EMLAT_T_REDISPLAY_END);
              emlat_ix_end (cause, EMLAT_STATUS_NORMAL);
            }
          cause = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
          emlat_ix_mark (cause, EMLAT_T_COMMAND_BEGIN);
          emlat_ix_count (cause, EMLAT_C_TTY_BYTES, i % 300);
        }
      uint64_t s = emlat_span_begin (EMLAT_SPAN_WINDOW_UPDATE, cause);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
      if (i % 2048 == 2047)
        emlat_flush ();
    }
  if (cause)
    emlat_ix_end (cause, EMLAT_STATUS_NORMAL);
  emlat_stop ();
  struct emlat_status st;
  emlat_status (&st);
  if (st.records_dropped)
    fprintf (stderr, "bench_reader: %llu records dropped while recording\n",
             (unsigned long long)st.records_dropped);
  return 0;
}

int
main (int argc, char **argv)
{
  uint64_t pairs = 2000000, runs = 7;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--pairs") == 0 && i + 1 < argc)
        pairs = strtoull (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
        runs = strtoull (argv[++i], NULL, 10);
      else
        {
          fprintf (stderr, "usage: bench_reader [--pairs N] [--runs R]\n");
          return 2;
        }
    }
  if (pairs == 0 || runs == 0 || runs > 1000)
    return 2;
  const char *tmp = getenv ("TMPDIR");
  char dir[4096], path[4200];
  snprintf (dir, sizeof dir, "%s/emlat-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (dir))
    {
      fprintf (stderr, "bench_reader: mkdtemp: %s\n", strerror (errno));
      return 1;
    }
  snprintf (path, sizeof path, "%s/reader.emlat", dir);
  int status = 1;
  uint8_t *buf = NULL;
  size_t len = 0;
  uint64_t *v = calloc (runs, sizeof *v);
  if (!v || record_file (path, pairs) != 0)
    goto out;
  if (emlat_read_file (path, NULL, &buf, &len) != 0)
    {
      fprintf (stderr, "bench_reader: cannot read %s\n", path);
      goto out;
    }

  uint64_t records = 0;
  for (uint64_t r = 0; r < runs; r++)
    {
      uint64_t n = 0;
      struct emlat_scan_params p = { .visitor = { .ctx = &n,
                                                  .on_record = count_record } };
      struct emlat_scan_result res;
      uint64_t t0 = emlat_now ();
      emlat_scan (buf, len, &p, &res);
      v[r] = emlat_now () - t0;
      if (res.stop != EMLAT_STOP_CLEAN)
        fprintf (stderr, "bench_reader: scan stopped: %s\n",
                 emlat_stop_name (res.stop));
      records = n;
    }
  double scan_s = (double)median (v, runs) / 1e9;

  uint64_t profile_records = 0;
  for (uint64_t r = 0; r < runs; r++)
    {
      const char *paths[] = { path };
      struct emlat_profile *prof = NULL;
      uint64_t t0 = emlat_now ();
      int rc = emlat_profile_load (paths, 1, NULL, 0, &prof);
      v[r] = emlat_now () - t0;
      if (rc != 0 || !prof)
        {
          fprintf (stderr, "bench_reader: emlat_profile_load: %s\n",
                   strerror (-rc));
          goto out;
        }
      profile_records = emlat_profile_totals (prof)->records;
      emlat_profile_free (prof);
    }
  double load_s = (double)median (v, runs) / 1e9;

  printf ("METRIC reader_file_records %llu records\n",
          (unsigned long long)records);
  printf ("METRIC reader_scan_records_per_s %.0f records/s\n",
          (double)records / scan_s);
  printf ("METRIC reader_profile_records_per_s %.0f records/s\n",
          (double)profile_records / load_s);
  status = 0;
out:
  free (buf);
  free (v);
  unlink (path);
  rmdir (dir);
  return status;
}

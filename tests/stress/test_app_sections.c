/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_app_sections.c -- the application API under load (docs/API.md):
 * 16 threads x 100,000 named section pairs each (EMLAT_SECTION_BEGIN /
 * emlat_section_end, four names per thread), the workers exit before the
 * final flush (their rings are drained by the thread-exit path), and the
 * Chrome export of the profile holds exactly 1,600,000 complete events of
 * category "section": none lost, none duplicated (every span id once),
 * each with its thread's names and on the thread that made it.  Repeated
 * in several sessions in one run (concurrency bugs are intermittent), and
 * run under ThreadSanitizer by `make tsan-test` (tests/stress/).  Under
 * ThreadSanitizer, which makes every libc call of the JSON writer some
 * fifty times slower, every round records, loads and checks the profile,
 * and only the last one also writes and counts the Chrome export.
 *
 * Rings are sized so that a worker never overflows even if the writer
 * gets no CPU (2 shared cores, 17 busy threads): overflow accounting is
 * tests/record/test_overflow.c.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "render/report_export.h"
#include "tap.h"
#include "testutil.h"

enum { THREADS = 16, PAIRS = 100000, ROUNDS = 2 };

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

struct worker
{
  pthread_t th;
  int index;
  uint64_t nonzero;
};

static void *
work (void *arg)
{
  struct worker *w = arg;
  char name[16];
  snprintf (name, sizeof name, "worker-%d", w->index);
  emlat_thread_name (name, strlen (name));
  for (int i = 0; i < PAIRS; i++)
    {
      uint64_t s;
      switch (i & 3)
        {
        case 0: s = EMLAT_SECTION_BEGIN ("parse"); break;
        case 1: s = EMLAT_SECTION_BEGIN ("layout"); break;
        case 2: s = EMLAT_SECTION_BEGIN ("paint"); break;
        default: s = EMLAT_SECTION_BEGIN ("commit"); break;
        }
      w->nonzero += s != 0;
      emlat_section_end (s);
    }
  return NULL;
}

/* The value of the integer key KEY ("\"span_id\":") after P in the event
   that ends at END; 0 when absent. */
static uint64_t
key_u64 (const char *p, const char *end, const char *key)
{
  size_t kl = strlen (key);
  const char *k = memmem (p, (size_t)(end - p), key, kl);
  return k ? strtoull (k + kl, NULL, 10) : 0;
}

/* Count the section events of the Chrome document in PATH; every span id
   below MAX_ID must appear once.  Returns the count, or -1. */
static long
count_sections (const char *path, uint64_t max_id, uint64_t *dups, uint64_t *names_bad)
{
  int fd = open (path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    return -1;
  const char *b = mmap (NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  if (b == MAP_FAILED)
    return -1;
  const char *end = b + st.st_size;
  uint8_t *seen = calloc (max_id / 8 + 1, 1);
  long n = 0;
  static const char tag[] = "{\"ph\":\"X\",\"name\":\"";
  /* A plain byte loop and searches bounded by the event: the sanitizers'
     memmem and memchr check the whole range they are given, which over
     the rest of a 300 MB document at each event would be quadratic. */
  for (const char *p = b; p + sizeof tag < end; p++)
    {
      if (*p != '{' || memcmp (p, tag, sizeof tag - 1) != 0)
        continue;
      const char *e = p;
      while (e < end && *e != '}') /* the args object's end */
        e++;
      const char *nm = p + sizeof tag - 1;
      if (e == end || !memmem (p, (size_t)(e - p), "\"cat\":\"section\"", 15))
        continue;
      if (strncmp (nm, "parse\"", 6) && strncmp (nm, "layout\"", 7) && strncmp (nm, "paint\"", 6)
          && strncmp (nm, "commit\"", 7))
        (*names_bad)++;
      uint64_t id = key_u64 (p, e, "\"span_id\":");
      if (id == 0 || id >= max_id)
        (*names_bad)++;
      else if (seen[id / 8] & (1u << (id % 8)))
        (*dups)++;
      else
        seen[id / 8] |= (uint8_t)(1u << (id % 8));
      n++;
    }
  free (seen);
  munmap ((void *)b, (size_t)st.st_size);
  return n;
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  for (int round = 0; round < ROUNDS; round++)
    {
      char *path = tu_strf ("%s/sections-%d.emlat", dir, round);
      char *json = tu_strf ("%s/sections-%d.json", dir, round);
      uint64_t t0 = tu_now_ns ();
      struct emlat_options o = { .path = path, .ring_slots = 1u << 18, .max_threads = 32 };
      CHECK_OK (emlat_start (&o));
      struct worker w[THREADS];
      memset (w, 0, sizeof w);
      for (int i = 0; i < THREADS; i++)
        {
          w[i].index = i;
          CHECK_OK (pthread_create (&w[i].th, NULL, work, &w[i]));
        }
      for (int i = 0; i < THREADS; i++)
        pthread_join (w[i].th, NULL);
      /* Every worker has exited: the flush must still find its records. */
      CHECK_OK (emlat_flush ());
      struct emlat_status st;
      emlat_status (&st);
      CHECK_EQ_U64 (st.records_dropped, 0);
      /* 2 slots per pair, 1 per thread name. */
      CHECK_EQ_U64 (st.records_written, (uint64_t)THREADS * (PAIRS * 2 + 1));
      CHECK_OK (emlat_stop ());
      for (int i = 0; i < THREADS; i++)
        CHECK_EQ_U64 (w[i].nonzero, PAIRS);

      uint64_t t1 = tu_now_ns ();
      const char *paths[] = { path };
      struct emlat_profile *p = NULL;
      CHECK_OK (emlat_profile_load (paths, 1, NULL, EMLAT_LOAD_SPANS, &p));
      if (!p)
        return 1;
      CHECK_EQ_U64 (emlat_profile_totals (p)->damage, 0);
      CHECK_EQ_U64 (emlat_profile_totals (p)->lost_records, 0);
      CHECK_EQ_U64 (emlat_profile_totals (p)->spans_complete, (uint64_t)THREADS * PAIRS);
      size_t nn;
      emlat_profile_named_spans (p, &nn);
      CHECK_EQ_U64 (nn, (uint64_t)THREADS * PAIRS);
      uint64_t t2 = tu_now_ns ();
      if (UNDER_TSAN && round < ROUNDS - 1)
        {
          emlat_profile_free (p);
          unlink (path);
          free (path);
          free (json);
          TEST_DIAG ("round %d: recorded in %.2f s, loaded in %.2f s", round,
                     (double)(t1 - t0) / 1e9, (double)(t2 - t1) / 1e9);
          continue;
        }
      FILE *f = fopen (json, "w");
      CHECK (f != NULL, "open %s", json);
      if (!f)
        return 1;
      CHECK_OK (report_export_chrome (p, f));
      CHECK_OK (fclose (f));
      /* Span ids: THREADS blocks of 4096 per refill, far below this bound. */
      size_t ns;
      const struct emlat_span *sp = emlat_profile_spans (p, &ns, NULL);
      uint64_t max_id = ns ? sp[ns - 1].id + 1 : 1;
      emlat_profile_free (p);

      uint64_t t3 = tu_now_ns ();
      uint64_t dups = 0, bad = 0;
      long n = count_sections (json, max_id, &dups, &bad);
      CHECK (n == (long)THREADS * PAIRS, "round %d: %ld section events in the Chrome export",
             round, n);
      CHECK_EQ_U64 (dups, 0);
      CHECK_EQ_U64 (bad, 0);
      TEST_DIAG ("round %d: %ld named sections exported, %llu duplicated; seconds: record %.2f,"
                 " load %.2f, export %.2f, count %.2f",
                 round, n, (unsigned long long)dups, (double)(t1 - t0) / 1e9,
                 (double)(t2 - t1) / 1e9, (double)(t3 - t2) / 1e9,
                 (double)(tu_now_ns () - t3) / 1e9);
      unlink (json);
      unlink (path);
      free (path);
      free (json);
    }
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_resources.c -- resource samples taken by the writer thread
 * (DESIGN.md section 8.6, FORMAT.md 6.10):
 *
 *  - with a 20 ms period, a session that burns CPU and touches 48 MiB
 *    gets a baseline, periodic samples and a final one, in time order;
 *    every value is bounded (RSS at most the machine's memory, CPU times
 *    and context switches never going back, a share at most every core)
 *    and the report's totals see the work (CPU >= the burn, peak RSS >=
 *    the touched memory);
 *  - without a period an idle session gets exactly the baseline and the
 *    final sample, and the writer does not wake for them;
 *  - an injected sampler failure (the library's test hook) leaves that
 *    field absent in the samples taken meanwhile -- never 0 -- and the
 *    others present; the report then has no such quantity.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"
#include "format/format.h"
#include "tap.h"
#include "testutil.h"

/* The library's test hook (src/record/sample.h). */
extern _Atomic uint32_t emlat_sample_fail_mask;

static struct emlat_profile *
load (const char *path)
{
  const char *paths[] = { path };
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load (paths, 1, NULL, 0, &p));
  return p;
}

static void
sleep_ms (long ms)
{
  struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep (&d, NULL);
}

static void
test_periodic (const char *dir)
{
  char *path = tu_strf ("%s/periodic.emlat", dir);
  struct emlat_options o = { .path = path, .sample_interval_ms = 20 };
  CHECK_OK (emlat_start (&o));
  /* 150 ms of this thread's CPU, however busy the machine is. */
  uint64_t burn_until = emlat_thread_cpu_now () + 150000000u;
  volatile uint64_t x = 0;
  while (emlat_thread_cpu_now () < burn_until)
    x++;
  size_t big = 48u << 20;
  /* Touched through a volatile pointer, which no optimizer removes. */
  volatile char *mem = malloc (big);
  CHECK (mem != NULL, "48 MiB");
  for (size_t i = 0; mem && i < big; i += 4096)
    mem[i] = 1;
  sleep_ms (100);
  CHECK_OK (emlat_stop ());
  free ((void *)mem);

  struct emlat_profile *p = load (path);
  if (!p)
    return;
  size_t n;
  const struct emlat_rd_sample *s = emlat_profile_samples (p, &n);
  TEST_DIAG ("%zu samples in %.0f ms", n, n ? (double)(s[n - 1].t - s[0].t) / 1e6 : 0.0);
  CHECK (n >= 6, "a baseline, periodic samples and a final one (%zu)", n);
  struct sysinfo si;
  sysinfo (&si);
  uint64_t total = (uint64_t)si.totalram * si.mem_unit;
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  for (size_t i = 0; i < n; i++)
    {
      uint32_t want = i == 0 ? 0x37u : 0x3fu; /* the baseline has no share */
      CHECK (s[i].mask == want, "sample %zu: fields 0x%x", i, s[i].mask);
      CHECK (s[i].v[EMLAT_RES_RSS_BYTES] > 0 && s[i].v[EMLAT_RES_RSS_BYTES] <= total,
             "sample %zu: RSS bounded", i);
      if (i)
        {
          CHECK (s[i].t >= s[i - 1].t, "sample %zu in time order", i);
          for (unsigned f = 0; f < EMLAT_RES_FIELD_COUNT; f++)
            if (f != EMLAT_RES_CPU_SHARE_PPM && f != EMLAT_RES_RSS_BYTES)
              CHECK (s[i].v[f] >= s[i - 1].v[f], "sample %zu: %s never goes back", i,
                     emlat_resource_field_name (f));
          CHECK (s[i].v[EMLAT_RES_CPU_SHARE_PPM] <= (uint64_t)ncpu * 1000000u,
                 "sample %zu: share %llu ppm at most every core", i,
                 (unsigned long long)s[i].v[EMLAT_RES_CPU_SHARE_PPM]);
        }
    }
  struct emlat_report_resources r;
  emlat_report_resources_of (p, &r);
  CHECK (r.has_cpu && r.cpu_user_ns + r.cpu_sys_ns >= 140000000u,
         "the run's CPU (%llu ns) covers the 150 ms burn",
         (unsigned long long)(r.cpu_user_ns + r.cpu_sys_ns));
  CHECK (r.has_rss && r.rss_max >= big, "peak RSS %llu covers the 48 MiB touched",
         (unsigned long long)r.rss_max);
  CHECK (r.has_share_max && r.cpu_share_max > 0.3, "a window with the burn (%.2f cores)",
         r.cpu_share_max);
  CHECK (r.has_csw, "context switches");
  emlat_profile_free (p);
  free (path);
}

static void
test_idle_default (const char *dir)
{
  char *path = tu_strf ("%s/idle.emlat", dir);
  struct emlat_options o = { .path = path };
  CHECK_OK (emlat_start (&o));
  sleep_ms (300);
  struct emlat_status st;
  emlat_status (&st);
  CHECK_OK (emlat_stop ());
  struct emlat_profile *p = load (path);
  if (!p)
    return;
  size_t n;
  emlat_profile_samples (p, &n);
  CHECK (n == 2, "without a period, an idle session: the baseline and the final sample (%zu)", n);
  size_t nk;
  const struct emlat_kv *kv = emlat_profile_stats (p, &nk);
  const struct emlat_kv *wk = emlat_kv_find (kv, nk, "stats.writer_wakeups");
  CHECK (wk && wk->u <= 1, "the writer did not wake for samples (%llu wake-ups)",
         wk ? (unsigned long long)wk->u : 0ull);
  emlat_profile_free (p);
  free (path);
}

static void
test_injected (const char *dir)
{
  char *path = tu_strf ("%s/failing.emlat", dir);
  /* Relaxed: the session is not running yet. */
  atomic_store_explicit (&emlat_sample_fail_mask, EMLAT_RES_RSS | EMLAT_RES_IVCSW,
                         memory_order_relaxed);
  struct emlat_options o = { .path = path, .sample_interval_ms = 20,
                             .flags = EMLAT_OPT_OVERWRITE };
  CHECK_OK (emlat_start (&o));
  sleep_ms (100);
  /* The readings come back: later samples have every field. */
  atomic_store_explicit (&emlat_sample_fail_mask, 0, memory_order_relaxed);
  sleep_ms (100);
  CHECK_OK (emlat_stop ());
  struct emlat_profile *p = load (path);
  if (!p)
    return;
  size_t n, failing = 0, whole = 0;
  const struct emlat_rd_sample *s = emlat_profile_samples (p, &n);
  for (size_t i = 0; i < n; i++)
    {
      int no_rss = !(s[i].mask & (1u << EMLAT_RES_RSS_BYTES));
      int no_ivcsw = !(s[i].mask & (1u << EMLAT_RES_INVOL_CSW));
      CHECK (no_rss == no_ivcsw, "sample %zu: the two injected fields fail together", i);
      if (no_rss)
        {
          failing++;
          CHECK (s[i].v[EMLAT_RES_RSS_BYTES] == 0 && (s[i].mask & (1u << EMLAT_RES_CPU_USER_NS))
                   && (s[i].mask & (1u << EMLAT_RES_VOL_CSW)),
                 "sample %zu: RSS absent, the other readings present", i);
        }
      else
        whole++;
    }
  CHECK (failing >= 2 && whole >= 2, "%zu samples with the failure, %zu without", failing, whole);
  emlat_profile_free (p);

  /* Failing throughout: the report has no RSS at all. */
  atomic_store_explicit (&emlat_sample_fail_mask, EMLAT_RES_RSS, memory_order_relaxed);
  CHECK_OK (emlat_start (&o));
  sleep_ms (50);
  CHECK_OK (emlat_stop ());
  atomic_store_explicit (&emlat_sample_fail_mask, 0, memory_order_relaxed);
  p = load (path);
  if (p)
    {
      struct emlat_report_resources r;
      emlat_report_resources_of (p, &r);
      CHECK (r.n_samples >= 2 && !r.has_rss && r.has_cpu,
             "no RSS in the report when every reading failed, CPU still there");
      emlat_profile_free (p);
    }
  free (path);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  test_periodic (dir);
  test_idle_default (dir);
  test_injected (dir);
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_load.c -- profile loading with a progress indicator, and the
 * damage judgement of report_load.h.
 *
 * The indicator: emlat_profile_load has no progress callback, so the load
 * runs on a second thread while the calling thread wakes every 100 ms and,
 * once 0.3 s have passed, rewrites one stderr line with the elapsed time
 * and the total size of the files.  Only the loading thread touches the
 * profile until it is joined; the two threads share one atomic flag.
 */
#include "cli/report_load.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"

struct load_job
{
  const char *const *paths;
  size_t n;
  unsigned flags;
  struct emlat_profile *p;
  int rc;
  atomic_int done;
};

static void *
load_thread (void *arg)
{
  struct load_job *j = arg;
  j->rc = emlat_profile_load (j->paths, j->n, NULL, j->flags, &j->p);
  /* Release: publishes j->rc and j->p to the waiting thread, which reads
     them only after pthread_join (itself a full barrier); the flag only
     ends the progress loop early. */
  atomic_store_explicit (&j->done, 1, memory_order_release);
  return NULL;
}

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
report_load (const char *const *paths, size_t n, unsigned flags, int progress,
             struct emlat_profile **out)
{
  if (!progress)
    return emlat_profile_load (paths, n, NULL, flags, out);
  struct load_job j = { .paths = paths, .n = n, .flags = flags };
  atomic_init (&j.done, 0);
  pthread_t th;
  if (pthread_create (&th, NULL, load_thread, &j) != 0)
    return emlat_profile_load (paths, n, NULL, flags, out);
  uint64_t bytes = 0;
  for (size_t i = 0; i < n; i++)
    {
      struct stat st;
      if (stat (paths[i], &st) == 0 && st.st_size > 0)
        bytes += (uint64_t)st.st_size;
    }
  double t0 = now_s ();
  int shown = 0;
  static const char spin[] = "|/-\\";
  unsigned tick = 0;
  /* Acquire: pairs with the release store in load_thread (see there). */
  while (!atomic_load_explicit (&j.done, memory_order_acquire))
    {
      struct timespec d = { 0, 100 * 1000 * 1000 };
      nanosleep (&d, NULL);
      double el = now_s () - t0;
      if (el < 0.3 || atomic_load_explicit (&j.done, memory_order_acquire))
        continue;
      fprintf (stderr, "\r%c loading %zu file%s, %.1f MB ... %.1f s", spin[tick++ % 4], n,
               n == 1 ? "" : "s", (double)bytes / 1e6, el);
      fflush (stderr);
      shown = 1;
    }
  pthread_join (th, NULL);
  if (shown)
    {
      fputs ("\r\033[K", stderr);
      fflush (stderr);
    }
  *out = j.p;
  return j.rc;
}

int
report_usable (const struct emlat_profile *p)
{
  size_t nf;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  if (emlat_profile_totals (p)->limit_hit)
    return 0;
  for (size_t i = 0; i < nf; i++)
    if (!f[i].ignored && !f[i].read_error && f[i].scan.header_ok)
      return 1;
  return 0;
}

static int
is_damage (enum emlat_diag_kind k)
{
  switch (k)
    {
    case EMLAT_DIAG_DAMAGE:
    case EMLAT_DIAG_SKIP_TYPE:
    case EMLAT_DIAG_SKIP_VERSION:
    case EMLAT_DIAG_SKIP_CODEC:
    case EMLAT_DIAG_INVALID_CHUNK:
    case EMLAT_DIAG_SEQUENCE_GAP:
    case EMLAT_DIAG_MISSING_SESSION:
    case EMLAT_DIAG_EXTRA_SESSION:
    case EMLAT_DIAG_ROTATION_MISSING:
    case EMLAT_DIAG_ROTATION_DUPLICATE:
    case EMLAT_DIAG_MIXED_SESSION:
    case EMLAT_DIAG_START_MISMATCH:
    case EMLAT_DIAG_DUPLICATE_COMPLETE:
    case EMLAT_DIAG_DUPLICATE_SPAN:
    case EMLAT_DIAG_STRING_CONFLICT:
    case EMLAT_DIAG_LIMIT:
      return 1;
    default:
      return 0;
    }
}

int
report_damaged (const struct emlat_profile *p)
{
  size_t nf, nd;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  for (size_t i = 0; i < nf; i++)
    if (f[i].read_error || !f[i].scan.header_ok || f[i].scan.stop != EMLAT_STOP_CLEAN)
      return 1;
  for (size_t i = 0; i < nd; i++)
    if (is_damage (d[i].kind))
      return 1;
  return 0;
}

void
report_print_problems (const struct emlat_profile *p, const char *verb)
{
  size_t nf, nd;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  for (size_t i = 0; i < nf; i++)
    if (f[i].read_error)
      emlat_cli_error (f[i].path, UINT64_MAX, "%s: cannot read: %s", verb,
                       strerror (f[i].read_error));
  for (size_t i = 0; i < nd; i++)
    {
      if (!is_damage (d[i].kind))
        continue;
      char buf[256];
      struct emlat_diag x = d[i];
      x.offset = UINT64_MAX;
      emlat_diag_format (&x, buf, sizeof buf);
      emlat_cli_error (d[i].file < nf ? f[d[i].file].path : NULL, d[i].offset, "%s: %s", verb,
                       buf);
    }
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  if (t->diagnostics_dropped)
    emlat_cli_error (NULL, UINT64_MAX, "%s: %" PRIu64 " more diagnostics were not kept", verb,
                     t->diagnostics_dropped);
}

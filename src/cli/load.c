/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * load.c -- profile loading with a progress indicator, standard input as
 * the operand "-", and the printing of what reading lost (judged by the
 * library, src/analysis/report_judge.c).
 *
 * Standard input is read once, whole, by the first "-" (cli_stdin) and
 * kept until exit; a set with "-" in it is loaded from memory, the other
 * files read here, with the same result as from paths.
 *
 * The indicator: emlat_profile_load has no progress callback, so the load
 * runs on a second thread while the calling thread wakes every 100 ms and,
 * once 0.3 s have passed, rewrites one stderr line with the elapsed time
 * and the total size of the files.  Only the loading thread touches the
 * profile until it is joined; the two threads share one atomic flag.
 */
#include "cli/load.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/input_open.h"

struct load_job
{
  const char *const *paths;
  const struct emlat_buffer *bufs; /* when not NULL: load these instead */
  size_t n;
  unsigned flags;
  struct emlat_profile *p;
  int rc;
  atomic_int done;
};

static int
load_now (struct load_job *j)
{
  return j->bufs ? emlat_profile_load_buffers (j->bufs, j->n, NULL, j->flags, &j->p)
                 : emlat_profile_load (j->paths, j->n, NULL, j->flags, &j->p);
}

static void *
load_thread (void *arg)
{
  struct load_job *j = arg;
  j->rc = load_now (j);
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
cli_is_stdin (const char *path)
{
  return path[0] == '-' && path[1] == 0;
}

static struct
{
  int read, error;
  uint8_t *buf;
  size_t len;
} stdin_bytes;

int
cli_stdin (const uint8_t **buf, size_t *len)
{
  if (!stdin_bytes.read)
    {
      stdin_bytes.read = 1;
      stdin_bytes.error = -emlat_read_fd (STDIN_FILENO, NULL, &stdin_bytes.buf, &stdin_bytes.len);
    }
  *buf = stdin_bytes.buf;
  *len = stdin_bytes.len;
  return -stdin_bytes.error;
}

static void
release_file (void *ctx, const uint8_t *data, size_t len)
{
  (void)ctx;
  (void)len;
  free ((void *)data);
}

/* The set PATHS as buffers: "-" lent from cli_stdin, files read here and
   handed over.  NULL when out of memory. */
static struct emlat_buffer *
set_buffers (const char *const *paths, size_t n)
{
  struct emlat_buffer *b = calloc (n, sizeof *b);
  for (size_t i = 0; b && i < n; i++)
    {
      int rc;
      b[i].name = paths[i];
      if (cli_is_stdin (paths[i]))
        rc = cli_stdin (&b[i].data, &b[i].len);
      else
        {
          uint8_t *data = NULL;
          rc = emlat_read_file (paths[i], NULL, &data, &b[i].len);
          b[i].data = data;
          b[i].release = release_file;
        }
      b[i].error = -rc;
    }
  return b;
}

int
report_load (const char *const *paths, size_t n, unsigned flags, int progress,
             struct emlat_profile **out)
{
  struct load_job j = { .paths = paths, .n = n, .flags = flags };
  for (size_t i = 0; i < n; i++)
    if (cli_is_stdin (paths[i]))
      {
        struct emlat_buffer *b = set_buffers (paths, n);
        if (!b)
          return -ENOMEM;
        j.bufs = b;
        int rc = load_now (&j); /* standard input is read already: no progress */
        free (b);
        *out = j.p;
        return rc;
      }
  if (!progress)
    return emlat_profile_load (paths, n, NULL, flags, out);
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

const char *
cli_read_error (const char *path, int err, char *buf, size_t n)
{
  struct stat st;
  const char *what = NULL;
  /* stat(2) only looks: it never opens, so it cannot block on a FIFO. */
  if ((err == EISDIR || err == ENODEV) && path && !cli_is_stdin (path) && stat (path, &st) == 0)
    what = emlat_input_type_name (st.st_mode);
  if (what)
    snprintf (buf, n, "is %s, not a regular file (- reads standard input)", what);
  else
    snprintf (buf, n, "%s", strerror (err));
  return buf;
}

size_t
report_print_problems (const struct emlat_profile *p)
{
  size_t nf, nd, printed = 0;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  for (size_t i = 0; i < nf; i++)
    if (f[i].read_error)
      {
        char why[160];
        emlat_cli_error (f[i].path, UINT64_MAX, "cannot read: %s",
                         cli_read_error (f[i].path, f[i].read_error, why, sizeof why));
        printed++;
      }
  for (size_t i = 0; i < nd; i++)
    {
      if (!emlat_report_diag_is_damage (d[i].kind))
        continue;
      char buf[256];
      struct emlat_diag x = d[i];
      x.offset = UINT64_MAX;
      emlat_diag_format (&x, buf, sizeof buf);
      emlat_cli_error (d[i].file < nf ? f[d[i].file].path : NULL, d[i].offset, "%s", buf);
      printed++;
    }
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  if (t->diagnostics_dropped)
    {
      emlat_cli_error (NULL, UINT64_MAX, "%" PRIu64 " more diagnostics were not kept",
                       t->diagnostics_dropped);
      printed++;
    }
  return printed;
}

int
report_load_usable (const char *const *paths, size_t n, unsigned flags,
                    struct emlat_profile **out)
{
  struct emlat_profile *p = NULL;
  *out = NULL;
  int rc = report_load (paths, n, flags, isatty (STDERR_FILENO), &p);
  if (rc != 0)
    {
      emlat_cli_error (n == 1 ? paths[0] : NULL, UINT64_MAX, "cannot load: %s", strerror (-rc));
      return rc == -ENOMEM ? EMLAT_EXIT_FAIL : EMLAT_EXIT_USAGE;
    }
  size_t printed = report_print_problems (p);
  if (!emlat_report_usable (p))
    {
      /* Each unreadable file was named above; say more only when not. */
      if (printed == 0)
        emlat_cli_error (n == 1 ? paths[0] : NULL, UINT64_MAX, "no readable .emlat file");
      emlat_profile_free (p);
      return EMLAT_EXIT_USAGE;
    }
  *out = p;
  return 0;
}

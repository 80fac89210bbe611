/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * load.c -- profile loading with a progress indicator, standard input as
 * the operand "-", and the printing of what reading lost (judged by the
 * library, src/analysis/report_judge.c).
 *
 * Standard input is made a regular file once, by the first "-"
 * (cli_stdin_fd): itself when it is one, else a private temporary file it
 * is copied into (header first: a stream that is not a profile costs one
 * 64-byte read), kept until exit; the reader then streams it like any
 * file, and every "-" of one command reads the same bytes.
 *
 * The indicator: emlat_profile_load has no progress callback, so the load
 * runs on a second thread while the calling thread wakes every 100 ms and,
 * once 0.3 s have passed, rewrites one stderr line with the elapsed time
 * and the total size of the files.  Only the loading thread touches the
 * profile until it is joined; the two threads share one atomic flag.
 */
#include "cli/load.h"

#include <errno.h>
#include <fcntl.h>
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
#include "format/format.h"
#include "render/spool.h"

struct load_job
{
  const struct emlat_input *in;
  size_t n;
  unsigned flags;
  emlat_interaction_fn fn;   /* a streamed load handing over interactions */
  void *ctx;
  struct emlat_profile *p;
  int rc;
  atomic_int done;
};

static int
load_now (struct load_job *j)
{
  if (j->fn)
    return emlat_profile_load_each (j->in, j->n, NULL, j->flags, j->fn, j->ctx, &j->p);
  return emlat_profile_load_inputs (j->in, j->n, NULL, j->flags, &j->p);
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

/* ------------------------------------------------------------------ */
/* Standard input                                                      */

static struct
{
  int done, fd, error;
} stdin_file = { 0, -1, 0 };

/* read(2) into BUF until N bytes or the end; the count or -errno. */
static ssize_t
read_full (int fd, uint8_t *buf, size_t n)
{
  size_t got = 0;
  while (got < n)
    {
      ssize_t r = read (fd, buf + got, n - got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return -errno;
      if (r == 0)
        break;
      got += (size_t)r;
    }
  return (ssize_t)got;
}

static int
write_full (int fd, const uint8_t *buf, size_t n)
{
  for (size_t off = 0; off < n;)
    {
      ssize_t w = write (fd, buf + off, n - off);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return -errno;
      off += (size_t)w;
    }
  return 0;
}

/* Copy standard input into the temporary file FD: its file header, and
   the rest only when that header is a profile's, at most MAX bytes.
   Returns 0 or -errno (-EFBIG past MAX). */
static int
spool (int fd, uint64_t max)
{
  uint8_t head[EMLAT_FILE_HEADER_SIZE];
  ssize_t n = read_full (STDIN_FILENO, head, sizeof head);
  if (n < 0)
    return (int)n;
  int rc = write_full (fd, head, (size_t)n);
  struct emlat_file_header h;
  if (rc || (size_t)n < sizeof head
      || emlat_parse_file_header (head, sizeof head, &h) != EMLAT_STOP_CLEAN)
    return rc; /* not a profile: the header says so, nothing more is read */
  enum { BUF = 1 << 20 };
  uint8_t *buf = malloc (BUF);
  if (!buf)
    return -ENOMEM;
  uint64_t total = (uint64_t)n;
  for (;;)
    {
      ssize_t r = read_full (STDIN_FILENO, buf, BUF);
      if (r <= 0)
        {
          rc = (int)r;
          break;
        }
      if ((uint64_t)r > max - total)
        {
          rc = -EFBIG;
          break;
        }
      total += (uint64_t)r;
      if ((rc = write_full (fd, buf, (size_t)r)) != 0)
        break;
    }
  free (buf);
  return rc;
}

int
cli_stdin_fd (void)
{
  if (!stdin_file.done)
    {
      stdin_file.done = 1;
      struct stat st;
      if (fstat (STDIN_FILENO, &st) == 0 && S_ISREG (st.st_mode)
          && lseek (STDIN_FILENO, 0, SEEK_CUR) >= 0)
        stdin_file.fd = STDIN_FILENO; /* read in place, from its offset */
      else
        {
          int fd = spool_temp_file ("emlat-stdin");
          struct emlat_limits lim;
          emlat_limits_default (&lim);
          int rc = fd < 0 ? fd : spool (fd, lim.max_file_bytes);
          if (rc == 0 && lseek (fd, 0, SEEK_SET) != 0)
            rc = -errno;
          if (rc)
            {
              if (fd >= 0)
                close (fd);
              stdin_file.error = -rc;
            }
          else
            stdin_file.fd = fd;
        }
    }
  return stdin_file.fd >= 0 ? stdin_file.fd : -stdin_file.error;
}

int
report_load (const char *const *paths, size_t n, unsigned flags, int progress,
             struct emlat_profile **out)
{
  return report_load_each (paths, n, flags, NULL, NULL, progress, out);
}

int
report_load_each (const char *const *paths, size_t n, unsigned flags, emlat_interaction_fn fn,
                  void *ctx, int progress, struct emlat_profile **out)
{
  *out = NULL;
  struct emlat_input *in = calloc (n ? n : 1, sizeof *in);
  if (!in)
    return -ENOMEM;
  int has_stdin = 0;
  for (size_t i = 0; i < n; i++)
    {
      in[i].path = paths[i];
      in[i].fd = -1;
      if (cli_is_stdin (paths[i]))
        {
          int fd = cli_stdin_fd ();
          if (fd < 0)
            {
              free (in);
              return fd;
            }
          in[i].fd = fd;
          in[i].name = "-";
          has_stdin = 1;
        }
    }
  struct load_job j = { .in = in, .n = n, .flags = flags, .fn = fn, .ctx = ctx };
  int threaded = 0;
  pthread_t th;
  if (progress && !has_stdin)
    {
      atomic_init (&j.done, 0);
      threaded = pthread_create (&th, NULL, load_thread, &j) == 0;
    }
  if (!threaded)
    {
      j.rc = load_now (&j);
      free (in);
      *out = j.p;
      return j.rc;
    }
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
  free (in);
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
  return report_load_each_usable (paths, n, flags, NULL, NULL, out);
}

int
report_load_each_usable (const char *const *paths, size_t n, unsigned flags,
                         emlat_interaction_fn fn, void *ctx, struct emlat_profile **out)
{
  struct emlat_profile *p = NULL;
  *out = NULL;
  int rc = report_load_each (paths, n, flags, fn, ctx, isatty (STDERR_FILENO), &p);
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

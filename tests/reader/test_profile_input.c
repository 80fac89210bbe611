/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_profile_input.c -- the reader's three ways in (emlat_reader.h):
 * paths, buffers in memory and a stream give the same profile for the
 * same bytes, and every limit holds whatever the input is.
 *
 *  - the demo profile (fuzz/corpus/reader/demo.emlat) and a rotated set
 *    recorded here load identically from paths, from borrowed and owned
 *    buffers, from a pipe and from a regular file's descriptor: totals
 *    (allocation differs exactly by the bytes held in memory),
 *    interactions with their fields and span aggregates, diagnostics,
 *    file summaries, session entries;
 *  - a stream longer than max_file_bytes (a pipe) is refused with EFBIG
 *    and a "max_file_bytes" limit diagnostic after reading one byte past
 *    the limit, never read to its end; a stream that is not a profile
 *    (/dev/zero) is refused at its 64-byte header;
 *  - a file loaded from a path is never held in memory, and every file of
 *    every source gives the same records when scanned again
 *    (emlat_profile_rescan);
 *  - a buffer past max_file_bytes or past what max_alloc_bytes has left
 *    is refused, the files after it are not taken, and every owned buffer
 *    is released exactly once, at the right time.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "tap.h"
#include "testutil.h"

/* ------------------------------------------------------------------ */
/* Comparing two profiles                                              */

static void same_interactions (const struct emlat_profile *a, const struct emlat_profile *b,
                               const char *what)
{
  size_t na, nb;
  const struct emlat_interaction *x = emlat_profile_interactions (a, &na);
  const struct emlat_interaction *y = emlat_profile_interactions (b, &nb);
  CHECK (na == nb, "%s: %zu interactions, %zu", what, na, nb);
  size_t bad = 0;
  for (size_t i = 0; i < na && i < nb; i++)
    {
      int same = x[i].cause == y[i].cause && x[i].thread == y[i].thread
                 && x[i].root_kind == y[i].root_kind && x[i].status == y[i].status
                 && x[i].flags == y[i].flags && x[i].time_mask == y[i].time_mask
                 && x[i].value_mask == y[i].value_mask
                 && x[i].counter_mask == y[i].counter_mask && x[i].q_mask == y[i].q_mask
                 && x[i].file == y[i].file && x[i].offset == y[i].offset;
      for (unsigned f = 0; same && f < EMLAT_T_FIELD_COUNT; f++)
        {
          uint64_t u = 0, v = 0;
          enum emlat_quality qu = 0, qv = 0;
          int hu = emlat_profile_ix_time (a, &x[i], (enum emlat_time_field)f, &u, &qu);
          int hv = emlat_profile_ix_time (b, &y[i], (enum emlat_time_field)f, &v, &qv);
          same = hu == hv && u == v && qu == qv;
        }
      size_t ga, gb;
      const struct emlat_span_agg *sa = emlat_profile_ix_aggs (a, &x[i], &ga);
      const struct emlat_span_agg *sb = emlat_profile_ix_aggs (b, &y[i], &gb);
      same = same && ga == gb && (ga == 0 || memcmp (sa, sb, ga * sizeof *sa) == 0);
      bad += !same;
    }
  CHECK (bad == 0, "%s: %zu interactions differ", what, bad);
}

static void same_diags (const struct emlat_profile *a, const struct emlat_profile *b,
                        const char *what)
{
  size_t na, nb;
  const struct emlat_diag *x = emlat_profile_diags (a, &na);
  const struct emlat_diag *y = emlat_profile_diags (b, &nb);
  CHECK (na == nb, "%s: %zu diagnostics, %zu", what, na, nb);
  size_t bad = 0;
  for (size_t i = 0; i < na && i < nb; i++)
    bad += !(x[i].kind == y[i].kind && x[i].file == y[i].file && x[i].offset == y[i].offset
             && x[i].a == y[i].a && x[i].b == y[i].b && x[i].type == y[i].type
             && x[i].version == y[i].version && strcmp (x[i].what, y[i].what) == 0);
  CHECK (bad == 0, "%s: %zu diagnostics differ", what, bad);
}

/* Records of a re-scan, and a checksum of what they say. */
struct tally
{
  uint64_t records, sum;
};

static int tally_record (void *ctx, const struct emlat_chunk_info *c, const struct emlat_record *r)
{
  struct tally *t = ctx;
  t->records++;
  t->sum = t->sum * 31 + c->offset + (uint64_t)r->kind + r->thread;
  return 0;
}

/* File I of P scanned again (emlat_profile_rescan) into *T; 0 or its
   error. */
static int rescan_tally (const struct emlat_profile *p, size_t i, struct tally *t,
                         struct emlat_scan_result *res)
{
  struct emlat_scan_params sp;
  memset (&sp, 0, sizeof sp);
  memset (t, 0, sizeof *t);
  sp.visitor.ctx = t;
  sp.visitor.on_record = tally_record;
  return emlat_profile_rescan (p, i, &sp, res);
}

/* The files of A (loaded from paths: streamed, never held) and B (from any
   source) have the same summaries and give the same records when scanned
   again; the bytes B holds in memory add up to HELD. */
static void same_files (const struct emlat_profile *a, const struct emlat_profile *b,
                        const char *what, uint64_t *held)
{
  size_t na, nb;
  const struct emlat_file_summary *x = emlat_profile_files (a, &na);
  const struct emlat_file_summary *y = emlat_profile_files (b, &nb);
  CHECK (na == nb, "%s: %zu files, %zu", what, na, nb);
  *held = 0;
  for (size_t i = 0; i < na && i < nb; i++)
    {
      CHECK (x[i].ignored == y[i].ignored && x[i].read_error == y[i].read_error,
             "%s: file %zu ignored %d/%d error %d/%d", what, i, x[i].ignored, y[i].ignored,
             x[i].read_error, y[i].read_error);
      CHECK (memcmp (&x[i].scan, &y[i].scan, sizeof x[i].scan) == 0,
             "%s: file %zu scan results differ", what, i);
      size_t la, lb;
      CHECK (emlat_profile_file_data (a, i, &la) == NULL && la == 0,
             "%s: file %zu from a path is not held in memory", what, i);
      if (emlat_profile_file_data (b, i, &lb))
        *held += lb;
      struct tally ta, tb;
      struct emlat_scan_result ra, rb;
      CHECK_OK (rescan_tally (a, i, &ta, &ra));
      CHECK_OK (rescan_tally (b, i, &tb, &rb));
      CHECK (ta.records == tb.records && ta.sum == tb.sum && ta.records == x[i].scan.records,
             "%s: file %zu scanned again: %llu and %llu records (%llu at load)", what, i,
             (unsigned long long)ta.records, (unsigned long long)tb.records,
             (unsigned long long)x[i].scan.records);
      CHECK (memcmp (&ra, &x[i].scan, sizeof ra) == 0 && memcmp (&rb, &ra, sizeof ra) == 0,
             "%s: file %zu: the re-scan's result is the load's", what, i);
    }
}

static void same_kv (const struct emlat_kv *x, size_t na, const struct emlat_kv *y, size_t nb,
                     const char *what)
{
  CHECK (na == nb, "%s: %zu entries, %zu", what, na, nb);
  size_t bad = 0;
  for (size_t i = 0; i < na && i < nb; i++)
    bad += !(x[i].key_len == y[i].key_len && memcmp (x[i].key, y[i].key, x[i].key_len) == 0
             && x[i].type == y[i].type && x[i].u == y[i].u && x[i].i == y[i].i
             && x[i].s_len == y[i].s_len
             && (x[i].s_len == 0 || memcmp (x[i].s, y[i].s, x[i].s_len) == 0));
  CHECK (bad == 0, "%s: %zu entries differ", what, bad);
}

/* A and B hold the same profile; frees B. */
static void same_profile (const struct emlat_profile *a, struct emlat_profile *b,
                          const char *what)
{
  CHECK (b != NULL, "%s: loaded", what);
  if (!b)
    return;
  struct emlat_profile_totals ta = *emlat_profile_totals (a);
  struct emlat_profile_totals tb = *emlat_profile_totals (b);
  uint64_t held;
  same_interactions (a, b, what);
  same_diags (a, b, what);
  same_files (a, b, what, &held);
  /* What differs: the bytes a source holds in memory are charged. */
  CHECK (tb.alloc_bytes == ta.alloc_bytes + held,
         "%s: %llu bytes charged, %llu from paths + %llu held", what,
         (unsigned long long)tb.alloc_bytes, (unsigned long long)ta.alloc_bytes,
         (unsigned long long)held);
  ta.alloc_bytes = tb.alloc_bytes = 0;
  CHECK (memcmp (&ta, &tb, sizeof ta) == 0,
         "%s: totals differ (interactions %llu/%llu, diagnostics %llu/%llu)", what,
         (unsigned long long)ta.interactions, (unsigned long long)tb.interactions,
         (unsigned long long)ta.diagnostics, (unsigned long long)tb.diagnostics);
  size_t na, nb;
  const struct emlat_kv *ka = emlat_profile_session (a, &na), *kb = emlat_profile_session (b, &nb);
  same_kv (ka, na, kb, nb, what);
  ka = emlat_profile_stats (a, &na);
  kb = emlat_profile_stats (b, &nb);
  same_kv (ka, na, kb, nb, what);
  emlat_profile_inputs (a, &na);
  emlat_profile_inputs (b, &nb);
  CHECK (na == nb, "%s: %zu input batches, %zu", what, na, nb);
  emlat_profile_free (b);
}

/* ------------------------------------------------------------------ */
/* Inputs                                                              */

/* Counts calls of count_release. */
struct releases
{
  unsigned calls;
  unsigned wrong;   /* called with bytes it was not given */
  const uint8_t *expect[8];
};

static void count_release (void *ctx, const uint8_t *data, size_t len)
{
  struct releases *r = ctx;
  (void)len;
  int known = 0;
  for (size_t i = 0; i < sizeof r->expect / sizeof r->expect[0]; i++)
    if (r->expect[i] == data)
      known = 1;
  r->wrong += !known;
  r->calls++;
  free ((void *)data);
}

struct feeder
{
  int fd;
  const uint8_t *buf;
  size_t len;
  unsigned repeat;  /* write BUF that many times */
  size_t written;
};

static void *feed (void *arg)
{
  struct feeder *f = arg;
  for (unsigned r = 0; r < f->repeat; r++)
    for (size_t off = 0; off < f->len;)
      {
        ssize_t w = write (f->fd, f->buf + off, f->len - off);
        if (w < 0)
          {
            if (errno == EINTR)
              continue;
            goto out; /* EPIPE: the reader stopped reading */
          }
        off += (size_t)w;
        f->written += (size_t)w;
      }
out:
  close (f->fd);
  return NULL;
}

/* Load BUF (REPEAT times over) through a pipe fed by a second thread. */
static int load_pipe (const uint8_t *buf, size_t len, unsigned repeat,
                      const struct emlat_limits *lim, struct emlat_profile **out,
                      size_t *written)
{
  int fds[2];
  if (pipe (fds) != 0)
    return -errno;
  struct feeder f = { fds[1], buf, len, repeat, 0 };
  pthread_t th;
  if (pthread_create (&th, NULL, feed, &f) != 0)
    {
      close (fds[0]);
      close (fds[1]);
      return -EAGAIN;
    }
  int rc = emlat_profile_load_fd (fds[0], "pipe", lim, EMLAT_LOAD_SPANS, out);
  close (fds[0]);
  pthread_join (th, NULL);
  if (written)
    *written = f.written;
  return rc;
}

/* PATHS[0..N) loaded every way that takes a set; REF from the paths. */
static void every_way (const char *const *paths, size_t n, const char *what)
{
  struct emlat_profile *ref = NULL, *p;
  CHECK_OK (emlat_profile_load (paths, n, NULL, EMLAT_LOAD_SPANS, &ref));
  if (!ref)
    return;
  struct emlat_buffer bufs[8];
  uint8_t *data[8];
  struct releases rel;
  memset (&rel, 0, sizeof rel);
  memset (bufs, 0, sizeof bufs);
  for (size_t i = 0; i < n; i++)
    {
      size_t len;
      CHECK_OK (tu_read_file (paths[i], &data[i], &len));
      bufs[i].data = data[i];
      bufs[i].len = len;
      bufs[i].name = paths[i];
    }

  /* Borrowed buffers: the caller keeps them. */
  p = NULL;
  CHECK_OK (emlat_profile_load_buffers (bufs, n, NULL, EMLAT_LOAD_SPANS, &p));
  char *w = tu_strf ("%s, borrowed buffers", what);
  same_profile (ref, p, w);
  free (w);

  /* Owned buffers: released once each, by emlat_profile_free. */
  for (size_t i = 0; i < n; i++)
    {
      uint8_t *copy = malloc (bufs[i].len + 1);
      memcpy (copy, data[i], bufs[i].len);
      bufs[i].data = copy;
      bufs[i].release = count_release;
      bufs[i].release_ctx = &rel;
      rel.expect[i] = copy;
    }
  p = NULL;
  CHECK_OK (emlat_profile_load_buffers (bufs, n, NULL, EMLAT_LOAD_SPANS, &p));
  CHECK (rel.calls == 0, "%s: no buffer released while the profile lives (%u)", what, rel.calls);
  w = tu_strf ("%s, owned buffers", what);
  same_profile (ref, p, w);
  free (w);
  CHECK (rel.calls == n && rel.wrong == 0, "%s: %u releases for %zu buffers (%u wrong)", what,
         rel.calls, n, rel.wrong);

  /* Each file read through a pipe with emlat_read_fd, then as buffers. */
  for (size_t i = 0; i < n; i++)
    {
      int fds[2];
      CHECK_OK (pipe (fds) == 0 ? 0 : -errno);
      struct feeder f = { fds[1], data[i], bufs[i].len, 1, 0 };
      pthread_t th;
      pthread_create (&th, NULL, feed, &f);
      uint8_t *got = NULL;
      size_t len = 0;
      CHECK_OK (emlat_read_fd (fds[0], NULL, &got, &len));
      close (fds[0]);
      pthread_join (th, NULL);
      CHECK (len == bufs[i].len && memcmp (got, data[i], len) == 0,
             "%s: file %zu read through a pipe: %zu bytes", what, i, len);
      bufs[i].data = got;
      rel.expect[i] = got;
    }
  rel.calls = 0;
  p = NULL;
  CHECK_OK (emlat_profile_load_buffers (bufs, n, NULL, EMLAT_LOAD_SPANS, &p));
  w = tu_strf ("%s, read through pipes", what);
  same_profile (ref, p, w);
  free (w);
  CHECK (rel.calls == n && rel.wrong == 0, "%s: %u releases", what, rel.calls);
  emlat_profile_free (ref);

  /* Each file alone: path, pipe, regular file descriptor, buffer. */
  for (size_t i = 0; i < n; i++)
    {
      ref = NULL;
      CHECK_OK (emlat_profile_load (&paths[i], 1, NULL, EMLAT_LOAD_SPANS, &ref));
      if (!ref)
        continue;
      p = NULL;
      CHECK_OK (load_pipe (data[i], bufs[i].len, 1, NULL, &p, NULL));
      w = tu_strf ("%s, file %zu from a pipe", what, i);
      same_profile (ref, p, w);
      free (w);
      int fd = open (paths[i], O_RDONLY);
      p = NULL;
      CHECK_OK (emlat_profile_load_fd (fd, NULL, NULL, EMLAT_LOAD_SPANS, &p));
      close (fd);
      size_t nf;
      CHECK_EQ_STR (p ? emlat_profile_files (p, &nf)[0].path : NULL, "-");
      w = tu_strf ("%s, file %zu from a descriptor", what, i);
      same_profile (ref, p, w);
      free (w);
      struct emlat_buffer one = { .data = data[i], .len = bufs[i].len };
      p = NULL;
      CHECK_OK (emlat_profile_load_buffers (&one, 1, NULL, EMLAT_LOAD_SPANS, &p));
      CHECK_EQ_STR (p ? emlat_profile_files (p, &nf)[0].path : NULL, "(memory)");
      w = tu_strf ("%s, file %zu from memory", what, i);
      same_profile (ref, p, w);
      free (w);
      emlat_profile_free (ref);
    }
  for (size_t i = 0; i < n; i++)
    free (data[i]);
}

/* A rotated set of at least 3 files; returns their paths, sets *N. */
static char **record_rotated_set (const char *dir, size_t *n)
{
  char *base = tu_strf ("%s/rot.emlat", dir);
  struct emlat_options o = { .path = base, .rotate_bytes = 16 * 1024, .chunk_bytes = 4096,
                             .ring_slots = 1u << 14 };
  CHECK_OK (emlat_start (&o));
  uint64_t str = emlat_string ("input-detail", 12);
  for (int i = 0; i < 1500; i++)
    {
      uint64_t ix = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      uint64_t s = emlat_span_begin (EMLAT_SPAN_COMMAND, ix);
      emlat_span_end (s, EMLAT_SPAN_OK, str);
      emlat_ix_mark (ix, EMLAT_T_FLUSH_END);
      emlat_ix_end (ix, EMLAT_STATUS_NORMAL);
      if (i % 100 == 0)
        emlat_flush ();
      if (i == 700)
        emlat_rotate ();
    }
  struct emlat_status st;
  emlat_status (&st);
  CHECK_OK (emlat_stop ());
  CHECK_GE_U64 (st.files, 3);
  char **paths = calloc (st.files, sizeof *paths);
  for (uint64_t f = 0; f < st.files; f++)
    paths[f] = f == 0 ? tu_strf ("%s", base)
                      : tu_strf ("%s/rot.%llu.emlat", dir, (unsigned long long)f);
  free (base);
  *n = st.files;
  return paths;
}

/* ------------------------------------------------------------------ */
/* Limits                                                              */

static const char *limit_named (const struct emlat_profile *p)
{
  size_t nd;
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  for (size_t i = 0; i < nd; i++)
    if (d[i].kind == EMLAT_DIAG_LIMIT)
      return d[i].what;
  return NULL;
}

static void stream_limits (const uint8_t *demo, size_t demo_len)
{
  struct emlat_limits lim;
  memset (&lim, 0, sizeof lim);
  lim.max_file_bytes = 256 * 1024;

  /* A pipe holding 4 MiB: refused after max_file_bytes + 1 bytes. */
  struct emlat_profile *p = NULL;
  size_t written = 0;
  CHECK_OK (load_pipe (demo, demo_len, (unsigned)(4 * 1024 * 1024 / demo_len), &lim, &p,
                       &written));
  if (p)
    {
      size_t nf;
      const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
      CHECK_EQ_U64 (nf, 1);
      CHECK_EQ_I64 (f[0].read_error, EFBIG);
      CHECK_EQ_STR (limit_named (p), "max_file_bytes");
      CHECK (emlat_profile_totals (p)->limit_hit, "the limit is reported in the totals");
      CHECK_LE_U64 (emlat_profile_totals (p)->alloc_bytes, lim.max_file_bytes);
      CHECK_EQ_U64 (emlat_profile_totals (p)->interactions, 0);
      emlat_profile_free (p);
    }
  CHECK_LT_U64 (written, 4 * 1024 * 1024 - demo_len);
  TEST_DIAG ("a 4 MiB pipe refused at 256 KiB: %zu bytes written before the reader stopped",
             written);

  /* An endless stream: /dev/zero ends only at the limit. */
  int fd = open ("/dev/zero", O_RDONLY);
  CHECK (fd >= 0, "/dev/zero opens");
  uint8_t *buf = (uint8_t *)1;
  size_t len = 1;
  CHECK_EQ_I64 (emlat_read_fd (fd, &lim, &buf, &len), -EFBIG);
  CHECK (buf == NULL && len == 0, "nothing returned past the limit");
  /* As a profile it is refused at its header: 64 bytes read, no limit
     reached, nothing held past them. */
  p = NULL;
  CHECK_OK (emlat_profile_load_fd (fd, "/dev/zero", &lim, 0, &p));
  if (p)
    {
      size_t nf;
      const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
      CHECK_EQ_I64 (f[0].read_error, 0);
      CHECK_EQ_I64 (f[0].scan.stop, EMLAT_STOP_BAD_MAGIC);
      CHECK_EQ_U64 (f[0].scan.file_bytes, 64);
      CHECK (limit_named (p) == NULL, "no limit: refused at the header");
      CHECK_LE_U64 (emlat_profile_totals (p)->alloc_bytes, 4096);
      emlat_profile_free (p);
    }
  close (fd);

  /* A stream within max_file_bytes but past max_alloc_bytes names the
     budget. */
  lim.max_file_bytes = 0;
  lim.max_alloc_bytes = demo_len / 2;
  p = NULL;
  CHECK_OK (load_pipe (demo, demo_len, 1, &lim, &p, NULL));
  if (p)
    {
      size_t nf;
      CHECK_EQ_I64 (emlat_profile_files (p, &nf)[0].read_error, EFBIG);
      CHECK_EQ_STR (limit_named (p), "max_alloc_bytes (file buffers)");
      emlat_profile_free (p);
    }

  /* Exactly max_file_bytes fits. */
  lim.max_alloc_bytes = 0;
  lim.max_file_bytes = demo_len;
  p = NULL;
  CHECK_OK (load_pipe (demo, demo_len, 1, &lim, &p, NULL));
  if (p)
    {
      size_t nf;
      CHECK_EQ_I64 (emlat_profile_files (p, &nf)[0].read_error, 0);
      CHECK (limit_named (p) == NULL, "no limit at exactly max_file_bytes");
      CHECK_GT_U64 (emlat_profile_totals (p)->interactions, 0);
      emlat_profile_free (p);
    }
}

static void buffer_limits (const uint8_t *demo, size_t demo_len)
{
  struct releases rel;
  memset (&rel, 0, sizeof rel);
  struct emlat_buffer b[3];
  memset (b, 0, sizeof b);
  for (int i = 0; i < 3; i++)
    {
      uint8_t *copy = malloc (demo_len);
      memcpy (copy, demo, demo_len);
      b[i].data = copy;
      b[i].len = demo_len;
      b[i].release = count_release;
      b[i].release_ctx = &rel;
      rel.expect[i] = copy;
    }
  /* Room for one file: the second is refused, the third not taken. */
  struct emlat_limits lim;
  memset (&lim, 0, sizeof lim);
  lim.max_alloc_bytes = demo_len + demo_len / 2;
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load_buffers (b, 3, &lim, 0, &p));
  CHECK (rel.calls == 2, "two buffers released before the load returns (%u)", rel.calls);
  if (p)
    {
      size_t nf;
      const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
      CHECK_EQ_U64 (nf, 3);
      CHECK_EQ_I64 (f[0].read_error, 0);
      CHECK_EQ_I64 (f[1].read_error, EFBIG);
      CHECK_EQ_I64 (f[2].read_error, ECANCELED);
      CHECK_EQ_STR (limit_named (p), "max_alloc_bytes (file buffers)");
      CHECK_LE_U64 (emlat_profile_totals (p)->alloc_bytes, lim.max_alloc_bytes);
      emlat_profile_free (p);
    }
  CHECK (rel.calls == 3 && rel.wrong == 0, "every buffer released once (%u, %u wrong)",
         rel.calls, rel.wrong);

  /* Past max_file_bytes: refused and released at once. */
  memset (&rel, 0, sizeof rel);
  uint8_t *copy = malloc (demo_len);
  memcpy (copy, demo, demo_len);
  rel.expect[0] = copy;
  struct emlat_buffer big = { .data = copy, .len = demo_len, .name = "big",
                              .release = count_release, .release_ctx = &rel };
  memset (&lim, 0, sizeof lim);
  lim.max_file_bytes = demo_len - 1;
  p = NULL;
  CHECK_OK (emlat_profile_load_buffers (&big, 1, &lim, 0, &p));
  CHECK (rel.calls == 1, "refused buffer released before the load returns (%u)", rel.calls);
  if (p)
    {
      size_t nf;
      const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
      CHECK_EQ_I64 (f[0].read_error, EFBIG);
      CHECK_EQ_STR (f[0].path, "big");
      CHECK_EQ_STR (limit_named (p), "max_file_bytes");
      emlat_profile_free (p);
    }
  CHECK_EQ_U64 (rel.calls, 1);

  /* More buffers than max_files: none read, every one released. */
  memset (&rel, 0, sizeof rel);
  for (int i = 0; i < 3; i++)
    {
      copy = malloc (demo_len);
      memcpy (copy, demo, demo_len);
      b[i].data = copy;
      rel.expect[i] = copy;
    }
  memset (&lim, 0, sizeof lim);
  lim.max_files = 2;
  p = NULL;
  CHECK_OK (emlat_profile_load_buffers (b, 3, &lim, 0, &p));
  CHECK (rel.calls == 3, "all three released (%u)", rel.calls);
  if (p)
    {
      CHECK_EQ_STR (limit_named (p), "max_files");
      emlat_profile_free (p);
    }

  /* A caller's read error is reported as the file's. */
  struct emlat_buffer err = { .name = "gone", .error = ENOENT };
  p = NULL;
  CHECK_OK (emlat_profile_load_buffers (&err, 1, NULL, 0, &p));
  if (p)
    {
      size_t nf;
      CHECK_EQ_I64 (emlat_profile_files (p, &nf)[0].read_error, ENOENT);
      emlat_profile_free (p);
    }
  CHECK_EQ_I64 (emlat_profile_load_buffers (NULL, 1, NULL, 0, &p), -EINVAL);
  CHECK_EQ_I64 (emlat_profile_load_fd (-1, NULL, NULL, 0, &p), -EINVAL);
}

int main (void)
{
  signal (SIGPIPE, SIG_IGN);
  const char *src = getenv ("SRCDIR");
  char *demo_path = tu_strf ("%s/fuzz/corpus/reader/demo.emlat", src ? src : ".");
  uint8_t *demo;
  size_t demo_len;
  CHECK_OK (tu_read_file (demo_path, &demo, &demo_len));
  if (!demo)
    TEST_DONE ();

  const char *one[1] = { demo_path };
  every_way (one, 1, "demo");

  const char *dir = tu_tmpdir ();
  size_t n = 0;
  char **set = record_rotated_set (dir, &n);
  TEST_DIAG ("rotated set of %zu files", n);
  CHECK_LE_U64 (n, 8);
  if (n > 8)
    n = 8;
  /* Given out of order: the loader orders by rotation (F-81). */
  const char *shuffled[8];
  for (size_t i = 0; i < n; i++)
    shuffled[i] = set[(i + 1) % n];
  every_way (shuffled, n, "rotated set");
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load (shuffled, n, NULL, 0, &p));
  if (p)
    {
      const struct emlat_profile_totals *t = emlat_profile_totals (p);
      CHECK_EQ_U64 (t->files_read, n);
      CHECK_EQ_U64 (t->interactions, 1500);
      CHECK_EQ_U64 (t->sequence_gaps, 0);
      CHECK (t->clean_stop, "the set ends in a final STATS chunk");
      emlat_profile_free (p);
    }

  stream_limits (demo, demo_len);
  buffer_limits (demo, demo_len);

  for (size_t i = 0; i < n; i++)
    free (set[i]);
  free (set);
  free (demo);
  free (demo_path);
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_kill9.c -- a process killed with SIGKILL while recording leaves a
 * file whose complete chunks all read back (DESIGN.md section 8.3: a process
 * crash can lose at most a partial current chunk).
 *
 * A child records interactions and spans continuously on two threads; the
 * parent kills it at several moments, counted from the writer's first data
 * written after the SESSION chunk (on a loaded machine, or in a sanitizer
 * build, the writer may not get a core for a while: two threads spin).  The file must start with a valid
 * header and SESSION chunk, hold data chunks, and either end cleanly at a
 * chunk boundary or stop at an incomplete final chunk -- never at a CRC
 * failure in the middle -- and a truncated copy at every chunk boundary the
 * scan found must read back clean.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

static void *
spinner (void *arg)
{
  (void)arg;
  for (;;)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
    }
  return 0;
}

/* Records until killed; writes one byte to READY_FD once it records, so
   that the parent's delays count from then (a sanitizer build starts
   slowly). */
static void
child (const char *path, int ready_fd)
{
  struct emlat_options o = { .path = path, .drain_interval_us = 1000 };
  if (emlat_start (&o) != 0)
    _exit (3);
  pthread_t th;
  pthread_create (&th, 0, spinner, 0);
  if (write (ready_fd, "r", 1) != 1)
    _exit (4);
  for (;;)
    {
      uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      uint64_t s = emlat_span_begin (EMLAT_SPAN_COMMAND, c);
      emlat_ix_mark (c, EMLAT_T_COMMAND_BEGIN);
      for (volatile int i = 0; i < 2000; i++)
        ;
      emlat_ix_mark (c, EMLAT_T_COMMAND_END);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
      emlat_ix_end (c, EMLAT_STATUS_NORMAL);
    }
}

struct offs
{
  uint64_t v[1 << 16];
  size_t n;
};

static int
on_chunk (void *ctx, const struct emlat_chunk_info *c, int decoded)
{
  struct offs *o = ctx;
  (void)decoded;
  if (o->n < sizeof o->v / sizeof o->v[0])
    o->v[o->n++] = c->offset;
  return 0;
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  const int delays_ms[] = { 30, 120, 400 };
  for (size_t k = 0; k < sizeof delays_ms / sizeof delays_ms[0]; k++)
    {
      char *path = tu_strf ("%s/kill-%zu.emlat", dir, k);
      int ready[2];
      CHECK_EQ_I64 (pipe (ready), 0);
      pid_t pid = fork ();
      if (pid == 0)
        child (path, ready[1]);
      close (ready[1]);
      char byte;
      CHECK_EQ_I64 (read (ready[0], &byte, 1), 1);
      close (ready[0]);
      /* The profile holds its start (emlat_start wrote it): wait until the
         writer wrote more, so that every kill finds data chunks. */
      struct stat st;
      CHECK (stat (path, &st) == 0, "stat %s", path);
      off_t start_size = st.st_size;
      uint64_t t_ready = emlat_now ();
      while (stat (path, &st) == 0 && st.st_size <= start_size
             && emlat_now () - t_ready < 20000000000u)
        usleep (1000);
      int waited_ms = (int)((emlat_now () - t_ready) / 1000000u);
      CHECK (st.st_size > start_size, "the writer wrote data within %d ms", waited_ms);
      usleep ((useconds_t)delays_ms[k] * 1000);
      kill (pid, SIGKILL);
      int status;
      waitpid (pid, &status, 0);
      CHECK (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL, "child was killed (status %d)",
             status);

      uint8_t *buf;
      size_t len;
      CHECK_EQ_I64 (emlat_read_file (path, 0, &buf, &len), 0);
      static struct offs offs;
      offs.n = 0;
      struct emlat_scan_params p = { 0 };
      p.visitor.ctx = &offs;
      p.visitor.on_chunk = on_chunk;
      struct emlat_scan_result res;
      CHECK_EQ_I64 (emlat_scan (buf, len, &p, &res), 0);
      TEST_DIAG ("killed %d ms after the first data (%d ms after the start): %zu bytes, %llu chunks, %llu records, stop=%s at %llu",
                 delays_ms[k], waited_ms + delays_ms[k], len, (unsigned long long)res.chunks,
                 (unsigned long long)res.records, emlat_stop_name (res.stop),
                 (unsigned long long)res.stop_offset);
      CHECK_EQ_U64 (res.header_ok, 1);
      CHECK_EQ_U64 (res.missing_session, 0);
      /* Data chunks after the SESSION chunk. */
      CHECK_GE_U64 (res.chunks, 2);
      CHECK_EQ_U64 (res.final_stats, 0);
      CHECK (res.stop == EMLAT_STOP_CLEAN || res.stop == EMLAT_STOP_TRUNCATED_HEADER
               || res.stop == EMLAT_STOP_TRUNCATED_PAYLOAD,
             "stops only at the end, not at damage (%s)", emlat_stop_name (res.stop));
      CHECK_EQ_U64 (res.chunks_invalid, 0);
      CHECK_EQ_U64 (res.sequence_gaps, 0);
      /* A prefix ending at a chunk boundary is a clean file with exactly
         the chunks before it (sampled: each scan reads the whole prefix). */
      size_t step = offs.n > 40 ? offs.n / 40 : 1; /* about 40 prefixes */
      for (size_t i = 1; i < offs.n; i += step)
        {
          struct emlat_scan_result r2;
          struct emlat_scan_params p2 = { 0 };
          emlat_scan (buf, offs.v[i], &p2, &r2);
          if (r2.stop != EMLAT_STOP_CLEAN || r2.chunks != i)
            {
              CHECK (0, "prefix of %llu bytes: stop %s, %llu chunks (want %zu)",
                     (unsigned long long)offs.v[i], emlat_stop_name (r2.stop),
                     (unsigned long long)r2.chunks, i);
              break;
            }
        }
      free (buf);
      free (path);
    }
  TEST_DONE ();
}

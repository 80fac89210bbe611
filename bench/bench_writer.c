/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_writer.c -- how fast the writer thread drains producers with no
 * loss, and how many bytes a span and an interaction take on disk,
 * measured through the public API (emlat_status and the file size).
 *
 *   bench_writer [--threads T] [--seconds S] [--ring-slots N] [--drain-us U]
 *
 * Sustained rate: T producer threads record span begin/end pairs at a
 * given total rate (bursts of 256 pairs, sleeping when ahead of schedule)
 * for S seconds (default 0.5) in a fresh session.  A trial passes when the
 * session dropped nothing.  First a flat-out trial; if it loses records,
 * the rate is bisected (8 steps) between 0 and the flat-out rate.  The
 * result is the highest passing rate of records actually written per
 * second.  Ring size and drain interval default to the library's defaults.
 *
 * Bytes on disk: 1,000,000 span pairs (a flush every 4096 pairs) and
 * 100,000 interactions shaped like a flushed TTY command (begin, 21 time
 * fields, 4 values, 12 counters, end; a flush every 64 interactions), so
 * that nothing is lost; the size of an empty session's file is subtracted.
 * A drop there is reported on stderr and makes the exit status 1.
 *
 * Prints "METRIC name value unit" lines for bench/run.sh:
 *   writer_zero_loss_records_per_s_T<T>   records/s
 *   writer_flat_out_loss_T<T>             records dropped flat out
 *   writer_cpu_ns_per_record_T<T>         writer CPU per record written
 *   bytes_per_span                        one span (begin + end records)
 *   bytes_per_interaction                 one interaction as above
 *
 *   bench_writer --callgrind spans|nested|ix|tty N
 *       For the writer's instruction count per record (bench/writer_ir.sh
 *       runs it under valgrind --tool=callgrind
 *       --toggle-collect=emlat_writer_main, which counts the writer thread
 *       only).  One thread records a warm-up stream of WARM units and
 *       flushes (the writer's arrays and arena reach their size, as in a
 *       long session), then N units, then stops; the ring holds everything
 *       below its high-water mark, so the writer drains the N units in one
 *       pass.  A unit is a span begin/end pair (spans: 2 ring records), a
 *       nest of spans (nested: an outer span holding 4 pairs and an inner
 *       span with a counter and a pair: 15 ring records), or an interaction
 *       (ix: begin, 12 time fields, 4 values, 4 counters, end: 22 ring
 *       records), or a key as the terminal library records it (tty: 6
 *       call records that the writer's terminal model turns into one
 *       interaction and one input batch).  The difference of the counts for two values of N
 *       divided by the difference of the records cancels the warm-up, the
 *       session's start and stop and the fixed cost of a pass.  Prints
 *       "records R" (ring records of the N units) on stdout.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "record/ttycall.h"

static char dir[4096];
static unsigned trial_no;
static int sizes_lost; /* a bytes-on-disk measurement dropped records */
static uint32_t opt_ring_slots, opt_drain_us;

struct trial
{
  uint64_t written, dropped, bytes, writer_cpu_ns;
  double seconds;
};

static int
session_start (char *path, size_t len)
{
  snprintf (path, len, "%s/trial-%u.emlat", dir, trial_no++);
  struct emlat_options opt = { .path = path,
                               .ring_slots = opt_ring_slots,
                               .drain_interval_us = opt_drain_us };
  int rc = emlat_start (&opt);
  if (rc != 0)
    fprintf (stderr, "bench_writer: emlat_start %s: %s\n", path,
             strerror (-rc));
  return rc;
}

static void
session_stop (const char *path, struct trial *t)
{
  struct emlat_status st;
  emlat_stop ();
  emlat_status (&st);
  struct stat sb;
  t->written = st.records_written;
  t->dropped = st.records_dropped;
  t->bytes = stat (path, &sb) == 0 ? (uint64_t)sb.st_size : st.bytes_written;
  t->writer_cpu_ns = st.writer_cpu_ns;
  unlink (path);
}

static void
sleep_ns (uint64_t ns)
{
  struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
                         .tv_nsec = (long)(ns % 1000000000u) };
  nanosleep (&ts, NULL);
}

struct producer
{
  pthread_t thread;
  double pairs_per_s; /* 0: flat out */
  uint64_t deadline;
};

#define BURST 256

static void *
producer_main (void *arg)
{
  struct producer *p = arg;
  uint64_t start = emlat_now (), pairs = 0;
  uint64_t cause = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0);
  for (;;)
    {
      uint64_t now = emlat_now ();
      if (now >= p->deadline)
        break;
      if (p->pairs_per_s > 0)
        {
          uint64_t due = start + (uint64_t)((double)pairs / p->pairs_per_s * 1e9);
          if (due > now)
            {
              sleep_ns (due - now);
              continue;
            }
        }
      for (int i = 0; i < BURST; i++)
        {
          uint64_t s = emlat_span_begin (EMLAT_SPAN_WINDOW_UPDATE, cause);
          emlat_span_end (s, EMLAT_SPAN_OK, 0);
        }
      pairs += BURST;
    }
  emlat_ix_end (cause, EMLAT_STATUS_NORMAL);
  return NULL;
}

/* One trial at RATE records/s in total (0: flat out). */
static int
run_trial (unsigned threads, double rate, double seconds, struct trial *t)
{
  char path[4200];
  if (session_start (path, sizeof path) != 0)
    return -1;
  struct producer p[64];
  uint64_t t0 = emlat_now ();
  uint64_t deadline = t0 + (uint64_t)(seconds * 1e9);
  for (unsigned i = 0; i < threads; i++)
    {
      p[i].pairs_per_s = rate / 2 / threads;
      p[i].deadline = deadline;
      pthread_create (&p[i].thread, NULL, producer_main, &p[i]);
    }
  for (unsigned i = 0; i < threads; i++)
    pthread_join (p[i].thread, NULL);
  emlat_flush ();
  t->seconds = (double)(emlat_now () - t0) / 1e9;
  session_stop (path, t);
  return 0;
}

/* Bytes of a session with nothing recorded. */
static uint64_t
empty_session_bytes (void)
{
  char path[4200];
  struct trial t;
  if (session_start (path, sizeof path) != 0)
    return 0;
  session_stop (path, &t);
  return t.bytes;
}

/* The callgrind streams (see the comment at the top). */
#define IR_WARM_PAIRS 32768
#define IR_WARM_IX 3000
#define IR_IX_RECORDS 22
#define IR_NEST_RECORDS 15
#define IR_TTY_RECORDS 6

static void
ir_spans (uint64_t n, uint64_t cause)
{
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_WINDOW_UPDATE, cause);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
    }
}

static void
ir_nested (uint64_t n, uint64_t cause)
{
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t outer = emlat_span_begin (EMLAT_SPAN_COMMAND, cause);
      ir_spans (4, cause);
      uint64_t inner = emlat_span_begin (EMLAT_SPAN_REDISPLAY, cause);
      emlat_span_count (inner, EMLAT_C_ROWS_GENERATED, i % 50);
      ir_spans (1, cause);
      emlat_span_end (inner, EMLAT_SPAN_OK, 0);
      emlat_span_end (outer, EMLAT_SPAN_OK, 0);
    }
}

/* A key as the terminal library records it (ttycall.h): the wait for it
   begins and returns readable, a one-byte read, two writes of its echo,
   and a check for typeahead that finds nothing: 6 call records, one
   interaction and one input batch for the writer's terminal model. */
static void
ir_tty_keys (uint64_t n)
{
  uint64_t t = emlat_now ();
  for (uint64_t i = 0; i < n; i++, t += 100000)
    {
      emlat_tty_put (EMLAT_TTY_WAIT_BEGIN, 0, 0, t, 0, 0, 0, 0);
      emlat_tty_put (EMLAT_TTY_WAIT_END, EMLAT_TTY_F_READY | EMLAT_TTY_F_BLOCKED, 0, t,
                     t + 50000, 0, 0, 0);
      emlat_tty_put (EMLAT_TTY_READ, 0, 0, t + 50100, t + 50200, 1, 0, 0);
      emlat_tty_put (EMLAT_TTY_OUTPUT, EMLAT_TTY_F_OK | EMLAT_TTY_F_WRITE_CALL,
                     EMLAT_Q_WRITE | EMLAT_Q_WRITE << 8, t + 60000, t + 60500, 40, 0, 0);
      emlat_tty_put (EMLAT_TTY_OUTPUT, EMLAT_TTY_F_OK | EMLAT_TTY_F_WRITE_CALL,
                     EMLAT_Q_WRITE | EMLAT_Q_WRITE << 8, t + 61000, t + 61500, 900, 0, 0);
      emlat_tty_put (EMLAT_TTY_WAIT_END, 0, 0, t + 62000, t + 62000, t + 62000, 0, 0);
    }
}

static void
ir_interactions (uint64_t n)
{
  static const enum emlat_time_field marks[] = {
    EMLAT_T_QUEUE_REMOVE,       EMLAT_T_KEY_DECODE_DONE, EMLAT_T_PRE_COMMAND_BEGIN,
    EMLAT_T_PRE_COMMAND_END,    EMLAT_T_COMMAND_BEGIN,   EMLAT_T_COMMAND_END,
    EMLAT_T_POST_COMMAND_BEGIN, EMLAT_T_POST_COMMAND_END, EMLAT_T_REDISPLAY_BEGIN,
    EMLAT_T_REDISPLAY_END,      EMLAT_T_OUTPUT_BEGIN,    EMLAT_T_OUTPUT_END,
  };
  static const enum emlat_value_field values[] = {
    EMLAT_V_TERMINAL_ID, EMLAT_V_DECISIVE_SOURCE_BATCH, EMLAT_V_DECISIVE_SOURCE_BEGIN,
    EMLAT_V_DECISIVE_SOURCE_END,
  };
  static const enum emlat_counter counters[] = {
    EMLAT_C_READ_BATCH_BYTES, EMLAT_C_DECODED_EVENTS, EMLAT_C_ROWS_GENERATED,
    EMLAT_C_TTY_BYTES,
  };
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++)
        emlat_ix_mark (c, marks[k]);
      for (size_t k = 0; k < sizeof values / sizeof values[0]; k++)
        emlat_ix_value (c, values[k], i * 3 + k);
      for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++)
        emlat_ix_count (c, counters[k], (k * 7 + i) % 200);
      emlat_ix_end (c, EMLAT_STATUS_NORMAL);
    }
}

static int
callgrind_mode (const char *what, uint64_t n)
{
  int ix = strcmp (what, "ix") == 0, nest = strcmp (what, "nested") == 0;
  int tty = strcmp (what, "tty") == 0;
  if (!ix && !nest && !tty && strcmp (what, "spans") != 0)
    {
      fprintf (stderr, "bench_writer: --callgrind spans|nested|ix|tty N\n");
      return 2;
    }
  /* Slots and records per unit, and warm-up units. */
  uint64_t per = ix ? IR_IX_RECORDS + 1 : nest ? IR_NEST_RECORDS : tty ? IR_TTY_RECORDS : 2;
  uint64_t recs = ix ? IR_IX_RECORDS : nest ? IR_NEST_RECORDS : tty ? IR_TTY_RECORDS : 2;
  uint64_t warm = ix     ? IR_WARM_IX
                  : nest ? IR_WARM_PAIRS * 2 / IR_NEST_RECORDS
                  : tty  ? IR_WARM_IX
                         : IR_WARM_PAIRS;
  uint64_t units = n > warm ? n : warm;
  /* Below the high-water mark (a quarter of the ring): the writer sleeps
     until the flush. */
  opt_ring_slots = 1024;
  while (opt_ring_slots < 4 * per * units + 1024 && opt_ring_slots < (1u << 26))
    opt_ring_slots <<= 1;
  char path[4200];
  if (session_start (path, sizeof path) != 0)
    return 1;
  uint64_t cause = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0);
  for (int round = 0; round < 2; round++)
    {
      uint64_t k = round ? n : warm;
      if (ix)
        ir_interactions (k);
      else if (tty)
        ir_tty_keys (k);
      else if (nest)
        ir_nested (k, cause);
      else
        ir_spans (k, cause);
      emlat_flush ();
    }
  emlat_ix_end (cause, EMLAT_STATUS_NORMAL);
  struct trial t;
  session_stop (path, &t);
  rmdir (dir);
  printf ("records %llu\n", (unsigned long long)(n * recs));
  if (t.dropped)
    {
      fprintf (stderr, "bench_writer: %llu records dropped\n", (unsigned long long)t.dropped);
      return 1;
    }
  return 0;
}

static double
bytes_per_span (uint64_t empty)
{
  char path[4200];
  struct trial t;
  const uint64_t n = 1000000;
  if (session_start (path, sizeof path) != 0)
    return -1;
  uint64_t cause = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0);
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_WINDOW_UPDATE, cause);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
      if (i % 4096 == 4095)
        emlat_flush ();
    }
  emlat_ix_end (cause, EMLAT_STATUS_NORMAL);
  session_stop (path, &t);
  if (t.dropped)
    {
      fprintf (stderr, "bench_writer: %llu records dropped in bytes_per_span\n",
               (unsigned long long)t.dropped);
      sizes_lost = 1;
    }
  return (double)(t.bytes - empty) / (double)n;
}

static double
bytes_per_interaction (uint64_t empty)
{
  char path[4200];
  struct trial t;
  const uint64_t n = 100000;
  if (session_start (path, sizeof path) != 0)
    return -1;
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      uint64_t now = emlat_now ();
      emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, now - 900000);
      emlat_ix_time_q (c, EMLAT_T_INPUT_LATEST, now - 400000,
                       EMLAT_Q_MAIN_POLL_READY);
      emlat_ix_time (c, EMLAT_T_INPUT_READY, now - 400000);
      emlat_ix_time (c, EMLAT_T_READ_BEGIN, now - 300000);
      emlat_ix_time (c, EMLAT_T_READ_END, now - 290000);
      emlat_ix_time (c, EMLAT_T_QUEUE_INSERT, now - 280000);
      emlat_ix_value (c, EMLAT_V_DECISIVE_SOURCE_BATCH, i + 1);
      emlat_ix_value (c, EMLAT_V_DECISIVE_SOURCE_BEGIN, 0);
      emlat_ix_value (c, EMLAT_V_DECISIVE_SOURCE_END, 1);
      emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, 1000000 * i);
      static const enum emlat_time_field marks[] = {
        EMLAT_T_QUEUE_REMOVE,       EMLAT_T_KEY_DECODE_DONE,
        EMLAT_T_PRE_COMMAND_BEGIN,  EMLAT_T_PRE_COMMAND_END,
        EMLAT_T_COMMAND_BEGIN,      EMLAT_T_COMMAND_END,
        EMLAT_T_POST_COMMAND_BEGIN, EMLAT_T_POST_COMMAND_END,
        EMLAT_T_ROOT_WORK_END,      EMLAT_T_REDISPLAY_BEGIN,
        EMLAT_T_REDISPLAY_END,      EMLAT_T_OUTPUT_BEGIN,
        EMLAT_T_OUTPUT_END,         EMLAT_T_FLUSH_BEGIN,
      };
      for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++)
        emlat_ix_mark (c, marks[k]);
      emlat_ix_mark (c, EMLAT_T_FLUSH_END);
      static const enum emlat_counter counters[] = {
        EMLAT_C_QUEUE_DEPTH_INSERT, EMLAT_C_QUEUE_DEPTH_REMOVE,
        EMLAT_C_READ_BATCH_BYTES,   EMLAT_C_DECODED_EVENTS,
        EMLAT_C_KEY_SEQUENCE_LENGTH, EMLAT_C_BUFFER_SIZE,
        EMLAT_C_MODIFF_DELTA,       EMLAT_C_WINDOW_ROWS,
        EMLAT_C_WINDOW_COLS,        EMLAT_C_REDISPLAY_ATTEMPTS,
        EMLAT_C_ROWS_GENERATED,     EMLAT_C_TTY_BYTES,
      };
      for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++)
        emlat_ix_count (c, counters[k], (k * 7 + i) % 200);
      emlat_ix_end (c, EMLAT_STATUS_NORMAL);
      if (i % 64 == 63)
        emlat_flush ();
    }
  session_stop (path, &t);
  if (t.dropped)
    {
      fprintf (stderr,
               "bench_writer: %llu records dropped in bytes_per_interaction\n",
               (unsigned long long)t.dropped);
      sizes_lost = 1;
    }
  return (double)(t.bytes - empty) / (double)n;
}

int
main (int argc, char **argv)
{
  unsigned threads = 1;
  double seconds = 0.5;
  const char *cg_what = 0;
  uint64_t cg_n = 0;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--callgrind") == 0 && i + 2 < argc)
        {
          cg_what = argv[i + 1];
          cg_n = strtoull (argv[i + 2], NULL, 10);
          i += 2;
        }
      else if (strcmp (argv[i], "--threads") == 0 && i + 1 < argc)
        threads = (unsigned)strtoul (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--seconds") == 0 && i + 1 < argc)
        seconds = strtod (argv[++i], NULL);
      else if (strcmp (argv[i], "--ring-slots") == 0 && i + 1 < argc)
        opt_ring_slots = (uint32_t)strtoul (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--drain-us") == 0 && i + 1 < argc)
        opt_drain_us = (uint32_t)strtoul (argv[++i], NULL, 10);
      else
        {
          fprintf (stderr, "usage: bench_writer [--threads T] [--seconds S] "
                           "[--ring-slots N] [--drain-us U]\n"
                           "       bench_writer --callgrind spans|nested|ix N\n");
          return 2;
        }
    }
  if (threads < 1 || threads > 64 || !(seconds > 0))
    {
      fprintf (stderr, "bench_writer: bad --threads or --seconds\n");
      return 2;
    }
  const char *tmp = getenv ("TMPDIR");
  snprintf (dir, sizeof dir, "%s/emlat-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (dir))
    {
      fprintf (stderr, "bench_writer: mkdtemp: %s\n", strerror (errno));
      return 1;
    }
  if (cg_what)
    return callgrind_mode (cg_what, cg_n);

  struct trial t;
  if (run_trial (threads, 0, seconds, &t) != 0)
    return 1;
  double flat_rate = (double)t.written / t.seconds;
  uint64_t flat_loss = t.dropped;
  double best = t.dropped ? 0 : flat_rate;
  double best_cpu = t.dropped || !t.written ? 0 : (double)t.writer_cpu_ns / (double)t.written;
  fprintf (stderr, "flat out: %.3g records/s written, %llu dropped\n",
           flat_rate, (unsigned long long)t.dropped);
  if (t.dropped)
    {
      double lo = 0, hi = flat_rate + (double)t.dropped / t.seconds;
      for (int step = 0; step < 8; step++)
        {
          double rate = (lo + hi) / 2;
          if (run_trial (threads, rate, seconds, &t) != 0)
            return 1;
          fprintf (stderr, "at %.3g records/s: %.3g written/s, %llu dropped\n",
                   rate, (double)t.written / t.seconds,
                   (unsigned long long)t.dropped);
          if (t.dropped == 0)
            {
              lo = rate;
              if ((double)t.written / t.seconds > best)
                {
                  best = (double)t.written / t.seconds;
                  best_cpu = t.written ? (double)t.writer_cpu_ns / (double)t.written : 0;
                }
            }
          else
            hi = rate;
        }
    }

  uint64_t empty = empty_session_bytes ();
  double bps = bytes_per_span (empty);
  double bpi = bytes_per_interaction (empty);
  rmdir (dir);

  printf ("METRIC writer_zero_loss_records_per_s_T%u %.0f records/s\n", threads,
          best);
  printf ("METRIC writer_flat_out_loss_T%u %llu records\n", threads,
          (unsigned long long)flat_loss);
  printf ("METRIC writer_cpu_ns_per_record_T%u %.2f ns\n", threads, best_cpu);
  printf ("METRIC bytes_per_span %.2f bytes\n", bps);
  printf ("METRIC bytes_per_interaction %.2f bytes\n", bpi);
  return sizes_lost;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_long.c -- a long session: the equivalent of an 8-hour Emacs day
 * through the real recorder, then `emlat report` on it (issue 8, item 5).
 *
 *   bench_long [--interactions N] [--seed S] [--report-runs R] [--keep FILE]
 *
 * What is recorded.  N interactions (default 1,000,000) with their spans,
 * through the public producer API, in the record pattern of the profiled
 * Emacs (emacs/src/latency.c; checked against `emlat dump` of real
 * profiles, docs/PERFORMANCE.md "Long session"):
 *   - a key: the event-poll span that waited for it, an INPUT batch, a
 *     tty-command interaction with its input, queue and decode times,
 *     source and queue values, pre-command, command and post-command spans
 *     with their boundary times, buffer and window counters, thread-CPU
 *     readings (real system calls), then a redisplay span with its seven
 *     counters and a flush span nested in it, and the output and flush
 *     times; about 75 ring records (one key in eight is typed ahead: no
 *     redisplay, superseded);
 *   - a timer: the interaction with its inferred lateness, the timer's
 *     work, and usually a redisplay that writes nothing (about 30);
 *   - process output: the read times and bytes, and a redisplay with two
 *     flushes (about 50);
 *   - a GC span (two thread-CPU readings) inside one command in 40, and a
 *     long command (0.5-5 s, several GCs) every 10 minutes or so.
 * The day is a sequence of stretches drawn from a fixed pseudo-random
 * sequence: typing (6 keys/s, a timer after every other key), editing with
 * a language server (5 keys/s, 4 process outputs per key), bursts of
 * compiler or test output (100-300 outputs/s), reading (a page key every
 * 1-2 s), and idle (timers every 5 s, 1 to 30 minutes).  With the default
 * mix, 1,000,000 interactions make about 8 hours.
 *
 * Time is compressed, not slept.  This program defines clock_gettime: the
 * profiler's clock (CLOCK_MONOTONIC_RAW where it works) reads the real
 * clock plus a skip that the generator advances by each simulated
 * duration (a command's 20-500 us, a redisplay's 0.1-3 ms, an idle
 * stretch's minutes).  The library, linked in statically, reads its clock
 * through it, so every timestamp and duration in the file (and hence the
 * file's size) is that of the simulated day, while the recorder's work --
 * producer calls, writer passes, encoding, writes -- is real and runs at
 * full speed.  The writer behaves as in the real day: it is woken only by
 * a ring past its high-water mark (a quarter).  So that the producer, far faster than a day, never
 * outruns it, the generator waits (100 us sleeps) while its ring is more
 * than three quarters full, looking every 64 interactions; the benchmark
 * fails if any record is lost.
 *
 * Measured (METRIC lines):
 *   long_interactions, long_virtual_hours, long_records     the session
 *   long_bytes_per_interaction, long_file_mib               file size
 *   long_writer_cpu_s, long_writer_cpu_us_per_interaction   STATS writer CPU
 *   long_writer_wakeups, long_highwater_wakes               STATS
 *   long_record_rss_mib      peak RSS of the recording process (ru_maxrss)
 *   long_ring_shm_mib        the ring file's memory in /dev/shm at the end
 *   long_record_wall_s, long_interactions_per_s   recording at full speed
 *   long_producer_cpu_us_per_interaction   the generator thread's CPU
 *   long_record_process_cpu_s   the recording process's CPU, all threads
 *   long_report_s, long_report_cpu_s, long_report_rss_mib
 *                            `emlat report` (median of R runs; peak RSS)
 *
 * The emlat binary is $EMLAT, else ../emlat next to this program.  Files
 * go to a new directory under $TMPDIR and are removed (--keep FILE keeps
 * the profile).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "record/ringfile.h"
#include "record/state.h"

/* ------------------------------------------------------------------ */
/* The simulated clock                                                 */

/* Nanoseconds added to the profiler's clock: the simulated time that has
   passed without being spent.  Only the generator thread advances it;
   other threads (the writer) read it.  Relaxed: a monotonically growing
   value, no other memory is published through it. */
static _Atomic uint64_t vclock_skip;
static int (*real_clock_gettime) (clockid_t, struct timespec *);

int
clock_gettime (clockid_t id, struct timespec *ts)
{
  if (!real_clock_gettime)
    {
      union
      {
        void *p;
        int (*f) (clockid_t, struct timespec *);
      } u;
      u.p = dlsym (RTLD_NEXT, "clock_gettime");
      real_clock_gettime = u.f;
    }
  int r = real_clock_gettime (id, ts);
  if (r == 0 && id == emlat_clock_id)
    {
      uint64_t skip = atomic_load_explicit (&vclock_skip, memory_order_relaxed);
      uint64_t ns = (uint64_t)ts->tv_nsec + skip % 1000000000u;
      ts->tv_sec += (time_t)(skip / 1000000000u + ns / 1000000000u);
      ts->tv_nsec = (long)(ns % 1000000000u);
    }
  return r;
}

/* Let NS of simulated time pass. */
static void
vadvance (uint64_t ns)
{
  atomic_fetch_add_explicit (&vclock_skip, ns, memory_order_relaxed);
}

/* Real elapsed time, which the skip does not touch. */
static uint64_t
real_ns (void)
{
  struct timespec ts;
  real_clock_gettime (CLOCK_BOOTTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* The simulated day                                                   */

#define US 1000u
#define MS 1000000u
#define SEC 1000000000ull

struct day
{
  uint64_t rng;
  uint64_t target, made; /* interactions to make, made */
  uint64_t records;      /* ring records made */
  uint64_t poll;         /* the open event-poll span, or 0 */
  uint64_t t_known_empty;
  uint64_t redisplay_id, epoch, buffer_size;
  uint64_t last_key;   /* cause of the last key (schedules timers) */
  uint64_t proc_cause; /* the command that started the process */
  uint64_t waits;      /* back-pressure sleeps */
  uint64_t by_kind[4]; /* key, timer, process, long command */
};

static uint64_t
rnd (struct day *d)
{
  /* splitmix64: a fixed, portable sequence. */
  uint64_t z = (d->rng += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint64_t
range (struct day *d, uint64_t lo, uint64_t hi)
{
  return lo + rnd (d) % (hi - lo + 1);
}

/* A duration around BASE with a long tail: 1 in 50 ten times longer. */
static uint64_t
dur (struct day *d, uint64_t base)
{
  uint64_t v = range (d, base / 2, base * 2);
  if (rnd (d) % 50 == 0)
    v *= 10;
  return v;
}

static int
chance (struct day *d, unsigned one_in)
{
  return rnd (d) % one_in == 0;
}

/* Keep the producer behind the writer, as the slow real day does: when the
   thread's ring is more than three quarters full (the writer was woken at
   its mark, a quarter, and has not drained it yet), wait 100 us at a
   time.  Looked at every 64 interactions; reads the ring's head and tail
   (internal, read-only). */
static void
backpressure (struct day *d)
{
  if (d->made % 64 != 0)
    return;
  struct emlat_ring *r = emlat_thread_line.ring;
  if (!r)
    return;
  for (;;)
    {
      /* Sequentially consistent loads: head is this thread's own, tail
         the writer's release store (ring.h); a hint, rechecked. */
      uint64_t fill = atomic_load (&r->head) - atomic_load (&r->tail);
      if (fill <= r->nslots / 4 * 3)
        return;
      struct timespec ts = { 0, 100000 };
      nanosleep (&ts, 0);
      d->waits++;
    }
}

static uint64_t
sbegin (struct day *d, enum emlat_span_kind k, uint64_t cause)
{
  d->records++;
  return emlat_span_begin (k, cause);
}

static void
send (struct day *d, uint64_t s, uint64_t detail)
{
  d->records++;
  emlat_span_end (s, EMLAT_SPAN_OK, detail);
}

static void
scount (struct day *d, uint64_t s, enum emlat_counter c, uint64_t v)
{
  d->records++;
  emlat_span_count (s, c, v);
}

static void
mark (struct day *d, uint64_t c, enum emlat_time_field f)
{
  d->records++;
  emlat_ix_mark (c, f);
}

static void
itime (struct day *d, uint64_t c, enum emlat_time_field f, uint64_t t, enum emlat_quality q)
{
  d->records++;
  emlat_ix_time_q (c, f, t, q);
}

static void
ival (struct day *d, uint64_t c, enum emlat_value_field f, uint64_t v)
{
  d->records++;
  emlat_ix_value (c, f, v);
}

static void
icount (struct day *d, uint64_t c, enum emlat_counter k, uint64_t v)
{
  d->records++;
  emlat_ix_count (c, k, v);
}

static uint64_t
ibegin (struct day *d, enum emlat_root_kind k, uint64_t sched)
{
  d->records++;
  d->made++;
  return emlat_ix_begin (k, 0, sched);
}

static void
iend (struct day *d, uint64_t c, enum emlat_ix_status st)
{
  d->records++;
  emlat_ix_end (c, st);
  backpressure (d);
}

/* Emacs starts waiting for input. */
static void
poll_begin (struct day *d)
{
  d->t_known_empty = emlat_now ();
  d->poll = sbegin (d, EMLAT_SPAN_EVENT_POLL, 0);
}

/* The wait ends after GAP: input or a timer is due. */
static void
poll_end (struct day *d, uint64_t gap, uint64_t ready)
{
  vadvance (gap);
  if (d->poll)
    send (d, d->poll, ready);
  d->poll = 0;
}

/* A GC inside interaction C. */
static void
gc (struct day *d, uint64_t c)
{
  uint64_t t0 = emlat_now ();
  d->records += 2;
  uint64_t g = emlat_span_begin_cpu (EMLAT_SPAN_GC, c);
  vadvance (dur (d, 6 * MS));
  emlat_span_end (g, EMLAT_SPAN_OK, 0);
  d->records++;
  emlat_ix_add (c, EMLAT_C_GC_NS, emlat_now () - t0);
}

/* Redisplay for C, with FLUSHES flushes of output (0: nothing to write). */
static void
redisplay (struct day *d, uint64_t c, unsigned flushes, uint64_t base)
{
  uint64_t id = ++d->redisplay_id;
  uint64_t r = sbegin (d, EMLAT_SPAN_REDISPLAY, c);
  mark (d, c, EMLAT_T_REDISPLAY_BEGIN);
  ival (d, c, EMLAT_V_FIRST_REDISPLAY_ID, id);
  ival (d, c, EMLAT_V_LAST_REDISPLAY_ID, id);
  vadvance (dur (d, base));
  unsigned windows = flushes ? (unsigned)range (d, 1, 2) : 0;
  uint64_t rows = flushes ? range (d, 1, 22) : 0, glyphs = rows * range (d, 1, 60);
  const struct
  {
    enum emlat_counter k;
    uint64_t v;
  } cn[] = {
    { EMLAT_C_WINDOWS_CONSIDERED, windows },
    { EMLAT_C_WINDOWS_UPDATED, windows },
    { EMLAT_C_ROWS_GENERATED, rows },
    { EMLAT_C_GLYPHS_EMITTED, glyphs },
    { EMLAT_C_FRAMES_UPDATED, flushes ? 1 : 0 },
    { EMLAT_C_ROWS_REUSED, 24 - rows / 2 },
    { EMLAT_C_REDISPLAY_PREEMPTIONS, 0 },
  };
  for (size_t i = 0; i < sizeof cn / sizeof cn[0]; i++)
    scount (d, r, cn[i].k, cn[i].v);
  mark (d, c, EMLAT_T_REDISPLAY_END);
  icount (d, c, EMLAT_C_REDISPLAY_ATTEMPTS, 1);
  for (size_t i = 0; i < sizeof cn / sizeof cn[0]; i++)
    icount (d, c, cn[i].k, cn[i].v);
  if (flushes)
    {
      uint64_t bytes = 0;
      mark (d, c, EMLAT_T_OUTPUT_BEGIN);
      for (unsigned k = 0; k < flushes; k++)
        {
          uint64_t f = sbegin (d, EMLAT_SPAN_TTY_FLUSH, c);
          if (k + 1 == flushes)
            {
              mark (d, c, EMLAT_T_OUTPUT_END);
              mark (d, c, EMLAT_T_FLUSH_BEGIN);
            }
          vadvance (dur (d, 10 * US));
          uint64_t b = 4 + glyphs + range (d, 0, 40);
          scount (d, f, EMLAT_C_TTY_BYTES, b);
          bytes += b;
          send (d, f, 0);
        }
      mark (d, c, EMLAT_T_FLUSH_END);
      ival (d, c, EMLAT_V_FINAL_OUTPUT_EPOCH, d->epoch += flushes);
      icount (d, c, EMLAT_C_TTY_BYTES, bytes);
      icount (d, c, EMLAT_C_OUTPUT_EPOCHS, flushes);
    }
  send (d, r, 0);
}

/* The common end of a root: buffer counters and thread CPU. */
static void
root_counters (struct day *d, uint64_t c, uint64_t delta)
{
  d->buffer_size += delta;
  icount (d, c, EMLAT_C_BUFFER_SIZE, d->buffer_size);
  icount (d, c, EMLAT_C_MODIFF_DELTA, delta);
  icount (d, c, EMLAT_C_GC_COUNT, 0);
}

/* One key after GAP of waiting.  LONG: the command runs LONG ns with GCs;
   PAGE: a page of output; AHEAD: typed ahead of redisplay. */
static void
key (struct day *d, uint64_t gap, uint64_t long_ns, int page, int ahead)
{
  poll_end (d, gap, 1);
  uint64_t t_ready = emlat_now ();
  vadvance (range (d, 5 * US, 15 * US));
  uint64_t t_rb = emlat_now ();
  vadvance (range (d, 2 * US, 5 * US));
  uint64_t t_re = emlat_now ();
  uint64_t bytes = page ? 4 : chance (d, 4) ? 3 : 1;
  uint64_t batch = emlat_input_batch_id ();
  struct emlat_input_batch ib = {
    .batch_id = batch,
    .mask = EMLAT_IB_KNOWN_EMPTY | EMLAT_IB_FIRST_READY | EMLAT_IB_READ_BEGIN | EMLAT_IB_READ_END
            | EMLAT_IB_BYTES,
    .ready_quality = EMLAT_Q_MAIN_POLL_READY,
    .t_known_empty = d->t_known_empty,
    .t_first_ready = t_ready,
    .t_read_begin = t_rb,
    .t_read_end = t_re,
    .bytes = bytes,
  };
  d->records++;
  emlat_input_batch (&ib);
  vadvance (range (d, 10 * US, 40 * US));

  uint64_t c = ibegin (d, EMLAT_ROOT_TTY_COMMAND, 0);
  d->by_kind[long_ns ? 3 : 0]++;
  itime (d, c, EMLAT_T_INPUT_EARLIEST, d->t_known_empty, 0);
  itime (d, c, EMLAT_T_INPUT_LATEST, t_ready, EMLAT_Q_MAIN_POLL_READY);
  itime (d, c, EMLAT_T_INPUT_READY, t_ready, 0);
  itime (d, c, EMLAT_T_READ_BEGIN, t_rb, 0);
  itime (d, c, EMLAT_T_READ_END, t_re, 0);
  itime (d, c, EMLAT_T_QUEUE_INSERT, t_re, 0);
  mark (d, c, EMLAT_T_QUEUE_REMOVE);
  mark (d, c, EMLAT_T_KEY_DECODE_DONE);
  ival (d, c, EMLAT_V_TERMINAL_ID, 1);
  ival (d, c, EMLAT_V_DECISIVE_SOURCE_BATCH, batch);
  ival (d, c, EMLAT_V_DECISIVE_SOURCE_BEGIN, 0);
  ival (d, c, EMLAT_V_DECISIVE_SOURCE_END, bytes);
  icount (d, c, EMLAT_C_QUEUE_DEPTH_INSERT, 1);
  icount (d, c, EMLAT_C_QUEUE_DEPTH_REMOVE, 1);
  icount (d, c, EMLAT_C_DECODED_EVENTS, 1);
  icount (d, c, EMLAT_C_KEY_SEQUENCE_LENGTH, 1);
  icount (d, c, EMLAT_C_PREFIX_DEPTH, 0);
  d->records++;
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, emlat_thread_cpu_now ());

  uint64_t s = sbegin (d, EMLAT_SPAN_PRE_COMMAND, c);
  mark (d, c, EMLAT_T_PRE_COMMAND_BEGIN);
  vadvance (dur (d, 2 * US));
  mark (d, c, EMLAT_T_PRE_COMMAND_END);
  send (d, s, 0);
  s = sbegin (d, EMLAT_SPAN_COMMAND, c);
  mark (d, c, EMLAT_T_COMMAND_BEGIN);
  if (long_ns)
    {
      unsigned n = (unsigned)range (d, 1, 8);
      for (unsigned k = 0; k < n; k++)
        {
          vadvance (long_ns / (n + 1));
          gc (d, c);
        }
      vadvance (long_ns / (n + 1));
    }
  else
    {
      vadvance (dur (d, 60 * US));
      if (chance (d, 40))
        gc (d, c);
    }
  mark (d, c, EMLAT_T_COMMAND_END);
  send (d, s, 0);
  s = sbegin (d, EMLAT_SPAN_POST_COMMAND, c);
  mark (d, c, EMLAT_T_POST_COMMAND_BEGIN);
  vadvance (dur (d, 20 * US));
  mark (d, c, EMLAT_T_POST_COMMAND_END);
  send (d, s, 0);
  mark (d, c, EMLAT_T_ROOT_WORK_END);
  root_counters (d, c, page ? 0 : 1);
  icount (d, c, EMLAT_C_WINDOW_ROWS, 21);
  icount (d, c, EMLAT_C_WINDOW_COLS, 80);
  if (!ahead)
    redisplay (d, c, 1, page ? 2 * MS : 200 * US);
  d->records++;
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_END, emlat_thread_cpu_now ());
  iend (d, c, ahead ? EMLAT_STATUS_SUPERSEDED : EMLAT_STATUS_NORMAL);
  d->last_key = c;
  poll_begin (d);
}

/* A timer after GAP. */
static void
timer (struct day *d, uint64_t gap)
{
  poll_end (d, gap, 0);
  uint64_t c = ibegin (d, EMLAT_ROOT_TIMER, chance (d, 2) ? d->last_key : 0);
  d->by_kind[1]++;
  uint64_t late = emlat_now () - range (d, 100 * US, 400 * US);
  itime (d, c, EMLAT_T_INPUT_EARLIEST, late, EMLAT_Q_INFERRED);
  itime (d, c, EMLAT_T_INPUT_LATEST, late, EMLAT_Q_INFERRED);
  d->records++;
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, emlat_thread_cpu_now ());
  vadvance (dur (d, 40 * US));
  mark (d, c, EMLAT_T_ROOT_WORK_END);
  root_counters (d, c, 0);
  if (!chance (d, 4))
    redisplay (d, c, chance (d, 8) ? 1 : 0, 20 * US);
  d->records++;
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_END, emlat_thread_cpu_now ());
  iend (d, c, EMLAT_STATUS_NORMAL);
  poll_begin (d);
}

/* Process output read after GAP. */
static void
process (struct day *d, uint64_t gap)
{
  poll_end (d, gap, 1);
  uint64_t t_rb = emlat_now ();
  vadvance (range (d, 2 * US, 6 * US));
  uint64_t t_re = emlat_now ();
  vadvance (range (d, 5 * US, 20 * US));
  uint64_t c = ibegin (d, EMLAT_ROOT_PROCESS_DATA, d->proc_cause);
  d->by_kind[2]++;
  itime (d, c, EMLAT_T_READ_BEGIN, t_rb, 0);
  itime (d, c, EMLAT_T_READ_END, t_re, 0);
  itime (d, c, EMLAT_T_INPUT_LATEST, t_re, 0);
  icount (d, c, EMLAT_C_READ_BATCH_BYTES, range (d, 200, 4096));
  d->records++;
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, emlat_thread_cpu_now ());
  vadvance (dur (d, 80 * US));
  mark (d, c, EMLAT_T_ROOT_WORK_END);
  root_counters (d, c, 1);
  redisplay (d, c, 2, 400 * US);
  d->records++;
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_END, emlat_thread_cpu_now ());
  iend (d, c, EMLAT_STATUS_NORMAL);
  poll_begin (d);
}

/* One stretch of the day. */
static void
stretch (struct day *d)
{
  unsigned pick = (unsigned)(rnd (d) % 100);
  if (pick < 29)
    {
      /* Typing: 6 keys/s, each followed by a timer (jit-lock, eldoc). */
      uint64_t n = range (d, 60, 600);
      for (uint64_t i = 0; i < n && d->made < d->target; i++)
        {
          key (d, range (d, 80 * MS, 250 * MS), 0, 0, chance (d, 8));
          timer (d, range (d, 20 * MS, 100 * MS));
        }
    }
  else if (pick < 59)
    {
      /* Editing with a language server: 5 keys/s, 6 responses and a
         timer each. */
      uint64_t n = range (d, 50, 400);
      d->proc_cause = d->last_key;
      for (uint64_t i = 0; i < n && d->made < d->target; i++)
        {
          key (d, range (d, 100 * MS, 250 * MS), 0, 0, chance (d, 8));
          for (int k = 0; k < 6; k++)
            process (d, range (d, 2 * MS, 15 * MS));
          timer (d, range (d, 10 * MS, 50 * MS));
        }
    }
  else if (pick < 84)
    {
      /* A build or test run: a long command, then its output. */
      key (d, range (d, 200 * MS, 2000 * MS), range (d, 20 * MS, 80 * MS), 0, 0);
      d->proc_cause = d->last_key;
      uint64_t n = range (d, 1000, 12000);
      for (uint64_t i = 0; i < n && d->made < d->target; i++)
        process (d, range (d, 2 * MS, 6 * MS));
    }
  else if (pick < 92)
    {
      /* Reading: a page every 1-2 s, and a timer after it. */
      uint64_t n = range (d, 20, 120);
      for (uint64_t i = 0; i < n && d->made < d->target; i++)
        {
          key (d, range (d, 800 * MS, 2000 * MS), 0, 1, 0);
          timer (d, range (d, 20 * MS, 100 * MS));
        }
    }
  else if (pick < 97)
    {
      /* Idle: 1 to 10 minutes of timers (cursor blink, mode-line
         updates, auto-revert), one every 0.5-2 s. */
      uint64_t end = emlat_now () + range (d, 60 * SEC, 600 * SEC);
      while (emlat_now () < end && d->made < d->target)
        timer (d, range (d, 500 * MS, 2000 * MS));
    }
  else
    /* A long command: 0.5 to 5 s, with GCs. */
    key (d, range (d, 500 * MS, 3000 * MS), range (d, 500 * MS, 5000 * MS), 0, 0);
}

/* ------------------------------------------------------------------ */
/* Recording, in a child process                                       */

struct rec_report
{
  int start_rc, stop_rc;
  uint64_t interactions, records, waits, by_kind[4];
  uint64_t virtual_ns, wall_ns, producer_cpu_ns;
  uint64_t ring_shm_bytes;
  uint64_t process_cpu_ns; /* the recording process, all threads */
  struct emlat_status st;
  long maxrss_kb;
};

/* Memory the ring file of the session writing PROFILE holds now. */
static uint64_t
ring_file_bytes (const char *profile)
{
  uint8_t hdr[64];
  int fd = open (profile, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read (fd, hdr, sizeof hdr);
  close (fd);
  struct emlat_file_header fh;
  if (n != (ssize_t)sizeof hdr
      || emlat_parse_file_header (hdr, sizeof hdr, &fh) != EMLAT_STOP_CLEAN)
    return 0;
  for (int where = EMLAT_RF_IN_SHM; where <= EMLAT_RF_BESIDE; where++)
    {
      char path[4096];
      struct stat st;
      if (emlat_rf_path (path, sizeof path, where, profile, fh.uuid) == 0 && stat (path, &st) == 0)
        return (uint64_t)st.st_blocks * 512u;
    }
  return 0;
}

static void
record_child (const char *path, uint64_t n, uint64_t seed, int out)
{
  struct rec_report rep;
  memset (&rep, 0, sizeof rep);
  static const char name[] = "bench_long";
  const struct emlat_meta meta[] = {
    { .key = "program.name", .type = EMLAT_META_STR, .s = name, .s_len = sizeof name - 1 },
  };
  struct emlat_options opt = { .path = path, .meta = meta, .n_meta = 1 };
  rep.start_rc = emlat_start (&opt);
  if (rep.start_rc == 0)
    {
      struct day d = { .rng = seed, .target = n };
      uint64_t w0 = real_ns (), v0 = emlat_now (), c0 = emlat_thread_cpu_now ();
      poll_begin (&d);
      while (d.made < d.target)
        stretch (&d);
      rep.virtual_ns = emlat_now () - v0;
      rep.producer_cpu_ns = emlat_thread_cpu_now () - c0;
      rep.ring_shm_bytes = ring_file_bytes (path);
      rep.stop_rc = emlat_stop ();
      rep.wall_ns = real_ns () - w0;
      emlat_status (&rep.st);
      rep.interactions = d.made;
      rep.records = d.records;
      rep.waits = d.waits;
      memcpy (rep.by_kind, d.by_kind, sizeof rep.by_kind);
    }
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  rep.maxrss_kb = ru.ru_maxrss;
  rep.process_cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u
                       + ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
  ssize_t w = write (out, &rep, sizeof rep);
  _exit (w == (ssize_t)sizeof rep ? 0 : 3);
}

static int
record (const char *path, uint64_t n, uint64_t seed, struct rec_report *rep)
{
  int pfd[2];
  if (pipe (pfd) != 0)
    return -1;
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      close (pfd[0]);
      record_child (path, n, seed, pfd[1]);
    }
  close (pfd[1]);
  ssize_t got = 0;
  while (got < (ssize_t)sizeof *rep)
    {
      ssize_t r = read (pfd[0], (char *)rep + got, sizeof *rep - (size_t)got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += r;
    }
  close (pfd[0]);
  int status;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return got == (ssize_t)sizeof *rep && WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* emlat report                                                        */

/* Seconds and peak RSS (KiB) of `EMLAT report PATH`, stdout to /dev/null,
   and its CPU seconds in *CPU_S; -1 on failure. */
static double
time_report (const char *emlat, const char *path, long *rss_kb, double *cpu_s)
{
  uint64_t t0 = real_ns ();
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      int fd = open ("/dev/null", O_WRONLY);
      if (fd >= 0)
        dup2 (fd, STDOUT_FILENO);
      execl (emlat, emlat, "report", path, (char *)NULL);
      _exit (127);
    }
  int status;
  struct rusage ru;
  while (wait4 (pid, &status, 0, &ru) < 0)
    if (errno != EINTR)
      return -1;
  double s = (double)(real_ns () - t0) / 1e9;
  if (!WIFEXITED (status) || WEXITSTATUS (status) > 1)
    {
      fprintf (stderr, "bench_long: %s report failed (status %d)\n", emlat, status);
      return -1;
    }
  *rss_kb = ru.ru_maxrss;
  *cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
           + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  return s;
}

struct wake
{
  uint64_t wakeups, hw;
};

static int
stats_record (void *ctx, const struct emlat_chunk_info *c, const struct emlat_record *r)
{
  (void)c;
  struct wake *w = ctx;
  if (r->kind != EMLAT_REC_KV || r->chunk_type != EMLAT_CHUNK_STATS)
    return 0;
  const struct emlat_kv *kv = &r->u.kv;
  if (kv->key_len == 20 && memcmp (kv->key, "stats.writer_wakeups", 20) == 0)
    w->wakeups = kv->u;
  else if (kv->key_len == 21 && memcmp (kv->key, "stats.highwater_wakes", 21) == 0)
    w->hw = kv->u;
  return 0;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  uint64_t n = 1000000, seed = 8;
  int report_runs = 3;
  const char *keep = 0;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--interactions") == 0 && i + 1 < argc)
        n = strtoull (argv[++i], 0, 10);
      else if (strcmp (argv[i], "--seed") == 0 && i + 1 < argc)
        seed = strtoull (argv[++i], 0, 10);
      else if (strcmp (argv[i], "--report-runs") == 0 && i + 1 < argc)
        report_runs = atoi (argv[++i]);
      else if (strcmp (argv[i], "--keep") == 0 && i + 1 < argc)
        keep = argv[++i];
      else
        {
          fprintf (stderr, "usage: bench_long [--interactions N] [--seed S] [--report-runs R] "
                           "[--keep FILE]\n");
          return 2;
        }
    }
  if (n == 0 || report_runs < 1 || report_runs > 15)
    {
      fprintf (stderr, "bench_long: bad arguments\n");
      return 2;
    }
  emlat_clock_init (); /* emlat_clock_id: the clock the skip applies to */
  struct timespec probe;
  clock_gettime (CLOCK_BOOTTIME, &probe); /* resolves the real clock */

  char exe[PATH_MAX], emlat[PATH_MAX + 16];
  const char *env = getenv ("EMLAT");
  if (env && *env)
    snprintf (emlat, sizeof emlat, "%s", env);
  else
    {
      ssize_t len = readlink ("/proc/self/exe", exe, sizeof exe - 1);
      if (len <= 0)
        return 1;
      exe[len] = 0;
      char *slash = strrchr (exe, '/');
      if (slash)
        *slash = 0;
      snprintf (emlat, sizeof emlat, "%s/../emlat", exe);
    }

  const char *tmp = getenv ("TMPDIR");
  char dir[PATH_MAX];
  snprintf (dir, sizeof dir, "%s/bench_long.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (dir))
    {
      perror ("bench_long: mkdtemp");
      return 1;
    }
  char path[PATH_MAX + 32];
  snprintf (path, sizeof path, "%s/day.emlat", dir);

  fprintf (stderr, "bench_long: recording %llu interactions\n", (unsigned long long)n);
  struct rec_report rep;
  int rc = record (path, n, seed, &rep);
  if (rc != 0 || rep.start_rc != 0 || rep.stop_rc != 0)
    {
      fprintf (stderr, "bench_long: recording failed (start %d, stop %d)\n", rep.start_rc,
               rep.stop_rc);
      return 1;
    }
  struct stat st;
  if (stat (path, &st) != 0)
    return 1;
  double hours = (double)rep.virtual_ns / 3600e9;
  fprintf (stderr,
           "bench_long: %llu interactions (%llu keys, %llu timers, %llu process outputs, "
           "%llu long commands), %llu records, %.2f simulated hours; %llu back-pressure waits\n",
           (unsigned long long)rep.interactions, (unsigned long long)rep.by_kind[0],
           (unsigned long long)rep.by_kind[1], (unsigned long long)rep.by_kind[2],
           (unsigned long long)rep.by_kind[3], (unsigned long long)rep.records, hours,
           (unsigned long long)rep.waits);
  if (rep.st.records_dropped != 0 || rep.st.records_written != rep.records)
    {
      fprintf (stderr, "bench_long: lost %llu records, wrote %llu of %llu\n",
               (unsigned long long)rep.st.records_dropped,
               (unsigned long long)rep.st.records_written, (unsigned long long)rep.records);
      return 1;
    }

  double runs[15], cpus[15];
  long rss = 0;
  for (int r = 0; r < report_runs; r++)
    {
      long kb = 0;
      runs[r] = time_report (emlat, path, &kb, &cpus[r]);
      if (runs[r] < 0)
        return 1;
      if (kb > rss)
        rss = kb;
    }
  qsort (runs, (size_t)report_runs, sizeof runs[0], cmp_double);
  qsort (cpus, (size_t)report_runs, sizeof cpus[0], cmp_double);
  double report_s = runs[report_runs / 2], report_cpu_s = cpus[report_runs / 2];

  double ni = (double)rep.interactions;
  printf ("METRIC long_interactions %llu interactions\n", (unsigned long long)rep.interactions);
  printf ("METRIC long_records %llu records\n", (unsigned long long)rep.records);
  printf ("METRIC long_virtual_hours %.2f hours\n", hours);
  printf ("METRIC long_file_mib %.1f MiB\n", (double)st.st_size / 1048576.0);
  printf ("METRIC long_bytes_per_interaction %.1f bytes\n", (double)st.st_size / ni);
  printf ("METRIC long_writer_cpu_s %.3f s\n", (double)rep.st.writer_cpu_ns / 1e9);
  printf ("METRIC long_writer_cpu_us_per_interaction %.2f us\n",
          (double)rep.st.writer_cpu_ns / 1e3 / ni);
  printf ("METRIC long_writer_ns_per_record %.1f ns\n",
          (double)rep.st.writer_cpu_ns / (double)rep.records);
  printf ("METRIC long_producer_cpu_us_per_interaction %.2f us\n",
          (double)rep.producer_cpu_ns / 1e3 / ni);
  printf ("METRIC long_record_rss_mib %.1f MiB\n", (double)rep.maxrss_kb / 1024.0);
  printf ("METRIC long_ring_shm_mib %.1f MiB\n", (double)rep.ring_shm_bytes / 1048576.0);
  printf ("METRIC long_record_wall_s %.2f s\n", (double)rep.wall_ns / 1e9);
  printf ("METRIC long_interactions_per_s %.0f interactions/s\n", ni * 1e9 / (double)rep.wall_ns);
  printf ("METRIC long_record_process_cpu_s %.3f s\n", (double)rep.process_cpu_ns / 1e9);
  printf ("METRIC long_report_s %.2f s\n", report_s);
  printf ("METRIC long_report_cpu_s %.2f s\n", report_cpu_s);
  printf ("METRIC long_report_rss_mib %.1f MiB\n", (double)rss / 1024.0);

  /* The writer's wake-ups: the file's last STATS entries. */
  struct wake w = { 0, 0 };
  uint8_t *buf;
  size_t len;
  if (emlat_read_file (path, 0, &buf, &len) == 0)
    {
      struct emlat_scan_params sp = { .visitor = { .ctx = &w, .on_record = stats_record } };
      struct emlat_scan_result res;
      emlat_scan (buf, len, &sp, &res);
      free (buf);
    }
  printf ("METRIC long_writer_wakeups %llu wakeups\n", (unsigned long long)w.wakeups);
  printf ("METRIC long_highwater_wakes %llu wakes\n", (unsigned long long)w.hw);
  printf ("METRIC long_writer_wakeups_per_hour %.1f wakeups/h\n", (double)w.wakeups / hours);
  if (keep)
    {
      if (rename (path, keep) != 0)
        fprintf (stderr, "bench_long: cannot keep %s: %s\n", keep, strerror (errno));
    }
  else
    unlink (path);
  rmdir (dir);
  return 0;
}

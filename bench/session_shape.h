/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * session_shape.h -- the recorded session of the report benchmarks
 * (bench_report.c, bench_scale.c): N interactions shaped like a terminal
 * editing session, recorded through the public producer API.  Every
 * interaction has the input, queue, decode, command, redisplay, output and
 * flush boundaries of a TTY command (1 in 10 superseded without output, 1
 * in 50 a timer without input), thread CPU readings, four counters and
 * three spans.  Timestamps are synthetic (a fixed pseudo-random sequence),
 * so every run records the same distribution.  The recorder is flushed
 * every 512 interactions so that nothing is lost; a profile with losses
 * is refused.  Messages are prefixed with WHO, the program.
 */
#ifndef EMLAT_BENCH_SESSION_SHAPE_H
#define EMLAT_BENCH_SESSION_SHAPE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emlat/emlat.h"

static uint64_t
next_rand (uint64_t *s)
{
  /* splitmix64: a fixed, portable sequence. */
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* A latency-like duration: mostly tens of microseconds, a long tail. */
static uint64_t
draw_ns (uint64_t *s, uint64_t base)
{
  uint64_t r = next_rand (s);
  uint64_t d = base + r % (base * 4 + 1);
  if ((r >> 32) % 100 == 0)
    d *= 20;
  return d;
}

static void
one_interaction (uint64_t i, uint64_t *rng, uint64_t *t)
{
  int timer = i % 50 == 49;
  int superseded = !timer && i % 10 == 9;
  uint64_t c = emlat_ix_begin (timer ? EMLAT_ROOT_TIMER : EMLAT_ROOT_TTY_COMMAND, 0, 0);
  uint64_t now = *t;
  if (!timer)
    {
      emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, now);
      now += draw_ns (rng, 2000);
      emlat_ix_time (c, EMLAT_T_INPUT_LATEST, now);
      emlat_ix_time (c, EMLAT_T_INPUT_READY, now);
      now += draw_ns (rng, 1000);
      emlat_ix_time (c, EMLAT_T_READ_BEGIN, now);
      now += 3000;
      emlat_ix_time (c, EMLAT_T_READ_END, now);
      emlat_ix_time (c, EMLAT_T_QUEUE_INSERT, now);
      now += draw_ns (rng, 1000);
      emlat_ix_time (c, EMLAT_T_QUEUE_REMOVE, now);
      now += draw_ns (rng, 5000);
      emlat_ix_time (c, EMLAT_T_KEY_DECODE_DONE, now);
    }
  emlat_ix_time (c, EMLAT_T_DISPATCH_BEGIN, now);
  uint64_t cpu = i * 1000000u;
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, cpu);
  uint64_t loop = emlat_span_begin (EMLAT_SPAN_COMMAND_LOOP, c);
  uint64_t cmd = emlat_span_begin (EMLAT_SPAN_COMMAND, c);
  emlat_ix_time (c, EMLAT_T_COMMAND_BEGIN, now);
  now += draw_ns (rng, 40000);
  emlat_ix_time (c, EMLAT_T_COMMAND_END, now);
  emlat_span_end (cmd, EMLAT_SPAN_OK, 0);
  emlat_span_end (loop, EMLAT_SPAN_OK, 0);
  emlat_ix_time (c, EMLAT_T_ROOT_WORK_END, now);
  if (!superseded)
    {
      uint64_t red = emlat_span_begin (EMLAT_SPAN_REDISPLAY, c);
      now += draw_ns (rng, 2000);
      emlat_ix_time (c, EMLAT_T_REDISPLAY_BEGIN, now);
      now += draw_ns (rng, 30000);
      emlat_ix_time (c, EMLAT_T_REDISPLAY_END, now);
      emlat_ix_time (c, EMLAT_T_OUTPUT_BEGIN, now);
      now += draw_ns (rng, 5000);
      emlat_ix_time (c, EMLAT_T_OUTPUT_END, now);
      emlat_ix_time (c, EMLAT_T_FLUSH_BEGIN, now);
      now += draw_ns (rng, 5000);
      emlat_ix_time (c, EMLAT_T_FLUSH_END, now);
      emlat_span_end (red, EMLAT_SPAN_OK, 0);
      emlat_ix_count (c, EMLAT_C_REDISPLAY_ATTEMPTS, 1);
      emlat_ix_count (c, EMLAT_C_TTY_BYTES, 20 + next_rand (rng) % 400);
    }
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_END, cpu + (now - *t) / 2);
  emlat_ix_count (c, EMLAT_C_WINDOW_ROWS, 22);
  emlat_ix_count (c, EMLAT_C_WINDOW_COLS, 80);
  emlat_ix_end (c, superseded ? EMLAT_STATUS_SUPERSEDED : EMLAT_STATUS_NORMAL);
  *t = now + draw_ns (rng, 100000);
}

static int
record_profile (const char *who, const char *path, uint64_t n)
{
  static const char name[] = "bench_report";
  const struct emlat_meta meta[] = {
    { .key = "program.name", .type = EMLAT_META_STR, .s = name,
      .s_len = sizeof name - 1 },
  };
  struct emlat_options opt = { .path = path, .ring_slots = 1u << 16,
                               .meta = meta, .n_meta = 1 };
  int rc = emlat_start (&opt);
  if (rc != 0)
    {
      fprintf (stderr, "%s: %s: %s\n", who, path, strerror (-rc));
      return -1;
    }
  uint64_t rng = 42, t = 1000000000u;
  for (uint64_t i = 0; i < n; i++)
    {
      one_interaction (i, &rng, &t);
      if (i % 512 == 511)
        emlat_flush ();
    }
  rc = emlat_stop ();
  struct emlat_status st;
  emlat_status (&st);
  if (rc != 0 || st.records_dropped != 0)
    {
      fprintf (stderr, "%s: recording failed (%d) or lost %llu records\n", who,
               rc, (unsigned long long)st.records_dropped);
      return -1;
    }
  fprintf (stderr, "%s: %llu interactions, %llu bytes in %s\n", who,
           (unsigned long long)n, (unsigned long long)st.bytes_written, path);
  return 0;
}

#endif /* EMLAT_BENCH_SESSION_SHAPE_H */

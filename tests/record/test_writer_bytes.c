/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_writer_bytes.c -- the writer's output for a fixed recorded stream is
 * byte for byte what it was when this test was written: a change to the
 * writer's drain, span pairing, interaction table or encoders (their speed,
 * docs/PERFORMANCE.md "Writer") must not change a single byte of the file
 * (docs/FORMAT.md is fixed).
 *
 * Method: the program replaces clock_gettime (the library's objects are
 * linked into it, so their calls resolve here; EMLAT_CLOCK_VIA=vdso keeps
 * the library from reading the time-stamp counter) by a deterministic clock:
 * each recording thread counts its own time from its own base with
 * irregular steps (1-byte, 2-byte and longer deltas), the thread CPU clock
 * likewise, and every other thread (the writer) reads a constant.  One
 * session records a fixed stream through the public API, one pass at a
 * time (emlat_flush; the ring is large enough that the writer never wakes
 * on its own): strings; flat span pairs; nested spans with counters, CPU
 * readings and details; spans unwound by an outer end; an orphan end;
 * spans left open across passes (begin records, then end records);
 * interactions whose fields come in several passes and from a second
 * thread, set twice, added to, with non-default qualities; input batches
 * with every mask; nesting past the span stack limit (a LOSS); bursts that
 * fill several chunks (chunk_bytes = 4096).  The stream is recorded twice:
 * stopped normally, and stopped with EMLAT_OPT_DEFER_FINISH and finished by
 * emlat_recover (the writer's checkpoint restored by a reader, its last
 * passes run there).  Each file is then cut into chunks and a 64-bit
 * FNV-1a digest taken over the type and payload of
 * every STRING, INPUT, INTERACTION, SPAN and LOSS chunk (SESSION, STATS and
 * the headers' sequence numbers depend on the host and on timing; the
 * payload CRC adds nothing to the payload).  The digests must equal
 * GOLDEN_DIGEST and GOLDEN_RECOVERED_DIGEST, taken from the writer before
 * its issue 8 rework (main at fc2be89, whose no_ring accounting counts every
 * record a ringless thread makes; same stream); the
 * number of chunks is checked too and the count per type printed, so a
 * mismatch says where to look, and the file must scan clean with its
 * LOSS records adding up to stats.records_dropped.
 *
 * If the format itself is ever changed on purpose (a new FORMAT.md
 * version), the new digests printed by this test replace the GOLDEN_*
 * values in the same commit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/endian.h"
#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "format/format.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

#define GOLDEN_DIGEST 0x57b5fefa5ebc6d61ull
#define GOLDEN_CHUNKS 54u
#define GOLDEN_RECOVERED_DIGEST 0x30ab26960e400789ull
#define GOLDEN_RECOVERED_CHUNKS 54u

/* ------------------------------------------------------------------ */
/* The deterministic clock                                             */

/* 0: not a recording thread (the writer): a constant time.  Else the
   thread's own counters. */
static __thread int clock_role;
static __thread uint64_t clock_t_now, clock_cpu_now, clock_lcg;

static void
clock_role_set (int role)
{
  clock_role = role;
  clock_t_now = (uint64_t)role * 1000000000000ull;
  clock_cpu_now = (uint64_t)role * 1000000ull;
  clock_lcg = (uint64_t)role * 0x9e3779b97f4a7c15ull + 1;
}

static uint64_t
clock_step (void)
{
  clock_lcg = clock_lcg * 6364136223846793005ull + 1442695040888963407ull;
  uint64_t r = clock_lcg >> 33;
  uint64_t step = 20 + r % 40; /* one-byte deltas, mostly */
  if (r % 7 == 0)
    step += 200 + r % 5000; /* two bytes */
  if (r % 101 == 0)
    step += 3000000; /* a pause: four bytes */
  return step;
}

int
clock_gettime (clockid_t id, struct timespec *ts)
{
  uint64_t t;
  if (id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW)
    t = clock_role ? (clock_t_now += clock_step ()) : 500000000000ull;
  else if (id == CLOCK_THREAD_CPUTIME_ID)
    t = clock_role ? (clock_cpu_now += clock_step () / 2) : 0;
  else
    return (int)syscall (SYS_clock_gettime, id, ts);
  ts->tv_sec = (time_t)(t / 1000000000u);
  ts->tv_nsec = (long)(t % 1000000000u);
  return 0;
}

/* ------------------------------------------------------------------ */
/* The stream                                                          */

static uint64_t shared_cause;

static void
flat_pairs (unsigned n, uint64_t cause, enum emlat_span_kind kind)
{
  for (unsigned i = 0; i < n; i++)
    emlat_span_end (emlat_span_begin (kind, cause), EMLAT_SPAN_OK, 0);
}

static void
nested (uint64_t cause, uint64_t detail, unsigned depth, unsigned seed)
{
  uint64_t s = (seed % 3 == 0) ? emlat_span_begin_cpu (EMLAT_SPAN_COMMAND, cause)
                               : emlat_span_begin (EMLAT_SPAN_COMMAND, cause);
  if (seed % 2)
    emlat_span_count (s, EMLAT_C_ROWS_GENERATED, seed * 3);
  if (depth > 1)
    {
      nested (cause, detail, depth - 1, seed + 1);
      if (seed % 4 == 1)
        nested (cause + 1, 0, depth - 1, seed + 2);
    }
  if (seed % 5 == 0)
    emlat_span_count (s, EMLAT_C_GLYPHS_EMITTED, 1000000 + seed);
  if (seed % 5 == 0)
    emlat_span_count (s, EMLAT_C_ROWS_GENERATED, seed * 7); /* set again */
  emlat_span_end (s, seed % 6 == 0 ? EMLAT_SPAN_ERROR : EMLAT_SPAN_OK, seed % 3 ? detail : 0);
}

static void
interaction_fields (uint64_t c, unsigned i)
{
  emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, emlat_now () - 900000 - i);
  emlat_ix_time_q (c, EMLAT_T_INPUT_LATEST, emlat_now () - 400000, EMLAT_Q_OBSERVER_READY);
  emlat_ix_mark (c, EMLAT_T_COMMAND_BEGIN);
  emlat_ix_value (c, EMLAT_V_DECISIVE_SOURCE_BATCH, i + 1);
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, 1000000ull * i);
  emlat_ix_count (c, EMLAT_C_TTY_BYTES, i * 13);
  emlat_ix_add (c, EMLAT_C_TTY_BYTES, 5);
  emlat_ix_add (c, EMLAT_C_WRITE_CALLS, 2);
  emlat_ix_mark (c, EMLAT_T_COMMAND_END);
  emlat_ix_mark (c, EMLAT_T_COMMAND_END); /* set twice: the last wins */
}

static void
inputs (unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    {
      uint64_t t = emlat_now ();
      struct emlat_input_batch b = { .batch_id = emlat_input_batch_id (),
                                     .mask = (i * 7) % 32,
                                     .ready_quality = i % 2 ? EMLAT_Q_OBSERVER_READY
                                                            : EMLAT_Q_MAIN_POLL_READY,
                                     .t_known_empty = t - 5000,
                                     .t_first_ready = t - 3000 + i,
                                     .t_read_begin = t - 200,
                                     .t_read_end = t,
                                     .bytes = 1 + i * 37 };
      emlat_input_batch (&b);
    }
}

static void *
worker (void *arg)
{
  (void)arg;
  clock_role_set (2);
  uint64_t c = shared_cause;
  emlat_ix_mark (c, EMLAT_T_REDISPLAY_BEGIN);
  for (unsigned i = 0; i < 30; i++)
    nested (c, 0, 3, i);
  flat_pairs (500, c, EMLAT_SPAN_WAIT);
  emlat_ix_count (c, EMLAT_C_GC_COUNT, 3);
  emlat_ix_mark (c, EMLAT_T_REDISPLAY_END);
  inputs (20);
  return 0;
}

static void
record_stream (void)
{
  /* Pass 1: strings, flat pairs, nested spans, interactions. */
  uint64_t str[3];
  str[0] = emlat_string ("alpha", 5);
  str[1] = emlat_string ("self-insert-command", 19);
  str[2] = emlat_string ("", 0);
  uint64_t c0 = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0);
  flat_pairs (2000, c0, EMLAT_SPAN_WINDOW_UPDATE);
  for (unsigned i = 0; i < 200; i++)
    nested (c0, str[i % 3], 1 + i % 5, i);
  uint64_t c1 = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, c0, 0);
  interaction_fields (c1, 1);
  for (unsigned i = 0; i < 50; i++)
    {
      uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, c0);
      interaction_fields (c, i);
      flat_pairs (3, c, EMLAT_SPAN_COMMAND);
      emlat_ix_end (c, i % 4 ? EMLAT_STATUS_NORMAL : EMLAT_STATUS_ERROR);
    }
  /* Open across the pass: begin records now, end records later. */
  uint64_t open_outer = emlat_span_begin (EMLAT_SPAN_COMMAND, c1);
  uint64_t open_inner = emlat_span_begin_cpu (EMLAT_SPAN_REDISPLAY, c1);
  emlat_span_count (open_inner, EMLAT_C_FRAMES_CONSIDERED, 2);
  uint64_t open_cpu = emlat_span_begin_cpu (EMLAT_SPAN_GC, c1);
  emlat_span_count (open_cpu, EMLAT_C_GC_NS, 123456);
  flat_pairs (2, c1, EMLAT_SPAN_WAIT);
  inputs (40);
  emlat_flush ();

  /* Pass 2: ends of the open spans, an unwinding end, an orphan end,
     the interaction's fields continued, a second thread. */
  emlat_span_count (open_inner, EMLAT_C_FRAMES_UPDATED, 1);
  flat_pairs (10, c1, EMLAT_SPAN_WAIT);
  /* Behind a span open in this pass: an orphan end, a counter for a span
     not open (a LOSS), pairs; then an end record with CPU, which unwinds
     the waiting span. */
  uint64_t waiting = emlat_span_begin (EMLAT_SPAN_COMMAND, c1);
  emlat_span_end ((uint64_t)123456791 << 1, EMLAT_SPAN_QUIT, 0);
  emlat_span_count ((uint64_t)123456792 << 1, EMLAT_C_GC_NS, 1);
  flat_pairs (3, c1, EMLAT_SPAN_WAIT);
  emlat_span_end (open_cpu, EMLAT_SPAN_OK, str[2]);
  (void)waiting;
  uint64_t a = emlat_span_begin (EMLAT_SPAN_USER, c1);
  uint64_t b = emlat_span_begin (EMLAT_SPAN_USER, c1);
  emlat_span_begin (EMLAT_SPAN_USER, c1);
  (void)b;
  emlat_span_end (a, EMLAT_SPAN_OK, 7); /* b and the third unwound */
  emlat_span_end (open_outer, EMLAT_SPAN_THROW, str[1]); /* open_inner unwound */
  emlat_span_end ((uint64_t)123456789 << 1, EMLAT_SPAN_OK, 0); /* orphans */
  emlat_span_end ((uint64_t)123456790 << 1 | 1, EMLAT_SPAN_ERROR, 3);
  emlat_ix_count (c1, EMLAT_C_ROWS_GENERATED, 40);
  emlat_ix_time_q (c1, EMLAT_T_FLUSH_END, emlat_now (), EMLAT_Q_FLUSH);
  shared_cause = c1;
  pthread_t th;
  if (pthread_create (&th, 0, worker, 0) == 0)
    pthread_join (th, 0);
  emlat_flush ();

  /* Pass 3: the interaction ends; bursts over several chunks. */
  emlat_ix_end (c1, EMLAT_STATUS_NORMAL);
  flat_pairs (5000, c0, EMLAT_SPAN_WINDOW_UPDATE);
  for (unsigned i = 0; i < 400; i++)
    {
      uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      interaction_fields (c, i);
      emlat_ix_end (c, EMLAT_STATUS_NORMAL);
    }
  uint64_t held = emlat_span_begin (EMLAT_SPAN_COMMAND, c0);
  for (unsigned i = 0; i < 300; i++)
    nested (c0, str[0], 4, i);
  emlat_span_end (held, EMLAT_SPAN_OK, 0);
  inputs (300);
  emlat_flush ();

  /* Pass 4: nesting past the span stack (EMLAT_SPAN_STACK_MAX = 4096):
     the begins beyond it are discarded (a LOSS), the rest unwound. */
  uint64_t deep = emlat_span_begin (EMLAT_SPAN_USER, 0);
  for (unsigned i = 0; i < 4200; i++)
    emlat_span_begin (EMLAT_SPAN_USER, 0);
  emlat_span_end (deep, EMLAT_SPAN_OK, 0);
  emlat_ix_end (c0, EMLAT_STATUS_NORMAL);
  uint64_t left_open = emlat_ix_begin (EMLAT_ROOT_TIMER, 0, 0);
  emlat_ix_mark (left_open, EMLAT_T_COMMAND_BEGIN);
  emlat_span_begin (EMLAT_SPAN_COMMAND, left_open); /* open at stop */
  emlat_flush ();
}

/* ------------------------------------------------------------------ */
/* The digest                                                          */

static uint64_t
fnv (uint64_t h, const uint8_t *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Record the stream in a new session at PATH; with DEFER, emlat_stop
   leaves the last passes to emlat_recover (the checkpoint's open spans,
   interactions and positions restored by a reader).  Returns the digest;
   *CHUNKS the chunks it covers. */
static uint64_t
session (const char *path, int defer, unsigned *chunks)
{
  struct emlat_options o = { .path = path,
                             .ring_slots = 1u << 18,
                             .chunk_bytes = 4096,
                             .flags = defer ? EMLAT_OPT_DEFER_FINISH : 0 };
  CHECK_EQ_I64 (emlat_start (&o), 0);
  emlat_flush (); /* passes of the start are behind us */
  record_stream ();
  CHECK_EQ_I64 (emlat_stop (), 0);
  if (defer)
    {
      struct emlat_recovery r;
      CHECK_EQ_I64 (emlat_recover (path, &r), 0);
      CHECK (r.found && r.process_stopped && !r.broken, "the ring file was recovered");
    }

  uint8_t *buf;
  size_t len;
  CHECK_EQ_I64 (tu_read_file (path, &buf, &len), 0);
  uint64_t h = 0xcbf29ce484222325ull;
  unsigned per_type[8] = { 0 };
  *chunks = 0;
  size_t off = EMLAT_FILE_HEADER_SIZE;
  while (off + EMLAT_CHUNK_HEADER_SIZE <= len)
    {
      const uint8_t *c = buf + off;
      uint16_t type = emlat_le16 (c + EMLAT_CH_TYPE);
      uint32_t stored = emlat_le32 (c + EMLAT_CH_STORED);
      if (off + EMLAT_CHUNK_HEADER_SIZE + stored > len)
        break;
      if (type < 8)
        per_type[type]++;
      if (type >= EMLAT_CHUNK_STRING && type <= EMLAT_CHUNK_LOSS)
        {
          uint8_t tb[2] = { (uint8_t)type, (uint8_t)(type >> 8) };
          h = fnv (h, tb, 2);
          h = fnv (h, c + EMLAT_CHUNK_HEADER_SIZE, stored);
          (*chunks)++;
        }
      off += EMLAT_CHUNK_HEADER_SIZE + stored + EMLAT_PAD8 (stored);
    }
  CHECK_EQ_U64 (off, len);
  free (buf);
  tap_diag ("%s: digest 0x%016llxull over %u chunks (string %u input %u interaction %u "
            "span %u loss %u)",
            defer ? "recovered" : "stopped", (unsigned long long)h, *chunks, per_type[2],
            per_type[3], per_type[4], per_type[5], per_type[6]);

  /* The file is valid, and its losses add up (accepted counts slots, not
     records: it is not compared). */
  struct tally t;
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (path, &t, 0, &res), 0);
  CHECK_EQ_U64 (t.stats_final, 1);
  CHECK_EQ_U64 (t.loss_records, t.stats_records_dropped);
  CHECK (t.loss_records_by_reason[EMLAT_LOSS_RECORD_INVALID] > 0,
         "the nesting past the stack limit is a LOSS");
  CHECK (t.span_unwound > 0 && t.span_end > 0 && t.span_begin > 0 && t.ix_begin > 0,
         "the stream reaches begin, end and unwound records");
  tally_free (&t);
  unlink (path);
  return h;
}

int
main (void)
{
  setenv ("EMLAT_CLOCK_VIA", "vdso", 1);
  clock_role_set (1);
  const char *dir = tu_tmpdir ();
  char *path = tu_strf ("%s/bytes.emlat", dir);
  unsigned chunks;
  uint64_t h = session (path, 0, &chunks);
  CHECK_EQ_U64 (chunks, GOLDEN_CHUNKS);
  CHECK (h == GOLDEN_DIGEST, "the writer's bytes changed: digest 0x%016llx, expected 0x%016llx",
         (unsigned long long)h, (unsigned long long)GOLDEN_DIGEST);
  /* The same stream, finished by a reader from the ring file. */
  h = session (path, 1, &chunks);
  CHECK_EQ_U64 (chunks, GOLDEN_RECOVERED_CHUNKS);
  CHECK (h == GOLDEN_RECOVERED_DIGEST,
         "the recovered bytes changed: digest 0x%016llx, expected 0x%016llx",
         (unsigned long long)h, (unsigned long long)GOLDEN_RECOVERED_DIGEST);
  free (path);
  TEST_DONE ();
}

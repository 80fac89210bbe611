/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_alloc_fail.c -- the writer's failed allocations become LOSS records,
 * exactly, and never a crash or a damaged file (F-70, docs/DESIGN.md
 * section 18).
 *
 * The program is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
 * (Makefile): every allocation libemlat makes goes through the wrappers
 * below, which fail on command, and only on the writer thread (named
 * "emlat-writer"): the producers never allocate, and the writer is where
 * failed allocations must turn into loss (spans.c, ixtable.c, the arena and
 * chunk list of encode.c, the input and loss lists and the iovec of
 * writer.c).
 *
 * Each session records a known number of producer records P (interactions
 * with times, values and counters, nested spans with counters, input
 * batches) in bursts with flushes: a few small bursts with allocation
 * working (buffers grow to a small size), then larger bursts while the
 * writer's allocations fail (so its buffers must grow, and cannot), then
 * small bursts with allocation working again, and stop.  The failure
 * patterns: every allocation, every 2nd, 3rd and 7th, every malloc (the
 * writer's only malloc is the iovec of a pass of more than 64 chunks, which
 * 200 strings of 4 KiB in the window cause), and each single one of the
 * first allocations in the window by number (a sweep that ends when a
 * number is past the last allocation the window makes).  Per session:
 *   - start and stop succeed (stop may return -ENOMEM: a failed iovec
 *     allocation is a failed write, reported as such);
 *   - the file reads back valid and cleanly stopped, with a final STATS;
 *   - the LOSS records in the file sum to stats.records_dropped and to the
 *     status's records_dropped;
 *   - stats.records_written + stats.records_dropped == P: every record is
 *     written or counted lost, once;
 *   - at least one allocation failed in the window.
 * In the sweep, every failed allocation loses at least one record
 * (writer_memory, or write_error for the iovec) or is counted in STATS
 * (stats.checkpoints_failed; stats.encodings_deferred for the LOSS or STATS
 * chunk, which the next pass encodes again); across the sessions, the
 * paths that lose a whole pass (an encoding buffer that cannot grow: more
 * than 1000 records lost in one session) and that fail a write (the
 * "malloc" session: write_error) are reached.  Before the writer counted
 * these losses exactly, this test failed in most sessions (losses dropped
 * when the loss list could not grow, records counted twice or not at all).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "format/format.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

/* ------------------------------------------------------------------ */
/* Failing allocations on command                                      */

enum inject_mode {
  INJECT_OFF,
  INJECT_EVERY_KTH, /* every allocation whose number is a multiple of k */
  INJECT_ONLY_KTH,  /* allocation number k alone */
  INJECT_MALLOC     /* every malloc (the writer's only one is the iovec) */
};

/* Set by the main thread between bursts, read by the writer in the
   wrappers.  Sequentially consistent (the default): the counts are read
   after emlat_flush/emlat_stop returned, which already orders them, and
   the cost does not matter in a test. */
static _Atomic int inject_mode;
static _Atomic uint64_t inject_k;
static _Atomic uint64_t writer_allocs; /* writer allocations while not OFF */
static _Atomic uint64_t injected;      /* of which failed */
/* The return address in the library of the last failed allocation, named
   in the diagnostics (addr2line) when a failure lost nothing. */
static _Atomic uintptr_t failed_caller;

/* 1 on the writer thread, 0 elsewhere, -1 not yet known. */
static __thread int on_writer = -1;

void *__real_malloc (size_t n);
void *__real_calloc (size_t n, size_t size);
void *__real_realloc (void *p, size_t n);
void *__wrap_malloc (size_t n);
void *__wrap_calloc (size_t n, size_t size);
void *__wrap_realloc (void *p, size_t n);

static int
should_fail (int is_malloc)
{
  if (on_writer < 0)
    {
      /* The writer names itself before its first allocation. */
      char name[17] = { 0 };
      prctl (PR_GET_NAME, name, 0, 0, 0);
      on_writer = strcmp (name, "emlat-writer") == 0;
    }
  int mode = atomic_load (&inject_mode);
  if (!on_writer || mode == INJECT_OFF)
    return 0;
  uint64_t n = atomic_fetch_add (&writer_allocs, 1) + 1;
  uint64_t k = atomic_load (&inject_k);
  int fail = mode == INJECT_EVERY_KTH ? n % k == 0 : mode == INJECT_ONLY_KTH ? n == k : is_malloc;
  if (fail)
    atomic_fetch_add (&injected, 1);
  return fail;
}

void *
__wrap_malloc (size_t n)
{
  if (should_fail (1))
    {
      atomic_store (&failed_caller, (uintptr_t)__builtin_return_address (0));
      errno = ENOMEM;
      return NULL;
    }
  return __real_malloc (n);
}

void *
__wrap_calloc (size_t n, size_t size)
{
  if (should_fail (0))
    {
      atomic_store (&failed_caller, (uintptr_t)__builtin_return_address (0));
      errno = ENOMEM;
      return NULL;
    }
  return __real_calloc (n, size);
}

void *
__wrap_realloc (void *p, size_t n)
{
  if (should_fail (0))
    {
      atomic_store (&failed_caller, (uintptr_t)__builtin_return_address (0));
      errno = ENOMEM;
      return NULL;
    }
  return __real_realloc (p, n);
}

/* ------------------------------------------------------------------ */
/* The workload                                                        */

/* N interactions, each with a time, a value, a counter, an input batch, an
   outer span with a counter around an inner span, a span of its own (a
   pair with nothing open around it, which the writer encodes at once), and
   its end; then a flush.  Returns the producer records made (13 per
   interaction). */
static uint64_t
burst (int n)
{
  uint64_t records = 0;
  for (int i = 0; i < n; i++)
    {
      uint64_t cause = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      uint64_t t = emlat_now ();
      emlat_ix_time (cause, EMLAT_T_COMMAND_BEGIN, t);
      emlat_ix_value (cause, EMLAT_V_TERMINAL_ID, 1);
      emlat_ix_count (cause, EMLAT_C_DECODED_EVENTS, (uint64_t)i);
      struct emlat_input_batch b = { .batch_id = emlat_input_batch_id (),
                                     .mask = EMLAT_IB_READ_BEGIN | EMLAT_IB_READ_END
                                             | EMLAT_IB_BYTES,
                                     .t_read_begin = t,
                                     .t_read_end = t + 1,
                                     .bytes = 1 };
      emlat_input_batch (&b);
      uint64_t outer = emlat_span_begin (EMLAT_SPAN_USER, cause);
      emlat_span_count (outer, EMLAT_C_DECODED_EVENTS, 1);
      uint64_t inner = emlat_span_begin (EMLAT_SPAN_USER, cause);
      emlat_span_end (inner, EMLAT_SPAN_OK, 0);
      emlat_span_end (outer, EMLAT_SPAN_OK, 0);
      emlat_span_end (emlat_span_begin (EMLAT_SPAN_WAIT, cause), EMLAT_SPAN_OK, 0);
      emlat_ix_end (cause, EMLAT_STATUS_NORMAL);
      records += 13;
    }
  /* -ENOMEM: the pass could not allocate its iovec, a failed write. */
  int rc = emlat_flush ();
  CHECK (rc == 0 || rc == -ENOMEM, "emlat_flush returned %d", rc);
  return records;
}

struct outcome
{
  uint64_t injected, window_allocs;
  uint64_t writer_memory_loss, write_error_loss;
  uint64_t checkpoints_failed; /* the allocation was a checkpoint's */
  uint64_t encodings_deferred; /* ... or a LOSS or STATS chunk's */
  uintptr_t failed_caller;     /* return address of the last failure */
};

/* One session under failure pattern MODE/K; checks the accounting. */
static const char *dir; /* the test's temporary directory */

static struct outcome
session (const char *name, enum inject_mode mode, uint64_t k)
{
  struct outcome out = { 0 };
  char *path = tu_strf ("%s/%s.emlat", dir, name);
  struct emlat_options o = { .path = path,
                             .ring_slots = 1u << 17,
                             .max_threads = 2,
                             .chunk_bytes = 4096,
                             .stats_interval_ms = 20 };
  CHECK_EQ_I64 (emlat_start (&o), 0);
  uint64_t produced = 0;
  for (int i = 0; i < 3; i++)
    produced += burst (20);

  atomic_store (&writer_allocs, 0);
  atomic_store (&injected, 0);
  atomic_store (&failed_caller, 0);
  atomic_store (&inject_k, k);
  atomic_store (&inject_mode, mode);
  /* 200 strings of the largest size, one chunk each: a pass writes more
     than 64 chunks, which needs a heap iovec (writer.c, write_chunks),
     even if the strings are split over three passes. */
  static char text[EMLAT_STRING_MAX];
  for (int i = 0; i < 200; i++)
    {
      memset (text, 'a' + i % 26, sizeof text);
      CHECK (emlat_string (text, sizeof text) != 0, "%s: string %d refused", name, i);
    }
  for (int i = 0; i < 2; i++)
    produced += burst (5000);
  atomic_store (&inject_mode, INJECT_OFF);
  out.injected = atomic_load (&injected);
  out.window_allocs = atomic_load (&writer_allocs);
  out.failed_caller = atomic_load (&failed_caller);

  for (int i = 0; i < 3; i++)
    produced += burst (20);
  struct emlat_status st;
  emlat_status (&st);
  int rc = emlat_stop ();
  CHECK (rc == 0 || rc == -ENOMEM, "%s: emlat_stop returned %d", name, rc);
  emlat_status (&st);
  if (rc == -ENOMEM)
    CHECK (st.write_errors > 0, "%s: -ENOMEM without a write error", name);

  struct tally t;
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (path, &t, 0, &res), 0);
  CHECK (res.stop == EMLAT_STOP_CLEAN, "%s: file stops with %d", name, (int)res.stop);
  CHECK_EQ_U64 (t.stats_final, 1);
  CHECK (t.loss_records == t.stats_records_dropped,
         "%s: LOSS records sum to %llu, STATS says %llu dropped", name,
         (unsigned long long)t.loss_records, (unsigned long long)t.stats_records_dropped);
  CHECK (t.loss_records == st.records_dropped, "%s: LOSS sum %llu, status %llu dropped", name,
         (unsigned long long)t.loss_records, (unsigned long long)st.records_dropped);
  CHECK (t.stats_records_written + t.stats_records_dropped == produced,
         "%s: written %llu + dropped %llu != produced %llu", name,
         (unsigned long long)t.stats_records_written, (unsigned long long)t.stats_records_dropped,
         (unsigned long long)produced);
  CHECK_EQ_U64 (st.records_written, t.stats_records_written);
  /* (The last session of the sweep may ask for an allocation the window
     did not make.) */
  if (mode != INJECT_ONLY_KTH || out.window_allocs >= k)
    CHECK (out.injected > 0, "%s: no allocation failed (%llu in the window)", name,
           (unsigned long long)out.window_allocs);
  out.writer_memory_loss = t.loss_records_by_reason[EMLAT_LOSS_WRITER_MEMORY];
  out.write_error_loss = t.loss_records_by_reason[EMLAT_LOSS_WRITE_ERROR];
  out.checkpoints_failed = t.stats_checkpoints_failed;
  out.encodings_deferred = t.stats_encodings_deferred;
  TEST_DIAG ("%-10s %6llu allocs in window, %4llu failed; produced %llu, written %llu, lost %llu "
             "(writer_memory %llu, invalid %llu, write_error %llu); checkpoints failed %llu, "
             "encodings deferred %llu",
             name, (unsigned long long)out.window_allocs, (unsigned long long)out.injected,
             (unsigned long long)produced, (unsigned long long)t.stats_records_written,
             (unsigned long long)t.loss_records,
             (unsigned long long)t.loss_records_by_reason[EMLAT_LOSS_WRITER_MEMORY],
             (unsigned long long)t.loss_records_by_reason[EMLAT_LOSS_RECORD_INVALID],
             (unsigned long long)t.loss_records_by_reason[EMLAT_LOSS_WRITE_ERROR],
             (unsigned long long)t.stats_checkpoints_failed,
             (unsigned long long)t.stats_encodings_deferred);
  tally_free (&t);
  unlink (path);
  free (path);
  return out;
}

int
main (void)
{
  dir = tu_tmpdir ();
  uint64_t memory_loss = 0, largest_loss = 0, write_error_loss = 0;
  struct outcome r;
  static const uint64_t every[] = { 1, 2, 3, 7 };
  for (size_t i = 0; i < sizeof every / sizeof every[0]; i++)
    {
      char name[32];
      snprintf (name, sizeof name, "every-%llu", (unsigned long long)every[i]);
      r = session (name, INJECT_EVERY_KTH, every[i]);
      memory_loss += r.writer_memory_loss;
      write_error_loss += r.write_error_loss;
      if (r.writer_memory_loss > largest_loss)
        largest_loss = r.writer_memory_loss;
    }
  r = session ("malloc", INJECT_MALLOC, 0);
  CHECK (r.write_error_loss > 0, "a failed iovec allocation lost nothing");
  write_error_loss += r.write_error_loss;
  /* Each single allocation of the window, by number, until the window
     makes fewer allocations than that (at most 200 sessions). */
  for (uint64_t k = 1; k <= 200; k++)
    {
      char name[32];
      snprintf (name, sizeof name, "only-%llu", (unsigned long long)k);
      r = session (name, INJECT_ONLY_KTH, k);
      if (r.window_allocs >= k)
        /* A checkpoint's failed allocation loses no record: the ring file
           is given up instead, and STATS says so.  Nor does one made while
           encoding the LOSS or STATS chunk (which one it is depends on the
           timing of the passes): the next pass encodes them again, and
           STATS counts the deferral. */
        CHECK (r.writer_memory_loss + r.write_error_loss + r.checkpoints_failed
                   + r.encodings_deferred
               > 0,
               "%s: a failed allocation lost nothing (called from main%+lld: "
               "addr2line -f -e BINARY with main's address from nm)", name,
               (long long)(r.failed_caller - (uintptr_t)main));
      memory_loss += r.writer_memory_loss;
      write_error_loss += r.write_error_loss;
      if (r.writer_memory_loss > largest_loss)
        largest_loss = r.writer_memory_loss;
      if (r.window_allocs <= k)
        break;
    }
  CHECK (memory_loss > 0, "no LOSS record of reason writer_memory in any session");
  CHECK (largest_loss > 1000, "no session lost a whole pass (largest loss %llu)",
         (unsigned long long)largest_loss);
  CHECK (write_error_loss > 0, "no failed iovec allocation (no write_error loss)");
  TEST_DONE ();
}

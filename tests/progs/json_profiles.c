/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * json_profiles.c -- writes the profiles tests/report/test_json_schemas.sh
 * checks the JSON outputs on, through the public producer API:
 *
 *   json_profiles rotated PATH   a rotated set (PATH, PATH.1, ...: 1500-byte
 *       rotation size) holding every record kind with its optional fields
 *       both present and absent: SESSION entries of the three value types,
 *       STRING records (one not valid UTF-8), input batches with every
 *       mask, interactions of several root kinds with explicit qualities,
 *       values and counters, complete spans with CPU, detail and counters,
 *       spans begun in one chunk and ended in another (begin and end
 *       records), a span left open and an interaction left open at stop,
 *       and the application API's records: named sections, an application
 *       interaction, instants, integer and floating counters, async
 *       slices, a flow, thread and process names (EVENT chunks);
 *   json_profiles lossy PATH     one file whose 16-slot ring overflows: LOSS
 *       records (ring_full);
 *   json_profiles joined PROGRAM DRIVER   a crafted pair for the join of
 *       `emlat report PROGRAM DRIVER` (docs/REPLAY.md "Joining the two
 *       profiles"): a program session of key interactions with explicit
 *       arrival and write times, and a driver session (SESSION
 *       replay.driver) of sends with explicit send and first-output
 *       times, on one time base (JOINED_CASES below says what each key
 *       tests and tests/report/test_joined.sh what it expects).
 *
 * Exit 0 when the session started and stopped cleanly.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "emlat/emlat.h"

static int
start (const char *path, uint32_t ring_slots, uint64_t rotate_bytes)
{
  static const char name[] = "json-profiles", term[] = "xterm", wl[] = "json-1";
  struct emlat_meta meta[] = {
    { .key = "program.name", .type = EMLAT_META_STR, .s = name, .s_len = sizeof name - 1 },
    { .key = "tty.term", .type = EMLAT_META_STR, .s = term, .s_len = sizeof term - 1 },
    { .key = "tty.rows", .type = EMLAT_META_UINT, .u = 24 },
    { .key = "tty.cols", .type = EMLAT_META_UINT, .u = 80 },
    { .key = "test.offset", .type = EMLAT_META_SINT, .i = -42 },
    { .key = "replay.workload", .type = EMLAT_META_STR, .s = wl, .s_len = sizeof wl - 1 },
  };
  struct emlat_options o = { .path = path, .meta = meta, .n_meta = sizeof meta / sizeof meta[0],
                             .ring_slots = ring_slots, .rotate_bytes = rotate_bytes,
                             .drain_interval_us = 200000 };
  int rc = emlat_start (&o);
  if (rc != 0)
    fprintf (stderr, "json_profiles: emlat_start %s: %d\n", path, rc);
  return rc;
}

static void
pause_ms (long ms)
{
  struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep (&d, NULL);
}

/* One input batch with the presence bits MASK. */
static uint64_t
input (uint32_t mask, uint64_t now)
{
  struct emlat_input_batch b = {
    .batch_id = emlat_input_batch_id (), .mask = mask, .ready_quality = EMLAT_Q_OBSERVER_READY,
    .t_known_empty = now - 3000, .t_first_ready = now - 2000, .t_read_begin = now - 1000,
    .t_read_end = now - 500, .bytes = 3,
  };
  emlat_input_batch (&b);
  return b.batch_id;
}

/* An interaction of KIND served by a command span with CPU, detail and
   counters, a nested span, and the boundaries of a flushed key press. */
static void
interaction (enum emlat_root_kind kind, uint64_t parent, uint64_t detail, uint32_t mask)
{
  uint64_t now = emlat_now ();
  uint64_t batch = input (mask, now);
  uint64_t c = emlat_ix_begin (kind, parent, 0);
  emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, now - 2000);
  emlat_ix_time_q (c, EMLAT_T_INPUT_LATEST, now - 1000, EMLAT_Q_MAIN_POLL_READY);
  emlat_ix_value (c, EMLAT_V_FIRST_SOURCE_BATCH, batch);
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, emlat_thread_cpu_now ());
  uint64_t s = emlat_span_begin_cpu (EMLAT_SPAN_COMMAND, c);
  emlat_ix_mark (c, EMLAT_T_COMMAND_BEGIN);
  uint64_t g = emlat_span_begin (EMLAT_SPAN_GC, c);
  emlat_span_end (g, EMLAT_SPAN_OK, 0);
  emlat_ix_mark (c, EMLAT_T_COMMAND_END);
  emlat_span_count (s, EMLAT_C_BUFFER_SIZE, 1234);
  emlat_span_end (s, EMLAT_SPAN_OK, detail);
  emlat_ix_mark (c, EMLAT_T_ROOT_WORK_END);
  emlat_ix_mark (c, EMLAT_T_OUTPUT_BEGIN);
  emlat_ix_mark (c, EMLAT_T_FLUSH_END);
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_END, emlat_thread_cpu_now ());
  emlat_ix_count (c, EMLAT_C_TTY_BYTES, 17);
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
}

static int
rotated (const char *path)
{
  if (start (path, 1024, 1500) != 0)
    return 1;
  static const char ok[] = "find-file", bad[] = "caf\xc3\x28 \xff";
  uint64_t s1 = emlat_string (ok, sizeof ok - 1);
  uint64_t s2 = emlat_string (bad, sizeof bad - 1);
  /* A span begun before the interactions and ended after some chunks. */
  uint64_t loop = emlat_span_begin_cpu (EMLAT_SPAN_COMMAND_LOOP, 0);
  emlat_flush ();
  for (int i = 0; i < 40; i++)
    {
      static const enum emlat_root_kind kinds[] = { EMLAT_ROOT_TTY_COMMAND, EMLAT_ROOT_TIMER,
                                                    EMLAT_ROOT_PROCESS_DATA };
      interaction (kinds[i % 3], 0, i % 2 ? s1 : s2, (uint32_t)(i % 32));
      if (i % 8 == 7)
        emlat_flush ();
    }
  /* A nested interaction (parent cause) with the superseded status. */
  uint64_t outer = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  uint64_t inner = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, outer, outer);
  emlat_ix_end (inner, EMLAT_STATUS_SUPERSEDED);
  emlat_ix_end (outer, EMLAT_STATUS_ERROR);
  emlat_span_end (loop, EMLAT_SPAN_QUIT, 0);
  emlat_flush ();
  /* The application API: every EVENT tag, named sections, an
     application interaction (INTERACTION version 2). */
  emlat_process_name ("json-profiles", 13);
  emlat_thread_name ("main", 4);
  uint64_t app = EMLAT_INTERACTION_BEGIN ("request");
  emlat_ix_time (app, EMLAT_T_INPUT_EARLIEST, emlat_now ());
  emlat_ix_time (app, EMLAT_T_INPUT_LATEST, emlat_now ());
  {
    EMLAT_SCOPE ("handle");
    uint64_t parse = EMLAT_SECTION_BEGIN ("parse");
    EMLAT_INSTANT ("parsed");
    emlat_section_end (parse);
    EMLAT_COUNTER ("queue", -3);
    EMLAT_COUNTER_F ("load", 0.5);
    EMLAT_ASYNC_BEGIN ("io", 9);
    uint64_t f = EMLAT_FLOW_BEGIN ("job");
    emlat_flow_step (f);
    emlat_flow_end (f);
    EMLAT_ASYNC_END ("io", 9);
  }
  emlat_ix_mark (app, EMLAT_T_FLUSH_END);
  emlat_interaction_end (app, EMLAT_STATUS_NORMAL);
  emlat_flush ();
  /* Left open at stop: an interaction and a span. */
  uint64_t open = emlat_ix_begin (EMLAT_ROOT_RESIZE, 0, 0);
  emlat_span_begin (EMLAT_SPAN_REDISPLAY, open);
  emlat_flush ();
  return emlat_stop () != 0;
}

static int
lossy (const char *path)
{
  if (start (path, 16, 0) != 0)
    return 1;
  for (int round = 0; round < 4; round++)
    {
      for (int i = 0; i < 200; i++)
        {
          uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
          emlat_ix_mark (c, EMLAT_T_COMMAND_BEGIN);
          emlat_ix_mark (c, EMLAT_T_COMMAND_END);
          emlat_ix_end (c, EMLAT_STATUS_NORMAL);
        }
      pause_ms (250);
    }
  struct emlat_status st;
  emlat_status (&st);
  int rc = emlat_stop ();
  if (st.records_dropped == 0)
    {
      fprintf (stderr, "json_profiles: the ring did not overflow\n");
      return 1;
    }
  return rc != 0;
}

/* The crafted pair, times in microseconds after a base.  Program
   interactions (root kind tty command) with input earliest/latest and
   first write begin/end, and sends with send time and first output (0:
   none):
     key 1  inside:  sent 10000, read 10100 (empty since 9000), write
            10300..10350, first output 10500: outside 500 >= lower 200,
            <= upper 1350;
     key 2  below:   sent 20000, read 20100, write 20300..20320, first
            output 20050: outside 50 < lower 200 (the driver saw output
            that was not this key's);
     key 3  above:   sent 30000, read 30100 (empty since 29500), write
            30200..30300, first output 35000: outside 5000 > upper 800;
     key 4  a send with no interaction: sent 40000, output 40500; the
            next interaction was seen empty at 49000, after the send;
     key 5  silent:  sent 50000, no output; read 50100 (empty since 49000):
            matched, not compared;
     keys 6, 7  typeahead: sent 70000 and 71000, both read at 72000 (empty
            since 69000), writes 72500..72550 and 72600..72650, first
            outputs 72600 and 72700: key 6 is matched by order;
   and on the program's side an input read at 2000 (before any send: input
   matched to no send) and a timer (no input); on the driver's, a resize
   sent at 60000 (counted, not matched). */
struct joined_case
{
  uint64_t send, first, earliest, latest, wbegin, wend; /* us; 0: none */
};

static const struct joined_case joined_cases[] = {
  { 10000, 10500, 9000, 10100, 10300, 10350 },
  { 20000, 20050, 19000, 20100, 20300, 20320 },
  { 30000, 35000, 29500, 30100, 30200, 30300 },
  { 40000, 40500, 0, 0, 0, 0 },
  { 50000, 0, 49000, 50100, 50300, 50350 },
  { 70000, 72600, 69000, 72000, 72500, 72550 },
  { 71000, 72700, 69000, 72000, 72600, 72650 },
};

static int
joined_program (const char *path, uint64_t base)
{
  if (start (path, 1024, 0) != 0)
    return 1;
  uint64_t us = 1000;
  uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, base + 1000 * us);
  emlat_ix_time (c, EMLAT_T_INPUT_LATEST, base + 2000 * us);
  emlat_ix_time (c, EMLAT_T_WRITE_FIRST_BEGIN, base + 2100 * us);
  emlat_ix_time (c, EMLAT_T_WRITE_FIRST_END, base + 2150 * us);
  emlat_ix_time (c, EMLAT_T_FLUSH_END, base + 2150 * us);
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
  c = emlat_ix_begin (EMLAT_ROOT_TIMER, 0, 0);
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
  for (size_t i = 0; i < sizeof joined_cases / sizeof joined_cases[0]; i++)
    {
      const struct joined_case *k = &joined_cases[i];
      if (!k->latest)
        continue;
      c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, base + k->earliest * us);
      emlat_ix_time (c, EMLAT_T_INPUT_LATEST, base + k->latest * us);
      emlat_ix_time (c, EMLAT_T_WRITE_FIRST_BEGIN, base + k->wbegin * us);
      emlat_ix_time (c, EMLAT_T_WRITE_FIRST_END, base + k->wend * us);
      emlat_ix_time (c, EMLAT_T_FLUSH_END, base + k->wend * us);
      emlat_ix_end (c, EMLAT_STATUS_NORMAL);
    }
  return emlat_stop () != 0;
}

static int
joined_driver (const char *path, uint64_t base)
{
  static const char drv[] = "emlat replay (test)", wl[] = "script";
  struct emlat_meta meta[] = {
    { .key = "replay.driver", .type = EMLAT_META_STR, .s = drv, .s_len = sizeof drv - 1 },
    { .key = "replay.workload", .type = EMLAT_META_STR, .s = wl, .s_len = sizeof wl - 1 },
  };
  struct emlat_options o = { .path = path, .meta = meta, .n_meta = 2 };
  if (emlat_start (&o) != 0)
    return 1;
  uint64_t us = 1000;
  for (size_t i = 0; i < sizeof joined_cases / sizeof joined_cases[0]; i++)
    {
      const struct joined_case *k = &joined_cases[i];
      uint64_t c = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0);
      emlat_ix_time (c, EMLAT_T_EXTERNAL_SEND, base + k->send * us);
      if (k->first)
        emlat_ix_time (c, EMLAT_T_EXTERNAL_FIRST_OUTPUT, base + k->first * us);
      emlat_ix_end (c, EMLAT_STATUS_NORMAL);
    }
  uint64_t r = emlat_ix_begin (EMLAT_ROOT_RESIZE, 0, 0);
  emlat_ix_time (r, EMLAT_T_EXTERNAL_SEND, base + 60000 * us);
  emlat_ix_end (r, EMLAT_STATUS_NORMAL);
  return emlat_stop () != 0;
}

int
main (int argc, char **argv)
{
  if (argc == 4 && strcmp (argv[1], "joined") == 0)
    {
      uint64_t base = emlat_now ();
      return joined_program (argv[2], base) || joined_driver (argv[3], base);
    }
  if (argc == 3 && strcmp (argv[1], "rotated") == 0)
    return rotated (argv[2]);
  if (argc == 3 && strcmp (argv[1], "lossy") == 0)
    return lossy (argv[2]);
  fprintf (stderr, "usage: json_profiles rotated|lossy PATH | joined PROGRAM DRIVER\n");
  return 2;
}

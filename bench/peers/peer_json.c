/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * peer_json.c -- the JSON-lines peer of the peers benchmark: per event,
 * one clock_gettime(CLOCK_MONOTONIC), one snprintf of
 *   {"t":NANOSECONDS,"id":ID,"v":VALUE}\n
 * into a stack buffer and one fwrite into a FILE* (stdio's default
 * buffer, flushed by stdio with write(2) on the producer thread).
 *
 * No consumer side and no loss: the producer does all the work itself and
 * blocks in write(2) whenever the kernel makes it; all of that is in its
 * ns per event.  Measured by peer_harness.h.
 */
#define PEER_NAME "json"
#include "peer_harness.h"

static FILE *json_file;
static char json_path[4200];
static unsigned json_sessions;

static inline uint64_t
rec_clock (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void
json_event (uint32_t id, uint64_t value)
{
  char line[96];
  int n = snprintf (line, sizeof line,
                    "{\"t\":%" PRIu64 ",\"id\":%" PRIu32 ",\"v\":%" PRIu64 "}\n",
                    rec_clock (), id, value);
  fwrite (line, 1, (size_t)n, json_file);
}

static inline void
rec_pair (uint64_t value)
{
  json_event (1, value);
  json_event (2, value);
}

static int
rec_open (const char *dir)
{
  snprintf (json_path, sizeof json_path, "%s/json-%u.jsonl", dir,
            json_sessions++);
  json_file = fopen (json_path, "w");
  if (!json_file)
    {
      fprintf (stderr, "peer_json: %s: %s\n", json_path, strerror (errno));
      return -1;
    }
  return 0;
}

static int
rec_close (struct rec_result *r)
{
  int rc = fclose (json_file) == 0 ? 0 : -1;
  if (rc != 0)
    fprintf (stderr, "peer_json: fclose: %s\n", strerror (errno));
  *r = (struct rec_result){ .bytes = file_bytes (json_path) };
  if (rec_verify)
    {
      r->on_disk = count_lines (json_path);
      r->has_on_disk = 1;
    }
  unlink (json_path);
  return rc;
}

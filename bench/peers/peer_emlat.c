/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * peer_emlat.c -- emlat in the peers benchmark, through the public API
 * with default options (a ring file, the default ring of 131,072 slots per
 * thread, no drain period): a pair of events is one span,
 * emlat_span_begin (EMLAT_SPAN_WINDOW_UPDATE, cause) and
 * emlat_span_end (span, EMLAT_SPAN_OK, 0), two ring records with one
 * profiler-clock read each (emlat_now: CLOCK_MONOTONIC_RAW, vDSO).  The
 * records carry the kind, the span id (the running number, assigned by
 * the library), the cause (one interaction begun at session start) or the
 * status, and the time: the same information as the other peers' id and
 * value.
 *
 * PEERS_EMLAT_RING_SLOTS and PEERS_EMLAT_DRAIN_US, when set, replace the
 * default ring size and drain period (to explore sizes; the table then is
 * not of the defaults, and run.sh says so).
 *
 * Loss: emlat_status's records_dropped (the sum of the session's LOSS
 * records).  Consumer CPU: the writer thread's CPU time, stats
 * writer_cpu_ns.  Bytes: the profile's size (the ring file is removed by
 * emlat_stop).  Read back (rec_verify): emlat_scan of the profile, two
 * events per complete span record.  Measured by peer_harness.h.
 */
#define PEER_NAME "emlat"
#include "peer_harness.h"

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"

static char emlat_path[4200];
static unsigned emlat_sessions;
static uint64_t emlat_cause;

static inline uint64_t
rec_clock (void)
{
  return emlat_now ();
}

static inline void
rec_pair (uint64_t value)
{
  (void)value; /* the span id, assigned by emlat, is the running number */
  uint64_t s = emlat_span_begin (EMLAT_SPAN_WINDOW_UPDATE, emlat_cause);
  emlat_span_end (s, EMLAT_SPAN_OK, 0);
}

static int
rec_open (const char *dir)
{
  snprintf (emlat_path, sizeof emlat_path, "%s/emlat-%u.emlat", dir,
            emlat_sessions++);
  /* Defaults unless asked otherwise (for exploring sizes; run.sh passes
     the environment through and prints what was set). */
  const char *slots = getenv ("PEERS_EMLAT_RING_SLOTS");
  const char *drain = getenv ("PEERS_EMLAT_DRAIN_US");
  struct emlat_options opt = {
    .path = emlat_path,
    .ring_slots = slots ? (uint32_t)strtoul (slots, NULL, 10) : 0,
    .drain_interval_us = drain ? (uint32_t)strtoul (drain, NULL, 10) : 0,
  };
  int rc = emlat_start (&opt);
  if (rc != 0)
    {
      fprintf (stderr, "peer_emlat: emlat_start %s: %s\n", emlat_path,
               strerror (-rc));
      return -1;
    }
  emlat_cause = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0);
  return 0;
}

static int
rec_close (struct rec_result *r)
{
  struct emlat_status st;
  /* Drain first, so that the interaction's end (not an event) is never
     the record a full ring drops: the loss count is then events only. */
  emlat_flush ();
  emlat_ix_end (emlat_cause, EMLAT_STATUS_NORMAL);
  int rc = emlat_stop ();
  emlat_status (&st);
  if (rc != 0)
    fprintf (stderr, "peer_emlat: emlat_stop: %s\n", strerror (-rc));
  *r = (struct rec_result){ .lost = st.records_dropped,
                            .bytes = file_bytes (emlat_path),
                            .consumer_cpu_ns = st.writer_cpu_ns,
                            .has_consumer = 1 };
  uint8_t *buf;
  size_t len;
  if (rec_verify && emlat_read_file (emlat_path, NULL, &buf, &len) == 0)
    {
      /* Span records on disk: a complete span holds both events. */
      struct emlat_scan_params p = { 0 };
      struct emlat_scan_result res;
      if (emlat_scan (buf, len, &p, &res) == 0 && res.stop == EMLAT_STOP_CLEAN)
        {
          r->on_disk = 2 * res.records_by_kind[EMLAT_REC_SPAN_COMPLETE]
                       + res.records_by_kind[EMLAT_REC_SPAN_BEGIN]
                       + res.records_by_kind[EMLAT_REC_SPAN_END];
          r->has_on_disk = 1;
        }
      free (buf);
    }
  unlink (emlat_path);
  return rc != 0 ? -1 : 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_overhead.c -- read the recorder's STATS and clock calibration out
 * of a profile (see emlat_report.h).  Only unsigned entries are used; an
 * entry of another type is treated as not recorded.
 */
#include "emlat/emlat_report.h"

#include <string.h>

static const struct
{
  const char *name;  /* JSON key */
  const char *key;   /* STATS key */
} fields[EMLAT_OVH_COUNT] = {
  [EMLAT_OVH_WRITER_CPU_NS] = { "writer_cpu_ns", "stats.writer_cpu_ns" },
  [EMLAT_OVH_RECORDS_ACCEPTED] = { "records_accepted", "stats.records_accepted" },
  [EMLAT_OVH_RECORDS_WRITTEN] = { "records_written", "stats.records_written" },
  [EMLAT_OVH_RECORDS_DROPPED] = { "records_dropped", "stats.records_dropped" },
  [EMLAT_OVH_BYTES_WRITTEN] = { "bytes_written", "stats.bytes_written" },
  [EMLAT_OVH_CHUNKS_WRITTEN] = { "chunks_written", "stats.chunks_written" },
  [EMLAT_OVH_THREADS] = { "threads", "stats.threads" },
  [EMLAT_OVH_RING_HIGH_WATER] = { "ring_high_water", "stats.ring_high_water" },
  [EMLAT_OVH_RING_SLOTS] = { "ring_slots", "stats.ring_slots" },
  [EMLAT_OVH_CLOCK_READ_NS] = { "clock_read_ns", "stats.clock_read_ns" },
  [EMLAT_OVH_WRITE_ERRORS] = { "write_errors", "stats.write_errors" },
  [EMLAT_OVH_SESSION_NS] = { "session_ns", NULL },
};

const char *
emlat_report_ovh_name (enum emlat_report_ovh_field f)
{
  return (unsigned)f < EMLAT_OVH_COUNT ? fields[f].name : "?";
}

static int
uint_entry (const struct emlat_kv *kv, size_t n, const char *key, uint64_t *out)
{
  const struct emlat_kv *e = emlat_kv_find (kv, n, key);
  if (!e || e->type != 0)
    return 0;
  *out = e->u;
  return 1;
}

void
emlat_report_overhead_of (const struct emlat_profile *p, struct emlat_report_overhead *o)
{
  memset (o, 0, sizeof *o);
  size_t ns, nss;
  const struct emlat_kv *st = emlat_profile_stats (p, &ns);
  const struct emlat_kv *se = emlat_profile_session (p, &nss);
  for (int f = 0; f < EMLAT_OVH_COUNT; f++)
    if (fields[f].key && uint_entry (st, ns, fields[f].key, &o->v[f]))
      o->mask |= 1u << f;
  /* The start-up calibration when no STATS chunk says it. */
  if (!(o->mask >> EMLAT_OVH_CLOCK_READ_NS & 1u)
      && uint_entry (se, nss, "clock.read_cost_ns", &o->v[EMLAT_OVH_CLOCK_READ_NS]))
    o->mask |= 1u << EMLAT_OVH_CLOCK_READ_NS;
  uint64_t fin, when;
  o->final_stats = uint_entry (st, ns, "stats.final", &fin) && fin == 1;
  uint64_t in_driver;
  o->writer_in_driver = uint_entry (st, ns, "stats.writer_in_driver", &in_driver) && in_driver == 1;
  /* How the process ended: a signal number or an exit status in the
     range waitpid reports; anything else is not a reading. */
  uint64_t sig, code;
  if (uint_entry (st, ns, "stats.exit_signal", &sig) && sig >= 1 && sig <= 127)
    {
      o->exit_known = 1;
      o->exit_signal = (int)sig;
    }
  else if (uint_entry (st, ns, "stats.exit_code", &code) && code <= 255)
    {
      o->exit_known = 1;
      o->exit_code = (int)code;
    }
  const struct emlat_file_header *h = emlat_profile_header (p);
  if (h && uint_entry (st, ns, "stats.time", &when) && when >= h->monotonic_start)
    {
      o->v[EMLAT_OVH_SESSION_NS] = when - h->monotonic_start;
      o->mask |= 1u << EMLAT_OVH_SESSION_NS;
    }
  if ((o->mask >> EMLAT_OVH_SESSION_NS & 1u) && (o->mask >> EMLAT_OVH_WRITER_CPU_NS & 1u)
      && o->v[EMLAT_OVH_SESSION_NS] > 0)
    {
      o->has_writer_share = 1;
      o->writer_share = (double)o->v[EMLAT_OVH_WRITER_CPU_NS] / (double)o->v[EMLAT_OVH_SESSION_NS];
    }
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_overhead.h -- the profiler's own cost and completeness, as the
 * recorder wrote it: the last STATS entries (FORMAT.md 8.2), the SESSION
 * clock calibration, and the session's span from the file header's start
 * to the last STATS time.
 *
 * Every field has a presence flag: a statistic the file does not carry is
 * reported as not recorded, never as 0.
 */
#ifndef EMLAT_ANALYSIS_REPORT_OVERHEAD_H
#define EMLAT_ANALYSIS_REPORT_OVERHEAD_H

#include <stdint.h>

#include "emlat/emlat_reader.h"

enum report_ovh_field {
  OVH_WRITER_CPU_NS,
  OVH_RECORDS_ACCEPTED,
  OVH_RECORDS_WRITTEN,
  OVH_RECORDS_DROPPED,
  OVH_BYTES_WRITTEN,
  OVH_CHUNKS_WRITTEN,
  OVH_THREADS,
  OVH_RING_HIGH_WATER,
  OVH_RING_SLOTS,
  OVH_CLOCK_READ_NS,
  OVH_WRITE_ERRORS,
  OVH_SESSION_NS,        /* stats.time - header monotonic start */
  OVH_COUNT
};

struct report_overhead
{
  uint32_t mask;         /* bit f: v[f] present */
  uint64_t v[OVH_COUNT];
  int final_stats;       /* stats.final = 1: the session stopped cleanly */
  int has_writer_share;
  double writer_share;   /* writer CPU / session time (one core = 1.0) */
};

/* The JSON key of field F ("writer_cpu_ns"). */
const char *emlat_report_ovh_name (enum report_ovh_field f);
void emlat_report_overhead_of (const struct emlat_profile *p, struct report_overhead *o);

#endif /* EMLAT_ANALYSIS_REPORT_OVERHEAD_H */

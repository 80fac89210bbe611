/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_waterfall.h -- one interaction laid out on a time axis: its input
 * arrival bounds as an interval, its spans nested by parent, and the split
 * of its wall time (docs/REPORT.md "The waterfall").
 *
 * The split:
 *   wall            wall_ns: t_dispatch_begin to completion (the latest of
 *                   t_root_work_end, t_redisplay_end, t_flush_end, else
 *                   t_interaction_end);
 *   main CPU        thread_cpu_end - thread_cpu_begin;
 *   measured waits  the time covered by wait and event_poll spans on the
 *                   interaction's thread, clipped to the wall interval
 *                   (a wait span inside another is not counted twice);
 *   unknown off-CPU wall - main CPU - measured waits, never negative: when
 *                   the subtraction would go below 0 it is 0 and `excess`
 *                   says by how much CPU + waits exceeded wall;
 *   TTY emission    tty_emit_ns = t_flush_end - t_output_begin, part of the
 *                   wall time (it overlaps the CPU and wait parts).
 * Each part is present only when its boundaries are.
 *
 * When the interaction has no spans, its phases (queue, key decode, pre-
 * command, command, post-command, redisplay wait, redisplay, TTY emission)
 * are drawn from its boundaries instead.
 */
#ifndef EMLAT_ANALYSIS_REPORT_WATERFALL_H
#define EMLAT_ANALYSIS_REPORT_WATERFALL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/report_metrics.h"
#include "emlat/emlat_reader.h"

enum report_wf_type { WF_INPUT = 0, WF_FIRST_INPUT = 1, WF_SPAN = 2, WF_PHASE = 3 };

struct report_wf_row
{
  enum report_wf_type type;
  const char *name;     /* static: span kind name or phase name */
  int depth;
  uint64_t start, end;
  int has_end;          /* incomplete spans have none */
  uint32_t kind;        /* span kind (WF_SPAN) */
  uint32_t status;      /* span status (WF_SPAN) */
  uint64_t id, parent, thread;
};

struct report_waterfall
{
  uint64_t cause;
  uint32_t root_kind, status;
  enum report_pop pop;
  uint64_t thread;
  struct report_times t;
  struct report_metrics m;
  uint64_t t0, t1;                 /* the axis; a row may start before t0
                                      (input arrival only), never after t1 */
  struct report_wf_row *rows;
  size_t n_rows;
  size_t n_spans;
  int spans_error;                 /* negative errno of emlat_profile_ix_spans */
  int has_wall, has_cpu, has_unknown, has_tty_emit;
  uint64_t wall, cpu, waits, unknown, excess, tty_emit;
  size_t n_wait_spans;
  uint32_t counter_mask;           /* the interaction's own counters */
  uint64_t counters[EMLAT_C_COUNTER_COUNT];
  uint32_t span_counter_mask;      /* sums over its spans */
  uint64_t span_counters[EMLAT_C_COUNTER_COUNT];
};

/* Build the waterfall of interaction CAUSE of P.  Returns 0, -ENOENT when P
   has no such interaction, or -ENOMEM.  A failure to fetch the spans is not
   an error: spans_error says so and the phases are drawn instead. */
int emlat_report_waterfall_build (const struct emlat_profile *p, uint64_t cause,
                            struct report_waterfall *w);
void emlat_report_waterfall_free (struct report_waterfall *w);

#endif /* EMLAT_ANALYSIS_REPORT_WATERFALL_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_metrics.c -- derive an interaction's metrics from its present
 * boundaries (definitions in emlat_report.h and docs/REPORT.md).
 *
 * Invariant: a metric bit is set only when every boundary it needs is
 * present; no value is ever read from an absent boundary.
 */
#include "emlat/emlat_report.h"

#include <string.h>

/* Metrics that are a plain difference of two time fields. */
struct span_def
{
  enum emlat_report_metric m;
  enum emlat_time_field from, to;
};

static const struct span_def span_defs[] = {
  { EMLAT_RM_BATCH_READY_WAIT, EMLAT_T_INPUT_READY, EMLAT_T_READ_BEGIN },
  { EMLAT_RM_INPUT_QUEUE, EMLAT_T_QUEUE_INSERT, EMLAT_T_QUEUE_REMOVE },
  { EMLAT_RM_KEY_DECODE, EMLAT_T_QUEUE_REMOVE, EMLAT_T_KEY_DECODE_DONE },
  { EMLAT_RM_PRE_COMMAND, EMLAT_T_PRE_COMMAND_BEGIN, EMLAT_T_PRE_COMMAND_END },
  { EMLAT_RM_COMMAND, EMLAT_T_COMMAND_BEGIN, EMLAT_T_COMMAND_END },
  { EMLAT_RM_POST_COMMAND, EMLAT_T_POST_COMMAND_BEGIN, EMLAT_T_POST_COMMAND_END },
  { EMLAT_RM_REDISPLAY_WAIT, EMLAT_T_ROOT_WORK_END, EMLAT_T_REDISPLAY_BEGIN },
  { EMLAT_RM_REDISPLAY, EMLAT_T_REDISPLAY_BEGIN, EMLAT_T_REDISPLAY_END },
  { EMLAT_RM_TTY_EMIT, EMLAT_T_OUTPUT_BEGIN, EMLAT_T_FLUSH_END },
  { EMLAT_RM_INPUT_TO_COMMAND_MIN, EMLAT_T_INPUT_LATEST, EMLAT_T_COMMAND_END },
  { EMLAT_RM_INPUT_TO_COMMAND_MAX, EMLAT_T_INPUT_EARLIEST, EMLAT_T_COMMAND_END },
  { EMLAT_RM_INPUT_TO_FLUSH_MIN, EMLAT_T_INPUT_LATEST, EMLAT_T_FLUSH_END },
  { EMLAT_RM_INPUT_TO_FLUSH_MAX, EMLAT_T_INPUT_EARLIEST, EMLAT_T_FLUSH_END },
  { EMLAT_RM_PREFIX_DWELL_MAX, EMLAT_T_FIRST_INPUT_EARLIEST, EMLAT_T_INPUT_LATEST },
  { EMLAT_RM_INPUT_UNCERTAINTY, EMLAT_T_INPUT_EARLIEST, EMLAT_T_INPUT_LATEST },
  { EMLAT_RM_EXTERNAL_FIRST_OUTPUT, EMLAT_T_EXTERNAL_SEND, EMLAT_T_EXTERNAL_FIRST_OUTPUT },
  { EMLAT_RM_EXTERNAL_QUIESCENT, EMLAT_T_EXTERNAL_SEND, EMLAT_T_EXTERNAL_QUIESCENT },
};

static const char *const names[EMLAT_RM_COUNT] = {
  [EMLAT_RM_BATCH_READY_WAIT] = "batch_ready_wait_ns",
  [EMLAT_RM_INPUT_QUEUE] = "input_queue_ns",
  [EMLAT_RM_KEY_DECODE] = "key_decode_ns",
  [EMLAT_RM_PRE_COMMAND] = "pre_command_ns",
  [EMLAT_RM_COMMAND] = "command_ns",
  [EMLAT_RM_POST_COMMAND] = "post_command_ns",
  [EMLAT_RM_REDISPLAY_WAIT] = "redisplay_wait_ns",
  [EMLAT_RM_REDISPLAY] = "redisplay_ns",
  [EMLAT_RM_TTY_EMIT] = "tty_emit_ns",
  [EMLAT_RM_INPUT_TO_COMMAND_MIN] = "input_to_command_min_ns",
  [EMLAT_RM_INPUT_TO_COMMAND_MAX] = "input_to_command_max_ns",
  [EMLAT_RM_INPUT_TO_FLUSH_MIN] = "input_to_flush_min_ns",
  [EMLAT_RM_INPUT_TO_FLUSH_MAX] = "input_to_flush_max_ns",
  [EMLAT_RM_MAIN_CPU] = "main_cpu_ns",
  [EMLAT_RM_MAIN_OFF_CPU] = "main_off_cpu_ns",
  [EMLAT_RM_PREFIX_DWELL_MIN] = "prefix_dwell_min_ns",
  [EMLAT_RM_PREFIX_DWELL_MAX] = "prefix_dwell_max_ns",
  [EMLAT_RM_WALL] = "wall_ns",
  [EMLAT_RM_INPUT_UNCERTAINTY] = "input_uncertainty_ns",
  [EMLAT_RM_EXTERNAL_FIRST_OUTPUT] = "external_first_output_ns",
  [EMLAT_RM_EXTERNAL_QUIESCENT] = "external_quiescent_ns",
  [EMLAT_RM_LATENCY_LOWER] = "latency_lower_ns",
  [EMLAT_RM_LATENCY_UPPER] = "latency_upper_ns",
};

/* At most EMLAT_REPORT_LABEL_MAX characters, words a person reads
   without a glossary (docs/REPORT.md "Metrics" gives each with its
   JSON name). */
static const char *const labels[EMLAT_RM_COUNT] = {
  [EMLAT_RM_BATCH_READY_WAIT] = "waiting to be read",
  [EMLAT_RM_INPUT_QUEUE] = "queue",
  [EMLAT_RM_KEY_DECODE] = "key decoding",
  [EMLAT_RM_PRE_COMMAND] = "pre-command hooks",
  [EMLAT_RM_COMMAND] = "command",
  [EMLAT_RM_POST_COMMAND] = "post-command hooks",
  [EMLAT_RM_REDISPLAY_WAIT] = "wait for redisplay",
  [EMLAT_RM_REDISPLAY] = "redisplay",
  [EMLAT_RM_TTY_EMIT] = "terminal output",
  [EMLAT_RM_INPUT_TO_COMMAND_MIN] = "input to command, min",
  [EMLAT_RM_INPUT_TO_COMMAND_MAX] = "input to command, max",
  [EMLAT_RM_INPUT_TO_FLUSH_MIN] = "input to flush, min",
  [EMLAT_RM_INPUT_TO_FLUSH_MAX] = "input to flush, max",
  [EMLAT_RM_MAIN_CPU] = "main thread CPU",
  [EMLAT_RM_MAIN_OFF_CPU] = "main thread off CPU",
  [EMLAT_RM_PREFIX_DWELL_MIN] = "prefix key wait, min",
  [EMLAT_RM_PREFIX_DWELL_MAX] = "prefix key wait, max",
  [EMLAT_RM_WALL] = "wall time",
  [EMLAT_RM_INPUT_UNCERTAINTY] = "idle before arrival",
  [EMLAT_RM_EXTERNAL_FIRST_OUTPUT] = "outside: first output",
  [EMLAT_RM_EXTERNAL_QUIESCENT] = "outside: output done",
  [EMLAT_RM_LATENCY_LOWER] = "latency, lower bound",
  [EMLAT_RM_LATENCY_UPPER] = "latency, upper bound",
};

const char *
emlat_report_metric_name (enum emlat_report_metric m)
{
  return (unsigned)m < EMLAT_RM_COUNT ? names[m] : "?";
}

const char *
emlat_report_metric_label (enum emlat_report_metric m)
{
  return (unsigned)m < EMLAT_RM_COUNT ? labels[m] : "?";
}

const char *
emlat_report_pop_key (enum emlat_report_pop p)
{
  return p == EMLAT_POP_FLUSHED ? "flushed" : p == EMLAT_POP_NO_OUTPUT ? "no_output" : "superseded";
}

const char *
emlat_report_pop_label (enum emlat_report_pop p)
{
  return p == EMLAT_POP_FLUSHED ? "flushed" : p == EMLAT_POP_NO_OUTPUT ? "no output" : "superseded";
}

static int
cpu_end_kind (const struct emlat_profile *p)
{
  return emlat_profile_cpu_end_at_end (p) ? EMLAT_REPORT_CPU_END_AT_END
                                          : EMLAT_REPORT_CPU_END_AT_COMPLETION;
}

void
emlat_report_times_from_profile (const struct emlat_profile *p,
                           const struct emlat_interaction *ix, struct emlat_report_times *t)
{
  t->status = ix->status;
  t->tmask = ix->time_mask & EMLAT_T_FIELD_MASK;
  for (uint32_t m = t->tmask; m; m &= m - 1)
    {
      unsigned f = (unsigned)__builtin_ctz (m);
      if (!emlat_profile_ix_time (p, ix, (enum emlat_time_field)f, &t->t[f], NULL))
        t->tmask &= ~(1u << f);
    }
  t->has_cpu_begin = emlat_profile_ix_value (p, ix, EMLAT_V_THREAD_CPU_BEGIN, &t->cpu_begin);
  t->has_cpu_end = emlat_profile_ix_value (p, ix, EMLAT_V_THREAD_CPU_END, &t->cpu_end)
                       ? cpu_end_kind (p)
                       : EMLAT_REPORT_CPU_END_ABSENT;
}

void
emlat_report_times_from_record_of (const struct emlat_profile *p, const struct emlat_rd_ix *r,
                                   struct emlat_report_times *t)
{
  emlat_report_times_from_record (r, t);
  if (t->has_cpu_end && p)
    t->has_cpu_end = cpu_end_kind (p);
}

void
emlat_report_times_from_record (const struct emlat_rd_ix *r, struct emlat_report_times *t)
{
  t->status = r->status;
  t->tmask = r->time_mask & EMLAT_T_FIELD_MASK;
  for (uint32_t m = t->tmask; m; m &= m - 1)
    {
      unsigned f = (unsigned)__builtin_ctz (m);
      t->t[f] = r->t[f];
    }
  t->has_cpu_begin = (r->value_mask >> EMLAT_V_THREAD_CPU_BEGIN) & 1u;
  t->has_cpu_end = (r->value_mask >> EMLAT_V_THREAD_CPU_END) & 1u
                       ? EMLAT_REPORT_CPU_END_AT_COMPLETION
                       : EMLAT_REPORT_CPU_END_ABSENT;
  t->cpu_begin = t->has_cpu_begin ? r->v[EMLAT_V_THREAD_CPU_BEGIN] : 0;
  t->cpu_end = t->has_cpu_end ? r->v[EMLAT_V_THREAD_CPU_END] : 0;
}

static int
has (const struct emlat_report_times *t, enum emlat_time_field f)
{
  return (t->tmask >> f) & 1u;
}

int
emlat_report_completion (const struct emlat_report_times *t, uint64_t *out)
{
  static const enum emlat_time_field ends[] = {
    EMLAT_T_ROOT_WORK_END, EMLAT_T_REDISPLAY_END, EMLAT_T_FLUSH_END,
  };
  int found = 0;
  uint64_t best = 0;
  for (unsigned i = 0; i < sizeof ends / sizeof ends[0]; i++)
    if (has (t, ends[i]) && (!found || t->t[ends[i]] > best))
      {
        best = t->t[ends[i]];
        found = 1;
      }
  if (!found && has (t, EMLAT_T_INTERACTION_END))
    {
      best = t->t[EMLAT_T_INTERACTION_END];
      found = 1;
    }
  if (found)
    *out = best;
  return found;
}

static void
set (struct emlat_report_metrics *m, enum emlat_report_metric k, uint64_t v)
{
  m->mask |= 1u << k;
  m->v[k] = v;
}

int
emlat_report_cpu_window (const struct emlat_report_times *t, uint64_t *from, uint64_t *to)
{
  uint64_t end = 0;
  if (!t->has_cpu_begin || !has (t, EMLAT_T_DISPATCH_BEGIN))
    return 0;
  if (t->has_cpu_end == EMLAT_REPORT_CPU_END_AT_COMPLETION)
    {
      if (!emlat_report_completion (t, &end))
        return 0;
    }
  else if (t->has_cpu_end == EMLAT_REPORT_CPU_END_AT_END && has (t, EMLAT_T_INTERACTION_END))
    end = t->t[EMLAT_T_INTERACTION_END];
  else
    return 0;
  if (end < t->t[EMLAT_T_DISPATCH_BEGIN])
    return 0;
  *from = t->t[EMLAT_T_DISPATCH_BEGIN];
  *to = end;
  return 1;
}

/* TO - FROM when both are present and in order; else inverted or absent. */
static void
diff (struct emlat_report_metrics *m, enum emlat_report_metric k, int have, uint64_t from, uint64_t to)
{
  if (!have)
    return;
  if (to < from)
    m->inverted |= 1u << k;
  else
    set (m, k, to - from);
}

void
emlat_report_metrics_compute (const struct emlat_report_times *t, struct emlat_report_metrics *m)
{
  memset (m, 0, sizeof *m);
  for (unsigned i = 0; i < sizeof span_defs / sizeof span_defs[0]; i++)
    {
      const struct span_def *d = &span_defs[i];
      diff (m, d->m, has (t, d->from) && has (t, d->to), t->t[d->from], t->t[d->to]);
    }
  diff (m, EMLAT_RM_MAIN_CPU, t->has_cpu_begin && t->has_cpu_end, t->cpu_begin, t->cpu_end);
  uint64_t done = 0;
  int have_done = emlat_report_completion (t, &done);
  diff (m, EMLAT_RM_WALL, has (t, EMLAT_T_DISPATCH_BEGIN) && have_done, t->t[EMLAT_T_DISPATCH_BEGIN],
        done);
  /* Over the interval the CPU readings lie in; clamped at 0 by
     definition (docs/REPORT.md, "Metrics"). */
  uint64_t w0, w1;
  if ((m->mask >> EMLAT_RM_MAIN_CPU & 1u) && emlat_report_cpu_window (t, &w0, &w1))
    {
      uint64_t window = w1 - w0, cpu = m->v[EMLAT_RM_MAIN_CPU];
      if (cpu > window)
        m->clamped |= 1u << EMLAT_RM_MAIN_OFF_CPU;
      set (m, EMLAT_RM_MAIN_OFF_CPU, cpu > window ? 0 : window - cpu);
    }
  /* The headline's bounds (emlat_report.h, "metrics"). */
  static const enum emlat_time_field lower_to[] = {
    EMLAT_T_WRITE_FIRST_BEGIN, EMLAT_T_OUTPUT_BEGIN, EMLAT_T_FLUSH_BEGIN,
  };
  for (unsigned i = 0; i < sizeof lower_to / sizeof lower_to[0]; i++)
    if (has (t, lower_to[i]))
      {
        diff (m, EMLAT_RM_LATENCY_LOWER, has (t, EMLAT_T_INPUT_LATEST), t->t[EMLAT_T_INPUT_LATEST],
              t->t[lower_to[i]]);
        break;
      }
  enum emlat_time_field upper_to
      = has (t, EMLAT_T_WRITE_FIRST_END) ? EMLAT_T_WRITE_FIRST_END : EMLAT_T_FLUSH_END;
  diff (m, EMLAT_RM_LATENCY_UPPER, has (t, EMLAT_T_INPUT_EARLIEST) && has (t, upper_to),
        t->t[EMLAT_T_INPUT_EARLIEST], t->t[upper_to]);
  if (has (t, EMLAT_T_INPUT_EARLIEST) && has (t, EMLAT_T_FIRST_INPUT_LATEST))
    {
      uint64_t a = t->t[EMLAT_T_FIRST_INPUT_LATEST], b = t->t[EMLAT_T_INPUT_EARLIEST];
      if (b < a)
        m->clamped |= 1u << EMLAT_RM_PREFIX_DWELL_MIN;
      set (m, EMLAT_RM_PREFIX_DWELL_MIN, b < a ? 0 : b - a);
    }
}

enum emlat_report_pop
emlat_report_population (const struct emlat_report_times *t)
{
  if (t->status == EMLAT_STATUS_SUPERSEDED)
    return EMLAT_POP_SUPERSEDED;
  if (has (t, EMLAT_T_FLUSH_END) || has (t, EMLAT_T_EXTERNAL_FIRST_OUTPUT))
    return EMLAT_POP_FLUSHED;
  return EMLAT_POP_NO_OUTPUT;
}

const enum emlat_report_metric emlat_report_phases[EMLAT_REPORT_PHASES] = {
  EMLAT_RM_BATCH_READY_WAIT, EMLAT_RM_INPUT_QUEUE, EMLAT_RM_KEY_DECODE,
  EMLAT_RM_PRE_COMMAND, EMLAT_RM_COMMAND, EMLAT_RM_POST_COMMAND,
  EMLAT_RM_REDISPLAY_WAIT, EMLAT_RM_REDISPLAY, EMLAT_RM_TTY_EMIT,
};

const uint64_t emlat_report_thresholds_ns[EMLAT_REPORT_THRESHOLDS] = {
  16000000u, 33000000u, 100000000u,
};

int
emlat_report_dominant_phase (const struct emlat_report_metrics *m)
{
  int best = -1;
  for (int i = 0; i < EMLAT_REPORT_PHASES; i++)
    {
      enum emlat_report_metric k = emlat_report_phases[i];
      if ((m->mask >> k & 1u) && (best < 0 || m->v[k] > m->v[best]))
        best = (int)k;
    }
  return best;
}

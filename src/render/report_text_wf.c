/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_text_wf.c -- the tail waterfall as text (see report_text_wf.h).
 *
 * Layout (74 columns): a 20-column label indented two spaces per nesting
 * level, the 40-column axis between bars, the duration.  A span covers the
 * columns from floor(start) to ceil(end) of the axis and at least one; the
 * input arrival interval is drawn with a lighter pattern and a '<' when it
 * begins before the axis (report_waterfall.c explains why); an incomplete
 * span (no end) is one '?' at its start and "open" as its duration.
 */
#include "render/report_text_wf.h"
#include "render/report_app_render.h"

#include <inttypes.h>
#include <string.h>

#include "render/report_fmt.h"

#define AXIS 40
#define LABEL 20

static void
axis_cols (const struct emlat_report_waterfall *w, uint64_t a, uint64_t b, unsigned *c0, unsigned *c1)
{
  uint64_t span = w->t1 > w->t0 ? w->t1 - w->t0 : 1;
  long double s = (long double)AXIS / (long double)span;
  unsigned x0 = a < w->t0 ? 0 : (unsigned)((long double)(a - w->t0) * s);
  long double e = b < w->t0 ? 0 : (long double)(b - w->t0) * s;
  unsigned x1 = (unsigned)e;
  if ((long double)x1 < e)
    x1++;
  if (x0 >= AXIS)
    x0 = AXIS - 1;
  if (x1 > AXIS)
    x1 = AXIS;
  if (x1 <= x0)
    x1 = x0 + 1;
  *c0 = x0;
  *c1 = x1;
}

static void
row (const struct report_ctx *c, const struct emlat_report_waterfall *w, const struct emlat_report_wf_row *r,
     FILE *f)
{
  char label[64], d[REPORT_DUR_LEN];
  int ind = r->depth * 2;
  if (ind > 10)
    ind = 10;
  if (r->type == EMLAT_WF_SPAN && r->thread != w->thread)
    snprintf (label, sizeof label, "%*s%s@%" PRIu64, ind, "", r->name, r->thread);
  else
    snprintf (label, sizeof label, "%*s%s", ind, "", r->name);
  label[LABEL] = 0;
  const char *fill = c->unicode ? "\u2588" : "=";
  if (r->type == EMLAT_WF_INPUT || r->type == EMLAT_WF_FIRST_INPUT)
    fill = c->unicode ? "\u2591" : "~";
  else if (r->type == EMLAT_WF_PHASE)
    fill = c->unicode ? "\u2593" : "-";
  unsigned c0, c1;
  axis_cols (w, r->start, r->has_end ? r->end : r->start, &c0, &c1);
  fprintf (f, "  %-*s %s", LABEL, label, c->unicode ? "\u2502" : "|");
  for (unsigned x = 0; x < AXIS; x++)
    {
      if (x == 0 && r->start < w->t0)
        fputc ('<', f); /* begins before the axis */
      else if (x >= c0 && x < c1)
        fputs (r->has_end ? fill : "?", f);
      else
        fputc (' ', f);
    }
  fprintf (f, "%s %7s", c->unicode ? "\u2502" : "|",
           r->has_end ? report_fmt_dur (r->end - r->start, d) : "open");
  if (r->type == EMLAT_WF_SPAN && r->status != EMLAT_SPAN_OK && r->status != EMLAT_SPAN_INCOMPLETE)
    fprintf (f, " %s", emlat_span_status_name (r->status));
  fputc ('\n', f);
}

static void
split_line (const struct report_ctx *c, FILE *f, const char *what, int has, uint64_t v,
            uint64_t full, const char *note)
{
  char d[REPORT_DUR_LEN], bar[3 * 20 + 1];
  if (!has)
    {
      fprintf (f, "    %-18s %7s  %s\n", what, "-", note);
      return;
    }
  report_bar (v, full, 20, c->unicode, bar);
  fprintf (f, "    %-18s %7s  %s%s%s\n", what, report_fmt_dur (v, d), bar, note[0] ? " " : "",
           note);
}

static void
counters (const struct emlat_report_waterfall *w, FILE *f)
{
  fprintf (f, "  Redisplay work and terminal output (counters)\n");
  int any = 0;
  size_t col = 0;
  for (unsigned k = EMLAT_C_REDISPLAY_ATTEMPTS; k <= EMLAT_C_OUTPUT_EPOCHS; k++)
    {
      int own = w->counter_mask >> k & 1u, spans = w->span_counter_mask >> k & 1u;
      if (!own && !spans)
        continue;
      char item[96];
      if (own && spans)
        snprintf (item, sizeof item, "%s %" PRIu64 " (spans %" PRIu64 ")",
                  emlat_counter_name (k), w->counters[k], w->span_counters[k]);
      else if (own)
        snprintf (item, sizeof item, "%s %" PRIu64, emlat_counter_name (k), w->counters[k]);
      else
        snprintf (item, sizeof item, "%s %" PRIu64 " (sum of spans)", emlat_counter_name (k),
                  w->span_counters[k]);
      size_t len = strlen (item);
      if (col && col + len + 2 > 76)
        {
          fputc ('\n', f);
          col = 0;
        }
      fprintf (f, "%s%s", col ? ", " : "    ", item);
      col += len + (col ? 2 : 4);
      any = 1;
    }
  if (any)
    fputc ('\n', f);
  else
    fprintf (f, "    none recorded for this interaction\n");
}

void
report_text_waterfall (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_waterfall *w = c->w;
  const struct emlat_report_model *m = c->m;
  char a[REPORT_DUR_LEN], b[REPORT_DUR_LEN];
  if (!w)
    {
      fprintf (f, "\nTail interaction: none (no interaction has latency_lower_ns,\n"
                  "input_to_flush_max_ns, external_first_output_ns, command_ns or wall_ns)\n");
      return;
    }
  unsigned kind = w->root_kind <= EMLAT_ROOT_KIND_MAX ? w->root_kind : 0;
  char label[128];
  fprintf (f, "\n%s interaction: cause %" PRIu64 " (%s, %s, status %s)\n",
           strcmp (c->w_why, "tail") == 0 ? "Tail" : "Requested", w->cause,
           report_ix_label (c, w->cause, kind, label, sizeof label), emlat_report_pop_label (w->pop), emlat_status_name (w->status));
  if (strcmp (c->w_why, "tail") == 0)
    fprintf (f, "  chosen as the p99 of %s: rank %" PRIu64 " of %" PRIu64 ", %s\n",
             emlat_report_metric_name (m->tail.metric), m->tail.rank, m->tail.n,
             report_fmt_dur (m->tail.value, a));
  const struct emlat_report_metrics *mt = &w->m;
  if ((mt->mask >> EMLAT_RM_LATENCY_LOWER & 1u) || (mt->mask >> EMLAT_RM_LATENCY_UPPER & 1u))
    fprintf (f, "  latency: lower bound %s, upper bound %s\n",
             mt->mask >> EMLAT_RM_LATENCY_LOWER & 1u ? report_fmt_dur (mt->v[EMLAT_RM_LATENCY_LOWER], a) : "-",
             mt->mask >> EMLAT_RM_LATENCY_UPPER & 1u ? report_fmt_dur (mt->v[EMLAT_RM_LATENCY_UPPER], b) : "-");
  if ((mt->mask >> EMLAT_RM_INPUT_TO_FLUSH_MIN & 1u) && (mt->mask >> EMLAT_RM_INPUT_TO_FLUSH_MAX & 1u))
    fprintf (f, "  input to flush: %s .. %s\n", report_fmt_dur (mt->v[EMLAT_RM_INPUT_TO_FLUSH_MIN], a),
             report_fmt_dur (mt->v[EMLAT_RM_INPUT_TO_FLUSH_MAX], b));
  if ((mt->mask >> EMLAT_RM_INPUT_TO_COMMAND_MIN & 1u) && (mt->mask >> EMLAT_RM_INPUT_TO_COMMAND_MAX & 1u))
    fprintf (f, "  input to command end: %s .. %s\n",
             report_fmt_dur (mt->v[EMLAT_RM_INPUT_TO_COMMAND_MIN], a),
             report_fmt_dur (mt->v[EMLAT_RM_INPUT_TO_COMMAND_MAX], b));
  if (mt->mask >> EMLAT_RM_INPUT_UNCERTAINTY & 1u)
    fprintf (f, "  idle before arrival (input arrival uncertainty): %s\n", report_fmt_dur (mt->v[EMLAT_RM_INPUT_UNCERTAINTY], a));
  else
    fprintf (f, "  input arrival: bounds not recorded\n");
  if (w->spans_error)
    fprintf (f, "  spans could not be read (%s); phases from boundaries instead\n",
             strerror (-w->spans_error));
  if (w->n_rows)
    {
      fprintf (f, "  time axis: %s, one column = %s; thread %" PRIu64 "\n",
               report_fmt_dur (w->t1 - w->t0, a),
               report_fmt_dur ((w->t1 - w->t0 + AXIS - 1) / AXIS, b), w->thread);
      for (size_t i = 0; i < w->n_rows; i++)
        row (c, w, &w->rows[i], f);
      if (!w->n_spans)
        fprintf (f, "  (no spans recorded: phases drawn from the interaction's boundaries)\n");
    }
  else
    fprintf (f, "  no spans and no phase boundaries to draw\n");

  fprintf (f, "  Split of the wall time (dispatch to completion)\n");
  uint64_t full = w->has_wall ? w->wall : 1;
  split_line (c, f, "wall time", w->has_wall, w->wall, full,
              w->has_wall ? "" : "(dispatch begin or completion missing)");
  split_line (c, f, "main-thread CPU", w->has_cpu, w->cpu, full,
              w->has_cpu ? "" : "(no thread CPU readings)");
  uint64_t c0 = 0, c1 = 0;
  if (report_cpu_window_row (w, &c0, &c1))
    split_line (c, f, "dispatch to end", 1, c1 - c0, full,
                "(the CPU readings' interval: waits and off-CPU are of it)");
  char note[64];
  snprintf (note, sizeof note, "(%zu wait/event_poll span%s)", w->n_wait_spans,
            w->n_wait_spans == 1 ? "" : "s");
  split_line (c, f, "measured waits", 1, w->waits, full, note);
  if (w->has_unknown && w->excess)
    {
      snprintf (note, sizeof note, "(clamped: CPU + waits exceed their interval by %s)",
                report_fmt_dur (w->excess, a));
      split_line (c, f, "unknown off-CPU", 1, 0, full, note);
    }
  else
    split_line (c, f, "unknown off-CPU", w->has_unknown, w->unknown, full,
                w->has_unknown ? "" : "(needs wall and CPU)");
  split_line (c, f, "TTY emission", w->has_tty_emit, w->tty_emit, full,
              w->has_tty_emit ? "(part of wall)" : "(no output/flush boundaries)");
  counters (w, f);
}

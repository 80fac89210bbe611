/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_text.c -- the text report: readable at 80 columns, Unicode
 * sparklines and bars on a terminal, plain ASCII otherwise (ctx->unicode).
 *
 * Sections, in order: what was read; the first screen (report_headline.c:
 * per root kind the headline's figures, the five slowest); the outside
 * view joined, when a replay driver's profile was given (report_joined.c);
 * latency per
 * root kind and population (a table with a metric per row, headline
 * first, and a log-scale sparkline of the leading metric); the slowest
 * interactions; the tail waterfall
 * (report_text_wf.c); profiler overhead; every LOSS interval (the first
 * REPORT_TEXT_MAX_LOSSES, then a count; --json has all); unavailable
 * boundaries per population.
 *
 * Invariant: a value that is absent is printed as "-" or said in words,
 * never as 0; every line is at most 80 columns (durations are at most 7
 * characters, labels are truncated).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "render/report_fmt.h"
#include "render/report_app_render.h"
#include "render/report_res_render.h"
#include "render/report_render.h"
#include "render/report_text_wf.h"
#include "render/report_headline.h"

#define COLS 6
#define SPARK_BUCKETS 40

/* The rows of a group's table, the headline first (docs/REPORT.md "The
   first screen"); --json has every metric. */
static const enum emlat_report_metric row_order[] = {
  EMLAT_RM_LATENCY_LOWER, EMLAT_RM_LATENCY_UPPER, EMLAT_RM_INPUT_UNCERTAINTY,
  EMLAT_RM_EXTERNAL_FIRST_OUTPUT, EMLAT_RM_EXTERNAL_QUIESCENT, EMLAT_RM_INPUT_TO_COMMAND_MAX,
  EMLAT_RM_BATCH_READY_WAIT,
  EMLAT_RM_INPUT_QUEUE, EMLAT_RM_KEY_DECODE, EMLAT_RM_PRE_COMMAND, EMLAT_RM_COMMAND,
  EMLAT_RM_POST_COMMAND, EMLAT_RM_REDISPLAY_WAIT, EMLAT_RM_REDISPLAY, EMLAT_RM_TTY_EMIT,
  EMLAT_RM_WALL, EMLAT_RM_MAIN_CPU, EMLAT_RM_MAIN_OFF_CPU,
};

static void
header (const struct report_ctx *c, FILE *f)
{
  const struct emlat_profile *p = c->p;
  const struct emlat_report_model *m = c->m;
  size_t nf;
  const struct emlat_file_summary *fs = emlat_profile_files (p, &nf);
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  const struct emlat_file_header *h = emlat_profile_header (p);
  char uuid[37] = "unknown", buf[128], buf2[128], d[REPORT_DUR_LEN];
  if (h)
    emlat_uuid_format (h->uuid, uuid);
  fprintf (f, "emlat report: session %s, %zu file%s\n", uuid, nf, nf == 1 ? "" : "s");
  for (size_t i = 0; i < nf; i++)
    fprintf (f, "  %s%s\n", fs[i].path, fs[i].ignored ? " (ignored: not this session)" : "");
  const char *prog = report_session_str (p, "program.name", buf, sizeof buf);
  const char *ver = report_session_str (p, "program.version", buf2, sizeof buf2);
  if (prog)
    fprintf (f, "program: %s%s%s\n", prog, ver ? " " : "", ver ? ver : "");
  if (c->ovh.mask >> EMLAT_OVH_SESSION_NS & 1u)
    {
      char ended[REPORT_ENDED_LEN];
      fprintf (f, "length: %s (session start to the last STATS entry)%s%s\n",
               report_fmt_dur (c->ovh.v[EMLAT_OVH_SESSION_NS], d),
               c->ovh.final_stats ? ", stopped cleanly" : ", not stopped cleanly",
               report_fmt_ended (c->ovh.exit_known, c->ovh.exit_signal, c->ovh.exit_code,
                                 ended));
    }
  fprintf (f, "interactions: %" PRIu64 " (%" PRIu64 " flushed, %" PRIu64 " no output, %" PRIu64
              " superseded)\n",
           m->n_ix, m->n_pop[EMLAT_POP_FLUSHED], m->n_pop[EMLAT_POP_NO_OUTPUT], m->n_pop[EMLAT_POP_SUPERSEDED]);
  fprintf (f, "  status:");
  const char *sep = " ";
  for (unsigned s = 1; s <= EMLAT_STATUS_MAX; s++)
    if (m->n_status[s])
      {
        fprintf (f, "%s%" PRIu64 " %s", sep, m->n_status[s], emlat_status_name (s));
        sep = ", ";
      }
  if (m->n_status[0])
    fprintf (f, "%s%" PRIu64 " unknown", sep, m->n_status[0]);
  fprintf (f, "\n  spans: %" PRIu64 " (%" PRIu64 " incomplete); input batches: %" PRIu64 "\n",
           t->spans_complete, t->spans_incomplete, t->input_batches);
  if (c->damaged)
    fprintf (f, "DAMAGED: reading lost data (messages on stderr); this report covers what "
                "was\nreadable.\n");
  fprintf (f, "Percentiles are nearest-rank; p99.9 is shown when n >= %u.\n",
           EMLAT_REPORT_P999_MIN_N);
}

static void
group_table (const struct report_ctx *c, const struct emlat_report_group *g, FILE *f)
{
  int any999 = 0, nr = 0;
  for (unsigned i = 0; i < sizeof row_order / sizeof row_order[0]; i++)
    if (g->d[row_order[i]].n)
      {
        nr++;
        any999 |= g->d[row_order[i]].has_p999;
      }
  char label[128];
  fprintf (f, "\n%s, %s: %" PRIu64 " interaction%s\n", report_group_label (c, g, label, sizeof label),
           emlat_report_pop_label (g->pop), g->n, g->n == 1 ? "" : "s");
  if (nr == 0)
    {
      fprintf (f, "  no latency metric has its boundaries in this population\n");
      return;
    }
  /* The last column is the mean, or p99.9 when some row has one. */
  fprintf (f, "  %-22s %5s %7s %7s %7s %7s %7s %7s\n", "", "n", "min", "median", "p90", "p99",
           "max", any999 ? "p99.9" : "mean");
  char a[REPORT_DUR_LEN], b[REPORT_DUR_LEN], d3[REPORT_DUR_LEN], e[REPORT_DUR_LEN],
    h[REPORT_DUR_LEN], k[REPORT_DUR_LEN];
  for (unsigned i = 0; i < sizeof row_order / sizeof row_order[0]; i++)
    {
      const struct emlat_report_dist *d = &g->d[row_order[i]];
      if (!d->n)
        continue;
      const char *last = any999 ? (d->has_p999 ? report_fmt_dur (d->p999, k) : "-")
                                : report_fmt_dur ((uint64_t)(d->mean + 0.5), k);
      fprintf (f, "  %-22s %5" PRIu64 " %7s %7s %7s %7s %7s %7s\n",
               emlat_report_metric_label (row_order[i]), d->n, report_fmt_dur (d->min, a),
               report_fmt_dur (d->p50, b), report_fmt_dur (d->p90, d3), report_fmt_dur (d->p99, e),
               report_fmt_dur (d->max, h), last);
    }

  int lead = emlat_report_group_primary (g);
  if (lead >= 0)
    {
      const struct emlat_report_series *s = &g->s[lead];
      uint64_t counts[SPARK_BUCKETS];
      double edges[SPARK_BUCKETS + 1];
      char spark[4 * SPARK_BUCKETS + 1];
      report_log_hist (s->v, s->n, SPARK_BUCKETS, counts, edges);
      report_sparkline (counts, SPARK_BUCKETS, c->unicode, spark);
      fprintf (f, "  histogram of %s (log time scale):\n  %7s %s%s%s %s\n",
               emlat_report_metric_label ((enum emlat_report_metric)lead), report_fmt_dur (s->v[0], a),
               c->unicode ? "\u2502" : "|", spark, c->unicode ? "\u2502" : "|",
               report_fmt_dur (s->v[s->n - 1], b));
    }
}

static void
slowest (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_model *m = c->m;
  if (!m->tail.has)
    return;
  fprintf (f, "\nSlowest interactions by %s (%s)\n", emlat_report_metric_label (m->tail.metric),
           emlat_report_metric_name (m->tail.metric));
  int names = c->names && c->names->has;
  fprintf (f, "  %12s  %-20s %-11s %-10s %9s%s\n", "cause", "root kind", "population", "status",
           "value", names ? "  name" : "");
  for (size_t i = 0; i < m->tail.n_slow && i < 10; i++)
    {
      const struct emlat_interaction *ix = emlat_profile_find_interaction (c->p, m->tail.slow[i].cause);
      struct emlat_report_times t;
      char d[REPORT_DUR_LEN];
      if (!ix)
        continue;
      emlat_report_times_from_profile (c->p, ix, &t);
      char name[REPORT_NAME_LEN];
      const char *nm = names ? report_ix_name (c, ix->cause, name, 41) : NULL;
      char label[128];
      fprintf (f, "  %12" PRIu64 "  %-20s %-11s %-10s %9s%s%s\n", ix->cause,
               report_ix_label (c, ix->cause, ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0,
                                label, sizeof label),
               emlat_report_pop_label (emlat_report_population (&t)), emlat_status_name (ix->status),
               report_fmt_dur (m->tail.slow[i].value, d), names ? "  " : "",
               names ? (nm ? nm : "-") : "");
    }
}

static void
overhead (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_overhead *o = &c->ovh;
  char d[REPORT_DUR_LEN], e[REPORT_DUR_LEN];
#define HAS(x) (o->mask >> (x) & 1u)
  fprintf (f, "\nProfiler overhead (last STATS entry)\n");
  if (!o->mask)
    {
      fprintf (f, "  not recorded: the profile has no STATS chunk\n");
      return;
    }
  if (HAS (EMLAT_OVH_WRITER_CPU_NS))
    {
      fprintf (f, "  writer thread CPU: %s", report_fmt_dur (o->v[EMLAT_OVH_WRITER_CPU_NS], d));
      if (o->has_writer_share)
        fprintf (f, " over %s of session (%.3f%% of one core)",
                 report_fmt_dur (o->v[EMLAT_OVH_SESSION_NS], e), 100.0 * o->writer_share);
      if (o->writer_in_driver)
        fprintf (f, ", in the driver (not the program's CPU)");
      fputc ('\n', f);
    }
  else
    fprintf (f, "  writer thread CPU: not recorded\n");
  fprintf (f, "  records:");
  static const struct
  {
    enum emlat_report_ovh_field f;
    const char *what;
  } rec[] = { { EMLAT_OVH_RECORDS_ACCEPTED, "accepted" },
              { EMLAT_OVH_RECORDS_WRITTEN, "written" },
              { EMLAT_OVH_RECORDS_DROPPED, "dropped" } };
  for (unsigned i = 0; i < 3; i++)
    if (HAS (rec[i].f))
      fprintf (f, " %" PRIu64 " %s%s", o->v[rec[i].f], rec[i].what, i < 2 ? "," : "");
    else
      fprintf (f, " %s not recorded%s", rec[i].what, i < 2 ? "," : "");
  fputc ('\n', f);
  if (HAS (EMLAT_OVH_BYTES_WRITTEN) && HAS (EMLAT_OVH_CHUNKS_WRITTEN))
    fprintf (f, "  written: %" PRIu64 " bytes in %" PRIu64 " chunks\n", o->v[EMLAT_OVH_BYTES_WRITTEN],
             o->v[EMLAT_OVH_CHUNKS_WRITTEN]);
  if (HAS (EMLAT_OVH_RING_HIGH_WATER))
    {
      fprintf (f, "  ring high-water: %" PRIu64, o->v[EMLAT_OVH_RING_HIGH_WATER]);
      if (HAS (EMLAT_OVH_RING_SLOTS))
        fprintf (f, " of %" PRIu64 " slots", o->v[EMLAT_OVH_RING_SLOTS]);
      if (HAS (EMLAT_OVH_THREADS))
        fprintf (f, " (%" PRIu64 " thread ring%s)", o->v[EMLAT_OVH_THREADS],
                 o->v[EMLAT_OVH_THREADS] == 1 ? "" : "s");
      fputc ('\n', f);
    }
  else
    fprintf (f, "  ring high-water: not recorded\n");
  if (HAS (EMLAT_OVH_CLOCK_READ_NS))
    fprintf (f, "  clock read: %" PRIu64 " ns per read\n", o->v[EMLAT_OVH_CLOCK_READ_NS]);
  else
    fprintf (f, "  clock read: not recorded\n");
  if (HAS (EMLAT_OVH_WRITE_ERRORS) && o->v[EMLAT_OVH_WRITE_ERRORS])
    fprintf (f, "  write errors: %" PRIu64 "\n", o->v[EMLAT_OVH_WRITE_ERRORS]);
#undef HAS
}

static void
losses (const struct report_ctx *c, FILE *f)
{
  size_t n;
  const struct emlat_loss_entry *l = emlat_profile_losses (c->p, &n);
  const struct emlat_profile_totals *t = emlat_profile_totals (c->p);
  const struct emlat_file_header *h = emlat_profile_header (c->p);
  uint64_t base = h ? h->monotonic_start : 0;
  fprintf (f, "\nLoss\n");
  if (t->loss_records == 0)
    {
      fprintf (f, "  no LOSS records: the recorder lost nothing it knew of\n");
      return;
    }
  fprintf (f, "  %" PRIu64 " LOSS record%s: %" PRIu64 " records (%" PRIu64 " bytes) lost\n",
           t->loss_records, t->loss_records == 1 ? "" : "s", t->lost_records, t->lost_bytes);
  fprintf (f, "  %6s  %-14s %10s %10s %12s %12s\n", "stream", "reason", "from", "to", "records",
           "bytes");
  for (size_t i = 0; i < n && i < REPORT_TEXT_MAX_LOSSES; i++)
    {
      const struct emlat_rd_loss *x = &l[i].loss;
      char a[REPORT_DUR_LEN], b[REPORT_DUR_LEN];
      if (x->first >= base && x->last >= base)
        {
          report_fmt_dur (x->first - base, a);
          report_fmt_dur (x->last - base, b);
        }
      else
        {
          snprintf (a, sizeof a, "?");
          snprintf (b, sizeof b, "?");
        }
      fprintf (f, "  %6" PRIu64 "  %-14s %10s %10s %12" PRIu64 " %12" PRIu64 "\n", x->stream,
               emlat_loss_reason_name (x->reason), a, b, x->records, x->bytes);
    }
  if (n > REPORT_TEXT_MAX_LOSSES)
    fprintf (f, "  ... %zu more LOSS records (every one is in --json)\n",
             n - REPORT_TEXT_MAX_LOSSES);
  if (t->loss_records > n)
    fprintf (f, "  (%" PRIu64 " LOSS records were not kept: reader limit)\n",
             t->loss_records - n);
  fprintf (f, "  times are since the session start\n");
}

static void
unavailable (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_model *m = c->m;
  fprintf (f, "\nUnavailable boundaries (interactions without the field)\n");
  if (m->n_ix == 0)
    {
      fprintf (f, "  no interactions\n");
      return;
    }
  fprintf (f, "  %-26s %10s %10s %10s\n", "field", "flushed", "no output", "superseded");
  fprintf (f, "  %-26s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n", "(interactions)",
           m->n_pop[0], m->n_pop[1], m->n_pop[2]);
  char never[1024];
  size_t nl = 0;
  never[0] = 0;
  for (unsigned fld = 0; fld < EMLAT_REPORT_BOUNDARIES; fld++)
    {
      uint64_t miss[EMLAT_POP_COUNT];
      uint64_t total = emlat_report_boundary_missing (m, fld, miss);
      const char *name = emlat_report_boundary_name (fld);
      if (total == 0)
        continue;
      if (total == m->n_ix)
        {
          int w = snprintf (never + nl, sizeof never - nl, "%s%s", nl ? ", " : "", name);
          if (w > 0 && (size_t)w < sizeof never - nl)
            nl += (size_t)w;
          continue;
        }
      fprintf (f, "  %-26s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n", name, miss[0], miss[1],
               miss[2]);
    }
  if (nl)
    {
      /* Wrap the list of never-recorded fields at 80 columns. */
      fprintf (f, "  never recorded in any interaction:\n   ");
      size_t col = 3;
      for (char *tok = never; *tok;)
        {
          char *end = strstr (tok, ", ");
          size_t len = end ? (size_t)(end - tok) : strlen (tok);
          if (col + len + 2 > 78)
            {
              fprintf (f, "\n   ");
              col = 3;
            }
          fprintf (f, " %.*s%s", (int)len, tok, end ? "," : "");
          col += len + 2;
          tok = end ? end + 2 : tok + len;
        }
      fputc ('\n', f);
    }
  /* Metrics whose boundaries were present but reversed, or clamped. */
  for (int k = 0; k < EMLAT_RM_COUNT; k++)
    {
      uint64_t inv = 0, cl = 0;
      for (int r = 0; r < EMLAT_REPORT_GROUPS; r++)
        for (int q = 0; q < EMLAT_POP_COUNT; q++)
          {
            inv += m->g[r][q].inverted[k];
            cl += m->g[r][q].clamped[k];
          }
      if (inv)
        fprintf (f, "  %s: end before start in %" PRIu64 " interactions (not computed)\n",
                 emlat_report_metric_name ((enum emlat_report_metric)k), inv);
      if (cl)
        fprintf (f, "  %s: negative, clamped at 0 in %" PRIu64 " interactions\n",
                 emlat_report_metric_name ((enum emlat_report_metric)k), cl);
    }
}

void
report_text (const struct report_ctx *c, FILE *f)
{
  header (c, f);
  report_text_headline (c, f);
  report_text_joined (c, f);
  int any = 0;
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      if (c->m->g[k][q].n)
        {
          if (!any)
            fprintf (f, "\nLatency by root kind and population (more metrics: --json)\n");
          any = 1;
          group_table (c, &c->m->g[k][q], f);
        }
  if (!any)
    fprintf (f, "\nNo interactions were recorded.\n");
  report_text_names (c, f);
  report_text_app (c, f);
  report_text_functions (c, f);
  report_text_resources (&c->res, f);
  slowest (c, f);
  report_text_waterfall (c, f);
  overhead (c, f);
  losses (c, f);
  unavailable (c, f);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_headline.c -- the first screen of `emlat report` in text, JSON
 * and HTML (report_headline.h, docs/REPORT.md "The first screen").
 *
 * Invariants: every line of the text is at most 80 columns; an absent
 * value is "-" (JSON null), never 0; the three renderings show the same
 * rows in the same order.
 */
#include "render/report_headline.h"

#include <inttypes.h>
#include <string.h>

#include "render/report_app_render.h"
#include "render/report_fmt.h"
#include "render/report_names.h"
#include "render/report_svg.h"

/* How many of SORTED[0..N) exceed X. */
static uint64_t
count_over (const uint64_t *sorted, size_t n, uint64_t x)
{
  size_t lo = 0, hi = n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (sorted[mid] <= x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return n - lo;
}

size_t
report_headline_rows (const struct report_ctx *c, struct report_headline_row *rows)
{
  size_t n = 0;
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    {
      if (!c->m->n_kind[k])
        continue;
      /* The flushed population when it has a latency, else the one with
         a lead metric and the most interactions. */
      const struct emlat_report_group *best = NULL;
      int metric = -1;
      for (int q = 0; q < EMLAT_POP_COUNT; q++)
        {
          const struct emlat_report_group *g = &c->m->g[k][q];
          int lead = g->n ? emlat_report_group_primary (g) : -1;
          if (lead < 0)
            continue;
          if (!best || (best->pop != EMLAT_POP_FLUSHED && g->n > best->n))
            {
              best = g;
              metric = lead;
            }
        }
      if (!best)
        for (int q = 0; q < EMLAT_POP_COUNT && !best; q++)
          if (c->m->g[k][q].n)
            best = &c->m->g[k][q];
      if (!best)
        continue;
      struct report_headline_row *r = &rows[n++];
      memset (r, 0, sizeof *r);
      r->g = best;
      r->metric = metric;
      if (metric >= 0)
        for (int t = 0; t < EMLAT_REPORT_THRESHOLDS; t++)
          r->over[t] = count_over (best->s[metric].v, best->s[metric].n,
                                   emlat_report_thresholds_ns[t]);
    }
  return n;
}

size_t
report_headline_slowest (const struct report_ctx *c,
                         struct report_headline_slow out[REPORT_HEADLINE_SLOWEST])
{
  size_t n = 0;
  const struct emlat_report_tail *t = &c->m->tail;
  for (size_t i = 0; i < t->n_slow && n < REPORT_HEADLINE_SLOWEST; i++)
    {
      const struct emlat_interaction *ix = emlat_profile_find_interaction (c->p, t->slow[i].cause);
      if (!ix)
        continue;
      struct emlat_report_times tm;
      emlat_report_times_from_profile (c->p, ix, &tm);
      out[n].cause = ix->cause;
      out[n].kind = ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0;
      emlat_report_metrics_compute (&tm, &out[n].m);
      out[n].phase = emlat_report_dominant_phase (&out[n].m);
      n++;
    }
  return n;
}

static const char *
mdur (const struct emlat_report_metrics *m, enum emlat_report_metric k, char d[REPORT_DUR_LEN])
{
  return (m->mask >> k & 1u) ? report_fmt_dur (m->v[k], d) : "-";
}

void
report_text_headline (const struct report_ctx *c, FILE *f)
{
  struct report_headline_row rows[EMLAT_REPORT_GROUPS];
  size_t n = report_headline_rows (c, rows);
  if (!n)
    return;
  char a[REPORT_DUR_LEN], b[REPORT_DUR_LEN], d3[REPORT_DUR_LEN], e[REPORT_DUR_LEN],
    label[128];
  fprintf (f, "\nHow fast is it?  Latency, lower bound: from the key's latest possible\n"
              "arrival to the first moment its output could reach the terminal\n");
  fprintf (f, "  %-18s %6s %7s %7s %7s %7s %6s %6s %6s\n", "root kind", "n", "median", "p90",
           "p99", "max", ">16ms", ">33ms", ">100ms");
  int other = 0;
  for (size_t i = 0; i < n; i++)
    {
      const struct report_headline_row *r = &rows[i];
      const struct emlat_report_group *g = r->g;
      char name[64];
      snprintf (name, sizeof name, "%s%s", report_group_label (c, g, label, sizeof label),
                r->metric >= 0 && r->metric != EMLAT_RM_LATENCY_LOWER ? " *" : "");
      if (r->metric < 0)
        {
          fprintf (f, "  %-18.18s %6" PRIu64 " %7s %7s %7s %7s %6s %6s %6s\n", name, g->n, "-",
                   "-", "-", "-", "-", "-", "-");
          continue;
        }
      const struct emlat_report_dist *d = &g->d[r->metric];
      other |= r->metric != EMLAT_RM_LATENCY_LOWER;
      fprintf (f, "  %-18.18s %6" PRIu64 " %7s %7s %7s %7s %6" PRIu64 " %6" PRIu64 " %6" PRIu64
                  "\n",
               name, d->n, report_fmt_dur (d->p50, a), report_fmt_dur (d->p90, b),
               report_fmt_dur (d->p99, d3), report_fmt_dur (d->max, e), r->over[0], r->over[1],
               r->over[2]);
      if (r->metric == EMLAT_RM_LATENCY_LOWER)
        {
          const struct emlat_report_dist *u = &g->d[EMLAT_RM_LATENCY_UPPER];
          const struct emlat_report_dist *w = &g->d[EMLAT_RM_INPUT_UNCERTAINTY];
          fprintf (f, "    upper bound: median %s, p99 %s", u->n ? report_fmt_dur (u->p50, a) : "-",
                   u->n ? report_fmt_dur (u->p99, b) : "-");
          fprintf (f, "; idle: median %s, p99 %s\n",
                   w->n ? report_fmt_dur (w->p50, d3) : "-", w->n ? report_fmt_dur (w->p99, e) : "-");
        }
    }
  fprintf (f, "  upper bound: from the key's earliest possible arrival to its output in\n"
              "  the kernel; idle: idle time before the key arrived, which the recording\n"
              "  cannot tell from the key's own (the bounds differ by at least this)\n");
  if (other)
    {
      fprintf (f, "  * no lower bound (no key arrival or no output); shown instead:\n");
      for (size_t i = 0; i < n; i++)
        if (rows[i].metric >= 0 && rows[i].metric != EMLAT_RM_LATENCY_LOWER)
          fprintf (f, "    %s: %s\n", report_group_label (c, rows[i].g, label, sizeof label),
                   emlat_report_metric_label ((enum emlat_report_metric)rows[i].metric));
    }

  struct report_headline_slow s[REPORT_HEADLINE_SLOWEST];
  size_t ns = report_headline_slowest (c, s);
  if (!ns)
    return;
  fprintf (f, "\nThe %zu slowest, by %s\n", ns, emlat_report_metric_label (c->m->tail.metric));
  fprintf (f, "  %8s  %-16s %7s %7s %7s  %s\n", "cause", "root kind", "lower", "upper", "idle",
           "dominant phase");
  for (size_t i = 0; i < ns; i++)
    {
      char ph[64];
      if (s[i].phase >= 0)
        snprintf (ph, sizeof ph, "%s %s",
                  emlat_report_metric_label ((enum emlat_report_metric)s[i].phase),
                  report_fmt_dur (s[i].m.v[s[i].phase], e));
      else
        snprintf (ph, sizeof ph, "-");
      fprintf (f, "  %8" PRIu64 "  %-16.16s %7s %7s %7s  %s\n", s[i].cause,
               report_ix_label (c, s[i].cause, s[i].kind, label, sizeof label),
               mdur (&s[i].m, EMLAT_RM_LATENCY_LOWER, a), mdur (&s[i].m, EMLAT_RM_LATENCY_UPPER, b),
               mdur (&s[i].m, EMLAT_RM_INPUT_UNCERTAINTY, d3), ph);
    }
}

static void
json_metric (struct emlat_json *j, const char *key, const struct emlat_report_metrics *m,
             enum emlat_report_metric k)
{
  emlat_json_kv_u64_opt (j, key, m->mask >> k & 1u, m->v[k]);
}

void
report_json_headline (struct emlat_json *j, const struct report_ctx *c)
{
  struct report_headline_row rows[EMLAT_REPORT_GROUPS];
  size_t n = report_headline_rows (c, rows);
  emlat_json_key (j, "headline");
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "metric", emlat_report_metric_name (EMLAT_RM_LATENCY_LOWER));
  emlat_json_key (j, "thresholds_ns");
  emlat_json_begin_array (j);
  for (int t = 0; t < EMLAT_REPORT_THRESHOLDS; t++)
    emlat_json_u64 (j, emlat_report_thresholds_ns[t]);
  emlat_json_end_array (j);
  emlat_json_key (j, "kinds");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < n; i++)
    {
      const struct report_headline_row *r = &rows[i];
      const struct emlat_report_group *g = r->g;
      const struct emlat_report_dist *d = r->metric >= 0 ? &g->d[r->metric] : NULL;
      emlat_json_begin_object (j);
      emlat_json_kv_str (j, "root_kind", report_kind_key (g->root_kind));
      emlat_json_key (j, "name");
      report_name_json (j, c->p, g->name);
      emlat_json_kv_str (j, "population", emlat_report_pop_key (g->pop));
      emlat_json_kv_str (j, "metric",
                         d ? emlat_report_metric_name ((enum emlat_report_metric)r->metric) : NULL);
      emlat_json_kv_u64 (j, "n", d ? d->n : 0);
      emlat_json_kv_u64_opt (j, "median", d != NULL, d ? d->p50 : 0);
      emlat_json_kv_u64_opt (j, "p90", d != NULL, d ? d->p90 : 0);
      emlat_json_kv_u64_opt (j, "p99", d != NULL, d ? d->p99 : 0);
      emlat_json_kv_u64_opt (j, "max", d != NULL, d ? d->max : 0);
      emlat_json_key (j, "over");
      if (d)
        {
          emlat_json_begin_array (j);
          for (int t = 0; t < EMLAT_REPORT_THRESHOLDS; t++)
            emlat_json_u64 (j, r->over[t]);
          emlat_json_end_array (j);
        }
      else
        emlat_json_null (j);
      const struct emlat_report_dist *u = &g->d[EMLAT_RM_LATENCY_UPPER];
      const struct emlat_report_dist *w = &g->d[EMLAT_RM_INPUT_UNCERTAINTY];
      emlat_json_kv_u64_opt (j, "upper_median", u->n > 0, u->p50);
      emlat_json_kv_u64_opt (j, "upper_p99", u->n > 0, u->p99);
      emlat_json_kv_u64_opt (j, "idle_median", w->n > 0, w->p50);
      emlat_json_kv_u64_opt (j, "idle_p99", w->n > 0, w->p99);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  struct report_headline_slow s[REPORT_HEADLINE_SLOWEST];
  size_t ns = report_headline_slowest (c, s);
  emlat_json_key (j, "slowest");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < ns; i++)
    {
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "cause", s[i].cause);
      emlat_json_kv_str (j, "root_kind", report_kind_key (s[i].kind));
      json_metric (j, "latency_lower_ns", &s[i].m, EMLAT_RM_LATENCY_LOWER);
      json_metric (j, "latency_upper_ns", &s[i].m, EMLAT_RM_LATENCY_UPPER);
      json_metric (j, "input_uncertainty_ns", &s[i].m, EMLAT_RM_INPUT_UNCERTAINTY);
      emlat_json_kv_str (j, "dominant_phase",
                         s[i].phase >= 0
                           ? emlat_report_metric_name ((enum emlat_report_metric)s[i].phase)
                           : NULL);
      emlat_json_kv_u64_opt (j, "dominant_phase_ns", s[i].phase >= 0,
                             s[i].phase >= 0 ? s[i].m.v[s[i].phase] : 0);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_end_object (j);
}


void
report_html_headline (const struct report_ctx *c, FILE *f)
{
  struct report_headline_row rows[EMLAT_REPORT_GROUPS];
  size_t n = report_headline_rows (c, rows);
  char label[128];
  fprintf (f, "<section id=\"headline\"><h2>How fast is it?</h2>\n"
              "<p class=\"note\"><b>Latency, lower bound</b>: from the key's latest possible "
              "arrival to the first moment its output could reach the terminal. <b>Upper "
              "bound</b>: from its earliest possible arrival to the moment the output is known "
              "to be in the kernel. <b>Idle before arrival</b>: the part of the upper bound the "
              "recording cannot tell from idle time before the key came.</p>\n"
              "<table id=\"headline-kinds\"><tr><th class=\"l\">root kind</th><th>n</th>"
              "<th>median</th><th>p90</th><th>p99</th><th>max</th><th>&gt;16 ms</th>"
              "<th>&gt;33 ms</th><th>&gt;100 ms</th><th>upper bound, median</th>"
              "<th>idle before arrival, median</th><th class=\"l\">metric</th></tr>\n");
  for (size_t i = 0; i < n; i++)
    {
      const struct report_headline_row *r = &rows[i];
      const struct emlat_report_group *g = r->g;
      const struct emlat_report_dist *d = r->metric >= 0 ? &g->d[r->metric] : NULL;
      fprintf (f, "<tr data-kind=\"%s\"><td class=\"l\">", report_kind_key (g->root_kind));
      report_html_escape (f, report_group_label (c, g, label, sizeof label),
                          strlen (report_group_label (c, g, label, sizeof label)));
      fprintf (f, "</td><td>%" PRIu64 "</td>", d ? d->n : 0);
      report_html_dur_cell (f, d != NULL, d ? d->p50 : 0);
      report_html_dur_cell (f, d != NULL, d ? d->p90 : 0);
      report_html_dur_cell (f, d != NULL, d ? d->p99 : 0);
      report_html_dur_cell (f, d != NULL, d ? d->max : 0);
      for (int t = 0; t < EMLAT_REPORT_THRESHOLDS; t++)
        if (d)
          fprintf (f, "<td>%" PRIu64 "</td>", r->over[t]);
        else
          fprintf (f, "<td class=\"na\">&ndash;</td>");
      const struct emlat_report_dist *u = &g->d[EMLAT_RM_LATENCY_UPPER];
      const struct emlat_report_dist *w = &g->d[EMLAT_RM_INPUT_UNCERTAINTY];
      report_html_dur_cell (f, u->n > 0, u->p50);
      report_html_dur_cell (f, w->n > 0, w->p50);
      fprintf (f, "<td class=\"l\">%s</td></tr>\n",
               d ? emlat_report_metric_label ((enum emlat_report_metric)r->metric) : "&ndash;");
    }
  fprintf (f, "</table>\n");
  struct report_headline_slow s[REPORT_HEADLINE_SLOWEST];
  size_t ns = report_headline_slowest (c, s);
  if (ns)
    {
      fprintf (f, "<h3>The %zu slowest, by %s</h3>\n<table id=\"headline-slowest\"><tr>"
                  "<th>cause</th><th class=\"l\">root kind</th><th>lower bound</th>"
                  "<th>upper bound</th><th>idle before arrival</th>"
                  "<th class=\"l\">dominant phase</th><th>its time</th></tr>\n",
               ns, emlat_report_metric_label (c->m->tail.metric));
      for (size_t i = 0; i < ns; i++)
        {
          const char *kl = report_ix_label (c, s[i].cause, s[i].kind, label, sizeof label);
          fprintf (f, "<tr data-cause=\"%" PRIu64 "\"><td>%" PRIu64 "</td><td class=\"l\">",
                   s[i].cause, s[i].cause);
          report_html_escape (f, kl, strlen (kl));
          fprintf (f, "</td>");
          report_html_dur_cell (f, s[i].m.mask >> EMLAT_RM_LATENCY_LOWER & 1u, s[i].m.v[EMLAT_RM_LATENCY_LOWER]);
          report_html_dur_cell (f, s[i].m.mask >> EMLAT_RM_LATENCY_UPPER & 1u, s[i].m.v[EMLAT_RM_LATENCY_UPPER]);
          report_html_dur_cell (f, s[i].m.mask >> EMLAT_RM_INPUT_UNCERTAINTY & 1u,
                s[i].m.v[EMLAT_RM_INPUT_UNCERTAINTY]);
          fprintf (f, "<td class=\"l\">%s</td>",
                   s[i].phase >= 0 ? emlat_report_metric_label ((enum emlat_report_metric)s[i].phase)
                                   : "&ndash;");
          report_html_dur_cell (f, s[i].phase >= 0, s[i].phase >= 0 ? s[i].m.v[s[i].phase] : 0);
          fprintf (f, "</tr>\n");
        }
      fprintf (f, "</table>\n");
    }
  fprintf (f, "</section>\n");
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_html_timeline.c -- the HTML report's timeline of interactions
 * over the session and the data its script draws from (docs/REPORT.md
 * "HTML"):
 *
 *   section "timeline": a static SVG overview (#timeline-overview: per
 *   time bin of the session, the count of every interaction and the
 *   largest drawn value; no script needed), the container the script
 *   draws the zoomable timeline into (#timeline), a note saying whether
 *   the marks are all the interactions or a sample (#timeline-sampling);
 *   section "interaction": the container of the waterfall of a clicked
 *   interaction (#ix-waterfall);
 *   <script type="application/json" id="emlat-data">: the marks (one per
 *   kept interaction, report_marks.h) with their values and the rows of
 *   their waterfall drawn from their boundaries
 *   (emlat_report_waterfall_build_times: the rows report_waterfall.c
 *   makes without spans).
 *
 * Invariants: the JSON holds numbers and the static strings of the
 * library's tables only (no "</" can end the script element); times are
 * nanoseconds, mark times relative to "origin" (the session's start, as
 * the overview's bins), row
 * times relative to their mark; a cause id above 2^53 is a string, so no
 * id loses digits in JavaScript.
 */
#include "render/report_html_timeline.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/report_fmt.h"
#include "render/report_marks.h"
#include "render/report_svg.h"

#define MAX_ROW_NAMES 64
#define JS_SAFE_INT ((uint64_t)1 << 53)

static void
json_id (FILE *f, uint64_t v)
{
  if (v < JS_SAFE_INT)
    fprintf (f, "%" PRIu64, v);
  else
    fprintf (f, "\"%" PRIu64 "\"", v);
}

static void
json_opt (FILE *f, const struct emlat_report_metrics *m, enum emlat_report_metric k)
{
  if (m->mask >> k & 1u)
    fprintf (f, ",%" PRIu64, m->v[k]);
  else
    fputs (",null", f);
}

/* The index of NAME in NAMES (added when new; the last slot when full). */
static unsigned
row_name (const char **names, unsigned *n, const char *name)
{
  for (unsigned i = 0; i < *n; i++)
    if (strcmp (names[i], name) == 0)
      return i;
  if (*n == MAX_ROW_NAMES)
    return MAX_ROW_NAMES - 1;
  names[*n] = name;
  return (*n)++;
}

/* A signed difference A - B as JSON. */
static void
json_rel (FILE *f, uint64_t a, uint64_t b)
{
  if (a >= b)
    fprintf (f, "%" PRIu64, a - b);
  else
    fprintf (f, "-%" PRIu64, b - a);
}

/* One mark: [cause, t, kind, pop, metric, value, lower, upper, idle,
   wall, dominant phase, axis t0, axis t1, [type, name, start, end, ...]]. */
static int
mark_json (FILE *f, const struct report_mark *m, uint64_t origin, const char **names,
           unsigned *n_names)
{
  struct emlat_report_waterfall w;
  if (emlat_report_waterfall_build_times (m->cause, m->root_kind, m->thread, &m->times, &w) != 0)
    return -1;
  fputc ('[', f);
  json_id (f, m->cause);
  fprintf (f, ",%" PRIu64 ",%u,%d,%d,%" PRIu64, m->t - origin, m->root_kind, (int)m->pop,
           m->metric, m->value);
  json_opt (f, &w.m, EMLAT_RM_LATENCY_LOWER);
  json_opt (f, &w.m, EMLAT_RM_LATENCY_UPPER);
  json_opt (f, &w.m, EMLAT_RM_INPUT_UNCERTAINTY);
  json_opt (f, &w.m, EMLAT_RM_WALL);
  fprintf (f, ",%d,", emlat_report_dominant_phase (&w.m));
  json_rel (f, w.t0, m->t);
  fputc (',', f);
  json_rel (f, w.t1, m->t);
  fputs (",[", f);
  for (size_t i = 0; i < w.n_rows; i++)
    {
      const struct emlat_report_wf_row *r = &w.rows[i];
      fprintf (f, "%s%d,%u,", i ? "," : "", (int)r->type, row_name (names, n_names, r->name));
      json_rel (f, r->start, m->t);
      fputc (',', f);
      json_rel (f, r->has_end ? r->end : r->start, m->t);
    }
  fputs ("]]", f);
  emlat_report_waterfall_free (&w);
  return 0;
}

/* The static overview: per bin, a bar up to the largest drawn value (log
   scale) and the count in its title. */
static void
overview (const struct report_marks *k, FILE *f)
{
  const double W = 1040, H = 96, ML = 56, MR = 12, MT = 8, MB = 22;
  unsigned last = 0;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (unsigned b = 0; b < REPORT_MARKS_BINS; b++)
    {
      if (k->bin_n[b])
        last = b;
      if (k->bin_has_max[b])
        {
          uint64_t v = k->bin_max[b] ? k->bin_max[b] : 1;
          lo = v < lo ? v : lo;
          hi = v > hi ? v : hi;
        }
    }
  unsigned nb = last + 1;
  char d[REPORT_DUR_LEN], d2[REPORT_DUR_LEN], d3[REPORT_DUR_LEN];
  fprintf (f, "<svg id=\"timeline-overview\" class=\"chart overview\" "
              "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
              "height=\"%.0f\" role=\"img\" data-bins=\"%u\" data-bin-ns=\"%" PRIu64 "\" "
              "data-origin-ns=\"%" PRIu64 "\">\n<title>every interaction over the session: "
              "per bin of %s, the largest value drawn</title>\n",
           W, H, W, H, nb, k->bin_width, k->bin_origin, report_fmt_dur (k->bin_width, d));
  fprintf (f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" class=\"plot\"/>\n", ML,
           MT, W - ML - MR, H - MT - MB);
  double llo = log10 ((double)(lo == UINT64_MAX ? 1 : lo)), lhi = log10 ((double)(hi ? hi : 1));
  if (lhi - llo < 1)
    llo = lhi - 1;
  double pw = W - ML - MR, ph = H - MT - MB, bw = pw / nb;
  fprintf (f, "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"end\">%s</text>\n"
              "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"end\">%s</text>\n",
           ML - 4, MT + 8, report_fmt_dur (hi, d), ML - 4, MT + ph, report_fmt_dur (lo == UINT64_MAX ? 1 : lo, d2));
  for (unsigned b = 0; b < nb; b++)
    {
      if (!k->bin_n[b])
        continue;
      double h = 2;
      if (k->bin_has_max[b])
        {
          double lv = log10 ((double)(k->bin_max[b] ? k->bin_max[b] : 1));
          h = 2 + (ph - 2) * (lv - llo) / (lhi - llo);
        }
      uint64_t from = (uint64_t)b * k->bin_width;
      fprintf (f, "<rect class=\"bin\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                  "data-count=\"%" PRIu64 "\"",
               ML + bw * b, MT + ph - h, bw > 1.5 ? bw - 0.5 : bw, h, k->bin_n[b]);
      if (k->bin_has_max[b])
        fprintf (f, " data-max-ns=\"%" PRIu64 "\"", k->bin_max[b]);
      fprintf (f, "><title>%s to %s: %" PRIu64 " interaction%s", report_fmt_dur (from, d),
               report_fmt_dur (from + k->bin_width, d2), k->bin_n[b], k->bin_n[b] == 1 ? "" : "s");
      if (k->bin_has_max[b])
        fprintf (f, ", the largest %s (%" PRIu64 " ns)", report_fmt_dur (k->bin_max[b], d3),
                 k->bin_max[b]);
      fprintf (f, "</title></rect>\n");
    }
  for (int q = 0; q <= 4; q++)
    {
      uint64_t t = (uint64_t)((double)nb * (double)k->bin_width * q / 4.0);
      fprintf (f, "<text x=\"%.1f\" y=\"%.0f\" class=\"tick\" text-anchor=\"%s\">%s</text>\n",
               ML + pw * q / 4.0, H - 6, q == 0 ? "start" : q == 4 ? "end" : "middle",
               report_fmt_dur (t, d));
    }
  fprintf (f, "</svg>\n");
}

int
report_html_timeline (const struct report_ctx *c, FILE *f)
{
  const struct report_marks *k = c->marks;
  fprintf (f, "<section id=\"timeline-section\"><h2>Interactions over the session</h2>\n");
  if (!k || !k->has_t)
    {
      fprintf (f, "<p>No interaction has a time to be drawn at.</p></section>\n"
                  "<section id=\"interaction\"><div id=\"ix-waterfall\"></div></section>\n");
      return 0;
    }
  struct report_mark *marks;
  size_t n = report_marks_sorted (k, &marks);
  if (n == (size_t)-1)
    return -1;
  int sampled = report_marks_sampled (k);
  /* Times from the session's start (the overview's origin) when the
     header gives it, else from the earliest mark. */
  uint64_t origin = k->bin_origin < marks[0].t ? k->bin_origin : marks[0].t;
  uint64_t drawable = k->offered - k->undrawn;
  overview (k, f);
  fprintf (f, "<p id=\"timeline-sampling\" class=\"note\" data-sampled=\"%d\" data-marks=\"%zu\" "
              "data-interactions=\"%" PRIu64 "\">",
           sampled, n, k->offered);
  if (sampled)
    fprintf (f, "The timeline draws a <b>sample</b>: %zu of the %" PRIu64 " interactions, the "
                "%u highest (by the value each is drawn at) and a uniform random sample of the "
                "others (seeded: the same profile gives the same page). The overview above "
                "counts every interaction.",
             n, drawable, REPORT_MARKS_TOP);
  else
    fprintf (f, "The timeline draws every interaction (%zu).", n);
  if (k->undrawn)
    fprintf (f, " %" PRIu64 " without any time are not drawn.", k->undrawn);
  fprintf (f, " Each mark is an interaction at its latest key arrival (else its dispatch), at "
              "the height of its latency, lower bound (the headline), or, without one, of the "
              "first of input to flush max, outside: first output, input to command max, "
              "command, wall time it has (a circle). Wheel or buttons zoom, drag pans, "
              "shift-drag zooms to a range; click a mark for its waterfall.</p>\n"
              "<div id=\"timeline\" class=\"timeline\"><noscript><p class=\"note\">The zoomable "
              "timeline and the waterfall of any interaction need JavaScript; the overview "
              "above and the tables and charts below do not.</p></noscript></div>\n</section>\n"
              "<section id=\"interaction\"><h2>Interaction</h2>\n<div id=\"ix-waterfall\">"
              "<p class=\"note\">Click a mark of the timeline (or a cause in a table) to see "
              "its waterfall here.</p></div></section>\n");

  fprintf (f, "<script type=\"application/json\" id=\"emlat-data\">{\"origin\":\"%" PRIu64
              "\",\"interactions\":%" PRIu64 ",\"undrawn\":%" PRIu64 ",\"sampled\":%s,"
              "\"limit\":%u,\"top\":%u,\"tail\":",
           origin, k->offered, k->undrawn, sampled ? "true" : "false", REPORT_MARKS_MAX,
           REPORT_MARKS_TOP);
  if (c->m->tail.has)
    json_id (f, c->w ? c->w->cause : c->m->tail.cause);
  else
    fputs ("null", f);
  fputs (",\"thresholds\":[", f);
  for (int t = 0; t < EMLAT_REPORT_THRESHOLDS; t++)
    fprintf (f, "%s%" PRIu64, t ? "," : "", emlat_report_thresholds_ns[t]);
  fputs ("],\"kinds\":[", f);
  for (unsigned r = 0; r <= EMLAT_ROOT_KIND_MAX; r++)
    fprintf (f, "%s[\"%s\",\"%s\"]", r ? "," : "", report_kind_key (r), report_kind_label (r));
  fputs ("],\"pops\":[", f);
  for (int q = 0; q < EMLAT_POP_COUNT; q++)
    fprintf (f, "%s\"%s\"", q ? "," : "", emlat_report_pop_label ((enum emlat_report_pop)q));
  fputs ("],\"metrics\":[", f);
  for (int i = 0; i < EMLAT_RM_COUNT; i++)
    fprintf (f, "%s[\"%s\",\"%s\"]", i ? "," : "",
             emlat_report_metric_name ((enum emlat_report_metric)i),
             emlat_report_metric_label ((enum emlat_report_metric)i));
  fputs ("],\"marks\":[\n", f);
  const char *names[MAX_ROW_NAMES];
  unsigned n_names = 0;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++)
    {
      if (i)
        fputs (",\n", f);
      rc = mark_json (f, &marks[i], origin, names, &n_names);
    }
  fputs ("],\"rows\":[", f);
  for (unsigned i = 0; i < n_names; i++)
    {
      fputs (i ? ",\"" : "\"", f);
      for (const char *q = names[i]; *q; q++)
        fputc (*q >= 0x20 && *q < 0x7f && !strchr ("\"\\<>&", *q) ? *q : '?', f);
      fputc ('"', f);
    }
  fputs ("]}</script>\n", f);
  free (marks);
  return rc;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_svg.c -- the HTML report's SVG charts (see report_svg.h).
 *
 * Geometry: a chart is W x H user units with a left margin for the y
 * labels and a bottom margin for the time labels.  The log time axis maps
 * [lo, hi] (lo = max(1 ns, min); when lo == hi the axis is widened to
 * [lo / 2, hi * 2]) onto the plot width; ticks sit at 1, 10, 100 ... ns
 * inside that range, labelled like the text report.
 */
#include "render/report_svg.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "render/report_fmt.h"

#define W 520.0
#define H 220.0
#define ML 48.0
#define MR 16.0
#define MT 24.0
#define MB 34.0
#define HIST_BUCKETS 40

void
report_html_escape (FILE *f, const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      unsigned char c = (unsigned char)s[i];
      switch (c)
        {
        case '<': fputs ("&lt;", f); break;
        case '>': fputs ("&gt;", f); break;
        case '&': fputs ("&amp;", f); break;
        case '"': fputs ("&quot;", f); break;
        case '\'': fputs ("&#39;", f); break;
        default: fputc (c < 0x20 || c == 0x7f ? '?' : (int)c, f);
        }
    }
}

struct logaxis
{
  double llo, lhi;  /* log10 of the range */
};

static void
axis_of (const uint64_t *s, size_t n, struct logaxis *a)
{
  double lo = s[0] < 1 ? 1.0 : (double)s[0], hi = (double)s[n - 1];
  if (hi <= lo)
    {
      lo /= 2;
      hi = hi * 2 < 2 ? 2 : hi * 2;
    }
  a->llo = log10 (lo);
  a->lhi = log10 (hi);
}

static double
xpos (const struct logaxis *a, double v)
{
  double lv = log10 (v < 1 ? 1 : v);
  double f = (lv - a->llo) / (a->lhi - a->llo);
  if (f < 0)
    f = 0;
  if (f > 1)
    f = 1;
  return ML + f * (W - ML - MR);
}

static void
open_chart (FILE *f, const char *id, const char *title, const char *kind)
{
  fprintf (f, "<svg id=\"%s\" class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" "
              "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n",
           id, kind, W, H, W, H);
  fprintf (f, "<title>");
  report_html_escape (f, title, strlen (title));
  fprintf (f, "</title>\n<text x=\"%.0f\" y=\"16\" class=\"ct\">", ML);
  report_html_escape (f, title, strlen (title));
  fprintf (f, "</text>\n");
  fprintf (f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" class=\"plot\"/>\n", ML,
           MT, W - ML - MR, H - MT - MB);
}

/* Ticks at 1, 10, 100 ... ns; when the axis spans less than two decades,
   also at 2 and 5 times each power of ten. */
static void
time_ticks (FILE *f, const struct logaxis *a)
{
  char d[REPORT_DUR_LEN];
  static const double mult[] = { 1, 2, 5 };
  unsigned nm = a->lhi - a->llo < 2 ? 3 : 1;
  for (int e = (int)floor (a->llo); e <= (int)ceil (a->lhi); e++)
    for (unsigned m = 0; m < nm; m++)
      {
        double v = mult[m] * pow (10, e), lv = log10 (v);
        if (lv < a->llo - 1e-9 || lv > a->lhi + 1e-9)
          continue;
        double x = xpos (a, v);
        fprintf (f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" class=\"grid\"/>\n", x,
                 MT, x, H - MB);
        fprintf (f,
                 "<text x=\"%.1f\" y=\"%.0f\" class=\"tick\" text-anchor=\"middle\">%s</text>\n",
                 x, H - MB + 14, report_fmt_dur ((uint64_t)(v + 0.5), d));
      }
  fprintf (f, "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"end\">log time</text>\n",
           W - MR, H - 4);
}

void
report_svg_cdf (FILE *f, const char *id, const char *title, const uint64_t *s, size_t n,
                const char *color)
{
  struct logaxis a;
  char d[REPORT_DUR_LEN];
  axis_of (s, n, &a);
  open_chart (f, id, title, "cdf");
  time_ticks (f, &a);
  double ph = H - MT - MB;
  for (int q = 0; q <= 4; q++)
    {
      double y = MT + ph * (1 - q / 4.0);
      fprintf (f, "<text x=\"%.0f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%d%%</text>\n",
               ML - 4, y + 4, q * 25);
    }
  /* A step function through at most REPORT_SVG_CDF_POINTS ranks. */
  fprintf (f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
  size_t steps = n < REPORT_SVG_CDF_POINTS ? n : REPORT_SVG_CDF_POINTS;
  double prev_y = MT + ph;
  for (size_t k = 0; k < steps; k++)
    {
      size_t i = steps == 1 ? n - 1 : (size_t)((double)k * (double)(n - 1) / (double)(steps - 1));
      double x = xpos (&a, (double)s[i]);
      double y = MT + ph * (1 - (double)(i + 1) / (double)n);
      fprintf (f, "%.1f,%.1f %.1f,%.1f ", x, prev_y, x, y);
      prev_y = y;
    }
  fprintf (f, "\"/>\n");
  /* Points to hover: at most REPORT_SVG_CDF_TIPS ranks, the maximum last,
     each with its exact value in its title (the browser's tooltip, or the
     page script's). */
  size_t tips = n < REPORT_SVG_CDF_TIPS ? n : REPORT_SVG_CDF_TIPS;
  fprintf (f, "<g class=\"pts\">");
  for (size_t k = 0; k < tips; k++)
    {
      size_t i = tips == 1 ? n - 1 : (size_t)((double)(k + 1) * (double)n / (double)tips) - 1;
      double x = xpos (&a, (double)s[i]);
      double y = MT + ph * (1 - (double)(i + 1) / (double)n);
      fprintf (f, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" data-ns=\"%" PRIu64
                  "\" data-rank=\"%zu\"><title>%zu of %zu (%.1f%%) at or below %s (%" PRIu64
                  " ns)</title></circle>",
               x, y, s[i], i + 1, i + 1, n, 100.0 * (double)(i + 1) / (double)n,
               report_fmt_dur (s[i], d), s[i]);
    }
  fprintf (f, "</g>\n");
  fprintf (f, "<desc data-n=\"%zu\" data-min-ns=\"%" PRIu64 "\" data-max-ns=\"%" PRIu64
              "\">cumulative share of interactions at or below each latency</desc>\n",
           n, s[0], s[n - 1]);
  fprintf (f, "</svg>\n");
}

void
report_svg_hist (FILE *f, const char *id, const char *title, const uint64_t *s, size_t n,
                 const char *color)
{
  uint64_t counts[HIST_BUCKETS];
  double edges[HIST_BUCKETS + 1];
  report_log_hist (s, n, HIST_BUCKETS, counts, edges);
  struct logaxis a;
  axis_of (s, n, &a);
  open_chart (f, id, title, "hist");
  time_ticks (f, &a);
  uint64_t top = 1;
  for (int b = 0; b < HIST_BUCKETS; b++)
    if (counts[b] > top)
      top = counts[b];
  double ph = H - MT - MB;
  fprintf (f, "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"end\">%" PRIu64
              "</text>\n",
           ML - 4, MT + 8, top);
  for (int b = 0; b < HIST_BUCKETS; b++)
    {
      if (!counts[b])
        continue;
      double x0 = xpos (&a, edges[b]), x1 = xpos (&a, edges[b + 1]);
      if (x1 - x0 < 1)
        x1 = x0 + 1;
      double h = ph * (double)counts[b] / (double)top;
      uint64_t lo = (uint64_t)(edges[b] + 0.5), hi = (uint64_t)(edges[b + 1] + 0.5);
      char d1[REPORT_DUR_LEN], d2[REPORT_DUR_LEN];
      fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                  "data-count=\"%" PRIu64 "\" data-lo-ns=\"%" PRIu64 "\" data-hi-ns=\"%" PRIu64
                  "\"><title>%" PRIu64 " interaction%s from %s to %s%s (%" PRIu64 " to %" PRIu64
                  " ns)</title></rect>\n",
               x0, MT + ph - h, x1 - x0, h, color, counts[b], lo, hi, counts[b],
               counts[b] == 1 ? "" : "s", report_fmt_dur (lo, d1), report_fmt_dur (hi, d2),
               b == HIST_BUCKETS - 1 ? " inclusive" : "", lo, hi);
    }
  fprintf (f, "</svg>\n");
}

void
report_svg_waterfall (FILE *f, const char *id, const struct emlat_report_waterfall *w)
{
  const double rowh = 18, label = 190, right = 70, width = 860;
  double height = MT + rowh * (double)(w->n_rows ? w->n_rows : 1) + MB;
  fprintf (f, "<svg id=\"%s\" class=\"chart waterfall\" xmlns=\"http://www.w3.org/2000/svg\" "
              "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n"
              "<title>waterfall of interaction %" PRIu64 "</title>\n",
           id, width, height, width, height, w->cause);
  double span = w->t1 > w->t0 ? (double)(w->t1 - w->t0) : 1;
  double pw = width - label - right;
  char d[REPORT_DUR_LEN];
  for (int q = 0; q <= 4; q++)
    {
      double x = label + pw * q / 4.0;
      fprintf (f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", x,
               MT - 4, x, height - MB);
      fprintf (f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%s</text>\n",
               x, height - MB + 14, report_fmt_dur ((uint64_t)(span * q / 4.0 + 0.5), d));
    }
  for (size_t i = 0; i < w->n_rows; i++)
    {
      const struct emlat_report_wf_row *r = &w->rows[i];
      double y = MT + rowh * (double)i;
      /* An input row may begin before the axis: clipped at its start. */
      double x0 = r->start < w->t0 ? label : label + pw * (double)(r->start - w->t0) / span;
      uint64_t e = r->has_end ? r->end : r->start;
      double x1 = e < w->t0 ? label : label + pw * (double)(e - w->t0) / span;
      if (x1 - x0 < 2)
        x1 = x0 + 2;
      const char *cls = r->type == EMLAT_WF_SPAN ? "span" : r->type == EMLAT_WF_PHASE ? "phase" : "input";
      fprintf (f, "<text x=\"%.0f\" y=\"%.1f\" class=\"lbl\">", 4.0 + 10.0 * r->depth, y + 13);
      report_html_escape (f, r->name, strlen (r->name));
      fprintf (f, "</text>\n<rect class=\"%s%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                  "height=\"%.0f\" data-start-ns=\"%" PRIu64 "\"",
               cls, r->has_end ? "" : " open", x0, y + 3, x1 - x0, rowh - 6, r->start);
      if (r->has_end)
        fprintf (f, " data-dur-ns=\"%" PRIu64 "\"", r->end - r->start);
      fprintf (f, "><title>");
      report_html_escape (f, r->name, strlen (r->name));
      if (r->has_end)
        fprintf (f, ": %s (%" PRIu64 " ns)", report_fmt_dur (r->end - r->start, d),
                 r->end - r->start);
      else
        fprintf (f, ": no end");
      if (r->start >= w->t0)
        fprintf (f, ", from +%s", report_fmt_dur (r->start - w->t0, d));
      else
        fprintf (f, ", from %s before the axis (clipped)", report_fmt_dur (w->t0 - r->start, d));
      fprintf (f, "</title></rect>\n");
      fprintf (f, "<text x=\"%.0f\" y=\"%.1f\" class=\"tick\">%s</text>\n", width - right + 6,
               y + 13, r->has_end ? report_fmt_dur (r->end - r->start, d) : "open");
    }
  fprintf (f, "</svg>\n");
}

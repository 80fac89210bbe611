/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_html_joined.c -- the outside view joined with the inside one on
 * the HTML page (section id "joined", after the first screen): the same
 * content as the text section of report_joined.c -- how sends and
 * interactions matched, the agreement figures overall and per root kind
 * -- and a table of every matched key (outside latency, lower and upper
 * bound, agreement; up to JOINED_HTML_KEYS rows, the keys outside the
 * bounds first).  docs/REPORT.md "The outside view".
 *
 * Invariants: nothing is written when the report is not joined; an
 * absent value is a dash, never 0; every cell with a duration carries its
 * exact nanoseconds (data-ns, title).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "render/report_fmt.h"
#include "render/report_render.h"
#include "render/report_svg.h"

#define JOINED_HTML_KEYS 5000


static void
scell (FILE *f, int has, int64_t ns)
{
  char d[REPORT_DUR_LEN];
  if (has)
    fprintf (f, "<td data-ns=\"%" PRId64 "\" title=\"%" PRId64 " ns\">%s</td>", ns, ns,
             report_fmt_sdur (ns, d));
  else
    fprintf (f, "<td class=\"na\">&ndash;</td>");
}

static void
pct (FILE *f, uint64_t k, uint64_t n)
{
  if (n)
    fprintf (f, "<td>%.1f%%</td>", 100.0 * (double)k / (double)n);
  else
    fprintf (f, "<td class=\"na\">&ndash;</td>");
}

static void
group_row (FILE *f, const char *kind, const struct emlat_report_join_group *g)
{
  int has = g->n_cmp > 0;
  fprintf (f, "<tr data-kind=\"%s\"><td class=\"l\">%s</td><td>%" PRIu64 "</td><td>%" PRIu64
              "</td>",
           kind, kind, g->n, g->n_cmp);
  pct (f, g->inside, g->n_cmp);
  pct (f, g->below, g->n_cmp);
  pct (f, g->above, g->n_cmp);
  report_html_dur_cell (f, has, g->external.p50);
  report_html_dur_cell (f, has, g->external.p99);
  report_html_dur_cell (f, has, g->lower.p50);
  report_html_dur_cell (f, has, g->upper.p50);
  scell (f, has, g->diff_median);
  scell (f, has, g->diff_p99);
  fprintf (f, "</tr>\n");
}

static void
key_row (FILE *f, const struct emlat_report_join_pair *q)
{
  const char *ag = emlat_report_agree_name (q->agree);
  fprintf (f, "<tr data-cause=\"%" PRIu64 "\" data-agreement=\"%s\"><td>%" PRIu64 "</td><td>%" PRIu64
              "</td><td class=\"l\">%s</td>",
           q->cause, ag ? ag : "none", q->send, q->cause, report_kind_label (q->root_kind));
  report_html_dur_cell (f, (q->mask & EMLAT_JOIN_HAS_EXTERNAL) != 0, q->external);
  report_html_dur_cell (f, (q->mask & EMLAT_JOIN_HAS_LOWER) != 0, q->lower);
  report_html_dur_cell (f, (q->mask & EMLAT_JOIN_HAS_UPPER) != 0, q->upper);
  scell (f, ag != NULL, (int64_t)(q->external - q->lower));
  fprintf (f, "<td class=\"l\">%s%s</td></tr>\n", ag ? ag : "&ndash;",
           q->by_order ? " (by order)" : "");
}

void
report_html_joined (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_join *j = c->join;
  if (!j || !j->joined)
    return;
  const struct emlat_file_header *h = emlat_profile_header (c->pd);
  char uuid[37] = "unknown", wl[64];
  if (h)
    emlat_uuid_format (h->uuid, uuid);
  const char *w = report_session_str (c->pd, "replay.workload", wl, sizeof wl);
  fprintf (f, "<section id=\"joined\"><h2>The outside view</h2>\n<p class=\"note\">What "
              "<code>emlat replay</code> measured from outside (driver session %s, workload ",
           uuid);
  report_html_escape (f, w ? w : "-", strlen (w ? w : "-"));
  fprintf (f, "): <b>outside</b> is the time from the driver's send of a key to its first "
              "sight of output; it is shown beside the program's own <b>lower</b> and "
              "<b>upper bound</b> of the same key. Key sends: %" PRIu64 ", %" PRIu64
              " matched, %" PRIu64 " with no interaction, %" PRIu64
              " resizes (not matched). Program interactions: %" PRIu64 ", %" PRIu64
              " matched, %" PRIu64 " with input matched to no send, %" PRIu64
              " not keys (timers, process output, resizes); %" PRIu64 " matches decided by order.</p>\n",
           j->sends, j->sends_matched, j->sends_unmatched, j->sends_resize, j->program_ix,
           j->program_matched, j->program_not_sent, j->program_no_input, j->by_order);
  fprintf (f, "<table id=\"joined-groups\"><tr><th class=\"l\">root kind</th><th>keys</th>"
              "<th>compared</th><th>inside</th><th>below lower</th><th>above upper</th>"
              "<th>outside, median</th><th>outside, p99</th><th>lower, median</th>"
              "<th>upper, median</th><th>outside &minus; lower, median</th>"
              "<th>outside &minus; lower, p99</th></tr>\n");
  group_row (f, "all", &j->g[EMLAT_REPORT_JOIN_ALL]);
  for (unsigned k = 0; k < EMLAT_REPORT_KINDS; k++)
    if (j->g[k].n)
      group_row (f, report_kind_key (k), &j->g[k]);
  fprintf (f, "</table>\n");
  if (j->n_pairs)
    {
      fprintf (f, "<h3>Every matched key%s</h3>\n<table id=\"joined-keys\"><tr><th>send</th>"
                  "<th>cause</th><th class=\"l\">root kind</th><th>outside</th><th>lower bound</th>"
                  "<th>upper bound</th><th>outside &minus; lower</th>"
                  "<th class=\"l\">agreement</th></tr>\n",
               j->n_pairs > JOINED_HTML_KEYS ? " (the first 5000, outside the bounds first)" : "");
      size_t shown = 0;
      for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < j->n_pairs && shown < JOINED_HTML_KEYS; i++)
          {
            int outside = j->pairs[i].agree == EMLAT_AGREE_BELOW
                          || j->pairs[i].agree == EMLAT_AGREE_ABOVE;
            if (outside == (pass == 0))
              {
                key_row (f, &j->pairs[i]);
                shown++;
              }
          }
      fprintf (f, "</table>\n");
    }
  fprintf (f, "</section>\n");
}

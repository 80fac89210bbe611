/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_by_name.c -- the "by name" part of `emlat report` (text and JSON)
 * for a profile recorded under the names policy: per root kind and name,
 * the count and the wall-time distribution of its interactions, and the
 * name of an interaction in the slowest list (emlat_report.h "names",
 * docs/REPORT.md "Names"); and the same table as an HTML section.
 *
 * Invariants: a profile without names prints nothing in text and
 * "names": null in JSON; names are printed as the profile holds them
 * (JSON escapes them), truncated to REPORT_NAME_LEN - 1 bytes in text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "render/json.h"
#include "render/report_fmt.h"
#include "render/report_render.h"
#include "render/report_svg.h"

/* Text rows of the by-name table before it says "N more". */
#define REPORT_TEXT_MAX_NAMES 25

const char *
report_ix_name (const struct report_ctx *c, uint64_t cause, char *buf, size_t n)
{
  if (!c->names || !c->names->has)
    return NULL;
  uint64_t id = emlat_report_name_id (c->names, cause);
  return id ? emlat_report_name_format (c->p, id, buf, n) : NULL;
}

/* The printable name of group G into BUF: its name, or "(unnamed)". */
static const char *
group_name (const struct report_ctx *c, const struct emlat_report_name_group *g, char *buf,
            size_t n)
{
  if (!g->has_name)
    {
      snprintf (buf, n, "(unnamed)");
      return buf;
    }
  return emlat_report_name_format (c->p, g->string_id, buf, n);
}

void
report_text_names (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_names *nm = c->names;
  if (!nm || !nm->has)
    return;
  fprintf (f, "\nWork by name (privacy policy: names; %" PRIu64 " named, %" PRIu64
              " unnamed interactions; %s per interaction)\n",
           nm->named, nm->unnamed, emlat_report_metric_name (EMLAT_REPORT_NAME_METRIC));
  fprintf (f, "  %-18s %-32s %7s %9s %9s %9s %9s %9s\n", "root kind", "name", "n", "median",
           "p90", "p99", "max", "total");
  for (size_t i = 0; i < nm->n && i < REPORT_TEXT_MAX_NAMES; i++)
    {
      const struct emlat_report_name_group *g = &nm->g[i];
      char name[REPORT_NAME_LEN];
      char a[REPORT_DUR_LEN], b[REPORT_DUR_LEN], d[REPORT_DUR_LEN], e[REPORT_DUR_LEN],
          m[REPORT_DUR_LEN];
      const struct emlat_report_dist *x = &g->d;
      int h = x->n > 0;
      fprintf (f, "  %-18s %-32s %7" PRIu64 " %9s %9s %9s %9s %9s\n",
               report_kind_label (g->root_kind), group_name (c, g, name, 33), g->n,
               h ? report_fmt_dur (x->p50, a) : "-", h ? report_fmt_dur (x->p90, b) : "-",
               h ? report_fmt_dur (x->p99, d) : "-", h ? report_fmt_dur (x->max, e) : "-",
               h && !x->total_saturated ? report_fmt_dur (x->total, m) : "-");
    }
  if (nm->n > REPORT_TEXT_MAX_NAMES)
    fprintf (f, "  ... and %zu more (--json lists every name)\n", nm->n - REPORT_TEXT_MAX_NAMES);
}

void
report_json_names (struct emlat_json *j, const struct report_ctx *c)
{
  const struct emlat_report_names *nm = c->names;
  emlat_json_key (j, "names");
  if (!nm || !nm->has)
    {
      emlat_json_null (j);
      return;
    }
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "policy", "names");
  emlat_json_kv_str (j, "metric", emlat_report_metric_name (EMLAT_REPORT_NAME_METRIC));
  emlat_json_kv_u64 (j, "named", nm->named);
  emlat_json_kv_u64 (j, "unnamed", nm->unnamed);
  emlat_json_key (j, "groups");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < nm->n; i++)
    {
      const struct emlat_report_name_group *g = &nm->g[i];
      char name[REPORT_NAME_LEN];
      emlat_json_begin_object (j);
      emlat_json_kv_str (j, "root_kind", report_kind_key (g->root_kind));
      emlat_json_kv_str (j, "name", g->has_name ? group_name (c, g, name, sizeof name) : NULL);
      emlat_json_kv_u64 (j, "interactions", g->n);
      emlat_json_key (j, "dist");
      report_json_dist (j, &g->d);
      emlat_json_kv_u64_opt (j, "slowest_cause", g->slowest_cause != 0, g->slowest_cause);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_end_object (j);
}

/* An HTML duration cell, as report_html.c writes them. */
static void
html_dur (FILE *f, int has, uint64_t ns)
{
  char d[REPORT_DUR_LEN];
  if (has)
    fprintf (f, "<td data-ns=\"%" PRIu64 "\">%s</td>", ns, report_fmt_dur (ns, d));
  else
    fprintf (f, "<td class=\"na\">&ndash;</td>");
}

void
report_html_names (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_names *nm = c->names;
  if (!nm || !nm->has)
    return;
  fprintf (f, "<section id=\"names\"><h2>Work by name</h2>\n<p>Privacy policy: names; %" PRIu64
              " named, %" PRIu64 " unnamed interactions; %s per interaction.</p>\n",
           nm->named, nm->unnamed, emlat_report_metric_name (EMLAT_REPORT_NAME_METRIC));
  fprintf (f, "<table><tr><th class=\"l\">root kind</th><th class=\"l\">name</th><th>n</th>"
              "<th>median</th><th>p90</th><th>p99</th><th>max</th><th>total</th>"
              "<th>slowest</th></tr>\n");
  for (size_t i = 0; i < nm->n; i++)
    {
      const struct emlat_report_name_group *g = &nm->g[i];
      const struct emlat_report_dist *x = &g->d;
      char name[REPORT_NAME_LEN];
      int h = x->n > 0;
      fprintf (f, "<tr><td class=\"l\">%s</td><td class=\"l\">", report_kind_label (g->root_kind));
      group_name (c, g, name, sizeof name);
      report_html_escape (f, name, strlen (name));
      fprintf (f, "</td><td>%" PRIu64 "</td>", g->n);
      html_dur (f, h, x->p50);
      html_dur (f, h, x->p90);
      html_dur (f, h, x->p99);
      html_dur (f, h, x->max);
      html_dur (f, h && !x->total_saturated, x->total);
      if (g->slowest_cause)
        fprintf (f, "<td>%" PRIu64 "</td></tr>\n", g->slowest_cause);
      else
        fprintf (f, "<td class=\"na\">&ndash;</td></tr>\n");
    }
  fprintf (f, "</table></section>\n");
}

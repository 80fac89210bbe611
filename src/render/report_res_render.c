/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_res_render.c -- the process's CPU and memory over the run
 * (emlat_report_resources, docs/REPORT.md "Resources") in the text, JSON
 * and HTML reports, and its A/B lines in `emlat compare`.
 *
 * Invariant: a quantity the samples do not give is "-" in text, null in
 * JSON, "&ndash;" in HTML, never 0; a profile without samples (recorded
 * before they existed) prints one line saying so in text, null in JSON.
 */
#include <inttypes.h>
#include <stdio.h>

#include "render/report_fmt.h"
#include "render/report_res_render.h"

static const char *
fmt_bytes (uint64_t b, char *buf, size_t n)
{
  if (b >= (uint64_t)10 << 30)
    snprintf (buf, n, "%.1f GiB", (double)b / (double)(1u << 30));
  else if (b >= (uint64_t)10 << 20)
    snprintf (buf, n, "%.0f MiB", (double)b / (double)(1u << 20));
  else
    snprintf (buf, n, "%.1f MiB", (double)b / (double)(1u << 20));
  return buf;
}

void
report_text_resources (const struct emlat_report_resources *r, FILE *f)
{
  if (!r->n_samples)
    {
      fprintf (f, "\nResources: no samples in this profile\n");
      return;
    }
  char a[REPORT_DUR_LEN], b[REPORT_DUR_LEN], c[REPORT_DUR_LEN];
  fprintf (f, "\nResources of the process (%" PRIu64 " sample%s by the writer over %s)\n",
           r->n_samples, r->n_samples == 1 ? "" : "s", report_fmt_dur (r->t_last - r->t_first, a));
  char m1[32], m2[32], m3[32], m4[32];
  if (r->has_rss)
    fprintf (f, "  resident memory: first %s, min %s, max %s, last %s\n",
             fmt_bytes (r->rss_first, m1, sizeof m1), fmt_bytes (r->rss_min, m2, sizeof m2),
             fmt_bytes (r->rss_max, m3, sizeof m3), fmt_bytes (r->rss_last, m4, sizeof m4));
  else
    fprintf (f, "  resident memory: -\n");
  if (r->has_cpu)
    fprintf (f, "  CPU: user %s, system %s in %s: %.2f cores on average\n",
             report_fmt_dur (r->cpu_user_ns, a), report_fmt_dur (r->cpu_sys_ns, b),
             report_fmt_dur (r->cpu_wall_ns, c), r->cpu_share_mean);
  else
    fprintf (f, "  CPU: -\n");
  if (r->has_share_max)
    fprintf (f, "  CPU between two samples: %.2f cores at most\n", r->cpu_share_max);
  if (r->has_csw)
    fprintf (f, "  context switches: %" PRIu64 " voluntary, %" PRIu64 " involuntary\n", r->vol_csw,
             r->invol_csw);
  else
    fprintf (f, "  context switches: -\n");
}

void
report_json_resources_value (struct emlat_json *j, const struct emlat_report_resources *r)
{
  if (!r->n_samples)
    {
      emlat_json_null (j);
      return;
    }
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "samples", r->n_samples);
  emlat_json_kv_u64 (j, "span_ns", r->t_last - r->t_first);
  emlat_json_key (j, "rss_bytes");
  if (r->has_rss)
    {
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "first", r->rss_first);
      emlat_json_kv_u64 (j, "min", r->rss_min);
      emlat_json_kv_u64 (j, "max", r->rss_max);
      emlat_json_kv_u64 (j, "last", r->rss_last);
      emlat_json_end_object (j);
    }
  else
    emlat_json_null (j);
  emlat_json_kv_u64_opt (j, "cpu_user_ns", r->has_cpu, r->cpu_user_ns);
  emlat_json_kv_u64_opt (j, "cpu_sys_ns", r->has_cpu, r->cpu_sys_ns);
  emlat_json_kv_u64_opt (j, "cpu_wall_ns", r->has_cpu, r->cpu_wall_ns);
  emlat_json_key (j, "cpu_share_mean");
  if (r->has_cpu)
    emlat_json_double (j, r->cpu_share_mean);
  else
    emlat_json_null (j);
  emlat_json_key (j, "cpu_share_max");
  if (r->has_share_max)
    emlat_json_double (j, r->cpu_share_max);
  else
    emlat_json_null (j);
  emlat_json_kv_u64_opt (j, "voluntary_csw", r->has_csw, r->vol_csw);
  emlat_json_kv_u64_opt (j, "involuntary_csw", r->has_csw, r->invol_csw);
  emlat_json_end_object (j);
}

void
report_html_resources (const struct emlat_report_resources *r, FILE *f)
{
  fprintf (f, "<section id=\"resources\"><h2>Resources of the process</h2>\n");
  if (!r->n_samples)
    {
      fprintf (f, "<p>No samples in this profile.</p></section>\n");
      return;
    }
  char a[REPORT_DUR_LEN], m[32];
  fprintf (f, "<p>%" PRIu64 " samples by the writer over %s.</p>\n<table>", r->n_samples,
           report_fmt_dur (r->t_last - r->t_first, a));
#define NA "<td class=\"na\">&ndash;</td>"
  fprintf (f, "<tr><td class=\"l\">resident memory, max</td>");
  if (r->has_rss)
    fprintf (f, "<td data-bytes=\"%" PRIu64 "\">%s</td>", r->rss_max, fmt_bytes (r->rss_max, m, sizeof m));
  else
    fprintf (f, NA);
  fprintf (f, "</tr>\n<tr><td class=\"l\">resident memory, last</td>");
  if (r->has_rss)
    fprintf (f, "<td data-bytes=\"%" PRIu64 "\">%s</td>", r->rss_last, fmt_bytes (r->rss_last, m, sizeof m));
  else
    fprintf (f, NA);
  fprintf (f, "</tr>\n<tr><td class=\"l\">CPU user</td>");
  if (r->has_cpu)
    fprintf (f, "<td data-ns=\"%" PRIu64 "\">%s</td>", r->cpu_user_ns, report_fmt_dur (r->cpu_user_ns, a));
  else
    fprintf (f, NA);
  fprintf (f, "</tr>\n<tr><td class=\"l\">CPU system</td>");
  if (r->has_cpu)
    fprintf (f, "<td data-ns=\"%" PRIu64 "\">%s</td>", r->cpu_sys_ns, report_fmt_dur (r->cpu_sys_ns, a));
  else
    fprintf (f, NA);
  fprintf (f, "</tr>\n<tr><td class=\"l\">cores on average</td>");
  if (r->has_cpu)
    fprintf (f, "<td>%.2f</td>", r->cpu_share_mean);
  else
    fprintf (f, NA);
  fprintf (f, "</tr>\n<tr><td class=\"l\">context switches (voluntary, involuntary)</td>");
  if (r->has_csw)
    fprintf (f, "<td>%" PRIu64 ", %" PRIu64 "</td>", r->vol_csw, r->invol_csw);
  else
    fprintf (f, NA);
#undef NA
  fprintf (f, "</tr></table></section>\n");
}

/* One compare line: A, B and B - A of a quantity both sides have. */
static void
cmp_line (FILE *f, const char *what, int has_a, double a, int has_b, double b, const char *unit)
{
  fprintf (f, "  %-28s", what);
  if (has_a)
    fprintf (f, " %12.3f", a);
  else
    fprintf (f, " %12s", "-");
  if (has_b)
    fprintf (f, " %12.3f", b);
  else
    fprintf (f, " %12s", "-");
  if (has_a && has_b)
    fprintf (f, " %+12.3f %s\n", b - a, unit);
  else
    fprintf (f, " %12s %s\n", "-", unit);
}

void
report_compare_resources_text (const struct emlat_report_resources *a,
                               const struct emlat_report_resources *b, FILE *f)
{
  fprintf (f, "\nResources (process, writer's samples): %" PRIu64 " and %" PRIu64 " samples\n",
           a->n_samples, b->n_samples);
  fprintf (f, "  %-28s %12s %12s %12s\n", "", "A", "B", "B - A");
  cmp_line (f, "resident memory, max", a->has_rss, (double)a->rss_max / (1 << 20), b->has_rss,
            (double)b->rss_max / (1 << 20), "MiB");
  cmp_line (f, "CPU user + system", a->has_cpu, (double)(a->cpu_user_ns + a->cpu_sys_ns) / 1e9,
            b->has_cpu, (double)(b->cpu_user_ns + b->cpu_sys_ns) / 1e9, "s");
  cmp_line (f, "cores on average", a->has_cpu, a->cpu_share_mean, b->has_cpu, b->cpu_share_mean,
            "cores");
  cmp_line (f, "involuntary context switches", a->has_csw, (double)a->invol_csw, b->has_csw,
            (double)b->invol_csw, "");
}

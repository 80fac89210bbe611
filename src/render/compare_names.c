/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compare_names.c -- the "by name" part of `emlat compare` (text and
 * JSON): per root kind and name, the interactions of each session and,
 * when both have enough samples, the movement of the median, p90 and p99
 * of the name metric with its interval and verdict (emlat_report.h
 * "names", docs/REPORT.md "Comparison").
 *
 * Invariants: nothing is printed in text, and "names" is null in JSON,
 * unless both sessions record names and are comparable; text lines stay
 * within 80 columns (names are cut to 30 bytes there, never in JSON).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "render/json.h"
#include "render/report_fmt.h"
#include "render/report_render.h"

/* ROW's printable name into BUF (N bytes): its bytes, "#ID" when its
   string is missing, "(unnamed)" for a kind's unnamed group. */
static const char *
row_name (const struct emlat_profile *pa, const struct emlat_profile *pb,
          const struct emlat_report_cmp_name *row, char *buf, size_t n)
{
  if (!row->has_name)
    snprintf (buf, n, "(unnamed)");
  else if (row->name)
    snprintf (buf, n, "%.*s", (int)(row->name_len < n ? row->name_len : n - 1),
              (const char *)row->name);
  else
    emlat_report_name_format (row->n_a ? pa : pb, row->string_id, buf, n);
  return buf;
}

void
compare_text_names (const struct emlat_profile *pa, const struct emlat_profile *pb,
                    const struct emlat_report_name_comparison *nc, FILE *f)
{
  if (!nc->has)
    return;
  fprintf (f, "\nBy name (%s per interaction; groups matched by root kind and name):\n",
           emlat_report_metric_name (EMLAT_REPORT_NAME_METRIC));
  for (size_t i = 0; i < nc->n; i++)
    {
      const struct emlat_report_cmp_name *row = &nc->rows[i];
      char name[31];
      fprintf (f, "  %-14s %-30s A n=%" PRIu64 ", B n=%" PRIu64 "%s\n",
               report_kind_label (row->root_kind), row_name (pa, pb, row, name, sizeof name),
               row->n_a, row->n_b, row->m.compared ? "" : " -- not compared");
      for (int q = 0; row->m.compared && q < EMLAT_REPORT_COMPARE_QUANTILES; q++)
        {
          const struct emlat_report_cmp_quantile *cq = &row->m.q[q];
          char va[REPORT_DUR_LEN], vb[REPORT_DUR_LEN], dd[REPORT_DUR_LEN], lo[REPORT_DUR_LEN],
              hi[REPORT_DUR_LEN], iv[48];
          snprintf (iv, sizeof iv, "[%s, %s]", report_fmt_sdur (cq->ci.lo, lo),
                    report_fmt_sdur (cq->ci.hi, hi));
          fprintf (f, "    %-6s %7s %7s %8s  %-19s %s\n", emlat_report_quantile_names[q],
                   report_fmt_dur (cq->a, va), report_fmt_dur (cq->b, vb),
                   report_fmt_sdur (cq->ci.delta, dd), iv,
                   cq->verdict == EMLAT_VERDICT_SAME ? "no sig. change"
                                                     : emlat_report_verdict_name (cq->verdict));
        }
    }
}

void
compare_json_names (struct emlat_json *j, const struct emlat_profile *pa,
                    const struct emlat_profile *pb, const struct emlat_report_name_comparison *nc)
{
  emlat_json_key (j, "names");
  if (!nc->has)
    {
      emlat_json_null (j);
      return;
    }
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "metric", emlat_report_metric_name (EMLAT_REPORT_NAME_METRIC));
  emlat_json_kv_u64 (j, "groups_compared", nc->n_compared);
  emlat_json_key (j, "groups");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < nc->n; i++)
    {
      const struct emlat_report_cmp_name *row = &nc->rows[i];
      char name[REPORT_NAME_LEN];
      emlat_json_begin_object (j);
      emlat_json_kv_str (j, "root_kind", report_kind_key (row->root_kind));
      emlat_json_kv_str (j, "name", row->has_name ? row_name (pa, pb, row, name, sizeof name) : NULL);
      emlat_json_kv_u64 (j, "n_a", row->n_a);
      emlat_json_kv_u64 (j, "n_b", row->n_b);
      emlat_json_key (j, "compared");
      emlat_json_bool (j, row->m.compared);
      emlat_json_key (j, "quantiles");
      emlat_json_begin_array (j);
      for (int q = 0; row->m.compared && q < EMLAT_REPORT_COMPARE_QUANTILES; q++)
        {
          const struct emlat_report_cmp_quantile *cq = &row->m.q[q];
          emlat_json_begin_object (j);
          emlat_json_kv_str (j, "quantile", emlat_report_quantile_names[q]);
          emlat_json_kv_u64 (j, "a_ns", cq->a);
          emlat_json_kv_u64 (j, "b_ns", cq->b);
          emlat_json_key (j, "delta_ns");
          emlat_json_i64 (j, cq->ci.delta);
          emlat_json_key (j, "ci_low_ns");
          emlat_json_i64 (j, cq->ci.lo);
          emlat_json_key (j, "ci_high_ns");
          emlat_json_i64 (j, cq->ci.hi);
          emlat_json_kv_str (j, "verdict", cq->verdict == EMLAT_VERDICT_FASTER   ? "faster"
                                           : cq->verdict == EMLAT_VERDICT_SLOWER ? "slower"
                                                                                 : "no_change");
          emlat_json_end_object (j);
        }
      emlat_json_end_array (j);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_end_object (j);
}

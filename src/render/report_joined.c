/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_joined.c -- the outside view joined with the inside one, in the
 * text report (the section right after the first screen) and in JSON (the
 * top-level "joined" member): the driver's file, how the sends and the
 * program's interactions matched (docs/REPLAY.md "Joining the two
 * profiles"), the agreement figures overall and per root kind, the keys
 * outside the bounds and the slowest keys seen from outside
 * (docs/REPORT.md "The outside view").  The HTML section is
 * report_html_joined.c.
 *
 * Invariants: nothing is printed, and "joined" is null, when the report
 * is not joined; every text line is at most 80 columns; an absent value
 * is "-" (JSON null), never 0.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "render/json.h"
#include "render/report_fmt.h"
#include "render/report_render.h"

/* Keys listed per kind of disagreement in the text, and slowest keys. */
#define JOINED_TEXT_OUTSIDE 10
#define JOINED_TEXT_SLOWEST 5

static double
share (uint64_t k, uint64_t n)
{
  return n ? 100.0 * (double)k / (double)n : 0.0;
}

static const char *
opt_dur (int has, uint64_t ns, char d[REPORT_DUR_LEN])
{
  return has ? report_fmt_dur (ns, d) : "-";
}

/* The indexes of the N slowest comparable-or-not pairs by external
   latency, slowest first, into OUT. */
static size_t
slowest_keys (const struct emlat_report_join *j, size_t *out, size_t n)
{
  size_t k = 0;
  for (size_t i = 0; i < j->n_pairs; i++)
    {
      const struct emlat_report_join_pair *q = &j->pairs[i];
      if (!(q->mask & EMLAT_JOIN_HAS_EXTERNAL))
        continue;
      size_t at = k < n ? k++ : n;
      while (at > 0 && j->pairs[out[at - 1]].external < q->external)
        {
          if (at < n)
            out[at] = out[at - 1];
          at--;
        }
      if (at < n)
        out[at] = i;
    }
  return k;
}

static void
text_pair (FILE *f, const struct emlat_report_join_pair *q)
{
  char a[REPORT_DUR_LEN], b[REPORT_DUR_LEN], d[REPORT_DUR_LEN], e[REPORT_DUR_LEN];
  const char *ag = emlat_report_agree_name (q->agree);
  int cmp = q->agree != EMLAT_AGREE_NONE;
  fprintf (f, "  %7" PRIu64 " %7" PRIu64 " %-12.12s %7s %7s %7s %8s %s%s\n", q->send, q->cause,
           report_kind_label (q->root_kind), opt_dur (q->mask & EMLAT_JOIN_HAS_EXTERNAL, q->external, a),
           opt_dur (q->mask & EMLAT_JOIN_HAS_LOWER, q->lower, b),
           opt_dur (q->mask & EMLAT_JOIN_HAS_UPPER, q->upper, d),
           cmp ? report_fmt_sdur ((int64_t)(q->external - q->lower), e) : "-", ag ? ag : "-",
           q->by_order ? " (order)" : "");
}

static void
text_pairs_header (FILE *f)
{
  fprintf (f, "  %7s %7s %-12s %7s %7s %7s %8s %s\n", "send", "cause", "root kind", "outside",
           "lower", "upper", "out-low", "agreement");
}

void
report_text_joined (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_join *j = c->join;
  if (!j || !j->joined)
    return;
  size_t nf;
  const struct emlat_file_summary *fs = emlat_profile_files (c->pd, &nf);
  const struct emlat_file_header *h = emlat_profile_header (c->pd);
  char uuid[37] = "unknown", wl[64];
  if (h)
    emlat_uuid_format (h->uuid, uuid);
  const char *w = report_session_str (c->pd, "replay.workload", wl, sizeof wl);
  fprintf (f, "\nThe outside view: what emlat replay measured, beside the bounds above\n");
  fprintf (f, "  driver session %s, workload %.16s,\n  %zu file%s:\n", uuid, w ? w : "-", nf,
           nf == 1 ? "" : "s");
  for (size_t i = 0; i < nf; i++)
    fprintf (f, "    %s%s\n", fs[i].path, fs[i].ignored ? " (ignored)" : "");
  fprintf (f, "  key sends: %" PRIu64 ", %" PRIu64 " matched, %" PRIu64 " with no interaction",
           j->sends, j->sends_matched, j->sends_unmatched);
  if (j->sends_resize)
    fprintf (f, "; %" PRIu64 " resizes (not matched)", j->sends_resize);
  fprintf (f, "\n  program interactions: %" PRIu64 ", %" PRIu64 " matched, %" PRIu64
              " with input matched to no send\n  (start-up answers, the rest of a key read in "
              "pieces), %" PRIu64 " not keys (timers, ...)\n",
           j->program_ix, j->program_matched, j->program_not_sent, j->program_no_input);
  if (j->by_order)
    fprintf (f, "  %" PRIu64 " matches decided by order, marked (order): the key was read "
                "after\n  the next was sent\n", j->by_order);
  const struct emlat_report_join_group *all = &j->g[EMLAT_REPORT_JOIN_ALL];
  if (!all->n_cmp)
    {
      fprintf (f, "  no matched key has an outside latency and both bounds\n");
      return;
    }
  char a[REPORT_DUR_LEN], b[REPORT_DUR_LEN], d[REPORT_DUR_LEN];
  fprintf (f, "  agreement, %" PRIu64 " keys with the outside latency and both bounds:\n"
              "    %.1f%% inside (lower <= outside <= upper), %.1f%% below the lower bound,\n"
              "    %.1f%% above the upper bound\n",
           all->n_cmp, share (all->inside, all->n_cmp), share (all->below, all->n_cmp),
           share (all->above, all->n_cmp));
  fprintf (f, "    outside minus lower bound: median %s, p99 %s, min %s\n",
           report_fmt_sdur (all->diff_median, a), report_fmt_sdur (all->diff_p99, b),
           report_fmt_sdur (all->diff_min, d));
  fprintf (f, "  %-13s %5s %6s %5s %5s %7s %7s %7s %7s %7s\n", "root kind", "keys", "inside",
           "below", "above", "outside", "lower", "upper", "out-low", "out-low");
  fprintf (f, "  %-13s %5s %6s %5s %5s %7s %7s %7s %7s %7s\n", "", "", "", "", "", "median",
           "median", "median", "median", "p99");
  for (unsigned k = 0; k < EMLAT_REPORT_KINDS; k++)
    {
      const struct emlat_report_join_group *g = &j->g[k];
      if (!g->n)
        continue;
      char e[REPORT_DUR_LEN], x[REPORT_DUR_LEN];
      int has = g->n_cmp > 0;
      fprintf (f, "  %-13.13s %5" PRIu64 " %5.1f%% %5" PRIu64 " %5" PRIu64 " %7s %7s %7s %7s %7s\n",
               report_kind_label (k), g->n_cmp, share (g->inside, g->n_cmp), g->below, g->above,
               opt_dur (has, g->external.p50, a), opt_dur (has, g->lower.p50, b),
               opt_dur (has, g->upper.p50, d), has ? report_fmt_sdur (g->diff_median, e) : "-",
               has ? report_fmt_sdur (g->diff_p99, x) : "-");
    }
  fprintf (f, "  outside: the driver's send to its first sight of output; lower, upper:\n"
              "  the program's bounds of the same key (\"How fast is it?\")\n");
  for (int kind = EMLAT_AGREE_BELOW; kind <= EMLAT_AGREE_ABOVE; kind++)
    {
      uint64_t total = kind == EMLAT_AGREE_BELOW ? all->below : all->above;
      if (!total)
        continue;
      fprintf (f, "  keys %s the %s bound%s:\n", kind == EMLAT_AGREE_BELOW ? "below" : "above",
               kind == EMLAT_AGREE_BELOW ? "lower" : "upper",
               total > JOINED_TEXT_OUTSIDE ? " (the first 10; --json has all)" : "");
      text_pairs_header (f);
      size_t shown = 0;
      for (size_t i = 0; i < j->n_pairs && shown < JOINED_TEXT_OUTSIDE; i++)
        if (j->pairs[i].agree == (enum emlat_report_agree)kind)
          {
            text_pair (f, &j->pairs[i]);
            shown++;
          }
    }
  size_t idx[JOINED_TEXT_SLOWEST];
  size_t ns = slowest_keys (j, idx, JOINED_TEXT_SLOWEST);
  if (ns)
    {
      fprintf (f, "  the %zu slowest keys seen from outside:\n", ns);
      text_pairs_header (f);
      for (size_t i = 0; i < ns; i++)
        text_pair (f, &j->pairs[idx[i]]);
    }
}

static void
json_group (struct emlat_json *j, const struct emlat_report_join_group *g)
{
  int has = g->n_cmp > 0;
  emlat_json_kv_u64 (j, "keys", g->n);
  emlat_json_kv_u64 (j, "compared", g->n_cmp);
  emlat_json_kv_u64 (j, "inside", g->inside);
  emlat_json_kv_u64 (j, "below", g->below);
  emlat_json_kv_u64 (j, "above", g->above);
  const char *shares[3] = { "inside_share", "below_share", "above_share" };
  uint64_t counts[3] = { g->inside, g->below, g->above };
  for (int i = 0; i < 3; i++)
    {
      emlat_json_key (j, shares[i]);
      if (has)
        emlat_json_double (j, (double)counts[i] / (double)g->n_cmp);
      else
        emlat_json_null (j);
    }
  emlat_json_key (j, "external_ns");
  report_json_dist (j, &g->external);
  emlat_json_key (j, "lower_ns");
  report_json_dist (j, &g->lower);
  emlat_json_key (j, "upper_ns");
  report_json_dist (j, &g->upper);
  const char *dk[3] = { "external_minus_lower_median_ns", "external_minus_lower_p99_ns",
                        "external_minus_lower_min_ns" };
  int64_t dv[3] = { g->diff_median, g->diff_p99, g->diff_min };
  for (int i = 0; i < 3; i++)
    {
      emlat_json_key (j, dk[i]);
      if (has)
        emlat_json_i64 (j, dv[i]);
      else
        emlat_json_null (j);
    }
}

void
report_json_joined (struct emlat_json *j, const struct report_ctx *c)
{
  const struct emlat_report_join *jn = c->join;
  emlat_json_key (j, "joined");
  if (!jn || !jn->joined)
    {
      emlat_json_null (j);
      return;
    }
  emlat_json_begin_object (j);
  const struct emlat_file_header *h = emlat_profile_header (c->pd);
  char uuid[37], wl[64];
  if (h)
    emlat_uuid_format (h->uuid, uuid);
  emlat_json_kv_str (j, "driver_session", h ? uuid : NULL);
  size_t nf;
  const struct emlat_file_summary *fs = emlat_profile_files (c->pd, &nf);
  emlat_json_key (j, "driver_files");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < nf; i++)
    emlat_json_str (j, fs[i].path);
  emlat_json_end_array (j);
  emlat_json_kv_str (j, "workload", report_session_str (c->pd, "replay.workload", wl, sizeof wl));
  emlat_json_kv_u64 (j, "sends", jn->sends);
  emlat_json_kv_u64 (j, "sends_matched", jn->sends_matched);
  emlat_json_kv_u64 (j, "sends_unmatched", jn->sends_unmatched);
  emlat_json_kv_u64 (j, "sends_resize", jn->sends_resize);
  emlat_json_kv_u64 (j, "program_interactions", jn->program_ix);
  emlat_json_kv_u64 (j, "program_matched", jn->program_matched);
  emlat_json_kv_u64 (j, "program_input_unmatched", jn->program_not_sent);
  emlat_json_kv_u64 (j, "program_no_input", jn->program_no_input);
  emlat_json_kv_u64 (j, "matched_by_order", jn->by_order);
  emlat_json_key (j, "all");
  emlat_json_begin_object (j);
  json_group (j, &jn->g[EMLAT_REPORT_JOIN_ALL]);
  emlat_json_end_object (j);
  emlat_json_key (j, "by_root_kind");
  emlat_json_begin_array (j);
  for (unsigned k = 0; k < EMLAT_REPORT_KINDS; k++)
    if (jn->g[k].n)
      {
        emlat_json_begin_object (j);
        emlat_json_kv_str (j, "root_kind", report_kind_key (k));
        json_group (j, &jn->g[k]);
        emlat_json_end_object (j);
      }
  emlat_json_end_array (j);
  emlat_json_key (j, "keys");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < jn->n_pairs; i++)
    {
      const struct emlat_report_join_pair *q = &jn->pairs[i];
      emlat_json_begin_object (j);
      emlat_json_kv_u64 (j, "send", q->send);
      emlat_json_kv_u64 (j, "cause", q->cause);
      emlat_json_kv_str (j, "root_kind", report_kind_key (q->root_kind));
      emlat_json_kv_u64 (j, "t_external_send", q->t_send);
      emlat_json_kv_u64_opt (j, "external_ns", q->mask & EMLAT_JOIN_HAS_EXTERNAL, q->external);
      emlat_json_kv_u64_opt (j, "latency_lower_ns", q->mask & EMLAT_JOIN_HAS_LOWER, q->lower);
      emlat_json_kv_u64_opt (j, "latency_upper_ns", q->mask & EMLAT_JOIN_HAS_UPPER, q->upper);
      emlat_json_key (j, "by_order");
      emlat_json_bool (j, q->by_order);
      emlat_json_kv_str (j, "agreement", emlat_report_agree_name (q->agree));
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_end_object (j);
}

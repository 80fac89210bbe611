/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_html.c -- `emlat report --html OUT.html`: the report as one
 * self-contained page: inline CSS, inline SVG (report_svg.c), one inline
 * script and its JSON data (report_html_timeline.c, report_html_script.c),
 * no font, no image, no link to anything outside the file, so it opens
 * offline and leaks nothing when viewed.  Without script the page shows
 * everything but the zoomable timeline and the waterfall of a clicked
 * interaction.
 *
 * Element ids tests rely on (docs/REPORT.md "HTML"): summary,
 * n-interactions; headline (the first screen, report_headline.c);
 * timeline-section, timeline-overview, timeline, timeline-sampling,
 * interaction, ix-waterfall, emlat-data; per group KIND-POP (e.g.
 * tty_command-flushed): group-, stats-, cdf-, hist-; tail, waterfall,
 * split; slowest; overhead; losses; unavailable.  Every duration cell
 * carries its exact value in data-ns (and in its tooltip).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "render/report_fmt.h"
#include "render/report_render.h"
#include "render/report_svg.h"
#include "render/report_app_render.h"
#include "render/report_res_render.h"
#include "render/report_headline.h"
#include "render/report_html_timeline.h"

#define HTML_MAX_LOSS_ROWS 10000

static const char css[] =
  "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
  "h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}"
  "h3{font-size:15px;margin:18px 0 6px}"
  "table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 8px;text-align:right;"
  "border-bottom:1px solid #eee}th{background:#f4f4f4}td.l,th.l{text-align:left}"
  ".charts{display:flex;flex-wrap:wrap;gap:8px}"
  "svg.chart{background:#fff;border:1px solid #ddd}"
  ".plot{fill:#fafafa;stroke:#ccc}.grid{stroke:#e4e4e4}"
  ".tick,.lbl{font:11px sans-serif;fill:#555}.ct{font:13px sans-serif;fill:#222}"
  "rect.span{fill:#4a78c2}rect.phase{fill:#8fb0e0}rect.input{fill:#e0a040;opacity:.7}"
  "rect.open{fill:#c24a4a}.note{color:#666}.bad{color:#b00}"
  "#tip{position:fixed;display:none;z-index:9;pointer-events:none;white-space:pre;"
  "background:#222;color:#fff;font:12px/1.35 ui-monospace,monospace;padding:5px 8px;"
  "border-radius:4px;max-width:600px;box-shadow:0 2px 6px rgba(0,0,0,.3)}"
  ".tlbar{margin:6px 0}.tlbar button{font:13px sans-serif;min-width:32px;margin-right:4px}"
  "svg.timeline{cursor:grab;user-select:none}.mk{cursor:pointer}.mk.sel{stroke:#000;stroke-width:2}"
  ".mk:hover{stroke:#000}.thr{stroke:#d44;stroke-dasharray:4 3;opacity:.6}"
  ".thrl{font:10px sans-serif;fill:#c33}.brush{fill:#2f6fd0;opacity:.15}"
  "rect.bin{fill:#7a9cd6}rect.bin:hover,rect.wfrow:hover,rect.span:hover{fill:#e08a2f}"
  ".legend span{margin-right:14px;font-size:12px;white-space:nowrap}"
  ".legend i{display:inline-block;width:10px;height:10px;margin-right:4px}"
  "circle.pt{fill:transparent}circle.pt:hover{fill:#222}"
  "tr.clickable{cursor:pointer}tr.clickable:hover{background:#eef3fb}";

static const char *const pop_color[EMLAT_POP_COUNT] = { "#2f6fd0", "#777777", "#d07a2f" };

static void
esc (FILE *f, const char *s)
{
  report_html_escape (f, s, strlen (s));
}

void
report_html_dur_cell (FILE *f, int has, uint64_t ns)
{
  char d[REPORT_DUR_LEN];
  if (has)
    fprintf (f, "<td data-ns=\"%" PRIu64 "\" title=\"%" PRIu64 " ns\">%s</td>", ns, ns,
             report_fmt_dur (ns, d));
  else
    fprintf (f, "<td class=\"na\">&ndash;</td>");
}

static void
summary (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_model *m = c->m;
  size_t nf;
  const struct emlat_file_summary *fs = emlat_profile_files (c->p, &nf);
  const struct emlat_file_header *h = emlat_profile_header (c->p);
  char uuid[37] = "unknown", buf[256], d[REPORT_DUR_LEN];
  if (h)
    emlat_uuid_format (h->uuid, uuid);
  fprintf (f, "<section id=\"summary\"><p>Session <code>%s</code>, %zu file%s:", uuid, nf,
           nf == 1 ? "" : "s");
  for (size_t i = 0; i < nf; i++)
    {
      fprintf (f, " <code>");
      esc (f, fs[i].path);
      fprintf (f, "</code>%s", fs[i].ignored ? " (ignored)" : "");
    }
  fprintf (f, "</p>\n");
  if (report_session_str (c->p, "program.name", buf, sizeof buf))
    {
      fprintf (f, "<p>Program: ");
      esc (f, buf);
      if (report_session_str (c->p, "program.version", buf, sizeof buf))
        {
          fputc (' ', f);
          esc (f, buf);
        }
      fprintf (f, "</p>\n");
    }
  char ended[REPORT_ENDED_LEN];
  if (c->ovh.mask >> EMLAT_OVH_SESSION_NS & 1u)
    fprintf (f, "<p>Recorded %s%s%s.</p>\n", report_fmt_dur (c->ovh.v[EMLAT_OVH_SESSION_NS], d),
             c->ovh.final_stats ? ", stopped cleanly" : ", not stopped cleanly",
             report_fmt_ended (c->ovh.exit_known, c->ovh.exit_signal, c->ovh.exit_code, ended));
  fprintf (f, "<p><span id=\"n-interactions\" data-value=\"%" PRIu64 "\">%" PRIu64
              "</span> interactions: <span data-value=\"%" PRIu64 "\">%" PRIu64
              "</span> flushed, <span data-value=\"%" PRIu64 "\">%" PRIu64
              "</span> without output, <span data-value=\"%" PRIu64 "\">%" PRIu64
              "</span> superseded.</p>\n",
           m->n_ix, m->n_ix, m->n_pop[0], m->n_pop[0], m->n_pop[1], m->n_pop[1], m->n_pop[2],
           m->n_pop[2]);
  if (c->damaged)
    fprintf (f, "<p class=\"bad\">Reading lost data (damaged or missing files): this report "
                "covers what was readable.</p>\n");
  fprintf (f, "<p class=\"note\">Percentiles are nearest-rank (the sample at rank "
              "&lceil;p&middot;n&rceil;); p99.9 only when n &ge; %u. Populations: "
              "<em>superseded</em> = status superseded; <em>flushed</em> = a stdio flush "
              "(or replay's first output) completed; <em>no output</em> = the rest.</p>"
              "</section>\n",
           EMLAT_REPORT_P999_MIN_N);
}

static void
group (const struct report_ctx *c, const struct emlat_report_group *g, FILE *f)
{
  char id[96], label[128], kbuf[40];
  const char *kk = report_kind_key (g->root_kind), *pk = emlat_report_pop_key (g->pop);
  if (g->name)
    {
      /* An application group: its id carries the name's string id. */
      snprintf (kbuf, sizeof kbuf, "application-%" PRIu64, g->name);
      kk = kbuf;
    }
  fprintf (f, "<div class=\"group\" id=\"group-%s-%s\"><h3>", kk, pk);
  esc (f, report_group_label (c, g, label, sizeof label));
  fprintf (f, " &middot; %s: %" PRIu64 " interaction%s</h3>\n", emlat_report_pop_label (g->pop),
           g->n, g->n == 1 ? "" : "s");
  fprintf (f, "<table id=\"stats-%s-%s\"><tr><th class=\"l\">metric</th><th>n</th><th>min</th>"
              "<th>median</th><th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th>"
              "<th>mean</th><th>total</th></tr>\n",
           kk, pk);
  for (int i = 0; i < EMLAT_RM_COUNT; i++)
    {
      const struct emlat_report_dist *d = &g->d[i];
      if (!d->n)
        continue;
      fprintf (f, "<tr data-metric=\"%s\"><td class=\"l\" title=\"%s\">%s</td><td>%" PRIu64 "</td>",
               emlat_report_metric_name ((enum emlat_report_metric)i),
               emlat_report_metric_name ((enum emlat_report_metric)i),
               emlat_report_metric_label ((enum emlat_report_metric)i), d->n);
      report_html_dur_cell (f, 1, d->min);
      report_html_dur_cell (f, 1, d->p50);
      report_html_dur_cell (f, 1, d->p90);
      report_html_dur_cell (f, 1, d->p95);
      report_html_dur_cell (f, 1, d->p99);
      report_html_dur_cell (f, d->has_p999, d->p999);
      report_html_dur_cell (f, 1, d->max);
      report_html_dur_cell (f, 1, (uint64_t)(d->mean + 0.5));
      report_html_dur_cell (f, !d->total_saturated, d->total);
      fprintf (f, "</tr>\n");
    }
  fprintf (f, "</table>\n");
  int lead = emlat_report_group_primary (g);
  if (lead >= 0)
    {
      const struct emlat_report_series *s = &g->s[lead];
      char title[160];
      fprintf (f, "<div class=\"charts\">\n");
      snprintf (id, sizeof id, "cdf-%s-%s", kk, pk);
      snprintf (title, sizeof title, "CDF of %s", emlat_report_metric_label ((enum emlat_report_metric)lead));
      report_svg_cdf (f, id, title, s->v, s->n, pop_color[g->pop]);
      snprintf (id, sizeof id, "hist-%s-%s", kk, pk);
      snprintf (title, sizeof title, "histogram of %s",
                emlat_report_metric_label ((enum emlat_report_metric)lead));
      report_svg_hist (f, id, title, s->v, s->n, pop_color[g->pop]);
      fprintf (f, "</div>\n");
    }
  else
    fprintf (f, "<p class=\"note\">No latency metric has its boundaries here.</p>\n");
  fprintf (f, "</div>\n");
}

static void
tail (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_waterfall *w = c->w;
  fprintf (f, "<section id=\"tail\"><h2>Tail interaction</h2>\n");
  if (!w)
    {
      fprintf (f, "<p>None: no interaction has the boundaries a waterfall needs.</p></section>\n");
      return;
    }
  char d[REPORT_DUR_LEN];
  unsigned kind = w->root_kind <= EMLAT_ROOT_KIND_MAX ? w->root_kind : 0;
  char label[128];
  fprintf (f, "<p>Cause <b id=\"tail-cause\" data-value=\"%" PRIu64 "\">%" PRIu64 "</b> (",
           w->cause, w->cause);
  esc (f, report_ix_label (c, w->cause, kind, label, sizeof label));
  fprintf (f, ", %s, status %s)", emlat_report_pop_label (w->pop), emlat_status_name (w->status));
  if (strcmp (c->w_why, "tail") == 0)
    fprintf (f, ", the p99 of %s: rank %" PRIu64 " of %" PRIu64 ", %s",
             emlat_report_metric_name (c->m->tail.metric), c->m->tail.rank, c->m->tail.n,
             report_fmt_dur (c->m->tail.value, d));
  fprintf (f, ".</p>\n");
  if (w->n_rows)
    report_svg_waterfall (f, "waterfall", w);
  fprintf (f, "<table id=\"split\"><tr><th class=\"l\">part of the wall time</th><th>time</th>"
              "</tr>\n<tr><td class=\"l\">wall time</td>");
  report_html_dur_cell (f, w->has_wall, w->wall);
  fprintf (f, "</tr>\n<tr><td class=\"l\">main-thread CPU</td>");
  report_html_dur_cell (f, w->has_cpu, w->cpu);
  uint64_t c0 = 0, c1 = 0;
  if (report_cpu_window_row (w, &c0, &c1))
    {
      fprintf (f, "</tr>\n<tr><td class=\"l\">dispatch to end (the CPU readings' interval: "
                  "waits and off-CPU are of it)</td>");
      report_html_dur_cell (f, 1, c1 - c0);
    }
  fprintf (f, "</tr>\n<tr><td class=\"l\">measured waits (%zu spans)</td>", w->n_wait_spans);
  report_html_dur_cell (f, 1, w->waits);
  fprintf (f, "</tr>\n<tr><td class=\"l\">unknown off-CPU%s</td>",
           w->has_unknown && w->excess ? " (clamped at 0)" : "");
  report_html_dur_cell (f, w->has_unknown, w->unknown);
  fprintf (f, "</tr>\n<tr><td class=\"l\">TTY emission (part of wall)</td>");
  report_html_dur_cell (f, w->has_tty_emit, w->tty_emit);
  fprintf (f, "</tr></table>\n");
  fprintf (f, "<table id=\"counters\"><tr><th class=\"l\">counter</th><th>interaction</th>"
              "<th>sum over spans</th></tr>\n");
  for (unsigned k = 0; k < EMLAT_C_COUNTER_COUNT; k++)
    {
      int own = w->counter_mask >> k & 1u, sp = w->span_counter_mask >> k & 1u;
      if (!own && !sp)
        continue;
      fprintf (f, "<tr><td class=\"l\">%s</td>", emlat_counter_name (k));
      if (own)
        fprintf (f, "<td>%" PRIu64 "</td>", w->counters[k]);
      else
        fprintf (f, "<td>&ndash;</td>");
      if (sp)
        fprintf (f, "<td>%" PRIu64 "</td>", w->span_counters[k]);
      else
        fprintf (f, "<td>&ndash;</td>");
      fprintf (f, "</tr>\n");
    }
  fprintf (f, "</table></section>\n");
}

static void
slowest (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_model *m = c->m;
  fprintf (f, "<section id=\"slowest\"><h2>Slowest interactions</h2>\n");
  if (!m->tail.has)
    {
      fprintf (f, "<p>None.</p></section>\n");
      return;
    }
  int names = c->names && c->names->has;
  fprintf (f, "<table><tr><th>cause</th><th class=\"l\">root kind</th><th class=\"l\">"
              "population</th><th class=\"l\">status</th><th>%s</th>%s</tr>\n",
           emlat_report_metric_label (m->tail.metric), names ? "<th class=\"l\">name</th>" : "");
  for (size_t i = 0; i < m->tail.n_slow; i++)
    {
      const struct emlat_interaction *ix = emlat_profile_find_interaction (c->p, m->tail.slow[i].cause);
      if (!ix)
        continue;
      struct emlat_report_times t;
      emlat_report_times_from_profile (c->p, ix, &t);
      char label[128];
      fprintf (f, "<tr data-cause=\"%" PRIu64 "\"><td>%" PRIu64 "</td><td class=\"l\">",
               ix->cause, ix->cause);
      esc (f, report_ix_label (c, ix->cause,
                               ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0, label,
                               sizeof label));
      fprintf (f, "</td><td class=\"l\">%s</td><td class=\"l\">%s</td>",
               emlat_report_pop_label (emlat_report_population (&t)), emlat_status_name (ix->status));
      report_html_dur_cell (f, 1, m->tail.slow[i].value);
      if (names)
        {
          char name[REPORT_NAME_LEN];
          const char *nm = report_ix_name (c, ix->cause, name, sizeof name);
          fprintf (f, "<td class=\"l\">");
          esc (f, nm ? nm : "-");
          fprintf (f, "</td>");
        }
      fprintf (f, "</tr>\n");
    }
  fprintf (f, "</table></section>\n");
}

static void
overhead (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_overhead *o = &c->ovh;
  fprintf (f, "<section id=\"overhead\"><h2>Profiler overhead and loss</h2>\n<table>\n");
  for (int k = 0; k < EMLAT_OVH_COUNT; k++)
    {
      fprintf (f, "<tr><td class=\"l\">%s</td>", emlat_report_ovh_name ((enum emlat_report_ovh_field)k));
      if (!(o->mask >> k & 1u))
        fprintf (f, "<td>not recorded</td>");
      else if (k == EMLAT_OVH_WRITER_CPU_NS || k == EMLAT_OVH_SESSION_NS)
        report_html_dur_cell (f, 1, o->v[k]);
      else
        fprintf (f, "<td data-value=\"%" PRIu64 "\">%" PRIu64 "</td>", o->v[k], o->v[k]);
      fprintf (f, "</tr>\n");
    }
  if (o->has_writer_share)
    fprintf (f, "<tr><td class=\"l\">writer CPU share of one core</td><td>%.3f%%</td></tr>\n",
             100.0 * o->writer_share);
  fprintf (f, "<tr><td class=\"l\">writer ran in the driver</td><td>%s</td></tr>\n",
           o->writer_in_driver ? "yes (its CPU was not the program's)" : "no");
  fprintf (f, "<tr><td class=\"l\">stopped cleanly (final STATS)</td><td>%s</td></tr>\n",
           o->final_stats ? "yes" : "no");
  char how[REPORT_EXIT_LEN];
  fprintf (f, "<tr><td class=\"l\">how the program ended</td><td>%s</td></tr>\n",
           o->exit_known ? report_fmt_exit (o->exit_signal, o->exit_code, how) : "not recorded");
  fprintf (f, "</table>\n");

  size_t n, nf;
  const struct emlat_loss_entry *l = emlat_profile_losses (c->p, &n);
  emlat_profile_files (c->p, &nf);
  const struct emlat_profile_totals *t = emlat_profile_totals (c->p);
  fprintf (f, "<div id=\"losses\" data-loss-records=\"%" PRIu64 "\" data-lost-records=\"%" PRIu64
              "\">\n",
           t->loss_records, t->lost_records);
  if (!t->loss_records)
    fprintf (f, "<p>No LOSS records: the recorder lost nothing it knew of.</p>\n");
  else
    {
      fprintf (f, "<p class=\"bad\">%" PRIu64 " LOSS records: %" PRIu64 " records (%" PRIu64
                  " bytes) lost.</p>\n<table><tr><th>stream</th><th class=\"l\">reason</th>"
                  "<th>first (ns)</th><th>last (ns)</th><th>records</th><th>bytes</th></tr>\n",
               t->loss_records, t->lost_records, t->lost_bytes);
      for (size_t i = 0; i < n && i < HTML_MAX_LOSS_ROWS; i++)
        fprintf (f, "<tr><td>%" PRIu64 "</td><td class=\"l\">%s</td><td>%" PRIu64 "</td><td>%" PRIu64
                    "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n",
                 l[i].loss.stream, emlat_loss_reason_name (l[i].loss.reason), l[i].loss.first,
                 l[i].loss.last, l[i].loss.records, l[i].loss.bytes);
      fprintf (f, "</table>\n");
      if (n > HTML_MAX_LOSS_ROWS)
        fprintf (f, "<p>%zu more LOSS records: see <code>emlat report --json</code>.</p>\n",
                 n - HTML_MAX_LOSS_ROWS);
    }
  fprintf (f, "</div></section>\n");
}

static void
unavailable (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_model *m = c->m;
  fprintf (f, "<section id=\"unavailable\"><h2>Unavailable boundaries</h2>\n"
              "<table><tr><th class=\"l\">field</th><th>flushed</th><th>no output</th>"
              "<th>superseded</th></tr>\n<tr><td class=\"l\">(interactions)</td><td>%" PRIu64
              "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n",
           m->n_pop[0], m->n_pop[1], m->n_pop[2]);
  for (unsigned fld = 0; fld < EMLAT_REPORT_BOUNDARIES; fld++)
    {
      uint64_t miss[EMLAT_POP_COUNT];
      if (!emlat_report_boundary_missing (m, fld, miss))
        continue;
      const char *name = emlat_report_boundary_name (fld);
      fprintf (f, "<tr data-field=\"%s\"><td class=\"l\">%s</td><td>%" PRIu64 "</td><td>%" PRIu64
                  "</td><td>%" PRIu64 "</td></tr>\n",
               name, name, miss[0], miss[1], miss[2]);
    }
  fprintf (f, "</table></section>\n");
}

int
report_html (const struct report_ctx *c, FILE *f)
{
  fprintf (f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<title>emlat report</title>\n<style>%s</style></head>\n<body>\n"
              "<h1>emlat report</h1>\n",
           css);
  summary (c, f);
  report_html_headline (c, f);
  if (report_html_timeline (c, f) != 0)
    return -1;
  report_html_joined (c, f);
  fprintf (f, "<section id=\"latency\"><h2>Latency by root kind and population</h2>\n");
  int any = 0;
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      if (c->m->g[k][q].n)
        {
          group (c, &c->m->g[k][q], f);
          any = 1;
        }
  if (!any)
    fprintf (f, "<p>No interactions were recorded.</p>\n");
  fprintf (f, "</section>\n");
  report_html_names (c, f);
  report_html_app (c, f);
  report_html_functions (c, f);
  report_html_resources (&c->res, f);
  tail (c, f);
  slowest (c, f);
  overhead (c, f);
  unavailable (c, f);
  report_html_script (f);
  fprintf (f, "</body></html>\n");
  return ferror (f) ? -1 : 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_app_render.c -- what the application API recorded, in the three
 * renderings of `emlat report` (docs/REPORT.md "Sections, counters and
 * events"): the named sections per name (count, total, percentiles), the
 * counters (samples, min, max, last), the instants per name, the async
 * slices and flows; and the labels of application interaction groups.
 *
 * Invariants: names go through report_names.h (printable text, escaped
 * HTML, JSON strings; "#ID" for an id the dictionary lacks); nothing is
 * printed when the profile has no application record, so the reports of
 * Emacs and terminal profiles are unchanged.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/report_app_render.h"
#include "render/report_fmt.h"
#include "render/report_names.h"
#include "render/report_svg.h"
#include "render/report_syms.h"

const char *
report_group_label (const struct report_ctx *c, const struct emlat_report_group *g, char *buf,
                    size_t n)
{
  if (!g->name)
    return report_kind_label (g->root_kind);
  char name[96];
  snprintf (buf, n, "%s (application)", report_name_text (c->p, g->name, name, sizeof name));
  return buf;
}

const char *
report_ix_label (const struct report_ctx *c, uint64_t cause, unsigned kind, char *buf, size_t n)
{
  const struct emlat_interaction *ix = emlat_profile_find_interaction (c->p, cause);
  if (!ix || !ix->name || kind != EMLAT_ROOT_APPLICATION)
    return report_kind_label (kind);
  char name[96];
  snprintf (buf, n, "%s (application)", report_name_text (c->p, ix->name, name, sizeof name));
  return buf;
}

int
report_app_empty (const struct emlat_report_app *a)
{
  return !a || (!a->n_sections && !a->n_counters && !a->n_instants && !a->async_begun
                && !a->async_ended && !a->flows_begun && !a->flows_ended);
}

/* ---- text ---------------------------------------------------------- */

void
report_text_app (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_app *a = c->app;
  if (report_app_empty (a))
    return;
  char name[40], d[6][REPORT_DUR_LEN];
  if (a->n_sections)
    {
      fprintf (f, "\nSections (application API): %zu name%s, %" PRIu64 " section%s\n",
               a->n_sections, a->n_sections == 1 ? "" : "s", a->n_section_samples,
               a->n_section_samples == 1 ? "" : "s");
      fprintf (f, "  %-24s %9s %9s %8s %8s %8s %8s %8s\n", "name", "count", "total", "min",
               "median", "p90", "p99", "max");
      for (size_t i = 0; i < a->n_sections; i++)
        {
          const struct emlat_report_section *s = &a->sections[i];
          fprintf (f, "  %-24s %9" PRIu64 " %9s %8s %8s %8s %8s %8s\n",
                   report_name_text (c->p, s->name, name, sizeof name), s->d.n,
                   s->d.total_saturated ? "-" : report_fmt_dur (s->d.total, d[0]),
                   report_fmt_dur (s->d.min, d[1]), report_fmt_dur (s->d.p50, d[2]),
                   report_fmt_dur (s->d.p90, d[3]), report_fmt_dur (s->d.p99, d[4]),
                   report_fmt_dur (s->d.max, d[5]));
        }
    }
  if (a->n_counters)
    {
      fprintf (f, "\nCounters (application API)\n");
      fprintf (f, "  %-24s %9s %14s %14s %14s\n", "name", "samples", "min", "max", "last");
      for (size_t i = 0; i < a->n_counters; i++)
        {
          const struct emlat_report_counter *k = &a->counters[i];
          report_name_text (c->p, k->name, name, sizeof name);
          if (k->floating)
            fprintf (f, "  %-24s %9" PRIu64 " %14.6g %14.6g %14.6g\n", name, k->n, k->fmin,
                     k->fmax, k->flast);
          else
            fprintf (f, "  %-24s %9" PRIu64 " %14" PRId64 " %14" PRId64 " %14" PRId64 "\n", name,
                     k->n, k->imin, k->imax, k->ilast);
        }
    }
  if (a->n_instants)
    {
      fprintf (f, "\nInstants (application API)\n");
      for (size_t i = 0; i < a->n_instants; i++)
        fprintf (f, "  %-24s %9" PRIu64 "\n",
                 report_name_text (c->p, a->instants[i].name, name, sizeof name),
                 a->instants[i].n);
    }
  if (a->async_begun || a->async_ended || a->flows_begun || a->flows_ended)
    fprintf (f, "\nAsync slices: %" PRIu64 " begun, %" PRIu64 " ended; flows: %" PRIu64
                " begun, %" PRIu64 " ended (the Chrome export draws them)\n",
             a->async_begun, a->async_ended, a->flows_begun, a->flows_ended);
}

/* ---- JSON ---------------------------------------------------------- */

static void
dist_obj (struct emlat_json *j, const struct emlat_report_dist *d)
{
  emlat_json_begin_object (j);
  emlat_json_kv_u64 (j, "count", d->n);
  emlat_json_kv_u64_opt (j, "total_ns", d->n && !d->total_saturated, d->total);
  emlat_json_kv_u64_opt (j, "min_ns", d->n, d->min);
  emlat_json_kv_u64_opt (j, "p50_ns", d->n, d->p50);
  emlat_json_kv_u64_opt (j, "p90_ns", d->n, d->p90);
  emlat_json_kv_u64_opt (j, "p95_ns", d->n, d->p95);
  emlat_json_kv_u64_opt (j, "p99_ns", d->n, d->p99);
  emlat_json_kv_u64_opt (j, "p999_ns", d->has_p999, d->p999);
  emlat_json_kv_u64_opt (j, "max_ns", d->n, d->max);
  emlat_json_end_object (j);
}

void
report_json_app (struct emlat_json *j, const struct report_ctx *c)
{
  const struct emlat_report_app *a = c->app;
  emlat_json_key (j, "application");
  if (!a)
    {
      emlat_json_null (j);
      return;
    }
  emlat_json_begin_object (j);
  emlat_json_key (j, "sections");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < a->n_sections; i++)
    {
      const struct emlat_report_section *s = &a->sections[i];
      emlat_json_begin_object (j);
      emlat_json_key (j, "name");
      report_name_json (j, c->p, s->name);
      emlat_json_kv_u64 (j, "name_id", s->name);
      emlat_json_key (j, "durations");
      dist_obj (j, &s->d);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_key (j, "counters");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < a->n_counters; i++)
    {
      const struct emlat_report_counter *k = &a->counters[i];
      emlat_json_begin_object (j);
      emlat_json_key (j, "name");
      report_name_json (j, c->p, k->name);
      emlat_json_kv_u64 (j, "name_id", k->name);
      emlat_json_kv_str (j, "type", k->floating ? "float" : "integer");
      emlat_json_kv_u64 (j, "samples", k->n);
      const char *keys[3] = { "min", "max", "last" };
      for (int q = 0; q < 3; q++)
        {
          emlat_json_key (j, keys[q]);
          if (k->floating)
            emlat_json_double (j, q == 0 ? k->fmin : q == 1 ? k->fmax : k->flast);
          else
            emlat_json_i64 (j, q == 0 ? k->imin : q == 1 ? k->imax : k->ilast);
        }
      emlat_json_kv_u64 (j, "t_first", k->t_first);
      emlat_json_kv_u64 (j, "t_last", k->t_last);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_key (j, "instants");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < a->n_instants; i++)
    {
      emlat_json_begin_object (j);
      emlat_json_key (j, "name");
      report_name_json (j, c->p, a->instants[i].name);
      emlat_json_kv_u64 (j, "name_id", a->instants[i].name);
      emlat_json_kv_u64 (j, "count", a->instants[i].n);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_kv_u64 (j, "async_begun", a->async_begun);
  emlat_json_kv_u64 (j, "async_ended", a->async_ended);
  emlat_json_kv_u64 (j, "flows_begun", a->flows_begun);
  emlat_json_kv_u64 (j, "flows_ended", a->flows_ended);
  emlat_json_end_object (j);
}

/* ---- HTML ---------------------------------------------------------- */

static void
html_name (FILE *f, const struct report_ctx *c, uint64_t id)
{
  char name[256];
  report_name_text (c->p, id, name, sizeof name);
  report_html_escape (f, name, strlen (name));
}

void
report_html_app (const struct report_ctx *c, FILE *f)
{
  const struct emlat_report_app *a = c->app;
  if (report_app_empty (a))
    return;
  char d[REPORT_DUR_LEN];
  fprintf (f, "<section id=\"application\"><h2>Sections, counters and events</h2>\n");
  if (a->n_sections)
    {
      fprintf (f, "<table id=\"sections\"><tr><th class=\"l\">section</th><th>count</th>"
                  "<th>total</th><th>min</th><th>median</th><th>p90</th><th>p99</th>"
                  "<th>max</th></tr>\n");
      for (size_t i = 0; i < a->n_sections; i++)
        {
          const struct emlat_report_section *s = &a->sections[i];
          fprintf (f, "<tr data-section=\"%" PRIu64 "\"><td class=\"l\">", s->name);
          html_name (f, c, s->name);
          fprintf (f, "</td><td>%" PRIu64 "</td>", s->d.n);
          const uint64_t v[6] = { s->d.total, s->d.min, s->d.p50, s->d.p90, s->d.p99, s->d.max };
          for (int k = 0; k < 6; k++)
            if (k == 0 && s->d.total_saturated)
              fprintf (f, "<td class=\"na\">&ndash;</td>");
            else
              fprintf (f, "<td data-ns=\"%" PRIu64 "\">%s</td>", v[k], report_fmt_dur (v[k], d));
          fprintf (f, "</tr>\n");
        }
      fprintf (f, "</table>\n");
    }
  if (a->n_counters)
    {
      fprintf (f, "<table id=\"counters\"><tr><th class=\"l\">counter</th><th>samples</th>"
                  "<th>min</th><th>max</th><th>last</th></tr>\n");
      for (size_t i = 0; i < a->n_counters; i++)
        {
          const struct emlat_report_counter *k = &a->counters[i];
          fprintf (f, "<tr><td class=\"l\">");
          html_name (f, c, k->name);
          if (k->floating)
            fprintf (f, "</td><td>%" PRIu64 "</td><td>%.6g</td><td>%.6g</td><td>%.6g</td></tr>\n",
                     k->n, k->fmin, k->fmax, k->flast);
          else
            fprintf (f, "</td><td>%" PRIu64 "</td><td>%" PRId64 "</td><td>%" PRId64
                        "</td><td>%" PRId64 "</td></tr>\n",
                     k->n, k->imin, k->imax, k->ilast);
        }
      fprintf (f, "</table>\n");
    }
  if (a->n_instants)
    {
      fprintf (f, "<table id=\"instants\"><tr><th class=\"l\">instant</th><th>count</th></tr>\n");
      for (size_t i = 0; i < a->n_instants; i++)
        {
          fprintf (f, "<tr><td class=\"l\">");
          html_name (f, c, a->instants[i].name);
          fprintf (f, "</td><td>%" PRIu64 "</td></tr>\n", a->instants[i].n);
        }
      fprintf (f, "</table>\n");
    }
  fprintf (f, "<p>Async slices: %" PRIu64 " begun, %" PRIu64 " ended; flows: %" PRIu64
              " begun, %" PRIu64 " ended.</p></section>\n",
           a->async_begun, a->async_ended, a->flows_begun, a->flows_ended);
}

/* ---- functions (-finstrument-functions) -------------------------------- */

#define FN_TOP 20

void
report_text_functions (const struct report_ctx *c, FILE *f)
{
  struct emlat_report_function *fn;
  size_t n;
  uint64_t others;
  if (emlat_report_functions (c->p, FN_TOP, &fn, &n, &others) != 0 || n == 0)
    {
      free (fn);
      return;
    }
  char d[3][REPORT_DUR_LEN];
  fprintf (f, "\nFunctions (-finstrument-functions), by inclusive time\n");
  fprintf (f, "  %-36s %9s %9s %9s %9s\n", "function", "calls", "total", "mean", "max");
  for (size_t i = 0; i < n; i++)
    {
      const char *name = report_syms_name (c->syms, fn[i].module, fn[i].offset);
      fprintf (f, "  %-36.36s %9" PRIu64 " %9s %9s %9s\n", name, fn[i].calls,
               fn[i].total_ns == UINT64_MAX ? "-" : report_fmt_dur (fn[i].total_ns, d[0]),
               report_fmt_dur (fn[i].total_ns / fn[i].calls, d[1]),
               report_fmt_dur (fn[i].max_ns, d[2]));
    }
  if (others)
    fprintf (f, "  (%" PRIu64 " more functions)\n", others);
  free (fn);
}

void
report_json_functions (struct emlat_json *j, const struct report_ctx *c)
{
  struct emlat_report_function *fn = NULL;
  size_t n = 0;
  uint64_t others = 0;
  int rc = emlat_report_functions (c->p, FN_TOP, &fn, &n, &others);
  emlat_json_key (j, "functions");
  if (rc != 0)
    {
      emlat_json_null (j);
      return;
    }
  emlat_json_begin_object (j);
  emlat_json_key (j, "top");
  emlat_json_begin_array (j);
  for (size_t i = 0; i < n; i++)
    {
      emlat_json_begin_object (j);
      emlat_json_kv_str (j, "name", report_syms_name (c->syms, fn[i].module, fn[i].offset));
      emlat_json_key (j, "module");
      report_name_json (j, c->p, fn[i].module);
      emlat_json_kv_u64 (j, "offset", fn[i].offset);
      emlat_json_kv_u64 (j, "calls", fn[i].calls);
      emlat_json_kv_u64_opt (j, "total_ns", fn[i].total_ns != UINT64_MAX, fn[i].total_ns);
      emlat_json_kv_u64 (j, "max_ns", fn[i].max_ns);
      emlat_json_end_object (j);
    }
  emlat_json_end_array (j);
  emlat_json_kv_u64 (j, "more", others);
  emlat_json_end_object (j);
  free (fn);
}

void
report_html_functions (const struct report_ctx *c, FILE *f)
{
  struct emlat_report_function *fn;
  size_t n;
  uint64_t others;
  if (emlat_report_functions (c->p, FN_TOP, &fn, &n, &others) != 0 || n == 0)
    {
      free (fn);
      return;
    }
  char d[REPORT_DUR_LEN];
  fprintf (f, "<section id=\"functions\"><h2>Functions (-finstrument-functions)</h2>\n"
              "<table><tr><th class=\"l\">function</th><th>calls</th><th>total</th><th>max</th></tr>\n");
  for (size_t i = 0; i < n; i++)
    {
      const char *name = report_syms_name (c->syms, fn[i].module, fn[i].offset);
      fprintf (f, "<tr><td class=\"l\">");
      report_html_escape (f, name, strlen (name));
      fprintf (f, "</td><td>%" PRIu64 "</td>", fn[i].calls);
      if (fn[i].total_ns == UINT64_MAX)
        fprintf (f, "<td class=\"na\">&ndash;</td>");
      else
        fprintf (f, "<td data-ns=\"%" PRIu64 "\">%s</td>", fn[i].total_ns,
                 report_fmt_dur (fn[i].total_ns, d));
      fprintf (f, "<td data-ns=\"%" PRIu64 "\">%s</td></tr>\n", fn[i].max_ns,
               report_fmt_dur (fn[i].max_ns, d));
    }
  fprintf (f, "</table>");
  if (others)
    fprintf (f, "<p>%" PRIu64 " more functions.</p>", others);
  fprintf (f, "</section>\n");
  free (fn);
}

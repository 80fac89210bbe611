/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_compare.c -- `emlat compare A B`: are two sessions comparable, and
 * when they are, how did the latency of each population move from A to B
 * (rules in emlat_report.h, docs/REPORT.md "Comparison")?
 *
 * A and B are one path each: one file per session (a rotated set is
 * reported on with `emlat report`, not compared).
 *
 * Text lines stay within 80 columns: the verdict "no significant change"
 * is printed as "no sig. change" there (in full in --json and the docs).
 *
 * Exit codes: 0 the comparison ran on two profiles read completely:
 * compared, refused by a guard, or nothing comparable yet (every
 * population under 30 samples) -- the output says which in plain words;
 * 1 it ran, but reading lost data of A or B (each problem on stderr), or
 * memory ran out; 2 invalid arguments, or A or B missing or unusable.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "render/json.h"
#include "render/record_json.h"
#include "emlat/emlat_report.h"
#include "render/report_fmt.h"
#include "cli/load.h"
#include "render/report_render.h"
#include "render/report_res_render.h"

struct side
{
  const char *path;
  struct emlat_profile *p;
  struct emlat_report_model m;
  struct emlat_report_names names;
  int have_model;
};

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: emlat compare [--json] [--resamples N] [--seed N] A.emlat B.emlat\n"
           "\n"
           "Compare the latency of session B with session A.  Refuses, naming\n"
           "each differing key with both values, when the program build, the\n"
           "terminal type or size, the profiler settings or the workload differ.\n"
           "Otherwise, for each root kind and population with at least %u\n"
           "interactions in both, the change B - A of the median, p90 and p99\n"
           "with a bootstrap 95%% interval and a verdict: faster, slower or no\n"
           "significant change; when both record names, the same per root kind\n"
           "and name (command, timer function, process).  A or B may be -,\n"
           "standard input.\n"
           "\n"
           "  --json          one JSON document on stdout\n"
           "  --resamples N   bootstrap resamples (default %u)\n"
           "  --seed N        bootstrap seed (default %llu): same seed, same output\n"
           "  -h, --help      this text;  -V, --version  the version\n"
           "\n"
           "Exit codes: 0 compared, refused or nothing comparable yet (said\n"
           "plainly); 1 the same, but reading lost data of A or B (each problem\n"
           "on stderr), or a write error; 2 invalid arguments, or A or B\n"
           "missing or not a readable profile.\n",
           EMLAT_REPORT_COMPARE_MIN_N, EMLAT_REPORT_BOOT_DEFAULT_RESAMPLES,
           (unsigned long long)EMLAT_REPORT_BOOT_DEFAULT_SEED);
}

static void
session_id (const struct emlat_profile *p, char out[37])
{
  const struct emlat_file_header *h = emlat_profile_header (p);
  if (h)
    emlat_uuid_format (h->uuid, out);
  else
    snprintf (out, 37, "unknown");
}

static void
text (const struct side *a, const struct side *b, const struct emlat_report_comparison *c,
      const struct emlat_report_name_comparison *nc)
{
  char ua[37], ub[37];
  session_id (a->p, ua);
  session_id (b->p, ub);
  printf ("emlat compare\n  A: %s\n     session %s, %" PRIu64 " interactions\n"
          "  B: %s\n     session %s, %" PRIu64 " interactions\n",
          a->path, ua, a->m.n_ix, b->path, ub, b->m.n_ix);
  if (c->n_fails)
    {
      printf ("\nNOT COMPARABLE: %zu guard%s failed\n", c->n_fails, c->n_fails == 1 ? "" : "s");
      for (size_t i = 0; i < c->n_fails; i++)
        printf ("  %-8s %s: A %s, B %s\n", emlat_report_guard_name (c->fails[i].guard), c->fails[i].key,
                c->fails[i].a, c->fails[i].b);
      printf ("No deltas are computed for sessions that are not comparable.\n");
      return;
    }
  printf ("guards passed: identity, terminal, profiler settings, workload\n");
  printf ("delta = B - A, nearest-rank quantiles, 95%% bootstrap interval\n"
          "(%u resamples, seed %" PRIu64 "); a verdict needs an interval without 0\n",
          c->resamples, c->seed);
  if (c->n_compared == 0)
    printf ("\nNothing comparable yet: no population has %u or more interactions in both "
            "sessions.\n",
            EMLAT_REPORT_COMPARE_MIN_N);
  for (size_t i = 0; i < c->n_pops; i++)
    {
      const struct emlat_report_cmp_pop *cp = &c->pops[i];
      if (cp->name_id)
        {
          /* An application group: its name (printable bytes, or #ID). */
          printf ("\n");
          if (cp->name)
            for (size_t k = 0; k < cp->name_len && k < 64; k++)
              putchar (cp->name[k] >= 0x20 && cp->name[k] < 0x7f ? cp->name[k] : 0x3f);
          else
            printf ("#%" PRIu64, cp->name_id);
          printf (" (application), %s: A n=%" PRIu64 ", B n=%" PRIu64,
                  emlat_report_pop_label (cp->pop), cp->n_a, cp->n_b);
        }
      else
        printf ("\n%s, %s: A n=%" PRIu64 ", B n=%" PRIu64, report_kind_label (cp->root_kind),
                emlat_report_pop_label (cp->pop), cp->n_a, cp->n_b);
      if (!cp->compared)
        {
          printf (" -- not compared (fewer than %u)\n", EMLAT_REPORT_COMPARE_MIN_N);
          continue;
        }
      printf ("\n  %-10s %-6s %7s %7s %8s  %-19s %s\n", "metric", "", "A", "B", "delta",
              "95% interval", "verdict");
      /* Each metric's label on a line of its own (labels are up to
         EMLAT_REPORT_LABEL_MAX characters), its quantiles below it. */
      for (size_t k = 0; k < cp->n_m; k++)
        {
          const struct emlat_report_cmp_metric *cm = &cp->m[k];
          if (!cm->compared)
            {
              printf ("  %s: not compared: A n=%" PRIu64 ", B n=%" PRIu64 " (fewer than %u)\n",
                      emlat_report_metric_label (cm->metric), cm->n_a, cm->n_b, EMLAT_REPORT_COMPARE_MIN_N);
              continue;
            }
          printf ("  %s\n", emlat_report_metric_label (cm->metric));
          for (int q = 0; q < EMLAT_REPORT_COMPARE_QUANTILES; q++)
            {
              const struct emlat_report_cmp_quantile *cq = &cm->q[q];
              char va[REPORT_DUR_LEN], vb[REPORT_DUR_LEN], dd[REPORT_DUR_LEN], lo[REPORT_DUR_LEN],
                hi[REPORT_DUR_LEN], iv[48];
              snprintf (iv, sizeof iv, "[%s, %s]", report_fmt_sdur (cq->ci.lo, lo),
                        report_fmt_sdur (cq->ci.hi, hi));
              printf ("  %-10s %-6s %7s %7s %8s  %-19s %s\n",
                      "", emlat_report_quantile_names[q],
                      report_fmt_dur (cq->a, va), report_fmt_dur (cq->b, vb),
                      report_fmt_sdur (cq->ci.delta, dd), iv,
                      cq->verdict == EMLAT_VERDICT_SAME ? "no sig. change"
                                                  : emlat_report_verdict_name (cq->verdict));
            }
        }
    }
  compare_text_names (a->p, b->p, nc, stdout);
  /* CPU and memory of the two runs (writer's samples, no interval: too few
     samples per run for a bootstrap). */
  struct emlat_report_resources ra, rb;
  emlat_report_resources_of (a->p, &ra);
  emlat_report_resources_of (b->p, &rb);
  report_compare_resources_text (&ra, &rb, stdout);
}

static void
json_side (struct emlat_json *j, const char *key, const struct side *s)
{
  const struct emlat_file_header *h = emlat_profile_header (s->p);
  char u[37];
  if (h)
    emlat_uuid_format (h->uuid, u);
  emlat_json_key (j, key);
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "path", s->path);
  emlat_json_kv_str (j, "session", h ? u : NULL);
  emlat_json_kv_u64 (j, "interactions", s->m.n_ix);
  emlat_json_key (j, "damaged");
  emlat_json_bool (j, emlat_report_damaged (s->p));
  emlat_json_end_object (j);
}

/* The SESSION value of KEY in P as typed JSON (number or string), null
   when P has no such key: the guard values of "guards_failed". */
static void
json_session_value (struct emlat_json *j, const struct emlat_profile *p, const char *key)
{
  size_t n;
  const struct emlat_kv *kv = emlat_profile_session (p, &n);
  record_json_kv_value (j, emlat_kv_find (kv, n, key));
}

static int
json (const struct side *a, const struct side *b, const struct emlat_report_comparison *c,
      const struct emlat_report_name_comparison *nc)
{
  struct emlat_json j;
  emlat_json_init (&j, stdout);
  emlat_json_begin_object (&j);
  emlat_json_kv_str (&j, "schema", "emlat-compare/1");
  json_side (&j, "a", a);
  json_side (&j, "b", b);
  emlat_json_key (&j, "comparable");
  emlat_json_bool (&j, c->n_fails == 0);
  emlat_json_key (&j, "guards_failed");
  emlat_json_begin_array (&j);
  for (size_t i = 0; i < c->n_fails; i++)
    {
      emlat_json_begin_object (&j);
      emlat_json_kv_str (&j, "guard", emlat_report_guard_name (c->fails[i].guard));
      emlat_json_kv_str (&j, "key", c->fails[i].key);
      emlat_json_key (&j, "a");
      json_session_value (&j, a->p, c->fails[i].key);
      emlat_json_key (&j, "b");
      json_session_value (&j, b->p, c->fails[i].key);
      emlat_json_end_object (&j);
    }
  emlat_json_end_array (&j);
  emlat_json_key (&j, "bootstrap");
  emlat_json_begin_object (&j);
  emlat_json_kv_u64 (&j, "resamples", c->resamples);
  emlat_json_kv_u64 (&j, "seed", c->seed);
  emlat_json_key (&j, "confidence");
  emlat_json_double (&j, 0.95);
  emlat_json_kv_str (&j, "delta", "b_minus_a");
  emlat_json_kv_u64 (&j, "min_samples", EMLAT_REPORT_COMPARE_MIN_N);
  emlat_json_end_object (&j);
  emlat_json_kv_u64 (&j, "populations_compared", c->n_compared);
  emlat_json_key (&j, "populations");
  emlat_json_begin_array (&j);
  for (size_t i = 0; i < c->n_pops; i++)
    {
      const struct emlat_report_cmp_pop *cp = &c->pops[i];
      emlat_json_begin_object (&j);
      emlat_json_kv_str (&j, "root_kind", report_kind_key (cp->root_kind));
      emlat_json_kv_str (&j, "population", emlat_report_pop_key (cp->pop));
      emlat_json_key (&j, "name");
      if (!cp->name_id)
        emlat_json_null (&j);
      else if (cp->name)
        emlat_json_strn (&j, cp->name, cp->name_len);
      else
        {
          char id[24];
          snprintf (id, sizeof id, "#%" PRIu64, cp->name_id);
          emlat_json_str (&j, id);
        }
      emlat_json_kv_u64 (&j, "n_a", cp->n_a);
      emlat_json_kv_u64 (&j, "n_b", cp->n_b);
      emlat_json_key (&j, "compared");
      emlat_json_bool (&j, cp->compared);
      emlat_json_key (&j, "metrics");
      emlat_json_begin_array (&j);
      for (size_t k = 0; k < cp->n_m; k++)
        {
          const struct emlat_report_cmp_metric *cm = &cp->m[k];
          emlat_json_begin_object (&j);
          emlat_json_kv_str (&j, "metric", emlat_report_metric_name (cm->metric));
          emlat_json_kv_u64 (&j, "n_a", cm->n_a);
          emlat_json_kv_u64 (&j, "n_b", cm->n_b);
          emlat_json_key (&j, "compared");
          emlat_json_bool (&j, cm->compared);
          emlat_json_key (&j, "quantiles");
          emlat_json_begin_array (&j);
          for (int q = 0; cm->compared && q < EMLAT_REPORT_COMPARE_QUANTILES; q++)
            {
              const struct emlat_report_cmp_quantile *cq = &cm->q[q];
              emlat_json_begin_object (&j);
              emlat_json_kv_str (&j, "quantile", emlat_report_quantile_names[q]);
              emlat_json_kv_u64 (&j, "a_ns", cq->a);
              emlat_json_kv_u64 (&j, "b_ns", cq->b);
              emlat_json_key (&j, "delta_ns");
              emlat_json_i64 (&j, cq->ci.delta);
              emlat_json_key (&j, "ci_low_ns");
              emlat_json_i64 (&j, cq->ci.lo);
              emlat_json_key (&j, "ci_high_ns");
              emlat_json_i64 (&j, cq->ci.hi);
              emlat_json_kv_str (&j, "verdict", cq->verdict == EMLAT_VERDICT_FASTER   ? "faster"
                                                : cq->verdict == EMLAT_VERDICT_SLOWER ? "slower"
                                                                                : "no_change");
              emlat_json_end_object (&j);
            }
          emlat_json_end_array (&j);
          emlat_json_end_object (&j);
        }
      emlat_json_end_array (&j);
      emlat_json_end_object (&j);
    }
  emlat_json_end_array (&j);
  compare_json_names (&j, a->p, b->p, nc);
  struct emlat_report_resources ra, rb;
  emlat_report_resources_of (a->p, &ra);
  emlat_report_resources_of (b->p, &rb);
  emlat_json_key (&j, "resources");
  emlat_json_begin_object (&j);
  emlat_json_key (&j, "a");
  report_json_resources_value (&j, &ra);
  emlat_json_key (&j, "b");
  report_json_resources_value (&j, &rb);
  emlat_json_end_object (&j);
  emlat_json_end_object (&j);
  emlat_json_line (&j);
  return j.error ? -1 : 0;
}

static int
model_add (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  return emlat_report_model_add (ctx, p, ix);
}

/* Load side S, its interactions streamed into its model, which keeps every
   sample: the comparison resamples them (8 bytes per sample and metric).
   Returns 0, or prints why and returns the exit code. */
static int
load_side (struct side *s)
{
  const char *paths[1] = { s->path };
  if (emlat_report_model_begin (&s->m, NULL, 0) != 0)
    {
      emlat_cli_error (s->path, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  int rc = report_load_each_usable (paths, 1, EMLAT_LOAD_STREAM, model_add, &s->m, &s->p);
  if (rc != 0)
    {
      emlat_report_model_free (&s->m);
      return rc;
    }
  s->m.p = s->p;
  if (emlat_report_model_pass_end (&s->m) != 0) /* every sample kept: one pass */
    {
      emlat_cli_error (s->path, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  s->have_model = 1;
  if (emlat_report_names_build (s->p, &s->names) != 0)
    {
      emlat_cli_error (s->path, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  return 0;
}

static int
compare_main (int argc, char **argv)
{
  enum { O_RESAMPLES = 256, O_SEED };
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "resamples", required_argument, NULL, O_RESAMPLES },
    { "seed", required_argument, NULL, O_SEED },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };
  int as_json = 0, c;
  uint64_t resamples = EMLAT_REPORT_BOOT_DEFAULT_RESAMPLES, seed = EMLAT_REPORT_BOOT_DEFAULT_SEED;
  while ((c = getopt_long (argc, argv, ":jhV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        as_json = 1;
        break;
      case O_RESAMPLES:
        if (emlat_cli_opt_u64 ("compare", "--resamples", optarg, 100, 1000000, &resamples) != 0)
          return EMLAT_EXIT_USAGE;
        break;
      case O_SEED:
        if (emlat_cli_opt_u64 ("compare", "--seed", optarg, 0, UINT64_MAX, &seed) != 0)
          return EMLAT_EXIT_USAGE;
        break;
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("compare");
        return EMLAT_EXIT_OK;
      default:
        return emlat_cli_bad_option ("compare", c, argv, longopts);
      }
  if (argc - optind != 2)
    return emlat_cli_usage_error ("compare", "wants exactly two files, A and B");
  struct side a = { .path = argv[optind] }, b = { .path = argv[optind + 1] };
  struct emlat_report_comparison cmp;
  struct emlat_report_name_comparison ncmp = { 0 };
  int have_cmp = 0;
  int result = load_side (&a);
  if (result == 0)
    result = load_side (&b);
  if (result != 0)
    goto out;
  result = EMLAT_EXIT_FAIL;
  if (emlat_report_compare (a.p, &a.m, b.p, &b.m, (unsigned)resamples, seed, &cmp) != 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      goto out;
    }
  have_cmp = 1;
  /* Groups by name, only for comparable sessions that both record them. */
  if (cmp.n_fails == 0
      && emlat_report_compare_names (a.p, &a.names, b.p, &b.names, (unsigned)resamples, seed,
                                     &ncmp) != 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      goto out;
    }
  if (as_json)
    {
      if (json (&a, &b, &cmp, &ncmp) != 0)
        {
          emlat_cli_error (NULL, UINT64_MAX, "JSON output failed");
          goto out;
        }
    }
  else
    text (&a, &b, &cmp, &ncmp);
  /* A write error on stdout is main's to report. */
  result = emlat_report_damaged (a.p) || emlat_report_damaged (b.p) ? EMLAT_EXIT_FAIL
                                                                     : EMLAT_EXIT_OK;
out:
  if (have_cmp)
    emlat_report_comparison_free (&cmp);
  emlat_report_name_comparison_free (&ncmp);
  for (struct side *s = &a; s; s = s == &a ? &b : NULL)
    {
      emlat_report_names_free (&s->names);
      if (s->have_model)
        emlat_report_model_free (&s->m);
      emlat_profile_free (s->p);
    }
  return result;
}

EMLAT_VERB (compare_verb, "compare",
            "compare two sessions' latency quantiles, refusing incomparable ones", compare_main)

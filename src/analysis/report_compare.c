/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_compare.c -- comparison guards and quantile deltas (rules in
 * emlat_report.h, "compare").
 *
 * Each (population, metric, quantile) cell gets its own generator seed
 * derived from the user seed and the cell's coordinates, so a cell's
 * interval does not change when other populations appear or disappear.
 */
#include "emlat/emlat_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const emlat_report_quantile_names[EMLAT_REPORT_COMPARE_QUANTILES] = { "median", "p90", "p99" };
static const uint64_t q_num[EMLAT_REPORT_COMPARE_QUANTILES] = { 1, 90, 99 };
static const uint64_t q_den[EMLAT_REPORT_COMPARE_QUANTILES] = { 2, 100, 100 };

static const enum emlat_report_metric cmp_metrics[EMLAT_REPORT_COMPARE_METRICS] = {
  EMLAT_RM_LATENCY_LOWER, EMLAT_RM_EXTERNAL_FIRST_OUTPUT, EMLAT_RM_INPUT_TO_COMMAND_MAX, EMLAT_RM_COMMAND, EMLAT_RM_WALL,
};

static const char *const terminal_keys[] = {
  "tty.term", "tty.rows", "tty.cols", "replay.term", "replay.rows", "replay.cols",
  "terminal.type", "terminal.rows", "terminal.cols",
};
static const char *const workload_keys[] = { "replay.workload", "demo.workload" };

const char *
emlat_report_guard_name (enum emlat_report_guard g)
{
  static const char *const n[] = { "identity", "terminal", "profiler", "workload" };
  return (unsigned)g < 4 ? n[g] : "?";
}

const char *
emlat_report_verdict_name (enum emlat_report_verdict v)
{
  return v == EMLAT_VERDICT_FASTER ? "faster" : v == EMLAT_VERDICT_SLOWER ? "slower" : "no significant change";
}

/* A printable rendering of entry E (or "(absent)"). */
static void
value_str (const struct emlat_kv *e, char *out, size_t n)
{
  if (!e)
    snprintf (out, n, "(absent)");
  else if (e->type == 0)
    snprintf (out, n, "%" PRIu64, e->u);
  else if (e->type == 1)
    snprintf (out, n, "%" PRId64, e->i);
  else
    {
      size_t k = 0;
      out[k++] = '"';
      for (uint32_t i = 0; i < e->s_len && k + 2 < n; i++)
        out[k++] = e->s[i] >= 0x20 && e->s[i] < 0x7f ? (char)e->s[i] : '?';
      out[k++] = '"';
      out[k] = 0;
    }
}

static int
same (const struct emlat_kv *x, const struct emlat_kv *y)
{
  if (!x || !y)
    return x == y;
  if (x->type != y->type)
    return 0;
  if (x->type == 0)
    return x->u == y->u;
  if (x->type == 1)
    return x->i == y->i;
  return x->s_len == y->s_len && memcmp (x->s, y->s, x->s_len) == 0;
}

struct fails
{
  struct emlat_report_guard_fail *p;
  size_t n, cap;
  int oom;
};

static void
check_key (struct fails *fs, enum emlat_report_guard g, const char *key, const struct emlat_kv *ka,
           size_t na, const struct emlat_kv *kb, size_t nb)
{
  const struct emlat_kv *x = emlat_kv_find (ka, na, key), *y = emlat_kv_find (kb, nb, key);
  if (same (x, y))
    return;
  for (size_t i = 0; i < fs->n; i++)
    if (strcmp (fs->p[i].key, key) == 0)
      return; /* already named */
  if (fs->n == fs->cap)
    {
      size_t cap = fs->cap ? fs->cap * 2 : 8;
      struct emlat_report_guard_fail *np = realloc (fs->p, cap * sizeof *np);
      if (!np)
        {
          fs->oom = 1;
          return;
        }
      fs->p = np;
      fs->cap = cap;
    }
  struct emlat_report_guard_fail *f = &fs->p[fs->n++];
  f->guard = g;
  snprintf (f->key, sizeof f->key, "%s", key);
  value_str (x, f->a, sizeof f->a);
  value_str (y, f->b, sizeof f->b);
}

/* Every key of KV under PREFIX, checked against the other side. */
static void
check_prefix (struct fails *fs, enum emlat_report_guard g, const char *prefix,
              const struct emlat_kv *from, size_t nfrom, const struct emlat_kv *ka, size_t na,
              const struct emlat_kv *kb, size_t nb)
{
  size_t pl = strlen (prefix);
  for (size_t i = 0; i < nfrom; i++)
    {
      if (from[i].key_len <= pl || from[i].key_len >= 72 || memcmp (from[i].key, prefix, pl) != 0)
        continue;
      char key[72];
      memcpy (key, from[i].key, from[i].key_len);
      key[from[i].key_len] = 0;
      check_key (fs, g, key, ka, na, kb, nb);
    }
}

static void
guards (const struct emlat_profile *pa, const struct emlat_profile *pb, struct fails *fs)
{
  size_t na, nb;
  const struct emlat_kv *ka = emlat_profile_session (pa, &na);
  const struct emlat_kv *kb = emlat_profile_session (pb, &nb);
  static const char *const id_prefixes[] = { "program.", "build.", "emacs." };
  for (unsigned i = 0; i < 3; i++)
    {
      check_prefix (fs, EMLAT_GUARD_IDENTITY, id_prefixes[i], ka, na, ka, na, kb, nb);
      check_prefix (fs, EMLAT_GUARD_IDENTITY, id_prefixes[i], kb, nb, ka, na, kb, nb);
    }
  for (unsigned i = 0; i < sizeof terminal_keys / sizeof terminal_keys[0]; i++)
    check_key (fs, EMLAT_GUARD_TERMINAL, terminal_keys[i], ka, na, kb, nb);
  check_prefix (fs, EMLAT_GUARD_PROFILER, "profiler.", ka, na, ka, na, kb, nb);
  check_prefix (fs, EMLAT_GUARD_PROFILER, "profiler.", kb, nb, ka, na, kb, nb);
  for (unsigned i = 0; i < sizeof workload_keys / sizeof workload_keys[0]; i++)
    check_key (fs, EMLAT_GUARD_WORKLOAD, workload_keys[i], ka, na, kb, nb);
}

/* 1 when string A of PA and string B of PB have the same bytes. */
static int
same_bytes (const struct emlat_profile *pa, uint64_t a, const struct emlat_profile *pb, uint64_t b)
{
  size_t la, lb;
  const uint8_t *sa = emlat_profile_string (pa, a, &la), *sb = emlat_profile_string (pb, b, &lb);
  if (!sa || !sb)
    return !sa && !sb && a == b;
  return la == lb && memcmp (sa, sb, la) == 0;
}

static int
compare_pop (const struct emlat_report_group *ga, const struct emlat_report_group *gb, unsigned resamples,
             uint64_t seed, struct emlat_report_cmp_pop *out)
{
  memset (out, 0, sizeof *out);
  out->root_kind = ga->root_kind;
  out->pop = ga->pop;
  out->n_a = ga->n;
  out->n_b = gb->n;
  out->compared = ga->n >= EMLAT_REPORT_COMPARE_MIN_N && gb->n >= EMLAT_REPORT_COMPARE_MIN_N;
  if (!out->compared)
    return 0;
  for (int i = 0; i < EMLAT_REPORT_COMPARE_METRICS; i++)
    {
      enum emlat_report_metric k = cmp_metrics[i];
      const struct emlat_report_series *sa = &ga->s[k], *sb = &gb->s[k];
      if (!sa->n && !sb->n)
        continue;
      struct emlat_report_cmp_metric *cm = &out->m[out->n_m++];
      cm->metric = k;
      cm->n_a = sa->n;
      cm->n_b = sb->n;
      cm->compared = sa->n >= EMLAT_REPORT_COMPARE_MIN_N && sb->n >= EMLAT_REPORT_COMPARE_MIN_N;
      if (!cm->compared)
        continue;
      for (int q = 0; q < EMLAT_REPORT_COMPARE_QUANTILES; q++)
        {
          struct emlat_report_cmp_quantile *cq = &cm->q[q];
          cq->a = sa->v[emlat_report_rank_index (sa->n, q_num[q], q_den[q])];
          cq->b = sb->v[emlat_report_rank_index (sb->n, q_num[q], q_den[q])];
          uint64_t cell = seed ^ ((uint64_t)ga->root_kind << 32 | (uint64_t)ga->pop << 16
                                  | (uint64_t)k << 4 | (uint64_t)q);
          if (emlat_report_boot_quantile_delta (sa->v, sa->n, sb->v, sb->n, q_num[q], q_den[q],
                                          resamples, cell, &cq->ci)
              != 0)
            return -ENOMEM;
          cq->verdict = cq->ci.lo > 0   ? EMLAT_VERDICT_SLOWER
                        : cq->ci.hi < 0 ? EMLAT_VERDICT_FASTER
                                        : EMLAT_VERDICT_SAME;
        }
    }
  return 0;
}

void
emlat_report_comparison_free (struct emlat_report_comparison *c)
{
  free (c->fails);
  free (c->pops);
  memset (c, 0, sizeof *c);
}

int
emlat_report_compare (const struct emlat_profile *pa, const struct emlat_report_model *ma,
                const struct emlat_profile *pb, const struct emlat_report_model *mb,
                unsigned resamples, uint64_t seed, struct emlat_report_comparison *out)
{
  memset (out, 0, sizeof *out);
  out->resamples = resamples;
  out->seed = seed;
  struct fails fs = { 0 };
  guards (pa, pb, &fs);
  out->fails = fs.p;
  out->n_fails = fs.n;
  if (fs.oom)
    goto nomem;
  if (fs.n)
    return 0;
  /* Root kinds pair by index; application names by their bytes (B's
     names A lacks come last). */
  out->pops = calloc (2 * EMLAT_REPORT_GROUPS * EMLAT_POP_COUNT, sizeof *out->pops);
  if (!out->pops)
    goto nomem;
  int b_paired[EMLAT_REPORT_APP_NAMES] = { 0 };
  for (int k = 0; k < EMLAT_REPORT_GROUPS + EMLAT_REPORT_APP_NAMES; k++)
    {
      int ka = -1, kb = -1;
      const struct emlat_profile *pn = pa;
      uint64_t name = 0;
      if (k < EMLAT_REPORT_KINDS)
        ka = kb = k;
      else if (k < EMLAT_REPORT_GROUPS)
        {
          if ((uint32_t)(k - EMLAT_REPORT_KINDS) >= ma->n_app_names)
            continue;
          ka = k;
          name = ma->app_names[k - EMLAT_REPORT_KINDS];
          for (uint32_t j = 0; j < mb->n_app_names; j++)
            if (!b_paired[j] && same_bytes (pa, name, pb, mb->app_names[j]))
              {
                kb = EMLAT_REPORT_KINDS + (int)j;
                b_paired[j] = 1;
                break;
              }
        }
      else
        {
          uint32_t j = (uint32_t)(k - EMLAT_REPORT_GROUPS);
          if (j >= mb->n_app_names || b_paired[j])
            continue;
          kb = EMLAT_REPORT_KINDS + (int)j;
          name = mb->app_names[j];
          pn = pb;
        }
      for (int q = 0; q < EMLAT_POP_COUNT; q++)
        {
          static const struct emlat_report_group none;
          const struct emlat_report_group *ga = ka >= 0 ? &ma->g[ka][q] : &none;
          const struct emlat_report_group *gb = kb >= 0 ? &mb->g[kb][q] : &none;
          if (!ga->n && !gb->n)
            continue;
          struct emlat_report_cmp_pop *cp = &out->pops[out->n_pops++];
          /* A group only B has: its kind and population are B's. */
          if (compare_pop (ka >= 0 ? ga : gb, ka >= 0 ? gb : ga, resamples,
                           k < EMLAT_REPORT_KINDS ? seed : seed ^ (uint64_t)k << 40, cp)
              != 0)
            goto nomem;
          if (ka < 0)
            {
              uint64_t t = cp->n_a;
              cp->n_a = cp->n_b;
              cp->n_b = t;
            }
          if (name)
            {
              cp->name_id = name;
              cp->name = emlat_profile_string (pn, name, &cp->name_len);
            }
          out->n_compared += (size_t)cp->compared;
        }
    }
  return 0;
nomem:
  emlat_report_comparison_free (out);
  return -ENOMEM;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_join.c -- the outside view joined with the inside one (see
 * emlat_report.h, "join"; the rule is docs/REPLAY.md "Joining the two
 * profiles"): collects the driver's key sends and the program's
 * interactions with an input arrival as they stream past, then matches
 * them in one merge of the two sorted sequences and computes the
 * agreement figures per root kind.
 *
 * Invariants: each send and each interaction is matched at most once;
 * a value is compared only when present; below + inside + above = n_cmp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_report.h"

struct join_send
{
  uint64_t cause, t_send, t_first;
  int has_first;
};

struct join_ix
{
  uint64_t cause, earliest, latest, lower, upper;
  uint32_t root_kind;
  uint32_t mask; /* EMLAT_JOIN_HAS_LOWER/UPPER, and HAS_EARLIEST */
};

#define HAS_EARLIEST 0x100u

int
emlat_report_is_driver (const struct emlat_profile *p)
{
  size_t n;
  const struct emlat_kv *kv = emlat_profile_session (p, &n);
  return kv && emlat_kv_find (kv, n, "replay.driver") != NULL;
}

void
emlat_report_join_init (struct emlat_report_join *j)
{
  memset (j, 0, sizeof *j);
}

void
emlat_report_join_free (struct emlat_report_join *j)
{
  free (j->priv_sends);
  free (j->priv_ix);
  free (j->pairs);
  memset (j, 0, sizeof *j);
}

/* Room for one more element of SIZE in *V (count N, capacity *CAP). */
static int
grow (void **v, size_t n, size_t *cap, size_t size)
{
  if (n < *cap)
    return 0;
  size_t nc = *cap ? *cap * 2 : 256;
  void *nv = realloc (*v, nc * size);
  if (!nv)
    return -ENOMEM;
  *v = nv;
  *cap = nc;
  return 0;
}

int
emlat_report_join_add_driver (struct emlat_report_join *j, const struct emlat_profile *p,
                              const struct emlat_interaction *ix)
{
  uint64_t ts, tf;
  if (!emlat_profile_ix_time (p, ix, EMLAT_T_EXTERNAL_SEND, &ts, NULL))
    {
      j->driver_other++;
      return 0;
    }
  if (ix->root_kind == EMLAT_ROOT_RESIZE)
    {
      j->sends_resize++;
      return 0;
    }
  if (grow (&j->priv_sends, j->priv_ns, &j->priv_cs, sizeof (struct join_send)) != 0)
    return -ENOMEM;
  struct join_send *s = (struct join_send *)j->priv_sends + j->priv_ns++;
  s->cause = ix->cause;
  s->t_send = ts;
  s->has_first = emlat_profile_ix_time (p, ix, EMLAT_T_EXTERNAL_FIRST_OUTPUT, &tf, NULL)
                 && tf >= ts;
  s->t_first = s->has_first ? tf : 0;
  j->sends++;
  return 0;
}

int
emlat_report_join_add_program (struct emlat_report_join *j, const struct emlat_profile *p,
                               const struct emlat_interaction *ix)
{
  j->program_ix++;
  struct emlat_report_times t;
  emlat_report_times_from_profile (p, ix, &t);
  /* Only key sequences read from the terminal: a timer's arrival bounds
     are its due time (inferred), not a key's. */
  if (ix->root_kind != EMLAT_ROOT_TTY_COMMAND || !(t.tmask >> EMLAT_T_INPUT_LATEST & 1u))
    {
      j->program_no_input++;
      return 0;
    }
  if (grow (&j->priv_ix, j->priv_ni, &j->priv_ci, sizeof (struct join_ix)) != 0)
    return -ENOMEM;
  struct emlat_report_metrics m;
  emlat_report_metrics_compute (&t, &m);
  struct join_ix *x = (struct join_ix *)j->priv_ix + j->priv_ni++;
  memset (x, 0, sizeof *x);
  x->cause = ix->cause;
  x->root_kind = ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0;
  x->latest = t.t[EMLAT_T_INPUT_LATEST];
  if (t.tmask >> EMLAT_T_INPUT_EARLIEST & 1u)
    {
      x->earliest = t.t[EMLAT_T_INPUT_EARLIEST];
      x->mask |= HAS_EARLIEST;
    }
  if (m.mask >> EMLAT_RM_LATENCY_LOWER & 1u)
    {
      x->lower = m.v[EMLAT_RM_LATENCY_LOWER];
      x->mask |= EMLAT_JOIN_HAS_LOWER;
    }
  if (m.mask >> EMLAT_RM_LATENCY_UPPER & 1u)
    {
      x->upper = m.v[EMLAT_RM_LATENCY_UPPER];
      x->mask |= EMLAT_JOIN_HAS_UPPER;
    }
  j->program_input++;
  return 0;
}

static int
send_cmp (const void *a, const void *b)
{
  const struct join_send *x = a, *y = b;
  if (x->t_send != y->t_send)
    return x->t_send < y->t_send ? -1 : 1;
  return x->cause < y->cause ? -1 : x->cause > y->cause;
}

static int
ix_cmp (const void *a, const void *b)
{
  const struct join_ix *x = a, *y = b;
  if (x->latest != y->latest)
    return x->latest < y->latest ? -1 : 1;
  if (x->earliest != y->earliest)
    return x->earliest < y->earliest ? -1 : 1;
  return x->cause < y->cause ? -1 : x->cause > y->cause;
}

/* The distribution of V[0..N) (sorted here) into *D.  0 or -ENOMEM. */
static int
dist_of (uint64_t *v, size_t n, struct emlat_report_dist *d)
{
  memset (d, 0, sizeof *d);
  if (!n)
    return 0;
  if (emlat_report_sort_u64 (v, NULL, n) != 0)
    return -ENOMEM;
  emlat_report_dist_of_sorted (v, n, d);
  return 0;
}

/* External - lower of a comparable pair, signed. */
static int64_t
diff_of (const struct emlat_report_join_pair *q)
{
  return q->external >= q->lower ? (int64_t)(q->external - q->lower)
                                 : -(int64_t)(q->lower - q->external);
}

/* The figures of group G over the comparable pairs of root kind KIND
   (EMLAT_REPORT_JOIN_ALL: every kind), with SCRATCH of n_pairs words.
   0 or -ENOMEM. */
static int
group_figures (struct emlat_report_join *j, unsigned kind, uint64_t *scratch)
{
  struct emlat_report_join_group *g = &j->g[kind];
  const uint64_t bias = UINT64_C (1) << 63;
  struct
  {
    unsigned what;
    struct emlat_report_dist *d;
  } series[] = { { 0, &g->external }, { 1, &g->lower }, { 2, &g->upper }, { 3, NULL } };
  for (unsigned s = 0; s < 4; s++)
    {
      size_t n = 0;
      for (size_t i = 0; i < j->n_pairs; i++)
        {
          const struct emlat_report_join_pair *q = &j->pairs[i];
          if (q->agree == EMLAT_AGREE_NONE
              || (kind != EMLAT_REPORT_JOIN_ALL && q->root_kind != kind))
            continue;
          scratch[n++] = s == 0 ? q->external
                         : s == 1 ? q->lower
                         : s == 2 ? q->upper
                                  : (uint64_t)diff_of (q) ^ bias;
        }
      if (series[s].d)
        {
          if (dist_of (scratch, n, series[s].d) != 0)
            return -ENOMEM;
          continue;
        }
      if (!n)
        continue;
      if (emlat_report_sort_u64 (scratch, NULL, n) != 0)
        return -ENOMEM;
      g->diff_min = (int64_t)(scratch[0] ^ bias);
      g->diff_median = (int64_t)(scratch[emlat_report_rank_index (n, 1, 2)] ^ bias);
      g->diff_p99 = (int64_t)(scratch[emlat_report_rank_index (n, 99, 100)] ^ bias);
    }
  return 0;
}

/* Pair send S with interaction X; BY_ORDER: read at or after the next
   send. */
static void
pair (struct emlat_report_join *j, const struct join_send *s, const struct join_ix *x,
      int by_order)
{
  struct emlat_report_join_pair *q = &j->pairs[j->n_pairs++];
  memset (q, 0, sizeof *q);
  q->send = s->cause;
  q->cause = x->cause;
  q->root_kind = x->root_kind;
  q->t_send = s->t_send;
  q->by_order = by_order;
  q->mask = x->mask & (EMLAT_JOIN_HAS_LOWER | EMLAT_JOIN_HAS_UPPER);
  q->lower = x->lower;
  q->upper = x->upper;
  if (s->has_first)
    {
      q->mask |= EMLAT_JOIN_HAS_EXTERNAL;
      q->external = s->t_first - s->t_send;
    }
  const uint32_t all = EMLAT_JOIN_HAS_EXTERNAL | EMLAT_JOIN_HAS_LOWER | EMLAT_JOIN_HAS_UPPER;
  if ((q->mask & all) != all)
    q->agree = EMLAT_AGREE_NONE;
  else if (q->external < q->lower)
    q->agree = EMLAT_AGREE_BELOW;
  else if (q->external > q->upper)
    q->agree = EMLAT_AGREE_ABOVE;
  else
    q->agree = EMLAT_AGREE_INSIDE;
  struct emlat_report_join_group *gs[2] = { &j->g[q->root_kind], &j->g[EMLAT_REPORT_JOIN_ALL] };
  for (int k = 0; k < 2; k++)
    {
      gs[k]->n++;
      if (q->agree == EMLAT_AGREE_NONE)
        continue;
      gs[k]->n_cmp++;
      gs[k]->below += q->agree == EMLAT_AGREE_BELOW;
      gs[k]->inside += q->agree == EMLAT_AGREE_INSIDE;
      gs[k]->above += q->agree == EMLAT_AGREE_ABOVE;
    }
  j->sends_matched++;
  j->program_matched++;
  j->by_order += by_order != 0;
}

int
emlat_report_join_finish (struct emlat_report_join *j)
{
  struct join_send *s = j->priv_sends;
  struct join_ix *x = j->priv_ix;
  size_t ns = j->priv_ns, ni = j->priv_ni;
  if (ns)
    qsort (s, ns, sizeof *s, send_cmp);
  if (ni)
    qsort (x, ni, sizeof *x, ix_cmp);
  size_t cap = ns < ni ? ns : ni;
  j->pairs = calloc (cap ? cap : 1, sizeof *j->pairs);
  uint64_t *scratch = calloc (cap ? cap : 1, sizeof *scratch);
  if (!j->pairs || !scratch)
    {
      free (scratch);
      emlat_report_join_free (j);
      return -ENOMEM;
    }
  size_t k = 0;
  for (size_t i = 0; i < ns; i++)
    {
      uint64_t next = i + 1 < ns ? s[i + 1].t_send : UINT64_MAX;
      while (k < ni && x[k].latest < s[i].t_send)
        {
          j->program_not_sent++; /* read before this send: not from one */
          k++;
        }
      /* The terminal seen empty after the send (beyond the write's own
         time) or after the next send: not this send's key. */
      uint64_t slack = s[i].t_send + EMLAT_REPORT_JOIN_SLACK_NS;
      if (k < ni
          && (!(x[k].mask & HAS_EARLIEST) || (x[k].earliest < next && x[k].earliest <= slack)))
        {
          pair (j, &s[i], &x[k], x[k].latest >= next);
          k++;
        }
      else
        j->sends_unmatched++;
    }
  j->program_not_sent += ni - k;
  int rc = 0;
  for (unsigned kind = 0; kind <= EMLAT_REPORT_JOIN_ALL && rc == 0; kind++)
    if (j->g[kind].n)
      rc = group_figures (j, kind, scratch);
  free (scratch);
  if (rc != 0)
    {
      emlat_report_join_free (j);
      return rc;
    }
  free (j->priv_sends);
  free (j->priv_ix);
  j->priv_sends = j->priv_ix = NULL;
  j->priv_ns = j->priv_ni = j->priv_cs = j->priv_ci = 0;
  j->joined = 1;
  return 0;
}

const char *
emlat_report_agree_name (enum emlat_report_agree a)
{
  switch (a)
    {
    case EMLAT_AGREE_INSIDE:
      return "inside";
    case EMLAT_AGREE_BELOW:
      return "below";
    case EMLAT_AGREE_ABOVE:
      return "above";
    default:
      return NULL;
    }
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_waterfall.c -- lay out one interaction (see emlat_report.h).
 *
 * Spans come from emlat_profile_ix_spans, sorted by start.  They are
 * nested by parent id: each span follows its parent, children in start
 * order, depth = number of ancestors present in the set.  A span whose
 * parent is not in the set is a root.  A damaged file may contain a parent
 * cycle; spans not reached from any root are appended as roots, so every
 * span is shown exactly once and the walk always terminates.
 */
#include "emlat/emlat_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WF_MAX_DEPTH 64

static int
cmp_id (const void *a, const void *b, void *ctx)
{
  const struct emlat_span *s = ctx;
  uint64_t x = s[*(const size_t *)a].id, y = s[*(const size_t *)b].id;
  return x < y ? -1 : x > y;
}

/* Index of the span with id ID in BY_ID (indices sorted by id), or -1. */
static long
find_id (const struct emlat_span *s, const size_t *by_id, size_t n, uint64_t id)
{
  size_t lo = 0, hi = n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (s[by_id[mid]].id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < n && s[by_id[lo]].id == id ? (long)by_id[lo] : -1;
}

static struct emlat_report_wf_row *
add_row (struct emlat_report_waterfall *w, size_t *cap)
{
  if (w->n_rows == *cap)
    {
      size_t nc = *cap ? *cap * 2 : 16;
      struct emlat_report_wf_row *r = realloc (w->rows, nc * sizeof *r);
      if (!r)
        return NULL;
      w->rows = r;
      *cap = nc;
    }
  struct emlat_report_wf_row *r = &w->rows[w->n_rows++];
  memset (r, 0, sizeof *r);
  return r;
}

/* A named section's name (a user span's detail, F-44) as printable text
   in a new string, or NULL (no memory: the row keeps its kind's name). */
static char *
section_name (const struct emlat_profile *p, uint64_t id)
{
  size_t len;
  const uint8_t *b = emlat_profile_string (p, id, &len);
  char *s;
  if (!b)
    {
      s = malloc (24);
      if (s)
        snprintf (s, 24, "#%" PRIu64, id);
      return s;
    }
  if (len > 64)
    len = 64;
  s = malloc (len + 1);
  if (!s)
    return NULL;
  for (size_t i = 0; i < len; i++)
    s[i] = b[i] >= 0x20 && b[i] < 0x7f ? (char)b[i] : '?';
  s[len] = 0;
  return s;
}

static int
span_row (const struct emlat_profile *p, struct emlat_report_waterfall *w, size_t *cap,
          const struct emlat_span *s, int depth)
{
  struct emlat_report_wf_row *r = add_row (w, cap);
  if (!r)
    return -1;
  r->type = EMLAT_WF_SPAN;
  r->name = emlat_span_kind_name (s->kind);
  if (s->kind == EMLAT_SPAN_USER && (s->flags & EMLAT_SPAN_HAS_DETAIL) && s->detail)
    {
      r->name_id = s->detail;
      r->priv_name = section_name (p, s->detail);
      if (r->priv_name)
        r->name = r->priv_name;
    }
  r->depth = depth;
  r->start = s->start;
  r->has_end = (s->flags & EMLAT_SPAN_HAS_END) != 0;
  r->end = r->has_end ? s->end : s->start;
  r->kind = s->kind;
  r->status = s->status;
  r->id = s->id;
  r->parent = s->parent;
  r->thread = s->thread;
  return 0;
}

/* Depth-first rows of the span tree. */
static int
span_rows (const struct emlat_profile *p, struct emlat_report_waterfall *w, size_t *cap,
           const struct emlat_span_set *set)
{
  size_t n = set->n;
  const struct emlat_span *s = set->spans;
  size_t *by_id = malloc (n * sizeof *by_id);
  long *first = malloc (n * sizeof *first), *next = malloc (n * sizeof *next);
  long *parent = malloc (n * sizeof *parent);
  unsigned char *seen = calloc (n, 1);
  long *stack = malloc (n * sizeof *stack);
  int *sdepth = malloc (n * sizeof *sdepth);
  int rc = -1;
  if (!by_id || !first || !next || !parent || !seen || !stack || !sdepth)
    goto out;
  for (size_t i = 0; i < n; i++)
    {
      by_id[i] = i;
      first[i] = next[i] = -1;
    }
  qsort_r (by_id, n, sizeof *by_id, cmp_id, (void *)s);
  for (size_t i = 0; i < n; i++)
    {
      long pi = s[i].parent ? find_id (s, by_id, n, s[i].parent) : -1;
      parent[i] = pi == (long)i ? -1 : pi;
    }
  /* Children lists in start order: prepend while walking backwards. */
  for (size_t i = n; i-- > 0;)
    if (parent[i] >= 0)
      {
        next[i] = first[parent[i]];
        first[parent[i]] = (long)i;
      }
  /* Roots in start order, then whatever a cycle left unreached. */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++)
      {
        if (seen[i] || (pass == 0 && parent[i] >= 0))
          continue;
        size_t sp = 0;
        stack[sp] = (long)i;
        sdepth[sp++] = 0;
        seen[i] = 1;
        while (sp)
          {
            long at = stack[--sp];
            int d = sdepth[sp];
            if (span_row (p, w, cap, &s[at], d < WF_MAX_DEPTH ? d : WF_MAX_DEPTH) != 0)
              goto out;
            /* Push children in reverse so the earliest is visited first. */
            size_t mark = sp;
            for (long c = first[at]; c >= 0; c = next[c])
              if (!seen[c])
                {
                  seen[c] = 1;
                  stack[sp] = c;
                  sdepth[sp++] = d + 1;
                }
            for (size_t a = mark, b = sp; b > a + 1; a++, b--)
              {
                long tl = stack[a];
                stack[a] = stack[b - 1];
                stack[b - 1] = tl;
                int td = sdepth[a];
                sdepth[a] = sdepth[b - 1];
                sdepth[b - 1] = td;
              }
          }
      }
  rc = 0;
out:
  free (by_id);
  free (first);
  free (next);
  free (parent);
  free (seen);
  free (stack);
  free (sdepth);
  return rc;
}

/* Phases from the interaction's own boundaries. */
static int
phase_rows (struct emlat_report_waterfall *w, size_t *cap)
{
  static const struct
  {
    const char *name;
    enum emlat_time_field from, to;
  } ph[] = {
    { "queue", EMLAT_T_QUEUE_INSERT, EMLAT_T_QUEUE_REMOVE },
    { "key decode", EMLAT_T_QUEUE_REMOVE, EMLAT_T_KEY_DECODE_DONE },
    { "pre-command", EMLAT_T_PRE_COMMAND_BEGIN, EMLAT_T_PRE_COMMAND_END },
    { "command", EMLAT_T_COMMAND_BEGIN, EMLAT_T_COMMAND_END },
    { "post-command", EMLAT_T_POST_COMMAND_BEGIN, EMLAT_T_POST_COMMAND_END },
    { "redisplay wait", EMLAT_T_ROOT_WORK_END, EMLAT_T_REDISPLAY_BEGIN },
    { "redisplay", EMLAT_T_REDISPLAY_BEGIN, EMLAT_T_REDISPLAY_END },
    { "tty emit", EMLAT_T_OUTPUT_BEGIN, EMLAT_T_FLUSH_END },
    { "replay: first output", EMLAT_T_EXTERNAL_SEND, EMLAT_T_EXTERNAL_FIRST_OUTPUT },
  };
  const struct emlat_report_times *t = &w->t;
  for (unsigned i = 0; i < sizeof ph / sizeof ph[0]; i++)
    {
      if (!(t->tmask >> ph[i].from & 1u) || !(t->tmask >> ph[i].to & 1u)
          || t->t[ph[i].to] < t->t[ph[i].from])
        continue;
      struct emlat_report_wf_row *r = add_row (w, cap);
      if (!r)
        return -1;
      r->type = EMLAT_WF_PHASE;
      r->name = ph[i].name;
      r->start = t->t[ph[i].from];
      r->end = t->t[ph[i].to];
      r->has_end = 1;
      r->thread = w->thread;
    }
  return 0;
}

static int
input_row (struct emlat_report_waterfall *w, size_t *cap, enum emlat_report_wf_type type,
           enum emlat_time_field lo, enum emlat_time_field hi, const char *name)
{
  const struct emlat_report_times *t = &w->t;
  if (!(t->tmask >> lo & 1u) || !(t->tmask >> hi & 1u))
    return 0;
  struct emlat_report_wf_row *r = add_row (w, cap);
  if (!r)
    return -1;
  r->type = type;
  r->name = name;
  r->start = t->t[lo];
  r->end = t->t[hi] < t->t[lo] ? t->t[lo] : t->t[hi];
  r->has_end = 1;
  r->thread = w->thread;
  return 0;
}

/* Measured waits: wait/event_poll spans of the interaction's thread not
   nested in another such span, clipped to [LO, HI). */
static void
sum_waits (struct emlat_report_waterfall *w, const struct emlat_span_set *set, int clip,
           uint64_t lo, uint64_t hi)
{
  /* Same-thread spans nest properly (F-67), so after sorting by start a
     wait span that starts before the end of the previous counted one is
     inside it. */
  uint64_t covered_to = 0;
  int any = 0;
  for (size_t i = 0; i < set->n; i++)
    {
      const struct emlat_span *s = &set->spans[i];
      if ((s->kind != EMLAT_SPAN_WAIT && s->kind != EMLAT_SPAN_EVENT_POLL)
          || s->thread != w->thread || !(s->flags & EMLAT_SPAN_HAS_END) || s->end < s->start)
        continue;
      uint64_t a = s->start, b = s->end;
      if (any && a < covered_to)
        {
          if (b <= covered_to)
            continue;
          a = covered_to;
        }
      w->n_wait_spans++;
      any = 1;
      covered_to = b;
      if (clip)
        {
          if (a < lo)
            a = lo;
          if (b > hi)
            b = hi;
        }
      if (b > a)
        w->waits += b - a;
    }
}

static void
split (struct emlat_report_waterfall *w, const struct emlat_span_set *set)
{
  const struct emlat_report_metrics *m = &w->m;
  w->has_wall = m->mask >> EMLAT_RM_WALL & 1u;
  w->wall = m->v[EMLAT_RM_WALL];
  w->has_cpu = m->mask >> EMLAT_RM_MAIN_CPU & 1u;
  w->cpu = m->v[EMLAT_RM_MAIN_CPU];
  w->has_tty_emit = m->mask >> EMLAT_RM_TTY_EMIT & 1u;
  w->tty_emit = m->v[EMLAT_RM_TTY_EMIT];
  /* The waits and the unknown rest are those of the interval the CPU
     readings lie in: the wall interval, or up to the interaction's end
     when thread_cpu_end was read there (emlat_report_cpu_window). */
  uint64_t lo = w->t.t[EMLAT_T_DISPATCH_BEGIN], hi = lo + w->wall;
  int window = w->has_cpu && emlat_report_cpu_window (&w->t, &lo, &hi);
  if (set)
    sum_waits (w, set, window || w->has_wall, lo, hi);
  if (window)
    {
      w->has_unknown = 1;
      uint64_t used = w->cpu + w->waits;
      if (used > hi - lo)
        {
          w->unknown = 0;
          w->excess = used - (hi - lo);
        }
      else
        w->unknown = hi - lo - used;
    }
}

/* The axis covers the spans or phases and the wall interval.  The input
   arrival rows extend it only when nothing else is drawn: an arrival
   interval can be far longer than the work (the descriptor was last known
   empty long before), and would squeeze every span into one column; the
   renderers mark a row that starts before the axis. */
static void
axis (struct emlat_report_waterfall *w)
{
  int any = 0;
  for (int pass = 0; pass < 2 && !any; pass++)
    for (size_t i = 0; i < w->n_rows; i++)
      {
        const struct emlat_report_wf_row *r = &w->rows[i];
        int input = r->type == EMLAT_WF_INPUT || r->type == EMLAT_WF_FIRST_INPUT;
        if (pass == 0 && input)
          continue;
        if (!any || r->start < w->t0)
          w->t0 = r->start;
        if (!any || r->end > w->t1)
          w->t1 = r->end;
        any = 1;
      }
  uint64_t marks[3];
  int nm = 0;
  if (w->t.tmask >> EMLAT_T_DISPATCH_BEGIN & 1u)
    marks[nm++] = w->t.t[EMLAT_T_DISPATCH_BEGIN];
  uint64_t done;
  if (emlat_report_completion (&w->t, &done))
    marks[nm++] = done;
  for (int i = 0; i < nm; i++)
    {
      if (!any || marks[i] < w->t0)
        w->t0 = marks[i];
      if (!any || marks[i] > w->t1)
        w->t1 = marks[i];
      any = 1;
    }
  /* An input row ending inside the axis but starting before it is
     clipped by the renderers; one that ends after it extends it. */
  for (size_t i = 0; i < w->n_rows; i++)
    if (w->rows[i].end > w->t1)
      w->t1 = w->rows[i].end;
}

void
emlat_report_waterfall_free (struct emlat_report_waterfall *w)
{
  for (size_t i = 0; i < w->n_rows; i++)
    free (w->rows[i].priv_name);
  free (w->rows);
  w->rows = NULL;
  w->n_rows = 0;
}

int
emlat_report_waterfall_build (const struct emlat_profile *p, uint64_t cause,
                        struct emlat_report_waterfall *w)
{
  memset (w, 0, sizeof *w);
  if (!emlat_profile_find_interaction (p, cause))
    return -ENOENT;
  struct emlat_span_set set;
  int src = emlat_profile_ix_spans (p, cause, &set);
  int rc = emlat_report_waterfall_build_spans (p, cause, src, &set, w);
  if (src == 0)
    emlat_span_set_free (&set);
  return rc;
}

/* Everything after the interaction's identity, boundaries and counters
   are in *W: the input rows, the spans (SRC == 0) or else the phases,
   the split and the axis. */
static int
build_rows (struct emlat_report_waterfall *w, const struct emlat_profile *p, int src,
            const struct emlat_span_set *set)
{
  size_t cap = 0;
  emlat_report_metrics_compute (&w->t, &w->m);
  w->pop = emlat_report_population (&w->t);
  if (input_row (w, &cap, EMLAT_WF_FIRST_INPUT, EMLAT_T_FIRST_INPUT_EARLIEST,
                 EMLAT_T_FIRST_INPUT_LATEST, "first input arrival") != 0
      || input_row (w, &cap, EMLAT_WF_INPUT, EMLAT_T_INPUT_EARLIEST, EMLAT_T_INPUT_LATEST,
                    "input arrival") != 0)
    goto nomem;
  if (src != 0)
    w->spans_error = src;
  w->n_spans = src == 0 ? set->n : 0;
  if (w->n_spans)
    {
      if (span_rows (p, w, &cap, set) != 0)
        goto nomem;
      for (size_t i = 0; i < set->n; i++)
        for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
          {
            uint64_t v;
            if (emlat_span_counter (&set->spans[i], set->counters, (enum emlat_counter)c, &v))
              {
                w->span_counter_mask |= 1u << c;
                w->span_counters[c] += v;
              }
          }
    }
  else if (phase_rows (w, &cap) != 0)
    goto nomem;
  split (w, src == 0 ? set : NULL);
  axis (w);
  return 0;
nomem:
  emlat_report_waterfall_free (w);
  return -ENOMEM;
}

int
emlat_report_waterfall_build_spans (const struct emlat_profile *p, uint64_t cause, int src,
                                    const struct emlat_span_set *spans,
                                    struct emlat_report_waterfall *w)
{
  memset (w, 0, sizeof *w);
  const struct emlat_interaction *ix = emlat_profile_find_interaction (p, cause);
  if (!ix)
    return -ENOENT;
  w->cause = cause;
  w->root_kind = ix->root_kind;
  w->status = ix->status;
  w->thread = ix->thread;
  emlat_report_times_from_profile (p, ix, &w->t);
  for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
    if (emlat_profile_ix_counter (p, ix, (enum emlat_counter)c, &w->counters[c]))
      w->counter_mask |= 1u << c;
  return build_rows (w, p, src, spans);
}

int
emlat_report_waterfall_build_times (uint64_t cause, uint32_t root_kind, uint64_t thread,
                                    const struct emlat_report_times *t,
                                    struct emlat_report_waterfall *w)
{
  memset (w, 0, sizeof *w);
  w->cause = cause;
  w->root_kind = root_kind;
  w->status = t->status;
  w->thread = thread;
  w->t = *t;
  return build_rows (w, NULL, -ENOENT, NULL);
}

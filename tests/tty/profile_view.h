/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * profile_view.h -- what the tests in tests/tty/ need to look at a profile
 * that libemlat-tty.so wrote: load it with the reader API
 * (include/emlat/emlat_reader.h), select interactions by root kind, fetch
 * fields with presence, find SESSION entries.  Header-only (the Makefile
 * builds each test_*.c alone with tests/lib/ linked in).
 *
 * Invariants: every helper reports a missing field as absent (returns 0),
 * never as a zero value; loading failures are test failures.
 */
#ifndef EMLAT_TTY_PROFILE_VIEW_H
#define EMLAT_TTY_PROFILE_VIEW_H

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "tap.h"

#include <stdio.h>
#include <string.h>

struct pv
{
  struct emlat_profile *p;
  const struct emlat_interaction *ix;
  size_t n_ix;
};

/* Load PATH; 0 on success (a failure is reported as a failed check). */
static inline int
pv_load (struct pv *v, const char *path)
{
  memset (v, 0, sizeof *v);
  const char *paths[1] = { path };
  int rc = emlat_profile_load (paths, 1, NULL, 0, &v->p);
  CHECK (rc == 0 && v->p, "load %s: %d", path, rc);
  if (rc != 0 || !v->p)
    return -1;
  v->ix = emlat_profile_interactions (v->p, &v->n_ix);
  return 0;
}

static inline void
pv_free (struct pv *v)
{
  emlat_profile_free (v->p);
  v->p = NULL;
}

/* The number of interactions of root kind KIND (0: all). */
static inline size_t
pv_count (const struct pv *v, unsigned kind)
{
  size_t n = 0;
  for (size_t i = 0; i < v->n_ix; i++)
    if (!kind || v->ix[i].root_kind == kind)
      n++;
  return n;
}

/* The K-th (from 0) interaction of root kind KIND, in cause order. */
static inline const struct emlat_interaction *
pv_nth (const struct pv *v, unsigned kind, size_t k)
{
  for (size_t i = 0; i < v->n_ix; i++)
    if (v->ix[i].root_kind == kind && k-- == 0)
      return &v->ix[i];
  return NULL;
}

static inline int
pv_time (const struct pv *v, const struct emlat_interaction *ix,
         enum emlat_time_field f, uint64_t *t, enum emlat_quality *q)
{
  return ix && emlat_profile_ix_time (v->p, ix, f, t, q);
}

static inline int
pv_counter (const struct pv *v, const struct emlat_interaction *ix,
            enum emlat_counter c, uint64_t *out)
{
  return ix && emlat_profile_ix_counter (v->p, ix, c, out);
}

static inline int
pv_value (const struct pv *v, const struct emlat_interaction *ix,
          enum emlat_value_field f, uint64_t *out)
{
  return ix && emlat_profile_ix_value (v->p, ix, f, out);
}

/* TO - FROM, or UINT64_MAX when a boundary is absent or TO < FROM. */
static inline uint64_t
pv_dur (const struct pv *v, const struct emlat_interaction *ix,
        enum emlat_time_field from, enum emlat_time_field to)
{
  uint64_t d;
  if (ix && emlat_profile_ix_duration (v->p, ix, from, to, &d))
    return d;
  return UINT64_MAX;
}

/* The SESSION entry KEY, or NULL. */
static inline const struct emlat_kv *
pv_session (const struct pv *v, const char *key)
{
  size_t n;
  const struct emlat_kv *kv = emlat_profile_session (v->p, &n);
  return emlat_kv_find (kv, n, key);
}

/* Print every interaction (diagnostics for a failing test). */
static inline void
pv_print (const struct pv *v)
{
  for (size_t i = 0; i < v->n_ix; i++)
    {
      const struct emlat_interaction *ix = &v->ix[i];
      char line[2048];
      int o = snprintf (line, sizeof line, "ix %llu kind %u status %u:",
                        (unsigned long long)ix->cause, ix->root_kind,
                        ix->status);
      uint64_t t0 = 0, t;
      enum emlat_quality q;
      for (int f = 0; f < EMLAT_T_FIELD_COUNT && o < (int)sizeof line - 64;
           f++)
        if (pv_time (v, ix, (enum emlat_time_field)f, &t, &q))
          {
            if (!t0)
              t0 = t;
            o += snprintf (line + o, sizeof line - (size_t)o, " %s=%+.3fms/%s",
                           emlat_time_field_name ((unsigned)f),
                           ((double)t - (double)t0) / 1e6,
                           emlat_quality_name (q));
          }
      for (int c = 0; c < EMLAT_C_COUNTER_COUNT && o < (int)sizeof line - 64;
           c++)
        if (pv_counter (v, ix, (enum emlat_counter)c, &t))
          o += snprintf (line + o, sizeof line - (size_t)o, " %s=%llu",
                         emlat_counter_name ((unsigned)c),
                         (unsigned long long)t);
      TEST_DIAG ("%s", line);
    }
}

#endif /* EMLAT_TTY_PROFILE_VIEW_H */

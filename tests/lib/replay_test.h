/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_test.h -- what the tests of `emlat replay` share: running the
 * built `emlat replay` on a pty_* program, reading its summary, and
 * loading the profile it wrote with the reader API.  Header-only; used by
 * tests/replay and tests/interpose (hence in tests/lib).
 *
 * Invariants: a helper that fails reports a failed check and returns an
 * error value; nothing here sleeps or measures time on its own.
 */
#ifndef EMLAT_REPLAY_TEST_H
#define EMLAT_REPLAY_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "tap.h"
#include "testutil.h"

/* The emlat binary ($EMLAT, else $BUILD/emlat). */
static inline const char *rt_emlat (void)
{
  static char *built; /* made once, kept for the test's life */
  const char *e = getenv ("EMLAT");
  if (e && e[0])
    return e;
  if (!built)
    built = tu_build_path ("emlat");
  return built;
}

/* A test program: $BUILD/tests/progs/NAME (heap: free it). */
static inline char *rt_prog (const char *name)
{
  return tu_strf ("%s/tests/progs/%s", tu_build_dir (), name);
}

/* Run `emlat replay ARGS...` (NULL-terminated, without "emlat replay"). */
static inline int rt_replay (char *const *args, unsigned timeout_ms,
                             struct tu_result *res)
{
  char *argv[64];
  size_t n = 0;
  argv[n++] = (char *)rt_emlat ();
  argv[n++] = (char *)"replay";
  while (*args && n < 63)
    argv[n++] = *args++;
  argv[n] = NULL;
  struct tu_cmd cmd = { argv, NULL, NULL, 0, timeout_ms };
  int rc = tu_run (&cmd, res);
  CHECK (rc == 0, "emlat replay started: %d", rc);
  if (rc == 0 && (res->exit_code == 2 || res->timed_out))
    printf ("# stdout:\n%s# stderr:\n%s", res->out, res->err);
  return rc;
}

/* The number after LABEL in TEXT (e.g. "planned" in "13 planned"): the
   integer just before the first occurrence of " LABEL".  -1 if absent. */
static inline long rt_count_before (const char *text, const char *label)
{
  char pat[64];
  snprintf (pat, sizeof pat, " %s", label);
  const char *p = text ? strstr (text, pat) : NULL;
  if (!p)
    return -1;
  const char *q = p;
  while (q > text && q[-1] >= '0' && q[-1] <= '9')
    q--;
  if (q == p)
    return -1;
  return strtol (q, NULL, 10);
}

struct rt_profile
{
  struct emlat_profile *p;
  const struct emlat_interaction *ix;
  size_t n_ix;
};

static inline int rt_load (struct rt_profile *v, const char *path)
{
  const char *paths[1] = { path };
  memset (v, 0, sizeof *v);
  int rc = emlat_profile_load (paths, 1, NULL, 0, &v->p);
  CHECK (rc == 0 && v->p, "load %s: %d", path, rc);
  if (rc || !v->p)
    return -1;
  v->ix = emlat_profile_interactions (v->p, &v->n_ix);
  return 0;
}

static inline void rt_free (struct rt_profile *v)
{
  emlat_profile_free (v->p);
  v->p = NULL;
}

static inline size_t rt_count_kind (const struct rt_profile *v, unsigned kind)
{
  size_t n = 0;
  for (size_t i = 0; i < v->n_ix; i++)
    n += v->ix[i].root_kind == kind;
  return n;
}

/* Field F of IX, or UINT64_MAX when absent. */
static inline uint64_t rt_time (const struct rt_profile *v,
                                const struct emlat_interaction *ix,
                                enum emlat_time_field f)
{
  uint64_t t;
  return emlat_profile_ix_time (v->p, ix, f, &t, NULL) ? t : UINT64_MAX;
}

static inline uint64_t rt_counter (const struct rt_profile *v,
                                   const struct emlat_interaction *ix,
                                   enum emlat_counter c)
{
  uint64_t x;
  return emlat_profile_ix_counter (v->p, ix, c, &x) ? x : UINT64_MAX;
}

/* SESSION entry KEY, or NULL. */
static inline const struct emlat_kv *rt_session (const struct rt_profile *v,
                                                 const char *key)
{
  size_t n;
  const struct emlat_kv *kv = emlat_profile_session (v->p, &n);
  return emlat_kv_find (kv, n, key);
}

#endif /* EMLAT_REPLAY_TEST_H */

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_stream_load.c -- a load with EMLAT_LOAD_STREAM keeps no interaction
 * yet decides everything a load keeping them decides (emlat_reader.h):
 *
 *  - on every seed of fuzz/corpus/reader and fuzz/corpus/report, on its
 *    prefixes and on single-byte corruptions of it (damage, repeated ids,
 *    open interactions, spans of unknown causes), and with a small
 *    max_interactions: the same totals (allocation aside), the same
 *    diagnostics in the same order, the same file summaries and
 *    unattributed span aggregates;
 *  - emlat_profile_each_interaction hands over every interaction once, the
 *    same ones field for field (times with their qualities, values,
 *    counters, thread, file and offset of the defining record);
 *  - the interactions named in KEEP are kept and found by cause, equal to
 *    the materialized ones; emlat_profile_load_each on paths gives the
 *    same interactions as a load followed by emlat_profile_each_interaction;
 *  - a streamed load of a large recorded profile allocates a small
 *    fraction of what a load keeping its interactions does.
 */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "tap.h"
#include "testutil.h"

/* One interaction as handed over, with its fields read through the
   accessors while it was valid. */
struct seen
{
  struct emlat_interaction ix;
  uint64_t t[EMLAT_T_FIELD_COUNT], v[EMLAT_V_FIELD_COUNT], c[EMLAT_C_COUNTER_COUNT];
  enum emlat_quality q[EMLAT_T_FIELD_COUNT];
  uint32_t has_t, has_v, has_c;
};

struct seen_list
{
  struct seen *v;
  size_t n, cap;
};

static void read_fields (const struct emlat_profile *p, const struct emlat_interaction *ix,
                         struct seen *s)
{
  memset (s, 0, sizeof *s);
  s->ix = *ix;
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if (emlat_profile_ix_time (p, ix, (enum emlat_time_field)f, &s->t[f], &s->q[f]))
      s->has_t |= 1u << f;
  for (unsigned f = 0; f < EMLAT_V_FIELD_COUNT; f++)
    if (emlat_profile_ix_value (p, ix, (enum emlat_value_field)f, &s->v[f]))
      s->has_v |= 1u << f;
  for (unsigned f = 0; f < EMLAT_C_COUNTER_COUNT; f++)
    if (emlat_profile_ix_counter (p, ix, (enum emlat_counter)f, &s->c[f]))
      s->has_c |= 1u << f;
}

static int collect (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  struct seen_list *l = ctx;
  if (l->n == l->cap)
    {
      l->cap = l->cap ? l->cap * 2 : 64;
      l->v = realloc (l->v, l->cap * sizeof *l->v);
      if (!l->v)
        return -ENOMEM;
    }
  read_fields (p, ix, &l->v[l->n++]);
  return 0;
}

static int cmp_seen (const void *a, const void *b)
{
  uint64_t x = ((const struct seen *)a)->ix.cause, y = ((const struct seen *)b)->ix.cause;
  return x < y ? -1 : x > y;
}

/* A and B describe the same interaction. */
static int same_seen (const struct seen *a, const struct seen *b)
{
  const struct emlat_interaction *x = &a->ix, *y = &b->ix;
  return x->cause == y->cause && x->thread == y->thread && x->root_kind == y->root_kind
         && x->status == y->status
         && (x->flags & EMLAT_IX_HAS_COMPLETE) == (y->flags & EMLAT_IX_HAS_COMPLETE)
         && x->time_mask == y->time_mask && x->value_mask == y->value_mask
         && x->counter_mask == y->counter_mask && x->q_mask == y->q_mask && x->file == y->file
         && x->offset == y->offset && a->has_t == b->has_t && a->has_v == b->has_v
         && a->has_c == b->has_c && memcmp (a->t, b->t, sizeof a->t) == 0
         && memcmp (a->q, b->q, sizeof a->q) == 0 && memcmp (a->v, b->v, sizeof a->v) == 0
         && memcmp (a->c, b->c, sizeof a->c) == 0;
}

static size_t checked_profiles, checked_interactions;

/* M keeps its interactions, S was streamed: the same load.  Returns 1
   when they agree (each difference is a failed check). */
static int same_load (const struct emlat_profile *m, struct emlat_profile *s, const char *what)
{
  unsigned long failures = tap_failures;
  struct emlat_profile_totals tm = *emlat_profile_totals (m), ts = *emlat_profile_totals (s);
  tm.alloc_bytes = ts.alloc_bytes = 0;
  CHECK (memcmp (&tm, &ts, sizeof tm) == 0, "%s: totals (interactions %llu/%llu)", what,
               (unsigned long long)tm.interactions, (unsigned long long)ts.interactions);
  size_t nm, ns;
  const struct emlat_diag *dm = emlat_profile_diags (m, &nm), *ds = emlat_profile_diags (s, &ns);
  int dsame = nm == ns;
  for (size_t i = 0; dsame && i < nm; i++)
    dsame = dm[i].kind == ds[i].kind && dm[i].file == ds[i].file
            && dm[i].offset == ds[i].offset && dm[i].a == ds[i].a && dm[i].b == ds[i].b
            && dm[i].type == ds[i].type && dm[i].version == ds[i].version
            && strcmp (dm[i].what, ds[i].what) == 0;
  CHECK (dsame, "%s: the same %zu diagnostics in order (%zu)", what, nm, ns);
  const struct emlat_file_summary *fm = emlat_profile_files (m, &nm);
  const struct emlat_file_summary *fs = emlat_profile_files (s, &ns);
  int fsame = nm == ns;
  for (size_t i = 0; fsame && i < nm; i++)
    fsame = fm[i].ignored == fs[i].ignored && fm[i].read_error == fs[i].read_error
            && fm[i].damage == fs[i].damage
            && memcmp (&fm[i].scan, &fs[i].scan, sizeof fm[i].scan) == 0;
  CHECK (fsame, "%s: file summaries", what);
  CHECK (memcmp (emlat_profile_unattributed_aggs (m), emlat_profile_unattributed_aggs (s),
                       (EMLAT_SPAN_KIND_MAX + 1) * sizeof (struct emlat_span_agg))
                 == 0,
               "%s: unattributed span aggregates", what);
  size_t nk;
  emlat_profile_interactions (s, &nk);
  CHECK (nk == 0, "%s: a streamed load keeps no interaction (%zu)", what, nk);
  if (tm.limit_hit)
    {
      CHECK_EQ_I64 (emlat_profile_each_interaction (s, NULL, 0, NULL, NULL), -ECANCELED);
      return tap_failures == failures;
    }

  /* Every interaction once, the same ones. */
  size_t n;
  const struct emlat_interaction *ix = emlat_profile_interactions (m, &n);
  struct seen_list got = { 0 };
  uint64_t keep[3] = { 0 };
  size_t n_keep = 0;
  for (size_t i = 0; i < n && n_keep < 3; i += 1 + n / 3)
    keep[n_keep++] = ix[i].cause;
  CHECK_OK (emlat_profile_each_interaction (s, keep, n_keep, collect, &got));
  CHECK (got.n == n, "%s: %zu interactions handed over, %zu kept by the load", what,
               got.n, n);
  if (got.n > 1)
    qsort (got.v, got.n, sizeof *got.v, cmp_seen);
  size_t bad = 0, dup = 0;
  for (size_t i = 0; i < got.n && i < n; i++)
    {
      struct seen want;
      read_fields (m, &ix[i], &want);
      bad += !same_seen (&want, &got.v[i]);
      dup += i > 0 && got.v[i].ix.cause == got.v[i - 1].ix.cause;
    }
  CHECK (bad == 0 && dup == 0, "%s: %zu interactions differ, %zu handed over twice", what,
               bad, dup);
  /* The kept ones are found, the same. */
  for (size_t k = 0; k < n_keep; k++)
    {
      const struct emlat_interaction *a = emlat_profile_find_interaction (m, keep[k]);
      const struct emlat_interaction *b = emlat_profile_find_interaction (s, keep[k]);
      struct seen x, y;
      CHECK (b != NULL, "%s: cause %llu kept", what, (unsigned long long)keep[k]);
      if (a && b)
        {
          read_fields (m, a, &x);
          read_fields (s, b, &y);
          CHECK (same_seen (&x, &y), "%s: kept cause %llu equal", what,
                       (unsigned long long)keep[k]);
        }
    }
  size_t kept;
  emlat_profile_interactions (s, &kept);
  CHECK (kept == n_keep, "%s: %zu kept, %zu asked", what, kept, n_keep);
  free (got.v);
  checked_interactions += n;
  return tap_failures == failures;
}

/* BUF loaded both ways from memory, with limits LIM (NULL: defaults). */
static int both_ways (const uint8_t *buf, size_t len, const struct emlat_limits *lim,
                      const char *what)
{
  struct emlat_buffer b = { .data = buf, .len = len, .name = what };
  struct emlat_profile *m = NULL, *s = NULL;
  if (emlat_profile_load_buffers (&b, 1, lim, 0, &m) != 0
      || emlat_profile_load_buffers (&b, 1, lim, EMLAT_LOAD_STREAM, &s) != 0)
    {
      emlat_profile_free (m);
      emlat_profile_free (s);
      CHECK (0, "%s: loads", what);
      return 0;
    }
  int ok = same_load (m, s, what);
  checked_profiles++;
  emlat_profile_free (m);
  emlat_profile_free (s);
  return ok;
}

static void seeds_of (const char *corpus)
{
  const char *src = getenv ("SRCDIR");
  char *dir = tu_strf ("%s/fuzz/corpus/%s", src ? src : ".", corpus);
  DIR *d = opendir (dir);
  CHECK (d != NULL, "corpus %s", dir);
  struct dirent *e;
  while (d && (e = readdir (d)))
    {
      if (e->d_name[0] == '.')
        continue;
      char *path = tu_strf ("%s/%s", dir, e->d_name);
      uint8_t *buf;
      size_t len;
      if (tu_read_file (path, &buf, &len) == 0)
        {
          size_t fails = 0;
          fails += !both_ways (buf, len, NULL, e->d_name);
          for (size_t l = 0; l < len && fails < 3; l += 1 + len / 48)
            fails += !both_ways (buf, l, NULL, e->d_name);
          for (size_t i = 0; i < len && fails < 3; i += 1 + len / 48)
            {
              buf[i] ^= 0x5a;
              fails += !both_ways (buf, len, NULL, e->d_name);
              buf[i] ^= 0x5a;
            }
          /* A limit stops both at the same record. */
          struct emlat_limits lim;
          memset (&lim, 0, sizeof lim);
          lim.max_interactions = 5;
          fails += !both_ways (buf, len, &lim, e->d_name);
          free (buf);
        }
      free (path);
    }
  if (d)
    closedir (d);
  free (dir);
}

/* A recorded profile of N interactions on two threads, some left open. */
static void record (const char *path, unsigned n)
{
  struct emlat_options o = { .path = path };
  CHECK_OK (emlat_start (&o));
  uint64_t left_open[4];
  for (unsigned i = 0; i < n; i++)
    {
      uint64_t c = emlat_ix_begin (i % 7 ? EMLAT_ROOT_TTY_COMMAND : EMLAT_ROOT_TIMER, 0, 0);
      uint64_t sp = emlat_span_begin (EMLAT_SPAN_COMMAND, c);
      emlat_ix_mark (c, EMLAT_T_COMMAND_BEGIN);
      emlat_ix_mark (c, EMLAT_T_COMMAND_END);
      emlat_span_end (sp, EMLAT_SPAN_OK, 0);
      emlat_ix_count (c, EMLAT_C_TTY_BYTES, i);
      if (i < 4)
        left_open[i] = c;
      else
        emlat_ix_end (c, i % 10 ? EMLAT_STATUS_NORMAL : EMLAT_STATUS_SUPERSEDED);
      if (i % 1000 == 0)
        emlat_flush ();
    }
  (void)left_open;
  CHECK_OK (emlat_stop ());
}

static size_t alloc_of (const char *path, unsigned flags)
{
  const char *paths[1] = { path };
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load (paths, 1, NULL, flags, &p));
  size_t a = p ? emlat_profile_totals (p)->alloc_bytes : 0;
  emlat_profile_free (p);
  return a;
}

static void recorded (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return;
  char *path = tu_strf ("%s/rec.emlat", dir);
  record (path, 60000);
  uint8_t *buf;
  size_t len;
  CHECK_OK (tu_read_file (path, &buf, &len));
  both_ways (buf, len, NULL, "recorded");
  free (buf);

  /* load_each on a path: the same as each_interaction after a load. */
  const char *paths[1] = { path };
  struct emlat_input in = { .path = path, .fd = -1 };
  struct seen_list a = { 0 }, b = { 0 };
  struct emlat_profile *p = NULL, *q = NULL;
  CHECK_OK (emlat_profile_load_each (&in, 1, NULL, 0, collect, &a, &p));
  CHECK_OK (emlat_profile_load (paths, 1, NULL, EMLAT_LOAD_STREAM, &q));
  if (q)
    CHECK_OK (emlat_profile_each_interaction (q, NULL, 0, collect, &b));
  CHECK (a.n == 60000 && b.n == a.n, "load_each: %zu interactions, each_interaction %zu", a.n,
         b.n);
  size_t bad = 0;
  for (size_t i = 0; i < a.n && i < b.n; i++)
    bad += !same_seen (&a.v[i], &b.v[i]);
  CHECK (bad == 0, "load_each and each_interaction: same order and fields (%zu differ)", bad);
  CHECK_EQ_U64 (p ? emlat_profile_totals (p)->interactions_open : 0, 4);
  free (a.v);
  free (b.v);
  emlat_profile_free (p);
  emlat_profile_free (q);

  size_t kept = alloc_of (path, 0), streamed = alloc_of (path, EMLAT_LOAD_STREAM);
  TEST_DIAG ("60000 interactions: %zu bytes kept by a load, %zu streamed", kept, streamed);
  CHECK (streamed * 10 < kept, "streaming allocates under a tenth (%zu of %zu)", streamed, kept);
  free (path);
}

int main (void)
{
  seeds_of ("reader");
  seeds_of ("report");
  recorded ();
  TEST_DIAG ("%zu loads compared, %zu interactions", checked_profiles, checked_interactions);
  CHECK (checked_profiles > 100, "%zu loads compared", checked_profiles);
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_roundtrip.c -- files written by the real recorder (emlat.h) read
 * back through the scanner and the profile: every record type and the
 * dictionary, optional fields present and absent, begin-only interactions
 * and spans (F-65, F-68), and a rotated set read as one session with no id
 * reused (F-23, F-81).  Values are chosen by the test and compared exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "tap.h"
#include "testutil.h"

/* The span id in the file of a handle returned by emlat_span_begin*: the
   recorder returns id << 1 | cpu-flag (src/record/producer.c), although
   emlat.h documents the return value as the span id itself. */
#define SPAN_ID(h) ((h) >> 1)

static void start (const char *path, uint64_t rotate_bytes)
{
  struct emlat_meta meta[] = {
    { "test.name", EMLAT_META_STR, 0, 0, "roundtrip", 9 },
    { "test.count", EMLAT_META_UINT, 42, 0, NULL, 0 },
    { "test.neg", EMLAT_META_SINT, 0, -7, NULL, 0 },
  };
  struct emlat_options o;
  memset (&o, 0, sizeof o);
  o.path = path;
  o.rotate_bytes = rotate_bytes;
  o.meta = meta;
  o.n_meta = 3;
  CHECK_OK (emlat_start (&o));
}

static struct emlat_profile *load1 (const char *path, unsigned flags)
{
  struct emlat_profile *p = NULL;
  const char *paths[] = { path };
  CHECK_OK (emlat_profile_load (paths, 1, NULL, flags, &p));
  return p;
}

static void test_records (const char *dir)
{
  char *path = tu_strf ("%s/rt.emlat", dir);
  start (path, 0);
  uint64_t sid = emlat_string ("my-span", 7);
  CHECK (sid >= 1, "string id");

  /* Interaction A: many fields, a non-default quality, values incl. a
     present zero, counters; spans with and without optional fields. */
  uint64_t a = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  uint64_t t0 = emlat_now ();
  emlat_ix_time (a, EMLAT_T_INPUT_LATEST, t0 - 1000);
  emlat_ix_time_q (a, EMLAT_T_INPUT_READY, t0 - 500, EMLAT_Q_OBSERVER_READY);
  emlat_ix_time (a, EMLAT_T_COMMAND_BEGIN, t0 + 10);
  emlat_ix_time (a, EMLAT_T_COMMAND_END, t0 + 2010);
  emlat_ix_value (a, EMLAT_V_FIRST_SOURCE_BEGIN, 0);
  emlat_ix_value (a, EMLAT_V_FRAME_ID, 12345);
  emlat_ix_count (a, EMLAT_C_GLYPHS_EMITTED, 77);
  emlat_ix_add (a, EMLAT_C_GLYPHS_EMITTED, 3);
  uint64_t s1 = emlat_span_begin (EMLAT_SPAN_COMMAND, a);
  uint64_t s2 = emlat_span_begin_cpu (EMLAT_SPAN_USER, a);
  emlat_span_count (s2, EMLAT_C_ROWS_GENERATED, 9);
  emlat_span_end (s2, EMLAT_SPAN_ERROR, sid);
  uint64_t s3 = emlat_span_begin (EMLAT_SPAN_GC, a);
  (void)s3;
  emlat_span_end (s1, EMLAT_SPAN_OK, 0); /* unwinds s3 (F-67) */
  emlat_ix_end (a, EMLAT_STATUS_NORMAL);

  /* Interaction B: scheduled by A, nothing optional. */
  uint64_t b = emlat_ix_begin (EMLAT_ROOT_TIMER, 0, a);
  emlat_ix_end (b, EMLAT_STATUS_QUIT);

  /* Input batches: all fields, and only the read interval. */
  struct emlat_input_batch ib;
  memset (&ib, 0, sizeof ib);
  ib.batch_id = emlat_input_batch_id ();
  ib.mask = EMLAT_IB_KNOWN_EMPTY | EMLAT_IB_FIRST_READY | EMLAT_IB_READ_BEGIN
            | EMLAT_IB_READ_END | EMLAT_IB_BYTES;
  ib.ready_quality = EMLAT_Q_OBSERVER_READY;
  ib.t_known_empty = t0 - 3000;
  ib.t_first_ready = t0 - 2000;
  ib.t_read_begin = t0 - 1500;
  ib.t_read_end = t0 - 1400;
  ib.bytes = 0; /* present and zero */
  emlat_input_batch (&ib);
  struct emlat_input_batch ib2;
  memset (&ib2, 0, sizeof ib2);
  ib2.batch_id = emlat_input_batch_id ();
  ib2.mask = EMLAT_IB_READ_BEGIN | EMLAT_IB_READ_END;
  ib2.t_read_begin = t0 + 100;
  ib2.t_read_end = t0 + 200;
  emlat_input_batch (&ib2);

  /* Interaction C and span s4: still open at stop (F-65, F-68). */
  uint64_t cc = emlat_ix_begin (EMLAT_ROOT_PROCESS_DATA, b, 0);
  uint64_t s4 = emlat_span_begin (EMLAT_SPAN_PROCESS_FILTER, cc);
  CHECK_OK (emlat_stop ());

  struct emlat_profile *p = load1 (path, EMLAT_LOAD_SPANS);
  if (!p)
    return;
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  CHECK_EQ_U64 (t->clean_stop, 1);
  CHECK_EQ_U64 (t->damaged_files, 0);
  CHECK_EQ_U64 (t->interactions, 3);
  CHECK_EQ_U64 (t->interactions_open, 1);
  CHECK_EQ_U64 (t->spans_incomplete, 1);
  CHECK_EQ_U64 (t->spans_unwound, 1);
  CHECK_EQ_U64 (t->spans_orphan_end, 0);
  CHECK_EQ_U64 (t->lost_records, 0);

  size_t n;
  const struct emlat_kv *kv = emlat_profile_session (p, &n);
  const struct emlat_kv *e = emlat_kv_find (kv, n, "test.name");
  CHECK (e && e->type == 2 && e->s_len == 9 && memcmp (e->s, "roundtrip", 9) == 0, "meta str");
  e = emlat_kv_find (kv, n, "test.count");
  CHECK (e && e->type == 0 && e->u == 42, "meta uint");
  e = emlat_kv_find (kv, n, "test.neg");
  CHECK (e && e->type == 1 && e->i == -7, "meta sint");
  CHECK (emlat_kv_find (kv, n, "clock.id") != NULL, "clock.id written");
  kv = emlat_profile_stats (p, &n);
  e = emlat_kv_find (kv, n, "stats.final");
  CHECK (e && e->u == 1, "final stats");

  size_t len = 0;
  const uint8_t *s = emlat_profile_string (p, sid, &len);
  CHECK (s && len == 7 && memcmp (s, "my-span", 7) == 0, "string round trip");
  CHECK (emlat_profile_string (p, sid + 1000, &len) == NULL, "unknown string id");

  const struct emlat_interaction *ia = emlat_profile_find_interaction (p, a);
  CHECK (ia != NULL, "interaction a");
  if (ia)
    {
      uint64_t v;
      enum emlat_quality q;
      CHECK_EQ_U64 (ia->root_kind, EMLAT_ROOT_TTY_COMMAND);
      CHECK_EQ_U64 (ia->status, EMLAT_STATUS_NORMAL);
      CHECK (emlat_profile_ix_time (p, ia, EMLAT_T_INPUT_LATEST, &v, &q) && v == t0 - 1000
             && q == EMLAT_Q_READ, "input_latest with default quality");
      CHECK (emlat_profile_ix_time (p, ia, EMLAT_T_INPUT_READY, &v, &q) && v == t0 - 500
             && q == EMLAT_Q_OBSERVER_READY, "input_ready with stored quality");
      CHECK (emlat_profile_ix_duration (p, ia, EMLAT_T_COMMAND_BEGIN, EMLAT_T_COMMAND_END, &v)
             && v == 2000, "command duration");
      v = 99;
      CHECK (!emlat_profile_ix_time (p, ia, EMLAT_T_FLUSH_END, &v, NULL) && v == 99,
             "absent boundary is absent, not 0 (F-64)");
      CHECK (!emlat_profile_ix_duration (p, ia, EMLAT_T_INPUT_LATEST, EMLAT_T_FLUSH_END, &v),
             "no duration from an absent boundary");
      CHECK (emlat_profile_ix_time (p, ia, EMLAT_T_DISPATCH_BEGIN, &v, NULL), "dispatch_begin");
      CHECK (emlat_profile_ix_time (p, ia, EMLAT_T_INTERACTION_END, &v, NULL), "interaction_end");
      CHECK (emlat_profile_ix_value (p, ia, EMLAT_V_FIRST_SOURCE_BEGIN, &v) && v == 0,
             "present zero value");
      CHECK (emlat_profile_ix_value (p, ia, EMLAT_V_FRAME_ID, &v) && v == 12345, "frame id");
      CHECK (!emlat_profile_ix_value (p, ia, EMLAT_V_TERMINAL_ID, &v), "absent value");
      CHECK (emlat_profile_ix_counter (p, ia, EMLAT_C_GLYPHS_EMITTED, &v) && v == 80, "counter");
      CHECK (!emlat_profile_ix_counter (p, ia, EMLAT_C_GC_NS, &v), "absent counter");
      size_t na;
      const struct emlat_span_agg *ag = emlat_profile_ix_aggs (p, ia, &na);
      CHECK_EQ_U64 (na, 3); /* command, gc, user */
      for (size_t i = 0; ag && i < na; i++)
        {
          CHECK_EQ_U64 (ag[i].count, 1);
          if (i)
            CHECK (ag[i - 1].kind < ag[i].kind, "aggregates by ascending kind");
        }
      struct emlat_span_set set;
      CHECK_OK (emlat_profile_ix_spans (p, a, &set));
      CHECK_EQ_U64 (set.n, 3);
      for (size_t i = 0; i < set.n; i++)
        {
          const struct emlat_span *sp = &set.spans[i];
          CHECK (sp->cause == a && (sp->flags & EMLAT_SPAN_HAS_END), "span of a, ended");
          if (sp->id == SPAN_ID (s2))
            {
              CHECK_EQ_U64 (sp->kind, EMLAT_SPAN_USER);
              CHECK_EQ_U64 (sp->status, EMLAT_SPAN_ERROR);
              CHECK_EQ_U64 (sp->parent, SPAN_ID (s1));
              CHECK (sp->flags & EMLAT_SPAN_HAS_DETAIL && sp->detail == sid, "detail");
              CHECK (sp->flags & EMLAT_SPAN_HAS_CPU, "cpu duration present");
              uint64_t cv;
              CHECK (emlat_span_counter (sp, set.counters, EMLAT_C_ROWS_GENERATED, &cv)
                     && cv == 9, "span counter");
            }
          else if (sp->id == SPAN_ID (s1))
            {
              CHECK_EQ_U64 (sp->status, EMLAT_SPAN_OK);
              CHECK_EQ_U64 (sp->parent, 0);
              CHECK (!(sp->flags & (EMLAT_SPAN_HAS_CPU | EMLAT_SPAN_HAS_DETAIL)),
                     "no optional fields");
              CHECK_EQ_U64 (sp->counter_mask, 0);
            }
          else
            CHECK_EQ_U64 (sp->status, EMLAT_SPAN_UNWOUND);
        }
      emlat_span_set_free (&set);
    }
  const struct emlat_interaction *ib_ = emlat_profile_find_interaction (p, b);
  CHECK (ib_ != NULL, "interaction b");
  if (ib_)
    {
      uint64_t v;
      CHECK_EQ_U64 (ib_->root_kind, EMLAT_ROOT_TIMER);
      CHECK_EQ_U64 (ib_->status, EMLAT_STATUS_QUIT);
      CHECK (emlat_profile_ix_value (p, ib_, EMLAT_V_SCHEDULED_BY_CAUSE, &v) && v == a,
             "scheduled_by repeated in the value fields (F-66)");
      CHECK (!emlat_profile_ix_value (p, ib_, EMLAT_V_PARENT_CAUSE, &v), "no parent");
      CHECK_EQ_U64 (ib_->counter_mask, 0);
    }
  const struct emlat_interaction *ic = emlat_profile_find_interaction (p, cc);
  CHECK (ic != NULL, "interaction c (open)");
  if (ic)
    {
      uint64_t v;
      CHECK_EQ_U64 (ic->status, EMLAT_STATUS_OPEN);
      CHECK_EQ_U64 (ic->root_kind, EMLAT_ROOT_PROCESS_DATA);
      CHECK (ic->flags & EMLAT_IX_HAS_BEGIN, "begin record seen");
      CHECK (emlat_profile_ix_value (p, ic, EMLAT_V_PARENT_CAUSE, &v) && v == b, "open parent");
      CHECK (emlat_profile_ix_time (p, ic, EMLAT_T_DISPATCH_BEGIN, &v, NULL), "open dispatch");
      CHECK (!emlat_profile_ix_time (p, ic, EMLAT_T_INTERACTION_END, &v, NULL), "open: no end");
    }

  const uint64_t *pool;
  const struct emlat_span *sp = emlat_profile_spans (p, &n, &pool);
  int found4 = 0;
  for (size_t i = 0; i < n; i++)
    if (sp[i].id == SPAN_ID (s4))
      found4 = sp[i].status == EMLAT_SPAN_INCOMPLETE && !(sp[i].flags & EMLAT_SPAN_HAS_END)
               && sp[i].cause == cc && sp[i].kind == EMLAT_SPAN_PROCESS_FILTER;
  CHECK (found4, "open span materialized as incomplete");
  for (size_t i = 1; i < n; i++)
    CHECK (sp[i - 1].id < sp[i].id, "spans sorted by id, no id repeated");

  const struct emlat_rd_input *in = emlat_profile_inputs (p, &n);
  CHECK_EQ_U64 (n, 2);
  if (n == 2)
    {
      CHECK_EQ_U64 (in[0].batch_id, ib.batch_id);
      CHECK_EQ_U64 (in[0].mask, ib.mask);
      CHECK_EQ_U64 (in[0].ready_quality, EMLAT_Q_OBSERVER_READY);
      CHECK_EQ_U64 (in[0].t_known_empty, ib.t_known_empty);
      CHECK_EQ_U64 (in[0].t_first_ready, ib.t_first_ready);
      CHECK_EQ_U64 (in[0].t_read_begin, ib.t_read_begin);
      CHECK_EQ_U64 (in[0].t_read_end, ib.t_read_end);
      CHECK_EQ_U64 (in[0].bytes, 0);
      CHECK_EQ_U64 (in[1].mask, ib2.mask);
      CHECK_EQ_U64 (in[1].t_read_begin, ib2.t_read_begin);
      CHECK_EQ_U64 (in[1].t_read_end, ib2.t_read_end);
    }
  emlat_profile_free (p);
  free (path);
}

/* A rotated set: several files, one session, ids never reused, chunk
   sequences continuous; a missing middle file is reported. */
static void test_rotation (const char *dir)
{
  char *path = tu_strf ("%s/rot.emlat", dir);
  start (path, 4096);
  uint64_t last = 0;
  int monotonic = 1;
  for (int i = 0; i < 400; i++)
    {
      uint64_t ix = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      monotonic &= ix > last;
      last = ix;
      uint64_t s = emlat_span_begin (EMLAT_SPAN_COMMAND, ix);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
      emlat_ix_end (ix, EMLAT_STATUS_NORMAL);
      if (i % 50 == 49)
        CHECK_OK (emlat_flush ());
    }
  CHECK (monotonic, "cause ids increase");
  struct emlat_status st;
  CHECK_OK (emlat_stop ());
  emlat_status (&st);
  CHECK_GT_U64 (st.files, 2);
  size_t nf = (size_t)st.files;
  char **paths = calloc (nf, sizeof *paths);
  for (size_t i = 0; i < nf; i++)
    paths[i] = i ? tu_strf ("%s/rot.%zu.emlat", dir, i) : tu_strf ("%s", path);
  /* Given in reverse order: the loader orders by rotation sequence. */
  const char **rev = calloc (nf, sizeof *rev);
  for (size_t i = 0; i < nf; i++)
    rev[i] = paths[nf - 1 - i];
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load (rev, nf, NULL, EMLAT_LOAD_SPANS, &p));
  if (p)
    {
      const struct emlat_profile_totals *t = emlat_profile_totals (p);
      CHECK_EQ_U64 (t->files_read, nf);
      CHECK_EQ_U64 (t->interactions, 400);
      CHECK_EQ_U64 (t->spans_complete, 400);
      CHECK_EQ_U64 (t->sequence_gaps, 0);
      CHECK_EQ_U64 (t->spans_orphan_end, 0);
      CHECK_EQ_U64 (t->clean_stop, 1);
      size_t nd, n;
      emlat_profile_diags (p, &nd);
      CHECK_EQ_U64 (nd, 0);
      const struct emlat_span *sp = emlat_profile_spans (p, &n, NULL);
      for (size_t i = 1; i < n; i++)
        CHECK (sp[i - 1].id < sp[i].id, "no span id reused across files");
      const struct emlat_file_summary *fs = emlat_profile_files (p, &n);
      for (size_t i = 0; i < n; i++)
        {
          CHECK_EQ_U64 (fs[i].scan.header.rotation, i);
          CHECK_EQ_U64 (fs[i].scan.session_chunks, 1);
          if (i)
            CHECK_EQ_U64 (fs[i].scan.first_sequence, fs[i - 1].scan.last_sequence + 1);
        }
      emlat_profile_free (p);
    }
  /* Without the middle file: reported missing, and the sequence jumps. */
  const char *gap[2] = { paths[0], paths[2] };
  p = NULL;
  CHECK_OK (emlat_profile_load (gap, 2, NULL, 0, &p));
  if (p)
    {
      size_t nd;
      const struct emlat_diag *d = emlat_profile_diags (p, &nd);
      int missing = 0;
      for (size_t i = 0; i < nd; i++)
        missing |= d[i].kind == EMLAT_DIAG_ROTATION_MISSING && d[i].a == 1;
      CHECK (missing, "rotation 1 reported missing");
      emlat_profile_free (p);
    }
  /* The same file twice: a repeated sequence, read once. */
  const char *dup[2] = { paths[0], paths[0] };
  CHECK_OK (emlat_profile_load (dup, 2, NULL, 0, &p));
  if (p)
    {
      size_t nd;
      const struct emlat_diag *d = emlat_profile_diags (p, &nd);
      int rep = 0;
      for (size_t i = 0; i < nd; i++)
        rep |= d[i].kind == EMLAT_DIAG_ROTATION_DUPLICATE;
      CHECK (rep, "repeated rotation reported");
      CHECK_EQ_U64 (emlat_profile_totals (p)->files_read, 1);
      emlat_profile_free (p);
    }
  for (size_t i = 0; i < nf; i++)
    free (paths[i]);
  free (paths);
  free (rev);
  free (path);
}

/* Two sessions given together: the second is reported and ignored. */
static void test_mixed (const char *dir)
{
  char *p1 = tu_strf ("%s/m1.emlat", dir), *p2 = tu_strf ("%s/m2.emlat", dir);
  start (p1, 0);
  emlat_ix_end (emlat_ix_begin (EMLAT_ROOT_TIMER, 0, 0), EMLAT_STATUS_NORMAL);
  CHECK_OK (emlat_stop ());
  start (p2, 0);
  emlat_ix_end (emlat_ix_begin (EMLAT_ROOT_TIMER, 0, 0), EMLAT_STATUS_NORMAL);
  emlat_ix_end (emlat_ix_begin (EMLAT_ROOT_TIMER, 0, 0), EMLAT_STATUS_NORMAL);
  CHECK_OK (emlat_stop ());
  const char *paths[2] = { p1, p2 };
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load (paths, 2, NULL, 0, &p));
  if (p)
    {
      CHECK_EQ_U64 (emlat_profile_totals (p)->interactions, 1);
      size_t nd, nf;
      const struct emlat_diag *d = emlat_profile_diags (p, &nd);
      int mixed = 0;
      for (size_t i = 0; i < nd; i++)
        mixed |= d[i].kind == EMLAT_DIAG_MIXED_SESSION;
      CHECK (mixed, "other session reported");
      const struct emlat_file_summary *fs = emlat_profile_files (p, &nf);
      CHECK (nf == 2 && !fs[0].ignored && fs[1].ignored, "second file ignored");
      emlat_profile_free (p);
    }
  free (p1);
  free (p2);
}

int main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    TEST_DONE ();
  test_records (dir);
  test_rotation (dir);
  test_mixed (dir);
  TEST_DONE ();
}

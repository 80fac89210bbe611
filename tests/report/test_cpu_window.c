/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_cpu_window.c -- the interval an interaction's two thread CPU
 * readings lie in, and the time off CPU measured over it (docs/REPORT.md
 * "Metrics", docs/FORMAT.md 8.1.1).
 *
 * The same interaction is recorded in three sessions: one whose SESSION
 * says ix.thread_cpu_end_at = interaction_end (as Emacs writes), one
 * without the key, and one with a value the reader does not know.  Its
 * dispatch, completion and CPU readings are chosen; its end is the real
 * clock at emlat_ix_end, read back from the profile.  For each session the
 * test checks, by hand: the library calls (emlat_profile_cpu_end_at_end,
 * emlat_report_times_from_profile / _from_record_of, emlat_report_cpu_window,
 * main_off_cpu_ns, the waterfall's split), `emlat report --json`'s split and
 * `emlat export --format=jsonl`'s metrics.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"
#include "report_fixture.h"

enum mode { AT_END, NO_KEY, UNKNOWN_VALUE };

struct expect
{
  uint64_t cause, dispatch, completion, end, cpu;
};

static void
record (const char *path, enum mode mode, struct expect *e)
{
  static const char at_end[] = "interaction_end", other[] = "somewhere";
  struct emlat_meta meta[] = {
    { .key = "ix.thread_cpu_end_at", .type = EMLAT_META_STR,
      .s = mode == AT_END ? at_end : other,
      .s_len = mode == AT_END ? sizeof at_end - 1 : sizeof other - 1 },
  };
  struct emlat_options o = { .path = path, .meta = meta, .n_meta = mode == NO_KEY ? 0 : 1 };
  int rc = emlat_start (&o);
  CHECK_OK (rc);
  if (rc)
    return;
  /* Dispatch 3 ms ago, completion 1 ms later, 400 us of CPU; the end is
     now (emlat_ix_end), about 2 ms after the completion. */
  uint64_t now = emlat_now ();
  e->dispatch = now - 3 * MS;
  e->completion = e->dispatch + 1 * MS;
  e->cpu = 400 * US;
  e->cause = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  emlat_ix_time (e->cause, EMLAT_T_INPUT_EARLIEST, e->dispatch - 200 * US);
  emlat_ix_time (e->cause, EMLAT_T_INPUT_LATEST, e->dispatch - 100 * US);
  emlat_ix_time (e->cause, EMLAT_T_DISPATCH_BEGIN, e->dispatch);
  emlat_ix_time (e->cause, EMLAT_T_COMMAND_BEGIN, e->dispatch);
  emlat_ix_time (e->cause, EMLAT_T_COMMAND_END, e->completion);
  emlat_ix_time (e->cause, EMLAT_T_ROOT_WORK_END, e->completion);
  emlat_ix_value (e->cause, EMLAT_V_THREAD_CPU_BEGIN, 7 * MS);
  emlat_ix_value (e->cause, EMLAT_V_THREAD_CPU_END, 7 * MS + e->cpu);
  emlat_ix_end (e->cause, EMLAT_STATUS_NORMAL);
  CHECK_OK (emlat_stop ());
}

/* The library's view of session PATH. */
static void
check_library (const char *path, enum mode mode, struct expect *e)
{
  const char *paths[1] = { path };
  struct emlat_profile *p;
  int rc = emlat_profile_load (paths, 1, NULL, 0, &p);
  CHECK_OK (rc);
  if (rc)
    return;
  CHECK_EQ_U64 (emlat_profile_cpu_end_at_end (p), mode == AT_END);
  const struct emlat_interaction *ix = emlat_profile_find_interaction (p, e->cause);
  CHECK (ix != NULL, "interaction %" PRIu64 " loaded", e->cause);
  if (!ix)
    {
      emlat_profile_free (p);
      return;
    }
  CHECK (emlat_profile_ix_time (p, ix, EMLAT_T_INTERACTION_END, &e->end, NULL),
         "t_interaction_end present");
  CHECK (e->end > e->completion, "the end (%" PRIu64 ") after the completion (%" PRIu64 ")",
         e->end, e->completion);

  struct emlat_report_times t;
  struct emlat_report_metrics m;
  emlat_report_times_from_profile (p, ix, &t);
  CHECK_EQ_U64 (t.has_cpu_end, mode == AT_END ? EMLAT_REPORT_CPU_END_AT_END
                                              : EMLAT_REPORT_CPU_END_AT_COMPLETION);
  uint64_t w0 = 0, w1 = 0, want_to = mode == AT_END ? e->end : e->completion;
  CHECK (emlat_report_cpu_window (&t, &w0, &w1), "a CPU window");
  CHECK_EQ_U64 (w0, e->dispatch);
  CHECK_EQ_U64 (w1, want_to);
  emlat_report_metrics_compute (&t, &m);
  CHECK_EQ_U64 (m.mask >> EMLAT_RM_MAIN_CPU & 1u, 1);
  CHECK_EQ_U64 (m.v[EMLAT_RM_MAIN_CPU], e->cpu);
  CHECK_EQ_U64 (m.mask >> EMLAT_RM_MAIN_OFF_CPU & 1u, 1);
  CHECK_EQ_U64 (m.v[EMLAT_RM_MAIN_OFF_CPU], want_to - e->dispatch - e->cpu);
  /* wall_ns is the completion's, whatever the window. */
  CHECK_EQ_U64 (m.v[EMLAT_RM_WALL], e->completion - e->dispatch);

  /* Without its thread_cpu_end, no window and no time off CPU. */
  struct emlat_report_times bare = t;
  bare.has_cpu_end = EMLAT_REPORT_CPU_END_ABSENT;
  CHECK (!emlat_report_cpu_window (&bare, &w0, &w1), "no window without thread_cpu_end");
  emlat_report_metrics_compute (&bare, &m);
  CHECK_EQ_U64 (m.mask >> EMLAT_RM_MAIN_OFF_CPU & 1u, 0);
  /* Read at the end but the end absent: no window either. */
  bare = t;
  bare.has_cpu_end = EMLAT_REPORT_CPU_END_AT_END;
  bare.tmask &= ~(1u << EMLAT_T_INTERACTION_END);
  CHECK (!emlat_report_cpu_window (&bare, &w0, &w1), "no window without t_interaction_end");

  struct emlat_report_waterfall w;
  rc = emlat_report_waterfall_build (p, e->cause, &w);
  CHECK_OK (rc);
  if (rc == 0)
    {
      CHECK_EQ_U64 (w.has_unknown, 1);
      CHECK_EQ_U64 (w.waits, 0);
      CHECK_EQ_U64 (w.unknown, want_to - e->dispatch - e->cpu);
      CHECK_EQ_U64 (w.wall, e->completion - e->dispatch);
      emlat_report_waterfall_free (&w);
    }
  emlat_profile_free (p);
}

/* What `emlat report --json` and `emlat export --format=jsonl` say. */
static void
check_cli (const char *path, enum mode mode, const struct expect *e)
{
  uint64_t want_to = mode == AT_END ? e->end : e->completion;
  char cause[32];
  snprintf (cause, sizeof cause, "%" PRIu64, e->cause);
  struct tu_result r;
  if (fx_emlat (&r, "report", "--json", "--interaction", cause, path, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 0, "report exit 0 (got %d): %s", r.exit_code, r.err);
      struct jv *doc = fx_json (&r);
      const struct jv *split = jv_get (jv_get (doc, "tail"), "split");
      CHECK_EQ_U64 (jv_u64 (jv_get (split, "cpu_window_ns")), want_to - e->dispatch);
      CHECK_EQ_U64 (jv_u64 (jv_get (split, "main_cpu_ns")), e->cpu);
      CHECK_EQ_U64 (jv_u64 (jv_get (split, "unknown_off_cpu_ns")), want_to - e->dispatch - e->cpu);
      CHECK_EQ_U64 (jv_u64 (jv_get (split, "wall_ns")), e->completion - e->dispatch);
      /* Both readings are there, wherever the second lies: no interaction
         lacks them (the end reading was once counted twice when it lay
         at the end, and the report listed 2^64 - n missing). */
      static const char *const pops[] = { "flushed", "no_output", "superseded" };
      const struct jv *un = jv_get (doc, "unavailable");
      for (size_t q = 0; q < sizeof pops / sizeof pops[0]; q++)
        {
          const struct jv *missing = jv_get (jv_get (un, pops[q]), "missing");
          CHECK_EQ_U64 (jv_u64 (jv_get (missing, "thread_cpu_begin")), 0);
          CHECK_EQ_U64 (jv_u64 (jv_get (missing, "thread_cpu_end")), 0);
        }
      jv_free (doc);
      tu_result_free (&r);
    }
  if (fx_emlat (&r, "report", "--interaction", cause, path, NULL, NULL) == 0)
    {
      /* The text names the window only when it is not the wall interval. */
      if (mode == AT_END)
        CHECK_CONTAINS (r.out, "dispatch to end");
      else
        CHECK (!strstr (r.out, "dispatch to end"), "no \"dispatch to end\" line");
      tu_result_free (&r);
    }
  if (fx_emlat (&r, "export", "--format=jsonl", path, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 0, "export exit 0 (got %d): %s", r.exit_code, r.err);
      const char *line = strstr (r.out, "\"interaction_complete\"");
      CHECK (line != NULL, "an interaction_complete line");
      if (line)
        {
          const char *b = line, *n = strchr (line, '\n');
          while (b > r.out && b[-1] != '\n')
            b--;
          size_t at = 0;
          struct jv *v = jv_parse (b, n ? (size_t)(n - b) : strlen (b), &at);
          CHECK (v != NULL, "the line parses (error at %zu)", at);
          CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (v, "metrics"), "main_off_cpu_ns")),
                        want_to - e->dispatch - e->cpu);
          jv_free (v);
        }
      tu_result_free (&r);
    }
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    TEST_DONE ();
  static const char *const names[] = { "at-end", "no-key", "unknown-value" };
  for (int mode = AT_END; mode <= UNKNOWN_VALUE; mode++)
    {
      char *path = tu_strf ("%s/%s.emlat", dir, names[mode]);
      struct expect e = { 0 };
      TEST_DIAG ("session %s", names[mode]);
      record (path, (enum mode)mode, &e);
      check_library (path, (enum mode)mode, &e);
      check_cli (path, (enum mode)mode, &e);
      free (path);
    }
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_report_loss_export.c -- a session with losses, an interaction left
 * open and spans left incomplete is reported honestly, and exported:
 *
 *  - report --json lists every LOSS record and the same number of lost
 *    records the recorder counted (emlat_status), the open interaction,
 *    and absent boundaries as counts (never a 0 value);
 *  - export --format=chrome is one valid JSON document in which every span
 *    the reader materializes appears exactly once (by span id), every
 *    LOSS record is an instant event and every thread has a name;
 *  - export --format=jsonl is one valid JSON object per line, one per
 *    decoded record, interactions with their derived metrics.
 *
 * The losses come from a 64-slot ring filled while its writer is held
 * stopped (tests/lib/hold.h), so that they are certain in any build; the
 * test compares the report with the recorder's own count, not a constant.
 */
#include <inttypes.h>

#include "emlat/emlat_reader.h"
#include "hold.h"
#include "report_fixture.h"

static uint64_t dropped;

static void
record (const char *path)
{
  if (fx_start (path, "1", 24, 64) != 0)
    return;
  uint64_t base = 1000000000ull;
  for (uint64_t i = 1; i <= 5; i++)
    {
      fx_flushed (EMLAT_ROOT_TTY_COMMAND, base + i * 100 * MS, 10 * US, i * MS, i * MS / 2);
      emlat_flush ();
    }
  /* Left open: begun, never ended. */
  uint64_t open = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  uint64_t outer = emlat_span_begin (EMLAT_SPAN_COMMAND_LOOP, open);
  emlat_flush ();
  /* A burst far larger than the ring, the writer held stopped so that
     the ring overflows in any build. */
  struct tu_held held_thread;
  int held = tu_hold_writer (&held_thread, "the ring may not overflow");
  for (int i = 0; i < 20000; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_GC, open);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
    }
  tu_release_thread (&held_thread);
  (void)outer;
  fx_stop ();
  struct emlat_status st;
  emlat_status (&st);
  dropped = st.records_dropped;
  TEST_DIAG ("recorder dropped %" PRIu64 " records", dropped);
  if (held)
    CHECK (dropped > 0, "the burst overflowed the ring");
}

static void
check_report (const char *path)
{
  struct tu_result r;
  if (fx_emlat (&r, "report", "--json", path, NULL, NULL, NULL) != 0)
    return;
  CHECK (r.exited && r.exit_code == 0, "report exit 0 (got %d): %s", r.exit_code, r.err);
  struct jv *doc = fx_json (&r);
  const struct jv *l = jv_get (doc, "losses");
  CHECK_EQ_U64 (jv_u64 (jv_get (l, "lost_records")), dropped);
  uint64_t nloss = jv_u64 (jv_get (l, "loss_records"));
  CHECK (nloss >= 1, "at least one LOSS record");
  CHECK_EQ_U64 (jv_get (l, "intervals")->n, nloss);
  uint64_t sum = 0;
  for (size_t i = 0; i < jv_get (l, "intervals")->n; i++)
    {
      const struct jv *x = jv_at (jv_get (l, "intervals"), i);
      sum += jv_u64 (jv_get (x, "records"));
      CHECK_EQ_STR (jv_str (jv_get (x, "reason")), "ring_full");
      CHECK (jv_u64 (jv_get (x, "last_ns")) >= jv_u64 (jv_get (x, "first_ns")), "interval order");
    }
  CHECK_EQ_U64 (sum, dropped);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (jv_get (doc, "interactions"), "by_status"), "open")), 1);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (doc, "interactions"), "no_output")), 1);
  /* The open interaction has only its dispatch begin: everything else is
     counted as missing, and its group has no command sample at all. */
  const struct jv *miss = jv_get (jv_get (jv_get (doc, "unavailable"), "no_output"), "missing");
  CHECK_EQ_U64 (jv_u64 (jv_get (miss, "t_command_end")), 1);
  CHECK_EQ_U64 (jv_u64 (jv_get (miss, "t_dispatch_begin")), 0);
  const struct jv *g = fx_group (doc, "tty_command", "no_output");
  CHECK_EQ_U64 (fx_stat (g, "command_ns", "n"), 0);
  CHECK (jv_get (jv_get (jv_get (g, "metrics"), "command_ns"), "median")->type == JV_NULL,
         "absent median is null");
  jv_free (doc);
  tu_result_free (&r);

  if (fx_emlat (&r, "report", path, NULL, NULL, NULL, NULL) == 0)
    {
      char want[96];
      snprintf (want, sizeof want, ": %" PRIu64 " records (%" PRIu64 " bytes) lost", dropped,
                dropped * 32);
      CHECK_CONTAINS (r.out, want);
      CHECK_CONTAINS (r.out, "ring_full");
      CHECK_CONTAINS (r.out, "1 open");
      tu_result_free (&r);
    }
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void
check_chrome (const char *dir, const char *path)
{
  const char *paths[1] = { path };
  struct emlat_profile *p;
  CHECK_OK (emlat_profile_load (paths, 1, NULL, EMLAT_LOAD_SPANS, &p));
  size_t nspans;
  const struct emlat_span *spans = emlat_profile_spans (p, &nspans, NULL);
  size_t nloss;
  emlat_profile_losses (p, &nloss);
  /* Every event carries the recording process's id (SESSION process.pid). */
  size_t nkv;
  const struct emlat_kv *kv = emlat_profile_session (p, &nkv);
  const struct emlat_kv *pid = emlat_kv_find (kv, nkv, "process.pid");
  CHECK (pid && pid->type == 0 && pid->u > 0, "SESSION process.pid");
  uint64_t want_pid = pid ? pid->u : 1;
  TEST_DIAG ("%zu spans, %zu LOSS records in the profile", nspans, nloss);

  char *out = tu_strf ("%s/trace.json", dir);
  struct tu_result r;
  if (fx_emlat (&r, "export", "--format=chrome", "-o", out, path, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 0, "chrome export exit 0 (got %d): %s", r.exit_code, r.err);
      tu_result_free (&r);
    }
  uint8_t *buf;
  size_t len;
  CHECK_OK (tu_read_file (out, &buf, &len));
  size_t at = 0;
  struct jv *doc = jv_parse ((const char *)buf, len, &at);
  CHECK (doc != NULL, "the Chrome trace is valid JSON (error at %zu)", at);
  const struct jv *ev = jv_get (doc, "traceEvents");
  CHECK (ev && ev->type == JV_ARR, "traceEvents array");
  uint64_t *ids = calloc (nspans + 1, sizeof *ids);
  size_t nids = 0, ninstant = 0, nb = 0, ne = 0;
  uint64_t named[64];
  size_t nnamed = 0;
  for (size_t i = 0; ev && i < ev->n; i++)
    {
      const struct jv *e = ev->items[i];
      const char *ph = jv_str (jv_get (e, "ph")), *cat = jv_str (jv_get (e, "cat"));
      CHECK (ph != NULL, "event %zu has a phase", i);
      if (!ph)
        continue;
      CHECK_EQ_U64 (jv_u64 (jv_get (e, "pid")), want_pid);
      if (!strcmp (ph, "M") && !strcmp (jv_str (jv_get (e, "name")), "thread_name") && nnamed < 64)
        named[nnamed++] = jv_u64 (jv_get (e, "tid"));
      if (cat && !strcmp (cat, "span"))
        {
          CHECK (!strcmp (ph, "X") || !strcmp (ph, "B"), "span events are X or B");
          if (nids < nspans + 1)
            ids[nids++] = jv_u64 (jv_get (jv_get (e, "args"), "span_id"));
          const struct jv *ts = jv_get (e, "ts");
          CHECK (ts && ts->type == JV_NUM && strchr (ts->s, '.'), "ts in us with decimals");
        }
      if (!strcmp (ph, "i"))
        ninstant++;
      if (!strcmp (ph, "b"))
        nb++;
      if (!strcmp (ph, "e"))
        ne++;
      if (!strcmp (ph, "X") || !strcmp (ph, "B"))
        {
          uint64_t tid = jv_u64 (jv_get (e, "tid"));
          int found = 0;
          for (size_t k = 0; k < nnamed; k++)
            found |= named[k] == tid;
          CHECK (found, "thread %" PRIu64 " is named before its events", tid);
        }
    }
  CHECK_EQ_U64 (nids, nspans);
  qsort (ids, nids, sizeof *ids, cmp_u64);
  size_t k = 0;
  for (size_t i = 0; i < nids && k < nspans; i++, k++)
    if (ids[i] != spans[k].id)
      break;
  CHECK (k == nspans, "every span id exactly once (first mismatch at %zu of %zu)", k, nspans);
  CHECK_EQ_U64 (ninstant, nloss);
  CHECK_EQ_U64 (nb, 6);      /* 5 flushed + 1 open */
  CHECK_EQ_U64 (ne, 6);      /* the open one ends at the session's end */
  free (ids);
  jv_free (doc);
  free (buf);
  free (out);
  emlat_profile_free (p);
}

static void
check_jsonl (const char *path)
{
  struct tu_result r;
  if (fx_emlat (&r, "export", "--format=jsonl", path, NULL, NULL, NULL) != 0)
    return;
  CHECK (r.exited && r.exit_code == 0, "jsonl export exit 0 (got %d)", r.exit_code);
  size_t lines = 0, ix = 0, losses = 0, bad = 0;
  for (char *line = r.out, *nl; line < r.out + r.out_len; line = nl + 1)
    {
      nl = memchr (line, '\n', (size_t)(r.out + r.out_len - line));
      if (!nl)
        {
          bad++;
          break;
        }
      struct jv *v = jv_parse (line, (size_t)(nl - line), NULL);
      if (!v || v->type != JV_OBJ || !jv_str (jv_get (v, "record")))
        bad++;
      else
        {
          lines++;
          const char *kind = jv_str (jv_get (v, "record"));
          if (!strcmp (kind, "interaction_complete"))
            {
              ix++;
              if (!strcmp (jv_str (jv_get (v, "status")), "normal"))
                CHECK (jv_u64 (jv_get (jv_get (v, "metrics"), "command_ns")) != UINT64_MAX,
                       "a complete interaction line carries command_ns");
            }
          if (!strcmp (kind, "loss"))
            losses++;
        }
      jv_free (v);
    }
  CHECK_EQ_U64 (bad, 0);
  CHECK (lines > 20, "many records (%zu)", lines);
  CHECK_EQ_U64 (ix, 6); /* 5 complete + the open one's record at stop */
  CHECK (losses >= 1, "LOSS lines");
  tu_result_free (&r);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    TEST_DONE ();
  char *path = tu_strf ("%s/lossy.emlat", dir);
  record (path);
  check_report (path);
  check_chrome (dir, path);
  check_jsonl (path);
  struct tu_result r;
  if (fx_emlat (&r, "export", path, NULL, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 2, "export without --format: exit 2");
      tu_result_free (&r);
    }
  free (path);
  TEST_DONE ();
}

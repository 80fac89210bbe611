/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_export_chrome.c -- `emlat export --format=chrome` against the Trace
 * Event Format's pairing rules (docs/REPORT.md "Export"): every "B" has
 * its "E" on the same thread, every async "b" its "e" (same category and
 * id), every flow "s" its "f" (same id) and back; what was left open ends
 * at the session's end with args.incomplete; an interaction's slice
 * starts at its latest arrival, with the earliest in its args.
 *
 * On two profiles: a crafted one (an interaction and a span left open at
 * stop, a parent link and a scheduled_by link, one to a cause the profile
 * lacks) and the synthetic demo session (`emlat demo`).
 */
#include <inttypes.h>

#include "report_fixture.h"

struct pairs
{
  char key[96];
  int open;        /* begins minus ends */
};

/* Count KEY's begins (+1) and ends (-1) in P[0..*N). */
static void
tally (struct pairs *p, size_t *n, size_t cap, const char *key, int d)
{
  for (size_t i = 0; i < *n; i++)
    if (strcmp (p[i].key, key) == 0)
      {
        p[i].open += d;
        return;
      }
  if (*n == cap)
    return;
  snprintf (p[*n].key, sizeof p[*n].key, "%s", key);
  p[*n].open = d;
  (*n)++;
}

struct seen
{
  size_t b, e, s, f, B, E, incomplete;
};

/* Validate the trace in DOC; what it found in *S. */
static void
validate (const struct jv *doc, const char *what, struct seen *s)
{
  memset (s, 0, sizeof *s);
  const struct jv *ev = jv_get (doc, "traceEvents");
  CHECK (ev && ev->type == JV_ARR, "%s: traceEvents", what);
  if (!ev || ev->type != JV_ARR)
    return;
  static struct pairs async[8192], flows[8192], sync[256];
  size_t na = 0, nf = 0, ns = 0;
  for (size_t i = 0; i < ev->n; i++)
    {
      const struct jv *e = ev->items[i];
      const char *ph = jv_str (jv_get (e, "ph"));
      const struct jv *id = jv_get (e, "id");
      const struct jv *args = jv_get (e, "args");
      const struct jv *inc = args ? jv_get (args, "incomplete") : NULL;
      char key[96];
      if (!ph)
        continue;
      if (inc && inc->type == JV_BOOL && inc->b)
        s->incomplete++;
      if (!strcmp (ph, "b") || !strcmp (ph, "e"))
        {
          snprintf (key, sizeof key, "%s/%s", jv_str (jv_get (e, "cat")), id ? id->s : "?");
          tally (async, &na, 8192, key, ph[0] == 'b' ? 1 : -1);
          ph[0] == 'b' ? s->b++ : s->e++;
        }
      else if (!strcmp (ph, "s") || !strcmp (ph, "f"))
        {
          snprintf (key, sizeof key, "%s", id ? id->s : "?");
          tally (flows, &nf, 8192, key, ph[0] == 's' ? 1 : -1);
          ph[0] == 's' ? s->s++ : s->f++;
        }
      else if (!strcmp (ph, "B") || !strcmp (ph, "E"))
        {
          snprintf (key, sizeof key, "%s", jv_get (e, "tid") ? jv_get (e, "tid")->s : "?");
          tally (sync, &ns, 256, key, ph[0] == 'B' ? 1 : -1);
          ph[0] == 'B' ? s->B++ : s->E++;
        }
      else if (!strcmp (ph, "X"))
        CHECK (jv_get (e, "dur") != NULL, "%s: event %zu: X without dur", what, i);
    }
  size_t bad = 0;
  for (size_t i = 0; i < na; i++)
    bad += async[i].open != 0;
  CHECK (bad == 0, "%s: every b has its e (%zu async ids unpaired)", what, bad);
  bad = 0;
  for (size_t i = 0; i < nf; i++)
    bad += flows[i].open != 0;
  CHECK (bad == 0, "%s: every flow s has its f and back (%zu unpaired)", what, bad);
  bad = 0;
  for (size_t i = 0; i < ns; i++)
    bad += sync[i].open != 0;
  CHECK (bad == 0, "%s: every B has its E (%zu threads unbalanced)", what, bad);
  CHECK (s->b == s->e && s->s == s->f && s->B == s->E, "%s: counts b %zu e %zu s %zu f %zu", what,
         s->b, s->e, s->s, s->f);
}

static struct jv *
export (const char *path)
{
  struct tu_result r;
  if (fx_emlat (&r, "export", "--format=chrome", path, NULL, NULL, NULL) != 0)
    return NULL;
  CHECK (r.exited && r.exit_code == 0, "export %s: exit %d: %s", path, r.exit_code, r.err);
  struct jv *doc = fx_json (&r);
  tu_result_free (&r);
  return doc;
}

/* The event of phase PH and args.cause CAUSE. */
static const struct jv *
find_ix (const struct jv *doc, const char *ph, uint64_t cause)
{
  const struct jv *ev = jv_get (doc, "traceEvents");
  for (size_t i = 0; ev && i < ev->n; i++)
    {
      const struct jv *e = ev->items[i];
      if (strcmp (jv_str (jv_get (e, "ph")) ? jv_str (jv_get (e, "ph")) : "", ph) == 0
          && jv_get (e, "id") && jv_u64 (jv_get (e, "id")) == cause
          && strcmp (jv_str (jv_get (e, "cat")) ? jv_str (jv_get (e, "cat")) : "", "interaction")
               == 0)
        return e;
    }
  return NULL;
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    TEST_DONE ();
  char *path = tu_strf ("%s/crafted.emlat", dir);
  uint64_t base = 1000000000u, a = 0, open_ix = 0, timer = 0;
  if (fx_start (path, "1", 24, 0) == 0)
    {
      a = fx_flushed (EMLAT_ROOT_TTY_COMMAND, base, 40 * US, 2 * MS, MS);
      /* Left open at stop, with a span left open, child of A. */
      open_ix = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      emlat_ix_time (open_ix, EMLAT_T_INPUT_EARLIEST, base + 10 * MS);
      emlat_ix_time (open_ix, EMLAT_T_INPUT_LATEST, base + 10 * MS + 70 * US);
      emlat_ix_time (open_ix, EMLAT_T_DISPATCH_BEGIN, base + 11 * MS);
      emlat_ix_value (open_ix, EMLAT_V_PARENT_CAUSE, a);
      emlat_span_begin (EMLAT_SPAN_COMMAND, open_ix);
      /* A timer scheduled by A; another by a cause that is not there. */
      timer = emlat_ix_begin (EMLAT_ROOT_TIMER, 0, 0);
      emlat_ix_value (timer, EMLAT_V_SCHEDULED_BY_CAUSE, a);
      emlat_ix_end (timer, EMLAT_STATUS_NORMAL);
      uint64_t orphan = emlat_ix_begin (EMLAT_ROOT_TIMER, 0, 0);
      emlat_ix_value (orphan, EMLAT_V_SCHEDULED_BY_CAUSE, 999999);
      emlat_ix_end (orphan, EMLAT_STATUS_NORMAL);
      fx_stop ();
    }
  struct jv *doc = export (path);
  if (doc)
    {
      struct seen s;
      validate (doc, "crafted", &s);
      CHECK (s.b == 4, "four interaction slices (got %zu)", s.b);
      CHECK (s.s == 2, "two flows: parent and scheduled_by, none to the missing cause (got %zu)",
             s.s);
      CHECK (s.incomplete >= 3, "the open span, b and e marked incomplete (got %zu)",
             s.incomplete);
      const struct jv *b = find_ix (doc, "b", a);
      CHECK (b != NULL, "A's slice");
      if (b)
        {
          /* Starts at the latest arrival: base + 40 us, in microseconds. */
          char want[64];
          snprintf (want, sizeof want, "%" PRIu64 ".000", (uint64_t)((base + 40 * US) / 1000));
          CHECK_EQ_STR (jv_get (b, "ts")->s, want);
          CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (b, "args"), "t_input_earliest")), base);
        }
      const struct jv *e = find_ix (doc, "e", open_ix);
      CHECK (e && jv_get (jv_get (e, "args"), "incomplete")
               && jv_get (jv_get (e, "args"), "incomplete")->b,
             "the open interaction ends, incomplete");
      jv_free (doc);
    }
  (void)timer;

  /* The demo session. */
  char *demo = tu_strf ("%s/demo.emlat", dir);
  struct tu_result r;
  if (fx_emlat (&r, "demo", "-o", demo, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 0, "demo: exit %d: %s", r.exit_code, r.err);
      tu_result_free (&r);
      doc = export (demo);
      if (doc)
        {
          struct seen s;
          validate (doc, "demo", &s);
          CHECK (s.b > 50 && s.s > 0, "demo: interactions (%zu) and flows (%zu)", s.b, s.s);
          jv_free (doc);
        }
    }
  free (demo);
  free (path);
  TEST_DONE ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_app_api.c -- the application API (emlat_app.h) recorded and read
 * back through the public reader: what each call writes and what a profile
 * then holds (docs/API.md, FORMAT.md 6.5 F-66a, 6.9).
 *
 *  - without a session every call records nothing and returns 0, and
 *    emlat_trace_on is 0; thread and process names say -ENOENT;
 *  - named sections: their names, nesting, the scoped form ending at every
 *    way out of a block, the interaction they serve (the thread's current
 *    one, or an explicit one on another thread), a section open across a
 *    writer pass keeps its name (the end record carries it);
 *  - one id per distinct name in a session, whichever call sites use it;
 *    a second session re-interns (ids restart, F-5);
 *  - every event: instants, integer counters at their extremes, floating
 *    counters bit for bit, async slices begun and ended on two threads,
 *    a flow from one thread to another, thread and process names;
 *  - an application interaction: root kind application, its name, its
 *    boundaries and its sections.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "tap.h"
#include "testutil.h"

static char path[4096];

static struct emlat_profile *
load (void)
{
  const char *paths[] = { path };
  struct emlat_profile *p = NULL;
  if (emlat_profile_load (paths, 1, NULL, 0, &p) != 0)
    return NULL;
  return p;
}

/* The name of string ID in P, or "" / "(unknown)". */
static const char *
str (const struct emlat_profile *p, uint64_t id)
{
  static char buf[8][128];
  static int k;
  char *b = buf[k++ % 8];
  size_t len;
  const uint8_t *s = id ? emlat_profile_string (p, id, &len) : NULL;
  if (!id)
    return "";
  if (!s)
    return "(unknown)";
  snprintf (b, 128, "%.*s", (int)len, (const char *)s);
  return b;
}

static void
test_off (void)
{
  CHECK_EQ_U64 (emlat_trace_on, 0);
  CHECK_EQ_U64 (EMLAT_SECTION_BEGIN ("off"), 0);
  CHECK_EQ_U64 (EMLAT_FLOW_BEGIN ("off"), 0);
  CHECK_EQ_U64 (EMLAT_INTERACTION_BEGIN ("off"), 0);
  EMLAT_INSTANT ("off");
  EMLAT_COUNTER ("off", 1);
  {
    EMLAT_SCOPE ("off");
  }
  CHECK_EQ_U64 (emlat_thread_name ("t", 1), (uint64_t)-ENOENT);
  CHECK_EQ_U64 (emlat_process_name ("p", 1), (uint64_t)-ENOENT);
  struct emlat_name n = EMLAT_NAME_INIT ("off");
  CHECK_EQ_U64 (emlat_name_id (&n), 0);
  CHECK_EQ_U64 (n.cache, 0);
}

/* A block left by return: the scope still ends its section. */
static int
scoped_return (int x)
{
  EMLAT_SCOPE ("early");
  if (x > 0)
    return x;
  EMLAT_INSTANT ("not reached");
  return 0;
}

struct worker_arg
{
  uint64_t flow, ix;
};

static void *
worker (void *p)
{
  struct worker_arg *a = p;
  emlat_thread_name ("worker", 6);
  uint64_t s = EMLAT_SECTION_BEGIN_FOR ("job", a->ix);
  emlat_flow_end (a->flow);
  EMLAT_ASYNC_END ("io", 5);
  EMLAT_COUNTER_F ("ratio", -0.0);
  emlat_section_end (s);
  return NULL;
}

static void
record_session (void)
{
  struct emlat_options o = { .path = path, .flags = EMLAT_OPT_OVERWRITE };
  CHECK_OK (emlat_start (&o));
  CHECK_EQ_U64 (emlat_trace_on, 1);
  CHECK_OK (emlat_process_name ("app-test", 8));
  CHECK_OK (emlat_thread_name ("main", 4));
  uint64_t ix = EMLAT_INTERACTION_BEGIN ("request");
  CHECK (ix != 0, "an application interaction begins");
  CHECK_EQ_U64 (emlat_ix_current (), ix);
  uint64_t t0 = emlat_now ();
  emlat_ix_time (ix, EMLAT_T_INPUT_EARLIEST, t0);
  emlat_ix_time (ix, EMLAT_T_INPUT_LATEST, t0);
  {
    EMLAT_SCOPE ("handle");
    uint64_t parse = EMLAT_SECTION_BEGIN ("parse");
    uint64_t until = emlat_now () + 200000;
    while (emlat_now () < until)
      ;
    emlat_section_end (parse);
    /* Open across a writer pass: the begin record is written first. */
    uint64_t slow = EMLAT_SECTION_BEGIN ("slow");
    emlat_flush ();
    emlat_section_end (slow);
    CHECK_EQ_U64 (scoped_return (3), 3);
    for (int i = 0; i < 3; i++)
      {
        EMLAT_SCOPE ("loop");
        if (i == 1)
          continue;
        EMLAT_INSTANT ("tick");
      }
    EMLAT_COUNTER ("min", INT64_MIN);
    EMLAT_COUNTER ("max", INT64_MAX);
    EMLAT_COUNTER_F ("ratio", 0.1);
    EMLAT_COUNTER_F ("ratio", DBL_MAX);
    EMLAT_ASYNC_BEGIN ("io", 5);
    struct worker_arg a = { EMLAT_FLOW_BEGIN ("handoff"), ix };
    CHECK (a.flow != 0, "a flow id");
    pthread_t t;
    pthread_create (&t, NULL, worker, &a);
    pthread_join (t, NULL);
  }
  /* The same name at another call site: the same id. */
  uint64_t again = EMLAT_SECTION_BEGIN ("parse");
  emlat_section_end (again);
  emlat_ix_mark (ix, EMLAT_T_FLUSH_END);
  emlat_interaction_end (ix, EMLAT_STATUS_NORMAL);
  CHECK_EQ_U64 (emlat_ix_current (), 0);
  uint64_t after = EMLAT_SECTION_BEGIN ("after");
  emlat_section_end (after);
  CHECK_OK (emlat_stop ());
  CHECK_EQ_U64 (emlat_trace_on, 0);
}

static uint64_t
thread_named (const struct emlat_profile *p, const char *name)
{
  size_t n;
  const struct emlat_event *e = emlat_profile_events (p, &n);
  for (size_t i = 0; i < n; i++)
    if (e[i].ev.tag == EMLAT_EV_THREAD_NAME && strcmp (str (p, e[i].ev.name), name) == 0)
      return e[i].thread;
  return 0;
}

static void
check_profile (void)
{
  struct emlat_profile *p = load ();
  CHECK (p != NULL, "profile loads");
  if (!p)
    return;
  CHECK_EQ_U64 (emlat_profile_totals (p)->damage, 0);
  CHECK_EQ_U64 (emlat_profile_totals (p)->lost_records, 0);
  uint64_t main_t = thread_named (p, "main"), worker_t = thread_named (p, "worker");
  CHECK (main_t && worker_t && main_t != worker_t, "both threads named (%llu, %llu)",
         (unsigned long long)main_t, (unsigned long long)worker_t);

  /* The interaction. */
  size_t ni;
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &ni);
  CHECK_EQ_U64 (ni, 1);
  CHECK_EQ_U64 (ix[0].root_kind, EMLAT_ROOT_APPLICATION);
  CHECK (strcmp (str (p, ix[0].name), "request") == 0, "interaction named %s",
         str (p, ix[0].name));
  CHECK_EQ_U64 (ix[0].status, EMLAT_STATUS_NORMAL);
  uint64_t d;
  CHECK (emlat_profile_ix_duration (p, &ix[0], EMLAT_T_INPUT_LATEST, EMLAT_T_FLUSH_END, &d),
         "input to flush present");
  uint64_t cause = ix[0].cause;

  /* Sections: name -> count, and who they serve. */
  size_t nn;
  const struct emlat_named_span *s = emlat_profile_named_spans (p, &nn);
  unsigned handle = 0, parse = 0, slow = 0, early = 0, loop = 0, job = 0, after = 0;
  uint64_t parse_id = 0;
  for (size_t i = 0; i < nn; i++)
    {
      const char *name = str (p, s[i].name);
      if (!strcmp (name, "handle"))
        handle++, CHECK_EQ_U64 (s[i].cause, cause);
      else if (!strcmp (name, "parse"))
        {
          parse++;
          CHECK (parse_id == 0 || parse_id == s[i].name, "one id per name");
          parse_id = s[i].name;
          CHECK_EQ_U64 (s[i].cause, cause);
          CHECK_EQ_U64 (s[i].thread, main_t);
        }
      else if (!strcmp (name, "slow"))
        slow++;
      else if (!strcmp (name, "early"))
        early++;
      else if (!strcmp (name, "loop"))
        loop++;
      else if (!strcmp (name, "job"))
        {
          job++;
          CHECK_EQ_U64 (s[i].cause, cause);
          CHECK_EQ_U64 (s[i].thread, worker_t);
        }
      else if (!strcmp (name, "after"))
        {
          after++;
          CHECK_EQ_U64 (s[i].cause, 0); /* the interaction had ended */
        }
      else
        CHECK (0, "unexpected section %s", name);
    }
  CHECK (handle == 1 && parse == 2 && slow == 1 && early == 1 && loop == 3 && job == 1
           && after == 1,
         "sections: handle %u parse %u slow %u early %u loop %u job %u after %u", handle, parse,
         slow, early, loop, job, after);
  CHECK_EQ_U64 (emlat_profile_totals (p)->spans_incomplete, 0);

  /* Events. */
  size_t ne;
  const struct emlat_event *e = emlat_profile_events (p, &ne);
  unsigned ticks = 0, flows = 0, asyncs = 0, proc = 0, ratios = 0;
  uint64_t flow_id = 0;
  for (size_t i = 0; i < ne; i++)
    {
      const struct emlat_rd_event *v = &e[i].ev;
      const char *name = str (p, v->name);
      switch (v->tag)
        {
        case EMLAT_EV_INSTANT:
          CHECK (!strcmp (name, "tick"), "instant %s", name);
          ticks++;
          break;
        case EMLAT_EV_COUNTER:
          if (!strcmp (name, "min"))
            CHECK (v->iv == INT64_MIN, "min counter");
          else
            CHECK (!strcmp (name, "max") && v->iv == INT64_MAX, "max counter");
          break;
        case EMLAT_EV_COUNTER_F:
          CHECK (!strcmp (name, "ratio"), "floating counter named ratio");
          if (ratios == 0)
            CHECK (v->fv == 0.1, "0.1 exactly");
          else if (ratios == 1)
            CHECK (v->fv == DBL_MAX, "DBL_MAX exactly");
          else
            CHECK (v->fv == 0.0 && signbit (v->fv) && e[i].thread == worker_t,
                   "-0.0 from the worker");
          ratios++;
          break;
        case EMLAT_EV_ASYNC_BEGIN:
        case EMLAT_EV_ASYNC_END:
          CHECK (!strcmp (name, "io") && v->id == 5, "async io 5");
          CHECK_EQ_U64 (e[i].thread, v->tag == EMLAT_EV_ASYNC_BEGIN ? main_t : worker_t);
          asyncs++;
          break;
        case EMLAT_EV_FLOW_BEGIN:
          CHECK (!strcmp (name, "handoff") && e[i].thread == main_t, "flow begins on main");
          flow_id = v->id;
          flows++;
          break;
        case EMLAT_EV_FLOW_END:
          CHECK (v->id == flow_id && e[i].thread == worker_t, "flow ends on the worker");
          flows++;
          break;
        case EMLAT_EV_PROCESS_NAME:
          CHECK (!strcmp (name, "app-test"), "process name");
          proc++;
          break;
        }
    }
  CHECK (ticks == 2 && flows == 2 && asyncs == 2 && proc == 1 && ratios == 3,
         "events: ticks %u flows %u asyncs %u process %u ratios %u", ticks, flows, asyncs, proc,
         ratios);
  /* One STRING per distinct name: "parse" twice is one string. */
  size_t nstr = 0;
  for (uint64_t id = 1; id < 100; id++)
    {
      size_t len;
      if (emlat_profile_string (p, id, &len))
        nstr++;
    }
  /* app-test main request handle parse slow early loop tick min max ratio
     io handoff worker job after */
  CHECK (nstr == 17, "%zu distinct strings", nstr);
  emlat_profile_free (p);
}

/* A second session: the call sites' cached ids belong to the first one;
   the names are interned again. */
static void
test_second_session (void)
{
  struct emlat_options o = { .path = path, .flags = EMLAT_OPT_OVERWRITE };
  CHECK_OK (emlat_start (&o));
  for (int i = 0; i < 2; i++)
    {
      uint64_t h = i ? EMLAT_SECTION_BEGIN ("second") : EMLAT_SECTION_BEGIN ("first");
      emlat_section_end (h);
    }
  CHECK_EQ_U64 (scoped_return (1), 1);
  CHECK_OK (emlat_stop ());
  struct emlat_profile *p = load ();
  CHECK (p != NULL, "second profile loads");
  if (!p)
    return;
  size_t nn;
  const struct emlat_named_span *s = emlat_profile_named_spans (p, &nn);
  CHECK_EQ_U64 (nn, 3);
  for (size_t i = 0; i < nn; i++)
    CHECK (strcmp (str (p, s[i].name), "(unknown)") != 0 && s[i].name <= 3,
           "section %zu named %s (id %llu)", i, str (p, s[i].name),
           (unsigned long long)s[i].name);
  emlat_profile_free (p);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  snprintf (path, sizeof path, "%s/app.emlat", dir);
  test_off ();
  record_session ();
  check_profile ();
  test_second_session ();
  test_off ();
  TEST_DONE ();
}

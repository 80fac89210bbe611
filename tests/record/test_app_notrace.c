/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_app_notrace.c -- the compile-time switch of the application API
 * (emlat_app.h): with EMLAT_NO_TRACE defined before emlat.h, every macro
 * and inline call compiles to nothing, so even with a session recording
 * they add no record; the session itself still works.
 */
#define EMLAT_NO_TRACE 1

#include <stdio.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "tap.h"
#include "testutil.h"

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  char path[4096];
  snprintf (path, sizeof path, "%s/notrace.emlat", dir);
  struct emlat_options o = { .path = path };
  CHECK_OK (emlat_start (&o));
  CHECK_EQ_U64 (emlat_trace_on, 1); /* a session records ... */
  uint64_t h = EMLAT_SECTION_BEGIN ("compiled-out");
  CHECK_EQ_U64 (h, 0); /* ... but these calls are not there */
  emlat_section_end (h);
  {
    EMLAT_SCOPE ("compiled-out");
    EMLAT_INSTANT ("compiled-out");
    EMLAT_COUNTER ("compiled-out", 1);
    EMLAT_COUNTER_F ("compiled-out", 1.0);
    EMLAT_ASYNC_BEGIN ("compiled-out", 1);
    EMLAT_ASYNC_END ("compiled-out", 1);
    uint64_t f = EMLAT_FLOW_BEGIN ("compiled-out");
    CHECK_EQ_U64 (f, 0);
    emlat_flow_step (f);
    emlat_flow_end (f);
    CHECK_EQ_U64 (EMLAT_INTERACTION_BEGIN ("compiled-out"), 0);
  }
  /* The rest of the API is unchanged. */
  uint64_t s = emlat_span_begin (EMLAT_SPAN_COMMAND, 0);
  emlat_span_end (s, EMLAT_SPAN_OK, 0);
  CHECK_OK (emlat_stop ());
  const char *paths[] = { path };
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load (paths, 1, NULL, 0, &p));
  size_t n;
  emlat_profile_events (p, &n);
  CHECK_EQ_U64 (n, 0);
  emlat_profile_named_spans (p, &n);
  CHECK_EQ_U64 (n, 0);
  emlat_profile_interactions (p, &n);
  CHECK_EQ_U64 (n, 0);
  CHECK_EQ_U64 (emlat_profile_totals (p)->spans_complete, 1);
  size_t len;
  CHECK (emlat_profile_string (p, 1, &len) == NULL, "no name was interned");
  emlat_profile_free (p);
  TEST_DONE ();
}

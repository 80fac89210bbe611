/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_event_crafted.c -- the format 1.1 records on hand-crafted files:
 * EVENT chunks (FORMAT.md 6.9, F-96, F-97) and INTERACTION type version 2
 * (F-66a), valid and hostile.  Each case says which rule it exercises.
 *
 *  - every EVENT tag decodes to what was written, the floating value bit
 *    for bit (a NaN included);
 *  - a tag out of 1..10, a thread or process name without a name, an async
 *    or flow record without an id, a floating counter cut short, an EVENT
 *    block without a thread (F-53), make the chunk invalid (F-27, F-91)
 *    and the next chunk is still read;
 *  - root kind 11 is valid in INTERACTION version 2 and invalid in version
 *    1; version 3 is skipped and reported (F-31), not damage;
 *  - a name id the dictionary lacks is kept as the number (F-41), and the
 *    loaded profile holds the events and the interaction's name.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"
#include "craft.h"
#include "tap.h"

static struct collect c;

static void start_file (struct craft *f, struct craft *p)
{
  f->n = 0;
  craft_file_header (f, craft_uuid_a, 0);
  craft_session (p, "k", 1);
  craft_chunk (f, EMLAT_CHUNK_SESSION, 1, p);
}

static void put_f64 (struct craft *p, double v)
{
  uint64_t bits;
  memcpy (&bits, &v, 8);
  for (int i = 0; i < 8; i++)
    craft_u8 (p, (uint8_t)(bits >> (8 * i)));
}

/* Every tag once, thread 3, base time 1000 (function records: offsets 0
   and 0x40). */
static void every_tag (struct craft *p, double fv)
{
  craft_block (p, 1000, 3, 12);
  craft_uv (p, EMLAT_EV_INSTANT), craft_uv (p, 5), craft_sv (p, 0);
  craft_uv (p, EMLAT_EV_COUNTER), craft_uv (p, 6), craft_sv (p, 10), craft_sv (p, -42);
  craft_uv (p, EMLAT_EV_COUNTER_F), craft_uv (p, 7), craft_sv (p, 10), put_f64 (p, fv);
  craft_uv (p, EMLAT_EV_ASYNC_BEGIN), craft_uv (p, 8), craft_sv (p, 10), craft_uv (p, 77);
  craft_uv (p, EMLAT_EV_ASYNC_END), craft_uv (p, 8), craft_sv (p, 10), craft_uv (p, 77);
  craft_uv (p, EMLAT_EV_FLOW_BEGIN), craft_uv (p, 9), craft_sv (p, -5), craft_uv (p, 1);
  craft_uv (p, EMLAT_EV_FLOW_STEP), craft_uv (p, 0), craft_sv (p, 1), craft_uv (p, 1);
  craft_uv (p, EMLAT_EV_FLOW_END), craft_uv (p, 0), craft_sv (p, 1), craft_uv (p, 1);
  craft_uv (p, EMLAT_EV_THREAD_NAME), craft_uv (p, 10), craft_sv (p, 1);
  craft_uv (p, EMLAT_EV_PROCESS_NAME), craft_uv (p, 999), craft_sv (p, 1);
  craft_uv (p, EMLAT_EV_FN_ENTER), craft_uv (p, 10), craft_sv (p, 1), craft_uv (p, 0);
  craft_uv (p, EMLAT_EV_FN_EXIT), craft_uv (p, 10), craft_sv (p, 1), craft_uv (p, 0x40);
}

/* 6.9: what every tag decodes to. */
static void test_valid (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  every_tag (&p, 0.1);
  craft_chunk (&f, EMLAT_CHUNK_EVENT, 2, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (c.res.chunks_invalid, 0);
  CHECK_EQ_U64 (c.res.chunks_by_type[EMLAT_CHUNK_EVENT], 1);
  CHECK_EQ_U64 (c.n_recs, 13);
  const struct emlat_record *r = &c.recs[1];
  static const uint64_t t[12] = { 1000, 1010, 1020, 1030, 1040, 1035,
                                  1036, 1037, 1038, 1039, 1040, 1041 };
  for (int i = 0; i < 12; i++)
    {
      CHECK (r[i].kind == EMLAT_REC_EVENT, "record %d is an event", i);
      CHECK (r[i].u.event.tag == (uint32_t)i + 1, "record %d tag %u", i, r[i].u.event.tag);
      CHECK (r[i].u.event.t == t[i], "record %d time %llu", i,
             (unsigned long long)r[i].u.event.t);
      CHECK_EQ_U64 (r[i].thread, 3);
    }
  CHECK_EQ_U64 (r[1].u.event.iv, (uint64_t)(int64_t)-42);
  CHECK (r[2].u.event.fv == 0.1, "floating value 0.1 bit for bit");
  CHECK_EQ_U64 (r[3].u.event.id, 77);
  CHECK_EQ_U64 (r[5].u.event.id, 1);
  CHECK_EQ_U64 (r[6].u.event.name, 0);
  CHECK_EQ_U64 (r[9].u.event.name, 999);
  CHECK_EQ_U64 (r[10].u.event.id, 0);    /* an offset may be 0 */
  CHECK_EQ_U64 (r[11].u.event.id, 0x40);
  /* F-96: any bit pattern, a NaN included. */
  start_file (&f, &p);
  every_tag (&p, NAN);
  craft_chunk (&f, EMLAT_CHUNK_EVENT, 2, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.chunks_invalid, 0);
  CHECK (isnan (c.recs[3].u.event.fv), "a NaN counter value is kept");
  craft_free (&f);
  craft_free (&p);
}

/* F-27: a payload that passes its CRC but does not decode; the next chunk
   is read. */
static void invalid_case (const char *name, const struct craft *payload, uint16_t type,
                          uint16_t version, enum emlat_invalid why)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  size_t off = craft_chunk_ex (&f, type, version, 0, 2, payload->b, payload->n);
  craft_span1 (&p, 5, 2, 100, 1, EMLAT_SPAN_COMMAND);
  craft_chunk (&f, EMLAT_CHUNK_SPAN, 3, &p);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK (c.res.stop == EMLAT_STOP_CLEAN, "%s: stop %d", name, c.res.stop);
  const struct emlat_diag *d = collect_find (&c, EMLAT_DIAG_INVALID_CHUNK);
  CHECK (c.res.chunks_invalid == 1 && d && d->offset == off && d->a == (uint64_t)why,
         "%s: invalid %llu, reason %llu (want %d)", name,
         (unsigned long long)c.res.chunks_invalid, d ? (unsigned long long)d->a : 0ull, why);
  CHECK (c.n_recs == 2 && c.recs[1].kind == EMLAT_REC_SPAN_COMPLETE, "%s: records %zu", name,
         c.n_recs);
  craft_free (&f);
  craft_free (&p);
}

static void test_invalid_events (void)
{
  struct craft p = { 0 };
  /* F-91: tag out of range. */
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, 0), craft_uv (&p, 1), craft_sv (&p, 0);
  invalid_case ("tag 0", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_RANGE);
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, 13), craft_uv (&p, 1), craft_sv (&p, 0);
  invalid_case ("tag 13", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_RANGE);
  /* A function record names its module and carries its offset. */
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_EV_FN_ENTER), craft_uv (&p, 0), craft_sv (&p, 0), craft_uv (&p, 0x1234);
  invalid_case ("fn_enter without a module", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_RANGE);
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_EV_FN_EXIT), craft_uv (&p, 3), craft_sv (&p, 0);
  invalid_case ("fn_exit without its offset", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_SHORT);
  /* A thread name without a name. */
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_EV_THREAD_NAME), craft_uv (&p, 0), craft_sv (&p, 0);
  invalid_case ("thread name 0", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_RANGE);
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_EV_PROCESS_NAME), craft_uv (&p, 0), craft_sv (&p, 0);
  invalid_case ("process name 0", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_RANGE);
  /* An async slice and a flow without an id. */
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_EV_ASYNC_END), craft_uv (&p, 4), craft_sv (&p, 0), craft_uv (&p, 0);
  invalid_case ("async id 0", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_RANGE);
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_EV_FLOW_STEP), craft_uv (&p, 0), craft_sv (&p, 0), craft_uv (&p, 0);
  invalid_case ("flow id 0", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_RANGE);
  /* A floating value cut short: the payload ends inside it. */
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_EV_COUNTER_F), craft_uv (&p, 4), craft_sv (&p, 0);
  craft_u8 (&p, 1), craft_u8 (&p, 2), craft_u8 (&p, 3);
  invalid_case ("short double", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_SHORT);
  /* A counter whose value varint is cut. */
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_EV_COUNTER), craft_uv (&p, 4), craft_sv (&p, 0), craft_u8 (&p, 0x80);
  invalid_case ("cut counter", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_SHORT);
  /* F-53: an EVENT block names its thread. */
  p.n = 0;
  craft_block (&p, 0, 0, 1);
  craft_uv (&p, EMLAT_EV_INSTANT), craft_uv (&p, 1), craft_sv (&p, 0);
  invalid_case ("thread 0", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_BLOCK);
  /* F-50: a byte left over. */
  p.n = 0;
  craft_block (&p, 0, 1, 1);
  craft_uv (&p, EMLAT_EV_INSTANT), craft_uv (&p, 1), craft_sv (&p, 0), craft_u8 (&p, 0);
  invalid_case ("trailing", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_TRAILING);
  /* A count larger than the records (F-50). */
  p.n = 0;
  craft_block (&p, 0, 1, 2);
  craft_uv (&p, EMLAT_EV_INSTANT), craft_uv (&p, 1), craft_sv (&p, 0);
  invalid_case ("count", &p, EMLAT_CHUNK_EVENT, 1, EMLAT_INVALID_SHORT);
  craft_free (&p);
}

/* An INTERACTION complete record of root kind KIND, name NAME (written
   when VERSION >= 2), cause CAUSE, only t_dispatch_begin. */
static void ix_complete (struct craft *p, uint16_t version, uint64_t cause, uint64_t kind,
                         uint64_t name)
{
  craft_uv (p, version);
  craft_uv (p, 500); /* base time */
  craft_uv (p, 0);   /* thread 0: each record names it */
  craft_uv (p, 1);
  craft_uv (p, EMLAT_IX_TAG_COMPLETE);
  craft_uv (p, 2); /* thread */
  craft_uv (p, cause);
  craft_uv (p, kind);
  if (version >= 2)
    craft_uv (p, name);
  craft_uv (p, EMLAT_STATUS_NORMAL);
  craft_uv (p, 1u << EMLAT_T_DISPATCH_BEGIN);
  craft_sv (p, 0);
  craft_uv (p, 0); /* qualities */
  craft_uv (p, 0); /* values */
  craft_uv (p, 0); /* counters */
}

/* F-66a and F-31: version 2 names an interaction and allows root kind 11;
   version 1 does not; version 3 is skipped. */
static void test_interaction_v2 (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  p.n = 0;
  ix_complete (&p, 2, 4, EMLAT_ROOT_APPLICATION, 12345);
  craft_chunk_ex (&f, EMLAT_CHUNK_INTERACTION, 2, 0, 2, p.b, p.n);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.chunks_invalid, 0);
  CHECK_EQ_U64 (c.n_recs, 2);
  CHECK_EQ_U64 (c.recs[1].kind, EMLAT_REC_IX_COMPLETE);
  CHECK_EQ_U64 (c.recs[1].u.ix.root_kind, EMLAT_ROOT_APPLICATION);
  CHECK_EQ_U64 (c.recs[1].u.ix.name, 12345);

  p.n = 0;
  ix_complete (&p, 1, 4, EMLAT_ROOT_APPLICATION, 0);
  invalid_case ("root kind 11 in version 1", &p, EMLAT_CHUNK_INTERACTION, 1,
                EMLAT_INVALID_RANGE);
  p.n = 0;
  ix_complete (&p, 2, 4, EMLAT_ROOT_APPLICATION + 1, 1);
  invalid_case ("root kind 12 in version 2", &p, EMLAT_CHUNK_INTERACTION, 2,
                EMLAT_INVALID_RANGE);
  /* A name on another root kind is accepted in version 2. */
  start_file (&f, &p);
  p.n = 0;
  ix_complete (&p, 2, 4, EMLAT_ROOT_TIMER, 3);
  craft_chunk_ex (&f, EMLAT_CHUNK_INTERACTION, 2, 0, 2, p.b, p.n);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.chunks_invalid, 0);
  CHECK_EQ_U64 (c.recs[1].u.ix.name, 3);
  /* F-31: a newer type version is skipped and reported, not damage. */
  start_file (&f, &p);
  p.n = 0;
  ix_complete (&p, 3, 4, EMLAT_ROOT_APPLICATION, 1);
  craft_chunk_ex (&f, EMLAT_CHUNK_INTERACTION, 3, 0, 2, p.b, p.n);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.chunks_skipped, 1);
  CHECK (collect_find (&c, EMLAT_DIAG_SKIP_VERSION) != NULL, "version 3 reported");
  /* EVENT version 2 does not exist yet: skipped. */
  start_file (&f, &p);
  every_tag (&p, 1.0);
  craft_chunk_ex (&f, EMLAT_CHUNK_EVENT, 2, 0, 2, p.b, p.n);
  collect_scan (&c, f.b, f.n, NULL);
  CHECK_EQ_U64 (c.res.chunks_skipped, 1);
  CHECK_EQ_U64 (c.n_recs, 1);
  craft_free (&f);
  craft_free (&p);
}

/* F-41, F-97: a loaded profile keeps the events, with unknown name ids as
   numbers, and an application interaction's name; none of it is damage. */
static void test_profile (void)
{
  struct craft f = { 0 }, p = { 0 };
  start_file (&f, &p);
  craft_block (&p, 0, 0, 1);
  craft_uv (&p, 10), craft_uv (&p, 7), craft_bytes (&p, "request", 7);
  craft_chunk (&f, EMLAT_CHUNK_STRING, 2, &p);
  p.n = 0;
  every_tag (&p, 2.5);
  craft_chunk (&f, EMLAT_CHUNK_EVENT, 3, &p);
  p.n = 0;
  ix_complete (&p, 2, 4, EMLAT_ROOT_APPLICATION, 10);
  craft_chunk_ex (&f, EMLAT_CHUNK_INTERACTION, 2, 0, 4, p.b, p.n);
  struct emlat_buffer b = { .data = f.b, .len = f.n, .name = "crafted" };
  struct emlat_profile *prof = NULL;
  CHECK_OK (emlat_profile_load_buffers (&b, 1, NULL, 0, &prof));
  size_t n;
  const struct emlat_event *ev = emlat_profile_events (prof, &n);
  CHECK_EQ_U64 (n, 12);
  CHECK_EQ_U64 (ev[9].ev.name, 999); /* no string 999: kept */
  CHECK_EQ_U64 (ev[9].thread, 3);
  size_t len;
  CHECK (emlat_profile_string (prof, 999, &len) == NULL, "string 999 is unknown");
  const struct emlat_interaction *ix = emlat_profile_find_interaction (prof, 4);
  CHECK (ix && ix->name == 10 && ix->root_kind == EMLAT_ROOT_APPLICATION,
         "the application interaction and its name");
  const uint8_t *s = emlat_profile_string (prof, 10, &len);
  CHECK (s && len == 7 && memcmp (s, "request", 7) == 0, "its name resolves");
  CHECK_EQ_U64 (emlat_profile_totals (prof)->damage, 0);
  emlat_profile_free (prof);
  /* limits.max_events: a limit, never an unbounded allocation. */
  struct emlat_limits lim;
  memset (&lim, 0, sizeof lim);
  lim.max_events = 4;
  CHECK_OK (emlat_profile_load_buffers (&b, 1, &lim, 0, &prof));
  CHECK (emlat_profile_totals (prof)->limit_hit, "max_events stops the load");
  emlat_profile_events (prof, &n);
  CHECK (n <= 4, "at most max_events kept (%zu)", n);
  emlat_profile_free (prof);
  craft_free (&f);
  craft_free (&p);
}

int main (void)
{
  test_valid ();
  test_invalid_events ();
  test_interaction_v2 ();
  test_profile ();
  TEST_DONE ();
}

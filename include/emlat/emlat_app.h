/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * emlat_app.h -- the application API of libemlat: what any C program
 * records about itself, on the same per-thread rings as the rest of
 * emlat.h (included by it; docs/API.md is the guide).
 *
 *   sections      named, nested, per thread: EMLAT_SECTION_BEGIN /
 *                 emlat_section_end, or EMLAT_SCOPE, which ends itself at
 *                 scope exit (__attribute__((cleanup)));
 *   instants      EMLAT_INSTANT: a named point in time;
 *   counters      EMLAT_COUNTER (int64_t) and EMLAT_COUNTER_F (double): a
 *                 named value over time;
 *   async slices  EMLAT_ASYNC_BEGIN / EMLAT_ASYNC_END with an id of the
 *                 application's own, on any threads;
 *   flows         EMLAT_FLOW_BEGIN returns an id that another thread passes
 *                 to emlat_flow_step / emlat_flow_end: an arrow between them;
 *   names         emlat_thread_name, emlat_process_name;
 *   interactions  EMLAT_INTERACTION_BEGIN ("request", "frame", "keystroke"):
 *                 an interaction of root kind application with a name,
 *                 set and ended with emlat_ix_* like any other, reported
 *                 with the same latency populations and waterfalls.
 *
 * Names are string literals.  Each call site owns a static descriptor
 * (struct emlat_name) that the first call of a session interns (a lock,
 * once per call site and session, the same id for the same bytes); every
 * later call reads the cached id: the hot path carries a number, never the
 * string.  A name that could not be interned (the dictionary is full) is
 * recorded as unnamed, and the loss is counted (LOSS string_full).
 *
 * Cost contract: with tracing off -- no session, or the compile-time
 * switch EMLAT_NO_TRACE defined before including emlat.h -- every macro
 * and inline function here is a load of emlat_trace_on and a branch (with
 * EMLAT_NO_TRACE, nothing at all).  With a session, a section begin or end
 * is today's span record (one 32-byte slot, one clock read, one release
 * store) plus one load of the descriptor's cached id; an instant, counter,
 * async or flow record is one slot too.  No allocation, lock or system
 * call on these paths, but for the first use of a descriptor in a session
 * and the named exceptions of emlat.h (a thread's first record claims a
 * ring; a ring passing its high-water mark wakes the writer).
 *
 * Threads: every call records into the calling thread's ring.  A section
 * begun on a thread must end on it (sections nest per thread; ending one
 * ends those opened inside it, as unwound).  Interactions, async slices and
 * flows may end on any thread.
 */
#ifndef EMLAT_APP_H
#define EMLAT_APP_H

#include <stdint.h>

#include <stddef.h>

#include "emlat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A name's call-site descriptor.  S and LEN are the literal; CACHE is the
   library's: (session tag << 32) | string id, 0 before the first use.  It
   is read and written only with __atomic builtins (release store after the
   string was interned, acquire load), so it can live in any C or C++
   object.  Define one with EMLAT_NAME_INIT or let the macros below do it. */
struct emlat_name
{
  const char *s;
  uint32_t len;
  uint32_t reserved;
  uint64_t cache;
};

/* A descriptor for the string literal LIT (a non-literal does not
   compile). */
#define EMLAT_NAME_INIT(lit) { "" lit, (uint32_t)(sizeof (lit) - 1), 0, 0 }

/* Nonzero while a session records: what every inline call below tests
   first.  Written by the library only (release store at emlat_start after
   the session is ready, 0 at emlat_stop and in a fork child); read with a
   relaxed load: a stale 1 only sends a call into the library, which
   checks again; a stale 0 loses a record made while the session starts. */
EMLAT_API extern uint32_t emlat_trace_on;

#if defined(__GNUC__) || defined(__clang__)
#define EMLAT_TRACE_ON_() __builtin_expect (__atomic_load_n (&emlat_trace_on, __ATOMIC_RELAXED) != 0, 0)
#else
#define EMLAT_TRACE_ON_() (emlat_trace_on != 0)
#endif

/* ---- the library's entry points (call through the macros) ---------- */

/* The string id of N in the current session, interning it on first use;
   0 without a session or when the dictionary is full. */
EMLAT_API uint64_t emlat_name_id (struct emlat_name *n);

/* Begin a section named N on this thread, serving the thread's current
   interaction (emlat_ix_current); returns a span handle for
   emlat_section_end (emlat_span_end), 0 without a session. */
EMLAT_API uint64_t emlat_section_begin_ (struct emlat_name *n);
/* The same, serving interaction CAUSE. */
EMLAT_API uint64_t emlat_section_begin_for_ (struct emlat_name *n, uint64_t cause);
/* One EVENT record (tag: enum emlat_event_tag) named N at now: ID for
   async and flow records, IV an integer counter's value, FV a floating
   one's. */
EMLAT_API void emlat_event_ (struct emlat_name *n, unsigned tag, uint64_t id, int64_t iv,
                             double fv);
/* A new flow id (>= 1, unique in the process) and its flow_begin record. */
EMLAT_API uint64_t emlat_flow_begin_ (struct emlat_name *n);
/* Begin an application interaction named N (root kind application); it
   becomes this thread's current interaction.  Returns its cause id. */
EMLAT_API uint64_t emlat_interaction_begin_ (struct emlat_name *n, uint64_t parent,
                                             uint64_t scheduled_by);

/* End application interaction CAUSE with STATUS (emlat_ix_end), and stop
   it being this thread's current interaction. */
EMLAT_API void emlat_interaction_end (uint64_t cause, enum emlat_ix_status status);

/* The interaction that sections begun on this thread serve: the last one
   this thread began with EMLAT_INTERACTION_BEGIN and has not ended, or
   what emlat_ix_set_current set (a worker taking on a request; the call
   claims the thread's ring if it has none yet).  0: none. */
EMLAT_API uint64_t emlat_ix_current (void);
EMLAT_API void emlat_ix_set_current (uint64_t cause);

/* Name the calling thread / the process from now on (setup calls: they
   intern a copy of NAME, LEN bytes, under a lock).  Return 0, or -ENOENT
   without a session, -ENOSPC when the dictionary is full. */
EMLAT_API int emlat_thread_name (const char *name, size_t len);
EMLAT_API int emlat_process_name (const char *name, size_t len);

#ifndef EMLAT_NO_TRACE

/* A static descriptor for literal LIT at this call site (GNU statement
   expression, as GCC and Clang compile in C and C++). */
#define EMLAT_NAME_(lit)                                                       \
  __extension__ ({                                                             \
    static struct emlat_name emlat_name_site_ = EMLAT_NAME_INIT (lit);         \
    &emlat_name_site_;                                                         \
  })

/* uint64_t h = EMLAT_SECTION_BEGIN ("parse"); ... emlat_section_end (h); */
#define EMLAT_SECTION_BEGIN(lit)                                               \
  (EMLAT_TRACE_ON_ () ? emlat_section_begin_ (EMLAT_NAME_ (lit)) : (uint64_t)0)
#define EMLAT_SECTION_BEGIN_FOR(lit, cause)                                    \
  (EMLAT_TRACE_ON_ () ? emlat_section_begin_for_ (EMLAT_NAME_ (lit), (cause)) : (uint64_t)0)

static inline void
emlat_section_end (uint64_t h)
{
  if (h)
    emlat_span_end (h, EMLAT_SPAN_OK, 0);
}

/* The cleanup handler of EMLAT_SCOPE. */
static inline void
emlat_scope_end_ (uint64_t *h)
{
  if (*h)
    emlat_span_end (*h, EMLAT_SPAN_OK, 0);
}

#define EMLAT_CAT2_(a, b) a##b
#define EMLAT_CAT_(a, b) EMLAT_CAT2_ (a, b)
/* { EMLAT_SCOPE ("render"); ... } -- a section to the end of the block,
   however the block is left (return, break, goto; not longjmp). */
#define EMLAT_SCOPE(lit)                                                       \
  __attribute__ ((cleanup (emlat_scope_end_), unused)) uint64_t EMLAT_CAT_ (   \
    emlat_scope_, __LINE__)                                                    \
    = EMLAT_SECTION_BEGIN (lit)

#define EMLAT_INSTANT(lit)                                                     \
  do                                                                           \
    if (EMLAT_TRACE_ON_ ())                                                    \
      emlat_event_ (EMLAT_NAME_ (lit), EMLAT_EV_INSTANT, 0, 0, 0);             \
  while (0)
#define EMLAT_COUNTER(lit, value)                                              \
  do                                                                           \
    if (EMLAT_TRACE_ON_ ())                                                    \
      emlat_event_ (EMLAT_NAME_ (lit), EMLAT_EV_COUNTER, 0, (int64_t)(value), 0); \
  while (0)
#define EMLAT_COUNTER_F(lit, value)                                            \
  do                                                                           \
    if (EMLAT_TRACE_ON_ ())                                                    \
      emlat_event_ (EMLAT_NAME_ (lit), EMLAT_EV_COUNTER_F, 0, 0, (double)(value)); \
  while (0)
/* ID >= 1, the application's own (a request number, an address). */
#define EMLAT_ASYNC_BEGIN(lit, id)                                             \
  do                                                                           \
    if (EMLAT_TRACE_ON_ ())                                                    \
      emlat_event_ (EMLAT_NAME_ (lit), EMLAT_EV_ASYNC_BEGIN, (uint64_t)(id), 0, 0); \
  while (0)
#define EMLAT_ASYNC_END(lit, id)                                               \
  do                                                                           \
    if (EMLAT_TRACE_ON_ ())                                                    \
      emlat_event_ (EMLAT_NAME_ (lit), EMLAT_EV_ASYNC_END, (uint64_t)(id), 0, 0); \
  while (0)
/* uint64_t f = EMLAT_FLOW_BEGIN ("job"); hand f to another thread, which
   calls emlat_flow_end (f). */
#define EMLAT_FLOW_BEGIN(lit)                                                  \
  (EMLAT_TRACE_ON_ () ? emlat_flow_begin_ (EMLAT_NAME_ (lit)) : (uint64_t)0)

static inline void
emlat_flow_step (uint64_t flow)
{
  if (flow && EMLAT_TRACE_ON_ ())
    emlat_event_ (0, EMLAT_EV_FLOW_STEP, flow, 0, 0);
}

static inline void
emlat_flow_end (uint64_t flow)
{
  if (flow && EMLAT_TRACE_ON_ ())
    emlat_event_ (0, EMLAT_EV_FLOW_END, flow, 0, 0);
}

/* uint64_t ix = EMLAT_INTERACTION_BEGIN ("request"); ...
   emlat_ix_end (ix, EMLAT_STATUS_NORMAL); */
#define EMLAT_INTERACTION_BEGIN(lit)                                           \
  (EMLAT_TRACE_ON_ () ? emlat_interaction_begin_ (EMLAT_NAME_ (lit), 0, 0) : (uint64_t)0)

#else /* EMLAT_NO_TRACE: every call compiles to nothing */

#define EMLAT_SECTION_BEGIN(lit) ((uint64_t)0)
#define EMLAT_SECTION_BEGIN_FOR(lit, cause) ((void)(cause), (uint64_t)0)
static inline void emlat_section_end (uint64_t h) { (void)h; }
#define EMLAT_SCOPE(lit) do { } while (0)
#define EMLAT_INSTANT(lit) do { } while (0)
#define EMLAT_COUNTER(lit, value) do { (void)(value); } while (0)
#define EMLAT_COUNTER_F(lit, value) do { (void)(value); } while (0)
#define EMLAT_ASYNC_BEGIN(lit, id) do { (void)(id); } while (0)
#define EMLAT_ASYNC_END(lit, id) do { (void)(id); } while (0)
#define EMLAT_FLOW_BEGIN(lit) ((uint64_t)0)
static inline void emlat_flow_step (uint64_t flow) { (void)flow; }
static inline void emlat_flow_end (uint64_t flow) { (void)flow; }
#define EMLAT_INTERACTION_BEGIN(lit) ((uint64_t)0)

#endif /* EMLAT_NO_TRACE */

#ifdef __cplusplus
}
#endif

#endif /* EMLAT_APP_H */

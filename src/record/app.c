/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * app.c -- the recording calls of the application API (emlat_app.h):
 * named sections, events (instants, counters, async slices, flows, thread
 * and process names) and application interactions, on the rings of
 * producer.c, with the same cost contract.
 *
 * Names: a call site's descriptor (struct emlat_name) caches the string id
 * of the current session as (tag << 32) | id, tag = the session generation
 * with its top bit set (never 0, so a fresh descriptor never matches).  A
 * miss takes the intern lock, looks the bytes up in this session's table
 * (one id per distinct name, whatever the call site) and interns them with
 * emlat_string otherwise; the descriptor is then stored with RELEASE, and
 * read with ACQUIRE, so that a thread using an id another thread interned
 * publishes records that happen after the string's definition: the
 * writer, which takes the strings after acquiring a ring's head, always
 * finds it (F-41).  Generations repeat their tag only after 2^31 sessions.
 *
 * The fast path of a section begin is producer.c's span begin: TLS ring and
 * generation, one slot, one clock read, one release store, plus one load of
 * the descriptor; the name travels in bits 32..63 of the slot's head word
 * (ringrec.h).  Anything unusual (no ring yet, a descriptor to intern, the
 * id block used up, the ring past its limit) takes the out-of-line path.
 */
#include "emlat/emlat.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "record/app.h"
#include "record/ringrec.h"
#include "record/state.h"

EMLAT_API uint32_t emlat_trace_on;

/* The interaction a thread's sections serve is emlat_tls_cause (state.h):
   valid whenever emlat_thread_line.gen is the session's, which the fast path
   checks anyway. */

/* Flow ids: unique in the process, hence in every session (relaxed
   fetch-add: only atomicity matters). */
static _Atomic uint64_t next_flow;

/* ------------------------------------------------------------------ */
/* Interning                                                           */

struct intern_entry
{
  char *s;
  uint32_t len;
  uint64_t id;
};

/* One table per session: distinct names and their ids.  Under
   intern_lock; reset when the generation changes. */
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static struct intern_entry *intern_v;
static size_t intern_n, intern_cap;
static uint64_t intern_gen;

static uint32_t
gen_tag (uint64_t gen)
{
  return (uint32_t)gen | 0x80000000u;
}

static void
intern_reset (uint64_t gen)
{
  for (size_t i = 0; i < intern_n; i++)
    free (intern_v[i].s);
  intern_n = 0;
  intern_gen = gen;
}

/* The id of S[0..LEN) in the session of generation GEN, interning it;
   0 when it cannot be.  Caller holds intern_lock. */
static uint64_t
intern_locked (const char *s, size_t len, uint64_t gen)
{
  if (intern_gen != gen)
    intern_reset (gen);
  for (size_t i = 0; i < intern_n; i++)
    if (intern_v[i].len == len && memcmp (intern_v[i].s, s, len) == 0)
      return intern_v[i].id;
  uint64_t id = emlat_string (s, len);
  if (id == 0)
    return 0;
  if (intern_n == intern_cap)
    {
      size_t c = intern_cap ? 2 * intern_cap : 64;
      struct intern_entry *v = realloc (intern_v, c * sizeof *v);
      if (!v)
        return id; /* interned, only not remembered: a later call re-interns */
      intern_v = v;
      intern_cap = c;
    }
  char *copy = malloc (len ? len : 1);
  if (!copy)
    return id;
  memcpy (copy, s, len);
  intern_v[intern_n++] = (struct intern_entry){ copy, (uint32_t)len, id };
  return id;
}

/* Out of line: N's id in the session of generation GEN (nonzero). */
static __attribute__ ((noinline)) uint64_t
name_slow (struct emlat_name *n, uint64_t gen)
{
  pthread_mutex_lock (&intern_lock);
  /* Acquire: another thread may have interned it meanwhile. */
  uint64_t c = __atomic_load_n (&n->cache, __ATOMIC_ACQUIRE);
  uint64_t id;
  if ((uint32_t)(c >> 32) == gen_tag (gen))
    id = (uint32_t)c;
  else
    {
      id = n->s ? intern_locked (n->s, n->len, gen) : 0;
      /* Release: the string's definition (emlat_string, under the
         session lock) happens-before any record that carries the id. */
      __atomic_store_n (&n->cache, (uint64_t)gen_tag (gen) << 32 | (id & 0xffffffffu),
                        __ATOMIC_RELEASE);
    }
  pthread_mutex_unlock (&intern_lock);
  return id & 0xffffffffu;
}

/* N's id for generation GEN: the cached one, or the slow path. */
static inline uint64_t
name_of (struct emlat_name *n, uint64_t gen)
{
  if (!n)
    return 0;
  /* Acquire: see name_slow. */
  uint64_t c = __atomic_load_n (&n->cache, __ATOMIC_ACQUIRE);
  if (EMLAT_LIKELY ((uint32_t)(c >> 32) == gen_tag (gen)))
    return (uint32_t)c;
  return name_slow (n, gen);
}

uint64_t
emlat_name_id (struct emlat_name *n)
{
  /* Acquire: a nonzero generation's session is ready (state.h). */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_acquire);
  return gen ? name_of (n, gen) : 0;
}

/* ------------------------------------------------------------------ */
/* Sections                                                            */

/* The handle of a section whose begin found no ring (producer.c's
   SPAN_NO_RING: its end is counted as no_ring too). */
#define SECTION_NO_RING 1u

static uint64_t
current_cause (uint64_t gen)
{
  return emlat_thread_line.gen == gen ? emlat_tls_cause : 0;
}

static __attribute__ ((noinline)) uint64_t
section_slow (struct emlat_name *n, uint64_t cause, int have_cause)
{
  /* Acquire: as emlat_name_id. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_acquire);
  if (gen == 0)
    return 0;
  uint64_t name = name_of (n, gen);
  if (!have_cause)
    cause = current_cause (gen);
  struct emlat_ring *r = emlat_my_ring (1);
  if (EMLAT_UNLIKELY (!r))
    return SECTION_NO_RING;
  uint64_t id = r->next_span_id;
  if (id == r->span_id_end)
    id = emlat_span_id_refill (r);
  r->next_span_id = id + 1;
  uint64_t h;
  struct emlat_slot *s = emlat_ring_reserve (r, 1, 0, &h);
  if (!s)
    return id << 1; /* dropped and counted: its end is an orphan end */
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_BEGIN, EMLAT_SPAN_USER, 0, 1) | name << 32;
  s->w[1] = id;
  s->w[2] = cause;
  s->w[3] = emlat_clock_now ();
  emlat_ring_publish (r, h, 1);
  return id << 1;
}

/* See producer.c's emlat_span_begin for why the fast path is written this
   way (few registers live across the clock call). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__ ((optimize ("no-tree-slp-vectorize")))
#endif
uint64_t
emlat_section_begin_ (struct emlat_name *n)
{
  /* Relaxed: see emlat_g_active_gen in state.h. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  struct emlat_ring *r = emlat_thread_line.ring;
  /* Acquire: see name_slow. */
  uint64_t c = __atomic_load_n (&n->cache, __ATOMIC_ACQUIRE);
  if (EMLAT_UNLIKELY (gen != emlat_thread_line.gen || (uint32_t)(c >> 32) != gen_tag (gen)))
    return gen ? section_slow (n, 0, 0) : 0;
  uint64_t id = r->next_span_id;
  /* Relaxed: only this thread stores head. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  if (EMLAT_UNLIKELY (id == r->span_id_end || h + 1 > r->limit))
    return section_slow (n, 0, 0);
  r->next_span_id = id + 1;
  struct emlat_slot *s = &r->slots[h & r->mask];
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_BEGIN, EMLAT_SPAN_USER, 0, 1) | c << 32;
  s->w[1] = id;
  s->w[2] = emlat_tls_cause; /* of this session: gen == emlat_thread_line.gen */
  s->w[3] = emlat_clock_now ();
  emlat_ring_publish (r, atomic_load_explicit (&r->head, memory_order_relaxed), 1);
  return s->w[1] << 1;
}

uint64_t
emlat_section_begin_for_ (struct emlat_name *n, uint64_t cause)
{
  return section_slow (n, cause, 1);
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

/* One APP record: TAG, NAME, ID, VALUE, at now. */
static inline void
put_event (unsigned tag, uint64_t name, uint64_t id, uint64_t value)
{
  struct emlat_ring *r = emlat_my_ring (1);
  if (EMLAT_UNLIKELY (!r))
    return;
  uint64_t h;
  struct emlat_slot *s = emlat_ring_reserve (r, 1, 0, &h);
  if (EMLAT_UNLIKELY (!s))
    return;
  s->w[0] = emlat_rr_head (EMLAT_RR_APP, tag, 0, 1) | name << 32;
  s->w[1] = id;
  s->w[3] = value;
  s->w[2] = emlat_clock_now ();
  emlat_ring_publish (r, h, 1);
}

void
emlat_app_put (unsigned tag, uint64_t name, uint64_t id, uint64_t value)
{
  put_event (tag, name, id, value);
}

uint64_t
emlat_app_intern (const char *s, size_t len)
{
  /* Acquire: as emlat_name_id. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_acquire);
  if (gen == 0)
    return 0;
  pthread_mutex_lock (&intern_lock);
  uint64_t id = intern_locked (s, len, gen);
  pthread_mutex_unlock (&intern_lock);
  return id;
}

void
emlat_event_ (struct emlat_name *n, unsigned tag, uint64_t id, int64_t iv, double fv)
{
  /* Relaxed: see emlat_g_active_gen in state.h; the claim path and the
     interning acquire it again. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  if (gen == 0)
    return;
  uint64_t value = 0;
  if (tag == EMLAT_EV_COUNTER)
    value = (uint64_t)iv;
  else if (tag == EMLAT_EV_COUNTER_F)
    memcpy (&value, &fv, sizeof value);
  put_event (tag, name_of (n, gen), id, value);
}

uint64_t
emlat_flow_begin_ (struct emlat_name *n)
{
  /* Relaxed: see emlat_event_. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  if (gen == 0)
    return 0;
  uint64_t id = atomic_fetch_add_explicit (&next_flow, 1, memory_order_relaxed) + 1;
  put_event (EMLAT_EV_FLOW_BEGIN, name_of (n, gen), id, 0);
  return id;
}

/* A thread or process name: a copy interned under the lock, then its
   event. */
static int
name_event (unsigned tag, const char *name, size_t len)
{
  if (!name && len)
    return -EINVAL;
  /* Acquire: as emlat_name_id. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_acquire);
  if (gen == 0)
    return -ENOENT;
  pthread_mutex_lock (&intern_lock);
  uint64_t id = intern_locked (name ? name : "", len, gen);
  pthread_mutex_unlock (&intern_lock);
  if (id == 0)
    return -ENOSPC;
  put_event (tag, id, 0, 0);
  return 0;
}

int
emlat_thread_name (const char *name, size_t len)
{
  return name_event (EMLAT_EV_THREAD_NAME, name, len);
}

int
emlat_process_name (const char *name, size_t len)
{
  return name_event (EMLAT_EV_PROCESS_NAME, name, len);
}

/* ------------------------------------------------------------------ */
/* Application interactions                                            */

uint64_t
emlat_interaction_begin_ (struct emlat_name *n, uint64_t parent, uint64_t scheduled_by)
{
  /* Acquire: as emlat_name_id. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_acquire);
  if (gen == 0)
    return 0;
  uint64_t name = name_of (n, gen);
  struct emlat_ring *r = emlat_my_ring (2);
  uint64_t cause = emlat_next_cause ();
  if (EMLAT_UNLIKELY (!r))
    return cause; /* no ring (counted by the claim): see emlat_ix_begin */
  emlat_tls_cause = cause; /* after the claim, which resets it */
  uint64_t t = emlat_clock_now ();
  uint64_t h;
  struct emlat_slot *s = emlat_ring_reserve (r, 2, t, &h);
  if (EMLAT_LIKELY (s != 0))
    {
      s->w[0] = emlat_rr_head (EMLAT_RR_IX_BEGIN, EMLAT_ROOT_APPLICATION, 0, 2);
      s->w[1] = cause;
      s->w[2] = parent;
      s->w[3] = scheduled_by;
      struct emlat_slot *s2 = emlat_ring_next (r, s);
      s2->w[0] = t;
      s2->w[1] = name;
      emlat_ring_publish (r, h, 2);
    }
  return cause;
}

void
emlat_interaction_end (uint64_t cause, enum emlat_ix_status status)
{
  if (emlat_tls_cause == cause)
    emlat_tls_cause = 0;
  emlat_ix_end (cause, status);
}

uint64_t
emlat_ix_current (void)
{
  /* Relaxed: see emlat_g_active_gen. */
  return current_cause (atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed));
}

void
emlat_ix_set_current (uint64_t cause)
{
  /* The thread's ring is claimed now if it has none (the claim resets the
     current interaction). */
  if (emlat_my_ring (1))
    emlat_tls_cause = cause;
}

/* ------------------------------------------------------------------ */
/* The switch                                                          */

void
emlat_app_trace_on (int on)
{
  /* Release: set after the session was published (session.c), so a
     caller that sees 1 and calls in finds it. */
  __atomic_store_n (&emlat_trace_on, on ? 1u : 0u, __ATOMIC_RELEASE);
}

void
emlat_app_fork_child (void)
{
  /* The child has one thread: plain resets.  The lock may have been held
     by another thread of the parent at fork. */
  pthread_mutex_init (&intern_lock, 0);
  intern_gen = 0;
  intern_n = 0;
  emlat_tls_cause = 0;
  __atomic_store_n (&emlat_trace_on, 0u, __ATOMIC_RELAXED);
}

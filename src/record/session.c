/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * session.c -- the setup calls of emlat.h: start, stop, rotate, flush,
 * status, strings.  These may lock and allocate; producers never call them.
 *
 * Start: validate options, build SESSION metadata (sysinfo.c + caller's
 * entries), create the ring pool, open the file and write header + SESSION
 * synchronously (so that emlat_start reports a bad path), start the writer,
 * then publish the new generation (release) -- producers begin recording.
 * Stop: publish generation 0, ask the writer to stop, join it (it runs the
 * final passes), free the writer-side state.  The ring pool is kept mapped
 * for the life of the process (state.h).
 *
 * All entry points serialize on g_control (start/stop/rotate vs each other);
 * flush/status/string take the session lock only.
 */
#include "record/session.h"

#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/hot.h"
#include "format/format.h"
#include "record/app.h"

struct emlat_session *emlat_g_session;
static pthread_mutex_t g_control = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_generation;
/* The last stopped session's status (emlat_status after emlat_stop): its
   counters, and its path kept on the heap, so that a stop touches a few
   bytes next to the other small state instead of a 4 KiB table. */
static struct emlat_status_snap g_last_status;
static char *g_last_path; /* malloc'd, or 0 */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* sysinfo.c */
int emlat_sysinfo_meta (struct emlat_meta_kv **kv, size_t *n, size_t *cap,
                        const struct emlat_session *s);
int emlat_meta_push (struct emlat_meta_kv **kv, size_t *n, size_t *cap, const char *key, int type,
                     uint64_t u, int64_t i, const char *str, size_t len);
int emlat_meta_key_ok (const char *key);

const char *
emlat_version (void)
{
  return EMLAT_VERSION_STRING;
}

/* A child of fork() has no writer thread: it must not record into (or
   flush) its parent's session.  Only the generation is cleared; the file
   descriptor is close-on-exec and otherwise left alone. */
static void
atfork_child (void)
{
  /* The child must not hold the ring file's lock: a reader recovers the
     file once the recording process is gone, whatever its children do. */
  if (emlat_g_session && emlat_g_session->ring.fd >= 0)
    close (emlat_g_session->ring.fd);
  /* Relaxed: the child has a single thread while this handler runs. */
  atomic_store_explicit (&emlat_g_active_gen, 0, memory_order_relaxed);
  emlat_app_fork_child ();
  emlat_g_session = 0;
  pthread_mutex_init (&g_control, 0);
}

static void
atfork_init (void)
{
  pthread_atfork (0, 0, atfork_child);
}

static void
free_meta (struct emlat_session *s)
{
  for (size_t i = 0; i < s->nmeta; i++)
    free (s->meta[i].s);
  free (s->meta);
}

static void
session_free (struct emlat_session *s)
{
  free_meta (s);
  emlat_out_free (&s->out);
  emlat_rf_free_path (&s->ring);
  free (s->base_path);
  free (s->st_path);
  for (size_t i = 0; i < s->nstrings; i++)
    free (s->strings[i].s);
  free (s->strings);
  if (s->ws)
    {
      /* Only the rings ever claimed have writer state: the others' pages
         were never touched (a ring claimed after the writer's last pass
         has zero state). */
      uint32_t used = s->pool ? emlat_pool_used (s->pool) : 0;
      for (uint32_t i = 0; i < used && i < s->max_threads; i++)
        emlat_spans_free (&s->ws[i].spans);
      munmap (s->ws, (size_t)s->max_threads * sizeof *s->ws);
    }
  emlat_ixtable_free (&s->ix);
  emlat_arena_free (&s->arena);
  emlat_chunk_list_free (&s->chunks);
  free (s->inputs);
  free (s->losses);
  emlat_app_session_free (s);
  emlat_sampler_free (&s->sampler);
  pthread_mutex_destroy (&s->lock);
  pthread_cond_destroy (&s->done);
  free (s);
}

static int
is_pow2 (uint64_t x)
{
  return x && !(x & (x - 1));
}

/* The sizes OPT asks for, defaults applied; 0 or -EINVAL. */
static int
check_options (const struct emlat_options *opt, uint32_t *slots, uint32_t *threads,
               uint32_t *chunk)
{
  if (!opt || (!opt->path && !opt->dir))
    return -EINVAL;
  *slots = opt->ring_slots ? opt->ring_slots : EMLAT_DEFAULT_RING_SLOTS;
  *threads = opt->max_threads ? opt->max_threads : EMLAT_DEFAULT_MAX_THREADS;
  *chunk = opt->chunk_bytes ? opt->chunk_bytes : 65536;
  if (!is_pow2 (*slots) || *slots < 16 || *slots > (1u << 24) || *threads > 4096
      || *chunk < 4096 || *chunk > EMLAT_CHUNK_PAYLOAD_MAX / 2
      || (opt->n_meta && !opt->meta))
    return -EINVAL;
  return 0;
}

/* A random (version 4) session id; without entropy, one from the clock and
   the pid, still unique. */
static void
session_uuid (struct emlat_session *s)
{
  if (getrandom (s->uuid, sizeof s->uuid, 0) != (ssize_t)sizeof s->uuid)
    for (size_t i = 0; i < sizeof s->uuid; i++) /* no entropy: still unique */
      s->uuid[i] = (uint8_t)((s->realtime0 >> (8 * (i % 8))) ^ (uint64_t)getpid () >> (i % 3));
  s->uuid[6] = (uint8_t)((s->uuid[6] & 0x0f) | 0x40); /* RFC 4122 version 4 */
  s->uuid[8] = (uint8_t)((s->uuid[8] & 0x3f) | 0x80);
}

/* A new session with OPT's settings, its locks, generation, clock origins
   and id; NULL when out of memory.  Called under g_control. */
static struct emlat_session *
session_new (const struct emlat_options *opt, uint32_t slots, uint32_t threads, uint32_t chunk)
{
  struct emlat_session *s = calloc (1, sizeof *s);
  if (!s)
    return 0;
  pthread_mutex_init (&s->lock, 0);
  pthread_cond_init (&s->done, 0);
  s->out.fd = -1;
  s->ring.fd = -1;
  s->ring_slots = slots;
  long page = sysconf (_SC_PAGESIZE);
  s->page_bytes = page > 0 ? (size_t)page : 4096u;
  s->max_threads = threads;
  s->chunk_bytes = chunk;
  s->rotate_bytes = opt->rotate_bytes;
  s->drain_us = opt->drain_interval_us; /* 0: no period (writer.c) */
  s->stats_ms = opt->stats_interval_ms ? opt->stats_interval_ms : 1000;
  emlat_sampler_init (&s->sampler, opt->sample_interval_ms, s->stats_ms);
  s->overwrite = (opt->flags & EMLAT_OPT_OVERWRITE) != 0;
  s->adopt_empty = (opt->flags & EMLAT_OPT_ADOPT_EMPTY) != 0;
  s->defer_finish = (opt->flags & EMLAT_OPT_DEFER_FINISH) != 0;
  /* A driver drains only a ring file, into one file: the last records
     are the reader's (a deferred finish), and there is no rotation (the
     SESSION chunk a new file starts with is this process's to encode). */
  s->driven = (opt->flags & EMLAT_OPT_DRIVER_DRAINS) && s->defer_finish && !opt->rotate_bytes
              && !(opt->flags & EMLAT_OPT_MEMORY_RINGS);
  s->map_ahead = (opt->flags & EMLAT_OPT_NO_MAP_AHEAD) == 0;
  s->gen = ++g_generation;
  s->realtime0 = emlat_realtime_ns ();
  s->mono0 = emlat_clock_now ();
  session_uuid (s);
  return s;
}

/* 1 when KEY is one of the keys the recorder wrote itself: the run's
   identity (process.pid, process.build_id, ...), the clock and the sizes
   are the library's to say, and no caller entry replaces them -- except
   privacy.policy, which a recording layer that records more than the
   default states itself (docs/FORMAT.md 8.1: its entry replaces ours). */
static int
own_key (const struct emlat_session *s, const char *key)
{
  if (strcmp (key, "privacy.policy") == 0)
    return 0;
  for (size_t i = 0; i < s->n_own_meta; i++)
    if (strcmp (s->meta[i].key, key) == 0)
      return 1;
  return 0;
}

/* SESSION metadata: the recorder's own keys (sysinfo.c), then the caller's
   valid entries (the others, and any that would replace one of the
   recorder's, are counted in meta_rejected).  0 or -ENOMEM. */
static int
session_meta (struct emlat_session *s, const struct emlat_options *opt, size_t *meta_cap)
{
  if (emlat_sysinfo_meta (&s->meta, &s->nmeta, meta_cap, s) != 0)
    return -ENOMEM;
  s->n_own_meta = s->nmeta;
  for (size_t i = 0; i < opt->n_meta; i++)
    {
      const struct emlat_meta *m = &opt->meta[i];
      if (!m->key || !emlat_meta_key_ok (m->key) || strncmp (m->key, "emlat.", 6) == 0
          || own_key (s, m->key)
          || m->type > EMLAT_META_STR || (m->type == EMLAT_META_STR && !m->s && m->s_len)
          || (m->type == EMLAT_META_STR && m->s_len > EMLAT_KV_STRING_MAX))
        {
          s->meta_rejected++;
          continue;
        }
      if (emlat_meta_push (&s->meta, &s->nmeta, meta_cap, m->key, (int)m->type, m->u, m->i,
                           m->s ? m->s : "", m->s_len)
          != 0)
        return -ENOMEM;
    }
  return 0;
}

/* The profile's path in OPT's directory when no path was given: a new
   name, reserved by creating the file, which stays open for
   emlat_writer_open_first to write (one create in the directory, not a
   create, an unlink and a second create: docs/PERFORMANCE.md). */
static int
resolve_path (struct emlat_session *s, const struct emlat_options *opt)
{
  if (opt->path)
    {
      if (strlen (opt->path) >= EMLAT_OUT_PATH_MAX)
        return -ENAMETOOLONG;
      s->base_path = strdup (opt->path);
      return s->base_path ? 0 : -ENOMEM;
    }
  int rc = emlat_out_open_in_dir (&s->out, opt->dir);
  if (rc != 0)
    return rc;
  s->base_path = strdup (s->out.path);
  if (!s->base_path)
    return -ENOMEM;
  s->overwrite = 0;
  s->adopt_empty = 0;
  return 0;
}

/* The writer's per-ring state, the pending-loss list, the ring file (unless
   OPT asks for rings in memory, or it cannot be made) and the ring pool;
   SESSION says where the rings are (profiler.rings). */
static int
session_buffers (struct emlat_session *s, const struct emlat_options *opt, size_t *meta_cap)
{
  /* The writer's state of each ring in anonymous memory, zero until the
     writer first touches a ring's entry (rings are claimed from index 0
     up): with the default 128 rings, calloc would zero and fault in
     68 KiB at every session's start for the one or two rings a program
     uses (docs/PERFORMANCE.md). */
  void *ws = mmap (0, (size_t)s->max_threads * sizeof *s->ws, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  s->ws = ws == MAP_FAILED ? 0 : ws;
  s->losses = calloc (EMLAT_LOSSES_MIN, sizeof *s->losses);
  s->losses_cap = EMLAT_LOSSES_MIN;
  if (!s->ws || !s->losses)
    return -ENOMEM;
  int rc = -EOPNOTSUPP;
  if (!(opt->flags & EMLAT_OPT_MEMORY_RINGS))
    rc = emlat_rf_create (&s->ring, s->base_path, s->uuid, s->max_threads, s->ring_slots,
                          s->mono0, s->realtime0, s->chunk_bytes, s->rotate_bytes,
                          (s->driven ? EMLAT_RF_DRIVEN : 0)
                            | (s->map_ahead ? 0 : EMLAT_RF_NO_MAP_AHEAD));
  if (rc == -EBUSY)
    return rc; /* another process records into this profile's ring file */
  if (rc != 0)
    s->defer_finish = s->driven = 0; /* nothing to leave the last records in */
  else if (!(s->ring.h->flags & EMLAT_RF_DRIVEN))
    s->driven = 0; /* not in /dev/shm, where a driver looks: we drain */
  s->pool = emlat_pool_create (s->max_threads, s->ring_slots, rc == 0 ? &s->ring : 0);
  if (!s->pool)
    return -ENOMEM;
  const char *where = rc == 0 ? "file" : "memory";
  return emlat_meta_push (&s->meta, &s->nmeta, meta_cap, "profiler.rings", EMLAT_META_STR, 0, 0,
                          where, strlen (where))
         ? -ENOMEM
         : 0;
}

/* The first file: its header and SESSION chunk are written here, so a bad
   path is reported by emlat_start; then the first checkpoint. */
static int
open_first_file (struct emlat_session *s)
{
  int rc = emlat_writer_open_first (s);
  if (rc == 0)
    emlat_writer_checkpoint_first (s);
  if (s->ring.fd < 0)
    s->driven = 0; /* the ring file was given up: we drain ourselves */
  if (rc == 0 && s->start_in_ring && s->ring.fd < 0)
    rc = emlat_writer_start_in_profile (s); /* and write what it kept */
  return rc;
}

/* A driven session's start: the driver may drain from now on (it waits
   for this word after it found the profile's header). */
static void
call_driver (struct emlat_session *s)
{
  struct emlat_rf_header *h = s->ring.h;
  /* Release: the header, SESSION and the first checkpoint are written
     before the driver's acquire load sees 1. */
  atomic_store_explicit (&h->driver_ready, 1, memory_order_release);
  syscall (SYS_futex, &h->driver_ready, FUTEX_WAKE, INT_MAX, 0, 0, 0);
}

/* Reset the id counters, fill the status and start the writer thread; on
   failure the file is removed. */
static int
start_writer (struct emlat_session *s)
{
  if (s->out.path && !(s->st_path = strdup (s->out.path)))
    return -ENOMEM;
  /* Ids start at 1 (F-5).  Relaxed: no producer reads them before the
     release store of the generation in emlat_start. */
  atomic_store_explicit (&emlat_g_next_span_block, 1, memory_order_relaxed);
  atomic_store_explicit (&s->pool->shared->next_thread, 1, memory_order_relaxed);
  atomic_store_explicit (&s->pool->shared->next_cause, 1, memory_order_relaxed);
  atomic_store_explicit (&s->pool->shared->next_batch, 1, memory_order_relaxed);
  atomic_store_explicit (&s->pool->shared->next_epoch, 1, memory_order_relaxed);
  atomic_store_explicit (&emlat_g_shared, s->pool->shared, memory_order_relaxed);
  atomic_store_explicit (&emlat_g_pool, s->pool, memory_order_relaxed);
  s->st.active = 1;
  s->st.ring_slots = s->ring_slots;
  s->st.clock_read_ns = emlat_clock_read_cost_ns ();
  s->st.meta_rejected = s->meta_rejected;
  s->st.files = 1;
  s->last_stats_t = emlat_clock_now ();
  s->last_pass_t = s->last_stats_t;
  if (s->driven)
    {
      call_driver (s);
      return 0;
    }
  int e = pthread_create (&s->writer, 0, emlat_writer_main, s);
  if (e != 0)
    {
      emlat_out_close (&s->out);
      unlink (s->base_path);
      emlat_rf_detach (&s->ring, 1);
      return -e;
    }
  s->writer_running = 1;
  return 0;
}

int
emlat_start (const struct emlat_options *opt)
{
  uint32_t slots, threads, chunk;
  int rc = check_options (opt, &slots, &threads, &chunk);
  if (rc != 0)
    return rc;

  pthread_once (&atfork_once, atfork_init);
  /* A driver that drains the rings hands down the machine's facts, read
     once on its side: this process then reads neither sysfs nor
     /proc/cpuinfo for them (machine.h). */
  struct emlat_machine driver_machine;
  int have_driver_machine = (opt->flags & EMLAT_OPT_DRIVER_DRAINS)
                            && emlat_machine_parse (getenv ("EMLAT_MACHINE"), &driver_machine) == 0;
  if (have_driver_machine)
    emlat_clock_kernel_tsc_hint (driver_machine.kernel_tsc);
  emlat_clock_init ();
  emlat_registry_init_once ();

  pthread_mutex_lock (&g_control);
  if (emlat_g_session)
    {
      pthread_mutex_unlock (&g_control);
      return -EALREADY;
    }
  struct emlat_session *s = session_new (opt, slots, threads, chunk);
  if (!s)
    {
      pthread_mutex_unlock (&g_control);
      return -ENOMEM;
    }
  if (have_driver_machine)
    {
      s->have_driver_machine = 1;
      s->driver_machine = driver_machine;
    }
  size_t meta_cap = 0;
  rc = session_meta (s, opt, &meta_cap);
  if (rc == 0)
    rc = resolve_path (s, opt);
  if (rc == 0)
    rc = session_buffers (s, opt, &meta_cap);
  if (rc == 0)
    rc = open_first_file (s);
  if (rc == 0)
    rc = start_writer (s);
  if (rc != 0)
    {
      /* The pool stays mapped (never used); everything else goes,
         the file reserved by resolve_path included. */
      if (s->out.fd >= 0)
        {
          emlat_out_close (&s->out);
          unlink (s->out.path);
        }
      emlat_rf_detach (&s->ring, 1);
      session_free (s);
      pthread_mutex_unlock (&g_control);
      return rc;
    }
  emlat_g_session = s;
  /* Release: the pool, the id counters and the session are published
     before any producer sees the new generation (its claim path
     acquire-loads it). */
  atomic_store_explicit (&emlat_g_active_gen, s->gen, memory_order_release);
  emlat_app_trace_on (1);
  pthread_mutex_unlock (&g_control);
  return 0;
}

/* A driven session's status: what its driver published after its last
   pass (writer.c, publish_external_status) in the ring file's header. */
static void
driven_status (struct emlat_session *s, struct emlat_status_snap *st)
{
  struct emlat_rf_header *h = s->ring.h;
  /* Relaxed: counts for a status. */
  st->records_written = atomic_load_explicit (&h->d_records_written, memory_order_relaxed);
  st->bytes_written = atomic_load_explicit (&h->d_bytes_written, memory_order_relaxed);
  st->chunks_written = atomic_load_explicit (&h->d_chunks_written, memory_order_relaxed);
  st->ring_high_water = atomic_load_explicit (&h->d_ring_high_water, memory_order_relaxed);
  st->writer_cpu_ns = atomic_load_explicit (&h->d_writer_cpu_ns, memory_order_relaxed);
  st->write_errors = atomic_load_explicit (&h->d_write_errors, memory_order_relaxed);
  st->last_error = (int)atomic_load_explicit (&h->d_last_error, memory_order_relaxed);
  s->st_writer_dropped = atomic_load_explicit (&h->d_records_dropped, memory_order_relaxed);
  st->threads = atomic_load_explicit (&s->pool->shared->next_thread, memory_order_relaxed) - 1;
  st->session_records = emlat_rings_accepted (s->pool);
  st->records_dropped = emlat_rings_dropped (s->pool) + s->st_writer_dropped;
}

/* After the writer ended: a deferred finish leaves the ring file, marked
   stopped, for the next reader (recover.c) with what STATS needs from this
   process; otherwise the writer wrote everything and the file goes. */
static void
finish_ring_file (struct emlat_session *s)
{
  if (s->ring.fd < 0)
    return;
  if (s->defer_finish)
    {
      struct emlat_rf_header *h = s->ring.h;
      /* Relaxed: read by another process after this one closed the file
         (the lock's release orders them).  A driven session's writer
         counts are its driver's (drain.c). */
      if (!s->driven)
        {
          atomic_store_explicit (&h->stop_writer_cpu_ns, s->writer_cpu_ns, memory_order_relaxed);
          atomic_store_explicit (&h->stop_wakeups, s->wakeups, memory_order_relaxed);
          atomic_store_explicit (&h->stop_highwater_wakes, s->highwater_wakes,
                                 memory_order_relaxed);
          atomic_store_explicit (&h->stop_ahead_wakes, s->ahead_wakes, memory_order_relaxed);
        }
      atomic_store_explicit (&h->state, EMLAT_RF_STOPPED, memory_order_relaxed);
      emlat_out_close (&s->out);
      emlat_rf_detach (&s->ring, 0);
      if (s->driven)
        emlat_doorbell_ring (); /* the driver stops draining */
    }
  else
    emlat_rf_detach (&s->ring, 1);
}

int
emlat_stop (void)
{
  pthread_mutex_lock (&g_control);
  struct emlat_session *s = emlat_g_session;
  if (!s)
    {
      pthread_mutex_unlock (&g_control);
      return -ENOENT;
    }
  /* Release: pairs with nothing in particular; producers that still see the
     old generation store into rings the final passes drain or that stay
     mapped unread. */
  emlat_app_trace_on (0);
  atomic_store_explicit (&emlat_g_active_gen, 0, memory_order_release);
  pthread_mutex_lock (&s->lock);
  s->stop_req = 1;
  pthread_mutex_unlock (&s->lock);
  emlat_doorbell_ring ();
  if (s->writer_running)
    pthread_join (s->writer, 0);
  else
    driven_status (s, &s->st);
  finish_ring_file (s);
  int rc = s->first_error ? -s->first_error : 0;
  s->st.active = 0;
  g_last_status = s->st;
  free (g_last_path);
  g_last_path = s->st_path; /* the stopped session's: 0 when it had none */
  s->st_path = 0;
  emlat_g_session = 0;
  session_free (s);
  pthread_mutex_unlock (&g_control);
  return rc;
}

/* Wait until a pass that started after this call has completed, EXTRA
   passes more.  Caller holds s->lock. */
static void
wait_passes (struct emlat_session *s, uint64_t extra)
{
  uint64_t target = s->passes_started + 1 + extra;
  if (s->flush_target < target)
    s->flush_target = target;
  emlat_doorbell_ring ();
  while (s->passes_done < target && !s->stop_req)
    pthread_cond_wait (&s->done, &s->lock);
}

/* The active session with the control mutex and its lock held, or NULL
   (nothing held) when there is none. */
static struct emlat_session *
lock_session (void)
{
  pthread_mutex_lock (&g_control);
  struct emlat_session *s = emlat_g_session;
  if (!s)
    {
      pthread_mutex_unlock (&g_control);
      return 0;
    }
  pthread_mutex_lock (&s->lock);
  return s;
}

static void
unlock_session (struct emlat_session *s)
{
  pthread_mutex_unlock (&s->lock);
  pthread_mutex_unlock (&g_control);
}

/* How long a driven session's flush waits for its driver. */
#define DRIVEN_FLUSH_WAIT_NS (5000000000ull)

/* emlat_flush of a driven session: ask the driver (the ring file's
   header), wake it, and wait for its answer (writer.c,
   publish_external_status) on the answer's futex word. */
static int
driven_flush (struct emlat_session *s)
{
  struct emlat_rf_header *h = s->ring.h;
  /* Relaxed: a count compared after the answer's acquire below. */
  uint64_t errors0 = atomic_load_explicit (&h->d_write_errors, memory_order_relaxed);
  /* Release: what this process published before the flush is visible to
     the driver's acquire load of the request (ring records are anyway,
     through each ring's head). */
  uint32_t asked = atomic_fetch_add_explicit (&h->flush_req, 1, memory_order_release) + 1;
  emlat_doorbell_ring ();
  uint64_t deadline = emlat_clock_now () + DRIVEN_FLUSH_WAIT_NS;
  for (;;)
    {
      /* Acquire: pairs with the driver's release of its answer. */
      uint32_t done = atomic_load_explicit (&h->flush_done, memory_order_acquire);
      if ((int32_t)(done - asked) >= 0)
        break;
      uint64_t now = emlat_clock_now ();
      if (now >= deadline)
        return -ETIMEDOUT;
      uint64_t left = deadline - now;
      struct timespec ts = { (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
      syscall (SYS_futex, &h->flush_done, FUTEX_WAIT, done, &ts, 0, 0);
    }
  /* Relaxed: stored before the answer (acquired above). */
  if (atomic_load_explicit (&h->d_write_errors, memory_order_relaxed) > errors0)
    return -(int)atomic_load_explicit (&h->d_last_error, memory_order_relaxed);
  return 0;
}

int
emlat_flush (void)
{
  struct emlat_session *s = lock_session ();
  if (!s)
    return -ENOENT;
  if (s->driven)
    {
      /* The session lock is not needed to ask; the control mutex keeps
         start and stop out. */
      pthread_mutex_unlock (&s->lock);
      int rc = driven_flush (s);
      pthread_mutex_unlock (&g_control);
      return rc;
    }
  /* One pass drains every ring as of now; one more writes the interactions
     that ended in it (ixtable.h).  The flush failed if a write failed in
     the passes it waited for. */
  uint64_t errors_before = s->st.write_errors;
  wait_passes (s, 1);
  int rc = s->st.write_errors > errors_before ? -s->st.last_error : 0;
  unlock_session (s);
  return rc;
}

int
emlat_rotate (void)
{
  struct emlat_session *s = lock_session ();
  if (!s)
    return -ENOENT;
  if (s->driven)
    {
      /* A new file starts with the SESSION chunk, which only this process
         could encode: a driven session has one file. */
      unlock_session (s);
      return -ENOTSUP;
    }
  s->rotate_req = 1;
  s->rotate_result = 0;
  wait_passes (s, 0);
  int rc = s->rotate_result;
  unlock_session (s);
  return rc;
}

/* *ST from the snapshot SNAP and the current file's PATH (0: none). */
static void
status_fill (struct emlat_status *st, const struct emlat_status_snap *snap, const char *path)
{
  memset (st, 0, sizeof *st);
  st->active = snap->active;
  st->session_records = snap->session_records;
  st->records_written = snap->records_written;
  st->records_dropped = snap->records_dropped;
  st->bytes_written = snap->bytes_written;
  st->chunks_written = snap->chunks_written;
  st->files = snap->files;
  st->threads = snap->threads;
  st->ring_high_water = snap->ring_high_water;
  st->ring_slots = snap->ring_slots;
  st->writer_cpu_ns = snap->writer_cpu_ns;
  st->clock_read_ns = snap->clock_read_ns;
  st->meta_rejected = snap->meta_rejected;
  st->last_error = snap->last_error;
  st->write_errors = snap->write_errors;
  /* Shorter than the buffer: paths are taken only below
     EMLAT_OUT_PATH_MAX (fileout.h). */
  _Static_assert (sizeof st->path >= EMLAT_OUT_PATH_MAX, "a status holds any path");
  if (path)
    snprintf (st->path, sizeof st->path, "%s", path);
}

void
emlat_status (struct emlat_status *st)
{
  if (!st)
    return;
  pthread_mutex_lock (&g_control);
  struct emlat_session *s = emlat_g_session;
  if (!s)
    status_fill (st, &g_last_status, g_last_path);
  else
    {
      pthread_mutex_lock (&s->lock);
      struct emlat_status_snap snap = s->st;
      if (s->driven)
        driven_status (s, &snap);
      snap.active = 1;
      /* Current, not as of the last pass: the producers' own counters
         (accepted slots, records dropped at a full ring or for want of a
         ring) summed now, plus what the writer itself lost so far. */
      snap.session_records = emlat_rings_accepted (s->pool);
      snap.records_dropped = emlat_rings_dropped (s->pool) + s->st_writer_dropped;
      status_fill (st, &snap, s->st_path);
      pthread_mutex_unlock (&s->lock);
    }
  pthread_mutex_unlock (&g_control);
}

int
emlat_active (void)
{
  /* Relaxed: an answer that may be stale by the time it is returned. */
  return atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed) != 0;
}

uint64_t
emlat_string (const char *str, size_t len)
{
  if (len > EMLAT_STRING_MAX || (!str && len))
    return 0;
  pthread_mutex_lock (&g_control);
  struct emlat_session *s = emlat_g_session;
  if (!s)
    {
      pthread_mutex_unlock (&g_control);
      return 0;
    }
  uint64_t id = 0;
  pthread_mutex_lock (&s->lock);
  if (s->nstrings < (1u << 20) && s->string_bytes + len <= (64u << 20))
    {
      if (s->nstrings == s->strings_cap)
        {
          size_t c = s->strings_cap ? s->strings_cap * 2 : 64;
          struct emlat_string_def *v = realloc (s->strings, c * sizeof *v);
          if (v)
            {
              s->strings = v;
              s->strings_cap = c;
            }
        }
      char *copy = malloc (len ? len : 1);
      /* The ring file keeps the string too, for a reader recovering the
         records that use it; a string it cannot keep is refused. */
      if (copy && s->nstrings < s->strings_cap
          && (s->ring.fd < 0 || emlat_rf_string_add (&s->ring, str, (uint32_t)len) == 0))
        {
          if (len)
            memcpy (copy, str, len);
          s->strings[s->nstrings].s = copy;
          s->strings[s->nstrings].len = (uint32_t)len;
          s->nstrings++;
          s->string_bytes += len;
          id = s->nstrings;
        }
      else
        free (copy);
    }
  if (!id)
    {
      s->strings_refused++;
      if (s->driven)
        /* Relaxed: a count its driver reports as a LOSS. */
        atomic_fetch_add_explicit (&s->ring.h->strings_refused, 1, memory_order_relaxed);
    }
  pthread_mutex_unlock (&s->lock);
  pthread_mutex_unlock (&g_control);
  return id;
}

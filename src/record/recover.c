/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * recover.c -- finishing the profile of a process that left its ring file
 * behind: it died (any signal, exec, exit without emlat_stop) or stopped
 * with EMLAT_OPT_DEFER_FINISH.  emlat_recover (emlat_reader.h).
 *
 * The ring file holds every record the process published (a shared
 * mapping: in the page cache the moment it was stored) and the writer's
 * last checkpoint (checkpoint.h): how many bytes of which profile file were
 * complete, each ring's drained position and open spans, the open
 * interactions, the losses not yet written.  Recovery rebuilds the writer's
 * state from the checkpoint, cuts the profile back to the checkpointed size
 * (the chunks of a pass that died before its checkpoint are drained again),
 * treats every ring as retiring, and runs the writer's own final passes
 * (writer.c) into the profile: the records come out exactly as the process
 * would have written them at emlat_stop.  STATS then says stats.recovered =
 * 1, and stats.final = 1 only if the process had stopped; a caller that
 * reaped the process (emlat_recover_exited, emlat_recover_process_exited)
 * also has it say how the process ended (stats.exit_code or
 * stats.exit_signal).
 *
 * Invariants: recovery runs only with the ring file's exclusive lock (no
 * process records into it); it trusts nothing in the file beyond the
 * checks of ringfile.c and checkpoint.c, and every ring record still goes
 * through the writer's validation; the ring file is removed only after the
 * profile was written successfully.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/endian.h"
#include "common/input_open.h"
#include "emlat/emlat_reader.h"
#include "format/format.h"
#include "record/checkpoint.h"
#include "record/app.h"
#include "record/rfsession.h"
#include "record/session.h"

/* The profile file header's UUID and rotation (F-11), read directly: the
   profile may be damaged beyond its header, which is all recovery needs. */
int
emlat_rfs_profile_identity (const char *path, uint8_t uuid[16], uint64_t *rotation)
{
  uint8_t h[EMLAT_FILE_HEADER_SIZE];
  struct stat st;
  int fd = emlat_input_open (path, &st); /* a FIFO or a device: not a profile */
  if (fd < 0)
    return fd == -EISDIR || fd == -ENODEV ? -EINVAL : fd;
  ssize_t n = pread (fd, h, sizeof h, 0);
  close (fd);
  struct emlat_file_header fh;
  if (n != (ssize_t)sizeof h || emlat_parse_file_header (h, sizeof h, &fh) != EMLAT_STOP_CLEAN)
    return -EINVAL;
  memcpy (uuid, fh.uuid, 16);
  *rotation = fh.rotation;
  return 0;
}

/* The base name of the set PATH belongs to: PATH itself for rotation 0,
   else PATH without its ".N" (F-80). */
static int
base_path (char *out, size_t cap, const char *path, uint64_t rotation)
{
  if (strlen (path) >= cap)
    return -ENAMETOOLONG;
  strcpy (out, path);
  if (rotation == 0)
    return 0;
  char suffix[32];
  size_t n = strlen (out);
  const char *ext = ".emlat";
  size_t elen = strlen (ext);
  int has_ext = n > elen && strcmp (out + n - elen, ext) == 0;
  if (has_ext)
    out[n - elen] = 0;
  snprintf (suffix, sizeof suffix, ".%llu", (unsigned long long)rotation);
  n = strlen (out);
  size_t sl = strlen (suffix);
  if (n <= sl || strcmp (out + n - sl, suffix) != 0)
    return -EINVAL;
  out[n - sl] = 0;
  if (has_ext)
    strcat (out, ext);
  return 0;
}

static void
take_string (void *ctx, uint64_t id, const void *bytes, uint32_t len)
{
  struct emlat_session *s = ctx;
  (void)id;
  if (s->nstrings == s->strings_cap)
    {
      size_t c = s->strings_cap ? s->strings_cap * 2 : 64;
      struct emlat_string_def *v = realloc (s->strings, c * sizeof *v);
      if (!v)
        return;
      s->strings = v;
      s->strings_cap = c;
    }
  char *copy = malloc (len ? len : 1);
  if (!copy)
    return;
  memcpy (copy, bytes, len);
  s->strings[s->nstrings].s = copy;
  s->strings[s->nstrings].len = len;
  s->nstrings++;
}

void
emlat_rfs_release (struct emlat_session *s)
{
  for (size_t i = 0; i < s->nstrings; i++)
    free (s->strings[i].s);
  free (s->strings);
  if (s->ws)
    for (uint32_t i = 0; i < s->max_threads; i++)
      emlat_spans_free (&s->ws[i].spans);
  free (s->ws);
  emlat_ixtable_free (&s->ix);
  emlat_arena_free (&s->arena);
  emlat_chunk_list_free (&s->chunks);
  free (s->inputs);
  free (s->losses);
  emlat_app_session_free (s);
  emlat_sampler_free (&s->sampler);
  emlat_out_free (&s->out);
  free (s->base_path);
  free (s->st_path);
  pthread_mutex_destroy (&s->lock);
  pthread_cond_destroy (&s->done);
}

/* Rings as the dead writer would see them at its final pass: positions
   from the checkpoint where it has the same owner, every owned ring
   retiring (its spans still open are written as begin records). */
static void
prepare_rings (struct emlat_session *s, struct emlat_pool *pool, const uint64_t *tails,
               const uint64_t *threads, const uint8_t *retired)
{
  for (uint32_t i = 0; i < pool->nrings; i++)
    {
      struct emlat_ring *r = &pool->rings[i];
      /* This process owns the file now: the dead process's pointers are
         replaced by ours (relaxed: no other thread looks at it). */
      r->slots = pool->slab + (size_t)i * pool->nslots;
      r->nslots = pool->nslots;
      r->mask = pool->nslots - 1;
      int st = atomic_load_explicit (&r->state, memory_order_relaxed);
      if (st != EMLAT_RING_OWNED && st != EMLAT_RING_RETIRING)
        {
          /* FREE, or a claim that never finished initialising. */
          atomic_store_explicit (&r->state, EMLAT_RING_FREE, memory_order_relaxed);
          continue;
        }
      uint64_t head = atomic_load_explicit (&r->head, memory_order_relaxed);
      uint64_t tail = atomic_load_explicit (&r->tail, memory_order_relaxed);
      if (tails[i] != UINT64_MAX && threads[i] == r->thread_id)
        {
          if (retired[i])
            {
              /* Drained to the end and accounted before the death. */
              atomic_store_explicit (&r->state, EMLAT_RING_FREE, memory_order_relaxed);
              continue;
            }
          tail = tails[i];
        }
      else
        {
          /* A ring claimed after the checkpoint: its state starts empty
             (snapshot_heads resets it on the owner change). */
          s->ws[i].thread = 0;
        }
      if (head < tail || head - tail > pool->nslots)
        head = tail; /* not a position this ring could have had */
      atomic_store_explicit (&r->head, head, memory_order_relaxed);
      atomic_store_explicit (&r->tail, tail, memory_order_relaxed);
      atomic_store_explicit (&r->state, EMLAT_RING_RETIRING, memory_order_relaxed);
    }
}

/* The profile's start kept in ring file RF (a DRIVEN session writes
   nothing into its profile: F-106), checked (its CRC, and a file header
   of RF's session at rotation 0 at its beginning): 0 with *START
   (malloc'd) and *LEN, or *LEN 0 when none is kept; -EPROTO when what is
   kept is damaged. */
static int
profile_start (const struct emlat_ringfile *rf, void **start, size_t *len)
{
  int rc = emlat_rf_prologue_read (rf, start, len);
  if (rc == -ENOMEM || (rc == 0 && *len == 0))
    return rc;
  struct emlat_file_header fh;
  if (rc == 0
      && (*len < EMLAT_FILE_HEADER_SIZE
          || emlat_parse_file_header (*start, EMLAT_FILE_HEADER_SIZE, &fh) != EMLAT_STOP_CLEAN
          || memcmp (fh.uuid, rf->h->uuid, 16) != 0 || fh.rotation != 0))
    rc = -EINVAL;
  if (rc != 0)
    {
      free (*start);
      *start = 0;
      *len = 0;
      return -EPROTO;
    }
  return 0;
}

/* Open the profile file the checkpoint names, its start written first
   when only RF holds it, cut back to its size, and remove later rotated
   files (created by a pass that never checkpointed). */
int
emlat_rfs_reopen_profile (struct emlat_session *s, const struct emlat_ringfile *rf)
{
  char name[4096];
  for (uint64_t k = s->rotation + 1;; k++)
    {
      if (emlat_out_rotated_name (name, sizeof name, s->base_path, k) != 0
          || access (name, F_OK) != 0)
        break;
      unlink (name);
    }
  if (s->rotation == 0)
    snprintf (name, sizeof name, "%s", s->base_path);
  else if (emlat_out_rotated_name (name, sizeof name, s->base_path, s->rotation) != 0)
    return -ENAMETOOLONG;
  void *start = 0;
  size_t len = 0;
  int rc = s->rotation == 0 ? profile_start (rf, &start, &len) : 0;
  if (rc == 0)
    rc = emlat_out_reopen (&s->out, name, s->out.size, start, len);
  free (start);
  return rc;
}

/* A writer session S over ring file RF (of the set BASE) that this process
   did not create, with POOL over its rings: the sizes and clock origins
   from its header, per-ring state, the newest checkpoint restored (each
   ring's drained position in CK, allocated here and freed by
   emlat_rfs_release's caller with free) and the strings of its log.
   Returns 0; -ENOMEM; or another negative errno when no checkpoint could
   be restored (S is still set up and must be released). */
int
emlat_rfs_init (struct emlat_session *s, struct emlat_pool *pool, struct emlat_ringfile *rf,
                const char *base, struct emlat_rfs_checkpoint *ck)
{
  struct emlat_rf_header *h = rf->h;
  memset (s, 0, sizeof *s);
  memset (pool, 0, sizeof *pool);
  memset (ck, 0, sizeof *ck);
  pthread_mutex_init (&s->lock, 0);
  pthread_cond_init (&s->done, 0);
  s->out.fd = -1;
  s->ring.fd = -1;
  s->max_threads = h->nrings;
  s->ring_slots = (uint32_t)h->nslots;
  s->chunk_bytes = h->chunk_bytes;
  s->stats_ms = 1000;
  s->rotate_bytes = h->rotate_bytes;
  memcpy (s->uuid, h->uuid, 16);
  s->mono0 = h->mono0;
  s->realtime0 = h->realtime0;
  long page = sysconf (_SC_PAGESIZE);
  s->page_bytes = page > 0 ? (size_t)page : 4096u;
  s->base_path = strdup (base);
  pool->nrings = h->nrings;
  pool->nslots = h->nslots;
  pool->rings = emlat_rf_ring (rf, 0);
  pool->slab = emlat_rf_slots (rf, 0);
  pool->slab_bytes = (size_t)h->nrings * h->nslots * EMLAT_SLOT_BYTES;
  pool->shared = &h->shared;
  pool->file_backed = 1;
  pool->futex_private = 0; /* the words are shared with the recording process */
  s->pool = pool;
  s->ws = calloc (h->nrings, sizeof *s->ws);
  s->losses = calloc (EMLAT_LOSSES_MIN, sizeof *s->losses);
  s->losses_cap = EMLAT_LOSSES_MIN;
  ck->tails = calloc (h->nrings, sizeof *ck->tails);
  ck->threads = calloc (h->nrings, sizeof *ck->threads);
  ck->retired = calloc (h->nrings, 1);
  if (!s->base_path || !s->ws || !s->losses || !ck->tails || !ck->threads || !ck->retired)
    return -ENOMEM;
  void *buf = 0;
  size_t len = 0;
  int rc = emlat_rf_ckpt_read (rf, &buf, &len, &ck->seq);
  if (rc == 0)
    {
      rc = emlat_ckpt_restore (s, buf, len, ck->tails, ck->threads, ck->retired);
      free (buf);
    }
  if (rc != 0)
    return rc == -ENOMEM ? -ENOMEM : -EINVAL;
  emlat_rf_strings (rf, 1, take_string, s);
  return 0;
}

/* The strings RF's log holds beyond those S has (a live recording process
   adds to it). */
void
emlat_rfs_take_strings (struct emlat_session *s, const struct emlat_ringfile *rf)
{
  emlat_rf_strings (rf, s->nstrings + 1, take_string, s);
}

static void
keep_max (uint64_t *v, _Atomic uint64_t *stored)
{
  /* Relaxed: see the caller. */
  uint64_t x = atomic_load_explicit (stored, memory_order_relaxed);
  if (x > *v)
    *v = x;
}

/* How the recording process ended, when the caller knows: a wait status. */
struct exit_info
{
  int known;
  int status;
};

static int
recover_with (struct emlat_ringfile *rf, const char *base, const struct exit_info *ex,
              struct emlat_recovery *res)
{
  struct emlat_rf_header *h = rf->h;
  uint32_t state = atomic_load_explicit (&h->state, memory_order_relaxed);
  if (state == EMLAT_RF_BROKEN)
    {
      /* The writer gave up on the file (STATS says so): the profile holds
         everything drained; nothing here can be trusted. */
      res->found = 1;
      res->broken = 1;
      return 0;
    }
  struct emlat_session s;
  struct emlat_pool pool;
  struct emlat_rfs_checkpoint ck;
  int rc = emlat_rfs_init (&s, &pool, rf, base, &ck);
  s.recovering = 1;
  s.recovered_stopped = state == EMLAT_RF_STOPPED;
  s.writer_in_driver = (h->flags & EMLAT_RF_DRIVEN) != 0;
  s.exit_known = ex->known;
  s.exit_status = ex->status;
  s.rotate_bytes = 0; /* the last records go into the last file */
  /* Every ring is looked at (relaxed: this process holds the file's lock,
     nobody else reads it). */
  atomic_store_explicit (&h->shared.used, h->nrings, memory_order_relaxed);
  uint64_t *tails = ck.tails, *threads = ck.threads;
  uint8_t *retired = ck.retired;
  if (rc == -ENOMEM)
    goto out;
  if (rc != 0)
    {
      /* No checkpoint at all (the process died inside emlat_start) or an
         unreadable one: nothing to build on. */
      res->found = 1;
      res->broken = 1;
      rc = 0;
      goto out;
    }
  if (s.recovered_stopped || (h->flags & EMLAT_RF_DRIVEN))
    {
      /* The writer's counts when it ended, stored by the process at its
         stop, or by the driver of a DRIVEN file when it stopped draining
         (drain.c; zero if it died): counts, so the larger of them and
         the checkpoint's is the later.  Relaxed: stored before the
         lock this process holds was released. */
      keep_max (&s.writer_cpu_ns, &h->stop_writer_cpu_ns);
      keep_max (&s.wakeups, &h->stop_wakeups);
      keep_max (&s.highwater_wakes, &h->stop_highwater_wakes);
      keep_max (&s.ahead_wakes, &h->stop_ahead_wakes);
    }
  prepare_rings (&s, &pool, tails, threads, retired);
  rc = emlat_rfs_reopen_profile (&s, rf);
  if (rc != 0)
    goto out;
  uint64_t written0 = s.records_written, errors0 = s.write_errors;
  emlat_writer_finish (&s);
  res->found = 1;
  res->process_stopped = s.recovered_stopped;
  res->records = s.records_written - written0;
  rc = s.write_errors > errors0 ? -s.last_error : 0;
out:
  free (tails);
  free (threads);
  free (retired);
  emlat_rfs_release (&s);
  return rc;
}

/* Whether PATH is a regular file shorter than a profile's file header:
   one whose start a driver or a recovery has still to write. */
static int
unwritten (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 && S_ISREG (st.st_mode)
         && (uint64_t)st.st_size < EMLAT_FILE_HEADER_SIZE;
}

static int
recover_profile (const char *profile, const struct exit_info *ex, struct emlat_recovery *res)
{
  struct emlat_recovery dummy;
  if (!res)
    res = &dummy;
  memset (res, 0, sizeof *res);
  if (!profile)
    return -EINVAL;
  uint8_t uuid[16];
  uint64_t rotation = 0;
  int rc = emlat_rfs_profile_identity (profile, uuid, &rotation);
  if (rc == -EINVAL && unwritten (profile))
    {
      /* A DRIVEN session's profile that nobody wrote into yet: its ring
         file keeps its start and names it (F-106). */
      rc = emlat_rf_find_by_profile (profile, uuid) == 0 ? 0 : -EINVAL;
      rotation = 0;
    }
  if (rc != 0)
    return rc == -EINVAL ? 0 : rc; /* not a profile: nothing to recover */
  char base[4096];
  if (base_path (base, sizeof base, profile, rotation) != 0)
    return 0;
  struct emlat_ringfile rf;
  rc = emlat_rf_open (&rf, base, uuid, EMLAT_RF_OPEN_RECOVER);
  if (rc == -ENOENT)
    return 0;
  if (rc != 0)
    {
      res->found = rc != -ESTALE;
      return rc == -ESTALE ? 0 : rc;
    }
  rc = recover_with (&rf, base, ex, res);
  emlat_rf_close (&rf, rc == 0);
  return rc;
}

EMLAT_API int emlat_recover (const char *profile, struct emlat_recovery *res)
{
  static const struct exit_info unknown = { 0, 0 };
  return recover_profile (profile, &unknown, res);
}

EMLAT_API int emlat_recover_exited (const char *profile, int wait_status,
                                    struct emlat_recovery *res)
{
  const struct exit_info ex = { wait_status >= 0, wait_status };
  return recover_profile (profile, &ex, res);
}

/* emlat_recover_process: the running total and the first error. */
struct process_recovery
{
  struct emlat_recovery *total;
  const struct exit_info *ex;
  int rc;
};

static void
recover_one_of_process (const char *profile, void *ctx)
{
  struct process_recovery *p = ctx;
  struct emlat_recovery one;
  int rc = recover_profile (profile, p->ex, &one);
  p->total->found += one.found;
  p->total->process_stopped += one.process_stopped;
  p->total->broken += one.broken;
  p->total->records += one.records;
  if (rc != 0 && p->rc == 0)
    p->rc = rc;
}

static int
recover_process (pid_t pid, const struct exit_info *ex, struct emlat_recovery *res)
{
  struct emlat_recovery dummy;
  if (!res)
    res = &dummy;
  memset (res, 0, sizeof *res);
  if (pid <= 0)
    return -EINVAL;
  struct process_recovery p = { res, ex, 0 };
  int n = emlat_rf_each_of_process ((uint64_t)pid, recover_one_of_process, &p);
  if (n < 0)
    return n == -ENOENT ? 0 : n; /* no /dev/shm: nothing left there */
  return p.rc;
}

EMLAT_API int emlat_recover_process (pid_t pid, struct emlat_recovery *res)
{
  static const struct exit_info unknown = { 0, 0 };
  return recover_process (pid, &unknown, res);
}

EMLAT_API int emlat_recover_process_exited (pid_t pid, int wait_status,
                                            struct emlat_recovery *res)
{
  const struct exit_info ex = { wait_status >= 0, wait_status };
  return recover_process (pid, &ex, res);
}

EMLAT_API void emlat_recover_sweep (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, emlat_rf_sweep_orphans);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_drain.c -- the driver as the writer (src/record/drain.h,
 * docs/DESIGN.md 8.7): a child records with EMLAT_OPT_DRIVER_DRAINS into
 * a profile this process created, this process drains its rings while it
 * runs (emlat_drainer_start after the fork) and finishes the profile.
 *
 * Rounds, each with a child that records numbered user spans (detail =
 * 1, 2, ...) at a steady rate into rings of 4096 slots, so that its rings
 * pass their high-water mark dozens of times:
 *   drained   the child has no writer thread; at span 10,000 its
 *             emlat_flush returns 0 and the profile then holds spans
 *             1..10,000 (read by the child itself: the flush contract
 *             across processes); its emlat_status shows the driver's
 *             passes; it stops.  Afterwards: every span exactly once, no
 *             loss, stats.final = 1, the driver's CPU in STATS, and the
 *             drainer made passes.
 *   threads   the child runs 200 threads one after the other, each
 *             recording 10 spans, with 16 rings: the driver frees the
 *             rings of exited threads and wakes threads waiting at their
 *             exit across the process boundary; no thread finds no ring
 *             and the round takes seconds, not 200 waits of 250 ms.
 *   killed    SIGKILL at a random moment: every span published 10 ms or
 *             more before the kill is there, numbered without a gap.
 *   no driver nothing drains: the child's flush fails with -ETIMEDOUT,
 *             and every span is either in the profile or counted in a
 *             LOSS record; none twice.
 *   given up  the drainer stops 30 ms into the run (a driver that gives
 *             up or dies) while the child records on: what it drained
 *             stays, the rest is in the profile or counted as lost.
 *   big start as drained, with a SESSION larger than the ring file keeps
 *             of a profile's start: the program writes its start into the
 *             profile itself, and the driver drains as before.
 *   undriven killed  no driver, SIGKILL at a random moment: the profile
 *             is still empty (the program wrote nothing into it, in any
 *             round: F-106) and its start is in the ring file; a
 *             recovery with that start damaged refuses and changes
 *             nothing, and with it intact writes the start and the
 *             records the ring kept, the rest counted as lost.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "record/drain.h"
#include "record/ringfile.h"
#include "publog.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

const char *__asan_default_options (void);
const char *__tsan_default_options (void);
const char *
__asan_default_options (void)
{
  return "handle_segv=0:handle_abort=0";
}
const char *
__tsan_default_options (void)
{
  return "handle_segv=0:handle_abort=0";
}

#define SPANS 20000u
#define RING_SLOTS 4096u

/* BY_PID: as DRAINED, but the child names its profile itself (the
   driver did not create it) and the driver finds the session by the
   child's process id, as `emlat replay` does for a profiled Emacs. */
enum mode { DRAINED, THREADS, KILLED, NO_DRIVER, GIVEN_UP, BY_PID, UNDRIVEN_KILLED, BIG_START };

/* What the child publishes, in memory shared with the parent. */
struct progress
{
  struct publog log;
  _Atomic uint64_t started;
  /* The child's own findings (exit codes say which failed). */
  _Atomic uint64_t writers_at_start, flush_rc, spans_after_flush, status_passes_cpu;
  /* Right after emlat_start: the profile's size, the length of the start
     the ring file keeps (UINT64_MAX: none found), and the program's
     descriptors open on the profile.  A driven program writes nothing into
     its profile (FORMAT.md F-106): its start is in the ring file, and it
     does not open a profile its driver made.
     Its size alone cannot say so, as the driver may already have written
     the start the ring file keeps by the time the program looks. */
  _Atomic uint64_t profile_bytes_at_start, kept_start_at_start, profile_fds_at_start;
};

/* The length of the profile's start the ring file of the session
   recording into PATH keeps (FORMAT.md F-106), its path in RING and its
   header in H; UINT64_MAX when there is no such ring file or it cannot be
   read (the child calls it too, so it checks nothing itself). */
static uint64_t
kept_start_len (const char *path, char *ring, size_t ring_len, struct emlat_rf_header *h)
{
  uint8_t uuid[16];
  if (emlat_rf_find_by_profile (path, uuid) != 0
      || emlat_rf_path (ring, ring_len, EMLAT_RF_IN_SHM, path, uuid) != 0)
    return UINT64_MAX;
  int fd = open (ring, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return UINT64_MAX;
  ssize_t got = pread (fd, h, sizeof *h, 0);
  close (fd);
  return got == (ssize_t)sizeof *h ? atomic_load (&h->prologue_len) : UINT64_MAX;
}

/* Descriptors of this process open on the file at PATH. */
static uint64_t
descriptors_on (const char *path)
{
  struct stat want, st;
  DIR *d = opendir ("/proc/self/fd");
  if (stat (path, &want) != 0 || !d)
    {
      if (d)
        closedir (d);
      return UINT64_MAX;
    }
  uint64_t n = 0;
  for (struct dirent *e; (e = readdir (d));)
    {
      char fdpath[300];
      snprintf (fdpath, sizeof fdpath, "/proc/self/fd/%s", e->d_name);
      if (e->d_name[0] != '.' && stat (fdpath, &st) == 0 && st.st_dev == want.st_dev
          && st.st_ino == want.st_ino)
        n++;
    }
  closedir (d);
  return n;
}

/* Threads of this process named emlat-writer (a sanitizer's runtime may
   have threads of its own, so they are not simply counted). */
static uint64_t
writer_threads (void)
{
  DIR *d = opendir ("/proc/self/task");
  uint64_t n = 0;
  if (!d)
    return UINT64_MAX;
  for (struct dirent *e; (e = readdir (d));)
    {
      if (e->d_name[0] == '.')
        continue;
      char path[300], comm[64] = { 0 };
      snprintf (path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
      FILE *f = fopen (path, "r");
      if (!f)
        continue;
      if (fgets (comm, sizeof comm, f) && strcmp (comm, "emlat-writer\n") == 0)
        n++;
      fclose (f);
    }
  closedir (d);
  return n;
}

/* Spans 1..UPTO with an end, in the profile at PATH (no recovery: the
   caller still records). */
static uint64_t
spans_up_to (const char *path, uint64_t upto)
{
  struct emlat_profile *p = 0;
  const char *paths[] = { path };
  if (emlat_profile_load (paths, 1, 0, EMLAT_LOAD_SPANS, &p) != 0 || !p)
    return 0;
  size_t n;
  const uint64_t *pool;
  const struct emlat_span *sp = emlat_profile_spans (p, &n, &pool);
  uint64_t k = 0;
  for (size_t i = 0; i < n; i++)
    if ((sp[i].flags & EMLAT_SPAN_HAS_END) && sp[i].detail >= 1 && sp[i].detail <= upto)
      k++;
  emlat_profile_free (p);
  return k;
}

static void *
short_thread (void *arg)
{
  uint64_t base = *(uint64_t *)arg;
  for (uint64_t i = 0; i < 10; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
      emlat_span_end (s, EMLAT_SPAN_OK, base + i);
    }
  return 0;
}

static void
child (const char *path, struct progress *pg, enum mode m)
{
  struct rlimit no_core = { 0, 0 };
  setrlimit (RLIMIT_CORE, &no_core);
  struct emlat_options o = { .path = path,
                             .ring_slots = RING_SLOTS,
                             .max_threads = m == THREADS ? 16 : 0,
                             .flags = EMLAT_OPT_DEFER_FINISH | EMLAT_OPT_ADOPT_EMPTY
                                      | EMLAT_OPT_DRIVER_DRAINS };
  /* BIG_START: a SESSION of about 80 KiB, more than the ring file keeps
     of a profile's start (64 KiB): the program writes it itself. */
  static struct emlat_meta big[80];
  static char keys[80][32], value[1000];
  if (m == BIG_START)
    {
      memset (value, 'x', sizeof value);
      for (int i = 0; i < 80; i++)
        {
          snprintf (keys[i], sizeof keys[i], "test.big_%d", i);
          big[i] = (struct emlat_meta){ .key = keys[i], .type = EMLAT_META_STR, .s = value,
                                        .s_len = sizeof value };
        }
      o.meta = big;
      o.n_meta = 80;
    }
  if (emlat_start (&o) != 0)
    _exit (3);
  atomic_store (&pg->writers_at_start, writer_threads ());
  struct stat at_start;
  atomic_store (&pg->profile_bytes_at_start,
                stat (path, &at_start) == 0 ? (uint64_t)at_start.st_size : UINT64_MAX);
  char ring[4096];
  struct emlat_rf_header h;
  atomic_store (&pg->kept_start_at_start, kept_start_len (path, ring, sizeof ring, &h));
  atomic_store (&pg->profile_fds_at_start, descriptors_on (path));
  atomic_store (&pg->started, 1);
  if (m == THREADS)
    {
      for (uint64_t t = 0; t < 200; t++)
        {
          pthread_t th;
          uint64_t base = 1 + t * 10;
          if (pthread_create (&th, 0, short_thread, &base) != 0)
            _exit (6);
          pthread_join (th, 0);
          atomic_store_explicit (&pg->log.published, base + 9, memory_order_release);
        }
      _exit (emlat_stop () == 0 ? 0 : 5);
    }
  for (uint64_t n = 1; n <= SPANS; n++)
    {
      publog_span (&pg->log, n);
      if (n == SPANS / 2 && (m == DRAINED || m == BY_PID || m == NO_DRIVER || m == BIG_START))
        {
          int rc = emlat_flush ();
          atomic_store (&pg->flush_rc, (uint64_t)(int64_t)rc);
          if (m == DRAINED || m == BY_PID || m == BIG_START)
            {
              atomic_store (&pg->spans_after_flush, spans_up_to (path, n));
              struct emlat_status st;
              emlat_status (&st);
              atomic_store (&pg->status_passes_cpu,
                            st.writer_cpu_ns > 0 && st.records_written > 0);
            }
        }
    }
  if (m == KILLED || m == UNDRIVEN_KILLED)
    for (;;)
      pause ();
  _exit (emlat_stop () == 0 ? 0 : 5);
}

/* The program's resource samples in its profile, taken by its driver. */
struct samples_seen
{
  size_t n;
  size_t with_rss;      /* samples with the resident set size */
  uint64_t last_cpu_ns; /* user + system CPU of the last sample with both */
  size_t last_cpu_at;   /* that sample's number, from 1 */
};

static void
collect (const char *path, struct numbered *sn, struct samples_seen *rs, uint64_t *stats,
         const char *const *keys, size_t nkeys, uint64_t *lost)
{
  struct emlat_profile *p = 0;
  const char *paths[] = { path };
  CHECK_OK (emlat_profile_load (paths, 1, 0, EMLAT_LOAD_SPANS, &p));
  if (!p)
    return;
  numbered_spans_of (p, sn);
  const struct emlat_rd_sample *smp = emlat_profile_samples (p, &rs->n);
  for (size_t i = 0; i < rs->n; i++)
    {
      uint32_t cpu = (1u << EMLAT_RES_CPU_USER_NS) | (1u << EMLAT_RES_CPU_SYS_NS);
      if ((smp[i].mask & cpu) == cpu)
        {
          rs->last_cpu_ns = smp[i].v[EMLAT_RES_CPU_USER_NS] + smp[i].v[EMLAT_RES_CPU_SYS_NS];
          rs->last_cpu_at = i + 1;
        }
      if (smp[i].mask & (1u << EMLAT_RES_RSS_BYTES))
        rs->with_rss++;
    }
  size_t nkv;
  const struct emlat_kv *kv = emlat_profile_stats (p, &nkv);
  for (size_t k = 0; k < nkeys; k++)
    {
      const struct emlat_kv *e = emlat_kv_find (kv, nkv, keys[k]);
      stats[k] = e ? e->u : UINT64_MAX;
    }
  size_t nl;
  const struct emlat_loss_entry *l = emlat_profile_losses (p, &nl);
  *lost = 0;
  for (size_t i = 0; i < nl; i++)
    *lost += l[i].loss.records;
  emlat_profile_free (p);
}

/* The profile at PATH is still empty and its start is kept in the ring
   file of the session (killed, never drained): a recovery with that
   start damaged refuses (-EPROTO) and leaves both files as they were;
   with it intact it writes the start and the records. */
static void
kept_start_checked (const char *path)
{
  char ring[4096];
  struct emlat_rf_header h;
  uint64_t len = kept_start_len (path, ring, sizeof ring, &h);
  CHECK (len != UINT64_MAX, "the ring file keeps the profile's start");
  if (len == UINT64_MAX)
    return; /* RING and H were not filled */
  CHECK (len > 64 && len <= h.prologue_cap, "the profile's start is kept (%llu bytes)",
         (unsigned long long)len);
  int fd = open (ring, O_RDWR | O_CLOEXEC);
  CHECK (fd >= 0, "open %s", ring);
  uint8_t b = 0, flipped;
  off_t at = (off_t)(h.prologue_off + len / 2);
  CHECK (pread (fd, &b, 1, at) == 1, "read a byte of the start");
  flipped = b ^ 0x10;
  CHECK (pwrite (fd, &flipped, 1, at) == 1, "damage the start");
  struct emlat_recovery rec;
  CHECK_EQ_I64 (emlat_recover (path, &rec), -EPROTO);
  struct stat st;
  CHECK (stat (path, &st) == 0 && st.st_size == 0, "the profile is left empty");
  CHECK (access (ring, F_OK) == 0, "the ring file is kept");
  CHECK (pwrite (fd, &b, 1, at) == 1, "repair the start");
  close (fd);
  CHECK_OK (emlat_recover (path, &rec));
  CHECK (rec.found == 1 && rec.records > 0, "recovered %llu records",
         (unsigned long long)rec.records);
  CHECK (stat (path, &st) == 0 && st.st_size > (off_t)len, "the profile has its start and more");
  CHECK (access (ring, F_OK) != 0, "the ring file is gone");
}

static void
round_with (const char *dir, enum mode m, int delay_ms, int idx)
{
  static const char *const names[]
    = { "drained", "threads", "killed",         "no driver",
        "given up", "by pid",  "undriven killed", "big start" };
  char *path = tu_strf ("%s/drain-%d-%d.emlat", dir, (int)m, idx);
  if (m != BY_PID)
    {
      FILE *f = fopen (path, "wx"); /* the driver creates the profile, empty */
      CHECK (f != NULL, "create %s", path);
      fclose (f);
    }
  struct progress *pg = mmap (0, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                              -1, 0);
  CHECK (pg != MAP_FAILED, "shared progress page");
  memset (pg, 0, sizeof *pg);
  uint64_t t0 = emlat_now ();
  pid_t pid = fork ();
  if (pid == 0)
    child (path, pg, m);
  struct emlat_drainer *d = NULL;
  if (m != NO_DRIVER && m != UNDRIVEN_KILLED)
    CHECK_OK (emlat_drainer_start (m == BY_PID ? NULL : path, pid, &d));
  while (!atomic_load (&pg->started))
    usleep (200);
  int status = 0;
  uint64_t kill_t = 0;
  struct emlat_drain_result dr = { 0 };
  if (m == GIVEN_UP)
    {
      usleep (30 * 1000);
      emlat_drainer_stop (d, &dr);
      d = NULL;
    }
  if (m == KILLED || m == UNDRIVEN_KILLED)
    {
      usleep ((useconds_t)delay_ms * 1000);
      kill_t = emlat_now ();
      kill (pid, SIGKILL);
    }
  /* As the drivers do: the drainer stops once the child has exited and
     before it is reaped, so its last sample finds the child in /proc. */
  siginfo_t si;
  while (waitid (P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
    ;
  if (d)
    emlat_drainer_stop (d, &dr);
  waitpid (pid, &status, 0);
  uint64_t secs10 = (emlat_now () - t0) / 100000000u;
  if (m == KILLED || m == UNDRIVEN_KILLED)
    CHECK (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL, "%s: killed (0x%x)", names[m],
           status);
  else
    CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0, "%s: child exit 0x%x", names[m],
           status);
  CHECK_EQ_U64 (atomic_load (&pg->writers_at_start), 0);
  uint64_t at_start = atomic_load (&pg->profile_bytes_at_start);
  uint64_t kept = atomic_load (&pg->kept_start_at_start);
  uint64_t fds = atomic_load (&pg->profile_fds_at_start);
  if (m == BIG_START)
    CHECK (at_start > 80000 && at_start != UINT64_MAX && kept == UINT64_MAX && fds == 1,
           "%s: the program wrote its start itself (%llu bytes after its start, %llu kept in "
           "the ring file, %llu descriptors on the profile)",
           names[m], (unsigned long long)at_start, (unsigned long long)kept,
           (unsigned long long)fds);
  else
    /* BY_PID: the program made its profile (no driver had), and keeps
       the descriptor it made it with. */
    CHECK (kept > 64 && kept != UINT64_MAX && fds == (m == BY_PID ? 1u : 0u),
           "%s: the program wrote nothing into its profile (its start of %llu bytes kept in the "
           "ring file, %llu descriptors on the profile, %llu bytes after its start, perhaps "
           "written by the driver)",
           names[m], (unsigned long long)kept, (unsigned long long)fds,
           (unsigned long long)at_start);
  if (m == UNDRIVEN_KILLED)
    kept_start_checked (path);
  uint64_t published = atomic_load_explicit (&pg->log.published, memory_order_acquire);
  uint64_t early = m == KILLED || m == UNDRIVEN_KILLED ? publog_before (&pg->log, kill_t) : 0;

  struct numbered sn = { 0 };
  sn.cap = SPANS + 2;
  sn.have = calloc (sn.cap, 1);
  static const char *const keys[]
    = { "stats.recovered", "stats.final", "stats.writer_cpu_ns", "stats.records_dropped",
        "stats.writer_in_driver" };
  uint64_t st[5], lost = 0;
  struct samples_seen rs = { 0 };
  collect (path, &sn, &rs, st, keys, 5, &lost);
  uint64_t missing = 0;
  for (uint64_t i = 1; i <= published; i++)
    if (!sn.have[i])
      missing++;
  TEST_DIAG ("%-9s: published %llu (%llu 10 ms before a kill), missing %llu, lost records %llu, "
             "drainer passes %llu, wake-ups %llu, CPU %llu us, round %llu.%llu s; "
             "%zu resource samples, the last with %llu us of the program's CPU",
             names[m], (unsigned long long)published, (unsigned long long)early,
             (unsigned long long)missing, (unsigned long long)lost,
             (unsigned long long)dr.passes, (unsigned long long)dr.wakeups,
             (unsigned long long)dr.writer_cpu_ns / 1000, (unsigned long long)secs10 / 10,
             (unsigned long long)secs10 % 10, rs.n, (unsigned long long)rs.last_cpu_ns / 1000);
  CHECK_EQ_U64 (sn.dup, 0);
  CHECK_EQ_U64 (sn.bad, 0);
  CHECK_EQ_U64 (st[0], 1); /* recovered: the last records came from the ring file */
  /* The last STATS (the recovery's) says the program had no writer. */
  CHECK (st[4] == 1, "%s: stats.writer_in_driver = %llu", names[m], (unsigned long long)st[4]);
  switch (m)
    {
    case DRAINED:
    case BY_PID:
    case BIG_START:
    case THREADS:
      CHECK_EQ_U64 (missing, 0);
      CHECK_EQ_U64 (lost, 0);
      CHECK_EQ_U64 (st[3], 0);
      CHECK_EQ_U64 (st[1], 1);
      CHECK (dr.attached, "%s: the drainer attached (error %d)", names[m], dr.error);
      CHECK (dr.passes >= 3, "%s: the drainer ran passes (%llu)", names[m],
             (unsigned long long)dr.passes);
      CHECK (st[2] > 0 && st[2] != UINT64_MAX, "%s: STATS carries the drainer's CPU", names[m]);
      /* The driver samples the program: the baseline at its start and
         the last when the program stopped or exited (alive, with its
         RSS, or not yet reaped, without), with the CPU it had used
         (/proc counts it in clock ticks: the drained program spins for
         several, the threads' program may use less than one). */
      CHECK (rs.n >= 2 && rs.with_rss >= 1 && rs.last_cpu_at == rs.n
               && (m == THREADS || rs.last_cpu_ns > 0),
             "%s: the driver's resource samples of the program (%zu, %zu with RSS, CPU %llu ns)",
             names[m], rs.n, rs.with_rss, (unsigned long long)rs.last_cpu_ns);
      if (m != THREADS)
        {
          CHECK_EQ_U64 (atomic_load (&pg->flush_rc), 0);
          CHECK_EQ_U64 (atomic_load (&pg->spans_after_flush), SPANS / 2);
          CHECK_EQ_U64 (atomic_load (&pg->status_passes_cpu), 1);
        }
      else
        /* 200 exits each waiting up to 250 ms would be 50 s. */
        CHECK (secs10 < 200, "threads: the round took %llu.%llu s",
               (unsigned long long)secs10 / 10, (unsigned long long)secs10 % 10);
      break;
    case KILLED:
      CHECK_EQ_U64 (missing, 0);
      CHECK_EQ_U64 (lost, 0);
      CHECK_EQ_U64 (st[1], 0);
      CHECK (early <= sn.max, "every span published 10 ms before the kill is there");
      /* Killed: the baseline at least (the end pass wrote it; the
         program was reaped before the drainer stopped). */
      CHECK (rs.n >= 1, "killed: the driver's baseline sample is in the profile (%zu)", rs.n);
      CHECK_LE_U64 (sn.unended, 1);
      break;
    case UNDRIVEN_KILLED:
      /* Nobody drained and nobody wrote the profile's start: the
         recovery wrote it from the ring file, then every record the ring
         kept; the rest is counted lost. */
      CHECK_EQ_U64 (st[1], 0);
      CHECK (missing * 2 <= lost + 2, "%s: %llu spans missing, %llu records lost", names[m],
             (unsigned long long)missing, (unsigned long long)lost);
      CHECK (sn.max >= 1 && (early <= sn.max || lost > 0),
             "%s: the spans the ring kept are there (up to %llu)", names[m],
             (unsigned long long)sn.max);
      break;
    case GIVEN_UP:
      CHECK (dr.attached && dr.passes >= 1, "given up: the drainer drained first (%llu passes)",
             (unsigned long long)dr.passes);
      __attribute__ ((fallthrough)); /* after it, nothing drains */
    case NO_DRIVER:
      if (m == NO_DRIVER)
        CHECK_EQ_U64 ((uint64_t)(int64_t)atomic_load (&pg->flush_rc),
                      (uint64_t)(int64_t)-ETIMEDOUT);
      CHECK (lost > 0, "%s: the full rings dropped records (LOSS)", names[m]);
      /* Each span is 2 ring records: present + lost covers them all. */
      CHECK (missing * 2 <= lost + 2, "%s: %llu spans missing, %llu records lost", names[m],
             (unsigned long long)missing, (unsigned long long)lost);
      CHECK_EQ_U64 (st[1], 1);
      break;
    }
  free (sn.have);
  munmap (pg, sizeof *pg);
  unlink (path);
  free (path);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  srand ((unsigned)time (0) ^ (unsigned)getpid ());
  int idx = 0;
  round_with (dir, DRAINED, 0, idx++);
  round_with (dir, THREADS, 0, idx++);
  for (int r = 0; r < 4; r++)
    round_with (dir, KILLED, 20 + rand () % 180, idx++);
  round_with (dir, NO_DRIVER, 0, idx++);
  round_with (dir, GIVEN_UP, 0, idx++);
  round_with (dir, BY_PID, 0, idx++);
  round_with (dir, UNDRIVEN_KILLED, 20 + rand () % 80, idx++);
  round_with (dir, BIG_START, 0, idx++);
  TEST_DONE ();
}

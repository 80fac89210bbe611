/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * peer_harness.h -- the measuring half of every peer program of the peers
 * benchmark (bench/peers/run.sh, bench/README.md "Peers").  Each
 * bench/peers/peer_NAME.c defines PEER_NAME, includes this file and then
 * defines one recorder behind the interface declared below, so that the
 * recorder's event call is inlined into the same loop for every peer (no
 * peer pays a call the others do not).  It is a header only in that
 * sense: it holds main() and is included by exactly one translation unit
 * per program.
 *
 * The work, the same for every peer: an "event" is one timestamped record
 * of a small fixed payload (a 32-bit event id and a 64-bit value), with
 * one clock read.  The loop records events in pairs (id 1 then id 2, both
 * with the running pair number as the value), so that emlat's unit of
 * work, a span begin/end pair, is one pair of events: one emlat record is
 * one event.
 *
 *   peer_NAME [--events N] [--trial-s S] [--batches B]
 *       One round: prints "METRIC peers_NAME_<metric> value unit" lines
 *       (bench/run.sh format) for bench/peers/run.sh to aggregate:
 *         clock_ns                 one read of the clock the peer stamps with
 *         ns_per_event             median of B timed batches of 4096 events
 *                                  (1 ms pause between batches, so that no
 *                                  recorder falls behind), divided by 4096
 *         timing_lost              events lost during those batches (must be 0)
 *         bytes_per_event          bytes on disk / events kept, those batches
 *         unaccounted_events       events offered minus those counted lost
 *                                  minus those read back from the output
 *                                  (must be 0; peers that can read theirs)
 *         full_speed_events_per_s  N events back to back (default 10 M)
 *         full_speed_lost          events that run lost, by the recorder's
 *         full_speed_lost_pct        own counter
 *         consumer_ms_per_mevent   CPU of the writer/consumer side per
 *                                  million events kept, that run (none for
 *                                  a peer that writes on the producer)
 *         zero_loss_events_per_s   highest sustained rate with no loss:
 *                                  a flat-out trial of S seconds (default
 *                                  0.5), then a bisection over one fixed
 *                                  grid of rates, the same for every peer
 *         zero_loss_consumer_ms_per_mevent  the consumer CPU at that rate
 *
 *   peer_NAME --callgrind N
 *       Opens a session, records one pair outside the measurement (first
 *       use of a thread's buffer), then N events in hot_events(), closes.
 *       bench/peers/run.sh runs it under valgrind --tool=callgrind
 *       --toggle-collect=hot_events for two values of N; the difference of
 *       the counts over the difference of N is the cost of one event with
 *       every fixed cost cancelled.  Callgrind's collection state is per
 *       thread, so only the producer's instructions count; system calls
 *       made by the producer count only for their user-space part.
 *
 * Invariants: every output file lives in a new directory under $TMPDIR,
 * removed at the end; nothing is printed on stdout but METRIC and INFO
 * lines; exit status 1 when a recorder fails to open or close.
 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What a closed session reports. */
struct rec_result
{
  uint64_t lost;            /* events lost, by the recorder's own count */
  uint64_t bytes;           /* bytes on disk of the session's output */
  uint64_t consumer_cpu_ns; /* CPU of the writer/consumer side */
  int has_consumer;         /* 0: the producer writes, no consumer side */
  uint64_t on_disk;         /* events read back from the output, when */
  int has_on_disk;          /*   rec_verify asked for it and the peer can */
};

/* Set while the timing batches' session closes: rec_close then reads its
   output back and counts the events in it (not timed). */
static int rec_verify;

#ifndef PEER_NAME
#error "define PEER_NAME before including peer_harness.h"
#endif
static const char peer_name[] = PEER_NAME;

/* The recorder, defined by the file that includes this one. */
/* Start a fresh session writing under DIR; 0 or -1 (message on stderr). */
static int rec_open (const char *dir);
/* Record two events: (1, value) and (2, value).  The hot path. */
static inline void rec_pair (uint64_t value);
/* Stop the session, fill *R, remove its output; 0 or -1. */
static int rec_close (struct rec_result *r);
/* One read of the clock the recorder stamps events with. */
static inline uint64_t rec_clock (void);

#define PAIRS_PER_BATCH 2048 /* a timed batch: 4096 events */
#define PACE_PAIRS 128       /* the paced producer's burst: 256 events */

static char work_dir[4096];

/* The harness's own clock (pacing, elapsed times): the same for all. */
static uint64_t
mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
sleep_ns (uint64_t ns)
{
  struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
                         .tv_nsec = (long)(ns % 1000000000u) };
  nanosleep (&ts, NULL);
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t
median_u64 (uint64_t *v, size_t n)
{
  qsort (v, n, sizeof *v, cmp_u64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The measured loop; noinline (and distinct from warm_events) so that
   callgrind can toggle collection on it alone. */
__attribute__ ((noinline)) static void
hot_events (uint64_t first_pair, uint64_t pairs)
{
  for (uint64_t i = first_pair; i < first_pair + pairs; i++)
    rec_pair (i);
}

__attribute__ ((noinline)) static void
warm_events (uint64_t first_pair, uint64_t pairs)
{
  for (uint64_t i = first_pair; i < first_pair + pairs; i++)
    rec_pair (i);
}

static volatile uint64_t clock_sink;

__attribute__ ((noinline)) static void
hot_clock (uint64_t n)
{
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; i++)
    x += rec_clock ();
  clock_sink = x;
}

/* Size of a file, or 0. */
__attribute__ ((unused)) static uint64_t
file_bytes (const char *path)
{
  struct stat sb;
  return stat (path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* Newlines in a file (events of a text peer), or 0. */
__attribute__ ((unused)) static uint64_t
count_lines (const char *path)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return 0;
  static char buf[1 << 16];
  uint64_t n = 0;
  size_t got;
  while ((got = fread (buf, 1, sizeof buf, f)) > 0)
    for (const char *p = buf; (p = memchr (p, '\n', (size_t)(buf + got - p)));
         p++)
      n++;
  fclose (f);
  return n;
}

static uint64_t tree_sum;

static int
tree_add (const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
  (void)path;
  (void)ftw;
  if (type == FTW_F)
    tree_sum += (uint64_t)sb->st_size;
  return 0;
}

/* Bytes of every regular file under PATH. */
__attribute__ ((unused)) static uint64_t
tree_bytes (const char *path)
{
  tree_sum = 0;
  nftw (path, tree_add, 16, FTW_PHYS);
  return tree_sum;
}

static int
tree_rm1 (const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
  (void)sb;
  (void)ftw;
  if (type == FTW_DP)
    rmdir (path);
  else
    unlink (path);
  return 0;
}

/* Remove PATH and everything under it. */
static void
tree_rm (const char *path)
{
  nftw (path, tree_rm1, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the measurements ---------------------------------------------- */

struct trial
{
  uint64_t events; /* offered */
  uint64_t ns;     /* producer's elapsed time */
  struct rec_result r;
};

/* Per-event cost: B batches of 4096 events, 1 ms apart, after 20 batches
   of warm-up (first touch of buffer pages).  *NS gets the median in ns
   per event, *T the session's events and result. */
static int
measure_ns_per_event (unsigned batches, double *ns, struct trial *t)
{
  uint64_t *v = calloc (batches, sizeof *v);
  if (!v || rec_open (work_dir) != 0)
    {
      free (v);
      return -1;
    }
  uint64_t pair = 0;
  for (unsigned b = 0; b < 20; b++, pair += PAIRS_PER_BATCH)
    {
      warm_events (pair, PAIRS_PER_BATCH);
      sleep_ns (1000000);
    }
  for (unsigned b = 0; b < batches; b++, pair += PAIRS_PER_BATCH)
    {
      uint64_t t0 = mono_ns ();
      hot_events (pair, PAIRS_PER_BATCH);
      v[b] = mono_ns () - t0;
      sleep_ns (1000000);
    }
  rec_verify = 1;
  int rc = rec_close (&t->r);
  rec_verify = 0;
  t->events = 2 * pair;
  *ns = (double)median_u64 (v, batches) / (2.0 * PAIRS_PER_BATCH);
  free (v);
  return rc;
}

/* EVENTS back to back (flat out). */
static int
run_flat_out (uint64_t events, struct trial *t)
{
  if (rec_open (work_dir) != 0)
    return -1;
  uint64_t t0 = mono_ns ();
  hot_events (0, events / 2);
  t->ns = mono_ns () - t0;
  t->events = events / 2 * 2;
  return rec_close (&t->r);
}

/* SECONDS of events at RATE events/s (0: flat out), in bursts of 256
   events, sleeping whenever ahead of schedule (as bench/bench_writer.c). */
static int
run_paced (double rate, double seconds, struct trial *t)
{
  if (rec_open (work_dir) != 0)
    return -1;
  uint64_t start = mono_ns (), pairs = 0;
  uint64_t deadline = start + (uint64_t)(seconds * 1e9), now;
  double pairs_per_s = rate / 2;
  while ((now = mono_ns ()) < deadline)
    {
      if (rate > 0)
        {
          uint64_t due = start + (uint64_t)((double)pairs / pairs_per_s * 1e9);
          if (due > now)
            {
              sleep_ns (due - now);
              continue;
            }
        }
      hot_events (pairs, PACE_PAIRS);
      pairs += PACE_PAIRS;
    }
  t->ns = mono_ns () - start;
  t->events = 2 * pairs;
  return rec_close (&t->r);
}

/* The rate grid shared by every peer: 2^(k/8) M events/s, eight steps an
   octave, from k = GRID_LO (0.25 M/s) to GRID_HI (64 M/s). */
#define GRID_LO (-16)
#define GRID_HI 48

static double
grid_rate (int k)
{
  return 1e6 * exp2 ((double)k / 8);
}

static double
per_second (const struct trial *t)
{
  return t->ns ? (double)t->events / ((double)t->ns / 1e9) : 0;
}

static double
consumer_ms_per_mevent (const struct trial *t)
{
  uint64_t kept = t->events > t->r.lost ? t->events - t->r.lost : 0;
  /* ns per event kept == ms per million events kept. */
  return kept ? (double)t->r.consumer_cpu_ns / (double)kept : 0;
}

/* Highest zero-loss rate: flat out first; if that loses, bisect the grid
   between the lowest rate and the flat-out rate. */
static int
measure_zero_loss (double seconds, double *rate, double *cpu)
{
  struct trial t;
  if (run_paced (0, seconds, &t) != 0)
    return -1;
  double flat = per_second (&t);
  fprintf (stderr, "%s: flat out %.3g events/s, %" PRIu64 " lost\n", peer_name,
           flat, t.r.lost);
  *rate = 0;
  *cpu = 0;
  if (t.r.lost == 0)
    {
      *rate = flat;
      *cpu = consumer_ms_per_mevent (&t);
      return 0;
    }
  int lo = GRID_LO - 1, hi = GRID_LO;
  while (hi <= GRID_HI && grid_rate (hi) < flat)
    hi++;
  while (hi - lo > 1)
    {
      int mid = lo + (hi - lo) / 2;
      if (run_paced (grid_rate (mid), seconds, &t) != 0)
        return -1;
      fprintf (stderr, "%s: at %.3g events/s: %.3g/s, %" PRIu64 " lost\n",
               peer_name, grid_rate (mid), per_second (&t), t.r.lost);
      if (t.r.lost == 0)
        {
          lo = mid;
          *rate = per_second (&t);
          *cpu = consumer_ms_per_mevent (&t);
        }
      else
        hi = mid;
    }
  return 0;
}

static double
measure_clock_ns (void)
{
  uint64_t v[21];
  for (int r = 0; r < 21; r++)
    {
      uint64_t t0 = mono_ns ();
      hot_clock (100000);
      v[r] = mono_ns () - t0;
    }
  return (double)median_u64 (v, 21) / 100000.0;
}

static int
round_mode (uint64_t events, double trial_s, unsigned batches)
{
  double clock_ns = measure_clock_ns ();
  printf ("METRIC peers_%s_clock_ns %.2f ns\n", peer_name, clock_ns);
  fflush (stdout);

  double ns;
  struct trial t;
  if (measure_ns_per_event (batches, &ns, &t) != 0)
    return 1;
  fprintf (stderr, "%s: %.2f ns per event, %" PRIu64 " of %" PRIu64
           " events lost while timing, %" PRIu64 " bytes\n", peer_name, ns,
           t.r.lost, t.events, t.r.bytes);
  printf ("METRIC peers_%s_ns_per_event %.2f ns\n", peer_name, ns);
  printf ("METRIC peers_%s_timing_lost %" PRIu64 " events\n", peer_name,
          t.r.lost);
  if (t.events > t.r.lost)
    printf ("METRIC peers_%s_bytes_per_event %.2f bytes\n", peer_name,
            (double)t.r.bytes / (double)(t.events - t.r.lost));
  if (t.r.has_on_disk)
    {
      /* Every event offered is either counted lost or in the output. */
      int64_t missing = (int64_t)(t.events - t.r.lost) - (int64_t)t.r.on_disk;
      if (missing)
        fprintf (stderr, "%s: %" PRId64 " events neither on disk nor counted "
                 "lost\n", peer_name, missing);
      printf ("METRIC peers_%s_unaccounted_events %" PRId64 " events\n",
              peer_name, missing);
    }
  fflush (stdout);

  if (run_flat_out (events, &t) != 0)
    return 1;
  fprintf (stderr, "%s: %" PRIu64 " events flat out in %.3f s, %" PRIu64
           " lost, %" PRIu64 " bytes, consumer %.3f ms\n", peer_name,
           t.events, (double)t.ns / 1e9, t.r.lost, t.r.bytes,
           (double)t.r.consumer_cpu_ns / 1e6);
  printf ("METRIC peers_%s_full_speed_events_per_s %.0f events/s\n", peer_name,
          per_second (&t));
  printf ("METRIC peers_%s_full_speed_lost %" PRIu64 " events\n", peer_name,
          t.r.lost);
  printf ("METRIC peers_%s_full_speed_lost_pct %.2f %%\n", peer_name,
          100.0 * (double)t.r.lost / (double)t.events);
  if (t.r.has_consumer)
    printf ("METRIC peers_%s_consumer_ms_per_mevent %.2f ms\n", peer_name,
            consumer_ms_per_mevent (&t));
  fflush (stdout);

  double rate, cpu;
  if (measure_zero_loss (trial_s, &rate, &cpu) != 0)
    return 1;
  printf ("METRIC peers_%s_zero_loss_events_per_s %.0f events/s\n", peer_name,
          rate);
  if (t.r.has_consumer)
    printf ("METRIC peers_%s_zero_loss_consumer_ms_per_mevent %.2f ms\n",
            peer_name, cpu);
  return 0;
}

static int
callgrind_mode (uint64_t events)
{
  struct rec_result r;
  if (rec_open (work_dir) != 0)
    return 1;
  warm_events (0, 1);
  hot_events (1, events / 2);
  return rec_close (&r) != 0;
}

int
main (int argc, char **argv)
{
  uint64_t events = 10000000, callgrind = 0;
  double trial_s = 0.5;
  unsigned batches = 201;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--events") == 0 && i + 1 < argc)
        events = strtoull (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--trial-s") == 0 && i + 1 < argc)
        trial_s = strtod (argv[++i], NULL);
      else if (strcmp (argv[i], "--batches") == 0 && i + 1 < argc)
        batches = (unsigned)strtoul (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--callgrind") == 0 && i + 1 < argc)
        callgrind = strtoull (argv[++i], NULL, 10);
      else
        {
          fprintf (stderr, "usage: peer_%s [--events N] [--trial-s S] "
                   "[--batches B] | --callgrind N\n", peer_name);
          return 2;
        }
    }
  if (events < 2 || !(trial_s > 0) || batches == 0)
    {
      fprintf (stderr, "peer_%s: bad --events, --trial-s or --batches\n",
               peer_name);
      return 2;
    }
  const char *tmp = getenv ("TMPDIR");
  snprintf (work_dir, sizeof work_dir, "%s/emlat-peers-XXXXXX",
            tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (work_dir))
    {
      fprintf (stderr, "peer_%s: mkdtemp: %s\n", peer_name, strerror (errno));
      return 1;
    }
  int rc = callgrind ? callgrind_mode (callgrind)
                     : round_mode (events, trial_s, batches);
  tree_rm (work_dir);
  return rc;
}

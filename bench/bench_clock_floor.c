/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_clock_floor.c -- what the clock costs a per-call recorder with cold
 * caches: the floor of any design that timestamps each traced call, by the
 * clock it reads.
 *
 *   BUILD=build bench_clock_floor [--calls N] [--keys K] [--trash-mib M]
 *
 * A "key" is N (default 9: less's calls per PGDN) calls of a stand-in for a
 * system call (an out-of-line function), each wrapped the way a recorder
 * wraps it.  Before every key the bench writes one byte per 64-byte line of
 * an M MiB buffer (default 16), so the wrappers' code and data, the clock's
 * code and data (the vDSO and its data page) and the ring's lines are out of
 * the caches and the TLB, as in a program whose own work runs between its
 * keys.  The key is timed with the time-stamp counter (lfence-fenced) where
 * there is one, else CLOCK_MONOTONIC; no system call is inside it.
 *
 * Variants, interleaved key by key (the order rotated every key), K keys
 * each; every one that records stores one 32-byte slot per call into a
 * 2 MiB ring in a shared mapping of a /dev/shm file, as
 * bench/floor_preload.c does:
 *   none    the calls alone
 *   vdso2   two clock_gettime(CLOCK_MONOTONIC_RAW) per call (the vDSO)
 *   vdso1   one, after the call
 *   tsc2    two reads of the time-stamp counter (rdtsc), raw ticks stored
 *   tsc1    one
 *   emlat2  two emlat_now() (libemlat's profiler clock, DESIGN.md 2.1,
 *           initialised as a session does; "clock.via" below says how it
 *           reads)
 * (tsc2 and tsc1 on x86-64 only.)
 *
 * Prints "METRIC clock_floor_key_ns_<variant> V ns" (median over keys) and
 * "METRIC clock_floor_added_ns_<variant> V ns" (its median minus none's),
 * for cold keys and, with the same names ending in _warm, for keys without
 * the buffer written.  docs/PERFORMANCE.md, "The clock a per-call recorder
 * reads", uses them.
 *
 * Invariants: the ring file is unlinked as soon as it is mapped; nothing
 * is left behind.
 */
#include "common/clock.h"
#include "emlat/emlat.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined __x86_64__
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

struct slot
{
  uint64_t what, result, t0, t1;
};
#define RING_SLOTS (1u << 16)
static struct slot *ring;
static uint64_t ring_head;

static inline uint64_t
vdso_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
tsc_now (void)
{
#if HAVE_TSC
  return __rdtsc ();
#else
  return 0;
#endif
}

/* The stand-in for the traced system call: out of line, so each variant
   calls it as a wrapper calls the real function. */
__attribute__ ((noinline)) static long
traced_call (long x)
{
  __asm__ volatile ("" : "+r"(x));
  return x + 1;
}

static inline void
store_slot (long what, long result, uint64_t t0, uint64_t t1)
{
  struct slot *s = &ring[ring_head++ & (RING_SLOTS - 1)];
  s->what = (uint64_t)what;
  s->result = (uint64_t)result;
  s->t0 = t0;
  s->t1 = t1;
}

__attribute__ ((noinline)) static long
call_none (long i)
{
  return traced_call (i);
}

__attribute__ ((noinline)) static long
call_vdso2 (long i)
{
  uint64_t t0 = vdso_now ();
  long r = traced_call (i);
  store_slot (i, r, t0, vdso_now ());
  return r;
}

__attribute__ ((noinline)) static long
call_vdso1 (long i)
{
  long r = traced_call (i);
  store_slot (i, r, 0, vdso_now ());
  return r;
}

__attribute__ ((noinline)) static long
call_tsc2 (long i)
{
  uint64_t t0 = tsc_now ();
  long r = traced_call (i);
  store_slot (i, r, t0, tsc_now ());
  return r;
}

__attribute__ ((noinline)) static long
call_tsc1 (long i)
{
  long r = traced_call (i);
  store_slot (i, r, 0, tsc_now ());
  return r;
}

__attribute__ ((noinline)) static long
call_emlat2 (long i)
{
  uint64_t t0 = emlat_now ();
  long r = traced_call (i);
  store_slot (i, r, t0, emlat_now ());
  return r;
}

struct variant
{
  const char *name;
  long (*call) (long);
};
static const struct variant variants[] = {
  { "none", call_none },   { "vdso2", call_vdso2 }, { "vdso1", call_vdso1 },
#if HAVE_TSC
  { "tsc2", call_tsc2 },   { "tsc1", call_tsc1 },
#endif
  { "emlat2", call_emlat2 },
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

/* The key's timer: fenced rdtsc ticks where there is a TSC (converted with
   a rate measured at start), else CLOCK_MONOTONIC ns. */
static double ticks_per_ns = 1.0;

static inline uint64_t
timer_now (void)
{
#if HAVE_TSC
  _mm_lfence ();
  uint64_t t = __rdtsc ();
  _mm_lfence ();
  return t;
#else
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static void
timer_calibrate (void)
{
#if HAVE_TSC
  uint64_t n0 = vdso_now (), t0 = timer_now ();
  usleep (100000);
  uint64_t n1 = vdso_now (), t1 = timer_now ();
  ticks_per_ns = (double)(t1 - t0) / (double)(n1 - n0);
#endif
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int
map_ring (void)
{
  char path[64];
  snprintf (path, sizeof path, "/dev/shm/emlat-clock-floor-%ld", (long)getpid ());
  int fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      perror (path);
      return -1;
    }
  unlink (path);
  size_t bytes = RING_SLOTS * sizeof (struct slot);
  void *m = MAP_FAILED;
  if (ftruncate (fd, (off_t)bytes) == 0)
    m = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close (fd);
  if (m == MAP_FAILED)
    {
      perror ("bench_clock_floor: ring");
      return -1;
    }
  ring = m;
  return 0;
}

/* K keys of every variant, interleaved; cold when TRASH is not NULL.
   Prints the METRIC lines with SUFFIX. */
static void
measure (int calls, long keys, unsigned char *trash, size_t trash_bytes,
         const char *suffix)
{
  static double *per[NVARIANTS];
  for (int v = 0; v < NVARIANTS; v++)
    {
      per[v] = realloc (per[v], sizeof (double) * (size_t)keys);
      if (!per[v])
        {
          perror ("bench_clock_floor");
          exit (1);
        }
    }
  for (long k = 0; k < keys; k++)
    for (int j = 0; j < NVARIANTS; j++)
      {
        int v = (int)((k + j) % NVARIANTS);
        if (trash)
          for (size_t i = 0; i < trash_bytes; i += 64)
            trash[i]++;
        uint64_t a = timer_now ();
        for (int c = 0; c < calls; c++)
          variants[v].call (c);
        uint64_t b = timer_now ();
        per[v][k] = (double)(b - a) / ticks_per_ns;
      }
  double none = 0;
  for (int v = 0; v < NVARIANTS; v++)
    {
      qsort (per[v], (size_t)keys, sizeof (double), cmp_double);
      double med = per[v][keys / 2];
      if (v == 0)
        none = med;
      printf ("METRIC clock_floor_key_ns_%s%s %.0f ns\n", variants[v].name, suffix, med);
      if (v > 0)
        printf ("METRIC clock_floor_added_ns_%s%s %.0f ns\n", variants[v].name, suffix,
                med - none);
    }
}

static void
usage (void)
{
  fprintf (stderr, "usage: bench_clock_floor [--calls N] [--keys K] [--trash-mib M]\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  int calls = 9;
  long keys = 3000, trash_mib = 16;
  for (int i = 1; i < argc; i++)
    {
      if (i + 1 >= argc)
        usage ();
      if (strcmp (argv[i], "--calls") == 0)
        calls = atoi (argv[++i]);
      else if (strcmp (argv[i], "--keys") == 0)
        keys = atol (argv[++i]);
      else if (strcmp (argv[i], "--trash-mib") == 0)
        trash_mib = atol (argv[++i]);
      else
        usage ();
    }
  if (calls < 1 || keys < 2 || trash_mib < 1)
    usage ();
  if (map_ring () != 0)
    return 1;
  size_t trash_bytes = (size_t)trash_mib << 20;
  unsigned char *trash = malloc (trash_bytes);
  if (!trash)
    {
      perror ("bench_clock_floor");
      return 1;
    }
  memset (trash, 1, trash_bytes);
  timer_calibrate ();
  /* The profiler clock as a session has it (emlat_start chooses it). */
  emlat_clock_init ();
  emlat_now ();
  printf ("# bench_clock_floor: %ld keys of %d calls per variant; cold = %ld MiB "
          "touched before each key; emlat_now reads through %s\n",
          keys, calls, trash_mib, emlat_clock_source ());
  measure (calls, keys, trash, trash_bytes, "");
  measure (calls, keys * 4, NULL, 0, "_warm");
  free (trash);
  return 0;
}

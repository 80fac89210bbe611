/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * floor_preload.c -- libemlat-floor.so, the least an interposing recorder
 * can do per call: a reference for bench_tty_cold (--compare), never a
 * recorder.
 *
 * It interposes read, write and poll like libemlat-tty.so and, for every
 * call on descriptors 0, 1 and 2, reads the clock twice (before and after
 * the call) and stores one 32-byte slot -- descriptor, result, the two
 * times -- into a 2 MiB ring in a shared mapping of a file in /dev/shm
 * created at load without a name (O_TMPFILE; where that is not supported,
 * named and removed at once).  No interaction model, no writer,
 * no validation: whatever a real recorder adds is above this floor, and
 * what this floor costs in a program with cold caches is a lower bound for
 * every design that records each call.
 *
 * Active only when EMLAT_FLOOR is set (bench_tty_cold sets it to 1 with
 * EMLAT_TRACE unless the environment already names a variant); otherwise
 * every call forwards.  Variants, for what a cheaper clock could save:
 *   EMLAT_FLOOR=1     two CLOCK_MONOTONIC reads (the vDSO) per call;
 *   EMLAT_FLOOR=tsc   two reads of the time-stamp counter (rdtsc) per call,
 *                     the raw ticks stored, no conversion (x86-64 only);
 *   EMLAT_FLOOR=tsc1  one rdtsc per call, after it: the least any recorder
 *                     that timestamps each call can do.
 * Any other value, or tsc on another architecture, leaves it inactive.
 *
 * EMLAT_FLOOR_PAGES=N[,STRIDE_KIB] (a pricing aid, not a floor): each
 * recorded call also loads a word from each of N pages of a private
 * mapping, STRIDE_KIB KiB apart (default 4: neighbouring pages; 2048: one
 * page per 2 MiB region, each a page-directory entry of its own), so that
 * `bench_tty_cold --compare` prices the pages a recorder touches beyond
 * the floor's (docs/PERFORMANCE.md, "What a key touches").  N at most 64.
 *
 * EMLAT_FLOOR_LINES=N and EMLAT_FLOOR_CODE=N (pricing aids too): each
 * recorded call also loads N consecutive 64-byte lines of data (a private
 * mapping), or runs N consecutive 64-byte lines of code (a chain of
 * line-aligned blocks in this library's text, an add and padding each,
 * entered N blocks before its end; x86-64 only), so that the first call of
 * a key finds N more lines of data, or of code, than the floor's.  N at
 * most 512.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_EXPORT __attribute__ ((visibility ("default")))
#define FLOOR_SLOTS (1u << 16)

struct floor_slot
{
  uint64_t what, result, t0, t1;
};

static struct floor_slot *floor_ring;
static uint64_t floor_head;
/* EMLAT_FLOOR_PAGES: the extra pages each call loads from. */
static const volatile uint64_t *floor_pages;
static unsigned floor_npages;
static size_t floor_stride_words;
/* EMLAT_FLOOR_LINES, EMLAT_FLOOR_CODE: the extra data and code lines. */
#define FLOOR_MAX_LINES 512
static const volatile uint64_t *floor_lines;
static unsigned floor_nlines;
static uint64_t (*floor_code) (void);
/* Any of the three set. */
static int floor_extra;

/* FLOOR_MAX_LINES blocks of code, each alone on its 64-byte line, run
   from the entry point chosen to its end (floor_code). */
#if defined __x86_64__
__asm__ (".pushsection .text\n"
         ".p2align 6\n"
         "floor_code_chain:\n"
         ".rept 512\n"
         "  addq $1, %rax\n"
         "  .p2align 6\n"
         ".endr\n"
         "  ret\n"
         ".popsection\n");
extern const char floor_code_chain[] __attribute__ ((visibility ("hidden")));
_Static_assert (FLOOR_MAX_LINES == 512, "the chain's .rept count");
#endif
static ssize_t (*real_read) (int, void *, size_t);
static ssize_t (*real_write) (int, const void *, size_t);
static int (*real_poll) (struct pollfd *, nfds_t, int);

enum floor_clock
{
  FLOOR_MONOTONIC,
  FLOOR_TSC,
  FLOOR_TSC_ONCE
};
static enum floor_clock floor_clock;

static inline uint64_t
floor_now (void)
{
#if defined __x86_64__
  if (floor_clock != FLOOR_MONOTONIC)
    {
      uint32_t lo, hi;
      __asm__ volatile ("rdtsc" : "=a"(lo), "=d"(hi));
      return (uint64_t)hi << 32 | lo;
    }
#endif
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time before a call: read only when the variant reads twice. */
static inline uint64_t
floor_before (void)
{
  return floor_clock == FLOOR_TSC_ONCE ? 0 : floor_now ();
}

/* The pricing aids' extra loads and code (EMLAT_FLOOR_PAGES, _LINES,
   _CODE): out of line, so that the floor's own path has one more test and
   no more lines when they are off. */
static __attribute__ ((noinline, cold)) uint64_t
floor_touch_extra (void)
{
  uint64_t sum = 0;
  for (unsigned i = 0; i < floor_npages; i++)
    sum += floor_pages[i * floor_stride_words];
  for (unsigned i = 0; i < floor_nlines; i++)
    sum += floor_lines[i * 8];
  if (floor_code)
    sum += floor_code ();
  return sum;
}

static inline void
floor_record (uint64_t what, int64_t result, uint64_t t0)
{
  uint64_t t1 = floor_now ();
  struct floor_slot *s = &floor_ring[floor_head++ & (FLOOR_SLOTS - 1)];
  if (__builtin_expect (floor_extra, 0))
    what |= floor_touch_extra () & 0; /* the loads are volatile: kept */
  s->what = what;
  s->result = (uint64_t)result;
  s->t0 = t0;
  s->t1 = t1;
}

__attribute__ ((constructor)) static void
floor_init (void)
{
  real_read = (ssize_t (*) (int, void *, size_t))dlsym (RTLD_NEXT, "read");
  real_write = (ssize_t (*) (int, const void *, size_t))dlsym (RTLD_NEXT, "write");
  real_poll = (int (*) (struct pollfd *, nfds_t, int))dlsym (RTLD_NEXT, "poll");
  const char *on = getenv ("EMLAT_FLOOR");
  if (!on)
    return;
  if (strcmp (on, "1") == 0)
    floor_clock = FLOOR_MONOTONIC;
#if defined __x86_64__
  else if (strcmp (on, "tsc") == 0)
    floor_clock = FLOOR_TSC;
  else if (strcmp (on, "tsc1") == 0)
    floor_clock = FLOOR_TSC_ONCE;
#endif
  else
    return;
  const char *pages = getenv ("EMLAT_FLOOR_PAGES");
  if (pages)
    {
      char *end;
      unsigned long n = strtoul (pages, &end, 10);
      unsigned long stride_kib = *end == ',' ? strtoul (end + 1, NULL, 10) : 4;
      if (n > 0 && n <= 64 && stride_kib >= 4 && stride_kib <= 65536)
        {
          size_t bytes = n * stride_kib * 1024;
          void *m = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
          if (m != MAP_FAILED)
            {
              /* Written once, so that each page is backed (not the
                 shared zero page). */
              for (unsigned long i = 0; i < n; i++)
                ((uint64_t *)m)[i * stride_kib * 128] = i;
              floor_pages = m;
              floor_npages = (unsigned)n;
              floor_stride_words = stride_kib * 128;
            }
        }
    }
  const char *lines = getenv ("EMLAT_FLOOR_LINES");
  unsigned long nl = lines ? strtoul (lines, NULL, 10) : 0;
  if (nl > 0 && nl <= FLOOR_MAX_LINES)
    {
      void *m = mmap (NULL, nl * 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m != MAP_FAILED)
        {
          for (unsigned long i = 0; i < nl; i++)
            ((uint64_t *)m)[i * 8] = i;
          floor_lines = m;
          floor_nlines = (unsigned)nl;
        }
    }
#if defined __x86_64__
  const char *code = getenv ("EMLAT_FLOOR_CODE");
  unsigned long nc = code ? strtoul (code, NULL, 10) : 0;
  if (nc > 0 && nc <= FLOOR_MAX_LINES)
    floor_code = (uint64_t (*) (void))(uintptr_t)(floor_code_chain
                                                    + (FLOOR_MAX_LINES - nc) * 64);
#endif
  floor_extra = floor_npages || floor_nlines || floor_code;
  /* A file of no name (O_TMPFILE): nothing for a driver watching
     /dev/shm to see, and the least a shared ring file costs; where the
     file system cannot, a named one removed at once. */
  int fd = open ("/dev/shm", O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      char path[64];
      snprintf (path, sizeof path, "/dev/shm/emlat-floor-%ld", (long)getpid ());
      fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0)
        return;
      unlink (path);
    }
  size_t bytes = FLOOR_SLOTS * sizeof (struct floor_slot);
  if (ftruncate (fd, (off_t)bytes) == 0)
    {
      void *m = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (m != MAP_FAILED)
        floor_ring = m;
    }
  close (fd);
}

FLOOR_EXPORT ssize_t
read (int fd, void *buf, size_t n)
{
  if (!floor_ring || fd > 2)
    return real_read (fd, buf, n);
  uint64_t t0 = floor_before ();
  ssize_t r = real_read (fd, buf, n);
  floor_record ((uint64_t)fd, r, t0);
  return r;
}

FLOOR_EXPORT ssize_t
write (int fd, const void *buf, size_t n)
{
  if (!floor_ring || fd > 2)
    return real_write (fd, buf, n);
  uint64_t t0 = floor_before ();
  ssize_t r = real_write (fd, buf, n);
  floor_record ((uint64_t)fd | 1u << 8, r, t0);
  return r;
}

/* glibc declares poll's array write-only (__attr_access), so GCC takes the
   caller's fds[0].fd as possibly uninitialised here; it is the caller's
   input. */
#if defined __GNUC__ && !defined __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
FLOOR_EXPORT int
poll (struct pollfd *fds, nfds_t n, int timeout)
{
  if (!floor_ring || n != 1 || !fds)
    return real_poll (fds, n, timeout);
  int fd = fds[0].fd;
  if (fd < 0 || fd > 2)
    return real_poll (fds, n, timeout);
  uint64_t t0 = floor_before ();
  int r = real_poll (fds, n, timeout);
  floor_record ((uint64_t)fd | 2u << 8, r, t0);
  return r;
}

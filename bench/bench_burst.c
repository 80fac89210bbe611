/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_burst.c -- the burst test of docs/DESIGN.md section 8.2: the ring,
 * chunk and rotation sizes that lose nothing in the bursts a recorder
 * meets, measured rather than assumed.
 *
 *   bench_burst                      each scenario once at the library's
 *                                    defaults (what `make bench` runs)
 *   bench_burst --sweep [OPTIONS]    the burst table: every scenario at
 *                                    every candidate size, several runs
 *   bench_burst --launch SLOTS THREADS CHUNK ROTATE -- PROGRAM [ARGS...]
 *                                    (internal: see "The launcher")
 *
 * Scenarios (bench/burst/ holds the Emacs files; docs/PERFORMANCE.md,
 * "Burst test", has the results):
 *   held     the profiled Emacs, a key held at 50 Hz for 10 s, each
 *            redisplay slowed by 30 ms (held.el, held.script);
 *   gc       the profiled Emacs, a command calling (garbage-collect) in a
 *            loop for 5 s while keys arrive at 50 Hz (gc.el, gc.script);
 *   flood    the profiled Emacs, `head -c 20M /dev/urandom | base64' whose
 *            filter inserts every 4 KiB chunk (flood.el, flood.script);
 *   threads  16 application threads, all starting at once, recording
 *            requests (an interaction with 5 spans, 15 ring records) at
 *            62,500 records/s each (1 M/s in all), waiting between
 *            requests as server threads do, 4 bursts of 0.5 s with 0.5 s
 *            idle between;
 *   flat     the same 16 threads recording as fast as they can: it loses,
 *            and is there to check that the loss is counted exactly.
 *
 * The Emacs scenarios.  The real profiled Emacs (`make emacs`, found as
 * --emacs, $EMACS_BIN or in the default cache; used read-only) runs under
 * `emlat replay --script` in a pseudo-terminal.  Emacs reads no recorder
 * option but the profile's path, so the launcher (below) sets ring_slots,
 * max_threads, chunk_bytes and rotate_bytes in emlat_start's options from
 * outside.  Two ways to use it:
 *   - capture (default): Emacs records into a ring of 2^24 slots that never
 *     reaches its high-water mark (a quarter), so its writer never drains
 *     before the end and the ring file holds every ring record Emacs made,
 *     with its time.  The bench
 *     reads them from the shared mapping (the ring file is in /dev/shm)
 *     and then replays the trace through the public API, in a child
 *     process, at each candidate size: the same calls (span begin/end with
 *     or without CPU readings, interaction fields, input batches, with ids
 *     mapped), paced by the original timestamps, spinning while Emacs was
 *     busy and sleeping while it waited for input (inside an event-poll
 *     span), so the replay occupies a core as Emacs did.  Every candidate
 *     size sees the same input, and the replayed rates are checked against
 *     the captured ones (the calibration table).  --keep DIR keeps the
 *     traces (SCENARIO-K.trace) and profiles; --traces DIR replays kept
 *     traces instead of capturing, to repeat a run exactly (the Emacs
 *     columns of the calibration table are then 0);
 *   - --live: Emacs itself records at each candidate size.  This needs an
 *     Emacs built with the recorder under test (the one in the cache may
 *     predate it; the SESSION says which library wrote the file).
 *
 * The launcher.  `bench_burst --launch SLOTS THREADS CHUNK ROTATE -- PROG`
 * runs PROG as its traced child (ptrace), stops it at the entry of
 * emlat_start (an int3 at the symbol's address from PROG's ELF symbol
 * table), writes the four sizes (0 = leave as is) into the options the
 * first argument points to (struct emlat_options of emlat.h: the same
 * layout in PROG, which links the same library), restores the instruction
 * and detaches.  From then on PROG runs untraced; the launcher waits for
 * it and exits as it did (the replay driver sees the launcher as its
 * command; its rusage includes PROG's).  The SESSION chunk's
 * profiler.ring_slots proves the sizes took.
 *
 * What is measured per run:
 *   lost      records lost: the sum of the LOSS records of the profile
 *             (every rotated file), checked against STATS
 *             stats.records_dropped and, for the synthetic and replayed
 *             runs, against the records the producers made (written +
 *             dropped = made) and emlat_status's records_dropped;
 *   peak      ring slots per second into the busiest ring, over 10 ms and
 *             100 ms windows, from a sampler thread in this process that
 *             reads every ring's head, tail and drop counters from the ring
 *             file's shared mapping every millisecond (read-only, no lock);
 *   fill      the fullest any ring was seen, as a share of its slots;
 *   react     the writer's slowest reaction to a ring past its high-water
 *             mark (a quarter, emlat_ring_mark): from the first sample that
 *             shows it past the mark to the first that shows its tail moved
 *             (1 ms resolution; the doorbell rang at the crossing), which
 *             with the peak rate says how much of the headroom beyond the
 *             mark a burst needs;
 *   wake-ups  stats.writer_wakeups, writer CPU (stats.writer_cpu_ns), file
 *             bytes and the producer process's peak RSS (ru_maxrss; a
 *             replaying child's includes the trace it replays).
 *
 * Options: --runs R (per scenario and size; default 1, --sweep 3),
 * --captures C (Emacs traces per scenario; default 1, --sweep 2),
 * --scenarios LIST, --slots LIST, --chunks LIST, --rotate LIST (sizes
 * take K/M/G suffixes; "off" is 0), --hogs N (N busy-loop processes during
 * every run: a loaded machine), --live, --emacs PATH, --data DIR (default
 * bench/burst), --keep DIR (keep profiles and traces).  Output: progress
 * on stderr; the tables and METRIC lines on stdout.
 *
 * Invariants: the producer side uses the public API only (the sampler and
 * the trace reader read the ring file, an internal layout checked by its
 * layout word); every run is a fresh process (Emacs, or a forked child)
 * and a fresh session; temporary files go to a new directory under $TMPDIR
 * and are removed unless --keep.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "record/ring.h"
#include "record/ringfile.h"
#include "record/ringrec.h"

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static const char *prog_dir = "."; /* directory of this program */

static void
fatal (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("bench_burst: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  va_end (ap);
  exit (1);
}

static void *
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size ? size : 1);
  if (!p)
    fatal ("out of memory");
  return p;
}

static void *
xrealloc (void *p, size_t n)
{
  p = realloc (p, n ? n : 1);
  if (!p)
    fatal ("out of memory");
  return p;
}

static char *
xstrf (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *s = 0;
  if (vasprintf (&s, fmt, ap) < 0)
    fatal ("out of memory");
  va_end (ap);
  return s;
}

static void
sleep_ns (uint64_t ns)
{
  struct timespec ts
      = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* "64K", "1M", "2G", "off" (0), or a plain number. */
static uint64_t
parse_size (const char *s)
{
  if (strcmp (s, "off") == 0)
    return 0;
  char *end;
  errno = 0;
  unsigned long long v = strtoull (s, &end, 10);
  if (errno || end == s)
    fatal ("bad size '%s'", s);
  switch (*end)
    {
    case 'k':
    case 'K':
      v <<= 10;
      end++;
      break;
    case 'm':
    case 'M':
      v <<= 20;
      end++;
      break;
    case 'g':
    case 'G':
      v <<= 30;
      end++;
      break;
    default:
      break;
    }
  if (*end)
    fatal ("bad size '%s'", s);
  return v;
}

static void
format_size (uint64_t v, char *out, size_t n)
{
  if (v == 0)
    snprintf (out, n, "off");
  else if (v % (1u << 30) == 0)
    snprintf (out, n, "%lluG", (unsigned long long)(v >> 30));
  else if (v % (1u << 20) == 0)
    snprintf (out, n, "%lluM", (unsigned long long)(v >> 20));
  else if (v % (1u << 10) == 0)
    snprintf (out, n, "%lluK", (unsigned long long)(v >> 10));
  else
    snprintf (out, n, "%llu", (unsigned long long)v);
}

/* A comma-separated list of sizes. */
struct sizes
{
  uint64_t v[32];
  int n;
};

static void
parse_sizes (const char *s, struct sizes *out)
{
  out->n = 0;
  char *copy = strdup (s), *save = 0;
  for (char *tok = strtok_r (copy, ",", &save); tok; tok = strtok_r (0, ",", &save))
    {
      if (out->n == 32)
        fatal ("too many sizes in '%s'", s);
      out->v[out->n++] = parse_size (tok);
    }
  free (copy);
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void
remove_tree (const char *dir)
{
  DIR *d = opendir (dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir (d)))
    {
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      char *p = xstrf ("%s/%s", dir, e->d_name);
      unlink (p);
      free (p);
    }
  closedir (d);
  rmdir (dir);
}

/* ------------------------------------------------------------------ */
/* A map of 64-bit ids (the trace replay's old id -> new id)           */

struct idmap
{
  uint64_t *k, *v;
  size_t cap, n;
};

static void
idmap_init (struct idmap *m, size_t expect)
{
  m->cap = 1024;
  while (m->cap < 2 * expect)
    m->cap <<= 1;
  m->k = xcalloc (m->cap, sizeof *m->k);
  m->v = xcalloc (m->cap, sizeof *m->v);
  m->n = 0;
}

static size_t
idmap_slot (const struct idmap *m, uint64_t k)
{
  size_t i = (size_t)((k * 0x9e3779b97f4a7c15u) >> 20) & (m->cap - 1);
  while (m->k[i] && m->k[i] != k)
    i = (i + 1) & (m->cap - 1);
  return i;
}

static void
idmap_put (struct idmap *m, uint64_t k, uint64_t v)
{
  if (k == 0)
    return;
  if (2 * (m->n + 1) > m->cap)
    {
      struct idmap big;
      big.cap = m->cap * 2;
      big.k = xcalloc (big.cap, sizeof *big.k);
      big.v = xcalloc (big.cap, sizeof *big.v);
      big.n = 0;
      for (size_t i = 0; i < m->cap; i++)
        if (m->k[i])
          {
            size_t j = idmap_slot (&big, m->k[i]);
            big.k[j] = m->k[i];
            big.v[j] = m->v[i];
            big.n++;
          }
      free (m->k);
      free (m->v);
      *m = big;
    }
  size_t i = idmap_slot (m, k);
  if (!m->k[i])
    m->n++;
  m->k[i] = k;
  m->v[i] = v;
}

/* The new id of K, or 0 (none, or unknown). */
static uint64_t
idmap_get (const struct idmap *m, uint64_t k)
{
  if (k == 0)
    return 0;
  size_t i = idmap_slot (m, k);
  return m->k[i] ? m->v[i] : 0;
}

static void
idmap_free (struct idmap *m)
{
  free (m->k);
  free (m->v);
}

/* ------------------------------------------------------------------ */
/* The launcher                                                        */

/* The address of function NAME in the ELF file PATH (its st_value), from
   .symtab or else .dynsym; *IS_PIE says whether it is relative to the load
   base.  0 when not found. */
static uint64_t
elf_symbol (const char *path, const char *name, int *is_pie)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  struct stat st;
  if (fstat (fd, &st) != 0 || st.st_size < (off_t)sizeof (Elf64_Ehdr))
    {
      close (fd);
      return 0;
    }
  const uint8_t *m = mmap (0, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  if (m == MAP_FAILED)
    return 0;
  size_t len = (size_t)st.st_size;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
  uint64_t found = 0;
  if (memcmp (eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64
      || eh->e_shoff == 0 || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof (Elf64_Shdr) > len)
    goto out;
  *is_pie = eh->e_type == ET_DYN;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
  for (int pass = 0; pass < 2 && !found; pass++)
    for (int i = 0; i < eh->e_shnum && !found; i++)
      {
        if (sh[i].sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) || sh[i].sh_link >= eh->e_shnum)
          continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > len || strs->sh_offset + strs->sh_size > len)
          continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(m + sh[i].sh_offset);
        size_t nsym = sh[i].sh_size / sizeof *sym;
        for (size_t k = 0; k < nsym; k++)
          if (ELF64_ST_TYPE (sym[k].st_info) == STT_FUNC && sym[k].st_value
              && sym[k].st_name < strs->sh_size
              && strcmp ((const char *)m + strs->sh_offset + sym[k].st_name, name) == 0)
            {
              found = sym[k].st_value;
              break;
            }
      }
out:
  munmap ((void *)m, len);
  return found;
}

/* The load base of the executable of process PID (the start of its first
   mapping of file offset 0 of EXE). */
static uint64_t
load_base (pid_t pid, const char *exe)
{
  char *maps = xstrf ("/proc/%d/maps", (int)pid);
  FILE *f = fopen (maps, "r");
  free (maps);
  if (!f)
    return 0;
  char line[4096];
  uint64_t base = 0;
  while (fgets (line, sizeof line, f))
    {
      unsigned long long lo, hi, off;
      char perms[8];
      int pos = 0;
      if (sscanf (line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perms, &off, &pos) < 4)
        continue;
      char *p = line + pos;
      while (*p == ' ')
        p++;
      p[strcspn (p, "\n")] = 0;
      if (off == 0 && strcmp (p, exe) == 0)
        {
          base = lo;
          break;
        }
    }
  fclose (f);
  return base;
}

/* Replace the 4 or 8 bytes at ADDR of the stopped tracee PID. */
static int
poke_bytes (pid_t pid, uint64_t addr, const void *src, size_t n)
{
  uint64_t a = addr & ~(uint64_t)7;
  size_t off = (size_t)(addr - a);
  while (n > 0)
    {
      errno = 0;
      long w = ptrace (PTRACE_PEEKDATA, pid, (void *)a, 0);
      if (errno)
        return -1;
      size_t k = 8 - off < n ? 8 - off : n;
      memcpy ((char *)&w + off, src, k);
      if (ptrace (PTRACE_POKEDATA, pid, (void *)a, (void *)w) != 0)
        return -1;
      src = (const char *)src + k;
      n -= k;
      a += 8;
      off = 0;
    }
  return 0;
}

static int
launch_main (int argc, char **argv)
{
  /* argv: --launch SLOTS THREADS CHUNK ROTATE -- PROG ARGS... */
  if (argc < 8 || strcmp (argv[6], "--") != 0)
    fatal ("usage: --launch SLOTS THREADS CHUNK ROTATE -- PROGRAM [ARGS...]");
  uint32_t slots = (uint32_t)parse_size (argv[2]);
  uint32_t threads = (uint32_t)parse_size (argv[3]);
  uint32_t chunk = (uint32_t)parse_size (argv[4]);
  uint64_t rotate = parse_size (argv[5]);
  char exe[PATH_MAX];
  if (!realpath (argv[7], exe))
    fatal ("%s: %s", argv[7], strerror (errno));
  int pie = 0;
  uint64_t sym = elf_symbol (exe, "emlat_start", &pie);
  if (!sym)
    fatal ("%s: no symbol emlat_start", exe);

  pid_t pid = fork ();
  if (pid < 0)
    fatal ("fork: %s", strerror (errno));
  if (pid == 0)
    {
      ptrace (PTRACE_TRACEME, 0, 0, 0);
      execv (exe, argv + 7);
      _exit (127);
    }
  /* The program may outlive a hangup the driver sends; so must we. */
  signal (SIGHUP, SIG_IGN);
  signal (SIGINT, SIG_IGN);
  signal (SIGTERM, SIG_IGN);
  signal (SIGQUIT, SIG_IGN);
  int status;
  if (waitpid (pid, &status, 0) != pid || !WIFSTOPPED (status))
    fatal ("%s did not start", exe);
  ptrace (PTRACE_SETOPTIONS, pid, 0, (void *)(long)PTRACE_O_EXITKILL);
  uint64_t addr = sym + (pie ? load_base (pid, exe) : 0);
  errno = 0;
  long orig = ptrace (PTRACE_PEEKTEXT, pid, (void *)addr, 0);
  if (errno)
    fatal ("cannot read %s at emlat_start: %s", exe, strerror (errno));
  long trap = (long)(((uint64_t)orig & ~(uint64_t)0xff) | 0xcc);
  if (ptrace (PTRACE_POKETEXT, pid, (void *)addr, (void *)trap) != 0)
    fatal ("cannot set the breakpoint: %s", strerror (errno));
  int sig = 0, hit = 0;
  for (;;)
    {
      if (ptrace (PTRACE_CONT, pid, 0, (void *)(long)sig) != 0)
        break;
      if (waitpid (pid, &status, 0) != pid)
        break;
      if (WIFEXITED (status) || WIFSIGNALED (status))
        break;
      sig = WSTOPSIG (status);
      if (sig == SIGTRAP)
        {
          struct user_regs_struct regs;
          ptrace (PTRACE_GETREGS, pid, 0, &regs);
          if (regs.rip == addr + 1)
            {
              uint64_t opt = regs.rdi;
              int rc = 0;
              if (slots)
                rc |= poke_bytes (pid, opt + offsetof (struct emlat_options, ring_slots), &slots,
                                  4);
              if (threads)
                rc |= poke_bytes (pid, opt + offsetof (struct emlat_options, max_threads), &threads,
                                  4);
              if (chunk)
                rc |= poke_bytes (pid, opt + offsetof (struct emlat_options, chunk_bytes), &chunk,
                                  4);
              if (rotate)
                rc |= poke_bytes (pid, opt + offsetof (struct emlat_options, rotate_bytes), &rotate,
                                  8);
              if (rc)
                fprintf (stderr, "bench_burst: could not set the options\n");
              ptrace (PTRACE_POKETEXT, pid, (void *)addr, (void *)orig);
              regs.rip = addr;
              ptrace (PTRACE_SETREGS, pid, 0, &regs);
              ptrace (PTRACE_DETACH, pid, 0, 0);
              hit = 1;
              break;
            }
          sig = 0;
        }
    }
  (void)hit;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      fatal ("waitpid: %s", strerror (errno));
  if (WIFSIGNALED (status))
    {
      signal (WTERMSIG (status), SIG_DFL);
      raise (WTERMSIG (status));
    }
  return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}

/* ------------------------------------------------------------------ */
/* The ring file, seen from outside                                    */

struct ringview
{
  const uint8_t *map;
  size_t len;
  const struct emlat_rf_header *h;
};

static const struct emlat_ring *
rv_ring (const struct ringview *v, uint32_t i)
{
  return (const struct emlat_ring *)(v->map + v->h->rings_off + (uint64_t)i * v->h->ring_stride);
}

static const struct emlat_slot *
rv_slots (const struct ringview *v, uint32_t i)
{
  return (const struct emlat_slot *)(v->map + v->h->slots_off
                                     + (uint64_t)i * v->h->nslots * EMLAT_SLOT_BYTES);
}

/* Map the ring file of the session writing PROFILE, waiting for both to
   appear (until *STOP or 60 s).  0, or -1. */
static int
rv_open (struct ringview *v, const char *profile, atomic_int *stop)
{
  memset (v, 0, sizeof *v);
  uint64_t t0 = emlat_now ();
  while (!atomic_load (stop) && emlat_now () - t0 < 60000000000u)
    {
      uint8_t hdr[64];
      int fd = open (profile, O_RDONLY | O_CLOEXEC);
      ssize_t n = fd >= 0 ? read (fd, hdr, sizeof hdr) : -1;
      if (fd >= 0)
        close (fd);
      struct emlat_file_header fh;
      if (n == (ssize_t)sizeof hdr
          && emlat_parse_file_header (hdr, sizeof hdr, &fh) == EMLAT_STOP_CLEAN)
        for (int where = EMLAT_RF_IN_SHM; where <= EMLAT_RF_BESIDE; where++)
          {
            char path[4096];
            if (emlat_rf_path (path, sizeof path, where, profile, fh.uuid) != 0)
              continue;
            int rfd = open (path, O_RDONLY | O_CLOEXEC);
            if (rfd < 0)
              continue;
            struct stat st;
            if (fstat (rfd, &st) == 0 && st.st_size >= (off_t)EMLAT_RF_PAGE)
              {
                void *m = mmap (0, (size_t)st.st_size, PROT_READ, MAP_SHARED, rfd, 0);
                close (rfd);
                if (m == MAP_FAILED)
                  return -1;
                const struct emlat_rf_header *h = m;
                if (memcmp (h->magic, EMLAT_RF_MAGIC, 8) != 0 || h->layout != emlat_rf_layout ())
                  {
                    fprintf (stderr,
                             "bench_burst: %s: not a ring file of this build "
                             "(layout %08x, ours %08x)\n",
                             path, h->layout, emlat_rf_layout ());
                    munmap (m, (size_t)st.st_size);
                    return -1;
                  }
                v->map = m;
                v->len = (size_t)st.st_size;
                v->h = h;
                return 0;
              }
            close (rfd);
          }
      sleep_ns (1000000);
    }
  return -1;
}

static void
rv_close (struct ringview *v)
{
  if (v->map)
    munmap ((void *)v->map, v->len);
  memset (v, 0, sizeof *v);
}

/* ------------------------------------------------------------------ */
/* The sampler                                                         */

#define SAMPLE_RINGS 32

struct sample
{
  uint64_t t;
  uint64_t head[SAMPLE_RINGS]; /* slots published */
  uint64_t tail[SAMPLE_RINGS];
  uint64_t dropped[SAMPLE_RINGS]; /* slots dropped (drop_bytes / 32) */
};

struct sampler
{
  const char *profile;
  /* Set by the bench's main thread when the run is over; sequentially
     consistent loads and stores (a flag; the samples are read after
     pthread_join). */
  atomic_int stop;
  int found;
  struct ringview view;
  struct sample *s;
  size_t n, cap;
  uint64_t nslots;
  uint32_t nrings;
  /* What the last sample saw of each ring. */
  int used[SAMPLE_RINGS];
};

static void *
sampler_main (void *arg)
{
  struct sampler *sp = arg;
  prctl (PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  if (rv_open (&sp->view, sp->profile, &sp->stop) != 0)
    return 0;
  sp->found = 1;
  sp->nslots = sp->view.h->nslots;
  sp->nrings = sp->view.h->nrings < SAMPLE_RINGS ? sp->view.h->nrings : SAMPLE_RINGS;
  for (;;)
    {
      int last = atomic_load (&sp->stop);
      if (sp->n == sp->cap)
        {
          sp->cap = sp->cap ? 2 * sp->cap : 4096;
          sp->s = xrealloc (sp->s, sp->cap * sizeof *sp->s);
        }
      struct sample *x = &sp->s[sp->n++];
      x->t = emlat_now ();
      for (uint32_t i = 0; i < sp->nrings; i++)
        {
          /* The ring's fields as the recorder publishes them (ring.h);
             acquire/relaxed loads on a shared read-only mapping. */
          const struct emlat_ring *r = rv_ring (&sp->view, i);
          int st = atomic_load_explicit ((_Atomic int *)&r->state, memory_order_acquire);
          x->head[i] = atomic_load_explicit ((_Atomic uint64_t *)&r->head, memory_order_acquire);
          x->tail[i] = atomic_load_explicit ((_Atomic uint64_t *)&r->tail, memory_order_relaxed);
          x->dropped[i]
              = atomic_load_explicit ((_Atomic uint64_t *)&r->drop_bytes, memory_order_relaxed)
                / EMLAT_SLOT_BYTES;
          if (st != EMLAT_RING_FREE || x->head[i])
            sp->used[i] = 1;
        }
      if (last)
        break;
      sleep_ns (1000000);
    }
  return 0;
}

/* What the samples say. */
struct ratestat
{
  double peak10, peak100; /* slots/s into the busiest ring, over 10/100 ms */
  double mean;            /* slots/s into all rings over the run */
  uint64_t max_fill;      /* the fullest any ring was seen (slots) */
  uint64_t react_ns;      /* the writer's slowest reaction: from the first
                              sample of a ring past its mark to the first that
                              shows its tail moved */
  uint64_t slots;         /* slots attempted in all rings */
  int rings;              /* rings that recorded */
};

static double
peak_over (const struct sampler *sp, uint32_t ring, uint64_t window)
{
  double best = 0;
  size_t j = 0;
  for (size_t i = 1; i < sp->n; i++)
    {
      const struct sample *a = &sp->s[i];
      /* j: the first sample less than WINDOW before A; j - 1 the last one
         at least WINDOW before it. */
      while (j < i && a->t - sp->s[j].t >= window)
        j++;
      if (j == 0)
        continue;
      const struct sample *b = &sp->s[j - 1];
      uint64_t va = a->head[ring] + a->dropped[ring], vb = b->head[ring] + b->dropped[ring];
      if (va < vb) /* a reclaimed ring restarts at 0 */
        continue;
      double r = (double)(va - vb) * 1e9 / (double)(a->t - b->t);
      if (r > best)
        best = r;
    }
  return best;
}

static void
sampler_stats (const struct sampler *sp, struct ratestat *rs)
{
  memset (rs, 0, sizeof *rs);
  if (!sp->found || sp->n < 2)
    return;
  for (uint32_t i = 0; i < sp->nrings; i++)
    {
      if (!sp->used[i])
        continue;
      rs->rings++;
      double p10 = peak_over (sp, i, 10000000u), p100 = peak_over (sp, i, 100000000u);
      if (p10 > rs->peak10)
        rs->peak10 = p10;
      if (p100 > rs->peak100)
        rs->peak100 = p100;
      uint64_t total = 0, prev = 0, wait_t = 0, wait_tail = 0;
      int waiting = 0;
      for (size_t k = 0; k < sp->n; k++)
        {
          const struct sample *x = &sp->s[k];
          if (waiting && x->tail[i] != wait_tail)
            {
              if (x->t - wait_t > rs->react_ns)
                rs->react_ns = x->t - wait_t;
              waiting = 0;
            }
          if (!waiting && x->head[i] >= x->tail[i] && x->head[i] - x->tail[i] > emlat_ring_mark (sp->nslots))
            {
              waiting = 1;
              wait_t = x->t;
              wait_tail = x->tail[i];
            }
          if (x->head[i] - x->tail[i] > rs->max_fill && x->head[i] >= x->tail[i])
            rs->max_fill = x->head[i] - x->tail[i];
          uint64_t v = x->head[i] + x->dropped[i];
          if (v >= prev)
            total += v - prev;
          else
            total += v; /* the ring was reclaimed: a new life from 0 */
          prev = v;
        }
      rs->slots += total;
    }
  uint64_t dt = sp->s[sp->n - 1].t - sp->s[0].t;
  rs->mean = dt ? (double)rs->slots * 1e9 / (double)dt : 0;
}

static void
sampler_start (struct sampler *sp, pthread_t *th, const char *profile)
{
  memset (sp, 0, sizeof *sp);
  sp->profile = profile;
  if (pthread_create (th, 0, sampler_main, sp) != 0)
    fatal ("pthread_create: %s", strerror (errno));
}

static void
sampler_finish (struct sampler *sp, pthread_t th)
{
  atomic_store (&sp->stop, 1);
  pthread_join (th, 0);
}

static void
sampler_free (struct sampler *sp)
{
  rv_close (&sp->view);
  free (sp->s);
  sp->s = 0;
}

/* ------------------------------------------------------------------ */
/* Traces: every ring record a program made, with its times            */

struct trace_ring
{
  uint64_t thread;
  uint64_t n; /* slots */
  struct emlat_slot *slots;
};

struct trace
{
  int nrings;
  struct trace_ring ring[4];
  uint64_t t_first, t_last; /* profiler clock: first and last record time */
  uint64_t records;
};

/* The most slots a record of the head word H may take (ringrec.h). */
static unsigned
record_max_slots (uint64_t h)
{
  switch (EMLAT_RR_TYPE (h))
    {
    case EMLAT_RR_IX_FIELDS:
      return EMLAT_RR_MAX_SLOTS;
    case EMLAT_RR_SPAN_COUNTS:
      return EMLAT_RR_SPAN_COUNTS_MAX_SLOTS;
    default:
      return 2;
    }
}

/* The words of the IX_FIELDS record at A (NS slots, contiguous in a
   trace) and where its time fields begin: after the two words of
   qualities when its Q flag is set. */
static const uint64_t *
ix_fields_words (const struct emlat_slot *a, unsigned *first_time)
{
  *first_time = EMLAT_RR_B (a->w[0]) ? 2 : 0;
  return a[1].w;
}

/* The time a ring record was made at, or 0 for records that carry none
   (or whose time is a field value rather than "now").  A commit that ends
   its interaction (IX_FIELDS with a status) was made at its end time. */
static uint64_t
record_time (const struct emlat_slot *a, const struct emlat_slot *b)
{
  switch (EMLAT_RR_TYPE (a->w[0]))
    {
    case EMLAT_RR_SPAN_BEGIN:
      return a->w[3];
    case EMLAT_RR_SPAN_END:
    case EMLAT_RR_IX_END:
      return a->w[2];
    case EMLAT_RR_IX_BEGIN:
      return b->w[0];
    case EMLAT_RR_IX_FIELDS:
      {
        uint32_t tm = (uint32_t)(a->w[2] & 0xffffffffu);
        if (!EMLAT_RR_A (a->w[0]) || !(tm & (1u << EMLAT_T_INTERACTION_END)))
          return 0;
        unsigned k;
        const uint64_t *w = ix_fields_words (a, &k);
        k += (unsigned)__builtin_popcount (tm & ((1u << EMLAT_T_INTERACTION_END) - 1));
        return w[k];
      }
    default:
      return 0;
    }
}

static void
trace_free (struct trace *tr)
{
  for (int i = 0; i < tr->nrings; i++)
    free (tr->ring[i].slots);
  memset (tr, 0, sizeof *tr);
}

/* Copy every record of the rings in V (which must not have wrapped). */
static int
trace_take (const struct ringview *v, struct trace *tr)
{
  memset (tr, 0, sizeof *tr);
  tr->t_first = UINT64_MAX;
  for (uint32_t i = 0; i < v->h->nrings && tr->nrings < 4; i++)
    {
      const struct emlat_ring *r = rv_ring (v, i);
      /* Acquire: pairs with the producer's release of head (ring.h); the
         program has exited here, so this is the final head. */
      uint64_t head = atomic_load_explicit ((_Atomic uint64_t *)&r->head, memory_order_acquire);
      if (head == 0)
        continue;
      if (head > v->h->nslots)
        {
          fprintf (stderr, "bench_burst: ring %u wrapped (%llu slots); no trace\n", i,
                   (unsigned long long)head);
          return -1;
        }
      struct trace_ring *tr_r = &tr->ring[tr->nrings++];
      tr_r->thread = r->thread_id;
      tr_r->n = head;
      tr_r->slots = xcalloc (head, sizeof *tr_r->slots);
      memcpy (tr_r->slots, rv_slots (v, i), head * sizeof *tr_r->slots);
      for (uint64_t k = 0; k < head;)
        {
          const struct emlat_slot *a = &tr_r->slots[k];
          unsigned ns = EMLAT_RR_NSLOTS (a->w[0]);
          if (ns < 1 || ns > record_max_slots (a->w[0]) || k + ns > head)
            {
              /* A record this bench does not know (the recorder has a new
                 kind) or a torn ring: a trace cut here would replay a
                 fraction of the program's records and measure nothing. */
              fprintf (stderr,
                       "bench_burst: ring %u: malformed ring record at slot %llu (type %u, "
                       "%u slots); no trace\n",
                       i, (unsigned long long)k, EMLAT_RR_TYPE (a->w[0]), ns);
              trace_free (tr);
              return -1;
            }
          uint64_t t = record_time (a, ns == 2 ? a + 1 : a);
          if (t && t < tr->t_first)
            tr->t_first = t;
          if (t > tr->t_last)
            tr->t_last = t;
          tr->records++;
          k += ns;
        }
    }
  return tr->nrings ? 0 : -1;
}


/* Peak slots/s of the trace over WINDOW ns (its own timestamps), and the
   mean over its whole length. */
static double
trace_peak (const struct trace *tr, uint64_t window)
{
  double best = 0;
  for (int i = 0; i < tr->nrings; i++)
    {
      const struct trace_ring *r = &tr->ring[i];
      /* Times and cumulative slots of timed records. */
      uint64_t n = 0, *ts = xcalloc (r->n, sizeof *ts), *cum = xcalloc (r->n, sizeof *cum);
      for (uint64_t k = 0; k < r->n;)
        {
          const struct emlat_slot *a = &r->slots[k];
          unsigned ns = EMLAT_RR_NSLOTS (a->w[0]);
          uint64_t t = record_time (a, ns == 2 ? a + 1 : a);
          k += ns;
          if (t && (n == 0 || t >= ts[n - 1]))
            {
              ts[n] = t;
              cum[n] = k;
              n++;
            }
        }
      uint64_t j = 0;
      for (uint64_t k = 0; k < n; k++)
        {
          while (j < k && ts[k] - ts[j + 1] >= window)
            j++;
          if (ts[k] - ts[j] >= window)
            {
              double rate = (double)(cum[k] - cum[j]) * 1e9 / (double)(ts[k] - ts[j]);
              if (rate > best)
                best = rate;
            }
        }
      free (ts);
      free (cum);
    }
  return best;
}

static int
trace_save (const struct trace *tr, const char *path)
{
  FILE *f = fopen (path, "wb");
  if (!f)
    return -1;
  fwrite ("EMLBTRC1", 1, 8, f);
  uint64_t hdr[4] = { (uint64_t)tr->nrings, tr->t_first, tr->t_last, tr->records };
  fwrite (hdr, sizeof hdr, 1, f);
  for (int i = 0; i < tr->nrings; i++)
    {
      uint64_t rh[2] = { tr->ring[i].thread, tr->ring[i].n };
      fwrite (rh, sizeof rh, 1, f);
      fwrite (tr->ring[i].slots, sizeof (struct emlat_slot), tr->ring[i].n, f);
    }
  return fclose (f);
}

/* Read a trace written by trace_save (--keep) back; -1 with a message
   when PATH is not one. */
static int
trace_load (const char *path, struct trace *tr)
{
  memset (tr, 0, sizeof *tr);
  FILE *f = fopen (path, "rb");
  if (!f)
    {
      fprintf (stderr, "bench_burst: %s: %s\n", path, strerror (errno));
      return -1;
    }
  char magic[8];
  uint64_t hdr[4];
  int ok = fread (magic, 1, 8, f) == 8 && memcmp (magic, "EMLBTRC1", 8) == 0
           && fread (hdr, sizeof hdr, 1, f) == 1 && hdr[0] >= 1 && hdr[0] <= 4;
  for (uint64_t i = 0; ok && i < hdr[0]; i++)
    {
      uint64_t rh[2];
      ok = fread (rh, sizeof rh, 1, f) == 1 && rh[1] <= ((uint64_t)1 << 24);
      if (!ok)
        break;
      struct trace_ring *r = &tr->ring[tr->nrings++];
      r->thread = rh[0];
      r->n = rh[1];
      r->slots = xcalloc (rh[1] ? rh[1] : 1, sizeof *r->slots);
      ok = fread (r->slots, sizeof *r->slots, rh[1], f) == rh[1];
    }
  fclose (f);
  if (!ok)
    {
      fprintf (stderr, "bench_burst: %s: not a trace of --keep\n", path);
      trace_free (tr);
      return -1;
    }
  tr->t_first = hdr[1];
  tr->t_last = hdr[2];
  tr->records = hdr[3];
  return 0;
}

/* ------------------------------------------------------------------ */
/* Replaying a trace through the public API                            */

struct replay_ring
{
  const struct trace *tr;
  const struct trace_ring *r;
  uint64_t t0; /* our clock at the trace's t_first */
  pthread_barrier_t *go;
  uint64_t attempted; /* records issued */
  uint64_t unmapped;  /* records naming an id the trace never began */
};

/* Move a trace time T onto our clock. */
static uint64_t
shift_t (const struct replay_ring *c, uint64_t t)
{
  int64_t v = (int64_t)c->t0 + ((int64_t)t - (int64_t)c->tr->t_first);
  return v > 0 ? (uint64_t)v : 1;
}

/* Wait until trace time T is due on our clock: sleep while the program
   slept (IDLE), else spin as it computed.  A replay that fell more than
   1 ms behind (descheduled) moves its clock origin instead of catching up
   at full speed, as the program, delayed, would have gone on at its own
   pace. */
static void
pace (struct replay_ring *c, uint64_t t, int idle)
{
  uint64_t due = shift_t (c, t);
  uint64_t now = emlat_now ();
  if (now > due + 1000000u)
    c->t0 += now - due;
  if (now >= due)
    return;
  if (idle && due - now > 200000)
    sleep_ns (due - now - 100000);
  while (emlat_now () < due)
    ;
}

/* Replay the IX_FIELDS record at A (emlat_ix_commit): its fields
   unpacked as the writer does (src/record/writer.c), times moved onto our
   clock and batch ids mapped; the end time of an ending commit is left
   out, as the call records its own. */
static void
replay_ix_fields (struct replay_ring *c, const struct emlat_slot *a, struct idmap *causes,
                  struct idmap *batches)
{
  unsigned status = EMLAT_RR_A (a->w[0]), has_q = EMLAT_RR_B (a->w[0]);
  uint32_t tm = (uint32_t)(a->w[2] & 0xffffffffu), vm = (uint32_t)(a->w[2] >> 32);
  uint32_t cm = (uint32_t)a->w[3];
  unsigned k;
  const uint64_t *w = ix_fields_words (a, &k);
  struct emlat_ix_fields f;
  emlat_ixf_clear (&f);
  for (uint32_t b = tm; b; b &= b - 1)
    {
      unsigned i = (unsigned)__builtin_ctz (b);
      unsigned q = has_q ? (unsigned)((w[i / 16] >> (4 * (i % 16))) & 0xf) : 0;
      uint64_t t = w[k++];
      if (!(status && i == EMLAT_T_INTERACTION_END))
        emlat_ixf_time_q (&f, (enum emlat_time_field)i, shift_t (c, t), (enum emlat_quality)q);
    }
  for (uint32_t b = vm; b; b &= b - 1)
    {
      unsigned i = (unsigned)__builtin_ctz (b);
      uint64_t v = w[k++];
      if (i == EMLAT_V_FIRST_SOURCE_BATCH || i == EMLAT_V_DECISIVE_SOURCE_BATCH)
        v = idmap_get (batches, v);
      emlat_ixf_value (&f, (enum emlat_value_field)i, v);
    }
  for (uint32_t b = cm; b; b &= b - 1)
    emlat_ixf_count (&f, (enum emlat_counter)__builtin_ctz (b), w[k++]);
  emlat_ix_commit (idmap_get (causes, a->w[1]), &f, (enum emlat_ix_status)status);
}

static void *
replay_ring_main (void *arg)
{
  struct replay_ring *c = arg;
  const struct trace_ring *r = c->r;
  struct idmap causes, spans, batches, polls;
  idmap_init (&causes, r->n / 8);
  idmap_init (&spans, r->n / 2);
  idmap_init (&batches, 1024);
  idmap_init (&polls, 16);
  int in_poll = 0;
  pthread_barrier_wait (c->go);
  for (uint64_t k = 0; k < r->n;)
    {
      const struct emlat_slot *a = &r->slots[k];
      unsigned ns = EMLAT_RR_NSLOTS (a->w[0]);
      const struct emlat_slot *b = ns == 2 ? a + 1 : a;
      k += ns;
      unsigned type = EMLAT_RR_TYPE (a->w[0]), fa = EMLAT_RR_A (a->w[0]), fb = EMLAT_RR_B (a->w[0]);
      uint64_t t = record_time (a, b);
      if (t)
        pace (c, t, in_poll > 0);
      c->attempted++;
      switch (type)
        {
        case EMLAT_RR_SPAN_BEGIN:
          {
            uint64_t cause = idmap_get (&causes, a->w[2]);
            uint64_t hnd = (fb & EMLAT_RR_CPU) ? emlat_span_begin_cpu (fa, cause)
                                               : emlat_span_begin (fa, cause);
            idmap_put (&spans, a->w[1], hnd);
            if (fa == EMLAT_SPAN_EVENT_POLL)
              {
                idmap_put (&polls, a->w[1], 1);
                in_poll++;
              }
            break;
          }
        case EMLAT_RR_SPAN_END:
          {
            uint64_t hnd = idmap_get (&spans, a->w[1]);
            if (!hnd)
              c->unmapped++;
            emlat_span_end (hnd, fa, a->w[3]);
            if (idmap_get (&polls, a->w[1]))
              {
                idmap_put (&polls, a->w[1], 0);
                in_poll = in_poll > 0 ? in_poll - 1 : 0;
              }
            break;
          }
        case EMLAT_RR_SPAN_COUNT:
          {
            /* A served count (ringrec.h) is what emlat_span_counts_served
               records for one counter when its ring is near its limit. */
            uint64_t v = a->w[2];
            if (fb == EMLAT_RR_SERVED && fa < EMLAT_C_COUNTER_COUNT)
              emlat_span_counts_served (idmap_get (&spans, a->w[1]), 1u << fa, &v);
            else
              emlat_span_count (idmap_get (&spans, a->w[1]), fa, v);
            break;
          }
        case EMLAT_RR_SPAN_COUNTS:
          {
            /* The values after the head slot's are contiguous in a trace
               (ringrec.h: value k >= 2 in slot 1 + (k - 2) / 4). */
            uint64_t v[EMLAT_C_COUNTER_COUNT];
            v[0] = a->w[3];
            for (unsigned j = 1; j < fa && j < EMLAT_C_COUNTER_COUNT; j++)
              v[j] = a[1 + (j - 1) / 4].w[(j - 1) % 4];
            if (fb == EMLAT_RR_SERVED)
              emlat_span_counts_served (idmap_get (&spans, a->w[1]), (uint32_t)a->w[2], v);
            else
              emlat_span_counts (idmap_get (&spans, a->w[1]), (uint32_t)a->w[2], v);
            break;
          }
        case EMLAT_RR_IX_BEGIN:
          idmap_put (
              &causes, a->w[1],
              emlat_ix_begin (fa, idmap_get (&causes, a->w[2]), idmap_get (&causes, a->w[3])));
          break;
        case EMLAT_RR_IX_TIME:
          emlat_ix_time_q (idmap_get (&causes, a->w[1]), fa, shift_t (c, a->w[2]), fb);
          break;
        case EMLAT_RR_IX_VALUE:
          {
            uint64_t v = a->w[2];
            if (fa == EMLAT_V_FIRST_SOURCE_BATCH || fa == EMLAT_V_DECISIVE_SOURCE_BATCH)
              v = idmap_get (&batches, v);
            emlat_ix_value (idmap_get (&causes, a->w[1]), fa, v);
            break;
          }
        case EMLAT_RR_IX_COUNT:
          if (fb)
            emlat_ix_add (idmap_get (&causes, a->w[1]), fa, a->w[2]);
          else
            emlat_ix_count (idmap_get (&causes, a->w[1]), fa, a->w[2]);
          break;
        case EMLAT_RR_IX_END:
          emlat_ix_end (idmap_get (&causes, a->w[1]), fa);
          break;
        case EMLAT_RR_IX_FIELDS:
          replay_ix_fields (c, a, &causes, &batches);
          break;
        case EMLAT_RR_INPUT:
          {
            uint64_t id = emlat_input_batch_id ();
            idmap_put (&batches, a->w[1], id);
            struct emlat_input_batch ib = {
              .batch_id = id,
              .mask = fa,
              .ready_quality = fb,
              .t_known_empty = (fa & EMLAT_IB_KNOWN_EMPTY) ? shift_t (c, a->w[2]) : 0,
              .t_first_ready = (fa & EMLAT_IB_FIRST_READY) ? shift_t (c, a->w[3]) : 0,
              .t_read_begin = (fa & EMLAT_IB_READ_BEGIN) ? shift_t (c, b->w[0]) : 0,
              .t_read_end = (fa & EMLAT_IB_READ_END) ? shift_t (c, b->w[1]) : 0,
              .bytes = b->w[2],
            };
            emlat_input_batch (&ib);
            break;
          }
        default:
          c->attempted--;
          break;
        }
    }
  idmap_free (&causes);
  idmap_free (&spans);
  idmap_free (&batches);
  idmap_free (&polls);
  return 0;
}

/* ------------------------------------------------------------------ */
/* The application threads                                             */

enum { APP_THREADS = 16, APP_RECORDS_PER_REQUEST = 15 };

struct app_ctx
{
  pthread_barrier_t *go;
  double rate; /* records/s per thread; 0 = as fast as possible */
  int bursts;
  uint64_t burst_ns, idle_ns;
  uint64_t flat_requests; /* flat-out: requests per burst */
  uint64_t attempted;
};

static volatile uint64_t app_sink;

/* Some work between records, as an application thread does. */
static void
app_work (unsigned n)
{
  uint64_t x = app_sink;
  for (unsigned i = 0; i < n; i++)
    x = x * 6364136223846793005u + 1442695040888963407u;
  app_sink = x;
}

/* One request: an interaction with five spans and some fields: 15 ring
   records in 16 slots (the interaction begin takes 2). */
static void
app_request (uint64_t i)
{
  uint64_t c = emlat_ix_begin (EMLAT_ROOT_THREAD_WAKEUP, 0, 0);
  uint64_t top = emlat_span_begin (EMLAT_SPAN_USER, c);
  uint64_t parse = emlat_span_begin (EMLAT_SPAN_READ, c);
  emlat_span_end (parse, EMLAT_SPAN_OK, 0);
  emlat_ix_mark (c, EMLAT_T_COMMAND_BEGIN);
  uint64_t work = emlat_span_begin (EMLAT_SPAN_COMMAND, c);
  uint64_t wait = emlat_span_begin (EMLAT_SPAN_WAIT, c);
  emlat_span_end (wait, EMLAT_SPAN_OK, 0);
  emlat_span_end (work, EMLAT_SPAN_OK, 0);
  emlat_ix_mark (c, EMLAT_T_COMMAND_END);
  uint64_t out = emlat_span_begin (EMLAT_SPAN_TTY_WRITE, c);
  emlat_span_count (out, EMLAT_C_TTY_BYTES, 100 + i % 400);
  emlat_span_end (out, EMLAT_SPAN_OK, 0);
  emlat_span_end (top, EMLAT_SPAN_OK, i & 7);
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
}

static void *
app_thread_main (void *arg)
{
  struct app_ctx *c = arg;
  prctl (PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  uint64_t i = 0;
  for (int b = 0; b < c->bursts; b++)
    {
      pthread_barrier_wait (c->go);
      uint64_t t0 = emlat_now (), done = 0;
      if (c->rate <= 0)
        for (uint64_t k = 0; k < c->flat_requests; k++)
          {
            app_request (i++);
            done++;
          }
      else
        {
          /* A request every INTERVAL, each with some work; between them
             the thread waits (a server thread waiting for its next
             request), waking about once a millisecond for the requests
             then due.  One that fell more than 10 ms behind (descheduled)
             goes on from now rather than catching up at full speed. */
          uint64_t interval = (uint64_t)(1e9 * APP_RECORDS_PER_REQUEST / c->rate);
          uint64_t due = t0;
          for (;;)
            {
              uint64_t now = emlat_now ();
              if (now - t0 >= c->burst_ns)
                break;
              if (now < due)
                {
                  sleep_ns (due - now + 750000u);
                  continue;
                }
              if (now > due + 10000000u)
                due = now;
              app_request (i++);
              app_work (256);
              done++;
              due += interval;
            }
        }
      c->attempted += done * APP_RECORDS_PER_REQUEST;
      pthread_barrier_wait (c->go);
      if (b + 1 < c->bursts)
        sleep_ns (c->idle_ns);
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* One recording child                                                 */

struct child_report
{
  int start_rc, stop_rc;
  uint64_t attempted, unmapped;
  struct emlat_status st;
  long maxrss_kb;
  uint64_t wall_ns;
};

enum workload_kind { WL_REPLAY, WL_APP, WL_FLAT };

struct workload
{
  enum workload_kind kind;
  const struct trace *tr;
};

struct sizes_choice
{
  uint32_t slots, chunk;
  uint64_t rotate;
};

/* Record WL into PATH in a child process with sizes SZ; fill *REP. */
static int
run_child (const struct workload *wl, const struct sizes_choice *sz, const char *path,
           struct child_report *rep)
{
  int pfd[2];
  if (pipe (pfd) != 0)
    return -1;
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      close (pfd[0]);
      struct child_report cr;
      memset (&cr, 0, sizeof cr);
      struct emlat_options o = {
        .path = path, .ring_slots = sz->slots, .chunk_bytes = sz->chunk, .rotate_bytes = sz->rotate
      };
      cr.start_rc = emlat_start (&o);
      uint64_t t0 = emlat_now ();
      if (cr.start_rc == 0)
        {
          int n = wl->kind == WL_REPLAY ? wl->tr->nrings : APP_THREADS;
          pthread_t th[APP_THREADS];
          pthread_barrier_t go;
          pthread_barrier_init (&go, 0, (unsigned)n);
          struct replay_ring rr[4];
          struct app_ctx ac[APP_THREADS];
          /* Every replayed ring starts its clock at the same moment, a
             little after its thread can have started. */
          uint64_t replay_t0 = emlat_now () + 20000000u;
          for (int i = 0; i < n; i++)
            {
              int rc;
              if (wl->kind == WL_REPLAY)
                {
                  rr[i] = (struct replay_ring){
                    .tr = wl->tr, .r = &wl->tr->ring[i], .go = &go, .t0 = replay_t0
                  };
                  rc = pthread_create (&th[i], 0, replay_ring_main, &rr[i]);
                }
              else
                {
                  ac[i] = (struct app_ctx){ .go = &go,
                                            .bursts = 4,
                                            .burst_ns = 500000000u,
                                            .idle_ns = 500000000u,
                                            .rate = wl->kind == WL_APP ? 62500.0 : 0,
                                            .flat_requests = 20000 };
                  rc = pthread_create (&th[i], 0, app_thread_main, &ac[i]);
                }
              if (rc != 0)
                _exit (3);
            }
          for (int i = 0; i < n; i++)
            pthread_join (th[i], 0);
          for (int i = 0; i < n; i++)
            {
              cr.attempted += wl->kind == WL_REPLAY ? rr[i].attempted : ac[i].attempted;
              cr.unmapped += wl->kind == WL_REPLAY ? rr[i].unmapped : 0;
            }
          cr.stop_rc = emlat_stop ();
          emlat_status (&cr.st);
        }
      cr.wall_ns = emlat_now () - t0;
      struct rusage ru;
      getrusage (RUSAGE_SELF, &ru);
      cr.maxrss_kb = ru.ru_maxrss;
      ssize_t w = write (pfd[1], &cr, sizeof cr);
      _exit (w == (ssize_t)sizeof cr ? 0 : 4);
    }
  close (pfd[1]);
  memset (rep, 0, sizeof *rep);
  ssize_t got = 0;
  while (got < (ssize_t)sizeof *rep)
    {
      ssize_t r = read (pfd[0], (char *)rep + got, sizeof *rep - (size_t)got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += r;
    }
  close (pfd[0]);
  int status;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return got == (ssize_t)sizeof *rep && WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Reading a profile back                                              */

struct profile_facts
{
  int files;
  uint64_t bytes;
  uint64_t loss_records; /* sum of LOSS records' record counts */
  uint64_t loss_ring_full;
  uint64_t stats_accepted, stats_written, stats_dropped;
  uint64_t wakeups, hw_wakes, high_water, writer_cpu_ns, chunks;
  uint64_t session_ring_slots, session_chunk_bytes, session_rotate_bytes;
  int final, damaged;
};

static int
kv_is (const struct emlat_kv *kv, const char *key)
{
  size_t n = strlen (key);
  return kv->key_len == n && memcmp (kv->key, key, n) == 0;
}

static int
facts_record (void *ctx, const struct emlat_chunk_info *c, const struct emlat_record *r)
{
  (void)c;
  struct profile_facts *f = ctx;
  if (r->kind == EMLAT_REC_LOSS)
    {
      if (r->u.loss.reason == EMLAT_LOSS_RING_FULL)
        f->loss_ring_full += r->u.loss.records;
      return 0;
    }
  if (r->kind != EMLAT_REC_KV)
    return 0;
  const struct emlat_kv *kv = &r->u.kv;
  if (r->chunk_type == EMLAT_CHUNK_SESSION)
    {
      if (kv_is (kv, "profiler.ring_slots"))
        f->session_ring_slots = kv->u;
      else if (kv_is (kv, "profiler.chunk_bytes"))
        f->session_chunk_bytes = kv->u;
      else if (kv_is (kv, "profiler.rotate_bytes"))
        f->session_rotate_bytes = kv->u;
      return 0;
    }
  struct
  {
    const char *k;
    uint64_t *v;
  } keys[] = {
    { "stats.records_accepted", &f->stats_accepted },
    { "stats.records_written", &f->stats_written },
    { "stats.records_dropped", &f->stats_dropped },
    { "stats.writer_wakeups", &f->wakeups },
    { "stats.highwater_wakes", &f->hw_wakes },
    { "stats.ring_high_water", &f->high_water },
    { "stats.writer_cpu_ns", &f->writer_cpu_ns },
    { "stats.chunks_written", &f->chunks },
  };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (kv_is (kv, keys[i].k))
      *keys[i].v = kv->u;
  if (kv_is (kv, "stats.final"))
    f->final = kv->u == 1;
  return 0;
}

/* The path of rotated file N of PROFILE (N = 0: PROFILE itself). */
static char *
rotated_path (const char *profile, int n)
{
  if (n == 0)
    return strdup (profile);
  size_t len = strlen (profile);
  if (len > 6 && strcmp (profile + len - 6, ".emlat") == 0)
    len -= 6;
  return xstrf ("%.*s.%d.emlat", (int)len, profile, n);
}

static int
profile_facts (const char *profile, struct profile_facts *f)
{
  memset (f, 0, sizeof *f);
  struct emlat_recovery rec;
  emlat_recover (profile, &rec); /* a profile whose process died */
  for (int n = 0;; n++)
    {
      char *p = rotated_path (profile, n);
      uint8_t *buf;
      size_t len;
      if (emlat_read_file (p, 0, &buf, &len) != 0)
        {
          free (p);
          break;
        }
      free (p);
      struct emlat_scan_params sp = { .visitor = { .ctx = f, .on_record = facts_record } };
      struct emlat_scan_result res;
      emlat_scan (buf, len, &sp, &res);
      free (buf);
      f->files++;
      f->bytes += res.file_bytes;
      f->loss_records += res.lost_records;
      if (res.damage)
        f->damaged = 1;
    }
  return f->files ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Runs                                                                */

struct run_result
{
  int ok;
  uint64_t lost; /* sum of LOSS records */
  int exact;     /* the loss checks held */
  char why[160]; /* the first check that failed */
  struct ratestat rate;
  struct profile_facts pf;
  uint64_t attempted;  /* synthetic and replayed runs */
  long maxrss_kb;      /* producer process */
  double emacs_cpu_ms; /* live Emacs runs */
};

static const char *emlat_bin;
static const char *emacs_bin;
static const char *data_dir = "bench/burst";
static const char *traces_dir; /* --traces: replay kept traces, no capture */
static char self_path[PATH_MAX];
static const char *keep_dir;
static char *tmp_root;
static int run_counter;
static int captures_failed; /* Emacs captures that gave no trace */

/* The loss checks of DESIGN.md section 8.4 on one run. */
static void
check_exact (struct run_result *rr, const struct child_report *cr)
{
  rr->exact = 1;
  const struct profile_facts *f = &rr->pf;
  if (f->loss_records != f->stats_dropped)
    {
      rr->exact = 0;
      snprintf (rr->why, sizeof rr->why, "LOSS records %llu != stats.records_dropped %llu",
                (unsigned long long)f->loss_records, (unsigned long long)f->stats_dropped);
      return;
    }
  if (cr)
    {
      if (cr->st.records_dropped != f->loss_records)
        {
          rr->exact = 0;
          snprintf (rr->why, sizeof rr->why, "status dropped %llu != LOSS %llu",
                    (unsigned long long)cr->st.records_dropped,
                    (unsigned long long)f->loss_records);
          return;
        }
      /* Every record the producers made is written or counted lost.
         (stats.records_accepted is not compared: it sums the rings' heads,
         which count slots, and some records take two.) */
      if (cr->attempted != f->stats_written + f->stats_dropped)
        {
          rr->exact = 0;
          snprintf (rr->why, sizeof rr->why, "attempted %llu != written %llu + dropped %llu",
                    (unsigned long long)cr->attempted, (unsigned long long)f->stats_written,
                    (unsigned long long)f->stats_dropped);
        }
    }
}

/* Busy-loop processes that load the machine for the length of a run. */
static pid_t hog_pids[64];
static int hog_count;

static void
hogs_start (int n)
{
  for (int i = 0; i < n && i < 64; i++)
    {
      pid_t p = fork ();
      if (p == 0)
        {
          volatile uint64_t x = 1;
          for (;;)
            x = x * 6364136223846793005u + 1;
        }
      if (p > 0)
        hog_pids[hog_count++] = p;
    }
}

static void
hogs_stop (void)
{
  for (int i = 0; i < hog_count; i++)
    {
      kill (hog_pids[i], SIGKILL);
      waitpid (hog_pids[i], 0, 0);
    }
  hog_count = 0;
}

static int hogs_n;

/* A synthetic or replayed workload at sizes SZ. */
static void
run_synthetic (const struct workload *wl, const struct sizes_choice *sz, struct run_result *rr)
{
  memset (rr, 0, sizeof *rr);
  char *path = xstrf ("%s/run%d.emlat", tmp_root, ++run_counter);
  struct sampler sp;
  pthread_t th;
  sampler_start (&sp, &th, path);
  hogs_start (hogs_n);
  struct child_report cr;
  int rc = run_child (wl, sz, path, &cr);
  hogs_stop ();
  sampler_finish (&sp, th);
  sampler_stats (&sp, &rr->rate);
  sampler_free (&sp);
  if (rc != 0 || cr.start_rc != 0)
    {
      snprintf (rr->why, sizeof rr->why, "the recording child failed (start %d)", cr.start_rc);
      free (path);
      return;
    }
  if (profile_facts (path, &rr->pf) != 0)
    {
      snprintf (rr->why, sizeof rr->why, "no profile");
      free (path);
      return;
    }
  rr->ok = 1;
  rr->lost = rr->pf.loss_records;
  rr->attempted = cr.attempted;
  rr->maxrss_kb = cr.maxrss_kb;
  check_exact (rr, &cr);
  if (cr.unmapped)
    fprintf (stderr, "bench_burst: %llu replayed records named ids the trace never began\n",
             (unsigned long long)cr.unmapped);
  if (!keep_dir)
    for (int n = 0; n < rr->pf.files; n++)
      {
        char *p = rotated_path (path, n);
        unlink (p);
        free (p);
      }
  free (path);
}

/* The real Emacs on scenario SCN at sizes SZ (slots 1<<24 and 2 rings:
   CAPTURE, taking its trace into *TR).  Returns 0 when Emacs ran. */
static int
run_emacs (const char *scn, const struct sizes_choice *sz, int capture, struct trace *tr,
           struct run_result *rr)
{
  memset (rr, 0, sizeof *rr);
  int id = ++run_counter;
  char *profile = xstrf ("%s/emacs%d.emlat", tmp_root, id);
  char *driver = xstrf ("%s/driver%d.emlat", tmp_root, id);
  char *log = xstrf ("%s/replay%d.log", tmp_root, id);
  char *script = xstrf ("%s/%s.script", data_dir, scn);
  char *el = xstrf ("%s/%s.el", data_dir, scn);
  char *lp = xstrf ("--latency-profile=%s", profile);
  char slots[32], threads[32], chunk[32], rotate[32];
  snprintf (slots, sizeof slots, "%u", capture ? 1u << 24 : sz->slots);
  snprintf (threads, sizeof threads, "%u", capture ? 2u : 0u);
  snprintf (chunk, sizeof chunk, "%u", capture ? 0u : sz->chunk);
  snprintf (rotate, sizeof rotate, "%llu", capture ? 0ull : (unsigned long long)sz->rotate);
  char *const argv[] = { (char *)emlat_bin,
                         "replay",
                         "--script",
                         script,
                         "--linger",
                         "15s",
                         "--timeout",
                         "300",
                         "--settle-max",
                         "20s",
                         "-o",
                         driver,
                         "--",
                         self_path,
                         "--launch",
                         slots,
                         threads,
                         chunk,
                         rotate,
                         "--",
                         (char *)emacs_bin,
                         "-Q",
                         "-nw",
                         "-l",
                         el,
                         lp,
                         0 };
  struct sampler sp;
  pthread_t th;
  sampler_start (&sp, &th, profile);
  hogs_start (hogs_n);
  pid_t pid = fork ();
  if (pid == 0)
    {
      int fd = open (log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0)
        {
          dup2 (fd, 1);
          dup2 (fd, 2);
        }
      execv (emlat_bin, argv);
      _exit (127);
    }
  int status = 0;
  while (pid > 0 && waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      break;
  hogs_stop ();
  sampler_finish (&sp, th);
  sampler_stats (&sp, &rr->rate);
  int rc = -1;
  if (capture)
    {
      if (!sp.found)
        snprintf (rr->why, sizeof rr->why, "no ring file of Emacs's session was found");
      else if (trace_take (&sp.view, tr) == 0)
        rc = 0;
      else
        snprintf (rr->why, sizeof rr->why, "its rings hold no readable trace (above)");
    }
  sampler_free (&sp);
  FILE *lf = fopen (log, "r");
  if (lf)
    {
      char line[512];
      while (fgets (line, sizeof line, lf))
        {
          double ms;
          if (sscanf (line, "  cmd cpu: %lf ms", &ms) == 1)
            rr->emacs_cpu_ms = ms;
          if (strstr (line, "result:") && !strstr (line, "completed") && !strstr (line, "ran to"))
            fprintf (stderr, "bench_burst: %s: %s", scn, line);
        }
      fclose (lf);
    }
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    fprintf (stderr, "bench_burst: %s: emlat replay exited with status %d (log %s)\n", scn,
             WIFEXITED (status) ? WEXITSTATUS (status) : -1, log);
  if (profile_facts (profile, &rr->pf) == 0)
    {
      rr->ok = !capture || rc == 0;
      rr->lost = rr->pf.loss_records;
      check_exact (rr, 0);
      uint32_t want = capture ? 1u << 24 : sz->slots;
      if (want && rr->pf.session_ring_slots != want)
        {
          rr->ok = 0;
          snprintf (rr->why, sizeof rr->why, "Emacs recorded with %llu slots, not %u",
                    (unsigned long long)rr->pf.session_ring_slots, want);
        }
    }
  else
    snprintf (rr->why, sizeof rr->why, "Emacs wrote no profile (log %s)", log);
  if (!keep_dir)
    {
      for (int n = 0; n < (rr->pf.files ? rr->pf.files : 1); n++)
        {
          char *p = rotated_path (profile, n);
          unlink (p);
          free (p);
        }
      unlink (driver);
      if (rr->ok)
        unlink (log);
    }
  free (profile);
  free (driver);
  free (log);
  free (script);
  free (el);
  free (lp);
  return rr->ok ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* The sweep and its tables                                            */

enum { SC_HELD, SC_GC, SC_FLOOD, SC_THREADS, SC_FLAT, SC_COUNT };
static const char *const sc_name[SC_COUNT] = { "held", "gc", "flood", "threads", "flat" };

static int
sc_is_emacs (int sc)
{
  return sc <= SC_FLOOD;
}

struct cell
{
  int runs, failed, inexact;
  uint64_t lost_max, lost_sum;
  double peak10_max, peak100_max, mean_sum;
  double fill_max;      /* share of the ring */
  uint64_t react_max;   /* ns */
  uint64_t wakeups[64]; /* per run */
  uint64_t cpu_ns[64];
  uint64_t bytes[64];
  uint64_t records[64];
  long rss_max;
  char why[160];
};

static uint64_t
median_u64 (uint64_t *v, int n)
{
  if (n <= 0)
    return 0;
  uint64_t *c = xcalloc ((size_t)n, sizeof *c);
  memcpy (c, v, (size_t)n * sizeof *c);
  qsort (c, (size_t)n, sizeof *c, cmp_u64);
  uint64_t m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
  free (c);
  return m;
}

static void
cell_add (struct cell *c, const struct run_result *rr, uint64_t nslots)
{
  if (!rr->ok)
    {
      c->failed++;
      snprintf (c->why, sizeof c->why, "%s", rr->why);
      return;
    }
  int i = c->runs < 64 ? c->runs : 63;
  c->runs++;
  if (!rr->exact)
    {
      c->inexact++;
      snprintf (c->why, sizeof c->why, "%s", rr->why);
    }
  if (rr->lost > c->lost_max)
    c->lost_max = rr->lost;
  c->lost_sum += rr->lost;
  if (rr->rate.peak10 > c->peak10_max)
    c->peak10_max = rr->rate.peak10;
  if (rr->rate.peak100 > c->peak100_max)
    c->peak100_max = rr->rate.peak100;
  c->mean_sum += rr->rate.mean;
  if (rr->rate.react_ns > c->react_max)
    c->react_max = rr->rate.react_ns;
  double fill = nslots ? (double)rr->rate.max_fill / (double)nslots : 0;
  if (fill > c->fill_max)
    c->fill_max = fill;
  c->wakeups[i] = rr->pf.wakeups;
  c->cpu_ns[i] = rr->pf.writer_cpu_ns;
  c->bytes[i] = rr->pf.bytes;
  c->records[i] = rr->pf.stats_written;
  if (rr->maxrss_kb > c->rss_max)
    c->rss_max = rr->maxrss_kb;
}

static void
print_header (const char *dim)
{
  printf ("%-8s %7s %4s %9s %9s %11s %11s %6s %6s %7s %9s %9s %8s\n", "scenario", dim, "runs",
          "lost max", "lost sum", "peak/10ms", "peak/100ms", "fill", "react", "wakeups",
          "wr.cpu ms", "B/record", "rss MiB");
}

static void
print_cell (const char *scn, const char *size, const struct cell *c)
{
  int n = c->runs < 64 ? c->runs : 64;
  uint64_t w = median_u64 ((uint64_t *)c->wakeups, n);
  uint64_t cpu = median_u64 ((uint64_t *)c->cpu_ns, n);
  double bpr = 0;
  if (n)
    {
      uint64_t b = median_u64 ((uint64_t *)c->bytes, n), r = median_u64 ((uint64_t *)c->records, n);
      bpr = r ? (double)b / (double)r : 0;
    }
  char rss[32];
  if (c->rss_max)
    snprintf (rss, sizeof rss, "%.1f", (double)c->rss_max / 1024.0);
  else
    snprintf (rss, sizeof rss, "-");
  char react[32];
  if (c->react_max)
    snprintf (react, sizeof react, "%.0fms", (double)c->react_max / 1e6);
  else
    snprintf (react, sizeof react, "-");
  printf ("%-8s %7s %4d %9llu %9llu %11.0f %11.0f %5.0f%% %6s %7llu %9.2f %9.2f %8s", scn, size,
          c->runs, (unsigned long long)c->lost_max, (unsigned long long)c->lost_sum, c->peak10_max,
          c->peak100_max, 100 * c->fill_max, react, (unsigned long long)w, (double)cpu / 1e6, bpr,
          rss);
  if (c->failed)
    printf ("  (%d failed: %s)", c->failed, c->why);
  else if (c->inexact)
    printf ("  (%d INEXACT: %s)", c->inexact, c->why);
  printf ("\n");
}

/* The traces of the Emacs scenarios, captured once per --captures. */
struct captured
{
  struct trace tr[8];
  int n;
  struct run_result cap[8];
};

static void
usage (void)
{
  fprintf (stderr, "usage: bench_burst [--sweep] [--runs R] [--scenarios LIST] [--slots LIST]\n"
                   "                   [--chunks LIST] [--rotate LIST] [--hogs N] [--live]\n"
                   "                   [--captures C] [--emacs PATH] [--data DIR] [--keep DIR]\n"
                   "                   [--traces DIR]\n"
                   "       bench_burst --launch SLOTS THREADS CHUNK ROTATE -- PROGRAM [ARGS...]\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--launch") == 0)
    return launch_main (argc, argv);

  int sweep = 0, runs = 0, live = 0, captures = 0;
  const char *scen_list = 0, *slots_list = 0, *chunks_list = 0, *rotate_list = 0;
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : 0;
      if (strcmp (a, "--sweep") == 0)
        sweep = 1;
      else if (strcmp (a, "--live") == 0)
        live = 1;
      else if (strcmp (a, "--runs") == 0 && v)
        runs = atoi (argv[++i]);
      else if (strcmp (a, "--captures") == 0 && v)
        captures = atoi (argv[++i]);
      else if (strcmp (a, "--hogs") == 0 && v)
        hogs_n = atoi (argv[++i]);
      else if (strcmp (a, "--scenarios") == 0 && v)
        scen_list = argv[++i];
      else if (strcmp (a, "--slots") == 0 && v)
        slots_list = argv[++i];
      else if (strcmp (a, "--chunks") == 0 && v)
        chunks_list = argv[++i];
      else if (strcmp (a, "--rotate") == 0 && v)
        rotate_list = argv[++i];
      else if (strcmp (a, "--emacs") == 0 && v)
        emacs_bin = argv[++i];
      else if (strcmp (a, "--data") == 0 && v)
        data_dir = argv[++i];
      else if (strcmp (a, "--keep") == 0 && v)
        keep_dir = argv[++i];
      else if (strcmp (a, "--traces") == 0 && v)
        traces_dir = argv[++i];
      else
        usage ();
    }
  if (runs <= 0)
    runs = sweep ? 3 : 1;
  if (captures <= 0)
    captures = sweep ? 2 : 1;
  if (captures > 8)
    captures = 8;

  if (!realpath ("/proc/self/exe", self_path))
    fatal ("cannot find myself: %s", strerror (errno));
  char *slash = strrchr (self_path, '/');
  prog_dir = slash ? strndup (self_path, (size_t)(slash - self_path)) : ".";
  emlat_bin = getenv ("EMLAT");
  if (!emlat_bin || !*emlat_bin)
    emlat_bin = xstrf ("%s/../emlat", prog_dir);
  if (!emacs_bin)
    emacs_bin = getenv ("EMACS_BIN");
  if (!emacs_bin || !*emacs_bin)
    {
      const char *cache = getenv ("XDG_CACHE_HOME"), *home = getenv ("HOME");
      emacs_bin = cache && *cache
                      ? xstrf ("%s/emlat/emacs-28.2/tree/src/emacs", cache)
                      : xstrf ("%s/.cache/emlat/emacs-28.2/tree/src/emacs", home ? home : "/");
    }

  int want[SC_COUNT] = { 1, 1, 1, 1, 1 };
  if (scen_list)
    {
      memset (want, 0, sizeof want);
      char *copy = strdup (scen_list), *save = 0;
      for (char *tok = strtok_r (copy, ",", &save); tok; tok = strtok_r (0, ",", &save))
        {
          int found = 0;
          for (int s = 0; s < SC_COUNT; s++)
            if (strcmp (tok, sc_name[s]) == 0)
              want[s] = found = 1;
          if (!found)
            fatal ("unknown scenario '%s'", tok);
        }
      free (copy);
    }
  char *el = xstrf ("%s/held.el", data_dir);
  int have_emacs
      = access (emacs_bin, X_OK) == 0 && access (el, R_OK) == 0 && access (emlat_bin, X_OK) == 0;
  free (el);
  if (!have_emacs && (want[SC_HELD] || want[SC_GC] || want[SC_FLOOD]))
    {
      fprintf (stderr,
               "bench_burst: skipping the Emacs scenarios: need the profiled Emacs "
               "(%s; make emacs), %s/*.el and %s\n",
               emacs_bin, data_dir, emlat_bin);
      want[SC_HELD] = want[SC_GC] = want[SC_FLOOD] = 0;
    }

  struct sizes slots, chunks, rotates;
  /* Without --sweep or --slots: the library's default ring. */
  char default_slots[32];
  snprintf (default_slots, sizeof default_slots, "%u", EMLAT_DEFAULT_RING_SLOTS);
  parse_sizes (slots_list ? slots_list : sweep ? "4K,8K,16K,32K,64K,128K,256K" : default_slots,
               &slots);
  parse_sizes (chunks_list ? chunks_list : sweep ? "4K,16K,64K,256K,1M" : "64K", &chunks);
  parse_sizes (rotate_list ? rotate_list : sweep ? "off,1M,64M,1G" : "off", &rotates);
  for (int i = 0; i < slots.n; i++)
    if (slots.v[i] < 16 || (slots.v[i] & (slots.v[i] - 1)))
      fatal ("ring slots must be a power of two >= 16");

  const char *tmpdir = getenv ("TMPDIR");
  if (keep_dir)
    {
      mkdir (keep_dir, 0700);
      tmp_root = strdup (keep_dir);
    }
  else
    {
      tmp_root = xstrf ("%s/bench_burst.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
      if (!mkdtemp (tmp_root))
        fatal ("mkdtemp: %s", strerror (errno));
    }

  /* 1. Capture the Emacs scenarios (unless --live). */
  struct captured cap[SC_COUNT];
  memset (cap, 0, sizeof cap);
  if (!live)
    for (int s = SC_HELD; s <= SC_FLOOD; s++)
      {
        if (!want[s])
          continue;
        for (int k = 0; k < captures; k++)
          {
            struct run_result rr;
            struct trace tr;
            memset (&tr, 0, sizeof tr);
            if (traces_dir)
              {
                /* Replay the traces an earlier run kept, to repeat it. */
                char *p = xstrf ("%s/%s-%d.trace", traces_dir, sc_name[s], k + 1);
                int rc = trace_load (p, &tr);
                free (p);
                if (rc != 0)
                  {
                    captures_failed++;
                    continue;
                  }
                memset (&rr, 0, sizeof rr);
                cap[s].cap[cap[s].n] = rr;
                cap[s].tr[cap[s].n++] = tr;
                continue;
              }
            fprintf (stderr, "capture %s %d/%d: the profiled Emacs, ring 2^24 slots\n", sc_name[s],
                     k + 1, captures);
            if (run_emacs (sc_name[s], 0, 1, &tr, &rr) != 0)
              {
                fprintf (stderr, "bench_burst: capture of %s failed: %s\n", sc_name[s], rr.why);
                trace_free (&tr);
                captures_failed++;
                continue;
              }
            if (keep_dir)
              {
                char *p = xstrf ("%s/%s-%d.trace", keep_dir, sc_name[s], k + 1);
                trace_save (&tr, p);
                free (p);
              }
            cap[s].cap[cap[s].n] = rr;
            cap[s].tr[cap[s].n++] = tr;
          }
        if (cap[s].n == 0)
          want[s] = 0;
      }

  /* 2. The calibration table: the captured Emacs against its replay. */
  if (!live && (want[SC_HELD] || want[SC_GC] || want[SC_FLOOD]))
    {
      printf ("\nCalibration: the profiled Emacs (captured) against its replay through the API\n");
      printf ("%-8s %5s %9s %9s %11s %11s %11s %11s %11s %9s\n", "scenario", "trace", "records",
              "seconds", "E peak10", "R peak10", "E peak100", "R peak100", "E mean", "emacs ms");
      for (int s = SC_HELD; s <= SC_FLOOD; s++)
        for (int k = 0; k < (want[s] ? cap[s].n : 0); k++)
          {
            const struct trace *tr = &cap[s].tr[k];
            struct workload wl = { .kind = WL_REPLAY, .tr = tr };
            struct sizes_choice big = { .slots = 1u << 22 };
            struct run_result rr;
            run_synthetic (&wl, &big, &rr);
            double secs = (double)(tr->t_last - tr->t_first) / 1e9;
            printf ("%-8s %5d %9llu %9.2f %11.0f %11.0f %11.0f %11.0f %11.0f %9.0f\n", sc_name[s],
                    k + 1, (unsigned long long)tr->records, secs, trace_peak (tr, 10000000u),
                    rr.rate.peak10, trace_peak (tr, 100000000u), rr.rate.peak100,
                    cap[s].cap[k].rate.mean, cap[s].cap[k].emacs_cpu_ms);
            printf ("METRIC burst_%s_peak_slots_per_s_10ms %.0f slots/s\n", sc_name[s],
                    trace_peak (tr, 10000000u));
            fflush (stdout);
          }
    }

  /* 3. The sweeps: ring slots (chunk and rotation at their defaults), then
     chunk bytes, then rotation (ring at its default). */
  struct dim
  {
    const char *name;
    const struct sizes *vals;
  } dims[3] = { { "slots", &slots }, { "chunk", &chunks }, { "rotate", &rotates } };
  int zero_ok[3][32];
  double fill_at[3][32];
  int fill_sc[3][32];
  for (int d = 0; d < 3; d++)
    for (int v = 0; v < 32; v++)
      {
        zero_ok[d][v] = 1;
        fill_at[d][v] = 0;
        fill_sc[d][v] = -1;
      }
  int ran[3] = { 0, 0, 0 };
  for (int d = 0; d < 3; d++)
    {
      if (dims[d].vals->n == 0 || (!sweep && d > 0))
        continue;
      if (sweep && d > 0 && dims[d].vals->n == 1)
        continue;
      printf ("\nBurst table by %s (%d runs per cell%s; other sizes at the defaults)\n",
              dims[d].name, runs, hogs_n ? ", with CPU hogs" : "");
      print_header (dims[d].name);
      for (int s = 0; s < SC_COUNT; s++)
        {
          if (!want[s])
            continue;
          for (int v = 0; v < dims[d].vals->n; v++)
            {
              struct sizes_choice sz = { 0 };
              if (d == 0)
                sz.slots = (uint32_t)dims[d].vals->v[v];
              else if (d == 1)
                sz.chunk = (uint32_t)dims[d].vals->v[v];
              else
                sz.rotate = dims[d].vals->v[v];
              char label[32];
              format_size (dims[d].vals->v[v], label, sizeof label);
              if (d == 0 && sz.slots == 0)
                snprintf (label, sizeof label, "default");
              struct cell c;
              memset (&c, 0, sizeof c);
              uint64_t nslots = sz.slots ? sz.slots : EMLAT_DEFAULT_RING_SLOTS;
              for (int r = 0; r < runs; r++)
                {
                  if (sc_is_emacs (s) && live)
                    {
                      struct run_result rr;
                      fprintf (stderr, "%s %s=%s run %d/%d: the profiled Emacs\n", sc_name[s],
                               dims[d].name, label, r + 1, runs);
                      run_emacs (sc_name[s], &sz, 0, 0, &rr);
                      cell_add (&c, &rr, nslots);
                      continue;
                    }
                  int ntr = sc_is_emacs (s) ? cap[s].n : 1;
                  for (int k = 0; k < ntr; k++)
                    {
                      struct workload wl = { .kind = s == SC_THREADS ? WL_APP
                                                     : s == SC_FLAT  ? WL_FLAT
                                                                     : WL_REPLAY,
                                             .tr = sc_is_emacs (s) ? &cap[s].tr[k] : 0 };
                      fprintf (stderr, "%s %s=%s run %d/%d%s\n", sc_name[s], dims[d].name, label,
                               r + 1, runs, sc_is_emacs (s) ? " (replayed trace)" : "");
                      struct run_result rr;
                      run_synthetic (&wl, &sz, &rr);
                      cell_add (&c, &rr, nslots);
                    }
                }
              print_cell (sc_name[s], label, &c);
              fflush (stdout);
              if (s != SC_FLAT)
                {
                  ran[d] = 1;
                  if (c.lost_max || c.failed || c.inexact || c.runs == 0)
                    zero_ok[d][v] = 0;
                  if (c.fill_max > fill_at[d][v])
                    {
                      fill_at[d][v] = c.fill_max;
                      fill_sc[d][v] = s;
                    }
                }
              if (!sweep)
                {
                  printf ("METRIC burst_%s_lost %llu records\n", sc_name[s],
                          (unsigned long long)c.lost_max);
                  printf ("METRIC burst_%s_max_fill_pct %.1f %%\n", sc_name[s], 100 * c.fill_max);
                  printf ("METRIC burst_%s_peak_slots_per_s_10ms_replay %.0f slots/s\n", sc_name[s],
                          c.peak10_max);
                  printf ("METRIC burst_%s_writer_wakeups %llu wakeups\n", sc_name[s],
                          (unsigned long long)median_u64 (c.wakeups, c.runs < 64 ? c.runs : 64));
                  printf ("METRIC burst_%s_loss_exact %d bool\n", sc_name[s],
                          c.inexact == 0 && c.failed == 0);
                }
            }
        }
    }

  /* 4. What the sweep chose: per dimension, the smallest value with no
     loss in any run of any scenario but `flat', and how full a ring got
     there (the writer is woken at the mark, a quarter: what lies beyond
     it is the writer's reaction, the rest is headroom). */
  if (sweep)
    {
      printf ("\nSmallest sizes with zero loss in every run of every scenario (flat excluded)\n");
      for (int d = 0; d < 3; d++)
        {
          if (!ran[d])
            continue;
          int best = -1;
          for (int v = 0; v < dims[d].vals->n; v++)
            if (zero_ok[d][v] && (best < 0 || dims[d].vals->v[v] < dims[d].vals->v[best]))
              best = v;
          if (best < 0)
            {
              printf ("  %-7s none of the candidates\n", dims[d].name);
              continue;
            }
          char label[32];
          format_size (dims[d].vals->v[best], label, sizeof label);
          printf ("  %-7s %s (fullest ring %.0f%%%s%s)\n", dims[d].name, label,
                  100 * fill_at[d][best], fill_sc[d][best] >= 0 ? " in " : "",
                  fill_sc[d][best] >= 0 ? sc_name[fill_sc[d][best]] : "");
          if (d == 0)
            printf ("METRIC burst_min_zero_loss_slots %llu slots\n",
                    (unsigned long long)dims[d].vals->v[best]);
        }
    }

  for (int s = 0; s < SC_COUNT; s++)
    for (int k = 0; k < cap[s].n; k++)
      trace_free (&cap[s].tr[k]);
  if (!keep_dir)
    remove_tree (tmp_root);
  if (captures_failed)
    {
      fprintf (stderr, "bench_burst: %d capture(s) failed: the Emacs scenarios are incomplete\n",
               captures_failed);
      return 1;
    }
  return 0;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_tty_footprint.c -- the memory a key touches: the distinct cache
 * lines and pages of code and data that one key of bench_tty_cold's idle
 * pager touches between its timed part's bounds, per arm, counted
 * exactly under valgrind's lackey.
 *
 *   BUILD=build bench_tty_footprint [--keys K] [--key idle|nano]
 *                                   [--finish drain|reader] [--dump ARM]
 *                                   [--compare LIB] [--vdso-clock]
 *
 * Why: after an idle pause, or between two calls of a real program, a
 * key finds the caches and TLBs cold, so what the library adds to it
 * depends on the lines and pages it touches that the program would not
 * (docs/PERFORMANCE.md, "What a key touches").  bench_tty_cold times the
 * result with a spread of microseconds between runs; this counts what a
 * change touches, deterministically -- a guide, not a price: how much a
 * line or a page costs is the timing's to say.
 *
 * Arms: none (no preload), floor (build/bench/libemlat-floor.so, the
 * least an interposing recorder does), on (BUILD's library, tracing on:
 * bench/libemlat-tty-emulated.so, libemlat-tty.so with the clock built
 * to read the time-stamp counter under valgrind too, as the library does
 * natively on x86-64, where libemlat-tty.so itself would find every pair
 * of counter and clock reads too wide and read clock_gettime, touching
 * lines of the PLT, libc and ld.so it does not touch natively; with
 * --vdso-clock, libemlat-tty.so as it is) and, with --compare, other (that
 * library as it is, tracing on: build its emulated variant to compare
 * like with like).  Each
 * arm runs `bench_tty_cold --child idle` (with --key nano, the child's
 * nano key, its work between calls 1 KiB) once under valgrind's lackey
 * (`--trace-mem=yes`; its tool binary run directly, as valgrind's launcher
 * runs it, because the launcher, a dynamically linked program, would load
 * the preloaded library, which then removes itself from LD_PRELOAD before
 * the child starts), with EMLAT_BENCH_MARKS set: the child reports the
 * addresses of its two marker functions, called just outside the timed
 * part, and of its own code, and its /proc/self/maps.  Between the markers every
 * instruction fetch and data access is counted by 64-byte line and 4 KiB
 * page, code and data apart, and each line is attributed to the mapping
 * it lies in.  The first two keys are skipped (the marker line may reach
 * this program after the trace that follows it); per metric the median
 * over the other keys.  Valgrind runs neither the vDSO nor the kernel: a
 * clock_gettime is a system call here and the kernel's lines are not
 * counted, so the floor reads the time-stamp counter (EMLAT_FLOOR=tsc,
 * unless the environment names a variant), as the library does on x86-64.
 * Traced children run as bench_tty_cold runs them (EMLAT_FINISH=drain:PID,
 * no writer thread; nothing drains their rings, which hold every key) or,
 * with --finish reader, with their own writer thread.  --dump ARM prints
 * the distinct lines of that arm's middle key to stderr ("code|data FILE
 * ADDRESS ACCESSES", the address in the file's ELF terms, for addr2line
 * or nm), then each of its calls' ("call N code|data FILE ADDRESS
 * ACCESSES").
 *
 * Prints "METRIC tty_fp_<arm>_<metric> value unit" lines: instructions,
 * code_lines, data_lines, code_pages, data_pages, pte_lines (distinct 32 KiB
 * regions: a line of page-table entries), pde_lines (distinct 2 MiB
 * regions: a page-directory entry), call_lines (for each run of
 * instructions outside the program's own code -- a call into libc or the
 * library and all it does -- its distinct lines, summed over the key's
 * calls: the lines a key touches when every call finds them cold) and
 * calls, and lines_<region> for
 * the regions lib (the preloaded library's mappings), libc, ld, exe,
 * stack, shm (/dev/shm, the ring), anon (anonymous: TLS, the heap, the
 * writer's stack) and other; then <arm>_minus_none for lines and pages.
 *
 * Invariants: every child is reaped; a traced child's profile lives in a
 * mkdtemp directory removed at the end, its ring file finished by
 * emlat_recover.  Exit 0, or 2 with a message naming what failed
 * (valgrind missing, a child that failed).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emlat/emlat_reader.h"
#include "tty_child.h"

enum { ARM_NONE, ARM_FLOOR, ARM_ON, ARM_OTHER, NARMS };
static const char *const arm_name[NARMS] = { "none", "floor", "on", "other" };

enum { R_LIB, R_LIBC, R_LD, R_EXE, R_STACK, R_SHM, R_ANON, R_OTHER, NREGIONS };
static const char *const region_name[NREGIONS] = { "lib", "libc", "ld", "exe",
                                                   "stack", "shm", "anon", "other" };

#define MAX_KEYS 64
#define MAX_MAPS 512
#define SET_BITS 16 /* a window's distinct lines or pages, at most 65,536 */

/* ------------------------------------------------------------------ */
/* A set of 64-bit keys (line or page numbers), cleared per window      */

struct set
{
  uint32_t slot[1u << SET_BITS]; /* index in member + 1; 0 is empty */
  uint64_t *member;              /* the keys inserted, in order */
  uint32_t *hits;                /* the accesses to each member */
  size_t n;
};

static void
set_add (struct set *s, uint64_t key)
{
  uint64_t h = key * 0x9e3779b97f4a7c15ull >> (64 - SET_BITS);
  for (;;)
    {
      uint32_t i = s->slot[h];
      if (i && s->member[i - 1] == key)
        {
          s->hits[i - 1]++;
          return;
        }
      if (i == 0)
        {
          if (s->n + 1 >= (1u << SET_BITS) / 2)
            return; /* full: the count saturates (never seen) */
          s->member[s->n] = key;
          s->hits[s->n] = 1;
          s->slot[h] = (uint32_t)++s->n;
          return;
        }
      h = (h + 1) & ((1u << SET_BITS) - 1);
    }
}

/* Empty the set: every occupied slot lies in the probe run that starts at
   one of the members' hash slots. */
static void
set_clear (struct set *s)
{
  for (size_t i = 0; i < s->n; i++)
    {
      uint64_t h = s->member[i] * 0x9e3779b97f4a7c15ull >> (64 - SET_BITS);
      while (s->slot[h] != 0)
        {
          s->slot[h] = 0;
          h = (h + 1) & ((1u << SET_BITS) - 1);
        }
    }
  s->n = 0;
}

static struct set *
set_new (void)
{
  struct set *s = calloc (1, sizeof *s);
  if (s)
    {
      s->member = malloc (sizeof (uint64_t) << SET_BITS);
      s->hits = malloc (sizeof (uint32_t) << SET_BITS);
    }
  if (!s || !s->member || !s->hits)
    {
      fprintf (stderr, "bench_tty_footprint: out of memory\n");
      exit (2);
    }
  return s;
}

/* ------------------------------------------------------------------ */
/* One traced run                                                      */

struct map
{
  uint64_t lo, hi;
  uint64_t base; /* the lowest address of the same file's mappings: addr - base is the ELF address */
  int region;
  int exec;      /* mapped executable: code */
  char name[64]; /* the file's base name, or the bracketed name */
};

/* A key's counts. */
struct window
{
  uint64_t instructions, code_lines, data_lines, code_pages, data_pages;
  uint64_t pte_lines, pde_lines; /* distinct 32 KiB and 2 MiB regions */
  uint64_t call_lines;           /* the sum over the key's calls out of the
                                    program's code of each one's distinct
                                    lines */
  uint64_t calls;
  uint64_t *lines; /* its distinct lines, code then data, for attribution */
  uint32_t *hits;  /* the accesses to each */
  size_t nlines;
};

struct run
{
  struct window w[MAX_KEYS + 4];
  int nwindows;
  struct map maps[MAX_MAPS];
  int nmaps;
  uint64_t mark_open, mark_close;
  uint64_t exe_lo, exe_hi; /* the program's own code */
  char result[1 << 16]; /* the result pipe's text */
  size_t result_len;
};

static int
region_of_path (const char *path, const char *lib)
{
  if (lib && strcmp (path, lib) == 0)
    return R_LIB;
  if (strstr (path, "/libc.so") || strstr (path, "/libc-"))
    return R_LIBC;
  if (strstr (path, "/ld-linux"))
    return R_LD;
  if (strstr (path, "bench_tty_cold"))
    return R_EXE;
  if (strcmp (path, "[stack]") == 0)
    return R_STACK;
  if (strncmp (path, "/dev/shm/", 9) == 0)
    return R_SHM;
  if (path[0] == 0 || strcmp (path, "[heap]") == 0)
    return R_ANON;
  return R_OTHER;
}

/* Parse the child's result text: the marks line and the maps between it
   and "endmaps". */
static void
parse_result (struct run *run, const char *lib)
{
  run->result[run->result_len] = 0;
  char *save = NULL;
  int in_maps = 0;
  for (char *line = strtok_r (run->result, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      unsigned long long lo, hi;
      char path[4096];
      if (strncmp (line, "marks ", 6) == 0)
        {
          in_maps = 1;
          continue;
        }
      if (strcmp (line, "endmaps") == 0)
        {
          in_maps = 0;
          continue;
        }
      if (!in_maps || run->nmaps == MAX_MAPS)
        continue;
      path[0] = 0;
      char perms[8] = "";
      if (sscanf (line, "%llx-%llx %7s %*s %*s %*s %4095s", &lo, &hi, perms, path) < 2)
        continue;
      struct map *mp = &run->maps[run->nmaps++];
      *mp = (struct map){ lo, hi, lo, region_of_path (path, lib), perms[2] == 'x', "" };
      const char *slash = strrchr (path, '/');
      if (path[0])
        snprintf (mp->name, sizeof mp->name, "%s", slash ? slash + 1 : path);
      else if (run->nmaps > 1 && mp[-1].hi == lo && mp[-1].region != R_ANON)
        /* an anonymous mapping right after a file's: its .bss */
        snprintf (mp->name, sizeof mp->name, "bss:%.40s", mp[-1].name);
      else /* another anonymous mapping: named by where it starts */
        snprintf (mp->name, sizeof mp->name, "anon@%llx", lo);
      for (int i = 0; i < run->nmaps - 1; i++)
        if (path[0] == '/' && strcmp (run->maps[i].name, mp->name) == 0)
          mp->base = run->maps[i].base;
    }
}

static const struct map *
map_of (const struct run *run, uint64_t addr)
{
  for (int i = 0; i < run->nmaps; i++)
    if (addr >= run->maps[i].lo && addr < run->maps[i].hi)
      return &run->maps[i];
  return NULL;
}

static int
region_of (const struct run *run, uint64_t addr)
{
  const struct map *m = map_of (run, addr);
  return m ? m->region : R_OTHER;
}

/* --dump: the distinct lines of one key (the middle one), one per line:
   "code|data FILE 0xELF-ADDRESS ACCESSES" (a bracketed mapping gives the
   offset in it, an anonymous one bss:FILE after FILE's mappings, else
   anon@START), for addr2line or nm. */
static void
dump_window (const struct run *run, const struct window *w, size_t ncode, FILE *out)
{
  for (size_t i = 0; i < w->nlines; i++)
    {
      uint64_t addr = w->lines[i] << 6;
      const struct map *m = map_of (run, addr);
      fprintf (out, "%s %s 0x%llx %u\n", i < ncode ? "code" : "data", m ? m->name : "?",
               (unsigned long long)(m ? addr - m->base : addr), w->hits[i]);
    }
}

/* --dump, the calls of the same key: "call N code|data FILE 0xADDRESS
   ACCESSES" per line of call N, from the raw lines IN ("call N ADDRESS
   ACCESSES", absolute addresses) kept while tracing. */
static void
dump_calls (const struct run *run, FILE *in, FILE *out)
{
  rewind (in);
  unsigned long long call, addr;
  unsigned hits;
  while (fscanf (in, "call %llu %llx %u\n", &call, &addr, &hits) == 3)
    {
      const struct map *m = map_of (run, addr);
      fprintf (out, "call %llu %s %s 0x%llx %u\n", call, m && m->exec ? "code" : "data",
               m ? m->name : "?", m ? addr - m->base : addr, hits);
    }
}

struct tracer
{
  struct run *run;
  struct set *code_lines, *data_lines, *code_pages, *data_pages, *pte_lines, *pde_lines;
  struct set *call_set; /* the lines of the call in progress */
  int open, in_call;
  uint64_t instructions, call_lines, calls;
  int dump_window;  /* --dump: the window whose calls are printed, or -1 */
  FILE *dump_out;
};

/* A call out of the program's code ends: its lines are counted. */
static void
end_call (struct tracer *t)
{
  if (t->in_call)
    {
      if (t->dump_out && t->run->nwindows == t->dump_window)
        for (size_t i = 0; i < t->call_set->n; i++)
          fprintf (t->dump_out, "call %llu 0x%llx %u\n", (unsigned long long)t->calls,
                   (unsigned long long)(t->call_set->member[i] << 6), t->call_set->hits[i]);
      t->call_lines += t->call_set->n;
      t->calls++;
      set_clear (t->call_set);
      t->in_call = 0;
    }
}

/* Empty every count (between windows). */
static void
clear_counts (struct tracer *t)
{
  set_clear (t->code_lines);
  set_clear (t->data_lines);
  set_clear (t->code_pages);
  set_clear (t->data_pages);
  set_clear (t->pte_lines);
  set_clear (t->pde_lines);
  set_clear (t->call_set);
  t->instructions = t->call_lines = t->calls = 0;
  t->in_call = 0;
}

static void
close_window (struct tracer *t)
{
  struct run *run = t->run;
  if (run->nwindows < MAX_KEYS + 4)
    {
      struct window *w = &run->w[run->nwindows++];
      w->instructions = t->instructions;
      w->code_lines = t->code_lines->n;
      w->data_lines = t->data_lines->n;
      w->code_pages = t->code_pages->n;
      w->data_pages = t->data_pages->n;
      w->pte_lines = t->pte_lines->n;
      w->pde_lines = t->pde_lines->n;
      w->call_lines = t->call_lines;
      w->calls = t->calls;
      w->nlines = t->code_lines->n + t->data_lines->n;
      w->lines = malloc ((w->nlines + 1) * sizeof *w->lines);
      w->hits = malloc ((w->nlines + 1) * sizeof *w->hits);
      if (!w->lines || !w->hits)
        exit (2);
      memcpy (w->hits, t->code_lines->hits, t->code_lines->n * sizeof *w->hits);
      memcpy (w->hits + t->code_lines->n, t->data_lines->hits, t->data_lines->n * sizeof *w->hits);
      memcpy (w->lines, t->code_lines->member, t->code_lines->n * sizeof *w->lines);
      memcpy (w->lines + t->code_lines->n, t->data_lines->member,
              t->data_lines->n * sizeof *w->lines);
    }
  clear_counts (t);
  t->open = 0;
}

/* Empty every count for a new window. */
static void
open_window (struct tracer *t)
{
  clear_counts (t);
  t->open = 1;
}

/* One lackey line: "I  addr,size", " L addr,size", " S ...", " M ...". */
static void
trace_line (struct tracer *t, const char *line)
{
  char kind;
  if (line[0] == 'I')
    kind = 'I';
  else if (line[0] == ' ' && (line[1] == 'L' || line[1] == 'S' || line[1] == 'M'))
    kind = 'D';
  else
    return;
  const char *p = line + 2;
  while (*p == ' ')
    p++;
  char *end;
  uint64_t addr = strtoull (p, &end, 16);
  uint64_t size = *end == ',' ? strtoull (end + 1, NULL, 10) : 1;
  if (size == 0)
    size = 1;
  if (kind == 'I')
    {
      if (t->run->mark_open && addr == t->run->mark_open)
        {
          open_window (t);
          return;
        }
      if (t->open && addr == t->run->mark_close)
        {
          end_call (t);
          close_window (t);
          return;
        }
    }
  if (!t->open)
    return;
  if (kind == 'I')
    {
      t->instructions++;
      int in_program = addr >= t->run->exe_lo && addr < t->run->exe_hi;
      if (in_program)
        end_call (t);
      else
        t->in_call = 1;
    }
  for (uint64_t l = addr >> 6; l <= (addr + size - 1) >> 6; l++)
    {
      set_add (kind == 'I' ? t->code_lines : t->data_lines, l);
      if (t->in_call)
        set_add (t->call_set, l);
    }
  for (uint64_t pg = addr >> 12; pg <= (addr + size - 1) >> 12; pg++)
    {
      set_add (kind == 'I' ? t->code_pages : t->data_pages, pg);
      /* The page-table entries of 8 pages share a line; a page-directory
         entry maps 2 MiB: what a page walk reads beyond the page's own
         entry. */
      set_add (t->pte_lines, pg >> 3);
      set_add (t->pde_lines, pg >> 9);
    }
}

/* The marks line, once the result pipe has brought it. */
static void
look_for_marks (struct run *run)
{
  if (run->mark_open)
    return;
  run->result[run->result_len] = 0;
  const char *m = strstr (run->result, "marks ");
  unsigned long long a, b, lo, hi;
  if (m && strchr (m, '\n') && sscanf (m, "marks %llx %llx %llx %llx", &a, &b, &lo, &hi) == 4)
    {
      run->mark_open = a;
      run->mark_close = b;
      run->exe_lo = lo;
      run->exe_hi = hi;
    }
}

struct options
{
  int keys;
  const char *self_dir; /* the directory holding bench_tty_cold */
  char lib[4096], floor[4096], other[4096];
  int narms;
  int reader_finish; /* --finish reader */
  const char *key;   /* --key: the child's mode, idle (a pager key) or nano */
  char dir[64];
};

static int
trace_arm (const struct options *o, int arm, struct run *run, struct tracer *t)
{
  int master = posix_openpt (O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt (master) != 0 || unlockpt (master) != 0)
    return -1;
  const char *slave_path = ptsname (master);
  int res[2], log[2];
  if (!slave_path || pipe (res) != 0 || pipe (log) != 0)
    return -1;
  char profile[128];
  snprintf (profile, sizeof profile, "%s/fp-%d.emlat", o->dir, arm);
  int traced = arm == ARM_ON || arm == ARM_OTHER;
  if (traced && !o->reader_finish && tty_child_profile_create (profile) != 0)
    return -1;
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      tty_child_attach (slave_path);
      close (res[0]);
      close (log[0]);
      char m[16], r[16], k[16], logfd[32], exe[4200];
      snprintf (m, sizeof m, "%d", master);
      snprintf (r, sizeof r, "%d", res[1]);
      snprintf (k, sizeof k, "%d", o->keys);
      snprintf (logfd, sizeof logfd, "--log-fd=%d", log[1]);
      snprintf (exe, sizeof exe, "%s/bench_tty_cold", o->self_dir);
      unsetenv ("EMLAT_TRACE");
      unsetenv ("LD_PRELOAD");
      setenv ("EMLAT_BENCH_MARKS", "1", 1);
      /* valgrind's launcher (a dynamically linked program) would load a
         preloaded library itself, and libemlat-tty.so removes itself from
         LD_PRELOAD for the programs a traced process runs (docs/TTY.md),
         so the child would run without it: the tool is run directly, as
         the launcher runs it (VALGRIND_LAUNCHER, VALGRIND_LIB), and gives
         the client LD_PRELOAD as it finds it. */
      const char *vlib = getenv ("VALGRIND_LIB") ? getenv ("VALGRIND_LIB") : "/usr/libexec/valgrind";
      char tool[4200];
      snprintf (tool, sizeof tool, "%s/lackey-amd64-linux", vlib);
      setenv ("VALGRIND_LIB", vlib, 1);
      setenv ("VALGRIND_LAUNCHER", "/usr/bin/valgrind", 1);
      if (arm != ARM_NONE)
        {
          setenv ("LD_PRELOAD", arm == ARM_FLOOR ? o->floor : arm == ARM_OTHER ? o->other : o->lib, 1);
          setenv ("EMLAT_TRACE", "1", 1);
          setenv ("EMLAT_FILE", profile, 1);
          /* As bench_tty_cold runs it: drain:PID (no writer thread in the
             child; nothing drains its rings here, which hold every key),
             or with --finish reader its own writer thread. */
          char finish[32];
          snprintf (finish, sizeof finish, "drain:%ld", (long)getppid ());
          setenv ("EMLAT_FINISH", o->reader_finish ? "reader" : finish, 1);
          /* The floor reading the time-stamp counter, as the library
             does: valgrind would turn its vDSO clock into a system call
             whose lines this count cannot see. */
          setenv ("EMLAT_FLOOR", "tsc", 0);
        }
      execl (tool, tool, "--tool=lackey", "--trace-mem=yes", logfd, "-q", exe, "--child", o->key, m,
             r, k, "1", "1", "1", (char *)NULL);
      _exit (127);
    }
  close (res[1]);
  close (log[1]);
  close (master);
  static char buf[1 << 16];
  static char line[512];
  size_t line_len = 0;
  int log_open = 1, res_open = 1;
  while (log_open || res_open)
    {
      struct pollfd p[2] = { { .fd = log_open ? log[0] : -1, .events = POLLIN },
                             { .fd = res_open ? res[0] : -1, .events = POLLIN } };
      if (poll (p, 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      if (p[1].revents)
        {
          ssize_t r = read (res[0], run->result + run->result_len,
                            sizeof run->result - 1 - run->result_len);
          if (r <= 0)
            res_open = 0;
          else
            run->result_len += (size_t)r;
          look_for_marks (run);
        }
      if (p[0].revents)
        {
          ssize_t r = read (log[0], buf, sizeof buf);
          if (r <= 0)
            {
              log_open = 0;
              continue;
            }
          for (ssize_t i = 0; i < r; i++)
            {
              if (buf[i] != '\n')
                {
                  if (line_len < sizeof line - 1)
                    line[line_len++] = buf[i];
                  continue;
                }
              line[line_len] = 0;
              trace_line (t, line);
              line_len = 0;
            }
        }
    }
  close (res[0]);
  close (log[0]);
  int st;
  while (waitpid (pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (traced)
    tty_child_finish ("bench_tty_footprint", pid, st, profile);
  unlink (profile);
  if (!WIFEXITED (st) || WEXITSTATUS (st) != 0)
    {
      fprintf (stderr, "bench_tty_footprint: %s arm: the traced child failed (status %d%s)\n",
               arm_name[arm], st,
               WIFEXITED (st) && WEXITSTATUS (st) == 127 ? ": is valgrind installed?" : "");
      return -1;
    }
  parse_result (run, arm == ARM_FLOOR ? o->floor : arm == ARM_OTHER ? o->other : o->lib);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Summaries                                                           */

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The median over the windows after the first two of the value VALUE
   picks from each. */
static double
median_over_keys (const struct run *run, uint64_t (*value) (const struct run *, const struct window *, int),
                  int arg)
{
  uint64_t v[MAX_KEYS + 4];
  int n = 0;
  for (int i = 2; i < run->nwindows; i++)
    v[n++] = value (run, &run->w[i], arg);
  if (n == 0)
    return 0;
  qsort (v, (size_t)n, sizeof *v, cmp_u64);
  return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

enum { M_INSTR, M_CODE_LINES, M_DATA_LINES, M_CODE_PAGES, M_DATA_PAGES, M_PTE_LINES, M_PDE_LINES,
       M_CALL_LINES, M_CALLS, NMETRICS };
static const char *const metric_name[NMETRICS] = { "instructions", "code_lines", "data_lines",
                                                   "code_pages", "data_pages", "pte_lines",
                                                   "pde_lines", "call_lines", "calls" };

static const char *
metric_unit (int k)
{
  return k == M_INSTR    ? "instructions"
         : k == M_CALLS  ? "calls"
         : k <= M_DATA_LINES || k == M_CALL_LINES ? "lines"
         : k <= M_DATA_PAGES ? "pages"
                             : "regions";
}

static uint64_t
window_metric (const struct run *run, const struct window *w, int m)
{
  (void)run;
  switch (m)
    {
    case M_INSTR:
      return w->instructions;
    case M_CODE_LINES:
      return w->code_lines;
    case M_DATA_LINES:
      return w->data_lines;
    case M_CODE_PAGES:
      return w->code_pages;
    case M_PTE_LINES:
      return w->pte_lines;
    case M_PDE_LINES:
      return w->pde_lines;
    case M_CALL_LINES:
      return w->call_lines;
    case M_CALLS:
      return w->calls;
    default:
      return w->data_pages;
    }
}

static uint64_t
window_region_lines (const struct run *run, const struct window *w, int region)
{
  uint64_t n = 0;
  for (size_t i = 0; i < w->nlines; i++)
    n += region_of (run, w->lines[i] << 6) == region;
  return n;
}

int
main (int argc, char **argv)
{
  static struct options o = { .keys = 12, .narms = ARM_OTHER, .key = "idle" };
  const char *dump = NULL;
  int vdso_clock = 0;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--keys") == 0 && i + 1 < argc)
        o.keys = atoi (argv[++i]);
      else if (strcmp (argv[i], "--finish") == 0 && i + 1 < argc)
        {
          if (tty_child_parse_finish ("bench_tty_footprint", argv[++i], &o.reader_finish) != 0)
            return 2;
        }
      else if (strcmp (argv[i], "--key") == 0 && i + 1 < argc)
        {
          o.key = argv[++i];
          if (strcmp (o.key, "idle") != 0 && strcmp (o.key, "nano") != 0)
            {
              fprintf (stderr, "bench_tty_footprint: --key %s: idle (a pager key) or nano\n",
                       o.key);
              return 2;
            }
        }
      else if (strcmp (argv[i], "--dump") == 0 && i + 1 < argc)
        dump = argv[++i];
      else if (strcmp (argv[i], "--vdso-clock") == 0)
        vdso_clock = 1;
      else if (strcmp (argv[i], "--compare") == 0 && i + 1 < argc)
        {
          if (!realpath (argv[++i], o.other))
            {
              fprintf (stderr, "bench_tty_footprint: %s: %s\n", argv[i], strerror (errno));
              return 2;
            }
          o.narms = NARMS;
        }
      else
        {
          fprintf (stderr, "usage: bench_tty_footprint [--keys K] [--key idle|nano] "
                   "[--finish drain|reader] [--dump ARM] [--compare OTHER-libemlat-tty.so] "
                   "[--vdso-clock]\n");
          return 2;
        }
    }
  if (o.keys < 4 || o.keys > MAX_KEYS)
    {
      fprintf (stderr, "bench_tty_footprint: --keys 4..%d\n", MAX_KEYS);
      return 2;
    }
  const char *build = getenv ("BUILD") ? getenv ("BUILD") : "build";
  char path[4200];
  snprintf (path, sizeof path,
            vdso_clock ? "%s/libemlat-tty.so" : "%s/bench/libemlat-tty-emulated.so", build);
  if (!realpath (path, o.lib))
    {
      fprintf (stderr, "bench_tty_footprint: %s: %s\n", path, strerror (errno));
      return 2;
    }
  static char self_dir[4096];
  snprintf (path, sizeof path, "%s/bench", build);
  if (!realpath (path, self_dir))
    {
      fprintf (stderr, "bench_tty_footprint: %s: %s\n", path, strerror (errno));
      return 2;
    }
  o.self_dir = self_dir;
  snprintf (path, sizeof path, "%s/libemlat-floor.so", self_dir);
  if (!realpath (path, o.floor))
    {
      fprintf (stderr, "bench_tty_footprint: %s: %s\n", path, strerror (errno));
      return 2;
    }
  if (tty_child_mkdtemp ("bench_tty_footprint", "emlat-fp", o.dir, sizeof o.dir) != 0)
    return 2;
  struct tracer t = { .code_lines = set_new (), .data_lines = set_new (),
                      .code_pages = set_new (), .data_pages = set_new (),
                      .pte_lines = set_new (), .pde_lines = set_new (),
                      .call_set = set_new () };
  static struct run runs[NARMS];
  double lines[NARMS], pages[NARMS];
  int rc = 0;
  for (int arm = 0; arm < o.narms; arm++)
    {
      t.run = &runs[arm];
      t.open = 0;
      int dumping = dump && strcmp (dump, arm_name[arm]) == 0;
      t.dump_window = dumping ? o.keys / 2 : -1;
      t.dump_out = dumping ? tmpfile () : NULL;
      if (trace_arm (&o, arm, &runs[arm], &t) != 0 || runs[arm].nwindows < 3)
        {
          if (runs[arm].nwindows < 3)
            fprintf (stderr, "bench_tty_footprint: %s arm: %d keys traced, need 3 or more\n",
                     arm_name[arm], runs[arm].nwindows);
          rc = 2;
          break;
        }
      double m[NMETRICS];
      for (int k = 0; k < NMETRICS; k++)
        {
          m[k] = median_over_keys (&runs[arm], window_metric, k);
          printf ("METRIC tty_fp_%s_%s %.1f %s\n", arm_name[arm], metric_name[k], m[k],
                  metric_unit (k));
        }
      for (int r = 0; r < NREGIONS; r++)
        printf ("METRIC tty_fp_%s_lines_%s %.1f lines\n", arm_name[arm], region_name[r],
                median_over_keys (&runs[arm], window_region_lines, r));
      if (dumping && o.keys / 2 < runs[arm].nwindows)
        {
          const struct window *w = &runs[arm].w[o.keys / 2];
          dump_window (&runs[arm], w, w->code_lines, stderr);
        }
      if (t.dump_out)
        {
          dump_calls (&runs[arm], t.dump_out, stderr);
          fclose (t.dump_out);
          t.dump_out = NULL;
        }
      lines[arm] = m[M_CODE_LINES] + m[M_DATA_LINES];
      pages[arm] = m[M_CODE_PAGES] + m[M_DATA_PAGES];
      if (arm != ARM_NONE)
        {
          printf ("METRIC tty_fp_%s_minus_none_lines %.1f lines\n", arm_name[arm],
                  lines[arm] - lines[ARM_NONE]);
          printf ("METRIC tty_fp_%s_minus_none_pages %.1f pages\n", arm_name[arm],
                  pages[arm] - pages[ARM_NONE]);
        }
      fflush (stdout);
    }
  rmdir (o.dir);
  return rc;
}

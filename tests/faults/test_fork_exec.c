/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_fork_exec.c -- fork and exec while recording (DESIGN.md section 18).
 *
 * Fork: a child of a recording process records nothing into its parent's
 * session -- the library stops it in the child before the child runs any
 * code (pthread_atfork): every recording call is a no-op there,
 * emlat_trace_on is 0, emlat_flush and emlat_stop say -ENOENT -- and the
 * child may start a session of its own.  The parent forks repeatedly while
 * a second thread of it records and the writer drains; its profile then
 * holds exactly the parent's sections (none named by a child) and is
 * valid, and each child's own profile is valid with the child's sections.
 *
 * (Under ThreadSanitizer, which cannot start a thread in the child of a
 * multi-threaded fork, and under AddressSanitizer, whose allocator can be
 * left locked in such a child -- a child's writer was seen blocked for
 * good in its SizeClassAllocator64 -- the children do not start their own
 * session; the plain build checks it.)
 *
 * Exec: a process whose writer is busy (a short drain period, small rings)
 * and whose two threads record calls execve at a random moment.  The
 * profile a reader then loads (emlat_profile_load recovers it from the
 * ring file) is valid: no half-written chunk, no damage, every section the
 * process had finished before exec, recovered (stats.recovered).
 */
#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"
#include "sanitizer.h"
#include "tap.h"
#include "testutil.h"

/* Rings hold every record these tests make (2 slots per section), so that
   nothing is dropped and the counts must match exactly. */
enum { FORKS = 12, EXECS = 8, RING_SLOTS = 1 << 18, MAX_SECTIONS = 60000 };

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif
/* Whether a child of the multi-threaded parent may start a session. */
#define CHILD_SESSIONS (!UNDER_TSAN && !TU_ASAN)

static _Atomic int stop_bg;
static _Atomic uint64_t bg_sections;

static void *
background (void *arg)
{
  (void)arg;
  while (!atomic_load (&stop_bg) && atomic_load (&bg_sections) < MAX_SECTIONS)
    {
      EMLAT_SCOPE ("parent-bg");
      atomic_fetch_add (&bg_sections, 1);
    }
  return NULL;
}

/* Count the named sections of PATH whose name starts with PREFIX. */
static long
sections_named (const char *path, const char *prefix, int *valid)
{
  const char *paths[] = { path };
  struct emlat_profile *p = NULL;
  if (emlat_profile_load (paths, 1, NULL, 0, &p) != 0 || !p)
    return -1;
  *valid = emlat_report_health (p) == EMLAT_HEALTH_VALID;
  size_t n;
  const struct emlat_named_span *s = emlat_profile_named_spans (p, &n);
  long k = 0;
  for (size_t i = 0; i < n; i++)
    {
      size_t len;
      const uint8_t *b = emlat_profile_string (p, s[i].name, &len);
      if (b && len >= strlen (prefix) && !memcmp (b, prefix, strlen (prefix)))
        k++;
    }
  emlat_profile_free (p);
  return k;
}

static int
child_after_fork (const char *dir, int i)
{
  /* Nothing of the parent's session in the child. */
  if (emlat_active () || emlat_trace_on)
    return 10;
  uint64_t h = EMLAT_SECTION_BEGIN ("child-in-parent");
  if (h != 0)
    return 11;
  uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
  emlat_span_end (s, EMLAT_SPAN_OK, 0);
  if (s != 0 || emlat_flush () != -ENOENT || emlat_stop () != -ENOENT)
    return 12;
  if (!CHILD_SESSIONS)
    return 0;
  /* A session of its own. */
  char *path = tu_strf ("%s/child-%d.emlat", dir, i);
  struct emlat_options o = { .path = path };
  if (emlat_start (&o) != 0)
    return 13;
  for (int k = 0; k < 100; k++)
    {
      EMLAT_SCOPE ("child-own");
    }
  if (emlat_stop () != 0)
    return 14;
  free (path);
  return 0;
}

static void
test_fork (const char *dir)
{
  char *path = tu_strf ("%s/parent.emlat", dir);
  struct emlat_options o = { .path = path, .ring_slots = RING_SLOTS, .drain_interval_us = 500,
                             .max_threads = 8 };
  CHECK_OK (emlat_start (&o));
  pthread_t bg;
  CHECK_OK (pthread_create (&bg, NULL, background, NULL));
  long mine = 0;
  for (int i = 0; i < FORKS; i++)
    {
      {
        EMLAT_SCOPE ("parent-main");
        mine++;
      }
      pid_t pid = fork ();
      if (pid == 0)
        _exit (child_after_fork (dir, i));
      int status = 0;
      waitpid (pid, &status, 0);
      CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0, "fork %d: child exit %d", i,
             WIFEXITED (status) ? WEXITSTATUS (status) : -1);
      if (!CHILD_SESSIONS)
        continue;
      char *cp = tu_strf ("%s/child-%d.emlat", dir, i);
      int valid = 0;
      long own = sections_named (cp, "child-own", &valid);
      CHECK (own == 100 && valid, "fork %d: the child's own profile: %ld sections, valid %d", i,
             own, valid);
      free (cp);
    }
  atomic_store (&stop_bg, 1);
  pthread_join (bg, NULL);
  CHECK_OK (emlat_stop ());
  int valid = 0;
  CHECK_EQ_I64 (sections_named (path, "child", &valid), 0);
  CHECK (valid, "the parent's profile is valid");
  CHECK_EQ_I64 (sections_named (path, "parent-main", &valid), mine);
  long bgn = sections_named (path, "parent-bg", &valid);
  CHECK (bgn == (long)atomic_load (&bg_sections), "parent background sections: %ld of %llu",
         bgn, (unsigned long long)atomic_load (&bg_sections));
  free (path);
}

static void *
exec_worker (void *arg)
{
  (void)arg;
  for (int i = 0;; i++)
    {
      if (i >= MAX_SECTIONS)
        {
          usleep (1000);
          continue;
        }
      EMLAT_SCOPE ("exec-bg");
    }
  return NULL;
}

/* In a child: record from two threads with a busy writer, tell the parent
   through FD how many main-thread sections were finished, and exec. */
static void
exec_child (const char *path, int fd, unsigned delay_us)
{
  struct emlat_options o = { .path = path, .ring_slots = RING_SLOTS, .drain_interval_us = 200,
                             .max_threads = 8 };
  if (emlat_start (&o) != 0)
    _exit (20);
  pthread_t t;
  pthread_create (&t, NULL, exec_worker, NULL);
  uint64_t until = emlat_now () + (uint64_t)delay_us * 1000u;
  uint64_t n = 0;
  while (emlat_now () < until && n < MAX_SECTIONS)
    {
      EMLAT_SCOPE ("exec-main");
      n++;
    }
  if (write (fd, &n, sizeof n) != sizeof n)
    _exit (21);
  execl ("/bin/true", "true", (char *)NULL);
  _exit (22);
}

static void
test_exec (const char *dir)
{
  unsigned seed = (unsigned)getpid ();
  for (int i = 0; i < EXECS; i++)
    {
      char *path = tu_strf ("%s/exec-%d.emlat", dir, i);
      int pfd[2];
      CHECK_OK (pipe (pfd));
      unsigned delay = 2000 + (unsigned)(rand_r (&seed) % 20000);
      pid_t pid = fork ();
      if (pid == 0)
        {
          close (pfd[0]);
          exec_child (path, pfd[1], delay);
        }
      close (pfd[1]);
      uint64_t n = 0;
      ssize_t got = read (pfd[0], &n, sizeof n);
      close (pfd[0]);
      int status = 0;
      waitpid (pid, &status, 0);
      CHECK (got == sizeof n && WIFEXITED (status) && WEXITSTATUS (status) == 0,
             "exec %d: the child exec'd /bin/true (status %d)", i, status);
      const char *paths[] = { path };
      struct emlat_profile *p = NULL;
      CHECK_OK (emlat_profile_load (paths, 1, NULL, 0, &p));
      if (!p)
        continue;
      CHECK (emlat_report_health (p) == EMLAT_HEALTH_VALID,
             "exec %d after %u us: the recovered profile is valid", i, delay);
      CHECK_EQ_U64 (emlat_profile_totals (p)->damage, 0);
      size_t ns;
      const struct emlat_kv *st = emlat_profile_stats (p, &ns);
      const struct emlat_kv *rec = emlat_kv_find (st, ns, "stats.recovered");
      CHECK (rec && rec->u == 1, "exec %d: recovered by the reader", i);
      size_t nn;
      const struct emlat_named_span *s = emlat_profile_named_spans (p, &nn);
      uint64_t main_done = 0;
      for (size_t k = 0; k < nn; k++)
        {
          size_t len;
          const uint8_t *b = emlat_profile_string (p, s[k].name, &len);
          main_done += b && len == 9 && !memcmp (b, "exec-main", 9);
        }
      CHECK (main_done == n, "exec %d: %llu main-thread sections in the profile, %llu finished",
             i, (unsigned long long)main_done, (unsigned long long)n);
      emlat_profile_free (p);
      free (path);
    }
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  test_fork (dir);
  test_exec (dir);
  TEST_DONE ();
}

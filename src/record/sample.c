/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sample.c -- resource samples taken by the writer thread (sample.h).
 *
 * Sources: getrusage (RUSAGE_SELF) for CPU time and context switches, the
 * second field of /proc/self/statm (resident pages) for the RSS.  Of
 * another process (sm->pid, a driver sampling the program it drains):
 * /proc/PID/statm, and user and system time from /proc/PID/stat (fields
 * 14 and 15, in clock ticks); its context switches are not read.  Each
 * field is read and checked on its own, so that one failure leaves only
 * that field absent.
 */
#include "record/sample.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "common/clock.h"
#include "format/format.h"
#include "record/session.h"

/* Relaxed: a test sets it before the session starts. */
_Atomic uint32_t emlat_sample_fail_mask;

void
emlat_sampler_init (struct emlat_sampler *sm, uint32_t interval_ms, uint32_t stats_ms)
{
  memset (sm, 0, sizeof *sm);
  sm->interval_ns = (uint64_t)interval_ms * 1000000u;
  sm->min_gap_ns = (uint64_t)(stats_ms ? stats_ms : 1000) * 1000000u;
}

void
emlat_sampler_free (struct emlat_sampler *sm)
{
  free (sm->pending);
  sm->pending = NULL;
  sm->npending = sm->cap = 0;
}

/* The start of /proc/PID/NAME (PID 0: self) into BUF, NUL-terminated;
   0 when it cannot be read. */
static int
read_proc (int pid, const char *name, char *buf, size_t cap)
{
  char path[64];
  if (pid)
    snprintf (path, sizeof path, "/proc/%d/%s", pid, name);
  else
    snprintf (path, sizeof path, "/proc/self/%s", name);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read (fd, buf, cap - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = 0;
  return 1;
}

/* Resident bytes from /proc/PID/statm, or 0 when it cannot be read or is
   not plausible (above the machine's memory). */
static uint64_t
rss_bytes (int pid)
{
  char buf[128];
  if (!read_proc (pid, "statm", buf, sizeof buf))
    return 0;
  unsigned long long size, resident;
  if (sscanf (buf, "%llu %llu", &size, &resident) != 2)
    return 0;
  long page = sysconf (_SC_PAGESIZE);
  struct sysinfo si;
  if (page <= 0 || sysinfo (&si) != 0)
    return 0;
  uint64_t bytes = (uint64_t)resident * (uint64_t)page;
  uint64_t total = (uint64_t)si.totalram * si.mem_unit;
  return resident && bytes <= total ? bytes : 0;
}

static uint64_t
tv_ns (struct timeval tv)
{
  return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* User and system time of process PID from /proc/PID/stat (fields 14
   and 15, clock ticks) into RU; 0 when they cannot be read. */
static int
other_cpu (int pid, struct rusage *ru)
{
  char buf[1024];
  long tick = sysconf (_SC_CLK_TCK);
  if (tick <= 0 || !read_proc (pid, "stat", buf, sizeof buf))
    return 0;
  /* The command name (field 2) is in parentheses and may hold any byte:
     the fields are counted from the last ')'. */
  const char *p = strrchr (buf, ')');
  unsigned long long ut, st;
  if (!p || sscanf (p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2
      || ut > UINT64_MAX / 1000000000u || st > UINT64_MAX / 1000000000u)
    return 0;
  uint64_t uns = ut * 1000000000u / (uint64_t)tick, sns = st * 1000000000u / (uint64_t)tick;
  ru->ru_utime.tv_sec = (time_t)(uns / 1000000000u);
  ru->ru_utime.tv_usec = (suseconds_t)(uns % 1000000000u / 1000u);
  ru->ru_stime.tv_sec = (time_t)(sns / 1000000000u);
  ru->ru_stime.tv_usec = (suseconds_t)(sns % 1000000000u / 1000u);
  return 1;
}

void
emlat_sampler_take (struct emlat_sampler *sm, uint64_t now)
{
  if (sm->npending == sm->cap)
    {
      size_t c = sm->cap ? 2 * sm->cap : 8;
      struct emlat_enc_sample *v = realloc (sm->pending, c * sizeof *v);
      if (!v)
        return; /* no memory: this sample is not taken */
      sm->pending = v;
      sm->cap = c;
    }
  struct emlat_enc_sample *s = &sm->pending[sm->npending];
  memset (s, 0, sizeof *s);
  s->t = now;
  /* Relaxed: see the declaration. */
  uint32_t fail = atomic_load_explicit (&emlat_sample_fail_mask, memory_order_relaxed);
  uint64_t rss = (fail & EMLAT_RES_RSS) ? 0 : rss_bytes (sm->pid);
  if (rss)
    {
      s->mask |= EMLAT_RES_RSS;
      s->v[0] = rss;
    }
  struct rusage ru;
  memset (&ru, 0, sizeof ru);
  int ru_ok = sm->pid ? other_cpu (sm->pid, &ru) : getrusage (RUSAGE_SELF, &ru) == 0;
  uint64_t user = ru_ok ? tv_ns (ru.ru_utime) : 0, sys = ru_ok ? tv_ns (ru.ru_stime) : 0;
  int user_ok = ru_ok && !(fail & EMLAT_RES_CPU_USER);
  int sys_ok = ru_ok && !(fail & EMLAT_RES_CPU_SYS);
  if (user_ok)
    {
      s->mask |= EMLAT_RES_CPU_USER;
      s->v[1] = user;
    }
  if (sys_ok)
    {
      s->mask |= EMLAT_RES_CPU_SYS;
      s->v[2] = sys;
    }
  /* The share needs both CPU readings now and at the previous sample, a
     window of nonzero length and CPU time that did not go backwards; it
     cannot exceed every core of the machine. */
  int cpu_ok = user_ok && sys_ok;
  if (cpu_ok && sm->last_cpu_ok && now > sm->last_t && user + sys >= sm->last_cpu
      && !(fail & EMLAT_RES_CPU_SHARE))
    {
      uint64_t share = (uint64_t)((double)(user + sys - sm->last_cpu) * 1e6
                                  / (double)(now - sm->last_t));
      long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
      if (ncpu > 0 && share <= (uint64_t)ncpu * 1000000u)
        {
          s->mask |= EMLAT_RES_CPU_SHARE;
          s->v[3] = share;
        }
    }
  if (ru_ok && !sm->pid && !(fail & EMLAT_RES_VCSW) && ru.ru_nvcsw >= 0)
    {
      s->mask |= EMLAT_RES_VCSW;
      s->v[4] = (uint64_t)ru.ru_nvcsw;
    }
  if (ru_ok && !sm->pid && !(fail & EMLAT_RES_IVCSW) && ru.ru_nivcsw >= 0)
    {
      s->mask |= EMLAT_RES_IVCSW;
      s->v[5] = (uint64_t)ru.ru_nivcsw;
    }
  /* Another process that is gone (reaped) gives no sample at all: not a
     reading that failed field by field. */
  if (sm->pid && !s->mask)
    return;
  /* Fields read and refused (the share of a baseline is not a reading). */
  uint32_t tried = sm->last_cpu_ok ? EMLAT_RES_MASK_ALL : EMLAT_RES_MASK_ALL & ~EMLAT_RES_CPU_SHARE;
  if (sm->pid)
    tried &= ~(uint32_t)(EMLAT_RES_VCSW | EMLAT_RES_IVCSW);
  sm->failed_fields += (uint64_t)__builtin_popcount (tried & ~s->mask);
  sm->last_t = now;
  sm->last_cpu = user + sys;
  sm->last_cpu_ok = cpu_ok;
  sm->npending++;
  sm->taken++;
}

int
emlat_sampler_due (const struct emlat_sampler *sm, uint64_t now, int passing)
{
  if (sm->last_t == 0)
    return 0; /* the baseline is taken at start */
  if (sm->interval_ns)
    return now - sm->last_t >= sm->interval_ns;
  return passing && now - sm->last_t >= sm->min_gap_ns;
}

uint64_t
emlat_sampler_timeout (const struct emlat_sampler *sm, uint64_t now)
{
  if (!sm->interval_ns || sm->last_t == 0)
    return 0;
  uint64_t next = sm->last_t + sm->interval_ns;
  return next > now ? next - now : 1;
}

int
emlat_sampler_encode (struct emlat_session *s, int final)
{
  struct emlat_sampler *sm = &s->sampler;
  if (s->recovering)
    return 0; /* a reader would sample itself, not the dead process */
  uint64_t now = emlat_clock_now ();
  if (final || emlat_sampler_due (sm, now, 1))
    emlat_sampler_take (sm, now);
  if (!sm->npending)
    return 0;
  struct emlat_cb cb;
  emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_RESOURCE, sm->pending[0].t, 0);
  int rc = 0;
  for (size_t i = 0; i < sm->npending && rc == 0; i++)
    rc = emlat_enc_sample (&cb, &sm->pending[i]);
  if (rc == 0)
    rc = emlat_cb_finish (&cb, &s->chunks, 0);
  sm->npending = 0;
  return rc;
}

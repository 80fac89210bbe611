/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysinfo.c -- the SESSION entries that libemlat writes by itself
 * (FORMAT.md 8.1): writer version, clock identity and cost, OS and CPU
 * identity, process id, the session's sizes, the privacy policy.
 *
 * Privacy invariant (F-61): nothing here reads the environment, a terminal
 * device, a file name or a path of the user; /proc/cpuinfo contributes only
 * the processor's model name, uname only sysname/release/machine (not the
 * node name), the executable only its base name and build id.  Under a
 * driver the CPU's entries are the driver's reading of the same sources
 * (machine.h: EMLAT_MACHINE, checked by emlat_start).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/machine.h"
#include "format/format.h"
#include "record/buildid.h"
#include "record/session.h"

int emlat_meta_key_ok (const char *key);
int emlat_meta_push (struct emlat_meta_kv **kv, size_t *n, size_t *cap, const char *key, int type,
                     uint64_t u, int64_t i, const char *str, size_t len);
int emlat_sysinfo_meta (struct emlat_meta_kv **kv, size_t *n, size_t *cap,
                        const struct emlat_session *s);

int
emlat_meta_key_ok (const char *key)
{
  size_t n = strlen (key);
  if (n == 0 || n > EMLAT_KEY_MAX)
    return 0;
  for (size_t i = 0; i < n; i++)
    {
      char c = key[i];
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
        return 0;
    }
  return 1;
}

int
emlat_meta_push (struct emlat_meta_kv **kv, size_t *n, size_t *cap, const char *key, int type,
                 uint64_t u, int64_t i, const char *str, size_t len)
{
  /* A later entry with the same key replaces the earlier one (F-60). */
  struct emlat_meta_kv *e = 0;
  for (size_t k = 0; k < *n; k++)
    if (strcmp ((*kv)[k].key, key) == 0)
      {
        e = &(*kv)[k];
        free (e->s);
        break;
      }
  if (!e)
    {
      if (*n == *cap)
        {
          /* 64 holds a start's own and its layer's entries (about 40):
             one allocation, no copy while the keys are pushed. */
          size_t c = *cap ? *cap * 2 : 64;
          struct emlat_meta_kv *v = realloc (*kv, c * sizeof *v);
          if (!v)
            return -1;
          *kv = v;
          *cap = c;
        }
      e = &(*kv)[(*n)++];
    }
  memset (e, 0, sizeof *e);
  /* A bounded copy (no formatting: one per SESSION entry at every start). */
  size_t key_len = strnlen (key, sizeof e->key - 1);
  memcpy (e->key, key, key_len);
  e->type = type;
  e->u = u;
  e->i = i;
  if (type == EMLAT_META_STR)
    {
      if (len > EMLAT_KV_STRING_MAX)
        len = EMLAT_KV_STRING_MAX;
      e->s = malloc (len ? len : 1);
      if (!e->s)
        return -1;
      memcpy (e->s, str, len);
      e->s_len = len;
    }
  return 0;
}

static int
push_str (struct emlat_meta_kv **kv, size_t *n, size_t *cap, const char *key, const char *v)
{
  return emlat_meta_push (kv, n, cap, key, EMLAT_META_STR, 0, 0, v, strlen (v));
}

static int
push_u (struct emlat_meta_kv **kv, size_t *n, size_t *cap, const char *key, uint64_t v)
{
  return emlat_meta_push (kv, n, cap, key, EMLAT_META_UINT, v, 0, 0, 0);
}

int
emlat_sysinfo_meta (struct emlat_meta_kv **kv, size_t *n, size_t *cap, const struct emlat_session *s)
{
  int rc = 0;
  rc |= push_str (kv, n, cap, "format.writer", "emlat " EMLAT_VERSION_STRING);
  rc |= push_str (kv, n, cap, "clock.id", emlat_clock_name ());
  rc |= push_u (kv, n, cap, "clock.resolution_ns", emlat_clock_resolution_ns ());
  rc |= push_u (kv, n, cap, "clock.read_cost_ns", emlat_clock_read_cost_ns ());
  rc |= push_str (kv, n, cap, "clock.via", emlat_clock_source ());
  rc |= push_u (kv, n, cap, "clock.includes_suspend", 0);
  rc |= push_str (kv, n, cap, "clock.thread_cpu", "CLOCK_THREAD_CPUTIME_ID");
  struct utsname u;
  if (uname (&u) == 0)
    {
      rc |= push_str (kv, n, cap, "os.sysname", u.sysname);
      rc |= push_str (kv, n, cap, "os.release", u.release);
      rc |= push_str (kv, n, cap, "os.machine", u.machine);
    }
  /* The CPU: as the driver read it on this machine, else read here. */
  struct emlat_machine here;
  const struct emlat_machine *m = &s->driver_machine;
  if (!s->have_driver_machine)
    {
      here.kernel_tsc = 0; /* not asked: the clock decided it */
      here.cpus = emlat_machine_cpus ();
      emlat_machine_model (here.model, sizeof here.model);
      m = &here;
    }
  if (m->model[0])
    rc |= push_str (kv, n, cap, "cpu.model", m->model);
  if (m->cpus > 0)
    rc |= push_u (kv, n, cap, "cpu.count", (uint64_t)m->cpus);
  rc |= push_u (kv, n, cap, "process.pid", (uint64_t)getpid ());
  /* Identity of the executable (DESIGN.md section 11.5): its base name
     (the privacy rule allows it, F-61) and its GNU build id, from the
     mapped notes -- no file opened, no path kept. */
  rc |= push_str (kv, n, cap, "process.executable", program_invocation_short_name);
  uint8_t id[EMLAT_BUILD_ID_MAX];
  size_t idn = emlat_exe_build_id (id);
  if (idn)
    {
      char hex[2 * EMLAT_BUILD_ID_MAX + 1];
      emlat_hex (id, idn, hex);
      rc |= push_str (kv, n, cap, "process.build_id", hex);
    }
  rc |= push_u (kv, n, cap, "profiler.ring_slots", s->ring_slots);
  rc |= push_u (kv, n, cap, "profiler.max_threads", s->max_threads);
  rc |= push_u (kv, n, cap, "profiler.chunk_bytes", s->chunk_bytes);
  rc |= push_u (kv, n, cap, "profiler.rotate_bytes", s->rotate_bytes);
  rc |= push_u (kv, n, cap, "profiler.drain_interval_us", s->drain_us);
  rc |= push_u (kv, n, cap, "profiler.stats_interval_ms", s->stats_ms);
  rc |= push_str (kv, n, cap, "privacy.policy", "default");
  return rc ? -1 : 0;
}

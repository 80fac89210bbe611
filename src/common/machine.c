/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * machine.c -- the machine's facts a session records (machine.h): read
 * here, or handed down by a driver in EMLAT_MACHINE and checked.
 *
 * Invariants: emlat_machine_parse accepts exactly the grammar of
 * machine.h and leaves its output untouched otherwise; what
 * emlat_machine_format writes, emlat_machine_parse reads back the same.
 */
#include "common/machine.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int
emlat_machine_kernel_tsc (void)
{
  long fd = syscall (SYS_openat, AT_FDCWD,
                     "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                     O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buf[16];
  long n = syscall (SYS_read, (int)fd, buf, sizeof buf);
  syscall (SYS_close, (int)fd);
  return n == 4 && memcmp (buf, "tsc\n", 4) == 0;
}

long
emlat_machine_cpus (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 && n <= EMLAT_MACHINE_CPUS_MAX ? n : 0;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
/* 1 when CPUID leaf 1 says a hypervisor runs this CPU (ECX bit 31), from
   the copy glibc took at its start: no CPUID instruction of ours.  The
   leaf is read directly: the header's CPU_FEATURE_PRESENT shifts a signed
   1 by the bit number, undefined for bit 31. */
static int
under_hypervisor (void)
{
  const struct cpuid_feature *leaf = __x86_get_cpuid_feature_leaf (CPUID_INDEX_1);
  return leaf && (leaf->cpuid_array[cpuid_register_index_ecx] >> 31) & 1u;
}
#else
static int under_hypervisor (void) { return 0; }
#endif

/* The processor's brand string (CPUID leaves 0x80000002..4, what the
   kernel shows as "model name"), trimmed, into OUT; 0 when there is none,
   or when a hypervisor runs this CPU: there each CPUID is a trip out of
   the guest (about 8 us each on a nested guest, 2026-12-03), and
   /proc/cpuinfo's model name costs less than the four (docs/PERFORMANCE.md). */
static int
cpu_brand (char *out, size_t cap)
{
  unsigned r[12], a, b, c, d;
  if (cap < 49 || under_hypervisor ())
    return 0;
  __cpuid (0x80000000u, a, b, c, d);
  if (a < 0x80000004u)
    return 0;
  for (unsigned leaf = 0; leaf < 3; leaf++)
    __cpuid (0x80000002u + leaf, r[4 * leaf], r[4 * leaf + 1], r[4 * leaf + 2], r[4 * leaf + 3]);
  char s[49];
  memcpy (s, r, 48);
  s[48] = 0;
  char *p = s;
  while (*p == ' ')
    p++;
  size_t len = strlen (p);
  while (len && p[len - 1] == ' ')
    len--;
  memcpy (out, p, len);
  out[len] = 0;
  return len > 0;
}
#else
static int cpu_brand (char *out, size_t cap) { (void)out; (void)cap; return 0; }
#endif

void
emlat_machine_model (char *out, size_t cap)
{
  out[0] = 0;
  if (cpu_brand (out, cap))
    return;
  FILE *f = fopen ("/proc/cpuinfo", "re");
  if (!f)
    return;
  char line[512];
  while (fgets (line, sizeof line, f))
    {
      if (strncmp (line, "model name", 10) != 0)
        continue;
      char *colon = strchr (line, ':');
      if (!colon)
        continue;
      colon++;
      while (*colon == ' ' || *colon == '\t')
        colon++;
      size_t len = strcspn (colon, "\n");
      if (len >= cap)
        len = cap - 1;
      memcpy (out, colon, len);
      out[len] = 0;
      break;
    }
  fclose (f);
}

void
emlat_machine_read (struct emlat_machine *m)
{
  m->kernel_tsc = emlat_machine_kernel_tsc ();
  m->cpus = emlat_machine_cpus ();
  emlat_machine_model (m->model, sizeof m->model);
}

int
emlat_machine_format (const struct emlat_machine *m, char *buf, size_t cap)
{
  int n = snprintf (buf, cap, "tsc=%d;cpus=%ld;model=%s", m->kernel_tsc ? 1 : 0,
                    m->cpus, m->model);
  return n < 0 || (size_t)n >= cap ? -1 : n;
}

/* "KEY=" at *P: moves *P past it. */
static int
take_key (const char **p, const char *key)
{
  size_t n = strlen (key);
  if (strncmp (*p, key, n) != 0)
    return 0;
  *p += n;
  return 1;
}

int
emlat_machine_parse (const char *v, struct emlat_machine *m)
{
  if (!v)
    return -1;
  const char *p = v;
  if (!take_key (&p, "tsc=") || (*p != '0' && *p != '1') || p[1] != ';')
    return -1;
  int tsc = *p == '1';
  p += 2;
  if (!take_key (&p, "cpus=") || *p < '1' || *p > '9')
    return -1;
  long cpus = 0;
  while (*p >= '0' && *p <= '9')
    {
      cpus = cpus * 10 + (*p++ - '0');
      if (cpus > EMLAT_MACHINE_CPUS_MAX)
        return -1;
    }
  if (*p != ';')
    return -1;
  p++;
  if (!take_key (&p, "model="))
    return -1;
  size_t len = strlen (p);
  if (len > EMLAT_MACHINE_MODEL_MAX)
    return -1;
  for (size_t i = 0; i < len; i++)
    if (p[i] < 0x20 || p[i] > 0x7e)
      return -1;
  m->kernel_tsc = tsc;
  m->cpus = cpus;
  memcpy (m->model, p, len);
  m->model[len] = 0;
  return 0;
}

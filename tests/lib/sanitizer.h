/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sanitizer.h -- what a test needs to know about the sanitizer it was
 * built with: TU_ASAN (1 in an AddressSanitizer build) and where the
 * shared ASan runtime is, for tests that run real programs with the
 * instrumented libemlat-tty.so preloaded (Debian's programs do not carry
 * the runtime: it is preloaded before them, with ASAN_OPTIONS
 * verify_asan_link_order=0:detect_leaks=0).
 *
 * Invariants: header only; nothing here measures time.
 */
#ifndef EMLAT_TEST_SANITIZER_H
#define EMLAT_TEST_SANITIZER_H

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define TU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_ASAN 1
#endif
#endif
#ifndef TU_ASAN
#define TU_ASAN 0
#endif

/* What ASAN_OPTIONS holds when a real program runs with the runtime
   preloaded. */
#define TU_ASAN_PRELOAD_OPTIONS "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0"

/* The shared ASan runtime of the clang that built this test ($CLANG or
   clang), heap; NULL when not found. */
static inline char *tu_asan_runtime (void)
{
  const char *clang = getenv ("CLANG");
  char *cmd = tu_strf ("%s -print-file-name=libclang_rt.asan-x86_64.so",
                       clang && *clang ? clang : "clang");
  FILE *f = popen (cmd, "r");
  free (cmd);
  if (!f)
    return NULL;
  char buf[4096];
  char *line = fgets (buf, sizeof buf, f);
  pclose (f);
  if (!line)
    return NULL;
  buf[strcspn (buf, "\n")] = 0;
  if (buf[0] != '/' || access (buf, R_OK) != 0)
    return NULL;
  return strdup (buf);
}

/* The program interpreter (PT_INTERP) of this test binary: a program
   started as "INTERP --preload RUNTIME PROGRAM ..." gets the runtime
   without an LD_PRELOAD that its parent (an instrumented emlat) would see
   too. */
static int tu_interp_cb (struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_INTERP)
      {
        *(const char **)data
          = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        return 1;
      }
  return 1; /* only the main program (the first object) */
}

static inline const char *tu_interp (void)
{
  const char *p = NULL;
  dl_iterate_phdr (tu_interp_cb, &p);
  return p;
}

#endif

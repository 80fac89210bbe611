/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * buildid.h -- the identity of loaded modules: the GNU build id of the
 * executable (SESSION process.build_id, DESIGN.md section 11.5) and of
 * the module holding an address (function tracing, fntrace.c), read from
 * the PT_NOTE segments the dynamic linker mapped (dl_iterate_phdr): no
 * file is opened, no path is kept.
 *
 * Setup time only (dl_iterate_phdr takes the loader's lock).
 */
#ifndef EMLAT_RECORD_BUILDID_H
#define EMLAT_RECORD_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes of a build id kept (SHA-1 ids are 20). */
#define EMLAT_BUILD_ID_MAX 32

struct emlat_module_id
{
  uintptr_t base;                 /* load address (dlpi_addr) */
  uintptr_t lo, hi;               /* the executable PT_LOAD range, absolute */
  uint8_t build_id[EMLAT_BUILD_ID_MAX];
  uint32_t build_id_len;          /* 0: the module has none */
  const char *path;               /* the loader's name ("" for the
                                     executable); not recorded */
};

/* The main executable's build id into ID (at most EMLAT_BUILD_ID_MAX
   bytes); returns its length, 0 when it has none. */
size_t emlat_exe_build_id (uint8_t *id);

/* Lower-case hex of ID[0..LEN) into OUT (2 * LEN + 1 bytes). */
void emlat_hex (const uint8_t *id, size_t len, char *out);

/* The module whose executable segment holds ADDR; 0 and *M filled, or -1. */
int emlat_module_of (const void *addr, struct emlat_module_id *m);

#endif /* EMLAT_RECORD_BUILDID_H */

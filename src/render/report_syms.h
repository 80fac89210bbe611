/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_syms.h -- names of traced functions (EVENT fn_enter / fn_exit,
 * FORMAT.md 6.9), found only when a profile is read, through libdw
 * (elfutils): a record carries its module -- the string "BASENAME
 * BUILD-ID" -- and the function's module-relative address.  The module's
 * file is the one given with --symbols whose GNU build id matches, else
 * the debug file /usr/lib/debug/.build-id/XX/REST.debug; the function is
 * the symbol that starts exactly at the address.  Anything not found is
 * shown as BASENAME+0xOFFSET, never dropped.
 *
 * Invariants: symbol names and module strings come from files: they are
 * copied with bounds; a lookup is cached per (module, address), so a
 * profile of millions of calls costs one libdw lookup per function.
 */
#ifndef EMLAT_RENDER_REPORT_SYMS_H
#define EMLAT_RENDER_REPORT_SYMS_H

#include <stddef.h>
#include <stdint.h>

#include "emlat/emlat_reader.h"

struct report_syms;

/* A symbolizer for P with the candidate files FILES[0..N) (may be 0);
   NULL only when out of memory. */
struct report_syms *report_syms_new (const struct emlat_profile *p, const char *const *files,
                                     size_t n);
/* The name of the function at OFFSET of module MODULE (a string id of
   P), valid until report_syms_free. */
const char *report_syms_name (struct report_syms *s, uint64_t module, uint64_t offset);
void report_syms_free (struct report_syms *s);

#endif /* EMLAT_RENDER_REPORT_SYMS_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hot.h -- EMLAT_HOT, the mark of a function on the recording path: the
 * producer calls, and in libemlat-tty.so the wrappers and the interaction
 * model's entry points a key runs.
 *
 * A marked function is placed in the section .text.hot.emlat, which the
 * linker's default script puts with the other hot code at the start of
 * .text: the code a key runs lies on as few pages as its size allows
 * instead of wherever its source file landed.  After an idle pause a key
 * finds the TLBs cold, and each page of code it touches costs a page walk
 * (docs/PERFORMANCE.md, "What a key touches": the library's code of a key
 * was on 7 pages).  The mark changes where a function is, not how it is
 * compiled (GCC's `hot` attribute would also optimise it differently).
 *
 * Invariants: mark only what runs on every recorded call or key, never a
 * start, stop or slow path (those stay out of the hot pages: a slow path
 * inside a marked function is kept out of line with `noinline, cold`).
 */
#ifndef EMLAT_COMMON_HOT_H
#define EMLAT_COMMON_HOT_H

#define EMLAT_HOT __attribute__ ((section (".text.hot.emlat")))

#endif /* EMLAT_COMMON_HOT_H */

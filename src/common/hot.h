/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hot.h -- EMLAT_HOT, the mark of a function a terminal key runs: in
 * libemlat-tty.so the descriptor wrappers, the interaction model's entry
 * points, and the producer calls they make (emlat_now, the interaction
 * begin, input batch and dense commit; the span calls are not marked).
 *
 * A marked function is placed in the section .text.hot.emlat, which the
 * linker's default script puts with the other hot code at the start of
 * .text: the code a key runs lies on 3 pages instead of the 7 its source
 * files spread it over (docs/PERFORMANCE.md, "What a key touches", which
 * also found no timed saving from it: pages turned out cheap on the
 * measuring machine).  The mark changes where a function is, not how it
 * is compiled (GCC's `hot` attribute would also optimise it differently).
 *
 * Invariants: mark only what runs on every recorded call or key, never a
 * start, stop or slow path (those stay out of the hot pages: a slow path
 * inside a marked function is kept out of line with `noinline, cold`).
 */
#ifndef EMLAT_COMMON_HOT_H
#define EMLAT_COMMON_HOT_H

#define EMLAT_HOT __attribute__ ((section (".text.hot.emlat")))

#endif /* EMLAT_COMMON_HOT_H */

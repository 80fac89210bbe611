/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hot.h -- EMLAT_HOT, the mark of a function a terminal key runs: in
 * libemlat-tty.so the descriptor wrappers and their traced paths, the
 * call records' stores (tty_ix.c) and emlat_now.  The span calls and
 * the interaction calls of Emacs and the application API are not marked:
 * a terminal key does not run them.
 *
 * A marked function is placed in the section .text.hot.emlat, which the
 * linker's default script puts with the other hot code at the start of
 * .text: the code a key runs lies together instead of on the pages its
 * source files spread it over (docs/PERFORMANCE.md, "What a key touches", which
 * also found no timed saving from it: pages turned out cheap on the
 * measuring machine).  The mark changes where a function is, not how it
 * is compiled (GCC's `hot` attribute would also optimise it differently).
 *
 * EMLAT_HOT_RARE marks the hot code of the calls few terminal programs
 * make on a key (readv, writev, __read_chk, ppoll, epoll_wait and
 * epoll_pwait, the stdio streams' bookkeeping): libemlat-tty.so's link
 * (src/tty/hot.ld) starts .text.hot.emlat on a page of its own and puts
 * these after it, so that the code of a key of read, write, poll, select
 * or pselect lies on one page (tests/tty/test_tty_hot_page.sh checks it).
 *
 * EMLAT_BIG_BSS marks a large zero-initialised table that a session's
 * start does not touch (the epoll descriptors' tables, the CRC tables):
 * libemlat-tty.so's link puts these after every other zero-initialised
 * variable, so that the small ones a start touches (locks, once-words,
 * the clock's state) share a page or two instead of lying one to a page
 * between the tables: each page a start touches is a page fault, 11-14 us
 * on the machines of docs/PERFORMANCE.md ("A start's pages").  Elsewhere
 * the mark only names the section, which the default linker script puts
 * in .bss.
 *
 * Invariants: mark only what runs on every recorded call or key, never a
 * start, stop or slow path (those stay out of the hot pages: a slow path
 * inside a marked function is kept out of line with `noinline, cold`);
 * the EMLAT_HOT code of libemlat-tty.so fits in 4 KiB.
 */
#ifndef EMLAT_COMMON_HOT_H
#define EMLAT_COMMON_HOT_H

#define EMLAT_HOT __attribute__ ((section (".text.hot.emlat")))
#define EMLAT_HOT_RARE __attribute__ ((section (".text.hot.emlat.rare")))
#define EMLAT_BIG_BSS __attribute__ ((section (".bss.big.emlat")))

#endif /* EMLAT_COMMON_HOT_H */

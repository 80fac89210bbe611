/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_load.h -- load a profile for report, compare and export, with a
 * progress indicator on a terminal, and judge what reading it lost.
 *
 * Judgement (the same criteria as `emlat check`):
 *   usable    at least one file of the session has a valid header and no
 *             reader limit stopped the load;
 *   damaged   usable, but reading lost data: a file stopped before its end,
 *             invalid or skipped chunks, sequence gaps, a missing or
 *             repeated rotated file, files of another session, duplicate
 *             records.
 * Every problem is printed to stderr through emlat_cli_error, naming the
 * file and, when the reader gives one, the byte offset.
 */
#ifndef EMLAT_CLI_REPORT_LOAD_H
#define EMLAT_CLI_REPORT_LOAD_H

#include <stddef.h>

#include "emlat/emlat_reader.h"

/* Load PATHS[0..N) with FLAGS (emlat_profile_load).  When PROGRESS is
   nonzero and loading takes longer than 0.3 s, a one-line indicator on
   stderr shows the elapsed time and the bytes being read, and is erased
   when loading ends.  Returns 0 or a negative errno (see
   emlat_profile_load). */
int report_load (const char *const *paths, size_t n, unsigned flags, int progress,
                 struct emlat_profile **out);

/* 1 when P has a usable session (see above). */
int report_usable (const struct emlat_profile *p);
/* 1 when reading P lost data. */
int report_damaged (const struct emlat_profile *p);
/* Print every file error and damage of P to stderr (VERB names the verb). */
void report_print_problems (const struct emlat_profile *p, const char *verb);

#endif /* EMLAT_CLI_REPORT_LOAD_H */

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * load.h -- load a profile for check, report, compare and export (files
 * or standard input, "-"), with a progress indicator on a terminal, and
 * say what reading it lost.
 *
 * Whether a profile is usable or damaged is judged in the library
 * (emlat_report.h, "judge": the same criteria as `emlat check`), so
 * that the Emacs summary primitive judges it the same way.  Every problem
 * is printed to stderr through emlat_cli_error, naming the
 * file and, when the reader gives one, the byte offset.
 */
#ifndef EMLAT_CLI_LOAD_H
#define EMLAT_CLI_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "emlat/emlat_report.h"
#include "emlat/emlat_reader.h"

/* Load PATHS[0..N) with FLAGS (emlat_profile_load_inputs).  An operand
   "-" is standard input (cli_stdin_fd), streamed like a file.  When
   PROGRESS is nonzero and loading takes longer than 0.3 s, a one-line
   indicator on stderr shows the elapsed time and the bytes being read,
   and is erased when loading ends.  Returns 0 or a negative errno (see
   emlat_profile_load; that of standard input when it could not be
   read). */
int report_load (const char *const *paths, size_t n, unsigned flags, int progress,
                 struct emlat_profile **out);

/* report_load streaming the interactions (EMLAT_LOAD_STREAM): each is
   handed to FN with CTX as it becomes final (emlat_profile_load_each),
   none is kept.  FN runs on the loading thread; the caller reads what it
   built only after the return.  Returns as report_load, or FN's nonzero
   return. */
int report_load_each (const char *const *paths, size_t n, unsigned flags, emlat_interaction_fn fn,
                      void *ctx, int progress, struct emlat_profile **out);

/* PATH is the operand "-": standard input. */
int cli_is_stdin (const char *path);

/* Standard input as a regular file, the same descriptor for every call:
   standard input itself when it is a regular file (read from its current
   offset, never moved), else a private temporary file (in $TMPDIR,
   unlinked) holding its bytes -- its 64-byte file header first, the rest
   only when that header is a profile's, at most the reader's default
   max_file_bytes.  Returns the descriptor or a negative errno (-EFBIG
   past the limit). */
int cli_stdin_fd (void);

/* ERR (an errno) of reading PATH as a message, into BUF: a path the
   reader refused for its type (EISDIR, ENODEV: emlat reads regular files
   and, as -, standard input) says what it is ("is a FIFO, not a regular
   file (- reads standard input)"); any other error is strerror's text.
   Returns BUF. */
const char *cli_read_error (const char *path, int err, char *buf, size_t n);

/* Print every file error and damage of P to stderr; returns how many
   messages were printed. */
size_t report_print_problems (const struct emlat_profile *p);

/* report, export and compare: load PATHS[0..N) with FLAGS (report_load,
   with the indicator when stderr is a terminal), print every problem, and
   judge.  Returns 0 with *OUT a usable profile (damaged or not:
   emlat_report_damaged), or the exit code with *OUT NULL: EMLAT_EXIT_USAGE
   when nothing is usable (missing or unreadable files, not a profile, a
   reader limit), EMLAT_EXIT_FAIL when memory ran out; the reason is on
   stderr. */
int report_load_usable (const char *const *paths, size_t n, unsigned flags,
                        struct emlat_profile **out);
/* report_load_usable streaming the interactions to FN (report_load_each);
   FN's nonzero return (a negative errno) is reported as the load's error
   ("cannot load: ..."; EMLAT_EXIT_FAIL for -ENOMEM). */
int report_load_each_usable (const char *const *paths, size_t n, unsigned flags,
                             emlat_interaction_fn fn, void *ctx, struct emlat_profile **out);

#endif /* EMLAT_CLI_LOAD_H */

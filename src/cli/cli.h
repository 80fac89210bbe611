/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cli.h -- what the verbs of the `emlat` command share.
 *
 * Each verb lives in its own src/cli/cmd_<verb>.c and registers itself with
 * EMLAT_VERB; main.c dispatches on argv[1] and prints the verb list.  No
 * central table is edited to add a verb.
 *
 * Exit codes (README "Exit codes"): every verb returns EMLAT_EXIT_OK on
 * success, EMLAT_EXIT_USAGE (2) for invalid arguments or unusable input, and
 * documents its own meaning of 1.  Every error message names the file and,
 * where one applies, the byte offset: "emlat: FILE: offset N: what".
 */
#ifndef EMLAT_CLI_H
#define EMLAT_CLI_H

#include <stdint.h>
#include <stdio.h>

#define EMLAT_EXIT_OK 0
#define EMLAT_EXIT_FAIL 1
#define EMLAT_EXIT_USAGE 2

struct emlat_verb
{
  const char *name;
  const char *summary; /* one line for `emlat --help` */
  int (*run) (int argc, char **argv); /* argv[0] is the verb name */
  struct emlat_verb *next;
};

void emlat_verb_register (struct emlat_verb *v);
/* The registered verb called NAME, or NULL. */
const struct emlat_verb *emlat_verb_find (const char *name);
/* The registered verbs in name order: the first, then follow ->next. */
const struct emlat_verb *emlat_verb_first (void);
/* Run verb NAME with ARGV (used by `demo` to run `check` and `dump`). */
int emlat_verb_run (const char *name, int argc, char **argv);

#define EMLAT_VERB(ident, NAME, SUMMARY, FN)                                   \
  static struct emlat_verb ident = { NAME, SUMMARY, FN, 0 };                   \
  __attribute__ ((constructor)) static void ident##_register (void)            \
  {                                                                            \
    emlat_verb_register (&ident);                                              \
  }

/* "emlat: FILE: offset N: message\n" on stderr; OFFSET UINT64_MAX omits the
   offset part, FILE NULL omits the file part. */
void emlat_cli_error (const char *file, uint64_t offset, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* The session UUID U as 8-4-4-4-12 lower-case hex into OUT. */
void emlat_cli_uuid (const uint8_t u[16], char out[37]);

/* Print the standard --version line for VERB on stdout. */
void emlat_cli_version (const char *verb);

#endif /* EMLAT_CLI_H */

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cli.h -- what the verbs of the `emlat` command share.
 *
 * Each verb lives in its own src/cli/cmd_<verb>.c and registers itself with
 * EMLAT_VERB; main.c dispatches on argv[1], cmd_help.c prints the verb
 * list.  No central table is edited to add a verb.
 *
 * Exit codes (README "Exit codes"): every verb returns EMLAT_EXIT_OK on
 * success; EMLAT_EXIT_FAIL (1) for its own failure, which includes damaged
 * input whose readable part was processed (said on stderr), data skipped
 * because it could not be read, and a write error on an output; and
 * EMLAT_EXIT_USAGE (2) for invalid arguments, an unknown option, or
 * unusable input (a file that is missing, unreadable or not a profile, an
 * output file that cannot be created).
 *
 * Messages: one line on stderr, through emlat_cli_error, in one format:
 * "emlat: FILE: offset N: what", the FILE and offset parts only where they
 * apply ("line N" instead of "offset N" for a text input).  The verb's name
 * is never part of the message.
 *
 * Options (every verb): getopt_long with permutation, so options and
 * operands mix in any order and "--" ends the options; the option string
 * starts with ':' so that a missing value is told from an unknown option
 * ("-:" for record and replay, whose command follows "--": getopt returns
 * 1 for an operand before it).  emlat_verb_run sets opterr to 0, and a verb
 * hands any return it does not know to emlat_cli_bad_option.  Every verb
 * has -h/--help (usage on stdout, exit 0) and -V/--version (one line,
 * exit 0).  Numbers are parsed by emlat_cli_opt_u64 alone.
 */
#ifndef EMLAT_CLI_H
#define EMLAT_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

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

/* "emlat: FILE: line N: message\n": a position in a text input. */
void emlat_cli_error_line (const char *file, unsigned line, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* A usage error of VERB: "emlat: message (see emlat VERB --help)".
   Returns EMLAT_EXIT_USAGE. */
int emlat_cli_usage_error (const char *verb, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* The message for getopt_long's return C (':' a missing value, anything
   else an unknown option or a value given to an option that takes none),
   from optind, optopt and VERB's LONGOPTS.  Returns EMLAT_EXIT_USAGE. */
int emlat_cli_bad_option (const char *verb, int c, char *const argv[],
                          const struct option *longopts);

/* ARG as a whole number from MIN to MAX: decimal digits, or hexadecimal
   digits after "0x"; no sign, space or other text.  0, or -1 (and *OUT
   untouched). */
int emlat_cli_parse_u64 (const char *arg, uint64_t min, uint64_t max, uint64_t *out);

/* emlat_cli_parse_u64 of the value ARG of option OPT ("--rows", "-n") of
   VERB; on failure says "option 'OPT' wants a whole number from MIN to MAX,
   not 'ARG'" and returns -1. */
int emlat_cli_opt_u64 (const char *verb, const char *opt, const char *arg, uint64_t min,
                       uint64_t max, uint64_t *out);

/* Output files a verb writes (report --html, export -o, replay --tsv): a
   new file created with O_EXCL and O_NOFOLLOW, with MODE (exactly, not
   widened by the umask); with FORCE an existing regular file is replaced,
   never a symlink (ELOOP), a FIFO, a device or a directory.  Returns the
   stream, or NULL after printing "emlat: PATH: what" (the verb exits 2).
   *CREATED says whether a new file was made, for emlat_cli_discard. */
FILE *emlat_cli_create_output (const char *path, int force, mode_t mode, int *created);
/* After a failure: close F and remove PATH if this run created it. */
void emlat_cli_discard (FILE *f, const char *path, int created);
/* The profile of the program `emlat record` and `emlat replay --interpose`
   run: PATH created empty (O_EXCL, O_NOFOLLOW, mode 0600) for the program's
   recorder to write into (EMLAT_OPT_ADOPT_EMPTY), so that the program pays
   no file creation.  Returns 0 or a negative errno (-EEXIST: never
   replaced). */
int emlat_cli_reserve_profile (const char *path);

/* The terminal library to preload (tty_lib.c): EMLAT_TTY_LIB, else beside
   the binary, else ../lib.  0 with its path in OUT (N bytes), or -1; then
   emlat_cli_tty_lib_missing () says what is wrong. */
int emlat_cli_find_tty_lib (char *out, size_t n);
const char *emlat_cli_tty_lib_missing (void);
/* After the program exited: 1 when PATH holds a profile; when it is
   missing or still empty (nothing recorded into it: a statically linked
   program, or one that never started), 0, and the empty file is removed. */
int emlat_cli_profile_written (const char *path);
/* The permission bits of what a verb derives from the profile at PATH: the
   profile's own read and write bits (a private profile gives a private
   report), 0600 for standard input or a file that cannot be read. */
mode_t emlat_cli_output_mode (const char *path);

/* The usage line and verb list of `emlat --help` on F (cmd_help.c). */
void emlat_cli_print_usage (FILE *f);

/* Print the standard --version line for VERB on stdout. */
void emlat_cli_version (const char *verb);

#endif /* EMLAT_CLI_H */

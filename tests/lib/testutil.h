/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * testutil.h -- helpers many tests need: a private temporary directory,
 * whole-file read and write, paths of the build tree, and running a child
 * program with a timeout while capturing what it prints.
 *
 * Invariants: every helper either succeeds or reports through tap_fail and
 * returns an error value, never exits silently; a temporary directory made
 * by tu_tmpdir is removed with its contents when the test exits normally,
 * unless EMLAT_TEST_KEEP=1 is set (then its path is printed); a child run by
 * tu_run never outlives its timeout (it and its process group are killed
 * with SIGKILL).
 */
#ifndef EMLAT_TESTUTIL_H
#define EMLAT_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* A new directory (mode 0700) under $TMPDIR or /tmp, removed at exit.
   Returns its path (owned by testutil) or NULL after reporting a failure. */
const char *tu_tmpdir (void);

/* printf into a new heap string; aborts on allocation failure (tests only). */
char *tu_strf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Read all of PATH into a new buffer with a terminating NUL after the last
   byte (not counted in *LEN).  Returns 0 or a negative errno value. */
int tu_read_file (const char *path, uint8_t **buf, size_t *len);

/* Create or replace PATH with exactly LEN bytes of BUF.  0 or -errno. */
int tu_write_file (const char *path, const void *buf, size_t len);

/* The build directory ($BUILD, absolute or relative to the working
   directory; default "build") and a file inside it, e.g.
   tu_build_path ("emlat").  Heap strings. */
const char *tu_build_dir (void);
char *tu_build_path (const char *rel);

/* A child program to run.  ARGV[0] is looked up in PATH when it has no
   slash.  ENV_SET, if not NULL, is a NULL-terminated list of "NAME=VALUE"
   entries added to (or replacing in) the inherited environment. STDIN_DATA
   of STDIN_LEN bytes is written to the child's standard input, which is
   then closed (empty when STDIN_DATA is NULL). */
struct tu_cmd
{
  char *const *argv;
  char *const *env_set;
  const void *stdin_data;
  size_t stdin_len;
  unsigned timeout_ms; /* 0 selects 30000 */
};

/* What the child did.  OUT and ERR are NUL-terminated heap buffers. */
struct tu_result
{
  int exited;        /* nonzero: EXIT_CODE is valid */
  int exit_code;
  int signaled;      /* nonzero: TERM_SIGNAL is valid */
  int term_signal;
  int timed_out;     /* killed by tu_run because the timeout passed */
  char *out;
  size_t out_len;
  char *err;
  size_t err_len;
  uint64_t elapsed_ns;
};

/* Run CMD to completion or timeout.  Returns 0 when the child was started
   and reaped (whatever its status), or a negative errno value. */
int tu_run (const struct tu_cmd *cmd, struct tu_result *res);
void tu_result_free (struct tu_result *res);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tu_now_ns (void);

#endif /* EMLAT_TESTUTIL_H */

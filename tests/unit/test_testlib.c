/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_testlib.c -- the test helpers themselves (tests/lib): a check that
 * fails must be reported with its location and values and make the test
 * fail; a skip must exit 77; temporary directories, file helpers and child
 * processes must do what testutil.h promises, including killing a child
 * that outlives its timeout.
 *
 * Timing tolerance: the timeout check only asserts that a 60 s sleep is
 * stopped well before 60 s (under 20 s for a 300 ms timeout), which holds
 * on a loaded two-core machine.
 */
#include "tap.h"
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void
run_selftest (const char *mode, struct tu_result *r)
{
  char *prog = tu_build_path ("tests/progs/tap_selftest");
  char *argv[] = { prog, (char *)mode, NULL };
  struct tu_cmd cmd = { .argv = argv, .timeout_ms = 20000 };
  CHECK_OK (tu_run (&cmd, r));
  free (prog);
}

static void
test_tap_reports (void)
{
  struct tu_result r;
  run_selftest ("pass", &r);
  CHECK (r.exited && r.exit_code == 0, "passing selftest exit %d", r.exit_code);
  CHECK_CONTAINS (r.out, "0 failed");
  CHECK (!strstr (r.out, "FAIL"), "passing selftest printed FAIL:\n%s", r.out);
  tu_result_free (&r);

  run_selftest ("fail", &r);
  CHECK (r.exited && r.exit_code == 1, "failing selftest exit %d", r.exit_code);
  CHECK_CONTAINS (r.out, "tap_selftest.c:");
  CHECK_CONTAINS (r.out, "8 failed");
  /* Both values of each comparison are shown. */
  CHECK_CONTAINS (r.out, "left  18446744073709551615");
  CHECK_CONTAINS (r.out, "right 42");
  CHECK_CONTAINS (r.out, "left  -5");
  CHECK_CONTAINS (r.out, "fail ? 7u : 3u <= 4u");
  CHECK_CONTAINS (r.out, "\"alpha\\n\"");
  CHECK_CONTAINS (r.out, "\"beta\"");
  CHECK_CONTAINS (r.out, "first difference at offset 20");
  CHECK_CONTAINS (r.out, " ab");
  CHECK_CONTAINS (r.out, "contains \"thread\"");
  CHECK_CONTAINS (r.out, "arithmetic says 2");
  CHECK_CONTAINS (r.out, "returned -2 (No such file or directory)");
  /* The argument-evaluation checks hold in fail mode too. */
  CHECK (!strstr (r.out, "evaluated"), "an argument was evaluated twice:\n%s",
         r.out);
  tu_result_free (&r);

  run_selftest ("skip", &r);
  CHECK (r.exited && r.exit_code == TEST_SKIP_CODE, "skip exit %d",
         r.exit_code);
  CHECK_CONTAINS (r.out, "SKIP: no frobnicator on this machine");
  tu_result_free (&r);
}

static void
test_files (void)
{
  const char *dir = tu_tmpdir ();
  CHECK (dir != NULL, "tu_tmpdir failed");
  if (!dir)
    return;
  struct stat st;
  CHECK (stat (dir, &st) == 0 && S_ISDIR (st.st_mode), "%s is a directory",
         dir);
  CHECK_EQ_U64 (st.st_mode & 0777, 0700);
  const char *dir2 = tu_tmpdir ();
  CHECK (dir2 && strcmp (dir, dir2) != 0, "two tmpdirs are distinct");

  char *path = tu_strf ("%s/blob", dir);
  unsigned char data[70000];
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (unsigned char)(i * 7 + (i >> 8));
  CHECK_OK (tu_write_file (path, data, sizeof data));
  uint8_t *back;
  size_t len;
  CHECK_OK (tu_read_file (path, &back, &len));
  CHECK_EQ_U64 (len, sizeof data);
  if (len == sizeof data)
    CHECK_EQ_MEM (back, data, sizeof data);
  CHECK_EQ_U64 (back[len], 0);
  free (back);

  CHECK_OK (tu_write_file (path, "", 0));
  CHECK_OK (tu_read_file (path, &back, &len));
  CHECK_EQ_U64 (len, 0);
  CHECK (back != NULL && back[0] == 0, "empty file reads as \"\"");
  free (back);

  char *missing = tu_strf ("%s/missing", dir);
  CHECK_EQ_I64 (tu_read_file (missing, &back, &len), -2 /* -ENOENT */);
  CHECK (back == NULL && len == 0, "no buffer for a missing file");
  free (missing);
  free (path);
}

static void
test_run (void)
{
  struct tu_result r;
  char *sh_status[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
  CHECK_OK (tu_run (&(struct tu_cmd){ .argv = sh_status }, &r));
  CHECK (r.exited && r.exit_code == 3, "exit code %d", r.exit_code);
  CHECK_EQ_STR (r.out, "out\n");
  CHECK_EQ_STR (r.err, "err\n");
  CHECK (!r.timed_out, "no timeout");
  tu_result_free (&r);

  /* Standard input is delivered, and environment entries are replaced. */
  char *cat_env[] = { "sh", "-c", "cat; printf '%s' \"$TU_PROBE\"", NULL };
  char *env[] = { "TU_PROBE=replaced", NULL };
  setenv ("TU_PROBE", "original", 1);
  CHECK_OK (tu_run (&(struct tu_cmd){ .argv = cat_env, .env_set = env,
                                      .stdin_data = "typed\n",
                                      .stdin_len = 6 },
                    &r));
  CHECK_EQ_STR (r.out, "typed\nreplaced");
  tu_result_free (&r);

  /* Output larger than a pipe buffer on both streams does not deadlock. */
  char *big[] = { "sh", "-c",
                  "head -c 1000000 /dev/zero | tr '\\0' a; "
                  "head -c 300000 /dev/zero | tr '\\0' b >&2",
                  NULL };
  CHECK_OK (tu_run (&(struct tu_cmd){ .argv = big }, &r));
  CHECK_EQ_U64 (r.out_len, 1000000);
  CHECK_EQ_U64 (r.err_len, 300000);
  CHECK (r.out_len && r.out[0] == 'a' && r.out[r.out_len - 1] == 'a',
         "stdout content");
  tu_result_free (&r);

  /* A child that outlives its timeout is killed, with its own children. */
  char *hang[] = { "sh", "-c", "sleep 60 & sleep 60", NULL };
  CHECK_OK (tu_run (&(struct tu_cmd){ .argv = hang, .timeout_ms = 300 }, &r));
  CHECK (r.timed_out, "timed out");
  CHECK (r.signaled && r.term_signal == SIGKILL, "killed by SIGKILL");
  CHECK_LT_U64 (r.elapsed_ns, 20000000000u);
  CHECK_GE_U64 (r.elapsed_ns, 300000000u);
  tu_result_free (&r);

  /* A program that does not exist exits 127 with a message. */
  char *nothing[] = { "/nonexistent/emlat-no-such-program", NULL };
  CHECK_OK (tu_run (&(struct tu_cmd){ .argv = nothing }, &r));
  CHECK (r.exited && r.exit_code == 127, "exit %d", r.exit_code);
  CHECK_CONTAINS (r.err, "exec failed");
  tu_result_free (&r);
}

int
main (void)
{
  test_tap_reports ();
  test_files ();
  test_run ();
  TEST_DONE ();
}

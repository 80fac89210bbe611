/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_replay_terminal.c -- the driver behaves like a terminal.
 *
 *  - Start-up queries (tests/progs/pty_query.c asks like Emacs 28 under
 *    TERM=xterm*: DA2, then a cursor position report after moving to 5;10,
 *    then the text area size) get the documented answers, before the
 *    workload starts: no typed key is swallowed, every key is measured with
 *    output.
 *  - The window is the size given by --rows/--cols, and the resize
 *    workload changes it: the program sees SIGWINCH and each new size
 *    (tests/progs/pty_winch.c logs them), and each resize is one RESIZE
 *    interaction carrying WINDOW_ROWS/WINDOW_COLS and the external times.
 */
#include "replay_test.h"

static void queries (const char *dir)
{
  char *report = tu_strf ("%s/query.report", dir);
  char *prof = tu_strf ("%s/query.emlat", dir);
  char *script = tu_strf ("%s/q.script", dir);
  const char *text = "wait \"ready\"\nset gap 100ms\nkey a*4\n";
  CHECK_OK (tu_write_file (script, text, strlen (text)));
  char *prog = rt_prog ("pty_query");
  char *args[] = { "--script", script, "--rows", "30", "--cols", "100",
                   "-o", prof, "--", prog, report, NULL };
  struct tu_result r;
  if (rt_replay (args, 60000, &r))
    goto out;
  CHECK_EQ_I64 (r.exit_code, 0);
  CHECK_CONTAINS (r.out, "4 planned, 4 sent, 4 measured (4 quiet");
  CHECK_CONTAINS (r.out, "3 queries answered (DA1 0, DA2 1, DSR 0, CPR 1, window 1");
  uint8_t *b;
  size_t n;
  if (tu_read_file (report, &b, &n) == 0)
    {
      CHECK_EQ_STR ((char *)b, "da2=1;10;0\ncpr=5;10\nsize=30;100\nswallowed=0\n");
      free (b);
    }
  tu_result_free (&r);
out:
  free (prog);
  free (script);
  free (prof);
  free (report);
}

static void resizes (const char *dir)
{
  char *log = tu_strf ("%s/winch.log", dir);
  char *prof = tu_strf ("%s/winch.emlat", dir);
  char *prog = rt_prog ("pty_winch");
  char *args[] = { "--workload", "resize", "--keys", "4", "--rows", "30",
                   "--cols", "100", "-o", prof, "--", prog, log, NULL };
  /* The sizes the resize workload goes through from 30x100 (documented in
     docs/REPLAY.md; --print-script shows them). */
  static const unsigned want[4][2] = { { 26, 90 }, { 36, 120 }, { 27, 100 }, { 22, 70 } };
  struct tu_result r;
  if (rt_replay (args, 60000, &r))
    goto out;
  CHECK_EQ_I64 (r.exit_code, 0);
  CHECK_EQ_I64 (rt_count_before (r.out, "measured"), 4);
  uint8_t *b;
  size_t n;
  if (tu_read_file (log, &b, &n) == 0)
    {
      CHECK_EQ_STR ((char *)b, "size 26x90\nsize 36x120\nsize 27x100\nsize 22x70\n");
      free (b);
    }
  struct rt_profile v;
  if (rt_load (&v, prof) == 0)
    {
      CHECK_EQ_U64 (rt_count_kind (&v, EMLAT_ROOT_RESIZE), 4);
      for (size_t i = 0; i < v.n_ix && i < 4; i++)
        {
          const struct emlat_interaction *ix = &v.ix[i];
          CHECK_EQ_U64 (rt_counter (&v, ix, EMLAT_C_WINDOW_ROWS), want[i][0]);
          CHECK_EQ_U64 (rt_counter (&v, ix, EMLAT_C_WINDOW_COLS), want[i][1]);
          uint64_t s = rt_time (&v, ix, EMLAT_T_EXTERNAL_SEND);
          uint64_t f = rt_time (&v, ix, EMLAT_T_EXTERNAL_FIRST_OUTPUT);
          CHECK (s != UINT64_MAX && f != UINT64_MAX && f >= s,
                 "resize %zu: the program's answer is measured", i);
        }
      rt_free (&v);
    }
  tu_result_free (&r);
out:
  free (prog);
  free (prof);
  free (log);
}

int main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  queries (dir);
  resizes (dir);
  TEST_DONE ();
}

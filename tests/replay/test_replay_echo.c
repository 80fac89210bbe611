/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_replay_echo.c -- `emlat replay` measures what it should, against a
 * program with known timing (tests/progs/pty_echo.c).
 *
 * pty_echo answers every key after D = 40 ms with 300 bytes in 3 writes
 * 20 ms apart, so from outside: time to first output >= 40 ms and time to
 * quiescence (last byte before a 50 ms gap) >= 80 ms.  Upper bounds allow
 * 100 ms of scheduling noise on a loaded 2-core machine (a generous,
 * stated tolerance; this is not a performance test).
 *
 * Also: every keystroke sent is one interaction (root kind synthetic
 * command) with the external time fields and TTY_BYTES, the sends follow
 * the script's 150 ms schedule, the SESSION metadata names the workload and
 * settings, the --tsv file has one line per send, and a key whose output
 * is still flowing when the next key is sent is recorded as superseded,
 * without a quiescence time.
 */
#include "replay_test.h"

#define MS 1000000ull
#define TOL (100 * MS)

static void known_timing (const char *dir)
{
  char *script = tu_strf ("%s/echo.script", dir);
  char *profile = tu_strf ("%s/echo.emlat", dir);
  char *tsv = tu_strf ("%s/echo.tsv", dir);
  const char *text = "# pty_echo prints its banner, then answers each key\n"
                     "wait \"pty_echo ready\" timeout 5s\n"
                     "set gap 150ms\n"
                     "key a*8\n"
                     "paste \"hello\"\n"
                     "key C-x UP F5   # three more keys\n";
  CHECK_OK (tu_write_file (script, text, strlen (text)));
  char *prog = rt_prog ("pty_echo");
  char *args[] = { "--script", script, "-o", profile, "--tsv", tsv, "--",
                   prog, "-r", "-d", "40", "-n", "300", "-c", "3", "-g", "20",
                   NULL };
  struct tu_result res;
  if (rt_replay (args, 60000, &res))
    goto out;
  CHECK_EQ_I64 (res.exit_code, 0);
  CHECK_CONTAINS (res.out, "12 planned, 12 sent, 12 measured (12 quiet");
  CHECK_CONTAINS (res.out, "result:        completed");

  struct rt_profile v;
  if (rt_load (&v, profile) == 0)
    {
      CHECK_EQ_U64 (v.n_ix, 12);
      CHECK_EQ_U64 (rt_count_kind (&v, EMLAT_ROOT_SYNTHETIC_COMMAND), 12);
      uint64_t prev_send = 0, first_send = 0, nsent = 0;
      for (size_t i = 0; i < v.n_ix; i++)
        {
          const struct emlat_interaction *ix = &v.ix[i];
          uint64_t send = rt_time (&v, ix, EMLAT_T_EXTERNAL_SEND);
          uint64_t first = rt_time (&v, ix, EMLAT_T_EXTERNAL_FIRST_OUTPUT);
          uint64_t quiet = rt_time (&v, ix, EMLAT_T_EXTERNAL_QUIESCENT);
          enum emlat_quality q = 0;
          uint64_t t;
          CHECK (send != UINT64_MAX && first != UINT64_MAX && quiet != UINT64_MAX,
                 "interaction %zu has all three external times", i);
          if (send == UINT64_MAX || first == UINT64_MAX || quiet == UINT64_MAX)
            continue;
          CHECK_EQ_U64 (ix->status, EMLAT_STATUS_NORMAL);
          CHECK_GE_U64 (first - send, 40 * MS);
          CHECK_LE_U64 (first - send, 40 * MS + TOL);
          CHECK_GE_U64 (quiet - send, 80 * MS);
          CHECK_LE_U64 (quiet - send, 80 * MS + TOL);
          CHECK_EQ_U64 (rt_counter (&v, ix, EMLAT_C_TTY_BYTES), 300);
          CHECK (emlat_profile_ix_time (v.p, ix, EMLAT_T_EXTERNAL_SEND, &t, &q)
                   && q == EMLAT_Q_EXTERNAL,
                 "external quality, got %d", (int)q);
          if (prev_send)
            {
              /* The schedule is absolute: send k is due 150 ms after send
                 k - 1 was due, and goes late but never early.  So send k
                 comes at least 150 k ms after the first send, less that
                 one's lateness (under 100 ms), and at most 150 ms plus its
                 own lateness after the previous one.  (A bound of 140 ms
                 between two sends failed when the previous one was 12 ms
                 late on a loaded machine.) */
              CHECK_GE_U64 (send - first_send + 100 * MS, 150 * MS * nsent);
              CHECK_LE_U64 (send - prev_send, 150 * MS + TOL);
            }
          else
            first_send = send;
          prev_send = send;
          nsent++;
        }
      const struct emlat_kv *kv = rt_session (&v, "replay.workload");
      CHECK (kv && kv->type == 2 && kv->s_len == 6
               && memcmp (kv->s, "script", 6) == 0,
             "replay.workload is \"script\"");
      kv = rt_session (&v, "replay.keystrokes_planned");
      CHECK (kv && kv->u == 12, "replay.keystrokes_planned = 12");
      kv = rt_session (&v, "replay.rows");
      CHECK (kv && kv->u == 24, "replay.rows = 24");
      kv = rt_session (&v, "replay.term");
      CHECK (kv && kv->s_len == 14 && memcmp (kv->s, "xterm-256color", 14) == 0,
             "replay.term");
      rt_free (&v);
    }

  uint8_t *buf;
  size_t len, lines = 0;
  if (tu_read_file (tsv, &buf, &len) == 0)
    {
      for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
      CHECK_EQ_U64 (lines, 13); /* header + 12 */
      free (buf);
    }
  tu_result_free (&res);
out:
  free (prog);
  free (tsv);
  free (profile);
  free (script);
}

static void superseded (const char *dir)
{
  char *script = tu_strf ("%s/fast.script", dir);
  char *profile = tu_strf ("%s/fast.emlat", dir);
  /* Keys 100 ms apart; every answer is 3 writes 40 ms apart (each gap
     shorter than the 50 ms quiet gap), so quiescence would come at 130 ms,
     after the next key: the first five keys are superseded (one may escape
     when a send is more than 30 ms late), the last one goes quiet. */
  const char *text = "set gap 100ms\nkey b*6\n";
  CHECK_OK (tu_write_file (script, text, strlen (text)));
  char *prog = rt_prog ("pty_echo");
  char *args[] = { "--script", script, "-o", profile, "--", prog, "-n", "3",
                   "-c", "3", "-g", "40", NULL };
  struct tu_result res;
  if (rt_replay (args, 60000, &res))
    goto out;
  CHECK_EQ_I64 (res.exit_code, 0);
  CHECK_EQ_I64 (rt_count_before (res.out, "measured"), 6);
  CHECK_GE_U64 ((uint64_t)rt_count_before (res.out, "superseded"), 4);
  struct rt_profile v;
  if (rt_load (&v, profile) == 0)
    {
      size_t sup = 0;
      CHECK_EQ_U64 (v.n_ix, 6);
      for (size_t i = 0; i < v.n_ix; i++)
        if (v.ix[i].status == EMLAT_STATUS_SUPERSEDED)
          {
            sup++;
            CHECK_EQ_U64 (rt_time (&v, &v.ix[i], EMLAT_T_EXTERNAL_QUIESCENT),
                          UINT64_MAX);
          }
      CHECK_EQ_U64 (sup, (uint64_t)rt_count_before (res.out, "superseded"));
      rt_free (&v);
    }
  tu_result_free (&res);
out:
  free (prog);
  free (profile);
  free (script);
}

/* Keys that produce no output at all: measured as silent, and their
   profile interactions have neither a first-output nor a quiescence time
   (absent, never 0). */
static void silent (const char *dir)
{
  char *script = tu_strf ("%s/silent.script", dir);
  char *profile = tu_strf ("%s/silent.emlat", dir);
  const char *text = "set gap 120ms\nkey a*3\n";
  CHECK_OK (tu_write_file (script, text, strlen (text)));
  char *prog = rt_prog ("pty_echo");
  char *args[] = { "--script", script, "-o", profile, "--", prog, "-n", "0", NULL };
  struct tu_result res;
  if (rt_replay (args, 60000, &res))
    goto out;
  CHECK_EQ_I64 (res.exit_code, 0);
  struct rt_profile v;
  if (rt_load (&v, profile) == 0)
    {
      CHECK_EQ_U64 (v.n_ix, 3);
      for (size_t i = 0; i < v.n_ix; i++)
        {
          CHECK_EQ_U64 (rt_time (&v, &v.ix[i], EMLAT_T_EXTERNAL_FIRST_OUTPUT), UINT64_MAX);
          CHECK_EQ_U64 (rt_time (&v, &v.ix[i], EMLAT_T_EXTERNAL_QUIESCENT), UINT64_MAX);
          CHECK (rt_time (&v, &v.ix[i], EMLAT_T_EXTERNAL_SEND) != UINT64_MAX, "send time present");
        }
      rt_free (&v);
    }
  tu_result_free (&res);
out:
  free (prog);
  free (profile);
  free (script);
}

int main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  known_timing (dir);
  silent (dir);
  superseded (dir);
  TEST_DONE ();
}

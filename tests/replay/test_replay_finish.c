/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_replay_finish.c -- `emlat replay` finishes the profile its program
 * recorded itself (docs/REPLAY.md, "Phases of a
 * run"; DESIGN.md section 11.4): they run it with EMLAT_FINISH=reader, its
 * recorder leaves the last records in the ring file, and they write them
 * into its profile once it exited (emlat_recover_process).
 *
 * The program is tests/progs/autostart (EMLAT_AUTOSTART: three named
 * sections, the session stopped at exit), traced into a file of its own
 * by EMLAT_TRACE and EMLAT_FILE in the driver's environment, with an
 * EMLAT_FINISH=never there that the driver must replace.  After the
 * driver exited, the profile, read as it is (no recovery by this test),
 * holds the three sections, ends with the final STATS, and says
 * stats.recovered = 1: finished by the driver, not by the program, which
 * it reaped (stats.exit_code = 0).
 * Under `emlat replay` and `emlat record` (which also preloads its
 * interposition library) the program is also tests/progs/own_session,
 * which, like the profiled Emacs, starts a session into a file of its own
 * naming and defers its finish under EMLAT_FINISH: the same holds for that
 * file.  Under replay the driver drains it while it records (found by the
 * program's id: stats.writer_in_driver = 1); under record it does not (the
 * driver drains the interposition library's EMLAT_FILE session).
 * Under a wrapper (`emlat replay -- sh -c 'own_session FILE; ...'`) the
 * program is not the driver's child, so the driver would not find its
 * ring file: it finishes its profile itself (final STATS read as it is,
 * not stats.recovered).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_reader.h"
#include "replay_test.h"
#include "tap.h"
#include "testutil.h"

/* DRAINED: the expected stats.writer_in_driver (1: the driver drained the
   rings while the program ran, 0: the program's own writer did); EXIT_CODE:
   the program's exit status, which a driver that finished the profile
   wrote (autostart exits with 1 when it traced, own_session with 0). */
static void
check_finished (const char *path, const char *who, int by_driver, int drained, int exit_code)
{
  const char *paths[] = { path };
  struct emlat_profile *p = NULL;
  CHECK (emlat_profile_load (paths, 1, NULL, EMLAT_LOAD_NO_RECOVER, &p) == 0 && p,
         "%s: the program's profile loads", who);
  if (!p)
    return;
  size_t n = 0;
  emlat_profile_named_spans (p, &n);
  CHECK (n == 3, "%s: its three sections (%zu)", who, n);
  CHECK (emlat_profile_totals (p)->clean_stop, "%s: the final STATS", who);
  size_t nkv;
  const struct emlat_kv *kv = emlat_profile_stats (p, &nkv);
  const struct emlat_kv *rec = emlat_kv_find (kv, nkv, "stats.recovered");
  if (by_driver)
    CHECK (rec && rec->u == 1, "%s: finished by the driver (stats.recovered = %llu)", who,
           rec ? (unsigned long long)rec->u : 0ull);
  else
    CHECK (!rec || rec->u == 0, "%s: finished by the program itself (stats.recovered = %llu)",
           who, rec ? (unsigned long long)rec->u : 0ull);
  /* The driver reaped the program: how it ended (exit 0) is in the STATS
     it wrote; a profile the program finished itself says nothing. */
  const struct emlat_kv *code = emlat_kv_find (kv, nkv, "stats.exit_code");
  const struct emlat_kv *sig = emlat_kv_find (kv, nkv, "stats.exit_signal");
  if (by_driver)
    CHECK (code && code->u == (uint64_t)exit_code && !sig,
           "%s: stats.exit_code = %lld, expected %d (%s)", who,
           code ? (long long)code->u : -1ll, exit_code, sig ? "a signal" : "no signal");
  else
    CHECK (!code && !sig, "%s: no exit status in a profile the program finished", who);
  const struct emlat_kv *in_driver = emlat_kv_find (kv, nkv, "stats.writer_in_driver");
  uint64_t got = in_driver ? in_driver->u : 0;
  CHECK (got == (uint64_t)drained, "%s: stats.writer_in_driver = %llu, expected %d", who,
         (unsigned long long)got, drained);
  emlat_profile_free (p);
}

/* `emlat replay --script SCRIPT --settle-max 200ms -o DRIVER -- CMD...`
   with ENV set (may be NULL), then the program's profile OWN checked as
   check_finished does. */
static void
replay_and_check (const char *script, const char *driver, const char *const *cmd,
                  char *const *env, const char *own, const char *who, int by_driver,
                  int drained, int exit_code)
{
  char *argv[16] = { (char *)rt_emlat (), (char *)"replay", (char *)"--script", (char *)script,
                     (char *)"--settle-max", (char *)"200ms", (char *)"-o", (char *)driver,
                     (char *)"--" };
  size_t n = 9;
  for (size_t i = 0; cmd[i] && n < 15; i++)
    argv[n++] = (char *)cmd[i];
  struct tu_cmd c = { argv, env, NULL, 0, 30000 };
  struct tu_result res;
  CHECK_OK (tu_run (&c, &res));
  CHECK (!res.timed_out && res.exited, "%s: emlat replay ended (exit %d)", who, res.exit_code);
  check_finished (own, who, by_driver, drained, exit_code);
  tu_result_free (&res);
}

int
main (void)
{
  const char *tmp = tu_tmpdir ();
  if (!tmp)
    return 1;
  char *prog = rt_prog ("autostart");
  char *own_prog = rt_prog ("own_session");
  char *script = tu_strf ("%s/pause.script", tmp);
  FILE *f = fopen (script, "w");
  CHECK (f && fputs ("pause 10ms\n", f) >= 0 && fclose (f) == 0, "script written");

  /* A program started by emlat_start_from_env on EMLAT_FILE: its session
     is drained by the driver, found by the program's id. */
  char *own = tu_strf ("%s/replayed.emlat", tmp);
  char *drv = tu_strf ("%s/driver.emlat", tmp);
  char *env_own = tu_strf ("EMLAT_FILE=%s", own);
  char *const env[] = { (char *)"EMLAT_TRACE=1", env_own, (char *)"EMLAT_FINISH=never", NULL };
  const char *cmd1[] = { prog, NULL };
  replay_and_check (script, drv, cmd1, env, own, "replay", 1, 1, 1);

  /* emlat replay -- own_session FILE: a session on a profile of the
     program's naming, as a profiled Emacs's --latency-profile=FILE; the
     driver drains it, found by the program's id. */
  char *own4 = tu_strf ("%s/own-replayed.emlat", tmp);
  char *drv4 = tu_strf ("%s/driver4.emlat", tmp);
  const char *cmd4[] = { own_prog, own4, NULL };
  replay_and_check (script, drv4, cmd4, NULL, own4, "replay, own session", 1, 1, 0);

  /* emlat record */
  char *own2 = tu_strf ("%s/own.emlat", tmp);
  char *tty = tu_strf ("%s/recorded.tty.emlat", tmp);
  char *const env2[] = { (char *)"EMLAT_FINISH=never", NULL };
  char *const cargs[] = { (char *)rt_emlat (), (char *)"record", (char *)"-o", tty,
                          (char *)"--", own_prog, own2, NULL };
  struct tu_cmd cmd2 = { cargs, env2, NULL, 0, 30000 };
  struct tu_result res;
  CHECK_OK (tu_run (&cmd2, &res));
  CHECK (!res.timed_out && res.exited && res.exit_code == 0, "emlat record exited 0 (%d)",
         res.exit_code);
  /* record drains the interposition library's session (EMLAT_FILE), not
     this one: emlat_drain_requested () says 0, its own writer runs. */
  check_finished (own2, "record", 1, 0, 0);
  tu_result_free (&res);

  /* emlat replay -- sh -c 'own_session FILE; exit $?' */
  char *own3 = tu_strf ("%s/wrapped.emlat", tmp);
  char *drv3 = tu_strf ("%s/driver3.emlat", tmp);
  const char *cmd3[] = { "/bin/sh", "-c", "\"$0\" \"$1\"; exit $?", own_prog, own3, NULL };
  replay_and_check (script, drv3, cmd3, NULL, own3, "replay, under sh", 0, 0, 0);

  free (drv3);
  free (own3);
  free (tty);
  free (own2);
  free (drv4);
  free (own4);
  free (env_own);
  free (drv);
  free (own);
  free (script);
  free (own_prog);
  free (prog);
  TEST_DONE ();
}

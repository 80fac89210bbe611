/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_tty_busy.c -- a program busy on the CPU for a known time (300 ms)
 * while a key waits unread.  With the observer thread (EMLAT_OBSERVER=1)
 * the batch's first readable observation is the observer's, made soon after
 * the key arrived, so batch_ready_wait (read begin - input ready) is close
 * to the busy time; without it there is no readiness observation at all
 * (the program never polls), never an invented one.
 *
 * Tolerance (2 shared, noisy cores): ready wait within [150 ms, 600 ms].
 *
 * The observer's gate: with a budget of 0.0001 % of wall time
 * (EMLAT_OBSERVER_BUDGET) any observer is over it at its first check, one
 * second after it started; the program stays busy 1.5 s with the key
 * unread, so the observer is alive at that check.  The profile then holds
 * exactly one EVENT counter "tty.observer_gated" (its value: the
 * observer's CPU time, > 0) and says the budget in SESSION
 * (tty.observer_budget_ppm = 1); the program runs on and exits normally.
 */
#include "profile_view.h"
#include "pty_harness.h"

#define BUSY_MS 300

static void
run (int observer)
{
  const char *dir = tu_tmpdir ();
  char *file = tu_strf ("%s/busy%d.emlat", dir, observer);
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char ms[16];
  snprintf (ms, sizeof ms, "%d", BUSY_MS);
  char *argv[] = { probe, (char *)"busy", ms, NULL };
  struct ph_child c;
  if (ph_spawn (&c, argv,
                ph_trace_env (file, observer ? "EMLAT_OBSERVER=1" : NULL))
      != 0)
    return;
  ph_expect (&c, "READY", 5000);
  ph_send (&c, "g", 1);
  ph_expect (&c, "BUSY", 5000);
  uint64_t sent = tu_now_ns ();
  ph_send (&c, "x", 1);
  ph_expect (&c, "DONE", 5000);
  uint64_t done = tu_now_ns ();
  CHECK_EQ_I64 (ph_finish (&c, 10000), 0);
  TEST_DIAG ("observer %d: DONE %.1f ms after the key was sent", observer,
             (double)(done - sent) / 1e6);

  struct pv v;
  if (pv_load (&v, file) != 0)
    return;
  pv_print (&v);
  const struct pv_kv_check { const char *k; uint64_t u; } want
    = { "tty.observer", (uint64_t)observer };
  const struct emlat_kv *kv = pv_session (&v, want.k);
  CHECK (kv && kv->u == want.u, "SESSION %s = %llu", want.k,
         (unsigned long long)want.u);
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 2);
  const struct emlat_interaction *ix = pv_nth (&v, EMLAT_ROOT_TTY_COMMAND, 1);
  uint64_t ready = 0;
  enum emlat_quality q = 0;
  int have = pv_time (&v, ix, EMLAT_T_INPUT_READY, &ready, &q);
  if (observer)
    {
      CHECK (have, "the observer saw the key");
      CHECK_EQ_U64 (q, EMLAT_Q_OBSERVER_READY);
      uint64_t wait = pv_dur (&v, ix, EMLAT_T_INPUT_READY, EMLAT_T_READ_BEGIN);
      TEST_DIAG ("batch_ready_wait %.1f ms (busy %d ms)", (double)wait / 1e6,
                 BUSY_MS);
      CHECK_GE_U64 (wait, 150000000u);
      CHECK_LE_U64 (wait, 600000000u);
      /* One byte: the observation is also the latest arrival. */
      uint64_t latest = 0;
      CHECK (pv_time (&v, ix, EMLAT_T_INPUT_LATEST, &latest, &q), "latest");
      CHECK_EQ_U64 (latest, ready);
      CHECK_EQ_U64 (q, EMLAT_Q_OBSERVER_READY);
    }
  else
    CHECK (!have, "no readiness observation without a poll or observer");
  pv_free (&v);
  free (file);
  free (probe);
}

static void
gate (void)
{
  char *file = tu_strf ("%s/gate.emlat", tu_tmpdir ());
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char *argv[] = { probe, (char *)"busy", (char *)"1500", NULL };
  struct ph_child c;
  if (ph_spawn (&c, argv,
                ph_trace_env2 (file, "EMLAT_OBSERVER=1", "EMLAT_OBSERVER_BUDGET=0.0001"))
      != 0)
    return;
  ph_expect (&c, "READY", 5000);
  ph_send (&c, "g", 1);
  ph_expect (&c, "BUSY", 5000);
  ph_send (&c, "x", 1);
  ph_expect (&c, "DONE", 10000);
  CHECK_EQ_I64 (ph_finish (&c, 10000), 0);

  struct pv v;
  if (pv_load (&v, file) != 0)
    return;
  const struct emlat_kv *kv = pv_session (&v, "tty.observer_budget_ppm");
  CHECK (kv && kv->u == 1, "SESSION tty.observer_budget_ppm = 1");
  size_t n_ev = 0, gated = 0;
  const struct emlat_event *ev = emlat_profile_events (v.p, &n_ev);
  for (size_t i = 0; i < n_ev; i++)
    {
      size_t len = 0;
      const uint8_t *name = emlat_profile_string (v.p, ev[i].ev.name, &len);
      if (!name || len != strlen ("tty.observer_gated")
          || memcmp (name, "tty.observer_gated", len) != 0)
        continue;
      gated++;
      CHECK_EQ_U64 (ev[i].ev.tag, EMLAT_EV_COUNTER);
      CHECK (ev[i].ev.iv > 0, "the gated observer's CPU time %lld ns",
             (long long)ev[i].ev.iv);
      TEST_DIAG ("observer gated with %.3f ms of CPU", (double)ev[i].ev.iv / 1e6);
    }
  CHECK_EQ_U64 (gated, 1);
  /* The program's own interactions are all there. */
  CHECK_EQ_U64 (pv_count (&v, EMLAT_ROOT_TTY_COMMAND), 2);
  pv_free (&v);
  free (file);
  free (probe);
}

int
main (void)
{
  run (0);
  run (1);
  gate ();
  TEST_DONE ();
}

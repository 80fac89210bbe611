/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_run.c -- the event loop of `emlat replay` (see replay_run.h).
 *
 * Invariants:
 *  - CMD is never blocked by the driver: the master is non-blocking, it is
 *    read whenever readable, and bytes for CMD wait in a queue (written on
 *    POLLOUT) instead of blocking the loop.
 *  - The schedule is absolute (replay_script.h); a send's lateness is its
 *    write time minus its scheduled time.
 *  - Output timestamps are taken once per wake-up, right after ppoll
 *    returns, before the reads.
 *  - Every way out of the loop goes through CMD being reaped; the ladder
 *    ends in SIGKILL, so the loop terminates for any CMD that is not stuck
 *    in an uninterruptible sleep.
 */
#include "replay/replay_run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"

/* Set by the handler, read and cleared by the loop; the loop only sees it
   after ppoll returns, and sig_atomic_t needs no further ordering. */
static volatile sig_atomic_t got_stop_signal;

static void on_stop (int sig)
{
  (void)sig;
  got_stop_signal = 1;
}

static void on_child (int sig)
{
  (void)sig; /* only interrupts ppoll */
}

int replay_run_block_signals (void)
{
  sigset_t set;
  struct sigaction sa;
  sigemptyset (&set);
  sigaddset (&set, SIGCHLD);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGHUP);
  if (sigprocmask (SIG_BLOCK, &set, NULL))
    return -errno;
  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_handler = on_child;
  sa.sa_flags = SA_NOCLDSTOP;
  if (sigaction (SIGCHLD, &sa, NULL))
    return -errno;
  sa.sa_handler = on_stop;
  sa.sa_flags = 0;
  if (sigaction (SIGINT, &sa, NULL) || sigaction (SIGTERM, &sa, NULL)
      || sigaction (SIGHUP, &sa, NULL))
    return -errno;
  return 0;
}

/* Bytes waiting to be written to CMD, with the observations whose first
   byte is among them. */
struct mark
{
  size_t at; /* offset in the queue */
  long obs;
};

struct outq
{
  char *buf;
  size_t len, cap;
  struct mark *marks;
  size_t nmarks, mcap;
};

static int outq_push (struct outq *q, const char *p, size_t n, long obs)
{
  if (q->len + n > q->cap)
    {
      size_t cap = q->cap ? q->cap : 4096;
      while (cap < q->len + n)
        cap *= 2;
      char *b = realloc (q->buf, cap);
      if (!b)
        return -1;
      q->buf = b;
      q->cap = cap;
    }
  if (obs >= 0)
    {
      if (q->nmarks == q->mcap)
        {
          size_t mc = q->mcap ? q->mcap * 2 : 16;
          struct mark *mk = realloc (q->marks, mc * sizeof *mk);
          if (!mk)
            return -1;
          q->marks = mk;
          q->mcap = mc;
        }
      q->marks[q->nmarks++] = (struct mark){ q->len, obs };
    }
  memcpy (q->buf + q->len, p, n);
  q->len += n;
  return 0;
}

/* Write what the terminal accepts.  Returns 0, or -errno on a hard error. */
static int outq_flush (struct outq *q, int fd, struct replay_measure *m)
{
  while (q->len)
    {
      uint64_t t = emlat_now ();
      ssize_t w = write (fd, q->buf, q->len);
      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          if (errno == EAGAIN)
            return 0;
          return -errno;
        }
      size_t k = 0;
      for (size_t i = 0; i < q->nmarks; i++)
        {
          if (q->marks[i].at < (size_t)w)
            replay_measure_sent (m, q->marks[i].obs, t);
          else
            q->marks[k++] = (struct mark){ q->marks[i].at - (size_t)w,
                                           q->marks[i].obs };
        }
      q->nmarks = k;
      memmove (q->buf, q->buf + w, q->len - (size_t)w);
      q->len -= (size_t)w;
    }
  return 0;
}

enum phase { P_SETTLE, P_STEPS, P_DRAIN, P_LINGER, P_ENDING };

struct loop
{
  const struct replay_config *cfg;
  const struct replay_script *script;
  struct replay_pty *p;
  struct replay_term *t;
  struct replay_measure *m;
  struct replay_result *r;
  struct outq q;
  enum phase phase;
  size_t si;
  uint64_t sched;       /* scheduled start of step si */
  uint64_t last_out;    /* time of the last output (or the spawn) */
  uint64_t phase_start;
  uint64_t ladder_at;   /* next ladder action */
  int master_eof;
};

static uint64_t min64 (uint64_t a, uint64_t b)
{
  return a < b ? a : b;
}

static void ladder (struct loop *L, enum replay_action a, uint64_t now)
{
  L->phase = P_ENDING;
  L->r->action = a;
  switch (a)
    {
    case REPLAY_ACT_HANGUP:
      replay_pty_hangup (L->p);
      L->r->sent_hangup = 1;
      L->ladder_at = now + L->cfg->grace_ns;
      break;
    case REPLAY_ACT_TERM:
      replay_pty_signal (L->p, SIGTERM);
      L->r->sent_term = 1;
      L->ladder_at = now + L->cfg->grace_ns;
      break;
    case REPLAY_ACT_KILL:
      replay_pty_signal (L->p, SIGKILL);
      L->r->sent_kill = 1;
      L->ladder_at = UINT64_MAX;
      break;
    case REPLAY_ACT_NONE:
      break;
    }
}

/* Stop the workload early for WHY and go to SIGTERM. */
static void abort_run (struct loop *L, enum replay_why why, uint64_t now)
{
  if (L->phase == P_ENDING)
    return;
  L->r->why = why;
  L->r->failed_line = L->si < L->script->n ? L->script->steps[L->si].line : 0;
  replay_measure_finish (L->m, now);
  ladder (L, REPLAY_ACT_TERM, now);
}

static int send_step (struct loop *L, const struct replay_step *st, uint64_t now)
{
  char kb[REPLAY_KEY_MAX_BYTES];
  const char *bytes;
  size_t n;
  if (st->kind == REPLAY_STEP_RESIZE)
    {
      long i = replay_measure_begin (L->m, L->sched, 0, 1, st->rows, st->cols);
      uint64_t t = emlat_now ();
      int rc = replay_pty_resize (L->p, st->rows, st->cols);
      if (rc)
        return rc;
      replay_measure_sent (L->m, i, t);
      replay_term_resize (L->t, st->rows, st->cols);
      return 0;
    }
  if (st->kind == REPLAY_STEP_KEY)
    {
      n = replay_key_encode (&st->key, L->t->app_cursor, kb);
      bytes = kb;
    }
  else
    {
      n = st->len;
      bytes = st->data;
    }
  long i = replay_measure_begin (L->m, L->sched, (uint32_t)n, 0, 0, 0);
  if (i < 0 || outq_push (&L->q, bytes, n, i))
    return -ENOMEM;
  L->r->bytes_sent += n;
  (void)now;
  return outq_flush (&L->q, L->p->master, L->m);
}

/* Run steps that are due.  Returns when the loop must wake next. */
static uint64_t run_steps (struct loop *L, uint64_t now)
{
  const struct replay_script *s = L->script;
  while (L->si < s->n)
    {
      const struct replay_step *st = &s->steps[L->si];
      if (now < L->sched)
        return L->sched;
      switch (st->kind)
        {
        case REPLAY_STEP_TEXT:
        case REPLAY_STEP_KEY:
        case REPLAY_STEP_RESIZE:
          {
            int rc = send_step (L, st, now);
            if (rc)
              {
                L->r->io_errno = -rc;
                abort_run (L, REPLAY_END_IO_ERROR, now);
                return UINT64_MAX;
              }
            L->sched += st->after_ns;
            break;
          }
        case REPLAY_STEP_PAUSE:
          L->sched += st->after_ns;
          break;
        case REPLAY_STEP_WAIT_TEXT:
          if (!replay_term_seen (L->t, st->data, st->len))
            {
              if (now >= L->sched + st->timeout_ns)
                {
                  abort_run (L, REPLAY_END_WAIT_FAILED, now);
                  return UINT64_MAX;
                }
              return L->sched + st->timeout_ns;
            }
          replay_term_mark (L->t);
          L->sched = now;
          break;
        case REPLAY_STEP_WAIT_QUIET:
          {
            uint64_t from = L->last_out > L->sched ? L->last_out : L->sched;
            if (now < from + st->after_ns)
              {
                if (now >= L->sched + st->timeout_ns)
                  {
                    abort_run (L, REPLAY_END_WAIT_FAILED, now);
                    return UINT64_MAX;
                  }
                return min64 (from + st->after_ns, L->sched + st->timeout_ns);
              }
            replay_term_mark (L->t);
            L->sched = now;
            break;
          }
        default:
          break;
        }
      L->si++;
      L->r->steps_done = L->si;
      now = emlat_now ();
    }
  L->phase = P_DRAIN;
  L->phase_start = now;
  return now;
}

/* Read everything available; returns -1 when the terminal is gone. */
static int read_output (struct loop *L, uint64_t t, size_t limit)
{
  static char buf[65536];
  size_t total = 0;
  while (total < limit)
    {
      ssize_t n = read (L->p->master, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        return 0;
      if (n <= 0)
        return -1; /* EIO: no process has the slave open any more */
      total += (size_t)n;
      L->last_out = t;
      replay_measure_output (L->m, t, (size_t)n);
      replay_term_feed (L->t, buf, (size_t)n);
      if (L->t->answer_len)
        {
          if (outq_push (&L->q, L->t->answer, L->t->answer_len, -1) == 0)
            L->r->answer_bytes += L->t->answer_len;
          L->t->answer_len = 0;
        }
    }
  return 0;
}

/* Reap CMD if it exited, with its CPU times, after the configuration's
   before_reap.  Returns 1 when reaped. */
static int reap_cmd (struct loop *L)
{
  struct replay_result *r = L->r;
  if (L->cfg->before_reap)
    {
      siginfo_t si;
      si.si_pid = 0;
      if (waitid (P_PID, (id_t)L->p->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0
          || si.si_pid != L->p->pid)
        return 0; /* still running (or not ours: wait4 below says) */
      L->cfg->before_reap (L->cfg->before_reap_arg);
    }
  int st;
  struct rusage ru;
  pid_t w = wait4 (L->p->pid, &st, WNOHANG, &ru);
  if (w != L->p->pid)
    return 0;
  r->reaped = 1;
  r->wait_status = st;
  r->cmd_user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u
                   + (uint64_t)ru.ru_utime.tv_usec * 1000u;
  r->cmd_sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u
                  + (uint64_t)ru.ru_stime.tv_usec * 1000u;
  return 1;
}

/* CMD is gone: read what it left, and say so if it left before the
   workload was done. */
static void after_exit (struct loop *L, uint64_t now)
{
  if (L->p->master >= 0 && !L->master_eof)
    read_output (L, now, 1u << 20);
  if (L->phase < P_DRAIN)
    {
      L->r->why = REPLAY_END_CMD_EXITED;
      L->r->failed_line = L->si < L->script->n ? L->script->steps[L->si].line : 0;
    }
}

/* A stop signal, the deadline, or the next rung of the ladder. */
static void check_endings (struct loop *L, uint64_t now, uint64_t deadline)
{
  if (got_stop_signal)
    {
      got_stop_signal = 0;
      abort_run (L, REPLAY_END_INTERRUPTED, now);
    }
  if (L->phase != P_ENDING && now >= deadline)
    abort_run (L, REPLAY_END_TIMEOUT, now);
  if (L->phase == P_ENDING && now >= L->ladder_at)
    ladder (L, L->r->action == REPLAY_ACT_HANGUP ? REPLAY_ACT_TERM
                                                 : REPLAY_ACT_KILL, now);
}

/* Advance the phase machine at NOW.  Returns 1 when the phase changed and
   the loop must look again at once; else lowers *WAKE to when it must. */
static int advance_phase (struct loop *L, uint64_t now, uint64_t *wake)
{
  const struct replay_config *cfg = L->cfg;
  switch (L->phase)
    {
    case P_SETTLE:
      {
        uint64_t quiet_at = L->last_out + cfg->settle_ns;
        uint64_t give_up = L->phase_start + cfg->settle_max_ns;
        if (now >= quiet_at || now >= give_up)
          {
            L->r->settled = now >= quiet_at;
            L->phase = P_STEPS;
            L->sched = now;
            L->r->t_workload = now;
            return 1;
          }
        *wake = min64 (*wake, min64 (quiet_at, give_up));
        return 0;
      }
    case P_STEPS:
      *wake = min64 (*wake, run_steps (L, now));
      return L->phase != P_STEPS;
    case P_DRAIN:
      {
        const struct replay_measure *m = L->m;
        const int open_with_output = m->open && m->v[m->open - 1].t_first != 0;
        if ((now >= L->sched && !open_with_output)
            || now >= L->phase_start + cfg->drain_max_ns)
          {
            replay_measure_finish (L->m, now);
            L->phase = P_LINGER;
            L->phase_start = now;
            return 1;
          }
        *wake = min64 (*wake, open_with_output ? L->phase_start + cfg->drain_max_ns
                                               : L->sched);
        return 0;
      }
    case P_LINGER:
      if (now >= L->phase_start + cfg->linger_ns)
        {
          ladder (L, REPLAY_ACT_HANGUP, now);
          return 1;
        }
      *wake = min64 (*wake, L->phase_start + cfg->linger_ns);
      return 0;
    case P_ENDING:
      break;
    }
  return 0;
}

/* Sleep until WAKE (at most a second), the terminal's output or a signal;
   then read the output and write what waits for CMD. */
static void poll_terminal (struct loop *L, uint64_t now, uint64_t wake,
                           const sigset_t *unblocked)
{
  struct replay_pty *p = L->p;
  struct pollfd pfd = { -1, 0, 0 };
  if (p->master >= 0 && !L->master_eof)
    {
      pfd.fd = p->master;
      pfd.events = POLLIN | (L->q.len ? POLLOUT : 0);
    }
  uint64_t wait_ns = wake > now ? wake - now : 0;
  if (wait_ns > 1000000000ull)
    wait_ns = 1000000000ull; /* re-check the child at least every second */
  struct timespec ts = { (time_t)(wait_ns / 1000000000ull),
                         (long)(wait_ns % 1000000000ull) };
  int rc = ppoll (&pfd, 1, &ts, unblocked);
  uint64_t tw = emlat_now ();
  if (rc < 0 && errno != EINTR)
    {
      L->r->io_errno = errno;
      abort_run (L, REPLAY_END_IO_ERROR, tw);
      return;
    }
  if (rc <= 0 || pfd.fd < 0)
    return;
  if (pfd.revents & (POLLIN | POLLHUP | POLLERR))
    if (read_output (L, tw, 4u << 20) < 0)
      L->master_eof = 1;
  if (L->q.len && !L->master_eof && p->master >= 0)
    {
      int fr = outq_flush (&L->q, p->master, L->m);
      if (fr == -EIO)
        L->master_eof = 1;
      else if (fr < 0)
        {
          L->r->io_errno = -fr;
          abort_run (L, REPLAY_END_IO_ERROR, tw);
        }
    }
}

void replay_run (const struct replay_config *cfg,
                 const struct replay_script *script, struct replay_pty *p,
                 struct replay_term *t, struct replay_measure *m,
                 struct replay_result *r)
{
  struct loop L;
  sigset_t unblocked;
  uint64_t now = emlat_now ();
  const uint64_t deadline = now + cfg->timeout_ns;

  memset (r, 0, sizeof *r);
  memset (&L, 0, sizeof L);
  L.cfg = cfg;
  L.script = script;
  L.p = p;
  L.t = t;
  L.m = m;
  L.r = r;
  L.phase = P_SETTLE;
  L.phase_start = now;
  L.last_out = now;
  L.ladder_at = UINT64_MAX;
  r->why = REPLAY_END_COMPLETED;
  r->steps_total = script->n;
  r->t_spawn = now;
  /* Sub-millisecond wake-ups: the default 50 us timer slack would show up
     as send lateness. */
  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  sigprocmask (SIG_SETMASK, NULL, &unblocked);
  sigdelset (&unblocked, SIGCHLD);
  sigdelset (&unblocked, SIGINT);
  sigdelset (&unblocked, SIGTERM);
  sigdelset (&unblocked, SIGHUP);

  for (;;)
    {
      now = emlat_now ();
      if (r->reaped || reap_cmd (&L))
        {
          after_exit (&L, now);
          break;
        }
      check_endings (&L, now, deadline);
      uint64_t wake = min64 (L.ladder_at, L.phase == P_ENDING ? UINT64_MAX : deadline);
      wake = min64 (wake, replay_measure_tick (m, now));
      if (advance_phase (&L, now, &wake))
        continue;
      poll_terminal (&L, now, wake, &unblocked);
    }
  now = emlat_now ();
  replay_measure_finish (m, now);
  r->t_end = now;
  r->keys_sent = 0;
  for (size_t i = 0; i < m->n; i++)
    r->keys_sent += m->v[i].t_send != 0;
  free (L.q.buf);
  free (L.q.marks);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_measure.c -- external keystroke observations and their statistics
 * (see replay_measure.h for the definitions).
 *
 * Invariants: at most one observation is open; an observation's times only
 * grow (t_send <= t_first <= t_last); the profile gets EXTERNAL_SEND when the
 * first byte is written, EXTERNAL_FIRST_OUTPUT when the first output is
 * seen, and QUIESCENT, TTY_BYTES and the end when the observation closes.
 * An observation the run cut short is left open in the profile, which the
 * reader reports as incomplete.  Percentiles are nearest-rank.
 */
#include "replay/replay_measure.h"

#include <stdlib.h>
#include <string.h>

#include "emlat/emlat.h"

void replay_measure_init (struct replay_measure *m, uint64_t quiet_ns)
{
  memset (m, 0, sizeof *m);
  m->quiet_ns = quiet_ns;
}

void replay_measure_free (struct replay_measure *m)
{
  free (m->v);
  m->v = NULL;
  m->n = m->cap = 0;
}

static void close_obs (struct replay_measure *m, enum replay_obs_state st)
{
  struct replay_obs *o;
  if (!m->open)
    return;
  o = &m->v[m->open - 1];
  m->open = 0;
  o->state = (uint8_t)st;
  if (st == REPLAY_OBS_UNFINISHED)
    {
      emlat_ix_count (o->cause, EMLAT_C_TTY_BYTES, o->out_bytes);
      return;
    }
  emlat_ix_count (o->cause, EMLAT_C_TTY_BYTES, o->out_bytes);
  /* A send that produced no output has no quiescence time: absent, never 0
     (t_last is only set by output). */
  if (st == REPLAY_OBS_QUIET && o->t_first)
    emlat_ix_time (o->cause, EMLAT_T_EXTERNAL_QUIESCENT, o->t_last);
  emlat_ix_end (o->cause, st == REPLAY_OBS_SUPERSEDED ? EMLAT_STATUS_SUPERSEDED
                                                      : EMLAT_STATUS_NORMAL);
}

long replay_measure_begin (struct replay_measure *m, uint64_t t_sched,
                           uint32_t sent_bytes, int resize, unsigned rows,
                           unsigned cols)
{
  if (m->open)
    {
      const struct replay_obs *o = &m->v[m->open - 1];
      /* With output: the next send came before the quiet gap.  Without: the
         send produced nothing in its interval ("silent", status normal). */
      close_obs (m, o->t_first ? REPLAY_OBS_SUPERSEDED : REPLAY_OBS_QUIET);
    }
  if (m->n == m->cap)
    {
      size_t cap = m->cap ? m->cap * 2 : 256;
      struct replay_obs *v = realloc (m->v, cap * sizeof *v);
      if (!v)
        return -1;
      m->v = v;
      m->cap = cap;
    }
  struct replay_obs *o = &m->v[m->n];
  memset (o, 0, sizeof *o);
  o->t_sched = t_sched;
  o->sent_bytes = sent_bytes;
  o->resize = resize ? 1 : 0;
  o->rows = (uint16_t)rows;
  o->cols = (uint16_t)cols;
  o->state = REPLAY_OBS_OPEN;
  o->cause = emlat_ix_begin (resize ? EMLAT_ROOT_RESIZE
                                    : EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0);
  if (resize)
    {
      emlat_ix_count (o->cause, EMLAT_C_WINDOW_ROWS, rows);
      emlat_ix_count (o->cause, EMLAT_C_WINDOW_COLS, cols);
    }
  m->open = ++m->n;
  return (long)(m->n - 1);
}

void replay_measure_sent (struct replay_measure *m, long i, uint64_t t)
{
  struct replay_obs *o;
  if (i < 0 || (size_t)i >= m->n)
    return;
  o = &m->v[i];
  if (o->t_send)
    return;
  o->t_send = t;
  emlat_ix_time (o->cause, EMLAT_T_EXTERNAL_SEND, t);
}

void replay_measure_output (struct replay_measure *m, uint64_t t, size_t n)
{
  m->output_bytes += n;
  if (!m->open || !m->v[m->open - 1].t_send)
    {
      m->unattributed_bytes += n;
      return;
    }
  struct replay_obs *o = &m->v[m->open - 1];
  if (t < o->t_send)
    t = o->t_send;
  if (!o->t_first)
    {
      o->t_first = t;
      emlat_ix_time (o->cause, EMLAT_T_EXTERNAL_FIRST_OUTPUT, t);
    }
  o->t_last = t;
  o->out_bytes += n;
}

uint64_t replay_measure_tick (struct replay_measure *m, uint64_t now)
{
  if (!m->open)
    return UINT64_MAX;
  const struct replay_obs *o = &m->v[m->open - 1];
  if (!o->t_first)
    return UINT64_MAX;
  uint64_t due = o->t_last + m->quiet_ns;
  if (now >= due)
    {
      close_obs (m, REPLAY_OBS_QUIET);
      return UINT64_MAX;
    }
  return due;
}

void replay_measure_finish (struct replay_measure *m, uint64_t now)
{
  if (replay_measure_tick (m, now) == UINT64_MAX && !m->open)
    return;
  const struct replay_obs *o = &m->v[m->open - 1];
  /* A send that never produced output and was never superseded is a
     complete observation of silence only if it was actually sent. */
  close_obs (m, o->t_first || !o->t_send ? REPLAY_OBS_UNFINISHED
                                         : REPLAY_OBS_QUIET);
}

static int cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t rank (const uint64_t *v, size_t n, unsigned pct)
{
  size_t k = (n * pct + 99) / 100; /* nearest rank, 1-based */
  return v[k ? k - 1 : 0];
}

void replay_measure_dist (const struct replay_measure *m,
                          enum replay_metric which, struct replay_dist *d)
{
  memset (d, 0, sizeof *d);
  uint64_t *v = malloc ((m->n ? m->n : 1) * sizeof *v);
  if (!v)
    return;
  size_t k = 0;
  for (size_t i = 0; i < m->n; i++)
    {
      const struct replay_obs *o = &m->v[i];
      if (!o->t_send)
        continue;
      switch (which)
        {
        case REPLAY_M_FIRST:
          if (o->t_first)
            v[k++] = o->t_first - o->t_send;
          break;
        case REPLAY_M_QUIET:
          if (o->t_first && o->state == REPLAY_OBS_QUIET)
            v[k++] = o->t_last - o->t_send;
          break;
        case REPLAY_M_LATENESS:
          v[k++] = o->t_send > o->t_sched ? o->t_send - o->t_sched : 0;
          break;
        }
    }
  if (k)
    {
      qsort (v, k, sizeof *v, cmp_u64);
      d->n = k;
      d->min = v[0];
      d->max = v[k - 1];
      d->median = rank (v, k, 50);
      d->p90 = rank (v, k, 90);
      d->p99 = rank (v, k, 99);
    }
  free (v);
}

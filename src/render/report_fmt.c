/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_fmt.c -- durations, histograms, sparklines, bars and process ends
 * for the report renderers (see report_fmt.h).
 */
#include "render/report_fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *
report_fmt_dur (uint64_t ns, char buf[REPORT_DUR_LEN])
{
  static const struct
  {
    double scale;
    const char *unit;
  } units[] = { { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" } };
  if (ns < 1000)
    {
      snprintf (buf, REPORT_DUR_LEN, "%" PRIu64 "ns", ns);
      return buf;
    }
  for (unsigned i = 0; i < 3; i++)
    {
      double v = (double)ns / units[i].scale;
      /* Move on to the next unit when this one would print 1000 or more. */
      if (v >= 999.5 && i < 2)
        continue;
      if (v < 9.995)
        snprintf (buf, REPORT_DUR_LEN, "%.2f%s", v, units[i].unit);
      else if (v < 99.95)
        snprintf (buf, REPORT_DUR_LEN, "%.1f%s", v, units[i].unit);
      else
        snprintf (buf, REPORT_DUR_LEN, "%.0f%s", v, units[i].unit);
      return buf;
    }
  return buf;
}

const char *
report_fmt_sdur (int64_t ns, char buf[REPORT_DUR_LEN])
{
  char tmp[REPORT_DUR_LEN];
  if (ns == 0)
    snprintf (buf, REPORT_DUR_LEN, "0ns");
  else if (ns > 0)
    snprintf (buf, REPORT_DUR_LEN, "+%s", report_fmt_dur ((uint64_t)ns, tmp));
  else
    snprintf (buf, REPORT_DUR_LEN, "-%s", report_fmt_dur ((uint64_t)0 - (uint64_t)ns, tmp));
  return buf;
}

void
report_log_hist (const uint64_t *s, size_t n, unsigned nb, uint64_t *counts, double *edges)
{
  double lo = s[0] < 1 ? 1.0 : (double)s[0];
  double hi = (double)s[n - 1];
  if (hi < lo)
    hi = lo;
  double ratio = hi / lo;
  for (unsigned i = 0; i <= nb; i++)
    edges[i] = lo * pow (ratio, (double)i / nb);
  edges[nb] = hi;
  memset (counts, 0, nb * sizeof *counts);
  double lr = log (ratio);
  for (size_t i = 0; i < n; i++)
    {
      double v = (double)s[i];
      unsigned b = 0;
      if (lr > 0 && v > lo)
        {
          double f = log (v / lo) / lr * nb;
          b = f >= nb ? nb - 1 : (unsigned)f;
          /* log() rounding: keep the bucket consistent with the edges. */
          while (b > 0 && v < edges[b])
            b--;
          while (b + 1 < nb && v >= edges[b + 1])
            b++;
        }
      counts[b]++;
    }
}

void
report_sparkline (const uint64_t *counts, unsigned nb, int unicode, char *out)
{
  static const char *const ublocks[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584",
                                         "\u2585", "\u2586", "\u2587", "\u2588" };
  static const char ascii[] = " ._-=+*#@";
  uint64_t top = 0;
  for (unsigned i = 0; i < nb; i++)
    if (counts[i] > top)
      top = counts[i];
  size_t k = 0;
  for (unsigned i = 0; i < nb; i++)
    {
      unsigned level = 0;
      if (counts[i] && top)
        {
          level = (unsigned)((counts[i] * 8 + top - 1) / top);
          if (level < 1)
            level = 1;
          if (level > 8)
            level = 8;
        }
      if (unicode)
        {
          size_t l = strlen (ublocks[level]);
          memcpy (out + k, ublocks[level], l);
          k += l;
        }
      else
        out[k++] = ascii[level];
    }
  out[k] = 0;
}

void
report_bar (uint64_t value, uint64_t full, unsigned width, int unicode, char *out)
{
  static const char *const eighths[] = { "", "\u258f", "\u258e", "\u258d", "\u258c",
                                         "\u258b", "\u258a", "\u2589" };
  size_t k = 0;
  if (full == 0 || value == 0)
    {
      out[0] = 0;
      return;
    }
  if (value > full)
    value = full;
  uint64_t units = (uint64_t)((long double)value * width * 8 / (long double)full);
  if (units == 0)
    units = 1;
  if (unicode)
    {
      for (uint64_t i = 0; i < units / 8; i++)
        {
          memcpy (out + k, "\u2588", 3);
          k += 3;
        }
      size_t l = strlen (eighths[units % 8]);
      memcpy (out + k, eighths[units % 8], l);
      k += l;
    }
  else
    {
      uint64_t cols = (units + 4) / 8;
      if (cols == 0)
        cols = 1;
      for (uint64_t i = 0; i < cols; i++)
        out[k++] = '#';
    }
  out[k] = 0;
}

const char *
report_fmt_exit (int signal, int code, char buf[REPORT_EXIT_LEN])
{
  if (!signal)
    snprintf (buf, REPORT_EXIT_LEN, "exited with status %d", code);
  else
    {
      const char *name = sigabbrev_np (signal);
      if (name)
        snprintf (buf, REPORT_EXIT_LEN, "killed by SIG%s (signal %d)", name, signal);
      else
        snprintf (buf, REPORT_EXIT_LEN, "killed by signal %d", signal);
    }
  return buf;
}

const char *
report_fmt_ended (int known, int signal, int code, char buf[REPORT_ENDED_LEN])
{
  char how[REPORT_EXIT_LEN];
  if (!known)
    buf[0] = 0;
  else
    snprintf (buf, REPORT_ENDED_LEN, " (the program %s%s)", signal ? "was " : "",
              report_fmt_exit (signal, code, how));
  return buf;
}

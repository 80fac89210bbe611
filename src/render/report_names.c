/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_names.c -- names of the application API as the renderers show
 * them (report_names.h).
 */
#include "render/report_names.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

const char *
report_name_text (const struct emlat_profile *p, uint64_t id, char *buf, size_t n)
{
  size_t len;
  const uint8_t *s = id ? emlat_profile_string (p, id, &len) : NULL;
  if (n == 0)
    return buf;
  if (!id)
    buf[0] = 0;
  else if (!s)
    snprintf (buf, n, "#%" PRIu64, id);
  else
    {
      if (len > n - 1)
        len = n - 1;
      for (size_t i = 0; i < len; i++)
        buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
      buf[len] = 0;
    }
  return buf;
}

void
report_name_json (struct emlat_json *j, const struct emlat_profile *p, uint64_t id)
{
  size_t len;
  const uint8_t *s = id ? emlat_profile_string (p, id, &len) : NULL;
  if (!id)
    emlat_json_null (j);
  else if (s)
    emlat_json_strn (j, s, len);
  else
    {
      char b[24];
      snprintf (b, sizeof b, "#%" PRIu64, id);
      emlat_json_str (j, b);
    }
}

static int
cmp_pair (const void *a, const void *b)
{
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] > y[1]) - (x[1] < y[1]);
}

int
report_thread_names_build (const struct emlat_profile *p, struct report_thread_names *t)
{
  size_t ne;
  const struct emlat_event *e = emlat_profile_events (p, &ne);
  t->thread = t->name = NULL;
  t->n = 0;
  t->process = 0;
  size_t k = 0;
  for (size_t i = 0; i < ne; i++)
    if (e[i].ev.tag == EMLAT_EV_THREAD_NAME)
      k++;
    else if (e[i].ev.tag == EMLAT_EV_PROCESS_NAME)
      t->process = e[i].ev.name;
  if (!k)
    return 0;
  /* (thread, order, name) triples sorted by thread then reading order:
     the last of each thread wins. */
  uint64_t *v = malloc (3 * k * sizeof *v);
  if (!v)
    return -1;
  size_t m = 0;
  for (size_t i = 0; i < ne; i++)
    if (e[i].ev.tag == EMLAT_EV_THREAD_NAME)
      {
        v[3 * m] = e[i].thread;
        v[3 * m + 1] = i;
        v[3 * m + 2] = e[i].ev.name;
        m++;
      }
  qsort (v, m, 3 * sizeof *v, cmp_pair);
  t->thread = malloc (m * sizeof *t->thread);
  t->name = malloc (m * sizeof *t->name);
  if (!t->thread || !t->name)
    {
      free (v);
      report_thread_names_free (t);
      return -1;
    }
  for (size_t i = 0; i < m; i++)
    {
      if (t->n && t->thread[t->n - 1] == v[3 * i])
        t->name[t->n - 1] = v[3 * i + 2];
      else
        {
          t->thread[t->n] = v[3 * i];
          t->name[t->n++] = v[3 * i + 2];
        }
    }
  free (v);
  return 0;
}

uint64_t
report_thread_name (const struct report_thread_names *t, uint64_t thread)
{
  size_t lo = 0, hi = t->n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (t->thread[mid] < thread)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < t->n && t->thread[lo] == thread ? t->name[lo] : 0;
}

void
report_thread_names_free (struct report_thread_names *t)
{
  free (t->thread);
  free (t->name);
  t->thread = t->name = NULL;
  t->n = 0;
}

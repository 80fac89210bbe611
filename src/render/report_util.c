/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_util.c -- names, SESSION lookups and the rules of rows that the
 * report renderers share (declared in report_render.h).  SESSION bytes
 * come from an untrusted file: they are copied with a bound and
 * NUL-terminated, never printed raw.
 */
#include "render/report_render.h"

#include <string.h>

const char *
report_kind_key (unsigned k)
{
  return emlat_root_kind_name (k);
}

const char *
report_kind_label (unsigned k)
{
  static const char *const labels[] = {
    "unknown", "tty command", "synthetic command", "timer", "process data",
    "process sentinel", "file notification", "resize", "thread wakeup",
    "maintenance", "unattributed output", "application",
  };
  return k < sizeof labels / sizeof labels[0] ? labels[k] : "unknown";
}

const char *
report_session_str (const struct emlat_profile *p, const char *key, char *buf, size_t n)
{
  size_t ns;
  const struct emlat_kv *kv = emlat_profile_session (p, &ns);
  const struct emlat_kv *e = emlat_kv_find (kv, ns, key);
  if (!e || e->type != 2 || n == 0)
    return NULL;
  size_t len = e->s_len < n - 1 ? e->s_len : n - 1;
  /* Printable ASCII only: the text report must not carry control bytes. */
  for (size_t i = 0; i < len; i++)
    buf[i] = e->s[i] >= 0x20 && e->s[i] < 0x7f ? (char)e->s[i] : '?';
  buf[len] = 0;
  return buf;
}

int
report_session_uint (const struct emlat_profile *p, const char *key, uint64_t *out)
{
  size_t ns;
  const struct emlat_kv *kv = emlat_profile_session (p, &ns);
  const struct emlat_kv *e = emlat_kv_find (kv, ns, key);
  if (!e || e->type != 0)
    return 0;
  *out = e->u;
  return 1;
}

int
report_cpu_window_row (const struct emlat_report_waterfall *w, uint64_t *from, uint64_t *to)
{
  return w->has_cpu && w->t.has_cpu_end == EMLAT_REPORT_CPU_END_AT_END
         && emlat_report_cpu_window (&w->t, from, to);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_judge.c -- usable / valid / damaged / unreadable judgement of a
 * loaded profile (see emlat_report.h, "judge").  Pure: reads the profile's
 * file summaries and damage counts, prints nothing.
 *
 * The one judgement of every verb (docs/FORMAT.md F-94): damage is counted
 * by the reader with emlat_diag_is_damage, kept or not, so a profile with
 * more diagnostics than limits.max_diagnostics is judged like any other.
 */
#include "emlat/emlat_report.h"

int
emlat_report_usable (const struct emlat_profile *p)
{
  size_t nf;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  if (emlat_profile_totals (p)->limit_hit)
    return 0;
  for (size_t i = 0; i < nf; i++)
    if (!f[i].ignored && !f[i].read_error && f[i].scan.header_ok)
      return 1;
  return 0;
}

int
emlat_report_diag_is_damage (enum emlat_diag_kind k)
{
  return emlat_diag_is_damage (k);
}

enum emlat_report_health
emlat_report_file_health (const struct emlat_file_summary *f)
{
  if (f->read_error || !f->scan.header_ok || f->scan.stop == EMLAT_STOP_LIMIT)
    return EMLAT_HEALTH_UNREADABLE;
  if (f->scan.stop != EMLAT_STOP_CLEAN || f->scan.damage || f->damage)
    return EMLAT_HEALTH_DAMAGED;
  return EMLAT_HEALTH_VALID;
}

enum emlat_report_health
emlat_report_health (const struct emlat_profile *p)
{
  size_t nf;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  if (t->limit_hit)
    return EMLAT_HEALTH_UNREADABLE;
  enum emlat_report_health v = t->damage ? EMLAT_HEALTH_DAMAGED : EMLAT_HEALTH_VALID;
  for (size_t i = 0; i < nf; i++)
    {
      enum emlat_report_health fv = emlat_report_file_health (&f[i]);
      if (fv > v)
        v = fv;
    }
  return v;
}

int
emlat_report_damaged (const struct emlat_profile *p)
{
  return emlat_report_health (p) != EMLAT_HEALTH_VALID;
}

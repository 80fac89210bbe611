/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_judge.c -- usable / damaged judgement of a loaded profile (see
 * emlat_report.h, "judge").  Pure: reads the profile's file summaries and
 * diagnostics, prints nothing.
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
  switch (k)
    {
    case EMLAT_DIAG_DAMAGE:
    case EMLAT_DIAG_SKIP_TYPE:
    case EMLAT_DIAG_SKIP_VERSION:
    case EMLAT_DIAG_SKIP_CODEC:
    case EMLAT_DIAG_INVALID_CHUNK:
    case EMLAT_DIAG_SEQUENCE_GAP:
    case EMLAT_DIAG_MISSING_SESSION:
    case EMLAT_DIAG_EXTRA_SESSION:
    case EMLAT_DIAG_ROTATION_MISSING:
    case EMLAT_DIAG_ROTATION_DUPLICATE:
    case EMLAT_DIAG_MIXED_SESSION:
    case EMLAT_DIAG_START_MISMATCH:
    case EMLAT_DIAG_DUPLICATE_COMPLETE:
    case EMLAT_DIAG_DUPLICATE_SPAN:
    case EMLAT_DIAG_STRING_CONFLICT:
    case EMLAT_DIAG_LIMIT:
      return 1;
    default:
      return 0;
    }
}

int
emlat_report_damaged (const struct emlat_profile *p)
{
  size_t nf, nd;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  for (size_t i = 0; i < nf; i++)
    if (f[i].read_error || !f[i].scan.header_ok || f[i].scan.stop != EMLAT_STOP_CLEAN)
      return 1;
  for (size_t i = 0; i < nd; i++)
    if (emlat_report_diag_is_damage (d[i].kind))
      return 1;
  return 0;
}

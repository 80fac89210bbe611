/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_judge.h -- what reading a profile lost, judged the way `emlat
 * check` judges it; shared by report, compare, export and the Emacs
 * summary primitive so that all of them call the same profile damaged.
 *
 *   usable    at least one file of the session has a valid header and no
 *             reader limit stopped the load;
 *   damaged   usable, but reading lost data: a file stopped before its end
 *             or could not be read, invalid or skipped chunks, sequence
 *             gaps, a missing or repeated rotated file, files of another
 *             session, duplicate records, a reader limit.
 *
 * LOSS records are not damage: the recorder said what it dropped.
 */
#ifndef EMLAT_ANALYSIS_REPORT_JUDGE_H
#define EMLAT_ANALYSIS_REPORT_JUDGE_H

#include "emlat/emlat_reader.h"

/* 1 when P has a usable session (see above). */
int emlat_report_usable (const struct emlat_profile *p);
/* 1 when reading P lost data. */
int emlat_report_damaged (const struct emlat_profile *p);
/* 1 when a diagnostic of kind K means that data was lost. */
int emlat_report_diag_is_damage (enum emlat_diag_kind k);

#endif /* EMLAT_ANALYSIS_REPORT_JUDGE_H */

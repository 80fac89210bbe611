/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * damage.c -- which reader diagnostics make a profile damaged (the table of
 * docs/FORMAT.md F-94).  The one definition: the scanner and the profile
 * count damage with it, and the judgement of `emlat check`, `emlat report`
 * and the other verbs (src/analysis/report_judge.c) is built on those
 * counts, so no two of them can disagree.
 *
 * Damage is what reading lost or found broken: a stop before the end, an
 * invalid or undecodable chunk, a missing chunk, SESSION or file, a file of
 * another session, a record that repeats an id or runs backwards, a limit.
 * Not damage: what a reader of this version cannot use but the format
 * allows (unknown chunk types, newer type versions, experimental chunks,
 * reserved header bits, F-11, F-12, F-31, F-32) and what the recording
 * itself declares (an open interaction, an incomplete span or an orphan end
 * after a crash or a LOSS, no final STATS: F-42, F-65, F-68, F-70).
 */
#include "emlat/emlat_reader.h"
#include "reader/profile.h"

EMLAT_API int emlat_diag_is_damage (enum emlat_diag_kind k)
{
  switch (k)
    {
    case EMLAT_DIAG_DAMAGE:
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
    case EMLAT_DIAG_DUPLICATE_BEGIN:
    case EMLAT_DIAG_DUPLICATE_INPUT:
    case EMLAT_DIAG_SPAN_BACKWARDS:
      return 1;
    case EMLAT_DIAG_SKIP_TYPE:
    case EMLAT_DIAG_SKIP_VERSION:
    case EMLAT_DIAG_SKIP_EXPERIMENTAL:
    case EMLAT_DIAG_HEADER_RESERVED:
    case EMLAT_DIAG_ORPHAN_END:
    case EMLAT_DIAG_INCOMPLETE_SPAN:
    case EMLAT_DIAG_OPEN_INTERACTION:
    case EMLAT_DIAG_NO_FINAL_STATS:
      return 0;
    }
  return 1; /* a kind this build does not know: assume the worst */
}

int emlat_diag_of_file (enum emlat_diag_kind k)
{
  switch (k)
    {
    case EMLAT_DIAG_ROTATION_MISSING:
    case EMLAT_DIAG_ROTATION_DUPLICATE:
    case EMLAT_DIAG_MIXED_SESSION:
    case EMLAT_DIAG_START_MISMATCH:
    case EMLAT_DIAG_LIMIT:
      return 0;
    default:
      return 1;
    }
}

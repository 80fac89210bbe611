/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_ids.c -- the uniqueness rule of a load (docs/FORMAT.md F-5,
 * F-92): an identifier that a record defines is defined once per session,
 * across all its files.  The first record wins; a later one is reported
 * with its file and chunk offset and ignored, and the profile is damaged
 * (F-94).  The sets are freed when the load finishes (profile_finish.c).
 */
#include "reader/profile.h"

int emlat_profile_first_id (struct emlat_profile *p, struct emlat_idset *set, uint64_t id,
                            uint64_t max_words, enum emlat_diag_kind kind,
                            const struct emlat_chunk_info *ci, const char *limit)
{
  int rc = emlat_idset_add (set, &p->budget, id, max_words);
  if (rc > 0)
    emlat_profile_diag (p, kind, p->cur_file, ci->offset, id, 0, "");
  else if (rc < 0)
    emlat_profile_limit (p, limit);
  return rc;
}

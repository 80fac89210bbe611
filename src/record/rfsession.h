/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfsession.h -- a writer session over a ring file that this process did
 * not create: recovery after the recording process ended (recover.c) and
 * the driver draining a live DRIVEN ring file (drain.c) both run the
 * writer's own passes (writer.c) on it.  Internal.
 *
 * Invariant: the caller holds the drainers' lock of the file (ringfile.h,
 * emlat_rf_open), so no other process runs passes on it.
 */
#ifndef EMLAT_RECORD_RFSESSION_H
#define EMLAT_RECORD_RFSESSION_H

#include <stdint.h>

#include "record/ringfile.h"
#include "record/session.h"
#include "record/state.h"

/* Each ring's drained position as the newest checkpoint saved it
   (checkpoint.h); UINT64_MAX tails for rings it does not cover. */
struct emlat_rfs_checkpoint
{
  uint64_t *tails, *threads;
  uint8_t *retired;
  uint64_t seq; /* the checkpoint's sequence number */
};

/* The UUID and rotation number in the file header of the profile at PATH
   (F-11).  0; -EINVAL when it holds no valid header (yet); or a negative
   errno of open(2). */
int emlat_rfs_profile_identity (const char *path, uint8_t uuid[16], uint64_t *rotation);

/* Set up S and POOL over RF (of the profile set BASE): sizes and clock
   origins from its header, per-ring state, the newest checkpoint restored
   into S and CK (CK's arrays are allocated here: free them), the strings
   of its log.  Returns 0; -ENOMEM; or -EINVAL when no checkpoint could be
   restored.  S must be released with emlat_rfs_release in every case. */
int emlat_rfs_init (struct emlat_session *s, struct emlat_pool *pool, struct emlat_ringfile *rf,
                    const char *base, struct emlat_rfs_checkpoint *ck);
/* Take the strings RF's log holds beyond those S has. */
void emlat_rfs_take_strings (struct emlat_session *s, const struct emlat_ringfile *rf);
/* Open the profile file S's checkpoint names, cut back to its checkpointed
   size, and remove rotated files after it (a pass that never
   checkpointed); the profile's start that RF keeps (F-106) is written
   first when the file is shorter.  0 or a negative errno (-EPROTO: what
   RF keeps is damaged). */
int emlat_rfs_reopen_profile (struct emlat_session *s, const struct emlat_ringfile *rf);
/* Free everything S holds (not the ring file, not the pool). */
void emlat_rfs_release (struct emlat_session *s);

#endif /* EMLAT_RECORD_RFSESSION_H */

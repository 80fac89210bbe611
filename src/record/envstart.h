/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * envstart.h -- what the recording layers (emlat_start_from_env, the
 * interposition library) ask of EMLAT_FINISH beyond emlat.h's
 * emlat_finish_requested.  Internal: not exported from the libraries.
 */
#ifndef EMLAT_RECORD_ENVSTART_H
#define EMLAT_RECORD_ENVSTART_H

/* 1 when EMLAT_FINISH is "drain:PID" and PID is this process's parent:
   that parent drains the rings while this process records (drain.h). */
int emlat_drain_by_parent (void);

/* The session flags EMLAT_FINISH asks for, reading it and the parent's
   id once: EMLAT_OPT_DEFER_FINISH when emlat_finish_requested; and for a
   session writing EMLAT_FILE (WITH_FILE nonzero), when EMLAT_FINISH is
   "reader:PID" or "drain:PID" with PID this process's parent (`emlat
   record`, `emlat replay`: it created EMLAT_FILE, empty, for this process
   to write into), EMLAT_OPT_ADOPT_EMPTY, and for "drain:PID" also
   EMLAT_OPT_DRIVER_DRAINS (that parent drains the rings).  "reader"
   alone adds only EMLAT_OPT_DEFER_FINISH (nobody created the file). */
unsigned emlat_finish_flags (int with_file);

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * envstart.h -- what the recording layers (emlat_start_from_env, the
 * interposition library) ask of EMLAT_FINISH beyond emlat.h's
 * emlat_finish_requested.  Internal: not exported from the libraries.
 */
#ifndef EMLAT_RECORD_ENVSTART_H
#define EMLAT_RECORD_ENVSTART_H

/* 1 when EMLAT_FINISH is "reader:PID" or "drain:PID" and PID is this
   process's parent:
   that parent (`emlat record`, `emlat replay --interpose`) created
   EMLAT_FILE, empty, for this process to write into, so the session is
   started with EMLAT_OPT_ADOPT_EMPTY as well as EMLAT_OPT_DEFER_FINISH.
   0 otherwise, "reader" alone included (nobody created the file). */
int emlat_finish_by_parent (void);

/* 1 when EMLAT_FINISH is "drain:PID" and PID is this process's parent:
   that parent also drains the rings while this process records
   (drain.h), so a session writing EMLAT_FILE is started with
   EMLAT_OPT_DRIVER_DRAINS as well. */
int emlat_drain_by_parent (void);

/* The session flags EMLAT_FINISH asks for, reading it and the parent's
   id once: EMLAT_OPT_DEFER_FINISH when emlat_finish_requested, and for a
   session writing EMLAT_FILE (WITH_FILE nonzero) EMLAT_OPT_ADOPT_EMPTY
   when emlat_finish_by_parent and EMLAT_OPT_DRIVER_DRAINS when
   emlat_drain_by_parent. */
unsigned emlat_finish_flags (int with_file);

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * app.h -- the library-internal side of the application API (emlat_app.h):
 * the switch the inline calls test (app.c), and the writer's handling of
 * APP ring records and application interactions (app_drain.c).
 *
 * Writer-side functions run on the writer thread (or in a recovering
 * reader) only, like the rest of writer.c: no synchronization.
 */
#ifndef EMLAT_RECORD_APP_H
#define EMLAT_RECORD_APP_H

#include <stddef.h>
#include <stdint.h>

#include "record/ring.h"

struct emlat_session;

/* emlat_trace_on = ON (release), by session start and stop (app.c). */
__attribute__ ((visibility ("hidden"))) void emlat_app_trace_on (int on);
/* One APP record (ringrec.h) of the calling thread at now: TAG, NAME (a
   string id), ID, VALUE (app.c; function tracing uses it, fntrace.c). */
__attribute__ ((visibility ("hidden"))) void emlat_app_put (unsigned tag, uint64_t name,
                                                            uint64_t id, uint64_t value);
/* The id of S[0..LEN) in the current session, interned under the
   application API's lock (app.c); 0 without a session or room. */
__attribute__ ((visibility ("hidden"))) uint64_t emlat_app_intern (const char *s, size_t len);
/* Reset the application API's state in a child of fork (app.c). */
__attribute__ ((visibility ("hidden"))) void emlat_app_fork_child (void);

/* An APP ring record of THREAD with head H and slot A: validated and kept
   for this pass's EVENT chunks.  Returns 0, or -1 for a malformed record
   (the caller counts it as record_invalid).  A record the writer has no
   memory for is counted as writer_memory here. */
int emlat_app_drain (struct emlat_session *s, uint64_t thread, uint64_t h,
                     const struct emlat_slot *a);
/* Encode this pass's events (EVENT chunks, one thread per block) and the
   application interactions (INTERACTION version 2 chunks: complete
   records of those that ended before this pass, all of them when FINAL,
   begin records of new open ones), removing those written from the table
   before the version-1 interactions are encoded.  On failure (memory) the
   records not placed are added to *LOST; returns 0 or -1. */
int emlat_app_encode (struct emlat_session *s, int final, uint64_t *lost);
/* Free what the writer keeps for the application API. */
void emlat_app_session_free (struct emlat_session *s);

#endif /* EMLAT_RECORD_APP_H */

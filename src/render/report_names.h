/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_names.h -- the names the application API records (sections,
 * events, application interactions, threads, the process: string ids of
 * FORMAT.md F-44) as the renderers show them.
 *
 * Invariants: a name comes from an untrusted file.  In text it is printed
 * with every byte outside printable ASCII replaced by '?' and bounded; in
 * JSON it goes through the JSON writer (invalid UTF-8 becomes U+FFFD).  An
 * id the dictionary lacks is shown as "#ID", never dropped (F-41); id 0 is
 * "no name".
 */
#ifndef EMLAT_RENDER_REPORT_NAMES_H
#define EMLAT_RENDER_REPORT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "emlat/emlat_reader.h"
#include "render/json.h"

/* ID's name as printable text in BUF (N >= 24 bytes): its bytes, or "#ID"
   when P lacks it; "" for 0.  Returns BUF. */
const char *report_name_text (const struct emlat_profile *p, uint64_t id, char *buf, size_t n);

/* ID's name as a JSON string value: its bytes, or "#ID"; null for 0. */
void report_name_json (struct emlat_json *j, const struct emlat_profile *p, uint64_t id);

/* The names the application API gave threads and the process, from the
   EVENT records (the last one read wins, FORMAT.md F-96): the string id
   naming THREAD (0: none), and the process's (0: none). */
struct report_thread_names
{
  uint64_t *thread, *name; /* n pairs, sorted by thread */
  size_t n;
  uint64_t process;
};
/* Returns 0 or -1 (memory; then nothing is named). */
int report_thread_names_build (const struct emlat_profile *p, struct report_thread_names *t);
uint64_t report_thread_name (const struct report_thread_names *t, uint64_t thread);
void report_thread_names_free (struct report_thread_names *t);

#endif /* EMLAT_RENDER_REPORT_NAMES_H */

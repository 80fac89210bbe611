/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * record_json.h -- the one JSON vocabulary of .emlat records, shared by
 * `emlat dump --json` and `emlat export --format=jsonl` (key table in
 * docs/JSON.md "Records", schemas in docs/schema/).
 *
 * Every record becomes one object whose first keys are "record" (its
 * kind), "file" (the path of the file it was read from), "chunk" (the byte
 * offset of its chunk's header in that file) and "thread", then the keys
 * of its kind.  Invariants, applied to every key written here:
 *  - a field the record does not carry (an optional field whose presence
 *    bit is clear) is null; a map keyed by field name ("times",
 *    "qualities", "values", "counters") lists only the present fields;
 *  - an identifier reference the format encodes as 0 = none (parent,
 *    cause, parent_cause, scheduled_by_cause, thread) is written as that
 *    number, 0;
 *  - keys starting with "t_" are absolute profiler-clock nanoseconds;
 *  - strings go through the JSON writer (invalid UTF-8 becomes U+FFFD).
 */
#ifndef EMLAT_RENDER_RECORD_JSON_H
#define EMLAT_RENDER_RECORD_JSON_H

#include "emlat/emlat_reader.h"
#include "render/json.h"

/* The keys of record R read from FILE in chunk CI, written into the
   object J has open.  The caller opens and closes the object, so that it
   may add keys (export adds derived metrics). */
void record_json_keys (struct emlat_json *j, const char *file, const struct emlat_chunk_info *ci,
                       const struct emlat_record *r);

/* Names (F-44).  A record that can be named -- an event, an interaction
   record, a span record -- gets one more key, "name", after the others:
   the string its name id resolves to, or null (no name, or an id the
   dictionary read so far lacks, shown then only as "name_id" or
   "detail").  record_json_has_name says whether R is such a record,
   record_json_name_id gives the id to resolve (0: none), and
   record_json_name_key writes the key (BYTES NULL: null). */
int record_json_has_name (const struct emlat_record *r);
uint64_t record_json_name_id (const struct emlat_record *r);
void record_json_name_key (struct emlat_json *j, const uint8_t *bytes, size_t len);

/* The value of SESSION or STATS entry KV, typed: a number for unsigned
   and signed entries, a string for string entries; null when KV is NULL. */
void record_json_kv_value (struct emlat_json *j, const struct emlat_kv *kv);

/* The keys of diagnostic D ("kind", "file", "offset", "message") into the
   object J has open; FILE is the path of the file it concerns, or NULL
   for a diagnostic about the whole set.  "offset" is null when the
   diagnostic has none; "message" is the reader's text without it. */
void record_json_diag_keys (struct emlat_json *j, const struct emlat_diag *d, const char *file);

/* The whole line `emlat dump --json` writes for a file header and for a
   chunk header (DECODED: the chunk's records follow). */
void record_json_file_header_line (struct emlat_json *j, const char *file,
                                   const struct emlat_file_header *h, const char *uuid);
void record_json_chunk_header_line (struct emlat_json *j, const char *file,
                                    const struct emlat_chunk_info *ci, int decoded);

#endif /* EMLAT_RENDER_RECORD_JSON_H */

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * json.h -- a tiny streaming JSON writer for the verbs' --json output.
 *
 * The writer tracks nesting and commas itself: callers say begin/end
 * object/array, key, value.  Strings are arbitrary bytes (F-7: not
 * necessarily UTF-8): valid UTF-8 passes through, control characters, '"'
 * and '\\' are escaped, and each byte of an invalid UTF-8 sequence becomes
 * U+FFFD, so the output is always valid JSON in UTF-8.  Nesting deeper than
 * EMLAT_JSON_DEPTH, or misuse (a value without key in an object, an
 * unbalanced end), sets the error flag, which is sticky: nothing more is
 * written.
 * emlat_json_line ends one JSON-lines record.
 */
#ifndef EMLAT_CLI_JSON_H
#define EMLAT_CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EMLAT_JSON_DEPTH 32

struct emlat_json
{
  FILE *f;
  int depth;
  int error;                            /* misuse or overflow: output stopped */
  unsigned char count[EMLAT_JSON_DEPTH + 1]; /* values so far at each level (saturating) */
  unsigned char is_object[EMLAT_JSON_DEPTH + 1];
  int after_key;                        /* a key was written, its value is due */
};

void emlat_json_init (struct emlat_json *j, FILE *f);
void emlat_json_begin_object (struct emlat_json *j);
void emlat_json_end_object (struct emlat_json *j);
void emlat_json_begin_array (struct emlat_json *j);
void emlat_json_end_array (struct emlat_json *j);
/* A key inside an object (NUL-terminated, escaped like a string). */
void emlat_json_key (struct emlat_json *j, const char *key);
void emlat_json_str (struct emlat_json *j, const char *s);
void emlat_json_strn (struct emlat_json *j, const void *s, size_t n);
void emlat_json_u64 (struct emlat_json *j, uint64_t v);
void emlat_json_i64 (struct emlat_json *j, int64_t v);
/* V / 10^DECIMALS as an exact decimal number ("1234.567" for V = 1234567,
   DECIMALS = 3), without going through floating point; DECIMALS <= 9. */
void emlat_json_fixed (struct emlat_json *j, uint64_t v, unsigned decimals);
/* Non-finite values are written as null. */
void emlat_json_double (struct emlat_json *j, double v);
void emlat_json_bool (struct emlat_json *j, int v);
void emlat_json_null (struct emlat_json *j);
/* Key and value in one call. */
void emlat_json_kv_u64 (struct emlat_json *j, const char *key, uint64_t v);
void emlat_json_kv_str (struct emlat_json *j, const char *key, const char *s);
/* KEY: V when HAS is nonzero, else KEY: null (an absent field). */
void emlat_json_kv_u64_opt (struct emlat_json *j, const char *key, int has, uint64_t v);
/* End a top-level value with a newline (JSON lines); resets the state. */
void emlat_json_line (struct emlat_json *j);

#endif /* EMLAT_CLI_JSON_H */

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * json.c -- see json.h.  Invariant: at depth d, count[d] says whether a
 * value was already written there (so the next one needs a comma), and in
 * an object a value is written only right after its key.
 */
#include "render/json.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void emlat_json_init (struct emlat_json *j, FILE *f)
{
  memset (j, 0, sizeof *j);
  j->f = f;
}

/* Before any value: the comma, and the key check inside objects. */
static int before_value (struct emlat_json *j)
{
  if (j->error)
    return -1;
  if (j->is_object[j->depth] && j->depth > 0)
    {
      if (!j->after_key)
        {
          j->error = 1; /* a value in an object needs a key */
          return -1;
        }
      j->after_key = 0;
      return 0;
    }
  if (j->count[j->depth])
    fputc (',', j->f);
  if (j->count[j->depth] < 255)
    j->count[j->depth]++;
  return 0;
}

static void put_escaped (FILE *f, const uint8_t *s, size_t n)
{
  static const char hex[] = "0123456789abcdef";
  fputc ('"', f);
  size_t i = 0;
  while (i < n)
    {
      uint8_t c = s[i];
      if (c == '"' || c == '\\')
        {
          fputc ('\\', f);
          fputc (c, f);
          i++;
        }
      else if (c < 0x20 || c == 0x7f)
        {
          const char *esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
          if (esc)
            fputs (esc, f);
          else
            fprintf (f, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
          i++;
        }
      else if (c < 0x80)
        {
          fputc (c, f);
          i++;
        }
      else
        {
          /* Validate one UTF-8 sequence (no overlongs, no surrogates, at
             most U+10FFFF); copy it whole or replace one byte. */
          size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
          int ok = len > 0 && c <= 0xf4 && i + len <= n;
          for (size_t k = 1; ok && k < len; k++)
            ok = (s[i + k] & 0xc0) == 0x80;
          if (ok && len == 3)
            ok = !(c == 0xe0 && s[i + 1] < 0xa0) && !(c == 0xed && s[i + 1] >= 0xa0);
          if (ok && len == 4)
            ok = !(c == 0xf0 && s[i + 1] < 0x90) && !(c == 0xf4 && s[i + 1] >= 0x90);
          if (ok)
            {
              fwrite (s + i, 1, len, f);
              i += len;
            }
          else
            {
              fputs ("\xef\xbf\xbd", f); /* U+FFFD */
              i++;
            }
        }
    }
  fputc ('"', f);
}

static void open_level (struct emlat_json *j, int obj, char c)
{
  if (before_value (j))
    return;
  if (j->depth >= EMLAT_JSON_DEPTH)
    {
      j->error = 1;
      return;
    }
  fputc (c, j->f);
  j->depth++;
  j->count[j->depth] = 0;
  j->is_object[j->depth] = (unsigned char)obj;
}

static void close_level (struct emlat_json *j, int obj, char c)
{
  if (j->error)
    return;
  if (j->depth == 0 || j->is_object[j->depth] != obj || j->after_key)
    {
      j->error = 1;
      return;
    }
  fputc (c, j->f);
  j->depth--;
}

void emlat_json_begin_object (struct emlat_json *j) { open_level (j, 1, '{'); }
void emlat_json_end_object (struct emlat_json *j) { close_level (j, 1, '}'); }
void emlat_json_begin_array (struct emlat_json *j) { open_level (j, 0, '['); }
void emlat_json_end_array (struct emlat_json *j) { close_level (j, 0, ']'); }

void emlat_json_key (struct emlat_json *j, const char *key)
{
  if (j->error)
    return;
  if (j->depth == 0 || !j->is_object[j->depth] || j->after_key)
    {
      j->error = 1;
      return;
    }
  if (j->count[j->depth])
    fputc (',', j->f);
  if (j->count[j->depth] < 255)
    j->count[j->depth]++;
  put_escaped (j->f, (const uint8_t *)key, strlen (key));
  fputc (':', j->f);
  j->after_key = 1;
}

void emlat_json_strn (struct emlat_json *j, const void *s, size_t n)
{
  if (before_value (j) == 0)
    put_escaped (j->f, s, n);
}

void emlat_json_str (struct emlat_json *j, const char *s)
{
  if (!s)
    emlat_json_null (j);
  else
    emlat_json_strn (j, s, strlen (s));
}

void emlat_json_u64 (struct emlat_json *j, uint64_t v)
{
  if (before_value (j) == 0)
    fprintf (j->f, "%" PRIu64, v);
}

void emlat_json_i64 (struct emlat_json *j, int64_t v)
{
  if (before_value (j) == 0)
    fprintf (j->f, "%" PRId64, v);
}

void emlat_json_fixed (struct emlat_json *j, uint64_t v, unsigned decimals)
{
  if (decimals > 9)
    {
      j->error = 1;
      return;
    }
  if (before_value (j) != 0)
    return;
  uint64_t scale = 1;
  for (unsigned i = 0; i < decimals; i++)
    scale *= 10;
  if (decimals == 0)
    fprintf (j->f, "%" PRIu64, v);
  else
    fprintf (j->f, "%" PRIu64 ".%0*" PRIu64, v / scale, (int)decimals, v % scale);
}

void emlat_json_double (struct emlat_json *j, double v)
{
  if (before_value (j) != 0)
    return;
  if (isfinite (v))
    fprintf (j->f, "%.17g", v);
  else
    fputs ("null", j->f);
}

void emlat_json_bool (struct emlat_json *j, int v)
{
  if (before_value (j) == 0)
    fputs (v ? "true" : "false", j->f);
}

void emlat_json_null (struct emlat_json *j)
{
  if (before_value (j) == 0)
    fputs ("null", j->f);
}

void emlat_json_kv_u64 (struct emlat_json *j, const char *key, uint64_t v)
{
  emlat_json_key (j, key);
  emlat_json_u64 (j, v);
}

void emlat_json_kv_str (struct emlat_json *j, const char *key, const char *s)
{
  emlat_json_key (j, key);
  emlat_json_str (j, s);
}

void emlat_json_kv_u64_opt (struct emlat_json *j, const char *key, int has, uint64_t v)
{
  emlat_json_key (j, key);
  if (has)
    emlat_json_u64 (j, v);
  else
    emlat_json_null (j);
}

void emlat_json_line (struct emlat_json *j)
{
  if (!j->error && j->depth == 0)
    fputc ('\n', j->f);
  FILE *f = j->f;
  int err = j->error || j->depth != 0;
  emlat_json_init (j, f);
  j->error = err;
}

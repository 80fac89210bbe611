/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jsonv.h -- a small strict JSON parser for the report tests (header only,
 * every function static): it validates a whole document (RFC 8259
 * grammar: objects, arrays, strings with escapes, numbers, true, false,
 * null; nothing after the value but whitespace) and builds a tree that
 * tests query with jv_get (node, "key") / jv_at (node, i).
 *
 * Written for tests, not speed: nodes are malloc'ed and freed with
 * jv_free.  Numbers keep their text, so integer nanoseconds are compared
 * exactly (jv_u64) and never through a double.  A parse error returns
 * NULL and leaves the byte offset in *ERR_AT.
 */
#ifndef EMLAT_TEST_JSONV_H
#define EMLAT_TEST_JSONV_H

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv
{
  enum jv_type type;
  int b;
  char *s;              /* string value (unescaped) or number text */
  char **keys;          /* objects */
  struct jv **items;    /* arrays and object values */
  size_t n;
};

struct jv_in
{
  const char *p, *end, *start;
  int depth;
};

static __attribute__ ((unused)) struct jv *jv_value (struct jv_in *in);

static __attribute__ ((unused)) void
jv_ws (struct jv_in *in)
{
  while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' || *in->p == '\n' || *in->p == '\r'))
    in->p++;
}

static __attribute__ ((unused)) struct jv *
jv_new (enum jv_type t)
{
  struct jv *v = calloc (1, sizeof *v);
  if (v)
    v->type = t;
  return v;
}

static __attribute__ ((unused)) void
jv_free (struct jv *v)
{
  if (!v)
    return;
  for (size_t i = 0; i < v->n; i++)
    {
      jv_free (v->items[i]);
      if (v->keys)
        free (v->keys[i]);
    }
  free (v->items);
  free (v->keys);
  free (v->s);
  free (v);
}

/* Append an UTF-8 encoding of code point C. */
static __attribute__ ((unused)) size_t
jv_utf8 (char *o, unsigned c)
{
  if (c < 0x80)
    return o[0] = (char)c, 1;
  if (c < 0x800)
    return o[0] = (char)(0xc0 | c >> 6), o[1] = (char)(0x80 | (c & 63)), 2;
  if (c < 0x10000)
    return o[0] = (char)(0xe0 | c >> 12), o[1] = (char)(0x80 | (c >> 6 & 63)),
           o[2] = (char)(0x80 | (c & 63)), 3;
  return o[0] = (char)(0xf0 | c >> 18), o[1] = (char)(0x80 | (c >> 12 & 63)),
         o[2] = (char)(0x80 | (c >> 6 & 63)), o[3] = (char)(0x80 | (c & 63)), 4;
}

static __attribute__ ((unused)) char *
jv_string (struct jv_in *in)
{
  if (in->p >= in->end || *in->p != '"')
    return NULL;
  in->p++;
  char *o = malloc ((size_t)(in->end - in->p) + 1);
  size_t k = 0;
  if (!o)
    return NULL;
  while (in->p < in->end && *in->p != '"')
    {
      unsigned char c = (unsigned char)*in->p++;
      if (c < 0x20)
        goto bad;
      if (c != '\\')
        {
          o[k++] = (char)c;
          continue;
        }
      if (in->p >= in->end)
        goto bad;
      char e = *in->p++;
      const char *map = e ? strchr ("\"\"\\\\//b\bf\fn\nr\rt\t", e) : NULL;
      if (e == 'u')
        {
          if (in->end - in->p < 4)
            goto bad;
          unsigned cp = 0;
          for (int i = 0; i < 4; i++)
            {
              char h = *in->p++;
              if (!isxdigit ((unsigned char)h))
                goto bad;
              cp = cp * 16 + (unsigned)(isdigit ((unsigned char)h) ? h - '0' : (tolower (h) - 'a' + 10));
            }
          k += jv_utf8 (o + k, cp);
        }
      else if (map && ((map - "\"\"\\\\//b\bf\fn\nr\rt\t") % 2) == 0)
        o[k++] = map[1];
      else
        goto bad;
    }
  if (in->p >= in->end)
    goto bad;
  in->p++;
  o[k] = 0;
  return o;
bad:
  free (o);
  return NULL;
}

static __attribute__ ((unused)) struct jv *
jv_number (struct jv_in *in)
{
  const char *s = in->p;
  if (in->p < in->end && *in->p == '-')
    in->p++;
  if (in->p >= in->end || !isdigit ((unsigned char)*in->p))
    return NULL;
  if (*in->p == '0')
    in->p++;
  else
    while (in->p < in->end && isdigit ((unsigned char)*in->p))
      in->p++;
  if (in->p < in->end && *in->p == '.')
    {
      in->p++;
      if (in->p >= in->end || !isdigit ((unsigned char)*in->p))
        return NULL;
      while (in->p < in->end && isdigit ((unsigned char)*in->p))
        in->p++;
    }
  if (in->p < in->end && (*in->p == 'e' || *in->p == 'E'))
    {
      in->p++;
      if (in->p < in->end && (*in->p == '+' || *in->p == '-'))
        in->p++;
      if (in->p >= in->end || !isdigit ((unsigned char)*in->p))
        return NULL;
      while (in->p < in->end && isdigit ((unsigned char)*in->p))
        in->p++;
    }
  struct jv *v = jv_new (JV_NUM);
  if (!v)
    return NULL;
  v->s = strndup (s, (size_t)(in->p - s));
  return v;
}

static __attribute__ ((unused)) int
jv_push (struct jv *v, char *key, struct jv *item)
{
  struct jv **ni = realloc (v->items, (v->n + 1) * sizeof *ni);
  if (!ni)
    return -1;
  v->items = ni;
  if (v->type == JV_OBJ)
    {
      char **nk = realloc (v->keys, (v->n + 1) * sizeof *nk);
      if (!nk)
        return -1;
      v->keys = nk;
      v->keys[v->n] = key;
    }
  v->items[v->n++] = item;
  return 0;
}

static __attribute__ ((unused)) struct jv *
jv_container (struct jv_in *in, int obj)
{
  struct jv *v = jv_new (obj ? JV_OBJ : JV_ARR);
  if (!v || ++in->depth > 200)
    goto bad;
  in->p++;
  jv_ws (in);
  if (in->p < in->end && *in->p == (obj ? '}' : ']'))
    {
      in->p++;
      in->depth--;
      return v;
    }
  for (;;)
    {
      char *key = NULL;
      jv_ws (in);
      if (obj)
        {
          if (!(key = jv_string (in)))
            goto bad;
          jv_ws (in);
          if (in->p >= in->end || *in->p != ':')
            {
              free (key);
              goto bad;
            }
          in->p++;
        }
      struct jv *item = jv_value (in);
      if (!item || jv_push (v, key, item) != 0)
        {
          free (key);
          jv_free (item);
          goto bad;
        }
      jv_ws (in);
      if (in->p < in->end && *in->p == ',')
        {
          in->p++;
          continue;
        }
      if (in->p < in->end && *in->p == (obj ? '}' : ']'))
        {
          in->p++;
          in->depth--;
          return v;
        }
      goto bad;
    }
bad:
  jv_free (v);
  return NULL;
}

static __attribute__ ((unused)) struct jv *
jv_value (struct jv_in *in)
{
  jv_ws (in);
  if (in->p >= in->end)
    return NULL;
  char c = *in->p;
  if (c == '{' || c == '[')
    return jv_container (in, c == '{');
  if (c == '"')
    {
      char *s = jv_string (in);
      struct jv *v = s ? jv_new (JV_STR) : NULL;
      if (v)
        v->s = s;
      else
        free (s);
      return v;
    }
  static const struct
  {
    const char *w;
    enum jv_type t;
    int b;
  } words[] = { { "true", JV_BOOL, 1 }, { "false", JV_BOOL, 0 }, { "null", JV_NULL, 0 } };
  for (unsigned i = 0; i < 3; i++)
    {
      size_t l = strlen (words[i].w);
      if ((size_t)(in->end - in->p) >= l && memcmp (in->p, words[i].w, l) == 0)
        {
          in->p += l;
          struct jv *v = jv_new (words[i].t);
          if (v)
            v->b = words[i].b;
          return v;
        }
    }
  return jv_number (in);
}

/* Parse exactly one JSON value (surrounded by whitespace only). */
static __attribute__ ((unused)) struct jv *
jv_parse (const char *s, size_t n, size_t *err_at)
{
  struct jv_in in = { s, s + n, s, 0 };
  struct jv *v = jv_value (&in);
  if (v)
    {
      jv_ws (&in);
      if (in.p != in.end)
        {
          jv_free (v);
          v = NULL;
        }
    }
  if (!v && err_at)
    *err_at = (size_t)(in.p - s);
  return v;
}

static __attribute__ ((unused)) struct jv *
jv_get (const struct jv *v, const char *key)
{
  if (!v || v->type != JV_OBJ)
    return NULL;
  for (size_t i = 0; i < v->n; i++)
    if (strcmp (v->keys[i], key) == 0)
      return v->items[i];
  return NULL;
}

static __attribute__ ((unused)) struct jv *
jv_at (const struct jv *v, size_t i)
{
  return v && v->type == JV_ARR && i < v->n ? v->items[i] : NULL;
}

/* A non-negative integer number's value; UINT64_MAX when V is not one. */
static __attribute__ ((unused)) uint64_t
jv_u64 (const struct jv *v)
{
  if (!v || v->type != JV_NUM || !v->s[0] || v->s[0] == '-' || strpbrk (v->s, ".eE"))
    return UINT64_MAX;
  return strtoull (v->s, NULL, 10);
}

static __attribute__ ((unused)) const char *
jv_str (const struct jv *v)
{
  return v && v->type == JV_STR ? v->s : NULL;
}

#endif /* EMLAT_TEST_JSONV_H */

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_keys.c -- key names to terminal bytes (xterm conventions).
 *
 * Invariants: replay_key_parse accepts exactly the keys replay_key_encode
 * can encode (it validates by encoding), so encoding a parsed key never
 * fails; an encoding is at most REPLAY_KEY_MAX_BYTES bytes.  Modified cursor
 * and function keys use xterm's "CSI 1 ; m X" / "CSI n ; m ~" form with
 * m = 1 + Shift + 2*Meta + 4*Ctrl; Meta on anything else is an ESC prefix.
 */
#include "replay/replay_keys.h"

#include <string.h>

struct named
{
  const char *name;
  uint8_t key;
};

static const struct named names[] = {
  { "RET", REPLAY_K_RET },     { "TAB", REPLAY_K_TAB },
  { "ESC", REPLAY_K_ESC },     { "BS", REPLAY_K_BS },
  { "SPC", REPLAY_K_SPC },     { "DEL", REPLAY_K_DEL },
  { "INS", REPLAY_K_INS },     { "UP", REPLAY_K_UP },
  { "DOWN", REPLAY_K_DOWN },   { "RIGHT", REPLAY_K_RIGHT },
  { "LEFT", REPLAY_K_LEFT },   { "HOME", REPLAY_K_HOME },
  { "END", REPLAY_K_END },     { "PGUP", REPLAY_K_PGUP },
  { "PGDN", REPLAY_K_PGDN },   { "F1", REPLAY_K_F1 },
  { "F2", REPLAY_K_F1 + 1 },   { "F3", REPLAY_K_F1 + 2 },
  { "F4", REPLAY_K_F1 + 3 },   { "F5", REPLAY_K_F1 + 4 },
  { "F6", REPLAY_K_F1 + 5 },   { "F7", REPLAY_K_F1 + 6 },
  { "F8", REPLAY_K_F1 + 7 },   { "F9", REPLAY_K_F1 + 8 },
  { "F10", REPLAY_K_F1 + 9 },  { "F11", REPLAY_K_F1 + 10 },
  { "F12", REPLAY_K_F1 + 11 },
};

size_t replay_utf8_encode (uint32_t cp, char *out)
{
  if (cp < 0x80)
    {
      out[0] = (char)cp;
      return 1;
    }
  if (cp < 0x800)
    {
      out[0] = (char)(0xC0 | (cp >> 6));
      out[1] = (char)(0x80 | (cp & 0x3F));
      return 2;
    }
  if (cp >= 0xD800 && cp <= 0xDFFF)
    return 0;
  if (cp < 0x10000)
    {
      out[0] = (char)(0xE0 | (cp >> 12));
      out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
      out[2] = (char)(0x80 | (cp & 0x3F));
      return 3;
    }
  if (cp > 0x10FFFF)
    return 0;
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Decode exactly one UTF-8 scalar filling S[0..LEN); -1 if it is not that. */
static int64_t utf8_single (const unsigned char *s, size_t len)
{
  size_t need;
  uint32_t cp;
  if (len == 0)
    return -1;
  if (s[0] < 0x80)
    need = 1, cp = s[0];
  else if ((s[0] & 0xE0) == 0xC0)
    need = 2, cp = s[0] & 0x1Fu;
  else if ((s[0] & 0xF0) == 0xE0)
    need = 3, cp = s[0] & 0x0Fu;
  else if ((s[0] & 0xF8) == 0xF0)
    need = 4, cp = s[0] & 0x07u;
  else
    return -1;
  if (len != need)
    return -1;
  for (size_t i = 1; i < need; i++)
    {
      if ((s[i] & 0xC0) != 0x80)
        return -1;
      cp = (cp << 6) | (s[i] & 0x3Fu);
    }
  char tmp[4];
  if (replay_utf8_encode (cp, tmp) != need) /* overlong or invalid */
    return -1;
  return cp;
}

static size_t put_num (char *out, unsigned v)
{
  char tmp[12];
  size_t n = 0, k = 0;
  do
    {
      tmp[n++] = (char)('0' + v % 10);
      v /= 10;
    }
  while (v);
  while (n)
    out[k++] = tmp[--n];
  return k;
}

/* CSI forms of cursor and function keys; 0 if K is not one of them. */
static size_t encode_special (const struct replay_key *k, int app_cursor,
                              char *out)
{
  static const char cursor_final[] = "ABCDHF"; /* UP DOWN RIGHT LEFT HOME END */
  unsigned m = 1 + ((k->mods & REPLAY_MOD_SHIFT) ? 1 : 0)
               + ((k->mods & REPLAY_MOD_META) ? 2 : 0)
               + ((k->mods & REPLAY_MOD_CTRL) ? 4 : 0);
  size_t n = 0;
  char final;
  unsigned code = 0;

  if (k->named >= REPLAY_K_UP && k->named <= REPLAY_K_END)
    final = cursor_final[k->named - REPLAY_K_UP];
  else if (k->named >= REPLAY_K_F1 && k->named <= REPLAY_K_F1 + 3)
    final = (char)('P' + (k->named - REPLAY_K_F1));
  else
    {
      static const unsigned tilde_f[12] = { 0, 0, 0, 0, 15, 17,
                                            18, 19, 20, 21, 23, 24 };
      switch (k->named)
        {
        case REPLAY_K_INS: code = 2; break;
        case REPLAY_K_DEL: code = 3; break;
        case REPLAY_K_PGUP: code = 5; break;
        case REPLAY_K_PGDN: code = 6; break;
        default:
          if (k->named >= REPLAY_K_F1 + 4 && k->named <= REPLAY_K_F12)
            code = tilde_f[k->named - REPLAY_K_F1];
          else
            return 0;
        }
      final = '~';
    }

  out[n++] = '\033';
  if (final == '~')
    {
      out[n++] = '[';
      n += put_num (out + n, code);
      if (m > 1)
        {
          out[n++] = ';';
          n += put_num (out + n, m);
        }
    }
  else if (m > 1)
    {
      out[n++] = '[';
      out[n++] = '1';
      out[n++] = ';';
      n += put_num (out + n, m);
    }
  else
    {
      /* F1..F4 are always SS3; cursor keys follow DECCKM. */
      int ss3 = (final >= 'P' && final <= 'S') || app_cursor;
      out[n++] = ss3 ? 'O' : '[';
    }
  out[n++] = final;
  return n;
}

/* 0 when K has no encoding. */
static size_t encode (const struct replay_key *k, int app_cursor, char *out)
{
  size_t n = 0;
  unsigned mods = k->mods;
  if (k->named >= REPLAY_K_DEL)
    return encode_special (k, app_cursor, out);

  if (k->named == REPLAY_K_TAB && mods == REPLAY_MOD_SHIFT)
    {
      memcpy (out, "\033[Z", 3);
      return 3;
    }
  if (mods & REPLAY_MOD_SHIFT)
    return 0; /* type the shifted character instead */
  if (mods & REPLAY_MOD_META)
    out[n++] = '\033';

  uint32_t ch;
  switch (k->named)
    {
    case REPLAY_K_RET: ch = '\r'; break;
    case REPLAY_K_TAB: ch = '\t'; break;
    case REPLAY_K_ESC: ch = 0x1B; break;
    case REPLAY_K_BS: ch = 0x7F; break;
    case REPLAY_K_SPC: ch = ' '; break;
    default: ch = k->ch; break;
    }
  if (mods & REPLAY_MOD_CTRL)
    {
      if (k->named != REPLAY_K_CHAR && k->named != REPLAY_K_SPC)
        return 0;
      if (ch >= 'a' && ch <= 'z')
        ch -= 0x60;
      else if (ch >= '@' && ch <= '_')
        ch &= 0x1F;
      else if (ch == ' ')
        ch = 0;
      else if (ch == '?')
        ch = 0x7F;
      else
        return 0;
    }
  size_t u = replay_utf8_encode (ch, out + n);
  return u ? n + u : 0;
}

size_t replay_key_encode (const struct replay_key *k, int app_cursor, char *out)
{
  return encode (k, app_cursor, out);
}

int replay_key_parse (const char *name, size_t len, struct replay_key *k)
{
  memset (k, 0, sizeof *k);
  while (len >= 3 && name[1] == '-')
    {
      unsigned m = name[0] == 'C'   ? REPLAY_MOD_CTRL
                   : name[0] == 'M' ? REPLAY_MOD_META
                   : name[0] == 'S' ? REPLAY_MOD_SHIFT
                                    : 0;
      if (!m || (k->mods & m))
        break;
      k->mods |= (uint8_t)m;
      name += 2;
      len -= 2;
    }
  int found = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen (names[i].name) == len && memcmp (names[i].name, name, len) == 0)
      {
        k->named = names[i].key;
        found = 1;
        break;
      }
  if (!found)
    {
      int64_t cp = utf8_single ((const unsigned char *)name, len);
      if (cp < 0)
        return -1;
      k->ch = (uint32_t)cp;
    }
  char tmp[REPLAY_KEY_MAX_BYTES];
  return encode (k, 0, tmp) ? 0 : -1;
}

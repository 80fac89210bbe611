/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_keys.h -- named keys of `emlat replay` scripts and the bytes a
 * terminal sends for them.
 *
 * A key is a Unicode character or a named key, plus Ctrl/Meta/Shift
 * modifiers.  Parsing checks that the key can be encoded; encoding depends on
 * one piece of terminal state, the cursor-key mode (DECCKM) that the program
 * under test selected, because a real terminal sends ESC O A instead of
 * ESC [ A for UP while it is set.  docs/REPLAY.md lists every name and its
 * bytes.
 */
#ifndef EMLAT_REPLAY_KEYS_H
#define EMLAT_REPLAY_KEYS_H

#include <stddef.h>
#include <stdint.h>

enum replay_named_key {
  REPLAY_K_CHAR = 0, /* not named: the character in .ch */
  REPLAY_K_RET, REPLAY_K_TAB, REPLAY_K_ESC, REPLAY_K_BS, REPLAY_K_SPC,
  REPLAY_K_DEL, REPLAY_K_INS,
  REPLAY_K_UP, REPLAY_K_DOWN, REPLAY_K_RIGHT, REPLAY_K_LEFT,
  REPLAY_K_HOME, REPLAY_K_END, REPLAY_K_PGUP, REPLAY_K_PGDN,
  REPLAY_K_F1, /* F1..F12 are consecutive */
  REPLAY_K_F12 = REPLAY_K_F1 + 11
};

#define REPLAY_MOD_CTRL 0x1u
#define REPLAY_MOD_META 0x2u
#define REPLAY_MOD_SHIFT 0x4u

struct replay_key
{
  uint32_t ch;    /* Unicode scalar value when named == REPLAY_K_CHAR */
  uint8_t named;  /* enum replay_named_key */
  uint8_t mods;   /* REPLAY_MOD_* */
};

/* The longest encoding replay_key_encode produces. */
#define REPLAY_KEY_MAX_BYTES 16

/* Parse NAME (LEN bytes, e.g. "C-x", "M-RET", "C-M-f", "S-TAB", "F5", "a")
   into *K.  Returns 0, or -1 when the name is unknown or the combination has
   no terminal encoding (e.g. "C-RET"). */
int replay_key_parse (const char *name, size_t len, struct replay_key *k);

/* Write the bytes a terminal sends for K into OUT (REPLAY_KEY_MAX_BYTES) and
   return their number (>= 1).  APP_CURSOR is the program's DECCKM state. */
size_t replay_key_encode (const struct replay_key *k, int app_cursor,
                          char *out);

/* Encode Unicode scalar CP as UTF-8 into OUT (4 bytes); returns the length,
   or 0 for a surrogate or a value above U+10FFFF. */
size_t replay_utf8_encode (uint32_t cp, char *out);

#endif /* EMLAT_REPLAY_KEYS_H */

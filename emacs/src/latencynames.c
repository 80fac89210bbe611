/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Interaction-latency profiler: the names of a profile's work.

Copyright (C) 2025 the emlat authors.

This file is part of GNU Emacs.

GNU Emacs is free software: you can redistribute it and/or modify
it under the terms of the GNU General Public License as published by
the Free Software Foundation, either version 3 of the License, or (at
your option) any later version.

GNU Emacs is distributed in the hope that it will be useful,
but WITHOUT ANY WARRANTY; without even the implied warranty of
MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
GNU General Public License for more details.

You should have received a copy of the GNU General Public License
along with GNU Emacs.  If not, see <https://www.gnu.org/licenses/>.  */

/* A profile records names only when it was started under the names
   policy: with `latency-profile-names' non-nil or the command-line
   option `--latency-profile-names'.  Then latency.c names the command
   of each key sequence, the function of each timer, the process of
   each filter and sentinel, and each function the command loop's hooks
   run, by the id of a string in the profile's string table.  This file
   turns a Lisp name into that id.

   Invariants:

   - Each distinct name is interned (emlat_string) once per session, and
     its id reused afterwards; the table is emptied when a session
     starts, since a new session has a new string table.

   - Only names are recorded: a symbol's name, or a process's name.  A
     function that is not a symbol (a lambda, a closure, byte code) is
     named "(anonymous)", never by its printed form, which could hold
     any data.

   - Runs on the thread holding the Lisp global lock, never in a signal
     handler.  A new name allocates a copy (malloc); when the table is
     three quarters full, or memory runs out, new names are not recorded
     (id 0) and the work stays unnamed.  */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <emlat/emlat.h>

#include "lisp.h"
#include "latency.h"

/* True while the current session records names.  */
bool latency_naming;

enum { LATENCY_NAMES = 4096 };	/* a power of two */

static struct
{
  uint64_t hash;
  uint64_t id;			/* 0: refused by emlat_string */
  char *bytes;			/* NULL: free slot */
  ptrdiff_t len;
} latency_names[LATENCY_NAMES];
static int latency_names_used;

/* Forget every name (their ids belong to the session that ended).  */
static void
latency_names_clear (void)
{
  for (int i = 0; i < LATENCY_NAMES; i++)
    free (latency_names[i].bytes);
  memset (latency_names, 0, sizeof latency_names);
  latency_names_used = 0;
}

/* Note that a session starts, recording names if ON.  */
void
latency_names_start (bool on)
{
  latency_names_clear ();
  latency_naming = on;
}

/* Note that the session stopped.  */
void
latency_names_stop (void)
{
  latency_naming = false;
  latency_names_clear ();
}

/* The string id of the LEN bytes at S, interned now if new, or 0.  */
static uint64_t
latency_name_id (const char *s, ptrdiff_t len)
{
  if (len <= 0 || len > 1024)
    return 0;
  /* FNV-1a.  */
  uint64_t h = 0xcbf29ce484222325u;
  for (ptrdiff_t i = 0; i < len; i++)
    h = (h ^ (unsigned char) s[i]) * 0x100000001b3u;
  int i = h & (LATENCY_NAMES - 1);
  for (; latency_names[i].bytes; i = (i + 1) & (LATENCY_NAMES - 1))
    if (latency_names[i].hash == h && latency_names[i].len == len
	&& memcmp (latency_names[i].bytes, s, len) == 0)
      return latency_names[i].id;
  if (latency_names_used >= LATENCY_NAMES / 4 * 3)
    return 0;
  char *copy = malloc (len);
  if (!copy)
    return 0;
  memcpy (copy, s, len);
  latency_names[i].hash = h;
  latency_names[i].bytes = copy;
  latency_names[i].len = len;
  latency_names[i].id = emlat_string (s, len);
  latency_names_used++;
  return latency_names[i].id;
}

/* The string id of the name of function FN: a symbol's name, else
   "(anonymous)".  0 when no name is recorded.  */
uint64_t
latency_name_of_function (Lisp_Object fn)
{
  if (!latency_naming)
    return 0;
  if (SYMBOLP (fn) && !NILP (fn))
    {
      Lisp_Object name = SYMBOL_NAME (fn);
      return latency_name_id (SSDATA (name), SBYTES (name));
    }
  return latency_name_id ("(anonymous)", 11);
}

/* The string id of NAME, a Lisp string such as a process name, or 0.  */
uint64_t
latency_name_of_string (Lisp_Object name)
{
  if (!latency_naming || !STRINGP (name))
    return 0;
  return latency_name_id (SSDATA (name), SBYTES (name));
}

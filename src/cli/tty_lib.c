/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_lib.c -- where the verbs that preload the terminal library (`emlat
 * record`, `emlat replay --interpose`) find libemlat-tty.so: the file
 * EMLAT_TTY_LIB names, else beside the emlat binary (a build tree), else
 * in ../lib from it (an installed layout: PREFIX/bin/emlat and
 * PREFIX/lib/libemlat-tty.so).
 *
 * Invariant: a path returned names a readable file; one found beside the
 * binary is made absolute (the program may change directory before the
 * dynamic linker reads LD_PRELOAD in a child).
 */
#include "cli/cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
emlat_cli_find_tty_lib (char *out, size_t n)
{
  const char *env = getenv ("EMLAT_TTY_LIB");
  if (env && *env)
    {
      int w = snprintf (out, n, "%s", env);
      return w > 0 && (size_t)w < n && access (out, R_OK) == 0 ? 0 : -1;
    }
  char exe[PATH_MAX];
  ssize_t len = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0)
    return -1;
  exe[len] = '\0';
  char *slash = strrchr (exe, '/');
  if (!slash)
    return -1;
  *slash = '\0';
  static const char *const rel[] = { "libemlat-tty.so", "../lib/libemlat-tty.so" };
  for (size_t i = 0; i < 2; i++)
    {
      int w = snprintf (out, n, "%s/%s", exe, rel[i]);
      if (w > 0 && (size_t)w < n && access (out, R_OK) == 0)
        {
          char *real = realpath (out, NULL);
          if (real && strlen (real) < n)
            strcpy (out, real);
          free (real);
          return 0;
        }
    }
  return -1;
}

const char *
emlat_cli_tty_lib_missing (void)
{
  const char *env = getenv ("EMLAT_TTY_LIB");
  return env && *env ? "EMLAT_TTY_LIB names no readable file"
                     : "libemlat-tty.so not found next to emlat, in ../lib, or in EMLAT_TTY_LIB";
}

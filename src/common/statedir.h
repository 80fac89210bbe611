/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * statedir.h -- where profiles go by default: ${XDG_STATE_HOME}/emlat when
 * XDG_STATE_HOME is an absolute path, else ~/.local/state/emlat.  Shared by
 * libemlat-tty.so (src/tty) and `emlat record` (src/cli), header-only
 * because the two are linked separately.
 *
 * Invariants: directories this code creates get mode 0700; an existing
 * directory is used as it is (its mode is the user's choice); nothing is
 * ever removed.  Setup time only (getenv, getpwuid_r, mkdir).
 */
#ifndef EMLAT_TTY_STATEDIR_H
#define EMLAT_TTY_STATEDIR_H

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Write the default profile directory into OUT (N bytes).  Returns 0,
   -ENOENT when no home directory is known, -ENAMETOOLONG. */
static inline int
emlat_state_dir (char *out, size_t n)
{
  const char *xdg = getenv ("XDG_STATE_HOME");
  int w;
  if (xdg && xdg[0] == '/')
    w = snprintf (out, n, "%s/emlat", xdg);
  else
    {
      const char *home = getenv ("HOME");
      struct passwd pw, *res = NULL;
      char buf[4096];
      if (!home || home[0] != '/')
        {
          if (getpwuid_r (getuid (), &pw, buf, sizeof buf, &res) != 0 || !res
              || !res->pw_dir || res->pw_dir[0] != '/')
            return -ENOENT;
          home = res->pw_dir;
        }
      w = snprintf (out, n, "%s/.local/state/emlat", home);
    }
  if (w < 0 || (size_t)w >= n)
    return -ENAMETOOLONG;
  return 0;
}

/* Create DIR and any missing parent with mode 0700.  0 or -errno. */
static inline int
emlat_mkdir_p (const char *dir)
{
  char tmp[4096];
  size_t len = strlen (dir);
  if (len == 0 || len >= sizeof tmp)
    return -ENAMETOOLONG;
  memcpy (tmp, dir, len + 1);
  for (size_t i = 1; i <= len; i++)
    if (tmp[i] == '/' || tmp[i] == '\0')
      {
        char c = tmp[i];
        tmp[i] = '\0';
        if (mkdir (tmp, 0700) != 0 && errno != EEXIST)
          return -errno;
        tmp[i] = c;
      }
  struct stat st;
  if (stat (dir, &st) != 0)
    return -errno;
  return S_ISDIR (st.st_mode) ? 0 : -ENOTDIR;
}

#endif /* EMLAT_TTY_STATEDIR_H */

/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_workload.h -- the built-in workloads of `emlat replay` and the
 * generator of the file the paging workload pages through.
 *
 * Each workload is generated as script text in the documented format and
 * parsed by the same parser as --script files, so a built-in workload is
 * exactly a script (`emlat replay --workload NAME --print-script` shows
 * it).  Workloads are deterministic: same parameters, same steps.
 */
#ifndef EMLAT_REPLAY_WORKLOAD_H
#define EMLAT_REPLAY_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

struct replay_workload_params
{
  unsigned keys;  /* keystrokes (resizes for `resize`); 0 = the default */
  unsigned wpm;   /* typing speed */
  unsigned rows, cols;
};

/* Names of the built-in workloads, NULL-terminated. */
extern const char *const replay_workload_names[];

/* The default keystroke count of workload NAME, or 0 if unknown. */
unsigned replay_workload_default_keys (const char *name);

/* Script text of workload NAME (heap string, caller frees), or NULL when
   the name is unknown or memory is short. */
char *replay_workload_script (const char *name,
                              const struct replay_workload_params *p);

/* Write LINES lines of synthetic text to a new file PATH (never replaces an
   existing file).  Returns 0 or -errno. */
int replay_make_file (const char *path, uint64_t lines);

#endif /* EMLAT_REPLAY_WORKLOAD_H */

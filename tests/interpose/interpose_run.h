/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * interpose_run.h -- what the tests in tests/interpose/ share: find a
 * Debian terminal program, run it under `emlat replay --interpose` (the
 * driver's profile FILE.emlat, the program's own FILE.tty.emlat, the
 * per-send --tsv table), and load what they wrote.  Header-only: each
 * tests/interpose/test_*.c is built alone with tests/lib linked in.
 *
 * Sanitizer builds: libemlat-tty.so of a `make asan-test` build needs the
 * ASan runtime, which Debian's vim/nano/less do not carry.  There CMD is
 * started through the dynamic loader with the shared clang runtime
 * preloaded (`ld.so --preload libclang_rt.asan-x86_64.so PROGRAM ...`), so
 * the interposition library runs instrumented inside the real program;
 * ASAN_OPTIONS gets verify_asan_link_order=0 (the runtime follows the
 * library in the preload list) and detect_leaks=0 (the programs' own
 * exit-time leaks are not ours to judge).
 *
 * Invariants: a helper that fails reports a failed check and returns an
 * error value; nothing here measures time.
 */
#ifndef EMLAT_INTERPOSE_RUN_H
#define EMLAT_INTERPOSE_RUN_H

#include "replay_test.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include "sanitizer.h"
#define IR_ASAN TU_ASAN

/* The first of CANDIDATES (absolute paths) that is executable, or NULL. */
static inline const char *ir_find (const char *const *candidates)
{
  for (size_t i = 0; candidates[i]; i++)
    if (access (candidates[i], X_OK) == 0)
      return candidates[i];
  return NULL;
}

/* Debian's binaries: vim (vim.basic), nano, less; NULL when missing. */
static inline const char *ir_vim (void)
{
  static const char *const c[] = { "/usr/bin/vim.basic", "/usr/bin/vim", NULL };
  return ir_find (c);
}
static inline const char *ir_nano (void)
{
  static const char *const c[] = { "/usr/bin/nano", "/bin/nano", NULL };
  return ir_find (c);
}
static inline const char *ir_less (void)
{
  static const char *const c[] = { "/usr/bin/less", "/bin/less", NULL };
  return ir_find (c);
}

/* One run of `emlat replay --interpose`. */
struct ir_run
{
  char *profile, *tty_profile, *tsv; /* paths (heap) */
  struct tu_result res;
  int ran;                           /* res is valid */
  struct rt_profile drv, prog;       /* loaded when ran */
  int drv_loaded, prog_loaded;
};

#define IR_MAX_ARGS 48

/* Run `emlat replay [OPTS...] --interpose -o DIR/NAME.emlat --tsv ...
   -- CMD...` (OPTS and CMD NULL-terminated) with ENV_EXTRA entries added to
   the environment (NULL-terminated, may be NULL); load both profiles.
   0 when the driver ran and both profiles loaded, else -1 (reported). */
static inline int ir_replay (struct ir_run *r, const char *dir, const char *name,
                             char *const *opts, char *const *cmd,
                             char *const *env_extra, unsigned timeout_ms)
{
  memset (r, 0, sizeof *r);
  r->profile = tu_strf ("%s/%s.emlat", dir, name);
  r->tty_profile = tu_strf ("%s/%s.tty.emlat", dir, name);
  r->tsv = tu_strf ("%s/%s.tsv", dir, name);
  char *argv[IR_MAX_ARGS + 16];
  char *env[16];
  size_t n = 0, ne = 0;
  char *rt = NULL;
  argv[n++] = (char *)rt_emlat ();
  argv[n++] = (char *)"replay";
  for (size_t i = 0; opts && opts[i] && n < IR_MAX_ARGS; i++)
    argv[n++] = opts[i];
  argv[n++] = (char *)"--interpose";
  argv[n++] = (char *)"-o";
  argv[n++] = r->profile;
  argv[n++] = (char *)"--tsv";
  argv[n++] = r->tsv;
  argv[n++] = (char *)"--";
  if (IR_ASAN)
    {
      rt = tu_asan_runtime ();
      const char *interp = tu_interp ();
      CHECK (rt && interp, "ASan build: the shared ASan runtime (%s) and the "
             "program interpreter (%s) are found", rt ? rt : "none",
             interp ? interp : "none");
      if (!rt || !interp)
        return -1;
      argv[n++] = (char *)interp;
      argv[n++] = (char *)"--preload";
      argv[n++] = rt;
      env[ne++] = (char *)"ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0";
    }
  for (size_t i = 0; cmd[i] && n < IR_MAX_ARGS + 12; i++)
    argv[n++] = cmd[i];
  argv[n] = NULL;
  for (size_t i = 0; env_extra && env_extra[i] && ne < 15; i++)
    env[ne++] = env_extra[i];
  env[ne] = NULL;
  struct tu_cmd c = { argv, ne ? env : NULL, NULL, 0, timeout_ms };
  int rc = tu_run (&c, &r->res);
  free (rt);
  CHECK (rc == 0, "emlat replay started: %d", rc);
  if (rc != 0)
    return -1;
  r->ran = 1;
  printf ("# %s: replay summary\n%s", name, r->res.out);
  if (r->res.err_len)
    printf ("# stderr: %s\n", r->res.err);
  CHECK (r->res.exited && r->res.exit_code == 0,
         "%s: emlat replay exit 0 (exited %d, code %d, signal %d)", name,
         r->res.exited, r->res.exit_code, r->res.term_signal);
  r->drv_loaded = rt_load (&r->drv, r->profile) == 0;
  r->prog_loaded = rt_load (&r->prog, r->tty_profile) == 0;
  return r->drv_loaded && r->prog_loaded ? 0 : -1;
}

static inline void ir_free (struct ir_run *r)
{
  if (r->drv_loaded)
    rt_free (&r->drv);
  if (r->prog_loaded)
    rt_free (&r->prog);
  if (r->ran)
    tu_result_free (&r->res);
  free (r->profile);
  free (r->tty_profile);
  free (r->tsv);
  memset (r, 0, sizeof *r);
}

#endif /* EMLAT_INTERPOSE_RUN_H */

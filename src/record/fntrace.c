/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fntrace.c -- automatic function tracing for programs compiled with
 * -finstrument-functions (docs/API.md "Function tracing"): the compiler
 * calls __cyg_profile_func_enter and __cyg_profile_func_exit around every
 * function of the instrumented code, and this file records each as an
 * EVENT record fn_enter / fn_exit (FORMAT.md 6.9) named by its module --
 * the string "BASENAME BUILD-ID" -- with the function's module-relative
 * address.  Symbols are never looked up while recording: a reader
 * symbolizes from the module's build id (`emlat report --symbols`, libdw),
 * and a function it cannot name stays module+offset.
 *
 * Invariants:
 *  - the tracer is not traced: libemlat is not compiled with
 *    -finstrument-functions and these hooks carry no_instrument_function;
 *  - a per-thread guard makes a hook called from inside a hook (a signal
 *    handler of instrumented code, a hook's own callee) a no-op;
 *  - off (no session): one load of emlat_trace_on and a branch;
 *  - on: a per-thread cache of the last modules' address ranges (and the
 *    session generation it belongs to) makes a call one range compare, the
 *    clock and a one-slot record; a module not in the cache costs a
 *    dl_iterate_phdr and, once per module and session, interning its name
 *    under a lock.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "emlat/emlat.h"
#include "record/app.h"
#include "record/buildid.h"
#include "record/state.h"

#define NO_INSTR __attribute__ ((no_instrument_function))
#define FN_CACHE 4

struct fn_module
{
  uintptr_t lo, hi, base;
  uint64_t name; /* string id of "BASENAME BUILD-ID" */
};

struct fn_tls
{
  unsigned guard;
  unsigned next;
  uint64_t gen;
  struct fn_module m[FN_CACHE];
};

static __thread struct fn_tls fn_tls __attribute__ ((tls_model ("initial-exec")));

/* Out of line: the module of A in session GEN into a cache entry. */
static NO_INSTR __attribute__ ((noinline)) struct fn_module *
module_slow (uintptr_t a)
{
  struct emlat_module_id mod;
  if (emlat_module_of ((const void *)a, &mod) != 0)
    return NULL;
  const char *base = strrchr (mod.path, '/');
  base = base ? base + 1 : mod.path;
  if (!*base)
    base = program_invocation_short_name; /* the executable's loader name is "" */
  char hex[2 * EMLAT_BUILD_ID_MAX + 1];
  if (mod.build_id_len)
    emlat_hex (mod.build_id, mod.build_id_len, hex);
  else
    strcpy (hex, "-");
  char name[320];
  int n = snprintf (name, sizeof name, "%.200s %s", base, hex);
  if (n < 0 || (size_t)n >= sizeof name)
    return NULL;
  uint64_t id = emlat_app_intern (name, (size_t)n);
  if (!id)
    return NULL;
  struct fn_module *m = &fn_tls.m[fn_tls.next++ % FN_CACHE];
  m->lo = mod.lo;
  m->hi = mod.hi;
  m->base = mod.base;
  m->name = id;
  return m;
}

static NO_INSTR inline void
fn_record (unsigned tag, void *fn)
{
  if (fn_tls.guard)
    return;
  fn_tls.guard = 1;
  /* Relaxed: see emlat_g_active_gen in state.h; a stale value only sends
     the record to a ring that stays mapped (or nowhere). */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  if (gen == 0)
    goto out;
  if (fn_tls.gen != gen)
    {
      memset (fn_tls.m, 0, sizeof fn_tls.m); /* ids of another session */
      fn_tls.gen = gen;
    }
  uintptr_t a = (uintptr_t)fn;
  struct fn_module *m = NULL;
  for (unsigned i = 0; i < FN_CACHE; i++)
    if (a - fn_tls.m[i].lo < fn_tls.m[i].hi - fn_tls.m[i].lo)
      {
        m = &fn_tls.m[i];
        break;
      }
  if (!m && !(m = module_slow (a)))
    goto out;
  emlat_app_put (tag, m->name, a - m->base, 0);
out:
  fn_tls.guard = 0;
}

EMLAT_API NO_INSTR void __cyg_profile_func_enter (void *fn, void *site);
EMLAT_API NO_INSTR void __cyg_profile_func_exit (void *fn, void *site);

void
__cyg_profile_func_enter (void *fn, void *site)
{
  (void)site;
  if (__builtin_expect (__atomic_load_n (&emlat_trace_on, __ATOMIC_RELAXED) != 0, 0))
    fn_record (EMLAT_EV_FN_ENTER, fn);
}

void
__cyg_profile_func_exit (void *fn, void *site)
{
  (void)site;
  if (__builtin_expect (__atomic_load_n (&emlat_trace_on, __ATOMIC_RELAXED) != 0, 0))
    fn_record (EMLAT_EV_FN_EXIT, fn);
}

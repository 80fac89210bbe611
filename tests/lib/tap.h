/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tap.h -- the assertion vocabulary of emlat's C tests.
 *
 * A test program is main() calling CHECK* macros and ending with
 * TEST_DONE().  A check that holds prints nothing; a check that fails
 * prints "FAIL file:line: expression" and the values involved, counts the
 * failure, and the test continues (so one run shows every broken property).
 * TEST_DONE() prints "# N checks, M failed" and returns 1 from main when any
 * check failed, else 0.  TEST_SKIP() exits with 77, the code tests/run.sh
 * reports as SKIP: only for a facility that is genuinely unavailable, with
 * the reason on stdout.
 *
 * Invariants: every macro evaluates each argument exactly once; the
 * counters live in tap.c so that helpers in tests/lib can check too; output
 * goes to stdout and is flushed after every message, so that it interleaves
 * sensibly with child output in the per-test log.
 */
#ifndef EMLAT_TAP_H
#define EMLAT_TAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The exit code tests/run.sh reports as SKIP (the automake convention). */
#define TEST_SKIP_CODE 77

extern unsigned long tap_checks;
extern unsigned long tap_failures;

/* Report one failed check: "FAIL file:line: what" then the formatted detail. */
void tap_fail (const char *file, int line, const char *what, const char *fmt,
               ...) __attribute__ ((format (printf, 4, 5)));
/* A comment line "# ..." in the output (progress, measured values). */
void tap_diag (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
/* Print the summary; return 0 when every check held, else 1. */
int tap_done (void);
/* Print the reason and exit with TEST_SKIP_CODE. */
_Noreturn void tap_skip (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));

/* Helpers behind the typed comparisons: each returns nonzero if it held. */
int tap_eq_u64 (const char *file, int line, const char *ea, const char *eb,
                uint64_t a, uint64_t b);
int tap_eq_i64 (const char *file, int line, const char *ea, const char *eb,
                int64_t a, int64_t b);
int tap_cmp_u64 (const char *file, int line, const char *ea, const char *op,
                 const char *eb, uint64_t a, uint64_t b, int held);
int tap_eq_str (const char *file, int line, const char *ea, const char *eb,
                const char *a, const char *b);
int tap_eq_mem (const char *file, int line, const char *ea, const char *eb,
                const void *a, const void *b, size_t n);
int tap_contains (const char *file, int line, const char *ehay,
                  const char *hay, const char *needle);

/* CHECK (cond, fmt, ...): COND must hold; the message says what it means. */
#define CHECK(cond, ...)                                                       \
  do                                                                           \
    {                                                                          \
      tap_checks++;                                                            \
      if (!(cond))                                                             \
        tap_fail (__FILE__, __LINE__, #cond, __VA_ARGS__);                     \
    }                                                                          \
  while (0)

#define CHECK_EQ_U64(a, b)                                                     \
  ((void)tap_eq_u64 (__FILE__, __LINE__, #a, #b, (uint64_t)(a), (uint64_t)(b)))
#define CHECK_EQ_I64(a, b)                                                     \
  ((void)tap_eq_i64 (__FILE__, __LINE__, #a, #b, (int64_t)(a), (int64_t)(b)))

/* Ordered comparisons of unsigned 64-bit values. */
#define TAP_CMP_U64_(a, op, b)                                                 \
  __extension__ ({                                                             \
    uint64_t tap_a_ = (uint64_t)(a), tap_b_ = (uint64_t)(b);                   \
    tap_cmp_u64 (__FILE__, __LINE__, #a, #op, #b, tap_a_, tap_b_,              \
                 tap_a_ op tap_b_);                                            \
  })
#define CHECK_LT_U64(a, b) ((void)TAP_CMP_U64_ (a, <, b))
#define CHECK_LE_U64(a, b) ((void)TAP_CMP_U64_ (a, <=, b))
#define CHECK_GT_U64(a, b) ((void)TAP_CMP_U64_ (a, >, b))
#define CHECK_GE_U64(a, b) ((void)TAP_CMP_U64_ (a, >=, b))
#define CHECK_NE_U64(a, b) ((void)TAP_CMP_U64_ (a, !=, b))

/* NULL compares equal only to NULL. */
#define CHECK_EQ_STR(a, b)                                                     \
  ((void)tap_eq_str (__FILE__, __LINE__, #a, #b, (a), (b)))
#define CHECK_EQ_MEM(a, b, n)                                                  \
  ((void)tap_eq_mem (__FILE__, __LINE__, #a, #b, (a), (b), (n)))
/* HAY (a NUL-terminated string, NULL fails) contains NEEDLE. */
#define CHECK_CONTAINS(hay, needle)                                            \
  ((void)tap_contains (__FILE__, __LINE__, #hay, (hay), (needle)))

/* A call returning 0 or a negative errno value must return 0. */
#define CHECK_OK(call)                                                         \
  do                                                                           \
    {                                                                          \
      long tap_rc_ = (long)(call);                                             \
      tap_checks++;                                                            \
      if (tap_rc_ != 0)                                                        \
        tap_fail (__FILE__, __LINE__, #call, "returned %ld (%s)", tap_rc_,     \
                  tap_rc_ < 0 ? strerror ((int)-tap_rc_) : "not an errno");   \
    }                                                                          \
  while (0)

#define TEST_DIAG(...) tap_diag (__VA_ARGS__)
#define TEST_SKIP(...) tap_skip (__VA_ARGS__)
#define TEST_DONE() return tap_done ()

#endif /* EMLAT_TAP_H */

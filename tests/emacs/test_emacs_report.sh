#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_report.sh -- the Lisp report of the profiled Emacs
# (`latency-profile-summary' in emacs/src/latencysum.c and
# `M-x latency-profile-report' in emacs/lisp/latency-report.el) shows
# exactly the numbers of `emlat report --json' on the same profile.
#
# Profiles, each read by both sides:
#   emacs   recorded by the profiled Emacs itself (-Q -nw in a script(1)
#           pseudo-terminal: typing with pauses, a burst, C-x C-b,
#           an error, M-x kill-emacs), under the names policy
#           (--latency-profile-names), so that the work by name is
#           compared too;
#   demo    written by `emlat demo' (every root kind, spans on two
#           threads, superseded and open interactions);
#   lossy   written through the producer API by a small program compiled
#           here against libemlat.a: a 16-slot ring that overflows (LOSS
#           records) and a 700-byte rotation size (a rotated set of files,
#           passed to both sides as one list).
# For each, tests/emacs/latency-report-tests.el (ERT, in batch) compares
# every count, every quantile of every metric of every group, the tail
# interaction and its waterfall rows, split and counters, the overhead,
# the loss intervals, the unavailable-boundary counts, and the work by
# name; checks the requested-interaction waterfall against
# `--interaction'; checks that the report buffer shows the four sections
# (and the work by name), with "1 interaction" in the singular, and that
# its cause ids and names are buttons showing their waterfall; and checks
# that the report code was autoloaded, not preloaded.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built.  The Emacs
# profile needs script(1); without it that profile is left out (the
# others still run).
set -eu

. "$(dirname "$0")/preamble.sh"
BUILD=${BUILD:-build}

tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*"; exit 1; }

# --- the profiles -------------------------------------------------------

"$EMLAT" demo -o "$tmp/demo.emlat" > "$tmp/demo.log" 2>&1 \
  || { cat "$tmp/demo.log"; fail "emlat demo"; }

cat > "$tmp/lossy.c" <<'EOF'
/* Overflow a 16-slot ring (the writer wakes every 200 ms) and rotate
   every 700 bytes: LOSS records and a rotated set. */
#include <emlat/emlat.h>
#include <stdio.h>
#include <time.h>
int
main (int argc, char **argv)
{
  struct emlat_options o = { .path = argv[1], .ring_slots = 16,
                             .drain_interval_us = 200000,
                             .rotate_bytes = 700 };
  (void)argc;
  if (emlat_start (&o) != 0)
    return 1;
  for (int round = 0; round < 8; round++)
    {
      for (int i = 0; i < 200; i++)
        {
          uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
          emlat_ix_mark (c, EMLAT_T_COMMAND_BEGIN);
          emlat_ix_mark (c, EMLAT_T_COMMAND_END);
          emlat_ix_end (c, EMLAT_STATUS_NORMAL);
        }
      struct timespec d = { 0, 300 * 1000 * 1000 };
      nanosleep (&d, NULL);
    }
  return emlat_stop () != 0;
}
EOF
have_lossy=0
# Build it the way this libemlat.a was built: an ASan+UBSan library (make
# asan-test) needs the sanitizer runtimes at link time.
lossy_cc=cc
lossy_san=
if nm "$BUILD/libemlat.a" 2>/dev/null | grep -q __asan_; then
  lossy_cc=clang
  lossy_san=-fsanitize=address,undefined
fi
if command -v $lossy_cc >/dev/null 2>&1 \
   && $lossy_cc -std=c17 $lossy_san -I"$SRCDIR/include" -o "$tmp/lossy" "$tmp/lossy.c" \
        "$BUILD/libemlat.a" -pthread -lm 2> "$tmp/cc.log"; then
  "$tmp/lossy" "$tmp/lossy.emlat" || fail "the lossy producer failed"
  have_lossy=1
else
  cat "$tmp/cc.log" 2>/dev/null || true
  fail "could not compile the lossy producer against $BUILD/libemlat.a"
fi

have_emacs_profile=0
if command -v script >/dev/null 2>&1; then
  keys () {
    sleep 3
    for c in a b c; do printf '%s' "$c"; sleep 0.4; done
    printf 'xyzzyxyzzy'               # a burst: superseded redisplays
    sleep 0.6
    printf '\030'; sleep 0.6; printf '\002'   # C-x <pause> C-b
    sleep 0.6
    printf '\033<'; sleep 0.4; printf '\020'  # M-< then C-p: an error
    sleep 0.6
    printf '\033xkill-emacs\r'
    sleep 2
  }
  keys | TERM=xterm timeout 60 script -qfec \
    "stty rows 24 cols 80; exec '$EMACS_BIN' -Q -nw --latency-profile-names --latency-profile='$tmp/emacs.emlat'" \
    /dev/null > "$tmp/screen.log" 2>&1 || fail "the recorded Emacs did not exit cleanly"
  [ -s "$tmp/emacs.emlat" ] || fail "the profiled Emacs wrote no profile"
  have_emacs_profile=1
else
  echo "note: script(1) missing; no Emacs-recorded profile in this run"
fi

# --- emlat report --json of each ----------------------------------------

# report NAME FILE...: NAME.json, and NAME-ix.json for the waterfall of the
# second slowest interaction (another one than the tail when there are
# two); NAME.files lists the files as a Lisp list.
cases=$tmp/cases.el
echo "(setq latency-report-tests-cases (list" > "$cases"
report () {
  name=$1
  shift
  rc=0
  "$EMLAT" report --json "$@" > "$tmp/$name.json" 2> "$tmp/$name.err" || rc=$?
  [ "$rc" -le 1 ] || { cat "$tmp/$name.err"; fail "emlat report --json of $name (exit $rc)"; }
  cause=$(jq -r '.slowest.interactions | if length > 1 then .[1].cause else (.[0].cause // empty) end' \
    "$tmp/$name.json")
  ixjson=nil
  if [ -n "$cause" ]; then
    "$EMLAT" report --json --interaction "$cause" "$@" > "$tmp/$name-ix.json" 2>/dev/null || true
    ixjson="\"$tmp/$name-ix.json\""
  fi
  files=
  for f in "$@"; do files="$files \"$f\""; done
  echo "  (list \"$name\" \"$tmp/$name.json\" (list$files) ${cause:-nil} $ixjson)" >> "$cases"
}
report demo "$tmp/demo.emlat"
if [ "$have_lossy" = 1 ]; then
  # shellcheck disable=SC2046
  set -- $(ls "$tmp"/lossy*.emlat | LC_ALL=C sort)
  [ $# -ge 2 ] || fail "the lossy producer did not rotate (files: $*)"
  report lossy "$@"
  [ "$(jq '.losses.loss_records' "$tmp/lossy.json")" -ge 1 ] \
    || fail "the lossy profile has no LOSS record"
fi
[ "$have_emacs_profile" = 1 ] && report emacs "$tmp/emacs.emlat"
echo "))" >> "$cases"

# --- the Lisp side --------------------------------------------------------

out=$tmp/ert.log
if ! "$EMACS_BIN" -Q --batch -l ert -l "$cases" \
     -l "$SRCDIR/tests/emacs/latency-report-tests.el" \
     -f ert-run-tests-batch-and-exit > "$out" 2>&1; then
  cat "$out"
  fail "ERT tests of the latency report"
fi
grep -q 'Ran [1-9][0-9]* tests, [0-9]* results as expected, 0 unexpected' "$out" \
  || { cat "$out"; fail "unexpected ERT summary"; }
grep 'compared:' "$out" || true
grep "Ran [0-9]* tests" "$out"

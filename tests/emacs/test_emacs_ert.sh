#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_ert.sh -- the ERT tests that emlat's patch adds to Emacs
# (test/src/latency-tests.el: start, status, rotate, stop and their errors)
# pass in the profiled Emacs, in batch mode.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built.
set -eu

cache=${EMACS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/emlat/emacs-${EMACS_VERSION:-30.1}}
EMACS_BIN=${EMACS_BIN:-$cache/tree/src/emacs}
tests=$(dirname "$EMACS_BIN")/../test/src/latency-tests.el

if [ ! -x "$EMACS_BIN" ]; then
  echo "SKIP: no profiled Emacs at $EMACS_BIN (run 'make emacs' first)"
  exit 77
fi
[ -f "$tests" ] || { echo "FAIL: $tests is missing from the build tree"; exit 1; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! "$EMACS_BIN" -Q --batch -l ert -l "$tests" \
     -f ert-run-tests-batch-and-exit > "$out" 2>&1; then
  cat "$out"
  echo "FAIL: ERT tests of latency.c"
  exit 1
fi
grep -q 'Ran [1-9][0-9]* tests, [0-9]* results as expected, 0 unexpected' "$out" \
  || { cat "$out"; echo "FAIL: unexpected ERT summary"; exit 1; }
grep "^Ran " "$out"

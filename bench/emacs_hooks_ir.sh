#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench/emacs_hooks_ir.sh -- what the profiled Emacs's hooks and libemlat
# execute per typed key on Emacs's main thread, against Emacs's own work,
# with valgrind's callgrind (docs/PERFORMANCE.md, "Where the added CPU
# goes").
#
#   BUILD=build EMACS_BIN=PATH sh bench/emacs_hooks_ir.sh [--functions]
#
# `emacs -Q -nw --latency-profile=FILE` runs under `valgrind
# --tool=callgrind --separate-threads=yes` inside `emlat replay`, which
# types K characters of the typing workload (after a 1 s pause, at 60 wpm:
# callgrind slows Emacs about 50 times) and C-x C-c, for K = K1 and K2
# (EMACS_IR_K1, EMACS_IR_K2: default 30 and 90).  From the main thread's
# self cost per function (callgrind_annotate --inclusive=no):
#   hooks  the functions of latency*.c (the native hooks) and of libemlat
#          (src/record, src/common, src/format, include/emlat);
#   clock  the clock reads (clock_gettime in libc and the vDSO);
#   all    every function of the thread.
# The difference between the two runs divided by K2 - K1 cancels start-up,
# the session's start and exit.  Prints
#   METRIC emacs_ir_hooks_per_key X instructions
#   METRIC emacs_ir_clock_per_key X instructions
#   METRIC emacs_ir_main_per_key X instructions
#   METRIC emacs_ir_hooks_share X percent      (hooks / (all - hooks - clock))
# and, with --functions, the per-key difference of every hooks function,
# largest first.  Emacs's own instructions per key move by about 10 %
# between runs (its timers and GC run on the clock): the share's
# denominator is indicative; the hooks' count repeats within a few
# percent.
#
# Invariants: POSIX sh; exits 77 without valgrind or without EMACS_BIN;
# everything goes to a temporary directory that is removed.

set -u
BUILD=${BUILD:-build}
EMLAT=${EMLAT:-$BUILD/emlat}
EMACS_BIN=${EMACS_BIN:-}
k1=${EMACS_IR_K1:-30}
k2=${EMACS_IR_K2:-90}
functions=0
for a in "$@"; do
  case $a in
    --functions) functions=1 ;;
    *) echo "usage: emacs_hooks_ir.sh [--functions]" >&2; exit 2 ;;
  esac
done
if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
  echo "emacs_hooks_ir.sh: skipped, valgrind is not installed (scripts/deps.sh bench)" >&2
  exit 77
fi
if [ -z "$EMACS_BIN" ] || [ ! -x "$EMACS_BIN" ]; then
  echo "emacs_hooks_ir.sh: skipped, no profiled Emacs (EMACS_BIN; make emacs)" >&2
  exit 77
fi
if [ ! -x "$EMLAT" ]; then
  echo "emacs_hooks_ir.sh: no $EMLAT (make)" >&2
  exit 1
fi
if [ "$k2" -le "$k1" ]; then
  echo "emacs_hooks_ir.sh: EMACS_IR_K2 ($k2) must exceed EMACS_IR_K1 ($k1)" >&2
  exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emlat-emacs-ir-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# run K: Emacs under callgrind types K keys; the main thread's callgrind
# file is $tmp/cg-K.main.
run () {
  {
    echo "pause 1s"
    "$EMLAT" replay --workload typing --keys "$1" --print-script | sed '/^#/d; s/^set wpm .*/set wpm 60/'
    echo "pause 2s"
    echo "key C-x C-c"
  } >"$tmp/k$1.script" || return 1
  "$EMLAT" replay --script "$tmp/k$1.script" --settle 2s --settle-max 120s --linger 60s \
    --grace 30s --timeout 1200 -o "$tmp/drv-$1.emlat" -- \
    valgrind --tool=callgrind --separate-threads=yes --dump-instr=no \
    --callgrind-out-file="$tmp/cg-$1" "$EMACS_BIN" -Q -nw \
    --latency-profile="$tmp/emacs-$1.emlat" >"$tmp/replay-$1.out" 2>&1
  if ! grep -q 'cmd: *exited with status 0' "$tmp/replay-$1.out"; then
    echo "emacs_hooks_ir.sh: Emacs under callgrind did not exit by itself ($1 keys):" >&2
    tail -15 "$tmp/replay-$1.out" >&2
    return 1
  fi
  # The main thread is the first (thread 1): FILE-01.
  main=$(ls "$tmp"/cg-"$1"-01 "$tmp"/cg-"$1".*-01 2>/dev/null | head -1)
  if [ -z "$main" ]; then
    echo "emacs_hooks_ir.sh: no callgrind output of the main thread ($1 keys)" >&2
    return 1
  fi
  mv "$main" "$tmp/cg-$1.main"
}

# selfcost FILE: "class function count" lines, class hooks, clock or emacs.
selfcost () {
  callgrind_annotate --auto=no --inclusive=no --threshold=100 "$1" 2>/dev/null \
    | awk '/^ *[0-9,]+ .*:/ {
             c = $1; gsub(",", "", c); f = $0
             sub(/^ *[0-9,]+ +(\([ 0-9.]+%\) +)?/, "", f); sub(/ \[.*$/, "", f)
             file = f; sub(/:[^:]*$/, "", file); fn = f; sub(/^.*:/, "", fn)
             base = file; sub(/^.*\//, "", base)
             cls = "emacs"
             if (base ~ /^latency[a-z]*\.c$/ || file ~ /(^|\/)src\/(record|common|format)\// \
                 || file ~ /(^|\/)include\/emlat\//)
               cls = "hooks"
             else if (fn ~ /clock_gettime/)
               cls = "clock"
             print cls, base ":" fn, c }'
}

for k in "$k1" "$k2"; do
  run "$k" || exit 1
  selfcost "$tmp/cg-$k.main" >"$tmp/self-$k"
done

awk -v k1="$k1" -v k2="$k2" -v fn="$functions" '
  FNR == 1 { run++ }
  { v = (run == 1 ? -1 : 1) * $3; cls[$1] += v; all += v; per[$2] += (cls_of[$2] = $1) == "hooks" ? v : 0 }
  END {
    d = k2 - k1
    hooks = cls["hooks"] / d; clock = cls["clock"] / d; main = all / d
    own = main - hooks - clock
    printf "METRIC emacs_ir_hooks_per_key %.0f instructions\n", hooks
    printf "METRIC emacs_ir_clock_per_key %.0f instructions\n", clock
    printf "METRIC emacs_ir_main_per_key %.0f instructions\n", main
    share = 0
    if (own > 0)
      share = 100 * hooks / own
    printf "METRIC emacs_ir_hooks_share %.2f percent\n", share
    if (fn)
      for (f in per)
        if (per[f] / d >= 5 || per[f] / d <= -5)
          printf "%10.0f  %s\n", per[f] / d, f | "sort -rn"
  }' "$tmp/self-$k1" "$tmp/self-$k2"

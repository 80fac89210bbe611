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
# (EMACS_IR_K1, EMACS_IR_K2: default 30 and 90).  On Emacs's main thread:
#   hooks  every call into a native hook (a function latency_* or
#          Flatency_* of latency*.c) from Emacs, with everything it
#          executes: the hook, libemlat, memcpy, the clock reads, the
#          Emacs functions it asks (window sizes); less the fflush that
#          latency_tty_flush makes for Emacs, which Emacs makes anyway.
#          Plus the probes of latency.h that the compiler inlines into
#          Emacs's own functions (latency_count, latency_note_tty_output:
#          the code whose line is in latency.h);
#   clock  of these, the libc part of the clock reads (valgrind does not
#          run the vDSO), for information;
#   all    every instruction of the thread.
# The difference between the two runs divided by K2 - K1 cancels start-up,
# the session's start and exit.  Prints
#   METRIC emacs_ir_hooks_per_key X instructions
#   METRIC emacs_ir_clock_per_key X instructions
#   METRIC emacs_clock_reads_per_key X reads   (the calls into
#          clock_gettime of the monotonic clock from the hooks and
#          libemlat: each a vDSO read that valgrind does not run, so
#          that no instruction count above includes it)
#   METRIC emacs_thread_cpu_reads_per_key X reads  (the calls for the
#          thread CPU clock: each a system call, likewise uncounted)
#   METRIC emacs_ir_main_per_key X instructions
#   METRIC emacs_ir_hooks_share X percent      (hooks / (all - hooks))
#   METRIC emacs_ring_slots_per_key X slots    (32 bytes each: what the
#          hooks write per key, from the profiles' stats.records_accepted;
#          a ring line costs a keystroke more than a few instructions do,
#          docs/PERFORMANCE.md)
#   METRIC emacs_ir_writer_per_key X instructions (the recorder's writer
#          thread, the thread that ran emlat_writer_main: draining,
#          encoding, writing and mapping ahead for a key's records), only
#          when Emacs ran one: under `emlat replay` the replay drains
#          Emacs's rings (docs/DESIGN.md 8.7), as in the overhead gate, so
#          Emacs has no writer thread and the script says so instead
# and, with --functions, the per-key difference of each hook with all it
# calls, and of the self cost of each function of the hooks and libemlat,
# largest first.  With --cache, callgrind also simulates the caches
# (--cache-sim=yes; L1i 64 KiB 16-way, L1d 48 KiB 12-way, last level
# 2 MiB 16-way, 64-byte lines: one core of the Xeon of 2026-12-03's runs,
# given explicitly so that runs on other machines compare), and prints
# the misses of the hooks' and libemlat's own code (self cost: the
# functions counted as hooks above, without libc's memcpy and clock)
# per key:
#   METRIC emacs_hooks_l1i_misses_per_key X misses  (I1mr)
#   METRIC emacs_hooks_l1d_misses_per_key X misses  (D1mr + D1mw)
#   METRIC emacs_hooks_ll_misses_per_key X misses   (ILmr + DLmr + DLmw)
#   METRIC emacs_main_l1_misses_per_key X misses    (the whole main thread)
#   METRIC emacs_main_ll_misses_per_key X misses
#   METRIC emacs_hooks_l1_miss_share X percent      (hooks / Emacs's own)
#   METRIC emacs_hooks_ll_miss_share X percent
# A hook runs between long stretches of Emacs's own work, which evicts
# its lines from the first-level caches: its L1 misses are about the
# lines of code and data it touches per key, what a keystroke pays in
# misses on a real machine (docs/PERFORMANCE.md).  The simulation sees
# neither the kernel nor other processes, so its last-level misses are a
# lower bound.  Emacs's own instructions per key move by about 10 %
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
cache=0
for a in "$@"; do
  case $a in
    --functions) functions=1 ;;
    --cache) cache=1 ;;
    *) echo "usage: emacs_hooks_ir.sh [--functions] [--cache]" >&2; exit 2 ;;
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
cachesim=
if [ "$cache" = 1 ]; then
  cachesim="--cache-sim=yes --I1=65536,16,64 --D1=49152,12,64 --LL=2097152,16,64"
fi

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
    valgrind --tool=callgrind --separate-threads=yes --dump-instr=no $cachesim \
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
  # The writer thread: the file whose thread ran emlat_writer_main.
  for f in "$tmp"/cg-"$1"-* "$tmp"/cg-"$1".*-*; do
    [ -f "$f" ] || continue
    if grep -q 'emlat_writer_main' "$f"; then
      mv "$f" "$tmp/cg-$1.writer"
      break
    fi
  done
}

# total FILE: the instructions of the whole thread of callgrind file FILE.
total () {
  awk '/^(summary|totals):/ { print $2; exit }' "$1"
}

# selfcost FILE [EVENT]: "class function count" lines, class hooks (the
# files of the hooks and of libemlat, and the functions latency_*), clock
# or emacs; the count is of EVENT (default Ir, instructions).
selfcost () {
  callgrind_annotate --auto=no --inclusive=no --threshold=100 --show="${2:-Ir}" "$1" 2>/dev/null \
    | awk '/^ *[0-9,]+ .*:/ {
             c = $1; gsub(",", "", c); f = $0
             sub(/^ *[0-9,]+ +(\([ 0-9.]+%\) +)?/, "", f); sub(/ \[.*$/, "", f)
             file = f; sub(/:[^:]*$/, "", file); fn = f; sub(/^.*:/, "", fn)
             base = file; sub(/^.*\//, "", base)
             cls = "emacs"
             if (base ~ /^latency[a-z]*\.[ch]$/ || fn ~ /^F?latency_/ \
                 || file ~ /(^|\/)src\/(record|common|format)\// \
                 || file ~ /(^|\/)include\/emlat\//)
               cls = "hooks"
             else if (fn ~ /clock_gettime/)
               cls = "clock"
             print cls, base ":" fn, c }'
}

# entries FILE: "entry function count" lines, the inclusive cost of every
# call into a hook function (latency_*, Flatency_*) from a function that
# is not one (what the hooks cost with everything they call: libemlat,
# memcpy, the clock, the Emacs functions they ask); "wrapped caller count"
# lines, the fflush that latency_tty_flush makes for Emacs (Emacs's own
# work, which it would do unprofiled: not the hooks'); "clock caller
# count" lines, the cost of the calls into clock_gettime (its libc part:
# valgrind does not run the vDSO) from hooks or libemlat; and for each
# such caller a "clockreads caller calls" (the monotonic clock) or
# "cpureads caller calls" line (the thread CPU clock), the number of
# calls.
entries () {
  callgrind_annotate --tree=caller --inclusive=yes --threshold=100 "$1" 2>/dev/null \
    | awk 'function fn_of(f) { sub(/ \[.*$/, "", f); sub(/ \([0-9,]+x\)$/, "", f); sub(/^.*:/, "", f); return f }
           function ours(f,   fn, file) {
             fn = fn_of(f); file = f; sub(/:[^:]*$/, "", file)
             return fn ~ /^F?latency_/ || file ~ /(^|\/)src\/(record|common|format)\// \
                    || file ~ /(^|\/)include\/emlat\//
           }
           /^ *[0-9,]+ .* < / {
             c = $1; gsub(",", "", c); f = $0; sub(/^.* < /, "", f)
             caller[n] = f; cost[n] = c; n++; next
           }
           /^ *[0-9,]+ .* \* / {
             f = $0; sub(/^.* \*  */, "", f); fn = fn_of(f)
             for (i = 0; i < n; i++)
               if (fn ~ /^F?latency_/ && fn_of(caller[i]) !~ /^F?latency_/)
                 print "entry", fn, cost[i]
               else if (fn ~ /clock_gettime/ && ours(caller[i])) {
                 print "clock", fn_of(caller[i]), cost[i]
                 calls = 0
                 if (match(caller[i], /\([0-9,]+x\)/)) {
                   calls = substr(caller[i], RSTART + 1, RLENGTH - 3); gsub(",", "", calls)
                 }
                 print (fn_of(caller[i]) ~ /thread_cpu/ ? "cpureads" : "clockreads"), fn_of(caller[i]), calls + 0
               }
               else if (fn ~ /^(_IO_)?fflush(_unlocked)?$/ && fn_of(caller[i]) ~ /^latency_/)
                 print "wrapped", fn_of(caller[i]), cost[i]
             n = 0; next
           }
           /^$/ { n = 0 }'
}

for k in "$k1" "$k2"; do
  run "$k" || exit 1
  selfcost "$tmp/cg-$k.main" >"$tmp/self-$k"
  if [ -f "$tmp/cg-$k.writer" ]; then
    total "$tmp/cg-$k.writer" >"$tmp/writer-$k"
  elif ! grep -q 'emlat_writer_main' "$tmp"/cg-"$k"* 2>/dev/null; then
    : >"$tmp/writer-$k" # drained by the replay: no writer thread in Emacs
  else
    echo "emacs_hooks_ir.sh: the writer thread's callgrind output was not found ($k keys)" >&2
    exit 1
  fi
  if [ "$cache" = 1 ]; then
    for ev in I1mr D1mr D1mw ILmr DLmr DLmw; do
      selfcost "$tmp/cg-$k.main" "$ev" | awk -v ev="$ev" '$1 == "hooks" { print ev, $3, $2 }'
    done >"$tmp/misses-$k"
    # The whole main thread's misses, "all<EVENT> count" (its totals line).
    awk '/^events:/ { for (i = 2; i <= NF; i++) ev[i] = $i }
         /^(summary|totals):/ { for (i = 2; i <= NF; i++) print "all" ev[i], $i, "(all)"; exit }' \
      "$tmp/cg-$k.main" >>"$tmp/misses-$k"
  fi
  entries "$tmp/cg-$k.main" >"$tmp/entries-$k"
  # The ring slots the session took (stats.records_accepted counts slots:
  # FORMAT.md), from its last STATS.
  "$EMLAT" dump "$tmp/emacs-$k.emlat" 2>/dev/null \
    | awk '/stats\.records_accepted/ { v = $NF } END { print "slots", "ring", v + 0 }' >>"$tmp/entries-$k"
done

# hooks = the calls into the hooks, inclusive, and the probes' code that
# latency.h inlines into Emacs's own functions: hook-class self cost of a
# function that is not ours.  Ours are the functions named latency_*,
# Flatency_* or emlat_*, and every function with code of its own in a
# .c file of the hooks or of libemlat (a static helper such as
# producer.c's ix_commit, when the compiler keeps it out of line: its
# cost is inside the inclusive cost of the hook that called it already).
awk -v k1="$k1" -v k2="$k2" -v fn="$functions" '
  FNR == 1 { run++ }
  {
    sign = (run == 1 || run == 3) ? -1 : 1
    v = sign * $3
  }
  run <= 2 {
    all += v
    name = $2; f = name; sub(/^.*:/, "", f); file = name; sub(/:[^:]*$/, "", file)
    if ($1 == "hooks")
      {
        per[name] += v
        if (file ~ /\.c$/)
          ours[f] = 1
      }
    next
  }
  $1 == "entry" { entry += v; per_entry[$2] += v; next }
  $1 == "wrapped" { entry -= v; per_entry[$2] -= v; next }
  $1 == "clock" { clock += v; next }
  $1 == "clockreads" { clockreads += v; next }
  $1 == "cpureads" { cpureads += v; next }
  $1 == "slots" { slots += v; next }
  END {
    d = k2 - k1
    for (name in per)
      {
        f = name; sub(/^.*:/, "", f)
        if (f !~ /^F?(latency|emlat)_/ && !(f in ours))
          { inl += per[name]; per_entry["(inlined) " name] += per[name] }
      }
    hooks = (entry + inl) / d; main = all / d
    own = main - hooks
    printf "METRIC emacs_ir_hooks_per_key %.0f instructions\n", hooks
    printf "METRIC emacs_ir_clock_per_key %.0f instructions\n", clock / d
    printf "METRIC emacs_clock_reads_per_key %.1f reads\n", clockreads / d
    printf "METRIC emacs_thread_cpu_reads_per_key %.1f reads\n", cpureads / d
    printf "METRIC emacs_ir_main_per_key %.0f instructions\n", main
    share = 0
    if (own > 0)
      share = 100 * hooks / own
    printf "METRIC emacs_ir_hooks_share %.2f percent\n", share
    printf "METRIC emacs_ring_slots_per_key %.1f slots\n", slots / d
    if (fn)
      {
        print "# per key, each hook with all it calls (inclusive):"
        for (f in per_entry)
          if (per_entry[f] / d >= 5 || per_entry[f] / d <= -5)
            printf "%10.0f  %s\n", per_entry[f] / d, f | "sort -rn"
        close("sort -rn")
        print "# per key, the self cost of each function of the hooks and libemlat:"
        for (f in per)
          if (per[f] / d >= 5 || per[f] / d <= -5)
            printf "%10.0f  %s\n", per[f] / d, f | "sort -rn"
      }
  }' "$tmp/self-$k1" "$tmp/self-$k2" "$tmp/entries-$k1" "$tmp/entries-$k2"

# The writer thread's instructions per key: what it drains, encodes,
# writes and maps for a key's records, start-up and exit cancelled.
if [ -s "$tmp/writer-$k1" ] && [ -s "$tmp/writer-$k2" ]; then
  awk -v k1="$k1" -v k2="$k2" 'FNR == 1 { run++ } { v[run] = $1 }
    END { printf "METRIC emacs_ir_writer_per_key %.0f instructions\n", (v[2] - v[1]) / (k2 - k1) }' \
    "$tmp/writer-$k1" "$tmp/writer-$k2"
else
  echo "# no writer thread in Emacs: the replay drained its rings (docs/DESIGN.md 8.7)"
fi

# The misses per key of the hooks' own code (--cache).
if [ "$cache" = 1 ]; then
  awk -v k1="$k1" -v k2="$k2" -v fn="$functions" '
    FNR == 1 { run++ }
    { v = (run == 1 ? -1 : 1) * $2 }
    $1 == "I1mr" { i1 += v; per[$3] += v; pi[$3] += v }
    $1 == "D1mr" || $1 == "D1mw" { d1 += v; per[$3] += v }
    $1 == "ILmr" || $1 == "DLmr" || $1 == "DLmw" { ll += v }
    $1 == "allI1mr" || $1 == "allD1mr" || $1 == "allD1mw" { all1 += v }
    $1 == "allILmr" || $1 == "allDLmr" || $1 == "allDLmw" { allll += v }
    END {
      d = k2 - k1
      printf "METRIC emacs_hooks_l1i_misses_per_key %.1f misses\n", i1 / d
      printf "METRIC emacs_hooks_l1d_misses_per_key %.1f misses\n", d1 / d
      printf "METRIC emacs_hooks_ll_misses_per_key %.1f misses\n", ll / d
      printf "METRIC emacs_main_l1_misses_per_key %.0f misses\n", all1 / d
      printf "METRIC emacs_main_ll_misses_per_key %.0f misses\n", allll / d
      if (all1 - i1 - d1 > 0)
        printf "METRIC emacs_hooks_l1_miss_share %.2f percent\n", 100 * (i1 + d1) / (all1 - i1 - d1)
      if (allll - ll > 0)
        printf "METRIC emacs_hooks_ll_miss_share %.2f percent\n", 100 * ll / (allll - ll)
      if (fn)
        {
          print "# per key, the first-level misses (of which instructions) of each function of the hooks and libemlat:"
          for (f in per)
            if (per[f] / d >= 0.5)
              printf "%8.1f %8.1f  %s\n", per[f] / d, pi[f] / d, f | "sort -rn"
        }
    }' "$tmp/misses-$k1" "$tmp/misses-$k2"
fi

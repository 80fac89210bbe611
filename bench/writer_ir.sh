#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench/writer_ir.sh -- the writer thread's instructions per ring record,
# with valgrind's callgrind, and where they go (docs/PERFORMANCE.md,
# "Writer").
#
#   BUILD=build sh bench/writer_ir.sh [--functions] [spans|nested|ix|tty ...]
#
# For each stream (default: all four; bench_writer.c says what they are),
# `bench_writer --callgrind STREAM N` runs under
# `valgrind --tool=callgrind --toggle-collect=emlat_writer_main` (the
# writer thread only) for N = N1 and N2 units (WRITER_IR_SPANS_N1/N2,
# default 4096 and 20480 span pairs; WRITER_IR_NESTED_N1/N2, default 500
# and 2500 nests of 15 records; WRITER_IR_IX_N1/N2, default 500 and 2500
# interactions; WRITER_IR_TTY_N1/N2, default 500 and 2500 terminal keys).  (count2 - count1) / (records2 - records1) is the
# writer's cost of one ring record, with the warm-up, the session's start
# and stop and the fixed cost of a pass cancelled.  Prints
#   METRIC writer_ir_per_record_<stream> X instructions
# and, with --functions, the same difference per function (self cost,
# callgrind_annotate --inclusive=no), largest first.
#
# Invariants: POSIX sh; needs valgrind (exits 77 with a message without
# it); callgrind output files go to a temporary directory that is removed.

set -u
BUILD=${BUILD:-build}
bin=$BUILD/bench/bench_writer
functions=0
streams=
for a in "$@"; do
  case $a in
    --functions) functions=1 ;;
    spans | nested | ix | tty) streams="$streams $a" ;;
    *) echo "usage: writer_ir.sh [--functions] [spans|nested|ix|tty ...]" >&2; exit 2 ;;
  esac
done
[ -n "$streams" ] || streams="spans nested ix tty"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "writer_ir.sh: skipped, valgrind is not installed (scripts/deps.sh bench)" >&2
  exit 77
fi
if [ ! -x "$bin" ]; then
  echo "writer_ir.sh: no $bin (make bench)" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emlat-writer-ir-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# run STREAM N: callgrind's output in $tmp/STREAM-N.out, the record count
# in $tmp/STREAM-N.rec, the collected count on stdout.
run () {
  out=$tmp/$1-$2.out
  valgrind --tool=callgrind --callgrind-out-file="$out" --dump-instr=no \
    --toggle-collect=emlat_writer_main "$bin" --callgrind "$1" "$2" \
    >"$tmp/$1-$2.rec" 2>"$tmp/$1-$2.log" || {
    echo "writer_ir.sh: bench_writer --callgrind $1 $2 failed:" >&2
    tail -5 "$tmp/$1-$2.log" >&2
    return 1
  }
  sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$tmp/$1-$2.log"
}

# selfcost FILE: "function count" lines (self cost, every function).
selfcost () {
  callgrind_annotate --auto=no --inclusive=no --threshold=100 "$1" 2>/dev/null \
    | awk '/^ *[0-9,]+ .*:/ { c = $1; gsub(",", "", c); f = $0
             sub(/^ *[0-9,]+ +(\([ 0-9.]+%\) +)?/, "", f); sub(/ \[.*$/, "", f)
             sub(/^.*\//, "", f); print f, c }'
}

status=0
for st in $streams; do
  if [ "$st" = spans ]; then
    n1=${WRITER_IR_SPANS_N1:-4096}
    n2=${WRITER_IR_SPANS_N2:-20480}
  elif [ "$st" = nested ]; then
    n1=${WRITER_IR_NESTED_N1:-500}
    n2=${WRITER_IR_NESTED_N2:-2500}
  elif [ "$st" = tty ]; then
    n1=${WRITER_IR_TTY_N1:-500}
    n2=${WRITER_IR_TTY_N2:-2500}
  else
    n1=${WRITER_IR_IX_N1:-500}
    n2=${WRITER_IR_IX_N2:-2500}
  fi
  a=$(run "$st" "$n1") && b=$(run "$st" "$n2") || { status=1; continue; }
  r1=$(sed -n 's/^records //p' "$tmp/$st-$n1.rec")
  r2=$(sed -n 's/^records //p' "$tmp/$st-$n2.rec")
  if [ -z "$a" ] || [ -z "$b" ] || [ -z "$r1" ] || [ -z "$r2" ]; then
    echo "writer_ir.sh: no count for $st" >&2
    status=1
    continue
  fi
  awk -v a="$a" -v b="$b" -v r1="$r1" -v r2="$r2" -v s="$st" \
    'BEGIN { printf "METRIC writer_ir_per_record_%s %.1f instructions\n", s, (b - a) / (r2 - r1) }'
  if [ "$functions" = 1 ]; then
    selfcost "$tmp/$st-$n1.out" >"$tmp/f1"
    selfcost "$tmp/$st-$n2.out" >"$tmp/f2"
    echo "  per record, by function ($st, self cost):"
    awk -v r="$(($r2 - $r1))" 'NR == FNR { a[$1] += $2; next } { b[$1] += $2 }
      END { for (f in b) { d = (b[f] - a[f]) / r; if (d >= 0.05 || d <= -0.05) printf "  %8.2f  %s\n", d, f }
            for (f in a) if (!(f in b) && a[f] / r >= 0.05) printf "  %8.2f  %s\n", -a[f] / r, f }' \
      "$tmp/f1" "$tmp/f2" | sort -rn
  fi
done
exit "$status"

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench/run.sh -- run emlat's benchmarks and print medians against the
# targets of issues 2, 3 and 4, and the overhead gate of issue 8 (make bench;
# see bench/README.md for the method).
#
#   BUILD=build BENCH_RUNS=5 BENCH_GATE=quick sh bench/run.sh
#   BENCH_PEERS=1 ...    also the peers benchmark (bench/peers/run.sh)
#
# 1. Every $BUILD/bench/bench_* program but bench_gate (step 4) and
#    bench_scale (make bench-scale), and bench_writer once more with
#    --threads 2, runs BENCH_RUNS times, interleaved (round 1 runs each
#    program once, then round 2, ...), so slow drift of the machine affects
#    all alike.  The long ones, bench_burst (the burst test at the default
#    sizes, about 2 minutes; its full sweep is `bench_burst --sweep`) and
#    bench_long (an 8-hour day, about 30 s) and bench_tty_footprint (exact
#    counts under valgrind, the same every run), run in round 1 only, and so
#    does bench_tty_cold's idle mode (about 3 minutes; later rounds pass
#    --modes warm,cold).  Each program prints "METRIC name value unit"
#    lines; this script prints, per metric, the median, min and max over
#    the runs.
# 2. Instruction counts with valgrind's callgrind: bench_producer
#    --callgrind {spans,clock,inactive} N runs with
#    --toggle-collect=<its hot loop> for N = N1 and N2; the difference of
#    the collected instruction counts divided by N2 - N1 is the cost of one
#    iteration, with every fixed cost (setup, first-record ring claim,
#    loop entry) cancelled.
#    bench/writer_ir.sh (the writer per ring record) and, with the
#    profiled Emacs built, bench/emacs_hooks_ir.sh (the hooks per key).
# 3. Each metric with a target says "meets" or "MISSES".
# 4. The overhead gate, $BUILD/bench/bench_gate, once (its rounds are its
#    own interleaving): BENCH_GATE=quick (default: a smoke run, 3 rounds),
#    full (10 rounds, about 35 minutes) or off; BENCH_GATE_ARGS adds
#    options; EMACS_BIN and EMACS_VANILLA_BIN name the Emacs builds.  Its
#    tables are printed as they are (they carry their own intervals and
#    verdicts), its METRIC lines go to the raw file.
#
# Invariants: POSIX sh; exits nonzero only when a benchmark program fails
# to run (a missed target is a finding, not an error); raw METRIC lines
# are kept in $BUILD/bench-results.txt.

set -u
BUILD=${BUILD:-build}
RUNS=${BENCH_RUNS:-5}
N1=${BENCH_IR_N1:-1000}
N2=${BENCH_IR_N2:-21000}
raw=$BUILD/bench-results.txt
: >"$raw"
status=0

progs=
for p in "$BUILD"/bench/bench_*; do
  # bench_gate runs once in step 4; bench_scale records 10 M interactions
  # and 1 GiB inputs: make bench-scale.
  case $p in */bench_gate | */bench_scale) continue ;; esac
  [ -f "$p" ] && [ -x "$p" ] && progs="$progs $p"
done
if [ -z "$progs" ]; then
  echo "bench/run.sh: no benchmarks in $BUILD/bench (run make bench)" >&2
  exit 1
fi

round=1
while [ "$round" -le "$RUNS" ]; do
  for p in $progs; do
    name=$(basename "$p")
    case $name in
      bench_burst | bench_long | bench_tty_footprint) [ "$round" -gt 1 ] && continue ;;
    esac
    variants="-"
    [ "$name" = bench_writer ] && variants="- --threads_2"
    # bench_tty_cold's idle mode sleeps 200 ms before each of its 40 keys
    # (about 3 minutes a run, with 8 rounds of its own): the first round only.
    [ "$name" = bench_tty_cold ] && [ "$round" -gt 1 ] && variants="--modes_warm,cold"
    for v in $variants; do
      if [ "$v" = - ]; then args=; else args=$(echo "$v" | tr '_' ' '); fi
      echo "run $round/$RUNS: $name $args" >&2
      # shellcheck disable=SC2086
      if ! out=$("$p" $args 2>/dev/null); then
        echo "bench/run.sh: $name $args failed" >&2
        status=1
      fi
      printf '%s\n' "$out" | grep '^METRIC ' >>"$raw"
    done
  done
  round=$((round + 1))
done

# BENCH_PEERS=1: the peers benchmark too (bench/peers/run.sh, which installs
# LTTng as root and takes several minutes); its table goes to stderr, its
# METRIC lines (medians of its own rounds) into the summary below.
if [ "${BENCH_PEERS:-0}" = 1 ]; then
  if BUILD=$BUILD sh bench/peers/run.sh >"$BUILD/bench-peers-out.txt"; then :; else status=1; fi
  grep -v '^METRIC ' "$BUILD/bench-peers-out.txt" >&2
  grep '^METRIC ' "$BUILD/bench-peers-out.txt" >>"$raw"
fi

# median_of NAME: "median min max unit" of metric NAME over all runs.
median_of () {
  awk -v m="$1" '$1 == "METRIC" && $2 == m { print $3, $4 }' "$raw" \
    | sort -g | awk '{ v[NR] = $1; u = $2 }
      END { if (NR == 0) exit 1
            med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            f = (v[NR] >= 100000) ? "%.0f" : "%.4g"
            printf f " " f " " f " %s\n", med, v[1], v[NR], u }'
}

# verdict VALUE OP TARGET: "meets" or "MISSES".
verdict () {
  awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN {
    ok = (op == "<=") ? (a <= b) : (op == "<") ? (a < b) : (a >= b)
    print ok ? "meets" : "MISSES" }'
}

target_of () {
  case $1 in
    span_record_ns) echo "<= 35" ;;
    span_record_ir_ex_clock) echo "<= 40" ;;
    writer_ir_per_record_spans) echo "<= 136" ;;
    writer_ir_per_record_ix) echo "<= 136" ;;
    app_disabled_call_ns) echo "<= 2" ;;
    app_section_record_ns) echo "<= 35" ;;
    app_section_record_ir_ex_clock) echo "<= 45" ;;
    writer_zero_loss_records_per_s_T1) echo ">= 10000000" ;;
    bytes_per_span) echo "<= 12" ;;
    reader_scan_records_per_s) echo ">= 20000000" ;;
    report_1m_s) echo "< 2" ;;
    tty_ab_cpu_added_pct) echo "< 1" ;;
    tty_ab_first_p99_added_us) echo "< 50" ;;
    burst_held_lost | burst_gc_lost | burst_flood_lost | burst_threads_lost) echo "<= 0" ;;
    burst_flat_loss_exact | burst_threads_loss_exact) echo ">= 1" ;;
    *) echo "" ;;
  esac
}

show () {
  # show NAME MEDIAN MIN MAX UNIT
  t=$(target_of "$1")
  if [ -n "$t" ]; then
    # shellcheck disable=SC2086
    v=$(verdict "$2" $t)
    printf '%-38s %14s %12s %12s  %-10s target %s: %s\n' "$1" "$2" "$3" "$4" "$5" "$t" "$v"
  else
    printf '%-38s %14s %12s %12s  %s\n' "$1" "$2" "$3" "$4" "$5"
  fi
}

echo
echo "Timed benchmarks, $RUNS runs each (median, min, max):"
printf '%-38s %14s %12s %12s  %s\n' metric median min max unit
for m in $(awk '$1 == "METRIC" { print $2 }' "$raw" | awk '!seen[$0]++'); do
  # shellcheck disable=SC2046
  show "$m" $(median_of "$m")
done

echo

# collected WHAT N: callgrind's collected instruction count.
collected () {
  fn=hot_spans
  [ "$1" = clock ] && fn=hot_clock
  valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    --toggle-collect="$fn" "$BUILD/bench/bench_producer" --callgrind "$1" "$2" 2>&1 \
    | sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
}

per_iteration () {
  a=$(collected "$1" "$N1")
  b=$(collected "$1" "$N2")
  if [ -z "$a" ] || [ -z "$b" ]; then
    echo "bench/run.sh: callgrind gave no count for $1" >&2
    status=1
    echo 0
    return
  fi
  awk -v a="$a" -v b="$b" -v n1="$N1" -v n2="$N2" 'BEGIN { printf "%.2f", (b - a) / (n2 - n1) }'
}

instruction_counts () {
  echo "Instruction counts (callgrind, N = $N1 and $N2 iterations):"
  pair=$(per_iteration spans)
  clock=$(per_iteration clock)
  inactive=$(per_iteration inactive)
  rec=$(awk -v p="$pair" 'BEGIN { printf "%.2f", p / 2 }')
  ex=$(awk -v r="$rec" -v c="$clock" 'BEGIN { printf "%.2f", r - c }')
  for line in "span_pair_ir $pair" "span_record_ir $rec" "clock_read_ir $clock" \
    "span_record_ir_ex_clock $ex" "inactive_span_pair_ir $inactive"; do
    echo "METRIC $line instructions" >>"$raw"
    # shellcheck disable=SC2086
    set -- $line
    show "$1" "$2" "$2" "$2" instructions
  done
}

app_and_fntrace_counts () {
  # The application API (bench_app --callgrind, hot loop hot_sections): a
  # named section pair enabled and disabled.
  app_collected () {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      --toggle-collect=hot_sections "$BUILD/bench/bench_app" --callgrind "$1" "$2" 2>&1 \
      | sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
  }
  # Function tracing (bench_fntrace --callgrind, hot loop hot_traced): one
  # instrumented call, traced and untraced.
  if [ -x "$BUILD/bench/bench_fntrace" ]; then
    for what in on off; do
      a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=hot_traced \
        "$BUILD/bench/bench_fntrace" --callgrind "$what" "$N1" 2>&1 \
        | sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p')
      b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=hot_traced \
        "$BUILD/bench/bench_fntrace" --callgrind "$what" "$N2" 2>&1 \
        | sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p')
      if [ -z "$a" ] || [ -z "$b" ]; then
        echo "bench/run.sh: callgrind gave no count for bench_fntrace $what" >&2
        status=1
        continue
      fi
      per=$(awk -v a="$a" -v b="$b" -v n1="$N1" -v n2="$N2" 'BEGIN { printf "%.2f", (b - a) / (n2 - n1) }')
      echo "METRIC fntrace_call_ir_$what $per instructions" >>"$raw"
      show "fntrace_call_ir_$what" "$per" "$per" "$per" instructions
    done
  fi

  if [ -x "$BUILD/bench/bench_app" ]; then
    for what in sections disabled; do
      a=$(app_collected "$what" "$N1")
      b=$(app_collected "$what" "$N2")
      if [ -z "$a" ] || [ -z "$b" ]; then
        echo "bench/run.sh: callgrind gave no count for bench_app $what" >&2
        status=1
        continue
      fi
      per=$(awk -v a="$a" -v b="$b" -v n1="$N1" -v n2="$N2" 'BEGIN { printf "%.2f", (b - a) / (n2 - n1) }')
      if [ "$what" = sections ]; then
        rec=$(awk -v p="$per" 'BEGIN { printf "%.2f", p / 2 }')
        ex=$(awk -v r="$rec" -v c="$clock" 'BEGIN { printf "%.2f", r - c }')
        set -- "app_section_pair_ir $per" "app_section_record_ir $rec" \
          "app_section_record_ir_ex_clock $ex"
      else
        set -- "app_disabled_pair_ir $per"
      fi
      for line in "$@"; do
        echo "METRIC $line instructions" >>"$raw"
        # shellcheck disable=SC2086
        show $line $(echo "$line" | cut -d' ' -f2) $(echo "$line" | cut -d' ' -f2) instructions
      done
    done
  fi
}

if ! command -v valgrind >/dev/null 2>&1; then
  echo "Instruction counts: skipped, valgrind is not installed (scripts/deps.sh bench)"
elif [ ! -x "$BUILD/bench/bench_producer" ]; then
  echo "Instruction counts: skipped, no $BUILD/bench/bench_producer"
else
  instruction_counts
  app_and_fntrace_counts

  # The writer's instructions per ring record (bench/writer_ir.sh; issue 8).
  if [ -x "$BUILD/bench/bench_writer" ]; then
    if wout=$(BUILD=$BUILD sh "$(dirname "$0")/writer_ir.sh"); then :; else status=1; fi
    printf '%s\n' "$wout" | grep '^METRIC ' >>"$raw"
    printf '%s\n' "$wout" | grep '^METRIC ' | while read -r _ wname wvalue wunit; do
      show "$wname" "$wvalue" "$wvalue" "$wvalue" "$wunit"
    done
  fi

  # The profiled Emacs's hooks per typed key on its main thread
  # (bench/emacs_hooks_ir.sh; issue 8), when EMACS_BIN is built.
  if [ -n "${EMACS_BIN:-}" ] && [ -x "${EMACS_BIN:-}" ]; then
    if eout=$(BUILD=$BUILD EMACS_BIN=$EMACS_BIN sh "$(dirname "$0")/emacs_hooks_ir.sh"); then :; else status=1; fi
    printf '%s\n' "$eout" | grep '^METRIC ' >>"$raw"
    printf '%s\n' "$eout" | grep '^METRIC ' | while read -r _ ename evalue eunit; do
      show "$ename" "$evalue" "$evalue" "$evalue" "$eunit"
    done
  else
    echo "Emacs hooks per key: skipped, no profiled Emacs (make emacs)"
  fi
fi

# 4. The overhead gate.
echo
gate=$BUILD/bench/bench_gate
case ${BENCH_GATE:-quick} in
  off) echo "Overhead gate: skipped (BENCH_GATE=off)" ;;
  quick | full)
    if [ ! -x "$gate" ]; then
      echo "Overhead gate: skipped, no $gate"
    else
      mode=
      [ "${BENCH_GATE:-quick}" = quick ] && mode=--quick
      echo "Overhead gate (bench_gate $mode${BENCH_GATE_ARGS:+ $BENCH_GATE_ARGS}):"
      # shellcheck disable=SC2086
      if ! out=$("$gate" $mode ${BENCH_GATE_ARGS:-}); then
        echo "bench/run.sh: bench_gate failed" >&2
        status=1
      fi
      printf '%s\n' "$out" | grep -v '^METRIC '
      printf '%s\n' "$out" | grep '^METRIC ' >>"$raw"
    fi ;;
  *) echo "bench/run.sh: BENCH_GATE must be quick, full or off" >&2
     status=1 ;;
esac
exit "$status"

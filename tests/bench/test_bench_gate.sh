#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_bench_gate.sh -- the overhead gate's harness (bench/bench_gate.c)
# works end to end, on one short workload: less paging under emlat replay,
# profiling off and on and the floor arm (--floor), 2 rounds of 6 keys, and
# a 1 s idle window.
#
# Checked: it exits 0; it prints the gate table with, for each gate (CPU of
# the whole run and of the workload alone, median, p99), the two arms'
# values, the added amount, a 95%
# interval [lo, hi] with lo <= hi, the limit and a verdict (pass, FAIL or
# unresolved); the idle table with a count of the writer's context
# switches and stats.writer_wakeups; the floor's rows (off -> floor, floor
# -> on) with values and a verdict, and its sends; METRIC lines; --doc
# replaces exactly
# the marked block of a document (date, machine, load, command, table) and
# leaves the rest byte for byte; a document without markers is refused and
# left alone; bad options are exit 2; nothing is left in TMPDIR.
#
# Not checked: whether any gate passes.  Timing belongs to benchmarks
# (make bench, make bench-gate), never to tests.  SKIP (77) when less is not
# installed (Debian package less), and in a sanitizer build (make asan-test).
set -u

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
gate=$BUILD/bench/bench_gate
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

[ -x "$gate" ] || { echo "FAIL: no $gate (make tests-build)"; exit 1; }
if [ ! -x /usr/bin/less ] && [ ! -x /bin/less ]; then
  echo "SKIP: less is not installed (Debian package less: sh scripts/deps.sh check)"
  exit 77
fi
# A sanitizer build's libemlat-tty.so needs the sanitizer's runtime, which
# Debian's less does not load; the benchmark starts programs as they are
# (a benchmark of an instrumented build would measure the instrumentation).
if nm "$BUILD/libemlat-tty.so" 2>/dev/null | grep -q '__asan_init\|__tsan_init'; then
  echo "SKIP: a sanitizer build (libemlat-tty.so cannot be preloaded into less as it is); make test runs this test"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/scratch"

# A document with text around the marked block.
doc=$tmp/doc.txt
cat >"$doc" <<'EOF'
# Title

before the block
<!-- gate:begin -->
old content that must go
<!-- gate:end -->
after the block
EOF

rc=0
TMPDIR=$tmp/scratch BUILD=$BUILD "$gate" --quick --floor --rounds 2 --keys 6 \
  --only less-paging,idle-less --idle 1 --doc "$doc" >"$tmp/out" 2>"$tmp/err" || rc=$?
cat "$tmp/out"
[ "$rc" -eq 0 ] || { fail "bench_gate exited $rc"; cat "$tmp/err"; }

grep -q '^| Program, workload | Arms | Gate | Baseline | Profiled | Added | 95% interval | Limit | Verdict |$' "$tmp/out" \
  || fail "no gate table header"

# row GATE: the table row of a gate, its cells trimmed, "|"-separated.
row () {
  grep "| $1 |" "$tmp/out" | head -n 1 \
    | sed -e 's/^| *//' -e 's/ *|$//' -e 's/ *| */|/g'
}
check_row () {
  # check_row GATE UNIT LIMIT-PATTERN
  r=$(row "$1")
  [ -n "$r" ] || { fail "no row for $1"; return; }
  echo "$r" | awk -F'|' -v unit="$2" -v lim="$3" -v gate="$1" '
    function num(s) { gsub(/[^-+0-9.]/, "", s); return s + 0 }
    {
      bad = ""
      if ($4 !~ /^[0-9.]+ (ms|us)$/) bad = bad " baseline=" $4
      if ($5 !~ /^[0-9.]+ (ms|us)$/) bad = bad " profiled=" $5
      if ($6 !~ ("^[-+][0-9.]+ " unit "$")) bad = bad " added=" $6
      if ($7 !~ ("^\\[[-+][0-9.]+, [-+][0-9.]+\\] " unit "$")) bad = bad " interval=" $7
      else {
        split($7, iv, ",")
        if (num(iv[1]) > num(iv[2])) bad = bad " interval lo > hi: " $7
      }
      if ($8 !~ lim) bad = bad " limit=" $8
      if ($9 != "pass" && $9 != "FAIL" && $9 != "unresolved") bad = bad " verdict=" $9
      if (bad != "") { print "FAIL: " gate ":" bad; exit 1 }
    }' || fails=$((fails + 1))
}
check_row "CPU of the program" "%" '^<= 0\.5 %$'
# The workload's CPU (the run minus its start-up) may have no result when
# these few keys used no measurable CPU beyond start-up: the row says so.
if row "CPU of the workload" | grep -q '^|*CPU of the workload|no result: '; then
  echo "# CPU of the workload: no result on this machine (said so in the row)"
else
  check_row "CPU of the workload" "%" '^<= 0\.5 %$'
fi
check_row "median first output" "%" '^< 0\.5 %$'
check_row "p99 first output" "us" '^< 50 us$'
grep -q '^| less, paging | off -> on | CPU of the program |' "$tmp/out" \
  || fail "the CPU row does not name less, paging and its arms"
# The floor arm: both comparisons, each gate with two values and a verdict.
for arms in 'off -> floor' 'floor -> on'; do
  n=$(awk -v a="$arms" -F' *[|] *' '
    $3 == a { on = 1 } $3 != "" && $3 != a { on = 0 }
    on && $5 ~ /^[0-9.]+ (ms|us)$/ && $6 ~ /^[0-9.]+ (ms|us)$/ \
       && ($10 == "pass" || $10 == "FAIL" || $10 == "unresolved") { n++ }
    END { print n + 0 }' "$tmp/out")
  [ "$n" -eq 4 ] || fail "$arms: $n of 4 gate rows with values and a verdict"
done
grep -Eq 'sends per arm [0-9]+ \(off\), [0-9]+ \(on\), [1-9][0-9]* \(floor\)' "$tmp/out" \
  || fail "no sends of the floor arm in the notes"
grep -Eq '^METRIC gate_less_paging_floor_off_cpu_added_pct -?[0-9.]+ %$' "$tmp/out" \
  || fail "no METRIC of off -> floor"
grep -Eq '^METRIC gate_less_paging_on_floor_median_added_pct -?[0-9.]+ %$' "$tmp/out" \
  || fail "no METRIC of floor -> on"

grep -q '^| Idle program | Window | Writer context switches |' "$tmp/out" \
  || fail "no idle table"
idle=$(grep '^| less (--interpose) | 1 s |' "$tmp/out")
[ -n "$idle" ] || fail "no idle row for less"
echo "$idle" | grep -Eq '\| [0-9]+ \([0-9]+ voluntary, [0-9]+ involuntary\)( in the driver)? \| [0-9.]+ \| [0-9]+ \| .* \| (pass|FAIL) \|$' \
  || fail "idle row without a switch count, stats.writer_wakeups and a verdict: $idle"

grep -q '; CPU at the end of start-up (median) off [0-9.]* ms on [0-9.]* ms' "$tmp/out" \
  || fail "no start-up CPU in the notes"
for m in gate_less_paging_on_off_cpu_added_pct gate_less_paging_on_off_cpu_added_pct_lo \
  gate_less_paging_on_off_cpu_added_pct_hi gate_less_paging_on_off_median_added_pct \
  gate_less_paging_on_off_p99_added_us gate_idle_less_writer_switches; do
  grep -Eq "^METRIC $m -?[0-9.]+ [%a-z]+$" "$tmp/out" || fail "no METRIC $m"
done
grep -q 'Quick mode' "$tmp/out" || fail "the quick mode is not said"

# The document: the block replaced, the rest unchanged.
head -n 4 "$doc" | cmp -s - <<'EOF' || fail "the text before the block changed"
# Title

before the block
<!-- gate:begin -->
EOF
tail -n 2 "$doc" | cmp -s - <<'EOF' || fail "the text after the block changed"
<!-- gate:end -->
after the block
EOF
grep -q 'old content' "$doc" && fail "the old block content is still there"
grep -q '^Measured [0-9-]* [0-9:]* .* on .*, [0-9]* CPUs online; load average (uptime) [0-9.]*, [0-9.]*, [0-9.]* before' "$doc" \
  || fail "no date, machine and load in the document"
grep -q '^Command: `.*bench_gate --quick --floor --rounds 2 --keys 6 --only less-paging,idle-less --idle 1 --doc .*`$' "$doc" \
  || fail "no exact command in the document"
grep -q '^| less, paging | off -> on | CPU of the program |' "$doc" || fail "no table in the document"
grep -q '^METRIC' "$doc" && fail "METRIC lines in the document"

left=$(find "$tmp/scratch" -mindepth 1 | head -n 1)
[ -z "$left" ] || fail "temporary files left: $left"

# A document without the markers: refused, unchanged.  (No workload runs:
# the only one asked for needs an Emacs that does not exist.)
printf 'no markers here\n' >"$tmp/plain.txt"
rc=0
TMPDIR=$tmp/scratch BUILD=$BUILD "$gate" --quick --only emacs-typing \
  --emacs /nonexistent/emacs --doc "$tmp/plain.txt" >"$tmp/out2" 2>"$tmp/err2" || rc=$?
[ "$rc" -eq 1 ] || fail "a document without markers: exit $rc, not 1"
grep -q 'has no <!-- gate:begin -->' "$tmp/err2" || fail "no message about the markers"
[ "$(cat "$tmp/plain.txt")" = "no markers here" ] || fail "the document without markers changed"
grep -q 'Emacs: skipped, the profiled Emacs is not built' "$tmp/out2" \
  || fail "a missing Emacs is not said"

# --cpu: a CPU number this machine has online; anything else is a usage
# error before anything runs (1023: valid, but no machine here has it).
for bad in "--rounds 1" "--only no-such-workload" "--bogus 1" "--rounds" "--cpu x" \
  "--cpu -1" "--cpu 1024" "--cpu 1023 --only idle-less"; do
  rc=0
  # shellcheck disable=SC2086
  "$gate" $bad >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "bench_gate $bad: exit $rc, not 2"
done

[ "$fails" -eq 0 ] && echo "bench_gate: the harness prints its tables and writes the document"
exit "$fails"

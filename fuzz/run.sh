#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# fuzz/run.sh [SECONDS [TARGET...]] -- build the libFuzzer targets with clang
# and run them one after the other within SECONDS in total (default 60),
# each on a temporary copy of its seed corpus (the repository corpus is
# never modified):
#
#   reader         fuzz_reader.c         2/5 of SECONDS   fuzz/corpus/reader
#   report         fuzz_report.c         2/5              fuzz/corpus/report + reader
#   replay_script  fuzz_replay_script.c  the rest (1/5)   fuzz/corpus/replay_script
#
# With TARGETs, only those run, sharing SECONDS in the same proportions.
# The sources they need (src/common, format, reader, analysis, render,
# replay) are compiled with -fsanitize=fuzzer-no-link,address,undefined into
# $BUILD/fuzz (default build/fuzz) and archived, so each target links only
# what it uses.  Exits nonzero when the build fails or libFuzzer finds a
# crash, leak, timeout or sanitizer report in any target; the input is kept
# in $BUILD/fuzz/artifacts/TARGET-*, the log in $BUILD/fuzz/TARGET.log.  The
# last lines are one per target: executions, executions per second, corpus
# size.
set -eu

seconds=${1:-60}
case $seconds in
  ''|*[!0-9]*) echo "usage: fuzz/run.sh [SECONDS [reader|report|replay_script]...]" >&2; exit 2 ;;
esac
[ $# -gt 0 ] && shift
targets=${*:-reader report replay_script}
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
out=$build/fuzz
clang=${CLANG:-clang}

if ! command -v "$clang" >/dev/null 2>&1; then
  echo "fuzz/run.sh: $clang not found (apt-get install clang)" >&2
  exit 2
fi

# share TARGET: its weight (fifths of the budget).
share () {
  case $1 in
    reader|report) echo 2 ;;
    replay_script) echo 1 ;;
    *) echo "fuzz/run.sh: unknown target '$1' (reader, report, replay_script)" >&2; exit 2 ;;
  esac
}
total_share=0
for t in $targets; do
  total_share=$((total_share + $(share "$t")))
done

mkdir -p "$out/obj" "$out/artifacts"
flags="-std=c17 -D_GNU_SOURCE -I$top/include -I$top/src -g -O1 -fno-omit-frame-pointer \
  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
  -Wall -Wextra -Werror -Wno-unused-command-line-argument"
dirs="common format record reader analysis render replay"
headers_newer () {
  for d in $dirs; do
    [ -n "$(find "$top/include" "$top/src/$d" -name '*.h' -newer "$1" 2>/dev/null)" ] && return 0
  done
  return 1
}
objs=
for d in $dirs; do
  for src in "$top"/src/"$d"/*.c; do
    obj=$out/obj/${d}_$(basename "$src" .c).o
    if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || headers_newer "$obj"; then
      # shellcheck disable=SC2086
      nice -n 10 "$clang" $flags -c "$src" -o "$obj"
    fi
    objs="$objs $obj"
  done
done
rm -f "$out/libemlat-fuzz.a"
# shellcheck disable=SC2086
ar rcs "$out/libemlat-fuzz.a" $objs
for t in $targets; do
  # shellcheck disable=SC2086
  nice -n 10 "$clang" $flags -fsanitize=fuzzer "$top/fuzz/fuzz_$t.c" "$out/libemlat-fuzz.a" \
    -o "$out/fuzz_$t" -lm -pthread -lutil -ldw -lelf
done

work=$(mktemp -d "${TMPDIR:-/tmp}/emlat-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

failed=
summary=
left=$seconds
left_share=$total_share
for t in $targets; do
  # This target's part of what is left, so the parts add up to SECONDS.
  s=$(( left * $(share "$t") / left_share ))
  [ "$s" -ge 1 ] || s=1
  left=$((left - s))
  left_share=$((left_share - $(share "$t")))
  corpus=$work/$t
  mkdir -p "$corpus"
  seeds=$t
  [ "$t" = report ] && seeds="report reader"
  for c in $seeds; do
    cp "$top"/fuzz/corpus/"$c"/* "$corpus/" 2>/dev/null || true
  done
  max_len=65536
  extra=
  if [ "$t" = replay_script ]; then
    max_len=16384
    extra=-dict=$top/fuzz/replay_script.dict
  fi
  echo "fuzz/run.sh: fuzzing $t for ${s}s ($(ls "$corpus" | wc -l) seed files)"
  set +e
  # shellcheck disable=SC2086
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    nice -n 10 "$out/fuzz_$t" -max_total_time="$s" -max_len=$max_len -timeout=10 \
    -rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" $extra \
    "$corpus" > "$out/$t.log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$t.log")
  size=$(ls "$corpus" | wc -l)
  if [ $rc -ne 0 ]; then
    tail -n 30 "$out/$t.log"
    echo "fuzz/run.sh: $t: libFuzzer failed (exit $rc); see $out/$t.log and $out/artifacts/" >&2
    failed="$failed $t"
  fi
  summary="$summary
  $t: ${runs:-?} executions in ${s}s, ${rate:-?} per second, corpus ${size} inputs"
done
echo "fuzz/run.sh: ${seconds}s:$summary"
if [ -n "$failed" ]; then
  echo "fuzz/run.sh: failed:$failed" >&2
  exit 1
fi
echo "fuzz/run.sh: no failure in ${seconds}s"

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_bench_tty_cold.sh -- the keystroke-cost harness (bench/bench_tty_cold.c)
# works end to end: 2 rounds of 20 keys, warm and cold (1 MiB), and of 10
# keys idle (1 ms), the three arms and, with --compare, the floor library (bench/floor_preload.c) as a
# fourth.
#
# Checked: it exits 0; it prints, for both modes, a key time per arm (a
# positive number of ns), the added cost and the recording cost with a 95%
# interval lo <= hi, and other - on with --compare; bad options are exit 2;
# nothing is left in TMPDIR, and no ring file in /dev/shm.
#
# Not checked: any of the times.  Timing belongs to benchmarks (make bench),
# never to tests.  SKIP (77) in a sanitizer build (make asan-test): the
# preloaded library would need the sanitizer's runtime.
set -u

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
bench=$BUILD/bench/bench_tty_cold
floor=$BUILD/bench/libemlat-floor.so
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

[ -x "$bench" ] || { echo "FAIL: no $bench (make tests-build)"; exit 1; }
[ -f "$floor" ] || { echo "FAIL: no $floor (make tests-build)"; exit 1; }
if nm -D "$BUILD/libemlat-tty.so" 2>/dev/null | grep -q __asan_; then
  echo "SKIP: sanitizer build"
  exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp

. "$(dirname "$0")/../lib/rings.sh"
rings_list > "$tmp/rings.before"
out=$(BUILD=$BUILD "$bench" --runs 2 --keys 20 --trash-mib 1 --idle-keys 10 --idle-ms 1 \
  --compare "$floor" 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
for mode in warm cold idle; do
  for arm in none loaded on other; do
    v=$(printf '%s\n' "$out" | awk -v m="tty_cold_key_ns_${arm}_$mode" '$1=="METRIC" && $2==m {print $3}')
    case $v in
      ''|*[!0-9]*) fail "no key time for $arm/$mode" ;;
      *) [ "$v" -gt 0 ] || fail "key time $arm/$mode is $v" ;;
    esac
  done
  for what in added recording; do
    lo=$(printf '%s\n' "$out" | awk -v m="tty_cold_${what}_ns_${mode}_lo" '$2==m {print $3}')
    hi=$(printf '%s\n' "$out" | awk -v m="tty_cold_${what}_ns_${mode}_hi" '$2==m {print $3}')
    [ -n "$lo" ] && [ -n "$hi" ] && [ "$lo" -le "$hi" ] \
      || fail "$what/$mode interval [$lo, $hi]"
  done
  printf '%s\n' "$out" | grep -q "^METRIC tty_cold_other_minus_on_ns_$mode -\{0,1\}[0-9]* ns \[" \
    || fail "no other - on line for $mode"
  printf '%s\n' "$out" | grep -q "^METRIC tty_cold_other_added_ns_$mode -\{0,1\}[0-9]* ns \[" \
    || fail "no other - none line for $mode"
done
# --modes runs only the modes it names.
out=$(BUILD=$BUILD "$bench" --runs 2 --idle-keys 10 --idle-ms 1 --modes idle 2>"$tmp/err")
[ $? -eq 0 ] || fail "--modes idle: $(cat "$tmp/err")"
printf '%s\n' "$out" | grep -q '^METRIC tty_cold_key_ns_on_idle ' || fail "--modes idle printed no idle key time"
! printf '%s\n' "$out" | grep -q '_warm\|_cold ' || fail "--modes idle ran another mode"
left=$(rings_left "$tmp/rings.before" "$tmp")
[ -z "$left" ] || fail "ring files of its profiles left in /dev/shm: $left"
leftover=$(find "$tmp" -mindepth 1 ! -name err ! -name rings.before | head -1)
[ -z "$leftover" ] || fail "left in TMPDIR: $leftover"

"$bench" --runs 1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--runs 1 is not exit 2"
"$bench" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "--bogus is not exit 2"
"$bench" --modes warm,hot >/dev/null 2>&1; [ $? -eq 2 ] || fail "--modes warm,hot is not exit 2"
"$bench" --compare /nonexistent.so >/dev/null 2>&1; [ $? -eq 2 ] || fail "a missing --compare library is not exit 2"

[ $fails -eq 0 ] && echo "ok: bench_tty_cold harness" && exit 0
exit 1

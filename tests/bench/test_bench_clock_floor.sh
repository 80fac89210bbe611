#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_bench_clock_floor.sh -- the clock-floor harness
# (bench/bench_clock_floor.c) works end to end: 20 keys of 9 calls, cold
# (1 MiB) and warm.
#
# Checked: it exits 0; it prints a key time (a positive number of ns) for
# every variant in both modes, and the added time of every variant but
# none; the x86-64 build has the two time-stamp-counter variants; bad
# options are exit 2; its ring file is gone from /dev/shm.
#
# Not checked: any of the times.  Timing belongs to benchmarks (make
# bench), never to tests.
set -u

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
bench=$BUILD/bench/bench_clock_floor
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

[ -x "$bench" ] || { echo "FAIL: no $bench (make tests-build)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$bench" --keys 20 --trash-mib 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
variants="none vdso2 vdso1 emlat2"
[ "$(uname -m)" = x86_64 ] && variants="$variants tsc2 tsc1"
for suffix in "" _warm; do
  for v in $variants; do
    k=$(awk -v m="clock_floor_key_ns_$v$suffix" '$1=="METRIC" && $2==m {print $3}' "$tmp/out")
    case $k in
      ''|*[!0-9]*) fail "no key time for $v$suffix" ;;
      *) [ "$k" -gt 0 ] || fail "key time $v$suffix is $k" ;;
    esac
    [ "$v" = none ] && continue
    grep -q "^METRIC clock_floor_added_ns_$v$suffix -\{0,1\}[0-9]* ns$" "$tmp/out" \
      || fail "no added time for $v$suffix"
  done
done
ls /dev/shm 2>/dev/null | grep -q '^emlat-clock-floor-' \
  && fail "a ring file is left in /dev/shm: $(ls /dev/shm | grep '^emlat-clock-floor-')"

"$bench" --keys 1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--keys 1 is not exit 2"
"$bench" --bogus 1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--bogus is not exit 2"
"$bench" --calls >/dev/null 2>&1; [ $? -eq 2 ] || fail "--calls without a value is not exit 2"

[ $fails -eq 0 ] && echo "ok: bench_clock_floor harness" && exit 0
exit 1

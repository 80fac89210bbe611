#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_bench_startup.sh -- the start-up harness (bench/bench_startup.c)
# works end to end: 2 rounds of 3 spawns of every arm (none, loaded, on,
# driven, driven_self_created, drained, drained_self_read, the thread and
# file floors, and the interposition floors floor_loaded and floor).
#
# Checked: it exits 0; it prints a CPU time per arm (a positive number of
# microseconds) and, per arm but none, the added time with a 95 % interval
# lo <= hi; the driven spawns' profiles were finished by the bench (no ring
# file of theirs is left in /dev/shm, nor any of the floor's); bad options
# are exit 2; --arms runs the arms named and none only; nothing is left in
# TMPDIR.
#
# Not checked: any of the times.  Timing belongs to benchmarks (make bench),
# never to tests.  SKIP (77) in a sanitizer build (make asan-test): the
# preloaded library would need the sanitizer's runtime.
set -u

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
bench=$BUILD/bench/bench_startup
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

[ -x "$bench" ] || { echo "FAIL: no $bench (make tests-build)"; exit 1; }
if nm -D "$BUILD/libemlat-tty.so" 2>/dev/null | grep -q __asan_; then
  echo "SKIP: sanitizer build"
  exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp

. "$(dirname "$0")/../lib/rings.sh"
rings_list > "$tmp/rings.before"
floors_before=$(ls /dev/shm 2>/dev/null | grep -c '^emlat-floor-')
out=$(BUILD=$BUILD "$bench" --rounds 2 --spawns 3 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
for arm in none loaded on driven driven_self_created drained drained_self_read thread file \
  floor_loaded floor; do
  v=$(printf '%s\n' "$out" | awk -v m="startup_cpu_us_$arm" '$1=="METRIC" && $2==m {print $3}')
  awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || fail "no CPU time for $arm ($v)"
  [ $arm = none ] && continue
  lo=$(printf '%s\n' "$out" | awk -v m="startup_added_us_${arm}_lo" '$2==m {print $3}')
  hi=$(printf '%s\n' "$out" | awk -v m="startup_added_us_${arm}_hi" '$2==m {print $3}')
  [ -n "$lo" ] && [ -n "$hi" ] && awk -v a="$lo" -v b="$hi" 'BEGIN { exit !(a <= b) }' \
    || fail "$arm interval [$lo, $hi]"
done
left=$(rings_left "$tmp/rings.before" "$tmp")
[ -z "$left" ] || fail "ring files of its profiles left in /dev/shm: $left"
floors_after=$(ls /dev/shm 2>/dev/null | grep -c '^emlat-floor-')
[ "$floors_after" -le "$floors_before" ] || fail "floor files left in /dev/shm ($floors_before -> $floors_after)"
leftover=$(find "$tmp" -mindepth 1 ! -name err ! -name rings.before | head -1)
[ -z "$leftover" ] || fail "left in TMPDIR: $leftover"

"$bench" --rounds 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--rounds 0 is not exit 2"
"$bench" --arms flor >/dev/null 2>&1; [ $? -eq 2 ] || fail "--arms flor is not exit 2"
"$bench" --arms >/dev/null 2>&1; [ $? -eq 2 ] || fail "--arms without a list is not exit 2"
# --arms: those arms and none, nothing else.
out=$(BUILD=$BUILD "$bench" --rounds 1 --spawns 2 --arms floor,file 2>"$tmp/err")
[ $? -eq 0 ] || fail "--arms floor,file: $(cat "$tmp/err")"
arms=$(printf '%s\n' "$out" | awk '$1=="METRIC" && $2 ~ /^startup_cpu_us_/ {sub("startup_cpu_us_", "", $2); print $2}' | sort | tr '\n' ' ')
[ "$arms" = "file floor none " ] || fail "--arms floor,file ran: $arms"
"$bench" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "--bogus is not exit 2"

if [ $fails -ne 0 ]; then
  echo "$fails failed"
  exit 1
fi
echo "all passed"

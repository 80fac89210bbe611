#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_bench_tty_footprint.sh -- the exact count of what a key touches
# (bench/bench_tty_footprint.c) counts what it says, and the floor
# library's pricing aids (bench/floor_preload.c: EMLAT_FLOOR_CODE,
# EMLAT_FLOOR_LINES, EMLAT_FLOOR_PAGES) add what they say.
#
# Checked: it exits 0 and prints each arm's counts; the library (tracing
# on) touches more lines and runs more instructions than no preload; the
# floor with EMLAT_FLOOR_CODE=64 has at least 64 more code lines than the
# floor as is, with EMLAT_FLOOR_LINES=64 at least 64 more data lines, with
# EMLAT_FLOOR_PAGES=8,2048 at least 8 more data pages and page-directory
# regions (every run's environment the same size); two runs of one configuration agree (the counts are exact,
# within two lines);
# where the kernel keeps time with the counter, the library as counted
# (bench/libemlat-tty-emulated.so) reads its clock through the counter, so
# its key touches fewer lines call by call than libemlat-tty.so itself,
# whose reads under valgrind go to clock_gettime (--vdso-clock);
# nothing is left in TMPDIR, and no ring file in /dev/shm.
#
# SKIP (77) without valgrind, and in a sanitizer build (the preloaded
# library would need the sanitizer's runtime, and valgrind cannot run it).
set -u

SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
bench=$BUILD/bench/bench_tty_footprint
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

[ -x "$bench" ] || { echo "FAIL: no $bench (make tests-build)"; exit 1; }
if nm -D "$BUILD/libemlat-tty.so" 2>/dev/null | grep -q __asan_; then
  echo "SKIP: sanitizer build"
  exit 77
fi
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: no valgrind"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp
. "$(dirname "$0")/../lib/rings.sh"
rings_list > "$tmp/rings.before"

# count OUTPUT METRIC: the value of tty_fp_METRIC in OUTPUT, an integer.
count () {
  printf '%s\n' "$1" | awk -v m="tty_fp_$2" '$1=="METRIC" && $2==m {printf "%d\n", $3}'
}
run () {
  env "$@" BUILD="$BUILD" "$bench" --keys 8 2>"$tmp/err" || fail "exit $? with $*: $(cat "$tmp/err")"
}

# Every run sets all three aids, off ones as zeros of the same length
# ("00", "0,0000": the floor ignores a zero), so that every child gets an
# environment of the same size and its stack frames lie on the same lines:
# one more variable moved them and a key touched one stack line fewer
# (20 -> 83 data lines for 64 added, seen on CI).
off_code=EMLAT_FLOOR_CODE=00 off_lines=EMLAT_FLOOR_LINES=00 off_pages=EMLAT_FLOOR_PAGES=0,0000
plain=$(run EMLAT_FLOOR=tsc $off_code $off_lines $off_pages)
again=$(run EMLAT_FLOOR=tsc $off_code $off_lines $off_pages)
code=$(run EMLAT_FLOOR=tsc EMLAT_FLOOR_CODE=64 $off_lines $off_pages)
lines=$(run EMLAT_FLOOR=tsc $off_code EMLAT_FLOOR_LINES=64 $off_pages)
pages=$(run EMLAT_FLOOR=tsc $off_code $off_lines EMLAT_FLOOR_PAGES=8,2048)

for arm in none floor on; do
  for m in instructions code_lines data_lines code_pages data_pages call_lines; do
    v=$(count "$plain" "${arm}_$m")
    [ -n "$v" ] && [ "$v" -gt 0 ] || fail "no positive ${arm}_$m: '$v'"
  done
done
[ "$(count "$plain" on_instructions)" -gt "$(count "$plain" none_instructions)" ] \
  || fail "the library runs no more instructions than no preload"
[ "$(count "$plain" on_data_lines)" -gt "$(count "$plain" none_data_lines)" ] \
  || fail "the library touches no more data lines than no preload"
# Exact counts: two runs agree (within two lines, for a structure that
# the stack or an allocation places across a line boundary differently;
# the instructions within 1 %).
close () { # A B TOLERANCE
  d=$(($1 - $2)); [ $d -lt 0 ] && d=$((-d)); [ $d -le "$3" ]
}
for m in code_lines data_lines; do
  close "$(count "$plain" "on_$m")" "$(count "$again" "on_$m")" 2 \
    || fail "two runs differ in on_$m: $(count "$plain" "on_$m") and $(count "$again" "on_$m")"
done
i1=$(count "$plain" on_instructions)
close "$i1" "$(count "$again" on_instructions)" $((i1 / 100)) \
  || fail "two runs differ in on_instructions: $i1 and $(count "$again" on_instructions)"

# The counted library takes the counter's path under valgrind, as the
# library does natively: no PLT, libc and ld.so lines of clock_gettime.
if [ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" = tsc ] \
   && [ "$(uname -m)" = x86_64 ]; then
  vdso=$(env EMLAT_FLOOR=tsc $off_code $off_lines $off_pages BUILD="$BUILD" "$bench" --keys 8 --vdso-clock 2>"$tmp/err") \
    || fail "exit $? with --vdso-clock: $(cat "$tmp/err")"
  [ "$(count "$plain" on_call_lines)" -lt "$(count "$vdso" on_call_lines)" ] \
    || fail "the counted library's clock reads touch no fewer lines than clock_gettime's: $(count "$plain" on_call_lines) and $(count "$vdso" on_call_lines) call by call"
fi

base_code=$(count "$plain" floor_code_lines)
base_data=$(count "$plain" floor_data_lines)
base_pages=$(count "$plain" floor_data_pages)
base_pde=$(count "$plain" floor_pde_lines)
[ "$(count "$code" floor_code_lines)" -ge $((base_code + 64)) ] \
  || fail "EMLAT_FLOOR_CODE=64: code lines $base_code -> $(count "$code" floor_code_lines)"
[ "$(count "$lines" floor_data_lines)" -ge $((base_data + 64)) ] \
  || fail "EMLAT_FLOOR_LINES=64: data lines $base_data -> $(count "$lines" floor_data_lines)"
[ "$(count "$pages" floor_data_pages)" -ge $((base_pages + 8)) ] \
  || fail "EMLAT_FLOOR_PAGES=8,2048: data pages $base_pages -> $(count "$pages" floor_data_pages)"
[ "$(count "$pages" floor_pde_lines)" -ge $((base_pde + 8)) ] \
  || fail "EMLAT_FLOOR_PAGES=8,2048: 2 MiB regions $base_pde -> $(count "$pages" floor_pde_lines)"
# The aids leave the library's arm alone.
close "$(count "$code" on_code_lines)" "$(count "$plain" on_code_lines)" 2 \
  || fail "EMLAT_FLOOR_CODE changed the library's count"

left=$(rings_left "$tmp/rings.before" "$tmp")
[ -z "$left" ] || fail "ring files of its profiles left in /dev/shm: $left"
leftover=$(find "$tmp" -mindepth 1 ! -name err ! -name rings.before | head -1)
[ -z "$leftover" ] || fail "left in TMPDIR: $leftover"

[ $fails -eq 0 ] && echo "ok: bench_tty_footprint counts and the floor's pricing aids" && exit 0
exit 1

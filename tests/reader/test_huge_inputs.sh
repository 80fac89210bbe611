#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_huge_inputs.sh -- no input swamps the reader (issue 12; docs/FORMAT.md
# section 12, max_alloc_bytes): each verb that reads profiles (check, dump,
# report, export in both formats), under `timeout`, on
#   - a file of random bytes, larger than the address space it is given
#     (`ulimit -v` 32 MiB): refused at its header, "bad magic" (exit 2), at
#     once -- only its first 64 bytes are read;
#   - /dev/zero named as a file (refused as a character device) and given
#     as standard input (refused at its header), within the same 32 MiB;
#   - a valid profile of interactions begun and never completed, every one
#     a new cause (tests/progs/huge_input open), under `ulimit -v` at the
#     documented bound -- the reader's memory limit, 1 GiB, plus 256 MiB
#     for the program: read (exit 0 or 1), or stopped at the reader's
#     limit (exit 2), never killed; and once more starved at 128 MiB, where
#     allocations fail: it still ends with an exit code and a message.
#
# Sizes: EMLAT_HUGE_BYTES (default 64 MiB) for the random file,
# EMLAT_HUGE_OPEN_BYTES (default 4 MiB) for the open interactions; the
# 1 GiB table of docs/PERFORMANCE.md comes from bench/bench_scale.c.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
EMLAT=${EMLAT:-$BUILD/emlat}
GEN=$BUILD/tests/progs/huge_input
BYTES=${EMLAT_HUGE_BYTES:-67108864}
OPEN_BYTES=${EMLAT_HUGE_OPEN_BYTES:-4194304}
LIMIT_KIB=$(((1024 + 256) * 1024))
SMALL_KIB=32768
STARVED_KIB=131072
# AddressSanitizer reserves terabytes of address space for its shadow:
# under it the limits cannot apply, and only the refusals are checked.
if nm "$BUILD/libemlat.a" 2>/dev/null | grep -q __asan_; then
  LIMIT_KIB=unlimited SMALL_KIB=unlimited STARVED_KIB=unlimited
fi
[ -x "$EMLAT" ] || { echo "FAIL: no emlat binary at $EMLAT"; exit 1; }
[ -x "$GEN" ] || { echo "FAIL: no $GEN (make tests-build)"; exit 1; }
command -v timeout >/dev/null 2>&1 || { echo "SKIP: no timeout(1)"; exit 77; }
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GEN" random "$tmp/random.bin" "$BYTES" || { echo "FAIL: huge_input random"; exit 1; }
"$GEN" open "$tmp/open.emlat" "$OPEN_BYTES" || { echo "FAIL: huge_input open"; exit 1; }

# run KIB WANT SECONDS STDIN VERB ARGS...: the verb under ulimit -v KIB
# exits with one of WANT (a list) within SECONDS.
run () {
  kib=$1 want=$2 secs=$3 input=$4
  shift 4
  start=$(date +%s)
  (ulimit -v "$kib" && exec timeout "$secs" "$EMLAT" "$@") <"$input" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  took=$(($(date +%s) - start))
  case " $want " in
    *" $rc "*) ;;
    *) fail "ulimit -v $kib: emlat $*: exit $rc, expected one of $want: $(head -c 300 "$tmp/err")" ;;
  esac
  [ "$rc" -lt 124 ] || fail "emlat $*: killed or timed out ($rc) after $took s"
}

verbs="check dump report export_--format=chrome export_--format=jsonl"
for v in $verbs; do
  set -- $(echo "$v" | tr '_' ' ')
  run "$SMALL_KIB" 2 2 /dev/null "$@" "$tmp/random.bin"
  grep -q "emlat: $tmp/random.bin: offset 0: bad magic" "$tmp/err" \
    || fail "$*: the random file is not refused at its header: $(head -c 200 "$tmp/err")"
  run "$SMALL_KIB" 2 2 /dev/null "$@" /dev/zero
  grep -q "emlat: /dev/zero: .*is a character device" "$tmp/err" \
    || fail "$*: /dev/zero not refused as a device: $(head -c 200 "$tmp/err")"
  run "$SMALL_KIB" 2 2 /dev/zero "$@" -
  grep -q "emlat: -: offset 0: bad magic" "$tmp/err" \
    || fail "$*: /dev/zero on stdin not refused at its header: $(head -c 200 "$tmp/err")"
  run "$LIMIT_KIB" "0 1 2" 120 /dev/null "$@" "$tmp/open.emlat"
  # Starved: allocations fail; the verb still ends in order.
  run "$STARVED_KIB" "0 1 2" 120 /dev/null "$@" "$tmp/open.emlat"
  [ -s "$tmp/err" ] || [ "$rc" -eq 0 ] || fail "$*: exit $rc at 128 MiB without a message"
done

# The open interactions are all counted, none completed.
(ulimit -v "$LIMIT_KIB" && "$EMLAT" check --json "$tmp/open.emlat") >"$tmp/out" 2>/dev/null
grep -q '"interactions":{"total":[1-9][0-9]*,"open":[1-9]' "$tmp/out" \
  || fail "check --json of the open interactions: $(head -c 300 "$tmp/out")"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: random ${BYTES} B, /dev/zero, ${OPEN_BYTES} B of open interactions within ${LIMIT_KIB} KiB"
exit 0

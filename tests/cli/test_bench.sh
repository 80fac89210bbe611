#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_bench.sh -- `emlat bench` measures and reports every number, leaves
# nothing behind in its scratch directory, and rejects bad arguments.  No
# timing is asserted (a test is no benchmark): only that each number is
# present, positive and in a sane range of units.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EMLAT=${EMLAT:-$SRCDIR/build/emlat}
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(TMPDIR=$tmp "$EMLAT" bench --json --quick) || fail "emlat bench exited $?"
echo "$out"
for key in clock_read_ns thread_cpu_read_ns span_record_ns bytes_per_span writer_zero_loss_records_per_s; do
  v=$(printf '%s\n' "$out" | sed -n "s/.*\"$key\":\([0-9.]*\).*/\1/p")
  [ -n "$v" ] || { fail "no $key"; continue; }
  awk -v v="$v" 'BEGIN { exit !(v > 0) }' || fail "$key is not positive ($v)"
done
bps=$(printf '%s\n' "$out" | sed -n 's/.*"bytes_per_span":\([0-9.]*\).*/\1/p')
awk -v v="$bps" 'BEGIN { exit !(v > 1 && v < 64) }' || fail "bytes_per_span out of range ($bps)"
left=$(find "$tmp" -mindepth 1 | head -1)
[ -z "$left" ] || fail "scratch files left: $left"

"$EMLAT" bench unexpected >/dev/null 2>&1
[ $? -eq 2 ] || fail "an extra argument is not exit 2"
"$EMLAT" bench --no-such-option >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option is not exit 2"

[ $fails -eq 0 ] && echo "bench: all checks passed"
exit $fails

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_demo.sh -- `make demo`'s main job (emacs/demo.sh) on the
# profiled Emacs: it records, joins Emacs's profile with the replay
# driver's and the first screen agrees with the outside view
# (docs/REPORT.md "The outside view"):
#   - the demo exits 0 and names its files;
#   - the report opens with "How fast is it?" and a tty command line;
#   - every one of the 120 key sends is matched to an Emacs interaction;
#   - 100.0% of the compared keys are inside the bounds, 0 below the
#     lower bound (the bound must hold on every key);
#   - the first screen's median lower bound of tty commands is at most the
#     driver's median first output (the idle time is only uncertainty);
#   - the HTML page was written with the joined section.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built.
set -eu

. "$(dirname "$0")/preamble.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail () {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

rc=0
TMPDIR=$tmp sh emacs/demo.sh "$EMLAT" "$EMACS_BIN" > "$tmp/demo.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/demo.out"; echo "FAIL: emacs/demo.sh exited $rc"; exit 1; }
dir=$(ls -d "$tmp"/emlat-demo.* 2>/dev/null | head -1)
[ -n "$dir" ] || fail "no demo directory under $tmp"

grep -q '^How fast is it?' "$tmp/demo.out" || fail "no first screen"
grep -q '^  tty command ' "$tmp/demo.out" || fail "no tty command line on the first screen"
grep -q 'key sends: 120, 120 matched, 0 with no interaction' "$tmp/demo.out" \
  || fail "not every key send matched"
grep -q '100.0% inside (lower <= outside <= upper), 0.0% below the lower bound' "$tmp/demo.out" \
  || { grep -A4 '^  agreement' "$tmp/demo.out"; fail "keys outside the bounds"; }

# The first screen's median lower bound (tty command) against the
# driver's median first output.
to_us () {
  awk -v v="$1" 'BEGIN {
    n = v + 0
    if (v ~ /ms$/) n *= 1000; else if (v ~ /ns$/) n /= 1000; else if (v ~ /s$/ && v !~ /us$/) n *= 1000000
    printf "%.3f", n }'
}
lower=$(awk '/^How fast is it\?/ { on = 1 } on && /^  tty command / { print $4; exit }' "$tmp/demo.out")
outside=$(sed -n 's/^  first output:  median \([0-9.]*\) ms.*/\1/p' "$tmp/demo.out" | head -1)
[ -n "$lower" ] && [ -n "$outside" ] || fail "no median to compare (lower '$lower', outside '$outside')"
if [ -n "$lower" ] && [ -n "$outside" ]; then
  l=$(to_us "$lower")
  o=$(awk -v v="$outside" 'BEGIN { printf "%.3f", v * 1000 }')
  echo "median lower bound ${l} us, median outside first output ${o} us"
  awk -v l="$l" -v o="$o" 'BEGIN { exit !(l <= o) }' \
    || fail "the median lower bound ${l} us exceeds the outside median ${o} us"
fi

[ -n "$dir" ] && grep -q 'id="joined"' "$dir/emacs.html" 2>/dev/null \
  || fail "the HTML page has no joined section"

[ "$fails" -eq 0 ] || exit 1
echo "ok"

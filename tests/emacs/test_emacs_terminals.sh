#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_terminals.sh -- terminals opened and closed while the profile
# runs (emacs/README.md, "What is recorded"): a descriptor is known empty only
# for the terminal that was seen empty on it, and closed terminals give
# back their place among the eight that the profile tracks at once.
#
# The profiled Emacs runs tests/emacs/latency-test-terminals.el under
# `emlat replay`, with the input observer on.  From timers it opens a
# terminal A, writes "ab" to the pseudo-terminal of a terminal B while A
# is watched, closes A and opens B on A's descriptor; then opens,
# watches and closes nine more terminals, each on a descriptor of its
# own; then opens a last one, watches it for 400 ms and writes "cde".
# Then:
#   - the run completes (closing a terminal waits for the observer to let
#     go of its descriptor: a hang would time out), the profile is valid
#     and lost nothing, and the SESSION says the observer was on;
#   - the scenario ran as planned: B had A's descriptor, and the nine
#     cycled terminals and the last one had descriptors of their own;
#   - the batch of "ab" (2 bytes) has no known-empty time: its bytes
#     were waiting before B's descriptor was ever seen empty, and A's
#     empty time does not stand for B's (before be8cf88 it did);
#   - the batch of "cde" (3 bytes) has a known-empty time and a first
#     readiness less than 300 ms before its read: the last terminal got
#     a place among the eight although ten terminals were opened and
#     closed before it (before be8cf88 the closed ones kept theirs);
#   - the key interactions of "ab" have no t_input_earliest, those of
#     "cde" do.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built.
set -eu

. "$(dirname "$0")/preamble.sh"

tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*"; exit 1; }

# The scenario takes about 3.5 s; Emacs, whose C-x C-c is not obeyed
# after frames on other terminals came and went (vanilla Emacs too),
# ends with the driver's hangup.
cat > "$tmp/keys.script" <<'EOF'
pause 6s
key C-x C-c
EOF

cd "$tmp"
rc=0
EMLAT_TEST_LOG="$tmp/scenario.log" EMLAT_TEST_PROFILE="$tmp/emacs.emlat" \
  timeout 90 "$EMLAT" replay --script keys.script --grace 1s -o replay.emlat -- \
  "$EMACS_BIN" -Q -nw -l "$SRCDIR/tests/emacs/latency-test-terminals.el" \
  > replay.out 2>&1 || rc=$?
cat replay.out
[ "$rc" -eq 0 ] || fail "emlat replay exited $rc"
[ -f scenario.log ] || fail "the scenario wrote nothing"
cat scenario.log
grep -qx done scenario.log || fail "the scenario did not finish"

"$EMLAT" check emacs.emlat > check.out 2>&1 || { cat check.out; fail "emlat check"; }
grep -q ': valid' check.out || { cat check.out; fail "profile not valid"; }
grep -q 'losses: 0 LOSS records, 0 records lost' check.out \
  || { cat check.out; fail "records lost"; }
"$EMLAT" dump emacs.emlat > emacs.dump || fail "emlat dump"
grep -q 'meta latency.input_observer = 1' emacs.dump \
  || fail "SESSION does not say the observer was on"

awk '
  $1 == "reuse" { a = $2; b = $3 }
  $1 == "cycle" { n++; fd[$2]++ }
  $1 == "last" { last = $2 }
  END {
    if (a < 0 || a != b) { print "B did not get A'"'"'s descriptor (" a ", " b ")"; exit 1 }
    distinct = 0
    for (d in fd) { distinct++; if (d == a || d == last || d < 0) { print "descriptor " d " shared"; exit 1 } }
    if (n != 9 || distinct != 9) { print n " cycled terminals on " distinct " descriptors"; exit 1 }
    if (last < 0) { print "no descriptor for the last terminal"; exit 1 }
    print "descriptors: A and B " a ", nine cycled, last " last
  }' scenario.log || fail "the scenario did not run as planned"

# The input batches of the two extra terminals, by their sizes.
awk '
  /^  input batch=/ {
    delete f
    for (i = 2; i <= NF; i++) {
      k = index($i, "="); if (!k) continue
      v = substr($i, k + 1); sub(/\(.*/, "", v); sub(/^\+/, "", v)
      f[substr($i, 1, k - 1)] = v + 0
    }
    if (f["bytes"] == 2) { ab++; print "ab batch " f["batch"] (("known_empty" in f) ? " known_empty" : "") > "batches"
      if ("known_empty" in f) { print "the batch of ab has a known-empty time"; bad = 1 } }
    if (f["bytes"] == 3) { cde++; print "cde batch " f["batch"] > "batches"
      if (!("known_empty" in f) || !("first_ready" in f)) { print "the batch of cde has no known-empty or ready time"; bad = 1 }
      else {
        w = f["read_begin"] - f["known_empty"]
        printf "cde: known empty %.3f ms, first ready %.3f ms before its read\n", w / 1e6, (f["read_begin"] - f["first_ready"]) / 1e6
        if (w < 0 || w >= 3e8 || f["first_ready"] < f["known_empty"]) { print "cde: bound out of range"; bad = 1 }
      }
    }
  }
  END { if (ab != 1 || cde != 1) { print ab + 0 " batches of 2 bytes, " cde + 0 " of 3"; exit 1 } exit bad }' \
  emacs.dump || fail "the input batches of the extra terminals"
cat batches

# Their key interactions: those whose decisive source is that batch.
ab=$(awk '$1 == "ab" { print $3 }' batches)
cde=$(awk '$1 == "cde" { print $3 }' batches)
awk -v ab="$ab" -v cde="$cde" '
  /^  interaction complete .*kind=tty_command/ {
    b = ""
    for (i = 3; i <= NF; i++) if ($i ~ /^decisive_source_batch=/) b = substr($i, 23)
    has = / t_input_earliest=/
    if (b == ab) { nab++; if (has) { print "a key of ab has t_input_earliest"; bad = 1 } }
    if (b == cde) { ncde++; if (!has) { print "a key of cde has no t_input_earliest"; bad = 1 } }
  }
  END {
    printf "key interactions: %d of ab, %d of cde\n", nab, ncde
    if (nab != 2 || ncde != 3) bad = 1
    exit bad
  }' emacs.dump || fail "the key interactions of the extra terminals"
echo "ok: ten terminals opened and closed; a reused descriptor starts unknown, and the last terminal is tracked"

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_joined.sh -- `emlat report PROGRAM REPLAY`: the outside view of
# `emlat replay` joined with the program's own profile (docs/REPLAY.md
# "Joining the two profiles", docs/REPORT.md "The outside view").
#
#   crafted  tests/progs/json_profiles joined writes a pair whose every key
#            is known (see JOINED_CASES there): the counts of matched and
#            unmatched sends and interactions, the match decided by order,
#            the key below the lower bound counted below (never inside),
#            the key above the upper bound, the shares and quantiles, in
#            both operand orders, in text, JSON and HTML; a program file
#            alone and a rotated set of one session are not joined.
#   real     nano (else less) typed into under `emlat replay --interpose`:
#            every send matched, no key below the lower bound, the text
#            section and the HTML section present.  Skipped (77) only when
#            neither program is installed.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
EMLAT=${EMLAT:-$BUILD/emlat}
PROFILES=$BUILD/tests/progs/json_profiles
fails=0
check () {
  desc=$1
  shift
  if "$@"; then echo "ok: $desc"; else
    echo "FAIL: $desc"
    fails=$((fails + 1))
  fi
}
has () { grep -q -- "$2" "$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# jq-like assertions on a report --json document: FILE EXPR (Python, the
# document is d, its "joined" member j).
jv () { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); j=d["joined"]; sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }

# --- crafted ------------------------------------------------------------
"$PROFILES" joined "$tmp/prog.emlat" "$tmp/drv.emlat" || { echo "FAIL: json_profiles joined"; exit 1; }
for order in "prog drv" "drv prog"; do
  set -- $order
  "$EMLAT" report --json "$tmp/$1.emlat" "$tmp/$2.emlat" >"$tmp/j.json" 2>"$tmp/err"
  rc=$?
  o="($1 first)"
  check "crafted $o: exit 0 (got $rc)" [ "$rc" -eq 0 ]
  check "crafted $o: nothing on stderr" [ ! -s "$tmp/err" ]
  check "crafted $o: the report is of the program's session" jv "$tmp/j.json" \
    'd["session_meta"].get("program.name") == "json-profiles"'
  check "crafted $o: 7 key sends, 6 matched, 1 unmatched, 1 resize" jv "$tmp/j.json" \
    'j["sends"] == 7 and j["sends_matched"] == 6 and j["sends_unmatched"] == 1 and j["sends_resize"] == 1'
  check "crafted $o: 8 program interactions: 6 matched, 1 input from no send, 1 without input" jv "$tmp/j.json" \
    'j["program_interactions"] == 8 and j["program_matched"] == 6 and j["program_input_unmatched"] == 1 and j["program_no_input"] == 1'
  check "crafted $o: one match decided by order (key 6)" jv "$tmp/j.json" \
    'j["matched_by_order"] == 1 and [k["send"] for k in j["keys"] if k["by_order"]] == [6]'
  check "crafted $o: 5 compared: 3 inside, 1 below, 1 above" jv "$tmp/j.json" \
    'j["all"]["compared"] == 5 and j["all"]["inside"] == 3 and j["all"]["below"] == 1 and j["all"]["above"] == 1'
  check "crafted $o: shares 0.6 / 0.2 / 0.2" jv "$tmp/j.json" \
    'abs(j["all"]["inside_share"] - 0.6) < 1e-9 and abs(j["all"]["below_share"] - 0.2) < 1e-9 and abs(j["all"]["above_share"] - 0.2) < 1e-9'
  check "crafted $o: key 2 (outside 50us, lower 200us) is below" jv "$tmp/j.json" \
    '[(k["external_ns"], k["latency_lower_ns"], k["agreement"]) for k in j["keys"] if k["send"] == 2] == [(50000, 200000, "below")]'
  check "crafted $o: key 3 (outside 5ms, upper 800us) is above" jv "$tmp/j.json" \
    '[(k["external_ns"], k["latency_upper_ns"], k["agreement"]) for k in j["keys"] if k["send"] == 3] == [(5000000, 800000, "above")]'
  check "crafted $o: key 4 (no interaction) is not matched, key 5 (silent) is not compared" jv "$tmp/j.json" \
    '4 not in [k["send"] for k in j["keys"]] and [(k["external_ns"], k["agreement"]) for k in j["keys"] if k["send"] == 5] == [(None, None)]'
  # outside - lower of the compared: -150us, +300us, +1.1ms, +2.1ms, +4.9ms
  check "crafted $o: outside - lower: median 1.1ms, p99 4.9ms, min -150us" jv "$tmp/j.json" \
    'j["all"]["external_minus_lower_median_ns"] == 1100000 and j["all"]["external_minus_lower_p99_ns"] == 4900000 and j["all"]["external_minus_lower_min_ns"] == -150000'
  check "crafted $o: one root kind group, tty_command" jv "$tmp/j.json" \
    '[g["root_kind"] for g in j["by_root_kind"]] == ["tty_command"] and j["by_root_kind"][0]["keys"] == 6'
done
"$EMLAT" report --ascii "$tmp/drv.emlat" "$tmp/prog.emlat" >"$tmp/j.txt" 2>&1
check "crafted text: the section" has "$tmp/j.txt" '^The outside view'
check "crafted text: the shares" has "$tmp/j.txt" '60.0% inside (lower <= outside <= upper), 20.0% below the lower bound'
check "crafted text: the key below is listed" has "$tmp/j.txt" '^  keys below the lower bound:'
check "crafted text: right after the first screen" sh -c \
  'awk "/^The 5 slowest|^The [0-9] slowest/{s=NR} /^The outside view/{o=NR} /^Latency by root kind/{l=NR} END{exit !(s && o > s && l > o)}" "$1"' x "$tmp/j.txt"
check "crafted text: at most 80 columns" sh -c '! awk "length(\$0) > 80" "$1" | grep -q .' x "$tmp/j.txt"
"$EMLAT" report --html "$tmp/j.html" "$tmp/prog.emlat" "$tmp/drv.emlat" >/dev/null 2>&1
check "crafted HTML: section joined" has "$tmp/j.html" '<section id="joined">'
check "crafted HTML: the key below is marked" has "$tmp/j.html" 'data-agreement="below"'
"$EMLAT" report --json "$tmp/prog.emlat" >"$tmp/alone.json" 2>/dev/null
check "program alone: joined is null" jv "$tmp/alone.json" 'j is None'
"$PROFILES" rotated "$tmp/rot.emlat" || fails=$((fails + 1))
"$EMLAT" report --json "$tmp"/rot*.emlat >"$tmp/rot.json" 2>/dev/null
check "a rotated set of one session: one set, not joined" jv "$tmp/rot.json" \
  'j is None and not any(f["ignored"] for f in d["files"]) and len(d["files"]) >= 4'

# --- real ---------------------------------------------------------------
# A sanitizer build's libemlat-tty.so needs the sanitizer's runtime, which
# Debian's nano and less do not load: the plain build (make test-lib) runs
# this part.
if nm "${BUILD:-build}/libemlat-tty.so" 2>/dev/null | grep -q '__asan_init\|__tsan_init'; then
  echo "skip: the real part in a sanitizer build (libemlat-tty.so cannot be preloaded as it is)"
  [ "$fails" -eq 0 ] || exit 1
  echo "all checks passed"
  exit 0
fi
prog=
if command -v nano >/dev/null 2>&1; then prog=nano
elif command -v less >/dev/null 2>&1; then prog=less
fi
if [ -z "$prog" ]; then
  echo "skip: neither nano nor less is installed"
  [ "$fails" -eq 0 ] || exit 1
  exit 77
fi
# In the temporary directory: nano saves its buffer (nano.PID.save) into
# its working directory when the driver hangs up.
if [ "$prog" = nano ]; then
  (cd "$tmp" && "$EMLAT" replay --workload typing --keys 30 --interpose -o "$tmp/real.emlat" -- nano) >"$tmp/replay.out" 2>&1
else
  "$EMLAT" replay --make-file "$tmp/big.txt" --lines 5000 >/dev/null 2>&1
  "$EMLAT" replay --workload paging --keys 20 --interpose -o "$tmp/real.emlat" -- less "$tmp/big.txt" >"$tmp/replay.out" 2>&1
fi
rc=$?
check "real $prog: replay exit 0 (got $rc)" [ "$rc" -eq 0 ] || cat "$tmp/replay.out"
"$EMLAT" report --json "$tmp/real.tty.emlat" "$tmp/real.emlat" >"$tmp/r.json" 2>"$tmp/rerr"
check "real $prog: report exit 0" [ $? -eq 0 ]
python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["joined"]; a=j["all"]; print("real: sends %d matched %d compared %d inside %d below %d above %d, outside-lower median %s p99 %s" % (j["sends"], j["sends_matched"], a["compared"], a["inside"], a["below"], a["above"], a["external_minus_lower_median_ns"], a["external_minus_lower_p99_ns"]))' "$tmp/r.json"
check "real $prog: every send matched" jv "$tmp/r.json" 'j["sends"] > 0 and j["sends_matched"] == j["sends"]'
check "real $prog: every matched key compared" jv "$tmp/r.json" 'j["all"]["compared"] == j["sends_matched"]'
# The lower bound must hold on every key; a key below it is named.
check "real $prog: no key below the lower bound" jv "$tmp/r.json" 'j["all"]["below"] == 0' \
  || python3 -c 'import json,sys; print([k for k in json.load(open(sys.argv[1]))["joined"]["keys"] if k["agreement"] == "below"])' "$tmp/r.json"
"$EMLAT" report --ascii "$tmp/real.emlat" "$tmp/real.tty.emlat" >"$tmp/r.txt" 2>&1
check "real $prog: text section" has "$tmp/r.txt" '^The outside view'

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  exit 1
fi
echo "all checks passed"

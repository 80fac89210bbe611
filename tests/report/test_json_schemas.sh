#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_json_schemas.sh -- every JSON output of emlat equals its documented
# schema (docs/schema/, docs/JSON.md, docs/REPORT.md): each line of
# `dump --json` and `export --format=jsonl`, each document of `check --json`,
# `report --json` (with and without --per-interaction) and `compare --json`
# is validated with python3-jsonschema; the schemas forbid undocumented keys
# (additionalProperties: false) and fix every value's type, so an
# undocumented, misspelt or mistyped key fails.  `export --format=chrome` is
# checked for the Trace Event Format's required fields.
#
# Profiles:
#   demo       `emlat demo -o` (every root kind, spans on two threads);
#   rotated    a rotated set of 10 files written by tests/progs/json_profiles
#              (every record kind, optional fields present and absent, STRING
#              records with invalid UTF-8, an interaction and a span open at
#              stop);
#   lossy      a 16-slot ring that overflowed (LOSS records);
#   joined     the crafted program and replay-driver pair of json_profiles
#              joined (report's "joined" object, every agreement);
#   recorded   `emlat record` of a program that exits with status 3 and of
#              one killed by SIGTERM (exit_code and exit_signal as numbers);
#   damaged    demo cut inside a chunk (truncated payload), demo with one
#              payload byte flipped (payload CRC mismatch), the rotated set
#              without one of its files (rotated file missing), a file
#              that is only a header, and a file that is not an .emlat file.
# json_schema_check.py (beside this file) does the validation, counts that
# every record kind was seen, runs negative controls (an extra key and a
# mistyped value must be rejected) and checks that the docs name every key
# of the schemas.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
EMLAT=${EMLAT:-$BUILD/emlat}
PROFILES=$BUILD/tests/progs/json_profiles
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

# The Python with jsonschema: scripts/deps.list installs Debian's
# python3-jsonschema for /usr/bin/python3.
PYTHON=
for p in ${PYTHON3:-} python3 /usr/bin/python3; do
  if "$p" -c 'import jsonschema' 2>/dev/null; then PYTHON=$p; break; fi
done
if [ -z "$PYTHON" ]; then
  echo "FAIL: no python3 with jsonschema (sh scripts/deps.sh check installs python3-jsonschema)"
  exit 1
fi
[ -x "$EMLAT" ] || { echo "FAIL: no emlat at $EMLAT"; exit 1; }
[ -x "$PROFILES" ] || { echo "FAIL: no $PROFILES (make tests-build)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/profiles
o=$tmp/out
mkdir -p "$p" "$o"
manifest=$tmp/manifest

# --- the profiles ---------------------------------------------------------

"$EMLAT" demo -n 1 -o "$p/demo.emlat" >"$tmp/demo.log" 2>&1 \
  || { cat "$tmp/demo.log"; fail "emlat demo"; }
"$PROFILES" rotated "$p/rot.emlat" || fail "json_profiles rotated"
"$PROFILES" lossy "$p/lossy.emlat" || fail "json_profiles lossy"
"$PROFILES" joined "$p/joined-prog.emlat" "$p/joined-drv.emlat" || fail "json_profiles joined"
[ -f "$p/rot.3.emlat" ] || fail "the rotated set has fewer than 4 files"
# Profiles `emlat record` finished, knowing how the program ended: an exit
# status and a signal (the keys' numbers, not only their nulls).
FIXTURE=$BUILD/tests/progs/profile_fixture
"$EMLAT" record -o "$p/rec-exit.emlat" -- "$FIXTURE" exit 3 >/dev/null 2>&1
"$EMLAT" record -o "$p/rec-signal.emlat" -- "$FIXTURE" signal 15 >/dev/null 2>&1

# The offset of a chunk past the middle of the demo with a payload of at
# least 16 bytes: cut inside its payload, and flip one of its bytes.
off=$("$EMLAT" dump --json --chunks "$p/demo.emlat" | grep '"record":"chunk_header"' \
        | sed 's/.*"chunk":\([0-9]*\).*"stored":\([0-9]*\).*/\1 \2/' \
        | awk -v half=$(($(wc -c <"$p/demo.emlat") / 2)) '$1 > half && $2 >= 16 { print $1; exit }')
[ -n "$off" ] || fail "no chunk with a 16-byte payload in the second half of the demo"
head -c $((${off:-64} + 48)) "$p/demo.emlat" >"$p/truncated.emlat"
cp "$p/demo.emlat" "$p/flipped.emlat"
at=$((${off:-64} + 45))
byte=$(od -An -tu1 -j "$at" -N1 "$p/demo.emlat" | tr -d ' ')
# shellcheck disable=SC2059
printf "\\$(printf %o $((byte ^ 255)))" | dd of="$p/flipped.emlat" bs=1 seek="$at" conv=notrunc 2>/dev/null
cmp -s "$p/demo.emlat" "$p/flipped.emlat" && fail "the flipped copy equals the demo"
head -c 64 "$p/demo.emlat" >"$p/header-only.emlat"
printf 'not an emlat file, just text\n' >"$p/not-emlat.emlat"
mkdir -p "$p/gap"
for f in "$p"/rot*.emlat; do
  case $f in *rot.3.emlat) ;; *) cp "$f" "$p/gap/" ;; esac
done
rot=$(ls "$p"/rot*.emlat)
gap=$(ls "$p"/gap/*.emlat)

# --- run every verb --------------------------------------------------------

# run NAME SCHEMA MODE EXPECTED-EXITS COMMAND...: stdout to $o/NAME, listed
# in the manifest unless it is empty and an empty output is allowed ("-"
# in the exits).
run () {
  name=$1 schema=$2 mode=$3 exits=$4
  shift 4
  "$@" >"$o/$name" 2>"$o/$name.err"
  rc=$?
  case " $exits " in
    *" $rc "*) ;;
    *) fail "$name: exit $rc, expected one of $exits: $(head -c 300 "$o/$name.err")" ;;
  esac
  if [ -s "$o/$name" ]; then
    echo "$schema $mode $o/$name" >>"$manifest"
  else
    case " $exits " in *" - "*) ;; *) fail "$name: no output" ;; esac
  fi
}

: >"$manifest"
for f in demo lossy truncated flipped header-only not-emlat; do
  in=$p/$f.emlat
  case $f in
    demo | lossy) ok=0 ;;
    truncated | flipped | header-only) ok=1 ;;  # header-only: FORMAT.md F-43
    not-emlat) ok="2 -" ;;
  esac
  run "dump-$f" dump-line.schema.json lines "$ok" "$EMLAT" dump --json "$in"
  run "check-$f" check.schema.json lines "$ok" "$EMLAT" check --json "$in"
  case $f in
    not-emlat)
      run "report-$f" report.schema.json doc "2 -" "$EMLAT" report --json "$in"
      continue ;;
    header-only)
      # No chunk, no record: export has nothing to say.
      run "export-$f" export-line.schema.json lines "0 1 -" \
        "$EMLAT" export --format=jsonl "$in" ;;
    *)
      run "export-$f" export-line.schema.json lines "$ok" "$EMLAT" export --format=jsonl "$in" ;;
  esac
  run "report-$f" report.schema.json doc "0 1" "$EMLAT" report --json "$in"
  run "report-pi-$f" report.schema.json doc "0 1" "$EMLAT" report --json --per-interaction "$in"
  run "chrome-$f" chrome chrome "0 1" "$EMLAT" export --format=chrome "$in"
done
# The rotated set, whole and with a file missing.
# shellcheck disable=SC2086
{
  # One file of the set alone: the first is complete; a later one lacks
  # the files before it (a missing rotation, exit 1); the whole set is 0.
  n=0
  for f in $rot; do
    n=$((n + 1))
    case $f in *.[0-9].emlat | *.[0-9][0-9].emlat) want=1 ;; *) want=0 ;; esac
    run "dump-rot-$n" dump-line.schema.json lines $want "$EMLAT" dump --json "$f"
  done
  run dump-rot dump-line.schema.json lines 0 "$EMLAT" dump --json $rot
  run check-rot check.schema.json lines 0 "$EMLAT" check --json $rot
  run export-rot export-line.schema.json lines 0 "$EMLAT" export --format=jsonl $rot
  run report-rot report.schema.json doc 0 "$EMLAT" report --json $rot
  run report-pi-rot report.schema.json doc 0 "$EMLAT" report --json --per-interaction $rot
  run chrome-rot chrome chrome 0 "$EMLAT" export --format=chrome $rot
  run report-joined report.schema.json doc 0 "$EMLAT" report --json "$p/joined-drv.emlat" \
    "$p/joined-prog.emlat"
  run report-pi-joined report.schema.json doc 0 "$EMLAT" report --json --per-interaction \
    "$p/joined-prog.emlat" "$p/joined-drv.emlat"
  run check-gap check.schema.json lines 1 "$EMLAT" check --json $gap
  for f in rec-exit rec-signal; do
    run "check-$f" check.schema.json lines 0 "$EMLAT" check --json "$p/$f.emlat"
    run "report-$f" report.schema.json doc 0 "$EMLAT" report --json "$p/$f.emlat"
  done
  run export-gap export-line.schema.json lines 1 "$EMLAT" export --format=jsonl $gap
  run report-gap report.schema.json doc 1 "$EMLAT" report --json $gap
  # Several sets and a bad file in one check: one document per set.
  run check-mixed check.schema.json lines 2 "$EMLAT" check --json \
    "$p/demo.emlat" $rot "$p/not-emlat.emlat" "$p/flipped.emlat"
}
# Comparisons: comparable, refused (keys absent on one side), damaged.
run compare-same compare.schema.json doc 0 "$EMLAT" compare --json "$p/demo.emlat" "$p/demo.emlat"
run compare-refused compare.schema.json doc 0 "$EMLAT" compare --json "$p/demo.emlat" "$p/lossy.emlat"
run compare-damaged compare.schema.json doc 1 "$EMLAT" compare --json "$p/truncated.emlat" "$p/demo.emlat"

# --- what the outputs must show -------------------------------------------

grep -q '"a":null\|"b":null' "$o/compare-refused" \
  || fail "compare of sessions with different keys shows no null guard value"
grep -q '"key":"tty.rows","a":null,"b":24' "$o/compare-refused" \
  || fail "compare: tty.rows is not the typed number 24 against null: $(head -c 400 "$o/compare-refused")"
grep -q '"record":"diagnostic","kind":"damage"' "$o/dump-truncated" \
  || fail "dump --json of a truncated file has no damage diagnostic line"
grep -q '"stop":"truncated payload"' "$o/check-truncated" \
  || fail "check --json of a truncated file does not say truncated payload"
grep -q '"stop":"payload CRC mismatch"' "$o/check-flipped" \
  || fail "check --json of a flipped byte does not say payload CRC mismatch"
grep -q '"read_error":null,"rotation":null' "$o/check-mixed" \
  || fail "check --json: a file without a readable header has no null rotation"
grep -q '"exit_code":3,"exit_signal":null' "$o/check-rec-exit" \
  || fail "check --json of a recorded exit 3: $(head -c 300 "$o/check-rec-exit")"
grep -q '"exit_code":null,"exit_signal":15' "$o/report-rec-signal" \
  || fail "report --json of a recorded SIGTERM: no exit_signal 15"
grep -q '"kind":"rotated file missing"' "$o/check-gap" \
  || fail "check --json of the set without rot.3 names no missing file"
# dump and export write the same records with the same keys: the records of
# the demo are the same lines, export adding population and metrics.
grep '"record":"\(session\|stats\|string\|input\|interaction_begin\|span_[a-z]*\|loss\|event\|sample\)"' \
  "$o/dump-demo" >"$tmp/dump-records"
grep -v '"record":"interaction_complete"' "$o/export-demo" >"$tmp/export-records"
cmp -s "$tmp/dump-records" "$tmp/export-records" \
  || fail "dump --json and export --format=jsonl differ on the records of the demo"
grep '"record":"interaction_complete"' "$o/dump-demo" | sed 's/}$//' >"$tmp/dump-ix"
grep '"record":"interaction_complete"' "$o/export-demo" | sed 's/,"population":.*//' >"$tmp/export-ix"
cmp -s "$tmp/dump-ix" "$tmp/export-ix" \
  || fail "dump --json and export --format=jsonl differ on the interactions of the demo"

"$PYTHON" "$SRCDIR/tests/report/json_schema_check.py" "$SRCDIR" "$manifest" || fails=$((fails + 1))

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "json schemas: all checks passed"

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_stdin.sh -- the operand `-` (standard input) of the verbs that read
# profiles: check, dump, report, export and compare print the same output
# and exit with the same code for a profile on standard input (a pipe or a
# redirected file) as for the same file named on the command line, the
# file's name replaced by `-`; damage and garbage on standard input are
# reported like a file's; `-` mixes with named files.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EMLAT=${EMLAT:-$SRCDIR/build/emlat}
if [ ! -x "$EMLAT" ]; then
  echo "FAIL: no emlat binary at $EMLAT"
  exit 1
fi
fails=0
check () {
  desc=$1
  shift
  if "$@"; then :; else
    echo "FAIL: $desc"
    fails=$((fails + 1))
  fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
corpus=$SRCDIR/fuzz/corpus/reader
demo=$tmp/demo.emlat
cp "$corpus/demo.emlat" "$demo"
damaged=$corpus/damaged-truncated.emlat

# same VERB ARGS...: the verb on "$demo" and on `-` fed through a pipe and
# through a redirection give the same exit code, stdout and stderr, once
# the file name is replaced by `-`.
same () {
  "$EMLAT" "$@" "$demo" >"$tmp/f.out" 2>"$tmp/f.err"
  frc=$?
  cat "$demo" | "$EMLAT" "$@" - >"$tmp/p.out" 2>"$tmp/p.err"
  prc=$?
  "$EMLAT" "$@" - <"$demo" >"$tmp/r.out" 2>"$tmp/r.err"
  rrc=$?
  sed "s|$demo|-|g" "$tmp/f.out" >"$tmp/f.sed"
  sed "s|$demo|-|g" "$tmp/f.err" >"$tmp/f.esed"
  check "$*: exit codes $frc (file) $prc (pipe) $rrc (redirect)" [ "$frc" -eq "$prc" ] && [ "$frc" -eq "$rrc" ]
  check "$*: stdout from a pipe differs" cmp -s "$tmp/f.sed" "$tmp/p.out"
  check "$*: stdout from a redirection differs" cmp -s "$tmp/f.sed" "$tmp/r.out"
  check "$*: stderr differs" cmp -s "$tmp/f.esed" "$tmp/p.err"
  check "$*: printed nothing" [ -s "$tmp/p.out" ]
}

same check
check "check: the file name is - on stdin" grep -q '^-: valid$' "$tmp/p.out"
same check --json
same dump
same dump --json
same report
same report --json
same export --format=jsonl
same export --format=chrome

# compare: either side; only the side's name differs.
"$EMLAT" compare "$demo" "$demo" >"$tmp/c.out" 2>&1
crc=$?
"$EMLAT" compare "$demo" - <"$demo" >"$tmp/c1.out" 2>&1
rc=$?
check "compare FILE -: exit $rc (file: $crc)" [ "$rc" -eq "$crc" ]
sed "s|^  B: $demo\$|  B: -|" "$tmp/c.out" >"$tmp/c1.want"
check "compare FILE - prints the same" cmp -s "$tmp/c1.want" "$tmp/c1.out"
"$EMLAT" compare - "$demo" <"$demo" >"$tmp/c2.out" 2>&1
sed "s|^  A: $demo\$|  A: -|" "$tmp/c.out" >"$tmp/c2.want"
check "compare - FILE prints the same" cmp -s "$tmp/c2.want" "$tmp/c2.out"
check "compare names the sides" grep -q '^  A: -$' "$tmp/c2.out"

# Damage on standard input: exit 1, the offset named for `-`.
"$EMLAT" check - <"$damaged" >"$tmp/d.out" 2>"$tmp/d.err"
rc=$?
check "check - on a damaged profile exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "damage named for - with its offset" grep -q '^emlat: -: offset [0-9]*: ' "$tmp/d.err"
cat "$damaged" | "$EMLAT" report - >"$tmp/d.out" 2>"$tmp/d.err"
rc=$?
check "report - on a damaged profile exits 1 (got $rc)" [ "$rc" -eq 1 ]

# Garbage and nothing: unreadable, exit 2.
printf 'not a profile' | "$EMLAT" check - >"$tmp/g.out" 2>"$tmp/g.err"
rc=$?
check "check - on garbage exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "garbage named for -" grep -q '^emlat: -: offset 0: ' "$tmp/g.err"
"$EMLAT" report - </dev/null >"$tmp/g.out" 2>"$tmp/g.err"
rc=$?
check "report - on empty input exits 2 (got $rc)" [ "$rc" -eq 2 ]

# With named files: check reports each set, `-` among them.
cat "$damaged" | "$EMLAT" check "$demo" - >"$tmp/m.out" 2>"$tmp/m.err"
rc=$?
check "check FILE - exits 1 for the damaged one (got $rc)" [ "$rc" -eq 1 ]
check "check FILE -: the file valid" grep -q "^$demo: valid$" "$tmp/m.out"
check "check FILE -: - damaged" grep -q '^-: damaged but recovered$' "$tmp/m.out"

if [ "$fails" -ne 0 ]; then
  echo "$fails failed"
  exit 1
fi
echo "all passed"

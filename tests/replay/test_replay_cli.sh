#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_replay_cli.sh -- the command-line contract of `emlat replay`:
# --help, script errors named "FILE: line N:" with exit 2, bad options and an
# unknown workload exit 2, --print-script prints a script that --script
# accepts with the same keystroke count, --make-file writes the requested
# lines and never overwrites; --interpose names the command's profile and
# never replaces an existing one, and finds the library where `emlat
# record` does (EMLAT_TTY_LIB, beside the binary, ../lib).

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
EMLAT=${EMLAT:-$BUILD/emlat}
ECHO_PROG=$BUILD/tests/progs/pty_echo
[ -x "$EMLAT" ] || { echo "FAIL: no emlat binary at $EMLAT"; exit 1; }
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run () {
  "$EMLAT" replay "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}

run --help
[ $rc -eq 0 ] || fail "--help exits 0 (got $rc)"
grep -q "usage: emlat replay" "$tmp/out" || fail "--help prints the usage"

# A script error names the file and the line, and nothing runs.
printf 'key a\n# fine\nkey C-RET\n' >"$tmp/bad.script"
run --script "$tmp/bad.script" -o "$tmp/x.emlat" -- "$ECHO_PROG"
[ $rc -eq 2 ] || fail "script error exits 2 (got $rc)"
grep -q "^emlat: $tmp/bad.script: line 3: key: unknown or unencodable key 'C-RET'\$" "$tmp/err" \
  || fail "script error names file and line: $(cat "$tmp/err")"
[ ! -e "$tmp/x.emlat" ] || fail "no profile after a script error"

run --script "$tmp/missing.script" -- "$ECHO_PROG"
[ $rc -eq 2 ] || fail "missing script exits 2 (got $rc)"
grep -q "missing.script: cannot open" "$tmp/err" || fail "missing script message"

run --workload nope -- "$ECHO_PROG"
[ $rc -eq 2 ] || fail "unknown workload exits 2 (got $rc)"
grep -q "unknown workload 'nope'" "$tmp/err" || fail "unknown workload message"

run --rows 0 -- "$ECHO_PROG"
[ $rc -eq 2 ] || fail "--rows 0 exits 2 (got $rc)"
run --term 'bad term' -- "$ECHO_PROG"
[ $rc -eq 2 ] || fail "a TERM with a space exits 2 (got $rc)"
run --timeout x -- "$ECHO_PROG"
[ $rc -eq 2 ] || fail "--timeout x exits 2 (got $rc)"
run --keys 3
[ $rc -eq 2 ] || fail "no command exits 2 (got $rc)"
run --workload typing --script "$tmp/bad.script" -- "$ECHO_PROG"
[ $rc -eq 2 ] || fail "--workload with --script exits 2 (got $rc)"

# --print-script: a valid script with the same keystrokes.
for w in typing paging editing resize; do
  run --workload $w --keys 7 --print-script
  [ $rc -eq 0 ] || fail "--print-script $w exits 0 (got $rc)"
  cp "$tmp/out" "$tmp/$w.script"
  run --script "$tmp/$w.script" --print-script
  [ $rc -eq 0 ] || fail "the printed $w script parses (got $rc: $(cat "$tmp/err"))"
done

# --make-file writes N lines once.
run --make-file "$tmp/big.txt" --lines 1234
[ $rc -eq 0 ] || fail "--make-file exits 0 (got $rc)"
[ "$(wc -l <"$tmp/big.txt")" -eq 1234 ] || fail "--make-file wrote 1234 lines"
run --make-file "$tmp/big.txt" --lines 5
[ $rc -eq 2 ] || fail "--make-file never overwrites (got $rc)"
[ "$(wc -l <"$tmp/big.txt")" -eq 1234 ] || fail "the existing file is untouched"

# --interpose: the command's profile, created by the driver and written by
# the command, is named in the summary; an existing one is refused before
# anything runs, untouched, and no profile of the run is left.
run --keys 2 --interpose -o "$tmp/ip.emlat" -- "$ECHO_PROG"
[ $rc -eq 0 ] || fail "--interpose exits 0 (got $rc: $(cat "$tmp/err"))"
grep -q "cmd profile:   $tmp/ip.tty.emlat" "$tmp/out" || fail "the summary names the command's profile"
[ -s "$tmp/ip.tty.emlat" ] || fail "the command wrote its profile"
"$EMLAT" check "$tmp/ip.tty.emlat" >/dev/null 2>&1 || fail "the command's profile is valid"
echo keep >"$tmp/taken.tty.emlat"
run --keys 2 --interpose -o "$tmp/taken.emlat" -- "$ECHO_PROG"
[ $rc -eq 2 ] || fail "an existing command profile exits 2 (got $rc)"
grep -q "taken.tty.emlat: cannot create the command's profile: it exists" "$tmp/err" \
  || fail "the error names the existing file ($(cat "$tmp/err"))"
[ "$(cat "$tmp/taken.tty.emlat")" = keep ] || fail "the existing command profile is untouched"
[ ! -e "$tmp/taken.emlat" ] || fail "the refused run leaves no profile"

# The library --interpose preloads: EMLAT_TTY_LIB when set (a file that
# cannot be read is an error that names it, nothing runs); else beside
# the binary, else in ../lib from it (an installed layout: a copy of the
# binary in bin/ with the library in lib/).
EMLAT_TTY_LIB=$tmp/nope.so run --keys 2 --interpose -o "$tmp/nolib.emlat" -- "$ECHO_PROG"
[ $rc -eq 2 ] || fail "an unreadable EMLAT_TTY_LIB exits 2 (got $rc)"
grep -q "^emlat: $tmp/nope.so: --interpose: EMLAT_TTY_LIB names no readable file\$" "$tmp/err" \
  || fail "the error names EMLAT_TTY_LIB's file ($(cat "$tmp/err"))"
[ ! -e "$tmp/nolib.emlat" ] && [ ! -e "$tmp/nolib.tty.emlat" ] || fail "nothing ran"
EMLAT_TTY_LIB=$BUILD/libemlat-tty.so run --keys 2 --interpose -o "$tmp/envlib.emlat" -- "$ECHO_PROG"
[ $rc -eq 0 ] && [ -s "$tmp/envlib.tty.emlat" ] || fail "EMLAT_TTY_LIB naming the library records (got $rc)"
mkdir -p "$tmp/inst/bin" "$tmp/inst/lib"
cp "$EMLAT" "$tmp/inst/bin/emlat" && cp "$BUILD/libemlat-tty.so" "$tmp/inst/lib/"
"$tmp/inst/bin/emlat" replay --keys 2 --interpose -o "$tmp/inst.emlat" -- "$ECHO_PROG" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ -s "$tmp/inst.tty.emlat" ] \
  || fail "an installed layout finds lib/libemlat-tty.so (got $rc: $(cat "$tmp/err"))"

if [ $fails -ne 0 ]; then
  echo "$fails failed"
  exit 1
fi
echo "all passed"

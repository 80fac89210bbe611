#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_cli_table.sh -- the option, error and exit-code convention of every
# verb of `emlat` (README "The emlat command", "Exit codes"), one table.
#
# Each row is   EXIT | STDOUT | STDERR | ARGUMENTS
#   EXIT       the expected exit status
#   STDOUT     "-" no check; "FULL" standard output is /dev/full; else an
#              extended regular expression some line of stdout must match
#   STDERR     "-" no check beyond the rules below; else an ERE some line of
#              stderr must match
#   ARGUMENTS  what follows `emlat`, expanded by the shell ($G, $O, ...)
# and these rules hold for every row:
#   exit 0  stderr is empty;
#   exit 1  every stderr line starts with "emlat: ";
#   exit 2  stderr is exactly one line, starting with "emlat: ";
#   always  no message has the verb sandwiched after the file and offset
#           ("emlat: FILE: offset N: report: ...").
# Then the rows every verb shares: --help, -h, -V, --version (exit 0, usage
# or version on stdout), an unknown long and short option (exit 2), --help
# to a full standard output (exit 1).
#
# Inputs: a profile from `emlat demo` ($G); the same truncated in the middle
# of chunk 100 ($T), with a byte of its payload flipped ($F), without that
# chunk ($GAP), with that chunk in a codec no reader knows ($CODEC); a
# rotated set of three files ($R0 $R1 $R2); a text file ($X); a path that
# does not exist ($M).

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
case $BUILD in /*) ;; *) BUILD=$SRCDIR/$BUILD ;; esac
EMLAT=${EMLAT:-$BUILD/emlat}
FIXTURE=$BUILD/tests/progs/profile_fixture
PTY_ECHO=$BUILD/tests/progs/pty_echo
for p in "$EMLAT" "$FIXTURE" "$PTY_ECHO"; do
  [ -x "$p" ] || { echo "FAIL: $p not built (make tests-build)"; exit 1; }
done
[ -w /dev/full ] || { echo "SKIP: no writable /dev/full"; exit 77; }
O=$(mktemp -d)
trap 'rm -rf "$O"' EXIT
VERSION=$(sed -n 's/^#define EMLAT_VERSION_STRING "\(.*\)"$/\1/p' "$SRCDIR/include/emlat/emlat.h")

# --- inputs ----------------------------------------------------------------
G=$O/good.emlat
"$EMLAT" demo -o "$G" -n 1 >/dev/null 2>&1 || { echo "FAIL: emlat demo"; exit 1; }
# offset_of N: the byte offset of chunk N of $G.
offset_of () {
  "$EMLAT" dump --chunks "$G" | sed -n "s/^chunk $1 .* @\([0-9]*\) .*/\1/p"
}
# Damage goes into the middle of the file: between chunk K and K+1, with K
# half the chunk count (at least chunk 2: the first data chunk).
nchunks=$("$EMLAT" dump --chunks "$G" | grep -c '^chunk ')
k=$((nchunks / 2))
[ "$k" -ge 2 ] || k=2
a=$(offset_of "$k")
b=$(offset_of $((k + 1)))
[ -n "$a" ] && [ -n "$b" ] || { echo "FAIL: the demo profile has fewer than 3 chunks"; exit 1; }
T=$O/truncated.emlat
head -c $(((a + b) / 2)) "$G" >"$T"
F=$O/flipped.emlat
cp "$G" "$F"
printf '\377' | dd of="$F" bs=1 seek=$((a + 40 + (b - a - 40) / 2)) conv=notrunc 2>/dev/null
GAP=$O/gap.emlat
{ head -c "$a" "$G"; tail -c +$((b + 1)) "$G"; } >"$GAP"
CODEC=$O/codec.emlat
cp "$G" "$CODEC"
"$FIXTURE" set-codec "$CODEC" "$a" 7 || exit 1
R0=$O/rot.emlat
R1=$O/rot.1.emlat
R2=$O/rot.2.emlat
"$FIXTURE" rotated "$R0" || exit 1
X=$O/text.emlat
echo "not a profile" >"$X"
M=$O/missing.emlat
printf 'key a\n# fine\nkey C-RET\n' >"$O/bad.script"
mkdir "$O/ro"

# --- the table ---------------------------------------------------------------
rows=0
failed=0
failed_rows=

# row EXIT STDOUT STDERR ARGUMENTS
row () {
  want=$1
  out_re=$2
  err_re=$3
  args=$4
  rows=$((rows + 1))
  eval "set -- $args"
  if [ "$out_re" = FULL ]; then
    "$EMLAT" "$@" >/dev/full 2>"$O/err" </dev/null
  else
    "$EMLAT" "$@" >"$O/out" 2>"$O/err" </dev/null
  fi
  rc=$?
  why=
  [ "$rc" -eq "$want" ] || why="exit $rc, want $want"
  case $out_re in
    - | FULL) ;;
    *) grep -Eq -- "$out_re" "$O/out" || why="${why:+$why; }no stdout line matches /$out_re/" ;;
  esac
  [ "$err_re" = - ] || grep -Eq -- "$err_re" "$O/err" ||
    why="${why:+$why; }no stderr line matches /$err_re/"
  lines=$(wc -l <"$O/err")
  case $want in
    0) [ "$lines" -eq 0 ] || why="${why:+$why; }stderr not empty" ;;
    1) ! grep -vq '^emlat: ' "$O/err" || why="${why:+$why; }a stderr line without 'emlat: '" ;;
    2) { [ "$lines" -eq 1 ] && grep -q '^emlat: ' "$O/err"; } ||
         why="${why:+$why; }want one stderr line 'emlat: ...', got $lines" ;;
  esac
  ! grep -Eq '^emlat: .*: (demo|check|dump|report|compare|export|record|replay|bench): ' "$O/err" ||
    why="${why:+$why; }the verb inside the message"
  if [ -n "$why" ]; then
    failed=$((failed + 1))
    failed_rows="$failed_rows $rows"
    echo "FAIL row $rows: emlat $args"
    echo "     $why"
    sed 's/^/     stderr| /' "$O/err" | head -n 5
  else
    echo "ok   row $rows: emlat $args"
  fi
}

# The command itself.
row 0 "^usage: emlat VERB" - '--help'
row 0 "^emlat $VERSION\$" - '-V'
row 2 - "unknown verb 'frob'" 'frob'
row 2 - "unknown option '--frob'" '--frob'
row 1 FULL "write error" '--help'

# What every verb shares.
for v in demo check dump report compare export record replay bench help; do
  row 0 "^usage: emlat $v" - "$v --help"
  row 0 "^usage: emlat $v" - "$v -h"
  row 0 "^emlat $v $VERSION\$" - "$v -V"
  row 0 "^emlat $v $VERSION\$" - "$v --version"
  row 2 - "unknown option '--frob'" "$v --frob"
  row 2 - "unknown option '-Z'" "$v -Z"
  row 1 FULL "write error" "$v --help"
done

# demo (about 3 s per recording)
row 0 '^recorded [0-9]+ interactions' - 'demo -n 1 -o $O/demo1.emlat'
row 2 - "$G: .*exists" 'demo -o $G'
row 2 - "$O/nodir/x.emlat: " 'demo -o $O/nodir/x.emlat'
row 2 - "'--seed'.* '-1'" 'demo --seed -1'
row 2 - "'-n'.* 'lots'" 'demo -n lots'
row 2 - "'-o' needs a value" 'demo -o'
row 2 - "unexpected argument 'extra'" 'demo extra'
row 1 FULL - 'demo -n 1 -o $O/demo2.emlat'

# check
row 0 ': valid$' - 'check $G'
row 0 '"verdict":"valid"' - 'check $G --json'
row 0 ': valid$' - 'check -- $G'
row 0 - - 'check $R0 $R1 $R2'
row 1 - "^emlat: $T: offset [0-9]+: " 'check $T'
row 1 - "^emlat: $F: offset [0-9]+: " 'check $F'
row 1 - "^emlat: $GAP: offset [0-9]+: .*sequence gap" 'check $GAP'
row 1 - "^emlat: $CODEC: offset [0-9]+: .*codec" 'check $CODEC'
row 1 - "rotated file missing" 'check $R1'
row 2 - "^emlat: $M: " 'check $M'
row 2 - "^emlat: $X: " 'check $X'
row 2 - "no FILE" 'check'
row 1 FULL "write error" 'check $G'

# dump
row 0 '^chunk 1 SESSION' - 'dump $G --chunks'
row 0 '"record":' - 'dump $G --json'
row 0 - - 'dump $R0 $R1 $R2'
row 1 - "^emlat: $T: offset [0-9]+: " 'dump $T'
row 1 - "^emlat: $F: offset [0-9]+: " 'dump $F'
row 1 - "^emlat: $GAP: offset [0-9]+: .*sequence gap" 'dump $GAP'
row 1 - "^emlat: $CODEC: offset [0-9]+: .*codec" 'dump $CODEC'
row 1 - "rotated file missing" 'dump $R1'
row 1 - "rotated file missing" 'dump $R2 $R0'
row 2 - "^emlat: $M: " 'dump $M'
row 2 - "^emlat: $X: " 'dump $X'
row 2 - "unknown option '-Z'" 'dump -cZ $G'
row 2 - "^emlat: --json: " 'dump -- --json'
row 2 - "--hex" 'dump $G --json --hex'
row 1 FULL "write error" 'dump $G'

# report
row 0 '^' - 'report --ascii $G'
row 0 '"schema"' - 'report $G --json'
row 0 - - 'report $G --html $O/r.html --ascii'
row 0 - - 'report $R0 $R1 $R2'
row 1 - "^emlat: $T: offset [0-9]+: " 'report $T'
row 1 - "^emlat: $CODEC: offset [0-9]+: .*codec" 'report $CODEC'
row 1 - "rotated file missing" 'report $R0 $R2'
row 2 - "^emlat: $M: " 'report $M'
row 2 - "^emlat: $X: " 'report $X'
row 2 - "'--interaction'.* 'x'" 'report --interaction x $G'
row 2 - "option '--json' takes no value" 'report --json=1 $G'
row 2 - "no interaction with cause id" 'report $G --interaction 999999999'
row 2 - "'--html' needs a value" 'report $G --html'
row 2 - "^emlat: $O/nodir/r.html: " 'report $G --html $O/nodir/r.html'
row 1 FULL "write error" 'report $G --ascii'

# compare
row 0 '^emlat compare' - 'compare $G $G'
row 0 '"comparable":' - 'compare $G $G --json'
row 1 - "^emlat: $T: offset [0-9]+: " 'compare $G $T'
row 2 - "^emlat: $M: " 'compare $G $M'
row 2 - "^emlat: $X: " 'compare $X $G'
row 2 - "'--resamples'.* '5'" 'compare $G $G --resamples 5'
row 0 - - 'compare --resamples 0x3e8 $G $G'
row 2 - "'--resamples'.* '\\+1000'" 'compare --resamples +1000 $G $G'
row 2 - "'--resamples'.* ' 1000'" 'compare --resamples " 1000" $G $G'
row 2 - "'--seed'.* '18446744073709551616'" 'compare --seed 18446744073709551616 $G $G'
row 0 - - 'compare --seed 18446744073709551615 $G $G'
row 2 - "two files" 'compare $G'
row 1 FULL "write error" 'compare $G $G'

# export
row 0 'traceEvents' - 'export --format=chrome $G'
row 0 - - 'export --format=chrome $G -o $O/e.json'
row 0 '"record"' - 'export $G --format jsonl'
row 1 - "^emlat: $T: offset [0-9]+: " 'export --format=jsonl $T'
row 2 - "^emlat: $M: " 'export --format=jsonl $M'
row 2 - "format 'xml'" 'export --format=xml $G'
row 2 - "'--format' needs a value" 'export $G --format'
row 2 - "^emlat: $O/nodir/x.json: " 'export --format=jsonl -o $O/nodir/x.json $G'
row 1 FULL "write error" 'export --format=jsonl $G'

# record: the command follows "--"; its exit status is emlat's
# (the command is profile_fixture, built like libemlat-tty.so: in a
# sanitizer build both need the same runtime)
row 0 '^emlat: profile: ' - 'record -o $O/rec1.emlat -- $FIXTURE exit 0'
row 3 - - 'record -o $O/rec2.emlat -- $FIXTURE exit 3 --help'
row 2 - "after '--'" 'record -o $O/rec3.emlat $FIXTURE exit 0'
row 2 - "no command" 'record -o $O/rec4.emlat'
row 2 - "^emlat: $G: .*exists" 'record -o $G -- $FIXTURE exit 0'
row 2 - "'-o' needs a value" 'record -o'
row 127 - "^emlat: /nonexistent/cmd: " 'record -o $O/rec5.emlat -- /nonexistent/cmd'
row 1 FULL - 'record -o $O/rec6.emlat -- $FIXTURE exit 0'

# replay: the command follows "--"
row 0 'planned' - 'replay --keys 2 --wpm 600 --settle-max 1s -o $O/rp1.emlat -- $PTY_ECHO'
row 0 '^' - 'replay --keys 2 --print-script --workload editing'
row 2 - "'--keys'.* '-3'" 'replay --keys -3 --print-script'
row 2 - "'--rows'.* '0'" 'replay --rows 0 --print-script'
row 2 - "'--wpm'.* '0'" 'replay --wpm 0 --print-script'
row 2 - "'--timeout'.* '-1'" 'replay --timeout -1 --print-script'
row 2 - "'--linger'.* '1e309'" 'replay --linger 1e309 --print-script'
row 2 - "'--term'.* 'a b'" 'replay --term "a b" --print-script'
row 2 - "'--keys' needs a value" 'replay --print-script --keys'
row 2 - "ambiguous option '--se': --settle, --settle-max" 'replay --se 1 --print-script'
row 2 - "after '--'" 'replay -o $O/rp2.emlat $PTY_ECHO'
row 2 - "no command" 'replay -o $O/rp3.emlat'
row 2 - "^emlat: $O/bad.script: line 3: " 'replay --script $O/bad.script -o $O/rp4.emlat -- $PTY_ECHO'
row 2 - "^emlat: $O/missing.script: " 'replay --script $O/missing.script -- $PTY_ECHO'
row 2 - "^emlat: $G: .*exists" 'replay --keys 2 -o $G -- $PTY_ECHO'
row 1 FULL - 'replay --keys 2 --wpm 600 --settle-max 1s -o $O/rp5.emlat -- $PTY_ECHO'

# bench
row 2 - "unexpected argument 'extra'" 'bench extra'
row 1 FULL "write error" 'bench --json --quick'

# help
row 0 '^usage: emlat VERB' - 'help'
row 0 '^usage: emlat report' - 'help report'
row 2 - "unknown verb 'frob'" 'help frob'
row 2 - "unexpected argument 'check'" 'help report check'

# Side effects the table cannot see.
extra=0
[ -s "$O/e.json" ] && grep -q traceEvents "$O/e.json" ||
  { echo "FAIL: export -o after the operand did not write $O/e.json"; extra=$((extra + 1)); }
[ -s "$O/r.html" ] ||
  { echo "FAIL: report --html after the operand did not write $O/r.html"; extra=$((extra + 1)); }
[ ! -e "$O/rec3.emlat" ] ||
  { echo "FAIL: record without '--' ran the command"; extra=$((extra + 1)); }
[ ! -e "$O/rp2.emlat" ] ||
  { echo "FAIL: replay without '--' ran the command"; extra=$((extra + 1)); }

echo "$rows rows, $failed failed${failed_rows:+ (rows$failed_rows)}; $extra other checks failed"
[ "$failed" -eq 0 ] && [ "$extra" -eq 0 ]

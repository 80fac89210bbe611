#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_record_exit.sh -- a profile that `emlat record` finished says how
# its program ended (STATS stats.exit_code or stats.exit_signal, FORMAT.md
# 8.2), and `emlat check`, `emlat report` (text, JSON, HTML) show it: an
# exit with status 3, death by SIGTERM (no exit handlers run: the session
# is not stopped); with SIGCHLD ignored by the caller, emlat cannot know
# and says so; and a profile its program finished itself says nothing.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
case $BUILD in /*) ;; *) BUILD=$SRCDIR/$BUILD ;; esac
EMLAT=${EMLAT:-$BUILD/emlat}
FIXTURE=$BUILD/tests/progs/profile_fixture
for p in "$EMLAT" "$FIXTURE"; do
  [ -x "$p" ] || { echo "FAIL: $p not built (make tests-build)"; exit 1; }
done
O=$(mktemp -d)
trap 'rm -rf "$O"' EXIT
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
# has FILE ERE WHAT: some line of FILE matches ERE.
has () { grep -Eq "$2" "$1" || fail "$3: no line matches '$2' in: $(head -c 600 "$1")"; }
hasnt () { ! grep -Eq "$2" "$1" || fail "$3: a line matches '$2'"; }

# record NAME RC ARGS...: `emlat record` of ARGS into $O/NAME.emlat, whose
# status must be RC, then its dump, check and report, text and JSON, in
# $O/NAME.{dump,check,report,cj,rj}.
record () {
  name=$1 want=$2
  shift 2
  "$EMLAT" record -o "$O/$name.emlat" -- "$@" >"$O/$name.rec" 2>&1
  rc=$?
  [ "$rc" -eq "$want" ] || fail "record of $*: exit $rc, expected $want: $(cat "$O/$name.rec")"
  "$EMLAT" dump "$O/$name.emlat" >"$O/$name.dump" 2>&1
  "$EMLAT" check "$O/$name.emlat" >"$O/$name.check" 2>&1
  "$EMLAT" report "$O/$name.emlat" >"$O/$name.report" 2>&1
  "$EMLAT" check --json "$O/$name.emlat" >"$O/$name.cj" 2>&1
  "$EMLAT" report --json "$O/$name.emlat" >"$O/$name.rj" 2>&1
}

# An exit with status 3: emlat's own status is the program's.
record exit 3 "$FIXTURE" exit 3
has "$O/exit.dump" '^  stat stats\.exit_code = 3$' "dump of the exit"
hasnt "$O/exit.dump" 'stats\.exit_signal' "dump of the exit"
has "$O/exit.check" '^  program ended: exited with status 3$' "check of the exit"
has "$O/exit.report" '^length: .*\(the program exited with status 3\)$' "report of the exit"
has "$O/exit.cj" '"exit_code":3,"exit_signal":null' "check --json of the exit"
has "$O/exit.rj" '"exit_code":3,"exit_signal":null' "report --json of the exit"

# Death by SIGTERM: 128 + 15, the session never stopped.
record term 143 "$FIXTURE" signal 15
has "$O/term.dump" '^  stat stats\.exit_signal = 15$' "dump of the kill"
hasnt "$O/term.dump" 'stats\.exit_code' "dump of the kill"
has "$O/term.dump" '^  stat stats\.final = 0$' "dump of the kill"
has "$O/term.check" '^  program ended: killed by SIGTERM \(signal 15\)$' "check of the kill"
has "$O/term.report" 'not stopped cleanly \(the program was killed by SIGTERM \(signal 15\)\)$' \
  "report of the kill"
has "$O/term.cj" '"exit_code":null,"exit_signal":15' "check --json of the kill"
has "$O/term.rj" '"exit_code":null,"exit_signal":15' "report --json of the kill"
"$EMLAT" report --html "$O/term.html" "$O/term.emlat" >/dev/null 2>&1
has "$O/term.html" 'how the program ended</td><td>killed by SIGTERM \(signal 15\)<' "report --html"

# SIGCHLD ignored by the caller: the kernel reaps the program, so how it
# ended cannot be known; emlat says so (exit 1) and writes no exit key.
env --ignore-signal=CHLD "$EMLAT" record -o "$O/ign.emlat" -- "$FIXTURE" exit 3 \
  >"$O/ign.rec" 2>"$O/ign.err"
rc=$?
[ "$rc" -eq 1 ] || fail "record with SIGCHLD ignored: exit $rc, expected 1"
has "$O/ign.err" '^emlat: .*: cannot learn how the command ended' "record with SIGCHLD ignored"
"$EMLAT" dump "$O/ign.emlat" >"$O/ign.dump" 2>&1
hasnt "$O/ign.dump" 'stats\.exit_' "dump with SIGCHLD ignored"

# A profile its program finished itself: nothing is known, nothing said.
"$FIXTURE" rotated "$O/own.emlat" >/dev/null 2>&1 || fail "fixture rotated"
"$EMLAT" check "$O/own.emlat" >"$O/check-own" 2>&1
hasnt "$O/check-own" 'program ended' "check of a profile nobody reaped"
"$EMLAT" report "$O/own.emlat" >"$O/report-own" 2>&1
hasnt "$O/report-own" 'the program (exited|was killed)' "report of a profile nobody reaped"
"$EMLAT" check --json "$O/own.emlat" >"$O/cj-own" 2>&1
has "$O/cj-own" '"exit_code":null,"exit_signal":null' "check --json of a profile nobody reaped"

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "ok"

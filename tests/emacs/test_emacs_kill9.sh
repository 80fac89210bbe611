#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_kill9.sh -- a profiled Emacs killed with SIGKILL leaves a
# readable profile (issue 5).
#
# Starts `emacs -Q -nw --latency-profile=FILE` in a script(1) PTY, types a
# few keys with pauses (each pause is longer than the recorder's drain
# interval, 5 ms by default, and its STATS period, 1 s), kills Emacs with
# SIGKILL (by the PID its launcher wrote, never by name), and checks that
# `emlat check` reads the file (valid or damaged-but-recovered, exit 0 or
# 1, never 2) and still finds the typed interactions.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built or script(1)
# is missing.
set -eu

. "$(dirname "$0")/preamble.sh"
if ! command -v script >/dev/null 2>&1; then
  echo "SKIP: script(1) (util-linux) is not installed"
  exit 77
fi

tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
profile=$tmp/killed.emlat
fail () { echo "FAIL: $*"; exit 1; }

keys () {
  sleep 3
  for c in x y z; do printf '%s' "$c"; sleep 0.5; done
  sleep 1.5                       # > STATS period: the file is current
  pid=$(cat "$tmp/pid")
  kill -KILL "$pid"
  sleep 1
}

keys | TERM=xterm timeout 60 script -qfec \
  "stty rows 24 cols 80; echo \$\$ > '$tmp/pid'; exec '$EMACS_BIN' -Q -nw --latency-profile='$profile'" \
  /dev/null > "$tmp/screen.log" 2>&1 || true

[ -s "$profile" ] || fail "no profile written"
rc=0
"$EMLAT" check "$profile" > "$tmp/check.out" 2>&1 || rc=$?
cat "$tmp/check.out"
[ "$rc" -le 1 ] || fail "emlat check could not read the profile (exit $rc)"
grep -q 'stopped cleanly: yes' "$tmp/check.out" && fail "a killed Emacs cannot have stopped cleanly"

"$EMLAT" dump "$profile" > "$tmp/dump.txt" 2>&1 || true
n=$(grep -o 'interaction [a-z]* cause=[0-9]* thread=[0-9]* kind=tty_command' "$tmp/dump.txt" \
  | sed 's/interaction [a-z]* //' | sort -u | wc -l | tr -d ' ')
[ "$n" -ge 3 ] || fail "expected the 3 typed interactions in the killed profile, found $n"
echo "ok: killed profile readable (check exit $rc), $n interactions"

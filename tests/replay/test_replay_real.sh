#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_replay_real.sh -- `emlat replay` drives real programs from Debian's
# packages: less pages through a generated file (the paging workload), vim
# is typed into and quit by a script.  Every keystroke sent is measured and
# gets output; vim exits by itself at the end (status 0).  SKIP (77) when
# neither less nor vim is installed.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
EMLAT=${EMLAT:-$BUILD/emlat}
[ -x "$EMLAT" ] || { echo "FAIL: no emlat binary at $EMLAT"; exit 1; }
LESS_BIN=$(command -v less || true)
VIM_BIN=$(command -v vim.basic || command -v vim || true)
if [ -z "$LESS_BIN" ] && [ -z "$VIM_BIN" ]; then
  echo "SKIP: neither less nor vim is installed"
  exit 77
fi
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# count LABEL: the number before " LABEL" in the summary.
count () { sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p" "$tmp/out" | head -n 1; }

if [ -n "$LESS_BIN" ]; then
  "$EMLAT" replay --make-file "$tmp/pages.txt" --lines 20000 >/dev/null
  "$EMLAT" replay --workload paging --keys 12 -o "$tmp/less.emlat" \
    -- "$LESS_BIN" "$tmp/pages.txt" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  cat "$tmp/out"
  [ $rc -eq 0 ] || fail "less: exit 0 (got $rc): $(cat "$tmp/err")"
  [ "$(count measured)" = 12 ] || fail "less: 12 keystrokes measured"
  [ "$(count silent)" = 0 ] || fail "less: every page-down produced output"
  "$EMLAT" check "$tmp/less.emlat" >"$tmp/check" 2>&1 || fail "less: profile valid: $(cat "$tmp/check")"
  grep -q "interactions 12 (0 open)" "$tmp/check" || fail "less: 12 interactions: $(cat "$tmp/check")"
else
  echo "# less not installed: skipped that part"
fi

if [ -n "$VIM_BIN" ]; then
  cat >"$tmp/vim.script" <<'SCRIPT'
# vim without a vimrc: insert text, move, delete, undo, quit
set gap 120ms
key i
type "hello replay" wpm 200
key ESC
key 0 x u
type ":q!\n" wpm 200
SCRIPT
  "$EMLAT" replay --script "$tmp/vim.script" -o "$tmp/vim.emlat" \
    -- "$VIM_BIN" -u NONE -i NONE -N -n "$tmp/new.txt" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  cat "$tmp/out"
  [ $rc -eq 0 ] || fail "vim: exit 0 (got $rc): $(cat "$tmp/err")"
  [ "$(count planned)" = 21 ] || fail "vim: 21 keystrokes planned"
  [ "$(count measured)" = 21 ] || fail "vim: 21 keystrokes measured"
  grep -q "exited with status 0; the driver sent nothing" "$tmp/out" \
    || fail "vim quit by itself"
  [ ! -e "$tmp/new.txt" ] || fail "vim wrote nothing (:q!)"
else
  echo "# vim not installed: skipped that part"
fi

if [ $fails -ne 0 ]; then
  echo "$fails failed"
  exit 1
fi
echo "all passed"

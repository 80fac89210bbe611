#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_windows.sh -- the window_rows and window_cols counters of a
# key's interaction are the text rows and columns of the selected window
# when its key sequence was read: the window's lines less its mode, header
# and tab lines (each only if the window wants it and is high enough for
# it, the mode line first: Emacs's window_internal_height), whatever
# decides them: the buffer's formats, a window parameter, the window's
# height, the minibuffer window.
#
# `emacs -Q -nw -l tests/emacs/latency-test-windows.el` runs under `emlat
# replay --script` in a terminal of 24 rows and 80 columns without a menu
# bar: its one window has 23 lines, 22 rows of text.  The script types, one
# at a time, "x" after each layout key of latency-test-windows.el (<f5> a
# header line, <f6> a tab line, <f7> no mode line, <f8> the header line's
# window parameter `none', <f9> a selected window of two lines, <f10> the
# mode line back), then M-x, "x" in the minibuffer, C-g.  The tty commands,
# in the order typed, have these window_rows:
#   x 22, <f5> 22, x 21, <f6> 21, x 20, <f7> 20, x 21, <f8> 21, x 22,
#   <f9> 22, x 1 (two lines: header line, no room for the tab line),
#   <f10> 1, x 1 (mode line, no room for the others), M-x 1, x 1 (the
#   minibuffer window), C-g 1;
# and the first has 80 window_cols.  Privacy: no marker of the file's
# strings or names appears in the profile.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built.  Environment:
# EMLAT, SRCDIR (from tests/run.sh), EMACS_BIN (default: the binary of
# `make emacs` in the default cache), KEEP_TMP=1 keeps the files.
set -eu

. "$(dirname "$0")/preamble.sh"

tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*"; exit 1; }

{
  echo 'expect-quiet 500ms timeout 20s'
  echo 'type "x"'
  echo 'pause 300ms'
  for k in F5 F6 F7 F8 F9 F10; do
    printf 'key %s\npause 300ms\ntype "x"\npause 300ms\n' "$k"
  done
  printf 'key M-x\npause 300ms\ntype "x"\npause 300ms\nkey C-g\npause 300ms\n'
  echo 'key C-x C-c'
} > "$tmp/keys.script"

cd "$tmp"
rc=0
timeout 120 "$EMLAT" replay --rows 24 --cols 80 --script keys.script -o replay.emlat -- \
  "$EMACS_BIN" -Q -nw -l "$SRCDIR/tests/emacs/latency-test-windows.el" \
  --latency-profile="$tmp/emacs.emlat" > replay.out 2>&1 || rc=$?
cat replay.out
[ "$rc" -eq 0 ] || fail "emlat replay exited $rc"
"$EMLAT" check emacs.emlat > check.out 2>&1 || { cat check.out; fail "emlat check"; }
grep -q ': valid' check.out || { cat check.out; fail "profile not valid"; }
"$EMLAT" dump emacs.emlat > emacs.dump || fail "emlat dump emacs.emlat"

# The tty commands in the order their key sequences were read, each as
# "ROWS COLS".
awk '
  /^  interaction complete / && / kind=tty_command / {
    rows = "-"; cols = "-"; t = ""
    for (i = 3; i <= NF; i++) {
      n = index($i, "="); if (!n) continue
      k = substr($i, 1, n - 1); v = substr($i, n + 1)
      if (k == "window_rows") rows = v
      if (k == "window_cols") cols = v
      if (k == "t_key_decode_done") { sub(/\(.*/, "", v); sub(/^\+/, "", v); t = v }
    }
    print t, rows, cols
  }' emacs.dump | sort -n | cut -d' ' -f2- > commands
cat commands
want="22 22 21 21 20 20 21 21 22 22 1 1 1 1 1 1"
got=$(awk '{ printf "%s%s", sep, $1; sep = " " }' commands | cut -d' ' -f1-16)
echo "window_rows: $got"
[ "$got" = "$want" ] || fail "window_rows '$got', expected '$want'"
[ "$(head -n 1 commands | cut -d' ' -f2)" = 80 ] || fail "first command: window_cols not 80"

for marker in QZHEADERLINEQZ QZTABLINEQZ qzheaderqz qztablineqz qznomodelineqz \
    qznoheaderparamqz qzsmallwindowqz qzmodelinebackqz latency-test-windows emlat-test; do
  if grep -a -q -i -F -- "$marker" emacs.emlat; then
    fail "profile bytes contain '$marker'"
  fi
done
echo "ok: window_rows of $(wc -l < commands | tr -d ' ') tty commands checked"

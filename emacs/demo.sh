#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# demo.sh -- `make demo`, emlat's main job: profile a real terminal Emacs.
#
#   sh emacs/demo.sh EMLAT EMACS_BIN
#
# Runs the profiled Emacs built by `make emacs` (EMACS_BIN) as
# `emacs -Q -nw --latency-profile=FILE` in a pseudo-terminal owned by
# `emlat replay` (EMLAT), which types its mixed editing workload into it
# (`--workload editing`: words, cursor keys, deletions, undo, newlines; about
# 20 s) and measures every keystroke from outside.  When the workload ends
# the driver hangs up the terminal and Emacs exits, finishing its profile.
# Then prints `emlat report` of the profile Emacs recorded joined with the
# driver's (the outside view beside the inside one: docs/REPORT.md "The
# outside view") and writes the HTML report next to it.
#
# Invariants: nothing is overwritten: every file goes into a new directory
# (mktemp -d under $TMPDIR, or /tmp), whose path is printed first and last;
# Emacs runs with -Q, so no init file of the user is read and nothing of
# theirs is recorded; the exit status is that of the first step that failed.
set -eu

emlat=${1:?usage: demo.sh EMLAT EMACS_BIN}
emacs=${2:?usage: demo.sh EMLAT EMACS_BIN}
case $emlat in /*) ;; *) emlat=$(pwd)/$emlat ;; esac
[ -x "$emlat" ] || { echo "demo.sh: no emlat at $emlat (make all)" >&2; exit 1; }
[ -x "$emacs" ] || { echo "demo.sh: no profiled Emacs at $emacs (make emacs)" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/emlat-demo.XXXXXX")
echo "emlat demo: profiling a terminal Emacs; files in $dir"
echo

# Emacs writes emacs.emlat itself; the driver's outside view goes to
# replay.emlat.  Emacs's working directory is the demo directory.
cd "$dir"
"$emlat" replay --workload editing -o replay.emlat -- \
  "$emacs" -Q -nw --latency-profile="$dir/emacs.emlat"
echo

[ -s emacs.emlat ] || { echo "demo.sh: Emacs wrote no profile" >&2; exit 1; }
"$emlat" report emacs.emlat replay.emlat
"$emlat" report --html emacs.html emacs.emlat replay.emlat > /dev/null

cat <<EOF

Files in $dir:
  emacs.emlat    the profile Emacs recorded (emlat report, dump, export)
  emacs.html     the same report (joined with replay.emlat) as a page
  replay.emlat   the keystrokes as the driver saw them from outside
To profile your own session: $emacs -nw --latency-profile=FILE,
work as usual, exit Emacs, then: $emlat report FILE
EOF

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_profile.sh -- the profiled Emacs records a readable profile of a
# short terminal session.
#
# Runs `emacs -Q -nw --latency-profile=FILE` (built by `make emacs`) in a
# pseudo-terminal made by script(1), types keys with pauses (so that some
# redisplays are flushed) and in bursts (so that some are superseded), runs
# a prefix key sequence with a pause inside (C-x ... C-b), a command that
# signals an error, quits a minibuffer with C-g, forces a GC
# with M-: (garbage-collect) and leaves with M-x kill-emacs.  Then:
#   - `emlat check` says the file is valid and was stopped cleanly;
#   - `emlat report --json` counts tty-command interactions, some flushed,
#     some superseded, and one with status error;
#   - the SESSION names the recorder and the terminal type, not its device;
#   - no typed marker text or command name appears in the profile's bytes.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built or script(1)
# is missing: `make check` does not build Emacs.
#
# Environment: EMLAT (from tests/run.sh), EMACS_BIN (default: the binary of
# `make emacs` in the default cache).  Timing: the key pauses are 0.4 s or
# more and only order matters; no duration is asserted.
set -eu

. "$(dirname "$0")/preamble.sh"
if ! command -v script >/dev/null 2>&1; then
  echo "SKIP: script(1) (util-linux) is not installed"
  exit 77
fi

tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
profile=$tmp/session.emlat
fail () { echo "FAIL: $*"; exit 1; }

# The keys, with pauses.  ESC x is M-x.  The marker strings must never
# reach the profile: one is typed as buffer text, one is the name of an
# undefined command that signals an error.
keys () {
  sleep 3                         # startup, terminal queries
  for c in a b c; do printf '%s' "$c"; sleep 0.4; done
  printf 'QZMARKERTEXTQZ'         # a burst: typed ahead of redisplay
  sleep 0.6
  printf '\033xqzmarkercmdqz\r'   # [No match]: the minibuffer stays
  sleep 1
  printf '\007'                   # C-g quits the minibuffer
  sleep 0.6
  printf '\030'                   # C-x, a prefix ...
  sleep 1
  printf '\002'                   # ... C-b one second later: list-buffers
  sleep 0.6
  printf '\033<'                   # M-< to the first line
  sleep 0.6
  printf '\020'                   # C-p there signals beginning-of-buffer
  sleep 0.8
  printf '\033:(garbage-collect)\r' # M-: forces a GC inside a command
  sleep 0.8
  printf '\033xkill-emacs\r'
  sleep 2
}

keys | TERM=xterm timeout 60 script -qfec \
  "stty rows 24 cols 80; exec '$EMACS_BIN' -Q -nw --latency-profile='$profile'" \
  /dev/null > "$tmp/screen.log" 2>&1 || fail "emacs did not exit cleanly (see screen log: $(tail -c 300 "$tmp/screen.log" | tr -cd '[:print:]\n'))"

[ -s "$profile" ] || fail "no profile written"

"$EMLAT" check "$profile" > "$tmp/check.out" 2>&1 || { cat "$tmp/check.out"; fail "emlat check"; }
grep -q ': valid' "$tmp/check.out" || { cat "$tmp/check.out"; fail "profile not valid"; }
grep -q 'stopped cleanly: yes' "$tmp/check.out" || { cat "$tmp/check.out"; fail "not stopped cleanly"; }

"$EMLAT" report --json "$profile" > "$tmp/report.json" || fail "emlat report --json"

# count_json KEY VALUE: occurrences of "KEY":"VALUE" in the report.
count_json () {
  grep -o "\"$1\":\"$2\"" "$tmp/report.json" | wc -l | tr -d ' '
}
"$EMLAT" dump "$profile" > "$tmp/dump.txt" || fail "emlat dump"

# Interactions: typed commands (at least a, b, c, the burst, M-x, C-g,
# C-x C-b, M-<, C-p); each has a begin and, once ended, a complete record in the dump.
n_ix=$(grep -o 'interaction [a-z]* cause=[0-9]* thread=[0-9]* kind=tty_command' "$tmp/dump.txt" \
  | sed 's/interaction [a-z]* //' | sort -u | wc -l | tr -d ' ')
[ "$n_ix" -ge 7 ] || { head -100 "$tmp/dump.txt"; fail "expected >= 7 tty command interactions, found $n_ix"; }
grep -q 'status=superseded' "$tmp/dump.txt" || fail "the burst produced no superseded interaction"
# The 14-byte burst waits in the input queue: its first keys are removed
# with the later ones still queued.
grep -q 'queue_depth_remove=\([5-9]\|[1-9][0-9]\)' "$tmp/dump.txt" \
  || fail "no key was removed from a queue holding the rest of the burst"
grep -q 'status=error' "$tmp/dump.txt" || fail "C-p on the first line is not recorded with status error"
grep -q 'status=quit' "$tmp/dump.txt" || fail "C-g in the minibuffer is not recorded with status quit"
grep -q 'flush_end' "$tmp/dump.txt" || fail "no interaction has a flush end"
# C-x <pause> C-b: a two-key sequence whose first and decisive events come
# from different read batches, the first one read at least 0.5 s (of the 1 s
# pause; generous for 2 noisy cores) before the decisive one arrived.
grep 'interaction complete .* key_sequence_length=2 ' "$tmp/dump.txt" | awk '
  {
    delete t
    for (i = 1; i <= NF; i++)
      if (split($i, kv, "=") == 2) t[kv[1]] = kv[2]
    if (t["first_source_batch"] != t["decisive_source_batch"] \
        && ("t_first_input_latest" in t) && ("t_input_latest" in t) \
        && t["t_input_latest"] - t["t_first_input_latest"] >= 500000000)
      found = 1
  }
  END { exit !found }' || fail "no two-key sequence with a prefix pause between its batches"

# Redisplay work is counted: typing a character regenerates its row.
grep 'interaction complete .*status=normal .*t_flush_end=' "$tmp/dump.txt" \
  | grep -q 'windows_considered=[1-9].* rows_generated=[1-9]' \
  || fail "no flushed interaction counts redisplayed windows and rows"

# The forced GC is a span serving an interaction (not cause 0), whose
# interaction counts it.
grep -q 'span [a-z]* id=[0-9]* parent=[0-9]* cause=[1-9][0-9]* kind=gc' "$tmp/dump.txt" \
  || fail "no GC span inside an interaction"
grep -q 'interaction complete .* gc_count=[1-9]' "$tmp/dump.txt" \
  || fail "no interaction counts a GC"

# Ordering on every flushed interaction (issue 5): input earliest <= input
# latest <= read end <= queue insert <= queue remove <= decode done <=
# command begin <= command end <= redisplay begin <= redisplay end <= flush
# end; when the output flushed is the work's own (a message during a long
# command: its flush ends before the root work, DESIGN.md 4.1), the chain
# ends at command begin <= flush end <= root work end.  Superseded
# interactions must have no flush end.
grep 'interaction complete' "$tmp/dump.txt" | awk '
  {
    delete t
    for (i = 1; i <= NF; i++)
      if (split($i, kv, "=") == 2) t[kv[1]] = kv[2]
    if (t["status"] == "superseded" && ("t_flush_end" in t)) {
      print "superseded interaction with a flush end: " $0; bad = 1
    }
    if (!("t_flush_end" in t) || !("t_input_latest" in t)) next
    if (("t_root_work_end" in t) && t["t_flush_end"] + 0 < t["t_root_work_end"] + 0)
      n = split("t_input_earliest t_input_latest t_read_end t_queue_insert t_queue_remove t_key_decode_done t_command_begin t_flush_end t_root_work_end", f, " ")
    else
      n = split("t_input_earliest t_input_latest t_read_end t_queue_insert t_queue_remove t_key_decode_done t_command_begin t_command_end t_redisplay_begin t_redisplay_end t_flush_end", f, " ")
    prev = ""
    for (i = 1; i <= n; i++) {
      if (!(f[i] in t)) continue
      v = t[f[i]] + 0
      if (prev != "" && v < pv) { print "order: " prev " > " f[i] " in " $0; bad = 1 }
      prev = f[i]; pv = v
    }
    checked++
  }
  END {
    if (checked < 3) { print "only " checked + 0 " flushed interactions with input"; bad = 1 }
    exit bad
  }' || fail "ordering of interaction boundaries"

grep -q '"recorder":"emacs"' "$tmp/report.json" || fail "SESSION lacks recorder=emacs"
grep -q '"terminal.type":"xterm"' "$tmp/report.json" || fail "SESSION lacks the terminal type"

for marker in QZMARKERTEXTQZ qzmarkercmdqz previous-line garbage-collect kill-emacs /dev/pts "$tmp"; do
  if grep -a -q -F "$marker" "$profile"; then
    fail "profile bytes contain '$marker'"
  fi
done

echo "ok: $n_ix tty command interactions; $(grep -c 'status=superseded' "$tmp/dump.txt") superseded"

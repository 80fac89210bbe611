#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_observer.sh -- the input observer thread of DESIGN.md section 2.5
# notes when a key became readable while Emacs was busy (issue 5).
#
# The profiled Emacs runs under `emlat replay` with interrupt-driven input
# off (`set-input-mode'), so that neither SIGIO nor its own poll sees a key
# typed during a command, and with `latency-profile-input-observer' on; the
# profile is started from Lisp.  <f12> burns 400 ms of CPU; "x" is typed
# 100 ms into it.  Then:
#   - the SESSION says the observer was on;
#   - the observer recorded input_ready spans, with CPU time, on a thread
#     of its own;
#   - the interaction of "x" has t_input_ready of quality observer_ready,
#     at least 100 ms before its read began (the burn goes on for about
#     300 ms after the key), and, being the first byte after an empty
#     state, its t_input_latest is that observation;
#   - its input_to_flush lower bound is within 50 ms of the latency that
#     `emlat replay` measured from outside, send to quiescence (without
#     the observer, the bound would start at the read, some 300 ms late).
#
# Exits 77 (SKIP) when the profiled Emacs has not been built.
set -eu

. "$(dirname "$0")/preamble.sh"

tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*"; exit 1; }

cat > "$tmp/keys.script" <<'EOF'
expect-quiet 500ms timeout 20s
key F12
pause 100ms
type "x"
pause 1s
key C-x C-c
EOF

cd "$tmp"
start="(progn (set-input-mode nil (nth 1 (current-input-mode)) (nth 2 (current-input-mode))) (setq latency-profile-input-observer t) (latency-profile-start \"$tmp/emacs.emlat\"))"
rc=0
timeout 60 "$EMLAT" replay --script keys.script -o replay.emlat -- \
  "$EMACS_BIN" -Q -nw -l "$SRCDIR/tests/emacs/latency-test-commands.el" \
  --eval "$start" > replay.out 2>&1 || rc=$?
cat replay.out
[ "$rc" -eq 0 ] || fail "emlat replay exited $rc"
"$EMLAT" check emacs.emlat > check.out 2>&1 || { cat check.out; fail "emlat check"; }
grep -q ': valid' check.out || { cat check.out; fail "profile not valid"; }
"$EMLAT" dump emacs.emlat > emacs.dump || fail "emlat dump"
"$EMLAT" dump replay.emlat > replay.dump || fail "emlat dump replay"

grep -q 'meta latency.input_observer = 1' emacs.dump || fail "SESSION does not say the observer was on"
# The observer's spans come in SPAN chunks of a thread other than the one
# that records the interactions, and carry CPU time.
main=$(grep -m1 '^  interaction complete' emacs.dump | sed 's/.* thread=\([0-9]*\) .*/\1/')
awk -v main="$main" '
  /^chunk / { th = ""; for (i = 1; i < NF; i++) if ($i == "thread") th = $(i + 1) }
  /span complete .*kind=input_ready .*cpu=/ && th != main { n++ }
  END { print "observer spans: " n + 0 " (interactions on thread " main ")"; exit !n }' emacs.dump \
  || fail "no input_ready span with CPU time on a thread of the observer"

# The interaction of "x": the second tty command, by cause id.
base=$(awk '/^file / { for (i = 1; i < NF; i++) if ($i == "monotonic_start") print $(i + 1) }' emacs.dump)
grep '^  interaction complete .*kind=tty_command' emacs.dump | sort -t= -k2,2n | awk -v base="$base" '
  {
    if (++n != 2) next
    for (i = 3; i <= NF; i++) {
      k = index($i, "="); if (!k) continue
      name = substr($i, 1, k - 1); v = substr($i, k + 1)
      q[name] = ""
      if (match(v, /\(.*\)/)) q[name] = substr(v, RSTART + 1, RLENGTH - 2)
      sub(/\(.*/, "", v); t[name] = v + 0
    }
    found = 1
  }
  END {
    if (!found) { print "no second tty command"; exit 1 }
    if (!("t_input_ready" in t)) { print "no t_input_ready"; exit 1 }
    wait = t["t_read_begin"] - t["t_input_ready"]
    printf "x: ready %s, read %.3f ms after it; input_latest quality %s\n", \
      q["t_input_ready"], wait / 1e6, q["t_input_latest"]
    if (q["t_input_ready"] != "observer_ready") { print "ready not observed by the observer"; exit 1 }
    if (wait < 1e8) { print "read less than 100 ms after the observation"; exit 1 }
    if (t["t_input_latest"] != t["t_input_ready"] || q["t_input_latest"] != "observer_ready") {
      print "input_latest is not the observation"; exit 1
    }
    printf "%.0f %.0f\n", base + t["t_input_latest"], base + t["t_flush_end"] > "x.times"
  }' || fail "the observation of x"

read latest flush < x.times
awk -v latest="$latest" -v flush="$flush" '
  /^file / { for (i = 1; i < NF; i++) if ($i == "monotonic_start") base = $(i + 1) }
  /^  interaction complete / {
    delete t
    for (i = 3; i <= NF; i++) { k = index($i, "="); if (k) t[substr($i, 1, k - 1)] = substr($i, k + 1) + 0 }
    if (!("t_external_quiescent" in t) || t["tty_bytes"] == 0) next
    s = base + t["t_external_send"]
    if (s <= latest && s > best) { best = s; first = base + t["t_external_quiescent"] }
  }
  END {
    if (!best) { print "no send before the observation"; exit 1 }
    ext = first - best; lower = flush - latest
    printf "x: external %.3f ms, input_to_flush lower bound %.3f ms\n", ext / 1e6, lower / 1e6
    d = ext - lower; if (d < 0) d = -d
    exit d > 5e7
  }' replay.dump || fail "the observed bound disagrees with the external latency"
echo "ok: the observer bounded the arrival of a key typed during a busy command"

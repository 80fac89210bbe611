#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_thread_cpu.sh -- `latency-profile-thread-cpu': with it
# non-nil (the default) every interaction carries its main-thread CPU
# readings; with it nil the interactions begun afterwards carry none (an
# unavailable reading is absent, never zero), and the report still reads.
#
# Runs `emacs -Q -nw` (script(1) PTY) twice on the same keys: 6 letters
# and, at the end, C-x C-c:
#   - default (`--latency-profile`): SESSION latency.thread_cpu is 1; every
#     tty command has thread_cpu_begin and thread_cpu_end, the end not
#     before the begin, and no interaction of the session lacks either;
#   - `--eval (setq latency-profile-thread-cpu nil)` after
#     `--latency-profile` (the session starts before Lisp runs, so
#     latency.thread_cpu is still 1): no tty command has either reading,
#     the 6 letters are there, `emlat check` passes and
#     `emlat report --json` counts every tty command's readings as
#     unavailable.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built or script(1)
# is missing.  Environment: EMLAT, EMACS_BIN, EMACS_VERSION.
set -eu

. "$(dirname "$0")/preamble.sh"
if ! command -v script >/dev/null 2>&1; then
  echo "SKIP: script(1) (util-linux) is not installed"
  exit 77
fi

tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*"; exit 1; }

keys () {
  sleep 3                                   # start-up
  for c in q w e r t y; do printf '%s' "$c"; sleep 0.3; done
  printf '\030\003'                         # C-x C-c
  sleep 2
}

# run NAME [OPTIONS]: the keys into $tmp/NAME.emlat, then its JSON lines.
run () {
  keys | TERM=xterm timeout 60 script -qfec \
    "stty rows 24 cols 80; exec '$EMACS_BIN' -Q -nw --latency-profile='$tmp/$1.emlat' ${2:-}" \
    /dev/null > "$tmp/$1.screen" 2>&1 \
    || fail "emacs ($1) did not exit cleanly: $(tail -c 300 "$tmp/$1.screen" | tr -cd '[:print:]\n')"
  [ -s "$tmp/$1.emlat" ] || fail "no profile written ($1)"
  "$EMLAT" check "$tmp/$1.emlat" > "$tmp/$1.check" 2>&1 \
    || { cat "$tmp/$1.check"; fail "emlat check ($1)"; }
  "$EMLAT" export --format=jsonl -o "$tmp/$1.jsonl" "$tmp/$1.emlat" \
    || fail "emlat export ($1)"
  "$EMLAT" report --json "$tmp/$1.emlat" > "$tmp/$1.json" \
    || fail "emlat report --json ($1)"
}

run on
run off "--eval '(setq latency-profile-thread-cpu nil)'"

python3 - "$tmp" <<'EOF' || fail "the CPU readings"
import json, sys
tmp = sys.argv[1]

def interactions(name):
    """The complete interaction records of profile NAME: root kind, values
    (thread_cpu_begin, thread_cpu_end) and derived metrics."""
    out = []
    for line in open("%s/%s.jsonl" % (tmp, name)):
        r = json.loads(line)
        if r.get("record") == "interaction_complete":
            out.append(r)
    return out

def meta(name):
    return json.load(open("%s/%s.json" % (tmp, name)))["session_meta"]

for name in ("on", "off"):
    m = meta(name)
    assert m.get("latency.thread_cpu") == 1, (name, m.get("latency.thread_cpu"))

on = interactions("on")
tty = [i for i in on if i.get("root_kind") == "tty_command"]
assert len(tty) >= 6, "default: %d tty commands" % len(tty)
for i in on:
    v = i["values"]
    assert "thread_cpu_begin" in v and "thread_cpu_end" in v, ("default: no reading", i)
    assert v["thread_cpu_end"] >= v["thread_cpu_begin"], ("default: CPU runs backwards", i)
    assert "main_cpu_ns" in i["metrics"], ("default: no main_cpu_ns", i)
print("default: %d interactions, every one with both readings" % len(on))

off = interactions("off")
tty = [i for i in off if i.get("root_kind") == "tty_command"]
assert len(tty) >= 6, "off: %d tty commands" % len(tty)
for i in tty:
    for k in ("thread_cpu_begin", "thread_cpu_end"):
        assert k not in i["values"], ("off: a tty command has " + k, i)
    for k in ("main_cpu_ns", "main_off_cpu_ns"):
        assert k not in i["metrics"], ("off: a tty command has " + k, i)
r = json.load(open("%s/off.json" % tmp))
n_tty_missing = 0
for pop, u in r["unavailable"].items():
    miss = u["missing"]
    assert miss["thread_cpu_begin"] <= u["interactions"], (pop, u)
    n_tty_missing += miss["thread_cpu_begin"]
assert n_tty_missing >= len(tty), ("off: the report counts %d without CPU, %d tty commands"
                                   % (n_tty_missing, len(tty)))
print("off: %d tty commands, none with a CPU reading; the report counts %d interactions without"
      % (len(tty), n_tty_missing))
EOF
echo "ok: latency-profile-thread-cpu decides whether interactions read the CPU clock"

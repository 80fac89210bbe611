#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_workflow.sh -- the profiler.el-like workflow in a running
# terminal Emacs: M-x latency-profile-start, work, M-x
# latency-profile-report while the recording goes on, M-x
# latency-profile-stop; the report buffer's numbers equal those of
# `emlat report --json' on the same file.
#
# Runs `emacs -Q -nw' (no --latency-profile) in a script(1) PTY with a
# small helper loaded that sets `latency-profile-directory' to a new
# directory, turns `latency-profile-names' on, copies the profile right
# after `latency-profile-summary' read it (the file as the report saw it:
# nothing is drained into it between the two, the writer having no
# period), and binds <f12> to a command that saves the report buffer's
# text.  The keys: M-x latency-profile-start RET, some typing and cursor
# motion, M-x latency-profile-report RET, <f12>, M-x latency-profile-stop
# RET, C-x C-c.  Then:
#   - exactly one new profile is in the directory, and `emlat check' says
#     it was stopped cleanly;
#   - the report buffer showed the profile being recorded (its file name)
#     without asking for one;
#   - every number of the buffer's distribution tables (each row of each
#     root kind and population: n, min, median, p90, p95, p99, p99.9, max,
#     mean), the interaction counts and the work by name equal those of
#     `emlat report --json' on the copy, formatted as the buffer formats
#     durations;
#   - "1 interaction", never "1 interactions".
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
mkdir "$tmp/profiles"

cat > "$tmp/helper.el" <<EOF
;;; helper.el --- test_emacs_workflow.sh  -*- lexical-binding: t -*-
(setq latency-profile-directory "$tmp/profiles/")
(setq latency-profile-names t)
(advice-add 'latency-profile-summary :around
            (lambda (orig files &rest args)
              (prog1 (apply orig files args)
                (copy-file (if (stringp files) files (car files))
                           "$tmp/snapshot.emlat" t))))
(global-set-key (kbd "<f12>")
                (lambda ()
                  (interactive)
                  (with-current-buffer "*Latency Report*"
                    (write-region (point-min) (point-max)
                                  "$tmp/buffer.txt" nil 'silent))))
EOF

keys () {
  sleep 3
  printf '\033xlatency-profile-start\r'; sleep 1
  for c in h e l l o; do printf '%s' "$c"; sleep 0.25; done
  printf '\002'; sleep 0.3                  # C-b
  printf '\002'; sleep 0.3                  # C-b
  printf '\006'; sleep 0.3                  # C-f
  printf 'abc'; sleep 0.5                   # a burst
  printf '\033xlatency-profile-report\r'; sleep 2
  printf '\033[24~'; sleep 1                # <f12>
  printf '\033xlatency-profile-stop\r'; sleep 1
  printf '\030\003'                         # C-x C-c
  sleep 2
}
keys | TERM=xterm timeout 60 script -qfec \
  "stty rows 30 cols 100; exec '$EMACS_BIN' -Q -nw -l '$tmp/helper.el'" \
  /dev/null > "$tmp/screen.log" 2>&1 \
  || fail "emacs did not exit cleanly: $(tail -c 300 "$tmp/screen.log" | tr -cd '[:print:]\n')"

set -- "$tmp"/profiles/*.emlat
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one new profile in latency-profile-directory: $*"
profile=$1
"$EMLAT" check "$profile" > "$tmp/check.out" 2>&1 || { cat "$tmp/check.out"; fail "emlat check"; }
grep -q 'stopped cleanly: yes' "$tmp/check.out" || { cat "$tmp/check.out"; fail "not stopped cleanly"; }
[ -s "$tmp/buffer.txt" ] || fail "the report buffer was not saved"
[ -s "$tmp/snapshot.emlat" ] || fail "the summary's file was not copied"
grep -q -F "Latency profile $(basename "$profile")" "$tmp/buffer.txt" \
  || grep -q -F "$(basename "$profile")" "$tmp/buffer.txt" \
  || fail "the report buffer does not show the profile being recorded"

rc=0
"$EMLAT" report --json "$tmp/snapshot.emlat" > "$tmp/report.json" 2> "$tmp/report.err" || rc=$?
[ "$rc" -le 1 ] || { cat "$tmp/report.err"; fail "emlat report --json of the snapshot (exit $rc)"; }

python3 - "$tmp/buffer.txt" "$tmp/report.json" <<'EOF' || fail "the report buffer's numbers differ from emlat report --json"
import json, re, sys

def dur(ns):
    """latency-report--dur of emacs/lisp/latency-report.el."""
    if ns is None:
        return "-"
    if ns < 1000:
        return "%dns" % ns
    units = [(1e3, "us"), (1e6, "ms"), (1e9, "s")]
    while True:
        v = ns / units[0][0]
        if v >= 999.5 and len(units) > 1:
            units = units[1:]
            continue
        f = "%.2f%s" if v < 9.995 else "%.1f%s" if v < 99.95 else "%.0f%s"
        return f % (v, units[0][1])

def label(s):
    return s.replace("_", " ")

def count(n, word):
    return "%d %s" % (n, word if n == 1 else word + "s")

text = open(sys.argv[1]).read()
lines = text.split("\n")
r = json.load(open(sys.argv[2]))
checked = 0
c = r["interactions"]
want = "%s: %d flushed, %d no output, %d superseded" % (
    count(c["total"], "interaction"), c["flushed"], c["no_output"], c["superseded"])
assert want in text, (want, text[:400])
checked += 4
assert not re.search(r"\b1 interactions\b", text), "1 interactions"
assert c["total"] >= 10, "too few interactions: %d" % c["total"]
cols = ["n", "min", "median", "p90", "p95", "p99", "p99_9", "max", "mean"]
for g in r["groups"]:
    head = "%s, %s: %s" % (label(g["root_kind"]), label(g["population"]),
                           count(g["interactions"], "interaction"))
    i = next((k for k, l in enumerate(lines) if l.startswith(head)), None)
    assert i is not None, "no group heading " + head
    rows = {}
    for l in lines[i + 2:]:
        if not l.startswith("  "):
            break
        f = l.split()
        rows[f[0]] = f[1:]
    for m, d in g["metrics"].items():
        if d["n"] == 0:
            assert m.replace("_", "-") not in rows, (head, m)
            continue
        got = rows.get(m.replace("_", "-"))
        assert got, (head, m)
        exp = [str(d["n"])] + [dur(d[k]) for k in cols[1:-1]] + \
              [dur(None if d["mean"] is None else int(round(d["mean"])))]
        assert got == exp, (head, m, got, exp)
        checked += len(exp)
names = r["names"]
assert names, "the recording did not record names"
for g in names["groups"]:
    d = g["dist"]
    name = (g["name"] or "(unnamed)")[:32]
    row = "  %-18s %-32s %7d %9s %9s %9s %9s %9s" % (
        label(g["root_kind"]), name, g["interactions"], dur(d["median"]),
        dur(d["p90"]), dur(d["p99"]), dur(d["max"]), dur(d["total"]))
    assert row in lines, ("no row", row)
    checked += 7
assert any(g["name"] == "self-insert-command" for g in names["groups"])
print("ok: %d values of the report buffer equal emlat report --json" % checked)
EOF
echo "ok: start, report while recording, stop; profile $(basename "$profile")"

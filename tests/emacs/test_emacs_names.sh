#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_names.sh -- what the names policy records, and nothing more.
#
# Runs the same small workload twice in `emacs -Q -nw` (script(1) PTY),
# with tests/emacs/latency-test-commands.el loaded: once with
# --latency-profile-names, once without.  The workload types 4 letters,
# C-b twice, C-f once, <f5> (a test command that burns 20 ms) twice,
# <f11> (inserts a marker) once, <f10> (a timer, a subprocess named
# qzprocnameqz with a sentinel, a file notification) once, waits, and
# leaves with C-x C-c.
#
# Names session:
#   - SESSION privacy.policy is "names" and latency.names is 1;
#   - `emlat report --json` groups the tty commands by name with exactly
#     the counts of the keys sent: self-insert-command 4, backward-char 2,
#     forward-char 1, emlat-test-qzcmdburnqz 2, emlat-test-qzcmdinsertqz 1;
#     the process filter and sentinel are named by their process; the
#     slowest interactions carry names;
#   - every string in the profile is the name of a function defined in
#     that Emacs, the process name, or "(anonymous)": nothing else (asked
#     of the profiled Emacs itself, in batch);
#   - no marker text the workload typed, inserted, printed or used as a
#     buffer, file or directory name is in the file's bytes.
# Default session (the same workload):
#   - privacy.policy is "default", no STRING record at all, and none of
#     the names above is in the file's bytes (raw or case-folded).
#
# Exits 77 (SKIP) when the profiled Emacs has not been built or script(1)
# is missing.  Environment: EMLAT, SRCDIR (tests/run.sh), EMACS_BIN,
# EMACS_VERSION.
set -eu

. "$(dirname "$0")/preamble.sh"
if ! command -v script >/dev/null 2>&1; then
  echo "SKIP: script(1) (util-linux) is not installed"
  exit 77
fi

tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*"; exit 1; }
commands=$SRCDIR/tests/emacs/latency-test-commands.el

# The workload.  F-keys as xterm sends them.
keys () {
  sleep 3                                   # start-up
  for c in a b c d; do printf '%s' "$c"; sleep 0.3; done
  printf '\002'; sleep 0.3                  # C-b
  printf '\002'; sleep 0.3                  # C-b
  printf '\006'; sleep 0.3                  # C-f
  printf '\033[15~'; sleep 0.4              # <f5>
  printf '\033[15~'; sleep 0.4              # <f5>
  printf '\033[23~'; sleep 0.4              # <f11>
  printf '\033[21~'; sleep 2.5              # <f10>, and its roots
  printf '\030\003'                         # C-x C-c
  sleep 2
}

# run NAME [OPTION]: the workload into $tmp/NAME.emlat.
run () {
  dir=$tmp/qzdirnameqz-$1
  mkdir -p "$dir"
  keys | EMLAT_TEST_DIR=$dir TERM=xterm timeout 60 script -qfec \
    "stty rows 24 cols 80; exec '$EMACS_BIN' -Q -nw -l '$commands' ${2:-} --latency-profile='$tmp/$1.emlat'" \
    /dev/null > "$tmp/$1.screen" 2>&1 \
    || fail "emacs ($1) did not exit cleanly: $(tail -c 300 "$tmp/$1.screen" | tr -cd '[:print:]\n')"
  [ -s "$tmp/$1.emlat" ] || fail "no profile written ($1)"
  "$EMLAT" check "$tmp/$1.emlat" > "$tmp/$1.check" 2>&1 \
    || { cat "$tmp/$1.check"; fail "emlat check ($1)"; }
}

run names --latency-profile-names
run default

# --- The names session -------------------------------------------------
"$EMLAT" report --json "$tmp/names.emlat" > "$tmp/names.json" || fail "emlat report --json (names)"
python3 - "$tmp/names.json" <<'EOF' || fail "the report's names"
import json, sys
r = json.load(open(sys.argv[1]))
meta = r["session_meta"]
assert meta.get("privacy.policy") == "names", meta.get("privacy.policy")
assert meta.get("latency.names") == 1, meta.get("latency.names")
names = r["names"]
assert names and names["policy"] == "names", names
groups = {(g["root_kind"], g["name"]): g for g in names["groups"]}
want = {"self-insert-command": 4, "backward-char": 2, "forward-char": 1,
        "emlat-test-qzcmdburnqz": 2, "emlat-test-qzcmdinsertqz": 1,
        "emlat-test-qzcmdrootsqz": 1}
for name, n in want.items():
    g = groups.get(("tty_command", name))
    assert g, "no tty_command group %s: %s" % (name, sorted(groups))
    assert g["interactions"] == n, "%s: %d interactions, %d keys" % (name, g["interactions"], n)
    print("%-28s interactions %d, median wall %s ns" % (name, n, g["dist"]["median"]))
# The burns: at least 20 ms of wall time each.
assert groups[("tty_command", "emlat-test-qzcmdburnqz")]["dist"]["min"] >= 19000000
for kind in ("process_data", "process_sentinel"):
    g = groups.get((kind, "qzprocnameqz"))
    assert g and g["interactions"] >= 1, "no %s named by its process" % kind
assert any(k[0] == "timer" for k in groups), "no timer group"
slow = r["slowest"]["interactions"]
assert slow and all("name" in s for s in slow), slow
assert any(s["name"] for s in slow), slow
EOF

# Every string of the profile, one per line.
"$EMLAT" dump "$tmp/names.emlat" \
  | sed -n 's/^  string id=[0-9]* len=[0-9]* "\(.*\)"$/\1/p' > "$tmp/strings"
[ -s "$tmp/strings" ] || fail "the names session has no string"
echo "$(wc -l < "$tmp/strings") strings in the names session"
# Each must be a function of that Emacs (with the test commands loaded),
# the process name or "(anonymous)".
"$EMACS_BIN" -Q --batch -l "$commands" --eval '
(with-temp-buffer
  (insert-file-contents (car command-line-args-left))
  (let ((bad 0))
    (dolist (s (split-string (buffer-string) "\n" t))
      (unless (or (member s (quote ("(anonymous)" "qzprocnameqz")))
                  (fboundp (intern-soft s)))
        (setq bad (1+ bad))
        (message "not a function name: %S" s)))
    (kill-emacs (if (zerop bad) 0 1))))' "$tmp/strings" \
  || fail "the names session holds a string that is not a function or process name"

for marker in QZBUFFERTEXTQZ QZBUFFERNAMEQZ qzfilenameqz QZFILECONTENTQZ \
              QZTIMERTEXTQZ QZPROCOUTPUTQZ QZSENTINELTEXTQZ QZNOTIFYTEXTQZ \
              qzdirnameqz "$tmp"; do
  if grep -a -q -F "$marker" "$tmp/names.emlat"; then
    fail "the names session's bytes contain '$marker'"
  fi
done

# --- The default session ----------------------------------------------
"$EMLAT" report --json "$tmp/default.emlat" > "$tmp/default.json" || fail "emlat report --json (default)"
grep -q '"privacy.policy":"default"' "$tmp/default.json" || fail "the default session's policy is not default"
grep -q '"names":null' "$tmp/default.json" || fail "the default session's report has names"
if "$EMLAT" dump "$tmp/default.emlat" | grep -q '^  string '; then
  fail "the default session has a STRING record"
fi
tr 'A-Z' 'a-z' < "$tmp/default.emlat" | tr -d '\000' > "$tmp/default.folded"
for name in self-insert-command backward-char forward-char emlat-test-qzcmdburnqz \
            emlat-test-qzcmdinsertqz qzprocnameqz show-paren-function anonymous; do
  for f in "$tmp/default.emlat" "$tmp/default.folded"; do
    if grep -a -q -F "$name" "$f"; then
      fail "the default session's bytes contain '$name'"
    fi
  done
done
echo "ok: names recorded as counted, nothing else; the default session holds none"

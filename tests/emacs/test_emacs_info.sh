#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_info.sh -- the manual of the latency profiler
# (emacs/doc/latency.texi) is built by the patched tree's `make info',
# without a complaint from makeinfo, and the profiled Emacs finds it.
#
#   - the tree of EMACS_BIN has info/latency.info, listed in info/dir;
#   - makeinfo (without --force, warnings as errors) builds the tree's
#     doc/misc/latency.texi;
#   - the profiled Emacs, in batch, opens the nodes "(latency)Top" and
#     "(latency)Latency Profile Names" through `info';
#   - every command, function and user option the manual documents
#     exists in that Emacs, and every user option of the customization
#     group `latency-profile' is documented (@defopt);
#   - `M-x customize-group RET latency-profile' finds the group, under
#     `development'.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built.
# Environment: EMACS_BIN, EMACS_VERSION.
set -eu

cache=${EMACS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/emlat/emacs-${EMACS_VERSION:-30.1}}
EMACS_BIN=${EMACS_BIN:-$cache/tree/src/emacs}

if [ ! -x "$EMACS_BIN" ]; then
  echo "SKIP: no profiled Emacs at $EMACS_BIN (run 'make emacs' first)"
  exit 77
fi
fail () { echo "FAIL: $*"; exit 1; }
tree=$(cd "$(dirname "$EMACS_BIN")/.." && pwd)
texi=$tree/doc/misc/latency.texi

[ -f "$tree/info/latency.info" ] || fail "no info/latency.info in $tree: make info did not build the manual"
grep -q '(latency)' "$tree/info/dir" || fail "info/dir does not list the manual"
[ -f "$texi" ] || fail "no $texi"
command -v makeinfo >/dev/null 2>&1 || fail "makeinfo (texinfo) is not installed"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tree/doc/misc" && makeinfo --error-limit=1 -I ../emacs -o "$tmp/latency.info" latency.texi) \
  > "$tmp/makeinfo.log" 2>&1 || { cat "$tmp/makeinfo.log"; fail "makeinfo failed"; }
[ ! -s "$tmp/makeinfo.log" ] || { cat "$tmp/makeinfo.log"; fail "makeinfo warned"; }

# The documented names: @deffn/@defun/@defopt/@findex/@vindex lines.
sed -n -e 's/^@def\(un\|opt\) \([^ ]*\).*/\2/p' -e 's/^@\(findex\|vindex\) \([^ ]*\).*/\2/p' "$texi" \
  | sort -u > "$tmp/names"
[ "$(wc -l < "$tmp/names")" -ge 10 ] || fail "the manual documents too few names: $(cat "$tmp/names")"

"$EMACS_BIN" -Q --batch --eval '
(let ((bad 0)
      (documented (with-temp-buffer
                    (insert-file-contents (nth 0 command-line-args-left))
                    (split-string (buffer-string) "\n" t))))
  (require (quote info))
  ;; The report code and its options, as customize loads them.
  (custom-load-symbol (quote latency-profile))
  (dolist (node (quote ("(latency)Top" "(latency)Latency Profile Names")))
    (condition-case err
        (progn (info node) (message "node %s found" node))
      (error (setq bad (1+ bad)) (message "no node %s: %S" node err))))
  (dolist (name documented)
    (let ((s (intern-soft name)))
      (unless (and s (or (fboundp s) (boundp s) (get s (quote custom-autoload))))
        (setq bad (1+ bad))
        (message "documented but undefined: %s" name))))
  ;; Every option of the group, as customize lists it.
  (dolist (m (get (quote latency-profile) (quote custom-group)))
    (when (and (eq (nth 1 m) (quote custom-variable))
               (not (member (symbol-name (car m)) documented)))
      (setq bad (1+ bad))
      (message "user option not in the manual: %s" (car m))))
  (unless (assq (quote latency-profile) (get (quote development) (quote custom-group)))
    (setq bad (1+ bad))
    (message "the group latency-profile is not in the group development"))
  (kill-emacs (if (zerop bad) 0 1)))' "$tmp/names" > "$tmp/emacs.log" 2>&1 \
  || { cat "$tmp/emacs.log"; fail "the manual and the profiled Emacs disagree"; }
cat "$tmp/emacs.log"
echo "ok: the manual is built, found by Emacs, and documents $(wc -l < "$tmp/names") names"

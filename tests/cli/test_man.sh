#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_man.sh -- the manual pages under man/: emlat(1), one page per verb
# that `emlat --help` lists, and libemlat(3).  Each renders with
# `groff -man -ww` without a single warning; each verb's page names every
# long option `emlat VERB --help` prints (so the two cannot drift apart),
# and emlat(1) names every verb and points to every verb's page.
#
# SKIP (77) when groff is not installed (scripts/deps.list, group man).

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EMLAT=${EMLAT:-$SRCDIR/build/emlat}
[ -x "$EMLAT" ] || { echo "FAIL: no emlat binary at $EMLAT"; exit 1; }
if ! command -v groff >/dev/null 2>&1; then
  echo "SKIP: groff is not installed (sh scripts/deps.sh check)"
  exit 77
fi
MAN=$SRCDIR/man
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# render PAGE: plain text of the page in $tmp/text; warnings in $tmp/warn.
render () {
  groff -man -Tutf8 -ww -z "$1" 2>"$tmp/warn"
  groff -man -Tascii -P-cbou "$1" 2>/dev/null >"$tmp/text"
}

verbs=$("$EMLAT" --help | sed -n '/^verbs:$/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$verbs" ] || fail "no verbs in emlat --help"

pages=0
for page in "$MAN"/*.[1-9]; do
  pages=$((pages + 1))
  render "$page"
  [ ! -s "$tmp/warn" ] || { fail "$(basename "$page"): groff warnings:"; sed 's/^/  /' "$tmp/warn"; }
  [ -s "$tmp/text" ] || fail "$(basename "$page") renders to nothing"
  for section in NAME SYNOPSIS DESCRIPTION; do
    grep -q "^$section" "$tmp/text" || fail "$(basename "$page") has no $section section"
  done
  head -c 200 "$page" | grep -q '^\.\\" SPDX-License-Identifier: ' ||
    fail "$(basename "$page") does not start with its SPDX line"
done
[ "$pages" -ge 3 ] || fail "only $pages pages under man/"

# emlat(1): every verb and every verb's page.
render "$MAN/emlat.1"
for v in $verbs; do
  grep -q "emlat-$v(1)" "$tmp/text" || fail "emlat.1 does not point to emlat-$v(1)"
done
for opt in --help --version; do
  grep -qF -- "$opt" "$tmp/text" || fail "emlat.1 does not describe $opt"
done

# Each verb: a page, and every long option of its --help in it.
for v in $verbs; do
  page=$MAN/emlat-$v.1
  if [ ! -f "$page" ]; then
    fail "no man/emlat-$v.1"
    continue
  fi
  render "$page"
  grep -q "^NAME" "$tmp/text" && sed -n '/^NAME/,/^SYNOPSIS/p' "$tmp/text" | grep -q "emlat-$v " ||
    fail "emlat-$v.1: NAME is not emlat-$v"
  grep -q "EXIT STATUS" "$tmp/text" || fail "emlat-$v.1 has no EXIT STATUS section"
  opts=$("$EMLAT" "$v" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
  [ -n "$opts" ] || fail "emlat $v --help prints no long option"
  for opt in $opts; do
    grep -qF -- "$opt" "$tmp/text" || fail "emlat-$v.1 does not describe $opt (in emlat $v --help)"
  done
done

# libemlat(3): the three public headers.
render "$MAN/libemlat.3"
for h in emlat.h emlat_reader.h emlat_report.h; do
  [ -f "$SRCDIR/include/emlat/$h" ] || fail "include/emlat/$h is gone"
  grep -q "$h" "$tmp/text" || fail "libemlat.3 does not point to $h"
done

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  exit 1
fi
echo "all checks passed ($pages pages)"

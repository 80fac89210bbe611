#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_html.sh -- `emlat report --html` in headless Chromium: the page is
# self-contained (no http:, no script but the page's own inline one and its
# JSON data, no external reference), it loads
# from file://, and the DOM Chromium builds holds the charts (CDF and
# histogram per population, the waterfall) and the numbers of the JSON
# report (interaction count, the tail's cause, the p99 of the leading
# metric).  A screenshot is saved to $BUILD/test-artifacts/report-html.png
# for a person to look at.
#
# The profile is recorded by `emlat demo` (a synthetic session), so the
# numbers are read from `emlat report --json` of the same file, not fixed.
# SKIP (77) when chromium is not installed (scripts/deps.list, group html).

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
EMLAT=${EMLAT:-$BUILD/emlat}
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: chromium is not installed (sh scripts/deps.sh check)"
  exit 77
fi
fails=0
check () {
  desc=$1
  shift
  if "$@"; then :; else
    echo "FAIL: $desc"
    fails=$((fails + 1))
  fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
art=$BUILD/test-artifacts
mkdir -p "$art"

"$EMLAT" demo -o "$tmp/p.emlat" -n 1 >"$tmp/demo.out" 2>&1 || { cat "$tmp/demo.out"; exit 1; }
"$EMLAT" report --html "$tmp/r.html" "$tmp/p.emlat" >"$tmp/text" 2>"$tmp/err"
rc=$?
check "report --html exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "the text report names the page" grep -q "^HTML report: $tmp/r.html\$" "$tmp/text"
check "page written" [ -s "$tmp/r.html" ]
"$EMLAT" report --json "$tmp/p.emlat" >"$tmp/r.json"

# Self-contained: nothing fetched; the only scripts are the page's own
# (its JSON data and one inline script, no src=).
check "two script elements, the data and the script" \
  [ "$(grep -oi "<script[^>]*>" "$tmp/r.html" | tr -d '\n')" = '<script type="application/json" id="emlat-data"><script>' ]
check "no script src" sh -c '! grep -qiE "<script[^>]* src=" "$1"' x "$tmp/r.html"
check "no fetch, XMLHttpRequest, import or eval in the script" \
  sh -c '! grep -qE "fetch\(|XMLHttpRequest|import\(|eval\(|new Function" "$1"' x "$tmp/r.html"
check "no remote reference" sh -c '! grep -qiE "(src|href)=\"(https?:)?//" "$1"' x "$tmp/r.html"
check "no @import or url()" sh -c '! grep -qiE "@import|url\\(" "$1"' x "$tmp/r.html"

# Numbers from the JSON report of the same file.
n_ix=$(sed -n 's/.*"interactions":{"total":\([0-9]*\).*/\1/p' "$tmp/r.json")
cause=$(sed -n 's/.*"tail":{"reason":"tail".*"cause":\([0-9]*\),"root_kind".*/\1/p' "$tmp/r.json")
p99=$(sed -n 's/.*"root_kind":"tty_command","population":"flushed".*"latency_lower_ns":{"n":[0-9]*,"min":[0-9]*,"median":[0-9]*,"p90":[0-9]*,"p95":[0-9]*,"p99":\([0-9]*\).*/\1/p' "$tmp/r.json")
check "numbers found in the JSON (n=$n_ix cause=$cause p99=$p99)" \
  [ -n "$n_ix" ] && [ -n "$cause" ] && [ -n "$p99" ]

browse () {
  dir=$tmp/profile-$1
  shift
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$dir" "$@" 2>>"$tmp/chromium.log"
}
browse a --dump-dom "file://$tmp/r.html" >"$tmp/dom.html"
check "chromium dumped the DOM" [ -s "$tmp/dom.html" ]
for id in summary n-interactions cdf-tty_command-flushed hist-tty_command-flushed \
  stats-tty_command-flushed tail waterfall split slowest overhead losses unavailable; do
  check "element #$id in the DOM" grep -q "id=\"$id\"" "$tmp/dom.html"
done
check "interaction count $n_ix in the DOM" \
  grep -q "id=\"n-interactions\" data-value=\"$n_ix\"" "$tmp/dom.html"
check "tail cause $cause in the DOM" grep -q "id=\"tail-cause\" data-value=\"$cause\"" "$tmp/dom.html"
check "p99 $p99 of latency_lower_ns in the DOM" \
  grep -q "data-metric=\"latency_lower_ns\".*data-ns=\"$p99\"" "$tmp/dom.html"
check "the charts are of the headline" \
  grep -q "<title>CDF of latency, lower bound</title>" "$tmp/dom.html"
check "SVG parsed as SVG (polyline of the CDF)" grep -q "<polyline" "$tmp/dom.html"
check "histogram bars" grep -q 'data-count="' "$tmp/dom.html"

browse b --screenshot="$art/report-html.png" --window-size=1200,1600 "file://$tmp/r.html" \
  >/dev/null
check "screenshot saved" [ -s "$art/report-html.png" ]
check "screenshot is a PNG" sh -c '[ "$(head -c 8 "$1" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ]' x "$art/report-html.png"
echo "screenshot: $art/report-html.png"

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  tail -5 "$tmp/chromium.log"
  exit 1
fi
echo "all checks passed"

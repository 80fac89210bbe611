#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_html_interactive.sh -- the HTML report's script in headless
# Chromium, asserted on the DOM after it ran (docs/REPORT.md "HTML"):
#   * it drew the timeline: <body data-emlat-ready="N"> with N the marks
#     drawn, as many as the page says it holds (#timeline-sampling) and as
#     the profile has interactions (the demo is far below the sampling
#     bound), and N mark elements in #timeline-svg;
#   * #cause=ID (what a click does) opens that interaction's waterfall at
#     load: #ix-wf carries the cause, its rows carry it too, and the
#     command row lasts exactly the interaction's command_ns (from
#     `emlat report --json --interaction ID`); an ID the page lacks says so;
#   * without JavaScript the static content is there (first screen,
#     overview, tables, charts) and no mark is drawn.
# A screenshot with a waterfall open is saved to
# $BUILD/test-artifacts/report-html-interactive.png for a person to look at.
# SKIP (77) only when chromium is not installed (scripts/deps.list).

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
"$EMLAT" report --html "$tmp/r.html" "$tmp/p.emlat" >/dev/null 2>"$tmp/err" || {
  cat "$tmp/err"
  exit 1
}
"$EMLAT" report --json "$tmp/p.emlat" >"$tmp/r.json"
n_ix=$(sed -n 's/.*"interactions":{"total":\([0-9]*\).*/\1/p' "$tmp/r.json")
# The last of the five slowest: not the tail, whose waterfall has spans.
cause=$(sed -n 's/.*"headline":{.*"slowest":\[{"cause":[0-9]*,[^]]*},{"cause":\([0-9]*\),.*/\1/p' "$tmp/r.json")
"$EMLAT" report --json --interaction "$cause" "$tmp/p.emlat" >"$tmp/ix.json"
cmd_ns=$(sed -n 's/.*"tail":{.*"metrics":{[^}]*"command_ns":\([0-9]*\).*/\1/p' "$tmp/ix.json")
check "numbers found in the JSON (n=$n_ix cause=$cause command_ns=$cmd_ns)" \
  [ -n "$n_ix" ] && [ -n "$cause" ] && [ -n "$cmd_ns" ]

browse () {
  dir=$tmp/profile-$1
  shift
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$dir" --virtual-time-budget=5000 "$@" \
    2>>"$tmp/chromium.log"
}

# The timeline.
browse a --dump-dom "file://$tmp/r.html" >"$tmp/dom.html"
check "chromium dumped the DOM" [ -s "$tmp/dom.html" ]
ready=$(sed -n 's/.*<body[^>]* data-emlat-ready="\([0-9]*\)".*/\1/p' "$tmp/dom.html")
marks=$(sed -n 's/.*id="timeline-sampling"[^>]* data-marks="\([0-9]*\)".*/\1/p' "$tmp/dom.html")
check "the script ran to its end (data-emlat-ready=$ready)" [ -n "$ready" ]
check "it drew every mark the page holds ($ready of $marks)" [ "$ready" = "$marks" ]
check "one mark per interaction ($marks of $n_ix), no sampling" [ "$marks" = "$n_ix" ]
check "not sampled" grep -q 'id="timeline-sampling"[^>]* data-sampled="0"' "$tmp/dom.html"
n_mk=$(grep -o 'class="mk"' "$tmp/dom.html" | wc -l)
check "$ready mark elements in the timeline (found $n_mk)" [ "$n_mk" = "$ready" ]
for id in timeline-svg timeline-overview ix-waterfall tl-in tl-out tl-fit tip; do
  check "element #$id in the DOM" grep -q "id=\"$id\"" "$tmp/dom.html"
done
check "no waterfall open without a fragment" sh -c '! grep -q "id=\"ix-wf\"" "$1"' x "$tmp/dom.html"
check "chart titles became tooltips" grep -q 'class="pt"[^>]* data-tip="[^"]* ns)' "$tmp/dom.html"

# A click, by the fragment.
browse b --dump-dom "file://$tmp/r.html#cause=$cause" >"$tmp/dom-c.html"
check "the waterfall of $cause opened" grep -q "<svg id=\"ix-wf\"[^>]* data-cause=\"$cause\"" "$tmp/dom-c.html"
n_rows=$(grep -o "<rect class=\"wfrow [a-z]*\" data-cause=\"$cause\"" "$tmp/dom-c.html" | wc -l)
check "its rows are in the DOM ($n_rows)" [ "$n_rows" -ge 3 ]
check "its command row lasts command_ns = $cmd_ns" \
  grep -q "<rect class=\"wfrow phase\" data-cause=\"$cause\" data-start-ns=\"[0-9-]*\" data-dur-ns=\"$cmd_ns\" data-tip=\"command: " "$tmp/dom-c.html"
n_all=$(grep -o '<rect class="wfrow [a-z]*"' "$tmp/dom-c.html" | wc -l)
check "no other cause's rows ($n_all rows in all)" [ "$n_all" = "$n_rows" ]
check "its mark is selected" grep -q "class=\"mk sel\" data-i=\"[0-9]*\" data-cause=\"$cause\"" "$tmp/dom-c.html"

browse c --dump-dom "file://$tmp/r.html#cause=987654321" >"$tmp/dom-x.html"
check "an unknown cause is said to be missing" grep -q "Interaction 987654321 is not among the marks" "$tmp/dom-x.html"

# Without JavaScript: the page with its script elements removed (Chromium
# dumps no DOM with scripts disabled) still has the static content.
sed -e 's,<script>.*,,' -e '/^(function/,/^})();$/d' -e '/<script type="application\/json"/,/<\/script>/d' \
  "$tmp/r.html" >"$tmp/noscript.html"
check "no script left in the copy" sh -c '! grep -q "<script\|data-emlat-ready" "$1"' x "$tmp/noscript.html"
browse d --dump-dom "file://$tmp/noscript.html" >"$tmp/dom-n.html"
check "no script: not marked ready" sh -c '! grep -q "data-emlat-ready" "$1"' x "$tmp/dom-n.html"
for id in headline headline-kinds timeline-overview cdf-tty_command-flushed hist-tty_command-flushed \
  stats-tty_command-flushed waterfall slowest overhead; do
  check "no script: #$id in the DOM" grep -q "id=\"$id\"" "$tmp/dom-n.html"
done
check "no script: the overview's bars" grep -q '<rect class="bin"' "$tmp/dom-n.html"
check "no script: no mark drawn" sh -c '! grep -q "class=\"mk" "$1"' x "$tmp/dom-n.html"

browse e --screenshot="$art/report-html-interactive.png" --window-size=1280,1600 \
  "file://$tmp/r.html#cause=$cause" >/dev/null
check "screenshot is a PNG" sh -c '[ "$(head -c 8 "$1" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ]' x "$art/report-html-interactive.png"
echo "screenshot: $art/report-html-interactive.png"

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  grep -v dbus "$tmp/chromium.log" | tail -5
  exit 1
fi
echo "all checks passed"

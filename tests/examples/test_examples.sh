#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_examples.sh -- the example programs of examples/ (make examples,
# docs/API.md) do what their comments say:
#
# interactive_loop --demo 25, traced with EMLAT_TRACE=1 into EMLAT_FILE:
#   the profile is valid and stopped cleanly at exit (EMLAT_AUTOSTART);
#   `emlat report --json` has the application group "command" with 25
#   interactions, the sections parse / execute / render / sum per name,
#   the counters queue and history, the instant "empty line", flows begun
#   and ended; the Chrome export names the threads main and worker and the
#   process, and holds the flows ("s" and "f") and the named slices;
# the same without EMLAT_TRACE: runs, and no file appears;
# fntrace (-finstrument-functions): the Chrome export names its functions
# from the binary and nests them (main > compute > fib > fib ...), a
# stripped copy shows module+offset, and the report counts the calls.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
EMLAT=${EMLAT:-$BUILD/emlat}
fails=0
check () {
  desc=$1
  shift
  if "$@"; then :; else
    echo "FAIL: $desc"
    fails=$((fails + 1))
  fi
}
has () { grep -q -- "$2" "$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ex=$BUILD/examples/interactive_loop
check "interactive_loop built (make examples)" [ -x "$ex" ]

# Off: nothing is written anywhere we look.
HOME=$tmp/home XDG_STATE_HOME=$tmp/state EMLAT_FILE=$tmp/off.emlat \
  "$ex" --demo 5 >"$tmp/off.out" 2>&1
check "runs untraced" [ $? -eq 0 ]
check "untraced: no profile" [ ! -e "$tmp/off.emlat" ]
check "untraced: no state directory" [ ! -e "$tmp/state" ]

EMLAT_TRACE=1 EMLAT_FILE=$tmp/ex.emlat "$ex" --demo 25 >"$tmp/ex.out" 2>&1
check "runs traced" [ $? -eq 0 ]
check "the program's own output" has "$tmp/ex.out" "sum 1..100000 = 5000050000"
"$EMLAT" check "$tmp/ex.emlat" >"$tmp/check" 2>&1
check "the profile is valid (emlat check exits 0)" [ $? -eq 0 ]
"$EMLAT" report --json "$tmp/ex.emlat" >"$tmp/r.json" 2>"$tmp/r.err"
check "report --json exits 0" [ $? -eq 0 ]

python3 - "$tmp/r.json" >"$tmp/py.out" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = True
def want(c, what):
    global ok
    if not c:
        print("FAIL:", what)
        ok = False
groups = [g for g in r["groups"] if g["name"] == "command"]
want(len(groups) == 1 and groups[0]["root_kind"] == "application"
     and groups[0]["interactions"] == 25, "one application group 'command' of 25")
a = r["application"]
secs = {s["name"]: s["durations"]["count"] for s in a["sections"]}
want(secs.get("parse") == 25 and secs.get("execute") == 25 and secs.get("render") == 25,
     "sections parse/execute/render 25 each: %r" % secs)
want(secs.get("sum") == 10, "10 sum sections on the worker: %r" % secs)
ctr = {c["name"]: c for c in a["counters"]}
want("queue" in ctr and ctr["history"]["last"] == 25, "counters queue and history (last 25)")
want([i["count"] for i in a["instants"] if i["name"] == "empty line"] == [5], "5 empty lines")
want(a["flows_begun"] == 10 and a["flows_ended"] == 10, "10 flows begun and ended")
want(r["overhead"]["final_stats"] is True, "stopped cleanly at exit")
sys.exit(0 if ok else 1)
PY
check "report contents" [ $? -eq 0 ]
cat "$tmp/py.out"

"$EMLAT" report --html "$tmp/r.html" "$tmp/ex.emlat" >/dev/null 2>&1
check "report --html exits 0" [ $? -eq 0 ]
check "HTML: the sections table" has "$tmp/r.html" 'id="sections"'
check "HTML: a section by name" has "$tmp/r.html" '<tr data-section="[0-9]*"><td class="l">parse</td>'
check "HTML: the application group" has "$tmp/r.html" 'command (application)'
check "HTML: the resources" has "$tmp/r.html" 'id="resources"'
"$EMLAT" export --format=chrome -o "$tmp/trace.json" "$tmp/ex.emlat" 2>"$tmp/x.err"
check "chrome export exits 0" [ $? -eq 0 ]
python3 - "$tmp/trace.json" >"$tmp/py2.out" 2>&1 <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
ok = True
def want(c, what):
    global ok
    if not c:
        print("FAIL:", what)
        ok = False
threads = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
want({"main", "worker"} <= threads, "thread names: %r" % threads)
proc = [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"]
want(proc == ["interactive_loop"], "process name: %r" % proc)
want(sum(1 for e in ev if e["ph"] == "s" and e.get("cat") == "flow") == 10, "10 flow starts")
want(sum(1 for e in ev if e["ph"] == "f" and e.get("cat") == "flow") == 10, "10 flow ends")
names = {e["name"] for e in ev if e["ph"] == "X" and e.get("cat") == "section"}
want({"parse", "execute", "render", "sum"} <= names, "named slices: %r" % names)
want(any(e["ph"] == "C" and e["name"] == "history" for e in ev), "a counter track")
want(any(e["ph"] == "b" and e["name"] == "command" for e in ev), "command interactions")
sys.exit(0 if ok else 1)
PY
check "chrome export contents" [ $? -eq 0 ]
cat "$tmp/py2.out"

# fntrace, built with -finstrument-functions: every call is recorded; the
# export names the functions from the binary (--symbols) and nests them;
# a stripped copy shows module+offset.
fn=$BUILD/examples/fntrace
check "fntrace built (make examples)" [ -x "$fn" ]
EMLAT_TRACE=1 EMLAT_FILE=$tmp/fn.emlat "$fn" 6 >"$tmp/fn.out" 2>&1
check "fntrace runs traced" [ $? -eq 0 ]
check "fntrace's own output" has "$tmp/fn.out" "3 x fib(6) = 24"
"$EMLAT" export --format=chrome --symbols "$fn" -o "$tmp/fn.json" "$tmp/fn.emlat" 2>"$tmp/fn.err"
check "export --symbols exits 0" [ $? -eq 0 ]
strip -o "$tmp/fntrace-stripped" "$fn"
"$EMLAT" export --format=chrome --symbols "$tmp/fntrace-stripped" -o "$tmp/fn-stripped.json" \
  "$tmp/fn.emlat" 2>"$tmp/fn2.err"
check "export with a stripped binary exits 0" [ $? -eq 0 ]
python3 - "$tmp/fn.json" "$tmp/fn-stripped.json" >"$tmp/py3.out" 2>&1 <<'PY'
import json, re, sys
ok = True
def want(c, what):
    global ok
    if not c:
        print("FAIL:", what)
        ok = False
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "function"]
names = {}
for e in ev:
    names.setdefault(e["name"], []).append(e)
# A sanitizer build links its runtime's interceptors into the program,
# and they may be reached as traced callees: they are not ours.
theirs = re.compile(r"__(interceptor|asan|ubsan|sanitizer|tsan)")
ours = {n for n in names if not theirs.match(n)}
want(ours == {"main", "parse", "compute", "fib", "render"}, "function names: %r" % sorted(names))
ev = [e for e in ev if not theirs.match(e["name"])]
want(len(names.get("fib", [])) == 75, "3 x fib(6) = 75 calls of fib (%d)" % len(names.get("fib", [])))
want(all(e["ph"] == "X" for e in ev), "every call has its end")
def inside(a, b):  # a within b
    return b["ts"] <= a["ts"] and a["ts"] + a["dur"] <= b["ts"] + b["dur"]
main = names["main"][0]
want(all(inside(e, main) for e in ev if e["name"] != "main"), "every call nests inside main")
comp = names["compute"][0]
want(all(inside(e, comp) for e in names["fib"]), "every fib nests inside compute")
want(sum(1 for a in names["fib"] for b in names["fib"] if a is not b and inside(a, b)) > 0,
     "fib nests inside fib")
sev = [e for e in json.load(open(sys.argv[2]))["traceEvents"]
       if e.get("cat") == "function" and not theirs.match(e["name"])]
want(len(sev) == len(ev) and all(re.fullmatch(r"fntrace\+0x[0-9a-f]+", e["name"]) for e in sev),
     "stripped: module+offset names: %r" % sorted({e["name"] for e in sev}))
sys.exit(0 if ok else 1)
PY
check "function slices" [ $? -eq 0 ]
cat "$tmp/py3.out"
"$EMLAT" report --symbols "$fn" "$tmp/fn.emlat" >"$tmp/fn-report" 2>&1
check "report --symbols exits 0" [ $? -eq 0 ]
check "report lists fib with its 75 calls" grep -qE '^  fib +75 ' "$tmp/fn-report"

[ $fails -eq 0 ] && echo "ok - examples" || echo "$fails failure(s)"
[ $fails -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench/peers/run.sh -- emlat beside four peers doing the same work, in one
# run (make bench-peers; bench/README.md "Peers" has the method and
# docs/PERFORMANCE.md "Peers" the numbers).
#
#   BUILD=build sh bench/peers/run.sh
#   BUILD=build sh bench/peers/run.sh --summary    (the table of the last run again)
#
# Peers (one program each, bench/peers/peer_NAME.c, all measured by
# peer_harness.h): lttng (LTTng-UST 2.13, active session), json (snprintf
# + fwrite), batch (per-thread text buffers under a lock, a writer
# thread), spsc (a minimal SPSC ring and a consumer thread), emlat (span
# begin/end through the public API, default options).
#
# 1. Packages: lttng-tools, liblttng-ust-dev, babeltrace2 (LTTng;
#    scripts/deps.list, goal peers) and valgrind (instruction counts; goal
#    bench), through scripts/deps.sh, which installs what is missing as
#    root.  Not root, or not installable: that part is skipped with a
#    message and the rest runs.
# 2. Build: $MAKE peers-build (peer_lttng only where LTTng-UST's headers
#    are).
# 3. LTTng: a session daemon of the bench's own (lttng-sessiond
#    --daemonize --no-kernel, LTTNG_HOME in a temporary directory), stopped
#    by its pid at the end.  As root the daemon's run directory is
#    /var/run/lttng (fixed by LTTng for root); when a root session daemon
#    is already running the bench uses it instead (sessions of unique
#    names, output in the temporary directory) and says so.
# 4. PEERS_ROUNDS rounds (default 5), interleaved: each round runs every
#    peer once, the starting peer rotating from round to round; every run
#    prints METRIC lines (peer_harness.h).
# 5. Instructions per event: each peer under valgrind --tool=callgrind
#    --toggle-collect=hot_events with N = PEERS_IR_N1 and PEERS_IR_N2
#    events (2000, 42000); the difference over N2 - N1.
# 6. The table: per peer the median over the rounds (and the minimum of ns
#    per event and of the zero-loss rate), each with its ratio to emlat;
#    then "METRIC peers_..." lines with the medians, for bench/run.sh
#    (BENCH_PEERS=1 make bench).
#
# Knobs: PEERS (the peers to run, default "lttng json batch spsc emlat"),
# PEERS_ROUNDS, PEERS_EVENTS (flat-out run, default 10000000),
# PEERS_TRIAL_S (zero-loss trial, 0.5), PEERS_BATCHES (timed batches, 201);
# PEERS_EMLAT_RING_SLOTS, PEERS_EMLAT_DRAIN_US: emlat with other than its
# defaults (the summary then says so).
#
# Invariants: POSIX sh; ends only the processes it started, by pid; exits
# nonzero only when a peer that was built fails to run.  Raw lines go to
# $BUILD/bench-peers-raw.txt, the peers' progress (every trial of the
# bisection) to $BUILD/bench-peers-log.txt, the summary also to
# $BUILD/bench-peers.txt.

set -u
# Everything below is relative to the source tree (BUILD too).
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
ROUNDS=${PEERS_ROUNDS:-5}
EVENTS=${PEERS_EVENTS:-10000000}
TRIAL_S=${PEERS_TRIAL_S:-0.5}
BATCHES=${PEERS_BATCHES:-201}
N1=${PEERS_IR_N1:-2000}
N2=${PEERS_IR_N2:-42000}
WANT=${PEERS:-lttng json batch spsc emlat}
raw=$BUILD/bench-peers-raw.txt
log=$BUILD/bench-peers-log.txt
summary=$BUILD/bench-peers.txt
status=0

say () { echo "peers: $*" >&2; }

# summary: the table and the METRIC lines of the medians, from $raw.
summary () {
  peers=$(sed -n 's/^RUN peers://p' "$raw" | head -n 1)
  grep -E '^RUN (Peers|machine|load)' "$raw" | sed 's/^RUN //'
  grep '^INFO ' "$raw" | sort -u | sed 's/^INFO peers_[a-z]* /note: /'
  awk -v peers="$peers" '
    $1 == "RUN" && $2 == "Peers:" { events = $7; sub(/-event$/, "", events) }
    $1 == "METRIC" {
      name = $2; sub(/^peers_/, "", name)
      p = name; sub(/_.*/, "", p)
      m = name; sub(/^[a-z]*_/, "", m)
      n[p, m]++; v[p, m, n[p, m]] = $3; unit[m] = $4
    }
    function sorted(p, m,    i, j, t, k) {
      if (!((p, m) in n)) return 0
      k = n[p, m]
      for (i = 1; i <= k; i++) s[i] = v[p, m, i]
      for (i = 2; i <= k; i++) { t = s[i]; for (j = i - 1; j >= 1 && s[j] + 0 > t + 0; j--) s[j + 1] = s[j]; s[j + 1] = t }
      return k
    }
    function med(p, m,    k) {
      k = sorted(p, m)
      if (k == 0) return ""
      return k % 2 ? s[(k + 1) / 2] : (s[k / 2] + s[k / 2 + 1]) / 2
    }
    function lo(p, m,    k) { k = sorted(p, m); return k ? s[1] : "" }
    function ratio(x, y) { return (x == "" || y == "" || y + 0 == 0) ? "-" : sprintf("%.2f", x / y) }
    function num(x, f) { return x == "" ? "-" : sprintf(f, x) }
    function twice(x, f) { return x == "" ? "-" : sprintf(f, 2 * x) }
    function rate(x) { return x == "" ? "-" : sprintf("%.2fM", x / 1e6) }
    END {
      np = split(peers, P, " ")
      printf "\nper event (one clock read each); x = ratio to emlat (peer / emlat)\n"
      printf "%-6s %17s %6s %10s %6s %8s %6s %10s %11s %6s %18s %6s\n",
        "peer", "ns med (min)", "x", "instr", "x", "bytes", "x", "lost@flat", "cons ms/Mev", "x", "0-loss/s med (min)", "x"
      for (i = 1; i <= np; i++) {
        p = P[i]
        ns = med(p, "ns_per_event"); nsmin = lo(p, "ns_per_event")
        ir = med(p, "ir_per_event"); by = med(p, "bytes_per_event")
        lp = med(p, "full_speed_lost_pct"); cm = med(p, "consumer_ms_per_mevent")
        zl = med(p, "zero_loss_events_per_s")
        printf "%-6s %8s (%6s) %6s %10s %6s %8s %6s %9s%% %11s %6s %8s (%7s) %6s\n", p,
          num(ns, "%.1f"), num(nsmin, "%.1f"), ratio(ns, med("emlat", "ns_per_event")),
          num(ir, "%.1f"), ratio(ir, med("emlat", "ir_per_event")),
          num(by, "%.2f"), ratio(by, med("emlat", "bytes_per_event")),
          num(lp, "%.1f"),
          cm == "" ? "(producer)" : num(cm, "%.2f"), ratio(cm, med("emlat", "consumer_ms_per_mevent")),
          rate(zl), rate(lo(p, "zero_loss_events_per_s")), ratio(zl, med("emlat", "zero_loss_events_per_s"))
      }
      if (("emlat", "ns_per_event") in n) {
        printf "emlat per span (begin + end = 2 events): %s ns, %s instructions, %s bytes\n",
          twice(med("emlat", "ns_per_event"), "%.1f"),
          twice(med("emlat", "ir_per_event"), "%.1f"),
          twice(med("emlat", "bytes_per_event"), "%.2f")
      }
      printf "clock read (the peer'"'"'s own clock, ns): "
      for (i = 1; i <= np; i++) printf "%s %s  ", P[i], num(med(P[i], "clock_ns"), "%.1f")
      printf "\n"
      for (i = 1; i <= np; i++) {
        bad = 0
        for (j = 1; (P[i], "timing_lost") in n && j <= n[P[i], "timing_lost"]; j++)
          if (v[P[i], "timing_lost", j] + 0 > 0) bad++
        if (bad)
          printf "WARNING: %s lost events in the timed batches in %d of %d rounds: its ns per event there is partly its drop path\n", P[i], bad, n[P[i], "timing_lost"]
      }
      for (i = 1; i <= np; i++)
        for (j = 1; (P[i], "unaccounted_events") in n && j <= n[P[i], "unaccounted_events"]; j++)
          if (v[P[i], "unaccounted_events", j] != 0) {
            printf "WARNING: %s: %s events neither read back from its output nor counted lost (round %d)\n", P[i], v[P[i], "unaccounted_events", j], j
            break
          }
      if (("emlat", "zero_loss_events_per_s") in n && ("lttng", "zero_loss_events_per_s") in n) {
        e = med("emlat", "zero_loss_events_per_s"); l = med("lttng", "zero_loss_events_per_s")
        printf "zero-loss rate, emlat / LTTng-UST: %s (the goal of issue 8: >= 2)\n", ratio(e, l)
      }
      printf "lost@flat: %% of %d events back to back; cons ms/Mev: CPU of the writer/consumer side per million events kept in that run\n", events
      printf "\n"
      for (i = 1; i <= np; i++) {
        p = P[i]
        for (key in n) {
          split(key, kk, SUBSEP)
          if (kk[1] != p) continue
          m = kk[2]
          x = med(p, m)
          printf "METRIC peers_%s_%s " (x >= 100000 ? "%.0f" : "%.6g") " %s\n", p, m, x, unit[m]
          if (m == "ns_per_event" || m == "zero_loss_events_per_s") {
            x = lo(p, m)
            printf "METRIC peers_%s_%s_min " (x >= 100000 ? "%.0f" : "%.6g") " %s\n", p, m, x, unit[m]
          }
        }
      }
      if (("emlat", "zero_loss_events_per_s") in n && ("lttng", "zero_loss_events_per_s") in n)
        printf "METRIC peers_zero_loss_emlat_over_lttng %s ratio\n", ratio(med("emlat", "zero_loss_events_per_s"), med("lttng", "zero_loss_events_per_s"))
    }' "$raw" >"$summary.tmp"
  grep -v '^METRIC ' "$summary.tmp"
  grep '^METRIC ' "$summary.tmp" | sort
  rm -f "$summary.tmp"
}

if [ "${1:-}" = --summary ]; then
  # Only the table again, from the raw lines of the last run.
  [ -r "$raw" ] || { say "no $raw"; exit 1; }
  summary
  exit 0
fi


tmp=$(mktemp -d "${TMPDIR:-/tmp}/emlat-peers-run-XXXXXX") || exit 1
sessiond_pid=
cleanup () {
  if [ -n "$sessiond_pid" ]; then
    kill -TERM "$sessiond_pid" 2>/dev/null
    i=0
    while kill -0 "$sessiond_pid" 2>/dev/null && [ $i -lt 100 ]; do
      sleep 0.1
      i=$((i + 1))
    done
    sessiond_pid=
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. packages -----------------------------------------------------------

# ensure WHAT GOAL: scripts/deps.sh GOAL (quiet when nothing is missing;
# installs as root); 0 when the packages are there, else a message and 1.
ensure () {
  if sh scripts/deps.sh "$2" >&2; then
    return 0
  fi
  say "skipping $1: its packages are missing (above)"
  return 1
}

have_lttng=0
case " $WANT " in
  *" lttng "*) ensure "LTTng-UST" peers && have_lttng=1 ;;
esac
have_valgrind=0
ensure "instruction counts" bench && have_valgrind=1

# --- 2. build --------------------------------------------------------------

if ! $MAKE -s BUILD="$BUILD" peers-build >&2; then
  say "building the peers failed"
  exit 1
fi

peers=
for p in $WANT; do
  if [ "$p" = lttng ] && [ "$have_lttng" != 1 ]; then
    continue # said why above
  elif [ -x "$BUILD/bench/peers/peer_$p" ]; then
    peers="$peers $p"
  elif [ "$p" = lttng ]; then
    say "skipping LTTng-UST: peer_lttng was not built (no <lttng/tracepoint.h>)"
  else
    say "no $BUILD/bench/peers/peer_$p"
    status=1
  fi
done

# --- 3. the LTTng session daemon -------------------------------------------

case " $peers " in
  *" lttng "*)
    LTTNG_HOME=$tmp/lttng-home
    export LTTNG_HOME
    mkdir -p "$LTTNG_HOME"
    if [ "$(id -u)" -eq 0 ]; then
      pidfile=/var/run/lttng/lttng-sessiond.pid
    else
      pidfile=$LTTNG_HOME/.lttng/lttng-sessiond.pid
    fi
    running=
    if [ "$(id -u)" -eq 0 ]; then
      running=$(pgrep -x -u 0 lttng-sessiond 2>/dev/null | head -n 1)
    fi
    if ! command -v lttng-sessiond >/dev/null 2>&1; then
      say "skipping LTTng-UST: no lttng-sessiond"
      peers=$(echo "$peers" | sed 's/ lttng//')
    elif [ -n "$running" ]; then
      say "a root lttng-sessiond (pid $running) is already running: using it (not started or stopped by this bench)"
      PEERS_SESSIOND_PID=$(cat "$pidfile" 2>/dev/null || echo "$running")
      export PEERS_SESSIOND_PID
    elif lttng-sessiond --daemonize --no-kernel >&2; then
      sessiond_pid=$(cat "$pidfile" 2>/dev/null)
      if [ -z "$sessiond_pid" ]; then
        say "skipping LTTng-UST: no pid in $pidfile"
        peers=$(echo "$peers" | sed 's/ lttng//')
      else
        PEERS_SESSIOND_PID=$sessiond_pid
        export PEERS_SESSIOND_PID
        say "lttng-sessiond started (pid $sessiond_pid, LTTNG_HOME $LTTNG_HOME)"
      fi
    else
      say "skipping LTTng-UST: lttng-sessiond did not start"
      peers=$(echo "$peers" | sed 's/ lttng//')
    fi
    ;;
esac
if [ -z "$peers" ]; then
  say "no peer to run"
  exit 1
fi

# --- 4. rounds -------------------------------------------------------------

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
{
  echo "RUN peers:$peers"
  echo "RUN Peers: $ROUNDS interleaved rounds of $EVENTS-event flat-out runs, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "RUN machine: $(uname -sr), $(nproc 2>/dev/null || echo ?) CPUs, ${cpu:-unknown CPU}"
  echo "RUN load at start: $(uptime)"
  for v in PEERS_EMLAT_RING_SLOTS PEERS_EMLAT_DRAIN_US; do
    eval "val=\${$v:-}"
    # shellcheck disable=SC2154
    [ -n "$val" ] && echo "INFO peers_emlat NOT emlat's defaults: $v=$val"
  done
} >"$raw"
: >"$log"
# shellcheck disable=SC2086
set -- $peers
npeers=$#
round=1
while [ "$round" -le "$ROUNDS" ]; do
  # Rotate the order: round r starts with peer r (mod the count).
  order=
  k=0
  for p in $peers; do
    if [ $k -ge $(((round - 1) % npeers)) ]; then order="$order $p"; fi
    k=$((k + 1))
  done
  k=0
  for p in $peers; do
    if [ $k -lt $(((round - 1) % npeers)) ]; then order="$order $p"; fi
    k=$((k + 1))
  done
  for p in $order; do
    say "round $round/$ROUNDS: $p"
    echo "== round $round: $p" >>"$log"
    if ! out=$(TMPDIR=$tmp "$BUILD/bench/peers/peer_$p" --events "$EVENTS" \
      --trial-s "$TRIAL_S" --batches "$BATCHES" 2>>"$log"); then
      say "peer_$p failed in round $round (the end of $log follows)"
      tail -n 5 "$log" >&2
      status=1
    fi
    printf '%s\n' "$out" | grep -E '^(METRIC|INFO) ' >>"$raw"
  done
  round=$((round + 1))
done

# --- 5. instructions -------------------------------------------------------

collected () {
  TMPDIR=$tmp valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    --toggle-collect=hot_events "$BUILD/bench/peers/peer_$1" --callgrind "$2" 2>&1 \
    | sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
}

if [ "$have_valgrind" = 1 ] && command -v valgrind >/dev/null 2>&1; then
  for p in $peers; do
    say "callgrind: $p"
    a=$(collected "$p" "$N1")
    b=$(collected "$p" "$N2")
    if [ -z "$a" ] || [ -z "$b" ]; then
      say "callgrind gave no count for $p"
      status=1
      continue
    fi
    awk -v p="$p" -v a="$a" -v b="$b" -v n1="$N1" -v n2="$N2" \
      'BEGIN { printf "METRIC peers_%s_ir_per_event %.2f instructions\n", p, (b - a) / (n2 - n1) }' >>"$raw"
  done
fi
echo "RUN load at end:   $(uptime)" >>"$raw"

# The LTTng daemon is not needed any more: stop it before the summary.
cleanup
trap - EXIT

# --- 6. the table ----------------------------------------------------------

summary | tee "$summary"
exit "$status"

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# deps.sh -- make sure the Debian packages a make goal needs are installed.
#
#   sh scripts/deps.sh [-n] [GOAL...]      GOAL: demo, check (default), bench,
#                                          peers, emacs, all
#   sh scripts/deps.sh --list              print the groups and their packages
#
# The packages come from scripts/deps.list.  A group counts for a goal when
# the goal is in its goals field and its "needed when" glob matches a file
# of the source tree (or is "-"); the goal "all" takes every group.  For
# tests, EMLAT_DEPS_LIST names another list and EMLAT_DEPS_ROOT another tree
# for the globs.
#
# Nothing missing: prints nothing and exits 0 after one dpkg-query call (no
# apt-get, no network).  Something missing: as root, runs `apt-get update`
# once and `apt-get install -y --no-install-recommends` on exactly the
# missing packages, then verifies them; otherwise (or with -n) prints which
# packages to install and the command to do it, and exits 1.
#
# Invariants: POSIX sh; never installs a package that is not missing; never
# edits apt configuration.

set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
list=${EMLAT_DEPS_LIST:-$root/scripts/deps.list}
tree=${EMLAT_DEPS_ROOT:-$root}
dry_run=0

usage () {
  echo "usage: deps.sh [-n] [demo|check|bench|peers|emacs|all]...   or   deps.sh --list"
}

trim () {
  # Squeeze blanks and strip them at both ends.
  echo "$1" | tr -s ' \t' '  ' | sed 's/^ //; s/ $//'
}

# each_group: print "group|goals|when|packages|why" for every entry.
each_group () {
  grep -v '^[[:space:]]*#' "$list" | grep '|' || true
}

if [ "${1:-}" = "--list" ]; then
  each_group | while IFS='|' read -r g goals when pkgs why; do
    printf '%-9s for %-17s %s\n          needed when %s: %s\n' \
      "$(trim "$g")" "$(trim "$goals")" "$(trim "$pkgs")" \
      "$(trim "$when")" "$(trim "$why")"
  done
  exit 0
fi
if [ "${1:-}" = "-n" ]; then
  dry_run=1
  shift
fi
[ $# -eq 0 ] && set -- check
for goal in "$@"; do
  case $goal in
    demo | check | bench | peers | emacs | all) ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

if [ ! -r "$list" ]; then
  echo "deps.sh: cannot read $list" >&2
  exit 2
fi

# wanted_by_goals GOALS: true if any requested goal is among GOALS.
wanted_by_goals () {
  for want in "$@"; do
    [ "$want" = all ] && return 0
  done
  for want in "$@"; do
    for have in $group_goals; do
      [ "$want" = "$have" ] && return 0
    done
  done
  return 1
}

# present WHEN GOAL...: true when WHEN is "-" or its glob matches a file,
# or the goal "all" was asked for.
present () {
  [ "$1" = "-" ] && return 0
  glob=$1
  shift
  for want in "$@"; do
    [ "$want" = all ] && return 0
  done
  for f in "$tree"/$glob; do
    [ -e "$f" ] && return 0
  done
  return 1
}

tab=$(printf '\t')
groups_needed=$(each_group | while IFS='|' read -r g goals when pkgs why; do
  group_goals=$(trim "$goals")
  wanted_by_goals "$@" || continue
  present "$(trim "$when")" "$@" || continue
  echo "$(trim "$g")$tab$(trim "$pkgs")"
done)
needed=$(printf '%s\n' "$groups_needed" | cut -f 2 | tr ' ' '\n' | grep -v '^$' | sort -u | tr '\n' ' ')
[ -z "$needed" ] && exit 0

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "deps.sh: dpkg-query not found: not a Debian system; cannot check for: $needed" >&2
  exit 0
fi

# missing_of PKGS: the packages of PKGS that are not installed.
missing_of () {
  # shellcheck disable=SC2086
  installed=$(dpkg-query -W -f='${Package} ${Status}\n' $1 2>/dev/null \
    | awk '$NF == "installed" && $(NF-1) == "ok" { print $1 }')
  for p in $1; do
    case " $(echo $installed) " in
      *" $p "*) ;;
      *) printf '%s ' "$p" ;;
    esac
  done
}

missing=$(missing_of "$needed")
[ -z "$missing" ] && exit 0
missing=$(trim "$missing")

echo "deps.sh: missing Debian packages for make $*: $missing"
printf '%s\n' "$groups_needed" | while IFS="$tab" read -r g pkgs; do
  for p in $pkgs; do
    case " $missing " in
      *" $p "*) echo "  $g: $p" ;;
    esac
  done
done

if [ "$dry_run" -eq 1 ] || [ "$(id -u)" -ne 0 ]; then
  echo "Install them as root with:"
  echo "  apt-get install --no-install-recommends $missing"
  exit 1
fi

echo "deps.sh: installing as root: $missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q || { echo "deps.sh: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing \
  || { echo "deps.sh: apt-get install failed for: $missing" >&2; exit 1; }
still=$(missing_of "$missing")
if [ -n "$still" ]; then
  echo "deps.sh: still missing after apt-get install: $still" >&2
  exit 1
fi
echo "deps.sh: installed $missing"

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_completion.sh -- completion/emlat.bash, sourced alone in bash: the
# verbs, every long option each verb's --help prints (so completion and
# --help cannot drift apart), the values of export --format (with and
# without "=" as a word break) and of replay --workload, .emlat files and
# directories as operands, any file after an option that names one, a
# command after record's "--", and the verbs after `help`.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EMLAT=${EMLAT:-$SRCDIR/build/emlat}
[ -x "$EMLAT" ] || { echo "FAIL: no emlat binary at $EMLAT"; exit 1; }
command -v bash >/dev/null 2>&1 || { echo "SKIP: no bash"; exit 77; }
COMPLETION=$SRCDIR/completion/emlat.bash
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/dir" "$tmp/sub"
: >"$tmp/dir/run.emlat"
: >"$tmp/dir/notes.txt"
mkdir "$tmp/dir/old"

# complete WORD...: the completions of the command line WORD... (the last
# word is the one being completed), one per line, sorted.
complete_words () {
  (cd "$tmp/dir" && bash -c '
    . "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _emlat
    printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort' x "$COMPLETION" "$@")
}

fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
# want "DESC" "EXPECTED (space separated)" WORD...: exactly these.
want () {
  desc=$1 expected=$2
  shift 2
  got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
  exp=$(printf '%s\n' $expected | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$exp" ] || fail "$desc: got '$got', want '$exp'"
}
# has "DESC" ITEM WORD...: ITEM among the completions.
has () {
  desc=$1 item=$2
  shift 2
  complete_words "$@" | grep -qxF -- "$item" || fail "$desc: '$item' not offered"
}

bash -c '. "$1" && complete -p emlat' x "$COMPLETION" | grep -q -- '-F _emlat emlat$' ||
  fail "sourcing does not register _emlat for emlat"

verbs=$("$EMLAT" --help | sed -n '/^verbs:$/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
for v in $verbs; do
  has "verb $v" "$v" emlat ""
  has "help $v" "$v" emlat help ""
  # Every long option of the verb's --help (export's --format= as such).
  for opt in $("$EMLAT" "$v" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    complete_words emlat "$v" -- | sed 's/=$//' | grep -qxF -- "$opt" ||
      fail "$v: $opt (in emlat $v --help) not completed"
  done
done
want "verbs starting with re" "record replay report" emlat re
want "--format= values" "--format=chrome --format=jsonl" emlat export --format=
want "--format=j" "--format=jsonl" emlat export --format=j
want "--format = (= a word break)" "chrome jsonl" emlat export --format =
want "--format = c" "chrome" emlat export --format = c
want "--format VALUE" "chrome jsonl" emlat export --format ""
want "--workload names" "editing paging resize typing" emlat replay --workload ""
want "--workload p" "paging" emlat replay --keys 3 --workload p
want "report operands: .emlat files and directories" "old run.emlat" emlat report ""
want "check operand after an option" "old run.emlat" emlat check --json ""
want "--html names any file" "notes.txt old run.emlat" emlat report run.emlat --html ""
want "export -o names any file" "notes.txt old run.emlat" emlat export -o ""
want "no completion for a number" "" emlat replay --keys ""
has "a command after record --" ls emlat record -o x.emlat -- ls
want "files after the command" "notes.txt" emlat record -- less no
has "replay options" --interpose emlat replay --int
want "options after an operand" "--json" emlat check run.emlat --js

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  exit 1
fi
echo "all checks passed"

# SPDX-License-Identifier: GPL-3.0-or-later
#
# emlat.bash -- bash completion for the emlat command, installed by
# `make install` as $(PREFIX)/share/bash-completion/completions/emlat.
#
# Completes the verbs; each verb's options (the same names as
# `emlat VERB --help`, checked by tests/cli/test_completion.sh); the values
# of --format (export) and --workload (replay); file names for the
# operands (.emlat files and directories for the verbs that read
# profiles) and for options that name a file; and for record and replay,
# a command after "--".  Uses only bash builtins (no bash-completion
# helpers), so it works when sourced alone.

_emlat_verbs="bench check compare demo dump export help record replay report"

# The options of VERB, and those of them that take a value.
_emlat_options ()
{
  case $1 in
    bench) echo "--json --quick" ;;
    check) echo "--json" ;;
    compare) echo "--json --resamples --seed" ;;
    demo) echo "-o -n --seed" ;;
    dump) echo "--json --chunks --hex" ;;
    export) echo "--format= -o --output --force --symbols" ;;
    help) echo "" ;;
    record) echo "-o --follow-children" ;;
    replay) echo "--workload --script --keys --wpm --print-script --rows --cols --term
                 --interpose --quiet --settle --settle-max --linger --grace --timeout
                 -o --tsv --make-file --lines" ;;
    report) echo "--json --per-interaction --html --force --interaction --unicode --ascii --symbols" ;;
  esac
}

_emlat_file_options=" -o --output --html --script --tsv --make-file --symbols "
_emlat_value_options=" --interaction --resamples --seed -n --format --workload --keys --wpm
  --rows --cols --term --quiet --settle --settle-max --linger --grace --timeout --lines "

_emlat ()
{
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local verb= i=1
  COMPREPLY=()
  while [ "$i" -lt "$COMP_CWORD" ]; do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) verb=${COMP_WORDS[i]}; break ;;
    esac
    i=$((i + 1))
  done
  if [ -z "$verb" ]; then
    COMPREPLY=($(compgen -W "$_emlat_verbs --help --version" -- "$cur"))
    return 0
  fi

  # record and replay: what follows "--" is the command and its arguments.
  local k=$((i + 1))
  while [ "$k" -lt "$COMP_CWORD" ]; do
    if [ "${COMP_WORDS[k]}" = -- ]; then
      case $verb in
        record | replay)
          if [ $((k + 1)) -eq "$COMP_CWORD" ]; then
            COMPREPLY=($(compgen -c -- "$cur"))
          else
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
          fi
          return 0
          ;;
      esac
      break
    fi
    k=$((k + 1))
  done

  # --format=VALUE, with or without "=" as a word break.
  if [ "$verb" = export ]; then
    case $cur in
      --format=*)
        COMPREPLY=($(compgen -W "--format=chrome --format=jsonl" -- "$cur"))
        return 0
        ;;
    esac
    if [ "$cur" = "=" ] && [ "$prev" = --format ]; then
      COMPREPLY=(chrome jsonl)
      return 0
    fi
    if [ "$prev" = "=" ] && [ "${COMP_WORDS[COMP_CWORD-2]}" = --format ] ||
       [ "$prev" = --format ]; then
      COMPREPLY=($(compgen -W "chrome jsonl" -- "$cur"))
      return 0
    fi
  fi
  if [ "$verb" = replay ] && [ "$prev" = --workload ]; then
    COMPREPLY=($(compgen -W "typing paging editing resize" -- "$cur"))
    return 0
  fi
  case $_emlat_file_options in
    *" $prev "*)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
      return 0
      ;;
  esac
  case $_emlat_value_options in
    *" $prev "*) return 0 ;;
  esac

  case $cur in
    -*)
      COMPREPLY=($(compgen -W "$(_emlat_options "$verb") --help --version" -- "$cur"))
      case ${COMPREPLY[0]-} in
        *=) compopt -o nospace 2>/dev/null ;;
      esac
      return 0
      ;;
  esac
  case $verb in
    help) COMPREPLY=($(compgen -W "$_emlat_verbs" -- "$cur")) ;;
    check | dump | report | compare | export)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.emlat' -- "$cur"))
      ;;
  esac
  return 0
}

complete -F _emlat emlat

# SPDX-License-Identifier: GPL-3.0-or-later
#
# preamble.sh -- sourced (`. "$(dirname "$0")/preamble.sh"`) by the shell
# tests of tests/emacs that run the profiled Emacs and emlat: it sets
#   SRCDIR     the source tree (from tests/run.sh; default: here)
#   EMLAT      the emlat binary, as an absolute path (tests cd elsewhere)
#   EMACS_BIN  the Emacs under test (from tests/run.sh, which runs every
#              test once per version; default: the binary of `make emacs`
#              in the default cache of EMACS_VERSION, 30.1 unless set)
# and exits 77 (SKIP) when that Emacs has not been built, 1 when emlat has
# not.  Not a test itself: tests/run.sh runs only test_*.sh.

SRCDIR=${SRCDIR:-$(pwd)}
EMLAT=${EMLAT:-build/emlat}
case $EMLAT in /*) ;; *) EMLAT=$(pwd)/$EMLAT ;; esac
cache=${EMACS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/emlat/emacs-${EMACS_VERSION:-30.1}}
EMACS_BIN=${EMACS_BIN:-$cache/tree/src/emacs}

if [ ! -x "$EMACS_BIN" ]; then
  echo "SKIP: no profiled Emacs at $EMACS_BIN (run 'make emacs' first)"
  exit 77
fi
[ -x "$EMLAT" ] || { echo "FAIL: no emlat binary at $EMLAT"; exit 1; }

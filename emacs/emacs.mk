# SPDX-License-Identifier: GPL-3.0-or-later
#
# emacs.mk -- the profiled Emacs (included by the top-level Makefile).
#
#   make emacs           build (or incrementally rebuild) the profiled Emacs
#                        28.2 in $(EMACS_CACHE)/tree; see emacs/README.md
#   make emacs-path      print the path of the built binary
#   make emacs-vanilla   build the same Emacs 28.2 (Debian's source, patches
#                        and configure line) without emlat's changes, in its
#                        own cache $(EMACS_VANILLA_CACHE): the baseline of
#                        `make bench-gate` (bench/bench_gate.c)
#   make emacs-vanilla-path  print the path of that binary
#   make install-emacs   install it as $(PREFIX)/bin/emacs-emlat
#   make uninstall-emacs remove that again
#
# `make demo` (top-level Makefile) runs emacs/demo.sh on the built binary.
#
# Variables: EMACS_SRC=DIR uses an Emacs 28.2 source tree instead of Debian's
# source package; EMACS_CACHE (default under XDG_CACHE_HOME) holds source,
# build tree and stamps; EMACS_LISP=debian|compile|preloaded (build.sh).
# EMACS_VANILLA_CACHE (default EMACS_CACHE with -vanilla appended) holds the
# vanilla build; its source is EMACS_SRC, else the profiled cache's unpacked
# Debian source when that exists (read only), else a download of its own.
#
# Invariant: the build is driven by emacs/build.sh, which decides itself
# what is out of date, so the target is phony and cheap when nothing changed.

EMACS_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/emlat/emacs-28.2
EMACS_SRC ?=
EMACS_LISP ?= debian
EMACS_BIN := $(EMACS_CACHE)/tree/src/emacs
EMACS_VANILLA_CACHE ?= $(EMACS_CACHE)-vanilla
EMACS_VANILLA_BIN := $(EMACS_VANILLA_CACHE)/tree/src/emacs
EMACS_VANILLA_SRC = $(or $(EMACS_SRC),$(wildcard $(EMACS_CACHE)/pristine))

.PHONY: emacs emacs-deps emacs-path emacs-vanilla emacs-vanilla-path install-emacs uninstall-emacs

emacs-deps:
	@sh emacs/deps.sh

emacs: emacs-deps $(STATIC_LIB)
	EMLAT_ROOT="$(CURDIR)" EMLAT_LIB="$(abspath $(STATIC_LIB))" \
	  EMLAT_EMACS_CACHE="$(EMACS_CACHE)" EMACS_SRC="$(EMACS_SRC)" \
	  EMLAT_EMACS_LISP="$(EMACS_LISP)" sh emacs/build.sh

emacs-path:
	@echo $(EMACS_BIN)

emacs-vanilla: emacs-deps
	EMLAT_ROOT="$(CURDIR)" EMLAT_EMACS_VARIANT=vanilla \
	  EMLAT_EMACS_CACHE="$(EMACS_VANILLA_CACHE)" EMACS_SRC="$(EMACS_VANILLA_SRC)" \
	  EMLAT_EMACS_LISP="$(EMACS_LISP)" sh emacs/build.sh

emacs-vanilla-path:
	@echo $(EMACS_VANILLA_BIN)

# The installed copy runs from $(PREFIX)/lib/emlat/emacs-28.2 (the layout of
# a build tree, which Emacs recognises as uninstalled) through the script
# $(PREFIX)/bin/emacs-emlat; the system's emacs is not touched.
install-emacs: emacs
	sh emacs/install.sh "$(EMACS_CACHE)/tree" "$(DESTDIR)" "$(PREFIX)"

uninstall-emacs:
	rm -rf $(DESTDIR)$(PREFIX)/lib/emlat/emacs-28.2
	rm -f $(DESTDIR)$(PREFIX)/bin/emacs-emlat

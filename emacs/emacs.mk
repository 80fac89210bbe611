# SPDX-License-Identifier: GPL-3.0-or-later
#
# emacs.mk -- the profiled Emacs (included by the top-level Makefile).
#
#   make emacs [EMACS_VERSION=30|28]
#                        build (or incrementally rebuild) one profiled Emacs
#                        in its cache; see emacs/README.md
#   make emacs-all       build every version of EMACS_VERSIONS
#   make emacs-path      print the path of the built binary (EMACS_VERSION)
#   make install-emacs   install it as $(PREFIX)/bin/emacs-emlat-MAJOR (28
#                        or 30), with its Lisp and Info manuals
#   make uninstall-emacs remove exactly that again
#   make emacs-vanilla   build the same Emacs (Debian's source, patches and
#                        configure line, EMACS_VERSION) without emlat's
#                        changes, in its own cache $(EMACS_VANILLA_CACHE):
#                        the baseline of `make bench-gate` (bench/bench_gate.c)
#   make emacs-vanilla-path  print the path of that binary
#
# `make demo` (top-level Makefile) runs emacs/demo.sh on the built binary,
# `make test-emacs` runs tests/emacs once per version of EMACS_VERSIONS.
#
# Variables: EMACS_VERSION (28, 28.2, 30 or 30.1; default the newest);
# EMACS_CACHE_ROOT (default $XDG_CACHE_HOME/emlat or ~/.cache/emlat) holds
# one cache per version, emacs-VERSION; EMACS_CACHE names the cache of the
# version built (default EMACS_CACHE_ROOT/emacs-VERSION); EMACS_SRC=DIR uses
# an Emacs source tree of that version instead of Debian's source package;
# EMACS_LISP=debian|compile|preloaded (build.sh).
# EMACS_VANILLA_CACHE (default EMACS_CACHE with -vanilla appended) holds the
# vanilla build; its source is EMACS_SRC, else the profiled cache's unpacked
# Debian source when that exists (read only), else a download of its own.
#
# Invariants: the build is driven by emacs/build.sh, which decides itself
# what is out of date, so the targets are phony and cheap when nothing
# changed.  One cache holds one version (build.sh refuses another).

# The versions emlat patches (emacs/patches/VERSION/), newest first: the
# first is the default.
EMACS_VERSIONS := 30.1 28.2
EMACS_VERSION ?= $(firstword $(EMACS_VERSIONS))
# The full version that EMACS_VERSION names: 30 -> 30.1.
emacs_full = $(firstword $(filter $(1) $(1).%,$(EMACS_VERSIONS)))
EMACS_V := $(call emacs_full,$(EMACS_VERSION))
EMACS_MAJOR = $(firstword $(subst ., ,$(EMACS_V)))
EMACS_CACHE_ROOT ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/emlat
EMACS_CACHE ?= $(EMACS_CACHE_ROOT)/emacs-$(EMACS_V)
EMACS_SRC ?=
EMACS_LISP ?= debian
EMACS_BIN := $(EMACS_CACHE)/tree/src/emacs
EMACS_VANILLA_CACHE ?= $(EMACS_CACHE)-vanilla
EMACS_VANILLA_BIN := $(EMACS_VANILLA_CACHE)/tree/src/emacs
EMACS_VANILLA_SRC = $(or $(EMACS_SRC),$(wildcard $(EMACS_CACHE)/pristine))
# What tests/run.sh runs the Emacs tests with: VERSION=BINARY per version,
# each in its default cache under EMACS_CACHE_ROOT.
EMACS_TEST_BINS := $(foreach v,$(EMACS_VERSIONS),$(v)=$(EMACS_CACHE_ROOT)/emacs-$(v)/tree/src/emacs)

.PHONY: emacs emacs-all emacs-deps emacs-path emacs-check-version \
  emacs-vanilla emacs-vanilla-path install-emacs uninstall-emacs

emacs-check-version:
	@test -n "$(EMACS_V)" || { echo "EMACS_VERSION=$(EMACS_VERSION): emlat patches Emacs $(EMACS_VERSIONS)" >&2; exit 2; }

emacs-deps:
	@sh emacs/deps.sh

emacs: emacs-check-version emacs-deps $(STATIC_LIB)
	EMLAT_ROOT="$(CURDIR)" EMLAT_LIB="$(abspath $(STATIC_LIB))" \
	  EMLAT_EMACS_VERSION="$(EMACS_V)" \
	  EMLAT_EMACS_CACHE="$(EMACS_CACHE)" EMACS_SRC="$(EMACS_SRC)" \
	  EMLAT_EMACS_LISP="$(EMACS_LISP)" sh emacs/build.sh

# Each version in its own cache under EMACS_CACHE_ROOT.
emacs-all: emacs-deps $(STATIC_LIB)
	@for v in $(EMACS_VERSIONS); do \
	  $(MAKE) --no-print-directory emacs EMACS_VERSION=$$v \
	    EMACS_CACHE="$(EMACS_CACHE_ROOT)/emacs-$$v" || exit 1; \
	done

emacs-path: emacs-check-version
	@echo $(EMACS_BIN)

emacs-vanilla: emacs-check-version emacs-deps
	EMLAT_ROOT="$(CURDIR)" EMLAT_EMACS_VARIANT=vanilla \
	  EMLAT_EMACS_VERSION="$(EMACS_V)" \
	  EMLAT_EMACS_CACHE="$(EMACS_VANILLA_CACHE)" EMACS_SRC="$(EMACS_VANILLA_SRC)" \
	  EMLAT_EMACS_LISP="$(EMACS_LISP)" sh emacs/build.sh

emacs-vanilla-path: emacs-check-version
	@echo $(EMACS_VANILLA_BIN)

# The installed copy runs from $(PREFIX)/lib/emlat/emacs-VERSION (the layout
# of a build tree, which Emacs recognises as uninstalled) through the script
# $(PREFIX)/bin/emacs-emlat-MAJOR, with its Lisp and Info manuals (make
# emacs builds them); the system's emacs and the other version are not
# touched.
install-emacs: emacs
	sh emacs/install.sh "$(EMACS_CACHE)/tree" "$(DESTDIR)" "$(PREFIX)" "$(EMACS_V)"

uninstall-emacs: emacs-check-version
	sh emacs/install.sh --uninstall "$(DESTDIR)" "$(PREFIX)" "$(EMACS_V)"

# SPDX-License-Identifier: GPL-3.0-or-later
#
# emlat build.  Sources are picked up by directory, so adding a file to one of
# the source folders needs no edit here.  One folder, one concern, one link
# target (README "Architecture"):
#   src/common src/format src/record  -> the recorder core: libemlat and,
#                                        alone, inside libemlat-tty.so
#   src/reader src/analysis           -> the rest of libemlat (.a and .so)
#   src/render                        -> libemlat-render.a (internal): text,
#                                        JSON, HTML, SVG, exports
#   src/replay                        -> libemlat-replay.a (internal): the
#                                        PTY driver of `emlat replay`
#   src/workload                      -> libemlat-workload.a (internal): the
#                                        synthetic session of `emlat demo`
#   src/cli                           -> the emlat command (verbs only)
#   src/tty                           -> libemlat-tty.so (LD_PRELOAD)
#   tests/<area>/test_*.c             -> one test program each
#   tests/<area>/test_*.sh            -> shell tests
#   tests/progs/*.c                   -> helper programs for tests
#   tests/preload/*.c                 -> shared objects tests preload
#   bench/bench_*.c                   -> benchmarks
#   fuzz/fuzz_*.c                     -> libFuzzer targets (clang)
#   examples/*.c                      -> example programs (make examples)
#
# Targets: all, demo, check, test, test-lib, test-emacs, asan-test, tsan-test,
# fuzz-check, bench, bench-gate, bench-peers, bench-scale, install, uninstall,
# clean, deps.  See README.md.

PREFIX ?= /usr/local
DESTDIR ?=
# Manual pages (man/, @VERSION@ filled in when installed) and bash completion.
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
MAN_PAGES := $(sort $(wildcard man/*.[1-9]))
BUILD ?= build
CC ?= cc
CLANG ?= clang
SAN ?=
FUZZ_SECONDS ?= 60

VERSION := 0.1.0
SOVERSION := 0

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
BASE_CFLAGS := -std=c17 -D_GNU_SOURCE -Iinclude -Isrc $(WARN) -pthread
ifeq ($(SAN),1)
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_LDFLAGS := -fsanitize=address,undefined
else ifeq ($(SAN),thread)
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
SAN_LDFLAGS := -fsanitize=thread
else
OPT := -O2 -g
SAN_LDFLAGS :=
endif
CFLAGS ?=
LIB_CFLAGS := $(BASE_CFLAGS) $(OPT) -fPIC -fvisibility=hidden -ffunction-sections -fdata-sections -DEMLAT_BUILDING_LIBRARY $(CFLAGS)
APP_CFLAGS := $(BASE_CFLAGS) $(OPT) $(CFLAGS)
LDLIBS := -pthread -lm
# The renderers symbolize traced functions with libdw (elfutils,
# src/render/report_syms.c): whatever links libemlat-render.a.
RENDER_LDLIBS := -ldw -lelf

CORE_SRCS := $(sort $(wildcard src/common/*.c src/format/*.c src/record/*.c))
LIB_SRCS := $(CORE_SRCS) $(sort $(wildcard src/reader/*.c src/analysis/*.c))
RENDER_SRCS := $(sort $(wildcard src/render/*.c))
REPLAY_SRCS := $(sort $(wildcard src/replay/*.c))
WORKLOAD_SRCS := $(sort $(wildcard src/workload/*.c))
CLI_SRCS := $(sort $(wildcard src/cli/*.c))
TTY_SRCS := $(sort $(wildcard src/tty/*.c))
TEST_SRCS := $(sort $(wildcard tests/*/test_*.c))
TEST_LIB_SRCS := $(sort $(wildcard tests/lib/*.c))
PROG_SRCS := $(sort $(wildcard tests/progs/*.c))
PRELOAD_SRCS := $(sort $(wildcard tests/preload/*.c))
BENCH_SRCS := $(sort $(wildcard bench/bench_*.c))
FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz_*.c))
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
EXAMPLE_BINS := $(EXAMPLE_SRCS:%.c=$(BUILD)/%)

CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/obj/%.o)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
RENDER_OBJS := $(RENDER_SRCS:%.c=$(BUILD)/obj/%.o)
REPLAY_OBJS := $(REPLAY_SRCS:%.c=$(BUILD)/obj/%.o)
WORKLOAD_OBJS := $(WORKLOAD_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
TTY_OBJS := $(TTY_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_LIB_OBJS := $(TEST_LIB_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_BINS := $(TEST_SRCS:%.c=$(BUILD)/%)
PROG_BINS := $(PROG_SRCS:%.c=$(BUILD)/%)
PRELOAD_LIBS := $(patsubst tests/preload/%.c,$(BUILD)/tests/preload/lib%.so,$(PRELOAD_SRCS))
BENCH_BINS := $(BENCH_SRCS:%.c=$(BUILD)/%)

STATIC_LIB := $(BUILD)/libemlat.a
SHARED_LIB := $(BUILD)/libemlat.so.$(SOVERSION)
RENDER_LIB := $(BUILD)/internal/libemlat-render.a
REPLAY_LIB := $(BUILD)/internal/libemlat-replay.a
WORKLOAD_LIB := $(BUILD)/internal/libemlat-workload.a
# What the command and the tests link, in link order.
TOOL_LIBS := $(RENDER_LIB) $(REPLAY_LIB) $(WORKLOAD_LIB) $(STATIC_LIB)
TTY_LIB := $(BUILD)/libemlat-tty.so
TTY_MAP := src/tty/libemlat-tty.map
TTY_HOT_LD := src/tty/hot.ld
EMLAT := $(BUILD)/emlat

.PHONY: all lib demo check test test-lib test-emacs asan-test tsan-test fuzz-check bench bench-gate bench-scale install uninstall clean deps tests-build examples
.DEFAULT_GOAL := all

all: lib $(EMLAT) $(if $(TTY_SRCS),$(TTY_LIB)) $(BUILD)/emlat.pc

lib: $(STATIC_LIB) $(SHARED_LIB) $(BUILD)/libemlat.so

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -MMD -MP -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(SHARED_LIB): $(LIB_OBJS)
	$(CC) -shared -Wl,-soname,libemlat.so.$(SOVERSION) $(SAN_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libemlat.so: $(SHARED_LIB)
	ln -sf libemlat.so.$(SOVERSION) $@

$(RENDER_LIB): $(RENDER_OBJS)
$(REPLAY_LIB): $(REPLAY_OBJS)
$(WORKLOAD_LIB): $(WORKLOAD_OBJS)
$(RENDER_LIB) $(REPLAY_LIB) $(WORKLOAD_LIB):
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The command links the static libraries: one self-contained binary.
$(EMLAT): $(CLI_OBJS) $(TOOL_LIBS)
	$(CC) $(SAN_LDFLAGS) -o $@ $(CLI_OBJS) $(TOOL_LIBS) $(LDLIBS) $(RENDER_LDLIBS)

# The interposition library carries its own copy of the recorder core (not
# the reader or the analysis), so that it can be preloaded into any program
# without libemlat.so on the search path; the version script exports only
# the interposed calls.
TTY_LINK = $(CC) -shared $(SAN_LDFLAGS) -Wl,--version-script=$(TTY_MAP) -Wl,-T,$(TTY_HOT_LD) -Wl,--gc-sections
$(TTY_LIB): $(TTY_OBJS) $(CORE_OBJS) $(TTY_MAP) $(TTY_HOT_LD)
	$(TTY_LINK) -o $@ $(TTY_OBJS) $(CORE_OBJS) $(LDLIBS) -ldl

$(BUILD)/emlat.pc: emlat.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

# Tests and helper programs: compiled as applications against the static
# library, with access to internal headers under src/.
$(BUILD)/tests/%: tests/%.c $(TOOL_LIBS) $(TEST_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -Itests/lib -MMD -MP $(SAN_LDFLAGS) $(TEST_LDFLAGS) -o $@ $< $(TEST_LIB_OBJS) $(TOOL_LIBS) $(LDLIBS) $(RENDER_LDLIBS) -lutil

# The allocation-failure test routes the library's malloc, calloc and
# realloc through its own wrappers (which fail on command).
$(BUILD)/tests/faults/test_alloc_fail: TEST_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

$(BUILD)/obj/tests/lib/%.o: tests/lib/%.c
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -Itests/lib -MMD -MP -c $< -o $@

$(BUILD)/bench/%: bench/%.c $(TOOL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) $(BENCH_CFLAGS) -MMD -MP $(SAN_LDFLAGS) -o $@ $< $(TOOL_LIBS) $(LDLIBS) $(RENDER_LDLIBS)

# Shared objects the tests preload beside libemlat-tty.so
# (tests/preload/*.c), never instrumented: they only call the C library.
$(BUILD)/tests/preload/lib%.so: tests/preload/%.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O2 -fPIC -shared -o $@ $<

# The floor of an interposing recorder, bench_tty_cold's reference
# (bench/floor_preload.c).
$(BUILD)/bench/libemlat-floor.so: bench/floor_preload.c
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< -ldl
$(BUILD)/bench/bench_tty_cold: $(BUILD)/bench/libemlat-floor.so
$(BUILD)/bench/bench_startup: $(BUILD)/bench/libemlat-floor.so
$(BUILD)/bench/bench_gate: $(BUILD)/bench/libemlat-floor.so

# The library as bench_tty_footprint counts it under valgrind: the same
# objects but the clock's, built with EMLAT_CLOCK_EMULATED so that its
# reads take the counter's path there as they do natively (src/common/clock.c).
# Never installed, never used to record.
EMULATED_CLOCK_OBJ := $(BUILD)/obj-emulated/src/common/clock.o
$(EMULATED_CLOCK_OBJ): src/common/clock.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -DEMLAT_CLOCK_EMULATED=1 -MMD -MP -c $< -o $@
$(BUILD)/bench/libemlat-tty-emulated.so: $(TTY_OBJS) $(CORE_OBJS) $(EMULATED_CLOCK_OBJ) $(TTY_MAP) $(TTY_HOT_LD)
	@mkdir -p $(dir $@)
	$(TTY_LINK) -o $@ $(TTY_OBJS) $(filter-out $(BUILD)/obj/src/common/clock.o,$(CORE_OBJS)) $(EMULATED_CLOCK_OBJ) $(LDLIBS) -ldl
$(BUILD)/bench/bench_tty_footprint: $(BUILD)/bench/libemlat-floor.so $(BUILD)/bench/libemlat-tty-emulated.so

# The cost of a traced call (bench/bench_fntrace.c) needs the hooks.
$(BUILD)/bench/bench_fntrace: BENCH_CFLAGS := -finstrument-functions

# The examples are built as a user builds a program against the installed
# library: public headers only, linked with libemlat.a (docs/API.md).
examples: $(EXAMPLE_BINS)

$(BUILD)/examples/%: examples/%.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -D_GNU_SOURCE -Iinclude $(WARN) $(OPT) -pthread $(EXAMPLE_CFLAGS) $(SAN_LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)

# Function tracing (examples/fntrace.c): every function of the program is
# instrumented; libemlat provides the hooks.
$(BUILD)/examples/fntrace: EXAMPLE_CFLAGS := -finstrument-functions

# The overhead gate's driver is built with the tests: tests/bench smoke-tests it.
# The test helpers' objects are named here, not only in the pattern rule's
# prerequisites: make would otherwise treat them as intermediate files in a
# build without their dependency files (a fresh clone) and delete them at
# its end, and the next make would rebuild them and relink every test.
tests-build: all $(TEST_LIB_OBJS) $(TEST_BINS) $(PROG_BINS) $(PRELOAD_LIBS) $(EXAMPLE_BINS) $(BUILD)/bench/bench_gate $(BUILD)/bench/bench_tty_cold $(BUILD)/bench/bench_tty_footprint $(BUILD)/bench/bench_startup $(BUILD)/bench/bench_clock_floor

# Run every test once (plain build); the Emacs tests run once per version of
# EMACS_VERSIONS with the profiled Emacs of `make emacs` in its cache under
# EMACS_CACHE_ROOT, and skip when it was not built.
test: tests-build
	BUILD=$(BUILD) EMLAT_EMACS_BINS="$(EMACS_TEST_BINS)" sh tests/run.sh

# Every test that needs no Emacs (all but tests/emacs/), without building it.
test-lib: tests-build
	BUILD=$(BUILD) sh tests/run.sh --exclude emacs/

# The tests of the profiled Emacs (tests/emacs/), once per version of
# EMACS_VERSIONS, after `make emacs-all`.
test-emacs: tests-build
	BUILD=$(BUILD) EMLAT_EMACS_BINS="$(EMACS_TEST_BINS)" sh tests/run.sh emacs/

# The unit suite once more under AddressSanitizer + UndefinedBehaviorSanitizer.
asan-test:
	$(MAKE) BUILD=$(BUILD)/asan SAN=1 CC=$(CLANG) test

# The recorder's concurrency tests (rings, registry, writer, flush, stop,
# overflow, rotation, write failures) under ThreadSanitizer.
TSAN_TESTS := record/ stress/ format/ faults/
TSAN_BINS := $(foreach a,$(TSAN_TESTS),$(patsubst tests/%.c,%,$(filter tests/$(a)%,$(TEST_SRCS))))
tsan-test:
	$(MAKE) BUILD=$(BUILD)/tsan SAN=thread CC=$(CLANG) all $(addprefix $(BUILD)/tsan/tests/,$(TSAN_BINS)) \
	  $(patsubst tests/%.c,$(BUILD)/tsan/tests/%,$(PROG_SRCS))
	BUILD=$(BUILD)/tsan sh tests/run.sh $(TSAN_TESTS)

# The three libFuzzer targets (reader, report, replay script) for FUZZ_SECONDS
# seconds in all, each seeded with its corpus (fuzz/run.sh, docs/TESTING.md).
fuzz-check:
	sh fuzz/run.sh $(FUZZ_SECONDS)

# Each goal checks (and as root installs) the Debian packages it needs:
# scripts/deps.list says which.
check: DEPS_GOALS := check
demo: DEPS_GOALS := demo
bench: DEPS_GOALS := bench
bench-gate: DEPS_GOALS := bench

# The unit tests run before Emacs is built (a broken library stops here,
# minutes earlier); test-lib and test-emacs together are `make test`.
# Every Emacs version is built (each in its own cache) and tested.
check: deps
	$(MAKE) test-lib
	$(MAKE) emacs-all
	$(MAKE) test-emacs
	$(MAKE) asan-test
	$(MAKE) tsan-test
	$(MAKE) fuzz-check

# The main job: the profiled Emacs (built the first time, then reused)
# under emlat replay's editing workload, and the report of its profile.
demo: deps all
	$(MAKE) emacs
	sh emacs/demo.sh $(EMLAT) $(EMACS_BIN)

# bench/run.sh runs the overhead gate (bench_gate) once in its quick mode
# (BENCH_GATE=full|quick|off); bench-gate runs its full mode (10 rounds,
# about 35 minutes) and writes the tables into docs/PERFORMANCE.md.  Both
# use the profiled Emacs and, when built, the vanilla one (make emacs,
# make emacs-vanilla); without them the Emacs rows are skipped.
bench: deps all $(BENCH_BINS)
	BUILD=$(BUILD) EMACS_BIN=$(EMACS_BIN) EMACS_VANILLA_BIN=$(EMACS_VANILLA_BIN) sh bench/run.sh

BENCH_GATE_ARGS ?=
bench-gate: deps all $(BUILD)/bench/bench_gate
	BUILD=$(BUILD) $(BUILD)/bench/bench_gate --emacs $(EMACS_BIN) \
	  --emacs-vanilla $(EMACS_VANILLA_BIN) --doc docs/PERFORMANCE.md $(BENCH_GATE_ARGS)

# The peers benchmark (bench/peers/run.sh, bench/README.md "Peers"):
# emlat beside LTTng-UST, JSON lines, a batched text tracer and an SPSC
# ring in one run.  run.sh installs what it needs (as root), then builds
# peers-build; peer_lttng is built only where LTTng-UST's headers are.
PEER_BINS := $(patsubst bench/peers/peer_%.c,$(BUILD)/bench/peers/peer_%,$(filter-out bench/peers/peer_lttng.c,$(wildcard bench/peers/peer_*.c)))
LTTNG_UST_H := $(wildcard /usr/include/lttng/tracepoint.h /usr/include/*/lttng/tracepoint.h)
.PHONY: bench-peers peers-build
bench-peers: all
	BUILD=$(BUILD) MAKE="$(MAKE)" sh bench/peers/run.sh

peers-build: $(PEER_BINS) $(if $(LTTNG_UST_H),$(BUILD)/bench/peers/peer_lttng)

$(BUILD)/bench/peers/peer_%: bench/peers/peer_%.c bench/peers/peer_harness.h $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -MMD -MP -o $@ $< $(STATIC_LIB) $(LDLIBS)

$(BUILD)/bench/peers/peer_lttng: bench/peers/peer_lttng.c bench/peers/peers_tp.c bench/peers/peers_tp.h bench/peers/peer_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -Ibench/peers -o $@ bench/peers/peer_lttng.c bench/peers/peers_tp.c -llttng-ust -ldl $(LDLIBS)

# Reading at scale (docs/PERFORMANCE.md): 1 M and 10 M interactions, 1 GiB
# hostile inputs; about 10 minutes and 4 GB of $$TMPDIR.
bench-scale: all $(BUILD)/bench/bench_scale
	$(BUILD)/bench/bench_scale

deps:
	@sh scripts/deps.sh $(or $(DEPS_GOALS),check)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/emlat $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0755 $(EMLAT) $(DESTDIR)$(PREFIX)/bin/emlat
	install -m 0644 $(STATIC_LIB) $(DESTDIR)$(PREFIX)/lib/libemlat.a
	install -m 0755 $(SHARED_LIB) $(DESTDIR)$(PREFIX)/lib/libemlat.so.$(SOVERSION)
	ln -sf libemlat.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libemlat.so
	$(if $(TTY_SRCS),install -m 0755 $(TTY_LIB) $(DESTDIR)$(PREFIX)/lib/libemlat-tty.so)
	install -m 0644 include/emlat/*.h $(DESTDIR)$(PREFIX)/include/emlat/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' emlat.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/emlat.pc
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/emlat.pc
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(BASHCOMPDIR)
	for p in $(MAN_PAGES); do \
	  d=$(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/}; \
	  sed -e 's|@VERSION@|$(VERSION)|g' $$p > $$d && chmod 0644 $$d || exit 1; \
	done
	install -m 0644 completion/emlat.bash $(DESTDIR)$(BASHCOMPDIR)/emlat

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/emlat $(DESTDIR)$(PREFIX)/lib/libemlat.a \
	  $(DESTDIR)$(PREFIX)/lib/libemlat.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libemlat.so \
	  $(DESTDIR)$(PREFIX)/lib/libemlat-tty.so $(DESTDIR)$(PREFIX)/lib/pkgconfig/emlat.pc
	rm -rf $(DESTDIR)$(PREFIX)/include/emlat
	for p in $(MAN_PAGES); do rm -f $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/}; done
	rm -f $(DESTDIR)$(BASHCOMPDIR)/emlat

clean:
	rm -rf build

# Emacs build (emacs/emacs.mk): make emacs, make install-emacs.
-include emacs/emacs.mk

-include $(shell find $(BUILD)/obj $(BUILD)/obj-emulated $(BUILD)/tests $(BUILD)/bench -name '*.d' 2>/dev/null)

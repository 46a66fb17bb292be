# ripplerender: build, test, install.
#   make            build ./ripplerender
#   make demo       install missing Debian packages (as root), build, render scenes/demo.json
#   make test       unit tests (cmocka) and command-line tests; ends in "N passed, N failed"
#   make sanitize   the same tests built with AddressSanitizer and UBSan
#   make bench      speed measurements (numbers, no pass/fail)
#   make fuzz       libFuzzer on the scene loader and --set (clang; FUZZ_SECONDS per target)
#   make failtest   every allocation of a run made to fail in turn (ASan build)
#   make install    PREFIX=/usr/local DESTDIR=
# Quiet by default; `make V=1` prints every command.

# ---- settings -------------------------------------------------------------
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
OPT     ?= -O2 -g
PKGS    := libavformat libavcodec libavfilter libswscale libavutil libpng libcjson
TESTPKGS := cmocka
# The public test suites (JSONTestSuite, PngSuite, libpng's crashers) live in
# shared/ beside the clone; the tests fail loudly when it is missing.
SHARED  ?= $(abspath ../shared)

WARN    := -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes \
           -Wdouble-promotion -Wformat=2 -Wvla
# -std=c11 (not gnu11) implies -ffp-contract=off: no fused multiply-add that
# would make frames depend on the CPU. Never add -ffast-math (design.md).
BASEFLAGS := -std=c11 -D_DEFAULT_SOURCE -fopenmp $(WARN) $(OPT) -MMD -MP -Isrc
ifeq ($(SAN),1)
BASEFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SANLD     := -fsanitize=address,undefined
endif

PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_CFLAGS = $(shell pkg-config --cflags $(TESTPKGS) 2>/dev/null)
TEST_LIBS   = $(shell pkg-config --libs $(TESTPKGS) 2>/dev/null)
TEST_CFLAGS += -DRR_SHARED_DIR='"$(SHARED)"' -DRR_SOURCE_DIR='"$(CURDIR)"'
export RR_SHARED := $(SHARED)
ALL_CFLAGS  = $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(CPPFLAGS)
ALL_LDLIBS  = $(SANLD) -fopenmp $(PKG_LIBS) -lm $(LDFLAGS) $(LDLIBS)

ifneq ($(V),1)
Q = @
msg = @printf '  %-6s %s\n' $(1) $(2)
else
Q =
msg = @true
endif

# ---- sources ----------------------------------------------------------------
LIB_SRC  := $(filter-out src/main.c,$(wildcard src/*.c src/solvers/*.c src/sinks/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libripple.a
BIN      := ripplerender
ifeq ($(BUILD),build)
BIN_OUT  := $(BIN)
else
BIN_OUT  := $(BUILD)/$(BIN)
endif
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all demo test unit sanitize bench install uninstall clean deps golden fuzz failtest
all: $(BIN_OUT)

$(BIN_OUT): $(BUILD)/src/main.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(ALL_LDLIBS)

$(LIB): $(LIB_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%.o: tests/unit/%.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(TEST_LIBS) $(ALL_LDLIBS)

# The tests that read SHARED are rebuilt when it changes (make test SHARED=...).
$(BUILD)/tests/shared-dir: FORCE
	@mkdir -p $(@D)
	@echo '$(SHARED)' | cmp -s - $@ || echo '$(SHARED)' > $@
$(BUILD)/tests/test_image.o $(BUILD)/tests/test_scene.o: $(BUILD)/tests/shared-dir
FORCE:

# ---- what users run ---------------------------------------------------------
deps:
	$(Q)sh .ci/deps.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)mkdir -p out
	./$(BIN) scenes/demo.json -o out/ripple.mp4 -y
	@echo "demo: wrote out/ripple.mp4"

unit: $(UNIT_BIN)

test: $(BIN_OUT) $(UNIT_BIN)
	$(Q)sh tests/run.sh $(BUILD) $(BIN_OUT)

sanitize:
	$(Q)ASAN_OPTIONS=detect_leaks=1 $(MAKE) --no-print-directory SAN=1 BUILD=build/san OPT='-O1 -g' test

# Rewrites the golden frame hashes of every example scene. Run it only when a
# change of the frames is intended, and say why in the commit message.
golden: $(BIN_OUT)
	$(Q)mkdir -p tests/golden
	$(Q)for s in scenes/*.json; do n=$$(basename $$s .json); \
	  ./$(BIN_OUT) $$s -o tests/golden/$$n.framemd5 -y -q && echo "golden: $$n"; done

$(BUILD)/tests/bench_solvers: $(BUILD)/tests/bench/bench_solvers.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(ALL_LDLIBS)

$(BUILD)/tests/bench/%.o: tests/bench/%.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

bench: $(BIN_OUT) $(BUILD)/tests/bench_solvers
	$(Q)sh tests/bench.sh $(BIN_OUT) $(BUILD)

# ---- fuzzing (clang's libFuzzer; not needed by make test) --------------------
# The regressions in tests/fuzz/regressions are replayed by make test through
# the normal build (tests/unit/test_regressions.c); this only searches for more.
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -std=c11 -D_DEFAULT_SOURCE -g -O1 -Isrc -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined $(shell pkg-config --cflags libcjson 2>/dev/null)
FUZZ_LIBSRC  := src/scene.c src/scene_json.c src/rr_err.c
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_LIBSRC) src/scene.h src/scene_json.h
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_LIBSRC) $(shell pkg-config --libs libcjson 2>/dev/null) -lm

fuzz: $(BUILD)/fuzz/fuzz_scene $(BUILD)/fuzz/fuzz_set
	$(Q)sh tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS) $(SHARED)

# ---- allocation-failure injection (make failtest) ---------------------------------
# A sanitizer build of ripplerender whose own malloc/calloc/realloc/
# aligned_alloc/strdup/av_malloc calls go through tests/failtest/failalloc.c;
# tests/failtest/run.sh fails each allocation of a few runs in turn.
# FAILTEST_STRIDE=k fails only every k-th (a quicker run).
FAILTEST_STRIDE ?= 1
FAILTEST_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,--wrap=strdup,--wrap=av_malloc
$(BUILD)/ripplerender-failtest: $(BUILD)/src/main.o $(LIB) $(BUILD)/tests/failtest/failalloc.o
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(FAILTEST_WRAP) $(ALL_LDLIBS)

$(BUILD)/tests/failtest/%.o: tests/failtest/%.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

failtest:
	$(Q)$(MAKE) --no-print-directory SAN=1 BUILD=build/san OPT='-O1 -g' build/san/ripplerender-failtest
	$(Q)sh tests/failtest/run.sh build/san/ripplerender-failtest $(FAILTEST_STRIDE)

install: $(BIN_OUT)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN_OUT) $(DESTDIR)$(PREFIX)/bin/$(BIN)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/$(BIN)

clean:
	rm -rf build $(BIN)

-include $(shell find build -name '*.d' 2>/dev/null)

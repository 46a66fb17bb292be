# ripplerender: build, test, install.
#   make            build ./ripplerender
#   make demo       install missing Debian packages (as root), build, render scenes/demo.json
#   make test       unit tests (cmocka) and command-line tests; ends in "N passed, N failed"
#   make sanitize   the same tests built with AddressSanitizer and UBSan
#   make bench      speed measurements (numbers, no pass/fail); make bench-levels: its AVX2/baseline builds
#   make fuzz       libFuzzer on the scene loader and --set (clang; FUZZ_SECONDS per target)
#   make failtest   every allocation of a run made to fail in turn (ASan build)
#   make install    PREFIX=/usr/local DESTDIR=  (binary, man page, bash completion, scene schema)
# Quiet by default; `make V=1` prints every command.

# ---- settings -------------------------------------------------------------
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
OPT     ?= -O2 -g
PKGS    := libavformat libavcodec libavfilter libswscale libavutil libpng libcjson
# fftw3f: the spectral solver's FFT (any length in O(n log n); av_tx 5.1 is O(n^2) for most non-power-of-two lengths)
PKGS    += fftw3f
# libxxhash: the checkpoints' plane digest, XXH3-128 (src/state.c; SHA-256 would cost more than writing the planes)
PKGS    += libxxhash
# libdeflate: the PNG sequences' deflate (src/sinks/pngseq.c; zlib through libpng was the bottleneck)
PKGS    += libdeflate
TESTPKGS := cmocka

WARN    := -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes \
           -Wdouble-promotion -Wformat=2 -Wvla
# -std=c11 (not gnu11) implies -ffp-contract=off: no fused multiply-add that
# would make frames depend on the CPU. Never add -ffast-math: it reorders
# floating-point operations, and the golden hashes pin the frames' bits.
# -fvect-cost-model=dynamic: GCC 12's -O2 vectorises only loops that need no
# remainder ("very cheap"), which would leave the loops of files outside
# KERNEL_OBJ below scalar. Vectorising the same IEEE operations without
# reassociation gives the same bits.
BASEFLAGS := -std=c11 -D_DEFAULT_SOURCE -fopenmp $(WARN) $(OPT) -fvect-cost-model=dynamic -MMD -MP -Isrc
ifeq ($(SAN),1)
# float-cast-overflow: GCC's undefined leaves out a float converted to an
# integer type too small for it. Every check stops the run (no recovery).
SANITIZERS := address,undefined,float-cast-overflow
BASEFLAGS += -fsanitize=$(SANITIZERS) -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow
SANLD     := -fsanitize=$(SANITIZERS)
endif

# OpenEXR: the .exr sink, through OpenEXRCore, its C library. OpenEXR.pc lists
# the C++ libraries too; only the C one is linked (its name carries the
# version suffix the .pc file gives, -3_1 on Debian 12).
EXR_LIBS    = -lOpenEXRCore$(shell pkg-config --variable=libsuffix OpenEXR 2>/dev/null)
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) OpenEXR 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(EXR_LIBS)
TEST_CFLAGS = $(shell pkg-config --cflags $(TESTPKGS) 2>/dev/null)
TEST_LIBS   = $(shell pkg-config --libs $(TESTPKGS) 2>/dev/null)
TEST_CFLAGS += -DRR_SOURCE_DIR='"$(CURDIR)"'
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
LIB_SRC  := $(filter-out src/main.c,$(wildcard src/*.c src/solvers/*.c src/sinks/*.c src/render/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
# The presets (--preset NAME) are built into the program: scenes/presets/*.json
# as C, made by tools/embed-presets.sh (sh, od, sed).
PRESETS  := $(sort $(wildcard scenes/presets/*.json))
LIB_OBJ  += $(BUILD)/gen/presets.o
LIB      := $(BUILD)/libripple.a
BIN      := ripplerender
ifeq ($(BUILD),build)
BIN_OUT  := $(BIN)
else
BIN_OUT  := $(BUILD)/$(BIN)
endif
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all demo test test-farm unit sanitize bench install uninstall clean deps golden fuzz failtest
all: $(BIN_OUT)

# The program loads libavcodec, libavformat and libavfilter on first use
# (src/lazy/lazyav.c: most of a run's start-up is loading them, which a run
# without video never needs), so it is linked without them; everything else
# that links libripple.a links them as usual.
LAZY_PKGS := libavformat libavcodec libavfilter
BIN_LDLIBS = $(SANLD) -fopenmp $(shell pkg-config --libs $(filter-out $(LAZY_PKGS),$(PKGS)) 2>/dev/null) \
             $(EXR_LIBS) -ldl -lm $(LDFLAGS) $(LDLIBS)
$(BIN_OUT): $(BUILD)/src/main.o $(BUILD)/src/lazy/lazyav.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(BIN_LDLIBS)

$(LIB): $(LIB_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/presets.c: tools/embed-presets.sh $(PRESETS)
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)sh tools/embed-presets.sh $@ $(PRESETS)

$(BUILD)/gen/presets.o: $(BUILD)/gen/presets.c
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The solvers (every src/solvers/*.c), their row drivers (tblock.c) and the
# per-step/per-frame sweeps of sim.c (sponges, the blow-up check): -O3
# vectorises their row loops (check with `make
# KERNEL_OPT='-O3 -mprefer-vector-width=512 -fopt-info-vec' build/src/solvers/elias.o`); the
# bits do not change (no -ffast-math, no contraction). 512-bit vectors for
# the row kernels' AVX-512 builds (src/tblock.h: GCC picks 256 otherwise);
# no other code is built for AVX-512, so the flag touches nothing else.
# docs/performance.md.
KERNEL_OPT ?= -O3 -mprefer-vector-width=512
KERNEL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/solvers/*.c)) $(BUILD)/src/tblock.o $(BUILD)/src/sim.o
$(KERNEL_OBJ): ALL_CFLAGS += $(KERNEL_OPT)
# The renderer's per-pixel loops likewise; -fno-math-errno lets sqrtf inline
# and -fno-trapping-math lets GCC if-convert the clamps (neither changes a
# value: they drop errno and FP-exception ordering), so those loops vectorise.
RENDER_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/render.c src/render/*.c))
$(RENDER_OBJ): ALL_CFLAGS += $(KERNEL_OPT) -fno-math-errno -fno-trapping-math

$(BUILD)/tests/%.o: tests/unit/%.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(TEST_LIBS) $(ALL_LDLIBS)


# ---- what users run ---------------------------------------------------------
deps:
	$(Q)sh .ci/deps.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)mkdir -p out
	./$(BIN) scenes/demo.json -o out/ripple.mp4 -y
	@echo "demo: wrote out/ripple.mp4"

unit: $(UNIT_BIN)

# The tests' own packages (cmocka, the schema validator, GNU parallel,
# chromium, man) are installed first when missing, as `make demo` does for
# the build's: on a fresh machine `make test` is the whole set-up.
test:
	$(Q)sh .ci/deps.sh test
	$(Q)$(MAKE) --no-print-directory $(BIN_OUT) $(UNIT_BIN)
	$(Q)sh tests/run.sh $(BUILD) $(BIN_OUT)

# The farm recipes on a real single-node Slurm started and stopped by the test
# (tests/farm/test_slurm.sh); not part of `make test`: it needs slurm-wlm and munge.
test-farm: $(BIN_OUT)
	$(Q)sh .ci/deps.sh farm
	$(Q)RR=$(BIN_OUT) sh tests/farm/test_slurm.sh

sanitize:
	$(Q)ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 $(MAKE) --no-print-directory SAN=1 BUILD=build/san OPT='-O1 -g' test

# Rewrites the golden frame hashes of every example scene. Run it only when a
# change of the frames is intended, and say why in the commit message.
# Scenes with a tests/golden/NAME.skip (frames that depend on the CPU) are left out.
golden: $(BIN_OUT)
	$(Q)mkdir -p tests/golden
	$(Q)for s in scenes/*.json; do case $$s in *.schema.json) continue;; esac; n=$$(basename $$s .json); \
	  if [ -f tests/golden/$$n.skip ]; then echo "golden: $$n skipped ($$(cat tests/golden/$$n.skip))"; continue; fi; \
	  ./$(BIN_OUT) $$s -o tests/golden/$$n.framemd5 -y -q && echo "golden: $$n"; done

# The bench: its yardsticks (bench_ref.c) are built with their own flags,
# -O3 -march=native, as the issue asks of the reference loop (proc_ref, the
# same loop as a whole program, too); fftw3f, when
# pkg-config finds it, only for the spectral comparison; malloc_count.so
# counts allocations by LD_PRELOAD (docs/performance.md).
BENCH_FFTW := $(shell pkg-config --exists fftw3f 2>/dev/null && echo 1)
BENCH_FFTW_CFLAGS = $(if $(BENCH_FFTW),-DHAVE_FFTW3F $(shell pkg-config --cflags fftw3f))
BENCH_FFTW_LIBS = $(if $(BENCH_FFTW),$(shell pkg-config --libs fftw3f) -lfftw3f_threads)
$(BUILD)/tests/bench_solvers: $(BUILD)/tests/bench/bench_solvers.o $(BUILD)/tests/bench/bench_ref.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(BENCH_FFTW_LIBS) $(ALL_LDLIBS)

$(BUILD)/tests/bench_yuv: $(BUILD)/tests/bench/bench_yuv.o $(BUILD)/tests/bench/bench_ref.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(ALL_LDLIBS)

$(BUILD)/tests/bench_render: $(BUILD)/tests/bench/bench_render.o $(BUILD)/tests/bench/bench_ref.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(ALL_LDLIBS)

$(BUILD)/tests/bench_md5: $(BUILD)/tests/bench/bench_md5.o $(BUILD)/tests/bench/bench_ref.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(ALL_LDLIBS)

$(BUILD)/tests/bench_cores: $(BUILD)/tests/bench/bench_cores.o $(BUILD)/tests/bench/bench_ref.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(ALL_LDLIBS)

$(BUILD)/tests/bench_steps: $(BUILD)/tests/bench/bench_steps.o $(BUILD)/tests/bench/bench_ref.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(ALL_LDLIBS)

# REF_MARCH: the level the yardsticks are built for (the capped builds below
# build them for their own level, as -march=native would on such a CPU).
REF_MARCH ?= native
$(BUILD)/tests/bench/bench_ref.o: tests/bench/bench_ref.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_DEFAULT_SOURCE -O3 -march=$(REF_MARCH) -fopenmp $(WARN) -MMD -MP -c -o $@ $<

$(BUILD)/tests/bench/%.o: tests/bench/%.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(BENCH_FFTW_CFLAGS) -c -o $@ $<

$(BUILD)/tests/proc_ref: tests/bench/proc_ref.c $(BUILD)/tests/bench/bench_ref.o
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_DEFAULT_SOURCE -O3 -march=native -fopenmp $(WARN) -Itests/bench -o $@ $^

$(BUILD)/tests/malloc_count.so: tests/bench/malloc_count.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) -shared -fPIC -o $@ $<

bench: $(BIN_OUT) $(BUILD)/tests/bench_solvers $(BUILD)/tests/bench_cores $(BUILD)/tests/bench_steps $(BUILD)/tests/bench_yuv \
       $(BUILD)/tests/bench_render $(BUILD)/tests/bench_md5 $(BUILD)/tests/proc_ref \
       $(BUILD)/tests/malloc_count.so $(if $(filter-out levels,$(BENCH_SECTION)),,bench-levels)
	$(Q)sh tests/bench.sh $(BIN_OUT) $(BUILD)

# The bench's levels section: the bench programs built again with the CPU
# dispatch capped at AVX2 (x86-64-v3) and at the baseline (src/isa.h), the
# yardsticks for the same level, each in its own folder, to time on an
# AVX-512 machine the paths other CPUs run.
ISA_BENCH := ripplerender tests/bench_solvers tests/bench_render
.PHONY: bench-levels
bench-levels:
	$(Q)$(MAKE) -s --no-print-directory BUILD=$(BUILD)/isa3 CPPFLAGS='$(CPPFLAGS) -DRR_ISA_MAX=3' REF_MARCH=x86-64-v3 \
	    $(addprefix $(BUILD)/isa3/,$(ISA_BENCH))
	$(Q)$(MAKE) -s --no-print-directory BUILD=$(BUILD)/isa1 CPPFLAGS='$(CPPFLAGS) -DRR_ISA_MAX=1' REF_MARCH=x86-64 \
	    $(addprefix $(BUILD)/isa1/,$(ISA_BENCH))

# The man page, the bash completion and the scene schema go with the binary.
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DATADIR     ?= $(PREFIX)/share/ripplerender

# ---- fuzzing (clang's libFuzzer; not needed by make test) --------------------
# The regressions in tests/fuzz/regressions are replayed by make test through
# the normal build (tests/unit/test_regressions.c); this only searches for more.
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -std=c11 -D_DEFAULT_SOURCE -g -O1 -Isrc -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined $(shell pkg-config --cflags libcjson 2>/dev/null)
# The loader's own files are built by clang with the fuzzer's instrumentation;
# whatever else they call (the solvers' step counts, ...) comes from the normal
# build's library, so a new dependency of the loader never breaks this link.
FUZZ_LIBSRC  := $(wildcard src/scene*.c) src/rr_err.c src/solver.c
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_LIBSRC) $(wildcard src/scene*.h) $(LIB)
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fopenmp -o $@ $< $(FUZZ_LIBSRC) $(LIB) $(PKG_LIBS) -lm

fuzz: $(BUILD)/fuzz/fuzz_scene $(BUILD)/fuzz/fuzz_set
	$(Q)sh tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS)

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
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DATADIR)
	install -m 644 man/ripplerender.1 $(DESTDIR)$(MANDIR)/man1/ripplerender.1
	install -m 644 completions/ripplerender.bash $(DESTDIR)$(BASHCOMPDIR)/ripplerender
	install -m 644 scenes/scene.schema.json $(DESTDIR)$(DATADIR)/scene.schema.json

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/$(BIN)
	rm -f $(DESTDIR)$(MANDIR)/man1/ripplerender.1 $(DESTDIR)$(BASHCOMPDIR)/ripplerender
	rm -f $(DESTDIR)$(DATADIR)/scene.schema.json
	rmdir $(DESTDIR)$(DATADIR) 2> /dev/null || true

clean:
	rm -rf build $(BIN)

-include $(shell find build -name '*.d' 2>/dev/null)

# ---- the README gallery: a still (frame 39) and a GIF of each water mode, the
# colormap strips, and a still (frame 59) of each preset, into docs/img/
# (see docs/render.md, docs/presets.md) -------------------------------------------
GALLERY := shaded refract normals caustics
.PHONY: gallery
$(BUILD)/tools/colormap_strips: $(BUILD)/tools/colormap_strips.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(ALL_LDLIBS)

$(BUILD)/tools/%.o: tools/%.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

gallery: $(BIN_OUT) $(BUILD)/tools/colormap_strips
	$(Q)mkdir -p docs/img
	$(Q)set -e; for m in $(GALLERY); do \
	  ./$(BIN_OUT) scenes/$$m.json -o docs/img/$$m.gif -y -q; \
	  t=$$(mktemp -d); ./$(BIN_OUT) scenes/$$m.json -f 40 -o "$$t/f%02d.png" -y -q; \
	  cp "$$t/f39.png" docs/img/$$m.png; rm -rf "$$t"; echo "gallery: docs/img/$$m.png docs/img/$$m.gif"; done
	$(Q)$(BUILD)/tools/colormap_strips docs/img && echo "gallery: docs/img/colormap-*.png"
	$(Q)set -e; for p in $(basename $(notdir $(PRESETS))); do \
	  t=$$(mktemp -d); ./$(BIN_OUT) --preset $$p -f 60 -o "$$t/f%02d.png" -y -q; \
	  cp "$$t/f59.png" docs/img/preset-$$p.png; rm -rf "$$t"; echo "gallery: docs/img/preset-$$p.png"; done

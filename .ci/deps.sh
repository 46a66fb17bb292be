#!/bin/sh
# Installs the Debian 12 packages ripplerender needs, when they are missing.
#   sh .ci/deps.sh        build and run: what `make demo` needs
#   sh .ci/deps.sh test   also what `make test` needs (CI runs this)
#   sh .ci/deps.sh farm   also what `make test-farm` needs (a single-node Slurm)
# As root it runs apt-get; otherwise it prints the exact command and fails,
# so `make demo` never half-works.
# libopenexr-dev: the .exr output, written through its C library (OpenEXRCore).
# libxxhash-dev: XXH3-128, the digest of a checkpoint's planes (--save-state, src/state.c):
# it runs at memory speed, where SHA-256 over a 1080p run's planes cost more than writing them.
# libdeflate-dev: the PNG sequences' deflate (src/sinks/pngseq.c): at the same level, files within a
# few per cent of zlib's in much less time; zlib through libpng bounded a PNG sequence's speed.
PKGS="gcc make pkg-config libavcodec-dev libavformat-dev libavutil-dev libswscale-dev
libavfilter-dev libpng-dev libcjson-dev libfftw3-dev libopenexr-dev libxxhash-dev libdeflate-dev ffmpeg"
# Test-only: cmocka (unit tests), openexr (its exrheader and exrinfo read our .exr files
# back, tests/cli/test_exr.sh), the scene schema's validator (Draft 2020-12, tests/cli/test_schema.sh),
# GNU parallel (tests/cli/test_sweeps.sh, tests/cli/test_farm_recipes.sh), PyYAML (the shipped
# Kubernetes Job parses, tests/cli/test_farm_recipes.sh), a real browser that plays our videos
# (tests/cli/test_players.sh), man (the man page renders cleanly, tests/cli/test_install.sh),
# xxhash (xxhsum, the reference tool: a checkpoint's plane digests, tests/cli/test_farm.sh),
# qemu-user (the binary run on emulated CPUs without AVX-512 and without AVX: the other
# kernel builds give the same heights, tests/cli/test_kernels.sh).
# clang-14 with libclang-rt-14-dev (libFuzzer, ASan) and libomp-14-dev (clang's OpenMP): make fuzz,
# run bounded by CI; time (GNU time's peak RSS of a run against the memory budget, tests/cli/test_budget.sh).
TEST_PKGS="libcmocka-dev openexr python3-jsonschema python3-yaml parallel chromium man-db xxhash qemu-user
clang-14 libclang-rt-14-dev libomp-14-dev time"
[ "$1" = test ] && PKGS="$PKGS $TEST_PKGS"
# make test-farm only: a single-node Slurm and its authentication (tests/farm/test_slurm.sh).
[ "$1" = farm ] && PKGS="$PKGS slurm-wlm munge python3"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
        echo "deps: apt-get install failed" >&2; exit 1; }
else
    echo "deps: missing Debian packages; run:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi

# The frames do not depend on which build of the row kernels runs. The AVX-512
# kernels (src/tblock_avx512.h) and the x86-64-v4 clones of the portable ones
# run on CPUs that have AVX-512. QEMU's user-mode emulator runs the same binary
# on a CPU model we name: Haswell (x86-64-v3: the AVX2 clones, the AVX2 row
# driver of src/tblock_avx2.h, and the AVX2 paths of src/render/shaded.c)
# and qemu64 (the baseline clones, no AVX at all). In
# each, its frames must match golden hashes and its heights the native run's,
# bit for bit (.npy: a rendered frame's hash hides a difference in the last
# bit of a height), for elias, flow and wave, one step a frame and fused
# steps, on a grid wide enough for the kernels' whole vectors and their
# masked ends; the spectral solver's heights on each kind of edges (its
# vectorised passes between the transforms: the native run's bits on
# Haswell, whose FFTW codelets are the native ones (the Debian build has
# none past AVX2); within 1e-6 of the peak on the baseline, where FFTW's
# estimated plans take its SSE2 codelets and round otherwise, the tolerance
# docs/solvers.md states); and a scaled yuv420p video's frames the native run's. The
# unit tests that compare a CPU-picked fast path with its plain reference
# run there too: test_md5lanes (md5_lanes against av_md5_sum), test_spectral's
# fused column pairs (the one pass between the transforms against the plain
# passes) and whole steps against its plain path (every loop scalar, the
# passes unfused: solver_spectral_plain), TEST_SPECTRAL_ONLY=fast, test_sim_screen
# (the portable row kernels' blow-up screen flags what it must, on each
# level's build of them, and their bits with it on and off), test_yuv420
# (yuv420_from_rgb24 against yuv420_reference), test_render (the height
# mode's rows, whose loops are built per level, against the plain formula)
# and, on Haswell, where the
# AVX2 paths of src/render/shaded.c and src/render/caustics.c run,
# test_render_fast and test_render_water (the gather against its plain
# splat); under the emulator their longest sweeps take a sample
# (RR_TEST_EMULATED, tests/unit/emulated.h), natively they are whole. PNG
# sequences: libdeflate picks CPU-specific code too (its match finder's
# table resets, CRC-32, Adler-32); the files must be the same bytes. ld.so
# --help, run under the same model, tells the level glibc sees, the same
# levels GCC's target_clones resolvers pick by: a model that did not give
# the level we ask for fails the test instead of testing the wrong build.
# (Valgrind served here before: it cannot start the binary on a host whose
# CPUID hides RDTSCP, which libhwy, loaded by libavcodec, runs.)
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

# Every CPU-dispatched path takes its clones and CPU tests from src/isa.h,
# so that the capped builds of make bench's levels section (RR_ISA_MAX)
# cap it too: no target_clones or __builtin_cpu_supports written out
# elsewhere in src.
check dispatch-through-isa-h [ -z "$(grep -rlE 'target_clones\(|__builtin_cpu_supports\(' src --include='*.[ch]' |
                                     grep -v '^src/isa.h$')" ]

if ! command -v qemu-x86_64 > /dev/null; then
    echo "skip kernels: qemu-x86_64 is not installed (sh .ci/deps.sh test installs qemu-user)"
    finish; exit
fi
if [ "$(uname -m)" != x86_64 ]; then
    echo "skip kernels: the kernel builds compared here are x86-64's"
    finish; exit
fi
if asan_build; then   # make sanitize: ASan's shadow memory does not map under qemu
    echo "skip kernels: $RR is built with AddressSanitizer"
    finish; exit
fi
LDSO=/lib64/ld-linux-x86-64.so.2
# The build directory of the binary under test, where its unit tests are.
rel=${RR#"$PWD"/}; rel=${rel#./}
case "$rel" in */ripplerender) build=${rel%/ripplerender} ;; *) build=build ;; esac

# highest_level MODEL: the highest x86-64-vN glibc finds on the emulated CPU
# ("baseline" below v2).
highest_level() {
    qemu-x86_64 -cpu "$1" "$LDSO" --help 2>/dev/null |
        sed -n 's/^ *\(x86-64-v[234]\) (supported, searched)$/\1/p' | head -n 1 |
        grep . || echo baseline
}

# 517 x 61 cells, fixed edges (so that steps fuse), two drops and a wall:
# rows of 32 whole vectors and a 5-cell end; 19 frames.
cat > "$T/k.json" <<'JSON'
{ "grid": { "width": 517, "height": 61, "cell_size": 0.01 },
  "time": { "fps": 30, "frames": 19 },
  "boundary": "fixed",
  "drops": [ { "x": 40, "y": 30, "radius": 4, "amplitude": 1.0, "shape": "gaussian" },
             { "x": 470, "y": 20, "radius": 3, "amplitude": -0.7, "shape": "gaussian" } ],
  "obstacles": [ { "type": "rect", "x": 250, "y": 10, "width": 3, "height": 30 } ] }
JSON
for solver in elias flow wave; do
    for spf in 1 4; do
        set -- -s solver.type=$solver -s time.steps_per_frame=$spf
        "$RR" "$T/k.json" "$@" --hash -q > "$T/hashes"
        check "frames-change-$solver-spf$spf" [ "$(cut -d' ' -f2 "$T/hashes" | sort -u | wc -l)" -eq 19 ]
        "$RR" "$T/k.json" "$@" -o "$T/native-$solver-$spf.npy" -y -q
        check "native-runs-$solver-spf$spf" [ $? -eq 0 ]
    done
done

# The spectral solver on a 102 x 70 grid (whole vectors and ends in every
# vectorised pass: even lengths not multiples of 16) with each kind of
# edges; 8 frames.
spectral_edges='wrap fixed clamp {"left":"fixed","right":"clamp","top":"clamp","bottom":"fixed"} absorb'
spectral_run() {   # spectral_run EDGES OUT [QEMU...]
    e=$1 out=$2; shift 2
    "$@" "$RR" "$T/k.json" -s solver.type=spectral -s grid.width=102 -s grid.height=70 -s time.frames=8 \
        -s "boundary=$e" -s drops.1.x=80 -s obstacles.0.x=50 -o "$out" -y -q
}
k=0
for e in $spectral_edges; do
    k=$((k + 1))
    spectral_run "$e" "$T/native-spectral-$k.npy"
    check "native-runs-spectral-$k" [ $? -eq 0 ]
done
# npy_close A B TOL: the heights of two .npy files of one shape within TOL
# of A's largest magnitude.
npy_close() {
    python3 - "$@" <<'PY'
import struct, sys
def heights(path):
    b = open(path, 'rb').read()
    off = 10 + struct.unpack('<H', b[8:10])[0]
    return struct.unpack('<%df' % ((len(b) - off) // 4), b[off:])
a, b = heights(sys.argv[1]), heights(sys.argv[2])
peak = max(abs(x) for x in a)
sys.exit(0 if len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) <= float(sys.argv[3]) * peak else 1)
PY
}

# A render scaled 2x to a yuv420p video: the renderer's yuv420p planes,
# scaled by libswscale's grey path (vectorised as the CPU allows), decoded
# from lossless ffv1.
yuv_frames() {
    "$@" scenes/demo.json -f 6 -s output.codec=ffv1 -s output.pix_fmt=yuv420p -o "$T/yuv.mkv" -y -q &&
        ffmpeg -v error -i "$T/yuv.mkv" -f framemd5 -
}
yuv_frames "$RR" > "$T/native-yuv"
check native-yuv-frames [ "$(grep -cv '^#' "$T/native-yuv")" -eq 6 ]
# png_set DIR QEMU...: the first 4 frames as PNG files at levels 1, 3 and 9
# into DIR, run under QEMU... (nothing: natively); prints their md5sum.
png_set() {
    d=$1; shift
    for lvl in 1 3 9; do
        mkdir -p "$d/$lvl"
        "$@" "$RR" "$T/k.json" -f 4 -s output.compression=$lvl -o "$d/$lvl/f%d.png" -y -q -j2 || echo failed
    done
    cat "$d"/*/f*.png | md5sum
}
png_set "$T/png-native" > "$T/png-native.md5"
check png-native-files [ "$(ls "$T"/png-native/*/f*.png | wc -l)" -eq 12 ]

# model level: the CPU QEMU emulates and the level it must give.
for pair in Haswell-v4:x86-64-v3 qemu64:baseline; do
    model=${pair%%:*} want=${pair#*:}
    got=$(highest_level "$model")
    check "qemu-$model-is-$want" [ "$got" = "$want" ]
    [ "$got" = "$want" ] || continue
    QEMU="qemu-x86_64 -cpu $model"
    for s in boundaries double-slit shaded caustics; do
        $QEMU "$RR" "scenes/$s.json" --check "tests/golden/$s.framemd5" -j2 > "$T/out" 2>&1
        check "golden-on-$want-$s" [ $? -eq 0 ]
    done
    for solver in elias flow wave; do
        for spf in 1 4; do
            $QEMU "$RR" "$T/k.json" -s solver.type=$solver -s time.steps_per_frame=$spf \
                -o "$T/emu.npy" -y -q > "$T/out" 2>&1
            check "same-heights-on-$want-$solver-spf$spf" cmp -s "$T/native-$solver-$spf.npy" "$T/emu.npy"
        done
        # Both row drivers' forms (RIPPLERENDER_SUBNORMALS), whichever the
        # probe picks under the emulator.
        for m in careful plain; do
            RIPPLERENDER_SUBNORMALS=$m $QEMU "$RR" "$T/k.json" -s solver.type=$solver -s time.steps_per_frame=1 \
                -o "$T/emu.npy" -y -q \
                > "$T/out" 2>&1
            check "same-heights-on-$want-$solver-$m" cmp -s "$T/native-$solver-1.npy" "$T/emu.npy"
        done
    done
    k=0
    for e in $spectral_edges; do
        k=$((k + 1))
        spectral_run "$e" "$T/emu.npy" $QEMU > "$T/out" 2>&1
        if [ "$want" = x86-64-v3 ]; then
            check "spectral-same-heights-on-$want-$k" cmp -s "$T/native-spectral-$k.npy" "$T/emu.npy"
        else
            check "spectral-heights-within-1e-6-on-$want-$k" npy_close "$T/native-spectral-$k.npy" "$T/emu.npy" 1e-6
        fi
    done
    # The hand-written row driver each level runs (src/tblock_avx2.h on
    # x86-64-v3, none on the baseline), named and timed by the step's tuner,
    # whose trials take every way in turn (40 steps: more than its 36).
    RIPPLERENDER_SUBNORMALS=plain RIPPLERENDER_CACHE=0 RIPPLERENDER_DEBUG=kernels $QEMU "$RR" "$T/k.json" \
        -s solver.type=flow -s time.steps_per_frame=1 -f 40 -o "$T/debug.npy" -y -q > /dev/null 2> "$T/debug"
    if [ "$want" = x86-64-v3 ]; then
        check "avx2-driver-on-$want" grep -q 'portable built for AVX2 (x86-64-v3), avx2 (the AVX2 driver);' "$T/debug"
        check "avx2-driver-timed-on-$want" grep -q 'step: .*avx2 3rows' "$T/debug"
        RIPPLERENDER_SUBNORMALS=careful RIPPLERENDER_CACHE=0 RIPPLERENDER_DEBUG=kernels $QEMU "$RR" "$T/k.json" \
            -s solver.type=flow -s time.steps_per_frame=1 -f 40 -o "$T/debug.npy" -y -q > /dev/null 2> "$T/debug"
        check "avx2-careful-driver-on-$want" grep -q \
            'portable built for AVX2 (x86-64-v3), and only avx2-careful (the AVX2 driver, careful of subnormals);' "$T/debug"
    else
        check "no-driver-on-$want" grep -q 'portable built for the baseline; ' "$T/debug"
    fi
    yuv_frames $QEMU "$RR" > "$T/emu-yuv" 2> "$T/out"
    check "same-scaled-yuv420p-on-$want" cmp -s "$T/native-yuv" "$T/emu-yuv"
    png_set "$T/png-$want" $QEMU > "$T/png-emu.md5"
    check "same-png-files-on-$want" cmp -s "$T/png-native.md5" "$T/png-emu.md5"
    if [ -x "$build/tests/test_spectral" ]; then
        RR_TEST_EMULATED=1 TEST_SPECTRAL_ONLY=fast $QEMU "$build/tests/test_spectral" > "$T/out" 2>&1
        check "spectral-plain-path-bits-on-$want" [ $? -eq 0 ]
    else
        echo "skip test_spectral on $want: $build/tests/test_spectral is not built"
    fi
    units="test_md5lanes test_sim_screen test_yuv420 test_render"
    [ "$want" = x86-64-v3 ] && units="$units test_render_fast test_render_water"
    for u in $units; do
        if [ -x "$build/tests/$u" ]; then
            RR_TEST_EMULATED=1 $QEMU "$build/tests/$u" > "$T/out" 2>&1
            check "plain-path-bits-on-$want-$u" [ $? -eq 0 ]
        else
            echo "skip $u on $want: $build/tests/$u is not built"
        fi
    done
done
finish

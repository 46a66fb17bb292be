# The frames do not depend on which build of the row kernels runs. The AVX-512
# kernels (src/tblock_avx512.h) and the AVX-512 clones of the portable ones
# run on CPUs that have AVX-512; valgrind reports a CPU without it, so under
# valgrind the same binary runs the AVX2 (or baseline) builds: its frames
# must match the golden hashes, and its heights (.npy, bit for bit: a
# rendered frame's hash hides a difference in the last bit of a height) the
# native run's, for elias, flow and wave, one step a frame and fused steps,
# on a grid wide enough for the kernels' whole vectors and their masked ends. (On a CPU without AVX-512
# both runs take the same kernels, and the check still holds.)
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

if ! command -v valgrind > /dev/null; then
    echo "skip kernels: valgrind is not installed (sh .ci/deps.sh test installs it)"
    finish; exit
fi
if grep -q __asan_init "$RR"; then   # make sanitize: valgrind cannot run an ASan binary
    echo "skip kernels: $RR is built with AddressSanitizer"
    finish; exit
fi
VG="valgrind -q --error-exitcode=99"

for s in boundaries double-slit; do
    $VG "$RR" "scenes/$s.json" --check "tests/golden/$s.framemd5" -j2 > "$T/out" 2>&1
    check "golden-without-avx512-$s" [ $? -eq 0 ]
done

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
        "$RR" "$T/k.json" "$@" -o "$T/native.npy" -y -q
        check "native-runs-$solver-spf$spf" [ $? -eq 0 ]
        $VG "$RR" "$T/k.json" "$@" -o "$T/vg.npy" -y -q > "$T/out" 2>&1
        check "same-heights-without-avx512-$solver-spf$spf" cmp -s "$T/native.npy" "$T/vg.npy"
    done
done
finish

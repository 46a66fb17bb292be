#!/bin/sh
# make failtest: runs a few small scenes with the failalloc build (see
# failalloc.c), first counting the allocations of each run, then making each
# one fail in turn. Every such run must end with exit status 1, exactly one
# line on stderr ("ripplerender: ..."), no leak (LeakSanitizer), no crash, and
# nothing left in the output folder (no output, no temporary file).
# The runs that fail an allocation are independent: as many at once as there
# are cores, each in a folder of its own.
# Usage: run.sh BINARY [STRIDE]   (STRIDE k: only every k-th allocation, for a quick run)

# run.sh --one K ARGS... (from xargs, below): the run whose K-th allocation
# fails, in $T/runs/K (its outputs under out/); prints "right K", or what
# went wrong ("allocation K: ..."), so that every run is accounted for.
if [ "$1" = --one ]; then
    k=$2; shift 2
    d=$T/runs/$k
    mkdir -p "$d/out" && cd "$d" || { echo "allocation $k: cannot make $d"; exit 0; }
    RR_FAILTEST_FAIL=$k "$bin" "$T/scene.json" -q "$@" > /dev/null 2> err; s=$?
    lines=$(wc -l < err)
    if [ $s -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q '^ripplerender: ' err || [ -n "$(ls -A out)" ]; then
        echo "allocation $k: status $s, $lines lines, left: $(ls -A out | tr '\n' ' ')"
        head -n 5 err | sed 's/^/    /'
    else
        echo "right $k"
    fi
    cd "$T" && rm -rf "$d"
    exit 0
fi
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
bin=$1; stride=${2:-1}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export ASAN_OPTIONS=detect_leaks=1:exitcode=98 LSAN_OPTIONS=exitcode=99 T bin
jobs=$(nproc)
cp scenes/harbour.png "$T/walls.png"
cat > "$T/scene.json" <<'JSON'
{ "grid": { "width": 40, "height": 30 },
  "time": { "fps": 10, "frames": 3, "steps_per_frame": 2 },
  "drops": [ { "x": 10, "y": 10, "radius": 3, "amplitude": -1 } ],
  "rain": { "rate": 20, "seed": 3 },
  "oscillators": [ { "x": 30, "y": 20, "frequency": 2 } ],
  "movers": [ { "path": [[0, 2, 2], [0.3, 20, 5]] } ],
  "initial": [ { "type": "wave", "wavelength": 8, "amplitude": 0.1 } ],
  "probes": [ { "name": "a", "x": 5, "y": 5 } ],
  "obstacles": [ { "type": "rect", "x": 20, "y": 2, "width": 3, "height": 4 },
                 { "type": "mask", "path": "walls.png", "threshold": 0.4 } ],
  "render": { "mode": "colormap", "range": [-1, 1] } }
JSON
passed=0; failed=0; total=0
# scenario NAME ARGS...: the output folder is $T/out.
scenario() {
    name=$1; shift
    rm -rf "$T/out"; mkdir -p "$T/out"
    RR_FAILTEST_COUNT="$T/count" "$bin" "$T/scene.json" -q "$@" > /dev/null 2> "$T/err"
    if [ $? -ne 0 ]; then echo "FAIL $name: the run without failures failed: $(cat "$T/err")"; failed=$((failed + 1)); return; fi
    n=$(cat "$T/count"); runs=$(( (n + stride - 1) / stride ))
    seq 1 "$stride" "$n" | xargs -P "$jobs" -I{} sh "$self" --one {} "$@" > "$T/runs.txt"
    bad=$(grep -c '^allocation ' "$T/runs.txt"); right=$(grep -c '^right ' "$T/runs.txt")
    grep -v '^right ' "$T/runs.txt" | sed "s/^allocation /FAIL $name: allocation /"
    if [ $((bad + right)) -ne $runs ]; then
        echo "FAIL $name: $((bad + right)) of the $runs runs reported"; bad=$((bad + 1))
    fi
    total=$((total + runs))
    echo "failtest $name: $n allocations, $runs made to fail, $bad wrong"
    if [ $bad -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
cd "$T" || exit 1
# The caches (src/cachefile.h) in this test's folder, never the home's: a
# run's allocations must not depend on what earlier runs left there. Seeded
# with the tuner's choice for the scene's grid (a longer run on one thread,
# the team the frame loop starts with beside a writer, settles the tuner and
# writes it), so that every run below also looks up and reads a cache file:
# an allocation there would be a failure the run tolerates silently (status 0).
unset RIPPLERENDER_CACHE
export XDG_CACHE_HOME="$T/cache"
"$bin" "$T/scene.json" -q -j 1 -f 30 --hash > /dev/null 2>&1
"$bin" "$T/scene.json" -q -f 30 --hash > /dev/null 2>&1   # and for the team a hashed run takes
ls "$T/cache/ripplerender"/tuner-*.txt > /dev/null 2>&1 ||
    echo "failtest: no tuner choice written for this CPU: the runs read no cache file"
scenario video -o out/a.mkv --probes out/p.csv --manifest out/m.json
scenario pngseq -o 'out/f%02d.png'
scenario npy -o out/a.npy --hash
scenario framemd5 -o out/a.framemd5 -s render.width=64 -s render.height=48
scenario folders -o out/new/deep/a.npy --manifest out/m/m.json   # folders made, and taken back
# The spectral solver: its domain, plans, twiddles and line buffers, with
# each way an axis is transformed (the DFT; the DCT-II by a complex DFT, with
# and without an absorb pad; the DCT-IV by two of half the length: the 30 rows
# between a fixed top and a clamp bottom). --hash beside each .npy: the
# scene's render keys then act, where a .npy alone warns (a second line).
scenario spectral-fixed -o out/a.npy --hash -s solver.type=spectral -s grid.cell_size=0.001 -s boundary=fixed
scenario spectral-mixed -o out/a.npy --hash -s solver.type=spectral -s grid.cell_size=0.001 \
    -s 'boundary={"left": "absorb", "right": "fixed", "top": "fixed", "bottom": "clamp"}'
scenario spectral-wrap -o out/a.npy --hash -s solver.type=spectral -s grid.cell_size=0.001 \
    -s 'boundary={"left": "wrap", "right": "wrap", "top": "clamp", "bottom": "clamp"}'
export RIPPLERENDER_FUSE=on; scenario fused-npy -o out/a.npy --hash; unset RIPPLERENDER_FUSE   # batches in the writer's ring
echo "failtest: $total runs; $passed scenarios passed, $failed failed"
[ $failed -eq 0 ]

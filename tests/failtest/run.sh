#!/bin/sh
# make failtest: runs a few small scenes with the failalloc build (see
# failalloc.c), first counting the allocations of each run, then making each
# one fail in turn. Every such run must end with exit status 1, exactly one
# line on stderr ("ripplerender: ..."), no leak (LeakSanitizer), no crash, and
# nothing left in the output folder (no output, no temporary file).
# Usage: run.sh BINARY [STRIDE]   (STRIDE k: only every k-th allocation, for a quick run)
bin=$1; stride=${2:-1}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export ASAN_OPTIONS=detect_leaks=1:exitcode=98 LSAN_OPTIONS=exitcode=99
# The tuner cache on, in a folder of the test's own, written before the
# scenarios by a longer run of the scene (enough steps for the tuner to
# choose): every scenario's runs read it, so the cache's paths (which must
# allocate nothing: a cache tolerates its own failures silently) are made to
# fail too, whatever the machine's HOME holds.
unset RIPPLERENDER_CACHE
export XDG_CACHE_HOME="$T/cache"
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
    n=$(cat "$T/count"); bad=0
    k=1
    while [ "$k" -le "$n" ]; do
        rm -rf "$T/out"; mkdir -p "$T/out"
        RR_FAILTEST_FAIL=$k "$bin" "$T/scene.json" -q "$@" > /dev/null 2> "$T/err"; s=$?
        lines=$(wc -l < "$T/err")
        if [ $s -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q '^ripplerender: ' "$T/err" || [ -n "$(ls -A "$T/out")" ]; then
            echo "FAIL $name: allocation $k of $n: status $s, $lines lines, left: $(ls -A "$T/out" | tr '\n' ' ')"
            head -n 5 "$T/err"
            bad=$((bad + 1))
        fi
        total=$((total + 1))
        k=$((k + stride))
    done
    echo "failtest $name: $n allocations, $(( (n + stride - 1) / stride )) made to fail, $bad wrong"
    if [ $bad -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
cd "$T" || exit 1
"$bin" "$T/scene.json" -q --hash -s time.frames=40 > /dev/null
if ! ls "$T/cache/ripplerender/"tuner-* > /dev/null 2>&1; then
    echo "failtest: a run of 40 frames wrote no tuner cache in $T/cache"; exit 1
fi
scenario video -o out/a.mkv --probes out/p.csv --manifest out/m.json
scenario pngseq -o 'out/f%02d.png'
scenario npy -o out/a.npy --hash
scenario framemd5 -o out/a.framemd5 -s render.width=64 -s render.height=48
scenario folders -o out/new/deep/a.npy --manifest out/m/m.json   # folders made, and taken back
echo "failtest: $total runs; $passed scenarios passed, $failed failed"
[ $failed -eq 0 ]

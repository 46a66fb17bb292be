# The memory budget (src/budget.c) against the peak resident size that GNU
# time (/usr/bin/time, package time) measures, each run under a limit of its
# own estimate (RIPPLERENDER_MEM_LIMIT: what it may hold given room, a
# batch's pictures too): the estimate plus the program's own 10 MiB is never
# below the peak and at most 1.5 times it, for every output kind (a video, a
# GIF, PNG sequences of 8 and 16 bits with and without alpha, NUT and y4m
# streams, .npy, .framemd5, --hash, .exr of one and four floats, atlases),
# the caustics mode, renders scaled up and down, at 512 to 2048 cells a side on
# 1, 2 and 4 threads; a long GIF's peak, which must not grow with its frames;
# a spectral run with a wide absorbing pad; libx264 on short and long clips
# and on 16 threads; a large scene text; outputs fused across frames at 2048
# x 2048 and that run frame by frame (--probes, --save-state, caustics). The
# estimate is read from the refusal under RIPPLERENDER_MEM_LIMIT=1 ("need
# about N bytes"). Also: runs the estimate refuses, and the scene size cap.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

one_line() { [ "$(wc -l < "$1")" -eq 1 ]; }
# The estimates and peaks on J threads (-j, 2 unless a check sets J), whatever
# the machine: the encoder's frame threads follow -j (every core without it),
# and so do its peak and the estimate, so figures measured on one machine
# hold on any.
J=2
# need LIMIT ARGS...: the bytes named by the refusal under that limit.
need() { l=$1; shift; RIPPLERENDER_MEM_LIMIT=$l "$RR" "$@" -j "$J" -q 2>&1 >/dev/null | sed -n 's/.*need about \([0-9]*\) bytes.*/\1/p'; }
# estimate ARGS...: the bytes the budget names for this run: the scene text's
# parse is checked first; under a limit it passes, the run's own estimate.
estimate() { t=$(need 1 "$@"); r=$(need "$t" "$@"); echo "${r:-$t}"; }
# peak ARGS...: the run's peak resident size in bytes, under the limit LIMIT
# when set (the run may fail after parsing: measured all the same).
peak() {
    RIPPLERENDER_MEM_LIMIT=${LIMIT:-} /usr/bin/time -f '%M' -o "$T/time" "$RR" "$@" -j "$J" -q > /dev/null 2>&1
    echo $(( $(tail -n 1 "$T/time") * 1024 ))
}
# budget NAME ARGS...: estimate, with the program's own 10 MiB (RR_BUDGET_PROGRAM_BYTES,
# src/budget.h), within [peak, 1.5 peak] (MAXPCT percent of the peak when set), the
# peak measured under a limit of the estimate.
budget() {
    name=$1; shift
    est=$(estimate "$@"); pk=$(LIMIT=$est peak "$@")
    [ -n "$est" ] && est=$((est + 10485760))
    echo "budget $name: estimate $est, peak $pk bytes"
    if [ -n "$est" ] && [ "$est" -ge "$pk" ] && [ $((est * 100)) -le $((pk * ${MAXPCT:-150})) ]; then ok "budget-$name"
    else fail "budget-$name" "estimate ${est:-none} bytes, peak $pk bytes"; fi
}
# The densest JSON there is, a value every two bytes: parsed whole, then refused for its key.
python3 -c 'import sys; sys.stdout.write("{\"pad\": [" + ",".join(["0"] * 4000000) + "]}")' > "$T/big.json"
echo '{"grid":{"width":512,"height":512},"time":{"frames":80},"render":{"mode":"colormap"}}' > "$T/gif.json"
# A sanitizer build (make sanitize) has other peaks: its shadow memory and quarantine.
if asan_build; then
    echo "skip budget-*: the peak of a sanitizer build is not the program's"
elif [ ! -x /usr/bin/time ]; then
    fail budget-time "no /usr/bin/time (Debian package time; .ci/deps.sh test installs it)"
else
    mkdir -p "$T/o"
    budget gif-512-80-frames "$T/gif.json" -o "$T/o/a.gif" -y
    # A long GIF in bounded memory: 600 frames at 320 x 240 (their rgb24 bytes
    # alone 138 MB, which the sink once held) peak under 96 MiB, and within
    # 8 MiB of the peak of 60 frames.
    echo '{"grid":{"width":320,"height":240},"time":{"frames":600,"steps_per_frame":1},"render":{"mode":"colormap"},"rain":{"rate":20}}' > "$T/gif-600.json"
    p600=$(peak "$T/gif-600.json" -o "$T/o/l.gif" -y)
    p60=$(peak "$T/gif-600.json" --set time.frames=60 -o "$T/o/l.gif" -y)
    echo "gif 320x240: peak $p600 bytes at 600 frames, $p60 at 60"
    if [ "$p600" -lt $((96 << 20)) ] && [ $((p600 - p60)) -lt $((8 << 20)) ]; then ok gif-600-frames-bounded
    else fail gif-600-frames-bounded "peak $p600 bytes at 600 frames, $p60 at 60"; fi
    echo '{"grid":{"width":64,"height":48},"time":{"frames":3},"solver":{"type":"spectral"},"boundary":"absorb","absorb_width":1024}' > "$T/spec.json"
    budget spectral-absorb-1024 "$T/spec.json" -o "$T/o/a.npy" -y
    echo '{"grid":{"width":1024,"height":1024},"time":{"frames":20}}' > "$T/x264.json"
    budget libx264-1024-20-frames "$T/x264.json" -o "$T/o/a.mp4" -y
    # Each of libx264's frame threads holds frames of its own, however short
    # the clip: on 16 threads (a farm node) the peak is well above 2 threads'.
    J=16; budget libx264-1024-20-frames-16-threads "$T/x264.json" -o "$T/o/a.mp4" -y; J=2
    # A clip shorter than the lookahead holds its frames and a few; a long
    # one the preset's lookahead, B- and reference frames.
    J=4; budget libx264-1024-4-frames-4-threads "$T/x264.json" -s time.frames=4 -o "$T/o/a.mp4" -y; J=2
    budget libx264-1024-60-frames "$T/x264.json" -s time.frames=60 -o "$T/o/a.mp4" -y
    budget scene-text-8mb "$T/big.json" --validate
    # Every output kind, the caustics mode and scaled renders at a few sizes
    # and thread counts: SIZE J NAME ARGS... (the scene: SIZE x SIZE cells,
    # 12 frames, a drop).
    kind() {
        n=$1 J=$2 name=$3; shift 3
        echo "{\"grid\":{\"width\":$n,\"height\":$n},\"time\":{\"frames\":12},\"drops\":[{\"x\":50,\"y\":50}]}" > "$T/k.json"
        budget "$name-$n-j$J" "$T/k.json" "$@"
        J=2
    }
    for nj in "512 1" "1024 2" "2048 4"; do
        set -- $nj
        # At 2048 the kinds whose writers hold most.
        [ "$1" = 2048 ] && big=1 || big=
        kind "$1" "$2" mp4 -o "$T/o/a.mp4" -y
        kind "$1" "$2" gif -o "$T/o/a.gif" -y
        kind "$1" "$2" png -o "$T/o/p%03d.png" -y
        [ -z "$big" ] && kind "$1" "$2" png16-grey -o "$T/o/p%03d.png" -y -s output.bit_depth=16
        kind "$1" "$2" png16-rgba -o "$T/o/p%03d.png" -y -s output.bit_depth=16 -s render.alpha=height
        [ -z "$big" ] && kind "$1" "$2" png16-shaded -o "$T/o/p%03d.png" -y -s output.bit_depth=16 -s render.mode=shaded
        [ -z "$big" ] && kind "$1" "$2" nut -o - -s output.format=nut
        [ -z "$big" ] && kind "$1" "$2" y4m -o -
        [ -z "$big" ] && kind "$1" "$2" npy -o "$T/o/a.npy" -y
        [ -z "$big" ] && kind "$1" "$2" framemd5 -o "$T/o/a.framemd5" -y
        kind "$1" "$2" hash --hash
        [ -z "$big" ] && kind "$1" "$2" exr-height -o "$T/o/e%03d.exr" -y -s render.mode=height
        kind "$1" "$2" exr-normals-alpha -o "$T/o/e%03d.exr" -y -s render.mode=normals -s render.alpha=height
        [ -z "$big" ] && kind "$1" "$2" caustics-mp4 -o "$T/o/a.mp4" -y -s render.mode=caustics
        [ -z "$big" ] && kind "$1" "$2" caustics-npy -o "$T/o/a.npy" -y -s render.mode=caustics
        kind "$1" "$2" caustics-hash --hash -s render.mode=caustics
    done
    # render.atlas: the image being filled and the kind's writer at its size.
    kind 512 2 atlas-png -o "$T/o/at%03d.png" -y -s 'render.atlas=[2,2]'
    kind 512 2 atlas-png16-rgba -o "$T/o/at%03d.png" -y -s 'render.atlas=[2,2]' -s output.bit_depth=16 -s render.alpha=height
    kind 512 2 atlas-exr -o "$T/o/at%03d.exr" -y -s 'render.atlas=[2,2]' -s render.mode=height
    for nj in "1024 2"; do
        set -- $nj
        for wh in "$(($1 * 2)) $(($1 * 2))" "$(($1 / 2)) $(($1 / 2))" "$(($1 * 3 / 2)) $1"; do
            # shellcheck disable=SC2086
            set -- $nj $wh
            S="-s render.width=$3 -s render.height=$4"
            # shellcheck disable=SC2086
            for k in "mp4 -o $T/o/a.mp4 -y" "png -o $T/o/p%03d.png -y" "png16 -o $T/o/p%03d.png -y -s output.bit_depth=16" \
                     "nut -o - -s output.format=nut" "gif -o $T/o/a.gif -y" "hash --hash" "npy -o $T/o/a.npy -y"; do
                kind "$1" "$2" scaled-$3x$4-$k $S
            done
        done
    done
    # Steps fused across frames into the writer's ring (sink_fuses): it holds
    # 6 frames (a batch of 4, the writer's 2) of rgb24, and of heights for a
    # .npy, instead of 3; for a NUT stream
    # the ring's part alone, against the peak of the run frame by frame
    # (--probes): 3 pictures of rgb24, within 10 %.
    echo '{"grid":{"width":2048,"height":2048},"time":{"frames":12},"probes":[{"x":5,"y":5}],"drops":[{"x":100,"y":100}]}' > "$T/fuse.json"
    budget fused-npy-2048 "$T/fuse.json" -o "$T/o/a.npy" -y
    budget fused-nut-2048 "$T/fuse.json" -o - -s output.format=nut
    RIPPLERENDER_FUSE=off budget nut-2048 "$T/fuse.json" -o - -s output.format=nut
    # Runs that would fuse but go frame by frame count no batch (budget_batch_frames):
    # --probes, --save-state, a mode that does not draw by rows.
    budget probes-npy-2048 "$T/fuse.json" -o "$T/o/a.npy" -y --probes "$T/o/p.csv"
    budget save-state-npy-2048 "$T/fuse.json" -o "$T/o/a.npy" -y --save-state "$T/o/st"
    budget caustics-npy-2048 "$T/fuse.json" -o "$T/o/a.npy" -y -s render.mode=caustics
    e_fused=$(estimate "$T/fuse.json" -o "$T/o/a.npy" -y); e_probes=$(estimate "$T/fuse.json" -o "$T/o/a.npy" -y --probes "$T/o/p.csv")
    cond fused-estimate-counts-batch '[ $((e_fused - e_probes)) -eq $((3 * 2048 * 2048 * 7)) ]'
    pf=$(peak "$T/fuse.json" -o - -s output.format=nut); pb=$(peak "$T/fuse.json" -o - -s output.format=nut --probes "$T/o/p.csv" -y)
    ring=$((3 * 2048 * 2048 * 3))
    echo "fused nut 2048: peak $pf bytes, $pb frame by frame; the estimate's ring $ring bytes"
    cond fused-nut-ring '[ $((pf - pb)) -le $((ring * 11 / 10)) ] && [ $((pf - pb)) -ge $((ring * 9 / 10)) ]'
fi

# refused NAME MESSAGE ARGS...: exit 2 and one line holding MESSAGE, nothing written.
refused() {
    name=$1 msg=$2; shift 2
    rm -rf "$T/r"; mkdir -p "$T/r"
    "$RR" "$@" -q > /dev/null 2> "$T/err"; s=$?
    if [ "$s" -eq 2 ] && grep -qF -- "$msg" "$T/err" && one_line "$T/err" && [ -z "$(ls -A "$T/r")" ]; then ok "$name"
    else fail "$name" "status $s, message: $(cat "$T/err")"; fi
}
# A GIF no longer holds its frames (two passes over a scratch file, src/sinks/gif.c):
# its estimate does not grow with the frame count (beyond the --set's own
# text, 72 bytes a byte as the file's).
long=time.frames=100000
e_long=$(estimate "$T/gif.json" --set $long -o "$T/r/a.gif"); e_short=$(estimate "$T/gif.json" -o "$T/r/a.gif")
if [ -n "$e_long" ] && [ -n "$e_short" ] && [ "$((e_long - e_short))" = "$((72 * ${#long}))" ]; then ok gif-estimate-flat
else fail gif-estimate-flat "100000 frames: ${e_long:-none} bytes, 80 frames: ${e_short:-none}"; fi
echo '{"grid":{"width":64,"height":48},"solver":{"type":"spectral"},"boundary":"absorb","absorb_width":4096}' > "$T/spec-wide.json"
RIPPLERENDER_MEM_LIMIT=1G refused spectral-pad-refused "of them the spectral solver's padded domain (absorb_width 4096)" "$T/spec-wide.json" -o "$T/r/a.npy"
echo '{"grid":{"width":4096,"height":4096},"time":{"frames":30}}' > "$T/x264-big.json"
RIPPLERENDER_MEM_LIMIT=2G refused libx264-lookahead-refused "of them the libx264 encoder's 36 frames in flight" "$T/x264-big.json" -o "$T/r/a.mp4" -j 2

# --- the scene size cap: at most 64 MiB + 1 bytes are read ----------------------------------------
refused scene-dev-zero '/dev/zero: larger than 67108864 bytes (64 MiB), the limit of a scene file' /dev/zero -o "$T/r/a.npy"
truncate -s 65M "$T/huge.json"
refused scene-too-large 'huge.json: larger than 67108864 bytes' "$T/huge.json" -o "$T/r/a.npy"
RIPPLERENDER_MEM_LIMIT=100M refused scene-text-over-budget 'big.json: 8000010 bytes of scene text need about' "$T/big.json" -o "$T/r/a.npy"
# --set's values are scene text too, parsed as the file is: 15 of 120 kB
# each (1.8 MB, as much as a command line holds) once peaked at 79 MB
# under a limit of 20 MB, refused only after their parse.
echo '{"grid":{"width":64,"height":48},"time":{"frames":1}}' > "$T/small.json"
V=$(python3 -c 'print("[" + ",".join(["0"] * 60000) + "]")')
set --; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do set -- "$@" --set "drops=$V"; done
RIPPLERENDER_MEM_LIMIT=100M refused set-text-over-budget 'small.json and its --set values: 1800159 bytes of scene text need about' "$T/small.json" "$@" -o "$T/r/a.npy"
set --

# --- a thread that cannot be created is a run-time failure (exit 1), not a bad scene ---------------
# As user nobody with at most one process (ulimit -u 1): the encoder's threads (-j 2) cannot start.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    mkdir -p "$T/np"; chmod 777 "$T/np"; chmod 755 "$T"
    echo '{"grid":{"width":64,"height":48},"time":{"frames":3}}' > "$T/np/s.json"; chmod 644 "$T/np/s.json"
    for ext in mp4 npy; do
        # (LeakSanitizer needs a thread of its own at exit: off here.)
        ASAN_OPTIONS=detect_leaks=0 setpriv --reuid=65534 --regid=65534 --clear-groups bash -c \
            "ulimit -u 1; exec '$RR' '$T/np/s.json' -o '$T/np/u.$ext' -j 2 -q" 2> "$T/err"; s=$?
        if [ "$s" -eq 1 ] && one_line "$T/err" && [ ! -e "$T/np/u.$ext" ]; then ok "no-thread-is-runtime-$ext"
        else fail "no-thread-is-runtime-$ext" "status $s, message: $(cat "$T/err")"; fi
    done
else
    echo "skip no-thread-is-runtime: needs root and setpriv"
fi

# --hash without -o writes nothing: the scene's output.path (a video here)
# holds no memory, so its encoder's frames in flight are not counted.
small_scene "$T/nohash.json"
set -- "$T/nohash.json" -s output.path='"v.mp4"'
with_sink=$(estimate "$@" -o "$T/v.mp4")
hash_only=$(estimate "$@" --hash)
cond hash-only-no-encoder '[ -n "$hash_only" ] && [ -n "$with_sink" ] && [ "$hash_only" -lt "$with_sink" ]'
RIPPLERENDER_MEM_LIMIT=$((hash_only + 1)) "$RR" "$@" --hash -j 2 -q > "$T/h" 2> "$T/err"; s=$?
cond hash-only-runs '[ $s -eq 0 ] && [ "$(wc -l < "$T/h")" -eq 10 ] && [ ! -e v.mp4 ]'

# The scene's sources are counted: a drop is a few bytes of text but a
# struct in the scene and in the sources (SOURCE_BYTES), and a resolved
# scene of cJSON nodes when the run records it (--save-state, --manifest:
# RESOLVED_SOURCE_BYTES). Before, neither was: 3 million drops in a 42 MB
# scene passed the check and a --save-state run died 'state: out of
# memory' (status 1) after the parse; 300000 drops peaked at 395 MB
# (--hash) and 667 MB (--save-state) beside an estimate of 348 MB.
python3 -c 'import json,sys; json.dump({"grid":{"width":64,"height":48},"time":{"frames":1},
"drops":[{"x":i%64,"y":i//64%48} for i in range(300000)]}, sys.stdout, separators=(",",":"))' > "$T/drops.json"
RIPPLERENDER_MEM_LIMIT=500M "$RR" "$T/drops.json" -q --hash --save-state "$T/drops-st" > /dev/null 2> "$T/err"; s=$?
cond drops-refused-naming-drops '[ $s -eq 2 ] && one_line "$T/err" && grep -q "^ripplerender: .*drops.json:1:[0-9]*: drops: 300000 drops with a 64 x 48 grid need about [0-9]* bytes, more than the limit of 524288000 bytes (raise it with RIPPLERENDER_MEM_LIMIT, e.g. RIPPLERENDER_MEM_LIMIT=[0-9]*M); [0-9]* of them the scene.s 300000 sources$" "$T/err" && [ ! -e "$T/drops-st" ]'
# Rain and a loop's copies add drops to the plan up to 2000000 in all
# (sources.c's MAX_DROPS); a scene with more drops of its own (counted by
# the budget) may add none. Its drops past the limit once let the copies
# grow unchecked: 2000001 drops in a loop of 2 frames with a preroll of 7
# periods planned 16 million.
python3 -c 'import sys; sys.stdout.write("{\"time\":{\"frames\":2,\"loop\":true,\"preroll\":0.5},\"solver\":{\"damping\":0.01},\"drops\":[" + ",".join(["{}"] * 2000001) + "]}")' > "$T/loopdrops.json"
"$RR" "$T/loopdrops.json" -q --hash > /dev/null 2> "$T/err"; s=$?
cond loop-copies-past-max-drops-refused '[ $s -eq 2 ] && one_line "$T/err" && grep -q "^ripplerender: .*loopdrops.json:1:[0-9]*: drops: more than 2000000 drops planned (rain and loop copies included)$" "$T/err"'
if ! asan_build && [ -x /usr/bin/time ]; then
    # The text's 72 bytes a byte bound the densest JSON, a value every two
    # bytes; these drops hold one every seven: a plain run peaks at about a
    # third of the estimate.
    MAXPCT=320 budget drops-300k-hash "$T/drops.json" --hash
    budget drops-300k-save-state "$T/drops.json" --hash --save-state "$T/drops-st" -y
    # Only a run that saves or loads checkpoints makes the resolved scene
    # (state.c's simulated_scene: printed, parsed, hashed), about 1 KB a
    # drop: a plain run peaks under half of a --save-state run.
    ph=$(peak "$T/drops.json" --hash); ps=$(peak "$T/drops.json" --hash --save-state "$T/drops-st" -y)
    echo "drops 300k: peak $ph bytes with --hash, $ps with --save-state"
    cond drops-plain-run-makes-no-resolved-scene '[ $((ph * 2)) -lt "$ps" ]'
fi

finish

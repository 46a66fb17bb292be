# Steps fused across frames with an output (src/batch.h, sink_fuses): a NUT
# rgb24 stream (-o - with output.format nut) or a .npy at grid size of at
# least 2048 x 2048 cells gets its frames drawn by batches into the
# writer's ring. Its bytes must be the frame-by-frame run's (--probes keeps
# a run frame by frame): elias, flow and wave, 1 and 2 steps a frame, -j1
# and -j2, with a wall and a drop between frames, and with --range and
# --chunk; the outputs that do not fuse (y4m, PNG, mp4, a smaller grid, a
# scaled render, a solver without fused passes) go frame by frame
# (RIPPLERENDER_DEBUG=kernels says which); RIPPLERENDER_FUSE=on fuses every
# kind that draws by rows, with the bytes of RIPPLERENDER_FUSE=off; a memory limit with no room for
# two frames in the ring goes frame by frame with the same bytes; an
# interrupt inside a batch leaves the frames handed over so far, whole.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

cat > "$T/a.json" <<'JSON'
{ "grid": { "width": 2049, "height": 2048, "cell_size": 0.01 }, "time": { "fps": 30, "frames": 6 },
  "boundary": "fixed", "render": { "mode": "shaded" },
  "obstacles": [ { "type": "rect", "x": 900, "y": 300, "width": 7, "height": 410 } ],
  "probes": [ { "x": 20, "y": 20 } ],
  "drops": [ { "x": 500, "y": 600, "radius": 6, "amplitude": -1 },
             { "time": 0.0823, "x": 1500, "y": 800, "radius": 4, "amplitude": 0.8 } ] }
JSON
fused() { grep -q "frames in batches of up to [0-9]*: .*into the writer's ring" "$1"; }
nut="-o - -s output.format=nut"
# The scene as it is, frame by frame: the references below.
# shellcheck disable=SC2086
"$RR" "$T/a.json" $nut --probes "$T/p.csv" -y -q > "$T/ref.nut"
"$RR" "$T/a.json" -o "$T/ref.npy" --probes "$T/p.csv" -y -q
for solver in elias flow "wave -s solver.speed=0.2"; do
    for spf in 1 2; do
        for j in 1 2; do
            [ "$spf" = 2 ] && [ "$j" = 1 ] && continue
            nm="$(echo "$solver" | cut -d' ' -f1)-spf$spf-j$j"
            # shellcheck disable=SC2086
            set -- "$T/a.json" -s solver.type=$solver -s time.steps_per_frame=$spf -j$j
            # shellcheck disable=SC2086
            RIPPLERENDER_DEBUG=kernels "$RR" "$@" $nut > "$T/f.nut" 2> "$T/err"
            check "nut-fused-$nm" fused "$T/err"
            # shellcheck disable=SC2086
            RIPPLERENDER_DEBUG=kernels "$RR" "$@" $nut --probes "$T/p.csv" -y > "$T/p.nut" 2> "$T/err2"
            cond "nut-probes-by-frame-$nm" '! fused "$T/err2"'
            cond "nut-same-bytes-$nm" '[ -s "$T/f.nut" ] && cmp -s "$T/f.nut" "$T/p.nut"'
            RIPPLERENDER_DEBUG=kernels "$RR" "$@" -o "$T/f.npy" -y 2> "$T/err"
            check "npy-fused-$nm" fused "$T/err"
            "$RR" "$@" -o "$T/p.npy" --probes "$T/p.csv" -y -q
            cond "npy-same-bytes-$nm" '[ -s "$T/f.npy" ] && cmp -s "$T/f.npy" "$T/p.npy"'
        done
    done
done

# --hash beside a fused sink: the batch's hashes, and the stream's frames.
"$RR" "$T/a.json" -o "$T/h.npy" --hash -y -q > "$T/h"
"$RR" "$T/a.json" --hash -q > "$T/h2"
check "hash-beside-npy" cmp -s "$T/h" "$T/h2"
check "npy-with-hash-same-bytes" cmp -s "$T/h.npy" "$T/ref.npy"
if command -v ffmpeg > /dev/null; then
    # shellcheck disable=SC2086
    "$RR" "$T/a.json" $nut -q | ffmpeg -v error -f nut -i - -f framemd5 - | awk -F', *' '/^0,/ { print $2 + 0, $6 }' > "$T/s"
    check "nut-frames-are-hash" cmp -s "$T/s" "$T/h2"
else
    echo "skip nut-frames-are-hash: no ffmpeg"
fi

# --range and --chunk: the frames before are fast-forwarded, the range's fused.
for r in "--range 2-4" "--chunk 1/2"; do
    nm=$(echo "$r" | tr -d ' -' | tr / o)
    # shellcheck disable=SC2086
    RIPPLERENDER_DEBUG=kernels "$RR" "$T/a.json" $r -o "$T/r.npy" -y 2> "$T/err"
    check "fused-$nm" fused "$T/err"
    # shellcheck disable=SC2086
    "$RR" "$T/a.json" $r -o "$T/rp.npy" --probes "$T/p.csv" -y -q
    cond "same-bytes-$nm" '[ -s "$T/r.npy" ] && cmp -s "$T/r.npy" "$T/rp.npy"'
done

# Outputs that do not fuse: their writer costs more than the frame loop
# (docs/performance.md), a grid under 2048 x 2048, a scaled render, a
# solver without fused passes, checkpoints.
notfused() {
    nm=$1; shift
    RIPPLERENDER_DEBUG=kernels "$RR" "$@" -s time.frames=2 -y > /dev/null 2> "$T/err"; s=$?
    cond "by-frame-$nm" '[ $s -eq 0 ] && grep -q "threads: frame loop on 1 beside the writer" "$T/err" && ! fused "$T/err"'
}
notfused y4m "$T/a.json" -o -
notfused nut-yuv444p "$T/a.json" $nut -s output.pix_fmt=yuv444p
notfused png "$T/a.json" -o "$T/f%02d.png"
notfused mp4 "$T/a.json" -o "$T/a.mp4" -s output.preset=ultrafast
notfused small-grid "$T/a.json" -s grid.width=2047 -o "$T/s.npy"
notfused scaled "$T/a.json" -s render.width=1024 -s render.height=1024 $nut
notfused spectral "$T/a.json" -s solver.type=spectral -o "$T/s.npy"
notfused save-state "$T/a.json" -o "$T/s.npy" --save-state "$T/st" --state-every 2

# RIPPLERENDER_FUSE=on fuses every output kind at any size, for measuring
# (make bench): its bytes are those of RIPPLERENDER_FUSE=off, frame by
# frame, for every kind that draws by rows; .exr (float pictures) and
# 16-bit PNG stay frame by frame; any other value is refused.
cat > "$T/b.json" <<'JSON'
{ "grid": { "width": 203, "height": 117 }, "time": { "fps": 30, "frames": 12 },
  "boundary": "fixed", "render": { "mode": "shaded" },
  "obstacles": [ { "type": "rect", "x": 90, "y": 30, "width": 7, "height": 41 } ],
  "drops": [ { "x": 50, "y": 60, "radius": 6, "amplitude": -1 },
             { "time": 0.17, "x": 150, "y": 80, "radius": 4, "amplitude": 0.8 } ] }
JSON
for o in "on/f%02d.png" on/a.gif on/a.mp4 on/a.npy on/a.framemd5 -; do
    for v in on off; do
        mkdir -p "$T/$v"
        RIPPLERENDER_FUSE=$v RIPPLERENDER_DEBUG=kernels "$RR" "$T/b.json" -o "$(echo "$o" | sed "s|^on/|$T/$v/|")" -y \
            > "$T/$v/stdout" 2> "$T/err-$v"
    done
    nm=$(basename "$o" | tr -d '%')
    cond "on-fused-$nm" 'fused "$T/err-on" && ! fused "$T/err-off"'
    cond "on-same-bytes-$nm" 'diff -r "$T/on" "$T/off" > /dev/null && [ -n "$(ls "$T/on")" ]'
    rm -rf "$T/on" "$T/off"
done
for o in "$T/e%02d.exr -s render.mode=height" "$T/p%02d.png -s output.bit_depth=16"; do
    # shellcheck disable=SC2086
    RIPPLERENDER_FUSE=on RIPPLERENDER_DEBUG=kernels "$RR" "$T/b.json" -o $o -y 2> "$T/err"; s=$?
    cond "on-by-frame-$(basename "$o" | cut -d' ' -f1 | tr -d '%')" '[ $s -eq 0 ] && ! fused "$T/err"'
done
RIPPLERENDER_FUSE=yes "$RR" "$T/b.json" -o "$T/x.npy" 2> "$T/err"; s=$?
cond "fuse-env-refused" '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: RIPPLERENDER_FUSE=yes: expected auto, on or off" ] && [ ! -e "$T/x.npy" ]'
# Checked with the environment, before the scene, as RIPPLERENDER_CACHE is:
# --print-scene too (a script's typo found at once).
RIPPLERENDER_FUSE=yes "$RR" "$T/b.json" --print-scene > "$T/ps.out" 2> "$T/err"; s=$?
cond "fuse-env-refused-print-scene" '[ $s -eq 2 ] && [ ! -s "$T/ps.out" ] && [ "$(cat "$T/err")" = "ripplerender: RIPPLERENDER_FUSE=yes: expected auto, on or off" ]'

# The memory budget: under a limit with no room for a second frame in the
# ring, frame by frame, the same bytes; the estimate ("need about N")
# counts the ring's 4 frames: 3 pictures more than frame by frame.
need() { RIPPLERENDER_MEM_LIMIT=$1 "$RR" "$T/a.json" $nut -q 2>&1 > /dev/null | sed -n 's/.*need about \([0-9]*\) bytes.*/\1/p'; }
t=$(need 1); n=$(need "$t")
pic=$((2049 * 2048 * 3))
# shellcheck disable=SC2086
RIPPLERENDER_MEM_LIMIT=$((n - 2 * pic - 1)) RIPPLERENDER_DEBUG=kernels "$RR" "$T/a.json" $nut > "$T/l.nut" 2> "$T/err"; s=$?
cond "budget-no-room-by-frame" '[ -n "$n" ] && [ $s -eq 0 ] && ! fused "$T/err" && cmp -s "$T/l.nut" "$T/ref.nut"'
# shellcheck disable=SC2086
RIPPLERENDER_MEM_LIMIT=$((n - pic)) RIPPLERENDER_DEBUG=kernels "$RR" "$T/a.json" $nut > "$T/l.nut" 2> "$T/err"
cond "budget-room-for-3" 'grep -q "frames in batches of up to 3: .*into the writer" "$T/err" && cmp -s "$T/l.nut" "$T/ref.nut"'
# shellcheck disable=SC2086
RIPPLERENDER_MEM_LIMIT=$n RIPPLERENDER_DEBUG=kernels "$RR" "$T/a.json" $nut > "$T/l.nut" 2> "$T/err"
cond "budget-room-for-4" 'grep -q "frames in batches of up to 4: .*into the writer" "$T/err" && cmp -s "$T/l.nut" "$T/ref.nut"'
# shellcheck disable=SC2086
RIPPLERENDER_MEM_LIMIT=$((n - 3 * pic - 1)) "$RR" "$T/a.json" $nut > /dev/null 2> "$T/err"; s=$?
cond "budget-refused-names-fused-need" '[ $s -eq 2 ] && grep -q "need about $n bytes" "$T/err"'

# An interrupt inside a batch: the frames handed to the writer are whole in
# the .npy, the rest dropped, and they are the first frames of the full run.
"$RR" "$T/a.json" -s time.frames=400 -o "$T/i.npy" --hash -y -q > "$T/ih" 2> "$T/err" &
pid=$!
frames_done "$T/ih" "$pid" 6
kill -INT "$pid"; wait "$pid"; s=$?
k=$(wc -l < "$T/ih")
python3 - "$T/i.npy" "$T/ref.npy" "$k" > "$T/npy" 2>&1 <<'EOF'
import ast, sys
def load(p):
    b = open(p, 'rb').read()
    n = int.from_bytes(b[8:10], 'little')
    h = ast.literal_eval(b[10:10 + n].decode())
    return h['shape'], b[10 + n:]
(si, di), (sf, df) = load(sys.argv[1]), load(sys.argv[2])
k = int(sys.argv[3])
frame = si[1] * si[2] * 4
ok = si[0] == k and len(di) == k * frame and di[:min(k, sf[0]) * frame] == df[:min(k, sf[0]) * frame]
print("ok" if ok else "bad: shape %s, %d bytes, %d frames hashed" % (si, len(di), k))
EOF
cond "interrupt-status" '[ $s -eq 130 ] && grep -q "^ripplerender: interrupted after" "$T/err"'
cond "interrupt-whole-frames" '[ "$k" -ge 6 ] && [ "$k" -lt 400 ] && [ "$(cat "$T/npy")" = ok ]'
finish

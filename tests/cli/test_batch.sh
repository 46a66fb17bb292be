# Frames by batches of steps fused across frames (src/batch.h): a frame loop
# with no sink (--hash, --check) and a mode that draws by rows renders each
# frame's rows as sim_advance_frames hands them out. Its frames must be the
# frame-by-frame path's bit for bit: --hash against the .framemd5 sink
# (which goes frame by frame, through the pipeline) on an odd grid with a
# wall and a drop between frames, for elias, flow and wave, 1 to 3 steps a
# frame, -j1 and -j2; a blow-up inside a batch prints the same frames and
# fails with the same message and status as frame by frame (--probes keeps
# a run frame by frame); --save-state and a sink go frame by frame
# (RIPPLERENDER_DEBUG=kernels says which). --range's frames before the first
# (simulated, not drawn) fuse too and give the same frames.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

cat > "$T/a.json" <<'JSON'
{ "grid": { "width": 203, "height": 117, "cell_size": 0.01 }, "time": { "fps": 30, "frames": 40 },
  "boundary": "fixed", "render": { "mode": "shaded" },
  "obstacles": [ { "type": "rect", "x": 90, "y": 30, "width": 7, "height": 41 } ],
  "probes": [ { "x": 20, "y": 20 } ],
  "drops": [ { "x": 50, "y": 60, "radius": 6, "amplitude": -1 },
             { "time": 0.4123, "x": 150, "y": 80, "radius": 4, "amplitude": 0.8 } ] }
JSON
batched() { grep -q "frames in batches of" "$1"; }
# The .framemd5 sink's lines as --hash prints them: "frame md5".
sink_hashes() { awk -F', *' '/^0,/ { print $2 + 0, $6 }' "$1"; }
for solver in elias flow "wave -s solver.speed=0.2"; do
    for spf in 1 2 3; do
        for j in 1 2; do
            name="$(echo "$solver" | cut -d' ' -f1)-spf$spf-j$j"
            # shellcheck disable=SC2086
            set -- "$T/a.json" -s solver.type=$solver -s time.steps_per_frame=$spf -j$j
            RIPPLERENDER_DEBUG=kernels "$RR" "$@" --hash > "$T/h" 2> "$T/err"
            check "batched-$name" batched "$T/err"
            RIPPLERENDER_DEBUG=kernels "$RR" "$@" -o "$T/a.framemd5" -y -q 2> "$T/err2"
            cond "sink-by-frame-$name" '! batched "$T/err2"'
            sink_hashes "$T/a.framemd5" > "$T/s"
            check "same-frames-$name" cmp -s "$T/h" "$T/s"
        done
    done
done

# A blow-up at a frame inside a batch: a drop of 9e5 over a disc at frame 9
# makes heights of about 1.8e6 a step later (beyond the limit of 1e6).
for j in 1 2; do
    set -- "$T/a.json" -s 'drops=[{"frame": 9, "x": 100, "y": 60, "radius": 5, "amplitude": 900000}]' -j$j
    RIPPLERENDER_DEBUG=kernels "$RR" "$@" --hash > "$T/h" 2> "$T/err"; s=$?
    "$RR" "$@" --hash --probes "$T/p.csv" > "$T/h2" 2> "$T/err2"; s2=$?
    check "blow-up-batched-j$j" batched "$T/err"
    cond "blow-up-status-j$j" '[ $s -eq $s2 ] && [ $s -ne 0 ]'
    grep -v "^ripplerender: kernels:" "$T/err" > "$T/err1"
    check "blow-up-message-j$j" cmp -s "$T/err1" "$T/err2"
    check "blow-up-frames-j$j" cmp -s "$T/h" "$T/h2"
    cond "blow-up-after-frame-9-j$j" '[ "$(wc -l < "$T/h")" -ge 10 ] && grep -q "^ripplerender: frame 1[0-9]: the simulation blew up" "$T/err2"'
done

# --range: the frames before are simulated by sim_advance_frames without
# drawing (src/state.c), fused across frames too: the same frames.
for spf in 1 3; do
    "$RR" "$T/a.json" -s time.steps_per_frame=$spf --hash > "$T/h" 2> /dev/null
    "$RR" "$T/a.json" -s time.steps_per_frame=$spf --range 27-33 --hash > "$T/h2" 2> /dev/null
    sed -n '28,34p' "$T/h" > "$T/h1"
    cond "range-same-frames-spf$spf" '[ -s "$T/h2" ] && cmp -s "$T/h1" "$T/h2"'
done
# A blow-up while fast-forwarding names its frame.
"$RR" "$T/a.json" -s 'drops=[{"frame": 9, "x": 100, "y": 60, "radius": 5, "amplitude": 900000}]' \
    --range 30-31 --hash > "$T/h" 2> "$T/err"; s=$?
cond "range-blow-up" '[ $s -ne 0 ] && [ ! -s "$T/h" ] && grep -q "^ripplerender: frame 10: the simulation blew up" "$T/err"'

# --save-state: checkpoints read the simulation at their frame: frame by frame.
RIPPLERENDER_DEBUG=kernels "$RR" "$T/a.json" --hash --save-state "$T/st" > "$T/h" 2> "$T/err"
cond "save-state-by-frame" '! batched "$T/err"'
"$RR" "$T/a.json" --hash > "$T/h2" 2> /dev/null
check "save-state-same-frames" cmp -s "$T/h" "$T/h2"

# The hashes of a batch, made side by side (src/md5lanes.h), as --check and
# --manifest use them: --check of the frame-by-frame sink's list passes; one
# with frame 21 (inside a batch) altered stops there with the frame-by-frame
# run's lines, message and status; --manifest records --hash's values.
"$RR" "$T/a.json" -o "$T/a.framemd5" -y -q
sink_hashes "$T/a.framemd5" > "$T/s"
RIPPLERENDER_DEBUG=kernels "$RR" "$T/a.json" --check "$T/s" > "$T/out" 2> "$T/err"; s=$?
cond "check-batched" '[ $s -eq 0 ] && batched "$T/err" && [ ! -s "$T/out" ]'
"$RR" "$T/a.json" --hash > "$T/h" 2> /dev/null
check "hash-same-as-sink" cmp -s "$T/h" "$T/s"
awk '$1 == 21 { $2 = "0123456789abcdef0123456789abcdef" } { print }' "$T/s" > "$T/bad"
RIPPLERENDER_DEBUG=kernels "$RR" "$T/a.json" --hash --check "$T/bad" > "$T/h" 2> "$T/err"; s=$?
"$RR" "$T/a.json" --hash --check "$T/bad" --probes "$T/p.csv" -y > "$T/h2" 2> "$T/err2"; s2=$?
grep -v "^ripplerender: kernels:" "$T/err" > "$T/err1"
cond "check-mismatch-batched" 'batched "$T/err" && [ $s -eq 3 ] && [ $s2 -eq 3 ]'
check "check-mismatch-message" cmp -s "$T/err1" "$T/err2"
cond "check-mismatch-names-frame-21" 'grep -q "frame 21 differs: expected 0123456789abcdef0123456789abcdef, got $(awk '"'"'$1 == 21 { print $2 }'"'"' "$T/s")" "$T/err2"'
cond "check-mismatch-lines" 'cmp -s "$T/h" "$T/h2" && [ "$(wc -l < "$T/h")" -eq 22 ]'
touch "$T/stamp"
"$RR" "$T/a.json" --manifest "$T/m.json" -o "$T/m.framemd5" -y > /dev/null 2>&1
# a test writes under $T only: never the clone's out/ (a user's render there)
check "manifest-run-leaves-out-alone" [ -z "$(find out -newer "$T/stamp" 2>/dev/null)" ]
python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
for f in m["frames"]: print(f["frame"], f["md5"])' "$T/m.json" > "$T/mh"
check "manifest-same-hashes" cmp -s "$T/mh" "$T/s"

# A renderer that does not draw by rows (here scaled 2x) renders a batch's
# frames one at a time and hashes them together: the sink's frames, and a
# blow-up or a --check mismatch inside a batch as frame by frame (--probes).
set -- "$T/a.json" -s render.width=406 -s render.height=234
RIPPLERENDER_DEBUG=kernels "$RR" "$@" --hash > "$T/h" 2> "$T/err"
cond "scaled-hashed-in-batches" 'grep -q "frames rendered one at a time, hashed in batches of up to 16" "$T/err"'
"$RR" "$@" -o "$T/a.framemd5" -y -q
sink_hashes "$T/a.framemd5" > "$T/s"
cond "scaled-same-frames" '[ "$(wc -l < "$T/h")" -eq 40 ] && cmp -s "$T/h" "$T/s"'
awk '$1 == 21 { $2 = "0123456789abcdef0123456789abcdef" } { print }' "$T/s" > "$T/bad"
"$RR" "$@" --hash --check "$T/bad" > "$T/h" 2> "$T/err"; s=$?
"$RR" "$@" --hash --check "$T/bad" --probes "$T/p.csv" -y > "$T/h2" 2> "$T/err2"; s2=$?
cond "scaled-check-mismatch" '[ $s -eq 3 ] && [ $s2 -eq 3 ] && cmp -s "$T/err" "$T/err2" && cmp -s "$T/h" "$T/h2" && [ "$(wc -l < "$T/h")" -eq 22 ]'
set -- "$@" -s 'drops=[{"frame": 9, "x": 100, "y": 60, "radius": 5, "amplitude": 900000}]'
"$RR" "$@" --hash > "$T/h" 2> "$T/err"; s=$?
"$RR" "$@" --hash --probes "$T/p.csv" -y > "$T/h2" 2> "$T/err2"; s2=$?
cond "scaled-blow-up" '[ $s -ne 0 ] && [ $s -eq $s2 ] && cmp -s "$T/err" "$T/err2" && cmp -s "$T/h" "$T/h2" && [ "$(wc -l < "$T/h")" -ge 10 ]'
# Pictures of 406 x 234 x 3 bytes in what the memory limit leaves beside the
# run's need (the refusal under a tiny limit states the need with a full
# batch of 16, budget_batch_frames): 4 make a batch of 4, 3 (fewer than
# BATCH_MIN_LANES) go frame by frame; the frames the same.
set -- "$T/a.json" -s render.width=406 -s render.height=234
need=$(RIPPLERENDER_MEM_LIMIT=40000 "$RR" "$@" --hash 2>&1 | sed -n 's/.* need about \([0-9]*\) bytes.*/\1/p')
RIPPLERENDER_DEBUG=kernels RIPPLERENDER_MEM_LIMIT=$((need - 12 * 285012)) "$RR" "$@" --hash > "$T/h" 2> "$T/err"
cond "scaled-batch-of-4" '[ -n "$need" ] && grep -q "hashed in batches of up to 4\$" "$T/err" && cmp -s "$T/h" "$T/s"'
RIPPLERENDER_DEBUG=kernels RIPPLERENDER_MEM_LIMIT=$((need - 12 * 285012 - 1)) "$RR" "$@" --hash > "$T/h" 2> "$T/err"
cond "scaled-3-by-frame" '[ -n "$need" ] && ! grep -q "hashed in batches" "$T/err" && cmp -s "$T/h" "$T/s"'

# Shrunk more than twice (37x23 to 10x10 and 18x11), libswscale reads the
# unwritten bytes past each grid row (the rows are 64-byte aligned) and its
# result depends on them: the frames are the same run after run and the
# sink's under --hash (whose renderer's buffers come from reused heap).
cat > "$T/s.json" <<'JSON'
{ "grid": { "width": 37, "height": 23 }, "time": { "fps": 10, "frames": 6, "steps_per_frame": 2 },
  "boundary": "fixed", "obstacles": [ { "type": "rect", "x": 5, "y": 5, "width": 3, "height": 4 } ],
  "drops": [ { "x": 10, "y": 10, "radius": 3, "amplitude": -1 } ],
  "render": { "mode": "colormap", "range": [-0.5, 0.5] } }
JSON
for size in 10x10 18x11; do
    set -- "$T/s.json" -s render.width="${size%x*}" -s render.height="${size#*x}"
    "$RR" "$@" -o "$T/s.framemd5" -y -q
    sink_hashes "$T/s.framemd5" > "$T/s"
    same=0
    for k in 1 2 3; do
        "$RR" "$@" --hash > "$T/h" 2> /dev/null && cmp -s "$T/h" "$T/s" && same=$((same + 1))
    done
    cond "shrunk-$size-same-frames" '[ $same -eq 3 ] && [ "$(wc -l < "$T/s")" -eq 6 ]'
done

# A stop signal inside a batch: the batch ends after the frame being made
# (src/batch.h), and the run prints only whole frames' true hashes, and
# says how many: N lines, "interrupted after N of ...", the lines the same
# as an uninterrupted run's first N. Both kinds of batch: steps fused across
# frames (drawn by rows) and frames rendered one at a time (scaled).
small_scene "$T/st.json"
for kind in rows scaled; do
    scaled=; [ $kind = scaled ] && scaled="-s render.width=128 -s render.height=96"
    set -- "$T/st.json" -s grid.width=256 -s grid.height=192 -s time.steps_per_frame=40 --hash -q $scaled
    rm -f "$T/stop.hash" "$T/stop.err"   # frames_done must not count the last kind's lines
    "$RR" "$@" -f 1000000 > "$T/stop.hash" 2> "$T/stop.err" & pid=$!
    frames_done "$T/stop.hash" $pid 20
    kill -INT $pid; wait $pid; s=$?
    n=$(wc -l < "$T/stop.hash")
    cond "stop-$kind-status" '[ $s -eq 130 ] && [ $n -ge 20 ]'
    cond "stop-$kind-says-how-many" '[ "$(cat "$T/stop.err")" = "ripplerender: interrupted after $n of 1000000 frames; nothing holds the frames so far" ]'
    "$RR" "$@" -f "$n" > "$T/full.hash"
    check "stop-$kind-true-hashes" cmp -s "$T/full.hash" "$T/stop.hash"
done

finish

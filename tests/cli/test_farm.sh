# Command-line tests of frame ranges, chunks and checkpoints (docs/farm.md):
# for every solver, every edge kind and every source kind, the --hash lines
# of a whole run equal those of its chunks put together and those of a run
# restarted from one of its checkpoints, on one thread and on two; the
# outputs of a range (PNG names, video timestamps, .npy, manifest); the
# Slurm and Kubernetes variables; every refusal.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

# scene FILE SOLVER EDGES SOURCES: a 12-frame scene of 40 x 32 cells with a
# wall. SOURCES "all": drops (add and set, at frames 0 and 5), rain, a point
# and a line oscillator, a mover and an initial wave; "drops": the drops
# only, so that the steps between them run fused (solver_ops.advance);
# "preroll": all of them after 0.3 s of warm-up (time.preroll); "loop": all
# of them repeating (time.loop) after a warm-up of 0.5 s.
scene() {
    case $2 in
    elias8) sv='{ "type": "elias", "neighbors": 8, "damping": 0.995 }' ;;
    spring) sv='{ "type": "spring", "blend": 0.8 }' ;;
    wave) sv='{ "type": "wave", "speed": 0.02, "half_life": 2 }' ;;
    *) sv="{ \"type\": \"$2\" }" ;;
    esac
    case $3 in
    mixed) edges='{ "left": "absorb", "right": "clamp", "top": "wrap", "bottom": "wrap", "absorb_width": 4 }' ;;
    *) edges="\"$3\"" ;;
    esac
    more='' time=''
    case $4 in preroll) time=', "preroll": 0.3' ;; loop) time=', "preroll": 0.5, "loop": true' ;; esac
    [ "$4" != drops ] && more=',
  "rain": { "rate": 40, "seed": 11, "radius": [1, 2.5], "shape": "gaussian" },
  "oscillators": [ { "x": 8, "y": 24, "frequency": 5, "amplitude": 0.3, "end": 0.25 },
                   { "from": [2, 2], "to": [2, 12], "frequency": 4, "amplitude": 0.2, "shape": "cosine" } ],
  "movers": [ { "path": [[0, 5, 5], [0.3, 30, 20]], "radius": 2, "amplitude": -0.1 } ],
  "initial": [ { "type": "wave", "wavelength": 10, "angle": 30, "amplitude": 0.2 } ]'
    cat > "$1" <<EOF
{ "grid": { "width": 40, "height": 32 },
  "time": { "frames": 12, "steps_per_frame": "auto"$time },
  "solver": $sv,
  "boundary": $edges,
  "obstacles": [ { "type": "rect", "x": 20, "y": 4, "width": 2, "height": 10 } ],
  "drops": [ { "x": 12, "y": 14, "radius": 3, "amplitude": 1 },
             { "frame": 5, "x": 28, "y": 22, "radius": 2, "amplitude": -0.5, "mode": "set" } ]$more,
  "render": { "mode": "colormap", "range": [-0.3, 0.3] } }
EOF
}

# The heights are compared too (the frames' pictures could hide a difference
# in the low bits): the float32 data of the .npy outputs, after their
# 128-byte headers.
# One scene through whole, chunked and restarted runs; the -j of the pieces
# is the other one than the whole run's.
n=0
for solver in elias elias8 flow spring wave spectral; do
    for case in fixed/all clamp/all wrap/all absorb/all mixed/all fixed/drops absorb/preroll mixed/loop; do
        edges=${case%/*} sources=${case#*/}
        n=$((n + 1)); ja=$((1 + n % 2)) jb=$((2 - n % 2))
        id="$solver-$edges-$sources"
        s="$T/$id.json" d="$T/$id.st"
        scene "$s" "$solver" "$edges" "$sources"
        "$RR" "$s" --hash -j$ja --save-state "$d" --state-every 5 -o "$T/whole.npy" -y > "$T/whole" 2> "$T/err" \
            || { fail "$id: whole run" "$(cat "$T/err")"; continue; }
        [ "$(wc -l < "$T/whole")" = 12 ] || fail "$id: whole run" "not 12 frames"
        tail -c +129 "$T/whole.npy" > "$T/whole.h"
        { "$RR" "$s" --hash -j$jb --chunk 0/2 -o "$T/c0.npy" -y && "$RR" "$s" --hash -j$jb --chunk 1/2 -o "$T/c1.npy" -y
        } > "$T/chunks" 2> "$T/err"
        check "$id: chunks 0/2 and 1/2 (-j$jb) = the whole run (-j$ja)" cmp -s "$T/whole" "$T/chunks"
        check "$id: ... the same heights, bit for bit" \
            sh -c "{ tail -c +129 '$T/c0.npy'; tail -c +129 '$T/c1.npy'; } | cmp -s - '$T/whole.h'"
        "$RR" "$s" --hash -j$jb --load-state "$d/state-000005.json" --range 7-11 -o "$T/m.npy" -y > "$T/restart" \
            2> "$T/err"
        check "$id: from the checkpoint of frame 5, frames 7-11 (-j$jb) = the whole run's" \
            sh -c "sed -n '8,12p' '$T/whole' | cmp -s - '$T/restart'"
        check "$id: ... the same heights, bit for bit" \
            sh -c "tail -c +129 '$T/m.npy' | cmp -s -i 0:$((7 * 40 * 32 * 4)) - '$T/whole.h'"
    done
done

# Moving walls (docs/scene.md, "Moving walls"): a rect and a circle with a
# motion and a looped mask sequence (three height pictures of a drop, made by
# ripplerender itself); the walls follow from the step, the water they pushed
# is in the checkpoint. elias on fixed edges runs the steps between wall
# moves fused.
"$RR" "$T/elias-fixed-drops.json" --range 0-2 -s render.mode=height -o "$T/wm_%02d.png" -y 2> "$T/err" \
    || fail "moving walls: masks" "$(cat "$T/err")"
for case in elias:fixed wave:absorb spectral:absorb; do
    solver=${case%:*} edges=${case#*:}
    id="walls-$solver-$edges" s="$T/walls-$solver-$edges.json" d="$T/walls-$solver-$edges.st"
    scene "$s" "$solver" "$edges" drops
    sed -i 's|"obstacles": \[.*\],|"obstacles": [ { "type": "rect", "x": 4, "y": 4, "width": 3, "height": 12, "push": 0.4,\
    "motion": [[0, 0, 0], [0.2, 20, 2], [0.35, 6, 10]] },\
  { "type": "circle", "x": 30, "y": 26, "radius": 3, "motion": [[0.1, 0, 0], [0.3, -8, -10.5]] },\
  { "type": "mask", "path": "wm_%02d.png", "threshold": 0.52, "repeat": "loop", "push": -0.2 } ],|' "$s"
    "$RR" "$s" --hash -j1 --save-state "$d" --state-every 5 -o "$T/whole.npy" -y > "$T/whole" 2> "$T/err" \
        || { fail "$id: whole run" "$(cat "$T/err")"; continue; }
    tail -c +129 "$T/whole.npy" > "$T/whole.h"
    { "$RR" "$s" --hash -j2 --chunk 0/2 && "$RR" "$s" --hash -j2 --chunk 1/2; } > "$T/chunks" 2> "$T/err"
    check "$id: chunks 0/2 and 1/2 = the whole run" cmp -s "$T/whole" "$T/chunks"
    "$RR" "$s" --hash -j2 --load-state "$d/state-000005.json" --range 7-11 -o "$T/m.npy" -y > "$T/restart" 2> "$T/err"
    check "$id: from the checkpoint of frame 5, frames 7-11 = the whole run's" \
        sh -c "sed -n '8,12p' '$T/whole' | cmp -s - '$T/restart'"
    check "$id: ... the same heights, bit for bit" \
        sh -c "tail -c +129 '$T/m.npy' | cmp -s -i 0:$((7 * 40 * 32 * 4)) - '$T/whole.h'"
    "$RR" "$s" --hash -s obstacles.0.push=0 -s obstacles.1.push=0 -s obstacles.2.push=0 > "$T/nopush"
    check "$id: push acts (the frames differ without it)" sh -c "! cmp -s '$T/whole' '$T/nopush'"
done

# Grids large enough for two threads to share the work (the spectral FFT
# passes from a 512 x 512 domain, the renderer's rows from 65536 cells).
for big in spectral:460:460 elias:300:240; do
    solver=${big%%:*} wh=${big#*:}
    s="$T/big-$solver.json" d="$T/big-$solver.st"
    cat > "$s" <<EOF
{ "grid": { "width": ${wh%:*}, "height": ${wh#*:} }, "time": { "frames": 5 }, "solver": { "type": "$solver" },
  "drops": [ { "x": 100, "y": 90, "radius": 6 } ], "rain": { "rate": 60, "seed": 2 },
  "render": { "mode": "colormap", "range": [-0.3, 0.3] } }
EOF
    "$RR" "$s" --hash -j1 --save-state "$d" --state-every 2 > "$T/whole"
    { "$RR" "$s" --hash -j2 --chunk 0/2 && "$RR" "$s" --hash -j2 --chunk 1/2; } > "$T/chunks"
    check "$solver ${wh%:*} x ${wh#*:}: chunks on two threads = the whole run on one" cmp -s "$T/whole" "$T/chunks"
    "$RR" "$s" --hash -j2 --load-state "$d/state-000002.json" > "$T/restart"
    check "$solver ${wh%:*} x ${wh#*:}: restarted on two threads = the whole run on one" \
        sh -c "sed -n '3,5p' '$T/whole' | cmp -s - '$T/restart'"
done

s="$T/farm.json"
scene "$s" spectral absorb all
"$RR" "$s" --hash > "$T/whole"

# --range: the frames' own numbers and hashes; chunks near-equal and contiguous.
"$RR" "$s" --hash --range 3-8 > "$T/r"
check "--range 3-8 prints frames 3 to 8 as the whole run does" sh -c "sed -n '4,9p' '$T/whole' | cmp -s - '$T/r'"
"$RR" "$s" --hash --range 11-11 > "$T/r"
check "--range 11-11: the last frame alone" sh -c "sed -n '12p' '$T/whole' | cmp -s - '$T/r'"
for k in 0 1 2 3 4; do "$RR" "$s" --hash --chunk $k/5; done > "$T/r"
check "--chunk K/5 for K = 0..4 = the whole run" cmp -s "$T/whole" "$T/r"
check "--chunk 2/5 is frames 4 to 6 (floor(K * 12 / 5) .. floor((K + 1) * 12 / 5) - 1)" \
    sh -c "'$RR' '$s' --hash --chunk=2/5 | cut -d' ' -f1 | tr '\n' ' ' | grep -qx '4 5 6 '"
check "--chunk inside --range: --range 2-9 --chunk 1/2 is frames 6 to 9" \
    sh -c "'$RR' '$s' --hash --range 2-9 --chunk 1/2 | cut -d' ' -f1 | tr '\n' ' ' | grep -qx '6 7 8 9 '"

# The environment of job arrays.
frames_of() { cut -d' ' -f1 | tr '\n' ' '; }
r=$(SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3 \
    "$RR" "$s" --hash --chunk | frames_of)
check "Slurm: SLURM_ARRAY_TASK_ID=2 of COUNT=4 is chunk 2/4 (frames 6-8)" [ "$r" = "6 7 8 " ]
r=$(SLURM_ARRAY_TASK_ID=9 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=13 SLURM_ARRAY_TASK_STEP=4 \
    "$RR" "$s" --hash --chunk | frames_of)
check "Slurm: --array=1-13:4, task 9 is chunk 2/4" [ "$r" = "6 7 8 " ]
r=$(SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=6 "$RR" "$s" --hash --chunk | frames_of)
check "Slurm: --array=1-6 without COUNT, task 4 is chunk 3/6" [ "$r" = "6 7 " ]
r=$(SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 "$RR" "$s" --hash --chunk /3 | frames_of)
check "Slurm: --chunk /3 overrides the count" [ "$r" = "4 5 6 7 " ]
r=$(JOB_COMPLETION_INDEX=3 "$RR" "$s" --hash --chunk /4 | frames_of)
check "Kubernetes: JOB_COMPLETION_INDEX=3 with --chunk /4 is frames 9-11" [ "$r" = "9 10 11 " ]
r=$(JOB_COMPLETION_INDEX=0 "$RR" "$s" --chunk /6 --hash | frames_of)
check "Kubernetes: --chunk /N before other options" [ "$r" = "0 1 " ]

# refused NAME PATTERN ARGS...: exit 2, one line on stderr matching PATTERN, no stdout.
refused() {
    name=$1 pat=$2; shift 2
    "$@" > "$T/out" 2> "$T/err"; rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q -- "$pat" "$T/err" && [ ! -s "$T/out" ]; then
        ok "$name"
    else
        fail "$name" "status $rc: $(cat "$T/err")"
    fi
}
refused "--range 5-3 refused" "--range 5-3: the first frame 5 is after the last 3" "$RR" "$s" --hash --range 5-3
refused "--range beyond the last frame refused" "--range 4-12: the scene has 12 frames, 0 to 11" \
    "$RR" "$s" --hash --range 4-12
refused "--range without a dash refused" "--range 4: expected A-B" "$RR" "$s" --hash --range 4
refused "--range with a sign refused" "--range -1-4: expected A-B" "$RR" "$s" --hash --range=-1-4
refused "--chunk 3/3 refused" "--chunk: task 3 of 3: the index must be less than the count" \
    "$RR" "$s" --hash --chunk 3/3
refused "--chunk 1/0 refused" "--chunk 1/0: expected K/N" "$RR" "$s" --hash --chunk=1/0
refused "--chunk x refused" "--chunk x/2: expected K/N" "$RR" "$s" --hash --chunk=x/2
refused "more chunks than frames refused" "--chunk: 13 chunks of 12 frames" "$RR" "$s" --hash --chunk 0/13
refused "--chunk without an index in the environment refused" "neither SLURM_ARRAY_TASK_ID.*nor JOB_COMPLETION_INDEX" \
    env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX "$RR" "$s" --hash --chunk
refused "JOB_COMPLETION_INDEX without a count refused" "JOB_COMPLETION_INDEX=1 gives no count: .*--chunk /N" \
    env JOB_COMPLETION_INDEX=1 "$RR" "$s" --hash --chunk
refused "JOB_COMPLETION_INDEX beyond the count refused" "task 5 of 4" \
    env JOB_COMPLETION_INDEX=5 "$RR" "$s" --hash --chunk /4
refused "a SLURM_ARRAY_TASK_ID that is not a number refused" "SLURM_ARRAY_TASK_ID=x: expected a whole number" \
    env SLURM_ARRAY_TASK_ID=x "$RR" "$s" --hash --chunk
refused "an irregular Slurm array refused" "SLURM_ARRAY_TASK_COUNT=3, but MIN=1 MAX=7" \
    env SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=7 \
    "$RR" "$s" --hash --chunk
refused "--state-every without --save-state refused" "--state-every 3: needs --save-state DIR" \
    "$RR" "$s" --hash --state-every 3
refused "--state-every 0 refused" "--state-every 0: expected a whole number" \
    "$RR" "$s" --hash --save-state "$T/x" --state-every 0

# Checkpoints: the files, their format, refusals.
d="$T/st"
"$RR" "$s" --hash --save-state "$d" --state-every 4 > /dev/null
check "--save-state --state-every 4: states of frames 4, 8 and the last, 11" \
    sh -c "cd '$d' && ls *.json | tr '\n' ' ' | grep -qx 'state-000004.json state-000008.json state-000011.json '"
check "a spectral state has cur, prev, last, pad-now and pad-before planes" \
    sh -c "cd '$d' && ls state-000004.* | tr '\n' ' ' | grep -qx 'state-000004.cur.npy state-000004.json state-000004.last.npy state-000004.pad-before.npy state-000004.pad-now.npy state-000004.prev.npy '"
check "no temporary file left beside the states" sh -c "! ls -A '$d' | grep -q tmp"
check "a plane is a float32 .npy of the grid's shape" \
    sh -c "head -c 80 '$d/state-000004.cur.npy' | grep -aq \"'descr': '<f4', 'fortran_order': False, 'shape': (32, 40)\""
check "the header holds the frame, the step and the scene's hash" \
    sh -c "grep -q '\"frame\":	4,' '$d/state-000004.json' && grep -q '\"scene_sha256\":' '$d/state-000004.json'"
"$RR" "$s" --hash --load-state "$d/state-000008.json" > "$T/r"
check "--load-state alone renders from the state's frame to the end" sh -c "sed -n '9,12p' '$T/whole' | cmp -s - '$T/r'"
refused "a state of another scene refused, naming the key" \
    "state-000004.json: made from a different scene: solver.viscosity is 1e-06 in the state, 2e-06 here" \
    "$RR" "$s" --hash --load-state "$d/state-000004.json" -s solver.viscosity=2e-6
refused "a state of other rain refused, naming the key" "rain.seed is 11 in the state, 12 here" \
    "$RR" "$s" --hash --load-state "$d/state-000004.json" -s rain.seed=12
"$RR" "$s" --hash --load-state "$d/state-000004.json" -s render.mode=height -o "$T/x.framemd5" > "$T/r" \
    2> "$T/err"
check "render and output keys do not change the state's scene" [ -s "$T/x.framemd5" ]
refused "a state after the range's first frame refused" "the state is of frame 8, after the first frame 5" \
    "$RR" "$s" --hash --load-state "$d/state-000008.json" --range 5-9
refused "a missing state refused" "--load-state $T/none.json: cannot read" \
    "$RR" "$s" --hash --load-state "$T/none.json"
echo '{ "a": 1 }' > "$T/bad.json"
refused "a JSON file that is not a state refused" "not a ripplerender state" \
    "$RR" "$s" --hash --load-state "$T/bad.json"
sed 's/"drops_applied":.*/"drops_applied":	0,/' "$d/state-000004.json" > "$d/state-000004.x.json"
refused "a header whose counters are not its frame's refused" "step and drops_applied: not those of frame 4" \
    "$RR" "$s" --hash --load-state "$d/state-000004.x.json"
sed 's/"drops_sha256":	"./"drops_sha256":	"x/' "$d/state-000004.json" > "$d/state-000004.x.json"
refused "a header with another plan of drops refused" "drops_sha256: the planned drops" \
    "$RR" "$s" --hash --load-state "$d/state-000004.x.json"
rm "$d/state-000004.x.json"
# Image files are compared by their contents: the same mask in another
# folder is the same scene, another mask under the same name is not.
mkdir -p "$T/here" "$T/same" "$T/other"
printf '{ "grid": { "width": 32, "height": 24 }, "time": { "frames": 6 }, "drops": [ { "x": 20, "y": 12 } ],
  "obstacles": [ { "type": "mask", "path": "m.png" } ] }' > "$T/here/m.json"
ffmpeg -v error -f lavfi -i "color=black:s=8x6,drawbox=x=2:y=2:w=3:h=2:c=white:t=fill" -frames:v 1 "$T/here/m.png" -y
ffmpeg -v error -f lavfi -i "color=black:s=8x6,drawbox=x=1:y=2:w=3:h=2:c=white:t=fill" -frames:v 1 "$T/other/m.png" -y
cp "$T/here/m.png" "$T/same/m.png"
cp "$T/here/m.json" "$T/same/m.json"
cp "$T/here/m.json" "$T/other/m.json"
"$RR" "$T/here/m.json" --hash --save-state "$T/here/st" --state-every 3 > "$T/w"
"$RR" "$T/same/m.json" --hash --load-state "$T/here/st/state-000003.json" > "$T/r"
check "a state made with a mask loads with the same mask in another folder" \
    sh -c "sed -n '4,6p' '$T/w' | cmp -s - '$T/r'"
refused "a mask of other contents under the same name refused, naming the key" \
    "obstacles.0.path: the file's contents differ (SHA-256 " \
    "$RR" "$T/other/m.json" --hash --load-state "$T/here/st/state-000003.json"
cp -r "$d" "$T/st2"
printf 'x' | dd of="$T/st2/state-000004.prev.npy" bs=1 seek=200 conv=notrunc 2> /dev/null
refused "a changed plane refused" "state-000004.prev.npy: its XXH3-128 is not the header's" \
    "$RR" "$s" --hash --load-state "$T/st2/state-000004.json"
# A plane's digest is XXH3-128 of the array's bytes (the file after its .npy
# header, whose length is 10 plus the little-endian 16-bit number at byte 8),
# as the reference tool xxhsum -H2 computes it.
if command -v xxhsum > /dev/null; then
    for p in cur last pad-now; do
        f="$d/state-000004.$p.npy"
        want=$(tail -c +$((11 + $(od -An -tu1 -j8 -N1 "$f") + 256 * $(od -An -tu1 -j9 -N1 "$f"))) "$f" | xxhsum -H2 | cut -c1-32)
        check "the header's xxh3_128 of plane $p is xxhsum -H2 of its array's bytes" \
            grep -q "\"xxh3_128\":	\"$want\"" "$d/state-000004.json"
    done
else
    echo "skip: xxhsum (Debian package xxhash) is not installed: the digests are not checked against it"
fi
# Format 1, as earlier versions wrote it (each plane's "sha256" in place of
# "xxh3_128"), is still read and checked.
mkdir "$T/v1" && cp "$d"/state-000004.* "$T/v1/"
python3 - "$T/v1/state-000004.json" <<'EOF2'
import hashlib, json, os, sys
p = sys.argv[1]
h = json.load(open(p))
h["format_version"] = 1
for pl in h["planes"]:
    b = open(os.path.join(os.path.dirname(p), pl.pop("xxh3_128") and pl["file"]), "rb").read()
    pl["sha256"] = hashlib.sha256(b[10 + b[8] + 256 * b[9]:]).hexdigest()
json.dump(h, open(p, "w"), indent="\t")
EOF2
"$RR" "$s" --hash --load-state "$T/v1/state-000004.json" > "$T/r"
check "a format 1 state (SHA-256 digests) loads and continues the run" sh -c "sed -n '5,12p' '$T/whole' | cmp -s - '$T/r'"
printf 'x' | dd of="$T/v1/state-000004.cur.npy" bs=1 seek=300 conv=notrunc 2> /dev/null
refused "... and a changed plane of it is refused" "state-000004.cur.npy: its SHA-256 is not the header's" \
    "$RR" "$s" --hash --load-state "$T/v1/state-000004.json"
sed 's/"format_version":.*/"format_version":	3,/' "$d/state-000004.json" > "$T/v1/state-000004.json"
refused "a state of a later format refused" "format_version: expected 1 or 2" \
    "$RR" "$s" --hash --load-state "$T/v1/state-000004.json"
"$RR" "$s" --hash --save-state "$d" --range 2-4 > "$T/out" 2> "$T/err"; rc=$?
check "an existing state is not replaced without -y (status 1, before any frame)" \
    sh -c "[ $rc -eq 1 ] && grep -q 'state-000004.json: already exists' '$T/err' && [ ! -s '$T/out' ]"
check "... and with -y it is" "$RR" "$s" --hash --save-state "$d" --range 2-4 -y -o "$T/y.framemd5" > /dev/null

# Ctrl-C: the state of the last frame done is written, and continues the run.
cat > "$T/long.json" <<EOF
{ "grid": { "width": 96, "height": 64 }, "time": { "frames": 100000 }, "rain": { "rate": 30, "seed": 9 } }
EOF
"$RR" "$T/long.json" --hash --save-state "$T/int" > "$T/int.txt" 2> /dev/null &
pid=$!; frames_done "$T/int.txt" $pid 20; kill -INT $pid; wait $pid; rc=$?
k=$(tail -n 1 "$T/int.txt" | cut -d' ' -f1)
check "interrupted with --save-state: status 130 and the state of the last frame done ($k)" \
    sh -c "[ $rc -eq 130 ] && [ -s '$T/int/state-$(printf %06d "${k:-0}").json' ]"
"$RR" "$T/long.json" --hash --range "${k:-0}-$((k + 3))" > "$T/int.whole"
"$RR" "$T/long.json" --hash --load-state "$T/int/state-$(printf %06d "${k:-0}").json" --range "${k:-0}-$((k + 3))" \
    > "$T/int.rest"
check "... which continues as the uninterrupted run (fast-forwarded there)" \
    sh -c "[ \$(wc -l < '$T/int.whole') = 4 ] && cmp -s '$T/int.whole' '$T/int.rest'"

# A stop signal during the fast-forward before a range's first frame (here
# about 10^9 steps, which no run finishes) stops it at the end of a frame:
# status 130, the run's line, and no file nor folder left (the PNGs' folder
# was made for the run). The kernels' "fused pass" line (the fourth, cache
# off) says the fast-forward has begun; tests/unit/test_toy_solver.c says at
# which frame it stops.
cat > "$T/huge.json" <<EOF
{ "grid": { "width": 64, "height": 48 }, "time": { "frames": 10000000, "steps_per_frame": 100 },
  "drops": [ { "x": 20, "y": 20, "radius": 3 } ] }
EOF
for sig in INT TERM HUP; do
    rm -f "$T/ff.err"   # frames_done must not count the last signal's lines
    RIPPLERENDER_DEBUG=kernels "$RR" "$T/huge.json" -o "$T/ff$sig/sub/f%07d.png" --range 9999990-9999999 -j1 \
        2> "$T/ff.err" &
    pid=$!; frames_done "$T/ff.err" $pid 4; kill -$sig $pid; wait $pid; rc=$?
    cond "a $sig during the fast-forward stops it: status 130, one line" \
        '[ $rc -eq 130 ] && [ "$(grep -v "kernels: " "$T/ff.err")" = "ripplerender: interrupted before the first frame; nothing written" ]'
    check "... and leaves nothing (the folder made for the PNGs removed)" test ! -e "$T/ff$sig"
done

# The outputs of a range.
"$RR" "$s" -o "$T/f%05d.png" --range 9-11 -q
check "a PNG sequence of --range 9-11 is f00009 .. f00011" \
    sh -c "cd '$T' && ls f*.png | tr '\n' ' ' | grep -qx 'f00009.png f00010.png f00011.png '"
"$RR" "$s" -o "$T/w%05d.png" -q
check "... the same pictures as the whole run's" cmp -s "$T/f00010.png" "$T/w00010.png"
"$RR" "$s" -o "$T/r.npy" --range 9-11 -q
"$RR" "$s" -o "$T/w.npy" -q
check "a .npy of --range 9-11 holds 3 frames" sh -c "head -c 100 '$T/r.npy' | grep -aq \"'shape': (3, 32, 40)\""
check "... the whole run's last 3" sh -c "cmp -s -i 128:\$((128 + 9 * 32 * 40 * 4)) '$T/r.npy' '$T/w.npy'"
"$RR" "$s" -o "$T/r.mkv" --range 6-11 -q
pts=$(ffprobe -v error -select_streams v:0 -show_entries frame=pts_time,key_frame -of csv=p=0 "$T/r.mkv" \
      2>/dev/null | head -n 1 | cut -d, -f1,2)
check "a video of --range 6-11 starts at 6 / fps seconds (0.2) with a key frame" [ "$pts" = "1,0.200000" ]
"$RR" "$s" -o "$T/r.framemd5" --range 6-11
check "a .framemd5 of a range numbers its frames as the whole run" \
    sh -c "grep -v '^#' '$T/r.framemd5' | head -n 1 | grep -q '^0, *6, *6,'"
"$RR" "$s" --hash --range 6-11 --manifest "$T/m.json" > /dev/null
check "the manifest records the range and the frames' own numbers" \
    sh -c "python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if m[\"range\"] == [6, 11] and [f[\"frame\"] for f in m[\"frames\"]] == list(range(6, 12)) else 1)' '$T/m.json'"
"$RR" "$s" --check "$T/whole" --range 6-11 > /dev/null
check "--check of a range compares with the whole run's hashes by frame number" [ $? -eq 0 ]

# A moving background (render.background a video, looped): each chunk's
# pictures follow from its frame numbers, so the chunks make the whole run.
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=40x32:rate=10:duration=0.7 -c:v libx264 -g 3 -pix_fmt yuv420p \
    "$T/bg.mp4"
"$RR" "$s" --hash -s render.mode=refract -s render.background="$T/bg.mp4" -s render.video_end=loop > "$T/bg.whole"
: > "$T/bg.parts"
for k in 0 1 2 3; do
    "$RR" "$s" --hash --chunk $k/4 -s render.mode=refract -s render.background="$T/bg.mp4" \
        -s render.video_end=loop >> "$T/bg.parts"
done
check "chunks over a looped video background give the whole run's frames" cmp -s "$T/bg.whole" "$T/bg.parts"

finish

# Sweeps: the recipes of docs/sweeps.md run as written (every ```sh block, in
# order), a small sweep through GNU parallel, --manifest checked against
# --hash, --print-scene and --version, and tools/contact-sheet's grid checked
# cell by cell.
. tests/cli/lib.sh
repo=$PWD
mkdir -p "$T/bin" "$T/w"
ln -s "$RR" "$T/bin/ripplerender"
ln -s "$repo/tools" "$T/w/tools"
ln -s "$repo/examples" "$T/w/examples"
cat > "$T/w/scene.json" <<'JSON'
{ "$schema": "scene.schema.json",
  "grid": { "width": 48, "height": 32 },
  "time": { "fps": 20, "frames": 20, "steps_per_frame": 2 },
  "drops": [ { "x": 16, "y": 14, "radius": 3, "amplitude": -1 } ],
  "render": { "mode": "colormap", "colormap": "ocean", "range": [-0.4, 0.4] } }
JSON
frames() { ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames \
               -of default=nw=1:nk=1 "$1" 2>/dev/null; }
if ! command -v parallel > /dev/null; then
    fail gnu-parallel "GNU parallel is missing: install the Debian package parallel (sh .ci/deps.sh test)"
fi

# --- docs/sweeps.md, as written --------------------------------------------------------------------
awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on' docs/sweeps.md > "$T/recipes.sh"
check recipes-found [ "$(grep -c ripplerender "$T/recipes.sh")" -ge 4 ]
(cd "$T/w" && PATH="$T/bin:$PATH" sh -e "$T/recipes.sh") > "$T/recipes.out" 2>&1
s=$?; [ $s -eq 0 ] || cat "$T/recipes.out"
check recipes-exit-0 [ $s -eq 0 ]
for d in 0.98 0.99 0.995; do
    check "loop-$d-mp4" [ "$(frames "$T/w/out/sweep/damping-$d.mp4")" = 20 ]
    check "parallel-$d-mp4" [ "$(frames "$T/w/out/par/damping-$d.mp4")" = 20 ]
done
check table-has-rows [ "$(grep -c '^ *0\.9[89]5\? *20 ' "$T/recipes.out")" -eq 3 ]
for g in d0.98-r2 d0.98-r5 d0.995-r2 d0.995-r5; do
    check "grid-$g" [ -f "$T/w/out/grid/$g.mp4" ] && [ -f "$T/w/out/grid/$g.json" ]
done
check contact-sheet-made [ -f "$T/w/out/grid/sheet.png" ]
# 2 x 2 cells of 48 x 32 with 4 pixels of padding and margin: 108 x 76
size=$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$T/w/out/grid/sheet.png")
check contact-sheet-size [ "$size" = 108,76 ]
# the Slurm array: a row per task, each with its set's values and the hashes of a run made here
check array-sheet-size [ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$T/w/out/array/sheet.png")" = 108,76 ]
check array-table-rows [ "$(wc -l < "$T/w/out/array/table.csv")" -eq 5 ]
check array-table-header [ "$(head -n 1 "$T/w/out/array/table.csv")" = \
    manifest,solver.damping,drops.0.radius,frames,first,last,output,output_sha256,frames_md5,last_frame_md5 ]
i=0
for set in "0.98 2" "0.98 5" "0.995 2" "0.995 5"; do
    d=${set% *} r=${set#* } id=$(printf %04d $i)
    row=$(grep "^out/array/task-$id.json," "$T/w/out/array/table.csv")
    want_md5=$("$RR" "$T/w/scene.json" -s solver.damping=$d -s drops.0.radius=$r --hash -q | md5sum | cut -d' ' -f1)
    want_sha=$(sha256sum "$T/w/out/array/task-$id.mp4" | cut -d' ' -f1)
    last=$("$RR" "$T/w/scene.json" -s solver.damping=$d -s drops.0.radius=$r --hash -q | tail -n 1 | cut -d' ' -f2)
    check "array-task-$i-row" [ "$row" = "out/array/task-$id.json,$d,$r,20,0,19,out/array/task-$id.mp4,$want_sha,$want_md5,$last" ]
    check "array-task-$i-log-free" [ ! -s "$T/w/out/array/task-$id.log" ]
    i=$((i + 1))
done
check array-tasks-differ [ "$(cut -d, -f9 "$T/w/out/array/table.csv" | sort -u | wc -l)" -eq 5 ]
# tools/sweep-table and examples/slurm-sweep.sh refuse what they cannot do, in one line
tools/sweep-table > /dev/null 2>&1; check sweep-table-usage-exit-2 [ $? -eq 2 ]
echo '{"frames": 3}' > "$T/notm.json"
tools/sweep-table "$T/notm.json" > /dev/null 2> "$T/err"; s=$?
check sweep-table-bad-manifest-exit-1 [ $s -eq 1 ]
check sweep-table-bad-manifest-one-line [ "$(wc -l < "$T/err")" -eq 1 ]
check sweep-table-bad-manifest-named grep -q "notm.json: not a ripplerender manifest" "$T/err"
# a time past an input's end gives no frame: refused in one line, and an
# older sheet of that name is left as it was, not passed off as the new one
cp "$T/w/out/grid/sheet.png" "$T/old.png"
tools/contact-sheet -t 5 "$T/old.png" "$T/w/out/grid/d0.98-r2.mp4" > /dev/null 2> "$T/err"; s=$?
check contact-sheet-past-end-exit-1 [ $s -eq 1 ]
check contact-sheet-past-end-one-line [ "$(wc -l < "$T/err")" -eq 1 ]
check contact-sheet-past-end-says-why grep -q "contact-sheet: no frame at 5 s" "$T/err"
check contact-sheet-past-end-old-kept cmp -s "$T/old.png" "$T/w/out/grid/sheet.png"
printf 'solver.damping drops.0.radius\n0.98\n0.99 2 7\n' > "$T/w/bad.txt"
for c in "0 fewer" "1 more" "2 no parameter set"; do
    (cd "$T/w" && SLURM_ARRAY_TASK_ID=${c%% *} PATH="$T/bin:$PATH" sh examples/slurm-sweep.sh scene.json bad.txt) \
        > /dev/null 2> "$T/err"; s=$?
    check "slurm-sweep-task-${c%% *}-refused" [ $s -eq 2 ]
    check "slurm-sweep-task-${c%% *}-says-why" grep -q "bad.txt: .*${c#* }" "$T/err"
done
(cd "$T/w" && PATH="$T/bin:$PATH" sh examples/slurm-sweep.sh scene.json params.txt) > /dev/null 2> "$T/err"
check slurm-sweep-without-task-id [ $? -ne 0 ]
check slurm-sweep-without-task-id-says-so grep -q "SLURM_ARRAY_TASK_ID" "$T/err"

# --- a sweep through GNU parallel: its manifests agree with single runs ---------------------------
cd "$T/w" || exit 1
parallel -j 2 "$RR" scene.json -s solver.damping={1} -s drops.0.x={2} -j 1 -q \
    -o "$T/p-{1}-{2}.framemd5" --manifest "$T/p-{1}-{2}.json" ::: 0.97 0.99 ::: 10 30
check parallel-sweep-exit-0 [ $? -eq 0 ]
md5s() { /usr/bin/python3 -c 'import json,sys; print("\n".join(f["md5"] for f in json.load(open(sys.argv[1]))["frames"]))' "$1"; }
for d in 0.97 0.99; do for x in 10 30; do
    "$RR" scene.json -s solver.damping=$d -s drops.0.x=$x --hash -j 2 -q | awk '{print $2}' > "$T/h"
    md5s "$T/p-$d-$x.json" > "$T/m"
    check "manifest-$d-$x-hashes-equal-hash" cmp -s "$T/h" "$T/m"
    grep -v '^#' "$T/p-$d-$x.framemd5" | awk -F, '{gsub(/ /, "", $NF); print $NF}' > "$T/f"
    check "manifest-$d-$x-hashes-equal-framemd5" cmp -s "$T/f" "$T/m"
done; done
check parallel-sweep-differs sh -c "! cmp -s '$T/p-0.97-10.framemd5' '$T/p-0.99-10.framemd5'"
cd "$repo" || exit 1

# --- the manifest's other fields ------------------------------------------------------------------
"$RR" "$T/w/scene.json" -s solver.damping=0.97 -s drops.0.x=10 -s output.path="$T/w/one.mp4" --print-scene \
    > "$T/resolved.json"
"$RR" --version > "$T/ver"
cat > "$T/mcheck.py" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
resolved = json.load(open(sys.argv[2]))
ver = dict(l.split(" ", 1) for l in open(sys.argv[3]).read().splitlines())
want = {
    "program": m["program"] == "ripplerender",
    "version": m["version"] == ver["ripplerender"],
    "ffmpeg": m["libraries"]["ffmpeg"] == ver["FFmpeg"].split(" ")[0],
    "libpng": m["libraries"]["libpng"] == ver["libpng"],
    "cjson": m["libraries"]["cjson"] == ver["cJSON"],
    "openexr": m["libraries"]["openexr"] == ver["OpenEXR"],
    "libdeflate": m["libraries"]["libdeflate"] == ver["libdeflate"],
    "libav": all(m["libraries"][k].count(".") == 2 for k in
                 ("libavcodec", "libavformat", "libavfilter", "libswscale", "libavutil")),
    "scene": m["scene"] == resolved,
    "complete": m["complete"] is True,
    "count": m["frame_count"] == 20 == len(m["frames"]),
    "order": [f["frame"] for f in m["frames"]] == list(range(20)),
    "timing": m["timing"]["frames_seconds"] > 0 and m["timing"]["wall_seconds"] >= m["timing"]["frames_seconds"]
              and all(f["seconds"] >= 0 for f in m["frames"]),
    "arguments": m["arguments"][1:] == sys.argv[4:],
    "threads": m["threads"] == 2,
    "started": len(m["started"]) == 20 and m["started"].endswith("Z"),
}
bad = [k for k, v in want.items() if not v]
print("manifest fields wrong:", bad if bad else "none")
sys.exit(1 if bad else 0)
PY
set -- "$T/w/scene.json" -s solver.damping=0.97 -s drops.0.x=10 -o "$T/w/one.mp4" -j 2 -q --manifest "$T/one.json"
"$RR" "$@"; check manifest-run-exit-0 [ $? -eq 0 ]
check manifest-fields /usr/bin/python3 "$T/mcheck.py" "$T/one.json" "$T/resolved.json" "$T/ver" "$@"
# an existing manifest stops the run before anything is rendered, as any existing output does
"$RR" "$T/w/scene.json" -o "$T/w/two.mp4" -q --manifest "$T/one.json" 2> "$T/err"; s=$?
check manifest-no-overwrite-exit-1 [ $s -eq 1 ]
check manifest-no-overwrite-names-it grep -q 'one.json: already exists' "$T/err"
check manifest-no-overwrite-no-video [ ! -e "$T/w/two.mp4" ]
check manifest-no-overwrite-no-temp [ -z "$(ls -A "$T/w" | grep '\.tmp$')" ]
"$RR" "$T/w/scene.json" -o "$T/w/two.mp4" -q -y --manifest "$T/one.json"
check manifest-overwrite-y [ $? -eq 0 ]

# --- contact sheet: each cell is its input, exactly ------------------------------------------------
for i in 0 1 2; do "$RR" "$T/w/scene.json" -s drops.0.x=$((10 + 12 * i)) -f 3 -o "$T/c$i-%02d.png" -q -y; done
tools/contact-sheet -c 2 -p 0 "$T/sheet.png" "$T/c0-02.png" "$T/c1-02.png" "$T/c2-02.png" > /dev/null
check sheet-exit-0 [ $? -eq 0 ]
cell() { ffmpeg -v error -i "$T/sheet.png" -vf "crop=48:32:$1:$2" -pix_fmt rgb24 -f framemd5 - | tail -n 1 | awk -F, '{print $NF}'; }
img() { ffmpeg -v error -i "$1" -pix_fmt rgb24 -f framemd5 - | tail -n 1 | awk -F, '{print $NF}'; }
check sheet-cell-0 [ "$(cell 0 0)" = "$(img "$T/c0-02.png")" ]
check sheet-cell-1 [ "$(cell 48 0)" = "$(img "$T/c1-02.png")" ]
check sheet-cell-2 [ "$(cell 0 32)" = "$(img "$T/c2-02.png")" ]
check sheet-cells-differ [ "$(cell 0 0)" != "$(cell 48 0)" ]
tools/contact-sheet > /dev/null 2>&1; check sheet-usage-exit-2 [ $? -eq 2 ]

finish

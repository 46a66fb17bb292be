# Farm recipes (docs/farm.md): examples/slurm-array.sh and examples/k8s-indexed-job.yaml
# run as shipped, with the environment Slurm and Kubernetes give each task, and the
# manifests' frame hashes of the tasks, in chunk order, equal the --hash lines of the
# whole run; GNU parallel over four local job slots gives the same hashes and the same
# PNG files as the whole run.
. tests/cli/lib.sh
repo=$PWD
mkdir -p "$T/bin" "$T/slurm" "$T/k8s" "$T/par"
ln -s "$RR" "$T/bin/ripplerender"
cat > "$T/scene.json" <<'JSON'
{ "grid": { "width": 48, "height": 32 },
  "time": { "fps": 20, "frames": 18, "steps_per_frame": 2 },
  "drops": [ { "x": 16, "y": 14, "radius": 3, "amplitude": -1 } ],
  "rain": { "rate": 20, "seed": 7, "radius": 2, "amplitude": -0.5 },
  "render": { "mode": "colormap", "colormap": "ocean", "range": [-0.4, 0.4] } }
JSON
cp "$T/scene.json" "$T/slurm/"; cp "$T/scene.json" "$T/k8s/"
"$RR" "$T/scene.json" --hash -j 2 -q > "$T/whole.hash"
check whole-run-18-lines [ "$(wc -l < "$T/whole.hash")" -eq 18 ]
# md5s OUT MANIFEST...: the "frame md5" lines of the manifests, one after another
md5s() { out=$1; shift; python3 -c '
import json, sys
for p in sys.argv[1:]:
    for f in json.load(open(p))["frames"]: print(f["frame"], f["md5"])' "$@" > "$out"; }
# same-hash NAME FILE: FILE has the whole run's lines (the format of --hash)
same_hash() { awk '{print $1, $2}' "$T/whole.hash" > "$T/whole.2"; check "$1" cmp -s "$T/whole.2" "$2"; }

# --- Slurm: the script's array, each task run with the variables sbatch sets ---------------------
script=examples/slurm-array.sh
check slurm-script-parses sh -n "$script"
check slurm-script-parses-bash bash -n "$script"
array=$(sed -n 's/^#SBATCH --array=\([0-9]*-[0-9]*\)$/\1/p' "$script")
check slurm-array-line [ -n "$array" ]
min=${array%-*} max=${array#*-}
parts=""
for id in $(seq "$min" "$max"); do
    (cd "$T/slurm" && env PATH="$T/bin:$PATH" SLURM_ARRAY_JOB_ID=41 SLURM_JOB_ID=$((42 + id)) \
        SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=$min SLURM_ARRAY_TASK_MAX=$max \
        SLURM_ARRAY_TASK_STEP=1 SLURM_ARRAY_TASK_COUNT=$((max - min + 1)) SLURM_CPUS_PER_TASK=2 \
        sh "$repo/$script" scene.json)
    check "slurm-task-$id-exit-0" [ $? -eq 0 ]
    check "slurm-task-$id-video" [ -s "$T/slurm/out/part-$id.mkv" ]
    parts="$parts $T/slurm/out/part-$id.json"
done
md5s "$T/slurm.hash" $parts
same_hash slurm-tasks-equal-whole-run "$T/slurm.hash"
# each task rendered its own chunk, not the whole timeline
check slurm-task-0-is-a-chunk [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["range"])' \
    "$T/slurm/out/part-0.json")" = "[0, 3]" ]

# --- Kubernetes: the Job's container command, each pod with its JOB_COMPLETION_INDEX ------------
yaml=examples/k8s-indexed-job.yaml
python3 - "$yaml" > "$T/k8s.sh" <<'PY'
import re, sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
spec = job["spec"]
c = spec["template"]["spec"]["containers"][0]
assert job["kind"] == "Job" and job["apiVersion"] == "batch/v1", "not a batch/v1 Job"
assert spec["completionMode"] == "Indexed", "not an Indexed Job"
assert spec["parallelism"] >= 1, "no parallelism"
assert spec["template"]["spec"]["restartPolicy"] in ("Never", "OnFailure"), "restartPolicy"
assert c["command"][:2] == ["sh", "-c"], "the command is not sh -c"
n = re.search(r"--chunk /(\d+)", c["command"][2])
assert n and int(n.group(1)) == spec["completions"], "--chunk /N is not completions"
mount = [m["mountPath"] for m in c["volumeMounts"]]
assert c["workingDir"] in mount, "the working folder is not the shared volume"
print(spec["completions"])
print(c["command"][2])
PY
check k8s-yaml-valid [ $? -eq 0 ]
n=$(head -n 1 "$T/k8s.sh")
parts=""
for k in $(seq 0 $((n - 1))); do
    (cd "$T/k8s" && env PATH="$T/bin:$PATH" JOB_COMPLETION_INDEX=$k sh -c "$(tail -n +2 "$T/k8s.sh")")
    check "k8s-pod-$k-exit-0" [ $? -eq 0 ]
    parts="$parts $T/k8s/out/part-$k.json"
done
md5s "$T/k8s.hash" $parts
same_hash k8s-pods-equal-whole-run "$T/k8s.hash"

# --- docs/farm.md quotes the files as they are --------------------------------------------------------
# quoted FILE LANG: every line of the first LANG block after the link to FILE in docs/farm.md is a line of FILE
quoted() { awk -v f="(../$1)" -v lang="$2" 'index($0, f) { on = 1 } on && $0 == "```" lang { inb = 1; next }
           inb && /^```/ { exit } inb' docs/farm.md |
           while IFS= read -r l; do l=$(echo "$l" | sed 's/^ *//'); grep -qF -- "$l" "$1" || { echo "$1 lacks: $l"; exit 1; }; done; }
check farm-md-quotes-slurm-script quoted examples/slurm-array.sh sh
check farm-md-quotes-k8s-job quoted examples/k8s-indexed-job.yaml yaml

# --- GNU parallel over four local job slots --------------------------------------------------------
if command -v parallel > /dev/null; then
    cd "$T/par" || exit 1
    parallel -j4 --keep-order "$RR" ../scene.json --chunk {}/4 -j 1 -q --hash ::: 0 1 2 3 > "$T/par.hash"
    check parallel-exit-0 [ $? -eq 0 ]
    check parallel-hash-equals-whole-run cmp -s "$T/whole.hash" "$T/par.hash"
    mkdir whole chunks
    "$RR" ../scene.json -q -o whole/f%05d.png
    parallel -j4 "$RR" ../scene.json --chunk {}/4 -j 1 -q -o chunks/f%05d.png ::: 0 1 2 3
    check parallel-png-exit-0 [ $? -eq 0 ]
    check parallel-png-18-files [ "$(ls chunks | wc -l)" -eq 18 ]
    check parallel-png-equal-whole-run diff -r whole chunks
    cd "$repo" || exit 1
else
    fail gnu-parallel "GNU parallel is missing: install the Debian package parallel (sh .ci/deps.sh test)"
fi
finish

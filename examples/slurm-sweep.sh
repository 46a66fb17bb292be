#!/bin/sh
# A parameter sweep as a Slurm job array, one task per parameter set:
#   mkdir -p out/array
#   sbatch --array=0-3 examples/slurm-sweep.sh scene.json params.txt
# The first line of the params file names the paths to --set, each further line
# is one parameter set (values separated by spaces, JSON without spaces):
#   solver.damping drops.0.radius
#   0.98 2
#   0.98 5
# Task I renders the set on line I + 2 into out/array/task-IIII.mp4 (I in four
# digits, so the files sort in task order), with its manifest out/array/task-IIII.json
# and its log out/array/task-IIII.log; --array=0-(number of sets - 1).
# tools/sweep-table then tabulates the manifests (docs/sweeps.md).
#SBATCH --job-name=sweep
#SBATCH --output=out/array/task-%4a.log
set -euf
: "${SLURM_ARRAY_TASK_ID:?is not set: submit the script with sbatch --array}"
[ $# -eq 2 ] || { echo "usage: sbatch --array=0-N slurm-sweep.sh SCENE PARAMS" >&2; exit 2; }
scene=$1 params=$2
id=$(printf %04d "$SLURM_ARRAY_TASK_ID")
keys=$(sed -n 1p "$params")
set -- $(sed -n "$((SLURM_ARRAY_TASK_ID + 2))p" "$params")
[ $# -gt 0 ] || { echo "slurm-sweep: $params: no parameter set for task $SLURM_ARRAY_TASK_ID" >&2; exit 2; }
sets=""
for k in $keys; do      # pairs each path of the first line with the next value of this task's line
    [ $# -gt 0 ] || { echo "slurm-sweep: $params: line $((SLURM_ARRAY_TASK_ID + 2)) has fewer values than paths" >&2; exit 2; }
    sets="$sets -s $k=$1"; shift
done
[ $# -eq 0 ] || { echo "slurm-sweep: $params: line $((SLURM_ARRAY_TASK_ID + 2)) has more values than paths" >&2; exit 2; }
ripplerender "$scene" $sets -j "${SLURM_CPUS_PER_TASK:-1}" -y -q \
    -o "out/array/task-$id.mp4" --manifest "out/array/task-$id.json"

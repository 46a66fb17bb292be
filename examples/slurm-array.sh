#!/bin/sh
# A Slurm job array that renders one scene in 4 chunks, one task each:
#   sbatch examples/slurm-array.sh scene.json
# Task K renders chunk K of 4 (`--chunk` reads SLURM_ARRAY_TASK_ID and
# SLURM_ARRAY_TASK_COUNT) into out/part-K.mkv, with a manifest of its frames'
# hashes in out/part-K.json, and logs to out/slurm-JOB_K.log. The parts,
# joined in order, are the whole video. Change the number of chunks with
# --array alone (sbatch --array=0-15 examples/slurm-array.sh scene.json).
#SBATCH --job-name=ripples
#SBATCH --array=0-3
#SBATCH --cpus-per-task=4
#SBATCH --output=out/slurm-%A_%a.log
set -eu
scene=${1:-scene.json}
mkdir -p out
ripplerender "$scene" --chunk -j "${SLURM_CPUS_PER_TASK:-1}" -y -q \
    -o "out/part-$SLURM_ARRAY_TASK_ID.mkv" --manifest "out/part-$SLURM_ARRAY_TASK_ID.json"

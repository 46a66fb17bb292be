#!/bin/sh
# make bench: solver throughput (tests/bench/bench_solvers.c) and end-to-end
# render speed of the example scenes. Numbers only; nothing passes or fails.
bin=${1:-./ripplerender}; build=${2:-build}
set -e
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
echo '{ "time": { "steps_per_frame": 2 }, "drops": [ { "x": 10, "y": 10 } ] }' > "$T/bench.json"
"$build/tests/bench_solvers" "$T/bench.json"
echo
printf '%-22s %8s %10s\n' scene frames "frames/s"
for s in scenes/*.json; do
    case "$s" in *.schema.json) continue ;; esac
    frames=$("$bin" "$s" --print-scene | sed -n 's/.*"frames": *\([0-9]*\).*/\1/p' | head -n 1)
    t0=$(date +%s.%N); "$bin" "$s" -o "$T/x.mp4" -y -q; t1=$(date +%s.%N)
    awk -v n="$(basename "$s")" -v f="$frames" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-22s %8d %10.1f\n", n, f, f / (b - a) }'
done

#!/bin/sh
# Renders docs/img/solvers.png: docs/img/solvers.json at frame 89 under each
# finite-difference solver, side by side (elias, flow, spring, wave).
# Run from the repository root after `make`: sh docs/img/make.sh
set -e
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for s in elias flow spring wave; do
    ./ripplerender docs/img/solvers.json -s solver.type=$s -o "$t/$s%02d.png" -f 90 -y -q
done
ffmpeg -v error -y -i "$t/elias89.png" -i "$t/flow89.png" -i "$t/spring89.png" -i "$t/wave89.png" \
    -filter_complex hstack=inputs=4 docs/img/solvers.png

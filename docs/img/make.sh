#!/bin/sh
# Renders docs/img/solvers.png: docs/img/solvers.json at frame 89 under each
# solver, side by side (elias, flow, spring, wave, spectral). spectral runs in
# real water units, so it gets 2 mm cells, a 6 Hz source (a 5 cm wave) and the
# steps per frame "auto" gives its oscillator (docs/solvers.md, spectral).
# Run from the repository root after `make`: sh docs/img/make.sh
set -e
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for s in elias flow spring wave; do
    case $s in   # each solver with its own keys (a key of another solver is refused)
        elias) k='{"type": "elias", "damping": 1}' ;;
        flow) k='{"type": "flow", "damping": 1, "flow": 1}' ;;
        spring) k='{"type": "spring", "damping": 1, "blend": 0.5, "passes": 2}' ;;
        wave) k='{"type": "wave", "speed": 0.04}' ;;
    esac
    ./ripplerender docs/img/solvers.json -s "solver=$k" -o "$t/$s%02d.png" -f 90 -y -q
done
./ripplerender docs/img/solvers.json -s 'solver={"type": "spectral"}' -s grid.cell_size=0.002 \
    -s oscillators.0.frequency=6 -s time.steps_per_frame=auto -o "$t/spectral%02d.png" -f 90 -y -q
ffmpeg -v error -y -i "$t/elias89.png" -i "$t/flow89.png" -i "$t/spring89.png" -i "$t/wave89.png" \
    -i "$t/spectral89.png" -filter_complex hstack=inputs=5 docs/img/solvers.png

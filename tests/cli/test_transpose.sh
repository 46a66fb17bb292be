#!/bin/sh
# A scene and its transpose (grid width and height, every drop's x and y, the
# left/right edges and the top/bottom ones swapped) give transposed frames, on
# every solver, with absorbing edges whose layer is narrower than half an
# axis, wider than half of it, and wider than the whole axis (src/sim.c clips
# it to the axis). Tolerance 1e-5 on heights of order 1: the two runs add the
# same terms in another order (a stencil's x and y neighbours, the sponge
# factors of cells in two layers, the spectral solver's row and column
# transforms), rounding differences of a few 1e-7 at most in these runs; the
# corner treatments that favoured one axis gave 1e-3 to 0.3.
. "$(dirname "$0")/lib.sh"
C="python3 tests/cli/transpose_check.py $RR $T"
for solver in elias flow wave spring spectral; do
    for case in "512 3 600" "64 40 4" "64 40 30" "64 40 100"; do
        set -- $case
        d=$($C $solver $1 $2 $3 absorb) || d=error
        cond "transpose $solver ${1}x$2 absorb_width $3" "[ \"$d\" != error ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) <= 1e-5)' $d"
    done
    d=$($C $solver 64 40 30 absorb,fixed,absorb,clamp) || d=error
    cond "transpose $solver mixed edges" "[ \"$d\" != error ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) <= 1e-5)' $d"
done
finish

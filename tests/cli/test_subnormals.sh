# The careful row kernels (RIPPLERENDER_SUBNORMALS, src/tblock.h's
# TBLOCK_CAREFUL) give the plain kernels' heights bit for bit. A drop spreads
# for hundreds of steps, so that the faint edge ahead of its waves passes
# through subnormal heights (a few per cent of the cells at any time, which
# the careful kernels multiply in double); the two runs' .npy files, every
# frame's heights, must be the same bytes, for each kernel form of elias,
# flow and wave, one and three steps a frame, on one and two threads, on a
# grid whose width leaves the vectors' masked ends. The probe's choice is
# named with RIPPLERENDER_DEBUG=kernels; a bad value is refused.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

forms='elias:{}
elias-shift:{"damping_shift":9}
elias-mul:{"damping":0.5}
flow:{"type":"flow"}
flow-half:{"type":"flow","flow":0.5}
flow-zero:{"type":"flow","flow":0}
wave:{"type":"wave"}
wave-decay:{"type":"wave","decay":0.3}'
echo "$forms" | while IFS=: read -r form solver; do
    case "$solver" in *'"type"'*) ;; *) solver=$(echo "$solver" | sed 's/^{/{"type":"elias",/; s/,}$/}/') ;; esac
    for spf in 1 3; do
        cat > "$T/$form.json" <<JSON
{ "grid": { "width": 203, "height": 120, "cell_size": 0.01 }, "solver": $solver,
  "time": { "steps_per_frame": $spf, "frames": 160 },
  "drops": [ { "x": 20, "y": 30 }, { "x": 180, "y": 100, "frame": 60 } ] }
JSON
        for j in 1 2; do
            RIPPLERENDER_SUBNORMALS=plain "$RR" "$T/$form.json" -j$j -q -o "$T/plain.npy" -y
            RIPPLERENDER_SUBNORMALS=careful "$RR" "$T/$form.json" -j$j -q -o "$T/careful.npy" -y
            check "$form spf $spf -j$j: careful kernels give the plain kernels' heights" cmp -s "$T/plain.npy" "$T/careful.npy"
        done
    done
    # The edge ahead of the waves holds subnormal heights: the careful path runs.
    python3 - "$T/plain.npy" > "$T/sub.txt" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
n = struct.unpack('<H', d[8:10])[0]
body = d[10 + n:]
sub = sum(1 for (b,) in struct.iter_unpack('<I', body) if b & 0x7f800000 == 0 and b & 0x7fffffff)
print(sub)
PY
    [ "$form" = flow-zero ] || cond "$form: the run meets subnormal heights" '[ "$(cat "$T/sub.txt")" -gt 100 ]'
done > "$T/log"
cat "$T/log"
npass=$(grep -c '^ok ' "$T/log"); nfail=$(grep -c '^FAIL ' "$T/log")

# The probe's choice is reported; careful and plain are named as asked.
echo '{ "grid": { "width": 64, "height": 64 }, "time": { "frames": 2 } }' > "$T/small.json"
RIPPLERENDER_DEBUG=kernels "$RR" "$T/small.json" --hash > /dev/null 2> "$T/err"
cond "the probe's choice is reported" 'grep -q "kernels: subnormal floats: 64 multiplies in .* ns, of normal ones .*: \(slow, the careful\|not slow, the plain\) row drivers" "$T/err"'
RIPPLERENDER_SUBNORMALS=careful RIPPLERENDER_DEBUG=kernels "$RR" "$T/small.json" --hash > /dev/null 2> "$T/err"
cond "careful: the careful drivers only" 'grep -q "row kernels: .*, and only avx\(512\|2\)-careful (the AVX\(-512\|2\) driver, careful of subnormals);" "$T/err" || ! grep -q "the AVX\|avx" "$T/err"'

# A bad value: status 2, one line naming it, from a run and --print-scene.
for args in "--hash" "--print-scene"; do
    RIPPLERENDER_SUBNORMALS=fast "$RR" "$T/small.json" $args > /dev/null 2> "$T/err"; st=$?
    cond "RIPPLERENDER_SUBNORMALS=fast refused ($args)" '[ $st = 2 ] && [ "$(cat "$T/err")" = "ripplerender: RIPPLERENDER_SUBNORMALS=fast: expected auto, careful or plain" ]'
done
finish

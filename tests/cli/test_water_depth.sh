# Command-line tests of the water's depth (docs/solvers.md "Speed from the
# depth", docs/render.md "caustics"): solver.depth gives the frames of
# solver.speed = sqrt(g d); PNG and .npy depth maps load, print and load back
# to the same frames; a caustics floor map of one depth renders as
# render.depth; each combination that makes no sense is refused in one line
# naming the keys; scenes/shoal.json is the same at -j1 and -j2.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

cat > "$T/w.json" <<'JSON'
{ "grid": { "width": 48, "height": 32, "cell_size": 0.001 },
  "time": { "fps": 30, "frames": 8, "steps_per_frame": "auto" },
  "solver": { "type": "wave", "depth": 0.01 },
  "boundary": "absorb", "absorb_width": 6,
  "drops": [ { "x": 20, "y": 16, "radius": 3, "amplitude": -1 } ],
  "render": { "mode": "caustics", "height_scale": 4 } }
JSON
# A .npy of float64 metres, 32 rows of 48: 1 cm on the left half, 4 cm on the right.
python3 - "$T/d.npy" <<'PY'
import struct, sys
h = "{'descr': '<f8', 'fortran_order': False, 'shape': (32, 48), }"
h += " " * (127 - 10 - len(h)) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode())
    for y in range(32):
        for x in range(48):
            f.write(struct.pack("<d", 0.01 if x < 24 else 0.04))
PY
# A white PNG: every cell at the far end of a depth_range.
python3 - "$T/white.png" <<'PY'
import struct, sys, zlib
def chunk(k, d):
    return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xFFFFFFFF)
rows = b"".join(b"\0" + b"\xff" * 48 for _ in range(32))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 32, 8, 0, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY

# --- uniform depth: the speed sqrt(g d), the same frames ----------------------------------
"$RR" "$T/w.json" --hash -q > "$T/depth.txt"; check depth-exit-0 [ $? -eq 0 ]
c=$(python3 -c 'import math; print(repr(math.sqrt(9.81 * 0.01)))')
"$RR" "$T/w.json" -s "solver={\"type\": \"wave\", \"speed\": $c}" --hash -q > "$T/speed.txt"
check depth-is-speed-sqrt-gd cmp -s "$T/depth.txt" "$T/speed.txt"
"$RR" "$T/w.json" -s solver.wavelength=0.02 --hash -q > "$T/wl.txt"
c=$(python3 -c 'import math; k = 2 * math.pi / 0.02; print(repr(math.sqrt(9.81 / k * math.tanh(k * 0.01))))')
"$RR" "$T/w.json" -s "solver={\"type\": \"wave\", \"speed\": $c}" --hash -q > "$T/speed.txt"
check wavelength-is-airy-speed cmp -s "$T/wl.txt" "$T/speed.txt"
"$RR" "$T/w.json" -s solver.frequency=8 --hash -q > "$T/fq.txt"
cond frequency-changes-frames '! cmp -s "$T/fq.txt" "$T/depth.txt" && ! cmp -s "$T/fq.txt" "$T/wl.txt"'

# --- maps: print and load back to the same frames; "auto" at the deepest cell ------------------
for m in "\"depth_map\": \"$T/d.npy\"" "\"depth_map\": \"$T/white.png\", \"depth_range\": [0.01, 0.04], \"frequency\": 8"; do
    n=$((${n:-0} + 1))
    "$RR" "$T/w.json" -s "solver={\"type\": \"wave\", $m}" -s "render.depth_map=\"$T/white.png\"" \
        -s 'render.depth_range=[5, 20]' --print-scene > "$T/p$n.json"
    check "map-$n-prints" [ $? -eq 0 ]
    "$RR" "$T/p$n.json" --print-scene | cmp -s - "$T/p$n.json"; check "map-$n-print-is-stable" [ $? -eq 0 ]
    "$RR" "$T/w.json" -s "solver={\"type\": \"wave\", $m}" -s "render.depth_map=\"$T/white.png\"" \
        -s 'render.depth_range=[5, 20]' --hash -q > "$T/a$n.txt"
    "$RR" "$T/p$n.json" --hash -q > "$T/b$n.txt"
    check "map-$n-print-same-frames" cmp -s "$T/a$n.txt" "$T/b$n.txt"
done
# 4 cm: c = 0.6264 m/s needs 0.6264 sqrt(2) / (30 * 0.001) = 29.5, so 30 steps a frame
"$RR" "$T/w.json" -s "solver={\"type\": \"wave\", \"depth_map\": \"$T/d.npy\"}" -s time.steps_per_frame=29 \
    --validate 2> "$T/err"; s=$?
check courant-at-deepest-exit-2 [ $s -eq 2 ]
check courant-at-deepest-message grep -q 'c = 0.626418 m/s at the deepest cell of solver.depth_map.*use steps_per_frame 30 or more' "$T/err"
"$RR" "$T/w.json" -s "solver={\"type\": \"wave\", \"depth_map\": \"$T/d.npy\"}" --hash -q > "$T/auto.txt"
"$RR" "$T/w.json" -s "solver={\"type\": \"wave\", \"depth_map\": \"$T/d.npy\"}" -s time.steps_per_frame=30 \
    --hash -q > "$T/thirty.txt"
check auto-is-30-steps cmp -s "$T/auto.txt" "$T/thirty.txt"

# --- the caustics floor: one depth everywhere is render.depth, bit for bit ------------------------
"$RR" "$T/w.json" -s render.depth=17 --hash -q > "$T/flat.txt"
"$RR" "$T/w.json" -s "render.depth_map=\"$T/white.png\"" -s 'render.depth_range=[1, 17]' --hash -q > "$T/map.txt"
check floor-map-of-one-depth-is-depth cmp -s "$T/flat.txt" "$T/map.txt"
"$RR" "$T/w.json" -s "render.depth_map=\"$T/white.png\"" -s 'render.depth_range=[1, 40]' --hash -q > "$T/map.txt"
cond floor-map-deeper-differs '! cmp -s "$T/flat.txt" "$T/map.txt"'

# --- refusals: one line naming the keys, exit 2 --------------------------------------------------
refuse() {   # NAME WANT SET...
    name=$1; want=$2; shift 2
    "$RR" "$T/w.json" "$@" --validate 2> "$T/err"; s=$?
    if [ $s -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -qF -- "$want" "$T/err"; then ok "$name"
    else fail "$name" "status $s: $(cat "$T/err")"; fi
}
refuse depth-and-speed 'solver.speed: give either solver.speed or solver.depth, not both' -s solver.speed=0.2
refuse depth-and-map 'give either solver.depth or solver.depth_map, not both' -s "solver.depth_map=\"$T/d.npy\""
refuse speed-map-and-depth-map 'give either solver.speed_map or solver.depth_map, not both' \
    -s "solver={\"type\": \"wave\", \"speed_map\": \"$T/white.png\", \"depth_map\": \"$T/d.npy\"}"
refuse speed-range-and-depth 'give either solver.speed_range or solver.depth, not both' -s 'solver.speed_range=[0.1, 0.2]'
refuse wave-depth-zero 'solver.depth: expected a depth > 0 in m for the wave solver (dry land is an obstacle), got 0' \
    -s solver.depth=0
refuse wavelength-without-depth 'solver.wavelength: used by the wave solver only with solver.depth or solver.depth_map' \
    -s 'solver={"type": "wave", "wavelength": 0.1}'
refuse frequency-without-depth 'solver.frequency: used by the wave solver only with solver.depth or solver.depth_map' \
    -s 'solver={"type": "wave", "frequency": 2}'
refuse gravity-without-depth 'solver.gravity: used by the wave solver only with solver.depth or solver.depth_map' \
    -s 'solver={"type": "wave", "gravity": 9}'
refuse wavelength-and-frequency 'give either solver.wavelength or solver.frequency, not both' \
    -s solver.wavelength=0.1 -s solver.frequency=2
refuse depth-range-uniform 'solver.depth_range: used only with a PNG solver.depth_map' -s 'solver.depth_range=[0.01, 0.02]'
refuse depth-range-npy 'solver.depth_range: not used with a .npy solver.depth_map' \
    -s "solver={\"type\": \"wave\", \"depth_map\": \"$T/d.npy\", \"depth_range\": [0.01, 0.02]}"
refuse depth-map-spectral 'solver.depth_map: not used by the spectral solver (a key of wave)' \
    -s "solver={\"type\": \"spectral\", \"depth_map\": \"$T/d.npy\"}"
refuse npy-wrong-size 'solver.depth_map: '"$T"'/d.npy: shape (32, 48): expected (33, 48)' \
    -s "solver={\"type\": \"wave\", \"depth_map\": \"$T/d.npy\"}" -s grid.height=33
refuse render-depth-and-map 'render.depth_map: give either render.depth or render.depth_map, not both' \
    -s render.depth=10 -s "render.depth_map=\"$T/white.png\""
refuse render-range-without-map 'render.depth_range: used only with a PNG render.depth_map' -s 'render.depth_range=[1, 2]'
refuse render-npy-size 'render.depth_map: '"$T"'/d.npy: shape (32, 48): expected (32, 40)' \
    -s "render.depth_map=\"$T/d.npy\"" -s grid.width=40 -s 'solver={"type": "elias"}'

# --- the example: the same frames on one thread and two ---------------------------------------
"$RR" scenes/shoal.json -f 12 -j1 --hash -q > "$T/j1.txt"
"$RR" scenes/shoal.json -f 12 -j2 --hash -q > "$T/j2.txt"
check shoal-j1-is-j2 cmp -s "$T/j1.txt" "$T/j2.txt"
finish

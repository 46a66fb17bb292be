# OpenEXR output (docs/output.md, "OpenEXR"), read back by other programs:
# ffmpeg's EXR decoder gives the heights of the .npy bit for bit (32-bit
# floats) or within half's rounding (output.bit_depth 16); the normals round
# to the PNG normal map's bytes, and render.normal_convention directx negates
# ny exactly (and inverts the PNG's green); the caustics' light is conserved;
# OpenEXR's own exrheader and exrinfo read the channels, types and
# compression. Refusals and failures: one line, the right status, nothing
# left (no frame, no temporary file). The default normal map is unchanged
# (tests/golden/normals.framemd5 checks its bytes; here: opengl = default).
. tests/cli/lib.sh
command -v exrheader > /dev/null || { fail exrheader-installed "no exrheader (Debian package openexr)"; finish; exit; }

cat > "$T/s.json" <<'EOF'
{ "grid": { "width": 48, "height": 36 },
  "time": { "fps": 30, "frames": 6, "steps_per_frame": 2 },
  "boundary": "wrap",
  "drops": [ { "x": 20, "y": 14, "radius": 4, "amplitude": -1.5 },
             { "time": 0.05, "x": 36, "y": 25, "radius": 3, "amplitude": 0.8 } ],
  "obstacles": [ { "type": "rect", "x": 2, "y": 2, "width": 3, "height": 5 } ] }
EOF
one_line() { [ "$(wc -l < "$1")" -eq 1 ]; }
# decode FILE PIX_FMT OUT: ffmpeg's reading of an .exr as raw floats
decode() { ffmpeg -nostdin -v error -i "$1" -f rawvideo -pix_fmt "$2" -y "$3"; }

# compare.py MODE ARGS: the numeric checks, in Python's float32 arrays (no NumPy needed)
cat > "$T/compare.py" <<'EOF'
import array, struct, sys

def npy_frame(path, i, cells):
    d = open(path, "rb").read()
    hl = struct.unpack("<H", d[8:10])[0]
    a = array.array("f")
    a.frombytes(d[10 + hl + 4 * cells * i:10 + hl + 4 * cells * (i + 1)])
    return a

def raw(path):
    a = array.array("f")
    a.frombytes(open(path, "rb").read())
    return a

mode = sys.argv[1]
if mode == "exact":          # raw npy i cells: the same bits
    got, want = raw(sys.argv[2]), npy_frame(sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    sys.exit(0 if got.tobytes() == want.tobytes() else 1)
if mode == "half":           # raw npy i cells: within half's rounding, and not all exact
    got, want = raw(sys.argv[2]), npy_frame(sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    bad = [k for k in range(len(want)) if abs(got[k] - want[k]) > abs(want[k]) * 2 ** -11 + 2 ** -25]
    differ = sum(got[k] != want[k] for k in range(len(want)))
    sys.exit(0 if len(got) == len(want) and not bad and differ > 0 else 1)
if mode == "normals":        # gbrpf32 raw, rgb24 raw: round((1 + n) / 2 * 255) is the PNG's byte; unit vectors
    f, rgb = raw(sys.argv[2]), open(sys.argv[3], "rb").read()
    n = len(rgb) // 3
    g, b, r = f[0:n], f[n:2 * n], f[2 * n:3 * n]
    def byte(v):             # lrintf((0.5f + 0.5f v) * 255) in float32, ties to even
        x = struct.unpack("f", struct.pack("f", 0.5 + 0.5 * v))[0]
        x = struct.unpack("f", struct.pack("f", x * 255.0))[0]
        return round(x)
    ok = all(byte(r[k]) == rgb[3 * k] and byte(g[k]) == rgb[3 * k + 1] and byte(b[k]) == rgb[3 * k + 2]
             and abs(r[k] ** 2 + g[k] ** 2 + b[k] ** 2 - 1) < 1e-5 for k in range(n))
    tilted = sum(abs(g[k]) > 0.05 for k in range(n))
    sys.exit(0 if ok and tilted > 10 else 1)
if mode == "flipped":        # gl dx (gbrpf32 raws): G negated exactly, B and R the same bits
    a, b = raw(sys.argv[2]), raw(sys.argv[3])
    n = len(a) // 3
    neg = array.array("f", (-v for v in a[0:n]))
    sys.exit(0 if b[0:n].tobytes() == neg.tobytes() and b[n:].tobytes() == a[n:].tobytes() else 1)
if mode == "green":          # gl dx (rgb24 raws): dx green = 255 - gl green, red and blue the same
    a, b = open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
    n = len(a) // 3
    sys.exit(0 if len(a) == len(b) and all(b[3 * k + 1] == 255 - a[3 * k + 1] and b[3 * k] == a[3 * k]
                                          and b[3 * k + 2] == a[3 * k + 2] for k in range(n)) else 1)
if mode == "light":          # raw: the floor's light sums to the cell count, and ripples focus it
    l = raw(sys.argv[2])
    s = sum(l)
    sys.exit(0 if abs(s - len(l)) < 1e-3 * len(l) and max(l) > 1.05 and min(l) < 0.95 else 1)
sys.exit(2)
EOF
cells=$((48 * 36))

# --- heights: 32-bit floats, the .npy's bits ---------------------------------------------------------
"$RR" "$T/s.json" -o "$T/h.npy" -q
"$RR" "$T/s.json" -o "$T/e/h_%04d.exr" -q 2> "$T/err"; s=$?
cond heights-exit-0 '[ $s -eq 0 ] && [ ! -s "$T/err" ]'
check heights-one-file-per-frame [ "$(ls -A "$T/e" | tr '\n' ' ')" = "h_0000.exr h_0001.exr h_0002.exr h_0003.exr h_0004.exr h_0005.exr " ]
exrheader "$T/e/h_0003.exr" > "$T/hdr" 2>&1
cond exrheader-one-float-Y '[ "$(grep -c floating-point "$T/hdr")" -eq 1 ] && grep -q "^ *Y, 32-bit floating-point" "$T/hdr"'
check exrheader-zip grep -q 'compression (type compression): zip, multi-scanline blocks' "$T/hdr"
check exrheader-size grep -q 'dataWindow (type box2i): (0 0) - (47 35)' "$T/hdr"
cond exrinfo-reads 'exrinfo -v "$T/e/h_0005.exr" > "$T/info" && grep -q "'"'"'Y'"'"': float" "$T/info"'
all=1
for i in 0 3 5; do
    decode "$T/e/h_000$i.exr" grayf32le "$T/h$i.raw" && python3 "$T/compare.py" exact "$T/h$i.raw" "$T/h.npy" $i $cells || all=0
done
check ffmpeg-reads-the-npy-heights-bit-for-bit [ $all -eq 1 ]

# --- half floats: within half's rounding ---------------------------------------------------------------
"$RR" "$T/s.json" -o "$T/q/h%d.exr" -s output.bit_depth=16 -q
exrheader "$T/q/h4.exr" > "$T/hdr" 2>&1
check exrheader-half grep -q '^ *Y, 16-bit floating-point' "$T/hdr"
decode "$T/q/h4.exr" grayf32le "$T/q4.raw"
check ffmpeg-half-within-rounding python3 "$T/compare.py" half "$T/q4.raw" "$T/h.npy" 4 $cells
check half-files-smaller [ "$(stat -c %s "$T/q/h4.exr")" -lt "$(stat -c %s "$T/e/h_0004.exr")" ]

# --- compressions: the same values, the header says which -----------------------------------------------
# (exrheader's names: zip, individual scanlines; piz; run-length encoding; none)
for c in zips:individual piz:piz rle:run-length none:none; do
    said=${c#*:} c=${c%%:*}
    "$RR" "$T/s.json" -o "$T/c$c/h%d.exr" -s output.exr_compression=$c -f 3 -q
    decode "$T/c$c/h2.exr" grayf32le "$T/c$c.raw"
    cond "compression-$c" 'exrheader "$T/c$c/h2.exr" | grep -q "compression (type compression): .*$said" && python3 "$T/compare.py" exact "$T/c$c.raw" "$T/h.npy" 2 $cells'
done

# --- normals: the PNG's bytes rounded from these floats; directx negates ny ---------------------------
# (no walls: the PNG paints them in obstacle_color, the floats hold their normals)
for conv in opengl directx; do
    "$RR" "$T/s.json" -s render.mode=normals -s render.height_scale=3 -s render.normal_convention=$conv \
        -s 'obstacles=[]' -o "$T/n$conv/n%d.exr" -q
    "$RR" "$T/s.json" -s render.mode=normals -s render.height_scale=3 -s render.normal_convention=$conv \
        -s 'obstacles=[]' -o "$T/p$conv/p%d.png" -q
    decode "$T/n$conv/n3.exr" gbrpf32le "$T/n$conv.raw"
    decode "$T/p$conv/p3.png" rgb24 "$T/p$conv.rgb"
done
# directx's PNG green is 255 - opengl's (not the rounding of -ny at ties): the two checks below
check normals-round-to-the-png python3 "$T/compare.py" normals "$T/nopengl.raw" "$T/popengl.rgb"
exrheader "$T/nopengl/n3.exr" > "$T/hdr" 2>&1
cond exrheader-normals-rgb 'grep -q "^ *R, 32-bit floating-point" "$T/hdr" && grep -q "^ *G, 32" "$T/hdr" && grep -q "^ *B, 32" "$T/hdr" && [ $(grep -c floating-point "$T/hdr") -eq 3 ]'
check directx-negates-ny-exactly python3 "$T/compare.py" flipped "$T/nopengl.raw" "$T/ndirectx.raw"
check directx-inverts-png-green python3 "$T/compare.py" green "$T/popengl.rgb" "$T/pdirectx.rgb"
"$RR" "$T/s.json" -s render.mode=normals --hash -q > "$T/default.hash"
"$RR" "$T/s.json" -s render.mode=normals -s render.normal_convention=opengl --hash -q > "$T/opengl.hash"
check normals-default-is-opengl cmp -s "$T/default.hash" "$T/opengl.hash"
"$RR" "$T/s.json" -s render.mode=normals -s render.normal_convention=directx --hash -q > "$T/directx.hash"
cond directx-changes-the-frames '! cmp -s "$T/default.hash" "$T/directx.hash"'
"$RR" "$T/s.json" -s render.mode=normals --print-scene > "$T/printed.json"   # a normals key
cond print-scene-has-the-keys 'grep -q "\"normal_convention\":[[:space:]]*\"opengl\"" "$T/printed.json" && grep -q "\"exr_compression\":[[:space:]]*\"zip\"" "$T/printed.json"'

# --- caustics and alpha -------------------------------------------------------------------------------
"$RR" "$T/s.json" -s render.mode=caustics -s render.depth=8 -s render.alpha=caustics -o "$T/k/c%d.exr" -q
exrheader "$T/k/c5.exr" > "$T/hdr" 2>&1
cond exrheader-caustics-Y-and-A 'grep -q "^ *A, 32-bit floating-point" "$T/hdr" && grep -q "^ *Y, 32-bit floating-point" "$T/hdr" && [ $(grep -c floating-point "$T/hdr") -eq 2 ]'
"$RR" "$T/s.json" -s render.mode=caustics -s render.depth=8 -o "$T/k1/c%d.exr" -q
decode "$T/k1/c5.exr" grayf32le "$T/light.raw"
check caustics-light-conserved python3 "$T/compare.py" light "$T/light.raw"

# --- --range: the frames' own numbers -------------------------------------------------------------------
"$RR" "$T/s.json" --range 2-3 -o "$T/r/h%02d.exr" -q
check range-names [ "$(ls -A "$T/r" | tr '\n' ' ')" = "h02.exr h03.exr " ]
decode "$T/r/h03.exr" grayf32le "$T/r3.raw"
check range-heights python3 "$T/compare.py" exact "$T/r3.raw" "$T/h.npy" 3 $cells

# --- refusals: one line, exit 2, nothing written ----------------------------------------------------------
refused() {   # refused NAME MESSAGE ARGS...: exit 2, the one line holds MESSAGE, $T/x stays empty
    name=$1 msg=$2; shift 2
    rm -rf "$T/x"; mkdir -p "$T/x"
    "$RR" "$T/s.json" "$@" -q 2> "$T/err"; s=$?
    if [ $s -eq 2 ] && one_line "$T/err" && grep -qF -- "$msg" "$T/err" && [ -z "$(ls -A "$T/x")" ]; then ok "$name"
    else fail "$name" "status $s, files: $(ls -A "$T/x"), $(cat "$T/err")"; fi
}
refused refuse-no-field "x/h.exr: the name of a file per frame (.png, .exr) needs exactly one frame number field" -o "$T/x/h.exr"
refused refuse-two-fields "needs exactly one frame number field" -o "$T/x/h%d_%d.exr"
refused refuse-long-field "needs exactly one frame number field" -o "$T/x/h%ld.exr"
refused refuse-shaded 'render.mode: '"$T"'/x/h%d.exr holds a mode'"'"'s float picture; "shaded" has no float picture (height, normals or caustics have; use a PNG sequence for its colours)' -s render.mode=shaded -o "$T/x/h%d.exr"
refused refuse-scaled "render.width: $T/x/h%d.exr holds one pixel per grid cell (48x36), not a 96x72 render" -s render.width=96 -s render.height=72 -o "$T/x/h%d.exr"
refused refuse-32-for-npy "output.bit_depth: 32 (float) is for .exr, not $T/x/h.npy (use 8)" -s output.bit_depth=32 -o "$T/x/h.npy"
refused refuse-32-for-png "output.bit_depth: 32 (float) is for .exr, not $T/x/f%d.png (use 8 or 16)" -s output.bit_depth=32 -o "$T/x/f%d.png"
refused refuse-compression 'output.exr_compression: expected one of "zip", "zips", "piz", "rle", "none", got "b44"' -s output.exr_compression=b44 -o "$T/x/h%d.exr"

# --- failures: one line, exit 1, nothing left -----------------------------------------------------------
# an existing frame without -y: refused before anything is written, the file kept
rm -rf "$T/x"; mkdir -p "$T/x"; echo mine > "$T/x/h4.exr"
"$RR" "$T/s.json" -o "$T/x/h%d.exr" -q 2> "$T/err"; s=$?
cond exists-refused '[ $s -eq 1 ] && one_line "$T/err" && grep -q "h4.exr: already exists (use -y to replace it)" "$T/err"'
cond exists-nothing-else '[ "$(ls -A "$T/x")" = h4.exr ] && [ "$(cat "$T/x/h4.exr")" = mine ]'
"$RR" "$T/s.json" -o "$T/x/h%d.exr" -y -q
decode "$T/x/h4.exr" grayf32le "$T/y4.raw"
check overwrite-replaces python3 "$T/compare.py" exact "$T/y4.raw" "$T/h.npy" 4 $cells
# a folder that is a file
rm -rf "$T/x"; mkdir -p "$T/x"; echo file > "$T/x/f"
"$RR" "$T/s.json" -o "$T/x/f/h%d.exr" -q 2> "$T/err"; s=$?
cond under-a-file '[ $s -eq 1 ] && one_line "$T/err" && grep -q "is not a directory" "$T/err" && [ "$(ls -A "$T/x")" = f ]'
# a folder we may not write in (root may write anywhere: not checked then)
if [ "$(id -u)" -ne 0 ]; then
    rm -rf "$T/x"; mkdir -p "$T/x/ro"; chmod 0555 "$T/x/ro"
    "$RR" "$T/s.json" -o "$T/x/ro/h%d.exr" -q 2> "$T/err"; s=$?
    cond unwritable-folder '[ $s -eq 1 ] && one_line "$T/err" && [ -z "$(ls -A "$T/x/ro")" ]'
    chmod 0755 "$T/x/ro"
else
    echo "skip unwritable-folder: root writes in any folder"
fi
# a file-size limit inside a frame: the frame is named, nothing is left
rm -rf "$T/x"; mkdir -p "$T/x"
(ulimit -f 8; exec "$RR" "$T/s.json" -s grid.width=256 -s grid.height=256 -s output.exr_compression=none \
    -o "$T/x/h%d.exr" -q) 2> "$T/err"; s=$?
cond fsize-limit '[ $s -eq 1 ] && one_line "$T/err" && grep -q "h0.exr: cannot write EXR: File too large" "$T/err" && [ -z "$(ls -A "$T/x")" ]'
finish

# Command-line tests of the water render modes and the GIF output: every mode
# renders from the command line and its keys round-trip through --print-scene;
# still water gives a uniform picture (shaded, caustics), the background
# itself (refract) and 128,128,255 (normals); a wrapped normal map tiles; GIF
# files are gif, the right size and frame count, and loop forever.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

probe() { ffprobe -v error -select_streams v:0 -count_frames -show_entries "$2" -of default=nw=1:nk=1 "$1" 2>/dev/null | head -n 1; }
md5col() { grep -v '^#' "$1" | awk -F, '{gsub(/ /, "", $NF); print $NF}'; }
# The distinct rgb24 pixel values of a PNG, one per line.
pixels() { ffmpeg -v error -i "$1" -f rawvideo -pix_fmt rgb24 - | od -An -v -tu1 -w3 | sort -u; }

cp scenes/pool.png "$T/pool.png"
cat > "$T/still.json" <<'JSON'
{ "grid": { "width": 48, "height": 32 }, "time": { "fps": 10, "frames": 2 },
  "render": { "mode": "shaded" } }
JSON
cat > "$T/ripples.json" <<'JSON'
{ "grid": { "width": 48, "height": 32 }, "time": { "fps": 10, "frames": 6 },
  "boundary": "wrap",
  "drops": [ { "x": 2, "y": 30, "radius": 4, "amplitude": -2, "shape": "cosine" } ],
  "obstacles": [ { "type": "rect", "x": 20, "y": 10, "width": 4, "height": 4 } ],
  "render": { "mode": "shaded", "obstacle_color": [255, 0, 255] } }
JSON
# The scenes' mode is shaded, which refuses refract's background: refract
# runs are given it with --set (relative to the scene's folder).
bg() { [ "$1" = refract ] && echo "-s render.background=pool.png"; }

# --- still water ------------------------------------------------------------------
for m in shaded caustics normals; do
    mkdir -p "$T/$m"
    "$RR" "$T/still.json" -s render.mode=$m -o "$T/$m/f%d.png" -q; check "still-$m-exit-0" [ $? -eq 0 ]
    check "still-$m-uniform" [ "$(pixels "$T/$m/f1.png" | wc -l)" -eq 1 ]
done
check still-normals-flat [ "$(pixels "$T/normals/f1.png" | tr -s ' ')" = " 128 128 255" ]
check still-caustics-floor-colour [ "$(pixels "$T/caustics/f0.png" | tr -s ' ')" = " 150 170 160" ]
# refract: the background at its own size, pixel for pixel (framemd5 of both)
"$RR" "$T/still.json" -s render.mode=refract $(bg refract) -s render.width=256 -s render.height=192 -o "$T/r.framemd5" -q
check still-refract-exit-0 [ $? -eq 0 ]
ffmpeg -v error -i scenes/pool.png -pix_fmt rgb24 -f framemd5 - > "$T/bg.framemd5"
check still-refract-is-background [ "$(md5col "$T/r.framemd5" | head -n 1)" = "$(md5col "$T/bg.framemd5")" ]

# caustics over a floor texture: still water shows the texture itself
"$RR" "$T/still.json" -s render.mode=caustics -s render.floor=pool.png -s grid.width=256 -s grid.height=192 \
    -o "$T/c.framemd5" -q
check still-caustics-is-floor [ "$(md5col "$T/c.framemd5" | head -n 1)" = "$(md5col "$T/bg.framemd5")" ]

# --- every mode renders ripples and paints walls, at the grid's size and scaled ---------
for m in shaded refract normals caustics; do
    mkdir -p "$T/w$m"
    "$RR" "$T/ripples.json" -s render.mode=$m $(bg $m) -s render.width=96 -s render.height=64 -o "$T/w$m/f%d.png" -q
    check "walls-$m-exit-0" [ $? -eq 0 ]
    check "walls-$m-scaled-size" [ "$(probe "$T/w$m/f5.png" stream=width)x$(probe "$T/w$m/f5.png" stream=height)" = 96x64 ]
    check "walls-$m-magenta" sh -c "$(command -v ffmpeg) -v error -i '$T/w$m/f5.png' -vf crop=4:4:44:24 -f rawvideo -pix_fmt rgb24 - | od -An -v -tu1 -w3 | sort -u | tr -s ' ' | grep -qx ' 255 0 255'"
    check "ripples-$m-not-uniform" [ "$(pixels "$T/w$m/f5.png" | wc -l)" -gt 20 ]
    "$RR" "$T/ripples.json" -s render.mode=$m $(bg $m) --hash -j 1 -q > "$T/j1"
    "$RR" "$T/ripples.json" -s render.mode=$m $(bg $m) --hash -j 2 -q > "$T/j2"
    check "threads-$m" cmp -s "$T/j1" "$T/j2"
done

# --- a wrapped normal map tiles: the first column continues the last ---------------------
# The same drop 24 cells further on a 48-cell wrapped grid gives the picture
# rolled by 24 columns, exactly: waves cross the seam and the normals there
# are computed through it (the drops themselves lie inside the grid).
cat > "$T/tile.json" <<'JSON'
{ "grid": { "width": 48, "height": 32 }, "time": { "fps": 10, "frames": 6 }, "boundary": "wrap",
  "drops": [ { "x": 40, "y": 16, "radius": 4, "amplitude": -2, "shape": "cosine" } ],
  "render": { "mode": "normals", "height_scale": 2 } }
JSON
mkdir -p "$T/na" "$T/nb"
"$RR" "$T/tile.json" -o "$T/na/f%d.png" -q
"$RR" "$T/tile.json" -s drops.0.x=16 -o "$T/nb/f%d.png" -q
ffmpeg -v error -i "$T/na/f5.png" -filter_complex "[0]split[a][b];[a]crop=24:32:24:0[r];[b]crop=24:32:0:0[l];[r][l]hstack" -f rawvideo -pix_fmt rgb24 - | md5sum > "$T/rolled"
ffmpeg -v error -i "$T/nb/f5.png" -f rawvideo -pix_fmt rgb24 - | md5sum > "$T/moved"
check normals-wrap-tiles cmp -s "$T/rolled" "$T/moved"
check normals-wrap-not-flat [ "$(pixels "$T/na/f5.png" | wc -l)" -gt 20 ]

# --- --print-scene round trip with every key of a mode, and no other mode's ---------------------
"$RR" "$T/ripples.json" -s render.mode=caustics -s render.depth=12.5 -s render.height_scale=2 \
    -s render.floor=pool.png -s render.floor_color=#102030 --print-scene > "$T/resolved.json"
check print-scene-exit-0 [ $? -eq 0 ]
check print-scene-has-keys sh -c "grep -q '\"depth\":	12.5' '$T/resolved.json' && grep -q '\"floor\":	\"' '$T/resolved.json' && grep -q '\"obstacle_color\"' '$T/resolved.json'"
check print-scene-no-other-mode sh -c "! grep -q '\"water_color\"\\|\"background\"\\|\"light\"' '$T/resolved.json'"
"$RR" "$T/ripples.json" -s render.mode=caustics -s render.depth=12.5 -s render.height_scale=2 \
    -s render.floor=pool.png -s render.floor_color=#102030 --hash -q > "$T/h1"
(cd "$T" && "$RR" resolved.json --hash -q) > "$T/h2"
check print-scene-same-frames cmp -s "$T/h1" "$T/h2"
"$RR" "$T/ripples.json" -s render.mode=refract -s 'render.light=[1,0.5,3]' -s render.refraction=-3 \
    -s render.shininess=12 $(bg refract) --print-scene > "$T/resolved-r.json"
"$RR" "$T/ripples.json" -s render.mode=refract -s 'render.light=[1,0.5,3]' -s render.refraction=-3 \
    -s render.shininess=12 $(bg refract) --hash -q > "$T/h1"
(cd "$T" && "$RR" resolved-r.json --hash -q) > "$T/h2"
check print-scene-refract-same-frames cmp -s "$T/h1" "$T/h2"
"$RR" "$T/ripples.json" -s render.mode=refract -s render.background=null --print-scene | grep -q '"background":	null'
check background-null [ $? -eq 0 ]

# --- GIF: codec, size, frames, loop forever, timing in 1/100 s, atomic -------------------------
"$RR" "$T/ripples.json" -s time.frames=12 -o "$T/a.gif" -q; check gif-exit-0 [ $? -eq 0 ]
check gif-codec [ "$(probe "$T/a.gif" stream=codec_name)" = gif ]
check gif-size [ "$(probe "$T/a.gif" stream=width)x$(probe "$T/a.gif" stream=height)" = 48x32 ]
check gif-frames [ "$(probe "$T/a.gif" stream=nb_read_frames)" = 12 ]
# NETSCAPE2.0 application extension, loop count 0 (forever): bytes 03 01 00 00
check gif-loops-forever sh -c "grep -ao 'NETSCAPE2.0....' '$T/a.gif' | od -An -tx1 | tr -d ' \n' | grep -q '^4e45545343415045322e3003010000'"
d=$(ffprobe -v error -show_entries format=duration -of default=nw=1:nk=1 "$T/a.gif")
check gif-duration awk -v d="$d" 'BEGIN { exit !(d > 1.15 && d < 1.25) }'
check gif-no-temp-left [ -z "$(ls -A "$T" | grep '\.tmp')" ]
"$RR" "$T/ripples.json" -s render.width=97 -s render.height=31 -f 3 -o "$T/odd.gif" -q
check gif-odd-size [ "$(probe "$T/odd.gif" stream=width)x$(probe "$T/odd.gif" stream=height)" = 97x31 ]
# the decoded GIF is close to the rendered frames (palette error only)
"$RR" "$T/ripples.json" -s render.mode=normals -f 4 -o "$T/n.gif" -q
mkdir -p "$T/ng"; "$RR" "$T/ripples.json" -s render.mode=normals -f 4 -o "$T/ng/f%d.png" -q
psnr=$(ffmpeg -v info -i "$T/n.gif" -i "$T/ng/f%d.png" -lavfi "[0]format=rgb24[a];[1]format=rgb24[b];[a][b]psnr" -f null - 2>&1 | sed -n 's/.*average:\([0-9.inf]*\).*/\1/p' | tail -n 1)
check gif-psnr awk -v p="$psnr" 'BEGIN { exit !(p == "inf" || p > 30) }'
echo keep > "$T/exists.gif"
"$RR" "$T/ripples.json" -o "$T/exists.gif" -q 2> "$T/err"; s=$?
check gif-no-overwrite [ $s -eq 1 ] && check gif-untouched [ "$(cat "$T/exists.gif")" = keep ]
"$RR" "$T/ripples.json" -s output.codec=libx264 -o "$T/c.gif" -q 2> "$T/err"; s=$?
check gif-wrong-codec-exit-2 [ $s -eq 2 ]
check gif-wrong-codec-message grep -q 'output.codec: a .gif file holds only the gif codec' "$T/err"
check gif-wrong-codec-no-file [ ! -e "$T/c.gif" ]

# --- 16-bit PNGs: grey for height, rgb for the water modes (tests/cli/test_depth.sh) --------
mkdir -p "$T/h16"
"$RR" "$T/ripples.json" -s render.mode=height -s output.bit_depth=16 -o "$T/h16/h%d.png" -q
check height16-gray16 [ "$(probe "$T/h16/h0.png" stream=pix_fmt)" = gray16be ]
"$RR" "$T/ripples.json" -s output.bit_depth=16 -o "$T/h16/s%d.png" -q 2> "$T/err"; s=$?
check shaded16-exit-0 [ $s -eq 0 ]
check shaded16-rgb48 [ "$(probe "$T/h16/s0.png" stream=pix_fmt)" = rgb48be ]

# --- scaled renders in bands of output rows (src/scale.h): the same frames on 1, 2 and 3 threads
# Render sizes of at least 65536 pixels (smaller ones scale on one thread):
# 2x, odd sizes at odd ratios, extreme ratios up and down, one axis up and
# the other down. The debug line shows the bands each run scaled in.
cat > "$T/band.json" <<'JSON'
{ "grid": { "width": 48, "height": 32 }, "time": { "fps": 10, "frames": 4 },
  "drops": [ { "x": 3, "y": 3, "radius": 3, "amplitude": -2, "shape": "cosine" } ],
  "obstacles": [ { "type": "rect", "x": 6, "y": 1, "width": 1, "height": 3 } ],
  "render": { "mode": "shaded" } }
JSON
for size in 48x32:96x64:480x320 48x32:48x32:509x257 8x6:8x6:640x480 48x32:48x32:2001x37 48x32:48x32:37x2001 \
            640x480:640x480:303x229 200x8:200x8:61x1200; do
    g=${size%%:*}; r=${size##*:}
    set -- -s grid.width=${g%x*} -s grid.height=${g#*x} -s render.width=${r%x*} -s render.height=${r#*x}
    for j in 1 2 3; do
        RIPPLERENDER_DEBUG=kernels "$RR" "$T/band.json" "$@" --hash -q -j $j > "$T/band$j" 2> "$T/band$j.err"
    done
    check "bands-$g-to-$r-j1-j2" cmp -s "$T/band1" "$T/band2"
    check "bands-$g-to-$r-j1-j3" cmp -s "$T/band1" "$T/band3"
    check "bands-$g-to-$r-four-frames" [ "$(wc -l < "$T/band1")" -eq 4 ]
    check "bands-$g-to-$r-frames-differ" [ "$(cut -d' ' -f2 "$T/band1" | sort -u | wc -l)" -gt 1 ]
    for j in 1 2 3; do
        check "bands-$g-to-$r-j$j-in-$j" grep -q "scale: rgb24 ${g%%:*} to $r in $j band" "$T/band$j.err"
    done
done
# The 16-bit colour, its alpha and the 16-bit grey go through scalers of
# their own: 16-bit PNGs with alpha, and the height mode's grey, on 1 and 3 threads.
for m in shaded height; do
    for j in 1 3; do
        mkdir -p "$T/b$m$j"
        "$RR" "$T/band.json" -s render.mode=$m -s render.alpha=height -s render.width=509 -s render.height=257 \
            -s output.bit_depth=16 -f 2 -o "$T/b$m$j/f%d.png" -q -j $j
    done
    check "bands-16bit-$m-written" [ -s "$T/b${m}1/f1.png" ]
    check "bands-16bit-$m-j1-j3" cmp -s "$T/b${m}1/f1.png" "$T/b${m}3/f1.png"
done

# --- errors -----------------------------------------------------------------------------------
"$RR" "$T/ripples.json" -s render.mode=refract -s render.background=missing.png --validate 2> "$T/err"; s=$?
check missing-background-exit-2 [ $s -eq 2 ]
check missing-background-names-key grep -q 'render.background: cannot open "missing.png"' "$T/err"
printf 'not a png' > "$T/bad.png"
"$RR" "$T/ripples.json" -s render.mode=refract -s render.background=bad.png -o "$T/x.mp4" -q 2> "$T/err"; s=$?
check broken-background-exit-2 [ $s -eq 2 ]
check broken-background-message grep -q 'render.background: .*bad.png: cannot read PNG' "$T/err"

finish

# Command-line tests of output.bit_depth, render.alpha and the lossless outputs
# (docs/output.md "Bit depth and alpha", docs/render.md "16 bits per channel",
# "Alpha"): a smooth surface (a long plane wave at an angle, so every pixel's
# height differs) gives more than 1000 levels in a 16-bit PNG of every mode,
# and more than 256 in 10-bit video (the height mode's grey: 8-bit data in a
# 10-bit format would give at most 256 luma levels), checked by decoding with
# ffmpeg; each 16-bit PNG agrees with the 8-bit one (the same float rounded
# twice); --hash stays the rgb24 hash whatever the output's depth; alpha
# decoded from RGBA PNG, VP9 webm, ProRes 4444 and ffv1 equals |height| over
# the range, computed from the .npy heights of the same scene; the
# combinations that cannot act are refused naming the key, before anything is
# written; every lossless output that docs/output.md lists decodes to the
# frames of --hash.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

D="python3 tests/cli/depth_check.py"
cat > "$T/ramp.json" <<'JSON'
{ "grid": { "width": 256, "height": 128 }, "time": { "fps": 10, "frames": 1 },
  "initial": [ { "type": "wave", "amplitude": 1, "wavelength": 700, "angle": 20 } ],
  "render": { "mode": "height", "range": [-1, 1] } }
JSON
# The ramp's slopes for the modes that read them (height and colormap refuse
# render.height_scale).
hs() { case "$1" in height|colormap) ;; *) echo "-s render.height_scale=40" ;; esac; }
cat > "$T/drop.json" <<'JSON'
{ "grid": { "width": 48, "height": 32 }, "time": { "fps": 10, "frames": 3 },
  "drops": [ { "x": 24, "y": 16, "radius": 5, "amplitude": 1, "shape": "cosine" } ],
  "obstacles": [ { "type": "rect", "x": 2, "y": 2, "width": 4, "height": 4 } ],
  "render": { "mode": "shaded" } }
JSON

# --- 16-bit PNG, every mode ------------------------------------------------------------
"$RR" "$T/ramp.json" --hash > "$T/hash8.txt"
for m in height colormap shaded normals caustics refract; do
    mkdir -p "$T/$m"
    "$RR" "$T/ramp.json" -s render.mode=$m $(hs $m) -o "$T/$m/a%d.png" -q; s8=$?
    "$RR" "$T/ramp.json" -s render.mode=$m $(hs $m) -s output.bit_depth=16 -o "$T/$m/b%d.png" -q --hash > "$T/$m/hash.txt"; s16=$?
    check "png16-$m-exit-0" [ "$s8$s16" = 00 ]
    n=$($D levels "$T/$m/b0.png" rgb48le 2)
    echo "  $m: $n levels in the 16-bit PNG"
    check "png16-$m-levels-over-1000" [ "$n" -gt 1000 ]
    check "png16-$m-8bit-at-most-256" [ "$($D levels "$T/$m/a0.png" rgb24 1)" -le 256 ]
    # The same float rounded to 8 and 16 bits: |v16 - 257 v8| <= 128.5 (colormap:
    # the 8-bit nearest entry against the 16-bit table read between entries).
    tol=129; [ $m = colormap ] && tol=$((257 * 4))
    check "png16-$m-agrees-with-8bit" [ "$($D match16 "$T/$m/b0.png" "$T/$m/a0.png")" -le $tol ]
    if [ $m = height ]; then want=0; else want=2; fi   # colour type: grey / rgb
    check "png16-$m-ihdr" [ "$(od -An -tu1 -j24 -N2 "$T/$m/b0.png" | tr -s ' ')" = " 16 $want" ]
    [ $m = height ] && check "png16-hash-is-rgb24" cmp -s "$T/height/hash.txt" "$T/hash8.txt"
done

# A 16-bit PNG that cannot be written (file-size limit): one line, exit 1, nothing left
mkdir "$T/full"
(ulimit -f 20; "$RR" "$T/ramp.json" -s render.mode=shaded $(hs shaded) -s output.bit_depth=16 -o "$T/full/f%d.png" -q 2> "$T/err"); s=$?
check png16-write-error [ $s -eq 1 ]
check png16-write-error-message grep -qx "ripplerender: $T/full/f0.png: cannot write PNG: File too large" "$T/err"
check png16-write-error-nothing-left [ -z "$(ls -A "$T/full")" ]

# --- 10-bit and 16-bit video -----------------------------------------------------------
# name|output|settings|decoded pix_fmt (the file's own: count its first plane)
while IFS='|' read -r nm out set pix; do
    "$RR" "$T/ramp.json" -o "$T/$out" $set -q; s=$?
    check "video16-$nm-exit-0" [ $s -eq 0 ]
    got=$(ffprobe -v error -show_entries stream=pix_fmt -of csv=p=0 "$T/$out")
    check "video16-$nm-pix-fmt" [ "$got" = "$pix" ]
    n=$($D levels "$T/$out" "$pix" 2)
    echo "  $nm ($pix): $n levels in plane 0"
    check "video16-$nm-levels-over-256" [ "$n" -gt 256 ]
done <<'LIST'
ffv1|v1.mkv|-soutput.codec=ffv1 -soutput.bit_depth=16|gbrp16le
prores|v2.mov|-soutput.codec=prores_ks|yuv444p12le
x265|v3.mp4|-soutput.codec=libx265 -soutput.bit_depth=16|yuv420p10le
vp9|v4.webm|-soutput.bit_depth=16|yuv420p10le
x264|v5.mkv|-soutput.bit_depth=16|yuv420p10le
LIST
# 10-bit luma against the heights: the 8-bit render in a 10-bit format is off by
# its 8-bit rounding (RMS 3.43 / sqrt(12) = 0.99 levels); the 16-bit render
# only by the 10-bit rounding (0.29) and the codec's own loss.
"$RR" "$T/ramp.json" -o "$T/ramp.npy" -q
while IFS='|' read -r nm out set pix limit; do
    "$RR" "$T/ramp.json" -o "$T/$out" $set -q -y
    rms=$($D luma "$T/$out" "$T/ramp.npy" "$pix" 10)
    echo "  $nm ($pix): luma RMS $rms levels from the heights"
    check "luma10-$nm-rms" awk -v e="$rms" -v t="$limit" 'BEGIN { exit !(e <= t) }'
done <<'LIST'
ffv1|l1.mkv|-soutput.codec=ffv1 -soutput.pix_fmt=yuv420p10le|yuv420p10le|0.35
prores|l2.mov|-soutput.codec=prores_ks|yuv422p10le|0.5
vp9|l3.webm|-soutput.bit_depth=16 -soutput.crf=4|yuv420p10le|0.6
LIST
# ffv1 at 16 bits is lossless: the same samples as the 16-bit PNG, alpha included
for set in "" "-srender.alpha=height"; do
    "$RR" "$T/ramp.json" -s render.mode=shaded $(hs shaded) -s output.bit_depth=16 $set -o "$T/f16.mkv" -s output.codec=ffv1 -q -y
    "$RR" "$T/ramp.json" -s render.mode=shaded $(hs shaded) -s output.bit_depth=16 $set -o "$T/f16-%d.png" -q -y
    a=$(ffmpeg -nostdin -v error -i "$T/f16.mkv" -f rawvideo -pix_fmt rgba64le - | md5sum)
    b=$(ffmpeg -nostdin -v error -i "$T/f16-0.png" -f rawvideo -pix_fmt rgba64le - | md5sum)
    check "ffv1-16-lossless${set:+-alpha}" [ "$a" = "$b" ]
done
# 8 bits stay 8 bits (the same count on yuv420p: the test can tell)
"$RR" "$T/ramp.json" -o "$T/v8.mkv" -s output.codec=libx264 -q
check video8-levels-at-most-256 [ "$($D levels "$T/v8.mkv" yuv420p 1)" -le 256 ]

# --- alpha -----------------------------------------------------------------------------
"$RR" "$T/drop.json" -o "$T/drop.npy" -f 1 -q
"$RR" "$T/drop.json" -s render.mode=height -o "$T/dh.npy" -f 1 -q   # the same heights
check alpha-npy-same-heights cmp -s "$T/drop.npy" "$T/dh.npy"
# name, output, settings, decoder, tolerance in 1/255 (the walls' alpha is 1, the test's
# expectation |h| / top: the scene's wall is where the heights are 0, so it is left out below)
sed 's/"obstacles": \[[^]]*\],//' "$T/drop.json" > "$T/nowall.json"
"$RR" "$T/nowall.json" -o "$T/nw.npy" -f 1 -q
while IFS='|' read -r nm out set dec tol; do
    "$RR" "$T/nowall.json" -f 1 -s render.alpha=height -s 'render.range=[-0.5,0.5]' -o "$T/$out" $set -q; s=$?
    check "alpha-$nm-exit-0" [ $s -eq 0 ]
    f=$T/$out; case "$out" in *%d*) f=$(printf "$T/$out" 0) ;; esac
    [ "$dec" = - ] && dec=
    err=$($D alpha "$f" "$T/nw.npy" 0.5 $dec)
    echo "  $nm: alpha within $err/255 of |h|/0.5"
    check "alpha-$nm-matches-heights" awk -v e="$err" -v t="$tol" 'BEGIN { exit !(e <= t) }'
done <<'LIST'
png8|p8-%d.png|-soutput.bit_depth=8|-|0.51
png16|p16-%d.png|-soutput.bit_depth=16|-|0.01
webm-vp9|a.webm|-soutput.crf=10|libvpx-vp9|4
prores4444|a.mov|-soutput.codec=prores_ks|-|1
ffv1-16|a.mkv|-soutput.codec=ffv1 -soutput.bit_depth=16|-|0.01
LIST
check alpha-png16-rgba [ "$(od -An -tu1 -j24 -N2 "$T/p16-0.png" | tr -s ' ')" = " 16 6" ]
check alpha-prores-4444 [ "$(ffprobe -v error -show_entries stream=codec_tag_string,pix_fmt -of csv=p=0 "$T/a.mov")" = "ap4h,yuva444p12le" ]
# The drop scene with its wall: the wall is opaque, still water transparent.
"$RR" "$T/drop.json" -f 1 -s render.alpha=height -o "$T/w%d.png" -q
ffmpeg -v error -i "$T/w0.png" -vf alphaextract -f rawvideo -pix_fmt gray - | od -An -v -tu1 -w48 > "$T/w.txt"
check alpha-wall-opaque [ "$(sed -n 4p "$T/w.txt" | awk '{ print $3, $4, $5, $6 }')" = "255 255 255 255" ]
check alpha-still-transparent [ "$(sed -n 32p "$T/w.txt" | tr -s ' ' '\n' | sort -u | tr -d '\n')" = "0" ]
# caustics: light above still water's; still water none
"$RR" "$T/nowall.json" -s render.mode=caustics -s render.alpha=caustics -f 1 -s 'drops=[]' -o "$T/c%d.png" -q
check alpha-caustics-still-0 [ "$(ffmpeg -v error -i "$T/c0.png" -vf alphaextract -f rawvideo -pix_fmt gray - | od -An -v -tu1 | tr -s ' ' '\n' | sort -u | tr -d '\n')" = "0" ]
"$RR" "$T/nowall.json" -s render.mode=caustics -s render.alpha=caustics -s render.depth=20 -o "$T/c%d.png" -q -y
check alpha-caustics-light [ "$(ffmpeg -v error -i "$T/c2.png" -vf alphaextract -f rawvideo -pix_fmt gray - | od -An -v -tu1 | tr -s ' ' '\n' | sort -u | wc -l)" -gt 3 ]

# --- refusals: one line, exit 2, nothing written --------------------------------------------
mkdir "$T/no"
while IFS='|' read -r nm out set msg; do
    "$RR" "$T/drop.json" -o "$T/no/$out" $set -q 2> "$T/err"; s=$?
    if [ $s -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -qF -- "$msg" "$T/err" \
        && [ -z "$(ls -A "$T/no")" ]; then ok "refuse-$nm"
    else fail "refuse-$nm" "status $s: $(cat "$T/err"); left: $(ls -A "$T/no")"; fi
done <<'LIST'
bit16-yuv420p|r.mp4|-soutput.bit_depth=16 -soutput.pix_fmt=yuv420p|output.bit_depth: 16 needs more than 8 bits; output.pix_fmt "yuv420p" has 8
bit16-utvideo|r.mkv|-soutput.bit_depth=16 -soutput.codec=utvideo|output.bit_depth: 16: output.codec utvideo has no pixel format of more than 8 bits
bit16-gif|r.gif|-soutput.bit_depth=16|output.bit_depth: 16 does not apply to
bit16-framemd5|r.framemd5|-soutput.bit_depth=16|output.bit_depth: 16 does not apply to
bit16-npy|r.npy|-soutput.bit_depth=16|output.bit_depth: 16 does not apply to
alpha-pixfmt-without-render-alpha|r.webm|-soutput.pix_fmt=yuva420p|output.pix_fmt: "yuva420p" has an alpha plane: set render.alpha
alpha-prores-pixfmt-without-render-alpha|r.mov|-soutput.codec=prores_ks -soutput.pix_fmt=yuva444p10le|output.pix_fmt: "yuva444p10le" has an alpha plane
alpha-on-yuv420p|r.webm|-srender.alpha=height -soutput.pix_fmt=yuv420p|render.alpha: output.pix_fmt "yuv420p" has no alpha plane
alpha-x264|r.mp4|-srender.alpha=height|render.alpha: output.codec libx264 has no pixel format with alpha
alpha-gif|r.gif|-srender.alpha=height|has no alpha channel
alpha-framemd5|r.framemd5|-srender.alpha=height|has no alpha channel
alpha-npy|r.npy|-srender.alpha=height|has no alpha channel
alpha-refract|r%d.png|-srender.mode=refract -srender.alpha=height|render.alpha: "height" does not go with render.mode "refract"
alpha-caustics-mode|r%d.png|-srender.alpha=caustics|render.alpha: "caustics" needs render.mode "caustics" (the mode is "shaded")
rawvideo-mkv|r.mkv|-soutput.codec=rawvideo|output.codec: rawvideo cannot be stored in a .mkv file
LIST

# --- the lossless outputs, as docs/output.md lists them --------------------------------------
"$RR" "$T/drop.json" --hash | awk '{ print $2 }' > "$T/drop.md5"
sed -n '/^Reproduce it from a lossless video/,/^`rawvideo` in/p' docs/output.md \
    | sed -n 's/^- \(.*\) with `output.codec` `\([a-z0-9_]*\)`.*/\1 \2/p' > "$T/lossless.txt"
check lossless-list-read [ "$(wc -l < "$T/lossless.txt")" -ge 4 ]
while read -r line; do
    codec=${line##* }
    for ext in $(echo "$line" | grep -o '`\.[a-z0-9]*`' | tr -d '`.'); do
        "$RR" "$T/drop.json" -o "$T/l.$ext" -s output.codec=$codec -q -y; s=$?
        ffmpeg -nostdin -v error -i "$T/l.$ext" -pix_fmt rgb24 -f framemd5 - | grep -v '^#' | awk -F, '{ gsub(/ /, "", $NF); print $NF }' > "$T/l.md5"
        check "lossless-$codec-$ext" [ $s -eq 0 ] && cmp -s "$T/l.md5" "$T/drop.md5"
    done
done < "$T/lossless.txt"
finish

# The encoder pipeline (src/pipeline.c) and temporal blocking (src/tblock.c)
# seen from the command line: frames written on the writer thread arrive
# complete and in order (the .framemd5 sink against --hash, which hashes on
# the frame loop's thread), for -j1 and -j2, over scenes where steps are fused
# (no sources due, walls) and where they are not; a sink that fails midway is
# reported with exit status 1 and no file left behind.
. tests/cli/lib.sh

# 96x64 cells, 6 steps a frame: drops at frames 0 and 5 only, a wall, clamp
# edges, so most frames are 6 fused steps and frame 5's are split at the drop.
cat > "$T/fused.json" <<'EOF2'
{ "grid": { "width": 96, "height": 64 },
  "time": { "fps": 10, "frames": 12, "steps_per_frame": 6 },
  "boundary": "clamp",
  "drops": [ { "x": 30, "y": 20, "radius": 3, "amplitude": -1 },
             { "frame": 5, "x": 70, "y": 40, "radius": 2, "amplitude": 1 } ],
  "obstacles": [ { "type": "rect", "x": 48, "y": 10, "width": 3, "height": 30 } ],
  "render": { "mode": "colormap", "range": [-0.5, 0.5] } }
EOF2
md5col() { grep -v '^#' "$1" | awk -F, '{gsub(/ /, "", $NF); print $NF}'; }
for j in 1 2; do
    "$RR" "$T/fused.json" --hash -q -j $j | awk '{print $2}' > "$T/hash$j"
    "$RR" "$T/fused.json" -o "$T/out$j.framemd5" -y -q -j $j
    md5col "$T/out$j.framemd5" > "$T/sink$j"
    check "sink-frames-in-order-j$j" cmp -s "$T/hash$j" "$T/sink$j"
    check "sink-all-frames-j$j" [ "$(wc -l < "$T/sink$j")" -eq 12 ]
done
check fused-same-any-j cmp -s "$T/hash1" "$T/hash2"

# Scaled, a yuv420p encoder takes the renderer's yuv420p (frame.h), made
# without the rgb picture unless something hashes it: the same frames
# (lossless ffv1, decoded) on -j1 and -j2 and with --manifest, which makes
# the rgb too and hashes it as --hash does.
for j in 1 2; do
    "$RR" "$T/fused.json" -s render.width=192 -s render.height=128 -s output.codec=ffv1 -s output.pix_fmt=yuv420p \
        -o "$T/yuv$j.mkv" -y -q -j $j
    ffmpeg -v error -i "$T/yuv$j.mkv" -f framemd5 - | md5col /dev/stdin > "$T/yuv$j"
done
"$RR" "$T/fused.json" -s render.width=192 -s render.height=128 -s output.codec=ffv1 -s output.pix_fmt=yuv420p \
    -o "$T/yuvm.mkv" --manifest "$T/m.json" -y -q
ffmpeg -v error -i "$T/yuvm.mkv" -f framemd5 - | md5col /dev/stdin > "$T/yuvm"
"$RR" "$T/fused.json" -s render.width=192 -s render.height=128 --hash -q | awk '{print $2}' > "$T/rgbhash"
check scaled-yuv-all-frames [ "$(sort -u "$T/yuv1" | wc -l)" -eq 12 ]
check scaled-yuv-same-any-j cmp -s "$T/yuv1" "$T/yuv2"
check scaled-yuv-same-with-rgb cmp -s "$T/yuv1" "$T/yuvm"
check scaled-manifest-hashes-rgb sh -c "grep -o '[0-9a-f]\{32\}' '$T/m.json' | cmp -s - '$T/rgbhash'"

# A sink that fails on the writer thread: a file size limit makes the npy
# writes fail (EFBIG); the run says so, exits 1 and leaves no output.
( ulimit -f 64; trap '' XFSZ; "$RR" "$T/fused.json" -o "$T/big.npy" -y -q -f 12 > /dev/null 2> "$T/err" )
st=$?
check failing-sink-exit-1 [ $st -eq 1 ]
check failing-sink-says-why grep -q 'big.npy' "$T/err"
check failing-sink-no-file [ ! -e "$T/big.npy" ]
finish

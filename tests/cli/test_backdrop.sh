# Moving pictures behind the water (docs/render.md, "Moving backgrounds")
# and flipbook atlases (docs/output.md, "Atlases").
#
# With no source the water stays flat, and flat water shows its picture
# byte for byte (refract's background, caustics' floor under light 1), so
# output frame n must be the video frame the time rule picks, as ffmpeg
# itself decodes it to rgb24 (and scales it, with the same bit-exact
# libswscale flags). Hold and loop after the end; image sequences from 0
# and from 1; a part of the timeline (--range, --chunk, --load-state) gives
# the same frames as the whole run, for an intra-only video and for H.264
# with key frames every 4 frames. Atlases: the pixels of a C x R atlas are
# the single frames tiled row-major (ffmpeg's tile filter, or Python for the
# floats of an .exr). Every refusal: one line naming the key and the file.
. tests/cli/lib.sh

cat > "$T/s.json" <<'EOF'
{ "grid": { "width": 64, "height": 48 },
  "time": { "fps": 10, "frames": 14 },
  "render": { "mode": "refract", "background": "v.mkv" } }
EOF
# the same for caustics (which refuses refract's background)
sed 's/"mode": "refract", "background": "v.mkv"/"mode": "caustics"/' "$T/s.json" > "$T/c.json"
one_line() { [ "$(wc -l < "$1")" -eq 1 ]; }
ff() { ffmpeg -nostdin -v error -y "$@"; }
# md5s FILE ARGS: ffmpeg's rgb24 frame md5s of a file, one a line
md5s() { f=$1; shift; ffmpeg -nostdin -v error -i "$f" "$@" -f framemd5 -pix_fmt rgb24 - | grep -v '^#' | awk -F', ' '{print $6}'; }
# ours ARGS: our frames' md5s, one a line
ours() { "$RR" "$T/s.json" --hash -q "$@" | awk '{print $2}'; }
SWS=bicubic+accurate_rnd+full_chroma_int+bitexact

# 10 frames at 10 fps of a picture that changes every frame: lossless
# (ffv1 in bgr0, PNG in Matroska), and H.264 yuv420p with a key frame every 4.
ff -f lavfi -i testsrc2=size=64x48:rate=10:duration=1 -c:v ffv1 -pix_fmt bgr0 "$T/v.mkv"
ff -f lavfi -i testsrc2=size=64x48:rate=10:duration=1 -c:v png "$T/p.mkv"
ff -i "$T/v.mkv" -c:v libx264 -pix_fmt yuv420p -g 4 "$T/h.mp4"
md5s "$T/v.mkv" > "$T/v.md5"
cond video-has-10-distinct-frames '[ "$(sort -u "$T/v.md5" | wc -l)" -eq 10 ]'

# --- the time rule: frame n shows the last video frame at or before n / fps ----------------
ours > "$T/o.md5"
cond refract-frames-are-the-video '[ "$(head -n 10 "$T/o.md5")" = "$(cat "$T/v.md5")" ]'
cond hold-keeps-the-last '[ "$(tail -n 4 "$T/o.md5" | sort -u)" = "$(tail -n 1 "$T/v.md5")" ]'
ours -s render.video_end=loop > "$T/l.md5"
cond loop-starts-again '[ "$(tail -n 4 "$T/l.md5")" = "$(head -n 4 "$T/v.md5")" ]'
ours -s render.background=p.mkv > "$T/p.md5"
cond png-in-mkv-same '[ "$(cat "$T/p.md5")" = "$(cat "$T/o.md5")" ]'
# Twice the output rate: each video frame twice; 4 fps: frames 0, 2.5 -> 2, 5, 7.5 -> 7.
ours -s time.fps=20 -s time.frames=6 > "$T/f20.md5"
cond fps20-each-twice '[ "$(cat "$T/f20.md5")" = "$(sed -n "1p;1p;2p;2p;3p;3p" "$T/v.md5")" ]'
ours -s time.fps=4 -s time.frames=4 > "$T/f4.md5"
cond fps4-picks-at-or-before '[ "$(cat "$T/f4.md5")" = "$(sed -n "1p;3p;6p;8p" "$T/v.md5")" ]'
# Looped at 4 fps: the clip lasts 1 s, so frame 5 (1.25 s) shows 0.25 s -> video frame 2.
cond fps4-loop-wraps-by-time '[ "$(ours -s time.fps=4 -s time.frames=6 -s render.video_end=loop | tail -n 2)" = "$(sed -n "1p;3p" "$T/v.md5")" ]'

# --- scaled: libswscale's bit-exact bicubic, as ffmpeg scales -------------------------------
ours -s render.width=100 -s render.height=70 -s time.frames=10 > "$T/s100.md5"
md5s "$T/v.mkv" -sws_flags $SWS -s 100x70 > "$T/v100.md5"
cond scaled-as-ffmpeg-scales '[ "$(cat "$T/s100.md5")" = "$(cat "$T/v100.md5")" ]'
# YUV (H.264): converted by its own matrix, as ffmpeg converts.
ours -s render.background=h.mp4 -s time.frames=10 > "$T/h.md5"
md5s "$T/h.mp4" -sws_flags $SWS > "$T/hv.md5"
cond yuv-as-ffmpeg-converts '[ "$(cat "$T/h.md5")" = "$(cat "$T/hv.md5")" ]'

# --- caustics: the floor under still water (light 1 everywhere) -----------------------------
"$RR" "$T/c.json" --hash -q -s render.floor=v.mkv | awk '{print $2}' > "$T/c.md5"
cond caustics-floor-is-the-video '[ "$(cat "$T/c.md5")" = "$(cat "$T/o.md5")" ]'

# --- image sequences: image n for frame n (from 0, or from 1) ----------------------------
mkdir "$T/s0" "$T/s1"
ff -i "$T/v.mkv" -start_number 0 "$T/s0/f%03d.png"
ff -i "$T/v.mkv" "$T/s1/g%d.png"
cond sequence-from-0 '[ "$(ours -s render.background=s0/f%03d.png)" = "$(cat "$T/o.md5")" ]'
cond sequence-from-1 '[ "$(ours -s render.background=s1/g%d.png)" = "$(cat "$T/o.md5")" ]'
cond sequence-loops-by-image '[ "$(ours -s render.background=s0/f%03d.png -s render.video_end=loop)" = "$(cat "$T/l.md5")" ]'

# --- a part of the timeline gives the whole run's frames ------------------------------------
for v in v.mkv h.mp4 s0/f%03d.png; do
    for end in hold loop; do
        ours -s render.background=$v -s render.video_end=$end -s time.frames=25 > "$T/whole"
        ours -s render.background=$v -s render.video_end=$end -s time.frames=25 --range 13-24 > "$T/part"
        cond "range-$v-$end" '[ "$(cat "$T/part")" = "$(sed -n 14,25p "$T/whole")" ]'
        ours -s render.background=$v -s render.video_end=$end -s time.frames=25 --chunk 1/3 > "$T/chunk"
        cond "chunk-$v-$end" '[ -s "$T/chunk" ] && [ "$(cat "$T/chunk")" = "$(sed -n 9,16p "$T/whole")" ]'
    done
done
# A checkpoint (the simulation's) then the rest: the pictures follow from the frame number.
cat > "$T/d.json" <<'EOF'
{ "grid": { "width": 64, "height": 48 },
  "time": { "fps": 10, "frames": 16 },
  "drops": [ { "x": 30, "y": 20, "radius": 4, "amplitude": -2 } ],
  "render": { "mode": "refract", "background": "h.mp4", "video_end": "loop" } }
EOF
"$RR" "$T/d.json" --hash -q | awk '{print $2}' > "$T/dw"
"$RR" "$T/d.json" -q --range 0-6 --save-state "$T/st" --hash > /dev/null
"$RR" "$T/d.json" -q --load-state "$T/st/state-000006.json" --range 7-15 --hash | awk '{print $2}' > "$T/dl"
cond load-state-same-frames '[ "$(cat "$T/dl")" = "$(sed -n 8,16p "$T/dw")" ]'
cond drops-move-the-picture '[ "$(sed -n 3p "$T/dw")" != "$(sed -n 3p "$T/o.md5")" ]'

# --- refusals: one line naming the key and the file, before any output ---------------------
bad() {   # NAME WANT-STATUS MESSAGE-PART ARGS...
    name=$1 want=$2 msg=$3; shift 3
    rm -f "$T/x.mp4"
    "$RR" "${scene:-$T/s.json}" -q -o "$T/x.mp4" "$@" 2> "$T/err"; s=$?
    if [ $s -eq "$want" ] && grep -qF -- "$msg" "$T/err" && one_line "$T/err" && [ ! -e "$T/x.mp4" ] \
        && [ -z "$(ls "$T" | grep '^\.x\.mp4' || true)" ]; then ok "$name"
    else fail "$name" "status $s, $(cat "$T/err")"; fi
}
printf 'not a video\n' > "$T/t.mkv"
bad not-a-video 2 "render.background: $T/t.mkv: not a video or a picture" -s render.background=t.mkv
ff -f lavfi -i sine -t 0.2 "$T/a.wav"
bad audio-only 2 "render.background: $T/a.wav: no video stream" -s render.background=a.wav
head -c 700 "$T/v.mkv" > "$T/cut.mkv"
bad no-frames 2 "render.background: $T/cut.mkv: the video has no frames" -s render.background=cut.mkv
scene=$T/c.json
bad floor-no-frames 2 "render.floor: $T/cut.mkv: the video has no frames" -s render.floor=cut.mkv
scene=
rm "$T/s0/f004.png"
bad sequence-gap 2 "render.background: $T/s0/f004.png: missing from the image sequence (images 0 to 3 exist, and 9)" \
    -s render.background=s0/f%03d.png
bad sequence-none 2 'render.background: "q/f%03d.png": an image sequence needs image 0 or 1' -s render.background=q/f%03d.png
bad sequence-two-fields 2 'render.background: expected a file name, or an image sequence' -s 'render.background=s1/g%d%d.png'
cp "$T/s1/g1.png" "$T/s1/g2.png"; printf 'x' > "$T/s1/g3.png"
"$RR" "$T/s.json" -q --hash -s render.background=s1/g%d.png > /dev/null 2> "$T/err"; s=$?
cond sequence-damaged-image-at-its-frame '[ $s -eq 2 ] && one_line "$T/err" && grep -qF "render.background: $T/s1/g3.png: " "$T/err"'
bad video-end-none 2 "render.video_end: applies to a video or an image sequence, and render.background is none" \
    -s render.background=null -s render.video_end=loop
bad video-end-still 2 "render.video_end: applies to a video or an image sequence, and render.background is a still PNG" \
    -s render.background=s0/f000.png -s render.video_end=loop
bad video-end-unknown 2 'render.video_end: expected one of "hold", "loop", got "forever"' -s render.video_end=forever
# A 2000 x 2000 ffv1 video (not intra-only to libavcodec): 2 + 17 frames of 16 MB pass a 100 MB limit (the run itself, writing an mp4, needs about 48 MB).
ff -f lavfi -i testsrc2=size=2000x2000:rate=10:duration=0.1 -c:v ffv1 -pix_fmt bgr0 "$T/big.mkv"
RIPPLERENDER_MEM_LIMIT=100M bad video-memory 2 \
    "render.background: $T/big.mkv: decoding its 2000 x 2000 frames needs about 304000000 bytes beside the run's" \
    -s render.background=big.mkv
# video_end is a key of refract and caustics: another mode refuses it
sed 's/"mode": "caustics"/"mode": "height"/' "$T/c.json" > "$T/h.json"
scene=$T/h.json
bad video-end-other-mode 2 "render.video_end: not used by the height render mode (a key of refract, caustics)" \
    -s render.video_end=loop
scene=

# --- atlases ---------------------------------------------------------------------------
cat > "$T/a.json" <<'EOF'
{ "grid": { "width": 32, "height": 24 },
  "time": { "fps": 10, "frames": 6 },
  "drops": [ { "x": 16, "y": 12, "radius": 3, "amplitude": -2 } ],
  "render": { "mode": "colormap" } }
EOF
mkdir "$T/one" "$T/at" "$T/e1" "$T/ea"
"$RR" "$T/a.json" -q -o "$T/one/f%d.png"
"$RR" "$T/a.json" -q -o "$T/at/a%d.png" -s 'render.atlas=[2,2]'
cond atlas-two-images '[ "$(ls "$T/at" | tr "\n" " ")" = "a0.png a1.png " ]'
size=$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$T/at/a0.png")
cond atlas-size '[ "$size" = "64,48" ]'
tiled=$(ffmpeg -nostdin -v error -start_number 0 -i "$T/one/f%d.png" -vf tile=2x2 -f framemd5 -pix_fmt rgb24 - | grep -v '^#' | awk -F', ' '{print $6}')
atlas=$(ffmpeg -nostdin -v error -start_number 0 -i "$T/at/a%d.png" -f framemd5 -pix_fmt rgb24 - | grep -v '^#' | awk -F', ' '{print $6}')
cond atlas-is-the-frames-tiled '[ -n "$tiled" ] && [ "$tiled" = "$atlas" ]'
# 16-bit RGBA (render.alpha, output.bit_depth 16), 3 x 1.
mkdir "$T/o16" "$T/a16"
"$RR" "$T/a.json" -q -s render.mode=shaded -s render.alpha=height -s output.bit_depth=16 -o "$T/o16/f%d.png"
"$RR" "$T/a.json" -q -s render.mode=shaded -s render.alpha=height -s output.bit_depth=16 -o "$T/a16/a%d.png" \
    -s 'render.atlas=[3,1]'
tiled=$(ffmpeg -nostdin -v error -start_number 0 -i "$T/o16/f%d.png" -vf tile=3x1 -f framemd5 -pix_fmt rgba64le - | grep -v '^#' | awk -F', ' '{print $6}')
atlas=$(ffmpeg -nostdin -v error -start_number 0 -i "$T/a16/a%d.png" -f framemd5 -pix_fmt rgba64le - | grep -v '^#' | awk -F', ' '{print $6}')
cond atlas-rgba64-tiled '[ -n "$tiled" ] && [ "$tiled" = "$atlas" ]'
# EXR heights, 2 x 2: the floats of each cell, and zeros past the clip's end.
"$RR" "$T/a.json" -q -s render.mode=height -o "$T/e1/h%d.exr"
"$RR" "$T/a.json" -q -s render.mode=height -o "$T/ea/h%d.exr" -s 'render.atlas=[2,2]'
cat > "$T/tile.py" <<'EOF'
import struct, subprocess, sys
d = sys.argv[1]
def rd(p, w, h):
    b = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", p, "-f", "rawvideo", "-pix_fmt", "grayf32le", "-"],
                       capture_output=True, check=True).stdout
    v = struct.unpack("<%df" % (w * h), b)
    return [list(v[y * w:(y + 1) * w]) for y in range(h)]
one = [rd("%s/e1/h%d.exr" % (d, i), 32, 24) for i in range(6)] + [[[0.0] * 32 for _ in range(24)]] * 2
for a in range(2):
    got = rd("%s/ea/h%d.exr" % (d, a), 64, 48)
    want = [one[4 * a + 2 * (y // 24)][y % 24] + one[4 * a + 2 * (y // 24) + 1][y % 24] for y in range(48)]
    if got != want:
        sys.exit("atlas %d differs" % a)
EOF
check atlas-exr-floats-tiled python3 "$T/tile.py" "$T"
# A part of the timeline on atlas boundaries makes the same images.
mkdir "$T/ar"
"$RR" "$T/a.json" -q -o "$T/ar/a%d.png" -s 'render.atlas=[2,2]' --range 4-5
cond atlas-range-same-image 'cmp -s "$T/ar/a1.png" "$T/at/a1.png" && [ ! -e "$T/ar/a0.png" ]'
abad() {   # NAME MESSAGE-PART ARGS...
    name=$1 msg=$2; shift 2
    "$RR" "$T/a.json" -q "$@" 2> "$T/err"; s=$?
    if [ $s -eq 2 ] && grep -qF -- "$msg" "$T/err" && one_line "$T/err"; then ok "$name"
    else fail "$name" "status $s, $(cat "$T/err")"; fi
}
abad atlas-not-a-sequence 'render.atlas: is for PNG and EXR sequences (NAME%05d.png, NAME%04d.exr), not '"$T/x.mp4" \
    -o "$T/x.mp4" -s 'render.atlas=[2,2]'
abad atlas-range-start 'render.atlas: a part of the timeline must start at a multiple of 2 x 2 = 4 frames' \
    -o "$T/ar/b%d.png" -s 'render.atlas=[2,2]' --range 1-3
abad atlas-range-end 'render.atlas: a part of the timeline must end at a multiple of 2 x 2 = 4 frames or at the clip' \
    -o "$T/ar/b%d.png" -s 'render.atlas=[2,2]' --range 0-2
RIPPLERENDER_MEM_LIMIT=none abad atlas-too-large 'render.atlas: 1024 x 1024 frames of 32x24 make a 32768x24576 image' \
    -o "$T/ar/b%d.png" -s 'render.atlas=[1024,1024]'
abad atlas-zero 'render.atlas: expected [columns, rows] with integers in [1, 1024], or null, got [0,2]' \
    -o "$T/ar/b%d.png" -s 'render.atlas=[0,2]'
abad atlas-resume 'a render.atlas sequence is written in one piece and cannot be resumed' \
    -o "$T/ar/b%d.png" -s 'render.atlas=[2,2]' --save-state "$T/st2" --resume
cond atlas-refusals-wrote-nothing '[ -z "$(ls "$T/ar" | grep -v "^a1.png$")" ]'
finish

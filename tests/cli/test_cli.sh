# Command-line tests: options, exit statuses, every output kind checked with
# ffprobe/ffmpeg, golden frame hashes of scenes/, thread independence, -y.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

# A small scene used by most checks: 64x48 cells, 10 frames at 10 fps.
cat > "$T/small.json" <<'EOF'
{ "grid": { "width": 64, "height": 48 },
  "time": { "fps": 10, "frames": 10, "steps_per_frame": 2 },
  "drops": [ { "x": 20, "y": 20, "radius": 3, "amplitude": -1 },
             { "frame": 4, "x": 44, "y": 30, "radius": 2, "amplitude": 1 } ],
  "render": { "mode": "colormap", "range": [-0.5, 0.5] } }
EOF
probe() { ffprobe -v error -select_streams v:0 -count_frames -show_entries "$2" -of default=nw=1:nk=1 "$1" 2>/dev/null | head -n 1; }
fmt_duration() { ffprobe -v error -show_entries format=duration -of default=nw=1:nk=1 "$1" 2>/dev/null; }
md5col() { grep -v '^#' "$1" | awk -F, '{gsub(/ /, "", $NF); print $NF}'; }
hashcol() { awk '{print $2}' "$1"; }

# --- options and exit statuses ---------------------------------------------
"$RR" --help > "$T/help" 2>&1; check help-exit-0 [ $? -eq 0 ]
check help-lists-options grep -q -- '--print-scene' "$T/help"
# --help and the man page say an option's second value is refused (-s repeats)
check help-says-given-once grep -qxF 'An option that takes a value is given once (-s repeats): a second is refused.' "$T/help"
check man-says-given-once sh -c "grep -qxF 'An option that takes a value is given once:' man/ripplerender.1 && grep -qF 'a second one is refused (status 2)' man/ripplerender.1"
"$RR" -V > "$T/ver"; check version-exit-0 [ $? -eq 0 ]
check version-names-libs grep -q 'FFmpeg' "$T/ver"
"$RR" > /dev/null 2>&1; check no-scene-exit-2 [ $? -eq 2 ]
"$RR" "$T/small.json" --bogus > /dev/null 2>&1; check unknown-option-exit-2 [ $? -eq 2 ]
"$RR" "$T/small.json" -j 0 --validate > /dev/null 2>&1; check bad-threads-exit-2 [ $? -eq 2 ]
"$RR" "$T/small.json" -f x --validate > /dev/null 2>&1; check bad-frames-exit-2 [ $? -eq 2 ]
"$RR" "$T/missing.json" --validate 2> "$T/err"; s=$?
check missing-scene-exit-2 [ $s -eq 2 ]
check missing-scene-one-line [ "$(wc -l < "$T/err")" -eq 1 ]
echo '{}' | "$RR" - --validate > /dev/null; check empty-scene-from-stdin [ $? -eq 0 ]
# an option that takes one value, given twice: refused in one line naming it
# and both values, status 2, nothing written (a later one used to win silently)
for c in "-o:--output:$T/a.npy:$T/b.npy" "-f:--frames:3:4" "-j:--threads:1:2" ":--check:$T/a.md5:$T/b.md5" \
         ":--probes:$T/a.csv:$T/b.csv" ":--manifest:$T/a.json:$T/b.json" ":--range:0-1:2-3" \
         ":--save-state:$T/sa:$T/sb" ":--state-every:1:2" ":--load-state:$T/la:$T/lb" ":--progress:always:never" \
         ":--preset:pond:pool" ":--chunk:0/2:1/2"; do
    short=${c%%:*}; rest=${c#*:}; long=${rest%%:*}; rest=${rest#*:}; v1=${rest%%:*}; v2=${rest#*:}
    opt=${short:+$short/}$long
    for form in 1 2; do
        if [ $form = 1 ]; then set -- "$long=$v1" "$long" "$v2"; else set -- "${short:-$long}" "$v1" "$long=$v2"; fi
        rm -f "$T/a.npy" "$T/b.npy"
        "$RR" "$T/small.json" "$@" -q 2> "$T/err"; s=$?
        cond "twice-${long#--}-$form" '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: $opt: given twice (\"$v1\", then \"$v2\"); it takes one value (see ripplerender --help)" ] && [ ! -e "$T/a.npy" ] && [ ! -e "$T/b.npy" ]'
    done
done
# -q is --progress never: beside --progress auto or always, either order, refused
"$RR" "$T/small.json" --progress always -q --hash 2> "$T/err" > /dev/null; s=$?
cond quiet-after-progress '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: -q/--quiet: given with --progress always; give one of them (see ripplerender --help)" ]'
"$RR" "$T/small.json" --quiet --progress=auto --hash 2> "$T/err" > /dev/null; s=$?
cond quiet-before-progress '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: --progress auto: given with -q/--quiet (--progress never); give one of them (see ripplerender --help)" ]'
"$RR" "$T/small.json" -q --progress never -f 2 --hash 2> "$T/err" > /dev/null; s=$?
cond quiet-and-progress-never '[ $s -eq 0 ] && [ ! -s "$T/err" ]'
# --chunk alone (its value from the job array's variables) counts as given
SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2 "$RR" "$T/small.json" --chunk --chunk 1/2 --hash -q 2> "$T/err"; s=$?
cond twice-chunk-alone '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: --chunk: given twice (\"\", then \"1/2\"); it takes one value (see ripplerender --help)" ]'
# -s/--set repeats (each a key), and so do the flags (-y, -q, --hash: the same either way)
"$RR" "$T/small.json" -s time.frames=2 --set grid.height=40 -q -q --hash --hash -y -y > "$T/out" 2> "$T/err"; s=$?
cond repeats-set-and-flags '[ $s -eq 0 ] && [ "$(wc -l < "$T/out")" -eq 2 ] && [ ! -s "$T/err" ]'
# a second file name: refused in one line; one that names an output says how to give it
"$RR" "$T/small.json" "$T/other.json" 2> "$T/err"; s=$?
check two-scenes-exit-2 [ $s -eq 2 ]
check two-scenes-one-line grep -qx "ripplerender: $T/other.json: only one scene file can be given (see ripplerender --help)" "$T/err"
"$RR" "$T/small.json" "$T/out.mp4" 2> "$T/err"; s=$?
check output-without-o-exit-2 [ $s -eq 2 ]
check output-without-o-says-o grep -qx "ripplerender: $T/out.mp4: only one scene file can be given; to write it, give -o $T/out.mp4 (see ripplerender --help)" "$T/err"
check output-without-o-writes-nothing [ ! -e "$T/out.mp4" ]
# --validate's line says what the run would write: the file, a stream, or hashes only
echo '{}' | "$RR" - --validate -o - > "$T/v"; check validate-says-stdout grep -q '; writes standard output$' "$T/v"
echo '{}' | "$RR" - --validate --hash > "$T/v"; check validate-says-hashes grep -q '; hashes the frames, writes no file$' "$T/v"
echo '{}' | "$RR" - --validate -o "$T/v.npy" > "$T/v"; check validate-says-file grep -q "; writes $T/v.npy\$" "$T/v"
printf '{"probes": [{}]}' > "$T/p.json"
"$RR" "$T/p.json" --validate --hash --probes "$T/p.csv" --manifest "$T/m.json" > "$T/v"
check validate-says-hashes-and-files grep -q "; hashes the frames, writes $T/p.csv, $T/m.json\$" "$T/v"
"$RR" "$T/p.json" --validate -o - --manifest "$T/m.json" > "$T/v"
check validate-says-stream-and-file grep -q "; writes standard output, $T/m.json\$" "$T/v"
"$RR" "$T/small.json" -s 'solver.damping=2' --validate 2> "$T/err"; s=$?
check set-out-of-range-exit-2 [ $s -eq 2 ]
check set-out-of-range-names-key grep -q 'solver.damping' "$T/err"

# --- video: mp4 (H.264, yuv420p, faststart, exact duration) ---------------------
"$RR" "$T/small.json" -o "$T/a.mp4" -q; check mp4-exit-0 [ $? -eq 0 ]
check mp4-codec [ "$(probe "$T/a.mp4" stream=codec_name)" = h264 ]
check mp4-pix_fmt [ "$(probe "$T/a.mp4" stream=pix_fmt)" = yuv420p ]
# BT.709 limited range, chroma sited at the centre of each 2x2 block (src/sinks/yuv420.c)
check mp4-colour-tags [ "$(probe "$T/a.mp4" stream=color_space),$(probe "$T/a.mp4" stream=color_range),$(probe "$T/a.mp4" stream=chroma_location)" = bt709,tv,center ]
check mp4-size [ "$(probe "$T/a.mp4" stream=width),$(probe "$T/a.mp4" stream=height)" = 64,48 ]
check mp4-frames [ "$(probe "$T/a.mp4" stream=nb_read_frames)" = 10 ]
check mp4-duration [ "$(fmt_duration "$T/a.mp4")" = 1.000000 ]
# faststart: the moov atom comes before mdat
check mp4-faststart sh -c "head -c 4096 '$T/a.mp4' | grep -q moov"
check mp4-no-temp-left [ -z "$(ls -A "$T" | grep '\.tmp')" ]

# --- webm (VP9) ----------------------------------------------------------------
"$RR" "$T/small.json" -o "$T/a.webm" -q; check webm-exit-0 [ $? -eq 0 ]
check webm-codec [ "$(probe "$T/a.webm" stream=codec_name)" = vp9 ]
check webm-frames [ "$(probe "$T/a.webm" stream=nb_read_frames)" = 10 ]
check webm-size [ "$(probe "$T/a.webm" stream=width)x$(probe "$T/a.webm" stream=height)" = 64x48 ]
d=$(fmt_duration "$T/a.webm")
check webm-duration awk -v d="$d" 'BEGIN { exit !(d > 0.95 && d < 1.05) }'

# --- odd sizes with yuv420p: padded, never a crash --------------------------------
"$RR" "$T/small.json" -s grid.width=63 -s grid.height=47 -o "$T/odd.mp4" -q
check odd-size-exit-0 [ $? -eq 0 ]
check odd-size-frames [ "$(probe "$T/odd.mp4" stream=nb_read_frames)" = 10 ]

# --- hashes: --hash equals the .framemd5 muxer, and ffmpeg's decode of ffv1 -------
"$RR" "$T/small.json" --hash -q > "$T/h.txt"; check hash-exit-0 [ $? -eq 0 ]
check hash-lines [ "$(wc -l < "$T/h.txt")" -eq 10 ]
"$RR" "$T/small.json" -o "$T/a.framemd5" -q; check framemd5-exit-0 [ $? -eq 0 ]
check framemd5-equals-hash [ "$(md5col "$T/a.framemd5")" = "$(hashcol "$T/h.txt")" ]
"$RR" "$T/small.json" -o "$T/a.framehash" -q; check framehash-exit-0 [ $? -eq 0 ]
for codec in ffv1 utvideo png; do
    "$RR" "$T/small.json" -s output.codec=$codec -o "$T/l-$codec.mkv" -q
    ffmpeg -v error -i "$T/l-$codec.mkv" -pix_fmt rgb24 -f framemd5 - > "$T/l-$codec.md5" 2>/dev/null
    check "lossless-$codec-decodes-to-same-frames" [ "$(md5col "$T/l-$codec.md5")" = "$(hashcol "$T/h.txt")" ]
done
sed '5s/^\([0-9]*\) ./\1 0/' "$T/h.txt" > "$T/h-bad.txt"
if ! cmp -s "$T/h.txt" "$T/h-bad.txt"; then :; else sed -i '5s/^\([0-9]*\) ./\1 1/' "$T/h-bad.txt"; fi
"$RR" "$T/small.json" --check "$T/h-bad.txt" -q 2> "$T/err"; s=$?
check check-mismatch-exit-3 [ $s -eq 3 ]
check check-mismatch-names-frame grep -q 'frame 4 differs' "$T/err"

# --- --check explains itself: one line on stderr, naming what differs ---------------------
# verdict NAME STATUS LINE ARGS...: --check ends with STATUS and stderr is exactly LINE
# ("G" in LINE stands for the golden's path, the first argument after ARGS' --check).
verdict() {
    name=$1 want=$2 line=$3; shift 3
    "$RR" "$T/small.json" "$@" -q > /dev/null 2> "$T/err"; s=$?
    g=$(printf '%s\n' "$@" | sed -n '/^--check$/{n;p;}')
    exp="ripplerender: $(printf '%s' "$line" | sed "s|^G|$g|")"
    if [ $s -eq "$want" ] && [ "$(cat "$T/err")" = "$exp" ]; then ok "$name"
    else fail "$name" "status $s (want $want), stderr: $(cat "$T/err") (want: $exp)"; fi
}
remedy='make it with ffmpeg -i IN -pix_fmt rgb24 -f framemd5 OUT'
verdict check-ok-framemd5 0 "G: 10 frames match" --check "$T/a.framemd5"
verdict check-ok-hash-lines 0 "G: 10 frames match" --check "$T/h.txt"
head -n 1 "$T/h.txt" > "$T/h1.txt"
verdict check-ok-one-frame 0 "G: 1 frame matches" --check "$T/h1.txt" -f 1
# ffmpeg's decode of a lossless file, with -pix_fmt rgb24 (made above) and without it
verdict check-ok-ffmpeg-rgb24 0 "G: 10 frames match" --check "$T/l-ffv1.md5"
ffmpeg -v error -i "$T/a.mp4" -f framemd5 "$T/yuv.framemd5"
verdict check-ffmpeg-yuv420p 3 "G:11: pixel format differs: the file's frames are 4608 bytes, rgb24 at 64x48 is 9216 (the size of yuv420p frames: made without -pix_fmt rgb24); $remedy" --check "$T/yuv.framemd5"
ffmpeg -v error -i "$T/l-ffv1.mkv" -f framemd5 "$T/bgr0.framemd5"
verdict check-ffmpeg-bgr0 3 "G:11: pixel format differs: the file's frames are 12288 bytes, rgb24 at 64x48 is 9216 (the size of rgba or bgr0 frames: made without -pix_fmt rgb24); $remedy" --check "$T/bgr0.framemd5"
ffmpeg -v error -i "$T/a.mp4" -c copy -f framemd5 "$T/packets.framemd5"
verdict check-ffmpeg-packets 3 "G: codec differs: the file hashes h264 packets (#codec_id 0), --check needs decoded rgb24 frames (rawvideo); $remedy" --check "$T/packets.framemd5"
verdict check-wrong-size 3 "G: size differs: the file's frames are 64x48 (#dimensions 0), the scene renders 32x24" --check "$T/a.framemd5" -s render.width=32 -s render.height=24
# a file longer than the run is refused at its first frame line past the run's
# frames (line 16 holds frame 6), without reading on: a check file is never
# read into memory beyond the run's frames
verdict check-scene-shorter 3 "G:16: frame count differs: the file has more than 6 frames, the scene renders 6" --check "$T/a.framemd5" -f 6
verdict check-hash-lines-longer 3 "G:7: frame count differs: the file has more than 6 frames, the scene renders 6" --check "$T/h.txt" -f 6
# an endless stream of valid hash lines: refused at line 11 (frame 10 of a
# 10-frame run), status 3; the writer then ends on SIGPIPE. Unbounded, the
# list grew until the 60 s timeout (status 124).
rm -f "$T/endless"; mkfifo "$T/endless"
awk 'BEGIN { for (i = 0; ; i++) printf "%d %032d\n", i, 0 }' > "$T/endless" 2> /dev/null & wpid=$!
timeout -s KILL 60 "$RR" "$T/small.json" --check "$T/endless" -q > /dev/null 2> "$T/err"; s=$?
kill $wpid 2> /dev/null; wait $wpid 2> /dev/null
err=$(cat "$T/err")
cond check-endless-stream '[ $s -eq 3 ] && [ "$err" = "ripplerender: $T/endless:11: frame count differs: the file has more than 10 frames, the scene renders 10" ]'
verdict check-scene-longer 3 "G: frame count differs: the file has 10 frames, the scene renders 12" --check "$T/a.framemd5" -f 12
head -n -3 "$T/a.framemd5" > "$T/short.framemd5"
verdict check-golden-shorter 3 "G: frame count differs: the file has 7 frames, the scene renders 10" --check "$T/short.framemd5"
head -n 3 "$T/h.txt" > "$T/h-short.txt"
verdict check-hash-lines-shorter 3 "G: frame count differs: the file has 3 frames, the scene renders 10" --check "$T/h-short.txt"
# a corrupted line: a hash cut short is bad input (2); a wrong hash is a mismatch (3)
sed '14s/, \([0-9a-f]*\)$/, \1zz/' "$T/a.framemd5" > "$T/garbled.framemd5"
verdict check-garbled-line 2 "G:14: expected an MD5 of 32 hex digits, got \"$(sed -n '14s/.*, //p' "$T/garbled.framemd5")\"" --check "$T/garbled.framemd5"
want=$(sed -n '14s/.*, //p' "$T/a.framemd5")
sed '14s/, [0-9a-f]*$/, 00000000000000000000000000000000/' "$T/a.framemd5" > "$T/wrong.framemd5"
verdict check-wrong-hash 3 "G: frame 4 differs: expected 00000000000000000000000000000000, got $want" --check "$T/wrong.framemd5"

# --- PNG sequences --------------------------------------------------------------
mkdir -p "$T/seq"
"$RR" "$T/small.json" -o "$T/seq/f%03d.png" -q; check pngseq-exit-0 [ $? -eq 0 ]
check pngseq-count [ "$(ls "$T/seq" | grep -c '^f[0-9][0-9][0-9]\.png$')" -eq 10 ]
check pngseq-size [ "$(probe "$T/seq/f009.png" stream=width)x$(probe "$T/seq/f009.png" stream=height)" = 64x48 ]
check pngseq-rgb24 [ "$(probe "$T/seq/f000.png" stream=pix_fmt)" = rgb24 ]
mkdir -p "$T/seq16"
"$RR" "$T/small.json" -s render.mode=height -s output.bit_depth=16 -o "$T/seq16/h%02d.png" -q
check pngseq16-exit-0 [ $? -eq 0 ]
check pngseq16-gray16 [ "$(probe "$T/seq16/h00.png" stream=pix_fmt)" = gray16be ]

# --- npy ------------------------------------------------------------------------
"$RR" "$T/small.json" -o "$T/a.npy" -q; check npy-exit-0 [ $? -eq 0 ]
check npy-header sh -c "head -c 128 '$T/a.npy' | grep -q \"'shape': (10, 48, 64)\""
check npy-size [ "$(stat -c %s "$T/a.npy")" -eq $((128 + 10 * 48 * 64 * 4)) ]
# A .npy holds the heights at grid size: the render keys the scene gives do
# not act on it (were silently ignored): one warning naming the first with
# its value (was without) and counting the others; none when the run also
# hashes the pictures (--hash, --check, --manifest) or gives no render key;
# --validate says it too (did not).
"$RR" "$T/small.json" -o "$T/a.npy" -y -q 2> "$T/err"; s=$?
cond npy-render-keys-warned '[ $s -eq 0 ] && [ "$(cat "$T/err")" = "ripplerender: warning: $T/small.json:5:23: render.mode (\"colormap\") and 1 more render key are not used by a .npy file ($T/a.npy), which holds the heights at grid size: ignored" ]'
"$RR" "$T/small.json" -o "$T/a.npy" -y --validate > /dev/null 2> "$T/err"; s=$?
cond npy-render-keys-validate-warned '[ $s -eq 0 ] && [ "$(cat "$T/err")" = "ripplerender: warning: $T/small.json:5:23: render.mode (\"colormap\") and 1 more render key are not used by a .npy file ($T/a.npy), which holds the heights at grid size: ignored" ]'
echo '{}' | "$RR" - -s render.width=32 -s render.height=24 -s render.mode=shaded -o "$T/a.npy" -y -q 2> "$T/err"; s=$?
cond npy-render-set-warned '[ $s -eq 0 ] && [ "$(cat "$T/err")" = "ripplerender: warning: --set render.width (32) and 2 more render keys are not used by a .npy file ($T/a.npy), which holds the heights at grid size: ignored" ]'
# the value as compact JSON, a long one cut with "..." (here a file name of
# 80 characters and more)
longbg=$T/background-of-a-long-name-that-a-warning-cuts-short-0123456789.png
cp scenes/lens.png "$longbg"
echo '{}' | "$RR" - -f 1 -s render.background="$longbg" -s render.mode=refract -o "$T/a.npy" -y -q 2> "$T/err"; s=$?
cond npy-render-long-value-cut '[ $s -eq 0 ] && [ "$(cat "$T/err")" = "ripplerender: warning: --set render.background ($(printf "\"%s" "$longbg" | cut -c 1-60)...) and 1 more render key are not used by a .npy file ($T/a.npy), which holds the heights at grid size: ignored" ]'
"$RR" "$T/small.json" -o "$T/a.npy" -y -q --hash > /dev/null 2> "$T/err"; s=$?
cond npy-render-keys-hashed '[ $s -eq 0 ] && [ ! -s "$T/err" ]'
"$RR" "$T/small.json" -o "$T/a.npy" -y -q --manifest "$T/a.json" 2> "$T/err"; s=$?
cond npy-render-keys-manifest '[ $s -eq 0 ] && [ ! -s "$T/err" ]'
echo '{ "grid": { "width": 32, "height": 24 }, "time": { "frames": 2 } }' | "$RR" - -o "$T/a.npy" -y -q 2> "$T/err"; s=$?
cond npy-no-render-keys-silent '[ $s -eq 0 ] && [ ! -s "$T/err" ]'
"$RR" --preset pond -f 1 -o "$T/a.npy" -y -q 2> "$T/err"; s=$?
cond npy-preset-render-keys-silent '[ $s -eq 0 ] && [ ! -s "$T/err" ]'

# --- scaled render through libswscale ------------------------------------------------
"$RR" "$T/small.json" -s render.width=128 -s render.height=96 -o "$T/big.mp4" -q
check scaled-size [ "$(probe "$T/big.mp4" stream=width)x$(probe "$T/big.mp4" stream=height)" = 128x96 ]

# --- -y: never replace without it ------------------------------------------------------
echo keep > "$T/exists.mp4"
"$RR" "$T/small.json" -o "$T/exists.mp4" -q 2> "$T/err"; s=$?
check no-overwrite-exit-1 [ $s -eq 1 ]
check no-overwrite-untouched [ "$(cat "$T/exists.mp4")" = keep ]
check no-overwrite-says-y grep -q -- '-y' "$T/err"
"$RR" "$T/small.json" -o "$T/exists.mp4" -y -q; check overwrite-exit-0 [ $? -eq 0 ]
check overwrite-replaced [ "$(probe "$T/exists.mp4" stream=codec_name)" = h264 ]

# --- threads never change frames --------------------------------------------------------
for sc in "$T/small.json" scenes/demo.json scenes/rain.json; do
    "$RR" "$sc" -f 20 --hash -j 1 -q > "$T/j1"; "$RR" "$sc" -f 20 --hash -j 2 -q > "$T/j2"
    check "threads-$(basename "$sc")" cmp -s "$T/j1" "$T/j2"
done

# --- --print-scene round trip: the resolved scene renders the same frames -------------------
"$RR" "$T/small.json" --print-scene > "$T/resolved.json"; check print-scene-exit-0 [ $? -eq 0 ]
"$RR" "$T/resolved.json" --hash -q > "$T/h2.txt"
check print-scene-same-frames cmp -s "$T/h.txt" "$T/h2.txt"

# -o overrides output.path, so --print-scene shows it as the run would have
# it; the options that run or write something do nothing with --print-scene
# (it renders nothing): each is refused naming it (status 2, one line).
# Those that only say how a run goes (-y, -j, -q, --progress) are taken, so
# that --print-scene added to a sweep's command line shows its scene.
"$RR" "$T/small.json" -o "$T/ps/f%03d.png" --print-scene > "$T/ps.json"; s=$?
cond print-scene-shows-o '[ $s -eq 0 ] && grep -qF "\"path\":	\"$T/ps/f%03d.png\"" "$T/ps.json" && [ ! -e "$T/ps" ]'
"$RR" "$T/small.json" -o "$T/ps/f%03d.png" -y -q -j 1 --progress never --print-scene \
    > "$T/ps.out" 2> "$T/ps.err"; s=$?
cond print-scene-takes-y-q-j '[ $s -eq 0 ] && [ ! -s "$T/ps.err" ] && cmp -s "$T/ps.json" "$T/ps.out" && [ ! -e "$T/ps" ]'
# An -o that names no output kind is refused as the run, and the scene
# loader for output.path, would refuse it: the printed scene would not load.
"$RR" "$T/small.json" -o "$T/ps.xyz" --print-scene > "$T/ps.out" 2> "$T/ps.err"; s=$?
cond print-scene-refuses-unknown-kind '[ $s -eq 2 ] && [ ! -s "$T/ps.out" ] && [ "$(wc -l < "$T/ps.err")" -eq 1 ] && grep -q "^ripplerender: $T/ps.xyz: unknown output kind" "$T/ps.err"'
for opt in --hash "--check $T/h.txt" --validate "--probes $T/ps.csv" "--manifest $T/ps.m.json" "--range 1-2" \
    "--chunk 0/2" "--save-state $T/ps.d" "--load-state $T/ps.d/state-000001.json" --resume; do
    what=${opt%% *}
    "$RR" "$T/small.json" --print-scene $opt > "$T/ps.out" 2> "$T/ps.err"; s=$?
    cond "print-scene-refuses$what" '[ $s -eq 2 ] && [ ! -s "$T/ps.out" ] && [ "$(cat "$T/ps.err")" = "ripplerender: $what: does nothing with --print-scene, which prints the scene and renders nothing (see ripplerender --help)" ]'
done
"$RR" "$T/small.json" --print-scene --state-every 2 > /dev/null 2> "$T/ps.err"
check print-scene-refuses--state-every [ "$(cat "$T/ps.err")" = "ripplerender: --state-every: does nothing with --print-scene, which prints the scene and renders nothing (see ripplerender --help)" ]
check print-scene-left-nothing sh -c "! ls -d '$T'/ps.csv '$T'/ps.m.json '$T'/ps.d 2> /dev/null"

# --- probes ------------------------------------------------------------------------------
"$RR" "$T/small.json" -s 'probes=[{"name":"c","x":20,"y":20}]' --hash --probes "$T/p.csv" -q > /dev/null
check probes-exit-0 [ $? -eq 0 ]
check probes-rows [ "$(wc -l < "$T/p.csv")" -eq 11 ]
check probes-header [ "$(head -n 1 "$T/p.csv")" = frame,time,c ]

# --- bad scenes: each gives its line, its status, and no output ------------------------------
# -j 2: a memory refusal names the estimate's bytes, which count the
# encoder's frame threads (src/budget.c), so the same on any machine.
if [ -f tests/bad/expected.tsv ]; then
    while IFS="$(printf '\t')" read -r file want msg; do
        case "$file" in ''|'#'*) continue ;; esac
        rm -f "$T/bad.mp4"
        "$RR" "tests/bad/$file" -o "$T/bad.mp4" -j 2 -q 2> "$T/err"; s=$?
        if [ "$s" -eq "$want" ] && grep -qF -- "$msg" "$T/err" && [ "$(wc -l < "$T/err")" -eq 1 ] \
            && [ ! -e "$T/bad.mp4" ]; then ok "bad-$file"
        else fail "bad-$file" "status $s (want $want), message: $(cat "$T/err")"; fi
    done < tests/bad/expected.tsv
fi

# --- golden frame hashes of every example scene ----------------------------------------------
for sc in scenes/*.json; do
    case "$sc" in *.schema.json) continue ;; esac   # the scene schema, not a scene
    name=$(basename "$sc" .json)
    g=tests/golden/$name.framemd5
    # NAME.skip: frames that depend on the CPU (FFT code paths); checked by physics elsewhere
    [ -f "tests/golden/$name.skip" ] && continue
    if [ -f "$g" ]; then
        "$RR" "$sc" --check "$g" -q 2> "$T/err"; s=$?
        if [ $s -eq 0 ]; then ok "golden-$name"; else fail "golden-$name" "$(cat "$T/err")"; fi
    else
        fail "golden-$name" "no $g (make golden writes it)"
    fi
done

# --- Ctrl-C: stop after the current frame, finish the file, exit 130 ------------------------
"$RR" "$T/small.json" -s grid.width=512 -s grid.height=512 -f 100000 -o "$T/int.mkv" --hash -q > "$T/int.hash" &
pid=$!; frames_done "$T/int.hash" $pid 10; kill -INT $pid; wait $pid; s=$?
check interrupt-exit-130 [ $s -eq 130 ]
n=$(probe "$T/int.mkv" stream=nb_read_frames)
check interrupt-file-plays [ "${n:-0}" -gt 0 ]

finish

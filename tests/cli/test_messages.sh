# Every refusal says where: the scene's FILE:LINE:COL for a value from the
# file, "--set KEY" for one from --set, also for the checks made after loading
# (PNG decoding, codec and pixel format, memory budget, Courant limit, rain).
. tests/cli/lib.sh
# One line on stderr that starts with WANT (a grep -E pattern), status 2.
# refused: ARGS get "-o $T/x.mp4" before them; refused_as_is: not (ARGS that give their own -o).
refused() { name=$1; want=$2; shift 2; refused_as_is "$name" "$want" -o "$T/x.mp4" "$@"; }
refused_as_is() {
    name=$1; want=$2; shift 2
    rm -f "$T/x.mp4"
    "$RR" -q "$@" 2> "$T/err"; s=$?
    if [ "$s" -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -qE "^ripplerender: $want" "$T/err"; then
        ok "$name"
    else
        fail "$name" "status $s, message: $(cat "$T/err")"
    fi
}

# --- every bad scene in tests/bad: FILE:LINE:COL: first ---------------------------------
for f in tests/bad/*.json; do
    n=$(basename "$f")
    refused "position-$n" "tests/bad/$n:[0-9]+:[0-9]+: " "$f"
done

# The PNG checks (made when rendering starts): the key, then the file, then why.
refused png-key-then-file 'tests/bad/44-mask-huge-dimensions\.json:1:44: obstacles\.0\.path: /.*/huge-dimensions\.png: cannot read PNG: 100000 x 100000 pixels is larger than 16384 x 16384$' \
    tests/bad/44-mask-huge-dimensions.json
for c in 45-mask-corrupt:44:obstacles:corrupt 46-initial-truncated:43:initial:truncated \
         47-mask-zero-width:44:obstacles:zero-width; do
    f=${c%%:*}; rest=${c#*:}; col=${rest%%:*}; rest=${rest#*:}; key=${rest%%:*}; png=${rest#*:}
    refused "png-$f" "tests/bad/$f\.json:1:$col: $key\.0\.path: /.*/$png\.png: cannot read PNG: " "tests/bad/$f.json"
done
refused png-not-a-png 'tests/bad/48-mask-not-a-png\.json:1:44: obstacles\.0\.path: /.*/48-mask-not-a-png\.json: cannot read PNG: Not a PNG file$' \
    tests/bad/48-mask-not-a-png.json

# --- the same late checks with the value from --set: "--set KEY: " first ----------------
echo '{ "grid": { "width": 32, "height": 24 }, "time": { "frames": 2 } }' > "$T/s.json"
refused set-colormap '--set render\.colormap: .*did you mean "viridis"\?' "$T/s.json" -s render.mode=colormap -s render.colormap=virdis
refused set-codec '--set output\.codec: ' "$T/s.json" -s output.codec=nosuch
refused set-pix-fmt '--set output\.pix_fmt: "nosuch" is not a pixel format$' "$T/s.json" -s output.pix_fmt=nosuch
# FFmpeg's names get a guess too: a codec's own encoder, an ending, a typo.
refused codec-guess-format '--set output\.codec: "h264" is not an encoder in this FFmpeg; did you mean "libx264"\?$' \
    "$T/s.json" -s output.codec=h264
refused codec-guess-ending '--set output\.codec: "x264" .*did you mean "libx264"\?$' "$T/s.json" -s output.codec=x264
refused codec-guess-typo '--set output\.codec: "libx624" .*did you mean "libx264"\?$' "$T/s.json" -s output.codec=libx624
refused pix-fmt-guess '--set output\.pix_fmt: "yuv42p" is not a pixel format; did you mean "yuv420p"\?$' \
    "$T/s.json" -s output.pix_fmt=yuv42p
# an encoder's preset: x264's and x265's names, checked before the encoder opens
refused x264-preset '--set output\.preset: "fastest" is not a libx264 preset \(use ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow or placebo\); did you mean "fast"\?$' \
    "$T/s.json" -s output.preset=fastest
refused x264-preset-validate '--set output\.preset: "Fast" is not a libx264 preset' "$T/s.json" \
    -s output.preset=Fast --validate
# --validate refuses what opening the output would: the output's settings are checked, nothing written
for c in 'codec|output\.codec: "nosuch" is not an encoder|x.mp4|-s output.codec=nosuch' \
         'pix-fmt|output\.pix_fmt: "rgb24" is not supported by libx264|x.mp4|-s output.pix_fmt=rgb24' \
         'vp9-deadline|output\.preset: "slow" is not a libvpx-vp9 deadline|x.webm|-s output.preset=slow' \
         'vp9-realtime-444|output\.preset: "realtime" with pix_fmt yuv444p crashes libvpx-vp9; use good or best$|x.webm|-s output.preset=realtime -s output.pix_fmt=yuv444p' \
         'container|output\.codec: libx264 cannot be stored in a \.webm file|x.webm|-s output.codec=libx264' \
         'gif-codec|output\.codec: a \.gif file holds only the gif codec|x.gif|-s output.codec=libx264' \
         'gif-depth|output\.bit_depth: 16 does not apply to|x.gif|-s output.bit_depth=16' \
         'mp4-alpha|render\.alpha: output\.codec libx264 has no pixel format with alpha|x.mp4|-s render.alpha=height' \
         'exr-mode|render\.mode: .*"colormap" has no float picture|x%04d.exr|-s render.mode=colormap' \
         'exr-size|render\.width: .* holds one pixel per grid cell|x%04d.exr|-s render.width=64' \
         'stream-pix-fmt|output\.pix_fmt: "rgb24" is not a pixel format of output\.format y4m|-|-s output.pix_fmt=rgb24' \
         'no-crf|output\.crf: mpeg4 has no crf option$|x.mp4|-s output.codec=mpeg4 -s output.crf=20' \
         'no-preset|output\.preset: mpeg4 has no preset option$|x.mp4|-s output.codec=mpeg4 -s output.preset=slow' \
         'x264rgb-preset|output\.preset: "nonsense" is not a libx264rgb preset \(use ultrafast,|x.mkv|-s output.codec=libx264rgb -s output.preset=nonsense' \
         'x265-crf|output\.crf: libx265.s crf option takes 0 to 51, got 52$|x.mkv|-s output.codec=libx265 -s output.crf=52 -s render.width=64 -s render.height=64' \
         'x264-crf|output\.crf: libx264.s crf option takes 0 to 51, got 52$|x.mp4|-s output.crf=52' \
         'x264rgb-crf|output\.crf: libx264rgb.s crf option takes 0 to 51, got 63$|x.mkv|-s output.codec=libx264rgb -s output.crf=63'; do
    name=${c%%|*}; rest=${c#*|}; want=${rest%%|*}; rest=${rest#*|}; out=${rest%%|*}; set=${rest#*|}
    rm -rf "$T/v"; mkdir "$T/v"
    o=$T/v/$out; [ "$out" = - ] && o=-
    "$RR" "$T/s.json" --validate -o "$o" $set > "$T/out" 2> "$T/err"; s=$?
    if [ $s -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -qE "^ripplerender: --set $want" "$T/err" \
        && [ ! -s "$T/out" ] && [ -z "$(ls "$T/v")" ]; then ok "validate-$name"
    else fail "validate-$name" "status $s, message: $(cat "$T/err")"; fi
done
# An encoder's own crf or preset option of numbers (libsvtav1's preset is an
# integer): a value it would refuse when it opens is refused by --validate
# too, naming its range; one it takes is valid.
if ffmpeg -hide_banner -encoders 2> /dev/null | grep -q ' libsvtav1 '; then
    refused_as_is svt-preset-word-validate '--set output\.preset: libsvtav1.s preset option takes an integer from -?[0-9]+ to [0-9]+, got "fast"$' \
        "$T/s.json" -o "$T/x.mkv" -s output.codec=libsvtav1 -s output.preset=fast --validate
    refused_as_is svt-preset-range-validate '--set output\.preset: libsvtav1.s preset option takes an integer from -?[0-9]+ to [0-9]+, got "99"$' \
        "$T/s.json" -o "$T/x.mkv" -s output.codec=libsvtav1 -s 'output.preset="99"' --validate
    "$RR" "$T/s.json" -o "$T/x.mkv" -s output.codec=libsvtav1 -s 'output.preset="8"' --validate > /dev/null 2> "$T/err"; s=$?
    cond svt-preset-number-valid '[ $s -eq 0 ] && [ ! -s "$T/err" ]'
else
    echo "skip svt-preset-*: no libsvtav1 encoder"
fi
refused set-mask '--set obstacles\.0\.path: .*corrupt\.png: cannot read PNG' "$T/s.json" \
    -s "obstacles=[{\"type\":\"mask\",\"path\":\"$PWD/tests/bad/corrupt.png\"}]"
echo '{}' > "$T/empty.json"
refused set-budget '--set grid: 16384 x 16384 cells' "$T/empty.json" -s grid.width=16384 -s grid.height=16384
# A key --set gave inside a section of the file: the section's position (the nearest the file has).
refused set-budget-in-file "$T/s.json:1:11: grid: 16384 x 16384 cells" "$T/s.json" -s grid.width=16384 -s grid.height=16384
refused set-rain '--set rain\.rate: ' "$T/s.json" -s rain.rate=1e7 -s rain.end=1
refused set-outside '--set drops\.0: x 99, y 5 with radius 3 is wholly outside' "$T/s.json" -s drops.0.x=99 -s drops.0.y=5

# The output's kind comes from output.path: a bad one is located like any value;
# -o is an option, and names itself.
refused_as_is set-output-kind '--set output\.path: x\.xyz: unknown output kind' "$T/s.json" -s output.path=x.xyz
echo '{ "output": { "path": "x.xyz" } }' > "$T/o.json"
refused_as_is file-output-kind "$T/o.json:1:23: output\.path: x\.xyz: unknown output kind" "$T/o.json" --validate
refused_as_is option-output-kind "$T/x\.xyz: unknown output kind" "$T/o.json" -o "$T/x.xyz"
refused_as_is option-output-empty '-o: expected a file name, got ""' "$T/o.json" -o ""

# --- late checks on values from the file, at the value's position -------------------------
cat > "$T/wave.json" <<'JSON'
{ "grid": { "width": 32, "height": 24, "cell_size": 0.0001 },
  "time": { "frames": 2, "steps_per_frame": 1 },
  "solver": { "type": "wave", "speed": 1 } }
JSON
refused file-courant "$T/wave.json:2:45: time\.steps_per_frame: 1 is unstable" "$T/wave.json"
# A default value ("auto" for wave, past its cap of 1000 steps here): the
# position of its section, or with no section the scene's name.
sed -e 's/, "steps_per_frame": 1//' -e 's/"speed": 1 /"speed": 1000 /' "$T/wave.json" > "$T/wave2.json"
refused default-courant "$T/wave2.json:2:11: time\.steps_per_frame: \"auto\" needs [0-9]* steps per frame" "$T/wave2.json"
grep -v '"time"' "$T/wave2.json" > "$T/wave3.json"
refused default-courant-no-section "$T/wave3.json: time\.steps_per_frame: \"auto\" needs" "$T/wave3.json"
cat > "$T/gif.json" <<'JSON'
{ "time": { "frames": 2 },
  "output": { "codec": "libx264" } }
JSON
refused_as_is file-gif-codec "$T/gif.json:2:24: output\.codec: a \.gif file holds only the gif codec" "$T/gif.json" -o "$T/x.gif"
finish

# Real players: our mp4 (H.264) and webm (VP9), and GIF when this build writes
# it, played in headless Chromium (Debian's chromium, which decodes H.264
# through the system FFmpeg) to their `ended` event; the browser must see the
# right size, duration and frame count. tests/cli/play_in_chromium.py drives it.
. tests/cli/lib.sh
cat > "$T/s.json" <<'JSON'
{ "grid": { "width": 64, "height": 48 }, "time": { "fps": 20, "frames": 20 },
  "drops": [ { "x": 20, "y": 20, "radius": 4, "amplitude": -1 } ],
  "render": { "mode": "colormap", "colormap": "ocean", "range": [-0.5, 0.5] } }
JSON
if ! command -v chromium > /dev/null; then
    fail chromium "no chromium: install the Debian package chromium (sh .ci/deps.sh test)"
    finish; exit
fi
files=""
for kind in mp4 webm gif; do
    "$RR" "$T/s.json" -o "$T/a.$kind" -q 2> "$T/err"; s=$?
    if [ "$kind" = gif ] && [ $s -eq 2 ] && grep -q 'unknown output kind' "$T/err"; then
        echo "skip play-gif: this build has no .gif output"
        continue
    fi
    check "render-$kind" [ $s -eq 0 ]
    files="$files $T/a.$kind"
done
# A file the browser cannot play must be reported as such, not as played.
echo 'not a video' > "$T/junk.mp4"
/usr/bin/python3 tests/cli/play_in_chromium.py --timeout 15 $files "$T/junk.mp4" > "$T/played" 2> "$T/err"
check player-ran [ $? -eq 0 ]
[ -s "$T/err" ] && cat "$T/err"
for f in $files; do
    kind=${f##*.}
    line=$(grep "^$f " "$T/played")
    set -- $line
    if [ "$2" != ok ]; then fail "play-$kind" "$line"; continue; fi
    ok "play-$kind"
    check "play-$kind-size" [ "$3x$4" = 64x48 ]
    check "play-$kind-duration" awk -v d="$5" 'BEGIN { exit !(d > 0.95 && d < 1.05) }'
    check "play-$kind-frames" [ "$6" = 20 ]
done
check play-junk-refused grep -q "junk.mp4 error" "$T/played"

finish

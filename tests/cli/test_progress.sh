# The progress line (--progress always): it counts frames the sink has
# finished (encoded and written), not frames handed to the writer thread; it
# says when the encoder is being flushed; and its ETA, from the rate of
# finished frames, holds at a quarter of a 200-frame 1080p render to mp4.
. tests/cli/lib.sh

# lines FILE: the progress lines of a captured stderr, one per line.
lines() { tr '\r' '\n' < "$1" | sed -n 's/^\(frame [0-9]*\/[0-9]* written.*\)/\1/p'; }

# --- the count: never back, never past the total, every frame at the end -------------------
cat > "$T/small.json" <<'EOF'
{ "grid": { "width": 64, "height": 48 },
  "time": { "fps": 10, "frames": 30, "steps_per_frame": 2 },
  "drops": [ { "x": 20, "y": 20, "radius": 3, "amplitude": -1 } ],
  "render": { "mode": "colormap", "range": [-0.5, 0.5] } }
EOF
"$RR" "$T/small.json" -o "$T/a.mp4" --progress always 2> "$T/err"; s=$?
check mp4-exit-0 [ $s -eq 0 ]
lines "$T/err" > "$T/lines"
check count-never-back sh -c "cut -d' ' -f2 '$T/lines' | cut -d/ -f1 | sort -n -c"
check count-ends-at-total [ "$(tail -n 1 "$T/lines" | cut -d' ' -f2)" = 30/30 ]
check count-never-past-total awk -F'[ /]' '$2 > $3 { exit 1 }' "$T/lines"
# libx264 (preset medium) looks 40 frames ahead: with 30 frames none is
# encoded before the flush, and the line says it is flushing.
check flush-shown grep -q '^frame 0/30 written .*flushing encoder' "$T/lines"
check one-line-at-the-end [ "$(tail -c 1 "$T/err" | od -An -c | tr -d ' ')" = '\n' ]
"$RR" "$T/small.json" --hash --progress always > /dev/null 2> "$T/err"
lines "$T/err" > "$T/lines"
check hash-only-no-flush sh -c "! grep -q flushing '$T/lines'"
check hash-only-ends-at-total [ "$(tail -n 1 "$T/lines" | cut -d' ' -f2)" = 30/30 ]

# --- the ETA at 25 %: the rest of the frames at the rate seen so far -------------
# 1920x1080 from a 192x108 grid, two plane waves crossing the whole frame on
# wrapping edges: every frame costs the encoder about the same. libx264
# veryfast still holds ~20 frames (lookahead and frame threads).
cat > "$T/hd.json" <<'EOF'
{ "grid": { "width": 192, "height": 108 },
  "time": { "fps": 30, "frames": 200, "steps_per_frame": 1 },
  "boundary": "wrap",
  "initial": [ { "type": "wave", "wavelength": 24, "angle": 30, "amplitude": 0.5 },
               { "type": "wave", "wavelength": 17, "angle": -50, "amplitude": 0.3 } ],
  "render": { "mode": "colormap", "colormap": "viridis", "range": [-1, 1], "width": 1920, "height": 1080 },
  "output": { "preset": "veryfast" } }
EOF
# eta_at_quarter: runs the render, timing each progress line as it arrives;
# for the first line at or past 25 % prints "ETA EXPECTED REMAINING"
# (seconds): the ETA shown, the frames left at the rate this script saw
# from the first finished frame to that line, and the wall time the run
# then really took.
eta_at_quarter() {
    python3 - "$RR" "$T/hd.json" -o "$T/hd.mp4" -y --progress always <<'EOF'
import re, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE)
buf, seen = b'', []
while True:
    chunk = p.stderr.read1(4096)
    if not chunk:
        break
    now = time.monotonic()
    *done, buf = re.split(rb'[\r\n]', buf + chunk)
    seen += [(now, d.decode()) for d in done]
p.wait()
end = time.monotonic()
first = None
for t, line in seen:
    m = re.match(r'frame (\d+)/(\d+) written .*ETA (\d+):(\d+)', line)
    n = re.match(r'frame (\d+)/', line)
    if n and int(n.group(1)) > 0 and first is None:
        first = (t, int(n.group(1)))
    if p.returncode == 0 and m and first and t > first[0] and 4 * int(m.group(1)) >= int(m.group(2)):
        done, total = int(m.group(1)), int(m.group(2))
        rate = (done - first[1]) / (t - first[0])
        print(int(m.group(3)) * 60 + int(m.group(4)), round((total - done) / rate, 2), round(end - t, 2))
        break
EOF
}
# The ETA is the frames left at the rate since the first finished frame: the
# script's own clock on the same lines must give it within 30 % (plus half a
# second for the whole seconds shown and the pipe's delay). Whether the run
# then really took that long depends on the machine's other work, so the
# real remaining time is printed, not held; a second try is allowed.
good=0
for try in 1 2; do
    set -- $(eta_at_quarter)
    echo "eta-at-25%: try $try: ETA ${1:-?} s, at the rate seen ${2:-?} s, remaining ${3:-?} s"
    if [ -n "$2" ] && awk -v e="$1" -v r="$2" 'BEGIN { exit !(r > 0 && e >= 0.7 * r - 0.5 && e <= 1.3 * r + 0.5) }'; then
        good=1; break
    fi
done
check eta-at-25%-is-rate-seen [ $good -eq 1 ]
finish

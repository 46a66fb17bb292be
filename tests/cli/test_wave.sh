# Command-line tests of the wave solver: the Courant check and "auto" steps,
# its key errors, probes under an oscillator, an image initial condition, and
# thread independence of the wave scenes (their goldens are in test_cli.sh).
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

# 48x32 cells of 1 mm, c = 0.2 m/s, 30 fps: c dt/dx = 6.67 / spf <= 1/sqrt(2) needs spf >= 10.
cat > "$T/w.json" <<'JSON'
{ "grid": { "width": 48, "height": 32, "cell_size": 0.001 },
  "time": { "fps": 30, "frames": 12, "steps_per_frame": "auto" },
  "solver": { "type": "wave", "speed": 0.2 },
  "boundary": "absorb", "absorb_width": 6,
  "oscillators": [ { "x": 10, "y": 16, "radius": 0, "shape": "point", "amplitude": 0.3,
                     "frequency": 2.5, "phase": 0.5, "start": 0.2 } ],
  "probes": [ { "name": "src", "x": 10, "y": 16 }, { "name": "far", "x": 40, "y": 16 } ] }
JSON

# --- the Courant check and "auto" ---------------------------------------------------
"$RR" "$T/w.json" -s time.steps_per_frame=9 --validate 2> "$T/err"; s=$?
check courant-exit-2 [ $s -eq 2 ]
check courant-one-line [ "$(wc -l < "$T/err")" -eq 1 ]
check courant-names-steps grep -q 'time.steps_per_frame: 9 is unstable.*use steps_per_frame 10 or more' "$T/err"
"$RR" "$T/w.json" -s time.steps_per_frame=9 -o "$T/x.mp4" -q 2> /dev/null
check courant-writes-nothing [ ! -e "$T/x.mp4" ]
"$RR" "$T/w.json" --hash -q > "$T/auto.txt"; check auto-exit-0 [ $? -eq 0 ]
"$RR" "$T/w.json" -s time.steps_per_frame=10 --hash -q > "$T/ten.txt"
check auto-is-10-steps cmp -s "$T/auto.txt" "$T/ten.txt"
"$RR" "$T/w.json" --print-scene > "$T/resolved.json"
check print-scene-keeps-auto grep -q '"steps_per_frame":[[:space:]]*"auto"' "$T/resolved.json"
"$RR" "$T/resolved.json" --hash -q > "$T/again.txt"
check print-scene-same-frames cmp -s "$T/auto.txt" "$T/again.txt"

# --- key errors ------------------------------------------------------------------------
"$RR" "$T/w.json" -s solver.speed_map=missing.png --validate 2> "$T/err"; s=$?
check speed-map-missing-exit-2 [ $s -eq 2 ]
check speed-map-missing-names-key grep -q 'solver.speed_map' "$T/err"
"$RR" "$T/w.json" -s solver.speed=-1 --validate 2> "$T/err"; s=$?
check negative-speed-exit-2 [ $s -eq 2 ]
check negative-speed-names-key grep -q 'solver.speed' "$T/err"

# --- probes: the oscillator's cell holds 0.3 sin(2 pi 2.5 t + 0.5) from t = 0.2 s on ------
"$RR" "$T/w.json" --hash --probes "$T/p.csv" -q > /dev/null; check probes-exit-0 [ $? -eq 0 ]
check probes-rows [ "$(wc -l < "$T/p.csv")" -eq 13 ]
check probes-before-start awk -F, 'NR == 4 { exit !($3 == 0 && $4 == 0) }' "$T/p.csv"
check probes-oscillator awk -F, 'NR > 7 { w = 0.3 * sin(2 * 3.14159265358979 * 2.5 * $2 + 0.5);
    if ((($3 - w) ^ 2) > 1e-12) bad = 1 } END { exit bad }' "$T/p.csv"
check probes-far-moves awk -F, 'NR == 13 { exit !($4 != 0) }' "$T/p.csv"

# --- an image initial condition under the wave solver: (v - 0.5) * 2 * scale ----------------
# scenes/lens.png is 0 at the lens centre (72, 80) of its 256x160 grid.
cat > "$T/img.json" <<JSON
{ "grid": { "width": 256, "height": 160, "cell_size": 0.001 },
  "time": { "fps": 30, "frames": 2, "steps_per_frame": 10 },
  "solver": { "type": "wave", "speed": 0.2 },
  "initial": [ { "type": "image", "path": "$PWD/scenes/lens.png", "scale": 0.1 } ],
  "probes": [ { "name": "centre", "x": 72, "y": 80 }, { "name": "out", "x": 200, "y": 20 } ] }
JSON
"$RR" "$T/img.json" --hash --probes "$T/i.csv" -q > /dev/null; check image-initial-exit-0 [ $? -eq 0 ]
check image-initial-values awk -F, 'NR == 2 { exit !(($3 + 0.1) ^ 2 < 1e-14 && ($4 - 0.1) ^ 2 < 1e-14) }' "$T/i.csv"

# --- threads never change the wave scenes' frames ------------------------------------------
for sc in scenes/double-slit.json scenes/lens.json "$T/w.json"; do
    "$RR" "$sc" -f 8 --hash -j 1 -q > "$T/j1"; "$RR" "$sc" -f 8 --hash -j 2 -q > "$T/j2"
    check "threads-$(basename "$sc")" cmp -s "$T/j1" "$T/j2"
done
finish

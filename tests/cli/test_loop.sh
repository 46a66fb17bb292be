# Command-line tests of time.preroll and time.loop (docs/render.md,
# "Seamless loops"): the seam of a looped clip, measured on its .npy heights
# (frame 0 of the same scene with one period more of preroll is the clip's
# frame N) against the median step between consecutive frames, for elias
# with rain and an oscillator, for spectral undamped (exact) and damped; the
# warning for a preroll too short for the damping, and none otherwise; a
# preroll as a shift in time; refusals of loops that cannot settle.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

py() { python3 tests/cli/loop_check.py "$@"; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# elias (damping 0.99 at 60 steps a second: the slowest motion decays at
# -ln(0.99) * 30 = 0.3015/s, so 1/256 is left after ln(256) / 0.3015 = 18.4 s).
cat > "$T/fd.json" <<'EOF2'
{ "grid": { "width": 48, "height": 40 },
  "time": { "fps": 30, "frames": 30, "preroll": 20, "loop": true },
  "solver": { "type": "elias", "damping": 0.99 },
  "rain": { "rate": 10, "radius": [1, 2], "amplitude": [-1, -0.4], "seed": 4 },
  "oscillators": [ { "x": 14, "y": 30, "frequency": 2.2, "amplitude": 0.3, "radius": 1.5 } ] }
EOF2
"$RR" "$T/fd.json" -o "$T/a.npy" -y 2> "$T/err"
check "elias loop: no warning with a preroll of 20 s (18.4 s needed)" [ ! -s "$T/err" ]
"$RR" "$T/fd.json" -s time.preroll=21 -o "$T/b.npy" -y
r=$(py seam "$T/a.npy" "$T/b.npy")
cond "elias loop with rain and an oscillator: the seam is $r of the median step (< 0.05)" 'below "$r" 0.05'
"$RR" "$T/fd.json" -s time.loop=false -o "$T/a.npy" -y && "$RR" "$T/fd.json" -s time.loop=false -s time.preroll=21 -o "$T/b.npy" -y
r=$(py seam "$T/a.npy" "$T/b.npy")
cond "... not looped, the seam is $r of the median step (> 1)" 'below 1 "$r"'

# The warning: one line, the render goes on; the residue and the preroll by hand:
# exp(-0.30151 * 2) = 0.547, and ceil(100 ln(256) / 0.30151) / 100 = 18.4 s.
"$RR" "$T/fd.json" -s time.preroll=2 -o "$T/a.npy" -y 2> "$T/err"; rc=$?
cond "a preroll of 2 s: exit 0 and frames written" '[ $rc -eq 0 ] && [ -s "$T/a.npy" ]'
check "... one line of warning naming the preroll needed" grep -qx \
    "ripplerender: warning: time.preroll: 2 s leaves 0.55 of the start's motion in the loop (more than 1/256, a seam may show); the elias solver as set needs a preroll of 18.4 s (ln 256 / 0.3015 per s)" \
    "$T/err"
check "... and nothing else on stderr" [ "$(wc -l < "$T/err")" = 1 ]
"$RR" "$T/fd.json" -s time.preroll=2 -s time.loop=false -o "$T/a.npy" -y 2> "$T/err"
check "no warning without a loop" [ ! -s "$T/err" ]
"$RR" "$T/fd.json" -s time.preroll=18.5 --validate > /dev/null 2> "$T/err"
check "no warning at 18.5 s" [ ! -s "$T/err" ]
"$RR" "$T/fd.json" -s time.preroll=18.3 --validate > /dev/null 2> "$T/err"
check "a warning at 18.3 s" grep -q "warning: time.preroll: 18.3 s leaves 0.004" "$T/err"

# spectral, undamped, on a periodic domain: frame N is frame 0 up to float
# rounding (every mode turns a whole number of times per loop).
cat > "$T/sp.json" <<EOF2
{ "grid": { "width": 64, "height": 64, "cell_size": 0.0005 },
  "time": { "fps": 30, "frames": 24, "steps_per_frame": 4, "loop": true },
  "solver": { "type": "spectral", "viscosity": 0 },
  "boundary": "wrap",
  "initial": [ { "type": "image", "path": "$PWD/scenes/pool.png", "scale": 0.02 } ] }
EOF2
"$RR" "$T/sp.json" -o "$T/a.npy" -y 2> "$T/err" && "$RR" "$T/sp.json" -s time.preroll=0.8 -o "$T/b.npy" -y
check "spectral undamped loop: no warning" [ ! -s "$T/err" ]
r=$(py seam "$T/a.npy" "$T/b.npy")
cond "... the seam is $r of the median step (< 0.001)" 'below "$r" 0.001'
"$RR" "$T/sp.json" -s time.loop=false -o "$T/a.npy" -y && "$RR" "$T/sp.json" -s time.loop=false -s time.preroll=0.8 -o "$T/b.npy" -y
r=$(py seam "$T/a.npy" "$T/b.npy")
cond "... not looped, $r of the median step (> 0.5)" 'below 0.5 "$r"'
# damped (half_life 0.25 s: ln 2 / 0.25 = 2.77/s, 1/256 after 2 s) with rain and an oscillator
"$RR" "$T/sp.json" -s solver.half_life=0.25 -s time.preroll=2.5 -s initial=[] \
    -s 'rain={"rate":8,"radius":[2,4],"amplitude":[-0.5,-0.2],"shape":"cosine","seed":2}' \
    -s 'oscillators=[{"x":30,"y":30,"frequency":3.3,"amplitude":0.05,"radius":2}]' -o "$T/a.npy" -y 2> "$T/err" \
&& "$RR" "$T/sp.json" -s solver.half_life=0.25 -s time.preroll=3.3 -s initial=[] \
    -s 'rain={"rate":8,"radius":[2,4],"amplitude":[-0.5,-0.2],"shape":"cosine","seed":2}' \
    -s 'oscillators=[{"x":30,"y":30,"frequency":3.3,"amplitude":0.05,"radius":2}]' -o "$T/b.npy" -y
check "spectral damped loop: no warning" [ ! -s "$T/err" ]
r=$(py seam "$T/a.npy" "$T/b.npy")
cond "... with rain and an oscillator, the seam is $r of the median step (< 0.05)" 'below "$r" 0.05'

# A preroll is a shift in time: an oscillator from time 0 (2 Hz: whole cycles
# per second) after 1 s of preroll is the run without it, 30 frames on.
cat > "$T/osc.json" <<'EOF2'
{ "grid": { "width": 40, "height": 30 }, "time": { "fps": 30, "frames": 45 },
  "oscillators": [ { "x": 12, "y": 15, "frequency": 2, "amplitude": 0.4 } ],
  "render": { "mode": "height" } }
EOF2
"$RR" "$T/osc.json" -o "$T/a.npy" -y && "$RR" "$T/osc.json" -s time.frames=15 -s time.preroll=1 -o "$T/b.npy" -y
r=$(py shift "$T/b.npy" "$T/a.npy" 30)
cond "1 s of preroll = the first 30 frames skipped (max difference $r < 1e-5)" 'below "$r" 1e-5'
"$RR" "$T/osc.json" -s time.frames=3 -s time.preroll=1 --hash > "$T/h"
check "... the frames keep their numbers" sh -c "cut -d' ' -f1 '$T/h' | tr '\n' ' ' | grep -qx '0 1 2 '"
# A drop at time 0 falls after the preroll, into frame 0: on calm water the
# preroll changes nothing, bit for bit.
small_scene "$T/d.json"
"$RR" "$T/d.json" -o "$T/a.npy" -y && "$RR" "$T/d.json" -s time.preroll=3 -o "$T/b.npy" -y
check "a drop at time 0 stays at frame 0 after a preroll" cmp -s "$T/a.npy" "$T/b.npy"
# At 60 steps a second 0.02 s is 1.2 steps and 0.0249 s 1.49: both one step.
"$RR" "$T/osc.json" -s time.frames=2 -s time.preroll=0.02 -o "$T/a.npy" -y \
&& "$RR" "$T/osc.json" -s time.frames=2 -s time.preroll=0.0249 -o "$T/b.npy" -y \
&& "$RR" "$T/osc.json" -s time.frames=2 -o "$T/c.npy" -y
cond "a preroll counts whole steps (0.02 s and 0.0249 s: one step of 1/60 s; 0: none)" \
    'cmp -s "$T/a.npy" "$T/b.npy" && ! cmp -s "$T/a.npy" "$T/c.npy"'

# Refusals: exit 2, one line naming time.loop where the scene gave it.
"$RR" "$T/fd.json" -s solver.damping=1 --validate > "$T/out" 2> "$T/err"; rc=$?
cond "an undamped elias loop refused (exit 2, one line)" '[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" = 1 ]'
check "... naming the scene's time.loop and the damping keys" grep -qx \
    "ripplerender: $T/fd.json:2:61: time.loop: the elias solver as set does not damp the water, so the clip never settles into a loop; damp it (solver.damping or solver.half_life)" \
    "$T/err"
"$RR" "$T/sp.json" -s 'drops=[{"time":0.2}]' --validate 2> "$T/err"; rc=$?
cond "an undamped spectral loop with a drop after frame 0 refused" \
    '[ $rc -eq 2 ] && grep -q "time.loop: an undamped spectral loop .* but drops.0 falls after frame 0; damp it (solver.half_life)" "$T/err"'

# --print-scene writes both keys and reads them back.
"$RR" --print-scene "$T/fd.json" > "$T/p.json"
check "--print-scene writes time.preroll and time.loop" \
    sh -c "grep -q '\"preroll\":	20' '$T/p.json' && grep -q '\"loop\":	true' '$T/p.json'"
"$RR" --print-scene "$T/p.json" > "$T/p2.json"
check "... and loads them back" cmp -s "$T/p.json" "$T/p2.json"
# Moving walls in a preroll stand as at frame 0 (their motion starts at
# time 0), and a chunk of the clip is the whole run's; a loop refuses them
# (their keys do not repeat with the loop's period).
cat > "$T/walls.json" <<'EOF2'
{ "grid": { "width": 64, "height": 48 }, "time": { "frames": 12, "preroll": 0.5 },
  "obstacles": [ { "type": "rect", "x": 10, "y": 10, "width": 4, "height": 20,
                   "motion": [[0, 0, 0], [0.3, 10, 0]] } ],
  "drops": [ { "x": 40, "y": 24 } ] }
EOF2
"$RR" "$T/walls.json" --hash > "$T/whole.txt"
"$RR" "$T/walls.json" --hash --range 6-11 -j 1 > "$T/part.txt"
check "preroll with a moving wall: frames 6-11 alone are the whole run's" \
    sh -c "sed -n 7,12p '$T/whole.txt' | cmp -s - '$T/part.txt'"
"$RR" "$T/walls.json" -s time.loop=true --hash > /dev/null 2> "$T/err"; rc=$?
cond "a loop with a moving wall: exit 2, one line naming obstacles.0" \
    '[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "time.loop: obstacles.0 moves" "$T/err"'
finish

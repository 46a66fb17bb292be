# Command-line tests of the spectral solver and scenes/capillary.json. Its
# frames depend on the CPU's FFT code paths, so these are physics checks with
# tolerances (tests/golden/capillary.skip keeps it out of the golden hashes),
# plus thread independence on this machine, and measured FFT plans (RIPPLERENDER_FFT=measure).
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

# npy.py FILE CHECK...: reads a float32 .npy (frames, height, width) without
# numpy and runs one check; exit 0 when it holds.
cat > "$T/npy.py" <<'EOF2'
import ast, cmath, math, struct, sys
def load(path):
    with open(path, 'rb') as f:
        assert f.read(6) == b'\x93NUMPY'
        major = f.read(2)[0]
        n = struct.unpack('<H' if major == 1 else '<I', f.read(2 if major == 1 else 4))[0]
        hdr = ast.literal_eval(f.read(n).decode('latin1'))
        assert hdr['descr'] == '<f4' and not hdr['fortran_order']
        fr, h, w = hdr['shape']
        data = struct.unpack('<%df' % (fr * h * w), f.read())
    return fr, h, w, data
path, what = sys.argv[1], sys.argv[2]
fr, h, w, d = load(path)
if what == 'capillary':
    # 48 frames of 180 x 240, all finite, ripples that move and stay small
    ok = (fr, h, w) == (48, 180, 240) and all(math.isfinite(v) for v in d)
    frame = lambda i: d[i * h * w:(i + 1) * h * w]
    ok = ok and max(abs(v) for v in frame(20)) > 0.01 and max(abs(v) for v in d) <= 1.0
    ok = ok and any(abs(a - b) > 1e-3 for a, b in zip(frame(20), frame(21)))
    sys.exit(0 if ok else 1)
if what == 'phase':
    # a plane wave of 16 cells of 1 mm on water 5 mm deep: its phase turns by
    # omega dt per frame, omega^2 = (g k + sigma/rho k^3) tanh(k d)
    g, sigma, rho, depth, dx, dt = 9.81, 0.0728, 1000.0, 0.005, 0.001, 1 / 30
    k = 2 * math.pi / (16 * dx)
    omega = math.sqrt((g * k + sigma / rho * k ** 3) * math.tanh(k * depth))
    def mode(i):
        row = d[i * h * w:i * h * w + w]
        return sum(v * cmath.exp(-2j * math.pi * x / 16) for x, v in enumerate(row))
    worst = 0
    for i in range(1, fr):
        turn = cmath.phase(mode(i) / mode(i - 1))
        worst = max(worst, abs(math.remainder(turn + omega * dt, 2 * math.pi)))
    print('worst phase error per frame: %.2e rad (omega dt = %.4f)' % (worst, omega * dt))
    sys.exit(0 if worst < 1e-3 else 1)
if what == 'same-frame':
    # frame N of this file against the same frame of another: RMS of the
    # difference within 0.5 % of the other's peak
    i, other = int(sys.argv[3]), load(sys.argv[4])[3]
    a, b = d[i * h * w:(i + 1) * h * w], other[i * h * w:(i + 1) * h * w]
    rms = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)) / len(a))
    peak = max(abs(y) for y in b)
    print('frame %d: RMS of the difference %.4f %% of the peak' % (i, 100 * rms / peak))
    sys.exit(0 if rms < 0.005 * peak else 1)
sys.exit(2)
EOF2

# --- scenes/capillary.json: runs, finite, moving ripples; the same frames for -j1 and -j2 ---
"$RR" scenes/capillary.json -o "$T/cap.npy" -q -j1; check capillary-exit-0 [ $? -eq 0 ]
check capillary-npy-finite-and-moving python3 "$T/npy.py" "$T/cap.npy" capillary
"$RR" scenes/capillary.json -f 12 --hash -q -j1 > "$T/h1"; "$RR" scenes/capillary.json -f 12 --hash -q -j2 > "$T/h2"
check capillary-threads-identical cmp -s "$T/h1" "$T/h2"
check capillary-hash-lines [ "$(wc -l < "$T/h1")" -eq 12 ]
# a domain large enough for the solver's parallel loops, of odd FFT lengths (567 x 525 with
# the pads): every thread's line buffers must have the alignment the plans were made with
"$RR" scenes/capillary.json -s grid.width=503 -s grid.height=461 -f 2 --hash -q -j1 > "$T/b1"
"$RR" scenes/capillary.json -s grid.width=503 -s grid.height=461 -f 2 --hash -q -j2 > "$T/b2"
"$RR" scenes/capillary.json -s grid.width=503 -s grid.height=461 -f 2 --hash -q -j3 > "$T/b3"
check spectral-large-threads-identical sh -c "cmp -s '$T/b1' '$T/b2' && cmp -s '$T/b1' '$T/b3'"
check spectral-large-hash-lines [ "$(wc -l < "$T/b1")" -eq 2 ]
# power-of-two FFT lengths (wrap, 1024 x 512): the line buffers' strides are moved off
# multiples of 4 KiB; the frames are still those of any thread count
for j in 1 2 3; do
    "$RR" scenes/capillary.json -s boundary=wrap -s 'obstacles=[]' -s grid.width=1024 -s grid.height=512 \
        -f 2 --hash -q -j$j > "$T/p$j"
done
check spectral-pow2-threads-identical sh -c "cmp -s '$T/p1' '$T/p2' && cmp -s '$T/p1' '$T/p3'"
check spectral-pow2-hash-lines [ "$(wc -l < "$T/p1")" -eq 2 ]

# --- capillary's drops start at rest: on a wrap grid without the obstacle (nothing acts between
# steps but the drops), frame 5 with 6 steps per frame (the scene's) is the one with 192 ---
for n in 6 192; do
    "$RR" scenes/capillary.json -s boundary=wrap -s 'obstacles=[]' -s time.steps_per_frame=$n -f 6 -o "$T/cap$n.npy" -q
done
check capillary-same-frames-any-step-count python3 "$T/npy.py" "$T/cap6.npy" same-frame 5 "$T/cap192.npy"

# --- defaults render, and "auto" steps: omega(pi / cell_size) dt < pi, 17 steps at 1 mm and 30 fps ---
echo '{ "solver": { "type": "spectral" } }' > "$T/def.json"
"$RR" "$T/def.json" -f 3 -o "$T/def.npy" -q; check spectral-defaults-render [ $? -eq 0 ]
cat > "$T/auto.json" <<'EOF2'
{ "grid": { "width": 48, "height": 32, "cell_size": 0.001 },
  "time": { "fps": 30, "frames": 3, "steps_per_frame": "auto" },
  "solver": { "type": "spectral" }, "boundary": "absorb",
  "oscillators": [ { "x": 20, "y": 16, "frequency": 8, "amplitude": 0.1 } ] }
EOF2
"$RR" "$T/auto.json" --hash -q > "$T/auto17"; check spectral-auto-exit-0 [ $? -eq 0 ]
"$RR" "$T/auto.json" -s time.steps_per_frame=17 --hash -q > "$T/n17"
"$RR" "$T/auto.json" -s time.steps_per_frame=16 --hash -q > "$T/n16"
check spectral-auto-is-17-steps cmp -s "$T/auto17" "$T/n17"
check spectral-auto-not-16-steps sh -c "! cmp -s '$T/auto17' '$T/n16'"
"$RR" "$T/auto.json" --print-scene > "$T/auto-resolved.json"
check spectral-print-scene-keeps-auto grep -q '"steps_per_frame":[[:space:]]*"auto"' "$T/auto-resolved.json"

# --- every example scene with the spectral solver: tests/cli/test_solver_types.sh
# (renders, or is refused for a key of another solver that the scene gives) ---

# --- the dispersion relation through the scene keys (depth, gravity, surface_tension) ---
cat > "$T/plane.json" <<'EOF2'
{ "grid": { "width": 64, "height": 4, "cell_size": 0.001 },
  "time": { "fps": 30, "frames": 12, "steps_per_frame": 1 },
  "solver": { "type": "spectral", "depth": 0.005, "viscosity": 0 },
  "boundary": "wrap",
  "initial": [ { "type": "wave", "wavelength": 16, "angle": 0, "amplitude": 0.5 } ] }
EOF2
"$RR" "$T/plane.json" -o "$T/plane.npy" -q; check plane-wave-exit-0 [ $? -eq 0 ]
check plane-wave-phase-speed python3 "$T/npy.py" "$T/plane.npy" phase
# the same wave on deep water turns faster: the depth key is used
"$RR" "$T/plane.json" -s solver.depth=0 -o "$T/deep.npy" -q
check plane-wave-depth-matters sh -c "! python3 '$T/npy.py' '$T/deep.npy' phase > /dev/null"

# --- RIPPLERENDER_FFT=measure: plans timed here and cached in $XDG_CACHE_HOME/ripplerender; the
# measuring run, a run from the cache and -j2 give the same frames; the physics holds (the plane
# wave's phase); a bad value is refused in one line; a cache folder that cannot be made is ignored;
# RIPPLERENDER_CACHE=0 (which lib.sh sets for every test) keeps it from reading or writing one ---
mkdir "$T/xdg"
RIPPLERENDER_FFT=measure XDG_CACHE_HOME="$T/xdg" "$RR" scenes/capillary.json -f 2 --hash -q -j1 > /dev/null
check fft-measure-cache-off-writes-nothing [ -z "$(ls -A "$T/xdg")" ]
fft() { RIPPLERENDER_CACHE=1 XDG_CACHE_HOME="$T/xdg" RIPPLERENDER_FFT=measure "$RR" "$@"; }
fft scenes/capillary.json -f 6 --hash -q -j1 > "$T/m1"; check fft-measure-exit-0 [ $? -eq 0 ]
check fft-measure-cache-written sh -c "ls '$T/xdg/ripplerender/' | grep -qx 'fftw3f-[0-9a-f]\{16\}\.wisdom'"
fft scenes/capillary.json -f 6 --hash -q -j1 > "$T/m2"; fft scenes/capillary.json -f 6 --hash -q -j2 > "$T/m3"
check fft-measure-same-frames-from-cache cmp -s "$T/m1" "$T/m2"
check fft-measure-threads-identical cmp -s "$T/m1" "$T/m3"
check fft-measure-hash-lines [ "$(wc -l < "$T/m1")" -eq 6 ]
fft "$T/plane.json" -o "$T/plane-m.npy" -q; check fft-measure-plane-wave-phase python3 "$T/npy.py" "$T/plane-m.npy" phase
: > "$T/xdg-file"
RIPPLERENDER_CACHE=1 XDG_CACHE_HOME="$T/xdg-file" RIPPLERENDER_FFT=measure "$RR" scenes/capillary.json -f 6 --hash -q -j1 > "$T/m4"
s=$?; cond fft-measure-unwritable-cache-ignored "[ $s -eq 0 ] && [ \"\$(wc -l < '$T/m4')\" -eq 6 ]"
# A named pipe as the wisdom file (no writer) is not read: the run does not
# wait for a writer forever (it measures its plans afresh).
W=$(ls "$T"/xdg/ripplerender/fftw3f-*.wisdom)
rm -f "$W"; mkfifo "$W"
RIPPLERENDER_CACHE=1 XDG_CACHE_HOME="$T/xdg" RIPPLERENDER_FFT=measure timeout -s KILL 60 "$RR" scenes/capillary.json \
    -f 6 --hash -q -j1 > "$T/m5" 2> /dev/null; s=$?
cond fft-measure-fifo-not-read "[ $s -eq 0 ] && [ \"\$(wc -l < '$T/m5')\" -eq 6 ]"
rm -f "$W"
RIPPLERENDER_FFT=fast "$RR" "$T/plane.json" --hash -q > /dev/null 2> "$T/err"; s=$?
check fft-bad-value-exit-2 [ $s -eq 2 ]
check fft-bad-value-one-line sh -c "[ \"\$(cat '$T/err')\" = 'ripplerender: RIPPLERENDER_FFT=fast: expected estimate or measure' ]"
# Checked with the environment's other values, before the scene, whatever
# the solver: a sweep's typo is found by its first scene, not hours later by
# its first spectral one; --print-scene and --validate refuse it too.
echo '{ "grid": { "width": 16, "height": 16 }, "time": { "frames": 2 } }' > "$T/elias.json"
for a in "hash|$T/elias.json --hash -q" "print-scene|$T/plane.json --print-scene" "validate|$T/elias.json --validate"; do
    # shellcheck disable=SC2086
    RIPPLERENDER_FFT=fast "$RR" ${a#*|} > "$T/out" 2> "$T/err"; s=$?
    cond "fft-bad-value-refused-${a%%|*}" '[ $s -eq 2 ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "ripplerender: RIPPLERENDER_FFT=fast: expected estimate or measure" ]'
done

# --- errors name the key ---
"$RR" "$T/plane.json" -s solver.density=0 --validate 2> "$T/err"; s=$?
check density-zero-exit-2 [ $s -eq 2 ]
check density-zero-names-key grep -q 'solver.density' "$T/err"

finish

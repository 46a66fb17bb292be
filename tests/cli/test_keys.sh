# No key is silently ignored: every key of the scene schema, against every
# solver, render mode and output kind it can meet, changes the frames (or the
# heights, the probes, the output's bytes), or is refused in a line naming
# it, or docs/scene.md's "used by" says it does not apply there
# (tests/cli/keywalk.py).
. tests/cli/lib.sh

python3 tests/cli/keywalk.py "$RR" scenes/scene.schema.json docs/scene.md "$T" > "$T/walk.log" 2>&1
while IFS= read -r line; do
    case "$line" in
        "ok "*) ok "${line#ok }" ;;
        "FAIL "*) f=${line#FAIL }; fail "${f%%: *}" "${f#*: }" ;;
    esac
done < "$T/walk.log"
check keywalk-finished grep -q '^keywalk: [0-9]* passed, 0 failed$' "$T/walk.log"

# A key of another output kind is not refused (-o picks the kind, so one
# scene goes to several) but named in one warning line each: the place, the
# value, the output and the kinds that read it; the run goes on. Not for a
# key at its default value, nor for one the kind reads.
printf '{ "grid": { "width": 24, "height": 16 }, "time": { "frames": 2 },\n  "output": { "crf": 18, "preset": "slow", "bit_depth": 8, "compression": 3 } }\n' > "$T/o.json"
"$RR" "$T/o.json" -o "$T/f%02d.png" > /dev/null 2> "$T/err"; rc=$?
check warn-png-runs [ "$rc" -eq 0 -a -s "$T/f00.png" -a -s "$T/f01.png" ]
check warn-png-crf grep -qxF "ripplerender: warning: $T/o.json:2:22: output.crf (18) is not used by a PNG sequence ($T/f%02d.png); it applies to mp4, mkv, mov, webm" "$T/err"
check warn-png-preset grep -qxF "ripplerender: warning: $T/o.json:2:36: output.preset (\"slow\") is not used by a PNG sequence ($T/f%02d.png); it applies to mp4, mkv, mov, webm" "$T/err"
check warn-png-only-those [ "$(wc -l < "$T/err")" -eq 2 ]
"$RR" "$T/o.json" -o "$T/a.mp4" -s output.compression=5 -s output.format=nut --validate > /dev/null 2> "$T/err"; rc=$?
check warn-validate-exit-0 [ "$rc" -eq 0 ]
check warn-validate-set grep -qxF "ripplerender: warning: --set output.compression (5) is not used by a video ($T/a.mp4); it applies to png" "$T/err"
check warn-validate-format grep -qxF "ripplerender: warning: --set output.format (\"nut\") is not used by a video ($T/a.mp4); it applies to -" "$T/err"
check warn-validate-only-those [ "$(wc -l < "$T/err")" -eq 2 ]
"$RR" "$T/o.json" -o "$T/warn.npy" -s output.pix_fmt=gray -s output.exr_compression=piz -s output.codec=ffv1 -q 2> "$T/err"
check warn-npy-pix-fmt grep -qxF "ripplerender: warning: --set output.pix_fmt (\"gray\") is not used by a .npy file ($T/warn.npy); it applies to mp4, mkv, mov, webm, gif, -" "$T/err"
check warn-npy-exr grep -qxF "ripplerender: warning: --set output.exr_compression (\"piz\") is not used by a .npy file ($T/warn.npy); it applies to exr" "$T/err"
check warn-npy-codec grep -qxF "ripplerender: warning: --set output.codec (\"ffv1\") is not used by a .npy file ($T/warn.npy); it applies to mp4, mkv, mov, webm, gif" "$T/err"
# the kind's own keys warn of nothing
"$RR" "$T/o.json" -o "$T/b.mp4" -q 2> "$T/err"
check warn-none-for-video [ ! -s "$T/err" -a -s "$T/b.mp4" ]
# --hash, --check and --validate --hash without -o write no output: the
# file's output section (its path and settings) is the plain run's target,
# replaced by none (no line: a scene made for a video hashes quietly); every
# output.* key --set gives acts on nothing and is named, a --set output.path
# with the -o that writes it; the hashes are as without the keys
"$RR" "$T/o.json" --hash > "$T/o.hash" 2> "$T/err"
check warn-hash-file-keys-none [ ! -s "$T/err" ]
"$RR" "$T/o.json" --hash -s output.crf=20 > /dev/null 2> "$T/err"
check warn-hash-set-over-file [ "$(cat "$T/err")" = "ripplerender: warning: --set output.crf (20) is not used by a run that writes no output (--hash without -o); it applies to mp4, mkv, mov, webm" ]
w="ripplerender: warning: --set output.compression (5) is not used by a run that writes no output (OPT without -o); it applies to png"
for how in --hash "--check $T/o.hash" "--validate --hash"; do
    opt=${how#--validate }; opt=${opt%% *}
    "$RR" "$T/o.json" -s output.crf=-1 -s output.preset= -s output.compression=5 $how > "$T/out" 2> "$T/err"; rc=$?
    check "warn-without-output ($how)" [ "$rc" -eq 0 -a "$(grep warning "$T/err")" = "$(echo "$w" | sed "s/OPT/$opt/")" -a "$(grep -c . "$T/err")" -eq $((1 + $(echo "$how" | grep -c check))) ]
done
"$RR" "$T/o.json" --hash -s output.compression=5 -s output.path="$T/b.mp4" > "$T/out" 2> "$T/err"
check warn-hash-same-hashes cmp -s "$T/out" "$T/o.hash"
check warn-hash-set-path grep -qxF "ripplerender: warning: --set output.path (\"$T/b.mp4\") is not used by a run that writes no output (--hash without -o); -o $T/b.mp4 writes it" "$T/err"
check warn-hash-set-compression grep -qxF "ripplerender: warning: --set output.compression (5) is not used by a run that writes no output (--hash without -o); it applies to png" "$T/err"
check warn-hash-set-two-lines [ "$(wc -l < "$T/err")" -eq 2 ]
# with -o beside --hash the output is written: its kind's keys act, unnamed
"$RR" "$T/o.json" --hash -o "$T/b.mp4" -y > "$T/out" 2> "$T/err"
check warn-hash-with-output-none [ ! -s "$T/err" -a -s "$T/b.mp4" ]
# a scene's own output.path, at its default or given, is no line (the
# documented meaning of --hash without -o); nor a preset's keys
printf '{ "time": { "frames": 1 }, "grid": { "width": 8, "height": 8 }, "output": { "path": "out/x.mp4" } }\n' > "$T/p.json"
"$RR" "$T/p.json" --hash > /dev/null 2> "$T/err"
check warn-hash-file-path-none [ ! -s "$T/err" ]
"$RR" --preset pond -f 1 --hash > /dev/null 2> "$T/err"
check warn-hash-preset-none [ ! -s "$T/err" ]
# ripplerender join takes no scene: a key given to it is refused, naming it
"$RR" join "$T/b.mp4" -o "$T/c.mp4" -s output.crf=18 2> "$T/err"; rc=$?
check join-refuses-set [ "$rc" -eq 2 -a "$(cat "$T/err")" = "ripplerender: join -s: unknown option (ripplerender join -h)" -a ! -e "$T/c.mp4" ]
# a render key of another mode is refused; a file's, when -s render.mode
# chose the mode, is a warning naming it, and the run goes on (the frames are
# those of the section without it)
printf '{ "render": { "mode": "colormap", "colormap": "ocean" } }\n' > "$T/c.json"
"$RR" "$T/c.json" -s render.mode=shaded --validate > /dev/null 2> "$T/err"; rc=$?
check mode-set-file-key-runs [ "$rc" -eq 0 ]
check mode-set-file-key-warned grep -qx "ripplerender: warning: $T/c.json:1:35: render.colormap (\"ocean\") is not used by the shaded render mode that --set render.mode chose (a key of colormap): ignored" "$T/err"
check mode-set-file-key-one-line [ "$(wc -l < "$T/err")" -eq 1 ]
# render.range too, when -s render.mode chose a mode it does nothing in
printf '{ "render": { "mode": "colormap", "range": [-0.5, 0.5] } }\n' > "$T/rg.json"
"$RR" "$T/rg.json" -s render.mode=normals --validate > /dev/null 2> "$T/err"; rc=$?
check mode-set-file-range-warned [ "$rc" -eq 0 -a "$(cat "$T/err")" = "ripplerender: warning: $T/rg.json:1:35: render.range ([-0.5,0.5]) is not used by the normals render mode that --set render.mode chose (a key of height, colormap): ignored" ]
printf '{ "grid": { "width": 24, "height": 16 }, "time": { "frames": 3 }, "render": { "mode": "shaded" } }\n' > "$T/g1.json"
printf '{ "grid": { "width": 24, "height": 16 }, "time": { "frames": 3 }, "render": { "mode": "colormap", "colormap": "ocean" } }\n' > "$T/g2.json"
"$RR" "$T/g1.json" --hash -q > "$T/h1" 2> /dev/null
"$RR" "$T/g2.json" -s render.mode=shaded --hash -q > "$T/h2" 2> /dev/null
check mode-set-three-frames [ "$(wc -l < "$T/h1")" -eq 3 ]
check mode-set-same-frames cmp -s "$T/h1" "$T/h2"
# absorb_width without an absorb edge does nothing: refused (tests/bad/274);
# a file's, when -s boundary chose edges without one, is a warning naming
# it, and the frames are those of the scene without it
printf '{ "grid": { "width": 24, "height": 16 }, "time": { "frames": 3 }, "boundary": "absorb", "absorb_width": 4,\n  "drops": [ { "x": 3, "y": 3 } ] }\n' > "$T/a.json"
"$RR" "$T/a.json" -s boundary=clamp --hash -q > "$T/h1" 2> "$T/err"; rc=$?
check absorb-width-set-boundary-runs [ "$rc" -eq 0 ]
check absorb-width-set-boundary-warned [ "$(cat "$T/err")" = "ripplerender: warning: $T/a.json:1:89: absorb_width (4) is not used by the edges that --set boundary chose (boundary: \"clamp\"): ignored" ]
printf '{ "grid": { "width": 24, "height": 16 }, "time": { "frames": 3 }, "boundary": "clamp",\n  "drops": [ { "x": 3, "y": 3 } ] }\n' > "$T/a2.json"
"$RR" "$T/a2.json" --hash -q > "$T/h2" 2> /dev/null
check absorb-width-set-boundary-same-frames cmp -s "$T/h1" "$T/h2"
"$RR" "$T/a2.json" -s absorb_width=4 --validate > /dev/null 2> "$T/err"; rc=$?
check absorb-width-set-refused [ "$rc" -eq 2 -a "$(cat "$T/err")" = "ripplerender: --set absorb_width: acts on \"absorb\" edges only, and no edge is \"absorb\" (boundary: \"clamp\"); give one or leave absorb_width out, got 4" ]
# ... and a preset's, when the file's boundary has no absorb edge
printf '{ "boundary": "fixed" }\n' > "$T/fb.json"
"$RR" --preset harbour "$T/fb.json" --validate > /dev/null 2> "$T/err"; rc=$?
check absorb-width-file-over-preset [ "$rc" -eq 0 -a "$(cat "$T/err")" = "ripplerender: warning: preset harbour:7:3: absorb_width (16) is not used by the edges that $T/fb.json's boundary chose (boundary: \"fixed\"): ignored" ]
# a solver key of another solver stays refused under -s solver.type, saying the way out
printf '{ "solver": { "type": "wave", "speed": 0.3 } }\n' > "$T/w.json"
"$RR" "$T/w.json" -s solver.type=elias --validate 2> "$T/err"; rc=$?
check type-set-refuses-file-key [ "$rc" -eq 2 ]
check type-set-names-key grep -q "^ripplerender: $T/w.json:1:31: solver.speed: not used by the elias solver (a key of wave); elias takes .*, got 0.3 (--set solver.type keeps the section's other keys; to start it afresh, give it whole: --set 'solver={\"type\": \"elias\"}')$" "$T/err"
# ... and so is a per-step damping under -s solver.type of a solver without
# one, with the same way out (the scene's damping cannot be removed by --set)
printf '{ "solver": { "type": "elias", "damping": 0.996 } }\n' > "$T/d.json"
"$RR" "$T/d.json" -s solver.type=wave --validate 2> "$T/err"; rc=$?
check type-set-refuses-damping [ "$rc" -eq 2 -a "$(cat "$T/err")" = "ripplerender: $T/d.json:1:32: solver.damping: not used by the wave solver (a per-step factor); use solver.half_life or solver.decay, got 0.996 (--set solver.type keeps the section's other keys; to start it afresh, give it whole: --set 'solver={\"type\": \"wave\"}')" ]
"$RR" "$T/d.json" -s 'solver={"type": "wave"}' --validate > /dev/null 2> "$T/err"
check type-set-whole-takes-damping-away [ ! -s "$T/err" ]
# the section given whole starts afresh, quietly; a file's own mistake is refused
"$RR" "$T/c.json" -s 'render={"mode": "shaded"}' --validate > /dev/null 2> "$T/err"; rc=$?
check mode-set-whole-section [ "$rc" -eq 0 ]
check mode-set-whole-section-quiet [ ! -s "$T/err" ]
printf '{ "render": { "mode": "shaded", "colormap": "ocean" } }\n' > "$T/s.json"
"$RR" "$T/s.json" --validate 2> "$T/err"
check mode-file-key-refused grep -q ': render.colormap: not used by the shaded render mode (a key of colormap); .* got "ocean"$' "$T/err"
finish

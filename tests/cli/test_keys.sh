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
# the kind's own keys, and --hash without an output, warn of nothing
"$RR" "$T/o.json" -o "$T/b.mp4" -q 2> "$T/err"
check warn-none-for-video [ ! -s "$T/err" -a -s "$T/b.mp4" ]
"$RR" "$T/o.json" --hash > /dev/null 2> "$T/err"
check warn-none-without-output [ ! -s "$T/err" ]
# a render key of another mode is refused, a file's under -s render.mode too
printf '{ "render": { "mode": "colormap", "colormap": "ocean" } }\n' > "$T/c.json"
"$RR" "$T/c.json" -s render.mode=shaded --validate 2> "$T/err"; rc=$?
check mode-set-refuses-file-key [ "$rc" -eq 2 ]
check mode-set-names-key grep -q "^ripplerender: $T/c.json:1:35: render.colormap: not used by the shaded render mode (a key of colormap); shaded takes render.height_scale, .* besides the keys of every mode, got \"ocean\" (--set render.mode keeps the section's other keys; to start it afresh, give it whole: --set 'render={\"mode\": \"shaded\"}')$" "$T/err"
# the way the message gives works, and a file's own mistake gets no such hint
"$RR" "$T/c.json" -s 'render={"mode": "shaded"}' --validate > /dev/null 2> "$T/err"; rc=$?
check mode-set-whole-section [ "$rc" -eq 0 ]
check mode-set-whole-section-quiet [ ! -s "$T/err" ]
printf '{ "render": { "mode": "shaded", "colormap": "ocean" } }\n' > "$T/s.json"
"$RR" "$T/s.json" --validate 2> "$T/err"
check mode-file-key-no-hint grep -q 'got "ocean"$' "$T/err"
finish

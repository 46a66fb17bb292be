# --preset: the scenes built into the program (scenes/presets/*.json, embedded
# by tools/embed-presets.sh). Each renders and prints a scene that loads back
# to the same frames; a file's keys override the preset's and --set the
# file's; errors name the file's line, the preset's, or the nearest name;
# --preset list, the completion, docs/presets.md and the README gallery agree
# with the files.
. tests/cli/lib.sh
# verdict NAME STATUS: a check of a compound condition run just before
verdict() { if [ "$2" -eq 0 ]; then ok "$1"; else fail "$1" "status $2"; fi; }
repo=$PWD
files=$(for f in scenes/presets/*.json; do basename "$f" .json; done | LC_ALL=C sort | tr '\n' ' ')

# --preset list: a name and a line for every file, nothing else
"$RR" --preset list > "$T/list" 2> "$T/list.err"; rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$T/list.err" ]; verdict list-exit-0 $?
check list-names-the-files [ "$(cut -d' ' -f1 "$T/list" | tr '\n' ' ')" = "$files" ]
check list-at-least-5 [ "$(wc -l < "$T/list")" -ge 5 ]
check list-each-has-a-line [ -z "$(awk 'NF < 4' "$T/list")" ]

# the completion offers exactly the files' names (and list)
got=$(bash -c '. "$1"; COMP_WORDS=(ripplerender --preset ""); COMP_CWORD=2; _ripplerender
               printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | tr "\n" " "' _ "$repo/completions/ripplerender.bash")
want=$(printf '%s\n' $files list | LC_ALL=C sort | tr '\n' ' ')
if [ "$got" = "$want" ]; then ok completion-offers-the-presets
else fail completion-offers-the-presets "got [$got], want [$want]"; fi

# every preset: renders (a few frames), its --print-scene loads back to the
# same scene and the same frames, it is in docs/presets.md and the README
# with a still, and needs no file (run from an empty folder)
mkdir -p "$T/empty"
for p in $files; do
    (cd "$T/empty" && "$RR" --preset "$p" -f 3 --hash -j2) > "$T/$p.hash" 2> "$T/$p.err"; rc=$?
    [ "$rc" -eq 0 ] && [ "$(wc -l < "$T/$p.hash")" -eq 3 ] && [ ! -s "$T/$p.err" ]; verdict "$p-renders" $?
    "$RR" --preset "$p" --print-scene > "$T/$p.json"
    "$RR" "$T/$p.json" --print-scene > "$T/$p.again.json"
    [ -s "$T/$p.json" ] && cmp -s "$T/$p.json" "$T/$p.again.json"; verdict "$p-print-scene-round-trips" $?
    "$RR" "$T/$p.json" -f 3 --hash -j2 > "$T/$p.hash2"
    check "$p-printed-scene-same-frames" cmp -s "$T/$p.hash" "$T/$p.hash2"
    check "$p-in-presets-md" grep -q "^| \`$p\` | .*img/preset-$p.png" docs/presets.md
    check "$p-in-readme" grep -q "docs/img/preset-$p.png" README.md
    check "$p-still" [ -s "docs/img/preset-$p.png" ]
done

# what overrides what: defaults < preset < file < --set, objects merged,
# arrays replaced, an object of another type replaced
printf '{\n  "render": { "depth": 20 },\n  "drops": [ { "x": 10, "y": 10 } ],\n  "solver": { "type": "wave" }\n}\n' \
    > "$T/over.json"
value() { /usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d.get(k)
print(json.dumps(d))' "$1"; }
check preset-value [ "$("$RR" --preset pool --print-scene | value render.depth)" = 45 ]
check file-over-preset [ "$("$RR" --preset pool "$T/over.json" --print-scene | value render.depth)" = 20 ]
check set-over-file [ "$("$RR" --preset pool "$T/over.json" -s render.depth=11 --print-scene | value render.depth)" = 11 ]
check object-merged [ "$("$RR" --preset pool "$T/over.json" --print-scene | value render.floor_color)" = "[110, 190, 215]" ]
check array-replaced [ "$("$RR" --preset pool "$T/over.json" --print-scene | value drops | tr -cd '{' | wc -c)" -eq 1 ]
check other-type-replaced [ "$("$RR" --preset pool "$T/over.json" --print-scene | value solver.half_life)" = null ]
# likewise a render object of another mode: the pool's caustics keys (and
# its height_scale) go, the mode's defaults come; -s render.mode replaces no
# object: the preset's caustics keys are then ignored, each with a warning
printf '{ "render": { "mode": "shaded" } }\n' > "$T/shaded.json"
"$RR" --preset pool "$T/shaded.json" --print-scene > "$T/shaded.out"
check other-mode-replaced [ "$(value render.depth < "$T/shaded.out") $(value render.floor_color < "$T/shaded.out") $(value render.height_scale < "$T/shaded.out")" = 'null null 1' ]
"$RR" --preset pool -s render.mode=shaded --validate > /dev/null 2> "$T/err"; rc=$?
[ "$rc" -eq 0 ] && grep -q '^ripplerender: warning: preset pool:[0-9]*:[0-9]*: render.depth (45) is not used by the shaded render mode that --set render.mode chose (a key of caustics): ignored$' "$T/err"; verdict set-mode-over-preset-warned $?
# an alternative of the preset's key (pond's solver.half_life) given by the
# file or --set replaces it: one damping, the user's
printf '{ "solver": { "damping": 0.98 } }\n' > "$T/damp.json"
check alternative-file-over-preset [ "$("$RR" --preset pond "$T/damp.json" --print-scene | value solver | tr -d ' ')" = '{"type":"elias","damping":0.98,"neighbors":4}' ]
check alternative-set-over-preset [ "$("$RR" --preset pond -s solver.damping=0.98 --print-scene | value solver | tr -d ' ')" = '{"type":"elias","damping":0.98,"neighbors":4}' ]
check alternative-wave-depth [ "$("$RR" --preset wake -s solver.depth=0.001 --print-scene | value solver.speed)" = null ]
# a file's object without "type" is of the preset's type: merged (wake
# keeps its wave solver and speed)
printf '{ "solver": { "half_life": 1 } }\n' > "$T/hl.json"
"$RR" --preset wake "$T/hl.json" --print-scene > "$T/hl.out"
check typeless-object-merged [ "$(value solver.type < "$T/hl.out") $(value solver.speed < "$T/hl.out") $(value solver.half_life < "$T/hl.out")" = '"wave" 0.1 1' ]
# ... but both in the file itself stay refused
printf '{ "solver": { "damping": 0.98, "half_life": 2 } }\n' > "$T/both.json"
"$RR" --preset pond "$T/both.json" 2> "$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q 'both.json:1:32: solver.half_life: give either solver.damping or solver.half_life, not both' "$T/err"; verdict alternatives-in-file-refused $?
check frames-over-preset [ "$("$RR" --preset pool -f 7 --print-scene | value time.frames)" = 7 ]

# an unknown preset: one line, exit 2, the nearest name
"$RR" --preset poool -o "$T/x.mp4" > "$T/out" 2> "$T/err"; rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && [ ! -e "$T/x.mp4" ]; verdict unknown-exit-2 $?
check unknown-did-you-mean grep -qx 'ripplerender: --preset poool: no such preset; did you mean "pool"? (the presets: .*)' "$T/err"
check unknown-one-line [ "$(wc -l < "$T/err")" -eq 1 ]

# errors: the file's line:col, the preset's line:col, a duplicate in the file
printf '{\n  "time": { "frames": 7 },\n  "render": { "depth": -3 }\n}\n' > "$T/bad.json"
"$RR" --preset pool "$T/bad.json" 2> "$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -qx "ripplerender: $T/bad.json:3:24: render.depth: expected a number in \[0, 1000000\], got -3" "$T/err"; verdict file-error-located $?
printf '{ "grid": { "width": 40, "height": 30 } }\n' > "$T/small.json"
"$RR" --preset pond "$T/small.json" 2> "$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q '^ripplerender: preset pond:[0-9]*:[0-9]*: drops.0: ' "$T/err"; verdict preset-error-located $?
printf '{ "solver": { "damping": 0.9, "damping": 0.8 } }\n' > "$T/dup.json"
"$RR" --preset pond "$T/dup.json" 2> "$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q 'dup.json:1:31: solver.damping: duplicate key "damping" (first at 1:15)' "$T/err"; verdict file-duplicate-refused $?
"$RR" --preset pool -s render.depht=3 2> "$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q 'did you mean "depth"' "$T/err"; verdict set-typo-over-preset $?
# no scene and no preset: the usage error says both
"$RR" 2> "$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q 'no scene file given (nor --preset NAME)' "$T/err"; verdict no-scene-no-preset $?
finish

# The scene schema (scenes/scene.schema.json, JSON Schema 2020-12) checked by a
# real validator, Debian's python3-jsonschema: every example scene and every
# --print-scene output is valid, unknown keys and bad values are not, and the
# schema's keys and defaults are the loader's.
. tests/cli/lib.sh
PY=/usr/bin/python3            # Debian's python, where python3-jsonschema lives
S=scenes/scene.schema.json
sc() { "$PY" tests/cli/schema_check.py "$@" > "$T/out" 2>&1 || { cat "$T/out"; return 1; }; }

if ! "$PY" -c 'from jsonschema import Draft202012Validator' 2> /dev/null; then
    fail schema-validator "no Draft 2020-12 validator: install python3-jsonschema (sh .ci/deps.sh test)"
    finish; exit
fi

# --- the schema itself, and every scene in scenes/ ---------------------------------------------
# (one validator run for many files: python's start is most of the time)
check schema-is-valid-2020-12 sc validate "$S"  # check_schema runs first; no files to validate
scenes=""; resolved=""
for f in scenes/*.json; do
    case "$f" in *.schema.json) continue ;; esac
    n=$(basename "$f" .json)
    check "scene-$n-names-schema" grep -q '"\$schema": "scene.schema.json"' "$f"
    "$RR" "$f" --print-scene > "$T/$n.resolved.json"
    scenes="$scenes $f"; resolved="$resolved $T/$n.resolved.json"
done
check every-scene-valid sc validate "$S" $scenes
check every-print-scene-valid sc validate "$S" $resolved

# --- keys and defaults agree with the loader's ---------------------------------------------------
echo '{}' | "$RR" - --print-scene > "$T/empty.json"
# listed KEY: the names the program's refusal of an unknown KEY lists (the
# solvers' or render modes' table), but the first, the default.
listed() {
    echo "{}" | "$RR" - -s "$1=none" --validate 2>&1 |
        sed -n 's/.* expected one of \(.*\), got "none"$/\1/p' | tr -d '",' | cut -d' ' -f2-
}
check tables-listed [ "$(listed solver.type | cut -d' ' -f1-4)$(listed render.mode | cut -d' ' -f1-5)" = \
    "flow spring wave spectralcolormap shaded refract normals caustics" ]
solvers=""   # each solver's keys: --print-scene writes only those of the scene's solver
for t in $(listed solver.type); do
    echo "{ \"solver\": { \"type\": \"$t\" } }" | "$RR" - --print-scene > "$T/$t.json"; solvers="$solvers $T/$t.json"
done
modes=""   # each render mode's keys: --print-scene writes only those of the scene's mode
for m in $(listed render.mode); do
    echo "{ \"render\": { \"mode\": \"$m\" } }" | "$RR" - --print-scene > "$T/$m.json"; modes="$modes $T/$m.json"
done
# absorb_width: written only for a scene with an absorb edge
echo '{ "boundary": "absorb" }' | "$RR" - --print-scene > "$T/absorb.json"
check defaults-agree sc defaults "$S" "$T/empty.json" $solvers $modes "$T/absorb.json"
check print-scene-solvers-valid sc validate "$S" $solvers
check print-scene-modes-valid sc validate "$S" $modes
check print-scene-empty-valid sc validate "$S" "$T/empty.json"

# colormap "gray", the alias of "grey": both accept it, and its resolved form
echo '{ "render": { "mode": "colormap", "colormap": "gray" } }' > "$T/gray.json"
"$RR" "$T/gray.json" --print-scene > "$T/gray.resolved.json"; check gray-loads [ $? -eq 0 ]
check gray-valid sc validate "$S" "$T/gray.json" "$T/gray.resolved.json"

# A scene that uses every list and every kind of element: its resolved form is valid too.
cat > "$T/full.json" <<JSON
{ "\$schema": "scene.schema.json",
  "grid": { "width": 40, "height": 30, "cell_size": 0.002 },
  "time": { "fps": 10, "frames": 3, "steps_per_frame": "auto" },
  "solver": { "type": "spring", "half_life": 2, "passes": 2 },
  "boundary": { "left": "absorb", "right": "clamp", "top": "wrap", "bottom": "wrap", "absorb_width": 4 },
  "drops": [ { "frame": 1, "x": 5, "y": 5, "shape": "point", "mode": "set" }, { "time": 0.1 } ],
  "rain": { "rate": 2, "radius": 2, "amplitude": [-1, 1], "seed": 3 },
  "oscillators": [ { "x": 3, "y": 4 }, { "from": [0, 0], "to": [0, 29], "start": 0.1, "end": 0.2 } ],
  "movers": [ { "path": [[0, 1, 1], [1, 30, 20]], "shape": "gaussian" } ],
  "initial": [ { "type": "wave", "wavelength": 8 }, { "type": "image", "path": "$PWD/scenes/harbour.png" } ],
  "probes": [ { "name": "a", "x": 1, "y": 2 }, { "x": 3, "y": 3 } ],
  "obstacles": [ { "type": "rect", "x": 1, "y": 1, "width": 2, "height": 2 },
                 { "type": "circle", "x": 9, "y": 9, "radius": 2 },
                 { "type": "polygon", "points": [[1, 1], [5, 1], [3, 4]] },
                 { "type": "line", "from": [0, 0], "to": [9, 9] },
                 { "type": "mask", "path": "$PWD/scenes/harbour.png", "invert": true } ],
  "render": { "mode": "colormap", "colormap": "ocean", "range": [-2, 2], "obstacle_color": "#102030" },
  "output": { "path": "x.webm", "codec": "libvpx-vp9", "crf": 30, "bit_depth": 8 } }
JSON
"$RR" "$T/full.json" --validate > /dev/null; check full-scene-loads [ $? -eq 0 ]
check full-scene-valid sc validate "$S" "$T/full.json"
"$RR" "$T/full.json" --print-scene > "$T/full.resolved.json"
check print-scene-full-valid sc validate "$S" "$T/full.resolved.json"

# --- what the schema refuses, the loader refuses too (exit 2) ---------------------------------
i=0; bads=""
while IFS= read -r bad; do
    case "$bad" in ''|'#'*) continue ;; esac
    i=$((i + 1)); printf '%s\n' "$bad" > "$T/bad$i.json"; bads="$bads $T/bad$i.json"
    "$RR" "$T/bad$i.json" --validate > /dev/null 2>&1; s=$?
    check "loader-refuses-$i" [ $s -eq 2 ]
done <<'JSON'
# unknown keys, at every level
{ "bogus": 1 }
{ "grid": { "widht": 64 } }
{ "solver": { "type": "elias", "dampnig": 0.9 } }
{ "drops": [ { "x": 1, "colour": 3 } ] }
{ "obstacles": [ { "type": "rect", "x": 1, "y": 1, "width": 2, "height": 2, "radius": 3 } ] }
{ "obstacles": [ { "type": "circle", "x": 1, "y": 1, "radius": 2, "points": [] } ] }
{ "initial": [ { "type": "wave", "path": "a.png" } ] }
{ "boundary": { "left": "clamp", "middle": "fixed" } }
{ "render": { "mode": "height", "gamma": 2 } }
{ "output": { "path": "a.mp4", "bitrate": 5 } }
{ "rain": { "rate": 1, "sead": 2 } }
# types and ranges
{ "solver": { "damping": 2 } }
{ "solver": { "damping": "high" } }
{ "solver": { "type": "euler" } }
{ "solver": { "neighbors": 6 } }
{ "grid": { "width": 2.5 } }
{ "grid": { "width": 0 } }
{ "time": { "steps_per_frame": "fast" } }
{ "time": { "fps": 0 } }
{ "boundary": "open" }
{ "drops": [ { "shape": "square" } ] }
{ "render": { "obstacle_color": "#12345" } }
{ "render": { "range": [1] } }
{ "output": { "bit_depth": 12 } }
{ "$schema": 3 }
# alternatives that exclude each other, and required keys
{ "solver": { "damping": 0.9, "half_life": 1 } }
# a key of another solver
{ "solver": { "type": "wave", "damping": 0.9 } }
{ "solver": { "type": "spectral", "damping_shift": 4 } }
{ "solver": { "blend": 0.5 } }
{ "solver": { "type": "flow", "speed_map": null } }
# a key of another render mode (the default mode is height)
{ "render": { "mode": "shaded", "colormap": "ocean" } }
{ "render": { "floor_color": [1, 2, 3] } }
{ "render": { "refraction": 2, "mode": "caustics" } }
{ "render": { "mode": "normals", "light": [0, 0, 1] } }
# a key of wave's other way to its speed
{ "solver": { "type": "wave", "speed_range": [0.1, 0.3] } }
{ "solver": { "type": "wave", "speed": 0.2, "speed_range": [0.1, 0.3], "speed_map": null } }
{ "drops": [ { "time": 1, "frame": 2 } ] }
{ "oscillators": [ { "x": 1, "from": [0, 0], "to": [1, 1] } ] }
{ "oscillators": [ { "from": [0, 0] } ] }
{ "obstacles": [ { "x": 1 } ] }
{ "obstacles": [ { "type": "circle", "x": 1, "y": 1 } ] }
{ "movers": [ { "radius": 2 } ] }
{ "absorb_width": 3, "boundary": { "absorb_width": 4 } }
JSON
check "schema-refuses-all-$i" sc invalid "$S" $bads

# --- the loader keeps "$schema" out of the resolved scene ----------------------------------------
echo '{ "$schema": "scene.schema.json" }' | "$RR" - --print-scene > "$T/s.json"
check loader-accepts-schema-key [ $? -eq 0 ]
check print-scene-drops-schema-key sh -c "! grep -q 'schema' '$T/s.json'"

finish

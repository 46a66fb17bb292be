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
finish

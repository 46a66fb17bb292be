# The bash completion (completions/ripplerender.bash): sourced in bash, the
# completion function called with COMP_WORDS / COMP_CWORD as bash would set
# them, and COMPREPLY inspected.
. tests/cli/lib.sh
repo=$PWD; comp="$repo/completions/ripplerender.bash"
mkdir -p "$T/w/shots" && cd "$T/w" || exit 1
touch a.mp4 b.webm c.json d.txt e.npy f.framemd5 run.json p.csv g.GIF shots/s.json

# complete WORD...: the completions of the last word, sorted, on one line
complete_words() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ripplerender
             for w in "${COMPREPLY[@]}"; do echo "$w"; done | LC_ALL=C sort | tr "\n" " "' _ "$comp" "$@"
}
# is NAME EXPECTED WORD...: the completions of WORD... are exactly EXPECTED
is() { name=$1 want=$2; shift 2; got=$(complete_words "$@")
       if [ "$got" = "$want" ]; then ok "$name"; else fail "$name" "got [$got], want [$want]"; fi; }

bash -c ". '$comp'; complete -p ripplerender" > "$T/reg" 2>&1
check registers-for-ripplerender grep -q -- '-F _ripplerender ripplerender' "$T/reg"
is long-options '--preset --print-scene --probes --progress ' ripplerender --pr
is short-and-long-o '-o ' ripplerender c.json -o
is scene-json-files '- c.json run.json shots/ ' ripplerender ''
is scene-in-folder 'shots/s.json ' ripplerender shots/
is output-kinds-only 'a.mp4 b.webm e.npy f.framemd5 g.GIF shots/ ' ripplerender c.json -o ''
is output-long-equals 'a.mp4 ' ripplerender c.json --output = a
is progress-values 'always auto never ' ripplerender c.json --progress ''
is progress-prefix 'always auto ' ripplerender c.json --progress=a
is check-hash-files 'd.txt f.framemd5 shots/ ' ripplerender c.json --check ''
is manifest-json 'c.json run.json shots/ ' ripplerender c.json --manifest ''
is probes-csv 'p.csv shots/ ' ripplerender c.json --probes ''
is state-options '--save-state --set --state-every ' ripplerender c.json --s
is load-state-json 'c.json run.json shots/ ' ripplerender c.json --load-state ''
is set-keys 'solver.damping= solver.damping_shift= solver.decay= solver.density= solver.depth= solver.depth_map= solver.depth_range= ' ripplerender c.json -s solver.d
is frames-no-files '' ripplerender c.json -f ''
touch part.mkv
is join-command 'join ' ripplerender jo
is join-inputs 'a.mp4 b.webm c.json part.mkv run.json shots/ ' ripplerender join ''
is join-output 'a.mp4 b.webm c.json part.mkv run.json shots/ ' ripplerender join part.mkv -o ''
is join-options '--help --output --overwrite -h -o -y ' ripplerender join part.mkv -

# every --set key the completion offers is a key of the scene schema
cd "$repo" || exit 1
bash -c '. completions/ripplerender.bash; COMP_WORDS=(ripplerender x.json -s ""); COMP_CWORD=3; _ripplerender
         printf "%s\n" "${COMPREPLY[@]}"' > "$T/keys"
check set-keys-offered [ "$(wc -l < "$T/keys")" -ge 20 ]
check set-keys-in-schema /usr/bin/python3 -c '
import json, sys
schema = json.load(open("scenes/scene.schema.json"))
bad = []
for key in open(sys.argv[1]).read().split():
    node = schema
    for part in key.rstrip("=.").split("."):
        node = node.get("properties", {}).get(part)
        if node is None:
            bad.append(key)
            break
print("not in the schema:", bad) if bad else None
sys.exit(1 if bad else 0)' "$T/keys"
# ... and every key of the schema is offered: each of an object section's
# (grid, time, solver, render, output: "section.key="), each other top-level
# key ("boundary=", or "drops." for a list whose elements follow)
check schema-keys-offered /usr/bin/python3 -c '
import json, sys
schema = json.load(open("scenes/scene.schema.json"))
offered = set(open(sys.argv[1]).read().split())
want = set()
for name, node in schema["properties"].items():
    if name.startswith("$"):
        continue
    if node.get("type") == "object" and "properties" in node:
        want |= {name + "." + k + "=" for k in node["properties"]}
    elif node.get("type") == "array" or "rain" == name:
        want.add(name + ".")
    else:
        want.add(name + "=")
missing = sorted(want - offered)
print("not offered:", " ".join(missing)) if missing else None
sys.exit(1 if missing else 0)' "$T/keys"

finish

# The README as a new user reads it: its tour scene saved as scene.json at the
# top of a clone, and every ```sh block but `make demo` run as written (each in
# a folder of its own holding that scene, with ripplerender on the PATH), the
# outputs they name checked. The scene's 120 frames are cut to 40 to keep it
# short (the contact sheet takes the frame at 1.2 s: 36).
. tests/cli/lib.sh
repo=$PWD
mkdir -p "$T/bin"
ln -s "$(realpath "$RR")" "$T/bin/ripplerender"
awk '/^## A short tour/ { tour = 1 } tour && /^```json$/ { on = 1; next } on && /^```/ { exit } on' README.md \
    | sed 's/"frames": 120,/"frames": 40,/' > "$T/scene.json"
check tour-scene-found grep -q '"frames": 40,' "$T/scene.json"
awk '/^```sh$/ { n++; on = 1; next } /^```/ { on = 0 } on { print > (dir "/block" n ".sh") }' dir="$T" README.md
check blocks-found [ -f "$T/block5.sh" ]
# a clone's top folder: the scene, and the folders it and the blocks name
setup() {
    mkdir -p "$1"
    cp "$T/scene.json" "$1/scene.json"
    ln -s "$repo/scenes" "$1/scenes"
    ln -s "$repo/tools" "$1/tools"
}
for b in "$T"/block*.sh; do
    n=$(basename "$b" .sh)
    grep -q '^make ' "$b" && continue        # make demo / make test: the whole of the test suite
    setup "$T/$n"
    (cd "$T/$n" && PATH="$T/bin:$PATH" sh -e "$b") > "$T/$n.out" 2>&1; s=$?
    [ $s -eq 0 ] || { echo "README $n:"; cat "$b" "$T/$n.out"; }
    check "readme-$n-exit-0" [ $s -eq 0 ]
done
(cd "$T/block1" && PATH="$T/bin:$PATH" ripplerender scene.json --validate) > "$T/v.out" 2>&1
check readme-validate grep -q '^scene.json: valid (320x240 cells, 40 frames' "$T/v.out"
# the block of output kinds wrote what its comments say
k=$T/block3
for f in ripple.mp4 ripple.webm ripple.gif frames/f00039.png heights.npy maps/h_0039.exr golden.framemd5 out.mp4; do
    check "readme-kinds-$f" [ -s "$k/$f" ]
done
check readme-kinds-check-matches grep -q 'golden.framemd5: 40 frames match' "$k.out"
check readme-kinds-npy-shape grep -qs "'shape': (40, 240, 320)" "$k/heights.npy"
for d in 0.98 0.99 0.995; do check "readme-loop-$d" [ -s "$T/block4/out/d$d.mp4" ]; done
check readme-contact-sheet [ -s "$T/block5/out/sheet.png" ]
finish

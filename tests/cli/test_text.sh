# Text in and out: what ripplerender writes as JSON (--print-scene, --manifest)
# it reads back, so bytes that are not UTF-8 are refused with one line; the
# probe CSV quotes names as RFC 4180 says; \u0000 in a scene string is refused;
# a long message keeps its reason; libraries' own log lines never reach stderr.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

cat > "$T/small.json" <<'EOF2'
{ "grid": { "width": 32, "height": 24 },
  "time": { "fps": 10, "frames": 3 },
  "drops": [ { "x": 10, "y": 10, "radius": 3, "amplitude": -1 } ],
  "probes": [ { "name": "p", "x": 5, "y": 5 } ] }
EOF2
one_line() { [ "$(wc -l < "$1")" -eq 1 ]; }
# refused NAME STATUS MESSAGE ARGS...: fails with STATUS and one line holding MESSAGE.
refused() {
    name=$1 want=$2 msg=$3; shift 3
    "$RR" "$@" -q > "$T/out" 2> "$T/err"; s=$?
    if [ "$s" -eq "$want" ] && grep -qF -- "$msg" "$T/err" && one_line "$T/err"; then ok "$name"
    else fail "$name" "status $s (want $want), message: $(cat "$T/err")"; fi
}
utf8() { iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1; }

# --- 9: no JSON output that is not UTF-8 -----------------------------------------------------
FF=$(printf '\377')
refused set-not-utf8 2 '--set probes.0.name=b\xffc: not valid UTF-8' "$T/small.json" -s "probes.0.name=b${FF}c" --print-scene
refused set-not-utf8-key 2 'not valid UTF-8' "$T/small.json" -s "probes.0.n${FF}=1" --print-scene
# A valid UTF-8 name prints and reads back.
"$RR" "$T/small.json" -s 'probes.0.name=bé' --print-scene > "$T/p.json" 2> "$T/err" \
    && "$RR" "$T/p.json" --print-scene > "$T/p2.json" 2>> "$T/err" && cmp -s "$T/p.json" "$T/p2.json"
check set-utf8-round-trip [ $? -eq 0 ]
# A scene in a Latin-1 folder: a relative mask path resolves to a name that is not UTF-8.
L1="$T/caf$(printf '\351')"
mkdir -p "$L1"
ffmpeg -v error -f lavfi -i color=white:s=32x24 -frames:v 1 "$L1/mask.png"
sed 's|"probes"|"obstacles": [ { "type": "mask", "path": "mask.png" } ], "probes"|' "$T/small.json" > "$L1/s.json"
refused print-scene-latin1-folder 2 '--print-scene: obstacles.0.path "'"$T"'/caf\xe9/mask.png" is not valid UTF-8' "$L1/s.json" --print-scene
check print-scene-latin1-nothing-printed [ ! -s "$T/out" ]
mkdir -p "$T/m"
refused manifest-latin1-folder 2 '--manifest: obstacles.0.path' "$L1/s.json" --manifest "$T/m/run.json" -o "$T/m/out.npy"
rm -rf "$T/m"; mkdir -p "$T/m"
refused manifest-latin1-argument 2 '--manifest: argument 3 "'"$T"'/m/caf\xe9.csv" is not valid UTF-8' "$T/small.json" --probes "$T/m/caf$(printf '\351').csv" -o "$T/m/out.npy" --manifest "$T/m/run.json"
check manifest-latin1-nothing-written [ -z "$(ls -A "$T/m")" ]
# Without --print-scene or --manifest, the Latin-1 folder is fine.
"$RR" "$L1/s.json" -o "$L1/out.npy" -q 2> "$T/err"
check latin1-folder-renders [ $? -eq 0 -a -s "$L1/out.npy" ]
rm -rf "$T/m"; mkdir -p "$T/m"
"$RR" "$T/small.json" -s 'probes.0.name=bé' -o "$T/m/out.npy" --manifest "$T/m/run.json" -q 2> "$T/err"
check manifest-utf8 utf8 "$T/m/run.json"

# --- \u0000 would cut a C string short: refused, naming the key ----------------------------------
refused set-nul-in-string 2 '--set probes.0.name="a\u0000b": \u0000 (a NUL character) in a string would cut it short' "$T/small.json" -s 'probes.0.name="a\u0000b"' --print-scene
"$RR" "$T/small.json" -s 'probes.0.name=a\u0000b' --print-scene > "$T/p.json" 2> "$T/err"
check set-nul-not-json-is-literal grep -qF '"a\\u0000b"' "$T/p.json"

# --- a long message keeps its reason: the quoted value gives way -------------------------------
LONG=$(printf '%01200d' 0 | tr 0 e)
E200=$(printf '%0200d' 0 | tr 0 e)
refused long-path-keeps-reason 2 'x/s.json: cannot read: No such file or directory' "$T/$E200/$E200/$E200/$E200/$E200/$E200/x/s.json"
check long-path-keeps-start grep -qF "ripplerender: $T/eee" "$T/err"
check long-path-cut-in-middle grep -qF 'e ... e' "$T/err"
refused long-set-keeps-reason 2 '" (known keys: "type", "damping"' "$T/small.json" -s "solver.$LONG=1"
refused long-set-path-keeps-reason 2 ': expected KEY=VALUE (see ripplerender --help)' "$T/small.json" -s "solver.$LONG"
check long-message-bounded [ "$(wc -c < "$T/err")" -le 1040 ]
refused usage-newline-one-line 2 '--set a\nb: expected KEY=VALUE' "$T/small.json" -s "$(printf 'a\nb')"

# --- 10: the probe CSV quotes names as RFC 4180 says --------------------------------------------
"$RR" "$T/small.json" -s 'probes.0.name=a,b' -s 'probes.1={"name":"q\"x","x":1,"y":1}' \
    -s 'probes.2={"name":"l\nm","x":2,"y":2}' -s 'probes.3={"name":"plain","x":3,"y":3}' \
    -o "$T/c.npy" --probes "$T/c.csv" -q 2> "$T/err"
check csv-quoted-names python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["frame", "time", "a,b", "q\"x", "l\nm", "plain"], rows[0]
assert len(rows) == 4 and all(len(r) == 6 for r in rows), rows
' "$T/c.csv"
check csv-plain-names-unquoted grep -q '^frame,time,"a,b","q""x","l$' "$T/c.csv"

# --- 13: libraries' own log lines never reach stderr; their reason is in our one line -------------
# (an unknown x264 preset is refused before the encoder opens, naming the key; no x264 line follows)
refused liblog-x264-preset 2 '--set output.preset: "warp" is not a libx264 preset' "$T/small.json" -o "$T/l.mp4" -s output.preset=warp
refused liblog-svtav1-error 2 'Svt[error]: Instance 1: Source Width must be at least 64' "$T/small.json" -o "$T/l.mkv" -s output.codec=libsvtav1
"$RR" "$T/small.json" -s 'grid={"width":128,"height":96}' -s 'probes=[]' -o "$T/l2.mkv" -s output.codec=libsvtav1 -y -q 2> "$T/err"
check liblog-svtav1-silent [ $? -eq 0 -a ! -s "$T/err" -a -s "$T/l2.mkv" ]

finish

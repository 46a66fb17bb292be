# Robustness from the command line: bad --set values, the public PNG suites
# through the loaders, atomic outputs of every kind under a file-size limit,
# special files, SIGINT/SIGTERM (once and twice), blow-ups and memory limits.
# Each failure must be one line with its exit status and leave nothing under
# the target name and no temporary file beside it.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

small_scene "$T/small.json"
# the same without its render keys, for .npy runs (a .npy warns of them: one
# line more beside each failure's)
sed '/"render"/d; s/"amplitude": -1 } \],$/"amplitude": -1 } ] }/' "$T/small.json" > "$T/bare.json"
PNG_DATA=$PWD/tests/data/png   # PngSuite and libpng's crashers (tests/data/README.md); absolute: scene paths are relative to the scene
probe() { ffprobe -v error -select_streams v:0 -count_frames -show_entries "$2" -of default=nw=1:nk=1 "$1" 2>/dev/null | head -n 1; }
one_line() { [ "$(wc -l < "$1")" -eq 1 ]; }
no_temps() { [ -z "$(find "$1" -name '.*.tmp' 2>/dev/null)" ]; }
# cond NAME 'EXPR': a check whose condition is a shell expression (&& allowed).

# refuse NAME STATUS MESSAGE ARGS...: the run fails with STATUS, one line
# containing MESSAGE, and writes nothing (the output is $T/r/out.mp4).
refuse() {
    name=$1 want=$2 msg=$3; shift 3
    rm -rf "$T/r"; mkdir -p "$T/r"
    "$RR" "$@" -q 2> "$T/err" > /dev/null; s=$?
    if [ "$s" -eq "$want" ] && grep -qF -- "$msg" "$T/err" && one_line "$T/err" \
        && [ -z "$(ls -A "$T/r")" ]; then ok "$name"
    else fail "$name" "status $s (want $want), files: $(ls -A "$T/r"), message: $(cat "$T/err")"; fi
}

# --- bad --set values: same contract as tests/bad ---------------------------------------------
O="-o $T/r/out.mp4"
refuse set-no-equals 2 "--set solver.damping: expected KEY=VALUE" "$T/small.json" -s solver.damping $O
refuse set-empty-key 2 "--set" "$T/small.json" -s =3 $O
refuse set-unknown-key 2 "unknown key" "$T/small.json" -s solver.dampnig=0.9 $O
refuse set-wrong-type 2 "solver.damping" "$T/small.json" -s solver.damping=true $O
refuse set-index-past-end 2 "--set drops.5.x" "$T/small.json" -s drops.5.x=1 $O
refuse set-index-negative 2 "--set drops.-1.x" "$T/small.json" -s drops.-1.x=1 $O
refuse set-into-number 2 "--set grid.width.x" "$T/small.json" -s grid.width.x=1 $O
refuse set-bad-json-becomes-string 2 "grid.width" "$T/small.json" -s 'grid.width=[1,' $O
refuse set-huge-number 2 "got a number too large for a double" "$T/small.json" -s grid.width=1e999 $O
refuse set-newline-in-key 2 'unknown key "a\nb"' "$T/small.json" -s "$(printf 'a\nb=1')" $O
refuse set-frames-zero 2 "-f 0" "$T/small.json" -f 0 $O
refuse set-frames-huge 2 "-f 99999999999999999999" "$T/small.json" -f 99999999999999999999 $O
refuse set-threads-huge 2 "-j 100000" "$T/small.json" -j 100000 $O
refuse bad-path-scene-missing 2 "cannot read" "$T/nope/scene.json" $O
refuse bad-path-scene-directory 2 "$T" "$T" $O
refuse bad-path-output-parent-is-file 1 "small.json is not a directory" "$T/small.json" -o "$T/small.json/dir/out.mp4"
refuse bad-path-output-is-dir 2 "" "$T/small.json" -o "$T/r/"
refuse bad-path-output-kind 2 "unknown output kind" "$T/small.json" -o "$T/r/out.xyz"

# --- the public suites through the loaders ------------------------------------------------------
# Every PngSuite image loads as a mask and as an initial height image; every
# crasher is read or refused with one line naming it, never a crash.
if [ -d "$PNG_DATA/pngsuite" ]; then
    n=0 bad=""
    for p in "$PNG_DATA"/pngsuite/*.png; do
        for key in 'obstacles=[{"type":"mask","path":"'"$p"'"}]' 'initial=[{"type":"image","path":"'"$p"'"}]'; do
            "$RR" "$T/small.json" -s "$key" --validate -q > /dev/null 2> "$T/err" || bad="$bad $(basename "$p")"
        done
        n=$((n + 1))
    done
    cond pngsuite-all-load-as-mask-and-initial '[ -z "$bad" ] && [ "$n" -ge 60 ]'
    n=0 bad=""
    for p in "$PNG_DATA"/crashers/*.png; do
        "$RR" "$T/small.json" -s 'obstacles=[{"type":"mask","path":"'"$p"'"}]' --validate -q > /dev/null 2> "$T/err"
        s=$?
        if [ $s -eq 0 ] || { [ $s -eq 2 ] && one_line "$T/err" && grep -qF "$(basename "$p")" "$T/err"; }; then :
        else bad="$bad $(basename "$p"):$s"; fi
        n=$((n + 1))
    done
    cond crashers-clean-verdict '[ -z "$bad" ] && [ "$n" -ge 20 ]'
else
    fail png-data "no $PNG_DATA: run the tests from the repository root"
fi

# --- atomic outputs under a file-size limit: one line, exit 1, nothing left ---------------------------
# 1 KiB (ulimit -f 1): every kind of output passes it within 40 frames.
mkdir -p "$T/full"
for out in a.mp4 a.mkv a.webm a.mov 'seq%03d.png' a.framemd5 a.framehash a.npy; do
    rm -rf "$T/full"; mkdir -p "$T/full"
    (ulimit -f 1; sc=$T/small.json; case $out in *.npy) sc=$T/bare.json ;; esac; exec "$RR" "$sc" -f 40 -o "$T/full/$out" -q) 2> "$T/err"; s=$?
    if [ $s -eq 1 ] && one_line "$T/err" && grep -q 'File too large' "$T/err" && [ -z "$(ls -A "$T/full")" ]
    then ok "fsize-limit-$out"; else fail "fsize-limit-$out" "status $s, files: $(ls -A "$T/full"), $(cat "$T/err")"; fi
done
rm -rf "$T/full"; mkdir -p "$T/full"
(ulimit -f 1; exec "$RR" "$T/small.json" -f 400 --hash --manifest "$T/full/m.json" -q > /dev/null) 2> "$T/err"; s=$?
check fsize-limit-manifest sh -c "[ $s -eq 1 ] && [ -z \"\$(ls -A '$T/full')\" ] && [ \$(wc -l < '$T/err') -eq 1 ]"
(ulimit -f 1; exec "$RR" "$T/small.json" -f 400 -s 'probes=[{"name":"c","x":2,"y":2}]' --hash \
    --probes "$T/full/p.csv" -q > /dev/null) 2> "$T/err"; s=$?
check fsize-limit-probes sh -c "[ $s -eq 1 ] && [ -z \"\$(ls -A '$T/full')\" ] && [ \$(wc -l < '$T/err') -eq 1 ]"
"$RR" "$T/small.json" --hash -q > /dev/full 2> "$T/err"; s=$?
check stdout-full-exit-1 [ $s -eq 1 ]
check stdout-full-one-line grep -q 'standard output: write failed' "$T/err"

# --- special files are never replaced; existing outputs are untouched without -y ---------------------
ln -s /dev/full "$T/full.npy"
"$RR" "$T/small.json" -o "$T/full.npy" -y -q 2> "$T/err"; s=$?
cond dev-full-refused '[ $s -eq 1 ] && [ -c /dev/full ] && [ -L "$T/full.npy" ] && grep -q "not a regular file" "$T/err"'
mkfifo "$T/fifo.npy"
"$RR" "$T/small.json" -o "$T/fifo.npy" -y -q 2> "$T/err"; s=$?
cond fifo-refused '[ $s -eq 1 ] && [ -p "$T/fifo.npy" ] && grep -q '\''not a regular file'\'' "$T/err"'
for out in a.mp4 a.framemd5 a.npy; do
    echo keep > "$T/$out"
    "$RR" "$T/small.json" -o "$T/$out" -q 2> "$T/err"; s=$?
    cond "no-overwrite-$out" '[ $s -eq 1 ] && [ "$(cat "$T/$out")" = keep ] && one_line "$T/err"'
done
rm -rf "$T/seq"; mkdir -p "$T/seq"; echo keep > "$T/seq/f007.png"
"$RR" "$T/small.json" -o "$T/seq/f%03d.png" -q 2> "$T/err"; s=$?
cond no-overwrite-pngseq '[ $s -eq 1 ] && [ "$(ls "$T/seq")" = f007.png ] && [ "$(cat "$T/seq/f007.png")" = keep ]'
check no-overwrite-pngseq-names-frame grep -q 'f007.png: already exists' "$T/err"

# --- signals ---------------------------------------------------------------------------------
# Runs long enough to be interrupted: 256x256, many frames ($RR itself in
# the background, not a shell function, so that $! is its pid).
LONG="-s grid.width=256 -s grid.height=256 -f 100000 -q"
rm -rf "$T/sig"; mkdir -p "$T/sig"
"$RR" "$T/small.json" $LONG -o "$T/sig/term.mkv" --hash > "$T/sig.hash" 2> "$T/err" & pid=$!
frames_done "$T/sig.hash" $pid 5; kill -TERM $pid; wait $pid; s=$?
check sigterm-exit-130 [ $s -eq 130 ]
check sigterm-says-so grep -q 'interrupted after [0-9]* of 100000 frames; .*term.mkv holds the frames so far' "$T/err"
n=$(probe "$T/sig/term.mkv" stream=nb_read_frames)
said=$(sed -n 's/.*interrupted after \([0-9]*\) of.*/\1/p' "$T/err")
cond sigterm-file-plays-every-frame '[ "${n:-0}" -gt 0 ] && [ "$n" = "$said" ]'
check sigterm-no-temp no_temps "$T/sig"

rm -rf "$T/sig"; mkdir -p "$T/sig"
rm -f "$T/sig.hash"
"$RR" "$T/small.json" $LONG -o "$T/sig/f%06d.png" --hash > "$T/sig.hash" 2> "$T/err" & pid=$!
frames_done "$T/sig.hash" $pid 5; kill -INT $pid; wait $pid; s=$?
said=$(sed -n 's/.*interrupted after \([0-9]*\) of.*/\1/p' "$T/err")
check sigint-pngseq-exit-130 [ $s -eq 130 ]
check sigint-pngseq-complete-set [ "$(ls "$T/sig" | grep -c '^f[0-9]*\.png$')" = "$said" ]
check sigint-pngseq-no-temp no_temps "$T/sig"

# A second signal stops at once, even inside a frame: the run is kept inside
# its frame loop by a full pipe on standard output (--hash), so that both
# signals arrive while it writes, whatever the machine's speed (Linux:
# /proc/PID/wchan says pipe_write or anon_pipe_write once it blocks).
for out in twice.mkv twice.npy 'twice%05d.png'; do
    rm -rf "$T/sig"; mkdir -p "$T/sig"; rm -f "$T/pipe"; mkfifo "$T/pipe"
    sleep 120 < "$T/pipe" & reader=$!
    head -c 65536 /dev/zero > "$T/pipe"    # the pipe is full before the run writes to it
    "$RR" "$T/small.json" -f 100000 --hash -q -o "$T/sig/$out" > "$T/pipe" 2> "$T/err" & pid=$!
    k=0; while [ $k -lt 600 ]; do
        case "$(cat /proc/$pid/wchan 2>/dev/null)" in *pipe_write*) break ;; esac
        sleep 0.1; k=$((k + 1))
    done
    # The second only once the first is no longer pending (its handler ran):
    # two sent before the run gets a core would be one.
    kill -INT $pid; k=0
    while grep -qE '^(ShdPnd|SigPnd):[[:space:]]*[0-9a-f]*[2367abef]$' /proc/$pid/status 2> /dev/null && [ $k -lt 600 ]; do
        sleep 0.1; k=$((k + 1))
    done
    kill -INT $pid; wait $pid; s=$?
    kill $reader 2>/dev/null; wait $reader 2>/dev/null
    check "second-sigint-exit-130-$out" [ $s -eq 130 ]
    check "second-sigint-says-so-$out" grep -q 'interrupted again: stopped at once' "$T/err"
    check "second-sigint-nothing-left-$out" [ -z "$(ls -A "$T/sig")" ]
done

# A second signal while other threads make temporary files: a PNG sequence
# of small frames at -j2, whose writer thread begins a frame's file every
# few hundred microseconds (both signals once it has begun one). The handler on the main thread removes the
# temporary files; none may be made after it looked (twelve runs, the two
# signals at random times: a race, so each run may catch it or not).
cat > "$T/many.json" <<'EOF'
{ "grid": { "width": 64, "height": 64 }, "time": { "fps": 30, "frames": 20000, "steps_per_frame": 1 },
  "drops": [ { "x": 20, "y": 20, "radius": 3, "amplitude": -1 } ] }
EOF
left=0 bad=0
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
    rm -rf "$T/sig"
    "$RR" "$T/many.json" -o "$T/sig/f%05d.png" -j2 -q 2> "$T/err" & pid=$!
    n=0; while no_temps "$T/sig" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
    sleep "0.$((k * 3))"; kill -INT $pid; kill -INT $pid; wait $pid; s=$?
    [ $s -eq 130 ] || bad=$((bad + 1))
    no_temps "$T/sig" || left=$((left + 1))
done
check second-sigint-threads-exit-130 [ $bad -eq 0 ]
check second-sigint-threads-no-temp-left [ $left -eq 0 ]

# --- blow-ups: caught in the frame they appear, nothing written ---------------------------------------
# Undamped water under heavy rain grows past the limit (|h| <= 1e6) at frame 5.
blow() { "$RR" "$T/small.json" -s solver.damping=1 -s 'rain={"rate":100,"amplitude":[2e5,2e5],"radius":[2,2]}' "$@"; }
rm -rf "$T/r"; mkdir -p "$T/r"
blow -f 100 -o "$T/r/blow.mkv" -q 2> "$T/err"; s=$?
check blowup-exit-1 [ $s -eq 1 ]
check blowup-names-frame-and-fix grep -q '^ripplerender: frame 5: the simulation blew up (height .* at cell [0-9]*,[0-9]*); lower' "$T/err"
check blowup-one-line one_line "$T/err"
check blowup-nothing-written [ -z "$(ls -A "$T/r")" ]
blow -f 100 --hash -q > "$T/h" 2> "$T/err"
cond blowup-no-frame-after '[ "$(wc -l < "$T/h")" -eq 5 ] && [ "$(tail -n 1 "$T/h" | cut -d'\'' '\'' -f1)" = 4 ]'
refuse blowup-at-frame-0 1 "frame 0: the simulation blew up (height inf" "$T/bare.json" -s drops.0.amplitude=1e300 \
    -o "$T/r/b.npy"

# --- memory limits: refused before allocating, naming the bytes ----------------------------------------
# -j 2: the encoder's frame threads, and so the bytes, follow the thread count.
# (The small scene's one drop counts 256 bytes: the sources; the two -s, 33 bytes of
# text, 72 bytes each as the file's: docs/scene.md.)
refuse limit-grid-default 2 "need about 23002748064 bytes, more than the limit of 4294967296 bytes" \
    "$T/small.json" -s grid.width=16384 -s grid.height=16384 $O -j 2
# 46341 x 46341 > 2^31 pixels: refused by the range before any product is formed.
refuse limit-render-2-31 2 "render.width: expected an integer in [1, 16384], got 46341" \
    "$T/small.json" -s render.width=46341 -s render.height=46341 $O
export RIPPLERENDER_MEM_LIMIT=1M
refuse limit-env-grid 2 "more than the limit of 1048576 bytes" "$T/small.json" -s grid.width=256 -s grid.height=256 $O
refuse limit-env-render 2 "with a 1000 x 1000 render need about" "$T/small.json" -s render.width=1000 -s render.height=1000 $O
export RIPPLERENDER_MEM_LIMIT=100K
refuse limit-env-image 2 "--set obstacles.0.path: $PWD/scenes/harbour.png: 200 x 150 pixels need 180000 bytes to decode, more than the limit of 102400 bytes" \
    "$T/bare.json" -s grid.width=8 -s grid.height=8 -s drops=[] -s "obstacles=[{\"type\":\"mask\",\"path\":\"$PWD/scenes/harbour.png\"}]" -o "$T/r/out.npy"
export RIPPLERENDER_MEM_LIMIT=lots
refuse limit-env-bad 2 "RIPPLERENDER_MEM_LIMIT=lots: expected a size in bytes" "$T/small.json" $O
export RIPPLERENDER_MEM_LIMIT=none
"$RR" "$T/small.json" -s grid.width=16384 -s grid.height=16384 -s time.frames=1 --print-scene > /dev/null
check limit-env-none-loads [ $? -eq 0 ]
unset RIPPLERENDER_MEM_LIMIT

# --- inputs that are FIFOs or devices -----------------------------------------------------------
# A FIFO given as --check's file: opened without waiting for its writer
# (open(2) would wait, restarted after the handler, so that no signal could
# end the run), then waited on in a way a stop signal cuts short: SIGTERM
# ends the wait with one line and status 130; a writer that comes later is
# read as before. --load-state reads only regular files (it reads what
# --save-state wrote): a FIFO or an endless device (/dev/zero, /dev/urandom)
# is refused at once, not waited on or read until memory runs out.
mkdir -p "$T/fifo"; mkfifo "$T/fifo/f.framemd5" "$T/fifo/s.json"
"$RR" "$T/small.json" --check "$T/fifo/f.framemd5" -q 2> "$T/err" & signal_when_polling $! TERM
cond check-fifo-no-writer-sigterm '[ $s -eq 130 ] && [ "$(cat "$T/err")" = "ripplerender: interrupted before the first frame (waiting for the writer of $T/fifo/f.framemd5); nothing written" ]'
# The scene itself from a FIFO or a pipe with no writer yet, or one that
# sent part of it and stalls: SIGTERM ends the wait the same way (one line,
# status 130; before, the default action ended the run with status 143 and
# no word).
mkfifo "$T/fifo/scene.json"
"$RR" "$T/fifo/scene.json" --hash -q > "$T/out" 2> "$T/err" & signal_when_polling $! TERM
cond scene-fifo-no-writer-sigterm '[ $s -eq 130 ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "ripplerender: interrupted before the first frame (waiting for the writer of $T/fifo/scene.json); nothing written" ]'
mkfifo "$T/fifo/stdin"
(printf '{ "grid": '; exec sleep 60) > "$T/fifo/stdin" & writer=$!
"$RR" - --hash -q < "$T/fifo/stdin" > "$T/out" 2> "$T/err" & signal_when_polling $! INT
kill $writer
cond scene-stdin-stalled-sigint '[ $s -eq 130 ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "ripplerender: interrupted before the first frame (waiting for the writer of <stdin>); nothing written" ]'
"$RR" "$T/small.json" -f 3 -o "$T/fifo/ref.framemd5" -q
(sleep 1; cat "$T/small.json" > "$T/fifo/scene.json") &
timeout -s KILL 20 "$RR" "$T/fifo/scene.json" -f 3 --check "$T/fifo/ref.framemd5" 2> "$T/err"; s=$?
wait
cond scene-fifo-late-writer '[ $s -eq 0 ] && grep -q "3 frames match" "$T/err"'
(sleep 1; cat "$T/fifo/ref.framemd5" > "$T/fifo/f.framemd5") &
timeout -s KILL 20 "$RR" "$T/small.json" -f 3 --check "$T/fifo/f.framemd5" 2> "$T/err"; s=$?
wait
cond check-fifo-late-writer '[ $s -eq 0 ] && grep -q "3 frames match" "$T/err"'
# A folder given as --check's file is a bad argument, as a missing file is
# (status 2, one line), not a failed read (status 1).
"$RR" "$T/small.json" --check "$T/fifo" -q 2> "$T/err"; s=$?
cond check-folder-usage '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: $T/fifo: cannot read: Is a directory" ]'
for in in "$T/fifo/s.json" /dev/zero /dev/urandom; do
    timeout -s KILL 20 "$RR" "$T/small.json" --load-state $in --hash -q > /dev/null 2> "$T/err"; s=$?
    cond "load-state-not-regular-$in" '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: --load-state $in: cannot read: not a regular file" ]'
done

finish

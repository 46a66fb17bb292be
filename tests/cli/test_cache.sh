# The tuner's cache (src/tunecache.h): a run remembers the way each tuner
# chose in $XDG_CACHE_HOME/ripplerender/tuner-CPU.txt and the next run on the
# same grid, pass and team starts from it without trials (its
# RIPPLERENDER_DEBUG=kernels lines say "from the tuner cache"); whichever way
# the file names, the frames are the same bits (golden hashes, heights in
# .npy); a missing, corrupt, oversized or unwritable cache (a file size
# limit included) is ignored (the run succeeds, the tuner times its ways); RIPPLERENDER_CACHE=0 leaves the
# file alone; no temporary is ever left beside it. A -j1 run never starts
# the thread pool and keeps its own choices (a team of 1).
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh
unset RIPPLERENDER_CACHE
export XDG_CACHE_HOME="$T/xdg"
D="$XDG_CACHE_HOME/ripplerender"

# 96x64 cells, 4 steps a frame, 30 frames: with fixed edges every frame's
# steps fuse into one pass (30 passes: the 4 ways' 24 trials fit). Drawn
# at 48x32, so the frames are taken one at a time: --hash of an unscaled row
# mode would take them in batches, fusing steps across frames into deeper
# passes than a frame's 4 (src/batch.c).
cp tests/data/tuner.json "$T/d.json"   # test_nolose.sh's cache checks run it too
lines() { grep -cE "$2" "$1"; }
# run NAME ARGS...: the scene hashed with the kernels' lines, into $T/NAME(.err).
run() { n=$1; shift; RIPPLERENDER_DEBUG=kernels "$RR" "$T/d.json" --hash -q "$@" > "$T/$n" 2> "$T/$n.err"; }
# only_file: the cache folder holds the one file, no temporary beside it.
only_file() { [ "$(ls -A "$D" | wc -l)" -eq 1 ] && ls "$D" | grep -qE '^tuner-[A-Za-z0-9._-]+\.txt$'; }

RIPPLERENDER_CACHE=0 "$RR" "$T/d.json" --hash -q -j 2 > "$T/plain"
check off-writes-nothing [ ! -e "$XDG_CACHE_HOME" ]
# Any value but 0 (off) and 1 or empty (on) is refused, as RIPPLERENDER_FFT's
# and RIPPLERENDER_MEM_LIMIT's are: "off" or "no" would leave the caches on.
for v in no off false 2; do
    RIPPLERENDER_CACHE=$v "$RR" "$T/d.json" --hash -q > "$T/v.out" 2> "$T/v.err"; s=$?
    cond "value-$v-refused" '[ $s -eq 2 ] && [ ! -s "$T/v.out" ] && [ ! -e "$XDG_CACHE_HOME" ] && [ "$(cat "$T/v.err")" = "ripplerender: RIPPLERENDER_CACHE=$v: expected 0 (the caches off) or 1 (on)" ]'
done
RIPPLERENDER_CACHE= "$RR" "$T/d.json" --hash -q -j 2 > "$T/v.out" 2> "$T/v.err"; s=$?
cond value-empty-on '[ $s -eq 0 ] && [ ! -s "$T/v.err" ] && ls "$D"/tuner-*.txt > /dev/null 2>&1'
rm -rf "$XDG_CACHE_HOME"

# First run: trials, then the choice is written.
run first -j 2
check first-same-frames cmp -s "$T/plain" "$T/first"
check first-trials [ "$(lines "$T/first.err" ' grid: fused pass of 4 steps: .* us a step ')" -eq 1 ]
check first-remembered [ "$(lines "$T/first.err" \
    "^ripplerender: kernels: tuner cache: $D/tuner-.*\.txt: remembered elias4-mul 96x64 pass4 2 [0-9]+ -> way [0-9]+$")" -eq 1 ]
check first-one-file only_file
F=$(ls "$D"/tuner-*.txt)
check file-header [ "$(head -n 1 "$F")" = "# ripplerender tuner cache 1: the kernels' fastest ways on this CPU (any may be deleted)" ]
check file-line grep -qE '^elias4-mul 96x64 pass4 2 (2|4) [0-3]$' "$F"
cp "$F" "$T/after-first"

# Second run: the choice read, no trials, nothing rewritten.
run second -j 2
check second-same-frames cmp -s "$T/plain" "$T/second"
check second-from-cache [ "$(lines "$T/second.err" \
    '^ripplerender: kernels: 96x64 grid: fused pass of 4 steps: (portable|avx512|avx2|avx512-careful|avx2-careful) (1row|3rows) from the tuner cache \(no trials\); 2 threads$')" -eq 1 ]
check second-no-trials [ "$(lines "$T/second.err" ' us a step ')" -eq 0 ]
check second-no-write [ "$(lines "$T/second.err" 'tuner cache: .*: (remembered|not written)')" -eq 0 ]
check second-file-unchanged cmp -s "$F" "$T/after-first"

# RIPPLERENDER_CACHE=0: no reading, no writing.
RIPPLERENDER_CACHE=0 run off -j 2
check off-line [ "$(lines "$T/off.err" '^ripplerender: kernels: tuner cache: off \(RIPPLERENDER_CACHE=0\)$')" -eq 1 ]
check off-trials [ "$(lines "$T/off.err" ' grid: fused pass of 4 steps: .* us a step ')" -eq 1 ]
check off-same-frames cmp -s "$T/plain" "$T/off"

# Every way the file may name gives the same frames, and is the way taken:
# the fused pass's ways (1row and 3rows of each kernel) and the plain
# step's (absorbing edges: no fusing), as heights in .npy.
ways=$(sed -n 's/^elias4-mul 96x64 pass4 2 \([0-9]*\) [0-9]*$/\1/p' "$F")
RIPPLERENDER_CACHE=0 "$RR" "$T/d.json" -o "$T/plain.npy" -y -q -j 2
RIPPLERENDER_CACHE=0 "$RR" "$T/d.json" -s boundary=absorb -o "$T/plain-absorb.npy" -y -q -j 2
RIPPLERENDER_CACHE=0 RIPPLERENDER_DEBUG=kernels "$RR" "$T/d.json" -s boundary=absorb --hash -q -j 2 2> "$T/absorb.err" > /dev/null
sways=$(sed -n 's/.* grid: step: .*(the others: \(.*\)); 2 threads.*/\1/p' "$T/absorb.err" | awk -F', ' '{ print NF + 1 }')
hdr=$(head -n 1 "$F")
# way W of N for KEY: the file names it, for a team of 1 (-j 1: a sink runs
# its frame loop beside the writer, on one thread at first) and of 2.
name_way() { printf '%s\nelias4-mul 96x64 %s 1 %d %d\nelias4-mul 96x64 %s 2 %d %d\n' "$hdr" "$1" "$2" "$3" "$1" "$2" "$3" > "$F"; }
for w in $(seq 0 $((ways - 1))); do
    name_way pass4 "$ways" "$w"
    RIPPLERENDER_DEBUG=kernels "$RR" "$T/d.json" -o "$T/w.npy" -y -q -j 1 2> "$T/w.err"
    check "pass-way-$w-same-heights" cmp -s "$T/plain.npy" "$T/w.npy"
    check "pass-way-$w-taken" [ "$(lines "$T/w.err" 'fused pass of 4 steps: .* from the tuner cache')" -eq 1 ]
    run w2 -j 2
    check "pass-way-$w-same-frames-j2" cmp -s "$T/plain" "$T/w2"
    check "pass-way-$w-taken-j2" [ "$(lines "$T/w2.err" 'fused pass of 4 steps: .* from the tuner cache')" -eq 1 ]
done
for w in $(seq 0 $((sways - 1))); do
    name_way step "$sways" "$w"
    RIPPLERENDER_DEBUG=kernels "$RR" "$T/d.json" -s boundary=absorb -o "$T/w.npy" -y -q -j 1 2> "$T/w.err"
    check "step-way-$w-same-heights" cmp -s "$T/plain-absorb.npy" "$T/w.npy"
    check "step-way-$w-taken" [ "$(lines "$T/w.err" ' grid: step: .* from the tuner cache \(no trials\)')" -eq 1 ]
done
cond ways-counted '[ "$ways" -ge 2 ] && [ "$sways" -ge 3 ]'

# Corrupt files: each ignored (the run succeeds with the same frames and
# times its ways), then replaced by a whole file with the new choice.
# corrupt NAME WHAT-THE-LINE-SAYS: runs on the file as it is now.
corrupt() {
    run "c-$1" -j 2; rc=$?
    check "corrupt-$1-runs" [ $rc -eq 0 ]
    check "corrupt-$1-same-frames" cmp -s "$T/plain" "$T/c-$1"
    check "corrupt-$1-said" [ "$(lines "$T/c-$1.err" "^ripplerender: kernels: tuner cache: $D/tuner-.*: $2")" -ge 1 ]
    check "corrupt-$1-trials" [ "$(lines "$T/c-$1.err" ' grid: fused pass of 4 steps: .* us a step ')" -eq 1 ]
    check "corrupt-$1-rewritten" grep -qE '^elias4-mul 96x64 pass4 2 (2|4) [0-3]$' "$F"
    check "corrupt-$1-header" [ "$(head -n 1 "$F")" = "$hdr" ]
    check "corrupt-$1-one-file" only_file
}
head -c 3000 /dev/urandom | tr -d '\000' > "$F"
corrupt random 'ignored: no header line'
printf 'elias4-mul 96x64 pass4 2 4 1\n' > "$F"
corrupt no-header 'ignored: no header line'
printf '%s\nelias4-mul 96x64 pass4 2 4 9\nelias4-mul 96x64 pass4 2 4\nelias4-mul 96x64 pass4 2 4 1 x\nelias4-mul 96x64 pass1 2 4 1\nelias4-mul -96x64 pass4 2 4 1\n' "$hdr" > "$F"
corrupt bad-lines '5 lines not understood, dropped$'
printf '%s\nelias4-mul 96x64 pass4 2 4 1\n\000\n' "$hdr" > "$F"
corrupt nul 'ignored: not text$'
printf '%s\nelias4-mul 96x64 pass4 2 4 1' "$hdr" > "$F"
corrupt cut-short '1 line not understood, dropped'
{ echo "$hdr"; for i in $(seq 600); do echo "elias4-mul $i""x64 step 2 6 1"; done; } > "$F"
corrupt too-many-lines 'ignored: more than 512 lines'
{ echo "$hdr"; head -c 70000 /dev/zero | tr '\0' '#'; echo; } > "$F"
corrupt too-large 'ignored: not a regular file of at most 64 KiB'
# Another tuner's ways: a line for a different count of ways is not this key.
printf '%s\nelias4-mul 96x64 pass4 2 17 1\n' "$hdr" > "$F"
run other-ways -j 2
check other-ways-trials [ "$(lines "$T/other-ways.err" ' grid: fused pass of 4 steps: .* us a step ')" -eq 1 ]
check other-ways-kept grep -qx 'elias4-mul 96x64 pass4 2 17 1' "$F"

# The file a folder: not read, not written; the run succeeds.
rm -f "$F"; mkdir "$F"
run dir -j 2; rc=$?
check dir-runs [ $rc -eq 0 ]
check dir-same-frames cmp -s "$T/plain" "$T/dir"
check dir-said-read [ "$(lines "$T/dir.err" 'tuner cache: .*: ignored: not a regular file')" -ge 1 ]
check dir-said-write [ "$(lines "$T/dir.err" 'tuner cache: .*: not written: Is a directory$')" -eq 1 ]
check dir-no-temporary [ "$(ls -A "$D" | wc -l)" -eq 1 ]
rmdir "$F"

# A named pipe in its place (no writer): opening it for reading would wait
# for one forever; it is not read (the run does not hang), and the file
# written replaces it.
rm -f "$F"; mkfifo "$F"
RIPPLERENDER_DEBUG=kernels timeout -s KILL 60 "$RR" "$T/d.json" --hash -q -j 2 > "$T/fifo" 2> "$T/fifo.err"; rc=$?
check fifo-runs [ $rc -eq 0 ]
check fifo-same-frames cmp -s "$T/plain" "$T/fifo"
check fifo-said-read [ "$(lines "$T/fifo.err" 'tuner cache: .*: ignored: not a regular file')" -ge 1 ]
cond fifo-replaced '[ -f "$F" ] && only_file'

# An unwritable folder (a file where the folder would be): the run succeeds,
# says why, leaves nothing.
: > "$T/notadir"
XDG_CACHE_HOME="$T/notadir/sub" run unwritable -j 2; rc=$?
check unwritable-runs [ $rc -eq 0 ]
check unwritable-same-frames cmp -s "$T/plain" "$T/unwritable"
check unwritable-said [ "$(lines "$T/unwritable.err" "tuner cache: $T/notadir/sub/ripplerender/tuner-.*: not written: Not a directory$")" -eq 1 ]
check unwritable-still-file [ -f "$T/notadir" ] && [ ! -s "$T/notadir" ]
# A file size limit (ulimit -f 0) the cache's write runs into: the run is
# not stopped by the SIGXFSZ it raises, nothing is left.
rm -rf "$D"
sh -c 'ulimit -f 0; RIPPLERENDER_DEBUG=kernels "$@" > /dev/null; echo "status $?" >&2' sh "$RR" "$T/d.json" --hash -q -j 2 \
    2>&1 | cat > "$T/fsize.err"
check fsize-runs grep -qx 'status 0' "$T/fsize.err"
check fsize-said grep -q 'tuner cache: .*: not written: File too large$' "$T/fsize.err"
check fsize-nothing-left [ -z "$(ls -A "$D")" ]
# A read-only folder, where permissions bind (not as root).
if [ "$(id -u)" != 0 ]; then
    mkdir -p "$T/ro/ripplerender"; chmod 555 "$T/ro/ripplerender"
    XDG_CACHE_HOME="$T/ro" run readonly -j 2; rc=$?
    check readonly-runs [ $rc -eq 0 ]
    check readonly-same-frames cmp -s "$T/plain" "$T/readonly"
    check readonly-said [ "$(lines "$T/readonly.err" 'not written: Permission denied$')" -eq 1 ]
    check readonly-empty [ -z "$(ls -A "$T/ro/ripplerender")" ]
    chmod 755 "$T/ro/ripplerender"
else
    echo "skip readonly: running as root, a mode 555 folder is writable"
fi

# XDG_CACHE_HOME relative (the spec says ignore it): $HOME/.cache; neither
# absolute: no cache.
XDG_CACHE_HOME=rel HOME="$T/h" run home -j 2
check home-file [ -f "$(ls "$T/h/.cache/ripplerender"/tuner-*.txt 2>/dev/null)" ]
check home-not-relative [ ! -e rel ]
XDG_CACHE_HOME= HOME= run nohome -j 2; rc=$?
check nohome-runs [ $rc -eq 0 ]
check nohome-said [ "$(lines "$T/nohome.err" 'tuner cache: off \(neither XDG_CACHE_HOME nor HOME is an absolute path\)$')" -eq 1 ]

# -j1: no pool started (-j2 starts it), its own key (a team of 1), same frames.
rm -rf "$D"
run j1 -j 1
run j2 -j 2
check j1-same-frames cmp -s "$T/plain" "$T/j1"
check j1-no-pool [ "$(lines "$T/j1.err" 'kernels: pool: started')" -eq 0 ]
check j2-pool [ "$(lines "$T/j2.err" '^ripplerender: kernels: pool: started, 1 worker beside the caller$')" -eq 1 ]
F=$(ls "$D"/tuner-*.txt)
check j1-own-line grep -qE '^elias4-mul 96x64 pass4 1 (2|4) [0-3]$' "$F"
check j2-own-line grep -qE '^elias4-mul 96x64 pass4 2 (2|4) [0-3]$' "$F"
run j1-again -j 1
check j1-from-cache [ "$(lines "$T/j1-again.err" 'fused pass of 4 steps: .* from the tuner cache \(no trials\); 1 thread$')" -eq 1 ]

# Golden scenes: the first run fills the cache, the second reads it; both
# match the golden hashes. (shaded's 40 frames go in batches of fused
# passes too few to finish the trials, so it is only checked to match.)
rm -rf "$D"
"$RR" scenes/shaded.json --check tests/golden/shaded.framemd5 -q > /dev/null 2>&1
check golden-shaded-batched [ $? -eq 0 ]
for s in boundaries double-slit rain; do
    "$RR" "scenes/$s.json" --check "tests/golden/$s.framemd5" -q > /dev/null 2>&1
    check "golden-$s-filling" [ $? -eq 0 ]
    RIPPLERENDER_DEBUG=kernels "$RR" "scenes/$s.json" --check "tests/golden/$s.framemd5" -q > /dev/null 2> "$T/g.err"
    check "golden-$s-from-cache" [ $? -eq 0 ]
    check "golden-$s-read" [ "$(lines "$T/g.err" 'from the tuner cache')" -ge 1 ]
done
check golden-one-file only_file

# A write killed before its rename (SIGKILL) leaves its temporary, named for
# the host and process: a later run removes it once the process is gone
# (tests/unit/test_cachefile.c: the other host's, the live writer's, the
# older form). A reaped child's pid stands for the killed writer's.
sh -c 'exit 0' & gone=$!; wait $gone
printf 'half' > "$F.tmp-$gone-$(uname -n)-AbC123"
run swept -j 1
check stale-temporary-removed only_file
# A user's copy beside it, NAME.backup (the older NAME.XXXXXX form of
# temporaries: six letters), however old, is not the run's to remove.
printf 'mine' > "$F.backup"
touch -d '30 days ago' "$F.backup"
run backup-kept -j 1
check backup-kept [ "$(cat "$F.backup")" = mine ]
finish

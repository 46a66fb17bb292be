# Never lose a file: attacks on the paths where a run could replace a file
# that is not its own, leave a half-written one or a temporary, or take a
# check it could not make for a pass (docs/output.md, docs/farm.md).
. tests/cli/lib.sh
TUNER_SCENE=$PWD/tests/data/tuner.json   # read after the cd below
cd "$T" || exit 1
small_scene s.json
# About 20 ms a frame at -j1: time for a shell to see some frames and stop
# the run before its end (frames_done, not a sleep).
cat > slow.json <<'EOF'
{ "grid": { "width": 640, "height": 480 },
  "time": { "fps": 10, "frames": 30, "steps_per_frame": 1000 },
  "drops": [ { "x": 40, "y": 40, "radius": 3, "amplitude": -1 } ],
  "render": { "mode": "colormap", "range": [-0.5, 0.5] } }
EOF
lines() { wc -l < "$1" | tr -d ' '; }
temps() { find . -name '.*.tmp' | grep -c .; }

# ---- --save-state DIR that cannot be listed --------------------------------
# The check for another render's record of an overlapping range reads DIR;
# one with mode -wx (writable, searchable, not readable) hid such records and
# the run went on over them. Root reads any folder: the run drops the two
# capabilities that let it (setpriv), so the mode applies as to a user.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null \
    && mkdir nols && chmod 0300 nols && ! setpriv --bounding-set=-dac_override,-dac_read_search ls nols > /dev/null 2>&1; then
    touch nols/resume-000000-000004.json   # another render's, frames 0 to 4
    setpriv --bounding-set=-dac_override,-dac_read_search "$RR" s.json -q -o nols.framemd5 --save-state nols 2> err; s=$?
    check "unlistable DIR: refused, status 1" [ $s -eq 1 ]
    cond "unlistable DIR: one line naming DIR and why" '[ "$(cat err)" = "ripplerender: --save-state nols: cannot list it (to find other renders'"'"' records there): Permission denied" ]'
    check "unlistable DIR: no output" [ ! -e nols.framemd5 ]
    cond "unlistable DIR: no checkpoint written there" '[ -z "$(find nols -name "state-*")" ]'
    chmod 0700 nols
else
    echo "skip unlistable DIR (needs root, setpriv and capabilities to drop)"
fi

# ---- an input under one of --save-state DIR's own names ----------------------
# The run writes DIR/state-K.json over what is there (with -y) and removes
# DIR/part-K.EXT as a stray segment: an input of such a name (the scene,
# --check's file) is refused before anything is written, and kept.
mkdir own_in && cp s.json own_in/state-000009.json
"$RR" s.json -q -o in.framemd5
cp in.framemd5 own_in/part-000000.framemd5
"$RR" own_in/state-000009.json -q -o x.npy --save-state own_in -y 2> err; s=$?
check "scene named as a checkpoint: refused, status 2" [ $s -eq 2 ]
cond "scene named as a checkpoint: one line" '[ "$(cat err)" = "ripplerender: own_in/state-000009.json: the scene names a file of --save-state own_in (its checkpoints, resume records and segments)" ]'
check "scene named as a checkpoint: kept" cmp -s s.json own_in/state-000009.json
"$RR" s.json -q --check own_in/part-000000.framemd5 -o x.framemd5 --save-state own_in 2> err; s=$?
check "--check named as a segment: refused, status 2" [ $s -eq 2 ]
cond "--check named as a segment: one line" '[ "$(cat err)" = "ripplerender: own_in/part-000000.framemd5: --check names a file of --save-state own_in (its checkpoints, resume records and segments)" ]'
check "--check named as a segment: kept" cmp -s in.framemd5 own_in/part-000000.framemd5
check "an input under DIR's names: nothing written" [ ! -e x.npy -a ! -e x.framemd5 -a ! -e own_in/state-000009.cur.npy ]
(cd own_in && "$RR" - -q -o ../x.npy --save-state . < state-000009.json 2> ../err); s=$?
cond "standard input named as a checkpoint: refused" '[ $s -eq 2 ] && grep -q "state-000009.json: the scene (standard input) names a file of --save-state ." err'

# ---- --resume and the files under the outputs' names ------------------------
# stopped DIR ARGS...: renders slow.json with --save-state DIR --state-every 5
# and stops it with SIGINT after 8 frames: the outputs hold the frames so far.
stopped() {
    d=$1; shift
    rm -f h
    "$RR" slow.json -q -j1 --hash --save-state "$d" --state-every 5 "$@" > h 2> /dev/null & pid=$!
    frames_done h $pid 8; kill -INT $pid; wait $pid; rc=$?
    check "$d: stopped (status 130)" [ $rc -eq 130 ]
}
resume() { d=$1; shift; "$RR" slow.json -q -j1 --save-state "$d" --state-every 5 --resume "$@"; }
"$RR" slow.json -q -j1 -o whole.framemd5 --manifest whole.json

# The partial output Ctrl-C left is the run's own: --resume replaces it
# without -y, and the result is the uninterrupted run's.
stopped own -o own.framemd5 --manifest own.json
cond "own: the partial output holds fewer frames" '[ "$(lines own.framemd5)" -lt "$(lines whole.framemd5)" ]'
resume own -o own.framemd5 --manifest own.json 2> err; s=$?
check "own: resumed without -y (status 0, silent)" [ $s -eq 0 -a ! -s err ]
check "own: the whole run's frames" cmp -s own.framemd5 whole.framemd5

# refused WHAT FILE: the --resume just run (status $s, its stderr in err)
# refused FILE, which is as it was (FILE.was).
refused() {
    check "$1: refused, status 1" [ $s -eq 1 ]
    cond "$1: one line naming it" "grep -q '^ripplerender: $2: already exists, and is not the file the interrupted render left there' err && [ \"\$(lines err)\" = 1 ]"
    check "$1: kept" cmp -s "$2" "$2.was"
}
# A file the user put there since is not: refused, naming it, kept.
stopped mine -o mine.framemd5 --manifest mine.json
echo "my notes" > mine.framemd5; cp mine.framemd5 mine.framemd5.was
resume mine -o mine.framemd5 --manifest mine.json 2> err; s=$?
refused "another file at -o" mine.framemd5
cond "another file at -o: the line" '[ "$(cat err)" = "ripplerender: mine.framemd5: already exists, and is not the file the interrupted render left there (mine/resume-000000-000029.json records its size and SHA-256): use -y to replace it" ]'
# Changed in place (same inode, same size): still not the run's.
stopped same -o same.framemd5
head -c "$(wc -c < same.framemd5)" /dev/zero > same.framemd5; cp same.framemd5 same.framemd5.was
resume same -o same.framemd5 2> err; s=$?
refused "a file of the same size at -o" same.framemd5
# -y replaces it, as without --resume.
resume mine -o mine.framemd5 --manifest mine.json -y 2> err; s=$?
check "another file at -o, -y: replaced" [ $s -eq 0 ]
check "another file at -o, -y: the whole run's frames" cmp -s mine.framemd5 whole.framemd5

# The manifest too.
stopped man -o man.framemd5 --manifest man.json
echo '{"mine": 1}' > man.json; cp man.json man.json.was
resume man -o man.framemd5 --manifest man.json 2> err; s=$?
refused "another file at --manifest" man.json
cond "another file at --manifest: the partial output kept too" '[ "$(lines man.framemd5)" -lt "$(lines whole.framemd5)" ]'

# Removed since: written anew, without -y.
stopped gone -o gone.framemd5
rm gone.framemd5
resume gone -o gone.framemd5 2> err; s=$?
check "partial output removed since: resumed" [ $s -eq 0 -a ! -s err ]
check "partial output removed since: the whole run's frames" cmp -s gone.framemd5 whole.framemd5

# A PNG sequence killed (SIGKILL): frames past the checkpoint are named by no
# record; one put there since is not the run's.
rm -f h
"$RR" slow.json -q -j1 --hash -o 'png/f%03d.png' --save-state pngst --state-every 5 > h & pid=$!
frames_done h $pid 8; kill -9 $pid; wait $pid 2> /dev/null
echo mine > png/f025.png
resume pngst -o 'png/f%03d.png' 2> err; s=$?
check "PNG: a file past the checkpoint: refused, status 1" [ $s -eq 1 ]
cond "PNG: a file past the checkpoint: one line naming it" 'grep -q "^ripplerender: png/f025.png: already exists, and is not a frame the interrupted render wrote" err && [ "$(lines err)" = 1 ]'
cond "PNG: a file past the checkpoint: kept" '[ "$(cat png/f025.png)" = mine ]'
rm png/f025.png
resume pngst -o 'png/f%03d.png' 2> err; s=$?
check "PNG: resumed once it is gone" [ $s -eq 0 -a ! -s err ]
cond "PNG: every frame" '[ "$(ls png | grep -c "^f0[0-9][0-9].png$")" = 30 ]'

# A damaged "left" entry is named.
stopped dmg -o dmg.framemd5
python3 - dmg/resume-000000-000029.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1])); r["left"][0]["size"] = -1; json.dump(r, open(sys.argv[1], "w"))
EOF
resume dmg -o dmg.framemd5 2> err; s=$?
check "damaged left: status 2" [ $s -eq 2 ]
cond "damaged left: named" '[ "$(cat err)" = "ripplerender: --resume: dmg/resume-000000-000029.json: left: not as ripplerender writes it" ]'

# A disk that fills at the first checkpoint (a 256 KiB tmpfs: the PNG
# frames fit, the checkpoint's heights do not): the run fails after moving
# frames 0 to 5 into place; its record stays and names them, so --resume
# (once there is room) replaces them without -y and completes the set.
mkdir full
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=256k tmpfs full 2> /dev/null; then
    trap 'umount "$T/full"; rm -rf "$T"' EXIT
    (cd full && "$RR" ../slow.json -q -j1 -o 'p/f%03d.png' --save-state st --state-every 5 2> ../err); s=$?
    check "disk full at a checkpoint: status 1" [ $s -eq 1 ]
    cond "disk full at a checkpoint: one line" '[ "$(cat err)" = "ripplerender: st/state-000005.cur.npy: write failed: No space left on device" ]'
    check "disk full at a checkpoint: the record kept" [ -e full/st/resume-000000-000029.json ]
    mount -o remount,size=16m full
    (cd full && "$RR" ../slow.json -q -j1 -o 'p/f%03d.png' --save-state st --state-every 5 --resume 2> ../err); s=$?
    check "disk full at a checkpoint: resumed without -y" [ $s -eq 0 -a ! -s err ]
    "$RR" slow.json -q -j1 -o 'fullw/f%03d.png'
    cond "disk full at a checkpoint: every frame the whole run's" '[ "$(cd fullw && for f in *; do cmp -s "$f" "../full/p/$f" && echo "$f"; done | wc -l)" = 30 ]'
    cond "disk full at a checkpoint: no temporary file left" '[ -z "$(find full -name ".*.tmp")" ]'
    umount full && trap 'rm -rf "$T"' EXIT
else
    echo "skip disk full at a checkpoint (needs root and a tmpfs mount)"
fi

# ---- the tuner's cache (src/cachefile.c) ------------------------------------
# The scene of tests/cli/test_cache.sh, whose tuner remembers a way.
cp "$TUNER_SCENE" d.json   # tests/data/tuner.json
"$RR" d.json --hash -q -j 2 > plain
export RIPPLERENDER_CACHE=1 XDG_CACHE_HOME="$T/c"
"$RR" d.json --hash -q -j 2 > /dev/null
F=$(ls c/ripplerender/tuner-*.txt)
# A symbolic link planted at the cache's name, to a user's file: the file
# is read (not a cache: ignored), never written through; the link is
# replaced by the cache.
echo "user data" > userfile
rm "$F" && ln -s "$T/userfile" "$F"
"$RR" d.json --hash -q -j 2 > h 2> err; s=$?
cond "cache a link to a user's file: the run succeeds, same frames" '[ $s -eq 0 ] && [ ! -s err ] && cmp -s plain h'
cond "cache a link to a user's file: the file kept" '[ "$(cat userfile)" = "user data" ]'
# Runs at once (a job array on one home): each succeeds with the same
# frames; one whole file is left, no temporary.
rm -rf c
for i in 1 2 3 4 5 6; do "$RR" d.json --hash -q -j 2 > "h$i" 2> "err$i" & done; wait
cond "cache written by 6 runs at once: same frames" '[ "$(for i in 1 2 3 4 5 6; do cmp -s plain h$i && ! [ -s err$i ] && echo ok; done | wc -l)" = 6 ]'
cond "cache written by 6 runs at once: one whole file" '[ "$(ls -A c/ripplerender)" = "$(basename "$F")" ] && head -n 1 "$F" | grep -q "^# ripplerender tuner cache"'
export RIPPLERENDER_CACHE=0

check "no temporary file left" [ "$(temps)" = 0 ]
finish

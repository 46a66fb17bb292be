# Never lose a file: signals (SIGPIPE, SIGHUP, SIGQUIT, SIGXCPU, SIGKILL),
# a failing standard output, paths that look like URLs, two outputs or an
# output and an input naming one file, links, -y's limits, the umask, long
# names, missing folders, and the paths a scene may name (docs/output.md).
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

small_scene "$T/small.json"
LONG="-s grid.width=256 -s grid.height=256 -f 100000 -q"
PROBE='probes=[{"name":"c","x":2,"y":2}]'
cond() { name=$1; shift; if eval "$1"; then ok "$name"; else fail "$name" "$1 [$(head -c 300 "$T/err" 2>/dev/null)]"; fi; }
one_line() { [ "$(wc -l < "$1")" -eq 1 ]; }
no_temps() { [ -z "$(find "$1" -name '.*.tmp' 2>/dev/null)" ]; }
frames_in() { ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames \
    -of default=nw=1:nk=1 "$1" 2>/dev/null | head -n 1; }
# writing PID DIR: waits (at most 10 s) until the run holds a file open in
# DIR (a temporary file, named or not), then a little longer.
writing() {
    k=0; while [ $k -lt 100 ]; do
        for f in /proc/$1/fd/*; do case "$(readlink "$f" 2>/dev/null)" in "$2"/*) sleep 0.3; return ;; esac; done
        sleep 0.1; k=$((k + 1))
    done
}

# --- 1. a reader that goes away (SIGPIPE) is an interruption -------------------------------------
mkdir -p "$T/p"
{ "$RR" "$T/small.json" $LONG --hash -o "$T/p/a.mp4" 2> "$T/err"; echo $? > "$T/status"; } | head -n 1 > /dev/null
s=$(cat "$T/status")
cond sigpipe-exit-130 '[ "$s" = 130 ]'
cond sigpipe-says-so 'grep -q "standard output was closed" "$T/err" && one_line "$T/err"'
cond sigpipe-no-temp 'no_temps "$T/p"'
cond sigpipe-frames-so-far-play '[ "$(frames_in "$T/p/a.mp4")" -gt 0 ]'

# --- 2. a failing standard output commits nothing and stops at once --------------------------------
mkdir -p "$T/full"
timeout 60 "$RR" "$T/small.json" $LONG -s "$PROBE" --hash -o "$T/full/a.npy" --probes "$T/full/p.csv" \
    --manifest "$T/full/m.json" > /dev/full 2> "$T/err"; s=$?
cond stdout-full-exit-1 '[ $s -eq 1 ] && one_line "$T/err" && grep -q "standard output: write failed: No space left" "$T/err"'
cond stdout-full-commits-nothing '[ -z "$(ls -A "$T/full")" ]'
timeout 60 "$RR" "$T/small.json" $LONG --hash -o "$T/full/b.mkv" >&- 2> "$T/err"; s=$?
cond stdout-closed-exit-1 '[ $s -eq 1 ] && [ -z "$(ls -A "$T/full")" ] && grep -q "standard output: write failed" "$T/err"'

# --- 3. SIGHUP, SIGQUIT, SIGXCPU as SIGTERM ---------------------------------------------------------
for sig in HUP QUIT XCPU; do
    rm -rf "$T/sig"; mkdir -p "$T/sig"
    rm -f "$T/sig.hash"
    "$RR" "$T/small.json" $LONG -o "$T/sig/a.mkv" --hash > "$T/sig.hash" 2> "$T/err" & pid=$!
    frames_done "$T/sig.hash" $pid 5; kill -$sig $pid; wait $pid; s=$?
    cond "sig$sig-exit-130" '[ $s -eq 130 ] && grep -q "interrupted after" "$T/err"'
    cond "sig$sig-frames-so-far" '[ "$(frames_in "$T/sig/a.mkv")" -gt 0 ] && no_temps "$T/sig"'
done

# --- SIGKILL leaves no temporary file; stale ones of a PNG sequence go on the next run --------------
rm -rf "$T/kill"; mkdir -p "$T/kill"
"$RR" "$T/small.json" $LONG -o "$T/kill/a.mkv" 2> "$T/err" & pid=$!
writing $pid "$T/kill"; kill -KILL $pid; wait $pid 2>/dev/null
cond sigkill-video-no-temp '[ -z "$(ls -A "$T/kill")" ]'
# killed_stale DIR PATTERN: a long PNG run into DIR/PATTERN killed once a
# frame's named temporary file is there (at most 120 s); $n: the stale
# temporaries of our form it left, which the next run into DIR must remove.
killed_stale() {
    "$RR" "$T/small.json" $LONG -o "$1/$2" 2> "$T/err" & pid=$!
    k=0; while [ -z "$(find "$1" -name '.*.tmp')" ] && [ $k -lt 1200 ] && kill -0 $pid 2> /dev/null; do
        sleep 0.1; k=$((k + 1))
    done
    kill -KILL $pid; wait $pid 2>/dev/null
    n=$(find "$1" -name '.*.png.??????.tmp' | wc -l)
    "$RR" "$T/small.json" -f 2 -o "$1/$2" -q 2> "$T/err"; s=$?
}
killed_stale "$T/kill" 'f%06d.png'
cond sigkill-stale-temps-cleaned '[ $s -eq 0 ] && [ "$n" -gt 0 ] && no_temps "$T/kill" && [ "$(ls "$T/kill" | wc -l)" -eq 2 ]'
# ... with a name so long that the temporary's must be cut (250 bytes of
# two-byte letters and a number): the cut keeps the extension, so the next
# run still knows the stale file for its own (was: cut at the end, ".png"
# lost, left for good).
rm -rf "$T/klong"; mkdir -p "$T/klong"
killed_stale "$T/klong" "$(printf 'é%.0s' $(seq 120))%06d.png"
cond sigkill-long-name-stale-temps-cleaned '[ $s -eq 0 ] && [ "$n" -gt 0 ] && no_temps "$T/klong" && [ "$(ls "$T/klong" | wc -l)" -eq 2 ]'
echo keep > "$T/kill/.x.tmp"; echo keep > "$T/kill/.a.mkv.ABCDEF.tmp.bak"; echo keep > "$T/kill/.notes.ABCDEF.tmp"
echo stale > "$T/kill/.c.npy.ABCDEF.tmp"
"$RR" "$T/small.json" -f 2 -o "$T/kill/b.mkv" -q
cond stale-cleaning-spares-others '[ -f "$T/kill/.x.tmp" ] && [ -f "$T/kill/.a.mkv.ABCDEF.tmp.bak" ] && [ -f "$T/kill/.notes.ABCDEF.tmp" ] && [ ! -e "$T/kill/.c.npy.ABCDEF.tmp" ]'

# --- 4. a ':' in a name is a file name, never a protocol -------------------------------------------
mkdir -p "$T/url/pipe:"
(cd "$T/url" && "$RR" "$T/small.json" -o render-12:30.gif -q) 2> "$T/err"; s=$?
cond colon-gif '[ $s -eq 0 ] && [ "$(frames_in "$T/url/render-12:30.gif")" = 10 ]'
(cd "$T/url" && "$RR" "$T/small.json" -o pipe:/a.mp4 -q > "$T/url/stdout") 2> "$T/err"; s=$?
cond pipe-folder '[ $s -eq 0 ] && [ ! -s "$T/url/stdout" ] && [ "$(frames_in "$T/url/pipe:/a.mp4")" = 10 ]'
(cd "$T/url" && "$RR" "$T/small.json" -o pipe:/a.framemd5 -q > "$T/url/stdout") 2> "$T/err"; s=$?
cond pipe-folder-framemd5 '[ $s -eq 0 ] && [ ! -s "$T/url/stdout" ] && [ "$(grep -c "^0," "$T/url/pipe:/a.framemd5")" = 10 ]'

# --- 5. two outputs, or an output and an input, naming one file --------------------------------------
mkdir -p "$T/same"; cp "$T/small.json" "$T/same/scene.json"; cp scenes/harbour.png "$T/same/mask.png"
ln -s scene.json "$T/same/link.json"
same() {   # same NAME ARGS...: refused with exit 2, one line naming the file, nothing changed
    name=$1; shift
    before=$(ls -l "$T/same" | md5sum)
    "$RR" "$@" -q > /dev/null 2> "$T/err"; s=$?
    cond "$name" '[ $s -eq 2 ] && one_line "$T/err" && grep -q "same file" "$T/err" && [ "$(ls -l "$T/same" | md5sum)" = "$before" ] && cmp -s "$T/same/scene.json" "$T/small.json"'
}
same same-output-manifest "$T/same/scene.json" -o "$T/same/a.npy" --manifest "$T/same/a.npy" -y
same same-probes-manifest "$T/same/scene.json" -s "$PROBE" --hash --probes "$T/same/x" --manifest "$T/same/x" -y
same same-manifest-scene "$T/same/scene.json" --hash --manifest "$T/same/scene.json" -y
same same-manifest-scene-link "$T/same/scene.json" --hash --manifest "$T/same/link.json" -y
same same-probes-scene-dotdot "$T/same/scene.json" -s "$PROBE" --hash --probes "$T/same/../same/scene.json" -y
same same-manifest-mask "$T/same/scene.json" -s 'obstacles=[{"type":"mask","path":"mask.png"}]' --hash \
    --manifest "$T/same/mask.png" -y
same same-output-check "$T/same/scene.json" --check "$T/same/a.framemd5" -o "$T/same/a.framemd5" -y
# Standard output, when the run writes it (--hash, -o -), is an output too:
# a regular file there that the run reads is refused, as the same file
# named by -o is. Before, '>> scene.json' had the hash lines or the y4m
# stream appended to the scene and '>> h.txt' to the --check file being
# read (status 0, the input changed).
stdout_same() {   # stdout_same NAME INPUT ARGS...: ARGS >> INPUT refused with exit 2, one line, INPUT unchanged
    name=$1 in=$2; shift 2
    cp "$in" "$T/in.before"
    "$RR" "$@" -q >> "$in" 2> "$T/err"; s=$?
    cond "$name" '[ $s -eq 2 ] && one_line "$T/err" && grep -q "standard output name the same file" "$T/err" && cmp -s "$in" "$T/in.before"'
    cp "$T/in.before" "$in"
}
stdout_same stdout-hash-scene "$T/same/scene.json" "$T/same/scene.json" -f 2 --hash
stdout_same stdout-pipe-scene "$T/same/scene.json" "$T/same/scene.json" -f 2 -o -
"$RR" "$T/same/scene.json" -f 2 --hash > "$T/same/h.txt"
stdout_same stdout-hash-check "$T/same/h.txt" "$T/same/scene.json" -f 2 --check "$T/same/h.txt" --hash
"$RR" "$T/same/scene.json" -f 2 --hash -q > "$T/same/h2.txt"; s=$?
cond stdout-file-not-an-input '[ $s -eq 0 ] && cmp -s "$T/same/h.txt" "$T/same/h2.txt"'
# Standard input read by the run (the scene -, --check -) is an input when
# it is a regular file: an output through a link to it (/dev/stdin) is
# refused. Before, 'ripplerender - -o in.npy -y < scene.json' with in.npy a
# link to /proc/self/fd/0 replaced the scene with the .npy, and '--check -
# -o ck.framemd5 -y < h.txt' the file being checked (status 0).
ln -s /proc/self/fd/0 "$T/same/in.npy"; ln -s /proc/self/fd/0 "$T/same/in.framemd5"
stdin_same() {   # stdin_same NAME INPUT ARGS...: ARGS < INPUT refused with exit 2, one line, INPUT unchanged
    name=$1 in=$2; shift 2
    cp "$in" "$T/in.before"
    "$RR" "$@" -q < "$in" > /dev/null 2> "$T/err"; s=$?
    cond "$name" '[ $s -eq 2 ] && one_line "$T/err" && grep -q "standard input.* name the same file" "$T/err" && cmp -s "$in" "$T/in.before"'
    cp "$T/in.before" "$in"
}
stdin_same stdin-scene-output "$T/same/scene.json" - -f 2 -o "$T/same/in.npy" -y
stdin_same stdin-check-output "$T/same/h.txt" "$T/same/scene.json" -f 2 --check - -o "$T/same/in.framemd5" -y

# --- 7, 8. interrupted before frame 0: nothing is committed, exit 130 ---------------------------------
# The run is held between opening its output and frame 0 by --check reading a
# FIFO (read after the outputs are opened, waiting for its writer); the signal
# arrives there and ends the wait. The FIFO is then written without waiting
# for a reader (opened read-write), the run being gone.
"$RR" "$T/small.json" -f 3 --hash -q > "$T/h3"
for out in a.mp4 a.gif a.npy; do
    rm -rf "$T/f0"; mkdir -p "$T/f0"; rm -f "$T/fifo"; mkfifo "$T/fifo"
    "$RR" "$T/small.json" -f 3 -o "$T/f0/$out" -q > /dev/null 2> "$T/err"
    cp "$T/f0/$out" "$T/good"
    "$RR" "$T/small.json" -f 3 -o "$T/f0/$out" -y --check "$T/fifo" -q 2> "$T/err" & pid=$!
    writing $pid "$T/f0"; kill -INT $pid; sleep 0.2; cat "$T/h3" 1<> "$T/fifo"; wait $pid; s=$?
    cond "before-frame-0-$out-exit-130" '[ $s -eq 130 ] && one_line "$T/err" && grep -q "before the first frame" "$T/err"'
    cond "before-frame-0-$out-untouched" 'cmp -s "$T/f0/$out" "$T/good" && no_temps "$T/f0"'
done

# --- 11. links: written through; a dangling one refused before rendering -----------------------------
mkdir -p "$T/ln"; echo old > "$T/ln/real.json"; ln -s real.json "$T/ln/link.json"
"$RR" "$T/small.json" --hash --manifest "$T/ln/link.json" -y -q > /dev/null 2> "$T/err"; s=$?
cond link-written-through '[ $s -eq 0 ] && [ -L "$T/ln/link.json" ] && grep -q "\"program\"" "$T/ln/real.json" && no_temps "$T/ln"'
# As /dev/stdout, without risking /dev/stdout itself on a build that breaks it
# (with -o: --hash would write standard output too, refused as two outputs of one file).
ln -s /proc/self/fd/1 "$T/ln/stdout"
"$RR" "$T/small.json" -o "$T/ln/a.npy" --manifest "$T/ln/stdout" -y -q > "$T/ln/out.json" 2> "$T/err"; s=$?
cond stdout-link-written-through '[ $s -eq 0 ] && [ -L "$T/ln/stdout" ] && grep -q "\"program\"" "$T/ln/out.json"'
# ... onto a pipe or a socket (/proc/self/fd/1 leads to "pipe:[N]", no
# path): not a regular file, refused as a FIFO is (was: "a symbolic link to
# /proc/self/fd/1, which does not exist"); a socket the same way.
"$RR" "$T/small.json" --hash --manifest "$T/ln/stdout" -y -q 2> "$T/err" | cat > /dev/null; s=$(cat "$T/err")
cond stdout-link-pipe-refused '[ "$s" = "ripplerender: $T/ln/stdout: is not a regular file (outputs are written to a temporary file and renamed into place)" ]'
ln -s /proc/self/fd/1 "$T/ln/stdout.npy"
"$RR" "$T/small.json" -f 2 -o "$T/ln/stdout.npy" -q 2> "$T/err" | cat > /dev/null; s=$(cat "$T/err")
cond stdout-link-pipe-output-refused '[ "$s" = "ripplerender: $T/ln/stdout.npy: is not a regular file (outputs are written to a temporary file and renamed into place)" ]'
python3 -c 'import socket, subprocess, sys
a, b = socket.socketpair()
sys.exit(subprocess.run(sys.argv[1:], stdout=a).returncode)' \
    "$RR" "$T/small.json" --hash --manifest "$T/ln/stdout" -y -q 2> "$T/err"; s=$?
cond stdout-link-socket-refused '[ $s -eq 1 ] && [ "$(cat "$T/err")" = "ripplerender: $T/ln/stdout: is not a regular file (outputs are written to a temporary file and renamed into place)" ]'
ln -s nowhere/x.npy "$T/ln/dangling.npy"
"$RR" "$T/small.json" $LONG -o "$T/ln/dangling.npy" -y 2> "$T/err"; s=$?
cond dangling-refused '[ $s -eq 1 ] && one_line "$T/err" && grep -q "dangling.npy: is a symbolic link to nowhere/x.npy, which does not exist" "$T/err" && [ ! -e "$T/ln/nowhere" ]'

# --- 12. a umask without owner write, as another user than root ------------------------------------
if command -v setpriv > /dev/null && [ "$(id -u)" = 0 ]; then
    chmod 711 "$T"; mkdir -p "$T/um"; cp "$T/small.json" "$T/um/s.json"; chown -R 65534 "$T/um"
    for out in a.mp4 a.npy 'f%02d.png'; do
        setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "umask 0277; exec \"$RR\" \"$T/um/s.json\" -f 2 -o \"$T/um/$out\" -q" 2> "$T/err"; s=$?
        f=$(printf "$out" 1)
        cond "umask-0277-$out" '[ $s -eq 0 ] && [ "$(stat -c %a "$T/um/$f")" = 400 ]'
    done
else
    echo "skip umask (needs root and setpriv)"
fi

# --- -y: only what we may replace; the mode is kept ---------------------------------------------
mkdir -p "$T/y"
refuse_y() {   # refuse_y NAME MESSAGE: -y over $T/y/a.npy is refused, exit 1, file kept
    msg=$2
    "$RR" "$T/small.json" -o "$T/y/a.npy" -y -q 2> "$T/err"; s=$?
    cond "$1" '[ $s -eq 1 ] && one_line "$T/err" && grep -q "$msg" "$T/err" && [ "$(cat "$T/y/a.npy")" = keep ] && no_temps "$T/y"'
}
echo keep > "$T/y/a.npy"; chmod 444 "$T/y/a.npy"
refuse_y y-read-only "a.npy: is read-only"
chmod 644 "$T/y/a.npy"; chown 65534 "$T/y/a.npy"
refuse_y y-other-user "a.npy: belongs to another user"
chown 0 "$T/y/a.npy"; ln "$T/y/a.npy" "$T/y/hard.npy"
refuse_y y-hard-link "a.npy: has 2 hard links"
rm "$T/y/hard.npy"; chmod 640 "$T/y/a.npy"
"$RR" "$T/small.json" -o "$T/y/a.npy" -y -q; s=$?
cond y-keeps-mode '[ $s -eq 0 ] && [ "$(stat -c %a "$T/y/a.npy")" = 640 ] && [ "$(head -c 6 "$T/y/a.npy" | tail -c 5)" = NUMPY ]'
# A SIGKILL between outfile_keep_old's link and the move leaves the kept
# old file beside its target under our temporary naming, a second hard link
# to it (made here as the kill leaves it; strace's injection shows the same
# state): the next -y run removes that stale temporary and replaces the
# file. Before, that run and every later one refused, naming our own
# leftover: 'f00.png: has 2 hard links; replacing it would break them'.
mkdir -p "$T/yk"
"$RR" "$T/small.json" -f 2 -o "$T/yk/f%02d.png" -q
ln "$T/yk/f00.png" "$T/yk/.f00.png.AbC123.tmp"
"$RR" "$T/small.json" -f 2 -o "$T/yk/f%02d.png" -y -q 2> "$T/err"; s=$?
cond y-stale-kept-link-removed '[ $s -eq 0 ] && [ ! -s "$T/err" ] && no_temps "$T/yk" && [ "$(stat -c %h "$T/yk/f00.png")" = 1 ]'
# The replaced file's group is kept with its bits (a 640 file of a group of
# readers stays theirs), for a file written whole (.npy) and a PNG frame
# (a named temporary); the set-user-ID, set-group-ID and sticky bits are not
# carried over to new contents. Where the group cannot be kept (the user is
# not in it), the new file gets no group bits: they were meant for another
# group. Before, the new file took the run's group with the old bits (the
# readers lost it, or the run's group gained it) and kept 4755's set-user-ID
# bit.
for out in a.npy 'f%02d.png'; do
    f=$(printf "$out" 0)
    "$RR" "$T/small.json" -f 1 -o "$T/y/$out" -y -q
    chgrp 1 "$T/y/$f"; chmod 640 "$T/y/$f"
    "$RR" "$T/small.json" -f 1 -o "$T/y/$out" -y -q; s=$?
    cond "y-keeps-group-$out" '[ $s -eq 0 ] && [ "$(stat -c %g:%a "$T/y/$f")" = 1:640 ]'
    chmod 6755 "$T/y/$f"
    "$RR" "$T/small.json" -f 1 -o "$T/y/$out" -y -q; s=$?
    cond "y-drops-setid-$out" '[ $s -eq 0 ] && [ "$(stat -c %g:%a "$T/y/$f")" = 1:755 ]'
done
if command -v setpriv > /dev/null; then
    mkdir -p "$T/yg"; chmod 711 "$T"; cp "$T/small.json" "$T/yg/s.json"
    "$RR" "$T/yg/s.json" -f 1 -o "$T/yg/a.npy" -q; chmod 640 "$T/yg/a.npy"; chown -R 65534:0 "$T/yg"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$RR" "$T/yg/s.json" -f 1 -o "$T/yg/a.npy" -y -q; s=$?
    cond y-group-not-kept-no-group-bits '[ $s -eq 0 ] && [ "$(stat -c %g:%a "$T/yg/a.npy")" = 65534:600 ]'
else
    echo "skip y-group-not-kept-no-group-bits (needs setpriv)"
fi

# A PNG set replacing an earlier run's (-y) whose move fails half way (here
# a folder made at frame 7's name once the run has written that frame's
# temporary file, 32 frames before the end): the run fails in one line, and
# the earlier run's frames the set had already replaced are put back, not lost.
mkdir -p "$T/ys"
set -- "$T/small.json" -f 40 -s time.steps_per_frame=1000 -s grid.width=256 -s grid.height=192 -j1
"$RR" "$@" -o "$T/ys/f%02d.png" -q
(cd "$T/ys" && md5sum f*.png) > "$T/ys.md5"
"$RR" "$@" -s 'drops=[{"x": 40, "y": 30, "radius": 4, "amplitude": 1}]' -o "$T/ys/f%02d.png" -y -q 2> "$T/err" & pid=$!
k=0; while [ -z "$(find "$T/ys" -name '.f07.png.*.tmp')" ] && [ $k -lt 1000 ]; do sleep 0.01; k=$((k + 1)); done
rm "$T/ys/f07.png"; mkdir "$T/ys/f07.png"
wait $pid; s=$?
rmdir "$T/ys/f07.png"
cond y-set-move-fails '[ $s -eq 1 ] && one_line "$T/err" && grep -q "f07.png: cannot move the finished file into place" "$T/err"'
cond y-set-earlier-frames-kept '(cd "$T/ys" && grep -v f07.png "$T/ys.md5" | md5sum -c --quiet > /dev/null 2>&1) && [ "$(ls "$T/ys" | wc -l)" -eq 39 ] && no_temps "$T/ys"'

# A whole PNG set (frame 0 to the scene's last) written over an earlier,
# longer one: the earlier set's later frames stay (never removed), and one
# warning line names the pattern, how many follow this set's last frame
# (gaps or not), and the first and last of them. An interrupted run says
# nothing.
mkdir -p "$T/st"; P="$T/st/f%02d.png"
"$RR" "$T/small.json" -o "$P" -q
(cd "$T/st" && md5sum f0[4-9].png) > "$T/st.md5"
"$RR" "$T/small.json" -f 4 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-warns '[ $s -eq 0 ] && [ "$(cat "$T/err")" = "ripplerender: warning: $P: 6 files of an earlier set remain after this run'"'"'s last frame ($T/st/f04.png to $T/st/f09.png)" ]'
cond stale-kept '(cd "$T/st" && md5sum -c --quiet "$T/st.md5" > /dev/null 2>&1) && [ "$(ls "$T/st" | wc -l)" -eq 10 ] && no_temps "$T/st"'
"$RR" "$T/small.json" -f 9 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-one '[ $s -eq 0 ] && [ "$(cat "$T/err")" = "ripplerender: warning: $P: 1 file of an earlier set remains after this run'"'"'s last frame ($T/st/f09.png)" ]'
rm "$T/st/f07.png"
"$RR" "$T/small.json" -f 4 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-past-a-gap '[ $s -eq 0 ] && grep -q ": 5 files of an earlier set remain after .* ($T/st/f04.png to $T/st/f09.png)\$" "$T/err" && one_line "$T/err"'
# Every file of the pattern counts, however far (f57, f100: the width is a
# minimum); names the pattern would not write (f5.png for %02d, a folder,
# another name) do not.
: > "$T/st/f57.png"; : > "$T/st/f100.png"; : > "$T/st/f5.png"; : > "$T/st/xf05.png"; : > "$T/st/f05.png.bak"
mkdir "$T/st/f60.png"
"$RR" "$T/small.json" -f 4 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-every-one '[ $s -eq 0 ] && grep -q ": 7 files of an earlier set remain after .* ($T/st/f04.png to $T/st/f100.png)\$" "$T/err" && one_line "$T/err"'
rm -r "$T/st/f57.png" "$T/st/f100.png" "$T/st/f5.png" "$T/st/xf05.png" "$T/st/f05.png.bak" "$T/st/f60.png"
# A part (--range, --chunk) that does not end at the scene's last frame says
# nothing: other parts' frames are rightly there. One that does counts the
# files after the scene's last frame, which no part writes.
"$RR" "$T/small.json" -f 10 -o "$P" -y -q
"$RR" "$T/small.json" -f 6 --range 0-3 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-not-for-a-range '[ $s -eq 0 ] && [ ! -s "$T/err" ]'
"$RR" "$T/small.json" -f 6 --range 2-5 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-range-to-the-last '[ $s -eq 0 ] && [ "$(cat "$T/err")" = "ripplerender: warning: $P: 4 files of an earlier set remain after this run'"'"'s last frame ($T/st/f06.png to $T/st/f09.png)" ]'
"$RR" "$T/small.json" -f 6 --chunk 1/2 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-last-chunk '[ $s -eq 0 ] && grep -q ": 4 files of an earlier set remain after .* ($T/st/f06.png to $T/st/f09.png)\$" "$T/err" && one_line "$T/err"'
"$RR" "$T/small.json" -f 6 --chunk 0/2 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-not-for-a-first-chunk '[ $s -eq 0 ] && [ ! -s "$T/err" ]'
# The frame number in a folder's name: the folders that hold the file count.
"$RR" "$T/small.json" -f 5 -o "$T/sd/d%02d/f.png" -q
mkdir "$T/sd/d07" "$T/sd/d08"; : > "$T/sd/d08/f.png"; : > "$T/sd/d09"
"$RR" "$T/small.json" -f 2 -o "$T/sd/d%02d/f.png" -y -q 2> "$T/err"; s=$?
cond stale-in-folders '[ $s -eq 0 ] && grep -q ": 4 files of an earlier set remain after .* ($T/sd/d02/f.png to $T/sd/d08/f.png)\$" "$T/err" && one_line "$T/err"'
"$RR" "$T/small.json" -f 10 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-none-left '[ $s -eq 0 ] && [ ! -s "$T/err" ] && [ "$(ls "$T/st" | wc -l)" -eq 10 ]'
# An atlas numbers its images, not frames: 2 x 2 frames an image.
rm -f "$T/st"/*
"$RR" "$T/small.json" -s render.atlas=[2,2] -o "$P" -q
"$RR" "$T/small.json" -s render.atlas=[2,2] -f 4 -o "$P" -y -q 2> "$T/err"; s=$?
cond stale-atlas-images '[ $s -eq 0 ] && grep -q ": 2 files of an earlier set remain after .* ($T/st/f01.png to $T/st/f02.png)\$" "$T/err"'

# Two frames of a set whose names lead to one file (symbolic links, as a
# hold of repeated frames is often made, which -y writes through): each
# frame would overwrite the other's file, the set silently one picture short.
# Refused before rendering, naming both frames; the file stays as it was.
mkdir -p "$T/sl"; cp "$T/y/a.npy" "$T/sl/x.png"; ln -s x.png "$T/sl/f00.png"; ln -s x.png "$T/sl/f01.png"
(cd "$T/sl" && md5sum x.png) > "$T/sl.md5"
"$RR" "$T/small.json" -f 3 -o "$T/sl/f%02d.png" -y -q 2> "$T/err"; s=$?
cond set-two-frames-one-file '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: $T/sl/f01.png: frames 0 and 1 of $T/sl/f%02d.png name the same file" ] && (cd "$T/sl" && md5sum -c --quiet "$T/sl.md5") && [ "$(ls "$T/sl" | wc -l)" -eq 3 ]'
# A link from one frame to another frame's own file is the same.
rm -f "$T/sl"/*; "$RR" "$T/small.json" -f 3 -o "$T/sl/f%02d.png" -q; rm "$T/sl/f00.png"; ln -s f02.png "$T/sl/f00.png"
"$RR" "$T/small.json" -f 3 -o "$T/sl/f%02d.png" -y -q 2> "$T/err"; s=$?
cond set-frame-links-to-frame '[ $s -eq 2 ] && grep -q "frames 0 and 2 of .* name the same file" "$T/err" && one_line "$T/err"'
# The number in a folder's name: frames whose folders lead to one folder
# (symbolic links to it, or NAME/..) name one file that does not exist yet,
# which the run itself would write twice (with -y frame 0 was lost, status
# 0; without it the second frame found the first's file, status 1). Refused
# before rendering, with or without -y; nothing written.
rm -rf "$T/fd"; mkdir -p "$T/fd/real"; ln -s real "$T/fd/d00"; ln -s real "$T/fd/d01"
for y in "" -y; do
    "$RR" "$T/small.json" -f 3 -o "$T/fd/d%02d/f.png" $y -q 2> "$T/err"; s=$?
    cond "set-folders-one-file$y" '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: $T/fd/d01/f.png: frames 0 and 1 of $T/fd/d%02d/f.png name the same file" ] && [ -z "$(ls -A "$T/fd/real")" ] && [ ! -e "$T/fd/d02" ]'
done
rm -rf "$T/fd"; mkdir -p "$T/fd"
"$RR" "$T/small.json" -f 3 -o "$T/fd/d%02d/../f.png" -y -q 2> "$T/err"; s=$?
cond set-folder-up-one-file '[ $s -eq 2 ] && grep -q "frames 0 and 1 of .* name the same file" "$T/err" && one_line "$T/err" && [ -z "$(ls -A "$T/fd")" ]'
# Frames in folders of their own stay a set of as many files.
"$RR" "$T/small.json" -f 3 -o "$T/fd/d%02d/f.png" -q 2> "$T/err"; s=$?
cond set-folders-own-files '[ $s -eq 0 ] && [ "$(find "$T/fd" -name f.png | wc -l)" -eq 3 ]'

# A path through a folder that does not exist yet and back (NAME/..) names
# the file beside it: an input there is refused as under its own name (the
# run would make NAME and write through it: -y replaced the scene with the
# manifest, the floor's depth map with the .npy, status 0), and an existing
# output wants -y before rendering (was: at the end, after the render).
rm -rf "$T/up"; mkdir -p "$T/up"
echo '{ "grid": { "width": 64, "height": 48 }, "time": { "frames": 2 } }' > "$T/up/s.json"
cp "$T/small.json" "$T/up/keep.npy"
(cd "$T/up" && md5sum s.json keep.npy) > "$T/up.md5"
"$RR" "$T/up/s.json" -f 1 --hash --manifest "$T/up/nd/../s.json" -y -q > /dev/null 2> "$T/err"; s=$?
cond up-manifest-is-scene '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: $T/up/nd/../s.json: the scene and --manifest name the same file" ] && (cd "$T/up" && md5sum -c --quiet "$T/up.md5") && [ ! -e "$T/up/nd" ]'
"$RR" "$T/up/s.json" -f 1 -o "$T/up/nd/../keep.npy" -q 2> "$T/err"; s=$?
cond up-exists-before-render '[ $s -eq 1 ] && [ "$(cat "$T/err")" = "ripplerender: $T/up/nd/../keep.npy: already exists (use -y to replace it)" ] && (cd "$T/up" && md5sum -c --quiet "$T/up.md5") && [ ! -e "$T/up/nd" ]'
python3 -c 'import struct, sys
d = "{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: (48, 64), }".ljust(117) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() + struct.pack("<f", 5.0) * 3072)' "$T/up/d.npy"
(cd "$T/up" && md5sum d.npy) >> "$T/up.md5"
"$RR" "$T/up/s.json" -f 1 -s render.mode=caustics -s render.depth_map="$T/up/d.npy" -o "$T/up/nd/../d.npy" -y -q 2> "$T/err"; s=$?
cond up-output-is-input '[ $s -eq 2 ] && grep -q "^ripplerender: $T/up/nd/../d.npy: render.depth_map and -o name the same file\$" "$T/err" && one_line "$T/err" && (cd "$T/up" && md5sum -c --quiet "$T/up.md5") && [ ! -e "$T/up/nd" ]'

# --save-state DIR's own names (state-FRAME.json and .PLANE.npy, the
# records resume-FIRST-LAST.json, the segments part-FRAME.EXT, .resume.lock)
# are no output's, through a link to DIR too: refused before rendering
# (was: status 0 with -y and the output gone, removed with the segments or
# the record, or a checkpoint replaced by the output or the manifest).
rm -rf "$T/ck"; mkdir -p "$T/ck"; ln -s "$T/ck" "$T/cklink"
for c in "-o $T/ck/state-000003.cur.npy" "-o $T/ck/part-000000.mp4" "--manifest $T/ck/resume-000000-000003.json" \
         "--manifest $T/cklink/state-000003.json" "--probes $T/ck/.resume.lock"; do
    opt=${c%% *}; path=${c#* }
    "$RR" "$T/small.json" -f 4 --save-state "$T/ck" --state-every 2 $c -y -q -s "$PROBE" > /dev/null 2> "$T/err"; s=$?
    cond "checkpoint-name-${path##*/}" '[ $s -eq 2 ] && [ "$(cat "$T/err")" = "ripplerender: $path: $opt names a file of --save-state $T/ck (its checkpoints, resume records and segments)" ] && [ -z "$(ls -A "$T/ck")" ]'
done
"$RR" "$T/small.json" -f 4 --save-state "$T/ck" --state-every 2 -o "$T/ck/out.mp4" --manifest "$T/ck/state.json" -q 2> "$T/err"; s=$?
cond checkpoint-other-names '[ $s -eq 0 ] && [ "$(frames_in "$T/ck/out.mp4")" = 4 ] && [ -s "$T/ck/state.json" ] && [ -s "$T/ck/state-000003.json" ]'

# --- a 255-byte name -------------------------------------------------------------------------
long=$(printf '%0251d' 0).npy
"$RR" "$T/small.json" -o "$T/y/$long" -q 2> "$T/err"; s=$?
cond name-255-bytes '[ $s -eq 0 ] && [ -s "$T/y/$long" ]'

# --- missing folders are made when the run writes, and only then ------------------------------------
mkdir -p "$T/mk/empty"
(cd "$T/mk/empty" && "$RR" "$T/small.json" -f 2 -q) 2> "$T/err"; s=$?
cond default-output-in-empty-folder '[ $s -eq 0 ] && [ "$(frames_in "$T/mk/empty/out/ripple.mp4")" = 2 ]'
# Under umask 022 (the folders are made 0777 less the umask, as mkdir -p makes them): 755.
(umask 022; exec "$RR" "$T/small.json" -s "$PROBE" -f 2 -o "$T/mk/a/b/c.npy" --probes "$T/mk/p/q.csv" --manifest "$T/mk/m/n.json" -q); s=$?
cond parents-made '[ $s -eq 0 ] && [ -s "$T/mk/a/b/c.npy" ] && [ -s "$T/mk/p/q.csv" ] && [ -s "$T/mk/m/n.json" ] && [ "$(stat -c %a "$T/mk/a/b")" = 755 ]'
"$RR" "$T/small.json" -s "$PROBE" -o "$T/mk/v/x.npy" --probes "$T/mk/w/q.csv" --manifest "$T/mk/u/n.json" --validate > "$T/out"; s=$?
cond validate-makes-nothing '[ $s -eq 0 ] && [ ! -e "$T/mk/v" ] && [ ! -e "$T/mk/w" ] && [ ! -e "$T/mk/u" ]'
cond validate-says-where 'grep -q "writes $T/mk/v/x.npy" "$T/out"'
# --validate refuses the targets the run would refuse before writing even
# with -y (a folder, a link to nowhere), with the run's line and status 1,
# instead of "writes" them; an existing file (any frame's of a sequence)
# that the run would refuse without -y is valid, the line saying so (the
# first of them) on standard output: stderr stays clean for scripts
mkdir -p "$T/vt/dir.mp4" && : > "$T/vt/old.mp4" && : > "$T/vt/f00002.png" && ln -sf nowhere/x.npy "$T/vt/dead.npy"
for c in "dir.mp4:is a directory" \
         "dead.npy:is a symbolic link to nowhere/x.npy, which does not exist (outputs are written through links, not into missing folders)"; do
    o=${c%%:*}; why=${c#*:}
    "$RR" "$T/small.json" -f 3 -o "$T/vt/$o" --validate > "$T/out" 2> "$T/err"; s=$?
    "$RR" "$T/small.json" -f 3 -o "$T/vt/$o" -y -q 2> "$T/err.run"; r=$?
    cond "validate-refuses-target-$o" '[ $s -eq 1 ] && [ $r -eq 1 ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "ripplerender: $T/vt/$o: $why" ] && cmp -s "$T/err" "$T/err.run"'
done
for o in old.mp4 f%05d.png; do
    named=$(echo "$o" | sed 's/%05d/00002/')
    "$RR" "$T/small.json" -f 3 -o "$T/vt/$o" --validate > "$T/out" 2> "$T/err"; s=$?
    "$RR" "$T/small.json" -f 3 -o "$T/vt/$o" -q 2> "$T/err.run"; r=$?
    cond "validate-notes-existing-$o" '[ $s -eq 0 ] && [ $r -eq 1 ] && grep -q "writes $T/vt/$o ($T/vt/$named exists: the run replaces it only with -y)\$" "$T/out" && [ ! -s "$T/err" ] && [ "$(cat "$T/err.run")" = "ripplerender: $T/vt/$named: already exists (use -y to replace it)" ]'
    "$RR" "$T/small.json" -f 3 -o "$T/vt/$o" -y --validate > "$T/out" 2> "$T/err"; s=$?
    cond "validate-takes-y-$o" '[ $s -eq 0 ] && grep -q "writes $T/vt/$o" "$T/out" && [ ! -s "$T/err" ] && [ ! -s "$T/vt/$named" ]'
done
: > "$T/vt/p.csv" && : > "$T/vt/m.json"
"$RR" "$T/small.json" -f 3 -s "$PROBE" -o "$T/vt/new.npy" --probes "$T/vt/p.csv" --manifest "$T/vt/m.json" --validate > "$T/out" 2> "$T/err"; s=$?
cond validate-notes-existing-probes-manifest '[ $s -eq 0 ] && grep -q "writes $T/vt/new.npy, $T/vt/p.csv, $T/vt/m.json ($T/vt/m.json exists: the run replaces it only with -y)\$" "$T/out" && [ ! -s "$T/err" ]'
"$RR" "$T/small.json" -f 3 -o "$T/vt/f%05d.png" --range 0-1 --validate > "$T/out" 2> "$T/err"; s=$?
cond validate-seq-range-only-its-frames '[ $s -eq 0 ] && [ ! -s "$T/err" ]'
"$RR" "$T/small.json" -s solver.damping=1 -s drops.0.amplitude=1e300 -o "$T/mk/bad/deep/x.npy" -q 2> "$T/err"; s=$?
cond failed-run-removes-made-folders '[ $s -eq 1 ] && [ ! -e "$T/mk/bad" ]'
echo file > "$T/mk/plain"
"$RR" "$T/small.json" -o "$T/mk/plain/x.npy" -q 2> "$T/err"; s=$?
cond parent-is-a-file '[ $s -eq 1 ] && one_line "$T/err" && grep -q "plain is not a directory" "$T/err"'

# --- a scene's own output.path stays under the current folder ---------------------------------------
mkdir -p "$T/sc/run"
for p in /tmp/evil.npy ../evil.npy 'a/../../evil.npy'; do
    printf '{ "time": { "frames": 2 }, "output": { "path": "%s" } }\n' "$p" > "$T/sc/s.json"
    (cd "$T/sc/run" && "$RR" "$T/sc/s.json" -q) 2> "$T/err"; s=$?
    cond "scene-path-refused-$p" '[ $s -eq 2 ] && one_line "$T/err" && grep -q "output.path" "$T/err" && [ ! -e /tmp/evil.npy ] && [ ! -e "$T/sc/evil.npy" ]'
done
(cd "$T/sc/run" && "$RR" "$T/sc/s.json" -o "$T/sc/ok.npy" -q) 2> "$T/err"; s=$?
cond scene-path-o-overrides '[ $s -eq 0 ] && [ -s "$T/sc/ok.npy" ]'
mkfifo "$T/sc/mask.png"
timeout 10 "$RR" "$T/small.json" -s "obstacles=[{\"type\":\"mask\",\"path\":\"$T/sc/mask.png\"}]" --validate -q 2> "$T/err"; s=$?
cond fifo-mask-refused '[ $s -eq 2 ] && one_line "$T/err" && grep -q "not a regular file" "$T/err"'

# --- --manifest - and --probes -: files only (the contract names FILE.json, FILE.csv) ---------------
# Refused (status 2, one line) before anything is written; before, each
# wrote a file named "-" in the current folder.
mkdir -p "$T/dash"
rm -f "$T/dash/-"; (cd "$T/dash" && "$RR" "$T/small.json" -q --hash --manifest - > so.txt) 2> "$T/err"; s=$?
cond manifest-dash-refused '[ $s -eq 2 ] && one_line "$T/err" && grep -q "^ripplerender: --manifest -: " "$T/err" && [ ! -e "$T/dash/-" ] && [ ! -s "$T/dash/so.txt" ]'
rm -f "$T/dash/-"; (cd "$T/dash" && "$RR" "$T/small.json" -q --hash -s "$PROBE" --probes - > so.txt) 2> "$T/err"; s=$?
cond probes-dash-refused '[ $s -eq 2 ] && one_line "$T/err" && grep -q "^ripplerender: --probes -: " "$T/err" && [ ! -e "$T/dash/-" ] && [ ! -s "$T/dash/so.txt" ]'
rm -f "$T/dash/-"; (cd "$T/dash" && "$RR" "$T/small.json" -q -s "$PROBE" --hash --probes ./- --manifest ./-.json > /dev/null) 2> "$T/err"; s=$?
cond dash-named-file-written '[ $s -eq 0 ] && [ -s "$T/dash/-" ] && [ -s "$T/dash/-.json" ]'

# --- a folder that cannot be made: run-time I/O (status 1), for --save-state as for an output -------
# Before, --save-state's exited 2 (a usage error) where an output's exits 1.
"$RR" "$T/small.json" -q -o /proc/rr-nothere/out.framemd5 2> "$T/err"; s=$?
cond output-folder-not-made-status-1 '[ $s -eq 1 ] && one_line "$T/err" && grep -q "cannot make the directory /proc/rr-nothere" "$T/err"'
"$RR" "$T/small.json" -q --hash --save-state /proc/rr-nothere/st > /dev/null 2> "$T/err"; s=$?
cond save-state-folder-not-made-status-1 '[ $s -eq 1 ] && one_line "$T/err" && grep -q "^ripplerender: --save-state /proc/rr-nothere/st: cannot create the folder" "$T/err"'
# A file where the folder or an output's folder should be: status 1 for
# each, with --validate too (--save-state's was 2)
echo x > "$T/afile"
for how in "-o $T/afile/a.framemd5" "--hash --save-state $T/afile" "--hash --save-state $T/afile/st" \
           "--hash --probes $T/afile/p.csv -s probes.0.x=1 -s probes.0.y=1" "--hash --manifest $T/afile/m.json"; do
    for v in "" --validate; do
        "$RR" "$T/small.json" -q $how $v > /dev/null 2> "$T/err"; s=$?
        cond "file-in-the-way-status-1 ($how $v)" '[ $s -eq 1 ] && one_line "$T/err" && grep -q "afile" "$T/err"'
    done
done

finish

# --resume (docs/farm.md, "Resuming a killed render"): a render with
# --save-state is killed with SIGKILL at several points (before its first
# checkpoint, right after one, and three points drawn from a fixed seed:
# after a checkpoint plus a delay of up to four frames), then resumed; the
# result must be the uninterrupted run's: a PNG sequence's files identical, a
# .framemd5 file identical, an ffv1 .mkv decoded to --hash's frames, a
# manifest's frame hashes those of --hash, an H.264 .mp4 with every packet,
# continuous timestamps, decodable to its end. After every resume: no record,
# no segment, no temporary file left. Then the refusals.
. tests/cli/lib.sh
cd "$T" || exit 1
# 30 frames of about 40 ms each at -j1 (300 million cell updates a frame):
# time for a shell to see a checkpoint appear and kill the run before the
# next one, and for the random points below to fall before the run ends.
# Under make sanitize (a build about 4x slower: ASan's) a quarter of the
# steps, for frames of about the same time.
spf=1000
asan_build && spf=250
cat > s.json <<EOF
{ "grid": { "width": 960, "height": 720 },
  "time": { "fps": 10, "frames": 30, "steps_per_frame": $spf },
  "drops": [ { "x": 40, "y": 40, "radius": 3, "amplitude": -1 } ],
  "rain": { "rate": 20, "seed": 3, "end": 3 },
  "render": { "mode": "colormap", "range": [-0.5, 0.5] } }
EOF
R() { "$RR" s.json -q -j1 "$@"; }
R --hash > whole.hash
decoded() { ffmpeg -v error -i "$1" -pix_fmt rgb24 -f framemd5 - | awk -F', *' '!/^#/ { print $2, $6 }'; }
manifest_hashes() { python3 -c 'import json,sys; [print(f["frame"], f["md5"]) for f in json.load(open(sys.argv[1]))["frames"]]' "$1"; }
leftovers() { find . \( -name 'resume-*.json' -o -name 'part-*' -o -name '.*.tmp' \) -print; }

# Kill points: a pseudo-random checkpoint (5 to 20) and a delay of 0 to 80
# ms, from a fixed linear congruential sequence (seed 23): at least nine
# frames (about 360 ms) are left after the latest such point, so that the
# run is still going when the kill comes even on a busy machine.
x=23
draw() { x=$(( (x * 1103515245 + 12345) % 2147483648 )); }
random_point() { draw; c=$(( (x / 65536 % 4 + 1) * 5 )); draw; pt="$c+$(( x / 65536 % 81 ))"; }

# killed POINT DIR ARGS...: runs the render ARGS in the background with
# --save-state DIR --state-every 5 and kills it (SIGKILL) at POINT: "start"
# (its record is written: before any frame), "C" (checkpoint C written) or
# "C+MS" (MS milliseconds after). Fails when the run ends first.
killed() {
    point=$1 dir=$2; shift 2
    "$RR" s.json -q -j1 --save-state "$dir" --state-every 5 "$@" 2> /dev/null & pid=$!   # not R: $! must be ours
    case $point in
    start) f=$dir/resume-000000-000029.json ;;
    *) f=$dir/state-$(printf %06d "${point%+*}").json ;;
    esac
    while [ ! -e "$f" ] && kill -0 $pid 2> /dev/null; do sleep 0.005; done
    case $point in *+*) sleep "$(awk "BEGIN { print ${point#*+} / 1000 }")" ;; esac
    kill -9 $pid 2> /dev/null; wait $pid 2> /dev/null; rc=$?
    check "killed at $point ($*)" [ $rc -eq 137 ]
    # The frames of a numbered output (PNG, EXR) are written under names
    # (one descriptor each would not do): those a SIGKILL leaves are removed
    # by the next run there, the resumed one (leftovers, below).
    case "$*" in
    *.png*|*.exr*) ;;
    *) check "killed at $point: no temporary file left" [ -z "$(find . -name '.*.tmp')" ] ;;
    esac
}
resumed() {
    dir=$1; shift
    R --save-state "$dir" --state-every 5 --resume "$@" 2> err; rc=$?
    check "resumed $dir ($*)" [ $rc -eq 0 -a ! -s err ]
    check "$dir: nothing left over" [ -z "$(leftovers)" ]
}

# ffv1 in mkv and the manifest: killed before the first checkpoint (no state
# written), and at a random point.
R -s output.codec=ffv1 -o ref.mkv --manifest ref.json
random_point
for p in start $pt; do
    d=mkv-$p; rm -f out.mkv m.json
    killed $p $d -s output.codec=ffv1 -o out.mkv --manifest m.json
    [ $p = start ] && check "killed before the first checkpoint" [ -z "$(ls $d/state-*.json 2> /dev/null)" ]
    check "$d: no output before the render completes" [ ! -e out.mkv -a ! -e m.json ]
    resumed $d -s output.codec=ffv1 -o out.mkv --manifest m.json
    decoded out.mkv > out.md5
    check "$d: the ffv1 video decodes to --hash's frames" cmp -s out.md5 whole.hash
    manifest_hashes m.json > m.md5
    check "$d: the manifest's frames are --hash's" cmp -s m.md5 whole.hash
    check "$d: the manifest says complete" grep -q '"complete":[[:space:]]*true' m.json
done

# A PNG sequence: killed right after checkpoint 10, and at a random point.
mkdir ref-png; R -o 'ref-png/f%03d.png'
random_point
for p in 10 $pt; do
    d=png-$p; rm -rf png; mkdir png
    killed $p $d -o 'png/f%03d.png'
    kept=$(ls -i png/f000.png)
    resumed $d -o 'png/f%03d.png'
    check "$d: the frames before the checkpoint kept, not written again" [ "$(ls -i png/f000.png)" = "$kept" ]
    check "$d: the PNG files are the whole run's" diff -r ref-png png
done

# An EXR sequence is numbered as a PNG sequence is: its frames are kept
# at each checkpoint, and the resumed files are the whole run's.
mkdir ref-exr; R -s render.mode=height -o 'ref-exr/h%03d.exr'
rm -rf exr; mkdir exr
killed 10 exr-10 -s render.mode=height -o 'exr/h%03d.exr'
resumed exr-10 -s render.mode=height -o 'exr/h%03d.exr'
check "exr-10: the EXR files are the whole run's" diff -r ref-exr exr

# A .framemd5 list: at a random point, and stopped by SIGINT (Ctrl-C) after
# checkpoint 15: then the list of the frames so far is in place (status 130),
# and --resume completes it, replacing it without -y.
R -o ref.framemd5
grep -v '^#' ref.framemd5 > ref.lines
random_point; p=$pt; rm -f out.framemd5
killed $p fm-$p -o out.framemd5
resumed fm-$p -o out.framemd5
check "fm-$p: the .framemd5 is the whole run's" cmp -s ref.framemd5 out.framemd5
rm -f out.framemd5
"$RR" s.json -q -j1 --save-state fm-int --state-every 5 -o out.framemd5 2> err & pid=$!
while [ ! -e fm-int/state-000015.json ] && kill -0 $pid 2> /dev/null; do sleep 0.005; done
kill -INT $pid; wait $pid; rc=$?
check "SIGINT: status 130, the frames so far in place" [ $rc -eq 130 -a -s out.framemd5 ]
check "SIGINT: says --resume continues" grep -q -- '--resume continues the render' err
check "SIGINT: the partial list is shorter" [ "$(grep -vc '^#' out.framemd5)" -lt 30 ]
resumed fm-int -o out.framemd5
check "fm-int: the .framemd5 is the whole run's" cmp -s ref.framemd5 out.framemd5

# Two chunks sharing DIR: each keeps its own record (resume-FIRST-LAST.json)
# and segments; the second, run while the first lies killed, leaves them be.
killed 5 chunks --chunk 0/2 -o c0.framemd5
R --save-state chunks --state-every 5 --chunk 1/2 -o c1.framemd5
check "chunks: the other chunk's run leaves the killed one's record" [ -e chunks/resume-000000-000014.json ]
resumed chunks --chunk 0/2 -o c0.framemd5
check "chunks: together the whole run's frames" \
    sh -c "grep -hv '^#' c0.framemd5 c1.framemd5 | cmp -s - 'ref.lines'"

# H.264 in mp4, killed right after checkpoint 20: every frame, timestamps
# continuous, decodes to its end.
killed 20 mp4 -o out.mp4
resumed mp4 -o out.mp4
pts=$(ffprobe -v error -select_streams v -show_entries packet=pts -of csv=p=0 out.mp4 | sort -n | tr '\n' ' ')
want=$(awk 'BEGIN { for (i = 0; i < 30; i++) printf "%d ", i * 1024 }')
check "mp4: 30 packets, timestamps 0 to 29 frames without a gap" [ "$pts" = "$want" ]
check "mp4: decodes to its end" [ -z "$(ffmpeg -v error -xerror -i out.mp4 -f null - 2>&1)" ]
check "mp4: 30 frames decoded" [ "$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 out.mp4)" = 30 ]
check "mp4: lasts 3 s" [ "$(ffprobe -v error -show_entries format=duration -of csv=p=0 out.mp4)" = "3.000000" ]

# Failing at the end, in the join: under a file size limit of 3.5 MB, above
# a segment's (about 0.9 MB) and a checkpoint plane's (2.8 MB) but below the
# whole video's (4.7 MB), every frame is done, nothing is in place and the
# record is kept; --resume renders nothing and joins.
prlimit --fsize=3500000 "$RR" s.json -q -j1 -s output.codec=ffv1 -o lim.mkv --save-state lim --state-every 5 \
    2> /dev/null; rc=$?
check "a join that fails: status 1, no output" [ $rc -eq 1 -a ! -e lim.mkv ]
check "a join that fails: the record of the last frame kept" grep -q '"checkpoint":[[:space:]]*29' lim/resume-000000-000029.json
resumed lim -s output.codec=ffv1 -o lim.mkv
decoded lim.mkv > lim.md5
check "lim: the joined video decodes to --hash's frames" cmp -s lim.md5 whole.hash

# A segment's failure names the output, as without segments.
echo '{ "grid": { "width": 8, "height": 256 }, "time": { "frames": 3 } }' > tiny.json
"$RR" tiny.json -q -o tiny.mkv -s output.codec=libx265 2> err.plain
"$RR" tiny.json -q -o tiny.mkv -s output.codec=libx265 --save-state tiny 2> err
check "a segment's failure names the output" grep -q '^ripplerender: tiny.mkv: cannot open the libx265' err
check "... in the same line as without --save-state" cmp -s err err.plain
check "... and leaves no record" [ -z "$(ls tiny)" ]

# Nothing to resume from (an empty DIR): from the start. A completed
# render's DIR (checkpoints, no record) is refused without -y.
mkdir empty; rm -f out.framemd5
resumed empty -o out.framemd5
check "an empty DIR: rendered from the start" cmp -s ref.framemd5 out.framemd5
R --save-state empty --state-every 5 --resume -o out2.framemd5 2> err; rc=$?
check "a completed render's DIR: refused without -y" [ $rc -eq 1 -a ! -e out2.framemd5 ]
check "... saying there is nothing to resume" grep -q "no interrupted render to resume" err

# Refusals, on a PNG render killed right after checkpoint 10.
rm -rf png; mkdir png
killed 10 bad -o 'png/f%03d.png'
refused() {   # NAME STATUS TEXT ARGS...: one line with TEXT, that status
    what=$1 want=$2 text=$3; shift 3
    R "$@" > /dev/null 2> err; rc=$?
    check "$what: status $want" [ $rc -eq "$want" ]
    check "$what: one line" [ "$(wc -l < err)" -eq 1 ]
    check "$what: says $text" grep -qF -- "$text" err
}
P='png/f%03d.png'
refused "--resume without --save-state" 2 "--resume: needs --save-state DIR" -o "$P" --resume
refused "another scene" 2 "--resume bad: the interrupted render had other settings: solver.damping is 0.99 in the interrupted render, 0.98 here" \
    --save-state bad --state-every 5 --resume -o "$P" -s solver.damping=0.98
refused "other output settings" 2 "render.colormap is \"viridis\" in the interrupted render, \"magma\" here" \
    --save-state bad --state-every 5 --resume -o "$P" -s render.colormap=magma
refused "another output" 2 'output.path is "png/f%03d.png" in the interrupted render, "png/g%03d.png" here' \
    --save-state bad --state-every 5 --resume -o 'png/g%03d.png'
refused "another --state-every" 2 "state_every is 5 in the interrupted render, 4 here" \
    --save-state bad --state-every 4 --resume -o "$P"
refused "a GIF cannot be resumed" 2 "a GIF is written in one piece and cannot be resumed" \
    --save-state bad --state-every 5 --resume -o x.gif
refused "a fresh run into an interrupted render's DIR" 1 "holds an interrupted render" \
    --save-state bad --state-every 5 -o "$P"
cp png/f003.png keep.png
printf x >> png/f003.png
refused "a kept frame changed" 2 "png/f003.png, written by the interrupted render, was changed since" \
    --save-state bad --state-every 5 --resume -o "$P"
rm png/f003.png
refused "a kept frame missing" 2 "png/f003.png, written by the interrupted render, is missing" \
    --save-state bad --state-every 5 --resume -o "$P"
mv keep.png png/f003.png
resumed bad -o "$P"
check "bad: after the refusals, the PNG files are the whole run's" diff -r ref-png png
killed 10 seg -s output.codec=ffv1 -o seg.mkv
rm seg/part-000000.mkv
refused "a segment missing" 2 "seg/part-000000.mkv, written by the interrupted render, is missing" \
    --save-state seg --state-every 5 --resume -s output.codec=ffv1 -o seg.mkv
# A record whose checkpoint is not the end of its segments (edited): refused
# before anything is rendered, its segments untouched (a resume from the
# earlier checkpoint would write a segment of the same name over a kept one).
killed 20 seg2 -s output.codec=ffv1 -o seg2.mkv
python3 -c 'import json,sys; f=sys.argv[1]; r=json.load(open(f)); assert r["checkpoint"] >= 10
r["checkpoint"] -= 5; json.dump(r, open(f, "w"))' seg2/resume-000000-000029.json
sum=$(cat seg2/part-* | md5sum)
refused "segments past the checkpoint" 2 "seg2/resume-000000-000029.json: segments: not as ripplerender writes it" \
    --save-state seg2 --state-every 5 --resume -s output.codec=ffv1 -o seg2.mkv
check "... its segments untouched" [ "$(cat seg2/part-* | md5sum)" = "$sum" -a ! -e seg2.mkv ]
# Numbers past any frame count or file size in a record (edited): refused
# the same way (converting them to a whole number was undefined behaviour).
for big in 1e30 -1e30 9223372036854775808 1e300; do
    python3 -c 'import json,sys; f=sys.argv[1]; r=json.load(open(f)); r["checkpoint"] = float(sys.argv[2])
json.dump(r, open(f, "w"))' seg2/resume-000000-000029.json "$big"
    refused "checkpoint $big" 2 "seg2/resume-000000-000029.json: checkpoint: not as ripplerender writes it" \
        --save-state seg2 --state-every 5 --resume -s output.codec=ffv1 -o seg2.mkv
done
check "... its segments untouched" [ "$(cat seg2/part-* | md5sum)" = "$sum" -a ! -e seg2.mkv ]
# Two runs on one range of one DIR at once (a resume started twice): the
# second is refused (status 1) before it touches anything; the first completes.
rm -rf twice twice.mkv
"$RR" s.json -q -j1 --save-state twice --state-every 5 -s output.codec=ffv1 -o twice.mkv 2> /dev/null & pid=$!
while [ ! -e twice/state-000005.json ] && kill -0 $pid 2> /dev/null; do sleep 0.005; done
R --save-state twice --state-every 5 --resume -s output.codec=ffv1 -o twice.mkv 2> err; rc=$?
wait $pid; rc1=$?
check "a second run on the same range: refused" [ $rc -eq 1 -a $rc1 -eq 0 ]
check "... saying another render writes there" grep -q "^ripplerender: --save-state twice: another render is writing frames 0 to 29 there" err
check "... the first completed" [ -e twice.mkv -a -z "$(ls twice | grep -v "^state-")" ]
# DIR that is a file: named as --save-state's (not --resume's, not given);
# a file in the way is run-time I/O, status 1, as for an output under a file
# (was 2)
echo x > afile
refused "DIR a file" 1 "ripplerender: --save-state afile: not a folder" --save-state afile -o x.framemd5
refused "DIR a file, --resume" 1 "ripplerender: --save-state afile: not a folder" --save-state afile --resume -o x.framemd5
# A stop signal before the first frame (here during a long preroll, once the
# run holds the resume folder's lock): nothing was rendered, so nothing may
# be taken as done. Before, the run closed an empty segment part-000000 and
# saved the state at frame 0 as a checkpoint: --resume then went on from
# frame 1, and the output lacked frame 0 (a .framemd5 of 29 frames, status
# 0) or failed joining the empty segment (a video, status 1, after the
# whole render).
for out in early.framemd5 'early%03d.png'; do
    rm -rf early early*.png early.framemd5
    "$RR" s.json -q -j1 -s grid.width=240 -s grid.height=180 -s time.preroll=3 -o "$out" --save-state early 2> err & pid=$!
    k=0; while [ ! -e early/.resume.lock ] && [ $k -lt 1200 ] && kill -0 $pid 2> /dev/null; do sleep 0.05; k=$((k + 1)); done
    kill -TERM $pid; wait $pid; s=$?
    cond "early-stop-nothing-written-$out" '[ $s -eq 130 ] && grep -q "interrupted before the first frame; nothing written" err'
    "$RR" s.json -q -j1 -s grid.width=240 -s grid.height=180 -s time.preroll=3 -o "$out" --save-state early --resume 2> err; s=$?
    "$RR" s.json -q -j1 -s grid.width=240 -s grid.height=180 -s time.preroll=3 --hash > early.hash
    case $out in
    *.framemd5) got=$(awk -F', *' '!/^#/ { print $2, $6 }' early.framemd5) ;;
    *) got=$(for f in early0*.png; do decoded "$f" | sed "s/^0 /$(echo "$f" | tr -dc 0-9 | sed 's/^0*\(.\)/\1/') /"; done) ;;
    esac
    cond "early-stop-resume-whole-$out" '[ $s -eq 0 ] && [ "$got" = "$(cat early.hash)" ] && [ -z "$(find early . -maxdepth 1 \( -name "resume-*.json" -o -name "part-*" -o -name ".*.tmp" \) -print)" ]'
done

# A file of the user's in DIR named as a segment of another kind
# (part-K.txt, part-K.png of a set written elsewhere) is not a stray
# segment of this run's: a render into DIR leaves it (was: removed when
# K was in the run's range, whatever its extension).
rm -rf own; mkdir own
echo mine > own/part-000001.txt; echo mine > own/part-000002.png
"$RR" s.json -q -j1 -s grid.width=64 -s grid.height=48 -f 4 -o own.framemd5 --save-state own --state-every 2 2> err; s=$?
cond own-files-kept '[ $s -eq 0 ] && [ "$(cat own/part-000001.txt own/part-000002.png)" = "mine
mine" ]'

# Two renders of overlapping ranges into one DIR at once (a range re-chunked
# while the old chunk still runs): they would write the same checkpoints
# and segments (part-K for the same K), and each one's end removes the
# segments the other's record names. The second is refused at once, naming
# the first's frames, as a second run of the same range is. Before, only
# the range's first frame was locked: -y runs of 0-29 and 10-39 ended with
# 'join: st/part-000026.mkv ends at frame 29 but st/part-000031.mkv starts
# at frame 31' or 'st/part-000011.mkv: cannot open', one of them lost.
rm -rf ov ov.hash; mkdir ov
"$RR" s.json -q -j1 -f 400 -s output.codec=ffv1 -o ov/a.mkv --save-state ov/st --state-every 5 --hash > ov.hash 2> /dev/null & pid=$!
frames_done ov.hash $pid 2
"$RR" s.json -q -j1 -f 400 -s output.codec=ffv1 --range 3-6 -o ov/b.mkv --save-state ov/st --state-every 5 -y 2> err; s=$?
kill -TERM $pid; wait $pid
cond overlapping-ranges-refused '[ $s -eq 1 ] && [ "$(cat err)" = "ripplerender: --save-state ov/st: another render is writing frames 0 to 399 there now (it holds ov/st/.resume.lock): wait for it to end" ] && [ ! -e ov/b.mkv ]'

# Standard error stays the run's while a video's segments close on their
# own thread as the next opens: both send file descriptor 2 to a temporary
# around their library calls (sink_stderr_hold), and interleaved, the later
# put back the earlier's temporary. Before, everything written after that
# (the progress lines, an interruption's or a failure's line) went to an
# unnamed file: of five 40-frame runs checkpointed at every frame, most
# ended without their last progress line, and the line saying what a stop
# kept was lost (seen at -j2; the timing at -j1 hid it).
rm -rf vs; mkdir vs; seg_lost=0
for i in 1 2 3 4 5; do
    rm -rf vs/st vs/o.mkv
    "$RR" s.json -j2 -s grid.width=64 -s grid.height=48 -s time.steps_per_frame=1 -f 40 -s output.codec=ffv1 \
        -o vs/o.mkv --save-state vs/st --state-every 1 --progress always 2> err
    tr '\r' '\n' < err | grep -q '^frame 40/40 written' || seg_lost=$((seg_lost + 1))
done
cond segments-stderr-kept '[ $seg_lost -eq 0 ]'
rm -rf vs/st vs/o.mkv; rm -f vs.hash
"$RR" s.json -q -j2 -s grid.width=240 -s grid.height=180 -s time.steps_per_frame=200 -f 200 -s output.codec=ffv1 \
    -o vs/o.mkv --save-state vs/st --state-every 1 --hash > vs.hash 2> err & pid=$!
frames_done vs.hash $pid 30; kill -INT $pid; wait $pid; s=$?
cond segments-stderr-interrupt-line '[ $s -eq 130 ] && grep -q "^ripplerender: interrupted after [0-9]* of 200 frames; vs/o.mkv holds the frames so far" err'

# An interrupted render's record names segments part-K of its range; a
# later render (-y, or a --resume) of a range overlapping it, into the same
# DIR, would write segments of the same names and sweep the others as
# strays. It is refused (status 1), naming the record and how to discard
# it; the interrupted render then resumes whole. Before, a -y render of
# frames 10-19 removed st/part-000010.framemd5 and the --resume failed
# "is missing".
rm -rf ovr ovr.hash ovr.framemd5; mkdir ovr
R -o ovr/whole.framemd5
"$RR" s.json -q -j1 -o ovr.framemd5 --save-state ovr/st --state-every 5 --hash > ovr.hash 2> /dev/null & pid=$!
frames_done ovr.hash $pid 16; kill -TERM $pid; wait $pid; s=$?
check "overlap: first render interrupted" [ $s -eq 130 -a -e ovr/st/resume-000000-000029.json ]
R --range 10-19 -o ovr/b.framemd5 --save-state ovr/st --state-every 5 -y 2> err; s=$?
cond overlap-other-record-refused '[ $s -eq 1 ] && [ "$(wc -l < err)" -eq 1 ] && grep -qF "ripplerender: --save-state ovr/st: holds an interrupted render of frames 0 to 29 (ovr/st/resume-000000-000029.json) overlapping frames 10 to 19" err && [ ! -e ovr/b.framemd5 ]'
R -o ovr.framemd5 --save-state ovr/st --state-every 5 --resume 2> err; s=$?
cond overlap-first-resumes-whole '[ $s -eq 0 ] && [ ! -s err ] && cmp -s ovr.framemd5 ovr/whole.framemd5'
# Disjoint ranges share DIR as before (a farm's chunks).
R --range 10-19 -o ovr/b.framemd5 --save-state ovr/st --state-every 5 -y 2> err; s=$?
cond overlap-after-completion-runs '[ $s -eq 0 ] && [ -e ovr/b.framemd5 ]'

# A SIGKILL after a completed render removed its record and before it
# removed its segments leaves part-K files of a record that is gone: the
# --resume that follows (nothing to resume: refused, status 1) sweeps
# them, as any later run of that range does, so no orphan stays to be
# taken for a kept segment. Made here by putting an interrupted run's
# segments back after the completed resume. Before, the refused --resume
# left them.
rm -rf orph orph.hash orph.framemd5 orph-parts; mkdir orph orph-parts
"$RR" s.json -q -j1 -o orph.framemd5 --save-state orph/st --state-every 5 --hash > orph.hash 2> /dev/null & pid=$!
frames_done orph.hash $pid 12; kill -TERM $pid; wait $pid
cp orph/st/part-* orph-parts/
R -o orph.framemd5 --save-state orph/st --state-every 5 --resume 2> err; s=$?
cp orph-parts/* orph/st/; echo mine > orph/st/part-000001.txt
R -o orph.framemd5 --save-state orph/st --state-every 5 --resume 2> err; s2=$?
cond orphan-segments-swept '[ $s -eq 0 ] && [ $s2 -eq 1 ] && grep -q "no interrupted render to resume" err && [ -z "$(ls orph/st | grep "^part-.*framemd5")" ] && [ -e orph/st/part-000001.txt ]'
finish

# `ripplerender join` (docs/farm.md, "Joining"): the parts of a run (--chunk)
# joined into one video without re-encoding, and their manifests into one.
# Lossless ffv1 in .mkv: the joined video's decoded frames are bit for bit the
# whole run's (--hash). Lossy h264 (.mp4) and vp9 (.webm) parts are encoded
# apart (other key frames than a whole encode), so there the joined file must
# hold every frame, once, in order, decodable, with the whole run's duration,
# and play to its end in headless Chromium. Then every refusal.
. tests/cli/lib.sh
small_scene "$T/s.json"
cd "$T" || exit 1
# framemd5 of a file's decoded rgb24 frames as "N md5" lines (--hash's form).
decoded() { ffmpeg -v error -i "$1" -pix_fmt rgb24 -f framemd5 - | awk -F', *' '!/^#/ { print $2, $6 }'; }

"$RR" s.json --hash -q > whole.hash
for k in mkv mp4 webm; do
    set -- ; [ $k = mkv ] && set -- --set output.codec=ffv1
    "$RR" s.json "$@" -o whole.$k --manifest whole.$k.json -q
    for c in 0 1 2; do "$RR" s.json "$@" --chunk $c/3 -o p$c.$k --manifest p$c.$k.json -q; done
    "$RR" join p0.$k p1.$k p2.$k -o j.$k 2> err; s=$?
    check "join-$k" [ $s -eq 0 ]
    check "join-$k-silent" [ ! -s err ]
    # the parts' packets are copied: nothing re-encoded
    for f in p0 p1 p2; do ffprobe -v error -show_entries packet=size -of csv=p=0 $f.$k; done > parts.sizes
    ffprobe -v error -show_entries packet=size -of csv=p=0 j.$k > joined.sizes
    check "join-$k-no-reencode" cmp -s parts.sizes joined.sizes
    decoded j.$k > j.$k.md5
    check "join-$k-frames" [ "$(wc -l < j.$k.md5)" -eq 10 ]
    check "join-$k-numbers" [ "$(awk '{ printf "%s ", $1 }' j.$k.md5)" = "0 1 2 3 4 5 6 7 8 9 " ]
    check "join-$k-duration" [ "$(ffprobe -v error -show_entries format=duration -of csv=p=0 j.$k)" = "1.000000" ]
    check "join-$k-decodes" [ -z "$(ffmpeg -v error -xerror -i j.$k -f null - 2>&1)" ]
    pts=$(ffprobe -v error -show_entries frame=pts_time -of default=nw=1:nk=1 j.$k | tr '\n' ' ')
    check "join-$k-timestamps" [ "$pts" = "0.000000 0.100000 0.200000 0.300000 0.400000 0.500000 0.600000 0.700000 0.800000 0.900000 " ]
done
# lossless: bit for bit the whole run's frames, and the whole encode's
check join-mkv-equals-hash cmp -s j.mkv.md5 whole.hash
decoded whole.mkv > whole.mkv.md5
check join-mkv-equals-whole cmp -s j.mkv.md5 whole.mkv.md5
# h264 in .mkv (the .mkv default): Matroska stores no decoding timestamps, so
# a part's first packets come back without one; the join must still give
# every frame once, in order, decodable
for c in 0 1 2; do "$RR" s.json -s time.fps=30 -f 15 --chunk $c/3 -o h$c.mkv -q; done
"$RR" join h0.mkv h1.mkv h2.mkv -o hj.mkv 2> err
check join-h264-mkv [ $? -eq 0 -a ! -s err ]
decoded hj.mkv > hj.md5
check join-h264-mkv-frames [ "$(awk '{ printf "%s ", $1 }' hj.md5)" = "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 " ]
check join-h264-mkv-decodes [ -z "$(ffmpeg -v error -xerror -i hj.mkv -f null - 2>&1)" ]
# ten parts of one frame each, joined with descriptors for a few files only
for c in 0 1 2 3 4 5 6 7 8 9; do "$RR" s.json --set output.codec=ffv1 --chunk $c/10 -o t$c.mkv -q; done
(ulimit -n 12; "$RR" join t0.mkv t1.mkv t2.mkv t3.mkv t4.mkv t5.mkv t6.mkv t7.mkv t8.mkv t9.mkv -o t.mkv)
decoded t.mkv > t.md5
check join-10-parts-few-descriptors cmp -s t.md5 whole.hash
# the same with the parts given through the Slurm index and 4 chunks
for c in 0 1 2 3; do SLURM_ARRAY_TASK_ID=$c SLURM_ARRAY_TASK_COUNT=4 "$RR" s.json --set output.codec=ffv1 --chunk -o q$c.mkv -q; done
"$RR" join q0.mkv q1.mkv q2.mkv q3.mkv -o q.mkv
decoded q.mkv > q.md5
check join-4-chunks cmp -s q.md5 whole.hash

if command -v chromium > /dev/null; then
    /usr/bin/python3 "$OLDPWD/tests/cli/play_in_chromium.py" --timeout 15 "$T/j.mp4" "$T/j.webm" > played 2> err
    check player-ran [ $? -eq 0 ]
    for k in mp4 webm; do
        set -- $(grep "^$T/j.$k " played)
        check "join-$k-plays" [ "$2 $3 $4 $6" = "ok 64 48 10" ]
        check "join-$k-plays-duration" awk -v d="$5" 'BEGIN { exit !(d > 0.95 && d < 1.05) }'
    done
else
    fail join-plays "no chromium: install the Debian package chromium (sh .ci/deps.sh test)"
fi

# manifests: the whole run's frames, range and scene
for c in 0 1 2; do cp p$c.mkv.json p$c.json; done
"$RR" join p0.json p1.json p2.json -o j.json; s=$?
check join-manifest [ $s -eq 0 ]
frames() { python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m["range"], m["frame_count"], m["complete"], [(f["frame"], f["md5"]) for f in m["frames"]], json.dumps({k: v for k, v in m["scene"].items() if k != "output"}, sort_keys=True))' "$1"; }
check join-manifest-equals-whole [ "$(frames j.json)" = "$(frames whole.mkv.json)" ]
check join-manifest-timing python3 -c 'import json; t = [json.load(open(f))["timing"]["frames_seconds"] for f in ("p0.json", "p1.json", "p2.json")]; j = json.load(open("j.json"))["timing"]["frames_seconds"]; assert abs(sum(t) - j) < 1e-9'

# refusals: one line, exit status, nothing written
refuse() {   # NAME STATUS EXPECTED-TEXT ARGS...
    name=$1 st=$2 text=$3; shift 3
    rm -f out.mkv out.json
    "$RR" join "$@" 2> err; s=$?
    if [ $s -ne "$st" ]; then fail "$name" "status $s, want $st: $(cat err)"; return; fi
    if [ "$(wc -l < err)" -ne 1 ] || ! grep -qF -- "$text" err; then fail "$name" "message: $(cat err)"; return; fi
    if [ -e out.mkv ] || [ -e out.json ] || ls -a | grep -q '\.tmp$'; then fail "$name" "left a file"; return; fi
    ok "$name"
}
refuse gap 2 "join: p0.mkv ends at frame 2 but p2.mkv starts at frame 6: frames 3 to 5 are missing" p0.mkv p2.mkv -o out.mkv
refuse overlap 2 "join: p0.mkv (frames 0 to 2) and p0.mkv (frames 0 to 2) overlap" p0.mkv p0.mkv -o out.mkv
refuse order 2 "join: p1.mkv (frames 3 to 5) and p0.mkv (frames 0 to 2) overlap or are out of order" p1.mkv p0.mkv -o out.mkv
"$RR" s.json --range 2-5 --set output.codec=ffv1 -o r25.mkv -q
refuse overlap-part 2 "join: p0.mkv (frames 0 to 2) and r25.mkv (frames 2 to 5) overlap" p0.mkv r25.mkv -o out.mkv
refuse codec 2 "join: p0.mkv holds ffv1, p1.mp4 holds h264: joining them would need re-encoding" p0.mkv p1.mp4 -o out.mkv
"$RR" s.json --set output.codec=ffv1 --set grid.width=32 --chunk 1/3 -o small1.mkv -q
refuse size 2 "join: p0.mkv is 64x48, small1.mkv is 32x48" p0.mkv small1.mkv -o out.mkv
"$RR" s.json --set output.codec=ffv1 --set output.pix_fmt=yuv444p --chunk 1/3 -o gbrp1.mkv -q
refuse pix-fmt 2 "join: p0.mkv has pixel format bgr0, gbrp1.mkv has yuv444p" p0.mkv gbrp1.mkv -o out.mkv
"$RR" s.json --set time.fps=20 --set output.codec=ffv1 --range 3-5 -o fps1.mkv -q
refuse fps 2 "join: p0.mkv has 10/1 fps, fps1.mkv has 20/1" p0.mkv fps1.mkv -o out.mkv
"$RR" s.json --set output.crf=30 --chunk 1/3 -o crf1.mp4 -q
refuse settings 2 "join: p0.mp4 and crf1.mp4 were encoded with other settings (codec headers differ)" p0.mp4 crf1.mp4 -o out.mp4
refuse container 2 "-o out.webm: a webm file cannot hold h264 without re-encoding" p0.mp4 p1.mp4 p2.mp4 -o out.webm
echo 'not a video' > junk.mkv
# A part that cannot be opened is bad input (status 2), as a manifest
# part that cannot be read or is not JSON, a scene or a --check file
# (was 1 for a video part, 2 for a manifest part).
refuse junk 2 "junk.mkv: cannot open" junk.mkv -o out.mkv
refuse missing 2 "nothere.mkv: cannot open" nothere.mkv -o out.mkv
refuse missing-manifest 2 "nothere.json: cannot read" nothere.json -o out.json
refuse missing-hash-list 2 "nothere.framemd5: cannot open" nothere.framemd5 -o out.framemd5
refuse gif 2 "join a.gif: GIFs cannot be joined without re-quantising" a.gif b.gif -o out.gif
refuse png 2 "join f%05d.png: a PNG sequence needs no join" 'f%05d.png' -o out.mkv
refuse mixed 2 "join p0.json: a video -o out.mkv joins videos only" p0.mkv p0.json -o out.mkv
refuse no-output 2 "join: no output given (-o OUT)" p0.mkv p1.mkv
refuse no-inputs 2 "join: no inputs given" -o out.mkv
refuse bad-option 2 "join --frobnicate: unknown option" p0.mkv --frobnicate -o out.mkv
refuse output-twice 2 'join --output: given twice ("out.mkv", then "b.mkv"); it takes one output' p0.mkv -o out.mkv --output b.mkv
refuse input-is-output 2 "p0.mkv" p0.mkv p1.mkv -o p0.mkv
refuse no-folder-left 2 "join: p0.mkv ends at frame 2 but p2.mkv starts at frame 6" p0.mkv p2.mkv -o new/dir/out.mkv
check no-folder-left-made [ ! -e new ]
"$RR" join p0.mkv p1.mkv p2.mkv -o made/dir/j.mkv
check folders-made [ -f made/dir/j.mkv ]
refuse exists 1 "j.mkv: already exists (use -y to replace it)" p0.mkv p1.mkv p2.mkv -o j.mkv
decoded j.mkv > jj.md5
check exists-kept cmp -s jj.md5 whole.hash
"$RR" join -y p0.mkv p1.mkv p2.mkv -o j.mkv
check overwrite [ $? -eq 0 ]
refuse manifest-gap 2 "join: p0.json ends at frame 2 but p2.json starts at frame 6: frames 3 to 5 are missing" p0.json p2.json -o out.json
"$RR" s.json --set drops.0.x=30 --chunk 1/3 -o other.mkv --manifest other.json -q
refuse manifest-scene 2 "join: p0.json and other.json were rendered from different scenes" p0.json other.json -o out.json
refuse manifest-exists 1 "j.json: already exists (use -y to replace it)" p0.json p1.json p2.json -o j.json
echo '{' > bad.json
refuse manifest-junk 2 "bad.json: not JSON: not a ripplerender manifest" bad.json -o out.json
# A part's name is a file's name, never a libavformat protocol: a part named
# pipe:1.mkv is that file (was: standard input read, 'pipe:1.mkv: cannot
# open: Invalid data found when processing input', status 1).
cp p1.mkv 'pipe:1.mkv'; rm -f jp.mkv
"$RR" join p0.mkv 'pipe:1.mkv' p2.mkv -o jp.mkv < /dev/null 2> err; s=$?
cond part-named-like-protocol '[ $s -eq 0 ] && [ ! -s err ] && [ "$(decoded jp.mkv)" = "$(cat whole.hash)" ]'
# A video part that is not a regular file is refused at once, as a manifest
# part is (status 2, one line): join reads each part twice (its frames,
# then its packets), which no FIFO or device gives. Before, a FIFO without
# a writer held join in open(2) until a signal came; a folder and
# /dev/zero failed with status 1 ('cannot open: Is a directory', 'Invalid
# data found when processing input').
mkdir -p dir.mkv; ln -sf /dev/zero zero.mkv; rm -f fifo.mkv; mkfifo fifo.mkv
for c in dir:"cannot read: Is a directory" zero:"cannot read: not a regular file" fifo:"cannot read: not a regular file"; do
    n=${c%%:*}; rm -f out.mkv
    timeout 20 "$RR" join p0.mkv $n.mkv -o out.mkv 2> err; s=$?
    cond "part-$n" '[ $s -eq 2 ] && [ "$(cat err)" = "ripplerender: join $n.mkv: ${c#*:}" ] && [ ! -e out.mkv ]'
done
# A manifest that is not a regular file is refused at once, as --load-state's
# header is (status 2, one line): before, a folder failed as 'read failed'
# (status 1), a FIFO without a writer held join in open(2) for ever and a
# link to /dev/zero was read until memory ran out ('out of memory' under
# the ulimit below; without it, the whole machine's).
mkdir -p dir.json; ln -sf /dev/zero zero.json; rm -f fifo.json; mkfifo fifo.json
vmem=2000000; asan_build && vmem=unlimited   # a sanitizer's shadow memory
for c in dir:"cannot read: Is a directory" zero:"cannot read: not a regular file" fifo:"cannot read: not a regular file"; do
    n=${c%%:*}; rm -f out.json
    (ulimit -v $vmem; exec timeout 20 "$RR" join p0.json $n.json -o out.json) 2> err; s=$?
    cond "manifest-$n" '[ $s -eq 2 ] && [ "$(cat err)" = "ripplerender: join $n.json: ${c#*:}" ] && [ ! -e out.json ]'
done
# A manifest's frames are checked, not copied blindly: each frame's number
# in order over its range, each MD5 32 hexadecimal digits, the range two
# whole numbers. Before, frames from another range, out of order, repeated,
# a fraction or an MD5 that is not one were joined into a manifest of the
# whole range (status 0).
edit() {   # edit NAME PYTHON: p1.json with its manifest m changed, as NAME.json
    python3 -c "import json; m = json.load(open('p1.json')); $2; json.dump(m, open('$1.json', 'w'))"
}
edit m-frame 'm["frames"][1]["frame"] = 3'
refuse manifest-frame-number 2 "m-frame.json: frames.1.frame: expected 4 (the range 3 to 5 in order), got 3" p0.json m-frame.json p2.json -o out.json
edit m-fraction 'm["frames"][0]["frame"] = 3.5'
refuse manifest-frame-fraction 2 "m-fraction.json: frames.0.frame: expected 3 (the range 3 to 5 in order), got 3.5" p0.json m-fraction.json p2.json -o out.json
edit m-order 'm["frames"].reverse()'
refuse manifest-frame-order 2 "m-order.json: frames.0.frame: expected 3 (the range 3 to 5 in order), got 5" p0.json m-order.json p2.json -o out.json
edit m-md5 'm["frames"][2]["md5"] = "zz"'
refuse manifest-frame-md5 2 'm-md5.json: frames.2.md5: expected 32 lowercase hexadecimal digits, got "zz"' p0.json m-md5.json p2.json -o out.json
edit m-md5num 'm["frames"][2]["md5"] = 5'
refuse manifest-frame-md5-number 2 'm-md5num.json: frames.2.md5: expected 32 lowercase hexadecimal digits, got 5' p0.json m-md5num.json p2.json -o out.json
edit m-range 'm["range"] = [3.5, 5]'
refuse manifest-range-fraction 2 'm-range.json: range: expected two whole numbers A <= B, got [3.5,5]' p0.json m-range.json p2.json -o out.json
edit m-range-huge 'm["range"] = [3, 1e300]'
refuse manifest-range-huge 2 'm-range-huge.json: range: expected two whole numbers A <= B, got [3,1e+300]' p0.json m-range-huge.json p2.json -o out.json

# A stop signal while the packets are copied (parts of 90 MB of raw video:
# the copy takes a while), and a file size limit: one line, nothing left, not
# the folders made for OUT either, as a run (was: status 143 or 153, no word,
# the folders left).
for r in 0-29 30-59; do
    "$RR" s.json -o big$r.mov -s output.codec=rawvideo -s grid.width=1024 -s grid.height=1024 -s time.frames=60 --range $r -q
done
"$RR" join big0-29.mov big30-59.mov -o gone/here/big.mov 2> err & pid=$!
k=0; while [ ! -d gone/here ] && [ $k -lt 200 ] && kill -0 $pid 2> /dev/null; do sleep 0.01; k=$((k + 1)); done
kill -TERM $pid; wait $pid; s=$?
cond join-sigterm '[ $s -eq 130 ] && [ "$(cat err)" = "ripplerender: join: interrupted; gone/here/big.mov not written" ] && [ ! -e gone ]'
(ulimit -f 1000; "$RR" join big0-29.mov big30-59.mov -o gone/here/big.mov 2> err); s=$?
cond join-file-size-limit '[ $s -eq 1 ] && [ "$(wc -l < err)" -eq 1 ] && grep -q "^ripplerender: gone/here/big.mov: .*File too large" err && [ ! -e gone ]'
rm -f big0-29.mov big30-59.mov
finish

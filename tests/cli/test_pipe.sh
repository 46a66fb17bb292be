# -o -: the frames down standard output (src/sinks/pipe.c) as ffmpeg reads
# them: NUT's rgb24 frames hash as --hash does, y4m has the scene's frame
# count, size and rate and the same bytes as ffmpeg's own BT.601 conversion;
# a reader that stops early, a terminal and --hash are each one line.
. tests/cli/lib.sh
# verdict NAME STATUS: a check of a compound condition run just before
verdict() { if [ "$2" -eq 0 ]; then ok "$1"; else fail "$1" "status $2"; fi; }
small_scene "$T/s.json"
"$RR" "$T/s.json" --hash | awk '{ print $2 }' > "$T/want"

# NUT: ffmpeg's framemd5 of the piped frames is --hash, frame for frame
"$RR" "$T/s.json" -o - -s output.format=nut -q 2> "$T/nut.err" \
    | ffmpeg -v error -f nut -i - -f framemd5 - 2> "$T/ff.err" | grep -v '^#' \
    | awk -F', *' '{ print $6 }' > "$T/got"
[ -s "$T/want" ] && cmp -s "$T/want" "$T/got"; verdict nut-framemd5-equals-hash $?
check nut-ten-frames [ "$(wc -l < "$T/got")" -eq 10 ]
[ ! -s "$T/nut.err" ] && [ ! -s "$T/ff.err" ]; verdict nut-stderr-empty $?

# y4m (the default) through ffmpeg into a file: frames, size, rate
"$RR" "$T/s.json" -o - -q -s render.width=96 -s render.height=72 \
    | ffmpeg -v error -i - -c:v ffv1 "$T/y.mkv"
ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=nb_read_frames,width,height,r_frame_rate,pix_fmt -of csv=p=0 "$T/y.mkv" > "$T/probe"
check y4m-frames-size-rate [ "$(cat "$T/probe")" = "96,72,yuv444p,10/1,10" ]
"$RR" "$T/s.json" -o - 2> /dev/null | head -c 10 > "$T/head"
check y4m-header [ "$(cat "$T/head")" = "YUV4MPEG2 " ]

# y4m's pictures are ffmpeg's own bit-exact BT.601 limited-range conversion
# of the rgb24 frames, for each pixel format
for pf in yuv444p yuv420p gray; do
    "$RR" "$T/s.json" -o - -s output.pix_fmt=$pf | ffmpeg -v error -f yuv4mpegpipe -i - -f framemd5 - \
        | grep -v '^#' > "$T/y4m.$pf"
    "$RR" "$T/s.json" -o - -s output.format=nut \
        | ffmpeg -v error -f nut -i - -sws_flags bicubic+accurate_rnd+full_chroma_int+bitexact \
              -vf scale=out_color_matrix=bt601:out_range=tv -pix_fmt $pf -f framemd5 - | grep -v '^#' > "$T/conv.$pf"
    [ "$(wc -l < "$T/y4m.$pf")" -eq 10 ] && cmp -s "$T/y4m.$pf" "$T/conv.$pf"; verdict "y4m-$pf-is-ffmpeg-conversion" $?
done

# a reader that stops early: one line, exit 130, no SIGPIPE death
sh -c '"$1" "$2" -o - -f 200 2> "$3"; echo $? > "$4"' _ "$RR" "$T/s.json" "$T/early.err" "$T/rc" \
    | head -c 100 > /dev/null
check early-reader-exit-130 [ "$(cat "$T/rc")" = 130 ]
check early-reader-one-line [ "$(wc -l < "$T/early.err")" -eq 1 ]
check early-reader-says-so grep -q 'standard output was closed (its reader went away)' "$T/early.err"

# a terminal is refused before anything is written
if command -v script > /dev/null; then
    script -qec "'$RR' '$T/s.json' -o -; echo rc=\$?" /dev/null > "$T/tty" 2>&1
    check tty-refused grep -q 'standard output is a terminal' "$T/tty"
    check tty-exit-2 grep -q 'rc=2' "$T/tty"
    check tty-nothing-written [ "$(grep -c . "$T/tty")" -eq 2 ]
else
    echo "skip tty-refused: no script(1)"
fi

# --hash also writes to standard output: refused, one line, exit 2
"$RR" "$T/s.json" -o - --hash > "$T/both" 2> "$T/both.err"; rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$T/both" ]; verdict hash-conflict-exit-2 $?
[ "$(wc -l < "$T/both.err")" -eq 1 ] && grep -q -- '-o - and --hash' "$T/both.err"; verdict hash-conflict-one-line $?

# output.format and the pixel formats each stream takes
"$RR" "$T/s.json" -o - -s output.format=mp4 > /dev/null 2> "$T/fmt.err"; rc=$?
[ "$rc" -eq 2 ] && grep -q 'output.format: expected one of "y4m", "nut", got "mp4"' "$T/fmt.err"; verdict bad-format-refused $?
"$RR" "$T/s.json" -o - -s output.pix_fmt=rgb24 > /dev/null 2> "$T/pf.err"; rc=$?
[ "$rc" -eq 2 ] && grep -q 'output.pix_fmt: "rgb24" is not a pixel format of output.format y4m' "$T/pf.err"; verdict y4m-rgb24-refused $?
# The scene and --check both from standard input: refused before either is
# read (was: the scene took it all, then "-: no frame hashes in the file").
"$RR" - --check - < "$T/s.json" > /dev/null 2> "$T/in.err"; rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$T/in.err")" = "ripplerender: the scene (-) and --check - both read standard input; give one of them a file (see ripplerender --help)" ]; verdict stdin-twice-refused $?
finish

# Errors from inside FFmpeg's libraries reach the user as one line of ours,
# carrying the library's reason; its chatter never reaches standard error.
. tests/cli/lib.sh

# libx265 refuses a 10-cell-wide picture: one line, the library's reason, exit 2.
echo '{ "grid": { "width": 10, "height": 256 }, "time": { "frames": 2 } }' > "$T/narrow.json"
"$RR" "$T/narrow.json" -s output.codec=libx265 -o "$T/n.mkv" -q 2> "$T/err"; s=$?
check x265-too-small-exit-2 [ $s -eq 2 ]
check x265-too-small-one-line [ "$(wc -l < "$T/err")" -eq 1 ]
check x265-too-small-reason grep -q 'cannot open the libx265 encoder: Image size is too small' "$T/err"
check x265-too-small-no-output [ ! -e "$T/n.mkv" ]

# Debian's libx265 3.5 corrupts its heap on some pictures under 64 pixels a
# side (48 x 28 aborts ffmpeg itself in free()): refused before encoding, exit 2.
echo '{ "grid": { "width": 48, "height": 28 }, "time": { "frames": 14 } }' > "$T/small.json"
"$RR" "$T/small.json" -s output.codec=libx265 -o "$T/s.mp4" -q 2> "$T/err"; s=$?
check x265-under-64-exit-2 [ $s -eq 2 ]
check x265-under-64-one-line [ "$(wc -l < "$T/err")" -eq 1 ]
check x265-under-64-names-size grep -q 'output.codec: libx265 needs a picture of at least 64 x 64 pixels, got 48 x 28' "$T/err"
check x265-under-64-no-output [ ! -e "$T/s.mp4" ]

# A working libx265 run prints nothing at all (x265 logs past av_log unless told).
echo '{ "grid": { "width": 64, "height": 64 }, "time": { "frames": 3 } }' > "$T/ok.json"
"$RR" "$T/ok.json" -s output.codec=libx265 -o "$T/ok.mkv" -q 2> "$T/err"; s=$?
check x265-ok-exit-0 [ $s -eq 0 ]
check x265-ok-silent [ ! -s "$T/err" ]

finish

# Start-up: the program loads libavcodec, libavformat and libavfilter only
# when a run calls them (src/lazy/lazyav.c). A hashed run, a PNG sequence and
# an .npy never load them; an mp4, a GIF and --manifest (which records their
# versions) do. A library that
# cannot be loaded fails the run that needs it in one line naming it (status
# 1, no output, no temporary) and leaves the runs that do not need it alone;
# so does one of the wrong version, whose functions call what the libraries
# beside it lack (found when it is loaded, not when a function is called:
# the loader's own "symbol lookup error" would end the run with status 127).
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh
small_scene "$T/s.json"

# loads NAME ARGS...: the shared objects the run loaded (glibc's LD_DEBUG=files), into $T/NAME.libs.
loads() { n=$1; shift; LD_DEBUG=files "$RR" "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*generating link map.*/\1/p' | sort -u > "$T/$n.libs"; }
loads probe --version
if [ ! -s "$T/probe.libs" ]; then
    echo "skip startup: the C library does not say what it loads (LD_DEBUG=files is glibc's)"
    finish; exit
fi
has() { grep -q "^$2\.so" "$T/$1.libs"; }
loads hash "$T/s.json" --hash -q
loads png "$T/s.json" -o "$T/png/f%03d.png" -y -q
loads npy "$T/s.json" -o "$T/h.npy" -y -q
loads mp4 "$T/s.json" -o "$T/v.mp4" -y -q
loads gif "$T/s.json" -o "$T/v.gif" -y -q
loads man "$T/s.json" --hash -q --manifest "$T/m.json"
for run in hash png npy; do
    for lib in libavcodec libavformat libavfilter; do
        check "$run-without-$lib" eval '! has $run $lib'
    done
    check "$run-with-libavutil" has $run libavutil
done
check mp4-loads-libavformat has mp4 libavformat
check mp4-loads-libavcodec has mp4 libavcodec
check gif-loads-libavfilter has gif libavfilter
check manifest-loads-libavfilter has man libavfilter
check manifest-names-libavcodec grep -q libavcodec "$T/m.json"
check mp4-written [ -s "$T/v.mp4" ]
check gif-written [ -s "$T/v.gif" ]

# A libavcodec that is not a library, found first through LD_LIBRARY_PATH.
mkdir "$T/bad"
so=$(sed -n 's/^\(libavcodec\.so\.[0-9]*\)$/\1/p' "$T/mp4.libs" | head -n 1)
[ -n "$so" ] || so=$(sed -n 's/^\(libavcodec\.so\.[0-9]*\).*/\1/p' "$T/mp4.libs" | head -n 1)
echo "not a library" > "$T/bad/$so"
LD_LIBRARY_PATH="$T/bad" "$RR" "$T/s.json" --hash -q > "$T/bad.hash" 2> "$T/bad.err"
check bad-lib-hash-runs [ $? -eq 0 ]
"$RR" "$T/s.json" --hash -q > "$T/good.hash"
check bad-lib-hash-same cmp -s "$T/good.hash" "$T/bad.hash"
check bad-lib-hash-silent [ ! -s "$T/bad.err" ]
mkdir "$T/out"
LD_LIBRARY_PATH="$T/bad" "$RR" "$T/s.json" -o "$T/out/v.mp4" -q > /dev/null 2> "$T/badmp4.err"
check bad-lib-mp4-status [ $? -eq 1 ]
check bad-lib-mp4-one-line [ "$(wc -l < "$T/badmp4.err")" -eq 1 ]
check bad-lib-mp4-names-it grep -q "^ripplerender: .*$so" "$T/badmp4.err"
check bad-lib-mp4-nothing-left [ -z "$(ls -A "$T/out")" ]
# --validate loads the libraries its output's run will load, and fails as
# that run does: the same line, status 1, no "valid" line; an output that
# does not need them still validates.
for out in v.mp4 v.mkv v.gif x.framemd5 -; do
    n=$(echo "$out" | tr -c 'a-z0-9\n' _); o=$T/out/$out; [ "$out" = - ] && o=-
    LD_LIBRARY_PATH="$T/bad" "$RR" "$T/s.json" -o "$o" -q > "$T/run-$n.out" 2> "$T/run-$n.err"; rs=$?
    LD_LIBRARY_PATH="$T/bad" "$RR" "$T/s.json" -o "$o" --validate > "$T/val-$n.out" 2> "$T/val-$n.err"; s=$?
    cond "bad-lib-validate-$n-status" "[ $s -eq 1 ] && [ $rs -eq 1 ]"
    check "bad-lib-validate-$n-same-line" cmp -s "$T/run-$n.err" "$T/val-$n.err"
    check "bad-lib-validate-$n-one-line" [ "$(wc -l < "$T/val-$n.err")" -eq 1 ]
    check "bad-lib-validate-$n-not-valid" [ ! -s "$T/val-$n.out" ]
done
LD_LIBRARY_PATH="$T/bad" "$RR" "$T/s.json" --hash --manifest "$T/out/m.json" --validate > "$T/valm.out" 2> "$T/valm.err"; s=$?
cond bad-lib-validate-manifest-fails '[ $s -eq 1 ] && [ ! -s "$T/valm.out" ] && grep -q "^ripplerender: .*$so" "$T/valm.err"'
# (the .npy's --validate warns, as its run does, of the scene's render keys
# that act on nothing there: that line alone)
for out in f%03d.png h.npy; do
    LD_LIBRARY_PATH="$T/bad" "$RR" "$T/s.json" -o "$T/out/$out" --validate > "$T/val.out" 2> "$T/val.err"; s=$?
    cond "bad-lib-validate-$out-valid" '[ $s -eq 0 ] && grep -q ": valid " "$T/val.out" && ! grep -v "^ripplerender: warning: .* not used by a .npy file" "$T/val.err" | grep -q .'
done
LD_LIBRARY_PATH="$T/bad" "$RR" "$T/s.json" --hash --validate > "$T/val.out" 2> "$T/val.err"; s=$?
cond bad-lib-validate-hash-valid '[ $s -eq 0 ] && grep -q ": valid " "$T/val.out" && [ ! -s "$T/val.err" ]'
check bad-lib-validate-nothing-left [ -z "$(ls -A "$T/out")" ]
# A broken libavfilter: only a GIF's run (and --manifest) needs it.
fso=$(sed -n 's/^\(libavfilter\.so\.[0-9]*\).*/\1/p' "$T/gif.libs" | head -n 1)
mkdir "$T/badf"
echo "not a library" > "$T/badf/$fso"
LD_LIBRARY_PATH="$T/badf" "$RR" "$T/s.json" -o "$T/out/v.gif" --validate > "$T/val.out" 2> "$T/val.err"; s=$?
cond bad-filter-validate-gif-fails '[ $s -eq 1 ] && [ ! -s "$T/val.out" ] && grep -q "^ripplerender: .*$fso" "$T/val.err"'
LD_LIBRARY_PATH="$T/badf" "$RR" "$T/s.json" -o "$T/out/v.mp4" --validate > "$T/val.out" 2> "$T/val.err"; s=$?
cond bad-filter-validate-mp4-valid '[ $s -eq 0 ] && grep -q ": valid " "$T/val.out"'
# --validate of outputs that never need them loads none of them.
loads vpng "$T/s.json" -o "$T/png/f%03d.png" --validate
loads vnpy "$T/s.json" -o "$T/h.npy" --validate
loads vexr "$T/s.json" -o "$T/e/h%03d.exr" -s render.mode=height -s output.bit_depth=32 --validate
loads vhash "$T/s.json" --hash --validate
for run in vpng vnpy vexr vhash; do
    for lib in libavcodec libavformat libavfilter; do
        check "$run-without-$lib" eval '! has $run $lib'
    done
done
loads vmp4 "$T/s.json" -o "$T/v.mp4" --validate
check validate-mp4-loads-libavformat has vmp4 libavformat

# A libavcodec of the wrong version: every function the program calls is
# there, but calls a function that no library loaded defines (as one built
# against a newer libavutil would).
if command -v "${CC:-cc}" > /dev/null; then
    mkdir "$T/wrong"
    fns=$(sed -n 's/^LAZY\(_VOID\)\{0,1\}(LIB_AVCODEC, \([^,]*, \)\{0,1\}\([a-z_0-9]*\), .*/\3/p' src/lazy/lazyav.c)
    { echo 'extern void *rr_test_missing_in_libavutil(void);'
      for f in $fns; do echo "void *$f(void) { return rr_test_missing_in_libavutil(); }"; done; } > "$T/wrong.c"
    "${CC:-cc}" -shared -fPIC -o "$T/wrong/$so" "$T/wrong.c"
    check wrong-lib-has-the-functions [ "$(echo "$fns" | wc -w)" -ge 20 ]
    mkdir "$T/out2"
    LD_LIBRARY_PATH="$T/wrong" "$RR" "$T/s.json" -o "$T/out2/sub/v.mp4" -q > /dev/null 2> "$T/wrong.err"; s=$?
    check wrong-lib-mp4-status [ $s -eq 1 ]
    check wrong-lib-mp4-one-line [ "$(wc -l < "$T/wrong.err")" -eq 1 ]
    check wrong-lib-mp4-names-it grep -q "^ripplerender: .*$so.*rr_test_missing_in_libavutil" "$T/wrong.err"
    check wrong-lib-mp4-nothing-left [ -z "$(ls -A "$T/out2")" ]
    LD_LIBRARY_PATH="$T/wrong" "$RR" "$T/s.json" -o "$T/out2/sub/v.mp4" --validate > "$T/wrongv.out" 2> "$T/wrongv.err"; s=$?
    cond wrong-lib-validate-mp4-fails '[ $s -eq 1 ] && [ ! -s "$T/wrongv.out" ] && cmp -s "$T/wrong.err" "$T/wrongv.err"'
    LD_LIBRARY_PATH="$T/wrong" "$RR" "$T/s.json" --hash -q > "$T/wrong.hash" 2> "$T/wrong2.err"
    check wrong-lib-hash-runs cmp -s "$T/good.hash" "$T/wrong.hash"
else
    echo "skip wrong-lib: no C compiler"
fi

# A libavfilter that loads but lacks one function the program calls (here
# av_buffersink_get_frame, which a GIF's run calls only once frames come):
# its first call resolves every function of the library, so a GIF's run
# fails before its first frame, and --validate as it does, with one line
# naming the function, status 1, nothing left. Nothing else loads
# libavfilter, so the stub's other functions (returning 0) are never run.
if command -v "${CC:-cc}" > /dev/null; then
    mkdir "$T/miss" "$T/out3"
    fns=$(sed -n 's/^LAZY\(_VOID\)\{0,1\}(LIB_AVFILTER, \([^,]*, \)\{0,1\}\([a-z_0-9]*\), .*/\3/p' src/lazy/lazyav.c)
    for f in $fns; do [ "$f" = av_buffersink_get_frame ] || echo "void *$f(void) { return 0; }"; done > "$T/miss.c"
    "${CC:-cc}" -shared -fPIC -o "$T/miss/$fso" "$T/miss.c"
    check missing-fn-stub-has-the-others [ "$(echo "$fns" | wc -w)" -ge 10 ]
    want="ripplerender: $fso: no function av_buffersink_get_frame"
    LD_LIBRARY_PATH="$T/miss" "$RR" "$T/s.json" -o "$T/out3/sub/v.gif" -q > /dev/null 2> "$T/miss.err"; s=$?
    cond missing-fn-gif-fails '[ $s -eq 1 ] && [ "$(cat "$T/miss.err")" = "$want" ] && [ -z "$(ls -A "$T/out3")" ]'
    LD_LIBRARY_PATH="$T/miss" "$RR" "$T/s.json" -o "$T/out3/v.gif" --validate > "$T/miss.out" 2> "$T/missv.err"; s=$?
    cond missing-fn-validate-gif-fails '[ $s -eq 1 ] && [ ! -s "$T/miss.out" ] && [ "$(cat "$T/missv.err")" = "$want" ]'
    LD_LIBRARY_PATH="$T/miss" "$RR" "$T/s.json" -o "$T/out3/v.mp4" --validate > "$T/miss.out" 2> "$T/missv.err"; s=$?
    cond missing-fn-validate-mp4-valid '[ $s -eq 0 ] && grep -q ": valid " "$T/miss.out" && [ ! -s "$T/missv.err" ]'
fi

# Functions are found by use (sink.h's LAZYAV_*): each LAZY line's USE_* bits
# name the uses whose files call the function (USE_OUTPUT: src/sink.c and
# src/sinks/; USE_READ: src/render/backdrop.c; USE_JOIN: src/join.c;
# USE_MANIFEST: src/manifest.c), so that
# lazyav_use finds all that a use calls before its first call.
python3 - > "$T/uses.err" <<'PY'
import glob, re
files = {"USE_OUTPUT": ["src/sink.c"] + sorted(glob.glob("src/sinks/*.c")), "USE_READ": ["src/render/backdrop.c"],
         "USE_JOIN": ["src/join.c"], "USE_MANIFEST": ["src/manifest.c"]}
text = {u: "".join(open(f).read() for f in fs) for u, fs in files.items()}
src = open("src/lazy/lazyav.c").read()
n = 0
for m in re.finditer(r"^LAZY(_VOID)?\(LIB_[A-Z]+, (?:[^,(]*, )?([a-z_0-9]+),(.*?)\)$", src, re.M | re.S):
    name, tail = m.group(2), m.group(3)
    given = set(re.findall(r"USE_[A-Z]+", tail.rsplit(",", 1)[-1]))
    want = {u for u in files if re.search(r"\b%s\b" % name, text[u])}
    n += 1
    if given != want:
        print("%s: uses %s, called by %s" % (name, sorted(given), sorted(want)))
if n < 50:
    print("only %d LAZY lines read" % n)
PY
cat "$T/uses.err"
cond lazy-uses-match-callers '[ ! -s "$T/uses.err" ]'

# A libavformat that lacks a function only join calls (av_guess_frame_rate):
# the real library, copied with that name changed in its symbol table. An
# mp4 run, which never joins, is not failed by it; `ripplerender join` and a
# --save-state run of a video (its segments joined at the end) fail at their
# start, with --validate as with the run, in one line naming the function,
# status 1, nothing left; a .framemd5's segments are joined as text and run.
fmtso=$(sed -n 's/^\(libavformat\.so\.[0-9]*\).*/\1/p' "$T/mp4.libs" | head -n 1)
fmtpath=$(ldconfig -p 2>/dev/null | sed -n "s/^[[:space:]]*$fmtso (.*) => //p" | head -n 1)
if [ -n "$fmtso" ] && [ -f "$fmtpath" ] && command -v python3 > /dev/null; then
    mkdir "$T/nojoin" "$T/out4"
    python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
a = b"\0av_guess_frame_rate\0"
if d.count(a) == 1:
    open(sys.argv[2], "wb").write(d.replace(a, b"\0av_guess_frame_ratX\0"))' "$fmtpath" "$T/nojoin/$fmtso"
    want="ripplerender: $fmtso: no function av_guess_frame_rate"
    nj() { LD_LIBRARY_PATH="$T/nojoin" "$RR" "$@"; }
    check nojoin-lib-made [ -s "$T/nojoin/$fmtso" ]
    nj "$T/s.json" -o "$T/out4/v.mp4" -q 2> "$T/nj.err"; s=$?
    cond nojoin-mp4-runs '[ $s -eq 0 ] && [ -s "$T/out4/v.mp4" ] && [ ! -s "$T/nj.err" ]'
    "$RR" "$T/s.json" -o "$T/out4/p0.mp4" --range 0-4 -q && "$RR" "$T/s.json" -o "$T/out4/p1.mp4" --range 5-9 -q
    nj join "$T/out4/p0.mp4" "$T/out4/p1.mp4" -o "$T/out4/j/j.mp4" 2> "$T/nj.err"; s=$?
    cond nojoin-join-fails '[ $s -eq 1 ] && [ "$(cat "$T/nj.err")" = "$want" ] && [ ! -e "$T/out4/j" ]'
    nj "$T/s.json" -o "$T/out5/v.mp4" --save-state "$T/st5" --state-every 3 -q 2> "$T/nj.err"; s=$?
    cond nojoin-save-state-fails-at-start '[ $s -eq 1 ] && [ "$(cat "$T/nj.err")" = "$want" ] && [ ! -e "$T/out5" ] && [ ! -e "$T/st5" ]'
    nj "$T/s.json" -o "$T/out5/v.mp4" --save-state "$T/st5" --validate > "$T/nj.out" 2> "$T/nj.err"; s=$?
    cond nojoin-validate-save-state-fails '[ $s -eq 1 ] && [ ! -s "$T/nj.out" ] && [ "$(cat "$T/nj.err")" = "$want" ]'
    nj "$T/s.json" -o "$T/out5/v.framemd5" --save-state "$T/st5" --state-every 3 -q 2> "$T/nj.err"; s=$?
    cond nojoin-framemd5-save-state-runs '[ $s -eq 0 ] && [ -s "$T/out5/v.framemd5" ] && [ ! -s "$T/nj.err" ]'
else
    echo "skip nojoin: no $fmtso found by ldconfig, or no python3"
fi
finish

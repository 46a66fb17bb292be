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
    LD_LIBRARY_PATH="$T/wrong" "$RR" "$T/s.json" --hash -q > "$T/wrong.hash" 2> "$T/wrong2.err"
    check wrong-lib-hash-runs cmp -s "$T/good.hash" "$T/wrong.hash"
else
    echo "skip wrong-lib: no C compiler"
fi
finish

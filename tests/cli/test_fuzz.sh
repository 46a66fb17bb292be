# make fuzz leaves no temporary folder: each fuzzer writes its inputs in a
# folder of its own (rr_fuzz_XXXXXX under $TMPDIR, tests/fuzz/fuzz_common.h)
# and tests/fuzz/run.sh gives them a folder that it removes when it ends,
# when a fuzzer crashes and when it is stopped (Ctrl-C, SIGTERM); a fuzzer
# run by hand that ends removes its own. Needs clang's libFuzzer (FUZZ_CC,
# Makefile); skipped without it, saying so, and under another build than
# the plain one (make sanitize's: its gcc-sanitized library is not for
# clang's fuzzers).
. tests/cli/lib.sh
cc=$(sed -n 's/^FUZZ_CC *?= *//p' Makefile)
if ! command -v "${FUZZ_CC:-$cc}" > /dev/null; then
    echo "skip fuzz: no ${FUZZ_CC:-$cc} (clang's libFuzzer)"
    finish; exit
fi
rel=${RR#"$PWD"/}; rel=${rel#./}
if [ "$rel" != ripplerender ]; then
    echo "skip fuzz: $RR is not the plain build's (make test runs it)"
    finish; exit
fi
build=build
env -u MAKEFLAGS -u MFLAGS make --no-print-directory -s "$build/fuzz/fuzz_scene" "$build/fuzz/fuzz_set" > "$T/log" 2>&1
check fuzzers-built [ $? -eq 0 ]

# To its end: nothing left.
mkdir "$T/tmp"
TMPDIR="$T/tmp" sh tests/fuzz/run.sh "$build" 1 > "$T/out" 2>&1; s=$?
check fuzz-runs [ $s -eq 0 ]
check fuzz-ran-both [ "$(grep -c '^fuzz: ' "$T/out")" -eq 2 ]
check fuzz-leaves-nothing [ -z "$(ls -A "$T/tmp")" ]

# Stopped while a fuzzer runs (its folder there): Ctrl-C, to the whole
# process group as a terminal sends it, and SIGTERM to run.sh alone. Started
# in a session of its own with SIGINT let through (a job started with & has
# it ignored, and a shell cannot trap a signal ignored when it started).
for sig in INT TERM; do
    mkdir "$T/tmp$sig"
    TMPDIR="$T/tmp$sig" python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' sh tests/fuzz/run.sh "$build" 60 > "$T/out" 2>&1 & pid=$!
    k=0; while [ -z "$(find "$T/tmp$sig" -name 'rr_fuzz_*' 2> /dev/null)" ] && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
    check "fuzz-folder-under-tmpdir-$sig" [ -n "$(find "$T/tmp$sig" -name 'rr_fuzz_*')" ]
    if [ $sig = INT ]; then python3 -c 'import os, signal, sys; os.killpg(int(sys.argv[1]), signal.SIGINT)' $pid
    else kill -TERM $pid; fi
    k=0; while kill -0 $pid 2> /dev/null && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
    check "fuzz-stops-on-$sig" eval '! kill -0 $pid 2> /dev/null'
    wait $pid
    check "fuzz-$sig-leaves-nothing" [ -z "$(ls -A "$T/tmp$sig")" ]
    check "fuzz-$sig-no-fuzzer-left" python3 -c 'import os, sys
sid = int(sys.argv[1])
def in_session(p):
    try:
        with open("/proc/%s/stat" % p) as f:
            return int(f.read().rsplit(")", 1)[1].split()[3]) == sid
    except (OSError, ValueError, IndexError):
        return False
sys.exit(any(in_session(p) for p in os.listdir("/proc") if p.isdigit()))' $pid
done

# A fuzzer run by hand, to its end.
mkdir "$T/tmph" "$T/corpus"
cp tests/fuzz/seeds/set/* "$T/corpus"/
TMPDIR="$T/tmph" "$build/fuzz/fuzz_set" -runs=50 "$T/corpus" > "$T/out" 2>&1
check fuzzer-by-hand-runs [ $? -eq 0 ]
check fuzzer-by-hand-leaves-nothing [ -z "$(ls -A "$T/tmph")" ]
finish

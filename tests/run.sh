#!/bin/sh
# Runs every unit test binary (cmocka) and every command-line test script,
# RR_TEST_JOBS of them at once (default: as many as there are cores; 1: one
# at a time), each with its own tuner cache and temporary folder, and prints
# a line for each in the list's order with its counts and seconds, then one
# closing line "N passed, N failed" over all of them. A test whose line says
# it failed has its output printed above the line.
# Usage: tests/run.sh BUILD_DIR BINARY

# run.sh --one DIR I TEST BINARY (from xargs, below): runs test TEST (a unit
# test binary, or a script run with RR=BINARY) and leaves its output in
# DIR/I.log and "PASSED FAILED SECONDS" in DIR/I.sum, written last (its
# presence says the test has ended).
if [ "$1" = --one ]; then
    dir=$2 i=$3 t=$4 bin=$5
    # The tuner's cache (src/tunecache.h) never in the real home, and no
    # test's cache another's.
    export XDG_CACHE_HOME="$dir/cache-$i"
    t0=$(date +%s)
    case "$t" in
    *.sh)
        RR="$bin" sh "$t" > "$dir/$i.log" 2>&1
        p=$(sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$dir/$i.log" | tail -n 1)
        f=$(sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$dir/$i.log" | tail -n 1)
        if [ -z "$p" ]; then p=0; f=1; fi ;;
    *)
        "$t" > "$dir/$i.log" 2>&1; rc=$?
        p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$dir/$i.log" | tail -n 1)
        f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$dir/$i.log" | tail -n 1)
        p=${p:-0}; f=${f:-0}
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi ;;   # crashed before its summary
    esac
    echo "$p $f $(($(date +%s) - t0))" > "$dir/$i.tmp" && mv "$dir/$i.tmp" "$dir/$i.sum"
    exit 0
fi

build=${1:-build}; bin=${2:-./ripplerender}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
jobs=${RR_TEST_JOBS:-$(nproc 2> /dev/null || echo 1)}
case "$jobs" in '' | *[!0-9]* | 0) echo "tests/run.sh: RR_TEST_JOBS=$jobs: expected a whole number of 1 or more" >&2; exit 2 ;; esac
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# The list: the longest scripts first (test_kernels.sh natively, for the
# emulator's runs; test_resume.sh and test_nolose.sh under the sanitizers,
# for their many renders), so that the others share the remaining cores
# while they run and no long one starts last; then the unit tests and the
# other scripts.
{
    for s in tests/cli/test_kernels.sh tests/cli/test_resume.sh tests/cli/test_nolose.sh; do
        [ -f "$s" ] && echo "$s"
    done
    for t in "$build"/tests/test_*; do
        case "$t" in *.o | *.d) continue ;; esac
        [ -f "$t" ] && [ -x "$t" ] && echo "$t"
    done
    for s in tests/cli/test_*.sh; do
        [ -f "$s" ] && echo "$s"
    done
} | awk '!seen[$0]++' > "$dir/list"

# The report, in the list's order, each test's line as soon as it and the
# ones before it have ended; the totals into DIR/total. In the background:
# the tests themselves run in the foreground (below), so that they get the
# signals a shell's background jobs ignore (a test sends SIGINT to its runs).
report() {
    passed=0; failed=0; i=0
    while read -r t; do
        i=$((i + 1))
        while [ ! -f "$dir/$i.sum" ] && [ ! -f "$dir/ended" ]; do
            [ -d "$dir" ] || exit 1   # interrupted: the folder is gone
            sleep 0.2
        done
        if [ ! -f "$dir/$i.sum" ]; then   # the runs ended without this test's result
            printf '%-28s   0 passed, 1 failed (no result)\n' "$(basename "$t")"
            failed=$((failed + 1)); continue
        fi
        read -r p f secs < "$dir/$i.sum"
        case "$t" in
        *.sh)
            [ "$f" -ne 0 ] && grep -v '^ok ' "$dir/$i.log"
            [ "$f" -eq 0 ] && grep '^skip ' "$dir/$i.log" ;;   # a check this machine cannot run says so
        *)
            [ "$f" -ne 0 ] && cat "$dir/$i.log" ;;
        esac
        printf '%-28s %3d passed, %d failed %5ds\n' "$(basename "$t")" "$p" "$f" "$secs"
        passed=$((passed + p)); failed=$((failed + f))
    done < "$dir/list"
    echo "$passed $failed" > "$dir/total"
}
report &
reporter=$!
awk -v d="$dir" -v b="$bin" '{ print d, NR, $0, b }' "$dir/list" | xargs -P "$jobs" -n 4 sh "$self" --one
: > "$dir/ended"
wait $reporter
read -r passed failed < "$dir/total" || { passed=0; failed=1; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

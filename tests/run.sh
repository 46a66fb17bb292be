#!/bin/sh
# Runs every unit test binary (cmocka) and every command-line test script,
# then prints one closing line "N passed, N failed" over all of them.
# Usage: tests/run.sh BUILD_DIR BINARY
build=${1:-build}; bin=${2:-./ripplerender}
passed=0; failed=0; log=$(mktemp); cache=$(mktemp -d); trap 'rm -rf "$log" "$cache"' EXIT
# The tuner's cache (src/tunecache.h) never in the real home.
export XDG_CACHE_HOME="$cache"
for t in "$build"/tests/test_*; do
    case "$t" in *.o|*.d) continue ;; esac
    [ -x "$t" ] || continue
    "$t" >"$log" 2>&1; rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    p=${p:-0}; f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed before its summary
    [ "$f" -ne 0 ] && cat "$log"
    printf '%-28s %3d passed, %d failed\n' "$(basename "$t")" "$p" "$f"
    passed=$((passed + p)); failed=$((failed + f))
done
for s in tests/cli/test_*.sh; do
    [ -f "$s" ] || continue
    RR="$bin" sh "$s" >"$log" 2>&1
    p=$(sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log" | tail -n 1)
    if [ -z "$p" ]; then p=0; f=1; fi
    [ "$f" -ne 0 ] && grep -v '^ok ' "$log"
    [ "$f" -eq 0 ] && grep '^skip ' "$log"      # a check this machine cannot run says so
    printf '%-28s %3d passed, %d failed\n' "$(basename "$s")" "$p" "$f"
    passed=$((passed + p)); failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/bin/sh
# Runs each libFuzzer target for a bounded time on one core, niced, with a
# corpus kept in BUILD/fuzz/corpus/NAME between runs, seeded from scenes/,
# tests/bad/, tests/fuzz/seeds/ and the JSONTestSuite (tests/data/).
# Prints libFuzzer's final line (#execs, cov:, ft:) per target; a crash leaves
# its input in BUILD/fuzz/artifacts/ and fails. Usage: run.sh BUILD SECONDS
#
# The fuzzers write their inputs in a folder under $TMPDIR
# (tests/fuzz/fuzz_common.h), which libFuzzer's own exits (a crash, a
# timeout, a signal: _Exit) never remove: they get a folder of this script's,
# removed when it ends, and on Ctrl-C, SIGTERM or SIGHUP (the fuzzer running
# stopped first). Each fuzzer runs in the background so that a signal to this
# script alone is handled at once, not when the fuzzer ends.
build=$1; seconds=${2:-60}
status=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rr_fuzz_run.XXXXXX") || exit 1
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2> /dev/null
        wait "$pid"
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
for name in scene set; do
    bin=$build/fuzz/fuzz_$name
    corpus=$build/fuzz/corpus/$name
    mkdir -p "$corpus" "$build/fuzz/artifacts"
    if [ "$name" = scene ]; then
        cp scenes/*.json tests/bad/*.json "$corpus"/ 2>/dev/null
        cp tests/data/json-test-suite/*.json "$corpus"/
        dict=tests/fuzz/scene.dict
    else
        cp tests/fuzz/seeds/set/* "$corpus"/
        dict=tests/fuzz/set.dict
    fi
    log=$build/fuzz/$name.log
    echo "fuzz: $name for ${seconds}s (log: $log)"
    TMPDIR=$tmp nice -n 19 "$bin" "$corpus" tests/fuzz/regressions -dict="$dict" -max_total_time="$seconds" \
        -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$build/fuzz/artifacts/$name-" >"$log" 2>&1 &
    pid=$!
    wait "$pid" || status=1
    pid=
    grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^Done ' "$log"
    grep -E 'ERROR: |SUMMARY: ' "$log" | head -n 3
done
exit $status

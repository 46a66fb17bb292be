# RIPPLERENDER_DEBUG (src/debug.h): with "kernels" the speed machinery says
# on standard error what it chose, one "ripplerender: kernels: " line per
# decision: the threads (main.c's policy: -j, one thread beside a sink's
# writer until the probe), each leapfrog kernel's builds, and the tuners'
# choices for plain steps and fused passes with the threads' row shares.
# The frames (--hash) are the same with it and without. An unknown topic is
# ignored with one warning line naming the known ones; an empty value, or
# none, prints nothing.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

# 96x80 cells, 4 steps a frame, 200 frames, one drop at the start: with
# fixed edges the steps fuse into passes across frames (--hash draws frames
# in batches, src/batch.h; a pass of 16 steps still leaves two bands of at
# least 34 rows); with absorbing edges each step is a plain one. Either way
# enough passes for the tuners to decide.
cat > "$T/d.json" <<'EOF'
{ "grid": { "width": 96, "height": 80 },
  "time": { "fps": 10, "frames": 200, "steps_per_frame": 4 },
  "boundary": "fixed",
  "drops": [ { "x": 30, "y": 20, "radius": 3, "amplitude": -1 } ],
  "render": { "mode": "colormap", "range": [-0.5, 0.5] } }
EOF
# lines FILE PATTERN: how many lines of FILE match the extended regex.
lines() { grep -cE "$2" "$1"; }

for edges in fixed absorb; do
    set -- "$T/d.json" -s boundary=$edges --hash -q -j 2
    "$RR" "$@" > "$T/plain-$edges" 2> "$T/plain-$edges.err"
    RIPPLERENDER_DEBUG=kernels "$RR" "$@" > "$T/debug-$edges" 2> "$T/debug-$edges.err"
    check "same-frames-$edges" cmp -s "$T/plain-$edges" "$T/debug-$edges"
    check "silent-without-$edges" [ ! -s "$T/plain-$edges.err" ]
    check "only-kernel-lines-$edges" [ "$(lines "$T/debug-$edges.err" '^ripplerender: kernels: ')" -eq \
                                       "$(wc -l < "$T/debug-$edges.err")" ]
    check "threads-line-$edges" [ "$(lines "$T/debug-$edges.err" '^ripplerender: kernels: threads: 2 \(-j\)$')" -eq 1 ]
    # No sink: the frame loop keeps every thread (no probe).
    check "no-probe-without-sink-$edges" [ "$(lines "$T/debug-$edges.err" 'frame loop')" -eq 0 ]
    check "kernel-line-$edges" [ "$(lines "$T/debug-$edges.err" \
        '^ripplerender: kernels: 96x80 grid: row kernels: portable built for (AVX-512 \(x86-64-v4\)|AVX2 \(x86-64-v3\)|the baseline)')" -eq 1 ]
done
# A pass's line: the way chosen, its time, the others', the threads and the
# rows of each (2 threads: two shares summing to the grid's 80 rows).
share_sum() { sed -n 's/.*, rows \([0-9]*\) + \([0-9]*\)$/\1 \2/p' "$1" | awk '{print $1 + $2}' | sort -u; }
check fused-choice [ "$(lines "$T/debug-fixed.err" \
    '^ripplerender: kernels: 96x80 grid: fused pass of [0-9]+ steps: (portable|avx512|avx2|avx512-careful|avx2-careful) (1row|3rows), [0-9.]+ us a step \((the others: .*|the only way)\); 2 threads, rows [0-9]+ \+ [0-9]+$')" -ge 1 ]
check fused-no-plain-step [ "$(lines "$T/debug-fixed.err" ' grid: step: ')" -eq 0 ]
check fused-shares-cover-grid [ "$(share_sum "$T/debug-fixed.err")" = 80 ]
check fused-in-batches [ "$(lines "$T/debug-fixed.err" '^ripplerender: kernels: frames in batches of up to 16: ')" -eq 1 ]
check step-choice [ "$(lines "$T/debug-absorb.err" \
    '^ripplerender: kernels: 96x80 grid: step: (portable|avx512|avx2|avx512-careful|avx2-careful) (1row|1row\+prefetch|3rows), [0-9.]+ us a step \((the others: .*|the only way)\); 2 threads, rows [0-9]+ \+ [0-9]+$')" -ge 1 ]
check step-shares-cover-grid [ "$(share_sum "$T/debug-absorb.err")" = 80 ]

# One thread: one share.
RIPPLERENDER_DEBUG=kernels "$RR" "$T/d.json" --hash -q -j 1 > "$T/j1" 2> "$T/j1.err"
check one-thread-same-frames cmp -s "$T/plain-fixed" "$T/j1"
check one-thread-one-share [ "$(lines "$T/j1.err" '; 1 thread, rows 80$')" -ge 1 ]

# With a sink the frame loop starts on one thread beside the writer, and the
# probe over frames 2 to 9 says whether it goes back to -j; with -j 1 there
# is nothing to decide.
RIPPLERENDER_DEBUG=kernels "$RR" "$T/d.json" -o "$T/out.npy" -y -q -j 2 2> "$T/sink.err"
check sink-runs [ -s "$T/out.npy" ]
check sink-one-thread [ "$(lines "$T/sink.err" '^ripplerender: kernels: threads: frame loop on 1 beside the writer')" -eq 1 ]
check sink-probe [ "$(lines "$T/sink.err" \
    '^ripplerender: kernels: threads: frame loop (back to 2|stays on 1) \(CPU over 8 frames: [0-9.]+ ms, the writer and encoder [0-9.]+ ms\)$')" -eq 1 ]
RIPPLERENDER_DEBUG=kernels "$RR" "$T/d.json" -o "$T/out1.npy" -y -q -j 1 2> "$T/sink1.err"
check sink-j1-no-probe [ "$(lines "$T/sink1.err" 'frame loop')" -eq 0 ]
check sink-same-npy-any-j cmp -s "$T/out.npy" "$T/out1.npy"

# Unknown topics: one line naming them and the known ones; the run goes on.
RIPPLERENDER_DEBUG=nonsense "$RR" "$T/d.json" --hash -q > "$T/unknown" 2> "$T/unknown.err"
check unknown-runs [ $? -eq 0 ]
check unknown-same-frames cmp -s "$T/plain-fixed" "$T/unknown"
check unknown-one-line [ "$(wc -l < "$T/unknown.err")" -eq 1 ]
check unknown-names-it grep -qx 'ripplerender: warning: RIPPLERENDER_DEBUG: unknown topic "nonsense" ignored (known: kernels)' \
    "$T/unknown.err"
RIPPLERENDER_DEBUG=kernels,Kernels,,x "$RR" "$T/d.json" --hash -q > /dev/null 2> "$T/mixed.err"
check mixed-one-warning [ "$(lines "$T/mixed.err" 'RIPPLERENDER_DEBUG')" -eq 1 ]
check mixed-names-both grep -qx 'ripplerender: warning: RIPPLERENDER_DEBUG: unknown topics "Kernels", "x" ignored (known: kernels)' "$T/mixed.err"
check mixed-kernels-on [ "$(lines "$T/mixed.err" '^ripplerender: kernels: threads: ')" -eq 1 ]
RIPPLERENDER_DEBUG= "$RR" "$T/d.json" --hash -q > /dev/null 2> "$T/empty.err"
check empty-silent [ ! -s "$T/empty.err" ]
finish

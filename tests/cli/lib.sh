# Shared helpers for the command-line test scripts (sourced, not run).
# Each check prints "ok NAME" or "FAIL NAME: why"; `finish` prints the
# "cli: N passed, N failed" line that tests/run.sh reads.
RR=${RR:-./ripplerender}
case "$RR" in /*) ;; *) RR="$PWD/$RR" ;; esac
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
# The tuner's cache (src/tunecache.h) never in the real home, and off, so
# that each run times its ways as the tests of the kernels' lines expect;
# tests/cli/test_cache.sh turns it on.
export XDG_CACHE_HOME="$T/cache" RIPPLERENDER_CACHE=0
npass=0; nfail=0
ok()   { npass=$((npass + 1)); echo "ok $1"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $1: $2"; }
# check NAME CONDITION...: runs the condition (a command) and records it.
check() { name=$1; shift; if "$@"; then ok "$name"; else fail "$name" "$*"; fi; }
# cond NAME 'EXPRESSION': the same for a shell expression (&&, ||, $(...)), evaluated.
cond() { name=$1; shift; if eval "$1"; then ok "$name"; else fail "$name" "$1"; fi; }
finish() { echo "cli: $npass passed, $nfail failed"; [ "$nfail" -eq 0 ]; }
# frames_done FILE PID N: waits until FILE, the --hash output of the run PID
# (a line a frame, flushed at once), holds N lines: the run has finished N
# frames, so a stop signal now stops after a frame and keeps the frames so
# far, on any machine and under any load (a fixed sleep may end before frame
# 0, which commits nothing). Gives up when the run ends, or after 120 s.
# FILE must not hold an earlier run's lines (rm -f it before the run): else
# the wait ends at once and the signal may reach the shell's child before
# the redirection empties FILE, leaving the earlier lines for the checks.
frames_done() {
    k=0
    while n=$({ wc -l < "$1"; } 2> /dev/null); [ "${n:-0}" -lt "$3" ] && [ $k -lt 1200 ] && kill -0 "$2" 2> /dev/null; do
        sleep 0.1; k=$((k + 1))
    done
}
# signal_when_polling PID SIG: sends SIG to the run PID once it waits in
# poll(2) for its input (its /proc/PID/wchan names poll: it has set its
# signal handlers and opened what it waits on), or after 20 s, or at once
# when it has ended; then waits for it, killing it (SIGKILL) if it has not
# ended 20 s later, and sets s to its status. A fixed delay may end before
# a slow start (a sanitizer's build on a busy machine) has set the handlers.
signal_when_polling() {
    k=0
    while case "$(cat "/proc/$1/wchan" 2> /dev/null)" in *poll*) false ;; *) true ;; esac &&
        [ $k -lt 200 ] && kill -0 "$1" 2> /dev/null; do
        sleep 0.1; k=$((k + 1))
    done
    kill -"$2" "$1" 2> /dev/null
    k=0
    while kill -0 "$1" 2> /dev/null && [ $k -lt 200 ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2> /dev/null)" != Z ]; do
        sleep 0.1; k=$((k + 1))
    done
    kill -KILL "$1" 2> /dev/null
    wait "$1"; s=$?
}
# asan_build: whether $RR is built with AddressSanitizer (make sanitize).
asan_build() { grep -q __asan_init "$RR"; }
# small_scene FILE: a 64x48 scene of 10 frames with one drop (a quick run).
small_scene() {
    cat > "$1" <<'EOF'
{ "grid": { "width": 64, "height": 48 },
  "time": { "fps": 10, "frames": 10, "steps_per_frame": 2 },
  "drops": [ { "x": 20, "y": 20, "radius": 3, "amplitude": -1 } ],
  "render": { "mode": "colormap", "colormap": "viridis", "range": [-0.5, 0.5] } }
EOF
}

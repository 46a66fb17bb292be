#!/bin/sh
# make bench: solver throughput against a reference loop and the streaming
# bound (tests/bench/bench_solvers.c), each core's own speed at the row
# kernels (tests/bench/bench_cores.c), the video sink's rgb24 -> yuv420p
# conversion against libswscale (tests/bench/bench_yuv.c), end-to-end 1080p
# mp4 against the ffmpeg program on the same frames, peak memory against what
# the grids and frame buffers need, and allocations per frame. Numbers only;
# nothing passes or fails. docs/performance.md explains the method and the results.
# BENCH_SECTION=NAME runs one section: solvers, frames, kernels, spectral, cores, steps, yuv, e2e, hash, e4k, png,
# render, farm, memory, allocations, scenes, scaled, process, at512, sinkfuse or levels (e4k, farm, memory and
# allocations set up e2e's scene, not its timings).
bin=${1:-./ripplerender}; build=${2:-build}
set -e
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
# The tuner's cache (src/tunecache.h) in the bench's folder, not the home.
export XDG_CACHE_HOME="$T/cache"
now() { date +%s.%N; }
# best TRIES CMD...: the shortest wall time of TRIES runs, in seconds.
best() {
    n=$1; shift; b=
    for i in $(seq "$n"); do
        t0=$(now); "$@" > /dev/null; t1=$(now)
        b=$(awk -v a="$t0" -v c="$t1" -v b="$b" 'BEGIN { d = c - a; print (b == "" || d < b) ? d : b }')
    done
    echo "$b"
}
# shorter A B: the smaller of two times (B may be empty).
shorter() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
# on NAME: whether BENCH_SECTION lets section NAME run.
on() { [ -z "${BENCH_SECTION:-}" ] || [ "$BENCH_SECTION" = "$1" ]; }

echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo '{ "time": { "steps_per_frame": 2 }, "drops": [ { "x": 10, "y": 10 } ] }' > "$T/bench.json"
if on solvers; then
echo "== solvers (cells per second)"
[ "${BENCH_SOLVERS:-1}" = 0 ] || "$build/tests/bench_solvers" "$T/bench.json"
echo
fi

if on frames; then
echo "== steps fused across frames (cells per second; sim_advance_frames)"
[ "${BENCH_SOLVERS:-1}" = 0 ] || BENCH_ONLY=frames "$build/tests/bench_solvers" "$T/bench.json"
echo
fi

if on kernels; then
echo "== row kernels on one thread (cells per CPU second)"
[ "${BENCH_SOLVERS:-1}" = 0 ] || BENCH_ONLY=kernels "$build/tests/bench_solvers" "$T/bench.json"
echo
fi

if on spectral; then
echo "== the spectral step on one thread by CPU time, 512², 1024², 2048² (each against FFTW's complex 2-D round trip)"
[ "${BENCH_SOLVERS:-1}" = 0 ] || OMP_NUM_THREADS=1 BENCH_ONLY=spectral BENCH_SPECTRAL_SIZES="512 1024 2048" \
    "$build/tests/bench_solvers" "$T/bench.json"
echo
fi

if on cores; then
echo "== the cores one at a time (are they equally fast just now?)"
"$build/tests/bench_cores" "$T/bench.json"
echo
fi

if on steps; then
echo "== a 512² step on two threads, part by part (bench_steps.c)"
"$build/tests/bench_steps" "$T/bench.json"
echo
fi

if on yuv; then
"$build/tests/bench_yuv"
echo
fi

on e2e && echo "== end to end: 1920x1080 mp4 (libx264 veryfast crf 20), best of ${E2E_TRIES:-5} taken in turns"
frames=45
cat > "$T/e2e.json" <<JSON
{
  "grid":   { "width": 1920, "height": 1080 },
  "time":   { "fps": 30, "frames": $frames, "steps_per_frame": 2 },
  "solver": { "type": "elias", "damping": 0.998 },
  "boundary": "fixed",
  "drops": [
    { "time": 0.0, "x": 480, "y": 300, "radius": 8, "amplitude": -2.0, "shape": "cosine" },
    { "time": 0.3, "x": 1400, "y": 700, "radius": 10, "amplitude": -2.0, "shape": "cosine" },
    { "time": 0.6, "x": 900, "y": 500, "radius": 6, "amplitude": 1.5, "shape": "cosine" }
  ],
  "render": { "mode": "shaded", "width": 1920, "height": 1080 },
  "output": { "path": "out.mp4" }
}
JSON
# A range acts only in colormap (shaded refuses one), so it is given only there.
mode=shaded rng=
if ! "$bin" "$T/e2e.json" --validate > /dev/null 2>&1; then
    mode=colormap rng=', "range": [-0.5, 0.5]'
    echo "render mode: shaded is not in this build; using colormap"
fi
S="--set render.mode=$mode${rng:+ --set render.range=[-0.5,0.5]}"
X="--set output.codec=libx264 --set output.preset=veryfast --set output.crf=20 --set output.pix_fmt=yuv420p"
pf=0
if on e2e; then
# The same frames as raw rgb24 for the ffmpeg program (lossless PNG in mkv, then unpacked; not timed).
"$bin" "$T/e2e.json" $S -o "$T/frames.mkv" --set output.codec=png -y -q
ffmpeg -v error -y -i "$T/frames.mkv" -f rawvideo -pix_fmt rgb24 "$T/frames.rgb"
rm -f "$T/frames.mkv"
# The two in turns (ours, then ffmpeg's, E2E_TRIES times), each figure its
# best: on a shared machine a burst of other work then slows both alike
# instead of whichever happened to run during it.
t_rr=; t_ff=
for i in $(seq "${E2E_TRIES:-5}"); do
    t_rr=$(shorter "$(best 1 "$bin" "$T/e2e.json" $S $X -o "$T/rr.mp4" -y -q)" "$t_rr")
    t_ff=$(shorter "$(best 1 ffmpeg -v error -y -f rawvideo -pix_fmt rgb24 -s 1920x1080 -r 30 -i "$T/frames.rgb" \
                      -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$T/ff.mp4")" "$t_ff")
done
[ -x /usr/bin/time ] && pf=$(/usr/bin/time -f %M ffmpeg -v error -y -f rawvideo -pix_fmt rgb24 -s 1920x1080 -r 30 -i "$T/frames.rgb" \
     -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$T/ff.mp4" 2>&1 | tail -n 1)
t_sim=$(best 3 "$bin" "$T/e2e.json" $S --hash -q)
t_ser=$(best 3 "$bin" "$T/e2e.json" $S --hash -q -j 1)
awk -v f="$frames" -v rr="$t_rr" -v ff="$t_ff" -v sim="$t_sim" -v ser="$t_ser" -v m="$mode" 'BEGIN {
    printf "%-46s %8.1f frames/s\n", "ripplerender -> mp4 (" m ")", f / rr
    printf "%-46s %8.1f frames/s\n", "ffmpeg, raw rgb24 -> mp4, same settings", f / ff
    printf "%-46s %8.2f (goal >= 0.9)\n", "ratio", ff / rr
    printf "%-46s %8.1f ms/frame\n", "simulate + render + md5, no encoder (-j2)", 1000 * sim / f
    printf "%-46s %8.1f ms/frame\n", "the same on one thread (-j1)", 1000 * ser / f
}'
rm -f "$T/frames.rgb"
echo
fi

if on hash; then
echo "== hashed runs (--hash, no sink): a batch's frames hashed side by side (src/md5lanes.h)"
# The MD5 of one 1080p frame, libavutil's against a batch's lanes.
"$build/tests/bench_md5"
# Whole processes: e2e's scene at spf 1, 120 frames, at 1920x1080 and at
# 512x512 (its drops moved inside), wall and CPU time (GNU time), best of
# HASH_TRIES in turns with BENCH_OLD's when given.
sed -e 's/"frames": [0-9]*, "steps_per_frame": [0-9]*/"frames": 120, "steps_per_frame": 1/' "$T/e2e.json" > "$T/h1080.json"
sed -e 's/"width": 1920, "height": 1080/"width": 512, "height": 512/g' \
    -e 's/"x": 1400, "y": 700/"x": 400, "y": 350/' -e 's/"x": 900, "y": 500/"x": 250, "y": 450/' "$T/h1080.json" > "$T/h512.json"
# timed_cpu CMD...: "wall cpu" of one run, in seconds.
timed_cpu() { /usr/bin/time -f "%e %U %S" -o "$T/tc" "$@" > /dev/null && awk '{ print $1, $2 + $3 }' "$T/tc"; }
printf '%-34s %10s %10s%s\n' "" "wall ms/f" "CPU ms/f" "${BENCH_OLD:+  BENCH_OLD wall, CPU}"
for g in 1080 512; do
    n=; o=
    for i in $(seq "${HASH_TRIES:-3}"); do
        n="$n
$(timed_cpu "$bin" "$T/h$g.json" $S --hash -q)"
        [ -z "$BENCH_OLD" ] || o="$o
$(timed_cpu "$BENCH_OLD" "$T/h$g.json" $S --hash -q)"
    done
    printf '%s\n' "$n" | awk -v what="$g shaded, spf 1, 120 frames" -v old="$(printf '%s\n' "$o" | awk 'NF && (w == "" || $1 < w) { w = $1 }
        NF && (c == "" || $2 < c) { c = $2 } END { if (w != "") print w, c }')" '
        NF && (w == "" || $1 < w) { w = $1 } NF && (c == "" || $2 < c) { c = $2 }
        END { printf "%-34s %10.2f %10.2f", what, 1000 * w / 120, 1000 * c / 120
              if (old != "") { split(old, b, " "); printf "  %8.2f %8.2f (%.2fx wall)", 1000 * b[1] / 120, 1000 * b[2] / 120, b[1] / w }
              printf "\n" }'
done
echo
fi

if on e4k; then
echo "== 4K: 3840x2160 shaded mp4 (libx264 veryfast crf 20), best of ${E4K_TRIES:-3} taken in turns"
# The same scene at render size 3840x2160, from a 1920x1080 grid (scaled
# 2x in bands on the pool, src/scale.h) and from a 3840x2160 grid
# (unscaled), E4K_FRAMES frames each, against the ffmpeg program encoding
# the same frames from raw rgb24 (made through the NUT pipe, untimed). With
# BENCH_OLD=path/to/an/earlier/ripplerender, that binary takes its turns too.
f4=${E4K_FRAMES:-30}
printf '%-46s %10s %10s %8s\n' "" "ours" "ffmpeg" "ratio"
for g in 1920x1080 3840x2160; do
    sed -e "s/\"frames\": [0-9]*/\"frames\": $f4/" \
        -e "s/\"grid\": *{ \"width\": 1920, \"height\": 1080 }/\"grid\": { \"width\": ${g%x*}, \"height\": ${g#*x} }/" \
        -e 's/"mode": "shaded", "width": 1920, "height": 1080/"mode": "shaded", "width": 3840, "height": 2160/' "$T/e2e.json" > "$T/e4k.json"
    "$bin" "$T/e4k.json" $S -o - --set output.format=nut -q \
        | ffmpeg -v error -y -f nut -i - -f rawvideo -pix_fmt rgb24 "$T/frames.rgb"
    t_rr=; t_old=; t_ff=
    for i in $(seq "${E4K_TRIES:-3}"); do
        t_rr=$(shorter "$(best 1 "$bin" "$T/e4k.json" $S $X -o "$T/rr.mp4" -y -q)" "$t_rr")
        [ -z "$BENCH_OLD" ] || t_old=$(shorter "$(best 1 "$BENCH_OLD" "$T/e4k.json" $S $X -o "$T/rr.mp4" -y -q)" "$t_old")
        t_ff=$(shorter "$(best 1 ffmpeg -v error -y -f rawvideo -pix_fmt rgb24 -s 3840x2160 -r 30 -i "$T/frames.rgb" \
                          -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p "$T/ff.mp4")" "$t_ff")
    done
    t_h=$(best 2 "$bin" "$T/e4k.json" $S --hash -q)
    awk -v f="$f4" -v rr="$t_rr" -v old="$t_old" -v ff="$t_ff" -v h="$t_h" -v g="$g" 'BEGIN {
        printf "%-46s %6.1f f/s %6.1f f/s %7.2fx (goal >= 0.9)\n", "from a " g " grid", f / rr, f / ff, ff / rr
        if (old != "")
            printf "%-46s %6.1f f/s %6.1f f/s %7.2fx\n", "  the same, BENCH_OLD", f / old, f / ff, ff / old
        printf "%-46s %6.1f ms/frame\n", "  simulate + render + md5, no encoder", 1000 * h / f
    }'
    rm -f "$T/frames.rgb"
done

echo
fi

# The scene of the PNG and renderer sections: rain on a 720p grid, busy
# enough from the first frames that the files (about 1 MB each) cost what
# ripple frames cost.
pframes=60
cat > "$T/png.json" <<JSON
{
  "grid":   { "width": 1280, "height": 720 },
  "time":   { "fps": 30, "frames": $pframes, "steps_per_frame": 2 },
  "solver": { "type": "elias", "damping": 0.998 },
  "boundary": "fixed",
  "rain": { "rate": 600, "radius": [3, 8], "amplitude": [-1.5, 1.5], "seed": 7 },
  "render": { "mode": "$mode"$rng },
  "output": { "path": "out.mp4" }
}
JSON

if on png; then
echo "== PNG sequence, 1280x720, ours vs ffmpeg -c:v png at the same level (3), best of ${PNG_TRIES:-3} taken in turns"
# ffmpeg is given the same frames as raw rgb24 (not timed to make) and the
# row filter none (its default), as ours: the same rows deflated at the same
# level, zlib's against libdeflate's (docs/performance.md).
"$bin" "$T/png.json" -o "$T/frames.mkv" --set output.codec=png -y -q
ffmpeg -v error -y -i "$T/frames.mkv" -f rawvideo -pix_fmt rgb24 "$T/frames.rgb"
rm -f "$T/frames.mkv"
mkdir -p "$T/pr" "$T/pf"
t_rr=; t_ff=; t_j1=
for i in $(seq "${PNG_TRIES:-3}"); do
    t_rr=$(shorter "$(best 1 "$bin" "$T/png.json" -o "$T/pr/f%05d.png" -y -q)" "$t_rr")
    t_ff=$(shorter "$(best 1 ffmpeg -v error -y -f rawvideo -pix_fmt rgb24 -s 1280x720 -r 30 -i "$T/frames.rgb" \
                      -c:v png -compression_level 3 -pred none "$T/pf/f%05d.png")" "$t_ff")
    t_j1=$(shorter "$(best 1 "$bin" "$T/png.json" -o "$T/pr/f%05d.png" -y -q -j 1)" "$t_j1")
done
awk -v f="$pframes" -v rr="$t_rr" -v ff="$t_ff" -v j1="$t_j1" -v mb="$(du -sb "$T/pr" | cut -f1)" \
    -v fmb="$(du -sb "$T/pf" | cut -f1)" 'BEGIN {
    printf "%-46s %8.1f frames/s (%.1f MB of files)\n", "ripplerender -> PNG sequence", f / rr, mb / 1e6
    printf "%-46s %8.1f frames/s\n", "the same, -j1 (one thread compresses)", f / j1
    printf "%-46s %8.1f frames/s (%.1f MB, ours %+.1f %%)\n", "ffmpeg, raw rgb24 -> PNG, same level", f / ff,
        fmb / 1e6, 100 * (mb / fmb - 1)
    printf "%-46s %8.2f (goal >= 1.5)\n", "ratio", ff / rr
}'
rm -rf "$T/frames.rgb" "$T/pr" "$T/pf"

echo
fi

# The renderer's scene (sections render and levels): the same rain on a 1080p grid.
sed -e 's/"width": 1280, "height": 720/"width": 1920, "height": 1080/' -e 's/"rate": 600/"rate": 200/' \
    "$T/png.json" > "$T/render.json"

if on render; then
echo "== caustics against shaded: the renderer alone on a busy 1920x1080 field"
"$build/tests/bench_render" "$T/render.json"
# Every cell moving (rain 100 times as dense): caustics' plain splat, no
# still water to skip.
echo "-- the same, every cell moving"
sed -e 's/"rate": 200/"rate": 20000/' "$T/render.json" > "$T/render-busy.json"
"$build/tests/bench_render" "$T/render-busy.json"

echo
fi

if on farm; then
echo "== a farm's two chunks: 1920x1080 shaded mp4, 600 frames, best of ${FARM_TRIES:-3} taken in turns"
# Two chunks (--chunk K/2, -j1 each) at once and joined, against one run with
# -j2 over all the frames (docs/farm.md). Fast-forward: the last chunk
# simulates the frames before its range without rendering them; its cost per
# skipped frame is set against a rendered frame's. Checkpoints: runs to a
# .framemd5 list (a sink, so that both take the frames one at a time: --hash
# alone would take them in batches, which --save-state does not) with and
# without --save-state --state-every 10 (60 checkpoints, so that their
# cost stands out of the noise), per checkpoint, then spread over 50 frames
# of the mp4 run. A resumable mp4 (--save-state --state-every 50) against the
# plain one: its checkpoints plus the video's segments (the encoder finished
# and started again at each checkpoint, a key frame) and their join. Beside
# the wall times, the CPU time (user + system) of the same runs, which a
# busy shared machine disturbs less.
sed -e 's/"frames": [0-9]*/"frames": 600/' "$T/e2e.json" > "$T/farm.json"
two() {
    "$bin" "$T/farm.json" $S $X --chunk 0/2 -j 1 -o "$T/p0.mp4" -y -q &
    "$bin" "$T/farm.json" $S $X --chunk 1/2 -j 1 -o "$T/p1.mp4" -y -q || return 1
    wait $! && "$bin" join "$T/p0.mp4" "$T/p1.mp4" -o "$T/joined.mp4" -y
}
# timed NAME CMD...: runs CMD once; the shortest wall and CPU times so far
# of NAME into w_NAME and c_NAME (CPU 0 without GNU time).
timed() {
    name=$1; shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%e %U %S" -o "$T/time" "$@" > /dev/null
        read w u s < "$T/time"
    else
        w=$(best 1 "$@"); u=0; s=0
    fi
    c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
    eval "w_$name=\$(shorter $w \"\${w_$name:-}\")"
    eval "c_$name=\$(shorter $c \"\${c_$name:-}\")"
}
for i in $(seq "${FARM_TRIES:-3}"); do
    timed one "$bin" "$T/farm.json" $S $X -j 2 -o "$T/one.mp4" -y -q
    t_two=$(shorter "$(best 1 two)" "${t_two:-}")
    timed h "$bin" "$T/farm.json" $S -o "$T/h.framemd5" -y -q -j 2
    rm -rf "$T/st"
    timed ck "$bin" "$T/farm.json" $S -o "$T/h.framemd5" -y -q -j 2 --save-state "$T/st" --state-every 10
    rm -rf "$T/sv"
    timed seg "$bin" "$T/farm.json" $S $X -j 2 -o "$T/seg.mp4" -y -q --save-state "$T/sv" --state-every 50
done
# Fast-forward alone: frame 599 only (599 frames simulated, one rendered)
# against frames 0-599 rendered, both -j1 and hashed (no encoder).
t_ff=$(best 3 "$bin" "$T/farm.json" $S --range 599-599 --hash -q -j 1)
t_all=$(best 3 "$bin" "$T/farm.json" $S --hash -q -j 1)
n_ck=$(ls "$T/st" | grep -c '^state-.*json$')
awk -v one="$w_one" -v two="$t_two" -v h="$w_h" -v ck="$w_ck" -v ff="$t_ff" -v all="$t_all" -v n="$n_ck" \
    -v seg="$w_seg" -v c_one="$c_one" -v c_h="$c_h" -v c_ck="$c_ck" -v c_seg="$c_seg" 'BEGIN {
    printf "%-46s %8.2f s\n", "one run, -j2", one
    printf "%-46s %8.2f s\n", "two chunks at once, -j1 each, then join", two
    printf "%-46s %8.2f (goal <= 1.15)\n", "ratio", two / one
    printf "%-46s %8.2f ms, %.0f%% of a rendered frame (-j1, no encoder)\n", "fast-forward, per frame skipped", 1000 * ff / 599, 100 * (ff / 599) / (all / 600)
    c = (ck - h) / n
    printf "%-46s %8.2f ms (%d written, 1080p elias)\n", "a checkpoint", 1000 * c, n
    printf "%-46s %8.2f%% of a frame (goal < 2)\n", "checkpoints every 50 frames, mp4 run", 100 * (c / 50) / (one / 600)
    printf "%-46s %8.2f s, %+.1f%% (%.1f ms a segment)\n", "resumable mp4, --save-state --state-every 50", seg, 100 * (seg / one - 1), 1000 * (seg - one) / 12
    if (c_one > 0) {
        printf "%-46s %8.2f ms\n", "a checkpoint, CPU time", 1000 * (c_ck - c_h) / n
        printf "%-46s %8.2f s, %.2f s resumable (%+.1f%%)\n", "CPU time of the mp4 run", c_one, c_seg, 100 * (c_seg / c_one - 1)
    }
}'
rm -rf "$T/st" "$T/sv" "$T"/p?.mp4 "$T/joined.mp4" "$T/seg.mp4" "$T/one.mp4"
echo
fi

if on memory; then
echo "== memory: peak resident (getrusage ru_maxrss, via /usr/bin/time) against the need"
if [ ! -x /usr/bin/time ]; then
    echo "skipped: /usr/bin/time (Debian package time) is not installed"
else
# need: both height planes (rows of stride floats, ghost rows included), the
# wall mask, the renderer's rgb image at grid size and, when the render size
# differs, its scaled image and output copy, and with a sink the pipeline's 3 copies.
need() { # W H RW RH SLOTS
    awk -v w="$1" -v h="$2" -v rw="$3" -v rh="$4" -v k="$5" 'BEGIN {
        stride = int((16 + w + 1 + 15) / 16) * 16
        scaled = (w != rw || h != rh) ? 2 : 0
        printf "%.0f", (2 * stride * (h + 2) * 4 + w * h + w * h * 3 + rw * rh * 3 * (scaled + k)) / 1024 }'
}
peak() { /usr/bin/time -f %M -o "$T/rss" "$@" > /dev/null && cat "$T/rss"; }
n4=$(need 4096 4096 512 512 0)
p4=$(peak "$bin" "$T/bench.json" --set grid.width=4096 --set grid.height=4096 --set render.width=512 \
      --set render.height=512 --set time.frames=4 --hash -q)
pe=$(peak "$bin" "$T/e2e.json" $S $X -o "$T/rr.mp4" -y -q)
ne=$(need 1920 1080 1920 1080 3)
awk -v p4="$p4" -v n4="$n4" -v pe="$pe" -v ne="$ne" -v pf="$pf" 'BEGIN {
    printf "%-40s %8.1f MB peak %8.1f MB need  %5.2fx (goal <= 1.3)\n", "4096² elias, --hash", p4 / 1024, n4 / 1024, p4 / n4
    printf "%-40s %8.1f MB peak %8.1f MB need  %5.2fx\n", "1080p mp4 (ours + libx264)", pe / 1024, ne / 1024, pe / ne
    if (pf > 0) {
        printf "%-40s %8.1f MB peak, so the encoder needs about that much of its own\n", "ffmpeg encoding 1080p, same settings", pf / 1024
        printf "%-40s %8.2fx of (our need + ffmpeg peak)\n", "1080p mp4", pe / (ne + pf)
    }
}'
fi
echo
fi

if on allocations; then
echo "== allocations per frame once running (LD_PRELOAD malloc counter: 20 and 40 frames, 640x360)"
count() { MALLOC_COUNT_OUT="$1" LD_PRELOAD="$PWD/$build/tests/malloc_count.so" "$bin" "$T/bench.json" \
          --set grid.width=640 --set grid.height=360 $S -q -f "$2" $3 > /dev/null; sort -k2 "$1" > "$1.s"; }
for out in hash mp4; do
    if [ $out = hash ]; then args="--hash"; else args="$X -o $T/rr.mp4 -y"; fi
    count "$T/m20" 20 "$args"; count "$T/m40" 40 "$args"
    # Per library that asked: its allocations per frame (those that grew; ripplerender's own always).
    join -1 2 -2 2 -a 2 -e 0 -o 0,1.1,2.1 "$T/m20.s" "$T/m40.s" | awk -v o="$out" '
        $1 == "ripplerender" { own = ($3 - $2) / 20; next }
        $3 > $2 { more = more sprintf(" %s %.1f;", $1, ($3 - $2) / 20) }
        END { printf "%-5s ripplerender itself: %.1f per frame; libraries:%s\n", o, own, more ? more : " none" }'
done
echo
fi

if on scenes; then
echo "== example scenes, end to end${BENCH_OLD:+ (and BENCH_OLD's, in turns, best of 3)}"
printf '%-22s %8s %10s%s\n' scene frames "frames/s" "${BENCH_OLD:+   BENCH_OLD}"
for s in scenes/*.json; do
    case "$s" in *.schema.json) continue ;; esac
    frames=$("$bin" "$s" --print-scene | tr -d ' \t' | sed -n 's/.*"frames":\([0-9]*\).*/\1/p' | head -n 1)
    if [ -z "$BENCH_OLD" ]; then
        t=$(best 1 "$bin" "$s" -o "$T/x.mp4" -y -q); t_old=
    else
        t=; t_old=
        for i in 1 2 3; do
            t=$(shorter "$(best 1 "$bin" "$s" -o "$T/x.mp4" -y -q)" "$t")
            t_old=$(shorter "$(best 1 "$BENCH_OLD" "$s" -o "$T/x.mp4" -y -q)" "$t_old")
        done
    fi
    awk -v n="$(basename "$s")" -v f="$frames" -v t="$t" -v o="$t_old" 'BEGIN {
        printf "%-22s %8d %10.1f", n, f, f / t; if (o != "") printf " %12.1f", f / o; printf "\n" }'
done
fi

if on scaled; then
echo "== example scenes rendered larger than their grids, mp4 (their own settings), best of ${SCALED_TRIES:-3} taken in turns"
# Each scene whose render size is not its grid's, against the ffmpeg
# program encoding the same frames from raw rgb24 (made through the NUT
# pipe, untimed) with the sink's defaults: libx264 medium, crf 20, yuv420p.
# With BENCH_OLD=path/to/an/earlier/ripplerender, that binary takes its
# turns too.
printf '%-22s %9s %10s %10s %8s%s\n' scene size ours ffmpeg ratio "${BENCH_OLD:+   BENCH_OLD ratio}"
for s in scenes/*.json; do
    case "$s" in *.schema.json) continue ;; esac
    "$bin" "$s" --print-scene > "$T/s.json"
    size=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); g, r = d["grid"], d.get("render", {})
w, h = r.get("width") or g["width"], r.get("height") or g["height"]
print("%dx%d %d" % (w, h, (w, h) != (g["width"], g["height"])))' "$T/s.json" 2>/dev/null) || continue
    [ "${size#* }" = 1 ] || continue
    size=${size% *}
    frames=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["time"]["frames"])' "$T/s.json")
    fps=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["time"]["fps"])' "$T/s.json")
    "$bin" "$s" -o - --set output.format=nut -q | ffmpeg -v error -y -f nut -i - -f rawvideo -pix_fmt rgb24 "$T/frames.rgb"
    t=; t_old=; t_ff=
    for i in $(seq "${SCALED_TRIES:-3}"); do
        t=$(shorter "$(best 1 "$bin" "$s" -o "$T/x.mp4" -y -q)" "$t")
        [ -z "$BENCH_OLD" ] || t_old=$(shorter "$(best 1 "$BENCH_OLD" "$s" -o "$T/x.mp4" -y -q)" "$t_old")
        t_ff=$(shorter "$(best 1 ffmpeg -v error -y -f rawvideo -pix_fmt rgb24 -s "$size" -r "$fps" -i "$T/frames.rgb" \
                          -c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p "$T/ff.mp4")" "$t_ff")
    done
    awk -v n="$(basename "$s")" -v sz="$size" -v f="$frames" -v t="$t" -v o="$t_old" -v ff="$t_ff" 'BEGIN {
        printf "%-22s %9s %6.1f f/s %6.1f f/s %7.2fx", n, sz, f / t, f / ff, ff / t
        if (o != "") printf " %9.2fx", ff / o
        printf "\n" }'
    rm -f "$T/frames.rgb"
done
fi
if on process; then
echo "== whole process: ripplerender itself against a reference program (tests/bench/proc_ref.c), best of ${PROC_TRIES:-3} taken in turns"
# Each run simulates STEPS steps of the bench scene (frames 0 .. STEPS/spf,
# --range rendering only the last, at 16x16, and --hash to /dev/null: no
# encoder, one small frame) and proc_ref allocates, first-touches and steps
# the same grid the same number of steps on one thread (seed 004's loop,
# -O3 -march=native). The rate is taken from the difference of a short and
# a long run (start-up, first touch and the one frame cancel); the short
# run's wall time alone shows what a run that lasts a fraction of a second
# pays. Ratios are ours against the reference's, > 1 faster. The tuner's
# cache (src/tunecache.h) is in the bench's own folder, filled by the first
# run of each row; the 2048² runs of 400 steps are also timed without it
# (RIPPLERENDER_CACHE=0). With BENCH_OLD=path/to/an/earlier/ripplerender,
# that binary takes its turns too (a second line per row).
# Last, the long runs again on one thread, by CPU time.
# PROC_SIZES, PROC_SOLVERS and PROC_TRIES narrow it.
printf '%-24s %10s %10s %6s   %9s %9s %6s\n' "" "ours" "ref" "" "short" "ref" ""
printf '%-24s %10s %10s %6s   %9s %9s %6s\n' "solver n² spf" "Mcells/s" "Mcells/s" "ratio" "ours ms" "ms" "ratio"
: > "$T/long"
# row NAME SHORT LONG REF_SHORT REF_LONG CELLS: one line of the table.
row() {
    awk -v s="$1" -v rs="$2" -v rl="$3" -v ps="$4" -v pl="$5" -v c="$6" 'BEGIN {
        ours = (rl > rs) ? c / (rl - rs) / 1e6 : 0; ref = (pl > ps) ? c / (pl - ps) / 1e6 : 0
        printf "%-24s %10.0f %10.0f %5.2fx   %9.1f %9.1f %5.2fx\n", s, ours, ref,
               (ref > 0 ? ours / ref : 0), 1000 * rs, 1000 * ps, ps / rs }'
}
for g in ${PROC_SIZES:-512 2048}; do
    # Short and long runs (a 512² step is 16x quicker than a 2048² one).
    if [ "$g" -le 512 ]; then short=400; long=4000; else short=40; long=400; fi
    for solver in ${PROC_SOLVERS:-elias flow wave}; do
        cs=; [ "$solver" = wave ] && cs="--set grid.cell_size=0.01"
        if ! "$bin" "$T/bench.json" --set solver.type=$solver $cs --validate > /dev/null 2>&1; then
            echo "$solver: not in this build"; continue
        fi
        for spf in 1 4; do
            # run BINARY STEPS: simulates STEPS steps, rendering the last frame.
            run() {
                f=$(($2 / spf))
                "$1" "$T/bench.json" --set grid.width=$g --set grid.height=$g --set solver.type=$solver $cs \
                    --set time.steps_per_frame=$spf --set render.width=16 --set render.height=16 \
                    -f $((f + 1)) --range $f-$f --hash -q
            }
            nocache() { RIPPLERENDER_CACHE=0 run "$@"; }
            rs=; rl=; ps=; pl=; os=; ol=; nl=
            for i in $(seq "${PROC_TRIES:-3}"); do
                rs=$(shorter "$(best 1 run "$bin" $short)" "$rs")
                ps=$(shorter "$(best 1 "$build/tests/proc_ref" $g $short)" "$ps")
                [ -z "$BENCH_OLD" ] || os=$(shorter "$(best 1 run "$BENCH_OLD" $short)" "$os")
                rl=$(shorter "$(best 1 run "$bin" $long)" "$rl")
                pl=$(shorter "$(best 1 "$build/tests/proc_ref" $g $long)" "$pl")
                [ -z "$BENCH_OLD" ] || ol=$(shorter "$(best 1 run "$BENCH_OLD" $long)" "$ol")
                [ "$g" != 2048 ] || nl=$(shorter "$(best 1 nocache "$bin" $long)" "$nl")
            done
            cells=$(( (g - 2) * (g - 2) * (long - short) ))
            row "$solver $g² $spf" "$rs" "$rl" "$ps" "$pl" "$cells"
            [ -z "$BENCH_OLD" ] || row "  the same, BENCH_OLD" "$os" "$ol" "$ps" "$pl" "$cells"
            [ "$g" = 2048 ] && echo "$solver $spf $rl $pl $nl ${ol:-}" >> "$T/long"
        done
    done
done
if [ -s "$T/long" ]; then
    echo "-- 2048² run of 400 steps, whole process (wall time, not a difference; ratio: the reference's time / ours; goal >= 2x)"
    printf '%-24s %9s %9s %6s %12s %6s%s\n' "" "ours ms" "ref ms" "ratio" "no cache ms" "ratio" "${BENCH_OLD:+   BENCH_OLD ratio}"
    awk '{ printf "%-24s %9.1f %9.1f %5.2fx %12.1f %5.2fx", $1 " spf " $2, 1000 * $3, 1000 * $4, $4 / $3, 1000 * $5, $4 / $5
           if ($6 != "") printf " %8.1f %5.2fx", 1000 * $6, $4 / $6; printf "\n" }' "$T/long"
fi
# The same runs on one thread (-j1, as the reference), by CPU time rather
# than wall time: another program on the machine then slows them less (no
# thread of a team waits for one the scheduler parked). perf stat's
# task-clock when perf runs here, else GNU time's user + sys (10 ms steps).
cpu=
if perf stat -x, -e task-clock true > /dev/null 2>&1; then
    cpu() { perf stat -x, -e task-clock -o "$T/cpu" "$@" > /dev/null && awk -F, '/task-clock/ { print $1 / 1000 }' "$T/cpu"; }
    cpu=perf
elif [ -x /usr/bin/time ]; then
    cpu() { /usr/bin/time -f "%U %S" -o "$T/cpu" "$@" > /dev/null && awk '{ print $1 + $2 }' "$T/cpu"; }
    cpu="GNU time"
fi
if [ -n "$cpu" ]; then
    echo "-- one thread (-j1), CPU time of whole runs ($cpu), best of ${PROC_TRIES:-3} in turns"
    printf '%-24s %9s %9s %6s%s\n' "solver n² spf steps" "ours ms" "ref ms" "ratio" "${BENCH_OLD:+   BENCH_OLD ratio}"
    for g in ${PROC_SIZES:-512 2048}; do
        if [ "$g" -le 512 ]; then long=4000; else long=400; fi
        for solver in ${PROC_SOLVERS:-elias flow wave}; do
            cs=; [ "$solver" = wave ] && cs="--set grid.cell_size=0.01"
            "$bin" "$T/bench.json" --set solver.type=$solver $cs --validate > /dev/null 2>&1 || continue
            for spf in 1 4; do
                f=$((long / spf))
                set -- "$T/bench.json" --set grid.width=$g --set grid.height=$g --set solver.type=$solver $cs \
                    --set time.steps_per_frame=$spf --set render.width=16 --set render.height=16 \
                    -f $((f + 1)) --range $f-$f --hash -q -j 1
                co=; cp=; cb=
                for i in $(seq "${PROC_TRIES:-3}"); do
                    co=$(shorter "$(cpu "$bin" "$@")" "$co")
                    cp=$(shorter "$(cpu "$build/tests/proc_ref" $g $long)" "$cp")
                    [ -z "$BENCH_OLD" ] || cb=$(shorter "$(cpu "$BENCH_OLD" "$@")" "$cb")
                done
                awk -v n="$solver $g² $spf $long" -v o="$co" -v p="$cp" -v b="$cb" 'BEGIN {
                    printf "%-24s %9.0f %9.0f %5.2fx", n, 1000 * o, 1000 * p, p / o
                    if (b != "") printf " %8.0f %5.2fx", 1000 * b, p / b; printf "\n" }'
            done
        done
    done
fi
echo
fi

if on at512; then
echo "== 512² at one step a frame: where a frame of sim_advance_frame goes (bench_solvers BENCH_ONLY=perframe)"
[ "${BENCH_SOLVERS:-1}" = 0 ] || BENCH_ONLY=perframe "$build/tests/bench_solvers" "$T/bench.json"
echo "-- steps fused across frames at 512² on one thread, by its CPU time (section frames' rows, which a loaded machine disturbs less)"
[ "${BENCH_SOLVERS:-1}" = 0 ] || OMP_NUM_THREADS=1 BENCH_ONLY=frames BENCH_SIZES=512 "$build/tests/bench_solvers" "$T/bench.json"
echo "-- whole process at 512², one step a frame: the last frame, every frame hashed, every frame written; best of ${W512_TRIES:-3} taken in turns"
# ripplerender itself on the bench scene at 512², steps_per_frame 1, three
# ways a user runs it: `last` renders only the last frame (16x16, --hash:
# the frames before --range fast-forward, fused across frames, as in
# section process); `hashed` renders every frame at grid size in the
# scene's mode and hashes it (--hash: batches fused across frames, each
# frame's rows drawn as the wavefront hands them out); `nut` writes every
# frame as rgb24 to a NUT stream on /dev/null (frame by frame). Each way's
# short and long runs (400 and 4000 frames; 100 and 1000 for the two that
# render every frame) in turns with proc_ref's (seed 004's loop, 400 and
# 4000 steps) and with the streaming bound of 512² on every thread
# (bench_solvers BENCH_ONLY=stream); the rate is the difference of the two
# wall times over the cells (counted as section process counts them), its
# ratio to the reference's and its share of the bound. W512_TRIES sets the
# turns.
g=512
printf '%-30s %10s %7s %7s %9s %6s\n' "solver, way" "Mcells/s" "x ref" "share" "ms/frame" "frames"
for solver in elias flow wave; do
    cs=; [ "$solver" = wave ] && cs="--set grid.cell_size=0.01"
    if ! "$bin" "$T/bench.json" --set solver.type=$solver $cs --validate > /dev/null 2>&1; then
        echo "$solver: not in this build"; continue
    fi
    # w512 WAY FRAMES: one run of FRAMES frames the way WAY.
    w512() {
        wway=$1 wf=$2
        set -- "$T/bench.json" --set grid.width=$g --set grid.height=$g --set solver.type=$solver $cs \
            --set time.steps_per_frame=1 -q
        case $wway in
            last) "$bin" "$@" --set render.width=16 --set render.height=16 -f $((wf + 1)) --range $wf-$wf --hash ;;
            hashed) "$bin" "$@" -f $wf --hash ;;
            nut) "$bin" "$@" -f $wf -o - --set output.format=nut ;;
        esac
    }
    : > "$T/w512"
    ps=; pl=; sb=
    for i in $(seq "${W512_TRIES:-3}"); do
        ps=$(shorter "$(best 1 "$build/tests/proc_ref" $g 400)" "$ps")
        pl=$(shorter "$(best 1 "$build/tests/proc_ref" $g 4000)" "$pl")
        sb=$(BENCH_ONLY=stream BENCH_SIZES=$g BENCH_ROUNDS=2 "$build/tests/bench_solvers" "$T/bench.json" |
             awk -v b="$sb" '{ print (b == "" || $2 > b) ? $2 : b }')
        for way in last hashed nut; do
            if [ $way = last ]; then short=400; long=4000; else short=100; long=1000; fi
            echo "$way $short $(best 1 w512 $way $short) $long $(best 1 w512 $way $long)" >> "$T/w512"
        done
    done
    awk -v s="$solver" -v ps="$ps" -v pl="$pl" -v sb="$sb" -v c=$(( (g - 2) * (g - 2) )) '
        { if (!($1 in ts) || $3 < ts[$1]) ts[$1] = $3; if (!($1 in tl) || $5 < tl[$1]) tl[$1] = $5
          fs[$1] = $2; fl[$1] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
        END { ref = c * 3600 / (pl - ps) / 1e6
              for (k = 1; k <= n; k++) { w = order[k]; d = tl[w] - ts[w]; f = fl[w] - fs[w]
                  r = d > 0 ? c * f / d / 1e6 : 0
                  printf "%-30s %10.0f %6.2fx %6.0f%% %9.3f %6d\n", s ", " w, r, r / ref, 100 * r / sb, 1000 * d / f, fl[w] }
              printf "%-30s %10.0f %6.2fx %6.0f%%\n", s ", proc_ref (one thread)", ref, 1, 100 * ref / sb
              printf "%-30s %10.0f %7s %6.0f%%\n", s ", streaming bound", sb, "", 100 }' "$T/w512"
done
echo
fi

if on sinkfuse; then
echo "== steps fused across frames with an output (RIPPLERENDER_FUSE=off against on), best of ${FUSE_TRIES:-3} taken in turns"
# Whole runs, one step a frame, a shaded 2048² and 4096² grid with two
# drops: frame by frame (RIPPLERENDER_FUSE=off) against fused into the
# writer's ring (on: every kind, whatever the rule picks), wall and CPU
# time (GNU time's user + sys) per frame, each the best of FUSE_TRIES
# runs in turns; "rule" says which the program picks without the variable.
cat > "$T/fuse.json" <<JSON
{ "grid": { "width": 2048, "height": 2048 }, "time": { "fps": 30, "frames": 64, "steps_per_frame": 1 },
  "solver": { "type": "elias", "damping": 0.998 }, "boundary": "fixed",
  "drops": [ { "x": 480, "y": 300, "radius": 8, "amplitude": -2.0, "shape": "cosine" },
             { "x": 1400, "y": 700, "radius": 10, "amplitude": -2.0, "shape": "cosine" } ],
  "render": { "mode": "$mode"$rng } }
JSON
# best3 LINES: the least of each column of "wall user sys" lines.
best3() { printf '%s\n' "$1" | awk 'NF { for (k = 1; k <= 3; k++) if (m[k] == "" || $k < m[k]) m[k] = $k } END { print m[1], m[2], m[3] }'; }
fuse_time() { /usr/bin/time -f "%e %U %S" -o "$T/tc" "$@" > /dev/null 2> /dev/null && cat "$T/tc"; }
printf '%-10s %6s %23s %23s %21s %6s\n' "ms/frame" "frames" "by frame wall user sys" "fused wall user sys" "gain wall user CPU" "rule"
mkdir -p "$T/fuse"
for g in 2048 4096; do
    for kind in nut npy y4m png mp4; do
        case $kind in
            nut) o="-o - --set output.format=nut"; f=128 ;;
            npy) o="-o $T/fuse/a.npy"; f=64 ;;
            y4m) o="-o -"; f=32 ;;
            png) o="-o $T/fuse/f%04d.png"; f=16 ;;
            mp4) o="-o $T/fuse/a.mp4"; f=16 ;;
        esac
        [ "$g" = 4096 ] && f=$((f / 2))
        set -- "$T/fuse.json" --set grid.width=$g --set grid.height=$g -f $f $o -y -q
        rule=$(RIPPLERENDER_DEBUG=kernels "$bin" "$@" 2>&1 > /dev/null | grep -q "into the writer's ring" && echo fused || echo frame)
        # In turns, each side first every other time: a file replaced by
        # the run before costs the next one system time (its pages freed).
        a=; b=
        for i in $(seq "${FUSE_TRIES:-3}"); do
            [ $((i % 2)) = 0 ] && b="$b
$(RIPPLERENDER_FUSE=on fuse_time "$bin" "$@")"
            a="$a
$(RIPPLERENDER_FUSE=off fuse_time "$bin" "$@")"
            [ $((i % 2)) = 1 ] && b="$b
$(RIPPLERENDER_FUSE=on fuse_time "$bin" "$@")"
        done
        awk -v n="$kind $g²" -v f="$f" -v a="$(best3 "$a")" -v b="$(best3 "$b")" -v r="$rule" 'BEGIN {
            split(a, x, " "); split(b, y, " ")
            printf "%-10s %6d %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %6.2fx %6.2fx %6.2fx %6s\n", n, f,
                   1000 * x[1] / f, 1000 * x[2] / f, 1000 * x[3] / f, 1000 * y[1] / f, 1000 * y[2] / f, 1000 * y[3] / f,
                   x[1] / y[1], x[2] / y[2], (x[2] + x[3]) / (y[2] + y[3]), r }'
        rm -rf "$T/fuse"; mkdir -p "$T/fuse"
    done
done
echo
fi

if on levels; then
echo "== CPU levels: the full build against builds capped at AVX2 and at the baseline (src/isa.h), best of ${LEVELS_TRIES:-3} turns"
# What a CPU without AVX-512 (x86-64-v3: AVX2, FMA) or without AVX2 (the
# x86-64 baseline, SSE2) runs, timed here: make bench-levels builds the
# program and the bench programs again in $build/isa3 and $build/isa1 with
# the CPU dispatch capped (-DRR_ISA_MAX), their yardsticks built for the
# same level (as -march=native would be on such a CPU). First the frames:
# each build's must be the same bits. Then the solver table's 512² and
# 2048² rows (bench_solvers: two threads, wall time), the kernels table's
# 512² rows (one thread, CPU time, which the load disturbs far less) and
# the renderer alone on a 1080p field (bench_render), each build in turn
# LEVELS_TRIES times, each figure its best. "x ref": against seed 004's
# loop on one thread built for that level (item 1's yardstick on such a
# CPU), timed the same way.
set -- "$build" "$build/isa3" "$build/isa1"
# program DIR: a build's ripplerender.
program() { if [ "$1" = "$build" ]; then echo "$bin"; else echo "$1/ripplerender"; fi; }
for d; do
    if [ ! -x "$d/tests/bench_solvers" ] || [ ! -x "$d/tests/bench_render" ] || [ ! -x "$(program "$d")" ]; then
        echo "levels: $d is not built (make bench-levels builds it)"; set --; break
    fi
done
if [ $# = 3 ]; then
    # Hashes of every frame: elias, flow and wave at 512², 1 and 4 steps a
    # frame, and the shaded and caustics renders of the 1080p rain.
    frames_of() {
        for solver in elias flow wave; do
            for spf in 1 4; do
                "$(program "$1")" "$T/bench.json" --set solver.type=$solver --set grid.cell_size=0.01 \
                    --set grid.width=512 --set grid.height=512 --set time.steps_per_frame=$spf -f 12 --hash -q
            done
        done
        for m in shaded caustics; do "$(program "$1")" "$T/render.json" --set render.mode=$m -f 6 --hash -q; done
    }
    frames_of "$1" > "$T/lv-bits"
    for d in "$2" "$3"; do
        frames_of "$d" | cmp -s - "$T/lv-bits" && echo "frames of $d: the same bits as $1's" \
            || echo "frames of $d: NOT the same bits as $1's"
    done
    for i in $(seq "${LEVELS_TRIES:-3}"); do
        k=0
        for d; do
            k=$((k + 1))
            BENCH_ONLY=table BENCH_SIZES="512 2048" BENCH_ROUNDS=1 "$d/tests/bench_solvers" "$T/bench.json" >> "$T/lv-s$k"
            BENCH_ONLY=kernels BENCH_SIZES=512 BENCH_ROUNDS=1 "$d/tests/bench_solvers" "$T/bench.json" >> "$T/lv-k$k"
            "$d/tests/bench_render" "$T/render.json" >> "$T/lv-r$k"
        done
    done
    # The best figure of each row at each level, from the files lv-s1..3
    # (solver table), lv-k1..3 (kernels table), lv-r1..3 (bench_render).
    awk '
        FNR == 1 { f++; k = (f - 1) % 3 + 1 }
        function keep(key, v) { if (!(key in seen)) { seen[key] = 1; order[++n] = key } if (v > best[key, k]) best[key, k] = v }
        FILENAME ~ /lv-s/ && $1 ~ /^(elias|flow|wave)$/ {
            keep("2 " $1 " " $2 " " $3, $4); if ($5 > ref2[$2, k]) ref2[$2, k] = $5 }
        FILENAME ~ /lv-k/ && $1 ~ /^(elias|flow|wave)$/ && $4 == "by" { keep("1 " $1 " " $2 " " $3, $6) }
        FILENAME ~ /lv-k/ && $1 == "seed004" { if ($3 > ref1[$2, k]) ref1[$2, k] = $3 }
        FILENAME ~ /lv-r/ && $1 ~ /^(shaded|caustics|normals)$/ { if (ms[$1, k] == "" || $2 < ms[$1, k]) ms[$1, k] = $2 }
        function head(what) {
            printf "%-18s %-24s %-24s %-24s\n", what, "AVX-512 (full build)", "AVX2 (isa3)", "baseline (isa1)" }
        function rows(t) {
            for (i = 1; i <= n; i++) {
                split(order[i], c, " "); if (c[1] != t) continue
                printf "%-7s %7s %3s", c[2], c[3], c[4]
                for (j = 1; j <= 3; j++) {
                    r = (t == 2 ? ref2[c[3], j] : ref1[c[3], j])
                    printf "   %8.0f %6.2fx ref", best[order[i], j], (r > 0 ? best[order[i], j] / r : 0)
                }
                printf "\n"
            }
        }
        END {
            print "two threads, wall time: Mcells/s and x seed 004 on one thread built for the level"
            head("solver grid spf"); rows(2)
            print "one thread, CPU time (section kernels): the same"
            head("solver grid spf"); rows(1)
            printf "%-18s", "seed004 512²"; for (j = 1; j <= 3; j++) printf "   %8.0f %10s", ref1["512²", j], ""; printf "\n"
            print "1080p render alone (bench_render): ms a frame and x the full build'"'"'s"
            head("mode")
            split("shaded caustics normals", m, " ")
            for (i = 1; i <= 3; i++) {
                printf "%-18s", m[i]
                for (j = 1; j <= 3; j++) printf "   %8.2f %6.2fx    ", ms[m[i], j], (ms[m[i], 1] > 0 ? ms[m[i], j] / ms[m[i], 1] : 0)
                printf "\n"
            }
        }' "$T/lv-s1" "$T/lv-s2" "$T/lv-s3" "$T/lv-k1" "$T/lv-k2" "$T/lv-k3" "$T/lv-r1" "$T/lv-r2" "$T/lv-r3"
fi
echo
fi

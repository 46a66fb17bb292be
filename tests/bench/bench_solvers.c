/* bench_solvers.c: cell updates per second of each finite-difference solver
 * through the public sim API (sim_advance_frame: steps, walls, sources and
 * the blow-up check, as a render does), side by side in one run with
 *   - seed 004's loop (the 4-neighbour ripple), one thread, built by
 *     the bench itself with -O3 -march=native (bench_ref.c),
 *   - the streaming bound of the grid: one sweep's memory traffic, no
 *     neighbours, every core (bench_ref.c),
 * the same solver on one thread (the kernels' own speed, apart from the
 * threads' scaling, which suffers most when other programs share the cores),
 * and, when this build has the spectral solver and fftw3f was found, one
 * spectral step of a 1024^2 grid (BENCH_SPECTRAL_SIZES: of each size listed)
 * with wrap, fixed, clamp, mixed and absorb edges, with
 * estimated and with measured FFT plans (RIPPLERENDER_FFT), against
 * FFTW_MEASURE complex 2-D round trips of the grid's and of the absorb
 * domain's size (spectral_row).
 * Every figure is the best of several tries (the machine is shared): in the
 * solver table, ROUNDS turns of each row taken in rotation with the other
 * rows of its grid size and with the yardsticks (solver_table); for the
 * spectral row, TRIES. Prints
 * a table; asserts nothing (speed is measured here, never in tests).
 * Also steps fused across frames (sim_advance_frames) at 512² and 2048²
 * with one and four steps a frame, at 4096² with one and two and at 8192²
 * with four, every frame's rows read as they are handed out, beside frame
 * by frame (with and without each frame read) and the streaming bound
 * (frames_table).
 * BENCH_ONLY=spectral in the environment runs the spectral row alone
 * (BENCH_ONLY=table: the solver table alone); BENCH_ONLY=frames runs the
 * fused frames' table, which is not part of the default run (make bench
 * runs it as its own section, tests/bench.sh); BENCH_ONLY=kernels the row
 * kernels' own rate on one thread by CPU time (kernels_table), likewise.
 * BENCH_ONLY=stream prints the streaming bound alone (stream_line);
 * BENCH_ONLY=perframe where a 512² frame of one step goes (perframe_table).
 * BENCH_SIZES ("512 2048": which of each table's grid sizes run; all by
 * default) and BENCH_ROUNDS (their turns) narrow the solver, frames and
 * kernels tables, as make bench's levels section does to run them once per build
 * in turns. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_ref.h"
#include "field.h"
#include "isa.h"
#include "scene.h"
#include "sim.h"
#include "solver.h"
#include "tblock.h"

#ifdef HAVE_FFTW3F
#include <fftw3.h>
#endif

/* Tries of the spectral row and of its FFTW yardstick. */
#define TRIES 5
/* Turns of each row of the solver table (see solver_table). */
#define ROUNDS 4
/* Cell updates per timed run: about 0.15 s at 2 Gcells/s. */
#define CELLS_PER_RUN 3e8

struct sim_run {
    struct scene sc;
    struct sim *sim;
};

/* Loads the bench scene with the grid, solver and steps per frame set, and
 * `extra` (a --set assignment, or NULL).
 * Returns 0, or -1 after printing why (1: the solver is not in this build). */
static int run_open_with(struct sim_run *r, const char *scene_path, const char *solver, int n, int spf, int frames,
                         const char *extra)
{
    char sets[7][128];
    snprintf(sets[0], sizeof sets[0], "grid.width=%d", n);
    snprintf(sets[1], sizeof sets[1], "grid.height=%d", n);
    snprintf(sets[2], sizeof sets[2], "solver.type=%s", solver);
    snprintf(sets[3], sizeof sets[3], "time.frames=%d", frames);
    snprintf(sets[4], sizeof sets[4], "time.steps_per_frame=%d", spf);
    /* wave is in physical units: 1 cm cells keep its Courant number (0.67
     * at one step per frame) stable at every steps_per_frame timed here. */
    snprintf(sets[5], sizeof sets[5], "grid.cell_size=0.01");
    snprintf(sets[6], sizeof sets[6], "%s", extra ? extra : "");
    const char *argv[7] = { sets[0], sets[1], sets[2], sets[3], sets[4], sets[5], sets[6] };
    int argc = strcmp(solver, "wave") == 0 ? 6 : 5;
    if (extra) {
        argv[argc] = sets[6];
        argc++;
    }
    struct rr_err e = { 0 };
    memset(r, 0, sizeof *r);
    if (scene_load(&r->sc, scene_path, argv, argc, &e) < 0 || sim_create(&r->sim, &r->sc, &e) < 0) {
        scene_free(&r->sc);
        if (strstr(e.msg, "not available"))
            return 1;
        fprintf(stderr, "bench: %s\n", e.msg);
        return -1;
    }
    return 0;
}

static int run_open(struct sim_run *r, const char *scene_path, const char *solver, int n, int spf, int frames)
{
    return run_open_with(r, scene_path, solver, n, spf, frames, NULL);
}

static void run_close(struct sim_run *r)
{
    sim_free(r->sim);
    scene_free(&r->sc);
}

/* Cells per second of `solver` on an n x n grid, best of `tries` runs of
 * `frames` frames after untimed frames of at least BENCH_WARM_STEPS steps
 * (the first touch of every page, and the slow first sweeps the yardsticks
 * skip too). 0: the solver is not in this build; -1: another failure. */
static double sim_cells_per_s(const char *scene_path, const char *solver, int n, int spf, int frames, int tries)
{
    const int warm = (BENCH_WARM_STEPS + spf - 1) / spf;
    struct sim_run r;
    int st = run_open(&r, scene_path, solver, n, spf, frames * tries + warm + 1);
    if (st)
        return st > 0 ? 0 : -1;
    struct rr_err e = { 0 };
    double best = -1;
    bench_settle();
    for (int f = 0; f < warm; f++)
        if (sim_advance_frame(r.sim, &e) < 0)
            goto out;
    for (int t = 0; t < tries; t++) {
        double t0 = bench_now();
        for (int f = 0; f < frames; f++)
            if (sim_advance_frame(r.sim, &e) < 0)
                goto out;
        double c = (double)n * n * spf * frames / (bench_now() - t0);
        best = c > best ? c : best;
    }
out:
    if (e.msg[0])
        fprintf(stderr, "bench: %s\n", e.msg);
    run_close(&r);
    return best;
}

/* One row of the table: a solver and steps per frame, its best figures so far. */
struct table_row {
    int solver, spf;
    double both, one;   /* cells per second on every thread, on one */
};

static double larger(double a, double b) { return a > b ? a : b; }

/* Whether grid size n is among BENCH_SIZES (every size when it is unset). */
static int size_wanted(int n)
{
    const char *s = getenv("BENCH_SIZES");
    if (!s || !*s)
        return 1;
    for (char *end;; s = end) {
        long v = strtol(s, &end, 10);
        if (end == s)
            return 0;
        if (v == n)
            return 1;
    }
}

/* Turns of each table: BENCH_ROUNDS, else ROUNDS. */
static int rounds_wanted(void)
{
    const char *s = getenv("BENCH_ROUNDS");
    return s && atoi(s) > 0 ? atoi(s) : ROUNDS;
}

/* For each grid size: every row and the two yardsticks measured in turns,
 * ROUNDS times over (ours on every thread, ours on one, seed 004's loop, the
 * streaming bound), each figure the best of its turns. On a shared machine a
 * burst of other work then slows a row and its yardsticks alike instead of
 * whichever happened to run during it, and the yardsticks, measured once per
 * row in every round, get the most tries. */
static void solver_table(const char *scene_path)
{
    static const char *const solvers[] = { "elias", "flow", "wave" };
    static const int sizes[] = { 512, 2048, 4096 };
    static const int spfs[] = { 1, 4 };
    enum { N_SOLVERS = sizeof solvers / sizeof *solvers, N_SPFS = sizeof spfs / sizeof *spfs };
    int skipped[N_SOLVERS] = { 0 };
    const int threads = omp_get_max_threads(), rounds = rounds_wanted();
    printf("threads: %d; each figure the best of %d turns taken in rotation with the others of its grid size\n",
           threads, rounds);
    printf("%-7s %6s %4s %10s %12s %7s %11s %7s %9s %6s\n", "solver", "grid", "spf", "Mcells/s", "seed004 1thr",
           "ratio", "stream bnd", "share", "1 thread", "ratio");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const int n = sizes[s];
        if (!size_wanted(n))
            continue;
        int steps = (int)(CELLS_PER_RUN / ((double)n * n)) / 4 * 4;
        if (steps < 8)
            steps = 8;
        struct table_row rows[N_SOLVERS * N_SPFS];
        int n_rows = 0;
        for (int k = 0; k < N_SOLVERS; k++)
            for (int p = 0; p < N_SPFS; p++)
                rows[n_rows++] = (struct table_row){ .solver = k, .spf = spfs[p] };
        double ref = 0, stream = 0;
        for (int round = 0; round < rounds; round++)
            for (int i = 0; i < n_rows; i++) {
                struct table_row *r = &rows[i];
                if (skipped[r->solver] || r->both < 0)
                    continue;
                const char *name = solvers[r->solver];
                double c = sim_cells_per_s(scene_path, name, n, r->spf, steps / r->spf, 1);
                if (c == 0) {
                    printf("%-7s skipped: this build has no %s solver\n", name, name);
                    skipped[r->solver] = 1;
                    continue;
                }
                if (c < 0) {
                    r->both = -1;
                    continue;
                }
                r->both = larger(r->both, c);
                omp_set_num_threads(1);
                r->one = larger(r->one, sim_cells_per_s(scene_path, name, n, r->spf, steps / r->spf, 1));
                omp_set_num_threads(threads);
                ref = larger(ref, bench_reference(n, steps, 1));
                stream = larger(stream, bench_stream(n, steps, 1));
            }
        for (int i = 0; i < n_rows; i++) {
            const struct table_row *r = &rows[i];
            if (skipped[r->solver] || r->both <= 0)
                continue;
            printf("%-7s %5d² %4d %10.1f %12.1f %6.2fx %11.1f %6.0f%% %9.1f %5.2fx\n", solvers[r->solver], n,
                   r->spf, r->both / 1e6, ref / 1e6, r->both / ref, stream / 1e6, 100 * r->both / stream,
                   r->one / 1e6, r->one / ref);
        }
        fflush(stdout);
    }
}

/* A consumer of sim_advance_frames' rows: each row's 32-bit words folded
 * by XOR into a word per row (what a hash or a renderer's read of the row
 * costs at least, from cache), so the frames are read and not only made.
 * The fold is built for AVX-512 and AVX2 too (isa.h), as the program's own
 * passes over a frame are: at 512² a baseline build's fold of a frame
 * takes about as long as the step that made it. */
struct fold {
    int h;
    unsigned *word;
};

RR_CLONES_V4_V3 static unsigned fold_row(const float *row, int w)
{
    unsigned acc = 0;
    for (int x = 0; x < w; x++) {
        unsigned b;
        memcpy(&b, &row[x], sizeof b);
        acc ^= b;
    }
    return acc;
}

static void fold_rows(void *arg, long frame, const struct field *v, int y0, int y1)
{
    struct fold *fd = arg;
    (void)frame;
    for (int y = y0; y < y1; y++)   /* rows of two frames may meet */
        __atomic_fetch_xor(&fd->word[y], fold_row(v->cur + y * v->stride, v->w), __ATOMIC_RELAXED);
}

/* Frames a call of sim_advance_frames takes in the frames row: enough for
 * any fused pass (SOLVER_MAX_LEVELS steps) to run whole inside it. */
#define FRAMES_CHUNK 64
/* Untimed passes of the deepest fused pass before the frames row's timing:
 * the tuners' trials of every way (TBLOCK_TUNE_ROUNDS of each of at most
 * four, src/tblock_internal.h) are over by then on both sides. */
#define FRAMES_WARM_PASSES 26

/* The ways a frames row advances a simulation: fused across frames, each
 * frame's rows read as they are handed out; frame by frame with no frame
 * read (the solver table's measure); frame by frame with each frame's rows
 * read once it is made (sim_advance_frames a frame a call: the rows read
 * on the pool's threads after the step, as a frame-by-frame render reads
 * them). */
enum frames_way { FUSED, BY_FRAME, BY_FRAME_READ, FRAMES_WAYS };

/* One side of a frames row: a simulation advanced one of those ways, kept
 * open across the turns. */
struct frames_side {
    struct sim_run r;
    struct fold fd;
    enum frames_way way;
    int open;
};

/* Advances `frames` frames of one side; returns cells per second, or -1. */
static double frames_run(struct frames_side *sd, int n, int spf, int frames)
{
    struct rr_err e = { 0 };
    bench_settle();
    double t0 = bench_now();
    for (int f = 0; f < frames;) {
        int k = sd->way != FUSED ? 1 : frames - f < FRAMES_CHUNK ? frames - f : FRAMES_CHUNK, done;
        if (sd->way == BY_FRAME ? sim_advance_frame(sd->r.sim, &e) < 0
                                : sim_advance_frames(sd->r.sim, k, fold_rows, &sd->fd, &done, &e) < 0) {
            fprintf(stderr, "bench: %s\n", e.msg);
            return -1;
        }
        f += k;
    }
    return (double)n * n * spf * frames / (bench_now() - t0);
}

/* The solvers (at most FRAMES_SOLVERS) at n x n and spf steps a frame, the
 * first `ways` of the frames_way ways (best[k][way]: cells per second, the
 * best of ROUNDS turns of `frames` frames; 0: not run, -1: failed), each
 * after FRAMES_WARM_PASSES untimed passes, in rotation with the streaming
 * bound (*stream, its best). The simulations of a solver stay open across
 * the turns. */
#define FRAMES_SOLVERS 3
static void frames_measure(const char *scene_path, const char *const *solvers, int ns, int n, int spf, int frames,
                           int ways, double best[][FRAMES_WAYS], double *stream)
{
    struct frames_side sides[FRAMES_SOLVERS][FRAMES_WAYS];
    memset(sides, 0, sizeof sides);
    *stream = 0;
    for (int k = 0; k < ns; k++)
        for (int m = 0; m < ways; m++) {
            struct frames_side *sd = &sides[k][m];
            best[k][m] = 0;
            sd->way = (enum frames_way)m;
            if (run_open(&sd->r, scene_path, solvers[k], n, spf, 1000000))
                continue;
            sd->open = 1;
            sd->fd.word = calloc((size_t)n, sizeof(unsigned));
            const int warm = (FRAMES_WARM_PASSES * tblock_max_steps(sim_field(sd->r.sim)) + spf - 1) / spf;
            if (!sd->fd.word || frames_run(sd, n, spf, warm) < 0)
                best[k][m] = -1;
        }
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < ns; k++) {
            for (int m = 0; m < ways; m++)
                if (sides[k][m].open && best[k][m] >= 0)
                    best[k][m] = larger(best[k][m], frames_run(&sides[k][m], n, spf, frames));
            *stream = larger(*stream, bench_stream(n, frames * spf / 4, 1));
        }
    for (int k = 0; k < ns; k++)
        for (int m = 0; m < ways; m++)
            if (sides[k][m].open) {
                free(sides[k][m].fd.word);
                run_close(&sides[k][m].r);
            }
}

/* Steps fused across frames (sim_advance_frames) against frame by frame:
 * at 512² (the planes in the L2 and L3 caches) and 2048² (about the L3)
 * with 1 and 4 steps a frame, and where one step a frame is otherwise
 * bound by the memory (4096²: 1 and 2 steps a frame; 8192², beyond the
 * L3: 4). Each solver the fused way, every frame's rows read while in
 * cache (fold_rows); frame by frame with no frame read (the solver table's
 * measure) and with each frame read after its step (what fusing saves a
 * frame-by-frame render: its gain is the one a run that reads every frame
 * sees); and the streaming bound. The simulations of a solver stay open
 * and warm (FRAMES_WARM_PASSES), then ROUNDS turns in rotation, each
 * figure the best of its turns. BENCH_SIZES narrows the grid sizes. With
 * OMP_NUM_THREADS=1 every side runs on the bench's own thread, timed by
 * its CPU time (as spectral_row), which a loaded machine disturbs far
 * less. */
static void frames_table(const char *scene_path)
{
    static const char *const solvers[] = { "elias", "flow", "wave" };
    static const struct {
        int n, spf;
    } cases[] = { { 512, 1 }, { 512, 4 }, { 2048, 1 }, { 2048, 4 }, { 4096, 1 }, { 4096, 2 }, { 8192, 4 } };
    enum { N = sizeof solvers / sizeof *solvers };
    const int one = omp_get_max_threads() == 1;
    bench_cpu_clock = one;
    printf("steps fused across frames (sim_advance_frames, %d frames a call, each frame's rows read as handed "
           "out) against frame by frame (sim_advance_frame, no frame read; and each frame read after its step); "
           "best of %d turns%s\n",
           FRAMES_CHUNK, ROUNDS, one ? "; one thread, by its CPU time" : "");
    printf("%-7s %6s %4s %11s %6s %11s %6s %11s %6s %11s %6s %6s\n", "solver", "grid", "spf", "fused Mc/s", "share",
           "by frame", "share", "frame+read", "share", "stream bnd", "gain", "+read");
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const int n = cases[c].n, spf = cases[c].spf;
        if (!size_wanted(n))
            continue;
        const int steps = (int)larger(2 * CELLS_PER_RUN / ((double)n * n), 48), frames = (steps + spf - 1) / spf;
        double best[N][FRAMES_WAYS], stream;
        frames_measure(scene_path, solvers, N, n, spf, frames, FRAMES_WAYS, best, &stream);
        for (int k = 0; k < N; k++) {
            const double *b = best[k];
            if (b[FUSED] <= 0 || b[BY_FRAME] <= 0 || b[BY_FRAME_READ] <= 0)
                continue;
            printf("%-7s %5d² %4d %11.1f %5.0f%% %11.1f %5.0f%% %11.1f %5.0f%% %11.1f %5.2fx %5.2fx\n", solvers[k], n,
                   spf, b[FUSED] / 1e6, 100 * b[FUSED] / stream, b[BY_FRAME] / 1e6, 100 * b[BY_FRAME] / stream,
                   b[BY_FRAME_READ] / 1e6, 100 * b[BY_FRAME_READ] / stream, stream / 1e6, b[FUSED] / b[BY_FRAME],
                   b[FUSED] / b[BY_FRAME_READ]);
        }
        fflush(stdout);
    }
    bench_cpu_clock = 0;
}

/* The row kernels' own rate: every figure on one thread by that thread's
 * CPU time (bench_cpu_clock), which a loaded machine disturbs far less
 * than wall time, as ns a cell and against seed 004's loop and the
 * streaming bound taken the same way: 512² (rows from L2 and L3) at 1, 4
 * and 16 steps a frame (the deeper fused passes keep their rows in L1 and
 * L2), and 8192² at 4 steps a frame (rows from L2 in the fused passes)
 * fused across frames and frame by frame. ROUNDS turns in rotation, each
 * figure the best of its turns. */
static void kernels_table(const char *scene_path)
{
    static const char *const solvers[] = { "elias", "flow", "wave" };
    static const int spfs[] = { 1, 4, 16 };
    enum { N = sizeof solvers / sizeof *solvers, P = sizeof spfs / sizeof *spfs };
    const int threads = omp_get_max_threads(), small = 512, big = 8192, big_spf = 4, rounds = rounds_wanted();
    omp_set_num_threads(1);
    bench_cpu_clock = 1;
    printf("one thread, by its CPU time; best of %d turns\n", rounds);
    printf("%-7s %6s %4s %-9s %10s %8s %9s %9s\n", "solver", "grid", "spf", "way", "Mcells/s", "ns/cell",
           "/seed004", "/stream");
    const int steps = (int)(CELLS_PER_RUN / ((double)small * small)) / 16 * 16;
    double best[N][P] = { { 0 } }, ref = 0, stream = 0;
    for (int round = 0; round < rounds && size_wanted(small); round++)
        for (int k = 0; k < N; k++) {
            for (int p = 0; p < P; p++)
                if (best[k][p] >= 0)
                    best[k][p] = larger(best[k][p], sim_cells_per_s(scene_path, solvers[k], small, spfs[p],
                                                                     steps / spfs[p], 1));
            ref = larger(ref, bench_reference(small, steps, 1));
            stream = larger(stream, bench_stream(small, steps, 1));
        }
    for (int k = 0; k < N; k++)
        for (int p = 0; p < P; p++)
            if (best[k][p] > 0)
                printf("%-7s %5d² %4d %-9s %10.1f %8.4f %8.2fx %8.2fx\n", solvers[k], small, spfs[p], "by frame",
                       best[k][p] / 1e6, 1e9 / best[k][p], best[k][p] / ref, best[k][p] / stream);
    if (size_wanted(small))
        printf("%-7s %5d² %4s %-9s %10.1f %8.4f\n%-7s %5d² %4s %-9s %10.1f %8.4f\n", "seed004", small, "", "",
               ref / 1e6, 1e9 / ref, "stream", small, "", "", stream / 1e6, 1e9 / stream);
    fflush(stdout);
    if (!size_wanted(big)) {
        bench_cpu_clock = 0;
        omp_set_num_threads(threads);
        return;
    }
    const int frames = (int)larger(CELLS_PER_RUN / ((double)big * big), 48) / big_spf;
    double got[N][FRAMES_WAYS];
    frames_measure(scene_path, solvers, N, big, big_spf, frames, BY_FRAME + 1, got, &stream);
    for (int k = 0; k < N; k++)
        for (int m = 0; m < 2; m++) {
            if (got[k][m] > 0)
                printf("%-7s %5d² %4d %-9s %10.1f %8.4f %9s %8.2fx\n", solvers[k], big, big_spf,
                       m == 0 ? "fused" : "by frame", got[k][m] / 1e6, 1e9 / got[k][m], "", got[k][m] / stream);
        }
    printf("%-7s %5d² %4s %-9s %10.1f %8.4f\n", "stream", big, "", "", stream / 1e6, 1e9 / stream);
    bench_cpu_clock = 0;
    omp_set_num_threads(threads);
}

/* Where a frame of one step goes at 512² (BENCH_ONLY=perframe): the
 * solver table's figure (sim_advance_frame on the bench scene, a drop
 * spreading from a corner) set apart from the step alone. Four ways, each
 * solver's in turns with the streaming bound: sim_advance_frame on the
 * bench scene; the same simulation with its planes refilled with heights
 * of a few hundredths (as bench_steps.c does: none decays to a subnormal
 * within the run); and tblock_step alone, by the solver's own kernels on a
 * field of its own, from the bench scene's planes and from the refilled
 * ones. Each a run of PERFRAME_FRAMES frames after the 4 untimed ones
 * (BENCH_WARM_STEPS) of a fresh simulation, as the solver table's run is;
 * each frame timed too, so that the run's mean (the table's measure) shows
 * beside its median (bench_steps.c's: without the frames that another
 * program delayed). The tblock_step ways first step 40 times untimed (the
 * tuner's trials, which the simulation's cache lets it skip). */
#define PERFRAME_FRAMES 1144
enum perframe_way { PF_SIM, PF_SIM_FILLED, PF_STEP, PF_STEP_FILLED, PF_WAYS };

/* Heights of a few hundredths, different in the two planes. */
static void perframe_fill(struct field *f)
{
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            f->cur[y * f->stride + x] = (float)((x * 7 + y * 3) % 11) * 0.01f;
            f->prev[y * f->stride + x] = (float)((x * 5 + y) % 13) * 0.01f;
        }
}

/* f's planes, ghosts included, from g's (same size). */
static void perframe_copy(struct field *f, const struct field *g)
{
    for (int y = -1; y <= g->h; y++) {
        memcpy(f->cur + y * f->stride - 1, g->cur + y * g->stride - 1, (size_t)(g->w + 2) * sizeof(float));
        memcpy(f->prev + y * f->stride - 1, g->prev + y * g->stride - 1, (size_t)(g->w + 2) * sizeof(float));
    }
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One run of `way` for `solver` at n²: *mean and *median µs a frame, or
 * -1 on a failure (printed). 1: the solver is not in this build. */
static int perframe_run(const char *scene_path, const char *solver, int n, enum perframe_way way, double *mean,
                        double *median)
{
    static double t[PERFRAME_FRAMES];
    struct sim_run r;
    int st = run_open(&r, scene_path, solver, n, 1, PERFRAME_FRAMES + BENCH_WARM_STEPS + 1);
    if (st)
        return st;
    struct rr_err e = { 0 };
    struct field f = { 0 };
    void *priv = NULL;
    struct tblock_kernel *kn = NULL;
    const struct solver_ops *ops = r.sc.solver.type;
    int ok = 1;
    for (int k = 0; k < BENCH_WARM_STEPS; k++)
        ok &= sim_advance_frame(r.sim, &e) == 0;
    if (ok && (way == PF_STEP || way == PF_STEP_FILLED)) {
        ok = ops->kernel && (priv = calloc(1, ops->priv_size)) && field_init(&f, n, n, &e) == 0
             && ops->init(priv, &r.sc, &f, &e) == 0;
        if (ok) {
            kn = ops->kernel(priv);
            perframe_copy(&f, sim_field(r.sim));
            for (int k = 0; k < 40; k++)
                tblock_step(&f, kn, &(struct solver_screen){ .limit = 1e6f });
            perframe_copy(&f, sim_field(r.sim));
            if (way == PF_STEP_FILLED)
                perframe_fill(&f);
        }
    } else if (ok && way == PF_SIM_FILLED)
        perframe_fill((struct field *)sim_field(r.sim));   /* the bench's own simulation: its planes are ours */
    if (ok) {
        bench_settle();
        const double t0 = bench_now();
        for (int k = 0; k < PERFRAME_FRAMES && ok; k++) {
            const double a = bench_now();
            if (kn)
                tblock_step(&f, kn, &(struct solver_screen){ .limit = 1e6f });
            else
                ok = sim_advance_frame(r.sim, &e) == 0;
            t[k] = bench_now() - a;
        }
        *mean = 1e6 * (bench_now() - t0) / PERFRAME_FRAMES;
        qsort(t, PERFRAME_FRAMES, sizeof *t, by_value);
        *median = 1e6 * t[PERFRAME_FRAMES / 2];
    }
    if (!ok)
        fprintf(stderr, "bench: %s: %s\n", solver, e.msg[0] ? e.msg : "out of memory");
    if (priv) {
        if (kn)
            ops->free(priv);
        free(priv);
        field_free(&f);
    }
    run_close(&r);
    return ok ? 0 : -1;
}

static void perframe_table(const char *scene_path)
{
    static const char *const solvers[] = { "elias", "flow", "wave" };
    static const char *const way_names[PF_WAYS] = { "sim, scene", "sim, filled", "step, scene", "step, filled" };
    enum { N = sizeof solvers / sizeof *solvers };
    const int n = 512, rounds = rounds_wanted();
    double mean[N][PF_WAYS], median[N][PF_WAYS], stream = 0;
    int skip[N] = { 0 };
    for (int k = 0; k < N; k++)
        for (int m = 0; m < PF_WAYS; m++)
            mean[k][m] = median[k][m] = 1e30;
    for (int round = 0; round < rounds; round++)
        for (int k = 0; k < N; k++) {
            for (int m = 0; m < PF_WAYS && !skip[k]; m++) {
                double a, b;
                int st = perframe_run(scene_path, solvers[k], n, (enum perframe_way)m, &a, &b);
                if (st) {
                    skip[k] = st;
                    break;
                }
                mean[k][m] = a < mean[k][m] ? a : mean[k][m];
                median[k][m] = b < median[k][m] ? b : median[k][m];
            }
            stream = larger(stream, bench_stream(n, PERFRAME_FRAMES, 1));
        }
    const double sweep = 1e6 * n * n / stream;
    printf("%d² one step a frame, %d threads, µs a frame as mean/median of %d frames (each the best of %d turns); "
           "the streaming bound's sweep %.2f µs; share: of it, by the mean\n",
           n, omp_get_max_threads(), PERFRAME_FRAMES, rounds, sweep);
    printf("%-7s", "solver");
    for (int m = 0; m < PF_WAYS; m++)
        printf(" %20s", way_names[m]);
    printf("\n");
    for (int k = 0; k < N; k++) {
        if (skip[k]) {
            printf("%-7s %s\n", solvers[k], skip[k] > 0 ? "skipped: not in this build" : "failed");
            continue;
        }
        printf("%-7s", solvers[k]);
        for (int m = 0; m < PF_WAYS; m++)
            printf("   %6.2f/%6.2f %3.0f%%", mean[k][m], median[k][m], 100 * sweep / mean[k][m]);
        printf("\n");
    }
    fflush(stdout);
}

/* Seconds a step of `steps` spectral steps, or 1e30 when the scene failed. */
static double spectral_block(struct sim_run *r, int steps)
{
    struct rr_err e = { 0 };
    double t0 = bench_now();
    for (int f = 0; f < steps; f++)
        if (sim_advance_frame(r->sim, &e) < 0)
            return 1e30;
    return (bench_now() - t0) / steps;
}

#ifdef HAVE_FFTW3F
/* An FFTW complex 2-D forward + inverse transform of n x n, in place,
 * planned with FFTW_MEASURE on every thread (planning is not timed). */
struct fft_trip {
    int n;
    fftwf_complex *a;
    fftwf_plan fw, bw;
};

static int fft_trip_open(struct fft_trip *t, int n)
{
    t->n = n;
    t->a = fftwf_alloc_complex((size_t)n * n);
    if (!t->a)
        return -1;
    t->fw = fftwf_plan_dft_2d(n, n, t->a, t->a, FFTW_FORWARD, FFTW_MEASURE);
    t->bw = fftwf_plan_dft_2d(n, n, t->a, t->a, FFTW_BACKWARD, FFTW_MEASURE);
    for (size_t i = 0; i < (size_t)n * n; i++)
        t->a[i][0] = t->a[i][1] = (float)(i % 7) * 0.1f;
    return 0;
}

/* Seconds a round trip, over a block of `trips`. */
static double fft_trip_block(struct fft_trip *t, int trips)
{
    double t0 = bench_now();
    for (int k = 0; k < trips; k++) {
        fftwf_execute(t->fw);
        fftwf_execute(t->bw);
    }
    return (bench_now() - t0) / trips;
}

static void fft_trip_close(struct fft_trip *t)
{
    fftwf_destroy_plan(t->fw);
    fftwf_destroy_plan(t->bw);
    fftwf_free(t->a);
}
#endif

/* One spectral step of an n x n grid with each kind of edges (`edges`: the
 * FFT domain is the grid, or the grid and its absorb pads:
 * solver_spectral_domain), each with estimated plans (the default) and with
 * measured ones (RIPPLERENDER_FFT=measure, its wisdom cached in a temporary
 * XDG_CACHE_HOME so that the user's cache is not touched), against FFTW
 * complex 2-D forward + inverse transforms planned with FFTW_MEASURE of the
 * grid's size and of the absorb domain's size (no planning is timed), all in
 * turns, as the table's rows are, so that a burst of another program's work
 * slows all alike; each the best of TRIES blocks. Skipped, saying why, when
 * either side is missing. */
static void spectral_row(const char *scene_path, int n)
{
    /* Every way an axis is transformed: periodic, the three real-to-real
     * pairs of fixed and clamp edges (mixed: fixed on one side, clamp on
     * the other, on both axes), absorb pads. Absorb stays last: the second
     * yardstick is its domain's size (the grid and its pads). */
    static const char *const edges[] = { "wrap", "fixed", "clamp", "mixed", "absorb" };
    static const char *const sets[] = {
        "boundary=wrap", "boundary=fixed", "boundary=clamp",
        "boundary={\"left\": \"fixed\", \"right\": \"clamp\", \"top\": \"clamp\", \"bottom\": \"fixed\"}",
        "boundary=absorb",
    };
    enum { E = sizeof edges / sizeof *edges, R = 2 * E };
    const int steps = n > 1024 ? 5 : n < 1024 ? 80 : 20;
    struct sim_run r[R];   /* edge e, plans m (0 estimated, 1 measured): r[2 e + m] */
    char cache[] = "/tmp/bench-fft-XXXXXX";
    if (!mkdtemp(cache)) {
        perror("bench: mkdtemp");
        return;
    }
    setenv("XDG_CACHE_HOME", cache, 1);
    /* On one thread (OMP_NUM_THREADS=1) every side runs on this thread:
     * timed by its CPU time, which other programs disturb far less. */
    const int one = omp_get_max_threads() == 1;
    bench_cpu_clock = one;
    int opened = 0;
    for (; opened < R; opened++) {
        setenv("RIPPLERENDER_FFT", opened % 2 ? "measure" : "estimate", 1);
        int st = run_open_with(&r[opened], scene_path, "spectral", n, 1, steps * TRIES + 2, sets[opened / 2]);
        if (st) {
            printf("spectral skipped: %s\n", st > 0 ? "this build has no spectral solver" : "the scene failed");
            break;
        }
    }
    unsetenv("RIPPLERENDER_FFT");
    int ok = opened == R;
    double best[R];
    int dom[E][2];
    for (int k = 0; k < opened; k++) {
        best[k] = spectral_block(&r[k], 1);
        if (k % 2 == 0)
            solver_spectral_domain(&r[k].sc, &dom[k / 2][0], &dom[k / 2][1]);
    }
#ifdef HAVE_FFTW3F
    /* The yardsticks: the grid's size, and the absorb domain's (square here). */
    struct fft_trip ft[2];
    double fbest[2] = { 1e30, 1e30 };
    int trips = ok ? (dom[E - 1][0] != n ? 2 : 1) : 0;
    fftwf_plan_with_nthreads(omp_get_max_threads());
    for (int k = 0; k < trips; k++)
        if (fft_trip_open(&ft[k], k ? dom[E - 1][0] : n) < 0) {
            printf("spectral skipped: out of memory\n");
            for (int i = 0; i < k; i++)
                fft_trip_close(&ft[i]);
            trips = 0;
            ok = 0;
        }
#endif
    for (int t = 0; t < TRIES && ok; t++) {
        for (int k = 0; k < R; k++) {
            double dt = spectral_block(&r[k], steps);
            best[k] = dt < best[k] ? dt : best[k];
        }
#ifdef HAVE_FFTW3F
        for (int k = 0; k < trips; k++) {
            double dt = fft_trip_block(&ft[k], steps);
            fbest[k] = dt < fbest[k] ? dt : fbest[k];
        }
#endif
    }
    for (int k = 0; k < opened; k++)
        run_close(&r[k]);
    char path[sizeof cache + 64];
    snprintf(path, sizeof path, "rm -rf '%s'", cache);
    if (system(path) != 0)
        fprintf(stderr, "bench: could not remove %s\n", cache);
    bench_cpu_clock = 0;
    if (!ok)
        return;
#ifdef HAVE_FFTW3F
    if (trips == 1)
        fbest[1] = fbest[0];
    printf("spectral %d², one step (estimated plans; measured plans, RIPPLERENDER_FFT=measure, in brackets) "
           "against FFTW_MEASURE complex 2-D round trips (%d threads%s): %d² %.2f ms, %d² %.2f ms (goal <= 1)\n",
           n, omp_get_max_threads(), one ? ", by CPU time" : "", n, fbest[0] * 1e3, dom[E - 1][0], fbest[1] * 1e3);
    for (int e = 0; e < E; e++) {
        printf("spectral %d², %-5s edges, domain %dx%d: %.2f ms (%.2f), /%d² %.2f (%.2f)", n, edges[e], dom[e][0],
               dom[e][1], best[2 * e] * 1e3, best[2 * e + 1] * 1e3, n, best[2 * e] / fbest[0],
               best[2 * e + 1] / fbest[0]);
        if (dom[e][0] != n || dom[e][1] != n)
            printf(", /%d² %.2f (%.2f)", dom[E - 1][0], best[2 * e] / fbest[1], best[2 * e + 1] / fbest[1]);
        printf("\n");
    }
    for (int k = 0; k < trips; k++)
        fft_trip_close(&ft[k]);
#else
    for (int e = 0; e < E; e++)
        printf("spectral %d², %-5s edges, domain %dx%d: one step, estimated plans %.2f ms, measured plans %.2f ms; "
               "FFTW comparison skipped: fftw3f not found by pkg-config\n",
               n, edges[e], dom[e][0], dom[e][1], best[2 * e] * 1e3, best[2 * e + 1] * 1e3);
#endif
}

/* BENCH_ONLY=stream: the streaming bound of each grid size of BENCH_SIZES
 * (512² when it is unset) on every thread, one line "n Mcells/s" each, the
 * best of rounds_wanted() blocks of as many sweeps as the solver table
 * times: for tests/bench.sh's whole-process rows at 512², which set a
 * program's runs against it in turns with them. */
static void stream_line(void)
{
    static const int sizes[] = { 512, 1024, 2048, 4096, 8192 };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const int n = sizes[s];
        if (getenv("BENCH_SIZES") ? !size_wanted(n) : n != 512)
            continue;
        const int sweeps = (int)larger(CELLS_PER_RUN / ((double)n * n), 8);
        printf("%d %.1f\n", n, bench_stream(n, sweeps, rounds_wanted()) / 1e6);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_solvers SCENE.json\n");
        return 2;
    }
#ifdef HAVE_FFTW3F
    fftwf_init_threads();
#endif
    const char *only = getenv("BENCH_ONLY");
    if (!only || strcmp(only, "table") == 0)
        solver_table(argv[1]);
    if (!only)
        printf("\n");
    if (only && strcmp(only, "frames") == 0)
        frames_table(argv[1]);
    if (only && strcmp(only, "kernels") == 0)
        kernels_table(argv[1]);
    if (only && strcmp(only, "stream") == 0)
        stream_line();
    if (only && strcmp(only, "perframe") == 0)
        perframe_table(argv[1]);
    if (!only || strcmp(only, "spectral") == 0) {
        /* BENCH_SPECTRAL_SIZES: the grid sizes of the spectral rows ("1024"). */
        const char *sizes = getenv("BENCH_SPECTRAL_SIZES");
        for (const char *p = sizes ? sizes : "1024"; *p;) {
            char *end;
            const long n = strtol(p, &end, 10);
            if (end == p)
                break;
            if (n >= 16 && n <= 8192)
                spectral_row(argv[1], (int)n);
            p = end;
        }
    }
    return 0;
}

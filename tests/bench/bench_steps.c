/* bench_steps.c: where a 512² step on two threads spends its time, part by
 * part, beside the streaming bound's sweep of the same grid.
 *
 * A step of 512² lasts about ten microseconds, so the solver table's
 * two-thread rate (bench_solvers.c) mixes the kernels' rate on rows from
 * L2, the pool's handshake (src/team.h) and the scheduler. This takes one
 * step apart: the same job as tblock_step's (each thread fills its band's
 * ghosts and runs the three-row kernel over its half of the rows, sweeping
 * down and up in turn; AVX-512 where the solver offers it), on team_run,
 * with a timestamp where the caller starts the job, where each thread
 * starts and ends its band and where the caller sees the job done. Per
 * step: the worker's start after the caller's (the job reaching the other
 * core), each thread's band, the caller's wait after the last band ends
 * (the end reaching the caller), and the whole step; then tblock_step
 * itself (the driver with its tuner and balancer) and the streaming
 * bound's sweep (bench_ref.c, OpenMP on every core: the average of its best
 * block). Each figure as the 10th percentile and the median of STEPS steps
 * in blocks, the planes refilled between blocks (untimed) so that no
 * height decays to a subnormal. Asserts nothing.
 *
 *     make build/tests/bench_steps && build/tests/bench_steps scene.json
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_ref.h"
#include "field.h"
#include "scene.h"
#include "solver.h"
#include "tblock.h"
#include "team.h"

enum { N = 512, BLOCK = 200, BLOCKS = 25, STEPS = BLOCK * BLOCKS };

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* One step's job and its timestamps (µs). */
struct step {
    struct field *f;
    const struct tblock_kernel *kn;
    int upward;
    double start, enter[2], end[2];
};

/* Thread t's half of the rows, as tblock.c's step_band does it. */
static void half(void *arg, int t, int nt)
{
    struct step *st = arg;
    const double t0 = now_us();
    const struct field *f = st->f;
    const struct tblock_kernel *kn = st->kn;
    const ptrdiff_t s = f->stride;
    const int a = f->h * t / nt, b = f->h * (t + 1) / nt;
    const tblock_rows3_fn rows3 = kn->rows3_driver ? kn->rows3_driver : kn->rows3;
    const tblock_row_fn row = kn->row_driver ? kn->row_driver : kn->row;
    float *prev = f->prev;
    const float *cur = f->cur;
    field_fill_side_ghosts(f, f->cur, kn->edges, a, b);
    if (a == 0)
        field_fill_end_ghosts(f, f->cur, kn->edges, 0);
    if (b == f->h)
        field_fill_end_ghosts(f, f->cur, kn->edges, 1);
    if (!st->upward) {
        int y = a;
        for (; y + 3 <= b; y += 3)
            rows3(kn->k, y, prev + y * s, prev + (y + 1) * s, prev + (y + 2) * s, cur + (y - 1) * s, cur + y * s,
                  cur + (y + 1) * s, cur + (y + 2) * s, cur + (y + 3) * s, f->w, 1e6f);
        for (; y < b; y++)
            row(kn->k, y, prev + y * s, cur + (y - 1) * s, cur + y * s, cur + (y + 1) * s, f->w, 1e6f);
    } else {
        int y = b;
        for (; y - 3 >= a; y -= 3)
            rows3(kn->k, y - 3, prev + (y - 3) * s, prev + (y - 2) * s, prev + (y - 1) * s, cur + (y - 4) * s,
                  cur + (y - 3) * s, cur + (y - 2) * s, cur + (y - 1) * s, cur + y * s, f->w, 1e6f);
        for (y--; y >= a; y--)
            row(kn->k, y, prev + y * s, cur + (y - 1) * s, cur + y * s, cur + (y + 1) * s, f->w, 1e6f);
    }
    if (t < 2) {
        st->enter[t] = t0;
        st->end[t] = now_us();
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "p10/p50" of v[0 .. n) (sorted in place) into buf. */
static const char *pct(double *v, int n, char *buf, size_t size)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    snprintf(buf, size, "%.2f/%.2f", v[n / 10], v[n / 2]);
    return buf;
}

/* Heights of a few hundredths, different in the two planes (untimed). */
static void refill(struct field *f)
{
    for (int y = -1; y <= f->h; y++)
        for (int x = -1; x <= f->w; x++) {
            f->cur[y * f->stride + x] = (float)((x * 7 + y * 3) % 11) * 0.01f;
            f->prev[y * f->stride + x] = (float)((x * 5 + y) % 13) * 0.01f;
        }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_steps SCENE.json\n");
        return 2;
    }
    static const char *const names[] = { "elias", "flow", "wave" };
    static double part[5][STEPS], whole[STEPS];
    const int nt = team_threads() < 2 ? team_threads() : 2;
    printf("512² one step, %d threads, µs as 10th percentile/median of %d steps: the job's start on the other "
           "thread, each thread's band, the wait after the last band, the step; tblock_step's step; the "
           "streaming bound's sweep\n", nt, STEPS);
    for (int i = 0; i < 3; i++) {
        char solver[64];
        snprintf(solver, sizeof solver, "solver.type=%s", names[i]);
        const char *sets[] = { "grid.width=512", "grid.height=512", solver, "grid.cell_size=0.01" };
        struct scene sc;
        struct rr_err e = { 0 };
        struct field f;
        if (scene_load(&sc, argv[1], sets, i == 2 ? 4 : 3, &e) < 0 || !sc.solver.type) {
            printf("%-6s skipped: %s\n", names[i], e.msg[0] ? e.msg : "not in this build");
            scene_free(&sc);
            continue;
        }
        const struct solver_ops *ops = sc.solver.type;
        void *priv = calloc(1, ops->priv_size);
        if (!priv || field_init(&f, N, N, &e) < 0 || ops->init(priv, &sc, &f, &e) < 0) {
            fprintf(stderr, "bench_steps: %s: %s\n", names[i], e.msg);
            return 1;
        }
        struct tblock_kernel *kn = ops->kernel(priv);
        bench_settle();
        for (int blk = 0; blk < BLOCKS; blk++) {
            refill(&f);
            for (int k = 0; k < BLOCK; k++) {
                struct step st = { .f = &f, .kn = kn, .upward = k & 1 };
                st.start = now_us();
                team_run(nt, half, &st);
                const double after = now_us(), last = nt > 1 && st.end[1] > st.end[0] ? st.end[1] : st.end[0];
                const int j = blk * BLOCK + k;
                part[0][j] = nt > 1 ? st.enter[1] - st.start : 0;
                part[1][j] = st.end[0] - st.enter[0];
                part[2][j] = nt > 1 ? st.end[1] - st.enter[1] : 0;
                part[3][j] = after - last;
                part[4][j] = after - st.start;
                field_swap(&f);
            }
        }
        for (int blk = 0; blk < BLOCKS; blk++) {
            refill(&f);
            for (int k = 0; k < BLOCK; k++) {
                struct solver_screen screen = { .limit = 1e6f };
                const double t0 = now_us();
                tblock_step(&f, kn, &screen);
                whole[blk * BLOCK + k] = now_us() - t0;
            }
        }
        const double sweep = 1e6 * (double)N * N / bench_stream(N, BLOCK, BLOCKS);
        char b[5][32], w[32];
        printf("%-6s start %s  bands %s, %s  wait %s  step %s  tblock_step %s  stream sweep %.2f\n", names[i],
               pct(part[0], STEPS, b[0], sizeof b[0]), pct(part[1], STEPS, b[1], sizeof b[1]),
               pct(part[2], STEPS, b[2], sizeof b[2]), pct(part[3], STEPS, b[3], sizeof b[3]),
               pct(part[4], STEPS, b[4], sizeof b[4]), pct(whole, STEPS, w, sizeof w), sweep);
        fflush(stdout);
        ops->free(priv);
        free(priv);
        field_free(&f);
        scene_free(&sc);
    }
    return 0;
}

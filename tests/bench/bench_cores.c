/* bench_cores.c: each core's speed at the row kernels, one core at a time.
 *
 * The solver table (bench_solvers.c) sets two threads against one; its
 * ratios mean little if the two cores do not run equally fast, and on a
 * shared or virtual machine they often do not, for minutes at a time
 * (docs/performance.md, "Method").
 * This pins the thread to each core the process may use in turn and times,
 * on rows that stay in L1 (8 rows of 512 cells), the row kernel of elias
 * (4 neighbours, damping multiply), flow (F = 1) and wave (uniform speed),
 * with the blow-up screen on and off, and seed 004's loop on a 256^2 grid
 * (in L2; bench_ref.c). Cells per second, best of several runs. Then what
 * the OpenMP team costs on all cores, an empty parallel region and a
 * barrier, and what the pool the steps run on costs (src/team.h), best of
 * several runs. Asserts
 * nothing.
 *
 *     make build/tests/bench_cores && build/tests/bench_cores scene.json
 *
 * The scene is any valid scene file (the bench's own: tests/bench.sh); the
 * solver, grid and units are set here. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_ref.h"
#include "field.h"
#include "scene.h"
#include "solver.h"
#include "tblock.h"
#include "team.h"

enum { W = 512, ROWS = 8, SWEEPS = 100, TRIES = 60 };

/* Cells per second of one kernel over ROWS rows of W cells, best of TRIES. */
static double kernel_speed(const struct tblock_kernel *kn, struct field *f, float limit)
{
    const ptrdiff_t s = f->stride;
    double best = 0;
    for (int t = 0; t < TRIES; t++) {
        int flags = 0;
        double t0 = bench_now();
        for (int k = 0; k < SWEEPS; k++)
            for (int y = 1; y <= ROWS; y++)
                flags |= kn->row(kn->k, y, f->prev + y * s, f->cur + (y - 1) * s, f->cur + y * s,
                                 f->cur + (y + 1) * s, W, limit);
        double r = (double)SWEEPS * ROWS * W / (bench_now() - t0);
        best = r > best && !flags ? r : best;
    }
    return best;
}

struct solver_rig {
    struct field f;
    const struct solver_ops *ops;
    void *priv;
};

/* The solver `name` on a W x (ROWS + 2) field of small values. 0, or -1
 * after printing why (a solver not in this build is skipped, saying so). */
static int rig_open(struct solver_rig *r, const char *scene_path, const char *name)
{
    char solver[64];
    snprintf(solver, sizeof solver, "solver.type=%s", name);
    /* wave is in physical units: 1 cm cells, as in bench_solvers.c. */
    const char *sets[] = { "grid.width=512", "grid.height=10", solver, "grid.cell_size=0.01" };
    struct scene sc;
    struct rr_err e = { 0 };
    memset(r, 0, sizeof *r);
    if (scene_load(&sc, scene_path, sets, strcmp(name, "wave") == 0 ? 4 : 3, &e) < 0) {
        fprintf(stderr, "bench_cores: %s\n", e.msg);
        return -1;
    }
    r->ops = sc.solver.type;
    int ok = r->ops && field_init(&r->f, W, ROWS + 2, &e) == 0 && (r->priv = calloc(1, r->ops->priv_size)) != NULL
             && r->ops->init(r->priv, &sc, &r->f, &e) == 0;
    scene_free(&sc);
    if (!ok) {
        fprintf(stderr, "bench_cores: %s: %s\n", name, e.msg[0] ? e.msg : "not in this build");
        free(r->priv);
        field_free(&r->f);
        return -1;
    }
    for (int y = -1; y <= ROWS + 2; y++)
        for (int x = -1; x <= W; x++) {
            r->f.cur[y * r->f.stride + x] = (float)((x * 7 + y * 3) % 11) * 0.01f;
            r->f.prev[y * r->f.stride + x] = (float)((x * 5 + y) % 13) * 0.01f;
        }
    return 0;
}

static void rig_close(struct solver_rig *r)
{
    r->ops->free(r->priv);
    free(r->priv);
    field_free(&r->f);
}

/* team_run's share of the empty job. */
static void empty_share(void *arg, int t, int nt)
{
    (void)nt;
    if (t == 0)
        *(volatile int *)arg += 1;
}

/* Microseconds of an empty parallel region and of a barrier on the whole
 * team, and of an empty job of the pool that the program's loops run on
 * (src/team.h), best of 5 runs of 20000. Every plain step pays one of these,
 * so they set a floor under a small grid's step (docs/performance.md). */
static void team_costs(void)
{
    enum { REPS = 20000, RUNS = 5 };
    double region = 1e30, barrier = 1e30;
    volatile int sink = 0;
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_now();
        for (int i = 0; i < REPS; i++) {
#pragma omp parallel
            if (omp_get_thread_num() == 0)
                sink = sink + 1;
        }
        double dt = (bench_now() - t0) / REPS;
        region = dt < region ? dt : region;
        t0 = bench_now();
#pragma omp parallel
        for (int i = 0; i < REPS; i++) {
#pragma omp barrier
        }
        dt = (bench_now() - t0) / REPS;
        barrier = dt < barrier ? dt : barrier;
    }
    printf("OpenMP, %d threads: an empty parallel region %.2f us, a barrier %.2f us (best of %d x %d)\n",
           omp_get_max_threads(), region * 1e6, barrier * 1e6, RUNS, REPS);
    double job = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_now();
        for (int i = 0; i < REPS; i++)
            team_run(team_threads(), empty_share, (void *)&sink);
        double dt = (bench_now() - t0) / REPS;
        job = dt < job ? dt : job;
    }
    printf("the pool (src/team.h), %d threads: an empty job %.2f us (best of %d x %d)\n", team_threads(), job * 1e6,
           RUNS, REPS);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_cores SCENE.json\n");
        return 2;
    }
    static const char *const names[] = { "elias", "flow", "wave" };
    enum { N = sizeof names / sizeof *names };
    struct solver_rig rigs[N];
    int open[N];
    for (int i = 0; i < N; i++)
        open[i] = rig_open(&rigs[i], argv[1], names[i]) == 0;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        perror("bench_cores: sched_getaffinity");
        return 1;
    }
    printf("Gcells/s on one core at a time, rows in L1 (%d x %d), best of %d; screen on / off\n", ROWS, W,
           TRIES);
    printf("%-5s %15s %15s %15s %16s\n", "core", "elias", "flow", "wave", "seed004 256²");
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            continue;
        printf("%-5d", cpu);
        for (int i = 0; i < N; i++) {
            if (!open[i]) {
                printf(" %15s", "-");
                continue;
            }
            const struct tblock_kernel *kn = rigs[i].ops->kernel(rigs[i].priv);
            double on = kernel_speed(kn, &rigs[i].f, 1e6f), off = kernel_speed(kn, &rigs[i].f, 0.0f);
            printf("  %6.2f / %5.2f", on / 1e9, off / 1e9);
        }
        printf(" %16.2f\n", bench_reference(256, 200, 5) / 1e9);
        fflush(stdout);
    }
    sched_setaffinity(0, sizeof allowed, &allowed);
    team_costs();
    for (int i = 0; i < N; i++)
        if (open[i])
            rig_close(&rigs[i]);
    return 0;
}

/* bench_solvers.c: cell updates per second of each finite-difference solver
 * through the public sim API, against a plain single-thread loop of seed 004
 * (/work/shared/seeds/004_*.txt) on the same grid. Prints a table; asserts
 * nothing (speed is measured here, never in tests). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scene.h"
#include "sim.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seed 004's loop as written there: two plain arrays, 4 neighbours, damping. */
static double reference_cells_per_s(int n, int steps)
{
    float *a = calloc((size_t)n * n, sizeof *a), *b = calloc((size_t)n * n, sizeof *b);
    if (!a || !b)
        return 0;
    a[(n / 2) * n + n / 2] = 1.0f;
    double t0 = now();
    for (int s = 0; s < steps; s++) {
        for (int y = 1; y < n - 1; y++)
            for (int x = 1; x < n - 1; x++) {
                float v = (a[y * n + x - 1] + a[y * n + x + 1] + a[(y - 1) * n + x] + a[(y + 1) * n + x]) * 0.5f
                          - b[y * n + x];
                b[y * n + x] = v * 0.99f;
            }
        float *t = a; a = b; b = t;
    }
    double dt = now() - t0;
    volatile float sink = a[n / 2 * n + n / 3];
    (void)sink;
    free(a);
    free(b);
    return (double)(n - 2) * (n - 2) * steps / dt;
}

static double sim_cells_per_s(const char *scene_path, const char *solver, int n, int frames)
{
    char sets[4][64];
    snprintf(sets[0], sizeof sets[0], "grid.width=%d", n);
    snprintf(sets[1], sizeof sets[1], "grid.height=%d", n);
    snprintf(sets[2], sizeof sets[2], "solver.type=%s", solver);
    snprintf(sets[3], sizeof sets[3], "time.frames=%d", frames + 1);
    const char *argv[4] = { sets[0], sets[1], sets[2], sets[3] };
    struct scene sc = { 0 };
    struct rr_err e = { 0 };
    struct sim *sim = NULL;
    if (scene_load(&sc, scene_path, argv, 4, &e) < 0 || sim_create(&sim, &sc, &e) < 0) {
        fprintf(stderr, "bench: %s\n", e.msg);
        scene_free(&sc);
        return 0;
    }
    sim_advance_frame(sim, &e);              /* first touch of every page */
    double t0 = now();
    for (int f = 0; f < frames; f++)
        sim_advance_frame(sim, &e);
    double dt = now() - t0;
    double cells = (double)n * n * sc.time.steps_per_frame * frames;
    sim_free(sim);
    scene_free(&sc);
    return cells / dt;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_solvers SCENE.json\n");
        return 2;
    }
    static const char *solvers[] = { "elias", "flow", "spring" };
    static const int sizes[] = { 512, 2048 };
    printf("threads: %d\n", omp_get_max_threads());
    printf("%-8s %6s %14s %14s %7s\n", "solver", "grid", "Mcells/s", "seed004 1-thr", "ratio");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s], frames = n >= 2048 ? 10 : 100;
        double ref = reference_cells_per_s(n, frames * 2);
        for (size_t k = 0; k < sizeof solvers / sizeof *solvers; k++) {
            double c = sim_cells_per_s(argv[1], solvers[k], n, frames);
            printf("%-8s %5d² %14.1f %14.1f %6.2fx\n", solvers[k], n, c / 1e6, ref / 1e6, ref > 0 ? c / ref : 0);
        }
    }
    return 0;
}

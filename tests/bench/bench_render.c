/* bench_render.c: milliseconds per frame of each water render mode
 * (render_frame alone: slopes, the mode's rows, no hashing, no sink) on the
 * same field: the scene given (a 1920x1080 grid with rain in tests/bench.sh)
 * advanced FRAMES0 frames, so that the surface is busy. Best of TRIES runs
 * of REPS frames each, the modes taken in turns; on the threads of the
 * pool (-j as omp's setting: OMP_NUM_THREADS). Asserts nothing
 * (docs/performance.md). */
#include <stdio.h>
#include <stdlib.h>

#include "bench_ref.h"
#include "frame.h"
#include "render.h"
#include "scene.h"
#include "sim.h"

#define FRAMES0 20
#define TRIES 5
#define REPS 4

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_render SCENE.json\n");
        return 2;
    }
    static const char *const modes[] = { "shaded", "caustics", "normals" };
    enum { N = sizeof modes / sizeof modes[0] };
    struct scene sc[N];
    struct renderer *r[N] = { 0 };
    struct sim *sim = NULL;
    struct rr_err e = { 0 };
    for (int m = 0; m < N; m++) {
        char set[64];
        snprintf(set, sizeof set, "render.mode=%s", modes[m]);
        const char *sets[] = { set };
        if (scene_load(&sc[m], argv[1], sets, 1, &e) < 0 || render_create(&r[m], &sc[m], 0, &e) < 0) {
            fprintf(stderr, "bench_render: %s\n", e.msg);
            return 1;
        }
    }
    if (sim_create(&sim, &sc[0], &e) < 0) {
        fprintf(stderr, "bench_render: %s\n", e.msg);
        return 1;
    }
    for (int i = 1; i < FRAMES0; i++)
        if (sim_advance_frame(sim, &e) < 0) {
            fprintf(stderr, "bench_render: %s\n", e.msg);
            return 1;
        }
    double best[N];
    for (int m = 0; m < N; m++)
        best[m] = 1e30;
    for (int t = 0; t < TRIES; t++)
        for (int m = 0; m < N; m++) {
            double t0 = bench_now();
            for (int k = 0; k < REPS; k++) {
                struct frame fr;
                if (render_frame(r[m], sim_field(sim), sim_walls(sim), k, &fr, &e) < 0) {
                    fprintf(stderr, "bench_render: %s\n", e.msg);
                    return 1;
                }
            }
            double ms = (bench_now() - t0) * 1e3 / REPS;
            best[m] = ms < best[m] ? ms : best[m];
        }
    printf("render alone, %dx%d, ms per frame (best of %d x %d, modes in turns)\n", sc[0].grid.width,
           sc[0].grid.height, TRIES, REPS);
    for (int m = 0; m < N; m++)
        printf("%-10s %8.2f ms  %5.2fx shaded%s\n", modes[m], best[m], best[m] / best[0],
               m == 1 ? " (goal <= 1.5)" : "");
    sim_free(sim);
    for (int m = 0; m < N; m++) {
        render_free(r[m]);
        scene_free(&sc[m]);
    }
    return 0;
}

/* bench_ref.c: the yardsticks of `make bench`, built by the bench with its own
 * flags (-O3 -march=native, see the Makefile): seed 004's loop
 * ("ResultMap[x, y] := ((CurrentSourceMap[x+1, y] + CurrentSourceMap[x-1, y]
 * + CurrentSourceMap[x, y+1] + CurrentSourceMap[x, y-1]) DIV 2) -
 * PreviousResultMap[x, y]", then damped) as a plain single-thread reference, and
 * the streaming bound: one sweep's memory traffic and no neighbours. */
#include "bench_ref.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int bench_cpu_clock;

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(bench_cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One step of seed 004's loop as written there: two plain n x n arrays, 4
 * neighbours, the damping multiply. */
void bench_reference_step(const float *a, float *b, int n)
{
    for (int y = 1; y < n - 1; y++)
        for (int x = 1; x < n - 1; x++) {
            size_t i = (size_t)y * n + x;
            float v = (a[i - 1] + a[i + 1] + a[i - n] + a[i + n]) * 0.5f - b[i];
            b[i] = v * 0.99f;
        }
}

/* Seed 004's loop, a swap per step; one thread. Best of `tries`, timed after
 * BENCH_WARM_STEPS untimed steps: the first sweeps over freshly cleared
 * pages ran up to 2x slower at 4096^2 (measured: about 700-1000 Mcells/s in
 * the first 16 steps, 1400-1600 after four), which would flatter the ratios. */
double bench_reference(int n, int steps, int tries)
{
    size_t cells = (size_t)n * n;
    float *a = malloc(cells * sizeof *a), *b = malloc(cells * sizeof *b);
    double best = 0;
    if (!a || !b)
        goto out;
    memset(a, 0, cells * sizeof *a);          /* first touch, outside the timing */
    memset(b, 0, cells * sizeof *b);
    a[(size_t)(n / 2) * n + n / 2] = 1.0f;
    for (int s = 0; s < BENCH_WARM_STEPS; s++) {
        bench_reference_step(a, b, n);
        float *tmp = a;
        a = b;
        b = tmp;
    }
    for (int t = 0; t < tries; t++) {
        double t0 = bench_now();
        for (int s = 0; s < steps; s++) {
            bench_reference_step(a, b, n);
            float *tmp = a;
            a = b;
            b = tmp;
        }
        double r = (double)(n - 2) * (n - 2) * steps / (bench_now() - t0);
        best = r > best ? r : best;
    }
    volatile float keep = a[(size_t)(n / 2) * n + n / 3];
    (void)keep;
out:
    free(a);
    free(b);
    return best;
}

/* The streaming bound: cur[i] = prev[i] * 0.5 - cur[i] over n x n cells on
 * every core (static schedule, pages first touched by the same threads):
 * read one plane, read and write the other in place, as one stencil sweep
 * does at best. Cells per second, best of `tries`. */
double bench_stream(int n, int sweeps, int tries)
{
    const long cells = (long)n * n;
    float *cur = malloc((size_t)cells * sizeof *cur), *prev = malloc((size_t)cells * sizeof *prev);
    double best = 0;
    if (!cur || !prev)
        goto out;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < cells; i++) {
        cur[i] = 1.0f;
        prev[i] = 0.5f;
    }
    for (int t = -1; t < tries; t++) {   /* t = -1: the untimed warm-up, as the reference has */
        double t0 = bench_now();
        for (int s = 0; s < (t < 0 ? BENCH_WARM_STEPS : sweeps); s++) {
#pragma omp parallel for schedule(static)
            for (long i = 0; i < cells; i++)
                cur[i] = prev[i] * 0.5f - cur[i];
        }
        if (t < 0)
            continue;
        double r = (double)cells * sweeps / (bench_now() - t0);
        best = r > best ? r : best;
    }
    volatile float keep = cur[cells / 3];
    (void)keep;
out:
    free(cur);
    free(prev);
    return best;
}

/* bench_ref.c: the yardsticks of `make bench`, built by the bench with its own
 * flags (-O3 -march=native, see the Makefile): seed 004's loop
 * ("ResultMap[x, y] := ((CurrentSourceMap[x+1, y] + CurrentSourceMap[x-1, y]
 * + CurrentSourceMap[x, y+1] + CurrentSourceMap[x, y-1]) DIV 2) -
 * PreviousResultMap[x, y]", then damped) as a plain single-thread reference, and
 * the streaming bound: one sweep's memory traffic and no neighbours. */
#include "bench_ref.h"

#include <dirent.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int bench_cpu_clock;

/* Whether every other thread of the process sleeps (state S or D in
 * /proc/self/task/TID/stat): 1 yes, 0 no, -1 when /proc cannot tell. A
 * thread that spins, even while the scheduler has parked it, is R. */
static int others_asleep(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    const long self = syscall(SYS_gettid);
    int asleep = 1;
    for (struct dirent *de; asleep && (de = readdir(d));) {
        char path[64], buf[512];
        long tid = strtol(de->d_name, NULL, 10);
        if (tid <= 0 || tid == self)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;   /* the thread ended */
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        const char *st = strrchr(buf, ')');   /* the state follows the name, which may hold spaces */
        asleep = !st || st[1] != ' ' || st[2] == 'S' || st[2] == 'D';
    }
    closedir(d);
    return asleep;
}

void bench_settle(void)
{
    const struct timespec nap = { 0, 1000000 };   /* 1 ms */
    for (int i = 0; i < 1000 && others_asleep() == 0; i++)   /* at most about 1 s */
        nanosleep(&nap, NULL);
}

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

/* Two n x n planes, first-touched (zeroed) and one cell dropped in the
 * middle of *a: the reference's start. 0, or -1 with nothing allocated. */
int bench_reference_start(int n, float **a, float **b)
{
    const size_t cells = (size_t)n * n;
    *a = malloc(cells * sizeof **a);
    *b = malloc(cells * sizeof **b);
    if (!*a || !*b) {
        free(*a);
        free(*b);
        *a = *b = NULL;
        return -1;
    }
    memset(*a, 0, cells * sizeof **a);
    memset(*b, 0, cells * sizeof **b);
    (*a)[(size_t)(n / 2) * n + n / 2] = 1.0f;
    return 0;
}

/* `steps` steps of seed 004's loop, the planes swapped after each: *a holds
 * the newest heights after. */
void bench_reference_steps(float **a, float **b, int n, long steps)
{
    for (long s = 0; s < steps; s++) {
        bench_reference_step(*a, *b, n);
        float *tmp = *a;
        *a = *b;
        *b = tmp;
    }
}

/* Seed 004's loop, a swap per step; one thread. Best of `tries`, timed after
 * BENCH_WARM_STEPS untimed steps: the first sweeps over freshly cleared
 * pages ran up to 2x slower at 4096^2 (measured: about 700-1000 Mcells/s in
 * the first 16 steps, 1400-1600 after four), which would flatter the ratios. */
double bench_reference(int n, int steps, int tries)
{
    float *a, *b;
    double best = 0;
    if (bench_reference_start(n, &a, &b) < 0)   /* first touch, outside the timing */
        return 0;
    bench_settle();
    bench_reference_steps(&a, &b, n, BENCH_WARM_STEPS);
    for (int t = 0; t < tries; t++) {
        double t0 = bench_now();
        bench_reference_steps(&a, &b, n, steps);
        double r = (double)(n - 2) * (n - 2) * steps / (bench_now() - t0);
        best = r > best ? r : best;
    }
    volatile float keep = a[(size_t)(n / 2) * n + n / 3];
    (void)keep;
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
    bench_settle();
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

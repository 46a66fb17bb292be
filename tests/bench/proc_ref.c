/* proc_ref.c: the whole-process yardstick of `make bench`'s process section
 * (tests/bench.sh), built with -O3 -march=native like bench_ref.c: a program
 * that does what a run of the reference does from start to end. It allocates
 * two n x n planes, first-touches them (zeroes), drops one cell and takes
 * `steps` steps of seed 004's loop (bench_ref.c's bench_reference_step) on
 * one thread, swapping the planes after each, then prints one cell so the
 * work cannot be dropped.
 * Usage: proc_ref N STEPS. */
#include "bench_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: proc_ref N STEPS\n");
        return 2;
    }
    const int n = atoi(argv[1]);
    const long steps = atol(argv[2]);
    if (n < 3 || steps < 0) {
        fprintf(stderr, "proc_ref: N >= 3 and STEPS >= 0\n");
        return 2;
    }
    const size_t cells = (size_t)n * n;
    float *a = malloc(cells * sizeof *a), *b = malloc(cells * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "proc_ref: out of memory\n");
        return 1;
    }
    memset(a, 0, cells * sizeof *a);
    memset(b, 0, cells * sizeof *b);
    a[(size_t)(n / 2) * n + n / 2] = 1.0f;
    for (long s = 0; s < steps; s++) {
        bench_reference_step(a, b, n);
        float *t = a;
        a = b;
        b = t;
    }
    printf("%g\n", (double)a[(size_t)(n / 2) * n + n / 3]);
    free(a);
    free(b);
    return 0;
}

/* proc_ref.c: the whole-process yardstick of `make bench`'s process section
 * (tests/bench.sh), built with -O3 -march=native like bench_ref.c: a program
 * that does what a run of the reference does from start to end. It allocates
 * two n x n planes, first-touches them (zeroes), drops one cell and takes
 * `steps` steps of seed 004's loop on one thread, swapping the planes after
 * each (bench_ref.c's bench_reference_start and bench_reference_steps, the
 * set-up and loop that bench_reference times), then prints one cell so the
 * work cannot be dropped.
 * Usage: proc_ref N STEPS. */
#include "bench_ref.h"

#include <stdio.h>
#include <stdlib.h>

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
    float *a, *b;
    if (bench_reference_start(n, &a, &b) < 0) {
        fprintf(stderr, "proc_ref: out of memory\n");
        return 1;
    }
    bench_reference_steps(&a, &b, n, steps);
    printf("%g\n", (double)a[(size_t)(n / 2) * n + n / 3]);
    free(a);
    free(b);
    return 0;
}

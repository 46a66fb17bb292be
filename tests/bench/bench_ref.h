/* bench_ref.h: the reference loop, the streaming bound and the clock of
 * every bench program (bench_ref.c). */
#ifndef RR_BENCH_REF_H
#define RR_BENCH_REF_H

/* Untimed steps (sweeps) before any timing, in every measurement of the
 * bench: the first sweeps over fresh pages are up to 2x slower. */
#define BENCH_WARM_STEPS 4

/* Seconds: wall time, or with bench_cpu_clock set the calling thread's CPU
 * time (for one-thread figures, which other programs on the machine then
 * disturb only through the caches they share, not by taking the core). */
extern int bench_cpu_clock;
double bench_now(void);
/* One step of seed 004's loop: b = damped (a's 4-neighbour sum / 2 - b), n x n cells. */
void bench_reference_step(const float *a, float *b, int n);
/* The reference's start (two zeroed planes, one cell dropped; -1 when out of
 * memory) and its steps (a swap after each; *a the newest). */
int bench_reference_start(int n, float **a, float **b);
void bench_reference_steps(float **a, float **b, int n, long steps);
double bench_reference(int n, int steps, int tries);
double bench_stream(int n, int sweeps, int tries);

#endif

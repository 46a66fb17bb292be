/* bench_ref.h: the reference loop and the streaming bound (bench_ref.c). */
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
double bench_reference(int n, int steps, int tries);
double bench_stream(int n, int sweeps, int tries);

#endif

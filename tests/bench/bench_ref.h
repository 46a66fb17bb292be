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
/* Returns once every other thread of the process sleeps (/proc's thread
 * states; at most about 1 s): every timing starts with it. An idle thread
 * of OpenMP (libgomp) spins for several ms after each parallel region
 * (GOMP_SPINCOUNT, 300000 pauses by default, longer in wall time on a
 * loaded machine) before it sleeps, and the program's pool for
 * TEAM_SPIN_US (src/team.h); on two cores a thread still spinning from the
 * last measurement (the streaming bound's regions) takes a core from the
 * next one's team of two for much of a run of a few ms, whose steps at
 * 512² last microseconds. The program itself runs no OpenMP region beside
 * its pool (team.h), so a render never meets this. */
void bench_settle(void);
/* One step of seed 004's loop: b = damped (a's 4-neighbour sum / 2 - b), n x n cells. */
void bench_reference_step(const float *a, float *b, int n);
/* The reference's start (two zeroed planes, one cell dropped; -1 when out of
 * memory) and its steps (a swap after each; *a the newest). */
int bench_reference_start(int n, float **a, float **b);
void bench_reference_steps(float **a, float **b, int n, long steps);
double bench_reference(int n, int steps, int tries);
double bench_stream(int n, int sweeps, int tries);

#endif

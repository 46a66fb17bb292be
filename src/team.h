/* team.h: the threads of the program's short parallel loops (the plain and
 * fused steps, the renderer's rows, the sponges, the blow-up check), started
 * and joined by spinning on shared counters instead of OpenMP's regions.
 *
 * Why: a plain step of a grid the L3 serves takes tens of microseconds,
 * and an OpenMP parallel region costs several of them (libgomp's team start
 * and end barrier, with futex calls, which page-table isolation makes dear
 * in a virtual machine), against under a microsecond for a handshake over
 * two cache lines (`make bench`'s bench_cores prints both). One pool serves every
 * short loop: two pools (this beside OpenMP's) would each spin while the
 * other works, and on two cores they would fight (docs/performance.md, "Tried
 * and dropped"). The spectral solver's step runs on it too: its passes
 * claim work items from a counter, with team_barrier between them.
 *
 * Usage:
 *     team_run(nt, fn, arg);   fn(arg, t, nt) for t = 0 .. nt - 1, t = 0 on
 *                              the calling thread; returns when all are done
 *     team_for(n, nt, body, arg);   body(arg, lo, hi) over [0, n) in nt
 *                              contiguous chunks, as schedule(static)
 *     team_threads()           how many threads a loop may use: OpenMP's
 *                              omp_get_max_threads(), which main.c's thread
 *                              policy sets (-j; one thread beside a writer)
 * Idle workers spin (with `pause`) for TEAM_SPIN_US, then sleep on a
 * condition variable: an idle pool costs nothing, a busy one no system
 * call. A wait whose other side shows, after TEAM_PARKED_US, that it is
 * not running (the scheduler put both threads on one core) yields the
 * core at once instead of spinning it away. With more threads than the CPUs the process may use (its affinity
 * mask: taskset, a container's cpuset) nothing spins: every wait yields or
 * sleeps at once, as the thread waited for needs the CPU (one CPU, -j2).
 * team_run is for one caller at a time: a second thread calling it
 * meanwhile, or a call from inside fn, gets OpenMP instead, as does every
 * call when the pool cannot start its threads. Which never changes a
 * result. */
#ifndef RR_TEAM_H
#define RR_TEAM_H

/* How long an idle worker spins before it sleeps, in microseconds: longer
 * than what a frame does between two loops (sources, the blow-up screen),
 * short enough that the spin after the last loop of a frame costs nothing
 * that shows beside the encoder. */
#define TEAM_SPIN_US 200

/* How long a wait spins, in microseconds, before it takes the thread it
 * waits for to be parked by the scheduler (most likely on the waiter's own
 * core, which the other processes of a loaded machine left to both) and
 * yields the core at every look instead: the caller, when a worker has
 * not taken the job that long after the caller's share ended; a worker
 * idle that long, when every worker is through the job and the caller,
 * waiting for that, has not seen it. Both threads then take turns on the
 * core, a few microseconds a step apart, where each wait spun
 * TEAM_SPIN_US first. On free cores a job is taken, and its end seen,
 * within a microsecond, far below it. */
#define TEAM_PARKED_US 5

/* The most threads a team_run takes (more are clamped to it). */
#define TEAM_MAX 64

typedef void (*team_fn)(void *arg, int t, int nt);
typedef void (*team_body)(void *arg, int lo, int hi);

/* Runs fn(arg, t, nt) for t = 0 .. nt - 1 (nt clamped to 1 .. TEAM_MAX) and
 * returns when every call has returned; their writes are then visible to
 * the caller. nt 1 runs fn on the caller alone. Cannot fail. */
void team_run(int nt, team_fn fn, void *arg);

/* Runs body(arg, lo, hi) on chunks covering [0, n) once, chunk t of nt
 * being [n t / nt, n (t + 1) / nt) (nt clamped to 1 .. n). Cannot fail. */
void team_for(int n, int nt, team_body body, void *arg);

/* Inside fn: returns when all nt calls of the job have reached it. */
void team_barrier(int nt);

/* The threads a loop may take: omp_get_max_threads(), at least 1. */
int team_threads(void);

/* The most threads the run's loops may take (-j, or every core), which
 * team_threads() may be lowered from for a while (main.c's thread policy:
 * one thread beside a writer until its probe): what per-thread buffers made
 * once are sized for. Set by team_set_most (main.c, before anything is
 * made); unset, team_threads(). At least 1. */
int team_threads_most(void);
void team_set_most(int n);
/* team_threads() for a loop of `work` units when work >= min_work, else 1:
 * a small loop does not pay a handshake. */
int team_threads_for(long work, long min_work);

/* Whether the last team_run of more than one thread on this thread ran on
 * the pool (1) or on OpenMP (0): for the tests. */
int team_ran_on_pool(void);

#endif

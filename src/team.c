/* team.c: the spinning thread pool of team.h.
 *
 * The caller publishes a job (fn, arg, nt) and bumps `job`; each worker,
 * watching `job`, runs its share (or nothing, when its id is nt or more) and
 * bumps `done`; the caller runs share 0 and waits until `done` counts every
 * worker. Workers that have spun for TEAM_SPIN_US without a new job sleep on
 * `wake`; the caller signals it only when `sleepers` says someone sleeps.
 * The seq_cst bump of `job` then load of `sleepers`, against the worker's
 * seq_cst increment of `sleepers` then load of `job`, make sure that a
 * worker going to sleep either sees the new job or is seen (and the
 * broadcast, under the mutex, cannot fall between its look and its wait).
 * The counters sit on cache lines of their own: the handshake is two lines
 * going back and forth. Two more, `started` and `waiting`, only tell a
 * waiting thread that the one it waits for is parked (TEAM_PARKED_US):
 * they are read now and then while spinning, never waited on. */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include "team.h"
#include "debug.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

static struct {
    _Alignas(64) atomic_uint job;   /* the job's number: bumped to start one */
    _Alignas(64) atomic_uint done;  /* workers through the current job */
    _Alignas(64) atomic_uint started;  /* workers that took the current job (TEAM_PARKED_US) */
    _Alignas(64) atomic_int waiting;   /* the caller waits for `done`, its share ended (TEAM_PARKED_US) */
    _Alignas(64) atomic_uint bar_round;
    atomic_int bar_count;           /* team_barrier's arrivals in this round */
    _Alignas(64) atomic_int sleepers;
    atomic_flag busy;               /* a team_run is under way */
    team_fn fn;                     /* the job, set before `job` is bumped */
    void *arg;
    int nt;
    atomic_int spin_us;             /* how long waits spin: TEAM_SPIN_US, or 0 with more threads than CPUs */
    int cpus;                       /* the CPUs this process may run on; 0: not read yet */
    unsigned workers;               /* started, ids 1 .. workers */
    int broken;                     /* a worker could not start: OpenMP from now on */
    int announced;                  /* the debug line of the first start is out */
    unsigned first_seen[TEAM_MAX];  /* `job` as worker id started: its first job is the next */
    pthread_mutex_t mu;
    pthread_cond_t wake;
} pool = { .busy = ATOMIC_FLAG_INIT, .mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

/* How this thread's current (or last) team_run runs: 1 pool, 0 OpenMP. */
static _Thread_local int on_pool;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* One look of a spinning wait: `pause`, and once the looks (i counts them
 * from 1; *t0 starts at 0) have taken pool.spin_us, a yield of the core
 * between looks, for when the thread awaited is not running. `parked`
 * says that it is not (team_run's TEAM_PARKED_US): then the look yields at
 * once. */
static void wait_pause(unsigned i, double *t0, int parked)
{
    const int spin_us = atomic_load_explicit(&pool.spin_us, memory_order_relaxed);
    if (spin_us == 0 || parked) {
        sched_yield();
        return;
    }
    cpu_relax();
    if (i % 64 == 0) {
        double t = now_us();
        if (*t0 == 0)
            *t0 = t;
        else if (t - *t0 > spin_us)
            sched_yield();
    }
}

/* A worker's wait for the job after `seen`: spinning, then asleep. */
static unsigned next_job(unsigned seen)
{
    const double t0 = now_us();
    const int spin_us = atomic_load_explicit(&pool.spin_us, memory_order_relaxed);
    for (unsigned i = 1;; i++) {
        unsigned j = atomic_load_explicit(&pool.job, memory_order_acquire);
        if (j != seen)
            return j;
        if (spin_us == 0)
            break;
        cpu_relax();
        if (i % 64 == 0) {
            const double t = now_us();
            if (t - t0 > spin_us)
                break;
            /* Every worker is through the job and the caller, waiting
             * for that, has not seen it in TEAM_PARKED_US: it is not
             * running, most likely waiting for this core. */
            if (t - t0 > TEAM_PARKED_US && atomic_load_explicit(&pool.waiting, memory_order_relaxed) &&
                atomic_load_explicit(&pool.done, memory_order_relaxed) == pool.workers)
                sched_yield();
        }
    }
    pthread_mutex_lock(&pool.mu);
    atomic_fetch_add(&pool.sleepers, 1);
    unsigned j;
    while ((j = atomic_load(&pool.job)) == seen)
        pthread_cond_wait(&pool.wake, &pool.mu);
    atomic_fetch_sub(&pool.sleepers, 1);
    pthread_mutex_unlock(&pool.mu);
    return j;
}

static void *worker(void *idp)
{
    const int id = (int)(long)idp;
    on_pool = 1;
    unsigned seen = pool.first_seen[id];
    for (;;) {
        seen = next_job(seen);
        atomic_fetch_add_explicit(&pool.started, 1, memory_order_relaxed);
        if (id < pool.nt)
            pool.fn(pool.arg, id, pool.nt);
        atomic_fetch_add_explicit(&pool.done, 1, memory_order_release);
    }
    return NULL;
}

/* The CPUs this process may run on (its affinity mask), at least 1. */
static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n < 1 ? 1 : n;
}

/* Starts workers up to id n - 1. Returns 0, or -1 (pool.broken set). */
static int start_workers(int n)
{
    while (!pool.broken && (int)pool.workers < n - 1) {
        const unsigned id = pool.workers + 1;
        pool.first_seen[id] = atomic_load(&pool.job);
        pthread_attr_t at;
        pthread_t th;
        if (pthread_attr_init(&at) != 0) {
            pool.broken = 1;
            break;
        }
        int ok = pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) == 0 &&
                 pthread_create(&th, &at, worker, (void *)(long)id) == 0;
        pthread_attr_destroy(&at);
        if (ok)
            pool.workers = id;
        else
            pool.broken = 1;
    }
    if (pool.workers > 0 && !pool.announced) {   /* RIPPLERENDER_DEBUG=kernels: a -j1 run never starts it */
        pool.announced = 1;
        debug_line(DEBUG_KERNELS, "pool: started, %u worker%s beside the caller", pool.workers,
                   pool.workers == 1 ? "" : "s");
    }
    return pool.broken ? -1 : 0;
}

static void run_on_openmp(int nt, team_fn fn, void *arg)
{
#pragma omp parallel num_threads(nt)
    {
        on_pool = 0;
        fn(arg, omp_get_thread_num(), omp_get_num_threads());
    }
}

void team_run(int nt, team_fn fn, void *arg)
{
    nt = nt < 1 ? 1 : nt > TEAM_MAX ? TEAM_MAX : nt;
    if (nt == 1) {
        fn(arg, 0, 1);
        return;
    }
    if (atomic_flag_test_and_set_explicit(&pool.busy, memory_order_acquire)) {
        run_on_openmp(nt, fn, arg);
        return;
    }
    if (start_workers(nt) < 0) {
        atomic_flag_clear_explicit(&pool.busy, memory_order_release);
        run_on_openmp(nt, fn, arg);
        return;
    }
    on_pool = 1;
    if (pool.cpus == 0)
        pool.cpus = usable_cpus();
    /* More threads than CPUs: a spinning thread would hold the CPU the
     * thread it waits for needs, so every wait yields at once (as libgomp
     * throttles its spinning then). */
    atomic_store_explicit(&pool.spin_us, nt <= pool.cpus ? TEAM_SPIN_US : 0, memory_order_relaxed);
    pool.fn = fn;
    pool.arg = arg;
    pool.nt = nt;
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.started, 0, memory_order_relaxed);
    atomic_fetch_add(&pool.job, 1);   /* seq_cst: see the top of the file */
    if (atomic_load(&pool.sleepers) > 0) {
        pthread_mutex_lock(&pool.mu);
        pthread_cond_broadcast(&pool.wake);
        pthread_mutex_unlock(&pool.mu);
    }
    fn(arg, 0, nt);
    /* A worker that has not taken the job TEAM_PARKED_US after this
     * share ended is not running (a spinning one takes it in well under a
     * microsecond, long before a share of a step ends): most likely it
     * waits for this core, so the wait yields at once instead of spinning
     * the core away for TEAM_SPIN_US. */
    double t0 = 0;
    const double mine = now_us();
    atomic_store_explicit(&pool.waiting, 1, memory_order_relaxed);
    for (unsigned i = 1; atomic_load_explicit(&pool.done, memory_order_acquire) != pool.workers; i++)
        wait_pause(i, &t0,
                   i % 64 == 0 && atomic_load_explicit(&pool.started, memory_order_relaxed) != pool.workers &&
                       now_us() - mine > TEAM_PARKED_US);
    atomic_store_explicit(&pool.waiting, 0, memory_order_relaxed);
    atomic_flag_clear_explicit(&pool.busy, memory_order_release);
}

void team_barrier(int nt)
{
    if (nt < 2)
        return;
    if (!on_pool) {
#pragma omp barrier
        return;
    }
    const unsigned round = atomic_load_explicit(&pool.bar_round, memory_order_acquire);
    if (atomic_fetch_add_explicit(&pool.bar_count, 1, memory_order_acq_rel) == nt - 1) {
        atomic_store_explicit(&pool.bar_count, 0, memory_order_relaxed);
        atomic_store_explicit(&pool.bar_round, round + 1, memory_order_release);
        return;
    }
    double t0 = 0;
    for (unsigned i = 1; atomic_load_explicit(&pool.bar_round, memory_order_acquire) == round; i++)
        wait_pause(i, &t0, 0);
}

/* team_for's job: the loop and its size. */
struct for_job {
    int n;
    team_body body;
    void *arg;
};

static void for_chunk(void *arg, int t, int nt)
{
    const struct for_job *j = arg;
    const int lo = (int)((long)j->n * t / nt), hi = (int)((long)j->n * (t + 1) / nt);
    if (lo < hi)
        j->body(j->arg, lo, hi);
}

void team_for(int n, int nt, team_body body, void *arg)
{
    if (n <= 0)
        return;
    nt = nt > n ? n : nt;
    struct for_job j = { .n = n, .body = body, .arg = arg };
    team_run(nt, for_chunk, &j);
}

int team_threads(void)
{
    int n = omp_get_max_threads();
    return n < 1 ? 1 : n;
}

static int most;   /* team_set_most's count; 0: not set */

void team_set_most(int n)
{
    most = n < 1 ? 1 : n;
}

int team_threads_most(void)
{
    return most > 0 ? most : team_threads();
}

int team_threads_for(long work, long min_work)
{
    return work >= min_work ? team_threads() : 1;
}

int team_ran_on_pool(void)
{
    return on_pool;
}

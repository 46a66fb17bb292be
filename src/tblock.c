/* tblock.c: the drivers of the leapfrog row kernels (see tblock.h): a plain
 * step, and temporal blocking, which advances n steps in one pass so that
 * each row comes from memory once per n steps instead of once per step.
 *
 * The scheme. Level j is the field after j steps; level 0 is f->cur and level
 * -1 f->prev. A leapfrog step computes level j at row y from level j-1 at rows
 * y-1, y, y+1 and level j-2 at row y, and writes it over level j-2 in the
 * same plane (plane j mod 2), so two planes hold every level as in the plain
 * path. That overwrite is safe once level j-1 is done at rows y-1..y+1, the
 * only other readers of level j-2 at row y. Every cell of every level is
 * computed exactly once, from the same inputs and with the same row kernel
 * as the plain step, so the bits are the same (no redundant halo cells).
 *
 * Phase 1, one thread per band of rows [a, b): a wavefront that, for
 * r = a, a+1, ..., computes level j at row r - (j - 1) for j = 1..n: level j
 * trails level j-1 by one row, so about n + 2 rows of each plane are in
 * flight (tblock_max_steps keeps them within L2). Towards a band edge shared
 * with another band, level j stops j - 1 rows short (a trapezoid), because
 * the rows beyond depend on the other band's rows. Phase 2, after a barrier:
 * the triangles left between bands, level by level, rows [c-j+1, c+j-1) of
 * level j around each band edge c (2 (j - 1) rows: a few per cent of the work).
 *
 * Handing levels out (struct solver_levels, for frames that end inside a
 * pass): level j's row y exists from its computation until level j + 2
 * overwrites it, which in phase 1 happens two rows behind level j's front
 * (level j + 2 trails it by two rows). So right after level j computes rows
 * [y0, y1), rows y0 - 1 .. y1 - 2 have both neighbours of level j in the
 * plane and are handed out at once, before level j + 1 and j + 2 take their
 * turn in the same wavefront step; the rows of a band's edge that need the
 * other band's rows are handed out in phase 2, once the gap's level j is done.
 *
 * Boundaries: a row's ghost columns depend only on that row (fixed, clamp,
 * absorb as clamp, wrap of left/right), so each row's ghosts are set as soon
 * as the row is computed, as are the top and bottom ghost rows when rows 0
 * and h-1 are; a top/bottom wrap would need row h-1 before row 0 of the next
 * level, so tblock_advance declines it. Wall cells are zeroed in each new row
 * before its ghosts are set, as sim.c's zero_walls does after a plain step. */
#include "tblock.h"
#include "debug.h"
#include "team.h"
#include "tunecache.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TBLOCK_MAX_LEVELS SOLVER_MAX_LEVELS

/* One core's L2 cache in bytes, read once: the rows a pass keeps in flight
 * are sized by it (tblock_max_steps); 512 KiB, a small L2 of today's
 * server cores, where the C library cannot tell. It sets the speed only,
 * never the bits. */
static long cache_l2 = 512 * 1024;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void read_cache_size(void)
{
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l2 >= 128 * 1024)
        cache_l2 = l2;
}

static int avx512_allowed = 1;

int tblock_avx512(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return avx512_allowed && RR_CPU_HAS(4, "x86-64-v4");
#else
    return 0;
#endif
}

void tblock_allow_avx512(int allow) { avx512_allowed = allow; }

static int avx2_allowed = 1;

int tblock_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return avx2_allowed && !tblock_avx512() && RR_CPU_HAS(3, "x86-64-v3");
#else
    return 0;
#endif
}

void tblock_allow_avx2(int allow) { avx2_allowed = allow; }

static int careful_allowed = -1;

void tblock_allow_careful(int allow) { careful_allowed = allow; }

/* Nanoseconds for a chain of 64 multiplies of x by 1 (each waits for the
 * one before), the best of 3. */
static double mul_chain_ns(float x)
{
#if !defined(__x86_64__) || !defined(__GNUC__)
    (void)x;
    return 0;   /* no careful drivers to choose */
#else
    volatile float one_v = 1.0f;
    const float one = one_v;
    double best = HUGE_VAL;
    for (int t = 0; t < 3; t++) {
        float y = x;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < 64; i++) {
            y = y * one;
            __asm__ volatile("" : "+x"(y));
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        const double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
        best = ns < best ? ns : best;
    }
    return best;
#endif
}

/* RIPPLERENDER_SUBNORMALS: 1 careful, 0 plain, -1 auto (also unset or
 * empty), -2 any other value. */
static int subnormals_env(void)
{
    const char *v = getenv("RIPPLERENDER_SUBNORMALS");
    return !v || !*v || !strcmp(v, "auto") ? -1 : !strcmp(v, "careful") ? 1 : !strcmp(v, "plain") ? 0 : -2;
}

int tblock_careful_check(struct rr_err *e)
{
    if (subnormals_env() != -2)
        return 0;
    return rr_fail(e, RR_EXIT_USAGE, "RIPPLERENDER_SUBNORMALS=%s: expected auto, careful or plain",
                   getenv("RIPPLERENDER_SUBNORMALS"));
}

int tblock_careful_asked(void)
{
    return careful_allowed >= 0 || subnormals_env() >= 0;
}

int tblock_careful(void)
{
    static int probed = -1;
    if (careful_allowed >= 0)
        return careful_allowed;
    const int env = subnormals_env();
    if (env >= 0)
        return env;
    if (probed < 0) {
        /* A multiply is a few cycles; an assisted one a hundred and more.
         * 64 of them: a microsecond or two apart, far above the clock's
         * resolution. Slow means over 5 times the normal chain's time. */
        const double subnormal = mul_chain_ns(0x1p-140f), normal = mul_chain_ns(0x1p-20f);
        probed = subnormal > 5 * normal + 200;
        debug_line(DEBUG_KERNELS, "subnormal floats: 64 multiplies in %.0f ns, of normal ones %.0f: %s", subnormal,
                   normal, probed ? "slow, the careful row drivers" : "not slow, the plain row drivers");
    }
    return probed;
}

int tblock_tuner_pick(struct tblock_tuner *t, int ways)
{
    if (t->ways == 0) {
        *t = (struct tblock_tuner){ .ways = ways < 1 ? 1 : ways > TBLOCK_TUNE_MAX ? TBLOCK_TUNE_MAX : ways };
        for (int i = 0; i < TBLOCK_TUNE_MAX; i++)
            t->best[i] = HUGE_VAL;
    }
    return t->passes < t->ways * TBLOCK_TUNE_ROUNDS ? t->passes % t->ways : t->chosen;
}

void tblock_tuner_settle(struct tblock_tuner *t, int ways, int chosen)
{
    t->ways = 0;
    tblock_tuner_pick(t, ways);
    t->passes = t->ways * TBLOCK_TUNE_ROUNDS;
    t->chosen = chosen >= 0 && chosen < t->ways ? chosen : 0;
    t->since_choice = 0;
}

int tblock_tuner_learn(struct tblock_tuner *t, int way, double seconds)
{
    const int trials = t->ways * TBLOCK_TUNE_ROUNDS;
    if (way < 0 || way >= t->ways)
        return 0;
    if (t->passes >= trials) {   /* settled: try them all again after a while */
        if (++t->since_choice == TBLOCK_RETUNE_PASSES) {
            t->passes = t->since_choice = 0;
            for (int i = 0; i < TBLOCK_TUNE_MAX; i++)
                t->best[i] = HUGE_VAL;
        }
        return 0;
    }
    if (seconds < t->best[way])
        t->best[way] = seconds;
    if (++t->passes < trials)
        return 0;
    t->chosen = 0;
    for (int i = 1; i < t->ways; i++)
        if (t->best[i] < t->best[t->chosen])
            t->chosen = i;
    return 1;
}

long tblock_l2_bytes(void)
{
    pthread_once(&cache_once, read_cache_size);
    return cache_l2;
}

/* Sets the ghosts of f->cur around the rows [a, b), on the thread that
 * computes them: their ghost columns, and the top or bottom ghost row when
 * the band holds row 0 or h - 1 (those read only interior cells, so no other
 * thread's ghosts). Kernels with diagonal reach read the neighbouring rows'
 * ghost columns too, set by the thread of the next band: the caller then
 * waits at a barrier. A serial fill of every row before the parallel loop
 * would pull the other thread's rows into this core's cache. */
static void band_ghosts(const struct field *f, const struct tblock_kernel *kn, int a, int b, int sides)
{
    if (a >= b)
        return;
    if (sides)
        field_fill_side_ghosts(f, f->cur, kn->edges, a, b);
    if (a == 0)
        field_fill_end_ghosts(f, f->cur, kn->edges, 0);
    if (b == f->h)
        field_fill_end_ghosts(f, f->cur, kn->edges, 1);
}

void tblock_balance_split(const struct tblock_balance *b, int h, int nt, int min_rows, int *start)
{
    double total = 0;
    const int known = b->threads == nt;
    for (int t = 0; known && t < nt; t++)
        total += b->speed[t];
    if (!known || !(total > 0) || (long)nt * min_rows > h) {
        for (int t = 0; t <= nt; t++)
            start[t] = (int)((long)h * t / nt);
        return;
    }
    double sum = 0;
    start[0] = 0;
    for (int t = 1; t < nt; t++) {
        sum += b->speed[t - 1];
        long at = lround(h * (sum / total));
        long lo = start[t - 1] + (long)min_rows, hi = h - (long)(nt - t) * min_rows;
        start[t] = (int)(at < lo ? lo : at > hi ? hi : at);
    }
    start[nt] = h;
    /* Keep the last pass's bands when these are within the dead band. */
    if (b->last_team != nt || b->last[nt] != h)
        return;
    const int dead = TBLOCK_BALANCE_DEAD_BAND(h);
    for (int t = 0; t < nt; t++)
        if (b->last[t + 1] - b->last[t] < min_rows || abs(start[t] - b->last[t]) > dead)
            return;
    memcpy(start, b->last, (size_t)(nt + 1) * sizeof *start);
}

void tblock_balance_learn(struct tblock_balance *b, int nt, const int *rows, const double *seconds)
{
    b->last_team = nt;
    b->last[0] = 0;
    for (int t = 0; t < nt; t++)
        b->last[t + 1] = b->last[t] + rows[t];
    const int known = b->threads == nt;
    for (int t = 0; t < nt; t++) {
        if (rows[t] <= 0 || !(seconds[t] > 0)) {
            if (!known)
                return;   /* nothing to start from: keep equal bands */
            continue;
        }
        double rate = rows[t] / seconds[t];
        if (known) {
            double old = b->speed[t];
            rate = rate < old / 2 ? old / 2 : rate > old * 2 ? old * 2 : rate;
            rate = old + (rate - old) / 4;
        }
        b->speed[t] = rate;
    }
    b->threads = nt;
}

/* The threads of a pass over h rows: the team's (team.h), at most one a
 * row and at most TBLOCK_MAX_THREADS (the size of the balance's tables). */
static int team_size(int h)
{
    int n = team_threads();
    n = n < h ? n : h;
    n = n < TBLOCK_MAX_THREADS ? n : TBLOCK_MAX_THREADS;
    return n < 1 ? 1 : n;
}

/* What each thread of a pass reports: its rows and time (the next split is
 * learned from them) and its screen's finding. */
struct pass_times {
    int team;
    int rows[TBLOCK_MAX_THREADS];
    double seconds[TBLOCK_MAX_THREADS];
    int over[TBLOCK_MAX_THREADS];
};

/* On thread t of nt of a pass, before its band: the split (start, nt + 1
 * entries), the band's ghosts (with the barrier kernels of diagonal reach
 * need: they read the next bands' ghost columns; with `sides` 0 the top and
 * bottom ghost rows only, the caller setting each row's ghost columns as
 * it goes: step_band), and the clock. Returns the start time for band_done. */
static double band_begin(const struct field *f, const struct tblock_kernel *kn, int min_rows, int *start, int t,
                         int nt, int sides)
{
    tblock_balance_split(&kn->drive.balance, f->h, nt, min_rows, start);
    const double t0 = omp_get_wtime();
    band_ghosts(f, kn, start[t], start[t + 1], sides);
    if (kn->diagonal)
        team_barrier(nt);
    return t0;
}

/* On thread t of nt, after its band: its rows and time, for the next split. */
static void band_done(struct pass_times *pt, const int *start, double t0, int t, int nt)
{
    pt->rows[t] = start[t + 1] - start[t];
    pt->seconds[t] = omp_get_wtime() - t0;
    if (t == 0)
        pt->team = nt;
}

/* Whether the two planes are within four L2 caches: a grid that the L3
 * cache serves, not memory. There tblock_step sweeps its rows down and up
 * in turn, and may prefetch (one of the ways its tuner times).
 *
 * Down and up in turn: a band of rows a little larger than its core's L2
 * (512^2 on one thread: 2.2 MB of planes against a 1 MiB L2) misses L2 on
 * every row when each sweep starts where the last one started, the rows it
 * needs first being the ones longest gone; starting where the last sweep
 * ended finds the most recent L2's worth of rows still there. The order of
 * the rows never changes a value (each new row reads only the level before
 * and its own old row). Grids from memory keep sweeping down: hardware
 * prefetchers follow rows going up less well, hence only here.
 *
 * Prefetching: such a grid comes from the L3 cache, whose latency the
 * hardware prefetchers hide on some CPUs and not on others, so prefetching
 * is one of the ways the tuner times. For a grid from memory the bursts of
 * software prefetches get in the way of the hardware's, so it is not tried
 * there. Counted in L2 sizes, which the C library reads reliably: in a
 * virtual machine the L3 size it reports can be anything. */
static int served_by_l3(const struct field *f)
{
    return 2 * (long)f->stride * (f->h + 2) * (long)sizeof(float) <= 4 * tblock_l2_bytes();
}

/* Prefetches into L1 the w cells of a row to be read (`in`) and of one to
 * be read and rewritten (`out`). Never changes a value. */
static inline void prefetch_rows(const float *in, const float *out, int w)
{
    const char *a = (const char *)in, *b = (const char *)out;
    for (size_t x = 0; x < (size_t)w * sizeof(float); x += 64) {
        __builtin_prefetch(a + x, 0, 3);
        __builtin_prefetch(b + x, 1, 3);
    }
}

/* The row kernel of a tuner's way: the way's remainder by kernel_ways
 * picks the hand-written driver's kernel, when the solver offers one; a
 * careful driver's (tblock_careful) is the only one: the portable kernels'
 * speed there depends on how many subnormal heights a step meets, which
 * the tuner's trials, early in a run, do not see. */
static int kernel_ways(const struct tblock_kernel *kn)
{
    return kn->row_driver && !kn->driver_only ? 2 : 1;
}

static tblock_row_fn way_kernel(const struct tblock_kernel *kn, int way)
{
    return kn->row_driver && (kn->driver_only || way % 2) ? kn->row_driver : kn->row;
}

/* The three-row kernel of the same kind as the row kernel `row`. */
static tblock_rows3_fn rows3_kernel(const struct tblock_kernel *kn, tblock_row_fn row)
{
    return kn->rows3_driver && row == kn->row_driver ? kn->rows3_driver : kn->rows3;
}

/* One plain step's job for the team: the kernels and the way the tuner
 * picked, and what each thread reports back. */
struct step_job {
    const struct field *f;
    const struct tblock_kernel *kn;
    tblock_row_fn row;
    tblock_rows3_fn rows3;   /* NULL: one row at a time */
    int prefetch, upward;
    float limit;
    struct pass_times pt;
};

/* Thread t's band of the step (a team_fn). */
static void step_band(void *arg, int t, int nt)
{
    struct step_job *jb = arg;
    const struct field *f = jb->f;
    const int w = f->w;
    const ptrdiff_t s = f->stride;
    const float *cur = f->cur;
    float *prev = f->prev;
    const void *k = jb->kn->k;
    const tblock_row_fn row = jb->row;
    const tblock_rows3_fn rows3 = jb->rows3;
    const float limit = jb->limit;
    const int pf = jb->prefetch;
    /* Kernels of the 4-neighbour reach read the ghost columns of their
     * centre rows only (tblock_row_fn: up and dn from [0] to [w - 1]), so
     * those of rows y .. y + m - 1 are set just before the kernel computes
     * them, on lines it is about to read anyway: a pass over the band's row
     * ends beforehand would fetch two lines a row from L2 that the band's
     * sweep has evicted again by the time it reaches them. */
    const int inline_ghosts = !jb->kn->diagonal;
    const enum edge_kind *edges = jb->kn->edges;
    int start[TBLOCK_MAX_THREADS + 1], over = 0;
    const double t0 = band_begin(f, jb->kn, 0, start, t, nt, !inline_ghosts);
    const int begin = start[t], end = start[t + 1];
    if (!jb->upward) {
        int y = begin;
        for (; rows3 && y + 3 <= end; y += 3) {
            if (inline_ghosts)
                field_fill_side_ghosts(f, f->cur, edges, y, y + 3);
            over |= rows3(k, y, prev + y * s, prev + (y + 1) * s, prev + (y + 2) * s, cur + (y - 1) * s, cur + y * s,
                          cur + (y + 1) * s, cur + (y + 2) * s, cur + (y + 3) * s, w, limit);
        }
        for (; y < end; y++) {
            if (pf && y + 1 < end)   /* row y + 1 reads row y + 2 (at most the ghost row h) */
                prefetch_rows(cur + (y + 2) * s, prev + (y + 1) * s, w);
            if (inline_ghosts)
                field_fill_side_ghosts(f, f->cur, edges, y, y + 1);
            over |= row(k, y, prev + y * s, cur + (y - 1) * s, cur + y * s, cur + (y + 1) * s, w, limit);
        }
    } else {
        int y = end;
        for (; rows3 && y - 3 >= begin; y -= 3) {
            if (inline_ghosts)
                field_fill_side_ghosts(f, f->cur, edges, y - 3, y);
            over |= rows3(k, y - 3, prev + (y - 3) * s, prev + (y - 2) * s, prev + (y - 1) * s, cur + (y - 4) * s,
                          cur + (y - 3) * s, cur + (y - 2) * s, cur + (y - 1) * s, cur + y * s, w, limit);
        }
        for (y--; y >= begin; y--) {
            if (pf && y - 1 >= begin)   /* row y - 1 reads row y - 2 (at least the ghost row -1) */
                prefetch_rows(cur + (y - 2) * s, prev + (y - 1) * s, w);
            if (inline_ghosts)
                field_fill_side_ghosts(f, f->cur, edges, y, y + 1);
            over |= row(k, y, prev + y * s, cur + (y - 1) * s, cur + y * s, cur + (y + 1) * s, w, limit);
        }
    }
    jb->pt.over[t] = over;
    band_done(&jb->pt, start, t0, t, nt);
}

/* The screen's finding of a pass: any thread's. */
static int any_over(const struct pass_times *pt)
{
    int o = 0;
    for (int t = 0; t < pt->team; t++)
        o |= pt->over[t];
    return o;
}

/* The screen's limit for a pass (solver.h's struct solver_screen; NULL: off). */
static float screen_limit(const struct solver_screen *screen)
{
    return screen ? screen->limit : 0.0f;
}

/* Reports a pass's finding in screen. */
static void screen_report(struct solver_screen *screen, const struct pass_times *pt)
{
    if (screen)
        screen->within = screen->limit > 0.0f && !any_over(pt);
}

/* RIPPLERENDER_DEBUG=kernels (debug.h): one line for a kernel's first
 * pass (its builds, its reach, how many steps a pass may fuse) and one for
 * each choice of its tuners (the way, the fastest time of every way tried,
 * the threads' row shares of the deciding pass). */

/* The build of the portable kernels that GCC's target_clones resolver runs
 * here: the first level the CPU has, in the order TBLOCK_ROW_KERNEL lists. */
static const char *clone_level(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (RR_CPU_HAS(4, "x86-64-v4"))
        return "AVX-512 (x86-64-v4)";
    if (RR_CPU_HAS(3, "x86-64-v3"))
        return "AVX2 (x86-64-v3)";
#endif
    return "the baseline";
}

/* Appends to buf (size bytes, *used of them taken), cutting what does not fit. */
static void __attribute__((format(printf, 4, 5))) append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    if (*used >= size - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used = *used + (size_t)n < size - 1 ? *used + (size_t)n : size - 1;
}

/* The name of kn's hand-written driver (tblock_kernel.row_driver). */
static const char *driver_name(const struct tblock_kernel *kn)
{
    return kn->driver ? kn->driver : "avx512";
}

/* The same with what it is, for the kernels' first line. */
static const char *driver_title(const struct tblock_kernel *kn)
{
    if (!kn->row_driver)
        return "";
    const char *name = driver_name(kn);
    return !strcmp(name, "avx2")             ? "avx2 (the AVX2 driver)"
           : !strcmp(name, "avx2-careful")   ? "avx2-careful (the AVX2 driver, careful of subnormals)"
           : !strcmp(name, "avx512-careful") ? "avx512-careful (the AVX-512 driver, careful of subnormals)"
                                             : "avx512 (the AVX-512 driver)";
}

static void report_kernel(const struct field *f, const struct tblock_kernel *kn)
{
    debug_line(DEBUG_KERNELS,
               "%dx%d grid: row kernels: portable built for %s%s%s; %s; %d neighbours; fused passes of up to %d "
               "steps (L2 %ld KiB)%s",
               f->w, f->h, clone_level(),
               !kn->row_driver ? "" : kn->driver_only ? ", and only " : ", ", driver_title(kn),
               kn->rows3 ? "1row and 3rows a loop" : "1row a loop", kn->diagonal ? 8 : 4, tblock_max_steps(f),
               tblock_l2_bytes() / 1024, served_by_l3(f) ? "; L3-sized: steps sweep down and up, 1row+prefetch too" : "");
}

/* Once per kernel, before its first pass. */
static void first_pass(const struct field *f, struct tblock_kernel *kn)
{
    if (kn->drive.reported)
        return;
    kn->drive.reported = 1;
    if (debug_on(DEBUG_KERNELS))
        report_kernel(f, kn);
}

/* The kernel of a tuner's way, as report_kernel names it. */
static const char *way_kernel_name(const struct tblock_kernel *kn, int way)
{
    return way_kernel(kn, way) == kn->row_driver ? driver_name(kn) : "portable";
}

/* A tuner's choice, just made: `what` the pass, mode[way / kernel_ways]
 * each way's mode, t the tuner, and the deciding pass's bands in the
 * balance. */
static void report_choice(const struct field *f, const struct tblock_kernel *kn, const char *what,
                          const char *const *mode, const struct tblock_tuner *t)
{
    if (!debug_on(DEBUG_KERNELS))
        return;
    const int kernels = kernel_ways(kn);
    char tried[512] = "", rows[256] = "";
    size_t tu = 0, ru = 0;
    for (int i = 0; i < t->ways; i++)
        if (i != t->chosen)
            append(tried, sizeof tried, &tu, "%s%s %s %.2f", tu ? ", " : "", way_kernel_name(kn, i),
                   mode[i / kernels], t->best[i] * 1e6);
    const struct tblock_balance *b = &kn->drive.balance;
    for (int i = 0; i < b->last_team; i++)
        append(rows, sizeof rows, &ru, "%s%d", i ? " + " : "", b->last[i + 1] - b->last[i]);
    debug_line(DEBUG_KERNELS, "%dx%d grid: %s: %s %s, %.2f us a step (%s%s); %d thread%s, rows %s", f->w, f->h, what,
               way_kernel_name(kn, t->chosen), mode[t->chosen / kernels], t->best[t->chosen] * 1e6,
               t->ways > 1 ? "the others: " : "the only way", tried, b->last_team, b->last_team == 1 ? "" : "s", rows);
}

/* The way of tuner t for a pass of nt threads among `ways` (`what` the pass
 * as report_choice names it, `pass` as the cache does: "step" or "pass<n>";
 * mode[way / kernel_ways] each way's mode). On the tuner's first pass, the
 * choice the cache remembers for this kernel, grid, pass and team when it
 * holds one: the tuner then starts settled, without its trials (every way
 * gives the same bits). */
static int pick_way(const struct field *f, const struct tblock_kernel *kn, struct tblock_tuner *t, const char *what,
                    const char *pass, int nt, int ways, const char *const *mode)
{
    if (t->ways == 0 && kn->name) {
        const int c = tunecache_lookup(kn->name, f->w, f->h, pass, nt, ways);
        if (c >= 0) {
            tblock_tuner_settle(t, ways, c);
            debug_line(DEBUG_KERNELS, "%dx%d grid: %s: %s %s from the tuner cache (no trials); %d thread%s", f->w,
                       f->h, what, way_kernel_name(kn, c), mode[c / kernel_ways(kn)], nt, nt == 1 ? "" : "s");
        }
    }
    return tblock_tuner_pick(t, ways);
}

/* After a round of trials of tuner t chose: the report, and the choice into
 * the cache. */
static void chosen_way(const struct field *f, const struct tblock_kernel *kn, const struct tblock_tuner *t,
                       const char *what, const char *pass, int nt, const char *const *mode)
{
    report_choice(f, kn, what, mode, t);
    tunecache_store(kn->name, f->w, f->h, pass, nt, t->ways, t->chosen);
}

void tblock_step(struct field *f, struct tblock_kernel *kn, struct solver_screen *screen)
{
    /* The ways: each kernel (kernel_ways) one row at a time, then the same
     * prefetching (on grids that may), then three rows a loop (when the
     * solver has such kernels). */
    enum { ONE_ROW, PREFETCH, THREE_ROWS } modes[3];
    int n_modes = 0;
    modes[n_modes++] = ONE_ROW;
    const int in_l3 = served_by_l3(f);
    if (in_l3)
        modes[n_modes++] = PREFETCH;
    if (kn->rows3)
        modes[n_modes++] = THREE_ROWS;
    static const char *const mode_names[] = { [ONE_ROW] = "1row", [PREFETCH] = "1row+prefetch",
                                              [THREE_ROWS] = "3rows" };
    const char *names[3];
    for (int i = 0; i < n_modes; i++)
        names[i] = mode_names[modes[i]];
    first_pass(f, kn);
    const int kernels = kernel_ways(kn), nt = team_size(f->h);
    const int way = pick_way(f, kn, &kn->drive.step_tuner, "step", "step", nt, n_modes * kernels, names);
    struct step_job jb = {
        .f = f, .kn = kn, .row = way_kernel(kn, way), .prefetch = modes[way / kernels] == PREFETCH,
        .upward = in_l3 && (kn->drive.sweeps++ & 1), .limit = screen_limit(screen),
    };
    jb.rows3 = modes[way / kernels] == THREE_ROWS ? rows3_kernel(kn, jb.row) : NULL;
    const double start_time = omp_get_wtime();
    team_run(nt, step_band, &jb);
    const int chose = tblock_tuner_learn(&kn->drive.step_tuner, way, omp_get_wtime() - start_time);
    tblock_balance_learn(&kn->drive.balance, jb.pt.team, jb.pt.rows, jb.pt.seconds);
    if (chose)
        chosen_way(f, kn, &kn->drive.step_tuner, "step", "step", nt, names);
    field_swap(f);
    screen_report(screen, &jb.pt);
}

/* The rows in flight, about n + 2 of each plane, fill at most three
 * quarters of L2, leaving room for the rows arriving ahead of the pass. */
int tblock_max_steps(const struct field *f)
{
    long m = tblock_l2_bytes() * 3 / 4 / (2 * (long)f->stride * (long)sizeof(float)) - 3;
    return m < 2 ? 2 : m > TBLOCK_MAX_LEVELS ? TBLOCK_MAX_LEVELS : (int)m;
}

struct pass {
    const struct field *f;
    const struct tblock_kernel *kn;
    tblock_row_fn row;            /* kn's kernel the tuner picked */
    tblock_rows3_fn rows3;        /* and its three-row kernel, or NULL: one row at a time */
    float *plane[2];              /* plane[j & 1] holds level j */
    const ptrdiff_t *walls;
    size_t n_walls;
    int last;                     /* the level the pass ends on */
    float limit;                  /* the screen's limit, 0: off */
    struct solver_levels *lv;     /* the levels handed out (NULL: none) */
    uint32_t out;                 /* lv's mask, 0 without lv */
    int inline_ghosts;            /* level 0's ghost columns set row by row as level 1 reaches them
                                     (kernels of the 4-neighbour reach: step_band says why) */
};

/* Level 0's ghost columns of rows [y0, y1) before level 1 computes them
 * (j == 1), when the pass sets them row by row. */
static void level0_ghosts(const struct pass *p, int j, int y0, int y1)
{
    if (j == 1 && p->inline_ghosts)
        field_fill_side_ghosts(p->f, p->plane[0], p->kn->edges, y0, y1);
}

/* Whether level j is handed out (struct solver_levels). */
static int handed_out(const struct pass *p, int j) { return p->out >> j & 1; }

/* The screen's limit for level j: the last level's, or the handed-out
 * levels' (tblock.h: the screen's cost is paid only where asked for). */
static float level_limit(const struct pass *p, int j)
{
    return j == p->last ? p->limit : handed_out(p, j) ? p->lv->limit : 0.0f;
}

/* Guards lv->bad while the threads record a handed-out level's bad cell. */
static pthread_mutex_t bad_lock = PTHREAD_MUTEX_INITIALIZER;

/* The screen's finding `over` on level j's rows [y0, y1), just finished:
 * for the last level, returned for the pass's screen; for a handed-out
 * level, the first cell of those rows beyond the limit once the walls are
 * zeroed (the kernel screens before), kept in lv->bad[j] when it comes
 * before the one kept (rows of a level finish in no set order). A blow-up
 * is rare, so this reads the rows again only when the kernel flagged them. */
static int level_over(const struct pass *p, int j, int y0, int y1, int over)
{
    if (!over || j == p->last)
        return over;
    const struct field *f = p->f;
    const float *g = p->plane[j & 1];
    const float limit = p->lv->limit;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < f->w; x++) {
            ptrdiff_t o = y * f->stride + x;
            if (fabsf(g[o]) <= limit)
                continue;
            pthread_mutex_lock(&bad_lock);
            if (p->lv->bad[j] < 0 || o < p->lv->bad[j]) {
                p->lv->bad[j] = o;
                p->lv->bad_value[j] = g[o];
            }
            pthread_mutex_unlock(&bad_lock);
            return 0;
        }
    return 0;
}

/* Hands out level j's rows [y0, y1) when there are any and j is asked for. */
static void hand_out(const struct pass *p, int j, int y0, int y1)
{
    if (y0 < y1 && handed_out(p, j))
        p->lv->rows(p->lv->arg, j, p->plane[j & 1], y0, y1);
}

/* The first wall at an offset >= off (walls are sorted). */
static size_t first_wall(const struct pass *p, ptrdiff_t off)
{
    size_t lo = 0, hi = p->n_walls;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->walls[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The walls and ghosts of level j's row y, just computed, as the plain path
 * has them when the next step reads this row. */
static void finish_row(const struct pass *p, int j, int y)
{
    const struct field *f = p->f;
    const ptrdiff_t s = f->stride;
    float *base = p->plane[j & 1];
    for (size_t i = p->n_walls ? first_wall(p, y * s) : 0; i < p->n_walls && p->walls[i] < y * s + f->w; i++)
        base[p->walls[i]] = 0.0f;
    field_fill_side_ghosts(f, base, p->kn->edges, y, y + 1);
    if (y == 0)
        field_fill_end_ghosts(f, base, p->kn->edges, 0);
    if (y == f->h - 1)
        field_fill_end_ghosts(f, base, p->kn->edges, 1);
}

/* Level j >= 1 at row y, then its walls and ghosts. Returns 1 when the
 * screen is on, j is the last level and the row has a cell beyond the
 * limit. */
static int level_row(const struct pass *p, int j, int y)
{
    const ptrdiff_t s = p->f->stride;
    const float *src = p->plane[(j - 1) & 1];
    level0_ghosts(p, j, y, y + 1);
    int over = p->row(p->kn->k, y, p->plane[j & 1] + y * s, src + (y - 1) * s, src + y * s, src + (y + 1) * s,
                      p->f->w, level_limit(p, j));
    finish_row(p, j, y);
    return level_over(p, j, y, y + 1, over);
}

/* Level j at rows y, y + 1, y + 2 by the three-row kernel, then their walls
 * and ghosts; as three level_row calls. */
static int level_rows3(const struct pass *p, int j, int y)
{
    const ptrdiff_t s = p->f->stride;
    const float *src = p->plane[(j - 1) & 1];
    float *out = p->plane[j & 1] + y * s;
    level0_ghosts(p, j, y, y + 3);
    int over = p->rows3(p->kn->k, y, out, out + s, out + 2 * s, src + (y - 1) * s, src + y * s, src + (y + 1) * s,
                        src + (y + 2) * s, src + (y + 3) * s, p->f->w, level_limit(p, j));
    for (int i = 0; i < 3; i++)
        finish_row(p, j, y + i);
    return level_over(p, j, y, y + 3, over);
}

/* Phase 1 on the band [a, b) of rows: the wavefront advances one row a
 * step, or three with the three-row kernel (level j then computes rows
 * r - j + 1 .. r - j + 3 of each three; it still needs level j - 1 only up
 * to one row below its own last, which level j - 1 computed just before,
 * and overwrites level j - 2 only where level j - 1 no longer needs it).
 * Returns the screen's finding. */
static int band(const struct pass *p, int n, int a, int b)
{
    const int h = p->f->h, step = p->rows3 ? 3 : 1;
    int over = 0;
    for (int r = a; r < b + n - 1; r += step)
        for (int j = 1; j <= n; j++) {
            int lo = a == 0 ? 0 : a + j - 1, hi = b == h ? h : b - j + 1;
            int y0 = r - (j - 1), y1 = y0 + step;
            y0 = y0 > lo ? y0 : lo;
            y1 = y1 < hi ? y1 : hi;
            if (y1 - y0 == 3)
                over |= level_rows3(p, j, y0);
            else
                for (int y = y0; y < y1; y++)
                    over |= level_row(p, j, y);
            /* A handed-out level: the rows whose neighbours are now done
             * in this band (at the grid's edges the ghost rows), before
             * level j + 2 overwrites row y0 - 2 in this same r: the band's
             * rows lo + 1 .. hi - 2 (0 and h - 1 at the grid's edges). */
            if (y0 < y1 && handed_out(p, j)) {
                int from = lo == 0 ? 0 : lo + 1, to = hi == h ? h : hi - 1;
                int d0 = y0 - 1 > from ? y0 - 1 : from, d1 = y1 == h ? h : y1 - 1 < to ? y1 - 1 : to;
                hand_out(p, j, d0, d1);
            }
        }
    return over;
}

/* Phase 2 around the band edge c. Returns the screen's finding. Level j's
 * rows c - j .. c + j - 1, which phase 1 could not hand out (a neighbour
 * was the other band's), are handed out once the gap's level j is done:
 * their neighbours c - j - 1 and c + j are then level j's still (level
 * j + 2 stopped short of them in both bands). */
static int gap(const struct pass *p, int n, int c)
{
    int over = 0;
    for (int j = 1; j <= n; j++) {
        for (int y = c - j + 1; y < c + j - 1; y++)
            over |= level_row(p, j, y);
        hand_out(p, j, c - j, c + j);
    }
    return over;
}

/* One fused pass's job for the team. */
struct pass_job {
    const struct pass *p;
    int n;
    int min_rows;   /* of a band: 2n + 2 keeps the gaps of phase 2 apart */
    struct pass_times pt;
};

/* Thread t's part of the pass (a team_fn): its band, then, once every band
 * is done, the gap above its band (thread 0's band has none). */
static void pass_band(void *arg, int t, int nt)
{
    struct pass_job *jb = arg;
    const struct pass *p = jb->p;
    int start[TBLOCK_MAX_THREADS + 1];
    const double t0 = band_begin(p->f, p->kn, jb->min_rows, start, t, nt, !p->inline_ghosts);
    int over = band(p, jb->n, start[t], start[t + 1]);
    band_done(&jb->pt, start, t0, t, nt);
    team_barrier(nt);
    if (t > 0)
        over |= gap(p, jb->n, start[t]);
    jb->pt.over[t] = over;
}

/* A fused pass of n steps as the cache names it (pass, 16 bytes) and as
 * report_choice does (what, 64 bytes). */
static void pass_names(int n, char *pass, char *what)
{
    snprintf(pass, 16, "pass%d", n);
    snprintf(what, 64, "fused pass of %d steps", n);
}

int tblock_advance(struct field *f, struct tblock_kernel *kn, int n, const ptrdiff_t *walls, size_t n_walls,
                   struct solver_screen *screen, struct solver_levels *levels)
{
    if (kn->edges[EDGE_TOP] == EDGE_WRAP || kn->edges[EDGE_BOTTOM] == EDGE_WRAP)
        return 0;
    /* The ways: each kernel (kernel_ways) one row at a time, then three
     * rows a loop when the solver has such kernels. */
    static const char *const names[2] = { "1row", "3rows" };
    first_pass(f, kn);
    const int kernels = kernel_ways(kn), min_rows = 2 * n + 2, nt = team_size(f->h / min_rows);
    char pass[16] = "", what[64] = "";
    if (kn->drive.pass_tuner.ways == 0)   /* the names only where they are read: no printing every pass */
        pass_names(n, pass, what);
    const int way = pick_way(f, kn, &kn->drive.pass_tuner, what, pass, nt, kernels * (kn->rows3 ? 2 : 1), names);
    const tblock_row_fn row = way_kernel(kn, way);
    const tblock_rows3_fn rows3 = way >= kernels ? rows3_kernel(kn, row) : NULL;
    const struct pass p = {
        .f = f, .kn = kn, .row = row, .rows3 = rows3, .plane = { f->cur, f->prev }, .walls = walls,
        .n_walls = n_walls, .last = n, .limit = screen_limit(screen), .lv = levels,
        .out = levels ? levels->mask & (((uint32_t)1 << n) - 2) : 0, .inline_ghosts = !kn->diagonal,
    };
    for (int j = 0; levels && j < n; j++)
        levels->bad[j] = -1;
    struct pass_job jb = { .p = &p, .n = n, .min_rows = min_rows };
    const double start_time = omp_get_wtime();
    team_run(nt, pass_band, &jb);
    const int chose = tblock_tuner_learn(&kn->drive.pass_tuner, way, (omp_get_wtime() - start_time) / n);
    tblock_balance_learn(&kn->drive.balance, jb.pt.team, jb.pt.rows, jb.pt.seconds);
    if (chose) {
        pass_names(n, pass, what);
        chosen_way(f, kn, &kn->drive.pass_tuner, what, pass, nt, names);
    }
    if (n & 1)
        field_swap(f);
    screen_report(screen, &jb.pt);
    return n;
}

/* tblock_internal.h: the drivers' own machinery behind src/tblock.h: the
 * tuner that picks among ways of doing a pass, and the balancer that shares
 * a grid's rows among threads. src/tblock.c uses them; the tests drive them
 * directly (test_tblock, test_sim_screen). A solver needs none of this: it
 * fills the public fields of its struct tblock_kernel and leaves the
 * kernel's `drive` (the state below) zeroed. */
#ifndef RR_TBLOCK_INTERNAL_H
#define RR_TBLOCK_INTERNAL_H

/* How a driver picks among ways of doing a pass that give the same bits
 * (the portable or the AVX-512 row kernel; prefetching the next rows or
 * not): by timing them on the pass itself, as FFTW's planner times its
 * algorithms. Which is faster depends on the CPU (prefetching helps on one
 * machine and hurts on another), so no choice is fixed in the code. The first passes take the ways in
 * turn, TBLOCK_TUNE_ROUNDS passes each, and every pass after them the way
 * whose fastest pass was fastest; after TBLOCK_RETUNE_PASSES passes the
 * trials start again, so that a choice made while another program was busy
 * on the machine does not stay for the rest of a long render (the trials
 * of slower ways are a small share of those passes). Only the speed
 * depends on the choice, never the frames. */
#define TBLOCK_TUNE_MAX 6
#define TBLOCK_TUNE_ROUNDS 6
#define TBLOCK_RETUNE_PASSES 4096
struct tblock_tuner {
    int ways;                       /* 0: not set up yet */
    int passes;                     /* passes timed in this round of trials */
    int chosen;                     /* the way, once passes reaches ways * TBLOCK_TUNE_ROUNDS */
    int since_choice;               /* passes since then */
    double best[TBLOCK_TUNE_MAX];   /* the fastest pass of each way, in seconds a step */
};

/* The way (0 .. ways - 1) for the next pass, setting t up for `ways` ways
 * (1 .. TBLOCK_TUNE_MAX) on its first call. */
int tblock_tuner_pick(struct tblock_tuner *t, int ways);

/* Sets t up for `ways` ways as if its trials had chosen `chosen` (a
 * choice remembered from an earlier run, tunecache.h): no trials now, the
 * next round of them after TBLOCK_RETUNE_PASSES passes as usual. */
void tblock_tuner_settle(struct tblock_tuner *t, int ways, int chosen);

/* Records that a pass the way `way` took took `seconds` a step. Returns 1
 * when this pass ended a round of trials (t->chosen is then the new choice),
 * else 0. */
int tblock_tuner_learn(struct tblock_tuner *t, int way, double seconds);

/* How the drivers share a grid's rows among their threads: in bands, one a
 * thread, whose heights follow each thread's speed measured on the passes
 * before (rows per second, smoothed), so that a core that runs slower, with
 * another program on it or in a hybrid CPU's smaller cores, gets fewer rows
 * and the faster one does not wait for it at the end of every pass (on a
 * shared machine one core can run the same kernel far slower than the other
 * for minutes at a time). The split never changes the bits: every row is
 * computed from the same inputs whichever thread computes it (test_tblock). */
#define TBLOCK_MAX_THREADS 64
struct tblock_balance {
    int threads;                        /* the team the speeds are for; 0: none yet (equal bands) */
    double speed[TBLOCK_MAX_THREADS];   /* rows per second of each thread */
    int last_team;                      /* the last pass's team, 0: none */
    int last[TBLOCK_MAX_THREADS + 1];   /* and its bands, as start below */
};

/* The bands of nt threads over h rows: band t is rows [start[t], start[t+1]),
 * start[0] = 0 and start[nt] = h; heights in proportion to the speeds when
 * b has them for nt threads, else equal; each at least min_rows when
 * nt * min_rows <= h (the caller makes it so when it needs it). When every
 * band edge would move by at most TBLOCK_BALANCE_DEAD_BAND(h) rows from
 * the last pass's (same h and team), the last pass's bands are kept: rows
 * that change thread come from the other core's cache, and a split that
 * followed each pass's timing would move a dozen rows back and forth every
 * pass, each move slowing the thread that took them. */
#define TBLOCK_BALANCE_DEAD_BAND(h) ((h) / 32 > 2 ? (h) / 32 : 2)
void tblock_balance_split(const struct tblock_balance *b, int h, int nt, int min_rows, int *start);

/* Learns from one pass of nt threads: thread t did rows[t] rows in
 * seconds[t] (and the pass's bands were those rows in order). A new figure
 * moves a thread's speed a quarter of the way, and at most by a factor 2,
 * so that one preempted pass does not upset the split. */
void tblock_balance_learn(struct tblock_balance *b, int nt, const int *rows, const double *seconds);

/* What the drivers learn about a kernel as they run (struct tblock_kernel's
 * `drive`): zero at the solver's init. */
struct tblock_drive {
    struct tblock_balance balance;               /* the split of the rows among threads */
    struct tblock_tuner step_tuner, pass_tuner;  /* tblock_step's and tblock_advance's ways */
    unsigned sweeps;                             /* tblock_step's count: odd ones go up (tblock.c) */
    int reported;                                /* RIPPLERENDER_DEBUG=kernels: the kernel's line is out */
};

#endif

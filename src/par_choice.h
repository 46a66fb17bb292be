/* par_choice.h: one thread or the team, step by step, whichever the last
 * steps show faster just now.
 *
 * For a loop too small for the team to win on every machine at every
 * moment (the spectral solver's domains under PAR_MIN): on free cores the
 * team's share of the work makes a step faster, but the team waits at each
 * barrier for whichever of its threads the scheduler parked, so on cores
 * other threads hold (an encoder's, once its lookahead is full; another
 * program's) one thread is faster. The caller times each step (wall time)
 * and reports it; the choice only sets the speed, so it may only be used
 * where every thread count gives the same bits.
 *
 * The first steps take each way twice (the faster of the two counts: the
 * first step of a way pays its cold caches, or the pool's start). Then the
 * steps take the faster way, and try the other once every `gap` steps. A
 * try wins when its step took less than PAR_WIN times the running mean (a
 * quarter of each new step) of the way taken; the other way is tried at
 * once when that mean grows past PAR_SLOWER times what the other way took
 * when last timed (the cores taken). The gap starts at PAR_GAP_MIN and
 * doubles, up to PAR_GAP_MAX, after every try, won or lost: where the
 * other way stays slower, trying costs little, and where another program
 * takes a core in bursts, the team (fast between bursts, slow in them)
 * and one thread do not take turns every few steps. */
#ifndef RR_PAR_CHOICE_H
#define RR_PAR_CHOICE_H

#define PAR_GAP_MIN 16
#define PAR_GAP_MAX 512
#define PAR_WIN 0.9
#define PAR_SLOWER 1.5

struct par_choice {
    double cost[2];   /* seconds a step one thread (0) and the team (1) take, as above */
    int seen[2];      /* steps timed each way */
    int way;          /* the way taken */
    int left;         /* steps before the next try of the other way */
    int gap;          /* steps between tries */
};

/* The way the next step takes: 0 one thread, 1 the team. c starts zeroed. */
static inline int par_way(struct par_choice *c)
{
    if (c->seen[0] < 2 || c->seen[1] < 2)
        return c->seen[0] < 2 ? 0 : 1;
    if (c->left > 0) {
        c->left--;
        return c->way;
    }
    return !c->way;
}

/* The step par_way chose `way` for took `sec` seconds. Returns 1 when the
 * way the steps take was chosen (after the first steps) or changed by it,
 * else 0. */
static inline int par_took(struct par_choice *c, int way, double sec)
{
    if (c->seen[0] < 2 || c->seen[1] < 2) {   /* the first steps */
        c->cost[way] = c->seen[way]++ == 0 || sec < c->cost[way] ? sec : c->cost[way];
        if (c->seen[0] < 2 || c->seen[1] < 2)
            return 0;
        c->way = c->cost[1] < PAR_WIN * c->cost[0];
        c->gap = c->left = PAR_GAP_MIN;
        return 1;
    }
    c->seen[way]++;
    if (way == c->way) {
        c->cost[way] += 0.25 * (sec - c->cost[way]);
        if (c->cost[way] > PAR_SLOWER * c->cost[!way])
            c->left = 0;
        return 0;
    }
    const int wins = sec < PAR_WIN * c->cost[c->way];
    c->cost[way] = sec;
    if (wins)
        c->way = way;
    c->gap = 2 * c->gap > PAR_GAP_MAX ? PAR_GAP_MAX : 2 * c->gap;
    c->left = c->gap;
    return wins;
}

#endif

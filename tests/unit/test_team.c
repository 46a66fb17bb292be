/* test_team.c: the thread pool of src/team.c: every share of a job runs
 * once, with its own index and the team's size, on the pool; team_for's
 * chunks cover the range once, as documented; team_barrier holds every
 * thread until all have arrived, round after round; workers asleep (idle
 * for longer than TEAM_SPIN_US) wake for the next job; a job started from
 * inside a job, or by a second thread while the pool is busy, runs on
 * OpenMP and still runs every share once. */
#include <omp.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "team.h"

enum { MAXT = 8 };

/* A job that records who ran: runs[t] counts share t's calls, sizes[t]
 * the nt it was given, pooled[t] whether it ran on the pool. */
struct record {
    atomic_int runs[MAXT];
    int sizes[MAXT];
    int pooled[MAXT];
};

static void record_share(void *arg, int t, int nt)
{
    struct record *r = arg;
    atomic_fetch_add(&r->runs[t], 1);
    r->sizes[t] = nt;
    r->pooled[t] = team_ran_on_pool();
}

static void expect_every_share_once(const struct record *r, int nt, int pooled)
{
    for (int t = 0; t < MAXT; t++) {
        assert_int_equal(atomic_load(&r->runs[t]), t < nt ? 1 : 0);
        if (t < nt) {
            assert_int_equal(r->sizes[t], nt);
            if (nt > 1)   /* one thread runs inline: neither */
                assert_int_equal(r->pooled[t], pooled);
        }
    }
}

/* More threads than cores too: the pool grows to the team asked for. */
static void test_every_share_once(void **state)
{
    (void)state;
    for (int round = 0; round < 50; round++)
        for (int nt = 1; nt <= MAXT; nt++) {
            struct record r;
            memset(&r, 0, sizeof r);
            team_run(nt, record_share, &r);
            expect_every_share_once(&r, nt, 1);
        }
}

struct cover {
    int n;
    atomic_int hits[1000];
    atomic_int chunks;
    int bad;   /* a chunk outside [0, n) or empty */
};

static void cover_body(void *arg, int lo, int hi)
{
    struct cover *c = arg;
    if (lo < 0 || hi > c->n || lo >= hi)
        c->bad = 1;
    for (int i = lo; i < hi; i++)
        atomic_fetch_add(&c->hits[i], 1);
    atomic_fetch_add(&c->chunks, 1);
}

/* Every index once, in at most nt non-empty chunks (n of them when n < nt). */
static void test_for_covers_once(void **state)
{
    (void)state;
    const int ns[] = { 1, 2, 3, 7, 64, 999, 1000 };
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
        for (int nt = 1; nt <= MAXT; nt++) {
            static struct cover c;
            memset(&c, 0, sizeof c);
            c.n = ns[k];
            team_for(c.n, nt, cover_body, &c);
            assert_int_equal(c.bad, 0);
            for (int i = 0; i < c.n; i++)
                assert_int_equal(atomic_load(&c.hits[i]), 1);
            assert_int_equal(atomic_load(&c.chunks), c.n < nt ? c.n : nt);
        }
    struct cover none;
    memset(&none, 0, sizeof none);
    team_for(0, 4, cover_body, &none);
    assert_int_equal(atomic_load(&none.chunks), 0);
}

/* Each round every thread writes its slot, waits at the barrier, then
 * checks every other thread's slot holds this round; then a second barrier
 * before the slots change again. */
struct rounds {
    int n;
    atomic_int slot[MAXT];
    atomic_int wrong;
};

static void barrier_rounds(void *arg, int t, int nt)
{
    struct rounds *r = arg;
    for (int round = 1; round <= r->n; round++) {
        atomic_store(&r->slot[t], round);
        team_barrier(nt);
        for (int u = 0; u < nt; u++)
            if (atomic_load(&r->slot[u]) != round)
                atomic_fetch_add(&r->wrong, 1);
        team_barrier(nt);
    }
}

static void test_barrier(void **state)
{
    (void)state;
    for (int nt = 1; nt <= 4; nt++) {
        struct rounds r;
        memset(&r, 0, sizeof r);
        r.n = 2000;
        team_run(nt, barrier_rounds, &r);
        assert_int_equal(atomic_load(&r.wrong), 0);
        assert_int_equal(team_ran_on_pool(), 1);
    }
}

/* Idle for longer than the workers spin, so that they sleep between jobs:
 * each job must still run every share (a lost wake-up hangs here). */
static void test_sleeping_workers_wake(void **state)
{
    (void)state;
    for (int i = 0; i < 60; i++) {
        const struct timespec pause_for = { 0, (long)(i % 3) * TEAM_SPIN_US * 1000L };   /* 0, 1x, 2x the spin */
        nanosleep(&pause_for, NULL);
        struct record r;
        memset(&r, 0, sizeof r);
        team_run(2 + i % 3, record_share, &r);
        expect_every_share_once(&r, 2 + i % 3, 1);
    }
}

/* A job whose share 0 starts another job: the pool is busy, so the inner
 * one runs on OpenMP, every share once. */
struct nested {
    struct record inner;
    int inner_on_pool;
};

static void start_inner(void *arg, int t, int nt)
{
    (void)nt;
    struct nested *n = arg;
    if (t != 0)
        return;
    team_run(3, record_share, &n->inner);
    n->inner_on_pool = team_ran_on_pool();
}

static void test_nested_runs_on_openmp(void **state)
{
    (void)state;
    struct nested n;
    memset(&n, 0, sizeof n);
    team_run(2, start_inner, &n);
    assert_int_equal(n.inner_on_pool, 0);
    /* OpenMP gives a nested region one thread unless nesting is on: every
     * share the region had, once. */
    int got = n.inner.sizes[0];
    assert_true(got >= 1 && got <= 3);
    expect_every_share_once(&n.inner, got, 0);
}

/* Two threads starting jobs at once: whichever finds the pool busy runs on
 * OpenMP; every job of both runs every share once. */
struct caller {
    int wrong;
};

static void *call_many(void *arg)
{
    struct caller *c = arg;
    for (int i = 0; i < 2000; i++) {
        struct record r;
        memset(&r, 0, sizeof r);
        team_run(2, record_share, &r);
        for (int t = 0; t < 2; t++)
            if (atomic_load(&r.runs[t]) != 1)
                c->wrong++;
    }
    return NULL;
}

static void test_two_callers(void **state)
{
    (void)state;
    struct caller a = { 0 }, b = { 0 };
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, call_many, &a), 0);
    call_many(&b);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(a.wrong, 0);
    assert_int_equal(b.wrong, 0);
}

/* team_threads follows OpenMP's setting (what main.c's thread policy sets). */
static void test_threads_follow_openmp(void **state)
{
    (void)state;
    const int before = omp_get_max_threads();
    omp_set_num_threads(3);
    assert_int_equal(team_threads(), 3);
    assert_int_equal(team_threads_for(100, 100), 3);
    assert_int_equal(team_threads_for(99, 100), 1);
    omp_set_num_threads(before);
    assert_int_equal(team_threads(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_share_once),   cmocka_unit_test(test_for_covers_once),
        cmocka_unit_test(test_barrier),            cmocka_unit_test(test_sleeping_workers_wake),
        cmocka_unit_test(test_nested_runs_on_openmp), cmocka_unit_test(test_two_callers),
        cmocka_unit_test(test_threads_follow_openmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

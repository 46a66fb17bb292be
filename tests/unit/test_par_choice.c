/* test_par_choice.c: src/par_choice.h, the choice between one thread and
 * the team by the steps' times, driven with made-up times: each way twice
 * first, the faster of each pair counted; the team only when clearly
 * faster; tries of the other way PAR_GAP_MIN steps after the first
 * steps, the gap doubled by each try up to PAR_GAP_MAX; and a try at once
 * when the way taken slows past PAR_SLOWER times the other (an encoder
 * taking the cores). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "par_choice.h"

/* Steps the way par_way says, each taking cost[way] seconds, until a try
 * of the other way comes (returned: the steps before it), at most `most`. */
static int steps_until_try(struct par_choice *c, const double cost[2], int most)
{
    const int taken = c->way;
    for (int i = 0; i < most; i++) {
        const int way = par_way(c);
        if (way != taken)
            return i;
        assert_int_equal(par_took(c, way, cost[way]), 0);
    }
    return most;
}

/* The first four steps: one thread twice, the team twice, each way's
 * faster step counted (the first pays its cold start). */
static void test_first_steps(void **state)
{
    (void)state;
    struct par_choice c = { 0 };
    const double times[4] = { 3e-3, 1e-3, 0.9e-3, 0.5e-3 };
    const int ways[4] = { 0, 0, 1, 1 };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(par_way(&c), ways[i]);
        assert_int_equal(par_took(&c, ways[i], times[i]), i == 3);
    }
    assert_int_equal(c.way, 1);
    assert_true(c.cost[0] == 1e-3 && c.cost[1] == 0.5e-3);
    assert_int_equal(c.left, PAR_GAP_MIN);
}

/* A team not faster by 1 - PAR_WIN stays unused. */
static void test_team_not_clearly_faster(void **state)
{
    (void)state;
    struct par_choice c = { 0 };
    const double times[4] = { 1e-3, 1e-3, 0.95e-3, 0.95e-3 };
    for (int i = 0; i < 4; i++)
        par_took(&c, par_way(&c), times[i]);
    assert_int_equal(c.way, 0);
}

/* The team keeps winning: tries of one thread every PAR_GAP_MIN steps at
 * first, then twice as far apart after each lost try, up to PAR_GAP_MAX. */
static void test_tries_back_off(void **state)
{
    (void)state;
    struct par_choice c = { 0 };
    const double cost[2] = { 1e-3, 0.6e-3 };
    for (int i = 0; i < 4; i++) {
        const int way = par_way(&c);
        par_took(&c, way, cost[way]);
    }
    assert_int_equal(c.way, 1);
    int gap = PAR_GAP_MIN;
    for (int k = 0; k < 8; k++) {
        assert_int_equal(steps_until_try(&c, cost, 10 * PAR_GAP_MAX), gap);
        assert_int_equal(par_took(&c, par_way(&c), cost[0]), 0);   /* the try loses */
        assert_int_equal(c.way, 1);
        gap = 2 * gap > PAR_GAP_MAX ? PAR_GAP_MAX : 2 * gap;
    }
}

/* The team slows to three times its time (the cores taken): one thread is
 * tried within a few steps and taken; when the cores free again, the next
 * try of the team, twice as far as the first, wins it back. */
static void test_follows_the_load(void **state)
{
    (void)state;
    struct par_choice c = { 0 };
    double cost[2] = { 1e-3, 0.6e-3 };
    for (int i = 0; i < 4; i++) {
        const int way = par_way(&c);
        par_took(&c, way, cost[way]);
    }
    assert_int_equal(c.way, 1);
    cost[1] = 3e-3;
    const int before = steps_until_try(&c, cost, PAR_GAP_MIN);
    assert_true(before < 5);   /* the mean passes 1.5 ms within a few steps, not at the next planned try */
    assert_int_equal(par_took(&c, par_way(&c), cost[0]), 1);
    assert_int_equal(c.way, 0);
    cost[1] = 0.6e-3;
    assert_int_equal(steps_until_try(&c, cost, 10 * PAR_GAP_MAX), 2 * PAR_GAP_MIN);
    assert_int_equal(par_took(&c, par_way(&c), cost[1]), 1);
    assert_int_equal(c.way, 1);
    assert_int_equal(c.left, 4 * PAR_GAP_MIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_steps),
        cmocka_unit_test(test_team_not_clearly_faster),
        cmocka_unit_test(test_tries_back_off),
        cmocka_unit_test(test_follows_the_load),
    };
    return cmocka_run_group_tests_name("par_choice", tests, NULL, NULL);
}

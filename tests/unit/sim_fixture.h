/* sim_fixture.h: a simulation made and advanced by the unit tests that run
 * whole frames (test_wave, test_water_depth, test_walls), failing the test
 * with the library's own message when it refuses. Include after cmocka.h. */
#ifndef RR_TEST_SIM_FIXTURE_H
#define RR_TEST_SIM_FIXTURE_H

#include "sim.h"

static inline struct sim *make(const struct scene *sc)
{
    struct sim *s = NULL;
    struct rr_err e = { 0 };
    if (sim_create(&s, sc, &e) < 0)
        fail_msg("sim_create: %s", e.msg);
    return s;
}

static inline void advance(struct sim *s)
{
    struct rr_err e = { 0 };
    if (sim_advance_frame(s, &e) < 0)
        fail_msg("sim_advance_frame: %s", e.msg);
}

#endif

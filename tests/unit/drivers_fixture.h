/* drivers_fixture.h: runs a unit test with the AVX2 row drivers
 * (src/tblock_avx2.h) in the solvers' drivers' slot, on an AVX-512 CPU too,
 * where the AVX-512 drivers hold it otherwise: the tests that compare the
 * drivers with the portable kernels (test_sim_screen, test_reference,
 * test_tblock) run once with each, and with each driver's careful and
 * plain kernels. On a CPU without AVX2 the slot stays empty and such a run
 * tests the portable kernels again. Include after cmocka.h. */
#ifndef RR_TEST_DRIVERS_FIXTURE_H
#define RR_TEST_DRIVERS_FIXTURE_H

#include "tblock.h"

static inline int avx2_drivers(void **state)
{
    (void)state;
    tblock_allow_avx512(0);
    tblock_allow_avx2(1);
    return 0;
}

static inline int default_drivers(void **state)
{
    (void)state;
    tblock_allow_avx512(1);
    tblock_allow_avx2(1);
    tblock_allow_careful(-1);
    return 0;
}

/* The drivers' TBLOCK_CAREFUL kernels (src/tblock.h), which a CPU slow on
 * subnormal floats gets, and the plain ones, whichever this CPU gets. */
static inline int careful_drivers(void **state)
{
    (void)state;
    tblock_allow_careful(1);
    return 0;
}

static inline int plain_drivers(void **state)
{
    (void)state;
    tblock_allow_careful(0);
    return 0;
}

static inline int avx2_careful_drivers(void **state)
{
    avx2_drivers(state);
    return careful_drivers(state);
}

/* cmocka_unit_test(f), run with the AVX2 drivers; with the careful or
 * plain AVX-512 ones; with the careful AVX2 ones. */
#define AVX2_DRIVER_TEST(f) cmocka_unit_test_setup_teardown(f, avx2_drivers, default_drivers)
#define CAREFUL_DRIVER_TEST(f) cmocka_unit_test_setup_teardown(f, careful_drivers, default_drivers)
#define PLAIN_DRIVER_TEST(f) cmocka_unit_test_setup_teardown(f, plain_drivers, default_drivers)
#define AVX2_CAREFUL_DRIVER_TEST(f) cmocka_unit_test_setup_teardown(f, avx2_careful_drivers, default_drivers)

#endif

/* drivers_fixture.h: runs a unit test with the AVX2 row drivers
 * (src/tblock_avx2.h) in the solvers' drivers' slot, on an AVX-512 CPU too,
 * where the AVX-512 drivers hold it otherwise: the tests that compare the
 * drivers with the portable kernels (test_sim_screen, test_reference,
 * test_tblock) run once with each. On a CPU without AVX2 the slot stays
 * empty and such a run tests the portable kernels again. Include after
 * cmocka.h. */
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
    return 0;
}

/* cmocka_unit_test(f), run with the AVX2 drivers. */
#define AVX2_DRIVER_TEST(f) cmocka_unit_test_setup_teardown(f, avx2_drivers, default_drivers)

#endif

/* emulated.h: the unit tests that tests/cli/test_kernels.sh runs again under
 * QEMU's user-mode emulator (on a Haswell and on a baseline x86-64 CPU, to
 * reach the builds of the kernels this CPU does not run) run there some
 * fifty times slower than natively. RR_TEST_EMULATED=1, which that script
 * sets, makes their longest sweeps take a sample: every test_thin(k)-th
 * value instead of every one, or only the cases a CPU level can change (not
 * those that test threads, which are the same code on any level). Natively,
 * unset, every sweep is whole. */
#ifndef RR_TEST_EMULATED_H
#define RR_TEST_EMULATED_H

#include <stdlib.h>
#include <string.h>

/* Whether this run is under the emulator (RR_TEST_EMULATED set, not "0"). */
static inline int test_emulated(void)
{
    const char *e = getenv("RR_TEST_EMULATED");
    return e && *e && strcmp(e, "0") != 0;
}

/* A sweep's step factor: k under the emulator, 1 natively. */
static inline int test_thin(int k)
{
    return test_emulated() ? k : 1;
}

#endif

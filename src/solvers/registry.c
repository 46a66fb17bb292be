/* registry.c: the solvers of this build, one entry each; solver.type names
 * them, and messages list them in this order (docs/scene.md). Each is
 * defined in its own file here (src/solvers/NAME.c). */
#include "solver.h"

extern const struct solver_ops solver_elias, solver_flow, solver_spring, solver_wave, solver_spectral;

const struct solver_ops *const solver_registry[] = {
    &solver_elias, &solver_flow, &solver_spring, &solver_wave, &solver_spectral, NULL,
};

_Static_assert(sizeof solver_registry / sizeof solver_registry[0] <= SOLVER_MAX + 1,
               "more solvers than SOLVER_MAX (src/solver.h)");

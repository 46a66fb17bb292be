/* solver.c: the solver registry (type -> ops table) and the damping factor
 * shared by the finite-difference solvers. */
#include "solver.h"

#include <math.h>

extern const struct solver_ops solver_elias, solver_flow, solver_spring;
extern const struct solver_ops solver_spectral;

const struct solver_ops *solver_find(enum solver_type type)
{
    switch (type) {
    case SOLVER_ELIAS: return &solver_elias;
    case SOLVER_FLOW: return &solver_flow;
    case SOLVER_SPRING: return &solver_spring;
    case SOLVER_SPECTRAL: return &solver_spectral;
    default: return NULL;   /* wave and spectral are not in this build */
    }
}

double solver_damping_per_step(const struct scene *sc)
{
    if (sc->solver.half_life > 0)
        return pow(0.5, scene_dt(sc) / sc->solver.half_life);
    return sc->solver.damping;
}

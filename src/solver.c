/* solver.c: the solver registry (type -> ops table) and the damping factor
 * shared by the finite-difference solvers. */
#include "solver.h"

#include <math.h>

extern const struct solver_ops solver_elias, solver_flow, solver_spring, solver_wave,
    solver_spectral;

const struct solver_ops *solver_find(enum solver_type type)
{
    switch (type) {
    case SOLVER_ELIAS: return &solver_elias;
    case SOLVER_FLOW: return &solver_flow;
    case SOLVER_SPRING: return &solver_spring;
    case SOLVER_WAVE: return &solver_wave;
    case SOLVER_SPECTRAL: return &solver_spectral;
    default: return NULL;
    }
}

/* The formula and its reason: src/solver.h. */
double solver_damping_per_step(const struct scene *sc)
{
    if (sc->solver.half_life > 0)
        return pow(0.25, scene_dt(sc) / sc->solver.half_life);
    if (sc->solver.damping_shift > 0)
        return 1.0 - ldexp(1.0, -sc->solver.damping_shift);
    return sc->solver.damping;
}

int solver_spring_axes(const struct scene *sc)
{
    return (sc->grid.width > 1) + (sc->grid.height > 1);
}

double solver_spring_blur(const struct scene *sc, double cx, double cy)
{
    const double b = sc->solver.blend;
    double sum = 1;
    if (sc->grid.width > 1)
        sum += 2 * (1 - b) + 2 * b * cx;
    if (sc->grid.height > 1)
        sum += 2 * (1 - b) + 2 * b * cy;
    return sum / (1 + 2 * solver_spring_axes(sc));
}

int solver_wave_stable(double cmax, double fps, int steps, double dx)
{
    double nu = cmax / (fps * (double)steps * dx);
    return nu * nu <= 0.5;
}

int solver_wave_min_steps(double cmax, double fps, double dx)
{
    double guess = floor(cmax * sqrt(2.0) / (fps * dx));
    int n = guess < 1 ? 1 : guess > 1e6 ? 1000000 : (int)guess;
    while (n < 1000000 && !solver_wave_stable(cmax, fps, n, dx))
        n++;
    return n;
}

bool solver_has_step_limit(enum solver_type type)
{
    return type == SOLVER_WAVE;
}

double solver_water_omega(const struct solver_config *c, double k)
{
    double w2 = c->gravity * k + c->surface_tension / c->density * k * k * k;
    return sqrt(c->depth > 0 ? w2 * tanh(k * c->depth) : w2);
}

/* The smallest n with omega(pi / dx) dt < pi, dt = 1 / (fps n): the
 * shortest waves of the grid turn less than half a period per step, so a
 * source applied once per step cannot drive them by aliasing (a mode turning
 * omega dt per step looks like one turning 2 pi - omega dt). Strict: the
 * recurrence is exact at any dt, so no margin beyond it. */
static int spectral_min_steps(const struct scene *sc)
{
    double n = floor(solver_water_omega(&sc->solver, M_PI / sc->grid.cell_size) / (M_PI * sc->time.fps)) + 1;
    return n < 1 ? 1 : n > 1e6 ? 1000000 : (int)n;
}

int solver_auto_steps(const struct scene *sc)
{
    int n = 1;
    if (sc->solver.type == SOLVER_WAVE) {
        double c = sc->solver.speed_map ? fmax(sc->solver.speed_range[0], sc->solver.speed_range[1])
                                        : sc->solver.speed;
        n = solver_wave_min_steps(c, sc->time.fps, sc->grid.cell_size);
    } else if (sc->solver.type == SOLVER_SPECTRAL) {
        n = spectral_min_steps(sc);
    }
    return n > 1000 ? 1000 : n;
}

/* solver.h: the solver interface and its registry.
 *
 * A solver advances the field by one time step in place: on entry f->cur is
 * the height now and f->prev the height one step ago; on return f->cur holds
 * the new height and f->prev the old "now" (solvers swap with field_swap).
 * Ghost cells of f->cur must be filled by the solver (field_fill_ghosts) before
 * it reads neighbours. Walls are zeroed by the caller after the step. */
#ifndef RR_SOLVER_H
#define RR_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "field.h"
#include "rr_err.h"
#include "scene.h"

struct solver_ops {
    const char *name;          /* as in solver.type */
    size_t priv_size;          /* zeroed bytes handed to init */
    /* Checks the scene's solver keys against this solver's limits and sets up
     * priv. Returns 0, or -1 with e filled (status RR_EXIT_USAGE for values the
     * user can fix, naming the key). */
    int (*init)(void *priv, const struct scene *sc, struct field *f, struct rr_err *e);
    /* One time step. Cannot fail. */
    void (*step)(void *priv, struct field *f);
    /* Optional (NULL: none): n >= 2 steps at once (temporal blocking,
     * src/tblock.h), each followed by zeroing the wall cells `walls` (sorted
     * field offsets) in f->cur, when nothing else happens between them.
     * Returns the steps done: n, or 0 with f untouched when it cannot (the
     * caller then takes single steps). The bits equal those of the single steps. */
    int (*advance)(void *priv, struct field *f, int n, const ptrdiff_t *walls, size_t n_walls);
    /* Frees what init allocated inside priv (not priv itself). Safe after a failed init. */
    void (*free)(void *priv);
    /* Optional: the speed of long waves at cell (x, y) in cells per step, for
     * the absorbing edges (src/sim.c). NULL: sim.c derives it from the scene. */
    double (*cell_speed)(const void *priv, int x, int y);
};

/* The registry: the ops for a solver type, or NULL when this build has none. */
const struct solver_ops *solver_find(enum solver_type type);

/* The per-step damping factor for a scene: `damping`, or the factor that halves
 * an undriven ripple in `half_life` seconds: 0.5^(dt / half_life).
 * Ignores damping_shift (callers apply that form themselves). */
double solver_damping_per_step(const struct scene *sc);

/* The wave solver's Courant condition, shared by its init and by "auto" steps:
 * stable when c dt / dx <= 1/sqrt(2) with dt = 1 / (fps * steps), c the fastest
 * speed (m/s) and dx the cell size (m). */
int solver_wave_stable(double cmax, double fps, int steps, double dx);

/* The smallest steps_per_frame (>= 1) that solver_wave_stable accepts. */
int solver_wave_min_steps(double cmax, double fps, double dx);

/* What time.steps_per_frame "auto" resolves to: for wave the smallest stable
 * count at the fastest speed the scene allows (`speed`, or the larger end of
 * `speed_range` with a speed_map), capped at 1000; 1 for the other solvers,
 * which are stable at any step count. */
int solver_auto_steps(const struct scene *sc);

/* The bytes the spectral solver allocates for sc's padded FFT domain (with
 * `threads` threads' line buffers): what budget.c counts. */
uint64_t solver_spectral_bytes(const struct scene *sc, int threads);

#endif

/* solver.h: the solver interface and its registry.
 *
 * A solver advances the field by one time step in place: on entry f->cur is
 * the height now and f->prev the height one step ago; on return f->cur holds
 * the new height and f->prev the old "now" (solvers swap with field_swap).
 * Ghost cells of f->cur must be filled by the solver (field_fill_ghosts) before
 * it reads neighbours. Walls are zeroed by the caller after the step. */
#ifndef RR_SOLVER_H
#define RR_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field.h"
#include "rr_err.h"
#include "scene.h"

/* One buffer of a solver's evolving state besides the two height planes
 * (solver_ops.state): rows x cols floats, rows `stride` floats apart. */
struct solver_state_buf {
    const char *name;   /* unique within the solver; letters, digits, '-' and '_' */
    float *data;
    int rows, cols;
    ptrdiff_t stride;
};

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
    /* Set when the solver itself takes what sim.c changes in f->cur between
     * steps as water displaced at rest (spectral): sim.c then puts the
     * initial images into f->cur alone, after init (sources_initial). */
    bool displaces_at_rest;
    /* Optional (NULL: the planes are the whole state): the buffers that
     * carry state from one step to the next besides f->cur and f->prev, so
     * that a checkpoint (src/state.c) can save them and write them back.
     * Fills at most max entries and returns their number; the pointers are
     * valid until the next step. Everything else in priv must follow from
     * the scene alone. */
    int (*state)(void *priv, struct solver_state_buf *bufs, int max);
    /* Optional (NULL: none): `step` written as its equation, one cell at a
     * time in the seed's loop (no vectors, threads or fused steps), on the
     * same priv after init: the same bits as `step`, which
     * tests/unit/test_reference.c checks against step and advance. The
     * renderer never calls it; it is the plain path a reader starts from. */
    void (*reference_step)(const void *priv, struct field *f);
};

/* The registry: the ops for a solver type, or NULL when this build has none. */
const struct solver_ops *solver_find(enum solver_type type);

/* The per-step factor d that the seed solvers (elias, flow, spring) multiply
 * each new height by: from `half_life` T when given, else 1 - 2^-n for
 * `damping_shift` n, else `damping`. elias and flow step h' = d (2 B h - p)
 * (B the stencil's factor for one Fourier mode), whose two roots have
 * |lambda|^2 = d; spring steps h' = B^P d (2h - p), |lambda|^2 = B^P d with
 * B -> 1 for long waves. Either way the height shrinks by sqrt(d) per step
 * (on top of spring's blur), not by d: halving it in T seconds,
 * sqrt(d)^(T / dt) = 1/2, needs d = 0.25^(dt / T), dt = scene_dt. wave turns
 * d into its rate gamma = -ln d / (2 dt) = ln 2 / T. elias applies
 * damping_shift itself, as h' - h' 2^-n (seed 003's form). */
double solver_damping_per_step(const struct scene *sc);

/* The number of grid axes along which the spring solver's blur has
 * neighbours: 2 on a W x H grid, 1 on a W x 1 or 1 x H grid (seed 002's 1-D
 * blur), 0 on a single cell. */
int solver_spring_axes(const struct scene *sc);

/* The factor by which one pass of the spring blur multiplies the Fourier mode
 * with cos kx = cx, cos ky = cy: with b = blend and m = solver_spring_axes,
 * B = (1 + sum over those axes of (2 (1 - b) + 2 b cos k)) / (1 + 2 m). */
double solver_spring_blur(const struct scene *sc, double cx, double cy);

/* The wave solver's Courant condition, shared by its init and by "auto" steps:
 * stable when c dt / dx <= 1/sqrt(2) with dt = 1 / (fps * steps), c the fastest
 * speed (m/s) and dx the cell size (m). */
int solver_wave_stable(double cmax, double fps, int steps, double dx);

/* The smallest steps_per_frame (>= 1) that solver_wave_stable accepts. */
int solver_wave_min_steps(double cmax, double fps, double dx);

/* Whether the solver has a stability limit on its time step (wave): its
 * time.steps_per_frame defaults to "auto" instead of 2. */
bool solver_has_step_limit(enum solver_type type);

/* The angular frequency (rad/s) of linear water waves of wavenumber k (rad/m)
 * for the spectral solver's keys: omega^2 = (g k + (sigma / rho) k^3) tanh(k d),
 * tanh -> 1 without a depth. */
double solver_water_omega(const struct solver_config *c, double k);

/* What time.steps_per_frame "auto" resolves to: for wave the smallest stable
 * count at the fastest speed the scene allows (`speed`, or the larger end of
 * `speed_range` with a speed_map); for spectral the smallest count with
 * omega(pi / cell_size) dt < pi (the grid's shortest waves turn less than half
 * a period per step, so oscillators do not drive them by aliasing); both
 * capped at 1000; 1 for the other solvers, which are stable at any count. */
int solver_auto_steps(const struct scene *sc);

/* The bytes the spectral solver allocates for sc's padded FFT domain (with
 * `threads` threads' line buffers): what budget.c counts. */
uint64_t solver_spectral_bytes(const struct scene *sc, int threads);

#endif

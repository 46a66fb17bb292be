/* sources.h: what the scene adds to the water, planned once and applied step
 * by step: drops (the scene's and the rain's), oscillators, movers; and the
 * initial conditions.
 *
 * Usage: sources_create plans everything (rain drawn once from its seed);
 * sources_set_walls names the wall mask that stamps skip; sources_apply(s,
 * step, f) is called once per step with increasing steps (0, 1, 2, ...) and
 * changes f->cur. Within a step the order is: drops (by step, then in scene
 * order, then rain in drawing order), oscillators, movers.
 *
 * Shapes of radius r around (x, y), d = distance of a cell centre (integer
 * coordinates) from the centre (from the segment, for line oscillators):
 *   point     the nearest cell only (cells within 1/2 of a line), weight 1
 *   disc      1 where d <= r
 *   gaussian  exp(-d^2 / (2 sigma^2)), sigma = r / 2, for d <= 2r
 *   cosine    (1 + cos(pi d / r)) / 2 for d < r
 * A radius below 1/2 stamps at least the nearest cell, weight 1, for every
 * shape. Stamps are clipped to the grid and skip wall cells.
 * Drops, on the current plane: mode add h += amplitude * w; mode set
 * h = h (1 - w) + amplitude * w. (Seed 003's init() sets its previous plane,
 * nwater2 = energy, and its radius 1 is one cell: on still water that is,
 * one step later, a point drop of amplitude -energy * damping; docs/solvers.md.)
 * Oscillators, a hard source while start <= t < end:
 * h = h (1 - w) + amplitude sin(2 pi frequency t + phase) w, t = step * dt.
 * Movers: at every step from the path's first time to its last, h +=
 * amplitude * w at the piecewise-linear position (seed 003's moving body,
 * "a negative impulse should be added to the mesh"). */
#ifndef RR_SOURCES_H
#define RR_SOURCES_H

#include "field.h"
#include "rr_err.h"
#include "scene.h"

struct sources;

/* One planned drop (rain included), as sources_drops lists them. */
struct planned_drop {
    long long step;
    double x, y, radius, amplitude;
    enum shape_kind shape;
    enum drop_mode mode;
};

/* Plans every source of a validated scene. Returns 0 and *out, or -1 with e
 * filled (RR_EXIT_USAGE for a rain too dense to plan, RR_EXIT_RUNTIME for
 * memory); *out is NULL on failure. */
int sources_create(struct sources **out, const struct scene *sc, struct rr_err *e);

/* Borrows the w * h wall mask (1 = wall) so that stamps skip wall cells;
 * NULL (the default) means no walls. Cannot fail. */
void sources_set_walls(struct sources *s, const unsigned char *walls);

/* Applies everything due at `step` to f->cur (drops planned for earlier steps
 * that were not applied yet are applied too). Cannot fail. */
void sources_apply(struct sources *s, long long step, struct field *f);

/* The first step >= `step` at which sources_apply would change the field
 * (a drop, an active oscillator or mover), or LLONG_MAX when nothing is due
 * any more. sim.c uses it to fuse the steps in between (src/tblock.h). */
long long sources_next_due(const struct sources *s, long long step);

/* The planned drops, sorted by step (stable), and their number. */
const struct planned_drop *sources_drops(const struct sources *s, int *n);

/* How many planned drops sources_apply has stamped so far: with the step
 * counter, the sources' whole evolving state (the rain is drawn from its
 * seed once, by sources_create; oscillators and movers follow the step). */
int sources_applied(const struct sources *s);

/* Sets that count, for a simulation restarted from a checkpoint. Returns 0,
 * or -1 when n is more than the plan holds. */
int sources_set_applied(struct sources *s, long n);

/* Frees everything; accepts NULL. */
void sources_free(struct sources *s);

/* The point of a keyframed path at time t: linear between keys, held at the
 * ends (movers' positions, moving obstacles' offsets). n >= 1. */
void sources_path_at(const struct path_point *p, int n, double t, double *x, double *y);

/* Which of the `initial` list sources_initial sets: everything (images in
 * both planes), or, for a solver that takes a change of f->cur as water
 * displaced at rest itself (solver_ops.displaces_at_rest), the waves before
 * its init and the images into f->cur alone after it. */
enum initial_part { INITIAL_ALL, INITIAL_WAVES, INITIAL_IMAGES_CUR };

/* How far from its centre (or its line) a shape of radius r changes the
 * height: 2 r for a gaussian, half a cell for a point and for any radius
 * under half a cell, else r. The loader refuses a source that reaches no cell. */
double sources_reach(enum shape_kind shape, double r);

/* Sets both planes from the scene's `initial` list (contributions add up;
 * none: the planes are left as they are), the entries of kind `part`.
 * image: (v - 0.5) * 2 * scale, the PNG resampled to the grid, both planes
 * equal (f->cur alone with INITIAL_IMAGES_CUR): the water starts at rest.
 * wave: amplitude cos(k . (x, y)) with |k| = 2 pi / wavelength in the
 * direction `angle` (degrees, x right, y down) in cur, and in prev the same
 * wave one step earlier, phase shifted by the solver's own discrete
 * frequency, so the wave travels in direction `angle` from the first step.
 * Returns 0, or -1 with e filled (a PNG that cannot be read: RR_EXIT_USAGE,
 * naming "initial.N.path"). */
int sources_initial(const struct scene *sc, struct field *f, enum initial_part part, struct rr_err *e);

#endif

/* obstacles.h: the scene's obstacles rasterised into the wall mask, still or
 * moving.
 *
 * walls[y * w + x] is 1 where a wall is (height held at 0, seed 000), else 0.
 * Cell centres are at integer coordinates; a shape offset by (dx, dy) (its
 * `motion` at the time) covers:
 *   rect     cells with x + dx <= i < x + dx + width, likewise in y
 *   circle   (i - x - dx)^2 + (j - y - dy)^2 <= radius^2
 *   polygon  cell centre inside the offset points by the even-odd rule
 *   line     cell centre within max(width, 1) / 2 of the offset segment
 *   mask     PNG value v (image.h), resampled bilinearly to the grid when its
 *            size differs: wall where v >= threshold (v < threshold with
 *            invert); moved by whole cells, (round(dx), round(dy))
 * Everything is clipped to the grid.
 *
 * Moving walls (docs/scene.md, "Moving walls"): the walls at step s are the
 * still obstacles (rasterised once) and the moving ones (a `motion`, or a
 * mask sequence whose frame k uses file k, held or looped after the last)
 * at time s * dt, frame s / steps_per_frame: a function of s alone, so a
 * restart at any step has the same walls. walls_update redraws only the
 * boxes that the moving obstacles left and entered and lists the cells that
 * changed, in row-major order. */
#ifndef RR_OBSTACLES_H
#define RR_OBSTACLES_H

#include <stdbool.h>
#include <stddef.h>

#include "rr_err.h"
#include "scene.h"

/* The walls at step 0 into `walls` (w * h bytes, zeroed by the caller).
 * Returns 0, or -1 with e filled when a mask cannot be read (RR_EXIT_USAGE,
 * naming "obstacles.N.path") or memory runs out (RR_EXIT_RUNTIME). */
int obstacles_rasterize(const struct scene *sc, unsigned char *walls, struct rr_err *e);

struct walls;

/* A cell whose wall changed at an update: covered (a wall now) or
 * uncovered (water now), and the push of the jump (a mask sequence's next
 * file; 0 for an obstacle with a motion, which pushes by walls_flux). */
struct wall_change {
    size_t cell;        /* y * w + x */
    bool covered;
    float push;
};

/* Builds the walls of a scene and writes those of step 0 into mask (w * h
 * bytes, zeroed). Checks that a mask sequence's files share one size. Errors
 * as obstacles_rasterize. */
int walls_create(struct walls **out, const struct scene *sc, unsigned char *mask, struct rr_err *e);

/* Whether some obstacle moves (a motion or a mask sequence). */
bool walls_moving(const struct walls *w);

/* The first step >= step whose walls may differ from the step before's;
 * LLONG_MAX when none does. */
long long walls_next_change(const struct walls *w, long long step);

/* Sets mask to the walls of `step` (from the mask of the step before, or
 * from nothing known when `full`: a restart) and lists the cells that
 * changed (walls_changes). Returns 0, or -1 with e filled when a mask of a
 * sequence cannot be read. */
int walls_update(struct walls *w, long long step, unsigned char *mask, bool full, struct rr_err *e);

/* The cells the last walls_update changed, in row-major order. */
const struct wall_change *walls_changes(const struct walls *w, size_t *n);

/* Water a moving obstacle's faces push in one step: `amount` to add to the
 * height of water cell `cell` (displaced at rest). */
struct wall_flux {
    size_t cell;
    float amount;
};

/* The water the last walls_update's moving obstacles push (none after a
 * `full` update): for an obstacle with a motion of velocity v (cells per
 * step, from its offsets at the step and at the step before), each of its
 * wall cells gives push * (v . d) to its 4-neighbour in direction d when that
 * is water; negative where the face moves away (the water drawn in behind).
 * The same cell may be listed more than once. */
const struct wall_flux *walls_flux(const struct walls *w, size_t *n);

/* The water the cells a moving wall covered and left displace, after
 * walls_update changed `mask` by the n changes c (processed in c's order),
 * on the planes of heights cur and prev (row stride `stride`; prev NULL for
 * a solver that takes changes to cur as displaced at rest):
 *   covered: its water, push + its height (per plane), goes in equal shares
 *     to its 4-neighbours that are water before and after the change (the
 *     cell itself is zeroed with the walls after);
 *   uncovered: it starts at rest (the same height in both planes) at the
 *     mean of cur over those neighbours, 0 without any; then they give up
 *     push in equal shares (the water that flows in behind a jump).
 * Water with no such neighbour to go to is lost. */
void walls_displace(const struct wall_change *c, size_t n, unsigned char *mask, int w, int h, float *cur,
                    float *prev, ptrdiff_t stride);

/* Frees everything; accepts NULL. */
void walls_free(struct walls *w);

#endif

/* field.h: the height grids: two float planes (now and one step ago) with a
 * one-cell ghost border, 64-byte aligned interior rows and an explicit stride.
 *
 * Cell (x, y) of a plane g is g[y * stride + x] for -1 <= x <= w, -1 <= y <= h;
 * x = -1, x = w, y = -1 and y = h are the ghost cells that field_fill_ghosts
 * sets from the boundary kinds, so kernels read neighbours without branches. */
#ifndef RR_FIELD_H
#define RR_FIELD_H

#include <stddef.h>

#include "rr_err.h"
#include "scene.h"

struct field {
    int w, h;             /* interior cells */
    ptrdiff_t stride;     /* floats from one row to the next, a multiple of 16 */
    float *cur;           /* height now: interior cell (0, 0), 64-byte aligned */
    float *prev;          /* height one step ago, same layout */
    float *mem[2];        /* the allocations behind cur and prev */
};

/* Allocates two zeroed planes of w x h cells (ghosts included). Refuses sizes
 * whose byte count would overflow. Returns 0, or -1 with e filled (no memory). */
int field_init(struct field *f, int w, int h, struct rr_err *e);

/* Frees the planes and zeroes f; safe on a zeroed or freed field. */
void field_free(struct field *f);

/* Sets the ghost cells of plane g from its interior, per edge:
 * fixed -> 0 (seed 004: the wave inverts at the wall), clamp -> the edge cell
 * itself (seed 000's clamped coordinates: a mirror about the cell face),
 * wrap -> the opposite edge's cell (seed 000: periodic). absorb is filled as
 * clamp here; its absorbing layer belongs to the solver. A corner is what
 * the row it copies holds at that column, so both edges' rules compose and
 * 8-neighbour stencils see consistent corner ghosts.
 * Cannot fail. */
void field_fill_ghosts(const struct field *f, float *g, const enum edge_kind edges[4]);

/* The ghost cell beyond an edge of kind k by the rules above, from the
 * edge's own cell and the opposite edge's (what the renderer's slopes read
 * too, src/render/water.c). */
static inline float field_ghost(enum edge_kind k, float edge, float opposite)
{
    return k == EDGE_FIXED ? 0.0f : k == EDGE_WRAP ? opposite : edge;
}

/* field_fill_ghosts in parts, for the threaded row drivers (src/tblock.c),
 * which set each row's ghosts on the thread that computes with them:
 * field_fill_side_ghosts sets the ghost columns x = -1 and x = w of the rows
 * y0 <= y < y1; field_fill_end_ghosts the whole ghost row y = -1 (bottom = 0)
 * or y = h (bottom = 1), corners included, reading only interior cells (the
 * corners are what the copied row's ghost columns hold once they are set),
 * so it may run before, after or beside field_fill_side_ghosts. */
void field_fill_side_ghosts(const struct field *f, float *g, const enum edge_kind edges[4], int y0, int y1);
void field_fill_end_ghosts(const struct field *f, float *g, const enum edge_kind edges[4], int bottom);

/* Exchanges cur and prev (pointers only). Cannot fail. */
void field_swap(struct field *f);

#endif

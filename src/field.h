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
    /* Where the surface of cur goes on beyond an `absorb` edge, asked on
     * demand (field_beyond) of the solver whose domain reaches past the grid
     * (solver_ops.beyond, with its state beyond_of; sim.c sets both once,
     * after the solver's init, so nothing here follows the solver's steps).
     * NULL for every other solver (whose own ghost at an absorb edge is the
     * edge cell: field_fill_ghosts) and for a view of another plane. */
    const float *(*beyond)(const void *solver, enum edge_side side, ptrdiff_t *stride);
    const void *beyond_of;
};

/* Allocates two zeroed planes of w x h cells (ghosts included). Refuses sizes
 * whose byte count would overflow. Returns 0, or -1 with e filled (no memory). */
int field_init(struct field *f, int w, int h, struct rr_err *e);

/* Frees the planes and zeroes f; safe on a zeroed or freed field. */
void field_free(struct field *f);

/* Where a `fixed` edge holds the height 0, which sets the ghost cell one
 * cell beyond the edge cell (solver_ops.fixed_wall says it per solver):
 * - FIXED_WALL_CELL: in that ghost cell itself, so it holds 0 (the
 *   finite-difference solvers; seed 004: the wave inverts at the wall);
 * - FIXED_WALL_FACE: at the edge cell's face, half a cell beyond its centre
 *   (spectral: the odd mirror about the face, h(-1 - j) = -h(j);
 *   docs/solvers.md, "Where the fixed wall is"), so it holds -h(edge).
 * clamp is the even mirror about the face (h(edge)) either way. */
enum fixed_wall { FIXED_WALL_CELL = 0, FIXED_WALL_FACE };

/* Sets the ghost cells of plane g from its interior, per edge, as
 * field_ghost and field_ghost_row say with FIXED_WALL_CELL (the
 * finite-difference solvers that call it): fixed -> 0, clamp -> the edge
 * cell itself (seed 000's clamped coordinates: a mirror about the cell
 * face), wrap -> the opposite edge's cell (seed 000: periodic). absorb is
 * filled as clamp here; its absorbing layer belongs to the solver. A corner
 * is what the row it copies holds at that column, so both edges' rules
 * compose and 8-neighbour stencils see consistent corner ghosts.
 * Cannot fail. */
void field_fill_ghosts(const struct field *f, float *g, const enum edge_kind edges[4]);

/* The ghost cell beyond an edge of kind k, its fixed wall at `wall`, from
 * the edge's own cell and the opposite edge's: fixed -> 0 (CELL) or -edge
 * (FACE), wrap -> opposite, clamp and absorb -> edge. The one rule for the
 * solvers' ghosts (field_fill_ghosts) and the renderer's slopes
 * (src/render/water.c, through field_ghost_row and field_ghost_side, which
 * take the solver's own cells beyond an absorb edge where it has some). */
static inline float field_ghost(enum edge_kind k, enum fixed_wall wall, float edge, float opposite)
{
    return k == EDGE_FIXED ? (wall == FIXED_WALL_FACE ? -edge : 0.0f) : k == EDGE_WRAP ? opposite : edge;
}

/* The cells next to edge `side` where the solver continues the surface of
 * f->cur beyond an absorb edge (struct field's beyond): the neighbour of
 * row y's end cell at [y * *stride] (left, right), of column x's at [x]
 * (top, bottom); NULL where it does not (*stride then untouched). */
static inline const float *field_beyond(const struct field *f, enum edge_side side, ptrdiff_t *stride)
{
    return f->beyond ? f->beyond(f->beyond_of, side, stride) : NULL;
}

/* The ghost row beyond the top (bottom = 0) or bottom (bottom = 1) edge of
 * plane g, of kind k, by field_ghost's rule cell by cell: the interior row
 * it is made of, times *sign (1 or -1; -1 for a FIXED_WALL_FACE fixed edge),
 * or NULL for a row of zeros (a FIXED_WALL_CELL fixed edge); for f->cur
 * beyond an absorb edge the solver continues (field_beyond), that row. */
static inline const float *field_ghost_row(const struct field *f, const float *g, enum edge_kind k,
                                           enum fixed_wall wall, int bottom, float *sign)
{
    ptrdiff_t unused;
    const float *beyond = k == EDGE_ABSORB && g == f->cur ? field_beyond(f, bottom ? EDGE_BOTTOM : EDGE_TOP, &unused) : NULL;
    *sign = k == EDGE_FIXED && wall == FIXED_WALL_FACE ? -1.0f : 1.0f;
    if (beyond)
        return beyond;
    if (k == EDGE_FIXED && wall == FIXED_WALL_CELL)
        return NULL;
    /* wrap: the opposite edge's row; the others: the edge row itself. */
    return (k == EDGE_WRAP) == (bottom != 0) ? g : g + (ptrdiff_t)(f->h - 1) * f->stride;
}

/* The ghost cell beyond the left (right = 0) or right (right = 1) end of
 * row y of f->cur, its edge of kind k: the solver's cell there beyond an
 * absorb edge it continues (field_beyond), else field_ghost's. */
static inline float field_ghost_side(const struct field *f, int y, enum edge_kind k, enum fixed_wall wall, int right)
{
    ptrdiff_t stride = 0;
    const float *beyond = k == EDGE_ABSORB ? field_beyond(f, right ? EDGE_RIGHT : EDGE_LEFT, &stride) : NULL;
    const float *row = f->cur + (ptrdiff_t)y * f->stride;
    if (beyond)
        return beyond[(ptrdiff_t)y * stride];
    return right ? field_ghost(k, wall, row[f->w - 1], row[0]) : field_ghost(k, wall, row[0], row[f->w - 1]);
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

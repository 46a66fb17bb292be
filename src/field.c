/* field.c: the two height planes with their ghost border (see field.h).
 *
 * Layout of one plane: h + 2 rows of `stride` floats (ghost row y = -1, the h
 * interior rows, ghost row y = h). Within a row, interior cell x = 0 sits at
 * float 16 of the row, so it is 64-byte aligned (stride is a multiple of 16
 * floats and the allocation is 64-byte aligned); the ghost column x = -1 is
 * float 15 and x = w is float 16 + w. Floats 0..14 and those after x = w are
 * padding that nobody reads.
 *
 * Invariant kept by field_swap: mem[0] backs cur and mem[1] backs prev, so a
 * solver that trades a plane with a scratch plane of its own can trade the
 * allocation with it (solvers/spring.c does). */
#include "field.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAD 16                                  /* floats before interior x = 0 */
/* The largest field accepted: both planes together, in bytes (8 GiB). */
#define FIELD_MAX_BYTES ((size_t)8 << 30)
/* The x86-64 and arm64 transparent huge page, in bytes. */
#define HUGE_PAGE ((size_t)2 << 20)

int field_init(struct field *f, int w, int h, struct rr_err *e)
{
    memset(f, 0, sizeof *f);
    if (w < 1 || h < 1)
        return rr_fail(e, RR_EXIT_USAGE, "grid: %d x %d cells: width and height must be at least 1", w, h);
    /* stride = round_up(PAD + w + 1, 16); rows = h + 2; all in size_t with checks. */
    size_t sw = (size_t)w, sh = (size_t)h;
    if (sw > SIZE_MAX / 2 - PAD - 16)
        return rr_fail(e, RR_EXIT_USAGE, "grid: %d x %d cells: too large", w, h);
    size_t stride = (PAD + sw + 1 + 15) / 16 * 16;
    size_t rows = sh + 2;
    size_t limit = FIELD_MAX_BYTES / 2 / sizeof(float);          /* floats per plane */
    if (stride > limit / rows) {
        /* Name the byte count (saturated printing in long double avoids overflow). */
        long double bytes = (long double)stride * (long double)rows * sizeof(float) * 2;
        return rr_fail(e, RR_EXIT_USAGE,
                       "grid: %d x %d cells need %.0Lf bytes for the two height planes, more than the limit of %zu bytes",
                       w, h, bytes, FIELD_MAX_BYTES);
    }
    size_t bytes = stride * rows * sizeof(float);              /* a multiple of 64 */
    /* A plane of HUGE_PAGE or more sits on huge-page boundaries, rounded up
     * to whole huge pages, and asks the kernel for transparent huge pages
     * (MADV_HUGEPAGE; a hint, ignored where THP is off): zeroing it then
     * faults once per 2 MiB instead of once per 4 KiB page, and the sweeps
     * miss the TLB far less. Where the values sit never changes them. */
    const size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
    const size_t alloc = (bytes + align - 1) / align * align;
    for (int k = 0; k < 2; k++) {
        f->mem[k] = aligned_alloc(align, alloc);
        if (!f->mem[k]) {
            field_free(f);
            return rr_fail(e, RR_EXIT_RUNTIME, "grid: %d x %d cells: out of memory (%zu bytes per plane)", w, h,
                           bytes);
        }
#ifdef MADV_HUGEPAGE
        if (align == HUGE_PAGE)
            madvise(f->mem[k], alloc, MADV_HUGEPAGE);
#endif
        memset(f->mem[k], 0, bytes);
    }
    f->w = w;
    f->h = h;
    f->stride = (ptrdiff_t)stride;
    f->cur = f->mem[0] + stride + PAD;
    f->prev = f->mem[1] + stride + PAD;
    return 0;
}

void field_free(struct field *f)
{
    if (!f)
        return;
    free(f->mem[0]);
    free(f->mem[1]);
    memset(f, 0, sizeof *f);
}

void field_swap(struct field *f)
{
    float *t = f->cur;
    f->cur = f->prev;
    f->prev = t;
    t = f->mem[0];
    f->mem[0] = f->mem[1];
    f->mem[1] = t;
}

/* The ghost cells beyond the ends of `row`, by the left and right rules. */
static inline void side_ghosts(float *dst, const float *row, int w, enum edge_kind L, enum edge_kind R)
{
    dst[-1] = field_ghost(L, FIXED_WALL_CELL, row[0], row[w - 1]);
    dst[w] = field_ghost(R, FIXED_WALL_CELL, row[w - 1], row[0]);
}

void field_fill_side_ghosts(const struct field *f, float *g, const enum edge_kind edges[4], int y0, int y1)
{
    for (int y = y0; y < y1; y++) {
        float *row = g + y * f->stride;
        side_ghosts(row, row, f->w, edges[EDGE_LEFT], edges[EDGE_RIGHT]);
    }
}

void field_fill_end_ghosts(const struct field *f, float *g, const enum edge_kind edges[4], int bottom)
{
    const int w = f->w, h = f->h;
    const ptrdiff_t s = f->stride;
    float *dst = bottom ? g + h * s : g - s;
    float sign;
    const float *src = field_ghost_row(f, g, edges[bottom ? EDGE_BOTTOM : EDGE_TOP], FIXED_WALL_CELL, bottom, &sign);
    if (!src) {
        memset(dst - 1, 0, ((size_t)w + 2) * sizeof *dst);
        return;
    }
    /* wrap: the opposite edge's row; clamp (and absorb): the edge row itself
     * (sign 1: FIXED_WALL_CELL's rows are copies). The corners follow the
     * side rules applied to that row, which is what its own ghost columns
     * hold once they are set, without reading them. */
    memcpy(dst, src, (size_t)w * sizeof *dst);
    side_ghosts(dst, src, w, edges[EDGE_LEFT], edges[EDGE_RIGHT]);
}

void field_fill_ghosts(const struct field *f, float *g, const enum edge_kind edges[4])
{
    field_fill_side_ghosts(f, g, edges, 0, f->h);
    field_fill_end_ghosts(f, g, edges, 0);
    field_fill_end_ghosts(f, g, edges, 1);
}

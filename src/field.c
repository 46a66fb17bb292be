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

#define PAD 16                                  /* floats before interior x = 0 */
/* The largest field accepted: both planes together, in bytes (8 GiB). */
#define FIELD_MAX_BYTES ((size_t)8 << 30)

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
    for (int k = 0; k < 2; k++) {
        f->mem[k] = aligned_alloc(64, bytes);
        if (!f->mem[k]) {
            field_free(f);
            return rr_fail(e, RR_EXIT_RUNTIME, "grid: %d x %d cells: out of memory (%zu bytes per plane)", w, h,
                           bytes);
        }
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

void field_fill_ghosts(const struct field *f, float *g, const enum edge_kind edges[4])
{
    const int w = f->w, h = f->h;
    const ptrdiff_t s = f->stride;
    const enum edge_kind L = edges[EDGE_LEFT], R = edges[EDGE_RIGHT];
    const enum edge_kind T = edges[EDGE_TOP], B = edges[EDGE_BOTTOM];

    /* Sides first: the ghost columns of the interior rows. */
    for (int y = 0; y < h; y++) {
        float *row = g + y * s;
        row[-1] = L == EDGE_FIXED ? 0.0f : L == EDGE_WRAP ? row[w - 1] : row[0];
        row[w] = R == EDGE_FIXED ? 0.0f : R == EDGE_WRAP ? row[0] : row[w - 1];
    }
    /* Then whole ghost rows, corners included, copied from rows whose ghost
     * columns are already set: a corner is what the row it copies holds at
     * that column, so both edges' rules compose. */
    float *top = g - s - 1, *bot = g + h * s - 1;
    size_t n = (size_t)w + 2;
    if (T == EDGE_FIXED)
        memset(top, 0, n * sizeof *top);
    else
        memcpy(top, T == EDGE_WRAP ? g + (h - 1) * s - 1 : g - 1, n * sizeof *top);
    if (B == EDGE_FIXED)
        memset(bot, 0, n * sizeof *bot);
    else
        memcpy(bot, B == EDGE_WRAP ? g - 1 : g + (h - 1) * s - 1, n * sizeof *bot);
}

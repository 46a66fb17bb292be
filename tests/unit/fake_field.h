/* fake_field.h: a height field of w x h cells filled by hand, for the render
 * tests (field.c is not needed: renderers read f->cur, f->stride, f->w and
 * f->h only). Ghosts and padding hold 999, which a renderer must never show:
 * it fills its own edges from the boundary kinds. Include after cmocka.h. */
#ifndef RR_TEST_FAKE_FIELD_H
#define RR_TEST_FAKE_FIELD_H

#include <stdlib.h>
#include <string.h>

#include "field.h"

struct fake {
    struct field f;
    float *mem;
};

static void fake_init(struct fake *fk, int w, int h, const float *cells)
{
    memset(fk, 0, sizeof *fk);
    ptrdiff_t stride = ((w + 2 + 15) / 16) * 16;
    size_t n = (size_t)stride * (h + 2) + 16;
    fk->mem = aligned_alloc(64, ((n * sizeof(float)) + 63) / 64 * 64);
    assert_non_null(fk->mem);
    for (size_t i = 0; i < n; i++)
        fk->mem[i] = 999.0f;
    fk->f.w = w;
    fk->f.h = h;
    fk->f.stride = stride;
    fk->f.cur = fk->mem + stride + 1;
    fk->f.prev = fk->f.cur;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            fk->f.cur[y * stride + x] = cells[y * w + x];
}

#endif

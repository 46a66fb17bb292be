/* render/normals.c: render.mode "normals": the surface's tangent-space
 * normal map, for a game engine or a 3D package. See render/modes.h and
 * docs/render.md. */
#include "render/modes.h"

#include <math.h>

/* OpenGL convention (+x right, +y up in the texture, as Blender, Unity and
 * Godot read it): with y down in the grid the up-slope is -gy, so the normal
 * is (-gx, +gy, 1) / |.|, stored as (n + 1) / 2 * 255. Still water is
 * (0, 0, 1): 127.5 rounds to even, giving 128, 128, 255. */
void normals_row(float hs, const struct row_nbhd *rn, int w, uint8_t *rgb, uint16_t *rgb16)
{
    const float k = 0.5f * hs;
    float gx[SHADE_CHUNK], gy[SHADE_CHUNK];
    for (int x0 = 0; x0 < w; x0 += SHADE_CHUNK) {
        const int n = w - x0 < SHADE_CHUNK ? w - x0 : SHADE_CHUNK;
        chunk_slopes(rn, x0, n, w, k, gx, gy);
        uint8_t *restrict out = rgb + 3 * (size_t)x0;
        for (int x = 0; x < n; x++) {
            float inv = 1.0f / sqrtf(gx[x] * gx[x] + gy[x] * gy[x] + 1.0f);
            out[3 * x] = (uint8_t)lrintf((0.5f - 0.5f * gx[x] * inv) * 255.0f);
            out[3 * x + 1] = (uint8_t)lrintf((0.5f + 0.5f * gy[x] * inv) * 255.0f);
            out[3 * x + 2] = (uint8_t)lrintf((0.5f + 0.5f * inv) * 255.0f);
        }
        for (int x = 0; rgb16 && x < n; x++) {
            float inv = 1.0f / sqrtf(gx[x] * gx[x] + gy[x] * gy[x] + 1.0f);
            uint16_t *o16 = rgb16 + 3 * ((size_t)x0 + x);
            o16[0] = unit_u16(0.5f - 0.5f * gx[x] * inv);
            o16[1] = unit_u16(0.5f + 0.5f * gy[x] * inv);
            o16[2] = unit_u16(0.5f + 0.5f * inv);
        }
    }
}

void normals_row_float(float hs, const struct row_nbhd *rn, int w, bool flip_y, float *out, int stride)
{
    const float k = 0.5f * hs;
    float gx[SHADE_CHUNK], gy[SHADE_CHUNK];
    for (int x0 = 0; x0 < w; x0 += SHADE_CHUNK) {
        const int n = w - x0 < SHADE_CHUNK ? w - x0 : SHADE_CHUNK;
        chunk_slopes(rn, x0, n, w, k, gx, gy);
        for (int x = 0; x < n; x++) {
            float inv = 1.0f / sqrtf(gx[x] * gx[x] + gy[x] * gy[x] + 1.0f), ny = gy[x] * inv;
            float *o = out + ((size_t)x0 + x) * stride;
            o[0] = -gx[x] * inv;
            o[1] = flip_y ? -ny : ny;
            o[2] = inv;
        }
    }
}

/* The water modes' row state, and render.normal_convention. */
static int normals_init(struct renderer *r, const struct scene *sc, struct rr_err *e)
{
    r->flip_green = sc->render.normal_convention == NORMALS_DIRECTX;
    return water_init_rows(r, sc, e);
}

/* directx: the opengl map with its green channel inverted, 255 - g (65535 -
 * g), what an editor's "flip green" does, so either map converts to the
 * other exactly (docs/render.md). */
static void normals_mode_row(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                             uint8_t *restrict rgb, uint16_t *restrict g16, uint16_t *restrict rgb16)
{
    (void)h;
    (void)g16;
    struct row_nbhd rn;
    water_nbhd(r, f, y, &rn);
    normals_row(r->look.hs, &rn, r->gw, rgb, rgb16);
    if (!r->flip_green)
        return;
    for (int x = 0; x < r->gw; x++)
        rgb[3 * x + 1] = (uint8_t)(255 - rgb[3 * x + 1]);
    for (int x = 0; rgb16 && x < r->gw; x++)
        rgb16[3 * x + 1] = (uint16_t)(65535 - rgb16[3 * x + 1]);
}

/* The float picture: the unit normals themselves, ny negated for directx. */
static void normals_mode_row_float(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                                   float *restrict out, int stride)
{
    (void)h;
    struct row_nbhd rn;
    water_nbhd(r, f, y, &rn);
    normals_row_float(r->look.hs, &rn, r->gw, r->flip_green, out, stride);
}

const struct render_mode_ops render_normals_ops = {
    .name = "normals",
    .keys = (const char *const[]){ "height_scale", "normal_convention", NULL },
    .init = normals_init,
    .row = normals_mode_row,
    .row_float = normals_mode_row_float,
    .float_names = (const char *const[]){ "R", "G", "B", NULL },
    .free = water_free,
};

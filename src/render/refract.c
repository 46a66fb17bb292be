/* render/refract.c: render.mode "refract": the aim of seed 004 ("ripple
 * effect motion of water on any background", whose code only draws the
 * height as grey): a background picture seen through the surface, displaced
 * by its slope, plus the glints of a tilted surface. See render/modes.h. */
#include "render/modes.h"

#include <math.h>

/* The offset is -refraction * slope cells, so `refraction` is the shift in
 * cells per unit of slope (a light refraction approximation: shift =
 * depth * (1 - 1/n) * slope for small slopes). A pixel at an exact
 * grid position with zero slope samples its own background pixel with
 * weights 0, so still water returns the background byte for byte. */
void refract_row(const struct water_look *lk, const float *gx, const float *gy, int gw, int gh,
                 const uint8_t *bg, int rw, int rh, int y, uint8_t *rgb, uint16_t *rgb16)
{
    const float ax = (float)gw / (float)rw, ay = (float)gh / (float)rh;
    const float gyc = ((float)y + 0.5f) * ay - 0.5f;   /* half-pixel centres */
    for (int x = 0; x < rw; x++) {
        float gxc = ((float)x + 0.5f) * ax - 0.5f;
        float sx = grid_at(gx, gw, gh, gxc, gyc), sy = grid_at(gy, gw, gh, gxc, gyc);
        float bx = (float)x - lk->refraction * sx / ax, by = (float)y - lk->refraction * sy / ay;
        bx = fminf(fmaxf(bx, 0.0f), (float)(rw - 1));
        by = fminf(fmaxf(by, 0.0f), (float)(rh - 1));
        int x0 = (int)bx, y0 = (int)by;
        int x1 = x0 + 1 < rw ? x0 + 1 : x0, y1 = y0 + 1 < rh ? y0 + 1 : y0;
        float fx = bx - (float)x0, fy = by - (float)y0;
        const uint8_t *p00 = bg + ((size_t)y0 * rw + x0) * 3, *p01 = bg + ((size_t)y0 * rw + x1) * 3;
        const uint8_t *p10 = bg + ((size_t)y1 * rw + x0) * 3, *p11 = bg + ((size_t)y1 * rw + x1) * 3;
        /* Highlights: the Blinn-Phong glint beyond still water's, so that a
         * flat surface adds nothing. */
        float inv = 1.0f / sqrtf(sx * sx + sy * sy + 1.0f);
        float ndh = fmaxf(0.0f, (-sx * lk->half[0] - sy * lk->half[1] + lk->half[2]) * inv);
        float glint = lk->specular * fmaxf(0.0f, powf(ndh, lk->shininess) - lk->flat_spec) * 255.0f;
        for (int k = 0; k < 3; k++) {
            float top = (float)p00[k] + (float)(p01[k] - p00[k]) * fx;
            float bot = (float)p10[k] + (float)(p11[k] - p10[k]) * fx;
            float v = top + (bot - top) * fy + glint;
            rgb[3 * x + k] = (uint8_t)lrintf(fminf(v, 255.0f));
            if (rgb16)
                rgb16[3 * x + k] = unit_u16(v / 255.0f);
        }
    }
}

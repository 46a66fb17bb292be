/* render/modes.h: the kernels of the water render modes (shaded, normals,
 * refract, caustics), shared by render.c and the files of src/render/; private to the
 * renderer and its unit tests. docs/render.md explains each mode.
 *
 * Every mode starts from the surface slopes: render.c copies the heights into
 * a field with a ghost border, fills the ghosts from the scene's boundary
 * kinds (field_fill_ghosts: wrap -> the opposite edge, so wrapped frames
 * tile), and water_slopes takes central differences through them. */
#ifndef RR_RENDER_MODES_H
#define RR_RENDER_MODES_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field.h"
#include "image.h"
#include "scene.h"

/* lrintf(fminf(fmaxf(v, 0), 1) * scale), NaN giving 0, for 0 < scale <=
 * 65535: the same integer, but inline and vectorisable (libm's fminf, fmaxf
 * and lrintf were calls per pixel). Adding 2^23 rounds a float in [0, 2^23)
 * to an integer in the FPU's mode, which is lrintf's rounding (nearest, ties
 * to even, by default), and taking 2^23 away again is exact. */
static inline __attribute__((always_inline)) int unit_round(float v, float scale)
{
    v = v >= 0.0f ? v : 0.0f;
    v = v < 1.0f ? v : 1.0f;
    return (int)((v * scale + 0x1p23f) - 0x1p23f);
}

/* A colour channel v in [0, 1] (clamped, NaN giving 0) to 16 bits: the one
 * rounding of every mode's 16-bit output (RENDER_NEED_RGB16), as the 8-bit
 * output's is unit_round(v, 255). 0 -> 0, 1 -> 65535, 0.5 -> 32768 (ties
 * to even). */
static inline __attribute__((always_inline)) uint16_t unit_u16(float v)
{
    return (uint16_t)unit_round(v, 65535.0f);
}

/* The lighting settings, in floats, unit vectors and 0..1 colours. */
struct water_look {
    float hs;                    /* height_scale */
    float light[3];              /* unit vector toward the light */
    float half[3];               /* unit Blinn-Phong half vector of light and view (0, 0, 1) */
    float water[3], sky[3], floor[3];
    float specular, shininess;
    float f0;                    /* Schlick's reflectance at normal incidence */
    float flat_spec;             /* the highlight of still water, pow(half.z, shininess) */
    float refraction, depth;
};

/* Bilinear read of a w x h grid of floats at (x, y) in cell coordinates,
 * clamped to the grid. Cannot fail. */
static inline float grid_at(const float *g, int w, int h, float x, float y)
{
    x = x < 0.0f ? 0.0f : x > (float)(w - 1) ? (float)(w - 1) : x;
    y = y < 0.0f ? 0.0f : y > (float)(h - 1) ? (float)(h - 1) : y;
    int x0 = (int)x, y0 = (int)y;
    int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    float fx = x - (float)x0, fy = y - (float)y0;
    const float *r0 = g + (size_t)y0 * w, *r1 = g + (size_t)y1 * w;
    float top = r0[x0] + (r0[x1] - r0[x0]) * fx, bot = r1[x0] + (r1[x1] - r1[x0]) * fx;
    return top + (bot - top) * fy;
}

/* Fills lk from the scene's render section. Cannot fail. */
void water_look_init(struct water_look *lk, const struct render_config *rc);

/* Slopes of the surface at every cell: gx = hs * (h[x+1] - h[x-1]) / 2,
 * gy = hs * (h[y+1] - h[y-1]) / 2 (second-order central differences), read
 * through f's ghost cells, which must be filled. gx, gy: f->w * f->h floats,
 * packed rows. Row-parallel (schedule(static)); cannot fail. */
void water_slopes(const struct field *f, float hs, float *restrict gx, float *restrict gy);

/* A row's heights and what its slopes read around them: up, mid and dn are
 * rows y-1, y and y+1 (the ghost rows at the top and bottom edges), read at
 * [0, w) (mid also at -1 and w, whatever those hold); left and right are
 * the ghost cells beyond mid's ends. What field_fill_ghosts would put there
 * (render.c fills one from the scene's boundary kinds). */
struct row_nbhd {
    const float *up, *mid, *dn;
    float left, right;
};

/* One row of the lit surface (shaded) and of the tangent-space normal map
 * (normals, hs = height_scale), the slopes taken as water_slopes takes them.
 * rgb16: NULL, or w * 3 values for the same colours at 16 bits (every kernel
 * below takes one too). Cannot fail. */
void shade_row(const struct water_look *lk, const struct row_nbhd *rn, int w, uint8_t *rgb, uint16_t *rgb16);
void normals_row(float hs, const struct row_nbhd *rn, int w, uint8_t *rgb, uint16_t *rgb16);

/* The same row's unit normals as floats, (-gx, gy, 1) / |.| (normals_row's
 * values before they are mapped to colours), the y component negated when
 * flip_y (render.normal_convention directx): nx, ny, nz of pixel x at
 * out[x * stride ...]. Cannot fail. */
void normals_row_float(float hs, const struct row_nbhd *rn, int w, bool flip_y, float *out, int stride);

/* out[i] = powf(x[i], y) for n values, bit for bit, vectorised on CPUs with
 * AVX2 and FMA (shaded.c says how). Cannot fail. */
void water_powf(const float *x, float y, int n, float *out);

/* Caustics: the light of every cell (1 per cell, as 2 x 2 sub-rays with
 * interpolated slopes) refracted by the surface (Snell, water index 1.333,
 * light from straight above) and splatted bilinearly onto the floor `depth`
 * cells below. Landing points wrap on an axis whose edges are wrapped and are
 * clamped to the grid otherwise, so the floor's sum equals w * h up to float
 * rounding. at: scratch of CAUSTICS_SCRATCH(w, h) floats; light: w * h
 * floats, overwritten. The landing points are computed row-parallel, the
 * splat runs on one thread in one fixed order, so the sums do not depend on
 * the thread count. Cannot fail. */
#define CAUSTICS_SCRATCH(w, h) ((size_t)(w) * (size_t)(h) * 8)
void caustics_gather(const float *gx, const float *gy, int w, int h, float depth, bool wrap_x, bool wrap_y,
                     float *restrict at, float *restrict light);

/* One row of the floor: the floor's colour (floor_rgb, w * 3 bytes, or the
 * look's floor colour when NULL) times the light, brighter parts bleaching
 * toward white. Light 1 gives the floor colour itself. Cannot fail. */
void caustics_row(const struct water_look *lk, const float *light, const uint8_t *floor_rgb, int w,
                  uint8_t *rgb, uint16_t *rgb16);

/* Refract, at render size rw x rh over a gw x gh grid: pixel p shows the
 * background at p - refraction * slope (in cells, times rw/gw and rh/gh),
 * slopes interpolated bilinearly from the grid, the background sampled
 * bilinearly and clamped at its edges; plus highlights beyond still water's.
 * bg is rw x rh rgb24. One output row y. Cannot fail. */
void refract_row(const struct water_look *lk, const float *gx, const float *gy, int gw, int gh,
                 const uint8_t *bg, int rw, int rh, int y, uint8_t *rgb, uint16_t *rgb16);

#endif

/* render/caustics.c: render.mode "caustics": the light the surface focuses on
 * a floor below it, gathered so that no light is made or lost. See
 * render/modes.h and docs/render.md. */
#include "render/modes.h"
#include "render/backdrop.h"
#include "team.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/mem.h>

#define SUB 2                    /* sub-rays per cell and axis */
#define ETA (1.0f / 1.333f)      /* air -> water, Snell's n1 / n2 */

/* A landing coordinate on one axis of n cells: wrapped (periodic) or clamped.
 * *i0, *i1 the two cells, *f the weight of *i1. |p| stays far below INT_MAX:
 * a refracted ray leaves at most at water's critical angle, so p < n + 1.2 *
 * depth. */
static inline void land(float p, int n, bool wrap, int *i0, int *i1, float *f)
{
    if (wrap) {
        float fl = floorf(p);
        int a = (int)fl % n;
        *f = p - fl;
        *i0 = a < 0 ? a + n : a;
        *i1 = *i0 + 1 == n ? 0 : *i0 + 1;
        return;
    }
    p = p < 0.0f ? 0.0f : p > (float)(n - 1) ? (float)(n - 1) : p;
    int a = (int)p;
    *i0 = a;
    *i1 = a + 1 < n ? a + 1 : a;
    *f = p - (float)a;
}

/* The first pass's job: the landing points of the sub-rays of rows, and
 * each row's lowest and highest landing y (bounds[2y], bounds[2y + 1]). */
struct landing_job {
    const float *gx, *gy;
    int w, h;
    float depth;
    const float *depths;   /* per cell (render.depth_map), or NULL: `depth` everywhere */
    float *at, *bounds;
};

/* One sub-ray entering at (px, py) where the slopes are (ax, ay): its landing
 * point into out[0], out[1] (the refraction below caustics_gather). */
static inline __attribute__((always_inline)) void land_ray(float px, float py, float ax, float ay, float depth, float *out)
{
    float inv = 1.0f / sqrtf(ax * ax + ay * ay + 1.0f);
    float n0 = -ax * inv, n1 = -ay * inv, n2 = inv;
    float k = 1.0f - ETA * ETA * (1.0f - n2 * n2);
    float m = ETA * n2 - sqrtf(k);
    float t0 = m * n0, t1 = m * n1, t2 = -ETA + m * n2;
    float reach = depth / -t2;
    out[0] = px + t0 * reach;
    out[1] = py + t1 * reach;
}

/* The sub-rays of column x of sub-row (py, sy) of row y through grid_at. */
static inline void land_column(const struct landing_job *j, int y, int sy, float py, int x)
{
    float *out = j->at + (((size_t)y * j->w + x) * SUB + sy) * SUB * 2;
    for (int sx = 0; sx < SUB; sx++) {
        float px = (float)x + ((float)sx + 0.5f) / SUB - 0.5f;
        float d = j->depths ? grid_at(j->depths, j->w, j->h, px, py) : j->depth;
        land_ray(px, py, grid_at(j->gx, j->w, j->h, px, py), grid_at(j->gy, j->w, j->h, px, py), d, out + 2 * sx);
    }
}

/* Rows lo..hi-1. A sub-ray of column x sits a quarter cell left (sx 0) or
 * right (sx 1) of the cell's centre, so inside the grid's first and last
 * columns grid_at reads cells x-1, x at fx 0.75 and x, x+1 at fx 0.25, with
 * px = x - 0.25 and x + 0.25 exactly: the loop below makes grid_at's very
 * operations without its clamps, so that it vectorises, and the first and
 * last columns go through grid_at itself. The same values bit for bit. */
static inline __attribute__((always_inline)) void landing_body(const struct landing_job *j, int lo, int hi)
{
    const int w = j->w, h = j->h;
    const float depth = j->depth;
    for (int y = lo; y < hi; y++) {
        for (int sy = 0; sy < SUB; sy++) {
            float py = (float)y + ((float)sy + 0.5f) / SUB - 0.5f;
            float cy = py < 0.0f ? 0.0f : py > (float)(h - 1) ? (float)(h - 1) : py;
            int y0 = (int)cy, y1 = y0 + 1 < h ? y0 + 1 : y0;
            float fy = cy - (float)y0;
            const float *restrict x0r = j->gx + (size_t)y0 * w, *restrict x1r = j->gx + (size_t)y1 * w;
            const float *restrict y0r = j->gy + (size_t)y0 * w, *restrict y1r = j->gy + (size_t)y1 * w;
            float *restrict out = j->at + ((size_t)y * w * SUB + sy) * SUB * 2;
            land_column(j, y, sy, py, 0);
            if (j->depths) {   /* a depth per cell: every column through grid_at */
                for (int x = 1; x < w; x++)
                    land_column(j, y, sy, py, x);
                continue;
            }
            for (int x = 1; x < w - 1; x++) {
                float *o = out + (size_t)x * SUB * SUB * 2;
                float pl = (float)x + 0.25f - 0.5f, pr = (float)x + 0.75f - 0.5f;
                float tl = x0r[x - 1] + (x0r[x] - x0r[x - 1]) * 0.75f, bl = x1r[x - 1] + (x1r[x] - x1r[x - 1]) * 0.75f;
                float ul = y0r[x - 1] + (y0r[x] - y0r[x - 1]) * 0.75f, vl = y1r[x - 1] + (y1r[x] - y1r[x - 1]) * 0.75f;
                float tr = x0r[x] + (x0r[x + 1] - x0r[x]) * 0.25f, br = x1r[x] + (x1r[x + 1] - x1r[x]) * 0.25f;
                float ur = y0r[x] + (y0r[x + 1] - y0r[x]) * 0.25f, vr = y1r[x] + (y1r[x + 1] - y1r[x]) * 0.25f;
                land_ray(pl, py, tl + (bl - tl) * fy, ul + (vl - ul) * fy, depth, o);
                land_ray(pr, py, tr + (br - tr) * fy, ur + (vr - ur) * fy, depth, o + 2);
            }
            if (w > 1)
                land_column(j, y, sy, py, w - 1);
        }
        const float *a = j->at + (size_t)y * w * (2 * SUB * SUB);
        float mn = a[1], mx = a[1];
        for (size_t r = 1; r < (size_t)w * SUB * SUB; r++) {
            mn = a[2 * r + 1] < mn ? a[2 * r + 1] : mn;
            mx = a[2 * r + 1] > mx ? a[2 * r + 1] : mx;
        }
        j->bounds[2 * y] = mn;
        j->bounds[2 * y + 1] = mx;
    }
}

__attribute__((target("arch=x86-64-v3,tune=haswell"))) static void landing_rows_v3(const struct landing_job *j,
                                                                                  int lo, int hi)
{
    landing_body(j, lo, hi);
}

static void landing_rows(void *arg, int lo, int hi)
{
    if (__builtin_cpu_supports("avx2"))
        landing_rows_v3(arg, lo, hi);
    else
        landing_body(arg, lo, hi);
}

/* The splat's job: each thread gathers the light of a band of floor rows. */
struct splat_job {
    const float *at, *bounds;
    int w, h;
    bool wrap_x, wrap_y;
    float *light;
};

/* Whether any sub-ray of source row y can land on floor rows lo..hi-1, from
 * the row's lowest and highest landing y (land: clamped, or wrapped, where a
 * row whose rays cross an edge may reach any row). */
static bool row_reaches(const struct splat_job *j, int y, int lo, int hi)
{
    float mn = j->bounds[2 * y], mx = j->bounds[2 * y + 1], top = (float)(j->h - 1);
    int a, b;
    if (j->wrap_y) {
        if (!(mn >= 0.0f && mx < top))
            return true;
        a = (int)mn;
        b = (int)mx + 1;
    } else {
        mn = mn < 0.0f ? 0.0f : mn > top ? top : mn;
        mx = mx < 0.0f ? 0.0f : mx > top ? top : mx;
        a = (int)mn;
        b = (int)mx + 1;
    }
    return b >= lo && a < hi;
}

/* Floor rows lo..hi-1: zeroed, then every sub-ray in the serial order (source
 * row, column, sub-row, sub-column) adds its bilinear shares that fall in
 * these rows, in the order r0[x0], r0[x1], r1[x0], r1[x1]. Each cell thus
 * receives the same additions in the same order as one thread splatting
 * everything would make: the same sums bit for bit, whatever the bands. */
static void splat_rows(void *arg, int lo, int hi)
{
    const struct splat_job *j = arg;
    const int w = j->w, h = j->h;
    const float share = 1.0f / (SUB * SUB);
    memset(j->light + (size_t)lo * w, 0, (size_t)(hi - lo) * w * sizeof *j->light);
    for (int y = 0; y < h; y++) {
        if (!row_reaches(j, y, lo, hi))
            continue;
        const float *a = j->at + (size_t)y * w * (2 * SUB * SUB);
        for (size_t r = 0; r < (size_t)w * SUB * SUB; r++) {
            int x0, x1, y0, y1;
            float fx, fy;
            land(a[2 * r + 1], h, j->wrap_y, &y0, &y1, &fy);
            bool in0 = y0 >= lo && y0 < hi, in1 = y1 >= lo && y1 < hi;
            if (!in0 && !in1)
                continue;
            land(a[2 * r], w, j->wrap_x, &x0, &x1, &fx);
            float *r0 = j->light + (size_t)y0 * w, *r1 = j->light + (size_t)y1 * w;
            if (in0) {
                r0[x0] += share * (1.0f - fx) * (1.0f - fy);
                r0[x1] += share * fx * (1.0f - fy);
            }
            if (in1) {
                r1[x0] += share * (1.0f - fx) * fy;
                r1[x1] += share * fx * fy;
            }
        }
    }
}

/* A ray straight down, i = (0, 0, -1), refracts at the unit normal
 * n = (-gx, -gy, 1)/|.| into t = eta i + (eta cos_i - sqrt(k)) n with
 * cos_i = n.z and k = 1 - eta^2 (1 - cos_i^2) (Snell's law in vector form;
 * k > 0 always from air into water). It meets the floor `depth` below at
 * (t.x, t.y) * depth / -t.z from where it entered. The water's own height is
 * small against depth and left out.
 *
 * Two passes: the landing points of every sub-ray, row-parallel into `at`
 * (each row's slots its own, so the values do not depend on the threads),
 * then the splat, parallel over bands of floor rows, each band adding its
 * cells' shares in the one serial order (splat_rows). */
static void gather(const float *gx, const float *gy, int w, int h, float depth, const float *depths, bool wrap_x,
                   bool wrap_y, float *restrict at, float *restrict light)
{
    float *bounds = at + (size_t)w * h * (2 * SUB * SUB);
    struct landing_job j = { .gx = gx, .gy = gy, .w = w, .h = h, .depth = depth, .depths = depths, .at = at,
                             .bounds = bounds };
    int nt = team_threads_for((long)w * h, 16384);
    team_for(h, nt, landing_rows, &j);
    struct splat_job s = { .at = at, .bounds = bounds, .w = w, .h = h, .wrap_x = wrap_x, .wrap_y = wrap_y,
                           .light = light };
    team_for(h, nt, splat_rows, &s);
}

void caustics_gather(const float *gx, const float *gy, int w, int h, float depth, bool wrap_x, bool wrap_y,
                     float *restrict at, float *restrict light)
{
    gather(gx, gy, w, h, depth, NULL, wrap_x, wrap_y, at, light);
}

/* With a depth map the floor's depth is read under the entry point: the rays
 * leave the surface near-vertically (at most water's critical angle, 48.6
 * degrees, and far less for ripples), so the floor's change of depth between
 * where a ray enters and where it lands is left out, as the water's own
 * height is. */
void caustics_gather_depths(const float *gx, const float *gy, int w, int h, const float *depths, bool wrap_x,
                            bool wrap_y, float *restrict at, float *restrict light)
{
    gather(gx, gy, w, h, 0.0f, depths, wrap_x, wrap_y, at, light);
}

/* colour = floor * light, and what goes past full brightness bleaches the
 * other channels toward white (a bright caustic line looks white-hot). */
void caustics_row(const struct water_look *lk, const float *light, const uint8_t *floor_rgb, int w, uint8_t *rgb,
                  uint16_t *rgb16)
{
    for (int x = 0; x < w; x++) {
        float l = light[x], c[3], over = 0.0f;
        for (int k = 0; k < 3; k++) {
            float base = floor_rgb ? (float)floor_rgb[3 * x + k] / 255.0f : lk->floor[k];
            c[k] = base * l;
            over = c[k] - 1.0f > over ? c[k] - 1.0f : over;   /* fmaxf: no NaN here */
        }
        for (int k = 0; k < 3; k++) {
            float v = c[k] + 0.5f * over;   /* fminf(fmaxf(v, 0), 1): no NaN here */
            v = v > 0.0f ? v : 0.0f;
            v = v < 1.0f ? v : 1.0f;
            rgb[3 * x + k] = (uint8_t)lrintf(v * 255.0f);
            if (rgb16)
                rgb16[3 * x + k] = unit_u16(v);
        }
    }
}

/* The slopes, the floor's light and its scratch, the floor picture at grid
 * size (render.floor fitted, render/backdrop.h) or none. */
static int caustics_init(struct renderer *r, const struct scene *sc, struct rr_err *e)
{
    if (water_init_slopes(r, sc, e) < 0)
        return -1;
    r->light = av_malloc((size_t)r->gw * r->gh * sizeof(float));
    r->rays = av_malloc(CAUSTICS_SCRATCH(r->gw, r->gh) * sizeof(float));
    if (!r->light || !r->rays)
        return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d", r->gw, r->gh);
    if (sc->render.depth_map && image_load_depth(sc->render.depth_map, sc->render.depth_range, r->gw, r->gh,
                                                 "render.depth_map", "cells", &r->floor_depth, e) < 0)
        return -1;
    if (sc->render.floor)
        return water_backdrop_open(r, sc, sc->render.floor, "render.floor", r->gw, r->gh, e);
    return 0;
}

static void caustics_prepare(struct renderer *r, const struct field *f)
{
    water_prepare(r, f);
    gather(r->gx, r->gy, r->gw, r->gh, r->look.depth, r->floor_depth, r->edges[EDGE_LEFT] == EDGE_WRAP,
           r->edges[EDGE_TOP] == EDGE_WRAP, r->rays, r->light);
}

static void caustics_mode_row(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                              uint8_t *restrict rgb, uint16_t *restrict g16, uint16_t *restrict rgb16)
{
    (void)f;
    (void)h;
    (void)g16;
    const size_t row = (size_t)y * r->gw;
    caustics_row(&r->look, r->light + row, r->backdrop_rgb ? r->backdrop_rgb + row * 3 : NULL, r->gw, rgb, rgb16);
}

static void caustics_free(struct renderer *r)
{
    water_free(r);
    av_freep(&r->light);
    av_freep(&r->rays);
    backdrop_free(r->backdrop);
    free(r->floor_depth);
    r->floor_depth = NULL;
}

/* The float picture: the floor's light itself (1 under still water). */
static void caustics_row_float(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                               float *restrict out, int stride)
{
    (void)f;
    (void)h;
    const float *l = r->light + (size_t)y * r->gw;
    for (int x = 0; x < r->gw; x++)
        out[(size_t)x * stride] = l[x];
}

const struct render_mode_ops render_caustics_ops = {
    .name = "caustics",
    .mode = RENDER_CAUSTICS,
    .light = true,
    .init = caustics_init,
    .pick = water_backdrop_pick,
    .prepare = caustics_prepare,
    .row = caustics_mode_row,
    .row_float = caustics_row_float,
    .float_names = (const char *const[]){ "Y", NULL },
    .free = caustics_free,
};

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

/* The first pass's job: the landing points of the sub-rays of rows. */
struct landing_job {
    const float *gx, *gy;
    int w, h;
    float depth;
    const float *depths;   /* per cell (render.depth_map), or NULL: `depth` everywhere */
    float *at;
};

static void landing_rows(void *arg, int lo, int hi)
{
    const struct landing_job *j = arg;
    const int w = j->w, h = j->h;
    for (int y = lo; y < hi; y++) {
        float *out = j->at + (size_t)y * w * (2 * SUB * SUB);
        for (int x = 0; x < w; x++) {
            for (int sy = 0; sy < SUB; sy++) {
                for (int sx = 0; sx < SUB; sx++) {
                    float px = (float)x + ((float)sx + 0.5f) / SUB - 0.5f;
                    float py = (float)y + ((float)sy + 0.5f) / SUB - 0.5f;
                    float ax = grid_at(j->gx, w, h, px, py), ay = grid_at(j->gy, w, h, px, py);
                    float inv = 1.0f / sqrtf(ax * ax + ay * ay + 1.0f);
                    float n[3] = { -ax * inv, -ay * inv, inv };
                    float k = 1.0f - ETA * ETA * (1.0f - n[2] * n[2]);
                    float m = ETA * n[2] - sqrtf(k);
                    float t[3] = { m * n[0], m * n[1], -ETA + m * n[2] };
                    float d = j->depths ? grid_at(j->depths, w, h, px, py) : j->depth;
                    float reach = d / -t[2];
                    *out++ = px + t[0] * reach;
                    *out++ = py + t[1] * reach;
                }
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
 * then the splat in one fixed order on one thread. */
static void gather(const float *gx, const float *gy, int w, int h, float depth, const float *depths, bool wrap_x,
                   bool wrap_y, float *restrict at, float *restrict light)
{
    struct landing_job j = { .gx = gx, .gy = gy, .w = w, .h = h, .depth = depth, .depths = depths, .at = at };
    team_for(h, team_threads_for((long)w * h, 16384), landing_rows, &j);
    memset(light, 0, (size_t)w * h * sizeof *light);
    const float share = 1.0f / (SUB * SUB);
    const size_t rays = (size_t)w * h * SUB * SUB;
    for (size_t r = 0; r < rays; r++) {
        int x0, x1, y0, y1;
        float fx, fy;
        land(at[2 * r], w, wrap_x, &x0, &x1, &fx);
        land(at[2 * r + 1], h, wrap_y, &y0, &y1, &fy);
        float *r0 = light + (size_t)y0 * w, *r1 = light + (size_t)y1 * w;
        r0[x0] += share * (1.0f - fx) * (1.0f - fy);
        r0[x1] += share * fx * (1.0f - fy);
        r1[x0] += share * (1.0f - fx) * fy;
        r1[x1] += share * fx * fy;
    }
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
            over = fmaxf(over, c[k] - 1.0f);
        }
        for (int k = 0; k < 3; k++) {
            float v = fminf(fmaxf(c[k] + 0.5f * over, 0.0f), 1.0f);
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

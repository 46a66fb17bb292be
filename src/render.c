/* render.c: height field -> rgb24 frame, with the optional 16-bit grey,
 * deep and raw-height outputs, scaled with libswscale (src/scale.h). What every mode has
 * is here: the buffers, the scaling, the walls, render.alpha; the modes
 * themselves are in src/render/, one file each, called through their table
 * (render/modes.h). */
#include "render.h"
#include "render/modes.h"
#include "scale.h"
#include "sinks/yuv420.h"
#include "team.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/mem.h>
#include <libavutil/pixfmt.h>

/* The mode's float channels: the length of its float_names. */
static int float_count(const struct render_mode_ops *ops)
{
    int n = 0;
    while (ops->float_names && ops->float_names[n])
        n++;
    return n;
}

static int align64(int n)
{
    return (n + 63) & ~63;
}

void render_free(struct renderer *r)
{
    if (!r)
        return;
    scaler_free(r->sc_rgb);
    scaler_free(r->sc_g16);
    for (int k = 0; k < 3; k++)
        scaler_free(r->sc_c16[k]);
    scaler_free(r->sc_a);
    for (int k = 0; k < 3; k++) {
        scaler_free(r->sc_yuv[k]);
        av_free(r->yuv_grid[k]);
        av_free(r->yuv_dst[k]);
    }
    av_free(r->yuv_out);
    av_free(r->c16_grid);
    av_free(r->c16_planes);
    av_free(r->a_grid);
    av_free(r->c16_dst);
    av_free(r->a_dst);
    av_free(r->deep_out);
    av_free(r->fdeep);
    av_free(r->rgb_grid);
    av_free(r->g16_grid);
    av_free(r->rgb_dst);
    av_free(r->g16_dst);
    av_free(r->rgb_out);
    av_free(r->g16_out);
    av_free(r->heights);
    if (r->ops->free)
        r->ops->free(r);
    free(r);
}

/* n grid-size planes of bpp bytes a pixel (one after the other), and when
 * scaled their render-size copies and a scaler for each (fmt to fmt).
 * Every grid-size picture a scaler reads is allocated zeroed: shrinking by
 * more than 2x, libswscale reads the padding past a row's last pixel, which
 * the renderer never writes, and its output depends on those bytes.
 * Returns 0, or -1 (out of memory). */
static int plane_create(const struct renderer *r, enum AVPixelFormat fmt, int bpp, int n, uint8_t **grid,
                        int *grid_stride, uint8_t **dst, int *dst_stride, struct scaler **sc)
{
    bool whole = r->ops->own_size;   /* at render size, unscaled */
    int w = whole ? r->rw : r->gw, h = whole ? r->rh : r->gh;
    *grid_stride = r->scaled ? align64(w * bpp) : w * bpp;
    if (!(*grid = av_mallocz((size_t)*grid_stride * h * n)))
        return -1;
    if (!r->scaled)
        return 0;
    *dst_stride = align64(r->rw * bpp);
    if (!(*dst = av_malloc((size_t)*dst_stride * r->rh * n)))
        return -1;
    for (int k = 0; k < n; k++)
        if (!(sc[k] = scaler_create(r->gw, r->gh, r->rw, r->rh, fmt, *grid + (size_t)k * *grid_stride * h, *grid_stride,
                                    *dst + (size_t)k * *dst_stride * r->rh, *dst_stride)))
            return -1;
    return 0;
}

/* The yuv420p picture's buffers and scalers (RENDER_NEED_YUV420), where the
 * picture is scaled and every size even (the chroma planes are then exactly
 * half the luma's, at grid and at render size). Returns 0, or -1 (out of
 * memory). */
static int yuv_create(struct renderer *r)
{
    if (!r->scaled || !(r->needs & RENDER_NEED_YUV420) || (r->gw | r->gh | r->rw | r->rh) & 1)
        return 0;
    /* 64 bytes beyond the end for vector stores past a row's end. */
    if (!(r->yuv_out = av_malloc((size_t)r->rw * r->rh * 3 / 2 + 64)))
        return -1;
    /* Rows whose width is a multiple of 16 (libswscale's alignment) are
     * scaled into yuv_out directly, others into an aligned copy and packed. */
    const bool direct = r->rw % 32 == 0;
    uint8_t *out = r->yuv_out;
    for (int k = 0; k < 3; k++) {
        int sub = k ? 1 : 0, gw = r->gw >> sub, gh = r->gh >> sub, rw = r->rw >> sub, rh = r->rh >> sub;
        r->yuv_grid_stride[k] = align64(gw);
        r->yuv_dst_stride[k] = direct ? rw : align64(rw);
        if (!direct && !(r->yuv_dst[k] = av_malloc((size_t)r->yuv_dst_stride[k] * rh)))
            return -1;
        if (!(r->yuv_grid[k] = av_mallocz((size_t)r->yuv_grid_stride[k] * gh))
            || !(r->sc_yuv[k] = scaler_create(gw, gh, rw, rh, AV_PIX_FMT_GRAY8, r->yuv_grid[k], r->yuv_grid_stride[k],
                                              direct ? out : r->yuv_dst[k], r->yuv_dst_stride[k])))
            return -1;
        out += (size_t)rw * rh;
    }
    return 0;
}

/* The deep picture's buffers (see struct renderer). Returns 0, or -1 with e
 * filled. */
static int deep_create(struct renderer *r, const struct render_config *rc, int needs, struct rr_err *e)
{
    if (!(needs & (RENDER_NEED_RGB16 | RENDER_NEED_ALPHA | RENDER_NEED_FLOAT)))
        return 0;
    if ((needs & RENDER_NEED_ALPHA) && rc->alpha == ALPHA_NONE)
        return rr_fail(e, RR_EXIT_USAGE, "render.alpha: the output carries alpha; set render.alpha (height%s)",
                       r->ops->light ? " or caustics" : "");
    double top = fmax(fabs(rc->range[0]), fabs(rc->range[1]));
    r->alpha_k = (float)(1.0 / top);
    if (needs & RENDER_NEED_FLOAT) {   /* the floats instead of the 8- or 16-bit colours */
        r->fch = float_count(r->ops) + (needs & RENDER_NEED_ALPHA ? 1 : 0);
        if (!(r->fdeep = av_malloc((size_t)r->gw * r->gh * r->fch * sizeof(float))))
            return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for the float picture %dx%d", r->gw, r->gh);
        return 0;
    }
    r->deep_bits = needs & RENDER_NEED_RGB16 ? 16 : 8;
    r->deep_ch = needs & RENDER_NEED_ALPHA ? 4 : 3;
    r->abytes = r->deep_bits / 8;
    for (int k = 0; k < 3; k++)
        r->wall_rgb16[k] = (uint16_t)(rc->obstacle_color[k] * 257);
    if (r->deep_bits == 16) {
        bool whole = r->ops->own_size;   /* at render size, unscaled */
        r->c16_grid_stride = (whole ? r->rw : r->gw) * 6;
        if (!(r->c16_grid = av_malloc((size_t)r->c16_grid_stride * (whole ? r->rh : r->gh))))
            goto nomem;
        /* Scaled: three grey planes at grid size, three at render size. */
        if (r->scaled && plane_create(r, AV_PIX_FMT_GRAY16, 2, 3, (uint8_t **)&r->c16_planes,
                                      &r->c16_planes_stride, (uint8_t **)&r->c16_dst, &r->c16_dst_stride,
                                      r->sc_c16) < 0)
            goto nomem;
    }
    if (r->deep_ch == 4 && plane_create(r, r->abytes == 2 ? AV_PIX_FMT_GRAY16 : AV_PIX_FMT_GRAY8, r->abytes, 1,
                                        &r->a_grid, &r->a_grid_stride, &r->a_dst, &r->a_dst_stride, &r->sc_a) < 0)
        goto nomem;
    /* An own_size mode's deep picture is c16_grid itself (no alpha, no scaling). */
    if (!r->ops->own_size && !(r->deep_out = av_malloc((size_t)r->rw * r->rh * r->deep_ch * r->abytes)))
        goto nomem;
    return 0;
nomem:
    return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory (or no scaler) for the %d-bit picture %dx%d",
                   r->deep_bits, r->rw, r->rh);
}

int render_needs(const struct scene *sc, int needs)
{
    const struct render_mode_ops *ops = render_mode_of(sc->render.mode);
    if ((needs & RENDER_NEED_GRAY16) && ops && !ops->gray)   /* frame.h: 16-bit colour instead */
        needs = (needs & ~RENDER_NEED_GRAY16) | RENDER_NEED_RGB16;
    return needs;
}

bool render_draws_by_rows(const struct scene *sc, int needs)
{
    const struct render_mode_ops *ops = render_mode_of(sc->render.mode);
    const bool scaled = scene_render_width(sc) != sc->grid.width || scene_render_height(sc) != sc->grid.height;
    /* A mode with per-frame state (caustics' light) has a prepare. */
    return ops && ops->row && !ops->pick && !ops->prepare && !ops->frame && (ops->own_size || !scaled)
           && !(render_needs(sc, needs)
                & (RENDER_NEED_GRAY16 | RENDER_NEED_RGB16 | RENDER_NEED_ALPHA | RENDER_NEED_FLOAT));
}

int render_create(struct renderer **out, const struct scene *sc, int needs, struct rr_err *e)
{
    *out = NULL;
    const struct render_config *rc = &sc->render;
    const struct render_mode_ops *ops = render_mode_of(rc->mode);
    if (!ops)
        return rr_fail(e, RR_EXIT_USAGE, "render.mode: %d is not a render mode", (int)rc->mode);
    needs = render_needs(sc, needs);
    if (rc->alpha == ALPHA_CAUSTICS && !ops->light)
        return rr_fail(e, RR_EXIT_USAGE,
                       "render.alpha: \"caustics\" needs render.mode \"caustics\" (the mode is \"%s\")",
                       ops->name);
    if (rc->alpha != ALPHA_NONE && ops->opaque)
        return rr_fail(e, RR_EXIT_USAGE, "render.alpha: \"%s\" does not go with render.mode \"%s\" (%s; use none)",
                       scene_render_alpha_name(rc->alpha), ops->name, ops->opaque);
    if ((needs & RENDER_NEED_FLOAT) && !ops->row_float) {
        char have[128];
        return rr_fail(e, RR_EXIT_USAGE, "render.mode: \"%s\" has no float picture for this output (%s have)",
                       ops->name, render_float_modes(have, sizeof have));
    }
    if (!(rc->range[1] != rc->range[0]) || !isfinite(rc->range[0]) || !isfinite(rc->range[1]))
        return rr_fail(e, RR_EXIT_USAGE, "render.range: expected two different finite numbers, got [%g, %g]",
                       rc->range[0], rc->range[1]);
    int gw = sc->grid.width, gh = sc->grid.height;
    int rw = scene_render_width(sc), rh = scene_render_height(sc);
    if (gw <= 0 || gh <= 0 || (long long)rw * rh > (1LL << 28) || (long long)gw * gh > (1LL << 28))
        return rr_fail(e, RR_EXIT_USAGE, "render: unsupported size %dx%d from a %dx%d grid", rw, rh, gw, gh);
    if ((needs & RENDER_NEED_FLOAT) && (rw != gw || rh != gh))
        return rr_fail(e, RR_EXIT_USAGE,
                       "render.width: the float picture has one pixel per grid cell (%dx%d), not %dx%d",
                       gw, gh, rw, rh);

    struct renderer *r = calloc(1, sizeof *r);
    if (!r)
        return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory");
    r->ops = ops;
    r->needs = needs;
    r->by_rows = render_draws_by_rows(sc, needs);
    r->alpha = rc->alpha;
    r->lo = (float)rc->range[0];
    r->span = (float)(rc->range[1] - rc->range[0]);
    memcpy(r->wall, rc->obstacle_color, 3);
    /* The walls' grey in 16-bit output: BT.601 luma of obstacle_color. */
    r->wall16 = (uint16_t)((299 * rc->obstacle_color[0] + 587 * rc->obstacle_color[1] +
                            114 * rc->obstacle_color[2] + 500) / 1000 * 257);
    r->gw = gw;
    r->gh = gh;
    r->rw = rw;
    r->rh = rh;
    /* An own_size mode (refract) renders at render size itself: no scaling. */
    r->scaled = !ops->own_size && (rw != gw || rh != gh);
    bool g16 = needs & RENDER_NEED_GRAY16;

    size_t gpix = (size_t)gw * gh, rpix = (size_t)rw * rh;
    if (r->scaled) {
        r->rgb_grid_stride = align64(gw * 3);
        r->rgb_dst_stride = align64(rw * 3);
        r->rgb_grid = av_mallocz((size_t)r->rgb_grid_stride * gh);
        if (yuv_create(r) < 0)
            goto nomem;
        /* Without rgb (RENDER_YUV_ONLY; the 8-bit rgba deep picture is made
         * from it), rgb_dst and rgb_out stay NULL and sc_rgb unmade. */
        bool rgb = !r->yuv_out || !(needs & RENDER_YUV_ONLY) || (needs & RENDER_NEED_ALPHA);
        r->rgb_dst = rgb ? av_malloc((size_t)r->rgb_dst_stride * rh) : NULL;
        r->rgb_out = rgb ? av_malloc(rpix * 3) : NULL;
        if (rgb && r->rgb_grid && r->rgb_dst)
            r->sc_rgb = scaler_create(gw, gh, rw, rh, AV_PIX_FMT_RGB24, r->rgb_grid, r->rgb_grid_stride, r->rgb_dst,
                                      r->rgb_dst_stride);
        if (g16) {
            r->g16_grid_stride = align64(gw * 2);
            r->g16_dst_stride = align64(rw * 2);
            r->g16_grid = av_mallocz((size_t)r->g16_grid_stride * gh);
            r->g16_dst = av_malloc((size_t)r->g16_dst_stride * rh);
            r->g16_out = av_malloc(rpix * 2);
            if (r->g16_grid && r->g16_dst)
                r->sc_g16 = scaler_create(gw, gh, rw, rh, AV_PIX_FMT_GRAY16, (uint8_t *)r->g16_grid,
                                          r->g16_grid_stride, (uint8_t *)r->g16_dst, r->g16_dst_stride);
            if (!r->g16_out || !r->sc_g16)
                goto nomem;
        }
        if (rgb && (!r->rgb_out || !r->sc_rgb))
            goto nomem;
    } else {
        r->rgb_grid_stride = gw * 3;
        r->rgb_grid = av_malloc(gpix * 3);
        if (!r->rgb_grid)
            goto nomem;
        if (g16) {
            r->g16_grid_stride = gw * 2;
            r->g16_grid = av_malloc(gpix * 2);
            if (!r->g16_grid)
                goto nomem;
        }
    }
    if (needs & RENDER_NEED_HEIGHTS) {
        r->heights = av_malloc(gpix * sizeof(float));
        if (!r->heights)
            goto nomem;
    }
    if ((ops->init && ops->init(r, sc, e) < 0) || deep_create(r, rc, needs, e) < 0) {
        render_free(r);
        return -1;
    }
    *out = r;
    return 0;
nomem:
    render_free(r);
    return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory (or no scaler) for %dx%d from a %dx%d grid",
                   rw, rh, gw, gh);
}


/* A row of render.alpha at abytes bytes a sample: "height" |h| over the
 * range's larger end, "caustics" the floor's light above still water's
 * (light - 1); walls opaque. */
static inline float alpha_at(const struct renderer *r, const float *h, const float *light,
                            const unsigned char *walls, int x)
{
    float v = r->alpha == ALPHA_CAUSTICS ? light[x] - 1.0f : fabsf(h[x]) * r->alpha_k;
    return walls && walls[x] == 1 ? 1.0f : v;
}

static void alpha_row(const struct renderer *r, const float *h, const float *light, const unsigned char *walls,
                      uint8_t *a)
{
    const int w = r->gw;
    for (int x = 0; x < w; x++) {
        float v = alpha_at(r, h, light, walls, x);
        if (r->abytes == 2)
            ((uint16_t *)a)[x] = unit_u16(v);
        else
            a[x] = (uint8_t)unit_round(v, 255.0f);
    }
}

/* A row of the float picture (RENDER_NEED_FLOAT): the mode's quantities,
 * then the alpha in [0, 1] (NaN giving 0) when there is one. Walls are not
 * painted: they keep their quantities, and alpha 1. */
static void float_row(const struct renderer *r, const struct field *f, int y, const float *h, const float *light,
                      const unsigned char *walls, float *out)
{
    const int w = r->gw, ch = r->fch;
    r->ops->row_float(r, f, y, h, out, ch);
    if (ch == float_count(r->ops))
        return;
    for (int x = 0; x < w; x++) {
        float v = alpha_at(r, h, light, walls, x);
        v = v >= 0.0f ? v : 0.0f;
        out[(size_t)x * ch + ch - 1] = v < 1.0f ? v : 1.0f;
    }
}

/* One grid row through the mode (rgb24, and 16-bit grey and colour when
 * asked for), then render.alpha, then the walls: painted after the colour,
 * so the colour loops stay branch-free. fl: the float picture's row, or
 * NULL. */
static void render_row(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                       const unsigned char *walls, uint8_t *restrict rgb, uint16_t *restrict g16,
                       uint16_t *restrict rgb16, uint8_t *restrict a, float *restrict fl)
{
    const int w = r->gw;
    const size_t row = (size_t)y * w;
    r->ops->row(r, f, y, h, rgb, g16, rgb16);
    if (a)
        alpha_row(r, h, r->light ? r->light + row : NULL, walls, a);
    if (fl)
        float_row(r, f, y, h, r->light ? r->light + row : NULL, walls, fl);
    /* memchr: most rows have no wall, and glibc scans them a vector at a time. */
    for (const unsigned char *p = walls ? memchr(walls, 1, (size_t)w) : NULL; p;
         p = memchr(p + 1, 1, (size_t)(walls + w - (p + 1)))) {
        size_t x = (size_t)(p - walls);
        memcpy(rgb + 3 * x, r->wall, 3);
        if (g16)
            g16[x] = r->wall16;
        if (rgb16)
            memcpy(rgb16 + 3 * x, r->wall_rgb16, sizeof r->wall_rgb16);
    }
}

static void pack_rows(uint8_t *dst, const uint8_t *src, int src_stride, int row_bytes, int rows)
{
    for (int y = 0; y < rows; y++)
        memcpy(dst + (size_t)y * row_bytes, src + (size_t)y * src_stride, (size_t)row_bytes);
}

/* The raw heights for the .npy sink, when asked for. Cannot fail. */
static void copy_heights(struct renderer *r, const struct field *f, struct frame *fr)
{
    if (!r->heights)
        return;
    for (int y = 0; y < r->gh; y++)
        memcpy(r->heights + (size_t)y * r->gw, f->cur + (ptrdiff_t)y * f->stride, (size_t)r->gw * sizeof(float));
    fr->heights = r->heights;
}

/* The grid-size picture's rows (and 16-bit grey rows, when the output
 * wants them). */
static void render_rows(void *arg, int lo, int hi)
{
    const struct rows_job *j = arg;
    const struct renderer *r = j->r;
    const bool g16 = r->g16_grid != NULL;
    for (int y = lo; y < hi; y++)
        render_row(r, j->f, y, j->f->cur + (ptrdiff_t)y * j->f->stride,
                   j->walls ? j->walls + (size_t)y * r->gw : NULL, j->dst + (size_t)y * r->rgb_grid_stride,
                   g16 ? (uint16_t *)((uint8_t *)r->g16_grid + (size_t)y * r->g16_grid_stride) : NULL,
                   r->c16_grid ? (uint16_t *)((uint8_t *)r->c16_grid + (size_t)y * r->c16_grid_stride) : NULL,
                   r->a_grid ? r->a_grid + (size_t)y * r->a_grid_stride : NULL,
                   r->fdeep ? r->fdeep + (size_t)y * r->gw * r->fch : NULL);
}

/* Packs a band of a scaled picture's rows (a scaler's after call). */
struct pack_job {
    uint8_t *out;
    const uint8_t *src;
    int stride, row_bytes;
};

static void pack_band(void *arg, int lo, int hi)
{
    const struct pack_job *p = arg;
    pack_rows(p->out + (size_t)lo * p->row_bytes, p->src + (size_t)lo * p->stride, p->stride, p->row_bytes, hi - lo);
}

/* Scales one grid-size plane to render size on the pool (what threads the
 * frame loop has), then packs its rows into p->out when p is not NULL.
 * Returns 0, or -1 with e filled. */
static int scale_plane(const struct renderer *r, struct scaler *sc, struct pack_job *p, const char *what,
                       struct rr_err *e)
{
    if (scaler_run(sc, team_threads_for((long)r->rw * r->rh, 65536), p ? pack_band : NULL, p) < 0)
        return rr_fail(e, RR_EXIT_RUNTIME, "render: libswscale failed to scale %s%dx%d to %dx%d (or out of memory)",
                       what, r->gw, r->gh, r->rw, r->rh);
    return 0;
}

/* Rows [2 lo, 2 hi) of the grid-size rgb picture as yuv420p (yuv_grid). */
static void yuv_rows(void *arg, int lo, int hi)
{
    const struct renderer *r = arg;
    const int *gs = r->yuv_grid_stride;
    yuv420_from_rgb24(r->rgb_grid + (size_t)2 * lo * r->rgb_grid_stride, r->rgb_grid_stride, r->gw, 2 * (hi - lo),
                      r->yuv_grid[0] + (size_t)2 * lo * gs[0], gs[0], r->yuv_grid[1] + (size_t)lo * gs[1], gs[1],
                      r->yuv_grid[2] + (size_t)lo * gs[2], gs[2]);
}

/* The yuv420p picture at render size (yuv_out): the grid-size rgb converted
 * (sinks/yuv420.c, in bands of row pairs on the pool), then each plane
 * scaled as grey and packed, Y then Cb then Cr. The bytes do not depend on
 * the bands: the conversion is per 2x2 block, the scaling scale.h's. p is
 * scratch. Returns 0, or -1 with e filled. */
static int yuv_frame(const struct renderer *r, struct pack_job *p, struct rr_err *e)
{
    team_for(r->gh / 2, team_threads_for((long)r->gw * r->gh, 65536), yuv_rows, (void *)r);
    uint8_t *out = r->yuv_out;
    for (int k = 0; k < 3; k++) {
        int w = k ? r->rw / 2 : r->rw, h = k ? r->rh / 2 : r->rh;
        *p = (struct pack_job){ .out = out, .src = r->yuv_dst[k], .stride = r->yuv_dst_stride[k], .row_bytes = w };
        if (scale_plane(r, r->sc_yuv[k], r->yuv_dst[k] ? p : NULL, k ? "yuv420p chroma " : "yuv420p luma ", e) < 0)
            return -1;
        out += (size_t)w * h;
    }
    return 0;
}

/* The interleaved deep picture (frame.h) from the frame's rgb (8-bit
 * colour), the 16-bit colour and the alpha, at render size: the scaled
 * copies when scaled. Returns 0, or -1 with e filled. */
static int deep_frame(struct renderer *r, const uint8_t *rgb, struct frame *fr, struct rr_err *e)
{
    const uint16_t *c16 = r->c16_grid;
    const uint8_t *a = r->a_grid;
    int c16_stride = r->c16_grid_stride, a_stride = r->a_grid_stride;
    /* c16 planar (scaled): plane k of the colour at c16 + k * plane bytes. */
    size_t plane = 0;
    if (r->scaled) {
        if (c16) {
            const size_t gplane = (size_t)r->c16_planes_stride * r->gh;
            for (int y = 0; y < r->gh; y++) {
                const uint16_t *in = (const uint16_t *)((const uint8_t *)c16 + (size_t)y * c16_stride);
                for (int k = 0; k < 3; k++) {
                    uint16_t *out = (uint16_t *)((uint8_t *)r->c16_planes + k * gplane +
                                                 (size_t)y * r->c16_planes_stride);
                    for (int x = 0; x < r->gw; x++)
                        out[x] = in[3 * x + k];
                }
            }
            plane = (size_t)r->c16_dst_stride * r->rh;
            for (int k = 0; k < 3; k++)
                if (scale_plane(r, r->sc_c16[k], NULL, "16-bit colour ", e) < 0)
                    return -1;
        }
        if (a && scale_plane(r, r->sc_a, NULL, "alpha ", e) < 0)
            return -1;
        c16 = r->c16_dst;
        a = r->a_dst;
        c16_stride = r->c16_dst_stride;
        a_stride = r->a_dst_stride;
    }
    const int w = r->rw, ch = r->deep_ch;
    for (int y = 0; y < r->rh; y++) {
        const uint8_t *ar = a ? a + (size_t)y * a_stride : NULL;
        if (r->deep_bits == 8) {   /* rgba: the frame's own colour bytes */
            const uint8_t *cr = rgb + (size_t)y * w * 3;
            uint8_t *o = (uint8_t *)r->deep_out + (size_t)y * w * 4;
            for (int x = 0; x < w; x++) {
                memcpy(o + 4 * x, cr + 3 * x, 3);
                o[4 * x + 3] = ar[x];
            }
            continue;
        }
        const uint16_t *cr = (const uint16_t *)((const uint8_t *)c16 + (size_t)y * c16_stride);
        uint16_t *o = (uint16_t *)r->deep_out + (size_t)y * w * ch;
        if (plane) {   /* planar */
            for (int k = 0; k < 3; k++) {
                const uint16_t *p = (const uint16_t *)((const uint8_t *)cr + k * plane);
                for (int x = 0; x < w; x++)
                    o[ch * x + k] = p[x];
            }
        } else if (!ar) {
            memcpy(o, cr, (size_t)w * 6);
        } else {
            for (int x = 0; x < w; x++)
                memcpy(o + 4 * x, cr + 3 * x, 6);
        }
        for (int x = 0; ar && x < w; x++)
            o[4 * x + 3] = ((const uint16_t *)ar)[x];
    }
    fr->deep = r->deep_out;
    fr->deep_channels = ch;
    fr->deep_bits = r->deep_bits;
    return 0;
}

bool render_makes_rgb(const struct renderer *r)
{
    return !r->scaled || r->sc_rgb;
}

int render_frame(struct renderer *r, const struct field *f, const unsigned char *walls, long index,
                 struct frame *fr, struct rr_err *e)
{
    return render_frame_to(r, f, walls, index, NULL, fr, e);
}

bool render_by_rows(const struct renderer *r)
{
    return r->by_rows;
}

size_t render_heights_bytes(const struct renderer *r)
{
    return r->heights ? (size_t)r->gw * r->gh * sizeof(float) : 0;
}

void render_rows_into(const struct renderer *r, const struct field *f, const unsigned char *walls, uint8_t *rgb,
                      float *heights, int y0, int y1)
{
    for (int y = y0; y < y1; y++) {
        const float *row = f->cur + (ptrdiff_t)y * f->stride;
        render_row(r, f, y, row, walls ? walls + (size_t)y * r->gw : NULL, rgb + (size_t)y * r->rgb_grid_stride,
                   NULL, NULL, NULL, NULL);
        if (heights)   /* as copy_heights */
            memcpy(heights + (size_t)y * r->gw, row, (size_t)r->gw * sizeof(float));
    }
}

void render_frame_of(const struct renderer *r, long index, uint8_t *rgb, float *heights, struct frame *fr)
{
    *fr = (struct frame){ .index = index, .width = r->rw, .height = r->rh, .grid_w = r->gw, .grid_h = r->gh,
                          .rgb = rgb, .heights = heights };
}

int render_frame_to(struct renderer *r, const struct field *f, const unsigned char *walls, long index,
                    uint8_t *target, struct frame *fr, struct rr_err *e)
{
    if (f->w != r->gw || f->h != r->gh)
        return rr_fail(e, RR_EXIT_RUNTIME, "render: the field is %dx%d, the renderer was made for %dx%d", f->w,
                       f->h, r->gw, r->gh);
    const int gw = r->gw, gh = r->gh;
    const bool g16 = r->g16_grid != NULL;
    if (r->ops->pick && r->ops->pick(r, index, e) < 0)
        return -1;
    if (r->ops->prepare)
        r->ops->prepare(r, f);
    if (r->ops->frame) {
        if (r->ops->frame(r, f, walls, index, target ? target : r->rgb_out, fr, e) < 0)
            return -1;
        copy_heights(r, f, fr);
        return 0;
    }
    /* Unscaled, the grid-size picture is the frame (rows of gw * 3 bytes). */
    uint8_t *grid_rgb = r->scaled || !target ? r->rgb_grid : target;
    struct rows_job j = { .r = r, .f = f, .walls = walls, .dst = grid_rgb };
    team_for(gh, team_threads_for((long)gw * gh, 65536), render_rows, &j);
    memset(fr, 0, sizeof *fr);
    fr->index = index;
    fr->width = r->rw;
    fr->height = r->rh;
    fr->grid_w = gw;
    fr->grid_h = gh;
    if (r->scaled) {
        /* Each band's rows are packed into the frame by the thread that scaled them. */
        struct pack_job p;
        if (r->yuv_out && yuv_frame(r, &p, e) < 0)
            return -1;
        fr->yuv = r->yuv_out;
        if (r->sc_rgb) {
            p = (struct pack_job){ .out = target ? target : r->rgb_out, .src = r->rgb_dst,
                                   .stride = r->rgb_dst_stride, .row_bytes = r->rw * 3 };
            if (scale_plane(r, r->sc_rgb, &p, "", e) < 0)
                return -1;
            fr->rgb = p.out;
        }
        if (g16) {
            p = (struct pack_job){ .out = (uint8_t *)r->g16_out, .src = (const uint8_t *)r->g16_dst,
                                   .stride = r->g16_dst_stride, .row_bytes = r->rw * 2 };
            if (scale_plane(r, r->sc_g16, &p, "16-bit grey ", e) < 0)
                return -1;
            fr->gray16 = r->g16_out;
        }
    } else {
        fr->rgb = grid_rgb;
        fr->gray16 = r->g16_grid;
    }
    if (r->deep_bits && deep_frame(r, fr->rgb, fr, e) < 0)
        return -1;
    if (r->fdeep) {
        fr->deep = r->fdeep;
        fr->deep_channels = r->fch;
        fr->deep_bits = 32;
    }
    copy_heights(r, f, fr);
    return 0;
}

/* render.c: height field -> rgb24 frame, with the optional 16-bit grey and
 * raw-height outputs, scaled with libswscale. Modes height and colormap are
 * here; the water modes' kernels are in src/render/ (render/modes.h). */
#include "render.h"
#include "render/modes.h"
#include "team.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/mem.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>

/* Bit-exact bicubic: the same bytes from every CPU and SIMD path. */
#define RR_SWS_FLAGS (SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT)

struct renderer {
    enum render_mode mode;
    int needs;
    float lo, span;                    /* range[0], range[1] - range[0] */
    const unsigned char (*map)[3];     /* colormap mode */
    unsigned char wall[3];
    uint16_t wall16;
    int gw, gh, rw, rh;
    bool scaled;
    /* Grid-size pictures (sws sources when scaled; rgb_grid is the frame otherwise). */
    uint8_t *rgb_grid;  int rgb_grid_stride;
    uint16_t *g16_grid; int g16_grid_stride;   /* strides in bytes */
    /* Render-size sws destinations (aligned strides) and packed frame buffers. */
    uint8_t *rgb_dst;   int rgb_dst_stride;
    uint16_t *g16_dst;  int g16_dst_stride;
    uint8_t *rgb_out;
    uint16_t *g16_out;
    float *heights;
    struct SwsContext *sws_rgb, *sws_g16;
    /* Water modes: the heights with filled ghosts, their slopes, the floor's light. */
    struct water_look look;
    enum edge_kind edges[4];
    struct field surf;
    float *gx, *gy;
    float *zeros;              /* shaded, normals: a fixed edge's ghost row */
    float *light;              /* caustics: the floor's light */
    float *rays;               /* caustics: landing points (CAUSTICS_SCRATCH) */
    struct image_rgb bg;       /* refract: the background at render size */
    struct image_rgb floor;    /* caustics: the floor texture at grid size, or empty */
    /* The deep picture (RENDER_NEED_RGB16, RENDER_NEED_ALPHA; frame.h): 16-bit
     * colour and alpha (1 or 2 bytes a sample: abytes) at grid size (refract:
     * the colour at render size), their scaled copies, and the interleaved
     * frame. deep_bits 0: none. The 16-bit colour is scaled as three grey
     * planes (c16_planes), because libswscale takes packed rgb48 through
     * YUV, which would turn greys into colours. */
    int deep_bits, deep_ch, abytes;
    enum render_alpha alpha;
    float alpha_k;             /* alpha "height": 1 / max(|range0|, |range1|) */
    uint16_t wall_rgb16[3];
    uint16_t *c16_grid; int c16_grid_stride;
    uint16_t *c16_planes; int c16_planes_stride;   /* 3 planes of gh rows */
    uint8_t *a_grid;    int a_grid_stride;
    uint16_t *c16_dst;  int c16_dst_stride;
    uint8_t *a_dst;     int a_dst_stride;
    void *deep_out;
    struct SwsContext *sws_c16, *sws_a;
    /* RENDER_NEED_FLOAT (frame.h): the mode's quantities and the alpha as
     * floats, fch a cell, at grid size; NULL: none. */
    float *fdeep;
    int fch;
    bool flip_green;           /* render.normal_convention directx */
};

static const char *mode_name(enum render_mode m)
{
    static const char *const names[] = { "height", "colormap", "shaded", "refract", "normals", "caustics" };
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : "?";
}

static int align64(int n)
{
    return (n + 63) & ~63;
}

void render_free(struct renderer *r)
{
    if (!r)
        return;
    sws_freeContext(r->sws_rgb);
    sws_freeContext(r->sws_g16);
    sws_freeContext(r->sws_c16);
    sws_freeContext(r->sws_a);
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
    field_free(&r->surf);
    av_free(r->gx);
    av_free(r->gy);
    av_free(r->zeros);
    av_free(r->light);
    av_free(r->rays);
    image_rgb_free(&r->bg);
    image_rgb_free(&r->floor);
    free(r);
}

static int list_colormaps(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; colormap_names[i] && used < n; i++) {
        int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", colormap_names[i]);
        if (k < 0)
            return -1;
        used += (size_t)k;
    }
    return 0;
}

/* A checkerboard of 16-pixel squares: refract's background when none is given. */
static void checkerboard(uint8_t *rgb, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t v = ((x / 16) + (y / 16)) & 1 ? 70 : 200;
            uint8_t *p = rgb + ((size_t)y * w + x) * 3;
            p[0] = v;
            p[1] = v;
            p[2] = v;
        }
}

/* Loads a colour PNG and fits it to w x h (bilinear, half-pixel centres) when
 * its size differs. Returns 0, or -1 with e filled. */
static int load_fitted(struct image_rgb *img, const char *path, const char *what, int w, int h,
                       struct rr_err *e)
{
    struct image_rgb raw;
    if (image_load_rgb(&raw, path, what, e) < 0)
        return -1;
    if (raw.width == w && raw.height == h) {
        *img = raw;
        return 0;
    }
    int rc = image_rgb_resample(&raw, w, h, img, e);
    image_rgb_free(&raw);
    return rc;
}

/* The water modes' buffers and pictures. Returns 0, or -1 with e filled. */
static int water_create(struct renderer *r, const struct scene *sc, struct rr_err *e)
{
    const struct render_config *rc = &sc->render;
    size_t gpix = (size_t)r->gw * r->gh;
    water_look_init(&r->look, rc);
    memcpy(r->edges, sc->boundary, sizeof r->edges);
    /* shaded and normals take each row's slopes as they go, from the
     * simulation's own heights; refract and caustics read them across rows,
     * from a copy with filled ghosts. */
    if (rc->mode == RENDER_SHADED || rc->mode == RENDER_NORMALS) {
        if (!(r->zeros = av_calloc((size_t)r->gw, sizeof(float))))
            return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d", r->gw, r->gh);
    } else {
        if (field_init(&r->surf, r->gw, r->gh, e) < 0)
            return -1;
        r->gx = av_malloc(gpix * sizeof(float));
        r->gy = av_malloc(gpix * sizeof(float));
        if (!r->gx || !r->gy)
            return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d slopes", r->gw, r->gh);
    }
    if (rc->mode == RENDER_REFRACT) {
        if (!(r->rgb_out = av_malloc((size_t)r->rw * r->rh * 3)))
            return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d", r->rw, r->rh);
        if (rc->background)
            return load_fitted(&r->bg, rc->background, "render.background", r->rw, r->rh, e);
        if (!(r->bg.rgb = malloc((size_t)r->rw * r->rh * 3)))
            return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d", r->rw, r->rh);
        r->bg.width = r->rw;
        r->bg.height = r->rh;
        checkerboard(r->bg.rgb, r->rw, r->rh);
    }
    if (rc->mode == RENDER_CAUSTICS) {
        r->light = av_malloc(gpix * sizeof(float));
        r->rays = av_malloc(CAUSTICS_SCRATCH(r->gw, r->gh) * sizeof(float));
        if (!r->light || !r->rays)
            return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d", r->gw, r->gh);
        if (rc->floor)
            return load_fitted(&r->floor, rc->floor, "render.floor", r->gw, r->gh, e);
    }
    return 0;
}

/* n grid-size planes of bpp bytes a pixel (one after the other), and when
 * scaled their render-size copies and the scaler (fmt to fmt). Returns 0,
 * or -1 (out of memory). */
static int plane_create(const struct renderer *r, enum AVPixelFormat fmt, int bpp, int n, uint8_t **grid,
                        int *grid_stride, uint8_t **dst, int *dst_stride, struct SwsContext **sws)
{
    bool whole = r->mode == RENDER_REFRACT;   /* refract: at render size, unscaled */
    int w = whole ? r->rw : r->gw, h = whole ? r->rh : r->gh;
    *grid_stride = r->scaled ? align64(w * bpp) : w * bpp;
    if (!(*grid = av_malloc((size_t)*grid_stride * h * n)))
        return -1;
    if (!r->scaled)
        return 0;
    *dst_stride = align64(r->rw * bpp);
    *dst = av_malloc((size_t)*dst_stride * r->rh * n);
    *sws = sws_getContext(r->gw, r->gh, fmt, r->rw, r->rh, fmt, RR_SWS_FLAGS, NULL, NULL, NULL);
    return *dst && *sws ? 0 : -1;
}

/* The deep picture's buffers (see struct renderer). Returns 0, or -1 with e
 * filled. */
static int deep_create(struct renderer *r, const struct render_config *rc, int needs, struct rr_err *e)
{
    if (!(needs & (RENDER_NEED_RGB16 | RENDER_NEED_ALPHA | RENDER_NEED_FLOAT)))
        return 0;
    if ((needs & RENDER_NEED_ALPHA) && rc->alpha == ALPHA_NONE)
        return rr_fail(e, RR_EXIT_USAGE, "render.alpha: the output carries alpha; set render.alpha (height%s)",
                       rc->mode == RENDER_CAUSTICS ? " or caustics" : "");
    double top = fmax(fabs(rc->range[0]), fabs(rc->range[1]));
    r->alpha_k = (float)(1.0 / top);
    if (needs & RENDER_NEED_FLOAT) {
        r->fch = (r->mode == RENDER_NORMALS ? 3 : 1) + (needs & RENDER_NEED_ALPHA ? 1 : 0);
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
        bool whole = r->mode == RENDER_REFRACT;   /* refract: at render size, unscaled */
        r->c16_grid_stride = (whole ? r->rw : r->gw) * 6;
        if (!(r->c16_grid = av_malloc((size_t)r->c16_grid_stride * (whole ? r->rh : r->gh))))
            goto nomem;
        /* Scaled: three grey planes at grid size, three at render size. */
        if (r->scaled && plane_create(r, AV_PIX_FMT_GRAY16, 2, 3, (uint8_t **)&r->c16_planes,
                                      &r->c16_planes_stride, (uint8_t **)&r->c16_dst, &r->c16_dst_stride,
                                      &r->sws_c16) < 0)
            goto nomem;
    }
    if (r->deep_ch == 4 && plane_create(r, r->abytes == 2 ? AV_PIX_FMT_GRAY16 : AV_PIX_FMT_GRAY8, r->abytes, 1,
                                        &r->a_grid, &r->a_grid_stride, &r->a_dst, &r->a_dst_stride, &r->sws_a) < 0)
        goto nomem;
    /* refract's deep picture is c16_grid itself (no alpha, no scaling). */
    if (r->mode != RENDER_REFRACT && !(r->deep_out = av_malloc((size_t)r->rw * r->rh * r->deep_ch * r->abytes)))
        goto nomem;
    return 0;
nomem:
    return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory (or no scaler) for the %d-bit picture %dx%d",
                   r->deep_bits, r->rw, r->rh);
}

int render_create(struct renderer **out, const struct scene *sc, int needs, struct rr_err *e)
{
    *out = NULL;
    const struct render_config *rc = &sc->render;
    const unsigned char (*map)[3] = NULL;
    if (rc->mode == RENDER_COLORMAP) {
        map = colormap_find(rc->colormap);
        if (!map) {
            char names[256];
            list_colormaps(names, sizeof names);
            return rr_fail(e, RR_EXIT_USAGE, "render.colormap: \"%s\" is not a colormap (available: %s)",
                           rc->colormap, names);
        }
    }
    if ((needs & RENDER_NEED_GRAY16) && rc->mode != RENDER_HEIGHT)
        return rr_fail(e, RR_EXIT_USAGE,
                       "output.bit_depth: 16 needs render.mode \"height\" (the mode is \"%s\")",
                       mode_name(rc->mode));
    if (rc->alpha == ALPHA_CAUSTICS && rc->mode != RENDER_CAUSTICS)
        return rr_fail(e, RR_EXIT_USAGE,
                       "render.alpha: \"caustics\" needs render.mode \"caustics\" (the mode is \"%s\")",
                       mode_name(rc->mode));
    if (rc->alpha != ALPHA_NONE && rc->mode == RENDER_REFRACT)
        return rr_fail(e, RR_EXIT_USAGE,
                       "render.alpha: \"%s\" does not go with render.mode \"refract\" "
                       "(its background is opaque; use none)", scene_render_alpha_name(rc->alpha));
    if ((needs & RENDER_NEED_FLOAT) && rc->mode != RENDER_HEIGHT && rc->mode != RENDER_NORMALS
        && rc->mode != RENDER_CAUSTICS)
        return rr_fail(e, RR_EXIT_USAGE,
                       "render.mode: \"%s\" has no float picture for this output (height, normals or caustics have)",
                       mode_name(rc->mode));
    if (!(rc->range[1] != rc->range[0]) || !isfinite(rc->range[0]) || !isfinite(rc->range[1]))
        return rr_fail(e, RR_EXIT_USAGE, "render.range: expected two different finite numbers, got [%g, %g]",
                       rc->range[0], rc->range[1]);
    int gw = sc->grid.width, gh = sc->grid.height;
    int rw = rc->width > 0 ? rc->width : gw, rh = rc->height > 0 ? rc->height : gh;
    if (gw <= 0 || gh <= 0 || (long long)rw * rh > (1LL << 28) || (long long)gw * gh > (1LL << 28))
        return rr_fail(e, RR_EXIT_USAGE, "render: unsupported size %dx%d from a %dx%d grid", rw, rh, gw, gh);
    if ((needs & RENDER_NEED_FLOAT) && (rw != gw || rh != gh))
        return rr_fail(e, RR_EXIT_USAGE,
                       "render.width: the float picture has one pixel per grid cell (%dx%d), not %dx%d",
                       gw, gh, rw, rh);

    struct renderer *r = calloc(1, sizeof *r);
    if (!r)
        return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory");
    r->mode = rc->mode;
    r->needs = needs;
    r->alpha = rc->alpha;
    r->flip_green = rc->mode == RENDER_NORMALS && rc->normal_convention == NORMALS_DIRECTX;
    r->lo = (float)rc->range[0];
    r->span = (float)(rc->range[1] - rc->range[0]);
    r->map = map;
    memcpy(r->wall, rc->obstacle_color, 3);
    /* The walls' grey in 16-bit output: BT.601 luma of obstacle_color. */
    r->wall16 = (uint16_t)((299 * rc->obstacle_color[0] + 587 * rc->obstacle_color[1] +
                            114 * rc->obstacle_color[2] + 500) / 1000 * 257);
    r->gw = gw;
    r->gh = gh;
    r->rw = rw;
    r->rh = rh;
    /* refract samples its background at render size itself: no scaling. */
    r->scaled = rc->mode != RENDER_REFRACT && (rw != gw || rh != gh);
    bool g16 = needs & RENDER_NEED_GRAY16;

    size_t gpix = (size_t)gw * gh, rpix = (size_t)rw * rh;
    if (r->scaled) {
        r->rgb_grid_stride = align64(gw * 3);
        r->rgb_dst_stride = align64(rw * 3);
        r->rgb_grid = av_malloc((size_t)r->rgb_grid_stride * gh);
        r->rgb_dst = av_malloc((size_t)r->rgb_dst_stride * rh);
        r->rgb_out = av_malloc(rpix * 3);
        r->sws_rgb = sws_getContext(gw, gh, AV_PIX_FMT_RGB24, rw, rh, AV_PIX_FMT_RGB24, RR_SWS_FLAGS, NULL,
                                    NULL, NULL);
        if (g16) {
            r->g16_grid_stride = align64(gw * 2);
            r->g16_dst_stride = align64(rw * 2);
            r->g16_grid = av_malloc((size_t)r->g16_grid_stride * gh);
            r->g16_dst = av_malloc((size_t)r->g16_dst_stride * rh);
            r->g16_out = av_malloc(rpix * 2);
            r->sws_g16 = sws_getContext(gw, gh, AV_PIX_FMT_GRAY16, rw, rh, AV_PIX_FMT_GRAY16, RR_SWS_FLAGS,
                                        NULL, NULL, NULL);
            if (!r->g16_grid || !r->g16_dst || !r->g16_out || !r->sws_g16)
                goto nomem;
        }
        if (!r->rgb_grid || !r->rgb_dst || !r->rgb_out || !r->sws_rgb)
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
    if ((rc->mode >= RENDER_SHADED && water_create(r, sc, e) < 0) || deep_create(r, rc, needs, e) < 0) {
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


/* One grid row to rgb24 (and 16-bit grey when g16 != NULL). Walls are painted
 * after the colour, so the colour loop stays branch-free. */
/* Row y's neighbourhood in f for the slopes, the ghosts as field_fill_ghosts
 * fills them from the scene's boundary kinds (fixed: 0, wrap: the opposite
 * edge, the others: the edge itself), read in place. */
static void nbhd(const struct renderer *r, const struct field *f, int y, struct row_nbhd *rn)
{
    const int w = r->gw, h = r->gh;
    const ptrdiff_t s = f->stride;
    const enum edge_kind *e = r->edges;
    rn->mid = f->cur + (ptrdiff_t)y * s;
    rn->up = y > 0 ? rn->mid - s
             : e[EDGE_TOP] == EDGE_FIXED ? r->zeros
             : e[EDGE_TOP] == EDGE_WRAP ? f->cur + (ptrdiff_t)(h - 1) * s : rn->mid;
    rn->dn = y < h - 1 ? rn->mid + s
             : e[EDGE_BOTTOM] == EDGE_FIXED ? r->zeros
             : e[EDGE_BOTTOM] == EDGE_WRAP ? f->cur : rn->mid;
    const enum edge_kind L = e[EDGE_LEFT], R = e[EDGE_RIGHT];
    rn->left = L == EDGE_FIXED ? 0.0f : L == EDGE_WRAP ? rn->mid[w - 1] : rn->mid[0];
    rn->right = R == EDGE_FIXED ? 0.0f : R == EDGE_WRAP ? rn->mid[0] : rn->mid[w - 1];
}

/* A row of colormap at 16 bits: the table read between its entries
 * (linearly), so that a smooth field gives more than its 256 colours.
 * At v = i / 255 it is entry i times 257. */
static void colormap_row16(const unsigned char (*map)[3], const float *h, float lo, float span, int w,
                           uint16_t *rgb16)
{
    for (int x = 0; x < w; x++) {
        float v = (h[x] - lo) / span;
        v = v >= 0.0f ? v : 0.0f;   /* NaN giving 0 */
        v = v < 1.0f ? v : 1.0f;
        float t = v * 255.0f;
        int i = (int)t < 254 ? (int)t : 254;
        float fr = t - (float)i;
        for (int k = 0; k < 3; k++)
            rgb16[3 * x + k] = unit_u16(((float)map[i][k] + (float)(map[i + 1][k] - map[i][k]) * fr) / 255.0f);
    }
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

/* A row of the float picture (RENDER_NEED_FLOAT): the mode's quantity, then
 * the alpha in [0, 1] (NaN giving 0) when there is one. */
static void float_row(const struct renderer *r, const struct row_nbhd *rn, const float *h, const float *light,
                      const unsigned char *walls, float *out)
{
    const int w = r->gw, ch = r->fch;
    if (r->mode == RENDER_NORMALS)
        normals_row_float(r->look.hs, rn, w, r->flip_green, out, ch);
    else
        for (int x = 0; x < w; x++)
            out[(size_t)x * ch] = r->mode == RENDER_CAUSTICS ? light[x] : h[x];
    if (ch == 2 || ch == 4)
        for (int x = 0; x < w; x++) {
            float v = alpha_at(r, h, light, walls, x);
            v = v >= 0.0f ? v : 0.0f;
            out[(size_t)x * ch + ch - 1] = v < 1.0f ? v : 1.0f;
        }
}

/* directx normal maps: the green channel inverted, 255 - g (65535 - g). */
static void flip_green(uint8_t *rgb, uint16_t *rgb16, int w)
{
    for (int x = 0; x < w; x++)
        rgb[3 * x + 1] = (uint8_t)(255 - rgb[3 * x + 1]);
    for (int x = 0; rgb16 && x < w; x++)
        rgb16[3 * x + 1] = (uint16_t)(65535 - rgb16[3 * x + 1]);
}

static void render_row(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                       const unsigned char *walls, uint8_t *restrict rgb, uint16_t *restrict g16,
                       uint16_t *restrict rgb16, uint8_t *restrict a, float *restrict fl)
{
    const int w = r->gw;
    const float lo = r->lo, span = r->span;
    const size_t row = (size_t)y * w;
    struct row_nbhd rn = { 0 };
    if (r->mode == RENDER_SHADED || r->mode == RENDER_NORMALS) {
        nbhd(r, f, y, &rn);
        if (r->mode == RENDER_SHADED) {
            shade_row(&r->look, &rn, w, rgb, rgb16);
        } else {
            normals_row(r->look.hs, &rn, w, rgb, rgb16);
            if (r->flip_green)
                flip_green(rgb, rgb16, w);
        }
    } else if (r->mode == RENDER_CAUSTICS) {
        caustics_row(&r->look, r->light + row, r->floor.rgb ? r->floor.rgb + row * 3 : NULL, w, rgb, rgb16);
    } else if (r->mode == RENDER_HEIGHT) {
        /* v = (h - range0) / (range1 - range0) to 0..255 (0..65535), clamped, NaN giving 0 */
        for (int x = 0; x < w; x++) {
            uint8_t g = (uint8_t)unit_round((h[x] - lo) / span, 255.0f);
            rgb[3 * x] = rgb[3 * x + 1] = rgb[3 * x + 2] = g;
        }
        if (g16)
            for (int x = 0; x < w; x++)
                g16[x] = (uint16_t)unit_round((h[x] - lo) / span, 65535.0f);
        if (rgb16)
            for (int x = 0; x < w; x++)
                rgb16[3 * x] = rgb16[3 * x + 1] = rgb16[3 * x + 2] = unit_u16((h[x] - lo) / span);
    } else {
        const unsigned char (*map)[3] = r->map;
        for (int x = 0; x < w; x++) {
            int i = unit_round((h[x] - lo) / span, 255.0f);
            rgb[3 * x] = map[i][0];
            rgb[3 * x + 1] = map[i][1];
            rgb[3 * x + 2] = map[i][2];
        }
        if (rgb16)
            colormap_row16(map, h, lo, span, w, rgb16);
    }
    if (a)
        alpha_row(r, h, r->light ? r->light + row : NULL, walls, a);
    if (fl)
        float_row(r, &rn, h, r->light ? r->light + row : NULL, walls, fl);
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

/* A frame's rows for the team (team_for): the renderer, the field and,
 * by the loop, the walls and the picture they go to. */
struct rows_job {
    struct renderer *r;
    const struct field *f;
    const unsigned char *walls;
    uint8_t *dst;
};

static void copy_heights_rows(void *arg, int lo, int hi)
{
    const struct rows_job *j = arg;
    for (int y = lo; y < hi; y++)
        memcpy(j->r->surf.cur + (ptrdiff_t)y * j->r->surf.stride, j->f->cur + (ptrdiff_t)y * j->f->stride,
               (size_t)j->r->gw * sizeof(float));
}

/* refract and caustics: copies the heights beside ghost cells filled from
 * the scene's boundary kinds, takes the slopes (and the caustics' light).
 * Cannot fail. */
static void water_prepare(struct renderer *r, const struct field *f)
{
    struct rows_job j = { .r = r, .f = f };
    team_for(r->gh, team_threads_for((long)r->gw * r->gh, 65536), copy_heights_rows, &j);
    field_fill_ghosts(&r->surf, r->surf.cur, r->edges);
    water_slopes(&r->surf, r->look.hs, r->gx, r->gy);
    if (r->mode == RENDER_CAUSTICS)
        caustics_gather(r->gx, r->gy, r->gw, r->gh, r->look.depth, r->edges[EDGE_LEFT] == EDGE_WRAP,
                        r->edges[EDGE_TOP] == EDGE_WRAP, r->rays, r->light);
}

static void refract_rows(void *arg, int lo, int hi)
{
    const struct rows_job *j = arg;
    const struct renderer *r = j->r;
    const int rw = r->rw, rh = r->rh, gw = r->gw, gh = r->gh;
    for (int y = lo; y < hi; y++) {
        uint8_t *out = j->dst + (size_t)y * rw * 3;
        uint16_t *out16 = r->c16_grid ? r->c16_grid + (size_t)y * rw * 3 : NULL;
        refract_row(&r->look, r->gx, r->gy, gw, gh, r->bg.rgb, rw, rh, y, out, out16);
        if (!j->walls)
            continue;
        const unsigned char *wr = j->walls + (size_t)((long)y * gh / rh) * gw;
        for (int x = 0; x < rw; x++) {
            if (wr[(long)x * gw / rw] == 1) {
                memcpy(out + 3 * x, r->wall, 3);
                if (out16)
                    memcpy(out16 + 3 * x, r->wall_rgb16, sizeof r->wall_rgb16);
            }
        }
    }
}

/* refract renders at render size directly; a pixel is a wall when the grid
 * cell under its centre is. Cannot fail. */
static int refract_frame(struct renderer *r, const struct field *f, const unsigned char *walls, long index,
                         uint8_t *dst, struct frame *fr)
{
    const int rw = r->rw, rh = r->rh, gw = r->gw, gh = r->gh;
    struct rows_job j = { .r = r, .f = f, .walls = walls, .dst = dst };
    team_for(rh, team_threads_for((long)rw * rh, 65536), refract_rows, &j);
    memset(fr, 0, sizeof *fr);
    fr->index = index;
    fr->width = rw;
    fr->height = rh;
    fr->grid_w = gw;
    fr->grid_h = gh;
    fr->rgb = dst;
    if (r->c16_grid) {   /* refract takes no alpha: the deep picture is the colour */
        fr->deep = r->c16_grid;
        fr->deep_channels = 3;
        fr->deep_bits = 16;
    }
    copy_heights(r, f, fr);
    return 0;
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

/* Scales one grid-size plane to render size (src and dst strides in bytes).
 * Returns 0, or -1 with e filled. */
static int scale_plane(struct renderer *r, struct SwsContext *sws, const void *src, int src_stride, void *dst,
                       int dst_stride, struct rr_err *e)
{
    const uint8_t *s[4] = { src, NULL, NULL, NULL };
    int ss[4] = { src_stride, 0, 0, 0 };
    uint8_t *d[4] = { dst, NULL, NULL, NULL };
    int ds[4] = { dst_stride, 0, 0, 0 };
    if (sws_scale(sws, s, ss, 0, r->gh, d, ds) != r->rh)
        return rr_fail(e, RR_EXIT_RUNTIME, "render: libswscale failed to scale %dx%d to %dx%d", r->gw, r->gh, r->rw,
                       r->rh);
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
                if (scale_plane(r, r->sws_c16, (uint8_t *)r->c16_planes + k * gplane, r->c16_planes_stride,
                                (uint8_t *)r->c16_dst + k * plane, r->c16_dst_stride, e) < 0)
                    return -1;
        }
        if (a && scale_plane(r, r->sws_a, a, a_stride, r->a_dst, r->a_dst_stride, e) < 0)
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

int render_frame(struct renderer *r, const struct field *f, const unsigned char *walls, long index,
                 struct frame *fr, struct rr_err *e)
{
    return render_frame_to(r, f, walls, index, NULL, fr, e);
}

int render_frame_to(struct renderer *r, const struct field *f, const unsigned char *walls, long index,
                    uint8_t *target, struct frame *fr, struct rr_err *e)
{
    if (f->w != r->gw || f->h != r->gh)
        return rr_fail(e, RR_EXIT_RUNTIME, "render: the field is %dx%d, the renderer was made for %dx%d", f->w,
                       f->h, r->gw, r->gh);
    const int gw = r->gw, gh = r->gh;
    const bool g16 = r->g16_grid != NULL;
    if (r->gx) {
        water_prepare(r, f);
        if (r->mode == RENDER_REFRACT)
            return refract_frame(r, f, walls, index, target ? target : r->rgb_out, fr);
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
        const uint8_t *src[4] = { r->rgb_grid, NULL, NULL, NULL };
        int src_stride[4] = { r->rgb_grid_stride, 0, 0, 0 };
        uint8_t *dst[4] = { r->rgb_dst, NULL, NULL, NULL };
        int dst_stride[4] = { r->rgb_dst_stride, 0, 0, 0 };
        if (sws_scale(r->sws_rgb, src, src_stride, 0, gh, dst, dst_stride) != r->rh)
            return rr_fail(e, RR_EXIT_RUNTIME, "render: libswscale failed to scale %dx%d to %dx%d", gw, gh,
                           r->rw, r->rh);
        uint8_t *out = target ? target : r->rgb_out;
        pack_rows(out, r->rgb_dst, r->rgb_dst_stride, r->rw * 3, r->rh);
        fr->rgb = out;
        if (g16) {
            src[0] = (const uint8_t *)r->g16_grid;
            src_stride[0] = r->g16_grid_stride;
            dst[0] = (uint8_t *)r->g16_dst;
            dst_stride[0] = r->g16_dst_stride;
            if (sws_scale(r->sws_g16, src, src_stride, 0, gh, dst, dst_stride) != r->rh)
                return rr_fail(e, RR_EXIT_RUNTIME, "render: libswscale failed to scale 16-bit grey %dx%d to %dx%d",
                               gw, gh, r->rw, r->rh);
            pack_rows((uint8_t *)r->g16_out, (const uint8_t *)r->g16_dst, r->g16_dst_stride, r->rw * 2, r->rh);
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

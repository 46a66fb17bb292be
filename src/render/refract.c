/* render/refract.c: render.mode "refract": the aim of seed 004 ("ripple
 * effect motion of water on any background", whose code only draws the
 * height as grey): a background picture seen through the surface, displaced
 * by its slope, plus the glints of a tilted surface. See render/modes.h. */
#include "render/modes.h"
#include "render/backdrop.h"
#include "team.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/mem.h>

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

/* A checkerboard of 16-pixel squares: the background when none is given. */
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

/* The slopes, the render-size picture and the background at render size
 * (render.background fitted, render/backdrop.h, or the checkerboard). */
static int refract_init(struct renderer *r, const struct scene *sc, struct rr_err *e)
{
    const struct render_config *rc = &sc->render;
    if (water_init_slopes(r, sc, e) < 0)
        return -1;
    if (!(r->rgb_out = av_malloc((size_t)r->rw * r->rh * 3)))
        return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d", r->rw, r->rh);
    if (rc->background)
        return water_backdrop_open(r, sc, rc->background, "render.background", r->rw, r->rh, e);
    if (!(r->checker.rgb = malloc((size_t)r->rw * r->rh * 3)))
        return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d", r->rw, r->rh);
    r->checker.width = r->rw;
    r->checker.height = r->rh;
    checkerboard(r->checker.rgb, r->rw, r->rh);
    r->backdrop_rgb = r->checker.rgb;
    return 0;
}

static void refract_rows(void *arg, int lo, int hi)
{
    const struct rows_job *j = arg;
    const struct renderer *r = j->r;
    const int rw = r->rw, rh = r->rh, gw = r->gw, gh = r->gh;
    for (int y = lo; y < hi; y++) {
        uint8_t *out = j->dst + (size_t)y * rw * 3;
        uint16_t *out16 = r->c16_grid ? r->c16_grid + (size_t)y * rw * 3 : NULL;
        refract_row(&r->look, r->gx, r->gy, gw, gh, r->backdrop_rgb, rw, rh, y, out, out16);
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

/* At render size directly; a pixel is a wall when the grid cell under its
 * centre is. Cannot fail. */
static int refract_frame(struct renderer *r, const struct field *f, const unsigned char *walls, long index,
                         uint8_t *dst, struct frame *fr, struct rr_err *e)
{
    (void)e;
    const int rw = r->rw, rh = r->rh;
    struct rows_job j = { .r = r, .f = f, .walls = walls, .dst = dst };
    team_for(rh, team_threads_for((long)rw * rh, 65536), refract_rows, &j);
    memset(fr, 0, sizeof *fr);
    fr->index = index;
    fr->width = rw;
    fr->height = rh;
    fr->grid_w = r->gw;
    fr->grid_h = r->gh;
    fr->rgb = dst;
    if (r->c16_grid) {   /* no alpha: the deep picture is the colour */
        fr->deep = r->c16_grid;
        fr->deep_channels = 3;
        fr->deep_bits = 16;
    }
    return 0;
}

static void refract_free(struct renderer *r)
{
    water_free(r);
    image_rgb_free(&r->checker);
    backdrop_free(r->backdrop);
}

/* The memory budget (render_mode_ops.bytes): the slopes, the render-size
 * picture and, without a background, the checkerboard, as refract_init
 * allocates them. */
static uint64_t refract_bytes(const struct scene *sc)
{
    const uint64_t pix = (uint64_t)scene_render_width(sc) * (uint64_t)scene_render_height(sc);
    return water_slopes_bytes(sc) + pix * 3 * (sc->render.background ? 1 : 2);
}

static const char *refract_picture(const struct render_config *rc)
{
    return rc->background;
}

const struct render_mode_ops render_refract_ops = {
    .name = "refract",
    .keys = (const char *const[]){ "height_scale", "light", "specular", "shininess",
                                   "background", "refraction", "video_end", NULL },
    .own_size = true,
    .opaque = "its background is opaque",
    .picture_key = "background",
    .picture = refract_picture,
    .init = refract_init,
    .bytes = refract_bytes,
    .pick = water_backdrop_pick,
    .prepare = water_prepare,
    .frame = refract_frame,
    .free = refract_free,
};

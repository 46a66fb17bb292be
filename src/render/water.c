/* render/water.c: what the water modes (shaded, normals, refract, caustics)
 * share: the lighting from the scene, the surface slopes and the ghost
 * cells they read through, a fitted background or floor picture. See
 * render/modes.h. */
#include "render/modes.h"
#include "render/backdrop.h"
#include "solver.h"
#include "team.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/mem.h>

static float unit_byte(unsigned char c)
{
    return (float)c / 255.0f;
}

static void normalise(float v[3])
{
    float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
        v[k] /= n;
}

void water_look_init(struct water_look *lk, const struct render_config *rc)
{
    lk->hs = (float)rc->height_scale;
    for (int k = 0; k < 3; k++) {
        lk->light[k] = (float)rc->light[k];
        lk->water[k] = unit_byte(rc->water_color[k]);
        lk->sky[k] = unit_byte(rc->sky_color[k]);
        lk->floor[k] = unit_byte(rc->floor_color[k]);
    }
    normalise(lk->light);   /* the scene guarantees z > 0 */
    for (int k = 0; k < 3; k++)
        lk->half[k] = lk->light[k] + (k == 2 ? 1.0f : 0.0f);
    normalise(lk->half);
    lk->specular = (float)rc->specular;
    lk->shininess = (float)rc->shininess;
    lk->f0 = (float)rc->reflectivity;
    lk->flat_spec = powf(lk->half[2], lk->shininess);
    lk->refraction = (float)rc->refraction;
    lk->depth = (float)rc->depth;
}

struct slopes_job {
    const struct field *f;
    const struct renderer *r;   /* or NULL: f's ghosts are filled */
    float k;   /* hs / 2 */
    float *gx, *gy;
    unsigned char *nz;   /* or NULL: water_slopes_marked's bit set */
};

/* Bits 0 .. n-1 of the result: 1 where the slope x or y of ax, ay is other
 * than zero (a float is zero, +0 or -0, when its bits other than the sign
 * are). Eight bytes of 0 or 1 into eight bits: byte i (at bit 8 i) times
 * 2^(7 (7 - i) + 7) lands on bit 56 + i of the product, and no two terms of
 * the product share a bit. */
static inline __attribute__((always_inline)) uint64_t nonzero_bits(const float *restrict ax,
                                                                  const float *restrict ay, int n)
{
    uint8_t t[64] = { 0 };
    for (int i = 0; i < n; i++)
        t[i] = (uint8_t)(((bits_f(ax[i]) | bits_f(ay[i])) & 0x7fffffffu) != 0);
    uint64_t bits = 0;
    for (int g = 0; g < 8; g++) {
        uint64_t b;
        memcpy(&b, t + 8 * g, 8);   /* little-endian: byte i at bit 8 i */
        bits |= (b * 0x0102040810204080u) >> 56 << (8 * g);
    }
    return bits;
}

/* Whether every height the slopes of cells x0 .. x0+n-1 read (chunk_slopes:
 * up and dn at x0 .. x0+n-1, mid at x0-1 .. x0+n or the ghosts beyond the
 * row's ends) is zero, +0 or -0: then each slope is k times a difference
 * of zeros, a zero (k is finite), and its bit 0. Untouched water between
 * the rings holds exact zeros, and this reads three rows where
 * chunk_slopes and nonzero_bits do several times the operations. */
static inline __attribute__((always_inline)) bool heights_zero(const struct row_nbhd *rn, int x0, int n, int w)
{
    const float *restrict up = rn->up + x0, *restrict mid = rn->mid + x0, *restrict dn = rn->dn + x0;
    uint32_t any = bits_f(x0 == 0 ? rn->left : mid[-1]) | bits_f(x0 + n == w ? rn->right : mid[n]);
    for (int x = 0; x < n; x++)
        any |= bits_f(up[x]) | bits_f(mid[x]) | bits_f(dn[x]);
    return !(any & 0x7fffffffu);
}

/* Row rn's slopes into ox, oy and their bits into out (nw words of 64
 * cells, bit x of word x / 64: nonzero_bits), 64 cells at a time, by
 * chunk_slopes (the same bits as slopes_row). A word whose slopes are all
 * zero, as they were at the call before (its bits there, still in out), is
 * not written: the planes hold zeros there already, of either sign, which
 * the caustics gather cannot tell apart (a zero slope moves a ray by
 * nothing: render/caustics.c). So still water costs its heights' reads,
 * not two planes' writes. */
static inline __attribute__((always_inline)) void slopes_word(const struct row_nbhd *rn, int x0, int n, int w,
                                                              float k, float *restrict ox, float *restrict oy,
                                                              unsigned char *restrict out)
{
    uint64_t before;
    memcpy(&before, out + x0 / 8, 8);
    if (!before && heights_zero(rn, x0, n, w))
        return;   /* its bits stay 0 and its slopes unwritten: what the lines below would do */
    float ax[64], ay[64];
    chunk_slopes(rn, x0, n, w, k, ax, ay);
    const uint64_t bits = nonzero_bits(ax, ay, n);
    if (bits | before) {
        memcpy(ox + x0, ax, (size_t)n * sizeof *ax);
        memcpy(oy + x0, ay, (size_t)n * sizeof *ay);
    }
    memcpy(out + x0 / 8, &bits, 8);
}

static inline __attribute__((always_inline)) void slopes_row_marked(const struct row_nbhd *rn, int w, float k,
                                                                   float *restrict ox, float *restrict oy,
                                                                   unsigned char *restrict out)
{
    for (int x0 = 0; x0 < w; x0 += 64) {
        if (w - x0 >= 64)   /* a whole word: constant sizes, vector moves */
            slopes_word(rn, x0, 64, w, k, ox, oy, out);
        else
            slopes_word(rn, x0, w - x0, w, k, ox, oy, out);
    }
}

/* Row rn's slopes into ox, oy: central differences, through the ghosts at
 * the ends. */
static inline __attribute__((always_inline)) void slopes_row(const struct row_nbhd *rn, int w, float k,
                                                             float *restrict ox, float *restrict oy)
{
    const float *restrict c = rn->mid, *restrict u = rn->up, *restrict d = rn->dn;
    ox[0] = k * ((w > 1 ? c[1] : rn->right) - rn->left);
    for (int x = 1; x < w - 1; x++)
        ox[x] = k * (c[x + 1] - c[x - 1]);
    if (w > 1)
        ox[w - 1] = k * (rn->right - c[w - 2]);
    for (int x = 0; x < w; x++)
        oy[x] = k * (d[x] - u[x]);
    odd_rows(rn, 0, w, k, oy);
}

/* Rows lo..hi-1 of the slopes (and their bits): read through f's ghosts, or
 * (r given) through the ghosts water_nbhd takes from the boundary kinds,
 * the same values field_fill_ghosts would put there. */
static inline __attribute__((always_inline)) void slopes_body(const struct slopes_job *j, int lo, int hi)
{
    const int w = j->f->w;
    const ptrdiff_t s = j->f->stride;
    for (int y = lo; y < hi; y++) {
        struct row_nbhd rn;
        if (j->r) {
            water_nbhd(j->r, j->f, y, &rn);
        } else {
            rn.mid = j->f->cur + (ptrdiff_t)y * s;
            rn.up = rn.mid - s;
            rn.dn = rn.mid + s;
            rn.left = rn.mid[-1];
            rn.right = rn.mid[w];
            rn.up_odd = rn.dn_odd = false;
        }
        float *ox = j->gx + (size_t)y * w, *oy = j->gy + (size_t)y * w;
        if (j->nz)
            slopes_row_marked(&rn, w, j->k, ox, oy, j->nz + (size_t)y * (((size_t)w + 63) / 64 * 8));
        else
            slopes_row(&rn, w, j->k, ox, oy);
    }
}

RENDER_ROWS_PASS(slopes_rows, slopes_body, struct slopes_job)

static void slopes(const struct field *f, const struct renderer *r, float hs, float *restrict gx,
                   float *restrict gy, unsigned char *nz)
{
    struct slopes_job j = { .f = f, .r = r, .k = 0.5f * hs, .gx = gx, .gy = gy, .nz = nz };
    team_for(f->h, team_threads_for((long)f->w * f->h, 65536), slopes_rows, &j);
}

void water_slopes(const struct field *f, float hs, float *restrict gx, float *restrict gy)
{
    slopes(f, NULL, hs, gx, gy, NULL);
}

static void water_init(struct renderer *r, const struct scene *sc)
{
    water_look_init(&r->look, &sc->render);
    memcpy(r->edges, sc->boundary, sizeof r->edges);
    /* A scene made by hand without a solver (a test's) takes the
     * finite-difference solvers' wall. */
    r->fixed_wall = sc->solver.type ? sc->solver.type->fixed_wall : FIXED_WALL_CELL;
}

int water_init_rows(struct renderer *r, const struct scene *sc, struct rr_err *e)
{
    water_init(r, sc);
    if (!(r->zeros = av_calloc((size_t)r->gw, sizeof(float))))
        return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d", r->gw, r->gh);
    return 0;
}

int water_init_slopes(struct renderer *r, const struct scene *sc, struct rr_err *e)
{
    water_init(r, sc);
    size_t gpix = (size_t)r->gw * r->gh;
    r->zeros = av_calloc((size_t)r->gw, sizeof(float));
    r->gx = av_malloc(gpix * sizeof(float));
    r->gy = av_malloc(gpix * sizeof(float));
    if (!r->zeros || !r->gx || !r->gy)
        return rr_fail(e, RR_EXIT_RUNTIME, "render: out of memory for %dx%d slopes", r->gw, r->gh);
    return 0;
}

uint64_t water_slopes_bytes(const struct scene *sc)
{
    return (uint64_t)sc->grid.width * (uint64_t)sc->grid.height * 2 * sizeof(float);
}

void water_free(struct renderer *r)
{
    av_freep(&r->gx);
    av_freep(&r->gy);
    av_freep(&r->zeros);
}

/* The row beyond the top (bottom = 0) or bottom edge: field_ghost_row's,
 * r->zeros for a row of zeros, *odd when it is to be negated. */
static const float *ghost_row(const struct renderer *r, const struct field *f, int bottom, bool *odd)
{
    float sign;
    const float *row = field_ghost_row(f, f->cur, r->edges[bottom ? EDGE_BOTTOM : EDGE_TOP], r->fixed_wall, bottom, &sign);
    *odd = sign < 0.0f;
    return row ? row : r->zeros;
}

void water_nbhd(const struct renderer *r, const struct field *f, int y, struct row_nbhd *rn)
{
    const int h = r->gh;
    const ptrdiff_t s = f->stride;
    const enum edge_kind *e = r->edges;
    rn->mid = f->cur + (ptrdiff_t)y * s;
    rn->up_odd = rn->dn_odd = false;
    rn->up = y > 0 ? rn->mid - s : ghost_row(r, f, 0, &rn->up_odd);
    rn->dn = y < h - 1 ? rn->mid + s : ghost_row(r, f, 1, &rn->dn_odd);
    rn->left = field_ghost_side(f, y, e[EDGE_LEFT], r->fixed_wall, 0);
    rn->right = field_ghost_side(f, y, e[EDGE_RIGHT], r->fixed_wall, 1);
}

void water_prepare_marked(struct renderer *r, const struct field *f, unsigned char *nz)
{
    slopes(f, r, r->look.hs, r->gx, r->gy, nz);
}

void water_prepare(struct renderer *r, const struct field *f)
{
    water_prepare_marked(r, f, NULL);
}

int water_backdrop_open(struct renderer *r, const struct scene *sc, const char *path, const char *key, int w,
                        int h, struct rr_err *e)
{
    if (backdrop_open(&r->backdrop, sc, path, key, w, h, e) < 0)
        return -1;
    r->backdrop_rgb = backdrop_frame(r->backdrop, 0, e);   /* read at open: cannot fail */
    return 0;
}

int water_backdrop_pick(struct renderer *r, long index, struct rr_err *e)
{
    if (!r->backdrop || !backdrop_moves(r->backdrop))
        return 0;
    return (r->backdrop_rgb = backdrop_frame(r->backdrop, index, e)) ? 0 : -1;
}

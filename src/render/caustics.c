/* render/caustics.c: render.mode "caustics": the light the surface focuses on
 * a floor below it, gathered so that no light is made or lost. See
 * render/modes.h and docs/render.md. */
#include "render/modes.h"
#include "render/backdrop.h"
#include "team.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <libavutil/mem.h>

#define SUB 2                    /* sub-rays per cell and axis (the landing code below is written for 2) */
#define ETA (1.0f / 1.333f)      /* air -> water, Snell's n1 / n2 */
#define FB 8                     /* fraction bits of a landing coordinate */
#define ONE (1 << FB)            /* a cell, in landing units */
#define UNIT ((uint32_t)(SUB * SUB) << (2 * FB))   /* a cell's light: SUB SUB sub-rays of ONE^2 each */
#define BLOCK 16                 /* the columns one landing block takes: a vector of floats */

/* Fixed point. A sub-ray's landing point is rounded to 1/ONE of a cell on
 * each axis (landing units), so that its cell (c0) and the fraction past it
 * (f, 0 <= f < ONE) are integers, and its bilinear shares are the integers
 * (ONE - fx)(ONE - fy), fx (ONE - fy), (ONE - fx) fy and fx fy, whose sum
 * is ONE^2 exactly: every sub-ray brings ONE^2, every cell UNIT = 4 ONE^2
 * (light 1). The floor's light is the integer sum of the shares that reach
 * each cell, in uint32 additions that saturate at 2^32 - 1: saturating
 * additions of numbers >= 0 give min(sum, 2^32 - 1) in any order, so the
 * sums, and the light (sum / UNIT as a float, exact below 2^24), do not
 * depend on the order of the sub-rays, the threads or the vectors that add
 * them. Saturation needs light 2^32 / UNIT = 16384 in one cell: a sub-ray
 * enters 1/4 of a cell from its cell's centre and moves at most `depth` +
 * 1/(2 ONE) cells on each axis (reach_factor, shift_units), and clamping at
 * an edge only brings it nearer its cell (inside the grid), so its four
 * cells are within depth + 1.26 of its own: a floor cell receives from at
 * most 2 ceil(depth) + 3 cells on each axis (fewer on a narrower grid),
 * each bringing light 1, (2 ceil(depth) + 3)^2 < 16384 for a floor up to 62
 * cells deep, which cannot saturate; a deeper one saturates only where
 * more than 16384 cells' light meets in one cell.
 * Against float shares summed in float, rounding the landing point moves
 * it by at most 1/(2 ONE) of a cell on each axis. */

/* The helpers below are always_inline: GCC inlines a plain inline function
 * only into a caller of the same tuning, and the AVX2 passes
 * (RENDER_ROWS_PASS's tune=haswell) would otherwise call them one value at
 * a time, which keeps the landing loop from being vectorised there. */
static inline __attribute__((always_inline)) uint64_t wget(const unsigned char *set, size_t i)
{
    uint64_t v;
    memcpy(&v, set + 8 * i, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void wput(unsigned char *set, size_t i, uint64_t v)
{
    memcpy(set + 8 * i, &v, sizeof v);
}

static inline __attribute__((always_inline)) void set_bit(unsigned char *set, size_t x)
{
    wput(set, x / 64, wget(set, x / 64) | (uint64_t)1 << (x % 64));
}

static inline __attribute__((always_inline)) bool get_bit(const unsigned char *set, size_t x)
{
    return wget(set, x / 64) >> (x % 64) & 1;
}

static inline __attribute__((always_inline)) void add_sat(uint32_t *a, uint32_t v)
{
    uint32_t s;
    *a = __builtin_add_overflow(*a, v, &s) ? UINT32_MAX : s;
}

/* What the gather knows of a frame. Scratch (CAUSTICS_SCRATCH floats): two
 * bit sets of nw 64-bit words a row (bit x of word x / 64: cell x), nz (the
 * cells with a slope other than zero) and moved (the cells on the grid's
 * edge and those with a nonzero slope among the 3 x 3 around them), then
 * nw bytes a row marking the runs of light 1 (light_row). The floor's light
 * is summed as uint32 in the light plane itself (acc) and turned into
 * floats row by row once a row's sum is complete. */
struct gather_job {
    const float *gx, *gy;
    int w, h, nw;
    float depth;
    const float *depths;   /* per cell (render.depth_map), or NULL: `depth` everywhere */
    bool wrap_x, wrap_y;
    bool fast;             /* one depth, smaller than the grid: the landing blocks (land_block) */
    bool sat;              /* a floor cell's sum may reach 2^32: the blocks' additions saturate */
    unsigned char *nz, *moved;
    unsigned char *still;  /* light_row's marks of the runs of light 1, nw bytes a row */
    uint32_t *acc;
    int reach, chunks, phase;
};

/* ---- the plain gather: every sub-ray, one after another ---------------- */

/* A refracted ray straight down, i = (0, 0, -1), at the unit normal
 * n = (-ax, -ay, 1) / sqrt(1 + r), r = ax^2 + ay^2, is t = eta i + (eta cos_i
 * - sqrt(k)) n with cos_i = n.z and k = 1 - eta^2 (1 - cos_i^2) (Snell's law
 * in vector form; k > 0 always from air into water). It meets the floor d
 * below at (ax, ay) times d (q - eta) / (q + eta r) from where it entered,
 * q = sqrt(1 + (1 - eta^2) r) (t's x over -t's z, multiplied through by
 * (1 + r) / cos_i): one square root and one division. That factor falls
 * from (1 - eta) at r = 0; the ray leans at most 90 - 48.6 degrees (water's
 * critical angle) from the vertical, so it moves less than d on each axis.
 * The water's own height is small against d and left out. */
static inline __attribute__((always_inline)) float reach_factor(float ax, float ay, float d)
{
    const float r = ax * ax + ay * ay, q = sqrtf(1.0f + (1.0f - ETA * ETA) * r);
    return d * (q - ETA) / (q + ETA * r);
}

/* One axis's displacement a f in landing units, rounded half away from
 * zero, held within +-dm (d ONE: the bound above; a NaN gives -dm) and
 * within +-2^30 (a depth map's cells may be any finite depth), so that a
 * landing coordinate stays an int32. */
static inline __attribute__((always_inline)) int32_t shift_units(float a, float f, float dm)
{
    float v = a * f * (float)ONE;
    dm = dm < 0x1p30f ? dm : 0x1p30f;
    v = v > -dm ? v : -dm;
    v = v < dm ? v : dm;
    return (int32_t)(v + (v < 0.0f ? -0.5f : 0.5f));
}

/* Landing coordinate p (landing units) on an axis of n cells, wrapped or
 * clamped to the last cell: its cells c0, c1 and c1's weight f (of ONE).
 * |p| < 2^31: p is within n ONE + 2^30 + 65 (n <= 16384). */
static inline __attribute__((always_inline)) void cut_axis(int32_t p, int n, bool wrap, int32_t *c0, int32_t *c1, int32_t *f)
{
    const int32_t span = n * ONE;
    if (wrap) {
        p %= span;
        p += p < 0 ? span : 0;
    } else {
        p = p < 0 ? 0 : p > span - ONE ? span - ONE : p;
    }
    *c0 = p >> FB;
    *f = p & (ONE - 1);
    *c1 = *c0 + 1 < n ? *c0 + 1 : wrap ? 0 : *c0;
}

/* Cell (x, y)'s SUB SUB sub-rays, entering at x -+ 1/4, y -+ 1/4 with the
 * slopes (and depth) read there bilinearly (grid_at), added to acc. still:
 * the slopes it reads (those of the 3 x 3 cells around it inside the grid)
 * are all zero, so that each ray's shift is 0 (shift_units of +-0 at any
 * finite depth) and is not computed. */
static inline __attribute__((always_inline)) void splat_any(const struct gather_job *j, int x, int y, uint32_t *acc,
                                                            bool still)
{
    const int w = j->w, h = j->h;
    for (int sy = 0; sy < SUB; sy++)
        for (int sx = 0; sx < SUB; sx++) {
            int32_t mx = 0, my = 0;
            if (!still) {
                const float px = (float)x + ((float)sx + 0.5f) / SUB - 0.5f;
                const float py = (float)y + ((float)sy + 0.5f) / SUB - 0.5f;
                const float ax = grid_at(j->gx, w, h, px, py), ay = grid_at(j->gy, w, h, px, py);
                const float d = j->depths ? grid_at(j->depths, w, h, px, py) : j->depth;
                const float f = reach_factor(ax, ay, d), dm = d * (float)ONE;
                mx = shift_units(ax, f, dm);
                my = shift_units(ay, f, dm);
            }
            int32_t x0, x1, fx, y0, y1, fy;
            cut_axis(x * ONE + (2 * sx - 1) * (ONE / 4) + mx, w, j->wrap_x, &x0, &x1, &fx);
            cut_axis(y * ONE + (2 * sy - 1) * (ONE / 4) + my, h, j->wrap_y, &y0, &y1, &fy);
            uint32_t *r0 = acc + (size_t)y0 * w, *r1 = acc + (size_t)y1 * w;
            add_sat(r0 + x0, (uint32_t)((ONE - fx) * (ONE - fy)));
            add_sat(r0 + x1, (uint32_t)(fx * (ONE - fy)));
            add_sat(r1 + x0, (uint32_t)((ONE - fx) * fy));
            add_sat(r1 + x1, (uint32_t)(fx * fy));
        }
}

static void splat_cell(const struct gather_job *j, int x, int y, uint32_t *acc)
{
    splat_any(j, x, y, acc, false);
}

/* Row y of acc (complete) into the light's floats, in place, and, with
 * still not NULL, still[q] 1 where cells 64 q .. 64 q + 63 all have light 1
 * (sum UNIT: the only sum whose float is 1, sums being exact below 2^24),
 * else 0: what caustics_row reads instead of the light there. */
static inline __attribute__((always_inline)) void light_row(uint32_t *acc, int w, int y, unsigned char *still)
{
    uint32_t *a = acc + (size_t)y * w;
    if (!still) {
        for (int x = 0; x < w; x++) {
            const float l = (float)a[x] * (1.0f / (float)UNIT);
            memcpy(a + x, &l, sizeof l);
        }
        return;
    }
    for (int x0 = 0; x0 < w; x0 += 64) {
        const int n = w - x0 < 64 ? w - x0 : 64;
        uint32_t off = 0;
        for (int x = x0; x < x0 + n; x++) {
            off |= a[x] ^ UNIT;
            const float l = (float)a[x] * (1.0f / (float)UNIT);
            memcpy(a + x, &l, sizeof l);
        }
        still[x0 / 64] = n == 64 && !off;
    }
}

void caustics_gather_plain(const float *gx, const float *gy, int w, int h, float depth, const float *depths,
                           bool wrap_x, bool wrap_y, float *light)
{
    struct gather_job j = { .gx = gx, .gy = gy, .w = w, .h = h, .depth = depth, .depths = depths,
                            .wrap_x = wrap_x, .wrap_y = wrap_y };
    uint32_t *acc = (uint32_t *)(void *)light;
    memset(acc, 0, (size_t)w * h * sizeof *acc);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            splat_cell(&j, x, y, acc);
    for (int y = 0; y < h; y++)
        light_row(acc, w, y, NULL);
}

/* ---- the fast gather: the same sums ------------------------------------ */

/* Still water. A sub-ray whose interpolated slopes are both zero (of either
 * sign) moves by shift_units 0 exactly, and lands at x -+ 1/4, y -+ 1/4. A
 * cell's sub-rays read the slopes of the 3 x 3 cells around it; where all
 * nine are zero and the cell is not on the grid's edge (no clamp, no wrap)
 * the cell is still and its shares are fixed: on each axis ONE/4 to the
 * cell before, 6 ONE/4 to its own, ONE/4 to the one after, so that floor
 * cell X receives from still cell S the product of the two axes' weights,
 * (1, 6, 1) x (1, 6, 1) ONE^2 / 16 for S - X = (-1, 0, 1): UNIT in all when
 * its nine neighbours are still. The fast gather starts each floor row from
 * these sums of its still neighbours (still_row) and adds the sub-rays of
 * the moved cells only (on the edge, or next to a nonzero slope): the same
 * integers as splat_cell over every cell. */

/* Row `out` of a bit set: the cells with a set bit among the 3 x 3 around
 * them in rows r0, r1, r2 (nw words each), cells past w clear. */
static void near3(const unsigned char *r0, const unsigned char *r1, const unsigned char *r2, int w,
                  unsigned char *out)
{
    const int nw = (w + 63) / 64;
    uint64_t prev = 0, c = wget(r0, 0) | wget(r1, 0) | wget(r2, 0);
    for (int k = 0; k < nw; k++) {
        uint64_t next = k + 1 < nw ? wget(r0, (size_t)k + 1) | wget(r1, (size_t)k + 1) | wget(r2, (size_t)k + 1) : 0;
        uint64_t v = c | c << 1 | c >> 1 | prev >> 63 | next << 63;
        if (k == nw - 1 && w % 64)
            v &= ((uint64_t)1 << (w % 64)) - 1;
        wput(out, (size_t)k, v);
        prev = c;
        c = next;
    }
}

/* Row `out` all cells. */
static void fill_row(unsigned char *out, int w)
{
    const int nw = (w + 63) / 64;
    for (int k = 0; k < nw; k++)
        wput(out, (size_t)k, ~(uint64_t)0);
    if (w % 64)
        wput(out, (size_t)nw - 1, ((uint64_t)1 << (w % 64)) - 1);
}

/* Rows lo..hi-1 of nz from the slopes: bit x where slope x or y is other
 * than zero (a float is zero, +0 or -0, when its bits other than the sign
 * are). */
static void nz_rows(void *arg, int lo, int hi)
{
    const struct gather_job *j = arg;
    const int w = j->w;
    for (int y = lo; y < hi; y++) {
        const float *a = j->gx + (size_t)y * w, *b = j->gy + (size_t)y * w;
        unsigned char *out = j->nz + (size_t)y * j->nw * 8;
        for (int k = 0; k < j->nw; k++) {
            uint64_t v = 0;
            for (int i = 0; i < 64 && 64 * k + i < w; i++) {
                uint32_t u, t;
                memcpy(&u, a + 64 * k + i, 4);
                memcpy(&t, b + 64 * k + i, 4);
                v |= (uint64_t)(((u | t) & 0x7fffffffu) != 0) << i;
            }
            wput(out, (size_t)k, v);
        }
    }
}

/* Rows lo..hi-1 of the moved set. */
static void moved_rows(void *arg, int lo, int hi)
{
    const struct gather_job *j = arg;
    const int w = j->w, h = j->h;
    const size_t rw = (size_t)j->nw * 8;
    for (int y = lo; y < hi; y++) {
        unsigned char *out = j->moved + (size_t)y * rw;
        if (y == 0 || y == h - 1 || w < 3) {
            fill_row(out, w);
            continue;
        }
        const unsigned char *nz = j->nz + (size_t)y * rw;
        near3(nz - rw, nz, nz + rw, w, out);
        set_bit(out, 0);
        set_bit(out, (size_t)w - 1);
    }
}

/* Byte i of spread[b]: bit i of b. */
static uint64_t spread[256];

static void spread_init(void)
{
    for (int b = 0; b < 256; b++) {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v |= (uint64_t)(b >> i & 1) << (8 * i);
        spread[b] = v;
    }
}

/* Floor row y's sums from its still neighbours (above): UNIT where all nine
 * are still, else (1, 6, 1) x (1, 6, 1) ONE^2 / 16 over the still ones (cells
 * off the grid are none), 64 cells (a word) at a time: the still cells of
 * rows y - 1, y, y + 1 and the columns either side as bytes (0 or 1), their
 * weighted column sums v (at most 8), then v[x - 1] + 6 v[x] + v[x + 1]. */
static inline __attribute__((always_inline)) void still_row(const struct gather_job *j, int y)
{
    const int w = j->w, h = j->h, nw = j->nw;
    const size_t rw = (size_t)nw * 8;
    uint32_t *a = j->acc + (size_t)y * w;
    const unsigned char *row[3];
    for (int d = 0; d < 3; d++)
        row[d] = y - 1 + d >= 0 && y - 1 + d < h ? j->moved + (size_t)(y - 1 + d) * rw : NULL;
    for (int q = 0; q < nw; q++) {
        const int x0 = 64 * q, n = w - x0 < 64 ? w - x0 : 64;
        /* Bits 0..65 of each row: columns x0 - 1 .. x0 + 64, still ones set. */
        uint64_t st[3], lo[3], hi[3], any = 0;
        for (int d = 0; d < 3; d++) {
            if (!row[d]) {
                st[d] = lo[d] = hi[d] = 0;
                continue;
            }
            const uint64_t m = wget(row[d], (size_t)q);
            st[d] = ~m & (n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1);
            lo[d] = q > 0 ? ~wget(row[d], (size_t)q - 1) >> 63 : 0;
            hi[d] = q + 1 < nw ? ~wget(row[d], (size_t)q + 1) & 1 : 0;
            any |= ~st[d] | (lo[d] ^ 1) | (hi[d] ^ 1);
        }
        if (!any) {   /* n is 64: a cell past w or off the grid is not still */
            for (int i = 0; i < 64; i++)
                a[x0 + i] = UNIT;
            continue;
        }
        uint8_t v[66];
        memset(v, 0, sizeof v);
        for (int d = 0; d < 3; d++) {
            uint8_t b[64];
            for (int k = 0; k < 8; k++) {
                const uint64_t e = spread[st[d] >> (8 * k) & 0xff];
                memcpy(b + 8 * k, &e, 8);
            }
            const uint8_t kd = d == 1 ? 6 : 1;
            for (int i = 0; i < 64; i++)
                v[i + 1] += (uint8_t)(kd * b[i]);
            v[0] += (uint8_t)(kd * lo[d]);
            v[65] += (uint8_t)(kd * hi[d]);
        }
        uint32_t o[64];
        for (int i = 0; i < 64; i++)
            o[i] = (uint32_t)(v[i] + 6 * v[i + 1] + v[i + 2]) << (2 * FB - 4);
        memcpy(a + x0, o, (size_t)n * sizeof *o);
    }
}

/* The sub-rays of a block of n cells of row y, columns a..a+n-1 (1 <= a,
 * a + n <= w - 1: not the first or last), one depth: where each lands,
 * its four cells (as indexes into the floor) and shares, by sub-ray
 * s = SUB sy + sx and corner (r0 x0, r0 x1, r1 x0, r1 x1). A sub-ray sits a
 * quarter cell left (sx 0) or right (sx 1) of the cell's centre, so grid_at
 * reads cells x-1, x at fx 0.75 and x, x+1 at fx 0.25: the loop makes
 * grid_at's very operations without its clamps on x (its rows as it takes
 * them), and the others of
 * splat_cell, lane by lane (an edge wrapped at most once: depth + 1 < the
 * grid's size), so that it vectorises. The same integers as splat_cell,
 * except that the shares of the columns whose bit in `bits` is clear (not
 * moved, or landed by the block before) are 0: adding them adds nothing,
 * which lets add_block run over all sixteen columns without a mask a
 * share. */
struct block {
    int32_t i[SUB * SUB][4][BLOCK];
    uint32_t s[SUB * SUB][4][BLOCK];
};

static inline __attribute__((always_inline)) void cut_once(int32_t p, int n, bool wrap, int32_t *c0, int32_t *c1,
                                                           int32_t *f)
{
    const int32_t span = n * ONE;
    if (wrap) {
        p += p < 0 ? span : 0;
        p -= p >= span ? span : 0;
    } else {
        p = p < 0 ? 0 : p;
        p = p > span - ONE ? span - ONE : p;
    }
    *c0 = p >> FB;
    *f = p & (ONE - 1);
    *c1 = *c0 + 1 < n ? *c0 + 1 : wrap ? 0 : *c0;
}

/* A sub-ray landed at (px, py) into block o: its four cells and shares.
 * inner: the block's landing points all lie in [0, (n - 1) ONE) on both
 * axes (land_any's test), where cut_once neither clamps nor wraps and c1 is
 * c0 + 1, so that the cells are the one at (x0, y0) and its neighbours to
 * the right and below. The shares on a row sum to ONE times that row's
 * weight, (ONE - fy) ONE and fy ONE, which gives the second of each row
 * from the first without a multiplication. */
static inline __attribute__((always_inline)) void put_ray(struct block *restrict o, int s, int i, int w, int32_t px,
                                                          int32_t py, const struct gather_job *j, bool wx, bool wy,
                                                          bool inner, uint32_t keep)
{
    int32_t x0, x1, fx, y0, y1, fy;
    if (inner) {
        x0 = px >> FB;
        fx = px & (ONE - 1);
        y0 = py >> FB;
        fy = py & (ONE - 1);
        const int32_t c = y0 * w + x0;
        o->i[s][0][i] = c;
        o->i[s][1][i] = c + 1;
        o->i[s][2][i] = c + w;
        o->i[s][3][i] = c + w + 1;
    } else {
        cut_once(px, w, wx, &x0, &x1, &fx);
        cut_once(py, j->h, wy, &y0, &y1, &fy);
        o->i[s][0][i] = y0 * w + x0;
        o->i[s][1][i] = y0 * w + x1;
        o->i[s][2][i] = y1 * w + x0;
        o->i[s][3][i] = y1 * w + x1;
    }
    const int32_t s0 = (ONE - fx) * (ONE - fy), s2 = (ONE - fx) * fy;
    o->s[s][0][i] = (uint32_t)s0 & keep;
    o->s[s][1][i] = (uint32_t)((ONE - fy) * ONE - s0) & keep;
    o->s[s][2][i] = (uint32_t)s2 & keep;
    o->s[s][3][i] = (uint32_t)(fy * ONE - s2) & keep;
}

/* Sub-rays s = SUB sy and SUB sy + 1 of cell (x / ONE, y) (x in landing
 * units) in lane i, at the slopes (axl, ayl) and (axr, ayr) read under
 * them: their shifts and cells (put_ray). */
static inline __attribute__((always_inline)) void land_rays(const struct gather_job *j, struct block *restrict o,
                                                            int y, int sy, int i, int32_t x, float axl, float ayl,
                                                            float axr, float ayr, bool wx, bool wy, bool inner,
                                                            uint32_t keep)
{
    const int w = j->w;
    const float d = j->depth, dm = d * (float)ONE;
    const int32_t qy = y * ONE + (2 * sy - 1) * (ONE / 4);
    const float fl = reach_factor(axl, ayl, d), fr = reach_factor(axr, ayr, d);
    put_ray(o, SUB * sy, i, w, x - ONE / 4 + shift_units(axl, fl, dm), qy + shift_units(ayl, fl, dm), j, wx, wy, inner,
            keep);
    put_ray(o, SUB * sy + 1, i, w, x + ONE / 4 + shift_units(axr, fr, dm), qy + shift_units(ayr, fr, dm), j, wx, wy,
            inner, keep);
}

/* land_block of a block whose landing points stay inside (land_any's
 * inner): row y is neither the first nor the last, so that grid_at reads
 * rows y - 1 and y at fy 0.75 for sy 0 and rows y and y + 1 at fy 0.25 for
 * sy 1 (exactly: y -+ 1/4 are floats), and row y's interpolations along x
 * serve both. The same operations, and bits, as land_block's. */
static inline __attribute__((always_inline)) void land_inner(const struct gather_job *j, int y, int a, uint32_t bits,
                                                             struct block *restrict o)
{
    const size_t w = (size_t)j->w;
    const float *restrict x0 = j->gx + (y - 1) * w + a, *restrict x1 = x0 + w, *restrict x2 = x1 + w;
    const float *restrict y0 = j->gy + (y - 1) * w + a, *restrict y1 = y0 + w, *restrict y2 = y1 + w;
    float ml[BLOCK], mr[BLOCK], nl[BLOCK], nr[BLOCK];   /* row y's along x: gx left, right, gy left, right */
    for (int i = 0; i < BLOCK; i++) {
        const float tl = x0[i - 1] + (x0[i] - x0[i - 1]) * 0.75f, ul = y0[i - 1] + (y0[i] - y0[i - 1]) * 0.75f;
        const float tr = x0[i] + (x0[i + 1] - x0[i]) * 0.25f, ur = y0[i] + (y0[i + 1] - y0[i]) * 0.25f;
        const float bl = x1[i - 1] + (x1[i] - x1[i - 1]) * 0.75f, vl = y1[i - 1] + (y1[i] - y1[i - 1]) * 0.75f;
        const float br = x1[i] + (x1[i + 1] - x1[i]) * 0.25f, vr = y1[i] + (y1[i + 1] - y1[i]) * 0.25f;
        ml[i] = bl;
        mr[i] = br;
        nl[i] = vl;
        nr[i] = vr;
        const float fy = 0.75f;
        land_rays(j, o, y, 0, i, (a + i) * ONE, tl + (bl - tl) * fy, ul + (vl - ul) * fy, tr + (br - tr) * fy,
                  ur + (vr - ur) * fy, false, false, true, 0u - (bits >> i & 1));
    }
    for (int i = 0; i < BLOCK; i++) {
        const float tl = ml[i], ul = nl[i], tr = mr[i], ur = nr[i];
        const float bl = x2[i - 1] + (x2[i] - x2[i - 1]) * 0.75f, vl = y2[i - 1] + (y2[i] - y2[i - 1]) * 0.75f;
        const float br = x2[i] + (x2[i + 1] - x2[i]) * 0.25f, vr = y2[i] + (y2[i + 1] - y2[i]) * 0.25f;
        const float fy = 0.25f;
        land_rays(j, o, y, 1, i, (a + i) * ONE, tl + (bl - tl) * fy, ul + (vl - ul) * fy, tr + (br - tr) * fy,
                  ur + (vr - ur) * fy, false, false, true, 0u - (bits >> i & 1));
    }
}

static inline __attribute__((always_inline)) void land_block(const struct gather_job *j, int y, int a, int n, bool wx,
                                                             bool wy, uint32_t bits, struct block *restrict o)
{
    const int w = j->w;
    for (int sy = 0; sy < SUB; sy++) {
        /* py = y -+ 1/4: rows y0, y1 at fy, as grid_at takes them */
        const float py = (float)y + ((float)sy + 0.5f) / SUB - 0.5f;
        const float cy = py < 0.0f ? 0.0f : py > (float)(j->h - 1) ? (float)(j->h - 1) : py;
        const int y0 = (int)cy, y1 = y0 + 1 < j->h ? y0 + 1 : y0;
        const float fy = cy - (float)y0;
        const float *restrict x0r = j->gx + (size_t)y0 * w + a, *restrict x1r = j->gx + (size_t)y1 * w + a;
        const float *restrict y0r = j->gy + (size_t)y0 * w + a, *restrict y1r = j->gy + (size_t)y1 * w + a;
        for (int i = 0; i < n; i++) {
            const float tl = x0r[i - 1] + (x0r[i] - x0r[i - 1]) * 0.75f, bl = x1r[i - 1] + (x1r[i] - x1r[i - 1]) * 0.75f;
            const float ul = y0r[i - 1] + (y0r[i] - y0r[i - 1]) * 0.75f, vl = y1r[i - 1] + (y1r[i] - y1r[i - 1]) * 0.75f;
            const float tr = x0r[i] + (x0r[i + 1] - x0r[i]) * 0.25f, br = x1r[i] + (x1r[i + 1] - x1r[i]) * 0.25f;
            const float ur = y0r[i] + (y0r[i + 1] - y0r[i]) * 0.25f, vr = y1r[i] + (y1r[i + 1] - y1r[i]) * 0.25f;
            land_rays(j, o, y, sy, i, (a + i) * ONE, tl + (bl - tl) * fy, ul + (vl - ul) * fy,
                      tr + (br - tr) * fy, ur + (vr - ur) * fy, wx, wy, false, 0u - (bits >> i & 1));
        }
    }
}

/* land_block with the edge kinds taken out of the loop, n BLOCK (a whole
 * number of vectors) or fewer. */
static inline __attribute__((always_inline)) void land_any(const struct gather_job *j, int y, int a, int n,
                                                           uint32_t bits, struct block *restrict o)
{
    /* A landing point moves at most d ONE + 1/2 (shift_units) from
     * x ONE -+ ONE/4, and rd = ceil(d) + 1 cells is more than d + 1/4 +
     * 1/512: a block whose columns a .. a + 15 and row y are at least rd
     * cells from the grid's first and last lands inside [0, (n - 1) ONE) on
     * both axes (land_inner: no clamp, no wrap, the second cell the next). */
    const int rd = j->reach - 1;
    if (n == BLOCK && a >= rd && a + BLOCK + rd <= j->w && y >= rd && y + rd <= j->h - 1)
        land_inner(j, y, a, bits, o);
    else if (n < BLOCK)
        land_block(j, y, a, n, j->wrap_x, j->wrap_y, bits, o);
    else if (!j->wrap_x && !j->wrap_y)
        land_block(j, y, a, BLOCK, false, false, bits, o);
    else if (j->wrap_x && j->wrap_y)
        land_block(j, y, a, BLOCK, true, true, bits, o);
    else if (j->wrap_x)
        land_block(j, y, a, BLOCK, true, false, bits, o);
    else
        land_block(j, y, a, BLOCK, false, true, bits, o);
}

/* A landed block's shares added to acc: the cells of bits mg (bit i: block
 * column i), or all sixteen (all: no bits to walk). sat
 * false where no sum can reach 2^32 (gather_job's `sat`): plain additions,
 * the same integers as add_sat's. */
static inline __attribute__((always_inline)) void add_block(const struct gather_job *j,
                                                            const struct block *restrict blk, uint64_t mg,
                                                            bool all, bool sat)
{
    if (all || (!sat && j->w >= BLOCK + 2)) {
        /* Sixteen columns landed (the grid is wide enough): the unmoved
         * ones' shares are 0 (land_block), adding nothing, rather than the
         * moved bits walked for each of the sixteen share rows. */
        for (int s = 0; s < SUB * SUB; s++)
            for (int c = 0; c < 4; c++)
                for (int i = 0; i < BLOCK; i++) {
                    uint32_t *p = j->acc + blk->i[s][c][i];
                    if (sat)
                        add_sat(p, blk->s[s][c][i]);
                    else
                        *p += blk->s[s][c][i];
                }
        return;
    }
    for (int s = 0; s < SUB * SUB; s++)
        for (int c = 0; c < 4; c++)
            for (uint64_t u = mg; u; u &= u - 1) {
                const int i = __builtin_ctzll(u);
                uint32_t *p = j->acc + blk->i[s][c][i];
                if (sat)
                    add_sat(p, blk->s[s][c][i]);
                else
                    *p += blk->s[s][c][i];
            }
}

/* Cell (x, y) of the first or last column (moved: its rays are clamped or
 * wrapped there), splatted as splat_cell does, its shifts not computed where
 * the slopes around it are all zero (nz: still water by the edge). */
static void edge_cell(const struct gather_job *j, int x, int y)
{
    const size_t rw = (size_t)j->nw * 8;
    const int xa = x > 0 ? x - 1 : 0, xb = x + 1 < j->w ? x + 1 : x;
    bool still = true;
    for (int r = y > 0 ? y - 1 : 0; r <= (y + 1 < j->h ? y + 1 : y); r++)
        for (int c = xa; c <= xb; c++)
            still &= !get_bit(j->nz + (size_t)r * rw, (size_t)c);
    splat_any(j, x, y, j->acc, still);
}

/* Source row y's moved cells, their shares added to acc. */
static inline __attribute__((always_inline)) void splat_row(const struct gather_job *j, int y, struct block *blk)
{
    const int w = j->w, nw = j->nw;
    const unsigned char *mv = j->moved + (size_t)y * nw * 8;
    if (!j->fast) {
        for (int k = 0; k < nw; k++)
            for (uint64_t m = wget(mv, (size_t)k); m; m &= m - 1)
                splat_cell(j, 64 * k + __builtin_ctzll(m), y, j->acc);
        return;
    }
    /* The first and last columns: grid_at's clamps. */
    if (wget(mv, 0) & 1)
        edge_cell(j, 0, y);
    if (get_bit(mv, (size_t)w - 1))
        edge_cell(j, w - 1, y);
    /* Sixteen columns at a time from the next moved one (all of them when
     * the grid is narrower), kept inside 1 .. w - 2: a block starts at a
     * moved cell, so that a run of moved cells takes as few blocks as its
     * length allows. Columns before x are done. */
    for (int x = 1; x < w - 1;) {
        int k = x / 64;
        uint64_t m = wget(mv, (size_t)k) & ~(uint64_t)0 << (x % 64);
        while (!m && ++k < nw)
            m = wget(mv, (size_t)k);
        if (!m)
            break;
        const int c = 64 * k + __builtin_ctzll(m);
        if (c >= w - 1)
            break;
        /* A cell after a multiple of sixteen starts there (the column
         * before it done, or still): within a long run the blocks keep
         * to whole cache lines of the slopes. */
        const int c16 = c % 16 == 1 ? c - 1 : c;
        const int a = w < 18 ? 1 : c16 + 16 > w - 1 ? w - 17 : c16 < 1 ? 1 : c16, n = w < 18 ? w - 2 : BLOCK;
        /* Block columns 0 .. n - 1 that moved and are not done. */
        const int q = a / 64, off = a % 64;
        uint64_t bits = wget(mv, (size_t)q) >> off;
        if (off && q + 1 < nw)
            bits |= wget(mv, (size_t)q + 1) << (64 - off);
        bits &= ((uint64_t)1 << n) - 1;
        if (x > a)
            bits &= ~(((uint64_t)1 << (x - a)) - 1);
        x = a + n;
        if (y + 3 < j->h) {   /* the slopes row y + 2's blocks here will read: most move there too */
            __builtin_prefetch(j->gx + (size_t)(y + 3) * w + a);
            __builtin_prefetch(j->gy + (size_t)(y + 3) * w + a);
        }
        land_any(j, y, a, n, (uint32_t)bits, blk);
        /* Share by share over the block's cells, whose cells differ
         * more often than a sub-ray's own four: fewer additions wait
         * on the one before. */
        const bool all = bits == 0xffff && n == BLOCK;
        if (j->sat)
            add_block(j, blk, bits, all, true);
        else
            add_block(j, blk, bits, all, false);
    }
}

/* Floor rows lo..hi-1 (mod h on a wrapped axis, else those inside the
 * grid): their still sums (init) or their floats (else). */
static inline __attribute__((always_inline)) void floor_rows(const struct gather_job *j, int lo, int hi, bool init)
{
    for (int r = lo; r < hi; r++) {
        int y = r;
        if (j->wrap_y)
            y = (r % j->h + j->h) % j->h;
        else if (r < 0 || r >= j->h)
            continue;
        if (init)
            still_row(j, y);
        else
            light_row(j->acc, j->w, y, j->still + (size_t)y * j->nw);
    }
}

/* Chunks. Source row y's sub-rays land on floor rows y - reach .. y + reach
 * (reach = ceil(depth) + 2 > the most a sub-ray moves and its bilinear
 * cell after). The source rows are cut into `chunks` chunks of at least
 * 2 reach rows each (an even number on a wrapped axis), taken in two
 * phases: the even chunks, then the odd ones. Two chunks of one phase are
 * at least a chunk apart, so the floor rows they reach are apart: in each
 * phase the chunks run at once on the threads, each adding into floor rows
 * no other touches. A chunk first starts the floor rows no earlier chunk
 * reached (still_row) and last turns into floats those that no later one
 * reaches: an even chunk s..e-1 starts s - reach .. e + reach - 1 and ends
 * s + reach .. e - reach - 1, an odd one starts s + reach .. e - reach - 1
 * and ends s - reach .. e + reach - 1 (at the grid's ends on a clamped
 * axis, the rows beyond are its own). */
static int chunk_start(const struct gather_job *j, int c)
{
    return (int)((long)c * j->h / j->chunks);
}

static inline __attribute__((always_inline)) void chunk_body(const struct gather_job *j, int lo, int hi)
{
    struct block blk;
    for (int i = lo; i < hi; i++) {
        const int c = 2 * i + j->phase, s = chunk_start(j, c), e = chunk_start(j, c + 1), r = j->reach;
        const bool open_lo = c == 0 && !j->wrap_y, open_hi = c == j->chunks - 1 && !j->wrap_y;
        if (j->chunks == 1) {
            floor_rows(j, 0, j->h, true);
            for (int y = 0; y < j->h; y++)
                splat_row(j, y, &blk);
            floor_rows(j, 0, j->h, false);
            continue;
        }
        /* The rows to start, [ia, ib), and to end, [ea, eb) (unwrapped): each
         * started just before source row y - reach can first reach it, each
         * ended once source row y + reach, the first that cannot, is next,
         * so that the rows between stay in cache. */
        const int ia = j->phase ? s + r : s - r, ib = j->phase ? (open_hi ? e : e - r) : e + r;
        const int ea = j->phase ? s - r : open_lo ? s : s + r, eb = j->phase ? e + r : open_hi ? e : e - r;
        int ni = ia, ne = ea;
        for (int y = s; y < e; y++) {
            for (; ni < ib && ni <= y + r; ni++)
                floor_rows(j, ni, ni + 1, true);
            splat_row(j, y, &blk);
            for (; ne < eb && ne <= y + 1 - r; ne++)
                floor_rows(j, ne, ne + 1, false);
        }
        floor_rows(j, ni, ib, true);
        floor_rows(j, ne, eb, false);
    }
}

RENDER_ROWS_PASS(chunk_rows, chunk_body, struct gather_job)

/* team_for with the chunks claimed: body(arg, lo, hi) over [0, n) in
 * chunks of `rows`, each thread taking the next one left when done with
 * its last, so that a thread the machine slows (or a chunk with more moving
 * water) does not hold the others up. The passes' results do not depend on
 * how their rows are cut. */
struct claim {
    team_body body;
    void *arg;
    int n, rows, next;
};

static void claim_chunks(void *arg, int t, int nt)
{
    (void)t;
    (void)nt;
    struct claim *c = arg;
    for (;;) {
        const int lo = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED) * c->rows;
        if (lo >= c->n)
            return;
        c->body(c->arg, lo, lo + c->rows < c->n ? lo + c->rows : c->n);
    }
}

static void team_claim(int n, int nt, int rows, team_body body, void *arg)
{
    struct claim c = { .body = body, .arg = arg, .n = n, .rows = rows > 0 ? rows : 1, .next = 0 };
    if (nt <= 1 || n <= rows)
        body(arg, 0, n);
    else
        team_run(nt, claim_chunks, &c);
}

/* The chunks of both phases on the threads without a wait between the
 * phases: tickets 0 .. chunks - 1 give the even chunks first, then the odd
 * ones in order, and an odd chunk starts once the even chunks either side
 * of it (the only ones adding into its floor rows) are done; an even chunk
 * waits for nothing. A thread done with the last even chunks it took goes
 * on with odd chunks whose neighbours are done instead of waiting for the
 * slowest even chunk. The chunks' sums do not depend on their order. */
#define MAX_CHUNKS 1024   /* h / 16 for a grid up to 16384 rows */

struct phased {
    const struct gather_job *j;
    int next;
    unsigned char done[MAX_CHUNKS];
};

static void run_phased(void *arg, int t, int nt)
{
    (void)t;
    (void)nt;
    struct phased *p = arg;
    const int chunks = p->j->chunks, even = (chunks + 1) / 2;
    for (;;) {
        const int k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (k >= chunks)
            return;
        const int c = k < even ? 2 * k : 2 * (k - even) + 1;
        if (c % 2) {
            const int lo = c - 1, hi = c + 1 < chunks ? c + 1 : p->j->wrap_y ? 0 : c - 1;
            while (!__atomic_load_n(&p->done[lo], __ATOMIC_ACQUIRE) || !__atomic_load_n(&p->done[hi], __ATOMIC_ACQUIRE))
                sched_yield();
        }
        struct gather_job jc = *p->j;
        jc.phase = c % 2;
        chunk_rows(&jc, c / 2, c / 2 + 1);
        __atomic_store_n(&p->done[c], 1, __ATOMIC_RELEASE);
    }
}

/* The scratch's part k: the bit sets nz (0) and moved (1), the still runs (2). */
static unsigned char *scratch_set(float *at, int w, int h, int k)
{
    return (unsigned char *)at + (size_t)k * h * ((w + 63) / 64) * 8;
}

/* marked: nz holds the nonzero slopes already (caustics_prepare makes them
 * with the slopes, water_prepare_marked), not made from gx, gy. */
static void gather(const float *gx, const float *gy, int w, int h, float depth, const float *depths, bool wrap_x,
                   bool wrap_y, bool marked, float *restrict at, float *restrict light)
{
    float deepest = depth;
    if (depths) {
        deepest = 0.0f;
        for (size_t i = 0; i < (size_t)w * h; i++)
            deepest = depths[i] > deepest ? depths[i] : deepest;
    }
    struct gather_job j = { .gx = gx, .gy = gy, .w = w, .h = h, .nw = (w + 63) / 64, .depth = depth,
                            .depths = depths, .wrap_x = wrap_x, .wrap_y = wrap_y,
                            .fast = !depths && w >= 3 && depth + 1.0f < (float)w && depth + 1.0f < (float)h,
                            .sat = !(depth >= 0.0f && depth <= 62.0f),   /* the bound above the fixed point */
                            .nz = scratch_set(at, w, h, 0), .moved = scratch_set(at, w, h, 1),
                            .still = scratch_set(at, w, h, 2),
                            .acc = (uint32_t *)(void *)light };
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, spread_init);
    const int nt = team_threads_for((long)w * h, 16384);
    if (!marked)
        team_claim(h, nt, 16, nz_rows, &j);
    team_claim(h, nt, 16, moved_rows, &j);
    j.reach = deepest < (float)h ? (int)ceilf(deepest) + 2 : h;
    const int least = 2 * j.reach > 16 ? 2 * j.reach : 16;
    j.chunks = h / least;
    if (wrap_y && j.chunks % 2)
        j.chunks--;
    if (j.chunks < 2)
        j.chunks = 1;
    j.phase = 0;
    if (j.chunks > 1 && j.chunks <= MAX_CHUNKS && nt > 1) {
        struct phased p = { .j = &j, .next = 0 };
        team_run(nt, run_phased, &p);
        return;
    }
    team_claim((j.chunks + 1) / 2, nt, 1, chunk_rows, &j);
    if (j.chunks > 1) {
        j.phase = 1;
        team_claim(j.chunks / 2, nt, 1, chunk_rows, &j);
    }
}

const unsigned char *caustics_still_row(const float *at, int w, int h, int y)
{
    return scratch_set((float *)at, w, h, 2) + (size_t)y * ((w + 63) / 64);
}

void caustics_gather(const float *gx, const float *gy, int w, int h, float depth, bool wrap_x, bool wrap_y,
                     float *restrict at, float *restrict light)
{
    gather(gx, gy, w, h, depth, NULL, wrap_x, wrap_y, false, at, light);
}

/* With a depth map the floor's depth is read under the entry point: the rays
 * leave the surface near-vertically (at most water's critical angle, 48.6
 * degrees, and far less for ripples), so the floor's change of depth between
 * where a ray enters and where it lands is left out, as the water's own
 * height is. */
void caustics_gather_depths(const float *gx, const float *gy, int w, int h, const float *depths, bool wrap_x,
                            bool wrap_y, float *restrict at, float *restrict light)
{
    gather(gx, gy, w, h, 0.0f, depths, wrap_x, wrap_y, false, at, light);
}

/* colour = floor * light, and what goes past full brightness bleaches the
 * other channels toward white (a bright caustic line looks white-hot). The
 * channels one by one in the order of k = 0, 1, 2 and unit_round for lrintf
 * (the same integer, modes.h), so that the loop vectorises: the same values
 * as channel loops with libm's lrintf. */
static inline __attribute__((always_inline)) void tone_body(const struct water_look *lk, const float *restrict light,
                                                            const uint8_t *restrict floor_rgb, int w,
                                                            uint8_t *restrict rgb, uint16_t *restrict rgb16)
{
    const float f0 = lk->floor[0], f1 = lk->floor[1], f2 = lk->floor[2];
    for (int x = 0; x < w; x++) {
        float l = light[x];
        float b0 = floor_rgb ? (float)floor_rgb[3 * x] / 255.0f : f0;
        float b1 = floor_rgb ? (float)floor_rgb[3 * x + 1] / 255.0f : f1;
        float b2 = floor_rgb ? (float)floor_rgb[3 * x + 2] / 255.0f : f2;
        float c0 = b0 * l, c1 = b1 * l, c2 = b2 * l, over = 0.0f;
        over = c0 - 1.0f > over ? c0 - 1.0f : over;   /* fmaxf: no NaN here */
        over = c1 - 1.0f > over ? c1 - 1.0f : over;
        over = c2 - 1.0f > over ? c2 - 1.0f : over;
        float v0 = c0 + 0.5f * over, v1 = c1 + 0.5f * over, v2 = c2 + 0.5f * over;
        rgb[3 * x] = (uint8_t)unit_round(v0, 255.0f);   /* clamped to 0..1 inside */
        rgb[3 * x + 1] = (uint8_t)unit_round(v1, 255.0f);
        rgb[3 * x + 2] = (uint8_t)unit_round(v2, 255.0f);
        if (rgb16) {
            rgb16[3 * x] = unit_u16(v0);
            rgb16[3 * x + 1] = unit_u16(v1);
            rgb16[3 * x + 2] = unit_u16(v2);
        }
    }
}

/* Still floor. Light 1 (what still water sends, and floor rows far from
 * moving water get) makes tone_body's colour the floor's own: c = b, no
 * bleaching (c <= 1), so that a channel is unit_round(b, 255) of the floor's
 * colour, or of the picture's byte over 255. Where those bytes are the
 * picture's own (still_bytes: b / 255 rounds back to b, as it does in IEEE
 * single precision) a run of TONE_RUN pixels of light 1 copies the picture,
 * or repeats the colour tone_body gives light 1, instead of toning each
 * pixel; the gather marks those runs (light_row), so that their light is
 * not read either. */
#define TONE_RUN 64   /* pixels a run: a whole number of vectors */

static bool still_bytes;
static uint16_t still16[256];   /* a byte's 16-bit channel at light 1 */

static void still_init(void)
{
    bool same = true;
    for (int b = 0; b < 256; b++) {
        same &= unit_round((float)b / 255.0f, 255.0f) == b;
        still16[b] = unit_u16((float)b / 255.0f);
    }
    still_bytes = same;
}

/* Whether light[0 .. TONE_RUN - 1] are all 1. */
static inline __attribute__((always_inline)) bool run_still(const float *light)
{
    uint32_t off = 0;
    for (int x = 0; x < TONE_RUN; x++)
        off |= bits_f(light[x]) ^ 0x3f800000u;
    return !off;
}

/* tone_body with its branches taken out of the loop, the runs of light 1
 * (still's marks, or the light itself) copied. */
static inline __attribute__((always_inline)) void tone_runs(const struct water_look *lk, const float *light,
                                                            const unsigned char *still, const uint8_t *floor_rgb,
                                                            int w, uint8_t *rgb, uint16_t *rgb16)
{
    uint8_t px[3 * TONE_RUN];
    uint16_t px16[3 * TONE_RUN];
    if (!floor_rgb) {   /* the floor colour at light 1, a run long: one pixel, doubled */
        const float one = 1.0f;
        tone_body(lk, &one, NULL, 1, px, rgb16 ? px16 : NULL);
        for (int n = 1; n < TONE_RUN; n *= 2) {
            memcpy(px + 3 * n, px, 3 * (size_t)n);
            if (rgb16)
                memcpy(px16 + 3 * n, px16, 3 * (size_t)n * sizeof *px16);
        }
    }
    for (int x0 = 0; x0 < w; x0 += TONE_RUN) {
        const int n = w - x0 < TONE_RUN ? w - x0 : TONE_RUN;
        const uint8_t *f = floor_rgb ? floor_rgb + 3 * x0 : NULL;
        uint8_t *o = rgb + 3 * x0;
        uint16_t *o16 = rgb16 ? rgb16 + 3 * x0 : NULL;
        if (n == TONE_RUN && (!f || still_bytes) && (still ? still[x0 / TONE_RUN] : run_still(light + x0))) {
            memcpy(o, floor_rgb ? f : px, sizeof px);   /* px is made above when floor_rgb is NULL */
            if (o16 && f)
                for (int i = 0; i < 3 * TONE_RUN; i++)
                    o16[i] = still16[f[i]];
            else if (o16)
                memcpy(o16, px16, sizeof px16);
            continue;
        }
        tone_body(lk, light + x0, f, n, o, o16);
    }
}

static inline __attribute__((always_inline)) void tone_row(const struct water_look *lk, const float *light,
                                                           const unsigned char *still, const uint8_t *floor_rgb,
                                                           int w, uint8_t *rgb, uint16_t *rgb16)
{
    if (floor_rgb && rgb16)
        tone_runs(lk, light, still, floor_rgb, w, rgb, rgb16);
    else if (floor_rgb)
        tone_runs(lk, light, still, floor_rgb, w, rgb, NULL);
    else if (rgb16)
        tone_runs(lk, light, still, NULL, w, rgb, rgb16);
    else
        tone_runs(lk, light, still, NULL, w, rgb, NULL);
}

__attribute__((target("arch=x86-64-v4"))) static void tone_row_v4(const struct water_look *lk, const float *light,
                                                                  const unsigned char *still,
                                                                  const uint8_t *floor_rgb, int w, uint8_t *rgb,
                                                                  uint16_t *rgb16)
{
    tone_row(lk, light, still, floor_rgb, w, rgb, rgb16);
}

__attribute__((target("arch=x86-64-v3,tune=haswell"))) static void tone_row_v3(const struct water_look *lk,
                                                                              const float *light,
                                                                              const unsigned char *still,
                                                                              const uint8_t *floor_rgb, int w,
                                                                              uint8_t *rgb, uint16_t *rgb16)
{
    tone_row(lk, light, still, floor_rgb, w, rgb, rgb16);
}

void caustics_row(const struct water_look *lk, const float *light, const unsigned char *still,
                  const uint8_t *floor_rgb, int w, uint8_t *rgb, uint16_t *rgb16)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, still_init);
    if (RR_CPU_HAS(4, "x86-64-v4"))
        tone_row_v4(lk, light, still, floor_rgb, w, rgb, rgb16);
    else if (RR_CPU_HAS(3, "avx2"))
        tone_row_v3(lk, light, still, floor_rgb, w, rgb, rgb16);
    else
        tone_row(lk, light, still, floor_rgb, w, rgb, rgb16);
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
    /* No slope known to be zero yet: the first frame writes every slope
     * (water_prepare_marked). */
    memset(scratch_set(r->rays, r->gw, r->gh, 0), 0xff, (size_t)r->gh * ((r->gw + 63) / 64) * 8);
    if (sc->render.depth_map && image_load_depth(sc->render.depth_map, sc->render.depth_range, r->gw, r->gh,
                                                 "render.depth_map", "cells", &r->floor_depth, e) < 0)
        return -1;
    if (sc->render.floor)
        return water_backdrop_open(r, sc, sc->render.floor, "render.floor", r->gw, r->gh, e);
    return 0;
}

/* The memory budget (render_mode_ops.bytes): the slopes, the light and its
 * scratch, as caustics_init allocates them. */
static uint64_t caustics_bytes(const struct scene *sc)
{
    return water_slopes_bytes(sc) + (uint64_t)sc->grid.width * (uint64_t)sc->grid.height * sizeof(float)
           + (uint64_t)CAUSTICS_SCRATCH(sc->grid.width, sc->grid.height) * sizeof(float);
}

static void caustics_prepare(struct renderer *r, const struct field *f)
{
    water_prepare_marked(r, f, scratch_set(r->rays, r->gw, r->gh, 0));
    gather(r->gx, r->gy, r->gw, r->gh, r->look.depth, r->floor_depth, r->edges[EDGE_LEFT] == EDGE_WRAP,
           r->edges[EDGE_TOP] == EDGE_WRAP, true, r->rays, r->light);
}

static void caustics_mode_row(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                              uint8_t *restrict rgb, uint16_t *restrict g16, uint16_t *restrict rgb16)
{
    (void)f;
    (void)h;
    (void)g16;
    const size_t row = (size_t)y * r->gw;
    caustics_row(&r->look, r->light + row, caustics_still_row(r->rays, r->gw, r->gh, y),
                 r->backdrop_rgb ? r->backdrop_rgb + row * 3 : NULL, r->gw, rgb, rgb16);
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

static const char *caustics_picture(const struct render_config *rc)
{
    return rc->floor;
}

const struct render_mode_ops render_caustics_ops = {
    .name = "caustics",
    .keys = (const char *const[]){ "height_scale", "depth", "depth_map", "depth_range",
                                   "floor", "floor_color", "video_end", NULL },
    .light = true,
    .picture_key = "floor",
    .picture = caustics_picture,
    .init = caustics_init,
    .bytes = caustics_bytes,
    .pick = water_backdrop_pick,
    .prepare = caustics_prepare,
    .row = caustics_mode_row,
    .row_float = caustics_row_float,
    .float_names = (const char *const[]){ "Y", NULL },
    .free = caustics_free,
};

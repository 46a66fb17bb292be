/* render/caustics.c: render.mode "caustics": the light the surface focuses on
 * a floor below it, gathered so that no light is made or lost. See
 * render/modes.h and docs/render.md. */
#include "render/modes.h"
#include "render/backdrop.h"
#include "team.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
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

/* What the gather knows of a frame. The scratch `at` (CAUSTICS_SCRATCH
 * floats) holds the landing points of the moved cells, 8 floats a cell, row
 * y's from y w 8 on in the order of their columns (sub-ray (sy, sx) of a
 * cell at its (SUB sy + sx) 2: the serial order; in a row less than half
 * moved, list_landed's list after them), three floats a row (landing_body),
 * then four bit sets of nw 64-bit words a row (bit x of word
 * x / 64: cell x) and a byte of flags a row. */
struct gather_job {
    const float *gx, *gy;
    int w, h, nw;
    float depth;
    const float *depths;   /* per cell (render.depth_map), or NULL: `depth` everywhere */
    bool wrap_x, wrap_y;
    bool dense;            /* most cells moved: every floor cell dirty */
    bool marked;           /* the dirty set holds the nonzero slopes (water_prepare_marked) until the dirty pass */
    float *at, *bounds, *light;
    /* The bit sets (as bytes: read and written through wget, wput):
     * moved, the cells whose landing points are in `at`; far, the moved
     * cells with a sub-ray landing outside the 3 x 3 cells around (in a row
     * more than half moved, all its moved cells); dirty, the floor cells
     * the splat sums (until the dirty pass, if marked, the nonzero slopes);
     * active, the band's scratch (its first row): the cells
     * of the source row at hand that the splat takes. */
    unsigned char *moved, *far, *dirty, *active;
    uint8_t *rowf;         /* ROW_FAR: the row has far cells; ROW_LIST: their cells listed (list_landed) */
};

enum { ROW_FAR = 1, ROW_LIST = 2 };

/* A pass over rows lo..hi-1 (team_claimed's body) from one always-inline
 * BODY(job, lo, hi): built for AVX-512 (x86-64-v4) and AVX2 (x86-64-v3; tune
 * haswell, whose cost model gathers) beside the baseline, the CPU picking.
 * One body, floats without contraction: the same bits from each build. */
#define CAUSTICS_PASS(name, body)                                                                               \
    __attribute__((target("arch=x86-64-v4"))) static void name##_v4(const struct gather_job *j, int lo, int hi) \
    {                                                                                                           \
        body(j, lo, hi);                                                                                        \
    }                                                                                                           \
    __attribute__((target("arch=x86-64-v3,tune=haswell"))) static void name##_v3(const struct gather_job *j,    \
                                                                                 int lo, int hi)              \
    {                                                                                                           \
        body(j, lo, hi);                                                                                        \
    }                                                                                                           \
    static void name(void *arg, int lo, int hi)                                                                 \
    {                                                                                                           \
        if (__builtin_cpu_supports("x86-64-v4"))                                                                \
            name##_v4(arg, lo, hi);                                                                             \
        else if (__builtin_cpu_supports("avx2"))                                                                \
            name##_v3(arg, lo, hi);                                                                             \
        else                                                                                                    \
            body(arg, lo, hi);                                                                                  \
    }

/* Still water. A sub-ray whose interpolated slopes are both zero (of either
 * sign) lands exactly where it entered: inv = 1, n = (-0, -0, 1), k = 1,
 * m = eta - 1 (exact), t = (+-0, +-0, -1) (-eta + (eta - 1) is exactly -1),
 * reach = depth and p + (+-0) = p. A cell's four sub-rays read the slopes of
 * the 3 x 3 cells around it; where all nine are zero and the cell is not on
 * the grid's edge (no clamp, no wrap) the cell is still, and its sub-rays
 * land at (x -+ 1/4, y -+ 1/4); the other cells are moved. A floor cell off
 * the edge whose 3 x 3 neighbours are all still and which no moved sub-ray
 * reaches receives exactly the sixteen shares of those still sub-rays:
 * products of 1/4 and of 1/4 or 3/4 twice, whose sums are exact in any
 * order, giving exactly 1. Every other floor cell is dirty: its sum is made
 * by the splat from all the sub-rays that reach it (the moved ones and the
 * still ones of the cells around a dirty cell), in the serial order, as
 * before; the others are set to 1. A moved sub-ray landing inside the 3 x 3
 * cells around its own lands on cells already dirty (next to a moved cell);
 * only the others (far) need finding. The same bits as splatting every
 * sub-ray, for a fraction of the work where most of the water is still. */

static inline uint64_t wget(const unsigned char *set, size_t i)
{
    uint64_t v;
    memcpy(&v, set + 8 * i, sizeof v);
    return v;
}

static inline void wput(unsigned char *set, size_t i, uint64_t v)
{
    memcpy(set + 8 * i, &v, sizeof v);
}

static inline void set_bit(unsigned char *set, size_t x)
{
    wput(set, x / 64, wget(set, x / 64) | (uint64_t)1 << (x % 64));
}

/* The bits of row set `row` (nw words) from x on: the first set (clear) one,
 * or w. */
static inline int find_bit(const unsigned char *row, int x, int w, bool clear)
{
    int nw = (w + 63) / 64;
    for (int k = x / 64; k < nw; k++) {
        uint64_t v = wget(row, (size_t)k);
        v = clear ? ~v : v;
        if (k == x / 64)
            v &= ~(uint64_t)0 << (x % 64);
        if (v) {
            int b = 64 * k + __builtin_ctzll(v);
            return b < w ? b : w;
        }
    }
    return w;
}

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

/* Row `out` all cells, or the first and last alone. */
static void fill_row(unsigned char *out, int w, bool all)
{
    const int nw = (w + 63) / 64;
    for (int k = 0; k < nw; k++)
        wput(out, (size_t)k, all ? ~(uint64_t)0 : 0);
    if (w % 64)
        wput(out, (size_t)nw - 1, all ? ((uint64_t)1 << (w % 64)) - 1 : 0);
    if (!all) {
        set_bit(out, 0);
        set_bit(out, (size_t)w - 1);
    }
}

/* Row y's still flags into nz (w bytes): 1 where its slope x or y is other
 * than zero (a float is zero, +0 or -0, when its bits other than the sign
 * are). */
static inline __attribute__((always_inline)) void nonzero_row(const struct gather_job *j, int y, uint8_t *restrict nz)
{
    const float *restrict a = j->gx + (size_t)y * j->w, *restrict b = j->gy + (size_t)y * j->w;
    for (int x = 0; x < j->w; x++) {
        uint32_t u, v;
        memcpy(&u, a + x, 4);
        memcpy(&v, b + x, 4);
        nz[x] = (uint8_t)(((u | v) & 0x7fffffffu) != 0);
    }
}

/* Row y of the moved set: the cells on the grid's edge and those with a slope
 * other than zero among the 3 x 3 around them. ring: 4 w bytes of scratch,
 * rows y - 1, y and y + 1's nonzero_row at (y - 1) % 3, y % 3, (y + 1) % 3
 * (made from row y + 1 on for the next row), then w bytes for their OR. */
static inline __attribute__((always_inline)) void mark_moved(const struct gather_job *j, int y, uint8_t *restrict ring)
{
    const int w = j->w, h = j->h;
    unsigned char *out = j->moved + (size_t)y * j->nw * 8;
    if (y == 0 || y == h - 1 || w < 3) {
        fill_row(out, w, true);
        return;
    }
    if (j->marked) {
        const size_t rw = (size_t)j->nw * 8;
        const unsigned char *nz = j->dirty + (size_t)y * rw;
        near3(nz - rw, nz, nz + rw, w, out);
        set_bit(out, 0);
        set_bit(out, (size_t)w - 1);
        return;
    }
    const uint8_t *restrict n0 = ring, *restrict n1 = ring + w, *restrict n2 = ring + 2 * (size_t)w;
    uint8_t *restrict tmp = ring + 3 * (size_t)w;
    for (int x = 0; x < w; x++)
        tmp[x] = n0[x] | n1[x] | n2[x];
    /* Eight bytes of 0 or 1 into eight bits: byte i (at bit 8 i) times
     * 2^(7 (7 - i) + 7) lands on bit 56 + i of the product, and no two terms
     * of the product share a bit. */
    for (int k = 0; k < j->nw; k++) {
        uint64_t v = 0;
        for (int g = 0; g < 8 && 64 * k + 8 * g < w; g++) {
            const int x = 64 * k + 8 * g;
            uint64_t b = 0;
            for (int i = 0; i < 8 && x + i < w; i++)
                b |= (uint64_t)tmp[x + i] << (8 * i);
            v |= (b * 0x0102040810204080u) >> 56 << (8 * g);
        }
        wput(out, (size_t)k, v);
    }
    near3(out, out, out, w, out);
    set_bit(out, 0);
    set_bit(out, (size_t)w - 1);
}

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

/* The sub-rays of column x of sub-row (py, sy) through grid_at, into out
 * (the cell's 2 SUB SUB floats). */
static inline void land_column(const struct gather_job *j, int sy, float py, int x, float *out)
{
    out += sy * SUB * 2;
    for (int sx = 0; sx < SUB; sx++) {
        float px = (float)x + ((float)sx + 0.5f) / SUB - 0.5f;
        float d = j->depths ? grid_at(j->depths, j->w, j->h, px, py) : j->depth;
        land_ray(px, py, grid_at(j->gx, j->w, j->h, px, py), grid_at(j->gy, j->w, j->h, px, py), d, out + 2 * sx);
    }
}

/* What land_n and land_column tell of the landing points they make: the
 * lowest and highest landing y (lowered and raised), and which columns are
 * far (a sub-ray landing outside the 3 x 3 cells around its own). */
struct landed {
    float lo, hi;
};

/* Whether a cell (x, y)'s landing points p (2 SUB SUB floats) are all inside
 * the 3 x 3 cells around it: [x - 1, x + 1) x [y - 1, y + 1), so that land
 * gives cells x - 1 .. x + 1 and y - 1 .. y + 1 (NaN: not inside). */
static inline bool near_cell(const float *p, int x, int y)
{
    bool in = true;
    for (int r = 0; r < SUB * SUB; r++)
        in &= p[2 * r] >= (float)(x - 1) && p[2 * r] < (float)(x + 1) && p[2 * r + 1] >= (float)(y - 1) &&
              p[2 * r + 1] < (float)(y + 1);
    return in;
}

/* The most columns land_n takes at once. */
#define LAND_MAX 64

/* Columns s..s+n-1 of row y (none on the grid's first or last column; n a
 * constant, 16 or LAND_MAX, where inlined), into o, 2 SUB SUB floats a
 * column; far[i]: column s + i is far (not 0), if track (a constant).
 * A sub-ray sits a quarter cell left (sx 0) or right (sx 1) of the cell's
 * centre, so grid_at reads cells x-1, x at fx 0.75 and x, x+1 at fx 0.25,
 * with px = x - 0.25 and x + 0.25 exactly: the loop makes grid_at's very
 * operations without its clamps, and a fixed count, so that it vectorises
 * in whole vectors (the bounds and far flags lane by lane). The same values
 * bit for bit. */
static inline __attribute__((always_inline)) void land_n(const struct gather_job *j, int y, int s, int n, bool track,
                                                         float *restrict o, int *restrict far, struct landed *ld)
{
    const int w = j->w, h = j->h;
    const float depth = j->depth, ya = (float)(y - 1), yb = (float)(y + 1);
    float lo[LAND_MAX], hi[LAND_MAX];
    for (int i = 0; i < n; i++) {
        lo[i] = ld->lo;
        hi[i] = ld->hi;
        far[i] = 0;
    }
    for (int sy = 0; sy < SUB; sy++) {
        float py = (float)y + ((float)sy + 0.5f) / SUB - 0.5f;
        float cy = py < 0.0f ? 0.0f : py > (float)(h - 1) ? (float)(h - 1) : py;
        int y0 = (int)cy, y1 = y0 + 1 < h ? y0 + 1 : y0;
        float fy = cy - (float)y0;
        const float *restrict x0r = j->gx + (size_t)y0 * w + s, *restrict x1r = j->gx + (size_t)y1 * w + s;
        const float *restrict y0r = j->gy + (size_t)y0 * w + s, *restrict y1r = j->gy + (size_t)y1 * w + s;
        for (int i = 0; i < n; i++) {
            float *q = o + i * (2 * SUB * SUB) + sy * SUB * 2, l[2], r[2];
            float pl = (float)(s + i) + 0.25f - 0.5f, pr = (float)(s + i) + 0.75f - 0.5f;
            float tl = x0r[i - 1] + (x0r[i] - x0r[i - 1]) * 0.75f, bl = x1r[i - 1] + (x1r[i] - x1r[i - 1]) * 0.75f;
            float ul = y0r[i - 1] + (y0r[i] - y0r[i - 1]) * 0.75f, vl = y1r[i - 1] + (y1r[i] - y1r[i - 1]) * 0.75f;
            float tr = x0r[i] + (x0r[i + 1] - x0r[i]) * 0.25f, br = x1r[i] + (x1r[i + 1] - x1r[i]) * 0.25f;
            float ur = y0r[i] + (y0r[i + 1] - y0r[i]) * 0.25f, vr = y1r[i] + (y1r[i + 1] - y1r[i]) * 0.25f;
            land_ray(pl, py, tl + (bl - tl) * fy, ul + (vl - ul) * fy, depth, l);
            land_ray(pr, py, tr + (br - tr) * fy, ur + (vr - ur) * fy, depth, r);
            q[0] = l[0];
            q[1] = l[1];
            q[2] = r[0];
            q[3] = r[1];
            lo[i] = l[1] < lo[i] ? l[1] : lo[i];
            lo[i] = r[1] < lo[i] ? r[1] : lo[i];
            hi[i] = l[1] > hi[i] ? l[1] : hi[i];
            hi[i] = r[1] > hi[i] ? r[1] : hi[i];
            const float xa = (float)(s + i - 1), xb = (float)(s + i + 1);
            far[i] |= track && !(l[0] >= xa && l[0] < xb && r[0] >= xa && r[0] < xb && l[1] >= ya && l[1] < yb && r[1] >= ya
                        && r[1] < yb);
        }
    }
    for (int i = 0; i < n; i++) {
        ld->lo = lo[i] < ld->lo ? lo[i] : ld->lo;
        ld->hi = hi[i] > ld->hi ? hi[i] : ld->hi;
    }
}

/* The landing points of columns xa..xb-1 of row y, into out (2 SUB SUB
 * floats a column, from xa's), their bounds into *ld and the far columns
 * into row `far` of the far set if track (else the caller takes every
 * moved cell as far). The grid's first and last columns (always
 * far) and every column with a depth per cell go through grid_at
 * (land_column); the others by LAND_MAX or sixteen (land_n), a run shorter
 * than sixteen landing the sixteen columns around it and keeping its own. */
static inline __attribute__((always_inline)) void land_span(const struct gather_job *j, int y, int xa, int xb,
                                                            bool track, float *restrict out, unsigned char *far,
                                                            struct landed *ld)
{
    const int w = j->w, h = j->h;
    const size_t cell = 2 * SUB * SUB;
    for (int x = xa; x < xb;) {
        float *o = out + (size_t)(x - xa) * cell;
        if (j->depths || x == 0 || x == w - 1 || w < 18) {
            for (int sy = 0; sy < SUB; sy++)
                land_column(j, sy, (float)y + ((float)sy + 0.5f) / SUB - 0.5f, x, o);
            for (int r = 0; r < SUB * SUB; r++) {
                ld->lo = o[2 * r + 1] < ld->lo ? o[2 * r + 1] : ld->lo;
                ld->hi = o[2 * r + 1] > ld->hi ? o[2 * r + 1] : ld->hi;
            }
            if (track && (x == 0 || x == w - 1 || y == 0 || y == h - 1 || !near_cell(o, x, y)))
                set_bit(far, (size_t)x);
            x++;
            continue;
        }
        const int end = xb < w - 1 ? xb : w - 1, s = x + 16 <= w - 1 ? x : w - 17;
        int n = end - x < 16 ? end - x : 16, f[LAND_MAX];
        if (end - x >= LAND_MAX) {
            n = LAND_MAX;
            if (track)
                land_n(j, y, x, LAND_MAX, true, o, f, ld);
            else
                land_n(j, y, x, LAND_MAX, false, o, f, ld);
        } else if (n == 16) {
            land_n(j, y, x, 16, track, o, f, ld);
        } else {
            float tmp[16 * 2 * SUB * SUB];
            land_n(j, y, s, 16, track, tmp, f, ld);
            memcpy(o, tmp + (size_t)(x - s) * cell, (size_t)n * cell * sizeof *tmp);
        }
        for (int i = 0; track && i < n; i++)
            if (f[x - s + i] || y == 0 || y == h - 1)
                set_bit(far, (size_t)(x + i));
        x += n;
    }
}

/* Where sub-ray landing point p (x, y) falls in floor rows lo..hi-1: false
 * if nowhere; else its cells (x0, x1) of rows y0 (if *in0) and y1 (if *in1)
 * and the weights fx, fy of x1 and y1 (land). */
struct cut {
    int x0, x1, y0, y1;
    float fx, fy;
    bool in0, in1;
};

static inline bool cut_ray(const struct gather_job *j, const float *p, int lo, int hi, struct cut *c)
{
    land(p[1], j->h, j->wrap_y, &c->y0, &c->y1, &c->fy);
    c->in0 = c->y0 >= lo && c->y0 < hi;
    c->in1 = c->y1 >= lo && c->y1 < hi;
    if (!c->in0 && !c->in1)
        return false;
    land(p[0], j->w, j->wrap_x, &c->x0, &c->x1, &c->fx);
    return true;
}

/* Row y's far cells (row `far`, `moved` moved cells; y not on the grid's
 * edge), their landing points from `rays` (the row's packed points): the
 * cells (x0, y0) of each of their sub-rays that lands outside the 3 x 3
 * cells around its own (near_cell's test; the others fall on cells next to
 * a moved one, dirty already, also where such a sub-ray of the first or last
 * column wraps: both edge columns are moved), as two ints after the packed
 * points: their count, then
 * the pairs (x1, y1 follow as in land). Room: the row's 8 w floats hold
 * 8 moved + 1 + 8 moved when 2 moved < w. The first pass makes them while
 * the points are in cache; the dirty pass reads only these. */
static inline __attribute__((always_inline)) void list_landed(const struct gather_job *j, int y, const unsigned char *far,
                                                              float *rays, int moved)
{
    const size_t rw = (size_t)j->nw * 8;
    const unsigned char *mv = j->moved + (size_t)y * rw;
    int32_t *list = (int32_t *)(void *)(rays + (size_t)moved * (2 * SUB * SUB)), n = 0;
    int before = 0;   /* moved cells left of word k: the packed landing points' index */
    for (int k = 0; k < j->nw; k++) {
        const uint64_t m = wget(mv, (size_t)k);
        for (uint64_t f = wget(far, (size_t)k); f; f &= f - 1) {
            const int b = __builtin_ctzll(f), x = 64 * k + b;
            const float *a =
                rays + (size_t)(before + __builtin_popcountll(m & (((uint64_t)1 << b) - 1))) * (2 * SUB * SUB);
            for (int s = 0; s < SUB * SUB; s++) {
                const float px = a[2 * s], py = a[2 * s + 1];
                if (px >= (float)(x - 1) && px < (float)(x + 1) && py >= (float)(y - 1) && py < (float)(y + 1))
                    continue;
                int x1, y1;
                float frac;
                land(px, j->w, j->wrap_x, &list[1 + 2 * n], &x1, &frac);
                land(py, j->h, j->wrap_y, &list[2 + 2 * n], &y1, &frac);
                n++;
            }
        }
        before += __builtin_popcountll(m);
    }
    list[0] = n;
}

/* The first pass, rows lo..hi-1 (their light rows as scratch): the moved
 * cells (mark_moved), their landing points packed, which of them are far
 * (on the grid's edge, or a sub-ray landing outside the 3 x 3 cells around),
 * each row's lowest and highest landing y (bounds[3y], bounds[3y + 1],
 * counting the still cells' y -+ 1/4) and its count of moved cells
 * (bounds[3y + 2]). */
static inline __attribute__((always_inline)) void landing_body(const struct gather_job *j, int lo, int hi)
{
    const int w = j->w;
    const size_t rw = (size_t)j->nw * 8;
    /* Rows lo - 1 and lo's nonzero_row, in light row lo (scratch until the
     * splat). */
    uint8_t *ring = (uint8_t *)(j->light + (size_t)lo * w);
    for (int y = lo - 1; y <= lo; y++)
        if (y >= 0 && y < j->h && w >= 3 && !j->marked)
            nonzero_row(j, y, ring + (size_t)((y + 3) % 3) * w);
    for (int y = lo; y < hi; y++) {
        const unsigned char *mv = j->moved + (size_t)y * rw;
        unsigned char *far = j->far + (size_t)y * rw;
        if (y + 1 < j->h && w >= 3 && !j->marked)
            nonzero_row(j, y + 1, ring + (size_t)((y + 1) % 3) * w);
        mark_moved(j, y, ring);
        memset(far, 0, rw);
        struct landed ld = { (float)y + 0.25f - 0.5f, (float)y + 0.75f - 0.5f };
        float *out = j->at + (size_t)y * w * (2 * SUB * SUB);
        int moved = 0;
        for (int k = 0; k < j->nw; k++)
            moved += __builtin_popcountll(wget(mv, (size_t)k));
        /* A row more than half moved: every moved cell taken as far (the
         * dirty pass walks them all, or nothing when the frame is dense),
         * not tested. */
        const bool track = moved * 2 <= w;
        for (int x = find_bit(mv, 0, w, false); x < w; x = find_bit(mv, x, w, false)) {
            const int b = find_bit(mv, x, w, true);
            if (track)
                land_span(j, y, x, b, true, out, far, &ld);
            else
                land_span(j, y, x, b, false, out, far, &ld);
            out += (size_t)(b - x) * (2 * SUB * SUB);
            x = b;
        }
        const bool listed = moved * 2 < w;
        if (!track)
            memcpy(far, mv, rw);
        else if (listed)
            list_landed(j, y, far, j->at + (size_t)y * w * (2 * SUB * SUB), moved);
        j->bounds[3 * y] = ld.lo;
        j->bounds[3 * y + 1] = ld.hi;
        j->bounds[3 * y + 2] = (float)moved;
        uint64_t any = 0;
        for (int k = 0; k < j->nw; k++)
            any |= wget(far, (size_t)k);
        j->rowf[y] = listed ? ROW_LIST : any ? ROW_FAR : 0;
    }
}

CAUSTICS_PASS(landing_rows, landing_body)

/* Whether any sub-ray of source row y can land on floor rows lo..hi-1, from
 * the row's lowest and highest landing y (land: clamped, or wrapped, where a
 * row whose rays cross an edge may reach any row). */
static bool row_reaches(const struct gather_job *j, int y, int lo, int hi)
{
    float mn = j->bounds[3 * y], mx = j->bounds[3 * y + 1], top = (float)(j->h - 1);
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

/* The second pass, floor rows lo..hi-1: the dirty set, the cells next to a
 * moved cell (3 x 3; the grid's edge is moved) and the four bilinear cells
 * of every far sub-ray landing in these rows (from a row's list, ROW_LIST,
 * or from its far cells' landing points, ROW_FAR); all cells when dense. */
static void dirty_rows(void *arg, int lo, int hi)
{
    const struct gather_job *j = arg;
    const int w = j->w, h = j->h;
    const size_t rw = (size_t)j->nw * 8;
    for (int r = lo; r < hi; r++) {
        unsigned char *d = j->dirty + (size_t)r * rw;
        if (j->dense || r == 0 || r == h - 1 || w < 3) {
            fill_row(d, w, true);
            continue;
        }
        near3(j->moved + (size_t)(r - 1) * rw, j->moved + (size_t)r * rw, j->moved + (size_t)(r + 1) * rw, w, d);
    }
    for (int y = 0; y < h && !j->dense; y++) {
        if (!j->rowf[y] || !row_reaches(j, y, lo, hi))
            continue;
        if (j->rowf[y] & ROW_LIST) {
            const int32_t *list = (const int32_t *)(const void *)(j->at + (size_t)y * w * (2 * SUB * SUB)
                                                                  + (size_t)j->bounds[3 * y + 2] * (2 * SUB * SUB));
            for (int32_t i = 0; i < list[0]; i++) {
                const int x0 = list[1 + 2 * i], y0 = list[2 + 2 * i];
                const int x1 = x0 + 1 < w ? x0 + 1 : j->wrap_x ? 0 : x0;
                const int y1 = y0 + 1 < h ? y0 + 1 : j->wrap_y ? 0 : y0;
                if (y0 >= lo && y0 < hi) {
                    set_bit(j->dirty + (size_t)y0 * rw, (size_t)x0);
                    set_bit(j->dirty + (size_t)y0 * rw, (size_t)x1);
                }
                if (y1 >= lo && y1 < hi) {
                    set_bit(j->dirty + (size_t)y1 * rw, (size_t)x0);
                    set_bit(j->dirty + (size_t)y1 * rw, (size_t)x1);
                }
            }
            continue;
        }
        const unsigned char *mv = j->moved + (size_t)y * rw, *fr = j->far + (size_t)y * rw;
        const float *rays = j->at + (size_t)y * w * (2 * SUB * SUB);
        int before = 0;   /* moved cells left of word k: the packed landing points' index */
        for (int k = 0; k < j->nw; k++) {
            const uint64_t m = wget(mv, (size_t)k);
            for (uint64_t f = wget(fr, (size_t)k); f; f &= f - 1) {
                const int b = __builtin_ctzll(f);
                const float *a = rays + (size_t)(before + __builtin_popcountll(m & (((uint64_t)1 << b) - 1)))
                                            * (2 * SUB * SUB);
                struct cut c;
                for (int s = 0; s < SUB * SUB; s++) {
                    if (!cut_ray(j, a + 2 * s, lo, hi, &c))
                        continue;
                    if (c.in0) {
                        set_bit(j->dirty + (size_t)c.y0 * rw, (size_t)c.x0);
                        set_bit(j->dirty + (size_t)c.y0 * rw, (size_t)c.x1);
                    }
                    if (c.in1) {
                        set_bit(j->dirty + (size_t)c.y1 * rw, (size_t)c.x0);
                        set_bit(j->dirty + (size_t)c.y1 * rw, (size_t)c.x1);
                    }
                }
            }
            before += __builtin_popcountll(m);
        }
    }
}

/* The sub-rays whose cuts (cut_ray without the band) are made at once, a
 * multiple of SUB SUB so that a cell's sub-rays are made together. */
#define CUT_N 64

/* The cuts of CUT_N moved sub-rays: their cells and their four shares in the
 * order of the additions, r0[x0], r0[x1], r1[x0], r1[x1]. */
struct cuts {
    int x0[CUT_N], x1[CUT_N], y0[CUT_N], y1[CUT_N];
    float s[4][CUT_N];
};

/* The cuts of sub-rays p[0..n-1] (2 floats each) into c, on axes wrapped
 * (wx, wy: constants where inlined) or clamped: land's very operations and
 * the serial splat's products, share (1 - fx) (1 - fy), share fx (1 - fy),
 * share (1 - fx) fy and share fx fy, lane by lane, so that the loop
 * vectorises on clamped axes (a wrapped one takes land itself: floorf and
 * %). The same values bit for bit as cut_ray and those products. */
static inline __attribute__((always_inline)) void cut_body(const struct gather_job *j, const float *restrict p, int n,
                                                           bool wx, bool wy, struct cuts *restrict c)
{
    const float share = 1.0f / (SUB * SUB);
    const int w = j->w, h = j->h;
    const float tw = (float)(w - 1), th = (float)(h - 1);
    for (int i = 0; i < n; i++) {
        float fx, fy;
        if (wx) {
            land(p[2 * i], w, true, &c->x0[i], &c->x1[i], &fx);
        } else {
            float x = p[2 * i];
            x = x < 0.0f ? 0.0f : x;   /* two selects: land's clamp, and a loop that if-converts */
            x = x > tw ? tw : x;
            const int a = (int)x;
            c->x0[i] = a;
            c->x1[i] = a + 1 < w ? a + 1 : a;
            fx = x - (float)a;
        }
        if (wy) {
            land(p[2 * i + 1], h, true, &c->y0[i], &c->y1[i], &fy);
        } else {
            float y = p[2 * i + 1];
            y = y < 0.0f ? 0.0f : y;
            y = y > th ? th : y;
            const int a = (int)y;
            c->y0[i] = a;
            c->y1[i] = a + 1 < h ? a + 1 : a;
            fy = y - (float)a;
        }
        c->s[0][i] = share * (1.0f - fx) * (1.0f - fy);
        c->s[1][i] = share * fx * (1.0f - fy);
        c->s[2][i] = share * (1.0f - fx) * fy;
        c->s[3][i] = share * fx * fy;
    }
}

/* cut_body with the edge kinds taken out of the loop, n CUT_N (a whole
 * number of vectors) or fewer. */
static inline __attribute__((always_inline)) void cut_rays(const struct gather_job *j, const float *restrict p, int n,
                                                           struct cuts *restrict c)
{
    if (!j->wrap_x && !j->wrap_y) {
        if (n == CUT_N)
            cut_body(j, p, CUT_N, false, false, c);
        else
            cut_body(j, p, n, false, false, c);
    } else if (!j->wrap_y) {
        cut_body(j, p, n, true, false, c);
    } else if (!j->wrap_x) {
        cut_body(j, p, n, false, true, c);
    } else {
        cut_body(j, p, n, true, true, c);
    }
}

/* Sub-ray i of c: its shares that fall in floor rows lo..hi-1, in the order
 * r0[x0], r0[x1], r1[x0], r1[x1] (the serial splat's). */
static inline __attribute__((always_inline)) void add_cut(const struct gather_job *j, const struct cuts *c, int i,
                                                          int lo, int hi)
{
    const int y0 = c->y0[i], y1 = c->y1[i];
    if (y0 >= lo && y0 < hi) {
        float *r0 = j->light + (size_t)y0 * j->w;
        r0[c->x0[i]] += c->s[0][i];
        r0[c->x1[i]] += c->s[1][i];
    }
    if (y1 >= lo && y1 < hi) {
        float *r1 = j->light + (size_t)y1 * j->w;
        r1[c->x0[i]] += c->s[2][i];
        r1[c->x1[i]] += c->s[3][i];
    }
}

/* A source row's moved sub-rays read in their packed order, their cuts made
 * CUT_N at a time: rays the row's landing points, n their count, next the
 * index of the next one, [base, base + CUT_N) the ones in c. */
struct ray_cursor {
    const float *rays;
    int n, next, base;
    struct cuts c;
};

/* The next moved cell's SUB SUB sub-rays, added in their order. */
static inline __attribute__((always_inline)) void add_cell(const struct gather_job *j, struct ray_cursor *rc, int lo,
                                                           int hi)
{
    if (rc->next >= rc->base + CUT_N || rc->next < rc->base) {
        rc->base = rc->next;
        const int n = rc->n - rc->base < CUT_N ? rc->n - rc->base : CUT_N;
        cut_rays(j, rc->rays + 2 * (size_t)rc->base, n, &rc->c);
    }
    for (int s = 0; s < SUB * SUB; s++)
        add_cut(j, &rc->c, rc->next - rc->base + s, lo, hi);
    rc->next += SUB * SUB;
}

/* The shares of a still cell's sub-ray (sy, sx): it lands at x - 1/4 + sx / 2,
 * y - 1/4 + sy / 2 (the cell off the grid's edge: no clamp, no wrap), so
 * land gives x0 = x - 1 + sx, x1 = x0 + 1, fx = 3/4 - sx / 2, and the same in
 * y; its shares in the order of add_cut, the same products. */
struct still_shares {
    float s[SUB * SUB][4];
};

static void still_shares_init(struct still_shares *st)
{
    const float share = 1.0f / (SUB * SUB);
    for (int sy = 0; sy < SUB; sy++)
        for (int sx = 0; sx < SUB; sx++) {
            float fx = sx ? 0.25f : 0.75f, fy = sy ? 0.25f : 0.75f, *o = st->s[SUB * sy + sx];
            o[0] = share * (1.0f - fx) * (1.0f - fy);
            o[1] = share * fx * (1.0f - fy);
            o[2] = share * (1.0f - fx) * fy;
            o[3] = share * fx * fy;
        }
}

/* A still cell (x, y)'s four sub-rays in the serial order, their shares
 * added only to dirty cells: times the target's dirty bit, 0 or 1 (x + 0 is
 * x for the cells' x >= +0). */
static inline void add_still(const struct gather_job *j, const struct still_shares *st, int x, int y, int lo, int hi)
{
    const size_t rw = (size_t)j->nw * 8;
    for (int sy = 0; sy < SUB; sy++) {
        const int y0 = y - 1 + sy, y1 = y0 + 1;
        const bool in0 = y0 >= lo && y0 < hi, in1 = y1 >= lo && y1 < hi;
        if (!in0 && !in1)
            continue;
        float *r0 = j->light + (size_t)y0 * j->w, *r1 = r0 + j->w;
        const unsigned char *e0 = j->dirty + (size_t)y0 * rw, *e1 = e0 + rw;
        for (int sx = 0; sx < SUB; sx++) {
            const int x0 = x - 1 + sx, x1 = x0 + 1;
            const float *o = st->s[SUB * sy + sx];
            if (in0) {
                r0[x0] += o[0] * (float)(wget(e0, (size_t)x0 / 64) >> (x0 % 64) & 1);
                r0[x1] += o[1] * (float)(wget(e0, (size_t)x1 / 64) >> (x1 % 64) & 1);
            }
            if (in1) {
                r1[x0] += o[2] * (float)(wget(e1, (size_t)x0 / 64) >> (x0 % 64) & 1);
                r1[x1] += o[3] * (float)(wget(e1, (size_t)x1 / 64) >> (x1 % 64) & 1);
            }
        }
    }
}

/* The last pass, floor rows lo..hi-1: dirty cells 0, the others still
 * water's 1 (above); then the sub-rays of the active cells (the moved ones
 * and the still ones next to a dirty cell, found row by row into the band's
 * first row of the active set) in the serial order (source row, column,
 * sub-row, sub-column) add their shares that fall in these rows. Each dirty
 * cell thus receives the same additions in the same order as one thread
 * splatting every sub-ray would make: the same sums bit for bit, whatever the
 * bands. */
static inline __attribute__((always_inline)) void splat_body(const struct gather_job *j, int lo, int hi)
{
    const int w = j->w, h = j->h;
    const size_t rw = (size_t)j->nw * 8;
    struct still_shares st;
    still_shares_init(&st);
    for (int r = lo; r < hi; r++) {
        float *l = j->light + (size_t)r * w;
        const unsigned char *d = j->dirty + (size_t)r * rw;
        for (int k = 0; k < j->nw; k++) {
            const uint64_t v = wget(d, (size_t)k);
            const int n = w - 64 * k < 64 ? w - 64 * k : 64;
            float *o = l + 64 * k;
            if (v == ~(uint64_t)0 >> (64 - n)) {   /* all dirty */
                memset(o, 0, (size_t)n * sizeof *o);
                continue;
            }
            for (int i = 0; i < n; i++)
                o[i] = 1.0f;
            for (uint64_t u = v; u; u &= u - 1)
                o[__builtin_ctzll(u)] = 0.0f;
        }
    }
    unsigned char *act = j->active + (size_t)lo * rw;
    struct ray_cursor rc;
    for (int y = 0; y < h; y++) {
        if (!row_reaches(j, y, lo, hi))
            continue;
        if (y == 0 || y == h - 1 || w < 3)
            fill_row(act, w, true);
        else
            near3(j->dirty + (size_t)(y - 1) * rw, j->dirty + (size_t)y * rw, j->dirty + (size_t)(y + 1) * rw, w,
                  act);
        const unsigned char *mv = j->moved + (size_t)y * rw;
        rc.rays = j->at + (size_t)y * w * (2 * SUB * SUB);
        rc.n = (int)j->bounds[3 * y + 2] * (SUB * SUB);
        rc.next = 0;
        rc.base = -CUT_N;
        for (int k = 0; k < j->nw; k++) {
            const uint64_t m = wget(mv, (size_t)k);
            const int n = w - 64 * k < 64 ? w - 64 * k : 64;
            if (m == ~(uint64_t)0 >> (64 - n)) {   /* every cell moved: their sub-rays one after the other */
                for (int i = 0; i < n; i++)
                    add_cell(j, &rc, lo, hi);
                continue;
            }
            for (uint64_t a = wget(act, (size_t)k) | m; a; a &= a - 1) {
                const int b = __builtin_ctzll(a);
                if (m >> b & 1) {
                    add_cell(j, &rc, lo, hi);
                } else {
                    add_still(j, &st, 64 * k + b, y, lo, hi);
                }
            }
        }
    }
}

CAUSTICS_PASS(splat_rows, splat_body)

/* A ray straight down, i = (0, 0, -1), refracts at the unit normal
 * n = (-gx, -gy, 1)/|.| into t = eta i + (eta cos_i - sqrt(k)) n with
 * cos_i = n.z and k = 1 - eta^2 (1 - cos_i^2) (Snell's law in vector form;
 * k > 0 always from air into water). It meets the floor `depth` below at
 * (t.x, t.y) * depth / -t.z from where it entered. The water's own height is
 * small against depth and left out.
 *
 * Three passes: the moved cells and their landing points, row-parallel into
 * `at` (each row's slots its own, so the values do not depend on the
 * threads), with the cells where their far sub-rays land listed; the dirty
 * floor cells, in bands of floor rows; the splat, in bands of floor rows, each band adding its dirty cells' shares in the one
 * serial order (splat_rows). When more than half the cells moved, every
 * floor cell is taken as dirty rather than found (the same sums: a dirty
 * cell's sum is the serial one). */
/* team_for with the chunks claimed: body(arg, lo, hi) over [0, n) in
 * chunks of `rows`, each thread taking the next one left when done with
 * its last, so that a thread the machine slows (or a band with more moving
 * water) does not hold the others up. The passes' results do not depend on
 * how their rows are cut (each row's slots its own; a band's sums the serial
 * ones). */
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
    if (nt <= 1)
        body(arg, 0, n);
    else
        team_run(nt, claim_chunks, &c);
}

/* The scratch's bit set k (0 moved, 1 far, 2 dirty, 3 active; 4 the row
 * flags). */
static unsigned char *scratch_set(float *at, int w, int h, int k)
{
    unsigned char *sets = (unsigned char *)(at + (size_t)w * h * (2 * SUB * SUB) + 3 * (size_t)h);
    return sets + (size_t)k * h * ((w + 63) / 64) * 8;
}

/* marked: the dirty set holds the nonzero slopes already (caustics_prepare
 * makes them with the slopes, water_prepare_marked), not made from gx, gy. */
static void gather(const float *gx, const float *gy, int w, int h, float depth, const float *depths, bool wrap_x,
                   bool wrap_y, bool marked, float *restrict at, float *restrict light)
{
    float *bounds = at + (size_t)w * h * (2 * SUB * SUB);
    const int nw = (w + 63) / 64;
    struct gather_job j = { .gx = gx, .gy = gy, .w = w, .h = h, .nw = nw, .depth = depth, .depths = depths,
                            .wrap_x = wrap_x, .wrap_y = wrap_y, .marked = marked, .at = at, .bounds = bounds,
                            .light = light, .moved = scratch_set(at, w, h, 0), .far = scratch_set(at, w, h, 1),
                            .dirty = scratch_set(at, w, h, 2), .active = scratch_set(at, w, h, 3),
                            .rowf = scratch_set(at, w, h, 4) };
    int nt = team_threads_for((long)w * h, 16384);
    /* Chunks: landing rows a few at a time; bands of floor rows large against
     * how far the sub-rays of the rows around them reach (each band walks
     * those rows whole). */
    team_claim(h, nt, 16, landing_rows, &j);
    double moved = 0;
    for (int y = 0; y < h; y++)
        moved += (double)bounds[3 * y + 2];
    j.dense = moved * 2 > (double)w * h;
    const int band = (h + 4 * nt - 1) / (4 * nt);
    team_claim(h, nt, band, dirty_rows, &j);
    team_claim(h, nt, band, splat_rows, &j);
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

/* tone_body with its branches taken out of the loop. */
static inline __attribute__((always_inline)) void tone_row(const struct water_look *lk, const float *light,
                                                           const uint8_t *floor_rgb, int w, uint8_t *rgb,
                                                           uint16_t *rgb16)
{
    if (floor_rgb && rgb16)
        tone_body(lk, light, floor_rgb, w, rgb, rgb16);
    else if (floor_rgb)
        tone_body(lk, light, floor_rgb, w, rgb, NULL);
    else if (rgb16)
        tone_body(lk, light, NULL, w, rgb, rgb16);
    else
        tone_body(lk, light, NULL, w, rgb, NULL);
}

__attribute__((target("arch=x86-64-v4"))) static void tone_row_v4(const struct water_look *lk, const float *light,
                                                                  const uint8_t *floor_rgb, int w, uint8_t *rgb,
                                                                  uint16_t *rgb16)
{
    tone_row(lk, light, floor_rgb, w, rgb, rgb16);
}

__attribute__((target("arch=x86-64-v3,tune=haswell"))) static void tone_row_v3(const struct water_look *lk,
                                                                              const float *light,
                                                                              const uint8_t *floor_rgb, int w,
                                                                              uint8_t *rgb, uint16_t *rgb16)
{
    tone_row(lk, light, floor_rgb, w, rgb, rgb16);
}

void caustics_row(const struct water_look *lk, const float *light, const uint8_t *floor_rgb, int w, uint8_t *rgb,
                  uint16_t *rgb16)
{
    if (__builtin_cpu_supports("x86-64-v4"))
        tone_row_v4(lk, light, floor_rgb, w, rgb, rgb16);
    else if (__builtin_cpu_supports("avx2"))
        tone_row_v3(lk, light, floor_rgb, w, rgb, rgb16);
    else
        tone_row(lk, light, floor_rgb, w, rgb, rgb16);
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
    water_prepare_marked(r, f, scratch_set(r->rays, r->gw, r->gh, 2));
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
    .pick = water_backdrop_pick,
    .prepare = caustics_prepare,
    .row = caustics_mode_row,
    .row_float = caustics_row_float,
    .float_names = (const char *const[]){ "Y", NULL },
    .free = caustics_free,
};

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
 * cell at its (SUB sy + sx) 2: the serial order), three
 * floats a row (landing_body), then bytes: a code a cell (CELL_*), a dirty flag a floor
 * cell, flags a row (ROW_*). */
struct gather_job {
    const float *gx, *gy;
    int w, h;
    float depth;
    const float *depths;   /* per cell (render.depth_map), or NULL: `depth` everywhere */
    bool wrap_x, wrap_y;
    bool dense;            /* most cells moved: every floor cell dirty */
    float *at, *bounds, *light;
    uint8_t *code, *dirty, *rowf;
};

/* A cell's code: CELL_MOVED, its sub-rays' landing points are in `at`;
 * CELL_STILL, a still cell whose sub-rays reach a dirty floor cell: they land
 * where they entered (below); CELL_SKIP, a still cell the splat leaves out. */
enum { CELL_SKIP = 0, CELL_STILL = 1, CELL_MOVED = 2 };
enum { ROW_MOVED = 1, ROW_ACTIVE = 2 };

/* Still water. A sub-ray whose interpolated slopes are both zero (of either
 * sign) lands exactly where it entered: inv = 1, n = (-0, -0, 1), k = 1,
 * m = eta - 1 (exact), t = (+-0, +-0, -1) (-eta + (eta - 1) is exactly -1),
 * reach = depth and p + (+-0) = p. A cell's four sub-rays read the slopes of
 * the 3 x 3 cells around it; where all nine are zero and the cell is not on
 * the grid's edge (no clamp, no wrap) the cell is still, and its sub-rays
 * land at (x -+ 1/4, y -+ 1/4). A floor cell off the edge whose 3 x 3
 * neighbours are all still and which no moved sub-ray reaches receives
 * exactly the sixteen shares of those still sub-rays: products of 1/4 and of
 * 1/4 or 3/4 twice, whose sums are exact in any order, giving exactly 1.
 * Every other floor cell is dirty: its sum is made by the splat from all the
 * sub-rays that reach it (the moved ones and the still ones of the cells
 * around a dirty cell), in the serial order, as before; the others are set
 * to 1. The same bits as splatting every sub-ray, for a fraction of the work
 * where most of the water is still. */

/* out[x] = val where any of r0, r1, r2 is nonzero at x - 1, x or x + 1, else
 * 0, for x in 1..w-2 (the 3 x 3 neighbourhood); tmp: w bytes. */
static inline void near3(const uint8_t *restrict r0, const uint8_t *restrict r1, const uint8_t *restrict r2, int w,
                         uint8_t val, uint8_t *restrict tmp, uint8_t *restrict out)
{
    for (int x = 0; x < w; x++)
        tmp[x] = r0[x] | r1[x] | r2[x];
    for (int x = 1; x < w - 1; x++)
        out[x] = (uint8_t)((tmp[x - 1] | tmp[x] | tmp[x + 1]) != 0) * val;
}

/* Sets code[0..w) of row y: CELL_MOVED where the cell is on the grid's edge
 * or one of the 3 x 3 cells around it has a slope other than zero, else
 * CELL_SKIP. tmp: 2 w bytes of scratch. */
static inline __attribute__((always_inline)) void mark_moved(const struct gather_job *j, int y, uint8_t *restrict code,
                                                             uint8_t *restrict tmp)
{
    const int w = j->w, h = j->h;
    if (y == 0 || y == h - 1 || w < 3) {
        memset(code, CELL_MOVED, (size_t)w);
        return;
    }
    const float *restrict a0 = j->gx + (size_t)(y - 1) * w, *restrict a1 = a0 + w, *restrict a2 = a1 + w;
    const float *restrict b0 = j->gy + (size_t)(y - 1) * w, *restrict b1 = b0 + w, *restrict b2 = b1 + w;
    for (int x = 0; x < w; x++)
        tmp[x] = (uint8_t)((a0[x] != 0.0f) | (a1[x] != 0.0f) | (a2[x] != 0.0f) | (b0[x] != 0.0f) | (b1[x] != 0.0f)
                           | (b2[x] != 0.0f));
    code[0] = code[w - 1] = CELL_MOVED;
    near3(tmp, tmp, tmp, w, CELL_MOVED, tmp + w, code);
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

/* The landing points of columns xa..xb-1 of row y, into out (2 SUB SUB
 * floats a column, from xa's). A sub-ray of column x
 * sits a quarter cell left (sx 0) or right (sx 1) of the cell's centre, so
 * inside the grid's first and last columns grid_at reads cells x-1, x at fx
 * 0.75 and x, x+1 at fx 0.25, with px = x - 0.25 and x + 0.25 exactly: the
 * loop below makes grid_at's very operations without its clamps, so that it
 * vectorises, and the first and last columns go through grid_at itself. The
 * same values bit for bit. Returns the lowest and highest landing y through
 * *mn, *mx (lowered and raised). */
static inline __attribute__((always_inline)) void land_span(const struct gather_job *j, int y, int xa, int xb,
                                                            float *restrict out, float *mn, float *mx)
{
    const int w = j->w, h = j->h;
    const float depth = j->depth;
    for (int sy = 0; sy < SUB; sy++) {
        float py = (float)y + ((float)sy + 0.5f) / SUB - 0.5f;
        float cy = py < 0.0f ? 0.0f : py > (float)(h - 1) ? (float)(h - 1) : py;
        int y0 = (int)cy, y1 = y0 + 1 < h ? y0 + 1 : y0;
        float fy = cy - (float)y0;
        const float *restrict x0r = j->gx + (size_t)y0 * w, *restrict x1r = j->gx + (size_t)y1 * w;
        const float *restrict y0r = j->gy + (size_t)y0 * w, *restrict y1r = j->gy + (size_t)y1 * w;
        float *restrict o0 = out - (size_t)xa * (2 * SUB * SUB) + sy * SUB * 2;
        int a = xa, b = xb;
        if (a == 0)
            land_column(j, sy, py, a++, out);
        if (b == w && a < b)
            b--;
        if (j->depths) {   /* a depth per cell: every column through grid_at */
            for (int x = a; x < b; x++)
                land_column(j, sy, py, x, out + (size_t)(x - xa) * (2 * SUB * SUB));
        } else {
            for (int x = a; x < b; x++) {
                float *o = o0 + (size_t)x * SUB * SUB * 2;
                float pl = (float)x + 0.25f - 0.5f, pr = (float)x + 0.75f - 0.5f;
                float tl = x0r[x - 1] + (x0r[x] - x0r[x - 1]) * 0.75f, bl = x1r[x - 1] + (x1r[x] - x1r[x - 1]) * 0.75f;
                float ul = y0r[x - 1] + (y0r[x] - y0r[x - 1]) * 0.75f, vl = y1r[x - 1] + (y1r[x] - y1r[x - 1]) * 0.75f;
                float tr = x0r[x] + (x0r[x + 1] - x0r[x]) * 0.25f, br = x1r[x] + (x1r[x + 1] - x1r[x]) * 0.25f;
                float ur = y0r[x] + (y0r[x + 1] - y0r[x]) * 0.25f, vr = y1r[x] + (y1r[x + 1] - y1r[x]) * 0.25f;
                land_ray(pl, py, tl + (bl - tl) * fy, ul + (vl - ul) * fy, depth, o);
                land_ray(pr, py, tr + (br - tr) * fy, ur + (vr - ur) * fy, depth, o + 2);
            }
        }
        if (b < xb)
            land_column(j, sy, py, b, out + (size_t)(b - xa) * (2 * SUB * SUB));
    }
    const float *p = out;
    float lo = *mn, hi = *mx;
    for (size_t r = 0; r < (size_t)(xb - xa) * SUB * SUB; r++) {
        lo = p[2 * r + 1] < lo ? p[2 * r + 1] : lo;
        hi = p[2 * r + 1] > hi ? p[2 * r + 1] : hi;
    }
    *mn = lo;
    *mx = hi;
}

/* The first pass, rows lo..hi-1 (their light rows as scratch): the moved
 * cells (mark_moved), their landing
 * points, each row's lowest and highest landing y (bounds[3y], bounds[3y + 1],
 * counting the still cells' y -+ 1/4), its count of moved cells
 * (bounds[3y + 2]) and whether it has any. */
static inline __attribute__((always_inline)) void landing_body(const struct gather_job *j, int lo, int hi)
{
    const int w = j->w;
    for (int y = lo; y < hi; y++) {
        uint8_t *code = j->code + (size_t)y * w;
        mark_moved(j, y, code, (uint8_t *)(j->light + (size_t)y * w));
        float mn = (float)y + 0.25f - 0.5f, mx = (float)y + 0.75f - 0.5f;
        uint8_t flags = 0;
        int moved = 0;
        for (int x = 0; x < w; x++)
            moved += code[x] == CELL_MOVED;
        float *out = j->at + (size_t)y * w * (2 * SUB * SUB);
        for (int x = 0; x < w;) {
            if (code[x] != CELL_MOVED) {
                x++;
                continue;
            }
            int b = x + 1;
            while (b < w && code[b] == CELL_MOVED)
                b++;
            land_span(j, y, x, b, out, &mn, &mx);
            out += (size_t)(b - x) * (2 * SUB * SUB);
            flags = ROW_MOVED;
            x = b;
        }
        j->bounds[3 * y] = mn;
        j->bounds[3 * y + 1] = mx;
        j->bounds[3 * y + 2] = (float)moved;
        j->rowf[y] = flags;
    }
}

__attribute__((target("arch=x86-64-v4"))) static void landing_rows_v4(const struct gather_job *j, int lo,
                                                                                  int hi)
{
    landing_body(j, lo, hi);
}

__attribute__((target("arch=x86-64-v3,tune=haswell"))) static void landing_rows_v3(const struct gather_job *j,
                                                                                  int lo, int hi)
{
    landing_body(j, lo, hi);
}

static void landing_rows(void *arg, int lo, int hi)
{
    if (__builtin_cpu_supports("x86-64-v4"))
        landing_rows_v4(arg, lo, hi);
    else if (__builtin_cpu_supports("avx2"))
        landing_rows_v3(arg, lo, hi);
    else
        landing_body(arg, lo, hi);
}

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

/* The first x >= x0 (or w) with code[x] != 0, eight cells at a time where
 * they are all 0. */
static inline int next_cell(const uint8_t *code, int x, int w)
{
    for (;;) {
        while (x + 8 <= w) {
            uint64_t v;
            memcpy(&v, code + x, sizeof v);
            if (v)
                break;
            x += 8;
        }
        for (int e = x + 8 < w ? x + 8 : w; x < e; x++)
            if (code[x])
                return x;
        if (x >= w)
            return w;
    }
}

/* The landing points of cell (x, y)'s four sub-rays in the serial order:
 * a moved cell's the next in its row's `at` (*moved, then advanced), a
 * still cell's where they entered. */
static inline const float *cell_rays(int x, int y, uint8_t c, const float **moved, float *nominal)
{
    if (c == CELL_MOVED) {
        const float *a = *moved;
        *moved += 2 * SUB * SUB;
        return a;
    }
    for (int sy = 0; sy < SUB; sy++)
        for (int sx = 0; sx < SUB; sx++) {
            nominal[(2 * sy + sx) * 2] = (float)x + ((float)sx + 0.5f) / SUB - 0.5f;
            nominal[(2 * sy + sx) * 2 + 1] = (float)y + ((float)sy + 0.5f) / SUB - 0.5f;
        }
    return nominal;
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

/* The second pass, floor rows lo..hi-1: the dirty flags. A cell is dirty on
 * the grid's edge, next to a moved cell (3 x 3), or where a moved sub-ray
 * lands (its four bilinear cells). tmp: the rows' light, as bytes. */
static void dirty_rows(void *arg, int lo, int hi)
{
    const struct gather_job *j = arg;
    const int w = j->w, h = j->h;
    if (j->dense) {
        memset(j->dirty + (size_t)lo * w, 1, (size_t)(hi - lo) * w);
        return;
    }
    for (int r = lo; r < hi; r++) {
        uint8_t *d = j->dirty + (size_t)r * w, *tmp = (uint8_t *)(j->light + (size_t)r * w);
        if (r == 0 || r == h - 1 || w < 3) {
            memset(d, 1, (size_t)w);
            continue;
        }
        const uint8_t *c0 = j->code + (size_t)(r - 1) * w;
        d[0] = d[w - 1] = 1;
        near3(c0, c0 + w, c0 + 2 * (size_t)w, w, 1, tmp, d);
    }
    for (int y = 0; y < h; y++) {
        if (!(j->rowf[y] & ROW_MOVED) || !row_reaches(j, y, lo, hi))
            continue;
        const uint8_t *code = j->code + (size_t)y * w;
        const float *a = j->at + (size_t)y * w * (2 * SUB * SUB) - 2 * SUB * SUB;
        for (int x = next_cell(code, 0, w); x < w; x = next_cell(code, x + 1, w)) {
            a += 2 * SUB * SUB;   /* every cell here is moved (active_rows comes after) */
            struct cut c;
            for (int r = 0; r < SUB * SUB; r++) {
                if (!cut_ray(j, a + 2 * r, lo, hi, &c))
                    continue;
                if (c.in0)
                    j->dirty[(size_t)c.y0 * w + c.x0] = j->dirty[(size_t)c.y0 * w + c.x1] = 1;
                if (c.in1)
                    j->dirty[(size_t)c.y1 * w + c.x0] = j->dirty[(size_t)c.y1 * w + c.x1] = 1;
            }
        }
    }
}

/* The third pass, rows lo..hi-1: a still cell next to a dirty floor cell
 * (3 x 3: where its sub-rays land) becomes CELL_STILL; a row with any cell
 * to splat gets ROW_ACTIVE. tmp: the rows' light, as bytes. */
static void active_rows(void *arg, int lo, int hi)
{
    const struct gather_job *j = arg;
    const int w = j->w, h = j->h;
    for (int y = lo; y < hi; y++) {
        uint8_t *code = j->code + (size_t)y * w, *tmp = (uint8_t *)(j->light + (size_t)y * w);
        if (y == 0 || y == h - 1 || w < 3) {   /* every cell moved (mark_moved) */
            j->rowf[y] |= ROW_ACTIVE;
            continue;
        }
        const uint8_t *d0 = j->dirty + (size_t)(y - 1) * w;
        near3(d0, d0 + w, d0 + 2 * (size_t)w, w, CELL_STILL, tmp, tmp + w);
        uint8_t any = 0;
        for (int x = 1; x < w - 1; x++) {
            code[x] = code[x] ? code[x] : tmp[w + x];
            any |= code[x];
        }
        if (any | code[0] | code[w - 1])
            j->rowf[y] |= ROW_ACTIVE;
    }
}

/* The last pass, floor rows lo..hi-1: zeroed, then every sub-ray of the
 * cells to splat in the serial order (source row, column, sub-row,
 * sub-column) adds its bilinear shares that fall in these rows, in the order
 * r0[x0], r0[x1], r1[x0], r1[x1]. Each dirty cell thus receives the same
 * additions in the same order as one thread splatting every sub-ray would
 * make: the same sums bit for bit, whatever the bands. The other cells are
 * still water's 1 (above). */
static void splat_rows(void *arg, int lo, int hi)
{
    const struct gather_job *j = arg;
    const int w = j->w, h = j->h;
    const float share = 1.0f / (SUB * SUB);
    memset(j->light + (size_t)lo * w, 0, (size_t)(hi - lo) * w * sizeof *j->light);
    for (int y = 0; y < h; y++) {
        if (!(j->rowf[y] & ROW_ACTIVE) || !row_reaches(j, y, lo, hi))
            continue;
        const uint8_t *code = j->code + (size_t)y * w;
        const float *moved = j->at + (size_t)y * w * (2 * SUB * SUB);
        for (int x = next_cell(code, 0, w); x < w; x = next_cell(code, x + 1, w)) {
            float nominal[2 * SUB * SUB];
            const float *a = cell_rays(x, y, code[x], &moved, nominal);
            struct cut c;
            for (int r = 0; r < SUB * SUB; r++) {
                if (!cut_ray(j, a + 2 * r, lo, hi, &c))
                    continue;
                float *r0 = j->light + (size_t)c.y0 * w, *r1 = j->light + (size_t)c.y1 * w;
                if (c.in0) {
                    r0[c.x0] += share * (1.0f - c.fx) * (1.0f - c.fy);
                    r0[c.x1] += share * c.fx * (1.0f - c.fy);
                }
                if (c.in1) {
                    r1[c.x0] += share * (1.0f - c.fx) * c.fy;
                    r1[c.x1] += share * c.fx * c.fy;
                }
            }
        }
    }
    float *restrict l = j->light + (size_t)lo * w;
    const uint8_t *restrict d = j->dirty + (size_t)lo * w;
    for (size_t i = 0; i < (size_t)(hi - lo) * w; i++)
        l[i] = d[i] ? l[i] : 1.0f;
}

/* A ray straight down, i = (0, 0, -1), refracts at the unit normal
 * n = (-gx, -gy, 1)/|.| into t = eta i + (eta cos_i - sqrt(k)) n with
 * cos_i = n.z and k = 1 - eta^2 (1 - cos_i^2) (Snell's law in vector form;
 * k > 0 always from air into water). It meets the floor `depth` below at
 * (t.x, t.y) * depth / -t.z from where it entered. The water's own height is
 * small against depth and left out.
 *
 * Four passes: the moved cells and their landing points, row-parallel into
 * `at` (each row's slots its own, so the values do not depend on the
 * threads); the dirty floor cells, in bands of floor rows; the still cells
 * the splat needs, row-parallel; the splat, in bands of floor rows, each band
 * adding its cells' shares in the one serial order (splat_rows). When more
 * than half the cells moved, every floor cell is taken as dirty rather than
 * found (the same sums: a dirty cell's sum is the serial one). */
static void gather(const float *gx, const float *gy, int w, int h, float depth, const float *depths, bool wrap_x,
                   bool wrap_y, float *restrict at, float *restrict light)
{
    float *bounds = at + (size_t)w * h * (2 * SUB * SUB);
    uint8_t *code = (uint8_t *)(bounds + 3 * (size_t)h);
    struct gather_job j = { .gx = gx, .gy = gy, .w = w, .h = h, .depth = depth, .depths = depths,
                            .wrap_x = wrap_x, .wrap_y = wrap_y, .at = at, .bounds = bounds, .light = light,
                            .code = code, .dirty = code + (size_t)w * h, .rowf = code + 2 * (size_t)w * h };
    int nt = team_threads_for((long)w * h, 16384);
    team_for(h, nt, landing_rows, &j);
    double moved = 0;
    for (int y = 0; y < h; y++)
        moved += (double)bounds[3 * y + 2];
    j.dense = moved * 2 > (double)w * h;
    team_for(h, nt, dirty_rows, &j);
    team_for(h, nt, active_rows, &j);
    team_for(h, nt, splat_rows, &j);
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

/* test_render_water.c: the water render modes by their properties: still water
 * renders uniform (shaded, caustics), the background unchanged (refract) and
 * 128,128,255 (normals); a known slope moves the background by the expected
 * pixels; caustic light is conserved and lands where Snell's law says; wrapped
 * normal maps tile (a rolled field gives the rolled picture); walls are
 * painted in every mode; the colormaps' lightness runs the way their kind
 * promises. */
#include <math.h>
#include <omp.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emulated.h"
#include "fake_field.h"
#include "gray_png.h"
#include "render.h"
#include "render/modes.h"
#include "solver.h"
#include "water_scene.h"

static void render_once(const struct scene *sc, const float *cells, const unsigned char *walls, uint8_t *out)
{
    struct fake fk;
    fake_init(&fk, sc->grid.width, sc->grid.height, cells);
    struct renderer *r = NULL;
    struct rr_err e = { 0 };
    assert_int_equal(render_create(&r, sc, 0, &e), 0);
    struct frame fr;
    assert_int_equal(render_frame(r, &fk.f, walls, 0, &fr, &e), 0);
    assert_int_equal(fr.width, sc->render.width);
    assert_int_equal(fr.height, sc->render.height);
    memcpy(out, fr.rgb, (size_t)fr.width * fr.height * 3);
    render_free(r);
    free(fk.mem);
}

/* A background PNG of pseudo-random colours (an LCG: every pixel differs from
 * its neighbours, so a shift of one pixel shows). Returns its path (static). */
static const char *write_background(int w, int h, uint8_t *rgb)
{
    static char path[64];
    uint32_t s = 12345;
    for (int i = 0; i < w * h * 3; i++) {
        s = s * 1664525u + 1013904223u;
        rgb[i] = (uint8_t)(s >> 24);
    }
    snprintf(path, sizeof path, "/tmp/rr_test_bg_%d.png", (int)getpid());
    write_png_as(path, w, h, PNG_FORMAT_RGB, rgb);
    return path;
}

static void fill(float *cells, int n, float v)
{
    for (int i = 0; i < n; i++)
        cells[i] = v;
}

static void assert_uniform(const uint8_t *rgb, int n)
{
    for (int i = 1; i < n; i++)
        assert_memory_equal(rgb + 3 * i, rgb, 3);
}

static void test_still_water_uniform(void **state)
{
    (void)state;
    enum { W = 12, H = 9 };
    float cells[W * H];
    uint8_t out[W * H * 3];
    enum edge_kind edges[] = { EDGE_FIXED, EDGE_WRAP };
    for (int k = 0; k < 2; k++) {
        struct scene sc;
        /* Zero, and a constant height with clamped edges: both still. */
        scene_init(&sc, W, H, RENDER_SHADED, edges[k]);
        fill(cells, W * H, 0.0f);
        render_once(&sc, cells, NULL, out);
        assert_uniform(out, W * H);
        scene_init(&sc, W, H, RENDER_CAUSTICS, edges[k]);
        render_once(&sc, cells, NULL, out);
        assert_uniform(out, W * H);
        /* The floor under still water is the floor colour itself. */
        assert_memory_equal(out, sc.render.floor_color, 3);
        scene_init(&sc, W, H, RENDER_NORMALS, edges[k]);
        render_once(&sc, cells, NULL, out);
        const uint8_t flat[3] = { 128, 128, 255 };
        for (int i = 0; i < W * H; i++)
            assert_memory_equal(out + 3 * i, flat, 3);
    }
    struct scene sc;
    scene_init(&sc, W, H, RENDER_SHADED, EDGE_CLAMP);
    fill(cells, W * H, 0.7f);
    render_once(&sc, cells, NULL, out);
    assert_uniform(out, W * H);
    /* A lit surface is not black, and its highlight is not everywhere. */
    assert_true(out[0] + out[1] + out[2] > 30);
    /* A perfect mirror without highlights shows the sky straight above. */
    sc.render.reflectivity = 1;
    sc.render.specular = 0;
    render_once(&sc, cells, NULL, out);
    assert_memory_equal(out, sc.render.sky_color, 3);
    /* Physical water (F0 0.02) shows mostly its body colour. */
    sc.render.reflectivity = 0.02;
    render_once(&sc, cells, NULL, out);
    assert_true(abs(out[2] - (int)sc.render.water_color[2]) < 20);
}

static void test_refract_still_water_shows_background(void **state)
{
    (void)state;
    enum { W = 20, H = 14 };
    uint8_t bg[W * H * 3], out[W * H * 3];
    const char *path = write_background(W, H, bg);
    float cells[W * H];
    fill(cells, W * H, 0.0f);
    struct scene sc;
    scene_init(&sc, W, H, RENDER_REFRACT, EDGE_FIXED);
    sc.render.background = (char *)path;
    render_once(&sc, cells, NULL, out);
    assert_memory_equal(out, bg, sizeof bg);
    /* A smaller grid under a render of the background's size: still exact. */
    struct scene sc2;
    float small[10 * 7];
    fill(small, 10 * 7, 0.0f);
    scene_init(&sc2, 10, 7, RENDER_REFRACT, EDGE_CLAMP);
    sc2.render.width = W;
    sc2.render.height = H;
    sc2.render.background = (char *)path;
    render_once(&sc2, small, NULL, out);
    assert_memory_equal(out, bg, sizeof bg);
    unlink(path);
}

/* h = s * x: the slope is s * height_scale in every interior column, and
 * pixel x shows the background at x - refraction * slope. */
static void test_refract_known_slope_moves_background(void **state)
{
    (void)state;
    enum { W = 24, H = 10 };
    uint8_t bg[W * H * 3], out[W * H * 3];
    const char *path = write_background(W, H, bg);
    float cells[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            cells[y * W + x] = 0.25f * (float)x;
    struct scene sc;
    scene_init(&sc, W, H, RENDER_REFRACT, EDGE_CLAMP);
    sc.render.background = (char *)path;
    sc.render.specular = 0;
    sc.render.height_scale = 2;    /* slope 0.5 */
    sc.render.refraction = 6;      /* shift 3 pixels */
    render_once(&sc, cells, NULL, out);
    for (int y = 0; y < H; y++)
        for (int x = 3; x < W - 1; x++)
            assert_memory_equal(out + (y * W + x) * 3, bg + (y * W + x - 3) * 3, 3);
    /* Along y, with the render twice the grid: 2 cells are 4 pixels. */
    enum { GW = 12, GH = 5 };
    float ramp[GW * GH];
    for (int y = 0; y < GH; y++)
        for (int x = 0; x < GW; x++)
            ramp[y * GW + x] = -0.5f * (float)y;
    uint8_t bg2[W * H * 3];
    path = write_background(W, H, bg2);
    scene_init(&sc, GW, GH, RENDER_REFRACT, EDGE_CLAMP);
    sc.render.width = W;
    sc.render.height = H;
    sc.render.background = (char *)path;
    sc.render.specular = 0;
    sc.render.refraction = 4;      /* slope -0.5: -2 cells, -4 pixels */
    render_once(&sc, ramp, NULL, out);
    for (int y = 3; y <= 5; y++)   /* rows whose slope is interpolated between exact interior rows */
        for (int x = 0; x < W; x++)
            assert_memory_equal(out + (y * W + x) * 3, bg2 + ((y + 4) * W + x) * 3, 3);
    unlink(path);
}

/* With wrap, rolling the field by k columns rolls the normal map by k columns
 * exactly: the first column continues the last one, and frames tile. */
static void test_normals_wrap_tiles(void **state)
{
    (void)state;
    enum { W = 16, H = 8, K = 5 };
    float a[W * H], b[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            a[y * W + x] = sinf(2.0f * 3.14159265f * (float)x / W) + 0.5f * cosf(2.0f * 3.14159265f * (float)(y + x) / H)
                           + (x == 0 ? 0.8f : 0.0f);   /* a bump on the seam itself */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            b[y * W + (x + K) % W] = a[y * W + x];
    uint8_t oa[W * H * 3], ob[W * H * 3];
    struct scene sc;
    scene_init(&sc, W, H, RENDER_NORMALS, EDGE_WRAP);
    sc.render.height_scale = 0.7;
    render_once(&sc, a, NULL, oa);
    render_once(&sc, b, NULL, ob);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            assert_memory_equal(ob + (y * W + (x + K) % W) * 3, oa + (y * W + x) * 3, 3);
    /* Column 0 from its wrapped neighbours: red = (0.5 - 0.5 gx/|n|) * 255. */
    float gx = 0.7f * 0.5f * (a[1] - a[W - 1]), gy = 0.7f * 0.5f * (a[W] - a[(H - 1) * W]);
    float inv = 1.0f / sqrtf(gx * gx + gy * gy + 1.0f);
    assert_int_equal(oa[0], lrintf((0.5f - 0.5f * gx * inv) * 255.0f));
    assert_int_equal(oa[1], lrintf((0.5f + 0.5f * gy * inv) * 255.0f));
}

static void surface(float *cells, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float dx = (float)x - 0.4f * (float)w, dy = (float)y - 0.6f * (float)h;
            cells[y * w + x] = 1.5f * expf(-(dx * dx + dy * dy) / 30.0f) + 0.3f * sinf(0.7f * (float)x)
                               * cosf(0.5f * (float)y);
        }
}

static void slopes_of(const float *cells, int w, int h, enum edge_kind edge, float hs, float *gx, float *gy)
{
    struct field f;
    struct rr_err e = { 0 };
    assert_int_equal(field_init(&f, w, h, &e), 0);
    for (int y = 0; y < h; y++)
        memcpy(f.cur + (ptrdiff_t)y * f.stride, cells + (size_t)y * w, (size_t)w * sizeof(float));
    enum edge_kind edges[4] = { edge, edge, edge, edge };
    field_fill_ghosts(&f, f.cur, edges);
    water_slopes(&f, hs, gx, gy);
    field_free(&f);
}

/* What water_prepare_marked reads of a renderer (the edges aside). */
static void slopes_renderer(struct renderer *r, int w, int h, float *zeros, float *gx, float *gy, float hs)
{
    memset(r, 0, sizeof *r);
    r->gw = w;
    r->gh = h;
    r->zeros = zeros;
    r->gx = gx;
    r->gy = gy;
    r->look.hs = hs;
}

/* Slope planes against water_slopes' ex, ey: the same bits, but for zeros,
 * whose sign water_prepare_marked may keep from a call before. */
static void assert_slopes_equal(const float *gx, const float *gy, const float *ex, const float *ey, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ex[i] == 0.0f)
            assert_true(gx[i] == 0.0f);
        else
            assert_memory_equal(gx + i, ex + i, sizeof *ex);
        if (ey[i] == 0.0f)
            assert_true(gy[i] == 0.0f);
        else
            assert_memory_equal(gy + i, ey + i, sizeof *ey);
    }
}


/* water_prepare_marked frame after frame on the same planes, as caustics
 * renders, the planes NaN at first: a word of 64 cells whose slopes are
 * zero at this call and the one before need not be written (set here to
 * zeros of either sign, which the planes may hold there), any other must
 * be: a drop moving across still water, its wake turning words back to
 * zero, gives water_slopes' slopes at every frame, and the caustics' light
 * of those slopes. */
static void test_prepare_marked_frames(void **state)
{
    (void)state;
    enum { W = 200, H = 40, NW = (W + 63) / 64 };
    static float cells[W * H], gx[W * H], gy[W * H], ex[W * H], ey[W * H], zeros[W];
    static float light[W * H], want[W * H], at[CAUSTICS_SCRATCH(W, H)];
    static unsigned char nz[NW * 8 * H];
    struct field f;
    struct rr_err e = { 0 };
    assert_int_equal(field_init(&f, W, H, &e), 0);
    struct renderer r;
    slopes_renderer(&r, W, H, zeros, gx, gy, 2.0f);
    for (int side = 0; side < 4; side++)
        r.edges[side] = EDGE_FIXED;
    memset(nz, 0xff, sizeof nz);
    for (size_t i = 0; i < W * H; i++)
        gx[i] = gy[i] = NAN;
    int skipped = 0;
    /* A bump of radius 6 (cells cx - 5 .. cx + 5) moving across still
     * water, or none (-1). At 58, 69 and 122 its edge cell is next to a
     * word still at the frame before (63 | 64, 64 | 63, 127 | 128): that
     * word's own heights are all zero, but the slope of its first or last
     * cell is not. */
    static const int cx[] = { 20, 50, 58, -1, 69, 122, -1, 80 };
    for (int t = 0; t < (int)(sizeof cx / sizeof cx[0]); t++) {
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const float dx = (float)(x - cx[t]), dy = (float)(y - 20), rr = dx * dx + dy * dy;
                cells[y * W + x] = cx[t] >= 0 && rr < 36.0f ? 0.5f * (1.0f - rr / 36.0f) : 0.0f;
                f.cur[(ptrdiff_t)y * f.stride + x] = cells[y * W + x];
            }
        unsigned char before[sizeof nz];
        memcpy(before, nz, sizeof nz);
        /* Words still at the last call and at this one. */
        slopes_of(cells, W, H, EDGE_FIXED, 2.0f, ex, ey);
        for (int y = 0; y < H; y++)
            for (int q = 0; q < NW; q++) {
                uint64_t was;
                memcpy(&was, before + ((size_t)y * NW + q) * 8, 8);
                bool now = false;
                for (int x = 64 * q; x < W && x < 64 * q + 64; x++)
                    now |= ex[y * W + x] != 0.0f || ey[y * W + x] != 0.0f;
                if (!was && !now) {
                    skipped++;
                    for (int x = 64 * q; x < W && x < 64 * q + 64; x++)
                        gx[y * W + x] = gy[y * W + x] = t % 2 ? -0.0f : 0.0f;
                }
            }
        water_prepare_marked(&r, &f, nz);
        assert_slopes_equal(gx, gy, ex, ey, W * H);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                uint64_t word;
                memcpy(&word, nz + ((size_t)y * NW + (size_t)x / 64) * 8, 8);
                assert_int_equal(word >> (x % 64) & 1, ex[y * W + x] != 0.0f || ey[y * W + x] != 0.0f);
            }
        /* The light from these planes (zeros of either sign) is that of
         * water_slopes' own. */
        caustics_gather_plain(ex, ey, W, H, 9.0f, NULL, false, false, want);
        caustics_gather(gx, gy, W, H, 9.0f, false, false, at, light);
        assert_memory_equal(light, want, sizeof light);
    }
    assert_true(skipped > H * NW);   /* most words, most frames */
    field_free(&f);
}
/* water_prepare_marked reads the slopes straight from the simulation's
 * heights through the ghosts the boundary kinds give, its ghosts never
 * read (NaN here): the same bits as water_slopes through a copy whose
 * ghosts field_fill_ghosts filled (the first call, its marks all ones:
 * every slope written; zeros of either sign after), every kind on every
 * side (each side's own), rows and columns down to one; and the bits of
 * the nonzero slopes. */
static void test_prepare_slopes_from_heights(void **state)
{
    (void)state;
    static const int sizes[][2] = { { 40, 30 }, { 70, 3 }, { 1, 5 }, { 5, 1 }, { 1, 1 } };
    for (int z = 0; z < 5; z++) {
        const int w = sizes[z][0], h = sizes[z][1], nw = (w + 63) / 64;
        float *cells = malloc(sizeof(float) * (size_t)w * h), *gx = malloc(sizeof(float) * (size_t)w * h);
        float *gy = malloc(sizeof(float) * (size_t)w * h), *zeros = calloc((size_t)w, sizeof(float));
        unsigned char *nz = malloc((size_t)nw * 8 * h);
        assert_non_null(cells && gx && gy && zeros && nz);
        memset(nz, 0xff, (size_t)nw * 8 * h);
        surface(cells, w, h);
        for (int x = 0; x < w; x += 3)   /* a flat column: slopes x of 0 */
            for (int y = 0; y < h; y++)
                cells[y * w + x] = 0.25f;
        struct field f, g;
        struct rr_err e = { 0 };
        assert_int_equal(field_init(&f, w, h, &e), 0);
        assert_int_equal(field_init(&g, w, h, &e), 0);
        for (int y = -1; y <= h; y++)
            for (int x = -1; x <= w; x++)
                f.cur[(ptrdiff_t)y * f.stride + x] = NAN;
        for (int y = 0; y < h; y++) {
            memcpy(f.cur + (ptrdiff_t)y * f.stride, cells + (size_t)y * w, (size_t)w * sizeof(float));
            memcpy(g.cur + (ptrdiff_t)y * g.stride, cells + (size_t)y * w, (size_t)w * sizeof(float));
        }
        for (int k = 0; k < 256; k++) {
            struct renderer r;
            slopes_renderer(&r, w, h, zeros, gx, gy, 1.3f);
            for (int side = 0; side < 4; side++)
                r.edges[side] = (enum edge_kind)(k >> (2 * side) & 3);
            water_prepare_marked(&r, &f, nz);
            field_fill_ghosts(&g, g.cur, r.edges);
            float *ex = malloc(sizeof(float) * (size_t)w * h), *ey = malloc(sizeof(float) * (size_t)w * h);
            assert_non_null(ex && ey);
            water_slopes(&g, 1.3f, ex, ey);
            if (k == 0) {
                assert_memory_equal(gx, ex, sizeof(float) * (size_t)w * h);
                assert_memory_equal(gy, ey, sizeof(float) * (size_t)w * h);
            }
            assert_slopes_equal(gx, gy, ex, ey, (size_t)w * h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    uint64_t word;
                    memcpy(&word, nz + ((size_t)y * nw + (size_t)x / 64) * 8, 8);
                    assert_int_equal(word >> (x % 64) & 1, ex[y * w + x] != 0.0f || ey[y * w + x] != 0.0f);
                }
            free(ex);
            free(ey);
        }
        field_free(&f);
        field_free(&g);
        free(cells);
        free(gx);
        free(gy);
        free(zeros);
        free(nz);
    }
}

static void test_caustics_conserve_light(void **state)
{
    (void)state;
    enum { W = 40, H = 30 };
    float cells[W * H], gx[W * H], gy[W * H], light[W * H], at[CAUSTICS_SCRATCH(W, H)];
    surface(cells, W, H);
    enum edge_kind edges[] = { EDGE_FIXED, EDGE_CLAMP, EDGE_WRAP };
    for (int k = 0; k < 3; k++) {
        slopes_of(cells, W, H, edges[k], 2.0f, gx, gy);
        bool wrap = edges[k] == EDGE_WRAP;
        caustics_gather(gx, gy, W, H, 25.0f, wrap, wrap, at, light);
        double sum = 0, max = 0, min = 1e9;
        for (int i = 0; i < W * H; i++) {
            sum += (double)light[i];
            max = fmax(max, (double)light[i]);
            min = fmin(min, (double)light[i]);
        }
        assert_true(fabs(sum - W * H) < 0.01 * W * H);   /* the contract's 1% */
        assert_true(fabs(sum - W * H) < 1e-3 * W * H);   /* in fact float rounding only */
        /* The light moved: focused somewhere, thinned elsewhere. */
        assert_true(max > 1.5);
        assert_true(min < 0.7);
    }
}

/* A constant slope s along x: every sub-ray lands d = depth * t.x / -t.z to
 * the right (Snell's law, computed here in double), clamped at the edge; a
 * bilinear splat keeps the centroid, so the floor's centroid is known. */
static void test_caustics_known_slope(void **state)
{
    (void)state;
    enum { W = 30, H = 4 };
    float gx[W * H], gy[W * H], light[W * H], at[CAUSTICS_SCRATCH(W, H)];
    const double s = 0.2, depth = 10, eta = 1.0 / 1.333;
    for (int i = 0; i < W * H; i++) {
        gx[i] = (float)s;
        gy[i] = 0.0f;
    }
    caustics_gather(gx, gy, W, H, (float)depth, false, false, at, light);
    double len = sqrt(s * s + 1), n[3] = { -s / len, 0, 1 / len };
    double k = 1 - eta * eta * (1 - n[2] * n[2]), m = eta * n[2] - sqrt(k);
    double tx = m * n[0], tz = -eta + m * n[2];
    double d = depth * tx / -tz;
    assert_true(d > 0.4 && d < 0.6);   /* bent toward -n, about depth * s * (1 - eta) = 0.5 */
    assert_true(fabs(d * 256 - round(d * 256)) < 0.45);   /* not near a tie, where float and double could round apart */
    d = round(d * 256) / 256;   /* landing points are in 1/256 of a cell (render/caustics.c) */
    double want = 0, got = 0, total = 0;
    for (int x = 0; x < W; x++)
        for (int sx = 0; sx < 2; sx++) {
            double p = x + (sx + 0.5) / 2 - 0.5 + d;
            want += fmin(fmax(p, 0), W - 1) / (2.0 * W);
        }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            got += x * (double)light[y * W + x];
            total += (double)light[y * W + x];
        }
    assert_true(fabs(got / total - want) < 1e-4);
}

/* The splat in floats, as the gather made it before its sums were integers
 * (render/caustics.c): the landing points by grid_at and Snell's law with
 * the normal made unit, then every sub-ray's shares in ray order, in float.
 * The reference that the fixed-point light is compared with. */
static void caustics_float(const float *gx, const float *gy, int w, int h, float depth, bool wrap_x, bool wrap_y,
                            float *light)
{
    const float eta = 1.0f / 1.333f, share = 1.0f / 4;
    memset(light, 0, (size_t)w * h * sizeof *light);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int sy = 0; sy < 2; sy++)
                for (int sx = 0; sx < 2; sx++) {
                    float px = (float)x + ((float)sx + 0.5f) / 2 - 0.5f;
                    float py = (float)y + ((float)sy + 0.5f) / 2 - 0.5f;
                    float ax = grid_at(gx, w, h, px, py), ay = grid_at(gy, w, h, px, py);
                    float inv = 1.0f / sqrtf(ax * ax + ay * ay + 1.0f);
                    float n[3] = { -ax * inv, -ay * inv, inv };
                    float k = 1.0f - eta * eta * (1.0f - n[2] * n[2]);
                    float m = eta * n[2] - sqrtf(k);
                    float t[3] = { m * n[0], m * n[1], -eta + m * n[2] };
                    float reach = depth / -t[2];
                    float p[2] = { px + t[0] * reach, py + t[1] * reach };
                    int i0[2], i1[2];
                    float f[2];
                    for (int a = 0; a < 2; a++) {
                        int n_ = a ? h : w;
                        if (a ? wrap_y : wrap_x) {
                            float fl = floorf(p[a]);
                            int c = (int)fl % n_;
                            f[a] = p[a] - fl;
                            i0[a] = c < 0 ? c + n_ : c;
                            i1[a] = i0[a] + 1 == n_ ? 0 : i0[a] + 1;
                        } else {
                            float q = p[a] < 0.0f ? 0.0f : p[a] > (float)(n_ - 1) ? (float)(n_ - 1) : p[a];
                            i0[a] = (int)q;
                            i1[a] = i0[a] + 1 < n_ ? i0[a] + 1 : i0[a];
                            f[a] = q - (float)i0[a];
                        }
                    }
                    float *r0 = light + (size_t)i0[1] * w, *r1 = light + (size_t)i1[1] * w;
                    r0[i0[0]] += share * (1.0f - f[0]) * (1.0f - f[1]);
                    r0[i1[0]] += share * f[0] * (1.0f - f[1]);
                    r1[i0[0]] += share * (1.0f - f[0]) * f[1];
                    r1[i1[0]] += share * f[0] * f[1];
                }
}

/* Still water with a few compact drops (cosine bumps, exactly 0 outside
 * their radius): one inside, one across the left and top edges, a steep one
 * whose light a deep floor throws far over the still water. */
static void drops(float *cells, int w, int h)
{
    const float at[][4] = { { 0.3f, 0.4f, 7.0f, 1.2f }, { 0.0f, 0.0f, 6.0f, -0.8f }, { 0.75f, 0.7f, 5.0f, 4.0f } };
    memset(cells, 0, sizeof(float) * (size_t)w * h);
    for (int d = 0; d < 3; d++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                float dx = (float)x - at[d][0] * (float)w, dy = (float)y - at[d][1] * (float)h;
                float r = sqrtf(dx * dx + dy * dy) / at[d][2];
                if (r < 1.0f)
                    cells[y * w + x] += at[d][3] * 0.5f * (1.0f + cosf(3.14159265f * r));
            }
}

/* The gather tests' two kinds of water: a busy surface (s 0, every cell
 * moving) or still water with drops (s 1, most cells still). */
static void heights_case(float *cells, int w, int h, int s)
{
    if (s)
        drops(cells, w, h);
    else
        surface(cells, w, h);
}

/* The gather's marks of light 1 (caustics_still_row): run q of row y
 * marked exactly where its 64 cells all have light 1 in `light`. */
static void assert_still_marks(const float *at, const float *light, int w, int h)
{
    for (int y = 0; y < h; y++) {
        const unsigned char *m = caustics_still_row(at, w, h, y);
        for (int q = 0; q < (w + 63) / 64; q++) {
            bool one = 64 * q + 64 <= w;
            for (int x = 64 * q; x < w && x < 64 * q + 64; x++)
                one &= light[(size_t)y * w + x] == 1.0f;
            assert_int_equal(m[q], one);
        }
    }
}

/* caustics_gather against caustics_gather_plain on grids about one landing
 * block wide (w - 2 columns landed, fewer than sixteen; sixteen exactly;
 * more), busy and with drops, each edge kind, 1 to 3 threads: blocks
 * narrower than a vector add only the columns they landed. */
static void test_caustics_narrow_bit_exact(void **state)
{
    (void)state;
    enum { H = 48, WMAX = 21 };
    static float cells[WMAX * H], gx[WMAX * H], gy[WMAX * H], want[WMAX * H], light[WMAX * H];
    static float at[CAUSTICS_SCRATCH(WMAX, H)];
    const int widths[] = { 3, 5, 17, 18, 19, 21 };
    int was = omp_get_max_threads();
    for (int k = 0; k < 6; k++) {
        const int w = widths[k];
        for (int s = 0; s < 2; s++) {
            heights_case(cells, w, H, s);
            for (int e = 0; e < 4; e++) {
                const bool wx = e & 1, wy = e & 2;
                slopes_of(cells, w, H, wx && wy ? EDGE_WRAP : EDGE_FIXED, 6.0f, gx, gy);
                const float depth = wx || wy ? 0.5f : 2.0f;   /* depth + 1 < w: the landing blocks */
                caustics_gather_plain(gx, gy, w, H, depth, NULL, wx, wy, want);
                for (int t = 1; t <= 3; t++) {
                    omp_set_num_threads(t);
                    memset(light, 0xff, sizeof light);
                    caustics_gather(gx, gy, w, H, depth, wx, wy, at, light);
                    assert_memory_equal(light, want, sizeof(float) * (size_t)w * H);
                }
            }
        }
    }
    omp_set_num_threads(was);
}

/* caustics_gather against caustics_gather_plain where the blocks of
 * sixteen columns lie at the bounds of land_inner's test (render/caustics.c:
 * no clamp or wrap for any landing point of the block): widths and heights
 * that put a block's first or last column, or its row, one cell either side
 * of them (a block at column 1 over a NaN in column 0 and a floor one cell
 * deep: its first sub-ray lands a quarter cell before the grid), and slopes
 * that move the sub-rays as far as they go (NaN lands a sub-ray exactly
 * `depth` cells back on both axes, steep slopes nearly as far forward as a
 * ray can lean), each edge kind, 1 and 2 threads. A looser test lets a
 * block land past the grid's edge unclamped: other sums than the plain
 * splat's (a block one column or one row nearer the first fails here). */
static void test_caustics_inner_bounds_bit_exact(void **state)
{
    (void)state;
    enum { WMAX = 44, HMAX = 40 };
    static float gx[WMAX * HMAX], gy[WMAX * HMAX], want[WMAX * HMAX], light[WMAX * HMAX];
    static float at[CAUSTICS_SCRATCH(WMAX, HMAX)];
    const float depths[] = { 1.0f, 2.5f, 3.0f, 6.0f };
    int was = omp_get_max_threads();
    for (int w = 24; w <= WMAX; w++)
        for (int d = 0; d < 4; d++) {
            const int h = d == 3 ? HMAX : 26 + w % 3;
            /* Still water before column (7 y) % 23 of row y: the blocks start
             * at every column; the first moved one's slopes NaN. */
            for (int i = 0; i < w * h; i++) {
                const unsigned u = ((unsigned)i * 2654435761u) >> 16, v = u % 13, t = (u >> 5) % 13;
                const int x = i % w, x0 = (i / w * 7) % 23;
                const float sx = v == 1 ? -1e4f : v == 2 ? 1e4f : ((float)v - 7.0f) * 0.7f;
                const float sy = t == 1 ? 1e4f : t == 2 ? -1e4f : ((float)t - 7.0f) * 0.7f;
                gx[i] = x < x0 ? 0.0f : v == 0 || x == x0 ? NAN : sx;
                gy[i] = x < x0 ? 0.0f : t == 0 || x == x0 ? NAN : sy;
            }
            for (int e = 0; e < 4; e++) {
                const bool wx = e & 1, wy = e & 2;
                caustics_gather_plain(gx, gy, w, h, depths[d], NULL, wx, wy, want);
                for (int t = 1; t <= 2; t++) {
                    omp_set_num_threads(t);
                    memset(light, 0xff, sizeof light);
                    caustics_gather(gx, gy, w, h, depths[d], wx, wy, at, light);
                    assert_memory_equal(light, want, sizeof(float) * (size_t)w * h);
                }
            }
        }
    omp_set_num_threads(was);
}

/* caustics_gather against caustics_gather_plain (every sub-ray in turn), bit
 * for bit, on 1 to 3 threads, each edge kind on each axis, shallow (many
 * chunks), deep and deeper than the grid is high (rays crossing edges, one
 * chunk), and a floor of varying depth: over a busy surface (every cell moved) and over still water with
 * drops (most cells still, whose floor the gather starts from their fixed
 * shares without splatting them: render/caustics.c). */
static void test_caustics_bands_bit_exact(void **state)
{
    (void)state;
    /* Large enough (w * h >= 16384 per thread) for the passes to take 3 threads. */
    enum { W = 211, H = 160 };
    float *cells = malloc(sizeof(float) * W * H), *gx = malloc(sizeof(float) * W * H);
    float *gy = malloc(sizeof(float) * W * H), *want = malloc(sizeof(float) * W * H);
    float *light = malloc(sizeof(float) * W * H), *at = malloc(sizeof(float) * CAUSTICS_SCRATCH(W, H));
    float *map = malloc(sizeof(float) * W * H);
    int was = omp_get_max_threads();
    /* Shallow, deep, and deeper than the grid is high: rays crossing edges. */
    const float depths[] = { 3.0f, 12.0f, 30.0f, 400.0f };   /* 10, 5 (4 wrapped), 2 and 1 chunks */
    for (int s = 0; s < 2; s++) {
        heights_case(cells, W, H, s);
        /* Each edge wrapped or not (under the emulator, emulated.h, neither
         * and both). */
        for (int k = 0; k < 4; k += test_thin(3)) {
            const bool wx = k & 1, wy = k & 2;
            slopes_of(cells, W, H, wx && wy ? EDGE_WRAP : EDGE_FIXED, 6.0f, gx, gy);
            int still = 0;
            for (int i = 0; i < W * H; i++)
                still += gx[i] == 0.0f && gy[i] == 0.0f;
            assert_true(s ? still > W * H * 3 / 4 : still < W * H / 100);
            for (int d = 0; d < 4; d++) {
                caustics_gather_plain(gx, gy, W, H, depths[d], NULL, wx, wy, want);
                int one = 0;
                double sum = 0;
                for (int i = 0; i < W * H; i++) {
                    one += want[i] == 1.0f;
                    sum += (double)want[i];
                }
                /* Integer shares: the floor's sum is w h exactly, and so the light's
                 * where every cell is below 64 (exact as a float); above, the
                 * floats are the sums rounded to 24 bits. */
                double most = 0;
                for (int i = 0; i < W * H; i++)
                    most = fmax(most, (double)want[i]);
                assert_true(fabs(sum - (double)W * H) <= (most < 64 ? 0 : 1e-6 * W * H));
                assert_true(s || d < 3 || k || most >= 64);   /* the deep floor piles light on the clamped edge */
                if (s)   /* the drops' light lands on still floor, not only on their own */
                    assert_true(one > W * H / 2 && one < W * H - 300);
                /* One, two and three threads (two skipped under the
                 * emulator: emulated.h). */
                for (int t = 1; t <= 3; t += test_thin(2)) {
                    omp_set_num_threads(t);
                    memset(light, 0xff, sizeof(float) * W * H);   /* NaN: every cell must be written */
                    caustics_gather(gx, gy, W, H, depths[d], wx, wy, at, light);
                    assert_memory_equal(light, want, sizeof(float) * W * H);
                    assert_still_marks(at, want, W, H);
                }
            }
            /* A floor whose depth varies, 2 to 40 cells (to 400 in the last column). */
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++)
                    map[y * W + x] = x == W - 1 ? 400.0f : 2.0f + 38.0f * (float)((x * 7 + y * 3) % 50) / 49.0f;
            caustics_gather_plain(gx, gy, W, H, 0.0f, map, wx, wy, want);
            for (int t = 1; t <= 3; t++) {
                omp_set_num_threads(t);
                memset(light, 0xff, sizeof(float) * W * H);
                caustics_gather_depths(gx, gy, W, H, map, wx, wy, at, light);
                assert_memory_equal(light, want, sizeof(float) * W * H);
                assert_still_marks(at, want, W, H);
            }
        }
    }
    omp_set_num_threads(was);
    free(cells);
    free(gx);
    free(gy);
    free(want);
    free(light);
    free(at);
    free(map);
}

/* The fixed-point light against caustics_float, the splat in floats: each
 * landing point moves by at most 1/512 of a cell, so the light differs a
 * little where sub-rays crowd. Toned over a mid floor colour into 8-bit
 * pixels (caustics_row), busy and still-with-drops surfaces, shallow and
 * deep floors, clamped and wrapped edges: no channel differs by more than
 * TOL levels; at most 12 % of them differ at all where every cell moves
 * (about 9.7 %), 0.5 % over still water with drops (about 0.2 %). */
static void test_caustics_float_reference(void **state)
{
    (void)state;
    enum { W = 211, H = 160, TOL = 1 };
    float *cells = malloc(sizeof(float) * W * H), *gx = malloc(sizeof(float) * W * H);
    float *gy = malloc(sizeof(float) * W * H), *fixed = malloc(sizeof(float) * W * H);
    float *ref = malloc(sizeof(float) * W * H);
    uint8_t a[3 * W], b[3 * W];
    struct water_look lk = { .floor = { 0.55f, 0.65f, 0.6f } };
    const float depths[] = { 3.0f, 30.0f };
    for (int s = 0; s < 2; s++) {
        heights_case(cells, W, H, s);
        for (int k = 0; k < 2; k++) {
            slopes_of(cells, W, H, k ? EDGE_WRAP : EDGE_FIXED, 6.0f, gx, gy);
            for (int d = 0; d < 2; d++) {
                caustics_gather_plain(gx, gy, W, H, depths[d], NULL, k, k, fixed);
                caustics_float(gx, gy, W, H, depths[d], k, k, ref);
                long differ = 0, most = 0;
                double lmax = 0;
                for (int y = 0; y < H; y++) {
                    caustics_row(&lk, fixed + (size_t)y * W, NULL, NULL, W, a, NULL);
                    caustics_row(&lk, ref + (size_t)y * W, NULL, NULL, W, b, NULL);
                    for (int i = 0; i < 3 * W; i++) {
                        long e = labs((long)a[i] - (long)b[i]);
                        differ += e > 0;
                        most = e > most ? e : most;
                    }
                    for (int x = 0; x < W; x++)
                        lmax = fmax(lmax, fabs((double)fixed[y * W + x] - (double)ref[y * W + x]));
                }
                printf("caustics s%d k%d depth %g: %.3f %% of channels differ, by at most %ld; light by at most %.4f\n",
                       s, k, (double)depths[d], 100.0 * (double)differ / (3.0 * W * H), most, lmax);
                assert_true(most <= TOL);
                assert_true(100.0 * (double)differ / (3.0 * W * H) <= (s ? 0.5 : 12.0));
                assert_true(lmax < 0.01);
            }
        }
    }
    free(cells);
    free(gx);
    free(gy);
    free(fixed);
    free(ref);
}

/* Saturation: slopes so steep and a floor so deep that every sub-ray lands
 * past the far corner and is clamped onto it. The corner receives the light
 * of all 140 x 140 = 19600 cells, more than a uint32 sum holds (2^32 / 2^18
 * = 16384 cells' worth): it saturates at 2^32 - 1, light 16384, whatever the
 * order of the additions; every other cell is dark. */
static void test_caustics_saturate(void **state)
{
    (void)state;
    enum { W = 140, H = 140 };
    float *gx = malloc(sizeof(float) * W * H), *gy = malloc(sizeof(float) * W * H);
    float *light = malloc(sizeof(float) * W * H), *want = malloc(sizeof(float) * W * H);
    float *at = malloc(sizeof(float) * CAUSTICS_SCRATCH(W, H));
    for (int i = 0; i < W * H; i++)
        gx[i] = gy[i] = 1000.0f;
    int was = omp_get_max_threads();
    caustics_gather_plain(gx, gy, W, H, 1000.0f, NULL, false, false, want);
    for (int i = 0; i < W * H - 1; i++)
        assert_true(want[i] == 0.0f);
    assert_true(want[W * H - 1] == 16384.0f);
    for (int t = 1; t <= 3; t++) {
        omp_set_num_threads(t);
        caustics_gather(gx, gy, W, H, 1000.0f, false, false, at, light);
        assert_memory_equal(light, want, sizeof(float) * W * H);
    }
    omp_set_num_threads(was);
    free(gx);
    free(gy);
    free(light);
    free(want);
    free(at);
}

/* Walls in obstacle_color in every mode, also scaled and in refract. */
/* The light and pictures of caustics' frames (render_frame: its slopes,
 * moved set, chunks and bands split among the pool's threads) against
 * caustics_gather_plain on water_slopes' slopes, frame after frame (a drop
 * moving across still water to each edge and off, so that bands and chunks
 * change from moving to still), on 1-3 threads, fixed and wrapped edges,
 * a floor giving many chunks and bands and one giving few. */
static void test_caustics_frames_threads(void **state)
{
    (void)state;
    enum { W = 150, H = 200 };
    static float cells[W * H], ex[W * H], ey[W * H], want[W * H];
    static const int at[][2] = { { 75, 100 }, { 3, 100 }, { 146, 5 }, { -1, -1 }, { 75, 197 }, { 20, 2 } };
    static const double depths[] = { 3, 30 };
    const int was = omp_get_max_threads();
    for (int k = 0; k < 4; k++) {
        const enum edge_kind edge = k % 2 ? EDGE_WRAP : EDGE_FIXED;
        for (int t = 1; t <= 3; t += test_thin(2)) {   /* 2 skipped under the emulator (emulated.h) */
            omp_set_num_threads(t);
            struct scene sc;
            scene_init(&sc, W, H, RENDER_CAUSTICS, edge);
            sc.render.depth = depths[k / 2];
            memset(cells, 0, sizeof cells);
            struct fake fk;
            fake_init(&fk, W, H, cells);
            struct renderer *r = NULL;
            struct rr_err e = { 0 };
            assert_int_equal(render_create(&r, &sc, 0, &e), 0);
            for (int n = 0; n < (int)(sizeof at / sizeof at[0]); n++) {
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++) {
                        const float dx = (float)(x - at[n][0]), dy = (float)(y - at[n][1]);
                        const float rr = dx * dx + dy * dy;
                        cells[y * W + x] = at[n][0] >= 0 && rr < 64.0f ? 0.6f * (1.0f - rr / 64.0f) : 0.0f;
                        fk.f.cur[(ptrdiff_t)y * fk.f.stride + x] = cells[y * W + x];
                    }
                struct frame fr;
                assert_int_equal(render_frame(r, &fk.f, NULL, n, &fr, &e), 0);
                slopes_of(cells, W, H, edge, r->look.hs, ex, ey);
                caustics_gather_plain(ex, ey, W, H, (float)depths[k / 2], NULL, edge == EDGE_WRAP,
                                      edge == EDGE_WRAP, want);
                assert_memory_equal(r->light, want, sizeof want);
                assert_still_marks(r->rays, want, W, H);
                /* The rows, toned from the whole light. */
                for (int y = 0; y < H; y++) {
                    uint8_t rgb[W * 3];
                    caustics_row(&r->look, want + (size_t)y * W, NULL, NULL, W, rgb, NULL);
                    assert_memory_equal(fr.rgb + (size_t)y * W * 3, rgb, sizeof rgb);
                }
            }
            render_free(r);
            free(fk.mem);
        }
    }
    omp_set_num_threads(was);
}

static void test_walls_every_mode(void **state)
{
    (void)state;
    enum { W = 10, H = 8 };
    float cells[W * H];
    surface(cells, W, H);
    unsigned char walls[W * H] = { 0 };
    walls[3 * W + 4] = 1;
    uint8_t out[W * H * 3];
    enum render_mode modes[] = { RENDER_SHADED, RENDER_REFRACT, RENDER_NORMALS, RENDER_CAUSTICS };
    for (int m = 0; m < 4; m++) {
        struct scene sc;
        scene_init(&sc, W, H, modes[m], EDGE_FIXED);
        render_once(&sc, cells, walls, out);
        assert_memory_equal(out + (3 * W + 4) * 3, sc.render.obstacle_color, 3);
        assert_memory_not_equal(out + (3 * W + 5) * 3, sc.render.obstacle_color, 3);
    }
    /* refract at 3x: the 3x3 block over the wall cell. */
    enum { S = 3 };
    uint8_t big[W * S * H * S * 3];
    struct scene sc;
    scene_init(&sc, W, H, RENDER_REFRACT, EDGE_FIXED);
    sc.render.width = W * S;
    sc.render.height = H * S;
    render_once(&sc, cells, walls, big);
    for (int y = 3 * S; y < 4 * S; y++)
        for (int x = 4 * S; x < 5 * S; x++)
            assert_memory_equal(big + ((size_t)y * W * S + x) * 3, sc.render.obstacle_color, 3);
    assert_memory_not_equal(big + ((size_t)(3 * S) * W * S + 5 * S) * 3, sc.render.obstacle_color, 3);
}

/* Other sizes go through libswscale: a still surface stays uniform. */
static void test_scaled_water(void **state)
{
    (void)state;
    enum { GW = 8, GH = 6, RW = 19, RH = 13 };
    float cells[GW * GH];
    fill(cells, GW * GH, 0.0f);
    uint8_t out[RW * RH * 3];
    enum render_mode modes[] = { RENDER_SHADED, RENDER_NORMALS, RENDER_CAUSTICS };
    for (int m = 0; m < 3; m++) {
        struct scene sc;
        scene_init(&sc, GW, GH, modes[m], EDGE_CLAMP);
        sc.render.width = RW;
        sc.render.height = RH;
        render_once(&sc, cells, NULL, out);
        assert_uniform(out, RW * RH);
    }
}

/* CIE L* of an sRGB byte colour. */
static double lightness(const unsigned char c[3])
{
    double lin[3];
    for (int k = 0; k < 3; k++) {
        double v = c[k] / 255.0;
        lin[k] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
    }
    double y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    return y > 216.0 / 24389 ? 116 * cbrt(y) - 16 : y * 24389.0 / 27;
}

/* Sequential maps: L* rises all the way, in steps within a factor of the
 * mean (perceptually even). Diverging maps: L* rises to the middle and falls
 * after it, the ends about as dark as each other. Lightness is taken over
 * 8-entry steps, so that byte rounding does not count as a reversal. */
static void test_colormap_lightness(void **state)
{
    (void)state;
    const char *seq[] = { "viridis", "cividis", "magma", "inferno", "plasma", "grey" };
    for (int i = 0; i < 6; i++) {
        const unsigned char (*t)[3] = colormap_find(seq[i]);
        assert_non_null(t);
        double mean = (lightness(t[255]) - lightness(t[0])) / 255.0 * 15;
        assert_true(mean > 0);
        for (int j = 15; j < 256; j += 15) {
            double step = lightness(t[j]) - lightness(t[j - 15]);
            if (!(step > 0.3 * mean && step < 2.0 * mean))
                fail_msg("%s: L* step %.2f at %d, mean %.2f", seq[i], step, j, mean);
        }
    }
    const char *div[] = { "balance", "coolwarm" };
    for (int i = 0; i < 2; i++) {
        const unsigned char (*t)[3] = colormap_find(div[i]);
        for (int j = 8; j <= 120; j += 8)
            if (!(lightness(t[j]) > lightness(t[j - 8])))
                fail_msg("%s: L* falls at %d", div[i], j);
        for (int j = 143; j < 256; j += 8)
            if (!(lightness(t[j]) < lightness(t[j - 8])))
                fail_msg("%s: L* rises at %d", div[i], j);
        assert_true(fabs(lightness(t[0]) - lightness(t[255])) < 12);
    }
    /* cividis' published ends (Nunez et al. 2018). */
    const unsigned char (*c)[3] = colormap_find("cividis");
    const unsigned char c0[3] = { 0, 32, 77 }, c255[3] = { 255, 234, 70 };
    assert_memory_equal(c[0], c0, 3);
    assert_memory_equal(c[255], c255, 3);
}

/* The slopes at the grid's edges come from where the solver holds a fixed
 * edge at 0 (solver_ops.fixed_wall): the finite-difference solvers' ghost
 * cell one cell beyond the edge cell is 0; the spectral solver's wall is
 * the edge cell's face, half a cell out, whose odd mirror makes the ghost
 * -h(edge) (docs/solvers.md, "Where the fixed wall is"). clamp is the even
 * mirror about the face, the ghost h(edge), for both. On a 5 x 4 grid, with
 * height_scale 1 (k = 1/2), by hand, for every water mode that makes slope
 * planes (caustics: marked words; refract: whole rows) and for the pixels
 * of the row modes (normals). At an absorb edge the ghost is the solver's
 * cell beyond the edge where its domain goes on there (field_beyond: the
 * spectral solver's pad; here a hook of the test's), else the edge cell
 * (clamp's); beyond is read at absorb edges only. */
/* The cells beyond test_edge_slopes_follow_solver_wall's grid: left and
 * right two floats a row apart (stride 2); top, bottom by column. */
static const float beyond_left[8] = { 10, 0, 20, 0, 30, 0, 40, 0 }, beyond_right[8] = { -1, 0, -2, 0, -3, 0, -4, 0 };
static const float beyond_top[5] = { 6, 7, 8, 9, 10 }, beyond_bottom[5] = { 1, 3, 5, 7, 9 };

/* struct field's beyond hook giving those, as a solver's would. */
static const float *beyond_cells(const void *solver, enum edge_side side, ptrdiff_t *stride)
{
    static const float *const cells[4] = { [EDGE_LEFT] = beyond_left, [EDGE_RIGHT] = beyond_right,
                                           [EDGE_TOP] = beyond_top, [EDGE_BOTTOM] = beyond_bottom };
    assert_null(solver);
    *stride = 2;
    return cells[side];
}

static void test_edge_slopes_follow_solver_wall(void **state)
{
    (void)state;
    enum { W = 5, H = 4 };
    static const float cells[W * H] = {
        1, 2, 3, 4, 5,
        2, 3, 5, 7, 8,
        0, 1, 1, 2, 3,
        4, 0, 2, 1, 6,
    };
    /* gx at (0, 0), (4, 1), (2, 1); gy at (0, 0), (2, 3), (4, 3): */
    static const struct {
        const char *solver;
        enum edge_kind edge;
        float gx00, gx41, gx21, gy00, gy23, gy43;
        bool beyond;   /* the field says where the surface goes on beyond the edges */
    } cases[] = {
        /* ghost 0: (2 - 0) / 2, (0 - 7) / 2, (7 - 3) / 2, (2 - 0) / 2, (0 - 1) / 2, (0 - 3) / 2 */
        { "elias", EDGE_FIXED, 1.0f, -3.5f, 2.0f, 1.0f, -0.5f, -1.5f, false },
        { "wave", EDGE_FIXED, 1.0f, -3.5f, 2.0f, 1.0f, -0.5f, -1.5f, false },
        /* ghost -h: (2 + 1) / 2, (-8 - 7) / 2, 2, (2 + 1) / 2, (-2 - 1) / 2, (-6 - 3) / 2 */
        { "spectral", EDGE_FIXED, 1.5f, -7.5f, 2.0f, 1.5f, -1.5f, -4.5f, false },
        /* ghost h: (2 - 1) / 2, (8 - 7) / 2, 2, (2 - 1) / 2, (2 - 1) / 2, (6 - 3) / 2 */
        { "elias", EDGE_CLAMP, 0.5f, 0.5f, 2.0f, 0.5f, 0.5f, 1.5f, false },
        { "spectral", EDGE_CLAMP, 0.5f, 0.5f, 2.0f, 0.5f, 0.5f, 1.5f, false },
        { "spectral", EDGE_CLAMP, 0.5f, 0.5f, 2.0f, 0.5f, 0.5f, 1.5f, true },
        { "wave", EDGE_ABSORB, 0.5f, 0.5f, 2.0f, 0.5f, 0.5f, 1.5f, false },
        { "spectral", EDGE_ABSORB, 0.5f, 0.5f, 2.0f, 0.5f, 0.5f, 1.5f, false },
        /* the cells beyond (left, right, top, bottom below): (2 - 10) / 2,
         * (-2 - 7) / 2, 2, (2 - 6) / 2, (5 - 1) / 2, (9 - 3) / 2 */
        { "spectral", EDGE_ABSORB, -4.0f, -4.5f, 2.0f, -2.0f, 2.0f, 3.0f, true },
    };
    const enum render_mode planes[] = { RENDER_CAUSTICS, RENDER_REFRACT };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t m = 0; m < 3; m++) {
            struct scene sc;
            scene_init(&sc, W, H, m < 2 ? planes[m] : RENDER_NORMALS, cases[c].edge);
            sc.solver.type = solver_find(cases[c].solver);
            assert_non_null(sc.solver.type);
            struct fake fk;
            fake_init(&fk, W, H, cells);
            if (cases[c].beyond)
                fk.f.beyond = beyond_cells;
            struct renderer *r = NULL;
            struct rr_err e = { 0 };
            assert_int_equal(render_create(&r, &sc, 0, &e), 0);
            struct frame fr;
            assert_int_equal(render_frame(r, &fk.f, NULL, 0, &fr, &e), 0);
            if (m < 2) {
                assert_true(r->gx[0 * W + 0] == cases[c].gx00);
                assert_true(r->gx[1 * W + 4] == cases[c].gx41);
                assert_true(r->gx[1 * W + 2] == cases[c].gx21);
                assert_true(r->gy[0 * W + 0] == cases[c].gy00);
                assert_true(r->gy[3 * W + 2] == cases[c].gy23);
                assert_true(r->gy[3 * W + 4] == cases[c].gy43);
            } else {
                /* normals: red = (0.5 - 0.5 gx / |n|) 255, green = (0.5 + 0.5 gy / |n|) 255. */
                const float gx = cases[c].gx00, gy = cases[c].gy00;
                const float inv = 1.0f / sqrtf(gx * gx + gy * gy + 1.0f);
                assert_int_equal(fr.rgb[0], lrintf((0.5f - 0.5f * gx * inv) * 255.0f));
                assert_int_equal(fr.rgb[1], lrintf((0.5f + 0.5f * gy * inv) * 255.0f));
            }
            render_free(r);
            free(fk.mem);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_still_water_uniform),
        cmocka_unit_test(test_refract_still_water_shows_background),
        cmocka_unit_test(test_refract_known_slope_moves_background),
        cmocka_unit_test(test_normals_wrap_tiles),
        cmocka_unit_test(test_edge_slopes_follow_solver_wall),
        cmocka_unit_test(test_prepare_slopes_from_heights),
        cmocka_unit_test(test_prepare_marked_frames),
        cmocka_unit_test(test_caustics_conserve_light),
        cmocka_unit_test(test_caustics_known_slope),
        cmocka_unit_test(test_caustics_bands_bit_exact),
        cmocka_unit_test(test_caustics_narrow_bit_exact),
        cmocka_unit_test(test_caustics_inner_bounds_bit_exact),
        cmocka_unit_test(test_caustics_float_reference),
        cmocka_unit_test(test_caustics_saturate),
        cmocka_unit_test(test_caustics_frames_threads),
        cmocka_unit_test(test_walls_every_mode),
        cmocka_unit_test(test_scaled_water),
        cmocka_unit_test(test_colormap_lightness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

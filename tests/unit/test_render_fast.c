/* test_render_fast.c: the renderer's fast paths give the bits of the plain
 * code they replace. water_powf against libm's powf (over a sweep of every
 * 61st float in [0, 1], every 4099th above, the special values and several
 * exponents); shade_row and normals_row, at 8 and 16 bits, against a plain
 * per-pixel loop with libm's fmaxf, fminf, powf and lrintf (still chunks,
 * ripples, slopes steep enough that n.h is 0 or small, and chunk edges);
 * caustics_row against its plain channel loops; unit_round against
 * lrintf(fminf(fmaxf(v, 0), 1) * scale) on ties, ends and NaN. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emulated.h"
#include "render/modes.h"

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Compares water_powf with powf over xs for exponent y; fails on the first difference. */
static void check_pow(const float *xs, int n, float y)
{
    float *got = malloc((size_t)n * sizeof *got);
    assert_non_null(got);
    water_powf(xs, y, n, got);
    for (int i = 0; i < n; i++) {
        float want = powf(xs[i], y);
        if (memcmp(&want, &got[i], sizeof want) != 0)
            fail_msg("powf(%a, %a): %a, water_powf gave %a", (double)xs[i], (double)y, (double)want, (double)got[i]);
    }
    free(got);
}

static void test_powf_bits(void **state)
{
    (void)state;
    /* Every 521st float in [0, 1] (the shading's n.h), every 4099th up to
     * infinity (every 7 times that under the emulator: emulated.h). */
    const uint32_t lo = 521u * (uint32_t)test_thin(7), hi = 4099u * (uint32_t)test_thin(7);
    int n = 0, cap = 0x3f800000 / 521 + 0x40000000 / 4099 + 64;
    float *xs = malloc((size_t)cap * sizeof *xs);
    assert_non_null(xs);
    for (uint32_t u = 0; u <= 0x3f800000u; u += lo)
        xs[n++] = from_bits(u);
    for (uint32_t u = 0x3f800000u; u < 0x7f800000u; u += hi)
        xs[n++] = from_bits(u);
    const float special[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0x1p-149f, 0x1p-126f, 0x1.fffffep-127f, 0.5f, 2.0f,
                              -2.0f, INFINITY, -INFINITY, NAN, 0x1.fffffep+127f, 0.23f, 0.2329f, 1e-3f };
    memcpy(xs + n, special, sizeof special);
    n += (int)(sizeof special / sizeof *special);
    const float ys[] = { 60.0f, 2.0f, 0.37f, 1000.0f, 7.5f, -3.5f, 1.0f, 0.0f, INFINITY, NAN, 1e-30f };
    for (size_t k = 0; k < sizeof ys / sizeof *ys; k++)
        check_pow(xs, n, ys[k]);
    free(xs);
}

/* A channel in [0, 1] (clamped, NaN giving 0) to 8 and 16 bits, with libm. */
static void plain_channel(float v, uint8_t *out, uint16_t *out16)
{
    v = fminf(fmaxf(v, 0.0f), 1.0f);
    *out = (uint8_t)lrintf(v * 255.0f);
    *out16 = (uint16_t)lrintf(v * 65535.0f);
}

/* The shading as it was written before it was vectorised: one pixel at a
 * time, with libm. The reference the fast path must equal, at 8 and at 16
 * bits. */
static void shade_plain(const struct water_look *lk, const float *gx, const float *gy, int w, uint8_t *rgb,
                        uint16_t *rgb16)
{
    const float F0 = lk->f0, ambient = 0.35f;
    for (int x = 0; x < w; x++) {
        float inv = 1.0f / sqrtf(gx[x] * gx[x] + gy[x] * gy[x] + 1.0f);
        float n[3] = { -gx[x] * inv, -gy[x] * inv, inv };
        float ndl = fmaxf(0.0f, n[0] * lk->light[0] + n[1] * lk->light[1] + n[2] * lk->light[2]);
        float ndh = fmaxf(0.0f, n[0] * lk->half[0] + n[1] * lk->half[1] + n[2] * lk->half[2]);
        float c = 1.0f - n[2], c2 = c * c;
        float fr = F0 + (1.0f - F0) * c2 * c2 * c;
        float rz = 2.0f * n[2] * n[2] - 1.0f;
        float horizon = 1.0f + 0.6f * (1.0f - fmaxf(rz, 0.0f));
        float spec = lk->specular * powf(ndh, lk->shininess);
        float body = ambient + (1.0f - ambient) * ndl;
        for (int k = 0; k < 3; k++) {
            float v = (1.0f - fr) * lk->water[k] * body + fr * lk->sky[k] * horizon + spec;
            plain_channel(v, &rgb[3 * x + k], &rgb16[3 * x + k]);
        }
    }
}

static void normals_plain(const float *gx, const float *gy, int w, uint8_t *rgb, uint16_t *rgb16)
{
    for (int x = 0; x < w; x++) {
        float inv = 1.0f / sqrtf(gx[x] * gx[x] + gy[x] * gy[x] + 1.0f);
        plain_channel(0.5f - 0.5f * gx[x] * inv, &rgb[3 * x], &rgb16[3 * x]);
        plain_channel(0.5f + 0.5f * gy[x] * inv, &rgb[3 * x + 1], &rgb16[3 * x + 1]);
        plain_channel(0.5f + 0.5f * inv, &rgb[3 * x + 2], &rgb16[3 * x + 2]);
    }
}

/* A W x H field (stride S) whose left part is still water and whose right
 * part carries ripples of growing amplitude down the rows, up to slopes of
 * 20 (n.h down to 0); ghost rows as a clamped edge has them, ghost columns
 * NaN (shade_row must take row_nbhd's left and right instead). */
enum { W = 333, H = 24, S = W + 5 };

static void make_heights(float *mem, float **cells)
{
    float *c = mem + S + 1;
    for (int y = -1; y <= H; y++)
        for (int x = -1; x <= W; x++) {
            float amp = 0.001f * powf(3.0f, (float)(y < 0 ? 0 : y > H - 1 ? H - 1 : y) / 2.0f);
            int xc = x < 0 ? 0 : x > W - 1 ? W - 1 : x;
            c[y * S + x] = x != xc ? NAN
                           : xc < 140 ? 0.25f : amp * sinf(0.37f * (float)xc) * cosf(0.23f * (float)(y * 3 + xc));
        }
    *cells = c;
}

static void look(struct water_look *lk, double shininess, double hs)
{
    struct render_config rc;
    memset(&rc, 0, sizeof rc);
    rc.height_scale = hs;
    rc.light[0] = -0.4;
    rc.light[1] = 0.3;
    rc.light[2] = 1.0;
    const unsigned char water[3] = { 10, 60, 90 }, sky[3] = { 200, 225, 255 };
    memcpy(rc.water_color, water, 3);
    memcpy(rc.sky_color, sky, 3);
    rc.specular = 0.8;
    rc.shininess = shininess;
    rc.reflectivity = 0.02;
    water_look_init(lk, &rc);
}

static void test_shade_and_normals_bits(void **state)
{
    (void)state;
    float *mem = calloc((size_t)S * (H + 2) + 8, sizeof *mem), *c;
    float gx[W], gy[W];
    uint8_t fast[3 * W], plain[3 * W];
    uint16_t fast16[3 * W], plain16[3 * W];
    assert_non_null(mem);
    make_heights(mem, &c);
    const double shin[] = { 60.0, 7.5, 1.0, 0.0 }, hs[] = { 1.0, 40.0, -3.0 };
    int still = 0, steep = 0;
    for (size_t i = 0; i < sizeof shin / sizeof *shin; i++)
        for (size_t j = 0; j < sizeof hs / sizeof *hs; j++) {
            struct water_look lk;
            look(&lk, shin[i], hs[j]);
            for (int y = 0; y < H; y++) {
                const float *row = c + y * S;
                /* left: the clamped edge; right: a fixed one (0) */
                const struct row_nbhd rn = { .up = row - S, .mid = row, .dn = row + S, .left = row[0], .right = 0.0f };
                for (int x = 0; x < W; x++) {
                    float l = x > 0 ? row[x - 1] : rn.left, r = x < W - 1 ? row[x + 1] : rn.right;
                    gx[x] = 0.5f * lk.hs * (r - l);
                    gy[x] = 0.5f * lk.hs * (row[x + S] - row[x - S]);
                    still += gx[x] == 0.0f && gy[x] == 0.0f;
                    steep += fabsf(gx[x]) > 3.0f;
                }
                shade_row(&lk, &rn, W, fast, NULL);
                shade_plain(&lk, gx, gy, W, plain, plain16);
                for (int x = 0; x < W; x++)
                    if (memcmp(fast + 3 * x, plain + 3 * x, 3) != 0)
                        fail_msg("shade: row %d pixel %d (slopes %g, %g, shininess %g): %d,%d,%d, plain %d,%d,%d", y,
                                 x, (double)gx[x], (double)gy[x], shin[i], fast[3 * x], fast[3 * x + 1],
                                 fast[3 * x + 2], plain[3 * x], plain[3 * x + 1], plain[3 * x + 2]);
                /* With the 16-bit colours: the same bytes, and those. */
                uint8_t again[3 * W];
                shade_row(&lk, &rn, W, again, fast16);
                assert_memory_equal(again, fast, sizeof fast);
                assert_memory_equal(fast16, plain16, sizeof fast16);
                normals_row(lk.hs, &rn, W, fast, NULL);
                normals_plain(gx, gy, W, plain, plain16);
                assert_memory_equal(fast, plain, sizeof fast);
                normals_row(lk.hs, &rn, W, again, fast16);
                assert_memory_equal(again, fast, sizeof fast);
                assert_memory_equal(fast16, plain16, sizeof fast16);
            }
        }
    /* The field exercised what it was made for. */
    assert_true(still > 1000);
    assert_true(steep > 100);
    free(mem);
}

/* caustics_row as it was written before it was vectorised: channel loops,
 * libm's lrintf. */
static void caustics_plain(const struct water_look *lk, const float *light, const uint8_t *floor_rgb, int w,
                           uint8_t *rgb, uint16_t *rgb16)
{
    for (int x = 0; x < w; x++) {
        float l = light[x], c[3], over = 0.0f;
        for (int k = 0; k < 3; k++) {
            float base = floor_rgb ? (float)floor_rgb[3 * x + k] / 255.0f : lk->floor[k];
            c[k] = base * l;
            over = fmaxf(c[k] - 1.0f, over);
        }
        for (int k = 0; k < 3; k++) {
            float v = fminf(fmaxf(c[k] + 0.5f * over, 0.0f), 1.0f);
            rgb[3 * x + k] = (uint8_t)lrintf(v * 255.0f);
            if (rgb16)
                rgb16[3 * x + k] = (uint16_t)lrintf(v * 65535.0f);
        }
    }
}

/* caustics_row against caustics_plain: light from 0 to past bleaching white,
 * the ties of v * 255 (floor 1: light (n + 0.5) / 255), with and without a
 * floor picture and a 16-bit output, a width with a remainder after any
 * vector. */
static void test_caustics_row_bits(void **state)
{
    (void)state;
    enum { N = 1037 };
    static float light[N];
    static uint8_t floor_rgb[3 * N], fast[3 * N], plain[3 * N];
    static uint16_t fast16[3 * N], plain16[3 * N];
    for (int x = 0; x < N; x++) {
        light[x] = x < 512 ? ((float)(x / 2) + 0.5f * (float)(x % 2)) / 255.0f : 3.0f * (float)(x - 512) / 524.0f;
        for (int k = 0; k < 3; k++)
            floor_rgb[3 * x + k] = (uint8_t)(x * 37 + k * 101);
    }
    struct water_look lk;
    look(&lk, 60.0, 1.0);
    const float floors[][3] = { { 1.0f, 1.0f, 1.0f }, { 150.0f / 255.0f, 170.0f / 255.0f, 160.0f / 255.0f } };
    for (int f = 0; f < 2; f++) {
        memcpy(lk.floor, floors[f], sizeof lk.floor);
        for (int pic = 0; pic < 2; pic++) {
            const uint8_t *fl = pic ? floor_rgb : NULL;
            caustics_row(&lk, light, NULL, fl, N, fast, NULL);
            caustics_plain(&lk, light, fl, N, plain, NULL);
            assert_memory_equal(fast, plain, sizeof fast);
            memset(fast, 0, sizeof fast);
            caustics_row(&lk, light, NULL, fl, N, fast, fast16);
            caustics_plain(&lk, light, fl, N, plain, plain16);
            assert_memory_equal(fast, plain, sizeof fast);
            assert_memory_equal(fast16, plain16, sizeof fast16);
        }
    }
}

/* caustics_row over runs of light 1 (a still floor) against
 * caustics_plain: whole runs of 64 at 1, runs with one pixel off 1 (first,
 * last, 1 - 2^-24, 1 + 2^-23), the row's short last run at 1; the runs
 * found from the light itself (still NULL) and from marks as the gather
 * makes them (caustics_still_row: 1 where the run is all 1); with and
 * without a floor picture (every byte value) and a 16-bit output. */
static void test_caustics_row_still_runs(void **state)
{
    (void)state;
    enum { N = 64 * 9 + 37, NR = (N + 63) / 64 };
    static float light[N];
    static uint8_t floor_rgb[3 * N], fast[3 * N], plain[3 * N];
    static uint16_t fast16[3 * N], plain16[3 * N];
    unsigned char marks[NR];
    for (int x = 0; x < N; x++) {
        light[x] = 1.0f;
        for (int k = 0; k < 3; k++)
            floor_rgb[3 * x + k] = (uint8_t)(x + 85 * k);
    }
    light[64 * 1] = 0.5f;
    light[64 * 2 + 63] = 2.5f;
    light[64 * 4 + 10] = 1.0f - 0x1p-24f;
    light[64 * 5 + 20] = 1.0f + 0x1p-23f;
    light[64 * 7 + 30] = 0.0f;
    for (int q = 0; q < NR; q++) {
        bool one = q < N / 64;
        for (int x = 64 * q; x < N && x < 64 * q + 64; x++)
            one &= light[x] == 1.0f;
        marks[q] = one;
    }
    assert_int_equal(marks[0] + marks[3] + marks[6] + marks[8], 4);
    assert_int_equal(marks[1] + marks[2] + marks[4] + marks[5] + marks[7] + marks[9], 0);
    struct water_look lk;
    look(&lk, 60.0, 1.0);
    const float floors[][3] = { { 1.0f, 1.0f, 1.0f }, { 150.0f / 255.0f, 170.0f / 255.0f, 160.0f / 255.0f } };
    for (int f = 0; f < 2; f++) {
        memcpy(lk.floor, floors[f], sizeof lk.floor);
        for (int pic = 0; pic < 2; pic++)
            for (int m = 0; m < 2; m++) {
                const uint8_t *fl = pic ? floor_rgb : NULL;
                const unsigned char *st = m ? marks : NULL;
                memset(fast, 0, sizeof fast);
                caustics_row(&lk, light, st, fl, N, fast, NULL);
                caustics_plain(&lk, light, fl, N, plain, NULL);
                assert_memory_equal(fast, plain, sizeof fast);
                memset(fast, 0, sizeof fast);
                memset(fast16, 0, sizeof fast16);
                caustics_row(&lk, light, st, fl, N, fast, fast16);
                caustics_plain(&lk, light, fl, N, plain, plain16);
                assert_memory_equal(fast, plain, sizeof fast);
                assert_memory_equal(fast16, plain16, sizeof fast16);
            }
    }
}

/* The 16-bit output's rounding, by hand: v * 65535 to nearest, ties to even,
 * clamped, NaN 0. */
static void test_unit_u16(void **state)
{
    (void)state;
    assert_int_equal(unit_u16(0.0f), 0);
    assert_int_equal(unit_u16(1.0f), 65535);
    assert_int_equal(unit_u16(0.5f), 32768);          /* 32767.5: ties to even */
    assert_int_equal(unit_u16(0.25f), 16384);         /* 16383.75 */
    assert_int_equal(unit_u16(0.75f), 49151);         /* 49151.25 */
    assert_int_equal(unit_u16(1.0f / 65535.0f), 1);
    assert_int_equal(unit_u16(1.4f / 65535.0f), 1);
    assert_int_equal(unit_u16(1.6f / 65535.0f), 2);
    assert_int_equal(unit_u16(100.0f / 255.0f), 25700);   /* byte 100 times 257 */
    assert_int_equal(unit_u16(-0.5f), 0);
    assert_int_equal(unit_u16(7.0f), 65535);
    assert_int_equal(unit_u16(NAN), 0);
    assert_int_equal(unit_u16(INFINITY), 65535);
}

static void test_unit_round(void **state)
{
    (void)state;
    const float scales[] = { 255.0f, 65535.0f };
    for (int s = 0; s < 2; s++) {
        float k = scales[s];
        /* Exact ties (v * k == m + 0.5 in float) round to even, as lrintf does. */
        int ties = 0;
        for (int m = 0; m < (int)k; m++) {
            float v = ((float)m + 0.5f) / k;
            if (v * k == (float)m + 0.5f) {
                ties++;
                assert_int_equal(unit_round(v, k), m % 2 ? m + 1 : m);
            }
            float near[3] = { v, nextafterf(v, 0.0f), nextafterf(v, 1.0f) };
            for (int q = 0; q < 3; q++)
                assert_int_equal(unit_round(near[q], k), lrintf(fminf(fmaxf(near[q], 0.0f), 1.0f) * k));
        }
        assert_true(ties > 10);
        assert_int_equal(unit_round(NAN, k), 0);
        assert_int_equal(unit_round(-INFINITY, k), 0);
        assert_int_equal(unit_round(-0.0f, k), 0);
        assert_int_equal(unit_round(INFINITY, k), (int)k);
        assert_int_equal(unit_round(1.0f, k), (int)k);
        assert_int_equal(unit_round(0x1p-149f, k), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_powf_bits),
        cmocka_unit_test(test_shade_and_normals_bits),
        cmocka_unit_test(test_unit_round),
        cmocka_unit_test(test_unit_u16),
        cmocka_unit_test(test_caustics_row_bits),
        cmocka_unit_test(test_caustics_row_still_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_render.c: the height and colormap renders on hand-made fields: exact
 * bytes, rounding, clamping, walls, 16-bit grey, rows as wide as the fast
 * paths' vectors against the plain formula, raw heights, swscale scaling,
 * the errors for unknown colormaps and unreadable pictures, and the table of
 * render modes against the scene's names. The water modes are tested in
 * test_render_water.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <omp.h>

#include "fake_field.h"
#include "hand_scene.h"
#include "render.h"
#include "render/modes.h"
#include "sinks/yuv420.h"
#include "sws_one_call.h"

/* Makes sc's renderer with `needs` and renders frame 0 of f (walls may be
 * NULL) into *fr; both must succeed, or the test fails with the message. */
static struct renderer *render_one(const struct scene *sc, int needs, const struct field *f,
                                   const unsigned char *walls, struct frame *fr)
{
    struct renderer *r = NULL;
    struct rr_err e = { 0 };
    if (render_create(&r, sc, needs, &e) < 0)
        fail_msg("render_create: %s", e.msg);
    if (render_frame(r, f, walls, 0, fr, &e) < 0)
        fail_msg("render_frame: %s", e.msg);
    return r;
}

static void test_height_exact_bytes(void **state)
{
    (void)state;
    /* row 0: range ends and 0; row 1: clamped below and above, a wall. */
    const float cells[6] = { -1.0f, 0.0f, 1.0f, -5.0f, 9.0f, 0.5f };
    const unsigned char walls[6] = { 0, 0, 0, 0, 0, 1 };
    struct fake fk;
    fake_init(&fk, 3, 2, cells);
    struct scene sc;
    render_scene(&sc, 3, 2, RENDER_HEIGHT);
    struct renderer *r = NULL;
    struct rr_err e = { 0 };
    assert_int_equal(render_create(&r, &sc, 0, &e), 0);
    struct frame fr;
    assert_int_equal(render_frame(r, &fk.f, walls, 7, &fr, &e), 0);
    assert_int_equal(fr.index, 7);
    assert_int_equal(fr.width, 3);
    assert_int_equal(fr.height, 2);
    assert_null(fr.gray16);
    assert_null(fr.heights);
    const uint8_t want[18] = {
        0, 0, 0,   128, 128, 128, 255, 255, 255,   /* -1 black, 0 mid-grey (127.5 rounds to even 128), 1 white */
        0, 0, 0,   255, 255, 255, 200, 10, 20,     /* clamped, clamped, wall in obstacle_color */
    };
    assert_memory_equal(fr.rgb, want, sizeof want);
    /* Without walls the 0.5 cell is (0.5+1)/2*255 = 191.25 -> 191. */
    assert_int_equal(render_frame(r, &fk.f, NULL, 8, &fr, &e), 0);
    assert_int_equal(fr.rgb[15], 191);
    render_free(r);
    render_free(NULL);
    free(fk.mem);
}

static void test_height_nan_is_black(void **state)
{
    (void)state;
    const float cells[2] = { __builtin_nanf(""), 0.25f };
    struct fake fk;
    fake_init(&fk, 2, 1, cells);
    struct scene sc;
    render_scene(&sc, 2, 1, RENDER_HEIGHT);
    sc.render.range[0] = 0;   /* range [0, 0.5]: 0.25 is the middle */
    sc.render.range[1] = 0.5;
    struct frame fr;
    struct renderer *r = render_one(&sc, 0, &fk.f, NULL, &fr);
    assert_int_equal(fr.rgb[0], 0);
    assert_int_equal(fr.rgb[3], 128);
    render_free(r);
    free(fk.mem);
}

static void test_gray16_and_heights(void **state)
{
    (void)state;
    const float cells[6] = { -1.0f, 0.0f, 1.0f, -5.0f, 0.5f, 0.0f };
    const unsigned char walls[6] = { 0, 0, 0, 0, 0, 1 };
    struct fake fk;
    fake_init(&fk, 3, 2, cells);
    struct scene sc;
    render_scene(&sc, 3, 2, RENDER_HEIGHT);
    sc.render.obstacle_color[0] = sc.render.obstacle_color[1] = sc.render.obstacle_color[2] = 255;
    struct frame fr;
    struct renderer *r = render_one(&sc, RENDER_NEED_GRAY16 | RENDER_NEED_HEIGHTS, &fk.f, walls, &fr);
    assert_non_null(fr.gray16);
    const uint16_t want[6] = { 0, 32768, 65535, 0, 49151, 65535 };   /* 0.75*65535 = 49151.25 */
    assert_memory_equal(fr.gray16, want, sizeof want);
    assert_non_null(fr.heights);
    assert_int_equal(fr.grid_w, 3);
    assert_int_equal(fr.grid_h, 2);
    assert_memory_equal(fr.heights, cells, sizeof cells);
    render_free(r);
    free(fk.mem);
}

/* Rows wide enough for the height row's whole vectors (its AVX-512 and
 * AVX2 builds take 16 and 8 cells a vector) and their ends, of heights that
 * probe every case of the mapping: NaN of either sign, infinities, zeros of
 * either sign, subnormals, the range's ends and just beyond, cells whose
 * scaled value is a tie, and a spread of ordinary ones; each pixel, at 8
 * and 16 bits, against the plain per-pixel formula with libm's rounding
 * (NaN giving 0), for a range whose span is exact and one whose is not. */
static void test_height_wide_rows(void **state)
{
    (void)state;
    enum { W = 67, H = 3, N = W * H };
    static const double ranges[2][2] = { { -1, 1 }, { 0.1, 0.7 } };
    float cells[N];
    const float special[] = { __builtin_nanf(""), -__builtin_nanf(""), __builtin_inff(), -__builtin_inff(), 0.0f,
                              -0.0f, 1e-40f, -1e-40f, -1.0f, 1.0f, 0.1f, 0.7f, nextafterf(1.0f, 2.0f),
                              nextafterf(-1.0f, -2.0f), nextafterf(0.1f, 0.0f), nextafterf(0.7f, 1.0f) };
    const int ns = sizeof special / sizeof *special;
    for (int i = 0; i < N; i++) {
        if (i % 5 == 0)
            cells[i] = special[(i / 5) % ns];
        else if (i % 5 == 1)   /* (v + 1) / 2 * 255 = k + 1/2, as near as a float gets */
            cells[i] = (float)((2.0 * ((i % 255) + 0.5)) / 255.0 - 1.0);
        else
            cells[i] = (float)((i * 7919) % 3001 - 1500) / 1000.0f;   /* -1.5 .. 1.5 */
    }
    struct fake fk;
    fake_init(&fk, W, H, cells);
    for (int k = 0; k < 2; k++) {
        struct scene sc;
        render_scene(&sc, W, H, RENDER_HEIGHT);
        sc.render.range[0] = ranges[k][0];
        sc.render.range[1] = ranges[k][1];
        const float lo = (float)ranges[k][0], span = (float)(ranges[k][1] - ranges[k][0]);
        struct frame fr;
        struct renderer *r = render_one(&sc, RENDER_NEED_GRAY16, &fk.f, NULL, &fr);
        assert_non_null(fr.gray16);
        for (int i = 0; i < N; i++) {
            const float v = fminf(fmaxf((cells[i] - lo) / span, 0.0f), 1.0f);
            const long g = lrintf(v * 255.0f), g16 = lrintf(v * 65535.0f);
            if (fr.rgb[3 * i] != g || fr.rgb[3 * i + 1] != g || fr.rgb[3 * i + 2] != g || fr.gray16[i] != g16)
                fail_msg("range %d, cell %d (%g): %d %d %d / %d, want %ld / %ld", k, i, (double)cells[i], fr.rgb[3 * i],
                         fr.rgb[3 * i + 1], fr.rgb[3 * i + 2], fr.gray16[i], g, g16);
        }
        render_free(r);
    }
    free(fk.mem);
}

static void test_colormap_endpoints(void **state)
{
    (void)state;
    const unsigned char (*grey)[3] = colormap_find("grey");
    assert_non_null(grey);
    assert_int_equal(grey[0][0], 0);
    assert_int_equal(grey[128][1], 128);
    assert_int_equal(grey[255][2], 255);
    assert_ptr_equal(colormap_find("gray"), grey);
    const unsigned char (*cw)[3] = colormap_find("coolwarm");
    assert_non_null(cw);
    const unsigned char cw0[3] = { 59, 76, 192 }, cw255[3] = { 180, 4, 38 };
    assert_memory_equal(cw[0], cw0, 3);
    assert_memory_equal(cw[255], cw255, 3);
    /* viridis from the polynomial fit, computed in double: known bytes. */
    const unsigned char (*vi)[3] = colormap_find("viridis");
    assert_non_null(vi);
    const unsigned char vi0[3] = { 71, 1, 85 }, vi128[3] = { 31, 145, 139 }, vi255[3] = { 252, 231, 33 };
    assert_memory_equal(vi[0], vi0, 3);
    assert_memory_equal(vi[128], vi128, 3);
    assert_memory_equal(vi[255], vi255, 3);
    int n = 0;
    for (; colormap_names[n]; n++)
        assert_non_null(colormap_find(colormap_names[n]));
    assert_int_equal(n, 10);
    assert_null(colormap_find("jet"));
    assert_null(colormap_find(NULL));

    /* Rendering indexes the table by lrintf(v * 255). */
    const float cells[3] = { -1.0f, 0.0f, 1.0f };
    struct fake fk;
    fake_init(&fk, 3, 1, cells);
    struct scene sc;
    render_scene(&sc, 3, 1, RENDER_COLORMAP);
    strcpy(sc.render.colormap, "viridis");
    struct frame fr;
    struct renderer *r = render_one(&sc, RENDER_NEED_HEIGHTS, &fk.f, NULL, &fr);
    assert_memory_equal(fr.rgb, vi0, 3);
    assert_memory_equal(fr.rgb + 3, vi128, 3);
    assert_memory_equal(fr.rgb + 6, vi255, 3);
    render_free(r);
    free(fk.mem);
}

static void test_errors(void **state)
{
    (void)state;
    struct scene sc;
    struct renderer *r = (struct renderer *)&sc;
    struct rr_err e = { 0 };
    render_scene(&sc, 4, 4, RENDER_COLORMAP);
    strcpy(sc.render.colormap, "jet");
    assert_int_equal(render_create(&r, &sc, 0, &e), -1);
    assert_null(r);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, "render.colormap: \"jet\" is not a colormap (available: grey, viridis, magma, "
                               "inferno, plasma, turbo, coolwarm, balance, ocean, cividis)");
    /* A background that vanished after the scene was checked. */
    render_scene(&sc, 4, 4, RENDER_REFRACT);
    sc.render.height_scale = 1;
    sc.render.light[2] = 1;
    sc.render.shininess = 1;
    sc.render.background = (char *)"/nonexistent/bg.png";
    assert_int_equal(render_create(&r, &sc, 0, &e), -1);
    assert_null(r);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "render.background: /nonexistent/bg.png: cannot read PNG"));
    render_scene(&sc, 4, 4, RENDER_COLORMAP);
    strcpy(sc.render.colormap, "grey");
    /* 16-bit grey from a colour mode: the 16-bit colour instead (frame.h),
     * the same values as asked for with RENDER_NEED_RGB16. */
    const float cells[16] = { -1, -0.5f, 0, 0.5f, 1, 0.25f, -0.25f, 0.125f, 0, 0, 0, 0, 1, 1, 1, 1 };
    struct fake fk;
    fake_init(&fk, 4, 4, cells);
    uint16_t want[4 * 4 * 3];
    struct frame fr;
    r = render_one(&sc, RENDER_NEED_RGB16, &fk.f, NULL, &fr);
    memcpy(want, fr.deep, sizeof want);
    render_free(r);
    r = render_one(&sc, RENDER_NEED_GRAY16, &fk.f, NULL, &fr);
    assert_null(fr.gray16);
    assert_non_null(fr.deep);
    assert_int_equal(fr.deep_bits, 16);
    assert_int_equal(fr.deep_channels, 3);
    assert_memory_equal(fr.deep, want, sizeof want);
    render_free(r);
    free(fk.mem);
    render_scene(&sc, 4, 4, RENDER_HEIGHT);
    sc.render.range[1] = -1;
    assert_int_equal(render_create(&r, &sc, 0, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
}

static void test_scaled_uniform_stays_uniform(void **state)
{
    (void)state;
    enum { GW = 8, GH = 6, RW = 21, RH = 17 };
    float cells[GW * GH];
    for (int i = 0; i < GW * GH; i++)
        cells[i] = 0.3f;
    struct fake fk;
    fake_init(&fk, GW, GH, cells);
    const char *maps[] = { "turbo", "coolwarm", "grey" };
    for (int m = 0; m < 3; m++) {
        struct scene sc;
        render_scene(&sc, GW, GH, RENDER_COLORMAP);
        strcpy(sc.render.colormap, maps[m]);
        sc.render.width = RW;
        sc.render.height = RH;
        struct frame fr;
        struct renderer *r = render_one(&sc, 0, &fk.f, NULL, &fr);
        assert_int_equal(fr.width, RW);
        assert_int_equal(fr.height, RH);
        const unsigned char *c = colormap_find(maps[m])[lrintf((0.3f + 1.0f) / 2.0f * 255.0f)];
        for (int i = 0; i < RW * RH; i++) {
            if (memcmp(fr.rgb + 3 * i, c, 3) != 0)
                fail_msg("%s: pixel %d is (%d,%d,%d), expected (%d,%d,%d)", maps[m], i, fr.rgb[3 * i],
                         fr.rgb[3 * i + 1], fr.rgb[3 * i + 2], c[0], c[1], c[2]);
        }
        render_free(r);
    }
    /* 16-bit grey scaled the same way. */
    struct scene sc;
    render_scene(&sc, GW, GH, RENDER_HEIGHT);
    sc.render.width = RW;
    sc.render.height = RH;
    struct frame fr;
    struct renderer *r = render_one(&sc, RENDER_NEED_GRAY16, &fk.f, NULL, &fr);
    uint16_t want = (uint16_t)lrintf((0.3f + 1.0f) / 2.0f * 65535.0f);
    for (int i = 0; i < RW * RH; i++)
        assert_int_equal(fr.gray16[i], want);
    render_free(r);
    /* The deep picture (16-bit colour and alpha) scaled the same way. */
    sc.render.alpha = ALPHA_HEIGHT;
    r = render_one(&sc, RENDER_NEED_RGB16 | RENDER_NEED_ALPHA, &fk.f, NULL, &fr);
    uint16_t alpha = (uint16_t)lrintf(0.3f * 65535.0f);
    const uint16_t *d = fr.deep;
    for (int i = 0; i < RW * RH; i++) {
        if (d[4 * i] != want || d[4 * i + 1] != want || d[4 * i + 2] != want || d[4 * i + 3] != alpha)
            fail_msg("deep pixel %d is (%d,%d,%d,%d), expected (%d,%d,%d,%d)", i, d[4 * i], d[4 * i + 1],
                     d[4 * i + 2], d[4 * i + 3], want, want, want, alpha);
    }
    render_free(r);
    free(fk.mem);
}

/* The deep picture (frame.h) by hand: 16-bit colour and render.alpha
 * "height" (|h| over the range's larger end; walls opaque), and the 8-bit
 * rgba whose colour is rgb's. The rgb24 frame is the same as without. */
static void test_deep_rgba(void **state)
{
    (void)state;
    const float cells[6] = { -1.0f, 0.0f, 1.0f, -5.0f, 0.5f, 0.25f };
    const unsigned char walls[6] = { 0, 0, 0, 0, 0, 1 };
    struct fake fk;
    fake_init(&fk, 3, 2, cells);
    struct scene sc;
    render_scene(&sc, 3, 2, RENDER_HEIGHT);
    sc.render.alpha = ALPHA_HEIGHT;
    struct frame fr;
    struct renderer *r = render_one(&sc, RENDER_NEED_RGB16 | RENDER_NEED_ALPHA, &fk.f, walls, &fr);
    const uint8_t want8[18] = { 0, 0, 0, 128, 128, 128, 255, 255, 255, 0, 0, 0, 191, 191, 191, 200, 10, 20 };
    assert_memory_equal(fr.rgb, want8, sizeof want8);
    assert_non_null(fr.deep);
    assert_int_equal(fr.deep_channels, 4);
    assert_int_equal(fr.deep_bits, 16);
    /* v = (h + 1) / 2 times 65535: 0; 32767.5 -> 32768; 65535; clamped 0; 49151.25 -> 49151;
     * the wall 200, 10, 20 times 257. Alpha |h|: 1, 0, 1, clamped 1, 0.5 -> 32768, wall 1. */
    const uint16_t want16[24] = {
        0, 0, 0, 65535,              32768, 32768, 32768, 0,      65535, 65535, 65535, 65535,
        0, 0, 0, 65535,              49151, 49151, 49151, 32768,  51400, 2570, 5140, 65535,
    };
    assert_memory_equal(fr.deep, want16, sizeof want16);
    render_free(r);

    r = render_one(&sc, RENDER_NEED_ALPHA, &fk.f, walls, &fr);
    assert_memory_equal(fr.rgb, want8, sizeof want8);
    assert_int_equal(fr.deep_channels, 4);
    assert_int_equal(fr.deep_bits, 8);
    const uint8_t wanta[24] = { 0, 0, 0, 255, 128, 128, 128, 0, 255, 255, 255, 255,
                                0, 0, 0, 255, 191, 191, 191, 128, 200, 10, 20, 255 };
    assert_memory_equal(fr.deep, wanta, sizeof wanta);
    render_free(r);

    /* Without the needs, no deep picture. */
    r = render_one(&sc, 0, &fk.f, walls, &fr);
    assert_null(fr.deep);
    render_free(r);

    /* The alpha's scale is the range's larger end: |0.5| / 2 = 0.25 -> 16384 (16383.75). */
    sc.render.range[0] = -2;
    r = render_one(&sc, RENDER_NEED_RGB16 | RENDER_NEED_ALPHA, &fk.f, NULL, &fr);
    assert_int_equal(((const uint16_t *)fr.deep)[4 * 4 + 3], 16384);
    render_free(r);
    free(fk.mem);
}

/* colormap at 16 bits reads the table between entries: grey's entries are
 * i, so the 16-bit value is v itself (h = -0.5: v = 0.25 -> 16384, where the
 * 8-bit nearest entry is 64); at an entry it is the entry times 257. */
static void test_colormap_16(void **state)
{
    (void)state;
    const float cells[3] = { -0.5f, 1.0f, -1.0f };
    struct fake fk;
    fake_init(&fk, 3, 1, cells);
    struct scene sc;
    render_scene(&sc, 3, 1, RENDER_COLORMAP);
    strcpy(sc.render.colormap, "grey");
    struct frame fr;
    struct renderer *r = render_one(&sc, RENDER_NEED_RGB16, &fk.f, NULL, &fr);
    assert_int_equal(fr.deep_channels, 3);
    const uint16_t want[9] = { 16384, 16384, 16384, 65535, 65535, 65535, 0, 0, 0 };
    assert_memory_equal(fr.deep, want, sizeof want);
    assert_int_equal(fr.rgb[0], 64);
    render_free(r);
    strcpy(sc.render.colormap, "viridis");
    r = render_one(&sc, RENDER_NEED_RGB16, &fk.f, NULL, &fr);
    const unsigned char (*map)[3] = colormap_find("viridis");
    const uint16_t *d = fr.deep;
    for (int k = 0; k < 3; k++) {
        assert_int_equal(d[3 + k], map[255][k] * 257);
        assert_int_equal(d[6 + k], map[0][k] * 257);
        /* between entries 63 and 64, three quarters of the way */
        assert_int_equal(d[k], lrintf((map[63][k] + 0.75f * (map[64][k] - map[63][k])) / 255.0f * 65535.0f));
    }
    render_free(r);
    free(fk.mem);
}

/* render.alpha that the mode has no source for is refused, naming the key. */
static void test_alpha_errors(void **state)
{
    (void)state;
    struct scene sc;
    render_scene(&sc, 4, 4, RENDER_SHADED);
    sc.render.alpha = ALPHA_CAUSTICS;
    struct renderer *r = NULL;
    struct rr_err e = { 0 };
    assert_int_equal(render_create(&r, &sc, 0, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, "render.alpha: \"caustics\" needs render.mode \"caustics\" (the mode is \"shaded\")");
    sc.render.mode = RENDER_REFRACT;
    sc.render.alpha = ALPHA_HEIGHT;
    assert_int_equal(render_create(&r, &sc, 0, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    sc.render.mode = RENDER_HEIGHT;
    sc.render.alpha = ALPHA_NONE;
    assert_int_equal(render_create(&r, &sc, RENDER_NEED_ALPHA, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_null(r);
}

static void test_scaled_is_deterministic(void **state)
{
    (void)state;
    enum { GW = 16, GH = 12 };
    float cells[GW * GH];
    for (int i = 0; i < GW * GH; i++)
        cells[i] = (float)((i * 37) % 23 - 11) / 11.0f;
    struct fake fk;
    fake_init(&fk, GW, GH, cells);
    struct scene sc;
    render_scene(&sc, GW, GH, RENDER_COLORMAP);
    strcpy(sc.render.colormap, "magma");
    sc.render.width = 40;
    sc.render.height = 30;
    struct renderer *a, *b;
    struct rr_err e = { 0 };
    assert_int_equal(render_create(&a, &sc, 0, &e), 0);
    assert_int_equal(render_create(&b, &sc, 0, &e), 0);
    struct frame fa, fb;
    assert_int_equal(render_frame(a, &fk.f, NULL, 0, &fa, &e), 0);
    assert_int_equal(render_frame(b, &fk.f, NULL, 0, &fb, &e), 0);
    assert_memory_equal(fa.rgb, fb.rgb, 40 * 30 * 3);
    render_free(a);
    render_free(b);
    free(fk.mem);
}

/* render_frame_to writes the same bytes into the caller's buffer (the
 * pipeline's ring slot) as render_frame into its own, at grid size and
 * scaled, and fr->rgb is that buffer. */
static void test_render_into_target(void **state)
{
    (void)state;
    float cells[48];
    for (int k = 0; k < 48; k++)
        cells[k] = sinf(0.7f * (float)k);
    struct fake fk;
    fake_init(&fk, 8, 6, cells);
    const int sizes[2][2] = { { 8, 6 }, { 13, 9 } };
    for (int t = 0; t < 2; t++) {
        struct scene sc;
        render_scene(&sc, 8, 6, RENDER_COLORMAP);
        snprintf(sc.render.colormap, sizeof sc.render.colormap, "viridis");
        sc.render.width = sizes[t][0];
        sc.render.height = sizes[t][1];
        struct renderer *r = NULL;
        struct rr_err e = { 0 };
        assert_int_equal(render_create(&r, &sc, 0, &e), 0);
        size_t bytes = (size_t)sizes[t][0] * sizes[t][1] * 3;
        uint8_t *own = malloc(bytes), *target = malloc(bytes);
        assert_non_null(own);
        assert_non_null(target);
        memset(target, 0xA5, bytes);
        struct frame fr;
        assert_int_equal(render_frame(r, &fk.f, NULL, 3, &fr, &e), 0);
        assert_ptr_not_equal(fr.rgb, target);
        memcpy(own, fr.rgb, bytes);
        assert_int_equal(render_frame_to(r, &fk.f, NULL, 3, target, &fr, &e), 0);
        assert_ptr_equal(fr.rgb, target);
        assert_int_equal(fr.width, sizes[t][0]);
        assert_memory_equal(target, own, bytes);
        free(own);
        free(target);
        render_free(r);
    }
    free(fk.mem);
}

/* The table of render modes (render/registry.c) and the scene's render.mode
 * names (scene.c) are one list: every name the scene reads has a mode with
 * that name and a row or a frame, at the value of its place, and the table
 * has nothing else. */
static void test_mode_table_matches_scene(void **state)
{
    (void)state;
    /* Every place of the table is a mode value: one entry, which names it,
     * renders and, with a float picture, names its channels; the scene's
     * list of names is the table's, in its order. */
    const char *names[RENDER_MODE_MAX + 1];
    render_mode_names(names);
    const int count = render_mode_count();
    for (int m = 0; m < count; m++) {
        const struct render_mode_ops *ops = render_mode_of((enum render_mode)m);
        assert_non_null(ops);
        assert_ptr_equal(ops, render_modes[m]);
        assert_string_equal(ops->name, names[m]);
        assert_string_equal(ops->name, scene_render_mode_name((enum render_mode)m));
        assert_true(ops->own_size ? ops->frame != NULL : ops->row != NULL);
        assert_true((ops->row_float != NULL) == (ops->float_names != NULL && ops->float_names[0] != NULL));
        assert_true(render_mode_own_size((enum render_mode)m) == ops->own_size);
        assert_ptr_equal(render_mode_float_names((enum render_mode)m), ops->float_names);
    }
    assert_null(names[count]);
    int table = 0;
    while (render_modes[table])
        table++;
    assert_int_equal(table, count);
    assert_null(render_mode_of((enum render_mode)count));
    assert_null(render_mode_of((enum render_mode)-1));
    assert_string_equal(scene_render_mode_name((enum render_mode)count), "?");
    /* scene.h's names are the built-in modes' places. */
    static const struct {
        enum render_mode m;
        const char *name;
    } named[] = { { RENDER_HEIGHT, "height" },   { RENDER_COLORMAP, "colormap" }, { RENDER_SHADED, "shaded" },
                  { RENDER_REFRACT, "refract" }, { RENDER_NORMALS, "normals" },   { RENDER_CAUSTICS, "caustics" } };
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++)
        assert_string_equal(render_mode_name(named[k].m), named[k].name);
    /* The float channels a sink gets, and the list its messages name. */
    assert_string_equal(render_mode_float_names(RENDER_NORMALS)[2], "B");
    assert_null(render_mode_float_names(RENDER_NORMALS)[3]);
    assert_string_equal(render_mode_float_names(RENDER_HEIGHT)[0], "Y");
    assert_null(render_mode_float_names(RENDER_SHADED));
    assert_true(render_mode_own_size(RENDER_REFRACT));
    assert_false(render_mode_own_size(RENDER_HEIGHT));
    char have[128];
    assert_string_equal(render_float_modes(have, sizeof have), "height, normals or caustics");
}

/* RENDER_NEED_YUV420 (frame.h): where the picture is scaled, frame.yuv is
 * the grid-size rgb converted by sinks/yuv420.c and each plane scaled as
 * grey by one libswscale call (the plain path), byte for byte, on 1 to 3
 * threads (bands of the conversion and of the scaling), up by 2 (rows scaled
 * straight into the frame) and by an uneven ratio (into aligned rows, then
 * packed); rgb keeps its bytes, and with RENDER_YUV_ONLY is not made
 * (but for the 8-bit rgba of render.alpha). Unscaled or an odd size: no yuv. */
static void test_scaled_yuv420(void **state)
{
    (void)state;
    enum { GW = 320, GH = 240 };   /* enough cells and pixels for the pool's bands */
    float *cells = malloc(sizeof(float) * GW * GH);
    unsigned char *walls = calloc(GW * GH, 1);
    assert_true(cells && walls);
    for (int y = 0; y < GH; y++)
        for (int x = 0; x < GW; x++)
            cells[y * GW + x] = sinf(0.11f * (float)x) * cosf(0.07f * (float)y) + 0.3f * sinf(1.3f * (float)(x * y));
    for (int y = 100; y < 120; y++)
        walls[y * GW + 40] = walls[y * GW + 41] = 1;
    struct fake fk;
    fake_init(&fk, GW, GH, cells);
    struct scene sc;
    render_scene(&sc, GW, GH, RENDER_COLORMAP);
    snprintf(sc.render.colormap, sizeof sc.render.colormap, "viridis");
    struct renderer *r;
    struct frame fr;
    /* The grid-size picture, and its yuv420p. */
    r = render_one(&sc, RENDER_NEED_YUV420, &fk.f, walls, &fr);
    assert_null(fr.yuv);   /* unscaled: the sink converts */
    assert_true(render_makes_rgb(r));
    uint8_t *gy = malloc(GW * GH * 3 / 2), *gu = gy + GW * GH, *gv = gu + GW * GH / 4;
    assert_non_null(gy);
    yuv420_from_rgb24(fr.rgb, GW * 3, GW, GH, gy, GW, gu, GW / 2, gv, GW / 2);
    render_free(r);
    const int sizes[2][2] = { { 640, 480 }, { 500, 374 } };
    for (int t = 0; t < 2; t++) {
        const int rw = sizes[t][0], rh = sizes[t][1];
        const size_t ybytes = (size_t)rw * rh, cbytes = ybytes / 4;
        uint8_t *want = malloc(ybytes + 2 * cbytes), *rgb = malloc(ybytes * 3);
        assert_true(want && rgb);
        sws_one_call(GW, GH, rw, rh, AV_PIX_FMT_GRAY8, gy, GW, want, rw);
        sws_one_call(GW / 2, GH / 2, rw / 2, rh / 2, AV_PIX_FMT_GRAY8, gu, GW / 2, want + ybytes, rw / 2);
        sws_one_call(GW / 2, GH / 2, rw / 2, rh / 2, AV_PIX_FMT_GRAY8, gv, GW / 2, want + ybytes + cbytes, rw / 2);
        sc.render.width = rw;
        sc.render.height = rh;
        r = render_one(&sc, 0, &fk.f, walls, &fr);
        assert_null(fr.yuv);   /* not asked for */
        memcpy(rgb, fr.rgb, ybytes * 3);
        render_free(r);
        for (int nt = 1; nt <= 3; nt++) {
            omp_set_num_threads(nt);
            const int needs[3] = { RENDER_NEED_YUV420, RENDER_NEED_YUV420 | RENDER_YUV_ONLY,
                                   RENDER_NEED_YUV420 | RENDER_YUV_ONLY | RENDER_NEED_ALPHA };
            for (int k = 0; k < 3; k++) {
                sc.render.alpha = k == 2 ? ALPHA_HEIGHT : ALPHA_NONE;
                r = render_one(&sc, needs[k], &fk.f, walls, &fr);
                assert_non_null(fr.yuv);
                assert_memory_equal(fr.yuv, want, ybytes + 2 * cbytes);
                assert_true(render_makes_rgb(r) == (k != 1));
                if (k == 1) {
                    assert_null(fr.rgb);
                } else {
                    assert_non_null(fr.rgb);
                    assert_memory_equal(fr.rgb, rgb, ybytes * 3);
                }
                render_free(r);
            }
        }
        omp_set_num_threads(1);
        sc.render.alpha = ALPHA_NONE;
        free(want);
        free(rgb);
    }
    /* An odd render size (its chroma would not be half the luma's): no yuv, rgb as ever. */
    sc.render.width = 641;
    sc.render.height = 480;
    r = render_one(&sc, RENDER_NEED_YUV420 | RENDER_YUV_ONLY, &fk.f, walls, &fr);
    assert_null(fr.yuv);
    assert_non_null(fr.rgb);
    assert_true(render_makes_rgb(r));
    render_free(r);
    free(gy);
    free(cells);
    free(walls);
    free(fk.mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode_table_matches_scene),
        cmocka_unit_test(test_height_exact_bytes),
        cmocka_unit_test(test_render_into_target),
        cmocka_unit_test(test_height_nan_is_black),
        cmocka_unit_test(test_gray16_and_heights),
        cmocka_unit_test(test_height_wide_rows),
        cmocka_unit_test(test_colormap_endpoints),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_scaled_uniform_stays_uniform),
        cmocka_unit_test(test_scaled_is_deterministic),
        cmocka_unit_test(test_scaled_yuv420),
        cmocka_unit_test(test_deep_rgba),
        cmocka_unit_test(test_colormap_16),
        cmocka_unit_test(test_alpha_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

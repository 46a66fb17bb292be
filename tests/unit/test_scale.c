/* test_scale.c: the banded scaler of src/scale.c against one sws_scale call
 * over the whole picture with the same flags (what the renderer did before
 * it scaled in bands): the same bytes, byte for byte, for 1 to 7 bands and
 * more bands than rows, in the three formats the renderer scales (rgb24,
 * 16-bit grey, 8-bit grey), at sizes up and down, odd, and at extreme
 * ratios; each band's `after` call gets its own rows once, after they are
 * written; the scaler scales whatever the source holds at each run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libswscale/swscale.h>

#include "scale.h"
#include "sws_one_call.h"
#include "team.h"

static const int bytes_per_pixel[] = { [AV_PIX_FMT_RGB24] = 3, [AV_PIX_FMT_GRAY16] = 2, [AV_PIX_FMT_GRAY8] = 1 };

/* Bytes from a fixed pseudo-random sequence (an LCG), smooth in places (a
 * ramp every other row) so the filters see both noise and gradients. */
static void fill(uint8_t *p, int stride, int row_bytes, int h, uint32_t seed)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < row_bytes; x++) {
            seed = seed * 1664525u + 1013904223u;
            p[(size_t)y * stride + x] = y & 1 ? (uint8_t)(seed >> 24) : (uint8_t)(x * 7 + y * 3);
        }
}

/* Which rows the after calls were given (and that each came once). */
struct seen {
    int rows[4096];
    int calls;
    const uint8_t *dst;
    int stride, row_bytes;
    const uint8_t *want;   /* the reference's rows, packed */
    int bad;
};

static void after_band(void *arg, int lo, int hi)
{
    struct seen *s = arg;
    __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
    for (int y = lo; y < hi; y++) {
        __atomic_fetch_add(&s->rows[y], 1, __ATOMIC_RELAXED);
        /* The band's rows are written when it is called. */
        if (memcmp(s->dst + (size_t)y * s->stride, s->want + (size_t)y * s->row_bytes, (size_t)s->row_bytes))
            __atomic_store_n(&s->bad, 1, __ATOMIC_RELAXED);
    }
}

static void check_size(int sw, int sh, int dw, int dh, enum AVPixelFormat fmt, int max_nt)
{
    assert_true(dh <= 4096);
    const int bpp = bytes_per_pixel[fmt];
    const int ss = (sw * bpp + 63) & ~63, ds = (dw * bpp + 63) & ~63;
    uint8_t *src = av_malloc((size_t)ss * sh), *want = av_malloc((size_t)ds * dh);
    uint8_t *got = av_malloc((size_t)ds * dh), *packed = malloc((size_t)dw * bpp * dh);
    assert_true(src && want && got && packed);
    struct scaler *s = scaler_create(sw, sh, dw, dh, fmt, src, ss, got, ds);
    assert_non_null(s);
    for (uint32_t seed = 1; seed <= 2; seed++) {   /* a second picture through the same scaler */
        fill(src, ss, sw * bpp, sh, seed * 2654435761u);
        sws_one_call(sw, sh, dw, dh, fmt, src, ss, want, ds);
        for (int y = 0; y < dh; y++)
            memcpy(packed + (size_t)y * dw * bpp, want + (size_t)y * ds, (size_t)dw * bpp);
        for (int nt = 1; nt <= max_nt; nt++) {
            int bands = nt == 9 ? TEAM_MAX + 5 : nt;   /* more than TEAM_MAX, and often than rows */
            memset(got, 0xA5, (size_t)ds * dh);
            static struct seen seen;
            memset(&seen, 0, sizeof seen);
            seen.dst = got;
            seen.stride = ds;
            seen.row_bytes = dw * bpp;
            seen.want = packed;
            assert_int_equal(scaler_run(s, bands, after_band, &seen), 0);
            for (int y = 0; y < dh; y++)
                if (memcmp(got + (size_t)y * ds, want + (size_t)y * ds, (size_t)dw * bpp))
                    fail_msg("%dx%d -> %dx%d, format %d, %d bands: row %d differs from one sws_scale call", sw, sh,
                             dw, dh, (int)fmt, bands, y);
            int expect_calls = bands < TEAM_MAX ? bands : TEAM_MAX;
            if (expect_calls > dh)
                expect_calls = dh;
            assert_int_equal(seen.calls, expect_calls);
            for (int y = 0; y < dh; y++)
                assert_int_equal(seen.rows[y], 1);
            assert_false(seen.bad);
        }
        memset(got, 0xA5, (size_t)ds * dh);
        assert_int_equal(scaler_run(s, 3, NULL, NULL), 0);   /* no after: scales all the same */
        for (int y = 0; y < dh; y++)
            assert_memory_equal(got + (size_t)y * ds, want + (size_t)y * ds, (size_t)dw * bpp);
    }
    scaler_free(s);
    av_free(src);
    av_free(want);
    av_free(got);
    free(packed);
}

static const struct {
    int sw, sh, dw, dh;
} sizes[] = {
    { 48, 27, 96, 54 },      /* 2x, as the example scenes (demo.json) */
    { 37, 23, 101, 59 },     /* odd both ways, non-integer ratios */
    { 64, 36, 37, 19 },      /* down */
    { 3, 2, 640, 360 },      /* extreme up */
    { 640, 360, 5, 3 },      /* extreme down */
    { 9, 200, 300, 7 },      /* up in x, down in y */
    { 200, 9, 7, 300 },      /* down in x, up in y */
    { 1, 1, 16, 16 },        /* a one-cell grid */
    { 20, 12, 20, 1000 },    /* one axis only */
};

static void check_format(enum AVPixelFormat fmt)
{
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_size(sizes[i].sw, sizes[i].sh, sizes[i].dw, sizes[i].dh, fmt, 9);
}

static void test_rgb24(void **state)
{
    (void)state;
    check_format(AV_PIX_FMT_RGB24);
}

static void test_gray16(void **state)
{
    (void)state;
    check_format(AV_PIX_FMT_GRAY16);
}

static void test_gray8(void **state)
{
    (void)state;
    check_format(AV_PIX_FMT_GRAY8);
}

/* The renderer's real case: 1920x1080 to 3840x2160, two and three bands. */
static void test_4k(void **state)
{
    (void)state;
    check_size(1920, 1080, 3840, 2160, AV_PIX_FMT_RGB24, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rgb24),
        cmocka_unit_test(test_gray16),
        cmocka_unit_test(test_gray8),
        cmocka_unit_test(test_4k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_yuv420.c: the video sink's rgb24 -> yuv420p converter
 * (src/sinks/yuv420.c): pure colours by hand, every one of the 16.7 million
 * colours' Y and millions of 2x2 blocks' Cb/Cr against the BT.709 formula in
 * exact rational arithmetic and in double (at most one level off, and that
 * only where the exact value lies within 5e-5 (Y) or 2e-4 (Cb, Cr) of a
 * half), the bytes of a
 * pixel independent of its place in the row (strips and vector remainders),
 * every conversion the same bytes as the plain yuv420_reference, and
 * libswscale's exact path on a gradient with noise (PSNR). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include "emulated.h"
#include "gradient_noise.h"
#include "sinks/yuv420.h"

/* ---- references --------------------------------------------------------------- */

/* The formula rounded half up, in integers: Y = 16 + 219/255 * E with
 * E = (2126 R + 7152 G + 722 B) / 10000; Cb and Cr of the sums of a block's
 * four pixels: 128 + 224/255 * (B - E) / 1.8556 and (R - E) / 1.5748. */
static int y_exact(int r, int g, int b)
{
    int64_t den = 2550000, n = 16 * den + 219 * (int64_t)(2126 * r + 7152 * g + 722 * b);
    return (int)((2 * n + den) / (2 * den));
}

static int cb_exact(int rs, int gs, int bs)
{
    int64_t den = 255 * 18556 * 4, n = 128 * den + 224 * (int64_t)(-2126 * rs - 7152 * gs + 9278 * bs);
    return (int)((2 * n + den) / (2 * den));
}

static int cr_exact(int rs, int gs, int bs)
{
    int64_t den = 255 * 15748 * 4, n = 128 * den + 224 * (int64_t)(7874 * rs - 7152 * gs - 722 * bs);
    return (int)((2 * n + den) / (2 * den));
}

/* The same in double from Kr and Kb (means of the block for Cb, Cr). */
static const double KR = 0.2126, KB = 0.0722;

static int y_double(double r, double g, double b)
{
    double e = KR * r + (1 - KR - KB) * g + KB * b;
    return (int)floor(16 + 219 * e / 255 + 0.5);
}

static int cb_double(double r, double g, double b)
{
    double e = KR * r + (1 - KR - KB) * g + KB * b;
    return (int)floor(128 + 224 * (b - e) / (255 * 2 * (1 - KB)) + 0.5);
}

static int cr_double(double r, double g, double b)
{
    double e = KR * r + (1 - KR - KB) * g + KB * b;
    return (int)floor(128 + 224 * (r - e) / (255 * 2 * (1 - KR)) + 0.5);
}

/* ---- pictures ------------------------------------------------------------------- */

struct pic {
    int w, h;
    ptrdiff_t stride, ys, cs;   /* rgb, luma and chroma row strides (padded) */
    uint8_t *rgb, *y, *u, *v;
};

static void pic_alloc(struct pic *p, int w, int h)
{
    p->w = w;
    p->h = h;
    p->stride = 3 * w + 5;
    p->ys = w + 3;
    p->cs = w / 2 + 7;
    p->rgb = calloc((size_t)p->stride * h, 1);
    p->y = calloc((size_t)p->ys * h, 1);
    p->u = calloc((size_t)p->cs * (h / 2), 1);
    p->v = calloc((size_t)p->cs * (h / 2), 1);
    assert_true(p->rgb && p->y && p->u && p->v);
}

static void pic_free(struct pic *p)
{
    free(p->rgb);
    free(p->y);
    free(p->u);
    free(p->v);
}

static uint8_t *px(const struct pic *p, int x, int y)
{
    return p->rgb + y * p->stride + 3 * x;
}

/* Converts p, and checks that the plain path (yuv420_reference) gives the
 * same bytes in every plane, the padding past each row untouched by both. */
static void convert(struct pic *p)
{
    yuv420_from_rgb24(p->rgb, p->stride, p->w, p->h, p->y, p->ys, p->u, p->cs, p->v, p->cs);
    const size_t yn = (size_t)p->ys * p->h, cn = (size_t)p->cs * (p->h / 2);
    uint8_t *y = malloc(yn), *u = malloc(cn), *v = malloc(cn);
    assert_true(y && u && v);
    memcpy(y, p->y, yn);   /* the padding: the same in both */
    memcpy(u, p->u, cn);
    memcpy(v, p->v, cn);
    for (int r = 0; r < p->h; r++)
        memset(y + r * p->ys, 0xa5, (size_t)p->w);
    for (int r = 0; r < p->h / 2; r++) {
        memset(u + r * p->cs, 0xa5, (size_t)p->w / 2);
        memset(v + r * p->cs, 0xa5, (size_t)p->w / 2);
    }
    yuv420_reference(p->rgb, p->stride, p->w, p->h, y, p->ys, u, p->cs, v, p->cs);
    if (memcmp(y, p->y, yn) || memcmp(u, p->u, cn) || memcmp(v, p->v, cn))
        fail_msg("%dx%d: yuv420_from_rgb24 and yuv420_reference differ", p->w, p->h);
    free(y);
    free(u);
    free(v);
}

/* ---- pure colours --------------------------------------------------------------- */

static void test_pure_colours(void **state)
{
    (void)state;
    /* BT.709 by hand: red Y = 16 + 219 * 0.2126 = 62.56, Cb = 128 - 112 *
     * 0.2126 / 0.9278 = 102.34, Cr = 240; green Y = 172.63, Cb = 128 - 112 *
     * 0.7152 / 0.9278 = 41.66, Cr = 128 - 112 * 0.7152 / 0.7874 = 26.27;
     * blue Y = 31.81, Cb = 240, Cr = 128 - 112 * 0.0722 / 0.7874 = 117.73. */
    static const struct {
        uint8_t rgb[3], yuv[3];
    } cases[] = {
        { { 0, 0, 0 }, { 16, 128, 128 } },       { { 255, 255, 255 }, { 235, 128, 128 } },
        { { 255, 0, 0 }, { 63, 102, 240 } },     { { 0, 255, 0 }, { 173, 42, 26 } },
        { { 0, 0, 255 }, { 32, 240, 118 } },     { { 0, 255, 255 }, { 188, 154, 16 } },
        { { 255, 0, 255 }, { 78, 214, 230 } },   { { 255, 255, 0 }, { 219, 16, 138 } },
    };
    struct pic p;
    pic_alloc(&p, 4, 2);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 4; x++)
                memcpy(px(&p, x, y), cases[k].rgb, 3);
        convert(&p);
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 4; x++)
                assert_int_equal(p.y[y * p.ys + x], cases[k].yuv[0]);
        for (int x = 0; x < 2; x++) {
            assert_int_equal(p.u[x], cases[k].yuv[1]);
            assert_int_equal(p.v[x], cases[k].yuv[2]);
        }
    }
    pic_free(&p);
    /* Every grey: Cb = Cr = 128 exactly (the chroma weights sum to zero). */
    pic_alloc(&p, 512, 2);
    for (int x = 0; x < 512; x++)
        for (int y = 0; y < 2; y++)
            memset(px(&p, x, y), x / 2, 3);
    convert(&p);
    for (int x = 0; x < 512; x++) {
        assert_int_equal(p.y[x], y_exact(x / 2, x / 2, x / 2));
        assert_int_equal(p.u[x / 2], 128);
        assert_int_equal(p.v[x / 2], 128);
    }
    pic_free(&p);
}

/* ---- every colour ---------------------------------------------------------------- */

struct tally {
    long n, off_exact, off_double;
    int worst;   /* largest difference from either reference */
};

static void tally(struct tally *t, int got, int exact, int dbl)
{
    t->n++;
    t->off_exact += got != exact;
    t->off_double += got != dbl;
    int d = abs(got - exact) > abs(got - dbl) ? abs(got - exact) : abs(got - dbl);
    t->worst = d > t->worst ? d : t->worst;
}

/* For each red level, a 256 x 256 picture of every green (rows) and blue
 * (columns): every colour's Y, and the Cb/Cr of 128 x 128 blocks mixing four
 * neighbouring colours, per red level. */
static void test_every_colour(void **state)
{
    (void)state;
    struct tally ty = { 0 }, tu = { 0 }, tv = { 0 };
    struct pic p;
    pic_alloc(&p, 256, 256);
    /* Every red level; every 15th (0 to 255) under the emulator (emulated.h). */
    const int rstep = test_thin(15);
    for (int r = 0; r < 256; r += rstep) {
        for (int g = 0; g < 256; g++)
            for (int b = 0; b < 256; b++) {
                uint8_t *q = px(&p, b, g);
                q[0] = (uint8_t)r;
                q[1] = (uint8_t)g;
                q[2] = (uint8_t)b;
            }
        convert(&p);
        for (int g = 0; g < 256; g++)
            for (int b = 0; b < 256; b++)
                tally(&ty, p.y[g * p.ys + b], y_exact(r, g, b), y_double(r, g, b));
        for (int j = 0; j < 128; j++)
            for (int i = 0; i < 128; i++) {
                int rs = 4 * r, gs = 4 * (2 * j) + 2, bs = 4 * (2 * i) + 2;
                tally(&tu, p.u[j * p.cs + i], cb_exact(rs, gs, bs), cb_double(rs / 4.0, gs / 4.0, bs / 4.0));
                tally(&tv, p.v[j * p.cs + i], cr_exact(rs, gs, bs), cr_double(rs / 4.0, gs / 4.0, bs / 4.0));
            }
    }
    pic_free(&p);
    print_message("Y of %ld colours: %ld differ from the exact rounding, %ld from double; "
                  "Cb %ld/%ld and Cr %ld/%ld of %ld blocks\n",
                  ty.n, ty.off_exact, ty.off_double, tu.off_exact, tu.off_double, tv.off_exact, tv.off_double, tu.n);
    assert_int_equal(ty.n, (255 / rstep + 1) << 16);
    assert_true(ty.worst <= 1 && tu.worst <= 1 && tv.worst <= 1);
    /* Measured: 61 Y values off the exact rounding (where the exact value is
     * within 2^-24 * 3 * 255 of a half), 28 Cb and no Cr; a coefficient off
     * by more than its rounding would put thousands off. */
    assert_true(ty.off_exact < 100);
    assert_true(tu.off_exact < 100 && tv.off_exact < 100);
}

/* Blocks of four random pixels: sums of every kind, not only the neighbours above. */
static void test_random_blocks(void **state)
{
    (void)state;
    struct tally tu = { 0 }, tv = { 0 };
    struct pic p;
    pic_alloc(&p, 1024, 512);
    uint32_t s = 12345;
    for (int y = 0; y < p.h; y++)
        for (int x = 0; x < 3 * p.w; x++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            p.rgb[y * p.stride + x] = (uint8_t)(s >> 24);
        }
    convert(&p);
    for (int j = 0; j < p.h / 2; j++)
        for (int i = 0; i < p.w / 2; i++) {
            int sum[3] = { 0, 0, 0 };
            for (int k = 0; k < 4; k++)
                for (int c = 0; c < 3; c++)
                    sum[c] += px(&p, 2 * i + (k & 1), 2 * j + (k >> 1))[c];
            tally(&tu, p.u[j * p.cs + i], cb_exact(sum[0], sum[1], sum[2]),
                  cb_double(sum[0] / 4.0, sum[1] / 4.0, sum[2] / 4.0));
            tally(&tv, p.v[j * p.cs + i], cr_exact(sum[0], sum[1], sum[2]),
                  cr_double(sum[0] / 4.0, sum[1] / 4.0, sum[2] / 4.0));
        }
    pic_free(&p);
    print_message("random blocks: Cb %ld, Cr %ld of %ld differ from the exact rounding\n", tu.off_exact, tv.off_exact,
                  tu.n);
    assert_true(tu.worst <= 1 && tv.worst <= 1);
    assert_true(tu.off_exact < 20 && tv.off_exact < 20);
}

/* ---- place in the row -------------------------------------------------------------- */

/* A window of a picture, converted alone at any even offset and width, gives
 * the same bytes as that part of the whole: nothing depends on the strip
 * (256 columns) or on the vector loops' remainders. */
static void test_window_same_bytes(void **state)
{
    (void)state;
    struct pic all, win;
    pic_alloc(&all, 1030, 6);
    uint32_t s = 99;
    for (int y = 0; y < all.h; y++)
        for (int x = 0; x < 3 * all.w; x++) {
            s = s * 1664525u + 1013904223u;
            all.rgb[y * all.stride + x] = (uint8_t)(s >> 24);
        }
    convert(&all);
    static const int x0s[] = { 0, 2, 6, 254 }, ws[] = { 2, 4, 14, 30, 64, 254, 256, 258, 514, 770 };
    for (size_t a = 0; a < sizeof x0s / sizeof x0s[0]; a++)
        for (size_t b = 0; b < sizeof ws / sizeof ws[0]; b++) {
            int x0 = x0s[a], w = ws[b];
            pic_alloc(&win, w, 4);
            for (int y = 0; y < 4; y++)
                memcpy(px(&win, 0, y), px(&all, x0, y + 2), 3 * (size_t)w);
            convert(&win);
            for (int y = 0; y < 4; y++)
                assert_memory_equal(win.y + y * win.ys, all.y + (y + 2) * all.ys + x0, (size_t)w);
            for (int y = 0; y < 2; y++) {
                assert_memory_equal(win.u + y * win.cs, all.u + (y + 1) * all.cs + x0 / 2, (size_t)w / 2);
                assert_memory_equal(win.v + y * win.cs, all.v + (y + 1) * all.cs + x0 / 2, (size_t)w / 2);
            }
            pic_free(&win);
        }
    pic_free(&all);
}

/* ---- against libswscale --------------------------------------------------------- */

static double plane_psnr(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, int w, int h)
{
    double se = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int d = a[y * as + x] - b[y * bs + x];
            se += d * d;
        }
    return se == 0 ? HUGE_VAL : 10 * log10(255.0 * 255 * w * h / se);
}

/* libswscale's exact path, as the video sink used it before (bicubic,
 * ACCURATE_RND, FULL_CHR_H_INT, BITEXACT, BT.709 limited range): luma in 15
 * bits, chroma the mean of each horizontal pair filtered vertically by a
 * bicubic centred between the rows. On a gradient with noise of +-8 levels:
 * Y 69 dB, Cb and Cr 53 dB (measured; the chroma differs by the vertical
 * filter, the luma by libswscale's rounding). */
static void test_against_swscale(void **state)
{
    (void)state;
    const int w = 640, h = 360;
    struct pic p;
    pic_alloc(&p, w, h);
    gradient_noise(p.rgb, p.stride, w, h);
    convert(&p);
    struct SwsContext *sws = sws_getContext(w, h, AV_PIX_FMT_RGB24, w, h, AV_PIX_FMT_YUV420P,
                                            SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT,
                                            NULL, NULL, NULL);
    assert_non_null(sws);
    const int *coefs = sws_getCoefficients(SWS_CS_ITU709);
    sws_setColorspaceDetails(sws, coefs, 1, coefs, 0, 0, 1 << 16, 1 << 16);
    AVFrame *f = av_frame_alloc();
    assert_non_null(f);
    f->format = AV_PIX_FMT_YUV420P;
    f->width = w;
    f->height = h;
    assert_int_equal(av_frame_get_buffer(f, 0), 0);
    const uint8_t *src[4] = { p.rgb, NULL, NULL, NULL };
    int strides[4] = { (int)p.stride, 0, 0, 0 };
    assert_int_equal(sws_scale(sws, src, strides, 0, h, f->data, f->linesize), h);
    double py = plane_psnr(p.y, p.ys, f->data[0], f->linesize[0], w, h);
    double pu = plane_psnr(p.u, p.cs, f->data[1], f->linesize[1], w / 2, h / 2);
    double pv = plane_psnr(p.v, p.cs, f->data[2], f->linesize[2], w / 2, h / 2);
    print_message("against libswscale: PSNR Y %.1f dB, Cb %.1f dB, Cr %.1f dB\n", py, pu, pv);
    assert_true(py > 60);
    assert_true(pu > 45 && pv > 45);
    av_frame_free(&f);
    sws_freeContext(sws);
    pic_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pure_colours),      cmocka_unit_test(test_every_colour),
        cmocka_unit_test(test_random_blocks),     cmocka_unit_test(test_window_same_bytes),
        cmocka_unit_test(test_against_swscale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

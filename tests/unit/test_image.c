/* test_image.c: PNG reading (every PngSuite file loads, every damaged file of
 * libpng's crashers loads or is refused cleanly, grey codes read without gamma
 * linearisation, 16-bit precision kept, alpha multiplies), colour pictures,
 * and bilinear resampling against hand values. */
#include <dirent.h>
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

#include "gray_png.h"
#include "image.h"

/* PngSuite and libpng's crashers, vendored in tests/data/png (tests/data/README.md). */
#ifndef RR_SOURCE_DIR
#error "build with -DRR_SOURCE_DIR=\"...\" (the Makefile passes the repository root)"
#endif
#define DATA RR_SOURCE_DIR "/tests/data/png"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/rr_img_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    const char *names[] = { "g8.png", "g16.png", "ga.png", "rgb.png", "rgba.png" };
    char p[128];
    for (size_t k = 0; k < 5; k++) {
        snprintf(p, sizeof p, "%s/%s", tmpdir, names[k]);
        unlink(p);
    }
    rmdir(tmpdir);
    return 0;
}

/* Calls fn on every .png of a folder; returns how many. */
static int each_png(const char *dir, void (*fn)(const char *path))
{
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open %s: the vendored test data is missing", dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".png") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        fn(path);
        n++;
    }
    closedir(d);
    return n;
}

static void load_ok(const char *path)
{
    struct image img = { 0 };
    struct rr_err e = { 0 };
    if (image_load_gray(&img, path, "render.background", &e) < 0)
        fail_msg("%s: %s", path, e.msg);
    assert_true(img.width > 0 && img.height > 0);
    for (int k = 0; k < img.width * img.height; k++)
        assert_true(img.v[k] >= 0.0f && img.v[k] <= 1.0f);
    image_free(&img);
    image_free(&img);
}

static void load_or_refuse(const char *path)
{
    struct image img = { 0 };
    struct rr_err e = { 0 };
    if (image_load_gray(&img, path, "obstacles.0.path", &e) == 0) {
        image_free(&img);
        return;
    }
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, ": cannot read PNG"));
    assert_true(strncmp(e.msg, "obstacles.0.path: ", 18) == 0);   /* the key first, then the file */
    assert_null(img.v);
}

static void load_rgb_ok(const char *path)
{
    struct image_rgb img = { 0 };
    struct rr_err e = { 0 };
    if (image_load_rgb(&img, path, "render.background", &e) < 0)
        fail_msg("%s: %s", path, e.msg);
    assert_true(img.width > 0 && img.height > 0 && img.rgb);
    image_rgb_free(&img);
    image_rgb_free(&img);
}

static void load_rgb_or_refuse(const char *path)
{
    struct image_rgb img = { 0 };
    struct rr_err e = { 0 };
    if (image_load_rgb(&img, path, "render.floor", &e) == 0) {
        image_rgb_free(&img);
        return;
    }
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_true(strncmp(e.msg, "render.floor: ", 14) == 0);
    assert_non_null(strstr(e.msg, ": cannot read PNG"));
    assert_null(img.rgb);
}

static void test_pngsuite(void **state)
{
    (void)state;
    assert_int_equal(each_png(DATA "/pngsuite", load_ok), 60);
}

static void test_crashers(void **state)
{
    (void)state;
    assert_int_equal(each_png(DATA "/crashers", load_or_refuse), 23);
    assert_int_equal(each_png(DATA "/pngsuite", load_rgb_ok), 60);
    assert_int_equal(each_png(DATA "/crashers", load_rgb_or_refuse), 23);
}


static void test_missing(void **state)
{
    (void)state;
    struct image img = { 0 };
    struct rr_err e = { 0 };
    assert_int_equal(image_load_gray(&img, "/nonexistent/h.png", "initial.0.path", &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "initial.0.path: /nonexistent/h.png: cannot read PNG: "));
}

static void write_png(const char *name, int w, int h, png_uint_32 fmt, const void *px, char *path)
{
    snprintf(path, 128, "%s/%s", tmpdir, name);
    write_png_as(path, w, h, fmt, px);
}

/* Colour pictures (refract's background, caustics' floor): bytes kept as
 * they are, grey expanded, alpha over black; resampling at the same size is
 * the identity and a 2x enlargement interpolates between the pixels. */
static void test_rgb(void **state)
{
    (void)state;
    char path[128];
    const unsigned char px[2 * 2 * 3] = { 10, 20, 30, 200, 100, 0, 255, 255, 255, 0, 1, 2 };
    write_png("rgb.png", 2, 2, PNG_FORMAT_RGB, px, path);
    struct image_rgb img = { 0 }, big = { 0 }, same = { 0 };
    struct rr_err e = { 0 };
    assert_int_equal(image_load_rgb(&img, path, "render.background", &e), 0);
    assert_int_equal(img.width, 2);
    assert_int_equal(img.height, 2);
    assert_memory_equal(img.rgb, px, sizeof px);
    assert_int_equal(image_rgb_resample(&img, 2, 2, &same, &e), 0);
    assert_memory_equal(same.rgb, px, sizeof px);
    /* 4 x 1: one row at source y 0.5 averages the rows; x centre -0.25 is
     * clamped to column 0: red (10 + 255) / 2 = 132.5, rounded to even. */
    assert_int_equal(image_rgb_resample(&img, 4, 1, &big, &e), 0);
    assert_int_equal(big.rgb[0], 132);
    image_rgb_free(&big);
    /* 4 x 2, top row: centres at -0.25, 0.25, 0.75, 1.25 source pixels,
     * clamped: red 10, 10 + 0.25 * 190, 10 + 0.75 * 190, 200 (57.5 and
     * 152.5 rounded to even). */
    assert_int_equal(image_rgb_resample(&img, 4, 2, &big, &e), 0);
    const unsigned char top_red[4] = { 10, 58, 152, 200 };
    for (int x = 0; x < 4; x++)
        assert_int_equal(big.rgb[3 * x], top_red[x]);
    image_rgb_free(&big);
    image_rgb_free(&same);
    image_rgb_free(&img);

    const unsigned char ga[2 * 2] = { 100, 255, 200, 0 };   /* grey 100 opaque, grey 200 transparent */
    write_png("rgba.png", 2, 1, PNG_FORMAT_GA, ga, path);
    assert_int_equal(image_load_rgb(&img, path, "render.floor", &e), 0);
    const unsigned char want[6] = { 100, 100, 100, 0, 0, 0 };
    assert_memory_equal(img.rgb, want, 6);
    image_rgb_free(&img);
}

static void test_grey_codes(void **state)
{
    (void)state;
    char path[128];
    const unsigned char g[4] = { 0, 128, 255, 1 };
    write_png("g8.png", 4, 1, PNG_FORMAT_GRAY, g, path);
    struct image img = { 0 };
    struct rr_err e = { 0 };
    assert_int_equal(image_load_gray(&img, path, "m", &e), 0);
    /* Codes, not linear light: 128 reads 128/255 = 0.502, 255 exactly 1. */
    assert_true(img.v[0] == 0.0f);
    assert_true(img.v[1] == (float)(128.0 / 255.0));
    assert_true(img.v[2] == 1.0f);
    assert_true(img.v[3] == (float)(1.0 / 255.0));
    image_free(&img);
    /* Grey 255 at alpha 128 reads 128/255; grey 128 at alpha 0 reads 0. */
    const unsigned char ga[4] = { 255, 128, 128, 0 };
    write_png("ga.png", 2, 1, PNG_FORMAT_GA, ga, path);
    assert_int_equal(image_load_gray(&img, path, "m", &e), 0);
    assert_true(img.v[0] == (float)(128.0 / 255.0));
    assert_true(img.v[1] == 0.0f);
    image_free(&img);
}

static void test_16bit(void **state)
{
    (void)state;
    char path[128];
    const uint16_t g[5] = { 0, 1, 12345, 32768, 65535 };
    write_png("g16.png", 5, 1, PNG_FORMAT_LINEAR_Y, g, path);
    struct image img = { 0 };
    struct rr_err e = { 0 };
    assert_int_equal(image_load_gray(&img, path, "m", &e), 0);
    for (int k = 0; k < 5; k++)
        if (img.v[k] != (float)(g[k] / 65535.0))
            fail_msg("code %u: got %.9g", g[k], (double)img.v[k]);
    /* 1/65535 and 12345/65535 are no 8-bit value: the precision is kept. */
    assert_true(img.v[1] > 0.0f && img.v[1] < 1.0f / 255.0f);
    image_free(&img);
}

static void test_resample(void **state)
{
    (void)state;
    /* 2 x 2 -> 4 x 4. Destination centres map to source coordinates
     * (i + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped to [0, 1]:
     * weights 0, 1/4, 3/4, 1 of the second pixel. Source 0 1 / 2 3:
     *   row 0 (y 0):    0     0.25  0.75  1
     *   row 1 (y 1/4):  0.5   0.75  1.25  1.5
     *   row 2 (y 3/4):  1.5   1.75  2.25  2.5
     *   row 3 (y 1):    2     2.25  2.75  3                           */
    float px[4] = { 0, 1, 2, 3 };
    struct image src = { 2, 2, px }, dst = { 0 };
    struct rr_err e = { 0 };
    assert_int_equal(image_resample(&src, 4, 4, &dst, &e), 0);
    const float want[16] = { 0, 0.25f, 0.75f, 1, 0.5f, 0.75f, 1.25f, 1.5f,
                             1.5f, 1.75f, 2.25f, 2.5f, 2, 2.25f, 2.75f, 3 };
    assert_int_equal(dst.width, 4);
    assert_int_equal(dst.height, 4);
    for (int k = 0; k < 16; k++)
        if (dst.v[k] != want[k])
            fail_msg("cell %d: got %g, want %g", k, (double)dst.v[k], (double)want[k]);
    image_free(&dst);
    /* Same size: an exact copy. */
    assert_int_equal(image_resample(&src, 2, 2, &dst, &e), 0);
    assert_memory_equal(dst.v, px, sizeof px);
    image_free(&dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pngsuite),
        cmocka_unit_test(test_crashers),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_grey_codes),
        cmocka_unit_test(test_rgb),
        cmocka_unit_test(test_16bit),
        cmocka_unit_test(test_resample),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* gray_png.h: writes an 8-bit grey PNG of w x h pixels (row-major px) to
 * path with libpng's simplified API, for tests that load pictures (initial
 * images, speed maps). Include after cmocka.h. */
#ifndef RR_TEST_GRAY_PNG_H
#define RR_TEST_GRAY_PNG_H

#include <png.h>
#include <string.h>

static void write_gray_png(const char *path, int w, int h, const unsigned char *px)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = (png_uint_32)w;
    pi.height = (png_uint_32)h;
    pi.format = PNG_FORMAT_GRAY;
    assert_true(png_image_write_to_file(&pi, path, 0, px, 0, NULL));
}

#endif

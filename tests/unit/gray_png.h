/* gray_png.h: writes a PNG of w x h pixels (row-major px, in libpng's
 * simplified-API format fmt; 8-bit grey for write_gray_png) to path, for
 * tests that load pictures (initial images, speed maps, masks, backgrounds).
 * Include after cmocka.h. */
#ifndef RR_TEST_GRAY_PNG_H
#define RR_TEST_GRAY_PNG_H

#include <png.h>
#include <string.h>

static inline void write_png_as(const char *path, int w, int h, png_uint_32 fmt, const void *px)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = (png_uint_32)w;
    pi.height = (png_uint_32)h;
    pi.format = fmt;
    assert_true(png_image_write_to_file(&pi, path, 0, px, 0, NULL));
}

static inline void write_gray_png(const char *path, int w, int h, const unsigned char *px)
{
    write_png_as(path, w, h, PNG_FORMAT_GRAY, px);
}

#endif

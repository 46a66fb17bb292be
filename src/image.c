/* image.c: PNG reading through libpng's simplified API, and bilinear
 * resampling, and depth maps from a PNG or a NumPy .npy file (see image.h).
 *
 * Values are the file's own grey codes scaled to [0, 1], without gamma
 * linearisation, so that a mask painted at grey 128 reads 128/255 = 0.502:
 * 8-bit files are read as PNG_FORMAT_GA (8-bit codes, alpha not
 * premultiplied; libpng only converts when the file declares a gamma other
 * than sRGB's) and the value is g/255 * a/255. 16-bit files are read as
 * PNG_FORMAT_LINEAR_Y_ALPHA, where libpng takes 16-bit data without a gAMA
 * chunk as linear already, so the codes pass through unchanged with their 16
 * bits; its output is premultiplied, which is exactly g * a. Colour files are
 * reduced to luminance by libpng. */
#include "image.h"
#include "budget.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define IMAGE_MAX_SIDE 16384

/* Opens a PNG with libpng's simplified API and checks its size. Returns 0, or
 * -1 with e filled (RR_EXIT_USAGE); png_image_free is safe either way. */
static int begin_read(png_image *pi, const char *path, const char *what, struct rr_err *e)
{
    memset(pi, 0, sizeof *pi);
    pi->version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(pi, path))
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: cannot read PNG: %s", what, path, pi->message);
    if (pi->width < 1 || pi->height < 1 || pi->width > IMAGE_MAX_SIDE || pi->height > IMAGE_MAX_SIDE)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: cannot read PNG: %u x %u pixels is larger than %d x %d", what,
                       path, (unsigned)pi->width, (unsigned)pi->height, IMAGE_MAX_SIDE, IMAGE_MAX_SIDE);
    return 0;
}

/* begin_read for a loader, *what "image" when NULL (its messages name it). */
static int open_read(png_image *pi, const char *path, const char **what, struct rr_err *e)
{
    if (!*what)
        *what = "image";
    return begin_read(pi, path, *what, e);
}

/* Decodes the opened PNG into buf, composited over background (NULL: none).
 * Returns 0, or -1 with e filled (RR_EXIT_USAGE). */
static int finish_read(png_image *pi, const png_color *background, void *buf, const char *path, const char *what,
                       struct rr_err *e)
{
    if (!png_image_finish_read(pi, background, buf, 0, NULL))
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: cannot read PNG: %s", what, path, pi->message);
    return 0;
}

int image_load_gray(struct image *img, const char *path, const char *what, struct rr_err *e)
{
    png_image pi;
    void *buf = NULL;
    int ret = -1;

    memset(img, 0, sizeof *img);
    if (open_read(&pi, path, &what, e) < 0)
        goto end;
    int sixteen = (pi.format & PNG_FORMAT_FLAG_LINEAR) != 0;
    pi.format = sixteen ? PNG_FORMAT_LINEAR_Y_ALPHA : PNG_FORMAT_GA;
    size_t w = pi.width, h = pi.height, comp = sixteen ? 2 : 1;
    if (w > SIZE_MAX / h / 2 / comp || w * h > SIZE_MAX / sizeof(float)) {
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: cannot read PNG: %zu x %zu pixels overflow the buffer size", what, path,
                w, h);
        goto end;
    }
    uint64_t budget, need = budget_mul(budget_mul(w, h), 2 * comp + sizeof(float));
    if (budget_limit(&budget, e) < 0)
        goto end;
    if (need > budget) {
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: %zu x %zu pixels need %llu bytes to decode, more than the limit of "
                "%llu bytes (RIPPLERENDER_MEM_LIMIT)", what, path, w, h, (unsigned long long)need,
                (unsigned long long)budget);
        goto end;
    }
    buf = malloc(w * h * 2 * comp);
    img->v = malloc(w * h * sizeof(float));
    if (!buf || !img->v) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: %s: out of memory for %zu x %zu pixels", what, path, w, h);
        goto end;
    }
    if (finish_read(&pi, NULL, buf, path, what, e) < 0)
        goto end;
    if (sixteen) {
        const uint16_t *p = buf;
        for (size_t i = 0; i < w * h; i++)
            img->v[i] = (float)((double)p[2 * i] / 65535.0);
    } else {
        const unsigned char *p = buf;
        for (size_t i = 0; i < w * h; i++)
            img->v[i] = (float)((double)p[2 * i] * (double)p[2 * i + 1] / (255.0 * 255.0));
    }
    img->width = (int)w;
    img->height = (int)h;
    ret = 0;
end:
    png_image_free(&pi);   /* safe after libpng freed it on an error */
    free(buf);
    if (ret < 0) {
        free(img->v);
        memset(img, 0, sizeof *img);
    }
    return ret;
}

/* Half-pixel centres: destination centre i + 0.5 maps to source coordinate
 * (i + 0.5) * scale, whose pixel index is that minus 0.5, clamped to the
 * source: *i0, *i1 the two pixels, *f the weight of *i1. */
static void half_pixel(int i, double scale, int n, int *i0, int *i1, double *f)
{
    double s = (i + 0.5) * scale - 0.5;
    if (s < 0) s = 0;
    if (s > n - 1) s = n - 1;
    *i0 = (int)floor(s);
    *i1 = *i0 + 1 < n ? *i0 + 1 : n - 1;
    *f = s - *i0;
}

/* Bilinear blend of the four pixels around a point: a b on the upper row,
 * c d on the lower, fx and fy the weights of the right and lower ones. */
static double bilerp(double a, double b, double c, double d, double fx, double fy)
{
    double top = a + (b - a) * fx, bot = c + (d - c) * fx;
    return top + (bot - top) * fy;
}

int image_resample(const struct image *src, int w, int h, struct image *dst, struct rr_err *e)
{
    memset(dst, 0, sizeof *dst);
    if (w < 1 || h < 1 || !src->v || src->width < 1 || src->height < 1)
        return rr_fail(e, RR_EXIT_RUNTIME, "image resample: bad size %d x %d", w, h);
    size_t n = (size_t)w * (size_t)h;
    if (n > SIZE_MAX / sizeof(float) || !(dst->v = malloc(n * sizeof(float))))
        return rr_fail(e, RR_EXIT_RUNTIME, "image resample: out of memory for %d x %d pixels", w, h);
    const int sw = src->width, sh = src->height;
    for (int y = 0; y < h; y++) {
        int y0, y1, x0, x1;
        double fy, fx;
        half_pixel(y, (double)sh / h, sh, &y0, &y1, &fy);
        const float *r0 = src->v + (size_t)y0 * sw, *r1 = src->v + (size_t)y1 * sw;
        for (int x = 0; x < w; x++) {
            half_pixel(x, (double)sw / w, sw, &x0, &x1, &fx);
            dst->v[(size_t)y * w + x] = (float)bilerp(r0[x0], r0[x1], r1[x0], r1[x1], fx, fy);
        }
    }
    dst->width = w;
    dst->height = h;
    return 0;
}

int image_size(const char *path, const char *what, int *w, int *h, struct rr_err *e)
{
    png_image pi;
    int rc = begin_read(&pi, path, what ? what : "image", e);
    *w = (int)pi.width;
    *h = (int)pi.height;
    png_image_free(&pi);
    return rc;
}

void image_free(struct image *img)
{
    if (!img)
        return;
    free(img->v);
    memset(img, 0, sizeof *img);
}

int image_load_rgb(struct image_rgb *img, const char *path, const char *what, struct rr_err *e)
{
    png_image pi;
    int ret = -1;
    memset(img, 0, sizeof *img);
    if (open_read(&pi, path, &what, e) < 0)
        goto end;
    /* Alpha is composited over black by libpng when a background is given. */
    pi.format = PNG_FORMAT_RGB;
    size_t w = pi.width, h = pi.height;
    img->rgb = malloc(w * h * 3);
    if (!img->rgb) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: %s: out of memory for %zu x %zu pixels", what, path, w, h);
        goto end;
    }
    const png_color black = { 0, 0, 0 };
    if (finish_read(&pi, &black, img->rgb, path, what, e) < 0)
        goto end;
    img->width = (int)w;
    img->height = (int)h;
    ret = 0;
end:
    png_image_free(&pi);
    if (ret < 0) {
        free(img->rgb);
        memset(img, 0, sizeof *img);
    }
    return ret;
}

int image_rgb_resample(const struct image_rgb *src, int w, int h, struct image_rgb *dst, struct rr_err *e)
{
    memset(dst, 0, sizeof *dst);
    if (w < 1 || h < 1 || !src->rgb || src->width < 1 || src->height < 1)
        return rr_fail(e, RR_EXIT_RUNTIME, "image resample: bad size %d x %d", w, h);
    if (!(dst->rgb = malloc((size_t)w * (size_t)h * 3)))
        return rr_fail(e, RR_EXIT_RUNTIME, "image resample: out of memory for %d x %d pixels", w, h);
    const int sw = src->width, sh = src->height;
    for (int y = 0; y < h; y++) {
        int y0, y1, x0, x1;
        double fy, fx;
        half_pixel(y, (double)sh / h, sh, &y0, &y1, &fy);
        const unsigned char *r0 = src->rgb + (size_t)y0 * sw * 3, *r1 = src->rgb + (size_t)y1 * sw * 3;
        for (int x = 0; x < w; x++) {
            half_pixel(x, (double)sw / w, sw, &x0, &x1, &fx);
            for (int c = 0; c < 3; c++)
                dst->rgb[((size_t)y * w + x) * 3 + c] = (unsigned char)lrint(
                    bilerp(r0[3 * x0 + c], r0[3 * x1 + c], r1[3 * x0 + c], r1[3 * x1 + c], fx, fy));
        }
    }
    dst->width = w;
    dst->height = h;
    return 0;
}

void image_rgb_free(struct image_rgb *img)
{
    if (!img)
        return;
    free(img->rgb);
    memset(img, 0, sizeof *img);
}

int image_is_npy(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && !strcasecmp(path + n - 4, ".npy");
}

/* The value of 'key': in a .npy header dict (text, NUL-terminated), or NULL. */
static const char *npy_field(const char *dict, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    const char *p = strstr(dict, quoted);
    if (!p)
        return NULL;
    p += strlen(quoted);
    while (*p == ' ')
        p++;
    if (*p++ != ':')
        return NULL;
    while (*p == ' ')
        p++;
    return p;
}

/* Reads a .npy of float32 or float64 (little-endian, C order) of shape
 * (h, w) into v (w * h floats). The header is a Python dict literal after
 * the magic "\x93NUMPY", two version bytes and its length (2 bytes in
 * format 1, 4 in formats 2 and 3), as NumPy's format documentation gives it. */
static int read_npy(const char *path, int w, int h, const char *what, float *v, struct rr_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: cannot open: %s", what, path, strerror(errno));
    unsigned char pre[12];
    char *dict = NULL, *raw = NULL;
    int ret = -1;
    size_t got = fread(pre, 1, 10, f);
    if (got < 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: not a .npy file (no \\x93NUMPY magic)", what, path);
        goto end;
    }
    size_t len = pre[8] | (size_t)pre[9] << 8;
    if (pre[6] >= 2) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            rr_fail(e, RR_EXIT_USAGE, "%s: %s: not a .npy file (its header is cut short)", what, path);
            goto end;
        }
        len |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    }
    if (len > 65536 || !(dict = malloc(len + 1)) || fread(dict, 1, len, f) != len) {
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: not a .npy file (a header of %zu bytes that does not read)", what,
                path, len);
        goto end;
    }
    dict[len] = 0;
    const char *descr = npy_field(dict, "descr"), *order = npy_field(dict, "fortran_order"),
               *shape = npy_field(dict, "shape");
    int size = descr && (!strncmp(descr, "'<f4'", 5) || !strncmp(descr, "'<f8'", 5)) ? descr[3] - '0' : 0;
    if (!size) {
        int n = descr ? (int)strcspn(descr, ",}") : 4;
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: dtype %.*s: expected float32 ('<f4') or float64 ('<f8')", what, path,
                n, descr ? descr : "none");
        goto end;
    }
    if (!order || strncmp(order, "False", 5) != 0) {
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: fortran_order is not False: expected a C-order array", what, path);
        goto end;
    }
    long rows = -1, cols = -1;
    int used = 0;
    if (!shape || sscanf(shape, "(%ld, %ld%n", &rows, &cols, &used) != 2 || rows != h || cols != w) {
        int n = shape ? (int)strcspn(shape, ")") + 1 : 4;
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: shape %.*s: expected (%d, %d), the grid's height and width", what,
                path, n, shape ? shape : "none", h, w);
        goto end;
    }
    const char *rest = shape + used;
    while (*rest == ' ' || *rest == ',')
        rest++;
    if (*rest != ')') {
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: shape %.*s: expected (%d, %d), the grid's height and width", what,
                path, (int)strcspn(shape, ")") + 1, shape, h, w);
        goto end;
    }
    size_t n = (size_t)w * (size_t)h;
    if (!(raw = malloc(n * (size_t)size))) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: %s: out of memory for %d x %d values", what, path, w, h);
        goto end;
    }
    got = fread(raw, (size_t)size, n, f);
    if (got != n) {
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: %zu of its %zu values are missing (the file is cut short)", what, path,
                n - got, n);
        goto end;
    }
    /* Little-endian bytes to values, whatever the machine's order. */
    for (size_t k = 0; k < n; k++) {
        const unsigned char *b = (const unsigned char *)raw + k * (size_t)size;
        uint64_t bits = 0;
        for (int i = size - 1; i >= 0; i--)
            bits = bits << 8 | b[i];
        if (size == 4) {
            uint32_t b32 = (uint32_t)bits;
            float x;
            memcpy(&x, &b32, 4);
            v[k] = x;
        } else {
            double x;
            memcpy(&x, &bits, 8);
            v[k] = (float)x;
        }
    }
    ret = 0;
end:
    fclose(f);
    free(dict);
    free(raw);
    return ret;
}

int image_load_depth(const char *path, const double range[2], int w, int h, const char *what, const char *unit,
                     float **out, struct rr_err *e)
{
    size_t n = (size_t)w * (size_t)h;
    float *v = malloc(n * sizeof *v);
    *out = NULL;
    if (!v)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory for %d x %d values", what, w, h);
    if (image_is_npy(path)) {
        if (read_npy(path, w, h, what, v, e) < 0) {
            free(v);
            return -1;
        }
    } else {
        struct image img = { 0 }, fit = { 0 };
        if (image_load_gray(&img, path, what, e) < 0) {
            free(v);
            return -1;
        }
        if ((img.width != w || img.height != h) && image_resample(&img, w, h, &fit, e) < 0) {
            image_free(&img);
            free(v);
            return rr_wrap(e, "%s: ", what);
        }
        const float *g = fit.v ? fit.v : img.v;
        for (size_t k = 0; k < n; k++)
            v[k] = (float)(range[0] + (range[1] - range[0]) * (double)g[k]);
        image_free(&img);
        image_free(&fit);
    }
    for (size_t k = 0; k < n; k++)
        if (!(isfinite(v[k]) && v[k] > 0)) {
            rr_fail(e, RR_EXIT_USAGE, "%s: %s: cell (%zu, %zu) is %g %s: a depth must be finite and > 0 (dry land "
                    "is an obstacle)", what, path, k % (size_t)w, k / (size_t)w, (double)v[k], unit);
            free(v);
            return -1;
        }
    *out = v;
    return 0;
}

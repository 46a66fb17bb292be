/* sinks/pngseq.c: one PNG per frame, named by a printf pattern (f%05d.png):
 * 8-bit rgb, or 16-bit grey for height renders with output.bit_depth 16,
 * through libpng's simplified API; with render.alpha or, in the other modes,
 * output.bit_depth 16, the frame's deep picture as 8- or 16-bit RGB or RGBA
 * through libpng's full API (the simplified API's 16-bit formats are linear
 * and premultiplied; these values are sRGB codes, alpha straight).
 *
 * Atomic as a set (sink_seq, sinks.h): every frame is written under a
 * temporary name beside its target; close moves them all into place; free
 * without close removes them. */
#include "outfile.h"
#include "sinks.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pngseq_sink {
    struct sink_seq seq;
    bool gray16, deep;
    int width, height;
};

static int pngseq_needs(const struct output_config *o, const struct scene *sc)
{
    bool alpha = sc->render.alpha != ALPHA_NONE, b16 = o->bit_depth == 16;
    if (b16 && !alpha)   /* grey in a grey mode, else 16-bit colour (frame.h) */
        return RENDER_NEED_GRAY16;
    return (b16 ? RENDER_NEED_RGB16 : 0) | (alpha ? RENDER_NEED_ALPHA : 0);
}

static int pngseq_open(void *priv, const struct output_config *o, const struct sink_params *p,
                       struct rr_err *e)
{
    struct pngseq_sink *s = priv;
    if (o->bit_depth != 0 && o->bit_depth != 8 && o->bit_depth != 16)
        return rr_fail(e, RR_EXIT_USAGE, "output.bit_depth: expected 8 or 16, got %d", o->bit_depth);
    s->gray16 = o->bit_depth == 16 && p->alpha == ALPHA_NONE;
    s->deep = o->bit_depth == 16 || p->alpha != ALPHA_NONE;
    s->width = p->width;
    s->height = p->height;
    return sink_seq_open(&s->seq, o->path, p, e);
}

/* libpng's full API reports errors through these: the message is kept for
 * our one line and control returns to write_deep's setjmp. */
struct png_fail {
    char msg[200];
};

static void deep_error(png_structp png, png_const_charp msg)
{
    struct png_fail *f = png_get_error_ptr(png);
    snprintf(f->msg, sizeof f->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void deep_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* The frame's deep picture (frame.h: rgb or rgba, 8 or 16 bits) as a PNG of
 * that colour type and depth into fp (closed here), sRGB-tagged as the
 * simplified API tags 8-bit files; 16-bit samples are native-endian in
 * memory, big-endian in the file (png_set_swap on little-endian machines).
 * Returns 0, or -1 with e filled. */
static int write_deep(FILE *fp, const char *name, const struct frame *fr, struct rr_err *e)
{
    struct png_fail fail = { "" };
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &fail, deep_error, deep_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        fclose(fp);
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot write PNG: out of memory", name);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(fp);
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot write PNG: %s", name, fail.msg);
    }
    png_init_io(png, fp);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);   /* fast, as PNG_IMAGE_FLAG_FAST */
    png_set_compression_level(png, 3);
    png_set_IHDR(png, info, (png_uint_32)fr->width, (png_uint_32)fr->height, fr->deep_bits,
                 fr->deep_channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    const uint16_t one = 1;
    if (fr->deep_bits == 16 && *(const uint8_t *)&one == 1)
        png_set_swap(png);
    size_t row = (size_t)fr->width * fr->deep_channels * (fr->deep_bits / 8);
    for (int y = 0; y < fr->height; y++)
        png_write_row(png, (png_const_bytep)fr->deep + (size_t)y * row);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(fp) != 0)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot write PNG: %s", name, strerror(errno));
    return 0;
}

static int pngseq_write(void *priv, const struct frame *fr, struct rr_err *e)
{
    struct pngseq_sink *s = priv;
    char name[4096];
    if (sink_seq_name(&s->seq, fr->index, name, sizeof name, e) < 0)
        return -1;
    if (fr->width != s->width || fr->height != s->height)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: frame %ld is %dx%d, expected %dx%d", name, fr->index, fr->width,
                       fr->height, s->width, s->height);
    if (s->gray16 && !fr->gray16 && !fr->deep)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: frame %ld has no 16-bit grey", name, fr->index);
    if (s->deep && !fr->deep && !fr->gray16)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: frame %ld has no deep picture", name, fr->index);
    struct outfile *of = sink_seq_begin(&s->seq, name, e);
    if (!of)
        return -1;
    FILE *f = outfile_fopen(of, e);
    if (!f)
        return -1;
    if (!fr->gray16 && fr->deep) {
        int r = write_deep(f, name, fr, e);
        outfile_close_fd(of);
        return r;
    }

    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)fr->width;
    img.height = (png_uint_32)fr->height;
    /* Faster filter and compression choice; smaller files on ripple frames. */
    img.flags = PNG_IMAGE_FLAG_FAST;
    const void *pixels;
    if (s->gray16) {
        /* 16-bit linear grey: libpng writes the values as they are (gAMA 1.0). */
        img.format = PNG_FORMAT_LINEAR_Y;
        pixels = fr->gray16;
    } else {
        img.format = PNG_FORMAT_RGB;
        pixels = fr->rgb;
    }
    errno = 0;
    int ok = png_image_write_to_stdio(&img, f, 0, pixels, 0, NULL);
    int err = ok ? 0 : errno;
    if (ferror(f) | fclose(f)) {
        if (ok)
            err = errno;
        ok = 0;
    }
    outfile_close_fd(of);
    if (!ok) {
        /* A failed write (EFBIG, ENOSPC) is named by errno; libpng's own
         * message says only that the write failed. */
        int r = rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot write PNG: %s", name,
                        err ? strerror(err) : img.message);
        png_image_free(&img);
        return r;
    }
    return 0;
}

static int pngseq_close(void *priv, struct rr_err *e)
{
    struct pngseq_sink *s = priv;
    return sink_seq_commit(&s->seq, e);
}

static void pngseq_free(void *priv)
{
    struct pngseq_sink *s = priv;
    sink_seq_free(&s->seq);
}

const struct sink_ops sink_pngseq_ops = {
    .name = "png",
    .exts = "png",
    .numbered = true,
    .help = "a PNG sequence (8- or 16-bit rgb or rgba, 16-bit grey)",
    .priv_size = sizeof(struct pngseq_sink),
    .deep = true,
    .needs = pngseq_needs,
    .open = pngseq_open,
    .write = pngseq_write,
    .close = pngseq_close,
    .free = pngseq_free,
};

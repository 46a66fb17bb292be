/* sinks/atlas.c: render.atlas, a flipbook: the frames of a PNG or EXR
 * sequence tiled columns x rows into one image, as game engines play them
 * (Unity's flipbook texture sheets, Unreal's SubUV): frame k of an atlas in
 * column k % columns, row k / columns, counted from the top left (row-major).
 * Image a of the sequence (the output pattern at a) holds frames
 * a * columns * rows onwards; the last image's cells past the clip's end
 * are zero (black, transparent, 0.0).
 *
 * A wrapper around the sequence's own kind (sinks/pngseq.c, sinks/exr.c):
 * sink_open picks it for a scene with render.atlas, and the kind opens at
 * the atlas's size and writes one atlas-sized frame per image. Every part
 * of the frame the kind asked for (rgb, 16-bit grey, the deep picture, the
 * heights) is tiled the same way. */
#include "budget.h"
#include "render.h"
#include "sinks.h"

#include <stdlib.h>
#include <string.h>

struct atlas_sink {
    const struct sink_ops *kind;
    void *priv;                /* the kind's state */
    int cols, rows;
    long atlas;                /* the image being filled, or -1 */
    struct frame img;          /* its frame: sizes and the tiled parts */
    uint8_t *rgb, *gray16, *heights, *deep;
};

int sink_atlas_check(const struct sink_ops *kind, const struct scene *sc, const struct sink_params *p,
                     struct rr_err *e)
{
    const int c = sc->render.atlas[0], r = sc->render.atlas[1];
    const long per = (long)c * r, end = p->first + p->frames;
    if (!kind->numbered)
        return rr_fail(e, RR_EXIT_USAGE, "render.atlas: is for PNG and EXR sequences (NAME%%05d.png, NAME%%04d.exr), "
                       "not %s", sc->output.path);
    if (p->first % per)
        return rr_fail(e, RR_EXIT_USAGE, "render.atlas: a part of the timeline must start at a multiple of %d x %d "
                       "= %ld frames (an atlas's first), not at frame %ld", c, r, per, p->first);
    if (end % per && end != sc->time.frames)
        return rr_fail(e, RR_EXIT_USAGE, "render.atlas: a part of the timeline must end at a multiple of %d x %d = "
                       "%ld frames or at the clip's end, not after frame %ld", c, r, per, end - 1);
    const long long w = (long long)c * p->width, h = (long long)r * p->height;
    if (w * h > (1LL << 28) || w > 65535 || h > 65535)
        return rr_fail(e, RR_EXIT_USAGE, "render.atlas: %d x %d frames of %dx%d make a %lldx%lld image, more than "
                       "65535 pixels a side or 2^28 in all", c, r, p->width, p->height, w, h);
    return 0;
}

static int atlas_needs(const struct output_config *o, const struct scene *sc)
{
    const struct sink_ops *kind = sink_find(o->path, NULL);
    return kind ? kind->needs(o, sc) : 0;
}

static int atlas_open(void *priv, const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    struct atlas_sink *s = priv;
    s->cols = p->atlas[0];
    s->rows = p->atlas[1];
    s->atlas = -1;
    if (!(s->kind = sink_find(o->path, e)))
        return -1;
    if (!(s->priv = calloc(1, s->kind->priv_size)))
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    const long per = (long)s->cols * s->rows;
    struct sink_params q = *p;
    q.width *= s->cols;
    q.height *= s->rows;
    q.grid_w *= s->cols;
    q.grid_h *= s->rows;
    q.first = p->first / per;
    q.frames = (p->first + p->frames + per - 1) / per - q.first;
    return s->kind->open(s->priv, o, &q, e);
}

/* Copies a w x h picture of bpp bytes a pixel into cell (col, row) of an
 * atlas of cols such pictures a row. */
static void tile(uint8_t *dst, const void *src, int w, int h, size_t bpp, int cols, int col, int row)
{
    const size_t line = (size_t)w * bpp, dline = line * (size_t)cols;
    for (int y = 0; y < h; y++)
        memcpy(dst + ((size_t)row * h + y) * dline + (size_t)col * line, (const uint8_t *)src + y * line, line);
}

/* Writes the atlas being filled, if any. */
static int flush(struct atlas_sink *s, struct rr_err *e)
{
    if (s->atlas < 0)
        return 0;
    s->img.index = s->atlas;
    s->atlas = -1;
    return s->kind->write(s->priv, &s->img, e);
}

/* The atlas's buffers, for the parts frame fr has (the same for every
 * frame: what the kind asked for). Returns 0, or -1 with e filled. */
static int atlas_alloc(struct atlas_sink *s, const struct frame *fr, struct rr_err *e)
{
    const size_t n = (size_t)s->cols * s->rows, pix = (size_t)fr->width * fr->height;
    s->rgb = calloc(n * pix, 3);
    s->gray16 = fr->gray16 ? calloc(n * pix, 2) : NULL;
    s->heights = fr->heights ? calloc(n * (size_t)fr->grid_w * fr->grid_h, sizeof(float)) : NULL;
    s->deep = fr->deep ? calloc(n, frame_deep_bytes(fr)) : NULL;
    if (!s->rgb || (fr->gray16 && !s->gray16) || (fr->heights && !s->heights) || (fr->deep && !s->deep))
        return rr_fail(e, RR_EXIT_RUNTIME, "render.atlas: out of memory for %d x %d frames of %dx%d", s->cols,
                       s->rows, fr->width, fr->height);
    s->img = (struct frame){ .width = fr->width * s->cols, .height = fr->height * s->rows, .rgb = s->rgb,
                             .gray16 = (const uint16_t *)s->gray16, .grid_w = fr->grid_w * s->cols,
                             .grid_h = fr->grid_h * s->rows, .heights = (const float *)s->heights, .deep = s->deep,
                             .deep_channels = fr->deep_channels, .deep_bits = fr->deep_bits };
    return 0;
}

static int atlas_write(void *priv, const struct frame *fr, struct rr_err *e)
{
    struct atlas_sink *s = priv;
    const long per = (long)s->cols * s->rows, a = fr->index / per;
    const int cell = (int)(fr->index % per), col = cell % s->cols, row = cell / s->cols;
    if (!s->rgb && atlas_alloc(s, fr, e) < 0)
        return -1;
    if (fr->width * s->cols != s->img.width || fr->height * s->rows != s->img.height
        || !fr->gray16 != !s->gray16 || !fr->heights != !s->heights || !fr->deep != !s->deep
        || (fr->deep && (fr->deep_bits != s->img.deep_bits || fr->deep_channels != s->img.deep_channels)))
        return rr_fail(e, RR_EXIT_RUNTIME, "render.atlas: frame %ld differs in size or parts from the first",
                       fr->index);
    if (a != s->atlas) {
        if (flush(s, e) < 0)
            return -1;
        s->atlas = a;
        const size_t n = (size_t)per, pix = (size_t)fr->width * fr->height;
        memset(s->rgb, 0, n * pix * 3);
        if (s->gray16)
            memset(s->gray16, 0, n * pix * 2);
        if (s->heights)
            memset(s->heights, 0, n * (size_t)fr->grid_w * fr->grid_h * sizeof(float));
        if (s->deep)
            memset(s->deep, 0, n * frame_deep_bytes(fr));
    }
    tile(s->rgb, fr->rgb, fr->width, fr->height, 3, s->cols, col, row);
    if (s->gray16)
        tile(s->gray16, fr->gray16, fr->width, fr->height, 2, s->cols, col, row);
    if (s->heights)
        tile(s->heights, fr->heights, fr->grid_w, fr->grid_h, sizeof(float), s->cols, col, row);
    if (s->deep)
        tile(s->deep, fr->deep, fr->width, fr->height, (size_t)fr->deep_channels * (fr->deep_bits / 8), s->cols,
             col, row);
    return 0;
}

static int atlas_close(void *priv, struct rr_err *e)
{
    struct atlas_sink *s = priv;
    if (flush(s, e) < 0)
        return -1;
    return s->kind->close(s->priv, e);
}

static void atlas_free(void *priv)
{
    struct atlas_sink *s = priv;
    if (s->kind && s->priv)
        s->kind->free(s->priv);
    free(s->priv);
    free(s->rgb);
    free(s->gray16);
    free(s->heights);
    free(s->deep);
}

/* The memory budget (sink_ops.bytes): the image being filled, columns x
 * rows frames of each part the kind asked for (rgb24, 16-bit grey, the
 * deep picture, the raw heights at grid size), and what the kind itself
 * holds for images of the atlas's size. */
static uint64_t atlas_bytes(const struct scene *sc, const struct sink_budget *b, char *what, size_t size)
{
    const struct sink_ops *kind = sink_find(sc->output.path, NULL);
    if (!kind)
        return 0;
    const int needs = render_needs(sc, kind->needs(&sc->output, sc));
    const uint64_t n = budget_mul((uint64_t)sc->render.atlas[0], (uint64_t)sc->render.atlas[1]);
    const uint64_t pix = budget_mul(b->width, b->height);
    const uint64_t cells = budget_mul((uint64_t)sc->grid.width, (uint64_t)sc->grid.height);
    uint64_t img = budget_mul(pix, 3 + (needs & RENDER_NEED_GRAY16 ? 2 : 0) + budget_deep_pixel(sc, needs));
    img = budget_add(img, needs & RENDER_NEED_HEIGHTS ? budget_mul(cells, 4) : 0);
    struct sink_budget in = *b;
    in.width = budget_mul(b->width, (uint64_t)sc->render.atlas[0]);
    in.height = budget_mul(b->height, (uint64_t)sc->render.atlas[1]);
    in.frames = n ? (b->frames + n - 1) / n : 0;
    char inner[64] = "";
    const uint64_t own = kind->bytes ? kind->bytes(sc, &in, inner, sizeof inner) : 0;
    snprintf(what, size, "the render.atlas image of %llu frames%s%s", (unsigned long long)n, inner[0] ? " and " : "",
             inner);
    return budget_add(budget_mul(n, img), own);
}

const struct sink_ops sink_atlas_ops = {
    .name = "atlas",
    .exts = "",
    .help = "render.atlas: frames tiled into the images of a PNG or EXR sequence",
    .priv_size = sizeof(struct atlas_sink),
    .deep = true,
    .floats = true,
    .needs = atlas_needs,
    .bytes = atlas_bytes,
    .open = atlas_open,
    .write = atlas_write,
    .close = atlas_close,
    .free = atlas_free,
};

/* sinks/exr.c: one OpenEXR file per frame, named by a printf pattern
 * (h%04d.exr), through OpenEXRCore (libopenexr's C library): a single-part
 * scanline image of the frame's float picture (frame.h, RENDER_NEED_FLOAT)
 * at the grid's size, 32-bit floats, or half floats with output.bit_depth 16.
 * The channels are render.mode's float channels (its float_names in the
 * render modes' table, passed in sink_params), so this file knows no mode:
 *
 *   height    Y      the height (scene units, the .npy's values)
 *   normals   R G B  the unit normal nx, ny, nz (render.normal_convention)
 *   caustics  Y      the floor's light (1: still water's)
 *
 * plus A, render.alpha's alpha in [0, 1], when render.alpha is set. Y is the
 * name OpenEXR gives a luminance channel: a one-channel Y file is what
 * ffmpeg, OpenEXR's RGBA interface and compositors read as a grey picture.
 * Compression: output.exr_compression (ZIP, 16 scanlines a block, by default).
 *
 * Atomic as a set (sink_seq, sinks.h), like a PNG sequence: OpenEXRCore
 * writes through our pwrite into the temporary file outfile made. */
#include "budget.h"
#include "outfile.h"
#include "sinks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openexr.h>

struct exr_sink {
    struct sink_seq seq;
    int width, height, channels;
    const char *names[4];          /* the file's channel of each of the frame's floats */
    exr_pixel_type_t type;         /* EXR_PIXEL_FLOAT or EXR_PIXEL_HALF */
    exr_compression_t compression;
};

/* What OpenEXRCore's callbacks share with write_file: the temporary file and
 * the first error, kept for our one line. */
struct exr_io {
    int fd;
    int err;                       /* errno of a failed write, or 0 */
    char msg[200];                 /* the library's message, or "" */
};

static int exr_needs(const struct output_config *o, const struct scene *sc)
{
    (void)o;
    return RENDER_NEED_FLOAT | (sc->render.alpha != ALPHA_NONE ? RENDER_NEED_ALPHA : 0);
}

/* The memory budget (sink_ops.bytes): the frame's float picture is the
 * renderer's and the ring's (src/budget.c counts it from the needs); the
 * writer holds OpenEXRCore's buffers for one chunk (up to 32 scanlines, PIZ:
 * the packed floats, the compressed block and the compressor's scratch, 4
 * of up to 4 floats a pixel), its chunk table and its context. */
#define EXR_FIXED ((uint64_t)1 << 20)
#define EXR_CHUNK_LINES 32

static uint64_t exr_bytes(const struct scene *sc, const struct sink_budget *b, char *what, size_t size)
{
    (void)sc;
    snprintf(what, size, "the .exr writer's chunk buffers");
    return budget_add(EXR_FIXED, budget_add(budget_mul(budget_mul(b->width, EXR_CHUNK_LINES), 4 * 16),
                                            budget_mul(b->height, 8)));
}

/* The channel names, in the order of the frame's floats: the mode's
 * (sink_params.float_names), then A with alpha. Returns 0, or -1 with e
 * filled (a mode without a float picture). */
static int exr_channels(struct exr_sink *s, const char *path, const struct sink_params *p, struct rr_err *e)
{
    int n = 0;
    if (!p->float_names || !p->float_names[0])
        return rr_fail(e, RR_EXIT_USAGE,
                       "render.mode: %s holds a mode's float picture; \"%s\" has no float picture "
                       "(%s have; use a PNG sequence for its colours)",
                       path, p->mode_name, p->float_modes);
    for (const char *const *c = p->float_names; *c; c++) {
        if (n == 3)
            return rr_fail(e, RR_EXIT_USAGE, "render.mode: %s holds at most 3 float channels and alpha; \"%s\" has more",
                           path, p->mode_name);
        s->names[n++] = *c;
    }
    if (p->alpha != ALPHA_NONE)
        s->names[n++] = "A";
    s->channels = n;
    return 0;
}

/* What exr_open refuses before it makes anything (also --validate's check):
 * a mode without floats, a render of another size than the grid's. */
static int exr_check(const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    struct exr_sink names;
    if (exr_channels(&names, o->path, p, e) < 0)
        return -1;
    if (p->width != p->grid_w || p->height != p->grid_h)
        return rr_fail(e, RR_EXIT_USAGE,
                       "render.width: %s holds one pixel per grid cell (%dx%d), not a %dx%d render "
                       "(leave render.width and render.height unset)",
                       o->path, p->grid_w, p->grid_h, p->width, p->height);
    return 0;
}

static int exr_open(void *priv, const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    struct exr_sink *s = priv;
    if (exr_check(o, p, e) < 0 || exr_channels(s, o->path, p, e) < 0)
        return -1;
    s->width = p->grid_w;
    s->height = p->grid_h;
    s->type = o->bit_depth == 16 ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT;
    static const exr_compression_t kinds[] = { EXR_COMPRESSION_ZIP, EXR_COMPRESSION_ZIPS, EXR_COMPRESSION_PIZ,
                                                EXR_COMPRESSION_RLE, EXR_COMPRESSION_NONE };
    s->compression = kinds[o->exr_compression];
    return sink_seq_open(&s->seq, o->path, p, e);
}

static int64_t exr_pwrite(exr_const_context_t ctx, void *user, const void *buf, uint64_t size, uint64_t offset,
                          exr_stream_error_func_ptr_t error_cb)
{
    (void)ctx;
    (void)error_cb;
    struct exr_io *io = user;
    const char *p = buf;
    uint64_t done = 0;
    while (done < size) {
        ssize_t k = pwrite(io->fd, p + done, size - done, (off_t)(offset + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (!io->err)
                io->err = k < 0 ? errno : EIO;
            return -1;
        }
        done += (uint64_t)k;
    }
    return (int64_t)size;
}

static void exr_error(exr_const_context_t ctx, exr_result_t code, const char *msg)
{
    void *user = NULL;
    if (exr_get_user_data(ctx, &user) != EXR_ERR_SUCCESS || !user)
        return;
    struct exr_io *io = user;
    if (!io->msg[0])
        snprintf(io->msg, sizeof io->msg, "%s", msg ? msg : exr_get_default_error_message(code));
}

/* Points the encoder's channels at the frame's floats of the chunk's first
 * row; the file keeps its channels sorted by name, so each is looked up. */
static void aim_channels(const struct exr_sink *s, exr_encode_pipeline_t *enc, const float *deep, int y)
{
    const int ch = s->channels;
    for (int c = 0; c < enc->channel_count; c++) {
        exr_coding_channel_info_t *cc = &enc->channels[c];
        int k = 0;
        while (k < ch - 1 && strcmp(cc->channel_name, s->names[k]) != 0)
            k++;
        cc->user_bytes_per_element = 4;
        cc->user_data_type = EXR_PIXEL_FLOAT;
        cc->user_pixel_stride = ch * (int)sizeof(float);
        cc->user_line_stride = s->width * ch * (int)sizeof(float);
        cc->encode_from_ptr = (const uint8_t *)(deep + ((size_t)y * s->width * ch + (size_t)k));
    }
}

/* The frame into the open file io->fd. Returns an OpenEXRCore status. */
static exr_result_t write_file(const struct exr_sink *s, const char *name, const float *deep, struct exr_io *io)
{
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = io;
    init.write_fn = exr_pwrite;
    init.error_handler_fn = exr_error;
    exr_context_t ctx = NULL;
    exr_result_t rv = exr_start_write(&ctx, name, EXR_WRITE_FILE_DIRECTLY, &init);
    int part = 0;
    int32_t lines = 1;
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_add_part(ctx, NULL, EXR_STORAGE_SCANLINE, &part);
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_initialize_required_attr_simple(ctx, part, s->width, s->height, s->compression);
    for (int k = 0; k < s->channels && rv == EXR_ERR_SUCCESS; k++)
        rv = exr_add_channel(ctx, part, s->names[k], s->type, EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1);
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_write_header(ctx);
    if (rv == EXR_ERR_SUCCESS)
        rv = exr_get_scanlines_per_chunk(ctx, part, &lines);
    exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
    bool started = false;
    for (int y = 0; y < s->height && rv == EXR_ERR_SUCCESS; y += lines) {
        exr_chunk_info_t ci;
        rv = exr_write_scanline_chunk_info(ctx, part, y, &ci);
        if (rv != EXR_ERR_SUCCESS)
            break;
        if (!started) {
            rv = exr_encoding_initialize(ctx, part, &ci, &enc);
            started = rv == EXR_ERR_SUCCESS;
            if (started) {
                aim_channels(s, &enc, deep, y);
                rv = exr_encoding_choose_default_routines(ctx, part, &enc);
            }
        } else {
            rv = exr_encoding_update(ctx, part, &ci, &enc);
            if (rv == EXR_ERR_SUCCESS)
                aim_channels(s, &enc, deep, y);
        }
        if (rv == EXR_ERR_SUCCESS)
            rv = exr_encoding_run(ctx, part, &enc);
    }
    if (started)
        exr_encoding_destroy(ctx, &enc);
    if (ctx) {
        /* exr_finish writes the chunk offsets: it must succeed too. */
        exr_result_t fin = exr_finish(&ctx);
        if (rv == EXR_ERR_SUCCESS)
            rv = fin;
    }
    return rv;
}

static int exr_write(void *priv, const struct frame *fr, struct rr_err *e)
{
    struct exr_sink *s = priv;
    char name[4096];
    if (sink_seq_name(&s->seq, fr->index, name, sizeof name, e) < 0)
        return -1;
    if (!fr->deep || fr->deep_bits != 32 || fr->deep_channels != s->channels || fr->width != s->width
        || fr->height != s->height)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: frame %ld has no %dx%d float picture of %d channels", name,
                       fr->index, s->width, s->height, s->channels);
    struct outfile *of = sink_seq_begin(&s->seq, name, e);
    if (!of)
        return -1;
    struct exr_io io = { .fd = of->fd };
    exr_result_t rv = write_file(s, name, fr->deep, &io);
    outfile_close_fd(of);
    if (rv == EXR_ERR_SUCCESS)
        return 0;
    /* A failed write (EFBIG, ENOSPC) is named by errno; the library's own
     * message says only that the write failed. */
    return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot write EXR: %s", name,
                   io.err ? strerror(io.err) : io.msg[0] ? io.msg : exr_get_default_error_message(rv));
}

static int exr_close(void *priv, struct rr_err *e)
{
    struct exr_sink *s = priv;
    return sink_seq_commit(&s->seq, e);
}

static void exr_free(void *priv)
{
    struct exr_sink *s = priv;
    sink_seq_free(&s->seq);
}

const char *sink_exr_version(void)
{
    static char v[48];
    int major = 0, minor = 0, patch = 0;
    const char *extra = NULL;
    exr_get_library_version(&major, &minor, &patch, &extra);
    snprintf(v, sizeof v, "%d.%d.%d%s", major, minor, patch, extra ? extra : "");
    return v;
}

const struct sink_ops sink_exr_ops = {
    .name = "exr",
    .noun = "an EXR sequence",
    .keys = (const char *const[]){ "bit_depth", "exr_compression", NULL },
    .exts = "exr",
    .numbered = true,
    .help = "OpenEXR per frame: float heights, normals or caustics",
    .priv_size = sizeof(struct exr_sink),
    .deep = true,
    .floats = true,
    .needs = exr_needs,
    .bytes = exr_bytes,
    .check = exr_check,
    .open = exr_open,
    .write = exr_write,
    .close = exr_close,
    .free = exr_free,
};

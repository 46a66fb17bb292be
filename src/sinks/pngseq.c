/* sinks/pngseq.c: one PNG per frame, named by a printf pattern (f%05d.png):
 * 8-bit rgb, or 16-bit grey for height renders with output.bit_depth 16;
 * with render.alpha or, in the other modes, output.bit_depth 16, the frame's
 * deep picture as 8- or 16-bit RGB or RGBA. Each file is deflated at
 * output.compression (zlib's level, 0-9).
 *
 * Frames are compressed in parallel: write copies the frame into one of
 * sink_png_jobs(threads) job buffers and returns; worker threads compress
 * the queued jobs into memory, each frame whole on one thread with the same
 * libpng calls, so a file's bytes never depend on the thread count. write
 * (when every job is in use) and close take the finished jobs back in frame
 * order and write their files; -j1 compresses in write itself, without
 * workers.
 *
 * The files are libpng's full API's, made with the calls the simplified API
 * makes for PNG_IMAGE_FLAG_FAST (filter none, level 3; sRGB for 8-bit rgb,
 * gAMA 1.0 and sRGB's cHRM for linear 16-bit grey), so at the default level
 * they are byte for byte what png_image_write gives (tests/unit/test_sinks.c
 * compares them); the deep picture's keep the Sub filter they always had.
 *
 * Atomic as a set (sink_seq, sinks.h): every frame is written under a
 * temporary name beside its target; close moves them all into place; free
 * without close removes them. */
#include "outfile.h"
#include "sinks.h"

#include <errno.h>
#include <omp.h>
#include <png.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a job's pixels are: the frame's rgb24, its 16-bit grey, or its deep picture. */
enum png_kind { PNG_RGB8, PNG_GRAY16, PNG_DEEP };

enum job_state { JOB_FREE, JOB_QUEUED, JOB_DONE };

struct png_job {
    long index;                 /* the frame's number */
    enum job_state state;
    enum png_kind kind;
    int bits, channels;         /* PNG_DEEP: the deep picture's (frame.h) */
    void *pixels;               /* a copy of the frame's picture */
    size_t pixels_cap;
    unsigned char *out;         /* the compressed file */
    size_t out_len, out_cap;
    char fail[200];             /* libpng's message when compressing failed, else "" */
};

struct pngseq_sink {
    struct sink_seq seq;
    bool gray16, deep;
    int width, height, level;
    struct png_job *jobs;
    int n_jobs, n_workers, started;
    pthread_t *workers;
    bool sync_made;             /* mu and cv initialised */
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* a job queued, a job done, or stop */
    long queued, taken, retired;   /* jobs handed to the workers / taken by one / written out */
    bool stop;
    atomic_long written;        /* frames whose file is written (frames_done) */
};

int sink_png_jobs(int threads)
{
    if (threads <= 1)
        return 1;
    return (threads < SINK_PNG_WORKERS_MAX ? threads : SINK_PNG_WORKERS_MAX) + 1;
}

static int pngseq_needs(const struct output_config *o, const struct scene *sc)
{
    bool alpha = sc->render.alpha != ALPHA_NONE, b16 = o->bit_depth == 16;
    if (b16 && !alpha)   /* grey in a grey mode, else 16-bit colour (frame.h) */
        return RENDER_NEED_GRAY16;
    return (b16 ? RENDER_NEED_RGB16 : 0) | (alpha ? RENDER_NEED_ALPHA : 0);
}

/* libpng's full API reports errors through these: the message is kept in
 * the job and control returns to encode's setjmp. */
static void job_error(png_structp png, png_const_charp msg)
{
    struct png_job *j = png_get_error_ptr(png);
    snprintf(j->fail, sizeof j->fail, "%s", msg);
    png_longjmp(png, 1);
}

static void job_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* libpng's output, appended to the job's buffer (grown by doubling). */
static void job_write(png_structp png, png_bytep data, size_t n)
{
    struct png_job *j = png_get_io_ptr(png);
    if (n > j->out_cap - j->out_len) {
        size_t cap = j->out_cap ? j->out_cap : 65536;
        while (n > cap - j->out_len)
            cap *= 2;
        unsigned char *b = realloc(j->out, cap);
        if (!b)
            png_error(png, "out of memory");
        j->out = b;
        j->out_cap = cap;
    }
    memcpy(j->out + j->out_len, data, n);
    j->out_len += n;
}

static void job_flush(png_structp png)
{
    (void)png;
}

/* Compresses the job's picture (width x height) at zlib level `level` into
 * j->out; on failure j->fail holds libpng's reason. 16-bit samples are
 * native-endian in memory, big-endian in the file (png_set_swap on
 * little-endian machines). */
static void encode(struct png_job *j, int width, int height, int level)
{
    j->out_len = 0;
    j->fail[0] = '\0';
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, j, job_error, job_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(j->fail, sizeof j->fail, "out of memory");
        return;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return;
    }
    png_set_write_fn(png, j, job_write, job_flush);
    int bits = j->kind == PNG_RGB8 ? 8 : j->kind == PNG_GRAY16 ? 16 : j->bits;
    int channels = j->kind == PNG_RGB8 ? 3 : j->kind == PNG_GRAY16 ? 1 : j->channels;
    int type = channels == 1 ? PNG_COLOR_TYPE_GRAY : channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, bits, type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    if (j->kind == PNG_GRAY16) {
        /* Linear values, stored unchanged (the simplified API's
         * PNG_FORMAT_LINEAR_Y): gamma 1.0 and sRGB's primaries. */
        png_set_gAMA_fixed(png, info, PNG_GAMMA_LINEAR);
        png_set_cHRM_fixed(png, info, 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000);
    } else {
        png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    }
    png_write_info(png, info);
    const uint16_t one = 1;
    if (bits == 16 && *(const uint8_t *)&one == 1)
        png_set_swap(png);
    /* Sub for the deep picture, none for the others (PNG_IMAGE_FLAG_FAST). */
    png_set_filter(png, PNG_FILTER_TYPE_BASE, j->kind == PNG_DEEP ? PNG_FILTER_SUB : PNG_NO_FILTERS);
    png_set_compression_level(png, level);
    size_t row = (size_t)width * (size_t)channels * (size_t)(bits / 8);
    for (int y = 0; y < height; y++)
        png_write_row(png, (png_const_bytep)j->pixels + (size_t)y * row);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
}

static void *worker(void *arg)
{
    struct pngseq_sink *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->taken == s->queued && !s->stop)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->stop)
            break;
        struct png_job *j = &s->jobs[s->taken++ % s->n_jobs];
        pthread_mutex_unlock(&s->mu);
        encode(j, s->width, s->height, s->level);
        pthread_mutex_lock(&s->mu);
        j->state = JOB_DONE;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static int pngseq_open(void *priv, const struct output_config *o, const struct sink_params *p,
                       struct rr_err *e)
{
    struct pngseq_sink *s = priv;
    if (o->bit_depth != 0 && o->bit_depth != 8 && o->bit_depth != 16)
        return rr_fail(e, RR_EXIT_USAGE, "output.bit_depth: expected 8 or 16, got %d", o->bit_depth);
    if (o->compression < 0 || o->compression > 9)
        return rr_fail(e, RR_EXIT_USAGE, "output.compression: expected 0 to 9, got %d", o->compression);
    s->gray16 = o->bit_depth == 16 && p->alpha == ALPHA_NONE;
    s->deep = o->bit_depth == 16 || p->alpha != ALPHA_NONE;
    s->width = p->width;
    s->height = p->height;
    s->level = o->compression;
    if (sink_seq_open(&s->seq, o->path, p, e) < 0)
        return -1;
    /* -j, or every core (not the frame loop's current setting, which the
     * thread policy lowers while it probes: a later segment of a resumable
     * run opens its sink then). */
    s->n_jobs = sink_png_jobs(p->threads > 0 ? p->threads : omp_get_num_procs());
    s->n_workers = s->n_jobs > 1 ? s->n_jobs - 1 : 0;
    s->jobs = calloc((size_t)s->n_jobs, sizeof *s->jobs);
    s->workers = calloc((size_t)(s->n_workers ? s->n_workers : 1), sizeof *s->workers);
    if (!s->jobs || !s->workers)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    if (!s->n_workers)
        return 0;
    if (pthread_mutex_init(&s->mu, NULL) != 0)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot create a mutex", o->path);
    if (pthread_cond_init(&s->cv, NULL) != 0) {
        pthread_mutex_destroy(&s->mu);
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot create a condition variable", o->path);
    }
    s->sync_made = true;
    for (; s->started < s->n_workers; s->started++)
        if (pthread_create(&s->workers[s->started], NULL, worker, s) != 0)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot start a PNG compression thread", o->path);
    return 0;
}

/* Writes the oldest job's file (waiting for its compression) and frees the
 * job. Returns 0, or -1 with e filled. */
static int retire(struct pngseq_sink *s, struct rr_err *e)
{
    struct png_job *j = &s->jobs[s->retired % s->n_jobs];
    if (s->n_workers) {
        pthread_mutex_lock(&s->mu);
        while (j->state != JOB_DONE)
            pthread_cond_wait(&s->cv, &s->mu);
        pthread_mutex_unlock(&s->mu);
    }
    j->state = JOB_FREE;
    s->retired++;
    char name[4096];
    if (sink_seq_name(&s->seq, j->index, name, sizeof name, e) < 0)
        return -1;
    if (j->fail[0])
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot write PNG: %s", name, j->fail);
    struct outfile *of = sink_seq_begin(&s->seq, name, e);
    if (!of)
        return -1;
    FILE *f = outfile_fopen(of, e);
    if (!f)
        return -1;
    /* A failed write (EFBIG, ENOSPC) is named by errno. */
    errno = 0;
    int err = fwrite(j->out, 1, j->out_len, f) == j->out_len && fflush(f) == 0 ? 0 : errno ? errno : EIO;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    outfile_close_fd(of);
    if (err)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot write PNG: %s", name, strerror(err));
    atomic_fetch_add(&s->written, 1);
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
    /* Every job in use: the oldest is written out first. */
    if (s->queued - s->retired == s->n_jobs && retire(s, e) < 0)
        return -1;
    struct png_job *j = &s->jobs[s->queued % s->n_jobs];
    size_t px = (size_t)fr->width * (size_t)fr->height, bytes;
    const void *src;
    if (!fr->gray16 && fr->deep) {
        j->kind = PNG_DEEP;
        j->bits = fr->deep_bits;
        j->channels = fr->deep_channels;
        bytes = frame_deep_bytes(fr);
        src = fr->deep;
    } else if (s->gray16) {
        j->kind = PNG_GRAY16;
        bytes = px * sizeof *fr->gray16;
        src = fr->gray16;
    } else {
        j->kind = PNG_RGB8;
        bytes = px * 3;
        src = fr->rgb;
    }
    if (bytes > j->pixels_cap) {
        void *b = realloc(j->pixels, bytes);
        if (!b)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", name);
        j->pixels = b;
        j->pixels_cap = bytes;
    }
    memcpy(j->pixels, src, bytes);
    j->index = fr->index;
    if (!s->n_workers) {
        encode(j, s->width, s->height, s->level);
        j->state = JOB_DONE;
        s->queued++;
        return retire(s, e);
    }
    pthread_mutex_lock(&s->mu);
    j->state = JOB_QUEUED;
    s->queued++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static long pngseq_frames_done(void *priv)
{
    struct pngseq_sink *s = priv;
    return atomic_load(&s->written);
}

static int pngseq_close(void *priv, struct rr_err *e)
{
    struct pngseq_sink *s = priv;
    while (s->retired < s->queued)
        if (retire(s, e) < 0)
            return -1;
    return sink_seq_commit(&s->seq, e);
}

static void pngseq_free(void *priv)
{
    struct pngseq_sink *s = priv;
    if (s->sync_made) {
        pthread_mutex_lock(&s->mu);
        s->stop = true;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        for (int k = 0; k < s->started; k++)
            pthread_join(s->workers[k], NULL);
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
    }
    for (int k = 0; s->jobs && k < s->n_jobs; k++) {
        free(s->jobs[k].pixels);
        free(s->jobs[k].out);
    }
    free(s->jobs);
    free(s->workers);
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
    .frames_done = pngseq_frames_done,
    .close = pngseq_close,
    .free = pngseq_free,
};

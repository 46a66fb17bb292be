/* sinks/pngseq.c: one PNG per frame, named by a printf pattern (f%05d.png):
 * 8-bit rgb, or 16-bit grey for height renders with output.bit_depth 16;
 * with render.alpha or, in the other modes, output.bit_depth 16, the frame's
 * deep picture as 8- or 16-bit RGB or RGBA.
 *
 * The files are assembled here (PNG 1.2, ISO/IEC 15948): the signature,
 * IHDR, the colour chunks libpng's simplified API writes (sRGB; for linear
 * 16-bit grey gAMA 1.0 and sRGB's cHRM), the image data as one zlib stream
 * made by libdeflate at level output.compression (0-9: libdeflate's level of
 * that number, which packs ripple frames to within a few per cent of zlib's
 * level of that number in less time), cut into IDAT chunks
 * of at most PNG_IDAT_MAX bytes, and IEND. Rows are unfiltered (filter type
 * 0, the simplified API's PNG_IMAGE_FLAG_FAST) except the deep picture's,
 * which keep the Sub filter (type 1) they always had; 16-bit samples are
 * big-endian. libpng reads them back in the tests.
 *
 * Frames are compressed in parallel: write copies the frame's rows into one
 * of sink_png_jobs(threads) job buffers and returns; worker threads compress
 * the queued jobs, each frame whole on one thread with the same calls, so a
 * file's bytes never depend on the thread count (nor on the CPU: libdeflate's
 * CPU-specific paths compute the same matches and checksums). write (when
 * every job is in use) and close take the finished jobs back in frame order
 * and write their files; -j1 compresses in write itself, without workers.
 *
 * Atomic as a set (sink_seq, sinks.h): every frame is written under a
 * temporary name beside its target; close moves them all into place; free
 * without close removes them. */
#define _GNU_SOURCE   /* fallocate */
#include "budget.h"
#include "outfile.h"
#include "render.h"
#include "sinks.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The longest IDAT chunk written: a whole frame's stream is cut into chunks
 * of this many bytes and a last, shorter one. */
#define PNG_IDAT_MAX ((size_t)1 << 18)

/* The signature and chunks before the image data: 8 + IHDR 25 + gAMA 16 + cHRM 44. */
#define PNG_HEAD_MAX 96

/* What a job's pixels are: the frame's rgb24, its 16-bit grey, or its deep picture. */
enum png_kind { PNG_RGB8, PNG_GRAY16, PNG_DEEP };

enum job_state { JOB_FREE, JOB_QUEUED, JOB_DONE };

struct png_job {
    long index;                 /* the frame's number */
    enum job_state state;
    enum png_kind kind;
    int bits, channels;         /* the file's bit depth and samples per pixel */
    unsigned char *rows;        /* the scanlines: a filter-type byte, then the row's samples */
    size_t rows_len, rows_cap;
    struct libdeflate_compressor *deflate;   /* at the sequence's level */
    unsigned char head[PNG_HEAD_MAX];        /* the signature, IHDR and colour chunks */
    size_t head_len;
    unsigned char *z;           /* the zlib stream of rows */
    size_t z_len, z_cap;
    uint32_t *crcs;             /* each IDAT chunk's CRC */
    size_t crcs_cap;
    char fail[200];             /* why compressing failed, else "" */
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

static int pngseq_needs(const struct output_config *o, const struct scene *sc);

/* The memory budget (sink_ops.bytes): each frame in flight (sink_png_jobs)
 * holds a copy of the picture (rgb24, 16-bit grey or the deep picture: up
 * to 8 bytes a pixel for 16-bit rgba), its compressed file (its buffer has
 * room for the picture, but only what deflate writes is touched: a
 * rendered picture, smooth, packs to half or less) and its compressor
 * (SINK_PNG_JOB_FIXED). */
static uint64_t pngseq_bytes(const struct scene *sc, const struct sink_budget *b, char *what, size_t size)
{
    /* never more than the frames (an atlas's images) it is handed */
    uint64_t jobs = (uint64_t)sink_png_jobs(b->threads);
    jobs = b->frames && b->frames < jobs ? b->frames : jobs;
    const int needs = render_needs(sc, pngseq_needs(&sc->output, sc));
    const uint64_t deep = budget_deep_pixel(sc, needs);
    const uint64_t bpp = deep ? deep : needs & RENDER_NEED_GRAY16 ? 2 : 3;
    snprintf(what, size, "the PNG sequence's %llu frames in flight", (unsigned long long)jobs);
    return budget_mul(jobs, budget_add(budget_mul(bpp, budget_mul(b->width, b->height)) * 3 / 2, SINK_PNG_JOB_FIXED));
}

static int pngseq_needs(const struct output_config *o, const struct scene *sc)
{
    bool alpha = sc->render.alpha != ALPHA_NONE, b16 = o->bit_depth == 16;
    if (b16 && !alpha)   /* grey in a grey mode, else 16-bit colour (frame.h) */
        return RENDER_NEED_GRAY16;
    return (b16 ? RENDER_NEED_RGB16 : 0) | (alpha ? RENDER_NEED_ALPHA : 0);
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Appends a chunk of type `type` with `n` bytes of data to buf at *len: its
 * length, type, data and the CRC of type and data. */
static void put_chunk(unsigned char *buf, size_t *len, const char *type, const unsigned char *data, uint32_t n)
{
    unsigned char *p = buf + *len;
    put32(p, n);
    memcpy(p + 4, type, 4);
    memcpy(p + 8, data, n);
    put32(p + 8 + n, libdeflate_crc32(0, p + 4, 4 + (size_t)n));
    *len += 12 + (size_t)n;
}

/* The signature, IHDR and colour chunks of a width x height file of j's kind. */
static void make_head(struct png_job *j, int width, int height)
{
    static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    memcpy(j->head, sig, sizeof sig);
    j->head_len = sizeof sig;
    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)width);
    put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = (unsigned char)j->bits;
    ihdr[9] = j->channels == 1 ? 0 : j->channels == 4 ? 6 : 2;   /* grey, rgba, rgb */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;   /* deflate, adaptive filtering, no interlace */
    put_chunk(j->head, &j->head_len, "IHDR", ihdr, sizeof ihdr);
    if (j->kind == PNG_GRAY16) {
        /* Linear values, stored unchanged (the simplified API's
         * PNG_FORMAT_LINEAR_Y): gamma 1.0 and sRGB's primaries, in
         * hundred-thousandths. */
        static const uint32_t chrm[8] = { 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000 };
        unsigned char b[32];
        put32(b, 100000);
        put_chunk(j->head, &j->head_len, "gAMA", b, 4);
        for (int k = 0; k < 8; k++)
            put32(b + 4 * k, chrm[k]);
        put_chunk(j->head, &j->head_len, "cHRM", b, 32);
    } else {
        const unsigned char intent = 0;   /* perceptual */
        put_chunk(j->head, &j->head_len, "sRGB", &intent, 1);
    }
}

/* Compresses the job's scanlines (width x height) into j->z, filled by
 * write with native-endian samples and each row's filter type; on failure
 * j->fail says why. First the rows are made what the file stores:
 * big-endian 16-bit samples, and for the Sub filter each byte less the one
 * a pixel to its left (0 left of the first pixel), done from the row's end
 * so that every subtrahend is still the raw byte. */
static void encode(struct png_job *j, int width, int height)
{
    j->z_len = 0;
    j->fail[0] = '\0';
    size_t bpp = (size_t)j->channels * (size_t)(j->bits / 8), row = (size_t)width * bpp;
    const uint16_t one = 1;
    bool swap = j->bits == 16 && *(const uint8_t *)&one == 1;
    for (int y = 0; y < height && (swap || j->kind == PNG_DEEP); y++) {
        unsigned char *r = j->rows + (size_t)y * (row + 1) + 1;
        for (size_t k = 0; swap && k < row; k += 2) {
            unsigned char t = r[k];
            r[k] = r[k + 1];
            r[k + 1] = t;
        }
        if (j->kind == PNG_DEEP)
            for (size_t k = row; k-- > bpp;)
                r[k] = (unsigned char)(r[k] - r[k - bpp]);
    }
    make_head(j, width, height);
    size_t bound = libdeflate_zlib_compress_bound(j->deflate, j->rows_len);
    size_t chunks = bound / PNG_IDAT_MAX + 1;
    if (bound > j->z_cap) {
        free(j->z);
        j->z = malloc(bound);
        j->z_cap = j->z ? bound : 0;
    }
    if (chunks > j->crcs_cap) {
        free(j->crcs);
        j->crcs = malloc(chunks * sizeof *j->crcs);
        j->crcs_cap = j->crcs ? chunks : 0;
    }
    if (!j->z || !j->crcs) {
        snprintf(j->fail, sizeof j->fail, "out of memory");
        return;
    }
    j->z_len = libdeflate_zlib_compress(j->deflate, j->rows, j->rows_len, j->z, j->z_cap);
    if (!j->z_len) {   /* cannot happen with the bound's room */
        snprintf(j->fail, sizeof j->fail, "the compressed data does not fit");
        return;
    }
    uint32_t idat = libdeflate_crc32(0, "IDAT", 4);
    for (size_t off = 0, k = 0; off < j->z_len; off += PNG_IDAT_MAX, k++) {
        size_t n = j->z_len - off < PNG_IDAT_MAX ? j->z_len - off : PNG_IDAT_MAX;
        j->crcs[k] = libdeflate_crc32(idat, j->z + off, n);
    }
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
        encode(j, s->width, s->height);
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
    for (int k = 0; k < s->n_jobs; k++)
        if (!(s->jobs[k].deflate = libdeflate_alloc_compressor(s->level)))
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
    /* The file's blocks are allocated first, as one extent: ext4 then has
     * no delayed allocation to resolve when the set's move renames the file
     * over an earlier run's (-y), which it otherwise writes out there, one
     * file after another at the end of the run. Only a hint: where it
     * fails, the writes below say whether the file fits. */
    size_t chunks = (j->z_len + PNG_IDAT_MAX - 1) / PNG_IDAT_MAX;
    (void)fallocate(fileno(f), 0, 0, (off_t)(j->head_len + j->z_len + 12 * chunks + 12));
    /* The head, each IDAT chunk (length, type, data, CRC) and IEND. A failed
     * write (EFBIG, ENOSPC) is named by errno. */
    errno = 0;
    bool ok = fwrite(j->head, 1, j->head_len, f) == j->head_len;
    for (size_t off = 0, k = 0; ok && off < j->z_len; off += PNG_IDAT_MAX, k++) {
        size_t n = j->z_len - off < PNG_IDAT_MAX ? j->z_len - off : PNG_IDAT_MAX;
        unsigned char b[8];
        put32(b, (uint32_t)n);
        memcpy(b + 4, "IDAT", 4);
        ok = fwrite(b, 1, 8, f) == 8 && fwrite(j->z + off, 1, n, f) == n;
        put32(b, j->crcs[k]);
        ok = ok && fwrite(b, 1, 4, f) == 4;
    }
    static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };
    int err = ok && fwrite(iend, 1, sizeof iend, f) == sizeof iend && fflush(f) == 0 ? 0 : errno ? errno : EIO;
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
    const unsigned char *src;
    unsigned char filter = 0;   /* none */
    if (!fr->gray16 && fr->deep) {
        j->kind = PNG_DEEP;
        j->bits = fr->deep_bits;
        j->channels = fr->deep_channels;
        src = fr->deep;
        filter = 1;   /* Sub */
    } else if (s->gray16) {
        j->kind = PNG_GRAY16;
        j->bits = 16;
        j->channels = 1;
        src = (const unsigned char *)fr->gray16;
    } else {
        j->kind = PNG_RGB8;
        j->bits = 8;
        j->channels = 3;
        src = fr->rgb;
    }
    size_t row = (size_t)fr->width * (size_t)j->channels * (size_t)(j->bits / 8);
    j->rows_len = (row + 1) * (size_t)fr->height;
    if (j->rows_len > j->rows_cap) {
        free(j->rows);
        j->rows = malloc(j->rows_len);
        j->rows_cap = j->rows ? j->rows_len : 0;
        if (!j->rows)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", name);
    }
    for (int y = 0; y < fr->height; y++) {
        unsigned char *r = j->rows + (size_t)y * (row + 1);
        r[0] = filter;
        memcpy(r + 1, src + (size_t)y * row, row);
    }
    j->index = fr->index;
    if (!s->n_workers) {
        encode(j, s->width, s->height);
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
        libdeflate_free_compressor(s->jobs[k].deflate);
        free(s->jobs[k].rows);
        free(s->jobs[k].z);
        free(s->jobs[k].crcs);
    }
    free(s->jobs);
    free(s->workers);
    sink_seq_free(&s->seq);
}

const struct sink_ops sink_pngseq_ops = {
    .name = "png",
    .noun = "a PNG sequence",
    .keys = (const char *const[]){ "bit_depth", "compression", NULL },
    .exts = "png",
    .numbered = true,
    .help = "a PNG sequence (8- or 16-bit rgb or rgba, 16-bit grey)",
    .priv_size = sizeof(struct pngseq_sink),
    .deep = true,
    .needs = pngseq_needs,
    .bytes = pngseq_bytes,
    .open = pngseq_open,
    .write = pngseq_write,
    .frames_done = pngseq_frames_done,
    .close = pngseq_close,
    .free = pngseq_free,
};

/* libdeflate has no call that reports its version: the header's, which the
 * build links against (Debian's package pins the library to it). */
const char *sink_png_deflate_version(void) { return LIBDEFLATE_VERSION_STRING; }

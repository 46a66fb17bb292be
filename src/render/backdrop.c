/* render/backdrop.c: the picture behind the water, a still, an image
 * sequence or a video, one per output frame (render/backdrop.h). */
#include "render/backdrop.h"
#include "render/modes.h"
#include "budget.h"
#include "image.h"
#include "scale.h"
#include "sink.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

enum kind { STILL, SEQUENCE, VIDEO };

/* Longest image sequence read: far beyond any clip, and it bounds the scan. */
#define SEQ_MAX 10000000L

struct backdrop {
    enum kind kind;
    const char *key, *path;
    const struct scene *sc;
    int w, h;
    bool loop;
    uint8_t *rgb;              /* the fitted picture, w * h * 3 */
    struct image_rgb still;    /* STILL: the fitted PNG (rgb points into it) */
    /* The open input (a video, or a sequence's current image). */
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    int stream;
    struct SwsContext *sws;
    uint8_t *dst;              /* sws's destination, aligned rows */
    int dst_stride;
    /* SEQUENCE: images first .. first + count - 1; the one shown, or -1. */
    long first, count, shown;
    /* VIDEO: times in units of 1 / (tb.den * fps.num) s, so that a frame's
     * time ((ts - t0) tb) and an output frame's (n / fps) are integers:
     * U(ts) = (ts - t0) tb.num fps.num, T(n) = n fps.den tb.den. */
    AVRational tb, fps;
    int64_t t0, step;          /* the first frame's timestamp; a frame's duration when none is given */
    __int128 len;              /* loop: the video's length in units (> 0) */
    AVFrame *cur, *next;       /* the frame shown (have_cur), the next decoded (have_next) */
    bool have_cur, have_next, eof;
    __int128 cur_t, next_t;
    int64_t last_ts;
};

static int fail_av(struct rr_err *e, const struct backdrop *b, const char *file, const char *what, int err)
{
    char why[128];
    av_strerror(err, why, sizeof why);
    return rr_fail(e, RR_EXIT_USAGE, "%s: %s: %s (%s)", b->key, file, what, why);
}

/* The name of image i of a sequence. Returns 0, or -1 when too long. */
static int seq_name(const char *pattern, long i, char *buf, size_t n)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    int k = snprintf(buf, n, pattern, (int)i);
#pragma GCC diagnostic pop
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

static void close_input(struct backdrop *b)
{
    avcodec_free_context(&b->dec);
    avformat_close_input(&b->fmt);
}

/* Checks the memory of decoding the open input (the decoder's frames at
 * its size, budget_video_bytes) against the budget. */
static int check_memory(const struct backdrop *b, const char *file, struct rr_err *e)
{
    const AVCodecDescriptor *cd = avcodec_descriptor_get(b->dec->codec_id);
    int fb = av_image_get_buffer_size(b->dec->pix_fmt, b->dec->width, b->dec->height, 64);
    uint64_t frame = fb > 0 ? (uint64_t)fb : budget_mul(budget_mul((uint64_t)b->dec->width, b->dec->height), 8);
    return budget_check_video(b->sc, b->key, file, b->dec->width, b->dec->height,
                              budget_video_bytes(frame, cd && (cd->props & AV_CODEC_PROP_INTRA_ONLY)), e);
}

/* Opens file and the decoder of its best video stream, one thread (the
 * memory stays what budget_video_bytes counts). */
static int open_input(struct backdrop *b, const char *file, struct rr_err *e)
{
    close_input(b);
    lazyav_use(LAZYAV_READ, SINK_LIBAV_CODEC | SINK_LIBAV_FORMAT);
    int ret = avformat_open_input(&b->fmt, file, NULL, NULL);
    if (ret < 0)
        return fail_av(e, b, file, "not a video or a picture", ret);
    /* A video stream without packets ends the probe early: decode_next
     * then finds no frames, which says more. */
    if ((ret = avformat_find_stream_info(b->fmt, NULL)) < 0 && ret != AVERROR_EOF)
        return fail_av(e, b, file, "not a video or a picture", ret);
    const AVCodec *codec = NULL;
    b->stream = av_find_best_stream(b->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (b->stream < 0)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: no video stream, not a video or a picture", b->key, file);
    const AVStream *st = b->fmt->streams[b->stream];
    if (!(b->dec = avcodec_alloc_context3(codec)))
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: %s: out of memory", b->key, file);
    if ((ret = avcodec_parameters_to_context(b->dec, st->codecpar)) < 0)
        return fail_av(e, b, file, "cannot read its codec parameters", ret);
    b->dec->thread_count = 1;
    if ((ret = avcodec_open2(b->dec, codec, NULL)) < 0)
        return fail_av(e, b, file, "cannot open its decoder", ret);
    b->tb = st->time_base;
    AVRational rate = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
    b->step = rate.num > 0 ? av_rescale_q(1, av_inv_q(rate), b->tb) : 1;
    if (b->step < 1)
        b->step = 1;
    b->eof = false;
    return 0;
}

/* The next frame of the open input into f. Returns 0, 1 at its end, or -1
 * with e filled. */
static int decode_next(struct backdrop *b, const char *file, AVFrame *f, struct rr_err *e)
{
    for (;;) {
        int ret = avcodec_receive_frame(b->dec, f);
        if (ret == 0)
            return 0;
        if (ret == AVERROR_EOF)
            return 1;
        if (ret != AVERROR(EAGAIN))
            return fail_av(e, b, file, "cannot decode a frame", ret);
        ret = av_read_frame(b->fmt, b->pkt);
        if (ret == AVERROR_EOF) {
            avcodec_send_packet(b->dec, NULL);   /* drain: AVERROR_EOF when already draining */
            continue;
        }
        if (ret < 0)
            return fail_av(e, b, file, "cannot read", ret);
        if (b->pkt->stream_index == b->stream)
            ret = avcodec_send_packet(b->dec, b->pkt);
        av_packet_unref(b->pkt);
        if (ret < 0 && ret != AVERROR(EAGAIN))
            return fail_av(e, b, file, "cannot decode a frame", ret);
    }
}

/* f converted to rgb24 and fitted to w x h into b->rgb (libswscale,
 * RR_SWS_FLAGS); a YUV frame by its own matrix and range. */
static int convert(struct backdrop *b, const char *file, const AVFrame *f, struct rr_err *e)
{
    b->sws = sws_getCachedContext(b->sws, f->width, f->height, f->format, b->w, b->h, AV_PIX_FMT_RGB24,
                                  RR_SWS_FLAGS, NULL, NULL, NULL);
    if (!b->sws)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: cannot convert its %dx%d %s frames to %dx%d rgb24", b->key, file,
                       f->width, f->height, av_get_pix_fmt_name(f->format) ? av_get_pix_fmt_name(f->format) : "?",
                       b->w, b->h);
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
    if (d && !(d->flags & AV_PIX_FMT_FLAG_RGB) && d->nb_components >= 3) {
        int cs = f->colorspace == AVCOL_SPC_UNSPECIFIED || f->colorspace == AVCOL_SPC_RGB ? SWS_CS_DEFAULT
                                                                                          : (int)f->colorspace;
        sws_setColorspaceDetails(b->sws, sws_getCoefficients(cs), f->color_range == AVCOL_RANGE_JPEG,
                                 sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
    }
    uint8_t *dst[4] = { b->dst, NULL, NULL, NULL };
    int ds[4] = { b->dst_stride, 0, 0, 0 };
    if (sws_scale(b->sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, dst, ds) != b->h)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: %s: libswscale failed to fit a frame", b->key, file);
    for (int y = 0; y < b->h; y++)
        memcpy(b->rgb + (size_t)y * b->w * 3, b->dst + (size_t)y * b->dst_stride, (size_t)b->w * 3);
    return 0;
}

/* ---- image sequences ------------------------------------------------------------ */

/* Image i of the sequence into b->rgb. */
static int seq_load(struct backdrop *b, long i, struct rr_err *e)
{
    char file[4096];
    if (seq_name(b->path, b->first + i, file, sizeof file) < 0)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: the name of image %ld is too long", b->key, b->path, b->first + i);
    struct stat st;
    if (stat(file, &st) != 0)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: image %ld of the sequence is missing: %s", b->key, file,
                       b->first + i, strerror(errno));
    AVFrame *f = b->cur;
    int r = open_input(b, file, e);
    if (r == 0 && b->shown < 0)   /* the first image's size stands for the others' */
        r = check_memory(b, file, e);
    if (r == 0 && (r = decode_next(b, file, f, e)) == 1)
        r = rr_fail(e, RR_EXIT_USAGE, "%s: %s: no picture in the file", b->key, file);
    if (r == 0)
        r = convert(b, file, f, e);
    av_frame_unref(f);
    close_input(b);
    if (r == 0)
        b->shown = i;
    return r;
}

/* The images of the pattern: from 0 (or 1) while they exist; then any
 * other image of the folder past them is a gap, refused naming the first
 * missing image. */
static int seq_scan(struct backdrop *b, struct rr_err *e)
{
    char file[4096];
    struct stat st;
    b->first = seq_name(b->path, 0, file, sizeof file) == 0 && stat(file, &st) == 0 ? 0 : 1;
    for (b->count = 0; b->count < SEQ_MAX; b->count++)
        if (seq_name(b->path, b->first + b->count, file, sizeof file) < 0 || stat(file, &st) != 0)
            break;
    if (b->count == 0)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: no image 0 or 1 of the sequence", b->key, b->path);
    /* The folder and the name's pattern (the frame field is in the name). */
    const char *slash = strrchr(b->path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - b->path) : 1, slash ? b->path : ".");
    if (slash && slash == b->path)
        snprintf(dir, sizeof dir, "/");
    if (scene_pattern_fields(dir) != 0)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: the frame number field must be in the file's name, not its folder",
                       b->key, b->path);
    const char *base = slash ? slash + 1 : b->path;
    DIR *d = opendir(dir);
    if (!d)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: cannot list the folder: %s", b->key, dir, strerror(errno));
    long past = -1;   /* the largest image number beyond the run, if any */
    for (struct dirent *de; (de = readdir(d));) {
        /* A member's name is the pattern at one of the numbers it holds. */
        for (const char *p = de->d_name; *p; p++) {
            if (*p < '0' || *p > '9' || (p > de->d_name && p[-1] >= '0' && p[-1] <= '9'))
                continue;
            char *end;
            long v = strtol(p, &end, 10);
            char name[4096];
            if (v >= b->first + b->count && v <= INT_MAX && seq_name(base, v, name, sizeof name) == 0
                && !strcmp(name, de->d_name) && v > past)
                past = v;
        }
    }
    closedir(d);
    if (past >= 0) {
        seq_name(b->path, b->first + b->count, file, sizeof file);
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: missing from the image sequence (images %ld to %ld exist, and %ld)",
                       b->key, file, b->first, b->first + b->count - 1, past);
    }
    return 0;
}

/* ---- videos ----------------------------------------------------------------------- */

static __int128 video_units(const struct backdrop *b, int64_t ts)
{
    return (__int128)(ts - b->t0) * b->tb.num * b->fps.num;
}

/* A decoded frame's timestamp (the one before plus a frame's duration when
 * it has none). */
static int64_t frame_ts(struct backdrop *b, const AVFrame *f)
{
    int64_t ts = f->best_effort_timestamp;
    if (ts == AV_NOPTS_VALUE)
        ts = b->last_ts == AV_NOPTS_VALUE ? 0 : b->last_ts + b->step;
    b->last_ts = ts;
    return ts;
}

/* The loop's length: the largest end (timestamp plus duration) of the
 * stream's packets, from its first frame's timestamp. Reads the file once;
 * the input is reopened after. */
static int video_length(struct backdrop *b, struct rr_err *e)
{
    int64_t end = INT64_MIN;
    int ret;
    while ((ret = av_read_frame(b->fmt, b->pkt)) >= 0) {
        if (b->pkt->stream_index == b->stream) {
            int64_t ts = b->pkt->pts != AV_NOPTS_VALUE ? b->pkt->pts : b->pkt->dts;
            int64_t dur = b->pkt->duration > 0 ? b->pkt->duration : b->step;
            if (ts != AV_NOPTS_VALUE && ts + dur > end)
                end = ts + dur;
        }
        av_packet_unref(b->pkt);
    }
    if (ret != AVERROR_EOF)
        return fail_av(e, b, b->path, "cannot read", ret);
    if (end <= b->t0)   /* a raw stream without timestamps: nothing to loop by */
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: render.video_end loop needs the video's length, and its frames "
                       "have no timestamps (use hold, or put the stream in a container)", b->key, b->path);
    b->len = video_units(b, end);
    return open_input(b, b->path, e);
}

/* Takes the frames due at time t (units) from the input: the last one at or
 * before t becomes the frame shown. */
static int video_advance(struct backdrop *b, __int128 t, struct rr_err *e)
{
    bool changed = false;
    for (;;) {
        if (!b->have_next && !b->eof) {
            int r = decode_next(b, b->path, b->next, e);
            if (r < 0)
                return -1;
            b->eof = r == 1;
            b->have_next = r == 0;
            if (r == 0)
                b->next_t = video_units(b, frame_ts(b, b->next));
        }
        if (!b->have_next || b->next_t > t)
            break;
        AVFrame *x = b->cur;
        b->cur = b->next;
        b->next = x;
        av_frame_unref(b->next);
        b->cur_t = b->next_t;
        b->have_cur = true;
        b->have_next = false;
        changed = true;
    }
    return changed ? convert(b, b->path, b->cur, e) : 0;
}

/* Decoding from the start again (reopened: every demuxer can do that). */
static int video_rewind(struct backdrop *b, struct rr_err *e)
{
    av_frame_unref(b->cur);
    av_frame_unref(b->next);
    b->have_cur = b->have_next = false;
    b->last_ts = AV_NOPTS_VALUE;
    return open_input(b, b->path, e);
}

/* To time t when it lies before the frame shown (a loop's turn, a range's
 * start): a seek to the key frame at or before t, else from the start. */
static int video_seek(struct backdrop *b, __int128 t, struct rr_err *e)
{
    __int128 per = (__int128)b->tb.num * b->fps.num;
    int64_t ts = b->t0 + (int64_t)(t / per);
    if (t > 0 && av_seek_frame(b->fmt, b->stream, ts, AVSEEK_FLAG_BACKWARD) >= 0) {
        avcodec_flush_buffers(b->dec);
        av_frame_unref(b->cur);
        av_frame_unref(b->next);
        b->have_cur = b->have_next = b->eof = false;
        b->last_ts = AV_NOPTS_VALUE;
        if (video_advance(b, t, e) < 0)
            return -1;
        if (b->have_cur)
            return 0;
    }
    /* Landed past t (a demuxer without an index) or at the start anyway. */
    if (video_rewind(b, e) < 0 || video_advance(b, t, e) < 0)
        return -1;
    if (!b->have_cur)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: no frame at the start of the video", b->key, b->path);
    return 0;
}

static int video_open(struct backdrop *b, const struct scene *sc, struct rr_err *e)
{
    if (open_input(b, b->path, e) < 0)
        return -1;
    if (check_memory(b, b->path, e) < 0)
        return -1;
    b->fps = av_d2q(sc->time.fps, 100000);
    b->last_ts = AV_NOPTS_VALUE;
    /* The first frame: the video's time origin, and the check that it has one. */
    int r = decode_next(b, b->path, b->next, e);
    if (r < 0)
        return -1;
    if (r == 1)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s: the video has no frames", b->key, b->path);
    b->t0 = frame_ts(b, b->next);
    b->next_t = 0;
    b->have_next = true;
    if (b->loop) {
        if (video_rewind(b, e) < 0 || video_length(b, e) < 0)
            return -1;
        b->last_ts = AV_NOPTS_VALUE;
    }
    return 0;
}

/* The frame of output frame n: the last whose time is at or before n / fps
 * (modulo the length when looped). */
static int video_frame(struct backdrop *b, long n, struct rr_err *e)
{
    __int128 t = (__int128)n * b->fps.den * b->tb.den;
    if (b->loop)
        t %= b->len;
    if (!b->have_cur || t < b->cur_t)
        return video_seek(b, t, e);
    return video_advance(b, t, e);
}

/* ---- the interface ------------------------------------------------------------------ */

int backdrop_open(struct backdrop **out, const struct scene *sc, const char *path, const char *key, int w, int h,
                  struct rr_err *e)
{
    *out = NULL;
    struct backdrop *b = calloc(1, sizeof *b);
    if (!b)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", key);
    b->key = key;
    b->path = path;
    b->sc = sc;
    b->w = w;
    b->h = h;
    b->loop = sc->render.video_end == VIDEO_END_LOOP;
    b->shown = -1;
    size_t n = strlen(path);
    int fields = scene_pattern_fields(path);
    b->kind = fields == 1 ? SEQUENCE : fields == 0 && n > 4 && !strcasecmp(path + n - 4, ".png") ? STILL : VIDEO;
    int r;
    if (b->kind == STILL) {
        /* As before moving pictures: libpng and the bilinear fit. */
        struct image_rgb img;
        r = image_load_rgb(&img, path, key, e);
        if (r == 0 && (img.width != w || img.height != h)) {
            r = image_rgb_resample(&img, w, h, &b->still, e);
            image_rgb_free(&img);
        } else if (r == 0) {
            b->still = img;
        }
        b->rgb = b->still.rgb;
        if (r == 0)
            *out = b;
        else
            backdrop_free(b);
        return r;
    }
    b->dst_stride = (w * 3 + 63) & ~63;
    b->rgb = av_malloc((size_t)w * h * 3);
    b->dst = av_malloc((size_t)b->dst_stride * h);
    b->pkt = av_packet_alloc();
    b->cur = av_frame_alloc();
    b->next = av_frame_alloc();
    if (!b->rgb || !b->dst || !b->pkt || !b->cur || !b->next) {
        backdrop_free(b);
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory for %dx%d", key, w, h);
    }
    if (b->kind == SEQUENCE)
        r = seq_scan(b, e) < 0 || seq_load(b, 0, e) < 0 ? -1 : 0;
    else
        r = video_open(b, sc, e) < 0 || video_frame(b, 0, e) < 0 ? -1 : 0;
    if (r < 0) {
        backdrop_free(b);
        return -1;
    }
    *out = b;
    return 0;
}

int backdrop_moves(const struct backdrop *b)
{
    return b->kind != STILL;
}

const uint8_t *backdrop_frame(struct backdrop *b, long n, struct rr_err *e)
{
    if (b->kind == SEQUENCE) {
        long i = n < b->count ? n : b->loop ? n % b->count : b->count - 1;
        if (i != b->shown && seq_load(b, i, e) < 0)
            return NULL;
    } else if (b->kind == VIDEO && video_frame(b, n, e) < 0) {
        return NULL;
    }
    return b->rgb;
}

void backdrop_free(struct backdrop *b)
{
    if (!b)
        return;
    close_input(b);
    av_packet_free(&b->pkt);
    av_frame_free(&b->cur);
    av_frame_free(&b->next);
    sws_freeContext(b->sws);
    av_free(b->dst);
    if (b->kind == STILL)
        image_rgb_free(&b->still);
    else
        av_free(b->rgb);
    free(b);
}

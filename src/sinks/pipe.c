/* sinks/pipe.c: `-o -`, the frames down standard output as a stream another
 * program reads (ripplerender s.json -o - | ffmpeg -i - ...), through
 * libavformat's muxers on an AVIOContext of our own over file descriptor 1:
 *
 *   output.format "y4m" (default): yuv4mpegpipe, yuv444p unless output.pix_fmt
 *     says yuv422p, yuv420p or gray; rgb24 converted by libswscale, bit-exact,
 *     BT.601 limited range (a y4m header has no colour matrix, and readers
 *     take BT.601);
 *   output.format "nut": NUT holding rawvideo, rgb24 unless output.pix_fmt
 *     says otherwise: the frames' own bytes, so that ffmpeg's framemd5 of the
 *     stream equals --hash.
 *
 * Each frame is flushed to the pipe when written, so the reader gets it at
 * once. Nothing goes to a terminal (refused at open). A reader that goes away
 * (EPIPE; main ignores SIGPIPE) fails the write with RR_EXIT_INTERRUPTED and
 * the line main prints for the same event under --hash. No temporary file:
 * what went down the pipe is gone, whatever ends the run. */
#include "budget.h"
#include "scale.h"
#include "sinks.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#define PIPE_IO_BYTES 65536

/* The pixel formats each stream takes, the default first. */
static const char *const y4m_pix_fmts[] = { "yuv444p", "yuv422p", "yuv420p", "gray", NULL };
static const char *const nut_pix_fmts[] = { "rgb24", "bgr24", "gray", "yuv444p", "yuv422p", "yuv420p", NULL };

struct pipe_sink {
    bool nut;
    AVFormatContext *oc;
    AVStream *st;
    AVIOContext *pb;
    AVCodecContext *wrap;       /* y4m: the wrapped_avframe "encoder" the muxer takes */
    AVPacket *pkt;
    AVFrame *frame;             /* the converted picture (pix_fmt other than rgb24) */
    struct SwsContext *sws;
    uint8_t *raw;               /* nut with a converted picture: the packed bytes */
    int raw_bytes;
    enum AVPixelFormat pix;
    AVRational tb;              /* 1/fps */
    int width, height;
    long frames, written;       /* frames the run will write; frames flushed */
    bool closed_pipe;           /* the reader went away */
};

/* AVIOContext's writer: all of buf to standard output, across short writes
 * and signals; an error as AVERROR(errno). */
static int write_stdout(void *opaque, uint8_t *buf, int size)
{
    struct pipe_sink *s = opaque;
    int done = 0;
    while (done < size) {
        ssize_t n = write(STDOUT_FILENO, buf + done, (size_t)(size - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            s->closed_pipe = errno == EPIPE;
            return AVERROR(errno);
        }
        done += (int)n;
    }
    return size;
}

static int pipe_needs(const struct output_config *o, const struct scene *sc)
{
    (void)o;
    (void)sc;
    return 0;
}

/* NUT's rgb24, the frames' own bytes: no conversion, a write. */
static bool pipe_fuses(const struct output_config *o)
{
    return o->format == OUTPUT_NUT && (!o->pix_fmt[0] || !strcmp(o->pix_fmt, "rgb24"));
}

/* The memory budget (sink_ops.bytes): a stream that converts rgb24
 * (open_convert: any but NUT's rgb24) holds the converted frame and, for
 * NUT, its packed copy, up to 3 bytes a pixel each (yuv444p), and
 * libswscale's context. */
#define PIPE_CONVERT_FIXED ((uint64_t)1 << 20)

static uint64_t pipe_bytes(const struct scene *sc, const struct sink_budget *b, char *what, size_t size)
{
    if (pipe_fuses(&sc->output))
        return 0;
    snprintf(what, size, "the stream's converted frames");
    return budget_add(PIPE_CONVERT_FIXED, budget_mul(budget_mul(b->width, b->height), 3 * 2));
}

/* The one line for a reader that went away; RR_EXIT_INTERRUPTED. */
static int reader_gone(const struct pipe_sink *s, struct rr_err *e)
{
    if (s->written == 0)
        return rr_fail(e, RR_EXIT_INTERRUPTED,
                       "standard output was closed (its reader went away) before the first frame");
    return rr_fail(e, RR_EXIT_INTERRUPTED,
                   "standard output was closed (its reader went away): interrupted after %ld of %ld frames",
                   s->written, s->frames);
}

static int pipe_av_fail(struct pipe_sink *s, struct rr_err *e, const char *what, int ret)
{
    if (s->closed_pipe || ret == AVERROR(EPIPE))
        return reader_gone(s, e);
    return sink_av_fail(e, RR_EXIT_RUNTIME, "-", what, ret);
}

/* output.pix_fmt checked against the stream's list; *pix the format. */
static int choose_pix(const struct output_config *o, bool nut, enum AVPixelFormat *pix, struct rr_err *e)
{
    const char *const *list = nut ? nut_pix_fmts : y4m_pix_fmts;
    const char *want = o->pix_fmt[0] ? o->pix_fmt : list[0];
    for (const char *const *p = list; *p; p++)
        if (!strcmp(*p, want)) {
            *pix = av_get_pix_fmt(want);
            return 0;
        }
    char names[160] = "";
    for (const char *const *p = list; *p; p++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", p == list ? "" : p[1] ? ", " : " or ",
                 *p);
    return rr_fail(e, RR_EXIT_USAGE, "output.pix_fmt: \"%s\" is not a pixel format of output.format %s "
                   "(use %s)", want, nut ? "nut" : "y4m", names);
}

/* libswscale from rgb24 to s->pix at the same size, bit-exact, BT.601
 * limited range for YUV. */
static int open_convert(struct pipe_sink *s, int threads, struct rr_err *e)
{
    if (s->pix == AV_PIX_FMT_RGB24)   /* NUT's rgb24: the frames as they are */
        return 0;
    s->frame = av_frame_alloc();
    if (!s->frame)
        return rr_fail(e, RR_EXIT_RUNTIME, "-: out of memory");
    s->frame->format = s->pix;
    s->frame->width = s->width;
    s->frame->height = s->height;
    int ret = av_frame_get_buffer(s->frame, 0);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, "-", "cannot get a frame buffer", ret);
    struct SwsContext *sws = sws_alloc_context();
    if (!sws || av_opt_set_int(sws, "srcw", s->width, 0) < 0 || av_opt_set_int(sws, "srch", s->height, 0) < 0
        || av_opt_set_int(sws, "dstw", s->width, 0) < 0 || av_opt_set_int(sws, "dsth", s->height, 0) < 0
        || av_opt_set_int(sws, "src_format", AV_PIX_FMT_RGB24, 0) < 0
        || av_opt_set_int(sws, "dst_format", s->pix, 0) < 0
        || av_opt_set_int(sws, "sws_flags", RR_SWS_FLAGS, 0) < 0
        || av_opt_set_int(sws, "threads", threads > 0 ? threads : 0, 0) < 0 || sws_init_context(sws, NULL, NULL) < 0) {
        sws_freeContext(sws);
        return rr_fail(e, RR_EXIT_RUNTIME, "-: libswscale cannot convert rgb24 to %s", av_get_pix_fmt_name(s->pix));
    }
    const int *coefs = sws_getCoefficients(SWS_CS_ITU601);
    sws_setColorspaceDetails(sws, coefs, 1, coefs, 0, 0, 1 << 16, 1 << 16);
    s->sws = sws;
    if (s->nut) {
        s->raw_bytes = av_image_get_buffer_size(s->pix, s->width, s->height, 1);
        if (s->raw_bytes < 0 || !(s->raw = av_malloc((size_t)s->raw_bytes)))
            return rr_fail(e, RR_EXIT_RUNTIME, "-: out of memory");
    }
    return 0;
}

/* y4m: the muxer takes AVFrames wrapped in packets (wrapped_avframe). */
static int open_wrap(struct pipe_sink *s, struct rr_err *e)
{
    const AVCodec *c = avcodec_find_encoder(AV_CODEC_ID_WRAPPED_AVFRAME);
    if (!c || !(s->wrap = avcodec_alloc_context3(c)))
        return rr_fail(e, RR_EXIT_RUNTIME, "-: this FFmpeg has no wrapped_avframe encoder");
    s->wrap->width = s->width;
    s->wrap->height = s->height;
    s->wrap->pix_fmt = s->pix;
    s->wrap->time_base = s->tb;
    s->wrap->color_range = AVCOL_RANGE_MPEG;
    int ret = avcodec_open2(s->wrap, c, NULL);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, "-", "cannot open the wrapped_avframe encoder", ret);
    return avcodec_parameters_from_context(s->st->codecpar, s->wrap) < 0
               ? rr_fail(e, RR_EXIT_RUNTIME, "-: out of memory") : 0;
}

/* --validate: output.pix_fmt against the stream's list (a terminal is the
 * run's standard output, not the scene's: checked when it opens). */
static int pipe_check(const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    (void)p;
    enum AVPixelFormat pix;
    return choose_pix(o, o->format == OUTPUT_NUT, &pix, e);
}

static int pipe_open(void *priv, const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    struct pipe_sink *s = priv;
    s->nut = o->format == OUTPUT_NUT;
    s->width = p->width;
    s->height = p->height;
    s->frames = p->frames;
    if (isatty(STDOUT_FILENO))
        return rr_fail(e, RR_EXIT_USAGE, "-o -: standard output is a terminal; the frames are binary: pipe them "
                       "into a program (-o - | ffmpeg -i - ...) or give a file name");
    if (choose_pix(o, s->nut, &s->pix, e) < 0)
        return -1;
    s->tb = av_inv_q(av_d2q(p->fps, 100000));
    const char *muxer = s->nut ? "nut" : "yuv4mpegpipe";
    int ret = avformat_alloc_output_context2(&s->oc, NULL, muxer, NULL);
    if (ret < 0 || !s->oc)
        return sink_av_fail(e, RR_EXIT_RUNTIME, "-", muxer, ret < 0 ? ret : AVERROR(ENOMEM));
    /* No encoder or version strings: the stream depends on the frames only. */
    s->oc->flags |= AVFMT_FLAG_BITEXACT;
    uint8_t *buf = av_malloc(PIPE_IO_BYTES);
    if (!buf || !(s->pb = avio_alloc_context(buf, PIPE_IO_BYTES, 1, s, NULL, write_stdout, NULL))) {
        av_free(buf);
        return rr_fail(e, RR_EXIT_RUNTIME, "-: out of memory");
    }
    s->pb->seekable = 0;
    s->oc->pb = s->pb;
    s->oc->flags |= AVFMT_FLAG_CUSTOM_IO;
    s->st = avformat_new_stream(s->oc, NULL);
    s->pkt = av_packet_alloc();
    if (!s->st || !s->pkt)
        return rr_fail(e, RR_EXIT_RUNTIME, "-: out of memory");
    s->st->time_base = s->tb;
    s->st->avg_frame_rate = s->st->r_frame_rate = av_inv_q(s->tb);
    if (open_convert(s, p->threads, e) < 0)
        return -1;
    if (s->nut) {
        AVCodecParameters *par = s->st->codecpar;
        par->codec_type = AVMEDIA_TYPE_VIDEO;
        par->codec_id = AV_CODEC_ID_RAWVIDEO;
        /* NUT names a raw picture's layout by its tag ("RGB" 24), as
         * FFmpeg's rawvideo encoder does; without it a reader guesses. */
        par->codec_tag = avcodec_pix_fmt_to_codec_tag(s->pix);
        par->bits_per_coded_sample = av_get_bits_per_pixel(av_pix_fmt_desc_get(s->pix));
        par->format = s->pix;
        par->width = p->width;
        par->height = p->height;
    } else if (open_wrap(s, e) < 0) {
        return -1;
    }
    ret = avformat_write_header(s->oc, NULL);
    if (ret < 0)
        return pipe_av_fail(s, e, "cannot write the header", ret);
    return 0;
}

/* Hands the muxer one packet and pushes it down the pipe. */
static int put(struct pipe_sink *s, AVPacket *pkt, long index, struct rr_err *e)
{
    pkt->stream_index = 0;
    pkt->pts = pkt->dts = index;
    pkt->duration = 1;
    pkt->flags |= AV_PKT_FLAG_KEY;
    av_packet_rescale_ts(pkt, s->tb, s->st->time_base);
    int ret = av_write_frame(s->oc, pkt);
    if (ret >= 0) {
        avio_flush(s->pb);
        ret = s->pb->error;
    }
    if (ret < 0)
        return pipe_av_fail(s, e, "cannot write a frame", ret);
    s->written++;
    return 0;
}

static int pipe_write(void *priv, const struct frame *fr, struct rr_err *e)
{
    struct pipe_sink *s = priv;
    if (fr->width != s->width || fr->height != s->height)
        return rr_fail(e, RR_EXIT_RUNTIME, "-: frame %ld is %dx%d, the stream was opened for %dx%d", fr->index,
                       fr->width, fr->height, s->width, s->height);
    av_packet_unref(s->pkt);   /* y4m: the last frame's wrapped picture lets go of the buffer */
    int ret;
    if (s->sws) {   /* every pixel format but NUT's rgb24 (y4m has no rgb24) */
        const uint8_t *srcs[4] = { fr->rgb, NULL, NULL, NULL };
        int strides[4] = { s->width * 3, 0, 0, 0 };
        if ((ret = av_frame_make_writable(s->frame)) < 0)
            return sink_av_fail(e, RR_EXIT_RUNTIME, "-", "cannot get a frame buffer", ret);
        if (sws_scale(s->sws, srcs, strides, 0, s->height, s->frame->data, s->frame->linesize) != s->height)
            return rr_fail(e, RR_EXIT_RUNTIME, "-: libswscale failed on frame %ld", fr->index);
    }
    if (s->nut) {
        /* rawvideo packets: the rgb24 frame as it is, or the converted picture packed. */
        const uint8_t *data = fr->rgb;
        int size = s->width * s->height * 3;
        if (s->sws) {
            size = av_image_copy_to_buffer(s->raw, s->raw_bytes, (const uint8_t *const *)s->frame->data,
                                           s->frame->linesize, s->pix, s->width, s->height, 1);
            if (size < 0)
                return sink_av_fail(e, RR_EXIT_RUNTIME, "-", "cannot pack a frame", size);
            data = s->raw;
        }
        /* Not reference-counted: av_write_frame does not keep the data. */
        s->pkt->data = (uint8_t *)(uintptr_t)data;
        s->pkt->size = size;
        int rc = put(s, s->pkt, fr->index, e);
        s->pkt->data = NULL;
        s->pkt->size = 0;
        return rc;
    }
    s->frame->pts = fr->index;
    if ((ret = avcodec_send_frame(s->wrap, s->frame)) < 0 || (ret = avcodec_receive_packet(s->wrap, s->pkt)) < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, "-", "cannot wrap a frame", ret);
    return put(s, s->pkt, fr->index, e);
}

static int pipe_close(void *priv, struct rr_err *e)
{
    struct pipe_sink *s = priv;
    int ret = av_write_trailer(s->oc);
    if (ret >= 0) {
        avio_flush(s->pb);
        ret = s->pb->error;
    }
    return ret < 0 ? pipe_av_fail(s, e, "cannot finish the stream", ret) : 0;
}

static void pipe_free(void *priv)
{
    struct pipe_sink *s = priv;
    if (s->oc) {
        s->oc->pb = NULL;   /* ours (AVFMT_FLAG_CUSTOM_IO) */
        avformat_free_context(s->oc);
        s->oc = NULL;
    }
    if (s->pb) {
        av_freep(&s->pb->buffer);
        avio_context_free(&s->pb);
    }
    avcodec_free_context(&s->wrap);
    av_packet_free(&s->pkt);
    av_frame_free(&s->frame);
    sws_freeContext(s->sws);
    s->sws = NULL;
    av_freep(&s->raw);
}

const struct sink_ops sink_pipe_ops = {
    .name = "pipe",
    .noun = "a stream on standard output",
    .keys = (const char *const[]){ "pix_fmt", "format", NULL },
    .exts = "",
    .to_stdout = true,
    .help = "standard output: y4m, or NUT with output.format",
    .libav = SINK_LIBAV_CODEC | SINK_LIBAV_FORMAT,
    .priv_size = sizeof(struct pipe_sink),
    .needs = pipe_needs,
    .fuses = pipe_fuses,
    .bytes = pipe_bytes,
    .check = pipe_check,
    .open = pipe_open,
    .write = pipe_write,
    .close = pipe_close,
    .free = pipe_free,
};

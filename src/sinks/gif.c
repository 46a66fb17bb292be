/* sinks/gif.c: animated GIF through libavfilter's palettegen + paletteuse (one
 * 256-colour palette made from every frame, then each frame mapped onto it
 * with ordered dithering), the gif encoder and the gif muxer, looping forever.
 * Written to a temporary file beside the target and renamed into place.
 *
 * Two passes, in bounded memory: write hands each frame to palettegen (which
 * keeps only its colour counts) and appends its rgb24 bytes to a scratch
 * file beside the target (unnamed where the file system allows, removed in
 * any case); close takes the palette, then reads the frames back one at a
 * time through paletteuse into the encoder. The filters see the same frames
 * and the same palette as one graph holding every frame would, so the file
 * is the same bytes. */
#include "budget.h"
#include "outfile.h"
#include "sinks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>

/* One palette for the whole clip ("full" statistics), 255 colours plus the
 * transparent one the encoder uses for unchanged pixels; Bayer dithering
 * (ordered, so a still area stays still from frame to frame and the
 * encoder's inter-frame transparency can skip it), only the changed
 * rectangle re-dithered. The first pass's graph makes the palette, the
 * second's maps the frames onto it (its "pal" input). */
#define GIF_PALETTE "palettegen=stats_mode=full"
#define GIF_MAP "[in][pal]paletteuse=dither=bayer:bayer_scale=3:diff_mode=rectangle"

struct gif_sink {
    const char *path;
    struct outfile file;
    struct outfile scratch;      /* the frames' rgb24 bytes, one after another */
    long frames;                 /* written to scratch */
    AVFilterGraph *pgraph;       /* first pass: buffer -> palettegen -> buffersink */
    AVFilterContext *psrc, *psink;
    AVFilterGraph *graph;        /* second pass: buffer "in", buffer "pal" -> paletteuse -> buffersink */
    AVFilterContext *src, *pal, *sink;
    AVCodecContext *enc;
    AVFormatContext *oc;
    AVStream *st;
    AVFrame *in, *out;
    AVPacket *pkt;
    AVRational tb;
    int width, height;
    int64_t next_pts;
};

/* The memory budget (sink_ops.bytes): palettegen's and paletteuse's tables,
 * and per pixel the frames the filters, encoder and sink hold at once
 * (rgb24, rgb32, pal8 copies): whatever the frame count, a few (the one
 * handed over, paletteuse's last input and output, the encoder's last
 * frame, the one read back), and the colours palettegen counts and
 * paletteuse caches, more for a picture of many colours (a scaled one). */
#define GIF_FIXED ((uint64_t)28 << 20)
#define GIF_PIXEL 32

static uint64_t gif_bytes(const struct scene *sc, const struct sink_budget *b, char *what, size_t size)
{
    (void)sc;
    snprintf(what, size, "the .gif's palette tables and frames in flight");
    return budget_add(GIF_FIXED, budget_mul(budget_mul(b->width, b->height), GIF_PIXEL));
}

static int gif_needs(const struct output_config *o, const struct scene *sc)
{
    (void)o;
    (void)sc;
    return 0;
}

/* A graph of `filters` between a buffer source named "in" (the frames,
 * rgb24) and a buffersink of `out_fmt`, and, when pal is not NULL, a second
 * buffer source "pal" (palettegen's 16x16 rgb32 palette). Returns 0, or -1
 * with e filled. */
static int make_graph(struct gif_sink *s, AVRational tb, const char *filters, enum AVPixelFormat out_fmt,
                      AVFilterGraph **graph, AVFilterContext **src, AVFilterContext **pal, AVFilterContext **sink,
                      struct rr_err *e)
{
    char args[160];
    int ret;
    AVFilterInOut *outs = avfilter_inout_alloc(), *ins = avfilter_inout_alloc();
    AVFilterInOut *pal_out = pal ? avfilter_inout_alloc() : NULL;
    *graph = avfilter_graph_alloc();
    if (!outs || !ins || !*graph || (pal && !pal_out)) {
        ret = AVERROR(ENOMEM);
        goto end;
    }
    (*graph)->nb_threads = 1;
    snprintf(args, sizeof args, "video_size=%dx%d:pix_fmt=%d:time_base=%d/%d:pixel_aspect=1/1", s->width,
             s->height, AV_PIX_FMT_RGB24, tb.num, tb.den);
    ret = avfilter_graph_create_filter(src, avfilter_get_by_name("buffer"), "in", args, NULL, *graph);
    if (ret < 0)
        goto end;
    if (pal) {
        snprintf(args, sizeof args, "video_size=16x16:pix_fmt=%d:time_base=%d/%d:pixel_aspect=1/1",
                 AV_PIX_FMT_RGB32, tb.num, tb.den);
        ret = avfilter_graph_create_filter(pal, avfilter_get_by_name("buffer"), "pal", args, NULL, *graph);
        if (ret < 0)
            goto end;
    }
    ret = avfilter_graph_create_filter(sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, *graph);
    if (ret < 0)
        goto end;
    enum AVPixelFormat fmts[] = { out_fmt, AV_PIX_FMT_NONE };
    ret = av_opt_set_int_list(*sink, "pix_fmts", fmts, AV_PIX_FMT_NONE, AV_OPT_SEARCH_CHILDREN);
    if (ret < 0)
        goto end;
    outs->name = av_strdup("in");
    outs->filter_ctx = *src;
    outs->next = pal_out;
    if (pal_out) {
        pal_out->name = av_strdup("pal");
        pal_out->filter_ctx = *pal;
    }
    ins->name = av_strdup("out");
    ins->filter_ctx = *sink;
    if (!outs->name || !ins->name || (pal_out && !pal_out->name)) {
        ret = AVERROR(ENOMEM);
        goto end;
    }
    pal_out = NULL;   /* outs owns it now */
    ret = avfilter_graph_parse_ptr(*graph, filters, &ins, &outs, NULL);
    if (ret >= 0)
        ret = avfilter_graph_config(*graph, NULL);
end:
    avfilter_inout_free(&ins);
    avfilter_inout_free(&outs);
    avfilter_inout_free(&pal_out);
    return ret < 0 ? sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "cannot build the palette filters", ret) : 0;
}

/* What gif_open refuses before it makes anything (also --validate's check). */
static int gif_check(const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    if (o->codec[0] && strcmp(o->codec, "gif") != 0)
        return rr_fail(e, RR_EXIT_USAGE, "output.codec: a .gif file holds only the gif codec, got \"%s\"",
                       o->codec);
    if (o->pix_fmt[0] && strcmp(o->pix_fmt, "pal8") != 0)
        return rr_fail(e, RR_EXIT_USAGE, "output.pix_fmt: a .gif file is pal8 (a palette), got \"%s\"",
                       o->pix_fmt);
    if (p->width > 65535 || p->height > 65535)
        return rr_fail(e, RR_EXIT_USAGE, "%s: GIF frames are at most 65535 x 65535, got %dx%d", o->path,
                       p->width, p->height);
    return 0;
}

static int gif_open(void *priv, const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    struct gif_sink *s = priv;
    int ret;
    AVDictionary *mopts = NULL;
    s->path = o->path;
    s->width = p->width;
    s->height = p->height;
    if (gif_check(o, p, e) < 0)
        return -1;
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_GIF);
    if (!codec)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: this FFmpeg has no gif encoder", o->path);
    AVRational tb = av_inv_q(av_d2q(p->fps, 100000));
    s->tb = tb;
    if (make_graph(s, tb, GIF_PALETTE, AV_PIX_FMT_RGB32, &s->pgraph, &s->psrc, NULL, &s->psink, e) < 0)
        return -1;

    s->enc = avcodec_alloc_context3(codec);
    s->in = av_frame_alloc();
    s->out = av_frame_alloc();
    s->pkt = av_packet_alloc();
    if (!s->enc || !s->in || !s->out || !s->pkt)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    s->enc->width = p->width;
    s->enc->height = p->height;
    s->enc->pix_fmt = AV_PIX_FMT_PAL8;
    s->enc->time_base = tb;
    s->enc->framerate = av_inv_q(tb);
    s->enc->sample_aspect_ratio = (AVRational){ 1, 1 };
    ret = avcodec_open2(s->enc, codec, NULL);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot open the gif encoder", ret);

    if (outfile_begin(&s->file, o->path, p->overwrite, e) < 0)
        return -1;
    const char *tmp = outfile_url(&s->file);   /* "file:...": never another protocol */
    ret = avformat_alloc_output_context2(&s->oc, NULL, "gif", tmp);
    if (ret < 0 || !s->oc)
        return sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot create the gif muxer",
                            ret < 0 ? ret : AVERROR(ENOMEM));
    s->st = avformat_new_stream(s->oc, NULL);
    if (!s->st)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    s->st->time_base = tb;   /* the muxer keeps 1/100 s: its delays are centiseconds */
    s->st->avg_frame_rate = av_inv_q(tb);
    ret = avcodec_parameters_from_context(s->st->codecpar, s->enc);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot set the stream parameters", ret);
    ret = avio_open(&s->oc->pb, tmp, AVIO_FLAG_WRITE);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot open the temporary file", ret);
    av_dict_set(&mopts, "loop", "0", 0);   /* 0: loop forever (NETSCAPE2.0 extension) */
    ret = avformat_write_header(s->oc, &mopts);
    av_dict_free(&mopts);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot write the header", ret);
    return outfile_begin(&s->scratch, o->path, p->overwrite, e);
}

/* Sends one frame (NULL: flush) to the encoder and writes what comes out. */
static int encode(struct gif_sink *s, AVFrame *frame, struct rr_err *e)
{
    return sink_encode(s->enc, s->oc, s->st, s->pkt, frame, s->path, "gif ", NULL, e);
}

/* Encodes every palettised frame the second pass's graph has ready. */
static int drain(struct gif_sink *s, struct rr_err *e)
{
    for (;;) {
        int ret = av_buffersink_get_frame(s->sink, s->out);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return 0;
        if (ret < 0)
            return sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "the palette filters failed", ret);
        s->out->pict_type = AV_PICTURE_TYPE_NONE;
        ret = encode(s, s->out, e);
        av_frame_unref(s->out);
        if (ret < 0)
            return -1;
    }
}

/* Copies `rgb` (packed rows) into a new buffer of s->in with the next pts and
 * hands it to the buffer source src (which takes it). Returns 0, or -1 with
 * e filled. */
static int feed(struct gif_sink *s, AVFilterContext *src, const uint8_t *rgb, int64_t pts, struct rr_err *e)
{
    s->in->format = AV_PIX_FMT_RGB24;
    s->in->width = s->width;
    s->in->height = s->height;
    int ret = av_frame_get_buffer(s->in, 0);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "cannot allocate a frame", ret);
    for (int y = 0; y < s->height; y++)
        memcpy(s->in->data[0] + (size_t)y * s->in->linesize[0], rgb + (size_t)y * s->width * 3,
               (size_t)s->width * 3);
    s->in->pts = pts;
    ret = av_buffersrc_add_frame(src, s->in);   /* takes the reference, leaves s->in blank */
    av_frame_unref(s->in);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "the palette filters refused a frame", ret);
    return 0;
}

/* Writes or reads frame i's rgb24 bytes in the scratch file. Returns 0, or
 * -1 with e filled. */
static int scratch_io(struct gif_sink *s, uint8_t *buf, long i, bool write, struct rr_err *e)
{
    size_t n = (size_t)s->width * s->height * 3, done = 0;
    off_t at = (off_t)i * (off_t)n;
    while (done < n) {
        ssize_t k = write ? pwrite(s->scratch.fd, buf + done, n - done, at + (off_t)done)
                          : pread(s->scratch.fd, buf + done, n - done, at + (off_t)done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot %s the frames' scratch file: %s", s->path,
                           write ? "write" : "read back", k < 0 ? strerror(errno) : "it is shorter");
        done += (size_t)k;
    }
    return 0;
}

static int gif_write(void *priv, const struct frame *fr, struct rr_err *e)
{
    struct gif_sink *s = priv;
    if (fr->width != s->width || fr->height != s->height)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: frame %ld is %dx%d, the file was opened for %dx%d", s->path,
                       fr->index, fr->width, fr->height, s->width, s->height);
    if (scratch_io(s, (uint8_t *)fr->rgb, s->frames, true, e) < 0 || feed(s, s->psrc, fr->rgb, s->next_pts++, e) < 0)
        return -1;
    s->frames++;
    /* Run the graph: palettegen counts the frame's colours and drops it (it
     * gives nothing before the end). */
    int ret = av_buffersink_get_frame(s->psink, s->out);
    if (ret >= 0)
        av_frame_unref(s->out);
    if (ret < 0 && ret != AVERROR(EAGAIN))
        return sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "the palette filters failed", ret);
    return 0;
}

static int gif_close(void *priv, struct rr_err *e)
{
    struct gif_sink *s = priv;
    int ret = av_buffersrc_add_frame(s->psrc, NULL);   /* end of stream: the palette is made now */
    if (ret >= 0)
        ret = av_buffersink_get_frame(s->psink, s->out);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "cannot finish the palette", ret);
    avfilter_graph_free(&s->pgraph);
    if (make_graph(s, s->tb, GIF_MAP, AV_PIX_FMT_PAL8, &s->graph, &s->src, &s->pal, &s->sink, e) < 0)
        return -1;
    ret = av_buffersrc_add_frame(s->pal, s->out);   /* takes the palette */
    av_frame_unref(s->out);
    if (ret >= 0)
        ret = av_buffersrc_add_frame(s->pal, NULL);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "the palette filters refused the palette", ret);
    uint8_t *rgb = av_malloc((size_t)s->width * s->height * 3);
    if (!rgb)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", s->path);
    for (long i = 0; i < s->frames; i++) {
        if (scratch_io(s, rgb, i, false, e) < 0 || feed(s, s->src, rgb, i, e) < 0 || drain(s, e) < 0) {
            av_free(rgb);
            return -1;
        }
    }
    av_free(rgb);
    outfile_abort(&s->scratch);
    ret = av_buffersrc_add_frame(s->src, NULL);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "cannot finish the palette", ret);
    if (drain(s, e) < 0 || encode(s, NULL, e) < 0)
        return -1;
    return sink_mux_finish(s->oc, &s->file, s->path, e);
}

static void gif_free(void *priv)
{
    struct gif_sink *s = priv;
    sink_mux_free(&s->oc);
    avfilter_graph_free(&s->pgraph);
    avfilter_graph_free(&s->graph);
    avcodec_free_context(&s->enc);
    av_frame_free(&s->in);
    av_frame_free(&s->out);
    av_packet_free(&s->pkt);
    outfile_abort(&s->scratch);
    outfile_abort(&s->file);
}

const struct sink_ops sink_gif_ops = {
    .name = "gif",
    .noun = "a GIF",
    .keys = (const char *const[]){ "codec", "pix_fmt", NULL },
    .exts = "gif",
    .help = "animated GIF, one palette, loops forever",
    .libav = SINK_LIBAV_ALL,
    .priv_size = sizeof(struct gif_sink),
    .needs = gif_needs,
    .bytes = gif_bytes,
    .check = gif_check,
    .open = gif_open,
    .write = gif_write,
    .close = gif_close,
    .free = gif_free,
};

/* sinks/video.c: .mp4 .mkv .mov .webm through libavformat and libavcodec,
 * rgb24 converted to yuv420p by sinks/yuv420.c (or, where the renderer
 * scales the picture, its yuv420p: frame.h) and to any other pixel format
 * of the encoder with libswscale; a pix_fmt of more than 8 bits is made from
 * the 16-bit render (rgb48), one with alpha from render.alpha's (rgba,
 * rgba64): the frame's deep picture (frame.h). Follows
 * FFmpeg's doc/examples/mux.c and encode_video.c: send_frame/receive_packet
 * until EAGAIN, flushed with a NULL frame at close. Written to a temporary
 * file beside the target and renamed into place after the trailer. */
#include "budget.h"
#include "join.h"
#include "outfile.h"
#include "scale.h"
#include "sinks.h"
#include "sinks/yuv420.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/imgutils.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

struct container {
    const char *ext, *format, *codec;   /* extension, muxer name, default encoder */
};

static const struct container containers[] = {
    { "mp4", "mp4", "libx264" },
    { "mkv", "matroska", "libx264" },
    { "mov", "mov", "libx264" },
    { "webm", "webm", "libvpx-vp9" },
};

/* Default pixel format per encoder: the first one the encoder supports. */
struct pixdefault {
    const char *codec;
    const char *pix_fmts[3];
};

static const struct pixdefault pix_defaults[] = {
    { "libx264", { "yuv420p" } },   { "libx265", { "yuv420p" } },    { "libvpx-vp9", { "yuv420p" } },
    { "libaom-av1", { "yuv420p" } }, { "libsvtav1", { "yuv420p" } }, { "ffv1", { "bgr0", "gbrp" } },
    { "png", { "rgb24" } },          { "utvideo", { "gbrp" } },      { "rawvideo", { "rgb24" } },
};

/* With output.bit_depth 16 or render.alpha and no output.pix_fmt: the
 * encoder's usual format of that kind where it has one (hi: more than 8 bits,
 * alpha: an alpha plane); else its format of that kind closest to the
 * render's (rgb48, rgba, rgba64). */
struct pixdeep {
    const char *codec, *hi, *alpha, *hi_alpha;
};

static const struct pixdeep pix_deep[] = {
    { "libx264", "yuv420p10le", NULL, NULL },
    { "libx265", "yuv420p10le", NULL, NULL },
    { "libvpx-vp9", "yuv420p10le", "yuva420p", NULL },
    { "libaom-av1", "yuv420p10le", NULL, NULL },
    { "libsvtav1", "yuv420p10le", NULL, NULL },
    { "prores_ks", "yuv422p10le", "yuva444p10le", "yuva444p10le" },
    { "ffv1", "gbrp16le", "bgra", "gbrap16le" },
    { "png", "rgb48be", "rgba", "rgba64be" },
};

struct video_sink {
    const char *path;
    struct outfile file;
    AVFormatContext *oc;
    AVCodecContext *enc;
    AVStream *st;
    AVFrame *frame;
    AVPacket *pkt;
    struct SwsContext *sws;    /* NULL for yuv420p: sinks/yuv420.c converts */
    int width, height;         /* rendered size */
    int ew, eh;                /* encoded size: padded to even for subsampled chroma */
    enum AVPixelFormat src;    /* rgb24, or the deep picture's format */
    int bpp;                   /* its bytes a pixel */
    uint8_t *pad;              /* ew x eh pixels of src when padding, else NULL */
    uint16_t *rescaled;        /* ew x eh pixels of 16-bit src for a YUV pix_fmt (to_sws16), else NULL */
    int64_t next_pts;
    atomic_long packets;       /* written to the muxer: one per encoded frame */
};

static bool pix_supported(const AVCodec *c, enum AVPixelFormat f)
{
    if (!c->pix_fmts)
        return true;
    for (const enum AVPixelFormat *p = c->pix_fmts; *p != AV_PIX_FMT_NONE; p++)
        if (*p == f)
            return true;
    return false;
}

static void list_pix_fmts(const AVCodec *c, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    if (!c->pix_fmts)
        return;
    for (const enum AVPixelFormat *p = c->pix_fmts; *p != AV_PIX_FMT_NONE && used + 1 < n; p++) {
        int k = snprintf(buf + used, n - used, "%s%s", p == c->pix_fmts ? "" : ", ", av_get_pix_fmt_name(*p));
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/* A video encoder for a name that is not one: the format's own encoder when
 * the name is a codec's ("h264" -> libx264, "vp9" -> libvpx-vp9), else the
 * nearest encoder's name (scene_guess_offer), or NULL. */
static const char *near_encoder(const char *name)
{
    const AVCodecDescriptor *d = avcodec_descriptor_get_by_name(name);
    const AVCodec *c = d && d->type == AVMEDIA_TYPE_VIDEO ? avcodec_find_encoder(d->id) : NULL;
    if (c)
        return c->name;
    struct scene_guess g = { .word = name };
    void *it = NULL;
    while ((c = av_codec_iterate(&it)))
        if (av_codec_is_encoder(c) && c->type == AVMEDIA_TYPE_VIDEO)
            scene_guess_offer(&g, c->name);
    return g.best;
}

static bool pix_deep_bits(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && d->comp[0].depth > 8;
}

static bool pix_alpha(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && (d->flags & AV_PIX_FMT_FLAG_ALPHA);
}

/* The default pix_fmt for output.bit_depth 16 (hi) and/or render.alpha
 * (alpha), or AV_PIX_FMT_NONE with e filled naming the key that cannot be
 * met. */
static enum AVPixelFormat deep_default(const AVCodec *c, bool hi, bool alpha, struct rr_err *e)
{
    for (size_t i = 0; i < sizeof pix_deep / sizeof pix_deep[0]; i++) {
        if (strcmp(pix_deep[i].codec, c->name) != 0)
            continue;
        const char *name = hi ? (alpha ? pix_deep[i].hi_alpha : pix_deep[i].hi) : pix_deep[i].alpha;
        enum AVPixelFormat f = name ? av_get_pix_fmt(name) : AV_PIX_FMT_NONE;
        if (f != AV_PIX_FMT_NONE && pix_supported(c, f))
            return f;
    }
    enum AVPixelFormat fit[256];
    int n = 0;
    for (const enum AVPixelFormat *p = c->pix_fmts; p && *p != AV_PIX_FMT_NONE && n < 255; p++)
        if (pix_deep_bits(*p) == hi && pix_alpha(*p) == alpha)
            fit[n++] = *p;
    fit[n] = AV_PIX_FMT_NONE;
    if (n > 0)
        return avcodec_find_best_pix_fmt_of_list(
            fit, hi ? (alpha ? AV_PIX_FMT_RGBA64 : AV_PIX_FMT_RGB48) : AV_PIX_FMT_RGBA, 1, NULL);
    if (alpha && !hi)
        rr_fail(e, RR_EXIT_USAGE,
                "render.alpha: output.codec %s has no pixel format with alpha (libvpx-vp9 in .webm, prores_ks in "
                ".mov, ffv1 in .mkv have)", c->name);
    else
        rr_fail(e, RR_EXIT_USAGE, "output.bit_depth: 16: output.codec %s has no pixel format of more than 8 bits%s",
                c->name, alpha ? " with alpha" : "");
    return AV_PIX_FMT_NONE;
}

static enum AVPixelFormat choose_pix_fmt(const AVCodec *c, const struct output_config *o, bool alpha,
                                         struct rr_err *e)
{
    char list[1024];
    if (o->pix_fmt[0]) {
        enum AVPixelFormat f = av_get_pix_fmt(o->pix_fmt);
        if (f == AV_PIX_FMT_NONE) {
            struct scene_guess g = { .word = o->pix_fmt };
            for (const AVPixFmtDescriptor *d = NULL; (d = av_pix_fmt_desc_next(d));)
                scene_guess_offer(&g, d->name);
            rr_fail(e, RR_EXIT_USAGE, "output.pix_fmt: \"%s\" is not a pixel format%s%s%s", o->pix_fmt,
                    g.best ? "; did you mean \"" : "", g.best ? g.best : "", g.best ? "\"?" : "");
            return AV_PIX_FMT_NONE;
        }
        if (!pix_supported(c, f)) {
            list_pix_fmts(c, list, sizeof list);
            rr_fail(e, RR_EXIT_USAGE, "output.pix_fmt: \"%s\" is not supported by %s (supported: %s)", o->pix_fmt,
                    c->name, list);
            return AV_PIX_FMT_NONE;
        }
        if (pix_alpha(f) && !alpha) {
            rr_fail(e, RR_EXIT_USAGE,
                    "output.pix_fmt: \"%s\" has an alpha plane: set render.alpha (height, caustics), or a pix_fmt "
                    "without alpha", o->pix_fmt);
            return AV_PIX_FMT_NONE;
        }
        if (!pix_alpha(f) && alpha) {
            rr_fail(e, RR_EXIT_USAGE, "render.alpha: output.pix_fmt \"%s\" has no alpha plane", o->pix_fmt);
            return AV_PIX_FMT_NONE;
        }
        if (!pix_deep_bits(f) && o->bit_depth == 16) {
            rr_fail(e, RR_EXIT_USAGE, "output.bit_depth: 16 needs more than 8 bits; output.pix_fmt \"%s\" has 8",
                    o->pix_fmt);
            return AV_PIX_FMT_NONE;
        }
        return f;
    }
    if (alpha || o->bit_depth == 16)
        return deep_default(c, o->bit_depth == 16, alpha, e);
    for (size_t i = 0; i < sizeof pix_defaults / sizeof pix_defaults[0]; i++) {
        if (strcmp(pix_defaults[i].codec, c->name) != 0)
            continue;
        for (int k = 0; k < 3 && pix_defaults[i].pix_fmts[k]; k++) {
            enum AVPixelFormat f = av_get_pix_fmt(pix_defaults[i].pix_fmts[k]);
            if (f != AV_PIX_FMT_NONE && pix_supported(c, f))
                return f;
        }
    }
    if (!c->pix_fmts)
        return AV_PIX_FMT_RGB24;
    /* Another encoder: the format closest to rgb24 that it takes. */
    return avcodec_find_best_pix_fmt_of_list(c->pix_fmts, AV_PIX_FMT_RGB24, 0, NULL);
}

/* The encoders whose crf and preset follow rules of their own, one entry
 * each (encoder_rules); any other encoder gets both as given, checked
 * against its own options (video_settings). */

/* x264's and x265's crf and preset, at their defaults (crf 20, medium)
 * when the scene sets none. */
static void x26x_options(AVDictionary **opts, AVCodecContext *enc, const struct output_config *o)
{
    (void)enc;
    char num[32];
    snprintf(num, sizeof num, "%d", o->crf >= 0 ? o->crf : 20);
    av_dict_set(opts, "crf", num, 0);
    av_dict_set(opts, "preset", o->preset[0] ? o->preset : "medium", 0);
}

static void x265_options(AVDictionary **opts, AVCodecContext *enc, const struct output_config *o)
{
    x26x_options(opts, enc, o);
    av_dict_set(opts, "x265-params", "log-level=error", 0);   /* x265 prints to stderr itself, past av_log */
}

/* Debian 12's libx265 (3.5) corrupts its own heap on some pictures under
 * 64 pixels on both sides (48 x 28 aborts the ffmpeg program in free());
 * where one side is smaller still it refuses the size itself. */
static int x265_check(const struct output_config *o, const struct sink_params *p, enum AVPixelFormat pix,
                      struct rr_err *e)
{
    (void)o, (void)pix;
    if (p->width < 64 && p->height < 64)
        return rr_fail(e, RR_EXIT_USAGE,
                       "output.codec: libx265 needs a picture of at least 64 x 64 pixels, got %d x %d "
                       "(set render.width and render.height, or another codec)", p->width, p->height);
    return 0;
}

/* libvpx-vp9: constant quality at crf 32 by default; output.preset is its
 * deadline (good by default), row threads, cpu-used 4. */
static void vp9_options(AVDictionary **opts, AVCodecContext *enc, const struct output_config *o)
{
    char num[32];
    snprintf(num, sizeof num, "%d", o->crf >= 0 ? o->crf : 32);
    av_dict_set(opts, "crf", num, 0);
    enc->bit_rate = 0;   /* constant quality */
    av_dict_set(opts, "row-mt", "1", 0);
    av_dict_set(opts, "deadline", o->preset[0] ? o->preset : "good", 0);
    av_dict_set(opts, "cpu-used", "4", 0);
}

static int vp9_check(const struct output_config *o, const struct sink_params *p, enum AVPixelFormat pix,
                     struct rr_err *e)
{
    (void)p;
    const char *deadline = o->preset[0] ? o->preset : "good";
    if (strcmp(deadline, "good") && strcmp(deadline, "best") && strcmp(deadline, "realtime"))
        return rr_fail(e, RR_EXIT_USAGE,
                       "output.preset: \"%s\" is not a libvpx-vp9 deadline (use good, best or realtime)", deadline);
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(pix);
    /* libvpx aborts on lossless 4:4:4 with deadline realtime. */
    if (strcmp(deadline, "realtime") == 0 && d && d->log2_chroma_w == 0 && d->log2_chroma_h == 0)
        return rr_fail(e, RR_EXIT_USAGE,
                       "output.preset: \"realtime\" with pix_fmt %s crashes libvpx-vp9; use good or best",
                       av_get_pix_fmt_name(pix));
    return 0;
}

/* x264's and x265's presets (x264_preset_names, x265_preset_names): a
 * string option, which libavcodec passes on unchecked. */
static const char *const x26x_presets[] = { "ultrafast", "superfast", "veryfast", "faster", "fast", "medium",
                                            "slow", "slower", "veryslow", "placebo", NULL };

static const struct encoder_rules {
    const char *name;
    /* The largest crf it takes, 0: the scene's range, up to 63. x265 and
     * x264 take up to 51 only (x265's open fails above: "Valid quality
     * based range"; x264 clips it to 51, silently, and its libavcodec
     * option takes any float). */
    int crf_max;
    const char *const *presets;   /* what output.preset may be, NULL: not checked here */
    /* Optional (NULL: crf and preset passed as given, each checked against
     * the encoder's own options): sets its options from the scene. */
    void (*options)(AVDictionary **opts, AVCodecContext *enc, const struct output_config *o);
    /* Optional: what it would refuse or crash on besides; 0 or -1 with e. */
    int (*check)(const struct output_config *o, const struct sink_params *p, enum AVPixelFormat pix,
                 struct rr_err *e);
} encoder_rules[] = {
    { "libx264", 51, x26x_presets, x26x_options, NULL },
    { "libx265", 51, x26x_presets, x265_options, x265_check },
    { "libx264rgb", 51, x26x_presets, NULL, NULL },
    { "libvpx-vp9", 0, NULL, vp9_options, vp9_check },
};

/* Encoder c's entry in encoder_rules, or NULL. */
static const struct encoder_rules *rules_of(const AVCodec *c)
{
    for (size_t i = 0; i < sizeof encoder_rules / sizeof *encoder_rules; i++)
        if (strcmp(c->name, encoder_rules[i].name) == 0)
            return &encoder_rules[i];
    return NULL;
}

/* Encoder options from the scene (checked by video_settings) and the
 * container's defaults. */
static void encoder_options(AVDictionary **opts, AVCodecContext *enc, const AVCodec *c,
                            const struct output_config *o)
{
    const struct encoder_rules *rules = rules_of(c);
    if (rules && rules->options) {
        rules->options(opts, enc, o);
        return;
    }
    /* Any other encoder: pass what the scene set; unknown keys fail below. */
    char num[32];
    if (o->crf >= 0) {
        snprintf(num, sizeof num, "%d", o->crf);
        av_dict_set(opts, "crf", num, 0);
    }
    if (o->preset[0])
        av_dict_set(opts, "preset", o->preset, 0);
}

/* libswscale from src (rgb24, or the deep picture's rgba, rgb48, rgba64) to
 * pix at w x h (BT.709 limited range for YUV), bit-exact, sliced over
 * threads (libswscale 6's "threads", 0 = one per core; slices give the same
 * bytes). NULL when it cannot. */
static struct SwsContext *open_sws(int w, int h, enum AVPixelFormat src, enum AVPixelFormat pix, int threads,
                                   bool is_rgb)
{
    struct SwsContext *sws = sws_alloc_context();
    if (!sws || av_opt_set_int(sws, "srcw", w, 0) < 0 || av_opt_set_int(sws, "srch", h, 0) < 0
        || av_opt_set_int(sws, "dstw", w, 0) < 0 || av_opt_set_int(sws, "dsth", h, 0) < 0
        || av_opt_set_int(sws, "src_format", src, 0) < 0 || av_opt_set_int(sws, "dst_format", pix, 0) < 0
        || av_opt_set_int(sws, "sws_flags", RR_SWS_FLAGS, 0) < 0
        || av_opt_set_int(sws, "threads", threads > 0 ? threads : 0, 0) < 0 || sws_init_context(sws, NULL, NULL) < 0) {
        sws_freeContext(sws);
        return NULL;
    }
    if (!is_rgb) {
        const int *coefs = sws_getCoefficients(SWS_CS_ITU709);
        sws_setColorspaceDetails(sws, coefs, 1, coefs, 0, 0, 1 << 16, 1 << 16);
    }
    return sws;
}

/* The container, encoder and pixel format of an output (alpha: render.alpha
 * is set). Returns 0, or -1 with e filled (RR_EXIT_USAGE, or
 * RR_EXIT_RUNTIME for a muxer this FFmpeg lacks). */
static int video_format(const struct output_config *o, bool alpha, const struct container **ctp,
                        const AVCodec **codecp, const AVOutputFormat **ofmtp, enum AVPixelFormat *pixp,
                        struct rr_err *e)
{
    const char *ext = sink_extension(o->path);
    const struct container *ct = NULL;
    for (size_t i = 0; i < sizeof containers / sizeof containers[0]; i++)
        if (strcasecmp(ext, containers[i].ext) == 0)
            ct = &containers[i];
    if (!ct)
        return rr_fail(e, RR_EXIT_USAGE, "%s: not a video container (use .mp4 .mkv .mov .webm)", o->path);
    const char *codec_name = o->codec[0] ? o->codec : ct->codec;
    const AVCodec *codec = avcodec_find_encoder_by_name(codec_name);
    if (!codec || codec->type != AVMEDIA_TYPE_VIDEO) {
        const char *near = codec ? NULL : near_encoder(codec_name);
        return rr_fail(e, RR_EXIT_USAGE, "output.codec: \"%s\" is not %s in this FFmpeg%s%s%s", codec_name,
                       codec ? "a video encoder" : "an encoder", near ? "; did you mean \"" : "", near ? near : "",
                       near ? "\"?" : "");
    }
    const AVOutputFormat *ofmt = av_guess_format(ct->format, NULL, NULL);
    if (!ofmt)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: this FFmpeg has no %s muxer", o->path, ct->format);
    if (avformat_query_codec(ofmt, codec->id, FF_COMPLIANCE_UNOFFICIAL) == 0)
        return rr_fail(e, RR_EXIT_USAGE, "output.codec: %s cannot be stored in a .%s file", codec->name, ext);
    /* Matroska stores raw video only as YUV or through its VFW mode, where
     * FFmpeg reads rgb24 back as bgr24: refused rather than written wrong. */
    if (codec->id == AV_CODEC_ID_RAWVIDEO && strcmp(ct->format, "matroska") == 0)
        return rr_fail(e, RR_EXIT_USAGE,
                       "output.codec: rawvideo cannot be stored in a .%s file "
                       "(use .mov, or ffv1, utvideo or png in .%s)", ext, ext);
    enum AVPixelFormat pix = choose_pix_fmt(codec, o, alpha, e);
    if (pix == AV_PIX_FMT_NONE)
        return -1;
    *ctp = ct;
    *codecp = codec;
    *ofmtp = ofmt;
    *pixp = pix;
    return 0;
}

/* Whether the encoder's own option key (opt, crf or preset) takes the
 * scene's value: set on the encoder's defaults, as its open will set it
 * (a number in the option's range, or one of its named values). Returns 0,
 * or -1 with e filled (status 2, or 1 when memory ran out). */
static int option_takes(const AVCodec *c, const AVOption *opt, const char *key, const struct output_config *o,
                        struct rr_err *e)
{
    char value[32];
    if (key[0] == 'p')
        snprintf(value, sizeof value, "%s", o->preset);
    else
        snprintf(value, sizeof value, "%d", o->crf);
    AVCodecContext *ctx = avcodec_alloc_context3(c);
    const int rc = !ctx ? AVERROR(ENOMEM) : ctx->priv_data ? av_opt_set(ctx->priv_data, key, value, 0)
                                                           : AVERROR_OPTION_NOT_FOUND;
    avcodec_free_context(&ctx);
    if (rc == AVERROR(ENOMEM))
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", c->name);
    if (rc >= 0)
        return 0;
    const bool whole = opt->type == AV_OPT_TYPE_INT || opt->type == AV_OPT_TYPE_INT64 || opt->type == AV_OPT_TYPE_UINT64;
    if (whole || opt->type == AV_OPT_TYPE_FLOAT || opt->type == AV_OPT_TYPE_DOUBLE)
        return rr_fail(e, RR_EXIT_USAGE, "output.%s: %s's %s option takes %s from %.15g to %.15g, got \"%s\"", key,
                       c->name, key, whole ? "an integer" : "a number", opt->min, opt->max, value);
    return rr_fail(e, RR_EXIT_USAGE, "output.%s: %s's %s option does not take \"%s\"", key, c->name, key, value);
}

/* The settings the encoder would refuse, or crash on, when it opens: checked
 * before anything is made (video_open) and by --validate (video_check). */
static int video_settings(const AVCodec *c, const struct output_config *o, const struct sink_params *p,
                          enum AVPixelFormat pix, struct rr_err *e)
{
    const struct encoder_rules *rules = rules_of(c);
    if (rules && rules->check && rules->check(o, p, pix, e) < 0)
        return -1;
    if (rules && rules->crf_max && o->crf > rules->crf_max)
        return rr_fail(e, RR_EXIT_USAGE, "output.crf: %s's crf option takes 0 to %d, got %d", c->name,
                       rules->crf_max, o->crf);
    if (rules && rules->presets && o->preset[0]) {
        struct scene_guess g = { .word = o->preset };
        bool known = false;
        char list[200] = "";
        for (int i = 0; rules->presets[i]; i++) {
            known = known || !strcmp(o->preset, rules->presets[i]);
            scene_guess_offer(&g, rules->presets[i]);
            const bool last = !rules->presets[i + 1];
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i == 0 ? "" : last ? " or " : ", ",
                     rules->presets[i]);
        }
        if (!known)
            return rr_fail(e, RR_EXIT_USAGE, "output.preset: \"%s\" is not a %s preset (use %s)%s%s%s", o->preset,
                           c->name, list, g.best ? "; did you mean \"" : "", g.best ? g.best : "", g.best ? "\"?" : "");
    }
    /* Any other encoder (or one whose rules set no options) gets crf and
     * preset as given (encoder_options): one it has no such option for is
     * refused here, as its open would (neither is one of libavcodec's
     * generic options: the encoder's own class is the one to ask). */
    for (int k = 0; k < 2 && !(rules && rules->options); k++) {
        const char *key = k ? "preset" : "crf";
        const AVClass *cls = c->priv_class;
        if (!(k ? o->preset[0] != '\0' : o->crf >= 0))
            continue;
        const AVOption *opt = cls ? av_opt_find((void *)&cls, key, NULL, 0, AV_OPT_SEARCH_FAKE_OBJ) : NULL;
        if (!opt)
            return rr_fail(e, RR_EXIT_USAGE, "output.%s: %s has no %s option", key, c->name, key);
        if (option_takes(c, opt, key, o, e) < 0)
            return -1;
    }
    return 0;
}

/* --validate: what video_open would refuse, with nothing made. */
static int video_check(const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    const struct container *ct;
    const AVCodec *codec;
    const AVOutputFormat *ofmt;
    enum AVPixelFormat pix;
    if (video_format(o, p->alpha != ALPHA_NONE, &ct, &codec, &ofmt, &pix, e) < 0)
        return -1;
    return video_settings(codec, o, p, pix, e);
}

/* A pix_fmt of more than 8 bits is made from the 16-bit render; render.alpha
 * asks for the alpha plane. */
static int video_needs(const struct output_config *o, const struct scene *sc)
{
    const struct container *ct;
    const AVCodec *codec;
    const AVOutputFormat *ofmt;
    enum AVPixelFormat pix;
    struct rr_err e;
    bool alpha = sc->render.alpha != ALPHA_NONE;
    if (video_format(o, alpha, &ct, &codec, &ofmt, &pix, &e) < 0)
        return 0;   /* open fails with the reason */
    if (pix == AV_PIX_FMT_YUV420P && !alpha)   /* the renderer's yuv420p where it scales */
        return RENDER_NEED_YUV420;
    return (pix_deep_bits(pix) ? RENDER_NEED_RGB16 : 0) | (alpha ? RENDER_NEED_ALPHA : 0);
}

/* x264's presets (x264's common/base.c, x264_param_apply_preset): frames of
 * rate-control lookahead, B-frames and reference frames. */
static const struct { const char *name; int lookahead, bframes, refs; } x264_presets[] = {
    { "ultrafast", 0, 0, 1 }, { "superfast", 0, 3, 1 }, { "veryfast", 10, 3, 1 },
    { "faster", 20, 3, 2 },   { "fast", 30, 3, 2 },     { "medium", 40, 3, 3 },
    { "slow", 50, 3, 5 },     { "slower", 60, 3, 8 },   { "veryslow", 60, 8, 16 },
    { "placebo", 60, 16, 16 },
};

/* The frames an encoder holds at once, fitted to libx264's peaks
 * (tests/cli/test_budget.sh): the frames it looks ahead, its B- and
 * reference frames and, with frame threads, the lookahead thread's queue,
 * and 1.5 for each frame thread (the frame it encodes, the one it
 * reconstructs, their share of the lookahead); never more than the clip
 * plus 2 from the start and 2 for each frame thread. The frame threads:
 * -j's count when given (the encoder's thread_count), else libavcodec's
 * automatic count, 1.5 a core. *name: the encoder (output.codec, or the
 * container's default). */
static uint64_t encoder_frames(const struct scene *sc, const struct sink_budget *b, const char **name)
{
    const char *codec = sc->output.codec[0] ? sc->output.codec : "libx264";
    for (size_t i = 0; !sc->output.codec[0] && i < sizeof containers / sizeof containers[0]; i++)
        if (!strcasecmp(sink_extension(sc->output.path), containers[i].ext))
            codec = containers[i].codec;
    *name = codec;
    const int tx = b->encoder_threads > 0 ? b->encoder_threads : (3 * b->threads + 1) / 2;
    int held = 32;   /* any other encoder */
    if (!strcmp(codec, "libx264")) {
        const char *preset = sc->output.preset[0] ? sc->output.preset : "medium";
        size_t k = 5;
        for (size_t i = 0; i < sizeof x264_presets / sizeof x264_presets[0]; i++)
            if (!strcmp(preset, x264_presets[i].name))
                k = i;
        held = x264_presets[k].lookahead + x264_presets[k].bframes + x264_presets[k].refs + 4 + (tx > 1 ? 16 : 0);
    }
    const uint64_t all = (uint64_t)held + (3 * (uint64_t)tx + 1) / 2;
    const uint64_t clip = (sc->time.frames > 0 ? (uint64_t)sc->time.frames : 0) + 2 + 2 * (uint64_t)tx;
    return clip < all ? clip : all;
}

#define ENCODER_FIXED ((uint64_t)20 << 20)

/* The memory budget (sink_ops.bytes): the encoder's frames in flight
 * (yuv420p with its 32-pixel borders, the lookahead's half-size planes,
 * the reference frames' interpolated planes and motion data: 3.75 bytes
 * per padded pixel on average), its fixed tables and threads, and the
 * padded frame the sink hands it (4 a pixel, rows padded by 64). */
static uint64_t video_bytes(const struct scene *sc, const struct sink_budget *b, char *what, size_t size)
{
    const char *codec;
    const uint64_t held = encoder_frames(sc, b, &codec);
    const uint64_t frame = budget_mul(15, budget_mul(b->width + 64, b->height + 64)) / 4;
    snprintf(what, size, "the %s encoder's %llu frames in flight", codec, (unsigned long long)held);
    return budget_add(budget_add(ENCODER_FIXED, budget_mul(held, frame)),
                      budget_mul(4, budget_mul(b->width + 64, b->height)));
}

/* A frame the renderer made as yuv420p (frame.h: scaled, even sizes, so no
 * padding) into the encoder's frame. */
static void copy_yuv(AVFrame *f, const struct frame *fr)
{
    const uint8_t *in = fr->yuv;
    for (int k = 0; k < 3; k++) {
        int w = k ? fr->width / 2 : fr->width, h = k ? fr->height / 2 : fr->height;
        for (int y = 0; y < h; y++, in += w)
            memcpy(f->data[k] + (ptrdiff_t)y * f->linesize[k], in, (size_t)w);
    }
}

static int video_open(void *priv, const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    struct video_sink *s = priv;
    int ret;
    AVDictionary *opts = NULL, *mopts = NULL;
    s->path = o->path;
    s->width = p->width;
    s->height = p->height;
    s->next_pts = p->first;   /* timestamps as in the whole run (--range) */

    const struct container *ct;
    const AVCodec *codec;
    const AVOutputFormat *ofmt;
    enum AVPixelFormat pix;
    bool alpha = p->alpha != ALPHA_NONE;
    if (video_format(o, alpha, &ct, &codec, &ofmt, &pix, e) < 0 || video_settings(codec, o, p, pix, e) < 0)
        return -1;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(pix);
    bool hi = pix_deep_bits(pix);
    s->src = hi ? (alpha ? AV_PIX_FMT_RGBA64 : AV_PIX_FMT_RGB48) : (alpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24);
    s->bpp = (hi ? 2 : 1) * (alpha ? 4 : 3);

    /* Odd sizes with subsampled chroma: pad by repeating the last column/row. */
    s->ew = p->width + (desc->log2_chroma_w ? p->width & 1 : 0);
    s->eh = p->height + (desc->log2_chroma_h ? p->height & 1 : 0);
    if (s->ew != p->width || s->eh != p->height) {
        s->pad = av_malloc((size_t)s->ew * s->eh * s->bpp);
        if (!s->pad)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    }

    s->enc = avcodec_alloc_context3(codec);
    if (!s->enc)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    AVRational rate = av_d2q(p->fps, 100000);
    s->enc->width = s->ew;
    s->enc->height = s->eh;
    s->enc->pix_fmt = pix;
    s->enc->time_base = av_inv_q(rate);
    s->enc->framerate = rate;
    s->enc->sample_aspect_ratio = (AVRational){ 1, 1 };
    s->enc->thread_count = p->threads > 0 ? p->threads : 0;
    bool is_rgb = desc->flags & AV_PIX_FMT_FLAG_RGB;
    if (hi && !is_rgb && !(s->rescaled = av_malloc((size_t)s->ew * s->eh * s->bpp))) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
        goto fail;
    }
    if (!is_rgb) {
        /* BT.709 limited range, converted so and tagged so (what players assume for HD). */
        s->enc->colorspace = AVCOL_SPC_BT709;
        s->enc->color_primaries = AVCOL_PRI_BT709;
        s->enc->color_trc = AVCOL_TRC_BT709;
        s->enc->color_range = AVCOL_RANGE_MPEG;
        /* Subsampled chroma is sited at the centre of the pixels it covers:
         * sinks/yuv420.c takes the 2x2 mean, and libswscale (the other
         * formats) the mean of each horizontal pair and a filter centred
         * between the rows. Untagged, H.264 players assume left siting. */
        if (desc->log2_chroma_w || desc->log2_chroma_h)
            s->enc->chroma_sample_location = AVCHROMA_LOC_CENTER;
    }
    encoder_options(&opts, s->enc, codec, o);
    if (outfile_begin(&s->file, o->path, p->overwrite, e) < 0)
        goto fail;
    const char *tmp = outfile_url(&s->file);   /* "file:...": never another protocol */
    /* The format comes from the target's extension, not the temporary name. */
    ret = avformat_alloc_output_context2(&s->oc, NULL, ct->format, tmp);
    if (ret < 0 || !s->oc) {
        sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot create the muxer", ret < 0 ? ret : AVERROR(ENOMEM));
        goto fail;
    }
    if (s->oc->oformat->flags & AVFMT_GLOBALHEADER)
        s->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;

    struct sink_stderr held;
    sink_stderr_hold(&held);
    ret = avcodec_open2(s->enc, codec, &opts);
    sink_stderr_release(&held);
    if (ret < 0) {
        char what[128];
        snprintf(what, sizeof what, "cannot open the %s encoder", codec->name);
        /* Options the encoder refuses are the scene's (exit 2); anything else,
         * such as its threads failing to start (x264: a generic external
         * error), is a run-time failure. */
        bool bad_option = ret == AVERROR(EINVAL) || ret == AVERROR(ERANGE) || ret == AVERROR_OPTION_NOT_FOUND
                          || ret == AVERROR_INVALIDDATA || ret == AVERROR_PATCHWELCOME;
        sink_av_fail(e, bad_option ? RR_EXIT_USAGE : RR_EXIT_RUNTIME, o->path, what, ret);
        goto fail;
    }
    const AVDictionaryEntry *left = av_dict_get(opts, "", NULL, AV_DICT_IGNORE_SUFFIX);
    if (left) {
        rr_fail(e, RR_EXIT_USAGE, "output.%s: %s has no %s option", left->key, codec->name, left->key);
        goto fail;
    }

    s->st = avformat_new_stream(s->oc, NULL);
    if (!s->st) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
        goto fail;
    }
    s->st->time_base = s->enc->time_base;
    s->st->avg_frame_rate = rate;
    ret = avcodec_parameters_from_context(s->st->codecpar, s->enc);
    if (ret < 0) {
        sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot set the stream parameters", ret);
        goto fail;
    }
    /* HEVC in mp4/mov: 'hvc1' is the tag Apple players and browsers accept;
     * H.264 gets 'avc1' from the muxer by default. */
    if (codec->id == AV_CODEC_ID_HEVC && (strcmp(ct->format, "mp4") == 0 || strcmp(ct->format, "mov") == 0))
        s->st->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');

    ret = avio_open(&s->oc->pb, tmp, AVIO_FLAG_WRITE);
    if (ret < 0) {
        sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot open the temporary file", ret);
        goto fail;
    }
    if (strcmp(ct->format, "mp4") == 0 || strcmp(ct->format, "mov") == 0)
        av_dict_set(&mopts, "movflags", "+faststart", 0);
    ret = avformat_write_header(s->oc, &mopts);
    if (ret < 0) {
        sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot write the header", ret);
        goto fail;
    }

    s->frame = av_frame_alloc();
    s->pkt = av_packet_alloc();
    if (!s->frame || !s->pkt) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
        goto fail;
    }
    s->frame->format = pix;
    s->frame->width = s->ew;
    s->frame->height = s->eh;
    ret = av_frame_get_buffer(s->frame, 0);
    if (ret < 0) {
        sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot allocate a frame", ret);
        goto fail;
    }
    /* The conversion to the encoder's format runs on the writer thread, just
     * before the encoder. yuv420p (every default but ffv1's) is ours
     * (sinks/yuv420.c): exact, and several times faster than libswscale's
     * exact path on one thread. Other formats: libswscale. */
    if ((pix != AV_PIX_FMT_YUV420P || s->src != AV_PIX_FMT_RGB24)
        && !(s->sws = open_sws(s->ew, s->eh, s->src, pix, p->threads, is_rgb))) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: libswscale cannot convert %s to %s", o->path, av_get_pix_fmt_name(s->src),
                av_get_pix_fmt_name(pix));
        goto fail;
    }
    av_dict_free(&opts);
    av_dict_free(&mopts);
    return 0;
fail:
    av_dict_free(&opts);
    av_dict_free(&mopts);
    return -1;
}

/* Sends one frame (NULL: flush) and writes every packet that comes out,
 * counting them (video_frames_done). */
static int encode(struct video_sink *s, AVFrame *frame, struct rr_err *e)
{
    return sink_encode(s->enc, s->oc, s->st, s->pkt, frame, s->path, "", &s->packets, e);
}

static long video_frames_done(void *priv)
{
    struct video_sink *s = priv;
    return atomic_load(&s->packets);
}

/* libswscale's rgb48 / rgba64 to YUV reads a 16-bit sample as an 8-bit one
 * times 256 (its white is 65280): 65535 gave Y 943 instead of 940 at 10
 * bits. So the colour samples go in as round(v * 65280 / 65535), which puts
 * 0..65535 on its 0..65280; alpha is read as it is. n pixels of ch samples. */
static void to_sws16(const uint16_t *in, uint16_t *out, size_t n, int ch)
{
    for (size_t i = 0; i < n * (size_t)ch; i++)
        out[i] = (int)(i % (size_t)ch) < 3 ? (uint16_t)(((uint32_t)in[i] * 65280u + 32767u) / 65535u) : in[i];
}

/* The frame's rgb24 or deep picture into the encoder's frame: padded to
 * even sizes for subsampled chroma, then converted. Returns 0, or -1 with e
 * filled. */
static int convert(struct video_sink *s, const struct frame *fr, struct rr_err *e)
{
    const uint8_t *src = fr->rgb;
    if (s->src != AV_PIX_FMT_RGB24) {
        if (!fr->deep || fr->deep_channels * fr->deep_bits / 8 != s->bpp)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: frame %ld lacks the %s picture", s->path, fr->index,
                           av_get_pix_fmt_name(s->src));
        src = fr->deep;
    }
    const int bpp = s->bpp;
    int src_stride = s->width * bpp;
    if (s->pad) {
        size_t row = (size_t)s->width * bpp, prow = (size_t)s->ew * bpp;
        const uint8_t *frame = src;
        for (int y = 0; y < s->eh; y++) {
            const uint8_t *in = frame + (size_t)(y < s->height ? y : s->height - 1) * row;
            uint8_t *out = s->pad + (size_t)y * prow;
            memcpy(out, in, row);
            if (s->ew > s->width)
                memcpy(out + row, in + row - bpp, (size_t)bpp);
        }
        src = s->pad;
        src_stride = s->ew * bpp;
    }
    if (s->rescaled) {
        to_sws16((const uint16_t *)src, s->rescaled, (size_t)s->ew * s->eh, bpp / 2);
        src = (const uint8_t *)s->rescaled;
    }
    if (!s->sws) {
        AVFrame *f = s->frame;
        yuv420_from_rgb24(src, src_stride, s->ew, s->eh, f->data[0], f->linesize[0], f->data[1], f->linesize[1],
                          f->data[2], f->linesize[2]);
    } else {
        const uint8_t *srcs[4] = { src, NULL, NULL, NULL };
        int strides[4] = { src_stride, 0, 0, 0 };
        if (sws_scale(s->sws, srcs, strides, 0, s->eh, s->frame->data, s->frame->linesize) != s->eh)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: libswscale failed on frame %ld", s->path, fr->index);
    }
    return 0;
}

static int video_write(void *priv, const struct frame *fr, struct rr_err *e)
{
    struct video_sink *s = priv;
    if (fr->width != s->width || fr->height != s->height)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: frame %ld is %dx%d, the file was opened for %dx%d", s->path,
                       fr->index, fr->width, fr->height, s->width, s->height);
    int ret = av_frame_make_writable(s->frame);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "cannot get a frame buffer", ret);
    /* yuv420p from the renderer (it scaled the picture as yuv420p), or converted here. */
    if (fr->yuv && !s->sws)
        copy_yuv(s->frame, fr);
    else if (convert(s, fr, e) < 0)
        return -1;
    s->frame->pts = s->next_pts++;
    return encode(s, s->frame, e);
}

static int video_close(void *priv, struct rr_err *e)
{
    struct video_sink *s = priv;
    if (encode(s, NULL, e) < 0)
        return -1;
    return sink_mux_finish(s->oc, &s->file, s->path, e);
}

static void video_free(void *priv)
{
    struct video_sink *s = priv;
    sink_mux_free(&s->oc);
    struct sink_stderr held;
    sink_stderr_hold(&held);
    avcodec_free_context(&s->enc);
    sink_stderr_release(&held);
    av_frame_free(&s->frame);
    av_packet_free(&s->pkt);
    sws_freeContext(s->sws);
    s->sws = NULL;
    av_freep(&s->pad);
    av_freep(&s->rescaled);
    outfile_abort(&s->file);
}

const struct sink_ops sink_video_ops = {
    .name = "video",
    .noun = "a video",
    .keys = (const char *const[]){ "codec", "crf", "preset", "pix_fmt", "bit_depth", NULL },
    .exts = "mp4 mkv mov webm",
    .help = "video (libavcodec)",
    .libav = SINK_LIBAV_CODEC | SINK_LIBAV_FORMAT,
    .priv_size = sizeof(struct video_sink),
    .deep = true,
    .needs = video_needs,
    .bytes = video_bytes,
    .check = video_check,
    .open = video_open,
    .write = video_write,
    .frames_done = video_frames_done,
    .close = video_close,
    .free = video_free,
    .join = join_videos,
    .slow_close = true,
};

/* lazyav.c: libavcodec, libavformat and libavfilter loaded on first use.
 *
 * Linked into the program only (not libripple.a: the tests and the bench
 * link the libraries as usual). The program is linked without these three,
 * and every function of theirs it calls is defined here with the libraries'
 * own prototypes (the headers are included, so the compiler checks each
 * definition against them): its first call loads the library by its soname
 * (dlopen), finds the function (dlsym) and calls it; later calls go straight
 * through the pointer found. With the libraries they pull in (about 170
 * shared objects in all), loading and relocating them is most of a run's
 * start-up, which a run that writes no video, GIF or mkv (hashes, PNG
 * sequences, .npy, EXR) and reads no video never needs. libavutil and
 * libswscale (the hashes, the scaler) are linked as usual.
 *
 * A library that cannot be loaded, needs what the libraries beside it do
 * not have (the wrong version), or lacks a function the program calls (all
 * of a library's are found when it loads), is a broken installation: one
 * line naming it and the loader's reason or the function, the run's
 * temporaries removed, exit status 1.
 * A new call into one of these libraries needs its line below (the link
 * fails with an undefined reference until it has one). */
#include "outfile.h"
#include "rr_err.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>

enum lazy_lib { LIB_AVCODEC, LIB_AVFORMAT, LIB_AVFILTER, LIB_COUNT };

static const char *const sonames[LIB_COUNT] = {
    [LIB_AVCODEC] = "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    [LIB_AVFORMAT] = "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    [LIB_AVFILTER] = "libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR),
};

static void *handles[LIB_COUNT];
static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;

static _Noreturn void load_failed(const char *what)
{
    fprintf(stderr, "ripplerender: %s\n", what);
    outfile_remove_temps();
    outfile_remove_made_dirs();
    exit(RR_EXIT_RUNTIME);
}

/* Each function of the list below: its library, name and the pointer its
 * calls go through. The LAZY lines put one in the section lazyav_fns, whose
 * bounds the linker gives as __start_/__stop_lazyav_fns, so that loading a
 * library resolves all of its functions at once. */
struct lazy_fn {
    enum lazy_lib lib;
    const char *name;
    void **slot;
} __attribute__((aligned(32)));   /* its size: no gap between the entries (the compiler may align an object of
                                     24 bytes to 16) */
extern const struct lazy_fn __start_lazyav_fns[], __stop_lazyav_fns[];

/* The pointer in *slot, a function of library `lib`: on the first call into
 * the library, loads it and finds every function of the list in it, so that
 * one it lacks (an older build of the same soname) fails here, at the
 * library's first use (an output's opening, --validate's sink_load_libav),
 * never later in the run. */
static void *lazy_symbol(enum lazy_lib lib, void **slot)
{
    char line[512] = "";
    pthread_mutex_lock(&load_mu);
    if (!handles[lib]) {
        /* RTLD_NOW: every symbol the library and those it pulls in need
         * is bound here, so that one of the wrong version (built against a
         * newer libavutil) fails this dlopen in one line, not a later call
         * with the loader's "symbol lookup error" and status 127. */
        void *h = dlopen(sonames[lib], RTLD_NOW | RTLD_GLOBAL);
        const char *why = h ? NULL : dlerror();
        if (!h)
            snprintf(line, sizeof line, "%s", why ? why : sonames[lib]);
        for (const struct lazy_fn *e = __start_lazyav_fns; h && !line[0] && e < __stop_lazyav_fns; e++) {
            void *f = e->lib == lib ? dlsym(h, e->name) : NULL;
            if (e->lib == lib && !f)
                snprintf(line, sizeof line, "%s: no function %s", sonames[lib], e->name);
            else if (f)
                __atomic_store_n(e->slot, f, __ATOMIC_RELEASE);
        }
        handles[lib] = line[0] ? NULL : h;
    }
    pthread_mutex_unlock(&load_mu);
    if (line[0])
        load_failed(line);
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/* Defines `name` as a call of the library's function through the pointer
 * its library's loading found (a second thread finding it at once finds the
 * same), listed in lazyav_fns. */
#define LAZY_FIND(lib, name)                                                                              \
    static void *fn_;                                                                                     \
    static const struct lazy_fn entry_ __attribute__((used, section("lazyav_fns"))) = { lib, #name, &fn_ }; \
    void *f_ = __atomic_load_n(&fn_, __ATOMIC_ACQUIRE);                                                   \
    if (!f_)                                                                                              \
        f_ = lazy_symbol(lib, entry_.slot);                                                               \
    __typeof__(name) *real_;                                                                              \
    memcpy(&real_, &f_, sizeof real_);
#define LAZY(lib, ret, name, params, args) \
    ret name params                        \
    {                                      \
        LAZY_FIND(lib, name)               \
        return real_ args;                 \
    }
#define LAZY_VOID(lib, name, params, args) \
    void name params                       \
    {                                      \
        LAZY_FIND(lib, name)               \
        real_ args;                        \
    }

LAZY(LIB_AVCODEC, int, av_codec_is_encoder, (const AVCodec *codec), (codec))
LAZY(LIB_AVCODEC, const AVCodec *, av_codec_iterate, (void **opaque), (opaque))
LAZY(LIB_AVCODEC, AVPacket *, av_packet_alloc, (void), ())
LAZY_VOID(LIB_AVCODEC, av_packet_free, (AVPacket **pkt), (pkt))
LAZY_VOID(LIB_AVCODEC, av_packet_rescale_ts, (AVPacket *pkt, AVRational tb_src, AVRational tb_dst), (pkt, tb_src, tb_dst))
LAZY_VOID(LIB_AVCODEC, av_packet_unref, (AVPacket *pkt), (pkt))
LAZY(LIB_AVCODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec))
LAZY(LIB_AVCODEC, const AVCodecDescriptor *, avcodec_descriptor_get, (enum AVCodecID id), (id))
LAZY(LIB_AVCODEC, const AVCodecDescriptor *, avcodec_descriptor_get_by_name, (const char *name), (name))
LAZY(LIB_AVCODEC, enum AVPixelFormat, avcodec_find_best_pix_fmt_of_list, (const enum AVPixelFormat *pix_fmt_list, enum AVPixelFormat src_pix_fmt, int has_alpha, int *loss_ptr), (pix_fmt_list, src_pix_fmt, has_alpha, loss_ptr))
LAZY(LIB_AVCODEC, const AVCodec *, avcodec_find_encoder, (enum AVCodecID id), (id))
LAZY(LIB_AVCODEC, const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name))
LAZY_VOID(LIB_AVCODEC, avcodec_flush_buffers, (AVCodecContext *avctx), (avctx))
LAZY_VOID(LIB_AVCODEC, avcodec_free_context, (AVCodecContext **avctx), (avctx))
LAZY(LIB_AVCODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id))
LAZY(LIB_AVCODEC, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options), (avctx, codec, options))
LAZY(LIB_AVCODEC, int, avcodec_parameters_copy, (AVCodecParameters *dst, const AVCodecParameters *src), (dst, src))
LAZY(LIB_AVCODEC, int, avcodec_parameters_from_context, (AVCodecParameters *par, const AVCodecContext *codec), (par, codec))
LAZY(LIB_AVCODEC, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), (codec, par))
LAZY(LIB_AVCODEC, unsigned int, avcodec_pix_fmt_to_codec_tag, (enum AVPixelFormat pix_fmt), (pix_fmt))
LAZY(LIB_AVCODEC, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame))
LAZY(LIB_AVCODEC, int, avcodec_receive_packet, (AVCodecContext *avctx, AVPacket *avpkt), (avctx, avpkt))
LAZY(LIB_AVCODEC, int, avcodec_send_frame, (AVCodecContext *avctx, const AVFrame *frame), (avctx, frame))
LAZY(LIB_AVCODEC, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt))
LAZY(LIB_AVCODEC, unsigned, avcodec_version, (void), ())
LAZY(LIB_AVFORMAT, int, av_find_best_stream, (AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, const AVCodec **decoder_ret, int flags), (ic, type, wanted_stream_nb, related_stream, decoder_ret, flags))
LAZY(LIB_AVFORMAT, const AVOutputFormat *, av_guess_format, (const char *short_name, const char *filename, const char *mime_type), (short_name, filename, mime_type))
LAZY(LIB_AVFORMAT, AVRational, av_guess_frame_rate, (AVFormatContext *ctx, AVStream *stream, AVFrame *frame), (ctx, stream, frame))
LAZY(LIB_AVFORMAT, int, av_interleaved_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))
LAZY(LIB_AVFORMAT, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))
LAZY(LIB_AVFORMAT, int, av_seek_frame, (AVFormatContext *s, int stream_index, int64_t timestamp, int flags), (s, stream_index, timestamp, flags))
LAZY(LIB_AVFORMAT, int, av_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))
LAZY(LIB_AVFORMAT, int, av_write_trailer, (AVFormatContext *s), (s))
LAZY(LIB_AVFORMAT, int, avformat_alloc_output_context2, (AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename), (ctx, oformat, format_name, filename))
LAZY_VOID(LIB_AVFORMAT, avformat_close_input, (AVFormatContext **s), (s))
LAZY(LIB_AVFORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options))
LAZY_VOID(LIB_AVFORMAT, avformat_free_context, (AVFormatContext *s), (s))
LAZY(LIB_AVFORMAT, AVStream *, avformat_new_stream, (AVFormatContext *s, const AVCodec *c), (s, c))
LAZY(LIB_AVFORMAT, int, avformat_open_input, (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), (ps, url, fmt, options))
LAZY(LIB_AVFORMAT, int, avformat_query_codec, (const AVOutputFormat *ofmt, enum AVCodecID codec_id, int std_compliance), (ofmt, codec_id, std_compliance))
LAZY(LIB_AVFORMAT, unsigned, avformat_version, (void), ())
LAZY(LIB_AVFORMAT, int, avformat_write_header, (AVFormatContext *s, AVDictionary **options), (s, options))
LAZY(LIB_AVFORMAT, AVIOContext *, avio_alloc_context,
     (unsigned char *buffer, int buffer_size, int write_flag, void *opaque,
      int (*read_packet)(void *opaque, uint8_t *buf, int buf_size),
      int (*write_packet)(void *opaque, uint8_t *buf, int buf_size),
      int64_t (*seek)(void *opaque, int64_t offset, int whence)),
     (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek))
LAZY(LIB_AVFORMAT, int, avio_closep, (AVIOContext **s), (s))
LAZY_VOID(LIB_AVFORMAT, avio_context_free, (AVIOContext **s), (s))
LAZY_VOID(LIB_AVFORMAT, avio_flush, (AVIOContext *s), (s))
LAZY(LIB_AVFORMAT, int, avio_open, (AVIOContext **s, const char *url, int flags), (s, url, flags))
LAZY(LIB_AVFILTER, int, av_buffersink_get_frame, (AVFilterContext *ctx, AVFrame *frame), (ctx, frame))
LAZY(LIB_AVFILTER, int, av_buffersrc_add_frame, (AVFilterContext *ctx, AVFrame *frame), (ctx, frame))
LAZY(LIB_AVFILTER, const AVFilter *, avfilter_get_by_name, (const char *name), (name))
LAZY(LIB_AVFILTER, AVFilterGraph *, avfilter_graph_alloc, (void), ())
LAZY(LIB_AVFILTER, int, avfilter_graph_config, (AVFilterGraph *graphctx, void *log_ctx), (graphctx, log_ctx))
LAZY(LIB_AVFILTER, int, avfilter_graph_create_filter, (AVFilterContext **filt_ctx, const AVFilter *filt, const char *name, const char *args, void *opaque, AVFilterGraph *graph_ctx), (filt_ctx, filt, name, args, opaque, graph_ctx))
LAZY_VOID(LIB_AVFILTER, avfilter_graph_free, (AVFilterGraph **graph), (graph))
LAZY(LIB_AVFILTER, int, avfilter_graph_parse_ptr, (AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs, AVFilterInOut **outputs, void *log_ctx), (graph, filters, inputs, outputs, log_ctx))
LAZY(LIB_AVFILTER, AVFilterInOut *, avfilter_inout_alloc, (void), ())
LAZY_VOID(LIB_AVFILTER, avfilter_inout_free, (AVFilterInOut **inout), (inout))
LAZY(LIB_AVFILTER, unsigned, avfilter_version, (void), ())

/* lazyav.c: libavcodec, libavformat and libavfilter loaded on first use.
 *
 * Linked into the program only (not libripple.a: the tests and the bench
 * link the libraries as usual). The program is linked without these three,
 * and every function of theirs it calls is defined here with the libraries'
 * own prototypes (the headers are included, so the compiler checks each
 * definition against them): a call goes through the pointer that
 * lazyav_use (or, outside the uses, its own first call) found by loading
 * the library by its soname (dlopen) and finding the function (dlsym). With the libraries they pull in (about 170
 * shared objects in all), loading and relocating them is most of a run's
 * start-up, which a run that writes no video, GIF or mkv (hashes, PNG
 * sequences, .npy, EXR) and reads no video never needs. libavutil and
 * libswscale (the hashes, the scaler) are linked as usual.
 *
 * A library that cannot be loaded, needs what the libraries beside it do
 * not have (the wrong version), or lacks a function the program calls, is a
 * broken installation: one line naming it and the loader's reason or the
 * function, the run's temporaries removed, exit status 1. Functions are
 * found by use (sink.h's LAZYAV_* bits: writing an output, reading a
 * video, joining videos, --manifest's versions): before a use's first
 * call, lazyav_use finds every function of it, so a library that lacks one
 * fails there, never in the middle of the run, and a function only another
 * use calls (join's, say) does not fail a run that never makes that use.
 * A new call into one of these libraries needs its line below with its
 * uses (the link fails with an undefined reference until it has one;
 * tests/cli/test_startup.sh until the uses match the files that call it). */
#include "outfile.h"
#include "rr_err.h"
#include "sink.h"

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

/* Each function of the list below: its library, the uses that call it
 * (LAZYAV_* bits), its name and the pointer its calls go through. The LAZY
 * lines put one in the section lazyav_fns, whose bounds the linker gives as
 * __start_/__stop_lazyav_fns, so that lazyav_use finds a use's functions at
 * once. */
struct lazy_fn {
    enum lazy_lib lib;
    unsigned uses;
    const char *name;
    void **slot;
} __attribute__((aligned(32)));   /* its size: no gap between the entries (the compiler may align an object of
                                     24 bytes to 16) */
extern const struct lazy_fn __start_lazyav_fns[], __stop_lazyav_fns[];

/* The LAZY lines' names for the uses. */
#define USE_OUTPUT LAZYAV_OUTPUT
#define USE_READ LAZYAV_READ
#define USE_JOIN LAZYAV_JOIN
#define USE_MANIFEST LAZYAV_MANIFEST

/* Loads library lib, once (under load_mu). RTLD_NOW: every symbol the
 * library and those it pulls in need is bound here, so that one of the
 * wrong version (built against a newer libavutil) fails this dlopen in one
 * line, not a later call with the loader's "symbol lookup error" and status
 * 127. Returns its handle, or NULL with the loader's reason in line. */
static void *load(enum lazy_lib lib, char line[static 512])
{
    if (!handles[lib]) {
        handles[lib] = dlopen(sonames[lib], RTLD_NOW | RTLD_GLOBAL);
        const char *why = handles[lib] ? NULL : dlerror();
        if (!handles[lib])
            snprintf(line, 512, "%s", why ? why : sonames[lib]);
    }
    return handles[lib];
}

/* Finds f's function in its library, loaded (under load_mu). Returns 0, or
 * -1 with line naming the library and the function. */
static int find(const struct lazy_fn *f, char line[static 512])
{
    void *p = dlsym(handles[f->lib], f->name);
    if (!p) {
        snprintf(line, 512, "%s: no function %s", sonames[f->lib], f->name);
        return -1;
    }
    __atomic_store_n(f->slot, p, __ATOMIC_RELEASE);
    return 0;
}

void lazyav_use(unsigned uses, unsigned libs)
{
    static const unsigned bit[LIB_COUNT] = { SINK_LIBAV_CODEC, SINK_LIBAV_FORMAT, SINK_LIBAV_FILTER };
    char line[512] = "";
    pthread_mutex_lock(&load_mu);
    for (int lib = 0; lib < LIB_COUNT && !line[0]; lib++)
        if (libs & bit[lib])
            (void)load((enum lazy_lib)lib, line);
    for (const struct lazy_fn *f = __start_lazyav_fns; !line[0] && f < __stop_lazyav_fns; f++)
        if ((libs & bit[f->lib]) && (f->uses & uses) && !__atomic_load_n(f->slot, __ATOMIC_ACQUIRE))
            (void)find(f, line);
    pthread_mutex_unlock(&load_mu);
    if (line[0])
        load_failed(line);
}

/* The pointer of f's function, found now when no lazyav_use has found it
 * yet (a call before its use's, as the memory budget asking a video kind
 * what it needs, before the output opens): loads the library if need be
 * and fails in one line if it lacks the function. */
static void *lazy_symbol(const struct lazy_fn *f)
{
    char line[512] = "";
    pthread_mutex_lock(&load_mu);
    if (!__atomic_load_n(f->slot, __ATOMIC_ACQUIRE) && load(f->lib, line))
        (void)find(f, line);
    pthread_mutex_unlock(&load_mu);
    if (line[0])
        load_failed(line);
    return __atomic_load_n(f->slot, __ATOMIC_ACQUIRE);
}

/* Defines `name` as a call of the library's function through the pointer
 * lazyav_use (or its own first call) found (a second thread finding it at
 * once finds the same), listed in lazyav_fns with the uses (LAZYAV_* bits)
 * whose code calls it: tests/cli/test_startup.sh checks them against the
 * files that call it. */
#define LAZY_FIND(lib, uses, name)                                                                        \
    static void *fn_;                                                                                     \
    static const struct lazy_fn entry_ __attribute__((used, section("lazyav_fns"))) = { lib, uses, #name, &fn_ }; \
    void *f_ = __atomic_load_n(&fn_, __ATOMIC_ACQUIRE);                                                   \
    if (!f_)                                                                                              \
        f_ = lazy_symbol(&entry_);                                                                        \
    __typeof__(name) *real_;                                                                              \
    memcpy(&real_, &f_, sizeof real_);
#define LAZY(lib, ret, name, params, args, uses) \
    ret name params                              \
    {                                            \
        LAZY_FIND(lib, uses, name)               \
        return real_ args;                       \
    }
#define LAZY_VOID(lib, name, params, args, uses) \
    void name params                             \
    {                                            \
        LAZY_FIND(lib, uses, name)               \
        real_ args;                              \
    }

LAZY(LIB_AVCODEC, int, av_codec_is_encoder, (const AVCodec *codec), (codec), USE_OUTPUT)
LAZY(LIB_AVCODEC, const AVCodec *, av_codec_iterate, (void **opaque), (opaque), USE_OUTPUT)
LAZY(LIB_AVCODEC, AVPacket *, av_packet_alloc, (void), (), USE_OUTPUT | USE_READ | USE_JOIN)
LAZY_VOID(LIB_AVCODEC, av_packet_free, (AVPacket **pkt), (pkt), USE_OUTPUT | USE_READ | USE_JOIN)
LAZY_VOID(LIB_AVCODEC, av_packet_rescale_ts, (AVPacket *pkt, AVRational tb_src, AVRational tb_dst), (pkt, tb_src, tb_dst), USE_OUTPUT | USE_JOIN)
LAZY_VOID(LIB_AVCODEC, av_packet_unref, (AVPacket *pkt), (pkt), USE_OUTPUT | USE_READ | USE_JOIN)
LAZY(LIB_AVCODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec), USE_OUTPUT | USE_READ)
LAZY(LIB_AVCODEC, const AVCodecDescriptor *, avcodec_descriptor_get, (enum AVCodecID id), (id), USE_READ)
LAZY(LIB_AVCODEC, const AVCodecDescriptor *, avcodec_descriptor_get_by_name, (const char *name), (name), USE_OUTPUT)
LAZY(LIB_AVCODEC, enum AVPixelFormat, avcodec_find_best_pix_fmt_of_list, (const enum AVPixelFormat *pix_fmt_list, enum AVPixelFormat src_pix_fmt, int has_alpha, int *loss_ptr), (pix_fmt_list, src_pix_fmt, has_alpha, loss_ptr), USE_OUTPUT)
LAZY(LIB_AVCODEC, const AVCodec *, avcodec_find_encoder, (enum AVCodecID id), (id), USE_OUTPUT)
LAZY(LIB_AVCODEC, const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name), USE_OUTPUT)
LAZY_VOID(LIB_AVCODEC, avcodec_flush_buffers, (AVCodecContext *avctx), (avctx), USE_READ)
LAZY_VOID(LIB_AVCODEC, avcodec_free_context, (AVCodecContext **avctx), (avctx), USE_OUTPUT | USE_READ)
LAZY(LIB_AVCODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id), USE_JOIN)
LAZY(LIB_AVCODEC, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options), (avctx, codec, options), USE_OUTPUT | USE_READ)
LAZY(LIB_AVCODEC, int, avcodec_parameters_copy, (AVCodecParameters *dst, const AVCodecParameters *src), (dst, src), USE_JOIN)
LAZY(LIB_AVCODEC, int, avcodec_parameters_from_context, (AVCodecParameters *par, const AVCodecContext *codec), (par, codec), USE_OUTPUT)
LAZY(LIB_AVCODEC, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), (codec, par), USE_READ)
LAZY(LIB_AVCODEC, unsigned int, avcodec_pix_fmt_to_codec_tag, (enum AVPixelFormat pix_fmt), (pix_fmt), USE_OUTPUT)
LAZY(LIB_AVCODEC, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame), USE_READ)
LAZY(LIB_AVCODEC, int, avcodec_receive_packet, (AVCodecContext *avctx, AVPacket *avpkt), (avctx, avpkt), USE_OUTPUT)
LAZY(LIB_AVCODEC, int, avcodec_send_frame, (AVCodecContext *avctx, const AVFrame *frame), (avctx, frame), USE_OUTPUT)
LAZY(LIB_AVCODEC, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt), USE_READ)
LAZY(LIB_AVCODEC, unsigned, avcodec_version, (void), (), USE_MANIFEST)
LAZY(LIB_AVFORMAT, int, av_find_best_stream, (AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, const AVCodec **decoder_ret, int flags), (ic, type, wanted_stream_nb, related_stream, decoder_ret, flags), USE_READ)
LAZY(LIB_AVFORMAT, const AVOutputFormat *, av_guess_format, (const char *short_name, const char *filename, const char *mime_type), (short_name, filename, mime_type), USE_OUTPUT | USE_JOIN)
LAZY(LIB_AVFORMAT, AVRational, av_guess_frame_rate, (AVFormatContext *ctx, AVStream *stream, AVFrame *frame), (ctx, stream, frame), USE_JOIN)
LAZY(LIB_AVFORMAT, int, av_interleaved_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt), USE_OUTPUT | USE_JOIN)
LAZY(LIB_AVFORMAT, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt), USE_READ | USE_JOIN)
LAZY(LIB_AVFORMAT, int, av_seek_frame, (AVFormatContext *s, int stream_index, int64_t timestamp, int flags), (s, stream_index, timestamp, flags), USE_READ)
LAZY(LIB_AVFORMAT, int, av_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt), USE_OUTPUT)
LAZY(LIB_AVFORMAT, int, av_write_trailer, (AVFormatContext *s), (s), USE_OUTPUT | USE_JOIN)
LAZY(LIB_AVFORMAT, int, avformat_alloc_output_context2, (AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename), (ctx, oformat, format_name, filename), USE_OUTPUT | USE_JOIN)
LAZY_VOID(LIB_AVFORMAT, avformat_close_input, (AVFormatContext **s), (s), USE_READ | USE_JOIN)
LAZY(LIB_AVFORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options), USE_READ | USE_JOIN)
LAZY_VOID(LIB_AVFORMAT, avformat_free_context, (AVFormatContext *s), (s), USE_OUTPUT | USE_JOIN)
LAZY(LIB_AVFORMAT, AVStream *, avformat_new_stream, (AVFormatContext *s, const AVCodec *c), (s, c), USE_OUTPUT | USE_JOIN)
LAZY(LIB_AVFORMAT, int, avformat_open_input, (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), (ps, url, fmt, options), USE_READ | USE_JOIN)
LAZY(LIB_AVFORMAT, int, avformat_query_codec, (const AVOutputFormat *ofmt, enum AVCodecID codec_id, int std_compliance), (ofmt, codec_id, std_compliance), USE_OUTPUT | USE_JOIN)
LAZY(LIB_AVFORMAT, unsigned, avformat_version, (void), (), USE_MANIFEST)
LAZY(LIB_AVFORMAT, int, avformat_write_header, (AVFormatContext *s, AVDictionary **options), (s, options), USE_OUTPUT | USE_JOIN)
LAZY(LIB_AVFORMAT, AVIOContext *, avio_alloc_context,
     (unsigned char *buffer, int buffer_size, int write_flag, void *opaque,
      int (*read_packet)(void *opaque, uint8_t *buf, int buf_size),
      int (*write_packet)(void *opaque, uint8_t *buf, int buf_size),
      int64_t (*seek)(void *opaque, int64_t offset, int whence)),
     (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek), USE_OUTPUT)
LAZY(LIB_AVFORMAT, int, avio_closep, (AVIOContext **s), (s), USE_OUTPUT | USE_JOIN)
LAZY_VOID(LIB_AVFORMAT, avio_context_free, (AVIOContext **s), (s), USE_OUTPUT)
LAZY_VOID(LIB_AVFORMAT, avio_flush, (AVIOContext *s), (s), USE_OUTPUT)
LAZY(LIB_AVFORMAT, int, avio_open, (AVIOContext **s, const char *url, int flags), (s, url, flags), USE_OUTPUT | USE_JOIN)
LAZY(LIB_AVFILTER, int, av_buffersink_get_frame, (AVFilterContext *ctx, AVFrame *frame), (ctx, frame), USE_OUTPUT)
LAZY(LIB_AVFILTER, int, av_buffersrc_add_frame, (AVFilterContext *ctx, AVFrame *frame), (ctx, frame), USE_OUTPUT)
LAZY(LIB_AVFILTER, const AVFilter *, avfilter_get_by_name, (const char *name), (name), USE_OUTPUT)
LAZY(LIB_AVFILTER, AVFilterGraph *, avfilter_graph_alloc, (void), (), USE_OUTPUT)
LAZY(LIB_AVFILTER, int, avfilter_graph_config, (AVFilterGraph *graphctx, void *log_ctx), (graphctx, log_ctx), USE_OUTPUT)
LAZY(LIB_AVFILTER, int, avfilter_graph_create_filter, (AVFilterContext **filt_ctx, const AVFilter *filt, const char *name, const char *args, void *opaque, AVFilterGraph *graph_ctx), (filt_ctx, filt, name, args, opaque, graph_ctx), USE_OUTPUT)
LAZY_VOID(LIB_AVFILTER, avfilter_graph_free, (AVFilterGraph **graph), (graph), USE_OUTPUT)
LAZY(LIB_AVFILTER, int, avfilter_graph_parse_ptr, (AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs, AVFilterInOut **outputs, void *log_ctx), (graph, filters, inputs, outputs, log_ctx), USE_OUTPUT)
LAZY(LIB_AVFILTER, AVFilterInOut *, avfilter_inout_alloc, (void), (), USE_OUTPUT)
LAZY_VOID(LIB_AVFILTER, avfilter_inout_free, (AVFilterInOut **inout), (inout), USE_OUTPUT)
LAZY(LIB_AVFILTER, unsigned, avfilter_version, (void), (), USE_MANIFEST)

/* bench_yuv.c: milliseconds per 1920x1080 rgb24 -> yuv420p conversion, the
 * video sink's own converter (src/sinks/yuv420.c) against libswscale with
 * the flags the sink used before it (bicubic, ACCURATE_RND, FULL_CHR_H_INT,
 * BITEXACT, BT.709 limited range) on one thread and on every core
 * (threads 0), and libswscale's default flags (bicubic, what the ffmpeg
 * program uses). Best of TRIES runs of REPS conversions each; the picture is
 * a gradient with noise. Also prints the PSNR of ours against the exact
 * libswscale path per plane. Asserts nothing (docs/performance.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include "bench_ref.h"
#include "../unit/gradient_noise.h"
#include "sinks/yuv420.h"

#define W 1920
#define H 1080
#define TRIES 7
#define REPS 10

static AVFrame *yuv_frame(void)
{
    AVFrame *f = av_frame_alloc();
    if (!f)
        return NULL;
    f->format = AV_PIX_FMT_YUV420P;
    f->width = W;
    f->height = H;
    if (av_frame_get_buffer(f, 0) < 0)
        av_frame_free(&f);
    return f;
}

static struct SwsContext *sws_open(int flags, int threads)
{
    struct SwsContext *s = sws_alloc_context();
    if (!s || av_opt_set_int(s, "srcw", W, 0) < 0 || av_opt_set_int(s, "srch", H, 0) < 0
        || av_opt_set_int(s, "dstw", W, 0) < 0 || av_opt_set_int(s, "dsth", H, 0) < 0
        || av_opt_set_int(s, "src_format", AV_PIX_FMT_RGB24, 0) < 0
        || av_opt_set_int(s, "dst_format", AV_PIX_FMT_YUV420P, 0) < 0
        || av_opt_set_int(s, "sws_flags", flags, 0) < 0 || av_opt_set_int(s, "threads", threads, 0) < 0
        || sws_init_context(s, NULL, NULL) < 0) {
        sws_freeContext(s);
        return NULL;
    }
    const int *coefs = sws_getCoefficients(SWS_CS_ITU709);
    sws_setColorspaceDetails(s, coefs, 1, coefs, 0, 0, 1 << 16, 1 << 16);
    return s;
}

/* Best milliseconds per frame; sws NULL: ours. */
static double time_ms(struct SwsContext *sws, const uint8_t *rgb, AVFrame *f)
{
    const uint8_t *srcs[4] = { rgb, NULL, NULL, NULL };
    int strides[4] = { 3 * W, 0, 0, 0 };
    double best = 1e30;
    for (int t = 0; t < TRIES; t++) {
        double t0 = bench_now();
        for (int r = 0; r < REPS; r++) {
            if (sws)
                sws_scale(sws, srcs, strides, 0, H, f->data, f->linesize);
            else
                yuv420_from_rgb24(rgb, 3 * W, W, H, f->data[0], f->linesize[0], f->data[1], f->linesize[1],
                                  f->data[2], f->linesize[2]);
        }
        double ms = 1000 * (bench_now() - t0) / REPS;
        best = ms < best ? ms : best;
    }
    return best;
}

static double psnr(const AVFrame *a, const AVFrame *b, int p)
{
    int w = p ? W / 2 : W, h = p ? H / 2 : H;
    double se = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int d = a->data[p][y * a->linesize[p] + x] - b->data[p][y * b->linesize[p] + x];
            se += d * d;
        }
    return se == 0 ? HUGE_VAL : 10 * log10(255.0 * 255.0 * w * h / se);
}

int main(void)
{
    uint8_t *rgb = malloc((size_t)W * H * 3);
    AVFrame *ours = yuv_frame(), *ref = yuv_frame();
    if (!rgb || !ours || !ref)
        return 1;
    gradient_noise(rgb, 3 * W, W, H);
    const int exact = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT;
    struct SwsContext *s1 = sws_open(exact, 1), *s0 = sws_open(exact, 0), *sd = sws_open(SWS_BICUBIC, 1);
    if (!s1 || !s0 || !sd)
        return 1;
    printf("== rgb24 -> yuv420p, 1920x1080, ms per frame (best of %d x %d)\n", TRIES, REPS);
    printf("%-52s %7.2f ms\n", "ours (src/sinks/yuv420.c), one thread", time_ms(NULL, rgb, ours));
    printf("%-52s %7.2f ms\n", "libswscale, exact flags, threads 1", time_ms(s1, rgb, ref));
    printf("%-52s %7.2f ms\n", "libswscale, exact flags, threads 0 (every core)", time_ms(s0, rgb, ref));
    printf("%-52s %7.2f ms\n", "libswscale, default flags (bicubic), threads 1", time_ms(sd, rgb, ref));
    time_ms(s1, rgb, ref);
    printf("PSNR ours vs libswscale exact: Y %.1f dB, Cb %.1f dB, Cr %.1f dB\n", psnr(ours, ref, 0),
           psnr(ours, ref, 1), psnr(ours, ref, 2));
    sws_freeContext(s1);
    sws_freeContext(s0);
    sws_freeContext(sd);
    av_frame_free(&ours);
    av_frame_free(&ref);
    free(rgb);
    return 0;
}

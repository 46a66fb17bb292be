/* scale.c: a plane scaled in bands of output rows on the pool (scale.h). */
#include "scale.h"
#include "debug.h"
#include "team.h"

#include <stdlib.h>

#include <libavutil/buffer.h>
#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>


struct scaler {
    int sw, sh, dw, dh;
    enum AVPixelFormat fmt;
    AVFrame *src, *dst;                  /* the caller's buffers, as frames (never freed by libav) */
    struct SwsContext *ctx[TEAM_MAX];    /* band t's context, made when a run first needs it */
    int made;                            /* contexts made: ctx[0 .. made) */
    unsigned align;                      /* rows: a band's first row and height are multiples */
    int last_nt;                         /* the bands of the last run (0: none yet), for the debug line */
    /* One run's bands, for the pool. */
    scaler_band_fn after;
    void *arg;
    int err[TEAM_MAX];
};

/* The buffers are the caller's: libav only drops its references. */
static void keep(void *opaque, uint8_t *data)
{
    (void)opaque;
    (void)data;
}

/* A frame over the caller's w x h plane at data (rows stride bytes apart).
 * NULL when out of memory. */
static AVFrame *wrap(uint8_t *data, int stride, int w, int h, enum AVPixelFormat fmt)
{
    AVFrame *f = av_frame_alloc();
    if (!f)
        return NULL;
    f->buf[0] = av_buffer_create(data, (size_t)stride * (size_t)h, keep, NULL, 0);
    if (!f->buf[0]) {
        av_frame_free(&f);
        return NULL;
    }
    f->data[0] = data;
    f->linesize[0] = stride;
    f->width = w;
    f->height = h;
    f->format = fmt;
    return f;
}

/* The next context (ctx[made]), bound to the pictures with every source row
 * sent: from then on sws_receive_slice makes any band of the output.
 * Returns 0, or -1. */
static int make_context(struct scaler *s)
{
    struct SwsContext *c = sws_getContext(s->sw, s->sh, s->fmt, s->dw, s->dh, s->fmt, RR_SWS_FLAGS, NULL, NULL,
                                          NULL);
    if (!c)
        return -1;
    if (sws_frame_start(c, s->dst, s->src) < 0) {
        sws_freeContext(c);
        return -1;
    }
    if (sws_send_slice(c, 0, (unsigned)s->sh) < 0) {
        sws_frame_end(c);
        sws_freeContext(c);
        return -1;
    }
    s->ctx[s->made++] = c;
    return 0;
}

struct scaler *scaler_create(int sw, int sh, int dw, int dh, enum AVPixelFormat fmt, const uint8_t *src,
                             int src_stride, uint8_t *dst, int dst_stride)
{
    struct scaler *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->sw = sw;
    s->sh = sh;
    s->dw = dw;
    s->dh = dh;
    s->fmt = fmt;
    /* libswscale reads the source frame only; the cast is its API's. */
    s->src = wrap((uint8_t *)src, src_stride, sw, sh, fmt);
    s->dst = wrap(dst, dst_stride, dw, dh, fmt);
    if (!s->src || !s->dst || make_context(s) < 0) {
        scaler_free(s);
        return NULL;
    }
    s->align = sws_receive_slice_alignment(s->ctx[0]);
    if (s->align < 1)
        s->align = 1;
    return s;
}

/* Band t of nt: rows [lo, hi), whole units of align rows but the last. */
static void band_rows(const struct scaler *s, int t, int nt, int *lo, int *hi)
{
    long units = ((long)s->dh + s->align - 1) / s->align;
    long a = units * t / nt * s->align, b = units * (t + 1) / nt * s->align;
    *lo = (int)a;
    *hi = b < s->dh ? (int)b : s->dh;
}

static void run_band(void *arg, int t, int nt)
{
    struct scaler *s = arg;
    int lo, hi;
    band_rows(s, t, nt, &lo, &hi);
    if (hi <= lo)
        return;
    s->err[t] = sws_receive_slice(s->ctx[t], (unsigned)lo, (unsigned)(hi - lo)) < 0;
    if (!s->err[t] && s->after)
        s->after(s->arg, lo, hi);
}

int scaler_run(struct scaler *s, int nt, scaler_band_fn after, void *arg)
{
    long units = ((long)s->dh + s->align - 1) / s->align;
    nt = nt < 1 ? 1 : nt > TEAM_MAX ? TEAM_MAX : nt;
    if (nt > units)
        nt = (int)units;
    while (s->made < nt)
        if (make_context(s) < 0)
            return -1;
    if (nt != s->last_nt)
        debug_line(DEBUG_KERNELS, "scale: %s %dx%d to %dx%d in %d band%s of output rows", av_get_pix_fmt_name(s->fmt),
                   s->sw, s->sh, s->dw, s->dh, nt, nt == 1 ? "" : "s");
    s->last_nt = nt;
    s->after = after;
    s->arg = arg;
    for (int t = 0; t < nt; t++)
        s->err[t] = 0;
    team_run(nt, run_band, s);
    for (int t = 0; t < nt; t++)
        if (s->err[t])
            return -1;
    return 0;
}

void scaler_free(struct scaler *s)
{
    if (!s)
        return;
    for (int k = 0; k < s->made; k++) {
        sws_frame_end(s->ctx[k]);
        sws_freeContext(s->ctx[k]);
    }
    av_frame_free(&s->src);
    av_frame_free(&s->dst);
    free(s);
}

/* pipeline.c: a writer thread behind a ring of PIPE_DEPTH frame copies, or
 * of a fused batch's frames and two (pipeline_batch; see pipeline.h). One
 * producer (the frame loop) and one consumer (the thread that calls
 * sink_write), a mutex and a condition variable for both ways.
 * The producer blocks (sleeps on the condition variable) when the ring is
 * full, so a fast simulation yields the cores to the encoder instead of
 * running ahead. How many threads the frame loop runs on beside this one is
 * main.c's decision (its thread policy), not the pipeline's. */
#include "pipeline.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* With a batch (pipeline_batch), the batch's frames in place of the last
 * of PIPE_DEPTH. */
#define PIPE_MAX (PIPE_BATCH_MAX + PIPE_DEPTH - 1)

struct slot {
    struct frame fr;
    uint8_t *rgb;
    uint16_t *gray16;
    float *heights;
    void *deep;
    uint8_t *yuv;
};

struct pipeline {
    struct sink *sink;
    pthread_t thread;
    bool running;                 /* the thread was started and not joined */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int depth;                    /* slots in the ring: PIPE_DEPTH, more with a batch */
    struct slot slots[PIPE_MAX];
    size_t rgb_bytes;             /* of each slot's rgb buffer, once allocated */
    bool allocated;               /* gray16, heights and deep too, as the first frame needs */
    long head, tail;              /* frames handed over / written */
    bool done, abandon, failed;   /* no more frames / drop the rest / a write failed */
    struct rr_err err;            /* the failed write's error */
};

static void *writer(void *arg)
{
    struct pipeline *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->tail == p->head && !p->done && !p->abandon)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->abandon || p->tail == p->head)
            break;
        struct slot *s = &p->slots[p->tail % p->depth];
        pthread_mutex_unlock(&p->mu);
        struct rr_err e = { 0 };
        int bad = sink_write(p->sink, &s->fr, &e) < 0;
        pthread_mutex_lock(&p->mu);
        p->tail++;
        pthread_cond_broadcast(&p->cv);
        if (bad) {
            p->failed = true;
            p->err = e;
            break;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int pipeline_create(struct pipeline **out, struct sink *sink, struct rr_err *e)
{
    *out = NULL;
    struct pipeline *p = calloc(1, sizeof *p);
    if (!p)
        return rr_fail(e, RR_EXIT_RUNTIME, "pipeline: out of memory");
    p->sink = sink;
    p->depth = PIPE_DEPTH;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return rr_fail(e, RR_EXIT_RUNTIME, "pipeline: cannot create a mutex");
    }
    if (pthread_cond_init(&p->cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return rr_fail(e, RR_EXIT_RUNTIME, "pipeline: cannot create a condition variable");
    }
    if (pthread_create(&p->thread, NULL, writer, p) != 0) {
        pipeline_free(p);
        return rr_fail(e, RR_EXIT_RUNTIME, "pipeline: cannot start the writer thread");
    }
    p->running = true;
    *out = p;
    return 0;
}

/* Gives every slot an rgb buffer of width * height pixels (once). */
static int allocate_rgb(struct pipeline *p, int width, int height, struct rr_err *e)
{
    if (p->rgb_bytes)
        return 0;
    size_t bytes = (size_t)width * height * 3;
    for (int k = 0; k < p->depth; k++)
        if (!(p->slots[k].rgb = malloc(bytes)))
            return rr_fail(e, RR_EXIT_RUNTIME, "pipeline: out of memory for %d frames of %dx%d", p->depth, width,
                           height);
    p->rgb_bytes = bytes;
    return 0;
}

/* Allocates every slot for frames shaped like fr (once). */
static int allocate(struct pipeline *p, const struct frame *fr, struct rr_err *e)
{
    if (fr->rgb && allocate_rgb(p, fr->width, fr->height, e) < 0)
        return -1;
    size_t px = (size_t)fr->width * fr->height, cells = (size_t)fr->grid_w * fr->grid_h;
    for (int k = 0; k < p->depth; k++) {
        struct slot *s = &p->slots[k];
        s->gray16 = fr->gray16 ? malloc(px * sizeof *s->gray16) : NULL;
        if (fr->heights && !s->heights)   /* pipeline_batch_buffers may have made them */
            s->heights = malloc(cells * sizeof *s->heights);
        s->deep = fr->deep ? malloc(frame_deep_bytes(fr)) : NULL;
        s->yuv = fr->yuv ? malloc(frame_yuv_bytes(fr)) : NULL;
        if ((fr->gray16 && !s->gray16) || (fr->heights && !s->heights) || (fr->deep && !s->deep)
            || (fr->yuv && !s->yuv))
            return rr_fail(e, RR_EXIT_RUNTIME, "pipeline: out of memory for %d frames of %dx%d", p->depth,
                           fr->width, fr->height);
    }
    p->allocated = true;
    return 0;
}

static int writer_error(struct pipeline *p, struct rr_err *e)
{
    *e = p->err;
    return -1;
}

/* Waits until n slots are free (the writer has let go of them). Returns 0,
 * or -1 with e filled when the writer has failed. */
static int wait_for_room(struct pipeline *p, int n, struct rr_err *e)
{
    pthread_mutex_lock(&p->mu);
    while (p->head - p->tail + n > p->depth && !p->failed)
        pthread_cond_wait(&p->cv, &p->mu);
    bool failed = p->failed;
    pthread_mutex_unlock(&p->mu);
    return failed ? writer_error(p, e) : 0;
}

uint8_t *pipeline_rgb_buffer(struct pipeline *p, int width, int height, struct rr_err *e)
{
    if (allocate_rgb(p, width, height, e) < 0 || wait_for_room(p, 1, e) < 0)
        return NULL;
    if (p->rgb_bytes != (size_t)width * height * 3) {
        rr_fail(e, RR_EXIT_RUNTIME, "pipeline: internal error: a %dx%d frame in a ring made for another size",
                width, height);
        return NULL;
    }
    return p->slots[p->head % p->depth].rgb;
}

int pipeline_write(struct pipeline *p, const struct frame *fr, struct rr_err *e)
{
    if (!p->allocated && allocate(p, fr, e) < 0)
        return -1;
    if (wait_for_room(p, 1, e) < 0)
        return -1;
    /* The slot at head is not the writer's until head moves: fill it
     * unlocked. A frame rendered into it (pipeline_rgb_buffer) is not copied. */
    struct slot *s = &p->slots[p->head % p->depth];
    size_t px = (size_t)fr->width * fr->height, cells = (size_t)fr->grid_w * fr->grid_h;
    s->fr = *fr;
    if (fr->rgb && fr->rgb != s->rgb)
        memcpy(s->rgb, fr->rgb, px * 3);
    s->fr.rgb = fr->rgb ? s->rgb : NULL;
    if (fr->gray16 && s->gray16) {
        memcpy(s->gray16, fr->gray16, px * sizeof *s->gray16);
        s->fr.gray16 = s->gray16;
    }
    if (fr->heights && s->heights && fr->heights != s->heights) {
        memcpy(s->heights, fr->heights, cells * sizeof *s->heights);
        s->fr.heights = s->heights;
    }
    if (fr->deep && s->deep) {
        memcpy(s->deep, fr->deep, frame_deep_bytes(fr));
        s->fr.deep = s->deep;
    }
    if (fr->yuv && s->yuv) {
        memcpy(s->yuv, fr->yuv, frame_yuv_bytes(fr));
        s->fr.yuv = s->yuv;
    }
    pthread_mutex_lock(&p->mu);
    p->head++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

void pipeline_batch(struct pipeline *p, int n)
{
    p->depth = n + PIPE_DEPTH - 1;
}

int pipeline_batch_buffers(struct pipeline *p, int n, int width, int height, size_t heights_bytes, uint8_t **rgb,
                           float **heights, struct rr_err *e)
{
    if (allocate_rgb(p, width, height, e) < 0)
        return -1;
    for (int k = 0; k < p->depth && heights_bytes; k++)
        if (!p->slots[k].heights && !(p->slots[k].heights = malloc(heights_bytes)))
            return rr_fail(e, RR_EXIT_RUNTIME, "pipeline: out of memory for %d frames of %dx%d", p->depth, width,
                           height);
    if (n > p->depth - PIPE_DEPTH + 1)
        return rr_fail(e, RR_EXIT_RUNTIME, "pipeline: internal error: a batch of %d frames in a ring made for %d", n,
                       p->depth - PIPE_DEPTH + 1);
    if (wait_for_room(p, n, e) < 0)
        return -1;
    for (int k = 0; k < n; k++) {
        const struct slot *s = &p->slots[(p->head + k) % p->depth];
        rgb[k] = s->rgb;
        heights[k] = heights_bytes ? s->heights : NULL;
    }
    return 0;
}

/* Tells the thread to stop (after the queued frames unless abandon) and joins it. */
static void stop(struct pipeline *p, bool abandon)
{
    if (!p->running)
        return;
    pthread_mutex_lock(&p->mu);
    p->done = true;
    p->abandon = abandon;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    p->running = false;
}

int pipeline_finish(struct pipeline *p, struct rr_err *e)
{
    stop(p, false);
    return p->failed ? writer_error(p, e) : 0;
}

void pipeline_free(struct pipeline *p)
{
    if (!p)
        return;
    stop(p, true);
    for (int k = 0; k < PIPE_MAX; k++) {
        free(p->slots[k].rgb);
        free(p->slots[k].gray16);
        free(p->slots[k].heights);
        free(p->slots[k].deep);
        free(p->slots[k].yuv);
    }
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

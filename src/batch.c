/* batch.c: frames rendered in batches from one sim_advance_frames call, or
 * frame by frame and hashed together (see batch.h). */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "debug.h"
#include "md5lanes.h"

struct batch {
    struct renderer *r;
    struct pipeline *pipe;        /* the sink's: the pictures are its ring's slots (pipeline_batch) */
    const volatile sig_atomic_t *stop;   /* the run's stop flag, seen inside a batch */
    bool by_rows;                 /* render_by_rows: drawn by sim_advance_frames' callback */
    const unsigned char *walls;   /* the simulation's, for the batch being drawn */
    int cap;                      /* pictures */
    int width, height;            /* of a picture */
    size_t bytes;                 /* of one picture */
    size_t hbytes;                /* of one frame's raw heights (render_heights_bytes), or 0 */
    uint8_t *rgb[BATCH_MAX_FRAMES];
    float *heights[BATCH_MAX_FRAMES];
    long first;                   /* the frame in rgb[0] */
    int ready;                    /* frames drawn: first .. first + ready - 1 */
    bool failed;                  /* frame first + ready blew up: err */
    bool hashed;                  /* md5[0 .. ready - 1] made */
    char md5[BATCH_MAX_FRAMES][33];
    struct rr_err err;
};

int batch_create(struct batch **out, struct renderer *r, const struct scene *sc, const volatile sig_atomic_t *stop,
                 struct pipeline *pipe, struct rr_err *e)
{
    *out = NULL;
    uint64_t limit;
    if (budget_limit(&limit, e) < 0)
        return -1;
    /* Whether and how many: the memory budget's decision, which it counts
     * (with a sink, the pictures are the ring's, drawn by rows). */
    const int n = budget_batch_frames(sc, limit);
    if (n == 0)
        return 0;
    const bool by_rows = render_by_rows(r);
    struct frame probe;
    render_frame_of(r, 0, NULL, NULL, &probe);
    const uint64_t bytes = (uint64_t)probe.width * probe.height * 3;
    struct batch *b = calloc(1, sizeof *b);
    if (!b)
        return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
    b->r = r;
    b->pipe = pipe;
    b->stop = stop;
    b->by_rows = by_rows;
    b->width = probe.width;
    b->height = probe.height;
    b->bytes = bytes;
    b->hbytes = pipe ? render_heights_bytes(r) : 0;
    b->cap = n;
    if (pipe)
        pipeline_batch(pipe, b->cap);
    for (int k = 0; k < b->cap && !pipe; k++)
        if (!(b->rgb[k] = malloc(bytes))) {
            batch_free(b);
            return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
        }
    if (by_rows)
        debug_line(DEBUG_KERNELS, "frames in batches of up to %d: steps fused across frames (sim_advance_frames), "
                   "each frame's rows drawn as they are handed out%s", b->cap, pipe ? ", into the writer's ring" : "");
    else
        debug_line(DEBUG_KERNELS, "frames rendered one at a time, hashed in batches of up to %d", b->cap);
    *out = b;
    return 0;
}

/* Draws the rows sim_advance_frames hands out into their frame's picture. */
static void draw_rows(void *arg, long frame, const struct field *heights, int y0, int y1)
{
    const struct batch *b = arg;
    render_rows_into(b->r, heights, b->walls, b->rgb[frame - b->first], b->heights[frame - b->first], y0, y1);
}

/* The batch's frames' MD5s, side by side (src/md5lanes.h): in about the
 * time one frame's would take alone. */
_Static_assert(BATCH_MAX_FRAMES <= MD5_LANES, "a batch's frames are hashed in one md5_lanes call");

static void hash_batch(struct batch *b)
{
    uint8_t digest[BATCH_MAX_FRAMES][16];
    md5_lanes((const uint8_t *const *)b->rgb, b->ready, b->bytes, digest);
    for (int k = 0; k < b->ready; k++)
        md5_hex(digest[k], b->md5[k]);
    b->hashed = true;
}

/* Frames first .. first + n - 1, each simulated (sim_advance_frame) and
 * rendered into its picture in turn, until the stop flag is set after one;
 * *done counts those made. Returns 0, or -1 with e filled by the frame
 * first + *done's failure. */
static int render_each(struct batch *b, struct sim *s, int n, int *done, struct rr_err *e)
{
    for (*done = 0; *done < n && !(*done > 0 && *b->stop); ++*done) {
        struct frame fr;
        uint8_t *rgb = b->rgb[*done];
        if (sim_advance_frame(s, e) < 0
            || render_frame_to(b->r, sim_field(s), sim_walls(s), b->first + *done, rgb, &fr, e) < 0)
            return -1;
        if (fr.rgb != rgb)
            memcpy(rgb, fr.rgb, b->bytes);
    }
    return 0;
}

int batch_next(struct batch *b, struct sim *s, long i, long last, struct frame *fr, char md5[33],
               struct rr_err *e)
{
    if (i >= b->first + b->ready) {
        if (b->failed) {
            *e = b->err;
            return -1;
        }
        const long n = last - i + 1 < b->cap ? last - i + 1 : b->cap;
        b->first = i;
        b->walls = sim_walls(s);
        int done = 0;
        if (b->pipe && pipeline_batch_buffers(b->pipe, (int)n, b->width, b->height, b->hbytes, b->rgb, b->heights, e) < 0)
            return -1;
        b->failed = (b->by_rows ? sim_advance_frames_until(s, (int)n, draw_rows, b, b->stop, &done, &b->err)
                                : render_each(b, s, (int)n, &done, &b->err)) < 0;
        b->ready = done;
        b->hashed = false;
        if (b->failed && done == 0) {
            *e = b->err;
            return -1;
        }
    }
    render_frame_of(b->r, i, b->rgb[i - b->first], b->heights[i - b->first], fr);
    if (md5) {
        if (!b->hashed)
            hash_batch(b);
        memcpy(md5, b->md5[i - b->first], 33);
    }
    return 0;
}

void batch_free(struct batch *b)
{
    if (!b)
        return;
    for (int k = 0; k < b->cap && !b->pipe; k++)
        free(b->rgb[k]);
    free(b);
}

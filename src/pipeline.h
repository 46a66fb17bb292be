/* pipeline.h: hands frames to a sink on a thread of its own, through a small
 * ring of frame copies, so that simulating and rendering the next frames
 * overlaps writing (encoding) this one. The frames reach the sink in order
 * and unchanged; only the thread that writes them differs. */
#ifndef RR_PIPELINE_H
#define RR_PIPELINE_H

#include <stdint.h>

#include "frame.h"
#include "rr_err.h"
#include "sink.h"

struct pipeline;

/* The ring's slots, each holding a copy of a frame (the memory budget counts
 * them, src/budget.c): one being written, one ready, one being copied in. */
#define PIPE_DEPTH 3

/* Starts the writer thread for an open sink (which the pipeline borrows).
 * Returns 0 and *out, or -1 with e filled (RR_EXIT_RUNTIME). */
int pipeline_create(struct pipeline **out, struct sink *sink, struct rr_err *e);

/* The rgb buffer (width * height * 3 bytes) of the ring slot that the next
 * pipeline_write fills, waiting while the ring is full: render the next frame
 * there (render_frame_to) and pipeline_write hands it over without copying it.
 * The size must be the same at every call. Returns NULL with e filled when
 * the writer has failed (as pipeline_write) or memory ran out. */
uint8_t *pipeline_rgb_buffer(struct pipeline *p, int width, int height, struct rr_err *e);

/* Copies the frame into the ring (the rgb and raw heights unless they are
 * already there: pipeline_rgb_buffer, pipeline_batch_buffers),
 * waiting while the ring is full, and returns. The ring's buffers are allocated at the first frame, never after.
 * Returns 0, or -1 with e filled by the first failed sink_write (reported
 * here, one or a few frames after the frame that failed). */
int pipeline_write(struct pipeline *p, const struct frame *fr, struct rr_err *e);

/* The most frames of a batch (pipeline_batch). */
#define PIPE_BATCH_MAX 16

/* Before the first frame: the ring holds batches of n frames (2 to
 * PIPE_BATCH_MAX) beside the two the writer may still hold (n + 2 slots
 * instead of 3), for frames drawn straight into it by batches of steps
 * fused across frames (src/batch.h). */
void pipeline_batch(struct pipeline *p, int n);

/* The next n slots' rgb pictures (width x height, rgb24) and, when
 * heights_bytes is not 0, raw heights buffers of that size, waiting until
 * the writer has let go of them: frames drawn there go to pipeline_write
 * one at a time, in order, without a copy. Returns 0, or -1 with e filled. */
int pipeline_batch_buffers(struct pipeline *p, int n, int width, int height, size_t heights_bytes, uint8_t **rgb,
                           float **heights, struct rr_err *e);

/* Waits until every frame handed over is written and stops the thread.
 * Returns 0, or -1 with e filled as pipeline_write does. */
int pipeline_finish(struct pipeline *p, struct rr_err *e);

/* Stops the thread (frames still queued are dropped) and frees everything;
 * accepts NULL. */
void pipeline_free(struct pipeline *p);

#endif

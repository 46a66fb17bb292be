/* batch.h: frames rendered in batches from one sim_advance_frames call:
 * the steps of several frames fuse into passes (src/tblock.c) and each
 * frame's rows are drawn into its own picture as the pass hands them out,
 * while they are in cache. For a frame loop without a sink (--hash,
 * --check, --manifest) and a renderer that draws by rows alone
 * (render_by_rows); the frames and their bytes are those of
 * sim_advance_frame and render_frame_to, frame by frame. Any other
 * renderer (scaled, lit, ...) renders a batch's frames one at a time, with
 * sim_advance_frame and render_frame_to, into the batch's pictures. Either
 * way the batch's frames are hashed together (src/md5lanes.h). With a sink
 * whose writer costs little (sink_fuses: a NUT rgb24 stream, a .npy), a
 * renderer that draws by rows draws the batch straight into the writer's
 * ring (pipeline_batch), the raw heights too when the sink takes them. */
#ifndef RR_BATCH_H
#define RR_BATCH_H

#include <signal.h>
#include <stdbool.h>

#include "frame.h"
#include "pipeline.h"
#include "render.h"
#include "rr_err.h"
#include "sim.h"

struct batch;

/* The most frames a batch holds, and the bytes its pictures may take in all
 * (fewer frames for large pictures). A batch's hashes take about the time
 * of one frame's however many of its MD5_LANES (src/md5lanes.h) it fills,
 * so the bytes let a batch of 1920x1080 pictures fill all 16. */
#define BATCH_MAX_FRAMES 16
#define BATCH_MAX_BYTES (96L << 20)

/* The fewest pictures a batch of frames rendered one at a time holds: with
 * fewer lanes filled, md5_lanes is no faster than av_md5_sum frame by frame. */
#define BATCH_MIN_LANES 4

/* A batch for r's frames of the scene sc, or *out NULL when fewer than two
 * pictures (BATCH_MIN_LANES when r does not draw by rows) fit in
 * BATCH_MAX_BYTES and in what the memory budget (src/budget.h) leaves
 * beside the run's own need (the frame loop then goes frame by frame).
 * *stop (the run's stop flag, not NULL) is looked at inside a batch too,
 * between its frames or fused passes (sim_advance_frames_until): once it is
 * set the batch ends after the frame being made, holding the frames made
 * (and hashing only those), so a stop waits for about a frame, not a
 * batch; the frame loop, which looks at the flag before each frame, takes
 * none of them after it. With pipe (the sink's pipeline, not NULL): a
 * batch of budget_batch_frames frames whose pictures are the ring's slots,
 * or *out NULL when fewer than two fit or r does not draw by rows.
 * Returns 0, or -1 with e filled (memory, or RIPPLERENDER_MEM_LIMIT not a
 * size). */
int batch_create(struct batch **out, struct renderer *r, const struct scene *sc, const volatile sig_atomic_t *stop,
                 struct pipeline *pipe, struct rr_err *e);

/* Frame i, the frame after the one before (the first call: after the one
 * the simulation shows): when the batch has no frames left, advances the
 * simulation by a batch of frames up to frame `last`; fills *fr with frame
 * i (valid until the next batch) and, when md5 is not NULL, md5 with the
 * frame's MD5 as frame_md5_hex writes it (src/framehash.h): the first
 * request in a batch hashes all its frames at once (src/md5lanes.h). The
 * simulation shows the batch's last frame meanwhile, so a frame loop with
 * checkpoints or anything else that reads the simulation per frame goes
 * frame by frame instead. Returns 0, or -1 with e filled: a blow-up (or a
 * frame that failed to render) is reported at the frame it happened at,
 * after the frames before it. */
int batch_next(struct batch *b, struct sim *s, long i, long last, struct frame *fr, char md5[33],
               struct rr_err *e);

void batch_free(struct batch *b);   /* accepts NULL */

#endif

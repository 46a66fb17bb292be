/* budget.h: the memory budget of a run, checked before anything large is
 * allocated, so that an absurd grid, render size or image is refused with one
 * line naming the bytes instead of failing (or thrashing) half-way.
 *
 * The budget is RR_MEM_LIMIT_DEFAULT bytes, or the environment variable
 * RIPPLERENDER_MEM_LIMIT (bytes, with an optional K, M, G or T suffix for
 * powers of 1024; "0" or "none" turns the check off). docs/scene.md
 * documents it. */
#ifndef RR_BUDGET_H
#define RR_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "rr_err.h"
#include "scene.h"

#define RR_MEM_LIMIT_DEFAULT ((uint64_t)4 << 30)   /* 4 GiB */

/* What the program takes with nothing to do (code, data, the C and OpenMP
 * libraries, threads' stacks, malloc's per-thread arenas): part of the peak
 * resident size, not of the estimates below, nor of the limit
 * (tests/cli/test_budget.sh adds it). The libav libraries, loaded only for
 * the outputs that use them, are the output's (sink_bytes). */
#define RR_BUDGET_PROGRAM_BYTES ((uint64_t)10 << 20)

/* The budget in bytes (UINT64_MAX: no limit). Returns 0, or -1 with e filled
 * (status 2) when RIPPLERENDER_MEM_LIMIT is not a size. */
int budget_limit(uint64_t *bytes, struct rr_err *e);

/* The bytes a run of sc holds at its peak beyond RR_BUDGET_PROGRAM_BYTES, by
 * the model docs/scene.md gives (tests/cli/test_budget.sh checks it against
 * the measured peak), counting what the run allocates: per grid cell the two
 * height planes, the wall byte and the renderer's grid-size pictures (rgb,
 * and the 16-bit grey and raw heights when the output takes them); per
 * output pixel, when the render is scaled, rgb and 16-bit grey at two
 * stages, and a deep picture when the output takes one; the writer's ring of
 * PIPE_DEPTH frames; the solver's own buffers (solver_ops.bytes: spring's
 * scratch planes, wave's speed maps, spectral's padded FFT domain); the
 * output's writer's own (sink_bytes: the libraries it loads and its kind's
 * sink_ops.bytes, a GIF's few frames, an encoder's lookahead and own
 * frame); a batch's pictures (budget_batch_frames with no limit: a fused
 * batch's beyond the ring's, or a batch's without an output); the scene's
 * parsed text; and its sources (drops, oscillators, movers: their structs,
 * and their resolved scene's nodes with budget_resolved_scene). Uses omp_get_max_threads() as the run's threads.
 * Saturates, never wraps. */
uint64_t budget_run_bytes(const struct scene *sc);

/* The field's two height planes for sc's grid (src/field.c), rows padded:
 * also what a solver keeping a second field counts (solver_ops.bytes). */
uint64_t budget_planes_bytes(const struct scene *sc);

/* Steps fused across frames with an output (sink_fuses, src/batch.h): a
 * batch of up to BUDGET_FUSED_FRAMES frames is drawn into the writer's
 * ring, which then holds that many pictures (rgb24, and the raw heights
 * when the output takes them) beside the two the writer may still hold:
 * frames - 1 more than frame by frame, within BUDGET_FUSED_BYTES. Two to
 * four frames fused gain about as much as sixteen (docs/performance.md). */
#define BUDGET_FUSED_FRAMES 4
#define BUDGET_FUSED_BYTES ((uint64_t)256 << 20)

/* The frames of a batch (src/batch.h) for sc when the budget is `limit`
 * bytes, the one decision: batch_create makes a batch of this many frames
 * (none for 0), and budget_run_bytes counts this many at no limit. 0 when
 * the run goes frame by frame (budget_frame_by_frame). With an output: the
 * most (up to BUDGET_FUSED_FRAMES) whose extra pictures fit
 * BUDGET_FUSED_BYTES and, beside the run's need without them, the limit; 0
 * when fewer than two would, the output does not fuse (sink_fuses) or its
 * renderer does not draw by rows (render_draws_by_rows). Without one
 * (budget_without_output): rgb24 pictures, as many as BATCH_MAX_BYTES and
 * the limit's room beside the run's need take, up to BATCH_MAX_FRAMES; 0
 * when fewer than 2 (BATCH_MIN_LANES for a renderer that does not draw by
 * rows) would fit. */
int budget_batch_frames(const struct scene *sc, uint64_t limit);

/* The run's frames go one at a time whatever its output (--probes reads
 * every frame's heights, --save-state's checkpoint needs the field at a
 * frame's end): no fused batch, none counted (main.c says so before
 * budget_check_run, and makes no batch then). */
void budget_frame_by_frame(void);

/* The run builds the resolved scene as JSON (--save-state's checkpoints and
 * record, --manifest): its sources' nodes are counted (main.c says so
 * before budget_check_run). */
void budget_resolved_scene(void);

/* The bytes a pixel of a frame's deep picture (frame.h) for a sink's
 * `needs` (as render_needs takes them): the mode's floats and alpha, 4
 * bytes each (RENDER_NEED_FLOAT); 3 or 4 channels (alpha) of 1 or 2 bytes
 * (RENDER_NEED_RGB16); 0 without one. */
uint64_t budget_deep_pixel(const struct scene *sc, int needs);

/* The run writes no output (--hash, --check or --manifest without -o): the
 * scene's output.path holds no frames, so budget_run_bytes leaves its
 * writer out from then on. */
void budget_without_output(void);

/* The encoder's thread count as the run asks it (-j n: n; 0 without -j,
 * libavcodec's automatic count), for the frames its threads hold. */
void budget_encoder_threads(int n);

/* Refuses sc when budget_run_bytes without a batch's pictures passes the
 * budget (with them the run fits by batches of fewer frames, or none),
 * naming budget_run_bytes, what the run holds given room: status 2, "grid: W x H
 * cells with a WxH render need about N bytes, more than the limit of M bytes
 * (RIPPLERENDER_MEM_LIMIT)", or, when the scene's sources outweigh the grid
 * and the output, "drops: N drops with a W x H grid need about ..." (the
 * key of their longest list). Returns 0 or -1. */
int budget_check_run(const struct scene *sc, struct rr_err *e);

/* The bytes parsing len bytes of scene text needs at its peak (the densest
 * JSON, a value every two bytes). */
uint64_t budget_scene_text_bytes(uint64_t len);

/* Refuses (status 2) a scene text whose parse would pass the budget, naming
 * the file (name) and the bytes. Returns 0 or -1. */
int budget_check_scene_text(uint64_t len, const char *name, struct rr_err *e);

/* What decoding a moving background or floor (render/backdrop.h) holds
 * beyond the run: two decoded frames of frame_bytes (the one shown, the
 * next), and the decoder's own: one more for an intra-only codec, 16
 * reference frames and the one it decodes for any other (H.264's most). */
uint64_t budget_video_bytes(uint64_t frame_bytes, bool intra_only);

/* Refuses (status 2) the video or image `path` of scene key `key`, w x h
 * pixels, when budget_run_bytes(sc) plus its `bytes` pass the budget, naming
 * the key, the file and the bytes. Returns 0 or -1. */
int budget_check_video(const struct scene *sc, const char *key, const char *path, int w, int h, uint64_t bytes,
                       struct rr_err *e);

/* a * b, or UINT64_MAX when that overflows. */
uint64_t budget_mul(uint64_t a, uint64_t b);

/* a + b, or UINT64_MAX when that overflows. */
uint64_t budget_add(uint64_t a, uint64_t b);

#endif

/* render/backdrop.h: the picture behind the water, one per output frame:
 * refract's render.background (at render size) and caustics' render.floor
 * (at grid size). Three kinds, by the name:
 *
 *   - a still PNG (NAME.png): read once by libpng, fitted bilinearly with
 *     half-pixel centres (image_rgb_resample);
 *   - an image sequence (a printf frame field, bg/f%04d.png): output frame
 *     n shows image first + n, first being 0, or 1 when there is no image
 *     0; any picture format libavformat reads;
 *   - a video (any other name: .mp4, .mkv, .mov, .webm, .gif, a single
 *     .jpg...): decoded by libavformat and libavcodec a frame at a time.
 *
 * Sequences and videos are converted to rgb24 and fitted in one libswscale
 * call (bicubic with the bit-exact flags, the renderer's own scaling:
 * RR_SWS_FLAGS), so their pictures are the same on every CPU. Output frame
 * n of a video shows the video's last frame whose timestamp, counted from
 * its first frame's, is at or before n / fps (time.fps as a fraction,
 * av_d2q): the picture follows from n alone, whatever was decoded before
 * (a --range run seeks to it). After the last frame, render.video_end:
 * hold keeps it, loop starts again at n / fps modulo the video's length
 * (its last frame's timestamp plus that frame's duration). The memory is
 * two decoded frames, the decoder's references and the fitted picture,
 * checked against the budget when the video opens (budget.h). */
#ifndef RR_RENDER_BACKDROP_H
#define RR_RENDER_BACKDROP_H

#include <stdint.h>

#include "rr_err.h"
#include "scene.h"

struct backdrop;

/* Opens the picture `path` of scene key `key` ("render.background") fitted
 * to w x h, and reads its first frame, so that a file that is no picture or
 * video, a video without frames or a sequence with a gap fails here with
 * one line naming the key and the file (RR_EXIT_USAGE; RR_EXIT_RUNTIME for
 * memory). Returns 0 and *out, or -1 with e filled. */
int backdrop_open(struct backdrop **out, const struct scene *sc, const char *path, const char *key, int w, int h,
                  struct rr_err *e);

/* Whether the picture changes from frame to frame (a video or a sequence). */
int backdrop_moves(const struct backdrop *b);

/* The picture of output frame n: w * h * 3 bytes of packed rgb24, owned by
 * b and valid until the next call. Returns it, or NULL with e filled (a
 * sequence's image that went missing or does not decode, a read error). */
const uint8_t *backdrop_frame(struct backdrop *b, long n, struct rr_err *e);

void backdrop_free(struct backdrop *b);   /* accepts NULL */

#endif

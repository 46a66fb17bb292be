/* scale.h: the renderer's scaling of a grid-size plane to render size
 * (libswscale, bicubic, bit-exact flags), in horizontal bands of output rows
 * on the thread pool (team.h), with the same bytes as one sws_scale call
 * over the whole picture for any number of bands.
 *
 * How: libswscale (5.0 on) can make any band of output rows by itself from
 * the whole source (sws_frame_start, sws_send_slice over every source row,
 * then sws_receive_slice(first row, rows)): it runs the vertical filter of
 * each output row of the band over the horizontally scaled source rows that
 * row's taps reach, the same rows with the same coefficients as a call over
 * the whole picture, which goes through the very same code with the band
 * [0, height). Each band has its own context (the horizontal lines it has
 * scaled are its state), all made with the same settings; the pictures are
 * bound to them once, when they are made, so a frame allocates nothing.
 * A band starts on a multiple of sws_receive_slice_alignment (1 for the
 * grey and packed formats the renderer scales).
 *
 * Usage:
 *     scaler_create(&s, sw, sh, dw, dh, fmt, src, src_stride, dst, dst_stride)
 *     scaler_run(s, nt, after, arg)   every frame: the picture at src scaled
 *                                     into dst on nt threads; after(arg, lo,
 *                                     hi), when not NULL, on each band's
 *                                     thread once its rows [lo, hi) are there
 *     scaler_free(s) */
#ifndef RR_SCALE_H
#define RR_SCALE_H

#include <stdint.h>

#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>

/* libswscale's flags for every scaling of a picture the program writes
 * (the renderer's planes, moving backgrounds, the video and pipe sinks'
 * conversions): bit-exact bicubic, the same bytes from every CPU and SIMD
 * path. */
#define RR_SWS_FLAGS (SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT)

struct scaler;

typedef void (*scaler_band_fn)(void *arg, int lo, int hi);

/* A scaler from the sw x sh picture of format fmt at src (rows src_stride
 * bytes apart) to dw x dh at dst (dst_stride), one plane, the buffers the
 * caller's and fixed for the scaler's life, scaled with RR_SWS_FLAGS.
 * Returns it, or NULL when out of memory or libswscale refuses the sizes or
 * format. */
struct scaler *scaler_create(int sw, int sh, int dw, int dh, enum AVPixelFormat fmt, const uint8_t *src,
                             int src_stride, uint8_t *dst, int dst_stride);

/* Scales the picture now at src into dst in nt bands of output rows (nt
 * clamped to 1 .. TEAM_MAX and to the rows there are; band t of nt is about
 * rows [dh t / nt, dh (t + 1) / nt)), each on a thread of the pool, then
 * calls after(arg, lo, hi) on that thread for its rows when after is not
 * NULL. The bytes do not depend on nt. Returns 0, or -1 when a context
 * could not be made (memory) or libswscale failed. */
int scaler_run(struct scaler *s, int nt, scaler_band_fn after, void *arg);

void scaler_free(struct scaler *s);   /* accepts NULL */

#endif

/* framehash.h: per-frame MD5s for --hash, --check and --manifest.
 *
 * A frame's hash is the MD5 of its packed rgb24 bytes (width * height * 3),
 * the same value FFmpeg's framemd5 muxer prints for an rgb24 rawvideo stream,
 * so `ffmpeg -i lossless.mkv -pix_fmt rgb24 -f framemd5 -` reproduces it. */
#ifndef RR_FRAMEHASH_H
#define RR_FRAMEHASH_H

#include "frame.h"
#include "rr_err.h"

/* Writes 32 lowercase hex digits and a NUL. Cannot fail. */
void frame_md5_hex(const struct frame *fr, char out[33]);

/* The expected frames of --check, as a golden file states them. */
struct framehash_golden {
    char (*md5s)[33];           /* count entries, lowercase, malloc'd */
    long count;
    /* From a .framemd5 header ("#dimensions 0: 320x240", "#codec_id 0:
     * rawvideo", "#media_type 0: video"); 0 or "" when the file has none. */
    int width, height;
    char codec[32], media[16];
    long frame_bytes;           /* the size column of stream 0's first frame, 0 if none */
    long frame_line;            /* its line number */
    long over_line;             /* the line of a frame past max_frames (framehash_load), 0 if none */
};

/* Reads the expected hashes for --check from a .framemd5 file (lines starting
 * with '#' are the header; data lines "stream, dts, pts, duration, size, md5":
 * the last comma-separated field is the hash, stream 0 only, frame number =
 * order) or from --hash output ("INDEX MD5" per line, indices 0, 1, 2, ...).
 * Blank lines are skipped. Reads at most max_frames frames (the run's):
 * at a frame line past them it stops reading and notes the line in
 * g->over_line, which framehash_fits refuses, so a long or endless file
 * never holds more than the run's list. On success g->md5s is the caller's
 * to free. Returns 0, or -1 with e filled (RR_EXIT_USAGE, "file:line: what";
 * RR_EXIT_RUNTIME for I/O) and g->md5s NULL. */
int framehash_load(const char *path, struct framehash_golden *g, long max_frames, struct rr_err *e);

/* Whether the golden can describe frames of width x height, `frames` of them:
 * the kind of stream, the size, the pixel format (by the bytes of a frame
 * against width * height * 3 of rgb24) and the frame count, checked in that
 * order. Returns 0, or -1 with e filled (RR_EXIT_MISMATCH, one line naming
 * what differs, and how to make the right file when the pixel format is
 * wrong). */
int framehash_fits(const struct framehash_golden *g, const char *path, int width, int height, long frames,
                   struct rr_err *e);

#endif

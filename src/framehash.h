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

/* Reads the expected hashes for --check from a .framemd5 file (lines starting
 * with '#' skipped; data lines "stream, dts, pts, duration, size, md5": the
 * last comma-separated field is the hash, stream 0 only, frame number = order)
 * or from --hash output ("INDEX MD5" per line, indices 0, 1, 2, ...). Blank
 * lines are skipped. On success *md5s is a malloc'd array of *count entries
 * (lowercase, NUL-terminated) that the caller frees. Returns 0, or -1 with e
 * filled (RR_EXIT_USAGE, "file:line: what"; RR_EXIT_RUNTIME for I/O) and
 * *md5s NULL. */
int framehash_load(const char *path, char (**md5s)[33], long *count, struct rr_err *e);

#endif

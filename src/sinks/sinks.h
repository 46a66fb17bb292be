/* sinks.h: what the sink registry (sink.c) and the sink kinds share. Private
 * to src/sink.c and src/sinks/. */
#ifndef RR_SINKS_H
#define RR_SINKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "outfile.h"
#include "rr_err.h"
#include "sink.h"

struct AVCodecContext;
struct AVFormatContext;
struct AVFrame;
struct AVPacket;
struct AVStream;

/* The extension of path's last component after its last '.', or "" (no dot). */
const char *sink_extension(const char *path);

/* The files of a numbered output (sink_ops.numbered), one per frame, each
 * written under a temporary name beside its target and moved into place with
 * the others at the end: atomic as a set (src/sinks/seq.c). Zeroed before
 * sink_seq_open. */
struct sink_seq {
    const char *pattern;       /* checked by sink_pattern_check */
    bool overwrite;
    struct outfile *files;     /* one per frame begun, in order */
    long n, cap;
};

/* Checks the pattern, then refuses (before anything is written) when a
 * target of frames p->first .. p->first + p->frames - 1 exists without
 * p->overwrite, and claims every name (outfile_claim). Returns 0, or -1
 * with e filled. */
int sink_seq_open(struct sink_seq *q, const char *pattern, const struct sink_params *p, struct rr_err *e);

/* The name of frame i. Returns 0, or -1 with e filled (too long). */
int sink_seq_name(const struct sink_seq *q, long i, char *buf, size_t n, struct rr_err *e);

/* Begins frame `name`'s temporary file (outfile_begin_named: its fd is
 * open; the caller writes it and calls outfile_close_fd). Returns it, or
 * NULL with e filled. */
struct outfile *sink_seq_begin(struct sink_seq *q, const char *name, struct rr_err *e);

/* Moves every frame begun into place; if one move fails, the ones already
 * moved are removed again. Returns 0, or -1 with e filled. */
int sink_seq_commit(struct sink_seq *q, struct rr_err *e);

/* Removes the temporary files not committed and frees the list. */
void sink_seq_free(struct sink_seq *q);

/* render.atlas (src/sinks/atlas.c): a wrapper sink_open puts around the
 * numbered kind of the output, tiling frames into its images. Not in the
 * table of kinds: the scene's render.atlas picks it, not the name. */
extern const struct sink_ops sink_atlas_ops;

/* Refuses an atlas for kind (not a PNG or EXR sequence), for a part of the
 * timeline p that does not start at an atlas's first frame or ends inside
 * an atlas before the clip's end, or for an atlas image too large. Returns
 * 0, or -1 with e filled (RR_EXIT_USAGE). */
int sink_atlas_check(const struct sink_ops *kind, const struct scene *sc, const struct sink_params *p,
                     struct rr_err *e);

/* Some libraries write to standard error themselves, not through av_log:
 * x264 while it reads its preset (before libavcodec routes its log), SVT-AV1's
 * own logger. sink_stderr_hold sends file descriptor 2 to an unnamed
 * temporary file while such a library call runs; sink_stderr_release puts it
 * back and keeps the first line that reports an error, which the next
 * sink_av_fail adds in parentheses; the rest is dropped. Call both from the
 * thread that owns the sink; holds of other threads wait for the release (a
 * line another thread prints meanwhile goes to the temporary). */
struct sink_stderr {
    int saved;
    FILE *tmp;
};
void sink_stderr_hold(struct sink_stderr *h);
void sink_stderr_release(struct sink_stderr *h);

/* Fills e with "PATH: WHAT: av_strerror(err)" (and " (LIBRARY'S LINE)" when
 * sink_stderr_release kept one) and returns -1. */
int sink_av_fail(struct rr_err *e, int status, const char *path, const char *what, int err);

/* Finishes a muxer that writes to a temporary outfile: the trailer, the
 * close, then the rename into place. Returns 0, or -1 with e filled naming
 * path. The caller frees the context with sink_mux_free either way. */
int sink_mux_finish(struct AVFormatContext *oc, struct outfile *f, const char *path, struct rr_err *e);

/* Closes the muxer's file if open and frees *oc; NULL-safe, sets *oc to NULL. */
void sink_mux_free(struct AVFormatContext **oc);

/* Sends frame (NULL: flush) to the encoder enc and writes every packet that
 * comes out into stream st of oc, through pkt. A packet whose duration the
 * encoder left 0 gets 1 (libx264 and the GIF encoder leave the last frame's
 * at 0, which would drop it from the file's duration). packets, when not
 * NULL, counts the packets written. Returns 0, or -1 with e filled naming
 * path and "the KINDencoder" or "KINDencoding" (kind "gif " or ""). */
int sink_encode(struct AVCodecContext *enc, struct AVFormatContext *oc, struct AVStream *st, struct AVPacket *pkt,
                const struct AVFrame *frame, const char *path, const char *kind, atomic_long *packets,
                struct rr_err *e);

#endif

/* sinks.h: what the sink registry (sink.c) and the sink kinds share. Private
 * to src/sink.c and src/sinks/. */
#ifndef RR_SINKS_H
#define RR_SINKS_H

#include <stddef.h>
#include <stdio.h>

#include "outfile.h"
#include "rr_err.h"
#include "sink.h"

struct AVFormatContext;

/* The extension of path's last component after its last '.', or "" (no dot). */
const char *sink_extension(const char *path);

/* Checks a PNG sequence name: exactly one integer conversion (%d, %i or %u,
 * with optional flags "-+ 0", width and precision, no length modifier; "%%"
 * is a literal percent sign). Returns 0, or -1 with e filled (RR_EXIT_USAGE). */
int sink_pattern_check(const char *pattern, struct rr_err *e);

/* The name of frame i under a checked pattern. Returns 0, or -1 when it does
 * not fit in n bytes. */
int sink_pattern_name(char *buf, size_t n, const char *pattern, long i);

/* Some libraries write to standard error themselves, not through av_log:
 * x264 while it reads its preset (before libavcodec routes its log), SVT-AV1's
 * own logger. sink_stderr_hold sends file descriptor 2 to an unnamed
 * temporary file while such a library call runs; sink_stderr_release puts it
 * back and keeps the first line that reports an error, which the next
 * sink_av_fail adds in parentheses; the rest is dropped. Call both from the
 * thread that owns the sink, with no other output under way. */
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

#endif

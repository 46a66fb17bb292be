/* join.h: `ripplerender join IN... -o OUT`: assembles the outputs of the
 * parts of a run (--range, --chunk) into one, as docs/farm.md ("Joining")
 * describes: videos by copying their packets into one container (no
 * re-encoding), manifests (OUT ending in .json) into one whole-run manifest;
 * and, for --resume (resume.h), a render's segments into its output. */
#ifndef RR_JOIN_H
#define RR_JOIN_H

#include <stdbool.h>

#include "rr_err.h"

/* Runs the join command; argv[1] is "join". Prints its one line on failure
 * and returns the exit status (0, 1 run-time failure, 2 usage or inputs
 * that cannot be joined). */
int join_main(int argc, char **argv);

/* Joins the videos in[0..n-1] (frames following one another) into out by
 * copying their packets, written as every output is (outfile.h; overwrite:
 * -y). Returns 0, or -1 with e filled (RR_EXIT_USAGE: parts that do not fit
 * together; RR_EXIT_RUNTIME: I/O). */
int join_videos(const char *const *in, int n, const char *out, bool overwrite, struct rr_err *e);

struct sink_ops;
/* Before a run whose segments kind's join will join (--save-state): when
 * that is join_videos, its libraries' functions are found now (lazyav_use,
 * sink.h), so that a library lacking one fails the run at its start, not
 * at its end. */
void join_prepare(const struct sink_ops *kind);

/* The same for hash lists (.framemd5, .framehash): the first part's header
 * lines (those starting with '#'), which every part must repeat, then every
 * part's frame lines in order. */
int join_hash_lists(const char *const *in, int n, const char *out, bool overwrite, struct rr_err *e);

#endif

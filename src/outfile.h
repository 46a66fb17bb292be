/* outfile.h: atomic output files: write under a temporary name beside the
 * target, then move into place only when complete.
 *
 * Usage:
 *     struct outfile of = { 0 };
 *     if (outfile_begin(&of, "out/a.mp4", overwrite, e) < 0) return -1;
 *     FILE *f = fopen(outfile_temp_path(&of), "wb");  ... write, fclose ...
 *     if (outfile_commit(&of, e) < 0) ...             (on any failure: outfile_abort)
 *
 * The temporary file is created (empty, mode 0600 widened to 0666 & ~umask) in
 * the target's directory as ".NAME.XXXXXX.tmp", so the final rename never
 * crosses a file system. Without overwrite an existing target is never
 * replaced, not even one that appeared while we were writing (link + unlink). */
#ifndef RR_OUTFILE_H
#define RR_OUTFILE_H

#include <signal.h>
#include <stdbool.h>

#include "rr_err.h"

struct outfile {
    char *target;       /* owned copy of the target path; NULL when idle */
    char *temp;         /* owned path of the temporary file (inside `live`) */
    void *live;         /* this file's entry in the list outfile_remove_temps walks */
    bool overwrite;
};

/* Checks the target (refused when it exists and !overwrite: RR_EXIT_RUNTIME,
 * "PATH: already exists (use -y to replace it)"; its directory must exist) and
 * creates the empty temporary file. `of` must be zeroed or finished. Returns 0,
 * or -1 with e filled and nothing left on disk. */
int outfile_begin(struct outfile *of, const char *target, bool overwrite, struct rr_err *e);

/* Fails like outfile_begin's existence check, without creating anything:
 * used by sinks that write several files (PNG sequences). Returns 0 or -1. */
int outfile_check_target(const char *target, bool overwrite, struct rr_err *e);

/* The temporary file's path; valid between begin and commit/abort. */
const char *outfile_temp_path(const struct outfile *of);

/* Moves the temporary file into place. Returns 0, or -1 with e filled; on
 * failure the temporary file is removed and the target left as it was. The
 * outfile is finished either way. */
int outfile_commit(struct outfile *of, struct rr_err *e);

/* Removes the temporary file and finishes; safe on a zeroed, committed or
 * aborted outfile, any number of times. Cannot fail. */
void outfile_abort(struct outfile *of);

/* Removes every temporary file that is still open (begun, not committed or
 * aborted) in this process. Async-signal-safe (only unlink(2) on a list whose
 * entries are linked and unlinked with SIGINT and SIGTERM blocked): for the
 * signal handler that stops at once on a second Ctrl-C. Returns how many. */
int outfile_remove_temps(void);

/* Holds SIGINT and SIGTERM off in this thread (saving the mask in *old) and
 * lets them through again: for a run of moves that must not be cut in half,
 * such as the frames of a PNG sequence. */
void outfile_hold_signals(sigset_t *old);
void outfile_release_signals(const sigset_t *old);

/* Moves `temp` to `target` with the same rules as outfile_commit (link+unlink
 * without overwrite, rename with it). Does not remove temp on failure. */
int outfile_move(const char *temp, const char *target, bool overwrite, struct rr_err *e);

#endif

/* manifest.h: --manifest FILE.json, the record of one run for tabulating sweeps:
 * the resolved scene, the program's and libraries' versions, the command line,
 * every frame's MD5 (of its rgb24 pixels, as --hash prints it) and timings.
 *
 * Usage:
 *     struct manifest *m;
 *     if (manifest_create(&m, path, overwrite, frames, argc, argv, e) < 0) ...  (before the loop)
 *     manifest_frame(m, i, md5);                     (after frame i is written)
 *     manifest_write(m, sc, !interrupted, e);        (after the loop: a temporary file)
 *     manifest_commit(m, e);                         (after the main output is in place)
 *     manifest_free(m);                              (removes an uncommitted file)
 * The file is written atomically (outfile.c): a run that fails leaves no
 * manifest under its name. Layout: docs/sweeps.md. */
#ifndef RR_MANIFEST_H
#define RR_MANIFEST_H

#include <stdbool.h>

#include "rr_err.h"
#include "scene.h"

struct manifest;

/* Checks that `path` may be written (as every output: refused when it exists
 * and !overwrite), starts the clock, makes room for `frames` hashes and keeps
 * a copy of argv as given (pass it before getopt permutes it). Returns 0, or
 * -1 with e filled (status 1; 2 when an argument is not UTF-8). */
int manifest_create(struct manifest **m, const char *path, bool overwrite, long frames, int argc,
                    char *const *argv, struct rr_err *e);

/* The frames of the run, first .. last of the scene's timeline (--range):
 * manifest_frame's i counts from first. Without a call: 0 .. frames - 1.
 * Accepts a NULL m. */
void manifest_range(struct manifest *m, long first, long last);

/* JSON holds UTF-8 only, and what ripplerender writes it must read back: fails
 * (status 2) when a string of the scene as scene_print writes it is not
 * UTF-8 (a path under a Latin-1 folder), naming `what` ("--print-scene"),
 * the key path and the value. Returns 0, or -1 with e filled. */
int manifest_check_scene_text(const struct scene *sc, const char *what, struct rr_err *e);

/* Records frame i (0-based, in order): its MD5 in hex and the time since the
 * previous frame (or since manifest_create). Cannot fail; ignores i out of range. */
void manifest_frame(struct manifest *m, long i, const char md5[33]);

/* Writes the manifest of the frames recorded so far under a temporary name
 * beside the target. `complete` is false for an interrupted run. Returns 0,
 * or -1 with e filled. */
int manifest_write(struct manifest *m, const struct scene *sc, bool complete, struct rr_err *e);

/* Renames the written manifest into place (a rename only: it fails only when
 * the folder does). Returns 0, or -1 with e filled. */
int manifest_commit(struct manifest *m, struct rr_err *e);

/* Frees m; NULL is fine. */
void manifest_free(struct manifest *m);

#endif

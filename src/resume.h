/* resume.h: a render with --save-state DIR that can be resumed after a crash
 * (--resume), and the outputs it writes meanwhile. docs/farm.md ("Resuming a
 * killed render") is the user's manual.
 *
 * Such a render keeps a record, DIR/resume-FIRST-LAST.json (FIRST, LAST: its
 * range, so that a farm's chunks may share DIR), of what it has finished: the
 * frame of its last checkpoint and the outputs complete up to that frame,
 * each file with its SHA-256. At every checkpoint the outputs are brought up
 * to the checkpoint's frame before the record says so:
 *   - a video or hash list (.framemd5, .framehash) is written as segments,
 *     DIR/part-FIRST.EXT (FIRST: the segment's first frame), one between two
 *     checkpoints; the output is their join (join.h), made at the end;
 *   - a PNG sequence moves the frames written so far into place;
 *   - a manifest's frame hashes go into the record.
 * So a record that exists names a checkpoint and whole outputs up to it: a
 * kill at any moment leaves at most a segment or frames past the recorded
 * checkpoint, which the resumed run writes again. --resume reads the record,
 * checks that the scene and the output settings are the interrupted run's
 * (naming the first key that differs), that the recorded files are there
 * unchanged, loads the checkpoint and renders the frames after it. Of the
 * files under the outputs' own names, --resume replaces without -y only
 * those the record says an interruption left there (their size and SHA-256:
 * the joined frames so far, the manifest; the PNG frames it names); any
 * other file there is refused as without --resume. When the render
 * completes, the segments and the record are removed (the checkpoints
 * stay).
 *
 * GIFs and .npy files are written in one piece (a GIF's palette, an .npy's
 * header, need every frame), and --probes' CSV is not recorded: those runs
 * keep no record, and --resume refuses them.
 *
 * Usage (main.c), in place of state_open, sink_open, state_after_frame and
 * state_finish:
 *     resume_open(&res, &st, &farm_options, sc, &run, e)
 *     resume_sink_open(res, &sink, &pipe, &params, e)      the first segment
 *     for each frame i: resume_before_frame(res, i, e); render, write;
 *                       resume_after_frame(res, sim, i, md5, e)
 *     resume_frames_end(res, sim, e)
 *     ... pipeline_finish, sink_close when *sink is still open ...
 *     resume_complete(res, interrupted, e)                  the join
 *     ... the manifest and the other outputs committed ...
 *     resume_clean(res)                                     when complete
 *     resume_free(res) */
#ifndef RR_RESUME_H
#define RR_RESUME_H

#include <stdbool.h>

#include "manifest.h"
#include "pipeline.h"
#include "rr_err.h"
#include "scene.h"
#include "sim.h"
#include "sink.h"
#include "state.h"

struct resume;

/* What the run writes besides its checkpoints. */
struct resume_run {
    bool writes_output;      /* the main output (-o or output.path) */
    const char *manifest;    /* --manifest, or NULL */
    bool probes;             /* --probes */
    bool validate;           /* --validate: check, write nothing */
    bool validates_output;   /* --validate checks the main output as the run would write it */
};

/* With o->resume, reads DIR's record and checks it against this run; opens
 * the state (state_open) from the record's checkpoint, or as o says when
 * there is no record; writes the record of a run that can be resumed.
 * Returns 0, *out and *st, or -1 with e filled (RR_EXIT_USAGE: a record of
 * another scene or other settings, a recorded file missing or changed, an
 * output that cannot be resumed; RR_EXIT_RUNTIME: I/O). */
int resume_open(struct resume **out, struct state **st, const struct state_options *o, const struct scene *sc,
                const struct resume_run *run, struct rr_err *e);

/* Whether this run, continuing an interrupted render without -y, replaces
 * the file at path (an output's name): *replace is set when it is the file
 * the interruption left there (resume_note_left), cleared when there is
 * none; any other file is refused ("PATH: already exists, and is not the
 * file the interrupted render left there ...", RR_EXIT_RUNTIME). Returns 0,
 * or -1 with e filled. */
int resume_may_replace(const struct resume *r, const char *path, bool *replace, struct rr_err *e);

/* After an interrupted run committed its outputs (the joined frames so
 * far, the manifest: NULL for none): records their sizes and SHA-256s, so
 * that --resume knows them for its own (resume_may_replace). Returns 0, or
 * -1 with e filled. */
int resume_note_left(struct resume *r, const char *manifest, struct rr_err *e);

/* Whether the run keeps a record, so that --resume can continue it. */
bool resume_kept(const struct resume *r);

/* Whether name (a file name, no folder) is one of the forms --save-state DIR
 * holds the run's own files under: state-K.json and state-K.PLANE.npy (the
 * checkpoints, state.c), resume-K-K.json (the records), part-K.EXT (the
 * segments), K of at least six digits, and .resume.lock; for
 * outfile_claim_folder, so that no output is written over one. */
bool resume_dir_owns(const char *name);

/* Records the frames the interrupted render finished into the manifest. */
void resume_manifest(const struct resume *r, struct manifest *m);

/* Opens the sink (for a segmented output: the segment starting at p->first)
 * and its pipeline into *sink and *pipe, which the resume keeps the
 * addresses of: it closes and opens segments there. Opens nothing when no
 * frame is left to render. Returns 0, or -1 with e filled. */
int resume_sink_open(struct resume *r, struct sink **sink, struct pipeline **pipe, const struct sink_params *p,
                     struct rr_err *e);

/* Before frame i is rendered: opens the next segment when the last closed. */
int resume_before_frame(struct resume *r, long i, struct rr_err *e);

/* After frame i is handed to the sink (md5: its hash, when computed, else
 * NULL): at a checkpoint, closes the segment, writes the checkpoint and the
 * record. Returns 0, or -1 with e filled. */
int resume_after_frame(struct resume *r, struct sim *sim, long i, const char *md5, struct rr_err *e);

/* After the frame loop (done or interrupted), as state_finish: closes the
 * segment, writes the last checkpoint and the record. */
int resume_frames_end(struct resume *r, struct sim *sim, struct rr_err *e);

/* The frames written into segments closed by this run (for the progress
 * line, which counts the open sink's frames after them). */
long resume_frames_before(const struct resume *r);

/* Joins the segments into the output (interrupted: the frames so far, which
 * --resume completes). Returns 0, or -1 with e filled. */
int resume_complete(struct resume *r, struct rr_err *e);

/* After every output of a complete render is in place: removes the record
 * and the segments. */
void resume_clean(struct resume *r);

/* Frees r (NULL is fine); removes a record this run wrote that holds no
 * checkpoint. */
void resume_free(struct resume *r);

#endif

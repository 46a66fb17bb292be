/* state.h: where a run sits on the scene's timeline (--range, --chunk) and
 * the simulation's checkpoints (--save-state, --state-every, --load-state).
 * docs/farm.md is the user's manual, with the checkpoint format in full.
 *
 * A run renders the frames first .. last of the scene's fixed timeline (the
 * whole of it by default), each with its real frame number. It reaches its
 * first frame from a checkpoint of a frame k <= first or from frame 0, by
 * simulating the frames before without rendering them (fast-forward).
 *
 * Usage, around the frame loop (main.c):
 *     state_open(&st, &opts, sc, e)            after scene_load: the range, the checks
 *     ... sim_create, sinks for state_count(st) frames from state_first(st) ...
 *     state_start(st, sim, &stop, e)           load the checkpoint, fast-forward
 *     for frame = first .. last: render; state_after_frame(st, sim, e)
 *     state_finish(st, sim, e)                 the checkpoint of the last frame
 *     state_free(st)
 * A checkpoint is written atomically: every file under a temporary name
 * first, then renamed into place, the JSON header last, so a header that
 * exists names whole planes (each with its XXH3-128 digest). */
#ifndef RR_STATE_H
#define RR_STATE_H

#include <signal.h>
#include <stdbool.h>

#include "rr_err.h"
#include "scene.h"
#include "sim.h"

struct state_options {
    const char *range;      /* --range A-B, or NULL */
    const char *chunk;      /* --chunk: "K/N", "/N", "" (the index from the environment), or NULL */
    const char *save_dir;   /* --save-state DIR, or NULL */
    long every;             /* --state-every K, or 0 */
    const char *load;       /* --load-state FILE, or NULL */
    bool overwrite;         /* -y: checkpoints may replace existing ones */
    bool resume;            /* --resume (resume.h), which fills the two below */
    const char *resume_load;   /* the checkpoint to continue from (in place of load), or NULL */
    long resume_at;         /* the first frame to render, when after the range's first; else 0 */
};

struct cJSON;

struct state;

/* Whether a command-line word is a --chunk value ("K/N" or "/N", digits),
 * so that "--chunk K/N" may give it as the next word. */
bool state_chunk_word(const char *s);

/* Resolves the range (reading the Slurm or Kubernetes variables for a bare
 * --chunk), reads a --load-state header and checks it against the scene,
 * and checks that the checkpoints to be written may be. Returns 0 and *out,
 * or -1 with e filled: RR_EXIT_USAGE for a bad value or a state of another
 * scene (naming the first differing key), RR_EXIT_RUNTIME for I/O. */
int state_open(struct state **out, const struct state_options *o, const struct scene *sc, struct rr_err *e);

long state_first(const struct state *st);   /* the first frame to render */
bool state_loads(const struct state *st);   /* state_start loads a checkpoint (the sim needs no preroll) */
long state_last(const struct state *st);    /* the last frame to render */
long state_count(const struct state *st);   /* last - first + 1 */
long state_range_first(const struct state *st);   /* the range's first frame: first unless resumed */
long state_saved(const struct state *st);   /* the frame of the last checkpoint in DIR, or -1 */

/* Whether the run writes a checkpoint after frame k (--save-state, and
 * --state-every or the last frame). */
bool state_checkpoint_due(const struct state *st, long frame);

/* The resolved scene as JSON, its input images (initial, obstacles,
 * solver.speed_map) named "sha256:" and their contents' SHA-256; simulated:
 * without the keys that only change the pictures or the files (render,
 * output, probes, time.frames). NULL when out of memory. */
struct cJSON *state_scene_json(const struct scene *sc, bool simulated);

/* Compares two such scenes: when they differ, fills e (RR_EXIT_USAGE) with
 * "WHAT: KEY is A in THERE, B here" for the first differing key (for image
 * files: their contents differ) and returns -1; returns 0 when equal. */
int state_compare_scenes(const struct cJSON *had, const struct cJSON *now, const char *what, const char *there,
                         struct rr_err *e);

/* The SHA-256 of a file's bytes as 64 hex digits into out. Returns 0, or -1
 * when it cannot be read. */
int state_file_sha256(const char *path, char out[65]);

/* Reads a JSON file into *out (NULL when the text is not JSON). Returns 0,
 * or -1 with e filled ("WHAT PATH: cannot read: ...", RR_EXIT_USAGE; memory
 * or a read error: RR_EXIT_RUNTIME). */
int state_read_json(const char *path, const char *what, struct cJSON **out, struct rr_err *e);

/* A malloc'd printf, or NULL (memory). */
char *state_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Brings a new simulation (showing frame 0) to the first frame: writes the
 * loaded checkpoint into it, then simulates the frames before the first
 * without rendering. Stops early, returning 0, at the end of the frame in
 * which *stop becomes set.
 * Returns 0, or -1 with e filled (a plane that does not match its header or
 * the simulation: RR_EXIT_USAGE; I/O or a blow-up: RR_EXIT_RUNTIME). */
int state_start(struct state *st, struct sim *sim, const volatile sig_atomic_t *stop, struct rr_err *e);

/* After a frame is rendered: writes its checkpoint when --state-every says
 * so. Returns 0, or -1 with e filled (RR_EXIT_RUNTIME). */
int state_after_frame(struct state *st, struct sim *sim, struct rr_err *e);

/* After the frame loop (done or interrupted): with --save-state, writes the
 * checkpoint of the frame the simulation shows, unless already written. */
int state_finish(struct state *st, struct sim *sim, struct rr_err *e);

void state_free(struct state *st);   /* accepts NULL */

#endif

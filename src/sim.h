/* sim.h: the simulation: owns the field, the solver, the sources and the wall
 * mask, and advances one frame (steps_per_frame steps) at a time.
 *
 * Frame n shows the water at time n / fps, after n * steps_per_frame steps and
 * after the sources due at that step were applied, so a drop at time 0 is
 * visible in frame 0. time.preroll adds steps before step 0 (sim_create
 * takes them), and time.loop repeats the sources with the clip's period
 * (src/sources.c). */
#ifndef RR_SIM_H
#define RR_SIM_H

#include <signal.h>

#include "field.h"
#include "rr_err.h"
#include "scene.h"
#include "solver.h"
#include "sources.h"

struct sim;

/* The most buffers a simulation's state has: two planes and the solver's. */
#define SIM_STATE_BUFS 8

/* Everything that carries a simulation from one frame to the next (all the
 * rest follows from the scene): for checkpoints (src/state.c). */
struct sim_state {
    long frame;                   /* the frame the field shows */
    long long step;               /* steps taken */
    long drops_applied;           /* planned drops stamped so far */
    const struct planned_drop *drops;   /* the plan (rain drawn from its seed) */
    int n_drops;
    int n_bufs;                   /* "cur", "prev" (interior cells), then the solver's */
    struct solver_state_buf bufs[SIM_STATE_BUFS];
};

/* Builds the simulation for a validated scene: allocates the field, rasterises
 * the obstacles (loading mask PNGs), plans the sources (rain drawn from its
 * seed), sets the initial conditions, applies the sources of the first step
 * and takes the preroll's steps (time.preroll), to step 0: frame 0.
 * Returns 0 and *out, or -1 with e filled: RR_EXIT_USAGE for scene problems
 * found only now (a missing or broken mask, a solver limit), RR_EXIT_RUNTIME
 * for memory. *out is NULL on failure. */
int sim_create(struct sim **out, const struct scene *sc, struct rr_err *e);

/* sim_create for a simulation whose state a checkpoint overwrites next
 * (sim_get_state, sim_set_counters): the same, without the preroll's steps. */
int sim_create_restart(struct sim **out, const struct scene *sc, struct rr_err *e);

/* Advances to the next frame. Returns 0, or -1 with e filled (RR_EXIT_RUNTIME)
 * when a height became NaN, infinite or runaway, naming the frame. */
int sim_advance_frame(struct sim *s, struct rr_err *e);

/* A frame's rows as sim_advance_frames hands them out: rows y0 .. y1 - 1 of
 * frame `frame`, whose heights are heights->cur (the field's layout, ghost
 * columns set; heights->prev is NULL). Rows y0 - 1 and y1 hold that frame
 * too (at the grid's edges, the ghost rows) for as long as the call runs. */
typedef void (*sim_rows_fn)(void *arg, long frame, const struct field *heights, int y0, int y1);

/* Advances `frames` frames, fusing steps across frame boundaries where
 * nothing acts between them (the same condition as within a frame:
 * solver_ops.advance, no absorbing edge, no source due, no wall moving, no
 * top/bottom wrap): a frame that ends inside a fused pass exists only while
 * the wavefront passes its rows, so each frame's rows are handed to fn (NULL:
 * none) as soon as they are final, while they are in cache. fn is called
 * for every row of each of the frames exactly once, in bands, from the
 * team's threads (src/team.h), several at once, frames interleaved and in
 * no set order; it must not use the team itself. The blow-up check is
 * sim_advance_frame's, for each frame, naming the same frame and cell.
 * The frames and every bit of them are those of `frames` calls of
 * sim_advance_frame. Returns 0 and *done = frames, or -1 with e filled and
 * *done the frames before the failing one (those handed out after it are
 * to be dropped; the simulation is then not to be advanced again). */
int sim_advance_frames(struct sim *s, int frames, sim_rows_fn fn, void *arg, int *done, struct rr_err *e);

/* The same, looking at *stop (NULL: never) after each fused pass that ends
 * at a frame's end (a pass is at most a few frames' steps): once it is set,
 * returns 0 there with *done the frames made (at most frames), handed out
 * whole and none after, the simulation showing frame *done of the call as
 * sim_advance_frame would, ready to go on. A stop set before the call still
 * makes a frame or more. */
int sim_advance_frames_until(struct sim *s, int frames, sim_rows_fn fn, void *arg, const volatile sig_atomic_t *stop,
                             int *done, struct rr_err *e);

/* The field as it is now (valid until the next sim_advance_frame). */
const struct field *sim_field(const struct sim *s);

/* The wall mask: w * h bytes, row-major, 1 where an obstacle is. */
const unsigned char *sim_walls(const struct sim *s);

/* The index of the frame the field now shows (0 after sim_create). */
long sim_frame(const struct sim *s);

/* Fills st with the live state: the buffers point into the simulation, to be
 * read (a checkpoint) or written over (a restart) before the next advance. */
void sim_get_state(struct sim *s, struct sim_state *st);

/* Sets the counters from a checkpoint (frame, step, drops_applied of st; the
 * buffers are written in place through sim_get_state's pointers). Returns 0,
 * or -1 when the drops applied are more than the plan holds. */
int sim_set_counters(struct sim *s, const struct sim_state *st);

/* A time.loop's leftover start: the factor exp(-rate * preroll) by which the
 * warm-up shrinks the slowest free motion of the scene's solver
 * (solver_decay_rate, set in *rate, 1/s; 0: undamped). Above 1/256 the
 * loop's seam may show (main.c warns). */
double sim_loop_residue(const struct scene *sc, double *rate);

/* After sim_set_counters: the walls of the step set (moving walls follow
 * from the step alone; the field read back holds the water they displaced).
 * Returns 0, or -1 with e filled when a mask sequence's file cannot be read. */
int sim_sync_walls(struct sim *s, struct rr_err *e);

/* Frees everything; accepts NULL. */
void sim_free(struct sim *s);

#endif

/* solver.h: the solver interface and its registry.
 *
 * A solver advances the field by one time step in place: on entry f->cur is
 * the height now and f->prev the height one step ago; on return f->cur holds
 * the new height and f->prev the old "now" (solvers swap with field_swap).
 * Ghost cells of f->cur must be filled by the solver (field_fill_ghosts) before
 * it reads neighbours. Walls are zeroed by the caller after the step. */
#ifndef RR_SOLVER_H
#define RR_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field.h"
#include "rr_err.h"
#include "scene.h"

/* One buffer of a solver's evolving state besides the two height planes
 * (solver_ops.state): rows x cols floats, rows `stride` floats apart. */
struct solver_state_buf {
    const char *name;   /* unique within the solver; letters, digits, '-' and '_' */
    float *data;
    int rows, cols;
    ptrdiff_t stride;
};

struct tblock_kernel;

/* The blow-up screen of one step or one fused pass (solver_ops.step and
 * .advance): sim.c asks for it on a frame's last pass, so that the frame's
 * check (every height finite and within the limit) need not read the grid
 * again. With limit > 0 a solver may compare each cell of the plane it ends
 * on with the limit as its kernel writes it (while the value is in a
 * register), and sets within when it did so for every cell and each had
 * |v| <= limit (not NaN). The caller clears within; a solver that does not
 * screen leaves it false, and the caller then reads the grid itself. */
struct solver_screen {
    float limit;   /* > 0: the limit; 0: no screen */
    bool within;   /* set by the solver: every cell screened and within */
};

/* The most levels a fused pass has (solver_ops.advance's n), and so the
 * size of struct solver_levels' tables. */
#define SOLVER_MAX_LEVELS 16

/* Levels inside a fused pass that end a frame (solver_ops.advance), handed
 * out row by row while they are in cache: sim_advance_frames fuses steps
 * across frame boundaries, and such a level exists only for the moment
 * between its computation and its overwriting two levels later. For each
 * level j of `mask` (bit j, 1 <= j < n) the solver calls
 *     rows(arg, j, plane, y0, y1)
 * once for every row of the grid, in bands [y0, y1), from its threads,
 * several at once and in no set order, each call when the band's rows of
 * level j are final (walls zeroed, ghost columns set) and so are rows
 * y0 - 1 and y1 (the ghost rows at the grid's edges), which stay so until
 * the call returns: a renderer's normals read them. `plane` is the level's
 * heights in the field's layout (cell (x, y) at plane[y * stride + x]).
 * `rows` must not use the team (src/team.h): the solver's threads run it.
 * It screens those levels against `limit` (> 0) as struct solver_screen
 * does, after the walls are zeroed, and sets bad[j] to the field offset of
 * level j's first cell beyond it in row-major order (bad_value[j] its
 * height), or to -1 when there is none. */
struct solver_levels {
    uint32_t mask;
    float limit;
    void (*rows)(void *arg, int level, const float *plane, int y0, int y1);
    void *arg;
    ptrdiff_t bad[SOLVER_MAX_LEVELS];
    float bad_value[SOLVER_MAX_LEVELS];
};

/* What a solver knows, as one table (one file in src/solvers/ defines it and
 * src/solvers/registry.c lists it). Only name, priv_size, init, step and
 * free are required; every optional member says what NULL (or 0) means. */
struct solver_ops {
    const char *name;          /* as in solver.type */
    size_t priv_size;          /* zeroed bytes handed to init */

    /* ---- the scene ---- */
    /* The solver.* keys it reads besides "type" and "half_life" (which every
     * solver takes), NULL-terminated, in the order docs/scene.md lists them.
     * The loader refuses the others, naming these; --print-scene writes only
     * these. Each must be a key the loader parses (src/scene.c). */
    const char *const *keys;
    /* Its own damping key when it takes no per-step factor (no "damping",
     * "damping_shift"): named in the message refusing those. NULL: it takes them. */
    const char *own_damping;
    /* The keys that damp it, for the message when heights run away
     * ("lower the sources' amplitudes or damp more (solver.decay or
     * solver.half_life)"). NULL: "solver.half_life", which every solver takes. */
    const char *damp_advice;

    /* ---- time steps ---- */
    /* Set when its time step has a stability limit: time.steps_per_frame
     * then defaults to "auto" (auto_steps) instead of 2. */
    bool step_limit;
    /* Optional (NULL: 1, stable at any count): what time.steps_per_frame
     * "auto" resolves to for sc, before solver_auto_steps' cap. */
    int (*auto_steps)(const struct scene *sc);

    /* ---- running ---- */
    /* Checks the scene's solver keys against this solver's limits and sets up
     * priv. Returns 0, or -1 with e filled (status RR_EXIT_USAGE for values the
     * user can fix, naming the key). */
    int (*init)(void *priv, const struct scene *sc, struct field *f, struct rr_err *e);
    /* One time step; screen (NULL: none) as struct solver_screen says. Cannot fail. */
    void (*step)(void *priv, struct field *f, struct solver_screen *screen);
    /* Optional (NULL: none): n >= 2 steps at once (temporal blocking,
     * src/tblock.h), each followed by zeroing the wall cells `walls` (sorted
     * field offsets) in f->cur, when nothing else happens between them;
     * screen as in step, for the plane the last of them ends on; levels
     * (NULL: none) the levels before it to hand out as they are done
     * (struct solver_levels). n <= SOLVER_MAX_LEVELS.
     * Returns the steps done: n, or 0 with f untouched when it cannot (the
     * caller then takes single steps). The bits equal those of the single steps. */
    int (*advance)(void *priv, struct field *f, int n, const ptrdiff_t *walls, size_t n_walls,
                   struct solver_screen *screen, struct solver_levels *levels);
    /* Frees what init allocated inside priv (not priv itself). Safe after a failed init. */
    void (*free)(void *priv);
    /* Optional (NULL: none, nothing beyond the field is counted): the bytes
     * init allocates for sc with `threads` threads, for the memory budget
     * (src/budget.c), writing what they are into what (size bytes) for its
     * message ("the spectral solver's padded domain"). */
    uint64_t (*bytes)(const struct scene *sc, int threads, char *what, size_t size);

    /* ---- waves ---- */
    /* Optional (NULL: the 4-neighbour relation cos w = (cos kx + cos ky) / 2,
     * a fair start): the angular frequency in radians per step of the mode
     * with wavenumbers kx, ky (radians per cell), from its discrete
     * dispersion relation (docs/solvers.md): what an initial wave and a
     * drop's ripples travel by (src/sources.c). */
    double (*omega)(const struct scene *sc, double kx, double ky);
    /* Optional (NULL: none): the speed of long waves at cell (x, y) in cells
     * per step (after init), for Mur's condition on absorbing edges
     * (src/sim.c), which assumes a leapfrog pair of planes. Without it the
     * edges get the sponge only, on the new plane. */
    double (*cell_speed)(const void *priv, const struct scene *sc, int x, int y);
    /* Where its `fixed` edges hold the height 0 (src/field.h): FIXED_WALL_CELL
     * (0, the default) in the ghost cell one cell beyond the edge cell, as
     * field_fill_ghosts fills it; FIXED_WALL_FACE at the edge cell's face
     * (spectral). The renderer's slopes at the edges read the ghosts this
     * makes (src/render/water.c). */
    enum fixed_wall fixed_wall;
    /* Optional (NULL: its domain ends at the grid): where the surface of
     * f->cur goes on beyond the absorb edge `side` in the solver's own
     * domain (spectral: its absorbing pads), as field_beyond returns it
     * (src/field.h), or NULL for an edge it does not continue. Asked on
     * demand between steps (sim.c hands it to the field as struct field's
     * beyond), so it answers for the heights now. The renderer's slopes
     * take those cells as the edge cells' neighbours (src/render/water.c). */
    const float *(*beyond)(const void *priv, enum edge_side side, ptrdiff_t *stride);
    /* Set when the solver itself takes what sim.c changes in f->cur between
     * steps as water displaced at rest (spectral): sim.c then puts the
     * initial images into f->cur alone, after init (sources_initial). */
    bool displaces_at_rest;
    /* Optional (NULL: -ln(d) / (2 dt) with d = solver_damping_per_step, the
     * seed solvers' sqrt(d) per step): the rate (1/s) at which the slowest
     * free motion's amplitude decays, 0 when nothing decays; what a
     * time.preroll must outlast before a time.loop repeats (solver_decay_rate). */
    double (*decay_rate)(const struct scene *sc);
    /* Set when time.loop makes its free motion repeat after the loop by
     * itself (spectral: every frequency a whole number of turns per loop), so
     * that an undamped loop is exact; sim.c refuses an undamped loop otherwise. */
    bool loops_exactly;
    /* Optional (NULL: the planes are the whole state): the buffers that
     * carry state from one step to the next besides f->cur and f->prev, so
     * that a checkpoint (src/state.c) can save them and write them back.
     * Fills at most max entries and returns their number; the pointers are
     * valid until the next step. Everything else in priv must follow from
     * the scene alone. */
    int (*state)(void *priv, struct solver_state_buf *bufs, int max);
    /* Optional (NULL: none): the row kernels of a solver that steps by
     * src/tblock.h's drivers (TBLOCK_SOLVER defines it), for the tests and
     * benchmarks that drive its kernels directly. */
    struct tblock_kernel *(*kernel)(void *priv);
    /* Optional (NULL: none): `step` written as its equation, one cell at a
     * time in the seed's loop (no vectors, threads or fused steps), on the
     * same priv after init: the same bits as `step`, which
     * tests/unit/test_reference.c checks against step and advance. The
     * renderer never calls it; it is the plain path a reader starts from. */
    void (*reference_step)(const void *priv, struct field *f);
};

/* ---- the registry ------------------------------------------------------- */

/* The most solvers a program holds, the table's and those added by
 * solver_register together (callers may size arrays by it). */
#define SOLVER_MAX 32

/* The build's solvers (src/solvers/registry.c), NULL-terminated, in the
 * order messages list them. */
extern const struct solver_ops *const solver_registry[];

/* The solver at index i: the table's, then those solver_register added;
 * NULL past the last. */
const struct solver_ops *solver_at(int i);

/* The solver named name, or NULL when there is none. */
const struct solver_ops *solver_find(const char *name);

/* Adds ops after the table's solvers, for a program (or a test) that brings
 * a solver of its own without adding it to src/solvers/, as SQLite's
 * sqlite3_vfs_register adds a VFS. Call it before loading scenes; not
 * thread-safe. Returns 0, or -1 when the name is taken or SOLVER_MAX
 * solvers are there already. */
int solver_register(const struct solver_ops *ops);

/* Fills names with every solver's name in solver_at order and a NULL (at
 * most SOLVER_MAX + 1 entries), as the scene loader's enums are. */
void solver_names(const char *names[SOLVER_MAX + 1]);

/* Whether solver t reads the solver key `key` ("type" and "half_life": all do). */
bool solver_uses(const struct solver_ops *t, const char *key);

/* ---- what the solvers share --------------------------------------------- */

/* The per-step factor d that the seed solvers (elias, flow, spring) multiply
 * each new height by: from `half_life` T when given, else 1 - 2^-n for
 * `damping_shift` n, else `damping`. elias and flow step h' = d (2 B h - p)
 * (B the stencil's factor for one Fourier mode), whose two roots have
 * |lambda|^2 = d; spring steps h' = B^P d (2h - p), |lambda|^2 = B^P d with
 * B -> 1 for long waves. Either way the height shrinks by sqrt(d) per step
 * (on top of spring's blur), not by d: halving it in T seconds,
 * sqrt(d)^(T / dt) = 1/2, needs d = 0.25^(dt / T), dt = scene_dt. wave turns
 * d into its rate gamma = -ln d / (2 dt) = ln 2 / T. elias applies
 * damping_shift itself, as h' - h' 2^-n (seed 003's form). */
double solver_damping_per_step(const struct scene *sc);

/* The rate (1/s) at which the slowest free motion of sc's solver decays
 * (solver_ops.decay_rate), ignoring absorbing edges: after a warm-up of P
 * seconds a start's trace is exp(-rate P) of what it was (docs/render.md,
 * "Seamless loops"). 0: undamped. */
double solver_decay_rate(const struct scene *sc);
/* The angle in [0, pi] whose cosine is c, c clamped to [-1, 1]: a mode's
 * omega per step from a dispersion relation given as cos omega = c. */
double solver_omega_of_cos(double c);

/* What time.steps_per_frame "auto" resolves to: the solver's auto_steps
 * (wave: the smallest stable count; spectral: the smallest count at which
 * sources cannot drive the grid's shortest waves by aliasing), capped at
 * 1000; 1 for a solver without (stable at any count). */
int solver_auto_steps(const struct scene *sc);

/* ---- helpers of particular solvers, defined in their files (src/solvers/)
 * and exported for their tests ---- */

/* spring.c: the number of grid axes along which the spring solver's blur
 * has neighbours: 2 on a W x H grid, 1 on a W x 1 or 1 x H grid (seed 002's
 * 1-D blur), 0 on a single cell. */
int solver_spring_axes(const struct scene *sc);

/* spring.c: the factor by which one pass of the spring blur multiplies the
 * Fourier mode with cos kx = cx, cos ky = cy: with b = blend and
 * m = solver_spring_axes,
 * B = (1 + sum over those axes of (2 (1 - b) + 2 b cos k)) / (1 + 2 m). */
double solver_spring_blur(const struct scene *sc, double cx, double cy);

/* wave.c: the wave solver's Courant condition, shared by its init and by
 * "auto" steps: stable when c dt / dx <= 1/sqrt(2) with dt = 1 / (fps * steps),
 * c the fastest speed (m/s) and dx the cell size (m). */
int solver_wave_stable(double cmax, double fps, int steps, double dx);

/* wave.c: the smallest steps_per_frame (>= 1) that solver_wave_stable accepts. */
int solver_wave_min_steps(double cmax, double fps, double dx);

/* spectral.c: the angular frequency (rad/s) of linear water waves of
 * wavenumber k (rad/m) for the spectral solver's keys:
 * omega^2 = (g k + (sigma / rho) k^3) tanh(k d), tanh -> 1 without a depth. */
double solver_water_omega(const struct solver_config *c, double k);

/* spectral.c: the FFT domain (*nx x *ny cells, pads included) of the
 * spectral solver for the scene's grid, edges and absorb_width. */
void solver_spectral_domain(const struct scene *sc, int *nx, int *ny);

/* spectral.c, for tests: the transform of one line of n complex values
 * (in, out: 2 n floats, real and imaginary parts interleaved) along an
 * axis of n cells with edges lo and hi (fixed or clamp), forward or back,
 * as a step computes it (the real-to-real pair of the edges, each part
 * transformed alone), its modes in the order of their wavenumbers (an axis
 * may hold them reversed). -1 when it cannot. */
int solver_spectral_line(int n, enum edge_kind lo, enum edge_kind hi, bool back, const float *in, float *out);

/* spectral.c, for tests: what a step's column pass makes of two columns of
 * n complex values za and zb (2 n floats each) along a y axis of n cells
 * with edges lo and hi (fixed or clamp) on a real-to-real x axis: both
 * transformed, multiplied by a (n values for each column, za's then zb's)
 * and b = bx[c] by[j], and back as one complex line into out (2 n floats),
 * `fused` in the step's one pass between the transforms or the plain way
 * (each line transformed, multiplied, transformed back in turn); `mean`
 * (clamp edges only: the axis has a mode of wavenumber 0): za's mode 0
 * takes b = 0 and dmean. -1 when it cannot (fused: on an odd length with
 * one fixed and one clamp edge, where FFTW's own kinds run). */
int solver_spectral_pair(int n, enum edge_kind lo, enum edge_kind hi, bool fused, const float *za, const float *zb,
                         const float *a, const float *bx, const float *by, bool mean, float dmean, float *out);

/* spectral.c, for tests: on, a step takes the plain path, the one that must
 * give the same bits as the fast one: every loop that takes several values
 * at a time (SSE2, GCC's vectors) runs its scalar form over the whole line,
 * and the passes go unfused (each line packed, transformed, multiplied,
 * transformed back and copied in turn); off (the default), the fast path.
 * Not thread-safe: set it between steps. */
void solver_spectral_plain(bool on);

/* spectral.c, for tests: the way a domain under PAR_MIN cells takes its
 * steps: 0 one thread, 1 the team (team_threads()), -1 (the default)
 * whichever its last steps were faster (par_choice.h). Not thread-safe:
 * set it between steps. */
void solver_spectral_ways(int way);

#endif

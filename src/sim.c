/* sim.c: the simulation: field + solver + sources + walls, advanced one frame
 * (steps_per_frame steps) at a time (see sim.h).
 *
 * One step: the solver's update; on `absorb` edges Mur's condition on the
 * edge cells, then the sponge layers; wall cells set to 0 in both planes
 * (seed 000: obstacles hold height 0, so waves reflect from them inverted);
 * then the sources due at the new step. Steps with nothing between them but
 * the walls (no absorbing edge, no source due) go to the solver's `advance` in
 * one call when it has one (temporal blocking, src/tblock.c: the same bits;
 * docs/performance.md); sim_advance_frames lets such a call run across
 * frame boundaries, handing out the frames inside it row by row. The scene must outlive the sim (the sources read its
 * oscillators and movers). */
#include "sim.h"

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obstacles.h"
#include "solver.h"
#include "sources.h"
#include "tblock.h"
#include "team.h"

/* Strength of the sponge layer of `absorb` edges (see sponge_profile): weak,
 * because Mur's condition on the edge takes what arrives head-on; the layer
 * takes the oblique part (measured in tests/unit/test_wave.c, docs/solvers.md). */
#define SPONGE_A 0.02
/* Solvers without Mur's condition (spectral, whose FFT domain has its own
 * absorbing pad beyond the grid) keep the strong sponge on the new plane only:
 * spectral takes what sim.c changes in the new plane as displaced at rest
 * itself (docs/solvers.md), so touching its old plane too would count twice. */
#define SPONGE_A_ALONE 0.5
#define BLOWUP_LIMIT 1e6f

struct sim {
    const struct scene *sc;
    struct field f;
    const struct solver_ops *ops;
    void *priv;
    struct sources *src;
    unsigned char *walls;
    ptrdiff_t *wall_idx;      /* field offsets (y * stride + x) of the wall cells, ascending */
    size_t n_walls, cap_walls;
    struct walls *wl;         /* the obstacles, still and moving (obstacles.h) */
    float *sponge[4];         /* per edge: factors for cells 0 .. width-1 from the edge, or NULL */
    int sponge_n[4];
    bool sponge_old_plane;    /* the sponge damps the old plane too (with Mur) */
    float *mur[4];            /* per absorbing edge: Mur's (nu - 1) / (nu + 1) along the edge, or NULL */
    long long step;
    long frame;
};


/* The sponge factor of the cell i cells in from an absorbing edge (i = 0 is the
 * edge cell), for a layer `width` cells deep: 1 - SPONGE_A u^2 with
 * u = (width - i) / width, so the factor is 1 - SPONGE_A at the edge and
 * rises quadratically (zero slope) towards 1 just inside the layer. With
 * Mur's condition it is applied once per step to both planes (the new heights and the ones before), so the
 * layer damps height and velocity alike: multiplying only the new plane would
 * kick the velocity and leave a standing offset behind (bad in 1-D). */
static float *sponge_profile(int width, double strength)
{
    float *p = malloc((size_t)width * sizeof *p);
    if (!p)
        return NULL;
    for (int i = 0; i < width; i++) {
        double u = (double)(width - i) / width;
        p[i] = (float)(1.0 - strength * u * u);
    }
    return p;
}

/* The speed of long waves in cells per step at cell (x, y), for Mur's
 * boundary condition: the solver's (solver_ops.cell_speed, from the
 * long-wave limit of its dispersion relation, docs/solvers.md), or -1 for a
 * solver that gives none (its edges get the sponge only: Mur's condition
 * assumes a leapfrog pair of planes). */
static double long_wave_speed(const struct sim *s, int x, int y)
{
    return s->ops->cell_speed ? s->ops->cell_speed(s->priv, s->sc, x, y) : -1;
}

/* Mur's coefficients along an absorbing edge: (nu - 1) / (nu + 1) per edge cell. */
static float *mur_profile(const struct sim *s, int side)
{
    const int w = s->f.w, h = s->f.h;
    int n = side == EDGE_LEFT || side == EDGE_RIGHT ? h : w;
    float *k = malloc((size_t)n * sizeof *k);
    if (!k)
        return NULL;
    for (int i = 0; i < n; i++) {
        int x = side == EDGE_LEFT ? 0 : side == EDGE_RIGHT ? w - 1 : i;
        int y = side == EDGE_TOP ? 0 : side == EDGE_BOTTOM ? h - 1 : i;
        double nu = long_wave_speed(s, x, y);
        k[i] = (float)((nu - 1) / (nu + 1));
    }
    return k;
}

/* Mur's formula for edge cell o with inward neighbour o + d and
 * coefficient k: e' = i + k (i' - e) (apply_mur). */
static inline float mur_cell(const float *cur, const float *prev, ptrdiff_t o, ptrdiff_t d, float k)
{
    return prev[o + d] + k * (cur[o + d] - prev[o]);
}

/* Mur's first-order absorbing condition u_t + nu u_n = 0 on the edge cells of
 * `absorb` edges, discretised as
 *     e' = i + (nu - 1) / (nu + 1) (i' - e)
 * (e: the edge cell, i: its inward neighbour, ' the new step): the new plane
 * is f->cur, the old one f->prev after the solver's swap. A corner cell
 * between two absorbing edges takes the mean of both edges' formulas, each
 * from the solver's new heights (taken before any edge cell changes), so that
 * a scene and its transpose give transposed frames: letting one edge's
 * formula win would favour one axis. */
static void apply_mur(struct sim *s)
{
    struct field *f = &s->f;
    const int w = f->w, h = f->h;
    const ptrdiff_t st = f->stride;
    float *cur = f->cur;
    const float *prev = f->prev;
    const float *kl = w >= 2 ? s->mur[EDGE_LEFT] : NULL, *kr = w >= 2 ? s->mur[EDGE_RIGHT] : NULL;
    const float *kt = h >= 2 ? s->mur[EDGE_TOP] : NULL, *kb = h >= 2 ? s->mur[EDGE_BOTTOM] : NULL;
    /* The corners: cell offset, inward neighbours along x (dx) and y (dy). */
    const struct { const float *kx, *ky; int kxi, kyi; ptrdiff_t o, dx, dy; } c[4] = {
        { kl, kt, 0, 0, 0, 1, st },
        { kr, kt, 0, w - 1, w - 1, -1, st },
        { kl, kb, h - 1, 0, (h - 1) * st, 1, -st },
        { kr, kb, h - 1, w - 1, (h - 1) * st + w - 1, -1, -st },
    };
    float corner[4];
    for (int k = 0; k < 4; k++) {
        if (!c[k].kx || !c[k].ky)
            continue;
        ptrdiff_t o = c[k].o, dx = c[k].dx, dy = c[k].dy;
        float ex = mur_cell(cur, prev, o, dx, c[k].kx[c[k].kxi]);
        float ey = mur_cell(cur, prev, o, dy, c[k].ky[c[k].kyi]);
        corner[k] = 0.5f * (ex + ey);
    }
    for (int y = 0; kl && y < h; y++) {
        ptrdiff_t o = y * st;
        cur[o] = mur_cell(cur, prev, o, 1, kl[y]);
    }
    for (int y = 0; kr && y < h; y++) {
        ptrdiff_t o = y * st + w - 1;
        cur[o] = mur_cell(cur, prev, o, -1, kr[y]);
    }
    for (int x = 0; kt && x < w; x++)
        cur[x] = mur_cell(cur, prev, x, st, kt[x]);
    for (int x = 0; kb && x < w; x++) {
        ptrdiff_t o = (h - 1) * st + x;
        cur[o] = mur_cell(cur, prev, o, -st, kb[x]);
    }
    for (int k = 0; k < 4; k++)
        if (c[k].kx && c[k].ky)
            cur[c[k].o] = corner[k];
}

/* A loop over the rows of one plane (team_for). */
struct plane_job {
    const struct sim *s;
    float *g;
    atomic_int found;   /* check_finite: a row with a bad cell */
};

/* The left and right absorbing layers of rows lo .. hi - 1. */
static void sponge_sides(void *arg, int lo, int hi)
{
    const struct plane_job *j = arg;
    const int w = j->s->f.w;
    const ptrdiff_t st = j->s->f.stride;
    const float *pl = j->s->sponge[EDGE_LEFT], *pr = j->s->sponge[EDGE_RIGHT];
    const int nl = j->s->sponge_n[EDGE_LEFT], nr = j->s->sponge_n[EDGE_RIGHT];
    for (int y = lo; y < hi; y++) {
        float *row = j->g + y * st;
        for (int i = 0; i < nl; i++)
            row[i] *= pl[i];
        for (int i = 0; i < nr; i++)
            row[w - 1 - i] *= pr[i];
    }
}

/* Multiplies one plane's cells in the absorbing layers by the sponge factors. */
static void sponge_plane(const struct sim *s, float *g)
{
    const int w = s->f.w, h = s->f.h;
    const ptrdiff_t st = s->f.stride;
    const float *pt = s->sponge[EDGE_TOP], *pb = s->sponge[EDGE_BOTTOM];
    const int nt = s->sponge_n[EDGE_TOP], nb = s->sponge_n[EDGE_BOTTOM];
    if (s->sponge[EDGE_LEFT] || s->sponge[EDGE_RIGHT]) {
        struct plane_job j = { .s = s, .g = g };
        /* A small layer on one thread: no handshake each step (after which
         * the idle workers would spin through the step). */
        const long cells = (long)h * (s->sponge_n[EDGE_LEFT] + s->sponge_n[EDGE_RIGHT]);
        team_for(h, team_threads_for(cells, 65536), sponge_sides, &j);
    }
    /* Top and bottom one after the other: a row in both layers (a grid less
     * than two layers high) gets both factors, without a race. */
    for (int i = 0; i < nt; i++)
        for (int x = 0; x < w; x++)
            g[i * st + x] *= pt[i];
    for (int i = 0; i < nb; i++)
        for (int x = 0; x < w; x++)
            g[(h - 1 - i) * st + x] *= pb[i];
}

static void apply_sponges(struct sim *s)
{
    sponge_plane(s, s->f.cur);
    if (s->sponge_old_plane)
        sponge_plane(s, s->f.prev);
}

static void zero_walls(struct sim *s)
{
    float *cur = s->f.cur, *prev = s->f.prev;
    for (size_t k = 0; k < s->n_walls; k++) {
        cur[s->wall_idx[k]] = 0.0f;
        prev[s->wall_idx[k]] = 0.0f;
    }
}

static int check_finite(const struct sim *s, struct rr_err *e);
static bool edges_act(const struct sim *s);
static int take_steps(struct sim *s, long long n, struct solver_screen *screen, struct rr_err *e);
static const char *damp_keys(const struct solver_ops *ops);

/* What an undamped loop would repeat besides the water's own motion, in
 * `what` (size bytes); "" when nothing: no source after step 0, every edge
 * wrap, no obstacle. */
static void undamped_loop_extras(const struct scene *sc, char *what, size_t size)
{
    *what = 0;
    for (int k = 0; k < sc->n_drops; k++)
        if (scene_moment_step(sc, &sc->drops[k].at) != 0) {
            snprintf(what, size, "drops.%d falls after frame 0", k);
            return;
        }
    static const char *const side[4] = { "left", "right", "top", "bottom" };
    for (int k = 0; k < 4; k++)
        if (sc->boundary[k] != EDGE_WRAP) {
            snprintf(what, size, "boundary.%s is %s, not wrap", side[k], scene_edge_name(sc->boundary[k]));
            return;
        }
    if (sc->rain.enabled && sc->rain.rate > 0)
        snprintf(what, size, "rain falls after frame 0");
    else if (sc->n_oscillators)
        snprintf(what, size, "oscillators.0 drives the water after frame 0");
    else if (sc->n_movers)
        snprintf(what, size, "movers.0 drives the water after frame 0");
    else if (sc->n_obstacles)
        snprintf(what, size, "obstacles.0 is a wall");
}

/* time.loop: a damped solver settles into the loop of its repeated sources
 * after the warm-up; an undamped one never forgets its start, so it may loop
 * only when its own free motion repeats (solver_ops.loops_exactly: spectral's
 * quantised frequencies) on a periodic domain with nothing added after frame 0. */
static int check_loop(const struct scene *sc, struct rr_err *e)
{
    const struct solver_ops *ops = sc->solver.type;
    if (!sc->time.loop)
        return 0;
    /* Moving walls follow their own keys, not the loop's period. */
    for (int k = 0; k < sc->n_obstacles; k++)
        if (sc->obstacles[k].motion || sc->obstacles[k].sequence)
            return rr_fail(e, RR_EXIT_USAGE,
                           "time.loop: obstacles.%d moves (its %s), and moving walls do not repeat with the loop; "
                           "keep the walls still in a loop", k, sc->obstacles[k].motion ? "motion" : "mask sequence");
    if (solver_decay_rate(sc) > 0)
        return 0;
    if (!ops->loops_exactly)
        return rr_fail(e, RR_EXIT_USAGE,
                       "time.loop: the %s solver as set does not damp the water, so the clip never settles into a "
                       "loop; damp it (%s)", ops->name, damp_keys(ops));
    char what[96];
    undamped_loop_extras(sc, what, sizeof what);
    if (*what)
        return rr_fail(e, RR_EXIT_USAGE,
                       "time.loop: an undamped %s loop repeats only the water's own motion, on a periodic domain "
                       "(every edge wrap, no obstacles, nothing added after frame 0), but %s; damp it (%s)",
                       ops->name, what, damp_keys(ops));
    return 0;
}

double sim_loop_residue(const struct scene *sc, double *rate)
{
    *rate = solver_decay_rate(sc);
    return exp(-*rate * (double)scene_preroll_steps(sc) * scene_dt(sc));
}

/* The field offset of grid cell c. */
static ptrdiff_t cell_offset(const struct sim *s, size_t c)
{
    return (ptrdiff_t)(c / (size_t)s->f.w) * s->f.stride + (ptrdiff_t)(c % (size_t)s->f.w);
}

/* Makes room for n wall offsets. */
static int reserve_walls(struct sim *s, size_t n, struct rr_err *e)
{
    if (n <= s->cap_walls)
        return 0;
    size_t cap = n > 2 * s->cap_walls ? n : 2 * s->cap_walls;
    ptrdiff_t *p = realloc(s->wall_idx, cap * sizeof *p);
    if (!p)
        return rr_fail(e, RR_EXIT_RUNTIME, "obstacles: out of memory");
    s->wall_idx = p;
    s->cap_walls = cap;
    return 0;
}

/* The wall offsets from the whole mask. */
static int index_walls(struct sim *s, struct rr_err *e)
{
    size_t n = (size_t)s->f.w * s->f.h, m = 0;
    for (size_t k = 0; k < n; k++)
        m += s->walls[k] != 0;
    if (reserve_walls(s, m, e) < 0)
        return -1;
    s->n_walls = 0;
    for (size_t k = 0; k < n; k++)
        if (s->walls[k])
            s->wall_idx[s->n_walls++] = cell_offset(s, k);
    return 0;
}

/* The walls of step `step` (a moving obstacle's motion, a mask sequence's
 * next file): the mask redrawn where it may change (walls_update), the water
 * the moving faces push (walls_flux) and the cells covered and left
 * displace (walls_displace), both as heights displaced at rest: added to
 * both planes, so a steady push is a steady source (on the new plane only for a solver
 * that takes changes there as displaced at rest, as the sponge), and the wall
 * offsets merged with the changes in one pass: O(walls + changes), no scan
 * of the grid. Sets *changed when a cell changed. */
static int move_walls(struct sim *s, long long step, bool *changed, struct rr_err *e)
{
    size_t n, nf;
    if (walls_update(s->wl, step, s->walls, false, e) < 0)
        return -1;
    const struct wall_change *c = walls_changes(s->wl, &n);
    const struct wall_flux *fl = walls_flux(s->wl, &nf);
    walls_displace(c, n, s->walls, s->f.w, s->f.h, s->f.cur, s->ops->displaces_at_rest ? NULL : s->f.prev,
                   s->f.stride);
    for (size_t k = 0; k < nf; k++) {
        ptrdiff_t at = cell_offset(s, fl[k].cell);
        s->f.cur[at] += fl[k].amount;
        if (!s->ops->displaces_at_rest)
            s->f.prev[at] += fl[k].amount;
    }
    *changed = n > 0 || nf > 0;
    if (!n)
        return 0;
    size_t added = 0;
    for (size_t k = 0; k < n; k++)
        added += c[k].covered;
    if (reserve_walls(s, s->n_walls + added + 1, e) < 0)
        return -1;
    /* Merge from the end, in place: the kept offsets and the covered cells,
     * both ascending, skipping the uncovered ones. */
    size_t out = s->n_walls + added, i = s->n_walls, k = n;
    while (k > 0 || i > 0) {
        ptrdiff_t ck = k > 0 ? cell_offset(s, c[k - 1].cell) : -1;
        if (i > 0 && s->wall_idx[i - 1] > ck) {
            s->wall_idx[--out] = s->wall_idx[--i];
        } else if (k > 0 && c[k - 1].covered) {
            s->wall_idx[--out] = ck;
            k--;
        } else {
            if (i > 0 && s->wall_idx[i - 1] == ck)   /* uncovered: drop it */
                i--;
            k--;
        }
    }
    /* Uncovered cells left a gap at the front: move the list down. */
    size_t kept = s->n_walls + added - out;
    memmove(s->wall_idx, s->wall_idx + out, kept * sizeof *s->wall_idx);
    s->n_walls = kept;
    return 0;
}

static int create(struct sim **out, const struct scene *sc, bool preroll, struct rr_err *e)
{
    *out = NULL;
    const struct solver_ops *ops = sc->solver.type;
    if (check_loop(sc, e) < 0)
        return -1;
    struct sim *s = calloc(1, sizeof *s);
    if (!s)
        return rr_fail(e, RR_EXIT_RUNTIME, "simulation: out of memory");
    s->sc = sc;
    if (field_init(&s->f, sc->grid.width, sc->grid.height, e) < 0)
        goto fail;
    const int w = s->f.w, h = s->f.h;
    size_t n = (size_t)w * h;
    if (!(s->walls = calloc(n, 1))) {
        rr_fail(e, RR_EXIT_RUNTIME, "obstacles: out of memory");
        goto fail;
    }
    if (walls_create(&s->wl, sc, s->walls, e) < 0 || index_walls(s, e) < 0)
        goto fail;
    if (sources_create(&s->src, sc, e) < 0)
        goto fail;
    sources_set_walls(s->src, s->walls);
    if (sources_initial(sc, &s->f, ops->displaces_at_rest ? INITIAL_WAVES : INITIAL_ALL, e) < 0)
        goto fail;
    if (ops->priv_size && !(s->priv = calloc(1, ops->priv_size))) {
        rr_fail(e, RR_EXIT_RUNTIME, "solver: out of memory");
        goto fail;
    }
    if (ops->init(s->priv, sc, &s->f, e) < 0) {
        ops->free(s->priv);
        goto fail;
    }
    s->ops = ops;
    s->f.beyond = ops->beyond;
    s->f.beyond_of = s->priv;
    if (ops->displaces_at_rest && sources_initial(sc, &s->f, INITIAL_IMAGES_CUR, e) < 0)
        goto fail;
    s->sponge_old_plane = long_wave_speed(s, 0, 0) >= 0;
    for (int side = 0; side < 4; side++) {
        if (sc->boundary[side] != EDGE_ABSORB)
            continue;
        if (s->sponge_old_plane && !(s->mur[side] = mur_profile(s, side))) {
            rr_fail(e, RR_EXIT_RUNTIME, "boundary: out of memory");
            goto fail;
        }
        if (sc->absorb_width <= 0)
            continue;
        int dim = side == EDGE_LEFT || side == EDGE_RIGHT ? w : h;
        int width = sc->absorb_width < dim ? sc->absorb_width : dim;
        if (!(s->sponge[side] = sponge_profile(width, s->sponge_old_plane ? SPONGE_A : SPONGE_A_ALONE))) {
            rr_fail(e, RR_EXIT_RUNTIME, "boundary: out of memory");
            goto fail;
        }
        s->sponge_n[side] = width;
    }
    /* time.preroll: the simulation starts preroll steps before frame 0, so
     * frame 0 is still step 0 (checkpoints and --range count from there). */
    s->step = -scene_preroll_steps(sc);
    sources_apply(s->src, s->step, &s->f);
    zero_walls(s);
    if (preroll && s->step < 0) {
        struct solver_screen screen;
        if (take_steps(s, -s->step, &screen, e) < 0)
            goto fail;
    }
    if (check_finite(s, e) < 0)   /* frame 0 too: never render a runaway frame */
        goto fail;
    *out = s;
    return 0;
fail:
    sim_free(s);
    return -1;
}

int sim_create(struct sim **out, const struct scene *sc, struct rr_err *e) { return create(out, sc, true, e); }

int sim_create_restart(struct sim **out, const struct scene *sc, struct rr_err *e)
{
    return create(out, sc, false, e);
}

/* What to change when heights run away: every solver is stable as loaded
 * (init checks its limits: wave's Courant number, spring's blend), so what
 * grows without bound is what the sources put in and the damping does not
 * take out; the solver names the keys that damp it. */
static const char *damp_keys(const struct solver_ops *ops)
{
    return ops->damp_advice ? ops->damp_advice : "solver.half_life";
}

/* Sets j->found when a cell of rows lo .. hi - 1 of the current plane is
 * beyond the blow-up limit or NaN. */
static void find_bad_rows(void *arg, int lo, int hi)
{
    struct plane_job *j = arg;
    const struct field *f = &j->s->f;
    int rb = 0;
    for (int y = lo; y < hi; y++) {
        const float *row = f->cur + y * f->stride;
        for (int x = 0; x < f->w; x++)
            rb |= !(fabsf(row[x]) <= BLOWUP_LIMIT);
    }
    if (rb)
        atomic_store_explicit(&j->found, 1, memory_order_relaxed);
}

static int blew_up(const struct sim *s, long frame, float v, int x, int y, struct rr_err *e)
{
    return rr_fail(e, RR_EXIT_RUNTIME,
                   "frame %ld: the simulation blew up (height %g at cell %d,%d); "
                   "lower the sources' amplitudes or damp more (%s)",
                   frame, (double)v, x, y, damp_keys(s->ops));
}

/* Deterministic for any thread count: the parallel part only sets a flag;
 * the first bad cell is then found in row-major order on one thread. */
static int check_finite(const struct sim *s, struct rr_err *e)
{
    const struct field *f = &s->f;
    const int w = f->w, h = f->h;
    struct plane_job j = { .s = s };
    atomic_init(&j.found, 0);
    team_for(h, team_threads_for((long)w * h, 65536), find_bad_rows, &j);
    if (!atomic_load(&j.found))
        return 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float v = f->cur[y * f->stride + x];
            if (!(fabsf(v) <= BLOWUP_LIMIT))
                return blew_up(s, s->frame, v, x, y, e);
        }
    return 0;
}

/* How many of the next `left` steps may run fused (solver_ops.advance,
 * src/tblock.c): steps with no absorbing edge and no source due between them (the
 * sources due after the last of them are applied as usual). 1: none. */
static int fusable_steps(const struct sim *s, int left)
{
    if (!s->ops->advance || left < 2 || edges_act(s))   /* an absorbing edge acts between steps */
        return 1;
    /* The first step after which a source is due or the walls change (both
     * LLONG_MAX when never: taken before subtracting, as steps may be
     * negative in the preroll). */
    long long next = sources_next_due(s->src, s->step + 1), moves = walls_next_change(s->wl, s->step + 1);
    next = moves < next ? moves : next;
    long long due = next > s->step + left ? left : next - s->step;
    int n = due < left ? (int)due : left, most = tblock_max_steps(&s->f);
    return n < most ? n : most;
}

/* The screen's limit for a pass of steps: the blow-up limit when the pass
 * ends the frame and nothing acts on the field after the steps but wall
 * zeroing (sim_advance_frame), else 0 (off: the frame check needs no more). */
static float screen_limit(bool edges_act, bool ends_frame)
{
    return !edges_act && ends_frame ? BLOWUP_LIMIT : 0.0f;
}

/* Whether any edge acts between steps (Mur's condition, a sponge): then no
 * step fuses and the screen is off (screen_limit). */
static bool edges_act(const struct sim *s)
{
    for (int k = 0; k < 4; k++)
        if (s->sponge[k] || s->mur[k])
            return true;
    return false;
}

/* Where the steps a call takes end frames: the first after to_frame steps
 * (1 ..), then every spf. */
struct frame_ends {
    long long to_frame;
    int spf;
};

/* Whether the j-th step from now (j >= 1) ends a frame. */
static bool ends_frame(struct frame_ends fe, long long j)
{
    return j >= fe.to_frame && (j - fe.to_frame) % fe.spf == 0;
}

/* One pass of at most `left` steps: fused where nothing acts between them
 * (fusable_steps), else one step; then the walls moved and the sources
 * applied after its last step. levels (NULL: none): the frames that end
 * inside a fused pass (ends_frame) set in its mask and handed out by the
 * solver (struct solver_levels; the mask is 0 after a single step). Returns
 * the steps taken and *touched (1 when a source or a moving wall changed
 * the field after the last step), or -1 with e filled (a mask sequence's
 * file could not be read); *screen is what the pass screened. */
static int take_pass(struct sim *s, long long left, struct frame_ends fe, struct solver_levels *levels,
                     struct solver_screen *screen, int *touched, struct rr_err *e)
{
    /* The solver may screen the last step's cells for the blow-up check as
     * it writes them (struct solver_screen); when nothing changed the field
     * after that step but wall zeroing (which only lowers heights) and the
     * screen found every cell within the limit, the check has nothing to
     * find and the frame skips reading the whole grid again. */
    const bool edges = edges_act(s);
    int m = fusable_steps(s, left < INT_MAX ? (int)left : INT_MAX);
    if (levels) {
        levels->mask = 0;
        for (int j = 1; j < m; j++)
            levels->mask |= (uint32_t)ends_frame(fe, j) << j;
    }
    *screen = (struct solver_screen){ .limit = screen_limit(edges, ends_frame(fe, m)) };
    if (m > 1 && s->ops->advance(s->priv, &s->f, m, s->wall_idx, s->n_walls, screen, levels) == m) {
        s->step += m - 1;
    } else {
        m = 1;
        if (levels)
            levels->mask = 0;
        *screen = (struct solver_screen){ .limit = screen_limit(edges, ends_frame(fe, 1)) };
        s->ops->step(s->priv, &s->f, screen);
        apply_mur(s);
    }
    apply_sponges(s);
    bool moved = false;
    if (walls_next_change(s->wl, s->step + 1) == s->step + 1 && move_walls(s, s->step + 1, &moved, e) < 0)
        return -1;
    zero_walls(s);
    s->step++;
    *touched = moved || sources_next_due(s->src, s->step) <= s->step;
    sources_apply(s->src, s->step, &s->f);
    return m;
}

/* Takes n steps (ending a frame, or the preroll) by passes. Returns 1 when
 * a source or a moving wall changed the field after the last step, else 0,
 * or -1 with e filled; *screen is what the last pass screened. */
static int take_steps(struct sim *s, long long n, struct solver_screen *screen, struct rr_err *e)
{
    int touched = 0;
    *screen = (struct solver_screen){ 0 };
    for (long long k = 0; k < n;) {
        int m = take_pass(s, n - k, (struct frame_ends){ .to_frame = n - k, .spf = 1 }, NULL, screen, &touched, e);
        if (m < 0)
            return -1;
        k += m;
    }
    return touched;
}

int sim_advance_frame(struct sim *s, struct rr_err *e)
{
    struct solver_screen screen;
    int touched = take_steps(s, scene_steps_per_frame(s->sc), &screen, e);
    if (touched < 0)
        return -1;
    s->frame++;
    return !touched && screen.within ? 0 : check_finite(s, e);
}

/* sim_advance_frames' frames as they are handed out: a solver's level
 * (struct solver_levels) or the whole field after a pass. */
struct frame_out {
    const struct sim *s;
    sim_rows_fn fn;
    void *arg;
    long first;            /* the frame the first level handed out shows */
    struct frame_ends fe;  /* of the pass */
    long frame;            /* the whole field's frame (field_rows) */
};

/* The frame of level j of the pass. */
static long level_frame(const struct frame_out *o, int j)
{
    return o->first + (long)((j - o->fe.to_frame) / o->fe.spf);
}

/* A field that shows `plane` as its heights (and, when that is f's own
 * heights now, where the solver continues them beyond the edges). */
static struct field view_of(const struct field *f, const float *plane)
{
    struct field v = { .w = f->w, .h = f->h, .stride = f->stride, .cur = (float *)plane };
    if (plane == f->cur) {
        v.beyond = f->beyond;
        v.beyond_of = f->beyond_of;
    }
    return v;
}

static void level_rows(void *arg, int level, const float *plane, int y0, int y1)
{
    const struct frame_out *o = arg;
    if (!o->fn)
        return;
    const struct field v = view_of(&o->s->f, plane);
    o->fn(o->arg, level_frame(o, level), &v, y0, y1);
}

/* Rows lo .. hi - 1 of the field as it is (a team_body). */
static void field_rows(void *arg, int lo, int hi)
{
    const struct frame_out *o = arg;
    const struct field v = view_of(&o->s->f, o->s->f.cur);
    o->fn(o->arg, o->frame, &v, lo, hi);
}

int sim_advance_frames(struct sim *s, int frames, sim_rows_fn fn, void *arg, int *done, struct rr_err *e)
{
    return sim_advance_frames_until(s, frames, fn, arg, NULL, done, e);
}

int sim_advance_frames_until(struct sim *s, int frames, sim_rows_fn fn, void *arg, const volatile sig_atomic_t *stop,
                             int *done, struct rr_err *e)
{
    const int spf = scene_steps_per_frame(s->sc);
    struct frame_out o = { .s = s, .fn = fn, .arg = arg };
    struct solver_levels levels = { .limit = BLOWUP_LIMIT, .rows = level_rows, .arg = &o };
    struct frame_ends fe = { .to_frame = spf, .spf = spf };
    *done = 0;
    for (long long left = (long long)frames * spf; left > 0;) {
        o.first = s->frame + 1;
        o.fe = fe;
        struct solver_screen screen;
        int touched, m = take_pass(s, left, fe, &levels, &screen, &touched, e);
        if (m < 0)
            return -1;
        /* The frames handed out inside the pass, in order: the first that
         * blew up fails the call as sim_advance_frame would have. */
        for (int j = 1; j < m; j++) {
            if (!ends_frame(fe, j))
                continue;
            s->frame++;
            if (levels.bad[j] >= 0) {
                const ptrdiff_t at = levels.bad[j];
                return blew_up(s, s->frame, levels.bad_value[j], (int)(at % s->f.stride), (int)(at / s->f.stride), e);
            }
            ++*done;
        }
        left -= m;
        fe.to_frame = (fe.to_frame - m % spf + spf) % spf;
        if (fe.to_frame != 0)
            continue;
        fe.to_frame = spf;
        s->frame++;
        if (!(!touched && screen.within) && check_finite(s, e) < 0)
            return -1;
        if (fn) {
            o.frame = s->frame;
            team_for(s->f.h, team_threads(), field_rows, &o);
        }
        ++*done;
        /* Here alone the field holds a whole frame, every frame up to it
         * handed out and none after. */
        if (stop && *stop)
            break;
    }
    return 0;
}

const struct field *sim_field(const struct sim *s) { return &s->f; }

const unsigned char *sim_walls(const struct sim *s) { return s->walls; }

long sim_frame(const struct sim *s) { return s->frame; }

void sim_get_state(struct sim *s, struct sim_state *st)
{
    memset(st, 0, sizeof *st);
    st->frame = s->frame;
    st->step = s->step;
    st->drops_applied = sources_applied(s->src);
    st->drops = sources_drops(s->src, &st->n_drops);
    st->bufs[0] = (struct solver_state_buf){ "cur", s->f.cur, s->f.h, s->f.w, s->f.stride };
    st->bufs[1] = (struct solver_state_buf){ "prev", s->f.prev, s->f.h, s->f.w, s->f.stride };
    st->n_bufs = 2;
    if (s->ops->state)
        st->n_bufs += s->ops->state(s->priv, st->bufs + 2, SIM_STATE_BUFS - 2);
}

int sim_set_counters(struct sim *s, const struct sim_state *st)
{
    if (sources_set_applied(s->src, st->drops_applied) < 0)
        return -1;
    s->frame = st->frame;
    s->step = st->step;
    return 0;
}

int sim_sync_walls(struct sim *s, struct rr_err *e)
{
    if (!walls_moving(s->wl))
        return 0;
    return walls_update(s->wl, s->step, s->walls, true, e) < 0 || index_walls(s, e) < 0 ? -1 : 0;
}

void sim_free(struct sim *s)
{
    if (!s)
        return;
    if (s->ops)
        s->ops->free(s->priv);
    free(s->priv);
    sources_free(s->src);
    free(s->walls);
    free(s->wall_idx);
    walls_free(s->wl);
    for (int k = 0; k < 4; k++) {
        free(s->sponge[k]);
        free(s->mur[k]);
    }
    field_free(&s->f);
    free(s);
}

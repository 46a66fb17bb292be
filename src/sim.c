/* sim.c: the simulation: field + solver + sources + walls, advanced one frame
 * (steps_per_frame steps) at a time (see sim.h).
 *
 * One step: the solver's update; the sponge layers of `absorb` edges; wall
 * cells set to 0 in both planes (seed 000: obstacles hold height 0, so waves
 * reflect from them inverted); then the sources due at the new step. The
 * scene must outlive the sim (the sources read its oscillators and movers). */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obstacles.h"
#include "solver.h"
#include "sources.h"

/* Strength of the sponge layer of `absorb` edges (see sponge_profile). */
#define SPONGE_A 0.5
#define BLOWUP_LIMIT 1e6f

struct sim {
    const struct scene *sc;
    struct field f;
    const struct solver_ops *ops;
    void *priv;
    struct sources *src;
    unsigned char *walls;
    ptrdiff_t *wall_idx;      /* field offsets (y * stride + x) of the wall cells */
    size_t n_walls;
    float *sponge[4];         /* per edge: factors for cells 0 .. width-1 from the edge, or NULL */
    int sponge_n[4];
    long long step;
    long frame;
};

static const char *const solver_names[] = { "elias", "flow", "spring", "wave", "spectral" };

/* The sponge factor of the cell i cells in from an absorbing edge (i = 0 is the
 * edge cell), for a layer `width` cells deep: 1 - SPONGE_A u^2 with
 * u = (width - i) / width, so the factor is 1 - SPONGE_A at the edge and
 * rises quadratically (zero slope) towards 1 just inside the layer. Applied to
 * the new heights once per step, like the solvers' own damping. */
static float *sponge_profile(int width)
{
    float *p = malloc((size_t)width * sizeof *p);
    if (!p)
        return NULL;
    for (int i = 0; i < width; i++) {
        double u = (double)(width - i) / width;
        p[i] = (float)(1.0 - SPONGE_A * u * u);
    }
    return p;
}

static void apply_sponges(struct sim *s)
{
    struct field *f = &s->f;
    const int w = f->w, h = f->h;
    const ptrdiff_t st = f->stride;
    float *cur = f->cur;
    const float *pl = s->sponge[EDGE_LEFT], *pr = s->sponge[EDGE_RIGHT];
    const float *pt = s->sponge[EDGE_TOP], *pb = s->sponge[EDGE_BOTTOM];
    const int nl = s->sponge_n[EDGE_LEFT], nr = s->sponge_n[EDGE_RIGHT];
    const int nt = s->sponge_n[EDGE_TOP], nb = s->sponge_n[EDGE_BOTTOM];
    if (pl || pr) {
#pragma omp parallel for schedule(static)
        for (int y = 0; y < h; y++) {
            float *row = cur + y * st;
            for (int i = 0; i < nl; i++)
                row[i] *= pl[i];
            for (int i = 0; i < nr; i++)
                row[w - 1 - i] *= pr[i];
        }
    }
    /* Top and bottom one after the other: a row in both layers (a grid less
     * than two layers high) gets both factors, without a race. */
    for (int i = 0; i < nt; i++)
        for (int x = 0; x < w; x++)
            cur[i * st + x] *= pt[i];
    for (int i = 0; i < nb; i++)
        for (int x = 0; x < w; x++)
            cur[(h - 1 - i) * st + x] *= pb[i];
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

int sim_create(struct sim **out, const struct scene *sc, struct rr_err *e)
{
    *out = NULL;
    const struct solver_ops *ops = solver_find(sc->solver.type);
    if (!ops) {
        unsigned t = (unsigned)sc->solver.type;
        return rr_fail(e, RR_EXIT_USAGE,
                       "solver.type: \"%s\" is not available in this version (available: elias, flow, spring)",
                       t < sizeof solver_names / sizeof *solver_names ? solver_names[t] : "?");
    }
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
    if (obstacles_rasterize(sc, s->walls, e) < 0)
        goto fail;
    for (size_t k = 0; k < n; k++)
        s->n_walls += s->walls[k];
    if (s->n_walls && !(s->wall_idx = malloc(s->n_walls * sizeof *s->wall_idx))) {
        rr_fail(e, RR_EXIT_RUNTIME, "obstacles: out of memory");
        goto fail;
    }
    for (size_t k = 0, m = 0; k < n; k++)
        if (s->walls[k])
            s->wall_idx[m++] = (ptrdiff_t)(k / (size_t)w) * s->f.stride + (ptrdiff_t)(k % (size_t)w);
    for (int side = 0; side < 4; side++) {
        if (sc->boundary[side] != EDGE_ABSORB || sc->absorb_width <= 0)
            continue;
        int dim = side == EDGE_LEFT || side == EDGE_RIGHT ? w : h;
        int width = sc->absorb_width < dim ? sc->absorb_width : dim;
        if (!(s->sponge[side] = sponge_profile(width))) {
            rr_fail(e, RR_EXIT_RUNTIME, "boundary: out of memory");
            goto fail;
        }
        s->sponge_n[side] = width;
    }
    if (sources_create(&s->src, sc, e) < 0)
        goto fail;
    sources_set_walls(s->src, s->walls);
    if (sources_initial(sc, &s->f, e) < 0)
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
    sources_apply(s->src, 0, &s->f);
    zero_walls(s);
    if (check_finite(s, e) < 0)   /* frame 0 too: never render a runaway frame */
        goto fail;
    *out = s;
    return 0;
fail:
    sim_free(s);
    return -1;
}

/* Deterministic for any thread count: the parallel part only ORs one flag
 * per row; the first bad cell is then found in row-major order on one thread. */
static int check_finite(const struct sim *s, struct rr_err *e)
{
    const struct field *f = &s->f;
    const int w = f->w, h = f->h;
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(|| : bad)
    for (int y = 0; y < h; y++) {
        const float *row = f->cur + y * f->stride;
        int rb = 0;
        for (int x = 0; x < w; x++)
            rb |= !(fabsf(row[x]) <= BLOWUP_LIMIT);
        bad = bad || rb;
    }
    if (!bad)
        return 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float v = f->cur[y * f->stride + x];
            if (!(fabsf(v) <= BLOWUP_LIMIT))
                return rr_fail(e, RR_EXIT_RUNTIME,
                               "frame %ld: the simulation blew up (height %g at cell %d,%d); lower solver.damping "
                               "or time.steps_per_frame",
                               s->frame, (double)v, x, y);
        }
    return 0;
}

int sim_advance_frame(struct sim *s, struct rr_err *e)
{
    int spf = scene_steps_per_frame(s->sc);
    for (int k = 0; k < spf; k++) {
        s->ops->step(s->priv, &s->f);
        apply_sponges(s);
        zero_walls(s);
        s->step++;
        sources_apply(s->src, s->step, &s->f);
    }
    s->frame++;
    return check_finite(s, e);
}

const struct field *sim_field(const struct sim *s) { return &s->f; }

const unsigned char *sim_walls(const struct sim *s) { return s->walls; }

long sim_frame(const struct sim *s) { return s->frame; }

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
    for (int k = 0; k < 4; k++)
        free(s->sponge[k]);
    field_free(&s->f);
    free(s);
}

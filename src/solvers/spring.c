/* spring.c: seed 002_bdc2bd49ae2373c4.txt ("velocity + diffusion"), whose
 * 1-D blur is
 *     blurred = h + lerp(h, left, blend) + lerp(h, right, blend);  h = blurred / 3
 * here on the grid's axes that have neighbours (two on a W x H grid; on a
 * W x 1 or 1 x H grid the seed's 1-D form, whatever the other edges):
 *     v  = h - p
 *     h' = (h + v) * damping                          (= (2h - p) * damping)
 *     then `passes` times:  h' <- (h' + sum over the 2m neighbours n of
 *                                  lerp(h', n, blend)) / (1 + 2m)
 *
 * The sign of the velocity step. The seed writes newHeight = currentHeight -
 * velocity, which is h - (h - p) = p: the new height is the old previous one,
 * the surface flips between two states and the blur only diffuses it; nothing
 * travels (its 1-D demo moves because of its own extra terms). We take
 * h + v: h' = 2h - p is the inertia of the leapfrog wave equation, and the blur
 * B supplies the restoring force. For a Fourier mode the blur multiplies by
 * B = (1 + sum over the m axes of (2 (1 - b) + 2 b cos k)) / (1 + 2m) per pass
 * (solver_spring_blur), and the step becomes
 * lambda^2 - 2 B^P d lambda + B^P d = 0: for 0 < B^P d < 1 the roots are
 * complex with |lambda|^2 = B^P d, i.e. an oscillation that travels, long waves
 * at sqrt(P * blend / (1 + 2m)) cells per step, short ones damped more (the blur).
 *
 * Stability: B is negative for the checkerboard mode when blend > (1 + 2m) / 4m
 * (5/8 in 2-D); with an odd number of passes the roots are then real and one of
 * them has modulus > 1 unless |B_min|^P d <= 1/3. init refuses blends past that
 * limit (in 2-D, one pass: blend <= about 0.83; the seed's 1-D blur is stable
 * for every blend), naming the keys; even pass counts are always stable.
 * docs/solvers.md has the derivation. */
#include <math.h>
#include <stdio.h>

#include "budget.h"
#include "solver.h"
#include "team.h"

extern const struct solver_ops solver_spring;

struct spring {
    enum edge_kind edges[4];
    int passes;
    float blend, damp;
    int axes;               /* solver_spring_axes: 2 for the 2-D blur, else the 1-D one */
    ptrdiff_t axis;         /* the 1-D blur's neighbour offset, 0 for none */
    struct field scratch;   /* its cur plane is the blur's output plane */
};

static int spring_init(void *priv, const struct scene *sc, struct field *f, struct rr_err *e)
{
    struct spring *sp = priv;
    double b = sc->solver.blend, d = solver_damping_per_step(sc);
    int P = sc->solver.passes, m = solver_spring_axes(sc);
    if (!(b >= 0 && b <= 1))
        return rr_fail(e, RR_EXIT_USAGE, "solver.blend: expected a number in [0, 1], got %g", b);
    if (P < 0 || P > 1000)
        return rr_fail(e, RR_EXIT_USAGE, "solver.passes: expected 0 to 1000, got %d", P);
    double bmin = solver_spring_blur(sc, -1, -1);   /* blur factor of the checkerboard mode */
    if (P % 2 == 1 && bmin < 0 && pow(-bmin, P) * d > 1.0 / 3.0) {
        double bmax = (1 + 2 * m) * (1 + pow(1.0 / (3.0 * d), 1.0 / P)) / (4.0 * m);
        return rr_fail(e, RR_EXIT_USAGE,
                       "solver.blend: %g with solver.passes %d is unstable on a 2-D grid (the checkerboard "
                       "ripple grows); use blend <= %.3f or an even number of passes",
                       b, P, floor(bmax * 1000.0) / 1000.0);
    }
    for (int k = 0; k < 4; k++)
        sp->edges[k] = sc->boundary[k];
    sp->passes = P;
    sp->blend = (float)b;
    sp->damp = (float)d;
    /* 1-D: the neighbours along the one long axis (offset 1 along x, the
     * row stride along y), or none */
    sp->axes = m;
    sp->axis = f->w > 1 ? 1 : f->h > 1 ? f->stride : 0;
    if (P > 0 && field_init(&sp->scratch, f->w, f->h, e) < 0)
        return -1;
    return 0;
}

/* One of the step's loops over the rows (team_for): from `in` to `out`. */
struct spring_job {
    const struct spring *sp;
    const struct field *f;
    const float *in;
    float *out;
};

static void blur_rows(void *arg, int lo, int hi)
{
    const struct spring_job *j = arg;
    const int w = j->f->w;
    const ptrdiff_t s = j->f->stride;
    const float b = j->sp->blend;
    for (int y = lo; y < hi; y++) {
        const float *restrict up = j->in + (y - 1) * s;
        const float *restrict mid = j->in + y * s;
        const float *restrict dn = j->in + (y + 1) * s;
        float *restrict out = j->out + y * s;
        for (int x = 0; x < w; x++) {
            float c = mid[x];
            float lw = c + (mid[x - 1] - c) * b, le = c + (mid[x + 1] - c) * b;
            float ln = c + (up[x] - c) * b, ls = c + (dn[x] - c) * b;
            out[x] = (c + ((lw + le) + (ln + ls))) / 5.0f;
        }
    }
}

/* Seed 002's 1-D blur, (h + (lerp(h, a, b) + lerp(h, z, b))) / 3 with a, z
 * the cells `axis` before and after (the two lerps summed first, as the 2-D
 * blur does, for mirror symmetry); with no neighbours (1 x 1) a copy. */
static void blur_rows_1d(void *arg, int lo, int hi)
{
    const struct spring_job *j = arg;
    const int w = j->f->w;
    const ptrdiff_t s = j->f->stride, a = j->sp->axis;
    const float b = j->sp->blend;
    for (int y = lo; y < hi; y++) {
        const float *restrict mid = j->in + y * s;
        float *restrict out = j->out + y * s;
        for (int x = 0; x < w; x++) {
            float c = mid[x];
            out[x] = a ? (c + ((c + (mid[x - a] - c) * b) + (c + (mid[x + a] - c) * b))) / 3.0f : c;
        }
    }
}

static void blur_pass(const struct spring *sp, const struct field *f, const float *in, float *out)
{
    struct spring_job j = { .sp = sp, .f = f, .in = in, .out = out };
    team_for(f->h, team_threads(), sp->axes == 2 ? blur_rows : blur_rows_1d, &j);
}

/* The velocity step, h' = (h + (h - p)) * damping, over p's rows. */
static void velocity_rows(void *arg, int lo, int hi)
{
    const struct spring_job *j = arg;
    const int w = j->f->w;
    const ptrdiff_t s = j->f->stride;
    const float damp = j->sp->damp;
    for (int y = lo; y < hi; y++) {
        const float *restrict hc = j->in + y * s;
        float *restrict out = j->out + y * s;
        for (int x = 0; x < w; x++) {
            float v = hc[x] - out[x];
            out[x] = (hc[x] + v) * damp;
        }
    }
}

static void spring_step(void *priv, struct field *f, struct solver_screen *screen)
{
    (void)screen;   /* no screen: sim.c checks the grid */
    struct spring *sp = priv;
    /* The velocity step writes h' over p (p is not needed afterwards). */
    struct spring_job j = { .sp = sp, .f = f, .in = f->cur, .out = f->prev };
    team_for(f->h, team_threads(), velocity_rows, &j);
    /* Blur h' (in f->prev) into the scratch plane, then trade the two planes
     * and their allocations (field.c keeps mem[1] behind prev). */
    for (int k = 0; k < sp->passes; k++) {
        field_fill_ghosts(f, f->prev, sp->edges);
        blur_pass(sp, f, f->prev, sp->scratch.cur);
        float *t = f->prev;
        f->prev = sp->scratch.cur;
        sp->scratch.cur = t;
        t = f->mem[1];
        f->mem[1] = sp->scratch.mem[0];
        sp->scratch.mem[0] = t;
    }
    field_swap(f);
}

static void spring_free(void *priv)
{
    struct spring *sp = priv;
    field_free(&sp->scratch);
}

int solver_spring_axes(const struct scene *sc)
{
    return (sc->grid.width > 1) + (sc->grid.height > 1);
}

double solver_spring_blur(const struct scene *sc, double cx, double cy)
{
    const double b = sc->solver.blend;
    double sum = 1;
    if (sc->grid.width > 1)
        sum += 2 * (1 - b) + 2 * b * cx;
    if (sc->grid.height > 1)
        sum += 2 * (1 - b) + 2 * b * cy;
    return sum / (1 + 2 * solver_spring_axes(sc));
}

/* The dispersion relation: cos w = sqrt(B^P), B the blur's factor per pass. */
static double spring_omega(const struct scene *sc, double kx, double ky)
{
    double B = pow(solver_spring_blur(sc, cos(kx), cos(ky)), sc->solver.passes);
    return solver_omega_of_cos(sqrt(fmax(B, 0)));
}

/* Its long-wave limit: sqrt(P * blend / (1 + 2m)) cells per step. */
static double spring_cell_speed(const void *priv, const struct scene *sc, int x, int y)
{
    (void)priv, (void)x, (void)y;
    return sqrt(sc->solver.passes * sc->solver.blend / (1 + 2 * solver_spring_axes(sc)));
}

/* What spring_init allocates (solver_ops.bytes): the blur's scratch field. */
static uint64_t spring_bytes(const struct scene *sc, int threads, char *what, size_t size)
{
    (void)threads;
    snprintf(what, size, "the spring solver's scratch planes");
    return sc->solver.passes > 0 ? budget_planes_bytes(sc) : 0;
}

static const char *const spring_keys[] = { "damping", "damping_shift", "blend", "passes", NULL };

const struct solver_ops solver_spring = {
    .name = "spring",
    .priv_size = sizeof(struct spring),
    .keys = spring_keys,
    .damp_advice = "solver.damping or solver.half_life",
    .init = spring_init,
    .step = spring_step,
    .free = spring_free,
    .bytes = spring_bytes,
    .omega = spring_omega,
    .cell_speed = spring_cell_speed,
};

/* elias.c: the classic ripple of Hugo Elias (seeds 004_3a2d3bb1fd81942e.txt
 * and 003_d9fff4a753011c4e.txt): the leapfrog wave equation on the grid.
 *
 * Equation: u_tt = c^2 (u_xx + u_yy). Discretisation: central differences in
 * time and space, h' = 2h - p + r (N + S + E + W - 4h) with r = c^2 dt^2/dx^2.
 * Choosing r = 1/2 cancels the 2h term and leaves seed 004's
 *     h' = (N + S + E + W) / 2 - p,
 * a wave of speed 1/sqrt(2) cells per step, stable (the 2-D CFL limit of the
 * 5-point stencil is r <= 1/2, so it sits exactly on it). With 8 neighbours
 * (seed 003's r = 8 case) h' = (sum of the 8) / 4 - p, the 9-point stencil
 * with the same speed for long waves and less anisotropy.
 * Damping multiplies h' (seed 004) or subtracts h' / 2^n (seed 003's
 * `nwater2 -= nwater2 / 32.0f`, n = 5). docs/solvers.md has the details. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "solver.h"
#include "tblock.h"

extern const struct solver_ops solver_elias;

struct elias {
    struct tblock_kernel kn;   /* first: tblock_solver_step takes the state as its kernel */
    enum edge_kind edges[4];
    int neighbors;     /* 4 or 8 */
    float mul, sub;    /* h' = h' * mul - h' * sub: (damping, 0) or (1, 2^-n) */
};

static void choose_kernel(struct elias *el);

static int elias_init(void *priv, const struct scene *sc, struct field *f, struct rr_err *e)
{
    struct elias *el = priv;
    (void)f;
    for (int k = 0; k < 4; k++)
        el->edges[k] = sc->boundary[k];
    el->neighbors = sc->solver.neighbors == 8 ? 8 : 4;
    if (sc->solver.neighbors != 4 && sc->solver.neighbors != 8 && sc->solver.neighbors != 0)
        return rr_fail(e, RR_EXIT_USAGE, "solver.neighbors: expected 4 or 8, got %d", sc->solver.neighbors);
    if (sc->solver.half_life <= 0 && sc->solver.damping_shift > 0) {
        if (sc->solver.damping_shift > 60)
            return rr_fail(e, RR_EXIT_USAGE, "solver.damping_shift: expected 1 to 60, got %d",
                           sc->solver.damping_shift);
        el->mul = 1.0f;
        el->sub = ldexpf(1.0f, -sc->solver.damping_shift);   /* exact power of two */
    } else {
        el->mul = (float)solver_damping_per_step(sc);
        el->sub = 0.0f;
    }
    choose_kernel(el);
    return 0;
}

/* The damping, h' = h' * mul - h' * sub: seed 004's h' * damping (sub = 0)
 * or seed 003's h' - h' / 2^n (mul = 1; h / 2^n == h * 2^-n exactly). Each
 * form has its own kernels, with the same bits as that formula but fewer
 * operations: with sub = 0, v * mul - v * 0 equals v * mul + 0 for every
 * finite v (both turn a zero of either sign into +0; they differ only for an
 * infinite v, which the blow-up screen stops anyway); with mul = 1 it is
 * v - v * sub. Sums are grouped (W + E) + (N + S) so that the result is the
 * same bits under every mirror and rotation of the grid (float addition is
 * commutative but not associative).
 *
 * The row kernels are built by TBLOCK_ROW_KERNEL (src/tblock.h): for
 * AVX-512, AVX2 and the baseline, each with the damping form and the
 * screen constants. */
#define BODY static inline __attribute__((always_inline))

BODY float damp(const struct elias *el, float v, int shift)
{
    return shift ? v - v * el->sub : v * el->mul + 0.0f;
}

BODY int row4(const void *k, int y, float *restrict out, const float *restrict up, const float *restrict mid,
              const float *restrict dn, int w, float limit, int shift, int screen)
{
    int32_t m = 0;
    (void)y;
    for (int x = 0; x < w; x++) {
        float v = ((mid[x - 1] + mid[x + 1]) + (up[x] + dn[x])) * 0.5f - out[x];
        v = damp(k, v, shift);
        out[x] = v;
        m = tblock_screen_keep(m, v, screen);
    }
    return tblock_screen_found(m, limit, screen);
}

BODY int row8(const void *k, int y, float *restrict out, const float *restrict up, const float *restrict mid,
              const float *restrict dn, int w, float limit, int shift, int screen)
{
    int32_t m = 0;
    (void)y;
    for (int x = 0; x < w; x++) {
        float edge = (mid[x - 1] + mid[x + 1]) + (up[x] + dn[x]);
        float diag = (up[x - 1] + dn[x + 1]) + (up[x + 1] + dn[x - 1]);
        float v = (edge + diag) * 0.25f - out[x];
        v = damp(k, v, shift);
        out[x] = v;
        m = tblock_screen_keep(m, v, screen);
    }
    return tblock_screen_found(m, limit, screen);
}

TBLOCK_ROW_KERNEL(row4_mul, row4, 0)
TBLOCK_ROW_KERNEL(row4_shift, row4, 1)
TBLOCK_ROW_KERNEL(row8_mul, row8, 0)
TBLOCK_ROW_KERNEL(row8_shift, row8, 1)

/* The row kernel of this damping form and stencil. */
static void choose_kernel(struct elias *el)
{
    const bool shift = el->sub != 0.0f;
    const tblock_row_fn row = el->neighbors == 8 ? (shift ? row8_shift : row8_mul) : (shift ? row4_shift : row4_mul);
    el->kn = (struct tblock_kernel){ .row = row, .k = el, .edges = el->edges, .diagonal = el->neighbors == 8 };
}

static void elias_free(void *priv) { (void)priv; }

const struct solver_ops solver_elias = {
    .name = "elias",
    .priv_size = sizeof(struct elias),
    .init = elias_init,
    .step = tblock_solver_step,
    .advance = tblock_solver_advance,
    .free = elias_free,
};

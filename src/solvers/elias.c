/* elias.c: the classic ripple of Hugo Elias (seeds 004_3a2d3bb1fd81942e.txt
 * and 003_d9fff4a753011c4e.txt): the leapfrog wave equation on the grid.
 *
 * Equation: u_tt = c^2 (u_xx + u_yy). Discretisation: central differences in
 * time and space, h' = 2h - p + r (N + S + E + W - 4h) with r = c^2 dt^2/dx^2.
 * Choosing r = 1/2 cancels the 2h term and leaves seed 004's
 *     h' = (N + S + E + W) / 2 - p,
 * long waves at sqrt(r) = 1/sqrt(2) cells per step, stable (the 2-D CFL
 * limit of the 5-point stencil is r <= 1/2, so it sits exactly on it). With
 * 8 neighbours (seed 003's r = 8 case) h' = (sum of the 8) / 4 - p: the four
 * diagonals sum to 4h + 2 dx^2 lap(h) + O(dx^4), so h' = 2h - p +
 * (3/4) dx^2 lap(h): long waves at sqrt(3)/2 (about 0.866) cells per step,
 * faster than with 4, and less anisotropy; stable, as
 * cos(omega) = (cos kx + cos ky + 2 cos kx cos ky) / 4 stays in [-1/2, 1].
 * Damping multiplies h' (seed 004) or subtracts h' / 2^n (seed 003's
 * `nwater2 -= nwater2 / 32.0f`, n = 5). docs/solvers.md has the details. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "solver.h"
#include "tblock_drivers.h"

extern const struct solver_ops solver_elias;

struct elias {
    struct tblock_kernel kn;   /* the row kernels (choose_kernel), stepped by tblock.h's drivers */
    enum edge_kind edges[4];
    int neighbors;     /* 4 or 8 */
    float mul, sub;    /* h' = h' * mul - h' * sub: (damping, 0) or (1, 2^-n) */
};

/* One step as the equation, cell by cell: the plain path, which the row
 * kernels below compute faster with the same bits (tests/unit/test_reference.c).
 * Seed 004's loop, with f->cur as its Buffer1 and f->prev as its Buffer2:
 *     Buffer2(x, y) = (Buffer1(x-1,y) + Buffer1(x+1,y)
 *                    + Buffer1(x,y+1) + Buffer1(x,y-1)) / 2 - Buffer2(x,y)
 *     Buffer2(x,y) = Buffer2(x,y) * damping
 * over every cell, the ghosts standing in for the cells beyond the edges
 * (field_fill_ghosts), then the swap. Float addition is not associative, so
 * the order of the sum is part of the equation: (W + E) + (N + S), the
 * grouping that makes the result the same under every mirror and rotation
 * of the grid; with 8 neighbours the diagonals, (NW + SE) + (NE + SW), are
 * added to that sum and the total divided by 4 (seed 003's r = 8 case).
 * The damping is h' * mul - h' * sub: seed 004's h' * damping (sub = 0; a
 * zero comes out +0), or seed 003's h' - h' / 2^n (mul = 1, sub = 2^-n:
 * h' * 2^-n is h' / 2^n bit for bit). x / 2 and x / 4 are likewise the
 * kernels' x * 0.5f and x * 0.25f, and their shortcuts for each damping
 * form give the same bits as this general one (see below). */
static void elias_reference_step(const void *priv, struct field *f)
{
    const struct elias *el = priv;
    const ptrdiff_t s = f->stride;
    field_fill_ghosts(f, f->cur, el->edges);
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            const float *c = f->cur + y * s + x;   /* the cell now: c[-1] W, c[1] E, c[-s] N, c[s] S */
            float *p = f->prev + y * s + x;        /* the cell one step ago, then its new height */
            float sum = (c[-1] + c[1]) + (c[-s] + c[s]);
            float v;
            if (el->neighbors == 8)
                v = (sum + ((c[-s - 1] + c[s + 1]) + (c[-s + 1] + c[s - 1]))) / 4.0f - *p;
            else
                v = sum / 2.0f - *p;
            *p = v * el->mul - v * el->sub;
        }
    field_swap(f);
}

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
 * screen constants; the 4-neighbour ones also by the hand-written AVX-512
 * and AVX2 drivers (src/tblock_drivers.h; the AVX-512 one loads each row
 * once where GCC's loop loads it three times, two of them across cache
 * lines). The update after the sum is one macro for all, on a float or on a
 * vector of 16 or 8. */
#define BODY static inline __attribute__((always_inline))

/* The damping of a new height v: h' * mul - h' * sub, in its form. */
#define ELIAS_DAMP(el, shift, v) ((shift) ? (v) - (v) * (el)->sub : (v) * (el)->mul + 0.0f)

/* seed 004's h' = (N + S + E + W) / 2 - p from the 4-neighbour sum s, damped. */
#define ELIAS_NEW4(el, shift, s, p) ELIAS_DAMP(el, shift, (s) * 0.5f - (p))

BODY int row4(const void *k, int y, float *restrict out, const float *restrict up, const float *restrict mid,
              const float *restrict dn, int w, float limit, int shift, int screen)
{
    const struct elias *el = k;
    int32_t m = 0;
    (void)y;
    for (int x = 0; x < w; x++) {
        float v = ELIAS_NEW4(el, shift, (mid[x - 1] + mid[x + 1]) + (up[x] + dn[x]), out[x]);
        out[x] = v;
        m = tblock_screen_keep(m, v, limit, screen);
    }
    return tblock_screen_found(m, screen);
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
        v = ELIAS_DAMP((const struct elias *)k, shift, v);
        out[x] = v;
        m = tblock_screen_keep(m, v, limit, screen);
    }
    return tblock_screen_found(m, screen);
}

TBLOCK_ROW_KERNEL(row4_mul, row4, 0)
TBLOCK_ROW_KERNEL(row4_shift, row4, 1)
TBLOCK_ROW_KERNEL(row8_mul, row8, 0)
TBLOCK_ROW_KERNEL(row8_shift, row8, 1)

static inline __attribute__((always_inline)) float update1(const void *k, int shift, int y, int x, float s, float h,
                                                             float p)
{
    (void)y, (void)x, (void)h;
    return ELIAS_NEW4((const struct elias *)k, shift, s, p);
}

TBLOCK_ROWS3_KERNEL(rows3_mul, update1, 0)
TBLOCK_ROWS3_KERNEL(rows3_shift, update1, 1)

/* The hand-written drivers' update (src/tblock_drivers.h), for N = 16
 * (AVX-512) or 8 (AVX2) cells, in three forms: ELIAS_NEW4's two (0
 * multiply, 1 shift), and the multiply's damping v * mul + 0 as one fused
 * multiply-add fma(v, mul, +0) (2): the same bits whenever |mul| > 1/2.
 * Where v * mul rounds to a nonzero value, adding +0 changes nothing and
 * the fused operation rounds the same exact product once; where v is a
 * zero, both give +0 (an exact -0 + +0 is +0); and a nonzero v * mul
 * cannot round to zero, as |v| >= 2^-149 (the least subnormal) and
 * |mul| > 1/2 put |v * mul| above 2^-150, half the least subnormal. (With
 * |mul| <= 1/2 a product may round to -0, which the separate + 0 turns
 * into +0 and the fused one would not.) One vector operation fewer of the
 * eleven that 16 cells take: on rows in cache the kernels are bound by
 * their vector operations (docs/performance.md, What limits each case). */
enum { ELIAS_MUL, ELIAS_SHIFT, ELIAS_FMA };

#define ELIAS_UPDATE(N, k, form, y, x, live, whole, s, h, p)                                                 \
    ((form) & TBLOCK_CAREFUL ? ELIAS_CAREFUL(N, (const struct elias *)(k), (form) & ~TBLOCK_CAREFUL,          \
                                             tblock_subnormal##N(s),                                           \
                                             tblock_mulif##N(tblock_subnormal##N(s), s, tblock_set##N(0.5f)) - (p)) \
     : (form) == ELIAS_FMA   ? tblock_fma##N((s) * 0.5f - (p), tblock_set##N(((const struct elias *)(k))->mul), \
                                             tblock_set##N(0.0f))                                            \
                             : ELIAS_NEW4((const struct elias *)(k), form, s, p))

/* The same in TBLOCK_CAREFUL's kernels (tblock.h), from u = s / 2 - p: each
 * multiply careful of subnormals (tblock_mulxN, tblock_mul0xN: the same bits). */
#define ELIAS_CAREFUL(N, el, form, tiny, u)                                                                  \
    ((form) == ELIAS_FMA     ? tblock_mul0if##N(tiny, u, tblock_set##N((el)->mul))                           \
     : (form) == ELIAS_SHIFT ? (u) - tblock_mulif##N(tiny, u, tblock_set##N((el)->sub))                      \
                             : tblock_mulif##N(tiny, u, tblock_set##N((el)->mul)) + 0.0f)

TBLOCK_DRIVER_UPDATE(update, ELIAS_UPDATE)
TBLOCK_DRIVERS(drivers_mul, update, ELIAS_MUL)
TBLOCK_DRIVERS(drivers_shift, update, ELIAS_SHIFT)
TBLOCK_DRIVERS(drivers_fma, update, ELIAS_FMA)

/* The row kernels of this damping form and stencil: the portable one, and
 * for 4 neighbours the hand-written drivers' (the multiply fused when mul
 * allows) on CPUs that have them and the one for three rows at a time (the
 * drivers time them and keep the fastest: tblock_tuner). */
static void choose_kernel(struct elias *el)
{
    const bool shift = el->sub != 0.0f;
    const bool eight = el->neighbors == 8;
    const int form = shift ? ELIAS_SHIFT : fabsf(el->mul) > 0.5f ? ELIAS_FMA : ELIAS_MUL;
    const struct tblock_drivers *const drivers[3] = { &drivers_mul, &drivers_shift, &drivers_fma };
    el->kn = (struct tblock_kernel){
        .row = eight ? (shift ? row8_shift : row8_mul) : shift ? row4_shift : row4_mul,
        .rows3 = eight ? NULL : shift ? rows3_shift : rows3_mul,
        .k = el, .edges = el->edges, .diagonal = eight,
        .name = eight ? (shift ? "elias8-shift" : "elias8-mul") : shift ? "elias4-shift" : "elias4-mul",
    };
    tblock_offer_drivers(&el->kn, eight ? NULL : drivers[form]);
}

static void elias_free(void *priv) { (void)priv; }

/* The dispersion relation: cos w = (cos kx + cos ky) / 2 with 4 neighbours,
 * (cos kx + cos ky + 2 cos kx cos ky) / 4 with 8 (the header's equations). */
static double elias_omega(const struct scene *sc, double kx, double ky)
{
    double cx = cos(kx), cy = cos(ky);
    return solver_omega_of_cos(sc->solver.neighbors == 8 ? (cx + cy + 2 * cx * cy) / 4 : (cx + cy) / 2);
}

/* Its long-wave limit: 1/sqrt(2) cells per step with 4 neighbours, sqrt(3)/2 with 8. */
static double elias_cell_speed(const void *priv, const struct scene *sc, int x, int y)
{
    (void)priv, (void)x, (void)y;
    return sc->solver.neighbors == 8 ? sqrt(0.75) : sqrt(0.5);
}

static const char *const elias_keys[] = { "damping", "damping_shift", "neighbors", NULL };

TBLOCK_SOLVER(elias, struct elias, kn)

const struct solver_ops solver_elias = {
    .name = "elias",
    .priv_size = sizeof(struct elias),
    .keys = elias_keys,
    .damp_advice = "solver.damping or solver.half_life",
    .init = elias_init,
    .step = elias_step,
    .advance = elias_advance,
    .kernel = elias_kernel,
    .free = elias_free,
    .omega = elias_omega,
    .cell_speed = elias_cell_speed,
    .reference_step = elias_reference_step,
};

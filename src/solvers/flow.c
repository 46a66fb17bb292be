/* flow.c: seed 000_3dad0444e06480b1.txt, the Elias ripple with a flow factor
 * F in [0, 1] that sets the wave speed:
 *     f  = (N + S + E + W) / 4            (the mean of the 4 neighbours)
 *     h' = (2 (F f + h) / (F + 1) - p) * damping
 * Rewritten, h' = 2h - p + r (N + S + E + W - 4h) with r = F / (2 (F + 1)):
 * the leapfrog wave equation with c^2 dt^2/dx^2 = r, so long waves travel
 * sqrt(r) cells per step: 1/2 at F = 1 (where h' = f + h - p), slower for
 * smaller F, and F = 0 freezes the surface. Stable for every F in [0, 1]
 * (r <= 1/4, below the 2-D limit 1/2). docs/solvers.md has the derivation. */
#include <math.h>

#include "solver.h"
#include "tblock_drivers.h"

extern const struct solver_ops solver_flow;

struct flow {
    struct tblock_kernel kn;   /* the row kernels (choose_kernel), stepped by tblock.h's drivers */
    enum edge_kind edges[4];
    float F, F1, damp;   /* F, F + 1, damping per step */
    float inv_F1;        /* 1 / (F + 1) when F + 1 is a power of two (exact), else 0 */
};

/* One step as the equation, cell by cell: the plain path, which the row
 * kernels below compute faster with the same bits (tests/unit/test_reference.c).
 * Seed 000's loop, with f->cur as its `current` and f->prev as `previous`
 * (overwritten by `next`):
 *     flow = (current(x+1,y) + current(x-1,y) + current(x,y+1) + current(x,y-1)) / 4
 *     next[x,y] = (2 * (flow*flowFactor + curr) / (flowFactor + 1) - prev) * dampening
 * over every cell, the ghosts standing in for the cells beyond the edges
 * (field_fill_ghosts), then the swap. Float addition is not associative, so
 * the order of the sum is part of the equation: (E + W) + (S + N), pairs
 * that make the result the same under every mirror and rotation of the grid
 * (the seed's E + W + S + N left to right may differ in the last bit).
 * The kernels' shortcuts give these bits: for F + 1 a power of two a
 * multiplication by 1 / (F + 1), always; for F = 1 ((flow + h) - p) * d,
 * for every height below 1.7e38, far past the blow-up limit (see below). */
static void flow_reference_step(const void *priv, struct field *f)
{
    const struct flow *fl = priv;
    const ptrdiff_t s = f->stride;
    field_fill_ghosts(f, f->cur, fl->edges);
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            const float *c = f->cur + y * s + x;   /* the cell now: c[1] E, c[-1] W, c[s] S, c[-s] N */
            float *p = f->prev + y * s + x;        /* the cell one step ago, then its new height */
            float flow = ((c[1] + c[-1]) + (c[s] + c[-s])) / 4.0f;
            *p = (2.0f * (flow * fl->F + c[0]) / (fl->F + 1.0f) - *p) * fl->damp;
        }
    field_swap(f);
}

static void choose_kernel(struct flow *fl);

static int flow_init(void *priv, const struct scene *sc, struct field *f, struct rr_err *e)
{
    struct flow *fl = priv;
    (void)f;
    if (!(sc->solver.flow >= 0 && sc->solver.flow <= 1))
        return rr_fail(e, RR_EXIT_USAGE, "solver.flow: expected a number in [0, 1], got %g", sc->solver.flow);
    for (int k = 0; k < 4; k++)
        fl->edges[k] = sc->boundary[k];
    fl->F = (float)sc->solver.flow;
    fl->F1 = fl->F + 1.0f;
    int exponent;
    fl->inv_F1 = frexpf(fl->F1, &exponent) == 0.5f ? 1.0f / fl->F1 : 0.0f;
    fl->damp = (float)solver_damping_per_step(sc);
    choose_kernel(fl);
    return 0;
}

/* Written in the seed's order of operations (the division by F + 1 is kept,
 * so that F = 1 gives the seed's bits); the neighbour sum is grouped
 * (E + W) + (S + N) for mirror symmetry, which for the seed's sum order
 * E + W + S + N changes at most the last bit. One row (src/tblock.h), built
 * for AVX-512, AVX2 and the baseline as in elias.c (the same bits on each).
 *
 * A division per cell bounds the speed (an AVX2 divide issues about once per
 * four cycles, the rest of the cell's work fits in fewer). When F + 1 is a
 * power of two (F = 1, the default, or F = 0), x / (F + 1) and
 * x * (1 / (F + 1)) are both the correctly rounded x * 2^-k: the same bits,
 * so that case gets a kernel that multiplies (test_flow_kernels_exact).
 *
 * F = 1, the default, needs neither: mean * 1 is mean, and 2 x / 2 is x
 * (doubling and halving are exact, subnormals included), so h' = ((f + h)
 * - p) * damping gives the same bits with three multiplies fewer a cell.
 * The one exception is 2 x overflowing to infinity, |x| > 1.7e38, which a
 * height reaches only far past the blow-up limit (1e6, src/sim.c): such a
 * frame fails the blow-up check with either kernel, which may then report
 * a different height (finite, or infinity). Fewer multiplies a cell make
 * the row kernel faster on rows in cache; and two of the three multiplies
 * skipped could underflow to subnormals behind a wave front, which some
 * CPUs take far longer to multiply.
 * All three are built by TBLOCK_ROW_KERNEL (src/tblock.h), and for AVX-512
 * and AVX2 CPUs by the hand-written drivers (src/tblock_drivers.h; the
 * AVX-512 one loads each row once, not three times), from the one update
 * FLOW_NEW. */
#define BODY static inline __attribute__((always_inline))

/* The kernel forms, TBLOCK_ROW_KERNEL's `variant`. */
enum flow_form { FLOW_DIVIDE, FLOW_POWER_OF_TWO, FLOW_UNIT };

/* The new height from the 4-neighbour sum s, the centre h and the height
 * one step back p, in the given form: on a float or on a vector of 16 or 8,
 * so that the row loop and the hand-written drivers share it.
 * Both sum the neighbours (W + E) + (N + S): the seed-order grouping
 * (E + W) + (S + N) above, as float addition commutes exactly. */
#define FLOW_NEW(fl, form, s, h, p)                                                                         \
    ((form) == FLOW_UNIT ? (((s) / 4.0f + (h)) - (p)) * (fl)->damp                                         \
     : (form) == FLOW_POWER_OF_TWO ? ((2.0f * ((s) / 4.0f * (fl)->F + (h))) * (fl)->inv_F1 - (p)) * (fl)->damp \
                                   : ((2.0f * ((s) / 4.0f * (fl)->F + (h))) / (fl)->F1 - (p)) * (fl)->damp)

BODY int row(const void *k, int y, float *restrict out, const float *restrict up, const float *restrict mid,
             const float *restrict dn, int w, float limit, int form, int screen)
{
    const struct flow *fl = k;
    int32_t m = 0;
    (void)y;
    for (int x = 0; x < w; x++) {
        float v = FLOW_NEW(fl, form, (mid[x - 1] + mid[x + 1]) + (up[x] + dn[x]), mid[x], out[x]);
        out[x] = v;
        m = tblock_screen_keep(m, v, limit, screen);
    }
    return tblock_screen_found(m, screen);
}

TBLOCK_ROW_KERNEL(row_divide, row, FLOW_DIVIDE)
TBLOCK_ROW_KERNEL(row_power_of_two, row, FLOW_POWER_OF_TWO)
TBLOCK_ROW_KERNEL(row_unit, row, FLOW_UNIT)

static inline __attribute__((always_inline)) float update1(const void *k, int form, int y, int x, float s, float h,
                                                             float p)
{
    (void)y, (void)x;
    return FLOW_NEW((const struct flow *)k, form, s, h, p);
}

TBLOCK_ROWS3_KERNEL(rows3_divide, update1, FLOW_DIVIDE)
TBLOCK_ROWS3_KERNEL(rows3_power_of_two, update1, FLOW_POWER_OF_TWO)
TBLOCK_ROWS3_KERNEL(rows3_unit, update1, FLOW_UNIT)

/* The hand-written drivers' update (src/tblock_drivers.h): FLOW_NEW on 16
 * or 8 cells; in TBLOCK_CAREFUL's kernels (tblock.h) its multiplies careful
 * of subnormals (tblock_mulxN, the same bits); a division stays one. */
#define FLOW_UPDATE(N, k, form, y, x, live, whole, s, h, p)                                                  \
    ((form) & TBLOCK_CAREFUL ? FLOW_NEW_CAREFUL(N, (const struct flow *)(k), (form) & ~TBLOCK_CAREFUL, s, h, p) \
                             : FLOW_NEW((const struct flow *)(k), form, s, h, p))
#define FLOW_MUL(N, a, c) tblock_mulx##N(1, a, tblock_set##N(c))
#define FLOW_NEW_CAREFUL(N, fl, form, s, h, p)                                                              \
    (form) == FLOW_UNIT                                                                                      \
        ? tblock_mulif##N(tblock_subnormal##N(s),                                                            \
                          (tblock_mulif##N(tblock_subnormal##N(s), s, tblock_set##N(0.25f)) + (h)) - (p),   \
                          tblock_set##N((fl)->damp))                                                         \
        : FLOW_MUL(N,                                                                                        \
             (form) == FLOW_UNIT ? (FLOW_MUL(N, s, 0.25f) + (h)) - (p)                                        \
             : (form) == FLOW_POWER_OF_TWO                                                                    \
                 ? FLOW_MUL(N, FLOW_MUL(N, FLOW_MUL(N, s, 0.25f), (fl)->F) + (h), 2.0f) * (fl)->inv_F1 - (p)  \
                 : FLOW_MUL(N, FLOW_MUL(N, FLOW_MUL(N, s, 0.25f), (fl)->F) + (h), 2.0f) / (fl)->F1 - (p),     \
             (fl)->damp)

TBLOCK_DRIVER_UPDATE(update, FLOW_UPDATE)
TBLOCK_DRIVERS(drivers_divide, update, FLOW_DIVIDE)
TBLOCK_DRIVERS(drivers_power_of_two, update, FLOW_POWER_OF_TWO)
TBLOCK_DRIVERS(drivers_unit, update, FLOW_UNIT)

/* F = 1 (the default) gets the unit kernels; another F whose F + 1 is a
 * power of two the multiplying ones; any other F the dividing ones: the
 * portable one, on CPUs that have them the hand-written drivers', and the
 * one for three rows at a time (the drivers time them and keep the
 * fastest: tblock_tuner). */
static void choose_kernel(struct flow *fl)
{
    const int form = fl->F == 1.0f ? FLOW_UNIT : fl->inv_F1 > 0 ? FLOW_POWER_OF_TWO : FLOW_DIVIDE;
    const tblock_row_fn kernels[3] = { row_divide, row_power_of_two, row_unit };
    const tblock_rows3_fn kernels3[3] = { rows3_divide, rows3_power_of_two, rows3_unit };
    const struct tblock_drivers *const drivers[3] = { &drivers_divide, &drivers_power_of_two, &drivers_unit };
    fl->kn = (struct tblock_kernel){
        .row = kernels[form], .rows3 = kernels3[form], .k = fl, .edges = fl->edges,
        .name = (const char *const[3]){ "flow-divide", "flow-power-of-two", "flow-unit" }[form],
    };
    tblock_offer_drivers(&fl->kn, drivers[form]);
}

static void flow_free(void *priv) { (void)priv; }

/* The dispersion relation: cos w = (F (cos kx + cos ky) / 2 + 1) / (F + 1). */
static double flow_omega(const struct scene *sc, double kx, double ky)
{
    double cx = cos(kx), cy = cos(ky), F = sc->solver.flow;
    return solver_omega_of_cos((F * (cx + cy) / 2 + 1) / (F + 1));
}

/* Its long-wave limit: sqrt(r) = sqrt(F / (2 (F + 1))) cells per step. */
static double flow_cell_speed(const void *priv, const struct scene *sc, int x, int y)
{
    (void)priv, (void)x, (void)y;
    return sqrt(sc->solver.flow / (2 * (sc->solver.flow + 1)));
}

static const char *const flow_keys[] = { "damping", "damping_shift", "flow", NULL };

TBLOCK_SOLVER(flow, struct flow, kn)

const struct solver_ops solver_flow = {
    .name = "flow",
    .priv_size = sizeof(struct flow),
    .keys = flow_keys,
    .damp_advice = "solver.damping or solver.half_life",
    .init = flow_init,
    .step = flow_step,
    .advance = flow_advance,
    .kernel = flow_kernel,
    .free = flow_free,
    .omega = flow_omega,
    .cell_speed = flow_cell_speed,
    .reference_step = flow_reference_step,
};

/* test_solvers.c: the elias, flow and spring solvers: single steps on tiny
 * grids computed by hand, symmetry and translation invariance (bit-exact),
 * thread-count independence, walls, sponge layers, blow-up detection and the
 * registry. Scenes are filled by hand, never loaded from JSON. */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "field.h"
#include "hand_scene.h"
#include "scene.h"
#include "sim.h"
#include "sim_fixture.h"
#include "solver.h"
#include "solver_rig.h"

static void base_scene(struct scene *sc, const char *solver, int w, int h, enum edge_kind edge)
{
    hand_scene(sc, w, h, 30, 10, 2);
    hand_solver(sc, solver, 1);
    for (int k = 0; k < 4; k++)
        sc->boundary[k] = edge;
    sc->absorb_width = 4;
}

#define AT(f, g, x, y) ((g)[(y) * (f)->stride + (x)])

/* A solver, initialised on its own field for one-step tests. */
struct rig {
    struct field f;
    const struct solver_ops *ops;
    void *priv;
};

static void rig_open(struct rig *r, const struct scene *sc)
{
    struct rr_err e = { 0 };
    assert_int_equal(field_init(&r->f, sc->grid.width, sc->grid.height, &e), 0);
    r->ops = sc->solver.type;
    r->priv = solver_open(r->ops, sc, &r->f, NULL);
}

static void rig_close(struct rig *r)
{
    solver_close(r->ops, r->priv, &r->f);
}

/* cur = 1 2 3 / 4 5 6 / 7 8 9, prev = 1 everywhere. */
static void load_3x3(struct field *f)
{
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) {
            AT(f, f->cur, x, y) = (float)(1 + x + 3 * y);
            AT(f, f->prev, x, y) = 1.0f;
        }
}

static void expect_3x3(const struct field *f, const float want[9])
{
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++)
            if (AT(f, f->cur, x, y) != want[3 * y + x])
                fail_msg("cell (%d,%d): got %.9g, want %.9g", x, y, (double)AT(f, f->cur, x, y),
                         (double)want[3 * y + x]);
}

static void one_step(const struct scene *sc, const float want[9])
{
    struct rig r;
    rig_open(&r, sc);
    load_3x3(&r.f);
    r.ops->step(r.priv, &r.f, NULL);
    expect_3x3(&r.f, want);
    /* prev now holds the old "now". */
    for (int k = 0; k < 9; k++)
        assert_true(AT(&r.f, r.f.prev, k % 3, k / 3) == (float)(1 + k));
    rig_close(&r);
}

/* ---- elias, by hand -------------------------------------------------------- */

static void test_elias4_fixed(void **state)
{
    (void)state;
    struct scene sc;
    base_scene(&sc, "elias", 3, 3, EDGE_FIXED);
    /* h' = (W + E + N + S) / 2 - 1, ghosts 0:
     * (0,0): (0+2+0+4)/2-1 = 2     (1,0): (1+3+0+5)/2-1 = 3.5   (2,0): (2+0+0+6)/2-1 = 3
     * (0,1): (0+5+1+7)/2-1 = 5.5   (1,1): (4+6+2+8)/2-1 = 9     (2,1): (5+0+3+9)/2-1 = 7.5
     * (0,2): (0+8+4+0)/2-1 = 5     (1,2): (7+9+5+0)/2-1 = 9.5   (2,2): (8+0+6+0)/2-1 = 6 */
    const float want[9] = { 2, 3.5f, 3, 5.5f, 9, 7.5f, 5, 9.5f, 6 };
    one_step(&sc, want);
}

static void test_elias4_clamp(void **state)
{
    (void)state;
    struct scene sc;
    base_scene(&sc, "elias", 3, 3, EDGE_CLAMP);
    /* ghosts repeat the edge cell:
     * (0,0): (1+2+1+4)/2-1 = 3     (1,0): (1+3+2+5)/2-1 = 4.5   (2,0): (2+3+3+6)/2-1 = 6
     * (0,1): (4+5+1+7)/2-1 = 7.5   (1,1): 9                     (2,1): (5+6+3+9)/2-1 = 10.5
     * (0,2): (7+8+4+7)/2-1 = 12    (1,2): (7+9+5+8)/2-1 = 13.5  (2,2): (8+9+6+9)/2-1 = 15 */
    const float want[9] = { 3, 4.5f, 6, 7.5f, 9, 10.5f, 12, 13.5f, 15 };
    one_step(&sc, want);
    base_scene(&sc, "elias", 3, 3, EDGE_ABSORB);   /* absorb's ghosts are clamp's */
    one_step(&sc, want);
}

static void test_elias4_wrap(void **state)
{
    (void)state;
    struct scene sc;
    base_scene(&sc, "elias", 3, 3, EDGE_WRAP);
    /* periodic: every cell sees its row's other two and its column's other two:
     * (0,0): (3+2+7+4)/2-1 = 7     (1,0): (1+3+8+5)/2-1 = 7.5   (2,0): (2+1+9+6)/2-1 = 8
     * (0,1): (6+5+1+7)/2-1 = 8.5   (1,1): 9                     (2,1): (5+4+3+9)/2-1 = 9.5
     * (0,2): (9+8+4+1)/2-1 = 10    (1,2): (7+9+5+2)/2-1 = 10.5  (2,2): (8+7+6+3)/2-1 = 11 */
    const float want[9] = { 7, 7.5f, 8, 8.5f, 9, 9.5f, 10, 10.5f, 11 };
    one_step(&sc, want);
}

static void test_elias8_fixed(void **state)
{
    (void)state;
    struct scene sc;
    base_scene(&sc, "elias", 3, 3, EDGE_FIXED);
    sc.solver.neighbors = 8;
    /* h' = (sum of the 8) / 4 - 1, ghosts 0:
     * (0,0): 2+4+5 = 11 -> 1.75          (1,0): 1+3+4+5+6 = 19 -> 3.75
     * (2,0): 2+5+6 = 13 -> 2.25          (0,1): 1+2+5+7+8 = 23 -> 4.75
     * (1,1): 45-5 = 40 -> 9              (2,1): 2+3+5+8+9 = 27 -> 5.75
     * (0,2): 4+5+8 = 17 -> 3.25          (1,2): 4+5+6+7+9 = 31 -> 6.75
     * (2,2): 5+6+8 = 19 -> 3.75 */
    const float want[9] = { 1.75f, 3.75f, 2.25f, 4.75f, 9, 5.75f, 3.25f, 6.75f, 3.75f };
    one_step(&sc, want);
}

static void test_elias8_wrap(void **state)
{
    (void)state;
    struct scene sc;
    base_scene(&sc, "elias", 3, 3, EDGE_WRAP);
    sc.solver.neighbors = 8;
    /* On a periodic 3 x 3 grid the 8 neighbours are all the other cells:
     * h' = (45 - h) / 4 - 1, e.g. (0,0): 44/4-1 = 10, (1,1): 40/4-1 = 9. */
    float want[9];
    for (int k = 0; k < 9; k++)
        want[k] = (45.0f - (float)(k + 1)) / 4.0f - 1.0f;
    one_step(&sc, want);
}

static void test_elias_damping(void **state)
{
    (void)state;
    struct scene sc;
    base_scene(&sc, "elias", 3, 3, EDGE_FIXED);
    sc.solver.damping = 0.5;
    /* The fixed-edge values above, halved. */
    const float half[9] = { 1, 1.75f, 1.5f, 2.75f, 4.5f, 3.75f, 2.5f, 4.75f, 3 };
    one_step(&sc, half);
    /* damping_shift 2: h' -= h'/4, i.e. 3/4 of the undamped value:
     * 2 -> 1.5, 3.5 -> 2.625, 3 -> 2.25, 5.5 -> 4.125, 9 -> 6.75, 7.5 -> 5.625, ... */
    sc.solver.damping = 0.99;
    sc.solver.damping_shift = 2;
    const float q[9] = { 1.5f, 2.625f, 2.25f, 4.125f, 6.75f, 5.625f, 3.75f, 7.125f, 4.5f };
    one_step(&sc, q);
}

static void test_half_life(void **state)
{
    (void)state;
    struct scene sc;
    base_scene(&sc, "elias", 3, 3, EDGE_FIXED);
    /* fps 30, 2 steps per frame: dt = 1/60 s. half_life 1/6 s = 10 steps:
     * the factor is 0.25^(1/10): a ripple's amplitude shrinks by sqrt(d) per
     * step (|lambda|^2 = d), so ten steps halve it (test_wave.c measures it). */
    sc.solver.half_life = 1.0 / 6.0;
    double d = solver_damping_per_step(&sc);
    assert_true(fabs(d - pow(0.25, 0.1)) < 1e-15);
    assert_true(fabs(pow(sqrt(d), 10) - 0.5) < 1e-12);
    sc.solver.half_life = 0;
    sc.solver.damping = 0.97;
    assert_true(solver_damping_per_step(&sc) == 0.97);
    sc.solver.damping_shift = 4;   /* 1 - 1/16 */
    assert_true(solver_damping_per_step(&sc) == 0.9375);
}

/* ---- simulations ------------------------------------------------------------ */

static struct sim *run(const struct scene *sc, int frames)
{
    struct sim *s = make(sc);
    for (int k = 0; k < frames; k++)
        advance(s);
    return s;
}

static uint32_t bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* flow and spring take damping_shift n as the factor 1 - 2^-n: the same
 * frames as that damping, and not those of the default damping 0.99. */
static void test_damping_shift_factor(void **state)
{
    (void)state;
    struct scene sc;
    struct drop d = { .at = { .is_frame = true }, .x = 10, .y = 10, .radius = 3, .amplitude = -1,
                      .shape = SHAPE_DISC };
    const char *const types[] = { "flow", "spring" };
    for (int k = 0; k < 2; k++) {
        struct sim *s[3];
        for (int v = 0; v < 3; v++) {
            base_scene(&sc, types[k], 21, 21, EDGE_FIXED);
            sc.drops = &d;
            sc.n_drops = 1;
            sc.solver.damping = v == 1 ? 0.9375 : 0.99;
            sc.solver.damping_shift = v == 0 ? 4 : 0;
            s[v] = run(&sc, 5);
        }
        const struct field *a = sim_field(s[0]), *b = sim_field(s[1]), *c = sim_field(s[2]);
        int differs = 0;
        for (int y = 0; y < 21; y++)
            for (int x = 0; x < 21; x++) {
                assert_true(bits(AT(a, a->cur, x, y)) == bits(AT(b, b->cur, x, y)));
                differs |= AT(a, a->cur, x, y) != AT(c, c->cur, x, y);
            }
        assert_true(differs);
        for (int v = 0; v < 3; v++)
            sim_free(s[v]);
    }
}

/* Seed 003's init() sets the previous plane (nwater2[i][j] = energy). On
 * still water one elias step then leaves the state that a point drop of
 * -energy * damping on the current plane leaves (docs/solvers.md, Sources). */
static void test_seed003_init(void **state)
{
    (void)state;
    struct scene sc;
    struct rig a, b;
    base_scene(&sc, "elias", 7, 7, EDGE_FIXED);
    sc.solver.damping = 0.5;
    rig_open(&a, &sc);
    rig_open(&b, &sc);
    AT(&a.f, a.f.prev, 3, 3) = 2.0f;   /* init(3, 3, 2) */
    a.ops->step(a.priv, &a.f, NULL);
    b.ops->step(b.priv, &b.f, NULL);
    AT(&b.f, b.f.cur, 3, 3) += -2.0f * 0.5f;   /* the drop after the step */
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++) {
            assert_true(bits(AT(&a.f, a.f.cur, x, y)) == bits(AT(&b.f, b.f.cur, x, y)));
            assert_true(bits(AT(&a.f, a.f.prev, x, y)) == bits(AT(&b.f, b.f.prev, x, y)));
        }
    assert_true(AT(&a.f, a.f.cur, 3, 3) == -1.0f);
    rig_close(&a);
    rig_close(&b);
}

static void symmetry(int neighbors, const char *t)
{
    struct scene sc;
    struct drop d = { .at = { .is_frame = true, .frame = 0 }, .x = 20, .y = 20, .radius = 3, .amplitude = -1,
                      .shape = SHAPE_GAUSSIAN };
    base_scene(&sc, t, 41, 41, EDGE_FIXED);
    sc.solver.neighbors = neighbors;
    sc.solver.damping = 0.995;
    sc.solver.passes = 2;
    sc.drops = &d;
    sc.n_drops = 1;
    struct sim *s = run(&sc, 25);   /* 50 steps: the ring has reached the walls */
    const struct field *f = sim_field(s);
    int n = 41, nonzero = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            uint32_t v = bits(AT(f, f->cur, x, y));
            nonzero += AT(f, f->cur, x, y) != 0.0f;
            if (v != bits(AT(f, f->cur, y, x)) || v != bits(AT(f, f->cur, n - 1 - x, y)) ||
                v != bits(AT(f, f->cur, x, n - 1 - y)) || v != bits(AT(f, f->cur, n - 1 - y, x)))
                fail_msg("not symmetric at (%d,%d)", x, y);
        }
    assert_true(nonzero > n * n / 2);
    assert_true(fabsf(AT(f, f->cur, 0, 20)) > 1e-6f);   /* the wave reached the edge */
    sim_free(s);
}

static void test_elias_symmetry(void **state)
{
    (void)state;
    symmetry(4, "elias");
    symmetry(8, "elias");
    symmetry(4, "flow");
    symmetry(4, "spring");
}

static void translation(const char *t, int neighbors)
{
    struct scene sc;
    struct drop d = { .at = { .is_frame = true, .frame = 0 }, .x = 10, .y = 8, .radius = 2.5, .amplitude = 1,
                      .shape = SHAPE_COSINE };
    base_scene(&sc, t, 32, 24, EDGE_WRAP);
    sc.solver.neighbors = neighbors;
    sc.solver.passes = 2;
    sc.drops = &d;
    sc.n_drops = 1;
    struct sim *a = run(&sc, 20);   /* 40 steps: the ring wraps around */
    d.x += 5;
    d.y += 3;
    struct sim *b = run(&sc, 20);
    const struct field *fa = sim_field(a), *fb = sim_field(b);
    for (int y = 0; y < 24; y++)
        for (int x = 0; x < 32; x++)
            if (bits(AT(fa, fa->cur, x, y)) != bits(AT(fb, fb->cur, (x + 5) % 32, (y + 3) % 24)))
                fail_msg("shifted field differs at (%d,%d)", x, y);
    assert_true(fabsf(AT(fa, fa->cur, 31, 23)) > 1e-6f);
    sim_free(a);
    sim_free(b);
}

static void test_wrap_translation(void **state)
{
    (void)state;
    translation("elias", 4);
    translation("elias", 8);
    translation("flow", 4);
    translation("spring", 4);
}

/* The same bits with 1 and 2 threads, every solver, with sponges and walls. */
static void test_threads(void **state)
{
    (void)state;
    const char *const types[] = { "elias", "elias", "flow", "spring" };
    struct drop d[2] = {
        { .at = { .is_frame = true, .frame = 0 }, .x = 30, .y = 20, .radius = 4, .amplitude = -1, .shape = SHAPE_DISC },
        { .at = { .time = 0.2 }, .x = 70, .y = 50, .radius = 3, .amplitude = 0.7, .shape = SHAPE_GAUSSIAN },
    };
    struct obstacle o = { .type = OBST_RECT, .x = 50, .y = 0, .width = 3, .height = 40 };
    for (size_t k = 0; k < 4; k++) {
        struct scene sc;
        base_scene(&sc, types[k], 97, 71, EDGE_ABSORB);
        sc.boundary[EDGE_TOP] = EDGE_WRAP;
        sc.boundary[EDGE_BOTTOM] = EDGE_WRAP;
        sc.solver.neighbors = k == 1 ? 8 : 4;
        sc.solver.damping = 0.999;
        sc.drops = d;
        sc.n_drops = 2;
        sc.obstacles = &o;
        sc.n_obstacles = 1;
        omp_set_num_threads(1);
        struct sim *a = run(&sc, 30);
        omp_set_num_threads(2);
        struct sim *b = run(&sc, 30);
        const struct field *fa = sim_field(a), *fb = sim_field(b);
        for (int y = 0; y < 71; y++) {
            assert_memory_equal(fa->cur + y * fa->stride, fb->cur + y * fb->stride, 97 * sizeof(float));
            assert_memory_equal(fa->prev + y * fa->stride, fb->prev + y * fb->stride, 97 * sizeof(float));
        }
        sim_free(a);
        sim_free(b);
    }
}

static void test_walls_hold_zero(void **state)
{
    (void)state;
    struct scene sc;
    struct drop d = { .at = { .is_frame = true }, .x = 10, .y = 10, .radius = 3, .amplitude = -1, .shape = SHAPE_DISC };
    struct obstacle o[2] = {
        { .type = OBST_RECT, .x = 14, .y = 0, .width = 2, .height = 18 },
        { .type = OBST_CIRCLE, .x = 10, .y = 10, .radius = 1 },   /* under the drop: stays 0 */
    };
    base_scene(&sc, "elias", 30, 24, EDGE_CLAMP);
    sc.drops = &d;
    sc.n_drops = 1;
    sc.obstacles = o;
    sc.n_obstacles = 2;
    struct sim *s = run(&sc, 0);
    const unsigned char *walls = sim_walls(s);
    const struct field *f = sim_field(s);
    assert_true(AT(f, f->cur, 10, 10) == 0.0f);   /* the drop skipped the wall */
    assert_true(AT(f, f->cur, 12, 10) == -1.0f);
    for (int fr = 0; fr < 15; fr++) {
        advance(s);
        int n = 0;
        for (int y = 0; y < 24; y++)
            for (int x = 0; x < 30; x++)
                if (walls[y * 30 + x]) {
                    n++;
                    assert_true(AT(f, f->cur, x, y) == 0.0f);
                    assert_true(AT(f, f->prev, x, y) == 0.0f);
                }
        assert_int_equal(n, 2 * 18 + 5);
    }
    assert_int_equal(sim_frame(s), 15);
    /* The wave went round the wall's end: something moved beyond it. */
    assert_true(fabsf(AT(f, f->cur, 20, 10)) > 1e-4f);
    sim_free(s);
}

/* ---- flow -------------------------------------------------------------------- */

static void test_flow_seed(void **state)
{
    (void)state;
    struct scene sc;
    base_scene(&sc, "flow", 3, 3, EDGE_FIXED);
    sc.solver.damping = 0.5;
    /* F = 1: h' = (2 (f + h) / 2 - p) * d = (f + h - 1) / 2 with f the mean:
     * (0,0): f = (2+0+4+0)/4 = 1.5 -> (1.5+1-1)/2 = 0.75
     * (1,0): f = (3+1+5+0)/4 = 2.25 -> (2.25+2-1)/2 = 1.625
     * (1,1): f = 20/4 = 5 -> (5+5-1)/2 = 4.5 */
    struct rig r;
    rig_open(&r, &sc);
    load_3x3(&r.f);
    /* The seed's loop as written (000_3dad0444e06480b1.txt), on the same data. */
    float seed[9];
    float g[5][5] = { { 0 } };   /* the seed's grid with a zero border */
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++)
            g[y + 1][x + 1] = (float)(1 + x + 3 * y);
    for (int y = 1; y <= 3; y++)
        for (int x = 1; x <= 3; x++) {
            float flow = (g[y][x + 1] + g[y][x - 1] + g[y + 1][x] + g[y - 1][x]) / 4;
            float flowFactor = 1.0f, dampening = 0.5f, prev = 1.0f;
            seed[3 * (y - 1) + (x - 1)] = (2 * (flow * flowFactor + g[y][x]) / (flowFactor + 1) - prev) * dampening;
        }
    assert_true(seed[0] == 0.75f && seed[1] == 1.625f && seed[4] == 4.5f);
    r.ops->step(r.priv, &r.f, NULL);
    expect_3x3(&r.f, seed);
    rig_close(&r);
}

/* A height for expect_kernel_formula: mostly within 2^-20 .. 2^20 of
 * either sign, one in five near or below the smallest normal float (the
 * subnormals a wave front leaves behind), one in eleven a zero of either sign. */
static float test_value(uint32_t *u)
{
    *u = *u * 1664525u + 1013904223u;
    const float mant = (float)(*u >> 8) / 16777216.0f - 0.5f;
    if (*u % 11 == 0)
        return *u % 2 ? -0.0f : 0.0f;
    return ldexpf(mant, *u % 5 == 0 ? (int)(*u % 30) - 150 : (int)(*u % 40) - 20);
}

/* One cell of a solver's step written out plainly: the new height from the
 * neighbours W, E, N, S, the centre h and the height one step back p. */
typedef float (*cell_formula)(const void *c, float w, float e, float n, float s, float h, float p);

/* The solver of sc (fixed edges) against `cell`, bit for bit, over ten
 * steps of a 37 x 23 field of test_value heights (odd sizes: the vector
 * loops' remainders too). */
static void expect_kernel_formula(const struct scene *sc, cell_formula cell, const void *c, uint32_t seed,
                                  const char *what)
{
    enum { W = 37, H = 23 };
    assert_true(sc->grid.width == W && sc->grid.height == H);
    struct rig r;
    rig_open(&r, sc);
    static float cur[H + 2][W + 2], prev[H + 2][W + 2];   /* zero border: fixed edges */
    memset(cur, 0, sizeof cur);
    memset(prev, 0, sizeof prev);
    uint32_t u = seed;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float a = test_value(&u), b = test_value(&u);
            cur[y + 1][x + 1] = AT(&r.f, r.f.cur, x, y) = a;
            prev[y + 1][x + 1] = AT(&r.f, r.f.prev, x, y) = b;
        }
    for (int step = 0; step < 10; step++) {
        for (int y = 1; y <= H; y++)
            for (int x = 1; x <= W; x++)
                prev[y][x] = cell(c, cur[y][x - 1], cur[y][x + 1], cur[y - 1][x], cur[y + 1][x], cur[y][x], prev[y][x]);
        for (int y = 1; y <= H; y++)
            for (int x = 1; x <= W; x++) {
                float tmp = cur[y][x];
                cur[y][x] = prev[y][x];
                prev[y][x] = tmp;
            }
        r.ops->step(r.priv, &r.f, NULL);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (memcmp(&AT(&r.f, r.f.cur, x, y), &cur[y + 1][x + 1], sizeof(float)))
                    fail_msg("%s, step %d, cell (%d,%d): kernel %a, formula %a", what, step, x, y,
                             (double)AT(&r.f, r.f.cur, x, y), (double)cur[y + 1][x + 1]);
    }
    rig_close(&r);
}

/* seed 000's formula, with its division by F + 1. */
struct flow_consts {
    float F, F1, d;
};

static float flow_cell(const void *c, float w, float e, float n, float s, float h, float p)
{
    const struct flow_consts *k = c;
    float mean = ((e + w) + (s + n)) / 4.0f;
    return (2.0f * (mean * k->F + h) / k->F1 - p) * k->d;
}

/* The flow kernels against the formula with its division, subnormals and
 * signed zeros included: F = 1 takes the kernel that skips the identities
 * (mean * 1, then 2 x / 2), F = 0 the one that multiplies by 1 / (F + 1)
 * (exact for a power of two), F = 0.3 the one that divides. */
static void test_flow_kernels_exact(void **state)
{
    (void)state;
    const double factors[3] = { 1.0, 0.0, 0.3 };
    for (int t = 0; t < 3; t++) {
        struct scene sc;
        base_scene(&sc, "flow", 37, 23, EDGE_FIXED);
        sc.solver.flow = factors[t];
        sc.solver.damping = 0.97;
        const float F = (float)factors[t];
        const struct flow_consts k = { F, F + 1.0f, 0.97f };
        char what[32];
        snprintf(what, sizeof what, "F = %g", factors[t]);
        expect_kernel_formula(&sc, flow_cell, &k, 12345u + (uint32_t)t, what);
    }
}

/* The wave update of src/solvers/wave.c written out with all its factors. */
struct wave_consts {
    float c1, c2, q;
};

static float wave_cell(const void *c, float w, float e, float n, float s, float h, float p)
{
    const struct wave_consts *k = c;
    float lap = ((w + e) + (n + s)) - 4.0f * h;
    return k->c1 * h - k->c2 * p + k->q * lap;
}

/* The wave kernels against that formula, subnormals and signed zeros
 * included: without decay (c2 = 1, the kernel that skips c2 * p) and with it
 * (a = tanh(gamma dt), c1 = 2 / (1 + a), c2 = (1 - a) / (1 + a), q = nu^2 / (1 + a)). */
static void test_wave_kernels_exact(void **state)
{
    (void)state;
    const double decays[2] = { 0.0, 3.0 };
    for (int t = 0; t < 2; t++) {
        struct scene sc;
        base_scene(&sc, "wave", 37, 23, EDGE_FIXED);
        sc.grid.cell_size = 0.01;
        sc.solver.speed = 0.1;
        sc.solver.decay = decays[t];
        const double dt = scene_dt(&sc), nu = sc.solver.speed * dt / sc.grid.cell_size;
        const double a = tanh(decays[t] * dt);
        const struct wave_consts k = { (float)(2 / (1 + a)), (float)((1 - a) / (1 + a)), (float)(nu * nu / (1 + a)) };
        assert_true((k.c2 == 1.0f) == (t == 0));
        char what[32];
        snprintf(what, sizeof what, "decay %g", decays[t]);
        expect_kernel_formula(&sc, wave_cell, &k, 777u + (uint32_t)t, what);
    }
}

/* How far (cells along the row through the source) the front got: the
 * farthest cell with |h| > 1e-3. */
static int front(const char *t, double F, int frames)
{
    struct scene sc;
    struct drop d = { .at = { .is_frame = true }, .x = 10, .y = 15, .radius = 0, .amplitude = 1, .shape = SHAPE_POINT };
    base_scene(&sc, t, 120, 31, EDGE_FIXED);
    sc.solver.flow = F;
    sc.drops = &d;
    sc.n_drops = 1;
    struct sim *s = run(&sc, frames);
    const struct field *f = sim_field(s);
    int far = 0;
    for (int x = 10; x < 120; x++)
        if (fabsf(AT(f, f->cur, x, 15)) > 1e-3f)
            far = x - 10;
    sim_free(s);
    return far;
}

static void test_flow_speed(void **state)
{
    (void)state;
    /* 60 steps: long waves move sqrt(F / (2 (F + 1))) cells per step: 0.5 at
     * F = 1 (30 cells), 0.32 at F = 0.25 (19 cells). */
    int fast = front("flow", 1.0, 30), slow = front("flow", 0.25, 30);
    print_message("front after 60 steps: F=1 %d cells, F=0.25 %d cells\n", fast, slow);
    assert_true(slow < fast);
    assert_true(fast >= 25 && fast <= 60);
    struct scene sc;
    struct rr_err e = { 0 };
    struct sim *s = NULL;
    base_scene(&sc, "flow", 8, 8, EDGE_FIXED);
    sc.solver.flow = 1.5;
    assert_int_equal(sim_create(&s, &sc, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "solver.flow"));
}

/* ---- spring ------------------------------------------------------------------ */

static void test_spring_step(void **state)
{
    (void)state;
    struct scene sc;
    base_scene(&sc, "spring", 3, 3, EDGE_FIXED);
    sc.solver.blend = 0.5;
    sc.solver.passes = 1;
    struct rig r;
    rig_open(&r, &sc);
    AT(&r.f, r.f.cur, 1, 1) = 1.0f;
    r.ops->step(r.priv, &r.f, NULL);
    /* velocity step: h' = h + (h - p) = 2 at the centre, 0 elsewhere.
     * blur, blend 1/2: centre: lerps 2 + (0 - 2)/2 = 1 each: (2 + 4) / 5 = 6/5;
     * edge midpoints: one lerp 0 + (2 - 0)/2 = 1, the rest 0: 1/5; corners 0. */
    const float want[9] = { 0, 1.0f / 5, 0, 1.0f / 5, 6.0f / 5, 1.0f / 5, 0, 1.0f / 5, 0 };
    expect_3x3(&r.f, want);
    assert_true(AT(&r.f, r.f.prev, 1, 1) == 1.0f);
    rig_close(&r);
}

/* On a W x 1 grid (and a 1 x H one) spring blurs in 1-D as seed 002 does:
 * h <- (h + lerp(h, left, b) + lerp(h, right, b)) / 3, whatever the other
 * two edges are. */
static void test_spring_1d(void **state)
{
    (void)state;
    struct scene sc;
    /* velocity step: h' = 2 at x = 2 of 5. blur, blend 1/2: centre: lerps
     * 2 + (0 - 2)/2 = 1 each: (2 + 2) / 3 = 4/3; its neighbours: one lerp
     * 0 + (2 - 0)/2 = 1: 1/3; the ends 0. (The 2-D blur would give 6/5 at the
     * centre, its lerps towards the fixed rows above and below.) */
    const float want[5] = { 0, 1.0f / 3, 4.0f / 3, 1.0f / 3, 0 };
    for (int k = 0; k < 4; k++) {
        const int column = k >= 2;
        base_scene(&sc, "spring", column ? 1 : 5, column ? 5 : 1, EDGE_FIXED);
        if (k % 2) /* the edges across the line do not matter */
            for (int e = column ? EDGE_LEFT : EDGE_TOP, n = 0; n < 2; n++)
                sc.boundary[e + n] = EDGE_WRAP;
        struct rig r;
        rig_open(&r, &sc);
        AT(&r.f, r.f.cur, column ? 0 : 2, column ? 2 : 0) = 1.0f;
        r.ops->step(r.priv, &r.f, NULL);
        for (int i = 0; i < 5; i++)
            if (AT(&r.f, r.f.cur, column ? 0 : i, column ? i : 0) != want[i])
                fail_msg("case %d, cell %d: got %.9g, want %.9g", k, i,
                         (double)AT(&r.f, r.f.cur, column ? 0 : i, column ? i : 0), (double)want[i]);
        rig_close(&r);
    }
    /* The seed's own blend 0.99 with one pass is stable in 1-D (the
     * checkerboard factor (3 - 4 * 0.99) / 3 = -0.32 > -1/3), unlike in 2-D. */
    struct sim *s = NULL;
    struct rr_err e = { 0 };
    base_scene(&sc, "spring", 64, 1, EDGE_FIXED);
    sc.solver.blend = 0.99;
    assert_int_equal(sim_create(&s, &sc, &e), 0);
    sim_free(s);
}

static void test_spring_spreads(void **state)
{
    (void)state;
    struct scene sc;
    struct drop d = { .at = { .is_frame = true }, .x = 40, .y = 40, .radius = 3, .amplitude = 1,
                      .shape = SHAPE_GAUSSIAN };
    base_scene(&sc, "spring", 81, 81, EDGE_FIXED);
    sc.solver.blend = 0.5;
    sc.solver.passes = 2;   /* long waves: sqrt(2 * 0.5 / 5) = 0.45 cells per step */
    sc.drops = &d;
    sc.n_drops = 1;
    int peak[2];
    for (int k = 0; k < 2; k++) {
        struct sim *s = run(&sc, k == 0 ? 5 : 20);   /* 10 and 40 steps */
        const struct field *f = sim_field(s);
        float best = 0;
        peak[k] = 0;
        for (int x = 40; x < 81; x++)
            if (fabsf(AT(f, f->cur, x, 40)) > best) {
                best = fabsf(AT(f, f->cur, x, 40));
                peak[k] = x - 40;
            }
        sim_free(s);
    }
    print_message("ring radius: %d cells after 10 steps, %d after 40\n", peak[0], peak[1]);
    assert_true(peak[1] >= peak[0] + 8);   /* about 0.45 * 30 = 13 cells further */
}

static void test_spring_unstable_refused(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    struct sim *s = NULL;
    base_scene(&sc, "spring", 8, 8, EDGE_FIXED);
    sc.solver.blend = 0.99;
    sc.solver.passes = 1;   /* checkerboard factor (5 - 8 * 0.99) / 5 = -0.584 < -1/3 */
    assert_int_equal(sim_create(&s, &sc, &e), -1);
    assert_null(s);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "solver.blend"));
    sc.solver.passes = 2;   /* even: stable */
    assert_int_equal(sim_create(&s, &sc, &e), 0);
    sim_free(s);
}

/* ---- sim ----------------------------------------------------------------------- */

static double energy(const struct field *f)
{
    double sum = 0;
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++)
            sum += (double)AT(f, f->cur, x, y) * (double)AT(f, f->cur, x, y);
    return sum;
}

static void test_sponge(void **state)
{
    (void)state;
    struct scene sc;
    struct drop d = { .at = { .is_frame = true }, .x = 30, .y = 30, .radius = 3, .amplitude = 1,
                      .shape = SHAPE_GAUSSIAN };
    double en[2];
    for (int k = 0; k < 2; k++) {
        base_scene(&sc, "elias", 61, 61, k == 0 ? EDGE_CLAMP : EDGE_ABSORB);
        sc.absorb_width = 12;
        sc.drops = &d;
        sc.n_drops = 1;
        struct sim *s = run(&sc, 80);   /* 160 steps: the ring has met the edges twice */
        en[k] = energy(sim_field(s));
        sim_free(s);
    }
    print_message("energy after 160 steps: clamp %g, absorb %g\n", en[0], en[1]);
    assert_true(en[1] < 1e-3 * en[0]);   /* Mur + sponge: about 2e-5 of it is left */
}

static void test_blowup(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    struct sim *s = NULL;
    struct drop d = { .at = { .is_frame = true, .frame = 1 }, .x = 12, .y = 40, .radius = 0, .amplitude = 3e6,
                      .shape = SHAPE_POINT };
    base_scene(&sc, "elias", 20, 50, EDGE_FIXED);
    sc.drops = &d;
    sc.n_drops = 1;
    assert_int_equal(sim_create(&s, &sc, &e), 0);
    assert_int_equal(sim_advance_frame(s, &e), -1);
    assert_int_equal(e.status, RR_EXIT_RUNTIME);
    assert_string_equal(e.msg, "frame 1: the simulation blew up (height 3e+06 at cell 12,40); lower the "
                               "sources' amplitudes or damp more (solver.damping or solver.half_life)");
    sim_free(s);
}

static void test_registry(void **state)
{
    (void)state;
    /* Every type the scene loader accepts has a solver, under its own name,
     * in the table's order (the order messages list them). */
    static const char *const names[] = { "elias", "flow", "spring", "wave", "spectral" };
    const int n = (int)(sizeof names / sizeof *names);
    for (int t = 0; t < n; t++) {
        assert_non_null(solver_at(t));
        assert_string_equal(solver_at(t)->name, names[t]);
        assert_ptr_equal(solver_find(names[t]), solver_at(t));
    }
    assert_null(solver_at(n));
    assert_null(solver_at(-1));
    assert_null(solver_find("wav"));
    /* A name already taken is refused. */
    assert_int_equal(solver_register(solver_at(0)), -1);
    assert_null(solver_at(n));
    sim_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elias4_fixed),
        cmocka_unit_test(test_elias4_clamp),
        cmocka_unit_test(test_elias4_wrap),
        cmocka_unit_test(test_elias8_fixed),
        cmocka_unit_test(test_elias8_wrap),
        cmocka_unit_test(test_elias_damping),
        cmocka_unit_test(test_seed003_init),
        cmocka_unit_test(test_half_life),
        cmocka_unit_test(test_damping_shift_factor),
        cmocka_unit_test(test_elias_symmetry),
        cmocka_unit_test(test_wrap_translation),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_walls_hold_zero),
        cmocka_unit_test(test_flow_seed),
        cmocka_unit_test(test_flow_kernels_exact),
        cmocka_unit_test(test_wave_kernels_exact),
        cmocka_unit_test(test_flow_speed),
        cmocka_unit_test(test_spring_step),
        cmocka_unit_test(test_spring_1d),
        cmocka_unit_test(test_spring_spreads),
        cmocka_unit_test(test_spring_unstable_refused),
        cmocka_unit_test(test_sponge),
        cmocka_unit_test(test_blowup),
        cmocka_unit_test(test_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

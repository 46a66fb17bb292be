/* test_reference.c: the fast steps of elias, flow and wave give the bits of
 * their plain reference steps (solver_ops.reference_step: the equation as
 * one loop over the cells, in each solver's file).
 *
 * The fast side is what src/sim.c calls: solver_ops.step (src/tblock.c's
 * plain driver: the row kernels one or three rows a loop, portable and, on
 * a CPU with it, the AVX-512 or AVX2 driver's (each test also runs with the
 * AVX2 driver on an AVX-512 CPU: drivers_fixture.h), sweeping down or up, prefetching or not, as its
 * tuner takes each way in turn over the first steps) and solver_ops.advance
 * (several steps fused in one pass), each step followed by zeroing the wall
 * cells of both planes, as sim.c does; the blow-up screen asked for on some
 * frames, as sim.c asks for it (the kernels' screened builds). The reference
 * side: the same number of reference_step calls on a copy of the field,
 * each followed by the same zeroing, on the same solver state (priv).
 *
 * Over every combination of: grid shapes of one row or one column, odd
 * sizes, widths either side of the 16- and 32-cell vectors, and one large
 * enough for several bands of fused steps; every edge kind alone and mixed
 * per side (a top or bottom wrap makes advance decline, and the frames take
 * single steps); walls or none; each solver's kernel forms (elias 4 and 8
 * neighbours with damping or damping_shift, flow's three forms, wave
 * uniform or with a speed_map, with decay or none). Each combination's
 * frames take 1, 2 and 3 threads in turn. Heights start random, some of
 * them subnormal and some zeros of either sign, different in both planes.
 * After every frame the two fields' cells must be equal bit for bit
 * (memcmp, both planes; the ghosts are not compared: each step fills the
 * ones it reads). */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "drivers_fixture.h"
#include "field.h"
#include "gray_png.h"
#include "hand_scene.h"
#include "rng.h"
#include "scene.h"
#include "solver.h"
#include "solver_rig.h"
#include "tblock.h"

/* One kernel form of a solver: the scene keys that select it. */
struct variant {
    const char *name;
    const char *solver;
    int neighbors;        /* elias */
    double damping;       /* elias, flow */
    int damping_shift;    /* elias, flow; 0: none */
    double flow;          /* flow's F */
    double decay;         /* wave */
    bool speed_map;       /* wave */
};

static const struct variant variants[] = {
    { "elias 4, damping 0.999", "elias", 4, 0.999, 0, 0, 0, false },
    { "elias 4, damping 1", "elias", 4, 1.0, 0, 0, 0, false },
    { "elias 4, damping 0.25", "elias", 4, 0.25, 0, 0, 0, false },
    /* The AVX-512 kernels fuse the damping's + 0 into a multiply-add only
     * above 1/2 (elias.c's ELIAS_UPDATE): 1/2 itself rounds the least
     * subnormal's product (a tie) to a zero, one float above it does not. */
    { "elias 4, damping 0.5", "elias", 4, 0.5, 0, 0, 0, false },
    { "elias 4, damping 0.5 + 2^-24", "elias", 4, 0.5 + 0x1.0p-24, 0, 0, 0, false },
    { "elias 4, damping_shift 5", "elias", 4, 1.0, 5, 0, 0, false },
    { "elias 8, damping 0.25", "elias", 8, 0.25, 0, 0, 0, false },
    { "elias 8, damping_shift 7", "elias", 8, 1.0, 7, 0, 0, false },
    { "flow F = 1", "flow", 4, 0.99, 0, 1.0, 0, false },
    { "flow F = 0 (1 / (F + 1) exact)", "flow", 4, 0.97, 0, 0.0, 0, false },
    { "flow F = 0.3 (a division)", "flow", 4, 0.999, 0, 0.3, 0, false },
    { "flow F = 0.7, damping_shift 4", "flow", 4, 1.0, 4, 0.7, 0, false },
    { "wave", "wave", 4, 1.0, 0, 0, 0.0, false },
    { "wave, decay 3", "wave", 4, 1.0, 0, 0, 3.0, false },
    { "wave, speed_map", "wave", 4, 1.0, 0, 0, 0.0, true },
    { "wave, speed_map, decay 3", "wave", 4, 1.0, 0, 0, 3.0, true },
};

/* Left, right, top, bottom (enum edge_side). */
static const enum edge_kind edge_sets[][4] = {
    { EDGE_FIXED, EDGE_FIXED, EDGE_FIXED, EDGE_FIXED },
    { EDGE_CLAMP, EDGE_CLAMP, EDGE_CLAMP, EDGE_CLAMP },
    { EDGE_WRAP, EDGE_WRAP, EDGE_WRAP, EDGE_WRAP },
    { EDGE_ABSORB, EDGE_ABSORB, EDGE_ABSORB, EDGE_ABSORB },
    { EDGE_WRAP, EDGE_WRAP, EDGE_FIXED, EDGE_CLAMP },
    { EDGE_ABSORB, EDGE_CLAMP, EDGE_WRAP, EDGE_FIXED },
    { EDGE_FIXED, EDGE_ABSORB, EDGE_CLAMP, EDGE_ABSORB },
};

/* Width x height. */
static const int shapes[][2] = {
    { 1, 1 }, { 1, 33 }, { 33, 1 }, { 7, 5 }, { 15, 9 }, { 16, 16 }, { 17, 12 },
    { 31, 7 }, { 33, 34 }, { 64, 20 }, { 5, 61 }, { 200, 130 },
};

enum { FRAMES = 8, MAX_STEPS = 5 };

static const struct solver_ops *ops_of(const struct variant *v)
{
    const struct solver_ops *ops = solver_find(v->solver);
    assert_non_null(ops);
    assert_non_null(ops->reference_step);
    return ops;
}

/* The speed map of a w x h grid at `path`: values over the whole range,
 * no two neighbours alike. */
static void write_speed_map(const char *path, int w, int h)
{
    unsigned char *px = malloc((size_t)w * (size_t)h);
    assert_non_null(px);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            px[y * w + x] = (unsigned char)((x * 37 + y * 101) % 256);
    write_gray_png(path, w, h, px);
    free(px);
}

static void make_scene(struct scene *sc, const struct variant *v, int w, int h, const enum edge_kind edges[4],
                       char *map)
{
    hand_scene(sc, w, h, 30, FRAMES, MAX_STEPS);
    sc->grid.cell_size = 0.01;
    hand_solver(sc, v->solver, 1);
    sc->solver.damping = v->damping;
    sc->solver.damping_shift = v->damping_shift;
    sc->solver.neighbors = v->neighbors;
    sc->solver.flow = v->flow;
    /* nu = c dt / dx = 1/3 uniform, 0.2 .. 0.67 on the map: stable. */
    sc->solver.speed = 0.5;
    sc->solver.speed_map = v->speed_map ? map : NULL;
    sc->solver.speed_range[0] = 0.3;
    sc->solver.speed_range[1] = 1.0;
    sc->solver.decay = v->decay;
    for (int k = 0; k < 4; k++)
        sc->boundary[k] = edges[k];
    sc->absorb_width = 4;
}

/* A starting height: mostly within [-1, 1]; one in 16 subnormal, one in 16
 * the smallest subnormal (which a damping of 1/4 rounds to a zero: of which
 * sign, a shortcut may change), one in 16 a zero of either sign, one in 16
 * a normal float so small that its products and differences underflow. */
static float start_height(struct rng *r)
{
    uint64_t u = rng_next(r);
    float v = (float)((double)(u >> 11) * 0x1.0p-52 - 1.0);
    switch (u & 15) {
    case 0: return ldexpf(v, -130);
    case 1: return u & 16 ? -0x1.0p-149f : 0x1.0p-149f;
    case 2: return u & 16 ? -0.0f : 0.0f;
    case 3: return ldexpf(v, -124);
    default: return v;
    }
}

/* Walls: every seventh cell and a 3 x 3 block (where the grid has room). */
static size_t make_walls(const struct field *f, ptrdiff_t *walls)
{
    size_t n = 0;
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            bool block = f->w >= 9 && f->h >= 9 && x >= 4 && x < 7 && y >= 3 && y < 6;
            if ((y * f->w + x) % 7 == 3 || block)
                walls[n++] = y * f->stride + x;
        }
    return n;
}

static void zero_walls(struct field *f, const ptrdiff_t *walls, size_t n)
{
    for (size_t i = 0; i < n; i++)
        f->cur[walls[i]] = f->prev[walls[i]] = 0.0f;
}

/* n steps by the fast path, as sim.c takes them: fused (solver_ops.advance)
 * when `fused` and the solver accepts, else one at a time; with the blow-up
 * screen armed at `limit` (0: off). */
static void fast_steps(const struct solver_ops *ops, void *priv, struct field *f, int n, bool fused, float limit,
                       const ptrdiff_t *walls, size_t n_walls)
{
    struct solver_screen screen = { .limit = limit };
    if (fused && n > 1 && ops->advance(priv, f, n, walls, n_walls, &screen, NULL) == n) {
        zero_walls(f, walls, n_walls);
    } else {
        for (int k = 0; k < n; k++) {
            screen = (struct solver_screen){ .limit = limit };
            ops->step(priv, f, &screen);
            zero_walls(f, walls, n_walls);
        }
    }
}

static void reference_steps(const struct solver_ops *ops, const void *priv, struct field *f, int n,
                            const ptrdiff_t *walls, size_t n_walls)
{
    for (int k = 0; k < n; k++) {
        ops->reference_step(priv, f);
        zero_walls(f, walls, n_walls);
    }
}

/* Copies the cells of plane g (not its ghosts) to out, w x h floats. */
static void keep_plane(float *out, const struct field *f, const float *g)
{
    for (int y = 0; y < f->h; y++)
        memcpy(out + (size_t)y * (size_t)f->w, g + y * f->stride, (size_t)f->w * sizeof *out);
}

/* The first cell where `kept` (the fast path's plane, as keep_plane copied
 * it) and the reference's plane r differ, as a failure naming `what`;
 * nothing when they are equal. */
static void expect_plane(const float *kept, const struct field *f, const float *r, const char *plane,
                         const char *what)
{
    for (int y = 0; y < f->h; y++) {
        const float *a = kept + (size_t)y * (size_t)f->w, *b = r + y * f->stride;
        if (!memcmp(a, b, (size_t)f->w * sizeof *a))
            continue;
        for (int x = 0; x < f->w; x++)
            if (memcmp(&a[x], &b[x], sizeof *a))
                fail_msg("%s: %s (%d,%d): fast %a, reference %a", what, plane, x, y, (double)a[x], (double)b[x]);
    }
}

/* One combination: FRAMES frames, the even ones of 1 to 3 single steps,
 * the odd ones of 2 to 5 steps fused (at least the ways the drivers' tuners
 * take in turn: tblock.c), on 1, 2 and 3 threads in turn (each of single
 * and fused steps meets each count), the screen armed on every third frame. The fast
 * path runs all its frames first, keeping a copy of its planes after each
 * (the thread pool stays busy), then the reference path runs and is
 * compared after each frame. */
static void compare(const struct variant *v, const int shape[2], const enum edge_kind edges[4], bool with_walls,
                    char *map)
{
    const int w = shape[0], h = shape[1];
    struct scene sc;
    make_scene(&sc, v, w, h, edges, map);
    const struct solver_ops *ops = ops_of(v);
    struct field fast, ref;
    struct rr_err e = { 0 };
    assert_int_equal(field_init(&fast, w, h, &e), 0);
    assert_int_equal(field_init(&ref, w, h, &e), 0);
    void *priv = solver_open(ops, &sc, &fast, v->name);

    struct rng r;
    rng_seed(&r, (uint64_t)w * 7919u + (uint64_t)h * 131u + (uint64_t)(v - variants));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            fast.cur[y * fast.stride + x] = ref.cur[y * ref.stride + x] = start_height(&r);
            fast.prev[y * fast.stride + x] = ref.prev[y * ref.stride + x] = start_height(&r);
        }
    ptrdiff_t *walls = malloc((size_t)w * (size_t)h * sizeof *walls);
    assert_non_null(walls);
    const size_t n_walls = with_walls ? make_walls(&fast, walls) : 0;
    zero_walls(&fast, walls, n_walls);
    zero_walls(&ref, walls, n_walls);

    int steps[FRAMES], threads[FRAMES];
    const size_t plane = (size_t)w * (size_t)h;
    float *kept = malloc(2 * FRAMES * plane * sizeof *kept);
    assert_non_null(kept);
    const int most = tblock_max_steps(&fast);
    for (int frame = 0; frame < FRAMES; frame++) {
        const int n = frame % 2 ? 2 + frame / 2 % 4 : 1 + frame / 2 % 3;
        steps[frame] = n < most ? n : most;
        threads[frame] = 1 + frame % 3;
        omp_set_num_threads(threads[frame]);
        fast_steps(ops, priv, &fast, steps[frame], frame % 2, frame % 3 == 2 ? 1e6f : 0.0f, walls, n_walls);
        keep_plane(kept + 2 * frame * plane, &fast, fast.cur);
        keep_plane(kept + (2 * frame + 1) * plane, &fast, fast.prev);
    }
    for (int frame = 0; frame < FRAMES; frame++) {
        reference_steps(ops, priv, &ref, steps[frame], walls, n_walls);
        char what[200];
        snprintf(what, sizeof what, "%s, %dx%d, edges %d %d %d %d, %s, %d threads, frame %d (%d steps%s)", v->name,
                 w, h, edges[0], edges[1], edges[2], edges[3], with_walls ? "walls" : "no walls", threads[frame], frame,
                 steps[frame], frame % 2 ? ", fused" : "");
        expect_plane(kept + 2 * frame * plane, &ref, ref.cur, "cur", what);
        expect_plane(kept + (2 * frame + 1) * plane, &ref, ref.prev, "prev", what);
    }
    free(kept);
    free(walls);
    solver_close(ops, priv, &fast);
    field_free(&ref);
}

/* Every combination for the variants [first, last). */
static void compare_all(size_t first, size_t last)
{
    char map[64];
    snprintf(map, sizeof map, "/tmp/rr_reference_map_%ld.png", (long)getpid());
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        write_speed_map(map, shapes[s][0], shapes[s][1]);
        for (size_t v = first; v < last; v++)
            for (size_t k = 0; k < sizeof edge_sets / sizeof *edge_sets; k++)
                for (int walls = 0; walls < 2; walls++)
                    compare(&variants[v], shapes[s], edge_sets[k], walls, map);
    }
    remove(map);
}

/* The variants of one solver type. */
static void compare_type(const char *solver)
{
    const size_t n = sizeof variants / sizeof *variants;
    size_t first = 0;
    while (first < n && strcmp(variants[first].solver, solver))
        first++;
    size_t last = first;
    while (last < n && !strcmp(variants[last].solver, solver))
        last++;
    assert_true(last > first);
    compare_all(first, last);
}

static void test_elias(void **state)
{
    (void)state;
    compare_type("elias");
}

static void test_flow(void **state)
{
    (void)state;
    compare_type("flow");
}

static void test_wave(void **state)
{
    (void)state;
    compare_type("wave");
}

/* elias's damping where a product rounds to a zero: still water (every
 * neighbour sum +0) over heights one step back of +-2^-149 (the least
 * subnormal) and zeros of either sign, so the new height before damping is
 * -+2^-149 or +0, with dampings either side of 1/2 (the AVX-512 and AVX2
 * drivers fuse the + 0 above it: elias.c's ELIAS_UPDATE). Every row kernel the solver
 * offers on this CPU, one row and three rows a loop, called directly, gives
 * the reference step's bits: with 1/4 and 1/2 the product -2^-151 or -2^-150
 * rounds to -0, which + 0 makes +0. */
static void test_elias_zero_products(void **state)
{
    (void)state;
    static const double dampings[] = { 0.25, 0.5, 0.5 + 0x1.0p-24, 0.999, 1.0 };
    static const float backs[] = { 0x1.0p-149f, -0x1.0p-149f, 0.0f, -0.0f, 0x1.0p-149f, 1.0f };
    static const enum edge_kind fixed[4] = { EDGE_FIXED, EDGE_FIXED, EDGE_FIXED, EDGE_FIXED };
    enum { W = 40, H = 6 };
    for (size_t d = 0; d < sizeof dampings / sizeof *dampings; d++) {
        const struct variant v = { "elias", "elias", 4, dampings[d], 0, 0, 0, false };
        struct scene sc;
        make_scene(&sc, &v, W, H, fixed, NULL);
        const struct solver_ops *ops = ops_of(&v);
        struct rr_err e = { 0 };
        struct field ref, f;
        assert_int_equal(field_init(&ref, W, H, &e), 0);
        assert_int_equal(field_init(&f, W, H, &e), 0);
        void *priv = solver_open(ops, &sc, &ref, NULL);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                ref.prev[y * ref.stride + x] = backs[(x + y) % (sizeof backs / sizeof *backs)];
        float *kept = malloc((size_t)W * H * sizeof *kept);
        assert_non_null(kept);
        keep_plane(kept, &ref, ref.prev);
        ops->reference_step(priv, &ref);   /* the new heights in ref.cur */
        const struct tblock_kernel *kn = ops->kernel(priv);
        const ptrdiff_t st = f.stride;
        for (int way = 0; way < 4; way++) {
            const tblock_row_fn row = way == 0 ? kn->row : way == 1 ? kn->row_driver : NULL;
            const tblock_rows3_fn rows3 = way == 2 ? kn->rows3 : way == 3 ? kn->rows3_driver : NULL;
            if (!row && !rows3)
                continue;   /* no driver's kernel on this CPU */
            for (int y = -1; y <= H; y++)
                for (int x = -1; x <= W; x++)
                    f.cur[y * st + x] = 0.0f;
            for (int y = 0; y < H; y++)
                memcpy(f.prev + y * st, kept + (size_t)y * W, W * sizeof *kept);
            for (int y = 0; y < H; y += row ? 1 : 3) {
                if (row)
                    row(kn->k, y, f.prev + y * st, f.cur + (y - 1) * st, f.cur + y * st, f.cur + (y + 1) * st, W,
                        1e6f);
                else
                    rows3(kn->k, y, f.prev + y * st, f.prev + (y + 1) * st, f.prev + (y + 2) * st,
                          f.cur + (y - 1) * st, f.cur + y * st, f.cur + (y + 1) * st, f.cur + (y + 2) * st,
                          f.cur + (y + 3) * st, W, 1e6f);
            }
            float *got = malloc((size_t)W * H * sizeof *got);
            assert_non_null(got);
            keep_plane(got, &f, f.prev);
            char what[96];
            snprintf(what, sizeof what, "elias damping %a, %s kernel", dampings[d],
                     (const char *const[]){ "row", "row driver", "rows3", "rows3 driver" }[way]);
            expect_plane(got, &ref, ref.cur, "new", what);
            free(got);
        }
        free(kept);
        solver_close(ops, priv, &ref);
        field_free(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elias_zero_products),
        cmocka_unit_test(test_elias),
        cmocka_unit_test(test_flow),
        cmocka_unit_test(test_wave),
        AVX2_DRIVER_TEST(test_elias_zero_products),
        AVX2_DRIVER_TEST(test_elias),
        AVX2_DRIVER_TEST(test_flow),
        AVX2_DRIVER_TEST(test_wave),
        CAREFUL_DRIVER_TEST(test_elias_zero_products),
        CAREFUL_DRIVER_TEST(test_elias),
        CAREFUL_DRIVER_TEST(test_flow),
        CAREFUL_DRIVER_TEST(test_wave),
        PLAIN_DRIVER_TEST(test_elias),
        PLAIN_DRIVER_TEST(test_flow),
        PLAIN_DRIVER_TEST(test_wave),
        AVX2_CAREFUL_DRIVER_TEST(test_elias),
        AVX2_CAREFUL_DRIVER_TEST(test_flow),
        AVX2_CAREFUL_DRIVER_TEST(test_wave),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

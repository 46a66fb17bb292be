/* test_sim_screen.c: the blow-up check folded into the row drivers
 * (struct solver_screen, passed by sim.c through the solver's step and
 * advance to tblock_step and tblock_advance) reports what the full check reports. A field
 * that grows by itself (damping above 1, no source after the first frame)
 * must fail at the first frame whose grid holds a cell beyond 1e6, naming the
 * first such cell in row-major order, with plain steps (steps_per_frame 1)
 * and fused ones (4), on 1 and 2 threads; the screen itself flags a NaN
 * or an over-limit row and vouches for nothing when off (limit 0); and
 * each solver's row kernels compute the same bits with the screen on or off,
 * flagging only when it is on. */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "field.h"
#include "scene.h"
#include "sim.h"
#include "drivers_fixture.h"
#include "sim_fixture.h"
#include "solver.h"
#include "solver_rig.h"
#include "tblock.h"
#include "tblock_internal.h"

/* The first cell beyond the limit in row-major order, or -1. */
static int first_over(const struct field *f, float *v)
{
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++)
            if (!(fabsf(f->cur[y * f->stride + x]) <= 1e6f)) {
                *v = f->cur[y * f->stride + x];
                return y * f->w + x;
            }
    return -1;
}

static void test_growth_reported_at_the_right_frame(void **state)
{
    (void)state;
    const char *const types[] = { "elias", "flow" };
    const int spfs[] = { 1, 4 }, threads[] = { 1, 2 };
    int saved = omp_get_max_threads();
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 2; k++)
            for (int p = 0; p < 2; p++) {
                omp_set_num_threads(threads[p]);
                struct scene sc;
                struct drop d;
                grow_scene(&sc, &d, types[t], spfs[k], 29, 17);
                struct sim *s = NULL;
                struct rr_err e = { 0 };
                assert_int_equal(sim_create(&s, &sc, &e), 0);
                long frame = 0;
                int rc;
                while ((rc = sim_advance_frame(s, &e)) == 0) {
                    frame++;
                    float v;
                    /* Every frame that passed is within the limit. */
                    assert_int_equal(first_over(sim_field(s), &v), -1);
                    assert_true(frame < 200);
                }
                assert_int_equal(rc, -1);
                float v = 0;
                int at = first_over(sim_field(s), &v);
                assert_true(at >= 0);
                char want[256];
                snprintf(want, sizeof want,
                         "frame %ld: the simulation blew up (height %g at cell %d,%d); lower the sources' "
                         "amplitudes or damp more (solver.damping or solver.half_life)",
                         frame + 1, (double)v, at % sc.grid.width, at / sc.grid.width);
                assert_string_equal(e.msg, want);
                assert_true(frame > 3);   /* grown by the steps, not set by the drop */
                sim_free(s);
            }
    omp_set_num_threads(saved);
}

static float ident_k;

/* out = mid (a step that copies the current level: its values are known). */
static int copy_row(const void *k, int y, float *out, const float *up, const float *mid, const float *dn, int w,
                    float limit)
{
    int32_t m = 0;
    (void)k;
    (void)y;
    (void)up;
    (void)dn;
    for (int x = 0; x < w; x++) {
        out[x] = mid[x];
        m = tblock_mag_max(m, out[x]);
    }
    return limit > 0 && tblock_beyond(m, limit);
}

/* One step, or a fused pass of two, with the screen. */
static void screen_pass(struct field *f, struct tblock_kernel *kn, int fused, struct solver_screen *screen)
{
    if (fused)
        assert_int_equal(tblock_advance(f, kn, 2, NULL, 0, screen, NULL), 2);
    else
        tblock_step(f, kn, screen);
}

static void test_screen_flags(void **state)
{
    (void)state;
    struct field f;
    struct rr_err e = { 0 };
    const enum edge_kind edges[4] = { EDGE_FIXED, EDGE_FIXED, EDGE_FIXED, EDGE_FIXED };
    struct tblock_kernel kn = { .row = copy_row, .k = &ident_k, .edges = edges };
    assert_int_equal(field_init(&f, 40, 30, &e), 0);
    /* The first floats past the limit either way, as well as the far ones:
     * the screen compares bit patterns as integers (tblock_mag). */
    const float bad[] = { NAN, -NAN, 2e6f, -2e6f, INFINITY, -INFINITY, nextafterf(1e6f, INFINITY),
                          -nextafterf(1e6f, INFINITY) };
    for (int b = 0; b < (int)(sizeof bad / sizeof *bad); b++)
        for (int fused = 0; fused < 2; fused++) {
            for (int y = 0; y < 30; y++)
                for (int x = 0; x < 40; x++)
                    f.cur[y * f.stride + x] = f.prev[y * f.stride + x] = 1e6f;
            struct solver_screen on = { .limit = 1e6f };
            screen_pass(&f, &kn, fused, &on);
            assert_true(on.within);                    /* 1e6 itself is within */
            f.cur[17 * f.stride + 39] = bad[b];
            on = (struct solver_screen){ .limit = 1e6f };
            screen_pass(&f, &kn, fused, &on);
            assert_false(on.within);
            f.cur[17 * f.stride + 39] = 0.0f;
            struct solver_screen off = { .limit = 0.0f };
            screen_pass(&f, &kn, fused, &off);
            assert_false(off.within);                  /* off: vouches for nothing */
        }
    field_free(&f);
}

/* The row-driven solvers' kernel forms: every damping form, stencil,
 * division form and wave with and without decay. */
struct variant {
    const char *solver;
    int neighbors, damping_shift;
    double flow, decay;
};
static const struct variant variants[] = {
    { "elias", 4, 0, 1, 0 }, { "elias", 8, 0, 1, 0 },   { "elias", 4, 5, 1, 0 },
    { "elias", 8, 5, 1, 0 }, { "flow", 4, 0, 1, 0 },    { "flow", 4, 0, 0.3, 0 },
    { "flow", 4, 0, 0, 0 },  { "wave", 4, 0, 1, 0 },    { "wave", 4, 0, 1, 3.0 },
};
enum { N_VARIANTS = sizeof variants / sizeof *variants };

/* Variant i's solver state on a w x h field of values in [-1, 1), ghosts
 * included (its row kernels: variant_kernel). */
static void *open_variant(size_t i, int w, int h, struct field *f)
{
    struct scene sc;
    struct drop d;
    grow_scene(&sc, &d, variants[i].solver, 1, 29, 17);
    sc.solver.damping = 0.98;
    sc.solver.neighbors = variants[i].neighbors;
    sc.solver.damping_shift = variants[i].damping_shift;
    sc.solver.flow = variants[i].flow;
    sc.solver.decay = variants[i].decay;
    sc.grid.cell_size = 0.01;   /* wave: Courant number 0.67 at 0.2 m/s */
    sc.solver.speed = 0.2;
    struct rr_err e = { 0 };
    assert_int_equal(field_init(f, w, h, &e), 0);
    char what[32];
    snprintf(what, sizeof what, "variant %zu", i);
    void *priv = solver_open(sc.solver.type, &sc, f, what);
    uint32_t u = 977u + (uint32_t)i;
    for (int y = -1; y <= h; y++)
        for (int x = -1; x <= w; x++) {
            u = u * 1664525u + 1013904223u;
            f->cur[y * f->stride + x] = (float)(u >> 8) / 8388608.0f - 1.0f;
        }
    return priv;
}

/* The row kernels in variant i's solver state. */
static struct tblock_kernel *variant_kernel(size_t i, void *priv)
{
    const struct solver_ops *ops = solver_find(variants[i].solver);
    assert_non_null(ops->kernel);
    return ops->kernel(priv);
}

static void close_variant(size_t i, void *priv, struct field *f)
{
    solver_close(solver_find(variants[i].solver), priv, f);
}

/* Each solver's row kernels, the portable one and the driver's (AVX-512 or
 * AVX2) where the CPU has it, give the same bits with the screen on (limit
 * 1e6) and off (limit 0), and flag a NaN, an infinity or a height beyond the
 * limit, in the middle of the row or in its last cell (a driver's masked
 * end), only when it is on: the drivers run most steps unscreened. A
 * subnormal flags nothing. */
static void test_kernel_screen_switch(void **state)
{
    (void)state;
    enum { W = 45, H = 6 };
    static const struct {
        int x;
        float v;
        int flags;
    } cases[] = { { 30, 0.25f, 0 }, { 30, NAN, 1 },  { 30, INFINITY, 1 }, { W - 1, -INFINITY, 1 },
                  { W - 1, 1e7f, 1 }, { 0, -1e-40f, 0 }, { W - 1, -NAN, 1 } };
    for (size_t i = 0; i < N_VARIANTS; i++) {
        struct field f;
        void *priv = open_variant(i, W, H, &f);
        const struct tblock_kernel *kn = variant_kernel(i, priv);
        const tblock_row_fn kernels[2] = { kn->row, kn->row_driver };
        for (int kind = 0; kind < 2 && kernels[kind]; kind++)
            for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
                const float *up = f.cur + 1 * f.stride, *dn = f.cur + 3 * f.stride;
                float *mid = f.cur + 2 * f.stride, was = mid[cases[c].x];
                mid[cases[c].x] = cases[c].v;
                float on[W], off[W];
                for (int x = 0; x < W; x++)
                    on[x] = off[x] = (float)x / W - 0.5f;
                int flag_on = kernels[kind](kn->k, 2, on, up, mid, dn, W, 1e6f);
                int flag_off = kernels[kind](kn->k, 2, off, up, mid, dn, W, 0.0f);
                mid[cases[c].x] = was;
                if (memcmp(on, off, sizeof on))
                    fail_msg("variant %zu, kernel %d, case %zu: the screened and unscreened kernels differ", i,
                             kind, c);
                if (flag_on != cases[c].flags)
                    fail_msg("variant %zu, kernel %d, case %zu: the screen says %d", i, kind, c, flag_on);
                assert_int_equal(flag_off, 0);
            }
        close_variant(i, priv, &f);
    }
}

/* The AVX-512 kernels' screen (a sum of squares a lane, then the rows read
 * back when a sum passes limit^2: src/tblock_avx512.h) against the exact
 * answer, at limits set by the new heights themselves: each row's largest
 * magnitude M (no cell beyond it, though the sums pass M^2 whenever a lane
 * holds two cells near M: answer 0), the float just below M (that cell is
 * beyond: 1), and a limit far above (0, the sums never read back); on
 * rows whose new heights are all about as large (every lane's sum passes:
 * answer 0 at M) and on rows of mixed heights; with an infinity in a row,
 * 1 at any limit. One row and three rows a loop, row lengths 1 to 70. */
static void test_kernel_screen_sums(void **state)
{
    (void)state;
    enum { W = 70, H = 6 };
    for (size_t i = 0; i < N_VARIANTS; i++) {
        struct field f;
        void *priv = open_variant(i, W, H, &f);
        const struct tblock_kernel *kn = variant_kernel(i, priv);
        if (!kn->row_driver) {
            close_variant(i, priv, &f);
            continue;
        }
        const float *r[5];
        for (int j = 0; j < 5; j++)
            r[j] = f.cur + j * f.stride;
        for (int rows = 0; rows < 3; rows++) {
            /* rows 0: the field's own mixed heights; 1: every cell 3e5 (new
             * heights about that size); 2: as 1, one cell infinite */
            if (rows > 0)
                for (int y = -1; y <= H; y++)
                    for (int x = -1; x <= W; x++)
                        f.cur[y * f.stride + x] = rows == 2 && y == 2 && x == 33 ? INFINITY : 3e5f;
            for (int w = 1; w <= W; w++) {
                float old[3][W], ref[3][W], m = 0;
                for (int j = 0; j < 3; j++)
                    for (int x = 0; x < W; x++)
                        old[j][x] = ref[j][x] = rows ? 1e5f : (float)(x % 7) / 7.0f - 0.4f;
                for (int j = 0; j < 3; j++) {
                    kn->row(kn->k, 1 + j, ref[j], r[j], r[j + 1], r[j + 2], w, 0.0f);
                    for (int x = 0; x < w; x++)
                        m = fabsf(ref[j][x]) > m || isnan(ref[j][x]) ? fabsf(ref[j][x]) : m;
                }
                const int beyond_all = !(m < INFINITY);   /* an infinity or NaN: beyond every limit */
                const float limits[3] = { beyond_all ? 1e6f : m, beyond_all ? 1e6f : nextafterf(m, 0.0f), 1e30f };
                for (int l = 0; l < 3; l++) {
                    const int want = beyond_all || (l == 1 && m > 0);
                    float a[3][W], b[3][W];
                    memcpy(a, old, sizeof a);
                    memcpy(b, old, sizeof b);
                    int fa = 0;
                    for (int j = 0; j < 3; j++)
                        fa |= kn->row_driver(kn->k, 1 + j, a[j], r[j], r[j + 1], r[j + 2], w, limits[l]);
                    int fb = kn->rows3_driver(kn->k, 1, b[0], b[1], b[2], r[0], r[1], r[2], r[3], r[4], w, limits[l]);
                    if (memcmp(a, ref, sizeof a) || memcmp(b, ref, sizeof b))
                        fail_msg("variant %zu, rows %d, w %d: the screened kernels' heights differ", i, rows, w);
                    if (fa != want || fb != want)
                        fail_msg("variant %zu, rows %d, w %d, limit %g (largest %g): flags %d and %d, want %d", i, rows,
                                 w, (double)limits[l], (double)m, fa, fb, want);
                }
            }
        }
        close_variant(i, priv, &f);
    }
}

/* The other kernels of a solver against its portable row kernel, bit for
 * bit: the ones for three rows at a time and, where the CPU has AVX-512 or
 * AVX2, the driver's for one and for three rows (src/tblock_avx512.h,
 * src/tblock_avx2.h), for every row length from 1 to 100 (the drivers'
 * masked ends: 1 to 31 cells past the last whole pair of vectors) and into
 * an unaligned row, with subnormals and signed zeros
 * among the inputs; they write nothing past the row's end, and screen
 * alike. */
static void test_kernels_match(void **state)
{
    (void)state;
    enum { W = 100, H = 6, GUARD = 20, LEN = W + GUARD + 1 };
    for (size_t i = 0; i < N_VARIANTS; i++) {
        struct field f;
        void *priv = open_variant(i, W, H, &f);
        const struct tblock_kernel *kn = variant_kernel(i, priv);
        assert_true((kn->row_driver != NULL) == ((tblock_avx512() || tblock_avx2()) && variants[i].neighbors == 4));
        assert_true(!kn->row_driver || (kn->driver && !strncmp(kn->driver, "avx2", 4)) == (tblock_avx2() != 0));
        assert_true(!kn->row_driver
                    || kn->driver_only == (tblock_careful() && (tblock_avx512() || tblock_careful_asked())));
        assert_true((kn->rows3 != NULL) == (variants[i].neighbors == 4));
        assert_true((kn->rows3_driver != NULL) == (kn->row_driver != NULL));
        if (!kn->rows3) {
            close_variant(i, priv, &f);
            continue;
        }
        float *mid = f.cur + 2 * f.stride;
        mid[7] = 1e-40f, mid[8] = -0.0f, mid[40] = -1e-39f, mid[41] = 0.0f;
        const float *r[5];
        for (int j = 0; j < 5; j++)
            r[j] = f.cur + j * f.stride;
        for (int w = 1; w <= W; w++)
            for (int shift = 0; shift < 2; shift++) {
                static float a[3][LEN], b[3][LEN], c[3][LEN];
                for (int j = 0; j < 3; j++)
                    for (int x = 0; x < LEN; x++)
                        a[j][x] = b[j][x] = c[j][x] = x % 9 == 4 ? -0.0f : (float)(x % 13 + j) / 13.0f - 0.4f;
                int fa = 0;
                for (int j = 0; j < 3; j++)
                    fa |= kn->row(kn->k, 1 + j, a[j] + shift, r[j], r[j + 1], r[j + 2], w, 1e6f);
                int fc = kn->rows3(kn->k, 1, c[0] + shift, c[1] + shift, c[2] + shift, r[0], r[1], r[2], r[3], r[4],
                                   w, 1e6f);
                if (memcmp(a, c, sizeof a))
                    fail_msg("variant %zu, w %d, offset %d: the three-row kernel differs", i, w, shift);
                assert_int_equal(fa, fc);
                if (!kn->row_driver)
                    continue;
                int fb = 0;
                for (int j = 0; j < 3; j++)
                    fb |= kn->row_driver(kn->k, 1 + j, b[j] + shift, r[j], r[j + 1], r[j + 2], w, 1e6f);
                if (memcmp(a, b, sizeof a))
                    fail_msg("variant %zu, w %d, offset %d: the driver's kernel differs", i, w, shift);
                assert_int_equal(fa, fb);
                for (int j = 0; j < 3; j++)
                    for (int x = 0; x < LEN; x++)
                        b[j][x] = x % 9 == 4 ? -0.0f : (float)(x % 13 + j) / 13.0f - 0.4f;
                int fd = kn->rows3_driver(kn->k, 1, b[0] + shift, b[1] + shift, b[2] + shift, r[0], r[1], r[2],
                                          r[3], r[4], w, 1e6f);
                if (memcmp(a, b, sizeof a))
                    fail_msg("variant %zu, w %d, offset %d: the driver's three-row kernel differs", i, w, shift);
                assert_int_equal(fa, fd);
            }
        close_variant(i, priv, &f);
    }
}

/* tblock_step on an n x n grid against the serial step written out here
 * (field_fill_ghosts, then the portable kernel row by row), bit for bit, for
 * 4 * ways steps, which take every way of its tuner in turn: the first half
 * with the sweep count as the field starts it, the second half with it moved
 * by one, so that each way also runs in the other direction where the
 * sweeps go down and up in turn. `modes`: the ways of each kernel the tuner
 * must find (one row, prefetching, three rows), of each kernel the solver
 * offers (a careful driver's alone: tblock_careful). */
static void check_step_ways(int n, int modes)
{
    const size_t picks[2] = { 0, 8 };   /* elias, and wave with decay */
    for (size_t v = 0; v < 2; v++) {
        const size_t i = picks[v];
        struct field a, b;
        void *priv = open_variant(i, n, n, &a);
        struct tblock_kernel *kn = variant_kernel(i, priv);
        struct rr_err e = { 0 };
        assert_int_equal(field_init(&b, n, n, &e), 0);
        for (int y = -1; y <= n; y++) {
            memcpy(b.cur + y * b.stride - 1, a.cur + y * a.stride - 1, (n + 2) * sizeof(float));
            for (int x = 0; x < n; x++)
                a.prev[y * a.stride + x] = b.prev[y * b.stride + x] = (float)((x * 7 + y * 3) % 11) / 11.0f - 0.5f;
        }
        tblock_step(&a, kn, NULL);   /* the first step sets the tuner up */
        const int ways = kn->drive.step_tuner.ways;
        assert_int_equal(ways, modes * (1 + (kn->row_driver != NULL && !kn->driver_only)));
        for (int step = 0; step <= 4 * ways; step++) {
            if (step == 2 * ways)
                kn->drive.sweeps++;
            if (step > 0)
                tblock_step(&a, kn, NULL);
            field_fill_ghosts(&b, b.cur, kn->edges);
            for (int y = 0; y < n; y++)
                kn->row(kn->k, y, b.prev + y * b.stride, b.cur + (y - 1) * b.stride, b.cur + y * b.stride,
                        b.cur + (y + 1) * b.stride, n, 0.0f);
            field_swap(&b);
            for (int y = 0; y < n; y++)
                if (memcmp(a.cur + y * a.stride, b.cur + y * b.stride, n * sizeof(float)))
                    fail_msg("%d^2, variant %zu, step %d, row %d: tblock_step differs from the serial step", n, i,
                             step, y);
        }
        close_variant(i, priv, &a);
        field_free(&b);
    }
}

/* A grid too large for the caches (1030 x 1030: two planes of 8.7 MB), where
 * the ways are the kernels one row and three rows a loop; and one the L3
 * serves (301 x 301, under 0.8 MB), where prefetching is a way too and the
 * sweeps go down and up in turn. */
static void test_step_ways(void **state)
{
    (void)state;
    check_step_ways(1030, 2);
    check_step_ways(301, 3);
}

/* The tuner takes each way in turn for TBLOCK_TUNE_ROUNDS passes, keeps
 * each way's fastest pass, then stays with the way whose fastest was
 * fastest (even when one slow pass of it was the slowest of all), learning
 * nothing for TBLOCK_RETUNE_PASSES passes; then it tries them all again,
 * from scratch. One way: always way 0. */
static void test_tuner(void **state)
{
    (void)state;
    struct tblock_tuner t = { 0 };
    const double cost[3][TBLOCK_TUNE_ROUNDS] = {
        { 5, 4, 4, 5, 6, 4 }, { 9, 3.5, 8, 8, 8, 8 }, { 3.9, 3.9, 3.9, 3.9, 3.9, 3.9 },
    };
    for (int pass = 0; pass < 3 * TBLOCK_TUNE_ROUNDS; pass++) {
        int way = tblock_tuner_pick(&t, 3);
        assert_int_equal(way, pass % 3);
        tblock_tuner_learn(&t, way, cost[way][pass / 3]);
    }
    for (int pass = 0; pass < TBLOCK_RETUNE_PASSES; pass++) {
        assert_int_equal(tblock_tuner_pick(&t, 3), 1);
        tblock_tuner_learn(&t, 1, 100.0);
    }
    /* The second round of trials: way 1 is now the slowest, way 0 the fastest. */
    for (int pass = 0; pass < 3 * TBLOCK_TUNE_ROUNDS; pass++) {
        int way = tblock_tuner_pick(&t, 3);
        assert_int_equal(way, pass % 3);
        tblock_tuner_learn(&t, way, way == 0 ? 1.0 : way == 1 ? 9.0 : 5.0);
    }
    assert_int_equal(tblock_tuner_pick(&t, 3), 0);
    struct tblock_tuner one = { 0 };
    for (int pass = 0; pass < 20; pass++) {
        assert_int_equal(tblock_tuner_pick(&one, 1), 0);
        tblock_tuner_learn(&one, 0, 1.0 + pass);
    }
}

/* A tuner settled on a remembered choice (tblock_tuner_settle, as from the
 * tuner cache): no trials, that way for TBLOCK_RETUNE_PASSES passes (learning
 * returns 0 throughout), then trials from scratch that may choose another;
 * a choice out of range settles on way 0. */
static void test_tuner_settled(void **state)
{
    (void)state;
    struct tblock_tuner t = { 0 };
    tblock_tuner_settle(&t, 4, 2);
    assert_int_equal(t.ways, 4);
    for (int pass = 0; pass < TBLOCK_RETUNE_PASSES; pass++) {
        assert_int_equal(tblock_tuner_pick(&t, 4), 2);
        assert_int_equal(tblock_tuner_learn(&t, 2, 1.0), 0);
    }
    int chose = 0;
    for (int pass = 0; pass < 4 * TBLOCK_TUNE_ROUNDS; pass++) {
        int way = tblock_tuner_pick(&t, 4);
        assert_int_equal(way, pass % 4);
        chose += tblock_tuner_learn(&t, way, way == 3 ? 0.5 : 2.0);
    }
    assert_int_equal(chose, 1);
    assert_int_equal(tblock_tuner_pick(&t, 4), 3);
    struct tblock_tuner bad = { 0 };
    tblock_tuner_settle(&bad, 3, 7);
    assert_int_equal(tblock_tuner_pick(&bad, 3), 0);
    tblock_tuner_settle(&bad, 3, -1);
    assert_int_equal(tblock_tuner_pick(&bad, 3), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growth_reported_at_the_right_frame),
        cmocka_unit_test(test_screen_flags),
        cmocka_unit_test(test_kernel_screen_switch),
        cmocka_unit_test(test_kernels_match),
        cmocka_unit_test(test_kernel_screen_sums),
        cmocka_unit_test(test_step_ways),
        cmocka_unit_test(test_tuner),
        cmocka_unit_test(test_tuner_settled),
        AVX2_DRIVER_TEST(test_growth_reported_at_the_right_frame),
        AVX2_DRIVER_TEST(test_kernel_screen_switch),
        AVX2_DRIVER_TEST(test_kernels_match),
        AVX2_DRIVER_TEST(test_step_ways),
        CAREFUL_DRIVER_TEST(test_growth_reported_at_the_right_frame),
        CAREFUL_DRIVER_TEST(test_kernel_screen_switch),
        CAREFUL_DRIVER_TEST(test_kernels_match),
        CAREFUL_DRIVER_TEST(test_step_ways),
        AVX2_CAREFUL_DRIVER_TEST(test_kernels_match),
        PLAIN_DRIVER_TEST(test_kernels_match),
        PLAIN_DRIVER_TEST(test_kernel_screen_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

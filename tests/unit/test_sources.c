/* test_sources.c: drop shapes and their weights, add vs set, drops at a frame
 * and at a time, rain from a seed (same seed same rain, Poisson count), an
 * oscillator, a mover, walls skipped, and the initial plane wave. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "field.h"
#include "hand_scene.h"
#include "scene.h"
#include "solver.h"
#include "sources.h"

#define AT(f, x, y) ((f)->cur[(y) * (f)->stride + (x)])

static void base(struct scene *sc, int w, int h)
{
    hand_scene(sc, w, h, 30, 100, 2);
}

/* Applies one drop at step 0 to a w x h field whose cells all hold `fill`. */
static void drop_once(struct field *f, const struct drop *d, int w, int h, float fill)
{
    struct scene sc;
    struct rr_err e = { 0 };
    struct sources *s = NULL;
    base(&sc, w, h);
    sc.drops = (struct drop *)d;
    sc.n_drops = 1;
    assert_int_equal(field_init(f, w, h, &e), 0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            AT(f, x, y) = fill;
    assert_int_equal(sources_create(&s, &sc, &e), 0);
    sources_apply(s, 0, f);
    sources_free(s);
}

static void test_shapes(void **state)
{
    (void)state;
    struct field f;
    /* disc r = 1.5 at (3, 3): d^2 <= 2.25: the 3 x 3 block around the centre. */
    struct drop d = { .x = 3, .y = 3, .radius = 1.5, .amplitude = 2, .shape = SHAPE_DISC };
    drop_once(&f, &d, 7, 7, 0);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++)
            assert_true(AT(&f, x, y) == (abs(x - 3) <= 1 && abs(y - 3) <= 1 ? 2.0f : 0.0f));
    field_free(&f);
    /* gaussian r = 2 (sigma 1): exp(-d^2 / 2), cut at d <= 4. */
    d.shape = SHAPE_GAUSSIAN;
    d.radius = 2;
    d.amplitude = 1;
    drop_once(&f, &d, 9, 9, 0);
    assert_true(AT(&f, 3, 3) == 1.0f);
    assert_true(AT(&f, 4, 3) == (float)exp(-0.5));     /* d = 1 */
    assert_true(AT(&f, 5, 5) == (float)exp(-4.0));     /* d^2 = 8 */
    assert_true(AT(&f, 7, 3) == (float)exp(-8.0));     /* d = 4: the cut, included */
    assert_true(AT(&f, 7, 4) == 0.0f);                 /* d^2 = 17 > 16 */
    field_free(&f);
    /* cosine r = 2: (1 + cos(pi d / 2)) / 2: 1 at 0, 1/2 at d = 1, 0 at d = 2. */
    d.shape = SHAPE_COSINE;
    drop_once(&f, &d, 7, 7, 0);
    assert_true(AT(&f, 3, 3) == 1.0f);
    assert_true(fabsf(AT(&f, 3, 4) - 0.5f) < 1e-7f);
    assert_true(AT(&f, 4, 4) == (float)(0.5 * (1 + cos(M_PI * sqrt(2.0) / 2))));
    assert_true(AT(&f, 5, 3) == 0.0f);
    field_free(&f);
    /* point at (2.6, 3.4): the nearest cell (3, 3) only. */
    struct drop p = { .x = 2.6, .y = 3.4, .radius = 5, .amplitude = -1, .shape = SHAPE_POINT };
    drop_once(&f, &p, 7, 7, 0);
    float sum = 0;
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++)
            sum += AT(&f, x, y);
    assert_true(AT(&f, 3, 3) == -1.0f && sum == -1.0f);
    field_free(&f);
    /* disc r = 0.2: at least the nearest cell. Clipped at the edge: a disc at
     * (0, 0) r = 1 stamps (0,0), (1,0), (0,1) only, no out-of-grid writes. */
    struct drop t = { .x = 4.1, .y = 1.9, .radius = 0.2, .amplitude = 1, .shape = SHAPE_DISC };
    drop_once(&f, &t, 7, 7, 0);
    assert_true(AT(&f, 4, 2) == 1.0f);
    field_free(&f);
    struct drop c = { .x = 0, .y = 0, .radius = 1, .amplitude = 1, .shape = SHAPE_DISC };
    drop_once(&f, &c, 3, 3, 0);
    assert_true(AT(&f, 0, 0) == 1 && AT(&f, 1, 0) == 1 && AT(&f, 0, 1) == 1 && AT(&f, 1, 1) == 0);
    assert_true(f.cur[-1] == 0 && f.cur[-f.stride] == 0);
    field_free(&f);
}

static void test_set_vs_add(void **state)
{
    (void)state;
    struct field f;
    struct drop d = { .x = 2, .y = 2, .radius = 1, .amplitude = -1, .shape = SHAPE_DISC, .mode = DROP_SET };
    drop_once(&f, &d, 5, 5, 0.5f);
    /* set, weight 1: the height becomes the amplitude (seed 003's init). */
    assert_true(AT(&f, 2, 2) == -1.0f && AT(&f, 2, 1) == -1.0f && AT(&f, 1, 1) == 0.5f);
    field_free(&f);
    d.mode = DROP_ADD;
    drop_once(&f, &d, 5, 5, 0.5f);
    assert_true(AT(&f, 2, 2) == -0.5f && AT(&f, 1, 1) == 0.5f);
    field_free(&f);
    /* set with a cosine r = 2: h (1 - w) + a w; at d = 1, w = 1/2: 0.5/2 - 1/2 = -0.25. */
    d.mode = DROP_SET;
    d.shape = SHAPE_COSINE;
    d.radius = 2;
    drop_once(&f, &d, 5, 5, 0.5f);
    assert_true(fabsf(AT(&f, 3, 2) + 0.25f) < 1e-7f);
    field_free(&f);
}

static void test_drop_timing(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    struct sources *s = NULL;
    struct field f;
    /* fps 30, 2 steps per frame: frame 3 is step 6; time 0.1 s is step 6 too;
     * time 0.05 s is step 3. Listed out of order: the plan sorts them, stably. */
    struct drop d[3] = {
        { .at = { .is_frame = true, .frame = 3 }, .x = 1, .y = 1, .amplitude = 1, .shape = SHAPE_POINT },
        { .at = { .time = 0.1 }, .x = 2, .y = 1, .amplitude = 2, .shape = SHAPE_POINT },
        { .at = { .time = 0.05 }, .x = 3, .y = 1, .amplitude = 3, .shape = SHAPE_POINT },
    };
    base(&sc, 5, 3);
    sc.drops = d;
    sc.n_drops = 3;
    assert_int_equal(field_init(&f, 5, 3, &e), 0);
    assert_int_equal(sources_create(&s, &sc, &e), 0);
    int n;
    const struct planned_drop *p = sources_drops(s, &n);
    assert_int_equal(n, 3);
    assert_true(p[0].step == 3 && p[0].amplitude == 3);
    assert_true(p[1].step == 6 && p[1].amplitude == 1);
    assert_true(p[2].step == 6 && p[2].amplitude == 2);
    for (long long k = 0; k <= 5; k++)
        sources_apply(s, k, &f);
    assert_true(AT(&f, 3, 1) == 3 && AT(&f, 1, 1) == 0 && AT(&f, 2, 1) == 0);
    sources_apply(s, 6, &f);
    assert_true(AT(&f, 1, 1) == 1 && AT(&f, 2, 1) == 2 && AT(&f, 3, 1) == 3);
    sources_free(s);
    field_free(&f);
}

static struct sources *rain(unsigned long long seed, double rate, double end, struct scene *sc)
{
    struct rr_err e = { 0 };
    struct sources *s = NULL;
    base(sc, 64, 48);
    sc->rain = (struct rain){ .enabled = true, .rate = rate, .start = { .time = 0 }, .end = { .time = end },
                              .radius = { 1, 3 }, .amplitude = { -1, -0.5 }, .seed = seed, .shape = SHAPE_COSINE };
    assert_int_equal(sources_create(&s, sc, &e), 0);
    return s;
}

static void test_rain(void **state)
{
    (void)state;
    struct scene sc;
    struct sources *a = rain(7, 5, 20, &sc), *b = rain(7, 5, 20, &sc), *c = rain(8, 5, 20, &sc);
    int na, nb, nc;
    const struct planned_drop *pa = sources_drops(a, &na), *pb = sources_drops(b, &nb), *pc = sources_drops(c, &nc);
    assert_int_equal(na, nb);
    assert_memory_equal(pa, pb, (size_t)na * sizeof *pa);   /* same seed, same rain */
    assert_true(na != nc || memcmp(pa, pc, (size_t)na * sizeof *pa) != 0);
    for (int k = 0; k < na; k++) {
        assert_true(pa[k].x >= 0 && pa[k].x < 64 && pa[k].y >= 0 && pa[k].y < 48);
        assert_true(pa[k].radius >= 1 && pa[k].radius < 3);
        assert_true(pa[k].amplitude >= -1 && pa[k].amplitude < -0.5);
        assert_true(pa[k].step >= 0 && pa[k].step <= 1200);   /* 20 s at 60 steps/s */
        assert_true(k == 0 || pa[k].step >= pa[k - 1].step);
        assert_int_equal(pa[k].shape, SHAPE_COSINE);
    }
    sources_free(a);
    sources_free(b);
    sources_free(c);
    /* Poisson count: rate 50/s for 100 s: mean 5000, standard deviation
     * sqrt(5000) = 70.7; accept 5 deviations (+- 354). */
    struct sources *p = rain(1, 50, 100, &sc);
    int n;
    sources_drops(p, &n);
    print_message("rain: %d drops, expected 5000 +- 71\n", n);
    assert_true(n > 5000 - 354 && n < 5000 + 354);
    sources_free(p);
}

static void test_oscillator_mover_walls(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    struct sources *s = NULL;
    struct field f;
    base(&sc, 20, 10);
    sc.time.fps = 10;
    sc.time.steps_per_frame = 1;   /* dt = 0.1 s */
    struct oscillator o = { .x = 2, .y = 2, .radius = 0, .amplitude = 0.5, .frequency = 1, .phase = 0,
                            .start = { .time = 0 }, .end = { .time = 1 }, .shape = SHAPE_POINT };
    struct path_point path[2] = { { 0, 2, 6 }, { 1, 12, 6 } };
    struct mover m = { .path = path, .n_path = 2, .radius = 0, .amplitude = 1, .shape = SHAPE_POINT };
    sc.oscillators = &o;
    sc.n_oscillators = 1;
    sc.movers = &m;
    sc.n_movers = 1;
    assert_int_equal(field_init(&f, 20, 10, &e), 0);
    assert_int_equal(sources_create(&s, &sc, &e), 0);
    unsigned char walls[200] = { 0 };
    walls[6 * 20 + 9] = 1;   /* the mover's cell at step 7 */
    sources_set_walls(s, walls);
    /* step 5: t = 0.5 s; the oscillator is a hard source 0.5 sin(pi) = 0 (up to
     * rounding); the mover is at x = 2 + 10 * 0.5 = 7. */
    AT(&f, 2, 2) = 9;
    sources_apply(s, 5, &f);
    assert_true(fabsf(AT(&f, 2, 2)) < 1e-7f);
    assert_true(AT(&f, 7, 6) == 1.0f);
    /* step 2: t = 0.2: 0.5 sin(0.4 pi). */
    sources_apply(s, 2, &f);
    assert_true(AT(&f, 2, 2) == (float)(0.5 * sin(2 * M_PI * 0.2)));
    assert_true(AT(&f, 4, 6) == 1.0f);
    sources_apply(s, 7, &f);
    assert_true(AT(&f, 9, 6) == 0.0f);   /* a wall: skipped */
    /* step 10: t = 1 = end: the oscillator is off; the mover at its last point. */
    AT(&f, 2, 2) = 3;
    sources_apply(s, 10, &f);
    assert_true(AT(&f, 2, 2) == 3.0f && AT(&f, 12, 6) == 1.0f);
    sources_apply(s, 11, &f);
    assert_true(AT(&f, 12, 6) == 1.0f);   /* past the path's end: no more */
    sources_free(s);
    field_free(&f);
}

/* sources_next_due: the first step at or after the one asked at which
 * something is due (what sim.c fuses steps up to), LLONG_MAX after the last. */
static void test_next_due(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    struct sources *s = NULL;
    struct field f;
    base(&sc, 20, 10);
    sc.time.fps = 10;
    sc.time.steps_per_frame = 1;   /* dt = 0.1 s */
    struct drop d[2] = {
        { .at = { .is_frame = true, .frame = 3 }, .x = 1, .y = 1, .amplitude = 1, .shape = SHAPE_POINT },
        { .at = { .is_frame = true, .frame = 12 }, .x = 2, .y = 1, .amplitude = 1, .shape = SHAPE_POINT },
    };
    /* Active for steps 5 to 9 (t = 0.5 s up to, not including, 1 s). */
    struct oscillator o = { .x = 2, .y = 2, .radius = 0, .amplitude = 0.5, .frequency = 1,
                            .start = { .time = 0.5 }, .end = { .time = 1 }, .shape = SHAPE_POINT };
    /* Active for steps 20 to 30 (its path's first and last times). */
    struct path_point path[2] = { { 2, 2, 6 }, { 3, 12, 6 } };
    struct mover m = { .path = path, .n_path = 2, .radius = 0, .amplitude = 1, .shape = SHAPE_POINT };
    sc.drops = d;
    sc.n_drops = 2;
    sc.oscillators = &o;
    sc.n_oscillators = 1;
    sc.movers = &m;
    sc.n_movers = 1;
    assert_int_equal(field_init(&f, 20, 10, &e), 0);
    assert_int_equal(sources_create(&s, &sc, &e), 0);
    sources_apply(s, 0, &f);
    assert_int_equal(sources_next_due(s, 1), 3);     /* the first drop */
    sources_apply(s, 3, &f);
    assert_int_equal(sources_next_due(s, 4), 5);     /* the oscillator starts */
    assert_int_equal(sources_next_due(s, 7), 7);     /* ... and is due at every step */
    assert_int_equal(sources_next_due(s, 10), 12);   /* it ended; the second drop */
    sources_apply(s, 12, &f);
    assert_int_equal(sources_next_due(s, 13), 20);   /* the mover */
    assert_int_equal(sources_next_due(s, 30), 30);
    assert_true(sources_next_due(s, 31) == LLONG_MAX);
    sources_free(s);
    field_free(&f);
}

static void test_initial_wave(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    struct field f;
    base(&sc, 16, 4);
    sc.solver.type = solver_find("elias");
    sc.solver.neighbors = 4;
    struct initial in = { .type = INITIAL_WAVE, .wavelength = 8, .angle = 0, .amplitude = 2 };
    sc.initial = &in;
    sc.n_initial = 1;
    assert_int_equal(field_init(&f, 16, 4, &e), 0);
    assert_int_equal(sources_initial(&sc, &f, INITIAL_ALL, &e), 0);
    /* 2 cos(2 pi x / 8) now; one step earlier the phase was ahead by w with
     * cos w = (cos(pi/4) + 1) / 2 (elias, 4 neighbours). */
    double w = acos((cos(M_PI / 4) + 1) / 2);
    for (int x = 0; x < 16; x++) {
        assert_true(fabsf(AT(&f, x, 1) - (float)(2 * cos(M_PI * x / 4))) < 1e-6f);
        assert_true(fabsf(f.prev[f.stride + x] - (float)(2 * cos(M_PI * x / 4 + w))) < 1e-6f);
    }
    field_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_set_vs_add),
        cmocka_unit_test(test_drop_timing),
        cmocka_unit_test(test_rain),
        cmocka_unit_test(test_oscillator_mover_walls),
        cmocka_unit_test(test_next_due),
        cmocka_unit_test(test_initial_wave),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_loop.c: time.preroll and time.loop (docs/render.md, "Seamless loops").
 *
 * The plan: with a preroll, sources running from time 0 start at -preroll
 * and drops stay where they are; in a damped loop every source repeats with
 * the period T = frames / fps (drops and rain copied back into the preroll,
 * oscillator frequencies snapped to whole cycles per period, windows and
 * paths taken modulo the period). The seam: frame N (one frame past the
 * clip) against frame 0, as RMS of the height difference, is no larger than
 * the median RMS difference of consecutive frames (the criterion),
 * and in fact far smaller, for spectral undamped (exact up to float
 * rounding) and damped, and for the finite-difference solvers after a
 * preroll whose residue exp(-rate preroll) is below 1/256; a preroll that
 * is too short leaves a seam. The refusals of loops that cannot settle. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "field.h"
#include "hand_scene.h"
#include "scene.h"
#include "sim.h"
#include "solver.h"
#include "sources.h"

#define AT(f, x, y) ((f)->cur[(y) * (f)->stride + (x)])

static char scene_path[64];

static int setup(void **state)
{
    (void)state;
    strcpy(scene_path, "/tmp/rr-test-loop-XXXXXX");
    int fd = mkstemp(scene_path);
    if (fd < 0)
        return -1;
    if (write(fd, "{}", 2) != 2) {
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(scene_path);
    return 0;
}

/* A scene of "{}" with the --set overrides (NULL-terminated). */
static void load_sets(struct scene *sc, const char *const *sets)
{
    struct rr_err e = { 0 };
    int n = 0;
    while (sets[n])
        n++;
    if (scene_load(sc, scene_path, sets, n, &e) < 0)
        fail_msg("scene_load: %s", e.msg);
}

/* A hand-made scene for the planning tests: fps 10, 1 step per frame
 * (dt = 0.1 s), 20 frames (T = 2 s, 20 steps a period), elias damping 0.99. */
static void base(struct scene *sc, double preroll, bool loop)
{
    hand_scene(sc, 20, 10, 10, 20, 1);
    sc->time.preroll = preroll;
    sc->time.loop = loop;
    sc->solver.type = solver_find("elias");
    sc->solver.damping = 0.99;
}

/* Without a loop: drops stay at their steps; a rain and an oscillator from
 * time 0 start at -preroll (steps -5 ..); one from 0.5 s stays at step 5. */
static void test_preroll_plan(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    struct sources *s = NULL;
    base(&sc, 0.5, false);   /* 5 steps of preroll */
    struct drop d = { .at = { .time = 0 }, .x = 1, .y = 1, .amplitude = 1, .shape = SHAPE_POINT };
    struct oscillator o[2] = {
        { .x = 2, .y = 2, .amplitude = 0.5, .frequency = 1, .start = { .time = 0 }, .end = { .time = 2 },
          .shape = SHAPE_POINT },
        { .x = 4, .y = 2, .amplitude = 0.5, .frequency = 1, .start = { .time = 0.5 }, .end = { .time = 2 },
          .shape = SHAPE_POINT },
    };
    sc.drops = &d;
    sc.n_drops = 1;
    sc.oscillators = o;
    sc.n_oscillators = 2;
    sc.rain = (struct rain){ .enabled = true, .rate = 20, .start = { .time = 0 }, .end = { .time = 2 },
                             .radius = { 0, 0 }, .amplitude = { 1, 1 }, .seed = 5, .shape = SHAPE_POINT };
    assert_int_equal(scene_preroll_steps(&sc), 5);
    assert_int_equal(sources_create(&s, &sc, &e), 0);
    int n, before = 0, drop_at_0 = 0;
    const struct planned_drop *p = sources_drops(s, &n);
    for (int k = 0; k < n; k++) {
        assert_true(p[k].step >= -5 && p[k].step < 20);
        before += p[k].step < 0;
        drop_at_0 += p[k].step == 0 && p[k].x == 1 && p[k].y == 1;
    }
    assert_true(before > 0);   /* 20 drops a second for 0.5 s: about 10 fell before frame 0 */
    assert_int_equal(drop_at_0, 1);
    assert_int_equal(sources_next_due(s, -5), -5);   /* the first oscillator runs from the start */
    /* At step -3 (t = -0.3 s) the first oscillator is a hard source
     * 0.5 sin(2 pi (-0.3)); the second has not started. */
    struct field f;
    assert_int_equal(field_init(&f, 20, 10, &e), 0);
    AT(&f, 4, 2) = 7;
    sources_apply(s, -3, &f);
    assert_true(AT(&f, 2, 2) == (float)(0.5 * sin(2 * M_PI * 1 * -0.3)));
    assert_true(AT(&f, 4, 2) == 7.0f);
    sources_free(s);
    field_free(&f);
}

/* A damped loop repeats every source with the period (20 steps). */
static void test_loop_plan(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    struct sources *s = NULL;
    base(&sc, 4.5, true);   /* 45 steps of preroll */
    /* Step 3, and step 25 taken modulo the period: 5. */
    struct drop d[2] = {
        { .at = { .time = 0.3 }, .x = 1, .y = 1, .amplitude = 1, .shape = SHAPE_POINT },
        { .at = { .time = 2.5 }, .x = 3, .y = 1, .amplitude = 2, .shape = SHAPE_POINT },
    };
    /* 1.3 Hz is 2.6 cycles in 2 s: snapped to 3 cycles, 1.5 Hz; active from
     * step 5 up to 10 in every period. */
    struct oscillator o = { .x = 2, .y = 4, .amplitude = 0.5, .frequency = 1.3, .start = { .time = 0.5 },
                            .end = { .time = 1 }, .shape = SHAPE_POINT };
    /* From (2, 6) at 0.5 s to (12, 6) at 1.5 s, steps 5 .. 15 of each period. */
    struct path_point path[2] = { { 0.5, 2, 6 }, { 1.5, 12, 6 } };
    struct mover m = { .path = path, .n_path = 2, .amplitude = 1, .shape = SHAPE_POINT };
    sc.drops = d;
    sc.n_drops = 2;
    sc.oscillators = &o;
    sc.n_oscillators = 1;
    sc.movers = &m;
    sc.n_movers = 1;
    assert_int_equal(sources_create(&s, &sc, &e), 0);
    int n;
    const struct planned_drop *p = sources_drops(s, &n);
    const long long want[6] = { -37, -35, -17, -15, 3, 5 };
    assert_int_equal(n, 6);
    for (int k = 0; k < 6; k++) {
        assert_true(p[k].step == want[k]);
        assert_true(p[k].amplitude == (k % 2 ? 2 : 1));
    }
    /* What is due next: drops (the cursor set as if they fell), the
     * oscillator's window in each period (steps 5 .. 9 modulo 20), the mover's. */
    assert_int_equal(sources_next_due(s, -44), -37);
    assert_int_equal(sources_set_applied(s, 2), 0);
    assert_int_equal(sources_next_due(s, -34), -34);   /* the mover, active at steps -35 .. -25 */
    assert_int_equal(sources_next_due(s, -24), -17);   /* the third drop */
    assert_int_equal(sources_set_applied(s, 6), 0);
    assert_int_equal(sources_next_due(s, -14), -14);   /* in the oscillator's window */
    assert_int_equal(sources_next_due(s, 16), 25);     /* the oscillator and the mover start again */
    struct field f;
    assert_int_equal(field_init(&f, 20, 10, &e), 0);
    sources_apply(s, 7, &f);
    float at7 = AT(&f, 2, 4);
    assert_true(fabs((double)at7 - 0.5 * sin(2 * M_PI * 1.5 * 0.7)) < 1e-7);
    sources_apply(s, 27, &f);
    assert_true(fabsf(AT(&f, 2, 4) - at7) < 1e-6f);
    sources_apply(s, -13, &f);
    assert_true(fabsf(AT(&f, 2, 4) - at7) < 1e-6f);
    /* The mover at step 30 is where it is at step 10 (t = 1 s): x = 7; at
     * step 38 (18 of the period) it rests. */
    memset(f.cur, 0, sizeof(float) * (size_t)f.stride * 10);
    sources_apply(s, 30, &f);
    assert_true(AT(&f, 7, 6) == 1.0f);
    memset(f.cur, 0, sizeof(float) * (size_t)f.stride * 10);
    sources_apply(s, 38, &f);
    assert_true(AT(&f, 7, 6) == 0.0f && AT(&f, 12, 6) == 0.0f && AT(&f, 2, 6) == 0.0f);
    sources_free(s);
    field_free(&f);
    /* A path across the loop's end, from (2, 6) at 1.5 s to (12, 6) at 2.5 s:
     * at step 5 (0.5 s of the next period) it is 1 s along, at x = 12; at
     * step 35 (1.5 s) back at x = 2. */
    struct path_point across[2] = { { 1.5, 2, 6 }, { 2.5, 12, 6 } };
    m.path = across;
    sc.n_drops = sc.n_oscillators = 0;
    assert_int_equal(sources_create(&s, &sc, &e), 0);
    assert_int_equal(field_init(&f, 20, 10, &e), 0);
    sources_apply(s, 5, &f);
    assert_true(AT(&f, 12, 6) == 1.0f);
    sources_apply(s, 35, &f);
    assert_true(AT(&f, 2, 6) == 1.0f);
    sources_apply(s, 12, &f);   /* 1.2 s: between the window's end (step 5) and its start (15) */
    assert_true(AT(&f, 12, 6) == 1.0f && AT(&f, 2, 6) == 1.0f);
    float sum = 0;
    for (int x = 0; x < 20; x++)
        sum += AT(&f, x, 6);
    assert_true(sum == 2.0f);
    sources_free(s);
    field_free(&f);
}

/* A loop's rain is drawn for one period and falls again at every earlier
 * period down to -preroll (-45): each drop at step s of [0, 20) has its
 * copies 20, 40 (and, for s >= 15, 60) steps before, the same in
 * everything but the step. */
static void test_loop_rain(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    struct sources *s = NULL;
    base(&sc, 4.5, true);
    sc.rain = (struct rain){ .enabled = true, .rate = 10, .start = { .time = 0 }, .end = { .time = 2 },
                             .radius = { 1, 3 }, .amplitude = { -1, -0.5 }, .seed = 9, .shape = SHAPE_COSINE };
    assert_int_equal(sources_create(&s, &sc, &e), 0);
    int n, base_n = 0, copies = 0;
    const struct planned_drop *p = sources_drops(s, &n);
    for (int k = 0; k < n; k++) {
        if (p[k].step < 0)
            continue;
        assert_true(p[k].step < 20);
        base_n++;
        int backs = p[k].step >= 15 ? 3 : 2;
        copies += backs;
        for (int back = 1; back <= backs; back++) {
            int found = 0;
            for (int j = 0; j < n; j++)
                found += p[j].step == p[k].step - 20 * back && p[j].x == p[k].x && p[j].y == p[k].y
                         && p[j].radius == p[k].radius && p[j].amplitude == p[k].amplitude;
            assert_int_equal(found, 1);
        }
    }
    assert_true(base_n > 5);   /* rate 10/s for 2 s */
    assert_int_equal(n, base_n + copies);
    sources_free(s);
}

/* RMS of the difference of two planes. */
static double rms_diff(const float *a, const float *b, int w, int h, ptrdiff_t stride)
{
    double s = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double d = (double)a[y * stride + x] - (double)b[y * stride + x];
            s += d * d;
        }
    return sqrt(s / ((double)w * h));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs the scene of `sets` to frame N = time.frames (one past the clip) and
 * returns the seam, RMS(h_N - h_0), over the median RMS difference of
 * consecutive frames 0 .. N - 1. */
static double seam_ratio(const char *const *sets)
{
    struct scene sc;
    struct rr_err e = { 0 };
    struct sim *s = NULL;
    load_sets(&sc, sets);
    if (sim_create(&s, &sc, &e) < 0)
        fail_msg("sim_create: %s", e.msg);
    const struct field *f = sim_field(s);
    const int w = f->w, h = f->h, N = sc.time.frames;
    const size_t plane = (size_t)f->stride * h;
    float *first = malloc(plane * sizeof *first), *last = malloc(plane * sizeof *last);
    double *steps = malloc((size_t)N * sizeof *steps);
    assert_non_null(first);
    assert_non_null(last);
    assert_non_null(steps);
    memcpy(first, f->cur, plane * sizeof *first);
    memcpy(last, f->cur, plane * sizeof *last);
    for (int i = 1; i <= N; i++) {
        assert_int_equal(sim_advance_frame(s, &e), 0);
        if (i < N)
            steps[i - 1] = rms_diff(f->cur, last, w, h, f->stride);
        memcpy(last, f->cur, plane * sizeof *last);
    }
    double seam = rms_diff(f->cur, first, w, h, f->stride);
    qsort(steps, (size_t)N - 1, sizeof *steps, cmp_double);
    double median = steps[(N - 1) / 2];
    print_message("%s %s: seam %.3g, median step %.3g, ratio %.3g\n", sc.solver.type->name, sets[0], seam, median,
                  seam / median);
    assert_true(median > 0);
    free(first);
    free(last);
    free(steps);
    sim_free(s);
    scene_free(&sc);
    return seam / median;
}

/* spectral, undamped, on a periodic domain: every mode turns a whole number
 * of times per loop, so frame N is frame 0 up to float rounding. */
static void test_seam_spectral_exact(void **state)
{
    (void)state;
    const char *sets[] = { "time.loop=true", "grid.width=64", "grid.height=64", "grid.cell_size=0.0005",
                           "time.fps=30", "time.frames=24", "time.steps_per_frame=4", "solver.type=spectral",
                           "solver.viscosity=0", "boundary=wrap",
                           "drops=[{\"x\":20,\"y\":24,\"radius\":5,\"amplitude\":-1,\"shape\":\"cosine\"},"
                           "{\"x\":44,\"y\":40,\"radius\":4,\"amplitude\":-0.7,\"shape\":\"cosine\"}]",
                           NULL };
    assert_true(seam_ratio(sets) < 1e-3);
    /* The same water not looped: frame N is far from frame 0. */
    const char *off[] = { "time.loop=false", "grid.width=64", "grid.height=64", "grid.cell_size=0.0005",
                          "time.fps=30", "time.frames=24", "time.steps_per_frame=4", "solver.type=spectral",
                          "solver.viscosity=0", "boundary=wrap",
                          "drops=[{\"x\":20,\"y\":24,\"radius\":5,\"amplitude\":-1,\"shape\":\"cosine\"},"
                          "{\"x\":44,\"y\":40,\"radius\":4,\"amplitude\":-0.7,\"shape\":\"cosine\"}]",
                          NULL };
    assert_true(seam_ratio(off) > 0.3);
}

#define FORCING "rain={\"rate\":12,\"radius\":[1,2],\"amplitude\":[-1,-0.4],\"seed\":4}", \
                "oscillators=[{\"x\":14,\"y\":30,\"frequency\":2.2,\"amplitude\":0.3,\"radius\":1.5}]"

/* A damped solver with rain and an oscillator settles into the loop after a
 * long enough preroll (residue below 1/256); a short one leaves a seam. */
static void test_seam_damped(void **state)
{
    (void)state;
    /* elias d = 0.99 at 60 steps/s: rate -ln(0.99) 30 = 0.3015/s, 1/256 after 18.4 s. */
    const char *elias[] = { "time.preroll=20", "time.loop=true", "grid.width=48", "grid.height=48",
                            "time.fps=30", "time.frames=30", FORCING, NULL };
    assert_true(seam_ratio(elias) < 0.05);
    const char *short_elias[] = { "time.preroll=1", "time.loop=true", "grid.width=48", "grid.height=48",
                                  "time.fps=30", "time.frames=30", FORCING, NULL };
    assert_true(seam_ratio(short_elias) > 0.1);
    /* wave, decay 2/s: 1/256 after 2.77 s. */
    const char *wave[] = { "time.preroll=3", "time.loop=true", "grid.width=48", "grid.height=48",
                           "grid.cell_size=0.01", "time.fps=30", "time.frames=30", "solver.type=wave",
                           "solver.speed=0.5", "solver.decay=2", "boundary=absorb", FORCING, NULL };
    assert_true(seam_ratio(wave) < 0.05);
    /* flow and spring on the seed damping. */
    const char *flow[] = { "time.preroll=20", "time.loop=true", "grid.width=48", "grid.height=48",
                           "time.fps=30", "time.frames=30", "solver.type=flow", FORCING, NULL };
    assert_true(seam_ratio(flow) < 0.05);
    const char *spring[] = { "time.preroll=20", "time.loop=true", "grid.width=48", "grid.height=48",
                             "time.fps=30", "time.frames=30", "solver.type=spring", FORCING, NULL };
    assert_true(seam_ratio(spring) < 0.05);
    /* spectral with a half-life of 0.25 s: ln 2 / 0.25 = 2.77/s, 1/256 after 2 s. */
    const char *spectral[] = { "time.preroll=2.5", "time.loop=true", "grid.width=48", "grid.height=48",
                               "grid.cell_size=0.0005", "time.fps=30", "time.frames=30",
                               "time.steps_per_frame=4", "solver.type=spectral", "solver.half_life=0.25",
                               "boundary=wrap", FORCING, NULL };
    assert_true(seam_ratio(spectral) < 0.05);
}

/* The warm-up's residue exp(-rate preroll), rates by hand. */
static void test_residue(void **state)
{
    (void)state;
    struct scene sc;
    double rate;
    /* elias: sqrt(0.99) per step at 60 steps/s: rate = -ln(0.99) * 30. */
    const char *elias[] = { "time.preroll=20", "time.loop=true", NULL };
    load_sets(&sc, elias);
    double left = sim_loop_residue(&sc, &rate);
    assert_true(fabs(rate - 0.30151007) < 1e-7);
    assert_true(fabs(left - exp(-0.30151007 * 20)) < 1e-8 && left < 1.0 / 256);
    scene_free(&sc);
    /* spectral: ln 2 / half_life + 2 nu kmin^2 with kmin = 2 pi / (64 cells of 0.5 mm). */
    const char *spectral[] = { "solver.type=spectral", "grid.width=64", "grid.height=32", "grid.cell_size=0.0005",
                               "boundary=wrap", "solver.half_life=0.5", "time.preroll=3", NULL };
    load_sets(&sc, spectral);
    double kmin = 2 * M_PI / 0.032;   /* the longer side: a wrap axis keeps the grid's length */
    left = sim_loop_residue(&sc, &rate);
    assert_true(fabs(rate - (log(2) / 0.5 + 2e-6 * kmin * kmin)) < 1e-9);
    assert_true(fabs(left - exp(-rate * 3)) < 1e-12);
    scene_free(&sc);
    /* wave: decay plus nothing. */
    const char *wave[] = { "solver.type=wave", "solver.decay=2", "time.preroll=1", NULL };
    load_sets(&sc, wave);
    left = sim_loop_residue(&sc, &rate);
    assert_true(rate == 2 && fabs(left - exp(-2.0)) < 1e-12);
    scene_free(&sc);
}

/* sim_create refuses a loop that cannot settle, with exactly this line. */
static void expect_refusal(const char *const *sets, const char *want)
{
    struct scene sc;
    struct rr_err e = { 0 };
    struct sim *s = NULL;
    load_sets(&sc, sets);
    assert_int_equal(sim_create(&s, &sc, &e), -1);
    assert_null(s);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, want);
    scene_free(&sc);
}

static void test_refusals(void **state)
{
    (void)state;
    const char *elias[] = { "time.loop=true", "solver.damping=1", NULL };
    expect_refusal(elias, "time.loop: the elias solver as set does not damp the water, so the clip never settles "
                          "into a loop; damp it (solver.damping or solver.half_life)");
    const char *wave[] = { "time.loop=true", "solver.type=wave", "grid.cell_size=0.01", NULL };
    expect_refusal(wave, "time.loop: the wave solver as set does not damp the water, so the clip never settles "
                         "into a loop; damp it (solver.decay or solver.half_life)");
    const char *rain[] = { "time.loop=true", "solver.type=spectral", "solver.viscosity=0", "boundary=wrap",
                           "rain={\"rate\":1}", NULL };
    expect_refusal(rain, "time.loop: an undamped spectral loop repeats only the water's own motion, on a periodic "
                         "domain (every edge wrap, no obstacles, nothing added after frame 0), but rain falls "
                         "after frame 0; damp it (solver.half_life)");
    const char *edge[] = { "time.loop=true", "solver.type=spectral", "solver.viscosity=0",
                           "boundary={\"left\":\"wrap\",\"right\":\"wrap\",\"top\":\"clamp\",\"bottom\":\"clamp\"}",
                           NULL };
    expect_refusal(edge, "time.loop: an undamped spectral loop repeats only the water's own motion, on a periodic "
                         "domain (every edge wrap, no obstacles, nothing added after frame 0), but boundary.top "
                         "is clamp, not wrap; damp it (solver.half_life)");
    const char *late[] = { "time.loop=true", "solver.type=spectral", "solver.viscosity=0", "boundary=wrap",
                           "drops=[{},{\"frame\":3}]", NULL };
    expect_refusal(late, "time.loop: an undamped spectral loop repeats only the water's own motion, on a periodic "
                         "domain (every edge wrap, no obstacles, nothing added after frame 0), but drops.1 falls "
                         "after frame 0; damp it (solver.half_life)");
    const char *wall[] = { "time.loop=true", "solver.type=spectral", "solver.viscosity=0", "boundary=wrap",
                           "obstacles=[{\"type\":\"circle\",\"x\":30,\"y\":30,\"radius\":4}]", NULL };
    expect_refusal(wall, "time.loop: an undamped spectral loop repeats only the water's own motion, on a periodic "
                         "domain (every edge wrap, no obstacles, nothing added after frame 0), but obstacles.0 is "
                         "a wall; damp it (solver.half_life)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preroll_plan),
        cmocka_unit_test(test_loop_plan),
        cmocka_unit_test(test_loop_rain),
        cmocka_unit_test(test_residue),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_seam_spectral_exact),
        cmocka_unit_test(test_seam_damped),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

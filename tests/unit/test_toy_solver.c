/* test_toy_solver.c: a solver needs its struct solver_ops and nothing else.
 * "toy" (defined here, added with solver_register as a program bringing its
 * own solver would; a solver of the build goes into src/solvers/registry.c
 * instead) lets each height decay, h' = d h with d the per-step factor of
 * solver.damping (solver_damping_per_step), and the loader, the printer,
 * the messages, the simulation and its blow-up check all take it from its
 * table: solver.type "toy" loads, its keys and no others are accepted and
 * printed, the frames shrink by d^steps_per_frame, and a runaway names the
 * keys that damp it. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "scene.h"
#include "sim.h"
#include "solver.h"
#include "state.h"

/* The steps toy_step has made, and the stop flag it sets at step stop_at
 * (0: never), as a stop signal's handler would mid-frame. */
static long toy_steps, stop_at;
static volatile sig_atomic_t toy_stop;

struct toy {
    float d;   /* the factor per step */
};

static int toy_init(void *priv, const struct scene *sc, struct field *f, struct rr_err *e)
{
    struct toy *t = priv;
    (void)f, (void)e;
    t->d = (float)solver_damping_per_step(sc);
    return 0;
}

/* h' = d h on every cell: it reads no neighbour, so it needs no ghosts. */
static void toy_step(void *priv, struct field *f, struct solver_screen *screen)
{
    const struct toy *t = priv;
    (void)screen;   /* no screen: sim.c checks the grid */
    if (++toy_steps == stop_at)
        toy_stop = 1;
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++)
            f->prev[y * f->stride + x] = t->d * f->cur[y * f->stride + x];
    field_swap(f);
}

static void toy_free(void *priv) { (void)priv; }

static const char *const toy_keys[] = { "damping", "damping_shift", NULL };

static const struct solver_ops solver_toy = {
    .name = "toy",
    .priv_size = sizeof(struct toy),
    .keys = toy_keys,
    .damp_advice = "solver.damping or solver.half_life",
    .init = toy_init,
    .step = toy_step,
    .free = toy_free,
};

static char scene_path[64];

static int setup(void **state)
{
    (void)state;
    strcpy(scene_path, "/tmp/rr_test_toy_XXXXXX");
    int fd = mkstemp(scene_path);
    if (fd < 0)
        return -1;
    close(fd);
    return solver_register(&solver_toy);
}

static int teardown(void **state)
{
    (void)state;
    return unlink(scene_path);
}

static int load(const char *text, struct scene *sc, struct rr_err *e)
{
    FILE *f = fopen(scene_path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    memset(e, 0, sizeof *e);
    return scene_load(sc, scene_path, NULL, 0, e);
}

#define TOY_SCENE                                                                                  \
    "{\"grid\": {\"width\": 9, \"height\": 7}, \"time\": {\"frames\": 4},"                          \
    " \"solver\": {\"type\": \"toy\", \"damping\": 0.5},"                                           \
    " \"drops\": [{\"time\": 0, \"x\": 4, \"y\": 3, \"radius\": 2, \"amplitude\": -1}]}"

static void load_toy(struct scene *sc)
{
    struct rr_err e;
    if (load(TOY_SCENE, sc, &e) < 0)
        fail_msg("%s", e.msg);
}

static void test_registered(void **state)
{
    (void)state;
    assert_ptr_equal(solver_find("toy"), &solver_toy);
    assert_int_equal(solver_register(&solver_toy), -1);   /* its name is taken now */
    const char *names[SOLVER_MAX + 1];
    solver_names(names);
    int n = 0;
    while (names[n])
        n++;
    assert_true(n >= 2);
    assert_string_equal(names[n - 1], "toy");   /* after the table's */
}

/* The frames shrink by d^2 each (2 steps a frame, the default of a solver
 * without a step limit); d = 1/2 keeps every product exact. */
static void test_frames(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    load_toy(&sc);
    assert_ptr_equal(sc.solver.type, &solver_toy);
    assert_int_equal(sc.time.steps_per_frame, 2);
    struct sim *s;
    if (sim_create(&s, &sc, &e) < 0)
        fail_msg("%s", e.msg);
    const struct field *f = sim_field(s);
    const int w = f->w, h = f->h;
    float *first = malloc((size_t)w * (size_t)h * sizeof *first);
    assert_non_null(first);
    for (int y = 0; y < h; y++)
        memcpy(first + y * w, f->cur + y * f->stride, (size_t)w * sizeof *first);
    assert_true(first[3 * w + 4] < 0);   /* the drop */
    for (int frame = 1; frame < 4; frame++) {
        assert_int_equal(sim_advance_frame(s, &e), 0);
        assert_int_equal(sim_frame(s), frame);
        f = sim_field(s);
        float scale = 1.0f / (float)(1 << (2 * frame));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (f->cur[y * f->stride + x] != first[y * w + x] * scale)
                    fail_msg("frame %d, cell %d,%d: %g, expected %g", frame, x, y, (double)f->cur[y * f->stride + x],
                             (double)(first[y * w + x] * scale));
    }
    free(first);
    sim_free(s);
    scene_free(&sc);
}

/* The loader takes the solver's keys from its table: the others are refused
 * naming toy's, and --print-scene writes toy's alone. */
static void test_keys(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    load_toy(&sc);
    char *text = scene_text(&sc);
    assert_non_null(text);
    const char *solver = strstr(text, "\"solver\"");
    assert_non_null(solver);
    const char *end = strchr(solver, '}');
    assert_non_null(end);
    char obj[128];
    snprintf(obj, sizeof obj, "%.*s", (int)(end - solver + 1), solver);
    assert_non_null(strstr(obj, "\"type\":\t\"toy\""));
    assert_non_null(strstr(obj, "\"damping\":\t0.5"));
    assert_null(strstr(obj, "neighbors"));
    free(text);
    scene_free(&sc);

    assert_int_equal(load("{\"solver\": {\"type\": \"toy\", \"neighbors\": 8}}", &sc, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    if (!strstr(e.msg, "solver.neighbors: not used by the toy solver (a key of elias); toy takes solver.half_life, "
                       "solver.damping, solver.damping_shift, got 8"))
        fail_msg("%s", e.msg);
    scene_free(&sc);
    /* An unknown type lists the toy with the table's. */
    assert_int_equal(load("{\"solver\": {\"type\": \"tooy\"}}", &sc, &e), -1);
    if (!strstr(e.msg, "\"spectral\", \"toy\", got \"tooy\"; did you mean \"toy\"?"))
        fail_msg("%s", e.msg);
    scene_free(&sc);
}

/* A runaway names the keys that damp the toy (its damp_advice). The scene
 * is plain data: a factor above 1, which the loader refuses, makes one. */
static void test_blowup_advice(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    load_toy(&sc);
    sc.solver.damping = 1000;
    struct sim *s;
    if (sim_create(&s, &sc, &e) < 0)
        fail_msg("%s", e.msg);
    int rc = 0;
    for (int frame = 1; frame < 4 && rc == 0; frame++)
        rc = sim_advance_frame(s, &e);
    assert_int_equal(rc, -1);
    if (!strstr(e.msg, "frame 2: the simulation blew up (height")
        || !strstr(e.msg, "); lower the sources' amplitudes or damp more (solver.damping or solver.half_life)"))
        fail_msg("%s", e.msg);
    sim_free(s);
    scene_free(&sc);
}

/* The fast-forward before a range's first frame sees a stop at the end of
 * the frame it came in, as a batch does: set during frame 3's steps (the
 * toy fuses nothing, so every frame ends a pass), the simulation stops at
 * frame 3 of the 999 to skip, ready for the frame loop to stop too. */
static void test_fast_forward_stops(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    load_toy(&sc);
    sc.time.frames = 1000;
    struct state *st;
    if (state_open(&st, &(struct state_options){ .range = "999-999" }, &sc, &e) < 0)
        fail_msg("%s", e.msg);
    struct sim *s;
    if (sim_create(&s, &sc, &e) < 0)
        fail_msg("%s", e.msg);
    toy_steps = 0, toy_stop = 0;
    stop_at = 2 * 2 + 1;   /* the first step of frame 3 (2 steps a frame) */
    if (state_start(st, s, &toy_stop, &e) < 0)
        fail_msg("%s", e.msg);
    if (sim_frame(s) != 3)
        fail_msg("the fast-forward stopped at frame %ld; the stop came in frame 3", sim_frame(s));
    assert_int_equal(toy_steps, 3 * 2);
    /* Not stopped: all the way to the range's first frame. */
    toy_stop = 0, stop_at = 0;
    if (state_start(st, s, &toy_stop, &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(sim_frame(s), 999);
    sim_free(s);
    state_free(st);
    scene_free(&sc);
    stop_at = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registered),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_blowup_advice),
        cmocka_unit_test(test_fast_forward_stops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_sim_frames.c: sim_advance_frames, which fuses steps across frame
 * boundaries and hands each frame's rows out as the wavefront passes them,
 * gives every frame bit for bit as sim_advance_frame does, and hands out
 * every row of every frame exactly once: for each solver with a fused pass
 * (elias with 4 and 8 neighbours, flow, wave), odd grid sizes, walls, still
 * and moving, drops due between frames and inside a frame (where fusion
 * must stop), edges that stop fusion (absorb, a top/bottom wrap), 1 to 3
 * steps a frame, in one call and in calls of a few frames, on 1 and 2
 * threads. A growing field fails at the same frame with the same message
 * (the first bad cell in row-major order) as with sim_advance_frame, and
 * the frames before it were all handed out whole. Scenes are loaded from
 * JSON text. */
#include <omp.h>
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
#include "scene_text.h"
#include "sim.h"
#include "sim_fixture.h"
#include "solver.h"

/* The plain frames (frames x h x w heights, from frame `first`) and how
 * often each (frame, row) was handed out. */
struct collect {
    long first;
    int frames, w, h;
    float *heights;
    int *count;
    int *whole;     /* rows of each frame handed out so far */
    int bad_call;   /* a call outside the frames or rows asked for */
    int differs;    /* a row handed out, or a neighbour row, not the plain frame's */
    int interleaved;   /* a frame's rows came before the frame before it was whole: fused across frames */
};

/* Checks rows y0 - 1 .. y1 (those in the grid) against the plain frame:
 * the rows handed out and the neighbours that must hold the frame too. */
static void check_rows(void *arg, long frame, const struct field *v, int y0, int y1)
{
    struct collect *c = arg;
    long k = frame - c->first;
    if (k < 0 || k >= c->frames || y0 < 0 || y1 > c->h || y0 >= y1 || v->w != c->w || v->h != c->h || v->prev) {
        __atomic_store_n(&c->bad_call, 1, __ATOMIC_RELAXED);
        return;
    }
    if (k > 0 && __atomic_load_n(&c->whole[k - 1], __ATOMIC_RELAXED) < c->h)
        __atomic_store_n(&c->interleaved, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->whole[k], y1 - y0, __ATOMIC_RELAXED);
    for (int y = y0; y < y1; y++)
        __atomic_fetch_add(&c->count[k * c->h + y], 1, __ATOMIC_RELAXED);
    for (int y = y0 > 0 ? y0 - 1 : 0; y <= y1 && y < c->h; y++)
        if (memcmp(c->heights + ((size_t)k * c->h + y) * c->w, v->cur + y * v->stride, (size_t)c->w * sizeof(float)))
            __atomic_store_n(&c->differs, 1, __ATOMIC_RELAXED);
}

/* Runs `frames` frames of scene json both ways and compares them: plain
 * sim_advance_frame frame by frame, and sim_advance_frames in calls of
 * `chunk` frames. fused: 1 when some steps must have fused across frames
 * (rows of a frame handed out before the frame before it was whole), 0
 * when none may have, -1 either. */
/* Loads scene json on `threads` threads and makes two simulations of it. */
static void two_sims(const char *json, int threads, struct scene *sc, struct sim **a, struct sim **b)
{
    omp_set_num_threads(threads);
    load_ok(sc, json);
    struct rr_err e = { 0 };
    assert_int_equal(sim_create(a, sc, &e), 0);
    assert_int_equal(sim_create(b, sc, &e), 0);
}

/* The two simulations show the same frame, bit for bit. */
static void same_fields(const struct sim *a, const struct sim *b)
{
    const struct field *fa = sim_field(a), *fb = sim_field(b);
    for (int y = 0; y < fa->h; y++) {
        assert_memory_equal(fa->cur + y * fa->stride, fb->cur + y * fb->stride, (size_t)fa->w * sizeof(float));
        assert_memory_equal(fa->prev + y * fa->stride, fb->prev + y * fb->stride, (size_t)fa->w * sizeof(float));
    }
}

static void compare(const char *json, int frames, int chunk, int threads, int fused)
{
    struct scene sc;
    struct sim *a = NULL, *b = NULL;
    struct rr_err e = { 0 };
    two_sims(json, threads, &sc, &a, &b);
    const int w = sc.grid.width, h = sc.grid.height;
    struct collect c = { .first = 1, .frames = frames, .w = w, .h = h };
    c.heights = malloc((size_t)frames * h * w * sizeof *c.heights);
    c.count = calloc((size_t)frames * h, sizeof *c.count);
    c.whole = calloc((size_t)frames, sizeof *c.whole);
    assert_non_null(c.heights);
    assert_non_null(c.count);
    assert_non_null(c.whole);
    for (int k = 0; k < frames; k++) {
        if (sim_advance_frame(a, &e) < 0)
            fail_msg("sim_advance_frame: %s", e.msg);
        const struct field *f = sim_field(a);
        for (int y = 0; y < h; y++)
            memcpy(c.heights + ((size_t)k * h + y) * w, f->cur + y * f->stride, (size_t)w * sizeof(float));
    }
    for (int k = 0; k < frames; k += chunk) {
        int n = frames - k < chunk ? frames - k : chunk, done = -1;
        if (sim_advance_frames(b, n, check_rows, &c, &done, &e) < 0)
            fail_msg("sim_advance_frames: %s\n%s", e.msg, json);
        assert_int_equal(done, n);
        assert_int_equal(sim_frame(b), k + n);
    }
    assert_int_equal(c.bad_call, 0);
    if (fused >= 0 && c.interleaved != fused)
        fail_msg("fused across frames: %d, expected %d (threads %d, chunk %d)\n%s", c.interleaved, fused, threads,
                 chunk, json);
    if (c.differs)
        fail_msg("a frame's rows differ from the plain step's (threads %d, chunk %d)\n%s", threads, chunk, json);
    for (int k = 0; k < frames * h; k++)
        if (c.count[k] != 1)
            fail_msg("frame %d row %d handed out %d times (threads %d, chunk %d)\n%s", k / h + 1, k % h, c.count[k],
                     threads, chunk, json);
    /* The last frame is in the field too, and the simulations go on alike. */
    same_fields(a, b);
    free(c.heights);
    free(c.count);
    free(c.whole);
    sim_free(a);
    sim_free(b);
    scene_free(&sc);
}

/* The scenes: each solver (wave in metres with 1 cm cells, within its
 * Courant limit at one step a frame), walls, drops at frames and between
 * them; `extra` adds keys. */
static void scene_json(char *buf, size_t size, const char *solver, int spf, const char *edges, const char *extra)
{
    snprintf(buf, size,
             "{\"grid\": {\"width\": 67, \"height\": 151%s}, \"time\": {\"fps\": 30, \"frames\": 100, "
             "\"steps_per_frame\": %d}, \"solver\": %s, \"boundary\": %s, "
             "\"obstacles\": [{\"type\": \"rect\", \"x\": 20, \"y\": 60, \"width\": 9, \"height\": 31}%s], "
             "\"drops\": [{\"x\": 33, \"y\": 20, \"amplitude\": -1, \"radius\": 4}, "
             "{\"frame\": 23, \"x\": 50, \"y\": 120, \"amplitude\": 0.7, \"radius\": 2}, "
             "{\"time\": %.9f, \"x\": 10, \"y\": 140, \"amplitude\": 0.5, \"radius\": 3}]%s}",
             strcmp(solver, "wave") == 0 ? ", \"cell_size\": 0.01" : "", spf,
             strcmp(solver, "wave") == 0   ? "{\"type\": \"wave\", \"speed\": 0.2}"
             : strcmp(solver, "elias8") == 0 ? "{\"type\": \"elias\", \"neighbors\": 8, \"damping\": 0.995}"
             : strcmp(solver, "flow") == 0   ? "{\"type\": \"flow\", \"flow\": 0.3, \"damping\": 0.995}"
                                             : "{\"type\": \"elias\", \"damping\": 0.995}",
             edges, extra && strstr(extra, "motion") ? extra : "",
             /* step 41 (inside a frame unless spf is 1) */
             41.0 / (30.0 * spf), extra && !strstr(extra, "motion") ? extra : "");
}

static void test_frames_match_plain(void **state)
{
    (void)state;
    static const char *const solvers[] = { "elias", "elias8", "flow", "wave" };
    static const char *const edges[] = { "\"fixed\"", "\"clamp\"" };
    const int saved = omp_get_max_threads();
    char json[2048];
    for (int s = 0; s < 4; s++)
        for (int spf = 1; spf <= 3; spf++)
            for (int t = 1; t <= 2; t++) {
                scene_json(json, sizeof json, solvers[s], spf, edges[(s + spf) % 2], NULL);
                compare(json, 60, 60, t, 1);
                compare(json, 25, 7, t, 1);
            }
    omp_set_num_threads(saved);
}

/* Where nothing fuses or fusion stops often: absorbing edges, a top/bottom
 * wrap (the fused pass declines it), a left/right wrap (it fuses), rain,
 * a wall moving every step for a while. */
static void test_frames_where_fusion_stops(void **state)
{
    (void)state;
    const int saved = omp_get_max_threads();
    char json[2048];
    static const struct {
        const char *edges, *extra;
        int fused;
    } cases[] = {
        { "\"absorb\"", NULL, 0 },
        { "\"wrap\"", NULL, 0 },
        { "\"fixed\"", ", \"rain\": {\"rate\": 40, \"start\": 0.2, \"end\": 0.8, \"radius\": [1, 2], \"seed\": 3}", 1 },
        { "\"clamp\"", ", {\"type\": \"rect\", \"x\": 40, \"y\": 10, \"width\": 3, \"height\": 5, "
                   "\"motion\": [[0.3, 40, 10], [0.5, 40, 30]]}", 1 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int spf = 1; spf <= 2; spf++)
            for (int t = 1; t <= 2; t++) {
                scene_json(json, sizeof json, k % 2 ? "wave" : "elias", spf, cases[k].edges, cases[k].extra);
                compare(json, 30, 30, t, cases[k].fused);
            }
    /* Left and right wrap, top and bottom fixed: fused. */
    scene_json(json, sizeof json, "flow", 1,
               "{\"left\": \"wrap\", \"right\": \"wrap\", \"top\": \"fixed\", \"bottom\": \"fixed\"}", NULL);
    compare(json, 40, 40, 2, 1);
    omp_set_num_threads(saved);
}

/* Counts the frames whose rows were handed out, up to `frames`. */
struct tally {
    int frames, h;
    int *count;
};

static void tally_rows(void *arg, long frame, const struct field *v, int y0, int y1)
{
    struct tally *t = arg;
    (void)v;
    if (frame >= 1 && frame <= t->frames)
        for (int y = y0; y < y1; y++)
            __atomic_fetch_add(&t->count[(frame - 1) * t->h + y], 1, __ATOMIC_RELAXED);
}

/* A field that grows by itself (damping above 1, no source after frame 0)
 * fails at the same frame, naming the same cell, either way. */
static void test_blow_up_same_frame(void **state)
{
    (void)state;
    const int saved = omp_get_max_threads();
    static const char *const solvers[] = { "elias", "flow" };
    for (int s = 0; s < 2; s++)
        for (int spf = 1; spf <= 4; spf += 3)
            for (int t = 1; t <= 2; t++) {
                omp_set_num_threads(t);
                struct scene sc;
                struct drop d;
                grow_scene(&sc, &d, solvers[s], spf, 101, 57);
                struct sim *a = NULL, *b = NULL;
                struct rr_err ea = { 0 }, eb = { 0 };
                assert_int_equal(sim_create(&a, &sc, &ea), 0);
                assert_int_equal(sim_create(&b, &sc, &eb), 0);
                int passed = 0;
                while (sim_advance_frame(a, &ea) == 0)
                    assert_true(++passed < 200);
                assert_true(passed > 3);   /* grown by the steps, in a fused pass's inside */
                struct tally ty = { .frames = passed, .h = 101, .count = calloc((size_t)passed * 101, sizeof(int)) };
                assert_non_null(ty.count);
                int done = -1;
                assert_int_equal(sim_advance_frames(b, 1000, tally_rows, &ty, &done, &eb), -1);
                assert_int_equal(done, passed);
                assert_string_equal(eb.msg, ea.msg);
                assert_int_equal(eb.status, ea.status);
                for (int k = 0; k < passed * 101; k++)
                    assert_int_equal(ty.count[k], 1);
                free(ty.count);
                /* Without a consumer, the same. */
                sim_free(b);
                b = NULL;
                eb = (struct rr_err){ 0 };
                assert_int_equal(sim_create(&b, &sc, &eb), 0);
                assert_int_equal(sim_advance_frames(b, 1000, NULL, NULL, &done, &eb), -1);
                assert_int_equal(done, passed);
                assert_string_equal(eb.msg, ea.msg);
                sim_free(a);
                sim_free(b);
            }
    omp_set_num_threads(saved);
}

/* Sets the stop flag when frame `at`'s rows are handed out. */
struct stopper {
    long at;
    volatile sig_atomic_t flag;
    int whole[100];   /* rows of each frame handed out */
};

static void stop_rows(void *arg, long frame, const struct field *v, int y0, int y1)
{
    (void)v;
    struct stopper *s = arg;
    if (frame >= 1 && frame <= 100)
        __atomic_fetch_add(&s->whole[frame - 1], y1 - y0, __ATOMIC_RELAXED);
    if (frame == s->at)
        s->flag = 1;
}

/* sim_advance_frames_until stops at the first frame's end that ends a
 * fused pass after *stop is set: *done frames made and handed out whole, no
 * more, the simulation showing frame *done bit for bit as sim_advance_frame
 * leaves it, and going on from there alike. A flag set before the call
 * still lets it make a frame. */
static void test_stop_between_passes(void **state)
{
    (void)state;
    const int saved = omp_get_max_threads();
    char json[2048];
    for (int spf = 1; spf <= 3; spf++)
        for (int t = 1; t <= 2; t++) {
            scene_json(json, sizeof json, "elias", spf, "\"fixed\"", NULL);
            struct scene sc;
            struct sim *a = NULL, *b = NULL;
            struct rr_err e = { 0 };
            two_sims(json, t, &sc, &a, &b);
            struct stopper st = { .at = 5 };
            int done = -1;
            assert_int_equal(sim_advance_frames_until(b, 60, stop_rows, &st, &st.flag, &done, &e), 0);
            /* A fused pass is at most 16 steps: the stop comes within 16 frames. */
            if (done < 5 || done > 5 + 16 || done >= 60)
                fail_msg("stopped after %d frames (flag at frame 5, spf %d, threads %d)", done, spf, t);
            assert_int_equal(sim_frame(b), done);
            for (int k = 0; k < 60; k++)
                assert_int_equal(st.whole[k], k < done ? sc.grid.height : 0);
            for (int k = 0; k < done; k++)
                assert_int_equal(sim_advance_frame(a, &e), 0);
            same_fields(a, b);
            /* Set before the call: one frame or more, then the stop. */
            int more = -1;
            assert_int_equal(sim_advance_frames_until(b, 60 - done, NULL, NULL, &st.flag, &more, &e), 0);
            if (more < 1 || more > 16)
                fail_msg("flag set before the call: %d frames (spf %d)", more, spf);
            for (int k = 0; k < more; k++)
                assert_int_equal(sim_advance_frame(a, &e), 0);
            st.flag = 0;
            assert_int_equal(sim_advance_frames_until(b, 60 - done - more, NULL, NULL, &st.flag, &more, &e), 0);
            while (sim_frame(a) < 60)
                assert_int_equal(sim_advance_frame(a, &e), 0);
            assert_int_equal(sim_frame(b), 60);
            same_fields(a, b);
            sim_free(a);
            sim_free(b);
            scene_free(&sc);
        }
    omp_set_num_threads(saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_match_plain),
        cmocka_unit_test(test_frames_where_fusion_stops),
        cmocka_unit_test(test_blow_up_same_frame),
        cmocka_unit_test(test_stop_between_passes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

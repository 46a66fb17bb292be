/* test_scene.c: the scene loader: defaults, overrides, --set, exact
 * file:line:col messages for every class of error, the --print-scene round
 * trip, and every case of JSONTestSuite (never a crash, always status 2). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "render.h"
#include "scene.h"
#include "solver.h"

/* JSONTestSuite, vendored in tests/data/json-test-suite (tests/data/README.md). */
#ifndef RR_SOURCE_DIR
#error "build with -DRR_SOURCE_DIR=\"...\" (the Makefile passes the repository root)"
#endif
#define SUITE_DIR RR_SOURCE_DIR "/tests/data/json-test-suite"

static char tmpdir[64];
static char scene_path[128];   /* tmpdir/s.json: where each test writes its scene */
static char mask_path[128];    /* tmpdir/walls.png: an existing file for path checks */

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/rr_test_scene_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    snprintf(scene_path, sizeof scene_path, "%s/s.json", tmpdir);
    snprintf(mask_path, sizeof mask_path, "%s/walls.png", tmpdir);
    FILE *f = fopen(mask_path, "wb");
    if (!f)
        return -1;
    fputs("not decoded by the scene loader", f);
    return fclose(f);
}

static int teardown(void **state)
{
    (void)state;
    unlink(scene_path);
    unlink(mask_path);
    rmdir(tmpdir);
    return 0;
}

static void write_scene(const char *text)
{
    FILE *f = fopen(scene_path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* Loads `text` with the --set list; returns scene_load's result. */
static int load(const char *text, const char *const *sets, int n_sets, struct scene *sc, struct rr_err *e)
{
    write_scene(text);
    memset(e, 0, sizeof *e);
    return scene_load(sc, scene_path, sets, n_sets, e);
}

/* The load fails with status 2 and exactly "<scene path><suffix>". */
static void expect_file_error(const char *text, const char *suffix)
{
    struct scene sc;
    struct rr_err e;
    char want[1024];
    snprintf(want, sizeof want, "%s%s", scene_path, suffix);
    assert_int_equal(load(text, NULL, 0, &sc, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, want);
    assert_null(sc.drops);   /* the scene is left empty */
    scene_free(&sc);
}

/* The load with one --set fails with status 2 and exactly `want`. */
static void expect_set_error(const char *text, const char *set, const char *want)
{
    struct scene sc;
    struct rr_err e;
    const char *sets[] = { set };
    assert_int_equal(load(text, sets, 1, &sc, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, want);
    scene_free(&sc);
}

static void test_defaults(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    assert_int_equal(load("{}", NULL, 0, &sc, &e), 0);
    assert_string_equal(sc.file, scene_path);
    assert_int_equal(sc.grid.width, 256);
    assert_int_equal(sc.grid.height, 256);
    assert_true(sc.grid.cell_size == 0.001);
    assert_true(sc.time.fps == 30);
    assert_int_equal(sc.time.frames, 150);
    assert_int_equal(sc.time.steps_per_frame, 2);
    assert_false(sc.time.steps_auto);
    assert_true(sc.time.preroll == 0);
    assert_false(sc.time.loop);
    assert_int_equal(scene_preroll_steps(&sc), 0);
    assert_string_equal(sc.solver.type->name, "elias");
    assert_true(sc.solver.damping == 0.99);
    assert_int_equal(sc.solver.damping_shift, 0);
    assert_true(sc.solver.half_life == 0);
    assert_int_equal(sc.solver.neighbors, 4);
    assert_true(sc.solver.flow == 1.0);
    assert_true(sc.solver.blend == 0.99);
    assert_int_equal(sc.solver.passes, 2);
    assert_true(sc.solver.speed == 0.2);
    assert_null(sc.solver.speed_map);
    assert_true(sc.solver.speed_range[0] == 0.1 && sc.solver.speed_range[1] == 0.3);
    assert_true(sc.solver.decay == 0);
    assert_true(sc.solver.gravity == 9.81);
    assert_true(sc.solver.surface_tension == 0.0728);
    assert_true(sc.solver.density == 1000);
    assert_true(sc.solver.depth == 0);
    assert_true(sc.solver.viscosity == 1e-6);
    for (int s = 0; s < 4; s++)
        assert_int_equal(sc.boundary[s], EDGE_FIXED);
    assert_int_equal(sc.absorb_width, 16);
    assert_int_equal(sc.n_drops, 0);
    assert_false(sc.rain.enabled);
    assert_int_equal(sc.n_oscillators, 0);
    assert_int_equal(sc.n_movers, 0);
    assert_int_equal(sc.n_initial, 0);
    assert_int_equal(sc.n_probes, 0);
    assert_int_equal(sc.n_obstacles, 0);
    assert_int_equal(sc.render.mode, RENDER_HEIGHT);
    assert_string_equal(sc.render.colormap, "viridis");
    assert_true(sc.render.range[0] == -1 && sc.render.range[1] == 1);
    assert_int_equal(sc.render.width, 256);
    assert_int_equal(sc.render.height, 256);
    assert_memory_equal(sc.render.obstacle_color, "\x28\x28\x28", 3);
    assert_string_equal(sc.output.path, "out/ripple.mp4");
    assert_string_equal(sc.output.codec, "");
    assert_int_equal(sc.output.crf, -1);
    assert_string_equal(sc.output.preset, "");
    assert_string_equal(sc.output.pix_fmt, "");
    assert_int_equal(sc.output.bit_depth, 8);
    assert_int_equal(sc.output.format, OUTPUT_Y4M);
    scene_free(&sc);
    scene_free(&sc);   /* twice is safe */
}

/* Element defaults: a drop, rain, oscillator, mover, probe with only what they need. */
static void test_element_defaults(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    assert_int_equal(load("{\"grid\":{\"width\":11,\"height\":21},\"time\":{\"fps\":10,\"frames\":25},"
                          "\"drops\":[{}],\"rain\":{},\"oscillators\":[{}],"
                          "\"movers\":[{\"path\":[[0,1,2]]}],\"probes\":[{},{}],"
                          "\"initial\":[{\"type\":\"wave\"}],"
                          "\"obstacles\":[{\"type\":\"line\",\"from\":[0,0],\"to\":[5,5]}]}",
                          NULL, 0, &sc, &e), 0);
    const struct drop *d = &sc.drops[0];
    assert_false(d->at.is_frame);
    assert_true(d->at.time == 0);
    assert_true(d->x == 5 && d->y == 10);   /* the grid's centre cell */
    assert_true(d->radius == 3 && d->amplitude == -1);
    assert_int_equal(d->shape, SHAPE_DISC);
    assert_int_equal(d->mode, DROP_ADD);
    assert_true(sc.rain.enabled);
    assert_true(sc.rain.rate == 4);
    assert_true(sc.rain.start.time == 0 && sc.rain.end.time == 2.5);   /* 25 frames at 10 fps */
    assert_true(sc.rain.radius[0] == 1 && sc.rain.radius[1] == 3);
    assert_true(sc.rain.amplitude[0] == -1 && sc.rain.amplitude[1] == -0.3);
    assert_true(sc.rain.seed == 1);
    const struct oscillator *o = &sc.oscillators[0];
    assert_false(o->is_line);
    assert_true(o->x == 5 && o->y == 10 && o->radius == 2 && o->amplitude == 0.5);
    assert_true(o->frequency == 2 && o->phase == 0 && o->end.time == 2.5);
    assert_int_equal(sc.movers[0].n_path, 1);
    assert_true(sc.movers[0].radius == 3 && sc.movers[0].amplitude == -0.2);
    assert_string_equal(sc.probes[0].name, "p0");
    assert_string_equal(sc.probes[1].name, "p1");
    assert_true(sc.initial[0].wavelength == 20 && sc.initial[0].angle == 0 && sc.initial[0].amplitude == 0.5);
    assert_true(sc.obstacles[0].width == 1);
    scene_free(&sc);
}

static const char full_scene[] =
    "{\n"
    "  \"grid\":   { \"width\": 64, \"height\": 48, \"cell_size\": 0.0005 },\n"
    "  \"time\":   { \"fps\": 25, \"frames\": 40, \"steps_per_frame\": 3, \"preroll\": 2.5, \"loop\": true },\n"
    "  \"solver\": { \"type\": \"spring\", \"half_life\": 1.5, \"blend\": 0.25, \"passes\": 3 },\n"
    "  \"boundary\": { \"left\": \"wrap\", \"right\": \"wrap\", \"top\": \"absorb\", \"bottom\": \"clamp\",\n"
    "                \"absorb_width\": 8 },\n"
    "  \"drops\": [ { \"frame\": 4, \"x\": 10, \"y\": 12, \"radius\": 0, \"amplitude\": 2,\n"
    "               \"shape\": \"gaussian\", \"mode\": \"set\" },\n"
    "             { \"time\": 0.5, \"x\": -0.25, \"y\": 47.5, \"shape\": \"point\" } ],\n"
    "  \"rain\": { \"rate\": 6, \"start\": 0.2, \"end\": 1.2, \"radius\": 2, \"amplitude\": [-2, -1],\n"
    "            \"seed\": 9007199254740992, \"shape\": \"cosine\" },\n"
    "  \"oscillators\": [ { \"from\": [0, 1], \"to\": [0, 40], \"radius\": 1, \"amplitude\": 0.25,\n"
    "                     \"frequency\": 3.5, \"phase\": 1.5, \"start\": 0.1, \"end\": 0.9 } ],\n"
    "  \"movers\": [ { \"path\": [[0, 1, 2], [1, 30, 2], [1.5, 30, 40]], \"radius\": 2,\n"
    "                \"amplitude\": -0.5, \"shape\": \"gaussian\" } ],\n"
    "  \"initial\": [ { \"type\": \"image\", \"path\": \"walls.png\", \"scale\": 0.5 },\n"
    "               { \"type\": \"wave\", \"wavelength\": 8, \"angle\": 45, \"amplitude\": 0.1 } ],\n"
    "  \"probes\": [ { \"name\": \"centre\", \"x\": 32, \"y\": 24 }, { \"x\": 63, \"y\": 0 } ],\n"
    "  \"obstacles\": [\n"
    "    { \"type\": \"rect\", \"x\": 25, \"y\": 0, \"width\": 6, \"height\": 20 },\n"
    "    { \"type\": \"circle\", \"x\": 30, \"y\": 30, \"radius\": 5 },\n"
    "    { \"type\": \"polygon\", \"points\": [[1, 1], [6, 1], [3, 5]] },\n"
    "    { \"type\": \"line\", \"from\": [0, 40], \"to\": [64, 38], \"width\": 3 },\n"
    "    { \"type\": \"mask\", \"path\": \"walls.png\", \"threshold\": 0.25, \"invert\": true }\n"
    "  ],\n"
    "  \"render\": { \"mode\": \"colormap\", \"colormap\": \"ocean\", \"range\": [-0.5, 0.25],\n"
    "              \"width\": 128, \"height\": 96, \"obstacle_color\": \"#2b2118\" },\n"
    "  \"output\": { \"path\": \"x/out.mkv\", \"codec\": \"libx264\", \"crf\": 20, \"preset\": \"veryfast\",\n"
    "              \"pix_fmt\": \"yuv420p\", \"bit_depth\": 16 }\n"
    "}\n";

static void test_every_key(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    char resolved[160];
    assert_int_equal(load(full_scene, NULL, 0, &sc, &e), 0);
    /* Paths in the scene resolve against the scene's folder. */
    snprintf(resolved, sizeof resolved, "%s/walls.png", tmpdir);
    assert_int_equal(sc.grid.width, 64);
    assert_int_equal(sc.grid.height, 48);
    assert_true(sc.grid.cell_size == 0.0005);
    assert_true(sc.time.fps == 25);
    assert_int_equal(sc.time.frames, 40);
    assert_int_equal(sc.time.steps_per_frame, 3);
    assert_true(sc.time.preroll == 2.5);
    assert_true(sc.time.loop);
    assert_int_equal(scene_preroll_steps(&sc), 188);   /* 2.5 s * 75 steps/s = 187.5: rounds away from 0 */
    assert_string_equal(sc.solver.type->name, "spring");
    assert_true(sc.solver.half_life == 1.5);
    assert_true(sc.solver.damping == 0.99);
    assert_true(sc.solver.blend == 0.25);
    assert_int_equal(sc.solver.passes, 3);
    assert_int_equal(sc.boundary[EDGE_LEFT], EDGE_WRAP);
    assert_int_equal(sc.boundary[EDGE_RIGHT], EDGE_WRAP);
    assert_int_equal(sc.boundary[EDGE_TOP], EDGE_ABSORB);
    assert_int_equal(sc.boundary[EDGE_BOTTOM], EDGE_CLAMP);
    assert_int_equal(sc.absorb_width, 8);
    assert_int_equal(sc.n_drops, 2);
    assert_true(sc.drops[0].at.is_frame);
    assert_int_equal(sc.drops[0].at.frame, 4);
    assert_true(sc.drops[0].x == 10 && sc.drops[0].y == 12 && sc.drops[0].radius == 0);
    assert_true(sc.drops[0].amplitude == 2);
    assert_int_equal(sc.drops[0].shape, SHAPE_GAUSSIAN);
    assert_int_equal(sc.drops[0].mode, DROP_SET);
    assert_false(sc.drops[1].at.is_frame);
    assert_true(sc.drops[1].at.time == 0.5 && sc.drops[1].x == -0.25 && sc.drops[1].y == 47.5);
    assert_int_equal(sc.drops[1].shape, SHAPE_POINT);
    assert_true(sc.rain.enabled && sc.rain.rate == 6);
    assert_true(sc.rain.start.time == 0.2 && sc.rain.end.time == 1.2);
    assert_true(sc.rain.radius[0] == 2 && sc.rain.radius[1] == 2);
    assert_true(sc.rain.amplitude[0] == -2 && sc.rain.amplitude[1] == -1);
    assert_true(sc.rain.seed == 9007199254740992ULL);
    assert_int_equal(sc.rain.shape, SHAPE_COSINE);
    const struct oscillator *o = &sc.oscillators[0];
    assert_true(o->is_line);
    assert_true(o->from[0] == 0 && o->from[1] == 1 && o->to[0] == 0 && o->to[1] == 40);
    assert_true(o->radius == 1 && o->amplitude == 0.25 && o->frequency == 3.5 && o->phase == 1.5);
    assert_true(o->start.time == 0.1 && o->end.time == 0.9);
    const struct mover *m = &sc.movers[0];
    assert_int_equal(m->n_path, 3);
    assert_true(m->path[2].time == 1.5 && m->path[2].x == 30 && m->path[2].y == 40);
    assert_true(m->radius == 2 && m->amplitude == -0.5);
    assert_int_equal(m->shape, SHAPE_GAUSSIAN);
    assert_int_equal(sc.n_initial, 2);
    assert_int_equal(sc.initial[0].type, INITIAL_IMAGE);
    assert_string_equal(sc.initial[0].path, resolved);
    assert_true(sc.initial[0].scale == 0.5);
    assert_int_equal(sc.initial[1].type, INITIAL_WAVE);
    assert_true(sc.initial[1].wavelength == 8 && sc.initial[1].angle == 45 && sc.initial[1].amplitude == 0.1);
    assert_string_equal(sc.probes[0].name, "centre");
    assert_string_equal(sc.probes[1].name, "p1");
    assert_true(sc.probes[1].x == 63 && sc.probes[1].y == 0);
    assert_int_equal(sc.n_obstacles, 5);
    assert_true(sc.obstacles[0].type == OBST_RECT && sc.obstacles[0].width == 6 && sc.obstacles[0].height == 20);
    assert_true(sc.obstacles[1].type == OBST_CIRCLE && sc.obstacles[1].radius == 5);
    assert_true(sc.obstacles[2].type == OBST_POLYGON && sc.obstacles[2].n_points == 3);
    assert_true(sc.obstacles[2].points[2][0] == 3 && sc.obstacles[2].points[2][1] == 5);
    assert_true(sc.obstacles[3].type == OBST_LINE && sc.obstacles[3].to[0] == 64 && sc.obstacles[3].width == 3);
    assert_true(sc.obstacles[4].type == OBST_MASK && sc.obstacles[4].threshold == 0.25);
    assert_true(sc.obstacles[4].invert);
    assert_string_equal(sc.obstacles[4].path, resolved);
    assert_int_equal(sc.render.mode, RENDER_COLORMAP);
    assert_string_equal(sc.render.colormap, "ocean");
    assert_true(sc.render.range[0] == -0.5 && sc.render.range[1] == 0.25);
    assert_int_equal(sc.render.width, 128);
    assert_int_equal(sc.render.height, 96);
    assert_memory_equal(sc.render.obstacle_color, "\x2b\x21\x18", 3);
    assert_string_equal(sc.output.path, "x/out.mkv");   /* relative to the current directory */
    assert_string_equal(sc.output.codec, "libx264");
    assert_int_equal(sc.output.crf, 20);
    assert_string_equal(sc.output.preset, "veryfast");
    assert_string_equal(sc.output.pix_fmt, "yuv420p");
    assert_int_equal(sc.output.bit_depth, 16);
    scene_free(&sc);
}

static void test_set(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    const char *sets[] = {
        "solver.damping=0.5",            /* nested, in an object the file has */
        "grid.width=100",                /* JSON number */
        "output.codec=libx265",          /* not JSON: a string */
        "output.preset=\"slow\"",        /* JSON string */
        "drops.0.x=7",                   /* array index */
        "drops.1={\"frame\":3}",         /* append at index == length, a JSON object */
        "drops.1.y=9",                   /* into what the previous --set made */
        "probes.0.name=top",             /* a missing array is created */
        "render.obstacle_color=[1,2,3]",
        "solver.damping=0.25",           /* the later one wins */
        "time.steps_per_frame=auto",
        "rain.seed=5",                   /* a missing object is created (and enables rain) */
    };
    assert_int_equal(load("{\"solver\":{\"damping\":0.9},\"drops\":[{\"x\":1,\"y\":2}]}", sets, 12, &sc, &e), 0);
    assert_true(sc.solver.damping == 0.25);
    assert_int_equal(sc.grid.width, 100);
    assert_int_equal(sc.render.width, 100);
    assert_string_equal(sc.output.codec, "libx265");
    assert_string_equal(sc.output.preset, "slow");
    assert_int_equal(sc.n_drops, 2);
    assert_true(sc.drops[0].x == 7 && sc.drops[0].y == 2);
    assert_true(sc.drops[1].at.is_frame && sc.drops[1].at.frame == 3 && sc.drops[1].y == 9);
    assert_int_equal(sc.n_probes, 1);
    assert_string_equal(sc.probes[0].name, "top");
    assert_memory_equal(sc.render.obstacle_color, "\x01\x02\x03", 3);
    assert_true(sc.time.steps_auto);
    assert_int_equal(sc.time.steps_per_frame, 1);
    assert_true(sc.rain.enabled && sc.rain.seed == 5);
    scene_free(&sc);

    /* "01" is not strict JSON, so it stays a string (and is refused as one). */
    expect_set_error("{}", "grid.width=01", "--set grid.width: expected an integer in [1, 16384], got \"01\"");
}

static void test_set_errors(void **state)
{
    (void)state;
    const char *two = "{\"drops\":[{\"x\":1},{\"x\":2}]}";
    expect_set_error(two, "drops.9.x=4", "--set drops.9.x=4: drops has 2 elements");
    expect_set_error(two, "drops.3=4", "--set drops.3=4: drops has 2 elements");
    expect_set_error(two, "drops.x=1", "--set drops.x=1: drops is an array: expected an index, got \"x\"");
    expect_set_error("{\"grid\":{\"width\":9}}", "grid.width.x=3",
                     "--set grid.width.x=3: grid.width is not an object or an array");
    expect_set_error("{}", "solver.damping", "--set solver.damping: expected KEY=VALUE");
    expect_set_error("{}", "=3", "--set =3: the key is empty");
    expect_set_error("{}", "a..b=3", "--set a..b=3: empty part in the key \"a..b\"");
    expect_set_error("{}", ".a=3", "--set .a=3: empty part in the key \".a\"");
    expect_set_error("{}", "a.=3", "--set a.=3: empty part in the key \"a.\"");
    /* Values --set made have no position: the message says where they came from. */
    expect_set_error("{}", "solver.damping=2", "--set solver.damping: expected a number in (0, 1], got 2");
    expect_set_error("{}", "solver={\"dampng\":0.5}",
                     "--set solver.dampng: unknown key \"dampng\", did you mean \"damping\"?");
    expect_set_error("{}", "solver.type=wav",
                     "--set solver.type: expected one of \"elias\", \"flow\", \"spring\", \"wave\", "
                     "\"spectral\", got \"wav\"; did you mean \"wave\"?");
    expect_set_error("{}", "grid.width=1e999",
                     "--set grid.width: expected an integer in [1, 16384], got a number too large for a double");
}

/* --set meets a user's typing halfway: numbers as people write them are
 * numbers; what is not a number stays a string. */
static void test_set_lenient_numbers(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    const char *sets[] = {
        "solver.damping=.98", "time.frames=3.", "drops.0.amplitude=-.5", "drops.0.x=+2",
        "time.fps=1e1", "drops.0.y=2.5E-1", "drops.0.radius=+.5e1",
        /* not numbers: strings */
        "probes.0.name=01", "probes.1.name=1.2.3", "probes.2.name=0x10", "probes.3.name=.",
        "probes.4.name=-", "probes.5.name=e5", "probes.6.name=inf", "probes.7.name=1e",
        "probes.8.name=+-1", "probes.9.name=1e+",
    };
    assert_int_equal(load("{}", sets, 17, &sc, &e), 0);
    assert_true(sc.solver.damping == 0.98);
    assert_int_equal(sc.time.frames, 3);
    assert_true(sc.drops[0].amplitude == -0.5);
    assert_true(sc.drops[0].x == 2 && sc.drops[0].y == 0.25 && sc.drops[0].radius == 5);
    assert_true(sc.time.fps == 10);
    static const char *const names[] = { "01", "1.2.3", "0x10", ".", "-", "e5", "inf", "1e", "+-1", "1e+" };
    assert_int_equal(sc.n_probes, 10);
    for (int i = 0; i < 10; i++)
        assert_string_equal(sc.probes[i].name, names[i]);
    scene_free(&sc);
    /* A key that takes a string, given a number: refused, saying so. */
    expect_set_error("{\"render\": {\"mode\": \"colormap\"}}", "render.colormap=1e3",
                     "--set render.colormap: expected a non-empty string of at most 31 characters, got 1000");
    expect_set_error("{}", "output.codec=.5",
                     "--set output.codec: expected a string of at most 31 characters, got 0.5");
    /* The scene file stays strict JSON. */
    expect_file_error("{\"solver\": {\"damping\": .98}}", ":1:24: invalid JSON: expected a value near \".98}}\"");
}

/* Did you mean: near names by edit distance, and names a word starts with
 * or that start with it (rectangle -> rect, gauss -> gaussian). */
static void test_suggestions(void **state)
{
    (void)state;
    expect_file_error("{\"obstacles\": [{\"type\": \"rectangle\"}]}",
                      ":1:25: obstacles.0.type: expected one of \"rect\", \"circle\", \"polygon\", \"line\", "
                      "\"mask\", got \"rectangle\"; did you mean \"rect\"?");
    expect_file_error("{\"boundary\": \"wrapped\"}",
                      ":1:14: boundary: expected one of \"fixed\", \"clamp\", \"wrap\", \"absorb\", got "
                      "\"wrapped\"; did you mean \"wrap\"?");
    expect_file_error("{\"drops\": [{\"shape\": \"gauss\"}]}",
                      ":1:22: drops.0.shape: expected one of \"point\", \"disc\", \"gaussian\", \"cosine\", "
                      "got \"gauss\"; did you mean \"gaussian\"?");
    /* render.mode's list is the table's, in its order: a mode added there is
     * in it (test_render checks the table's first six are the built-in
     * modes). */
    const char *modes[RENDER_MODE_MAX + 1];
    char list[512] = "", want[640];
    render_mode_names(modes);
    for (int m = 0; modes[m]; m++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", m ? ", " : "", modes[m]);
    assert_string_equal(modes[RENDER_SHADED], "shaded");
    snprintf(want, sizeof want, ":1:21: render.mode: expected one of %s, got \"shade\"; did you mean \"shaded\"?",
             list);
    expect_file_error("{\"render\": {\"mode\": \"shade\"}}", want);
    expect_file_error("{\"drops\": [{\"rad\": 2}]}",
                      ":1:13: drops.0.rad: unknown key \"rad\", did you mean \"radius\"?");
    /* render.range maps heights in height and colormap, and gives the alpha
     * of render.alpha "height" in any mode; elsewhere it would do nothing. */
    expect_file_error("{\"render\": {\"mode\": \"shaded\", \"range\": [0, 1]}}",
                      ":1:31: render.range: not used by the shaded render mode (a key of height, colormap, and of "
                      "every mode with render.alpha \"height\"), got [0,1]");
    struct scene rs;
    struct rr_err re;
    assert_int_equal(load("{\"render\": {\"mode\": \"shaded\", \"alpha\": \"height\", \"range\": [0, 1]}}", NULL, 0,
                          &rs, &re), 0);
    assert_true(rs.render.range[1] == 1.0);
    scene_free(&rs);
    /* The colormap is checked with the scene, at its position. */
    expect_file_error("{\"render\": {\"mode\": \"colormap\", \"colormap\": \"virdis\"}}",
                      ":1:45: render.colormap: expected one of \"grey\", \"viridis\", \"magma\", \"inferno\", "
                      "\"plasma\", \"turbo\", \"coolwarm\", \"balance\", \"ocean\", \"cividis\", got "
                      "\"virdis\"; did you mean \"viridis\"?");
    expect_set_error("{\"render\": {\"mode\": \"colormap\"}}", "render.colormap=nosuch",
                     "--set render.colormap: expected one of \"grey\", \"viridis\", \"magma\", \"inferno\", "
                     "\"plasma\", \"turbo\", \"coolwarm\", \"balance\", \"ocean\", \"cividis\", got \"nosuch\"");
    /* Nothing near: no guess (two letters are too few to go by). */
    expect_file_error("{\"boundary\": \"op\"}",
                      ":1:14: boundary: expected one of \"fixed\", \"clamp\", \"wrap\", \"absorb\", got \"op\"");
}

/* A source or probe wholly outside the grid is refused, naming it. */
static void test_outside_grid(void **state)
{
    (void)state;
    const char *grid = "{\"grid\": {\"width\": 64, \"height\": 32}, ";
    char text[512];
    struct { const char *body, *msg; } bad[] = {
        { "\"drops\": [{}, {}, {\"x\": 70, \"y\": 10, \"radius\": 3}]}",
          ":1:57: drops.2: x 70, y 10 with radius 3 is wholly outside the 64 x 32 grid" },
        { "\"drops\": [{\"x\": -2, \"y\": -2, \"radius\": 2}]}",
          ":1:49: drops.0: x -2, y -2 with radius 2 is wholly outside the 64 x 32 grid" },
        { "\"drops\": [{\"x\": 10, \"y\": 33.6, \"radius\": 0}]}",
          ":1:49: drops.0: x 10, y 33.6 with radius 0 is wholly outside the 64 x 32 grid" },
        { "\"oscillators\": [{\"x\": 10, \"y\": -40, \"radius\": 4, \"shape\": \"gaussian\"}]}",
          ":1:55: oscillators.0: x 10, y -40 with radius 4 is wholly outside the 64 x 32 grid" },
        { "\"oscillators\": [{\"from\": [-10, -10], \"to\": [-10, 40]}]}",
          ":1:55: oscillators.0: from [-10, -10] to [-10, 40] with radius 2 is wholly outside the 64 x 32 grid" },
        { "\"movers\": [{\"path\": [[0, -20, 5], [1, -20, 50], [2, 100, 50]]}]}",
          ":1:50: movers.0: the path with radius 3 is wholly outside the 64 x 32 grid" },
        { "\"probes\": [{\"x\": 64, \"y\": 10}]}",
          ":1:56: probes.0.x: expected a number in [0, 63], got 64" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s", grid, bad[i].body);
        expect_file_error(text, bad[i].msg);
    }
    /* Partly inside, or reaching in by its radius (a gaussian reaches 2 radii),
     * or the path crossing the grid: accepted. */
    const char *good[] = {
        "\"drops\": [{\"x\": -2, \"y\": 5, \"radius\": 2}, {\"x\": 66, \"y\": 33, \"radius\": 3}]}",
        "\"drops\": [{\"x\": 63.4, \"y\": 31.4, \"radius\": 0}]}",
        "\"oscillators\": [{\"x\": 10, \"y\": -8, \"radius\": 4, \"shape\": \"gaussian\"}]}",
        "\"oscillators\": [{\"from\": [-10, -10], \"to\": [80, 40]}]}",
        "\"movers\": [{\"path\": [[0, -20, 5], [1, 100, 5]]}]}",
        "\"movers\": [{\"path\": [[0, -20, -20], [1, 100, 60]]}]}",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct scene sc;
        struct rr_err e;
        snprintf(text, sizeof text, "%s%s", grid, good[i]);
        if (load(text, NULL, 0, &sc, &e) != 0)
            fail_msg("%s: %s", good[i], e.msg);
        scene_free(&sc);
    }
    /* From --set, the message says so. */
    expect_set_error("{}", "drops.0={\"x\": 999}",
                     "--set drops.0: x 999, y 127.5 with radius 3 is wholly outside the 256 x 256 grid");
}

/* scene_locate: a late refusal that begins with a key gets the key's origin. */
static void test_locate(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    const char *sets[] = { "output.codec=nosuch" };
    assert_int_equal(load("{\n \"output\": {\"pix_fmt\": \"x\"},\n \"obstacles\": [{\"type\": \"mask\", "
                          "\"path\": \"walls.png\"}]\n}", sets, 1, &sc, &e), 0);
    struct { int status; const char *msg, *want; } cases[] = {
        { RR_EXIT_USAGE, "obstacles.0.path: /x/walls.png: cannot read PNG", ":3:41: obstacles.0.path: " },
        { RR_EXIT_USAGE, "output.pix_fmt: \"x\" is not a pixel format", ":2:24: output.pix_fmt: " },
        { RR_EXIT_USAGE, "output.codec: \"nosuch\" is not an encoder", "--set output.codec: " },
        { RR_EXIT_USAGE, "output.bit_depth: 16 needs", ":2:12: output.bit_depth: " },   /* its section */
        { RR_EXIT_USAGE, "grid: 9 x 9 cells need", ": grid: " },                         /* a default */
        { RR_EXIT_USAGE, "out.gif: GIF frames are at most", "out.gif: " },                /* not a key */
        { RR_EXIT_USAGE, "output.codecs: x", ":2:12: output.codecs: " },                  /* a part is not a key */
        { RR_EXIT_RUNTIME, "output.codec: out of memory", "output.codec: " },              /* not a refusal */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[512];
        const char *w = cases[i].want;
        if (w[0] == ':')
            snprintf(want, sizeof want, "%s%s%s", scene_path, w, strchr(cases[i].msg, ':') + 2);
        else if (!strncmp(w, "--set", 5))
            snprintf(want, sizeof want, "--set %s", cases[i].msg);
        else
            snprintf(want, sizeof want, "%s", cases[i].msg);
        rr_fail(&e, cases[i].status, "%s", cases[i].msg);
        scene_locate(&sc, &e);
        assert_string_equal(e.msg, want);
        assert_int_equal(e.status, cases[i].status);
    }
    scene_free(&sc);
}

/* Positions: every line and column asserted exactly. */
static void test_positions(void **state)
{
    (void)state;
    /* Columns count characters: "é" is two bytes but one column. */
    expect_file_error("{\n  \"grid\": { \"width\": 10 },\n  \"solver\": {\n    \"damping\": \"high\"\n  }\n}\n",
                      ":4:16: solver.damping: expected a number in (0, 1], got \"high\"");
    expect_file_error("{\"probes\": [{\"name\": \"é\", \"x\": -1}]}",
                      ":1:32: probes.0.x: expected a number in [0, 255], got -1");
    expect_file_error("{\n\t\"drops\": [\n\t\t{},\n\t\t{\"radius\": -2}\n\t]\n}",
                      ":4:14: drops.1.radius: expected a number >= 0, got -2");
    expect_file_error("{\"obstacles\": [\n  {\"type\": \"circle\", \"x\": 1, \"y\": 2}\n]}",
                      ":2:3: obstacles.0: missing required key \"radius\"");
    expect_file_error("{\"movers\": [{\"path\": [[0, 1, 2], [2, 3, 4], [1, 5, 6]]}]}",
                      ":1:46: movers.0.path.2: times must increase: expected a time > 2, got 1");
}

static void test_syntax_errors(void **state)
{
    (void)state;
    expect_file_error("{\n  \"grid\": { \"width\": 10, }\n}", ":2:26: invalid JSON: expected a key in double quotes; "
                      "a comma before '}': JSON has no trailing commas near \"}\\x0a}\"");
    /* the common slips from other formats say what they are */
    expect_file_error("{\"drops\": [{}, ]}", ":1:16: invalid JSON: expected a value; a comma before ']': JSON has no "
                      "trailing commas near \"]}\"");
    expect_file_error("{\n  // big\n  \"grid\": {}\n}", ":2:3: invalid JSON: expected a key in double quotes; JSON has "
                      "no comments (a top-level \"$comment\" string can say what a scene is for) near "
                      "\"// big\\x0a  \\\"grid\\\": {}\\x0a\"");
    expect_file_error("{\"grid\": /* w */ {}}", ":1:10: invalid JSON: expected a value; JSON has no comments (a "
                      "top-level \"$comment\" string can say what a scene is for) near \"/* w */ {}}\"");
    expect_file_error("{'grid': {}}", ":1:2: invalid JSON: expected a key in double quotes; JSON's strings are in "
                      "double quotes, not single near \"'grid': {}}\"");
    expect_file_error("{\"render\": {\"mode\": 'shaded'}}", ":1:21: invalid JSON: expected a value; JSON's strings are "
                      "in double quotes, not single near \"'shaded'}}\"");
    expect_file_error("{\"a\": 1", ":1:8: invalid JSON: unexpected end of input at the end of the input");
    expect_file_error("{\"a\": 01}", ":1:8: invalid JSON: expected ',' or '}' near \"1}\"");
    expect_file_error("{} x", ":1:4: invalid JSON: unexpected text after the value near \"x\"");
    expect_file_error("", ":1:1: invalid JSON: empty input (the smallest scene is {})");
    expect_file_error("[1, 2]", ":1:1: expected a JSON object at the top level, got [1,2]");
    expect_file_error("\"scene\"", ":1:1: expected a JSON object at the top level, got \"scene\"");
    /* A NUL byte: written by hand, since write_scene stops at the first NUL. */
    FILE *f = fopen(scene_path, "wb");
    assert_non_null(f);
    fwrite("{\n \"a\"\0}", 1, 8, f);
    fclose(f);
    struct scene sc;
    struct rr_err e = { 0 };
    char want[256];
    assert_int_equal(scene_load(&sc, scene_path, NULL, 0, &e), -1);
    snprintf(want, sizeof want, "%s:2:5: invalid JSON: a NUL byte in the text", scene_path);
    assert_string_equal(e.msg, want);
    assert_int_equal(e.status, RR_EXIT_USAGE);
}

static void test_key_errors(void **state)
{
    (void)state;
    expect_file_error("{\"solver\": {\"dampnig\": 0.9}}",
                      ":1:13: solver.dampnig: unknown key \"dampnig\", did you mean \"damping\"?");
    expect_file_error("{\"render\": {\"zoom\": 2}}",
                      ":1:13: render.zoom: unknown key \"zoom\" (known keys: \"mode\", \"colormap\", \"range\", "
                      "\"width\", \"height\", \"obstacle_color\", \"height_scale\", \"light\", "
                      "\"water_color\", \"sky_color\", \"specular\", \"shininess\", \"background\", "
                      "\"refraction\", \"depth\", \"floor\", \"floor_color\", \"reflectivity\", \"alpha\", \"normal_convention\", "
                      "\"video_end\", \"atlas\", \"depth_map\", \"depth_range\")");
    expect_file_error("{\"Grid\": {}}", ":1:2: Grid: unknown key \"Grid\", did you mean \"grid\"?");
    expect_file_error("{\"obstacles\": [{\"type\": \"circle\", \"x\": 1, \"y\": 1, \"width\": 2}]}",
                      ":1:51: obstacles.0.width: unknown key \"width\" for type \"circle\" "
                      "(known keys: \"type\", \"x\", \"y\", \"radius\", \"motion\", \"push\")");
    expect_file_error("{\n  \"grid\": {\"width\": 10,\n           \"width\": 12}\n}",
                      ":3:12: grid.width: duplicate key \"width\" (first at 2:12)");
}

static void test_value_errors(void **state)
{
    (void)state;
    /* wrong type */
    expect_file_error("{\"grid\": 5}", ":1:10: grid: expected an object, got 5");
    expect_file_error("{\"drops\": {}}", ":1:11: drops: expected an array, got {}");
    expect_file_error("{\"obstacles\": [{\"type\": \"mask\", \"path\": \"walls.png\", \"invert\": 1}]}",
                      ":1:64: obstacles.0.invert: expected true or false, got 1");
    /* out of range */
    expect_file_error("{\"time\": {\"fps\": 0}}", ":1:18: time.fps: expected a number in [0.001, 1000], got 0");
    expect_file_error("{\"time\": {\"preroll\": -1}}", ":1:22: time.preroll: expected a number in [0, 86400], got -1");
    expect_file_error("{\"time\": {\"loop\": \"yes\"}}", ":1:19: time.loop: expected true or false, got \"yes\"");
    expect_file_error("{\"grid\": {\"width\": 16384, \"height\": 16385}}",
                      ":1:37: grid.height: expected an integer in [1, 16384], got 16385");
    /* The largest grid is within the 2^28-cell limit. */
    struct scene sc;
    struct rr_err e;
    assert_int_equal(load("{\"grid\": {\"width\": 16384, \"height\": 16384}}", NULL, 0, &sc, &e), 0);
    scene_free(&sc);
}

static void test_value_errors2(void **state)
{
    (void)state;
    expect_file_error("{\"solver\": {\"neighbors\": 6}}", ":1:26: solver.neighbors: expected 4 or 8, got 6");
    expect_file_error("{\"output\": {\"bit_depth\": 12}}", ":1:26: output.bit_depth: expected 8 or 16, got 12 (32: float, for an .exr)");
    expect_file_error("{\"output\": {\"format\": \"nuts\"}}",
                      ":1:23: output.format: expected one of \"y4m\", \"nut\", got \"nuts\"; did you mean \"nut\"?");
    expect_file_error("{\"render\": {\"range\": [1, 1]}}",
                      ":1:22: render.range: expected [low, high] with low < high, got [1,1]");
    expect_file_error("{\"render\": {\"obstacle_color\": [0, 256, 0]}}",
                      ":1:31: render.obstacle_color: expected [r, g, b] with integers in [0, 255] or \"#rrggbb\", "
                      "got [0,256,0]");
    expect_file_error("{\"rain\": {\"radius\": [3, 1]}}",
                      ":1:21: rain.radius: expected a number >= 0 or [min, max] of such numbers with min <= max, "
                      "got [3,1]");
    expect_file_error("{\"rain\": {\"start\": 2, \"end\": 1}}", ":1:30: rain.end: expected a number >= 2, got 1");
    expect_file_error("{\"output\": {\"codec\": \"a-codec-name-that-is-far-too-long\"}}",
                      ":1:22: output.codec: expected a string of at most 31 characters, got "
                      "\"a-codec-name-that-is-far-too-long\"");
    expect_file_error("{\"probes\": [{\"name\": \"\"}]}",
                      ":1:22: probes.0.name: expected a non-empty string of at most 31 characters, got \"\"");
    expect_file_error("{\"probes\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}",
                      ":1:37: probes.1.name: \"a\" is already the name of probes.0");
    /* fraction where an integer is needed; a huge one must not saturate */
    expect_file_error("{\"time\": {\"frames\": 2.5}}", ":1:21: time.frames: expected an integer in [1, 10000000], got 2.5");
    expect_file_error("{\"time\": {\"frames\": 1e300}}",
                      ":1:21: time.frames: expected an integer in [1, 10000000], got 1e+300");
    expect_file_error("{\"drops\": [{\"frame\": 1.5}]}", ":1:22: drops.0.frame: expected an integer in [0, 2147483647], got 1.5");
    expect_file_error("{\"rain\": {\"seed\": -1}}", ":1:19: rain.seed: expected an integer in [0, 9007199254740992], got -1");
    /* non-finite */
    expect_file_error("{\"solver\": {\"type\": \"wave\", \"speed\": -1e400}}",
                      ":1:38: solver.speed: expected a number > 0, got a number too large for a double");
    /* enums */
    expect_file_error("{\"drops\": [{\"shape\": \"square\"}]}",
                      ":1:22: drops.0.shape: expected one of \"point\", \"disc\", \"gaussian\", \"cosine\", got \"square\"");
}

static void test_exclusive_and_pairs(void **state)
{
    (void)state;
    expect_file_error("{\"solver\": {\"damping\": 0.9, \"half_life\": 2}}",
                      ":1:29: solver.half_life: give either solver.damping or solver.half_life, not both");
    expect_file_error("{\"solver\": {\"half_life\": 2, \"damping_shift\": 4}}",
                      ":1:29: solver.damping_shift: give either solver.damping_shift or solver.half_life, not both");
    expect_file_error("{\"drops\": [{\"time\": 1, \"frame\": 3}]}",
                      ":1:24: drops.0.frame: give either drops.0.time or drops.0.frame, not both");
    expect_file_error("{\"oscillators\": [{\"x\": 1, \"to\": [1, 2]}]}",
                      ":1:27: oscillators.0.to: give either x and y (a point source) or from and to (a line source), not both");
    expect_file_error("{\"boundary\": {\"left\": \"wrap\", \"right\": \"fixed\"}}",
                      ":1:14: boundary: \"wrap\" must be set on both left and right (left is \"wrap\", right is \"fixed\")");
    expect_file_error("{\"boundary\": {\"top\": \"clamp\", \"bottom\": \"wrap\"}}",
                      ":1:14: boundary: \"wrap\" must be set on both top and bottom (top is \"clamp\", bottom is \"wrap\")");
    expect_file_error("{\"boundary\": \"sticky\"}",
                      ":1:14: boundary: expected one of \"fixed\", \"clamp\", \"wrap\", \"absorb\", got \"sticky\"");

    /* absorb_width acts on absorb edges only: without one it would do
     * nothing, so it is refused, at either place. */
    expect_file_error("{\"boundary\": \"wrap\", \"absorb_width\": 4}",
                      ":1:22: absorb_width: acts on \"absorb\" edges only, and no edge is \"absorb\" "
                      "(boundary: \"wrap\"); give one or leave absorb_width out, got 4");
    expect_file_error("{\"absorb_width\": 4}",
                      ":1:2: absorb_width: acts on \"absorb\" edges only, and no edge is \"absorb\" "
                      "(boundary: \"fixed\"); give one or leave absorb_width out, got 4");
    expect_file_error("{\"boundary\": {\"left\": \"clamp\", \"absorb_width\": 8}}",
                      ":1:32: boundary.absorb_width: acts on \"absorb\" edges only, and no edge is \"absorb\" "
                      "(boundary: left \"clamp\", right \"fixed\", top \"fixed\", bottom \"fixed\"); give one "
                      "or leave absorb_width out, got 8");

    struct scene sc;
    struct rr_err e;
    assert_int_equal(load("{\"boundary\": {\"top\": \"absorb\"}, \"absorb_width\": 4}", NULL, 0, &sc, &e), 0);
    assert_int_equal(sc.boundary[EDGE_TOP], EDGE_ABSORB);
    assert_int_equal(sc.absorb_width, 4);
    scene_free(&sc);
}

static void test_files(void **state)
{
    (void)state;
    expect_file_error("{\"obstacles\": [\n  {\"type\": \"mask\", \"path\": \"nowhere.png\"}\n]}",
                      ":2:28: obstacles.0.path: cannot open \"nowhere.png\": No such file or directory");
    expect_file_error("{\"initial\": [{\"type\": \"image\"}]}", ":1:14: initial.0: missing required key \"path\"");
    expect_file_error("{\"solver\": {\"type\": \"wave\", \"speed_map\": \"/\"}}", ":1:42: solver.speed_map: cannot open \"/\": Is a directory");

    /* An absolute path stays as given. */
    struct scene sc;
    struct rr_err e;
    char text[256];
    snprintf(text, sizeof text, "{\"obstacles\": [{\"type\": \"mask\", \"path\": \"%s\"}]}", mask_path);
    assert_int_equal(load(text, NULL, 0, &sc, &e), 0);
    assert_string_equal(sc.obstacles[0].path, mask_path);
    scene_free(&sc);

    /* A missing scene file is a usage error that names it. */
    memset(&e, 0, sizeof e);
    assert_int_equal(scene_load(&sc, "/nonexistent/scene.json", NULL, 0, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, "/nonexistent/scene.json: cannot read: No such file or directory");
}

/* Print, load what was printed, print again: the same text and the same scene. */
static void round_trip(const char *text)
{
    struct scene a, b;
    struct rr_err e;
    assert_int_equal(load(text, NULL, 0, &a, &e), 0);
    char *p1 = scene_text(&a);
    assert_non_null(p1);
    assert_int_equal(load(p1, NULL, 0, &b, &e), 0);
    char *p2 = scene_text(&b);
    assert_non_null(p2);
    assert_string_equal(p1, p2);
    assert_int_equal(a.n_drops, b.n_drops);
    for (int i = 0; i < a.n_drops; i++)
        assert_memory_equal(&a.drops[i], &b.drops[i], sizeof a.drops[i]);
    assert_memory_equal(&a.grid, &b.grid, sizeof a.grid);
    assert_memory_equal(&a.time, &b.time, sizeof a.time);
    assert_memory_equal(&a.rain, &b.rain, sizeof a.rain);
    assert_memory_equal(&a.render, &b.render, sizeof a.render);
    assert_memory_equal(a.boundary, b.boundary, sizeof a.boundary);
    assert_true(a.solver.damping == b.solver.damping && a.solver.half_life == b.solver.half_life);
    assert_int_equal(a.solver.damping_shift, b.solver.damping_shift);
    free(p1);
    free(p2);
    scene_free(&a);
    scene_free(&b);
}

static void test_print_round_trip(void **state)
{
    (void)state;
    round_trip("{}");
    round_trip(full_scene);
    round_trip("{\"time\": {\"fps\": 24, \"frames\": 7, \"steps_per_frame\": \"auto\"},"
               " \"solver\": {\"damping_shift\": 4}, \"rain\": {\"start\": 100},"
               " \"drops\": [{\"time\": 0.1}, {\"frame\": 2}], \"boundary\": {\"left\": \"absorb\"}}");

    /* The printed text of {} starts with the grid and holds every section. */
    struct scene sc;
    struct rr_err e;
    assert_int_equal(load("{\"drops\": [{\"frame\": 5}]}", NULL, 0, &sc, &e), 0);
    char *p = scene_text(&sc);
    assert_non_null(p);
    assert_non_null(strstr(p, "\"frame\":\t5"));
    assert_null(strstr(p, "\"time\":\t0"));
    assert_non_null(strstr(p, "\"rain\":\tnull"));
    assert_non_null(strstr(p, "\"obstacles\":\t[]"));
    free(p);
    scene_free(&sc);
}

/* Each solver takes its own keys (every one given here, none a default) and
 * the scene prints and reads back; any key of another solver is refused,
 * naming the solver and the keys that apply (docs/scene.md, "used by"). */
static void test_solver_keys(void **state)
{
    (void)state;
    static const char *const own[] = {
        "{\"solver\": {\"type\": \"elias\", \"damping_shift\": 5, \"neighbors\": 8}}",
        "{\"solver\": {\"type\": \"flow\", \"damping\": 0.9, \"flow\": 0.5}}",
        "{\"solver\": {\"type\": \"spring\", \"damping_shift\": 3, \"blend\": 0.5, \"passes\": 3}}",
        "{\"solver\": {\"type\": \"wave\", \"half_life\": 2, \"speed_map\": \"walls.png\","
        " \"speed_range\": [0.2, 0.4], \"decay\": 0.5}}",
        "{\"solver\": {\"type\": \"spectral\", \"half_life\": 2, \"gravity\": 9.8, \"surface_tension\": 0.07,"
        " \"density\": 998, \"depth\": 0.02, \"viscosity\": 2e-6}}",
    };
    struct scene sc;
    struct rr_err e;
    static const char *const names[] = { "elias", "flow", "spring", "wave", "spectral" };
    char want[160], text[256];
    for (int t = 0; t < 5; t++) {
        assert_int_equal(load(own[t], NULL, 0, &sc, &e), 0);
        assert_string_equal(sc.solver.type->name, names[t]);
        switch (t) {
        case 0: /* elias */ assert_true(sc.solver.damping_shift == 5 && sc.solver.neighbors == 8); break;
        case 1: /* flow */ assert_true(sc.solver.damping == 0.9 && sc.solver.flow == 0.5); break;
        case 2: /* spring */
            assert_true(sc.solver.damping_shift == 3 && sc.solver.blend == 0.5 && sc.solver.passes == 3);
            break;
        case 3: /* wave */
            snprintf(want, sizeof want, "%s/walls.png", tmpdir);
            assert_string_equal(sc.solver.speed_map, want);
            assert_true(sc.solver.half_life == 2 && sc.solver.decay == 0.5);
            assert_true(sc.solver.speed_range[0] == 0.2 && sc.solver.speed_range[1] == 0.4);
            break;
        default: /* spectral */
            assert_true(sc.solver.gravity == 9.8 && sc.solver.surface_tension == 0.07);
            assert_true(sc.solver.density == 998 && sc.solver.depth == 0.02 && sc.solver.viscosity == 2e-6);
        }
        scene_free(&sc);
        round_trip(own[t]);
    }
    /* Every key with a valid value, for every solver that does not use it. */
    static const struct {
        const char *key, *value;
        unsigned by;   /* bit per solver type */
    } keys[] = {
        { "damping", "0.5", 7 }, { "damping_shift", "3", 7 }, { "neighbors", "8", 1 }, { "flow", "0.5", 2 },
        { "blend", "0.5", 4 }, { "passes", "2", 4 }, { "speed", "0.3", 8 }, { "speed_map", "null", 8 },
        { "speed_range", "[0.2, 0.4]", 8 }, { "decay", "1", 8 }, { "gravity", "9", 24 },
        { "surface_tension", "0.07", 16 }, { "density", "998", 16 }, { "depth", "0.1", 24 },
        { "viscosity", "1e-6", 16 }, { "depth_map", "null", 8 }, { "depth_range", "[0.01, 0.1]", 8 },
        { "wavelength", "0.05", 8 }, { "frequency", "2", 8 },
    };
    static const char *const takes[] = {
        "elias takes solver.half_life, solver.damping, solver.damping_shift, solver.neighbors",
        "flow takes solver.half_life, solver.damping, solver.damping_shift, solver.flow",
        "spring takes solver.half_life, solver.damping, solver.damping_shift, solver.blend, solver.passes",
        "wave takes solver.half_life, solver.speed, solver.speed_map, solver.speed_range, solver.decay, "
        "solver.depth, solver.depth_map, solver.depth_range, solver.wavelength, solver.frequency, solver.gravity",
        "spectral takes solver.half_life, solver.gravity, solver.surface_tension, solver.density, "
        "solver.depth, solver.viscosity",
    };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        for (int t = 0; t < 5; t++) {
            if (keys[k].by & (1u << t))
                continue;
            const char *name = names[t];
            snprintf(text, sizeof text, "{\"solver\": {\"type\": \"%s\", \"%s\": %s}}", name, keys[k].key,
                     keys[k].value);
            assert_int_equal(load(text, NULL, 0, &sc, &e), -1);
            assert_int_equal(e.status, RR_EXIT_USAGE);
            snprintf(want, sizeof want, "solver.%s: not used by the %s solver (", keys[k].key, name);
            if (!strstr(e.msg, want) || !strstr(e.msg, scene_path))
                fail_msg("%s: %s", text, e.msg);
            if (keys[k].by == 7)   /* a per-step factor: the solver's own rate instead */
                snprintf(want, sizeof want, "use solver.half_life or solver.%s, got %s",
                         !strcmp(names[t], "wave") ? "decay" : "viscosity", keys[k].value);
            else
                snprintf(want, sizeof want, "; %s, got ", takes[t]);
            if (!strstr(e.msg, want))
                fail_msg("%s: %s", text, e.msg);
            scene_free(&sc);
        }
    /* The position is the key's; a --set key is named as such. */
    expect_file_error("{\"solver\": {\"type\": \"wave\",\n  \"damping\": 0.98}}",
                      ":2:3: solver.damping: not used by the wave solver (a per-step factor); use "
                      "solver.half_life or solver.decay, got 0.98");
    expect_set_error("{\"solver\": {\"type\": \"elias\"}}", "solver.blend=0.5",
                     "--set solver.blend: not used by the elias solver (a key of spring); elias takes "
                     "solver.half_life, solver.damping, solver.damping_shift, solver.neighbors, got 0.5");
    /* the keys are checked against the type --set gives */
    const char *sets[] = { "solver.type=flow" };
    assert_int_equal(load("{\"solver\": {\"neighbors\": 8}}", sets, 1, &sc, &e), -1);
    assert_non_null(strstr(e.msg, ":1:13: solver.neighbors: not used by the flow solver (a key of elias); flow takes "
                                  "solver.half_life, solver.damping, solver.damping_shift, solver.flow, got 8"));
    scene_free(&sc);
}

/* The depth keys: their defaults, what each refuses with its exact message,
 * and print -> load -> print for wave from a depth and a caustics floor map.
 * The files are only checked to be readable here (walls.png, depth.npy). */
static void test_depth_keys(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    char npy[160], text[512];
    snprintf(npy, sizeof npy, "%s/depth.npy", tmpdir);
    FILE *f = fopen(npy, "wb");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(load("{}", NULL, 0, &sc, &e), 0);
    assert_null(sc.solver.depth_map);
    assert_true(sc.solver.depth == 0 && sc.solver.wavelength == 0 && sc.solver.frequency == 0);
    assert_true(sc.solver.depth_range[0] == 0.005 && sc.solver.depth_range[1] == 0.05);
    assert_null(sc.render.depth_map);
    assert_true(sc.render.depth == 30 && sc.render.depth_range[0] == 10 && sc.render.depth_range[1] == 60);
    scene_free(&sc);
    snprintf(text, sizeof text, "{\"solver\": {\"type\": \"wave\", \"depth_map\": \"%s\", \"frequency\": 2}}",
             mask_path);
    assert_int_equal(load(text, NULL, 0, &sc, &e), 0);
    assert_string_equal(sc.solver.depth_map, mask_path);
    assert_true(sc.solver.frequency == 2 && sc.solver.gravity == 9.81);
    scene_free(&sc);
    round_trip(text);
    snprintf(text, sizeof text, "{\"solver\": {\"type\": \"wave\", \"depth_map\": \"%s\"}}", npy);
    round_trip(text);
    round_trip("{\"solver\": {\"type\": \"wave\", \"depth\": 0.2, \"wavelength\": 0.5, \"gravity\": 9.8}}");
    expect_file_error("{\"solver\": {\"type\": \"wave\", \"depth\": 0.1, \"speed\": 0.2}}",
                      ":1:43: solver.speed: give either solver.speed or solver.depth, not both");
    expect_file_error("{\"solver\": {\"type\": \"wave\", \"depth\": 0}}",
                      ":1:38: solver.depth: expected a depth > 0 in m for the wave solver (dry land is an "
                      "obstacle), got 0");
    expect_file_error("{\"solver\": {\"type\": \"wave\", \"wavelength\": 0.1}}",
                      ":1:29: solver.wavelength: used by the wave solver only with solver.depth or "
                      "solver.depth_map");
    expect_file_error("{\"solver\": {\"type\": \"wave\", \"depth\": 0.1, \"gravity\": 0}}",
                      ":1:54: solver.gravity: expected a number > 0 for the wave solver (its speed is "
                      "sqrt(g d)), got 0");
    expect_file_error("{\"solver\": {\"type\": \"wave\", \"depth\": 0.1, \"wavelength\": 1, "
                      "\"frequency\": 1}}",
                      ":1:60: solver.frequency: give either solver.wavelength or solver.frequency, not both");
    expect_file_error("{\"solver\": {\"type\": \"wave\", \"depth\": 0.1, \"depth_range\": [1, 2]}}",
                      ":1:43: solver.depth_range: used only with a PNG solver.depth_map");
    snprintf(text, sizeof text, "{\"solver\": {\"type\": \"wave\", \"depth_map\": \"%s\", \"depth_range\": [1, 2]}}",
             npy);
    char want[256];
    snprintf(want, sizeof want, ":1:%d: solver.depth_range: not used with a .npy solver.depth_map (its values are the "
             "depths in m)", (int)strlen(npy) + 46);
    expect_file_error(text, want);
    expect_file_error("{\"render\": {\"mode\": \"caustics\", \"depth_range\": [1, 2]}}",
                      ":1:33: render.depth_range: used only with a PNG render.depth_map");
    snprintf(text, sizeof text, "{\"render\": {\"mode\": \"caustics\", \"depth_map\": \"%s\", \"depth_range\": [1, 2]}}",
             npy);
    snprintf(want, sizeof want, ":1:%d: render.depth_range: not used with a .npy render.depth_map (its values are the "
             "depths in cells)", (int)strlen(npy) + 50);
    expect_file_error(text, want);
    expect_file_error("{\"render\": {\"mode\": \"caustics\", \"depth_range\": [0, 2]}}",
                      ":1:48: render.depth_range: expected an array of two numbers in (0, 1000000], got [0,2]");
    snprintf(text, sizeof text, "{\"render\": {\"mode\": \"caustics\", \"depth\": 3, \"depth_map\": \"%s\"}}", mask_path);
    expect_file_error(text, ":1:45: render.depth_map: give either render.depth or render.depth_map, not both");
    /* a floor map prints and loads back (its path, and depth_range for a PNG) */
    snprintf(text, sizeof text, "{\"render\": {\"mode\": \"caustics\", \"depth_map\": \"%s\", \"depth_range\": [2, 8]}}",
             mask_path);
    assert_int_equal(load(text, NULL, 0, &sc, &e), 0);
    char *printed = scene_text(&sc);
    assert_non_null(printed);
    assert_non_null(strstr(printed, "\"depth_range\":\t[2, 8]"));
    assert_null(strstr(printed, "\"depth\":\t30"));
    struct scene back;
    assert_int_equal(load(printed, NULL, 0, &back, &e), 0);
    assert_string_equal(back.render.depth_map, mask_path);
    assert_true(back.render.depth_range[0] == 2 && back.render.depth_range[1] == 8);
    free(printed);
    scene_free(&back);
    scene_free(&sc);
    unlink(npy);
}

/* wave's speed comes from `speed`, or from `speed_map` through
 * `speed_range`: a key of the other way would be without effect, so it is
 * refused naming it; the printed scene holds the keys of the way in use and
 * loads back. */
static void test_speed_keys(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    char text[512], want[256];
    expect_file_error("{\"solver\": {\"type\": \"wave\", \"speed_range\": [0.1, 0.3]}}",
                      ":1:29: solver.speed_range: used only with a solver.speed_map (without a map, "
                      "solver.speed is the speed everywhere)");
    expect_set_error("{\"solver\": {\"type\": \"wave\", \"speed\": 0.3}}", "solver.speed_range=[0.1, 0.2]",
                     "--set solver.speed_range: used only with a solver.speed_map (without a map, "
                     "solver.speed is the speed everywhere)");
    snprintf(text, sizeof text, "{\"solver\": {\"type\": \"wave\", \"speed_map\": \"%s\", \"speed\": 0.3}}",
             mask_path);
    snprintf(want, sizeof want, ":1:%d: solver.speed: give either solver.speed or solver.speed_map, not both",
             (int)strlen(mask_path) + 46);
    expect_file_error(text, want);
    /* a null speed_map (as --print-scene writes it) is no map */
    assert_int_equal(load("{\"solver\": {\"type\": \"wave\", \"speed\": 0.3, \"speed_map\": null}}", NULL, 0,
                          &sc, &e), 0);
    assert_null(sc.solver.speed_map);
    assert_true(sc.solver.speed == 0.3);
    char *printed = scene_text(&sc);
    assert_non_null(printed);
    assert_non_null(strstr(printed, "\"speed\":\t0.3"));
    assert_null(strstr(printed, "speed_range"));
    free(printed);
    scene_free(&sc);
    round_trip("{\"solver\": {\"type\": \"wave\", \"speed\": 0.3}}");
    /* with a map: the map and its range, no speed */
    snprintf(text, sizeof text, "{\"solver\": {\"type\": \"wave\", \"speed_map\": \"%s\", \"speed_range\": [0.2, 0.4]}}",
             mask_path);
    assert_int_equal(load(text, NULL, 0, &sc, &e), 0);
    printed = scene_text(&sc);
    assert_non_null(printed);
    assert_non_null(strstr(printed, "\"speed_range\":\t[0.2, 0.4]"));
    assert_null(strstr(printed, "\"speed\":"));
    free(printed);
    scene_free(&sc);
    round_trip(text);
}

/* render.video_end and render.atlas: defaults, an image sequence's name
 * (image 1 when there is no image 0), the printed scene reading back, and
 * the refusals' exact messages. */
static void test_moving_picture_keys(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    assert_int_equal(load("{}", NULL, 0, &sc, &e), 0);
    assert_int_equal(sc.render.video_end, VIDEO_END_HOLD);
    assert_true(sc.render.atlas[0] == 0 && sc.render.atlas[1] == 0);
    scene_free(&sc);

    char dir[160], pic[200], pattern[200];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(scene_path, '/') - scene_path), scene_path);
    snprintf(pic, sizeof pic, "%s/seqpic1.png", dir);
    snprintf(pattern, sizeof pattern, "%s/seqpic%%d.png", dir);
    FILE *f = fopen(pic, "wb");
    assert_non_null(f);
    fclose(f);
    const char *text = "{\"render\": {\"mode\": \"refract\", \"background\": \"seqpic%d.png\","
                       " \"video_end\": \"loop\", \"atlas\": [4, 2]}}";
    assert_int_equal(load(text, NULL, 0, &sc, &e), 0);
    assert_string_equal(sc.render.background, pattern);
    assert_int_equal(sc.render.video_end, VIDEO_END_LOOP);
    assert_true(sc.render.atlas[0] == 4 && sc.render.atlas[1] == 2);
    char *p = scene_text(&sc);
    assert_non_null(p);
    struct scene back;
    assert_int_equal(load(p, NULL, 0, &back, &e), 0);
    assert_string_equal(back.render.background, pattern);
    assert_true(back.render.video_end == VIDEO_END_LOOP && back.render.atlas[0] == 4 && back.render.atlas[1] == 2);
    scene_free(&back);
    free(p);
    scene_free(&sc);
    remove(pic);

    assert_int_equal(scene_pattern_fields("a%04d.png"), 1);
    assert_int_equal(scene_pattern_fields("100%%.png"), 0);
    assert_int_equal(scene_pattern_fields("a%d%d.png"), 2);
    assert_int_equal(scene_pattern_fields("a%s.png"), -1);
    char want[400];
    snprintf(want, sizeof want, ":1:46: render.background: \"seqpic%%d.png\": an image sequence needs image 0 or 1: "
             "cannot open \"%s/seqpic1.png\": No such file or directory", dir);
    expect_file_error("{\"render\": {\"mode\": \"refract\", \"background\": \"seqpic%d.png\"}}", want);
    expect_file_error("{\"render\": {\"mode\": \"refract\", \"video_end\": \"loop\"}}",
                      ":1:45: render.video_end: applies to a video or an image sequence, and render.background is none");
    expect_file_error("{\"render\": {\"mode\": \"caustics\", \"video_end\": \"loop\"}}",
                      ":1:46: render.video_end: applies to a video or an image sequence, and render.floor is none");
    expect_file_error("{\"render\": {\"atlas\": [2, 1025]}}",
                      ":1:22: render.atlas: expected [columns, rows] with integers in [1, 1024], or null, got [2,1025]");
    expect_file_error("{\"render\": {\"atlas\": [2.5, 2]}}",
                      ":1:22: render.atlas: expected [columns, rows] with integers in [1, 1024], or null, got [2.5,2]");
    /* Another mode refuses it, as any key of a mode not its own; hold (what
     * a still shows anyway) is accepted. */
    expect_file_error("{\"render\": {\"video_end\": \"loop\"}}",
                      ":1:13: render.video_end: not used by the height render mode (a key of refract, caustics); "
                      "height takes only the keys of every mode, got \"loop\"");
    assert_int_equal(load("{\"render\": {\"mode\": \"refract\", \"video_end\": \"hold\"}}", NULL, 0, &sc, &e), 0);
    scene_free(&sc);
}

/* The water modes' keys: defaults, every key read, paths resolved against the
 * scene's folder, null for no picture, and the printed scene reads back. */
static void test_render_keys(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    assert_int_equal(load("{}", NULL, 0, &sc, &e), 0);
    const struct render_config *r = &sc.render;
    assert_true(r->height_scale == 1 && r->specular == 1 && r->shininess == 60);
    assert_true(r->light[0] == -1 && r->light[1] == -1 && r->light[2] == 2);
    assert_true(r->refraction == 4 && r->depth == 30 && r->reflectivity == 0.02);
    assert_null(r->background);
    assert_null(r->floor);
    assert_memory_equal(r->water_color, ((unsigned char[3]){ 18, 72, 100 }), 3);
    scene_free(&sc);
    /* "gray", the renderer's alias of "grey" (docs/output.md), is a colormap name too */
    assert_int_equal(load("{\"render\": {\"mode\": \"colormap\", \"colormap\": \"gray\"}}", NULL, 0, &sc, &e), 0);
    assert_string_equal(r->colormap, "gray");
    scene_free(&sc);
    round_trip("{\"render\": {\"mode\": \"colormap\", \"colormap\": \"gray\"}}");
    expect_file_error("{\"render\": {\"mode\": \"colormap\", \"colormap\": \"grau\"}}",
                      ":1:45: render.colormap: expected one of \"grey\", \"viridis\", \"magma\", \"inferno\", "
                      "\"plasma\", \"turbo\", \"coolwarm\", \"balance\", \"ocean\", \"cividis\", got \"grau\"; "
                      "did you mean \"grey\"?");

    char pic[160];
    snprintf(pic, sizeof pic, "%.*s/pic.png", (int)(strrchr(scene_path, '/') - scene_path), scene_path);
    FILE *f = fopen(pic, "wb");
    assert_non_null(f);
    fclose(f);
    /* each mode's own keys: caustics, refract, shaded */
    const char *text = "{\"render\": {\"mode\": \"caustics\", \"height_scale\": 2.5,"
                       " \"depth\": 0, \"floor\": null, \"floor_color\": [9, 8, 7]}}";
    assert_int_equal(load(text, NULL, 0, &sc, &e), 0);
    assert_int_equal(r->mode, RENDER_CAUSTICS);
    assert_true(r->height_scale == 2.5 && r->depth == 0);
    assert_memory_equal(r->floor_color, ((unsigned char[3]){ 9, 8, 7 }), 3);
    assert_null(r->floor);
    char *p = scene_text(&sc);
    assert_non_null(p);
    assert_non_null(strstr(p, "\"floor\":\tnull"));
    assert_non_null(strstr(p, "\"depth\":\t0"));
    assert_null(strstr(p, "\"background\""));   /* refract's, not printed */
    assert_null(strstr(p, "\"water_color\""));  /* shaded's */
    struct scene back;
    assert_int_equal(load(p, NULL, 0, &back, &e), 0);
    assert_memory_equal(back.render.floor_color, r->floor_color, 3);
    scene_free(&back);
    free(p);
    scene_free(&sc);
    text = "{\"render\": {\"mode\": \"refract\", \"light\": [0.5, -1, 3], \"specular\": 0,"
           " \"shininess\": 7, \"background\": \"pic.png\", \"refraction\": -2}}";
    assert_int_equal(load(text, NULL, 0, &sc, &e), 0);
    assert_true(r->specular == 0 && r->shininess == 7 && r->refraction == -2);
    assert_true(r->light[0] == 0.5 && r->light[1] == -1 && r->light[2] == 3);
    assert_string_equal(r->background, pic);
    p = scene_text(&sc);
    assert_non_null(p);
    assert_int_equal(load(p, NULL, 0, &back, &e), 0);
    assert_string_equal(back.render.background, pic);
    assert_true(back.render.light[1] == -1 && back.render.refraction == -2);
    scene_free(&back);
    free(p);
    scene_free(&sc);
    text = "{\"render\": {\"mode\": \"shaded\", \"water_color\": \"#102030\", \"sky_color\": [1, 2, 3]}}";
    assert_int_equal(load(text, NULL, 0, &sc, &e), 0);
    assert_memory_equal(r->water_color, ((unsigned char[3]){ 16, 32, 48 }), 3);
    assert_memory_equal(r->sky_color, ((unsigned char[3]){ 1, 2, 3 }), 3);
    scene_free(&sc);
    remove(pic);

    expect_file_error("{\"render\": {\"mode\": \"shaded\", \"light\": [1, 2]}}",
                      ":1:40: render.light: expected [x, y, z] with numbers in [-1e6, 1e6] and z > 0, got [1,2]");
    expect_file_error("{\"render\": {\"mode\": \"shaded\", \"specular\": -1}}",
                      ":1:43: render.specular: expected a number in [0, 100], got -1");
    expect_file_error("{\"render\": {\"mode\": \"caustics\", \"floor\": 3}}", ":1:42: render.floor: expected a file name, got 3");
}

static void test_steps(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    assert_int_equal(load("{\"time\": {\"fps\": 25, \"frames\": 40, \"steps_per_frame\": 4}}", NULL, 0, &sc, &e), 0);
    assert_true(scene_dt(&sc) == 1.0 / 100.0);
    assert_int_equal(scene_total_steps(&sc), 160);
    assert_int_equal(scene_steps_per_frame(&sc), 4);
    struct moment f = { .is_frame = true, .frame = 7 };
    struct moment t = { .time = 0.5 };
    struct moment r = { .time = 0.126 };   /* 12.6 steps: rounds to 13 */
    assert_int_equal(scene_moment_step(&sc, &f), 28);
    assert_int_equal(scene_moment_step(&sc, &t), 50);
    assert_int_equal(scene_moment_step(&sc, &r), 13);
    scene_free(&sc);
    assert_string_equal(scene_edge_name(EDGE_ABSORB), "absorb");
    assert_string_equal(scene_shape_name(SHAPE_COSINE), "cosine");
    assert_string_equal(scene_render_mode_name(RENDER_CAUSTICS), "caustics");
}

/* JSONTestSuite: n_* must be refused with status 2 and "invalid JSON"; y_*
 * either load (only {}-like texts can) or are refused as scenes, never as
 * JSON; i_* either. Never "out of memory" (a cJSON refusal the strict
 * scanner missed would read so). */
static void test_json_suite(void **state)
{
    (void)state;
    DIR *d = opendir(SUITE_DIR);
    if (!d)
        fail_msg("cannot open %s: the vendored test data is missing", SUITE_DIR);
    int files = 0, loaded = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *name = de->d_name;
        size_t len = strlen(name);
        if (len < 6 || strcmp(name + len - 5, ".json") || name[1] != '_')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", SUITE_DIR, name);
        struct scene sc;
        struct rr_err e = { 0 };
        int rc = scene_load(&sc, path, NULL, 0, &e);
        files++;
        if (rc == 0) {
            if (name[0] == 'n')
                fail_msg("%s: loaded, must be refused", name);
            loaded++;
        } else {
            if (e.status != RR_EXIT_USAGE || strncmp(e.msg, path, strlen(path)) || !strchr(e.msg, ':'))
                fail_msg("%s: status %d, message \"%s\"", name, e.status, e.msg);
            if (strchr(e.msg, '\n'))
                fail_msg("%s: message is more than one line", name);
            /* y_: valid JSON, refused only as a scene; n_: refused as JSON. */
            if (name[0] == 'y' && strstr(e.msg, "invalid JSON"))
                fail_msg("%s: valid JSON refused as invalid: %s", name, e.msg);
            if (name[0] == 'n' && !strstr(e.msg, "invalid JSON"))
                fail_msg("%s: not refused as invalid JSON: %s", name, e.msg);
            if (strstr(e.msg, "out of memory"))
                fail_msg("%s: %s", name, e.msg);
        }
        scene_free(&sc);
    }
    closedir(d);
    assert_int_equal(files, 318);
    assert_int_equal(loaded, 2);   /* y_object_empty and i_structure_UTF-8_BOM_empty_object */
}

/* --preset: a preset alone, a file's keys over it (objects merged, arrays
 * and objects of another type replaced), --set over both, and refusals
 * located in the preset's own text. */
static void test_presets(void **state)
{
    (void)state;
    static const struct scene_preset toy = {
        "toy", "a toy",
        "{\n"
        "  \"grid\": { \"width\": 40, \"height\": 30 },\n"
        "  \"solver\": { \"type\": \"flow\", \"flow\": 0.5 },\n"
        "  \"drops\": [ { \"x\": 5, \"y\": 5 }, { \"x\": 6, \"y\": 6 } ],\n"
        "  \"render\": { \"mode\": \"shaded\", \"specular\": 0.5 }\n"
        "}\n",
    };
    struct scene sc;
    struct rr_err e = { 0 };
    assert_int_equal(scene_load_preset(&sc, &toy, NULL, NULL, 0, &e), 0);
    assert_int_equal(sc.grid.width, 40);
    assert_int_equal(sc.n_drops, 2);
    assert_string_equal(sc.solver.type->name, "flow");
    assert_int_equal(sc.render.mode, RENDER_SHADED);
    assert_string_equal(sc.file, "preset toy");
    assert_string_equal(sc.preset, "toy");
    scene_free(&sc);

    write_scene("{ \"grid\": { \"width\": 50 }, \"drops\": [ { \"x\": 1, \"y\": 1 } ],\n"
                "  \"solver\": { \"type\": \"elias\" }, \"render\": { \"specular\": 0.25 } }");
    const char *sets[] = { "render.mode=refract" };   /* refract reads specular too */
    assert_int_equal(scene_load_preset(&sc, &toy, scene_path, sets, 1, &e), 0);
    assert_int_equal(sc.grid.width, 50);              /* the file's */
    assert_int_equal(sc.grid.height, 30);             /* the preset's, merged */
    assert_int_equal(sc.n_drops, 1);                  /* an array replaces */
    assert_string_equal(sc.solver.type->name, "elias");   /* another type: flow's "flow" gone */
    assert_true(sc.render.specular == 0.25);
    assert_int_equal(sc.render.mode, RENDER_REFRACT);  /* --set over both */
    scene_free(&sc);

    /* the file's value is located in the file, the preset's in the preset */
    write_scene("{ \"render\": { \"specular\": -1 } }");
    assert_int_equal(scene_load_preset(&sc, &toy, scene_path, NULL, 0, &e), -1);
    char want[512];
    snprintf(want, sizeof want, "%s:1:27: render.specular: expected a number in [0, 100], got -1", scene_path);
    assert_string_equal(e.msg, want);
    write_scene("{ \"grid\": { \"width\": 3 } }");
    assert_int_equal(scene_load_preset(&sc, &toy, scene_path, NULL, 0, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, "preset toy:4:34: drops.1: x 6, y 6 with radius 3 is wholly outside the 3 x 30 grid");

    /* a wave preset's speed gives way to a file's or --set's speed_map */
    static const struct scene_preset waves = {
        "waves", "a wave tank",
        "{ \"solver\": { \"type\": \"wave\", \"speed\": 0.1 } }\n",
    };
    char text[256];
    snprintf(text, sizeof text, "{ \"solver\": { \"speed_map\": \"%s\", \"speed_range\": [0.2, 0.4] } }", mask_path);
    write_scene(text);
    assert_int_equal(scene_load_preset(&sc, &waves, scene_path, NULL, 0, &e), 0);
    assert_string_equal(sc.solver.speed_map, mask_path);
    scene_free(&sc);
    char set[200];
    snprintf(set, sizeof set, "solver.speed_map=%s", mask_path);
    const char *map_set[] = { set };
    assert_int_equal(scene_load_preset(&sc, &waves, NULL, map_set, 1, &e), 0);
    assert_string_equal(sc.solver.speed_map, mask_path);
    scene_free(&sc);

    assert_non_null(scene_preset_find("pool", &e));
    assert_null(scene_preset_find("poool", &e));
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "--preset poool: no such preset; did you mean \"pool\"?"));
}

/* The values a warning quotes (scene_origin.value through scene_key_given
 * and scene_section_given): compact JSON as the file or --set gave it, a
 * long one cut to 60 characters and "...", each key counted once. */
static void test_given_values(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e;
    char value[64], where[320], key[64];
    const char *sets[] = { "output.path=a b.npy", "render.light=[0.5,-1,2e-3]" };
    assert_int_equal(load("{\"render\": {\"mode\": \"shaded\",\n \"specular\": 0.25},\n"
                          " \"output\": {\"crf\": 18, \"codec\": \"x\\ty\"}}",
                          sets, 2, &sc, &e), 0);
    assert_int_equal(scene_key_given(&sc, "output.path", value, sizeof value, where, sizeof where), 2);
    assert_string_equal(value, "\"a b.npy\"");
    assert_string_equal(where, "--set ");
    assert_int_equal(scene_key_given(&sc, "output.codec", value, sizeof value, where, sizeof where), 1);
    assert_string_equal(value, "\"x\\ty\"");   /* the tab written back as JSON's escape */
    assert_string_equal(strrchr(where, '/'), "/s.json:3:33: ");
    assert_int_equal(scene_key_given(&sc, "output.crf", value, sizeof value, where, sizeof where), 1);
    assert_string_equal(value, "18");
    assert_int_equal(scene_key_given(&sc, "output.preset", value, sizeof value, where, sizeof where), 0);
    assert_int_equal(scene_section_given(&sc, "render", key, sizeof key, value, sizeof value, where, sizeof where), 3);
    assert_string_equal(key, "render.mode");
    assert_string_equal(value, "\"shaded\"");
    assert_string_equal(strrchr(where, '/'), "/s.json:1:21: ");
    scene_free(&sc);
    const char *light[] = { "render.light=[0.5,-1,2e-3]", "render.mode=shaded" };
    assert_int_equal(load("{}", light, 2, &sc, &e), 0);
    assert_int_equal(scene_section_given(&sc, "render", key, sizeof key, value, sizeof value, where, sizeof where), 2);
    assert_string_equal(key, "render.light");
    assert_string_equal(value, "[0.5,-1,0.002]");
    scene_free(&sc);
    /* a file key counted once though it has two origins (its member's and
     * get_file's) */
    char bg_set[160];
    snprintf(bg_set, sizeof bg_set, "render.background=%s", mask_path);
    const char *bg[] = { bg_set, "render.mode=refract" };
    assert_int_equal(load("{}", bg, 2, &sc, &e), 0);
    assert_int_equal(scene_section_given(&sc, "render", key, sizeof key, value, sizeof value, where, sizeof where), 2);
    assert_string_equal(key, "render.background");
    scene_free(&sc);
    /* the first named is the first in reading order: the file's by place
     * (its file keys' origins are recorded before its members'), then
     * --set's */
    char text[256];
    snprintf(text, sizeof text, "{\"render\": {\"mode\": \"refract\", \"background\": \"%s\"}}",
             strrchr(mask_path, '/') + 1);
    const char *width[] = { "render.width=8" };
    assert_int_equal(load(text, width, 1, &sc, &e), 0);
    assert_int_equal(scene_section_given(&sc, "render", key, sizeof key, value, sizeof value, where, sizeof where), 3);
    assert_string_equal(key, "render.mode");
    assert_string_equal(value, "\"refract\"");
    assert_string_equal(strrchr(where, '/'), "/s.json:1:21: ");
    scene_free(&sc);
    /* a long value: its first 60 characters (the 60th the name's "."), then "..." */
    const char *long_path[] = { "output.path=out/0123456789/0123456789/0123456789/0123456789/0123456789.npy" };
    assert_int_equal(load("{}", long_path, 1, &sc, &e), 0);
    assert_int_equal(scene_key_given(&sc, "output.path", value, sizeof value, where, sizeof where), 2);
    assert_string_equal(value, "\"out/0123456789/0123456789/0123456789/0123456789/0123456789....");
    scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_element_defaults),
        cmocka_unit_test(test_every_key),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_set_lenient_numbers),
        cmocka_unit_test(test_suggestions),
        cmocka_unit_test(test_outside_grid),
        cmocka_unit_test(test_locate),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_key_errors),
        cmocka_unit_test(test_value_errors),
        cmocka_unit_test(test_value_errors2),
        cmocka_unit_test(test_exclusive_and_pairs),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_print_round_trip),
        cmocka_unit_test(test_solver_keys),
        cmocka_unit_test(test_depth_keys),
        cmocka_unit_test(test_speed_keys),
        cmocka_unit_test(test_render_keys),
        cmocka_unit_test(test_moving_picture_keys),
        cmocka_unit_test(test_steps),
        cmocka_unit_test(test_json_suite),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_given_values),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

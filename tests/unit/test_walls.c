/* test_walls.c: moving walls (docs/scene.md, "Moving walls"): the water a
 * moving wall displaces on a hand-computed grid, a rect's motion step by step,
 * a mask sequence held and looped, its errors; then physics: a paddle in still
 * water makes waves (more ahead than behind, linear in push), and a wall
 * moving towards a plane wave's source reflects it Doppler-shifted,
 * f' = f (c + v) / (c - v). Scenes are loaded from JSON text. */
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

#include "gray_png.h"
#include "obstacles.h"
#include "scene.h"
#include "sim.h"
#include "scene_text.h"
#include "sim_fixture.h"

/* The mask as '#' and '.', w characters per row, rows ended by '\n'. */
static const char *show(const unsigned char *m, int w, int h)
{
    static char buf[256];
    size_t k = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            buf[k++] = m[y * w + x] ? '#' : '.';
        buf[k++] = '\n';
    }
    buf[k] = '\0';
    return buf;
}

/* A one-cell wall at (1, 1) of a 4 x 3 grid jumps to (2, 1), push 0.75
 * (a mask sequence's next file). cur is 1 and prev 0.5 in the water; the
 * cell covered holds 0.75 in both. The uncovered cell (1, 1) has the water
 * neighbours (0, 1), (1, 0), (1, 2): it starts at rest at their mean height
 * in cur, 1, in both planes, and they give up 0.75 / 3 = 0.25 each. The
 * covered cell's water, 0.75 + 0.75 = 1.5 per plane, goes to (3, 1), (2, 0),
 * (2, 2) — (1, 1), just uncovered, takes no share — 0.5 each. */
static void test_displace(void **state)
{
    (void)state;
    enum { W = 4, H = 3 };
    unsigned char mask[W * H] = { 0 };
    mask[1 * W + 2] = 1;   /* after the jump */
    float cur[W * H], prev[W * H];
    for (int k = 0; k < W * H; k++) {
        cur[k] = 1.0f;
        prev[k] = 0.5f;
    }
    cur[1 * W + 1] = prev[1 * W + 1] = 0.0f;     /* the wall before */
    cur[1 * W + 2] = prev[1 * W + 2] = 0.75f;    /* the water it covers */
    const struct wall_change c[2] = { { 1 * W + 1, false, 0.75f }, { 1 * W + 2, true, 0.75f } };
    walls_displace(c, 2, mask, W, H, cur, prev, W);
    const float want_cur[W * H] = {
        1.0f, 0.75f, 1.5f, 1.0f,
        0.75f, 1.0f, 0.75f, 1.5f,   /* (2, 1) keeps its value: sim.c zeroes walls after */
        1.0f, 0.75f, 1.5f, 1.0f,
    };
    const float want_prev[W * H] = {
        0.5f, 0.25f, 1.0f, 0.5f,
        0.25f, 1.0f, 0.75f, 1.0f,
        0.5f, 0.25f, 1.0f, 0.5f,
    };
    for (int k = 0; k < W * H; k++) {
        assert_true(cur[k] == want_cur[k]);
        assert_true(prev[k] == want_prev[k]);
    }
    assert_string_equal(show(mask, W, H), "....\n..#.\n....\n");   /* the marks are gone */
    /* Without prev (spectral): cur alone, the same values. */
    for (int k = 0; k < W * H; k++)
        cur[k] = 1.0f;
    cur[1 * W + 1] = 0.0f;
    cur[1 * W + 2] = 0.75f;
    walls_displace(c, 2, mask, W, H, cur, NULL, W);
    for (int k = 0; k < W * H; k++)
        assert_true(cur[k] == want_cur[k]);
}

/* A 2 x 1 rect moving right one cell per step (fps 1, 1 step per frame:
 * dt = 1 s) from time 1 to 3, on a 6 x 2 grid: x + dx <= i < x + dx + 2. */
static void test_moving_rect(void **state)
{
    (void)state;
    struct scene sc;
    load_ok(&sc, "{\"grid\": {\"width\": 6, \"height\": 2}, \"time\": {\"fps\": 1, \"frames\": 6, "
                 "\"steps_per_frame\": 1}, \"obstacles\": [{\"type\": \"rect\", \"x\": 0, \"y\": 1, \"width\": 2, "
                 "\"height\": 1, \"motion\": [[1, 0, 0], [3, 2, 0]], \"push\": 0.25}, "
                 "{\"type\": \"rect\", \"x\": 5, \"y\": 0, \"width\": 1, \"height\": 1}]}");
    unsigned char mask[12] = { 0 };
    struct walls *w = NULL;
    struct rr_err e = { 0 };
    assert_int_equal(walls_create(&w, &sc, mask, &e), 0);
    assert_true(walls_moving(w));
    assert_string_equal(show(mask, 6, 2), ".....#\n##....\n");
    /* floor(1 / dt) = 1 to ceil(3 / dt) + 1 = 4 */
    assert_int_equal(walls_next_change(w, 0), 1);
    assert_int_equal(walls_next_change(w, 3), 3);
    assert_int_equal(walls_next_change(w, 5), LLONG_MAX);
    const char *want[] = { ".....#\n##....\n", ".....#\n.##...\n", ".....#\n..##..\n", ".....#\n..##..\n" };
    for (int s = 1; s <= 4; s++) {
        assert_int_equal(walls_update(w, s, mask, false, &e), 0);
        assert_string_equal(show(mask, 6, 2), want[s - 1]);
        size_t n;
        const struct wall_change *c = walls_changes(w, &n);
        size_t nf;
        const struct wall_flux *fl = walls_flux(w, &nf);
        if (s == 2 || s == 3) {
            /* one uncovered behind, one covered ahead, row-major; a motion
             * pushes by its faces, not by the cells it crosses */
            assert_int_equal(n, 2);
            assert_int_equal(c[0].cell, 6 + s - 2);
            assert_false(c[0].covered);
            assert_int_equal(c[1].cell, 6 + s);
            assert_true(c[1].covered);
            assert_true(c[1].push == 0.0f);
            /* v = 1 cell per step: the cell behind the left face gives
             * push * 1, the one beyond the right face gets it; the faces
             * along the motion (up) push nothing */
            assert_int_equal(nf, 2);
            assert_int_equal(fl[0].cell, 6 + s - 2);
            assert_true(fl[0].amount == -0.25f);
            assert_int_equal(fl[1].cell, 6 + s + 1);
            assert_true(fl[1].amount == 0.25f);
        } else {
            /* still: at step 1 and 4 the offset is the step before's */
            assert_int_equal(n, 0);
            assert_int_equal(nf, 0);
        }
    }
    /* A restart at step 2 draws the same walls from nothing. */
    memset(mask, 0, sizeof mask);
    assert_int_equal(walls_update(w, 2, mask, true, &e), 0);
    assert_string_equal(show(mask, 6, 2), ".....#\n.##...\n");
    walls_free(w);
    scene_free(&sc);
}

/* Three 3 x 1 masks, file k walling cell k; 5 frames of 2 steps: step s
 * shows frame s / 2, which shows file min(frame, 2) (hold) or frame % 3 (loop). */
static void test_sequence(void **state)
{
    (void)state;
    char name[128];
    for (int k = 0; k < 3; k++) {
        unsigned char px[3] = { 0, 0, 0 };
        px[k] = 255;
        snprintf(name, sizeof name, "%s/m_%02d.png", tmpdir, k);
        write_gray_png(name, 3, 1, px);
    }
    const char *repeat[2] = { "hold", "loop" };
    const int file[2][5] = { { 0, 1, 2, 2, 2 }, { 0, 1, 2, 0, 1 } };
    for (int r = 0; r < 2; r++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"grid\": {\"width\": 3, \"height\": 1}, \"time\": {\"fps\": 10, \"frames\": 5, "
                 "\"steps_per_frame\": 2}, \"obstacles\": [{\"type\": \"mask\", \"path\": \"m_%%02d.png\", "
                 "\"repeat\": \"%s\"}]}",
                 repeat[r]);
        struct scene sc;
        load_ok(&sc, json);
        assert_int_equal(sc.obstacles[0].n_frames, 3);
        unsigned char mask[3] = { 0 };
        struct walls *w = NULL;
        struct rr_err e = { 0 };
        assert_int_equal(walls_create(&w, &sc, mask, &e), 0);
        for (int s = 0; s < 10; s++) {
            if (s > 0)
                assert_int_equal(walls_update(w, s, mask, false, &e), 0);
            char want[5] = "...\n";
            want[file[r][s / 2]] = '#';
            assert_string_equal(show(mask, 3, 1), want);
        }
        /* changes only at frame boundaries: hold ends after the last file */
        assert_int_equal(walls_next_change(w, 1), 2);
        assert_int_equal(walls_next_change(w, 5), r ? 6 : LLONG_MAX);
        walls_free(w);
        scene_free(&sc);
    }
}

static void test_sequence_errors(void **state)
{
    (void)state;
    char name[128];
    unsigned char px[4] = { 0 };
    snprintf(name, sizeof name, "%s/s_0.png", tmpdir);
    write_gray_png(name, 2, 2, px);
    snprintf(name, sizeof name, "%s/s_1.png", tmpdir);
    write_gray_png(name, 2, 1, px);
    struct scene sc;
    struct rr_err e = { 0 };
    load_ok(&sc, "{\"grid\": {\"width\": 2, \"height\": 2}, \"time\": {\"frames\": 4}, "
                 "\"obstacles\": [{\"type\": \"mask\", \"path\": \"s_%d.png\"}]}");
    unsigned char mask[4] = { 0 };
    struct walls *w = NULL;
    assert_int_equal(walls_create(&w, &sc, mask, &e), -1);
    assert_null(w);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "obstacles.0.path: "));
    assert_non_null(strstr(e.msg, "s_1.png is 2 x 1 pixels, unlike "));
    assert_non_null(strstr(e.msg, "s_0.png (2 x 2)"));
    scene_free(&sc);
    /* a missing first file, and a gap before a file that follows */
    assert_int_equal(load(&sc, "{\"obstacles\": [{\"type\": \"mask\", \"path\": \"none_%d.png\"}]}", &e), -1);
    assert_non_null(strstr(e.msg, "obstacles.0.path: no file \"none_0.png\" for frame 0"));
    snprintf(name, sizeof name, "%s/s_1.png", tmpdir);
    remove(name);
    snprintf(name, sizeof name, "%s/s_2.png", tmpdir);
    write_gray_png(name, 2, 2, px);
    assert_int_equal(load(&sc, "{\"time\": {\"frames\": 9}, \"obstacles\": [{\"type\": \"mask\", \"path\": "
                               "\"s_%d.png\"}]}", &e), -1);
    assert_non_null(strstr(e.msg, "obstacles.0.path: no file \"s_1.png\" for frame 1, but \"s_2.png\" follows"));
    /* a file whose name has a '%' but no frame number field is one mask */
    snprintf(name, sizeof name, "%s/100%%.png", tmpdir);
    write_gray_png(name, 2, 2, px);
    load_ok(&sc, "{\"obstacles\": [{\"type\": \"mask\", \"path\": \"100%.png\"}]}");
    assert_false(sc.obstacles[0].sequence);
    scene_free(&sc);
    /* only as many files as frames are looked for: 1 frame needs s_0 alone */
    load_ok(&sc, "{\"time\": {\"frames\": 1}, \"obstacles\": [{\"type\": \"mask\", \"path\": \"s_%d.png\"}]}");
    assert_int_equal(sc.obstacles[0].n_frames, 1);
    scene_free(&sc);
}

/* The sum of h^2 over columns [x0, x1) of the field. */
static double energy(const struct field *f, int x0, int x1)
{
    double sum = 0;
    for (int y = 0; y < f->h; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < f->w; x++)
            sum += (double)f->cur[y * f->stride + x] * (double)f->cur[y * f->stride + x];
    return sum;
}

#define PADDLE_FMT "{\"grid\": {\"width\": 240, \"height\": 120}, \"time\": {\"fps\": 20, \"frames\": 200}," \
    " \"solver\": {\"type\": \"elias\", \"damping\": 1}, \"boundary\": \"absorb\"," \
    " \"obstacles\": [{\"type\": \"rect\", \"x\": 80, \"y\": 40, \"width\": 4, \"height\": 40," \
    " \"motion\": [[0, 0, 0], [8, %g, 0]], \"push\": %g}]}"

/* A 4 x 40 paddle in a 240 x 120 tank of still water (elias, no damping,
 * absorbing edges) moving right at U cells/s for 8 s: with U = 0 the water
 * stays exactly still; moving, it makes waves (RMS above zero), and the
 * field is linear in push: push 1 gives exactly twice push 0.5's heights (a
 * factor of 2 is exact in floating point). The energy ahead and behind is
 * printed: walls hold height 0, so the back face, which leaves its near field
 * behind at each cell it crosses, makes most of a steady paddle's waves
 * (docs/scene.md, "Moving walls"). */
static void test_paddle(void **state)
{
    (void)state;
    const double speeds[] = { 0, 2 };
    for (int k = 0; k < 2; k++) {
        double U = speeds[k];
        struct scene a, b;
        char json[600];
        snprintf(json, sizeof json, PADDLE_FMT, 8 * U, 0.5);
        load_ok(&a, json);
        snprintf(json, sizeof json, PADDLE_FMT, 8 * U, 1.0);
        load_ok(&b, json);
        struct sim *sa = make(&a), *sb = make(&b);
        double ahead = 0, behind = 0;
        for (int fr = 1; fr <= 160; fr++) {
            advance(sa);
            advance(sb);
            if (fr % 10 == 0 && fr >= 120) {
                int px = 80 + (int)(U * 8);   /* the paddle's first column from t = 8 s */
                ahead += energy(sim_field(sa), px + 5, 240);
                behind += energy(sim_field(sa), 0, px);
            }
        }
        const struct field *fa = sim_field(sa), *fb = sim_field(sb);
        for (int y = 0; y < fa->h; y++)
            for (int x = 0; x < fa->w; x++)
                assert_true(fb->cur[y * fb->stride + x] == 2 * fa->cur[y * fa->stride + x]);
        if (U == 0) {
            assert_true(ahead == 0 && behind == 0);
        } else {
            double rms = sqrt((ahead + behind) / (5.0 * 240 * 120));
            print_message("paddle U=%g: rms %.4f, energy ahead %.3f, behind %.3f\n", U, rms, ahead, behind);
            assert_true(rms > 1e-3);
        }
        sim_free(sa);
        sim_free(sb);
        scene_free(&a);
        scene_free(&b);
    }
}

/* A wave maker: a full-height paddle in the 1-D channel (wave solver, c = 10
 * cells/s) swinging 1.5 sin(2 pi 0.5 t) cells (keyframes every 0.1 s), push
 * 0.5. The first wave (|h| > 0.01) reaches x = 400 after the 296 cells
 * from the paddle's face at 10 cells/s, 29.6 s (within [29.3, 31] s: the
 * stroke, the front's rise); between t = 20 and 40 s the height's spectrum
 * there (a DFT at 0.05 Hz steps from 0.1 to 3 Hz) peaks at the paddle's
 * 0.5 Hz. */
static void test_wavemaker(void **state)
{
    (void)state;
    char *json = malloc(16384);
    assert_non_null(json);
    int n = snprintf(json, 16384,
                     "{\"grid\": {\"width\": 600, \"height\": 4, \"cell_size\": 1}, \"time\": {\"fps\": 20,"
                     " \"frames\": 801, \"steps_per_frame\": 2}, \"solver\": {\"type\": \"wave\", \"speed\": 10,"
                     " \"decay\": 0}, \"boundary\": {\"left\": \"absorb\", \"right\": \"absorb\", \"top\": \"wrap\","
                     " \"bottom\": \"wrap\"}, \"obstacles\": [{\"type\": \"rect\", \"x\": 100, \"y\": 0,"
                     " \"width\": 4, \"height\": 4, \"push\": 0.5, \"motion\": [");
    for (int k = 0; k <= 400; k++)
        n += snprintf(json + n, (size_t)(16384 - n), "%s[%g, %.4f, 0]", k ? ", " : "", k * 0.1,
                      1.5 * sin(2 * M_PI * 0.5 * k * 0.1));
    snprintf(json + n, (size_t)(16384 - n), "]}]}");
    struct scene sc;
    load_ok(&sc, json);
    free(json);
    struct sim *s = make(&sc);
    static double h[401];
    int first = -1;
    for (int fr = 1; fr <= 800; fr++) {
        advance(s);
        double v = sim_field(s)->cur[sim_field(s)->stride + 400];
        if (first < 0 && fabs(v) > 1e-2)
            first = fr;
        if (fr >= 400)
            h[fr - 400] = v;
    }
    print_message("wavemaker: first wave at x = 400 at %.2f s\n", first / 20.0);
    assert_true(first / 20.0 > 29.3 && first / 20.0 < 31);
    double best = 0, best_f = 0;
    for (int q = 2; q <= 60; q++) {
        double f = q * 0.05, re = 0, im = 0;
        for (int k = 0; k <= 400; k++) {
            re += h[k] * cos(2 * M_PI * f * (20 + k / 20.0));
            im += h[k] * sin(2 * M_PI * f * (20 + k / 20.0));
        }
        if (hypot(re, im) > best) {
            best = hypot(re, im);
            best_f = f;
        }
    }
    print_message("wavemaker: spectrum peaks at %.2f Hz\n", best_f);
    assert_true(fabs(best_f - 0.5) < 1e-9);
    sim_free(s);
    scene_free(&sc);
}

#define DOPPLER_FMT "{\"grid\": {\"width\": 600, \"height\": 4, \"cell_size\": 1}, \"time\": {\"fps\": 20," \
    " \"frames\": 2001, \"steps_per_frame\": 2}, \"solver\": {\"type\": \"wave\", \"speed\": 10," \
    " \"decay\": 0}, \"boundary\": {\"left\": \"absorb\", \"right\": \"absorb\", \"top\": \"wrap\"," \
    " \"bottom\": \"wrap\"}, \"oscillators\": [{\"from\": [50, -1], \"to\": [50, 5], \"radius\": 0," \
    " \"amplitude\": 0.1, \"frequency\": 0.25, \"shape\": \"point\"}], \"obstacles\": [%s]}"

/* A plane wave of f = 0.25 Hz (wave solver, c = 10 cells/s, a 600 x 4
 * channel wrapped top to bottom: 1-D) meets a full-height wall: still at
 * x = 450, or starting at x = 550 and moving left at v cells/s; push 0 (a
 * moving mirror). The
 * reflection at x = 300 is this run less the run without the wall (the
 * solver is linear); its frequency from upward zero crossings between t = 60
 * and 100 s (after the reflection's front passed, before it comes back from
 * the source): f (c + v) / (c - v) within 1 %: 0.25 Hz for a still wall,
 * 0.375 Hz for v = 2. */
static void test_doppler(void **state)
{
    (void)state;
    char json[1024], wall[200];
    struct scene open_sc;
    snprintf(json, sizeof json, DOPPLER_FMT, "");
    load_ok(&open_sc, json);
    const double speeds[] = { 0, 2 };
    for (int k = 0; k < 2; k++) {
        double v = speeds[k];
        struct scene sc;
        snprintf(wall, sizeof wall,
                 "{\"type\": \"rect\", \"x\": %g, \"y\": 0, \"width\": 10, \"height\": 4,"
                 " \"motion\": [[0, 0, 0], [100, %g, 0]], \"push\": 0}", v ? 550.0 : 450.0, -100 * v);
        snprintf(json, sizeof json, DOPPLER_FMT, wall);
        load_ok(&sc, json);
        struct sim *s = make(&sc), *o = make(&open_sc);
        double prev = 0, first = -1, last = -1;
        int ups = 0;
        for (int fr = 1; fr <= 2000; fr++) {
            advance(s);
            advance(o);
            const struct field *fs = sim_field(s), *fo = sim_field(o);
            double d = (double)fs->cur[fs->stride + 300] - (double)fo->cur[fo->stride + 300], t = fr / 20.0;
            if (t > 60 && t <= 100 && prev < 0 && d >= 0) {
                double at = t - 0.05 * d / (d - prev);
                if (first < 0)
                    first = at;
                last = at;
                ups++;
            }
            prev = d;
        }
        double f = (ups - 1) / (last - first), want = 0.25 * (10 + v) / (10 - v);
        print_message("doppler v=%g: %d crossings, f %.5f Hz, theory %.5f\n", v, ups, f, want);
        assert_true(ups >= 8);
        assert_true(fabs(f / want - 1) < 0.01);
        sim_free(s);
        sim_free(o);
        scene_free(&sc);
    }
    scene_free(&open_sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_displace),
        cmocka_unit_test(test_moving_rect),
        cmocka_unit_test(test_sequence),
        cmocka_unit_test(test_sequence_errors),
        cmocka_unit_test(test_paddle),
        cmocka_unit_test(test_wavemaker),
        cmocka_unit_test(test_doppler),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

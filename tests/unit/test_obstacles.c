/* test_obstacles.c: each obstacle shape rasterised on a small grid against a
 * hand-drawn mask ('#' wall, '.' water), and PNG masks with thresholds and
 * invert (PNGs written by the test into a temporary folder). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gray_png.h"
#include "hand_scene.h"
#include "obstacles.h"

static void grid(struct scene *sc, int w, int h)
{
    hand_scene(sc, w, h, 0, 0, 0);
}

/* Rasterises one obstacle on a w x h grid and compares with `want`, w
 * characters per row. */
static void expect(const struct obstacle *o, int w, int h, const char *want)
{
    struct scene sc;
    struct rr_err e = { 0 };
    grid(&sc, w, h);
    sc.obstacles = (struct obstacle *)o;
    sc.n_obstacles = 1;
    unsigned char *walls = calloc((size_t)w * h, 1);
    assert_non_null(walls);
    if (obstacles_rasterize(&sc, walls, &e) < 0)
        fail_msg("%s", e.msg);
    char got[512] = "";
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            strncat(got, walls[y * w + x] ? "#" : ".", 2);
        strncat(got, "\n", 2);
    }
    assert_string_equal(got, want);
    free(walls);
}

static void test_rect(void **state)
{
    (void)state;
    /* x <= i < x + width: x = 1.5, width 3 -> i = 2, 3, 4; y = 1, height 2 -> j = 1, 2. */
    struct obstacle o = { .type = OBST_RECT, .x = 1.5, .y = 1, .width = 3, .height = 2 };
    expect(&o, 7, 4, ".......\n..###..\n..###..\n.......\n");
    /* clipped at the grid's edges */
    struct obstacle c = { .type = OBST_RECT, .x = -2, .y = 2, .width = 4, .height = 10 };
    expect(&c, 5, 4, ".....\n.....\n##...\n##...\n");
}

static void test_circle(void **state)
{
    (void)state;
    /* radius 1.5 around (3, 2): d^2 <= 2.25 takes the centre, its 4 neighbours
     * and the 4 diagonals (d^2 = 2), not (3 +- 2, 2) (d^2 = 4). */
    struct obstacle o = { .type = OBST_CIRCLE, .x = 3, .y = 2, .radius = 1.5 };
    expect(&o, 7, 5, ".......\n..###..\n..###..\n..###..\n.......\n");
    /* radius 2: adds the 4 cells at distance 2 */
    o.radius = 2;
    expect(&o, 7, 5, "...#...\n..###..\n.#####.\n..###..\n...#...\n");
}

static void test_polygon(void **state)
{
    (void)state;
    /* The triangle (0.5, 0.5) (6.5, 0.5) (0.5, 6.5): centres (i, j) with
     * i + j < 7, i, j >= 1 (the hypotenuse x + y = 7 passes through centres
     * and, with the half-open crossing rule, leaves them out). */
    double pts[3][2] = { { 0.5, 0.5 }, { 6.5, 0.5 }, { 0.5, 6.5 } };
    struct obstacle o = { .type = OBST_POLYGON, .points = pts, .n_points = 3 };
    expect(&o, 7, 7,
           ".......\n"
           ".#####.\n"
           ".####..\n"
           ".###...\n"
           ".##....\n"
           ".#.....\n"
           ".......\n");
    /* Even-odd: a self-crossing bow tie keeps both lobes. Its diagonals cross
     * row j at x = 0.5 + 1.5 (j - 0.5) and 6.5 - 1.5 (j - 0.5): row 1 keeps
     * i = 1 (left of 1.25) and i = 6 (right of 5.75, left of the edge 6.5);
     * rows 2 and 3 keep i = 1, 2 and 5, 6; the centre (3.5, 2.5) is where they cross. */
    double bow[4][2] = { { 0.5, 0.5 }, { 6.5, 4.5 }, { 6.5, 0.5 }, { 0.5, 4.5 } };
    struct obstacle b = { .type = OBST_POLYGON, .points = bow, .n_points = 4 };
    expect(&b, 7, 5,
           ".......\n"
           ".#....#\n"
           ".##..##\n"
           ".##..##\n"
           ".#....#\n");
}

static void test_line(void **state)
{
    (void)state;
    /* From (1, 2) to (5, 2), width 1: centres within 1/2 of the segment: the
     * row j = 2 from i = 1 to 5 (j = 1, 3 are at distance 1). */
    struct obstacle o = { .type = OBST_LINE, .from = { 1, 2 }, .to = { 5, 2 }, .width = 1 };
    expect(&o, 7, 5, ".......\n.......\n.#####.\n.......\n.......\n");
    /* width 0 counts as 1; width 2: distance 1 allowed, the ends rounded:
     * (0, 2) and (6, 2) are at distance 1 from the ends. */
    o.width = 2;
    expect(&o, 7, 5, ".......\n.#####.\n#######\n.#####.\n.......\n");
    /* A diagonal from (0, 0) to (4, 4), width 1: the diagonal cells only
     * (neighbours are at distance 0.707). */
    struct obstacle d = { .type = OBST_LINE, .from = { 0, 0 }, .to = { 4, 4 }, .width = 0 };
    expect(&d, 5, 5, "#....\n.#...\n..#..\n...#.\n....#\n");
}

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/rr_obst_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char p[128];
    snprintf(p, sizeof p, "%s/m.png", tmpdir);
    unlink(p);
    rmdir(tmpdir);
    return 0;
}

static void test_mask(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/m.png", tmpdir);
    /* 4 x 2 grey: 0 127 128 255 / 255 200 50 128; 128 reads 128/255 = 0.502. */
    const unsigned char px[8] = { 0, 127, 128, 255, 255, 200, 50, 128 };
    write_gray_png(path, 4, 2, px);
    struct obstacle o = { .type = OBST_MASK, .path = path, .threshold = 0.5 };
    expect(&o, 4, 2, "..##\n##.#\n");
    o.invert = true;
    expect(&o, 4, 2, "##..\n..#.\n");
    o.invert = false;
    o.threshold = 0.8;   /* 200/255 = 0.784 is below */
    expect(&o, 4, 2, "...#\n#...\n");
    /* Resampled to an 8 x 4 grid: cell centres map to source coordinates
     * (i + 0.5) / 2 - 0.5, i.e. -0.25 (clamped to 0), 0.25, 0.75, ... 3.25
     * (clamped to 3). Threshold 0.99 keeps only cells whose bilinear value is
     * still 1: (7, 0) is pixel (3, 0) alone, (0, 3) pixel (0, 1) alone; the
     * rows between blend them with 128 and 0 at 1/4 and fall below. */
    o.threshold = 0.99;
    expect(&o, 8, 4, ".......#\n........\n........\n#.......\n");
}

static void test_mask_errors(void **state)
{
    (void)state;
    struct scene sc;
    struct rr_err e = { 0 };
    unsigned char walls[4] = { 0 };
    struct obstacle o[3] = {
        { .type = OBST_RECT, .x = 0, .y = 0, .width = 1, .height = 1 },
        { .type = OBST_CIRCLE, .x = 9, .y = 9, .radius = 1 },
        { .type = OBST_MASK, .path = "/nonexistent/walls.png", .threshold = 0.5 },
    };
    grid(&sc, 2, 2);
    sc.obstacles = o;
    sc.n_obstacles = 3;
    assert_int_equal(obstacles_rasterize(&sc, walls, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "/nonexistent/walls.png"));
    assert_non_null(strstr(e.msg, "obstacles.2.path"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rect),
        cmocka_unit_test(test_circle),
        cmocka_unit_test(test_polygon),
        cmocka_unit_test(test_line),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_mask_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

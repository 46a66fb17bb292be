/* test_field.c: the field's layout (alignment, stride, ghost border), its size
 * limit, and ghost filling for every edge kind on a 3 x 2 grid, corners
 * included. Expected values are written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "field.h"

/* The 3 x 2 interior used by every ghost test:
 *    1 2 3
 *    4 5 6                                                        */
static void fill_3x2(struct field *f)
{
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++)
            f->cur[y * f->stride + x] = (float)(1 + x + 3 * y);
}

/* Checks the whole (w + 2) x (h + 2) plane, ghosts included, row by row from y = -1. */
static void expect_plane(const char *name, const struct field *f, const float *g, const float *want)
{
    int k = 0;
    for (int y = -1; y <= f->h; y++)
        for (int x = -1; x <= f->w; x++, k++) {
            if (g[y * f->stride + x] != want[k])
                fail_msg("%s: cell (%d,%d): got %g, want %g", name, x, y, (double)g[y * f->stride + x], (double)want[k]);
        }
}

/* Fills the ghosts of the 3 x 2 grid for one set of edges and checks the
 * whole plane against want; name says which case failed. */
static void ghosts(const char *name, const enum edge_kind edges[4], const float *want)
{
    struct field f;
    struct rr_err e = { 0 };
    assert_int_equal(field_init(&f, 3, 2, &e), 0);
    /* Poison the ghosts so that an unfilled one shows. */
    for (int y = -1; y <= 2; y++)
        for (int x = -1; x <= 3; x++)
            f.cur[y * f.stride + x] = -99.0f;
    fill_3x2(&f);
    field_fill_ghosts(&f, f.cur, edges);
    expect_plane(name, &f, f.cur, want);
    field_free(&f);
}

static void test_layout(void **state)
{
    (void)state;
    struct field f;
    struct rr_err e = { 0 };
    int sizes[][2] = { { 1, 1 }, { 3, 2 }, { 15, 4 }, { 16, 3 }, { 47, 5 }, { 100, 7 } };
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        assert_int_equal(field_init(&f, sizes[k][0], sizes[k][1], &e), 0);
        assert_int_equal(f.stride % 16, 0);
        assert_true(f.stride >= f.w + 2);
        for (int y = 0; y < f.h; y++) {
            assert_int_equal((uintptr_t)(f.cur + y * f.stride) % 64, 0);
            assert_int_equal((uintptr_t)(f.prev + y * f.stride) % 64, 0);
        }
        /* Zeroed, ghosts included. */
        for (int y = -1; y <= f.h; y++)
            for (int x = -1; x <= f.w; x++) {
                assert_true(f.cur[y * f.stride + x] == 0.0f);
                assert_true(f.prev[y * f.stride + x] == 0.0f);
            }
        float *c = f.cur, *p = f.prev;
        field_swap(&f);
        assert_ptr_equal(f.cur, p);
        assert_ptr_equal(f.prev, c);
        field_free(&f);
        field_free(&f);   /* twice is safe */
    }
}

static void test_too_large(void **state)
{
    (void)state;
    struct field f;
    struct rr_err e = { 0 };
    /* 2^30 x 2^30 cells: far past the 8 GiB limit; the message names the bytes. */
    assert_int_equal(field_init(&f, 1 << 30, 1 << 30, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "bytes"));
    assert_null(f.cur);
    assert_int_equal(field_init(&f, 0, 5, &e), -1);
    field_free(&f);
}

/* Clamp: each ghost repeats the nearest edge cell; a corner the corner cell. */
static const float clamped[20] = {
    1, 1, 2, 3, 3,
    1, 1, 2, 3, 3,
    4, 4, 5, 6, 6,
    4, 4, 5, 6, 6,
};

/* Every ghost case: the edge kinds (left, right, top, bottom) and the whole
 * 5 x 4 plane they must give, ghosts included, row by row from y = -1. */
#define ALL4(k) { [EDGE_LEFT] = k, [EDGE_RIGHT] = k, [EDGE_TOP] = k, [EDGE_BOTTOM] = k }
#define EDGES(l, r, t, b) { [EDGE_LEFT] = l, [EDGE_RIGHT] = r, [EDGE_TOP] = t, [EDGE_BOTTOM] = b }
static const struct ghost_case {
    const char *name;
    enum edge_kind edges[4];
    const float *want;
} ghost_cases[] = {
    /* Fixed: every ghost is 0. */
    { "fixed", ALL4(EDGE_FIXED), (const float[20]){
        0, 0, 0, 0, 0,
        0, 1, 2, 3, 0,
        0, 4, 5, 6, 0,
        0, 0, 0, 0, 0,
    } },
    { "clamp", ALL4(EDGE_CLAMP), clamped },
    /* Absorb fills its ghosts as clamp does. */
    { "absorb is clamp", ALL4(EDGE_ABSORB), clamped },
    /* Periodic: the row above row 0 is row 1, the column left of x = 0 is
     * x = 2; the top-left corner is the bottom-right cell (6). */
    { "wrap", ALL4(EDGE_WRAP), (const float[20]){
        6, 4, 5, 6, 4,
        3, 1, 2, 3, 1,
        6, 4, 5, 6, 4,
        3, 1, 2, 3, 1,
    } },
    /* left fixed, right clamp, top wrap, bottom fixed:
     * rows get 0 on the left and their last cell on the right; the top ghost
     * row is row 1 with those ghosts (0 4 5 6 6); the bottom row is all 0. */
    { "mixed", EDGES(EDGE_FIXED, EDGE_CLAMP, EDGE_WRAP, EDGE_FIXED), (const float[20]){
        0, 4, 5, 6, 6,
        0, 1, 2, 3, 3,
        0, 4, 5, 6, 6,
        0, 0, 0, 0, 0,
    } },
    /* left/right wrap, top clamp, bottom fixed. The top row copies row 0
     * with its wrapped ghosts (3 1 2 3 1); the corners follow the sides. */
    { "mixed corners", EDGES(EDGE_WRAP, EDGE_WRAP, EDGE_CLAMP, EDGE_FIXED), (const float[20]){
        3, 1, 2, 3, 1,
        3, 1, 2, 3, 1,
        6, 4, 5, 6, 4,
        0, 0, 0, 0, 0,
    } },
};

static void test_ghosts(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof ghost_cases / sizeof *ghost_cases; k++)
        ghosts(ghost_cases[k].name, ghost_cases[k].edges, ghost_cases[k].want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_ghosts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

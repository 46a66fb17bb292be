/* test_tblock.c: temporal blocking (src/tblock.c) gives the same bits as the
 * plain steps: n steps fused in one pass against n single steps each followed
 * by zeroing the walls, compared cell by cell in both planes, ghosts of the
 * newest level included, for many grid shapes, step counts, boundary kinds,
 * wall layouts, thread counts and uneven bands. Also: a top/bottom wrap is
 * declined; a threaded step equals a serial one; the balance of the bands
 * (tblock_balance_split, _learn) by hand; the drivers' careful products
 * (tblock_mulxN, tblock_mul0xN) against the float operations
 * they stand for, on every class of float. */
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
#include "rng.h"
#include "tblock.h"
#include "tblock_avx2.h"
#include "tblock_avx512.h"
#include "tblock_internal.h"

/* A leapfrog row with every kind of neighbour weight distinct, so that a
 * neighbour taken from the wrong row or level changes the result. */
static int test_row(const void *k, int y, float *out, const float *up, const float *mid, const float *dn, int w,
                    float limit)
{
    const float d = *(const float *)k;
    int32_t m = 0;
    (void)y;
    for (int x = 0; x < w; x++) {
        out[x] = ((mid[x - 1] * 0.24f + mid[x + 1] * 0.26f) + (up[x] * 0.23f + dn[x] * 0.27f)
                  + (up[x - 1] * 0.01f + dn[x + 1] * 0.02f) - out[x] * 0.5f) * d;
        m = tblock_mag_max(m, out[x]);
    }
    return limit > 0 && tblock_beyond(m, limit);
}

/* The same with the 4-neighbour reach (no up[x -+ 1], dn[x -+ 1]): the
 * drivers then set each band's ghosts without waiting for the others. */
static int test_row4(const void *k, int y, float *out, const float *up, const float *mid, const float *dn, int w,
                     float limit)
{
    const float d = *(const float *)k;
    (void)y;
    (void)limit;
    for (int x = 0; x < w; x++)
        out[x] = ((mid[x - 1] * 0.24f + mid[x + 1] * 0.26f) + (up[x] * 0.23f + dn[x] * 0.27f) - out[x] * 0.5f) * d;
    return 0;
}

/* test_row4 three rows at a time, as a tblock_rows3_fn: the drivers' three-row
 * way, whose order of rows and levels is what test_fused_equals_plain checks. */
static int test_rows3_4(const void *k, int y, float *o0, float *o1, float *o2, const float *r0, const float *r1,
                        const float *r2, const float *r3, const float *r4, int w, float limit)
{
    float *const out[3] = { o0, o1, o2 };
    const float *const rows[5] = { r0, r1, r2, r3, r4 };
    for (int i = 0; i < 3; i++)
        test_row4(k, y + i, out[i], rows[i], rows[i + 1], rows[i + 2], w, limit);
    return 0;
}

/* Uneven bands for the next pass of `threads` threads, different for each
 * pass (kn->drive.balance, which the drivers otherwise learn from their timings):
 * the split must never change the bits. */
static void skew(struct tblock_kernel *kn, int threads, int pass)
{
    kn->drive.balance.threads = threads;
    for (int t = 0; t < threads; t++)
        kn->drive.balance.speed[t] = 1.0 + (double)((t + pass) % 3) * 2.5;
}

static void random_field(struct field *f, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed);
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            f->cur[y * f->stride + x] = (float)rng_range(&r, -1, 1);
            f->prev[y * f->stride + x] = (float)rng_range(&r, -1, 1);
        }
}

static void zero_walls(struct field *f, const ptrdiff_t *walls, size_t n)
{
    for (size_t i = 0; i < n; i++)
        f->cur[walls[i]] = f->prev[walls[i]] = 0.0f;
}

static void expect_same(const struct field *a, const struct field *b, const char *what)
{
    for (int y = -1; y <= a->h; y++)
        for (int x = -1; x <= a->w; x++) {
            /* Ghosts only for the newest level (the older plane's were never read). */
            int ghost = x < 0 || y < 0 || x == a->w || y == a->h;
            float ca = a->cur[y * a->stride + x], cb = b->cur[y * b->stride + x];
            if (memcmp(&ca, &cb, sizeof ca))
                fail_msg("%s: cur (%d,%d): plain %a, fused %a", what, x, y, (double)ca, (double)cb);
            if (ghost)
                continue;
            float pa = a->prev[y * a->stride + x], pb = b->prev[y * b->stride + x];
            if (memcmp(&pa, &pb, sizeof pa))
                fail_msg("%s: prev (%d,%d): plain %a, fused %a", what, x, y, (double)pa, (double)pb);
        }
}

/* One comparison: a w x h grid, n steps, the given edges, walls at every
 * cell whose index is a multiple of wall_every (0: none), `threads` threads;
 * with three_rows, the 4-neighbour kernel and the fused pass in its
 * three-row way (its tuner set to take that way next), against plain steps
 * one row at a time. */
static void compare(int w, int h, int n, const enum edge_kind edges[4], int wall_every, int threads, int three_rows)
{
    struct field a, b;
    struct rr_err e = { 0 };
    assert_int_equal(field_init(&a, w, h, &e), 0);
    assert_int_equal(field_init(&b, w, h, &e), 0);
    uint64_t seed = (uint64_t)w * 1000003u + (uint64_t)h * 101u + (uint64_t)n;
    random_field(&a, seed);
    random_field(&b, seed);
    ptrdiff_t *walls = calloc((size_t)w * h, sizeof *walls);
    assert_non_null(walls);
    size_t nw = 0;
    for (int k = 0; wall_every && k < w * h; k += wall_every)
        walls[nw++] = (ptrdiff_t)(k / w) * a.stride + k % w;
    zero_walls(&a, walls, nw);
    zero_walls(&b, walls, nw);
    const float damp = 0.999f;
    struct tblock_kernel kn = { .row = test_row, .k = &damp, .edges = edges, .diagonal = 1 };
    if (three_rows)
        kn = (struct tblock_kernel){ .row = test_row4, .k = &damp, .edges = edges };
    omp_set_num_threads(threads);
    for (int s = 0; s < n; s++) {
        skew(&kn, threads, s);
        tblock_step(&a, &kn, NULL);
        zero_walls(&a, walls, nw);
    }
    field_fill_ghosts(&a, a.cur, edges);   /* what the next step would read */
    if (three_rows) {
        kn.rows3 = test_rows3_4;
        kn.drive.pass_tuner = (struct tblock_tuner){ .ways = 2, .passes = 1 };   /* way 1: three rows */
    }
    skew(&kn, threads, n);
    assert_int_equal(tblock_advance(&b, &kn, n, walls, nw, NULL, NULL), n);
    char what[160];
    snprintf(what, sizeof what, "%dx%d, %d steps, edges %d %d %d %d, walls every %d, %d threads%s", w, h, n,
             edges[0], edges[1], edges[2], edges[3], wall_every, threads, three_rows ? ", three rows" : "");
    expect_same(&a, &b, what);
    free(walls);
    field_free(&a);
    field_free(&b);
}

static void test_fused_equals_plain(void **state)
{
    (void)state;
    static const enum edge_kind edge_sets[][4] = {
        { EDGE_FIXED, EDGE_FIXED, EDGE_FIXED, EDGE_FIXED },
        { EDGE_CLAMP, EDGE_CLAMP, EDGE_CLAMP, EDGE_CLAMP },
        { EDGE_WRAP, EDGE_WRAP, EDGE_FIXED, EDGE_CLAMP },
        { EDGE_FIXED, EDGE_ABSORB, EDGE_ABSORB, EDGE_FIXED },
    };
    static const int shapes[][2] = { { 37, 29 }, { 64, 200 }, { 5, 3 }, { 1, 1 }, { 130, 41 } };
    static const int steps[] = { 2, 3, 5, 8 };
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (size_t n = 0; n < sizeof steps / sizeof *steps; n++)
            for (size_t k = 0; k < sizeof edge_sets / sizeof *edge_sets; k++)
                for (int threads = 1; threads <= 3; threads++)
                    for (int three_rows = 0; three_rows < 2; three_rows++)
                        compare(shapes[s][0], shapes[s][1], steps[n], edge_sets[k], (int)(s + k) % 3 * 7, threads,
                                three_rows);
}

static void test_wrap_declined(void **state)
{
    (void)state;
    static const enum edge_kind edges[4] = { EDGE_FIXED, EDGE_FIXED, EDGE_WRAP, EDGE_WRAP };
    struct field f;
    struct rr_err e = { 0 };
    assert_int_equal(field_init(&f, 8, 8, &e), 0);
    random_field(&f, 7);
    float *cur = f.cur;
    float before = cur[3 * f.stride + 3];
    const float damp = 1.0f;
    struct tblock_kernel kn = { .row = test_row, .k = &damp, .edges = edges, .diagonal = 1 };
    assert_int_equal(tblock_advance(&f, &kn, 4, NULL, 0, NULL, NULL), 0);
    assert_ptr_equal(f.cur, cur);
    assert_true(cur[3 * f.stride + 3] == before);
    field_free(&f);
}

static void test_max_steps(void **state)
{
    (void)state;
    struct field f;
    struct rr_err e = { 0 };
    assert_int_equal(field_init(&f, 4096, 1, &e), 0);
    int m = tblock_max_steps(&f);
    /* m + 3 rows of both planes fit 3/4 of L2, and m is within [2, 16]. */
    assert_true(tblock_l2_bytes() >= 128 * 1024);
    assert_true(m >= 2 && m <= 16);
    assert_true((long)(m + 3) * 2 * f.stride * (long)sizeof(float) <= tblock_l2_bytes() * 3 / 4);
    field_free(&f);
    assert_int_equal(field_init(&f, 16, 1, &e), 0);
    assert_int_equal(tblock_max_steps(&f), 16);
    field_free(&f);
}

/* tblock_step on 1 to 3 threads (each setting its own rows' ghosts) gives
 * the bits of the plain serial step written out here: field_fill_ghosts,
 * then the kernel row by row. Every edge kind, wrap of all four edges
 * included (tblock_step takes it), both reaches, and grids with fewer rows
 * than threads. */
static void test_step_matches_serial(void **state)
{
    (void)state;
    static const enum edge_kind edge_sets[][4] = {
        { EDGE_FIXED, EDGE_FIXED, EDGE_FIXED, EDGE_FIXED }, { EDGE_CLAMP, EDGE_CLAMP, EDGE_CLAMP, EDGE_CLAMP },
        { EDGE_WRAP, EDGE_WRAP, EDGE_WRAP, EDGE_WRAP },     { EDGE_WRAP, EDGE_FIXED, EDGE_CLAMP, EDGE_WRAP },
        { EDGE_ABSORB, EDGE_WRAP, EDGE_WRAP, EDGE_FIXED },
    };
    static const int shapes[][2] = { { 37, 29 }, { 5, 2 }, { 1, 1 }, { 64, 3 } };
    const float damp = 0.999f;
    const tblock_row_fn rows[2] = { test_row4, test_row };
    for (size_t k = 0; k < sizeof edge_sets / sizeof *edge_sets; k++)
        for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
            for (int diagonal = 0; diagonal < 2; diagonal++)
                for (int threads = 1; threads <= 3; threads++) {
                    const int w = shapes[sh][0], h = shapes[sh][1];
                    struct tblock_kernel kn = {
                        .row = rows[diagonal], .rows3 = diagonal ? NULL : test_rows3_4, .k = &damp,
                        .edges = edge_sets[k], .diagonal = diagonal,
                    };
                    struct field a, b;
                    struct rr_err e = { 0 };
                    assert_int_equal(field_init(&a, w, h, &e), 0);
                    assert_int_equal(field_init(&b, w, h, &e), 0);
                    random_field(&a, 99 + k);
                    random_field(&b, 99 + k);
                    /* Six steps: the tuner's first passes take its ways in turn (one
                     * row, prefetching on these small grids, three rows a loop), so
                     * each way sweeps down once and up once. */
                    for (int step = 0; step < 6; step++) {
                        field_fill_ghosts(&a, a.cur, kn.edges);
                        for (int y = 0; y < h; y++)
                            kn.row(kn.k, y, a.prev + y * a.stride, a.cur + (y - 1) * a.stride, a.cur + y * a.stride,
                                   a.cur + (y + 1) * a.stride, w, 0.0f);
                        field_swap(&a);
                        omp_set_num_threads(threads);
                        if (step > 0)   /* the first step with equal bands, the others skewed */
                            skew(&kn, threads < h ? threads : h, step);
                        tblock_step(&b, &kn, NULL);
                    }
                    /* Both fields' older plane holds the ghosts the last step read. */
                    char what[160];
                    snprintf(what, sizeof what, "%dx%d, edges %d %d %d %d, diagonal %d, %d threads", w, h,
                             kn.edges[0], kn.edges[1], kn.edges[2], kn.edges[3], diagonal, threads);
                    for (int y = -1; y <= h; y++)
                        for (int x = -1; x <= w; x++) {
                            float ca = a.cur[y * a.stride + x], cb = b.cur[y * b.stride + x];
                            float pa = a.prev[y * a.stride + x], pb = b.prev[y * b.stride + x];
                            int ghost = x < 0 || y < 0 || x == w || y == h;
                            if ((!ghost && memcmp(&ca, &cb, sizeof ca)) || memcmp(&pa, &pb, sizeof pa))
                                fail_msg("%s: (%d,%d) cur %a/%a prev %a/%a", what, x, y, (double)ca, (double)cb,
                                         (double)pa, (double)pb);
                        }
                    field_free(&a);
                    field_free(&b);
                }
}

/* The split by hand: bands in proportion to the speeds, rounded to the
 * nearest row; equal bands without speeds for this team; each band at
 * least min_rows, when the grid allows it. */
static void test_balance_split(void **state)
{
    (void)state;
    struct tblock_balance b = { .threads = 2, .speed = { 1, 3 } };
    int start[5];
    tblock_balance_split(&b, 100, 2, 0, start);
    assert_int_equal(start[0], 0);
    assert_int_equal(start[1], 25);
    assert_int_equal(start[2], 100);
    b = (struct tblock_balance){ .threads = 3, .speed = { 1, 1, 1 } };
    tblock_balance_split(&b, 10, 3, 0, start);   /* 10/3 -> 3, 20/3 -> 7 */
    assert_int_equal(start[1], 3);
    assert_int_equal(start[2], 7);
    assert_int_equal(start[3], 10);
    b = (struct tblock_balance){ .threads = 2, .speed = { 1, 100 } };
    tblock_balance_split(&b, 100, 2, 10, start);   /* 1 row wanted, 10 at least */
    assert_int_equal(start[1], 10);
    b = (struct tblock_balance){ .threads = 2, .speed = { 100, 1 } };
    tblock_balance_split(&b, 100, 2, 10, start);   /* 99 wanted, 90 at most */
    assert_int_equal(start[1], 90);
    b = (struct tblock_balance){ .threads = 3, .speed = { 1, 1000, 1 } };
    tblock_balance_split(&b, 40, 3, 6, start);     /* both ends held at 6 rows */
    assert_int_equal(start[1], 6);
    assert_int_equal(start[2], 34);
    b = (struct tblock_balance){ .threads = 2, .speed = { 1, 3 } };
    tblock_balance_split(&b, 100, 4, 0, start);   /* speeds for another team: equal */
    for (int t = 0; t <= 4; t++)
        assert_int_equal(start[t], 25 * t);
    tblock_balance_split(&b, 15, 2, 8, start);    /* 2 x 8 > 15: equal */
    assert_int_equal(start[1], 7);
    b = (struct tblock_balance){ .threads = 2, .speed = { 0, 0 } };
    tblock_balance_split(&b, 9, 2, 0, start);     /* no speed known: equal */
    assert_int_equal(start[1], 4);
}

/* The dead band: bands within TBLOCK_BALANCE_DEAD_BAND(h) rows of the last
 * pass's (3 rows at h = 100) are kept; a larger move, another h or team, or
 * last bands below min_rows give the speeds' split. */
static void test_balance_dead_band(void **state)
{
    (void)state;
    int start[4];
    assert_int_equal(TBLOCK_BALANCE_DEAD_BAND(100), 3);
    assert_int_equal(TBLOCK_BALANCE_DEAD_BAND(512), 16);
    struct tblock_balance b = { .threads = 2, .speed = { 1, 1 }, .last_team = 2, .last = { 0, 53, 100 } };
    tblock_balance_split(&b, 100, 2, 0, start);   /* 50 wanted, 53 within 3 */
    assert_int_equal(start[1], 53);
    b.last[1] = 54;
    tblock_balance_split(&b, 100, 2, 0, start);   /* 54 is 4 away */
    assert_int_equal(start[1], 50);
    b.last[1] = 47;
    tblock_balance_split(&b, 100, 2, 0, start);
    assert_int_equal(start[1], 47);
    tblock_balance_split(&b, 100, 2, 48, start);   /* 47 rows are below min_rows 48 */
    assert_int_equal(start[1], 50);
    tblock_balance_split(&b, 101, 2, 0, start);   /* another h */
    assert_int_equal(start[1], 51);
    b.speed[1] = 1.2;                               /* 45 wanted: 2 rows from 47 */
    tblock_balance_split(&b, 100, 2, 0, start);
    assert_int_equal(start[1], 47);
    b.speed[1] = 1.5;                               /* 40 wanted: 7 rows */
    tblock_balance_split(&b, 100, 2, 0, start);
    assert_int_equal(start[1], 40);
    assert_int_equal(start[2], 100);
    /* learn records the pass's bands */
    int rows[3] = { 30, 40, 30 };
    double seconds[3] = { 1, 1, 1 };
    tblock_balance_learn(&b, 3, rows, seconds);
    assert_int_equal(b.last_team, 3);
    assert_true(b.last[0] == 0 && b.last[1] == 30 && b.last[2] == 70 && b.last[3] == 100);
    tblock_balance_split(&b, 100, 3, 0, start);   /* speeds 30, 40, 30 rows/s: the same bands */
    assert_true(start[1] == 30 && start[2] == 70);
}

/* Learning by hand: the first pass sets the speeds; later ones move each a
 * quarter of the way, the new figure first held within half and twice the
 * old; a team of another size starts again. */
static void test_balance_learn(void **state)
{
    (void)state;
    struct tblock_balance b = { 0 };
    int rows[3] = { 10, 30, 0 };
    double seconds[3] = { 1, 1, 0 };
    tblock_balance_learn(&b, 2, rows, seconds);
    assert_int_equal(b.threads, 2);
    assert_true(b.speed[0] == 10 && b.speed[1] == 30);
    seconds[0] = 2;                 /* 5 rows/s: within half of 10; 10 + (5 - 10) / 4 */
    seconds[1] = 0.1;               /* 300 rows/s: held at 60; 30 + (60 - 30) / 4 */
    tblock_balance_learn(&b, 2, rows, seconds);
    assert_true(b.speed[0] == 8.75 && b.speed[1] == 37.5);
    rows[1] = 0;                    /* a thread with no rows keeps its speed */
    tblock_balance_learn(&b, 2, rows, seconds);
    assert_true(b.speed[1] == 37.5);
    rows[0] = rows[1] = rows[2] = 6;
    seconds[0] = seconds[1] = seconds[2] = 2;
    tblock_balance_learn(&b, 3, rows, seconds);
    assert_int_equal(b.threads, 3);
    assert_true(b.speed[0] == 3 && b.speed[1] == 3 && b.speed[2] == 3);
}

/* A float of any class but NaN: normal of any exponent, subnormal, the
 * least subnormal, tiny normals whose products underflow, zeros of either
 * sign, infinities, and the constants the solvers multiply by. */
static float any_float(struct rng *r)
{
    const uint64_t u = rng_next(r);
    const float unit = (float)((double)(u >> 11) * 0x1.0p-52 - 1.0);   /* in [-1, 1) */
    switch ((u >> 4) & 15) {
    case 0: return ldexpf(unit, -126 - (int)(u >> 60));   /* subnormal, or a zero */
    case 1: return u & 1 ? -0x1.0p-149f : 0x1.0p-149f;
    case 2: return ldexpf(unit, -110 - (int)(u >> 60));   /* normal, near the subnormals */
    case 3: return u & 1 ? -0.0f : 0.0f;
    case 4: return u & 1 ? -INFINITY : INFINITY;
    case 5: return ldexpf(unit, (int)(u >> 57) - 64);      /* normal, any size */
    case 6: return 0.25f;
    case 7: return 0.999f;
    default: return unit;
    }
}

static int same_float(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

#if defined(TBLOCK_HAVE_AVX512_DRIVER)
TBLOCK_AVX512 static void careful16(const float *a, const float *b, float *mul, float *mul0, int careful)
{
    const tblock_v16 va = tblock_load16(a, 0xffff, 1), vb = tblock_load16(b, 0xffff, 1);
    _mm512_storeu_ps(mul, (__m512)tblock_mulx16(careful, va, vb));
    _mm512_storeu_ps(mul0, (__m512)tblock_mul0x16(careful, va, vb));
}
#endif

#if defined(TBLOCK_HAVE_AVX2_DRIVER)
TBLOCK_AVX2 static void careful8(const float *a, const float *b, float *mul, float *mul0, int careful)
{
    const tblock_v8 va = (tblock_v8)_mm256_loadu_ps(a), vb = (tblock_v8)_mm256_loadu_ps(b);
    _mm256_storeu_ps(mul, (__m256)tblock_mulx8(careful, va, vb));
    _mm256_storeu_ps(mul0, (__m256)tblock_mul0x8(careful, va, vb));
}
#endif

/* Each lane of the careful (and the plain) forms is the float operation's
 * result: a * b, fmaf(a, b, +0), bit for bit (NaN as NaN). */
static void test_careful_products(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 12345);
    int tested = 0;
    for (int round = 0; round < 20000; round++) {
        float a[16], b[16], mul[16], mul0[16];
        for (int i = 0; i < 16; i++) {
            a[i] = any_float(&r);
            b[i] = any_float(&r);
        }
        for (int careful = 0; careful < 2; careful++)
            for (int width = 8; width <= 16; width += 8) {
#if defined(TBLOCK_HAVE_AVX512_DRIVER)
                if (width == 16 && tblock_avx512())
                    careful16(a, b, mul, mul0, careful);
                else
#endif
#if defined(TBLOCK_HAVE_AVX2_DRIVER)
                    if (width == 8 && RR_CPU_HAS(3, "x86-64-v3"))
                    careful8(a, b, mul, mul0, careful);
                else
#endif
                    continue;
                for (int i = 0; i < width; i++) {
                    const float want = a[i] * b[i], want0 = fmaf(a[i], b[i], 0.0f);
                    if (!same_float(mul[i], want) || !same_float(mul0[i], want0))
                        fail_msg("width %d careful %d: a %a b %a: mulx %a (want %a), mul0x %a (%a)", width, careful,
                                 (double)a[i], (double)b[i], (double)mul[i], (double)want, (double)mul0[i],
                                 (double)want0);
                    tested++;
                }
            }
    }
    if (tested == 0)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused_equals_plain),
        cmocka_unit_test(test_step_matches_serial),
        cmocka_unit_test(test_balance_split),
        cmocka_unit_test(test_balance_learn),
        cmocka_unit_test(test_balance_dead_band),
        cmocka_unit_test(test_wrap_declined),
        cmocka_unit_test(test_max_steps),
        cmocka_unit_test(test_careful_products),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

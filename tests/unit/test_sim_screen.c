/* test_sim_screen.c: the blow-up check folded into the row drivers
 * (tblock_screen_arm, sim.c) reports what the full check reports. A field
 * that grows by itself (damping above 1, no source after the first frame)
 * must fail at the first frame whose grid holds a cell beyond 1e6, naming the
 * first such cell in row-major order, with plain steps (steps_per_frame 1)
 * and fused ones (4), on 1 and 2 threads; and the screen itself flags a NaN
 * or an over-limit row and vouches only for the plane its pass ended on. */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "scene.h"
#include "sim.h"
#include "tblock.h"

static void grow_scene(struct scene *sc, struct drop *d, enum solver_type type, int spf)
{
    memset(sc, 0, sizeof *sc);
    sc->grid.width = 37;
    sc->grid.height = 29;
    sc->time.fps = 30;
    sc->time.frames = 1000;
    sc->time.steps_per_frame = spf;
    sc->solver.type = type;
    sc->solver.damping = 1.7;   /* grows by about 1.7 per step */
    sc->solver.neighbors = 4;
    sc->solver.flow = 1.0;
    sc->solver.blend = 0.5;
    sc->solver.passes = 1;
    for (int k = 0; k < 4; k++)
        sc->boundary[k] = EDGE_FIXED;
    memset(d, 0, sizeof *d);
    d->x = 11;
    d->y = 17;
    d->amplitude = 1.0;
    d->radius = 0;
    d->shape = SHAPE_POINT;
    sc->drops = d;
    sc->n_drops = 1;
}

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
    const enum solver_type types[] = { SOLVER_ELIAS, SOLVER_FLOW };
    const int spfs[] = { 1, 4 }, threads[] = { 1, 2 };
    int saved = omp_get_max_threads();
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 2; k++)
            for (int p = 0; p < 2; p++) {
                omp_set_num_threads(threads[p]);
                struct scene sc;
                struct drop d;
                grow_scene(&sc, &d, types[t], spfs[k]);
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
    return tblock_beyond(m, limit);
}

static void test_screen_flags(void **state)
{
    (void)state;
    struct field f;
    struct rr_err e = { 0 };
    const enum edge_kind edges[4] = { EDGE_FIXED, EDGE_FIXED, EDGE_FIXED, EDGE_FIXED };
    const struct tblock_kernel kn = { .row = copy_row, .k = &ident_k, .edges = edges };
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
            tblock_screen_arm(1e6f);
            if (fused)
                assert_int_equal(tblock_advance(&f, &kn, 2, NULL, 0), 2);
            else
                tblock_step(&f, &kn);
            assert_true(tblock_screened(f.cur));       /* 1e6 itself is within */
            assert_false(tblock_screened(f.prev));     /* only the plane the pass ended on */
            f.cur[17 * f.stride + 39] = bad[b];
            if (fused)
                assert_int_equal(tblock_advance(&f, &kn, 2, NULL, 0), 2);
            else
                tblock_step(&f, &kn);
            assert_false(tblock_screened(f.cur));
            tblock_screen_arm(0.0f);
            assert_false(tblock_screened(f.cur));      /* disarmed: vouches for nothing */
        }
    field_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growth_reported_at_the_right_frame),
        cmocka_unit_test(test_screen_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* sim_fixture.h: for the unit tests that run whole frames (test_wave,
 * test_water_depth, test_walls, test_sim_screen, test_sim_frames): a wave
 * scene, a growing one, a simulation made and advanced (failing the test
 * with the library's own message when it refuses) and a wave's length
 * measured along a row. Include after cmocka.h. */
#ifndef RR_TEST_SIM_FIXTURE_H
#define RR_TEST_SIM_FIXTURE_H

#include <string.h>

#include "field.h"
#include "hand_scene.h"
#include "sim.h"
#include "solver.h"

static inline struct sim *make(const struct scene *sc)
{
    struct sim *s = NULL;
    struct rr_err e = { 0 };
    if (sim_create(&s, sc, &e) < 0)
        fail_msg("sim_create: %s", e.msg);
    return s;
}

static inline void advance(struct sim *s)
{
    struct rr_err e = { 0 };
    if (sim_advance_frame(s, &e) < 0)
        fail_msg("sim_advance_frame: %s", e.msg);
}
/* The wavelength along row y of the field's heights between cells x0 and
 * x1: twice the mean distance between zero crossings, each interpolated
 * linearly; at least four crossings, or the test fails. */
static inline double wavelength(const struct field *f, int y, int x0, int x1)
{
    double first = -1, last = -1;
    int n = 0;
    for (int x = x0; x < x1; x++) {
        double a = f->cur[y * f->stride + x], b = f->cur[y * f->stride + x + 1];
        if ((a < 0) != (b < 0)) {
            double z = x + a / (a - b);
            if (first < 0)
                first = z;
            last = z;
            n++;
        }
    }
    assert_true(n >= 4);
    return 2 * (last - first) / (n - 1);
}

/* A wave scene: w x h cells of dx metres, speed c, fps 30 and spf steps per
 * frame, `fixed` edges, no damping. */
static inline void wave_scene(struct scene *sc, int w, int h, double dx, double c, int spf)
{
    hand_scene(sc, w, h, 30, 10, spf);
    sc->grid.cell_size = dx;
    hand_solver(sc, "wave", 2);
    sc->solver.speed = c;
    sc->absorb_width = 16;
}

/* A 37 x h field that grows by about 1.7 a step (a damping above 1, which
 * scene files refuse) from a point drop of 1 at (11, drop_y) at frame 0,
 * `fixed` edges: it blows up a few frames in, grown by the steps alone. */
static inline void grow_scene(struct scene *sc, struct drop *d, const char *solver, int spf, int h, int drop_y)
{
    hand_scene(sc, 37, h, 30, 1000, spf);
    hand_solver(sc, solver, 1);
    sc->solver.damping = 1.7;
    for (int k = 0; k < 4; k++)
        sc->boundary[k] = EDGE_FIXED;
    memset(d, 0, sizeof *d);
    d->x = 11;
    d->y = drop_y;
    d->amplitude = 1.0;
    d->radius = 0;
    d->shape = SHAPE_POINT;
    sc->drops = d;
    sc->n_drops = 1;
}

#endif

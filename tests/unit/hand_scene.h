/* hand_scene.h: how the unit tests start a scene made by hand (without a
 * scene file): zeroed (every edge `fixed`, no sources, no walls, no
 * output), then the grid and the clock, then, for the tests that step a
 * seed solver, its keys at the values the tests take. Include after
 * cmocka.h. */
#ifndef RR_TEST_HAND_SCENE_H
#define RR_TEST_HAND_SCENE_H

#include <string.h>

#include "scene.h"
#include "solver.h"

/* A zeroed scene of w x h cells: fps frames a second, `frames` frames of
 * spf steps each (0: left as zero, for a test that never steps). */
static inline void hand_scene(struct scene *sc, int w, int h, double fps, int frames, int spf)
{
    memset(sc, 0, sizeof *sc);
    sc->grid.width = w;
    sc->grid.height = h;
    sc->time.fps = fps;
    sc->time.frames = frames;
    sc->time.steps_per_frame = spf;
}

/* Solver `name` (which must exist) with the seed solvers' keys undamped:
 * damping 1, 4 neighbours (elias), flow 1 (flow), blend 1/2 and `passes`
 * blur passes (spring). */
static inline void hand_solver(struct scene *sc, const char *name, int passes)
{
    sc->solver.type = solver_find(name);
    assert_non_null(sc->solver.type);
    sc->solver.damping = 1.0;
    sc->solver.neighbors = 4;
    sc->solver.flow = 1.0;
    sc->solver.blend = 0.5;
    sc->solver.passes = passes;
}

/* One frame of gw x gh cells in render mode `mode`, rendered at grid size:
 * the range [-1, 1] and a red obstacle_color (200, 10, 20), so walls show;
 * what the render tests start from (water_scene.h adds the water keys). */
static inline void render_scene(struct scene *sc, int gw, int gh, enum render_mode mode)
{
    hand_scene(sc, gw, gh, 30, 1, 0);
    struct render_config *r = &sc->render;
    r->mode = mode;
    r->range[0] = -1;
    r->range[1] = 1;
    r->width = gw;
    r->height = gh;
    memcpy(r->obstacle_color, (unsigned char[3]){ 200, 10, 20 }, 3);
}

#endif

/* water_scene.h: a scene of gw x gh cells in a render mode, every edge of
 * one boundary kind, with the defaults of docs/scene.md for the water keys
 * (a red obstacle_color, so walls show): what the render tests start from.
 * Include after the scene's header. */
#ifndef RR_TEST_WATER_SCENE_H
#define RR_TEST_WATER_SCENE_H

#include <string.h>

#include "scene.h"

/* The scene defaults of docs/scene.md for the water keys. */
static inline void scene_init(struct scene *sc, int gw, int gh, enum render_mode mode, enum edge_kind edge)
{
    memset(sc, 0, sizeof *sc);
    sc->grid.width = gw;
    sc->grid.height = gh;
    sc->time.fps = 30;
    sc->time.frames = 1;
    for (int s = 0; s < 4; s++)
        sc->boundary[s] = edge;
    struct render_config *r = &sc->render;
    r->mode = mode;
    r->range[0] = -1;
    r->range[1] = 1;
    r->width = gw;
    r->height = gh;
    memcpy(r->obstacle_color, (unsigned char[3]){ 200, 10, 20 }, 3);
    r->height_scale = 1;
    r->light[0] = -1;
    r->light[1] = -1;
    r->light[2] = 2;
    memcpy(r->water_color, (unsigned char[3]){ 18, 72, 100 }, 3);
    memcpy(r->sky_color, (unsigned char[3]){ 190, 215, 235 }, 3);
    memcpy(r->floor_color, (unsigned char[3]){ 150, 170, 160 }, 3);
    r->specular = 1;
    r->shininess = 60;
    r->reflectivity = 0.02;
    r->refraction = 4;
    r->depth = 30;
}

#endif

/* water_scene.h: a scene of gw x gh cells in a render mode, every edge of
 * one boundary kind, with the defaults of docs/scene.md for the water keys
 * (render_scene's, with a red obstacle_color, so walls show): what the
 * water render tests start from. Include after cmocka.h. */
#ifndef RR_TEST_WATER_SCENE_H
#define RR_TEST_WATER_SCENE_H

#include <string.h>

#include "hand_scene.h"
#include "scene.h"

/* The scene defaults of docs/scene.md for the water keys. */
static inline void scene_init(struct scene *sc, int gw, int gh, enum render_mode mode, enum edge_kind edge)
{
    render_scene(sc, gw, gh, mode);
    for (int s = 0; s < 4; s++)
        sc->boundary[s] = edge;
    struct render_config *r = &sc->render;
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

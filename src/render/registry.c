/* render/registry.c: the table of render modes (render/modes.h). Adding a
 * mode is a file in src/render/ defining its struct render_mode_ops, a line
 * here, and its name in scene.h's enum render_mode and scene.c's list of
 * render.mode names (the scene reads the key; test_render checks that the
 * two lists agree). */
#include "render/modes.h"

extern const struct render_mode_ops render_height_ops, render_colormap_ops, render_shaded_ops, render_refract_ops,
    render_normals_ops, render_caustics_ops;

const struct render_mode_ops *const render_modes[] = {
    &render_height_ops,
    &render_colormap_ops,
    &render_shaded_ops,
    &render_refract_ops,
    &render_normals_ops,
    &render_caustics_ops,
    NULL,
};

const struct render_mode_ops *render_mode_of(enum render_mode m)
{
    for (const struct render_mode_ops *const *k = render_modes; *k; k++)
        if ((*k)->mode == m)
            return *k;
    return NULL;
}

/* render/registry.c: the table of render modes (render/modes.h). Adding a
 * mode is a file in src/render/ defining its struct render_mode_ops, a line
 * here, and its value in scene.h's enum render_mode (the scene holds it);
 * the scene's names, the sinks' float channels and the messages come from
 * this table (render.h). test_render checks that enum and table agree. */
#include "render/modes.h"

#include <stdio.h>
#include <string.h>

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

void render_mode_names(const char *names[RENDER_MODE_COUNT + 1])
{
    for (int m = 0; m <= RENDER_MODE_COUNT; m++)
        names[m] = NULL;
    for (const struct render_mode_ops *const *k = render_modes; *k; k++)
        if ((*k)->mode >= 0 && (*k)->mode < RENDER_MODE_COUNT)
            names[(*k)->mode] = (*k)->name;
}

const char *render_mode_name(enum render_mode m)
{
    const struct render_mode_ops *ops = render_mode_of(m);
    return ops ? ops->name : "?";
}

bool render_mode_own_size(enum render_mode m)
{
    const struct render_mode_ops *ops = render_mode_of(m);
    return ops && ops->own_size;
}

const char *const *render_mode_keys(enum render_mode m)
{
    static const char *const none[] = { NULL };
    const struct render_mode_ops *ops = render_mode_of(m);
    return ops && ops->keys ? ops->keys : none;
}

bool render_mode_uses(enum render_mode m, const char *key)
{
    static const char *const every[] = { "mode", "range", "width", "height", "obstacle_color", "alpha", "atlas",
                                         NULL };
    for (const char *const *k = every; *k; k++)
        if (!strcmp(*k, key))
            return true;
    for (const char *const *k = render_mode_keys(m); *k; k++)
        if (!strcmp(*k, key))
            return true;
    return false;
}

const char *const *render_mode_float_names(enum render_mode m)
{
    const struct render_mode_ops *ops = render_mode_of(m);
    return ops ? ops->float_names : NULL;
}

const char *render_float_modes(char *buf, size_t n)
{
    int count = 0, seen = 0;
    for (const struct render_mode_ops *const *k = render_modes; *k; k++)
        count += (*k)->float_names != NULL;
    size_t at = 0;
    buf[0] = '\0';
    for (const struct render_mode_ops *const *k = render_modes; *k && at < n; k++)
        if ((*k)->float_names) {
            seen++;
            at += (size_t)snprintf(buf + at, n - at, "%s%s", seen == 1 ? "" : seen == count ? " or " : ", ",
                                   (*k)->name);
        }
    return buf;
}

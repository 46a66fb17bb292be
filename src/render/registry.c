/* render/registry.c: the table of render modes (render/modes.h). Adding a
 * mode is a file in src/render/ defining its struct render_mode_ops and a
 * line here; its place in the table is its enum render_mode value (the
 * scene holds it) and its place in the loader's list. The scene's names,
 * the sinks' float channels and the messages come from this table
 * (render.h). test_render checks that scene.h's named values are these
 * places. */
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

_Static_assert(sizeof render_modes / sizeof render_modes[0] <= RENDER_MODE_MAX + 1,
               "more render modes than RENDER_MODE_MAX (src/render.h)");

int render_mode_count(void)
{
    return (int)(sizeof render_modes / sizeof render_modes[0]) - 1;
}

const struct render_mode_ops *render_mode_of(enum render_mode m)
{
    return (int)m >= 0 && (int)m < render_mode_count() ? render_modes[m] : NULL;
}

void render_mode_names(const char *names[RENDER_MODE_MAX + 1])
{
    int m = 0;
    for (; m < render_mode_count(); m++)
        names[m] = render_modes[m]->name;
    names[m] = NULL;
}

const char *render_mode_name(enum render_mode m)
{
    const struct render_mode_ops *ops = render_mode_of(m);
    return ops ? ops->name : "?";
}

uint64_t render_mode_bytes(const struct scene *sc)
{
    const struct render_mode_ops *ops = render_mode_of(sc->render.mode);
    return ops && ops->bytes ? ops->bytes(sc) : 0;
}

bool render_mode_own_size(enum render_mode m)
{
    const struct render_mode_ops *ops = render_mode_of(m);
    return ops && ops->own_size;
}

const char *render_mode_picture(const struct render_config *rc, const char **key)
{
    const struct render_mode_ops *ops = render_mode_of(rc->mode);
    *key = ops ? ops->picture_key : NULL;
    return *key ? ops->picture(rc) : NULL;
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

bool render_range_acts(const struct render_config *rc)
{
    const struct render_mode_ops *ops = render_mode_of(rc->mode);
    return rc->alpha == ALPHA_HEIGHT || (ops && ops->range);
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

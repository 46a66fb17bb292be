/* render/colormap.c: render.mode "colormap": the height through a named
 * 256-entry colour table (render/colormaps.c) over render.range. See
 * render/modes.h. */
#include "render/modes.h"

#include <stdio.h>

static int list_colormaps(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; colormap_names[i] && used < n; i++) {
        int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", colormap_names[i]);
        if (k < 0)
            return -1;
        used += (size_t)k;
    }
    return 0;
}

static int colormap_init(struct renderer *r, const struct scene *sc, struct rr_err *e)
{
    const struct render_config *rc = &sc->render;
    r->map = colormap_find(rc->colormap);
    if (!r->map) {
        char names[256];
        list_colormaps(names, sizeof names);
        return rr_fail(e, RR_EXIT_USAGE, "render.colormap: \"%s\" is not a colormap (available: %s)", rc->colormap,
                       names);
    }
    return 0;
}

/* A row of colormap at 16 bits: the table read between its entries
 * (linearly), so that a smooth field gives more than its 256 colours.
 * At v = i / 255 it is entry i times 257. */
static void colormap_row16(const unsigned char (*map)[3], const float *h, float lo, float span, int w,
                           uint16_t *rgb16)
{
    for (int x = 0; x < w; x++) {
        float v = (h[x] - lo) / span;
        v = v >= 0.0f ? v : 0.0f;   /* NaN giving 0 */
        v = v < 1.0f ? v : 1.0f;
        float t = v * 255.0f;
        int i = (int)t < 254 ? (int)t : 254;
        float fr = t - (float)i;
        for (int k = 0; k < 3; k++)
            rgb16[3 * x + k] = unit_u16(((float)map[i][k] + (float)(map[i + 1][k] - map[i][k]) * fr) / 255.0f);
    }
}

static void colormap_row(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                         uint8_t *restrict rgb, uint16_t *restrict g16, uint16_t *restrict rgb16)
{
    (void)f;
    (void)y;
    (void)g16;
    const int w = r->gw;
    const float lo = r->lo, span = r->span;
    const unsigned char (*map)[3] = r->map;
    for (int x = 0; x < w; x++) {
        int i = unit_round((h[x] - lo) / span, 255.0f);
        rgb[3 * x] = map[i][0];
        rgb[3 * x + 1] = map[i][1];
        rgb[3 * x + 2] = map[i][2];
    }
    if (rgb16)
        colormap_row16(map, h, lo, span, w, rgb16);
}

const struct render_mode_ops render_colormap_ops = {
    .name = "colormap",
    .keys = (const char *const[]){ "colormap", NULL },
    .range = true,
    .init = colormap_init,
    .row = colormap_row,
};

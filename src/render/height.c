/* render/height.c: render.mode "height": the height as grey, range[0] black,
 * range[1] white, 0 mid-grey for a symmetric range; the one mode with a
 * 16-bit grey (RENDER_NEED_GRAY16). See render/modes.h. */
#include "render/modes.h"

/* v = (h - range0) / (range1 - range0) to 0..255 (0..65535), clamped, NaN giving 0.
 * Built for AVX-512 and AVX2 too (isa.h): only with their shuffles does GCC
 * vectorise the three equal bytes a pixel, and this row is most of the
 * work of a run that hashes or writes every frame of a small grid. The
 * same IEEE operations in every build (tests/unit/test_render.c). */
RR_CLONES_V4_V3 static void height_row(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                       uint8_t *restrict rgb, uint16_t *restrict g16, uint16_t *restrict rgb16)
{
    (void)f;
    (void)y;
    const int w = r->gw;
    const float lo = r->lo, span = r->span;
    for (int x = 0; x < w; x++) {
        uint8_t g = (uint8_t)unit_round((h[x] - lo) / span, 255.0f);
        rgb[3 * x] = rgb[3 * x + 1] = rgb[3 * x + 2] = g;
    }
    if (g16)
        for (int x = 0; x < w; x++)
            g16[x] = (uint16_t)unit_round((h[x] - lo) / span, 65535.0f);
    if (rgb16)
        for (int x = 0; x < w; x++)
            rgb16[3 * x] = rgb16[3 * x + 1] = rgb16[3 * x + 2] = unit_u16((h[x] - lo) / span);
}

/* The float picture: the height itself. */
static void height_row_float(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                             float *restrict out, int stride)
{
    (void)f;
    (void)y;
    for (int x = 0; x < r->gw; x++)
        out[(size_t)x * stride] = h[x];
}

const struct render_mode_ops render_height_ops = {
    .name = "height",
    .keys = (const char *const[]){ NULL },
    .gray = true,
    .range = true,
    .row = height_row,
    .row_float = height_row_float,
    .float_names = (const char *const[]){ "Y", NULL },
};

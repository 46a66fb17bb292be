/* render_shade.c: the surface slopes every water mode starts from, the lit
 * surface (render.mode "shaded") and the tangent-space normal map ("normals").
 * See render_modes.h and docs/render.md. */
#include "render_modes.h"

#include <math.h>

static float unit_byte(unsigned char c)
{
    return (float)c / 255.0f;
}

static void normalise(float v[3])
{
    float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
        v[k] /= n;
}

void water_look_init(struct water_look *lk, const struct render_config *rc)
{
    lk->hs = (float)rc->height_scale;
    for (int k = 0; k < 3; k++) {
        lk->light[k] = (float)rc->light[k];
        lk->water[k] = unit_byte(rc->water_color[k]);
        lk->sky[k] = unit_byte(rc->sky_color[k]);
        lk->floor[k] = unit_byte(rc->floor_color[k]);
    }
    normalise(lk->light);   /* the scene guarantees z > 0 */
    for (int k = 0; k < 3; k++)
        lk->half[k] = lk->light[k] + (k == 2 ? 1.0f : 0.0f);
    normalise(lk->half);
    lk->specular = (float)rc->specular;
    lk->shininess = (float)rc->shininess;
    lk->f0 = (float)rc->reflectivity;
    lk->flat_spec = powf(lk->half[2], lk->shininess);
    lk->refraction = (float)rc->refraction;
    lk->depth = (float)rc->depth;
}

void water_slopes(const struct field *f, float hs, float *restrict gx, float *restrict gy)
{
    const int w = f->w, h = f->h;
    const ptrdiff_t s = f->stride;
    const float k = 0.5f * hs;
#pragma omp parallel for schedule(static) if ((long)w * h >= 65536)
    for (int y = 0; y < h; y++) {
        const float *restrict c = f->cur + (ptrdiff_t)y * s;
        float *restrict ox = gx + (size_t)y * w, *restrict oy = gy + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            ox[x] = k * (c[x + 1] - c[x - 1]);
            oy[x] = k * (c[x + s] - c[x - s]);
        }
    }
}

static uint8_t to_byte(float v)
{
    return (uint8_t)lrintf(fminf(fmaxf(v, 0.0f), 1.0f) * 255.0f);
}

/* Per cell: the unit normal n = (-gx, -gy, 1) / |.|, viewer straight above
 * (v = (0, 0, 1)). Colour = (1 - F) * water * (ambient + diffuse) + F * sky
 * + specular * (n.h)^shininess, with F Schlick's Fresnel reflectance
 * F0 + (1 - F0)(1 - n.v)^5, F0 = render.reflectivity (0.02 for water, index
 * 1.333; seen from straight above real water reflects little, so larger
 * values give a stylised, more mirror-like surface). The sky is brighter
 * toward the horizon, seen in the reflected ray r = 2(n.v)n - v. */
void shade_row(const struct water_look *lk, const float *gx, const float *gy, int w, uint8_t *rgb)
{
    const float F0 = lk->f0, ambient = 0.35f;
    for (int x = 0; x < w; x++) {
        float inv = 1.0f / sqrtf(gx[x] * gx[x] + gy[x] * gy[x] + 1.0f);
        float n[3] = { -gx[x] * inv, -gy[x] * inv, inv };
        float ndl = fmaxf(0.0f, n[0] * lk->light[0] + n[1] * lk->light[1] + n[2] * lk->light[2]);
        float ndh = fmaxf(0.0f, n[0] * lk->half[0] + n[1] * lk->half[1] + n[2] * lk->half[2]);
        float c = 1.0f - n[2], c2 = c * c;
        float fr = F0 + (1.0f - F0) * c2 * c2 * c;
        float rz = 2.0f * n[2] * n[2] - 1.0f;                     /* reflected ray's height */
        float horizon = 1.0f + 0.6f * (1.0f - fmaxf(rz, 0.0f));   /* brighter low sky */
        float spec = lk->specular * powf(ndh, lk->shininess);
        float body = ambient + (1.0f - ambient) * ndl;
        for (int k = 0; k < 3; k++)
            rgb[3 * x + k] = to_byte((1.0f - fr) * lk->water[k] * body + fr * lk->sky[k] * horizon + spec);
    }
}

/* OpenGL convention (+x right, +y up in the texture, as Blender, Unity and
 * Godot read it): with y down in the grid the up-slope is -gy, so the normal
 * is (-gx, +gy, 1) / |.|, stored as (n + 1) / 2 * 255. Still water is
 * (0, 0, 1): 127.5 rounds to even, giving 128, 128, 255. */
void normals_row(const float *gx, const float *gy, int w, uint8_t *rgb)
{
    for (int x = 0; x < w; x++) {
        float inv = 1.0f / sqrtf(gx[x] * gx[x] + gy[x] * gy[x] + 1.0f);
        rgb[3 * x] = (uint8_t)lrintf((0.5f - 0.5f * gx[x] * inv) * 255.0f);
        rgb[3 * x + 1] = (uint8_t)lrintf((0.5f + 0.5f * gy[x] * inv) * 255.0f);
        rgb[3 * x + 2] = (uint8_t)lrintf((0.5f + 0.5f * inv) * 255.0f);
    }
}

/* obstacles.c: rasterising the scene's obstacles into the wall mask (see
 * obstacles.h). Each shape visits only its bounding box, clipped to the grid. */
#include "obstacles.h"

#include <math.h>
#include <stdio.h>

#include "image.h"

struct box { int x0, y0, x1, y1; };   /* inclusive; empty when x0 > x1 or y0 > y1 */

/* The cells whose centres lie in [lx, hx] x [ly, hy], clipped to the grid. */
static struct box clip_box(const struct scene *sc, double lx, double ly, double hx, double hy)
{
    struct box b = { 0, 0, -1, -1 };
    double W = sc->grid.width - 1, H = sc->grid.height - 1;
    if (!(hx >= 0 && hy >= 0 && lx <= W && ly <= H))
        return b;
    b.x0 = (int)ceil(fmax(lx, 0));
    b.y0 = (int)ceil(fmax(ly, 0));
    b.x1 = (int)floor(fmin(hx, W));
    b.y1 = (int)floor(fmin(hy, H));
    return b;
}

static void rect(const struct scene *sc, const struct obstacle *o, unsigned char *walls)
{
    /* x <= i < x + width: the last cell is the largest integer below x + width. */
    double hx = ceil(o->x + o->width) - 1, hy = ceil(o->y + o->height) - 1;
    struct box b = clip_box(sc, o->x, o->y, hx, hy);
    for (int j = b.y0; j <= b.y1; j++)
        for (int i = b.x0; i <= b.x1; i++)
            walls[(size_t)j * sc->grid.width + i] = 1;
}

static void circle(const struct scene *sc, const struct obstacle *o, unsigned char *walls)
{
    double r = o->radius;
    struct box b = clip_box(sc, o->x - r, o->y - r, o->x + r, o->y + r);
    for (int j = b.y0; j <= b.y1; j++)
        for (int i = b.x0; i <= b.x1; i++) {
            double dx = i - o->x, dy = j - o->y;
            if (dx * dx + dy * dy <= r * r)
                walls[(size_t)j * sc->grid.width + i] = 1;
        }
}

static void polygon(const struct scene *sc, const struct obstacle *o, unsigned char *walls)
{
    int n = o->n_points;
    if (n < 3)
        return;
    double lx = o->points[0][0], hx = lx, ly = o->points[0][1], hy = ly;
    for (int k = 1; k < n; k++) {
        lx = fmin(lx, o->points[k][0]);
        hx = fmax(hx, o->points[k][0]);
        ly = fmin(ly, o->points[k][1]);
        hy = fmax(hy, o->points[k][1]);
    }
    struct box b = clip_box(sc, lx, ly, hx, hy);
    for (int j = b.y0; j <= b.y1; j++)
        for (int i = b.x0; i <= b.x1; i++) {
            /* Even-odd rule: count the edges that a ray to +x crosses; an edge
             * counts when it straddles the ray's y (half-open, so a vertex on
             * the ray is counted once). */
            int inside = 0;
            for (int a = 0, c = n - 1; a < n; c = a++) {
                double xa = o->points[a][0], ya = o->points[a][1];
                double xc = o->points[c][0], yc = o->points[c][1];
                if ((ya > j) != (yc > j) && i < xa + (j - ya) * (xc - xa) / (yc - ya))
                    inside = !inside;
            }
            if (inside)
                walls[(size_t)j * sc->grid.width + i] = 1;
        }
}

/* Distance from (px, py) to the segment a..b (a point when a == b). */
static double seg_dist(double px, double py, const double a[2], const double b[2])
{
    double dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((px - a[0]) * dx + (py - a[1]) * dy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double ex = px - (a[0] + t * dx), ey = py - (a[1] + t * dy);
    return sqrt(ex * ex + ey * ey);
}

static void line(const struct scene *sc, const struct obstacle *o, unsigned char *walls)
{
    double half = fmax(o->width, 1.0) / 2;
    struct box b = clip_box(sc, fmin(o->from[0], o->to[0]) - half, fmin(o->from[1], o->to[1]) - half,
                            fmax(o->from[0], o->to[0]) + half, fmax(o->from[1], o->to[1]) + half);
    for (int j = b.y0; j <= b.y1; j++)
        for (int i = b.x0; i <= b.x1; i++)
            if (seg_dist(i, j, o->from, o->to) <= half)
                walls[(size_t)j * sc->grid.width + i] = 1;
}

static int mask(const struct scene *sc, int idx, const struct obstacle *o, unsigned char *walls, struct rr_err *e)
{
    char what[48];
    struct image img = { 0 }, fit = { 0 };
    const struct image *use = &img;
    snprintf(what, sizeof what, "obstacles.%d.path", idx);
    if (image_load_gray(&img, o->path, what, e) < 0)
        return -1;
    if (img.width != sc->grid.width || img.height != sc->grid.height) {
        if (image_resample(&img, sc->grid.width, sc->grid.height, &fit, e) < 0) {
            image_free(&img);
            return rr_wrap(e, "%s: ", what);
        }
        use = &fit;
    }
    size_t n = (size_t)sc->grid.width * sc->grid.height;
    float th = (float)o->threshold;
    for (size_t k = 0; k < n; k++) {
        int wall = use->v[k] >= th;
        if (wall != (int)o->invert)
            walls[k] = 1;
    }
    image_free(&img);
    image_free(&fit);
    return 0;
}

int obstacles_rasterize(const struct scene *sc, unsigned char *walls, struct rr_err *e)
{
    for (int k = 0; k < sc->n_obstacles; k++) {
        const struct obstacle *o = &sc->obstacles[k];
        switch (o->type) {
        case OBST_RECT: rect(sc, o, walls); break;
        case OBST_CIRCLE: circle(sc, o, walls); break;
        case OBST_POLYGON: polygon(sc, o, walls); break;
        case OBST_LINE: line(sc, o, walls); break;
        case OBST_MASK:
            if (mask(sc, k, o, walls, e) < 0)
                return -1;
            break;
        }
    }
    return 0;
}

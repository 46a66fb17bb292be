/* obstacles.c: rasterising the scene's obstacles into the wall mask, still
 * and moving (see obstacles.h). Each shape visits only its bounding box,
 * clipped to the grid. */
#include "obstacles.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "sink.h"
#include "sources.h"

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

static struct box grid_box(const struct scene *sc)
{
    return (struct box){ 0, 0, sc->grid.width - 1, sc->grid.height - 1 };
}

static bool box_empty(struct box b) { return b.x0 > b.x1 || b.y0 > b.y1; }

static struct box box_union(struct box a, struct box b)
{
    if (box_empty(a))
        return b;
    if (box_empty(b))
        return a;
    return (struct box){ a.x0 < b.x0 ? a.x0 : b.x0, a.y0 < b.y0 ? a.y0 : b.y0, a.x1 > b.x1 ? a.x1 : b.x1,
                         a.y1 > b.y1 ? a.y1 : b.y1 };
}

static bool box_has(struct box b, int i, int j) { return i >= b.x0 && i <= b.x1 && j >= b.y0 && j <= b.y1; }

/* One obstacle where it is: its offset and, for a mask, the current file's
 * walls at grid size (bits, 1 = wall) moved by whole cells. */
struct placed {
    const struct obstacle *o;
    double dx, dy;
    int rx, ry;                 /* a mask's offset: (dx, dy) rounded */
    const unsigned char *bits;
};

/* Distance from (px, py) to the segment a..b (a point when a == b). */
static double seg_dist(double px, double py, const double a[2], const double b[2])
{
    double dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((px - a[0]) * dx + (py - a[1]) * dy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double ex = px - (a[0] + t * dx), ey = py - (a[1] + t * dy);
    return sqrt(ex * ex + ey * ey);
}

/* The obstacle shapes (enum obstacle_type), one entry each: the cells a
 * placed shape may cover (clipped to the grid), and whether it covers cell
 * (i, j) of that box. */

/* rect: x <= i < x + width, y <= j < y + height; the last cell is the
 * largest integer below x + width. */
static struct box rect_box(const struct scene *sc, const struct placed *p)
{
    const struct obstacle *o = p->o;
    return clip_box(sc, o->x + p->dx, o->y + p->dy, ceil(o->x + p->dx + o->width) - 1,
                    ceil(o->y + p->dy + o->height) - 1);
}

static bool rect_covers(const struct scene *sc, const struct placed *p, int i, int j)
{
    (void)sc, (void)p, (void)i, (void)j;
    return true;
}

/* circle: (i - x)^2 + (j - y)^2 <= radius^2. */
static struct box circle_box(const struct scene *sc, const struct placed *p)
{
    const struct obstacle *o = p->o;
    const double dx = p->dx, dy = p->dy;
    return clip_box(sc, o->x + dx - o->radius, o->y + dy - o->radius, o->x + dx + o->radius, o->y + dy + o->radius);
}

static bool circle_covers(const struct scene *sc, const struct placed *p, int i, int j)
{
    (void)sc;
    const struct obstacle *o = p->o;
    double ex = i - (o->x + p->dx), ey = j - (o->y + p->dy);
    return ex * ex + ey * ey <= o->radius * o->radius;
}

/* polygon: the even-odd rule; fewer than 3 points cover nothing. */
static struct box polygon_box(const struct scene *sc, const struct placed *p)
{
    const struct obstacle *o = p->o;
    if (o->n_points < 3)
        return (struct box){ 0, 0, -1, -1 };
    double lx = o->points[0][0], hx = lx, ly = o->points[0][1], hy = ly;
    for (int k = 1; k < o->n_points; k++) {
        lx = fmin(lx, o->points[k][0]);
        hx = fmax(hx, o->points[k][0]);
        ly = fmin(ly, o->points[k][1]);
        hy = fmax(hy, o->points[k][1]);
    }
    return clip_box(sc, lx + p->dx, ly + p->dy, hx + p->dx, hy + p->dy);
}

static bool polygon_covers(const struct scene *sc, const struct placed *p, int i, int j)
{
    (void)sc;
    const struct obstacle *o = p->o;
    const double dx = p->dx, dy = p->dy;
    /* Count the edges that a ray to +x crosses; an edge counts when it
     * straddles the ray's y (half-open, so a vertex on the ray is counted
     * once). */
    int inside = 0, n = o->n_points;
    for (int a = 0, c = n - 1; a < n; c = a++) {
        double xa = o->points[a][0] + dx, ya = o->points[a][1] + dy;
        double xc = o->points[c][0] + dx, yc = o->points[c][1] + dy;
        if ((ya > j) != (yc > j) && i < xa + (j - ya) * (xc - xa) / (yc - ya))
            inside = !inside;
    }
    return inside;
}

/* line: within width / 2 (at least half a cell) of the segment from..to. */
static struct box line_box(const struct scene *sc, const struct placed *p)
{
    const struct obstacle *o = p->o;
    const double dx = p->dx, dy = p->dy, half = fmax(o->width, 1.0) / 2;
    return clip_box(sc, fmin(o->from[0], o->to[0]) + dx - half, fmin(o->from[1], o->to[1]) + dy - half,
                    fmax(o->from[0], o->to[0]) + dx + half, fmax(o->from[1], o->to[1]) + dy + half);
}

static bool line_covers(const struct scene *sc, const struct placed *p, int i, int j)
{
    (void)sc;
    const struct obstacle *o = p->o;
    const double a[2] = { o->from[0] + p->dx, o->from[1] + p->dy }, b[2] = { o->to[0] + p->dx, o->to[1] + p->dy };
    return seg_dist(i, j, a, b) <= fmax(o->width, 1.0) / 2;
}

/* mask: the current file's walls, moved by whole cells. */
static struct box mask_box(const struct scene *sc, const struct placed *p)
{
    return clip_box(sc, p->rx, p->ry, p->rx + sc->grid.width - 1, p->ry + sc->grid.height - 1);
}

static bool mask_covers(const struct scene *sc, const struct placed *p, int i, int j)
{
    return p->bits[(size_t)(j - p->ry) * sc->grid.width + (size_t)(i - p->rx)];
}

static const struct {
    struct box (*box)(const struct scene *sc, const struct placed *p);
    bool (*covers)(const struct scene *sc, const struct placed *p, int i, int j);
} shapes[] = {
    [OBST_RECT] = { rect_box, rect_covers },
    [OBST_CIRCLE] = { circle_box, circle_covers },
    [OBST_POLYGON] = { polygon_box, polygon_covers },
    [OBST_LINE] = { line_box, line_covers },
    [OBST_MASK] = { mask_box, mask_covers },
};

/* Sets the cells the placed shape covers within `clip` to 1. */
static void paint(const struct scene *sc, const struct placed *p, struct box clip, unsigned char *walls)
{
    struct box b = shapes[p->o->type].box(sc, p);
    b = (struct box){ b.x0 > clip.x0 ? b.x0 : clip.x0, b.y0 > clip.y0 ? b.y0 : clip.y0,
                      b.x1 < clip.x1 ? b.x1 : clip.x1, b.y1 < clip.y1 ? b.y1 : clip.y1 };
    bool (*const covers)(const struct scene *, const struct placed *, int, int) = shapes[p->o->type].covers;
    for (int j = b.y0; j <= b.y1; j++)
        for (int i = b.x0; i <= b.x1; i++)
            if (covers(sc, p, i, j))
                walls[(size_t)j * sc->grid.width + i] = 1;
}

/* Reads mask file `path` of obstacle idx into bits (grid size, 1 = wall). */
static int load_bits(const struct scene *sc, int idx, const char *path, unsigned char *bits, struct rr_err *e)
{
    const struct obstacle *o = &sc->obstacles[idx];
    char what[48];
    struct image img = { 0 }, fit = { 0 };
    const struct image *use = &img;
    snprintf(what, sizeof what, "obstacles.%d.path", idx);
    if (image_load_gray(&img, path, what, e) < 0)
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
    for (size_t k = 0; k < n; k++)
        bits[k] = (use->v[k] >= th) != o->invert;
    image_free(&img);
    image_free(&fit);
    return 0;
}

/* A moving obstacle: its mask file's walls (mask only), which file they
 * are, the box it covered last, and the steps its motion spans. */
struct mover_wall {
    int idx;
    unsigned char *bits;
    long file;             /* the sequence file in bits; -1: none yet */
    struct placed at;
    struct box box, span;  /* the cells covered last; last and now together */
    long long first, last; /* its motion may change the walls at steps first .. last */
    bool drawn;            /* placed before: box is where it is drawn */
};

struct walls {
    const struct scene *sc;
    unsigned char *base;   /* the still obstacles */
    unsigned char *next;   /* the walls being drawn */
    struct mover_wall *mv;
    int n_mv;
    struct wall_change *chg;
    size_t n_chg, cap_chg;
    struct wall_flux *flux;
    size_t n_flux, cap_flux;
};

static int oom(struct rr_err *e) { return rr_fail(e, RR_EXIT_RUNTIME, "obstacles: out of memory"); }

/* The file of a mask sequence that frame `frame` shows. */
static long seq_file(const struct obstacle *o, long long frame)
{
    long long n = o->n_frames;
    return (long)(o->loop ? frame % n : frame < n ? frame : n - 1);
}

static int seq_name(const struct obstacle *o, int idx, long k, char *buf, size_t n, struct rr_err *e)
{
    if (sink_pattern_name(buf, n, o->path, k) < 0)
        return rr_fail(e, RR_EXIT_USAGE, "obstacles.%d.path: the name of file %ld is too long", idx, k);
    return 0;
}

/* A mask sequence's files must share one size (checked from their headers). */
static int check_sizes(const struct scene *sc, int idx, struct rr_err *e)
{
    const struct obstacle *o = &sc->obstacles[idx];
    char what[48], first[4096], name[4096];
    int w0, h0, w, h;
    snprintf(what, sizeof what, "obstacles.%d.path", idx);
    if (seq_name(o, idx, 0, first, sizeof first, e) < 0 || image_size(first, what, &w0, &h0, e) < 0)
        return -1;
    for (long k = 1; k < o->n_frames; k++) {
        if (seq_name(o, idx, k, name, sizeof name, e) < 0 || image_size(name, what, &w, &h, e) < 0)
            return -1;
        if (w != w0 || h != h0)
            return rr_fail(e, RR_EXIT_USAGE,
                           "%s: %s is %d x %d pixels, unlike %s (%d x %d): a mask sequence's files share one size",
                           what, name, w, h, first, w0, h0);
    }
    return 0;
}

/* Places moving obstacle m at step `step`: its offset, and its sequence's file. */
static int place(struct walls *w, struct mover_wall *m, long long step, struct rr_err *e)
{
    const struct scene *sc = w->sc;
    const struct obstacle *o = &sc->obstacles[m->idx];
    const struct placed was = m->at;
    const long file = m->file;
    /* Before frame 0 (time.preroll) the walls stand as at step 0. */
    step = step < 0 ? 0 : step;
    m->at.dx = m->at.dy = 0;
    if (o->motion)
        sources_path_at(o->motion, o->n_motion, (double)step * scene_dt(sc), &m->at.dx, &m->at.dy);
    m->at.rx = (int)round(m->at.dx);
    m->at.ry = (int)round(m->at.dy);
    if (o->sequence) {
        char name[4096];
        long k = seq_file(o, step / scene_steps_per_frame(sc));
        if (k != m->file) {
            if (seq_name(o, m->idx, k, name, sizeof name, e) < 0 || load_bits(sc, m->idx, name, m->bits, e) < 0)
                return -1;
            m->file = k;
        }
    }
    /* Drawn where it was: nothing to redraw (a mask between whole cells). */
    bool same = file == m->file && (o->type == OBST_MASK ? was.rx == m->at.rx && was.ry == m->at.ry
                                                          : was.dx == m->at.dx && was.dy == m->at.dy);
    if (same && m->drawn) {
        m->span = (struct box){ 0, 0, -1, -1 };
        return 0;
    }
    struct box b = shapes[o->type].box(sc, &m->at);
    m->span = box_union(m->box, b);
    m->box = b;
    m->drawn = true;
    return 0;
}

int walls_create(struct walls **out, const struct scene *sc, unsigned char *mask, struct rr_err *e)
{
    *out = NULL;
    struct walls *w = calloc(1, sizeof *w);
    size_t n = (size_t)sc->grid.width * sc->grid.height;
    int moving = 0;
    for (int k = 0; k < sc->n_obstacles; k++)
        moving += sc->obstacles[k].motion || sc->obstacles[k].sequence;
    /* still walls only: drawn straight into mask, no copies kept */
    if (!w || !(w->mv = calloc((size_t)sc->n_obstacles + 1, sizeof *w->mv))
        || (moving && (!(w->base = calloc(n, 1)) || !(w->next = malloc(n))))) {
        walls_free(w);
        return oom(e);
    }
    w->sc = sc;
    unsigned char *still = moving ? w->base : mask;
    unsigned char *bits = NULL;
    for (int k = 0; k < sc->n_obstacles; k++) {
        const struct obstacle *o = &sc->obstacles[k];
        bool moves = o->motion || o->sequence;
        if (o->type == OBST_MASK && !bits && !(bits = malloc(n)))
            goto nomem;
        if (moves) {
            struct mover_wall *m = &w->mv[w->n_mv++];
            *m = (struct mover_wall){ .idx = k, .file = -1, .at = { .o = o }, .box = { 0, 0, -1, -1 } };
            if (o->type == OBST_MASK) {
                m->bits = bits;
                m->at.bits = bits;
                bits = NULL;
            }
            if ((o->sequence && check_sizes(sc, k, e) < 0)
                || (o->type == OBST_MASK && !o->sequence && load_bits(sc, k, o->path, m->bits, e) < 0))
                goto fail;
            if (o->motion) {
                double dt = scene_dt(sc);
                m->first = (long long)floor(o->motion[0].time / dt);
                m->last = (long long)ceil(o->motion[o->n_motion - 1].time / dt) + 1;
            } else {
                m->first = LLONG_MAX;
            }
            continue;
        }
        if (o->type == OBST_MASK && load_bits(sc, k, o->path, bits, e) < 0)
            goto fail;
        paint(sc, &(struct placed){ .o = o, .bits = bits }, grid_box(sc), still);
    }
    free(bits);
    bits = NULL;
    if (w->n_mv) {
        memcpy(mask, w->base, n);
        if (walls_update(w, 0, mask, true, e) < 0)
            goto fail;
    }
    *out = w;
    return 0;
nomem:
    oom(e);
fail:
    free(bits);
    walls_free(w);
    return -1;
}

bool walls_moving(const struct walls *w) { return w->n_mv > 0; }

long long walls_next_change(const struct walls *w, long long step)
{
    long long next = LLONG_MAX;
    int spf = scene_steps_per_frame(w->sc);
    for (int k = 0; k < w->n_mv; k++) {
        const struct mover_wall *m = &w->mv[k];
        const struct obstacle *o = &w->sc->obstacles[m->idx];
        if (o->motion && step <= m->last) {
            long long s = step > m->first ? step : m->first;
            next = s < next ? s : next;
        }
        if (o->sequence && o->n_frames > 1) {
            /* the next frame boundary at or after step whose file differs */
            long long f = (step + spf - 1) / spf;
            f = f < 1 ? 1 : f;
            if (o->loop || f < o->n_frames)
                next = f * spf < next ? f * spf : next;
        }
    }
    return next;
}

/* Makes room for one more element in a list of *cap (doubling). */
static int grow(void *list, size_t *cap, size_t n, size_t size, struct rr_err *e)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 256;
    void *p = realloc(*(void **)list, c * size);
    if (!p)
        return oom(e);
    *(void **)list = p;
    *cap = c;
    return 0;
}

static int add_change(struct walls *w, size_t cell, bool covered, float push, struct rr_err *e)
{
    if (grow(&w->chg, &w->cap_chg, w->n_chg, sizeof *w->chg, e) < 0)
        return -1;
    w->chg[w->n_chg++] = (struct wall_change){ cell, covered, push };
    return 0;
}

/* The water a moving obstacle's faces push this step: its velocity v (cells
 * per step, from its offsets at this step and the one before) against each
 * face's outward normal d: push * (v . d) into the water cell beyond the face
 * (negative on the faces that move away: water drawn in behind). */
static int add_flux(struct walls *w, const struct mover_wall *m, long long step, const unsigned char *mask,
                    struct box redrawn, struct rr_err *e)
{
    static const int d[4][2] = { { -1, 0 }, { 1, 0 }, { 0, -1 }, { 0, 1 } };
    const struct scene *sc = w->sc;
    const struct obstacle *o = m->at.o;
    const int gw = sc->grid.width, gh = sc->grid.height;
    double px, py;
    sources_path_at(o->motion, o->n_motion, (double)(step - 1) * scene_dt(sc), &px, &py);
    double vx = m->at.dx - px, vy = m->at.dy - py;
    if ((vx == 0 && vy == 0) || o->push == 0)
        return 0;
    bool (*const covers)(const struct scene *, const struct placed *, int, int) = shapes[o->type].covers;
    for (int j = m->box.y0; j <= m->box.y1; j++)
        for (int i = m->box.x0; i <= m->box.x1; i++) {
            if (!covers(sc, &m->at, i, j))
                continue;
            for (int k = 0; k < 4; k++) {
                int x = i + d[k][0], y = j + d[k][1];
                double along = vx * d[k][0] + vy * d[k][1];
                if (x < 0 || x >= gw || y < 0 || y >= gh || along == 0)
                    continue;
                /* water after this step (mask holds the walls before it) */
                size_t c = (size_t)y * gw + x;
                if (box_has(redrawn, x, y) ? w->next[c] : mask[c])
                    continue;
                if (grow(&w->flux, &w->cap_flux, w->n_flux, sizeof *w->flux, e) < 0)
                    return -1;
                w->flux[w->n_flux++] = (struct wall_flux){ c, (float)(o->push * along) };
            }
        }
    return 0;
}

int walls_update(struct walls *w, long long step, unsigned char *mask, bool full, struct rr_err *e)
{
    const struct scene *sc = w->sc;
    const int gw = sc->grid.width;
    struct box all = { 0, 0, -1, -1 };
    w->n_chg = w->n_flux = 0;
    for (int k = 0; k < w->n_mv; k++) {
        if (place(w, &w->mv[k], step, e) < 0)
            return -1;
        all = box_union(all, w->mv[k].span);
    }
    if (full)
        all = grid_box(sc);
    for (int j = all.y0; j <= all.y1; j++) {
        size_t row = (size_t)j * gw + all.x0;
        memcpy(w->next + row, w->base + row, (size_t)(all.x1 - all.x0 + 1));
    }
    for (int k = 0; k < w->n_mv && !box_empty(all); k++)
        paint(sc, &w->mv[k].at, all, w->next);
    /* the faces' push, while mask still holds the walls of the step before */
    for (int k = 0; k < w->n_mv && !full; k++)
        if (w->mv[k].at.o->motion && step > 0 && add_flux(w, &w->mv[k], step, mask, all, e) < 0)
            return -1;
    for (int j = all.y0; j <= all.y1; j++)
        for (int i = all.x0; i <= all.x1; i++) {
            size_t c = (size_t)j * gw + i;
            if (w->next[c] == mask[c])
                continue;
            /* A jump (a sequence's next file) pushes where it covers and
             * leaves; a motion pushes by its faces (add_flux). */
            float push = 0;
            for (int k = 0; k < w->n_mv; k++)
                if (box_has(w->mv[k].span, i, j)) {
                    const struct obstacle *o = w->mv[k].at.o;
                    push = o->motion ? 0.0f : (float)o->push;
                    break;
                }
            if (add_change(w, c, w->next[c], push, e) < 0)
                return -1;
            mask[c] = w->next[c];
        }
    return 0;
}

const struct wall_change *walls_changes(const struct walls *w, size_t *n)
{
    *n = w->n_chg;
    return w->chg;
}

const struct wall_flux *walls_flux(const struct walls *w, size_t *n)
{
    *n = w->n_flux;
    return w->flux;
}

/* The 4-neighbours of cell (i, j) that are water (mask 0), their field
 * offsets in nb; returns how many. */
static int water_neighbours(const unsigned char *mask, int w, int h, int i, int j, ptrdiff_t stride, ptrdiff_t nb[4])
{
    static const int d[4][2] = { { -1, 0 }, { 1, 0 }, { 0, -1 }, { 0, 1 } };
    int n = 0;
    for (int k = 0; k < 4; k++) {
        int x = i + d[k][0], y = j + d[k][1];
        if (x >= 0 && x < w && y >= 0 && y < h && !mask[(size_t)y * w + x])
            nb[n++] = y * stride + x;
    }
    return n;
}

void walls_displace(const struct wall_change *c, size_t n, unsigned char *mask, int w, int h, float *cur,
                    float *prev, ptrdiff_t stride)
{
    /* Cells just uncovered are marked 2 while the shares go out, so that
     * they count as no one's neighbour. */
    for (size_t k = 0; k < n; k++)
        if (!c[k].covered)
            mask[c[k].cell] = 2;
    for (size_t k = 0; k < n; k++) {
        int i = (int)(c[k].cell % (size_t)w), j = (int)(c[k].cell / (size_t)w);
        ptrdiff_t at = j * stride + i, nb[4];
        int m = water_neighbours(mask, w, h, i, j, stride, nb);
        if (c[k].covered) {
            for (int q = 0; q < m; q++) {
                cur[nb[q]] += (c[k].push + cur[at]) / (float)m;
                if (prev)
                    prev[nb[q]] += (c[k].push + prev[at]) / (float)m;
            }
            continue;
        }
        /* at rest at its neighbours' mean height, before they give up push */
        float mean = 0.0f;
        for (int q = 0; q < m; q++)
            mean += cur[nb[q]];
        mean = m ? mean / (float)m : 0.0f;
        cur[at] = mean;
        if (prev)
            prev[at] = mean;
        for (int q = 0; q < m; q++) {
            cur[nb[q]] -= c[k].push / (float)m;
            if (prev)
                prev[nb[q]] -= c[k].push / (float)m;
        }
    }
    for (size_t k = 0; k < n; k++)
        if (!c[k].covered)
            mask[c[k].cell] = 0;
}

void walls_free(struct walls *w)
{
    if (!w)
        return;
    for (int k = 0; k < w->n_mv; k++)
        free(w->mv[k].bits);
    free(w->mv);
    free(w->base);
    free(w->next);
    free(w->chg);
    free(w->flux);
    free(w);
}

int obstacles_rasterize(const struct scene *sc, unsigned char *walls, struct rr_err *e)
{
    struct walls *w;
    if (walls_create(&w, sc, walls, e) < 0)
        return -1;
    walls_free(w);
    return 0;
}

/* sources.c: planning and applying drops, rain, oscillators and movers, and
 * setting the initial conditions (see sources.h). */
#include "sources.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "rng.h"
#include "solver.h"

#define PI 3.14159265358979323846
/* The most drops that rain and a loop's copies may bring a plan to: about
 * 160 MB of plan. */
#define MAX_DROPS 2000000

struct osc_plan {
    const struct oscillator *o;
    long long start, end;   /* active for start <= step < end (in a repeating loop: modulo the period) */
    double frequency;       /* Hz: o's, or in a repeating loop a whole number of cycles per period */
};

struct mover_plan {
    const struct mover *m;
    long long first, last;  /* active for first <= step <= last (in a repeating loop: modulo the period) */
};

struct sources {
    int w, h;
    double dt;
    const unsigned char *walls;
    struct planned_drop *drops;
    int n_drops, next_drop;
    struct osc_plan *osc;
    int n_osc;
    struct mover_plan *mov;
    int n_mov;
    long long period;       /* a repeating loop (time.loop, damped): steps per period; 0: none */
};

/* The step s taken into [0, period). */
static long long wrap_step(long long s, long long period)
{
    long long r = s % period;
    return r < 0 ? r + period : r;
}

/* Whether an interval of `len` steps from `first` covers step s, in a
 * repeating loop of `period` steps (period 0: once). */
static bool covers(long long s, long long first, long long len, long long period)
{
    if (!period)
        return s >= first && s - first < len;
    return len >= period || (len > 0 && wrap_step(s - first, period) < len);
}

/* The first step >= s that such an interval covers, or LLONG_MAX. */
static long long next_covered(long long s, long long first, long long len, long long period)
{
    if (len <= 0)
        return LLONG_MAX;
    if (!period)
        return s - first < len ? (s > first ? s : first) : LLONG_MAX;
    if (len >= period)
        return s;
    long long u = wrap_step(s - first, period);
    return u < len ? s : s + period - u;
}

/* ---- shapes -------------------------------------------------------------- */

/* The drop shapes (enum shape_kind), one entry each: the weight of a cell
 * at distance d from the centre for radius r >= 1/2 (a point and small
 * radii: stamp's nearest cell), and the support, the distance past which
 * the weight is 0. */
static double point_weight(double d, double r) { (void)r; return d <= 0.5 ? 1.0 : 0.0; }
static double point_support(double r) { (void)r; return 0.5; }
static double disc_weight(double d, double r) { return d <= r ? 1.0 : 0.0; }
static double radius_support(double r) { return r; }
/* sigma = r / 2 */
static double gaussian_weight(double d, double r) { return d <= 2 * r ? exp(-2.0 * d * d / (r * r)) : 0.0; }
static double gaussian_support(double r) { return 2 * r; }
static double cosine_weight(double d, double r) { return d < r ? 0.5 * (1.0 + cos(PI * d / r)) : 0.0; }

static const struct {
    double (*weight)(double d, double r);
    double (*support)(double r);
} shapes[] = {
    [SHAPE_POINT] = { point_weight, point_support },
    [SHAPE_DISC] = { disc_weight, radius_support },
    [SHAPE_GAUSSIAN] = { gaussian_weight, gaussian_support },
    [SHAPE_COSINE] = { cosine_weight, radius_support },
};

double sources_reach(enum shape_kind shape, double r)
{
    return shapes[r < 0.5 ? SHAPE_POINT : shape].support(r);   /* as stamp() turns small radii into points */
}

static void put(const struct sources *s, struct field *f, int i, int j, double wgt, double amp, int set)
{
    if (wgt <= 0 || (s->walls && s->walls[(size_t)j * s->w + i]))
        return;
    float *c = f->cur + j * f->stride + i;
    if (set)
        *c = (float)((double)*c * (1.0 - wgt) + amp * wgt);
    else
        *c = (float)((double)*c + amp * wgt);
}

static double seg_dist(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double ex = px - (ax + t * dx), ey = py - (ay + t * dy);
    return sqrt(ex * ex + ey * ey);
}

/* Stamps a shape around the segment a..b (a point when a == b). */
static void stamp(const struct sources *s, struct field *f, double ax, double ay, double bx, double by, double r,
                  enum shape_kind shape, double amp, int set)
{
    if (r < 0.5)
        shape = SHAPE_POINT;
    if (shape == SHAPE_POINT && ax == bx && ay == by) {
        double ni = floor(ax + 0.5), nj = floor(ay + 0.5);   /* the nearest cell */
        if (ni >= 0 && nj >= 0 && ni < s->w && nj < s->h)
            put(s, f, (int)ni, (int)nj, 1.0, amp, set);
        return;
    }
    double R = shapes[shape].support(r);
    double lx = fmax(ceil(fmin(ax, bx) - R), 0), hx = fmin(floor(fmax(ax, bx) + R), s->w - 1);
    double ly = fmax(ceil(fmin(ay, by) - R), 0), hy = fmin(floor(fmax(ay, by) + R), s->h - 1);
    for (double j = ly; j <= hy; j++)
        for (double i = lx; i <= hx; i++)
            put(s, f, (int)i, (int)j, shapes[shape].weight(seg_dist(i, j, ax, ay, bx, by), r), amp, set);
}

/* ---- planning ------------------------------------------------------------ */

static double moment_seconds(const struct scene *sc, const struct moment *m)
{
    return m->is_frame ? (double)m->frame / sc->time.fps : m->time;
}

/* A drop with its place in the plan, so that qsort (not stable by itself)
 * keeps drops of the same step in scene order, then rain order. */
struct keyed { struct planned_drop d; int order; };

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->d.step != y->d.step)
        return x->d.step < y->d.step ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* Makes room for one more drop in *arr: refused at MAX_DROPS, also when
 * the scene's own drops (which the budget counts) are already past it. */
static int grow(struct keyed **arr, int n, int *cap, struct rr_err *e)
{
    if (n >= MAX_DROPS)
        return rr_fail(e, RR_EXIT_USAGE, "drops: more than %d drops planned (rain and loop copies included)",
                       MAX_DROPS);
    if (n < *cap)
        return 0;
    int nc = *cap ? *cap * 2 : 64;
    struct keyed *na = realloc(*arr, (size_t)nc * sizeof *na);
    if (!na)
        return rr_fail(e, RR_EXIT_RUNTIME, "drops: out of memory");
    *arr = na;
    *cap = nc;
    return 0;
}

/* Rain: a Poisson process of `rate` drops per second between start and end,
 * drawn on this one thread from the rain's own SplitMix64 stream. Each drop
 * draws, in this order: the gap to it (exponential), x, y, radius, amplitude.
 * A rain from time 0 falls from the start of the simulation (-preroll); in
 * a repeating loop it is drawn for one period, [start, min(end, T)), the
 * copies come later (repeat_drops). */
static int plan_rain(const struct scene *sc, long long period, struct keyed **arr, int *n, int *cap,
                     struct rr_err *e)
{
    const struct rain *rn = &sc->rain;
    double t = moment_seconds(sc, &rn->start), end = moment_seconds(sc, &rn->end);
    if (period)
        end = fmin(end, sc->time.frames / sc->time.fps);
    else if (t == 0)
        t = -(double)scene_preroll_steps(sc) * scene_dt(sc);
    if (!rn->enabled || !(rn->rate > 0) || !(end > t))
        return 0;
    if (rn->rate * (end - t) > MAX_DROPS / 2)
        return rr_fail(e, RR_EXIT_USAGE, "rain.rate: %g drops per second for %g s is more than %d drops", rn->rate,
                       end - t, MAX_DROPS / 2);
    struct rng g;
    rng_seed(&g, rn->seed);
    for (;;) {
        t += -log1p(-rng_uniform(&g)) / rn->rate;   /* 1 - u in (0, 1]: finite */
        if (t >= end)
            break;
        if (grow(arr, *n, cap, e) < 0)
            return -1;
        struct keyed *k = &(*arr)[*n];
        struct moment m = { .is_frame = false, .time = t };
        k->d.step = period ? wrap_step(scene_moment_step(sc, &m), period) : scene_moment_step(sc, &m);
        k->d.x = rng_uniform(&g) * sc->grid.width;
        k->d.y = rng_uniform(&g) * sc->grid.height;
        k->d.radius = rng_range(&g, rn->radius[0], rn->radius[1]);
        k->d.amplitude = rng_range(&g, rn->amplitude[0], rn->amplitude[1]);
        k->d.shape = rn->shape;
        k->d.mode = DROP_ADD;
        k->order = *n;
        (*n)++;
    }
    return 0;
}

/* A repeating loop: each of the n drops of one period, at step s in
 * [0, period), falls also at s - k period for every k >= 1 down to the
 * start of the simulation (-preroll), so the warm-up sees the same forcing. */
static int repeat_drops(long long preroll, long long period, struct keyed **arr, int *n, int *cap,
                        struct rr_err *e)
{
    const int base = *n;
    for (int i = 0; i < base; i++)
        for (long long s = (*arr)[i].d.step - period; s >= -preroll; s -= period) {
            if (grow(arr, *n, cap, e) < 0)
                return -1;
            (*arr)[*n] = (*arr)[i];
            (*arr)[*n].d.step = s;
            (*n)++;
        }
    return 0;
}

int sources_create(struct sources **out, const struct scene *sc, struct rr_err *e)
{
    struct keyed *arr = NULL;
    int n = 0, cap = sc->n_drops;
    struct sources *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s)
        return rr_fail(e, RR_EXIT_RUNTIME, "sources: out of memory");
    s->w = sc->grid.width;
    s->h = sc->grid.height;
    s->dt = scene_dt(sc);
    const long long preroll = scene_preroll_steps(sc);
    s->period = sc->time.loop && solver_decay_rate(sc) > 0 ? scene_total_steps(sc) : 0;
    if (cap > 0 && !(arr = malloc((size_t)cap * sizeof *arr))) {
        rr_fail(e, RR_EXIT_RUNTIME, "drops: out of memory");
        goto fail;
    }
    for (int k = 0; k < sc->n_drops; k++, n++) {
        const struct drop *d = &sc->drops[k];
        long long step = scene_moment_step(sc, &d->at);
        arr[n].d = (struct planned_drop){ s->period ? wrap_step(step, s->period) : step, d->x, d->y, d->radius, d->amplitude,
                                          d->shape, d->mode };
        arr[n].order = n;
    }
    if (plan_rain(sc, s->period, &arr, &n, &cap, e) < 0
        || (s->period && repeat_drops(preroll, s->period, &arr, &n, &cap, e) < 0))
        goto fail;
    if (n > 1)   /* qsort must not see the NULL of an empty plan */
        qsort(arr, (size_t)n, sizeof *arr, cmp_keyed);
    if (n > 0 && !(s->drops = malloc((size_t)n * sizeof *s->drops))) {
        rr_fail(e, RR_EXIT_RUNTIME, "drops: out of memory");
        goto fail;
    }
    for (int k = 0; k < n; k++)
        s->drops[k] = arr[k].d;
    s->n_drops = n;
    free(arr);
    arr = NULL;

    if (sc->n_oscillators > 0 && !(s->osc = calloc((size_t)sc->n_oscillators, sizeof *s->osc))) {
        rr_fail(e, RR_EXIT_RUNTIME, "oscillators: out of memory");
        goto fail;
    }
    for (int k = 0; k < sc->n_oscillators; k++) {
        const struct oscillator *o = &sc->oscillators[k];
        s->osc[k] = (struct osc_plan){ o, scene_moment_step(sc, &o->start), scene_moment_step(sc, &o->end),
                                       o->frequency };
        if (s->period) {   /* a whole number of cycles per period, at least one */
            double T = sc->time.frames / sc->time.fps;
            s->osc[k].frequency = fmax(1.0, nearbyint(o->frequency * T)) / T;
        } else if (s->osc[k].start == 0) {   /* running from the start of the simulation */
            s->osc[k].start = -preroll;
        }
    }
    s->n_osc = sc->n_oscillators;

    if (sc->n_movers > 0 && !(s->mov = calloc((size_t)sc->n_movers, sizeof *s->mov))) {
        rr_fail(e, RR_EXIT_RUNTIME, "movers: out of memory");
        goto fail;
    }
    for (int k = 0; k < sc->n_movers; k++) {
        const struct mover *m = &sc->movers[k];
        struct moment a = { .time = m->path[0].time }, b = { .time = m->path[m->n_path - 1].time };
        s->mov[k] = (struct mover_plan){ m, scene_moment_step(sc, &a), scene_moment_step(sc, &b) };
    }
    s->n_mov = sc->n_movers;
    *out = s;
    return 0;
fail:
    free(arr);
    sources_free(s);
    return -1;
}

void sources_set_walls(struct sources *s, const unsigned char *walls) { s->walls = walls; }

const struct planned_drop *sources_drops(const struct sources *s, int *n)
{
    *n = s->n_drops;
    return s->drops;
}

void sources_path_at(const struct path_point *p, int n, double t, double *x, double *y)
{
    int k = 0;
    while (k + 1 < n && p[k + 1].time <= t)
        k++;
    if (k + 1 >= n || t <= p[k].time) {
        *x = p[k].x;
        *y = p[k].y;
        return;
    }
    double u = (t - p[k].time) / (p[k + 1].time - p[k].time);
    *x = p[k].x + (p[k + 1].x - p[k].x) * u;
    *y = p[k].y + (p[k + 1].y - p[k].y) * u;
}

void sources_apply(struct sources *s, long long step, struct field *f)
{
    double t = (double)step * s->dt;
    const long long P = s->period;
    while (s->next_drop < s->n_drops && s->drops[s->next_drop].step <= step) {
        const struct planned_drop *d = &s->drops[s->next_drop++];
        stamp(s, f, d->x, d->y, d->x, d->y, d->radius, d->shape, d->amplitude, d->mode == DROP_SET);
    }
    for (int k = 0; k < s->n_osc; k++) {
        const struct osc_plan *op = &s->osc[k];
        if (!covers(step, op->start, op->end - op->start, P))
            continue;
        const struct oscillator *o = op->o;
        double v = o->amplitude * sin(2 * PI * op->frequency * t + o->phase);
        if (o->is_line)
            stamp(s, f, o->from[0], o->from[1], o->to[0], o->to[1], o->radius, o->shape, v, 1);
        else
            stamp(s, f, o->x, o->y, o->x, o->y, o->radius, o->shape, v, 1);
    }
    for (int k = 0; k < s->n_mov; k++) {
        const struct mover_plan *mp = &s->mov[k];
        if (!covers(step, mp->first, mp->last - mp->first + 1, P))
            continue;
        double x, y;
        /* In a loop, the path's time this far into its window (a path that
         * runs past T goes on from the start of the next period). */
        sources_path_at(mp->m->path, mp->m->n_path, P ? (double)(mp->first + wrap_step(step - mp->first, P)) * s->dt : t, &x, &y);
        stamp(s, f, x, y, x, y, mp->m->radius, mp->m->shape, mp->m->amplitude, 0);
    }
}

int sources_applied(const struct sources *s) { return s->next_drop; }

int sources_set_applied(struct sources *s, long n)
{
    if (n < 0 || n > s->n_drops)
        return -1;
    s->next_drop = (int)n;
    return 0;
}

static long long max_ll(long long a, long long b) { return a > b ? a : b; }

long long sources_next_due(const struct sources *s, long long step)
{
    long long next = LLONG_MAX;
    if (s->next_drop < s->n_drops)
        next = max_ll(step, s->drops[s->next_drop].step);
    for (int k = 0; k < s->n_osc; k++) {
        long long at = next_covered(step, s->osc[k].start, s->osc[k].end - s->osc[k].start, s->period);
        next = next < at ? next : at;
    }
    for (int k = 0; k < s->n_mov; k++) {
        long long at = next_covered(step, s->mov[k].first, s->mov[k].last - s->mov[k].first + 1, s->period);
        next = next < at ? next : at;
    }
    return next;
}

void sources_free(struct sources *s)
{
    if (!s)
        return;
    free(s->drops);
    free(s->osc);
    free(s->mov);
    free(s);
}

/* ---- initial conditions -------------------------------------------------- */

/* The angular frequency (radians per step) of the mode (kx, ky) in the scene's
 * solver, from its discrete dispersion relation (solver_ops.omega); for a
 * solver without one, the 4-neighbour relation, a fair start. */
static double omega(const struct scene *sc, double kx, double ky)
{
    if (sc->solver.type->omega)
        return sc->solver.type->omega(sc, kx, ky);
    return solver_omega_of_cos((cos(kx) + cos(ky)) / 2);
}

static int initial_image(int idx, const struct initial *in, struct field *f, bool both,
                         struct rr_err *e)
{
    char what[48];
    struct image img = { 0 }, fit = { 0 };
    const struct image *use = &img;
    snprintf(what, sizeof what, "initial.%d.path", idx);
    if (image_load_gray(&img, in->path, what, e) < 0)
        return -1;
    if (img.width != f->w || img.height != f->h) {
        if (image_resample(&img, f->w, f->h, &fit, e) < 0) {
            image_free(&img);
            return rr_wrap(e, "%s: ", what);
        }
        use = &fit;
    }
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            double v = use->v[(size_t)y * f->w + x];
            float add = (float)((v - 0.5) * 2.0 * in->scale);
            f->cur[y * f->stride + x] += add;
            if (both)
                f->prev[y * f->stride + x] += add;
        }
    image_free(&img);
    image_free(&fit);
    return 0;
}

static void initial_wave(const struct scene *sc, const struct initial *in, struct field *f)
{
    double k = 2 * PI / in->wavelength, th = in->angle * PI / 180.0;
    double kx = k * cos(th), ky = k * sin(th), w = omega(sc, kx, ky);
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            double ph = kx * x + ky * y;
            /* h(x, t) = A cos(k.x - w t): now t = 0, one step earlier t = -1. */
            f->cur[y * f->stride + x] += (float)(in->amplitude * cos(ph));
            f->prev[y * f->stride + x] += (float)(in->amplitude * cos(ph + w));
        }
}

int sources_initial(const struct scene *sc, struct field *f, enum initial_part part, struct rr_err *e)
{
    for (int k = 0; k < sc->n_initial; k++) {
        const struct initial *in = &sc->initial[k];
        if (in->type == INITIAL_IMAGE) {
            if (part != INITIAL_WAVES && initial_image(k, in, f, part == INITIAL_ALL, e) < 0)
                return -1;
        } else if (in->wavelength > 0 && part != INITIAL_IMAGES_CUR) {
            initial_wave(sc, in, f);
        }
    }
    return 0;
}

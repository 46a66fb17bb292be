/* wave.c: the damped wave equation in SI units, u_tt = c(x,y)^2 lap(u) - 2 gamma u_t,
 * with dx = grid.cell_size (m) and dt = 1 / (fps * steps_per_frame) (s).
 *
 * Discretisation: leapfrog (central differences in time, the 5-point Laplacian
 * in space), the damping term centred too:
 *     (1 + a) u' = 2u - (1 - a) p + nu^2 (N + S + E + W - 4u),   nu = c dt / dx,
 * with a = tanh(gamma dt) instead of the textbook gamma dt: every mode then
 * loses exactly e^(-gamma dt) of its amplitude per step (|lambda|^2 =
 * (1 - a) / (1 + a) = e^(-2 gamma dt)), so `decay` and `half_life` mean what
 * they say at any step size. Stability (Courant): nu <= 1/sqrt(2) everywhere;
 * init refuses a faster step, naming the steps_per_frame that passes.
 * The Elias ripple (seed 004_3a2d3bb1fd81942e.txt) is this scheme with
 * nu^2 = 1/2 in grid units; here nu comes from physical c, dt and dx, and c may
 * vary per cell (speed_map: refraction, lenses, shallows; the c^2 lap(u) form),
 * or come from the water's depth (depth, depth_map: c = sqrt(g d), or the
 * linear water-wave speed at a chosen wavelength or frequency; see
 * depth_speed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "image.h"
#include "solver.h"
#include "tblock_drivers.h"

extern const struct solver_ops solver_wave;

struct wave {
    struct tblock_kernel kn;   /* the row kernels (choose_kernel), stepped by tblock.h's drivers */
    enum edge_kind edges[4];
    float c1, c2;      /* 2 / (1 + a), (1 - a) / (1 + a) */
    float q;           /* nu^2 / (1 + a) where there is no map */
    float *qmap;       /* per cell, w * h, or NULL */
    float *nu;         /* per cell nu (cells per step) for the absorbing edges, or NULL */
    float nu0;         /* nu without a map */
    int w;
};

/* One step as the equation, cell by cell: the plain path, which the row
 * kernels below compute faster with the same bits (tests/unit/test_reference.c).
 * The scheme above divided by (1 + a), in the Elias ripple's loop (seed
 * 004) with f->cur as u and f->prev as p (overwritten by u'):
 *     u' = c1 u - c2 p + q (N + S + E + W - 4u),
 *     c1 = 2 / (1 + a), c2 = (1 - a) / (1 + a), q = nu^2 / (1 + a),
 * q per cell with a speed map; over every cell, the ghosts standing in for
 * the cells beyond the edges (field_fill_ghosts), then the swap. Float
 * addition is not associative, so the order is part of the equation:
 * (c1 u - c2 p) + q lap, and the neighbours summed (W + E) + (N + S), which
 * keeps a centred drop the same under every mirror and rotation. Without
 * decay c2 is exactly 1, where the kernels skip the multiplication (c2 p is
 * p, bit for bit). */
static void wave_reference_step(const void *priv, struct field *f)
{
    const struct wave *wv = priv;
    const ptrdiff_t s = f->stride;
    field_fill_ghosts(f, f->cur, wv->edges);
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            const float *u = f->cur + y * s + x;   /* the cell now: u[-1] W, u[1] E, u[-s] N, u[s] S */
            float *p = f->prev + y * s + x;        /* the cell one step ago, then its new height */
            float q = wv->qmap ? wv->qmap[(size_t)y * (size_t)wv->w + (size_t)x] : wv->q;
            float lap = ((u[-1] + u[1]) + (u[-s] + u[s])) - 4.0f * u[0];
            *p = wv->c1 * u[0] - wv->c2 * *p + q * lap;
        }
    field_swap(f);
}

/* The wavenumber k (1/m) of linear water waves of angular frequency w over
 * depth d: the root of w^2 = g k tanh(k d). g k tanh(k d) grows with k, and
 * tanh(x) < 1 and tanh(x) < x make both w^2/g and w/sqrt(g d) lower bounds,
 * so bisection from the larger of them, once an upper bound is found by
 * doubling, converges; 200 halvings reach the doubles' resolution. */
static double water_k(double g, double w, double d)
{
    double lo = fmax(w * w / g, w / sqrt(g * d)), hi = 2 * lo;
    while (g * hi * tanh(hi * d) < w * w)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
        double mid = (lo + hi) / 2;
        if (g * mid * tanh(mid * d) < w * w)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* The phase speed over water of depth d (m), g = solver.gravity, from the
 * linear (Airy) water-wave relation w^2 = g k tanh(k d) (Lamb,
 * Hydrodynamics, §228): by default its shallow-water limit sqrt(g d) (waves
 * much longer than the depth); at solver.wavelength L, c = sqrt(g/k tanh(k d))
 * with k = 2 pi / L (waves of that length at every depth); at
 * solver.frequency f, c = w / k with k the root for w = 2 pi f (a wave of that
 * frequency, whose length changes with the depth: what a driven wave does).
 * Each tends to sqrt(g d) as k d -> 0, and all grow with d. */
static double depth_speed(const struct scene *sc, double d)
{
    const double g = sc->solver.gravity, L = sc->solver.wavelength, f = sc->solver.frequency;
    if (L > 0) {
        const double k = 2 * M_PI / L;
        return sqrt(g / k * tanh(k * d));
    }
    if (f > 0)
        return 2 * M_PI * f / water_k(g, 2 * M_PI * f, d);
    return sqrt(g * d);
}

/* The scene's shallowest and deepest water (m): a PNG depth_map's
 * depth_range, a .npy map's own values (read here: "auto" steps and the
 * initial waves need them before init), or the uniform depth. Returns -1 when
 * the map does not read (init reports it). */
static int depth_extremes(const struct scene *sc, double *lo, double *hi)
{
    const struct solver_config *s = &sc->solver;
    if (!s->depth_map) {
        *lo = *hi = s->depth;
        return 0;
    }
    if (!image_is_npy(s->depth_map)) {
        *lo = fmin(s->depth_range[0], s->depth_range[1]);
        *hi = fmax(s->depth_range[0], s->depth_range[1]);
        return 0;
    }
    struct rr_err e = { 0 };
    float *d;
    const int w = sc->grid.width, h = sc->grid.height;
    if (image_load_depth(s->depth_map, s->depth_range, w, h, "solver.depth_map", "m", &d, &e) < 0)
        return -1;
    *lo = HUGE_VAL;
    *hi = 0;
    for (size_t k = 0; k < (size_t)w * (size_t)h; k++) {
        *lo = fmin(*lo, (double)d[k]);
        *hi = fmax(*hi, (double)d[k]);
    }
    free(d);
    return 0;
}

static bool from_depth(const struct scene *sc)
{
    return sc->solver.depth > 0 || sc->solver.depth_map;
}

/* The speed per cell in m/s, w * h values, from speed_map (its value v ->
 * speed_range) or from depth_map (depth_speed of each cell's depth). */
static int load_speeds(const struct scene *sc, int w, int h, float **out, double *cmax, struct rr_err *e)
{
    const bool depth = sc->solver.depth_map != NULL;
    const char *key = depth ? "solver.depth_map" : "solver.speed_map";
    float *c;
    *out = NULL;
    if (depth && image_load_depth(sc->solver.depth_map, sc->solver.depth_range, w, h, key, "m", &c, e) < 0)
        return -1;
    if (!depth) {
        struct image img = { 0 }, fit = { 0 };
        if (image_load_gray(&img, sc->solver.speed_map, key, e) < 0)
            return -1;
        if ((img.width != w || img.height != h) && image_resample(&img, w, h, &fit, e) < 0) {
            image_free(&img);
            return rr_wrap(e, "%s: ", key);
        }
        c = malloc((size_t)w * (size_t)h * sizeof *c);
        const float *v = fit.v ? fit.v : img.v;
        const double lo = sc->solver.speed_range[0], hi = sc->solver.speed_range[1];
        for (size_t k = 0; c && k < (size_t)w * (size_t)h; k++)
            c[k] = (float)(lo + (hi - lo) * (double)v[k]);
        image_free(&img);
        image_free(&fit);
        if (!c)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", key);
    }
    *cmax = 0;
    for (size_t k = 0; k < (size_t)w * (size_t)h; k++) {
        if (depth)
            c[k] = (float)depth_speed(sc, (double)c[k]);
        *cmax = fmax(*cmax, (double)c[k]);
    }
    *out = c;
    return 0;
}

static void choose_kernel(struct wave *wv);

/* Every mode's decay rate: `decay` gamma, plus the half-life's:
 * solver_damping_per_step gives d = |lambda|^2 per step, so gamma = -ln(d) / (2 dt). */
static double wave_decay_rate(const struct scene *sc)
{
    double gamma = sc->solver.decay;
    if (sc->solver.half_life > 0)
        gamma += -log(solver_damping_per_step(sc)) / (2 * scene_dt(sc));
    return gamma;
}

static int wave_init(void *priv, const struct scene *sc, struct field *f, struct rr_err *e)
{
    struct wave *wv = priv;
    const int w = f->w, h = f->h;
    const double dt = scene_dt(sc), dx = sc->grid.cell_size;
    float *speeds = NULL;
    double cmax = sc->solver.depth > 0 ? depth_speed(sc, sc->solver.depth) : sc->solver.speed;
    const bool mapped = sc->solver.speed_map || sc->solver.depth_map;
    const char *where = sc->solver.speed_map ? " at its fastest"
                        : sc->solver.depth_map ? " at the deepest cell of solver.depth_map"
                        : sc->solver.depth > 0 ? " over solver.depth" : "";
    if (mapped && load_speeds(sc, w, h, &speeds, &cmax, e) < 0)
        return -1;
    double nu = cmax * dt / dx;
    if (!solver_wave_stable(cmax, sc->time.fps, sc->time.steps_per_frame, dx)) {
        free(speeds);
        int need = solver_wave_min_steps(cmax, sc->time.fps, dx);
        /* "auto" is capped at 1000 steps a frame: past that, only a coarser
         * grid, a slower wave or a higher fps can pass. */
        if (sc->time.steps_auto)
            return rr_fail(e, RR_EXIT_USAGE,
                           "time.steps_per_frame: \"auto\" needs %d steps per frame for solver wave (the Courant "
                           "number c dt/dx <= 1/sqrt(2) with c = %g m/s%s, cell_size = %g m), more than its cap "
                           "of 1000; %s, or raise grid.cell_size or time.fps",
                           need, cmax, where, dx, from_depth(sc) ? "use shallower water" : "lower solver.speed");
        return rr_fail(e, RR_EXIT_USAGE,
                       "time.steps_per_frame: %d is unstable for solver wave: the Courant number c dt/dx = %.4g "
                       "(c = %g m/s%s, dt = %.4g s, cell_size = %g m) exceeds 1/sqrt(2); use steps_per_frame %d "
                       "or more, or \"auto\"",
                       sc->time.steps_per_frame, nu, cmax, where, dt, dx, need);
    }
    double gamma = wave_decay_rate(sc);
    double a = tanh(gamma * dt);
    for (int k = 0; k < 4; k++)
        wv->edges[k] = sc->boundary[k];
    wv->c1 = (float)(2 / (1 + a));
    wv->c2 = (float)((1 - a) / (1 + a));
    wv->q = (float)(nu * nu / (1 + a));
    wv->nu0 = (float)nu;
    wv->w = w;
    if (speeds) {
        size_t n = (size_t)w * (size_t)h;
        wv->qmap = malloc(n * sizeof *wv->qmap);
        if (!wv->qmap) {
            free(speeds);
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory",
                           sc->solver.depth_map ? "solver.depth_map" : "solver.speed_map");
        }
        for (size_t k = 0; k < n; k++) {
            double nk = (double)speeds[k] * dt / dx;
            wv->qmap[k] = (float)(nk * nk / (1 + a));
            speeds[k] = (float)nk;
        }
        wv->nu = speeds;
    }
    choose_kernel(wv);
    return 0;
}

/* The Laplacian sums (W + E) + (N + S) as elias.c does, so that a centred drop
 * stays bit-exactly symmetric. Row kernels for a uniform speed and for a
 * speed map (q per cell, row y of qmap), each with decay and without: with
 * none (a = 0, the default) c2 is exactly 1 and c2 * p is p, the same bits
 * for every p, so that kernel skips the multiply. Each is built for
 * AVX-512, AVX2 and the baseline by TBLOCK_ROW_KERNEL (same operations, same
 * bits), and for AVX-512 and AVX2 CPUs by the hand-written drivers
 * (src/tblock_drivers.h; the AVX-512 one loads each row once, not three
 * times), from the one update WAVE_NEW;
 * the drivers in src/tblock.c run them one step at a time or several steps
 * fused. */
#define BODY static inline __attribute__((always_inline))

/* TBLOCK_ROW_KERNEL's `variant`: these flags or'ed. */
enum { WAVE_MAPPED = 1, WAVE_UNDAMPED = 2 };

/* The new height from the 4-neighbour sum s, the centre h, the height one
 * step back p and the cell's q, in the given form: on a float or on a vector
 * of 16 or 8, so that the row loop and the hand-written drivers share it
 * (they compute the Laplacian s - 4 h fused: WAVE_FROM_LAP). */
#define WAVE_NEW(wv, form, s, h, p, q) WAVE_FROM_LAP(wv, form, h, p, q, (s) - 4.0f * (h))
#define WAVE_FROM_LAP(wv, form, h, p, q, lap) \
    ((wv)->c1 * (h) - ((form) & WAVE_UNDAMPED ? (p) : (wv)->c2 * (p)) + (q) * (lap))

/* Row y of the speed map's q (WAVE_MAPPED forms only). */
BODY const float *wave_qrow(const void *k, int y)
{
    const struct wave *wv = k;
    return wv->qmap + (size_t)y * (size_t)wv->w;
}

BODY int row(const void *k, int y, float *restrict out, const float *restrict up, const float *restrict mid,
             const float *restrict dn, int w, float limit, int form, int screen)
{
    const struct wave *wv = k;
    const float *restrict qrow = form & WAVE_MAPPED ? wave_qrow(k, y) : NULL;
    int32_t m = 0;
    for (int x = 0; x < w; x++) {
        float v = WAVE_NEW(wv, form, (mid[x - 1] + mid[x + 1]) + (up[x] + dn[x]), mid[x], out[x],
                           form & WAVE_MAPPED ? qrow[x] : wv->q);
        out[x] = v;
        m = tblock_screen_keep(m, v, limit, screen);
    }
    return tblock_screen_found(m, screen);
}

TBLOCK_ROW_KERNEL(row_uniform, row, 0)
TBLOCK_ROW_KERNEL(row_mapped, row, WAVE_MAPPED)
TBLOCK_ROW_KERNEL(row_uniform_undamped, row, WAVE_UNDAMPED)
TBLOCK_ROW_KERNEL(row_mapped_undamped, row, WAVE_MAPPED | WAVE_UNDAMPED)

static inline __attribute__((always_inline)) float update1(const void *k, int form, int y, int x, float s, float h,
                                                             float p)
{
    const struct wave *wv = k;
    return WAVE_NEW(wv, form, s, h, p, form & WAVE_MAPPED ? wave_qrow(k, y)[x] : wv->q);
}

TBLOCK_ROWS3_KERNEL(rows3_uniform, update1, 0)
TBLOCK_ROWS3_KERNEL(rows3_mapped, update1, WAVE_MAPPED)
TBLOCK_ROWS3_KERNEL(rows3_uniform_undamped, update1, WAVE_UNDAMPED)
TBLOCK_ROWS3_KERNEL(rows3_mapped_undamped, update1, WAVE_MAPPED | WAVE_UNDAMPED)

/* The hand-written drivers' update (src/tblock_drivers.h), WAVE_NEW for 16
 * or 8 cells, its s - 4 h as one fused operation, -(4 h) + s: 4 h is exact
 * (a power of two) for every h up to 8.5e37, so the one rounding of the
 * fused operation is that of s - 4 h, the same bits, with one vector
 * operation fewer of the ten or so that the cells take (on rows in cache
 * the kernels are bound by them: docs/performance.md). Beyond 8.5e37, 4 h
 * overflows where the fused form stays finite: only in a grid far past the
 * blow-up limit (1e6, src/sim.c), whose frame fails the check with either
 * form, which may then name a different height (finite, or infinity), as
 * flow.c's F = 1 kernels may. With a speed map, q is row y's, cells x on. */
#define WAVE_UPDATE(N, k, form, y, x, live, whole, s, h, p)                                                  \
    ((form) & TBLOCK_CAREFUL                                                                                 \
         ? wave_careful##N((const struct wave *)(k), form, s, h, p, WAVE_Q(N, k, form, y, x, live, whole))    \
         : WAVE_FROM_LAP((const struct wave *)(k), form, h, p, WAVE_Q(N, k, form, y, x, live, whole),         \
                         tblock_fnma##N(tblock_set##N(4.0f), h, s)))
#define WAVE_Q(N, k, form, y, x, live, whole)                                                                \
    ((form) & WAVE_MAPPED ? tblock_load##N(wave_qrow(k, y) + (x), live, whole)                               \
                          : tblock_set##N(((const struct wave *)(k))->q))

/* WAVE_UPDATE in TBLOCK_CAREFUL's kernels (tblock.h), for 16 or 8 cells:
 * where h or p has a subnormal lane, its three products (4 h, c1 h, c2 p)
 * by tblock_exact_mulN, the float multiplies' bits (4 h exact, so s - 4 h
 * is the fused form's s - 4 h); q times the Laplacian by tblock_mulxN. One
 * test of h and p for the three. */
#define WAVE_CAREFUL_N(N, target)                                                                            \
    target static inline __attribute__((always_inline)) tblock_v##N wave_careful##N(                         \
        const struct wave *wv, int form, tblock_v##N s, tblock_v##N h, tblock_v##N p, tblock_v##N q)         \
    {                                                                                                        \
        const int damped = !(form & WAVE_UNDAMPED);                                                          \
        tblock_v##N lap, ch, cp;                                                                             \
        if (tblock_subnormal##N(h) | (damped && tblock_subnormal##N(p))) {                                   \
            lap = s - tblock_exact_mul##N(h, tblock_set##N(4.0f), -0.0);                                     \
            ch = tblock_exact_mul##N(h, tblock_set##N(wv->c1), -0.0);                                        \
            cp = damped ? tblock_exact_mul##N(p, tblock_set##N(wv->c2), -0.0) : p;                           \
        } else {                                                                                             \
            lap = tblock_fnma##N(tblock_set##N(4.0f), h, s);                                                 \
            ch = wv->c1 * h;                                                                                 \
            cp = damped ? wv->c2 * p : p;                                                                    \
        }                                                                                                    \
        return (ch - cp) + tblock_mulx##N(1, lap, q);                                                        \
    }
#if defined(TBLOCK_HAVE_AVX512_DRIVER) && defined(TBLOCK_HAVE_AVX2_DRIVER)
WAVE_CAREFUL_N(16, TBLOCK_AVX512)
WAVE_CAREFUL_N(8, TBLOCK_AVX2)
#endif

TBLOCK_DRIVER_UPDATE(update, WAVE_UPDATE)
TBLOCK_DRIVERS(drivers_uniform, update, 0)
TBLOCK_DRIVERS(drivers_mapped, update, WAVE_MAPPED)
TBLOCK_DRIVERS(drivers_uniform_undamped, update, WAVE_UNDAMPED)
TBLOCK_DRIVERS(drivers_mapped_undamped, update, WAVE_MAPPED | WAVE_UNDAMPED)

/* The kernels for a speed map or none, with decay or none: the portable one,
 * on CPUs that have them the hand-written drivers', and the one for three
 * rows at a time (the drivers time them and keep the fastest: tblock_tuner). */
static void choose_kernel(struct wave *wv)
{
    const tblock_row_fn kernels[2][2] = { { row_uniform, row_mapped }, { row_uniform_undamped, row_mapped_undamped } };
    const tblock_rows3_fn kernels3[2][2] = {
        { rows3_uniform, rows3_mapped }, { rows3_uniform_undamped, rows3_mapped_undamped },
    };
    const struct tblock_drivers *const drivers[2][2] = {
        { &drivers_uniform, &drivers_mapped }, { &drivers_uniform_undamped, &drivers_mapped_undamped },
    };
    const int undamped = wv->c2 == 1.0f, mapped = wv->qmap != NULL;
    wv->kn = (struct tblock_kernel){
        .row = kernels[undamped][mapped], .rows3 = kernels3[undamped][mapped], .k = wv, .edges = wv->edges,
        .name = (const char *const[2][2]){ { "wave-uniform", "wave-mapped" },
                                           { "wave-uniform-undamped", "wave-mapped-undamped" } }[undamped][mapped],
    };
    tblock_offer_drivers(&wv->kn, drivers[undamped][mapped]);
}

static double wave_cell_speed(const void *priv, const struct scene *sc, int x, int y)
{
    const struct wave *wv = priv;
    (void)sc;
    return wv->nu ? (double)wv->nu[(size_t)y * (size_t)wv->w + (size_t)x] : (double)wv->nu0;
}

static void wave_free(void *priv)
{
    struct wave *wv = priv;
    free(wv->qmap);
    free(wv->nu);
    wv->qmap = wv->nu = NULL;
}

int solver_wave_stable(double cmax, double fps, int steps, double dx)
{
    double nu = cmax / (fps * (double)steps * dx);
    return nu * nu <= 0.5;
}

int solver_wave_min_steps(double cmax, double fps, double dx)
{
    double guess = floor(cmax * sqrt(2.0) / (fps * dx));
    int n = guess < 1 ? 1 : guess > 1e6 ? 1000000 : (int)guess;
    while (n < 1000000 && !solver_wave_stable(cmax, fps, n, dx))
        n++;
    return n;
}

/* The fastest speed the scene allows: `speed`, the larger end of
 * `speed_range` with a speed_map, or the speed over the deepest water (a PNG
 * depth_map's larger depth_range end, a .npy map's deepest cell). A .npy that
 * does not read gives the uniform speed here and its refusal in init. */
static double fastest(const struct scene *sc)
{
    double lo, hi;
    if (sc->solver.speed_map)
        return fmax(sc->solver.speed_range[0], sc->solver.speed_range[1]);
    if (from_depth(sc) && depth_extremes(sc, &lo, &hi) == 0)
        return depth_speed(sc, hi);
    return sc->solver.speed;
}

/* "auto": the smallest stable count at the fastest speed the scene allows. */
static int wave_auto_steps(const struct scene *sc)
{
    return solver_wave_min_steps(fastest(sc), sc->time.fps, sc->grid.cell_size);
}

/* The dispersion relation of the leapfrog: cos w = 1 - nu^2 (2 - cos kx - cos ky),
 * nu = c dt / dx (with a map, c at the middle of its speeds). */
static double wave_omega(const struct scene *sc, double kx, double ky)
{
    double cx = cos(kx), cy = cos(ky), lo, hi;
    double sp = sc->solver.speed;
    if (sc->solver.speed_map)
        sp = (sc->solver.speed_range[0] + sc->solver.speed_range[1]) / 2;
    else if (from_depth(sc) && depth_extremes(sc, &lo, &hi) == 0)
        sp = (depth_speed(sc, lo) + depth_speed(sc, hi)) / 2;
    double nu = sp * scene_dt(sc) / sc->grid.cell_size;
    return solver_omega_of_cos(1 - nu * nu * (2 - cx - cy));
}

/* What wave_init allocates (solver_ops.bytes): with a speed or depth map,
 * the speeds and the per-cell factors (a float each a cell), and while
 * loading, the map resampled to the grid (another); the image file's own
 * pixels are checked when it is read (src/image.c). */
static uint64_t wave_bytes(const struct scene *sc, int threads, char *what, size_t size)
{
    (void)threads;
    snprintf(what, size, "the wave solver's speed map");
    const bool mapped = sc->solver.speed_map || sc->solver.depth_map;
    return mapped ? (uint64_t)sc->grid.width * (uint64_t)sc->grid.height * 12 : 0;
}

static const char *const wave_keys[] = { "speed", "speed_map", "speed_range", "decay", "depth", "depth_map",
                                         "depth_range", "wavelength", "frequency", "gravity", NULL };

TBLOCK_SOLVER(wave, struct wave, kn)

const struct solver_ops solver_wave = {
    .name = "wave",
    .priv_size = sizeof(struct wave),
    .keys = wave_keys,
    .own_damping = "decay",
    .damp_advice = "solver.decay or solver.half_life",
    .step_limit = true,
    .auto_steps = wave_auto_steps,
    .init = wave_init,
    .step = wave_step,
    .advance = wave_advance,
    .kernel = wave_kernel,
    .free = wave_free,
    .bytes = wave_bytes,
    .omega = wave_omega,
    .decay_rate = wave_decay_rate,
    .cell_speed = wave_cell_speed,
    .reference_step = wave_reference_step,
};

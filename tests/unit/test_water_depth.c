/* test_water_depth.c: the water's depth (docs/solvers.md "Speed from the
 * depth", docs/render.md "caustics"): the wave solver's speed over uniform
 * water against sqrt(g d) and against the linear water-wave speed at a chosen
 * wavelength; Snell's law at a straight depth step; the Courant check and
 * "auto" steps at the deepest water; the depth files' refusals; and the
 * caustics floor's depth per cell (light conserved, each part of the floor
 * lit as a uniform floor at its depth, the focusing against the Jacobian of
 * the rays' landing map). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "field.h"
#include "gray_png.h"
#include "render/modes.h"
#include "scene.h"
#include "sim.h"
#include "solver.h"
#include "sim_fixture.h"

#define AT(f, g, x, y) ((g)[(y) * (f)->stride + (x)])
#define PI 3.14159265358979323846
#define G 9.81

/* A wave scene over water `depth` m deep: w x h cells of dx metres, fps 30
 * and spf steps per frame, `fixed` edges, no damping. */
static void depth_scene(struct scene *sc, int w, int h, double dx, double depth, int spf)
{
    wave_scene(sc, w, h, dx, 0.2, spf);
    sc->solver.speed_range[0] = 0.1;
    sc->solver.speed_range[1] = 0.3;
    sc->solver.gravity = G;
    sc->solver.depth = depth;
    sc->solver.depth_range[0] = 0.005;
    sc->solver.depth_range[1] = 0.05;
}

/* A .npy file (format 1.0) of rows x cols values of the given dtype
 * ("<f4", "<f8", "<i4") from v, C order unless fortran. Little-endian host
 * assumed, as the test machines are. */
static void write_npy(const char *path, const char *dtype, bool fortran, const char *shape, const double *v,
                      size_t n)
{
    char dict[128];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", dtype,
                       fortran ? "True" : "False", shape);
    int pad = 64 - (10 + len + 1) % 64;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0 };
    pre[8] = (unsigned char)((len + pad + 1) & 0xff);
    pre[9] = (unsigned char)((len + pad + 1) >> 8);
    fwrite(pre, 1, 10, f);
    fwrite(dict, 1, (size_t)len, f);
    for (int i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    for (size_t k = 0; k < n; k++) {
        if (!strcmp(dtype, "<f4")) {
            float x = (float)v[k];
            fwrite(&x, 4, 1, f);
        } else if (!strcmp(dtype, "<f8")) {
            fwrite(&v[k], 8, 1, f);
        } else {
            int32_t x = (int32_t)v[k];
            fwrite(&x, 4, 1, f);
        }
    }
    fclose(f);
}

/* A line source at x = 2 driving f Hz into a 240 x 3 strip (absorbing on the
 * right), 2 s; the wavelength between cells 20 and 100 in metres. */
static double driven_wavelength(struct scene *sc, double f)
{
    struct oscillator o = { .is_line = true, .from = { 2, 0 }, .to = { 2, 2 }, .amplitude = 1, .frequency = f,
                            .end = { .is_frame = true, .frame = 1000 }, .shape = SHAPE_POINT };
    sc->oscillators = &o;
    sc->n_oscillators = 1;
    sc->boundary[EDGE_LEFT] = EDGE_FIXED;
    sc->boundary[EDGE_RIGHT] = EDGE_ABSORB;
    sc->boundary[EDGE_TOP] = sc->boundary[EDGE_BOTTOM] = EDGE_CLAMP;
    sc->absorb_width = 30;
    struct sim *s = make(sc);
    for (int k = 0; k < 60; k++)
        advance(s);
    double l = wavelength(sim_field(s), 1, 20, 100) * sc->grid.cell_size;
    sim_free(s);
    sc->oscillators = NULL;
    sc->n_oscillators = 0;
    return l;
}

static double newton_k(double w, double d);

/* Uniform water d = 1 cm: the shallow-water speed sqrt(g d) = 0.3132 m/s, so
 * 15.66 Hz makes waves of 2 cm (20 cells); and at solver.wavelength 2 cm the
 * linear water-wave speed sqrt(g/k tanh(k d)) = 0.1764 m/s (k d = pi), so
 * 8.82 Hz makes waves of 2 cm. The scheme's own dispersion at 20 cells per
 * wavelength is under 0.5 %. */
static void test_uniform_depth_speed(void **state)
{
    (void)state;
    struct scene sc;
    const double d = 0.01, L = 0.02;
    double c = sqrt(G * d);
    depth_scene(&sc, 240, 3, 0.001, d, 20);   /* nu = 0.3132 / 0.6 = 0.52 */
    double got = driven_wavelength(&sc, c / L);
    print_message("depth %g m: c = sqrt(g d) = %.4f m/s; wavelength %.5f m (want %.5f)\n", d, c, got, L);
    assert_true(fabs(got - L) < 0.01 * L);
    double k = 2 * PI / L, cw = sqrt(G / k * tanh(k * d));
    sc.solver.wavelength = L;
    got = driven_wavelength(&sc, cw / L);
    print_message("at wavelength %g m: c = %.4f m/s; wavelength %.5f m (want %.5f)\n", L, cw, got, L);
    assert_true(fabs(cw - 0.17638) < 1e-4);   /* by hand: sqrt(9.81 / 314.159 * tanh(3.14159)) */
    assert_true(fabs(got - L) < 0.01 * L);
    /* at solver.frequency 8 Hz: the length 2 pi / k with (2 pi f)^2 = g k tanh(k d), 2.413 cm */
    sc.solver.wavelength = 0;
    sc.solver.frequency = 8;
    double want = 2 * PI / newton_k(2 * PI * 8, d);
    got = driven_wavelength(&sc, 8);
    print_message("at frequency 8 Hz: wavelength %.5f m (want %.5f)\n", got, want);
    assert_true(fabs(want - 0.02413) < 1e-5);
    assert_true(fabs(got - want) < 0.01 * want);
}

/* Per cell, the complex amplitude of the steady oscillation at omega
 * (radians per step), summed over one period of `period` steps from the
 * current plane on: Z = sum u(t_n) e^(i omega n). */
struct lockin {
    double *re, *im;
    int w, h;
};

static void lockin_run(struct sim *s, struct lockin *z, int period, double omega)
{
    const struct field *f = sim_field(s);
    z->w = f->w;
    z->h = f->h;
    z->re = calloc((size_t)f->w * f->h, sizeof *z->re);
    z->im = calloc((size_t)f->w * f->h, sizeof *z->im);
    assert_non_null(z->re);
    assert_non_null(z->im);
    for (int n = 0; n < period; n++) {
        for (int y = 0; y < f->h; y++)
            for (int x = 0; x < f->w; x++) {
                double u = AT(f, f->cur, x, y);
                z->re[(size_t)y * f->w + x] += u * cos(omega * n);
                z->im[(size_t)y * f->w + x] += u * sin(omega * n);
            }
        advance(s);   /* one step a frame */
    }
}

/* The wave vector (radians per cell) over the window [x0, x1) x [y0, y1):
 * the phase differences of neighbouring cells, arg(Z(x+1) conj Z(x)),
 * summed as complex numbers (so amplitude weights them) and converted once.
 * The phase of u = A cos(k.x - w t) is k.x, and Z ~ e^(-i k.x)... conj'd, so
 * the sign is flipped back. */
static void lockin_k(const struct lockin *z, int x0, int x1, int y0, int y1, double *kx, double *ky)
{
    double ar = 0, ai = 0, br = 0, bi = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            size_t i = (size_t)y * z->w + x, ix = i + 1, iy = i + (size_t)z->w;
            ar += z->re[ix] * z->re[i] + z->im[ix] * z->im[i];
            ai += z->im[ix] * z->re[i] - z->re[ix] * z->im[i];
            br += z->re[iy] * z->re[i] + z->im[iy] * z->im[i];
            bi += z->im[iy] * z->re[i] - z->re[iy] * z->im[i];
        }
    *kx = atan2(ai, ar);
    *ky = atan2(bi, br);
}

/* The wave vector of the steady wave in a window after `steps` steps, in a
 * scene of one step a frame. */
static void steady_k(const struct scene *sc, double f, int steps, const int win[4], double *kx, double *ky)
{
    struct sim *s = make(sc);
    for (int k = 0; k < steps; k++)
        advance(s);
    const double steps_per_s = sc->time.fps;
    const int period = (int)lrint(steps_per_s / f);
    struct lockin z;
    lockin_run(s, &z, period, 2 * PI * f / steps_per_s);
    lockin_k(&z, win[0], win[1], win[2], win[3], kx, ky);
    free(z.re);
    free(z.im);
    sim_free(s);
}

/* The wavenumber of water waves of angular frequency w over depth d, by
 * Newton's method on g k tanh(k d) - w^2 from the shallow-water k (the code
 * under test bisects). */
static double newton_k(double w, double d)
{
    double k = w / sqrt(G * d);
    for (int i = 0; i < 50; i++) {
        double t = tanh(k * d), F = G * k * t - w * w, dF = G * (t + k * d * (1 - t * t));
        k -= F / dF;
    }
    assert_true(fabs(G * k * tanh(k * d) - w * w) < 1e-9 * w * w);
    return k;
}

/* Snell's law at a straight depth step: a plane wave from a line source
 * along the left edge runs in +x over deep water (d1) and meets, at 40
 * degrees of incidence, a straight step to shallow water (d2, from a .npy
 * depth map), where it turns toward the step's normal: sin th1 / sin th2 =
 * c1 / c2. The direction is measured, not assumed, on both sides: the
 * incident one in a run over deep water everywhere (no step, so no reflected
 * wave), the refracted one past the step, each from the phase gradient of
 * the steady oscillation (lock-in at the source's frequency) over a window
 * clear of the edges' sponges. One step a frame at `fps`, `period` steps a
 * period of the source; the wave's frequency is given to the solver when
 * by_frequency. Returns the measured sin ratio over c_ratio, minus 1. */
static double snell(double d1, double d2, double dx, double fps, int period, bool by_frequency, double c_ratio)
{
    enum { W = 400, H = 300 };
    const double th1 = 40 * PI / 180, f = fps / period;
    /* the step: deep where x < 190 + tan(th1) (y - 150), so from x = 64 at
     * the top to 316 at the bottom, clear of the source; its normal
     * (cos th1, -sin th1) at th1 from the incident +x */
    static double depth[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            depth[y * W + x] = x < 190 + tan(th1) * (y - 150) ? d1 : d2;
    char path[64], flat[64];
    snprintf(path, sizeof path, "/tmp/rr_snell_%ld.npy", (long)getpid());
    snprintf(flat, sizeof flat, "/tmp/rr_snell_flat_%ld.npy", (long)getpid());
    write_npy(path, "<f4", false, "(300, 400)", depth, W * H);
    for (int k = 0; k < W * H; k++)
        depth[k] = d1;
    write_npy(flat, "<f8", false, "(300, 400)", depth, W * H);
    struct scene sc;
    depth_scene(&sc, W, H, dx, 0, 1);
    sc.time.fps = fps;   /* one step a frame, for the lock-in */
    sc.time.frames = 4000;
    sc.solver.frequency = by_frequency ? f : 0;
    struct oscillator o = { .is_line = true, .from = { 2, 0 }, .to = { 2, H - 1 }, .amplitude = 1,
                            .frequency = f, .end = { .is_frame = true, .frame = 4000 }, .shape = SHAPE_POINT };
    sc.oscillators = &o;
    sc.n_oscillators = 1;
    sc.boundary[EDGE_LEFT] = EDGE_FIXED;
    sc.boundary[EDGE_RIGHT] = sc.boundary[EDGE_TOP] = sc.boundary[EDGE_BOTTOM] = EDGE_ABSORB;
    sc.absorb_width = 24;
    sc.solver.depth_map = flat;
    double kx, ky;
    const int before[4] = { 40, 120, 110, 190 };
    steady_k(&sc, f, 800, before, &kx, &ky);
    double a1 = atan2(ky, kx), kl1 = hypot(kx, ky);
    sc.solver.depth_map = path;
    /* fed by the step between y = 110 and 160 (rays back along the refracted direction) */
    const int after[4] = { 260, 350, 60, 140 };
    steady_k(&sc, f, 1600, after, &kx, &ky);
    double a2 = atan2(ky, kx), kl2 = hypot(kx, ky);
    /* angles from the step's normal, whose direction is -th1 */
    double i1 = a1 + th1, i2 = a2 + th1;
    double ratio = sin(i1) / sin(i2);
    print_message("snell: incident %.3f deg (%.1f cells a wavelength), refracted %.3f deg (%.1f cells), sin ratio "
                  "%.4f against c1/c2 = %.4f (%.2f %%); |k2|/|k1| = %.4f\n",
                  i1 * 180 / PI, 2 * PI / kl1, i2 * 180 / PI, 2 * PI / kl2, ratio, c_ratio,
                  100 * (ratio / c_ratio - 1), kl2 / kl1);
    assert_true(fabs(a1) < 0.5 * PI / 180);               /* the source's plane wave runs in +x */
    assert_true(fabs(kl2 / kl1 / c_ratio - 1) < 0.02);      /* shorter waves in the shallows */
    remove(path);
    remove(flat);
    return ratio / c_ratio - 1;
}

/* Shallow-water speeds: 4.5 cm to 2 cm of water, c1/c2 = sqrt(d1/d2) = 1.5,
 * so the refracted wave runs at asin(sin 40 / 1.5) = 25.4 degrees from the
 * step's normal. 1 mm cells, 44 steps a period at 960 steps a second: 20.3
 * cells a wavelength over the shallows, 30.4 over the deep, nu = 0.69. */
static void test_snell_shallow(void **state)
{
    (void)state;
    double err = snell(0.045, 0.02, 0.001, 960, 44, false, sqrt(0.045 / 0.02));
    assert_true(fabs(err) < 0.02);   /* Snell, within 2 % */
}

/* At a given frequency: 20 cm to 2 cm of water, 1 cm cells, f = 2 Hz (60
 * steps a period at 120 a second). The wave keeps its frequency and changes
 * its length, c = w/k with w^2 = g k tanh(k d): k d = 3.23 over the deep
 * (nearly deep water, 38.9 cells a wavelength), 0.60 over the shallows (21.0
 * cells), c1/c2 = k2/k1 = 1.857 (where sqrt(d1/d2) would say 3.16), so the
 * refracted wave runs at 20.3 degrees from the normal; nu = 0.65. */
static void test_snell_frequency(void **state)
{
    (void)state;
    const double w = 2 * PI * 2, ratio = newton_k(w, 0.02) / newton_k(w, 0.2);
    assert_true(fabs(ratio - 1.8569) < 1e-4);
    double err = snell(0.2, 0.02, 0.01, 120, 60, true, ratio);
    assert_true(fabs(err) < 0.02);   /* Snell, within 2 % */
}

/* The Courant check and "auto" steps use the deepest water: a PNG map's
 * larger depth_range end, a .npy map's deepest cell. At 4 cm c =
 * sqrt(9.81 * 0.04) = 0.6264 m/s; with 1 mm cells at 30 fps nu <= 1/sqrt(2)
 * needs 0.6264 sqrt(2) / 0.03 = 29.53, so 30 steps per frame. */
static void test_depth_courant(void **state)
{
    (void)state;
    enum { W = 8, H = 6 };
    struct scene sc;
    struct sim *s = NULL;
    struct rr_err e = { 0 };
    char png[64], npy[64];
    snprintf(png, sizeof png, "/tmp/rr_depth_courant_%ld.png", (long)getpid());
    snprintf(npy, sizeof npy, "/tmp/rr_depth_courant_%ld.npy", (long)getpid());
    unsigned char px[W * H];
    double d[W * H];
    for (int k = 0; k < W * H; k++) {
        px[k] = (unsigned char)(k % 2 ? 255 : 0);
        d[k] = k == 17 ? 0.04 : 0.01;
    }
    write_gray_png(png, W, H, px);
    write_npy(npy, "<f4", false, "(6, 8)", d, W * H);
    depth_scene(&sc, W, H, 0.001, 0, 29);
    sc.solver.depth_map = png;
    sc.solver.depth_range[0] = 0.01;
    sc.solver.depth_range[1] = 0.04;
    assert_int_equal(solver_auto_steps(&sc), 30);
    assert_int_equal(sim_create(&s, &sc, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "time.steps_per_frame: 29 is unstable"));
    assert_non_null(strstr(e.msg, "at the deepest cell of solver.depth_map"));
    assert_non_null(strstr(e.msg, "use steps_per_frame 30 or more"));
    sc.solver.depth_map = npy;
    assert_int_equal(solver_auto_steps(&sc), 30);
    e = (struct rr_err){ 0 };
    assert_int_equal(sim_create(&s, &sc, &e), -1);
    assert_non_null(strstr(e.msg, "use steps_per_frame 30 or more"));
    sc.time.steps_per_frame = 30;
    s = make(&sc);
    sim_free(s);
    /* uniform water: the same speed, the same count */
    sc.solver.depth_map = NULL;
    sc.solver.depth = 0.04;
    assert_int_equal(solver_auto_steps(&sc), 30);
    /* and at a wavelength of 1 cm, k d = 8 pi: deep water, c = sqrt(g/k) = 0.1249 m/s, nu 0.7071
     * needs 5.89: 6 steps */
    sc.solver.wavelength = 0.01;
    assert_int_equal(solver_auto_steps(&sc), 6);
    remove(png);
    remove(npy);
}

/* Every depth file that cannot serve is refused naming the key and the file. */
static void test_depth_file_errors(void **state)
{
    (void)state;
    enum { W = 4, H = 3 };
    struct scene sc;
    char path[64];
    snprintf(path, sizeof path, "/tmp/rr_depth_bad_%ld.npy", (long)getpid());
    double d[W * H];
    for (int k = 0; k < W * H; k++)
        d[k] = 0.01;
    struct {
        const char *dtype, *shape;
        bool fortran;
        int bad_cell;
        double bad_value;
        const char *want;
    } cases[] = {
        { "<f4", "(3, 4)", false, -1, 0, NULL },
        { "<f8", "(3, 4)", false, -1, 0, NULL },
        { "<f4", "(4, 3)", false, -1, 0, "solver.depth_map: " },
        { "<f4", "(3, 4, 1)", false, -1, 0, "shape (3, 4, 1): expected (3, 4), the grid's height and width" },
        { "<f4", "(12,)", false, -1, 0, "shape (12,): expected (3, 4)" },
        { "<i4", "(3, 4)", false, -1, 0, "dtype '<i4': expected float32 ('<f4') or float64 ('<f8')" },
        { "<f4", "(3, 4)", true, -1, 0, "fortran_order is not False" },
        { "<f4", "(3, 4)", false, 6, -0.5, "cell (2, 1) is -0.5 m: a depth must be finite and > 0" },
        { "<f4", "(3, 4)", false, 11, 0, "cell (3, 2) is 0 m: a depth must be finite and > 0" },
        { "<f8", "(3, 4)", false, 0, NAN, "cell (0, 0) is nan m" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double v[W * H];
        memcpy(v, d, sizeof v);
        if (cases[i].bad_cell >= 0)
            v[cases[i].bad_cell] = cases[i].bad_value;
        write_npy(path, cases[i].dtype, cases[i].fortran, cases[i].shape, v, W * H);
        depth_scene(&sc, W, H, 0.001, 0, 30);
        sc.solver.depth_map = path;
        struct sim *s = NULL;
        struct rr_err e = { 0 };
        int rc = sim_create(&s, &sc, &e);
        print_message("%s %s: %s\n", cases[i].dtype, cases[i].shape, rc < 0 ? e.msg : "accepted");
        if (!cases[i].want) {
            assert_int_equal(rc, 0);
            sim_free(s);
            continue;
        }
        assert_int_equal(rc, -1);
        assert_int_equal(e.status, RR_EXIT_USAGE);
        assert_true(!strncmp(e.msg, "solver.depth_map: ", 18));
        assert_non_null(strstr(e.msg, path));
        assert_non_null(strstr(e.msg, cases[i].want));
    }
    /* cut short (its 128-byte header and 5 of the 12 floats), and not a .npy at all */
    write_npy(path, "<f4", false, "(3, 4)", d, W * H);
    assert_int_equal(truncate(path, 128 + 20), 0);
    depth_scene(&sc, W, H, 0.001, 0, 30);
    sc.solver.depth_map = path;
    struct sim *s = NULL;
    struct rr_err e = { 0 };
    assert_int_equal(sim_create(&s, &sc, &e), -1);
    assert_non_null(strstr(e.msg, "7 of its 12 values are missing"));
    FILE *f = fopen(path, "wb");
    fputs("not numpy at all", f);
    fclose(f);
    e = (struct rr_err){ 0 };
    assert_int_equal(sim_create(&s, &sc, &e), -1);
    assert_non_null(strstr(e.msg, "not a .npy file"));
    remove(path);
}

/* ---- caustics over a floor of varying depth ---------------------------------------------------- */

enum { CW = 128, CH = 16 };

/* Slopes of a surface that varies along x only: gx = s sin(2 pi x / 64),
 * gy = 0, so every ray stays in its row. */
static void ridges(float *gx, float *gy, double s)
{
    for (int y = 0; y < CH; y++)
        for (int x = 0; x < CW; x++) {
            gx[y * CW + x] = (float)(s * sin(2 * PI * x / 64));
            gy[y * CW + x] = 0.0f;
        }
}

/* A ray's sideways displacement per unit depth under slope g, by Snell's law
 * in vector form (as test_render_water.c's known slope): t.x / -t.z. */
static double shift_per_depth(double g)
{
    const double eta = 1.0 / 1.333;
    double len = sqrt(g * g + 1), n[3] = { -g / len, 0, 1 / len };
    double k = 1 - eta * eta * (1 - n[2] * n[2]), m = eta * n[2] - sqrt(k);
    return m * n[0] / -(-eta + m * n[2]);
}

/* Top half of the floor 50 cells deep, bottom half 100. Each row two or more
 * rows from the change is lit exactly as a uniform floor at its depth (bit
 * for bit: the bilinear depth there is that depth); the light is conserved;
 * and each half's brightest line matches 1 / min J, J(x) = 1 + D dS/dg
 * g'(x) the Jacobian of the landing map x -> x + D S(g(x)) (below the focal
 * depth the map is one to one and the light is 1/J). With s = 0.2 the focal
 * depth is about 1 / ((1 - 1/1.333) s 2 pi / 64) = 204 cells: the shallow
 * half peaks near 1/(1 - 50/204) = 1.32, the deep near 1/(1 - 100/204) =
 * 1.96. */
static void test_caustics_floor_depths(void **state)
{
    (void)state;
    static float gx[CW * CH], gy[CW * CH], depths[CW * CH], light[CW * CH], l1[CW * CH], l2[CW * CH];
    static float at[CAUSTICS_SCRATCH(CW, CH)];
    const double s = 0.2, D1 = 50, D2 = 100;
    ridges(gx, gy, s);
    for (int k = 0; k < CW * CH; k++)
        depths[k] = (float)(k / CW < CH / 2 ? D1 : D2);
    caustics_gather_depths(gx, gy, CW, CH, depths, true, false, at, light);
    caustics_gather(gx, gy, CW, CH, (float)D1, true, false, at, l1);
    caustics_gather(gx, gy, CW, CH, (float)D2, true, false, at, l2);
    double sum = 0;
    for (int k = 0; k < CW * CH; k++)
        sum += (double)light[k];
    print_message("floor of two depths: total light %.4f for %d cells\n", sum, CW * CH);
    assert_true(fabs(sum - CW * CH) < 1e-3 * CW * CH);
    for (int y = 0; y < CH; y++) {
        if (y >= CH / 2 - 2 && y < CH / 2 + 2)
            continue;
        const float *want = (y < CH / 2 ? l1 : l2) + y * CW;
        assert_memory_equal(light + y * CW, want, CW * sizeof(float));
    }
    /* the peaks against the Jacobian, computed in double */
    const double h = 1e-6, dS = (shift_per_depth(h) - shift_per_depth(-h)) / (2 * h);
    const double D[2] = { D1, D2 };
    const int row[2] = { 2, CH - 3 };
    double peak[2];
    for (int i = 0; i < 2; i++) {
        double jmin = HUGE_VAL, got = 0;
        for (int k = 0; k < 6400; k++) {
            double x = k / 100.0, g1 = s * 2 * PI / 64 * cos(2 * PI * x / 64);
            double gg = s * sin(2 * PI * x / 64);
            double dS_here = (shift_per_depth(gg + h) - shift_per_depth(gg - h)) / (2 * h);
            jmin = fmin(jmin, 1 + D[i] * dS_here * g1);
        }
        for (int x = 0; x < CW; x++)
            got = fmax(got, (double)light[row[i] * CW + x]);
        peak[i] = got;
        print_message("floor %g cells deep: brightest %.4f against 1/min J = %.4f (dS/dg at 0: %.4f)\n", D[i],
                      got, 1 / jmin, dS);
        assert_true(fabs(got * jmin - 1) < 0.03);
    }
    assert_true(fabs(dS - (1 - 1 / 1.333)) < 1e-6);   /* small slopes: shift D (1 - 1/n) g */
    assert_true(peak[1] > 1.4 * peak[0]);               /* the deep half focuses harder */
}

/* A floor map of one depth everywhere lights the floor as render.depth does,
 * bit for bit. */
static void test_caustics_flat_map(void **state)
{
    (void)state;
    static float gx[CW * CH], gy[CW * CH], depths[CW * CH], a[CW * CH], b[CW * CH];
    static float at[CAUSTICS_SCRATCH(CW, CH)];
    ridges(gx, gy, 0.3);
    for (int k = 0; k < CW * CH; k++) {
        depths[k] = 37.5f;
        gy[k] = 0.1f * gx[(k * 7) % (CW * CH)];   /* some slope across, too */
    }
    caustics_gather_depths(gx, gy, CW, CH, depths, false, false, at, a);
    caustics_gather(gx, gy, CW, CH, 37.5f, false, false, at, b);
    assert_memory_equal(a, b, sizeof a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform_depth_speed),
        cmocka_unit_test(test_snell_shallow),
        cmocka_unit_test(test_snell_frequency),
        cmocka_unit_test(test_depth_courant),
        cmocka_unit_test(test_depth_file_errors),
        cmocka_unit_test(test_caustics_floor_depths),
        cmocka_unit_test(test_caustics_flat_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

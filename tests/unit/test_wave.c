/* test_wave.c: the wave solver against theory (driven wavelength, discrete
 * energy, standing-mode frequency, Courant check and "auto" steps, decay and
 * half-life), the measured half-life of each seed solver, the reflection
 * coefficient of `absorb` edges, and the V-shaped wake of a fast mover.
 * Scenes are filled by hand; grids are small so that this runs in seconds. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <omp.h>
#include <unistd.h>

#include "field.h"
#include "gray_png.h"
#include "scene.h"
#include "sim.h"
#include "solver.h"
#include "sim_fixture.h"

#define AT(f, g, x, y) ((g)[(y) * (f)->stride + (x)])
#define PI 3.14159265358979323846

/* Sets both planes of the sim's field to fn(x, y) before its first step: the
 * water starts at rest in that shape (a drop would add to the current plane
 * only, which is a kick of velocity). */
static void at_rest(struct sim *s, double (*fn)(int x, int y))
{
    struct field *f = (struct field *)sim_field(s);
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++)
            AT(f, f->cur, x, y) = AT(f, f->prev, x, y) = (float)fn(x, y);
}

static double packet_lambda, packet_sigma, packet_x0;
static double packet(int x, int y)   /* a wave packet: carrier packet_lambda, envelope packet_sigma */
{
    (void)y;
    double u = x - packet_x0;
    return exp(-u * u / (2 * packet_sigma * packet_sigma)) * cos(2 * PI * u / packet_lambda);
}

static int box_n;
static double box_mode(int x, int y)   /* the (1, 1) mode of a box of box_n cells */
{
    return sin(PI * (x + 1) / (box_n + 1)) * sin(PI * (y + 1) / (box_n + 1));
}

/* ---- the wave solver ---------------------------------------------------------- */

/* A line source at x = 2 drives a plane wave to the right; the right part of
 * the grid absorbs. The wavelength is measured from the zero crossings of the
 * row between x = 20 and x = 100, interpolated linearly. */
static void test_driven_wavelength(void **state)
{
    (void)state;
    struct scene sc;
    /* c = 0.2 m/s, f = 10 Hz: lambda = 2 cm = 20 cells of 1 mm (>= 10 per wavelength). */
    wave_scene(&sc, 200, 3, 0.001, 0.2, 12);   /* nu = 0.2 / (360 * 0.001) = 0.556 */
    struct oscillator o = { .is_line = true, .from = { 2, 0 }, .to = { 2, 2 }, .radius = 0, .amplitude = 1,
                            .frequency = 10, .end = { .is_frame = true, .frame = 1000 }, .shape = SHAPE_POINT };
    sc.oscillators = &o;
    sc.n_oscillators = 1;
    sc.boundary[EDGE_LEFT] = EDGE_FIXED;
    sc.boundary[EDGE_RIGHT] = EDGE_ABSORB;
    sc.boundary[EDGE_TOP] = sc.boundary[EDGE_BOTTOM] = EDGE_CLAMP;
    sc.absorb_width = 40;
    struct sim *s = make(&sc);
    for (int k = 0; k < 45; k++)   /* 1.5 s: the front went 30 cm, far past the grid */
        advance(s);
    double lambda = wavelength(sim_field(s), 1, 20, 100);
    double want = 0.2 / 10 / 0.001;
    print_message("driven wavelength %.3f cells, c/f = %.3f cells (%.2f%%)\n", lambda, want,
                  100 * fabs(lambda - want) / want);
    assert_true(fabs(lambda - want) < 0.02 * want);
    sim_free(s);
}

/* The discrete energy that leapfrog conserves (fixed edges, ghosts 0):
 * E(n+1/2) = sum (u' - u)^2 + nu^2 sum over cell faces (D u')(D u),
 * D the difference across a face (faces to the ghosts included). */
static double leapfrog_energy(const struct field *f, double nu2)
{
    const float *a = f->cur, *b = f->prev;   /* u' and u */
    double kin = 0, pot = 0;
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            double d = (double)AT(f, a, x, y) - (double)AT(f, b, x, y);
            kin += d * d;
            /* faces to the left and above of every cell, and the right and
             * bottom faces of the last column and row */
            double al = x > 0 ? AT(f, a, x - 1, y) : 0, bl = x > 0 ? AT(f, b, x - 1, y) : 0;
            double au = y > 0 ? AT(f, a, x, y - 1) : 0, bu = y > 0 ? AT(f, b, x, y - 1) : 0;
            double ac = AT(f, a, x, y), bc = AT(f, b, x, y);
            pot += (ac - al) * (bc - bl) + (ac - au) * (bc - bu);
            if (x == f->w - 1)
                pot += ac * bc;
            if (y == f->h - 1)
                pot += ac * bc;
        }
    return kin + nu2 * pot;
}

static void test_energy(void **state)
{
    (void)state;
    struct scene sc;
    wave_scene(&sc, 24, 20, 0.001, 0.2, 10);   /* nu = 0.2 / (300 * 0.001) = 2/3 */
    sc.time.steps_per_frame = 10;
    for (int k = 0; k < 4; k++)
        sc.boundary[k] = EDGE_FIXED;
    struct drop d = { .at = { .is_frame = true }, .x = 9, .y = 8, .radius = 3, .amplitude = 1,
                      .shape = SHAPE_GAUSSIAN };
    sc.drops = &d;
    sc.n_drops = 1;
    struct sim *s = make(&sc);
    double nu = 0.2 / 300 / 0.001;
    advance(s);   /* 10 steps: both planes hold the evolving field */
    double e0 = leapfrog_energy(sim_field(s), nu * nu), worst = 0;
    for (int k = 0; k < 1000; k++) {   /* 10,000 steps */
        advance(s);
        double en = leapfrog_energy(sim_field(s), nu * nu);
        worst = fmax(worst, fabs(en - e0) / e0);
    }
    print_message("leapfrog energy over 10000 steps: worst relative change %.2e\n", worst);
    assert_true(e0 > 0);
    assert_true(worst < 1e-3);
    sim_free(s);
}

/* The (1, 1) mode of a closed square box of n cells with `fixed` edges
 * (u = 0 one cell outside: a box of side L = (n + 1) dx). Analytic:
 * f = c sqrt(2) / (2 L). The scheme's own: cos(w dt) = 1 - 2 nu^2
 * (1 - cos(pi / (n + 1))), which differs from the
 * analytic one by about (k dx)^2 / 24 (1 - nu^2): 0.1% at 40 cells. The
 * period is measured from the centre cell's zero crossings over 4 periods. */
static void test_standing_mode(void **state)
{
    (void)state;
    struct scene sc;
    const int n = 40;
    const double dx = 0.001, c = 0.1, L = (n + 1) * dx;
    wave_scene(&sc, n, n, dx, c, 10);   /* nu = 1/3 */
    sc.time.fps = 30;
    for (int k = 0; k < 4; k++)
        sc.boundary[k] = EDGE_FIXED;
    /* Start from rest in the mode shape, written into the sim's own field
     * (both planes equal: at rest) before the first step. */
    struct sim *s = make(&sc);
    box_n = n;
    at_rest(s, box_mode);
    const struct field *f = sim_field(s);
    const double dt = 1.0 / 300, want = c * sqrt(2.0) / (2 * L);
    double t_first = -1, t_last = -1, prev = AT(f, f->cur, n / 2, n / 2);
    int crossings = 0;
    for (int step = 1; step <= 400 && crossings < 9; step++) {
        advance(s);   /* one frame = 10 steps; crossings interpolated between frames */
        double v = AT(f, f->cur, n / 2, n / 2);
        if ((prev < 0) != (v < 0)) {
            double t = (step - 1 + prev / (prev - v)) * 10 * dt;
            if (t_first < 0)
                t_first = t;
            t_last = t;
            crossings++;
        }
        prev = v;
    }
    assert_int_equal(crossings, 9);
    double freq = 4.0 / (t_last - t_first);
    double nu = c * dt / dx, kx = PI / (n + 1);
    double discrete = acos(1 - nu * nu * 2 * (1 - cos(kx))) / (2 * PI * dt);
    print_message("box mode: measured %.4f Hz, analytic %.4f Hz (%.3f%%), discrete %.4f Hz\n", freq, want,
                  100 * fabs(freq - want) / want, discrete);
    /* Against the analytic frequency: 0.5%; against the scheme's own: 0.1%
     * (the frame sampling and linear interpolation of the crossings). */
    assert_true(fabs(freq - want) < 0.005 * want);
    assert_true(fabs(freq - discrete) < 0.001 * discrete);
    sim_free(s);
}

/* A speed map: the left half of a strip at map value 1 (0.2 m/s), the right
 * half at 0 (0.1 m/s), speed_range [0.1, 0.2]; a line source at 10 Hz. The
 * wave keeps its frequency and its wavelength halves: 20 cells on the left,
 * 10 on the right (within 3 %: the slow side has 10 cells per wavelength;
 * the left side also holds the third of the wave the step reflects). The
 * Courant check looks at the fastest cell. */
static void test_speed_map(void **state)
{
    (void)state;
    enum { W = 240, H = 3 };
    static unsigned char px[W * H];
    char path[64];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            px[y * W + x] = x < 120 ? 255 : 0;
    snprintf(path, sizeof path, "/tmp/rr_speed_map_%ld.png", (long)getpid());
    write_gray_png(path, W, H, px);
    struct scene sc;
    struct sim *s = NULL;
    struct rr_err e = { 0 };
    wave_scene(&sc, W, H, 0.001, 0.05, 9);
    sc.solver.speed_map = path;
    sc.solver.speed_range[0] = 0.1;
    sc.solver.speed_range[1] = 0.2;
    /* 9 steps: 0.2 m/s gives nu = 0.74 (0.05 m/s alone would pass) */
    assert_int_equal(sim_create(&s, &sc, &e), -1);
    assert_non_null(strstr(e.msg, "c = 0.2 m/s at its fastest"));
    sc.time.steps_per_frame = 12;
    struct oscillator o = { .is_line = true, .from = { 2, 0 }, .to = { 2, H - 1 }, .radius = 0, .amplitude = 1,
                            .frequency = 10, .end = { .is_frame = true, .frame = 1000 }, .shape = SHAPE_POINT };
    sc.oscillators = &o;
    sc.n_oscillators = 1;
    sc.boundary[EDGE_LEFT] = EDGE_FIXED;
    sc.boundary[EDGE_RIGHT] = EDGE_ABSORB;
    sc.boundary[EDGE_TOP] = sc.boundary[EDGE_BOTTOM] = EDGE_CLAMP;
    sc.absorb_width = 30;
    s = make(&sc);
    for (int k = 0; k < 60; k++)   /* 2 s: through both halves */
        advance(s);
    double fast = wavelength(sim_field(s), 1, 20, 110), slow = wavelength(sim_field(s), 1, 130, 200);
    print_message("speed map: wavelength %.3f cells at 0.2 m/s (want 20), %.3f at 0.1 m/s (want 10)\n", fast, slow);
    assert_true(fabs(fast - 20) < 0.03 * 20);
    assert_true(fabs(slow - 10) < 0.03 * 10);
    sim_free(s);
    remove(path);
}

/* An `initial` plane wave under the wave solver travels at the scheme's own
 * phase speed: on a periodic grid, after n steps the field is
 * A cos(k x - w n) with cos w = 1 - nu^2 (2 - cos k), to float rounding. */
static void test_initial_plane_wave(void **state)
{
    (void)state;
    struct scene sc;
    wave_scene(&sc, 32, 4, 0.001, 0.15, 10);   /* nu = 0.5 */
    for (int k = 0; k < 4; k++)
        sc.boundary[k] = EDGE_WRAP;
    struct initial in = { .type = INITIAL_WAVE, .wavelength = 16, .angle = 0, .amplitude = 1 };
    sc.initial = &in;
    sc.n_initial = 1;
    struct sim *s = make(&sc);
    for (int k = 0; k < 6; k++)
        advance(s);   /* 60 steps */
    const struct field *f = sim_field(s);
    double k = 2 * PI / 16, w = acos(1 - 0.25 * (1 - cos(k))), worst = 0;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 32; x++)
            worst = fmax(worst, fabs((double)AT(f, f->cur, x, y) - cos(k * x - w * 60)));
    print_message("plane wave after 60 steps: worst error %.2e\n", worst);
    assert_true(worst < 1e-4);
    sim_free(s);
}

/* The Courant check names the step count that passes; "auto" picks it. */
static void test_courant(void **state)
{
    (void)state;
    struct scene sc;
    struct sim *s = NULL;
    struct rr_err e = { 0 };
    /* c = 0.2 m/s, 1 mm cells, 30 fps: nu = 6.67 / spf <= 0.7071 needs spf >= 9.43 */
    wave_scene(&sc, 16, 16, 0.001, 0.2, 9);
    assert_int_equal(sim_create(&s, &sc, &e), -1);
    assert_null(s);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "time.steps_per_frame: 9 is unstable"));
    assert_non_null(strstr(e.msg, "use steps_per_frame 10 or more"));
    assert_int_equal(solver_auto_steps(&sc), 10);
    assert_int_equal(solver_wave_min_steps(0.2, 30, 0.001), 10);
    assert_true(solver_wave_stable(0.2, 30, 10, 0.001) && !solver_wave_stable(0.2, 30, 9, 0.001));
    sc.time.steps_per_frame = 10;
    s = make(&sc);
    sim_free(s);
    sc.solver.type = solver_find("elias");   /* stable at any count */
    assert_int_equal(solver_auto_steps(&sc), 1);
}

/* The amplitude of the box's (1, 1) mode, measured as its projection, decays
 * to half in half_life seconds: the time between two peaks of |a(t)| far
 * apart gives the decay rate. Peaks are refined with a parabola through the
 * three samples around them. Returns the measured half-life in seconds. */
static double measured_half_life(struct scene *sc, int n, int frames)
{
    box_n = n;
    struct sim *s = make(sc);
    at_rest(s, box_mode);
    double *a = malloc((size_t)(frames + 1) * sizeof *a);
    assert_non_null(a);
    for (int t = 0; t <= frames; t++) {
        if (t > 0)
            advance(s);
        const struct field *f = sim_field(s);
        double dot = 0, nn = 0;
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                dot += (double)AT(f, f->cur, x, y) * box_mode(x, y);
                nn += box_mode(x, y) * box_mode(x, y);
            }
        a[t] = fabs(dot / nn);
    }
    sim_free(s);
    double t1 = -1, p1 = 0, t2 = -1, p2 = 0;
    for (int t = 1; t < frames; t++)
        if (a[t] >= a[t - 1] && a[t] > a[t + 1]) {
            double den = a[t - 1] - 2 * a[t] + a[t + 1];
            double off = den != 0 ? 0.5 * (a[t - 1] - a[t + 1]) / den : 0;
            double peak = a[t] - 0.25 * (a[t - 1] - a[t + 1]) * off;
            if (t1 < 0) {
                t1 = t + off;
                p1 = peak;
            }
            t2 = t + off;
            p2 = peak;
        }
    free(a);
    assert_true(t1 >= 0 && t2 > t1);
    return (t2 - t1) / sc->time.fps * log(2.0) / log(p1 / p2);   /* a sample per frame */
}

static void test_half_life_measured(void **state)
{
    (void)state;
    struct scene sc;
    /* elias: dt = 1/60 s, half_life 1 s; 4 s of a 20-cell box (period 42 steps) */
    wave_scene(&sc, 20, 20, 0.001, 0.1, 1);
    sc.time.fps = 60;
    sc.solver.type = solver_find("elias");
    sc.solver.half_life = 1.0;
    for (int k = 0; k < 4; k++)
        sc.boundary[k] = EDGE_FIXED;
    double el = measured_half_life(&sc, 20, 240);
    /* wave: c = 0.1 m/s, 1 mm cells, dt = 1/600 s (nu = 1/6), half_life 0.5 s */
    wave_scene(&sc, 20, 20, 0.001, 0.1, 10);
    sc.time.fps = 60;
    sc.solver.half_life = 0.5;
    for (int k = 0; k < 4; k++)
        sc.boundary[k] = EDGE_FIXED;
    double wv = measured_half_life(&sc, 20, 120);
    /* wave with decay gamma = ln 2 / 0.5 s instead: the same half-life */
    sc.solver.half_life = 0;
    sc.solver.decay = log(2.0) / 0.5;
    double wd = measured_half_life(&sc, 20, 120);
    /* flow (F = 1) and elias with 8 neighbours, as elias above */
    wave_scene(&sc, 20, 20, 0.001, 0.1, 1);
    sc.time.fps = 60;
    sc.solver.half_life = 1.0;
    sc.solver.type = solver_find("flow");
    double fl = measured_half_life(&sc, 20, 240);
    sc.solver.type = solver_find("elias");
    sc.solver.neighbors = 8;
    double e8 = measured_half_life(&sc, 20, 240);
    /* spring (blend 1/2, 2 passes): its blur damps the mode too, |lambda|^2 =
     * B^2 d, so the height falls by sqrt(B^2) per step on top of half_life's
     * sqrt(d): rates add, 1/T = 1/half_life + 1/T_blur with T_blur = ln 2 dt /
     * -ln |B| (B for the mode's k = pi / 21 on both axes: 2.57 s) */
    sc.solver.type = solver_find("spring");
    const double ck = cos(PI / 21), dt = 1.0 / 60;
    const double t_blur = log(2.0) * dt / -log(fabs(solver_spring_blur(&sc, ck, ck)));
    const double sp_want = 1 / (1 / sc.solver.half_life + 1 / t_blur);
    double sp = measured_half_life(&sc, 20, 240);
    print_message("measured half-life: elias %.4f s, flow %.4f s, elias 8 %.4f s (want 1), spring %.4f s (want "
                  "%.4f), wave %.4f s and %.4f s by decay (want 0.5)\n", el, fl, e8, sp, sp_want, wv, wd);
    assert_true(fabs(el - 1.0) < 0.01);
    assert_true(fabs(fl - 1.0) < 0.01);
    assert_true(fabs(e8 - 1.0) < 0.01);
    assert_true(fabs(sp - sp_want) < 0.01 * sp_want);
    assert_true(fabs(wv - 0.5) < 0.005);
    assert_true(fabs(wd - 0.5) < 0.005);
}

/* A mover faster than the waves leaves a V: its half-angle is asin(c / v)
 * (the Mach cone). The wave solver with c = 0.1 m/s, the mover at v = 0.2 m/s
 * along y = 80: 30 degrees. The cone's edge is found, at each x behind the
 * mover, as the farthest cell from the axis whose height exceeds 2% of the
 * largest; its slope by least squares over 20 to 90 cells behind. Tolerance
 * 2 degrees (the edge is a few cells wide; the grid is coarse). */
static void test_wake_angle(void **state)
{
    (void)state;
    struct scene sc;
    wave_scene(&sc, 260, 161, 0.001, 0.1, 5);   /* nu = 0.1 / (150 * 0.001) = 2/3 */
    sc.time.frames = 30;
    for (int k = 0; k < 4; k++)
        sc.boundary[k] = EDGE_ABSORB;
    struct path_point path[2] = { { 0, 20, 80 }, { 1, 220, 80 } };   /* 200 mm in 1 s */
    struct mover m = { .path = path, .n_path = 2, .radius = 3, .amplitude = -0.05, .shape = SHAPE_GAUSSIAN };
    sc.movers = &m;
    sc.n_movers = 1;
    struct sim *s = make(&sc);
    for (int k = 0; k < 30; k++)
        advance(s);
    const struct field *f = sim_field(s);
    double top = 0;
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++)
            top = fmax(top, fabs(AT(f, f->cur, x, y)));
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (int back = 20; back <= 90; back++) {
        int x = 220 - back, edge = 0;
        for (int y = 0; y < f->h; y++)
            if (fabs(AT(f, f->cur, x, y)) > 0.02 * top && abs(y - 80) > edge)
                edge = abs(y - 80);
        sx += back;
        sy += edge;
        sxx += (double)back * back;
        sxy += (double)back * edge;
        n++;
    }
    double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    double angle = atan(slope) * 180 / PI, want = asin(0.1 / 0.2) * 180 / PI;
    print_message("wake half-angle %.2f degrees, asin(c/v) = %.2f\n", angle, want);
    assert_true(fabs(angle - want) < 2.0);
    sim_free(s);
}

/* ---- absorbing edges ------------------------------------------------------------ */

/* A 1-D-like strip (height 1, top and bottom `clamp`, so the y-neighbours
 * equal the cell) with the given left and right edges: a wave packet of
 * wavelength lambda and envelope sigma = 1.5 lambda (a plane wave of a few
 * cycles, nearly free of the zero-frequency part a short pulse carries)
 * starts at rest in the middle and splits into two of half its height that
 * run to the edges. Returns the largest height in the interior once they have
 * left it, while what the edges send back crosses it; *incident gets their
 * height on the way out. nu: the long-wave speed in cells per step. */
static double echo(struct scene *sc, double nu, double lambda, int aw, enum edge_kind left, enum edge_kind right,
                   double *incident)
{
    const double sigma = 1.5 * lambda;
    const int x0 = aw + (int)ceil(3 * sigma) + 10, w = 2 * x0;
    packet_lambda = lambda;
    packet_sigma = sigma;
    packet_x0 = x0;
    sc->grid.width = w;
    sc->grid.height = 1;
    sc->time.steps_per_frame = 1;
    sc->boundary[EDGE_LEFT] = left;
    sc->boundary[EDGE_RIGHT] = right;
    sc->boundary[EDGE_TOP] = sc->boundary[EDGE_BOTTOM] = EDGE_CLAMP;
    sc->absorb_width = aw;
    struct sim *s = make(sc);
    at_rest(s, packet);
    /* centres at x0 +- nu t: apart (and still inside) once nu t > 3 sigma;
     * gone from the interior once nu t > x0 - aw + 3 sigma */
    long t_in = lround(3 * sigma / nu) + 1, t1 = lround((x0 - aw + 3 * sigma) / nu) + 1;
    long t2 = t1 + lround((w - 2 * aw) / nu);
    double back = 0;
    *incident = 0;
    for (long t = 1; t <= t2; t++) {
        advance(s);
        const struct field *f = sim_field(s);
        for (int x = aw; x < w - aw; x++) {
            double v = fabs(AT(f, f->cur, x, 0));
            if (t == t_in)
                *incident = fmax(*incident, v);
            if (t >= t1)
                back = fmax(back, v);
        }
    }
    sim_free(s);
    return back;
}

/* The amplitude reflection coefficient of `absorb` edges at normal incidence:
 * what comes back from two absorbing edges over what comes back when the left
 * edge is `fixed` (a full reflector) on the same path, so that a solver's own
 * damping of the packet on its way (spring's blur) cancels out. An upper
 * bound: both absorbing edges' echoes may add up in the interior. Wavelengths
 * of 8 to 64 cells with layers as deep as the wavelength (at least 16 cells,
 * the default): under 5 % for every solver (docs/solvers.md lists the numbers
 * this prints). On the way it checks the per-edge boundary object: `fixed`
 * on the left or on the right sends back the same, and for the undamped
 * solvers all of the incident packet. */
static void test_absorb_reflection(void **state)
{
    (void)state;
    static const struct { double lambda; int width; } cases[] = { { 8, 16 }, { 16, 16 }, { 32, 32 }, { 64, 64 } };
    static const char *const types[] = { "wave", "elias", "flow", "spring" };
    static const char *const names[] = { "wave", "elias", "flow", "spring" };
    /* long-wave speeds in cells per step: wave 0.15 / (300 * 0.001) = 0.5;
     * elias 1/sqrt(2); flow (F = 1) 1/2; spring (blend 0.5, 2 passes) sqrt(1/5) */
    const double nu[] = { 0.5, sqrt(0.5), 0.5, sqrt(0.2) };
    for (int k = 0; k < 4; k++) {
        char line[200];
        int n = snprintf(line, sizeof line, "reflection, %-6s:", names[k]);
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            struct scene sc;
            double in, in2;
            wave_scene(&sc, 16, 1, 0.001, 0.15, 1);
            sc.time.fps = 300;
            sc.solver.type = solver_find(types[k]);
            double lam = cases[c].lambda;
            int aw = cases[c].width;
            if (!strcmp(types[k], "spring") && lam < 32)
                continue;   /* its blur damps such short waves by 1.5 % (16 cells) to 6 % (8) a
                             * step: after the ~800 steps of the trip only noise arrives */
            double ab = echo(&sc, nu[k], lam, aw, EDGE_ABSORB, EDGE_ABSORB, &in);
            double fl = echo(&sc, nu[k], lam, aw, EDGE_FIXED, EDGE_ABSORB, &in2);
            double fr = echo(&sc, nu[k], lam, aw, EDGE_ABSORB, EDGE_FIXED, &in2);
            double r = ab / fl;
            n += snprintf(line + n, sizeof line - (size_t)n, "  lambda %2.0f / layer %2d: %.4f", lam, aw, r);
            if (!(r < 0.05))
                fail_msg("%s, lambda %g, layer %d: reflection %g is not under 0.05", names[k], lam, aw, r);
            if (!(fabs(fl - fr) < 0.05 * fl))
                fail_msg("%s, lambda %g: a fixed left edge sends back %g, a fixed right edge %g", names[k], lam, fl,
                         fr);
            if (strcmp(types[k], "spring") && !(fl > 0.9 * in))
                fail_msg("%s, lambda %g: a fixed edge sends back %g of %g", names[k], lam, fl, in);
        }
        print_message("%s\n", line);
    }
}

int main(void)
{
    omp_set_num_threads(1);   /* tiny grids: threads only add overhead (test_solvers checks -j) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driven_wavelength),
        cmocka_unit_test(test_energy),
        cmocka_unit_test(test_standing_mode),
        cmocka_unit_test(test_speed_map),
        cmocka_unit_test(test_initial_plane_wave),
        cmocka_unit_test(test_courant),
        cmocka_unit_test(test_half_life_measured),
        cmocka_unit_test(test_wake_angle),
        cmocka_unit_test(test_absorb_reflection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* spectral.c: seed 001_d21745d18e6d1177.txt (FFT water waves) made physical:
 * linear water waves in real units, every Fourier mode of the surface advanced
 * exactly in time, with gravity, surface tension, depth and viscosity.
 *
 * Equation (linear potential flow, Lamb, Hydrodynamics §228, §348): a surface
 * mode exp(i k.x) of wavenumber k = |k| oscillates at
 *     omega^2 = (g k + (sigma / rho) k^3) tanh(k d)        (tanh -> 1: deep water)
 * and viscosity makes its amplitude decay at gamma = 2 nu k^2. So each mode's
 * height is h_k(t) = exp(-gamma t) (C cos(omega t) + S sin(omega t)).
 *
 * Discretisation: the state is two height planes, now (h_n) and one step ago
 * (h_{n-1}), as for the other solvers. Every function of that form obeys the
 * two-step recurrence
 *     h_{n+1} = a h_n - b h_{n-1},  a = 2 q e^{-gamma dt} cos(omega dt),
 *                                   b = q^2 e^{-2 gamma dt}
 * exactly (its characteristic roots are q e^{(-gamma +- i omega) dt}), where q
 * is the extra per-step factor of `half_life` (1 without it). So one step is
 * one forward 2-D FFT of the complex plane h_n + i h_{n-1} (two real planes in
 * one transform, separated by the Hermitian symmetry), one multiplication per
 * mode, one inverse FFT. The k = 0 mode (the mean level) is held: a = 1, b = 0,
 * since mass conservation makes the mean height constant.
 *
 * Stability: none to check. The recurrence's roots have modulus
 * q e^{-gamma dt} <= 1 for every dt and every mode, so the step is
 * unconditionally stable. dt still matters where physical space does: sources
 * are applied once per step, so an oscillator also drives the short waves
 * whose omega dt aliases to its own 2 pi f dt unless the fastest mode of the
 * grid turns less than pi per step (dt < pi / omega(pi / cell_size)), and a
 * sponge only absorbs waves that take several steps to cross it.
 *
 * Sources, walls, sponges: sim.c changes h_n in physical space between steps
 * (drops, oscillators, movers; walls set to 0; absorb sponges). The solver
 * remembers the heights it wrote; whatever differs at the next step was done
 * by those, and the same change is added to h_{n-1} as well, so that a drop is
 * a displacement of water at rest (the Cauchy-Poisson problem) and the
 * response does not depend on dt (the finite-difference solvers instead take
 * such a change as an impulse of velocity h/dt).
 *
 * Edges: the FFT is periodic. `wrap` on an axis uses the grid's own size. Any
 * other edge gets a pad of at least PAD_MIN cells beyond the grid, inside the
 * FFT domain (the domain is then rounded up to a size of factors 2, 3, 5, 7),
 * refilled before each step: `fixed` with the grid's image negated (odd about
 * a zero just beyond the edge: waves reflect inverted, as from seed 004's
 * walls), `clamp` with its mirror image (even about the edge's cell face: a
 * reflection without inversion); `absorb` lets the waves run into it and
 * damps them with a sponge of rate s_max u^2 at depth u in (0, 1] of the pad
 * (see spectral_init), on top of sim.c's sponge inside the grid. Obstacles
 * are masked (set to 0 each step by sim.c); the wave operator is not local,
 * so thin walls leak a little: make walls a few cells thick.
 *
 * Departures from the seed: the seed animates heights with speed sqrt(1/k) in
 * arbitrary units, damps short waves by an ad hoc factor and stores the
 * vertical velocity in the imaginary part; here the frequency, the decay and
 * the units are physical, and the second plane is the height one step ago.
 *
 * FFT: FFTW 3 (fftw3f), FFTW_ESTIMATE plans only (FFTW_MEASURE picks plans by
 * timing, so its bits change from run to run). Chosen by measurement against
 * libavutil's av_tx (FFmpeg 5.1) for a 1024 x 1024 complex round trip made of
 * 1-D transforms over rows and gathered columns (tests/bench/fft_roundtrip.c):
 * av_tx 35-37 ms, FFTW 31-34 ms with one thread, about 18-23 ms for both with
 * two; but av_tx 5.1 falls back to a naive O(n^2) DFT for lengths such as 540,
 * 600 or 1000 (9-30 ms per 1-D transform against 1-9 us for FFTW), and `wrap`
 * grids take any size. See docs/solvers.md. Each row and column is
 * transformed by the same plan and code path on whichever thread, so the
 * frames do not depend on -j. */
#include "solver.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

extern const struct solver_ops solver_spectral;

#define PAD_MIN 32   /* cells of pad beyond a non-periodic edge */
#define SPONGE_WAVES 0.5   /* the pad's sponge is tuned to waves this many per pad width... */
#define SPONGE_RATE 0.5    /* ...and its top damping rate in units of their omega */
/* Domains smaller than this run on one thread: a step has about ten parallel
 * loops, and on a busy machine their barriers cost more than small FFTs
 * (measured: a 315 x 224 domain took 2.4 ms a step on one thread, 23 ms on
 * two with the machine's 2 cores loaded 7 deep). */
#define PAR_MIN (512 * 512)

/* One axis of the FFT domain: n cells, the grid's m cells from offset lo,
 * then hi pad cells; lo + m + hi = n (both pads 0 when periodic). */
struct axis {
    int n, m, lo, hi;
    enum edge_kind e_lo, e_hi;
};

struct spectral {
    struct axis ax, ay;
    float *H, *P;             /* nx * ny: h_n, h_{n-1} over the whole domain */
    float *last;              /* w * h: the interior heights written by the last step */
    float *A, *B;             /* nx * ny: a and b per mode, normalisation folded in */
    float *sponge;            /* max pad: absorb factors by depth into the pad */
    fftwf_complex *Z, *W;     /* nx * ny: the transforms */
    fftwf_plan fx, ix, fy, iy;
    fftwf_complex *buf;       /* nthreads * 2 * max(nx, ny): gather buffers */
    size_t buflen;            /* complex values per thread: two lines, each a multiple of 64 bytes */
    int nthreads;
    int par;                  /* run the loops on several threads (large domains only) */
};

/* The smallest n >= m with no prime factor above 7 (fast FFT lengths). */
static int good_size(int m)
{
    for (int n = m;; n++) {
        int r = n;
        for (int p = 2; p <= 7; p++)
            while (r % p == 0)
                r /= p;
        if (r == 1)
            return n;
    }
}

static void axis_init(struct axis *a, int m, enum edge_kind lo, enum edge_kind hi, int pad)
{
    a->m = m;
    a->e_lo = lo;
    a->e_hi = hi;
    if (lo == EDGE_WRAP && hi == EDGE_WRAP) {
        a->n = m;
        a->lo = a->hi = 0;
        return;
    }
    a->n = good_size(m + 2 * pad);
    a->lo = (a->n - m) / 2;
    a->hi = a->n - m - a->lo;
}

/* The angular wavenumber (rad/m) of FFT bin j of an axis of n cells. */
static double wavenumber(int j, int n, double dx)
{
    int s = j <= n / 2 ? j : j - n;
    return 2.0 * M_PI * s / (n * dx);
}

static void spectral_free(void *priv)
{
    struct spectral *sp = priv;
    if (sp->fx) fftwf_destroy_plan(sp->fx);
    if (sp->ix) fftwf_destroy_plan(sp->ix);
    if (sp->fy) fftwf_destroy_plan(sp->fy);
    if (sp->iy) fftwf_destroy_plan(sp->iy);
    fftwf_free(sp->Z);
    fftwf_free(sp->W);
    fftwf_free(sp->buf);
    free(sp->H);
    free(sp->P);
    free(sp->last);
    free(sp->A);
    free(sp->B);
    free(sp->sponge);
    memset(sp, 0, sizeof *sp);
}

static int spectral_init(void *priv, const struct scene *sc, struct field *f, struct rr_err *e)
{
    struct spectral *sp = priv;
    const struct solver_config *c = &sc->solver;
    const double dx = sc->grid.cell_size, dt = scene_dt(sc);
    if (!(dx > 0))
        return rr_fail(e, RR_EXIT_USAGE, "grid.cell_size: the spectral solver needs a size in metres, got %g", dx);
    int pad = sc->absorb_width > PAD_MIN ? sc->absorb_width : PAD_MIN;
    axis_init(&sp->ax, f->w, sc->boundary[EDGE_LEFT], sc->boundary[EDGE_RIGHT], pad);
    axis_init(&sp->ay, f->h, sc->boundary[EDGE_TOP], sc->boundary[EDGE_BOTTOM], pad);
    const int nx = sp->ax.n, ny = sp->ay.n;
    const size_t n = (size_t)nx * (size_t)ny;
    const int nmax = nx > ny ? nx : ny;
    int maxpad = sp->ax.hi > sp->ay.hi ? sp->ax.hi : sp->ay.hi;
    sp->nthreads = omp_get_max_threads();
    sp->par = n >= PAR_MIN;
    /* Every thread's two line buffers start at a multiple of 64 bytes from
     * the (SIMD-aligned) allocation, so they have the alignment the plans were
     * made with: fftwf_execute_dft requires it, and it keeps one code path. */
    sp->buflen = 2 * (((size_t)nmax + 7) / 8 * 8);
    sp->H = calloc(n, sizeof *sp->H);
    sp->P = calloc(n, sizeof *sp->P);
    sp->last = malloc((size_t)f->w * (size_t)f->h * sizeof *sp->last);
    sp->A = malloc(n * sizeof *sp->A);
    sp->B = malloc(n * sizeof *sp->B);
    sp->sponge = malloc((size_t)(maxpad > 0 ? maxpad : 1) * sizeof *sp->sponge);
    sp->Z = fftwf_malloc(n * sizeof *sp->Z);
    sp->W = fftwf_malloc(n * sizeof *sp->W);
    sp->buf = fftwf_malloc((size_t)sp->nthreads * sp->buflen * sizeof *sp->buf);
    if (!sp->H || !sp->P || !sp->last || !sp->A || !sp->B || !sp->sponge || !sp->Z || !sp->W || !sp->buf) {
        spectral_free(sp);
        return rr_fail(e, RR_EXIT_RUNTIME, "spectral solver: out of memory for a %d x %d FFT domain", nx, ny);
    }
    /* Plans on the thread-private buffers (same alignment as every later use). */
    fftwf_complex *b0 = sp->buf, *b1 = sp->buf + sp->buflen / 2;
    sp->fx = fftwf_plan_dft_1d(nx, b0, b1, FFTW_FORWARD, FFTW_ESTIMATE);
    sp->ix = fftwf_plan_dft_1d(nx, b0, b1, FFTW_BACKWARD, FFTW_ESTIMATE);
    sp->fy = fftwf_plan_dft_1d(ny, b0, b1, FFTW_FORWARD, FFTW_ESTIMATE);
    sp->iy = fftwf_plan_dft_1d(ny, b0, b1, FFTW_BACKWARD, FFTW_ESTIMATE);
    if (!sp->fx || !sp->ix || !sp->fy || !sp->iy) {
        spectral_free(sp);
        return rr_fail(e, RR_EXIT_RUNTIME, "spectral solver: FFTW could not plan a %d x %d transform", nx, ny);
    }
    /* The per-mode coefficients; 1 / (2 nx ny): the separation's 1/2 and the
     * unnormalised inverse transform. */
    const double q = c->half_life > 0 ? pow(0.5, dt / c->half_life) : 1.0;
    const double tension = c->surface_tension / c->density, norm = 0.5 / (double)n;
    for (int j = 0; j < ny; j++) {
        double ky = wavenumber(j, ny, dx);
        for (int i = 0; i < nx; i++) {
            double kx = wavenumber(i, nx, dx), k = hypot(kx, ky);
            double a = 1.0, b = 0.0;   /* the mean level stays */
            if (k > 0) {
                double w2 = c->gravity * k + tension * k * k * k;
                if (c->depth > 0)
                    w2 *= tanh(k * c->depth);
                double damp = q * exp(-2.0 * c->viscosity * k * k * dt);
                a = 2.0 * damp * cos(sqrt(w2) * dt);
                b = damp * damp;
            }
            sp->A[(size_t)j * nx + i] = (float)(a * norm);
            sp->B[(size_t)j * nx + i] = (float)(b * norm);
        }
    }
    /* The pad's sponge: a damping rate s(u) = s_max u^2 (1/s) at depth
     * u = (i + 1) / maxpad, applied as exp(-s dt) per step so that it does not
     * depend on dt. s_max = omega / 2 of the wave twice as long as the pad:
     * gentle enough not to reflect. Chosen by measurement (test_edge_pads, a
     * pad of 4 wavelengths alone): it reflects 0.3% of a 10 Hz wave, where
     * s_max = omega of a wave of a third of the pad reflected 15%. */
    const double kp = 2.0 * M_PI * SPONGE_WAVES / ((maxpad > 0 ? maxpad : 1) * dx);
    double wp2 = c->gravity * kp + tension * kp * kp * kp;
    if (c->depth > 0)
        wp2 *= tanh(kp * c->depth);
    const double smax = SPONGE_RATE * sqrt(wp2);
    for (int i = 0; i < maxpad; i++) {
        double u = (i + 1.0) / maxpad;
        sp->sponge[i] = (float)exp(-smax * u * u * dt);
    }
    for (int y = 0; y < f->h; y++) {
        memcpy(sp->last + (size_t)y * f->w, f->cur + y * f->stride, (size_t)f->w * sizeof(float));
        memcpy(sp->H + (size_t)(y + sp->ay.lo) * nx + sp->ax.lo, f->cur + y * f->stride,
               (size_t)f->w * sizeof(float));
        memcpy(sp->P + (size_t)(y + sp->ay.lo) * nx + sp->ax.lo, f->prev + y * f->stride,
               (size_t)f->w * sizeof(float));
    }
    return 0;
}

/* The sponge factor at depth i (0 = next to the grid) of a pad of `len`
 * cells: the profile resampled to that length. */
static float pad_sponge(const struct spectral *sp, int i, int len, int maxpad)
{
    int k = (int)((long long)(i + 1) * maxpad / len) - 1;
    return sp->sponge[k < 0 ? 0 : k];
}

/* The value of the pad cell j cells beyond an edge (j = 0 next to it), as
 * sign * (grid cell *src, counted from that edge) for a grid m cells wide:
 * clamp mirrors about the edge's cell face (even: cell j); fixed is odd
 * about the first pad cell, which is 0 (cell j - 1, negated), the exact
 * condition "height 0 beyond the edge" for a symmetric operator, where zeroing
 * the pad would let the nonlocal operator lose part of the wave into it.
 * Pads wider than the grid repeat its far cell. */
static float mirror(enum edge_kind e, int j, int m, int *src)
{
    int k = e == EDGE_FIXED ? j - 1 : j;
    *src = k < 0 ? 0 : k < m ? k : m - 1;
    return e == EDGE_CLAMP ? 1.0f : k < 0 ? 0.0f : -1.0f;
}

/* Sets the pad cells of plane g (nx * ny) from the edge kinds (mirror, for
 * fixed and clamp); absorb pads are left as they evolved, and with `damp`
 * multiplied by the sponge. x pads over the grid's rows first, then y pads
 * over whole rows (corners from the x pads). */
static void fill_pads(const struct spectral *sp, float *g, int damp)
{
    const struct axis *ax = &sp->ax, *ay = &sp->ay;
    const int nx = ax->n;
    const int maxpad = ax->hi > ay->hi ? ax->hi : ay->hi;
    if (ax->lo + ax->hi > 0) {
#pragma omp parallel for schedule(static) if (sp->par)
        for (int y = ay->lo; y < ay->lo + ay->m; y++) {
            float *row = g + (size_t)y * nx;
            const float *in = row + ax->lo;
            for (int j = 0, src; j < ax->lo; j++) {
                float *d = row + ax->lo - 1 - j, sign = mirror(ax->e_lo, j, ax->m, &src);
                if (ax->e_lo != EDGE_ABSORB) *d = sign * in[src];
                else if (damp) *d *= pad_sponge(sp, j, ax->lo, maxpad);
            }
            for (int j = 0, src; j < ax->hi; j++) {
                float *d = row + ax->lo + ax->m + j, sign = mirror(ax->e_hi, j, ax->m, &src);
                if (ax->e_hi != EDGE_ABSORB) *d = sign * in[ax->m - 1 - src];
                else if (damp) *d *= pad_sponge(sp, j, ax->hi, maxpad);
            }
        }
    }
    for (int side = 0; side < 2; side++) {
        const enum edge_kind e = side ? ay->e_hi : ay->e_lo;
        const int len = side ? ay->hi : ay->lo;
        for (int j = 0, src; j < len; j++) {
            float *d = g + (size_t)(side ? ay->lo + ay->m + j : ay->lo - 1 - j) * nx;
            const float sign = mirror(e, j, ay->m, &src);
            const float *s = g + (size_t)(ay->lo + (side ? ay->m - 1 - src : src)) * nx;
            const float fac = pad_sponge(sp, j, len, maxpad);
            for (int x = 0; x < nx; x++)
                d[x] = e != EDGE_ABSORB ? sign * s[x] : damp ? d[x] * fac : d[x];
        }
    }
}

/* In-place 2-D FFT of z (nx * ny) with the plans px (rows) and py (columns):
 * each row and column is copied to the calling thread's buffer, transformed
 * there by the one plan, and copied back, so every line takes the same code
 * path with the same alignment on any thread. */
static void fft2(struct spectral *sp, fftwf_complex *z, fftwf_plan px, fftwf_plan py)
{
    const int nx = sp->ax.n, ny = sp->ay.n;
#pragma omp parallel num_threads(sp->nthreads) if (sp->par)
    {
        fftwf_complex *in = sp->buf + (size_t)omp_get_thread_num() * sp->buflen;
        fftwf_complex *out = in + sp->buflen / 2;
#pragma omp for schedule(static)
        for (int y = 0; y < ny; y++) {
            fftwf_complex *row = z + (size_t)y * nx;
            memcpy(in, row, (size_t)nx * sizeof *in);
            fftwf_execute_dft(px, in, out);
            memcpy(row, out, (size_t)nx * sizeof *out);
        }
#pragma omp for schedule(static)
        for (int x = 0; x < nx; x++) {
            for (int y = 0; y < ny; y++) {
                in[y][0] = z[(size_t)y * nx + x][0];
                in[y][1] = z[(size_t)y * nx + x][1];
            }
            fftwf_execute_dft(py, in, out);
            for (int y = 0; y < ny; y++) {
                z[(size_t)y * nx + x][0] = out[y][0];
                z[(size_t)y * nx + x][1] = out[y][1];
            }
        }
    }
}

static void spectral_step(void *priv, struct field *f)
{
    struct spectral *sp = priv;
    const int w = f->w, h = f->h, nx = sp->ax.n, ny = sp->ay.n;
    const int ox = sp->ax.lo, oy = sp->ay.lo;
    float *H = sp->H, *P = sp->P;
    /* What sim.c changed since the last step (sources, walls, sponges) is
     * taken as a displacement at rest: added to h_{n-1} too. */
#pragma omp parallel for schedule(static) if (sp->par)
    for (int y = 0; y < h; y++) {
        const float *cur = f->cur + y * f->stride, *prev = f->prev + y * f->stride;
        float *last = sp->last + (size_t)y * w;
        float *hr = H + (size_t)(y + oy) * nx + ox, *pr = P + (size_t)(y + oy) * nx + ox;
        for (int x = 0; x < w; x++) {
            hr[x] = cur[x];
            pr[x] = prev[x] + (cur[x] - last[x]);
        }
    }
    fill_pads(sp, H, 0);
    fill_pads(sp, P, 0);
    fftwf_complex *Z = sp->Z, *W = sp->W;
    const size_t n = (size_t)nx * ny;
#pragma omp parallel for schedule(static) if (sp->par)
    for (size_t k = 0; k < n; k++) {
        Z[k][0] = H[k];
        Z[k][1] = P[k];
    }
    fft2(sp, Z, sp->fx, sp->fy);
    /* With z = Z(k) and zm = conj(Z(-k)): FFT(h_n) = (z + zm) / 2 and
     * FFT(h_{n-1}) = (z - zm) / 2i, so a FFT(h_n) - b FFT(h_{n-1}) =
     * A (z + zm) + i B (z - zm) with A = a/2, B = b/2 (and 1 / (nx ny)). */
#pragma omp parallel for schedule(static) if (sp->par)
    for (int j = 0; j < ny; j++) {
        const int jm = j ? ny - j : 0;
        for (int i = 0; i < nx; i++) {
            const int im = i ? nx - i : 0;
            const size_t k = (size_t)j * nx + i, km = (size_t)jm * nx + im;
            const float zr = Z[k][0], zi = Z[k][1], mr = Z[km][0], mi = -Z[km][1];
            const float a = sp->A[k], b = sp->B[k];
            W[k][0] = a * (zr + mr) - b * (zi - mi);
            W[k][1] = a * (zi + mi) + b * (zr - mr);
        }
    }
    fft2(sp, W, sp->ix, sp->iy);
    /* h_{n-1} <- h_n, h_n <- the new heights (real part; the imaginary part
     * is rounding noise of a Hermitian spectrum). */
    sp->P = H;
    sp->H = P;
    H = sp->H;
#pragma omp parallel for schedule(static) if (sp->par)
    for (size_t k = 0; k < n; k++)
        H[k] = W[k][0];
    fill_pads(sp, H, 1);
#pragma omp parallel for schedule(static) if (sp->par)
    for (int y = 0; y < h; y++) {
        float *out = f->prev + y * f->stride, *last = sp->last + (size_t)y * w;
        const float *hr = H + (size_t)(y + oy) * nx + ox;
        memcpy(out, hr, (size_t)w * sizeof *out);
        memcpy(last, hr, (size_t)w * sizeof *last);
    }
    field_swap(f);
}

const struct solver_ops solver_spectral = {
    .name = "spectral",
    .priv_size = sizeof(struct spectral),
    .init = spectral_init,
    .step = spectral_step,
    .free = spectral_free,
};

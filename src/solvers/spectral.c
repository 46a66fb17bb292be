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
 * grid turns less than pi per step (dt < pi / omega(pi / cell_size): what
 * time.steps_per_frame "auto" picks, solver_auto_steps), and a sponge only
 * absorbs waves that take several steps to cross it.
 *
 * Sources, walls, sponges: sim.c changes h_n in physical space between steps
 * (drops, oscillators, movers, initial images; walls set to 0; absorb
 * sponges). The solver remembers the heights it wrote (`last`); whatever
 * differs at the next step, D = h_n - last, was done by those, and it is
 * taken as water displaced at rest (the Cauchy-Poisson problem) on top of the
 * motion there was, so that the response does not depend on dt (the
 * finite-difference solvers instead take such a change as an impulse of
 * velocity h/dt). At rest in this recurrence: the part D_k of a mode must go
 * on as D_k r^m cos(m omega dt), r = q e^{-gamma dt} (m steps on), whose value
 * one step back (m = -1) is D_k cos(omega dt) / r = D_k a / (2 b). So h_{n-1}
 * gets that, and the step becomes
 *     h_{n+1} = a h_n - b (h_{n-1} + D a / (2 b)) = (a / 2) (h_n + last) - b h_{n-1},
 * one FFT of the complex plane (h_n + last) / 2 + i h_{n-1}, at the cost of
 * the plain step. The held mean (a = 1, b = 0) would keep only half of D's:
 * its mode gets the other half, sum(D) / 2, added (`dsum`). The pads carry D
 * too: fixed and clamp pads mirror (h_n + last) / 2 as they mirror h_n, and
 * absorb pads are not touched by sim.c (D = 0 there).
 *
 * Edges: the FFT is periodic, so each axis's domain is the periodic
 * extension its edges define, whole (axis_init): `wrap` the grid's own size;
 * `fixed` the grid's mirror image negated (odd about the edge's cell face,
 * half a cell beyond the edge cell, where the height is 0: waves reflect
 * inverted, as from seed 004's walls), `clamp` its mirror image (even about
 * the same face: a reflection without inversion),
 * both over the whole period of the reflections; `absorb` a pad of at least
 * PAD_MIN cells (rounded up to a length FFTW is fast at, good_size) that
 * lets the waves run into it and damps them with a sponge of rate s_max u^2
 * at depth u in (0, 1] of the pad (see spectral_init), on top of sim.c's
 * sponge inside the grid, mirrored whole about a facing fixed or clamp
 * edge. The mirror cells are refilled before each step (fold_table,
 * mirror_pads) with what the step made there, up to rounding. Obstacles
 * are masked (set to 0 each step by sim.c); the wave operator is not local,
 * so thin walls leak a little: make walls a few cells thick.
 *
 * Departures from the seed: the seed animates heights with speed sqrt(1/k) in
 * arbitrary units, damps short waves by an ad hoc factor and stores the
 * vertical velocity in the imaginary part; here the frequency, the decay and
 * the units are physical, and the second plane is the height one step ago.
 *
 * FFT: FFTW 3 (fftw3f). Chosen by measurement against libavutil's av_tx
 * (FFmpeg 5.1): even at 1024, but av_tx 5.1 falls back to a naive O(n^2)
 * DFT for lengths such as 540, 600 or 1000, and `wrap` grids take any size
 * (docs/solvers.md). Plans by FFTW_ESTIMATE, the same on every run of a
 * build on one CPU, unless RIPPLERENDER_FFT=measure asks for plans timed on
 * this machine and kept as wisdom in the cache (fftwisdom.h): faster, but a
 * plan chosen by timing orders its additions differently, so those frames
 * differ from the estimated ones by rounding. One complex 1-D plan per axis
 * and one complex-to-real plan for the rows, all out of place, run on each
 * thread's own buffers and on Z's columns, all of one alignment, so every
 * line takes the same code path on any thread and the frames do not depend
 * on -j.
 *
 * A step is three passes over the domain, run by the program's thread team
 * (team.h: a barrier between passes, none inside; work items claimed from
 * an atomic counter, a dynamic schedule). Not an OpenMP region: sim.c uses
 * the team between steps, and the idle threads of two pools spin while the
 * other pool's work, taking the cores it needs.
 *  1. row groups of ROWS rows: each row packed straight from f->cur, f->prev,
 *     `last` and the pads, transformed, and the group's ROWS values of each
 *     column (two cache lines) stored in Z, which holds the transform by
 *     columns (column x at Z + x nyp);
 *  2. column items: columns i .. i + 7 with their partners nx - i - 7 .. nx - i
 *     (the -k_x of each), prefetched, transformed straight from Z into the
 *     thread's lines, every mode multiplied while the +k/-k pair is in cache, and
 *     columns 0 .. nx/2 transformed back into Z: the new spectrum is
 *     Hermitian, so the other half is never made;
 *  3. row groups: columns 0 .. nx/2 of each row loaded from Z, back to real
 *     heights by the complex-to-real plan (half the work of a complex one),
 *     written straight to f->prev, `last` and the absorb pads, each grid
 *     cell compared with the blow-up screen's limit as it is written
 *     (struct solver_screen), so that sim.c's check of the frame need not
 *     read the grid again.
 * Fixed and clamp pad rows are only mirrors of grid rows and are not
 * transformed by the row passes (mirror_rows), whose groups wholly inside
 * such a pad are skipped. The buffers' line strides
 * avoid multiples of 4 KiB (line_stride), and rows are packed four cells
 * at a time (pack_grid_row). */
#include "fftwisdom.h"
#include "solver.h"
#include "tblock.h"
#include "team.h"

#include <math.h>
#include <stdatomic.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

extern const struct solver_ops solver_spectral;

#define PAD_MIN 32   /* cells of pad beyond a non-periodic edge */
#define SPONGE_WAVES 0.5   /* the pad's sponge is tuned to waves this many per pad width... */
#define SPONGE_RATE 0.5    /* ...and its top damping rate in units of their omega */
/* Domains smaller than this run on one thread: on a busy machine the
 * barriers of a step cost more than small FFTs (measured: a 315 x 224 domain
 * took 2.4 ms a step on one thread, 23 ms on two with the machine's 2 cores
 * loaded 7 deep, when a step had about ten parallel loops). */
#define PAR_MIN (512 * 512)
/* Rows per group of the row passes: each pass moves ROWS values of a
 * column of Z, 128 bytes (two whole cache lines), per column and group
 * (measured: 16 rows a little faster than 8). */
#define ROWS 16
/* Columns per item of the column pass on each side of the +k_x / -k_x pairs. */
#define COLB 8
#define COLS (2 * COLB)

/* A cell of a mirror part of an axis (fold_cell): dst takes sgn times cell
 * src of the same line (a grid cell or an absorb pad cell), or 0 (sgn 0). */
struct fold_cell {
    int dst, src;
    float sgn;
};

/* One axis of the FFT domain: n cells, the grid's m cells from offset lo,
 * then hi pad cells; lo + m + hi = n (both pads 0 when periodic). `fold`
 * (nfold cells) lists the mirror cells, those of fixed and clamp pads, in
 * order of dst; NULL until spectral_init makes it. */
struct axis {
    int n, m, lo, hi;
    enum edge_kind e_lo, e_hi;
    struct fold_cell *fold;
    int nfold;
};

struct spectral {
    struct axis ax, ay;
    float *H, *P;             /* nx * ny: h_n, h_{n-1}; only the absorb pads' cells are used */
    float *last;              /* w * h: the interior heights written by the last step */
    float *wx, *wy;           /* w, h: each grid column's (row's) weight in a sum over the domain (mirror_weights) */
    double *dsum;             /* h: sum of wx (h_n - last) over each grid row, from the row pass */
    float *AB;                /* (nx / 2 + 1) * (ny / 2 + 1) pairs (a, b) by column, normalisation folded in */
    float *sponge;            /* max pad: absorb factors by depth into the pad */
    float *xfac;              /* nx: each domain column's factor in an absorb x pad (pad_sponge), 1 elsewhere */
    fftwf_complex *Z;         /* the transform by columns: nx columns of ny values, nyp apart */
    size_t nxp, nyp;          /* row and column line strides in the buffers (line_stride) */
    fftwf_plan fx, fy, iy;    /* one row, one column (complex, both ways) */
    fftwf_plan ix;            /* one row back: complex (nx / 2 + 1 values) to real */
    fftwf_complex *buf;       /* nthreads * buflen: line and block buffers */
    size_t buflen;            /* complex values per thread: two halves, each a multiple of 64 bytes */
    int nthreads;
    int par;                  /* run the passes on several threads (large domains only) */
    double mean_sign;         /* 1: the mean takes what sources add; -1 (time.loop): it stays */
    int nitems;               /* column pass work items: the self-paired columns, then pairs of blocks */
    int g0, g1;               /* the row passes' groups: those holding a row_kept row */
    int maxpad;               /* the widest absorb pad (absorb_pad), the sponge's resolution */
};

/* The stride, in complex values, of buffer lines of n values: a multiple of
 * 8 (64 bytes, so every line has the plans' alignment) that is not a
 * multiple of 4 KiB, where the 16 lines a pass writes together would all
 * fall in the same L1 cache sets. */
static size_t line_stride(size_t n)
{
    size_t s = (n + 7) / 8 * 8;
    return s % 512 == 0 ? s + 8 : s;
}

/* The weight of an FFT length whose odd part is r (no prime factor above
 * 7), by the time FFTW's estimated plans take per point at such lengths
 * (docs/solvers.md, "Edges"): 20 for r = 1, 3, 5 (2^a, 3 2^a, 5 2^a),
 * 22 for 25, 25 for the slowest, odd parts of five or more prime factors
 * or with 7^2 or 5^3 in them (243, 405, 441, 875, ...: 784, 810, 1000,
 * 1323), 23 for the others (7, 9, 15, 35, 75, 135, ...). */
static int length_weight(int r)
{
    if (r == 1 || r == 3 || r == 5)
        return 20;
    if (r == 25)
        return 22;
    int factors = 0;
    for (int p = 3, s = r; p <= 7; p += 2)
        for (; s % p == 0; s /= p)
            factors++;
    return factors >= 5 || r % 49 == 0 || r % 125 == 0 ? 25 : 23;
}

/* The padded length of an axis of at least m cells: of the lengths n >= m
 * with no prime factor above 7, the one of least n length_weight(n): the
 * transforms' time per point against the memory traffic of more cells,
 * which bounds large domains. A fixed rule, never a timing, so that the
 * domain and the bits are the same on every run. */
static int good_size(int m)
{
    int best = 0;
    long best_cost = 0;
    for (int n = m; best == 0 || (long)n * 20 < best_cost; n++) {
        int r = n;
        while (r % 2 == 0)
            r /= 2;
        int s = r;
        for (int p = 3; p <= 7; p += 2)
            while (s % p == 0)
                s /= p;
        const long cost = (long)n * length_weight(r);
        if (s == 1 && (best == 0 || cost < best_cost)) {
            best = n;
            best_cost = cost;
        }
    }
    return best;
}

/* The axis's primary cells, [*p0, *p1) of the domain: the grid and its
 * absorb pads, which hold their own values; every other cell is a mirror
 * cell (fold_cell). */
static void primary(const struct axis *a, int *p0, int *p1)
{
    *p0 = a->e_lo == EDGE_ABSORB ? 0 : a->lo;
    *p1 = a->e_hi == EDGE_ABSORB ? a->n : a->lo + a->m;
}

/* The FFT domain of one axis. The FFT is periodic, so the domain is the
 * periodic extension that the edges define, exactly, or the operator would
 * not keep it: a mirror pad that is not the whole extension (as a pad of a
 * fixed width was, cut off where it met the other side's pad) is refilled
 * each step with other values than the step made there, and that refill
 * can feed energy back into the grid until it blows up (on a 512 x 3 grid
 * of fixed edges, within 50 frames). So:
 * - wrap: the grid's own m cells;
 * - absorb on both sides: the grid with a pad of at least `pad` cells on
 *   each side, rounded up to a length FFTW is fast at (good_size); the
 *   pads meet each other, both damped;
 * - fixed or clamp on both sides: the whole period of the grid's mirror
 *   images about the edges' cell faces, half a cell beyond the edge cells:
 *   2 m (fixed, fixed: odd about each face, h(-1-j) = -h(j), the modes
 *   sin(k pi (i + 1/2) / m), k = 1 .. m, of a DST-II; clamp, clamp: even,
 *   cos(k pi (i + 1/2) / m), k = 0 .. m - 1, of a DCT-II) or 4 m (fixed,
 *   clamp: a period of two reflections of each kind, the modes
 *   sin((k + 1/2) pi (i + 1/2) / m) for a fixed low edge); nothing to round:
 *   the period is fast whenever the grid's size is;
 * - absorb on one side, fixed or clamp on the other: the grid and its absorb
 *   pad, mirrored whole about the other edge's face, the pad's far end a
 *   second face of the same kind (the waves that reach it are damped):
 *   period 2 L for L = m + pad, the pad widened to make it a fast length.
 * `fixed` thus holds the height 0 at the face half a cell beyond the edge
 * cell, not at the cell beyond it as the finite-difference solvers' ghost
 * cell does: the pool is m cells wide for fixed as for clamp, and a fixed
 * wall is half a cell nearer than theirs.
 * The mirror cells are then exact images, and a step maps the extension to
 * an extension of the new heights (docs/solvers.md, "Edges"). */
static void axis_init(struct axis *a, int m, enum edge_kind lo, enum edge_kind hi, int pad)
{
    a->m = m;
    a->e_lo = lo;
    a->e_hi = hi;
    a->fold = NULL;
    a->nfold = 0;
    if (lo == EDGE_WRAP && hi == EDGE_WRAP) {
        a->n = m;
        a->lo = a->hi = 0;
        return;
    }
    if (lo == EDGE_ABSORB && hi == EDGE_ABSORB) {
        a->n = good_size(m + 2 * pad);
        a->lo = (a->n - m) / 2;
    } else if (lo == EDGE_ABSORB || hi == EDGE_ABSORB) {
        const int half = good_size(m + pad);   /* L */
        a->n = 2 * half;
        a->lo = lo == EDGE_ABSORB ? half - m : half;
    } else {
        a->n = lo == hi ? 2 * m : 4 * m;
        a->lo = (a->n - m) / 2;
    }
    a->hi = a->n - m - a->lo;
}

/* Mirror cell x of an axis (outside its primary cells [p0, p1)): its source,
 * a primary cell, in *src, and the sign. Reflections about the primary
 * part's ends, each of the kind of its edge (an absorb pad's far end takes
 * the kind of the axis's other edge, axis_init), until the cell falls
 * inside: both kinds reflect about the end's cell face (cell p0 - 1 - j is
 * the image of p0 + j), clamp even, fixed odd (negated). */
static float fold(const struct axis *a, int x, int *src)
{
    int p0, p1;
    primary(a, &p0, &p1);
    const enum edge_kind klo = a->e_lo == EDGE_ABSORB ? a->e_hi : a->e_lo;
    const enum edge_kind khi = a->e_hi == EDGE_ABSORB ? a->e_lo : a->e_hi;
    float s = 1.0f;
    while (x < p0 || x >= p1) {
        const int low = x < p0;
        x = low ? 2 * p0 - 1 - x : 2 * p1 - 1 - x;
        if ((low ? klo : khi) == EDGE_FIXED)
            s = -s;
    }
    *src = x;
    return s;
}

/* The axis's mirror cells (fold) into a->fold; -1 when out of memory. */
static int fold_table(struct axis *a)
{
    int p0, p1;
    primary(a, &p0, &p1);
    a->nfold = a->n - (p1 - p0);
    a->fold = malloc((size_t)(a->nfold > 0 ? a->nfold : 1) * sizeof *a->fold);
    if (!a->fold)
        return -1;
    for (int x = 0, k = 0; x < a->n; x++)
        if (x < p0 || x >= p1) {
            a->fold[k].dst = x;
            a->fold[k].sgn = fold(a, x, &a->fold[k].src);
            k++;
        }
    return 0;
}

/* The FFT domain's two axes for the scene's grid and edges. */
static void scene_axes(const struct scene *sc, struct axis *ax, struct axis *ay)
{
    int pad = sc->absorb_width > PAD_MIN ? sc->absorb_width : PAD_MIN;
    axis_init(ax, sc->grid.width, sc->boundary[EDGE_LEFT], sc->boundary[EDGE_RIGHT], pad);
    axis_init(ay, sc->grid.height, sc->boundary[EDGE_TOP], sc->boundary[EDGE_BOTTOM], pad);
}

void solver_spectral_domain(const struct scene *sc, int *nx, int *ny)
{
    struct axis ax, ay;
    scene_axes(sc, &ax, &ay);
    *nx = ax.n;
    *ny = ay.n;
}

/* What spectral_init allocates (solver_ops.bytes). */
static uint64_t spectral_bytes(const struct scene *sc, int threads, char *what, size_t size)
{
    snprintf(what, size, "the spectral solver's padded domain (absorb_width %d)", sc->absorb_width);
    struct axis ax, ay;
    scene_axes(sc, &ax, &ay);
    /* As spectral_init allocates: H and P (4 + 4 per cell), AB (about 2),
     * Z (8 per cell, columns nyp apart), the threads' line buffers and
     * `last` (w x h floats), xfac (nx floats). */
    uint64_t nx = (uint64_t)ax.n, ny = (uint64_t)ay.n;
    uint64_t rows = ROWS * line_stride(nx), cols = COLS * line_stride(ny);
    uint64_t buflen = 2 * (rows > cols ? rows : cols), t = threads > 0 ? (uint64_t)threads : 1;
    /* And FFTW's own: its plans' tables and the planner's, 2 MiB. */
    return 8 * nx * ny + (nx / 2 + 1) * (ny / 2 + 1) * 8 + nx * line_stride(ny) * 8 + t * buflen * 8
           + (uint64_t)sc->grid.width * (uint64_t)sc->grid.height * 4 + nx * 4 + ((uint64_t)2 << 20);
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
    fftwf_free(sp->buf);
    free(sp->H);
    free(sp->P);
    free(sp->last);
    free(sp->wx);
    free(sp->wy);
    free(sp->dsum);
    free(sp->AB);
    free(sp->sponge);
    free(sp->xfac);
    free(sp->ax.fold);
    free(sp->ay.fold);
    memset(sp, 0, sizeof *sp);
}

/* The columns of column pass item t: for t >= 1, *i0 and *nb, the first
 * column and count of its left block (at most COLB), whose partners are the
 * nb columns ending at nx - i0; item 0 (*nb = 0) holds the columns that are
 * their own partners, 0 and (nx even) nx / 2. Returns the number of columns
 * of the item. */
static int column_item(const struct spectral *sp, int t, int *i0, int *nb)
{
    const int nx = sp->ax.n, left = (nx - 1) / 2;   /* columns 1 .. left pair with nx - i */
    if (t == 0) {
        *i0 = 0;
        *nb = 0;
        return nx % 2 == 0 && nx > 1 ? 2 : 1;
    }
    *i0 = 1 + (t - 1) * COLB;
    *nb = left - *i0 + 1 < COLB ? left - *i0 + 1 : COLB;
    return 2 * *nb;
}

/* The columns of item t: Z column and AB column (|k_x| index) of each of
 * its slots (lines of the column buffers), and the slot holding its partner
 * (the column of -k_x). */
static int item_columns(const struct spectral *sp, int t, int *col, int *kx, int *partner)
{
    const int nx = sp->ax.n;
    int i0, nb;
    const int c = column_item(sp, t, &i0, &nb);
    if (nb == 0) {
        for (int s = 0; s < c; s++) {
            col[s] = kx[s] = s * (nx / 2);
            partner[s] = s;
        }
        return c;
    }
    for (int s = 0; s < nb; s++) {
        col[s] = kx[s] = i0 + s;
        col[nb + s] = nx - i0 - nb + 1 + s;
        kx[nb + s] = i0 + nb - 1 - s;
        partner[s] = 2 * nb - 1 - s;
        partner[2 * nb - 1 - s] = s;
    }
    return c;
}

static float *mirror_weights(const struct axis *a);

/* The width of the axis's widest absorb pad, 0 without one. */
static int absorb_pad(const struct axis *a)
{
    int w = a->e_lo == EDGE_ABSORB ? a->lo : 0;
    return a->e_hi == EDGE_ABSORB && a->hi > w ? a->hi : w;
}
static float pad_sponge(const struct spectral *sp, int i, int len, int maxpad);

/* time.loop: omega dt of a mode of frequency omega (rad/s) moved to the
 * nearest whole number m of turns per loop of T = frames / fps seconds,
 * 2 pi m / (frames * steps_per_frame) per step, so that every mode is back
 * where it was after T (m = 0: a mode slower than half a turn per loop
 * stands still). The dispersion relation changes by at most pi / T. */
static double loop_omega_dt(const struct scene *sc, double omega)
{
    double turns = nearbyint(omega * sc->time.frames / (2.0 * M_PI * sc->time.fps));
    return 2.0 * M_PI * turns / (double)scene_total_steps(sc);
}

/* The slowest decay of a wave (k > 0): the half-life's ln 2 / half_life plus
 * the viscous 2 nu k^2 of the longest wave of the FFT domain (pads included). */
static double spectral_decay_rate(const struct scene *sc)
{
    struct axis ax, ay;
    scene_axes(sc, &ax, &ay);
    double kmin = 2.0 * M_PI / ((ax.n > ay.n ? ax.n : ay.n) * sc->grid.cell_size);
    double rate = 2.0 * sc->solver.viscosity * kmin * kmin;
    return sc->solver.half_life > 0 ? rate + M_LN2 / sc->solver.half_life : rate;
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
    const int maxpad = absorb_pad(&sp->ax) > absorb_pad(&sp->ay) ? absorb_pad(&sp->ax) : absorb_pad(&sp->ay);
    sp->maxpad = maxpad;
    sp->nthreads = omp_get_max_threads();
    sp->par = n >= PAR_MIN;
    /* Every thread's line buffers and every column of Z start at a multiple
     * of 64 bytes from their (SIMD-aligned) allocations, so they have the
     * alignment the plans were made with: fftwf_execute_dft requires it, and
     * it keeps one code path. */
    sp->nxp = line_stride((size_t)nx);
    sp->nyp = line_stride((size_t)ny);
    const size_t rows = ROWS * sp->nxp, cols = COLS * sp->nyp;
    sp->buflen = 2 * (rows > cols ? rows : cols);
    sp->nitems = 1 + ((nx - 1) / 2 + COLB - 1) / COLB;
    /* Fixed and clamp pad rows are not transformed (row_kept): the groups
     * wholly inside such a pad are skipped, not moved in or out of Z. */
    sp->g0 = (sp->ay.e_lo == EDGE_ABSORB ? 0 : sp->ay.lo) / ROWS;
    sp->g1 = (sp->ay.e_hi == EDGE_ABSORB ? ny - 1 : sp->ay.lo + sp->ay.m - 1) / ROWS + 1;
    if (fold_table(&sp->ax) < 0 || fold_table(&sp->ay) < 0) {
        spectral_free(sp);
        return rr_fail(e, RR_EXIT_RUNTIME, "spectral solver: out of memory for a %d x %d FFT domain", nx, ny);
    }
    sp->H = calloc(n, sizeof *sp->H);
    sp->P = calloc(n, sizeof *sp->P);
    sp->last = malloc((size_t)f->w * (size_t)f->h * sizeof *sp->last);
    sp->wx = mirror_weights(&sp->ax);
    sp->wy = mirror_weights(&sp->ay);
    sp->dsum = malloc((size_t)f->h * sizeof *sp->dsum);
    sp->AB = malloc(((size_t)nx / 2 + 1) * ((size_t)ny / 2 + 1) * 2 * sizeof *sp->AB);
    sp->sponge = malloc((size_t)(maxpad > 0 ? maxpad : 1) * sizeof *sp->sponge);
    sp->xfac = malloc((size_t)nx * sizeof *sp->xfac);
    sp->Z = fftwf_malloc(sp->nyp * nx * sizeof *sp->Z);
    sp->buf = fftwf_malloc((size_t)sp->nthreads * sp->buflen * sizeof *sp->buf);
    if (!sp->H || !sp->P || !sp->last || !sp->wx || !sp->wy || !sp->dsum || !sp->AB || !sp->sponge || !sp->xfac || !sp->Z
        || !sp->buf) {
        spectral_free(sp);
        return rr_fail(e, RR_EXIT_RUNTIME, "spectral solver: out of memory for a %d x %d FFT domain", nx, ny);
    }
    /* Plans on the thread-private buffers (same alignment as every later
     * use), estimated, or measured with the machine's wisdom (fftwisdom.h);
     * measuring overwrites the buffers, zeroed after it. */
    bool measure;
    if (fft_planning(&measure, e) < 0) {
        spectral_free(sp);
        return -1;
    }
    const unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    if (measure)
        fft_wisdom_load();
    fftwf_complex *b0 = sp->buf, *b1 = sp->buf + sp->buflen / 2;
    sp->fx = fftwf_plan_dft_1d(nx, b0, b1, FFTW_FORWARD, flags);
    sp->ix = fftwf_plan_dft_c2r_1d(nx, b1, (float *)b0, flags);
    sp->fy = fftwf_plan_dft_1d(ny, b0, b1, FFTW_FORWARD, flags);
    sp->iy = fftwf_plan_dft_1d(ny, b0, b1, FFTW_BACKWARD, flags);
    if (measure)
        fft_wisdom_save();
    memset(sp->Z, 0, sp->nyp * nx * sizeof *sp->Z);
    memset(sp->buf, 0, (size_t)sp->nthreads * sp->buflen * sizeof *sp->buf);
    const int ok = sp->fx && sp->ix && sp->fy && sp->iy;
    if (!ok) {
        spectral_free(sp);
        return rr_fail(e, RR_EXIT_RUNTIME, "spectral solver: FFTW could not plan a %d x %d transform", nx, ny);
    }
    /* The per-mode coefficients; 1 / (2 nx ny): the separation's 1/2 and the
     * unnormalised inverse transform. */
    const double q = c->half_life > 0 ? pow(0.5, dt / c->half_life) : 1.0;
    const double norm = 0.5 / (double)n;
    /* Columns i and nx - i, rows j and ny - j have the same |k|: one
     * quarter of the modes holds all the coefficients. */
    const size_t nyh = (size_t)ny / 2 + 1;
    for (int i = 0; i <= nx / 2; i++) {
        double kx = wavenumber(i, nx, dx);
        for (int j = 0; j < (int)nyh; j++) {
            double ky = wavenumber(j, ny, dx), k = hypot(kx, ky);
            double a = 1.0, b = 0.0;   /* the mean level stays */
            if (k > 0) {
                double damp = q * exp(-2.0 * c->viscosity * k * k * dt);
                a = 2.0 * damp * cos(sc->time.loop ? loop_omega_dt(sc, solver_water_omega(c, k))
                                                   : solver_water_omega(c, k) * dt);
                b = damp * damp;
            }
            sp->AB[2 * ((size_t)i * nyh + j)] = (float)(a * norm);
            sp->AB[2 * ((size_t)i * nyh + j) + 1] = (float)(b * norm);
        }
    }
    /* In a damped loop (its sources repeat every period, src/sources.c) the
     * mean level stays where it starts: what the sources add to it is taken
     * out at once, or they would raise it every period. An undamped loop adds
     * nothing after frame 0 and keeps the mean it starts with. */
    sp->mean_sign = sc->time.loop && spectral_decay_rate(sc) > 0 ? -1.0 : 1.0;
    /* The pad's sponge: a damping rate s(u) = s_max u^2 (1/s) at depth
     * u = (i + 1) / maxpad, applied as exp(-s dt) per step so that it does not
     * depend on dt. s_max = omega / 2 of the wave twice as long as the pad:
     * gentle enough not to reflect. Chosen by measurement against a steeper
     * s_max = omega of a wave of a third of the pad (test_edge_pads, a pad
     * of 4 wavelengths alone; the values are in docs/solvers.md). */
    const double kp = 2.0 * M_PI * SPONGE_WAVES / ((maxpad > 0 ? maxpad : 1) * dx);
    const double smax = SPONGE_RATE * solver_water_omega(c, kp);
    for (int i = 0; i < maxpad; i++) {
        double u = (i + 1.0) / maxpad;
        sp->sponge[i] = (float)exp(-smax * u * u * dt);
    }
    for (int x = 0; x < nx; x++)
        sp->xfac[x] = 1.0f;
    for (int side = 0; side < 2; side++) {
        const int len = side ? sp->ax.hi : sp->ax.lo;
        for (int j = 0; j < len && (side ? sp->ax.e_hi : sp->ax.e_lo) == EDGE_ABSORB; j++)
            sp->xfac[side ? sp->ax.lo + sp->ax.m + j : sp->ax.lo - 1 - j] = pad_sponge(sp, j, len, maxpad);
    }
    /* The first step then takes f->cur and f->prev as they are (an initial
     * wave's pair), and what sim.c adds to f->cur after this (drops at step
     * 0, initial images) as displaced at rest; the absorb pads start at rest
     * (H and P are zeroed). */
    for (int y = 0; y < f->h; y++)
        memcpy(sp->last + (size_t)y * f->w, f->cur + y * f->stride, (size_t)f->w * sizeof(float));
    return 0;
}

/* The sponge factor at depth i (0 = next to the grid) of a pad of `len`
 * cells: the profile resampled to that length. */
static float pad_sponge(const struct spectral *sp, int i, int len, int maxpad)
{
    int k = (int)((long long)(i + 1) * maxpad / len) - 1;
    return sp->sponge[k < 0 ? 0 : k];
}

/* The mirror cells of one line of the domain along axis a (a row: the x
 * axis; a column: the y axis), from its primary cells (fold_table). */
static void mirror_pads(fftwf_complex *line, const struct axis *a)
{
    const struct fold_cell *fc = a->fold;
    for (int k = 0; k < a->nfold; k++) {
        const float *g = line[fc[k].src];
        float *d = line[fc[k].dst];
        d[0] = fc[k].sgn * g[0];
        d[1] = fc[k].sgn * g[1];
    }
}

/* The weight of each of an axis's m grid cells in a sum over the domain's
 * line: 1, plus the sign of every mirror cell that is its image (absorb
 * pads hold their own values, and sim.c changes no pad cell). The sum of D
 * over the whole domain is then sum_y wy[y] sum_x wx[x] D(x, y): y pad rows
 * mirror whole domain rows. */
static float *mirror_weights(const struct axis *a)
{
    float *w = malloc((size_t)a->m * sizeof *w);
    if (!w)
        return NULL;
    for (int x = 0; x < a->m; x++)
        w[x] = 1.0f;
    for (int k = 0; k < a->nfold; k++) {
        const int g = a->fold[k].src - a->lo;
        if (g >= 0 && g < a->m)
            w[g] += a->fold[k].sgn;
    }
    return w;
}

/* Whether row y is transformed by the row passes: grid rows and absorb pad
 * rows. Fixed and clamp pad rows are mirrors of grid rows (odd or even
 * about the edge, as the x pads below), made from theirs by mirror_rows. */
static int row_kept(const struct spectral *sp, int y)
{
    const struct axis *ay = &sp->ay;
    const int gy = y - ay->lo;
    return (gy >= 0 && gy < ay->m) || (gy < 0 ? ay->e_lo : ay->e_hi) == EDGE_ABSORB;
}

/* sum_x wx (cur - last) over a grid row (D's weighted sum) in double. Four
 * cells at a time with SSE2, which does in each lane the IEEE operations of
 * the scalar tail; the lanes' partial sums (cells x mod 4) are added in a
 * fixed order, so the bits do not depend on the thread. */
static double row_dsum(const float *cur, const float *last, const float *wx, int m)
{
    int x = 0;
    double ds = 0;
#ifdef __SSE2__
    __m128d s01 = _mm_setzero_pd(), s23 = _mm_setzero_pd();
    for (; x + 4 <= m; x += 4) {
        const __m128 d = _mm_sub_ps(_mm_loadu_ps(cur + x), _mm_loadu_ps(last + x)), w = _mm_loadu_ps(wx + x);
        s01 = _mm_add_pd(s01, _mm_mul_pd(_mm_cvtps_pd(w), _mm_cvtps_pd(d)));
        s23 = _mm_add_pd(s23, _mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(w, w)), _mm_cvtps_pd(_mm_movehl_ps(d, d))));
    }
    double l4[4];
    _mm_storeu_pd(l4, s01);
    _mm_storeu_pd(l4 + 2, s23);
    ds = (l4[0] + l4[1]) + (l4[2] + l4[3]);
#endif
    for (; x < m; x++)
        ds += (double)wx[x] * (double)(cur[x] - last[x]);
    return ds;
}

/* One grid row of the packed plane: in[x] = (cur + last) / 2 + i prev, and
 * returns sum_x wx (cur - last) (row_dsum). Most steps change no cell of
 * most rows (D = cur - last is 0 or -0 everywhere), and then that sum is
 * +0 (from +0, adding products that are 0 or -0 stays +0): it is taken
 * only for a row with a D that is not zero (NaN included). Four cells at a
 * time with SSE2, the scalar tail's IEEE operations in each lane. */
static double pack_grid_row(fftwf_complex *in, const float *cur, const float *last, const float *prev,
                            const float *wx, int m)
{
    int x = 0, moved = 0;
#ifdef __SSE2__
    const __m128 half = _mm_set1_ps(0.5f), zero = _mm_setzero_ps();
    __m128 nz = zero;
    for (; x + 4 <= m; x += 4) {
        const __m128 c = _mm_loadu_ps(cur + x), l = _mm_loadu_ps(last + x), p = _mm_loadu_ps(prev + x);
        const __m128 h = _mm_mul_ps(half, _mm_add_ps(c, l));
        nz = _mm_or_ps(nz, _mm_cmpneq_ps(_mm_sub_ps(c, l), zero));
        _mm_storeu_ps(in[x], _mm_unpacklo_ps(h, p));
        _mm_storeu_ps(in[x + 2], _mm_unpackhi_ps(h, p));
    }
    moved = _mm_movemask_ps(nz);
#endif
    for (; x < m; x++) {
        in[x][0] = 0.5f * (cur[x] + last[x]);
        in[x][1] = prev[x];
        moved |= cur[x] - last[x] != 0.0f;
    }
    return moved ? row_dsum(cur, last, wx, m) : 0.0;
}

/* Cells x0 .. x0 + n - 1 of an absorb pad's row, H + i P, into z. */
static void pad_cells(fftwf_complex *z, const float *restrict H, const float *restrict P, int x0, int n)
{
    float *restrict zf = (float *)(z + x0);
    H += x0;
    P += x0;
    for (int x = 0; x < n; x++) {
        zf[2 * x] = H[x];
        zf[2 * x + 1] = P[x];
    }
}

/* Row y of the domain (row_kept) as (h_n + last) / 2 + i h_{n-1} into z (nx
 * values), so that what sim.c changed since the last step (sources, walls,
 * sponges: D = cur - last) is a displacement at rest (see the header); grid
 * rows also leave the weighted sum of their D in dsum. Grid cells: h_n from
 * f->cur, h_{n-1} from f->prev. Pads: fixed and clamp mirror the row's own
 * cells (in absorb pad rows too); absorb pads (and absorb pad rows) are kept
 * as they evolved, in H and P (no D there). */
static void pack_row(const struct spectral *sp, const struct field *f, int y, fftwf_complex *z)
{
    const struct axis *ax = &sp->ax, *ay = &sp->ay;
    const size_t row = (size_t)y * ax->n;
    const int gy = y - ay->lo;
    if (gy < 0 || gy >= ay->m) {
        /* An absorb pad row: its fixed or clamp x pads mirror the row as a
         * grid row's do, so that a corner between an absorb pad and a
         * mirror pad is the mirror image of the absorb pad's cells in
         * either orientation (fixed and clamp pad rows mirror the absorb x
         * pads' cells of grid rows), and a scene's transpose gives
         * transposed frames. */
        pad_cells(z, sp->H + row, sp->P + row, 0, ax->n);
        mirror_pads(z, ax);
        return;
    }
    const float *cur = f->cur + gy * f->stride, *prev = f->prev + gy * f->stride;
    const float *last = sp->last + (size_t)gy * ax->m;
    fftwf_complex *in = z + ax->lo;
    sp->dsum[gy] = pack_grid_row(in, cur, last, prev, sp->wx, ax->m);
    for (int side = 0; side < 2; side++)
        if ((side ? ax->e_hi : ax->e_lo) == EDGE_ABSORB)
            pad_cells(z, sp->H + row, sp->P + row, side ? ax->lo + ax->m : 0, side ? ax->hi : ax->lo);
    mirror_pads(z, ax);
}

/* Copies m heights from `in` to out and to last and returns their largest
 * magnitude for the screen (tblock_mag_max: NaN and infinity above every
 * finite value). Four cells at a time with SSE2: the magnitudes' bit
 * patterns compared as signed integers, as tblock_mag_max does. */
static int32_t copy_screen(float *restrict out, float *restrict last, const float *restrict in, int m)
{
    int x = 0;
    int32_t mag = 0;
#ifdef __SSE2__
    const __m128i abs = _mm_set1_epi32(INT32_MAX);
    __m128i mx = _mm_setzero_si128();
    for (; x + 4 <= m; x += 4) {
        const __m128 v = _mm_loadu_ps(in + x);
        _mm_storeu_ps(out + x, v);
        _mm_storeu_ps(last + x, v);
        const __m128i b = _mm_and_si128(_mm_castps_si128(v), abs), gt = _mm_cmpgt_epi32(b, mx);
        mx = _mm_or_si128(_mm_and_si128(gt, b), _mm_andnot_si128(gt, mx));
    }
    int32_t lane[4];
    _mm_storeu_si128((__m128i *)lane, mx);
    for (int k = 0; k < 4; k++)
        mag = lane[k] > mag ? lane[k] : mag;
#endif
    for (; x < m; x++) {
        out[x] = last[x] = in[x];
        mag = tblock_mag_max(mag, in[x]);
    }
    return mag;
}

/* Stores the new heights of row y (z, nx values): grid cells to out (f->prev,
 * about to become f->cur) and last, absorb pad cells to H times the sponge
 * (x pads: by depth into the x pad; y pad rows: by depth into the y pad).
 * Returns the screen's largest magnitude of the row's grid cells
 * (tblock_mag_max; 0 for pad rows). */
static int32_t unpack_row(const struct spectral *sp, const struct field *f, int y, const float *restrict z, float *H)
{
    const struct axis *ax = &sp->ax, *ay = &sp->ay;
    const int nx = ax->n, maxpad = sp->maxpad, gy = y - ay->lo;
    float *restrict h = H + (size_t)y * nx;
    if (gy < 0 || gy >= ay->m) {
        const int side = gy >= ay->m;
        /* A corner of the domain (an absorb x pad too) takes both sponges,
         * their product first so that the factor is the same bits in the
         * scene's transpose (whose rows are these columns). */
        const float fac = pad_sponge(sp, side ? gy - ay->m : -1 - gy, side ? ay->hi : ay->lo, maxpad);
        const float *restrict xfac = sp->xfac;
        for (int x = 0; x < nx; x++)
            h[x] = z[x] * (fac * xfac[x]);
        return 0;
    }
    float *restrict out = f->prev + gy * f->stride, *restrict last = sp->last + (size_t)gy * ax->m;
    const int32_t mag = copy_screen(out, last, z + ax->lo, ax->m);
    const float *restrict xfac = sp->xfac;
    if (ax->e_lo == EDGE_ABSORB)
        for (int x = 0; x < ax->lo; x++)
            h[x] = z[x] * xfac[x];
    if (ax->e_hi == EDGE_ABSORB)
        for (int x = ax->lo + ax->m; x < nx; x++)
            h[x] = z[x] * xfac[x];
    return mag;
}

/* One mode of the new spectrum, A (z + zm) + i B (z - zm) (column_pass),
 * from z = u and zm = conj(v): z + zm = (u.r + v.r, u.i - v.i). */
static inline void mode_multiply(float *w, const float *u, const float *v, const float *ab)
{
    w[0] = ab[0] * (u[0] + v[0]) - ab[1] * (u[1] + v[1]);
    w[1] = ab[0] * (u[1] - v[1]) + ab[1] * (u[0] - v[0]);
}

/* Eight floats (four modes), and their bits, for multiply_rows. */
typedef float v8sf __attribute__((vector_size(32)));
typedef int32_t v8si __attribute__((vector_size(32)));

/* Modes j0 .. j1 - 1 of a column: w[j] from u[j], v[ny - j] (the partner
 * column's row -j) and the coefficients of row j (up) or ny - j (!up), which
 * are the same. Four modes at a time in GCC's vectors, built for AVX-512,
 * AVX2 and the baseline (SSE2: two halves), each lane doing the IEEE
 * operations of mode_multiply (x + (-y) is x - y and x - (-y) is x + y:
 * u + conj(v) and u - conj(v) hold S.r, D.i and D.r, S.i), so the bits are
 * the same on every CPU; GCC 12 does not vectorise the reversed rows
 * itself. */
RR_CLONES_V4_V3 static void
multiply_rows(fftwf_complex *w, const fftwf_complex *u, const fftwf_complex *v, const float *ab, int ny, int j0,
              int j1, int up)
{
    const v8si neg = { INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0 };   /* the real parts' signs */
    const v8si im = { 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN };    /* the imaginary parts' */
    int j = j0;
    for (; j + 4 <= j1; j += 4) {
        v8sf uu, v4, c;
        memcpy(&uu, u[j], sizeof uu);
        memcpy(&v4, v[ny - j - 3], sizeof v4);
        memcpy(&c, ab + 2 * (up ? j : ny - j - 3), sizeof c);
        const v8sf vv = __builtin_shufflevector(v4, v4, 6, 7, 4, 5, 2, 3, 0, 1);   /* rows -j .. -j-3 */
        const v8sf A = up ? __builtin_shufflevector(c, c, 0, 0, 2, 2, 4, 4, 6, 6)
                          : __builtin_shufflevector(c, c, 6, 6, 4, 4, 2, 2, 0, 0);
        const v8sf B = up ? __builtin_shufflevector(c, c, 1, 1, 3, 3, 5, 5, 7, 7)
                          : __builtin_shufflevector(c, c, 7, 7, 5, 5, 3, 3, 1, 1);
        const v8sf vc = (v8sf)((v8si)vv ^ im);                                       /* conj(v) */
        const v8sf t1 = uu + vc, e = uu - vc;                                        /* S.r, D.i; D.r, S.i */
        const v8sf t2 = __builtin_shufflevector(e, e, 1, 0, 3, 2, 5, 4, 7, 6);       /* S.i, D.r */
        const v8sf out = A * t1 + (v8sf)((v8si)(B * t2) ^ neg);
        memcpy(w[j], &out, sizeof out);
    }
    for (; j < j1; j++)
        mode_multiply(w[j], u[j], v[ny - j], ab + 2 * (up ? j : ny - j));
}

/* The fixed and clamp y pads' rows of the c columns l[0 .. c-1] (lines of
 * Z): a row transform is linear, and exact for a sign of 1, -1 or 0, so a pad
 * row's is its grid row's times the sign (pack_row's mirror), and the row
 * pass skips them. */
static void mirror_rows(const struct spectral *sp, fftwf_complex *const *l, int c)
{
    for (int s = 0; s < c; s++)
        mirror_pads(l[s], &sp->ay);
}

/* Column pass item t: its columns (stored together in Z) transformed
 * forward into b1, the modes of columns 0 .. nx / 2 multiplied into b0 and
 * transformed back into Z. The mode multiplication pairs column i with
 * column nx - i, both in the item and in cache. The new spectrum is
 * Hermitian (the heights are real), so its other half is not computed: the
 * rows go back by a complex-to-real transform of columns 0 .. nx / 2, at
 * about half the cost of a complex one, and the imaginary part, rounding
 * noise, is never made. With z = Z(k) and zm = conj(Z(-k)), FFT(h_n) =
 * (z + zm) / 2 and FFT(h_{n-1}) = (z - zm) / 2i, so a FFT(h_n) - b FFT(h_{n-1})
 * = A (z + zm) + i B (z - zm) with A = a/2, B = b/2 (and 1 / (nx ny)).
 * Item 0 holds the mean (k = 0): it adds the half of sum(D) that the packed
 * plane does not carry (pack_row), summed in row order on one thread. */
static void column_pass(const struct spectral *sp, int t, fftwf_complex *b0, fftwf_complex *b1)
{
    const int ny = sp->ay.n;
    const size_t nyp = sp->nyp;
    int col[COLS], kx[COLS], partner[COLS];
    const int c = item_columns(sp, t, col, kx, partner);
    fftwf_complex *z[COLS];
    for (int s = 0; s < c; s++)
        z[s] = sp->Z + (size_t)col[s] * nyp;
    /* The item's columns, all at once: FFTW's first stage reads a column
     * in strides, which the hardware prefetchers do not follow from memory. */
    for (int s = 0; s < c; s++)
        for (size_t o = 0; o < (size_t)ny * sizeof *sp->Z; o += 64)
            __builtin_prefetch((const char *)z[s] + o, 0, 3);
    mirror_rows(sp, z, c);
    for (int s = 0; s < c; s++)
        fftwf_execute_dft(sp->fy, z[s], b1 + s * nyp);
    const int half = t == 0 ? c : c / 2;   /* the slots of columns 0 .. nx / 2 */
    for (int s = 0; s < half; s++) {
        const fftwf_complex *u = b1 + s * nyp, *v = b1 + partner[s] * nyp;
        const float *ab = sp->AB + 2 * (size_t)kx[s] * (ny / 2 + 1);
        fftwf_complex *w = b0 + s * nyp;
        /* Row j's partner is row ny - j (row 0 its own), and they share
         * a and b, kept for rows 0 .. ny / 2. */
        const int nh = ny / 2;
        mode_multiply(w[0], u[0], v[0], ab);
        multiply_rows(w, u, v, ab, ny, 1, nh + 1, 1);
        multiply_rows(w, u, v, ab, ny, nh + 1, ny, 0);
    }
    if (t == 0) {
        double d = 0;
        for (int y = 0; y < sp->ay.m; y++)
            d += (double)sp->wy[y] * sp->dsum[y];
        b0[0][0] += (float)(sp->mean_sign * d * 0.5 / ((double)sp->ax.n * ny));
    }
    for (int s = 0; s < half; s++)
        fftwf_execute_dft(sp->iy, b0 + s * nyp, z[s]);
}

/* Copies columns 0 .. n - 1 of the nr rows in `rows` (nxp apart) to rows
 * y0 .. y0 + nr - 1 of Z's columns (nyp apart), to_z, or back: each column's
 * part is nr values (two cache lines for ROWS). With SSE2, 2 x 2 blocks
 * (two columns of two rows) moved as two 16-byte loads and stores. */
static void group_copy(fftwf_complex *Z, size_t nyp, int y0, fftwf_complex *rows, size_t nxp, int n, int nr,
                       int to_z)
{
    int x = 0;
#ifdef __SSE2__
    for (; nr % 2 == 0 && x + 2 <= n; x += 2) {
        float *z0 = Z[(size_t)x * nyp + y0], *z1 = Z[(size_t)(x + 1) * nyp + y0];
        for (int r = 0; r < nr; r += 2) {
            float *a = rows[r * nxp + x], *b = rows[(r + 1) * nxp + x];
            if (to_z) {
                const __m128 va = _mm_loadu_ps(a), vb = _mm_loadu_ps(b);
                _mm_storeu_ps(z0 + 2 * r, _mm_movelh_ps(va, vb));
                _mm_storeu_ps(z1 + 2 * r, _mm_movehl_ps(vb, va));
            } else {
                const __m128 c0 = _mm_loadu_ps(z0 + 2 * r), c1 = _mm_loadu_ps(z1 + 2 * r);
                _mm_storeu_ps(a, _mm_movelh_ps(c0, c1));
                _mm_storeu_ps(b, _mm_movehl_ps(c1, c0));
            }
        }
    }
#endif
    for (; x < n; x++) {
        fftwf_complex *z = Z + (size_t)x * nyp + y0;
        for (int r = 0; r < nr; r++)
            memcpy(to_z ? z[r] : rows[r * nxp + x], to_z ? rows[r * nxp + x] : z[r], sizeof *z);
    }
}

/* A step's job for the team: the field and the next work item of each pass
 * (claimed by atomic increments: a dynamic schedule). */
struct step_job {
    struct spectral *sp;
    struct field *f;
    float *Hnew;
    atomic_int next[3];
    float limit;          /* the blow-up screen's limit (struct solver_screen), 0: none */
    atomic_int beyond;    /* a grid cell of the new plane beyond it */
};

/* Pass p's next work item on this thread, or -1 when there is none left. */
static int claim(struct step_job *j, int p, int n)
{
    int i = atomic_fetch_add_explicit(&j->next[p], 1, memory_order_relaxed);
    return i < n ? i : -1;
}

/* Thread t of nt: its share of the three passes, a barrier between passes. */
static void step_passes(void *arg, int t, int nt)
{
    struct step_job *j = arg;
    struct spectral *sp = j->sp;
    struct field *f = j->f;
    const int nx = sp->ax.n, ny = sp->ay.n, groups = sp->g1 - sp->g0;
    const size_t nxp = sp->nxp;
    fftwf_complex *b0 = sp->buf + (size_t)t * sp->buflen;
    fftwf_complex *b1 = b0 + sp->buflen / 2;
    for (int g; (g = claim(j, 0, groups)) >= 0;) {
        const int y0 = (sp->g0 + g) * ROWS, nr = ny - y0 < ROWS ? ny - y0 : ROWS;
        for (int r = 0; r < nr; r++)
            if (row_kept(sp, y0 + r)) {
                pack_row(sp, f, y0 + r, b0);
                fftwf_execute_dft(sp->fx, b0, b1 + r * nxp);
            }
        group_copy(sp->Z, sp->nyp, y0, b1, nxp, nx, nr, 1);
    }
    team_barrier(nt);
    for (int i; (i = claim(j, 1, sp->nitems)) >= 0;)
        column_pass(sp, i, b0, b1);
    team_barrier(nt);
    int32_t mag = 0;
    for (int g; (g = claim(j, 2, groups)) >= 0;) {
        const int y0 = (sp->g0 + g) * ROWS, nr = ny - y0 < ROWS ? ny - y0 : ROWS;
        group_copy(sp->Z, sp->nyp, y0, b1, nxp, nx / 2 + 1, nr, 0);
        for (int r = 0; r < nr; r++)
            if (row_kept(sp, y0 + r)) {
                fftwf_execute_dft_c2r(sp->ix, b1 + r * nxp, (float *)b0);
                int32_t m = unpack_row(sp, f, y0 + r, (const float *)b0, j->Hnew);
                mag = m > mag ? m : mag;
            }
    }
    if (j->limit > 0 && tblock_beyond(mag, j->limit))
        atomic_store_explicit(&j->beyond, 1, memory_order_relaxed);
}

/* One step in three passes over the domain: row groups (pack, forward
 * FFT, store by columns), column items (forward FFT, multiply, inverse FFT),
 * row groups (load, inverse FFT, unpack). The ROWS rows of a group move
 * between the row buffers and Z as whole cache lines. Every row and column
 * goes through the same plan with buffers of the same alignment on
 * whichever thread, so the bits do not depend on the thread count or the
 * schedule. The passes run on the program's thread team (team.h), whose
 * waits stop spinning when the machine is busy, rather than in an OpenMP
 * region, whose threads would spin against the team's. */
static void spectral_step(void *priv, struct field *f, struct solver_screen *screen)
{
    struct spectral *sp = priv;
    struct step_job j = { .sp = sp, .f = f, .Hnew = sp->P, .limit = screen ? screen->limit : 0.0f };
    /* (h_{n-1}'s storage takes h_{n+1}) */
    for (int p = 0; p < 3; p++)
        atomic_init(&j.next[p], 0);
    atomic_init(&j.beyond, 0);
    int nt = team_threads();
    team_run(sp->par ? (nt < sp->nthreads ? nt : sp->nthreads) : 1, step_passes, &j);
    /* The screen: every grid cell of the new plane was compared as it was
     * written (unpack_row), so sim.c's check need not read the grid. */
    if (screen && screen->limit > 0)
        screen->within = !atomic_load_explicit(&j.beyond, memory_order_relaxed);
    sp->P = sp->H;
    sp->H = j.Hnew;
    field_swap(f);
}

/* The state besides the planes: the heights the last step wrote (to tell
 * sim.c's changes apart) and the absorb pads' two planes. */
static int spectral_state(void *priv, struct solver_state_buf *bufs, int max)
{
    struct spectral *sp = priv;
    const struct solver_state_buf all[] = {
        { "last", sp->last, sp->ay.m, sp->ax.m, sp->ax.m },
        { "pad-now", sp->H, sp->ay.n, sp->ax.n, sp->ax.n },
        { "pad-before", sp->P, sp->ay.n, sp->ax.n, sp->ax.n },
    };
    int n = 0;
    for (; n < max && n < (int)(sizeof all / sizeof *all); n++)
        bufs[n] = all[n];
    return n;
}

double solver_water_omega(const struct solver_config *c, double k)
{
    double w2 = c->gravity * k + c->surface_tension / c->density * k * k * k;
    return sqrt(c->depth > 0 ? w2 * tanh(k * c->depth) : w2);
}

/* "auto": the smallest n with omega(pi / dx) dt < pi, dt = 1 / (fps n): the
 * shortest waves of the grid turn less than half a period per step, so a
 * source applied once per step cannot drive them by aliasing (a mode turning
 * omega dt per step looks like one turning 2 pi - omega dt). Strict: the
 * recurrence is exact at any dt, so no margin beyond it. */
static int spectral_auto_steps(const struct scene *sc)
{
    double n = floor(solver_water_omega(&sc->solver, M_PI / sc->grid.cell_size) / (M_PI * sc->time.fps)) + 1;
    return n < 1 ? 1 : n > 1e6 ? 1000000 : (int)n;
}

/* Exact: omega^2 = (g k + sigma/rho k^3) tanh(k d), per step. */
static double spectral_omega(const struct scene *sc, double kx, double ky)
{
    return solver_water_omega(&sc->solver, hypot(kx, ky) / sc->grid.cell_size) * scene_dt(sc);
}

static const char *const spectral_keys[] = { "gravity", "surface_tension", "density", "depth", "viscosity", NULL };

const struct solver_ops solver_spectral = {
    .name = "spectral",
    .priv_size = sizeof(struct spectral),
    .keys = spectral_keys,
    .own_damping = "viscosity",
    .damp_advice = "solver.half_life",
    .auto_steps = spectral_auto_steps,
    .init = spectral_init,
    .step = spectral_step,
    .free = spectral_free,
    .bytes = spectral_bytes,
    .omega = spectral_omega,
    .fixed_wall = FIXED_WALL_FACE,
    .displaces_at_rest = true,
    .decay_rate = spectral_decay_rate,
    .loops_exactly = true,
    .state = spectral_state,
};

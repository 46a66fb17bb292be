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
 * one transform of the complex plane (h_n + last) / 2 + i h_{n-1}, at the
 * cost of the plain step. The held mean (a = 1, b = 0) would keep only half
 * of D's: its mode gets the other half, sum(D) / 2, added (`dsum`). Absorb
 * pads are not touched by sim.c (D = 0 there).
 *
 * Edges: the FFT is periodic, so each axis is transformed as the periodic
 * extension its edges define, whole (axis_init, axis_kinds): `wrap` the
 * grid's own cells by the DFT; `fixed` and `clamp` the grid's mirror images
 * about the edge's cell face, half a cell beyond the edge cell, odd
 * (`fixed`: the height there is 0, waves reflect inverted, as from seed
 * 004's walls) or even (`clamp`: a reflection without inversion), over the
 * whole period of the reflections, by the real-to-real transform whose
 * modes are that extension's, on the grid's own cells (a DCT or DST; no
 * mirror copies); `absorb` a pad of at least PAD_MIN cells (rounded up to
 * a length FFTW is fast at, good_size) that lets the waves run into it and
 * damps them with a sponge of rate s_max u^2 at depth u in (0, 1] of the
 * pad (see spectral_init), on top of sim.c's sponge inside the grid, the
 * pad's far end an edge of the facing edge's kind when that is fixed or
 * clamp. Obstacles are masked (set to 0 each step by sim.c); the wave
 * operator is not local, so thin walls leak a little: make walls a few
 * cells thick.
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
 * differ from the estimated ones by rounding. Two 1-D plans per axis, one
 * each way (make_plans), all out of place, run on each thread's own buffers
 * and on Z's columns, all of one alignment, so every line takes the same
 * code path on any thread and the frames do not depend on -j. FFTW's own
 * real-to-real DCT and DST are not vectorised and take several times a
 * complex DFT of the same length, so the DCT-II / DCT-III pair (and by a
 * sign on the odd cells the DST-II / DST-III) is one complex DFT with
 * O(n) steps before and after (dct2_forward, dct2_back), and the
 * quarter-wave DST-IV and DCT-IV of an axis with one fixed and one clamp
 * edge two complex DFTs of n / 2 (dct4_line); only those of odd lengths
 * are FFTW's.
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
 *  2. column items: on a DFT x axis, columns i .. i + 7 with their partners
 *     nx - i - 7 .. nx - i (the -k_x of each), prefetched, transformed
 *     straight from Z into the thread's lines, every mode multiplied while
 *     the +k/-k pair is in cache, and columns 0 .. nx/2 transformed back
 *     into Z: the new spectrum is Hermitian, so the other half is never
 *     made; on a real-to-real x axis, 16 columns, each its own partner,
 *     all transformed back, to real values, two at a time (with a
 *     real-to-real y axis too, each two in one pass between the DFTs,
 *     pair_fused);
 *  3. row groups: the columns that came back, loaded from Z, back to real
 *     heights by the complex-to-real plan (half the work of a complex one)
 *     or, on a real-to-real x axis, two rows at a time as one complex line,
 *     written straight to f->prev, `last` and the absorb pads, each grid
 *     cell compared with the blow-up screen's limit as it is written
 *     (struct solver_screen), so that sim.c's check of the frame need not
 *     read the grid again.
 * The buffers' line strides avoid multiples of 4 KiB (line_stride), and rows
 * are packed four cells at a time (pack_grid_row). */
#include "debug.h"
#include "fftwisdom.h"
#include "par_choice.h"
#include "solver.h"
#include "tblock.h"
#include "team.h"

#include <math.h>
#include <stdatomic.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fftw3.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The plain path beside the fast one (solver_spectral_plain, for tests):
 * when set, every loop below that takes several values at a time (SSE2,
 * GCC's vectors in the RR_CLONES_V4_V3 *_blocks functions) leaves the whole
 * line to its scalar form, the operations written one value at a time, and
 * the step takes its unfused passes (pack_row and run_forward, pair_plain,
 * run_back and unpack_row) instead of the fused ones (pack_grid_row_dct2,
 * pack_grid_row_dct4, pair_fused, unpermute_screen2, dct4_screen2,
 * copy_screen2). The
 * vectors do in each lane exactly the scalar operations and the fused
 * passes each value's operations in their order, so a step gives the same
 * bits either way (test_spectral's test_plain_kernels). The scalar loops
 * sit outside the clones: GCC 12 contracts a scalar a * b - c * d loop in a
 * target clone into fused multiply-adds despite -ffp-contract=off. Read
 * once per line (per step in step_passes); tests set it between steps. */
static bool plain_lines;

void solver_spectral_plain(bool on)
{
    plain_lines = on;
}

/* solver_spectral_ways: -1, or the way every small domain's steps take. */
static int forced_way = -1;

void solver_spectral_ways(int way)
{
    forced_way = way;
}

extern const struct solver_ops solver_spectral;

#define PAD_MIN 32   /* cells of pad beyond a non-periodic edge */
#define SPONGE_WAVES 0.5   /* the pad's sponge is tuned to waves this many per pad width... */
#define SPONGE_RATE 0.5    /* ...and its top damping rate in units of their omega */
/* Domains of this many cells or more run their passes on as many threads
 * as the setting gave when the solver was made (one beside a writer until
 * main.c's probe). Smaller ones take one thread or the team step by step,
 * whichever their last steps were faster (par_choice.h): on free cores the
 * team (the capillary scene's 320 x 256 domain, hashed at -j2 on two idle
 * cores: 127 to 149 ms against 160 to 206 ms on one thread), on cores that
 * other threads hold one thread (the same run with one core busy: 326 ms
 * against 159 ms). */
#define PAR_MIN (512 * 512)

/* Wall seconds, for par_choice. */
static double par_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rows per group of the row passes: each pass moves ROWS values of a
 * column of Z, 128 bytes (two whole cache lines), per column and group
 * (measured: 16 rows a little faster than 8). */
#define ROWS 16
/* Columns per item of the column pass on each side of the +k_x / -k_x pairs. */
#define COLB 8
#define COLS (2 * COLB)

/* How one axis of the domain is transformed (axis_kinds): the periodic
 * extension its edges define, taken by the transform whose basis is that
 * extension's modes, over the axis's own n cells.
 * - dft: periodic (wrap, or absorb pads that meet), the complex DFT;
 * - otherwise a real-to-real pair, in FFTW's conventions (unnormalised:
 *   forward then back is 2 n times the identity), whose modes are the
 *   mirror images about the edge cells' faces, half a cell beyond the edge
 *   cells' centres: fixed odd about its face (height 0 there), clamp even.
 *   Mode j has the wavenumber pi (j' + shift / 2) / (n dx), j' = j or,
 *   `rev`, n - 1 - j: the one of the same mode in the whole mirror
 *   extension, of period `period` n cells. The pair is the DCT-II / DCT-III
 *   (FFTW's REDFT10 / REDFT01) computed by one complex DFT of n values
 *   (dct2_forward, dct2_back) when `dct2`, else FFTW's own r2r kinds fwd
 *   and bwd. The DCT-II of the cells times (-1)^i (odd_sign -1) is the
 *   DST-II with its modes in reverse order (cos(pi j (i + 1/2) / n) (-1)^i
 *   = sin(pi (n - j) (i + 1/2) / n)), so fixed edges take the DCT's code
 *   with that sign. */
struct axis_kind {
    bool dft;
    bool dct2;
    bool dct4;                /* the DCT-IV by a complex DFT of n / 2 (dct4_line); n even */
    float odd_sign;           /* dct2, dct4: the odd cells' factor, 1 or -1 */
    fftwf_r2r_kind fwd, bwd;  /* !dct2: FFTW's transforms */
    bool rev;                 /* the modes in reverse order */
    int shift;                /* twice the mode index's offset: 0, 1 or 2 */
    int period;               /* the extension's period over n: 1, 2 or 4 */
    int unnorm;               /* forward then back is unnorm * n times the identity */
};

static const struct axis_kind KIND_DFT = { .dft = true, .period = 1, .unnorm = 1 };

/* The real-to-real pairs by the kinds of the low and the high edge
 * (EDGE_FIXED, EDGE_CLAMP), with their modes on cells i = 0 .. n - 1:
 * fixed, fixed: DST-II / DST-III, sin(pi (j + 1) (i + 1/2) / n), period 2n
 *   (the DCT-II of the cells times (-1)^i, modes reversed);
 * clamp, clamp: DCT-II / DCT-III, cos(pi j (i + 1/2) / n), period 2n;
 * fixed, clamp: DST-IV (its own inverse), sin(pi (j + 1/2) (i + 1/2) / n),
 *   0 at the low face i = -1/2, a crest at the high face i = n - 1/2
 *   (the DCT-IV of the cells times (-1)^i, modes reversed:
 *   cos(pi (n - 1 - j + 1/2) (i + 1/2) / n) = (-1)^i sin(pi (j + 1/2)
 *   (i + 1/2) / n));
 * clamp, fixed: DCT-IV, cos(pi (j + 1/2) (i + 1/2) / n), the other way
 *   round; both period 4n (two reflections of each kind). The DCT-IV goes
 *   by a complex DFT of n / 2 (dct4_line) when n is even, by FFTW's own
 *   kinds (axis_kinds_odd) when it is odd. */
static const struct axis_kind axis_kinds[2][2] = {
    [EDGE_FIXED][EDGE_FIXED] = { .dct2 = true, .odd_sign = -1, .rev = true, .shift = 2, .period = 2, .unnorm = 2 },
    [EDGE_CLAMP][EDGE_CLAMP] = { .dct2 = true, .odd_sign = 1, .shift = 0, .period = 2, .unnorm = 2 },
    [EDGE_FIXED][EDGE_CLAMP] = { .dct4 = true, .odd_sign = -1, .rev = true, .shift = 1, .period = 4, .unnorm = 2 },
    [EDGE_CLAMP][EDGE_FIXED] = { .dct4 = true, .odd_sign = 1, .shift = 1, .period = 4, .unnorm = 2 },
};
static const struct axis_kind axis_kinds_odd[2][2] = {
    [EDGE_FIXED][EDGE_CLAMP] = { .fwd = FFTW_RODFT11, .bwd = FFTW_RODFT11, .shift = 1, .period = 4, .unnorm = 2 },
    [EDGE_CLAMP][EDGE_FIXED] = { .fwd = FFTW_REDFT11, .bwd = FFTW_REDFT11, .shift = 1, .period = 4, .unnorm = 2 },
};

/* One axis of the FFT domain: n cells, the grid's m cells from offset lo,
 * then hi pad cells; lo + m + hi = n, the pads those of absorb edges. */
struct axis {
    int n, m, lo, hi;
    enum edge_kind e_lo, e_hi;
    const struct axis_kind *kind;
    fftwf_complex *tw;        /* dct2, dct4 axes' twiddles (axis_twiddles) */
};

struct spectral {
    struct axis ax, ay;
    float *H, *P;             /* nx * ny: h_n, h_{n-1}; only the absorb pads' cells are used */
    float *last;              /* w * h: the interior heights written by the last step */
    double *dsum;             /* h: sum of (h_n - last) over each grid row, from the row pass */
    float *AB;                /* cx * cy pairs (a, b) by column (modes), normalisation folded in;
                                 sep: cx * cy values of a alone (mode_tables) */
    float *bx, *by;           /* sep: b's x and y factors, b = bx[i] by[j] (mode_tables) */
    bool sep;                 /* both axes real-to-real: a by column, b separable */
    int cx, cy;               /* the modes per axis that hold coefficients (axis_modes) */
    float *sponge;            /* max pad: absorb factors by depth into the pad */
    float *xfac;              /* nx: each domain column's factor in an absorb x pad (pad_sponge), 1 elsewhere */
    fftwf_complex *Z;         /* the transform by columns: nx columns of ny values, nyp apart */
    size_t nxp, nyp;          /* row and column line strides in the buffers (line_stride) */
    fftwf_plan fx, fy, iy;    /* one row forward, one column forward and back (make_plans) */
    fftwf_plan ix;            /* one row back to real heights */
    fftwf_complex *buf;       /* nthreads * buflen: line and block buffers */
    size_t buflen;            /* complex values per thread: two halves, each a multiple of 64 bytes */
    int nthreads;             /* the most threads a step may take: par, or team_threads_most */
    int par;                  /* a large domain (PAR_MIN): its passes on up to par threads (the
                                 setting when it was made); 0: a small one, par_choice decides */
    struct par_choice choice; /* a small domain's way (PAR_MIN) */
    double mean_sign;         /* 1: the mean takes what sources add; -1 (time.loop): it stays */
    int nitems;               /* column pass work items (column_item) */
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

/* The FFT domain of one axis and its transform (struct axis_kind). The FFT
 * is periodic, so the domain is the periodic extension that the edges
 * define, exactly, or the operator would not keep it (a mirror pad cut
 * short and refilled each step with other values than the step made there
 * fed energy back into the grid until it blew up: on a 512 x 3 grid of
 * fixed edges, within 50 frames). So:
 * - wrap: the grid's own m cells, the DFT;
 * - absorb on both sides: the grid with a pad of at least `pad` cells on
 *   each side, rounded up to a length FFTW is fast at (good_size); the
 *   pads meet each other, both damped; the DFT;
 * - fixed or clamp on both sides: the grid's m cells, by the real-to-real
 *   pair of the two edges (axis_kinds), whose modes are those of the whole
 *   mirror extension (period 2 m or 4 m) without its copies; nothing to
 *   round: the transform is fast whenever the grid's size is;
 * - absorb on one side, fixed or clamp on the other: the grid and its absorb
 *   pad, L = m + pad cells widened to a good_size, by the pair of the other
 *   edge's kind on both ends (the pad's far end a second face of that kind:
 *   the waves that reach it are damped).
 * `fixed` thus holds the height 0 at the face half a cell beyond the edge
 * cell, not at the cell beyond it as the finite-difference solvers' ghost
 * cell does: the pool is m cells wide for fixed as for clamp, and a fixed
 * wall is half a cell nearer than theirs (docs/solvers.md, "Edges"). */
static void axis_init(struct axis *a, int m, enum edge_kind lo, enum edge_kind hi, int pad)
{
    a->m = m;
    a->e_lo = lo;
    a->e_hi = hi;
    a->n = m;
    a->lo = 0;
    a->kind = &KIND_DFT;
    a->tw = NULL;
    if (lo == EDGE_ABSORB && hi == EDGE_ABSORB) {
        a->n = good_size(m + 2 * pad);
        a->lo = (a->n - m) / 2;
    } else if (lo == EDGE_ABSORB || hi == EDGE_ABSORB) {
        const enum edge_kind k = lo == EDGE_ABSORB ? hi : lo;
        a->n = good_size(m + pad);
        a->lo = lo == EDGE_ABSORB ? a->n - m : 0;
        a->kind = &axis_kinds[k][k];
    } else if (lo != EDGE_WRAP) {
        a->kind = axis_kinds[lo][hi].dct4 && m % 2 ? &axis_kinds_odd[lo][hi] : &axis_kinds[lo][hi];
    }
    a->hi = a->n - m - a->lo;
}

/* The modes of the axis that hold distinct coefficients: a real-to-real
 * axis's n; a DFT axis's bins 0 .. n / 2 (bin n - j has the wavenumber of
 * bin j). */
static int axis_modes(const struct axis *a)
{
    return a->kind->dft ? a->n / 2 + 1 : a->n;
}

/* The angular wavenumber (rad/m) of mode j of the axis (j < axis_modes):
 * the DFT's 2 pi j / (n dx); a real-to-real pair's pi (j' + shift / 2) /
 * (n dx) (struct axis_kind), that of the same mode of its mirror extension. */
static double axis_wavenumber(const struct axis *a, int j, double dx)
{
    if (a->kind->dft)
        return 2.0 * M_PI * j / (a->n * dx);
    return M_PI * ((a->kind->rev ? a->n - 1 - j : j) + 0.5 * a->kind->shift) / (a->n * dx);
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
    /* As spectral_init allocates: H and P (4 + 4 per cell), AB (8 per
     * mode, 4 on two real-to-real axes), bx and by (4 per mode of each
     * axis), Z (8 per cell, columns nyp apart), the threads' line buffers
     * and `last` (w x h floats), xfac (nx floats). */
    uint64_t nx = (uint64_t)ax.n, ny = (uint64_t)ay.n, cx = (uint64_t)axis_modes(&ax), cy = (uint64_t)axis_modes(&ay);
    uint64_t rows = ROWS * line_stride(nx), cols = COLS * line_stride(ny);
    uint64_t buflen = 2 * (rows > cols ? rows : cols), t = threads > 0 ? (uint64_t)threads : 1;
    const uint64_t per_mode = !ax.kind->dft && !ay.kind->dft ? 4 : 8;
    /* And FFTW's own: its plans' tables and the planner's, 2 MiB. */
    return 8 * nx * ny + cx * cy * per_mode + 4 * (cx + cy) + nx * line_stride(ny) * 8 + t * buflen * 8
           + (uint64_t)sc->grid.width * (uint64_t)sc->grid.height * 4 + nx * 4 + ((uint64_t)2 << 20);
}

static void spectral_free(void *priv)
{
    struct spectral *sp = priv;
    if (sp->fx) fftwf_destroy_plan(sp->fx);
    if (sp->ix) fftwf_destroy_plan(sp->ix);
    if (sp->fy) fftwf_destroy_plan(sp->fy);
    if (sp->iy) fftwf_destroy_plan(sp->iy);
    fftwf_free(sp->Z);
    fftwf_free(sp->ax.tw);
    fftwf_free(sp->ay.tw);
    fftwf_free(sp->buf);
    free(sp->H);
    free(sp->P);
    free(sp->last);
    free(sp->dsum);
    free(sp->AB);
    free(sp->bx);
    free(sp->by);
    free(sp->sponge);
    free(sp->xfac);
    memset(sp, 0, sizeof *sp);
}

/* The columns of column pass item t of a DFT x axis: for t >= 1, *i0 and
 * *nb, the first column and count of its left block (at most COLB), whose
 * partners are the nb columns ending at nx - i0; item 0 (*nb = 0) holds the
 * columns that are their own partners, 0 and (nx even) nx / 2. Returns the
 * number of columns of the item. (A real-to-real x axis's items are COLS
 * columns each, every column its own partner: item_columns.) */
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

/* The number of column pass items: the self-paired columns and pairs of
 * blocks of a DFT x axis (column_item), or COLS columns at a time. */
static int column_items(const struct axis *ax)
{
    return ax->kind->dft ? 1 + ((ax->n - 1) / 2 + COLB - 1) / COLB : (ax->n + COLS - 1) / COLS;
}

/* The columns of item t: Z column and AB column (mode index) of each of
 * its slots (lines of the column buffers), and the slot holding its partner
 * (the column of -k_x on a DFT x axis, itself on a real-to-real one). Returns the number of columns; *keep, how
 * many of the first slots hold the columns that go back (column_pass). */
static int item_columns(const struct spectral *sp, int t, int *col, int *kx, int *partner, int *keep)
{
    const int nx = sp->ax.n;
    if (!sp->ax.kind->dft) {
        const int i0 = t * COLS, c = nx - i0 < COLS ? nx - i0 : COLS;
        for (int s = 0; s < c; s++) {
            col[s] = kx[s] = i0 + s;
            partner[s] = s;
        }
        *keep = c;
        return c;
    }
    int i0, nb;
    const int c = column_item(sp, t, &i0, &nb);
    if (nb == 0) {
        for (int s = 0; s < c; s++) {
            col[s] = kx[s] = s * (nx / 2);
            partner[s] = s;
        }
        *keep = c;
        return c;
    }
    for (int s = 0; s < nb; s++) {
        col[s] = kx[s] = i0 + s;
        col[nb + s] = nx - i0 - nb + 1 + s;
        kx[nb + s] = i0 + nb - 1 - s;
        partner[s] = 2 * nb - 1 - s;
        partner[2 * nb - 1 - s] = s;
    }
    *keep = nb;
    return c;
}

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
 * the viscous 2 nu k^2 of the longest wave of the domain's periodic
 * extension (pads included). */
static double spectral_decay_rate(const struct scene *sc)
{
    struct axis ax, ay;
    scene_axes(sc, &ax, &ay);
    const int px = ax.n * ax.kind->period, py = ay.n * ay.kind->period;
    double kmin = 2.0 * M_PI / ((px > py ? px : py) * sc->grid.cell_size);
    double rate = 2.0 * sc->solver.viscosity * kmin * kmin;
    return sc->solver.half_life > 0 ? rate + M_LN2 / sc->solver.half_life : rate;
}

/* The stride of a dct4 axis's half lines in its buffer (dct4_line): n / 2
 * values as a line_stride, so that all have the plan's alignment and do
 * not fall in the same L1 cache sets. */
static int dct4_half(const struct axis *a)
{
    return (int)line_stride((size_t)a->n / 2);
}

/* A dct4 axis's plan: two complex DFTs of n / 2 values, the second
 * dct4_half values after the first, out of place into the two half lines
 * after them (dct4_line). */
static fftwf_plan plan_dct4(const struct axis *a, fftwf_complex *buf, unsigned flags)
{
    const int h = a->n / 2, d = dct4_half(a);
    return fftwf_plan_many_dft(1, &h, 2, buf, NULL, 1, d, buf + 2 * d, NULL, 1, d, FFTW_FORWARD, flags);
}

/* A forward transform along axis a of one line of n complex values, in to
 * out (both contiguous): the DFT (a dct2 axis's, of its permuted line:
 * dct2_forward), or the axis's real-to-real transform of the real and of
 * the imaginary parts (two real lines, stride 2). */
static fftwf_plan plan_forward(const struct axis *a, fftwf_complex *in, fftwf_complex *out, unsigned flags)
{
    if (a->kind->dct4)
        return plan_dct4(a, in, flags);
    if (a->kind->dft || a->kind->dct2)
        return fftwf_plan_dft_1d(a->n, in, out, FFTW_FORWARD, flags);
    return fftwf_plan_many_r2r(1, &a->n, 2, (float *)in, NULL, 2, 1, (float *)out, NULL, 2, 1, &a->kind->fwd, flags);
}

/* A transform back along axis a of one line of n complex values, in to
 * out (both contiguous): the inverse DFT (a dct2 axis's, of its line made
 * ready by dct2_back), or the axis's real-to-real transform of the real
 * and of the imaginary parts. A DFT axis whose line's result is real
 * (`real_out`: the other axis is real-to-real, or already back) goes by a
 * complex-to-real transform of bins 0 .. n / 2 (the rest is their mirror,
 * Hermitian) to n reals in out. */
static fftwf_plan plan_back(const struct axis *a, fftwf_complex *in, void *out, bool real_out, unsigned flags)
{
    if (a->kind->dct4)
        return plan_dct4(a, in, flags);
    if (a->kind->dft && real_out)
        return fftwf_plan_dft_c2r_1d(a->n, in, out, flags);
    if (a->kind->dft || a->kind->dct2)
        return fftwf_plan_dft_1d(a->n, in, out, FFTW_BACKWARD, flags);
    return fftwf_plan_many_r2r(1, &a->n, 2, (float *)in, NULL, 2, 1, out, NULL, 2, 1, &a->kind->bwd, flags);
}

/* An axis's twiddles into a->tw, n values: a dct2 axis's e^(-i pi k / 2n)
 * (dct2_forward); a dct4 axis's e^(-i pi (4 j + 1) / 4n) for j < n / 2,
 * then 2 e^(-i pi k / n) for k < n / 2 (dct4_line). 0 for other axes,
 * -1 when out of memory. */
static int axis_twiddles(struct axis *a)
{
    if (!a->kind->dct2 && !a->kind->dct4)
        return 0;
    const int n = a->n, h = n / 2;
    a->tw = fftwf_malloc((size_t)n * sizeof *a->tw);
    if (!a->tw)
        return -1;
    for (int k = 0; k < n; k++) {
        const double r = a->kind->dct2 ? 1.0 : k < h ? 1.0 : 2.0;
        const double t = a->kind->dct2 ? M_PI * k / (2.0 * n)
                         : k < h       ? M_PI * (4.0 * k + 1.0) / (4.0 * n)
                                       : M_PI * (k - h) / n;
        a->tw[k][0] = (float)(r * cos(t));
        a->tw[k][1] = (float)(-r * sin(t));
    }
    return 0;
}

/* Whether a column goes back by a complex-to-real transform: on a
 * real-to-real x axis (whose columns come back real) with a DFT y axis.
 * Otherwise it goes back complex to complex: on a DFT x axis, as half of
 * a Hermitian spectrum (columns 0 .. nx / 2); on a real-to-real x axis
 * with a real-to-real y axis, two real columns at once, one the real
 * part and one the imaginary part (column_pass). */
static bool column_real(const struct spectral *sp)
{
    return !sp->ax.kind->dft && sp->ay.kind->dft;
}

/* The four plans of a step, on a thread's buffers b0 and b1 (the
 * alignment of every later use): rows forward (b0 to b1), columns forward
 * (b0 to b1) and back (b0 to b1; run on a line into a column of Z, or
 * into b1 when column_real), rows back (b1 to b0). Rows come back by a complex-to-real transform on a DFT
 * x axis (half of a Hermitian spectrum), otherwise two at once, one the
 * real part and one the imaginary part (step_passes). */
static void make_plans(struct spectral *sp, fftwf_complex *b0, fftwf_complex *b1, unsigned flags)
{
    const bool xdft = sp->ax.kind->dft;
    sp->fx = plan_forward(&sp->ax, b0, b1, flags);
    sp->fy = plan_forward(&sp->ay, b0, b1, flags);
    sp->iy = plan_back(&sp->ay, b0, b1, column_real(sp), flags);
    sp->ix = plan_back(&sp->ax, b1, b0, xdft, flags);
}

/* solver_ops.beyond: the cells of sp->H (the heights now) next to the grid
 * across an absorb edge, the first of its pad: the surface the renderer's
 * slopes continue into there. Asked on demand, so it follows H from plane
 * to plane as the steps trade them. */
static const float *spectral_beyond(const void *priv, enum edge_side side, ptrdiff_t *stride)
{
    const struct spectral *sp = priv;
    const bool across_x = side == EDGE_LEFT || side == EDGE_RIGHT, high = side == EDGE_RIGHT || side == EDGE_BOTTOM;
    const struct axis *a = across_x ? &sp->ax : &sp->ay;
    if ((high ? a->e_hi : a->e_lo) != EDGE_ABSORB)
        return NULL;
    const ptrdiff_t nx = sp->ax.n, cell = across_x ? 1 : nx;   /* one cell across the edge, in H */
    *stride = nx;
    /* grid cell (0, 0) in H, then the cell before the axis' first (-1) or after its last (m) */
    return sp->H + sp->ay.lo * nx + sp->ax.lo + (high ? a->m : -1) * cell;
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
    /* A large domain's threads are the setting's now; a small one's way is
     * chosen as it runs, up to the run's most (par_choice). */
    sp->par = n >= PAR_MIN ? team_threads() : 0;
    sp->nthreads = sp->par ? sp->par : team_threads_most();
    /* Every thread's line buffers and every column of Z start at a multiple
     * of 64 bytes from their (SIMD-aligned) allocations, so they have the
     * alignment the plans were made with: fftwf_execute_dft requires it, and
     * it keeps one code path. */
    sp->nxp = line_stride((size_t)nx);
    sp->nyp = line_stride((size_t)ny);
    const size_t rows = ROWS * sp->nxp, cols = COLS * sp->nyp;
    sp->buflen = 2 * (rows > cols ? rows : cols);
    sp->nitems = column_items(&sp->ax);
    sp->cx = axis_modes(&sp->ax);
    sp->cy = axis_modes(&sp->ay);
    sp->H = calloc(n, sizeof *sp->H);
    sp->P = calloc(n, sizeof *sp->P);
    sp->last = malloc((size_t)f->w * (size_t)f->h * sizeof *sp->last);
    sp->dsum = malloc((size_t)f->h * sizeof *sp->dsum);
    sp->sep = !sp->ax.kind->dft && !sp->ay.kind->dft;
    sp->AB = malloc((size_t)sp->cx * (size_t)sp->cy * (sp->sep ? 1 : 2) * sizeof *sp->AB);
    sp->bx = malloc((size_t)sp->cx * sizeof *sp->bx);
    sp->by = malloc((size_t)sp->cy * sizeof *sp->by);
    sp->sponge = malloc((size_t)(maxpad > 0 ? maxpad : 1) * sizeof *sp->sponge);
    sp->xfac = malloc((size_t)nx * sizeof *sp->xfac);
    sp->Z = fftwf_malloc(sp->nyp * nx * sizeof *sp->Z);
    sp->buf = fftwf_malloc((size_t)sp->nthreads * sp->buflen * sizeof *sp->buf);
    if (axis_twiddles(&sp->ax) < 0 || axis_twiddles(&sp->ay) < 0) {
        spectral_free(sp);
        return rr_fail(e, RR_EXIT_RUNTIME, "spectral solver: out of memory for a %d x %d FFT domain", nx, ny);
    }
    if (!sp->H || !sp->P || !sp->last || !sp->dsum || !sp->AB || !sp->bx || !sp->by || !sp->sponge || !sp->xfac
        || !sp->Z || !sp->buf) {
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
    make_plans(sp, b0, b1, flags);
    if (measure)
        fft_wisdom_save();
    memset(sp->Z, 0, sp->nyp * nx * sizeof *sp->Z);
    memset(sp->buf, 0, (size_t)sp->nthreads * sp->buflen * sizeof *sp->buf);
    const int ok = sp->fx && sp->ix && sp->fy && sp->iy;
    if (!ok) {
        spectral_free(sp);
        return rr_fail(e, RR_EXIT_RUNTIME, "spectral solver: FFTW could not plan a %d x %d transform", nx, ny);
    }
    /* The per-mode coefficients, times the separation's 1/2 and 1 / the
     * unnormalised transforms' factor (n for a DFT axis, 2 n for a
     * real-to-real one). A DFT axis's bins j and n - j have the same |k|:
     * bins 0 .. n / 2 hold its coefficients (axis_modes). */
    const double q = c->half_life > 0 ? pow(0.5, dt / c->half_life) : 1.0;
    const double norm = 0.5 / ((double)n * sp->ax.kind->unnorm * sp->ay.kind->unnorm);
    const size_t cy = (size_t)sp->cy;
    for (int i = 0; i < sp->cx; i++) {
        double kx = axis_wavenumber(&sp->ax, i, dx);
        for (int j = 0; j < (int)cy; j++) {
            double ky = axis_wavenumber(&sp->ay, j, dx), k = hypot(kx, ky);
            double a = 1.0, b = 0.0;   /* the mean level stays */
            if (k > 0) {
                double damp = q * exp(-2.0 * c->viscosity * k * k * dt);
                a = 2.0 * damp * cos(sc->time.loop ? loop_omega_dt(sc, solver_water_omega(c, k))
                                                   : solver_water_omega(c, k) * dt);
                b = damp * damp;
            }
            if (sp->sep) {
                sp->AB[(size_t)i * cy + j] = (float)(a * norm);
                continue;
            }
            sp->AB[2 * ((size_t)i * cy + j)] = (float)(a * norm);
            sp->AB[2 * ((size_t)i * cy + j) + 1] = (float)(b * norm);
        }
    }
    /* On two real-to-real axes the table holds a alone (4 bytes a mode, so
     * that a 1024^2 domain's 4 MB stays in the L3 with Z's columns), and b,
     * q^2 e^(-4 nu k^2 dt) times the normalisation, is the product of an x
     * and a y factor, as k^2 = k_x^2 + k_y^2; the mean's b = 0 is set
     * where it is used (mode_b). */
    for (int i = 0; i < sp->cx; i++) {
        const double kx = axis_wavenumber(&sp->ax, i, dx);
        sp->bx[i] = (float)(q * q * norm * exp(-4.0 * c->viscosity * kx * kx * dt));
    }
    for (int j = 0; j < sp->cy; j++) {
        const double ky = axis_wavenumber(&sp->ay, j, dx);
        sp->by[j] = (float)exp(-4.0 * c->viscosity * ky * ky * dt);
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

/* sum_x (cur - last) over a grid row (D's sum) in double. Four cells at a
 * time with SSE2, which does in each lane the IEEE operations of the scalar
 * tail; the lanes' partial sums (cells x mod 4) are added in a fixed order,
 * so the bits do not depend on the thread. */
static double row_dsum(const float *cur, const float *last, int m)
{
    int x = 0;
    double ds = 0;
#ifdef __SSE2__
    double l4[4] = { 0, 0, 0, 0 };
    if (plain_lines) {
        /* the lanes' sums written out: cells x mod 4 each, added as below */
        for (; x + 4 <= m; x += 4)
            for (int k = 0; k < 4; k++)
                l4[k] += (double)(cur[x + k] - last[x + k]);
    } else {
        __m128d s01 = _mm_setzero_pd(), s23 = _mm_setzero_pd();
        for (; x + 4 <= m; x += 4) {
            const __m128 d = _mm_sub_ps(_mm_loadu_ps(cur + x), _mm_loadu_ps(last + x));
            s01 = _mm_add_pd(s01, _mm_cvtps_pd(d));
            s23 = _mm_add_pd(s23, _mm_cvtps_pd(_mm_movehl_ps(d, d)));
        }
        _mm_storeu_pd(l4, s01);
        _mm_storeu_pd(l4 + 2, s23);
    }
    ds = (l4[0] + l4[1]) + (l4[2] + l4[3]);
#endif
    for (; x < m; x++)
        ds += (double)(cur[x] - last[x]);
    return ds;
}

/* One grid row of the packed plane: in[x] = (cur + last) / 2 + i prev, and
 * returns sum_x (cur - last) (row_dsum). Most steps change no cell of
 * most rows (D = cur - last is 0 or -0 everywhere), and then that sum is
 * +0 (from +0, adding products that are 0 or -0 stays +0): it is taken
 * only for a row with a D that is not zero (NaN included). Four cells at a
 * time with SSE2, the scalar tail's IEEE operations in each lane. */
static double pack_grid_row(fftwf_complex *in, const float *cur, const float *last, const float *prev, int m)
{
    int x = 0, moved = 0;
#ifdef __SSE2__
    const __m128 half = _mm_set1_ps(0.5f), zero = _mm_setzero_ps();
    __m128 nz = zero;
    for (const bool vec = !plain_lines; vec && x + 4 <= m; x += 4) {
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
    return moved ? row_dsum(cur, last, m) : 0.0;
}

/* pack_grid_row of a row of m = n cells on a dct2 x axis straight into
 * the DFT's order (dct2_permute): cell 2i to tmp[i], cell 2i + 1 times
 * odd_sign s to tmp[n - 1 - i], each value with pack_grid_row's and
 * dct2_permute's operations (the same bits, one pass fewer). Returns the
 * row's sum of D as pack_grid_row does. */
static double pack_grid_row_dct2(fftwf_complex *tmp, const float *cur, const float *last, const float *prev, int n,
                                 float s)
{
    int x = 0, moved = 0;
#ifdef __SSE2__
    const __m128 half = _mm_set1_ps(0.5f), zero = _mm_setzero_ps(), sv = _mm_set1_ps(s);
    __m128 nz = zero;
    for (; x + 4 <= n; x += 4) {
        const __m128 c = _mm_loadu_ps(cur + x), l = _mm_loadu_ps(last + x), p = _mm_loadu_ps(prev + x);
        const __m128 h = _mm_mul_ps(half, _mm_add_ps(c, l));
        nz = _mm_or_ps(nz, _mm_cmpneq_ps(_mm_sub_ps(c, l), zero));
        const __m128 lo = _mm_unpacklo_ps(h, p), hi = _mm_unpackhi_ps(h, p), od = _mm_movehl_ps(hi, lo);
        _mm_storeu_ps(tmp[x / 2], _mm_movelh_ps(lo, hi));
        _mm_storeu_ps(tmp[n - 2 - x / 2], _mm_mul_ps(sv, _mm_shuffle_ps(od, od, _MM_SHUFFLE(1, 0, 3, 2))));
    }
    moved = _mm_movemask_ps(nz);
#endif
    for (; x < n; x++) {
        fftwf_complex *t = tmp + (x % 2 ? n - 1 - x / 2 : x / 2);
        const float h = 0.5f * (cur[x] + last[x]);
        (*t)[0] = x % 2 ? s * h : h;
        (*t)[1] = x % 2 ? s * prev[x] : prev[x];
        moved |= cur[x] - last[x] != 0.0f;
    }
    return moved ? row_dsum(cur, last, n) : 0.0;
}

/* Cells x0 .. x0 + n - 1 of an absorb pad's row, H + i P, into z. */
static void pad_cells(fftwf_complex *z, const float *restrict H, const float *restrict P, int x0, int n)
{
    float *restrict zf = (float *)(z + x0);
    H += x0;
    P += x0;
    int x = 0;
#ifdef __SSE2__
    for (const bool vec = !plain_lines; vec && x + 4 <= n; x += 4) {   /* four cells at a time: copies, the same bits */
        const __m128 h = _mm_loadu_ps(H + x), p = _mm_loadu_ps(P + x);
        _mm_storeu_ps(zf + 2 * x, _mm_unpacklo_ps(h, p));
        _mm_storeu_ps(zf + 2 * x + 4, _mm_unpackhi_ps(h, p));
    }
#endif
    for (; x < n; x++) {
        zf[2 * x] = H[x];
        zf[2 * x + 1] = P[x];
    }
}

/* Row y of the domain as (h_n + last) / 2 + i h_{n-1} into z (nx values),
 * so that what sim.c changed since the last step (sources, walls, sponges:
 * D = cur - last) is a displacement at rest (see the header); grid rows
 * also leave the sum of their D in dsum. Grid cells: h_n from f->cur,
 * h_{n-1} from f->prev. Absorb pads (and absorb pad rows) are kept as they
 * evolved, in H and P (no D there). */
static void pack_row(const struct spectral *sp, const struct field *f, int y, fftwf_complex *z)
{
    const struct axis *ax = &sp->ax, *ay = &sp->ay;
    const size_t row = (size_t)y * ax->n;
    const int gy = y - ay->lo;
    if (gy < 0 || gy >= ay->m) {
        pad_cells(z, sp->H + row, sp->P + row, 0, ax->n);
        return;
    }
    const float *cur = f->cur + gy * f->stride, *prev = f->prev + gy * f->stride;
    const float *last = sp->last + (size_t)gy * ax->m;
    fftwf_complex *in = z + ax->lo;
    sp->dsum[gy] = pack_grid_row(in, cur, last, prev, ax->m);
    pad_cells(z, sp->H + row, sp->P + row, 0, ax->lo);
    pad_cells(z, sp->H + row, sp->P + row, ax->lo + ax->m, ax->hi);
}

#ifdef __SSE2__
/* The screen's running maximum in four lanes: the magnitudes of v's cells
 * (their bit patterns without the sign, compared as signed integers, as
 * tblock_mag_max does: NaN and infinity above every finite value) into mx. */
static inline __m128i mag_lanes(__m128i mx, __m128 v)
{
    const __m128i b = _mm_and_si128(_mm_castps_si128(v), _mm_set1_epi32(INT32_MAX)), gt = _mm_cmpgt_epi32(b, mx);
    return _mm_or_si128(_mm_and_si128(gt, b), _mm_andnot_si128(gt, mx));
}

/* The largest of mag and mx's four lanes. */
static inline int32_t mag_of_lanes(__m128i mx, int32_t mag)
{
    int32_t lane[4];
    _mm_storeu_si128((__m128i *)lane, mx);
    for (int k = 0; k < 4; k++)
        mag = lane[k] > mag ? lane[k] : mag;
    return mag;
}

/* Four cells of each of two rows (r0, r1) to out and last of each at x,
 * their magnitudes into the running maximum mx. */
static inline __m128i store2_screen(float *restrict out0, float *restrict last0, float *restrict out1,
                                    float *restrict last1, int x, __m128 r0, __m128 r1, __m128i mx)
{
    _mm_storeu_ps(out0 + x, r0);
    _mm_storeu_ps(last0 + x, r0);
    _mm_storeu_ps(out1 + x, r1);
    _mm_storeu_ps(last1 + x, r1);
    return mag_lanes(mag_lanes(mx, r0), r1);
}
#endif

/* Copies m heights from `in` to out and to last and returns their largest
 * magnitude for the screen (tblock_mag_max: NaN and infinity above every
 * finite value). Four cells at a time with SSE2: the magnitudes' bit
 * patterns compared as signed integers, as tblock_mag_max does. */
static int32_t copy_screen(float *restrict out, float *restrict last, const float *restrict in, int m)
{
    int x = 0;
    int32_t mag = 0;
#ifdef __SSE2__
    __m128i mx = _mm_setzero_si128();
    for (const bool vec = !plain_lines; vec && x + 4 <= m; x += 4) {
        const __m128 v = _mm_loadu_ps(in + x);
        _mm_storeu_ps(out + x, v);
        _mm_storeu_ps(last + x, v);
        mx = mag_lanes(mx, v);
    }
    mag = mag_of_lanes(mx, mag);
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

/* Modes j0 .. j1 - 1 of a column (multiply_rows): w[j] from u[j], v[ny - j]
 * (the partner column's row -j) and the coefficients of row j (up) or
 * ny - j (!up), which are the same; `self` (a real-to-real y axis, each row
 * its own partner): from u[j], v[j] and row j's coefficients (up). The
 * whole blocks of four modes in GCC's vectors, built for AVX-512, AVX2 and
 * the baseline (SSE2: two halves), each lane doing the IEEE operations of
 * mode_multiply (x + (-y) is x - y and x - (-y) is x + y: u + conj(v) and
 * u - conj(v) hold S.r, D.i and D.r, S.i), so the bits are the same on
 * every CPU; GCC 12 does not vectorise the reversed rows itself. Returns
 * the next j. */
RR_CLONES_V4_V3 static int
multiply_rows_blocks(fftwf_complex *w, const fftwf_complex *u, const fftwf_complex *v, const float *ab, int ny, int j0,
                     int j1, int up, int self)
{
    const v8si neg = { INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0 };   /* the real parts' signs */
    const v8si im = { 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN, 0, INT32_MIN };    /* the imaginary parts' */
    int j = j0;
    for (; j + 4 <= j1; j += 4) {
        v8sf uu, v4, c;
        memcpy(&uu, u[j], sizeof uu);
        memcpy(&v4, v[self ? j : ny - j - 3], sizeof v4);
        memcpy(&c, ab + 2 * (up ? j : ny - j - 3), sizeof c);
        const v8sf vv = self ? v4 : __builtin_shufflevector(v4, v4, 6, 7, 4, 5, 2, 3, 0, 1);   /* rows -j .. -j-3 */
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
    return j;
}

/* multiply_rows_blocks, then the modes it left one at a time
 * (mode_multiply), outside the clones (plain_lines: all of them). */
static void multiply_rows(fftwf_complex *w, const fftwf_complex *u, const fftwf_complex *v, const float *ab, int ny,
                          int j0, int j1, int up, int self)
{
    for (int j = plain_lines ? j0 : multiply_rows_blocks(w, u, v, ab, ny, j0, j1, up, self); j < j1; j++)
        mode_multiply(w[j], u[j], v[self ? j : ny - j], ab + 2 * (up ? j : ny - j));
}

/* Eight complex values (two v8sf, x0 then x1, interleaved) as their real
 * and imaginary parts, in order or reversed (lane l from value 7 - l), and
 * back (V_LO, V_HI: the first and the second four values; _REV: the parts'
 * lanes reversed into memory order). */
#define V_RE(x0, x1) __builtin_shufflevector(x0, x1, 0, 2, 4, 6, 8, 10, 12, 14)
#define V_IM(x0, x1) __builtin_shufflevector(x0, x1, 1, 3, 5, 7, 9, 11, 13, 15)
#define V_RE_REV(x0, x1) __builtin_shufflevector(x0, x1, 14, 12, 10, 8, 6, 4, 2, 0)
#define V_IM_REV(x0, x1) __builtin_shufflevector(x0, x1, 15, 13, 11, 9, 7, 5, 3, 1)
#define V_REV(x) __builtin_shufflevector(x, x, 7, 6, 5, 4, 3, 2, 1, 0)
#define V_LO(re, im) __builtin_shufflevector(re, im, 0, 8, 1, 9, 2, 10, 3, 11)
#define V_HI(re, im) __builtin_shufflevector(re, im, 4, 12, 5, 13, 6, 14, 7, 15)
#define V_LO_REV(re, im) __builtin_shufflevector(re, im, 7, 15, 6, 14, 5, 13, 4, 12)
#define V_HI_REV(re, im) __builtin_shufflevector(re, im, 3, 11, 2, 10, 1, 9, 0, 8)

/* Eight floats from p, and eight complex values from p as their parts (in
 * order, or reversed: lane l from value 7 - l), and eight stored from
 * their parts (V_STORE2: in order from p; reversed with V_LO_REV,
 * V_HI_REV as `lo`, `hi`). */
#define v_load(p)                                                                                                     \
    __extension__({                                                                                                   \
        v8sf v_;                                                                                                      \
        memcpy(&v_, (p), sizeof v_);                                                                                  \
        v_;                                                                                                           \
    })
#define V_PARTS(p, re, im)                                                                                            \
    do {                                                                                                              \
        const v8sf x0_ = v_load(p), x1_ = v_load((const float *)(p) + 8);                                             \
        (re) = V_RE(x0_, x1_);                                                                                        \
        (im) = V_IM(x0_, x1_);                                                                                        \
    } while (0)
#define V_PARTS_REV(p, re, im)                                                                                        \
    do {                                                                                                              \
        const v8sf x0_ = v_load(p), x1_ = v_load((const float *)(p) + 8);                                             \
        (re) = V_RE_REV(x0_, x1_);                                                                                    \
        (im) = V_IM_REV(x0_, x1_);                                                                                    \
    } while (0)
#define V_STORE2(p, lo, hi)                                                                                           \
    do {                                                                                                              \
        const v8sf l_ = (lo), h_ = (hi);                                                                              \
        memcpy((p), &l_, sizeof l_);                                                                                  \
        memcpy((float *)(p) + 8, &h_, sizeof h_);                                                                     \
    } while (0)

/* pack_grid_row_dct4's j = 0 .. 8 floor(n / 16) - 1, eight at a time in
 * GCC's vectors (dct4_in_blocks' cells), each lane doing its scalar
 * operations; *nz: whether a cell of the 16 from 2j and the 16 to
 * n - 1 - 2j has cur - last != 0 (pack_grid_row's test).
 * Returns the next j. */
RR_CLONES_V4_V3 static int pack_dct4_blocks(const struct axis *a, fftwf_complex *restrict tmp,
                                            const float *restrict cur, const float *restrict last,
                                            const float *restrict prev, int *nz)
{
    const int n = a->n, h = n / 2, d = dct4_half(a);
    const float s = a->kind->odd_sign;
    const fftwf_complex *tw = a->tw;
    v8si moved = { 0 };
    int j = 0;
    for (; j + 8 <= h; j += 8) {
        v8sf c, e;
        V_PARTS(tw[j], c, e);
        const int o = n - 16 - 2 * j;
        const v8sf c0 = v_load(cur + 2 * j), c1 = v_load(cur + 2 * j + 8), l0 = v_load(last + 2 * j),
                   l1 = v_load(last + 2 * j + 8), d0 = v_load(cur + o), d1 = v_load(cur + o + 8),
                   m0 = v_load(last + o), m1 = v_load(last + o + 8);
        moved |= (c0 - l0 != 0.0f) | (c1 - l1 != 0.0f) | (d0 - m0 != 0.0f) | (d1 - m1 != 0.0f);
        const v8sf ce = V_RE(c0, c1), le = V_RE(l0, l1), co = V_IM_REV(d0, d1), lo_ = V_IM_REV(m0, m1);
        const v8sf pe = V_RE(v_load(prev + 2 * j), v_load(prev + 2 * j + 8));
        const v8sf po = V_IM_REV(v_load(prev + o), v_load(prev + o + 8));
        for (int q = 0; q < 2; q++) {
            /* q = 0: the cells' (h_n + last) / 2, q = 1: h_(n-1) (pack_grid_row) */
            const v8sf vr = q ? pe : 0.5f * (ce + le), vi = s * (q ? po : 0.5f * (co + lo_));
            const v8sf re = c * vr - e * vi, im = c * vi + e * vr;
            V_STORE2(tmp[q * d + j], V_LO(re, im), V_HI(re, im));
        }
    }
    for (int k = 0; k < 8; k++)
        *nz |= moved[k];
    return j;
}

/* pack_grid_row of a row of m = n cells (n even) on a dct4 x axis straight
 * into dct4_in's two half lines (tmp, dct4_half apart), each value with
 * pack_grid_row's and dct4_in's operations (s_in = odd_sign, as the
 * forward transform takes): the same bits, one pass fewer. Returns the
 * row's sum of D as pack_grid_row does. */
static double pack_grid_row_dct4(const struct axis *a, fftwf_complex *tmp, const float *cur, const float *last,
                                 const float *prev)
{
    const int n = a->n, h = n / 2, d = dct4_half(a);
    const float s = a->kind->odd_sign;
    const fftwf_complex *tw = a->tw;
    int moved = 0;
    for (int j = pack_dct4_blocks(a, tmp, cur, last, prev, &moved); j < h; j++) {
        const float c = tw[j][0], e = tw[j][1];
        const int x = 2 * j, y = n - 1 - 2 * j;
        moved |= cur[x] - last[x] != 0.0f || cur[y] - last[y] != 0.0f;
        for (int q = 0; q < 2; q++) {
            const float vr = q ? prev[x] : 0.5f * (cur[x] + last[x]);
            const float vi = s * (q ? prev[y] : 0.5f * (cur[y] + last[y]));
            tmp[q * d + j][0] = c * vr - e * vi;
            tmp[q * d + j][1] = c * vi + e * vr;
        }
    }
    return moved ? row_dsum(cur, last, n) : 0.0;
}

/* One mode's new value on two real-to-real axes, from its transform
 * (yr, yi) (the packed plane's, whose two real planes are its real and
 * imaginary parts: column_pass): mode_multiply's real part, a (y + y) -
 * b (y.i + y.i), its imaginary part being 0; b the mode's b of the
 * separable table (struct spectral: bx by). A macro so that floats and
 * GCC's vectors take the same operations. */
#define SEP_MODE(A, B, yr, yi) ((A) * ((yr) + (yr)) - (B) * ((yi) + (yi)))

/* Modes 0 .. ny - 1 of columns u0 and u1 (a0, a1 their a; bx0, bx1 their
 * b's x factors; u1 NULL: none) on real-to-real x and y axes, where every
 * mode is its own partner and the new value is real (SEP_MODE): the two
 * real columns as one complex line w[j] = w0_j + i w1_j, ready to go back
 * together (column_pass). `mean`: u0 is column 0 of two axes that hold the
 * mean, whose mode 0 takes b = 0 (the mean level stays). Here the whole
 * blocks of eight modes in GCC's vectors, each lane doing the IEEE
 * operations of multiply_pair's scalar loop, so the bits are the same on
 * every CPU; returns the next j. */
RR_CLONES_V4_V3 static int multiply_pair_blocks(fftwf_complex *w, const fftwf_complex *u0, const fftwf_complex *u1,
                                                const float *a0, const float *a1, float bx0, float bx1,
                                                const float *by, int ny)
{
    int j = 0;
    for (; u1 && j + 8 <= ny; j += 8) {
        v8sf r0, i0, r1, i1;
        V_PARTS(u0[j], r0, i0);
        V_PARTS(u1[j], r1, i1);
        const v8sf Y = v_load(by + j);
        const v8sf w0 = SEP_MODE(v_load(a0 + j), bx0 * Y, r0, i0), w1 = SEP_MODE(v_load(a1 + j), bx1 * Y, r1, i1);
        V_STORE2(w[j], V_LO(w0, w1), V_HI(w0, w1));
    }
    return j;
}

/* multiply_pair_blocks' whole blocks, then the modes it left one at a time,
 * outside the clones (plain_lines: all of them). */
static void multiply_pair(fftwf_complex *w, const fftwf_complex *u0, const fftwf_complex *u1, const float *a0,
                          const float *a1, float bx0, float bx1, const float *by, int ny, bool mean)
{
    for (int j = plain_lines ? 0 : multiply_pair_blocks(w, u0, u1, a0, a1, bx0, bx1, by, ny); j < ny; j++) {
        w[j][0] = SEP_MODE(a0[j], bx0 * by[j], u0[j][0], u0[j][1]);
        w[j][1] = u1 ? SEP_MODE(a1[j], bx1 * by[j], u1[j][0], u1[j][1]) : 0.0f;
    }
    if (mean)
        w[0][0] = SEP_MODE(a0[0], 0.0f, u0[0][0], u0[0][1]);
}

/* dct2_post of one pair of modes k, n - k of a line (its DFT's u = V_k,
 * v = V_(n-k); c + i d = tw[k]) into Y_k = ykr + i yki and
 * Y_(n-k) = ynr + i yni, with dct2_post's operations in their order:
 * floats and GCC's vectors alike. */
#define DCT2_POST(c, d, ur, ui, vr, vi, ykr, yki, ynr, yni)                                                           \
    do {                                                                                                              \
        const __auto_type ar_ = (c) * (ur) + -((d) * (ui));                                                           \
        const __auto_type ai_ = (c) * (ui) + (d) * (ur);                                                              \
        const __auto_type br_ = (c) * (vr) + (d) * (vi);                                                              \
        const __auto_type bi_ = (c) * (vi) + -((d) * (vr));                                                           \
        (ykr) = ar_ + br_;                                                                                            \
        (yki) = ai_ + bi_;                                                                                            \
        (ynr) = -(ai_ - bi_);                                                                                         \
        (yni) = ar_ - br_;                                                                                            \
    } while (0)

/* DCT2_POST and multiply_pair of one column's pair of modes k, n - k into
 * their new values wk, wn (SEP_MODE; Ak, Bk, An, Bn their a and b). */
#define DCT2_POST_MUL(c, d, ur, ui, vr, vi, Ak, Bk, An, Bn, wk, wn)                                                   \
    do {                                                                                                              \
        __typeof__((ur) + 0) ykr_, yki_, ynr_, yni_;                                                                  \
        DCT2_POST(c, d, ur, ui, vr, vi, ykr_, yki_, ynr_, yni_);                                                      \
        (wk) = SEP_MODE(Ak, Bk, ykr_, yki_);                                                                          \
        (wn) = SEP_MODE(An, Bn, ynr_, yni_);                                                                          \
    } while (0)

/* dct2_pre of the pair k, n - k of a line whose W_k = ak + i bk and
 * W_(n-k) = an + i bn, into U_k = ukr + i uki and U_(n-k) = unr + i uni,
 * with dct2_pre's operations in their order. */
#define DCT2_PRE(c, d, ak, bk, an, bn, ukr, uki, unr, uni)                                                            \
    do {                                                                                                              \
        const __auto_type pr_ = (ak) + (bn);                                                                          \
        const __auto_type pi_ = (bk) + -(an);                                                                         \
        const __auto_type qr_ = (an) + (bk);                                                                          \
        const __auto_type qi_ = (bn) + -(ak);                                                                         \
        const __auto_type tr_ = (c) * qr_ + -((d) * qi_);                                                             \
        const __auto_type ti_ = (c) * qi_ + (d) * qr_;                                                                \
        (ukr) = (c) * pr_ + (d) * pi_;                                                                                \
        (uki) = (c) * pi_ + -((d) * pr_);                                                                             \
        (unr) = -ti_;                                                                                                 \
        (uni) = tr_;                                                                                                  \
    } while (0)

/* A v8sf's four complex values in reverse order. */
#define V_REVC(v) __builtin_shufflevector(v, v, 6, 7, 4, 5, 2, 3, 0, 1)

/* The whole blocks of eight of dct2_permute, dct2_post, dct2_pre and
 * dct2_unpermute in GCC's vectors, each lane doing the IEEE operations of
 * the scalar code (the same bits on every CPU); each returns the index its
 * function's own loops go on from. Only vector code in these clones (see
 * dct4_in_blocks). */
RR_CLONES_V4_V3 static int dct2_permute_blocks(const struct axis *a, const fftwf_complex *restrict x,
                                               fftwf_complex *restrict tmp)
{
    const int n = a->n;
    const float s = a->kind->odd_sign;
    int m = 0;
    for (; 2 * m + 16 <= n; m += 8) {   /* cells 2m .. 2m + 15 */
        const v8sf x0 = v_load(x[2 * m]), x1 = v_load(x[2 * m + 4]), x2 = v_load(x[2 * m + 8]),
                   x3 = v_load(x[2 * m + 12]);
        const v8sf o0 = __builtin_shufflevector(x0, x1, 2, 3, 6, 7, 10, 11, 14, 15);
        const v8sf o1 = __builtin_shufflevector(x2, x3, 2, 3, 6, 7, 10, 11, 14, 15);
        V_STORE2(tmp[m], __builtin_shufflevector(x0, x1, 0, 1, 4, 5, 8, 9, 12, 13),
                 __builtin_shufflevector(x2, x3, 0, 1, 4, 5, 8, 9, 12, 13));
        V_STORE2(tmp[n - 8 - m], s * V_REVC(o1), s * V_REVC(o0));
    }
    return m;
}

RR_CLONES_V4_V3 static int dct2_unpermute_blocks(const struct axis *a, const fftwf_complex *restrict tmp,
                                                 fftwf_complex *restrict x)
{
    const int n = a->n;
    const float s = a->kind->odd_sign;
    int m = 0;
    for (; 2 * m + 16 <= n; m += 8) {
        const v8sf e0 = v_load(tmp[m]), e1 = v_load(tmp[m + 4]);
        const v8sf o0 = s * V_REVC(v_load(tmp[n - 4 - m])), o1 = s * V_REVC(v_load(tmp[n - 8 - m]));
        V_STORE2(x[2 * m], __builtin_shufflevector(e0, o0, 0, 1, 8, 9, 2, 3, 10, 11),
                 __builtin_shufflevector(e0, o0, 4, 5, 12, 13, 6, 7, 14, 15));
        V_STORE2(x[2 * m + 8], __builtin_shufflevector(e1, o1, 0, 1, 8, 9, 2, 3, 10, 11),
                 __builtin_shufflevector(e1, o1, 4, 5, 12, 13, 6, 7, 14, 15));
    }
    return m;
}

/* dct2_post_blocks and dct2_pre_blocks: OP (DCT2_POST, DCT2_PRE) on the
 * pairs k .. k + 7 and n - k .. n - k - 7 of y, in place. */
#define DCT2_PAIR_BLOCKS(NAME, OP)                                                                                    \
    RR_CLONES_V4_V3 static int NAME(const struct axis *a, fftwf_complex *restrict y)                                  \
    {                                                                                                                 \
        const int n = a->n;                                                                                           \
        const fftwf_complex *tw = a->tw;                                                                              \
        int k = 1;                                                                                                    \
        for (; 2 * (k + 7) < n; k += 8) {                                                                             \
            const int m = n - k - 7;                                                                                  \
            v8sf c, d, ur, ui, vr, vi, okr, oki, onr, oni;                                                            \
            V_PARTS(tw[k], c, d);                                                                                     \
            V_PARTS(y[k], ur, ui);                                                                                    \
            V_PARTS_REV(y[m], vr, vi);                                                                                \
            OP(c, d, ur, ui, vr, vi, okr, oki, onr, oni);                                                             \
            V_STORE2(y[k], V_LO(okr, oki), V_HI(okr, oki));                                                           \
            V_STORE2(y[m], V_LO_REV(onr, oni), V_HI_REV(onr, oni));                                                   \
        }                                                                                                             \
        return k;                                                                                                     \
    }
DCT2_PAIR_BLOCKS(dct2_post_blocks, DCT2_POST)
DCT2_PAIR_BLOCKS(dct2_pre_blocks, DCT2_PRE)

/* dct2_forward's step before the DFT: the even cells of x in order then
 * the odd ones reversed, times odd_sign, into tmp. */
static void dct2_permute(const struct axis *a, const fftwf_complex *restrict x, fftwf_complex *restrict tmp)
{
    const int n = a->n;
    const float s = a->kind->odd_sign;
    int m = plain_lines ? 0 : dct2_permute_blocks(a, x, tmp);
#ifdef __SSE2__
    const __m128 sv = _mm_set1_ps(s);
    for (const bool vec = !plain_lines; vec && 2 * m + 3 < n; m += 2) {
        const __m128 lo = _mm_loadu_ps(x[2 * m]), hi = _mm_loadu_ps(x[2 * m + 2]);
        const __m128 od = _mm_movehl_ps(hi, lo);   /* x_(2m+1), x_(2m+3) */
        _mm_storeu_ps(tmp[m], _mm_movelh_ps(lo, hi));
        _mm_storeu_ps(tmp[n - 2 - m], _mm_mul_ps(sv, _mm_shuffle_ps(od, od, _MM_SHUFFLE(1, 0, 3, 2))));
    }
#endif
    for (; 2 * m < n; m++) {
        tmp[m][0] = x[2 * m][0];
        tmp[m][1] = x[2 * m][1];
        if (2 * m + 1 < n) {
            tmp[n - 1 - m][0] = s * x[2 * m + 1][0];
            tmp[n - 1 - m][1] = s * x[2 * m + 1][1];
        }
    }
}

/* dct2_forward's steps after the DFT, in place: Y_0 = 2 V_0, and each pair
 * k, n - k from V_k, V_(n-k). */
static void dct2_post(const struct axis *a, fftwf_complex *restrict y)
{
    const int n = a->n;
    const fftwf_complex *tw = a->tw;
    y[0][0] *= 2.0f;
    y[0][1] *= 2.0f;
    int k = plain_lines ? 1 : dct2_post_blocks(a, y);
#ifdef __SSE2__
    const __m128 neg_even = _mm_castsi128_ps(_mm_set_epi32(0, INT32_MIN, 0, INT32_MIN));   /* lanes 0, 2 */
    const __m128 neg_odd = _mm_castsi128_ps(_mm_set_epi32(INT32_MIN, 0, INT32_MIN, 0));    /* lanes 1, 3 */
    for (const bool vec = !plain_lines; vec && 2 * (k + 1) < n; k += 2) {
        const __m128 t = _mm_loadu_ps(tw[k]);
        const __m128 c = _mm_shuffle_ps(t, t, _MM_SHUFFLE(2, 2, 0, 0));
        const __m128 d = _mm_shuffle_ps(t, t, _MM_SHUFFLE(3, 3, 1, 1));
        const __m128 u = _mm_loadu_ps(y[k]), vr = _mm_loadu_ps(y[n - k - 1]);
        const __m128 v = _mm_shuffle_ps(vr, vr, _MM_SHUFFLE(1, 0, 3, 2));   /* V_(n-k), V_(n-k-1) */
        const __m128 usw = _mm_shuffle_ps(u, u, _MM_SHUFFLE(2, 3, 0, 1));
        const __m128 vsw = _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1));
        const __m128 av = _mm_add_ps(_mm_mul_ps(c, u), _mm_xor_ps(_mm_mul_ps(d, usw), neg_even));
        const __m128 bv = _mm_add_ps(_mm_mul_ps(c, v), _mm_xor_ps(_mm_mul_ps(d, vsw), neg_odd));
        const __m128 dv = _mm_sub_ps(av, bv);
        const __m128 iv = _mm_xor_ps(_mm_shuffle_ps(dv, dv, _MM_SHUFFLE(2, 3, 0, 1)), neg_even);   /* i (a - b) */
        _mm_storeu_ps(y[k], _mm_add_ps(av, bv));
        _mm_storeu_ps(y[n - k - 1], _mm_shuffle_ps(iv, iv, _MM_SHUFFLE(1, 0, 3, 2)));
    }
#endif
    for (; 2 * k <= n; k++) {
        float *u = y[k], *v = y[n - k];
        const float c = tw[k][0], d = tw[k][1];   /* t = c + i d */
        const float ar = c * u[0] + -(d * u[1]), ai = c * u[1] + d * u[0];
        const float br = c * v[0] + d * v[1], bi = c * v[1] + -(d * v[0]);
        const float dr = ar - br, di = ai - bi;
        u[0] = ar + br;
        u[1] = ai + bi;
        if (2 * k < n) {
            v[0] = -di;
            v[1] = dr;
        }
    }
}

/* The DCT-II (FFTW's REDFT10, Y_k = 2 sum_i x_i cos(pi k (i + 1/2) / n)) of
 * the real and of the imaginary parts of a line x (with the odd cells times
 * odd_sign) into y, by one complex DFT of n values (Makhoul, IEEE Trans.
 * ASSP 28 (1980) 27): the even cells in order then the odd ones reversed,
 * v_m = x_2m, v_(n-1-m) = x_(2m+1), make the DCT's angles
 * pi k (4m + 1) / 2n those of a DFT times e^(-i pi k / 2n), so with
 * V = DFT(v) and t = e^(-i pi k / 2n) (tw), Y_k = t V_k + conj(t) V_(n-k)
 * (V_n = V_0): for a real line that is 2 Re(t V_k); for a complex one it
 * keeps the transforms of both parts, the map being real. Each pair
 * k, n - k is made from V_k, V_(n-k) in place: with a = t V_k and
 * b = conj(t) V_(n-k), Y_k = a + b, Y_(n-k) = i (a - b). tmp: a line.
 * Two values at a time with SSE2, each lane doing the IEEE operations of
 * the scalar code, so the bits do not depend on the CPU. */
static void dct2_forward(const struct axis *a, fftwf_plan p, const fftwf_complex *restrict x,
                         fftwf_complex *restrict y, fftwf_complex *restrict tmp)
{
    dct2_permute(a, x, tmp);
    fftwf_execute_dft(p, tmp, y);
    dct2_post(a, y);
}

/* dct2_back's steps before the inverse DFT, in place: the pairs k, n - k
 * of y (Y_n = 0). */
static void dct2_pre(const struct axis *a, fftwf_complex *restrict y)
{
    const int n = a->n;
    const fftwf_complex *tw = a->tw;
    int k = plain_lines ? 1 : dct2_pre_blocks(a, y);
#ifdef __SSE2__
    const __m128 neg_even = _mm_castsi128_ps(_mm_set_epi32(0, INT32_MIN, 0, INT32_MIN));
    const __m128 neg_odd = _mm_castsi128_ps(_mm_set_epi32(INT32_MIN, 0, INT32_MIN, 0));
    for (const bool vec = !plain_lines; vec && 2 * (k + 1) < n; k += 2) {
        const __m128 t = _mm_loadu_ps(tw[k]);
        const __m128 c = _mm_shuffle_ps(t, t, _MM_SHUFFLE(2, 2, 0, 0));
        const __m128 d = _mm_shuffle_ps(t, t, _MM_SHUFFLE(3, 3, 1, 1));
        const __m128 u = _mm_loadu_ps(y[k]), vr = _mm_loadu_ps(y[n - k - 1]);
        const __m128 v = _mm_shuffle_ps(vr, vr, _MM_SHUFFLE(1, 0, 3, 2));
        const __m128 usw = _mm_shuffle_ps(u, u, _MM_SHUFFLE(2, 3, 0, 1));
        const __m128 vsw = _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1));
        const __m128 pv = _mm_add_ps(u, _mm_xor_ps(vsw, neg_odd));   /* Y_k - i Y_(n-k) */
        const __m128 qv = _mm_add_ps(v, _mm_xor_ps(usw, neg_odd));   /* Y_(n-k) - i Y_k */
        const __m128 psw = _mm_shuffle_ps(pv, pv, _MM_SHUFFLE(2, 3, 0, 1));
        const __m128 qsw = _mm_shuffle_ps(qv, qv, _MM_SHUFFLE(2, 3, 0, 1));
        const __m128 vk = _mm_add_ps(_mm_mul_ps(c, pv), _mm_xor_ps(_mm_mul_ps(d, psw), neg_odd));    /* conj(t) p */
        const __m128 tq = _mm_add_ps(_mm_mul_ps(c, qv), _mm_xor_ps(_mm_mul_ps(d, qsw), neg_even));   /* t q */
        const __m128 vn = _mm_xor_ps(_mm_shuffle_ps(tq, tq, _MM_SHUFFLE(2, 3, 0, 1)), neg_even);   /* i t q */
        _mm_storeu_ps(y[k], vk);
        _mm_storeu_ps(y[n - k - 1], _mm_shuffle_ps(vn, vn, _MM_SHUFFLE(1, 0, 3, 2)));
    }
#endif
    for (; 2 * k <= n; k++) {
        float *u = y[k], *v = y[n - k];
        const float c = tw[k][0], d = tw[k][1];
        const float pr = u[0] + v[1], pi = u[1] + -v[0];   /* Y_k - i Y_(n-k) */
        const float qr = v[0] + u[1], qi = v[1] + -u[0];   /* Y_(n-k) - i Y_k */
        const float tr = c * qr + -(d * qi), ti = c * qi + d * qr;
        u[0] = c * pr + d * pi;                            /* conj(t) p */
        u[1] = c * pi + -(d * pr);
        if (2 * k < n) {
            v[0] = -ti;                                    /* i t q */
            v[1] = tr;
        }
    }
}

/* dct2_back's steps after the inverse DFT: the cells back from their
 * order, the odd ones times odd_sign, tmp into x. */
static void dct2_unpermute(const struct axis *a, const fftwf_complex *restrict tmp, fftwf_complex *restrict x)
{
    const int n = a->n;
    const float s = a->kind->odd_sign;
    int m = plain_lines ? 0 : dct2_unpermute_blocks(a, tmp, x);
#ifdef __SSE2__
    const __m128 sv = _mm_set1_ps(s);
    for (const bool vec = !plain_lines; vec && 2 * m + 3 < n; m += 2) {
        const __m128 e = _mm_loadu_ps(tmp[m]), r = _mm_loadu_ps(tmp[n - 2 - m]);
        const __m128 o = _mm_mul_ps(sv, _mm_shuffle_ps(r, r, _MM_SHUFFLE(1, 0, 3, 2)));   /* odd cells 2m+1, 2m+3 */
        _mm_storeu_ps(x[2 * m], _mm_movelh_ps(e, o));
        _mm_storeu_ps(x[2 * m + 2], _mm_movehl_ps(o, e));
    }
#endif
    for (; 2 * m < n; m++) {
        x[2 * m][0] = tmp[m][0];
        x[2 * m][1] = tmp[m][1];
        if (2 * m + 1 < n) {
            x[2 * m + 1][0] = s * tmp[n - 1 - m][0];
            x[2 * m + 1][1] = s * tmp[n - 1 - m][1];
        }
    }
}

/* The DCT-III (FFTW's REDFT01, x_i = Y_0 + 2 sum_(k>0) Y_k cos(pi k (i + 1/2)
 * / n): 2 n times the inverse of dct2_forward) of the real and of the
 * imaginary parts of the line y into x, by the inverse of dct2_forward's
 * steps: V_k = conj(t) (Y_k - i Y_(n-k)) (Y_n = 0; in place, pairs k,
 * n - k, V_(n-k) = i t (Y_(n-k) - i Y_k)), v the unnormalised inverse DFT
 * of V, the cells back from their order (times odd_sign). tmp: a line.
 * SSE2 as dct2_forward. */
static void dct2_back(const struct axis *a, fftwf_plan p, fftwf_complex *restrict y, fftwf_complex *restrict x,
                      fftwf_complex *restrict tmp)
{
    dct2_pre(a, y);
    fftwf_execute_dft(p, y, tmp);
    dct2_unpermute(a, tmp, x);
}

/* dct4_in's j = 0 .. 8 floor(n / 16) - 1, eight j at a time in GCC's
 * vectors, each lane doing dct4_in's scalar operations: cells 2j .. 2j + 14
 * (the even ones of 16 values from x[2j]) and n - 1 - 2j .. n - 15 - 2j
 * (the odd ones of 16 from x[n - 16 - 2j], reversed). Returns the next j.
 * The scalar loop stays out of these clones: GCC 12 turned it, vectorised
 * for AVX2, into fused multiply-adds (vfmaddsubps) despite
 * -ffp-contract=off, rounding once where the scalar code rounds twice
 * (test_pair_fused_bits found it). */
RR_CLONES_V4_V3 static int dct4_in_blocks(const struct axis *a, const fftwf_complex *restrict x,
                                          fftwf_complex *restrict tmp, float s_in)
{
    const int n = a->n, h = n / 2, d = dct4_half(a);
    const fftwf_complex *tw = a->tw;
    int j = 0;
    for (; j + 8 <= h; j += 8) {
        v8sf c, e, x0, x1, x2, x3, y0, y1, y2, y3;
        V_PARTS(tw[j], c, e);
        x0 = v_load(x[2 * j]);
        x1 = v_load(x[2 * j + 4]);
        x2 = v_load(x[2 * j + 8]);
        x3 = v_load(x[2 * j + 12]);
        y0 = v_load(x[n - 16 - 2 * j]);
        y1 = v_load(x[n - 12 - 2 * j]);
        y2 = v_load(x[n - 8 - 2 * j]);
        y3 = v_load(x[n - 4 - 2 * j]);
        /* (real parts of the four even values, their imaginary parts) of each half */
        const v8sf ea = __builtin_shufflevector(x0, x1, 0, 4, 8, 12, 1, 5, 9, 13);
        const v8sf eb = __builtin_shufflevector(x2, x3, 0, 4, 8, 12, 1, 5, 9, 13);
        const v8sf oa = __builtin_shufflevector(y3, y2, 6, 2, 14, 10, 7, 3, 15, 11);
        const v8sf ob = __builtin_shufflevector(y1, y0, 6, 2, 14, 10, 7, 3, 15, 11);
        const v8sf er = __builtin_shufflevector(ea, eb, 0, 1, 2, 3, 8, 9, 10, 11);
        const v8sf ei = __builtin_shufflevector(ea, eb, 4, 5, 6, 7, 12, 13, 14, 15);
        const v8sf or_ = __builtin_shufflevector(oa, ob, 0, 1, 2, 3, 8, 9, 10, 11);
        const v8sf oi = __builtin_shufflevector(oa, ob, 4, 5, 6, 7, 12, 13, 14, 15);
        for (int q = 0; q < 2; q++) {
            const v8sf vr = q ? ei : er, vi = s_in * (q ? oi : or_);
            const v8sf re = c * vr - e * vi, im = c * vi + e * vr;
            V_STORE2(tmp[q * d + j], V_LO(re, im), V_HI(re, im));
        }
    }
    return j;
}

/* dct4_line's steps before the two DFTs: x's v_j, twiddled, into tmp's
 * two half lines (the real parts' and the imaginary parts'). */
static void dct4_in(const struct axis *a, const fftwf_complex *restrict x, fftwf_complex *restrict tmp, float s_in)
{
    const int n = a->n, h = n / 2, d = dct4_half(a);
    const fftwf_complex *tw = a->tw;
    for (int j = plain_lines ? 0 : dct4_in_blocks(a, x, tmp, s_in); j < h; j++) {
        const float c = tw[j][0], e = tw[j][1];
        for (int q = 0; q < 2; q++) {
            const float vr = x[2 * j][q], vi = s_in * x[n - 1 - 2 * j][q];
            tmp[q * d + j][0] = c * vr - e * vi;
            tmp[q * d + j][1] = c * vi + e * vr;
        }
    }
}

/* dct4_out's k = 0 .. 8 floor(n / 16) - 1, eight k at a time in GCC's
 * vectors, each lane doing dct4_out's scalar operations; y's cells 2k ..
 * 2k + 14 and n - 1 - 2k .. n - 15 - 2k are blended into the 16 values
 * around them, loaded and stored whole (the other cells are other k's,
 * stored before or after: either way each ends with its own value).
 * Returns the next k. Kept apart from the scalar loop as dct4_in_blocks. */
RR_CLONES_V4_V3 static int dct4_out_blocks(const struct axis *a, const fftwf_complex *restrict tmp,
                                           fftwf_complex *restrict y, float s_out)
{
    const int n = a->n, h = n / 2, d = dct4_half(a);
    const fftwf_complex *tw = a->tw;
    const float ns = -s_out;
    int k = 0;
    for (; k + 8 <= h; k += 8) {
        v8sf c, e, vr0, vi0, vr1, vi1;
        V_PARTS(tw[h + k], c, e);
        V_PARTS(tmp[k], vr0, vi0);
        V_PARTS(tmp[d + k], vr1, vi1);
        const v8sf re0 = c * vr0 - e * vi0, re1 = c * vr1 - e * vi1;
        const v8sf im0 = (c * vi0 + e * vr0) * ns, im1 = (c * vi1 + e * vr1) * ns;
        const v8sf plo = V_LO(re0, re1), phi = V_HI(re0, re1), qlo = V_LO(im0, im1), qhi = V_HI(im0, im1);
        fftwf_complex *ye = y + 2 * k, *yo = y + n - 16 - 2 * k;
        const v8sf e0 = v_load(ye[0]), e1 = v_load(ye[4]), e2 = v_load(ye[8]), e3 = v_load(ye[12]);
        V_STORE2(ye[0], __builtin_shufflevector(e0, plo, 8, 9, 2, 3, 10, 11, 6, 7),
                 __builtin_shufflevector(e1, plo, 12, 13, 2, 3, 14, 15, 6, 7));
        V_STORE2(ye[8], __builtin_shufflevector(e2, phi, 8, 9, 2, 3, 10, 11, 6, 7),
                 __builtin_shufflevector(e3, phi, 12, 13, 2, 3, 14, 15, 6, 7));
        const v8sf o0 = v_load(yo[0]), o1 = v_load(yo[4]), o2 = v_load(yo[8]), o3 = v_load(yo[12]);
        V_STORE2(yo[0], __builtin_shufflevector(o0, qhi, 0, 1, 14, 15, 4, 5, 12, 13),
                 __builtin_shufflevector(o1, qhi, 0, 1, 10, 11, 4, 5, 8, 9));
        V_STORE2(yo[8], __builtin_shufflevector(o2, qlo, 0, 1, 14, 15, 4, 5, 12, 13),
                 __builtin_shufflevector(o3, qlo, 0, 1, 10, 11, 4, 5, 8, 9));
    }
    return k;
}

/* dct4_line's steps after the two DFTs (tmp: their two half lines,
 * dct4_half apart) into y. */
static void dct4_out(const struct axis *a, const fftwf_complex *restrict tmp, fftwf_complex *restrict y, float s_out)
{
    const int n = a->n, h = n / 2, d = dct4_half(a);
    const fftwf_complex *tw = a->tw;
    const float ns = -s_out;
    for (int k = plain_lines ? 0 : dct4_out_blocks(a, tmp, y, s_out); k < h; k++) {
        const float c = tw[h + k][0], e = tw[h + k][1];
        for (int q = 0; q < 2; q++) {
            const float vr = tmp[q * d + k][0], vi = tmp[q * d + k][1];
            y[2 * k][q] = c * vr - e * vi;
            y[n - 1 - 2 * k][q] = (c * vi + e * vr) * ns;
        }
    }
}

/* dct4_out and copy_screen2 in one pass (the transform back of a dct4 x
 * axis's two grid rows, step_passes): tmp's two half lines (row 0's, then
 * row 1's, dct4_half apart) into the cells of each row, every value with
 * dct4_out's operations (s_out = odd_sign), to out and last of each row;
 * *mag the largest magnitude (tblock_mag_max). Here the pairs of blocks
 * k .. k + 7 and K = h - 8 - k .. h - 1 - k from k = 0 while the two do
 * not meet, in GCC's vectors, each lane doing dct4_out's scalar
 * operations: cells 2k .. 2k + 15 are block k's even cells between block
 * K's odd ones reversed, cells n - 16 - 2k .. n - 1 - 2k block K's even
 * ones between block k's odd ones reversed, so each 16 are stored whole.
 * Returns the first k left (the scalar loop does k .. h - 1 - k). No scalar
 * a*b - c*d here: see dct4_in_blocks. */
RR_CLONES_V4_V3 static int dct4_screen2_blocks(const struct axis *a, const fftwf_complex *restrict tmp,
                                               float *restrict out0, float *restrict last0, float *restrict out1,
                                               float *restrict last1, float s_out, int32_t *mag)
{
    const int n = a->n, h = n / 2, d = dct4_half(a);
    const fftwf_complex *tw = a->tw;
    const float ns = -s_out;
    const v8si abs = { INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX };
    v8si mx = { 0 };
    int k = 0;
    for (; 2 * k + 16 <= h; k += 8) {
        const int K = h - 8 - k;
        v8sf ck, ek, cK, eK;
        V_PARTS(tw[h + k], ck, ek);
        V_PARTS(tw[h + K], cK, eK);
        for (int q = 0; q < 2; q++) {
            v8sf vr, vi, wr, wi;
            V_PARTS(tmp[q * d + k], vr, vi);
            V_PARTS(tmp[q * d + K], wr, wi);
            const v8sf ev_k = ck * vr - ek * vi, od_k = (ck * vi + ek * vr) * ns;
            const v8sf ev_K = cK * wr - eK * wi, od_K = (cK * wi + eK * wr) * ns;
            const v8sf ro_K = V_REV(od_K), ro_k = V_REV(od_k);
            const v8sf f0 = V_LO(ev_k, ro_K), f1 = V_HI(ev_k, ro_K);   /* cells 2k .. 2k + 15 */
            const v8sf b0 = V_LO(ev_K, ro_k), b1 = V_HI(ev_K, ro_k);   /* cells n - 16 - 2k .. n - 1 - 2k */
            float *out = q ? out1 : out0, *last = q ? last1 : last0;
            V_STORE2(out + 2 * k, f0, f1);
            V_STORE2(last + 2 * k, f0, f1);
            V_STORE2(out + n - 16 - 2 * k, b0, b1);
            V_STORE2(last + n - 16 - 2 * k, b0, b1);
            const v8sf all[4] = { f0, f1, b0, b1 };
            for (int i = 0; i < 4; i++) {
                const v8si v = (v8si)all[i] & abs, gt = v > mx;
                mx = (v & gt) | (mx & ~gt);
            }
        }
    }
    for (int i = 0; i < 8; i++)
        *mag = mx[i] > *mag ? mx[i] : *mag;
    return k;
}

/* dct4_screen2_blocks' pairs of blocks, then the k they left one at a time
 * with dct4_out's scalar operations; returns the largest magnitude. */
static int32_t dct4_screen2(const struct axis *a, const fftwf_complex *restrict tmp, float *restrict out0,
                            float *restrict last0, float *restrict out1, float *restrict last1, float s_out)
{
    const int n = a->n, h = n / 2, d = dct4_half(a);
    const fftwf_complex *tw = a->tw;
    const float ns = -s_out;
    int32_t mag = 0;
    for (int k = dct4_screen2_blocks(a, tmp, out0, last0, out1, last1, s_out, &mag); k < h - k; k++)
        for (int i = 0; i < 2 && (i == 0 || k != h - 1 - k); i++) {
            const int kk = i ? h - 1 - k : k;
            const float c = tw[h + kk][0], e = tw[h + kk][1];
            for (int q = 0; q < 2; q++) {
                float *out = q ? out1 : out0, *last = q ? last1 : last0;
                const float vr = tmp[q * d + kk][0], vi = tmp[q * d + kk][1];
                const float ev = c * vr - e * vi, od = (c * vi + e * vr) * ns;
                out[2 * kk] = last[2 * kk] = ev;
                out[n - 1 - 2 * kk] = last[n - 1 - 2 * kk] = od;
                mag = tblock_mag_max(tblock_mag_max(mag, ev), od);
            }
        }
    return mag;
}

/* The DCT-IV (FFTW's REDFT11, Y_k = 2 sum_i x_i cos(pi (k + 1/2) (i + 1/2)
 * / n), its own inverse times 2 n) of the real and of the imaginary parts
 * of a line x of even length n into y, by a complex DFT of n / 2 values
 * for each part: with v_j = x_2j + i s_in x_(n-1-2j) (the odd cells times
 * s_in), V the DFT of v_j e^(-i pi (4 j + 1) / 4n) and W_k = 2 V_k
 * e^(-i pi k / n), Y_2k = Re W_k and Y_(n-1-2k) = -Im W_k (times s_out, the
 * odd modes); the angles pi (4 j + 1) (4 k + 1) / 4n of the even-even terms
 * and their partners' are those of the DFT's 2 pi j k / (n / 2) plus the
 * twiddles' (Britanak, Yip and Rao, Discrete Cosine and Sine Transforms,
 * 2007, 4.4). The forward transform of a dct4 axis takes s_in = odd_sign,
 * the back one s_out = odd_sign (struct axis_kind). tmp: four half lines
 * dct4_half apart (p's layout, plan_dct4), the real parts' and the
 * imaginary parts' v, then their DFTs. The steps before and after the DFTs
 * eight values at a time in GCC's vectors (dct4_in_blocks,
 * dct4_out_blocks), each lane doing the IEEE operations of the scalar
 * loops, so the bits do not depend on the CPU. */
static void dct4_line(const struct axis *a, fftwf_plan p, const fftwf_complex *restrict x, fftwf_complex *restrict y,
                      fftwf_complex *restrict tmp, float s_in, float s_out)
{
    const int d = dct4_half(a);
    dct4_in(a, x, tmp, s_in);
    fftwf_execute_dft(p, tmp, tmp + 2 * d);
    dct4_out(a, tmp + 2 * d, y, s_out);
}

/* Runs a plan of plan_forward along axis a on one line (tmp: a line). */
static void run_forward(const struct axis *a, fftwf_plan p, fftwf_complex *in, fftwf_complex *out,
                        fftwf_complex *tmp)
{
    if (a->kind->dct4)
        dct4_line(a, p, in, out, tmp, a->kind->odd_sign, 1.0f);
    else if (a->kind->dct2)
        dct2_forward(a, p, in, out, tmp);
    else if (a->kind->dft)
        fftwf_execute_dft(p, in, out);
    else
        fftwf_execute_r2r(p, (float *)in, (float *)out);
}

/* Runs a plan of plan_back along axis a (real_out as it was made; tmp: a
 * line; a dct2 axis's transform overwrites in). */
static void run_back(const struct axis *a, fftwf_plan p, bool real_out, fftwf_complex *in, void *out,
                     fftwf_complex *tmp)
{
    if (a->kind->dct4)
        dct4_line(a, p, in, out, tmp, 1.0f, a->kind->odd_sign);
    else if (a->kind->dct2)
        dct2_back(a, p, in, out, tmp);
    else if (!a->kind->dft)
        fftwf_execute_r2r(p, (float *)in, out);
    else if (real_out)
        fftwf_execute_dft_c2r(p, in, out);
    else
        fftwf_execute_dft(p, in, out);
}

/* The middle of a dct2 y axis's pair of columns a and b (pair_fused), in
 * one pass over their DFTs va and vb: dct2_post of each, multiply_pair of
 * the two, dct2_pre of the line they make, into u, every value with the
 * operations those three make on it in their order, so that u holds the
 * bits of the three passes (pair_plain). Here the pairs k, n - k eight at a
 * time from k = 1 in GCC's vectors, built for AVX-512, AVX2 and the
 * baseline; returns the next k. aa, ab: the columns' a; bxa, bxb: their
 * b's x factors. */
RR_CLONES_V4_V3 static int
pair_middle_dct2_blocks(int n, const fftwf_complex *tw, const fftwf_complex *va, const fftwf_complex *vb,
                        const float *aa, const float *ab, float bxa, float bxb, const float *by, fftwf_complex *u)
{
    int k = 1;
    for (; 2 * (k + 7) < n; k += 8) {
        const int m = n - k - 7;   /* modes m .. n - k: the partners of k + 7 .. k */
        v8sf c, d, aur, aui, avr, avi, bur, bui, bvr, bvi;
        V_PARTS(tw[k], c, d);
        V_PARTS(va[k], aur, aui);
        V_PARTS_REV(va[m], avr, avi);
        V_PARTS(vb[k], bur, bui);
        V_PARTS_REV(vb[m], bvr, bvi);
        const v8sf Yk = v_load(by + k), Yn = V_REV(v_load(by + m));
        v8sf wak, wan, wbk, wbn, ukr, uki, unr, uni;
        DCT2_POST_MUL(c, d, aur, aui, avr, avi, v_load(aa + k), bxa * Yk, V_REV(v_load(aa + m)), bxa * Yn, wak, wan);
        DCT2_POST_MUL(c, d, bur, bui, bvr, bvi, v_load(ab + k), bxb * Yk, V_REV(v_load(ab + m)), bxb * Yn, wbk, wbn);
        DCT2_PRE(c, d, wak, wbk, wan, wbn, ukr, uki, unr, uni);
        V_STORE2(u[k], V_LO(ukr, uki), V_HI(ukr, uki));
        V_STORE2(u[m], V_LO_REV(unr, uni), V_HI_REV(unr, uni));
    }
    return k;
}

/* pair_middle_dct2_blocks, with mode 0 and the pairs it left one at a
 * time, outside the clones (GCC 12 contracts scalar loops there: see
 * dct4_in_blocks); `mean` as multiply_pair. */
static void pair_middle_dct2(int n, const fftwf_complex *tw, const fftwf_complex *va, const fftwf_complex *vb,
                             const float *aa, const float *ab, float bxa, float bxb, const float *by, bool mean,
                             fftwf_complex *u)
{
    /* Mode 0: Y_0 = 2 V_0, which dct2_pre leaves. */
    u[0][0] = SEP_MODE(aa[0], mean ? 0.0f : bxa * by[0], va[0][0] * 2.0f, va[0][1] * 2.0f);
    u[0][1] = SEP_MODE(ab[0], bxb * by[0], vb[0][0] * 2.0f, vb[0][1] * 2.0f);
    for (int k = pair_middle_dct2_blocks(n, tw, va, vb, aa, ab, bxa, bxb, by, u); 2 * k <= n; k++) {
        const int j = n - k;   /* k itself when 2 k = n: dct2_post and dct2_pre then take v = u */
        const float c = tw[k][0], d = tw[k][1];
        float wak, wan, wbk, wbn, ukr, uki, unr, uni;
        DCT2_POST_MUL(c, d, va[k][0], va[k][1], va[j][0], va[j][1], aa[k], bxa * by[k], aa[j], bxa * by[j], wak, wan);
        DCT2_POST_MUL(c, d, vb[k][0], vb[k][1], vb[j][0], vb[j][1], ab[k], bxb * by[k], ab[j], bxb * by[j], wbk, wbn);
        if (j == k) {
            wan = wak;
            wbn = wbk;
        }
        DCT2_PRE(c, d, wak, wbk, wan, wbn, ukr, uki, unr, uni);
        u[k][0] = ukr;
        u[k][1] = uki;
        if (j != k) {
            u[j][0] = unr;
            u[j][1] = uni;
        }
    }
}

/* The middle of a dct4 y axis's pair of columns a and b (pair_fused), in
 * one pass over their DFTs (va, vb: each two half lines d apart, dct4_line's
 * layout): dct4_out of each (s_out 1), multiply_pair of the two, dct4_in
 * of the line they make (s_in 1) into t (two half lines d apart), with
 * their operations on every value in their order (pair_plain's bits). Mode
 * 2k and its partner n - 1 - 2k come from the DFTs' value k and go into
 * t's value k. Here eight k at a time in GCC's vectors; returns the next k. */
RR_CLONES_V4_V3 static int
pair_middle_dct4_blocks(int n, int d, const fftwf_complex *tw, const fftwf_complex *va, const fftwf_complex *vb,
                        const float *aa, const float *ab, float bxa, float bxb, const float *by, fftwf_complex *t)
{
    const int h = n / 2;
    int k = 0;
    for (; k + 8 <= h; k += 8) {
        const int e = 2 * k, o = n - 16 - 2 * k;   /* modes 2k .. 2k + 14, n - 1 - 2k - 14 .. n - 1 - 2k */
        v8sf c1, e1, c0, e0, Ye, Yo, w[2][2];   /* w: column, mode 2k (0) or n - 1 - 2k (1) */
        V_PARTS(tw[h + k], c1, e1);
        V_PARTS(tw[k], c0, e0);
        v8sf skip;   /* the other lanes of the modes 2k and n - 1 - 2k taken */
        V_PARTS(by + e, Ye, skip);
        V_PARTS_REV(by + o, skip, Yo);
        (void)skip;
        for (int col = 0; col < 2; col++) {
            const fftwf_complex *v = col ? vb : va;
            const float *A = col ? ab : aa, bx = col ? bxb : bxa;
            v8sf gr, gi, fr, fi, Ae, Ao;
            V_PARTS(v[k], gr, gi);
            V_PARTS(v[d + k], fr, fi);
            V_PARTS(A + e, Ae, skip);
            V_PARTS_REV(A + o, skip, Ao);
            w[col][0] = SEP_MODE(Ae, bx * Ye, c1 * gr - e1 * gi, c1 * fr - e1 * fi);
            w[col][1] = SEP_MODE(Ao, bx * Yo, (c1 * gi + e1 * gr) * -1.0f, (c1 * fi + e1 * fr) * -1.0f);
        }
        for (int q = 0; q < 2; q++) {
            const v8sf vr = w[q][0], vi = 1.0f * w[q][1];
            const v8sf tr = c0 * vr - e0 * vi, ti = c0 * vi + e0 * vr;
            V_STORE2(t[q * d + k], V_LO(tr, ti), V_HI(tr, ti));
        }
    }
    return k;
}

/* pair_middle_dct4_blocks, then the k it left one at a time, outside the
 * clones (see dct4_in_blocks). */
static void pair_middle_dct4(int n, int d, const fftwf_complex *tw, const fftwf_complex *va, const fftwf_complex *vb,
                             const float *aa, const float *ab, float bxa, float bxb, const float *by, fftwf_complex *t)
{
    const int h = n / 2;
    for (int k = pair_middle_dct4_blocks(n, d, tw, va, vb, aa, ab, bxa, bxb, by, t); k < h; k++) {
        const int e = 2 * k, o = n - 1 - 2 * k;
        const float c1 = tw[h + k][0], e1 = tw[h + k][1], c0 = tw[k][0], e0 = tw[k][1];
        float w[2][2];   /* column, mode 2k (0) or n - 1 - 2k (1) */
        for (int col = 0; col < 2; col++) {
            const fftwf_complex *v = col ? vb : va;
            const float *A = col ? ab : aa, bx = col ? bxb : bxa;
            const float gr = v[k][0], gi = v[k][1], fr = v[d + k][0], fi = v[d + k][1];
            w[col][0] = SEP_MODE(A[e], bx * by[e], c1 * gr - e1 * gi, c1 * fr - e1 * fi);
            w[col][1] = SEP_MODE(A[o], bx * by[o], (c1 * gi + e1 * gr) * -1.0f, (c1 * fi + e1 * fr) * -1.0f);
        }
        for (int q = 0; q < 2; q++) {
            const float vr = w[q][0], vi = 1.0f * w[q][1];
            t[q * d + k][0] = c0 * vr - e0 * vi;
            t[q * d + k][1] = c0 * vi + e0 * vr;
        }
    }
}

/* The mean's share of what sim.c added that the packed plane does not
 * carry (pack_row), for mode 0 of column pass item 0: half of sum(D),
 * summed in row order on one thread, normalised as the modes are. */
static float mean_share(const struct spectral *sp)
{
    double d = 0;
    for (int y = 0; y < sp->ay.m; y++)
        d += sp->dsum[y];
    return (float)(sp->mean_sign * d * 0.5 / ((double)sp->ax.n * sp->ay.n));
}

/* Columns za and zb (zb NULL: za alone) of two real-to-real axes, kx and
 * kx + 1 of the modes, the plain way: each transformed forward into b1,
 * the modes multiplied into a line of b0 as one complex line (multiply_pair;
 * `mean`: za is the mean's column; dmean, if not NULL, added to mode 0),
 * that line transformed back, to real values, into za (za's real parts,
 * zb's imaginary ones: column_pass). b0 and b1: a thread's buffers. */
static void pair_plain(const struct spectral *sp, fftwf_complex *za, fftwf_complex *zb, int kx, bool mean,
                       const float *dmean, fftwf_complex *b0, fftwf_complex *b1)
{
    const struct axis *ay = &sp->ay;
    const size_t l = sp->nyp, cy = (size_t)sp->cy;
    fftwf_complex *w = b0 + 8 * l;   /* after run_forward's tmp (dct4_line: four half lines) */
    run_forward(ay, sp->fy, za, b1, b0);
    if (zb)
        run_forward(ay, sp->fy, zb, b1 + l, b0);
    multiply_pair(w, b1, zb ? b1 + l : NULL, sp->AB + (size_t)kx * cy, zb ? sp->AB + (size_t)(kx + 1) * cy : NULL,
                  sp->bx[kx], zb ? sp->bx[kx + 1] : 0.0f, sp->by, ay->n, mean);
    if (dmean)
        w[0][0] += *dmean;
    run_back(ay, sp->iy, false, w, za, b1);
}

/* pair_plain of two columns on a dct2 or dct4 y axis, with the same bits,
 * in fewer passes: each column's reorder (and twiddles) and DFT into b, then
 * one pass from both DFTs to the line the inverse DFT takes (dct2_post or
 * dct4_out, multiply_pair, dct2_pre or dct4_in: pair_middle_dct2,
 * pair_middle_dct4), while the lines are in L1, then that DFT and the
 * cells' order back into za. The plans run on lines of b with the
 * alignment they were made with. */
static void pair_fused(const struct spectral *sp, fftwf_complex *za, const fftwf_complex *zb, int kx, bool mean,
                       const float *dmean, fftwf_complex *b)
{
    const struct axis *ay = &sp->ay;
    const float *aa = sp->AB + (size_t)kx * sp->cy, *ab = aa + sp->cy;
    if (ay->kind->dct2) {
        const size_t l = sp->nyp;
        fftwf_complex *t = b, *va = b + l, *vb = b + 2 * l, *u = b + 3 * l;
        dct2_permute(ay, za, t);
        fftwf_execute_dft(sp->fy, t, va);
        dct2_permute(ay, zb, t);
        fftwf_execute_dft(sp->fy, t, vb);
        pair_middle_dct2(ay->n, ay->tw, va, vb, aa, ab, sp->bx[kx], sp->bx[kx + 1], sp->by, mean, u);
        if (dmean)
            u[0][0] += *dmean;
        fftwf_execute_dft(sp->iy, u, t);
        dct2_unpermute(ay, t, za);
        return;
    }
    const int d = dct4_half(ay);
    dct4_in(ay, za, b, ay->kind->odd_sign);
    fftwf_execute_dft(sp->fy, b, b + 2 * d);
    dct4_in(ay, zb, b + 4 * d, ay->kind->odd_sign);
    fftwf_execute_dft(sp->fy, b + 4 * d, b + 6 * d);
    pair_middle_dct4(ay->n, d, ay->tw, b + 2 * d, b + 6 * d, aa, ab, sp->bx[kx], sp->bx[kx + 1], sp->by, b);
    fftwf_execute_dft(sp->iy, b, b + 2 * d);
    dct4_out(ay, b + 2 * d, za, ay->kind->odd_sign);
}

/* Column pass item t: its columns (stored together in Z) transformed
 * forward into b1, the modes of the columns that go back (item_columns'
 * keep) multiplied into b0 and transformed back into Z. The transform is
 * linear with real coefficients along a real-to-real axis, so the packed
 * plane's two real planes are separated by their partner modes: with z = Z(k) and zm = conj(Z(k')), k' the partner of k
 * (k_x and k_y negated on DFT axes, kept on real-to-real ones), F(h_n) =
 * (z + zm) / 2 and F(h_{n-1}) = (z - zm) / 2i, so a F(h_n) - b F(h_{n-1})
 * = A (z + zm) + i B (z - zm) with A = a/2, B = b/2 (and the transforms'
 * normalisation). The mode multiplication pairs column i with its partner,
 * both in the item and in cache. On a DFT x axis the new spectrum is
 * Hermitian in k_x (the heights are real), so only columns 0 .. nx / 2 go
 * back and the rows by a complex-to-real transform, at about half the cost
 * of a complex one; on a real-to-real x axis every column goes back, to
 * real values (plan_back), and on a DFT y axis only its rows 0 .. ny / 2
 * are needed for that. Item 0 holds the mean (k = 0, when both axes have
 * it): it adds the half of sum(D) that the packed plane does not carry
 * (pack_row), summed in row order on one thread. */
static void column_pass(const struct spectral *sp, int t, fftwf_complex *b0, fftwf_complex *b1)
{
    const struct axis *ax = &sp->ax, *ay = &sp->ay;
    const int ny = ay->n;
    const size_t nyp = sp->nyp;
    int col[COLS], kx[COLS], partner[COLS], keep;
    const int c = item_columns(sp, t, col, kx, partner, &keep);
    fftwf_complex *z[COLS];
    for (int s = 0; s < c; s++)
        z[s] = sp->Z + (size_t)col[s] * nyp;
    /* The item's columns, all at once: FFTW's first stage reads a column
     * in strides, which the hardware prefetchers do not follow from memory. */
    for (int s = 0; s < c; s++)
        for (size_t o = 0; o < (size_t)ny * sizeof *sp->Z; o += 64)
            __builtin_prefetch((const char *)z[s] + o, 0, 3);
    const bool mean = ax->kind->shift == 0 && ay->kind->shift == 0;
    if (sp->sep) {
        /* Two real-to-real axes: columns s and s + 1 (s even, as the item's
         * first column is) go back together as one complex line, stored in
         * Z's column s, s as the real parts and s + 1 as the imaginary
         * ones, so that a row of the even columns is the row's heights in
         * order (pass 3); the transforms being real, that line's transform
         * is the pair's (every value multiply_pair makes is real). */
        const float dm = t == 0 && mean ? mean_share(sp) : 0.0f;
        for (int s = 0; s < keep; s += 2) {
            const float *dmean = t == 0 && mean && s == 0 ? &dm : NULL;
            const bool m0 = mean && kx[s] == 0;
            if (s + 1 < keep && (ay->kind->dct2 || ay->kind->dct4) && !plain_lines)
                pair_fused(sp, z[s], z[s + 1], kx[s], m0, dmean, b0);
            else
                pair_plain(sp, z[s], s + 1 < keep ? z[s + 1] : NULL, kx[s], m0, dmean, b0, b1);
        }
        return;
    }
    for (int s = 0; s < c; s++)
        run_forward(ay, sp->fy, z[s], b1 + s * nyp, b0);
    for (int s = 0; s < keep; s++) {
        const fftwf_complex *u = b1 + s * nyp, *v = b1 + partner[s] * nyp;
        const float *ab = sp->AB + 2 * (size_t)kx[s] * sp->cy;
        fftwf_complex *w = b0 + s * nyp;
        if (!ay->kind->dft) {
            multiply_rows(w, u, v, ab, ny, 0, ny, 1, 1);
            continue;
        }
        /* Row j's partner is row ny - j (row 0 its own), and they share
         * a and b, kept for rows 0 .. ny / 2. */
        const int nh = ny / 2;
        mode_multiply(w[0], u[0], v[0], ab);
        multiply_rows(w, u, v, ab, ny, 1, nh + 1, 1, 0);
        if (ax->kind->dft)
            multiply_rows(w, u, v, ab, ny, nh + 1, ny, 0, 0);
    }
    if (t == 0 && mean)
        b0[0][0] += mean_share(sp);
    if (ax->kind->dft) {
        for (int s = 0; s < keep; s++)
            run_back(ay, sp->iy, false, b0 + s * nyp, z[s], b1);
        return;
    }
    /* A real-to-real x axis on a DFT y axis: the columns come back real by
     * a complex-to-real transform each, stored in pairs as on two
     * real-to-real axes (above). */
    for (int s = 0; s < keep; s += 2) {
        for (int h = 0; h < 2 && s + h < keep; h++) {
            const float *back = (const float *)b1;
            run_back(ay, sp->iy, true, b0 + (s + h) * nyp, b1, NULL);
            for (int j = 0; j < ny; j++)
                z[s][j][h] = back[j];
        }
    }
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
    for (const bool vec = !plain_lines; vec && nr % 2 == 0 && x + 2 <= n; x += 2) {
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

/* Rows y0 .. y0 + nr - 1 of a real-to-real x axis's heights, which
 * column_pass stored in Z's even columns (column 2i holds cells 2i and
 * 2i + 1 of each row), as lines of two rows each, rows r and r + 1 (r
 * even) as line r / 2 (nxp apart) of cell x's value h_r + i h_(r+1) (0 for
 * the imaginary part of an odd nr's last row): the transform back of the
 * pair is that line's (step_passes). Each even column's values of the
 * group (two cache lines for ROWS) are read once. */
static void group_pairs(const fftwf_complex *Z, size_t nyp, int y0, fftwf_complex *lines, size_t nxp, int nx, int nr)
{
    const bool vec = !plain_lines;
    for (int x = 0; x < nx; x += 2) {
        const float *z = Z[(size_t)x * nyp + y0];   /* cells x, x + 1 of row y0, then of row y0 + 1, ... */
        int r = 0;
#ifdef __SSE2__
        for (; vec && x + 1 < nx && r + 1 < nr; r += 2) {   /* (a0, a1, b0, b1) to (a0, b0, a1, b1): copies */
            const __m128 v = _mm_loadu_ps(z + 2 * r);
            _mm_storeu_ps(lines[(size_t)(r / 2) * nxp + x], _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 1, 2, 0)));
        }
#endif
        for (; r < nr; r += 2) {
            float *l = lines[(size_t)(r / 2) * nxp + x];
            const float *a = z + 2 * r, *b = z + 2 * r + 2;
            const bool one = r + 1 == nr;
            l[0] = a[0];
            l[1] = one ? 0.0f : b[0];
            if (x + 1 < nx) {
                l[2] = a[1];
                l[3] = one ? 0.0f : b[1];
            }
        }
    }
}

/* copy_screen of two rows at once from a line of m complex values, row 0's
 * cells its real parts and row 1's its imaginary ones: the largest
 * magnitude of both (tblock_mag_max). Two cells of each row at a time
 * with SSE2. */
static int32_t copy_screen2(float *restrict out0, float *restrict last0, float *restrict out1, float *restrict last1,
                            const fftwf_complex *restrict in, int m)
{
    int x = 0;
    int32_t mag = 0;
#ifdef __SSE2__
    __m128i mx = _mm_setzero_si128();
    for (; x + 4 <= m; x += 4) {
        const __m128 a = _mm_loadu_ps(in[x]), b = _mm_loadu_ps(in[x + 2]);
        const __m128 r0 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));   /* row 0's four cells */
        const __m128 r1 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));   /* row 1's */
        mx = store2_screen(out0, last0, out1, last1, x, r0, r1, mx);
    }
    mag = mag_of_lanes(mx, mag);
#endif
    for (; x < m; x++) {
        out0[x] = last0[x] = in[x][0];
        out1[x] = last1[x] = in[x][1];
        mag = tblock_mag_max(tblock_mag_max(mag, in[x][0]), in[x][1]);
    }
    return mag;
}

/* dct2_unpermute and copy_screen2 in one pass: the cells of two rows back
 * from the DFT's order (tmp, n complex values: row 0 the real parts, row
 * 1 the imaginary ones; odd cells times odd_sign s), each value with
 * dct2_unpermute's operations, to out and last of each row; returns the
 * largest magnitude (tblock_mag_max). Four cells of each row at a time
 * with SSE2. */
static int32_t unpermute_screen2(float *restrict out0, float *restrict last0, float *restrict out1,
                                 float *restrict last1, const fftwf_complex *restrict tmp, int n, float s)
{
    int m = 0;
    int32_t mag = 0;
#ifdef __SSE2__
    const __m128 sv = _mm_set1_ps(s);
    __m128i mx = _mm_setzero_si128();
    for (; 2 * m + 3 < n; m += 2) {
        const __m128 e = _mm_loadu_ps(tmp[m]), r = _mm_loadu_ps(tmp[n - 2 - m]);
        const __m128 o = _mm_mul_ps(sv, _mm_shuffle_ps(r, r, _MM_SHUFFLE(1, 0, 3, 2)));   /* odd cells 2m+1, 2m+3 */
        const __m128 lo = _mm_unpacklo_ps(e, o), hi = _mm_unpackhi_ps(e, o);
        const __m128 r0 = _mm_movelh_ps(lo, hi), r1 = _mm_movehl_ps(hi, lo);
        mx = store2_screen(out0, last0, out1, last1, 2 * m, r0, r1, mx);
    }
    mag = mag_of_lanes(mx, mag);
#endif
    for (int x = 2 * m; x < n; x++) {
        const float *v = tmp[x % 2 ? n - 1 - x / 2 : x / 2];
        const float h0 = x % 2 ? s * v[0] : v[0], h1 = x % 2 ? s * v[1] : v[1];
        out0[x] = last0[x] = h0;
        out1[x] = last1[x] = h1;
        mag = tblock_mag_max(tblock_mag_max(mag, h0), h1);
    }
    return mag;
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
    const int nx = sp->ax.n, ny = sp->ay.n, groups = (ny + ROWS - 1) / ROWS;
    const size_t nxp = sp->nxp;
    fftwf_complex *b0 = sp->buf + (size_t)t * sp->buflen;
    fftwf_complex *b1 = b0 + sp->buflen / 2;
    const bool fused = !plain_lines;   /* the fused row passes, or the plain ones (solver_spectral_plain) */
    for (int g; (g = claim(j, 0, groups)) >= 0;) {
        const int y0 = g * ROWS, nr = ny - y0 < ROWS ? ny - y0 : ROWS;
        for (int r = 0; r < nr; r++) {
            const int gy = y0 + r - sp->ay.lo;
            if (fused && sp->ax.kind->dct2 && sp->ax.n == sp->ax.m && gy >= 0 && gy < sp->ay.m) {
                /* A grid row of a dct2 x axis without pads: packed straight
                 * into the DFT's order (dct2_forward's steps after it). */
                sp->dsum[gy] = pack_grid_row_dct2(b0, f->cur + gy * f->stride, sp->last + (size_t)gy * nx,
                                                  f->prev + gy * f->stride, nx, sp->ax.kind->odd_sign);
                fftwf_execute_dft(sp->fx, b0, b1 + r * nxp);
                dct2_post(&sp->ax, b1 + r * nxp);
                continue;
            }
            if (fused && sp->ax.kind->dct4 && sp->ax.n == sp->ax.m && gy >= 0 && gy < sp->ay.m) {
                /* likewise into the DCT-IV's half lines (dct4_line's steps after them) */
                const int d = dct4_half(&sp->ax);
                sp->dsum[gy] = pack_grid_row_dct4(&sp->ax, b0 + nxp, f->cur + gy * f->stride,
                                                  sp->last + (size_t)gy * nx, f->prev + gy * f->stride);
                fftwf_execute_dft(sp->fx, b0 + nxp, b0 + nxp + 2 * d);
                dct4_out(&sp->ax, b0 + nxp + 2 * d, b1 + r * nxp, 1.0f);
                continue;
            }
            pack_row(sp, f, y0 + r, b0);
            run_forward(&sp->ax, sp->fx, b0, b1 + r * nxp, b0 + nxp);
        }
        group_copy(sp->Z, sp->nyp, y0, b1, nxp, nx, nr, 1);
    }
    team_barrier(nt);
    for (int i; (i = claim(j, 1, sp->nitems)) >= 0;)
        column_pass(sp, i, b0, b1);
    team_barrier(nt);
    int32_t mag = 0;
    for (int g; (g = claim(j, 2, groups)) >= 0;) {
        const int y0 = g * ROWS, nr = ny - y0 < ROWS ? ny - y0 : ROWS;
        if (sp->ax.kind->dft) {
            group_copy(sp->Z, sp->nyp, y0, b1, nxp, nx / 2 + 1, nr, 0);
            for (int r = 0; r < nr; r++) {
                run_back(&sp->ax, sp->ix, true, b1 + r * nxp, b0, b0 + nxp);
                int32_t m = unpack_row(sp, f, y0 + r, (const float *)b0, j->Hnew);
                mag = m > mag ? m : mag;
            }
            continue;
        }
        /* A real-to-real x axis: the rows (column_pass stored each in Z's
         * even columns, two values a column) go back two at once, row
         * r + i row r + 1 (group_pairs); two grid rows without x pads
         * straight from the line to the field (copy_screen2). */
        group_pairs(sp->Z, sp->nyp, y0, b1, nxp, nx, nr);
        float *h0 = (float *)(b0 + 6 * nxp), *h1 = (float *)(b0 + 7 * nxp);   /* after tmp (dct4_line) */
        const struct axis *ax = &sp->ax, *ay = &sp->ay;
        for (int r = 0; r < nr; r += 2) {
            fftwf_complex *line = b1 + r / 2 * nxp;
            const int gy = y0 + r - ay->lo;
            if (fused && ax->n == ax->m && r + 1 < nr && gy >= 0 && gy + 1 < ay->m) {
                float *out0 = f->prev + gy * f->stride, *last0 = sp->last + (size_t)gy * ax->m;
                int32_t m;
                if (ax->kind->dct2) {
                    /* dct2_back with its last step and the copy in one pass */
                    dct2_pre(ax, line);
                    fftwf_execute_dft(sp->ix, line, b0 + nxp);
                    m = unpermute_screen2(out0, last0, out0 + f->stride, last0 + ax->m, b0 + nxp, ax->m,
                                          ax->kind->odd_sign);
                } else if (ax->kind->dct4) {
                    /* dct4_line with its last step and the copy in one pass */
                    const int d = dct4_half(ax);
                    dct4_in(ax, line, b0 + nxp, 1.0f);
                    fftwf_execute_dft(sp->ix, b0 + nxp, b0 + nxp + 2 * d);
                    m = dct4_screen2(ax, b0 + nxp + 2 * d, out0, last0, out0 + f->stride, last0 + ax->m,
                                     ax->kind->odd_sign);
                } else {
                    run_back(ax, sp->ix, false, line, b0, b0 + nxp);
                    m = copy_screen2(out0, last0, out0 + f->stride, last0 + ax->m, b0, ax->m);
                }
                mag = m > mag ? m : mag;
                continue;
            }
            run_back(ax, sp->ix, false, line, b0, b0 + nxp);
            for (int x = 0; x < nx; x++) {
                h0[x] = b0[x][0];
                h1[x] = b0[x][1];
            }
            for (int k = 0; k < 2 && r + k < nr; k++) {
                int32_t m = unpack_row(sp, f, y0 + r + k, k ? h1 : h0, j->Hnew);
                mag = m > mag ? m : mag;
            }
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
    nt = nt < sp->nthreads ? nt : sp->nthreads;
    if (sp->par) {
        team_run(nt < sp->par ? nt : sp->par, step_passes, &j);
    } else if (nt < 2) {
        team_run(1, step_passes, &j);
    } else {
        struct par_choice *c = &sp->choice;
        const int way = forced_way >= 0 ? forced_way : par_way(c);
        const double t0 = par_now();
        team_run(way ? nt : 1, step_passes, &j);
        if (forced_way < 0 && par_took(c, way, par_now() - t0))
            debug_line(DEBUG_KERNELS, "spectral: %d x %d domain: a step %.3f ms on one thread, %.3f ms on %d: %s from step %d",
                       sp->ax.n, sp->ay.n, c->cost[0] * 1e3, c->cost[1] * 1e3, nt, c->way ? "the team" : "one thread",
                       c->seen[0] + c->seen[1]);
    }
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

int solver_spectral_line(int n, enum edge_kind lo, enum edge_kind hi, bool back, const float *in, float *out)
{
    struct axis a;
    axis_init(&a, n, lo, hi, PAD_MIN);
    if (a.kind->dft || a.n != n)
        return -1;
    const size_t len = 8 * line_stride((size_t)n);
    fftwf_complex *b = fftwf_malloc(len * sizeof *b);
    if (!b || axis_twiddles(&a) < 0) {
        fftwf_free(b);
        return -1;
    }
    fftwf_complex *x = b, *y = b + len / 4, *tmp = b + len / 2;
    fftwf_plan p = back ? plan_back(&a, x, y, false, FFTW_ESTIMATE) : plan_forward(&a, x, y, FFTW_ESTIMATE);
    if (p) {
        for (int j = 0; j < n; j++)
            memcpy(x[j], in + 2 * (back && a.kind->rev ? n - 1 - j : j), sizeof *x);
        if (back)
            run_back(&a, p, false, x, y, tmp);
        else
            run_forward(&a, p, x, y, tmp);
        for (int j = 0; j < n; j++)
            memcpy(out + 2 * j, y[!back && a.kind->rev ? n - 1 - j : j], sizeof *y);
        fftwf_destroy_plan(p);
    }
    fftwf_free(a.tw);
    fftwf_free(b);
    return p ? 0 : -1;
}

int solver_spectral_pair(int n, enum edge_kind lo, enum edge_kind hi, bool fused, const float *za, const float *zb,
                         const float *a, const float *bx, const float *by, bool mean, float dmean, float *out)
{
    struct spectral sp = { 0 };
    axis_init(&sp.ay, n, lo, hi, PAD_MIN);
    if (sp.ay.kind->dft || sp.ay.n != n || (fused && !sp.ay.kind->dct2 && !sp.ay.kind->dct4)
        || (mean && sp.ay.kind->shift != 0))
        return -1;
    sp.nyp = line_stride((size_t)n);
    sp.cy = n;
    const size_t half = COLS * sp.nyp;   /* a thread's b0, then its b1 (spectral_init) */
    fftwf_complex *b = fftwf_malloc((2 * half + 2 * sp.nyp) * sizeof *b), *z = b + 2 * half;
    sp.AB = malloc(2 * (size_t)n * sizeof *sp.AB);
    sp.bx = malloc(2 * sizeof *sp.bx);
    sp.by = malloc((size_t)n * sizeof *sp.by);
    int ok = b && sp.AB && sp.bx && sp.by && axis_twiddles(&sp.ay) == 0;
    if (ok) {
        memcpy(sp.AB, a, 2 * (size_t)n * sizeof *sp.AB);
        memcpy(sp.bx, bx, 2 * sizeof *sp.bx);
        memcpy(sp.by, by, (size_t)n * sizeof *sp.by);
        sp.fy = plan_forward(&sp.ay, b, b + half, FFTW_ESTIMATE);
        sp.iy = plan_back(&sp.ay, b, b + half, false, FFTW_ESTIMATE);
        ok = sp.fy && sp.iy;
    }
    if (ok) {
        memcpy(z, za, 2 * (size_t)n * sizeof(float));
        memcpy(z + sp.nyp, zb, 2 * (size_t)n * sizeof(float));
        if (fused)
            pair_fused(&sp, z, z + sp.nyp, 0, mean, mean ? &dmean : NULL, b);
        else
            pair_plain(&sp, z, z + sp.nyp, 0, mean, mean ? &dmean : NULL, b, b + half);
        memcpy(out, z, 2 * (size_t)n * sizeof(float));
    }
    if (sp.fy)
        fftwf_destroy_plan(sp.fy);
    if (sp.iy)
        fftwf_destroy_plan(sp.iy);
    fftwf_free(sp.ay.tw);
    fftwf_free(b);
    free(sp.AB);
    free(sp.bx);
    free(sp.by);
    return ok ? 0 : -1;
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
    .beyond = spectral_beyond,
    .displaces_at_rest = true,
    .decay_rate = spectral_decay_rate,
    .loops_exactly = true,
    .state = spectral_state,
};

/* tblock.h: row-kernel drivers for the two-level (leapfrog) stencil solvers:
 * one plain step, and several steps fused into one pass over the grid
 * (temporal blocking) with results bit-identical to the plain steps. */
#ifndef RR_TBLOCK_H
#define RR_TBLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "field.h"
#include "isa.h"
#include "scene.h"
#include "solver.h"
#include "tblock_internal.h"   /* struct tblock_drive, which each kernel carries */

/* One row of one step: on entry out[0..w-1] holds the row one step before
 * mid; on return, the new row. up, mid and dn are rows y-1, y, y+1 of the
 * current level, readable from [-1] to [w] (ghosts included); y is the row's
 * index in the grid (for per-cell coefficients). The four row pointers never
 * alias. k is the solver's constants. With limit > 0, returns 1 when a new
 * cell is beyond `limit` or NaN, else 0: the blow-up screen, computed in the
 * kernel's own loop while the value is in a register (a second pass would
 * read every row again). With limit 0 the kernel skips the screen and
 * returns 0: the drivers ask for it only on the frame's last step, as the
 * comparison is not free where the rows are in cache. TBLOCK_ROW_KERNEL
 * builds one. */
typedef int (*tblock_row_fn)(const void *k, int y, float *out, const float *up, const float *mid,
                             const float *dn, int w, float limit);

/* The screen's arithmetic: tblock_mag(v) is the bit pattern of |v| as a
 * signed integer, which orders every float by magnitude and puts infinity
 * and NaN above every finite value. A loop may keep the largest,
 *     m = tblock_mag_max(m, v)        (from m = 0)
 * for each new cell and return tblock_beyond(m, limit): an AND and an
 * integer max per vector of cells where the CPU has an integer max
 * (the spectral solver; the AVX-512 driver keeps a sum of squares instead,
 * one fused multiply-add: tblock_avx512.h); the portable row kernels use
 * tblock_screen_keep below. */
static inline int32_t tblock_mag(float v)
{
    int32_t b;
    memcpy(&b, &v, sizeof b);
    return b & INT32_MAX;
}

static inline int32_t tblock_mag_max(int32_t m, float v)
{
    int32_t b = tblock_mag(v);
    return b > m ? b : m;
}

static inline int tblock_beyond(int32_t m, float limit)
{
    return m > tblock_mag(limit);
}

/* The same for the portable row kernels, built with the screen on or off
 * (TBLOCK_ROW_KERNEL):
 *     m = tblock_screen_keep(m, v, limit, screen)    for each new cell (from m = 0),
 *     return tblock_screen_found(m, screen);
 * with screen off they keep nothing and find nothing. m is the OR of each
 * cell's comparison with the limit (all ones where |v| is beyond it): the
 * same answer as the largest magnitude's, but the loop carries only an OR
 * from vector to vector. The baseline (SSE2) has no integer max; built from
 * compares and masks, the max chained four instructions from each vector to
 * the next and set the pace of its one-step loops. */
static inline int32_t tblock_screen_keep(int32_t m, float v, float limit, int screen)
{
    return screen ? m | -(int32_t)(tblock_mag(v) > tblock_mag(limit)) : m;
}

static inline int tblock_screen_found(int32_t m, int screen)
{
    return screen && m != 0;
}

/* A bit of a kernel's `variant` that the hand-written drivers add for CPUs
 * on which subnormal floats are slow (tblock_careful): the solver's update
 * then multiplies with tblock_mulxN, tblock_mul0xN and tblock_pow2xN
 * (tblock_avx512.h), the same bits without the slow case, and the drivers
 * keep the screen with integer operations. */
#define TBLOCK_CAREFUL 0x100

/* Defines `name`, a tblock_row_fn for AVX-512 (x86-64-v4), AVX2 (x86-64-v3)
 * and the baseline, picked at load time, from an always-inline body
 *     int body(const void *k, int y, float *restrict out, const float *restrict up,
 *              const float *restrict mid, const float *restrict dn, int w, float limit,
 *              int variant, int screen)
 * inlined with `variant` (the solver's own switch between kernel forms) and
 * `screen` (limit > 0) constants, so that each is one straight vectorised
 * loop. The body keeps the screen with tblock_screen_keep and returns
 * tblock_screen_found. The Makefile's -mprefer-vector-width=512 lets the
 * AVX-512 build use 64-byte vectors (GCC's default for it is 32 bytes; the
 * wider vectors give more cells per second where the rows are in cache, and
 * seed 004's loop built with -march=native uses them too). All builds do the same operations in the same order on IEEE floats
 * (no fused multiply-add: -std=c11 keeps contraction off), so the frames are
 * the same bits on each. */
#define TBLOCK_ROW_KERNEL(name, body, variant)                                                            \
    RR_CLONES_V4_V3 static int name(                                                                  \
        const void *k, int y, float *restrict out, const float *restrict up, const float *restrict mid,   \
        const float *restrict dn, int w, float limit)                                                     \
    {                                                                                                     \
        return limit > 0 ? body(k, y, out, up, mid, dn, w, limit, variant, 1)                             \
                         : body(k, y, out, up, mid, dn, w, limit, variant, 0);                            \
    }

/* Three rows of one step in one loop along x: rows y, y + 1 and y + 2 into
 * out0, out1, out2 (on entry, those rows one step before), from the five
 * rows y - 1 .. y + 3 of the current level, r0 .. r4 (readable from [-1] to
 * [w]). The same bits as three calls of the solver's tblock_row_fn, and the
 * same screen (limit: as there). For the 4-neighbour stencils: each row of
 * the current level is read once for three new rows where single rows read
 * it three times, which pays where rows come from L2 or memory (wide rows
 * do not stay in L1 three at a time). TBLOCK_ROWS3_KERNEL builds
 * one, TBLOCK_DRIVERS (tblock_drivers.h) the hand-written drivers' ones. */
typedef int (*tblock_rows3_fn)(const void *k, int y, float *out0, float *out1, float *out2, const float *r0,
                               const float *r1, const float *r2, const float *r3, const float *r4, int w,
                               float limit);

/* A solver's update for one cell: the new height from the 4-neighbour sum
 * s = (W + E) + (N + S), the centre h and the height one step back p, at
 * cell x of row y (for per-cell coefficients); `variant` as in
 * TBLOCK_ROW_KERNEL. */
typedef float (*tblock_update1_fn)(const void *k, int variant, int y, int x, float s, float h, float p);

/* TBLOCK_ROWS3_KERNEL's loop: for each x, the three cells in row order,
 * each as the single-row kernels compute it. `update` inlines. */
static inline __attribute__((always_inline)) int
tblock_rows3(const void *k, int y, float *restrict o0, float *restrict o1, float *restrict o2,
             const float *restrict r0, const float *restrict r1, const float *restrict r2, const float *restrict r3,
             const float *restrict r4, int w, float limit, int variant, int screen, tblock_update1_fn update)
{
    int32_t m = 0;
    for (int x = 0; x < w; x++) {
        float v0 = update(k, variant, y, x, (r1[x - 1] + r1[x + 1]) + (r0[x] + r2[x]), r1[x], o0[x]);
        float v1 = update(k, variant, y + 1, x, (r2[x - 1] + r2[x + 1]) + (r1[x] + r3[x]), r2[x], o1[x]);
        float v2 = update(k, variant, y + 2, x, (r3[x - 1] + r3[x + 1]) + (r2[x] + r4[x]), r3[x], o2[x]);
        o0[x] = v0;
        o1[x] = v1;
        o2[x] = v2;
        m = tblock_screen_keep(tblock_screen_keep(tblock_screen_keep(m, v0, limit, screen), v1, limit, screen), v2,
                               limit, screen);
    }
    return tblock_screen_found(m, screen);
}

/* Defines `name`, a tblock_rows3_fn for AVX-512, AVX2 and the baseline as
 * TBLOCK_ROW_KERNEL does, from a solver's update for one cell. */
#define TBLOCK_ROWS3_KERNEL(name, update, variant)                                                         \
    RR_CLONES_V4_V3 static int name(                                                                   \
        const void *k, int y, float *restrict o0, float *restrict o1, float *restrict o2,                  \
        const float *restrict r0, const float *restrict r1, const float *restrict r2,                      \
        const float *restrict r3, const float *restrict r4, int w, float limit)                            \
    {                                                                                                      \
        return limit > 0 ? tblock_rows3(k, y, o0, o1, o2, r0, r1, r2, r3, r4, w, limit, variant, 1, update) \
                         : tblock_rows3(k, y, o0, o1, o2, r0, r1, r2, r3, r4, w, limit, variant, 0, update); \
    }

/* Whether the solvers offer their AVX-512 row kernels (src/tblock_avx512.h)
 * to the drivers: when the CPU has AVX-512 (x86-64-v4) and
 * tblock_allow_avx512 has not said no. Read when a solver sets up its
 * kernel (at init). */
int tblock_avx512(void);

/* 0: the solvers initialised from now on offer only their portable kernels,
 * even on an AVX-512 CPU; 1: the default. For the tests and for comparing
 * the two (the bits are the same). */
void tblock_allow_avx512(int allow);

/* Whether the solvers offer their AVX2 row drivers (src/tblock_avx2.h) in
 * the drivers' slot: when the CPU has AVX2 and FMA (x86-64-v3), the
 * solvers offer no AVX-512 driver (tblock_avx512() is 0: the CPU lacks
 * AVX-512, the build is capped below it, or tblock_allow_avx512 said no)
 * and tblock_allow_avx2 has not said no. Read at a solver's init. */
int tblock_avx2(void);

/* 0: no AVX2 driver for the solvers initialised from now on; 1: the
 * default. With tblock_allow_avx512(0) the tests run the AVX2 drivers on an
 * AVX-512 CPU. */
void tblock_allow_avx2(int allow);

/* Whether the drivers the solvers offer are their TBLOCK_CAREFUL ones:
 * when the CPU multiplies subnormal floats slowly (a probe times a chain of
 * multiplies on a subnormal and on a normal float, once a process), unless
 * RIPPLERENDER_SUBNORMALS says `careful` or `plain`, or
 * tblock_allow_careful has said (tests: the bits are the same either way).
 * Read at a solver's init. */
int tblock_careful(void);

/* 0, or RR_EXIT_USAGE naming RIPPLERENDER_SUBNORMALS's value when it is
 * not auto, careful or plain (or empty). */
int tblock_careful_check(struct rr_err *e);

/* Whether tblock_careful's answer was asked for (RIPPLERENDER_SUBNORMALS
 * careful or plain, or tblock_allow_careful), not the probe's. */
int tblock_careful_asked(void);

/* 1: careful drivers; 0: the plain ones; -1: as the probe finds (the
 * default). */
void tblock_allow_careful(int allow);

/* A solver's row kernels, as it hands them to the drivers: it fills the
 * fields up to `name` once at init and leaves `drive` zeroed. */
struct tblock_kernel {
    tblock_row_fn row;             /* the portable kernel */
    tblock_row_fn row_driver;      /* the same by a hand-written driver, or NULL: the AVX-512 one
                                      (tblock_avx512.h) on AVX-512 CPUs, else the AVX2 one
                                      (tblock_avx2.h) where tblock_avx2() */
    tblock_rows3_fn rows3;         /* the same three rows at a time, or NULL (4 neighbours only) */
    tblock_rows3_fn rows3_driver;  /* and by the same driver, or NULL */
    const char *driver;            /* that driver's name, "avx2", "avx512-careful" or "avx2-careful"
                                      (tblock_offer_drivers); NULL: "avx512" */
    int driver_only;               /* 1: the drivers' kernels only, never the portable ones (careful) */
    const void *k;
    const enum edge_kind *edges;   /* the 4 boundary kinds, as field_fill_ghosts takes them */
    int diagonal;                  /* the kernel reads up[-1], up[w], dn[-1], dn[w] (8 neighbours);
                                      0: of the ghost columns only mid's, which the drivers then set
                                      row by row just before the kernel computes the row */
    const char *name;              /* names these kernels in the tuner's cache (tunecache.h), one word;
                                      NULL: their tuners' choices are not remembered */
    struct tblock_drive drive;     /* the drivers' own: what they learn as they run (tblock_internal.h) */
};

/* One step: fills the ghosts of f->cur, runs the row kernels over every row
 * (on src/team.h's threads, a band of rows a thread as the drivers' balancer
 * splits them, each thread setting its own rows' ghosts; on grids the L3
 * cache serves, every other step from the band's last row up, tblock.c says
 * why) writing into f->prev, and swaps. Which of kn's kernels, one row or
 * three at a time, prefetching or not, is the drivers' tuner's choice: the
 * bits are the same. With a screen (NULL: none), the kernels screen the rows
 * they write, as solver.h's struct solver_screen says. Cannot fail. */
void tblock_step(struct field *f, struct tblock_kernel *kn, struct solver_screen *screen);

/* The most steps tblock_advance fuses in one pass for a field of this stride,
 * so that the rows a pass keeps in flight fit a core's L2 cache. */
int tblock_max_steps(const struct field *f);

/* One core's L2 cache in bytes, as tblock_max_steps sizes a pass by: what
 * the C library reads from the CPU, or 512 KiB where it cannot tell. */
long tblock_l2_bytes(void);

/* Advances f by n steps (2 <= n <= tblock_max_steps) in one pass, giving the
 * same bits as n times { tblock_step; zero the wall cells of f->cur }:
 * walls are the field offsets (y * stride + x) of the wall cells in
 * increasing order (NULL when n_walls is 0). Nothing else may happen between
 * the n steps (no sources, no sponges): the caller checks that.
 * Returns n, or 0 (f untouched) when the boundaries do not allow it: a wrap
 * of the top or bottom edge joins the last row to the first. The kernels,
 * one row or three at a time, are the drivers' tuner's choice. The screen
 * (NULL: none) as in tblock_step, on the rows of the last level only;
 * levels (NULL: none) as solver.h's struct solver_levels says: the levels
 * of its mask screened and handed out row band by row band as the
 * wavefront passes them (tblock.c says when). */
int tblock_advance(struct field *f, struct tblock_kernel *kn, int n, const ptrdiff_t *walls, size_t n_walls,
                   struct solver_screen *screen, struct solver_levels *levels);

/* solver_ops.kernel, .step and .advance for a solver that steps by these
 * drivers (elias, flow, wave): TBLOCK_SOLVER(prefix, type, member) defines
 *     prefix_kernel    the struct tblock_kernel `member` of the solver's
 *                      private state `type` (filled once at init)
 *     prefix_step      tblock_step on it
 *     prefix_advance   tblock_advance on it
 * The kernel is named, never found by its place in the state: a `member`
 * of another type is a compile-time error (an incompatible pointer). */
#define TBLOCK_SOLVER(prefix, type, member)                                                                    \
    static struct tblock_kernel *prefix##_kernel(void *priv) { return &((type *)priv)->member; }            \
    static void prefix##_step(void *priv, struct field *f, struct solver_screen *screen)                     \
    {                                                                                                          \
        tblock_step(f, prefix##_kernel(priv), screen);                                                         \
    }                                                                                                          \
    static int prefix##_advance(void *priv, struct field *f, int n, const ptrdiff_t *walls, size_t n_walls,   \
                                struct solver_screen *screen, struct solver_levels *levels)                    \
    {                                                                                                          \
        return tblock_advance(f, prefix##_kernel(priv), n, walls, n_walls, screen, levels);                    \
    }

#endif

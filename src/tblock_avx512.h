/* tblock_avx512.h: an AVX-512 row driver for the 4-neighbour stencils
 * (elias, flow, wave), beside the portable row kernels of tblock.h.
 *
 * Why a hand-written driver: GCC's vectorised row loops load W and E, the
 * row's cells one to the left and one to the right, as two unaligned 64-byte
 * loads, and with 64-byte vectors every such load straddles two cache lines.
 * Where the rows come from L2 (a 512^2 grid on two threads, the fused
 * passes), those split loads set the pace. This driver loads each 16 cells of
 * the row once, aligned, and makes W and E from this vector and its
 * neighbours with `valignd` (a register shuffle): one load of the row a
 * vector instead of three, two of them split.
 *
 * The same bits as the portable kernels: W and E are the same values, the
 * sum is (W + E) + (N + S) in that order (float addition commutes exactly,
 * so flow's (E + W) + (S + N) is the same), and each solver's update after
 * the sum is one body for this driver and the AVX2 one (src/tblock_drivers.h),
 * whose operations are the portable kernels' (-std=c11 keeps GCC from fusing
 * a multiply and an add, for vector arithmetic too) but where a solver
 * fuses one itself, with tblock_fma16, and shows the bits are the same.
 *
 * Memory: reads mid[-1 .. w], up, dn and out [0 .. w) only, as tblock_row_fn
 * promises (masked loads and stores at the row's end), so it runs on any
 * rows the portable kernels run on. The same for three rows at a time
 * (tblock_rows3_fn). */
#ifndef RR_TBLOCK_AVX512_H
#define RR_TBLOCK_AVX512_H

#include "tblock.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <math.h>

#define TBLOCK_HAVE_AVX512_DRIVER 1
#define TBLOCK_AVX512 __attribute__((target("arch=x86-64-v4")))

/* 16 floats, as GCC's vector arithmetic takes them (the same type as __m512). */
typedef float tblock_v16 __attribute__((vector_size(64)));

/* Which of 16 lanes are in the row: a mask register's bits. */
typedef __mmask16 tblock_live16;

/* A solver's update for 16 cells: the new heights from the 4-neighbour sum
 * s, the centre h and the heights one step back p, at cells x .. x + 15 of
 * row y, of which the lanes in `live` are in the row, all 16 when `whole`
 * (a constant; per-cell data: load it with tblock_load16). A solver writes
 * it once for both drivers' widths (TBLOCK_DRIVER_UPDATE, src/tblock_drivers.h). */
typedef tblock_v16 (*tblock_update16_fn)(const void *k, int variant, int y, int x, tblock_live16 live, int whole,
                                         tblock_v16 s, tblock_v16 h, tblock_v16 p);

/* The per-width operations a solver's update may use beyond GCC's vector
 * arithmetic (src/tblock_drivers.h; tblock_avx2.h has the same for 8 lanes):
 * a float in every lane; a * b + c and -(a * b) + c each rounded once
 * (fused: -std=c11 keeps GCC from fusing the vector arithmetic itself). */
TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_set16(float a)
{
    return (tblock_v16)_mm512_set1_ps(a);
}

TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_fma16(tblock_v16 a, tblock_v16 b,
                                                                                    tblock_v16 c)
{
    return (tblock_v16)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
}

TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_fnma16(tblock_v16 a, tblock_v16 b,
                                                                                     tblock_v16 c)
{
    return (tblock_v16)_mm512_fnmadd_ps((__m512)a, (__m512)b, (__m512)c);
}

/* Subnormal floats (|x| < 2^-126) are slow on some CPUs: on Intel's cores a
 * multiply or fused multiply-add with a subnormal operand or result takes a
 * microcode assist, about a hundred cycles for the whole vector, where
 * additions, conversions, vscalefps and vrangeps take none (docs/performance.md,
 * Subnormals). The careful forms below give the same bits as a * b without
 * the assist where a has a subnormal lane: the product of two floats is exact
 * in double (24 + 24 bits of 53, and a double's range holds it), and its
 * conversion back to float rounds it once, to nearest even, subnormals
 * included: the correctly rounded float product, as the multiply gives. */
/* a * b + add, rounded once (add: -0.0 for the product alone, +0.0 for a
 * fused a * b + 0). Out of line and cold: the row loops keep their
 * registers for the common case (AVX2 has 16 of them). */
TBLOCK_AVX512 static __attribute__((noinline, cold)) tblock_v16 tblock_exact_mul16(tblock_v16 a, tblock_v16 b,
                                                                                    double add)
{
    const __m512d lo = _mm512_add_pd(_mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256((__m512)a)),
                                                   _mm512_cvtps_pd(_mm512_castps512_ps256((__m512)b))),
                                     _mm512_set1_pd(add));
    const __m512d hi =
        _mm512_add_pd(_mm512_mul_pd(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd((__m512d)a, 1))),
                                    _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd((__m512d)b, 1)))),
                      _mm512_set1_pd(add));
    return (tblock_v16)_mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

/* a * b, and the fused a * b + 0 (tblock_fma16(a, b, +0)); with `careful`
 * (a constant) the same bits with no assist where a has a subnormal lane
 * (tblock_exact_mul16 there). The test is one vfpclassps a vector; a
 * product of normal floats that underflows still takes its assist, which
 * in a ripple's tail is rare beside the subnormal heights themselves. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) int tblock_subnormal16(tblock_v16 a)
{
    return __builtin_expect(_mm512_fpclass_ps_mask((__m512)a, 0x20) != 0, 0);
}

/* The same, exact where `sub` (a test made once for several products: an
 * update's neighbour sum, whose subnormal lanes mark the vectors of a
 * ripple's faint edge). */
TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_mulif16(int sub, tblock_v16 a,
                                                                                      tblock_v16 b)
{
    return sub ? tblock_exact_mul16(a, b, -0.0) : a * b;
}

TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_mul0if16(int sub, tblock_v16 a,
                                                                                       tblock_v16 b)
{
    return sub ? tblock_exact_mul16(a, b, 0.0)
               : (tblock_v16)_mm512_fmadd_ps((__m512)a, (__m512)b, _mm512_setzero_ps());
}

TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_mulx16(int careful, tblock_v16 a,
                                                                                     tblock_v16 b)
{
    return tblock_mulif16(careful && tblock_subnormal16(a), a, b);
}

TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_mul0x16(int careful, tblock_v16 a,
                                                                                      tblock_v16 b)
{
    return tblock_mul0if16(careful && tblock_subnormal16(a), a, b);
}

TBLOCK_AVX512 static inline __attribute__((always_inline)) __mmask16 tblock_lanes(int n)
{
    return n <= 0 ? (__mmask16)0 : n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
}

/* Lanes 15 of a, then 0 .. 14 of b: cells x - 1 .. x + 14 when a holds
 * x - 16 .. x - 1 and b holds x .. x + 15. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_west(tblock_v16 a, tblock_v16 b)
{
    return (tblock_v16)_mm512_alignr_epi32((__m512i)b, (__m512i)a, 15);
}

/* Lanes 1 .. 15 of b, then 0 of c: cells x + 1 .. x + 16. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_east(tblock_v16 b, tblock_v16 c)
{
    return (tblock_v16)_mm512_alignr_epi32((__m512i)c, (__m512i)b, 1);
}

/* 16 floats from p: `live` lanes (the others 0), or all of them when `whole`. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) tblock_v16 tblock_load16(const float *p, __mmask16 live,
                                                                                     int whole)
{
    return whole ? (tblock_v16)_mm512_loadu_ps(p) : (tblock_v16)_mm512_maskz_loadu_ps(live, p);
}

/* The screen over 16 new heights (tblock.h): the largest magnitude's bits. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) __m512i tblock_keep16(__m512i m, __mmask16 live,
                                                                                 tblock_v16 v)
{
    return _mm512_mask_max_epi32(m, live, m, _mm512_and_si512((__m512i)v, _mm512_set1_epi32(INT32_MAX)));
}

/* The kernels' screen in one vector operation, not the two of tblock_keep16
 * (an AND for the magnitude, an integer max): sq = v * v + sq, one fused
 * multiply-add, from sq = 1. Every term is >= 0, so sq never decreases and
 * ends at or above each v * v (rounding is monotonic); a cell beyond the
 * limit makes its lane's sq > limit^2, and a NaN or an infinity makes it NaN
 * or infinity. So when no lane ends above tblock_sq_bound (just under
 * limit^2) or NaN, no cell is beyond the limit: the rows' answer is 0.
 * Otherwise the answer is read back exactly from the rows just written
 * (tblock_rows_beyond, in L1): a sum can pass the bound with every cell
 * within the limit (cells near it, or many large ones), never the reverse,
 * so the answer is always the exact screen's; only its cost depends on the
 * heights (at the default limit 1e6, a row's sums pass the bound only once
 * its heights are around 1e4 and more, far past any scene's). Starting at 1
 * keeps every result a normal float: tiny heights' squares would underflow
 * to subnormals, a slow case of the multiplier where the result is one. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) __m512 tblock_sq16(__m512 sq, __mmask16 live, tblock_v16 v)
{
    return _mm512_mask3_fmadd_ps((__m512)v, (__m512)v, sq, live);
}

/* The bound sq is held to: limit^2 less a few units in the last place,
 * below any sum a cell beyond the limit makes; 0 (every row read back) for
 * limits whose square would overflow. */
TBLOCK_AVX512 static inline float tblock_sq_bound(float limit)
{
    return limit < 0x1p60f ? limit * limit * (1.0f - 0x1p-20f) : 0.0f;
}

/* Whether a lane of sq is above bound or NaN. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) __mmask16 tblock_sq_over(__m512 sq, float bound)
{
    return _mm512_cmp_ps_mask(sq, _mm512_set1_ps(bound), _CMP_NLE_UQ);
}

/* The screen a kernel of this variant keeps: with TBLOCK_CAREFUL the
 * largest magnitude's bits (tblock_keep16, integer operations: a subnormal
 * v would make tblock_sq16's multiply-add take an assist), else the sum of
 * squares from 1. Its start, its step, and whether it may have found a cell
 * beyond limit (then tblock_rows_beyond answers exactly). */
TBLOCK_AVX512 static inline __attribute__((always_inline)) __m512 tblock_screen_start16(int variant)
{
    return variant & TBLOCK_CAREFUL ? _mm512_setzero_ps() : _mm512_set1_ps(1.0f);
}

TBLOCK_AVX512 static inline __attribute__((always_inline)) __m512 tblock_screen16(int variant, __m512 sq,
                                                                                   __mmask16 live, tblock_v16 v)
{
    return variant & TBLOCK_CAREFUL ? (__m512)tblock_keep16((__m512i)sq, live, v) : tblock_sq16(sq, live, v);
}

TBLOCK_AVX512 static inline __attribute__((always_inline)) __mmask16 tblock_screen_over16(int variant, __m512 sq,
                                                                                          float limit)
{
    return variant & TBLOCK_CAREFUL ? _mm512_cmpgt_epi32_mask((__m512i)sq, _mm512_set1_epi32(tblock_mag(limit)))
                                    : tblock_sq_over(sq, tblock_sq_bound(limit));
}

/* Whether a cell of the n rows out[0 .. n - 1] (w cells each) is beyond
 * limit or NaN: the exact screen, read back from rows just written. */
TBLOCK_AVX512 static inline int tblock_rows_beyond(float *const *out, int n, int w, float limit)
{
    __m512i m = _mm512_setzero_si512();
    for (int i = 0; i < n; i++)
        for (int x = 0; x < w; x += 16) {
            const __mmask16 live = tblock_lanes(w - x);
            m = tblock_keep16(m, live, (tblock_v16)_mm512_maskz_loadu_ps(live, out[i] + x));
        }
    return _mm512_reduce_max_epi32(m) > tblock_mag(limit);
}

/* One row's vector at x (tblock_row16): `live` lanes in the row, `ahead`
 * lanes of the next vector up to the ghost at w, `whole` (a constant) when
 * both are all 16; *before and *here hold cells x - 16 and x on entry and
 * move on by 16; the screen's sum in *sq. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) void
tblock_vec16(const void *k, int y, int x, float *restrict out, const float *restrict up, const float *restrict mid,
             const float *restrict dn, __mmask16 live, __mmask16 ahead, int whole, int variant, int screen,
             tblock_update16_fn update, tblock_v16 *before, tblock_v16 *here, __m512 *sq)
{
    const tblock_v16 next = tblock_load16(mid + x + 16, ahead, whole);
    const tblock_v16 ns = tblock_load16(up + x, live, whole) + tblock_load16(dn + x, live, whole);
    const tblock_v16 s = (tblock_west(*before, *here) + tblock_east(*here, next)) + ns;
    const tblock_v16 v = update(k, variant, y, x, live, whole, s, *here, tblock_load16(out + x, live, whole));
    if (whole)
        _mm512_storeu_ps(out + x, (__m512)v);
    else
        _mm512_mask_storeu_ps(out + x, live, (__m512)v);
    if (screen)
        *sq = tblock_screen16(variant, *sq, live, v);
    *before = *here;
    *here = next;
}

/* The row loop: whole vectors while the next one is whole too (plain loads),
 * two at a time with a screen sum each (each fused multiply-add waits for
 * the one before on its sum), then at most two with masks. `update` and the
 * constants inline. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) int
tblock_row16(const void *k, int y, float *restrict out, const float *restrict up, const float *restrict mid,
             const float *restrict dn, int w, float limit, int variant, int screen, tblock_update16_fn update)
{
    __m512 sq[2] = { tblock_screen_start16(variant), tblock_screen_start16(variant) };
    tblock_v16 before = (tblock_v16)_mm512_set1_ps(mid[-1]);
    tblock_v16 here = (tblock_v16)_mm512_maskz_loadu_ps(tblock_lanes(w + 1), mid);
    int x = 0;
    for (; x + 48 <= w; x += 32) {
        tblock_vec16(k, y, x, out, up, mid, dn, 0xffff, 0xffff, 1, variant, screen, update, &before, &here, &sq[0]);
        tblock_vec16(k, y, x + 16, out, up, mid, dn, 0xffff, 0xffff, 1, variant, screen, update, &before, &here,
                     &sq[1]);
    }
    for (; x + 32 <= w; x += 16)
        tblock_vec16(k, y, x, out, up, mid, dn, 0xffff, 0xffff, 1, variant, screen, update, &before, &here, &sq[0]);
    for (; x < w; x += 16)
        tblock_vec16(k, y, x, out, up, mid, dn, tblock_lanes(w - x), tblock_lanes(w + 1 - (x + 16)), 0, variant,
                     screen, update, &before, &here, &sq[1]);
    if (!screen || !(tblock_screen_over16(variant, sq[0], limit) | tblock_screen_over16(variant, sq[1], limit)))
        return 0;
    float *const rows[1] = { out };
    return tblock_rows_beyond(rows, 1, w, limit);
}

/* 16 cells (x .. x + 15) of three rows for tblock_rows16x3: `live` lanes in
 * the rows, `ahead` lanes of the vectors after them up to the ghost at w;
 * `whole` (a constant) when both are all 16, for plain loads and stores. */
struct tblock_rows16x3 {
    tblock_v16 before[3], here[3];   /* rows r1, r2, r3 at x - 16 and x */
    __m512 sq[3];                     /* the screen: 1 + the sum of the squares, a chain a row */
};


TBLOCK_AVX512 static inline __attribute__((always_inline)) void
tblock_block16x3(struct tblock_rows16x3 *st, const void *k, int y, int x, float *const out[3],
                 const float *const rows[5], __mmask16 live, __mmask16 ahead, int whole, int variant, int screen,
                 tblock_update16_fn update)
{
    tblock_v16 next[3];
    for (int i = 0; i < 3; i++)
        next[i] = tblock_load16(rows[i + 1] + x + 16, ahead, whole);
    const tblock_v16 north = tblock_load16(rows[0] + x, live, whole), south = tblock_load16(rows[4] + x, live, whole);
    for (int i = 0; i < 3; i++) {
        const tblock_v16 n = i == 0 ? north : st->here[i - 1], s = i == 2 ? south : st->here[i + 1];
        const tblock_v16 sum = (tblock_west(st->before[i], st->here[i]) + tblock_east(st->here[i], next[i])) + (n + s);
        const tblock_v16 v =
            update(k, variant, y + i, x, live, whole, sum, st->here[i], tblock_load16(out[i] + x, live, whole));
        if (whole)
            _mm512_storeu_ps(out[i] + x, (__m512)v);
        else
            _mm512_mask_storeu_ps(out[i] + x, live, (__m512)v);
        if (screen)
            st->sq[i] = tblock_screen16(variant, st->sq[i], live, v);
    }
    for (int i = 0; i < 3; i++) {
        st->before[i] = st->here[i];
        st->here[i] = next[i];
    }
}

/* Three rows (tblock_rows3_fn) in one loop, each row's cells as tblock_row16
 * computes them: rows r1, r2, r3 loaded once each (aligned, W and E by
 * `valignd`) and used as the north, centre and south of the new rows: a
 * third of the loads of single rows. */
TBLOCK_AVX512 static inline __attribute__((always_inline)) int
tblock_rows16x3(const void *k, int y, float *restrict o0, float *restrict o1, float *restrict o2,
                const float *restrict r0, const float *restrict r1, const float *restrict r2,
                const float *restrict r3, const float *restrict r4, int w, float limit, int variant, int screen,
                tblock_update16_fn update)
{
    float *const out[3] = { o0, o1, o2 };
    const float *const rows[5] = { r0, r1, r2, r3, r4 };
    struct tblock_rows16x3 st;
    for (int i = 0; i < 3; i++)
        st.sq[i] = tblock_screen_start16(variant);
    for (int i = 0; i < 3; i++) {
        st.before[i] = (tblock_v16)_mm512_set1_ps(rows[i + 1][-1]);
        st.here[i] = (tblock_v16)_mm512_maskz_loadu_ps(tblock_lanes(w + 1), rows[i + 1]);
    }
    int x = 0;
    for (; x + 32 <= w; x += 16)
        tblock_block16x3(&st, k, y, x, out, rows, 0xffff, 0xffff, 1, variant, screen, update);
    for (; x < w; x += 16)
        tblock_block16x3(&st, k, y, x, out, rows, tblock_lanes(w - x), tblock_lanes(w + 1 - (x + 16)), 0, variant,
                         screen, update);
    if (!screen || !(tblock_screen_over16(variant, st.sq[0], limit) | tblock_screen_over16(variant, st.sq[1], limit) |
                     tblock_screen_over16(variant, st.sq[2], limit)))
        return 0;
    return tblock_rows_beyond(out, 3, w, limit);
}

/* Defines `name`, a tblock_rows3_fn for AVX-512 CPUs only, from a
 * solver's update for 16 cells (TBLOCK_DRIVERS in src/tblock_drivers.h
 * builds it with its kin). */
#define TBLOCK_ROWS3_KERNEL_AVX512(name, update, variant)                                                  \
    TBLOCK_AVX512 static int name(const void *k, int y, float *restrict o0, float *restrict o1,            \
                                  float *restrict o2, const float *restrict r0, const float *restrict r1,  \
                                  const float *restrict r2, const float *restrict r3,                      \
                                  const float *restrict r4, int w, float limit)                            \
    {                                                                                                      \
        return limit > 0 ? tblock_rows16x3(k, y, o0, o1, o2, r0, r1, r2, r3, r4, w, limit, variant, 1, update) \
                         : tblock_rows16x3(k, y, o0, o1, o2, r0, r1, r2, r3, r4, w, limit, variant, 0, update); \
    }

/* Defines `name`, a tblock_row_fn for AVX-512 CPUs only, from a solver's
 * update for 16 cells (likewise). */
#define TBLOCK_ROW_KERNEL_AVX512(name, update, variant)                                                   \
    TBLOCK_AVX512 static int name(const void *k, int y, float *restrict out, const float *restrict up,    \
                                  const float *restrict mid, const float *restrict dn, int w, float limit) \
    {                                                                                                     \
        return limit > 0 ? tblock_row16(k, y, out, up, mid, dn, w, limit, variant, 1, update)             \
                         : tblock_row16(k, y, out, up, mid, dn, w, limit, variant, 0, update);            \
    }

#endif

#endif

/* tblock_avx2.h: an AVX2 row driver for the 4-neighbour stencils (elias,
 * flow, wave), for CPUs with AVX2 and FMA (x86-64-v3) but not AVX-512: the
 * counterpart of tblock_avx512.h, which such a CPU cannot run.
 *
 * W and E are loaded, not shuffled: AVX2 has no shift across the two
 * 128-bit halves of a vector (AVX-512's `valignd`), so making them from the
 * row's aligned vectors takes three shuffles a vector (`vperm2f128` for the
 * halves either side of a vector boundary, then `vpalignr` within each half
 * for W and for E), and the kernels, bound by their vector operations where
 * rows are in cache, ran slower so at one and four steps a pass than with
 * two overlapping unaligned loads (docs/performance.md, What limits each
 * case). What the driver does beyond GCC's vectorised loop (the portable
 * kernels' AVX2 build): the blow-up screen as an AND and an integer max a
 * vector (vpmaxsd), the three-row loop with each centre row loaded once for
 * the three new rows it feeds, elias's damping fused where that is exact
 * (x86-64-v3 has FMA: elias.c), and one masked vector for the row's end
 * instead of a scalar tail.
 *
 * The same bits as the portable kernels, as tblock_avx512.h argues: W and E
 * are the same values, the sum is (W + E) + (N + S) in that order, and each
 * solver's update after the sum is the solver's one body, written once for
 * both drivers' widths (src/tblock_drivers.h). Memory: reads
 * mid[-1 .. w], up, dn and out [0 .. w) only (masked loads and stores at the
 * row's end), as tblock_row_fn promises, and the same for three rows.
 *
 * Offered in the drivers' slot of struct tblock_kernel (row_driver,
 * rows3_driver) by tblock_offer_drivers (src/tblock_drivers.h) when
 * tblock_avx2() says so: on an AVX-512 CPU that slot holds the AVX-512
 * driver and this one is not used.
 * RIPPLERENDER_DEBUG=kernels names it "avx2". */
#ifndef RR_TBLOCK_AVX2_H
#define RR_TBLOCK_AVX2_H

#include "tblock.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <math.h>

#define TBLOCK_HAVE_AVX2_DRIVER 1
#define TBLOCK_AVX2 __attribute__((target("arch=x86-64-v3")))
#define TBLOCK_AVX2_INLINE TBLOCK_AVX2 static inline __attribute__((always_inline))

/* 8 floats, as GCC's vector arithmetic takes them (the same type as __m256). */
typedef float tblock_v8 __attribute__((vector_size(32)));

/* Which of 8 lanes are in the row: all ones in those lanes (AVX2 has no
 * mask registers). */
typedef __m256i tblock_live8;

/* A solver's update for 8 cells: the new heights from the 4-neighbour sum
 * s, the centre h and the heights one step back p, at cells x .. x + 7 of
 * row y, of which the lanes all ones in `live` are in the row, all of them
 * when `whole` (a constant; per-cell data: load it with tblock_load8). The
 * same update as the AVX-512 driver's (TBLOCK_DRIVER_UPDATE,
 * src/tblock_drivers.h). */
typedef tblock_v8 (*tblock_update8_fn)(const void *k, int variant, int y, int x, tblock_live8 live, int whole,
                                       tblock_v8 s, tblock_v8 h, tblock_v8 p);

/* tblock_avx512.h's per-width operations for 8 lanes: a float in every
 * lane, a * b + c and -(a * b) + c each rounded once (x86-64-v3 has FMA). */
TBLOCK_AVX2_INLINE tblock_v8 tblock_set8(float a)
{
    return (tblock_v8)_mm256_set1_ps(a);
}

TBLOCK_AVX2_INLINE tblock_v8 tblock_fma8(tblock_v8 a, tblock_v8 b, tblock_v8 c)
{
    return (tblock_v8)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
}

TBLOCK_AVX2_INLINE tblock_v8 tblock_fnma8(tblock_v8 a, tblock_v8 b, tblock_v8 c)
{
    return (tblock_v8)_mm256_fnmadd_ps((__m256)a, (__m256)b, (__m256)c);
}

/* Lanes 0 .. n - 1 all ones, the others zero (n clamped to 0 .. 8). */
TBLOCK_AVX2_INLINE __m256i tblock_lanes8(int n)
{
    static const int32_t ones_then_zeros[16] = { -1, -1, -1, -1, -1, -1, -1, -1 };
    n = n < 0 ? 0 : n > 8 ? 8 : n;
    return _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - n));
}

/* tblock_avx512.h's careful operations for 8 lanes. */
TBLOCK_AVX2 static __attribute__((noinline, cold)) tblock_v8 tblock_exact_mul8(tblock_v8 a, tblock_v8 b, double add)
{
    const __m256d lo = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128((__m256)a)),
                                                   _mm256_cvtps_pd(_mm256_castps256_ps128((__m256)b))),
                                     _mm256_set1_pd(add));
    const __m256d hi = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps((__m256)a, 1)),
                                                   _mm256_cvtps_pd(_mm256_extractf128_ps((__m256)b, 1))),
                                     _mm256_set1_pd(add));
    return (tblock_v8)_mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
}

TBLOCK_AVX2_INLINE int tblock_subnormal8(tblock_v8 a)
{
    /* The bits shifted left by one (no sign) are 2 .. 2^24 - 2 for a
     * subnormal: adding 2^31 - 2^24 puts exactly those above 2^31 - 2^24,
     * zeros on it and every normal float, infinity and NaN past 2^31
     * (negative). */
    const __m256i t = _mm256_add_epi32(_mm256_slli_epi32((__m256i)a, 1), _mm256_set1_epi32(0x7f000000));
    return __builtin_expect(!_mm256_testz_si256(_mm256_cmpgt_epi32(t, _mm256_set1_epi32(0x7f000000)),
                                                _mm256_set1_epi32(-1)),
                            0);
}

TBLOCK_AVX2_INLINE tblock_v8 tblock_mulif8(int sub, tblock_v8 a, tblock_v8 b)
{
    return sub ? tblock_exact_mul8(a, b, -0.0) : a * b;
}

TBLOCK_AVX2_INLINE tblock_v8 tblock_mul0if8(int sub, tblock_v8 a, tblock_v8 b)
{
    return sub ? tblock_exact_mul8(a, b, 0.0) : (tblock_v8)_mm256_fmadd_ps((__m256)a, (__m256)b, _mm256_setzero_ps());
}

TBLOCK_AVX2_INLINE tblock_v8 tblock_mulx8(int careful, tblock_v8 a, tblock_v8 b)
{
    return tblock_mulif8(careful && tblock_subnormal8(a), a, b);
}

TBLOCK_AVX2_INLINE tblock_v8 tblock_mul0x8(int careful, tblock_v8 a, tblock_v8 b)
{
    return tblock_mul0if8(careful && tblock_subnormal8(a), a, b);
}

/* The screen over 8 new heights (tblock.h): the largest magnitude's bits,
 * over the lanes in `live`. */
TBLOCK_AVX2_INLINE __m256i tblock_keep8(__m256i m, __m256i live, tblock_v8 v)
{
    return _mm256_max_epi32(m, _mm256_and_si256(_mm256_and_si256((__m256i)v, live), _mm256_set1_epi32(INT32_MAX)));
}

/* Whether the screen m found a magnitude beyond limit's. */
TBLOCK_AVX2_INLINE int tblock_beyond8(__m256i m, float limit)
{
    __m128i h = _mm_max_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    h = _mm_max_epi32(h, _mm_shuffle_epi32(h, 0x4e));
    h = _mm_max_epi32(h, _mm_shuffle_epi32(h, 0xb1));
    return _mm_cvtsi128_si32(h) > tblock_mag(limit);
}

/* 8 floats from p: all of them when `whole` (a constant), else the lanes in
 * live, the others 0 (a masked load reads nothing outside them). */
TBLOCK_AVX2_INLINE tblock_v8 tblock_load8(const float *p, __m256i live, int whole)
{
    return whole ? (tblock_v8)_mm256_loadu_ps(p) : (tblock_v8)_mm256_maskload_ps(p, live);
}

/* 8 cells x .. x + 7 of `rows` new rows (1 or 3: out[i], row y + i) from
 * the current level's rows r[0 .. rows + 1], of which `live` lanes are in
 * the rows; `whole` (a constant) when all 8 are, for plain loads and
 * stores. Each centre row's cells are loaded once, as the centre of its own
 * new row and the north or south of its neighbours'. */
TBLOCK_AVX2_INLINE __m256i tblock_block8(__m256i m, const void *k, int y, int x, int rows, float *const *out,
                                         const float *const *r, __m256i live, int whole, int variant, int screen,
                                         tblock_update8_fn update)
{
    tblock_v8 c[5];
    for (int i = 0; i < rows + 2; i++)
        c[i] = tblock_load8(r[i] + x, live, whole);
    for (int i = 0; i < rows; i++) {
        const float *mid = r[i + 1] + x;
        const tblock_v8 west = tblock_load8(mid - 1, live, whole), east = tblock_load8(mid + 1, live, whole);
        const tblock_v8 p = tblock_load8(out[i] + x, live, whole);
        const tblock_v8 v = update(k, variant, y + i, x, live, whole, (west + east) + (c[i] + c[i + 2]), c[i + 1], p);
        if (whole)
            _mm256_storeu_ps(out[i] + x, (__m256)v);
        else
            _mm256_maskstore_ps(out[i] + x, live, (__m256)v);
        if (screen)
            m = tblock_keep8(m, live, v);
    }
    return m;
}

/* The loop over a row: whole vectors, then at most one with masks.
 * `rows`, `update` and the constants inline. */
TBLOCK_AVX2_INLINE int tblock_rows8(const void *k, int y, int rows, float *const *out, const float *const *r, int w,
                                    float limit, int variant, int screen, tblock_update8_fn update)
{
    const __m256i all = _mm256_set1_epi32(-1);
    __m256i m = _mm256_setzero_si256();
    int x = 0;
    for (; x + 8 <= w; x += 8)
        m = tblock_block8(m, k, y, x, rows, out, r, all, 1, variant, screen, update);
    if (x < w)
        m = tblock_block8(m, k, y, x, rows, out, r, tblock_lanes8(w - x), 0, variant, screen, update);
    return screen && tblock_beyond8(m, limit);
}

/* Defines `name`, a tblock_row_fn for AVX2 CPUs, from a solver's update for
 * 8 cells (TBLOCK_DRIVERS in src/tblock_drivers.h builds it with its kin). */
#define TBLOCK_ROW_KERNEL_AVX2(name, update, variant)                                                      \
    TBLOCK_AVX2 static int name(const void *k, int y, float *restrict out, const float *restrict up,       \
                                const float *restrict mid, const float *restrict dn, int w, float limit)   \
    {                                                                                                      \
        float *const o[1] = { out };                                                                       \
        const float *const r[3] = { up, mid, dn };                                                         \
        return limit > 0 ? tblock_rows8(k, y, 1, o, r, w, limit, variant, 1, update)                       \
                         : tblock_rows8(k, y, 1, o, r, w, limit, variant, 0, update);                      \
    }

/* Defines `name`, a tblock_rows3_fn for AVX2 CPUs: each of the rows r0 ..
 * r4 loaded once a vector as the north, centre and south of the new rows
 * (plus W and E of r1 .. r3). */
#define TBLOCK_ROWS3_KERNEL_AVX2(name, update, variant)                                                    \
    TBLOCK_AVX2 static int name(const void *k, int y, float *restrict o0, float *restrict o1,              \
                                float *restrict o2, const float *restrict r0, const float *restrict r1,    \
                                const float *restrict r2, const float *restrict r3,                        \
                                const float *restrict r4, int w, float limit)                              \
    {                                                                                                      \
        float *const o[3] = { o0, o1, o2 };                                                                \
        const float *const r[5] = { r0, r1, r2, r3, r4 };                                                  \
        return limit > 0 ? tblock_rows8(k, y, 3, o, r, w, limit, variant, 1, update)                       \
                         : tblock_rows8(k, y, 3, o, r, w, limit, variant, 0, update);                      \
    }

#endif

#endif

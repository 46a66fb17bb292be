/* render/shaded.c: render.mode "shaded": the lit surface, Fresnel-weighted
 * sky over water colour plus a Blinn-Phong highlight. See render/modes.h and
 * docs/render.md. */
#include "render/modes.h"
#include "team.h"

#include <math.h>
#include <string.h>

static inline __attribute__((always_inline)) uint8_t to_byte(float v)
{
    return (uint8_t)unit_round(v, 255.0f);
}

/* ---- powf(x, y), vectorisable, with glibc's bits --------------------------
 * The highlight's powf(n.h, shininess) is per pixel, and a libm call would
 * keep the loop scalar. pow_fast
 * is the algorithm of glibc's powf (sysdeps/ieee754/flt-32/e_powf.c, from
 * ARM's optimized-routines): log2(x) from a 16-entry table and a degree-5
 * polynomial in double, times y, then 2^(y log2 x) from a 32-entry table
 * and a cubic, rounded once to float; the same tables and the same
 * operations in the same order, each multiply-add fused where glibc's FMA
 * build (__powf_fma, picked on every CPU with FMA) fuses it (read off its
 * disassembly, glibc 2.36). So it returns powf's very bits; it is checked
 * against libm's powf over every float in [0, 1] for several exponents
 * (test_powf_bits in tests/unit/test_render_fast.c). It covers x a
 * positive normal float and |y log2 x| < 126; *bad is set for other
 * inputs, which the caller hands to powf itself. Used only when the CPU has FMA (else libm's powf, whose
 * bits are then those of its non-FMA build). */
/* 1/c and log2(c) for the 16 subintervals of [0x1.66p-1, 0x1.66p+0) (gathered by index: two arrays). */
static const double pow_log2_invc[16] = {
    0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010b0p+0, 0x1.3c995b0b80385p+0,
    0x1.30d190c8864a5p+0, 0x1.25e227b0b8ea0p+0, 0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0,
    0x1.0953f419900a7p+0, 0x1p+0, 0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aa0p-1, 0x1.b2036576afce6p-1,
    0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1, 0x1.767dcf5534862p-1,
};
static const double pow_log2_logc[16] = {
    -0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2,
    -0x1.01d9bf3f2b631p-2, -0x1.97c1d1b3b7af0p-3, -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4,
    -0x1.a6f9db6475fcep-5, 0x0p+0, 0x1.338ca9f24f53dp-4, 0x1.476a9543891bap-3, 0x1.e840b4ac4e4d2p-3,
    0x1.40645f0c6651cp-2, 0x1.88e9c2c1b9ff8p-2, 0x1.ce0a44eb17bccp-2,
};
static const double pow_log2_poly[5] = {
    0x1.27616c9496e0bp-2, -0x1.71969a075c67ap-2, 0x1.ec70a6ca7baddp-2, -0x1.7154748bef6c8p-1,
    0x1.71547652ab82bp+0,
};
/* 2^(i/32) with i/32 taken out of the exponent field. */
static const uint64_t pow_exp2_tab[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51, 0x3fef72b83c7d517b,
    0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1, 0x3fef06fe0a31b715, 0x3feef1a7373aa9cb,
    0x3feedea64c123422, 0x3feece086061892d, 0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429,
    0x3feea47eb03a5585, 0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d, 0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069, 0x3fef5818dcfba487, 0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};
static const double pow_exp2_poly[3] = { 0x1.c6af84b912394p-5, 0x1.ebfce50fac4f3p-3, 0x1.62e42ff0c52d6p-1 };

static inline __attribute__((always_inline)) float float_b(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline __attribute__((always_inline)) uint64_t bits_d(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline __attribute__((always_inline)) double double_b(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* y: powf's float exponent as a double (exact). Returns 0 in *bad when the
 * result is powf(x, y)'s, 1 when powf must be asked. */
static inline __attribute__((always_inline)) float pow_fast(float x, double y, int *bad)
{
    const double *A = pow_log2_poly, *C = pow_exp2_poly;
    uint32_t ix = bits_f(x);
    /* log2(x) = log2(z / c) + log2(c) + k, z / c near 1 */
    uint32_t tmp = ix - 0x3f330000u;
    int i = (int)((tmp >> 19) & 15u);
    uint32_t top = tmp & 0xff800000u;
    int32_t k = (int32_t)top >> 23;
    double z = (double)float_b(ix - top);
    double r = __builtin_fma(z, pow_log2_invc[i], -1.0);
    double y0 = (double)k + pow_log2_logc[i];
    double r2 = r * r;
    double p1 = __builtin_fma(r, A[0], A[1]);
    double p2 = __builtin_fma(r, A[2], A[3]);
    double r4 = r2 * r2;
    double q = __builtin_fma(r, A[4], y0);
    q = __builtin_fma(r2, p2, q);
    double ylogx = y * __builtin_fma(p1, r4, q);
    /* 2^ylogx = 2^(k/32) * 2^s, s in [-1/64, 1/64] */
    const double shift = 0x1.8p+47;
    double kd = ylogx + shift;
    uint64_t ki = bits_d(kd);
    kd -= shift;
    double s = ylogx - kd;
    double scale = double_b(pow_exp2_tab[ki & 31] + (ki << 47));
    double e1 = __builtin_fma(s, C[0], C[1]);
    double s2 = s * s;
    double e2 = __builtin_fma(s, C[2], 1.0);
    e2 = __builtin_fma(e1, s2, e2);
    *bad = (ix - 0x00800000u >= 0x7f000000u) | ((bits_d(ylogx) >> 47 & 0xffff) >= 0x80bf);
    return (float)(e2 * scale);
}

/* glibc's powf takes other paths for a zero, infinite or NaN exponent. */
static inline __attribute__((always_inline)) bool pow_fast_exponent(float y)
{
    return 2u * bits_f(y) - 1u < 2u * 0x7f800000u - 1u;
}

/* out[i] = powf(x[i], y) for n values, chunk by chunk: pow_fast, then powf
 * for the lanes it leaves. */
static inline __attribute__((always_inline)) void pow_row(const float *restrict x, float y, int n,
                                                          float *restrict out)
{
    const double yd = (double)y;
    int bad[256];
    for (int x0 = 0; x0 < n; x0 += 256) {
        const int m = n - x0 < 256 ? n - x0 : 256;
        int any = 0;
        for (int i = 0; i < m; i++) {
            out[x0 + i] = pow_fast(x[x0 + i], yd, &bad[i]);
            any |= bad[i];
        }
        for (int i = 0; any && i < m; i++)
            if (bad[i])
                out[x0 + i] = powf(x[x0 + i], y);
    }
}

__attribute__((target("arch=x86-64-v3,tune=haswell"))) static void
water_powf_v3(const float *x, float y, int n, float *out)
{
    pow_row(x, y, n, out);
}

void water_powf(const float *x, float y, int n, float *out)
{
    if (RR_CPU_HAS(3, "avx2") && RR_CPU_HAS(3, "fma") && pow_fast_exponent(y)) {
        water_powf_v3(x, y, n, out);
        return;
    }
    for (int i = 0; i < n; i++)
        out[i] = powf(x[i], y);
}

/* n pixels of rgb24 all of colour px. */
static void fill_rgb(uint8_t *restrict out, const uint8_t px[3], int n)
{
    uint8_t pat[3 * 16];
    for (int i = 0; i < 16; i++)
        memcpy(pat + 3 * i, px, 3);
    int x = 0;
    for (; x + 16 <= n; x += 16)
        memcpy(out + 3 * x, pat, sizeof pat);
    memcpy(out + 3 * x, pat, 3 * (size_t)(n - x));
}

/* Per cell: the unit normal n = (-gx, -gy, 1) / |.|, viewer straight above
 * (v = (0, 0, 1)). Colour = (1 - F) * water * (ambient + diffuse) + F * sky
 * + specular * (n.h)^shininess, with F Schlick's Fresnel reflectance
 * F0 + (1 - F0)(1 - n.v)^5, F0 = render.reflectivity (0.02 for water, index
 * 1.333; seen from straight above real water reflects little, so larger
 * values give a stylised, more mirror-like surface). The sky is brighter
 * toward the horizon, seen in the reflected ray r = 2(n.v)n - v.
 *
 * n pixels from their slopes ax, ay, in passes with no calls, so that the
 * compiler vectorises them: the colour without the highlight and n.h, n.h's
 * power (pow_fast), powf itself for the few pixels pow_fast leaves, then
 * the bytes. fast: pow_fast may be used (the CPU has FMA; the exponent is
 * finite and nonzero). The operations and their order are those of one
 * plain pass per pixel (the frames are unchanged). */
static inline __attribute__((always_inline)) void shade_chunk(const struct water_look *lk, const float *restrict ax,
                                                              const float *restrict ay, int n,
                                                              uint8_t *restrict out, uint16_t *restrict out16,
                                                              bool fast)
{
    const float F0 = lk->f0, ambient = 0.35f, spec_k = lk->specular, shin = lk->shininess;
    const float l0 = lk->light[0], l1 = lk->light[1], l2 = lk->light[2];
    const float h0 = lk->half[0], h1 = lk->half[1], h2 = lk->half[2];
    const float w0 = lk->water[0], w1 = lk->water[1], w2 = lk->water[2];
    const float s0 = lk->sky[0], s1 = lk->sky[1], s2 = lk->sky[2];
    float c0[SHADE_CHUNK], c1[SHADE_CHUNK], c2[SHADE_CHUNK], ndh[SHADE_CHUNK], pw[SHADE_CHUNK];
    for (int x = 0; x < n; x++) {
        float inv = 1.0f / sqrtf(ax[x] * ax[x] + ay[x] * ay[x] + 1.0f);
        float n0 = -ax[x] * inv, n1 = -ay[x] * inv, n2 = inv;
        float dl = n0 * l0 + n1 * l1 + n2 * l2;
        float dh = n0 * h0 + n1 * h1 + n2 * h2;
        float ndl = dl >= 0.0f ? dl : 0.0f;   /* fmaxf(0, dl), NaN giving 0 */
        ndh[x] = dh >= 0.0f ? dh : 0.0f;
        float c = 1.0f - n2, cc = c * c;
        float fr = F0 + (1.0f - F0) * cc * cc * c;
        float rz = 2.0f * n2 * n2 - 1.0f;                                   /* reflected ray's height */
        float horizon = 1.0f + 0.6f * (1.0f - (rz >= 0.0f ? rz : 0.0f));   /* brighter low sky */
        float body = ambient + (1.0f - ambient) * ndl;
        c0[x] = (1.0f - fr) * w0 * body + fr * s0 * horizon;
        c1[x] = (1.0f - fr) * w1 * body + fr * s1 * horizon;
        c2[x] = (1.0f - fr) * w2 * body + fr * s2 * horizon;
    }
    if (fast) {
        pow_row(ndh, shin, n, pw);
    } else {
        for (int x = 0; x < n; x++)
            pw[x] = powf(ndh[x], shin);
    }
    for (int x = 0; x < n; x++) {
        float spec = spec_k * pw[x];
        out[3 * x] = to_byte(c0[x] + spec);
        out[3 * x + 1] = to_byte(c1[x] + spec);
        out[3 * x + 2] = to_byte(c2[x] + spec);
    }
    if (out16) {
        for (int x = 0; x < n; x++) {
            float spec = spec_k * pw[x];
            out16[3 * x] = unit_u16(c0[x] + spec);
            out16[3 * x + 1] = unit_u16(c1[x] + spec);
            out16[3 * x + 2] = unit_u16(c2[x] + spec);
        }
    }
}

/* A row, chunk by chunk: the slopes, then the colours; a chunk of still
 * water (every slope +0, common where the ripples have not yet arrived)
 * takes the colour of a still pixel, computed first by the same code. */
static inline __attribute__((always_inline)) void shade_body(const struct water_look *lk,
                                                             const struct row_nbhd *rn, int w, uint8_t *rgb,
                                                             uint16_t *rgb16, bool fast)
{
    fast = fast && pow_fast_exponent(lk->shininess);
    const float k = 0.5f * lk->hs;
    float ax[SHADE_CHUNK] = { 0 }, ay[SHADE_CHUNK] = { 0 };
    uint8_t still[3];
    uint16_t still16[3];
    shade_chunk(lk, ax, ay, 1, still, still16, fast);
    for (int x0 = 0; x0 < w; x0 += SHADE_CHUNK) {
        const int n = w - x0 < SHADE_CHUNK ? w - x0 : SHADE_CHUNK;
        uint16_t *out16 = rgb16 ? rgb16 + 3 * (size_t)x0 : NULL;
        if (chunk_slopes(rn, x0, n, w, k, ax, ay)) {
            shade_chunk(lk, ax, ay, n, rgb + 3 * (size_t)x0, out16, fast);
        } else {
            fill_rgb(rgb + 3 * (size_t)x0, still, n);
            for (int x = 0; out16 && x < n; x++)
                memcpy(out16 + 3 * x, still16, sizeof still16);
        }
    }
}

/* tune=haswell: GCC's generic tuning does not gather, which the tables need. */
__attribute__((target("arch=x86-64-v3,tune=haswell"))) static void
shade_row_v3(const struct water_look *lk, const struct row_nbhd *rn, int w, uint8_t *rgb, uint16_t *rgb16)
{
    shade_body(lk, rn, w, rgb, rgb16, true);
}

static void shade_row_base(const struct water_look *lk, const struct row_nbhd *rn, int w, uint8_t *rgb,
                           uint16_t *rgb16)
{
    shade_body(lk, rn, w, rgb, rgb16, false);
}

void shade_row(const struct water_look *lk, const struct row_nbhd *rn, int w, uint8_t *rgb, uint16_t *rgb16)
{
    if (RR_CPU_HAS(3, "avx2") && RR_CPU_HAS(3, "fma"))
        shade_row_v3(lk, rn, w, rgb, rgb16);
    else
        shade_row_base(lk, rn, w, rgb, rgb16);
}

static void shaded_row(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                       uint8_t *restrict rgb, uint16_t *restrict g16, uint16_t *restrict rgb16)
{
    (void)h;
    (void)g16;
    struct row_nbhd rn;
    water_nbhd(r, f, y, &rn);
    shade_row(&r->look, &rn, r->gw, rgb, rgb16);
}

const struct render_mode_ops render_shaded_ops = {
    .name = "shaded",
    .keys = (const char *const[]){ "height_scale", "light", "water_color", "sky_color",
                                   "specular", "shininess", "reflectivity", NULL },
    .init = water_init_rows,
    .row = shaded_row,
    .free = water_free,
};

/* md5lanes.c: MD5 (RFC 1321) of up to MD5_LANES messages side by side (see
 * md5lanes.h), written with GCC's vector extensions: a vector of 16 32-bit
 * lanes holds one state word of every message. GCC builds it for
 * x86-64-v4 (AVX-512: the rounds' functions one vpternlogd, the rotations
 * one vprold), x86-64-v3 (two AVX2 halves) and the baseline, and runs the
 * build the CPU has; every build computes the same words. */
#include "md5lanes.h"
#include "isa.h"

#include <string.h>

typedef uint32_t v16 __attribute__((vector_size(4 * MD5_LANES)));

/* The sines' table, K[i] = floor(2^32 |sin(i + 1)|), RFC 1321 section 3.4. */
static const uint32_t K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

/* The four rounds' functions (RFC 1321 section 3.4), each one vpternlogd on AVX-512. */
#define F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define G(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))
#define ROL(x, s) ((((x) << (s)) | ((x) >> (32 - (s)))))
/* Step i: a = b + ((a + fn(b, c, d) + X[g] + K[i]) <<< s). The message word
 * and the constant are added first, off the chain through b. */
#define STEP(fn, a, b, c, d, g, i, s)            \
    do {                                         \
        a += x[g] + K[i];                        \
        a += fn(b, c, d);                        \
        a = ROL(a, s) + b;                       \
    } while (0)

/* Transposing 16 rows of 16 words: stage h swaps, between rows r and r + h
 * (r & h == 0), the words whose index has bit h set in row r with those
 * whose index has it clear in row r + h; after the stages h = 8, 4, 2, 1,
 * row g holds word g of every input row. Masks for __builtin_shuffle (0-15
 * the first row, 16-31 the second). */
#define LO1(h, e) ((e) & (h) ? 16 + ((e) ^ (h)) : (e))
#define HI1(h, e) ((e) & (h) ? 16 + (e) : ((e) ^ (h)))
#define MASK(M, h)                                                                                           \
    { M(h, 0), M(h, 1), M(h, 2), M(h, 3), M(h, 4), M(h, 5), M(h, 6), M(h, 7), M(h, 8), M(h, 9), M(h, 10),   \
      M(h, 11), M(h, 12), M(h, 13), M(h, 14), M(h, 15) }
#define SWAP_STAGE(h)                                                         \
    do {                                                                      \
        const v16 lo = MASK(LO1, h), hi = MASK(HI1, h);                       \
        _Pragma("GCC unroll 16") for (int r = 0; r < 16; r++)                 \
            if (!(r & (h))) {                                                 \
                const v16 u = x[r], w = x[r + (h)];                           \
                x[r] = __builtin_shuffle(u, w, lo);                           \
                x[r + (h)] = __builtin_shuffle(u, w, hi);                     \
            }                                                                 \
    } while (0)

/* The 64-byte blocks at p[k], p[k] + 64, ... (nblocks of them) into state
 * lanes k. */
RR_CLONES_V4_V3 __attribute__((optimize("no-tree-reassoc"))) static void
md5_blocks(v16 st[4], const uint8_t *const p[MD5_LANES], size_t nblocks)
{
    v16 a = st[0], b = st[1], c = st[2], d = st[3];
    for (size_t n = 0; n < nblocks; n++) {
        v16 x[16];
#pragma GCC unroll 16
        for (int k = 0; k < 16; k++) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            memcpy(&x[k], p[k] + 64 * n, 64);
#else
            for (int j = 0; j < 16; j++) {
                const uint8_t *q = p[k] + 64 * n + 4 * j;
                x[k][j] = q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
            }
#endif
        }
        SWAP_STAGE(8);
        SWAP_STAGE(4);
        SWAP_STAGE(2);
        SWAP_STAGE(1);
        const v16 a0 = a, b0 = b, c0 = c, d0 = d;
        STEP(F, a, b, c, d, 0, 0, 7);    STEP(F, d, a, b, c, 1, 1, 12);
        STEP(F, c, d, a, b, 2, 2, 17);   STEP(F, b, c, d, a, 3, 3, 22);
        STEP(F, a, b, c, d, 4, 4, 7);    STEP(F, d, a, b, c, 5, 5, 12);
        STEP(F, c, d, a, b, 6, 6, 17);   STEP(F, b, c, d, a, 7, 7, 22);
        STEP(F, a, b, c, d, 8, 8, 7);    STEP(F, d, a, b, c, 9, 9, 12);
        STEP(F, c, d, a, b, 10, 10, 17); STEP(F, b, c, d, a, 11, 11, 22);
        STEP(F, a, b, c, d, 12, 12, 7);  STEP(F, d, a, b, c, 13, 13, 12);
        STEP(F, c, d, a, b, 14, 14, 17); STEP(F, b, c, d, a, 15, 15, 22);

        STEP(G, a, b, c, d, 1, 16, 5);   STEP(G, d, a, b, c, 6, 17, 9);
        STEP(G, c, d, a, b, 11, 18, 14); STEP(G, b, c, d, a, 0, 19, 20);
        STEP(G, a, b, c, d, 5, 20, 5);   STEP(G, d, a, b, c, 10, 21, 9);
        STEP(G, c, d, a, b, 15, 22, 14); STEP(G, b, c, d, a, 4, 23, 20);
        STEP(G, a, b, c, d, 9, 24, 5);   STEP(G, d, a, b, c, 14, 25, 9);
        STEP(G, c, d, a, b, 3, 26, 14);  STEP(G, b, c, d, a, 8, 27, 20);
        STEP(G, a, b, c, d, 13, 28, 5);  STEP(G, d, a, b, c, 2, 29, 9);
        STEP(G, c, d, a, b, 7, 30, 14);  STEP(G, b, c, d, a, 12, 31, 20);

        STEP(H, a, b, c, d, 5, 32, 4);   STEP(H, d, a, b, c, 8, 33, 11);
        STEP(H, c, d, a, b, 11, 34, 16); STEP(H, b, c, d, a, 14, 35, 23);
        STEP(H, a, b, c, d, 1, 36, 4);   STEP(H, d, a, b, c, 4, 37, 11);
        STEP(H, c, d, a, b, 7, 38, 16);  STEP(H, b, c, d, a, 10, 39, 23);
        STEP(H, a, b, c, d, 13, 40, 4);  STEP(H, d, a, b, c, 0, 41, 11);
        STEP(H, c, d, a, b, 3, 42, 16);  STEP(H, b, c, d, a, 6, 43, 23);
        STEP(H, a, b, c, d, 9, 44, 4);   STEP(H, d, a, b, c, 12, 45, 11);
        STEP(H, c, d, a, b, 15, 46, 16); STEP(H, b, c, d, a, 2, 47, 23);

        STEP(I, a, b, c, d, 0, 48, 6);   STEP(I, d, a, b, c, 7, 49, 10);
        STEP(I, c, d, a, b, 14, 50, 15); STEP(I, b, c, d, a, 5, 51, 21);
        STEP(I, a, b, c, d, 12, 52, 6);  STEP(I, d, a, b, c, 3, 53, 10);
        STEP(I, c, d, a, b, 10, 54, 15); STEP(I, b, c, d, a, 1, 55, 21);
        STEP(I, a, b, c, d, 8, 56, 6);   STEP(I, d, a, b, c, 15, 57, 10);
        STEP(I, c, d, a, b, 6, 58, 15);  STEP(I, b, c, d, a, 13, 59, 21);
        STEP(I, a, b, c, d, 4, 60, 6);   STEP(I, d, a, b, c, 11, 61, 10);
        STEP(I, c, d, a, b, 2, 62, 15);  STEP(I, b, c, d, a, 9, 63, 21);
        a += a0;
        b += b0;
        c += c0;
        d += d0;
    }
    st[0] = a;
    st[1] = b;
    st[2] = c;
    st[3] = d;
}

void md5_lanes(const uint8_t *const *msg, int n, size_t len, uint8_t (*digest)[16])
{
    if (n <= 0)
        return;
    n = n > MD5_LANES ? MD5_LANES : n;
    /* Lanes past n repeat message 0: their digests are dropped. */
    const uint8_t *p[MD5_LANES];
    for (int k = 0; k < MD5_LANES; k++)
        p[k] = msg[k < n ? k : 0];
    v16 st[4];
    const uint32_t init[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
    for (int w = 0; w < 4; w++)
        for (int k = 0; k < MD5_LANES; k++)
            st[w][k] = init[w];
    const size_t whole = len / 64, rest = len % 64;
    md5_blocks(st, p, whole);
    /* The padding (section 3.1-3.2): 0x80, zeros to 56 bytes mod 64, the
     * length in bits as 64 bits little-endian; one block or two. */
    uint8_t t[MD5_LANES][128];
    const size_t tail_len = rest < 56 ? 64 : 128;
    const uint64_t bits = (uint64_t)len * 8;
    for (int k = 0; k < MD5_LANES; k++) {
        memset(t[k], 0, tail_len);
        if (rest)
            memcpy(t[k], p[k] + 64 * whole, rest);
        t[k][rest] = 0x80;
        for (int j = 0; j < 8; j++)
            t[k][tail_len - 8 + j] = (uint8_t)(bits >> (8 * j));
        p[k] = t[k];
    }
    md5_blocks(st, p, tail_len / 64);
    for (int k = 0; k < n; k++)
        for (int w = 0; w < 4; w++)
            for (int j = 0; j < 4; j++)
                digest[k][4 * w + j] = (uint8_t)(st[w][k] >> (8 * j));
}

void md5_hex(const uint8_t digest[16], char out[33])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[32] = '\0';
}

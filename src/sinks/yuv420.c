/* sinks/yuv420.c: rgb24 to yuv420p, BT.709, limited range (ITU-R BT.709-6:
 * Kr 0.2126, Kb 0.0722; 8-bit Y 16..235 and Cb/Cr 16..240):
 *
 *   E = (2126 R + 7152 G + 722 B) / 10000           (R, G, B in 0..255)
 *   Y  = 16  + 219/255 * E
 *   Cb = 128 + 224/255 * (B - E) / 1.8556
 *   Cr = 128 + 224/255 * (R - E) / 1.5748
 *
 * Cb and Cr take the mean R, G, B of each 2x2 block (a box filter; the sample
 * sits at the block's centre, H.264's chroma_sample_loc_type 1, which the
 * video sink tags). Each value is the formula rounded to nearest in fixed
 * point with 23 fractional bits: coefficients rounded to 1/2^23, so a result
 * can differ from the exact value rounded only where that lies within
 * 3 * 255 * 2^-24 < 5e-5 of a half for Y (61 of the 16.7 million colours)
 * and 3 * 1020 * 2^-24 < 2e-4 for Cb, Cr (9284 and 13450 of the 1.06e9
 * possible block sums), and never by more than one level
 * (tests/unit/test_yuv420.c; docs/output.md). Every step is
 * int32 arithmetic that cannot overflow (the largest sum, Cb of four blue
 * pixels, is 2.02e9 < 2^31), so the bytes are the same on every CPU and for
 * any slicing. The chroma coefficients of each row sum to exactly zero, so
 * greys give 128.
 *
 * yuv420_reference, at the end, is the plain form of the same integers, one
 * block at a time. The row loop is built for AVX2 and for the baseline and
 * picked at load time (as src/solvers/elias.c does); GCC vectorises it (with
 * -fvect-cost-model=dynamic, in the Makefile; the baseline build only the
 * column pairing, SSE2 having no byte shuffle for the rgb loads), and both
 * give the same integers. It runs on the video sink's writer thread alone,
 * several times faster than libswscale's exact path (make bench compares
 * them). */
#include "sinks/yuv420.h"
#include "isa.h"

enum { SHIFT = 23 };

/* Y: round(219 * Kx * 2^23 / 255); they sum to 219/255 * 2^23 to within 0.07. */
#define YR 1531641
#define YG 5152540
#define YB 520153
/* Cb, Cr on the sums of four pixels: round(224/255 * c / (4 * 1.8556 or 1.5748) * 2^23). */
#define UR (-211065)
#define UG (-710037)
#define UB 921102
#define VR 921102
#define VG (-836642)
#define VB (-84460)
/* 16 and 128 plus one half: round to nearest by truncation of a non-negative sum. */
#define YOFF ((16 << SHIFT) + (1 << (SHIFT - 1)))
#define COFF ((128 << SHIFT) + (1 << (SHIFT - 1)))

/* Columns per strip: the chroma terms of a strip stay in L1. Even. */
enum { STRIP = 256 };

/* One pair of rows, n pixels wide (n even, at most STRIP): two luma rows and
 * one row of each chroma plane. The loads of each loop are interleaved in
 * threes (rgb) or twos, the groups GCC's vectoriser can de-interleave; the
 * chroma of a block is linear, so it is summed from per-column terms
 * (exact integers: the same result as weighting the block's sums). */
RR_CLONES_V3
static void row_pair(const uint8_t *restrict s0, const uint8_t *restrict s1, uint8_t *restrict y0,
                     uint8_t *restrict y1, uint8_t *restrict u, uint8_t *restrict v, int n)
{
    int32_t cu[STRIP], cv[STRIP];
    for (int x = 0; x < n; x++) {
        int r0 = s0[3 * x], g0 = s0[3 * x + 1], b0 = s0[3 * x + 2];
        int r1 = s1[3 * x], g1 = s1[3 * x + 1], b1 = s1[3 * x + 2];
        y0[x] = (uint8_t)((YR * r0 + YG * g0 + YB * b0 + YOFF) >> SHIFT);
        y1[x] = (uint8_t)((YR * r1 + YG * g1 + YB * b1 + YOFF) >> SHIFT);
        int r = r0 + r1, g = g0 + g1, b = b0 + b1;
        cu[x] = UR * r + UG * g + UB * b;
        cv[x] = VR * r + VG * g + VB * b;
    }
    for (int i = 0; i < n / 2; i++) {
        u[i] = (uint8_t)((cu[2 * i] + cu[2 * i + 1] + COFF) >> SHIFT);
        v[i] = (uint8_t)((cv[2 * i] + cv[2 * i + 1] + COFF) >> SHIFT);
    }
}

void yuv420_from_rgb24(const uint8_t *rgb, ptrdiff_t stride, int w, int h, uint8_t *y, ptrdiff_t ys, uint8_t *u,
                       ptrdiff_t us, uint8_t *v, ptrdiff_t vs)
{
    for (int j = 0; j < h / 2; j++) {
        const uint8_t *s = rgb + 2 * j * stride;
        uint8_t *yr = y + 2 * j * ys;
        for (int x = 0; x < w; x += STRIP) {
            int n = w - x < STRIP ? w - x : STRIP;
            row_pair(s + 3 * x, s + stride + 3 * x, yr + x, yr + ys + x, u + j * us + x / 2, v + j * vs + x / 2, n);
        }
    }
}

void yuv420_reference(const uint8_t *rgb, ptrdiff_t stride, int w, int h, uint8_t *y, ptrdiff_t ys, uint8_t *u,
                      ptrdiff_t us, uint8_t *v, ptrdiff_t vs)
{
    for (int j = 0; j < h / 2; j++)
        for (int i = 0; i < w / 2; i++) {
            int32_t r = 0, g = 0, b = 0;   /* the block's sums */
            for (int k = 0; k < 4; k++) {
                const int px = 2 * i + (k & 1), py = 2 * j + (k >> 1);
                const uint8_t *p = rgb + py * stride + 3 * px;
                y[py * ys + px] = (uint8_t)((YR * p[0] + YG * p[1] + YB * p[2] + YOFF) >> SHIFT);
                r += p[0];
                g += p[1];
                b += p[2];
            }
            u[j * us + i] = (uint8_t)((UR * r + UG * g + UB * b + COFF) >> SHIFT);
            v[j * vs + i] = (uint8_t)((VR * r + VG * g + VB * b + COFF) >> SHIFT);
        }
}

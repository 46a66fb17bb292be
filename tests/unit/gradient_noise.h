/* gradient_noise.h: the picture on which the yuv420p converter is compared
 * with libswscale, in its unit test and in its bench (tests/bench/bench_yuv.c):
 * red rising left to right, green top to bottom, blue along the diagonal, each
 * with noise of -8..+7 levels from a fixed LCG, clamped to 0..255. */
#ifndef RR_GRADIENT_NOISE_H
#define RR_GRADIENT_NOISE_H

#include <stddef.h>
#include <stdint.h>

static inline void gradient_noise(uint8_t *rgb, ptrdiff_t stride, int w, int h)
{
    uint32_t s = 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                s = s * 1103515245u + 12345u;
                int v = (c == 0 ? x * 255 / w : c == 1 ? y * 255 / h : (x + y) * 255 / (w + h)) + (int)(s >> 28) - 8;
                rgb[y * stride + 3 * x + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
}

#endif

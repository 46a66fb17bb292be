/* bench_md5.c: milliseconds per 1920x1080 rgb24 frame's MD5: libavutil's
 * av_md5_sum (one frame at a time: frame_md5_hex, the frame-by-frame path)
 * against md5_lanes (src/md5lanes.h) over a batch of 1, 10 and 16 frames
 * (the batched path: 10 was a 1080p batch under a 64 MiB cap). Frames of
 * pseudo-random bytes; best of TRIES. Checks that both give the same
 * digests and asserts nothing about speed (docs/performance.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/md5.h>

#include "bench_ref.h"
#include "md5lanes.h"

#define BYTES ((size_t)1920 * 1080 * 3)
#define TRIES 5

int main(void)
{
    uint8_t *frame[MD5_LANES];
    uint32_t x = 1;
    for (int k = 0; k < MD5_LANES; k++) {
        if (!(frame[k] = malloc(BYTES))) {
            fprintf(stderr, "bench_md5: out of memory\n");
            return 1;
        }
        for (size_t i = 0; i < BYTES; i++) {
            x = x * 1664525u + 1013904223u;
            frame[k][i] = (uint8_t)(x >> 24);
        }
    }
    uint8_t want[MD5_LANES][16], got[MD5_LANES][16];
    double t_av = 1e30;
    for (int t = 0; t < TRIES; t++) {
        const double t0 = bench_now();
        for (int k = 0; k < MD5_LANES; k++)
            av_md5_sum(want[k], frame[k], BYTES);
        const double dt = (bench_now() - t0) / MD5_LANES;
        t_av = dt < t_av ? dt : t_av;
    }
    printf("%-46s %8.2f ms/frame\n", "MD5, av_md5_sum, one frame at a time", 1e3 * t_av);
    const int lanes[] = { 1, 10, 16 };
    for (int l = 0; l < 3; l++) {
        double best = 1e30;
        for (int t = 0; t < TRIES; t++) {
            const double t0 = bench_now();
            md5_lanes((const uint8_t *const *)frame, lanes[l], BYTES, got);
            const double dt = (bench_now() - t0) / lanes[l];
            best = dt < best ? dt : best;
        }
        char what[64];
        snprintf(what, sizeof what, "MD5, md5_lanes, %d frame%s at once", lanes[l], lanes[l] > 1 ? "s" : "");
        printf("%-46s %8.2f ms/frame %6.2fx%s\n", what, 1e3 * best, t_av / best,
               memcmp(got, want, (size_t)lanes[l] * 16) ? "  DIGESTS DIFFER" : "");
    }
    for (int k = 0; k < MD5_LANES; k++)
        free(frame[k]);
    return 0;
}

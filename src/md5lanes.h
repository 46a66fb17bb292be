/* md5lanes.h: the MD5s of several equally long messages at once (RFC 1321),
 * one message a lane of 32-bit vectors.
 *
 * Why: MD5 is serial within a message, each of its 64 steps a block waiting
 * on the one before (a chain of four dependent operations), so one message
 * leaves most of a core idle, however fast the code. The frames of a batch
 * (src/batch.h) are independent messages of the same length: stepping them
 * side by side, lane k of every vector being message k, does MD5_LANES of
 * them in about the time of one. The digests are RFC 1321's, bit for bit,
 * on any CPU (the builds for AVX-512, AVX2 and the baseline differ only in
 * speed). The plain path beside it is libavutil's av_md5_sum, one message
 * at a time (frame_md5_hex, what a run frame by frame hashes with):
 * tests/unit/test_md5lanes.c compares the two, natively and on emulated
 * AVX2 and baseline CPUs (tests/cli/test_kernels.sh). */
#ifndef RR_MD5LANES_H
#define RR_MD5LANES_H

#include <stddef.h>
#include <stdint.h>

/* The most messages one call takes. */
#define MD5_LANES 16

/* digest[k] = MD5 of the len bytes at msg[k], for k = 0 .. n - 1 (n clamped
 * to 0 .. MD5_LANES). Cannot fail. */
void md5_lanes(const uint8_t *const *msg, int n, size_t len, uint8_t (*digest)[16]);

/* The 32 lowercase hex digits of a digest, and a NUL. */
void md5_hex(const uint8_t digest[16], char out[33]);

#endif

/* sinks/yuv420.h: rgb24 to yuv420p (8 bits), BT.709 limited range, chroma
 * the 2x2 box mean (sited at the centre of its four pixels), in exact
 * integer fixed point: the same bytes on every CPU. docs/output.md. */
#ifndef RR_YUV420_H
#define RR_YUV420_H

#include <stddef.h>
#include <stdint.h>

/* Converts a w x h rgb24 picture (rows `stride` bytes apart) into the planes
 * y (w x h), u and v (w/2 x h/2), rows ys, us, vs bytes apart. w and h must
 * be even and positive (the video sink pads odd sizes first). */
void yuv420_from_rgb24(const uint8_t *rgb, ptrdiff_t stride, int w, int h, uint8_t *y, ptrdiff_t ys, uint8_t *u,
                       ptrdiff_t us, uint8_t *v, ptrdiff_t vs);

/* The plain path beside it: the same bytes, one 2x2 block at a time (each
 * pixel's Y, the block's Cb and Cr from its sums), with no strips, no
 * per-column chroma terms and no builds per CPU. A reader starts here;
 * tests/unit/test_yuv420.c compares the two byte for byte. */
void yuv420_reference(const uint8_t *rgb, ptrdiff_t stride, int w, int h, uint8_t *y, ptrdiff_t ys, uint8_t *u,
                      ptrdiff_t us, uint8_t *v, ptrdiff_t vs);

#endif

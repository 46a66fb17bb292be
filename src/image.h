/* image.h: pictures read from PNG files through libpng's simplified API.
 *
 * struct image holds one grey value per pixel as float in [0, 1], row-major,
 * width * height values; 16-bit PNGs keep their precision. Colour images are
 * reduced to luminance; alpha multiplies the value (transparent reads as 0). */
#ifndef RR_IMAGE_H
#define RR_IMAGE_H

#include "rr_err.h"

struct image {
    int width, height;
    float *v;
};

/* Reads any PNG (every colour type and depth, interlaced or not). `what` names
 * the scene key for messages ("obstacles.2.path"). Returns 0, or -1 with e
 * filled: RR_EXIT_USAGE for a missing, unreadable, damaged or oversized file
 * ("obstacles.2.path: path: cannot read PNG: why"), RR_EXIT_RUNTIME for memory. */
int image_load_gray(struct image *img, const char *path, const char *what, struct rr_err *e);

/* Resamples src to w x h with bilinear filtering, pixel centres aligned
 * (the usual half-pixel convention). dst must be zeroed or freed. */
int image_resample(const struct image *src, int w, int h, struct image *dst, struct rr_err *e);

/* Frees the pixels and zeroes img; safe twice. */
void image_free(struct image *img);

/* A PNG's size from its header, without decoding it. Errors as image_load_gray. */
int image_size(const char *path, const char *what, int *w, int *h, struct rr_err *e);

/* A colour picture: packed rgb24 rows (width * 3 bytes each). */
struct image_rgb {
    int width, height;
    unsigned char *rgb;
};

/* Reads any PNG as 8-bit sRGB codes (grey expanded to rgb; alpha composited
 * over black, as for grey images). Errors as image_load_gray. */
int image_load_rgb(struct image_rgb *img, const char *path, const char *what, struct rr_err *e);

/* Resamples src to w x h bilinearly with half-pixel centres (as
 * image_resample), rounding to the nearest byte; dst must be zeroed or freed.
 * Returns 0, or -1 with e filled (RR_EXIT_RUNTIME: memory). */
int image_rgb_resample(const struct image_rgb *src, int w, int h, struct image_rgb *dst, struct rr_err *e);

/* Frees the pixels and zeroes img; safe twice. */
void image_rgb_free(struct image_rgb *img);

/* True when path ends in ".npy" (any case): a depth map read as NumPy data
 * rather than as a PNG. */
int image_is_npy(const char *path);

/* A depth map at grid size, w x h floats in `unit` (the caller's: "m" or
 * "cells") into *out (malloc'd; the caller frees it). A PNG's value v in
 * [0, 1] gives range[0] + v (range[1] - range[0]), the picture resized
 * bilinearly to the grid; a .npy (format 1, 2 or 3; '<f4' or '<f8', C order,
 * shape (h, w) exactly) gives its values themselves. Every value must be
 * finite and > 0. `what` names the scene key. Returns 0, or -1 with e filled:
 * RR_EXIT_USAGE for a file that does not read, a .npy of another type or
 * shape, a value <= 0 or not finite ("solver.depth_map: FILE: cell (x, y) is
 * -1 m: ..."), RR_EXIT_RUNTIME for memory. */
int image_load_depth(const char *path, const double range[2], int w, int h, const char *what, const char *unit,
                     float **out, struct rr_err *e);

#endif

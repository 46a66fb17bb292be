/* obstacles.h: the scene's obstacles rasterised once into a wall mask.
 *
 * Usage: walls = calloc(w * h, 1); obstacles_rasterize(sc, walls, &e);
 * walls[y * w + x] is then 1 where a wall is (height held at 0, seed 000),
 * else left as it was. Cell centres are at integer coordinates:
 *   rect     cells with x <= i < x + width and y <= j < y + height
 *   circle   (i - x)^2 + (j - y)^2 <= radius^2
 *   polygon  cell centre inside by the even-odd rule
 *   line     cell centre within max(width, 1) / 2 of the segment from..to
 *   mask     PNG value v (image.h), resampled bilinearly to the grid when its
 *            size differs: wall where v >= threshold (v < threshold with invert)
 * Everything is clipped to the grid. */
#ifndef RR_OBSTACLES_H
#define RR_OBSTACLES_H

#include "rr_err.h"
#include "scene.h"

/* Returns 0, or -1 with e filled when a mask cannot be read
 * (RR_EXIT_USAGE, naming "obstacles.N.path") or memory runs out (RR_EXIT_RUNTIME). */
int obstacles_rasterize(const struct scene *sc, unsigned char *walls, struct rr_err *e);

#endif

/* budget.h: the memory budget of a run, checked before anything large is
 * allocated, so that an absurd grid, render size or image is refused with one
 * line naming the bytes instead of failing (or thrashing) half-way.
 *
 * The budget is RR_MEM_LIMIT_DEFAULT bytes, or the environment variable
 * RIPPLERENDER_MEM_LIMIT (bytes, with an optional K, M, G or T suffix for
 * powers of 1024; "0" or "none" turns the check off). docs/scene.md
 * documents it. */
#ifndef RR_BUDGET_H
#define RR_BUDGET_H

#include <stdint.h>

#include "rr_err.h"
#include "scene.h"

#define RR_MEM_LIMIT_DEFAULT ((uint64_t)4 << 30)   /* 4 GiB */

/* The budget in bytes (UINT64_MAX: no limit). Returns 0, or -1 with e filled
 * (status 2) when RIPPLERENDER_MEM_LIMIT is not a size. */
int budget_limit(uint64_t *bytes, struct rr_err *e);

/* The bytes a run of sc holds at its peak, by the estimate docs/scene.md
 * gives: per grid cell 4 float planes (two heights, two of solver state),
 * the wall byte and the grid-sized render buffers (rgb, 16-bit grey, float
 * heights); per output pixel, when the render is scaled, rgb and 16-bit
 * grey at two stages and the encoder's own frame. Saturates, never wraps. */
uint64_t budget_run_bytes(const struct scene *sc);

/* Refuses sc when budget_run_bytes passes the budget: status 2, "grid: W x H
 * cells with a WxH render need about N bytes, more than the limit of M bytes
 * (RIPPLERENDER_MEM_LIMIT)". Returns 0 or -1. */
int budget_check_run(const struct scene *sc, struct rr_err *e);

/* a * b, or UINT64_MAX when that overflows. */
uint64_t budget_mul(uint64_t a, uint64_t b);

/* a + b, or UINT64_MAX when that overflows. */
uint64_t budget_add(uint64_t a, uint64_t b);

#endif

/* rng.h: the one random generator of the project, SplitMix64 (Steele, Lea and
 * Flood, "Fast splittable pseudorandom number generators", 2014).
 *
 * Used wherever randomness reaches a frame (rain), always drawn on one thread
 * in a fixed order, so that the same seed gives the same frames on every
 * machine and with any thread count. Never rand(): its sequence differs
 * between C libraries. Header-only; every function cannot fail. */
#ifndef RR_RNG_H
#define RR_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s;
};

static inline void rng_seed(struct rng *r, uint64_t seed) { r->s = seed; }

/* The next 64 random bits. */
static inline uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits (exactly representable doubles). */
static inline double rng_uniform(struct rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [lo, hi) (lo when hi == lo). */
static inline double rng_range(struct rng *r, double lo, double hi)
{
    return lo + (hi - lo) * rng_uniform(r);
}

#endif

/* tblock_drivers.h: a solver's hand-written row drivers, AVX-512
 * (tblock_avx512.h, 16 cells a vector) and AVX2 (tblock_avx2.h, 8), from
 * one update written once for both widths.
 *
 * The solver writes its update for N cells as an expression of GCC vector
 * arithmetic, a macro with the width as its first parameter,
 *     #define NAME_UPDATE(N, k, variant, y, x, live, whole, s, h, p)  ...
 * on tblock_vN values s, h, p (the 4-neighbour sum (W + E) + (N + S), the
 * centre, the heights one step back; k, variant, y, x, live and whole as
 * tblock_update16_fn says), with the per-width operations as tblock_setN,
 * tblock_fmaN, tblock_fnmaN and tblock_loadN(ptr, live, whole) for per-cell
 * data (token-pasted: tblock_fma##N). Then
 *     TBLOCK_DRIVER_UPDATE(update, NAME_UPDATE)
 * defines update16 and update8 from it, and for each kernel form
 *     TBLOCK_DRIVERS(form_drivers, update, variant)
 * both drivers' one-row and three-row kernels and `form_drivers`, the
 * struct tblock_drivers holding them, which the solver's init hands to
 * tblock_offer_drivers. Where the drivers are not built (not x86-64 GCC)
 * the update is never expanded and each struct is empty: the portable
 * kernels alone run. */
#ifndef RR_TBLOCK_DRIVERS_H
#define RR_TBLOCK_DRIVERS_H

#include "tblock.h"
#include "tblock_avx2.h"
#include "tblock_avx512.h"

/* One kernel form's kernels by each hand-written driver (NULL: none). */
struct tblock_drivers {
    tblock_row_fn row16;       /* AVX-512 (tblock_avx512.h) */
    tblock_rows3_fn rows3_16;
    tblock_row_fn row8;        /* AVX2 (tblock_avx2.h) */
    tblock_rows3_fn rows3_8;
    tblock_row_fn row16c;      /* the same with TBLOCK_CAREFUL */
    tblock_rows3_fn rows3_16c;
    tblock_row_fn row8c;
    tblock_rows3_fn rows3_8c;
};

#if defined(TBLOCK_HAVE_AVX512_DRIVER) && defined(TBLOCK_HAVE_AVX2_DRIVER)

/* Defines name##16 (a tblock_update16_fn) and name##8 (a tblock_update8_fn)
 * from the solver's update BODY(N, k, variant, y, x, live, whole, s, h, p). */
#define TBLOCK_DRIVER_UPDATE(name, BODY)                                                                     \
    TBLOCK_DRIVER_UPDATE_N(name, BODY, 16, TBLOCK_AVX512)                                                    \
    TBLOCK_DRIVER_UPDATE_N(name, BODY, 8, TBLOCK_AVX2)
#define TBLOCK_DRIVER_UPDATE_N(name, BODY, N, target)                                                        \
    target static inline __attribute__((always_inline)) tblock_v##N name##N(                                 \
        const void *k, int variant, int y, int x, tblock_live##N live, int whole, tblock_v##N s, tblock_v##N h, \
        tblock_v##N p)                                                                                       \
    {                                                                                                        \
        (void)k, (void)variant, (void)y, (void)x, (void)live, (void)whole, (void)s, (void)h, (void)p;        \
        return BODY(N, k, variant, y, x, live, whole, s, h, p);                                              \
    }

/* Defines `name`, the struct tblock_drivers of the update's form `variant`
 * (a constant), with the four kernels it holds. */
#define TBLOCK_DRIVERS(name, update, variant)                                                                \
    TBLOCK_ROW_KERNEL_AVX512(name##_row16, update##16, variant)                                              \
    TBLOCK_ROWS3_KERNEL_AVX512(name##_rows3_16, update##16, variant)                                         \
    TBLOCK_ROW_KERNEL_AVX2(name##_row8, update##8, variant)                                                  \
    TBLOCK_ROWS3_KERNEL_AVX2(name##_rows3_8, update##8, variant)                                             \
    TBLOCK_ROW_KERNEL_AVX512(name##_row16c, update##16, (variant) | TBLOCK_CAREFUL)                          \
    TBLOCK_ROWS3_KERNEL_AVX512(name##_rows3_16c, update##16, (variant) | TBLOCK_CAREFUL)                     \
    TBLOCK_ROW_KERNEL_AVX2(name##_row8c, update##8, (variant) | TBLOCK_CAREFUL)                              \
    TBLOCK_ROWS3_KERNEL_AVX2(name##_rows3_8c, update##8, (variant) | TBLOCK_CAREFUL)                         \
    static const struct tblock_drivers name = { name##_row16,  name##_rows3_16,  name##_row8,  name##_rows3_8,  \
                                                name##_row16c, name##_rows3_16c, name##_row8c, name##_rows3_8c };

#else
#define TBLOCK_DRIVER_UPDATE(name, BODY)
#define TBLOCK_DRIVERS(name, update, variant) static const struct tblock_drivers name = { 0 };
#endif

/* Puts d's kernels (NULL: none) in kn's drivers' slot, row_driver and
 * rows3_driver: the AVX-512 ones when tblock_avx512() says so, else the
 * AVX2 ones when tblock_avx2() does (named "avx2"); else it stays empty.
 * The drivers' tuner then times them against the portable kernels. */
static inline void tblock_offer_drivers(struct tblock_kernel *kn, const struct tblock_drivers *d)
{
    kn->row_driver = NULL;
    kn->rows3_driver = NULL;
    kn->driver = NULL;
    const int careful = tblock_careful(), asked = tblock_careful_asked();
    kn->driver_only = 0;
    if (d && d->row16 && tblock_avx512()) {
        kn->row_driver = careful ? d->row16c : d->row16;
        kn->rows3_driver = careful ? d->rows3_16c : d->rows3_16;
        kn->driver = careful ? "avx512-careful" : NULL;
        kn->driver_only = careful;
    } else if (d && d->row8 && tblock_avx2()) {
        /* The AVX2 test for a subnormal lane takes four operations a
         * multiply, a good part of an 8-cell update: elias, with few
         * subnormals, ran slower careful than plain on an Intel core capped
         * at AVX2, so only a careful asked for by name takes it. */
        const int careful8 = careful && asked;
        kn->row_driver = careful8 ? d->row8c : d->row8;
        kn->rows3_driver = careful8 ? d->rows3_8c : d->rows3_8;
        kn->driver = careful8 ? "avx2-careful" : "avx2";
        kn->driver_only = careful8;
    }
}

#endif

/* spectral_copy.h: the spectral solver's moves of a group of rows between
 * the row buffers and the transform Z, which holds it by columns
 * (src/solvers/spectral.c); in a header so that tests/unit/test_spectral.c
 * checks the streaming copy against the plain one, bit for bit. By
 * pointers, not subscripts, so that it reads the same whether
 * fftwf_complex is float[2] or (after <complex.h>) a C99 complex. */
#ifndef RR_SPECTRAL_COPY_H
#define RR_SPECTRAL_COPY_H

#include <stddef.h>
#include <string.h>

#include <fftw3.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Copies columns 0 .. n - 1 of the nr rows in `rows` (nxp apart) to rows
 * y0 .. y0 + nr - 1 of Z's columns (nyp apart), to_z, or back: each column's
 * part is nr values (two cache lines for spectral.c's 16 rows). */
static inline void group_copy(fftwf_complex *Z, size_t nyp, int y0, fftwf_complex *rows, size_t nxp, int n, int nr,
                              int to_z)
{
    for (int x = 0; x < n; x++) {
        fftwf_complex *z = Z + (size_t)x * nyp + y0;
        for (int r = 0; r < nr; r++)
            memcpy(to_z ? (void *)(z + r) : (void *)(rows + r * nxp + x), to_z ? (const void *)(rows + r * nxp + x) : (const void *)(z + r),
                   sizeof *z);
    }
}

/* group_copy's to_z by streaming stores (SSE2: two columns' values of two
 * rows a time), so that the lines of Z are written without being read
 * first; the same values. nr must be even, and Z, rows, nyp, nxp and y0
 * such that every pair's address is a multiple of 16 bytes (spectral.c:
 * the buffers and Z's columns start at multiples of 64, y0 is a multiple of
 * 16, and x is even). */
static inline void group_stream(fftwf_complex *Z, size_t nyp, int y0, const fftwf_complex *rows, size_t nxp, int n,
                                int nr)
{
    int x = 0;
#ifdef __SSE2__
    for (; x + 2 <= n; x += 2) {
        double *z0 = (double *)(Z + (size_t)x * nyp + y0), *z1 = (double *)(Z + (size_t)(x + 1) * nyp + y0);
        for (int r = 0; r < nr; r += 2) {
            const __m128d a = _mm_load_pd((const double *)(rows + r * nxp + x));
            const __m128d c = _mm_load_pd((const double *)(rows + (r + 1) * nxp + x));
            _mm_stream_pd(z0 + r, _mm_unpacklo_pd(a, c));
            _mm_stream_pd(z1 + r, _mm_unpackhi_pd(a, c));
        }
    }
#endif
    for (; x < n; x++)
        for (int r = 0; r < nr; r++)
            memcpy(Z + (size_t)x * nyp + y0 + r, rows + r * nxp + x, sizeof *Z);
}

#endif

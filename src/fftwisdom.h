/* fftwisdom.h: how the spectral solver plans its FFTs (RIPPLERENDER_FFT) and
 * the per-machine cache of FFTW wisdom that measured plans are kept in.
 *
 * RIPPLERENDER_FFT=estimate (the default, also when unset or empty): plans
 * made by FFTW_ESTIMATE, which picks them from the transform's size and the
 * CPU's SIMD alone, so every run of the same build on the same machine makes
 * the same plans and the same frames.
 * RIPPLERENDER_FFT=measure: plans made by FFTW_MEASURE, which times the
 * candidates and keeps the fastest. Different plans round differently, so
 * the frames differ from the estimate ones by rounding (docs/solvers.md
 * gives the tolerance), and two measurings may pick different plans. The
 * chosen plans are kept as FFTW wisdom in the cache file (fft_wisdom_path)
 * and reused by every later measured run on this machine, which then makes
 * the same frames as the run that measured them, and plans at once.
 *
 * The cache file is a convenience: one that cannot be read, is corrupt or
 * cannot be written is ignored (RIPPLERENDER_DEBUG=kernels says so) and the
 * plans are measured again. It is written whole (src/cachefile.h), so a
 * reader never sees half of one; RIPPLERENDER_CACHE=0 leaves it alone. */
#ifndef RR_FFTWISDOM_H
#define RR_FFTWISDOM_H

#include <stdbool.h>
#include <stddef.h>

#include "rr_err.h"

/* Reads RIPPLERENDER_FFT: *measure set for "measure", cleared for
 * "estimate", unset or empty. Any other value fails with RR_EXIT_USAGE
 * naming the variable and the value. */
int fft_planning(bool *measure, struct rr_err *e);

/* The cache file: fftw3f-ID.wisdom in the caches' folder (cachefile_dir),
 * ID a digest of the CPU's name (cachefile_cpu) and the FFTW version
 * (wisdom is only valid for the CPU and library that measured it). Returns
 * false (path empty) when the caches are off, neither variable gives a
 * folder or the path does not fit in n bytes. */
bool fft_wisdom_path(char *path, size_t n);

/* Imports the cache file's wisdom into FFTW's planner. A file that is
 * missing, unreadable or rejected by FFTW leaves the planner with no
 * wisdom. Returns whether wisdom was imported. */
bool fft_wisdom_load(void);

/* Writes the planner's wisdom to the cache file, making its folder, when it
 * holds more than what fft_wisdom_load read. Failures are ignored. */
void fft_wisdom_save(void);

#endif

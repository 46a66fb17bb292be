/* fftwisdom.c: RIPPLERENDER_FFT and the FFTW wisdom cache (see fftwisdom.h). */
#include "fftwisdom.h"

#include "cachefile.h"
#include "debug.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#define ENV_FFT "RIPPLERENDER_FFT"
/* Wisdom files larger than this are not FFTW's (a few plans take a few KiB). */
#define WISDOM_MAX (1 << 20)

/* The planner's wisdom as fft_wisdom_load left it (exported again, so that
 * fft_wisdom_save compares like with like); NULL before a load. */
static char *wisdom_loaded;

int fft_planning(bool *measure, struct rr_err *e)
{
    const char *v = getenv(ENV_FFT);
    *measure = false;
    if (!v || !*v || !strcmp(v, "estimate"))
        return 0;
    if (!strcmp(v, "measure")) {
        *measure = true;
        return 0;
    }
    return rr_fail(e, RR_EXIT_USAGE, ENV_FFT "=%s: expected estimate or measure", v);
}

/* 64-bit FNV-1a of a string, continuing from h. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

bool fft_wisdom_path(char *path, size_t n)
{
    char dir[4096], cpu[128];
    int len = -1;
    if (cachefile_on() && cachefile_dir(dir, sizeof dir) == 0) {
        cachefile_cpu(cpu, sizeof cpu);
        const uint64_t id = fnv1a(fnv1a(0xcbf29ce484222325ull, cpu), fftwf_version);
        len = snprintf(path, n, "%s/fftw3f-%016llx.wisdom", dir, (unsigned long long)id);
    }
    if (len < 0 || (size_t)len >= n) {
        if (n)
            path[0] = 0;
        return false;
    }
    return true;
}

bool fft_wisdom_load(void)
{
    char path[4096];
    bool ok = false;
    if (fft_wisdom_path(path, sizeof path)) {
        char why[96];
        static char s[WISDOM_MAX + 1];   /* static: plans are made one at a time (FFTW's planner is not thread-safe) */
        const bool have = cachefile_read(path, s, WISDOM_MAX, why, sizeof why) >= 0;
        ok = have && fftwf_import_wisdom_from_string(s);
        if (have && !ok)
            fftwf_forget_wisdom();   /* nothing half imported */
        debug_line(DEBUG_KERNELS, "spectral: FFT wisdom %s: %s%s", path,
                   ok ? "loaded" : have ? "not FFTW wisdom, ignored" : why[0] ? why : "none", !have && why[0] ? ", ignored" : "");
    }
    fftwf_free(wisdom_loaded);
    wisdom_loaded = fftwf_export_wisdom_to_string();
    return ok;
}

void fft_wisdom_save(void)
{
    char path[4096];
    char *s = fftwf_export_wisdom_to_string();
    const bool same = s && wisdom_loaded && !strcmp(s, wisdom_loaded);
    if (!s || same || !fft_wisdom_path(path, sizeof path)) {
        fftwf_free(s);
        return;
    }
    const bool ok = cachefile_write(path, s, strlen(s)) == 0;
    debug_line(DEBUG_KERNELS, "spectral: FFT wisdom %s: %s", path, ok ? "written" : "cannot be written, ignored");
    if (ok) {
        fftwf_free(wisdom_loaded);
        wisdom_loaded = s;
    } else
        fftwf_free(s);
}

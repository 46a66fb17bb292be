/* fftwisdom.c: RIPPLERENDER_FFT and the FFTW wisdom cache (see fftwisdom.h). */
#include "fftwisdom.h"

#include "debug.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fftw3.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

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

/* The CPU's model name (the x86 brand string), or "cpu" elsewhere. */
static void cpu_name(char *s, size_t n)
{
    snprintf(s, n, "cpu");
#if defined(__x86_64__) || defined(__i386__)
    unsigned r[12];
    if (__get_cpuid_max(0x80000000u, NULL) < 0x80000004u)
        return;
    for (unsigned i = 0; i < 3; i++)
        __get_cpuid(0x80000002u + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
    char b[49];
    memcpy(b, r, 48);
    b[48] = 0;
    snprintf(s, n, "%s", b);
#endif
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
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char cpu[64];
    cpu_name(cpu, sizeof cpu);
    const uint64_t id = fnv1a(fnv1a(0xcbf29ce484222325ull, cpu), fftwf_version);
    int len = -1;
    if (xdg && xdg[0] == '/')   /* the XDG spec: relative values are invalid, ignored */
        len = snprintf(path, n, "%s/ripplerender/fftw3f-%016llx.wisdom", xdg, (unsigned long long)id);
    else if (home && home[0])
        len = snprintf(path, n, "%s/.cache/ripplerender/fftw3f-%016llx.wisdom", home, (unsigned long long)id);
    if (len < 0 || (size_t)len >= n) {
        if (n)
            path[0] = 0;
        return false;
    }
    return true;
}

/* The whole file as a string, or NULL (missing, unreadable, too large). */
static char *read_small_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *s = malloc(WISDOM_MAX + 1);
    size_t got = s ? fread(s, 1, WISDOM_MAX + 1, fp) : 0;
    const int bad = !s || ferror(fp) || got > WISDOM_MAX;
    fclose(fp);
    if (bad) {
        free(s);
        return NULL;
    }
    s[got] = 0;
    return s;
}

bool fft_wisdom_load(void)
{
    char path[4096];
    bool ok = false;
    if (fft_wisdom_path(path, sizeof path)) {
        char *s = read_small_file(path);
        ok = s && fftwf_import_wisdom_from_string(s);
        if (s && !ok)
            fftwf_forget_wisdom();   /* nothing half imported */
        debug_line(DEBUG_KERNELS, "spectral: FFT wisdom %s: %s", path,
                   ok ? "loaded" : s ? "not FFTW wisdom, ignored" : "none");
        free(s);
    }
    fftwf_free(wisdom_loaded);
    wisdom_loaded = fftwf_export_wisdom_to_string();
    return ok;
}

/* Makes the folders of path (all but its last component), as mkdir -p. */
static int make_parents(const char *path)
{
    char d[4096];
    snprintf(d, sizeof d, "%s", path);
    for (char *p = d + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(d, 0700) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

void fft_wisdom_save(void)
{
    char path[4096], tmp[4096 + 16];
    char *s = fftwf_export_wisdom_to_string();
    const bool same = s && wisdom_loaded && !strcmp(s, wisdom_loaded);
    if (!s || same || !fft_wisdom_path(path, sizeof path)) {
        fftwf_free(s);
        return;
    }
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    const size_t len = strlen(s);
    int fd = make_parents(path) < 0 ? -1 : mkstemp(tmp);
    bool ok = fd >= 0 && write(fd, s, len) == (ssize_t)len;
    if (fd >= 0) {
        ok = close(fd) == 0 && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok)
            unlink(tmp);
    }
    debug_line(DEBUG_KERNELS, "spectral: FFT wisdom %s: %s", path, ok ? "written" : "cannot be written, ignored");
    if (ok) {
        fftwf_free(wisdom_loaded);
        wisdom_loaded = s;
    } else
        fftwf_free(s);
}

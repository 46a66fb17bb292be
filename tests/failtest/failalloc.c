/* failalloc.c: allocation-failure injection for `make failtest`. Linked into
 * a test build of ripplerender with -Wl,--wrap=malloc,... so that every
 * allocation made by OUR code (src/, not by the shared libraries FFmpeg,
 * libpng and libc use internally) goes through here; cJSON's allocations do
 * too, through cJSON_InitHooks.
 *
 * RR_FAILTEST_FAIL=N makes the N-th such allocation (1-based) return NULL;
 * the others succeed. RR_FAILTEST_COUNT=FILE writes, at exit, how many
 * allocations the run made, so that tests/failtest/run.sh can fail each in
 * turn. Counting is atomic: OpenMP workers may allocate too. */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
char *__real_strdup(const char *s);
void *__real_av_malloc(size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n);
char *__wrap_strdup(const char *s);
void *__wrap_av_malloc(size_t n);

static atomic_long count;
static long fail_at = -1;      /* -1: not read yet; 0: never fail */

static void report(void)
{
    const char *path = getenv("RR_FAILTEST_COUNT");
    if (!path)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld\n", (long)atomic_load(&count));
        fclose(f);
    }
}

/* True when this allocation is the one to fail. */
static int fail_now(void)
{
    if (fail_at < 0) {
        const char *s = getenv("RR_FAILTEST_FAIL");
        fail_at = s ? strtol(s, NULL, 10) : 0;
        atexit(report);
    }
    long k = atomic_fetch_add(&count, 1) + 1;
    if (fail_at > 0 && k == fail_at) {
        errno = ENOMEM;    /* as the real allocators do */
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t k, size_t n) { return fail_now() ? NULL : __real_calloc(k, n); }
/* realloc(p, 0) frees: never made to fail, so that no test mistakes a free for a failure. */
void *__wrap_realloc(void *p, size_t n) { return n && fail_now() ? NULL : __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t a, size_t n) { return fail_now() ? NULL : __real_aligned_alloc(a, n); }
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }
void *__wrap_av_malloc(size_t n) { return fail_now() ? NULL : __real_av_malloc(n); }

/* cJSON allocates through its hooks: count (and fail) its nodes as well. */
__attribute__((constructor)) static void hook_cjson(void)
{
    cJSON_Hooks h = { .malloc_fn = __wrap_malloc, .free_fn = free };
    cJSON_InitHooks(&h);
}

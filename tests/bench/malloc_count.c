/* malloc_count.c: counts heap allocations (malloc, calloc, realloc,
 * aligned_alloc, posix_memalign, memalign) of a program run with
 * LD_PRELOAD=malloc_count.so, and writes the count to the file named by
 * MALLOC_COUNT_OUT at exit. tests/bench.sh runs a render for N and for 2N
 * frames: the difference is the allocations per frame once running. */
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static unsigned long count;

static void counted(void) { __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED); }

void *malloc(size_t n) { counted(); return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { counted(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { counted(); return __libc_realloc(p, n); }
void *aligned_alloc(size_t align, size_t n) { counted(); return __libc_memalign(align, n); }
void *memalign(size_t align, size_t n) { counted(); return __libc_memalign(align, n); }

int posix_memalign(void **out, size_t align, size_t n)
{
    counted();
    void *p = __libc_memalign(align, n);
    if (!p)
        return 12;   /* ENOMEM */
    *out = p;
    return 0;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("MALLOC_COUNT_OUT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%lu\n", __atomic_load_n(&count, __ATOMIC_RELAXED));
        fclose(f);
    }
}

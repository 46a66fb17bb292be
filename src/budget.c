/* budget.c: the memory budget of a run (see budget.h). */
#include "budget.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ENV_NAME "RIPPLERENDER_MEM_LIMIT"

uint64_t budget_mul(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

uint64_t budget_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int budget_limit(uint64_t *bytes, struct rr_err *e)
{
    const char *s = getenv(ENV_NAME);
    *bytes = RR_MEM_LIMIT_DEFAULT;
    if (!s || !*s)
        return 0;
    if (!strcmp(s, "none") || !strcmp(s, "0")) {
        *bytes = UINT64_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
    if (!isdigit((unsigned char)s[0]) || errno)
        return rr_fail(e, RR_EXIT_USAGE, ENV_NAME "=%s: expected a size in bytes (e.g. 8G), or none", s);
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    default: break;
    }
    if (*end)
        return rr_fail(e, RR_EXIT_USAGE, ENV_NAME "=%s: expected a size in bytes (e.g. 8G), or none", s);
    *bytes = budget_mul(v, (uint64_t)1 << shift);
    return 0;
}

uint64_t budget_run_bytes(const struct scene *sc)
{
    /* Per grid cell: 4 float planes (16), walls (1), rgb (3), grey16 (2),
     * heights (4). Rows are padded by a few cells: count 40 extra per row. */
    uint64_t gw = sc->grid.width > 0 ? (uint64_t)sc->grid.width : 0;
    uint64_t gh = sc->grid.height > 0 ? (uint64_t)sc->grid.height : 0;
    uint64_t cells = budget_mul(gw + 40, gh + 2);
    uint64_t total = budget_mul(cells, 16 + 1 + 3 + 2 + 4);
    uint64_t rw = sc->render.width > 0 ? (uint64_t)sc->render.width : gw;
    uint64_t rh = sc->render.height > 0 ? (uint64_t)sc->render.height : gh;
    uint64_t pix = budget_mul(rw + 64, rh);
    /* A scaled render keeps rgb and grey16 twice (scaled, packed); every
     * video encoder holds a padded frame of its own (counted at 4 bytes). */
    uint64_t per_pixel = (rw != gw || rh != gh) ? 2 * (3 + 2) + 4 : 4;
    return budget_add(total, budget_mul(pix, per_pixel));
}

int budget_check_run(const struct scene *sc, struct rr_err *e)
{
    uint64_t budget;
    if (budget_limit(&budget, e) < 0)
        return -1;
    uint64_t need = budget_run_bytes(sc);
    if (need <= budget)
        return 0;
    int rw = sc->render.width > 0 ? sc->render.width : sc->grid.width;
    int rh = sc->render.height > 0 ? sc->render.height : sc->grid.height;
    return rr_fail(e, RR_EXIT_USAGE,
                   "grid: %d x %d cells with a %d x %d render need about %llu bytes, more than the limit of "
                   "%llu bytes (raise it with " ENV_NAME ", e.g. " ENV_NAME "=16G)",
                   sc->grid.width, sc->grid.height, rw, rh, (unsigned long long)need,
                   (unsigned long long)budget);
}

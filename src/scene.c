/* scene.c: JSON scene -> struct scene, with defaults, --set overrides and
 * validation whose messages name file:line:col and the key path; and the
 * resolved scene printed back as JSON. The keys are described in docs/scene.md. */
#include "scene.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "budget.h"
#include "render.h"
#include "scene_json.h"
#include "solver.h"
#include "sources.h"

#define PATH_LEN 256          /* longest key path shown in a message */
#define SEED_MAX (1LL << 53)  /* every integer up to here is exact in a JSON double */

/* ---- enum names: one table per enum, in enum order ---------------------------- */

static const char *const solver_names[] = { "elias", "flow", "spring", "wave", "spectral", NULL };
static const char *const edge_names[] = { "fixed", "clamp", "wrap", "absorb", NULL };
static const char *const shape_names[] = { "point", "disc", "gaussian", "cosine", NULL };
static const char *const mode_names[] = { "add", "set", NULL };
static const char *const obstacle_names[] = { "rect", "circle", "polygon", "line", "mask", NULL };
static const char *const render_names[] = { "height", "colormap", "shaded", "refract", "normals",
                                            "caustics", NULL };
static const char *const initial_names[] = { "image", "wave", NULL };
static const char *const alpha_names[] = { "none", "height", "caustics", NULL };
static const char *const convention_names[] = { "opengl", "directx", NULL };
static const char *const exr_compression_names[] = { "zip", "zips", "piz", "rle", "none", NULL };

static const char *name_of(const char *const *names, int count, int v)
{
    return v >= 0 && v < count ? names[v] : "?";
}

const char *scene_solver_name(enum solver_type t) { return name_of(solver_names, 5, (int)t); }
const char *scene_edge_name(enum edge_kind k) { return name_of(edge_names, 4, (int)k); }
const char *scene_shape_name(enum shape_kind k) { return name_of(shape_names, 4, (int)k); }
const char *scene_render_mode_name(enum render_mode m) { return name_of(render_names, 6, (int)m); }
const char *scene_render_alpha_name(enum render_alpha a) { return name_of(alpha_names, 3, (int)a); }
const char *scene_normal_convention_name(enum normal_convention c) { return name_of(convention_names, 2, (int)c); }
const char *scene_exr_compression_name(enum exr_compression c) { return name_of(exr_compression_names, 5, (int)c); }

/* ---- time steps ------------------------------------------------------------------- */

double scene_dt(const struct scene *sc)
{
    return 1.0 / (sc->time.fps * (double)sc->time.steps_per_frame);
}

long long scene_total_steps(const struct scene *sc)
{
    return (long long)sc->time.frames * sc->time.steps_per_frame;
}

long long scene_moment_step(const struct scene *sc, const struct moment *m)
{
    if (m->is_frame)
        return (long long)m->frame * sc->time.steps_per_frame;
    return llround(m->time * sc->time.fps * (double)sc->time.steps_per_frame);
}

/* ---- freeing ------------------------------------------------------------------------ */

void scene_free(struct scene *sc)
{
    if (!sc)
        return;
    free(sc->file);
    free(sc->solver.speed_map);
    free(sc->drops);
    free(sc->oscillators);
    for (int i = 0; i < sc->n_movers; i++)
        free(sc->movers[i].path);
    free(sc->movers);
    for (int i = 0; i < sc->n_initial; i++)
        free(sc->initial[i].path);
    free(sc->initial);
    free(sc->probes);
    for (int i = 0; i < sc->n_obstacles; i++) {
        free(sc->obstacles[i].points);
        free(sc->obstacles[i].path);
    }
    free(sc->obstacles);
    free(sc->output.path);
    free(sc->render.background);
    free(sc->render.floor);
    for (int i = 0; i < sc->n_origins; i++)
        free(sc->origins[i].key);
    free(sc->origins);
    memset(sc, 0, sizeof *sc);
}

/* ---- the loader's state and its messages ------------------------------------------------ */

struct ld {
    const char *name;              /* the scene's name in messages ("<stdin>" for "-") */
    const struct sj_posmap *pm;
    struct rr_err *e;
    char *dir;                     /* folder that relative paths are resolved against */
    struct scene *sc;
};

/* The value as compact JSON for "got ...", at most about 60 characters. */
static void describe(const cJSON *v, char *buf, size_t size)
{
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble)) {
        snprintf(buf, size, "a number too large for a double");
        return;
    }
    char *s = cJSON_PrintUnformatted(v);
    if (!s) {
        snprintf(buf, size, "a value");
        return;
    }
    if (strlen(s) > 60)
        snprintf(buf, size, "%.57s...", s);
    else
        snprintf(buf, size, "%s", s);
    free(s);
}

/* Fails with "FILE:LINE:COL: path: what", the position being node's key
 * (at_key) or value; "--set path: what" for nodes --set made. Returns -1. */
static int vfail(struct ld *ld, const cJSON *node, bool at_key, const char *path, const char *fmt,
                 va_list ap)
{
    char what[768], where[320];
    struct sj_pos val, key;
    rr_vformat(what, sizeof what, fmt, ap);   /* a long quoted key gives way, not the reason */
    if (sj_posmap_find(ld->pm, node, &val, &key)) {
        struct sj_pos p = at_key ? key : val;
        snprintf(where, sizeof where, "%s:%d:%d: %s%s", ld->name, p.line, p.col, path,
                 *path ? ": " : "");
    } else {
        snprintf(where, sizeof where, "--set %s: ", *path ? path : "(top level)");
    }
    return rr_fail(ld->e, RR_EXIT_USAGE, "%s%s", where, what);
}

static int fail(struct ld *ld, const cJSON *node, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_key(struct ld *ld, const cJSON *node, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct ld *ld, const cJSON *node, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(ld, node, false, path, fmt, ap);
    va_end(ap);
    return rc;
}

static int fail_key(struct ld *ld, const cJSON *node, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(ld, node, true, path, fmt, ap);
    va_end(ap);
    return rc;
}

/* "expected WHAT, got VALUE" */
static int fail_got(struct ld *ld, const cJSON *node, const char *path, const char *what)
{
    char got[80];
    describe(node, got, sizeof got);
    return fail(ld, node, path, "expected %s, got %s", what, got);
}

static int oom(struct ld *ld)
{
    return rr_fail(ld->e, RR_EXIT_RUNTIME, "%s: out of memory", ld->name);
}

/* Appends src to buf (PATH_LEN), cutting what does not fit. */
static void append(char *buf, size_t *at, const char *src)
{
    size_t n = strlen(src);
    if (n > PATH_LEN - 1 - *at)
        n = PATH_LEN - 1 - *at;
    memcpy(buf + *at, src, n);
    *at += n;
    buf[*at] = '\0';
}

/* parent.key (or key at the top level), into buf (PATH_LEN). Returns buf. */
static const char *join(char *buf, const char *parent, const char *key)
{
    size_t at = 0;
    buf[0] = '\0';
    append(buf, &at, parent);
    if (*parent)
        append(buf, &at, ".");
    append(buf, &at, key);
    return buf;
}

static const char *join_index(char *buf, const char *parent, int i)
{
    char num[16];
    snprintf(num, sizeof num, "%d", i);
    return join(buf, parent, num);
}

/* ---- unknown and duplicate keys -------------------------------------------------------- */

/* Optimal string alignment distance (Levenshtein plus transpositions), for
 * "did you mean". Keys are short; longer strings are simply "far". */
static int edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40)
        return 99;
    int d[41][41];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

/* Whether the shorter of a and b, at least 3 characters long, begins or
 * ends the longer: "rectangle" and "rect", "gauss" and "gaussian", "x264"
 * and "libx264". */
static bool part_pair(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b), k = n < m ? n : m;
    const char *longer = n > m ? a : b, *shorter = n > m ? b : a;
    return k >= 3 && n != m && (!strncmp(a, b, k) || !strcmp(longer + (n > m ? n : m) - k, shorter));
}

void scene_guess_offer(struct scene_guess *g, const char *name)
{
    int edits = edit_distance(g->word, name), score;   /* in half edits */
    if (edits <= 1 && edits < (int)strlen(g->word) / 2 + 1)
        score = 2 * edits;
    else if (part_pair(g->word, name))
        score = 3;
    else if (edits == 2 && edits < (int)strlen(g->word) / 2 + 1)
        score = 4;
    else
        return;
    if (!g->best || score < g->score) {
        g->best = name;
        g->score = score;
    }
}

/* The closest of a NULL-terminated list (scene_guess_offer), or NULL. */
static const char *closest(const char *word, const char *const *names)
{
    struct scene_guess g = { .word = word };
    for (; *names; names++)
        scene_guess_offer(&g, *names);
    return g.best;
}

static void list_names(char *buf, size_t size, const char *const *names)
{
    size_t at = 0;
    buf[0] = '\0';
    for (const char *const *p = names; *p && at < size; p++)
        at += (size_t)snprintf(buf + at, size - at, "%s\"%s\"", p == names ? "" : ", ", *p);
}

/* Refuses a key of obj that is not in `known` (NULL-terminated) or that
 * appears twice, whichever comes first in the document. `for_type` names the
 * obstacle or initial type whose keys these are, or is NULL. */
static int check_keys(struct ld *ld, const cJSON *obj, const char *path, const char *const *known,
                      const char *for_type)
{
    char p[PATH_LEN], list[512];
    for (const cJSON *m = obj->child; m; m = m->next) {
        join(p, path, m->string);
        for (const cJSON *f = obj->child; f != m; f = f->next) {
            if (strcmp(f->string, m->string))
                continue;
            struct sj_pos fv, fk;
            if (sj_posmap_find(ld->pm, f, &fv, &fk))
                return fail_key(ld, m, p, "duplicate key \"%s\" (first at %d:%d)", m->string,
                                fk.line, fk.col);
            return fail_key(ld, m, p, "duplicate key \"%s\" (first from --set)", m->string);
        }
        const char *const *k = known;
        while (*k && strcmp(*k, m->string))
            k++;
        if (*k)
            continue;
        char in[64] = "";
        if (for_type)
            snprintf(in, sizeof in, " for type \"%s\"", for_type);
        const char *near = closest(m->string, known);
        if (near)
            return fail_key(ld, m, p, "unknown key \"%s\"%s, did you mean \"%s\"?", m->string, in, near);
        list_names(list, sizeof list, known);
        return fail_key(ld, m, p, "unknown key \"%s\"%s (known keys: %s)", m->string, in, list);
    }
    return 0;
}

/* ---- typed getters: absent keys leave *out (the default) untouched -------------------------- */

/* Bounds of a number; open ends exclude the bound itself. */
struct range {
    double min, max;
    bool open_min, open_max;
};

static const struct range ANY = { -HUGE_VAL, HUGE_VAL, false, false };
static const struct range POSITIVE = { 0, HUGE_VAL, true, false };
static const struct range NONNEG = { 0, HUGE_VAL, false, false };
static const struct range UNIT = { 0, 1, false, false };

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* A number as a message shows it: integers without a fraction, others with
 * as many digits as they need. */
static void fmt_num(char *buf, size_t size, double v)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, size, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static void describe_range(char *buf, size_t size, const char *noun, struct range r)
{
    char lo[32], hi[32];
    fmt_num(lo, sizeof lo, r.min);
    fmt_num(hi, sizeof hi, r.max);
    bool has_lo = isfinite(r.min), has_hi = isfinite(r.max);
    if (has_lo && has_hi)
        snprintf(buf, size, "%s in %c%s, %s%c", noun, r.open_min ? '(' : '[', lo, hi,
                 r.open_max ? ')' : ']');
    else if (has_lo)
        snprintf(buf, size, "%s %s %s", noun, r.open_min ? ">" : ">=", lo);
    else if (has_hi)
        snprintf(buf, size, "%s %s %s", noun, r.open_max ? "<" : "<=", hi);
    else
        snprintf(buf, size, "%s", noun);
}

static bool in_range(double v, struct range r)
{
    if (!isfinite(v))
        return false;
    if (r.open_min ? !(v > r.min) : !(v >= r.min))
        return false;
    return r.open_max ? v < r.max : v <= r.max;
}

static int check_number(struct ld *ld, const cJSON *v, const char *path, struct range r, double *out)
{
    if (!cJSON_IsNumber(v) || !in_range(v->valuedouble, r)) {
        char what[96];
        describe_range(what, sizeof what, "a number", r);
        return fail_got(ld, v, path, what);
    }
    *out = v->valuedouble;
    return 0;
}

static int get_number(struct ld *ld, const cJSON *obj, const char *path, const char *key,
                      struct range r, double *out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    return v ? check_number(ld, v, join(p, path, key), r, out) : 0;
}

/* An integer: valuedouble must be whole and in range (valueint saturates). */
static int check_int(struct ld *ld, const cJSON *v, const char *path, long long min, long long max,
                     long long *out)
{
    double d = cJSON_IsNumber(v) ? v->valuedouble : HUGE_VAL;
    if (!isfinite(d) || d != floor(d) || d < (double)min || d > (double)max) {
        char what[96];
        struct range r = { (double)min, (double)max, false, false };
        describe_range(what, sizeof what, "an integer", r);
        return fail_got(ld, v, path, what);
    }
    *out = (long long)d;
    return 0;
}

static int get_int(struct ld *ld, const cJSON *obj, const char *path, const char *key, long long min,
                   long long max, int *out)
{
    char p[PATH_LEN];
    long long v;
    const cJSON *item = member(obj, key);
    if (!item)
        return 0;
    if (check_int(ld, item, join(p, path, key), min, max, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int get_bool(struct ld *ld, const cJSON *obj, const char *path, const char *key, bool *out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    if (!v)
        return 0;
    if (!cJSON_IsBool(v))
        return fail_got(ld, v, join(p, path, key), "true or false");
    *out = cJSON_IsTrue(v);
    return 0;
}

/* A short name into a fixed buffer; `allow_empty` for the output settings,
 * where "" means the codec's own default. */
static int get_name(struct ld *ld, const cJSON *obj, const char *path, const char *key,
                    bool allow_empty, char out[RR_NAME_MAX])
{
    char p[PATH_LEN], what[96];
    const cJSON *v = member(obj, key);
    if (!v)
        return 0;
    size_t len = cJSON_IsString(v) ? strlen(v->valuestring) : 0;
    if (!cJSON_IsString(v) || len >= RR_NAME_MAX || (!allow_empty && len == 0)) {
        snprintf(what, sizeof what, "a %sstring of at most %d characters",
                 allow_empty ? "" : "non-empty ", RR_NAME_MAX - 1);
        return fail_got(ld, v, join(p, path, key), what);
    }
    memcpy(out, v->valuestring, len + 1);
    return 0;
}

static int check_enum(struct ld *ld, const cJSON *v, const char *path, const char *const *names,
                      int *out)
{
    char list[256], got[80];
    if (cJSON_IsString(v))
        for (int i = 0; names[i]; i++)
            if (!strcmp(names[i], v->valuestring)) {
                *out = i;
                return 0;
            }
    list_names(list, sizeof list, names);
    describe(v, got, sizeof got);
    const char *near = cJSON_IsString(v) ? closest(v->valuestring, names) : NULL;
    if (near)
        return fail(ld, v, path, "expected one of %s, got %s; did you mean \"%s\"?", list, got, near);
    return fail(ld, v, path, "expected one of %s, got %s", list, got);
}

/* An enum by name; `out` points at an enum object (all enums here are int-sized). */
static int get_enum(struct ld *ld, const cJSON *obj, const char *path, const char *key,
                    const char *const *names, int *out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    return v ? check_enum(ld, v, join(p, path, key), names, out) : 0;
}

#define GET_ENUM(ld, obj, path, key, names, field)                                   \
    do {                                                                             \
        int v_ = (int)(field);                                                       \
        if (get_enum(ld, obj, path, key, names, &v_) < 0)                            \
            return -1;                                                               \
        (field) = v_;                                                                \
    } while (0)

/* Two numbers, each in r: [a, b]. */
static int check_pair(struct ld *ld, const cJSON *v, const char *path, struct range r, double out[2])
{
    char what[128], rng[96];
    const cJSON *a = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, 0) : NULL;
    const cJSON *b = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, 1) : NULL;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 || !cJSON_IsNumber(a) || !cJSON_IsNumber(b)
        || !in_range(a->valuedouble, r) || !in_range(b->valuedouble, r)) {
        describe_range(rng, sizeof rng, "numbers", r);
        snprintf(what, sizeof what, "an array of two %s", rng);
        return fail_got(ld, v, path, what);
    }
    out[0] = a->valuedouble;
    out[1] = b->valuedouble;
    return 0;
}

static int get_pair(struct ld *ld, const cJSON *obj, const char *path, const char *key, struct range r,
                    double out[2])
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    return v ? check_pair(ld, v, join(p, path, key), r, out) : 0;
}

/* A number or [min, max] with min <= max, each in r; a number n is [n, n]. */
static int get_span(struct ld *ld, const cJSON *obj, const char *path, const char *key, struct range r,
                    double out[2])
{
    char p[PATH_LEN], rng[96], what[160];
    const cJSON *v = member(obj, key);
    if (!v)
        return 0;
    join(p, path, key);
    if (cJSON_IsNumber(v) && in_range(v->valuedouble, r)) {
        out[0] = out[1] = v->valuedouble;
        return 0;
    }
    describe_range(rng, sizeof rng, "a number", r);
    snprintf(what, sizeof what, "%s or [min, max] of such numbers with min <= max", rng);
    if (!cJSON_IsArray(v))
        return fail_got(ld, v, p, what);
    double pair[2];
    if (check_pair(ld, v, p, r, pair) < 0)
        return -1;
    if (pair[0] > pair[1])
        return fail_got(ld, v, p, what);
    out[0] = pair[0];
    out[1] = pair[1];
    return 0;
}

/* An object-valued key: *out is NULL when absent. */
static int get_object(struct ld *ld, const cJSON *obj, const char *path, const char *key,
                      const cJSON **out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    *out = NULL;
    if (!v)
        return 0;
    if (!cJSON_IsObject(v))
        return fail_got(ld, v, join(p, path, key), "an object");
    *out = v;
    return 0;
}

/* An array of objects: *n its length (0 when absent), *out the array node. */
static int get_list(struct ld *ld, const cJSON *obj, const char *key, const cJSON **out, int *n)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    *out = NULL;
    *n = 0;
    if (!v)
        return 0;
    if (!cJSON_IsArray(v))
        return fail_got(ld, v, key, "an array");
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++)
        if (!cJSON_IsObject(c))
            return fail_got(ld, c, join_index(p, key, i), "an object");
    *out = v;
    *n = i;
    return 0;
}

static int require(struct ld *ld, const cJSON *obj, const char *path, const char *key)
{
    if (member(obj, key))
        return 0;
    return fail(ld, obj, path, "missing required key \"%s\"", key);
}

/* "a" and "b" are alternatives: refuses both, naming them at the later one. */
static int exclusive(struct ld *ld, const cJSON *obj, const char *path, const char *a, const char *b)
{
    const cJSON *x = member(obj, a), *y = member(obj, b);
    if (!x || !y)
        return 0;
    char pa[PATH_LEN], pb[PATH_LEN];
    join(pa, path, a);
    join(pb, path, b);
    /* Report at whichever of the two comes later in the object. */
    const cJSON *later = y;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c == x || c == y) {
            later = c == x ? y : x;
            break;
        }
    return fail_key(ld, later, later == x ? pa : pb, "give either %s or %s, not both", pa, pb);
}

/* Records where the value at `path` (node) came from (struct scene_origin). */
static int note(struct ld *ld, const cJSON *node, const char *path)
{
    struct scene *sc = ld->sc;
    if ((sc->n_origins & (sc->n_origins - 1)) == 0) {   /* 0, 1, 2, 4...: double the room */
        size_t room = sc->n_origins ? 2 * (size_t)sc->n_origins : 1;
        void *grown = realloc(sc->origins, room * sizeof *sc->origins);
        if (!grown)
            return oom(ld);
        sc->origins = grown;
    }
    struct scene_origin *o = &sc->origins[sc->n_origins];
    struct sj_pos val, key;
    bool in_file = sj_posmap_find(ld->pm, node, &val, &key);
    *o = (struct scene_origin){ .key = strdup(path), .line = in_file ? val.line : 0,
                                .col = in_file ? val.col : 0 };
    if (!o->key)
        return oom(ld);
    sc->n_origins++;
    return 0;
}

/* A file the scene names: resolved against the scene's folder (absolute
 * paths stay) and checked to be readable now, so that a typo is reported
 * with the scene's line rather than late in the run. Its content is read by
 * image.c. *out is malloc'd. */
static int get_file(struct ld *ld, const cJSON *obj, const char *path, const char *key, char **out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    if (!v)
        return 0;
    join(p, path, key);
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return fail_got(ld, v, p, "a file name");
    const char *given = v->valuestring;
    size_t len = strlen(ld->dir) + strlen(given) + 2;
    char *full = malloc(len);
    if (!full)
        return oom(ld);
    if (given[0] == '/' || !ld->dir[0])
        snprintf(full, len, "%s", given);
    else
        snprintf(full, len, "%s/%s", ld->dir, given);
    struct stat st;
    FILE *f = NULL;
    if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
        errno = EISDIR;
    else if (stat(full, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* A FIFO would hang the loader, a device feed it forever. */
        free(full);
        return fail(ld, v, p, "\"%s\" is not a regular file", given);
    } else if ((f = fopen(full, "rb")))
        fclose(f);
    if (!f) {
        int err = errno;
        free(full);
        return fail(ld, v, p, "cannot open \"%s\": %s", given, strerror(err));
    }
    free(*out);
    *out = full;
    return note(ld, v, p);   /* for a PNG that does not decode (scene_locate) */
}

/* A moment given as "time" (seconds >= 0) or "frame" (index >= 0), not both. */
static int get_moment(struct ld *ld, const cJSON *obj, const char *path, struct moment *m)
{
    char p[PATH_LEN];
    long long frame;
    if (exclusive(ld, obj, path, "time", "frame") < 0)
        return -1;
    const cJSON *f = member(obj, "frame");
    if (f) {
        if (check_int(ld, f, join(p, path, "frame"), 0, INT_MAX, &frame) < 0)
            return -1;
        m->is_frame = true;
        m->frame = (long)frame;
        return 0;
    }
    m->is_frame = false;
    return get_number(ld, obj, path, "time", NONNEG, &m->time);
}

/* ---- the sections, in the contract's order ------------------------------------------------ */

static int load_grid(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "width", "height", "cell_size", NULL };
    struct scene *sc = ld->sc;
    const cJSON *o;
    if (get_object(ld, root, "", "grid", &o) < 0)
        return -1;
    if (!o)
        return 0;
    if (check_keys(ld, o, "grid", keys, NULL) < 0
        || get_int(ld, o, "grid", "width", 1, 16384, &sc->grid.width) < 0
        || get_int(ld, o, "grid", "height", 1, 16384, &sc->grid.height) < 0   /* so <= 2^28 cells */
        || get_number(ld, o, "grid", "cell_size", POSITIVE, &sc->grid.cell_size) < 0)
        return -1;
    return 0;
}

static int load_time(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "fps", "frames", "steps_per_frame", NULL };
    /* At least a frame every 1000 s: a video muxer keeps each frame's duration
     * in 32 bits of its time base (mp4: 16384 per second at 1e-6 fps overflows). */
    static const struct range fps = { 0.001, 1000, false, false };
    struct scene *sc = ld->sc;
    const cJSON *o;
    long long spf;
    if (get_object(ld, root, "", "time", &o) < 0)
        return -1;
    if (!o)
        return 0;
    if (check_keys(ld, o, "time", keys, NULL) < 0
        || get_number(ld, o, "time", "fps", fps, &sc->time.fps) < 0
        || get_int(ld, o, "time", "frames", 1, 10000000, &sc->time.frames) < 0)
        return -1;
    const cJSON *v = member(o, "steps_per_frame");
    if (!v)
        return 0;
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "auto")) {
        /* The solver raises it to the smallest stable count (wave). */
        sc->time.steps_auto = true;
        sc->time.steps_per_frame = 1;
        return 0;
    }
    if (!cJSON_IsNumber(v))
        return fail_got(ld, v, "time.steps_per_frame", "an integer in [1, 1000] or \"auto\"");
    if (check_int(ld, v, "time.steps_per_frame", 1, 1000, &spf) < 0)
        return -1;
    sc->time.steps_per_frame = (int)spf;
    sc->time.steps_auto = false;
    return 0;
}

/* The solvers that use each solver key; "type" and "half_life" (not listed)
 * apply to all. A key given for a solver that does not use it is refused,
 * and --print-scene writes only the keys of the scene's solver. */
#define BY(t) (1u << (t))
static const struct {
    const char *key;
    unsigned by;
} solver_key_use[] = {
    { "damping", BY(SOLVER_ELIAS) | BY(SOLVER_FLOW) | BY(SOLVER_SPRING) },
    { "damping_shift", BY(SOLVER_ELIAS) | BY(SOLVER_FLOW) | BY(SOLVER_SPRING) },
    { "neighbors", BY(SOLVER_ELIAS) },
    { "flow", BY(SOLVER_FLOW) },
    { "blend", BY(SOLVER_SPRING) },
    { "passes", BY(SOLVER_SPRING) },
    { "speed", BY(SOLVER_WAVE) },
    { "speed_map", BY(SOLVER_WAVE) },
    { "speed_range", BY(SOLVER_WAVE) },
    { "decay", BY(SOLVER_WAVE) },
    { "gravity", BY(SOLVER_SPECTRAL) },
    { "surface_tension", BY(SOLVER_SPECTRAL) },
    { "density", BY(SOLVER_SPECTRAL) },
    { "depth", BY(SOLVER_SPECTRAL) },
    { "viscosity", BY(SOLVER_SPECTRAL) },
};
#define N_SOLVER_KEYS (sizeof solver_key_use / sizeof solver_key_use[0])

/* The solvers without the per-step damping factors, and their own rate. */
static const char *const own_damping[] = { [SOLVER_WAVE] = "decay", [SOLVER_SPECTRAL] = "viscosity" };

/* The solvers that use `key` (a bit per type). */
static unsigned solver_key_users(const char *key)
{
    for (size_t k = 0; k < N_SOLVER_KEYS; k++)
        if (!strcmp(solver_key_use[k].key, key))
            return solver_key_use[k].by;
    return ~0u;
}

static bool solver_uses(enum solver_type t, const char *key) { return solver_key_users(key) & BY(t); }

/* Refuses the first key of the solver object o that solver t does not use,
 * naming t and the keys that apply instead. */
static int refuse_unused_solver_keys(struct ld *ld, const cJSON *o, enum solver_type t)
{
    for (const cJSON *m = o->child; m; m = m->next) {
        unsigned users = solver_key_users(m->string);
        if (users & BY(t))
            continue;
        char p[PATH_LEN], got[80], whose[96] = "", keys[320] = "solver.half_life";
        size_t at = strlen(keys);
        join(p, "solver", m->string);
        describe(m, got, sizeof got);
        if (own_damping[t] && (!strcmp(m->string, "damping") || !strcmp(m->string, "damping_shift")))
            return fail_key(ld, m, p,
                            "not used by the %s solver (a per-step factor); use solver.half_life or solver.%s, got %s",
                            scene_solver_name(t), own_damping[t], got);
        for (int u = 0, n = 0; u <= SOLVER_SPECTRAL; u++)
            if (users & BY(u))
                snprintf(whose + strlen(whose), sizeof whose - strlen(whose), "%s%s", n++ ? ", " : "",
                         scene_solver_name((enum solver_type)u));
        for (size_t k = 0; k < N_SOLVER_KEYS; k++)
            if (solver_key_use[k].by & BY(t))
                at += (size_t)snprintf(keys + at, at < sizeof keys ? sizeof keys - at : 0, ", solver.%s",
                                       solver_key_use[k].key);
        return fail_key(ld, m, p, "not used by the %s solver (a key of %s); %s takes %s, got %s",
                        scene_solver_name(t), whose, scene_solver_name(t), keys, got);
    }
    return 0;
}

static int load_solver(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = {
        "type", "damping", "damping_shift", "half_life", "neighbors", "flow", "blend", "passes",
        "speed", "speed_map", "speed_range", "decay", "gravity", "surface_tension", "density",
        "depth", "viscosity", NULL
    };
    static const struct range damping = { 0, 1, true, false };
    struct solver_config *s = &ld->sc->solver;
    const cJSON *o;
    if (get_object(ld, root, "", "solver", &o) < 0)
        return -1;
    if (!o)
        return 0;
    if (check_keys(ld, o, "solver", keys, NULL) < 0
        || exclusive(ld, o, "solver", "damping", "damping_shift") < 0
        || exclusive(ld, o, "solver", "damping", "half_life") < 0
        || exclusive(ld, o, "solver", "damping_shift", "half_life") < 0)
        return -1;
    GET_ENUM(ld, o, "solver", "type", solver_names, s->type);
    if (refuse_unused_solver_keys(ld, o, s->type) < 0)
        return -1;
    int neighbors = s->neighbors;
    if (get_number(ld, o, "solver", "damping", damping, &s->damping) < 0
        || get_int(ld, o, "solver", "damping_shift", 1, 30, &s->damping_shift) < 0
        || get_number(ld, o, "solver", "half_life", POSITIVE, &s->half_life) < 0
        || get_int(ld, o, "solver", "neighbors", 0, 64, &neighbors) < 0
        || get_number(ld, o, "solver", "flow", UNIT, &s->flow) < 0
        || get_number(ld, o, "solver", "blend", UNIT, &s->blend) < 0
        || get_int(ld, o, "solver", "passes", 0, 64, &s->passes) < 0
        || get_number(ld, o, "solver", "speed", POSITIVE, &s->speed) < 0
        || get_pair(ld, o, "solver", "speed_range", POSITIVE, s->speed_range) < 0
        || get_number(ld, o, "solver", "decay", NONNEG, &s->decay) < 0
        || get_number(ld, o, "solver", "gravity", NONNEG, &s->gravity) < 0
        || get_number(ld, o, "solver", "surface_tension", NONNEG, &s->surface_tension) < 0
        || get_number(ld, o, "solver", "density", POSITIVE, &s->density) < 0
        || get_number(ld, o, "solver", "depth", NONNEG, &s->depth) < 0
        || get_number(ld, o, "solver", "viscosity", NONNEG, &s->viscosity) < 0)
        return -1;
    if (neighbors != 4 && neighbors != 8)
        return fail_got(ld, member(o, "neighbors"), "solver.neighbors", "4 or 8");
    s->neighbors = neighbors;
    /* speed_map: null (as --print-scene writes it) means none. */
    const cJSON *map = member(o, "speed_map");
    if (map && !cJSON_IsNull(map) && get_file(ld, o, "solver", "speed_map", &s->speed_map) < 0)
        return -1;
    return 0;
}

static int check_wrap_pairs(struct ld *ld, const cJSON *node)
{
    const enum edge_kind *b = ld->sc->boundary;
    static const char *const side[] = { "left", "right", "top", "bottom" };
    for (int s = 0; s < 4; s += 2)
        if ((b[s] == EDGE_WRAP) != (b[s + 1] == EDGE_WRAP))
            return fail(ld, node, "boundary",
                        "\"wrap\" must be set on both %s and %s (%s is \"%s\", %s is \"%s\")", side[s],
                        side[s + 1], side[s], edge_names[b[s]], side[s + 1], edge_names[b[s + 1]]);
    return 0;
}

static int load_boundary(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "left", "right", "top", "bottom", "absorb_width", NULL };
    struct scene *sc = ld->sc;
    const cJSON *v = member(root, "boundary");
    if (get_int(ld, root, "", "absorb_width", 1, 16384, &sc->absorb_width) < 0)
        return -1;
    if (!v)
        return 0;
    if (cJSON_IsString(v)) {
        int k;
        if (check_enum(ld, v, "boundary", edge_names, &k) < 0)
            return -1;
        for (int s = 0; s < 4; s++)
            sc->boundary[s] = (enum edge_kind)k;
        return 0;
    }
    if (!cJSON_IsObject(v))
        return fail_got(ld, v, "boundary", "one of \"fixed\", \"clamp\", \"wrap\", \"absorb\" or an object");
    if (check_keys(ld, v, "boundary", keys, NULL) < 0)
        return -1;
    const cJSON *aw = member(v, "absorb_width");
    if (aw && member(root, "absorb_width"))
        return fail_key(ld, aw, "boundary.absorb_width",
                        "give either absorb_width or boundary.absorb_width, not both");
    GET_ENUM(ld, v, "boundary", "left", edge_names, sc->boundary[EDGE_LEFT]);
    GET_ENUM(ld, v, "boundary", "right", edge_names, sc->boundary[EDGE_RIGHT]);
    GET_ENUM(ld, v, "boundary", "top", edge_names, sc->boundary[EDGE_TOP]);
    GET_ENUM(ld, v, "boundary", "bottom", edge_names, sc->boundary[EDGE_BOTTOM]);
    if (get_int(ld, v, "boundary", "absorb_width", 1, 16384, &sc->absorb_width) < 0)
        return -1;
    return check_wrap_pairs(ld, v);
}

/* Allocates n zeroed elements (at least one, so that NULL means failure). */
static void *alloc_list(struct ld *ld, int n, size_t size)
{
    void *p = calloc(n > 0 ? (size_t)n : 1, size);
    if (!p)
        oom(ld);
    return p;
}

static double centre_x(const struct scene *sc) { return (sc->grid.width - 1) / 2.0; }
static double centre_y(const struct scene *sc) { return (sc->grid.height - 1) / 2.0; }
static double video_end(const struct scene *sc) { return sc->time.frames / sc->time.fps; }

/* Distance from point p to the box [x0, x1] x [y0, y1] (0 inside). */
static double box_distance(double px, double py, const double box[4])
{
    double dx = fmax(fmax(box[0] - px, px - box[1]), 0), dy = fmax(fmax(box[2] - py, py - box[3]), 0);
    return hypot(dx, dy);
}

/* Distance from point p to the segment a..b. */
static double segment_distance(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? fmin(fmax(((px - ax) * dx + (py - ay) * dy) / len2, 0), 1) : 0;
    return hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/* Whether the segment a..b, widened by `reach`, misses every cell: it stays
 * farther than reach from the grid's area, the W x H unit squares centred on
 * the cells ([-0.5, W - 0.5] x [-0.5, H - 0.5]). A source that changes some
 * cell is never refused; one within half a cell of the edge may touch none. */
static bool misses_grid(const struct scene *sc, double ax, double ay, double bx, double by, double reach)
{
    const double box[4] = { -0.5, sc->grid.width - 0.5, -0.5, sc->grid.height - 0.5 };
    /* Liang-Barsky: does the segment cross the box? */
    double t0 = 0, t1 = 1, d[2] = { bx - ax, by - ay }, a[2] = { ax, ay };
    bool crosses = true;
    for (int k = 0; k < 2 && crosses; k++) {
        double lo = box[2 * k] - a[k], hi = box[2 * k + 1] - a[k];
        if (d[k] == 0) {
            crosses = lo <= 0 && hi >= 0;
            continue;
        }
        double u = lo / d[k], v = hi / d[k];
        t0 = fmax(t0, fmin(u, v));
        t1 = fmin(t1, fmax(u, v));
        crosses = t0 <= t1;
    }
    if (crosses)
        return false;
    /* Apart: the nearest pair is an end of the segment or a corner of the box. */
    double dist = fmin(box_distance(ax, ay, box), box_distance(bx, by, box));
    for (int c = 0; c < 4; c++)
        dist = fmin(dist, segment_distance(box[c & 1], box[2 + (c >> 1)], ax, ay, bx, by));
    return dist > reach;
}

/* Refuses the source at `path` (node o) whose every segment misses the grid. */
static int check_inside(struct ld *ld, const cJSON *o, const char *path, const double (*pts)[2], int n,
                        double radius, enum shape_kind shape)
{
    const struct scene *sc = ld->sc;
    double reach = sources_reach(shape, radius);
    for (int i = 0; i < n; i++) {
        int j = i + 1 < n ? i + 1 : i;
        if (!misses_grid(sc, pts[i][0], pts[i][1], pts[j][0], pts[j][1], reach))
            return 0;
    }
    char where[160], v[4][32], r[32];
    fmt_num(r, sizeof r, radius);
    for (int k = 0; k < 4 && k < 2 * n; k++)
        fmt_num(v[k], sizeof v[k], pts[k / 2][k % 2]);
    if (n == 1)
        snprintf(where, sizeof where, "x %s, y %s", v[0], v[1]);
    else if (n == 2 && !member(o, "path"))
        snprintf(where, sizeof where, "from [%s, %s] to [%s, %s]", v[0], v[1], v[2], v[3]);
    else
        snprintf(where, sizeof where, "the path");
    return fail(ld, o, path, "%s with radius %s is wholly outside the %d x %d grid", where, r, sc->grid.width,
                sc->grid.height);
}

static int load_drops(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "time", "frame", "x", "y", "radius", "amplitude", "shape",
                                        "mode", NULL };
    struct scene *sc = ld->sc;
    const cJSON *list;
    char p[PATH_LEN];
    int n;
    if (get_list(ld, root, "drops", &list, &n) < 0 || !(sc->drops = alloc_list(ld, n, sizeof *sc->drops)))
        return -1;
    int i = 0;
    for (const cJSON *o = list ? list->child : NULL; o; o = o->next, i++) {
        struct drop *d = &sc->drops[i];
        *d = (struct drop){ .x = centre_x(sc), .y = centre_y(sc), .radius = 3, .amplitude = -1,
                            .shape = SHAPE_DISC, .mode = DROP_ADD };
        sc->n_drops = i + 1;
        join_index(p, "drops", i);
        if (check_keys(ld, o, p, keys, NULL) < 0 || get_moment(ld, o, p, &d->at) < 0
            || get_number(ld, o, p, "x", ANY, &d->x) < 0 || get_number(ld, o, p, "y", ANY, &d->y) < 0
            || get_number(ld, o, p, "radius", NONNEG, &d->radius) < 0
            || get_number(ld, o, p, "amplitude", ANY, &d->amplitude) < 0)
            return -1;
        GET_ENUM(ld, o, p, "shape", shape_names, d->shape);
        GET_ENUM(ld, o, p, "mode", mode_names, d->mode);
        if (check_inside(ld, o, p, &(const double[2]){ d->x, d->y }, 1, d->radius, d->shape) < 0)
            return -1;
    }
    return 0;
}

/* start >= 0 and end >= start; end defaults to the end of the video (or to
 * start, for a source that begins after it, so that the printed scene loads). */
static int get_interval(struct ld *ld, const cJSON *o, const char *path, struct moment *start,
                        struct moment *end)
{
    char p[PATH_LEN];
    *start = (struct moment){ 0 };
    if (get_number(ld, o, path, "start", NONNEG, &start->time) < 0)
        return -1;
    double last = video_end(ld->sc);
    *end = (struct moment){ .time = start->time > last ? start->time : last };
    const cJSON *e = member(o, "end");
    if (!e)
        return 0;
    struct range r = { start->time, HUGE_VAL, false, false };
    if (check_number(ld, e, join(p, path, "end"), r, &end->time) < 0)
        return -1;
    return 0;
}

static int load_rain(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "rate", "start", "end", "radius", "amplitude", "seed", "shape",
                                        NULL };
    struct rain *r = &ld->sc->rain;
    const cJSON *v = member(root, "rain"), *o;
    long long seed;
    if (v && cJSON_IsNull(v))    /* as --print-scene writes a scene without rain */
        return 0;
    if (get_object(ld, root, "", "rain", &o) < 0)
        return -1;
    if (!o)
        return 0;
    r->enabled = true;
    if (check_keys(ld, o, "rain", keys, NULL) < 0
        || get_number(ld, o, "rain", "rate", NONNEG, &r->rate) < 0
        || get_interval(ld, o, "rain", &r->start, &r->end) < 0
        || get_span(ld, o, "rain", "radius", NONNEG, r->radius) < 0
        || get_span(ld, o, "rain", "amplitude", ANY, r->amplitude) < 0)
        return -1;
    const cJSON *s = member(o, "seed");
    if (s) {
        if (check_int(ld, s, "rain.seed", 0, SEED_MAX, &seed) < 0)
            return -1;
        r->seed = (unsigned long long)seed;
    }
    GET_ENUM(ld, o, "rain", "shape", shape_names, r->shape);
    return 0;
}

static int load_oscillators(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "x", "y", "from", "to", "radius", "amplitude", "frequency",
                                        "phase", "start", "end", "shape", NULL };
    struct scene *sc = ld->sc;
    const cJSON *list;
    char p[PATH_LEN];
    int n;
    if (get_list(ld, root, "oscillators", &list, &n) < 0
        || !(sc->oscillators = alloc_list(ld, n, sizeof *sc->oscillators)))
        return -1;
    int i = 0;
    for (const cJSON *o = list ? list->child : NULL; o; o = o->next, i++) {
        struct oscillator *s = &sc->oscillators[i];
        *s = (struct oscillator){ .x = centre_x(sc), .y = centre_y(sc), .radius = 2, .amplitude = 0.5,
                                  .frequency = 2, .shape = SHAPE_DISC };
        sc->n_oscillators = i + 1;
        join_index(p, "oscillators", i);
        if (check_keys(ld, o, p, keys, NULL) < 0)
            return -1;
        bool point = member(o, "x") || member(o, "y");
        bool line = member(o, "from") || member(o, "to");
        if (point && line) {
            const cJSON *k = member(o, "from") ? member(o, "from") : member(o, "to");
            char pk[PATH_LEN];
            return fail_key(ld, k, join(pk, p, k->string),
                            "give either x and y (a point source) or from and to (a line source), not both");
        }
        if (line) {
            s->is_line = true;
            if (require(ld, o, p, "from") < 0 || require(ld, o, p, "to") < 0
                || get_pair(ld, o, p, "from", ANY, s->from) < 0 || get_pair(ld, o, p, "to", ANY, s->to) < 0)
                return -1;
        }
        if (get_number(ld, o, p, "x", ANY, &s->x) < 0 || get_number(ld, o, p, "y", ANY, &s->y) < 0
            || get_number(ld, o, p, "radius", NONNEG, &s->radius) < 0
            || get_number(ld, o, p, "amplitude", ANY, &s->amplitude) < 0
            || get_number(ld, o, p, "frequency", POSITIVE, &s->frequency) < 0
            || get_number(ld, o, p, "phase", ANY, &s->phase) < 0
            || get_interval(ld, o, p, &s->start, &s->end) < 0)
            return -1;
        GET_ENUM(ld, o, p, "shape", shape_names, s->shape);
        const double ends[2][2] = { { s->from[0], s->from[1] }, { s->to[0], s->to[1] } };
        if (check_inside(ld, o, p, s->is_line ? ends : &(const double[2]){ s->x, s->y }, s->is_line ? 2 : 1,
                         s->radius, s->shape) < 0)
            return -1;
    }
    return 0;
}

static int load_path(struct ld *ld, const cJSON *o, const char *path, struct mover *m)
{
    char p[PATH_LEN], q[PATH_LEN];
    const cJSON *v = member(o, "path");
    join(p, path, "path");
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1)
        return fail_got(ld, v, p, "an array of at least one [time, x, y] point");
    int n = cJSON_GetArraySize(v), i = 0;
    if (!(m->path = alloc_list(ld, n, sizeof *m->path)))
        return -1;
    for (const cJSON *pt = v->child; pt; pt = pt->next, i++) {
        join_index(q, p, i);
        const cJSON *c[3];
        for (int k = 0; k < 3; k++)
            c[k] = cJSON_GetArrayItem(pt, k);
        if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 3 || !cJSON_IsNumber(c[0])
            || !cJSON_IsNumber(c[1]) || !cJSON_IsNumber(c[2]) || !isfinite(c[0]->valuedouble)
            || !isfinite(c[1]->valuedouble) || !isfinite(c[2]->valuedouble))
            return fail_got(ld, pt, q, "[time, x, y] (three numbers)");
        m->path[i] = (struct path_point){ c[0]->valuedouble, c[1]->valuedouble, c[2]->valuedouble };
        if (i > 0 && !(m->path[i].time > m->path[i - 1].time)) {
            char prev[32], now[32];
            fmt_num(prev, sizeof prev, m->path[i - 1].time);
            fmt_num(now, sizeof now, m->path[i].time);
            return fail(ld, c[0], q, "times must increase: expected a time > %s, got %s", prev, now);
        }
        m->n_path = i + 1;
    }
    return 0;
}

static int load_movers(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "path", "radius", "amplitude", "shape", NULL };
    struct scene *sc = ld->sc;
    const cJSON *list;
    char p[PATH_LEN];
    int n;
    if (get_list(ld, root, "movers", &list, &n) < 0 || !(sc->movers = alloc_list(ld, n, sizeof *sc->movers)))
        return -1;
    int i = 0;
    for (const cJSON *o = list ? list->child : NULL; o; o = o->next, i++) {
        struct mover *m = &sc->movers[i];
        *m = (struct mover){ .radius = 3, .amplitude = -0.2, .shape = SHAPE_DISC };
        sc->n_movers = i + 1;
        join_index(p, "movers", i);
        if (check_keys(ld, o, p, keys, NULL) < 0 || require(ld, o, p, "path") < 0
            || load_path(ld, o, p, m) < 0 || get_number(ld, o, p, "radius", NONNEG, &m->radius) < 0
            || get_number(ld, o, p, "amplitude", ANY, &m->amplitude) < 0)
            return -1;
        GET_ENUM(ld, o, p, "shape", shape_names, m->shape);
        double (*pts)[2] = alloc_list(ld, m->n_path, sizeof *pts);
        if (!pts)
            return -1;
        for (int k = 0; k < m->n_path; k++) {
            pts[k][0] = m->path[k].x;
            pts[k][1] = m->path[k].y;
        }
        int rc = check_inside(ld, o, p, (const double(*)[2])pts, m->n_path, m->radius, m->shape);
        free(pts);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* The "type" of a list element that has one: required, one of names. */
static int get_type(struct ld *ld, const cJSON *o, const char *path, const char *const *names, int *out)
{
    char list[256];
    if (!member(o, "type")) {
        list_names(list, sizeof list, names);
        return fail(ld, o, path, "missing required key \"type\" (one of %s)", list);
    }
    return get_enum(ld, o, path, "type", names, out);
}

static int load_initial(struct ld *ld, const cJSON *root)
{
    static const char *const image_keys[] = { "type", "path", "scale", NULL };
    static const char *const wave_keys[] = { "type", "wavelength", "angle", "amplitude", NULL };
    struct scene *sc = ld->sc;
    const cJSON *list;
    char p[PATH_LEN];
    int n, type;
    if (get_list(ld, root, "initial", &list, &n) < 0
        || !(sc->initial = alloc_list(ld, n, sizeof *sc->initial)))
        return -1;
    int i = 0;
    for (const cJSON *o = list ? list->child : NULL; o; o = o->next, i++) {
        struct initial *in = &sc->initial[i];
        *in = (struct initial){ .scale = 1, .wavelength = 20, .amplitude = 0.5 };
        sc->n_initial = i + 1;
        join_index(p, "initial", i);
        if (get_type(ld, o, p, initial_names, &type) < 0)
            return -1;
        in->type = (enum initial_type)type;
        if (in->type == INITIAL_IMAGE) {
            if (check_keys(ld, o, p, image_keys, "image") < 0 || require(ld, o, p, "path") < 0
                || get_file(ld, o, p, "path", &in->path) < 0
                || get_number(ld, o, p, "scale", ANY, &in->scale) < 0)
                return -1;
        } else if (check_keys(ld, o, p, wave_keys, "wave") < 0
                   || get_number(ld, o, p, "wavelength", POSITIVE, &in->wavelength) < 0
                   || get_number(ld, o, p, "angle", ANY, &in->angle) < 0
                   || get_number(ld, o, p, "amplitude", ANY, &in->amplitude) < 0) {
            return -1;
        }
    }
    return 0;
}

static int load_probes(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "name", "x", "y", NULL };
    struct scene *sc = ld->sc;
    const cJSON *list;
    char p[PATH_LEN], q[PATH_LEN];
    int n;
    if (get_list(ld, root, "probes", &list, &n) < 0 || !(sc->probes = alloc_list(ld, n, sizeof *sc->probes)))
        return -1;
    /* Cell centres are at integer coordinates: inside means [0, size - 1]. */
    struct range rx = { 0, sc->grid.width - 1, false, false };
    struct range ry = { 0, sc->grid.height - 1, false, false };
    int i = 0;
    for (const cJSON *o = list ? list->child : NULL; o; o = o->next, i++) {
        struct probe *pr = &sc->probes[i];
        pr->x = centre_x(sc);
        pr->y = centre_y(sc);
        snprintf(pr->name, sizeof pr->name, "p%d", i);
        sc->n_probes = i + 1;
        join_index(p, "probes", i);
        if (check_keys(ld, o, p, keys, NULL) < 0 || get_name(ld, o, p, "name", false, pr->name) < 0
            || get_number(ld, o, p, "x", rx, &pr->x) < 0 || get_number(ld, o, p, "y", ry, &pr->y) < 0)
            return -1;
        /* Names head the columns of --probes: two equal ones would be ambiguous. */
        for (int j = 0; j < i; j++)
            if (!strcmp(sc->probes[j].name, pr->name)) {
                const cJSON *at = member(o, "name") ? member(o, "name") : o;
                return fail(ld, at, join(q, p, "name"), "\"%s\" is already the name of probes.%d",
                            pr->name, j);
            }
    }
    return 0;
}

static int load_points(struct ld *ld, const cJSON *o, const char *path, struct obstacle *ob)
{
    char p[PATH_LEN], q[PATH_LEN];
    const cJSON *v = member(o, "points");
    join(p, path, "points");
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 3)
        return fail_got(ld, v, p, "an array of at least 3 [x, y] points");
    int n = cJSON_GetArraySize(v), i = 0;
    if (!(ob->points = alloc_list(ld, n, sizeof *ob->points)))
        return -1;
    for (const cJSON *pt = v->child; pt; pt = pt->next, i++) {
        if (check_pair(ld, pt, join_index(q, p, i), ANY, ob->points[i]) < 0)
            return -1;
        ob->n_points = i + 1;
    }
    return 0;
}

static int load_obstacle(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob)
{
    static const char *const keys[][7] = {
        [OBST_RECT] = { "type", "x", "y", "width", "height", NULL },
        [OBST_CIRCLE] = { "type", "x", "y", "radius", NULL },
        [OBST_POLYGON] = { "type", "points", NULL },
        [OBST_LINE] = { "type", "from", "to", "width", NULL },
        [OBST_MASK] = { "type", "path", "threshold", "invert", NULL },
    };
    int type;
    if (get_type(ld, o, p, obstacle_names, &type) < 0)
        return -1;
    ob->type = (enum obstacle_type)type;
    if (check_keys(ld, o, p, keys[type], obstacle_names[type]) < 0)
        return -1;
    switch (ob->type) {
    case OBST_RECT:
        return require(ld, o, p, "x") < 0 || require(ld, o, p, "y") < 0 || require(ld, o, p, "width") < 0
                   || require(ld, o, p, "height") < 0 || get_number(ld, o, p, "x", ANY, &ob->x) < 0
                   || get_number(ld, o, p, "y", ANY, &ob->y) < 0
                   || get_number(ld, o, p, "width", POSITIVE, &ob->width) < 0
                   || get_number(ld, o, p, "height", POSITIVE, &ob->height) < 0 ? -1 : 0;
    case OBST_CIRCLE:
        return require(ld, o, p, "x") < 0 || require(ld, o, p, "y") < 0 || require(ld, o, p, "radius") < 0
                   || get_number(ld, o, p, "x", ANY, &ob->x) < 0
                   || get_number(ld, o, p, "y", ANY, &ob->y) < 0
                   || get_number(ld, o, p, "radius", POSITIVE, &ob->radius) < 0 ? -1 : 0;
    case OBST_POLYGON:
        return require(ld, o, p, "points") < 0 || load_points(ld, o, p, ob) < 0 ? -1 : 0;
    case OBST_LINE:
        ob->width = 1;
        return require(ld, o, p, "from") < 0 || require(ld, o, p, "to") < 0
                   || get_pair(ld, o, p, "from", ANY, ob->from) < 0 || get_pair(ld, o, p, "to", ANY, ob->to) < 0
                   || get_number(ld, o, p, "width", POSITIVE, &ob->width) < 0 ? -1 : 0;
    case OBST_MASK:
        ob->threshold = 0.5;
        return require(ld, o, p, "path") < 0 || get_file(ld, o, p, "path", &ob->path) < 0
                   || get_number(ld, o, p, "threshold", UNIT, &ob->threshold) < 0
                   || get_bool(ld, o, p, "invert", &ob->invert) < 0 ? -1 : 0;
    }
    return 0;
}

static int load_obstacles(struct ld *ld, const cJSON *root)
{
    struct scene *sc = ld->sc;
    const cJSON *list;
    char p[PATH_LEN];
    int n;
    if (get_list(ld, root, "obstacles", &list, &n) < 0
        || !(sc->obstacles = alloc_list(ld, n, sizeof *sc->obstacles)))
        return -1;
    int i = 0;
    for (const cJSON *o = list ? list->child : NULL; o; o = o->next, i++) {
        sc->n_obstacles = i + 1;
        if (load_obstacle(ld, o, join_index(p, "obstacles", i), &sc->obstacles[i]) < 0)
            return -1;
    }
    return 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* [r, g, b] with integers 0..255, or "#rrggbb". */
static int get_color(struct ld *ld, const cJSON *obj, const char *path, const char *key,
                     unsigned char out[3])
{
    static const char *what = "[r, g, b] with integers in [0, 255] or \"#rrggbb\"";
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    if (!v)
        return 0;
    join(p, path, key);
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        if (strlen(s) != 7 || s[0] != '#')
            return fail_got(ld, v, p, what);
        for (int k = 0; k < 3; k++) {
            int hi = hex_digit(s[1 + 2 * k]), lo = hex_digit(s[2 + 2 * k]);
            if (hi < 0 || lo < 0)
                return fail_got(ld, v, p, what);
            out[k] = (unsigned char)(hi * 16 + lo);
        }
        return 0;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return fail_got(ld, v, p, what);
    unsigned char rgb[3];
    for (int k = 0; k < 3; k++) {
        const cJSON *c = cJSON_GetArrayItem(v, k);
        double d = cJSON_IsNumber(c) ? c->valuedouble : -1;
        if (!(d >= 0 && d <= 255 && d == floor(d)))
            return fail_got(ld, v, p, what);
        rgb[k] = (unsigned char)d;
    }
    memcpy(out, rgb, 3);
    return 0;
}

/* [x, y, z]: a direction toward the light, z > 0 (so it shines from above). */
static int get_light(struct ld *ld, const cJSON *obj, const char *path, const char *key, double out[3])
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    if (!v)
        return 0;
    double d[3];
    for (int k = 0; k < 3; k++) {
        const cJSON *c = cJSON_IsArray(v) && cJSON_GetArraySize(v) == 3 ? cJSON_GetArrayItem(v, k) : NULL;
        d[k] = cJSON_IsNumber(c) ? c->valuedouble : (double)NAN;
        if (!isfinite(d[k]) || fabs(d[k]) > 1e6 || (k == 2 && !(d[k] > 0)))
            return fail_got(ld, v, join(p, path, key), "[x, y, z] with numbers in [-1e6, 1e6] and z > 0");
    }
    memcpy(out, d, sizeof d);
    return 0;
}

/* An optional PNG: a file name, or null (as --print-scene writes "none"). */
static int get_opt_file(struct ld *ld, const cJSON *obj, const char *path, const char *key, char **out)
{
    const cJSON *v = member(obj, key);
    if (v && cJSON_IsNull(v)) {
        free(*out);
        *out = NULL;
        return 0;
    }
    return get_file(ld, obj, path, key, out);
}

static int load_render(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "mode", "colormap", "range", "width", "height", "obstacle_color",
                                        "height_scale", "light", "water_color", "sky_color", "specular",
                                        "shininess", "background", "refraction", "depth", "floor",
                                        "floor_color", "reflectivity", "alpha", "normal_convention", NULL };
    static const struct range SHINE = { 1, 10000, false, false };
    static const struct range REFR = { -10000, 10000, false, false };
    static const struct range SCALE = { 0, 1e6, true, false };
    static const struct range DEPTH = { 0, 1e6, false, false };
    static const struct range SPEC = { 0, 100, false, false };
    struct render_config *r = &ld->sc->render;
    const cJSON *o;
    if (get_object(ld, root, "", "render", &o) < 0)
        return -1;
    if (!o)
        return 0;
    if (check_keys(ld, o, "render", keys, NULL) < 0)
        return -1;
    GET_ENUM(ld, o, "render", "mode", render_names, r->mode);
    GET_ENUM(ld, o, "render", "alpha", alpha_names, r->alpha);
    GET_ENUM(ld, o, "render", "normal_convention", convention_names, r->normal_convention);
    const cJSON *cmap = member(o, "colormap");
    int known_map;   /* one of the renderer's names, checked here for its position */
    if (get_name(ld, o, "render", "colormap", false, r->colormap) < 0
        || (cmap && check_enum(ld, cmap, "render.colormap", colormap_names, &known_map) < 0)
        || get_pair(ld, o, "render", "range", ANY, r->range) < 0
        || get_int(ld, o, "render", "width", 1, 16384, &r->width) < 0
        || get_int(ld, o, "render", "height", 1, 16384, &r->height) < 0
        || get_color(ld, o, "render", "obstacle_color", r->obstacle_color) < 0
        || get_number(ld, o, "render", "height_scale", SCALE, &r->height_scale) < 0
        || get_light(ld, o, "render", "light", r->light) < 0
        || get_color(ld, o, "render", "water_color", r->water_color) < 0
        || get_color(ld, o, "render", "sky_color", r->sky_color) < 0
        || get_number(ld, o, "render", "specular", SPEC, &r->specular) < 0
        || get_number(ld, o, "render", "shininess", SHINE, &r->shininess) < 0
        || get_opt_file(ld, o, "render", "background", &r->background) < 0
        || get_number(ld, o, "render", "refraction", REFR, &r->refraction) < 0
        || get_number(ld, o, "render", "depth", DEPTH, &r->depth) < 0
        || get_opt_file(ld, o, "render", "floor", &r->floor) < 0
        || get_color(ld, o, "render", "floor_color", r->floor_color) < 0
        || get_number(ld, o, "render", "reflectivity", UNIT, &r->reflectivity) < 0)
        return -1;
    if (!(r->range[0] < r->range[1]))
        return fail_got(ld, member(o, "range"), "render.range", "[low, high] with low < high");
    /* libswscale stretches a line at most about 6900 times (its step, in
     * 1/65536 of a source pixel, must stay 10 or more); refract renders at
     * the render size itself. */
    const int grid_size[2] = { ld->sc->grid.width, ld->sc->grid.height }, size[2] = { r->width, r->height };
    static const char *const side[2] = { "width", "height" };
    for (int k = 0; k < 2 && r->mode != RENDER_REFRACT; k++) {
        if ((long long)size[k] <= (long long)RR_RENDER_MAX_STRETCH * grid_size[k])
            continue;
        char p[PATH_LEN];
        const cJSON *at = member(o, side[k]);
        return fail(ld, at ? at : o, join(p, "render", side[k]),
                    "%d is more than %d times grid.%s (%d): the scaler cannot stretch that far", size[k],
                    RR_RENDER_MAX_STRETCH, side[k], grid_size[k]);
    }
    return 0;
}

static int load_output(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "path", "codec", "crf", "preset", "pix_fmt", "bit_depth",
                                        "exr_compression", NULL };
    struct output_config *out = &ld->sc->output;
    const cJSON *o;
    if (get_object(ld, root, "", "output", &o) < 0)
        return -1;
    if (!o)
        return 0;
    if (check_keys(ld, o, "output", keys, NULL) < 0
        || get_name(ld, o, "output", "codec", true, out->codec) < 0
        || get_int(ld, o, "output", "crf", -1, 63, &out->crf) < 0
        || get_name(ld, o, "output", "preset", true, out->preset) < 0
        || get_name(ld, o, "output", "pix_fmt", true, out->pix_fmt) < 0
        || get_int(ld, o, "output", "bit_depth", 8, 32, &out->bit_depth) < 0)
        return -1;
    if (out->bit_depth != 8 && out->bit_depth != 16 && out->bit_depth != 32) {
        const cJSON *v = member(o, "bit_depth");
        char got[80];
        describe(v, got, sizeof got);
        return fail(ld, v, "output.bit_depth", "expected 8 or 16, got %s (32: float, for an .exr)", got);
    }
    GET_ENUM(ld, o, "output", "exr_compression", exr_compression_names, out->exr_compression);
    /* Relative to the current directory, not to the scene: -o overrides it. */
    const cJSON *v = member(o, "path");
    if (v) {
        if (!cJSON_IsString(v) || !v->valuestring[0])
            return fail_got(ld, v, "output.path", "a file name");
        char *s = strdup(v->valuestring);
        if (!s)
            return oom(ld);
        free(out->path);
        out->path = s;
    }
    return 0;
}

/* Every default, documented in docs/scene.md. */
static int set_defaults(struct scene *sc)
{
    sc->grid.width = 256;
    sc->grid.height = 256;
    sc->grid.cell_size = 0.001;
    sc->time.fps = 30;
    sc->time.frames = 150;
    sc->time.steps_per_frame = 2;
    sc->solver = (struct solver_config){
        .type = SOLVER_ELIAS, .damping = 0.99, .neighbors = 4,
        .flow = 1.0,                           /* seed 000: full speed */
        .blend = 0.99, .passes = 2,            /* seed 002's blendFactor; an even count is stable in 2-D */
        .speed = 0.2, .speed_range = { 0.1, 0.3 },
        .gravity = 9.81, .surface_tension = 0.0728, .density = 1000, .viscosity = 1e-6,
    };
    for (int s = 0; s < 4; s++)
        sc->boundary[s] = EDGE_FIXED;
    sc->absorb_width = 16;
    sc->rain = (struct rain){ .rate = 4, .radius = { 1, 3 }, .amplitude = { -1, -0.3 }, .seed = 1,
                              .shape = SHAPE_DISC };
    sc->render.mode = RENDER_HEIGHT;
    strcpy(sc->render.colormap, "viridis");
    sc->render.range[0] = -1;
    sc->render.range[1] = 1;
    memset(sc->render.obstacle_color, 40, 3);
    sc->render.height_scale = 1.0;
    sc->render.light[0] = -1.0;    /* from the upper left, 55 degrees above the horizon */
    sc->render.light[1] = -1.0;
    sc->render.light[2] = 2.0;
    memcpy(sc->render.water_color, (unsigned char[3]){ 18, 72, 100 }, 3);
    memcpy(sc->render.sky_color, (unsigned char[3]){ 190, 215, 235 }, 3);
    sc->render.specular = 1.0;
    sc->render.shininess = 60.0;
    sc->render.reflectivity = 0.02;   /* water at normal incidence: ((1.333 - 1) / (1.333 + 1))^2 */
    sc->render.refraction = 4.0;
    sc->render.depth = 30.0;
    memcpy(sc->render.floor_color, (unsigned char[3]){ 150, 170, 160 }, 3);
    sc->output.crf = -1;
    sc->output.bit_depth = 8;
    return (sc->output.path = strdup("out/ripple.mp4")) ? 0 : -1;
}

static const char *const root_keys[] = { "grid", "time", "solver", "boundary", "absorb_width", "drops",
                                         "rain", "oscillators", "movers", "initial", "probes",
                                         "obstacles", "render", "output", "$schema", NULL };

/* Records where the top-level keys and the members of the top-level objects
 * (grid.width, output.codec) came from: what the checks after loading name,
 * besides the files, which get_file records. Not the lists' elements, so
 * that a scene of a million drops does not keep a million origins. */
static int remember(struct ld *ld, const cJSON *root)
{
    char p[PATH_LEN];
    for (const cJSON *c = root->child; c; c = c->next) {
        if (note(ld, c, c->string) < 0)
            return -1;
        if (cJSON_IsObject(c))
            for (const cJSON *m = c->child; m; m = m->next)
                if (note(ld, m, join(p, c->string, m->string)) < 0)
                    return -1;
    }
    return 0;
}

void scene_locate(const struct scene *sc, struct rr_err *e)
{
    if (!e || e->status != RR_EXIT_USAGE)
        return;
    const char *colon = strstr(e->msg, ": ");
    size_t n = colon ? (size_t)(colon - e->msg) : 0;
    if (n == 0 || n >= PATH_LEN)
        return;
    const char *name = strcmp(sc->file ? sc->file : "", "-") ? sc->file : "<stdin>";
    const struct scene_origin *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < sc->n_origins; i++) {   /* the key, or the longest enclosing one */
        const struct scene_origin *o = &sc->origins[i];
        size_t m = strlen(o->key);
        if (m <= n && m > best_len && !strncmp(e->msg, o->key, m) && (m == n || e->msg[m] == '.')) {
            best = o;
            best_len = m;
        }
    }
    if (best && best->line)
        rr_wrap(e, "%s:%d:%d: ", name, best->line, best->col);
    else if (best)
        rr_wrap(e, "--set ");
    else
        for (const char *const *k = root_keys; *k; k++) {   /* a default of the scene */
            size_t m = strlen(*k);
            if (m <= n && !strncmp(e->msg, *k, m) && (m == n || e->msg[m] == '.')) {
                rr_wrap(e, "%s: ", name);
                break;
            }
        }
}

static int load_root(struct ld *ld, const cJSON *root)
{
    struct scene *sc = ld->sc;
    if (!cJSON_IsObject(root))
        return fail_got(ld, root, "", "a JSON object at the top level");
    if (check_keys(ld, root, "", root_keys, NULL) < 0 || load_grid(ld, root) < 0)
        return -1;
    /* "$schema" names scenes/scene.schema.json for editors and validators;
     * it says nothing about the scene, so it is checked and not kept. */
    const cJSON *schema = member(root, "$schema");
    if (schema && !cJSON_IsString(schema))
        return fail_got(ld, schema, "$schema", "a string (the schema's file name or URI)");
    sc->render.width = sc->grid.width;     /* the render size follows the grid unless given */
    sc->render.height = sc->grid.height;
    /* time comes before the sources: their default ends are the end of the video */
    if (load_time(ld, root) < 0 || load_solver(ld, root) < 0 || load_boundary(ld, root) < 0
        || load_drops(ld, root) < 0 || load_rain(ld, root) < 0 || load_oscillators(ld, root) < 0
        || load_movers(ld, root) < 0 || load_initial(ld, root) < 0 || load_probes(ld, root) < 0
        || load_obstacles(ld, root) < 0 || load_render(ld, root) < 0 || load_output(ld, root) < 0
        || remember(ld, root) < 0)
        return -1;
    /* steps_per_frame not given: "auto" for a solver with a stability limit
     * (its default speed may need more than 2), 2 for the others */
    const cJSON *time = member(root, "time");
    if (!(time && member(time, "steps_per_frame")) && solver_has_step_limit(sc->solver.type))
        sc->time.steps_auto = true;
    if (sc->time.steps_auto)   /* "auto": the smallest stable count (src/solver.c) */
        sc->time.steps_per_frame = solver_auto_steps(sc);
    return 0;
}

/* ---- reading and parsing ------------------------------------------------------------------- */

/* The key path of target under node (named path, in buf of PATH_LEN). */
static bool node_path(const cJSON *node, const cJSON *target, const char *path, char *buf)
{
    if (node == target) {
        snprintf(buf, PATH_LEN, "%s", path);
        return true;
    }
    char sub[PATH_LEN];
    int i = 0;
    for (const cJSON *c = node->child; c; c = c->next, i++) {
        if (cJSON_IsArray(node))
            join_index(sub, path, i);
        else
            join(sub, path, c->string ? c->string : "");
        if (node_path(c, target, sub, buf))
            return true;
    }
    return false;
}

/* Reads all of f into a NUL-terminated buffer, at most RR_SCENE_MAX_BYTES + 1
 * bytes (so that /dev/zero ends at once). Returns NULL with errno set (EFBIG
 * when there is more). */
static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (cap - n < 2) {
            char *b = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
            cap *= 2;
        }
        size_t want = cap - n - 1;
        if (want > RR_SCENE_MAX_BYTES + 1 - n)
            want = RR_SCENE_MAX_BYTES + 1 - n;
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (n > RR_SCENE_MAX_BYTES) {
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        if (got == 0) {
            if (ferror(f)) {
                int err = errno ? errno : EIO;
                free(buf);
                errno = err;
                return NULL;
            }
            break;
        }
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* "near "...": up to 20 characters of the text at off, escaped for one line. */
static void near_text(const char *text, size_t len, size_t off, char *buf, size_t size)
{
    size_t at = 0;
    if (off >= len) {
        snprintf(buf, size, "at the end of the input");
        return;
    }
    at += (size_t)snprintf(buf, size, "near \"");
    for (size_t k = off; k < len && k < off + 20 && at + 8 < size; k++) {
        unsigned char c = (unsigned char)text[k];
        if (c < 0x20 || c == 0x7F)
            at += (size_t)snprintf(buf + at, size - at, "\\x%02x", c);
        else if (c == '"' || c == '\\')
            at += (size_t)snprintf(buf + at, size - at, "\\%c", c);
        else
            buf[at++] = (char)c;
    }
    snprintf(buf + at, size - at, "\"");
}

static int syntax_error(struct ld *ld, const char *text, size_t len, size_t off, const char *reason)
{
    char near[128];
    struct sj_pos p = sj_linecol(text, off);
    near_text(text, len, off, near, sizeof near);
    if (!strcmp(reason, "empty input"))
        return rr_fail(ld->e, RR_EXIT_USAGE, "%s:%d:%d: invalid JSON: empty input (the smallest scene is {})",
                       ld->name, p.line, p.col);
    return rr_fail(ld->e, RR_EXIT_USAGE, "%s:%d:%d: invalid JSON: %s %s", ld->name, p.line, p.col, reason,
                   near);
}

/* The folder relative paths in the scene are resolved against, as an
 * absolute path when the current directory is known, so that the printed
 * scene loads from anywhere. malloc'd; NULL when out of memory. */
static char *scene_dir(const char *path)
{
    char cwd[4096];
    const char *slash = strcmp(path, "-") ? strrchr(path, '/') : NULL;
    size_t dlen = slash ? (size_t)(slash - path) : 0;
    bool absolute = path[0] == '/';
    if (slash && dlen == 0)
        return strdup("/");
    if (absolute) {
        char *d = malloc(dlen + 1);
        if (d) {
            memcpy(d, path, dlen);
            d[dlen] = '\0';
        }
        return d;
    }
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';
    size_t size = strlen(cwd) + dlen + 2;
    char *d = malloc(size);
    if (!d)
        return NULL;
    if (!cwd[0])
        snprintf(d, size, "%.*s", (int)dlen, path);
    else if (dlen)
        snprintf(d, size, "%s%s%.*s", cwd, strcmp(cwd, "/") ? "/" : "", (int)dlen, path);
    else
        snprintf(d, size, "%s", cwd);
    return d;
}

int scene_load(struct scene *sc, const char *path, const char *const *sets, int n_sets, struct rr_err *e)
{
    struct ld ld = { .name = strcmp(path, "-") ? path : "<stdin>", .e = e, .sc = sc };
    struct sj_posmap *pm = NULL;
    cJSON *root = NULL, *graveyard = NULL;
    char *text = NULL;
    size_t len = 0, off;
    const char *reason;
    int rc = -1;

    memset(sc, 0, sizeof *sc);
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return rr_fail(e, RR_EXIT_USAGE, "%s: cannot read: %s", ld.name, strerror(errno));
    text = read_all(f, &len);
    int err = errno;
    if (f != stdin)
        fclose(f);
    if (!text) {
        if (err == ENOMEM)
            return oom(&ld);
        if (err == EFBIG)
            return rr_fail(e, RR_EXIT_USAGE, "%s: larger than %zu bytes (%zu MiB), the limit of a scene file",
                           ld.name, RR_SCENE_MAX_BYTES, RR_SCENE_MAX_BYTES >> 20);
        return rr_fail(e, RR_EXIT_USAGE, "%s: cannot read: %s", ld.name, strerror(err));
    }
    sc->text_bytes = len;
    if (budget_check_scene_text(len, ld.name, e) < 0) {   /* before cJSON's nodes are made */
        free(text);
        return -1;
    }
    if (set_defaults(sc) < 0 || !(sc->file = strdup(path)) || !(ld.dir = scene_dir(path))
        || !(graveyard = cJSON_CreateArray())) {
        oom(&ld);
        goto end;
    }

    const char *nul = memchr(text, '\0', len);
    if (nul) {
        struct sj_pos p = sj_linecol(text, (size_t)(nul - text));
        rr_fail(e, RR_EXIT_USAGE, "%s:%d:%d: invalid JSON: a NUL byte in the text", ld.name, p.line, p.col);
        goto end;
    }
    root = cJSON_ParseWithOpts(text, NULL, 1);
    if (!root) {
        /* The strict scanner says precisely what is wrong. When it finds
         * nothing, cJSON failed for want of memory (its error pointer then
         * points into valid text: make failtest found "cannot parse" here). */
        if (sj_check_syntax(text, len, &off, &reason) < 0)
            syntax_error(&ld, text, len, off, reason);
        else
            oom(&ld);
        goto end;
    }
    if (sj_posmap_build(&pm, text, len, root, &off, &reason) < 0) {
        if (reason)
            syntax_error(&ld, text, len, off, reason);
        else
            oom(&ld);
        goto end;
    }
    ld.pm = pm;
    bool nul_in_key;
    const cJSON *nul_node = sj_posmap_nul(pm, &nul_in_key);
    if (nul_node) {
        char where[PATH_LEN] = "";
        node_path(root, nul_node, "", where);
        (nul_in_key ? fail_key : fail)(&ld, nul_node, where, "\\u0000 (a NUL character) in a %s would cut it "
                                       "short: not allowed", nul_in_key ? "key" : "string");
        goto end;
    }
    if (!cJSON_IsObject(root)) {
        fail_got(&ld, root, "", "a JSON object at the top level");
        goto end;
    }
    for (int i = 0; i < n_sets; i++) {
        char msg[600];
        bool out_of_memory;
        if (sj_apply_set(root, graveyard, sets[i], msg, sizeof msg, &out_of_memory) < 0) {
            rr_fail(e, out_of_memory ? RR_EXIT_RUNTIME : RR_EXIT_USAGE, "--set %s", msg);
            goto end;
        }
    }
    rc = load_root(&ld, root);
end:
    if (rc < 0)
        scene_free(sc);
    sj_posmap_free(pm);
    cJSON_Delete(root);
    cJSON_Delete(graveyard);
    free(ld.dir);
    free(text);
    return rc;
}

/* ---- printing ------------------------------------------------------------------------------ */

/* A number in the fewest digits that read back as the same double. cJSON's
 * own printer accepts 15 digits when they are within an epsilon, which loses
 * the last bit (2^53 came back as 2^53 - 2), so numbers go out as raw text. */
static cJSON *num(double v)
{
    char buf[40];
    fmt_num(buf, sizeof buf, v);
    return cJSON_CreateRaw(buf);
}

static cJSON *num_array(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        cJSON *x = num(v[i]);
        if (!x || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

/* Adds item to o under k, or frees it; `ok` collects failures. */
static void add_item(cJSON *o, const char *k, cJSON *item, bool *ok)
{
    if (item && *ok && cJSON_AddItemToObject(o, k, item))
        return;
    cJSON_Delete(item);
    *ok = false;
}

/* cJSON's Add* helpers return NULL on failure; `ok` collects that. */
static void add_num(cJSON *o, const char *k, double v, bool *ok)
{
    add_item(o, k, num(v), ok);
}

static void add_str(cJSON *o, const char *k, const char *v, bool *ok)
{
    *ok = *ok && cJSON_AddStringToObject(o, k, v);
}

static void add_pair(cJSON *o, const char *k, const double v[2], bool *ok)
{
    add_item(o, k, num_array(v, 2), ok);
}

static cJSON *add_obj(cJSON *o, const char *k, bool *ok)
{
    cJSON *c = cJSON_AddObjectToObject(o, k);
    *ok = *ok && c;
    return c;
}

static cJSON *add_arr(cJSON *o, const char *k, bool *ok)
{
    cJSON *c = cJSON_AddArrayToObject(o, k);
    *ok = *ok && c;
    return c;
}

/* A new object appended to array a (NULL on failure, with *ok false). */
static cJSON *push_obj(cJSON *a, bool *ok)
{
    cJSON *c = *ok && a ? cJSON_CreateObject() : NULL;
    if (c && !cJSON_AddItemToArray(a, c)) {
        cJSON_Delete(c);
        c = NULL;
    }
    *ok = *ok && c;
    return c;
}

static void print_moment(cJSON *o, const struct moment *m, bool *ok)
{
    if (m->is_frame)
        add_num(o, "frame", (double)m->frame, ok);
    else
        add_num(o, "time", m->time, ok);
}

static void print_solver(cJSON *root, const struct solver_config *s, bool *ok)
{
    cJSON *o = add_obj(root, "solver", ok);
    if (!o)
        return;
    const enum solver_type t = s->type;
    add_str(o, "type", scene_solver_name(t), ok);
    /* Only the keys of this solver (the others would be refused on reading
     * it back), and only the damping form in use: the three exclude each other. */
    if (s->half_life > 0)
        add_num(o, "half_life", s->half_life, ok);
    else if (s->damping_shift > 0 && solver_uses(t, "damping_shift"))
        add_num(o, "damping_shift", s->damping_shift, ok);
    else if (solver_uses(t, "damping"))
        add_num(o, "damping", s->damping, ok);
    if (solver_uses(t, "neighbors"))
        add_num(o, "neighbors", s->neighbors, ok);
    if (solver_uses(t, "flow"))
        add_num(o, "flow", s->flow, ok);
    if (solver_uses(t, "blend")) {
        add_num(o, "blend", s->blend, ok);
        add_num(o, "passes", s->passes, ok);
    }
    if (solver_uses(t, "speed")) {
        add_num(o, "speed", s->speed, ok);
        if (s->speed_map)
            add_str(o, "speed_map", s->speed_map, ok);
        else
            *ok = *ok && cJSON_AddNullToObject(o, "speed_map");
        add_pair(o, "speed_range", s->speed_range, ok);
        add_num(o, "decay", s->decay, ok);
    }
    if (solver_uses(t, "gravity")) {
        add_num(o, "gravity", s->gravity, ok);
        add_num(o, "surface_tension", s->surface_tension, ok);
        add_num(o, "density", s->density, ok);
        add_num(o, "depth", s->depth, ok);
        add_num(o, "viscosity", s->viscosity, ok);
    }
}

static void print_boundary(cJSON *root, const struct scene *sc, bool *ok)
{
    const enum edge_kind *b = sc->boundary;
    if (b[0] == b[1] && b[1] == b[2] && b[2] == b[3]) {
        add_str(root, "boundary", scene_edge_name(b[0]), ok);
    } else {
        cJSON *o = add_obj(root, "boundary", ok);
        static const char *const side[] = { "left", "right", "top", "bottom" };
        for (int s = 0; o && s < 4; s++)
            add_str(o, side[s], scene_edge_name(b[s]), ok);
    }
    add_num(root, "absorb_width", sc->absorb_width, ok);
}

static void print_sources(cJSON *root, const struct scene *sc, bool *ok)
{
    cJSON *a = add_arr(root, "drops", ok), *o;
    for (int i = 0; i < sc->n_drops && (o = push_obj(a, ok)); i++) {
        const struct drop *d = &sc->drops[i];
        print_moment(o, &d->at, ok);
        add_num(o, "x", d->x, ok);
        add_num(o, "y", d->y, ok);
        add_num(o, "radius", d->radius, ok);
        add_num(o, "amplitude", d->amplitude, ok);
        add_str(o, "shape", scene_shape_name(d->shape), ok);
        add_str(o, "mode", mode_names[d->mode], ok);
    }
    const struct rain *r = &sc->rain;
    if (!r->enabled) {
        *ok = *ok && cJSON_AddNullToObject(root, "rain");
    } else if ((o = add_obj(root, "rain", ok))) {
        add_num(o, "rate", r->rate, ok);
        add_num(o, "start", r->start.time, ok);
        add_num(o, "end", r->end.time, ok);
        add_pair(o, "radius", r->radius, ok);
        add_pair(o, "amplitude", r->amplitude, ok);
        add_num(o, "seed", (double)r->seed, ok);
        add_str(o, "shape", scene_shape_name(r->shape), ok);
    }
    a = add_arr(root, "oscillators", ok);
    for (int i = 0; i < sc->n_oscillators && (o = push_obj(a, ok)); i++) {
        const struct oscillator *s = &sc->oscillators[i];
        if (s->is_line) {
            add_pair(o, "from", s->from, ok);
            add_pair(o, "to", s->to, ok);
        } else {
            add_num(o, "x", s->x, ok);
            add_num(o, "y", s->y, ok);
        }
        add_num(o, "radius", s->radius, ok);
        add_num(o, "amplitude", s->amplitude, ok);
        add_num(o, "frequency", s->frequency, ok);
        add_num(o, "phase", s->phase, ok);
        add_num(o, "start", s->start.time, ok);
        add_num(o, "end", s->end.time, ok);
        add_str(o, "shape", scene_shape_name(s->shape), ok);
    }
    a = add_arr(root, "movers", ok);
    for (int i = 0; i < sc->n_movers && (o = push_obj(a, ok)); i++) {
        const struct mover *m = &sc->movers[i];
        cJSON *path = add_arr(o, "path", ok);
        for (int k = 0; path && k < m->n_path; k++) {
            double t[3] = { m->path[k].time, m->path[k].x, m->path[k].y };
            cJSON *pt = num_array(t, 3);
            if (!pt || !cJSON_AddItemToArray(path, pt)) {
                cJSON_Delete(pt);
                *ok = false;
            }
        }
        add_num(o, "radius", m->radius, ok);
        add_num(o, "amplitude", m->amplitude, ok);
        add_str(o, "shape", scene_shape_name(m->shape), ok);
    }
}

static void print_things(cJSON *root, const struct scene *sc, bool *ok)
{
    cJSON *a = add_arr(root, "initial", ok), *o;
    for (int i = 0; i < sc->n_initial && (o = push_obj(a, ok)); i++) {
        const struct initial *in = &sc->initial[i];
        add_str(o, "type", initial_names[in->type], ok);
        if (in->type == INITIAL_IMAGE) {
            add_str(o, "path", in->path, ok);
            add_num(o, "scale", in->scale, ok);
        } else {
            add_num(o, "wavelength", in->wavelength, ok);
            add_num(o, "angle", in->angle, ok);
            add_num(o, "amplitude", in->amplitude, ok);
        }
    }
    a = add_arr(root, "probes", ok);
    for (int i = 0; i < sc->n_probes && (o = push_obj(a, ok)); i++) {
        add_str(o, "name", sc->probes[i].name, ok);
        add_num(o, "x", sc->probes[i].x, ok);
        add_num(o, "y", sc->probes[i].y, ok);
    }
    a = add_arr(root, "obstacles", ok);
    for (int i = 0; i < sc->n_obstacles && (o = push_obj(a, ok)); i++) {
        const struct obstacle *ob = &sc->obstacles[i];
        add_str(o, "type", obstacle_names[ob->type], ok);
        switch (ob->type) {
        case OBST_RECT:
            add_num(o, "x", ob->x, ok);
            add_num(o, "y", ob->y, ok);
            add_num(o, "width", ob->width, ok);
            add_num(o, "height", ob->height, ok);
            break;
        case OBST_CIRCLE:
            add_num(o, "x", ob->x, ok);
            add_num(o, "y", ob->y, ok);
            add_num(o, "radius", ob->radius, ok);
            break;
        case OBST_POLYGON: {
            cJSON *pts = add_arr(o, "points", ok);
            for (int k = 0; pts && k < ob->n_points; k++) {
                cJSON *pt = num_array(ob->points[k], 2);
                if (!pt || !cJSON_AddItemToArray(pts, pt)) {
                    cJSON_Delete(pt);
                    *ok = false;
                }
            }
            break;
        }
        case OBST_LINE:
            add_pair(o, "from", ob->from, ok);
            add_pair(o, "to", ob->to, ok);
            add_num(o, "width", ob->width, ok);
            break;
        case OBST_MASK:
            add_str(o, "path", ob->path, ok);
            add_num(o, "threshold", ob->threshold, ok);
            *ok = *ok && cJSON_AddBoolToObject(o, "invert", ob->invert);
            break;
        }
    }
}

static cJSON *color_array(const unsigned char c[3])
{
    double rgb[3] = { c[0], c[1], c[2] };
    return num_array(rgb, 3);
}

/* A file name, or null when there is none. */
static void add_opt_str(cJSON *o, const char *key, const char *s, bool *ok)
{
    if (s)
        add_str(o, key, s, ok);
    else
        *ok = *ok && cJSON_AddNullToObject(o, key);
}

static void print_output(cJSON *root, const struct scene *sc, bool *ok)
{
    const struct render_config *r = &sc->render;
    cJSON *o = add_obj(root, "render", ok);
    if (o) {
        add_str(o, "mode", scene_render_mode_name(r->mode), ok);
        add_str(o, "colormap", r->colormap, ok);
        add_pair(o, "range", r->range, ok);
        add_num(o, "width", r->width, ok);
        add_num(o, "height", r->height, ok);
        add_item(o, "obstacle_color", color_array(r->obstacle_color), ok);
        add_num(o, "height_scale", r->height_scale, ok);
        add_item(o, "light", num_array(r->light, 3), ok);
        add_item(o, "water_color", color_array(r->water_color), ok);
        add_item(o, "sky_color", color_array(r->sky_color), ok);
        add_num(o, "specular", r->specular, ok);
        add_num(o, "shininess", r->shininess, ok);
        add_opt_str(o, "background", r->background, ok);
        add_num(o, "refraction", r->refraction, ok);
        add_num(o, "depth", r->depth, ok);
        add_opt_str(o, "floor", r->floor, ok);
        add_item(o, "floor_color", color_array(r->floor_color), ok);
        add_num(o, "reflectivity", r->reflectivity, ok);
        add_str(o, "alpha", scene_render_alpha_name(r->alpha), ok);
        add_str(o, "normal_convention", scene_normal_convention_name(r->normal_convention), ok);
    }
    const struct output_config *out = &sc->output;
    if ((o = add_obj(root, "output", ok))) {
        add_str(o, "path", out->path ? out->path : "", ok);
        add_str(o, "codec", out->codec, ok);
        add_num(o, "crf", out->crf, ok);
        add_str(o, "preset", out->preset, ok);
        add_str(o, "pix_fmt", out->pix_fmt, ok);
        add_num(o, "bit_depth", out->bit_depth, ok);
        add_str(o, "exr_compression", scene_exr_compression_name(out->exr_compression), ok);
    }
}

int scene_print(const struct scene *sc, FILE *out)
{
    bool ok = true;
    cJSON *root = cJSON_CreateObject(), *o;
    if (!root)
        return -1;
    if ((o = add_obj(root, "grid", &ok))) {
        add_num(o, "width", sc->grid.width, &ok);
        add_num(o, "height", sc->grid.height, &ok);
        add_num(o, "cell_size", sc->grid.cell_size, &ok);
    }
    if ((o = add_obj(root, "time", &ok))) {
        add_num(o, "fps", sc->time.fps, &ok);
        add_num(o, "frames", sc->time.frames, &ok);
        if (sc->time.steps_auto)
            add_str(o, "steps_per_frame", "auto", &ok);
        else
            add_num(o, "steps_per_frame", sc->time.steps_per_frame, &ok);
    }
    print_solver(root, &sc->solver, &ok);
    print_boundary(root, sc, &ok);
    print_sources(root, sc, &ok);
    print_things(root, sc, &ok);
    print_output(root, sc, &ok);
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return -1;
    int rc = fputs(text, out) < 0 || fputc('\n', out) == EOF || ferror(out) ? -1 : 0;
    free(text);
    return rc;
}

char *scene_text(const struct scene *sc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int bad = scene_print(sc, f) < 0;
    if ((fclose(f) != 0) | bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* scene_check.c: the scene loader's checks: located refusals ("FILE:LINE:COL:
 * path: what", or "--set path: what"), "did you mean" guesses for unknown keys
 * and names, and the typed readers of numbers, ranges, names, enums and files. */
#include "scene_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- messages and key paths --------------------------------------------------------------- */

/* The value as compact JSON for "got ...", at most about 60 characters. */
void describe(const cJSON *v, char *buf, size_t size)
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

/* brief's writer: appends to buf (size n, used *at) what fits, and marks
 * *cut when something did not. */
static void put(char *buf, size_t n, size_t *at, bool *cut, const char *text, size_t len)
{
    if (*at + len >= n) {
        len = *at + 1 < n ? n - 1 - *at : 0;
        *cut = true;
    }
    memcpy(buf + *at, text, len);
    *at += len;
    buf[*at] = '\0';
}

static void brief_into(const cJSON *v, char *buf, size_t n, size_t *at, bool *cut)
{
    char num[32];
    if (cJSON_IsString(v)) {
        put(buf, n, at, cut, "\"", 1);
        for (const char *c = v->valuestring; *c && !*cut; c++) {
            if (*c == '"' || *c == '\\')
                put(buf, n, at, cut, "\\", 1);
            const char *esc = strchr("\b\f\n\r\t", *c);   /* as cJSON writes them */
            if ((unsigned char)*c < 0x20) {
                if (esc)
                    snprintf(num, sizeof num, "\\%c", "bfnrt"[esc - "\b\f\n\r\t"]);
                else
                    snprintf(num, sizeof num, "\\u%04x", (unsigned char)*c);
                put(buf, n, at, cut, num, strlen(num));
            } else {
                put(buf, n, at, cut, c, 1);
            }
        }
        put(buf, n, at, cut, "\"", 1);
    } else if (cJSON_IsNumber(v)) {
        fmt_num(num, sizeof num, v->valuedouble);
        put(buf, n, at, cut, num, strlen(num));
    } else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
        const bool obj = cJSON_IsObject(v);
        put(buf, n, at, cut, obj ? "{" : "[", 1);
        for (const cJSON *c = v->child; c && !*cut; c = c->next) {
            if (c != v->child)
                put(buf, n, at, cut, ",", 1);
            if (obj) {
                const cJSON key = { .type = cJSON_String, .valuestring = c->string };
                brief_into(&key, buf, n, at, cut);
                put(buf, n, at, cut, ":", 1);
            }
            brief_into(c, buf, n, at, cut);
        }
        put(buf, n, at, cut, obj ? "}" : "]", 1);
    } else {
        const char *word = cJSON_IsTrue(v) ? "true" : cJSON_IsFalse(v) ? "false" : "null";
        put(buf, n, at, cut, word, strlen(word));
    }
}

void brief(const cJSON *v, char *buf, size_t n)
{
    size_t at = 0;
    bool cut = false;
    if (n < 4) {
        if (n)
            buf[0] = '\0';
        return;
    }
    buf[0] = '\0';
    brief_into(v, buf, n - 3, &at, &cut);   /* room for "..." */
    if (cut)
        memcpy(buf + at, "...", 4);
}

bool node_where(const struct ld *ld, const cJSON *node, struct sj_pos *val, struct sj_pos *key, const char **name,
                bool *in_preset)
{
    *in_preset = false;
    *name = ld->name;
    if (sj_posmap_find(ld->pm, node, val, key))
        return true;
    if (!sj_posmap_find(ld->base_pm, node, val, key))
        return false;
    *in_preset = true;
    *name = ld->base_name;
    return true;
}

/* Fails with "FILE:LINE:COL: path: what", the position being node's key
 * (at_key) or value; "--set path: what" for nodes --set made. Returns -1. */
static int vfail(struct ld *ld, const cJSON *node, bool at_key, const char *path, const char *fmt,
                 va_list ap)
{
    char what[768], place[320];
    struct sj_pos val, key;
    const char *name;
    bool in_preset;
    rr_vformat(what, sizeof what, fmt, ap);   /* a long quoted key gives way, not the reason */
    if (node_where(ld, node, &val, &key, &name, &in_preset)) {
        struct sj_pos p = at_key ? key : val;
        snprintf(place, sizeof place, "%s:%d:%d: %s%s", name, p.line, p.col, path, *path ? ": " : "");
    } else {
        snprintf(place, sizeof place, "--set %s: ", *path ? path : "(top level)");
    }
    return rr_fail(ld->e, RR_EXIT_USAGE, "%s%s", place, what);
}

int fail(struct ld *ld, const cJSON *node, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(ld, node, false, path, fmt, ap);
    va_end(ap);
    return rc;
}

int fail_key(struct ld *ld, const cJSON *node, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(ld, node, true, path, fmt, ap);
    va_end(ap);
    return rc;
}

/* "expected WHAT, got VALUE" */
int fail_got(struct ld *ld, const cJSON *node, const char *path, const char *what)
{
    char got[80];
    describe(node, got, sizeof got);
    return fail(ld, node, path, "expected %s, got %s", what, got);
}

int oom(struct ld *ld)
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
const char *join(char *buf, const char *parent, const char *key)
{
    size_t at = 0;
    buf[0] = '\0';
    append(buf, &at, parent);
    if (*parent)
        append(buf, &at, ".");
    append(buf, &at, key);
    return buf;
}

const char *join_index(char *buf, const char *parent, int i)
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

void list_names(char *buf, size_t size, const char *const *names)
{
    size_t at = 0;
    buf[0] = '\0';
    for (const char *const *p = names; *p && at < size; p++)
        at += (size_t)snprintf(buf + at, size - at, "%s\"%s\"", p == names ? "" : ", ", *p);
}

/* Refuses a key of obj that is not in `known` (NULL-terminated) or that
 * appears twice, whichever comes first in the document. `for_type` names the
 * obstacle or initial type whose keys these are, or is NULL. */
int check_keys(struct ld *ld, const cJSON *obj, const char *path, const char *const *known,
                      const char *for_type)
{
    char p[PATH_LEN], list[512];
    for (const cJSON *m = obj->child; m; m = m->next) {
        join(p, path, m->string);
        for (const cJSON *f = obj->child; f != m; f = f->next) {
            if (strcmp(f->string, m->string))
                continue;
            struct sj_pos fv, fk;
            if (sj_posmap_find(ld->pm, f, &fv, &fk))   /* duplicates are the file's own */
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

const struct range ANY = { -HUGE_VAL, HUGE_VAL, false, false };
const struct range POSITIVE = { 0, HUGE_VAL, true, false };
const struct range NONNEG = { 0, HUGE_VAL, false, false };
const struct range UNIT = { 0, 1, false, false };

const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* A number as a message shows it: integers without a fraction, others with
 * as many digits as they need. */
void fmt_num(char *buf, size_t size, double v)
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

int check_number(struct ld *ld, const cJSON *v, const char *path, struct range r, double *out)
{
    if (!cJSON_IsNumber(v) || !in_range(v->valuedouble, r)) {
        char what[96];
        describe_range(what, sizeof what, "a number", r);
        return fail_got(ld, v, path, what);
    }
    *out = v->valuedouble;
    return 0;
}

int get_number(struct ld *ld, const cJSON *obj, const char *path, const char *key,
                      struct range r, double *out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    return v ? check_number(ld, v, join(p, path, key), r, out) : 0;
}

/* An integer: valuedouble must be whole and in range (valueint saturates). */
int check_int(struct ld *ld, const cJSON *v, const char *path, long long min, long long max,
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

int get_int(struct ld *ld, const cJSON *obj, const char *path, const char *key, long long min,
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

int get_bool(struct ld *ld, const cJSON *obj, const char *path, const char *key, bool *out)
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
int get_name(struct ld *ld, const cJSON *obj, const char *path, const char *key,
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

int check_enum(struct ld *ld, const cJSON *v, const char *path, const char *const *names,
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
int get_enum(struct ld *ld, const cJSON *obj, const char *path, const char *key,
                    const char *const *names, int *out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    return v ? check_enum(ld, v, join(p, path, key), names, out) : 0;
}

/* Two numbers, each in r: [a, b]. */
int check_pair(struct ld *ld, const cJSON *v, const char *path, struct range r, double out[2])
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

int get_pair(struct ld *ld, const cJSON *obj, const char *path, const char *key, struct range r,
                    double out[2])
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    return v ? check_pair(ld, v, join(p, path, key), r, out) : 0;
}

/* A number or [min, max] with min <= max, each in r; a number n is [n, n]. */
int get_span(struct ld *ld, const cJSON *obj, const char *path, const char *key, struct range r,
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
int get_object(struct ld *ld, const cJSON *obj, const char *path, const char *key,
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
int get_list(struct ld *ld, const cJSON *obj, const char *key, const cJSON **out, int *n)
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

int require(struct ld *ld, const cJSON *obj, const char *path, const char *key)
{
    if (member(obj, key))
        return 0;
    return fail(ld, obj, path, "missing required key \"%s\"", key);
}

/* "a" and "b" are alternatives: refuses both, naming them at the later one. */
int exclusive(struct ld *ld, const cJSON *obj, const char *path, const char *a, const char *b)
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
int note(struct ld *ld, const cJSON *node, const char *path)
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
    const char *name;
    bool in_preset, in_text = node_where(ld, node, &val, &key, &name, &in_preset);
    *o = (struct scene_origin){ .key = strdup(path), .line = in_text ? val.line : 0,
                                .col = in_text ? val.col : 0, .preset = in_preset };
    brief(node, o->value, sizeof o->value);
    if (!o->key)
        return oom(ld);
    sc->n_origins++;
    return 0;
}

/* The name given, against the scene's folder (absolute paths stay), or NULL
 * (memory: e filled). malloc'd. */
static char *resolve(struct ld *ld, const char *given)
{
    size_t len = strlen(ld->dir) + strlen(given) + 2;
    char *full = malloc(len);
    if (!full) {
        oom(ld);
        return NULL;
    }
    if (given[0] == '/' || !ld->dir[0])
        snprintf(full, len, "%s", given);
    else
        snprintf(full, len, "%s/%s", ld->dir, given);
    return full;
}

/* Whether full can be read as a regular file; 0, or an errno (-1: it is
 * not a regular file: a FIFO would hang the loader, a device feed it
 * forever). */
static int readable(const char *full)
{
    struct stat st;
    if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
        return EISDIR;
    if (stat(full, &st) == 0 && !S_ISREG(st.st_mode))
        return -1;
    FILE *f = fopen(full, "rb");
    if (!f)
        return errno;
    fclose(f);
    return 0;
}

/* A file the scene names: resolved against the scene's folder (absolute
 * paths stay) and checked to be readable now, so that a typo is reported
 * with the scene's line rather than late in the run. Its content is read by
 * image.c. *out is malloc'd. */
int get_file(struct ld *ld, const cJSON *obj, const char *path, const char *key, char **out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    if (!v)
        return 0;
    join(p, path, key);
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return fail_got(ld, v, p, "a file name");
    const char *given = v->valuestring;
    char *full = resolve(ld, given);
    if (!full)
        return -1;
    int err = readable(full);
    if (err) {
        free(full);
        if (err < 0)
            return fail(ld, v, p, "\"%s\" is not a regular file", given);
        return fail(ld, v, p, "cannot open \"%s\": %s", given, strerror(err));
    }
    free(*out);
    *out = full;
    return note(ld, v, p);   /* for a PNG that does not decode (scene_locate) */
}

int get_file_or_sequence(struct ld *ld, const cJSON *obj, const char *path, const char *key, char **out)
{
    char p[PATH_LEN];
    const cJSON *v = member(obj, key);
    if (!v || !cJSON_IsString(v) || scene_pattern_fields(v->valuestring) == 0)
        return get_file(ld, obj, path, key, out);
    join(p, path, key);
    if (scene_pattern_fields(v->valuestring) != 1)
        return fail_got(ld, v, p, "a file name, or an image sequence's with one frame number field such as "
                                  "%04d (%d, %i or %u; %% for a literal %)");
    char *full = resolve(ld, v->valuestring), first[4096];
    if (!full)
        return -1;
    int err = 0;
    for (int i = 0; i < 2; i++) {   /* image 0, else image 1 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        int n = snprintf(first, sizeof first, full, i);
#pragma GCC diagnostic pop
        if (n < 0 || (size_t)n >= sizeof first) {
            free(full);
            return fail(ld, v, p, "\"%s\": the name is too long", v->valuestring);
        }
        if (!(err = readable(first)))
            break;
    }
    if (err) {
        free(full);
        return fail(ld, v, p, "\"%s\": an image sequence needs image 0 or 1: cannot open \"%s\": %s", v->valuestring,
                    first, err < 0 ? "not a regular file" : strerror(err));
    }
    free(*out);
    *out = full;
    return note(ld, v, p);
}

int scene_pattern_fields(const char *name)
{
    int n = 0;
    for (const char *p = name; (p = strchr(p, '%'));) {
        p++;
        if (*p == '%') {
            p++;
            continue;
        }
        while (*p && strchr("-+ 0", *p))
            p++;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '.') {
            p++;
            while (*p >= '0' && *p <= '9')
                p++;
        }
        if (*p != 'd' && *p != 'i' && *p != 'u')
            return -1;
        p++;
        n++;
    }
    return n;
}

/* A moment given as "time" (seconds >= 0) or "frame" (index >= 0), not both. */
int get_moment(struct ld *ld, const cJSON *obj, const char *path, struct moment *m)
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

/* scene_json.c: a strict JSON scanner that gives cJSON nodes their line and
 * column, and the --set overrides (see scene_json.h). */
#include "scene_json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rr_err.h"
#include "utf8.h"

/* ---- the scanner ------------------------------------------------------------
 * RFC 8259 exactly: whitespace is space, tab, CR, LF; numbers have no leading
 * zeros and digits on both sides of '.'; strings hold no raw control
 * characters and only valid UTF-8. A leading UTF-8 byte-order mark is skipped,
 * as cJSON does. When `record` is set, the offset of every value (and of its
 * key, inside objects) is appended in document order, which is the pre-order
 * of the cJSON tree. */

struct scan {
    const char *s;
    size_t n, i;
    const char *reason;     /* set on a syntax error; i is then where */
    bool record, oom;
    size_t *val, *key;      /* offsets; key[k] == SIZE_MAX outside objects */
    size_t count, cap;
    bool in_key;            /* scanning an object's key */
    bool nul_seen;          /* a \u0000 escape, which cJSON's C strings would cut short */
    bool nul_in_key;
    size_t nul_index;       /* the recorded value it is in (or whose key it is in) */
};

static int scan_fail(struct scan *sc, const char *why)
{
    sc->reason = sc->i >= sc->n ? "unexpected end of input" : why;
    return -1;
}

/* The reason for a missing key or value (`expected`), naming the slip from
 * another format (JSON5, JavaScript, YAML) the character is, if it is one. */
static int scan_expected(struct scan *sc, const char *expected)
{
    static const struct { char c; const char *key, *value; } slips[] = {
        { '}', "expected a key in double quotes; a comma before '}': JSON has no trailing commas", NULL },
        { ']', NULL, "expected a value; a comma before ']': JSON has no trailing commas" },
        { '/', "expected a key in double quotes; JSON has no comments (a top-level \"$comment\" string can say "
               "what a scene is for)",
               "expected a value; JSON has no comments (a top-level \"$comment\" string can say what a scene is for)" },
        { '\'', "expected a key in double quotes; JSON's strings are in double quotes, not single",
                "expected a value; JSON's strings are in double quotes, not single" },
    };
    const bool key = !strcmp(expected, "expected a key in double quotes");
    for (size_t k = 0; sc->i < sc->n && k < sizeof slips / sizeof slips[0]; k++) {
        const char *why = key ? slips[k].key : slips[k].value;
        if (sc->s[sc->i] == slips[k].c && why)
            return scan_fail(sc, why);
    }
    return scan_fail(sc, expected);
}

static void skip_ws(struct scan *sc)
{
    while (sc->i < sc->n) {
        char c = sc->s[sc->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        sc->i++;
    }
}

static int record(struct scan *sc, size_t key_off)
{
    if (!sc->record)
        return 0;
    if (sc->count == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 64;
        size_t *v = realloc(sc->val, cap * sizeof *v);
        if (v)
            sc->val = v;
        size_t *k = v ? realloc(sc->key, cap * sizeof *k) : NULL;
        if (!k) {
            sc->oom = true;
            sc->reason = NULL;
            return -1;
        }
        sc->key = k;
        sc->cap = cap;
    }
    sc->val[sc->count] = sc->i;
    sc->key[sc->count] = key_off;
    sc->count++;
    return 0;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hex_value(char c)
{
    return is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* One UTF-8 sequence starting at sc->i (utf8.h). */
static int scan_utf8(struct scan *sc)
{
    size_t len = utf8_seq_len((const unsigned char *)sc->s + sc->i, sc->n - sc->i);
    if (!len)
        return scan_fail(sc, "invalid UTF-8 in a string");
    sc->i += len;
    return 0;
}

static int scan_string(struct scan *sc)
{
    sc->i++;   /* the opening quote */
    for (;;) {
        if (sc->i >= sc->n)
            return scan_fail(sc, "unterminated string");
        unsigned char c = (unsigned char)sc->s[sc->i];
        if (c == '"') {
            sc->i++;
            return 0;
        }
        if (c < 0x20)
            return scan_fail(sc, "control character in a string (write it as an escape)");
        if (c == '\\') {
            sc->i++;
            if (sc->i >= sc->n)
                return scan_fail(sc, "unterminated string");
            char x = sc->s[sc->i];
            if (x == 'u') {
                size_t esc = sc->i - 1;   /* the backslash: where a surrogate error points */
                unsigned u = 0;
                for (int k = 1; k <= 4; k++) {
                    if (sc->i + (size_t)k >= sc->n || !is_hex(sc->s[sc->i + (size_t)k]))
                        return scan_fail(sc, "invalid \\u escape (needs 4 hex digits)");
                    u = u * 16 + hex_value(sc->s[sc->i + (size_t)k]);
                }
                sc->i += 5;
                if (u == 0 && !sc->nul_seen) {
                    sc->nul_seen = true;
                    sc->nul_in_key = sc->in_key;
                    /* A key's value is recorded after the key; a string value, before. */
                    sc->nul_index = sc->in_key ? sc->count : sc->count - 1;
                }
                /* UTF-16 surrogates only in pairs, high then low: cJSON
                 * refuses a lone one, and so the scanner must too (else a
                 * failure of cJSON would read as out of memory). */
                if (u >= 0xDC00 && u <= 0xDFFF) {
                    sc->i = esc;
                    return scan_fail(sc, "a lone low surrogate in a \\u escape");
                }
                if (u >= 0xD800 && u <= 0xDBFF) {
                    unsigned lo = 0;
                    bool pair = sc->i + 6 <= sc->n && sc->s[sc->i] == '\\' && sc->s[sc->i + 1] == 'u';
                    for (int k = 2; pair && k < 6; k++) {
                        pair = is_hex(sc->s[sc->i + (size_t)k]);
                        lo = lo * 16 + (pair ? hex_value(sc->s[sc->i + (size_t)k]) : 0);
                    }
                    if (!pair || lo < 0xDC00 || lo > 0xDFFF) {
                        sc->i = esc;
                        return scan_fail(sc, "a high surrogate in a \\u escape without its low surrogate");
                    }
                    sc->i += 6;
                }
            } else if (strchr("\"\\/bfnrt", x) && x) {
                sc->i++;
            } else {
                return scan_fail(sc, "invalid escape in a string");
            }
        } else if (c < 0x80) {
            sc->i++;
        } else if (scan_utf8(sc) < 0) {
            return -1;
        }
    }
}

static int scan_digits(struct scan *sc)
{
    if (sc->i >= sc->n || !is_digit(sc->s[sc->i]))
        return scan_fail(sc, "invalid number");
    while (sc->i < sc->n && is_digit(sc->s[sc->i]))
        sc->i++;
    return 0;
}

static int scan_number(struct scan *sc)
{
    if (sc->s[sc->i] == '-')
        sc->i++;
    if (sc->i < sc->n && sc->s[sc->i] == '0')
        sc->i++;
    else if (scan_digits(sc) < 0)
        return -1;
    if (sc->i < sc->n && sc->s[sc->i] == '.') {
        sc->i++;
        if (scan_digits(sc) < 0)
            return -1;
    }
    if (sc->i < sc->n && (sc->s[sc->i] == 'e' || sc->s[sc->i] == 'E')) {
        sc->i++;
        if (sc->i < sc->n && (sc->s[sc->i] == '+' || sc->s[sc->i] == '-'))
            sc->i++;
        if (scan_digits(sc) < 0)
            return -1;
    }
    return 0;
}

static int scan_literal(struct scan *sc)
{
    static const char *const words[] = { "true", "false", "null" };
    for (size_t k = 0; k < 3; k++) {
        size_t len = strlen(words[k]);
        if (sc->n - sc->i >= len && !memcmp(sc->s + sc->i, words[k], len)) {
            sc->i += len;
            return 0;
        }
    }
    return scan_expected(sc, "expected a value");
}

static int scan_value(struct scan *sc, size_t key_off, int depth);

static int scan_object(struct scan *sc, int depth)
{
    sc->i++;
    skip_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == '}') {
        sc->i++;
        return 0;
    }
    for (;;) {
        skip_ws(sc);
        if (sc->i >= sc->n || sc->s[sc->i] != '"')
            return scan_expected(sc, "expected a key in double quotes");
        size_t key_off = sc->i;
        sc->in_key = true;
        if (scan_string(sc) < 0)
            return -1;
        sc->in_key = false;
        skip_ws(sc);
        if (sc->i >= sc->n || sc->s[sc->i] != ':')
            return scan_fail(sc, "expected ':' after the key");
        sc->i++;
        skip_ws(sc);
        if (scan_value(sc, key_off, depth + 1) < 0)
            return -1;
        skip_ws(sc);
        if (sc->i < sc->n && sc->s[sc->i] == ',') {
            sc->i++;
            continue;
        }
        if (sc->i < sc->n && sc->s[sc->i] == '}') {
            sc->i++;
            return 0;
        }
        return scan_fail(sc, "expected ',' or '}'");
    }
}

static int scan_array(struct scan *sc, int depth)
{
    sc->i++;
    skip_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == ']') {
        sc->i++;
        return 0;
    }
    for (;;) {
        skip_ws(sc);
        if (scan_value(sc, SIZE_MAX, depth + 1) < 0)
            return -1;
        skip_ws(sc);
        if (sc->i < sc->n && sc->s[sc->i] == ',') {
            sc->i++;
            continue;
        }
        if (sc->i < sc->n && sc->s[sc->i] == ']') {
            sc->i++;
            return 0;
        }
        return scan_fail(sc, "expected ',' or ']'");
    }
}

/* cJSON refuses deeper nesting too (CJSON_NESTING_LIMIT); the limit also
 * bounds this recursion. */
static int scan_value(struct scan *sc, size_t key_off, int depth)
{
    if (depth > CJSON_NESTING_LIMIT)
        return scan_fail(sc, "nested too deeply");
    if (sc->i >= sc->n)
        return scan_fail(sc, "expected a value");
    if (record(sc, key_off) < 0)
        return -1;
    char c = sc->s[sc->i];
    if (c == '{') return scan_object(sc, depth);
    if (c == '[') return scan_array(sc, depth);
    if (c == '"') return scan_string(sc);
    if (c == '-' || is_digit(c)) return scan_number(sc);
    return scan_literal(sc);
}

static int scan_text(struct scan *sc)
{
    if (sc->n >= 3 && !memcmp(sc->s, "\xEF\xBB\xBF", 3))
        sc->i = 3;
    skip_ws(sc);
    if (sc->i >= sc->n) {
        sc->reason = "empty input";
        return -1;
    }
    if (scan_value(sc, SIZE_MAX, 1) < 0)
        return -1;
    skip_ws(sc);
    if (sc->i < sc->n)
        return scan_fail(sc, "unexpected text after the value");
    return 0;
}

int sj_check_syntax(const char *text, size_t len, size_t *err_off, const char **reason)
{
    struct scan sc = { .s = text, .n = len };
    if (scan_text(&sc) == 0)
        return 0;
    *err_off = sc.i;
    *reason = sc.reason;
    return -1;
}

/* ---- positions -------------------------------------------------------------- */

struct sj_entry {
    const cJSON *node;
    struct sj_pos val, key;
};

struct sj_posmap {
    struct sj_entry *e;
    size_t n;
    const cJSON *nul;       /* the first node whose string or key holds \u0000 */
    bool nul_in_key;
};

struct sj_pos sj_linecol(const char *text, size_t off)
{
    struct sj_pos p = { 1, 1 };
    for (size_t k = 0; k < off && text[k]; k++) {
        if (text[k] == '\n') {
            p.line++;
            p.col = 1;
        } else if (((unsigned char)text[k] & 0xC0) != 0x80) {
            p.col++;   /* a UTF-8 continuation byte is part of the previous character */
        }
    }
    return p;
}

/* Advances a running position from byte *at to byte off (off >= *at). */
static void advance(const char *text, size_t *at, struct sj_pos *p, size_t off)
{
    for (; *at < off; (*at)++) {
        if (text[*at] == '\n') {
            p->line++;
            p->col = 1;
        } else if (((unsigned char)text[*at] & 0xC0) != 0x80) {
            p->col++;
        }
    }
}

static void preorder(const cJSON *node, struct sj_entry *out, size_t *k, size_t max)
{
    if (*k < max)
        out[*k].node = node;
    (*k)++;
    for (const cJSON *c = node->child; c; c = c->next)
        preorder(c, out, k, max);
}

static int by_node(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const struct sj_entry *)a)->node;
    uintptr_t y = (uintptr_t)((const struct sj_entry *)b)->node;
    return x < y ? -1 : x > y;
}

int sj_posmap_build(struct sj_posmap **out, const char *text, size_t len, const cJSON *root,
                    size_t *err_off, const char **reason)
{
    struct scan sc = { .s = text, .n = len, .record = true };
    struct sj_posmap *pm = NULL;
    int rc = -1;
    *out = NULL;
    *reason = NULL;
    if (scan_text(&sc) < 0) {
        *err_off = sc.i;
        *reason = sc.oom ? NULL : sc.reason;
        goto end;
    }
    pm = calloc(1, sizeof *pm);
    if (!pm || !(pm->e = calloc(sc.count ? sc.count : 1, sizeof *pm->e)))
        goto end;
    pm->n = sc.count;
    size_t k = 0;
    preorder(root, pm->e, &k, pm->n);
    if (k != pm->n) {
        /* Cannot happen when cJSON and the scanner agree on the grammar; say
         * so rather than map nodes to the wrong places. */
        *err_off = 0;
        *reason = "the JSON parser and the position scanner disagree";
        goto end;
    }
    if (sc.nul_seen && sc.nul_index < pm->n) {
        pm->nul = pm->e[sc.nul_index].node;
        pm->nul_in_key = sc.nul_in_key;
    }
    size_t at = 0;
    struct sj_pos p = { 1, 1 };
    for (size_t j = 0; j < pm->n; j++) {
        if (sc.key[j] != SIZE_MAX) {
            advance(text, &at, &p, sc.key[j]);
            pm->e[j].key = p;
        }
        advance(text, &at, &p, sc.val[j]);
        pm->e[j].val = p;
        if (sc.key[j] == SIZE_MAX)
            pm->e[j].key = p;
    }
    qsort(pm->e, pm->n, sizeof *pm->e, by_node);
    *out = pm;
    pm = NULL;
    rc = 0;
end:
    sj_posmap_free(pm);
    free(sc.val);
    free(sc.key);
    return rc;
}

bool sj_posmap_find(const struct sj_posmap *pm, const cJSON *node, struct sj_pos *value,
                    struct sj_pos *key)
{
    if (!pm || !node)
        return false;
    struct sj_entry want = { .node = node };
    const struct sj_entry *hit = bsearch(&want, pm->e, pm->n, sizeof *pm->e, by_node);
    if (!hit)
        return false;
    if (value)
        *value = hit->val;
    if (key)
        *key = hit->key;
    return true;
}

const cJSON *sj_posmap_nul(const struct sj_posmap *pm, bool *in_key)
{
    *in_key = pm && pm->nul_in_key;
    return pm ? pm->nul : NULL;
}

void sj_posmap_free(struct sj_posmap *pm)
{
    if (!pm)
        return;
    free(pm->e);
    free(pm);
}

/* ---- --set ------------------------------------------------------------------ */

static int set_fail(char *msg, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Every message here quotes the whole argument first: a long one is cut in
 * its middle (rr_vformat), so that the reason at the end stays. */
static int set_fail(char *msg, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rr_vformat(msg, size, fmt, ap);
    va_end(ap);
    return -1;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!is_digit(*s))
            return false;
    return true;
}

/* Whether text is a number as people type it on a command line, beyond
 * JSON's: a leading "+", no digit before or after the point (".98", "3.",
 * "-.5"). A leading zero before another digit ("01") is not a number, so that
 * names such as "007" stay strings. */
static bool lenient_number(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    int before = 0, after = 0;
    if (s[0] == '0' && is_digit(s[1]))
        return false;
    for (; is_digit(*s); s++)
        before++;
    if (*s == '.')
        for (s++; is_digit(*s); s++)
            after++;
    if (before + after == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!is_digit(*s))
            return false;
        while (is_digit(*s))
            s++;
    }
    return *s == '\0';
}

/* VALUE as JSON when it is strict JSON ("0.5", "[1,2]", "\"x\"", "true"),
 * as a number when it is one as typed (lenient_number: ".98", "+2"), else
 * as the string itself (solver.type=wave). NULL when out of memory. */
static cJSON *set_value(const char *text)
{
    const char *reason;
    size_t off;
    if (sj_check_syntax(text, strlen(text), &off, &reason) < 0)
        return lenient_number(text) ? cJSON_CreateNumber(strtod(text, NULL)) : cJSON_CreateString(text);
    /* Strict JSON that cJSON cannot parse: out of memory, reported as such
     * rather than read as a string (make failtest runs this path). */
    return cJSON_ParseWithOpts(text, NULL, 1);
}

/* A new, empty container for a missing part of the path: an array when the
 * next part is an index, an object otherwise. */
static cJSON *new_container(bool next_is_index)
{
    return next_is_index ? cJSON_CreateArray() : cJSON_CreateObject();
}

/* Whether the path part starting at p (ending at the next '.' or at limit) is all digits. */
static bool is_index_part(const char *p, const char *limit)
{
    const char *q = p;
    while (q < limit && *q != '.' && is_digit(*q))
        q++;
    return q > p && (q == limit || *q == '.');
}

static bool has_empty_part(const char *key, int len)
{
    for (int k = 1; k < len; k++)
        if (key[k] == '.' && key[k - 1] == '.')
            return true;
    return false;
}

int sj_apply_set(cJSON *root, cJSON *graveyard, const char *set, char *msg, size_t msg_size,
                 bool *oom)
{
    *oom = false;
    /* What a scene file may not hold, --set may not either: the scene printed
     * back (--print-scene, --manifest) is JSON, which is UTF-8. */
    const char *bad = utf8_bad_byte(set);
    if (bad)
        return set_fail(msg, msg_size, "%s: not valid UTF-8 (byte 0x%02x at offset %d): scene text is UTF-8",
                        set, (unsigned char)*bad, (int)(bad - set));
    const char *eq = strchr(set, '=');
    struct scan nul = { .s = eq ? eq + 1 : "", .n = eq ? strlen(eq + 1) : 0 };
    if (eq && scan_text(&nul) == 0 && nul.nul_seen)
        return set_fail(msg, msg_size, "%s: \\u0000 (a NUL character) in a string would cut it short: "
                        "not allowed", set);
    if (!eq)
        return set_fail(msg, msg_size, "%s: expected KEY=VALUE", set);
    if (eq == set)
        return set_fail(msg, msg_size, "%s: the key is empty", set);
    int klen = (int)(eq - set);
    if (set[0] == '.' || eq[-1] == '.' || has_empty_part(set, klen))
        return set_fail(msg, msg_size, "%s: empty part in the key \"%.*s\"", set, klen, set);
    char *seg = malloc((size_t)klen + 1);   /* one part of the path at a time */
    cJSON *value = NULL;
    int rc = -1;
    if (!seg || !(value = set_value(eq + 1)))
        goto oom;

    cJSON *cur = root;
    int at = 0;                              /* set[0..at) names cur (minus a trailing dot) */
    for (;;) {
        const char *end = memchr(set + at, '.', (size_t)(klen - at));
        int len = end ? (int)(end - (set + at)) : klen - at;
        memcpy(seg, set + at, (size_t)len);
        seg[len] = '\0';
        int name_len = at > 0 ? at - 1 : 0;
        const char *next = end ? end + 1 : NULL;
        bool next_is_index = next && is_index_part(next, set + klen);
        cJSON *child;
        if (cJSON_IsArray(cur)) {
            int n = cJSON_GetArraySize(cur);
            if (!all_digits(seg)) {
                set_fail(msg, msg_size, "%s: %.*s is an array: expected an index, got \"%s\"", set,
                         name_len, set, seg);
                goto end;
            }
            /* More than 9 digits is past any array here; strtol cannot overflow. */
            long idx = len > 9 ? -1 : strtol(seg, NULL, 10);
            if (idx < 0 || idx > n) {
                set_fail(msg, msg_size, "%s: %.*s has %d element%s", set, name_len, set, n,
                         n == 1 ? "" : "s");
                goto end;
            }
            if (!next) {
                if (idx < n) {
                    cJSON_AddItemToArray(graveyard, cJSON_DetachItemFromArray(cur, (int)idx));
                    if (!cJSON_InsertItemInArray(cur, (int)idx, value))
                        goto oom;
                } else if (!cJSON_AddItemToArray(cur, value)) {
                    goto oom;
                }
                value = NULL;
                break;
            }
            if (!(child = cJSON_GetArrayItem(cur, (int)idx))) {
                if (!(child = new_container(next_is_index)) || !cJSON_AddItemToArray(cur, child)) {
                    cJSON_Delete(child);
                    goto oom;
                }
            }
        } else if (cJSON_IsObject(cur)) {
            child = cJSON_GetObjectItemCaseSensitive(cur, seg);
            if (!next) {
                if (child)
                    cJSON_AddItemToArray(graveyard, cJSON_DetachItemViaPointer(cur, child));
                if (!cJSON_AddItemToObject(cur, seg, value))
                    goto oom;
                value = NULL;
                break;
            }
            if (!child) {
                if (!(child = new_container(next_is_index)) || !cJSON_AddItemToObject(cur, seg, child)) {
                    cJSON_Delete(child);
                    goto oom;
                }
            }
        } else {
            set_fail(msg, msg_size, "%s: %.*s is not an object or an array", set, name_len, set);
            goto end;
        }
        cur = child;
        at += len + 1;
    }
    rc = 0;
    goto end;
oom:
    *oom = true;
    set_fail(msg, msg_size, "%s: out of memory", set);
end:
    cJSON_Delete(value);
    free(seg);
    return rc;
}

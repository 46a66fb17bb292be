/* scene_sections.c: the scene's object sections: grid, time, solver (and the
 * table of which solver uses which key), boundary, render and output. */
#include "scene_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "image.h"
#include "render.h"
#include "solver.h"

/* ---- the sections, in the contract's order ------------------------------------------------ */

int load_grid(struct ld *ld, const cJSON *root)
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

int load_time(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "fps", "frames", "steps_per_frame", "preroll", "loop", NULL };
    /* A day of warm-up at most: enough for any damping worth looping (docs/scene.md). */
    static const struct range preroll = { 0, 86400, false, false };
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
        || get_int(ld, o, "time", "frames", 1, 10000000, &sc->time.frames) < 0
        || get_number(ld, o, "time", "preroll", preroll, &sc->time.preroll) < 0
        || get_bool(ld, o, "time", "loop", &sc->time.loop) < 0)
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

/* The kinds that share one section's keys, each using some (the solvers of
 * "solver", the render modes of "render"): what refuse_unused_keys reads.
 * Kind i is 0..count-1; uses(i, key) includes the keys of every kind. */
struct key_users {
    const char *section;           /* "solver" */
    const char *kind;              /* the key naming the kind: "type", "mode" */
    const char *noun;              /* "solver", "render mode" */
    const char *every;             /* keys of every kind listed first ("solver.half_life"), or "" */
    const char *besides;           /* after the kind's own keys (" besides ..."), or "" */
    int count;
    const char *(*name)(int i);
    const char *const *(*keys)(int i);   /* kind i's own keys */
    bool (*uses)(int i, const char *key);
    bool warn_over_set;            /* a file's key of another kind when --set chose the kind: a warning */
};

/* Whether m, a key of the object o, came from a file or preset while --set
 * chose o's kind (key `kind`): then *pn, *pk say where m is, and hint (n
 * bytes) the way to another kind, the section given whole, as a refusal's
 * tail; else hint is "". A kind set by --set over a file's or preset's
 * section keeps the section's other keys. */
static bool kind_over_set(const struct ld *ld, const cJSON *o, const cJSON *m, const char *section,
                          const char *kind, const char *name, const char **pn, struct sj_pos *pk, char *hint,
                          size_t n)
{
    struct sj_pos pv;
    bool pp;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, kind);
    const bool over_set = k && !node_where(ld, k, &pv, pk, pn, &pp) && node_where(ld, m, &pv, pk, pn, &pp);
    hint[0] = '\0';
    if (over_set)
        snprintf(hint, n,
                 " (--set %s.%s keeps the section's other keys; to start it afresh, give it whole: "
                 "--set '%s={\"%s\": \"%s\"}')",
                 section, kind, section, kind, name);
    return over_set;
}

/* Refuses the first key of the object o that kind `at` of u does not use,
 * naming the kinds whose key it is and the keys `at` takes instead; with
 * u->warn_over_set, a file's or preset's such key while --set chose the kind
 * is a warning (sc->warned) instead. */
static int refuse_unused_keys(struct ld *ld, const cJSON *o, const struct key_users *u, int at)
{
    for (const cJSON *m = o->child; m; m = m->next) {
        if (u->uses(at, m->string))
            continue;
        char p[PATH_LEN], got[80], whose[128] = "", keys[400];
        size_t n = (size_t)snprintf(keys, sizeof keys, "%s", u->every);
        join(p, u->section, m->string);
        describe(m, got, sizeof got);
        for (int i = 0, w = 0; i < u->count; i++)
            if (u->uses(i, m->string))
                snprintf(whose + strlen(whose), sizeof whose - strlen(whose), "%s%s", w++ ? ", " : "", u->name(i));
        for (const char *const *k = u->keys(at); k && *k; k++)
            n += (size_t)snprintf(keys + n, n < sizeof keys ? sizeof keys - n : 0, "%s%s.%s", n ? ", " : "",
                                  u->section, *k);
        if (n < sizeof keys)
            snprintf(keys + n, sizeof keys - n, "%s", n ? u->besides : "only the keys of every mode");
        /* The way to another kind is the section given whole, which the
         * message says then. */
        struct sj_pos pk;
        const char *pn;
        char hint[160];
        const bool over_set = kind_over_set(ld, o, m, u->section, u->kind, u->name(at), &pn, &pk, hint, sizeof hint);
        if (over_set && u->warn_over_set) {
            /* Switching a scene's render mode from the command line is a
             * habit (-s render.mode=shaded over a colormap scene): the
             * file's keys of its own mode are then ignored, and said to be. */
            struct scene *sc = ld->sc;
            if (sc->n_warned < SCENE_WARN_MAX
                && snprintf(sc->warned[sc->n_warned], sizeof sc->warned[0],
                            "%s:%d:%d: %s (%s) is not used by the %s %s that --set %s.%s chose (a key of %s): ignored",
                            pn, pk.line, pk.col, p, got, u->name(at), u->noun, u->section, u->kind, whose) < 0)
                sc->warned[sc->n_warned][0] = '\0';
            sc->n_warned++;
            continue;
        }
        return fail_key(ld, m, p, "not used by the %s %s (a key of %s); %s takes %s, got %s%s", u->name(at), u->noun,
                        whose, u->name(at), keys, got, hint);
    }
    return 0;
}

static const char *solver_name_at(int i) { return solver_at(i)->name; }
static const char *const *solver_keys_at(int i) { return solver_at(i)->keys; }
static bool solver_uses_at(int i, const char *key) { return solver_uses(solver_at(i), key); }
static const char *mode_name_at(int i) { return render_mode_name((enum render_mode)i); }
static const char *const *mode_keys_at(int i) { return render_mode_keys((enum render_mode)i); }
static bool mode_uses_at(int i, const char *key) { return render_mode_uses((enum render_mode)i, key); }

/* Refuses the first key of the solver object o that solver t does not use
 * (solver_ops.keys; "type" and "half_life" apply to all), naming t and the
 * keys that apply instead, or t's own damping key for a per-step factor. */
static int refuse_unused_solver_keys(struct ld *ld, const cJSON *o, const struct solver_ops *t)
{
    struct key_users u = { "solver", "type", "solver", "solver.half_life", "", 0, solver_name_at, solver_keys_at,
                           solver_uses_at, false };
    int at = -1;
    while (solver_at(u.count)) {
        if (solver_at(u.count) == t)
            at = u.count;
        u.count++;
    }
    const cJSON *m = o->child;
    while (m && solver_uses(t, m->string))
        m = m->next;
    if (m && t->own_damping && (!strcmp(m->string, "damping") || !strcmp(m->string, "damping_shift"))) {
        char p[PATH_LEN], got[80], hint[160];
        struct sj_pos pk;
        const char *pn;
        describe(m, got, sizeof got);
        kind_over_set(ld, o, m, "solver", "type", t->name, &pn, &pk, hint, sizeof hint);
        return fail_key(ld, m, join(p, "solver", m->string),
                        "not used by the %s solver (a per-step factor); use solver.half_life or solver.%s, got %s%s",
                        t->name, t->own_damping, got, hint);
    }
    return refuse_unused_keys(ld, o, &u, at);
}

/* SECTION.depth_range maps a PNG depth map's grey levels to depths: without
 * a map (`map` NULL), or beside a .npy one (whose values are the depths, in
 * `unit`), it would be without effect, so it is refused naming it. */
static int check_depth_range(struct ld *ld, const cJSON *range, const char *section, const char *map,
                             const char *unit)
{
    char key[PATH_LEN];
    if (range && !map)
        return fail_key(ld, range, join(key, section, "depth_range"), "used only with a PNG %s.depth_map", section);
    if (range && image_is_npy(map))
        return fail_key(ld, range, join(key, section, "depth_range"),
                        "not used with a .npy %s.depth_map (its values are the depths in %s)", section, unit);
    return 0;
}

/* wave's speed from the water depth (docs/solvers.md): `depth` (uniform) or
 * `depth_map` in place of `speed` and `speed_map`; `gravity`, `wavelength`
 * or `frequency`, and `depth_range` only with them. Every combination that
 * would leave a key without effect is refused naming it. */
static int load_wave_depth(struct ld *ld, const cJSON *o)
{
    static const char *const speeds[] = { "speed", "speed_map", "speed_range" };
    struct solver_config *s = &ld->sc->solver;
    const cJSON *depth = member(o, "depth"), *map = member(o, "depth_map");
    if (map && cJSON_IsNull(map))
        map = NULL;
    /* a null depth_map (as --print-scene never writes it) means none */
    if (map && exclusive(ld, o, "solver", "depth", "depth_map") < 0)
        return -1;
    for (int k = 0; k < 3; k++)
        if (exclusive(ld, o, "solver", speeds[k], "depth") < 0
            || (map && exclusive(ld, o, "solver", speeds[k], "depth_map") < 0))
            return -1;
    if (depth && !(s->depth > 0))
        return fail_got(ld, depth, "solver.depth", "a depth > 0 in m for the wave solver (dry land is an obstacle)");
    if (map && get_file(ld, o, "solver", "depth_map", &s->depth_map) < 0)
        return -1;
    if (exclusive(ld, o, "solver", "wavelength", "frequency") < 0)
        return -1;
    static const char *const needs_depth[] = { "gravity", "wavelength", "frequency", "depth_range" };
    for (int k = 0; k < 4; k++) {
        const cJSON *v = member(o, needs_depth[k]);
        char p[PATH_LEN];
        if (v && !depth && !map)
            return fail_key(ld, v, join(p, "solver", needs_depth[k]),
                            "used by the wave solver only with solver.depth or solver.depth_map");
    }
    const cJSON *g = member(o, "gravity");
    if (g && !(s->gravity > 0))
        return fail_got(ld, g, "solver.gravity", "a number > 0 for the wave solver (its speed is sqrt(g d))");
    return check_depth_range(ld, member(o, "depth_range"), "solver", map ? s->depth_map : NULL, "m");
}

/* wave's speed: `speed` everywhere, or a `speed_map` read through
 * `speed_range`; a key of the way not taken would be without effect, so it
 * is refused naming it. A null speed_map (as --print-scene writes it) is no
 * map. */
static int load_wave_speed(struct ld *ld, const cJSON *o)
{
    const cJSON *map = member(o, "speed_map"), *range = member(o, "speed_range");
    if (map && !cJSON_IsNull(map))
        return exclusive(ld, o, "solver", "speed", "speed_map");
    if (range)
        return fail_key(ld, range, "solver.speed_range",
                        "used only with a solver.speed_map (without a map, solver.speed is the speed everywhere)");
    return 0;
}

int load_solver(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = {
        "type", "damping", "damping_shift", "half_life", "neighbors", "flow", "blend", "passes",
        "speed", "speed_map", "speed_range", "decay", "gravity", "surface_tension", "density",
        "depth", "viscosity", "depth_map", "depth_range", "wavelength", "frequency", NULL
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
    const char *names[SOLVER_MAX + 1];
    int type = -1;
    solver_names(names);
    if (get_enum(ld, o, "solver", "type", names, &type) < 0)
        return -1;
    if (type >= 0)
        s->type = solver_at(type);
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
        || get_number(ld, o, "solver", "viscosity", NONNEG, &s->viscosity) < 0
        || get_pair(ld, o, "solver", "depth_range", POSITIVE, s->depth_range) < 0
        || get_number(ld, o, "solver", "wavelength", POSITIVE, &s->wavelength) < 0
        || get_number(ld, o, "solver", "frequency", POSITIVE, &s->frequency) < 0)
        return -1;
    if (neighbors != 4 && neighbors != 8)
        return fail_got(ld, member(o, "neighbors"), "solver.neighbors", "4 or 8");
    s->neighbors = neighbors;
    /* speed_map: null (as --print-scene writes it) means none. */
    const cJSON *map = member(o, "speed_map");
    if (map && !cJSON_IsNull(map) && get_file(ld, o, "solver", "speed_map", &s->speed_map) < 0)
        return -1;
    if (!solver_uses(s->type, "depth_map"))
        return 0;
    return load_wave_depth(ld, o) < 0 ? -1 : load_wave_speed(ld, o);
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

/* The text a node came from, by precedence: 0 the preset, 1 the file, 2 --set. */
static int layer(const struct ld *ld, const cJSON *node)
{
    struct sj_pos pv, pk;
    const char *pn;
    bool pp;
    return !node_where(ld, node, &pv, &pk, &pn, &pp) ? 2 : pp ? 0 : 1;
}

/* absorb_width acts on "absorb" edges only (the sponge and Mur's condition,
 * src/sim.c; the spectral solver's pads): given without one, it is refused,
 * as a key that would do nothing. When a later text chose the edges than
 * the one that gave the width (-s boundary=fixed over an absorb scene, a
 * file's boundary over a preset's absorb_width), the width is ignored with
 * a warning instead, as a file's render keys are under -s render.mode
 * (refuse_unused). */
static int check_absorb_width(struct ld *ld, const cJSON *root, const cJSON *bnd)
{
    struct scene *sc = ld->sc;
    const cJSON *aw = member(root, "absorb_width");
    const bool inside = !aw && cJSON_IsObject(bnd) && (aw = member(bnd, "absorb_width"));
    for (int s = 0; aw && s < 4; s++)
        if (sc->boundary[s] == EDGE_ABSORB)
            return 0;
    if (!aw)
        return 0;
    char edges[160];
    const enum edge_kind *k = sc->boundary;
    if (k[0] == k[1] && k[1] == k[2] && k[2] == k[3])
        snprintf(edges, sizeof edges, "boundary: \"%s\"", edge_names[k[0]]);
    else
        snprintf(edges, sizeof edges, "boundary: left \"%s\", right \"%s\", top \"%s\", bottom \"%s\"",
                 edge_names[k[0]], edge_names[k[1]], edge_names[k[2]], edge_names[k[3]]);
    const char *path = inside ? "boundary.absorb_width" : "absorb_width";
    int chose = bnd ? layer(ld, bnd) : -1;   /* the latest text among the edges' */
    for (const cJSON *c = cJSON_IsObject(bnd) ? bnd->child : NULL; c; c = c->next)
        if (layer(ld, c) > chose)
            chose = layer(ld, c);
    struct sj_pos pv, pk;
    const char *pn;
    bool pp;
    if (!inside && chose > layer(ld, aw) && node_where(ld, aw, &pv, &pk, &pn, &pp)) {
        char by[320];
        snprintf(by, sizeof by, chose == 2 ? "--set boundary" : "%s's boundary", ld->name);
        if (sc->n_warned < SCENE_WARN_MAX
            && snprintf(sc->warned[sc->n_warned], sizeof sc->warned[0],
                        "%s:%d:%d: %s (%d) is not used by the edges that %s chose (%s): ignored", pn, pk.line,
                        pk.col, path, sc->absorb_width, by, edges) < 0)
            sc->warned[sc->n_warned][0] = '\0';
        sc->n_warned++;
        return 0;
    }
    return fail_key(ld, aw, path,
                    "acts on \"absorb\" edges only, and no edge is \"absorb\" (%s); give one or leave absorb_width "
                    "out, got %d",
                    edges, sc->absorb_width);
}

int load_boundary(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "left", "right", "top", "bottom", "absorb_width", NULL };
    struct scene *sc = ld->sc;
    const cJSON *v = member(root, "boundary");
    if (get_int(ld, root, "", "absorb_width", 1, 16384, &sc->absorb_width) < 0)
        return -1;
    if (!v)
        return check_absorb_width(ld, root, v);
    if (cJSON_IsString(v)) {
        int k;
        if (check_enum(ld, v, "boundary", edge_names, &k) < 0)
            return -1;
        for (int s = 0; s < 4; s++)
            sc->boundary[s] = (enum edge_kind)k;
        return check_absorb_width(ld, root, v);
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
    return check_wrap_pairs(ld, v) < 0 ? -1 : check_absorb_width(ld, root, v);
}

/* ---- render and output ---------------------------------------------------------------------- */

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

/* An optional picture: a file name, an image sequence's name, or null (as
 * --print-scene writes "none"). */
static int get_opt_file(struct ld *ld, const cJSON *obj, const char *path, const char *key, char **out)
{
    const cJSON *v = member(obj, key);
    if (v && cJSON_IsNull(v)) {
        free(*out);
        *out = NULL;
        return 0;
    }
    return get_file_or_sequence(ld, obj, path, key, out);
}

/* Whether a picture's name is a still PNG (not a video, not a sequence). */
static bool still_png(const char *name)
{
    size_t n = strlen(name);
    return scene_pattern_fields(name) == 0 && n > 4 && !strcasecmp(name + n - 4, ".png");
}

/* render.video_end "loop" acts on the mode's moving picture: refused where
 * there is none to act on ("hold" is what a still shows anyway, and what
 * --print-scene writes; docs/scene.md says where it does not apply). */
static int check_video_end(struct ld *ld, const cJSON *o)
{
    const struct render_config *r = &ld->sc->render;
    const cJSON *v = member(o, "video_end");
    const char *key, *pic = render_mode_picture(r, &key);
    if (!v || r->video_end != VIDEO_END_LOOP || !key || (pic && !still_png(pic)))
        return 0;
    return fail(ld, v, "render.video_end", "applies to a video or an image sequence, and render.%s is %s", key,
                pic ? "a still PNG" : "none");
}

/* render.atlas: [columns, rows], each 1..1024, or null (no atlas). */
static int get_atlas(struct ld *ld, const cJSON *obj, int out[2])
{
    const cJSON *v = member(obj, "atlas");
    if (!v)
        return 0;
    if (cJSON_IsNull(v)) {
        out[0] = out[1] = 0;
        return 0;
    }
    int n[2];
    for (int k = 0; k < 2; k++) {
        const cJSON *c = cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 ? cJSON_GetArrayItem(v, k) : NULL;
        double d = cJSON_IsNumber(c) ? c->valuedouble : 0;
        if (!(d >= 1 && d <= 1024 && d == floor(d)))
            return fail_got(ld, v, "render.atlas", "[columns, rows] with integers in [1, 1024], or null");
        n[k] = (int)d;
    }
    out[0] = n[0];
    out[1] = n[1];
    return 0;
}

/* The caustics floor's depth per cell: render.depth_map (cells) in place of
 * the uniform render.depth; depth_range only for a PNG map. */
static int load_floor_depth(struct ld *ld, const cJSON *o)
{
    static const struct range DEPTHS = { 0, 1e6, true, false };
    struct render_config *r = &ld->sc->render;
    const cJSON *range = member(o, "depth_range");
    const cJSON *map = member(o, "depth_map");
    if ((map && !cJSON_IsNull(map) && exclusive(ld, o, "render", "depth", "depth_map") < 0)
        || get_opt_file(ld, o, "render", "depth_map", &r->depth_map) < 0
        || get_pair(ld, o, "render", "depth_range", DEPTHS, r->depth_range) < 0)
        return -1;
    return check_depth_range(ld, range, "render", r->depth_map, "cells");
}

/* render.range is a key of every mode (render_mode_uses) but acts only in
 * those that map heights through it or with render.alpha "height"
 * (render_range_acts): elsewhere it is refused, or, when --set chose the
 * mode over a file's or preset's range, ignored with a warning, as the
 * other keys of a mode --set left are (refuse_unused_keys). */
static int check_range_acts(struct ld *ld, const cJSON *o)
{
    struct render_config *r = &ld->sc->render;
    const cJSON *range = member(o, "range");
    if (!range || render_range_acts(r))
        return 0;
    char got[80], hint[160];
    struct sj_pos pk;
    const char *pn, *mode = render_mode_name(r->mode);
    describe(range, got, sizeof got);
    if (kind_over_set(ld, o, range, "render", "mode", mode, &pn, &pk, hint, sizeof hint)) {
        struct scene *sc = ld->sc;
        if (sc->n_warned < SCENE_WARN_MAX
            && snprintf(sc->warned[sc->n_warned], sizeof sc->warned[0],
                        "%s:%d:%d: render.range (%s) is not used by the %s render mode that --set render.mode "
                        "chose (a key of height, colormap): ignored",
                        pn, pk.line, pk.col, got, mode) < 0)
            sc->warned[sc->n_warned][0] = '\0';
        sc->n_warned++;
        return 0;
    }
    return fail_key(ld, range, "render.range",
                    "not used by the %s render mode (a key of height, colormap, and of every mode with "
                    "render.alpha \"height\"), got %s",
                    mode, got);
}

int load_render(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "mode", "colormap", "range", "width", "height", "obstacle_color",
                                        "height_scale", "light", "water_color", "sky_color", "specular",
                                        "shininess", "background", "refraction", "depth", "floor",
                                        "floor_color", "reflectivity", "alpha", "normal_convention",
                                        "video_end", "atlas", "depth_map", "depth_range", NULL };
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
    const char *modes[RENDER_MODE_MAX + 1];
    render_mode_names(modes);
    GET_ENUM(ld, o, "render", "mode", modes, r->mode);
    const struct key_users mode_users = { "render", "mode", "render mode", "", " besides the keys of every mode",
                                          render_mode_count(), mode_name_at, mode_keys_at, mode_uses_at, true };
    if (refuse_unused_keys(ld, o, &mode_users, (int)r->mode) < 0)
        return -1;
    GET_ENUM(ld, o, "render", "alpha", alpha_names, r->alpha);
    GET_ENUM(ld, o, "render", "normal_convention", convention_names, r->normal_convention);
    GET_ENUM(ld, o, "render", "video_end", video_end_names, r->video_end);
    const cJSON *cmap = member(o, "colormap");
    int known_map;   /* a name the renderer finds ("gray" too), checked here for its position */
    if (get_name(ld, o, "render", "colormap", false, r->colormap) < 0
        || (cmap && !colormap_find(r->colormap)
            && check_enum(ld, cmap, "render.colormap", colormap_names, &known_map) < 0)
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
        || get_number(ld, o, "render", "reflectivity", UNIT, &r->reflectivity) < 0
        || get_atlas(ld, o, r->atlas) < 0 || check_video_end(ld, o) < 0 || load_floor_depth(ld, o) < 0)
        return -1;
    if (!(r->range[0] < r->range[1]))
        return fail_got(ld, member(o, "range"), "render.range", "[low, high] with low < high");
    if (check_range_acts(ld, o) < 0)
        return -1;
    /* libswscale stretches a line at most about 6900 times (its step, in
     * 1/65536 of a source pixel, must stay 10 or more); an own-size mode
     * (refract) renders at the render size itself. */
    const int grid_size[2] = { ld->sc->grid.width, ld->sc->grid.height }, size[2] = { r->width, r->height };
    static const char *const side[2] = { "width", "height" };
    for (int k = 0; k < 2 && !render_mode_own_size(r->mode); k++) {
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

int load_output(struct ld *ld, const cJSON *root)
{
    static const char *const keys[] = { "path", "codec", "crf", "preset", "pix_fmt", "bit_depth",
                                        "exr_compression", "format", "compression", NULL };
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
        || get_int(ld, o, "output", "bit_depth", 8, 32, &out->bit_depth) < 0
        || get_int(ld, o, "output", "compression", 0, 9, &out->compression) < 0)
        return -1;
    if (out->bit_depth != 8 && out->bit_depth != 16 && out->bit_depth != 32) {
        const cJSON *v = member(o, "bit_depth");
        char got[80];
        describe(v, got, sizeof got);
        return fail(ld, v, "output.bit_depth", "expected 8 or 16, got %s (32: float, for an .exr)", got);
    }
    GET_ENUM(ld, o, "output", "exr_compression", exr_compression_names, out->exr_compression);
    GET_ENUM(ld, o, "output", "format", format_names, out->format);
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

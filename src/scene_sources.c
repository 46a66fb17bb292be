/* scene_sources.c: the scene's lists: the sources (drops, rain, oscillators,
 * movers, initial), probes and obstacles, and the check that a source reaches
 * the grid. */
#include "scene_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sink.h"
#include "sources.h"

/* ---- the sources, probes and obstacles, in the contract's order ---------------------------- */

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

int load_drops(struct ld *ld, const cJSON *root)
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

int load_rain(struct ld *ld, const cJSON *root)
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

int load_oscillators(struct ld *ld, const cJSON *root)
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

/* A list of keyframes [time, a, b] at `key` of o (movers' path: positions;
 * obstacles' motion: offsets): at least one, times increasing. */
static int load_keys(struct ld *ld, const cJSON *o, const char *path, const char *key, const char *what,
                     struct path_point **out, int *n_out)
{
    char p[PATH_LEN], q[PATH_LEN], expect[64];
    const cJSON *v = member(o, key);
    join(p, path, key);
    snprintf(expect, sizeof expect, "an array of at least one %s point", what);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1)
        return fail_got(ld, v, p, expect);
    int n = cJSON_GetArraySize(v), i = 0;
    struct path_point *pts = alloc_list(ld, n, sizeof *pts);
    if (!(*out = pts))
        return -1;
    snprintf(expect, sizeof expect, "%s (three numbers)", what);
    for (const cJSON *pt = v->child; pt; pt = pt->next, i++) {
        join_index(q, p, i);
        const cJSON *c[3];
        for (int k = 0; k < 3; k++)
            c[k] = cJSON_GetArrayItem(pt, k);
        if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 3 || !cJSON_IsNumber(c[0])
            || !cJSON_IsNumber(c[1]) || !cJSON_IsNumber(c[2]) || !isfinite(c[0]->valuedouble)
            || !isfinite(c[1]->valuedouble) || !isfinite(c[2]->valuedouble))
            return fail_got(ld, pt, q, expect);
        pts[i] = (struct path_point){ c[0]->valuedouble, c[1]->valuedouble, c[2]->valuedouble };
        if (i > 0 && !(pts[i].time > pts[i - 1].time)) {
            char prev[32], now[32];
            fmt_num(prev, sizeof prev, pts[i - 1].time);
            fmt_num(now, sizeof now, pts[i].time);
            return fail(ld, c[0], q, "times must increase: expected a time > %s, got %s", prev, now);
        }
        *n_out = i + 1;
    }
    return 0;
}

int load_movers(struct ld *ld, const cJSON *root)
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
            || load_keys(ld, o, p, "path", "[time, x, y]", &m->path, &m->n_path) < 0
            || get_number(ld, o, p, "radius", NONNEG, &m->radius) < 0
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

int load_initial(struct ld *ld, const cJSON *root)
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

int load_probes(struct ld *ld, const cJSON *root)
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

/* Whether `name` is a regular file. */
static bool is_file(const char *name)
{
    struct stat st;
    return stat(name, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether a mask's path names a sequence: it holds one frame number field
 * (mask_%04d.png), or some '%' and no file has that name (refused by
 * load_mask_sequence); a file whose name has a '%' is still one mask. */
static bool is_sequence(struct ld *ld, const cJSON *v)
{
    struct rr_err scratch = { 0 };
    if (!cJSON_IsString(v) || !strchr(v->valuestring, '%'))
        return false;
    if (sink_pattern_check(v->valuestring, &scratch) == 0)
        return true;
    char name[4096];
    if (v->valuestring[0] == '/' || !ld->dir[0])
        snprintf(name, sizeof name, "%s", v->valuestring);
    else
        snprintf(name, sizeof name, "%s/%s", ld->dir, v->valuestring);
    return !is_file(name);
}

/* A mask path holding a frame number field (mask_%04d.png): the pattern,
 * resolved against the scene's folder (a '%' there doubled, so that the
 * resolved pattern still has one field), and the number of files in a row
 * from 0, counted up to the video's frames (more are never shown). A
 * sequence shorter than the video with a file after the gap is a missing
 * file, refused with the first missing name. */
static int load_mask_sequence(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob)
{
    char q[PATH_LEN], name[4096], shown[4096];
    const cJSON *v = member(o, "path");
    const char *given = v->valuestring;
    join(q, p, "path");
    struct rr_err scratch = { 0 };
    if (sink_pattern_check(given, &scratch) < 0)
        return fail(ld, v, q, "a mask sequence needs exactly one frame number field such as %%04d (%%d, %%i or %%u "
                    "with flags, width, precision; %%%% for a literal %%), got \"%s\"", given);
    size_t cap = 2 * strlen(ld->dir) + strlen(given) + 2;
    char *full = malloc(cap), *w = full;
    if (!full)
        return oom(ld);
    if (given[0] != '/' && ld->dir[0]) {
        for (const char *d = ld->dir; *d; d++)
            w += *d == '%' ? sprintf(w, "%%%%") : sprintf(w, "%c", *d);
        *w++ = '/';
    }
    strcpy(w, given);
    free(ob->path);
    ob->path = full;
    ob->sequence = true;
    int n = 0;
    while (n < ld->sc->time.frames && sink_pattern_name(name, sizeof name, full, n) == 0 && is_file(name))
        n++;
    ob->n_frames = n;
    if (n > 0 && (n == ld->sc->time.frames || sink_pattern_name(name, sizeof name, full, n + 1) < 0
                  || !is_file(name)))
        return note(ld, v, q);
    sink_pattern_name(shown, sizeof shown, given, n);
    if (n == 0)
        return fail(ld, v, q, "no file \"%s\" for frame 0 (a mask sequence numbers its files from 0)", shown);
    char next[4096];
    sink_pattern_name(next, sizeof next, given, n + 1);
    return fail(ld, v, q, "no file \"%s\" for frame %d, but \"%s\" follows", shown, n, next);
}

/* The shape's keys of each obstacle type (obstacle_types below); the
 * moving part is load_motion's. */
static int load_rect(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob)
{
    return require(ld, o, p, "x") < 0 || require(ld, o, p, "y") < 0 || require(ld, o, p, "width") < 0
               || require(ld, o, p, "height") < 0 || get_number(ld, o, p, "x", ANY, &ob->x) < 0
               || get_number(ld, o, p, "y", ANY, &ob->y) < 0
               || get_number(ld, o, p, "width", POSITIVE, &ob->width) < 0
               || get_number(ld, o, p, "height", POSITIVE, &ob->height) < 0 ? -1 : 0;
}

static int load_circle(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob)
{
    return require(ld, o, p, "x") < 0 || require(ld, o, p, "y") < 0 || require(ld, o, p, "radius") < 0
               || get_number(ld, o, p, "x", ANY, &ob->x) < 0
               || get_number(ld, o, p, "y", ANY, &ob->y) < 0
               || get_number(ld, o, p, "radius", POSITIVE, &ob->radius) < 0 ? -1 : 0;
}

static int load_polygon(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob)
{
    return require(ld, o, p, "points") < 0 || load_points(ld, o, p, ob) < 0 ? -1 : 0;
}

static int load_line(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob)
{
    ob->width = 1;
    return require(ld, o, p, "from") < 0 || require(ld, o, p, "to") < 0
               || get_pair(ld, o, p, "from", ANY, ob->from) < 0 || get_pair(ld, o, p, "to", ANY, ob->to) < 0
               || get_number(ld, o, p, "width", POSITIVE, &ob->width) < 0 ? -1 : 0;
}

static int load_mask(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob)
{
    ob->threshold = 0.5;
    if (require(ld, o, p, "path") < 0)
        return -1;
    if (is_sequence(ld, member(o, "path")))
        return load_mask_sequence(ld, o, p, ob) < 0 || get_number(ld, o, p, "threshold", UNIT, &ob->threshold) < 0
               || get_bool(ld, o, p, "invert", &ob->invert) < 0 ? -1 : 0;
    return get_file(ld, o, p, "path", &ob->path) < 0
           || get_number(ld, o, p, "threshold", UNIT, &ob->threshold) < 0
           || get_bool(ld, o, p, "invert", &ob->invert) < 0 ? -1 : 0;
}

/* The obstacle types (enum obstacle_type, named by obstacle_names), one
 * entry each: every key the type takes (check_keys refuses the others,
 * naming these) and the reader of its shape's keys. */
static const struct {
    const char *const keys[10];
    int (*load)(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob);
} obstacle_types[] = {
    [OBST_RECT] = { { "type", "x", "y", "width", "height", "motion", "push", NULL }, load_rect },
    [OBST_CIRCLE] = { { "type", "x", "y", "radius", "motion", "push", NULL }, load_circle },
    [OBST_POLYGON] = { { "type", "points", "motion", "push", NULL }, load_polygon },
    [OBST_LINE] = { { "type", "from", "to", "width", "motion", "push", NULL }, load_line },
    [OBST_MASK] = { { "type", "path", "threshold", "invert", "motion", "push", "repeat", NULL }, load_mask },
};

/* An obstacle's motion (offsets of its shape over time), the push of a wall
 * that moves, and a mask sequence's repeat; each refused where it cannot act. */
static int load_motion(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob)
{
    static const char *const repeat_names[] = { "hold", "loop", NULL };
    char q[PATH_LEN];
    const cJSON *v;
    if (member(o, "motion") && load_keys(ld, o, p, "motion", "[time, dx, dy]", &ob->motion, &ob->n_motion) < 0)
        return -1;
    if ((v = member(o, "repeat")) && !ob->sequence)
        return fail_key(ld, v, join(q, p, "repeat"),
                        "applies to a mask sequence only (a path with a frame number field such as mask_%%04d.png)");
    int repeat = ob->loop;
    if (get_enum(ld, o, p, "repeat", repeat_names, &repeat) < 0)
        return -1;
    ob->loop = repeat == 1;
    ob->push = 0.5;
    if ((v = member(o, "push")) && !ob->motion && !ob->sequence)
        return fail_key(ld, v, join(q, p, "push"),
                        "applies to a wall that moves only (give \"motion\", or a mask sequence)");
    return get_number(ld, o, p, "push", ANY, &ob->push);
}

static int load_obstacle(struct ld *ld, const cJSON *o, const char *p, struct obstacle *ob)
{
    int type;
    if (get_type(ld, o, p, obstacle_names, &type) < 0)
        return -1;
    ob->type = (enum obstacle_type)type;
    if (check_keys(ld, o, p, obstacle_types[type].keys, obstacle_names[type]) < 0
        || obstacle_types[type].load(ld, o, p, ob) < 0
        || load_motion(ld, o, p, ob) < 0)
        return -1;
    return 0;
}

int load_obstacles(struct ld *ld, const cJSON *root)
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

/* scene.c: JSON scene -> struct scene: reads the file, fills every default,
 * applies the --set overrides and calls the section readers (scene_sections.c,
 * scene_sources.c), whose refusals name file:line:col and the key path
 * (scene_check.c); the printer is scene_print.c. The keys are described in
 * docs/scene.md. */
#include "scene_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "outfile.h"
#include "render.h"
#include "solver.h"

/* ---- enum names: one table per enum, in enum order ---------------------------- */

const char *const edge_names[] = { "fixed", "clamp", "wrap", "absorb", NULL };
const char *const shape_names[] = { "point", "disc", "gaussian", "cosine", NULL };
const char *const mode_names[] = { "add", "set", NULL };
const char *const obstacle_names[] = { "rect", "circle", "polygon", "line", "mask", NULL };
const char *const initial_names[] = { "image", "wave", NULL };
const char *const alpha_names[] = { "none", "height", "caustics", NULL };
const char *const convention_names[] = { "opengl", "directx", NULL };
const char *const exr_compression_names[] = { "zip", "zips", "piz", "rle", "none", NULL };
const char *const format_names[] = { "y4m", "nut", NULL };
const char *const video_end_names[] = { "hold", "loop", NULL };

static const char *name_of(const char *const *names, int count, int v)
{
    return v >= 0 && v < count ? names[v] : "?";
}

/* The same for a NULL-terminated list. */
static const char *name_in(const char *const *names, int v)
{
    for (int k = 0; v >= 0 && names[k]; k++)
        if (k == v)
            return names[k];
    return "?";
}

const char *scene_edge_name(enum edge_kind k) { return name_of(edge_names, 4, (int)k); }
const char *scene_shape_name(enum shape_kind k) { return name_of(shape_names, 4, (int)k); }
const char *scene_render_mode_name(enum render_mode m) { return render_mode_name(m); }
const char *scene_render_alpha_name(enum render_alpha a) { return name_of(alpha_names, 3, (int)a); }
const char *scene_normal_convention_name(enum normal_convention c) { return name_of(convention_names, 2, (int)c); }
const char *scene_exr_compression_name(enum exr_compression c) { return name_of(exr_compression_names, 5, (int)c); }
const char *scene_output_format_name(enum output_format f) { return name_of(format_names, 2, (int)f); }
const char *scene_video_end_name(enum video_end v) { return name_of(video_end_names, 2, (int)v); }

/* ---- time steps ------------------------------------------------------------------- */

double scene_dt(const struct scene *sc)
{
    return 1.0 / (sc->time.fps * (double)sc->time.steps_per_frame);
}

long long scene_total_steps(const struct scene *sc)
{
    return (long long)sc->time.frames * sc->time.steps_per_frame;
}

long long scene_preroll_steps(const struct scene *sc)
{
    return llround(sc->time.preroll * sc->time.fps * (double)sc->time.steps_per_frame);
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
    free(sc->preset);
    free(sc->solver.speed_map);
    free(sc->solver.depth_map);
    free(sc->render.depth_map);
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
        free(sc->obstacles[i].motion);
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

/* ---- defaults and the top level ------------------------------------------------------------ */

/* The output's defaults but its path (docs/scene.md): "" and the first
 * names are zero. */
static void output_defaults(struct output_config *o)
{
    o->crf = -1;
    o->bit_depth = 8;
    o->compression = 3;
}

const char *const scene_output_keys[] = { "codec", "crf", "preset", "pix_fmt", "bit_depth", "exr_compression",
                                          "format", "compression", NULL };

/* Each output key's field in struct output_config: text, or an int (an
 * enum's value, written by its name in `names`, when names is set). */
static const struct output_field {
    const char *key;
    size_t at;
    bool integer;
    const char *const *names;   /* NULL-terminated */
} output_fields[] = {
    { "codec", offsetof(struct output_config, codec), false, NULL },
    { "crf", offsetof(struct output_config, crf), true, NULL },
    { "preset", offsetof(struct output_config, preset), false, NULL },
    { "pix_fmt", offsetof(struct output_config, pix_fmt), false, NULL },
    { "bit_depth", offsetof(struct output_config, bit_depth), true, NULL },
    { "exr_compression", offsetof(struct output_config, exr_compression), true, exr_compression_names },
    { "format", offsetof(struct output_config, format), true, format_names },
    { "compression", offsetof(struct output_config, compression), true, NULL },
};
_Static_assert(sizeof output_fields / sizeof *output_fields + 1 == sizeof scene_output_keys / sizeof *scene_output_keys,
               "every key of scene_output_keys has its output_fields row");
/* The enums are read as the int they are stored in. */
_Static_assert(sizeof(enum exr_compression) == sizeof(int) && sizeof(enum output_format) == sizeof(int),
               "output enums are int-sized");

/* Where a value came from, with the separator: "scene.json:3:12: ",
 * "preset pool:9:5: " or "--set ". */
static void origin_where(const struct scene *sc, const struct scene_origin *from, char *where, size_t wn)
{
    const char *name = strcmp(sc->file ? sc->file : "", "-") ? sc->file : "<stdin>";
    if (from->line && from->preset)
        snprintf(where, wn, "preset %s:%d:%d: ", sc->preset, from->line, from->col);
    else if (from->line)
        snprintf(where, wn, "%s:%d:%d: ", name, from->line, from->col);
    else
        snprintf(where, wn, "--set ");
}

bool scene_output_given(const struct scene *sc, const char *key, char *value, size_t n, char *where, size_t wn)
{
    struct output_config d = { 0 };
    output_defaults(&d);
    char path[PATH_LEN];
    snprintf(path, sizeof path, "output.%s", key);
    const struct scene_origin *from = NULL;
    for (int i = 0; i < sc->n_origins && !from; i++)
        if (!strcmp(sc->origins[i].key, path) && !sc->origins[i].preset)
            from = &sc->origins[i];
    for (size_t i = 0; from && i < sizeof output_fields / sizeof *output_fields; i++) {
        const struct output_field *fd = &output_fields[i];
        if (strcmp(fd->key, key))
            continue;
        const char *now = (const char *)&sc->output + fd->at, *was = (const char *)&d + fd->at;
        if (fd->integer) {
            int v, dv;
            memcpy(&v, now, sizeof v);
            memcpy(&dv, was, sizeof dv);
            if (v == dv)
                return false;
            if (fd->names)
                snprintf(value, n, "\"%s\"", name_in(fd->names, v));
            else
                snprintf(value, n, "%d", v);
        } else {
            if (!strcmp(now, was))
                return false;
            snprintf(value, n, "\"%s\"", now);
        }
        origin_where(sc, from, where, wn);
        return true;
    }
    return false;
}

int scene_key_given(const struct scene *sc, const char *key, char *value, size_t vn, char *where, size_t wn)
{
    for (int i = 0; i < sc->n_origins; i++) {
        const struct scene_origin *o = &sc->origins[i];
        if (o->preset || strcmp(o->key, key))
            continue;
        snprintf(value, vn, "%s", o->value);
        origin_where(sc, o, where, wn);
        return o->line ? 1 : 2;
    }
    return 0;
}

bool scene_key_set(const struct scene *sc, const char *key)
{
    for (int i = 0; i < sc->n_origins; i++)
        if (!sc->origins[i].preset && !sc->origins[i].line && !strcmp(sc->origins[i].key, key))
            return true;
    return false;
}

int scene_section_given(const struct scene *sc, const char *section, char *key, size_t kn, char *value, size_t vn,
                        char *where, size_t wn)
{
    const size_t len = strlen(section);
    int given = 0;
    const struct scene_origin *first = NULL;   /* in reading order: the file's by place, then --set's */
    for (int i = 0; i < sc->n_origins; i++) {
        const struct scene_origin *o = &sc->origins[i];
        if (o->preset || strncmp(o->key, section, len) || o->key[len] != '.')
            continue;
        bool again = false;   /* a file key's own record (get_file) beside its member's */
        for (int j = 0; j < i && !again; j++)
            again = !sc->origins[j].preset && !strcmp(sc->origins[j].key, o->key);
        if (again)
            continue;
        given++;
        if (!first || (o->line && (!first->line || o->line < first->line
                                   || (o->line == first->line && o->col < first->col))))
            first = o;
    }
    if (first) {
        snprintf(key, kn, "%s", first->key);
        snprintf(value, vn, "%s", first->value);
        origin_where(sc, first, where, wn);
    }
    return given;
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
        .type = solver_find("elias"),          /* in every build's table (src/solvers/registry.c) */
        .damping = 0.99, .neighbors = 4,
        .flow = 1.0,                           /* seed 000: full speed */
        .blend = 0.99, .passes = 2,            /* seed 002's blendFactor; an even count is stable in 2-D */
        .speed = 0.2, .speed_range = { 0.1, 0.3 },
        .gravity = 9.81, .surface_tension = 0.0728, .density = 1000, .viscosity = 1e-6,
        .depth_range = { 0.005, 0.05 },
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
    sc->render.depth_range[0] = 10.0;
    sc->render.depth_range[1] = 60.0;
    memcpy(sc->render.floor_color, (unsigned char[3]){ 150, 170, 160 }, 3);
    output_defaults(&sc->output);
    return (sc->output.path = strdup("out/ripple.mp4")) ? 0 : -1;
}

static const char *const root_keys[] = { "grid", "time", "solver", "boundary", "absorb_width", "drops",
                                         "rain", "oscillators", "movers", "initial", "probes",
                                         "obstacles", "render", "output", "$schema", "$comment", NULL };

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
    if (best && best->line && best->preset)
        rr_wrap(e, "preset %s:%d:%d: ", sc->preset, best->line, best->col);
    else if (best && best->line)
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
    /* "$comment" says what the scene is for (a preset's line in --preset
     * list); like "$schema", checked and not kept. */
    const cJSON *comment = member(root, "$comment");
    if (comment && !cJSON_IsString(comment))
        return fail_got(ld, comment, "$comment", "a string");
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
    if (!(time && member(time, "steps_per_frame")) && sc->solver.type->step_limit)
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
/* read(2) of fd; a pipe, FIFO or terminal is first waited on with poll,
 * which a stop signal's handler cuts short (EINTR), where a read would be
 * restarted after it (SA_RESTART): SIGTERM ends a wait for a writer that
 * stalls. */
static ssize_t read_some(int fd, char *buf, size_t n)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, -1) < 0)
            return -1;
    }
    return read(fd, buf, n);
}

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
        ssize_t r = read_some(fileno(f), buf + n, want);
        if (r < 0) {
            int err = errno;
            free(buf);
            errno = err;
            return NULL;
        }
        size_t got = (size_t)r;
        n += got;
        if (n > RR_SCENE_MAX_BYTES) {
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        if (got == 0)
            break;
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

/* One scene text (a file's, or a preset's) parsed: its tree and position
 * map, after the strict checks (a NUL byte, RFC 8259's syntax, a \u0000
 * escape), each refused at its line:col in ld->name. Returns 0, or -1 with
 * ld->e filled and nothing to free. */
static int parse_text(struct ld *ld, const char *text, size_t len, cJSON **rootp, struct sj_posmap **pmp)
{
    size_t off;
    const char *reason;
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        struct sj_pos p = sj_linecol(text, (size_t)(nul - text));
        return rr_fail(ld->e, RR_EXIT_USAGE, "%s:%d:%d: invalid JSON: a NUL byte in the text", ld->name, p.line,
                       p.col);
    }
    cJSON *root = cJSON_ParseWithOpts(text, NULL, 1);
    if (!root) {
        /* The strict scanner says precisely what is wrong. When it finds
         * nothing, cJSON failed for want of memory (its error pointer then
         * points into valid text, so it is no syntax error to report; make
         * failtest runs this path). */
        if (sj_check_syntax(text, len, &off, &reason) < 0)
            return syntax_error(ld, text, len, off, reason);
        return oom(ld);
    }
    struct sj_posmap *pm = NULL;
    if (sj_posmap_build(&pm, text, len, root, &off, &reason) < 0) {
        cJSON_Delete(root);
        return reason ? syntax_error(ld, text, len, off, reason) : oom(ld);
    }
    const struct sj_posmap *outer = ld->pm;
    ld->pm = pm;   /* the refusals below are located in this text */
    bool nul_in_key;
    const cJSON *nul_node = sj_posmap_nul(pm, &nul_in_key);
    int rc = 0;
    if (nul_node) {
        char at[PATH_LEN] = "";
        node_path(root, nul_node, "", at);
        rc = (nul_in_key ? fail_key : fail)(ld, nul_node, at, "\\u0000 (a NUL character) in a %s would cut it "
                                            "short: not allowed", nul_in_key ? "key" : "string");
    } else if (!cJSON_IsObject(root)) {
        rc = fail_got(ld, root, "", "a JSON object at the top level");
    }
    ld->pm = outer;
    if (rc < 0) {
        sj_posmap_free(pm);
        cJSON_Delete(root);
        return -1;
    }
    *rootp = root;
    *pmp = pm;
    return 0;
}

/* Whether the file's object `a` is of the preset's object b's kind, by its
 * "type" (solver, obstacles) and "mode" (render): a has none (it takes b's),
 * or both the same. Another kind's keys do not apply (scene_sections.c). */
static bool same_type(const cJSON *a, const cJSON *b)
{
    static const char *const kinds[] = { "type", "mode" };
    for (int k = 0; k < 2; k++) {
        const cJSON *ta = member(a, kinds[k]), *tb = member(b, kinds[k]);
        if (ta && !(tb && cJSON_IsString(ta) && cJSON_IsString(tb) && !strcmp(ta->valuestring, tb->valuestring)))
            return false;
    }
    return true;
}

/* Keys that exclude each other in one object (scene_sections.c refuses both
 * in one text): a later layer's choice of one replaces the preset's other. */
static const char *const alternatives[][2] = {
    { "damping", "damping_shift" }, { "damping", "half_life" }, { "damping_shift", "half_life" },
    { "depth", "depth_map" },       { "speed", "depth" },       { "speed_map", "depth" },
    { "speed_range", "depth" },     { "speed", "depth_map" },   { "speed_map", "depth_map" },
    { "speed_range", "depth_map" }, { "speed", "speed_map" },  { "speed", "speed_range" },
    { "wavelength", "frequency" },  { "time", "frame" },
};

static bool alternative(const char *a, const char *b)
{
    for (size_t i = 0; i < sizeof alternatives / sizeof alternatives[0]; i++)
        if ((!strcmp(a, alternatives[i][0]) && !strcmp(b, alternatives[i][1]))
            || (!strcmp(a, alternatives[i][1]) && !strcmp(b, alternatives[i][0])))
            return true;
    return false;
}

/* Whether obj holds an alternative of key. */
static bool excluded(const cJSON *obj, const char *key)
{
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && alternative(c->string, key))
            return true;
    return false;
}

/* After --set KEY=...: removes from KEY's object the alternatives of KEY
 * that came from the preset (known to its position map). */
static void drop_preset_alternatives(cJSON *root, const char *set, const struct sj_posmap *base_pm,
                                     cJSON *graveyard)
{
    char path[512];
    size_t n = strcspn(set, "=");
    if (!base_pm || n >= sizeof path)
        return;
    memcpy(path, set, n);
    path[n] = '\0';
    cJSON *obj = root;
    char *part = path, *dot;
    while ((dot = strchr(part, '.'))) {
        *dot = '\0';
        obj = cJSON_IsArray(obj) ? cJSON_GetArrayItem(obj, atoi(part)) : cJSON_GetObjectItemCaseSensitive(obj, part);
        if (!obj)
            return;
        part = dot + 1;
    }
    if (!cJSON_IsObject(obj))
        return;
    for (cJSON *c = obj->child, *next; c; c = next) {
        next = c->next;
        struct sj_pos at;
        if (c->string && alternative(c->string, part) && sj_posmap_find(base_pm, c, &at, NULL))
            cJSON_AddItemToArray(graveyard, cJSON_DetachItemViaPointer(obj, c));
    }
}

/* Folds the preset's object `base` into the file's object `over`: a member
 * `over` lacks moves in (after over's own); one both hold as objects of one
 * kind (same_type) is folded likewise; any other `over` keeps its own and
 * base's goes. A key the file holds twice stays twice, for check_keys to
 * refuse. Nodes keep their addresses (the position maps know them); the
 * ones dropped go to the graveyard. */
static void fold(cJSON *over, cJSON *base, cJSON *graveyard)
{
    while (base->child) {
        cJSON *b = cJSON_DetachItemViaPointer(base, base->child);
        cJSON *o = cJSON_GetObjectItemCaseSensitive(over, b->string);
        if (!o && excluded(over, b->string)) {   /* the file chose another alternative */
            cJSON_AddItemToArray(graveyard, b);
            continue;
        }
        if (!o) {
            cJSON_AddItemToArray(over, b);   /* appends and keeps b->string: an object's member */
            continue;
        }
        if (cJSON_IsObject(o) && cJSON_IsObject(b) && same_type(o, b))
            fold(o, b, graveyard);
        cJSON_AddItemToArray(graveyard, b);
    }
}

const struct scene_preset *scene_preset_find(const char *name, struct rr_err *e)
{
    struct scene_guess g = { .word = name };
    char names[512] = "";
    size_t at = 0;
    for (const struct scene_preset *p = scene_presets; p->name; p++) {
        if (!strcmp(p->name, name))
            return p;
        scene_guess_offer(&g, p->name);
        if (at < sizeof names)
            at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "", p->name);
    }
    if (g.best)
        rr_fail(e, RR_EXIT_USAGE, "--preset %s: no such preset; did you mean \"%s\"? (the presets: %s)", name,
                g.best, names);
    else
        rr_fail(e, RR_EXIT_USAGE, "--preset %s: no such preset (the presets: %s)", name, names);
    return NULL;
}

int scene_load(struct scene *sc, const char *path, const char *const *sets, int n_sets, struct rr_err *e)
{
    return scene_load_preset(sc, NULL, path, sets, n_sets, e);
}

int scene_load_preset(struct scene *sc, const struct scene_preset *preset, const char *path,
                      const char *const *sets, int n_sets, struct rr_err *e)
{
    char preset_name[96];
    if (preset)
        snprintf(preset_name, sizeof preset_name, "preset %s", preset->name);
    struct ld ld = { .name = !path ? preset_name : strcmp(path, "-") ? path : "<stdin>", .e = e, .sc = sc,
                     .base_name = preset ? preset_name : NULL };
    struct sj_posmap *pm = NULL, *base_pm = NULL;
    cJSON *root = NULL, *base = NULL, *graveyard = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc = -1;

    memset(sc, 0, sizeof *sc);
    if (path) {
        FILE *f = strcmp(path, "-") ? outfile_fopen_input(path, false) : stdin;
        text = f ? read_all(f, &len) : NULL;
        int err = errno;
        if (f && f != stdin)
            fclose(f);
        if (!text) {
            if (err == EINTR)
                return rr_fail(e, RR_EXIT_INTERRUPTED, "interrupted before the first frame (waiting for the writer "
                               "of %s); nothing written", ld.name);
            if (err == ENOMEM)
                return oom(&ld);
            if (err == EFBIG)
                return rr_fail(e, RR_EXIT_USAGE, "%s: larger than %zu bytes (%zu MiB), the limit of a scene file",
                               ld.name, RR_SCENE_MAX_BYTES, RR_SCENE_MAX_BYTES >> 20);
            return rr_fail(e, RR_EXIT_USAGE, "%s: cannot read: %s", ld.name, strerror(err));
        }
    }
    size_t preset_len = preset ? strlen(preset->text) : 0, sets_len = 0;
    for (int i = 0; i < n_sets; i++)   /* --set's values are parsed as the file is */
        sets_len += strlen(sets[i]);
    sc->text_bytes = len + preset_len + sets_len;
    char text_name[PATH_MAX + 32];
    snprintf(text_name, sizeof text_name, "%s%s", ld.name, sets_len ? " and its --set values" : "");
    if (budget_check_scene_text(sc->text_bytes, text_name, e) < 0) {   /* before cJSON's nodes are made */
        free(text);
        return -1;
    }
    if (set_defaults(sc) < 0 || !(sc->file = strdup(path ? path : preset_name))
        || (preset && !(sc->preset = strdup(preset->name))) || !(ld.dir = scene_dir(path ? path : "-"))
        || !(graveyard = cJSON_CreateArray())) {
        oom(&ld);
        goto end;
    }
    if (preset) {
        const char *file_name = ld.name;
        ld.name = preset_name;
        int r = parse_text(&ld, preset->text, preset_len, &base, &base_pm);
        ld.name = file_name;
        if (r < 0)
            goto end;
        ld.base_pm = base_pm;
    }
    if (path && parse_text(&ld, text, len, &root, &pm) < 0)
        goto end;
    ld.pm = pm;
    if (root && base) {
        fold(root, base, graveyard);   /* the file's keys over the preset's */
    } else if (base) {
        root = base;
        base = NULL;
    }
    for (int i = 0; i < n_sets; i++) {
        char msg[600];
        bool out_of_memory;
        if (sj_apply_set(root, graveyard, sets[i], msg, sizeof msg, &out_of_memory) < 0) {
            rr_fail(e, out_of_memory ? RR_EXIT_RUNTIME : RR_EXIT_USAGE, "--set %s", msg);
            goto end;
        }
        drop_preset_alternatives(root, sets[i], base_pm, graveyard);
    }
    rc = load_root(&ld, root);
end:
    if (rc < 0)
        scene_free(sc);
    sj_posmap_free(pm);
    sj_posmap_free(base_pm);
    cJSON_Delete(root);
    cJSON_Delete(base);
    cJSON_Delete(graveyard);
    free(ld.dir);
    free(text);
    return rc;
}

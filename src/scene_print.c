/* scene_print.c: the resolved scene printed back as JSON (--print-scene), in
 * a form that scene_load reads back to the same scene. */
#include "scene_internal.h"

#include "render.h"

#include <stdlib.h>

#include "image.h"
#include "solver.h"

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
    const struct solver_ops *t = s->type;
    add_str(o, "type", t->name, ok);
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
    if (solver_uses(t, "speed") && (s->depth > 0 || s->depth_map)) {
        /* wave from depth: the speed keys would be refused beside these */
        add_num(o, "gravity", s->gravity, ok);
        if (s->depth_map)
            add_str(o, "depth_map", s->depth_map, ok);
        else
            add_num(o, "depth", s->depth, ok);
        if (s->depth_map && !image_is_npy(s->depth_map))
            add_pair(o, "depth_range", s->depth_range, ok);
        if (s->wavelength > 0)
            add_num(o, "wavelength", s->wavelength, ok);
        if (s->frequency > 0)
            add_num(o, "frequency", s->frequency, ok);
        add_num(o, "decay", s->decay, ok);
    } else if (solver_uses(t, "speed")) {
        /* the speed, or the map and its range: the loader refuses the keys
         * of the way not taken */
        if (s->speed_map) {
            add_str(o, "speed_map", s->speed_map, ok);
            add_pair(o, "speed_range", s->speed_range, ok);
        } else {
            add_num(o, "speed", s->speed, ok);
            *ok = *ok && cJSON_AddNullToObject(o, "speed_map");
        }
        add_num(o, "decay", s->decay, ok);
    }
    if (solver_uses(t, "surface_tension")) {
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
    /* Only where it acts (an absorb edge): the loader refuses it elsewhere. */
    for (int s = 0; s < 4; s++)
        if (b[s] == EDGE_ABSORB) {
            add_num(root, "absorb_width", sc->absorb_width, ok);
            break;
        }
}

/* Keyframes [time, a, b] as an array at key k of o. */
static void add_keys(cJSON *o, const char *k, const struct path_point *p, int n, bool *ok)
{
    cJSON *path = add_arr(o, k, ok);
    for (int i = 0; path && i < n; i++) {
        double t[3] = { p[i].time, p[i].x, p[i].y };
        cJSON *pt = num_array(t, 3);
        if (!pt || !cJSON_AddItemToArray(path, pt)) {
            cJSON_Delete(pt);
            *ok = false;
        }
    }
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
        add_keys(o, "path", m->path, m->n_path, ok);
        add_num(o, "radius", m->radius, ok);
        add_num(o, "amplitude", m->amplitude, ok);
        add_str(o, "shape", scene_shape_name(m->shape), ok);
    }
}

/* The shape's keys of each obstacle type (enum obstacle_type), one entry
 * each, as src/scene_sources.c's obstacle_types reads them. */
static void print_rect(cJSON *o, const struct obstacle *ob, bool *ok)
{
    add_num(o, "x", ob->x, ok);
    add_num(o, "y", ob->y, ok);
    add_num(o, "width", ob->width, ok);
    add_num(o, "height", ob->height, ok);
}

static void print_circle(cJSON *o, const struct obstacle *ob, bool *ok)
{
    add_num(o, "x", ob->x, ok);
    add_num(o, "y", ob->y, ok);
    add_num(o, "radius", ob->radius, ok);
}

static void print_polygon(cJSON *o, const struct obstacle *ob, bool *ok)
{
    cJSON *pts = add_arr(o, "points", ok);
    for (int k = 0; pts && k < ob->n_points; k++) {
        cJSON *pt = num_array(ob->points[k], 2);
        if (!pt || !cJSON_AddItemToArray(pts, pt)) {
            cJSON_Delete(pt);
            *ok = false;
        }
    }
}

static void print_line(cJSON *o, const struct obstacle *ob, bool *ok)
{
    add_pair(o, "from", ob->from, ok);
    add_pair(o, "to", ob->to, ok);
    add_num(o, "width", ob->width, ok);
}

static void print_mask(cJSON *o, const struct obstacle *ob, bool *ok)
{
    add_str(o, "path", ob->path, ok);
    add_num(o, "threshold", ob->threshold, ok);
    *ok = *ok && cJSON_AddBoolToObject(o, "invert", ob->invert);
    if (ob->sequence)
        add_str(o, "repeat", ob->loop ? "loop" : "hold", ok);
}

static void (*const obstacle_printers[])(cJSON *o, const struct obstacle *ob, bool *ok) = {
    [OBST_RECT] = print_rect, [OBST_CIRCLE] = print_circle, [OBST_POLYGON] = print_polygon,
    [OBST_LINE] = print_line, [OBST_MASK] = print_mask,
};

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
        obstacle_printers[ob->type](o, ob, ok);
        /* A still obstacle has no motion and no push (both refused there). */
        if (ob->motion)
            add_keys(o, "motion", ob->motion, ob->n_motion, ok);
        if (ob->motion || ob->sequence)
            add_num(o, "push", ob->push, ok);
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
        /* The keys of every mode, and this mode's own (the loader refuses
         * another mode's keys). */
#define USES(key) render_mode_uses(r->mode, key)
        if (USES("colormap"))
            add_str(o, "colormap", r->colormap, ok);
        if (render_range_acts(r))
            add_pair(o, "range", r->range, ok);
        add_num(o, "width", r->width, ok);
        add_num(o, "height", r->height, ok);
        add_item(o, "obstacle_color", color_array(r->obstacle_color), ok);
        if (USES("height_scale"))
            add_num(o, "height_scale", r->height_scale, ok);
        if (USES("light"))
            add_item(o, "light", num_array(r->light, 3), ok);
        if (USES("water_color"))
            add_item(o, "water_color", color_array(r->water_color), ok);
        if (USES("sky_color"))
            add_item(o, "sky_color", color_array(r->sky_color), ok);
        if (USES("specular"))
            add_num(o, "specular", r->specular, ok);
        if (USES("shininess"))
            add_num(o, "shininess", r->shininess, ok);
        if (USES("background"))
            add_opt_str(o, "background", r->background, ok);
        if (USES("refraction"))
            add_num(o, "refraction", r->refraction, ok);
        if (USES("depth_map") && r->depth_map) {
            add_str(o, "depth_map", r->depth_map, ok);
            if (!image_is_npy(r->depth_map))
                add_pair(o, "depth_range", r->depth_range, ok);
        } else if (USES("depth")) {
            add_num(o, "depth", r->depth, ok);
        }
        if (USES("floor"))
            add_opt_str(o, "floor", r->floor, ok);
        if (USES("floor_color"))
            add_item(o, "floor_color", color_array(r->floor_color), ok);
        if (USES("reflectivity"))
            add_num(o, "reflectivity", r->reflectivity, ok);
        add_str(o, "alpha", scene_render_alpha_name(r->alpha), ok);
        if (USES("normal_convention"))
            add_str(o, "normal_convention", scene_normal_convention_name(r->normal_convention), ok);
        if (USES("video_end"))
            add_str(o, "video_end", scene_video_end_name(r->video_end), ok);
#undef USES
        if (r->atlas[0]) {
            double cr[2] = { r->atlas[0], r->atlas[1] };
            add_item(o, "atlas", num_array(cr, 2), ok);
        } else {
            *ok = *ok && cJSON_AddNullToObject(o, "atlas");
        }
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
        add_str(o, "format", scene_output_format_name(out->format), ok);
        add_num(o, "compression", out->compression, ok);
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
        add_num(o, "preroll", sc->time.preroll, &ok);
        ok = ok && cJSON_AddBoolToObject(o, "loop", sc->time.loop);
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

/* scene_internal.h: what the scene loader's files share, private to them.
 *
 * scene.c reads the file and calls the section readers in the contract's
 * order (scene_sections.c: grid, time, solver, boundary, render, output;
 * scene_sources.c: drops, rain, oscillators, movers, initial, probes,
 * obstacles). They read keys through scene_check.c's typed readers, which
 * refuse a bad value with one located message; scene_print.c writes the
 * resolved scene back. Every reader returns 0, or -1 with ld->e set. */
#ifndef RR_SCENE_INTERNAL_H
#define RR_SCENE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "scene.h"
#include "scene_json.h"

#define PATH_LEN 256          /* longest key path shown in a message */
#define SEED_MAX (1LL << 53)  /* every integer up to here is exact in a JSON double */

/* ---- enum names: one table per enum, in enum order, NULL-terminated (scene.c) ---- */

extern const char *const edge_names[];
extern const char *const shape_names[];
extern const char *const mode_names[];
extern const char *const obstacle_names[];
extern const char *const initial_names[];
extern const char *const alpha_names[];
extern const char *const convention_names[];
extern const char *const exr_compression_names[];
extern const char *const format_names[];
extern const char *const video_end_names[];

/* ---- the loader's state ------------------------------------------------------------- */

struct ld {
    const char *name;              /* the scene's name in messages ("<stdin>" for "-") */
    const struct sj_posmap *pm;    /* the file's nodes (NULL: a preset alone) */
    const char *base_name;         /* "preset NAME" with --preset, else NULL */
    const struct sj_posmap *base_pm;   /* the preset's nodes the file did not replace */
    struct rr_err *e;
    char *dir;                     /* folder that relative paths are resolved against */
    struct scene *sc;
};

/* ---- messages and key paths (scene_check.c) ---------------------------------------------- */

void describe(const cJSON *v, char *buf, size_t size);
/* The value as compact JSON, as describe writes it, cut to fit buf with
 * "..."; allocates nothing (for what a run keeps: scene_origin.value). */
void brief(const cJSON *v, char *buf, size_t n);
/* Where node came from: its value's and key's positions and the name of
 * its text (the file, or the preset: *in_preset). False for nodes --set made. */
bool node_where(const struct ld *ld, const cJSON *node, struct sj_pos *val, struct sj_pos *key, const char **name,
                bool *in_preset);
int fail(struct ld *ld, const cJSON *node, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int fail_key(struct ld *ld, const cJSON *node, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int fail_got(struct ld *ld, const cJSON *node, const char *path, const char *what);
int oom(struct ld *ld);
const char *join(char *buf, const char *parent, const char *key);
const char *join_index(char *buf, const char *parent, int i);
void list_names(char *buf, size_t size, const char *const *names);
int check_keys(struct ld *ld, const cJSON *obj, const char *path, const char *const *known,
               const char *for_type);
void fmt_num(char *buf, size_t size, double v);

/* ---- typed readers (scene_check.c): absent keys leave *out (the default) untouched ---- */

/* Bounds of a number; open ends exclude the bound itself. */
struct range {
    double min, max;
    bool open_min, open_max;
};

extern const struct range ANY, POSITIVE, NONNEG, UNIT;

const cJSON *member(const cJSON *obj, const char *key);
int check_number(struct ld *ld, const cJSON *v, const char *path, struct range r, double *out);
int get_number(struct ld *ld, const cJSON *obj, const char *path, const char *key, struct range r,
               double *out);
int check_int(struct ld *ld, const cJSON *v, const char *path, long long min, long long max,
              long long *out);
int get_int(struct ld *ld, const cJSON *obj, const char *path, const char *key, long long min,
            long long max, int *out);
int get_bool(struct ld *ld, const cJSON *obj, const char *path, const char *key, bool *out);
int get_name(struct ld *ld, const cJSON *obj, const char *path, const char *key, bool allow_empty,
             char out[RR_NAME_MAX]);
int check_enum(struct ld *ld, const cJSON *v, const char *path, const char *const *names, int *out);
int get_enum(struct ld *ld, const cJSON *obj, const char *path, const char *key,
             const char *const *names, int *out);

#define GET_ENUM(ld, obj, path, key, names, field)                                   \
    do {                                                                             \
        int v_ = (int)(field);                                                       \
        if (get_enum(ld, obj, path, key, names, &v_) < 0)                            \
            return -1;                                                               \
        (field) = v_;                                                                \
    } while (0)

int check_pair(struct ld *ld, const cJSON *v, const char *path, struct range r, double out[2]);
int get_pair(struct ld *ld, const cJSON *obj, const char *path, const char *key, struct range r,
             double out[2]);
int get_span(struct ld *ld, const cJSON *obj, const char *path, const char *key, struct range r,
             double out[2]);
int get_object(struct ld *ld, const cJSON *obj, const char *path, const char *key,
               const cJSON **out);
int get_list(struct ld *ld, const cJSON *obj, const char *key, const cJSON **out, int *n);
int require(struct ld *ld, const cJSON *obj, const char *path, const char *key);
int exclusive(struct ld *ld, const cJSON *obj, const char *path, const char *a, const char *b);
int note(struct ld *ld, const cJSON *node, const char *path);
int get_file(struct ld *ld, const cJSON *obj, const char *path, const char *key, char **out);
/* A picture that may move (render.background, render.floor): get_file's
 * file, or an image sequence's name with one printf frame field
 * (scene_pattern_fields), resolved the same way, whose image 0 or 1 must be
 * readable now; the rest are checked when rendering starts. */
int get_file_or_sequence(struct ld *ld, const cJSON *obj, const char *path, const char *key, char **out);
int get_moment(struct ld *ld, const cJSON *obj, const char *path, struct moment *m);

/* ---- the sections (scene_sections.c, scene_sources.c) ------------------------------------ */

int load_grid(struct ld *ld, const cJSON *root);
int load_time(struct ld *ld, const cJSON *root);
int load_solver(struct ld *ld, const cJSON *root);
int load_boundary(struct ld *ld, const cJSON *root);
int load_drops(struct ld *ld, const cJSON *root);
int load_rain(struct ld *ld, const cJSON *root);
int load_oscillators(struct ld *ld, const cJSON *root);
int load_movers(struct ld *ld, const cJSON *root);
int load_initial(struct ld *ld, const cJSON *root);
int load_probes(struct ld *ld, const cJSON *root);
int load_obstacles(struct ld *ld, const cJSON *root);
int load_render(struct ld *ld, const cJSON *root);
int load_output(struct ld *ld, const cJSON *root);

#endif

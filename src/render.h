/* render.h: height field -> rgb24 picture (and 16-bit grey, raw heights).
 *
 * Modes: height (grey; range[0] black, range[1] white, 0 mid-grey), colormap
 * (a named map over range), shaded, refract, normals, caustics (lit water,
 * a background through the surface, a tangent-space normal map, the floor's
 * light: src/render/, docs/render.md). Walls are painted in
 * render.obstacle_color. When render.width/height differ from the grid, the
 * picture is scaled with libswscale (bicubic, bit-exact flags, so frames are
 * the same on every CPU), except refract, which samples its background at
 * render size itself. RENDER_NEED_YUV420 (a yuv420p encoder) has the
 * scaled picture made in yuv420p as well: the grid-size rgb converted by
 * sinks/yuv420.c and each plane scaled as grey, which is far cheaper than
 * scaling packed rgb24; with RENDER_YUV_ONLY the rgb is then not scaled.
 *
 * Every mode computes its colours in float and rounds them to 8 bits for
 * rgb; a sink that asks for RENDER_NEED_RGB16 gets the same values rounded
 * to 16 bits as well (unit_round(v, 65535)), and RENDER_NEED_ALPHA adds
 * render.alpha's plane: 0 transparent to full opaque, walls opaque. */
#ifndef RR_RENDER_H
#define RR_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "field.h"
#include "frame.h"
#include "rr_err.h"
#include "scene.h"

struct renderer;

/* Prepares buffers, the scaler and the mode (its table: render/modes.h).
 * `needs` is a mask of enum render_needs (frame.h). Returns 0 and *out, or
 * -1 with e filled (RR_EXIT_USAGE for an unknown colormap, a render.alpha
 * the mode has no source for, RENDER_NEED_FLOAT from a mode without a float
 * picture or with a render size other than the grid's, or an unreadable
 * background or floor PNG; RR_EXIT_RUNTIME for memory). */
int render_create(struct renderer **out, const struct scene *sc, int needs, struct rr_err *e);

/* Renders the field's current heights. fr's pointers are owned by the renderer
 * and valid until the next call. Returns 0, or -1 with e filled. */
int render_frame(struct renderer *r, const struct field *f, const unsigned char *walls,
                 long index, struct frame *fr, struct rr_err *e);

/* The same, with the rgb picture written to target (render width * height * 3
 * bytes, packed rows) instead of the renderer's own buffer, when target is
 * not NULL: fr->rgb is then target. The pipeline renders straight into its ring this
 * way, which saves copying every frame (6 MB at 1080p). */
int render_frame_to(struct renderer *r, const struct field *f, const unsigned char *walls, long index,
                    uint8_t *target, struct frame *fr, struct rr_err *e);

/* The RENDER_NEED_* bits a renderer for sc takes for a sink's `needs`:
 * RENDER_NEED_GRAY16 becomes RENDER_NEED_RGB16 in a mode whose picture is
 * not a grey (frame.h). render_create and the memory budget ask it. */
int render_needs(const struct scene *sc, int needs);

/* Whether a renderer for sc and a sink's `needs` draws by rows
 * (render_by_rows): the rule render_create sets it by, asked by the run's
 * choice of fused batches (batch_ring_frames) before the renderer exists. */
bool render_draws_by_rows(const struct scene *sc, int needs);

/* Whether r draws a frame row by row from its heights alone (a mode with
 * rows and nothing per frame: no backdrop picked, no whole-field pass;
 * unscaled; the rgb picture only, and the raw heights when the output asks
 * for them, RENDER_NEED_HEIGHTS): then render_rows_into may draw any rows
 * of any frame on any thread, several frames at once, as
 * sim_advance_frames hands them out. */
bool render_by_rows(const struct renderer *r);

/* The bytes of a frame's raw heights (grid width * height floats) when r's
 * frames carry them (RENDER_NEED_HEIGHTS), else 0. */
size_t render_heights_bytes(const struct renderer *r);

/* For render_by_rows: rows y0 .. y1 - 1 of the frame whose heights are f
 * (rows y0 - 1 .. y1 read too) into rgb, the frame's picture (rows of
 * width * 3 bytes), and, when heights is not NULL, the rows' raw heights
 * into it (rows of grid width floats), on the calling thread; the same
 * bytes as render_frame_to. Cannot fail. */
void render_rows_into(const struct renderer *r, const struct field *f, const unsigned char *walls, uint8_t *rgb,
                      float *heights, int y0, int y1);

/* For render_by_rows: fr describes frame `index` drawn into rgb, with its
 * raw heights in heights (NULL: none). */
void render_frame_of(const struct renderer *r, long index, uint8_t *rgb, float *heights, struct frame *fr);

/* Whether its frames carry the rgb picture (not with RENDER_YUV_ONLY where
 * it makes yuv420p): a target for render_frame_to is worth giving. */
bool render_makes_rgb(const struct renderer *r);

void render_free(struct renderer *r);   /* accepts NULL */

/* The table of render modes (src/render/registry.c) as the scene and the
 * sinks see it, so that neither keeps a list of modes of its own. A mode's
 * enum render_mode value is its place in the table. */
/* The most modes the table holds (callers may size arrays by it). */
#define RENDER_MODE_MAX 32
/* How many modes there are: the values 0 .. render_mode_count() - 1. */
int render_mode_count(void);
/* Fills names with each mode's name at its value and a NULL, as the scene
 * loader's enums are. */
void render_mode_names(const char *names[RENDER_MODE_MAX + 1]);
/* The mode's name ("?" for a value the table does not have). */
const char *render_mode_name(enum render_mode m);
/* The bytes sc's mode allocates for itself beyond the renderer's pictures
 * (its render_mode_ops.bytes: slopes, caustics' light), for the memory
 * budget. */
uint64_t render_mode_bytes(const struct scene *sc);
/* Whether the mode renders at render size itself (refract): libswscale's
 * stretch limit does not apply to it. */
bool render_mode_own_size(enum render_mode m);
/* Whether the mode reads render.KEY: the keys of every mode (mode, range,
 * width, height, obstacle_color, alpha, atlas) and its own (docs/scene.md's
 * "used by" column). The scene loader refuses the others. */
bool render_mode_uses(enum render_mode m, const char *key);

/* Whether render.range acts for rc: in a mode that maps heights through it
 * (render_mode_ops.range: height, colormap) or as render.alpha "height"'s
 * scale; elsewhere the loader refuses it and --print-scene leaves it out. */
bool render_range_acts(const struct render_config *rc);
/* The picture rc's mode shows the water over (render.background,
 * render.floor): the name the scene gives, or NULL when none is given; *key
 * its key ("background"), or NULL when the mode shows none. */
const char *render_mode_picture(const struct render_config *rc, const char **key);
/* The mode's own keys (beyond those of every mode), NULL-terminated. */
const char *const *render_mode_keys(enum render_mode m);
/* The names of the mode's float channels (RENDER_NEED_FLOAT, frame.h),
 * NULL-terminated, or NULL when it has no float picture. */
const char *const *render_mode_float_names(enum render_mode m);
/* The modes with a float picture, for messages: "height, normals or
 * caustics" into buf. Returns buf. */
const char *render_float_modes(char *buf, size_t n);

/* Colormaps by name: the table of 256 rgb entries, or NULL if unknown.
 * colormap_names lists the names, NULL-terminated. */
const unsigned char (*colormap_find(const char *name))[3];
extern const char *const colormap_names[];

#endif

/* scene.h: the scene as plain data, loaded from JSON with every default filled.
 *
 * cJSON is seen by the loader (src/scene*.c) only. Everything here is
 * validated: a struct scene that scene_load returned is within the ranges
 * docs/scene.md gives, so the simulation and the sinks never re-check user
 * input. Coordinates are grid cells (x right, y down, cell centres at
 * integer coordinates); times are seconds of video. Paths are already
 * resolved against the scene file's folder. Strings and arrays are owned by
 * the scene and freed by scene_free. */
#ifndef RR_SCENE_H
#define RR_SCENE_H

#include <stdbool.h>
#include <stdio.h>

#include "rr_err.h"

#define RR_NAME_MAX 32

struct solver_ops;   /* src/solver.h */
enum edge_kind { EDGE_FIXED, EDGE_CLAMP, EDGE_WRAP, EDGE_ABSORB };
enum edge_side { EDGE_LEFT, EDGE_RIGHT, EDGE_TOP, EDGE_BOTTOM };
enum shape_kind { SHAPE_POINT, SHAPE_DISC, SHAPE_GAUSSIAN, SHAPE_COSINE };
enum drop_mode { DROP_ADD, DROP_SET };
enum obstacle_type { OBST_RECT, OBST_CIRCLE, OBST_POLYGON, OBST_LINE, OBST_MASK };
/* render.mode: a mode's place in the table of render modes
 * (src/render/registry.c). The names are those places, for the code and
 * tests that pick a mode; a mode added to the table needs none. */
enum render_mode { RENDER_HEIGHT, RENDER_COLORMAP, RENDER_SHADED, RENDER_REFRACT, RENDER_NORMALS, RENDER_CAUSTICS };
enum initial_type { INITIAL_IMAGE, INITIAL_WAVE };
/* render.alpha: where the picture's alpha comes from (docs/render.md). */
enum render_alpha { ALPHA_NONE, ALPHA_HEIGHT, ALPHA_CAUSTICS };
/* render.normal_convention: which way the normal map's green channel points
 * (docs/render.md): opengl +y up, directx +y down (green inverted). */
enum normal_convention { NORMALS_OPENGL, NORMALS_DIRECTX };
/* output.exr_compression: an .exr's lossless compression (docs/output.md). */
enum exr_compression { EXRC_ZIP, EXRC_ZIPS, EXRC_PIZ, EXRC_RLE, EXRC_NONE };
/* render.video_end: what a moving background or floor (a video or an image
 * sequence) shows after its last frame (docs/render.md): the last frame, or
 * the clip again from its first. */
enum video_end { VIDEO_END_HOLD, VIDEO_END_LOOP };

/* A moment in the video: either a time in seconds or a frame number, as the
 * scene gave it (printed back the same way). */
struct moment {
    bool is_frame;
    double time;   /* seconds; valid when !is_frame */
    long frame;    /* valid when is_frame */
};

struct drop {
    struct moment at;
    double x, y, radius, amplitude;
    enum shape_kind shape;
    enum drop_mode mode;
};

struct rain {
    bool enabled;              /* false when the scene has no "rain" */
    double rate;               /* drops per second */
    struct moment start, end;  /* end defaults to the end of the video */
    double radius[2];          /* uniform in [min, max] */
    double amplitude[2];       /* uniform in [min, max] */
    unsigned long long seed;
    enum shape_kind shape;
};

struct oscillator {
    bool is_line;              /* from/to given instead of x/y */
    double x, y;               /* point source */
    double from[2], to[2];     /* line source */
    double radius, amplitude, frequency, phase;   /* phase in radians */
    struct moment start, end;  /* end: until the end of the video */
    enum shape_kind shape;
};

struct path_point { double time, x, y; };

struct mover {
    struct path_point *path;   /* sorted by time, at least 1 point */
    int n_path;
    double radius, amplitude;
    enum shape_kind shape;
};

struct initial {
    enum initial_type type;
    char *path;                /* image: PNG, value v in [0,1] -> (v - 0.5) * 2 * scale */
    double scale;
    double wavelength, angle, amplitude;   /* wave: cells, degrees, height */
};

struct probe {
    char name[RR_NAME_MAX];
    double x, y;
};

struct obstacle {
    enum obstacle_type type;
    double x, y, width, height;        /* rect: corner and size; circle: centre */
    double radius;                     /* circle */
    double (*points)[2];               /* polygon */
    int n_points;
    double from[2], to[2];             /* line, thickness in `width` */
    char *path;                        /* mask PNG, or a printf pattern of one per frame */
    double threshold;                  /* mask: wall where value >= threshold */
    bool invert;                       /* mask: wall where value < threshold */
    /* A moving obstacle (docs/scene.md, "Moving walls"): offsets [time, dx, dy]
     * of its shape, linear between keys and held at the ends; NULL when still. */
    struct path_point *motion;
    int n_motion;
    double push;                       /* height a moving wall pushes ahead per cell swept */
    /* A mask sequence: path holds one frame number field; files 0 .. n_frames - 1. */
    bool sequence;
    int n_frames;
    bool loop;                         /* after the last file: start again (else hold it) */
};

struct solver_config {
    const struct solver_ops *type;   /* the solver, from the registry (solver_find; ->name) */
    double damping;        /* (0, 1]; per step */
    int damping_shift;     /* > 0: h' -= h' / 2^n instead of damping */
    double half_life;      /* > 0: seconds; overrides damping and damping_shift */
    int neighbors;         /* elias: 4 or 8 */
    double flow;           /* flow: F in [0, 1] */
    double blend;          /* spring */
    int passes;            /* spring */
    double speed;          /* wave: m/s */
    char *speed_map;       /* wave: PNG or NULL */
    double speed_range[2]; /* wave: speed at map value 0 and 1 */
    double decay;          /* wave: gamma, 1/s */
    double gravity, surface_tension, density, depth, viscosity;   /* spectral; depth 0: deep */
    /* wave from depth (docs/solvers.md): `depth` > 0 (m, uniform) or depth_map
     * (PNG: v -> depth_range in m; .npy: m) gives c = sqrt(g d), or at
     * `wavelength` L > 0 (m) sqrt(g/k tanh(k d)) with k = 2 pi / L, or at
     * `frequency` f > 0 (Hz) w/k with w^2 = g k tanh(k d), w = 2 pi f; g = gravity. */
    char *depth_map;       /* wave: PNG, .npy or NULL */
    double depth_range[2]; /* wave: depth at PNG value 0 and 1, m */
    double wavelength;     /* wave: m; 0: not given */
    double frequency;      /* wave: Hz; 0: not given (neither: the shallow-water limit) */
};

struct render_config {
    enum render_mode mode;
    char colormap[RR_NAME_MAX];
    double range[2];               /* height mapped to the ends of the scale */
    int width, height;             /* output size in pixels (default: the grid's) */
    unsigned char obstacle_color[3];
    /* shaded, refract, normals, caustics (docs/render.md) */
    double height_scale;           /* > 0: slope = height_scale * dh/dx (per cell) */
    double light[3];               /* direction toward the light, z > 0 (normalised when used) */
    unsigned char water_color[3], sky_color[3];
    double specular;               /* >= 0: strength of the highlight */
    double shininess;              /* > 0: Blinn-Phong exponent */
    double reflectivity;           /* shaded: Schlick's F0, reflectance facing the viewer */
    char *background;              /* refract: a PNG, a video, an image sequence (a printf frame
                                      field in the name) or NULL (a built-in checkerboard) */
    double refraction;             /* refract: cells of displacement per unit slope */
    double depth;                  /* caustics: floor depth in cells */
    char *depth_map;               /* caustics: per-cell floor depth (PNG: v -> depth_range; .npy), or NULL */
    double depth_range[2];         /* caustics: floor depth at PNG value 0 and 1, cells */
    char *floor;                   /* caustics: as background, or NULL (floor_color) */
    unsigned char floor_color[3];
    enum render_alpha alpha;       /* none: opaque, no alpha plane */
    enum normal_convention normal_convention;   /* normals: green up (opengl) or down (directx) */
    enum video_end video_end;      /* refract, caustics: a moving picture after its last frame */
    int atlas[2];                  /* columns, rows of frames per image of a PNG or EXR sequence; 0: none */
};

/* output.format: what `-o -` writes to standard output (src/sinks/pipe.c). */
enum output_format { OUTPUT_Y4M, OUTPUT_NUT };

struct output_config {
    char *path;                    /* resolved against the current directory, not the scene */
    char codec[RR_NAME_MAX];       /* "" = the container's default */
    int crf;                       /* -1 = the codec's default */
    char preset[RR_NAME_MAX];      /* "" = the codec's default */
    char pix_fmt[RR_NAME_MAX];     /* "" = the codec's default */
    int bit_depth;                 /* 8, 16 or 32 (16: 16-bit PNG, a video pix_fmt of more than 8 bits,
                                      an .exr of half floats; 32: .exr only) */
    enum exr_compression exr_compression;
    enum output_format format;     /* the stream of -o - (y4m or nut); no file output reads it */
    int compression;               /* PNG sequences: libdeflate's level, 0-9 */
};

/* Where a value of the scene came from: its key path ("obstacles.0.path") and
 * the 1-based line and column of the value in the file; line 0 when --set
 * gave it. Kept for the checks made after loading (scene_locate). */
#define SCENE_WARN_MAX 4

struct scene_origin {
    char *key;
    int line, col;
    bool preset;                   /* the value is the preset's (scene_load_preset), not the file's */
    char value[64];                /* the value as compact JSON for warnings, cut with "..." */
};

struct scene {
    char *file;                    /* the scene's name for messages ("-" for stdin, "preset NAME" alone) */
    char *preset;                  /* the preset the scene starts from (--preset), or NULL */
    size_t text_bytes;             /* the size of the scene's text (the memory budget of its parse) */
    struct { int width, height; double cell_size; } grid;
    struct {
        double fps; int frames; int steps_per_frame; bool steps_auto;
        double preroll;   /* seconds simulated before frame 0 (scene_preroll_steps whole steps) */
        bool loop;        /* the clip repeats with period frames / fps (docs/render.md, "Seamless loops") */
    } time;
    struct solver_config solver;
    enum edge_kind boundary[4];    /* indexed by enum edge_side */
    int absorb_width;
    struct drop *drops;           int n_drops;
    struct rain rain;
    struct oscillator *oscillators; int n_oscillators;
    struct mover *movers;         int n_movers;
    struct initial *initial;      int n_initial;
    struct probe *probes;         int n_probes;
    struct obstacle *obstacles;   int n_obstacles;
    struct render_config render;
    struct output_config output;
    struct scene_origin *origins;  /* the top-level keys, their objects' members, the files */
    int n_origins;
    /* Warnings for render keys of another mode that a file or preset gave
     * while --set render.mode chose the mode: "FILE:L:C: render.KEY ..."
     * (the first SCENE_WARN_MAX; n_warned counts them all). main.c prints
     * them. */
    char warned[SCENE_WARN_MAX][512];
    int n_warned;
};

/* Reads the scene at `path` ("-": standard input), applies the --set overrides
 * (each "dotted.path=VALUE", VALUE read as JSON, else as a string) and fills
 * *sc. On failure returns -1 with e->status RR_EXIT_USAGE for anything the user
 * can fix in the scene or the overrides (one line: "file:line:col: key.path:
 * what, got VALUE", or "--set key.path: ..."), RR_EXIT_RUNTIME for I/O and
 * memory failures; *sc is then empty (scene_free is still safe). */
/* The most a render may stretch the grid, each way (docs/scene.md, Limits). */
#define RR_RENDER_MAX_STRETCH 4096

/* The largest scene file scene_load reads (docs/scene.md, Limits). */
#define RR_SCENE_MAX_BYTES ((size_t)64 << 20)

int scene_load(struct scene *sc, const char *path, const char *const *sets, int n_sets,
               struct rr_err *e);

/* For a refusal made after loading, whose message begins "KEY: " with a key
 * path of the scene (a PNG that does not decode, a codec FFmpeg lacks, the
 * memory budget of "grid"), puts where the value came from in front, as the
 * loader's own messages have it: "FILE:LINE:COL: " for the key or for the
 * nearest enclosing key the file gave, "--set " for a value from --set, and
 * "FILE: " for a default. Other messages and statuses are left alone. */
void scene_locate(const struct scene *sc, struct rr_err *e);

/* "Did you mean": offered names one at a time, keeps the nearest to `word`:
 * one edit away (virdis, viridis), then one word of at least 3 characters
 * beginning or ending the other (rectangle, rect; x264, libx264), then two
 * edits away; edits fewer than half the word's length, the first of equals.
 * `best` stays NULL when none is near. The loader's messages use it for keys
 * and names, the video sink for FFmpeg's encoders and pixel formats. */
struct scene_guess {
    const char *word;
    const char *best;
    int score;
};
void scene_guess_offer(struct scene_guess *g, const char *name);

/* Frees everything the scene owns and zeroes it. Safe on a zeroed or freed scene. */
void scene_free(struct scene *sc);

/* Writes the fully resolved scene as JSON (every key, defaults included) that
 * scene_load reads back to an equal scene. Returns 0, or -1 on a write error. */
int scene_print(const struct scene *sc, FILE *out);

/* scene_print's text in a malloc'd string (the caller frees it), or NULL when
 * memory runs out. */
char *scene_text(const struct scene *sc);

/* A named starting scene built into the program (--preset): scenes/presets/
 * NAME.json, embedded at build time (tools/embed-presets.sh). */
struct scene_preset {
    const char *name;              /* "pool": the file's name without .json */
    const char *about;             /* one line: the file's "$comment" */
    const char *text;              /* the JSON text, NUL-terminated */
};

/* Every preset, in name order, ending in { NULL }. */
extern const struct scene_preset scene_presets[];

/* The preset of that name; NULL with e filled (RR_EXIT_USAGE: "--preset NAME:
 * no such preset", a guess at the nearest name, and the names) otherwise. */
const struct scene_preset *scene_preset_find(const char *name, struct rr_err *e);

/* As scene_load, from a preset with a scene file's keys over it (path may be
 * NULL: the preset alone; preset may be NULL: scene_load). The file's objects
 * are merged into the preset's member by member, at every depth; any other
 * value of the file (an array, a number, an object whose "type" differs from
 * the preset's) replaces the preset's whole. Then the --set overrides apply.
 * A refusal names the file's line:col, or "preset NAME:line:col" for a
 * value that came from the preset. */
int scene_load_preset(struct scene *sc, const struct scene_preset *preset, const char *path,
                      const char *const *sets, int n_sets, struct rr_err *e);

/* The render size in pixels: render.width and render.height when given (> 0),
 * else the grid's. A loaded scene always holds both (scene_load copies the
 * grid's before reading render); a scene built in code may leave them 0. */
static inline int scene_render_width(const struct scene *sc)
{
    return sc->render.width > 0 ? sc->render.width : sc->grid.width;
}
static inline int scene_render_height(const struct scene *sc)
{
    return sc->render.height > 0 ? sc->render.height : sc->grid.height;
}

/* Time step helpers shared by every module, so that all agree on what a step is. */
static inline int scene_steps_per_frame(const struct scene *sc) { return sc->time.steps_per_frame; }
double scene_dt(const struct scene *sc);                 /* seconds per step */
long long scene_total_steps(const struct scene *sc);     /* frames * steps_per_frame */
/* The step at which a moment falls: frame * steps_per_frame, or
 * round(time * fps * steps_per_frame). */
long long scene_moment_step(const struct scene *sc, const struct moment *m);

/* time.preroll in whole steps: round(preroll * fps * steps_per_frame). The
 * simulation starts at step -scene_preroll_steps, so frame 0 stays step 0. */
long long scene_preroll_steps(const struct scene *sc);

/* The output.* keys besides path, NULL-terminated (docs/scene.md's order). */
extern const char *const scene_output_keys[];
/* Whether the scene file or --set gave output.KEY (a preset's is its
 * starting value, not counted) at a value other than its default: then
 * value holds it as JSON ("18", "\"slow\"") and where its place with the
 * separator ("scene.json:3:12: ", "--set "). */
bool scene_output_given(const struct scene *sc, const char *key, char *value, size_t n, char *where, size_t wn);
/* Whether the scene file (1) or --set (2) gave the key at path key
 * ("output.path"; a top-level key or a member of a top-level object), at
 * any value; 0 when neither did (a preset's not counted). value and where
 * as scene_section_given's. */
int scene_key_given(const struct scene *sc, const char *key, char *value, size_t vn, char *where, size_t wn);
/* Whether --set gave the key at path key ("output.crf"), at any value,
 * whether or not the scene file gave it too. */
bool scene_key_set(const struct scene *sc, const char *key);
/* How many members of the object `section` ("render") the scene file or
 * --set gave (a preset's not counted); the first one's (in reading order:
 * the file's by place, then --set's) path in key
 * ("render.mode"), its value as compact JSON in value (cut with "...") and
 * its place in where, as scene_output_given's. */
int scene_section_given(const struct scene *sc, const char *section, char *key, size_t kn, char *value, size_t vn,
                        char *where, size_t wn);

/* Names of enum values, for messages and printing; NULL-safe lookups. */
const char *scene_edge_name(enum edge_kind k);
const char *scene_shape_name(enum shape_kind k);
const char *scene_render_mode_name(enum render_mode m);
const char *scene_render_alpha_name(enum render_alpha a);
const char *scene_normal_convention_name(enum normal_convention c);
const char *scene_exr_compression_name(enum exr_compression c);
const char *scene_output_format_name(enum output_format f);
const char *scene_video_end_name(enum video_end v);

/* How many printf integer fields (%d, %i, %u with flags "-+ 0", width and
 * precision, no length modifier) a file name holds: 1 for a numbered name
 * (an image sequence, a file per frame), 0 for a plain one ("%%" is a
 * literal '%'); -1 for any other or a malformed conversion. */
int scene_pattern_fields(const char *name);

#endif

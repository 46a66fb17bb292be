/* render/modes.h: the render modes' table and what the renderer (render.c)
 * and the modes (the files of src/render/) share; private to the renderer and
 * its unit tests. docs/render.md explains each mode.
 *
 * A mode is a file in src/render/ defining its struct render_mode_ops and a
 * line in the table (render/registry.c). render.c owns what every mode has
 * (the picture at grid size and its scaling to render size, the 16-bit grey,
 * the deep picture, the raw heights, the walls, render.alpha) and calls the
 * mode through its ops: init once, prepare and then a row at a time for
 * each frame (or frame, for a mode that renders at render size itself),
 * free at the end.
 *
 * The water modes (shaded, normals, refract, caustics) start from the
 * surface slopes: the heights with a ghost border filled from the scene's
 * boundary kinds (field_fill_ghosts: wrap -> the opposite edge, so wrapped
 * frames tile), central differences through them (render/water.c). */
#ifndef RR_RENDER_MODES_H
#define RR_RENDER_MODES_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "field.h"
#include "frame.h"
#include "image.h"
#include "isa.h"
#include "render.h"
#include "scene.h"

/* A pass of the pool's team over rows lo..hi-1 (team_for's or team_claim's
 * body) made from one always-inline BODY(const JOB *, lo, hi): built for
 * AVX-512 (x86-64-v4) and AVX2 (x86-64-v3, tuned for haswell, whose cost
 * model gathers) beside the baseline, the CPU picking at each call. One
 * body, floats without contraction (-std=c11): the same bits from each
 * build. */
#define RENDER_ROWS_PASS(name, body, job)                                                                   \
    __attribute__((target("arch=x86-64-v4"))) static void name##_v4(const job *j, int lo, int hi)           \
    {                                                                                                       \
        body(j, lo, hi);                                                                                    \
    }                                                                                                       \
    __attribute__((target("arch=x86-64-v3,tune=haswell"))) static void name##_v3(const job *j, int lo, int hi) \
    {                                                                                                       \
        body(j, lo, hi);                                                                                    \
    }                                                                                                       \
    static void name(void *arg, int lo, int hi)                                                             \
    {                                                                                                       \
        if (RR_CPU_HAS(4, "x86-64-v4"))                                                                     \
            name##_v4(arg, lo, hi);                                                                         \
        else if (RR_CPU_HAS(3, "avx2"))                                                                     \
            name##_v3(arg, lo, hi);                                                                         \
        else                                                                                                \
            body(arg, lo, hi);                                                                              \
    }

struct backdrop;
struct scaler;
struct render_mode_ops;


/* The lighting settings, in floats, unit vectors and 0..1 colours. */
struct water_look {
    float hs;                    /* height_scale */
    float light[3];              /* unit vector toward the light */
    float half[3];               /* unit Blinn-Phong half vector of light and view (0, 0, 1) */
    float water[3], sky[3], floor[3];
    float specular, shininess;
    float f0;                    /* Schlick's reflectance at normal incidence */
    float flat_spec;             /* the highlight of still water, pow(half.z, shininess) */
    float refraction, depth;
};

struct renderer {
    const struct render_mode_ops *ops;
    int needs;
    float lo, span;                    /* range[0], range[1] - range[0] */
    unsigned char wall[3];
    uint16_t wall16;
    int gw, gh, rw, rh;
    bool scaled;
    bool by_rows;                /* render_draws_by_rows: render_by_rows' answer */
    /* Grid-size pictures (the scalers' sources when scaled; rgb_grid is the frame otherwise). */
    uint8_t *rgb_grid;  int rgb_grid_stride;
    uint16_t *g16_grid; int g16_grid_stride;   /* strides in bytes */
    /* Render-size scaler destinations (aligned strides) and packed frame buffers. */
    uint8_t *rgb_dst;   int rgb_dst_stride;
    uint16_t *g16_dst;  int g16_dst_stride;
    uint8_t *rgb_out;
    uint16_t *g16_out;
    float *heights;
    struct scaler *sc_rgb, *sc_g16;   /* src/scale.h: in bands on the pool */
    /* The modes' own state, made by their init and freed by their free. */
    const unsigned char (*map)[3];     /* colormap: the table */
    struct water_look look;            /* water modes: the lighting */
    enum edge_kind edges[4];           /* water modes: the scene's boundary kinds */
    enum fixed_wall fixed_wall;        /* water modes: where the solver's fixed edges hold 0 */
    float *gx, *gy;            /* refract, caustics: their slopes */
    float *zeros;              /* water modes: a fixed edge's ghost row */
    float *light;              /* caustics: the floor's light */
    float *rays;               /* caustics: landing points (CAUSTICS_SCRATCH) */
    bool flip_green;           /* normals: render.normal_convention directx */
    struct image_rgb checker;  /* refract: the checkerboard without a background */
    struct backdrop *backdrop; /* refract: render.background at render size; caustics: render.floor at
                                  grid size; or NULL */
    const uint8_t *backdrop_rgb;   /* its picture of this frame (refract: or the checkerboard), or NULL */
    float *floor_depth;        /* caustics: the floor's depth per cell in cells (render.depth_map), or NULL */
    /* The deep picture (RENDER_NEED_RGB16, RENDER_NEED_ALPHA; frame.h): 16-bit
     * colour and alpha (1 or 2 bytes a sample: abytes) at grid size (refract:
     * the colour at render size), their scaled copies, and the interleaved
     * frame. deep_bits 0: none. The 16-bit colour is scaled as three grey
     * planes (c16_planes), because libswscale takes packed rgb48 through
     * YUV, which would turn greys into colours. */
    int deep_bits, deep_ch, abytes;
    enum render_alpha alpha;
    float alpha_k;             /* alpha "height": 1 / max(|range0|, |range1|) */
    uint16_t wall_rgb16[3];
    uint16_t *c16_grid; int c16_grid_stride;
    uint16_t *c16_planes; int c16_planes_stride;   /* 3 planes of gh rows */
    uint8_t *a_grid;    int a_grid_stride;
    uint16_t *c16_dst;  int c16_dst_stride;
    uint8_t *a_dst;     int a_dst_stride;
    void *deep_out;
    struct scaler *sc_c16[3], *sc_a;   /* one per plane of c16_planes */
    /* RENDER_NEED_FLOAT (frame.h): the mode's quantities (row_float) and the
     * alpha as floats, fch a cell, at grid size; NULL: none. */
    float *fdeep;
    int fch;
    /* RENDER_NEED_YUV420 where scaled (frame.h): the grid-size picture as
     * yuv420p (sinks/yuv420.c), plane k (Y, Cb, Cr) at yuv_grid[k], its scaled
     * copy at yuv_dst[k] (aligned strides), packed into yuv_out; NULL: none.
     * rgb_out is then not made with RENDER_YUV_ONLY. */
    uint8_t *yuv_grid[3], *yuv_dst[3], *yuv_out;
    int yuv_grid_stride[3], yuv_dst_stride[3];
    struct scaler *sc_yuv[3];
};

/* What a render mode is to the renderer. */
struct render_mode_ops {
    const char *name;            /* render.mode's value, as scene_render_mode_name gives it */
    /* The render.* keys it reads besides those of every mode (render.c's
     * render_mode_uses); the scene refuses the others, naming these. */
    const char *const *keys;
    bool gray;                   /* its picture is a grey: it can give RENDER_NEED_GRAY16 */
    /* It maps the heights through render.range (height, colormap); in the
     * others range acts only as render.alpha "height"'s scale. */
    bool range;
    bool light;                  /* it computes the floor's light (r->light): render.alpha "caustics" */
    /* It renders at render size itself, with frame instead of row (no
     * scaling; the deep picture is its 16-bit colour, no alpha). */
    bool own_size;
    const char *opaque;          /* why render.alpha does not go with it, or NULL */
    /* The render.* key of the picture it shows the water over (a still PNG,
     * a video or an image sequence), and the name the scene gives there
     * (NULL: none given); both NULL when the mode shows none.
     * render.video_end acts on that picture, and src/budget.c counts its
     * fitted copy (at render size for an own_size mode, else grid size). */
    const char *picture_key;
    const char *(*picture)(const struct render_config *rc);
    /* Its state in r (render.c has filled the rest). Returns 0, or -1 with
     * e filled (RR_EXIT_USAGE for a bad setting or picture, RR_EXIT_RUNTIME
     * for memory). NULL: nothing to make. */
    int (*init)(struct renderer *r, const struct scene *sc, struct rr_err *e);
    /* Per frame, before prepare: what the frame's number picks rather than
     * the field (a moving background). Returns 0, or -1 with e filled. NULL:
     * nothing. */
    int (*pick)(struct renderer *r, long index, struct rr_err *e);
    /* Per frame, before the rows: what rows read across the field (slopes,
     * the floor's light). NULL: nothing. Cannot fail. */
    void (*prepare)(struct renderer *r, const struct field *f);
    /* Grid row y (heights h) to rgb (gw * 3 bytes); g16 (gray modes) and
     * rgb16 (gw * 3 values) when not NULL. Rows run in parallel. Cannot fail. */
    void (*row)(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                uint8_t *restrict rgb, uint16_t *restrict g16, uint16_t *restrict rgb16);
    /* own_size modes: the whole frame into dst (rw * rh * 3), walls painted,
     * fr filled but for the heights. Returns 0, or -1 with e filled. */
    int (*frame)(struct renderer *r, const struct field *f, const unsigned char *walls, long index, uint8_t *dst,
                 struct frame *fr, struct rr_err *e);
    /* The mode's quantities at full precision for RENDER_NEED_FLOAT
     * (frame.h): grid row y's float_channels values of pixel x at
     * out[x * stride ...]. NULL: the mode has only colours. Rows run in
     * parallel, after prepare. Cannot fail. */
    void (*row_float)(const struct renderer *r, const struct field *f, int y, const float *restrict h,
                      float *restrict out, int stride);
    /* The names of row_float's channels, NULL-terminated, in OpenEXR's
     * convention ("Y" a grey, "R" "G" "B" a colour): their count is the
     * float picture's channel count. NULL when row_float is. */
    const char *const *float_names;
    void (*free)(struct renderer *r);   /* NULL: nothing; must accept a failed init */
    /* Optional (NULL: nothing that grows with the picture): the bytes init
     * allocates for sc, for the memory budget (src/budget.c, through
     * render_mode_bytes), as solver_ops.bytes is a solver's. Its moving
     * picture is counted apart (picture_key). */
    uint64_t (*bytes)(const struct scene *sc);
};

/* The table of render modes (render/registry.c), NULL-terminated: a mode's
 * place in it is its enum render_mode value. */
extern const struct render_mode_ops *const render_modes[];

/* The mode's ops, or NULL for a value the table does not have. */
const struct render_mode_ops *render_mode_of(enum render_mode m);

/* A frame's rows for the team (team_for): the renderer, the field and,
 * by the loop, the walls and the picture they go to. */
struct rows_job {
    struct renderer *r;
    const struct field *f;
    const unsigned char *walls;
    uint8_t *dst;
};

/* lrintf(fminf(fmaxf(v, 0), 1) * scale), NaN giving 0, for 0 < scale <=
 * 65535: the same integer, but inline and vectorisable (libm's fminf, fmaxf
 * and lrintf are calls per pixel). Adding 2^23 rounds a float in [0, 2^23)
 * to an integer in the FPU's mode, which is lrintf's rounding (nearest, ties
 * to even, by default), and taking 2^23 away again is exact. */
static inline __attribute__((always_inline)) int unit_round(float v, float scale)
{
    v = v >= 0.0f ? v : 0.0f;
    v = v < 1.0f ? v : 1.0f;
    return (int)((v * scale + 0x1p23f) - 0x1p23f);
}

/* A colour channel v in [0, 1] (clamped, NaN giving 0) to 16 bits: the one
 * rounding of every mode's 16-bit output (RENDER_NEED_RGB16), as the 8-bit
 * output's is unit_round(v, 255). 0 -> 0, 1 -> 65535, 0.5 -> 32768 (ties
 * to even). */
static inline __attribute__((always_inline)) uint16_t unit_u16(float v)
{
    return (uint16_t)unit_round(v, 65535.0f);
}


/* Bilinear read of a w x h grid of floats at (x, y) in cell coordinates,
 * clamped to the grid. Cannot fail. */
static inline float grid_at(const float *g, int w, int h, float x, float y)
{
    x = x < 0.0f ? 0.0f : x > (float)(w - 1) ? (float)(w - 1) : x;
    y = y < 0.0f ? 0.0f : y > (float)(h - 1) ? (float)(h - 1) : y;
    int x0 = (int)x, y0 = (int)y;
    int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    float fx = x - (float)x0, fy = y - (float)y0;
    const float *r0 = g + (size_t)y0 * w, *r1 = g + (size_t)y1 * w;
    float top = r0[x0] + (r0[x1] - r0[x0]) * fx, bot = r1[x0] + (r1[x1] - r1[x0]) * fx;
    return top + (bot - top) * fy;
}

/* Fills lk from the scene's render section. Cannot fail. */
void water_look_init(struct water_look *lk, const struct render_config *rc);

/* Slopes of the surface at every cell: gx = hs * (h[x+1] - h[x-1]) / 2,
 * gy = hs * (h[y+1] - h[y-1]) / 2 (second-order central differences), read
 * through f's ghost cells, which must be filled. gx, gy: f->w * f->h floats,
 * packed rows. Row-parallel (schedule(static)); cannot fail. */
void water_slopes(const struct field *f, float hs, float *restrict gx, float *restrict gy);

/* A row's heights and what its slopes read around them: up, mid and dn are
 * rows y-1, y and y+1 (at the top and bottom edges, the interior row the
 * ghost row is made of: field_ghost_row), read at [0, w) (mid also at -1
 * and w, whatever those hold); up_odd (dn_odd) set when the ghost row is
 * that row negated (a fixed wall at the edge cells' faces); left and right
 * are the ghost cells beyond mid's ends (water_nbhd fills one from the
 * scene's boundary kinds and the solver's fixed wall). */
struct row_nbhd {
    const float *up, *mid, *dn;
    float left, right;
    bool up_odd, dn_odd;
};

/* What the water modes share (render/water.c). water_init_rows: for a mode
 * whose rows take their slopes from the simulation's own heights (shaded,
 * normals; see water_nbhd); water_init_slopes: for one that reads them
 * across rows (refract, caustics), planes that water_prepare makes each
 * frame from the simulation's heights, through the ghosts water_nbhd takes
 * (no copy of the heights). Both fill r->look and r->edges; they
 * return 0, or -1 with e filled (memory). water_free releases what they
 * made. */
int water_init_rows(struct renderer *r, const struct scene *sc, struct rr_err *e);
int water_init_slopes(struct renderer *r, const struct scene *sc, struct rr_err *e);
/* What water_init_slopes allocates (the two slope planes), for a mode's bytes. */
uint64_t water_slopes_bytes(const struct scene *sc);
void water_prepare(struct renderer *r, const struct field *f);

/* water_prepare, also marking the cells whose slope x or y is other than
 * zero (+0 or -0) in nz: a bit set of (gw + 63) / 64 64-bit words a row (bit
 * x of word x / 64), written as bytes (any alignment). */
void water_prepare_marked(struct renderer *r, const struct field *f, unsigned char *nz);
void water_free(struct renderer *r);

/* Row y's neighbourhood in f for the slopes, the ghosts by field_ghost_side
 * and field_ghost_row from the scene's boundary kinds and the solver's fixed
 * wall (fixed: 0 one cell out, or the edge negated for a wall at the face;
 * wrap: the opposite edge; absorb: the solver's cell beyond the edge,
 * f->beyond, where it has one; the others: the edge itself), read in place.
 * Cannot fail. */
void water_nbhd(const struct renderer *r, const struct field *f, int y, struct row_nbhd *rn);

/* The picture behind the water (render/backdrop.h): water_backdrop_open
 * opens `path` (scene key `key`) fitted to w x h into r->backdrop and
 * r->backdrop_rgb (frame 0); returns 0, or -1 with e filled.
 * water_backdrop_pick, a mode's `pick`, sets r->backdrop_rgb to frame
 * index's picture when it moves; returns 0, or -1 with e filled. */
int water_backdrop_open(struct renderer *r, const struct scene *sc, const char *path, const char *key, int w,
                        int h, struct rr_err *e);
int water_backdrop_pick(struct renderer *r, long index, struct rr_err *e);

/* Pixels per chunk of the row passes of shaded and normals (their scratch
 * lives on the stack). */
#define SHADE_CHUNK 128

static inline __attribute__((always_inline)) uint32_t bits_f(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* ay of cells x0 .. x0+n-1 again where a ghost row is its source row
 * negated (rn->up_odd, dn_odd: a fixed wall at the edge cells' faces):
 * k (dn - up) with the ghost row's cells -dn or -up (a sign change is
 * exact). Nothing for any other row. */
static inline __attribute__((always_inline)) void odd_rows(const struct row_nbhd *rn, int x0, int n, float k,
                                                           float *restrict ay)
{
    if (!(rn->up_odd || rn->dn_odd))
        return;
    const float *restrict up = rn->up + x0, *restrict dn = rn->dn + x0;
    const float su = rn->up_odd ? -1.0f : 1.0f, sd = rn->dn_odd ? -1.0f : 1.0f;
    for (int x = 0; x < n; x++)
        ay[x] = k * (sd * dn[x] - su * up[x]);
}

/* The slopes of cells x0 .. x0+n-1 of a row as water_slopes takes them
 * (same expressions, same bits), the ghosts beyond the row's ends taken from
 * rn. Returns nonzero unless every slope is +0 (still water). */
static inline __attribute__((always_inline)) uint32_t chunk_slopes(const struct row_nbhd *rn, int x0, int n, int w,
                                                                   float k, float *restrict ax,
                                                                   float *restrict ay)
{
    const float *restrict up = rn->up + x0, *restrict mid = rn->mid + x0, *restrict dn = rn->dn + x0;
    /* The interior first (the ends read past the row; fixed below). */
    for (int x = 0; x < n; x++) {
        ax[x] = k * (mid[x + 1] - mid[x - 1]);
        ay[x] = k * (dn[x] - up[x]);
    }
    if (x0 == 0)
        ax[0] = k * ((w > 1 ? mid[1] : rn->right) - rn->left);
    if (x0 + n == w && w > 1)
        ax[n - 1] = k * (rn->right - mid[n - 2]);
    odd_rows(rn, x0, n, k, ay);
    uint32_t any = 0;
    for (int x = 0; x < n; x++)
        any |= bits_f(ax[x]) | bits_f(ay[x]);
    return any;
}

/* One row of the lit surface (shaded) and of the tangent-space normal map
 * (normals, hs = height_scale), the slopes taken as water_slopes takes them.
 * rgb16: NULL, or w * 3 values for the same colours at 16 bits (every kernel
 * below takes one too). Cannot fail. Their plain forms, one pixel at a time
 * with libm, are shade_plain and normals_plain in
 * tests/unit/test_render_fast.c, which compares the bits. */
void shade_row(const struct water_look *lk, const struct row_nbhd *rn, int w, uint8_t *rgb, uint16_t *rgb16);
void normals_row(float hs, const struct row_nbhd *rn, int w, uint8_t *rgb, uint16_t *rgb16);

/* The same row's unit normals as floats, (-gx, gy, 1) / |.| (normals_row's
 * values before they are mapped to colours), the y component negated when
 * flip_y (render.normal_convention directx): nx, ny, nz of pixel x at
 * out[x * stride ...]. Cannot fail. */
void normals_row_float(float hs, const struct row_nbhd *rn, int w, bool flip_y, float *out, int stride);

/* out[i] = powf(x[i], y) for n values, bit for bit, vectorised on CPUs with
 * AVX2 and FMA (shaded.c says how; libm's powf is its plain path, and
 * tests/unit/test_render_fast.c compares the two). Cannot fail. */
void water_powf(const float *x, float y, int n, float *out);

/* Caustics: the light of every cell (1 per cell, as 2 x 2 sub-rays with
 * interpolated slopes) refracted by the surface (Snell, water index 1.333,
 * light from straight above) and splatted bilinearly onto the floor `depth`
 * cells below. Landing points wrap on an axis whose edges are wrapped and are
 * clamped to the grid otherwise. Each landing point is rounded to 1/256 of a
 * cell and its shares are integers summed exactly (render/caustics.c), so
 * the floor's sum is w * h and the light does not depend on the order of
 * the additions: the thread count, the CPU's vectors. at: scratch of
 * CAUSTICS_SCRATCH(w, h) floats (the bit sets of render/caustics.c, and the
 * marks of caustics_still_row); light: w * h floats, overwritten. Cannot
 * fail. */
#define CAUSTICS_SCRATCH(w, h) ((size_t)6 * (size_t)(h) * (((size_t)(w) + 63) / 64))
void caustics_gather(const float *gx, const float *gy, int w, int h, float depth, bool wrap_x, bool wrap_y,
                     float *restrict at, float *restrict light);

/* The same light as caustics_gather (or caustics_gather_depths, with depths
 * not NULL), bit for bit, made the plain way: every sub-ray of every cell
 * in turn, on one thread. For tests. Cannot fail. */
void caustics_gather_plain(const float *gx, const float *gy, int w, int h, float depth, const float *depths,
                           bool wrap_x, bool wrap_y, float *light);

/* caustics_gather over a floor whose depth varies: depths, w * h cells (> 0),
 * read bilinearly under the point where each sub-ray enters the water. With
 * every cell at one depth it gives caustics_gather's light, bit for bit. */
void caustics_gather_depths(const float *gx, const float *gy, int w, int h, const float *depths, bool wrap_x,
                            bool wrap_y, float *restrict at, float *restrict light);

/* After caustics_gather (or caustics_gather_depths) with scratch at: floor
 * row y's marks of light 1, (w + 63) / 64 bytes, byte q 1 where cells
 * 64 q .. 64 q + 63 all have light 1 exactly, else 0 (and 0 for a run cut
 * short by the row's end). */
const unsigned char *caustics_still_row(const float *at, int w, int h, int y);

/* One row of the floor: the floor's colour (floor_rgb, w * 3 bytes, or the
 * look's floor colour when NULL) times the light, brighter parts bleaching
 * toward white. Light 1 gives the floor colour itself. still: the row's
 * caustics_still_row, read instead of the light where it marks light 1, or
 * NULL (the light alone). Cannot fail. Its plain form is caustics_plain in
 * tests/unit/test_render_fast.c. */
void caustics_row(const struct water_look *lk, const float *light, const unsigned char *still,
                  const uint8_t *floor_rgb, int w, uint8_t *rgb, uint16_t *rgb16);

/* Refract, at render size rw x rh over a gw x gh grid: pixel p shows the
 * background at p - refraction * slope (in cells, times rw/gw and rh/gh),
 * slopes interpolated bilinearly from the grid, the background sampled
 * bilinearly and clamped at its edges; plus highlights beyond still water's.
 * bg is rw x rh rgb24. One output row y. Cannot fail. */
void refract_row(const struct water_look *lk, const float *gx, const float *gy, int gw, int gh,
                 const uint8_t *bg, int rw, int rh, int y, uint8_t *rgb, uint16_t *rgb16);

#endif

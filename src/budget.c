/* budget.c: the memory budget of a run (see budget.h). */
#include "budget.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <omp.h>

#include "batch.h"
#include "pipeline.h"
#include "render.h"
#include "sink.h"
#include "solver.h"

#define ENV_NAME "RIPPLERENDER_MEM_LIMIT"

uint64_t budget_mul(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

uint64_t budget_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int budget_limit(uint64_t *bytes, struct rr_err *e)
{
    const char *s = getenv(ENV_NAME);
    *bytes = RR_MEM_LIMIT_DEFAULT;
    if (!s || !*s)
        return 0;
    if (!strcmp(s, "none") || !strcmp(s, "0")) {
        *bytes = UINT64_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
    if (!isdigit((unsigned char)s[0]) || errno)
        return rr_fail(e, RR_EXIT_USAGE, ENV_NAME "=%s: expected a size in bytes (e.g. 8G), or none", s);
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    default: break;
    }
    if (*end)
        return rr_fail(e, RR_EXIT_USAGE, ENV_NAME "=%s: expected a size in bytes (e.g. 8G), or none", s);
    *bytes = budget_mul(v, (uint64_t)1 << shift);
    return 0;
}

/* The model, calibrated against the peak resident size (tests/cli/test_budget.sh
 * measures each case with /usr/bin/time) and documented in docs/scene.md. */
#define TEXT_BYTES_PER_BYTE 72                /* parsing: per value of "0,", a cJSON node (64 + 16
                                                 of malloc) and its position (2 offsets, doubled) */
#define SOURCE_BYTES 256                      /* a drop, oscillator or mover: its struct in the scene
                                                 and in the sources (src/sources.c), its parse's
                                                 nodes beyond the text's values */
#define RESOLVED_SOURCE_BYTES 1024            /* one more in the resolved scene of cJSON nodes (a
                                                 node, its key and value a key) that --save-state
                                                 and --manifest record */

uint64_t budget_scene_text_bytes(uint64_t len)
{
    return budget_mul(len, TEXT_BYTES_PER_BYTE);
}

/* Whether s ends with tail, ignoring case (as file names are matched). */
static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcasecmp(s + n - m, tail);
}

/* The parts of a run's estimate; `what` and `solver_what` say what the
 * output's and the solver's parts are. */
struct parts {
    uint64_t grid, solver, output, text, sources;
    char what[96], solver_what[96];
};

/* What the run is, as main.c tells it before the check: -j as the encoder
 * gets it (0 without -j); whether output.path is written; whether its frames
 * go one at a time whatever the output. */
static int encoder_threads_asked;
static bool no_output, one_by_one, resolved_scene;

void budget_encoder_threads(int n)
{
    encoder_threads_asked = n > 0 ? n : 0;
}

void budget_without_output(void)
{
    no_output = true;
}

void budget_frame_by_frame(void)
{
    one_by_one = true;
}

void budget_resolved_scene(void)
{
    resolved_scene = true;
}

/* The scene's sources (drops, oscillators, movers), and the key of the
 * longest list of them. */
static uint64_t source_count(const struct scene *sc, const char **key, int *most)
{
    *key = "drops";
    *most = sc->n_drops;
    if (sc->n_oscillators > *most) {
        *key = "oscillators";
        *most = sc->n_oscillators;
    }
    if (sc->n_movers > *most) {
        *key = "movers";
        *most = sc->n_movers;
    }
    return (uint64_t)sc->n_drops + (uint64_t)sc->n_oscillators + (uint64_t)sc->n_movers;
}

/* The mode's moving picture (render_mode_picture: refract's background,
 * caustics' floor) fitted (rgb24, and libswscale's aligned destination): at
 * render size for a mode that renders at render size itself, else at grid
 * size;
 * what it decodes is budget_video_bytes, added once the file is open. A
 * still PNG is counted as the image loader counts it. */
static uint64_t picture_bytes(const struct scene *sc, uint64_t gw, uint64_t gh, uint64_t rw, uint64_t rh)
{
    const struct render_config *r = &sc->render;
    const char *key, *pic = render_mode_picture(r, &key);
    if (!pic || (scene_pattern_fields(pic) == 0 && ends_with(pic, ".png")))
        return 0;
    return budget_mul(render_mode_own_size(r->mode) ? budget_mul(rw + 64, rh) : budget_mul(gw + 64, gh), 6);
}

uint64_t budget_video_bytes(uint64_t frame_bytes, bool intra_only)
{
    return budget_mul(frame_bytes, intra_only ? 3 : 2 + 17);
}

/* libswscale's contexts of a scaled render (src/scale.c: one a band and
 * plane), beside their lines. */
#define SCALER_FIXED ((uint64_t)2 << 20)

/* A side in pixels or cells, 0 when not positive. */
static uint64_t size_of(int side)
{
    return side > 0 ? (uint64_t)side : 0;
}

uint64_t budget_planes_bytes(const struct scene *sc)
{
    /* field.c: rows of at most width + 32 floats (16 before the first cell,
     * rounded to 16), 2 ghost rows; counted as 40 extra a row. */
    return budget_mul(budget_mul(size_of(sc->grid.width) + 40, size_of(sc->grid.height) + 2), 8);
}

/* The output's kind, NULL when the run writes none. */
static const struct sink_ops *output_kind(const struct scene *sc)
{
    return no_output || !sc->output.path ? NULL : sink_find(sc->output.path, NULL);
}

uint64_t budget_deep_pixel(const struct scene *sc, int needs)
{
    needs = render_needs(sc, needs);
    const bool alpha = needs & RENDER_NEED_ALPHA;
    if (needs & RENDER_NEED_FLOAT) {   /* the mode's floats, and alpha */
        uint64_t n = alpha ? 1 : 0;
        for (const char *const *c = render_mode_float_names(sc->render.mode); c && *c; c++)
            n++;
        return 4 * n;
    }
    if (!(needs & (RENDER_NEED_RGB16 | RENDER_NEED_ALPHA)))
        return 0;
    return (uint64_t)(alpha ? 4 : 3) * (needs & RENDER_NEED_RGB16 ? 2 : 1);
}

static void run_parts(const struct scene *sc, struct parts *p)
{
    /* As the run allocates them (src/field.c, src/sim.c, src/render.c,
     * src/pipeline.c): per grid cell, the two height planes (8) and the wall
     * byte (more when walls move), the renderer's rgb (3) and, when the
     * output takes them, its 16-bit grey (2) and raw heights (4); rows are
     * padded by a few cells, counted as 40 a row. */
    const struct sink_ops *kind = output_kind(sc);
    const int needs = kind ? render_needs(sc, kind->needs(&sc->output, sc)) : 0;
    const bool g16 = needs & RENDER_NEED_GRAY16, heights = needs & RENDER_NEED_HEIGHTS;
    /* The deep picture's bytes a pixel: 16-bit colours or alpha, or the
     * mode's floats (frame.h). */
    const uint64_t deep = budget_deep_pixel(sc, needs);
    uint64_t gw = size_of(sc->grid.width), gh = size_of(sc->grid.height);
    uint64_t cells = budget_mul(gw + 40, gh + 2);
    uint64_t rw = size_of(scene_render_width(sc)), rh = size_of(scene_render_height(sc));
    uint64_t pix = budget_mul(rw + 64, rh);
    /* Moving walls keep the still ones and a drawing (2), and a moving
     * mask its picture at grid size (1) (src/obstacles.c). */
    uint64_t walls = 1;
    for (int k = 0; k < sc->n_obstacles; k++)
        if (sc->obstacles[k].motion || sc->obstacles[k].sequence)
            walls += (walls == 1 ? 2 : 0) + (sc->obstacles[k].type == OBST_MASK);
    uint64_t per_cell = walls + 3 + (g16 ? 2 : 0) + (heights ? 4 : 0);
    /* A scaled render keeps rgb and grey16 twice more at render size (the
     * scaler's aligned destination, the packed picture), and libswscale's
     * contexts their lines and filters (1 a pixel and SCALER_FIXED); the renderer's
     * deep picture is the floats once (at grid size, which is the
     * render's), or the colours with their 16-bit planes beside them, as
     * much again. */
    const bool scaled = rw != gw || rh != gh;
    uint64_t per_pixel = (scaled ? 2 * (3 + (g16 ? 2 : 0)) + 1 : 0)
                         + (needs & RENDER_NEED_FLOAT ? deep : 2 * deep);
    /* The writer's ring (pipeline.c): PIPE_DEPTH slots, each a copy of what
     * the frame carries, rows unpadded (rgb24, 16-bit grey, the deep
     * picture, the yuv420p a video takes where the renderer scales, 1.5 a
     * pixel; heights at grid size). */
    uint64_t ring = 0;
    if (kind)
        ring = budget_mul(PIPE_DEPTH,
                          budget_add(budget_mul(budget_mul(rw, rh), 3 + (g16 ? 2 : 0) + deep
                                                         + ((needs & RENDER_NEED_YUV420) && scaled ? 2 : 0)),
                                     heights ? budget_mul(cells, 4) : 0));
    p->grid = budget_add(budget_add(budget_add(budget_planes_bytes(sc), budget_mul(cells, per_cell)),
                                    budget_add(budget_mul(pix, per_pixel), ring)),
                         budget_add(budget_add(picture_bytes(sc, gw, gh, rw, rh), render_mode_bytes(sc)),
                                    scaled ? SCALER_FIXED : 0));
    int threads = omp_get_max_threads();
    const struct solver_ops *ops = sc->solver.type;
    p->solver_what[0] = '\0';
    p->solver = ops->bytes ? ops->bytes(sc, threads, p->solver_what, sizeof p->solver_what) : 0;
    p->what[0] = '\0';
    p->output = kind ? sink_bytes(sc, (struct sink_budget){ .threads = threads, .encoder_threads = encoder_threads_asked },
                                  p->what, sizeof p->what)
                     : 0;
    /* The scene's text was parsed first; what the parse freed may stay mapped. */
    p->text = budget_mul(sc->text_bytes, TEXT_BYTES_PER_BYTE);
    const char *key;
    int most;
    p->sources = budget_mul(source_count(sc, &key, &most), SOURCE_BYTES + (resolved_scene ? RESOLVED_SOURCE_BYTES : 0));
}

/* The run's need without a fused batch's pictures. */
static uint64_t unfused_bytes(const struct scene *sc)
{
    struct parts p;
    run_parts(sc, &p);
    return budget_add(budget_add(budget_add(p.grid, p.solver), budget_add(p.output, p.text)), p.sources);
}

/* A fused batch's picture: rgb24 at render size, and the raw heights (a
 * float a cell) when the output takes them. */
static uint64_t fused_picture(const struct scene *sc, int needs)
{
    uint64_t cells = budget_mul(size_of(sc->grid.width), size_of(sc->grid.height));
    return budget_add(budget_mul(cells, 3), needs & RENDER_NEED_HEIGHTS ? budget_mul(cells, 4) : 0);
}

/* The batch's frames for sc and the limit, and the bytes of each of its
 * pictures in *pic (budget_batch_frames). */
static int batch_frames(const struct scene *sc, uint64_t limit, uint64_t *pic)
{
    const struct sink_ops *kind = output_kind(sc);
    *pic = 0;
    if (one_by_one)
        return 0;
    const uint64_t need = unfused_bytes(sc);
    if (!kind) {
        /* Without an output: rgb24 pictures at render size, within
         * BATCH_MAX_BYTES and the limit's room beside the run's need; at
         * least 2 drawn by rows, else BATCH_MIN_LANES (src/batch.h). */
        const uint64_t room = limit < need ? 0 : limit - need < BATCH_MAX_BYTES ? limit - need : BATCH_MAX_BYTES;
        *pic = budget_mul(budget_mul(size_of(scene_render_width(sc)), size_of(scene_render_height(sc))), 3);
        if (*pic == 0 || *pic > room / (render_draws_by_rows(sc, 0) ? 2 : BATCH_MIN_LANES))
            return 0;
        return room / *pic < BATCH_MAX_FRAMES ? (int)(room / *pic) : BATCH_MAX_FRAMES;
    }
    if (!sink_fuses(sc))
        return 0;
    const int needs = kind->needs(&sc->output, sc);
    if (!render_draws_by_rows(sc, needs))   /* the ring's frames then come whole from render_frame_to */
        return 0;
    *pic = fused_picture(sc, needs);
    uint64_t k = 1 + BUDGET_FUSED_BYTES / *pic;
    k = k < BUDGET_FUSED_FRAMES ? k : BUDGET_FUSED_FRAMES;
    while (k >= 2 && budget_add(need, budget_mul(k - 1, *pic)) > limit)
        k--;
    return k >= 2 ? (int)k : 0;
}

int budget_batch_frames(const struct scene *sc, uint64_t limit)
{
    uint64_t pic;
    return batch_frames(sc, limit, &pic);
}

uint64_t budget_run_bytes(const struct scene *sc)
{
    /* A fused batch's frames are the ring's, beside 1 picture frame by
     * frame; a batch without an output holds its own. */
    uint64_t pic;
    const int k = batch_frames(sc, UINT64_MAX, &pic);
    const uint64_t extra = output_kind(sc) ? (k ? (uint64_t)k - 1 : 0) : (uint64_t)k;
    return budget_add(unfused_bytes(sc), budget_mul(extra, pic));
}

/* 1 when need passes the budget (named in *budget), 0 when it fits, -1 with e
 * filled when RIPPLERENDER_MEM_LIMIT is not a size. */
static int over_budget(uint64_t need, uint64_t *budget, struct rr_err *e)
{
    if (budget_limit(budget, e) < 0)
        return -1;
    return need > *budget;
}

#define RAISE_IT " bytes (raise it with " ENV_NAME ", e.g. " ENV_NAME "=%s)"

/* The limit to suggest for `need` bytes: rounded up to whole K, M or G
 * (powers of 1024, as the variable reads them), so that it passes. */
static const char *enough(char buf[32], uint64_t need)
{
    static const char unit[] = "KMG";
    int u = need > (1ULL << 30) ? 2 : need > (1ULL << 20) ? 1 : 0;
    uint64_t size = 1ULL << (10 * (u + 1));
    snprintf(buf, 32, "%llu%c", (unsigned long long)(need / size + (need % size != 0)), unit[u]);
    return buf;
}

int budget_check_run(const struct scene *sc, struct rr_err *e)
{
    uint64_t budget, need = budget_run_bytes(sc);
    int over = over_budget(unfused_bytes(sc), &budget, e);
    if (over <= 0)
        return over;
    /* Name the part that outweighs the grid, if one does. */
    struct parts p;
    run_parts(sc, &p);
    char fit[32];
    const char *key;
    int longest;
    source_count(sc, &key, &longest);
    /* Sources that outweigh the grid and the output: named by their key. */
    if (p.sources > p.grid && p.sources >= p.solver && p.sources >= p.output)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %d %s with a %d x %d grid need about %llu bytes, more than the limit of %llu"
                       RAISE_IT "; %llu of them the scene's %llu sources", key, longest, key, sc->grid.width,
                       sc->grid.height, (unsigned long long)need, (unsigned long long)budget, enough(fit, need),
                       (unsigned long long)p.sources, (unsigned long long)source_count(sc, &key, &longest));
    char most[160] = "";
    if (p.solver > p.grid && p.solver >= p.output && p.solver >= p.text)
        snprintf(most, sizeof most, "; %llu of them %s", (unsigned long long)p.solver, p.solver_what);
    else if (p.output > p.grid && p.output >= p.text)
        snprintf(most, sizeof most, "; %llu of them %s", (unsigned long long)p.output, p.what);
    else if (p.text > p.grid)
        snprintf(most, sizeof most, "; %llu of them the scene text's parse", (unsigned long long)p.text);
    return rr_fail(e, RR_EXIT_USAGE,
                   "grid: %d x %d cells with a %d x %d render need about %llu bytes, more than the limit of %llu"
                   RAISE_IT "%s", sc->grid.width, sc->grid.height, scene_render_width(sc),
                   scene_render_height(sc), (unsigned long long)need,
                   (unsigned long long)budget, enough(fit, need), most);
}

int budget_check_video(const struct scene *sc, const char *key, const char *path, int w, int h, uint64_t bytes,
                       struct rr_err *e)
{
    uint64_t budget, run = budget_run_bytes(sc), need = budget_add(run, bytes);
    int over = over_budget(need, &budget, e);
    if (over <= 0)
        return over;
    char fit[32];
    return rr_fail(e, RR_EXIT_USAGE,
                   "%s: %s: decoding its %d x %d frames needs about %llu bytes beside the run's %llu, more than the "
                   "limit of %llu" RAISE_IT, key, path, w, h, (unsigned long long)bytes, (unsigned long long)run,
                   (unsigned long long)budget, enough(fit, need));
}

int budget_check_scene_text(uint64_t len, const char *name, struct rr_err *e)
{
    uint64_t budget, need = budget_scene_text_bytes(len);
    int over = over_budget(need, &budget, e);
    if (over <= 0)
        return over;
    char fit[32];
    return rr_fail(e, RR_EXIT_USAGE,
                   "%s: %llu bytes of scene text need about %llu bytes to parse, more than the limit of %llu" RAISE_IT,
                   name, (unsigned long long)len, (unsigned long long)need, (unsigned long long)budget,
                   enough(fit, need));
}

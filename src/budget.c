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
#define GIF_FIXED ((uint64_t)20 << 20)        /* palettegen's and paletteuse's tables */
#define GIF_PIXEL 24                          /* per pixel: the frames a .gif's filters, encoder and
                                                 sink hold at once (rgb24, rgb32, pal8 copies) */
#define ENCODER_FIXED ((uint64_t)8 << 20)

uint64_t budget_scene_text_bytes(uint64_t len)
{
    return budget_mul(len, TEXT_BYTES_PER_BYTE);
}

/* x264's presets (x264's common/base.c, x264_param_apply_preset): frames of
 * rate-control lookahead, B-frames and reference frames. */
static const struct { const char *name; int lookahead, bframes, refs; } x264_presets[] = {
    { "ultrafast", 0, 0, 1 }, { "superfast", 0, 3, 1 }, { "veryfast", 10, 3, 1 },
    { "faster", 20, 3, 2 },   { "fast", 30, 3, 2 },     { "medium", 40, 3, 3 },
    { "slow", 50, 3, 5 },     { "slower", 60, 3, 8 },   { "veryslow", 60, 8, 16 },
    { "placebo", 60, 16, 16 },
};

/* Whether s ends with tail, ignoring case (as output names are matched). */
static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcasecmp(s + n - m, tail);
}

/* The parts of a run's estimate; `what` and `solver_what` say what the
 * output's and the solver's parts are. */
struct parts {
    uint64_t grid, solver, output, text;
    char what[96], solver_what[96];
};

/* -j as the encoder gets it (its thread_count), 0 without -j. */
static int encoder_threads_asked;

void budget_encoder_threads(int n)
{
    encoder_threads_asked = n > 0 ? n : 0;
}

/* The frames an encoder holds at once: the frames it looks ahead, its B- and
 * reference frames and, with frame threads, the lookahead thread's queue,
 * never more than the clip plus the few it keeps from the start; and each
 * frame thread's own two (the frame it encodes, the one it reconstructs),
 * however short the clip. The frame threads: -j's count when given (the
 * encoder's thread_count), else libavcodec's automatic count, 1.5 a core. */
static uint64_t encoder_frames(const struct scene *sc, int threads, const char **name)
{
    const char *codec = sc->output.codec[0] ? sc->output.codec
                        : sc->output.path && ends_with(sc->output.path, ".webm") ? "libvpx-vp9" : "libx264";
    *name = codec;
    const int tx = encoder_threads_asked > 0 ? encoder_threads_asked : (3 * threads + 1) / 2;
    int held = 32;   /* any other encoder */
    if (!strcmp(codec, "libx264")) {
        const char *preset = sc->output.preset[0] ? sc->output.preset : "medium";
        size_t k = 5;
        for (size_t i = 0; i < sizeof x264_presets / sizeof x264_presets[0]; i++)
            if (!strcmp(preset, x264_presets[i].name))
                k = i;
        held = x264_presets[k].lookahead + x264_presets[k].bframes + x264_presets[k].refs + 4 + (tx > 1 ? 16 : 0);
    }
    const uint64_t clip = sc->time.frames > 0 ? (uint64_t)sc->time.frames + 13 : 13;
    return (clip < (uint64_t)held ? clip : (uint64_t)held) + (tx > 1 ? 2 * (uint64_t)tx : 0);
}

/* What the output's writer holds beyond one frame: a GIF's palette tables and
 * few frames, a PNG sequence's frames in flight, a video encoder's
 * frames (yuv420p with its 32-pixel borders, lookahead planes and motion
 * data: 4 bytes per padded pixel). */
static bool no_output;   /* budget_without_output: output.path is not written */

void budget_without_output(void)
{
    no_output = true;
}

static uint64_t sink_bytes(const struct scene *sc, uint64_t rw, uint64_t rh, int threads, char *what, size_t size)
{
    const char *path = sc->output.path && !no_output ? sc->output.path : "";
    uint64_t pix = budget_mul(rw, rh);
    if (ends_with(path, ".gif")) {
        /* Two passes over a scratch file (gif.c): whatever the frame count,
         * a few frames at once (the one handed over, paletteuse's last input
         * and output, the encoder's last frame, the one read back). */
        snprintf(what, size, "the .gif's palette tables and frames in flight");
        return budget_add(GIF_FIXED, budget_mul(pix, GIF_PIXEL));
    }
    if (ends_with(path, ".png")) {
        /* Each frame in flight (sink.h's sink_png_jobs) holds a copy of the
         * picture (rgb24, 16-bit grey or the deep picture: up to 8 bytes a
         * pixel for 16-bit rgba), its compressed file, no larger, and its
         * compressor (SINK_PNG_JOB_FIXED). */
        uint64_t jobs = (uint64_t)sink_png_jobs(threads);
        uint64_t bpp = (uint64_t)(sc->output.bit_depth == 16 ? 2 : 1) * (sc->render.alpha != ALPHA_NONE ? 4 : 3);
        snprintf(what, size, "the PNG sequence's %llu frames in flight", (unsigned long long)jobs);
        return budget_mul(jobs, budget_add(budget_mul(2 * bpp, pix), SINK_PNG_JOB_FIXED));
    }
    if (sc->render.atlas[0]) {
        /* The atlas being filled: rgb, and the deep picture (16-bit rgba, or
         * 4 floats of an .exr) of columns x rows frames. */
        uint64_t n = budget_mul((uint64_t)sc->render.atlas[0], (uint64_t)sc->render.atlas[1]);
        snprintf(what, size, "the render.atlas image of %llu frames", (unsigned long long)n);
        return budget_add(budget_mul(budget_mul(n, pix), 3 + 8),
                          ends_with(path, ".exr") ? budget_add(budget_mul(budget_mul(n, pix), 16), budget_mul(pix, 16 * 4))
                                                  : 0);
    }
    if (ends_with(path, ".exr")) {
        /* Up to 4 floats a cell (normals and alpha), in the renderer and in
         * each of the writer's 3 ring slots (pipeline.c); an .exr is at grid
         * size, which is the render's (its sink refuses another). */
        snprintf(what, size, "the .exr's float pictures, the renderer's and the writer's");
        return budget_mul(pix, 16 * 4);
    }
    static const char *const video[] = { ".mp4", ".mkv", ".mov", ".webm" };
    for (size_t i = 0; i < 4; i++)
        if (ends_with(path, video[i])) {
            const char *codec;
            uint64_t held = encoder_frames(sc, threads, &codec);
            snprintf(what, size, "the %s encoder's %llu frames in flight", codec, (unsigned long long)held);
            /* and the padded frame the sink hands it (4 a pixel, rows padded by 64) */
            return budget_add(budget_add(ENCODER_FIXED, budget_mul(held, budget_mul(4, budget_mul(rw + 64, rh + 64)))),
                              budget_mul(4, budget_mul(rw + 64, rh)));
        }
    return 0;
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

/* Bytes per pixel of a deep picture of 16-bit colours or alpha (frame.h): at
 * most 4 channels of 2 bytes. */
#define DEEP_PIXEL 8

static void run_parts(const struct scene *sc, struct parts *p)
{
    /* As the run allocates them (src/field.c, src/sim.c, src/render.c,
     * src/pipeline.c): per grid cell, the two height planes (8) and the wall
     * byte (more when walls move), the renderer's rgb (3) and, when the
     * output takes them, its 16-bit grey (2) and raw heights (4); rows are
     * padded by a few cells, counted as 40 a row. */
    const struct sink_ops *kind = output_kind(sc);
    const int needs = kind ? kind->needs(&sc->output, sc) : 0;
    const bool g16 = needs & RENDER_NEED_GRAY16, heights = needs & RENDER_NEED_HEIGHTS;
    /* (an .exr's float picture is sink_bytes') */
    const bool deep = (needs & (RENDER_NEED_RGB16 | RENDER_NEED_ALPHA)) && !(needs & RENDER_NEED_FLOAT);
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
     * scaler's aligned destination, the packed picture); a deep picture
     * (16-bit colours, alpha) is at most DEEP_PIXEL a pixel at render size
     * with its 16-bit planes beside it, as much again. */
    const bool scaled = rw != gw || rh != gh;
    uint64_t per_pixel = (scaled ? 2 * (3 + (g16 ? 2 : 0)) : 0) + (deep ? 2 * DEEP_PIXEL : 0);
    /* The writer's ring (pipeline.c): PIPE_DEPTH slots, each a copy of what
     * the frame carries (rgb24, 16-bit grey, the deep picture, the yuv420p a
     * video takes where the renderer scales, 1.5 a pixel; heights at grid
     * size). */
    uint64_t ring = 0;
    if (kind)
        ring = budget_mul(PIPE_DEPTH,
                          budget_add(budget_mul(pix, 3 + (g16 ? 2 : 0) + (deep ? DEEP_PIXEL : 0)
                                                         + ((needs & RENDER_NEED_YUV420) && scaled ? 2 : 0)),
                                     heights ? budget_mul(cells, 4) : 0));
    p->grid = budget_add(budget_add(budget_add(budget_planes_bytes(sc), budget_mul(cells, per_cell)),
                                    budget_add(budget_mul(pix, per_pixel), ring)),
                         picture_bytes(sc, gw, gh, rw, rh));
    int threads = omp_get_max_threads();
    const struct solver_ops *ops = sc->solver.type;
    p->solver_what[0] = '\0';
    p->solver = ops->bytes ? ops->bytes(sc, threads, p->solver_what, sizeof p->solver_what) : 0;
    p->what[0] = '\0';
    p->output = sink_bytes(sc, rw, rh, threads, p->what, sizeof p->what);
    /* The scene's text was parsed first; what the parse freed may stay mapped. */
    p->text = budget_mul(sc->text_bytes, TEXT_BYTES_PER_BYTE);
}

/* The run's need without a fused batch's pictures. */
static uint64_t unfused_bytes(const struct scene *sc)
{
    struct parts p;
    run_parts(sc, &p);
    return budget_add(budget_add(p.grid, p.solver), budget_add(p.output, p.text));
}

/* A fused batch's picture: rgb24 at render size, and the raw heights (a
 * float a cell) when the output takes them. */
static uint64_t fused_picture(const struct scene *sc)
{
    const struct sink_ops *k = sink_find(sc->output.path, NULL);
    uint64_t gw = (uint64_t)sc->grid.width, gh = (uint64_t)sc->grid.height;
    bool heights = k && (k->needs(&sc->output, sc) & RENDER_NEED_HEIGHTS);
    return budget_add(budget_mul(budget_mul(gw, gh), 3), heights ? budget_mul(budget_mul(gw, gh), 4) : 0);
}

int budget_fused_frames(const struct scene *sc, uint64_t limit)
{
    if (no_output || !sink_fuses(sc))
        return 0;
    const uint64_t pic = fused_picture(sc), need = unfused_bytes(sc);
    uint64_t k = 1 + BUDGET_FUSED_BYTES / pic;
    k = k < BUDGET_FUSED_FRAMES ? k : BUDGET_FUSED_FRAMES;
    while (k >= 2 && budget_add(need, budget_mul(k - 1, pic)) > limit)
        k--;
    return k >= 2 ? (int)k : 0;
}

uint64_t budget_run_bytes(const struct scene *sc)
{
    const int k = budget_fused_frames(sc, UINT64_MAX);
    return budget_add(unfused_bytes(sc), k ? budget_mul((uint64_t)k - 1, fused_picture(sc)) : 0);
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
    char most[160] = "";
    if (p.solver > p.grid && p.solver >= p.output && p.solver >= p.text)
        snprintf(most, sizeof most, "; %llu of them %s", (unsigned long long)p.solver, p.solver_what);
    else if (p.output > p.grid && p.output >= p.text)
        snprintf(most, sizeof most, "; %llu of them %s", (unsigned long long)p.output, p.what);
    else if (p.text > p.grid)
        snprintf(most, sizeof most, "; %llu of them the scene text's parse", (unsigned long long)p.text);
    char fit[32];
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

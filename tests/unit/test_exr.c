/* test_exr.c: the .exr sink and the float picture it is made of. Files
 * written through the sink registry are read back with OpenEXRCore's own
 * decoder: 32-bit floats bit for bit, half floats within half's rounding,
 * each channel by its name, every compression; the set is atomic (nothing
 * under the targets before close, no temporary left by free or by a failed
 * open). The renderer's float picture: heights bit for bit the field's,
 * normals the vectors the 8- and 16-bit normal maps are rounded from,
 * render.normal_convention directx the exact negation of ny (255 - green,
 * 65535 - green in the integer maps), alpha in [0, 1] with walls opaque,
 * caustics' light conserved; scaled renders and colour modes refused. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openexr.h>

#include "fake_field.h"
#include "outfile.h"
#include "render.h"
#include "sink.h"
#include "sinks/sinks.h"   /* sink_pattern_name */
#include "sink_fixture.h"
#include "water_scene.h"

/* Entries of the test directory (hidden ones too: temporary files). */
static int count_entries(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void clear_dir(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/* '%s'/.[!.]*", dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* ---- reading back with OpenEXRCore ------------------------------------------------ */

struct exr_image {
    int w, h, n;
    char names[4][8];
    exr_pixel_type_t types[4];
    exr_compression_t compression;
    float *px;                 /* w * h * n floats, channel k of pixel i at px[i * n + k], file order */
};

static void read_exr(const char *path, struct exr_image *im)
{
    memset(im, 0, sizeof *im);
    exr_context_t ctx = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    if (exr_start_read(&ctx, path, &init) != EXR_ERR_SUCCESS)
        fail_msg("%s: OpenEXRCore cannot open it", path);
    exr_attr_box2i_t dw;
    const exr_attr_chlist_t *chl;
    int32_t lines;
    assert_int_equal(exr_get_data_window(ctx, 0, &dw), EXR_ERR_SUCCESS);
    assert_int_equal(exr_get_channels(ctx, 0, &chl), EXR_ERR_SUCCESS);
    assert_int_equal(exr_get_compression(ctx, 0, &im->compression), EXR_ERR_SUCCESS);
    assert_int_equal(exr_get_scanlines_per_chunk(ctx, 0, &lines), EXR_ERR_SUCCESS);
    im->w = dw.max.x - dw.min.x + 1;
    im->h = dw.max.y - dw.min.y + 1;
    im->n = chl->num_channels;
    assert_in_range(im->n, 1, 4);
    for (int k = 0; k < im->n; k++) {
        snprintf(im->names[k], sizeof im->names[k], "%s", chl->entries[k].name.str);
        im->types[k] = chl->entries[k].pixel_type;
    }
    im->px = malloc((size_t)im->w * im->h * im->n * sizeof(float));
    assert_non_null(im->px);
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    for (int y = dw.min.y; y <= dw.max.y; y += lines) {
        exr_chunk_info_t ci;
        assert_int_equal(exr_read_scanline_chunk_info(ctx, 0, y, &ci), EXR_ERR_SUCCESS);
        if (y == dw.min.y)
            assert_int_equal(exr_decoding_initialize(ctx, 0, &ci, &dec), EXR_ERR_SUCCESS);
        else
            assert_int_equal(exr_decoding_update(ctx, 0, &ci, &dec), EXR_ERR_SUCCESS);
        for (int c = 0; c < dec.channel_count; c++) {
            exr_coding_channel_info_t *cc = &dec.channels[c];
            cc->user_bytes_per_element = 4;
            cc->user_data_type = EXR_PIXEL_FLOAT;
            cc->user_pixel_stride = im->n * 4;
            cc->user_line_stride = im->w * im->n * 4;
            cc->decode_to_ptr = (uint8_t *)(im->px + (size_t)(y - dw.min.y) * im->w * im->n + c);
        }
        if (y == dw.min.y)
            assert_int_equal(exr_decoding_choose_default_routines(ctx, 0, &dec), EXR_ERR_SUCCESS);
        assert_int_equal(exr_decoding_run(ctx, 0, &dec), EXR_ERR_SUCCESS);
    }
    exr_decoding_destroy(ctx, &dec);
    exr_finish(&ctx);
}

/* The file's channel called name, or -1. */
static int channel(const struct exr_image *im, const char *name)
{
    for (int k = 0; k < im->n; k++)
        if (strcmp(im->names[k], name) == 0)
            return k;
    return -1;
}

/* ---- the sink -------------------------------------------------------------------- */

/* n frames of w x h pixels of ch floats: values of every sign and scale
 * (tiny, subnormal, negative zero, large), different in every frame. */
static float *float_frames(int w, int h, int ch, int n)
{
    size_t m = (size_t)w * h * ch * n;
    float *v = malloc(m * sizeof *v);
    assert_non_null(v);
    uint32_t s = 2024;
    for (size_t i = 0; i < m; i++) {
        s = s * 1664525u + 1013904223u;
        float u = (float)(s >> 8) / 16777216.0f - 0.5f;   /* [-0.5, 0.5) */
        v[i] = i % 7 == 0 ? u * 1e-3f : i % 11 == 0 ? u * 3e4f : u;
    }
    v[1] = -0.0f;
    v[2] = 1e-40f;   /* subnormal */
    v[3] = 6e-5f;
    return v;
}

static struct frame float_frame(const float *v, int w, int h, int ch, long i)
{
    struct frame fr = {
        .index = i, .width = w, .height = h, .grid_w = w, .grid_h = h,
        .deep = v + (size_t)w * h * ch * i, .deep_channels = ch, .deep_bits = 32,
    };
    return fr;
}

/* Writes n frames of v through the registry to sc's path. */
static void write_frames(struct scene *sc, const float *v, int w, int h, int ch, int n, int first)
{
    struct sink *s = NULL;
    struct rr_err e = { 0 };
    struct sink_params p = params(w, h, n, false);
    p.first = first;
    if (sink_open(&s, sc, &p, &e) < 0)
        fail_msg("sink_open: %s", e.msg);
    int want = RENDER_NEED_FLOAT | (sc->render.alpha != ALPHA_NONE ? RENDER_NEED_ALPHA : 0);
    assert_int_equal(sink_needs(s), want);
    char name[600];
    for (int i = 0; i < n; i++) {
        struct frame fr = float_frame(v, w, h, ch, i);
        fr.index = first + i;
        if (sink_write(s, &fr, &e) < 0)
            fail_msg("sink_write: %s", e.msg);
        assert_int_equal(sink_pattern_name(name, sizeof name, sc->output.path, first + i), 0);
        assert_false(exists(name));   /* nothing under the targets before close */
    }
    assert_int_equal(sink_close(s, &e), 0);
    sink_free(s);
}

static void test_heights_float_bit_for_bit(void **state)
{
    (void)state;
    const int w = 37, h = 23, n = 3;   /* 23 rows: a last ZIP block of 7 */
    float *v = float_frames(w, h, 1, n);
    struct scene sc;
    setup_scene(&sc, in_dir("h_%04d.exr"), w, h);
    write_frames(&sc, v, w, h, 1, n, 5);
    assert_int_equal(count_entries(), n);   /* the frames, no temporary */
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "h_%04d.exr", 5 + i);
        struct exr_image im;
        read_exr(in_dir(name), &im);
        assert_int_equal(im.w, w);
        assert_int_equal(im.h, h);
        assert_int_equal(im.n, 1);
        assert_string_equal(im.names[0], "Y");
        assert_int_equal(im.types[0], EXR_PIXEL_FLOAT);
        assert_int_equal(im.compression, EXR_COMPRESSION_ZIP);
        assert_memory_equal(im.px, v + (size_t)w * h * i, (size_t)w * h * sizeof(float));
        free(im.px);
    }
    clear_dir();
    free(v);
}

static void test_half_floats(void **state)
{
    (void)state;
    const int w = 20, h = 9;
    float *v = float_frames(w, h, 1, 1);
    struct scene sc;
    setup_scene(&sc, in_dir("q%d.exr"), w, h);
    sc.output.bit_depth = 16;
    write_frames(&sc, v, w, h, 1, 1, 0);
    struct exr_image im;
    read_exr(in_dir("q0.exr"), &im);
    assert_int_equal(im.types[0], EXR_PIXEL_HALF);
    /* Rounded to nearest: half has 11 significant bits (relative error at
     * most 2^-11), and steps of 2^-24 below 2^-14 (subnormals). */
    for (int i = 0; i < w * h; i++) {
        double want = v[i], got = im.px[i];
        if (fabs(got - want) > fabs(want) * 0x1p-11 + 0x1p-25)
            fail_msg("pixel %d: %.9g read back as %.9g", i, want, got);
    }
    assert_true(im.px[1] == 0.0f && signbit(im.px[1]));   /* -0 stays -0 */
    free(im.px);
    clear_dir();
    free(v);
}

static void test_channels_by_name(void **state)
{
    (void)state;
    const int w = 11, h = 5;
    float *v = float_frames(w, h, 4, 1);
    struct scene sc;
    setup_scene(&sc, in_dir("n%d.exr"), w, h);
    sc.render.mode = RENDER_NORMALS;
    sc.render.alpha = ALPHA_HEIGHT;
    write_frames(&sc, v, w, h, 4, 1, 0);
    struct exr_image im;
    read_exr(in_dir("n0.exr"), &im);
    assert_int_equal(im.n, 4);
    static const char *const rgba[] = { "R", "G", "B", "A" };
    for (int k = 0; k < 4; k++) {
        int c = channel(&im, rgba[k]);
        assert_true(c >= 0);
        for (int i = 0; i < w * h; i++)
            assert_memory_equal(&im.px[i * 4 + c], &v[i * 4 + k], sizeof(float));
    }
    free(im.px);
    clear_dir();
    /* caustics with alpha: Y and A */
    setup_scene(&sc, in_dir("c%d.exr"), w, h);
    sc.render.mode = RENDER_CAUSTICS;
    sc.render.alpha = ALPHA_CAUSTICS;
    write_frames(&sc, v, w, h, 2, 1, 0);
    read_exr(in_dir("c0.exr"), &im);
    int y = channel(&im, "Y"), a = channel(&im, "A");
    assert_int_equal(im.n, 2);
    assert_true(y >= 0 && a >= 0);
    for (int i = 0; i < w * h; i++) {
        assert_memory_equal(&im.px[i * 2 + y], &v[i * 2], sizeof(float));
        assert_memory_equal(&im.px[i * 2 + a], &v[i * 2 + 1], sizeof(float));
    }
    free(im.px);
    clear_dir();
    free(v);
}

static void test_compressions(void **state)
{
    (void)state;
    const int w = 64, h = 40;
    float *v = float_frames(w, h, 1, 1);
    static const struct {
        enum exr_compression key;
        exr_compression_t file;
    } kinds[] = { { EXRC_ZIP, EXR_COMPRESSION_ZIP }, { EXRC_ZIPS, EXR_COMPRESSION_ZIPS },
                  { EXRC_PIZ, EXR_COMPRESSION_PIZ }, { EXRC_RLE, EXR_COMPRESSION_RLE },
                  { EXRC_NONE, EXR_COMPRESSION_NONE } };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        struct scene sc;
        setup_scene(&sc, in_dir("z%d.exr"), w, h);
        sc.output.exr_compression = kinds[k].key;
        write_frames(&sc, v, w, h, 1, 1, 0);
        struct exr_image im;
        read_exr(in_dir("z0.exr"), &im);
        assert_int_equal(im.compression, kinds[k].file);
        assert_memory_equal(im.px, v, (size_t)w * h * sizeof(float));
        free(im.px);
        clear_dir();
    }
    free(v);
}

static void test_sink_errors(void **state)
{
    (void)state;
    struct scene sc;
    struct sink *s = NULL;
    struct rr_err e = { 0 };
    struct sink_params p = params(8, 4, 3, false);
    /* a name without a frame number field */
    setup_scene(&sc, in_dir("h.exr"), 8, 4);
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "needs exactly one frame number field"));
    /* a colour mode */
    setup_scene(&sc, in_dir("h%d.exr"), 8, 4);
    sc.render.mode = RENDER_SHADED;
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "render.mode: "));
    assert_non_null(strstr(e.msg, "\"shaded\" has no float picture"));
    /* a scaled render */
    setup_scene(&sc, in_dir("h%d.exr"), 8, 4);
    struct sink_params big = params(16, 8, 3, false);
    big.grid_w = 8;
    big.grid_h = 4;
    assert_int_equal(sink_open(&s, &sc, &big, &e), -1);
    assert_non_null(strstr(e.msg, "render.width: "));
    assert_non_null(strstr(e.msg, "one pixel per grid cell (8x4), not a 16x8 render"));
    /* an existing frame without overwrite: refused before anything is written */
    FILE *f = fopen(in_dir("h1.exr"), "w");
    assert_non_null(f);
    fputs("mine", f);
    fclose(f);
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_int_equal(e.status, RR_EXIT_RUNTIME);
    assert_non_null(strstr(e.msg, "h1.exr: already exists (use -y to replace it)"));
    assert_int_equal(count_entries(), 1);
    clear_dir();
    /* a folder that is a file: the frame cannot be begun, nothing left */
    f = fopen(in_dir("file"), "w");
    assert_non_null(f);
    fclose(f);
    setup_scene(&sc, in_dir("file/h%d.exr"), 8, 4);
    float *v = float_frames(8, 4, 1, 1);
    if (sink_open(&s, &sc, &p, &e) == 0) {
        struct frame fr = float_frame(v, 8, 4, 1, 0);
        assert_int_equal(sink_write(s, &fr, &e), -1);
        sink_free(s);
    }
    assert_non_null(strstr(e.msg, "is not a directory"));
    assert_int_equal(count_entries(), 1);
    clear_dir();
    /* free without close: the frames written are taken away */
    setup_scene(&sc, in_dir("h%d.exr"), 8, 4);
    assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
    struct frame fr = float_frame(v, 8, 4, 1, 0);
    assert_int_equal(sink_write(s, &fr, &e), 0);
    fr.index = 1;
    assert_int_equal(sink_write(s, &fr, &e), 0);
    assert_int_equal(count_entries(), 2);   /* two temporary files */
    sink_free(s);
    assert_int_equal(count_entries(), 0);
    /* a frame without a float picture */
    assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
    struct frame bare = { .index = 0, .width = 8, .height = 4, .grid_w = 8, .grid_h = 4 };
    assert_int_equal(sink_write(s, &bare, &e), -1);
    assert_non_null(strstr(e.msg, "frame 0 has no 8x4 float picture of 1 channels"));
    sink_free(s);
    assert_int_equal(count_entries(), 0);
    /* output.bit_depth 32 is for .exr only */
    setup_scene(&sc, in_dir("h.npy"), 8, 4);
    sc.output.bit_depth = 32;
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    char want[600];
    snprintf(want, sizeof want, "output.bit_depth: 32 (float) is for .exr, not %s (use 8)", sc.output.path);
    assert_string_equal(e.msg, want);
    free(v);
}

/* ---- the renderer's float picture ---------------------------------------------- */

/* Ripples of every slope, some steeper than 1. */
static float *ripples(int w, int h)
{
    float *c = malloc((size_t)w * h * sizeof *c);
    assert_non_null(c);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            c[y * w + x] = 1.3f * sinf(0.7f * (float)x + 0.2f * (float)y) * cosf(0.45f * (float)y);
    return c;
}

/* Renders cells once with needs; copies the rgb, the deep picture. */
struct shot {
    uint8_t *rgb;
    void *deep;
    int ch, bits;
};

static void shoot(const struct scene *sc, const float *cells, const unsigned char *walls, int needs,
                  struct shot *out)
{
    const int w = sc->grid.width, h = sc->grid.height;
    struct fake fk;
    fake_init(&fk, w, h, cells);
    struct renderer *r = NULL;
    struct rr_err e = { 0 };
    if (render_create(&r, sc, needs, &e) < 0)
        fail_msg("render_create: %s", e.msg);
    struct frame fr;
    assert_int_equal(render_frame(r, &fk.f, walls, 0, &fr, &e), 0);
    out->rgb = malloc((size_t)w * h * 3);
    assert_non_null(out->rgb);
    memcpy(out->rgb, fr.rgb, (size_t)w * h * 3);
    out->deep = NULL;
    out->ch = fr.deep_channels;
    out->bits = fr.deep_bits;
    if (fr.deep) {
        size_t n = frame_deep_bytes(&fr);
        out->deep = malloc(n);
        assert_non_null(out->deep);
        memcpy(out->deep, fr.deep, n);
    }
    render_free(r);
    free(fk.mem);
}

static void shot_free(struct shot *s)
{
    free(s->rgb);
    free(s->deep);
}

static void test_float_heights(void **state)
{
    (void)state;
    const int w = 30, h = 17;
    float *c = ripples(w, h);
    unsigned char *walls = calloc((size_t)w * h, 1);
    walls[5 * w + 7] = 1;
    struct scene sc;
    scene_init(&sc, w, h, RENDER_HEIGHT, EDGE_FIXED);
    sc.render.alpha = ALPHA_HEIGHT;
    sc.render.range[0] = -0.5;
    struct shot s;
    shoot(&sc, c, walls, RENDER_NEED_FLOAT | RENDER_NEED_ALPHA, &s);
    assert_int_equal(s.bits, 32);
    assert_int_equal(s.ch, 2);
    const float *f = s.deep;
    for (int i = 0; i < w * h; i++) {
        assert_memory_equal(&f[2 * i], &c[i], sizeof(float));   /* the field's own bits */
        float a = walls[i] ? 1.0f : fminf(1.0f, fabsf(c[i]));   /* over max(|-0.5|, |1|) = 1 */
        assert_true(f[2 * i + 1] == a);
    }
    shot_free(&s);
    free(walls);
    free(c);
}

static void test_float_normals_and_convention(void **state)
{
    (void)state;
    const int w = 40, h = 21;
    float *c = ripples(w, h);
    struct scene sc;
    scene_init(&sc, w, h, RENDER_NORMALS, EDGE_WRAP);
    sc.render.height_scale = 2.5;
    struct shot gl, dx, gl16, dx16, plain;
    shoot(&sc, c, NULL, 0, &plain);
    shoot(&sc, c, NULL, RENDER_NEED_FLOAT, &gl);
    shoot(&sc, c, NULL, RENDER_NEED_RGB16, &gl16);
    assert_int_equal(sc.render.normal_convention, NORMALS_OPENGL);   /* the zeroed default */
    sc.render.normal_convention = NORMALS_DIRECTX;
    shoot(&sc, c, NULL, RENDER_NEED_FLOAT, &dx);
    shoot(&sc, c, NULL, RENDER_NEED_RGB16, &dx16);
    assert_int_equal(gl.ch, 3);
    /* asking for floats leaves the 8-bit frame as it is */
    assert_memory_equal(plain.rgb, gl.rgb, (size_t)w * h * 3);
    const float *n = gl.deep, *m = dx.deep;
    const uint16_t *g16 = gl16.deep, *d16 = dx16.deep;
    for (int i = 0; i < w * h; i++) {
        const float *v = n + 3 * i;
        /* a unit vector, z up */
        assert_true(fabsf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - 1.0f) < 1e-6f);
        assert_true(v[2] > 0.0f);
        /* the 8-bit map is (n + 1) / 2 * 255 rounded */
        for (int k = 0; k < 3; k++)
            assert_int_equal(gl.rgb[3 * i + k], (int)lrintf((0.5f + 0.5f * v[k]) * 255.0f));
        /* directx: ny negated exactly, nx and nz as they were */
        uint32_t a, b;
        float neg = -v[1];
        memcpy(&a, &m[3 * i + 1], 4);
        memcpy(&b, &neg, 4);
        assert_int_equal(a, b);
        assert_memory_equal(&m[3 * i], &v[0], 4);
        assert_memory_equal(&m[3 * i + 2], &v[2], 4);
        /* and green inverted in the integer maps, red and blue unchanged */
        assert_int_equal(dx.rgb[3 * i + 1], 255 - gl.rgb[3 * i + 1]);
        assert_int_equal(dx.rgb[3 * i], gl.rgb[3 * i]);
        assert_int_equal(dx.rgb[3 * i + 2], gl.rgb[3 * i + 2]);
        assert_int_equal(d16[3 * i + 1], 65535 - g16[3 * i + 1]);
        assert_int_equal(d16[3 * i], g16[3 * i]);
    }
    shot_free(&gl);
    shot_free(&dx);
    shot_free(&gl16);
    shot_free(&dx16);
    shot_free(&plain);
    /* still water: (128, 128, 255) in opengl, green 255 - 128 in directx */
    float still[4 * 3] = { 0 };
    scene_init(&sc, 4, 3, RENDER_NORMALS, EDGE_FIXED);
    shoot(&sc, still, NULL, 0, &gl);
    sc.render.normal_convention = NORMALS_DIRECTX;
    shoot(&sc, still, NULL, 0, &dx);
    static const uint8_t flat_gl[3] = { 128, 128, 255 }, flat_dx[3] = { 128, 127, 255 };
    assert_memory_equal(gl.rgb, flat_gl, 3);
    assert_memory_equal(dx.rgb, flat_dx, 3);
    shot_free(&gl);
    shot_free(&dx);
    free(c);
}

static void test_float_caustics(void **state)
{
    (void)state;
    const int w = 32, h = 24;
    float *c = ripples(w, h);
    struct scene sc;
    scene_init(&sc, w, h, RENDER_CAUSTICS, EDGE_WRAP);
    sc.render.height_scale = 0.3;
    sc.render.depth = 6;
    struct shot s;
    shoot(&sc, c, NULL, RENDER_NEED_FLOAT, &s);
    assert_int_equal(s.ch, 1);
    const float *l = s.deep;
    double sum = 0, lo = 1e9, hi = 0;
    for (int i = 0; i < w * h; i++) {
        sum += (double)l[i];
        lo = fmin(lo, (double)l[i]);
        hi = fmax(hi, (double)l[i]);
    }
    /* conserved (the light of every cell lands somewhere), and focused:
     * brighter and darker than still water's 1 */
    assert_true(fabs(sum - w * h) < 1e-3 * w * h);
    assert_true(hi > 1.2 && lo < 0.8);
    shot_free(&s);
    free(c);
}

static void test_float_refused(void **state)
{
    (void)state;
    struct scene sc;
    struct renderer *r = NULL;
    struct rr_err e = { 0 };
    scene_init(&sc, 8, 6, RENDER_SHADED, EDGE_FIXED);
    assert_int_equal(render_create(&r, &sc, RENDER_NEED_FLOAT, &e), -1);
    assert_string_equal(e.msg,
                        "render.mode: \"shaded\" has no float picture for this output (height, normals or caustics have)");
    scene_init(&sc, 8, 6, RENDER_HEIGHT, EDGE_FIXED);
    sc.render.width = 16;
    assert_int_equal(render_create(&r, &sc, RENDER_NEED_FLOAT, &e), -1);
    assert_string_equal(e.msg, "render.width: the float picture has one pixel per grid cell (8x6), not 16x6");
    assert_null(r);
}

static int group_setup(void **state)
{
    (void)state;
    return fixture_dir_make("/tmp/rr_exr_XXXXXX");
}

static int group_teardown(void **state)
{
    (void)state;
    return fixture_dir_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heights_float_bit_for_bit),
        cmocka_unit_test(test_half_floats),
        cmocka_unit_test(test_channels_by_name),
        cmocka_unit_test(test_compressions),
        cmocka_unit_test(test_sink_errors),
        cmocka_unit_test(test_float_heights),
        cmocka_unit_test(test_float_normals_and_convention),
        cmocka_unit_test(test_float_caustics),
        cmocka_unit_test(test_float_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

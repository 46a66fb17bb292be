/* test_budget.c: the memory budget (src/budget.c) and size arithmetic near
 * 2^31 and 2^64: saturating products, the run estimate computed by hand,
 * RIPPLERENDER_MEM_LIMIT parsing, and field_init refusing a grid of more than
 * 2^31 cells before allocating, naming the bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <omp.h>

#include "budget.h"
#include "field.h"
#include "solver.h"

static void test_saturating(void **state)
{
    (void)state;
    assert_true(budget_mul(46341, 46341) == 2147488281ULL);        /* just past 2^31 */
    assert_true(budget_mul((uint64_t)1 << 32, (uint64_t)1 << 31) == (uint64_t)1 << 63);
    assert_true(budget_mul((uint64_t)1 << 32, (uint64_t)1 << 32) == UINT64_MAX);
    assert_true(budget_mul(0, UINT64_MAX) == 0);
    assert_true(budget_add(UINT64_MAX - 1, 1) == UINT64_MAX);
    assert_true(budget_add(UINT64_MAX, 1) == UINT64_MAX);
}

/* A 64 x 48 grid rendered at its own size, no output: (64+40)*(48+2) cells
 * * 12 bytes (two float planes, the wall byte, the renderer's rgb). */
#define GRID_64x48 (104ULL * 50 * 12)
/* The writer's ring with an output: 3 frames of bpp bytes a pixel. */
#define RING_64x48(bpp) (3ULL * 64 * 48 * (bpp))
static struct scene scene_64x48(void)
{
    struct scene sc;
    memset(&sc, 0, sizeof sc);
    sc.solver.type = solver_find("elias");   /* nothing beyond the field */
    sc.grid.width = sc.render.width = 64;
    sc.grid.height = sc.render.height = 48;
    return sc;
}

/* Without an output, the frames come by batches (src/batch.h): 16
 * pictures of rgb24 when BATCH_MAX_BYTES hold them. */
#define BATCH_64x48 (16ULL * 64 * 48 * 3)

static void test_run_bytes(void **state)
{
    (void)state;
    struct scene sc = scene_64x48();
    assert_true(budget_run_bytes(&sc) == GRID_64x48 + BATCH_64x48);
    assert_int_equal(budget_batch_frames(&sc, UINT64_MAX), 16);
    /* Room for 5 pictures beside the need: a batch of 5; for 1, none. */
    assert_int_equal(budget_batch_frames(&sc, GRID_64x48 + 5 * 9216 + 9215), 5);
    assert_int_equal(budget_batch_frames(&sc, GRID_64x48 + 9216), 0);
    /* No render size (a scene built in code): the grid's (scene_render_width). */
    sc.render.width = sc.render.height = 0;
    assert_int_equal(scene_render_width(&sc), 64);
    assert_int_equal(scene_render_height(&sc), 48);
    assert_true(budget_run_bytes(&sc) == GRID_64x48 + BATCH_64x48);
    /* Scaled to 1000 x 1000: 7 bytes per output pixel (rgb at two stages,
     * libswscale's lines) and 2 MiB for its contexts, and 16 pictures of 3
     * MB in the batch's 96 MiB (at least 4, not drawn by rows). */
    sc.render.width = sc.render.height = 1000;
    assert_true(budget_run_bytes(&sc) == 104ULL * 50 * 12 + 1064ULL * 1000 * 7 + (2ULL << 20) + 16ULL * 3000000);
    /* The caustics mode's own (render_mode_ops.bytes): the slopes and the
     * light, 12 a cell, and its scratch, 6 floats a row per 64 cells. */
    sc.render.width = sc.render.height = 0;
    sc.render.mode = RENDER_CAUSTICS;
    assert_true(budget_run_bytes(&sc) == GRID_64x48 + BATCH_64x48 + 12ULL * 64 * 48 + 4ULL * 6 * 48);
    sc.render.mode = RENDER_HEIGHT;
    sc.render.width = sc.render.height = 1000;
    /* 65536 x 32768 = 2^31 cells (past the scene's limits, so also past any
     * int product): computed in 64 bits without wrapping. */
    sc.grid.width = sc.render.width = 65536;
    sc.grid.height = sc.render.height = 32768;
    assert_true(budget_run_bytes(&sc) == 65576ULL * 32770 * 12);   /* no batch: a picture passes BATCH_MAX_BYTES */
    /* INT_MAX sides: still no wrap, and far past any budget. */
    sc.grid.width = sc.render.width = 2147483647;
    sc.grid.height = sc.render.height = 2147483647;
    assert_true(budget_run_bytes(&sc) > ((uint64_t)1 << 62));
}

/* The output's writer (its kind's sink_ops.bytes and the libraries it
 * loads, 25 MiB for libavcodec and libavformat, 6 more for libavfilter),
 * beside the writer's ring of 3 rgb24 frames: a GIF, whatever its length,
 * 28 MiB of palette tables and 32 bytes a pixel for its few frames in
 * flight; a PNG sequence with 2 threads 3 frames in flight, each 1.5 x 3
 * bytes a pixel (8-bit rgb and its file, half as large), 1.5 x 8 for 16-bit
 * rgba (whose deep picture is 8 a pixel more in each ring slot, and 16 in
 * the renderer), 1.5 x 2 for 16-bit grey, 1 frame with 1 thread, each with 512 KiB for its
 * compressor; libx264's medium preset with 2 threads (3 frame threads)
 * holds 40 lookahead + 3 B + 3 reference + 4 + 16 + 1.5 x 3 = 71 frames of
 * 3.75 bytes per padded pixel, or the clip's frames + 2 + 2 x 3 when
 * fewer, 20 MiB of its own and the frame handed to it (4 a pixel, rows
 * padded); the scene text, 72 bytes a byte. */
#define LIBAV (25ULL << 20)
#define X264_FRAME (15ULL * 128 * 112 / 4)
static void test_output_frames(void **state)
{
    (void)state;
    struct scene sc = scene_64x48();
    sc.time.frames = 10;
    const uint64_t run = GRID_64x48 + RING_64x48(3);
    char gif[] = "a.gif", mp4[] = "a.mp4";
    sc.output.path = gif;
    const uint64_t gif_writer = LIBAV + (6ULL << 20) + (28ULL << 20) + 32ULL * 64 * 48;
    assert_true(budget_run_bytes(&sc) == run + gif_writer);
    sc.time.frames = 100000;
    assert_true(budget_run_bytes(&sc) == run + gif_writer);
    assert_int_equal(budget_batch_frames(&sc, UINT64_MAX), 0);   /* a GIF does not fuse */
    sc.time.frames = 10;
    char png[] = "f%05d.png";
    sc.output.path = png;
    omp_set_num_threads(2);
    assert_true(budget_run_bytes(&sc) == run + 3ULL * (9 * 64 * 48 / 2 + (1 << 19)));
    /* render.atlas 4 x 3: the image being filled (12 frames of rgb24) and
     * the PNG writer's jobs at its size, as many as its images: 1 for 10
     * frames, 2 for 20. */
    sc.render.atlas[0] = 4;
    sc.render.atlas[1] = 3;
    assert_true(budget_run_bytes(&sc) == run + 12ULL * 64 * 48 * 3 + 1ULL * (12ULL * 9 * 64 * 48 / 2 + (1 << 19)));
    sc.time.frames = 20;
    assert_true(budget_run_bytes(&sc) == run + 12ULL * 64 * 48 * 3 + 2ULL * (12ULL * 9 * 64 * 48 / 2 + (1 << 19)));
    sc.time.frames = 10;
    sc.render.atlas[0] = sc.render.atlas[1] = 0;
    sc.output.bit_depth = 16;
    sc.render.alpha = ALPHA_HEIGHT;
    const uint64_t deep = RING_64x48(8) + 16ULL * 128 * 48;
    assert_true(budget_run_bytes(&sc) == run + deep + 3ULL * (12 * 64 * 48 + (1 << 19)));
    omp_set_num_threads(1);
    assert_true(budget_run_bytes(&sc) == run + deep + 1ULL * (12 * 64 * 48 + (1 << 19)));
    sc.render.alpha = ALPHA_NONE;   /* 16-bit grey: 2 a cell in the renderer, 2 a pixel in each slot */
    assert_true(budget_run_bytes(&sc) == run + 104ULL * 50 * 2 + RING_64x48(2) + 1ULL * (3 * 64 * 48 + (1 << 19)));
    /* In a mode whose picture is not a grey, 16-bit colour (render_needs):
     * 6 a pixel in each slot and the job, 12 in the renderer. */
    sc.render.mode = RENDER_COLORMAP;
    assert_true(budget_run_bytes(&sc) == run + RING_64x48(6) + 12ULL * 128 * 48 + 1ULL * (9 * 64 * 48 + (1 << 19)));
    sc.render.mode = RENDER_HEIGHT;
    sc.output.bit_depth = 8;
    omp_set_num_threads(2);
    sc.output.path = mp4;
    sc.time.frames = 100;
    const uint64_t handed = 4ULL * 128 * 48, x264 = LIBAV + (20ULL << 20) + handed;
    assert_true(budget_run_bytes(&sc) == run + x264 + 71ULL * X264_FRAME);
    sc.time.frames = 5;   /* the clip's 5 + 2, and 2 for each of the 3 frame threads */
    assert_true(budget_run_bytes(&sc) == run + x264 + 13ULL * X264_FRAME);
    budget_encoder_threads(16);   /* -j 16: 16 frame threads, not 1.5 a core: 5 + 2 + 2 x 16 */
    assert_true(budget_run_bytes(&sc) == run + x264 + 39ULL * X264_FRAME);
    budget_encoder_threads(0);
    strcpy(sc.output.preset, "ultrafast");   /* 0 + 0 + 1 + 4 + 16, and 1.5 x 3 = 26 frames */
    sc.time.frames = 100;
    assert_true(budget_run_bytes(&sc) == run + x264 + 26ULL * X264_FRAME);
    /* A NUT stream of rgb24 and a .npy (src/sinks/pipe.c, npy.c): nothing but
     * the ring (and the NUT stream's libraries), and for the .npy the
     * renderer's heights (4 a cell) and each slot's; too small to fuse. */
    char dash[] = "-", npy[] = "a.npy";
    sc.output.path = dash;
    sc.output.format = OUTPUT_NUT;
    assert_true(budget_run_bytes(&sc) == run + LIBAV);
    sc.output.path = npy;
    assert_true(budget_run_bytes(&sc) == run + 104ULL * 50 * 4 * (1 + 3));
    assert_int_equal(budget_batch_frames(&sc, UINT64_MAX), 0);
    sc.output.path = NULL;   /* no output, no ring: the batch's pictures */
    sc.text_bytes = 1000;
    assert_true(budget_run_bytes(&sc) == GRID_64x48 + BATCH_64x48 + 72000);
    assert_true(budget_scene_text_bytes(1000) == 72000);
}

/* Steps fused across frames into the ring (a .npy of 2048 x 2048 cells):
 * 4 frames, 3 pictures (rgb24 and heights, 7 a cell) more than frame by
 * frame, fewer as the limit leaves less room; none with --probes or a
 * checkpoint (budget_frame_by_frame), nor in a mode that does not draw by
 * rows (caustics), nor scaled. */
static void test_fused(void **state)
{
    (void)state;
    struct scene sc = scene_64x48();
    char npy[] = "a.npy";
    sc.output.path = npy;
    sc.grid.width = sc.render.width = sc.grid.height = sc.render.height = 2048;
    const uint64_t pic = 7ULL * 2048 * 2048;
    assert_int_equal(budget_batch_frames(&sc, UINT64_MAX), 4);
    const uint64_t need = budget_run_bytes(&sc);
    assert_int_equal(budget_batch_frames(&sc, need), 4);
    assert_int_equal(budget_batch_frames(&sc, need - 1), 3);
    assert_int_equal(budget_batch_frames(&sc, need - pic), 3);
    assert_int_equal(budget_batch_frames(&sc, need - 2 * pic), 2);
    assert_int_equal(budget_batch_frames(&sc, need - 2 * pic - 1), 0);
    sc.render.mode = RENDER_CAUSTICS;
    assert_int_equal(budget_batch_frames(&sc, UINT64_MAX), 0);
    assert_true(budget_run_bytes(&sc) == need - 3 * pic + 12ULL * 2048 * 2048 + 4ULL * 6 * 2048 * 32);
    sc.render.mode = RENDER_HEIGHT;
    sc.render.width = 1024;
    assert_int_equal(budget_batch_frames(&sc, UINT64_MAX), 0);
    sc.render.width = 2048;
    budget_frame_by_frame();   /* for the rest of the program */
    assert_int_equal(budget_batch_frames(&sc, UINT64_MAX), 0);
    assert_true(budget_run_bytes(&sc) == need - 3 * pic);
    sc.output.path = NULL;
    assert_int_equal(budget_batch_frames(&sc, UINT64_MAX), 0);
}

static void test_env(void **state)
{
    (void)state;
    uint64_t b;
    struct rr_err e = { 0 };
    unsetenv("RIPPLERENDER_MEM_LIMIT");
    assert_int_equal(budget_limit(&b, &e), 0);
    assert_true(b == RR_MEM_LIMIT_DEFAULT);
    setenv("RIPPLERENDER_MEM_LIMIT", "3G", 1);
    assert_int_equal(budget_limit(&b, &e), 0);
    assert_true(b == 3ULL << 30);
    setenv("RIPPLERENDER_MEM_LIMIT", "1500", 1);
    assert_int_equal(budget_limit(&b, &e), 0);
    assert_true(b == 1500);
    setenv("RIPPLERENDER_MEM_LIMIT", "none", 1);
    assert_int_equal(budget_limit(&b, &e), 0);
    assert_true(b == UINT64_MAX);
    setenv("RIPPLERENDER_MEM_LIMIT", "99999999999999999999999T", 1);
    assert_int_equal(budget_limit(&b, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    setenv("RIPPLERENDER_MEM_LIMIT", "-1", 1);
    assert_int_equal(budget_limit(&b, &e), -1);
    setenv("RIPPLERENDER_MEM_LIMIT", "4Q", 1);
    assert_int_equal(budget_limit(&b, &e), -1);
    assert_non_null(strstr(e.msg, "RIPPLERENDER_MEM_LIMIT=4Q: expected a size in bytes"));
    /* A 16384 x 16384 run (16424 x 16386 cells of 12 bytes) passes 3 GiB
     * and names both numbers. */
    setenv("RIPPLERENDER_MEM_LIMIT", "3G", 1);
    struct scene sc;
    memset(&sc, 0, sizeof sc);
    sc.solver.type = solver_find("elias");
    sc.grid.width = sc.render.width = 16384;
    sc.grid.height = sc.render.height = 16384;
    assert_int_equal(budget_check_run(&sc, &e), -1);
    assert_non_null(strstr(e.msg, "need about 3229483968 bytes, more than the limit of 3221225472 bytes"));
    /* the limit it suggests is the need rounded up to whole K, M or G: enough */
    assert_non_null(strstr(e.msg, "(raise it with RIPPLERENDER_MEM_LIMIT, e.g. RIPPLERENDER_MEM_LIMIT=4G)"));
    setenv("RIPPLERENDER_MEM_LIMIT", "4G", 1);
    assert_int_equal(budget_check_run(&sc, &e), 0);
    sc.grid.width = sc.render.width = sc.grid.height = sc.render.height = 512;
    uint64_t need = budget_run_bytes(&sc);   /* between 1 and 1024 MiB */
    assert_true(need > (1ULL << 20) && need < (1ULL << 30));
    setenv("RIPPLERENDER_MEM_LIMIT", "1M", 1);
    assert_int_equal(budget_check_run(&sc, &e), -1);
    char want[96];
    snprintf(want, sizeof want, "e.g. RIPPLERENDER_MEM_LIMIT=%lluM)", (unsigned long long)((need + (1 << 20) - 1) >> 20));
    assert_non_null(strstr(e.msg, want));
    setenv("RIPPLERENDER_MEM_LIMIT", "1000", 1);   /* 72000 bytes to parse 1000 of text: 71K (72704) */
    assert_int_equal(budget_check_scene_text(1000, "s.json", &e), -1);
    assert_non_null(strstr(e.msg, "need about 72000 bytes to parse, more than the limit of 1000 bytes (raise it with "
                                  "RIPPLERENDER_MEM_LIMIT, e.g. RIPPLERENDER_MEM_LIMIT=71K)"));
    setenv("RIPPLERENDER_MEM_LIMIT", "71K", 1);
    assert_int_equal(budget_check_scene_text(1000, "s.json", &e), 0);
    unsetenv("RIPPLERENDER_MEM_LIMIT");
}

/* field_init: more than 2^31 cells (46341^2) is refused by its own 8 GiB cap
 * before any allocation, with the byte count. */
static void test_field_2_31(void **state)
{
    (void)state;
    struct field f;
    struct rr_err e = { 0 };
    assert_int_equal(field_init(&f, 46341, 46341, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "grid: 46341 x 46341 cells need 17190657792 bytes"));
    assert_non_null(strstr(e.msg, "more than the limit of 8589934592 bytes"));
    assert_null(f.mem[0]);
    assert_int_equal(field_init(&f, 2147483647, 2147483647, &e), -1);
    assert_null(f.mem[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saturating),
        cmocka_unit_test(test_run_bytes),
        cmocka_unit_test(test_output_frames),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_fused),
        cmocka_unit_test(test_field_2_31),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_state.c: the frame range of src/state.c: --chunk K/N's parts cover
 * every frame once, contiguous and in order, lengths within one frame, for
 * every frame count up to 30 and every N, inside a --range too; the task
 * index and count from the Slurm and Kubernetes variables, worked out by
 * hand; --chunk's and --range's words; a resumed run's range (the first
 * frame after the checkpoint, the range's own first kept for the manifest);
 * the one line naming the first key two scenes differ in; the join of
 * hash-list segments (resume.c's) and its refusal of another header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "join.h"
#include "scene.h"
#include "state.h"

static const char *const ENV[] = { "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
                                   "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX" };

static char scene_path[64];

static int setup(void **state)
{
    (void)state;
    snprintf(scene_path, sizeof scene_path, "/tmp/test_state_%d.json", (int)getpid());
    FILE *f = fopen(scene_path, "w");
    if (!f)
        return -1;
    fputs("{ \"grid\": { \"width\": 8, \"height\": 8 } }\n", f);
    return fclose(f);
}

static int teardown(void **state)
{
    (void)state;
    remove(scene_path);
    return 0;
}

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof ENV / sizeof *ENV; i++)
        unsetenv(ENV[i]);
}

/* Opens the plan for a scene of `frames` frames; returns state_open's
 * result, with [*first, *last] on success. */
static int plan(long frames, const char *range, const char *chunk, long *first, long *last, struct rr_err *e)
{
    struct scene sc;
    char set[48];
    snprintf(set, sizeof set, "time.frames=%ld", frames);
    const char *sets[] = { set };
    assert_int_equal(scene_load(&sc, scene_path, sets, 1, e), 0);
    struct state_options o = { .range = range, .chunk = chunk };
    struct state *st;
    int rc = state_open(&st, &o, &sc, e);
    if (rc == 0) {
        *first = state_first(st);
        *last = state_last(st);
        assert_int_equal(state_count(st), *last - *first + 1);
    }
    state_free(st);
    scene_free(&sc);
    return rc;
}

static void test_chunks_cover(void **state)
{
    (void)state;
    clear_env();
    struct rr_err e = { 0 };
    char word[48];   /* two longs, a slash and the NUL */
    for (long f = 1; f <= 30; f++)
        for (long n = 1; n <= f; n++) {
            long next = 0, shortest = f, longest = 0;
            for (long k = 0; k < n; k++) {
                long a, b;
                snprintf(word, sizeof word, "%ld/%ld", k, n);
                assert_int_equal(plan(f, NULL, word, &a, &b, &e), 0);
                assert_int_equal(a, next);   /* contiguous, in order, from 0 */
                assert_true(b >= a);
                shortest = b - a + 1 < shortest ? b - a + 1 : shortest;
                longest = b - a + 1 > longest ? b - a + 1 : longest;
                next = b + 1;
            }
            assert_int_equal(next, f);       /* to the last frame */
            assert_true(longest - shortest <= 1);
        }
}

static void test_chunk_of_range(void **state)
{
    (void)state;
    clear_env();
    struct rr_err e = { 0 };
    long a, b;
    /* frames 10..19 in 3: 10-12, 13-15, 16-19 (floor(k 10 / 3)). */
    assert_int_equal(plan(100, "10-19", "0/3", &a, &b, &e), 0);
    assert_true(a == 10 && b == 12);
    assert_int_equal(plan(100, "10-19", "1/3", &a, &b, &e), 0);
    assert_true(a == 13 && b == 15);
    assert_int_equal(plan(100, "10-19", "2/3", &a, &b, &e), 0);
    assert_true(a == 16 && b == 19);
    assert_int_equal(plan(100, "0-99", NULL, &a, &b, &e), 0);
    assert_true(a == 0 && b == 99);
    assert_int_equal(plan(100, "0-100", NULL, &a, &b, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, "--range 0-100: the scene has 100 frames, 0 to 99");
    assert_int_equal(plan(100, "10-19", "0/11", &a, &b, &e), -1);
    assert_string_equal(e.msg, "--chunk: 11 chunks of 10 frames: at most one chunk a frame");
}

/* The chunk a set of variables gives (NULL-terminated name, value pairs). */
static int env_plan(const char *chunk, long *a, long *b, struct rr_err *e, ...)
{
    clear_env();
    va_list ap;
    va_start(ap, e);
    for (const char *name; (name = va_arg(ap, const char *));)
        setenv(name, va_arg(ap, const char *), 1);
    va_end(ap);
    int rc = plan(100, NULL, chunk, a, b, e);
    clear_env();
    return rc;
}

static void test_environment(void **state)
{
    (void)state;
    struct rr_err e = { 0 };
    long a, b;
    /* Slurm --array=0-3: task 1 of 4 is frames 25-49. */
    assert_int_equal(env_plan("", &a, &b, &e, "SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "4",
                              "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_MAX", "3", NULL), 0);
    assert_true(a == 25 && b == 49);
    /* --array=5-20:5 (IDs 5, 10, 15, 20): ID 15 is task 2 of 4, frames 50-74. */
    assert_int_equal(env_plan("", &a, &b, &e, "SLURM_ARRAY_TASK_ID", "15", "SLURM_ARRAY_TASK_MIN", "5",
                              "SLURM_ARRAY_TASK_MAX", "20", "SLURM_ARRAY_TASK_STEP", "5", NULL), 0);
    assert_true(a == 50 && b == 74);
    /* Kubernetes: index 9 of --chunk /10 is frames 90-99. */
    assert_int_equal(env_plan("/10", &a, &b, &e, "JOB_COMPLETION_INDEX", "9", NULL), 0);
    assert_true(a == 90 && b == 99);
    /* Slurm wins over Kubernetes when both are set. */
    assert_int_equal(env_plan("/2", &a, &b, &e, "SLURM_ARRAY_TASK_ID", "0", "JOB_COMPLETION_INDEX", "1", NULL), 0);
    assert_true(a == 0 && b == 49);
    /* K/N given: the environment is not read. */
    assert_int_equal(env_plan("1/2", &a, &b, &e, "JOB_COMPLETION_INDEX", "x", NULL), 0);
    assert_true(a == 50 && b == 99);
    assert_int_equal(env_plan("", &a, &b, &e, NULL), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_int_equal(env_plan("", &a, &b, &e, "SLURM_ARRAY_TASK_ID", "3", NULL), -1);
    assert_string_equal(e.msg, "--chunk: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor "
                               "SLURM_ARRAY_TASK_MAX: give --chunk /N");
    assert_int_equal(env_plan("", &a, &b, &e, "SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_MIN", "5",
                              "SLURM_ARRAY_TASK_STEP", "5", "SLURM_ARRAY_TASK_COUNT", "4", NULL), -1);
    assert_string_equal(e.msg, "--chunk: SLURM_ARRAY_TASK_ID=7 is not SLURM_ARRAY_TASK_MIN=5 plus a multiple of 5: "
                               "give --chunk K/N");
    assert_int_equal(env_plan("/4", &a, &b, &e, "JOB_COMPLETION_INDEX", "-1", NULL), -1);
    assert_string_equal(e.msg, "--chunk: JOB_COMPLETION_INDEX=-1: expected a whole number");
}

static void test_chunk_words(void **state)
{
    (void)state;
    assert_true(state_chunk_word("0/4"));
    assert_true(state_chunk_word("/4"));
    assert_true(state_chunk_word("12/345"));
    assert_false(state_chunk_word("4"));
    assert_false(state_chunk_word("1/"));
    assert_false(state_chunk_word("/"));
    assert_false(state_chunk_word("a/4"));
    assert_false(state_chunk_word("1/4x"));
    assert_false(state_chunk_word("scene.json"));
    assert_false(state_chunk_word("scenes/1/2"));
    assert_false(state_chunk_word(""));
}

/* --resume's range: the frames after the checkpoint, to the range's end. */
static void test_resume_range(void **state)
{
    (void)state;
    clear_env();
    struct rr_err e = { 0 };
    struct scene sc;
    const char *sets[] = { "time.frames=12" };
    assert_int_equal(scene_load(&sc, scene_path, sets, 1, &e), 0);
    const struct { const char *range; long at, first, range_first, last; } cases[] = {
        { NULL, 0, 0, 0, 11 },      /* nothing to resume from: the whole run */
        { NULL, 6, 6, 0, 11 },      /* checkpoint 5 */
        { "4-9", 7, 7, 4, 9 },      /* inside a range */
        { "4-9", 10, 10, 4, 9 },    /* checkpoint of the last frame: nothing left to render */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct state_options o = { .range = cases[i].range, .resume_at = cases[i].at };
        struct state *st;
        assert_int_equal(state_open(&st, &o, &sc, &e), 0);
        assert_int_equal(state_first(st), cases[i].first);
        assert_int_equal(state_range_first(st), cases[i].range_first);
        assert_int_equal(state_last(st), cases[i].last);
        assert_int_equal(state_count(st), cases[i].last - cases[i].first + 1);
        state_free(st);
    }
    scene_free(&sc);
}

/* The first differing key, in one line, with both values. */
static void test_compare_scenes(void **state)
{
    (void)state;
    struct rr_err e = { 0 };
    struct scene a, b;
    const char *sets[] = { "solver.damping=0.98" };
    assert_int_equal(scene_load(&a, scene_path, NULL, 0, &e), 0);
    assert_int_equal(scene_load(&b, scene_path, sets, 1, &e), 0);
    cJSON *ja = state_scene_json(&a, false), *jb = state_scene_json(&b, false), *jc = state_scene_json(&a, false);
    assert_non_null(ja);
    assert_int_equal(state_compare_scenes(ja, jc, "X", "there", &e), 0);
    assert_int_equal(state_compare_scenes(ja, jb, "X", "there", &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, "X: solver.damping is 0.99 in there, 0.98 here");
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    cJSON_Delete(jc);
    scene_free(&a);
    scene_free(&b);
}

/* A checkpoint's simulated scene leaves time.frames out (it only ends the
 * timeline), except in a loop, where it sets the period; time.preroll is
 * always in (frame 0 is after it). */
static void test_simulated_keys(void **state)
{
    (void)state;
    struct rr_err e = { 0 };
    const char *const runs[4][3] = {
        { "time.frames=12", "time.frames=20", "" },
        { "time.frames=12", "time.frames=12", "time.preroll=1" },
        { "time.loop=true", "time.loop=false", "" },
        { "time.loop=true", "time.loop=true", "time.frames=20" },
    };
    const char *want[4] = { NULL, "X: time.preroll is 0 in there, 1 here", "X: time.loop is true in there, false here",
                            "X: time.frames is 150 in there, 20 here" };
    for (int i = 0; i < 4; i++) {
        struct scene a, b;
        const char *sa[] = { runs[i][0] }, *sb[] = { runs[i][1], runs[i][2] };
        assert_int_equal(scene_load(&a, scene_path, sa, 1, &e), 0);
        assert_int_equal(scene_load(&b, scene_path, sb, *runs[i][2] ? 2 : 1, &e), 0);
        cJSON *ja = state_scene_json(&a, true), *jb = state_scene_json(&b, true);
        assert_non_null(ja);
        assert_non_null(jb);
        if (!want[i]) {
            assert_int_equal(state_compare_scenes(ja, jb, "X", "there", &e), 0);
        } else {
            assert_int_equal(state_compare_scenes(ja, jb, "X", "there", &e), -1);
            assert_string_equal(e.msg, want[i]);
        }
        cJSON_Delete(ja);
        cJSON_Delete(jb);
        scene_free(&a);
        scene_free(&b);
    }
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Hash-list segments: the first one's header once, then every frame line;
 * a segment with another header is refused naming it. */
static void test_join_hash_lists(void **state)
{
    (void)state;
    char p[3][64], out[64], got[512] = "";
    for (int i = 0; i < 3; i++)
        snprintf(p[i], sizeof p[i], "/tmp/test_state_%d_%d.framemd5", (int)getpid(), i);
    snprintf(out, sizeof out, "/tmp/test_state_%d_out.framemd5", (int)getpid());
    write_text(p[0], "#tb 0: 1/10\n#dimensions 0: 8x8\n0, 0, 0, 1, 192, aa\n1, 1, 1, 1, 192, bb\n");
    write_text(p[1], "#tb 0: 1/10\n#dimensions 0: 8x8\n2, 2, 2, 1, 192, cc\n");
    write_text(p[2], "#tb 0: 1/10\n#dimensions 0: 9x8\n3, 3, 3, 1, 216, dd\n");
    const char *in[] = { p[0], p[1], p[2] };
    struct rr_err e = { 0 };
    assert_int_equal(join_hash_lists(in, 2, out, false, &e), 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    got[fread(got, 1, sizeof got - 1, f)] = '\0';
    fclose(f);
    assert_string_equal(got, "#tb 0: 1/10\n#dimensions 0: 8x8\n0, 0, 0, 1, 192, aa\n1, 1, 1, 1, 192, bb\n"
                             "2, 2, 2, 1, 192, cc\n");
    assert_int_equal(join_hash_lists(in, 3, out, true, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "#dimensions 0: 9x8"));
    assert_non_null(strstr(e.msg, p[2]));
    for (int i = 0; i < 3; i++)
        remove(p[i]);
    remove(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_cover),
        cmocka_unit_test(test_chunk_of_range),
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_chunk_words),
        cmocka_unit_test(test_resume_range),
        cmocka_unit_test(test_compare_scenes),
        cmocka_unit_test(test_simulated_keys),
        cmocka_unit_test(test_join_hash_lists),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

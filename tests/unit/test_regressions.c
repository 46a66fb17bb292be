/* test_regressions.c: replays every input the fuzzers ever broke
 * (tests/fuzz/regressions/scene-* through the scene loader, set-* as --set
 * lines) through the same checks as the libFuzzer targets, built by the
 * normal compiler so that make test needs no clang. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define FUZZ_NO_MAIN
#include "../fuzz/fuzz_scene.c"
#include "../fuzz/fuzz_set.c"

#ifndef RR_SOURCE_DIR
#error "build with -DRR_SOURCE_DIR=\"...\" (the Makefile passes the repository root)"
#endif
#define REGRESSIONS RR_SOURCE_DIR "/tests/fuzz/regressions"

/* Reads a whole file; fails the test when it cannot. */
static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s", path);
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            buf = realloc(buf, cap *= 2);
            assert_non_null(buf);
        }
    }
    fclose(f);
    *n = len;
    return buf;
}

static void test_replay(void **state)
{
    (void)state;
    DIR *d = opendir(REGRESSIONS);
    if (!d)
        fail_msg("cannot open %s", REGRESSIONS);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *name = de->d_name;
        bool scene = !strncmp(name, "scene-", 6), set = !strncmp(name, "set-", 4);
        if (!scene && !set)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", REGRESSIONS, name);
        size_t len;
        uint8_t *data = slurp(path, &len);
        print_message("replay %s\n", name);
        if (scene)
            fuzz_scene_one(data, len);
        else
            fuzz_set_one(data, len);
        free(data);
        n++;
    }
    closedir(d);
    assert_true(n > 0);
}

/* The --set fuzzer's base scene must load (else every override is refused
 * before the round trip is reached), and an override must round-trip. */
static void test_set_base_scene_loads(void **state)
{
    (void)state;
    char path[96];
    fz_write(path, sizeof path, "base.json", (const uint8_t *)base_scene, sizeof base_scene - 1);
    struct scene sc;
    struct rr_err e = { 0 };
    const char *sets[] = { "probes.0.name=b" };
    if (scene_load(&sc, path, sets, 1, &e) < 0)
        fail_msg("the --set fuzzer's base scene does not load: %s", e.msg);
    fz_round_trip(&sc);
    scene_free(&sc);
}

static int teardown(void **state)
{
    (void)state;
    if (fz_dir[0])
        fz_remove();   /* fuzz_common.h: the targets' folder and files */
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay),
        cmocka_unit_test(test_set_base_scene_loads),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}

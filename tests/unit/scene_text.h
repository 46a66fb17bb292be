/* scene_text.h: for the unit tests that load scenes from JSON text
 * (test_walls, test_sim_frames): a temporary folder that the test group's
 * setup makes and its teardown removes, and scene_load of a text written
 * there (so relative paths in it, such as mask PNGs, resolve there).
 * Include after cmocka.h; pass setup and teardown to
 * cmocka_run_group_tests. */
#ifndef RR_TEST_SCENE_TEXT_H
#define RR_TEST_SCENE_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "scene.h"

static char tmpdir[] = "/tmp/rr_test_scene_XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Loads the scene `json` (written to the temporary folder, so that relative
 * mask paths resolve there). Returns scene_load's result. */
static int load(struct scene *sc, const char *json, struct rr_err *e)
{
    char path[96];
    snprintf(path, sizeof path, "%s/scene.json", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
    return scene_load(sc, path, NULL, 0, e);
}

static void load_ok(struct scene *sc, const char *json)
{
    struct rr_err e = { 0 };
    if (load(sc, json, &e) < 0)
        fail_msg("scene_load: %s\n%s", e.msg, json);
}

#endif

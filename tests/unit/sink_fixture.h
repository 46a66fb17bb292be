/* sink_fixture.h: what the sink tests share: their temporary folder (dir,
 * made by the test's group setup) and names in it, a scene that writes a
 * w x h height render to path, and the sink parameters of such a run.
 * Include after cmocka.h. */
#ifndef RR_TEST_SINK_FIXTURE_H
#define RR_TEST_SINK_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hand_scene.h"
#include "sink.h"

static char dir[64];

static inline const char *in_dir(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static inline bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static inline void setup_scene(struct scene *sc, const char *path, int w, int h)
{
    hand_scene(sc, w, h, 30, 0, 0);
    sc->render.mode = RENDER_HEIGHT;
    sc->render.width = w;
    sc->render.height = h;
    sc->output.path = (char *)path;
    sc->output.crf = -1;
    sc->output.bit_depth = 8;
    sc->output.compression = 3;
}

static inline struct sink_params params(int w, int h, long frames, bool overwrite)
{
    struct sink_params p = {
        .width = w, .height = h, .grid_w = w, .grid_h = h, .fps = 30, .frames = frames, .overwrite = overwrite,
        .threads = 1,
    };
    return p;
}

/* Makes dir from a mkdtemp template ("/tmp/rr_sinks_XXXXXX"): a group setup's
 * work. Returns 0, or -1. */
static inline int fixture_dir_make(const char *template)
{
    snprintf(dir, sizeof dir, "%s", template);
    return mkdtemp(dir) ? 0 : -1;
}

/* Removes dir and everything in it: a group teardown's work. */
static inline int fixture_dir_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif

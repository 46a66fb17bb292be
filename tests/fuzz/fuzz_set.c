/* fuzz_set.c: libFuzzer target for the --set parser (sj_apply_set through
 * scene_load): each line of the input is one override applied, in order, to
 * a fixed scene that uses every kind of list. Any override must apply or be
 * refused with one line, never crash; the result must round-trip. */
#include "fuzz_common.h"


#define MAX_SETS 16

static const char base_scene[] =
    "{\"grid\": {\"width\": 40, \"height\": 30},\n"
    " \"time\": {\"fps\": 25, \"frames\": 10},\n"
    " \"solver\": {\"type\": \"elias\", \"damping\": 0.99},\n"
    " \"boundary\": {\"left\": \"wrap\", \"right\": \"wrap\", \"top\": \"absorb\", \"bottom\": \"clamp\"},\n"
    " \"drops\": [{\"time\": 0, \"x\": 10, \"y\": 12, \"radius\": 3, \"amplitude\": 1}],\n"
    " \"rain\": {\"rate\": 2, \"seed\": 7},\n"
    " \"oscillators\": [{\"x\": 5, \"y\": 5, \"frequency\": 2}],\n"
    " \"movers\": [{\"path\": [[0, 1, 1], [0.2, 9, 3]]}],\n"
    " \"initial\": [{\"type\": \"wave\", \"wavelength\": 8, \"amplitude\": 0.5}],\n"
    " \"probes\": [{\"name\": \"a\", \"x\": 3, \"y\": 4}],\n"
    " \"obstacles\": [{\"type\": \"rect\", \"x\": 20, \"y\": 2, \"width\": 3, \"height\": 4},\n"
    "                {\"type\": \"polygon\", \"points\": [[1, 1], [5, 1], [3, 4]]}],\n"
    " \"render\": {\"mode\": \"colormap\", \"range\": [-1, 1]},\n"
    " \"output\": {\"path\": \"out.mp4\"}}\n";

/* One input; aborts on a broken contract. Also replayed by make test. */
static void fuzz_set_one(const uint8_t *data, size_t size)
{
    char path[sizeof fz_dir + 32];
    static int written;
    if (!written) {
        fz_write(path, sizeof path, "base.json", (const uint8_t *)base_scene, sizeof base_scene - 1);
        written = 1;
    }
    snprintf(path, sizeof path, "%s/base.json", fz_folder());
    /* Split a NUL-terminated copy into lines: one override each. */
    char *text = malloc(size + 1);
    if (!text)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    const char *sets[MAX_SETS];
    int n = 0;
    for (char *s = text; s && n < MAX_SETS;) {
        char *nl = memchr(s, '\n', (size_t)(text + size - s));
        if (nl)
            *nl = '\0';
        if (strchr(s, '='))    /* main.c refuses an override without '=' itself */
            sets[n++] = s;
        s = nl ? nl + 1 : NULL;
    }
    struct scene sc;
    struct rr_err e = { 0 };
    if (scene_load(&sc, path, sets, n, &e) < 0)
        fz_check_error(&e);
    else
        fz_round_trip(&sc);
    scene_free(&sc);
    free(text);
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_set_one(data, size);
    return 0;
}
#endif

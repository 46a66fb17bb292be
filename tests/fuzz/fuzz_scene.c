/* fuzz_scene.c: libFuzzer target for the scene loader (scene_load): any bytes
 * must load or be refused with one line and status 2 (1 for memory), never
 * crash, leak or hang; a loaded scene must survive print -> load -> print. */
#include "fuzz_common.h"


/* One input; aborts on a broken contract. Also replayed by make test. */
static void fuzz_scene_one(const uint8_t *data, size_t size)
{
    char path[sizeof fz_dir + 32];
    fz_write(path, sizeof path, "scene.json", data, size);
    struct scene sc;
    struct rr_err e = { 0 };
    if (scene_load(&sc, path, NULL, 0, &e) < 0)
        fz_check_error(&e);
    else
        fz_round_trip(&sc);
    scene_free(&sc);
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_scene_one(data, size);
    return 0;
}
#endif

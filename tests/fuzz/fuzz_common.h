/* fuzz_common.h: shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): the
 * fuzzed bytes go to a file in a private temporary folder, because
 * scene_load reads a path, and a loaded scene must print and load back. */
#ifndef RR_FUZZ_COMMON_H
#define RR_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scene.h"

static char fz_dir[1024];

/* The files the targets write in it (fz_write's names and fz_round_trip's). */
static const char *const fz_names[] = { "scene.json", "base.json", "print1.json", "print2.json" };

/* Removes the folder and its files at exit (libFuzzer's normal end calls
 * exit; a crash, a timeout or a signal end it with _Exit, and
 * tests/fuzz/run.sh removes the folder it gave it through TMPDIR). */
static void fz_remove(void)
{
    char path[sizeof fz_dir + 32];
    for (size_t i = 0; i < sizeof fz_names / sizeof *fz_names; i++) {
        snprintf(path, sizeof path, "%s/%s", fz_dir, fz_names[i]);
        unlink(path);
    }
    rmdir(fz_dir);
}

/* The private folder, made once per process under $TMPDIR (/tmp without
 * it): mkdtemp replaces the template's XXXXXX with a unique name. */
static const char *fz_folder(void)
{
    if (!fz_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        int k = snprintf(fz_dir, sizeof fz_dir, "%s/rr_fuzz_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (k < 0 || (size_t)k >= sizeof fz_dir || !mkdtemp(fz_dir))
            abort();
        atexit(fz_remove);
    }
    return fz_dir;
}

/* Writes n bytes to FOLDER/name and returns the path (static buffer per name). */
static void fz_write(char *path, size_t size, const char *name, const uint8_t *d, size_t n)
{
    if (snprintf(path, size, "%s/%s", fz_folder(), name) >= (int)size)
        abort();
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(d, 1, n, f) != n || fclose(f) != 0)
        abort();
}

/* The message contract: one line, non-empty, a status of 1 or 2. */
static void fz_check_error(const struct rr_err *e)
{
    if ((e->status != RR_EXIT_USAGE && e->status != RR_EXIT_RUNTIME) || !e->msg[0]
        || strchr(e->msg, '\n')) {
        fprintf(stderr, "bad error: status %d, \"%s\"\n", e->status, e->msg);
        abort();
    }
}

/* A loaded scene must print, and the printed scene must load back and print
 * the same text (scene.h promises the round trip). */
static void fz_round_trip(const struct scene *sc)
{
    char p1[sizeof fz_dir + 32], p2[sizeof fz_dir + 32];
    snprintf(p1, sizeof p1, "%s/print1.json", fz_folder());
    snprintf(p2, sizeof p2, "%s/print2.json", fz_folder());
    FILE *f = fopen(p1, "w");
    if (!f || scene_print(sc, f) < 0 || fclose(f) != 0)
        abort();
    struct scene back;
    struct rr_err e = { 0 };
    if (scene_load(&back, p1, NULL, 0, &e) < 0) {
        fprintf(stderr, "printed scene does not load back: %s\n", e.msg);
        abort();
    }
    f = fopen(p2, "w");
    if (!f || scene_print(&back, f) < 0 || fclose(f) != 0)
        abort();
    scene_free(&back);
    /* The file name differs between the two loads; nothing else may. */
    FILE *a = fopen(p1, "rb"), *b = fopen(p2, "rb");
    if (!a || !b)
        abort();
    int ca, cb;
    do {
        ca = getc(a);
        cb = getc(b);
    } while (ca == cb && ca != EOF);
    fclose(a);
    fclose(b);
    if (ca != cb) {
        fprintf(stderr, "the printed scene changed on a second round trip (%s vs %s)\n", p1, p2);
        abort();
    }
}

#endif

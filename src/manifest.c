/* manifest.c: the --manifest record of a run (see manifest.h), written with
 * cJSON so that every string is escaped; the resolved scene is spliced in as
 * scene_print wrote it, so its numbers keep every digit. */
#include "manifest.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libswscale/swscale.h>
#include <png.h>

#include "outfile.h"
#include "sink.h"
#include "utf8.h"
#include "version.h"

struct manifest {
    char *path;
    bool overwrite;
    long frames;            /* room for this many */
    long first, final;      /* the range of the timeline (manifest_range) */
    long done;              /* recorded so far */
    char (*md5)[33];
    double *seconds;        /* per frame */
    double started, last;   /* CLOCK_MONOTONIC seconds */
    char started_utc[32];   /* ISO 8601 */
    char **argv;
    int argc;
    int threads;            /* the worker threads asked for (-j), as the run began */
    struct outfile file;    /* written by manifest_write, renamed by manifest_commit */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void manifest_free(struct manifest *m)
{
    if (!m)
        return;
    for (int i = 0; m->argv && i < m->argc; i++)
        free(m->argv[i]);
    free(m->argv);
    free(m->path);
    free(m->md5);
    free(m->seconds);
    outfile_abort(&m->file);
    free(m);
}

/* The first string under node (depth first) that is not UTF-8, with its key
 * path in path[size]; NULL when there is none. */
static const cJSON *first_bad_string(const cJSON *node, char *path, size_t size)
{
    if (cJSON_IsString(node))
        return utf8_bad_byte(node->valuestring) ? node : NULL;
    size_t at = strlen(path);
    int i = 0;
    for (const cJSON *c = node->child; c; c = c->next, i++) {
        if (cJSON_IsArray(node))
            snprintf(path + at, size - at, "%s%d", at ? "." : "", i);
        else
            snprintf(path + at, size - at, "%s%s", at ? "." : "", c->string ? c->string : "");
        const cJSON *bad = first_bad_string(c, path, size);
        if (bad)
            return bad;
    }
    path[at] = '\0';
    return NULL;
}

int manifest_check_scene_text(const struct scene *sc, const char *what, struct rr_err *e)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int rc = f && scene_print(sc, f) == 0 ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    cJSON *root = rc == 0 ? cJSON_Parse(text) : NULL;
    free(text);
    if (!root)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", what);
    char path[256] = "";
    const cJSON *bad = first_bad_string(root, path, sizeof path);
    if (bad)
        rc = rr_fail(e, RR_EXIT_USAGE, "%s: %s \"%s\" is not valid UTF-8, which JSON cannot hold "
                     "(rename the file or folder)", what, path, bad->valuestring);
    cJSON_Delete(root);
    return rc;
}

int manifest_create(struct manifest **out, const char *path, bool overwrite, long frames, int argc,
                    char *const *argv, struct rr_err *e)
{
    *out = NULL;
    for (int i = 0; i < argc; i++)
        if (utf8_bad_byte(argv[i]))
            return rr_fail(e, RR_EXIT_USAGE, "--manifest: argument %d \"%s\" is not valid UTF-8, which "
                           "JSON cannot hold (rename the file or folder)", i, argv[i]);
    if (outfile_check_target(path, overwrite, e) < 0)
        return -1;
    lazyav_use(LAZYAV_MANIFEST, SINK_LIBAV_ALL);   /* the versions it records, found now */
    struct manifest *m = calloc(1, sizeof *m);
    if (!m || !(m->path = strdup(path)) || !(m->md5 = calloc((size_t)frames, sizeof *m->md5))
        || !(m->seconds = calloc((size_t)frames, sizeof *m->seconds))
        || !(m->argv = calloc((size_t)argc + 1, sizeof *m->argv))) {
        manifest_free(m);
        return rr_fail(e, RR_EXIT_RUNTIME, "--manifest: out of memory for %ld frames", frames);
    }
    m->frames = frames;
    m->final = frames - 1;
    m->overwrite = overwrite;
    m->threads = omp_get_max_threads();
    for (; m->argc < argc; m->argc++)
        if (!(m->argv[m->argc] = strdup(argv[m->argc]))) {
            manifest_free(m);
            return rr_fail(e, RR_EXIT_RUNTIME, "--manifest: out of memory");
        }
    time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(m->started_utc, sizeof m->started_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
    m->started = m->last = now();
    *out = m;
    return 0;
}

void manifest_range(struct manifest *m, long first, long last)
{
    if (!m)
        return;
    m->first = first;
    m->final = last;
}

void manifest_frame(struct manifest *m, long i, const char md5[33])
{
    if (!m || i < 0 || i >= m->frames)
        return;
    double t = now();
    memcpy(m->md5[i], md5, 33);
    m->seconds[i] = t - m->last;
    m->last = t;
    if (i + 1 > m->done)
        m->done = i + 1;
}

/* "major.minor.micro" of a libav* version number. */
static cJSON *av_ver(unsigned v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
    return cJSON_CreateString(buf);
}

/* Seconds to the microsecond: the clock is not finer than that in practice. */
static double usec(double v) { return round(v * 1e6) / 1e6; }

static bool add_to_array(cJSON *a, cJSON *item)
{
    if (item && cJSON_AddItemToArray(a, item))
        return true;
    cJSON_Delete(item);
    return false;
}

static bool add(cJSON *o, const char *k, cJSON *item)
{
    if (item && cJSON_AddItemToObject(o, k, item))
        return true;
    cJSON_Delete(item);
    return false;
}

/* The whole document but the scene, keys in reading order. NULL when out of memory. */
static cJSON *build(const struct manifest *m, bool complete)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    double loop = m->last - m->started, wall = now() - m->started;
    bool ok = cJSON_AddStringToObject(root, "program", "ripplerender")
              && cJSON_AddStringToObject(root, "version", RR_VERSION);
    cJSON *libs = ok ? cJSON_AddObjectToObject(root, "libraries") : NULL;
    ok = libs && cJSON_AddStringToObject(libs, "ffmpeg", av_version_info())
         && add(libs, "libavcodec", av_ver(avcodec_version()))
         && add(libs, "libavformat", av_ver(avformat_version()))
         && add(libs, "libavfilter", av_ver(avfilter_version()))
         && add(libs, "libswscale", av_ver(swscale_version()))
         && add(libs, "libavutil", av_ver(avutil_version()))
         && cJSON_AddStringToObject(libs, "libpng", png_get_libpng_ver(NULL))
         && cJSON_AddStringToObject(libs, "libdeflate", sink_png_deflate_version())
         && cJSON_AddStringToObject(libs, "cjson", cJSON_Version())
         && cJSON_AddStringToObject(libs, "openexr", sink_exr_version());
    cJSON *args = ok ? cJSON_AddArrayToObject(root, "arguments") : NULL;
    ok = args != NULL;
    for (int i = 0; ok && i < m->argc; i++)
        ok = add_to_array(args, cJSON_CreateString(m->argv[i]));
    ok = ok && cJSON_AddStringToObject(root, "started", m->started_utc)
         && cJSON_AddNumberToObject(root, "threads", m->threads)
         && cJSON_AddBoolToObject(root, "complete", complete)
         && cJSON_AddNumberToObject(root, "frame_count", (double)m->done);
    cJSON *range = ok ? cJSON_AddArrayToObject(root, "range") : NULL;
    ok = range && add_to_array(range, cJSON_CreateNumber((double)m->first))
         && add_to_array(range, cJSON_CreateNumber((double)m->final));
    cJSON *timing = ok ? cJSON_AddObjectToObject(root, "timing") : NULL;
    ok = timing && cJSON_AddNumberToObject(timing, "frames_seconds", usec(loop))
         && cJSON_AddNumberToObject(timing, "frames_per_second", loop > 0 ? round((double)m->done / loop * 1000) / 1000 : 0)
         && cJSON_AddNumberToObject(timing, "wall_seconds", usec(wall));
    cJSON *frames = ok ? cJSON_AddArrayToObject(root, "frames") : NULL;
    ok = frames != NULL;
    for (long i = 0; ok && i < m->done; i++) {
        cJSON *f = cJSON_CreateObject();
        ok = add_to_array(frames, f) && cJSON_AddNumberToObject(f, "frame", (double)(m->first + i))
             && cJSON_AddStringToObject(f, "md5", m->md5[i])
             && cJSON_AddNumberToObject(f, "seconds", usec(m->seconds[i]));
    }
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int manifest_write(struct manifest *m, const struct scene *sc, bool complete, struct rr_err *e)
{
    const char *path = m->path;
    cJSON *root = build(m, complete);
    char *scene = scene_text(sc), *text = NULL;
    if (root && scene && cJSON_AddRawToObject(root, "scene", scene))
        text = cJSON_Print(root);
    cJSON_Delete(root);
    free(scene);
    if (!text)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", path);
    if (outfile_begin(&m->file, path, m->overwrite, e) < 0) {
        free(text);
        return -1;
    }
    FILE *f = outfile_fopen(&m->file, e);
    if (!f) {
        free(text);
        return -1;
    }
    int bad = fputs(text, f) < 0 || fputc('\n', f) == EOF;
    free(text);
    if (bad | ferror(f) | fclose(f))
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

int manifest_commit(struct manifest *m, struct rr_err *e)
{
    return outfile_commit(&m->file, e);
}

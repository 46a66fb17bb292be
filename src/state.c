/* state.c: the run's frame range and the simulation's checkpoints (see
 * state.h; the format is in docs/farm.md).
 *
 * A checkpoint of frame k is DIR/state-K.json (K: k in at least six digits)
 * and one DIR/state-K.NAME.npy per buffer of sim_get_state: the planes "cur"
 * and "prev", then the solver's own (spectral: "last", "pad-now",
 * "pad-before"). Each .npy is format 1.0, '<f4', C order, shape (rows,
 * cols); the header names them with their XXH3-128 digest and holds the counters
 * (frame, step, drops applied), the SHA-256 of the planned drops (the rain
 * as drawn from its seed) and the simulated scene: the resolved scene
 * (scene_print) without the keys that do not change the simulation
 * (SCENE_IGNORED), its input files named by their contents' SHA-256, with
 * its own SHA-256 over cJSON's unformatted print.
 *
 * The planes are the bulk of a checkpoint (two 8 MB planes at 1080p), so
 * they are written with writev straight from the simulation's rows (on a
 * little-endian host; a big-endian one converts a batch of rows at a time)
 * and digested as they go with XXH3-128, which runs at memory speed:
 * the digest guards against a truncated or changed file, not an adversary
 * (the header is not signed either). Format 1 (SHA-256 digests) is still read. */
#include "state.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <cjson/cJSON.h>
#include <libavutil/mem.h>
#include <libavutil/sha.h>
#include <xxhash.h>

#include "outfile.h"
#include "sink.h"
#include "version.h"

#define STATE_FORMAT "ripplerender-state"
#define STATE_VERSION 2   /* 1: planes with "sha256" in place of "xxh3_128"; read, not written */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0
#endif

/* Scene keys that change what is rendered or written, not the simulation:
 * a checkpoint serves runs that differ in them. time.frames only sets where
 * the timeline ends (first here: with time.loop it is the period, and kept); a default that depends on it (rain.end) is resolved in
 * scene_print and compared there. */
static const char *const SCENE_IGNORED[][2] = {
    { "time", "frames" }, { "render", NULL }, { "output", NULL }, { "probes", NULL },
};

struct state {
    const struct scene *sc;
    long first, last;
    long range_first;     /* first, or before a resumed run's first: the range's */
    const char *save_dir;
    long every;
    bool overwrite;
    long saved;           /* the frame of the last checkpoint written, or -1 */
    char *scene_sha;      /* of the simulated scene */
    cJSON *scene;         /* the simulated scene, for the header */
    const char *load;     /* --load-state */
    cJSON *loaded;        /* its header */
    int loaded_version;   /* its format_version */
    long load_frame;
};

/* ---- numbers and the range ------------------------------------------------ */

/* Reads digits (at least one, no sign) from *s as a long; advances *s.
 * Returns -1 for no digits or an overflow. */
static long read_number(const char **s)
{
    const char *p = *s;
    long v = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (LONG_MAX - (*p - '0')) / 10)
            return -1;
        v = v * 10 + (*p - '0');
    }
    *s = p;
    return v;
}

bool state_chunk_word(const char *s)
{
    if (*s != '/' && read_number(&s) < 0)
        return false;
    return *s++ == '/' && read_number(&s) >= 0 && *s == '\0';
}

/* A whole number from an environment variable; -1 when unset, -2 when not a number. */
static long env_number(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    long n = read_number(&v);
    return n >= 0 && *v == '\0' ? n : -2;
}

static int env_fail(struct rr_err *e, const char *name)
{
    return rr_fail(e, RR_EXIT_USAGE, "--chunk: %s=%s: expected a whole number", name, getenv(name));
}

/* The task index and count of a Slurm job array: the index counts the
 * tasks from SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP (so
 * --array=1-8 or 0-28:4 give 0 .. N - 1), the count is
 * SLURM_ARRAY_TASK_COUNT (or the tasks from MIN to MAX) unless n > 0 was given. */
static int slurm_task(long id, long *k, long *n, struct rr_err *e)
{
    static const char *const names[] = { "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP",
                                         "SLURM_ARRAY_TASK_COUNT" };
    long v[4];
    for (int i = 0; i < 4; i++)
        if ((v[i] = env_number(names[i])) == -2)
            return env_fail(e, names[i]);
    long min = v[0] >= 0 ? v[0] : 0, step = v[2] > 0 ? v[2] : 1;
    if (id < min || (id - min) % step)
        return rr_fail(e, RR_EXIT_USAGE,
                       "--chunk: SLURM_ARRAY_TASK_ID=%ld is not SLURM_ARRAY_TASK_MIN=%ld plus a multiple of %ld: "
                       "give --chunk K/N",
                       id, min, step);
    long span = v[1] >= min ? (v[1] - min) / step + 1 : -1;   /* the tasks MIN .. MAX */
    if (v[3] >= 0 && span >= 0 && v[3] != span)
        return rr_fail(e, RR_EXIT_USAGE,
                       "--chunk: SLURM_ARRAY_TASK_COUNT=%ld, but MIN=%ld MAX=%ld step %ld make %ld tasks (an "
                       "irregular --array list): give --chunk K/N",
                       v[3], min, v[1], step, span);
    *k = (id - min) / step;
    if (*n <= 0)
        *n = v[3] >= 0 ? v[3] : span;
    if (*n <= 0)
        return rr_fail(e, RR_EXIT_USAGE,
                       "--chunk: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor "
                       "SLURM_ARRAY_TASK_MAX: give --chunk /N");
    return 0;
}

/* --chunk's K and N: from the word, or from the environment. */
static int chunk_task(const char *word, long *k, long *n, struct rr_err *e)
{
    const char *s = word;
    *k = *s == '/' ? -1 : read_number(&s);
    *n = -1;
    if (*s == '/') {
        s++;
        *n = read_number(&s);
    }
    if ((*word && !state_chunk_word(word)) || (*word && *n < 1))
        return rr_fail(e, RR_EXIT_USAGE, "--chunk %s: expected K/N (0 <= K < N), /N or nothing", word);
    if (*k >= 0)
        return 0;
    long id = env_number("SLURM_ARRAY_TASK_ID");
    if (id == -2)
        return env_fail(e, "SLURM_ARRAY_TASK_ID");
    if (id >= 0)
        return slurm_task(id, k, n, e);
    long index = env_number("JOB_COMPLETION_INDEX");
    if (index == -2)
        return env_fail(e, "JOB_COMPLETION_INDEX");
    if (index < 0)
        return rr_fail(e, RR_EXIT_USAGE,
                       "--chunk: no task index: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor "
                       "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give --chunk K/N");
    if (*n < 1)
        return rr_fail(e, RR_EXIT_USAGE,
                       "--chunk: JOB_COMPLETION_INDEX=%ld gives no count: give the Job's completions as --chunk /N",
                       index);
    *k = index;
    return 0;
}

/* The frames to render: --range (else the whole timeline, or from a loaded
 * state's frame on), then the K-th of N near-equal parts of it. */
static int resolve_range(struct state *st, const struct state_options *o, struct rr_err *e)
{
    const long frames = st->sc->time.frames;
    long a = 0, b = frames - 1;
    if (o->range) {
        const char *s = o->range;
        a = read_number(&s);
        b = *s == '-' ? (s++, read_number(&s)) : -1;
        if (a < 0 || b < 0 || *s)
            return rr_fail(e, RR_EXIT_USAGE, "--range %s: expected A-B, two frame numbers from 0", o->range);
        if (a > b)
            return rr_fail(e, RR_EXIT_USAGE, "--range %s: the first frame %ld is after the last %ld", o->range, a, b);
        if (b >= frames)
            return rr_fail(e, RR_EXIT_USAGE, "--range %s: the scene has %ld frames, 0 to %ld", o->range, frames,
                           frames - 1);
    } else if (o->load && !o->chunk) {   /* the user's state, not the one --resume loads */
        a = st->load_frame;
    }
    if (o->chunk) {
        long k, n;
        if (chunk_task(o->chunk, &k, &n, e) < 0)
            return -1;
        if (k >= n)
            return rr_fail(e, RR_EXIT_USAGE, "--chunk: task %ld of %ld: the index must be less than the count", k, n);
        long len = b - a + 1;
        if (n > len)
            return rr_fail(e, RR_EXIT_USAGE, "--chunk: %ld chunks of %ld frames: at most one chunk a frame", n, len);
        /* Chunk k: frames a + floor(k len / n) .. a + floor((k + 1) len / n) - 1. */
        long long lo = (long long)k * len / n, hi = (long long)(k + 1) * len / n;
        b = a + (long)hi - 1;
        a += (long)lo;
    }
    st->first = st->range_first = a;
    st->last = b;
    if (o->load && st->load_frame > a)
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: the state is of frame %ld, after the first frame %ld",
                       o->load, st->load_frame, a);
    return 0;
}

/* ---- the simulated scene ------------------------------------------------- */

static void hex(const uint8_t *d, int n, char *out)
{
    for (int i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* SHA-256 of len bytes, as 64 hex digits into out[65]. Returns 0, or -1 (memory). */
static int sha256_hex(const void *data, size_t len, char out[65])
{
    struct AVSHA *sha = av_sha_alloc();
    uint8_t d[32];
    if (!sha)
        return -1;
    av_sha_init(sha, 256);
    av_sha_update(sha, data, len);
    av_sha_final(sha, d);
    av_free(sha);
    hex(d, 32, out);
    out[64] = '\0';
    return 0;
}

int state_file_sha256(const char *path, char out[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct AVSHA *sha = av_sha_alloc();
    uint8_t buf[65536], d[32];
    size_t n;
    if (!sha) {
        fclose(f);
        return -1;
    }
    av_sha_init(sha, 256);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        av_sha_update(sha, buf, n);
    int bad = ferror(f);
    fclose(f);
    av_sha_final(sha, d);
    av_free(sha);
    if (bad)
        return -1;
    hex(d, 32, out);
    out[64] = '\0';
    return 0;
}

/* Replaces a file name in the scene by "sha256:" and the SHA-256 of the
 * file's bytes, so that the file's contents are compared, not its place
 * (a farm's machines may mount the scene's folder elsewhere). A file that
 * cannot be read keeps its name (the simulation then fails to load it).
 * Returns 0, or -1 (memory). */
static int file_to_sha(cJSON *item)
{
    char text[7 + 65] = "sha256:";
    if (!cJSON_IsString(item) || state_file_sha256(item->valuestring, text + 7) < 0)
        return 0;
    char *copy = strdup(text);
    if (!copy)
        return -1;
    free(item->valuestring);
    item->valuestring = copy;
    return 0;
}

/* The input files of the simulated scene: solver.speed_map and depth_map,
 * initial[].path (images), obstacles[].path (masks). */
static int files_to_sha(cJSON *scene)
{
    cJSON *solver = cJSON_GetObjectItemCaseSensitive(scene, "solver");
    int rc = file_to_sha(cJSON_GetObjectItemCaseSensitive(solver, "speed_map"))
             | file_to_sha(cJSON_GetObjectItemCaseSensitive(solver, "depth_map"));
    static const char *const lists[] = { "initial", "obstacles" };
    for (int i = 0; i < 2; i++) {
        const cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(scene, lists[i]))
            rc |= file_to_sha(cJSON_GetObjectItemCaseSensitive(x, "path"));
    }
    return rc;
}

cJSON *state_scene_json(const struct scene *sc, bool simulated)
{
    char *text = scene_text(sc);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    for (size_t i = 0; j && simulated && i < sizeof SCENE_IGNORED / sizeof *SCENE_IGNORED; i++) {
        cJSON *o = j;
        if (sc->time.loop && i == 0)   /* in a loop time.frames sets the period: it is simulated */
            continue;
        if (SCENE_IGNORED[i][1])
            o = cJSON_GetObjectItemCaseSensitive(o, SCENE_IGNORED[i][0]);
        cJSON_DeleteItemFromObjectCaseSensitive(o, SCENE_IGNORED[i][1] ? SCENE_IGNORED[i][1] : SCENE_IGNORED[i][0]);
    }
    if (j && files_to_sha(j) < 0) {
        cJSON_Delete(j);
        j = NULL;
    }
    return j;
}

/* The simulated scene and its SHA-256. Returns 0, or -1 (memory). */
static int simulated_scene(struct state *st)
{
    char *flat = NULL, sha[65];
    if (!(st->scene = state_scene_json(st->sc, true)) || !(flat = cJSON_PrintUnformatted(st->scene))
        || sha256_hex(flat, strlen(flat), sha) < 0 || !(st->scene_sha = strdup(sha))) {
        free(flat);
        return -1;
    }
    free(flat);
    return 0;
}

/* The first key path (dotted) where two scenes differ, into path; its value
 * in each into va and vb. Returns 1 when found. */
static int first_difference(const cJSON *a, const cJSON *b, char *path, size_t n, char **va, char **vb)
{
    if (cJSON_Compare(a, b, true))
        return 0;
    size_t len = strlen(path);
    if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
        /* Keys in both first, then keys only here (what the user added),
         * then keys only in the state. */
        const cJSON *x;
        cJSON_ArrayForEach(x, a) {
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            snprintf(path + len, n - len, "%s%s", len ? "." : "", x->string);
            if (y && first_difference(x, y, path, n, va, vb))
                return 1;
        }
        for (int side = 0; side < 2; side++)
            cJSON_ArrayForEach(x, (side ? a : b)) if (!cJSON_GetObjectItemCaseSensitive(side ? b : a, x->string)) {
                snprintf(path + len, n - len, "%s%s", len ? "." : "", x->string);
                *va = side ? cJSON_PrintUnformatted(x) : strdup("absent");
                *vb = side ? strdup("absent") : cJSON_PrintUnformatted(x);
                return 1;
            }
    } else if (cJSON_IsArray(a) && cJSON_IsArray(b) && cJSON_GetArraySize(a) == cJSON_GetArraySize(b)) {
        for (int i = 0; i < cJSON_GetArraySize(a); i++) {
            snprintf(path + len, n - len, "%s%d", len ? "." : "", i);
            if (first_difference(cJSON_GetArrayItem(a, i), cJSON_GetArrayItem(b, i), path, n, va, vb))
                return 1;
        }
    }
    path[len] = '\0';
    *va = cJSON_PrintUnformatted(a);
    *vb = cJSON_PrintUnformatted(b);
    return 1;
}

int state_compare_scenes(const cJSON *had, const cJSON *now, const char *what, const char *there, struct rr_err *e)
{
    char key[512] = "";
    char *va = NULL, *vb = NULL;
    if (!first_difference(had, now, key, sizeof key, &va, &vb))
        return 0;
    if (va && vb && !strncmp(va, "\"sha256:", 8) && !strncmp(vb, "\"sha256:", 8))
        rr_fail(e, RR_EXIT_USAGE, "%s: %s: the file's contents differ (SHA-256 %.12s... in %s, %.12s... here)", what,
                key, va + 8, there, vb + 8);
    else
        rr_fail(e, RR_EXIT_USAGE, "%s: %s is %s in %s, %s here", what, key[0] ? key : "(the scene)", va ? va : "?",
                there, vb ? vb : "?");
    free(va);
    free(vb);
    return -1;
}

/* ---- the header ---------------------------------------------------------- */

static const cJSON *member(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

/* A whole number >= 0 in the header, or -1. */
static long long header_count(const cJSON *o, const char *key)
{
    const cJSON *v = member(o, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0
                   && v->valuedouble == (double)(long long)v->valuedouble
               ? (long long)v->valuedouble
               : -1;
}

int state_read_json(const char *path, const char *what, cJSON **out, struct rr_err *e)
{
    *out = NULL;
    FILE *f = outfile_fopen_input(path, true);
    if (!f)
        return rr_fail(e, RR_EXIT_USAGE, "%s %s: cannot read: %s", what, path,
                       errno == EINVAL ? "not a regular file" : strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 4096 + 1 > cap) {
            char *t = realloc(text, cap = 2 * cap + 4096 + 1);
            if (!t) {
                free(text);
                fclose(f);
                return rr_fail(e, RR_EXIT_RUNTIME, "%s %s: out of memory", what, path);
            }
            text = t;
        }
        len += got = fread(text + len, 1, 4096, f);
    } while (got == 4096);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        return rr_fail(e, RR_EXIT_RUNTIME, "%s %s: read failed", what, path);
    }
    text[len] = '\0';
    *out = cJSON_Parse(text);
    free(text);
    return 0;
}

/* Reads and checks --load-state's header: its format, its frame and its scene. */
static int read_header(struct state *st, struct rr_err *e)
{
    const char *path = st->load;
    if (state_read_json(path, "--load-state", &st->loaded, e) < 0)
        return -1;
    const cJSON *h = st->loaded, *fmt = member(h, "format");
    if (!h || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, STATE_FORMAT) != 0)
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: not a ripplerender state (a JSON header with "
                       "\"format\": \"" STATE_FORMAT "\")", path);
    st->loaded_version = (int)header_count(h, "format_version");
    if (st->loaded_version != 1 && st->loaded_version != STATE_VERSION)
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: format_version: expected 1 or %d", path, STATE_VERSION);
    const cJSON *sha = member(h, "scene_sha256"), *scene = member(h, "scene");
    if (!cJSON_IsString(sha) || !cJSON_IsObject(scene))
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: scene_sha256 and scene: missing", path);
    if (strcmp(sha->valuestring, st->scene_sha) != 0 || !cJSON_Compare(scene, st->scene, true)) {
        char what[4200];
        snprintf(what, sizeof what, "--load-state %s: made from a different scene", path);
        if (state_compare_scenes(scene, st->scene, what, "the state", e) < 0)
            return -1;
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: scene_sha256 does not match its scene", path);
    }
    st->load_frame = (long)header_count(h, "frame");
    if (st->load_frame < 0 || st->load_frame >= st->sc->time.frames)
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: frame: expected a frame of the scene, 0 to %d", path,
                       st->sc->time.frames - 1);
    return 0;
}

/* ---- checkpoint files ---------------------------------------------------- */

char *state_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = n < 0 ? NULL : malloc((size_t)n + 1);
    if (p) {
        va_start(ap, fmt);
        vsnprintf(p, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return p;
}

/* DIR/state-FRAME.json (name NULL) or DIR/state-FRAME.NAME.npy, or NULL (memory). */
static char *state_path(const char *dir, long frame, const char *name)
{
    return name ? state_format("%s/state-%06ld.%s.npy", dir, frame, name) : state_format("%s/state-%06ld.json", dir, frame);
}

/* Fails like outfile_begin when a file of frame's checkpoint exists (without -y). */
static int check_targets(const struct state *st, long frame, int n_bufs, const struct solver_state_buf *bufs,
                         struct rr_err *e)
{
    for (int i = -1; i < n_bufs; i++) {
        char *p = state_path(st->save_dir, frame, i < 0 ? NULL : bufs[i].name);
        if (!p)
            return rr_fail(e, RR_EXIT_RUNTIME, "--save-state: out of memory");
        int rc = outfile_check_target(p, st->overwrite, e);
        free(p);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Whether frame k gets a checkpoint: every --state-every frames, and the last. */
static bool checkpoint_due(const struct state *st, long k)
{
    return k == st->last || (st->every > 0 && k > 0 && k % st->every == 0);
}

int state_open(struct state **out, const struct state_options *o, const struct scene *sc, struct rr_err *e)
{
    *out = NULL;
    if (o->every && !o->save_dir)
        return rr_fail(e, RR_EXIT_USAGE, "--state-every %ld: needs --save-state DIR", o->every);
    if (o->resume && !o->save_dir)
        return rr_fail(e, RR_EXIT_USAGE, "--resume: needs --save-state DIR, the folder of the interrupted render's "
                       "checkpoints");
    struct state *st = calloc(1, sizeof *st);
    if (!st)
        return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
    *out = st;
    st->sc = sc;
    st->save_dir = o->save_dir;
    st->every = o->every;
    st->overwrite = o->overwrite;
    st->load = o->load;
    st->saved = -1;
    /* The simulated scene is compared with a loaded checkpoint's and written
     * into saved ones; a run that does neither does not make it (printed,
     * parsed and hashed, it costs a scene of millions of drops seconds and
     * its text's size again in cJSON nodes). */
    if ((o->load || o->save_dir) && simulated_scene(st) < 0)
        return rr_fail(e, RR_EXIT_RUNTIME, "state: out of memory");
    if (o->load && read_header(st, e) < 0)
        return -1;
    if (resolve_range(st, o, e) < 0)
        return -1;
    if (o->resume_load) {   /* the checkpoint --resume continues from, in place of --load-state's */
        cJSON_Delete(st->loaded);
        st->loaded = NULL;
        st->load = o->resume_load;
        if (read_header(st, e) < 0)
            return -1;
        st->saved = st->load_frame;   /* already in DIR */
    }
    if (o->resume_at > st->first)
        st->first = o->resume_at < st->last + 1 ? o->resume_at : st->last + 1;
    if (!o->save_dir)
        return 0;
    struct stat sb;
    if (stat(o->save_dir, &sb) != 0 && mkdir(o->save_dir, 0777) != 0)
        return rr_fail(e, RR_EXIT_RUNTIME, "--save-state %s: cannot create the folder: %s", o->save_dir,
                       strerror(errno));
    if (stat(o->save_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return rr_fail(e, RR_EXIT_RUNTIME, "--save-state %s: not a folder", o->save_dir);
    /* Only the headers here (the plane names come with the solver): a
     * header that exists is a checkpoint that exists. */
    for (long k = st->first; k <= st->last; k++)
        if (checkpoint_due(st, k) && check_targets(st, k, 0, NULL, e) < 0)
            return -1;
    return 0;
}

long state_first(const struct state *st) { return st->first; }
bool state_loads(const struct state *st) { return st->loaded != NULL; }
long state_last(const struct state *st) { return st->last; }
long state_count(const struct state *st) { return st->last - st->first + 1; }
long state_range_first(const struct state *st) { return st->range_first; }
long state_saved(const struct state *st) { return st->saved; }
bool state_checkpoint_due(const struct state *st, long frame) { return st->save_dir && checkpoint_due(st, frame); }

/* The SHA-256 of the planned drops: step, x, y, radius, amplitude, shape and
 * mode of each, as little-endian 64-bit integers and IEEE doubles. */
static int drops_sha256(const struct sim_state *ss, char out[65])
{
    size_t n = (size_t)ss->n_drops, per = 7 * 8;
    uint8_t *buf = malloc(n * per + 1);
    if (!buf)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct planned_drop *d = &ss->drops[i];
        uint64_t v[7] = { (uint64_t)d->step, 0, 0, 0, 0, (uint64_t)d->shape, (uint64_t)d->mode };
        memcpy(&v[1], &d->x, 8);
        memcpy(&v[2], &d->y, 8);
        memcpy(&v[3], &d->radius, 8);
        memcpy(&v[4], &d->amplitude, 8);
        for (int j = 0; j < 7; j++)
            for (int b = 0; b < 8; b++)
                buf[i * per + (size_t)j * 8 + (size_t)b] = (uint8_t)(v[j] >> (8 * b));
    }
    int rc = sha256_hex(buf, n * per, out);
    free(buf);
    return rc;
}

/* The .npy header of a rows x cols float32 array into h (128 bytes);
 * returns its length. */
static size_t npy_header2d(char *h, int rows, int cols)
{
    char shape[48];
    snprintf(shape, sizeof shape, "(%d, %d)", rows, cols);
    return npy_float32_header(h, 128, shape, 0);
}

/* Writes the bytes of iov[0 .. n) to fd, going on after a short write.
 * Returns 0, or -1 with errno set. */
static int writev_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        for (; n > 0 && (size_t)w >= iov->iov_len; iov++, n--)
            w -= (ssize_t)iov->iov_len;
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

/* Row y of buffer b as little-endian float32 bytes: the row itself on a
 * little-endian host, else its bytes converted into out (cols * 4 bytes). */
static const void *row_le(const struct solver_state_buf *b, int y, uint8_t *out)
{
    const float *row = b->data + (ptrdiff_t)y * b->stride;
    if (HOST_LE)
        return row;
    for (int x = 0; x < b->cols; x++) {
        uint32_t u;
        memcpy(&u, row + x, 4);
        for (int k = 0; k < 4; k++)
            out[4 * x + k] = (uint8_t)(u >> (8 * k));
    }
    return out;
}

/* The 128-bit digest in XXH128's canonical (big-endian) order as 32 hex
 * digits into out[33]: what `xxhsum -H2` prints for the same bytes. */
static void xxh128_hex(XXH128_hash_t d, char out[33])
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, d);
    hex(c.digest, 16, out);
    out[32] = '\0';
}

/* Writes buffer b as a .npy (header, then its rows as little-endian float32,
 * ROWS_PER_WRITE rows to a writev) into the temporary file of `of`, and the
 * XXH3-128 of the rows' bytes into sum. Returns 0, or -1 with e filled. */
static int write_plane(struct outfile *of, const char *target, const struct solver_state_buf *b, char sum[33],
                       struct rr_err *e)
{
    enum { ROWS_PER_WRITE = 64 };
    char head[128];
    size_t row_len = (size_t)b->cols * 4;
    struct iovec iov[ROWS_PER_WRITE + 1];
    int n = 0, rc = -1;
    iov[n++] = (struct iovec){ head, npy_header2d(head, b->rows, b->cols) };
    uint8_t *tmp = HOST_LE ? NULL : malloc((ROWS_PER_WRITE + 1) * row_len);
    XXH3_state_t *x = XXH3_createState();
    FILE *f = NULL;
    if ((!HOST_LE && !tmp) || !x || XXH3_128bits_reset(x) != XXH_OK) {
        rr_fail(e, RR_EXIT_RUNTIME, "--save-state: out of memory");
        goto end;
    }
    if (!(f = outfile_fopen(of, e)))
        goto end;
    bool bad = false;
    for (int y = 0; y < b->rows && !bad; y++) {
        const void *row = row_le(b, y, tmp ? tmp + (size_t)n * row_len : NULL);
        XXH3_128bits_update(x, row, row_len);
        iov[n++] = (struct iovec){ (void *)row, row_len };
        if (n == ROWS_PER_WRITE + 1) {
            bad = writev_all(fileno(f), iov, n) < 0;
            n = 0;
        }
    }
    if (!bad && n)
        bad = writev_all(fileno(f), iov, n) < 0;
    if (fclose(f) != 0 || bad) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", target, strerror(errno));
        goto end;
    }
    xxh128_hex(XXH3_128bits_digest(x), sum);
    rc = 0;
end:
    XXH3_freeState(x);
    free(tmp);
    return rc;
}

/* Writes head_len then len bytes to the temporary file of of. Returns 0, or -1 with e filled. */
static int write_temp(struct outfile *of, const char *target, const void *head, size_t head_len, const void *data,
                      size_t len, struct rr_err *e)
{
    FILE *f = outfile_fopen(of, e);
    if (!f)
        return -1;
    int bad = fwrite(head, 1, head_len, f) != head_len || (len && fwrite(data, 1, len, f) != len);
    if ((ferror(f) | fclose(f)) || bad)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", target, strerror(errno));
    return 0;
}

/* The checkpoint of the frame the simulation shows. */
static int save(struct state *st, struct sim *sim, struct rr_err *e)
{
    struct sim_state ss;
    sim_get_state(sim, &ss);
    struct outfile files[SIM_STATE_BUFS + 1];
    char *paths[SIM_STATE_BUFS + 1] = { 0 };
    memset(files, 0, sizeof files);
    int n = ss.n_bufs, rc = -1;
    char *text = NULL;
    cJSON *h = cJSON_CreateObject(), *planes = NULL;
    char dsha[65];
    bool ok = h && drops_sha256(&ss, dsha) == 0 && cJSON_AddStringToObject(h, "format", STATE_FORMAT)
              && cJSON_AddNumberToObject(h, "format_version", STATE_VERSION)
              && cJSON_AddStringToObject(h, "program_version", RR_VERSION)
              && cJSON_AddNumberToObject(h, "frame", (double)ss.frame)
              && cJSON_AddNumberToObject(h, "step", (double)ss.step)
              && cJSON_AddNumberToObject(h, "drops_applied", (double)ss.drops_applied)
              && cJSON_AddNumberToObject(h, "drops_planned", ss.n_drops)
              && cJSON_AddStringToObject(h, "drops_sha256", dsha)
              && cJSON_AddStringToObject(h, "scene_sha256", st->scene_sha)
              && (planes = cJSON_AddArrayToObject(h, "planes"));
    if (!ok) {
        rr_fail(e, RR_EXIT_RUNTIME, "--save-state: out of memory");
        goto end;
    }
    for (int i = 0; i <= n; i++)
        if (!(paths[i] = state_path(st->save_dir, ss.frame, i < n ? ss.bufs[i].name : NULL))) {
            rr_fail(e, RR_EXIT_RUNTIME, "--save-state: out of memory");
            goto end;
        }
    for (int i = 0; i < n; i++) {
        const struct solver_state_buf *b = &ss.bufs[i];
        char sum[33];
        if (outfile_begin(&files[i], paths[i], st->overwrite, e) < 0
            || write_plane(&files[i], paths[i], b, sum, e) < 0)
            goto end;
        cJSON *p = cJSON_CreateObject(), *shape = NULL;
        ok = p && cJSON_AddItemToArray(planes, p);
        if (!ok)
            cJSON_Delete(p);
        ok = ok && cJSON_AddStringToObject(p, "name", b->name)
             && cJSON_AddStringToObject(p, "file", strrchr(paths[i], '/') + 1)
             && (shape = cJSON_AddArrayToObject(p, "shape"))
             && cJSON_AddItemToArray(shape, cJSON_CreateNumber(b->rows))
             && cJSON_AddItemToArray(shape, cJSON_CreateNumber(b->cols))
             && cJSON_AddStringToObject(p, "dtype", "<f4") && cJSON_AddStringToObject(p, "xxh3_128", sum);
        if (!ok) {
            rr_fail(e, RR_EXIT_RUNTIME, "--save-state: out of memory");
            goto end;
        }
    }
    if (!cJSON_AddItemReferenceToObject(h, "scene", st->scene) || !(text = cJSON_Print(h))) {
        rr_fail(e, RR_EXIT_RUNTIME, "--save-state: out of memory");
        goto end;
    }
    if (outfile_begin(&files[n], paths[n], st->overwrite, e) < 0
        || write_temp(&files[n], paths[n], text, strlen(text), "\n", 1, e) < 0)
        goto end;
    /* Renames only from here on: the header last, once its planes are in place. */
    for (int i = 0; i <= n; i++)
        if (outfile_commit(&files[i], e) < 0)
            goto end;
    st->saved = ss.frame;
    rc = 0;
end:
    for (int i = 0; i <= n; i++) {
        outfile_abort(&files[i]);
        free(paths[i]);
    }
    free(text);
    cJSON_Delete(h);
    return rc;
}

/* ---- loading ------------------------------------------------------------- */

/* Reads one plane of the loaded header into buffer b. */
static int load_plane(const struct state *st, const cJSON *p, const struct solver_state_buf *b, struct rr_err *e)
{
    /* The digest: XXH3-128 in format 2, SHA-256 in format 1. */
    const bool xxh = st->loaded_version >= 2;
    const char *key = xxh ? "xxh3_128" : "sha256";
    const cJSON *file = member(p, "file"), *sum = member(p, key), *shape = member(p, "shape");
    if (!cJSON_IsString(file) || strchr(file->valuestring, '/') || !cJSON_IsString(sum) || !cJSON_IsArray(shape)
        || cJSON_GetArraySize(shape) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(shape, 0))
        || !cJSON_IsNumber(cJSON_GetArrayItem(shape, 1)))
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: planes: %s: expected file, shape and %s", st->load,
                       b->name, key);
    if (cJSON_GetArrayItem(shape, 0)->valuedouble != b->rows
        || cJSON_GetArrayItem(shape, 1)->valuedouble != b->cols)
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: planes: %s: shape [%g, %g], the simulation has [%d, %d]",
                       st->load, b->name, cJSON_GetArrayItem(shape, 0)->valuedouble,
                       cJSON_GetArrayItem(shape, 1)->valuedouble, b->rows, b->cols);
    /* The plane files sit beside the header. */
    const char *slash = strrchr(st->load, '/');
    int dir = slash ? (int)(slash - st->load + 1) : 0;
    char *path = state_format("%.*s%s", dir, st->load, file->valuestring);
    if (!path)
        return rr_fail(e, RR_EXIT_RUNTIME, "--load-state: out of memory");
    size_t len = (size_t)b->rows * (size_t)b->cols * 4;
    char head[128], want[128], got[65];
    size_t head_len = npy_header2d(want, b->rows, b->cols);
    uint8_t *data = malloc(len + 1);
    FILE *f = outfile_fopen_input(path, true);
    int rc = -1;
    if (!data)
        rr_fail(e, RR_EXIT_RUNTIME, "--load-state: out of memory");
    else if (!f)
        rr_fail(e, RR_EXIT_USAGE, "--load-state %s: %s: cannot read: %s", st->load, path,
                errno == EINVAL ? "not a regular file" : strerror(errno));
    else if (fread(head, 1, head_len, f) != head_len || memcmp(head, want, head_len) != 0
             || fread(data, 1, len, f) != len || fgetc(f) != EOF)
        rr_fail(e, RR_EXIT_USAGE, "--load-state %s: %s: not a float32 .npy of shape (%d, %d) as written by "
                "--save-state", st->load, path, b->rows, b->cols);
    else if (xxh ? (xxh128_hex(XXH3_128bits(data, len), got), 0) : sha256_hex(data, len, got))
        rr_fail(e, RR_EXIT_RUNTIME, "--load-state: out of memory");
    else if (strcmp(got, sum->valuestring) != 0)
        rr_fail(e, RR_EXIT_USAGE, "--load-state %s: %s: its %s is not the header's: the file was changed", st->load,
                path, xxh ? "XXH3-128" : "SHA-256");
    else
        rc = 0;
    if (rc == 0)
        for (size_t y = 0; y < (size_t)b->rows; y++)
            for (size_t x = 0; x < (size_t)b->cols; x++) {
                const uint8_t *q = data + (y * (size_t)b->cols + x) * 4;
                uint32_t u = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
                memcpy(b->data + (ptrdiff_t)y * b->stride + (ptrdiff_t)x, &u, 4);
            }
    if (f)
        fclose(f);
    free(data);
    free(path);
    return rc;
}

/* Writes the loaded checkpoint into a new simulation. */
static int load(struct state *st, struct sim *sim, struct rr_err *e)
{
    struct sim_state ss;
    sim_get_state(sim, &ss);
    const cJSON *h = st->loaded, *planes = member(h, "planes");
    char dsha[65];
    if (drops_sha256(&ss, dsha) < 0)
        return rr_fail(e, RR_EXIT_RUNTIME, "--load-state: out of memory");
    const cJSON *hd = member(h, "drops_sha256");
    if (header_count(h, "drops_planned") != ss.n_drops || !cJSON_IsString(hd) || strcmp(hd->valuestring, dsha))
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: drops_sha256: the planned drops (rain included) differ "
                       "from this run's", st->load);
    if (!cJSON_IsArray(planes) || cJSON_GetArraySize(planes) != ss.n_bufs)
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: planes: expected %d for this simulation", st->load,
                       ss.n_bufs);
    for (int i = 0; i < ss.n_bufs; i++) {
        const cJSON *p = cJSON_GetArrayItem(planes, i), *name = member(p, "name");
        if (!cJSON_IsString(name) || strcmp(name->valuestring, ss.bufs[i].name) != 0)
            return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: planes.%d.name: expected \"%s\"", st->load, i,
                           ss.bufs[i].name);
        if (load_plane(st, p, &ss.bufs[i], e) < 0)
            return -1;
    }
    /* The counters follow from the frame: a step is taken once its drops
     * fell (sources_apply stamps every drop planned up to the step). */
    ss.frame = st->load_frame;
    ss.step = header_count(h, "step");
    ss.drops_applied = (long)header_count(h, "drops_applied");
    long fallen = 0;
    while (fallen < ss.n_drops && ss.drops[fallen].step <= ss.step)
        fallen++;
    if (ss.step != (long long)ss.frame * scene_steps_per_frame(st->sc) || ss.drops_applied != fallen
        || sim_set_counters(sim, &ss) < 0)
        return rr_fail(e, RR_EXIT_USAGE, "--load-state %s: step and drops_applied: not those of frame %ld",
                       st->load, ss.frame);
    return sim_sync_walls(sim, e);
}

int state_start(struct state *st, struct sim *sim, const volatile sig_atomic_t *stop, struct rr_err *e)
{
    if (st->loaded && load(st, sim, e) < 0)
        return -1;
    /* Steps fused across frames, *stop seen at the end of each pass that
     * ends a frame (as inside a batch): a stop waits for about a frame. */
    for (long to = st->first < st->last ? st->first : st->last; sim_frame(sim) < to && !*stop;) {
        long n = to - sim_frame(sim) < INT_MAX ? to - sim_frame(sim) : INT_MAX;
        int done;
        if (sim_advance_frames_until(sim, (int)n, NULL, NULL, stop, &done, e) < 0)
            return -1;
    }
    return 0;
}

int state_after_frame(struct state *st, struct sim *sim, struct rr_err *e)
{
    long k = sim_frame(sim);
    if (!st->save_dir || !checkpoint_due(st, k))
        return 0;
    return save(st, sim, e);
}

int state_finish(struct state *st, struct sim *sim, struct rr_err *e)
{
    if (!st->save_dir || st->saved == sim_frame(sim))
        return 0;
    return save(st, sim, e);
}

void state_free(struct state *st)
{
    if (!st)
        return;
    cJSON_Delete(st->scene);
    cJSON_Delete(st->loaded);
    free(st->scene_sha);
    free(st);
}

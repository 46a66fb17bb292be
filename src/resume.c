/* resume.c: resumable renders (see resume.h; the manual is docs/farm.md).
 *
 * The record DIR/resume-FIRST-LAST.json (the range's frames, six digits each):
 *     { "format": "ripplerender-resume", "format_version": 1,
 *       "checkpoint": k (the frame of the last checkpoint, -1 before the first),
 *       "settings": the resolved scene (image files by SHA-256) with "range",
 *                   "state_every" and "manifest" added: what must not change,
 *       "segments": [ { "file", "first", "last", "sha256" } ],   videos, hash lists
 *       "files": [ { "file", "sha256" } ],                       a PNG sequence's frames
 *       "frames": [ md5 ... ],                                    with --manifest
 *       "moving": [ first, last ],   a PNG sequence's frames being moved into
 *                   place at a checkpoint, before their SHA-256s are read
 *       "left": [ { "file", "size", "sha256" } ] }   what an interruption left
 *                   under the outputs' own names (the joined frames so far,
 *                   the manifest): the files --resume may replace without -y
 * written atomically (outfile.h) after the outputs it names are in place.
 *
 * A video segment is finished on a thread of its own (struct closing: the
 * encoder's flush, the trailer, the move into place, the file's SHA-256)
 * while the frames after its checkpoint go to the next segment's encoder,
 * so that the simulation does not wait for the encoder's lookahead to
 * drain at every checkpoint. Its checkpoint enters the record only once
 * the segment is kept (keep_closed). */
#include "resume.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "join.h"
#include "outfile.h"

#define RECORD_FORMAT "ripplerender-resume"
#define RECORD_VERSION 1

enum kind {
    KIND_NONE,     /* no output: hashes only */
    KIND_WHOLE,    /* GIF, .npy, a stream: one piece, not resumable */
    KIND_SEGMENTS, /* a kind with a join (videos, hash lists): segments joined at the end */
    KIND_PNG,      /* a numbered kind (PNG, EXR): frames moved into place at each checkpoint */
};

struct segment {
    char *file;          /* the name in DIR */
    long first, last;
    char sha[65];
};

/* A file an interrupted run committed under an output's own name (a video's
 * or hash list's frames so far, the manifest): the only file there that
 * --resume replaces without -y. */
struct left {
    char *file;          /* the path as the command line gave it */
    long long size;
    char sha[65];
};
#define MAX_LEFT 2       /* the main output and the manifest */

/* A segment handed over at a checkpoint and not yet recorded. */
struct closing {
    bool busy;              /* handed over, not yet recorded */
    bool running;           /* its thread was started and not joined */
    atomic_bool done;       /* its thread's work is over */
    pthread_t thread;
    const struct resume *r;
    struct pipeline *pipe;
    struct sink *sink;
    char *path;             /* the segment's file */
    long first, last;       /* its frames */
    long checkpoint;        /* recorded with it once kept; -1 for none */
    int rc;
    struct rr_err err;
    char sha[65];
};

struct resume {
    const struct scene *sc;
    struct state *st;
    const char *dir;
    long first, last;       /* the range (a resumed run renders its end) */
    enum kind kind;
    const struct sink_ops *ops;   /* the output's kind (sink.h), NULL for none */
    bool active;            /* a record is kept */
    bool ours;              /* continuing an interrupted render */
    bool wrote_record;
    bool overwrite_final;   /* the output may be replaced: -y, or what the interrupted render left */
    bool replaces_left;     /* overwrite_final without -y: checked again before the join */
    struct left left[MAX_LEFT];
    int n_left;
    long moving[2];         /* KIND_PNG: the frames last moved into place ("moving"), {-1, -1} for none */
    char *record;           /* DIR/resume-FIRST-LAST.json */
    int lock_fd;            /* DIR/.resume.lock, its bytes FIRST to LAST locked by this run; -1 for none */
    char *load;             /* the checkpoint resumed from */
    cJSON *settings;
    long checkpoint;        /* recorded */
    struct segment *segs;   /* kept segments (KIND_SEGMENTS) or frames (KIND_PNG, last unused) */
    int n_segs, cap_segs;
    char (*md5)[33];        /* the range's frames, with --manifest */
    long n_md5;
    struct sink **sink;
    struct pipeline **pipe;
    struct sink_params sp;
    struct scene seg_scene; /* the scene with output.path the open segment's */
    char *seg_path;
    long seg_first;
    long written_before;
    struct closing closing;
};

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path, *dot = strrchr(base, '.');
    return dot ? dot + 1 : "";
}

/* What --resume does with the output, from its kind in the sink table
 * (src/sinks/registry.c): a numbered kind keeps its frames, a kind with a
 * join is written as segments, anything else is written in one piece. */
static enum kind output_kind(const char *path, const struct sink_ops **ops)
{
    struct rr_err ignored = { 0 };
    *ops = sink_find(path, &ignored);
    return !*ops ? KIND_WHOLE : (*ops)->numbered ? KIND_PNG : (*ops)->join ? KIND_SEGMENTS : KIND_WHOLE;
}

static bool segmented(const struct resume *r)
{
    return r->active && (r->kind == KIND_SEGMENTS || r->kind == KIND_PNG);
}

/* The name of frame i of a PNG sequence (a pattern sink_find accepted: one
 * integer conversion), or NULL (memory). */
static char *png_name(const char *pattern, long i)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    int n = snprintf(NULL, 0, pattern, (int)i);
    char *p = n < 0 ? NULL : malloc((size_t)n + 1);
    if (p)
        snprintf(p, (size_t)n + 1, pattern, (int)i);
#pragma GCC diagnostic pop
    return p;
}

static int add_segment(struct resume *r, const char *file, long first, long last, const char *sha)
{
    if (r->n_segs == r->cap_segs) {
        int cap = r->cap_segs ? 2 * r->cap_segs : 16;
        struct segment *s = realloc(r->segs, (size_t)cap * sizeof *s);
        if (!s)
            return -1;
        r->segs = s;
        r->cap_segs = cap;
    }
    struct segment *s = &r->segs[r->n_segs];
    if (!(s->file = strdup(file)))
        return -1;
    s->first = first;
    s->last = last;
    snprintf(s->sha, sizeof s->sha, "%s", sha);
    r->n_segs++;
    return 0;
}

/* A kept file's path: a segment's in DIR, a PNG frame's as named. */
static char *kept_path(const struct resume *r, const struct segment *s)
{
    return r->kind == KIND_PNG ? strdup(s->file) : state_format("%s/%s", r->dir, s->file);
}

/* ---- the record -------------------------------------------------------------- */

static int write_record(struct resume *r, struct rr_err *e)
{
    cJSON *h = cJSON_CreateObject(), *list = NULL;
    bool ok = h && cJSON_AddStringToObject(h, "format", RECORD_FORMAT)
              && cJSON_AddNumberToObject(h, "format_version", RECORD_VERSION)
              && cJSON_AddNumberToObject(h, "checkpoint", (double)r->checkpoint)
              && cJSON_AddItemReferenceToObject(h, "settings", r->settings)
              && (list = cJSON_AddArrayToObject(h, r->kind == KIND_PNG ? "files" : "segments"));
    for (int i = 0; ok && i < r->n_segs; i++) {
        const struct segment *s = &r->segs[i];
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(list, o) && cJSON_AddStringToObject(o, "file", s->file)
             && (r->kind == KIND_PNG
                 || (cJSON_AddNumberToObject(o, "first", (double)s->first)
                     && cJSON_AddNumberToObject(o, "last", (double)s->last)))
             && cJSON_AddStringToObject(o, "sha256", s->sha);
        if (!ok && o && !o->prev)
            cJSON_Delete(o);
    }
    if (ok && r->moving[0] >= 0)
        ok = (list = cJSON_AddArrayToObject(h, "moving")) && cJSON_AddItemToArray(list, cJSON_CreateNumber((double)r->moving[0]))
             && cJSON_AddItemToArray(list, cJSON_CreateNumber((double)r->moving[1]));
    if (ok && r->n_left)
        ok = (list = cJSON_AddArrayToObject(h, "left")) != NULL;
    for (int i = 0; ok && i < r->n_left; i++) {
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(list, o) && cJSON_AddStringToObject(o, "file", r->left[i].file)
             && cJSON_AddNumberToObject(o, "size", (double)r->left[i].size)
             && cJSON_AddStringToObject(o, "sha256", r->left[i].sha);
        if (!ok && o && !o->prev)
            cJSON_Delete(o);
    }
    if (ok && r->md5) {
        const long n = r->checkpoint - state_range_first(r->st) + 1;
        ok = (list = cJSON_AddArrayToObject(h, "frames")) != NULL;
        for (long i = 0; ok && i < n; i++)
            ok = cJSON_AddItemToArray(list, cJSON_CreateString(r->md5[i]));
    }
    char *text = ok ? cJSON_Print(h) : NULL;
    cJSON_Delete(h);
    if (!text)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", r->record);
    struct outfile of = { 0 };
    FILE *f = NULL;
    int rc = -1;
    if (outfile_begin(&of, r->record, true, e) == 0 && (f = outfile_fopen(&of, e))) {
        bool bad = fputs(text, f) == EOF || fputc('\n', f) == EOF;
        if ((ferror(f) | fclose(f)) || bad)
            rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", r->record, strerror(errno));
        else
            rc = outfile_commit(&of, e);
    }
    outfile_abort(&of);
    free(text);
    if (rc == 0)
        r->wrote_record = true;
    return rc;
}

/* A file where --save-state's DIR, or a folder on its way, should be: the
 * file system's state, found on opening, so run-time I/O (status 1) as an
 * output's folder under a file is (docs/farm.md). Returns 0, or -1 with e
 * filled. */
static int save_dir_in_way(const char *dir, struct rr_err *e)
{
    struct stat sb;
    const int got = stat(dir, &sb);
    if (got == 0 && !S_ISDIR(sb.st_mode))
        return rr_fail(e, RR_EXIT_RUNTIME, "--save-state %s: not a folder", dir);
    if (got != 0 && errno == ENOTDIR)
        return rr_fail(e, RR_EXIT_RUNTIME, "--save-state %s: cannot create the folder: %s", dir, strerror(errno));
    return 0;
}

/* Reads DIR's record into had (NULL when there is none). */
static int read_record(const struct resume *r, cJSON **had, struct rr_err *e)
{
    *had = NULL;
    if (access(r->record, F_OK) != 0 && errno == ENOENT)
        return 0;
    if (state_read_json(r->record, "--resume:", had, e) < 0)
        return -1;
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(*had, "format"),
                *v = cJSON_GetObjectItemCaseSensitive(*had, "format_version");
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, RECORD_FORMAT) || !cJSON_IsNumber(v)
        || v->valuedouble != RECORD_VERSION)
        return rr_fail(e, RR_EXIT_USAGE, "--resume: %s: not a record of a ripplerender render (\"format\": \""
                       RECORD_FORMAT "\", \"format_version\": %d)", r->record, RECORD_VERSION);
    return 0;
}

static long number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        return -2;
    /* Within +-2^62 (far past any frame number or file size) before the
     * cast: past a long's range converting is undefined behaviour. */
    const double d = v->valuedouble;
    return d > -0x1p62 && d < 0x1p62 && d == (double)(long)d ? (long)d : -2;
}

static const char *string(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int damaged(const struct resume *r, const char *key, struct rr_err *e)
{
    return rr_fail(e, RR_EXIT_USAGE, "--resume: %s: %s: not as ripplerender writes it", r->record, key);
}

/* Records (or updates) the file an interruption left at path. Returns 0, or
 * -1 (memory). */
static int set_left(struct resume *r, const char *path, long long size, const char *sha)
{
    int i = 0;
    while (i < r->n_left && strcmp(r->left[i].file, path))
        i++;
    if (i == MAX_LEFT)
        return -1;
    if (i == r->n_left) {
        if (!(r->left[i].file = strdup(path)))
            return -1;
        r->n_left++;
    }
    r->left[i].size = size;
    snprintf(r->left[i].sha, sizeof r->left[i].sha, "%s", sha);
    return 0;
}

/* Whether the file at path is the one the interrupted render left there:
 * a regular file of the recorded size and SHA-256. */
static bool is_left(const struct resume *r, const char *path)
{
    struct stat st;
    char now[65];
    for (int i = 0; i < r->n_left; i++)
        if (!strcmp(r->left[i].file, path))
            return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == r->left[i].size
                   && state_file_sha256(path, now) == 0 && !strcmp(now, r->left[i].sha);
    return false;
}

/* Takes the checkpoint, the kept files (checked on disk) and the frames'
 * hashes from the record. */
static int take_record(struct resume *r, const cJSON *had, struct rr_err *e)
{
    r->checkpoint = number(had, "checkpoint");
    if (r->checkpoint < -1 || r->checkpoint >= r->sc->time.frames)
        return damaged(r, "checkpoint", e);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(had, r->kind == KIND_PNG ? "files" : "segments"), *x;
    /* A video's or hash list's segments follow one another from the range's
     * first frame to the checkpoint: a resume writes its first segment from
     * the frame after the checkpoint, named by that frame, so a kept segment
     * past it would be written over. */
    const bool joined = r->kind == KIND_SEGMENTS;
    long next = state_range_first(r->st);
    cJSON_ArrayForEach(x, list) {
        const char *file = string(x, "file"), *sha = string(x, "sha256");
        long first = r->kind == KIND_PNG ? 0 : number(x, "first"), last = r->kind == KIND_PNG ? 0 : number(x, "last");
        if (!file || !sha || strlen(sha) != 64 || first < 0 || last < first
            || (r->kind != KIND_PNG && strchr(file, '/')) || (joined && first != next))
            return damaged(r, r->kind == KIND_PNG ? "files" : "segments", e);
        next = last + 1;
        if (add_segment(r, file, first, last, sha) < 0)
            return rr_fail(e, RR_EXIT_RUNTIME, "--resume: out of memory");
        char *path = kept_path(r, &r->segs[r->n_segs - 1]), now[65];
        if (!path)
            return rr_fail(e, RR_EXIT_RUNTIME, "--resume: out of memory");
        int missing = access(path, F_OK) != 0, bad = missing || state_file_sha256(path, now) < 0 || strcmp(now, sha);
        if (bad)
            rr_fail(e, RR_EXIT_USAGE, "--resume %s: %s, written by the interrupted render, %s: render again "
                    "without --resume", r->dir, path, missing ? "is missing" : "was changed since (its SHA-256 "
                    "is not the one recorded)");
        free(path);
        if (bad)
            return -1;
    }
    if (joined && next - 1 != (r->checkpoint < 0 ? state_range_first(r->st) - 1 : r->checkpoint))
        return damaged(r, "segments", e);
    if (r->md5) {
        list = cJSON_GetObjectItemCaseSensitive(had, "frames");
        long n = r->checkpoint - state_range_first(r->st) + 1, i = 0;
        if (cJSON_GetArraySize(list) < n)
            return damaged(r, "frames", e);
        cJSON_ArrayForEach(x, list) {
            if (i < n && (!cJSON_IsString(x) || strlen(x->valuestring) != 32))
                return damaged(r, "frames", e);
            if (i < n)
                memcpy(r->md5[i++], x->valuestring, 33);
        }
    }
    list = cJSON_GetObjectItemCaseSensitive(had, "moving");
    if (list) {
        const cJSON *a = cJSON_GetArrayItem(list, 0), *b = cJSON_GetArrayItem(list, 1);
        if (r->kind != KIND_PNG || cJSON_GetArraySize(list) != 2 || !cJSON_IsNumber(a) || !cJSON_IsNumber(b)
            || a->valuedouble < 0 || b->valuedouble < a->valuedouble || b->valuedouble >= r->sc->time.frames)
            return damaged(r, "moving", e);
        r->moving[0] = (long)a->valuedouble;
        r->moving[1] = (long)b->valuedouble;
    }
    /* What the interruption left under the outputs' names (none when it
     * was killed, or before any interruption). */
    list = cJSON_GetObjectItemCaseSensitive(had, "left");
    if (list && (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > MAX_LEFT))
        return damaged(r, "left", e);
    cJSON_ArrayForEach(x, list) {
        const char *file = string(x, "file"), *sha = string(x, "sha256");
        const long size = number(x, "size");
        if (!file || !sha || strlen(sha) != 64 || size < 0)
            return damaged(r, "left", e);
        if (set_left(r, file, size, sha) < 0)
            return rr_fail(e, RR_EXIT_RUNTIME, "--resume: out of memory");
    }
    return 0;
}

/* The settings a resumed run must share with the interrupted one. */
static cJSON *run_settings(const struct scene *sc, const struct state_options *o, const struct resume_run *run)
{
    cJSON *s = state_scene_json(sc, false);
    if (s && (!cJSON_AddNumberToObject(s, "state_every", (double)o->every)
              || !(run->manifest ? cJSON_AddStringToObject(s, "manifest", run->manifest)
                                 : cJSON_AddNullToObject(s, "manifest")))) {
        cJSON_Delete(s);
        s = NULL;
    }
    return s;
}

static int add_range(cJSON *settings, const struct state *st)
{
    cJSON *range = cJSON_AddArrayToObject(settings, "range");
    return range && cJSON_AddItemToArray(range, cJSON_CreateNumber((double)state_range_first(st)))
                   && cJSON_AddItemToArray(range, cJSON_CreateNumber((double)state_last(st)))
               ? 0
               : -1;
}

/* The frame number K of a file named PREFIX-K.REST (K of at least six
 * digits) in the range's frames, or -1. */
static long frame_of(const struct resume *r, const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) || name[n] != '-')
        return -1;
    char *end;
    long k = strtol(name + n + 1, &end, 10);
    return end - (name + n + 1) >= 6 && *end == '.' && k >= r->first && k <= r->last ? k : -1;
}

/* The end of "PREFIX-K" at name's start (K of at least six digits), or NULL. */
static const char *after_number(const char *name, const char *prefix)
{
    size_t n = strlen(prefix), d = 0;
    if (strncmp(name, prefix, n) || name[n] != '-')
        return NULL;
    while (name[n + 1 + d] >= '0' && name[n + 1 + d] <= '9')
        d++;
    return d >= 6 ? name + n + 1 + d : NULL;
}

bool resume_dir_owns(const char *name)
{
    const char *s = after_number(name, "state"), *r = after_number(name, "resume"), *p = after_number(name, "part");
    const size_t sl = s ? strlen(s) : 0;
    r = r && *r == '-' ? after_number(r, "") : NULL;
    return !strcmp(name, ".resume.lock") || (p && *p == '.') || (r && !strcmp(r, ".json"))
           || (s && (!strcmp(s, ".json")
                     || (sl > 5 && *s == '.' && strchr(s + 1, '.') == s + sl - 4 && !strcmp(s + sl - 4, ".npy"))));
}

/* Removes the range's segment files in DIR (part-K.EXT, K in the range,
 * EXT the output's: a segment of this run's kind, a regular file) that the
 * record does not keep: a segment written after the last checkpoint, or by a
 * render that started over. Other ranges' (a farm's chunks sharing DIR) and
 * other names (a user's part-K.txt) are left alone. */
static void remove_stray_segments(const struct resume *r)
{
    if (r->kind != KIND_SEGMENTS)
        return;
    DIR *d = opendir(r->dir);
    if (!d)
        return;
    const char *ext = extension(r->sc->output.path);
    const struct dirent *de;
    while ((de = readdir(d))) {
        const char *n = de->d_name;
        struct stat st;
        if (frame_of(r, n, "part") < 0 || strcmp(strchr(n, '.') + 1, ext)
            || fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        bool kept = false;
        for (int i = 0; i < r->n_segs && !kept; i++)
            kept = !strcmp(r->segs[i].file, n);
        char *p = kept ? NULL : state_format("%s/%s", r->dir, n);
        if (p)
            unlink(p);
        free(p);
    }
    closedir(d);
}

/* Whether DIR holds a checkpoint of a frame of the range. */
static bool has_checkpoints(const struct resume *r)
{
    DIR *d = opendir(r->dir);
    bool found = false;
    const struct dirent *de;
    while (d && !found && (de = readdir(d)))
        found = frame_of(r, de->d_name, "state") >= 0;
    if (d)
        closedir(d);
    return found;
}

/* Refuses a run whose range overlaps that of another interrupted render's
 * record in DIR (resume-A-B.json, A-B not this run's range): this run would
 * write its segments part-K and checkpoints under the same names, and sweep
 * the others' as strays (remove_stray_segments), so the other render's
 * --resume would fail. Taken after the lock, so no render of an overlapping
 * range is writing there now. */
static int refuse_overlapping_record(const struct resume *r, struct rr_err *e)
{
    /* A DIR that cannot be listed (mode -wx) would hide such a record:
     * refused, not taken for an empty one. */
    DIR *d = opendir(r->dir);
    if (!d && errno == ENOENT)
        return 0;   /* not made (lock_range could not): the writes will name why */
    if (!d)
        return rr_fail(e, RR_EXIT_RUNTIME, "--save-state %s: cannot list it (to find other renders' records "
                       "there): %s", r->dir, strerror(errno));
    const struct dirent *de;
    long a = -1, b = -1;
    errno = 0;
    while ((de = readdir(d))) {
        const char *n = de->d_name, *p = after_number(n, "resume"), *q = p && *p == '-' ? after_number(p, "") : NULL;
        if (!q || strcmp(q, ".json"))
            continue;
        a = strtol(n + strlen("resume-"), NULL, 10);
        b = strtol(p + 1, NULL, 10);
        if (a <= r->last && b >= r->first && (a != r->first || b != r->last))
            break;
        a = -1;
        errno = 0;
    }
    int err = errno;
    closedir(d);
    if (a < 0 && err)
        return rr_fail(e, RR_EXIT_RUNTIME, "--save-state %s: cannot list it (to find other renders' records "
                       "there): %s", r->dir, strerror(err));
    if (a < 0)
        return 0;
    return rr_fail(e, RR_EXIT_RUNTIME, "--save-state %s: holds an interrupted render of frames %ld to %ld "
                   "(%s/resume-%06ld-%06ld.json) overlapping frames %ld to %ld: complete it (its command with "
                   "--resume), or remove that file to discard it", r->dir, a, b, r->dir, a, b, r->first, r->last);
}

/* Takes the range's lock for the run: the bytes at offsets FIRST to LAST of
 * DIR/.resume.lock (a farm's chunks share DIR and lock their own bytes), a
 * POSIX record lock, released when the run ends or dies (the process holds
 * no other descriptor of the file, whose closing would release it). A second
 * run on the range (a resume started twice), or on a range overlapping it
 * (whose checkpoints and segments part-K would be the same files), is
 * refused before it reads or writes anything there, naming the frames the
 * holder locked. DIR is made here when missing (as state_open
 * would); one this user cannot write in: nothing to lock, and the writes
 * will name the problem. */
static int lock_range(struct resume *r, struct rr_err *e)
{
    if (save_dir_in_way(r->dir, e) < 0)
        return -1;
    (void)mkdir(r->dir, 0777);
    char *path = state_format("%s/.resume.lock", r->dir);
    if (!path)
        return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
    r->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    free(path);
    if (r->lock_fd < 0)
        return 0;
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = r->first,
                        .l_len = r->last - r->first + 1 };
    if (fcntl(r->lock_fd, F_SETLK, &fl) == 0)
        return 0;
    int err = errno;
    long a = r->first, b = r->last;
    struct flock held = fl;
    if (fcntl(r->lock_fd, F_GETLK, &held) == 0 && held.l_type != F_UNLCK && held.l_len > 0) {
        a = (long)held.l_start;
        b = (long)(held.l_start + held.l_len - 1);
    }
    close(r->lock_fd);
    r->lock_fd = -1;
    if (err != EAGAIN && err != EACCES)
        return 0;
    return rr_fail(e, RR_EXIT_RUNTIME, "--save-state %s: another render is writing frames %ld to %ld there now "
                   "(it holds %s/.resume.lock): wait for it to end", r->dir, a, b, r->dir);
}

int resume_open(struct resume **out, struct state **st, const struct state_options *o, const struct scene *sc,
                const struct resume_run *run, struct rr_err *e)
{
    *out = NULL;
    struct resume *r = calloc(1, sizeof *r);
    if (!r)
        return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
    *out = r;
    r->lock_fd = -1;
    r->moving[0] = r->moving[1] = -1;
    r->sc = sc;
    r->dir = o->save_dir;
    r->checkpoint = -1;
    /* An atlas (render.atlas) holds several frames a file: written whole. */
    r->kind = !run->writes_output ? KIND_NONE : sc->render.atlas[0] ? KIND_WHOLE : output_kind(sc->output.path, &r->ops);
    r->active = o->save_dir && r->kind != KIND_WHOLE && !run->probes;
    /* The join at the end: its functions found now (--validate too, as the run). */
    const struct sink_ops *joined = NULL;
    if (o->save_dir && !run->probes && (run->writes_output || run->validates_output) && !sc->render.atlas[0]
        && output_kind(sc->output.path, &joined) == KIND_SEGMENTS)
        join_prepare(joined);
    struct state_options q = *o;
    cJSON *had = NULL;
    if (o->resume && o->save_dir) {
        if (run->probes)
            return rr_fail(e, RR_EXIT_USAGE, "--resume: --probes cannot be resumed (its CSV is not recorded)");
        if (r->kind == KIND_WHOLE)
            return rr_fail(e, RR_EXIT_USAGE, "--resume: %s: %s is written in one piece and cannot be resumed "
                           "(render a video, a PNG sequence or a hash list)", sc->output.path,
                           sc->render.atlas[0] ? "a render.atlas sequence"
                           : r->ops && r->ops->noun ? r->ops->noun : "a file of this kind");
    }
    if ((r->active || o->resume) && o->save_dir) {
        /* The range names the record: a farm's chunks may share DIR. */
        struct state_options range_only = *o;
        range_only.save_dir = NULL;
        range_only.every = 0;
        range_only.resume = false;
        struct state *pre = NULL;
        int bad = state_open(&pre, &range_only, sc, e);
        r->first = state_first(pre);
        r->last = state_last(pre);
        state_free(pre);
        if (bad < 0)
            return -1;
        if (!(r->record = state_format("%s/resume-%06ld-%06ld.json", o->save_dir, r->first, r->last))
            || !(r->settings = run_settings(sc, o, run)))
            return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
        if ((r->active ? lock_range(r, e) < 0 || refuse_overlapping_record(r, e) < 0
                       : save_dir_in_way(o->save_dir, e) < 0))
            return -1;
        if (read_record(r, &had, e) < 0) {
            cJSON_Delete(had);
            return -1;
        }
    }
    if (had && !o->resume && !o->overwrite && r->active) {
        cJSON_Delete(had);
        return rr_fail(e, RR_EXIT_RUNTIME, "--save-state %s: holds an interrupted render (%s): continue it with "
                       "--resume, or start again with -y", o->save_dir, r->record);
    }
    if (o->resume && o->save_dir && !had && !o->overwrite && has_checkpoints(r)) {
        /* A kill between resume_clean's removal of the record and of the
         * segments leaves segments no record names: swept here, as the run
         * that would follow (-y) would. */
        remove_stray_segments(r);
        return rr_fail(e, RR_EXIT_RUNTIME, "--resume %s: no interrupted render to resume (no %s: the render that "
                       "wrote the checkpoints completed); -y starts again", o->save_dir, r->record);
    }
    if (o->resume && had) {
        /* The scene first, before the checkpoint is read (whose own check
         * would name --load-state). */
        const cJSON *was = cJSON_GetObjectItemCaseSensitive(had, "settings");
        cJSON *scene_only = cJSON_Duplicate(was, true);
        cJSON_DeleteItemFromObjectCaseSensitive(scene_only, "range");
        char what[4200];
        snprintf(what, sizeof what, "--resume %s: the interrupted render had other settings", o->save_dir);
        long k = number(had, "checkpoint");
        int bad = !cJSON_IsObject(was) ? damaged(r, "settings", e)
                                       : state_compare_scenes(scene_only, r->settings, what, "the interrupted render", e);
        cJSON_Delete(scene_only);
        if (bad < 0) {
            cJSON_Delete(had);
            return -1;
        }
        r->ours = true;
        q.overwrite = true;   /* the checkpoints after k are the interrupted render's */
        if (k >= 0) {
            if (!(r->load = state_format("%s/state-%06ld.json", o->save_dir, k))) {
                cJSON_Delete(had);
                return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
            }
            q.resume_load = r->load;
            q.resume_at = k + 1;
        }
    }
    if (state_open(st, &q, sc, e) < 0) {
        cJSON_Delete(had);
        return -1;
    }
    r->st = *st;
    if (!r->active && !o->resume) {
        cJSON_Delete(had);
        return 0;
    }
    if (add_range(r->settings, r->st) < 0) {
        cJSON_Delete(had);
        return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
    }
    if (run->manifest && r->active) {
        r->n_md5 = state_last(r->st) - state_range_first(r->st) + 1;
        if (!(r->md5 = calloc((size_t)r->n_md5, sizeof *r->md5))) {
            cJSON_Delete(had);
            return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
        }
    }
    int rc = 0;
    if (r->ours) {
        char what[4200];
        snprintf(what, sizeof what, "--resume %s: the interrupted render had other settings", o->save_dir);
        rc = state_compare_scenes(cJSON_GetObjectItemCaseSensitive(had, "settings"), r->settings, what,
                                  "the interrupted render", e);
        if (rc == 0)
            rc = take_record(r, had, e);
    }
    cJSON_Delete(had);
    if (rc < 0 || !r->active)
        return rc;
    r->overwrite_final = o->overwrite;
    if (r->kind == KIND_SEGMENTS && !o->overwrite
        && resume_may_replace(r, sc->output.path, &r->replaces_left, e) < 0)
        return -1;
    r->overwrite_final |= r->replaces_left;
    if (r->kind == KIND_SEGMENTS
        && outfile_check_target(sc->output.path, r->overwrite_final, e) < 0)
        return -1;
    if (run->validate)
        return 0;
    remove_stray_segments(r);
    return write_record(r, e);
}

int resume_may_replace(const struct resume *r, const char *path, bool *replace, struct rr_err *e)
{
    *replace = false;
    struct stat st;
    if (!r || !r->ours || (stat(path, &st) != 0 && errno == ENOENT))
        return 0;   /* nothing there: written without replacing (link) */
    if (is_left(r, path)) {
        *replace = true;
        return 0;
    }
    return rr_fail(e, RR_EXIT_RUNTIME, "%s: already exists, and is not the file the interrupted render left there "
                   "(%s records its size and SHA-256): use -y to replace it", path, r->record);
}

int resume_note_left(struct resume *r, const char *manifest, struct rr_err *e)
{
    if (!resume_kept(r))
        return 0;
    const char *paths[MAX_LEFT] = { r->kind == KIND_SEGMENTS ? r->sc->output.path : NULL, manifest };
    for (int i = 0; i < MAX_LEFT; i++) {
        struct stat st;
        char sha[65];
        if (!paths[i] || (stat(paths[i], &st) != 0 && errno == ENOENT))
            continue;
        if (stat(paths[i], &st) != 0 || state_file_sha256(paths[i], sha) < 0)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot read back: %s", paths[i], strerror(errno));
        if (set_left(r, paths[i], (long long)st.st_size, sha) < 0)
            return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
    }
    return write_record(r, e);
}
bool resume_kept(const struct resume *r) { return r && r->active && r->wrote_record; }

void resume_manifest(const struct resume *r, struct manifest *m)
{
    for (long i = 0; r && r->md5 && i <= r->checkpoint - state_range_first(r->st); i++)
        manifest_frame(m, i, r->md5[i]);
}

/* ---- segments ---------------------------------------------------------------- */

/* A failure of a segment's sink names the output, as it would without
 * segments ("out.mp4: cannot open the libx264 encoder: ..."). Returns -1. */
static int as_output(const struct resume *r, const char *seg_path, struct rr_err *e)
{
    size_t n = seg_path ? strlen(seg_path) : 0;
    if (n && !strncmp(e->msg, seg_path, n)) {
        char rest[sizeof e->msg];
        snprintf(rest, sizeof rest, "%s", e->msg + n);
        rr_fail(e, e->status, "%s%s", r->sc->output.path, rest);
    }
    return -1;
}

static int open_segment(struct resume *r, long first, struct rr_err *e)
{
    struct sink_params p = r->sp;
    p.first = first;
    p.frames = state_last(r->st) - first + 1;
    const struct scene *sc = r->sc;
    if (segmented(r) && r->kind != KIND_PNG) {
        free(r->seg_path);
        if (!(r->seg_path = state_format("%s/part-%06ld.%s", r->dir, first, extension(sc->output.path))))
            return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
        r->seg_scene = *sc;
        r->seg_scene.output.path = r->seg_path;
        sc = &r->seg_scene;
        p.overwrite = true;   /* DIR's segments are this render's */
    }
    r->seg_first = first;
    return sink_open(r->sink, sc, &p, e) < 0 || pipeline_create(r->pipe, *r->sink, e) < 0
               ? as_output(r, r->seg_path, e)
               : 0;
}

/* For a resumed PNG sequence without -y: whether the first segment replaces
 * frames after the checkpoint (*replace). Those that exist may only be the
 * interrupted render's own, moved into place by a kill between the move
 * and the record naming them ("moving", written before the move); any
 * other is refused, as without --resume. Returns 0, or -1 with e filled. */
static int png_may_replace(const struct resume *r, bool *replace, struct rr_err *e)
{
    *replace = false;
    for (long i = state_first(r->st); i <= state_last(r->st); i++) {
        char *path = png_name(r->sc->output.path, i);
        struct stat st;
        if (!path)
            return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
        bool there = lstat(path, &st) == 0;
        if (there && (i < r->moving[0] || i > r->moving[1])) {
            rr_fail(e, RR_EXIT_RUNTIME, "%s: already exists, and is not a frame the interrupted render wrote "
                    "(%s names none past frame %ld): use -y to replace it", path, r->record, r->checkpoint);
            free(path);
            return -1;
        }
        *replace |= there;
        free(path);
    }
    return 0;
}

int resume_sink_open(struct resume *r, struct sink **sink, struct pipeline **pipe, const struct sink_params *p,
                     struct rr_err *e)
{
    r->sink = sink;
    r->pipe = pipe;
    r->sp = *p;
    if (r->ours && r->kind == KIND_PNG && !p->overwrite && png_may_replace(r, &r->sp.overwrite, e) < 0)
        return -1;
    int rc = state_count(r->st) > 0 ? open_segment(r, state_first(r->st), e) : 0;
    r->sp.overwrite = p->overwrite;   /* the later segments' frames are new names */
    return rc;
}

/* The work of a closing segment: drains and closes its pipeline and sink,
 * frees them, and reads the file's SHA-256 back. */
static void *closer(void *arg)
{
    struct closing *c = arg;
    c->rc = pipeline_finish(c->pipe, &c->err) < 0 || sink_close(c->sink, &c->err) < 0
                ? as_output(c->r, c->path, &c->err)
                : 0;
    pipeline_free(c->pipe);
    sink_free(c->sink);
    c->pipe = NULL;
    c->sink = NULL;
    if (c->rc == 0 && state_file_sha256(c->path, c->sha) < 0)
        c->rc = rr_fail(&c->err, RR_EXIT_RUNTIME, "%s: cannot read back: %s", c->path, strerror(errno));
    atomic_store(&c->done, true);
    return NULL;
}

/* Hands the open video segment, whose last frame is `last`, to a thread
 * that finishes it (on this one when no thread can start). */
static void start_closing(struct resume *r, long last)
{
    struct closing *c = &r->closing;
    c->r = r;
    c->pipe = *r->pipe;
    c->sink = *r->sink;
    c->path = r->seg_path;
    c->first = r->seg_first;
    c->last = last;
    c->checkpoint = -1;
    c->rc = 0;
    atomic_store(&c->done, false);
    c->busy = true;
    *r->pipe = NULL;
    *r->sink = NULL;
    r->seg_path = NULL;
    r->written_before += last - r->seg_first + 1;
    c->running = pthread_create(&c->thread, NULL, closer, c) == 0;
    if (!c->running)
        closer(c);
}

/* Records the closing segment once its thread is done (waiting for it
 * with `wait`), then its checkpoint. Returns 0 (also when not done yet),
 * or -1 with e filled: the segment's failure. */
static int keep_closed(struct resume *r, bool wait, struct rr_err *e)
{
    struct closing *c = &r->closing;
    if (!c->busy || (!wait && !atomic_load(&c->done)))
        return 0;
    if (c->running)
        pthread_join(c->thread, NULL);
    c->running = c->busy = false;
    const char *slash = strrchr(c->path, '/');
    int rc = c->rc;
    if (rc < 0)
        *e = c->err;
    else if (add_segment(r, slash ? slash + 1 : c->path, c->first, c->last, c->sha) < 0)
        rc = rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
    free(c->path);
    c->path = NULL;
    if (rc == 0 && c->checkpoint >= 0) {
        r->checkpoint = c->checkpoint;
        rc = write_record(r, e);
    }
    return rc;
}

int resume_before_frame(struct resume *r, long i, struct rr_err *e)
{
    if (keep_closed(r, false, e) < 0)
        return -1;
    return segmented(r) && r->sink && !*r->sink ? open_segment(r, i, e) : 0;
}

/* Finishes the open segment, whose last frame is `last`, and keeps it: a
 * video on a thread of its own (start_closing), the others here. */
static int close_segment(struct resume *r, long last, struct rr_err *e)
{
    if (r->ops->slow_close) {
        start_closing(r, last);
        return 0;
    }
    if (r->kind == KIND_PNG) {   /* named before they are moved (png_may_replace) */
        r->moving[0] = r->seg_first;
        r->moving[1] = last;
        if (write_record(r, e) < 0)
            return -1;
    }
    if (pipeline_finish(*r->pipe, e) < 0 || sink_close(*r->sink, e) < 0)
        return as_output(r, r->seg_path, e);
    pipeline_free(*r->pipe);
    sink_free(*r->sink);
    *r->pipe = NULL;
    *r->sink = NULL;
    r->written_before += last - r->seg_first + 1;
    for (long i = r->kind == KIND_PNG ? r->seg_first : last; i <= last; i++) {
        char *path = r->kind == KIND_PNG ? png_name(r->sc->output.path, i) : strdup(r->seg_path), sha[65];
        const char *slash = path ? strrchr(path, '/') : NULL;
        const char *file = r->kind == KIND_PNG || !slash ? path : slash + 1;
        int bad = !path || state_file_sha256(path, sha) < 0 || add_segment(r, file, r->seg_first, last, sha) < 0;
        if (bad)
            rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot read back: %s", path ? path : "output", strerror(errno));
        free(path);
        if (bad)
            return -1;
    }
    return 0;
}

int resume_after_frame(struct resume *r, struct sim *sim, long i, const char *md5, struct rr_err *e)
{
    if (r->md5 && md5 && i - state_range_first(r->st) < r->n_md5)
        memcpy(r->md5[i - state_range_first(r->st)], md5, 33);
    if (!state_checkpoint_due(r->st, i))
        return 0;
    /* The previous segment (long finished by now), then this one. */
    if (keep_closed(r, true, e) < 0 || (segmented(r) && r->sink && *r->sink && close_segment(r, i, e) < 0))
        return -1;
    if (state_after_frame(r->st, sim, e) < 0)
        return -1;
    if (!r->active)
        return 0;
    if (r->closing.busy) {   /* recorded with its segment */
        r->closing.checkpoint = i;
        return 0;
    }
    r->checkpoint = i;
    return write_record(r, e);
}

int resume_frames_end(struct resume *r, struct sim *sim, struct rr_err *e)
{
    if (keep_closed(r, true, e) < 0)
        return -1;
    if (segmented(r) && r->sink && *r->sink && sim_frame(sim) >= r->seg_first && close_segment(r, sim_frame(sim), e) < 0)
        return -1;
    if (state_finish(r->st, sim, e) < 0 || keep_closed(r, true, e) < 0)
        return -1;
    if (!r->active || state_saved(r->st) <= r->checkpoint)
        return 0;
    r->checkpoint = state_saved(r->st);
    return write_record(r, e);
}

long resume_frames_before(const struct resume *r) { return r ? r->written_before : 0; }

int resume_complete(struct resume *r, struct rr_err *e)
{
    if (!r || !r->active || r->kind != KIND_SEGMENTS || r->n_segs == 0)
        return 0;
    const char **in = calloc((size_t)r->n_segs, sizeof *in);
    int rc = in ? 0 : rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
    for (int i = 0; rc == 0 && i < r->n_segs; i++)
        if (!(in[i] = kept_path(r, &r->segs[i])))
            rc = rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
    /* Replaced without -y only if it is still what the interruption left:
     * else the join's link refuses it ("already exists"). */
    const bool overwrite = r->overwrite_final && (!r->replaces_left || is_left(r, r->sc->output.path));
    if (rc == 0)
        rc = r->ops->join(in, r->n_segs, r->sc->output.path, overwrite, e);
    for (int i = 0; in && i < r->n_segs; i++)
        free((char *)in[i]);
    free(in);
    return rc;
}

void resume_clean(struct resume *r)
{
    if (!r || !r->wrote_record)
        return;
    /* The record first: a record that exists names files that exist. A kill
     * before the segments are gone leaves them to the next run of the range
     * (remove_stray_segments; a refused --resume too). */
    unlink(r->record);
    r->wrote_record = false;
    for (int i = 0; r->kind != KIND_PNG && i < r->n_segs; i++) {
        char *p = kept_path(r, &r->segs[i]);
        if (p)
            unlink(p);
        free(p);
    }
}

void resume_free(struct resume *r)
{
    if (!r)
        return;
    if (r->lock_fd >= 0)
        close(r->lock_fd);   /* releases the range's lock */
    if (r->closing.running)   /* after a failure elsewhere: the segment is finished, not recorded */
        pthread_join(r->closing.thread, NULL);
    free(r->closing.path);
    /* Nothing to resume from: as if never started; unless frames were moved
     * into place ("moving": a checkpoint that failed after the move), which
     * the record names for --resume to replace. */
    if (r->wrote_record && r->checkpoint < 0 && r->moving[0] < 0)
        unlink(r->record);
    for (int i = 0; i < r->n_segs; i++)
        free(r->segs[i].file);
    for (int i = 0; i < r->n_left; i++)
        free(r->left[i].file);
    free(r->segs);
    free(r->md5);
    free(r->seg_path);
    free(r->record);
    free(r->load);
    cJSON_Delete(r->settings);
    free(r);
}

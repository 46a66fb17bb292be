/* sink.c: the sink registry (output kind from the output's name) and the
 * wrappers every caller uses. */
#include "sink.h"
#include "sinks/sinks.h"
#include "budget.h"
#include "outfile.h"
#include "render.h"
#include "solver.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

struct sink {
    const struct sink_ops *ops;
    void *priv;
    int needs;
    bool closed, close_failed;
    atomic_long written;   /* writes that returned 0 */
};

const char *sink_extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot ? dot + 1 : "";
}

/* The libraries' last error line. FFmpeg logs from its own threads too,
 * hence the lock. Nothing is printed: errors reach the user once, inside our
 * own one-line message (sink_av_fail). */
static pthread_mutex_t av_log_lock = PTHREAD_MUTEX_INITIALIZER;
static char av_last_error[256];

static void capture_av_log(void *avcl, int level, const char *fmt, va_list vl)
{
    (void)avcl;
    if (level > AV_LOG_ERROR)
        return;
    char line[sizeof av_last_error];
    vsnprintf(line, sizeof line, fmt, vl);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '.' || line[n - 1] == ' '))
        line[--n] = '\0';
    if (!n)
        return;
    pthread_mutex_lock(&av_log_lock);
    memcpy(av_last_error, line, n + 1);
    pthread_mutex_unlock(&av_log_lock);
}

void sink_capture_library_log(void)
{
    av_log_set_callback(capture_av_log);
}

static char lib_stderr_error[256];   /* under av_log_lock */

/* Held from sink_stderr_hold to sink_stderr_release: a video segment closes
 * on its own thread while the next one opens (src/resume.c), and two holds
 * interleaved would leave descriptor 2 on the first one's temporary file
 * (the second saved it as standard error and put it back last). */
static pthread_mutex_t stderr_hold_lock = PTHREAD_MUTEX_INITIALIZER;

void sink_stderr_hold(struct sink_stderr *h)
{
    pthread_mutex_lock(&stderr_hold_lock);
    fflush(stderr);
    h->saved = -1;
    h->tmp = tmpfile();   /* unnamed: nothing is left behind */
    if (!h->tmp)
        return;
    h->saved = dup(STDERR_FILENO);
    if (h->saved < 0 || dup2(fileno(h->tmp), STDERR_FILENO) < 0) {
        if (h->saved >= 0)
            close(h->saved);
        h->saved = -1;
        fclose(h->tmp);
        h->tmp = NULL;
    }
}

void sink_stderr_release(struct sink_stderr *h)
{
    if (!h->tmp) {
        pthread_mutex_unlock(&stderr_hold_lock);
        return;
    }
    fflush(stderr);
    dup2(h->saved, STDERR_FILENO);
    close(h->saved);
    rewind(h->tmp);
    char line[sizeof lib_stderr_error];
    bool found = false;
    while (!found && fgets(line, sizeof line, h->tmp)) {
        line[strcspn(line, "\r\n")] = '\0';
        found = strstr(line, "error") || strstr(line, "ERROR") || strstr(line, "Error");
    }
    if (found) {
        pthread_mutex_lock(&av_log_lock);
        snprintf(lib_stderr_error, sizeof lib_stderr_error, "%s", line);
        pthread_mutex_unlock(&av_log_lock);
    }
    fclose(h->tmp);
    h->tmp = NULL;
    pthread_mutex_unlock(&stderr_hold_lock);
}

int sink_av_fail(struct rr_err *e, int status, const char *path, const char *what, int err)
{
    char buf[256], lib[sizeof lib_stderr_error];
    av_strerror(err, buf, sizeof buf);
    pthread_mutex_lock(&av_log_lock);
    if (av_last_error[0]) {   /* the library's own reason says more than EINVAL */
        snprintf(buf, sizeof buf, "%s", av_last_error);
        av_last_error[0] = '\0';
    }
    memcpy(lib, lib_stderr_error, sizeof lib);   /* what a library wrote to stderr itself */
    lib_stderr_error[0] = '\0';
    pthread_mutex_unlock(&av_log_lock);
    if (lib[0])
        return rr_fail(e, status, "%s: %s: %s (%s)", path, what, buf, lib);
    return rr_fail(e, status, "%s: %s: %s", path, what, buf);
}

int sink_pattern_check(const char *pattern, struct rr_err *e)
{
    int n = scene_pattern_fields(pattern);
    if (n != 1)
        return rr_fail(e, RR_EXIT_USAGE,
                       "%s: the name of a file per frame (.png, .exr) needs exactly one frame number field such as %%05d "
                       "(%%d, %%i or %%u with flags, width, precision; %%%% for a literal %%)",
                       pattern);
    return 0;
}

int sink_pattern_name(char *buf, size_t n, const char *pattern, long i)
{
    /* The pattern was checked: one int conversion, so passing an int is right. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    int k = snprintf(buf, n, pattern, (int)i);
#pragma GCC diagnostic pop
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* Copies pattern[from, to) into out (n bytes) with each "%%" made '%': the
 * text a literal part of the pattern puts in a name. Returns 0, or -1 when it
 * does not fit. */
static int pattern_literal(char *out, size_t n, const char *pattern, size_t from, size_t to)
{
    size_t o = 0;
    for (size_t i = from; i < to; i++) {
        if (o + 1 >= n)
            return -1;
        out[o++] = pattern[i];
        i += pattern[i] == '%';
    }
    out[o] = '\0';
    return 0;
}

long sink_numbered_left(const struct scene *sc, char *first, char *last, size_t n)
{
    const char *pattern = sc->output.path;
    const struct sink_ops *kind = pattern ? sink_find(pattern, NULL) : NULL;
    if (!kind || !kind->numbered || sc->time.frames < 1 || scene_pattern_fields(pattern) != 1)
        return 0;
    /* The number after the set's last: an atlas's image a holds frames
     * a * columns * rows onwards (sinks/atlas.c). */
    const long per = sc->render.atlas[0] ? (long)sc->render.atlas[0] * sc->render.atlas[1] : 1;
    const long next = (sc->time.frames - 1) / per + 1;
    /* The name's component that holds the number: [c0, c1) of the pattern,
     * the field [f0, f1) in it (flags "-+ 0", width, precision, d/i/u). */
    size_t f0 = 0;
    while (pattern[f0] && !(pattern[f0] == '%' && pattern[f0 + 1] != '%'))
        f0 += pattern[f0] == '%' ? 2 : 1;
    size_t f1 = f0 + 1 + strspn(pattern + f0 + 1, "-+ 0");
    f1 += strspn(pattern + f1, "0123456789");
    if (pattern[f1] == '.')
        f1 += 1 + strspn(pattern + f1 + 1, "0123456789");
    f1++;
    size_t c0 = f0, c1 = f1 + strcspn(pattern + f1, "/");
    while (c0 > 0 && pattern[c0 - 1] != '/')
        c0--;
    /* Its folder, and the text before and after the number in its entries. */
    char dir[PATH_MAX], pre[NAME_MAX + 1], post[NAME_MAX + 1], comp[2 * NAME_MAX + 2], name[NAME_MAX + 1];
    if (pattern_literal(dir, sizeof dir, pattern, 0, c0) < 0 || pattern_literal(pre, sizeof pre, pattern, c0, f0) < 0
        || pattern_literal(post, sizeof post, pattern, f1, c1) < 0
        || snprintf(comp, sizeof comp, "%.*s", (int)(c1 - c0), pattern + c0) >= (int)sizeof comp)
        return 0;
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d)
        return 0;
    /* Every entry that the pattern writes for a number after the set's last
     * (the name rebuilt from the number must be the entry's: "f5.png" is not
     * %02d's), one pass over the folder, no stat for a file's own entry. */
    const size_t npre = strlen(pre), npost = strlen(post);
    long k = 0, lo = LONG_MAX, hi = -1;
    struct stat st;
    for (const struct dirent *e; (e = readdir(d));) {
        const char *nm = e->d_name;
        const size_t len = strlen(nm);
        if (len <= npre + npost || strncmp(nm, pre, npre) || strcmp(nm + len - npost, post)
            || !strchr("+- 0123456789", nm[npre]) || (!pattern[c1] && e->d_type == DT_DIR))
            continue;
        const long i = strtol(nm + npre, NULL, 10);   /* checked below by rebuilding the name */
        if (i < next || i > INT_MAX || sink_pattern_name(name, sizeof name, comp, i) < 0 || strcmp(name, nm)
            || (pattern[c1] && (sink_pattern_name(last, n, pattern, i) < 0 || lstat(last, &st) < 0))
            || (!pattern[c1] && e->d_type == DT_UNKNOWN
                && (sink_pattern_name(last, n, pattern, i) < 0 || lstat(last, &st) < 0 || S_ISDIR(st.st_mode))))
            continue;
        k++;
        lo = i < lo ? i : lo;
        hi = i > hi ? i : hi;
    }
    closedir(d);
    if (k == 0 || sink_pattern_name(first, n, pattern, lo) < 0 || sink_pattern_name(last, n, pattern, hi) < 0)
        return 0;
    return k;
}

const char *sink_kind_shown(const struct sink_ops *k, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    if (k->to_stdout)
        snprintf(buf, n, "-");
    for (const char *x = k->exts; *x && used < n;) {
        size_t len = strcspn(x, " ");
        int w = snprintf(buf + used, n - used, "%s%s%.*s", used ? " " : "", k->numbered ? "NAME%05d." : ".",
                         (int)len, x);
        if (w < 0)
            break;
        used += (size_t)w;
        x += len + (x[len] == ' ');
    }
    return buf;
}

void sink_print_kinds(FILE *f)
{
    char shown[128];
    const struct sink_ops *k;
    for (int i = 0; (k = sink_kind_at(i)); i++)
        fprintf(f, "%s\t%s\t%s\t%s\n", k->name, k->exts, sink_kind_shown(k, shown, sizeof shown), k->help);
}

/* Whether key is in the NULL-terminated list keys (NULL: none). */
static bool key_listed(const char *const *keys, const char *key)
{
    for (const char *const *k = keys; k && *k; k++)
        if (!strcmp(*k, key))
            return true;
    return false;
}

/* Whether ext is one of the space-separated names of exts, without regard to case. */
static bool ext_listed(const char *exts, const char *ext)
{
    size_t n = strlen(ext);
    for (const char *x = exts; *x;) {
        size_t len = strcspn(x, " ");
        if (n && len == n && strncasecmp(x, ext, n) == 0)
            return true;
        x += len + (x[len] == ' ');
    }
    return false;
}

bool sink_ext_ends(const char *name, size_t n)
{
    size_t dot = n;
    while (dot > 0 && name[dot - 1] != '.')
        dot--;
    char ext[32];
    if (dot == 0 || n - dot >= sizeof ext)   /* no dot, or longer than any extension */
        return false;
    snprintf(ext, sizeof ext, "%.*s", (int)(n - dot), name + dot);
    const struct sink_ops *k;
    for (int i = 0; (k = sink_kind_at(i)); i++)
        if (ext_listed(k->exts, ext))
            return true;
    return false;
}

/* The kinds sink_register added, after the table's. */
static const struct sink_ops *added[SINK_MAX];
static int n_added;

static int n_table(void)
{
    int n = 0;
    while (sink_kinds[n])
        n++;
    return n;
}

const struct sink_ops *sink_kind_at(int i)
{
    const int n = n_table();
    if (i < 0)
        return NULL;
    return i < n ? sink_kinds[i] : i - n < n_added ? added[i - n] : NULL;
}

int sink_register(const struct sink_ops *ops)
{
    if (n_table() + n_added >= SINK_MAX)
        return -1;
    const struct sink_ops *k;
    for (int i = 0; (k = sink_kind_at(i)); i++) {
        if (!strcmp(k->name, ops->name) || (k->to_stdout && ops->to_stdout))
            return -1;
        for (const char *x = ops->exts; *x;) {   /* sink_find takes the first kind with an extension */
            size_t len = strcspn(x, " ");
            char ext[32];
            snprintf(ext, sizeof ext, "%.*s", (int)len, x);
            if (ext_listed(k->exts, ext))
                return -1;
            x += len + (x[len] == ' ');
        }
    }
    added[n_added++] = ops;
    return 0;
}

const struct sink_ops *sink_find(const char *path, struct rr_err *e)
{
    if (!path || !*path) {
        rr_fail(e, RR_EXIT_USAGE, "output.path: empty (give -o PATH or output.path)");
        return NULL;
    }
    const char *ext = sink_extension(path);
    const struct sink_ops *k;
    for (int i = 0; (k = sink_kind_at(i)); i++) {
        if (k->to_stdout && !strcmp(path, "-"))
            return k;
        if (!ext_listed(k->exts, ext))
            continue;
        if (k->numbered && sink_pattern_check(path, e) < 0)
            return NULL;
        return k;
    }
    /* "(use .mp4 .mkv .mov .webm, .gif, NAME%05d.png, .framemd5 .framehash, .npy, NAME%05d.exr or -)" */
    char kinds[512], shown[128];
    size_t used = 0;
    kinds[0] = '\0';
    for (int i = 0; (k = sink_kind_at(i)) && used < sizeof kinds; i++) {
        int w = snprintf(kinds + used, sizeof kinds - used, "%s%s", i == 0 ? "" : sink_kind_at(i + 1) ? ", " : " or ",
                         sink_kind_shown(k, shown, sizeof shown));
        if (w < 0)
            break;
        used += (size_t)w;
    }
    rr_fail(e, RR_EXIT_USAGE, "%s: unknown output kind (use %s)", path, kinds);
    return NULL;
}

/* "mp4, mkv, mov, webm, gif, -": the kinds that read output.KEY, in users. */
static void kinds_reading(const char *key, char *users, size_t n)
{
    size_t at = 0;
    users[0] = '\0';
    const struct sink_ops *k;
    for (int i = 0; (k = sink_kind_at(i)); i++) {
        if (!key_listed(k->keys, key))
            continue;
        if (k->to_stdout && at < n)
            at += (size_t)snprintf(users + at, n - at, "%s-", at ? ", " : "");
        for (const char *x = k->exts; *x && at < n;) {   /* "mp4 mkv" as "mp4, mkv" */
            size_t len = strcspn(x, " ");
            at += (size_t)snprintf(users + at, n - at, "%s%.*s", at ? ", " : "", (int)len, x);
            x += len + (x[len] == ' ');
        }
    }
}

void sink_warn_idle(const struct scene *sc, const char *no_output, bool hashes, FILE *f)
{
    struct rr_err quiet = { 0 };
    const struct sink_ops *kind = no_output ? NULL : sink_find(sc->output.path, &quiet);
    char value[96], where[320], users[256], key[256], by[160];
    if (!no_output && !kind)
        return;
    if (no_output)
        snprintf(by, sizeof by, "a run that writes no output (%s without -o)", no_output);
    else
        snprintf(by, sizeof by, "%s (%s)", kind->noun ? kind->noun : kind->name, sc->output.path);
    /* Without an output, the file's output section is the scene's own
     * target and its settings, which --hash and --check are documented to
     * replace with none: a scene made for a video hashes without a line. A
     * --set output.* key was given for this run, and acts on nothing. */
    if (no_output && scene_key_given(sc, "output.path", value, sizeof value, where, sizeof where) == 2)
        fprintf(f, "ripplerender: warning: --set output.path (%s) is not used by %s; -o %s writes it\n", value, by,
                sc->output.path);
    for (const char *const *k = scene_output_keys; *k; k++) {
        if ((kind && key_listed(kind->keys, *k)) || !scene_output_given(sc, *k, value, sizeof value, where, sizeof where))
            continue;
        char path[64];
        snprintf(path, sizeof path, "output.%s", *k);
        if (no_output && !scene_key_set(sc, path))
            continue;
        kinds_reading(*k, users, sizeof users);
        fprintf(f, "ripplerender: warning: %soutput.%s (%s) is not used by %s; it applies to %s\n", where, *k, value, by,
                users);
    }
    /* render.*: the pictures, which a kind that holds only the heights at
     * grid size (.npy) does not take; hashes (--hash, --check, --manifest)
     * are of the pictures. */
    int n;
    if (hashes || !kind || !kind->needs || kind->needs(&sc->output, sc) != RENDER_NEED_HEIGHTS
        || (n = scene_section_given(sc, "render", key, sizeof key, value, sizeof value, where, sizeof where)) == 0)
        return;
    char more[64] = "";
    if (n > 1)
        snprintf(more, sizeof more, " and %d more render key%s are", n - 1, n > 2 ? "s" : "");
    fprintf(f, "ripplerender: warning: %s%s (%s)%s not used by %s, which holds the heights at grid size: ignored\n",
            where, key, value, n > 1 ? more : " is", by);
}

/* The output's kind for sink_open and sink_check, with q filled from p and
 * the scene, after the refusals common to every kind (an atlas, bit_depth,
 * alpha), and the libraries it calls loaded (sink_load_libav: a broken one
 * ends the run here); NULL with e filled. Allocates nothing. */
static const struct sink_ops *settings(const struct scene *sc, const struct sink_params *p, struct sink_params *q,
                                char *float_modes, size_t n, struct rr_err *e)
{
    const struct output_config *o = &sc->output;
    const struct sink_ops *kind = sink_find(o->path, e);
    if (!kind)
        return NULL;
    if (p->width <= 0 || p->height <= 0 || p->fps <= 0 || p->frames < 0) {
        rr_fail(e, RR_EXIT_USAGE, "%s: bad output parameters %dx%d at %g fps", o->path, p->width,
                p->height, p->fps);
        return NULL;
    }
    if (sc->render.atlas[0] && sink_atlas_check(kind, sc, p, e) < 0)
        return NULL;
    *q = *p;
    q->alpha = sc->render.alpha;
    q->atlas[0] = sc->render.atlas[0];
    q->atlas[1] = sc->render.atlas[1];
    q->mode_name = render_mode_name(sc->render.mode);
    q->float_names = render_mode_float_names(sc->render.mode);
    q->float_modes = render_float_modes(float_modes, n);
    if (!kind->deep && o->bit_depth == 16) {
        rr_fail(e, RR_EXIT_USAGE,
                "output.bit_depth: 16 does not apply to %s (it is for PNG sequences, videos and .exr; use 8)",
                o->path);
        return NULL;
    }
    if (!kind->floats && o->bit_depth == 32) {
        rr_fail(e, RR_EXIT_USAGE, "output.bit_depth: 32 (float) is for .exr, not %s (use 8%s)", o->path,
                kind->deep ? " or 16" : "");
        return NULL;
    }
    if (!kind->deep && q->alpha != ALPHA_NONE) {
        rr_fail(e, RR_EXIT_USAGE,
                "render.alpha: %s has no alpha channel (use a PNG sequence, .exr, .webm, .mov or .mkv; or none)",
                o->path);
        return NULL;
    }
    sink_load_libav(kind->libav);
    return kind;
}

/* Where the libraries are linked as usual (libripple.a's users: the tests,
 * the bench), nothing to find: the program's lazyav.c defines the real one. */
__attribute__((weak)) void lazyav_use(unsigned uses, unsigned libs)
{
    (void)uses;
    (void)libs;
}

void sink_load_libav(unsigned libs)
{
    lazyav_use(LAZYAV_OUTPUT, libs);
}

#define ENV_FUSE "RIPPLERENDER_FUSE"

int sink_fuse_check(struct rr_err *e)
{
    const char *v = getenv(ENV_FUSE);
    if (!v || !*v || !strcmp(v, "auto") || !strcmp(v, "on") || !strcmp(v, "off"))
        return 0;
    return rr_fail(e, RR_EXIT_USAGE, ENV_FUSE "=%s: expected auto, on or off", v);
}

bool sink_fuses(const struct scene *sc)
{
    const char *v = getenv(ENV_FUSE);
    const bool on = v && !strcmp(v, "on"), off = v && !strcmp(v, "off");
    const struct sink_ops *k = sc->output.path && !sc->render.atlas[0] ? sink_find(sc->output.path, NULL) : NULL;
    const bool cheap = k && k->fuses && k->fuses(&sc->output)
                       && (long)sc->grid.width * sc->grid.height >= SINK_FUSE_CELLS;
    return k && !off && (on || cheap) && sc->solver.type && sc->solver.type->advance
           && scene_render_width(sc) == sc->grid.width && scene_render_height(sc) == sc->grid.height;
}

/* The resident bytes of the libraries a kind's run loads (sink_ops.libav,
 * loaded on first use by src/lazy/lazyav.c, so a run that writes no video
 * never maps them): libavcodec and libavformat with the codec libraries
 * they bring in; libavfilter with its own. */
#define LIBAV_BYTES ((uint64_t)25 << 20)
#define LIBAVFILTER_BYTES ((uint64_t)6 << 20)

uint64_t sink_bytes(const struct scene *sc, struct sink_budget b, char *what, size_t size)
{
    what[0] = '\0';
    const struct sink_ops *k = sc->output.path ? sink_find(sc->output.path, NULL) : NULL;
    if (!k)
        return 0;
    const uint64_t libs = (k->libav ? LIBAV_BYTES : 0) + (k->libav & SINK_LIBAV_FILTER ? LIBAVFILTER_BYTES : 0);
    if (sc->render.atlas[0])   /* the kind inside the atlas's wrapper, as sink_open puts it */
        k = &sink_atlas_ops;
    const int rw = scene_render_width(sc), rh = scene_render_height(sc);
    b.width = rw > 0 ? (uint64_t)rw : 0;
    b.height = rh > 0 ? (uint64_t)rh : 0;
    b.frames = sc->time.frames > 0 ? (uint64_t)sc->time.frames : 0;
    if (!k->bytes) {
        if (libs)
            snprintf(what, size, "the libav libraries it loads");
        return libs;
    }
    return budget_add(libs, k->bytes(sc, &b, what, size));
}

/* The files sc's output would write (one file, or a numbered kind's file
 * for each frame of the run, each image of an atlas), checked as opening
 * checks them before writing anything (outfile_check_target), but for an
 * existing one that only -y lets the run replace, which
 * outfile_note_existing notes instead. Creates nothing. */
static int check_targets(const struct sink_ops *kind, const struct scene *sc, const struct sink_params *p,
                         struct rr_err *e)
{
    const char *path = sc->output.path;
    bool ov = p->overwrite;
    if (kind->to_stdout)
        return 0;
    if (!kind->numbered)
        return outfile_check_target(path, ov || outfile_note_existing(path, ov), e);
    long first = p->first, end = p->first + p->frames;
    if (sc->render.atlas[0]) {
        const long per = (long)sc->render.atlas[0] * sc->render.atlas[1];
        first /= per;
        end = (end + per - 1) / per;
    }
    char name[4096];
    for (long i = first; i < end; i++) {
        if (sink_pattern_name(name, sizeof name, path, i) < 0)
            return rr_fail(e, RR_EXIT_USAGE, "%s: the name of frame %ld is too long", path, i);
        ov = ov || outfile_note_existing(name, ov);
        if (outfile_check_target(name, ov, e) < 0)
            return -1;
    }
    return 0;
}

int sink_check(const struct scene *sc, const struct sink_params *p, struct rr_err *e)
{
    struct sink_params q;
    char float_modes[128];
    const struct sink_ops *kind = settings(sc, p, &q, float_modes, sizeof float_modes, e);
    if (!kind || (kind->check && kind->check(&sc->output, &q, e) < 0))
        return -1;
    return check_targets(kind, sc, p, e);
}

int sink_open(struct sink **out, const struct scene *sc, const struct sink_params *p, struct rr_err *e)
{
    *out = NULL;
    const struct output_config *o = &sc->output;
    struct sink_params q;
    char float_modes[128];
    const struct sink_ops *kind = settings(sc, p, &q, float_modes, sizeof float_modes, e);
    if (!kind)
        return -1;
    const struct sink_ops *ops = sc->render.atlas[0] ? &sink_atlas_ops : kind;   /* the kind inside the atlas's wrapper */
    struct sink *s = calloc(1, sizeof *s);
    if (!s)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    s->ops = ops;
    s->priv = calloc(1, ops->priv_size);
    if (!s->priv) {
        free(s);
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    }
    s->needs = kind->needs(o, sc);
    if (ops->open(s->priv, o, &q, e) < 0) {
        sink_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int sink_needs(const struct sink *s)
{
    return s ? s->needs : 0;
}

int sink_write(struct sink *s, const struct frame *fr, struct rr_err *e)
{
    if (s->ops->write(s->priv, fr, e) < 0)
        return -1;
    atomic_fetch_add(&s->written, 1);
    return 0;
}

long sink_frames_done(const struct sink *s)
{
    long written = atomic_load(&s->written);
    if (!s->ops->frames_done)
        return written;
    long done = s->ops->frames_done(s->priv);
    return done < written ? done : written;
}

int sink_close(struct sink *s, struct rr_err *e)
{
    if (s->closed)
        return 0;
    if (s->close_failed)
        return rr_fail(e, RR_EXIT_RUNTIME, "output: closed again after a failed close");
    if (s->ops->close(s->priv, e) < 0) {
        s->close_failed = true;
        return -1;
    }
    s->closed = true;
    return 0;
}

void sink_free(struct sink *s)
{
    if (!s)
        return;
    if (s->priv)
        s->ops->free(s->priv);
    free(s->priv);
    free(s);
}

int sink_mux_finish(AVFormatContext *oc, struct outfile *f, const char *path, struct rr_err *e)
{
    int ret = av_write_trailer(oc);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, path, "cannot finish the file", ret);
    if (oc->pb && (ret = avio_closep(&oc->pb)) < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, path, "write failed", ret);
    return outfile_commit(f, e);
}

int sink_encode(AVCodecContext *enc, AVFormatContext *oc, AVStream *st, AVPacket *pkt, const AVFrame *frame,
                const char *path, const char *kind, atomic_long *packets, struct rr_err *e)
{
    char what[64];
    int ret = avcodec_send_frame(enc, frame);
    if (ret < 0) {
        snprintf(what, sizeof what, "the %sencoder refused a frame", kind);
        return sink_av_fail(e, RR_EXIT_RUNTIME, path, what, ret);
    }
    for (;;) {
        ret = avcodec_receive_packet(enc, pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return 0;
        if (ret < 0) {
            snprintf(what, sizeof what, "%sencoding failed", kind);
            return sink_av_fail(e, RR_EXIT_RUNTIME, path, what, ret);
        }
        if (pkt->duration == 0)
            pkt->duration = 1;
        av_packet_rescale_ts(pkt, enc->time_base, st->time_base);
        pkt->stream_index = st->index;
        ret = av_interleaved_write_frame(oc, pkt);   /* takes the packet's reference */
        if (ret < 0)
            return sink_av_fail(e, RR_EXIT_RUNTIME, path, "cannot write a packet", ret);
        if (packets)
            atomic_fetch_add(packets, 1);
    }
}

void sink_mux_free(AVFormatContext **oc)
{
    if (!*oc)
        return;
    if ((*oc)->pb)
        avio_closep(&(*oc)->pb);
    avformat_free_context(*oc);
    *oc = NULL;
}

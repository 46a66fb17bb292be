/* tunecache.c: the tuner's choices kept between runs (see tunecache.h). */
#define _GNU_SOURCE   /* mkostemp */
#include "tunecache.h"
#include "debug.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HEADER "# ripplerender tuner cache 1: the kernels' fastest ways on this CPU (any may be deleted)"
#define KEY_MAX 160

struct entry {
    char key[KEY_MAX];   /* "KERNEL WxH PASS THREADS WAYS" */
    int chosen;
};

static struct {
    pthread_mutex_t mu;
    int enabled, ready;          /* tunecache_enable called; path worked out */
    char dir[PATH_MAX], path[PATH_MAX];
    struct entry e[TUNECACHE_MAX_LINES];
    int n;
} cache = { .mu = PTHREAD_MUTEX_INITIALIZER };

void tunecache_enable(void)
{
    const char *v = getenv("RIPPLERENDER_CACHE");
    pthread_mutex_lock(&cache.mu);
    cache.enabled = !(v && !strcmp(v, "0"));
    pthread_mutex_unlock(&cache.mu);
    if (!cache.enabled)
        debug_line(DEBUG_KERNELS, "tuner cache: off (RIPPLERENDER_CACHE=0)");
}

/* The value of /proc/cpuinfo's first line starting with `field`, into out. */
static void cpuinfo_field(const char *text, const char *field, char *out, size_t size)
{
    const size_t len = strlen(field);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, field, len) || (p[len] != ' ' && p[len] != '\t' && p[len] != ':'))
            continue;
        const char *c = strchr(p, ':'), *end = strchr(p, '\n');
        if (!c || (end && c > end))
            continue;
        for (c++; *c == ' ' || *c == '\t'; c++)
            ;
        size_t n = end ? (size_t)(end - c) : strlen(c);
        n = n < size - 1 ? n : size - 1;
        memcpy(out, c, n);
        out[n] = '\0';
        return;
    }
}

/* The CPU's name for the file: model name, family and model, letters,
 * digits, '.' and '_' kept, any run of other characters one '-'. */
static void cpu_name(char *out, size_t size)
{
    char text[16384] = "", model[128] = "", family[16] = "", number[16] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    cpuinfo_field(text, "model name", model, sizeof model);
    cpuinfo_field(text, "cpu family", family, sizeof family);
    cpuinfo_field(text, "model", number, sizeof number);
    char raw[200];
    snprintf(raw, sizeof raw, "%s %s %s", model[0] ? model : "unknown", family, number);
    size_t o = 0;
    for (const char *p = raw; *p && o + 1 < size; p++) {
        const char ch = *p;
        const int keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.'
                         || ch == '_';
        if (keep)
            out[o++] = ch;
        else if (o > 0 && out[o - 1] != '-')
            out[o++] = '-';
    }
    while (o > 0 && out[o - 1] == '-')
        o--;
    out[o] = '\0';
}

/* Works out the folder and file, once. Returns 0, or -1 (no cache). */
static int ready(void)
{
    if (!cache.enabled)
        return -1;
    if (cache.ready)
        return cache.path[0] ? 0 : -1;
    cache.ready = 1;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char cpu[128];
    cpu_name(cpu, sizeof cpu);
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(cache.dir, sizeof cache.dir, "%s/ripplerender", xdg);
    else if (home && home[0] == '/')
        n = snprintf(cache.dir, sizeof cache.dir, "%s/.cache/ripplerender", home);
    else {
        debug_line(DEBUG_KERNELS, "tuner cache: off (neither XDG_CACHE_HOME nor HOME is an absolute path)");
        return -1;
    }
    if (n < 0 || (size_t)n >= sizeof cache.dir
        || snprintf(cache.path, sizeof cache.path, "%s/tuner-%s.txt", cache.dir, cpu) >= (int)sizeof cache.path) {
        cache.path[0] = '\0';
        return -1;
    }
    return 0;
}

/* Parses one line into *en. Returns 0, or -1 when it is not a tuner line. */
static int parse_line(const char *line, struct entry *en)
{
    char kernel[64], pass[16];
    int w, h, threads, ways, chosen, end = -1;
    if (sscanf(line, "%63s %dx%d %15s %d %d %d%n", kernel, &w, &h, pass, &threads, &ways, &chosen, &end) != 7
        || line[end] != '\0' || w < 1 || h < 1 || threads < 1 || threads > 4096 || ways < 1 || ways > 64
        || chosen < 0 || chosen >= ways)
        return -1;
    int steps = 0, used = -1;
    if (strcmp(pass, "step") && (sscanf(pass, "pass%d%n", &steps, &used) != 1 || pass[used] != '\0' || steps < 2))
        return -1;
    if (snprintf(en->key, sizeof en->key, "%s %dx%d %s %d %d", kernel, w, h, pass, threads, ways)
        >= (int)sizeof en->key)
        return -1;
    en->chosen = chosen;
    return 0;
}

/* (Re)reads the file into cache.e. A missing file is an empty cache; one
 * that is unreadable, too large or without the header is ignored (empty). */
static void load(void)
{
    cache.n = 0;
    int fd = open(cache.path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            debug_line(DEBUG_KERNELS, "tuner cache: %s: ignored: %s", cache.path, strerror(errno));
        return;
    }
    static char text[TUNECACHE_MAX_BYTES + 1];
    struct stat st;
    ssize_t got = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= TUNECACHE_MAX_BYTES)
        got = read(fd, text, TUNECACHE_MAX_BYTES + 1);
    else
        got = -2;
    close(fd);
    if (got < 0 || got > TUNECACHE_MAX_BYTES) {
        debug_line(DEBUG_KERNELS, "tuner cache: %s: ignored: %s", cache.path,
                   got == -1 ? strerror(errno) : "not a regular file of at most 64 KiB");
        return;
    }
    text[got] = '\0';
    if (memchr(text, '\0', (size_t)got)) {
        debug_line(DEBUG_KERNELS, "tuner cache: %s: ignored: not text", cache.path);
        return;
    }
    char *line = text, *next;
    size_t hl = strlen(HEADER);
    if (strncmp(text, HEADER, hl) || text[hl] != '\n') {
        debug_line(DEBUG_KERNELS, "tuner cache: %s: ignored: no header line", cache.path);
        return;
    }
    int dropped = 0, lines = 0;
    for (line = text + hl + 1; *line; line = next) {
        next = strchr(line, '\n');
        if (!next) {   /* a last line without its newline: cut short */
            dropped++;
            break;
        }
        *next++ = '\0';
        if (++lines > TUNECACHE_MAX_LINES) {
            debug_line(DEBUG_KERNELS, "tuner cache: %s: ignored: more than %d lines", cache.path,
                       TUNECACHE_MAX_LINES);
            cache.n = 0;
            return;
        }
        struct entry en;
        if (parse_line(line, &en) < 0) {
            dropped++;
            continue;
        }
        int i = 0;
        while (i < cache.n && strcmp(cache.e[i].key, en.key))
            i++;
        cache.e[i] = en;   /* a key twice: the later line */
        cache.n += i == cache.n;
    }
    if (dropped)
        debug_line(DEBUG_KERNELS, "tuner cache: %s: %d line%s not understood, dropped", cache.path, dropped,
                   dropped == 1 ? "" : "s");
}

static int make_key(char *key, const char *kernel, int w, int h, const char *pass, int threads, int ways)
{
    return snprintf(key, KEY_MAX, "%s %dx%d %s %d %d", kernel, w, h, pass, threads, ways) < KEY_MAX ? 0 : -1;
}

static int find(const char *key)
{
    for (int i = 0; i < cache.n; i++)
        if (!strcmp(cache.e[i].key, key))
            return i;
    return -1;
}

int tunecache_lookup(const char *kernel, int w, int h, const char *pass, int threads, int ways)
{
    char key[KEY_MAX];
    if (!kernel || make_key(key, kernel, w, h, pass, threads, ways) < 0)
        return -1;
    pthread_mutex_lock(&cache.mu);
    int chosen = -1;
    if (ready() == 0) {
        static int loaded;
        if (!loaded) {
            loaded = 1;
            load();
        }
        int i = find(key);
        chosen = i >= 0 && cache.e[i].chosen < ways ? cache.e[i].chosen : -1;
    }
    pthread_mutex_unlock(&cache.mu);
    return chosen;
}

/* mkdir -p of cache.dir (mode 0700, as the XDG base directory spec asks of
 * the folders it makes). Returns 0, or -1 with errno set. */
static int make_dir(void)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", cache.dir);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        const char c = *s;
        *s = '\0';
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
            return -1;
        *s = c;
        if (c == '\0')
            return 0;
    }
}

/* Writes cache.e to a temporary beside the file and renames it over the
 * file, with the catchable signals held meanwhile, so that neither a
 * reader nor an interrupt finds half a file or leaves the temporary.
 * Returns 0, or -1 with errno set (the temporary removed). */
static int write_file(void)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", cache.path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (make_dir() < 0)
        return -1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    sigset_t before;
    const int had_xfsz = sigpending(&before) == 0 && sigismember(&before, SIGXFSZ);
    int rc = -1, fd = mkostemp(tmp, O_CLOEXEC);
    if (fd >= 0) {
        errno = 0;
        FILE *f = fdopen(fd, "w");
        int ok = f != NULL && fprintf(f, "%s\n", HEADER) > 0;
        for (int i = 0; ok && i < cache.n; i++)
            ok = fprintf(f, "%s %d\n", cache.e[i].key, cache.e[i].chosen) > 0;
        if (f ? fclose(f) != 0 : close(fd) != 0)
            ok = 0;
        if (!ok && errno == 0)
            errno = EIO;
        rc = ok && rename(tmp, cache.path) == 0 ? 0 : -1;
        if (rc < 0) {
            int saved = errno;
            unlink(tmp);
            errno = saved;
        }
    }
    /* A file size limit (ulimit -f) the write ran into raised SIGXFSZ, held
     * here: it was the cache's, not the run's, so it goes unanswered. */
    sigset_t pending, xfsz;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    if (!had_xfsz && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ))
        sigtimedwait(&xfsz, NULL, &(struct timespec){ 0 });
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void tunecache_store(const char *kernel, int w, int h, const char *pass, int threads, int ways, int chosen)
{
    char key[KEY_MAX];
    if (!kernel || chosen < 0 || chosen >= ways || make_key(key, kernel, w, h, pass, threads, ways) < 0)
        return;
    pthread_mutex_lock(&cache.mu);
    if (ready() == 0) {
        load();   /* what other runs wrote since */
        int i = find(key);
        if (i < 0 || cache.e[i].chosen != chosen) {
            if (i < 0 && cache.n == TUNECACHE_MAX_LINES) {   /* full: the oldest line goes */
                memmove(cache.e, cache.e + 1, (size_t)(cache.n - 1) * sizeof *cache.e);
                cache.n--;
            }
            if (i < 0) {
                i = cache.n++;
                snprintf(cache.e[i].key, sizeof cache.e[i].key, "%s", key);
            }
            cache.e[i].chosen = chosen;
            if (write_file() < 0)
                debug_line(DEBUG_KERNELS, "tuner cache: %s: not written: %s", cache.path, strerror(errno));
            else
                debug_line(DEBUG_KERNELS, "tuner cache: %s: remembered %s -> way %d", cache.path, key, chosen);
        }
    }
    pthread_mutex_unlock(&cache.mu);
}

const char *tunecache_path(void)
{
    pthread_mutex_lock(&cache.mu);
    const char *p = ready() == 0 ? cache.path : NULL;
    pthread_mutex_unlock(&cache.mu);
    return p;
}

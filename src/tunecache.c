/* tunecache.c: the tuner's choices kept between runs (see tunecache.h). */
#include "tunecache.h"
#include "cachefile.h"
#include "debug.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "# ripplerender tuner cache 1: the kernels' fastest ways on this CPU (any may be deleted)"
#define KEY_MAX 160

struct entry {
    char key[KEY_MAX];   /* "KERNEL WxH PASS THREADS WAYS" */
    int chosen;
};

static struct {
    pthread_mutex_t mu;
    int enabled, ready;          /* tunecache_enable called; path worked out */
    char path[PATH_MAX];
    struct entry e[TUNECACHE_MAX_LINES];
    int n;
    char text[TUNECACHE_MAX_BYTES + 1];   /* the file's text, read or to write */
} cache = { .mu = PTHREAD_MUTEX_INITIALIZER };

void tunecache_enable(void)
{
    pthread_mutex_lock(&cache.mu);
    cache.enabled = cachefile_on();
    pthread_mutex_unlock(&cache.mu);
    if (!cache.enabled)
        debug_line(DEBUG_KERNELS, "tuner cache: off (RIPPLERENDER_CACHE=0)");
}

/* Works out the file, once. Returns 0, or -1 (no cache). */
static int ready(void)
{
    if (!cache.enabled)
        return -1;
    if (cache.ready)
        return cache.path[0] ? 0 : -1;
    cache.ready = 1;
    char dir[PATH_MAX], cpu[128];
    if (cachefile_dir(dir, sizeof dir) < 0) {
        debug_line(DEBUG_KERNELS, "tuner cache: off (neither XDG_CACHE_HOME nor HOME is an absolute path)");
        return -1;
    }
    cachefile_cpu(cpu, sizeof cpu);
    if (snprintf(cache.path, sizeof cache.path, "%s/tuner-%s.txt", dir, cpu) >= (int)sizeof cache.path) {
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
static void parse(char *text, size_t got);

static void load(void)
{
    cache.n = 0;
    char why[96];
    long got = cachefile_read(cache.path, cache.text, TUNECACHE_MAX_BYTES, why, sizeof why);
    if (got < 0) {
        if (why[0])
            debug_line(DEBUG_KERNELS, "tuner cache: %s: ignored: %s", cache.path, why);
        return;
    }
    parse(cache.text, (size_t)got);
}

/* The file's text (got bytes) into cache.e, or nothing when it is not a
 * tuner cache. */
static void parse(char *text, size_t got)
{
    if (memchr(text, '\0', got)) {
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

/* Writes cache.e as the file, whole (cachefile_write). Returns 0, or -1
 * with errno set. */
static int write_file(void)
{
    size_t len = 0;
    int n = snprintf(cache.text, sizeof cache.text, "%s\n", HEADER);
    for (int i = 0; n >= 0 && (size_t)n < sizeof cache.text - len && i < cache.n; i++) {
        len += (size_t)n;
        n = snprintf(cache.text + len, sizeof cache.text - len, "%s %d\n", cache.e[i].key, cache.e[i].chosen);
    }
    if (n < 0 || (size_t)n >= sizeof cache.text - len) {
        errno = EFBIG;
        return -1;
    }
    return cachefile_write(cache.path, cache.text, len + (size_t)n);
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

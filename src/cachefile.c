/* cachefile.c: the caches' folder, the CPU's name and whole writes (see cachefile.h). */
#define _GNU_SOURCE   /* mkostemp, getdents64 */
#include "cachefile.h"
#include "rr_err.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

bool cachefile_on(void)
{
    const char *v = getenv("RIPPLERENDER_CACHE");
    return !(v && !strcmp(v, "0"));
}

int cachefile_check_env(struct rr_err *e)
{
    const char *v = getenv("RIPPLERENDER_CACHE");
    if (v && v[0] && strcmp(v, "0") && strcmp(v, "1"))
        return rr_fail(e, RR_EXIT_USAGE, "RIPPLERENDER_CACHE=%s: expected 0 (the caches off) or 1 (on)", v);
    return 0;
}

int cachefile_dir(char *dir, size_t n)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int len = -1;
    if (xdg && xdg[0] == '/')
        len = snprintf(dir, n, "%s/ripplerender", xdg);
    else if (home && home[0] == '/')
        len = snprintf(dir, n, "%s/.cache/ripplerender", home);
    if (len < 0 || (size_t)len >= n) {
        if (n)
            dir[0] = '\0';
        return -1;
    }
    return 0;
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

void cachefile_cpu(char *out, size_t size)
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

/* mkdir -p of path's folders (all but its last component), mode 0700.
 * Returns 0, or -1 with errno set. */
static int make_parents(const char *path)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return 0;
}

/* How old a temporary of another host must be to be taken for abandoned: a
 * write takes milliseconds; a day leaves room for the clocks of farm nodes
 * sharing the folder over NFS (a file's time there is the server's). */
#define STALE_SECONDS (24L * 60 * 60)

/* Whether s is the six letters and digits mkostemp puts in place of its
 * template's last six characters. */
static bool temp_letters(const char *s)
{
    for (int i = 0; i < 6; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
            return false;
    return s[6] == '\0';
}

/* This host's name, as temporaries' names carry it: "" when it is unknown or
 * holds a '/' (then no temporary is taken for this host's). */
static void host_name(char *out, size_t n)
{
    if (gethostname(out, n - 1) < 0 || strchr(out, '/'))
        out[0] = '\0';
    out[n - 1] = '\0';
}

/* Whether the file `name`, of time mtime, is a temporary of the cache file
 * `base` (its last component) that no write will rename: BASE.tmp-PID-HOST-
 * and mkostemp's six characters (cachefile_write's) of this host whose
 * process is gone (however old, a live one's is kept), or of another host
 * and a day old. BASE, a dot and six letters (the form older versions
 * wrote) is never taken: "tuner-....txt.backup" is as likely a user's. */
static bool abandoned(const char *name, const char *base, size_t blen, const char *host, time_t mtime, time_t now)
{
    if (strncmp(name, base, blen) || name[blen] != '.')
        return false;
    const char *r = name + blen + 1;
    const bool old = now - mtime > STALE_SECONDS;
    if (strncmp(r, "tmp-", 4) || r[4] < '0' || r[4] > '9')
        return false;
    char *end;
    const long pid = strtol(r + 4, &end, 10);
    const char *h = end + 1;
    const size_t hl = *end == '-' ? strlen(h) : 0;
    if (hl < 7 || h[hl - 7] != '-' || !temp_letters(h + hl - 6))
        return false;
    if (!host[0] || strlen(host) != hl - 7 || strncmp(h, host, hl - 7))
        return old;
    return pid > 0 && pid <= INT_MAX && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* Removes the abandoned temporaries of the cache file path beside it: a
 * write killed before its rename (SIGKILL, a crash, a power cut) leaves
 * one. Allocates nothing (getdents64 into the stack, not opendir), and any
 * failure leaves the files as they are. A writer in another process
 * namespace of the same host name might lose its write (its rename fails,
 * silently, as any cache write may). */
static void sweep(const char *path)
{
    char d[PATH_MAX], host[HOST_NAME_MAX + 1];
    const char *slash = strrchr(path, '/');
    if (!slash || snprintf(d, sizeof d, "%.*s", (int)(slash - path), path) >= (int)sizeof d)
        return;
    const int fd = open(slash > path ? d : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    host_name(host, sizeof host);
    const char *base = slash + 1;
    const size_t blen = strlen(base);
    const time_t now = time(NULL);
    char buf[4096] __attribute__((aligned(__alignof__(struct dirent64))));
    for (ssize_t n; (n = getdents64(fd, buf, sizeof buf)) > 0;) {
        for (ssize_t at = 0; at < n;) {
            const struct dirent64 *e = (const struct dirent64 *)(const void *)(buf + at);
            at += e->d_reclen;
            struct stat st;
            if (!strncmp(e->d_name, base, blen) && fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
                && S_ISREG(st.st_mode) && abandoned(e->d_name, base, blen, host, st.st_mtime, now))
                unlinkat(fd, e->d_name, 0);
        }
    }
    close(fd);
}

long cachefile_read(const char *path, char *buf, size_t max, char *why, size_t why_size)
{
    why[0] = '\0';
    sweep(path);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT)
            snprintf(why, why_size, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    size_t got = 0;
    const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= max;
    while (regular && got <= max) {
        ssize_t n = read(fd, buf + got, max + 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            snprintf(why, why_size, "%s", strerror(errno));
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!why[0] && (!regular || got > max))   /* not regular, too large, or grew */
        snprintf(why, why_size, "not a regular file of at most %zu KiB", max / 1024);
    if (why[0])
        return -1;
    buf[got] = '\0';
    return (long)got;
}

int cachefile_write(const char *path, const void *data, size_t len)
{
    /* The temporary's name says which host and process wrote it, so that a
     * later run may tell when it is abandoned (sweep); its last six
     * characters are mkostemp's template, which it replaces. */
    char tmp[PATH_MAX], host[HOST_NAME_MAX + 1];
    host_name(host, sizeof host);
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%s-XXXXXX", path, (long)getpid(), host) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (make_parents(path) < 0)
        return -1;
    sweep(path);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    sigset_t before;
    const int had_xfsz = sigpending(&before) == 0 && sigismember(&before, SIGXFSZ);
    int rc = -1, fd = mkostemp(tmp, O_CLOEXEC);
    if (fd >= 0) {
        const char *p = data;
        size_t left = len;
        int ok = 1;
        while (ok && left > 0) {
            ssize_t w = write(fd, p, left);
            if (w < 0 && errno == EINTR)
                continue;
            ok = w > 0;
            if (ok)
                p += w, left -= (size_t)w;
            else if (w == 0)
                errno = EIO;
        }
        int saved = errno;
        if (close(fd) != 0 && ok)
            ok = 0, saved = errno;
        rc = ok && rename(tmp, path) == 0 ? 0 : -1;
        if (rc < 0) {
            if (ok)
                saved = errno;
            unlink(tmp);
            errno = saved;
        }
    }
    /* A file size limit (ulimit -f) the write ran into raised SIGXFSZ, held
     * here: it was the cache's, not the run's, so it goes unanswered. */
    sigset_t pending, xfsz;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    const int saved = errno;
    if (!had_xfsz && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ))
        sigtimedwait(&xfsz, NULL, &(struct timespec){ 0 });
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return rc;
}

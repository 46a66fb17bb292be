/* outfile.c: atomic output files (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEMP_SUFFIX ".tmp"

/* The temporary files in progress, for outfile_remove_temps. Entries are
 * changed only with SIGINT and SIGTERM blocked in this thread, so a handler
 * that interrupts this thread never sees a half-linked entry; the path is
 * written before the entry is published. */
struct live_temp {
    struct live_temp *next, *prev;
    char path[];
};
static struct live_temp *volatile live_head;

void outfile_hold_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

void outfile_release_signals(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void live_add(struct live_temp *t)
{
    sigset_t old;
    outfile_hold_signals(&old);
    t->prev = NULL;
    t->next = live_head;
    if (t->next)
        t->next->prev = t;
    live_head = t;
    outfile_release_signals(&old);
}

static void live_remove(struct live_temp *t)
{
    sigset_t old;
    outfile_hold_signals(&old);
    if (t->prev)
        t->prev->next = t->next;
    else
        live_head = t->next;
    if (t->next)
        t->next->prev = t->prev;
    outfile_release_signals(&old);
}

int outfile_remove_temps(void)
{
    int n = 0;
    for (struct live_temp *t = live_head; t; t = t->next)
        n += unlink(t->path) == 0;
    return n;
}

int outfile_check_target(const char *target, bool overwrite, struct rr_err *e)
{
    struct stat st;
    if (!target || !*target)
        return rr_fail(e, RR_EXIT_USAGE, "output: empty path");
    size_t n = strlen(target);
    if (target[n - 1] == '/')
        return rr_fail(e, RR_EXIT_USAGE, "%s: is a directory name, not a file name", target);
    if (stat(target, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: is a directory", target);
        /* A device, FIFO or socket (/dev/full, /dev/stdout): a rename would
         * replace the special file itself, so only regular files are targets. */
        if (!S_ISREG(st.st_mode))
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: is not a regular file (outputs are written to a "
                           "temporary file and renamed into place)", target);
        if (!overwrite)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: already exists (use -y to replace it)", target);
    } else if (errno != ENOENT) {
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: %s", target, strerror(errno));
    }
    /* The directory must exist: say so plainly rather than "No such file". */
    const char *slash = strrchr(target, '/');
    if (slash) {
        size_t dl = slash == target ? 1 : (size_t)(slash - target);
        char *dir = malloc(dl + 1);
        if (!dir)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", target);
        memcpy(dir, target, dl);
        dir[dl] = '\0';
        int r = stat(dir, &st);
        int saved = errno;
        if (r != 0 || !S_ISDIR(st.st_mode)) {
            r = rr_fail(e, RR_EXIT_RUNTIME, "%s: the directory %s %s", target, dir,
                        r != 0 ? (saved == ENOENT ? "does not exist" : strerror(saved))
                               : "is not a directory");
            free(dir);
            return r;
        }
        free(dir);
    }
    return 0;
}

int outfile_begin(struct outfile *of, const char *target, bool overwrite, struct rr_err *e)
{
    memset(of, 0, sizeof *of);
    if (outfile_check_target(target, overwrite, e) < 0)
        return -1;
    const char *slash = strrchr(target, '/');
    size_t dl = slash ? (size_t)(slash - target + 1) : 0;
    const char *base = target + dl;
    size_t len = strlen(target) + sizeof "/." + sizeof ".XXXXXX" + sizeof TEMP_SUFFIX;
    struct live_temp *live = malloc(sizeof *live + len);
    char *copy = strdup(target);
    if (!live || !copy) {
        free(live);
        free(copy);
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", target);
    }
    char *temp = live->path;
    snprintf(temp, len, "%.*s.%s.XXXXXX" TEMP_SUFFIX, (int)dl, target, base);
    /* Listed before it exists, so that no signal finds it unlisted. */
    live_add(live);
    int fd = mkstemps(temp, (int)strlen(TEMP_SUFFIX));
    if (fd < 0) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot create a temporary file beside it: %s", target,
                strerror(errno));
        live_remove(live);
        free(live);
        free(copy);
        return -1;
    }
    /* mkstemps makes 0600; give the final file the usual 0666 & ~umask. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    close(fd);
    of->target = copy;
    of->temp = temp;
    of->live = live;
    of->overwrite = overwrite;
    return 0;
}

const char *outfile_temp_path(const struct outfile *of)
{
    return of->temp;
}

int outfile_move(const char *temp, const char *target, bool overwrite, struct rr_err *e)
{
    if (overwrite) {
        if (rename(temp, target) != 0)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot move the finished file into place: %s",
                           target, strerror(errno));
        return 0;
    }
    /* link() fails with EEXIST instead of replacing a file that appeared
     * while we wrote: without -y nothing existing is ever overwritten. */
    if (link(temp, target) != 0) {
        if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == ENOSYS) {
            /* A file system without hard links (FAT, some FUSE mounts): fall
             * back to check-then-rename, which leaves only a tiny race. */
            struct stat st;
            if (lstat(target, &st) == 0)
                return rr_fail(e, RR_EXIT_RUNTIME, "%s: already exists (use -y to replace it)", target);
            if (rename(temp, target) != 0)
                return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot move the finished file into place: %s",
                               target, strerror(errno));
            return 0;
        }
        if (errno == EEXIST)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: already exists (use -y to replace it)", target);
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot move the finished file into place: %s", target,
                       strerror(errno));
    }
    unlink(temp);
    return 0;
}

int outfile_commit(struct outfile *of, struct rr_err *e)
{
    if (!of->temp)
        return rr_fail(e, RR_EXIT_RUNTIME, "output: no temporary file to commit");
    int r = outfile_move(of->temp, of->target, of->overwrite, e);
    outfile_abort(of);   /* after a successful move the temp name is already gone */
    return r;
}

void outfile_abort(struct outfile *of)
{
    if (!of)
        return;
    if (of->temp)
        unlink(of->temp);
    if (of->live) {
        live_remove(of->live);
        free(of->live);    /* holds of->temp */
    }
    free(of->target);
    of->temp = NULL;
    of->live = NULL;
    of->target = NULL;
}

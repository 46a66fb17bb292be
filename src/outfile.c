/* outfile.c: the output policy and atomic output files (see outfile.h). */
#define _GNU_SOURCE   /* O_TMPFILE */
#include "outfile.h"
#include "sink.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TEMP_SUFFIX ".tmp"
#define TEMP_RANDOM 6          /* the XXXXXX of ".NAME.XXXXXX.tmp" */

const int outfile_stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU };
const int outfile_n_stop_signals = (int)(sizeof outfile_stop_signals / sizeof outfile_stop_signals[0]);

/* Named temporary files in progress, for outfile_remove_temps. Entries are
 * changed only with the stop signals blocked in this thread, so a handler
 * that interrupts this thread never sees a half-linked entry; the path is
 * written before the entry is published. */
struct live_temp {
    struct live_temp *next, *prev;
    char path[];
};
static struct live_temp *volatile live_head;

/* Folders outfile_begin made (deepest last), for outfile_remove_made_dirs;
 * appended to with the stop signals blocked, never freed. */
#define MAX_MADE 64
static char *made_dirs[MAX_MADE];
static volatile int n_made;

/* Folders this run writes temporary files in, each held with a shared flock
 * for the whole run (so that another run does not take our temporary files
 * for stale ones). */
#define MAX_LOCKED 16
static struct { dev_t dev; ino_t ino; int fd; } locked[MAX_LOCKED];
static int n_locked;

/* Guards the three lists above: files are begun and committed on more than
 * one thread (a PNG sequence's frames on the pipeline's writer, checkpoints
 * on the frame loop's, a finished video segment on a thread of its own).
 * A named temporary file and a folder for the outputs are made with it held
 * (and listed before it is let go), so that outfile_remove_temps, which
 * takes it for good, finds every one: none can appear after it looked while
 * another thread goes on until the exit. Always taken with the stop signals
 * held in the taking thread, so the handler that calls
 * outfile_remove_temps never interrupts its own thread holding it. */
static pthread_mutex_t lists_lock = PTHREAD_MUTEX_INITIALIZER;

void outfile_hold_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < outfile_n_stop_signals; i++)
        sigaddset(&set, outfile_stop_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

void outfile_release_signals(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Lists path, with lists_lock held (and the stop signals). */
static struct live_temp *live_add_locked(const char *path)
{
    struct live_temp *t = malloc(sizeof *t + strlen(path) + 1);
    if (!t)
        return NULL;
    strcpy(t->path, path);
    t->prev = NULL;
    t->next = live_head;
    if (t->next)
        t->next->prev = t;
    live_head = t;
    return t;
}

static void live_remove(struct live_temp *t)
{
    sigset_t old;
    outfile_hold_signals(&old);
    pthread_mutex_lock(&lists_lock);
    if (t->prev)
        t->prev->next = t->next;
    else
        live_head = t->next;
    if (t->next)
        t->next->prev = t->prev;
    pthread_mutex_unlock(&lists_lock);
    outfile_release_signals(&old);
    free(t);
}

void outfile_remove_temps(void)
{
    /* Taken and never let go: the process is about to exit, and no other
     * thread may make a temporary file or a folder after the walk below. */
    pthread_mutex_lock(&lists_lock);
    for (struct live_temp *t = live_head; t; t = t->next)
        unlink(t->path);
    for (int i = n_made - 1; i >= 0; i--)
        rmdir(made_dirs[i]);
}

void outfile_remove_made_dirs(void)
{
    for (int i = n_made - 1; i >= 0; i--)
        rmdir(made_dirs[i]);
}

/* The folder part of path ("." when none), malloc'd; NULL when out of memory. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

int outfile_target_path(const char *name, char *out)
{
    char pre[PATH_MAX];
    size_t cut = strlen(name);
    if (cut >= sizeof pre)
        return -1;
    for (;;) {   /* the longest part that resolves: cut at a '/', or the whole */
        snprintf(pre, sizeof pre, "%.*s", (int)cut, name);
        if (realpath(cut ? pre : name[0] == '/' ? "/" : ".", out))
            break;
        if (cut == 0)
            return -1;
        while (cut > 0 && name[--cut] != '/')
            ;
    }
    size_t o = strlen(out);
    for (const char *c = name + cut; *c;) {
        const size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            while (o > 1 && out[--o] != '/')
                ;
            out[o = o ? o : 1] = '\0';
        } else if (n && !(n == 1 && c[0] == '.')) {
            if (o + 1 + n >= PATH_MAX)
                return -1;
            o += (size_t)snprintf(out + o, PATH_MAX - o, "%s%.*s", o > 1 ? "/" : "", (int)n, c);
        }
        c += n + (c[n] == '/');
    }
    return 0;
}

/* Whether path has a ".." component. */
static bool goes_up(const char *path)
{
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return true;
        p += n;
        p += *p == '/';
    }
    return false;
}

static int oom(struct rr_err *e, const char *path)
{
    return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", path);
}

/* The file a target names: the target itself, or where its symbolic link
 * leads (written through, as ffmpeg does). A link to nothing is refused.
 * *out is malloc'd. */
static int follow_link(const char *target, char **out, struct rr_err *e)
{
    struct stat st;
    *out = NULL;
    if (lstat(target, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *real = realpath(target, NULL);
        struct stat to_st;
        /* A link the kernel follows to a file of no path (/proc/self/fd/1
         * of a pipe or socket, "pipe:[N]"): check_real refuses it by its
         * type, as it does a FIFO. */
        if (!real && errno == ENOENT && stat(target, &to_st) == 0)
            return (*out = strdup(target)) ? 0 : oom(e, target);
        if (!real) {
            int err = errno;
            char to[PATH_MAX];
            ssize_t n = readlink(target, to, sizeof to - 1);
            to[n < 0 ? 0 : n] = '\0';
            if (err == ENOENT)
                return rr_fail(e, RR_EXIT_RUNTIME, "%s: is a symbolic link to %s, which does not exist "
                               "(outputs are written through links, not into missing folders)", target, to);
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: %s", target, strerror(err));
        }
        *out = real;
        return 0;
    }
    /* Through a folder the run would make and back (NAME/..): the file
     * beside it, as the kernel will find it once NAME is made. */
    char up[PATH_MAX];
    if (goes_up(target) && outfile_target_path(target, up) == 0)
        return (*out = strdup(up)) ? 0 : oom(e, target);
    return (*out = strdup(target)) ? 0 : oom(e, target);
}

static void lock_and_clean(const char *dir);

/* The policy on the (link-followed) file `real` that `target` names. */
static int check_real(const char *target, const char *real, bool overwrite, struct rr_err *e)
{
    struct stat st;
    if (stat(real, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: is a directory", target);
        /* A device, FIFO or socket (/dev/full): a rename would replace the
         * special file itself, so only regular files are targets. */
        if (!S_ISREG(st.st_mode))
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: is not a regular file (outputs are written to a "
                           "temporary file and renamed into place)", target);
        if (!overwrite)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: already exists (use -y to replace it)", target);
        /* -y replaces a file as its owner would with ffmpeg: the new file
         * takes the old one's mode, and what a rename cannot keep is refused. */
        if (st.st_uid != geteuid())
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: belongs to another user (uid %u); not replaced", target,
                           (unsigned)st.st_uid);
        if (!(st.st_mode & S_IWUSR))
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: is read-only; not replaced", target);
        if (st.st_nlink > 1) {
            /* One link may be ours: the old file outfile_keep_old kept beside
             * it, left by a SIGKILL before the move. Stale temporaries are
             * removed first (where no other run writes in the folder). */
            char *dir = dir_of(real);
            if (!dir)
                return oom(e, target);
            lock_and_clean(dir);
            free(dir);
            if (stat(real, &st) == 0 && st.st_nlink > 1)
                return rr_fail(e, RR_EXIT_RUNTIME, "%s: has %lu hard links; replacing it would break them", target,
                               (unsigned long)st.st_nlink);
        }
        return 0;
    } else if (errno != ENOENT && errno != ENOTDIR) {
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: %s", target, strerror(errno));
    }
    /* Missing: the nearest existing folder above must be a folder (the
     * missing ones are made when the run writes). */
    char *dir = dir_of(real);
    if (!dir)
        return oom(e, target);
    int r = 0;
    for (;;) {
        if (stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                r = rr_fail(e, RR_EXIT_RUNTIME, "%s: %s is not a directory", target, dir);
            break;
        }
        if (errno != ENOENT && errno != ENOTDIR) {
            r = rr_fail(e, RR_EXIT_RUNTIME, "%s: the directory %s: %s", target, dir, strerror(errno));
            break;
        }
        char *up = dir_of(dir);
        if (!up) {
            r = oom(e, target);
            break;
        }
        if (!strcmp(up, dir)) {
            free(up);
            break;
        }
        free(dir);
        dir = up;
    }
    free(dir);
    return r;
}

static char existing[4096];

bool outfile_note_existing(const char *target, bool overwrite)
{
    struct stat st;
    if (overwrite || stat(target, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    if (!existing[0])
        snprintf(existing, sizeof existing, "%s", target);
    return true;
}

const char *outfile_existing(void)
{
    return existing[0] ? existing : NULL;
}

int outfile_check_target(const char *target, bool overwrite, struct rr_err *e)
{
    if (!target || !*target)
        return rr_fail(e, RR_EXIT_USAGE, "output: empty path");
    if (target[strlen(target) - 1] == '/')
        return rr_fail(e, RR_EXIT_USAGE, "%s: is a directory name, not a file name", target);
    char *real;
    if (follow_link(target, &real, e) < 0)
        return -1;
    int r = check_real(target, real, overwrite, e);
    free(real);
    return r;
}

FILE *outfile_fopen_input(const char *path, bool regular_only)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0)
        return NULL;
    int err = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : regular_only && !S_ISREG(st.st_mode) ? EINVAL : 0;
    if (!err && S_ISFIFO(st.st_mode)) {
        /* Until the writer sends something, or goes (POLLHUP), or a signal. */
        struct pollfd p = { .fd = fd, .events = POLLIN };
        err = poll(&p, 1, -1) < 0 ? errno : 0;
    }
    if (!err && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        err = errno;
    FILE *f = err ? NULL : fdopen(fd, "rb");
    if (!f) {
        err = err ? err : errno;
        close(fd);
        errno = err;
    }
    return f;
}

/* mkdir -p of dir, recording what it made. */
static int make_dirs(const char *target, const char *dir, struct rr_err *e)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : rr_fail(e, RR_EXIT_RUNTIME, "%s: %s is not a directory", target, dir);
    char *up = dir_of(dir);
    if (!up)
        return oom(e, target);
    int r = strcmp(up, dir) ? make_dirs(target, up, e) : 0;
    free(up);
    if (r < 0)
        return -1;
    char *copy = n_made < MAX_MADE ? strdup(dir) : NULL;   /* beyond MAX_MADE: made, not recorded */
    if (n_made < MAX_MADE && !copy)
        return oom(e, target);
    /* Made and recorded under lists_lock (outfile_remove_temps). */
    sigset_t old;
    outfile_hold_signals(&old);
    pthread_mutex_lock(&lists_lock);
    int err = mkdir(dir, 0777) == 0 ? 0 : errno;
    if (!err && copy && n_made < MAX_MADE) {
        made_dirs[n_made] = copy;
        n_made = n_made + 1;
        copy = NULL;
    }
    pthread_mutex_unlock(&lists_lock);
    outfile_release_signals(&old);
    free(copy);
    if (err == EEXIST)   /* made meanwhile by someone else: not ours to remove */
        return 0;
    if (err)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot make the directory %s: %s", target, dir, strerror(err));
    return 0;
}

/* Whether name is ".NAME.XXXXXX.tmp", the naming of our temporary files,
 * with NAME ending in one of our outputs' extensions: an output kind's
 * (the sinks' table) or the probes', checkpoints' and manifest's (a tool's
 * own ".notes.Ab12Cd.tmp" is not ours to remove). */
static bool is_our_temp(const char *name)
{
    static const char *const exts[] = { ".csv", ".json" };
    size_t n = strlen(name), tail = 1 + TEMP_RANDOM + strlen(TEMP_SUFFIX);
    if (name[0] != '.' || n < 2 + tail || strcmp(name + n - strlen(TEMP_SUFFIX), TEMP_SUFFIX) != 0)
        return false;
    const char *r = name + n - tail;
    bool ext = sink_ext_ends(name + 1, (size_t)(r - name) - 1);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t el = strlen(exts[i]);
        ext |= (size_t)(r - name) > el && strncasecmp(r - el, exts[i], el) == 0;
    }
    if (r[0] != '.' || !ext)
        return false;
    for (int i = 1; i <= TEMP_RANDOM; i++) {
        char c = r[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return false;
    }
    return true;
}

/* lock_and_clean's work, with lists_lock held. */
static void lock_and_clean_locked(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return;
    for (int i = 0; i < n_locked; i++)
        if (locked[i].dev == st.st_dev && locked[i].ino == st.st_ino)
            return;
    if (n_locked == MAX_LOCKED)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
        int dfd = dup(fd);
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d && dfd >= 0)
            close(dfd);
        for (struct dirent *de; d && (de = readdir(d));) {
            struct stat fs;
            if (is_our_temp(de->d_name) && fstatat(fd, de->d_name, &fs, AT_SYMLINK_NOFOLLOW) == 0
                && S_ISREG(fs.st_mode) && fs.st_uid == geteuid())
                unlinkat(fd, de->d_name, 0);
        }
        if (d)
            closedir(d);
    }
    flock(fd, LOCK_SH);
    locked[n_locked].dev = st.st_dev;
    locked[n_locked].ino = st.st_ino;
    locked[n_locked].fd = fd;
    n_locked++;
}

/* Takes the folder's shared lock for this run (once per folder); the first
 * run to get it exclusively, when no other run writes there, first removes
 * the stale temporary files of our naming (left by a kill), ours only. */
static void lock_and_clean(const char *dir)
{
    sigset_t old;
    outfile_hold_signals(&old);
    pthread_mutex_lock(&lists_lock);
    lock_and_clean_locked(dir);
    pthread_mutex_unlock(&lists_lock);
    outfile_release_signals(&old);
}

/* Creates ".NAME.XXXXXX.tmp" beside real (NAME's stem cut, at a UTF-8
 * character's start, so that the name fits NAME_MAX; its extension kept, so
 * that is_our_temp knows a stale one) by `make` (O_EXCL creation, or a
 * link): returns its path (malloc'd) or NULL with errno set. */
static char *named_temp(const char *real, int (*make)(const char *path, void *arg), void *arg)
{
    const char *slash = strrchr(real, '/');
    size_t dl = slash ? (size_t)(slash - real + 1) : 0;
    const char *base = real + dl;
    size_t extra = 2 + TEMP_RANDOM + strlen(TEMP_SUFFIX);
    const char *dot = strrchr(base, '.');
    const char *ext = dot && dot > base ? dot : base + strlen(base);
    size_t el = strlen(ext);
    if (el + 1 + extra > NAME_MAX) {   /* an extension too long to keep: cut as the rest */
        ext += el;
        el = 0;
    }
    size_t bl = (size_t)(ext - base);   /* the stem */
    if (bl + el + extra > NAME_MAX) {
        bl = NAME_MAX - extra - el;
        while (bl > 1 && ((unsigned char)base[bl] & 0xC0) == 0x80)
            bl--;
    }
    size_t len = dl + bl + el + extra + 1;
    char *path = malloc(len);
    if (!path)
        return NULL;
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long x = (unsigned long long)ts.tv_nsec * 2654435761ULL ^ (unsigned long long)getpid() << 20
                           ^ (unsigned long long)(uintptr_t)path;
    for (int tries = 0; tries < 100; tries++) {
        char r[TEMP_RANDOM + 1];
        for (int i = 0; i < TEMP_RANDOM; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            r[i] = chars[(x >> 33) % (sizeof chars - 1)];
        }
        r[TEMP_RANDOM] = '\0';
        snprintf(path, len, "%.*s.%.*s%s.%s" TEMP_SUFFIX, (int)dl, real, (int)bl, base, ext, r);
        if (make(path, arg) == 0)
            return path;
        if (errno != EEXIST)
            break;
    }
    int err = errno;
    free(path);
    errno = err;
    return NULL;
}

static int create_excl(const char *path, void *arg)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    *(int *)arg = fd;
    return fd < 0 ? -1 : 0;
}

static int link_fd(const char *path, void *arg)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", *(int *)arg);
    return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

static int begin(struct outfile *of, const char *target, bool overwrite, bool named, struct rr_err *e)
{
    memset(of, 0, sizeof *of);
    of->fd = -1;
    if (outfile_check_target(target, overwrite, e) < 0)
        return -1;
    char *real, *dir = NULL;
    if (follow_link(target, &real, e) < 0)
        return -1;
    if (!(dir = dir_of(real))) {
        free(real);
        return oom(e, target);
    }
    if (make_dirs(target, dir, e) < 0)
        goto fail;
    lock_and_clean(dir);
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    /* A replaced file's read, write and execute bits and its group go to the
     * new contents; its set-user-ID, set-group-ID and sticky bits do not. */
    bool replaced = stat(real, &st) == 0;
    of->mode = replaced ? st.st_mode & 0777 : 0666 & ~mask;
    of->gid = replaced ? st.st_gid : (gid_t)-1;
    int fd = -1;
    if (!named && access("/proc/self/fd", X_OK) == 0)
        fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) {
        of->url = malloc(64);
        if (of->url)
            snprintf(of->url, 64, "file:/proc/self/fd/%d", fd);
    } else {
        /* Made and listed under lists_lock, so that no signal finds it
         * unlisted (outfile_remove_temps). */
        sigset_t old;
        outfile_hold_signals(&old);
        pthread_mutex_lock(&lists_lock);
        char *path = named_temp(real, create_excl, &fd);
        int err = errno;
        struct live_temp *live = path ? live_add_locked(path) : NULL;
        if (path && !live)
            unlink(path);
        pthread_mutex_unlock(&lists_lock);
        outfile_release_signals(&old);
        if (!path || !live) {
            free(path);
            if (fd >= 0)
                close(fd);
            rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot create a temporary file beside it: %s", target,
                    strerror(path ? ENOMEM : err));
            goto fail;
        }
        free(path);
        of->live = live;
        of->temp = live->path;
        size_t n = strlen(of->temp) + sizeof "file:";
        if ((of->url = malloc(n)))
            snprintf(of->url, n, "file:%s", of->temp);
    }
    of->fd = fd;
    of->target = real;
    of->overwrite = overwrite;
    free(dir);
    if (!of->url) {
        outfile_abort(of);
        return oom(e, target);
    }
    /* Readable and writable by us whatever the umask (libavformat opens it
     * again by its URL); the final mode is given at the commit. */
    fchmod(fd, 0600);
    return 0;
fail:
    free(real);
    free(dir);
    return -1;
}

int outfile_begin(struct outfile *of, const char *target, bool overwrite, struct rr_err *e)
{
    return begin(of, target, overwrite, false, e);
}

int outfile_begin_named(struct outfile *of, const char *target, bool overwrite, struct rr_err *e)
{
    return begin(of, target, overwrite, true, e);
}

const char *outfile_url(const struct outfile *of)
{
    return of->url;
}

FILE *outfile_fopen(struct outfile *of, struct rr_err *e)
{
    int fd = of->fd >= 0 ? dup(of->fd) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    if (!f) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot write the temporary file: %s", of->target ? of->target : "output",
                strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

void outfile_close_fd(struct outfile *of)
{
    if (of->temp && of->fd >= 0) {
        close(of->fd);
        of->fd = -1;
    }
}

static int move_failed(const char *target, struct rr_err *e)
{
    if (errno == EEXIST)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: already exists (use -y to replace it)", target);
    return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot move the finished file into place: %s", target,
                   strerror(errno));
}

int outfile_move(struct outfile *of, struct rr_err *e)
{
    const char *target = of->target;
    if (!target)
        return rr_fail(e, RR_EXIT_RUNTIME, "output: no temporary file to commit");
    mode_t mode = of->mode;
    if (of->gid != (gid_t)-1 && (of->fd >= 0 ? fchown(of->fd, (uid_t)-1, of->gid) : chown(of->temp, (uid_t)-1, of->gid)) != 0)
        mode &= ~(mode_t)070;   /* not in the replaced file's group: its group bits were meant for that group */
    if ((of->fd >= 0 ? fchmod(of->fd, mode) : chmod(of->temp, mode)) != 0)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot set the mode: %s", target, strerror(errno));
    if (!of->temp) {
        /* Unnamed: linked into place; with overwrite, first under a name
         * beside it (signals held, and lists_lock, which
         * outfile_remove_temps waits for: the name exists only for this
         * step), then renamed over the target. */
        if (!of->overwrite) {
            int fd = of->fd;
            return link_fd(target, &fd) == 0 ? 0 : move_failed(target, e);
        }
        sigset_t old;
        outfile_hold_signals(&old);
        pthread_mutex_lock(&lists_lock);
        char *tmp = named_temp(target, link_fd, &of->fd);
        int r = tmp && rename(tmp, target) == 0 ? 0 : -1;
        int err = errno;
        if (tmp && r < 0)
            unlink(tmp);
        pthread_mutex_unlock(&lists_lock);
        outfile_release_signals(&old);
        free(tmp);
        errno = err;
        return r == 0 ? 0 : move_failed(target, e);
    }
    if (of->overwrite)
        return rename(of->temp, target) == 0 ? 0 : move_failed(target, e);
    /* link() fails with EEXIST instead of replacing a file that appeared
     * while we wrote: without -y nothing existing is ever overwritten. */
    if (link(of->temp, target) != 0) {
        if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == ENOSYS) {
            /* A file system without hard links (FAT, some FUSE mounts): fall
             * back to check-then-rename, which leaves only a tiny race. */
            struct stat st;
            if (lstat(target, &st) == 0)
                return rr_fail(e, RR_EXIT_RUNTIME, "%s: already exists (use -y to replace it)", target);
            return rename(of->temp, target) == 0 ? 0 : move_failed(target, e);
        }
        return move_failed(target, e);
    }
    unlink(of->temp);
    return 0;
}

static int link_existing(const char *path, void *arg)
{
    return link((const char *)arg, path);
}

int outfile_keep_old(struct outfile *of, struct rr_err *e)
{
    struct stat st;
    if (!of->target || !of->overwrite || of->kept || lstat(of->target, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;   /* nothing there to keep */
    /* Made and listed under lists_lock, as the temporary files are. */
    sigset_t old;
    outfile_hold_signals(&old);
    pthread_mutex_lock(&lists_lock);
    char *path = named_temp(of->target, link_existing, of->target);
    int err = errno;
    struct live_temp *live = path ? live_add_locked(path) : NULL;
    if (path && !live) {
        unlink(path);
        err = ENOMEM;
    }
    pthread_mutex_unlock(&lists_lock);
    outfile_release_signals(&old);
    free(path);
    of->kept = live;
    if (live || err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == ENOSYS || err == EMLINK)
        return 0;   /* kept, or a file system without (more) hard links: moved over as it is */
    return rr_fail(e, RR_EXIT_RUNTIME, "%s: cannot keep the file it replaces until the set is in place: %s",
                   of->target, strerror(err));
}

void outfile_put_back(struct outfile *of)
{
    struct live_temp *kept = of->kept;
    if (!of->target)
        return;
    if (kept && rename(kept->path, of->target) == 0) {
        live_remove(kept);
        of->kept = NULL;
    } else if (!kept) {
        unlink(of->target);
    }
}

int outfile_commit(struct outfile *of, struct rr_err *e)
{
    int r = outfile_move(of, e);
    outfile_abort(of);   /* after a successful move the temp name is already gone */
    return r;
}

void outfile_abort(struct outfile *of)
{
    if (!of)
        return;
    if (of->temp)
        unlink(of->temp);
    if (of->live)
        live_remove(of->live);    /* frees of->temp */
    if (of->kept) {
        unlink(((struct live_temp *)of->kept)->path);
        live_remove(of->kept);
    }
    if (of->target && of->fd >= 0)
        close(of->fd);
    free(of->target);
    free(of->url);
    of->temp = NULL;
    of->live = NULL;
    of->kept = NULL;
    of->target = NULL;
    of->url = NULL;
    of->fd = -1;
}

/* ---- the files of one run ----------------------------------------------------------- */

struct claim {
    char *path;      /* absolute, links followed where they exist */
    char *role;
    dev_t dev;
    ino_t ino;       /* 0 when the file does not exist */
    bool writes;
};
static struct claim *claims;
static int n_claims;

/* The folder whose names of a form are the run's own (outfile_claim_folder). */
static struct {
    char *path;   /* absolute (canonical), NULL for none */
    const char *role;
    bool (*owns)(const char *name);
} folder;

/* An absolute form of path (outfile_target_path), malloc'd; path itself
 * when none can be made. */
static char *canonical(const char *path)
{
    char real[PATH_MAX];
    return strdup(outfile_target_path(path, real) == 0 ? real : path);
}

int outfile_claim(const char *path, const char *role, enum outfile_use use, struct rr_err *e)
{
    struct claim c = { .writes = use != OUTFILE_READS };
    struct stat st;
    if (!(c.path = canonical(path)))
        return oom(e, path);
    if (stat(path, &st) == 0) {
        c.dev = st.st_dev;
        c.ino = st.st_ino;
    }
    const char *slash = strrchr(c.path, '/');
    /* An input too: the run writes over such a name (a checkpoint, -y) or
     * removes it (a stray segment). */
    if (folder.path && slash && (size_t)(slash - c.path) == strlen(folder.path)
        && !strncmp(c.path, folder.path, (size_t)(slash - c.path)) && folder.owns(slash + 1)) {
        free(c.path);
        return rr_fail(e, RR_EXIT_USAGE, "%s: %s names a file of %s", path, role, folder.role);
    }
    for (int i = 0; i < n_claims; i++) {
        const struct claim *o = &claims[i];
        if (!(o->writes || c.writes))
            continue;   /* an input read twice (a scene that is its own mask) */
        if (!strcmp(o->path, c.path) || (c.ino && o->ino == c.ino && o->dev == c.dev)) {
            free(c.path);
            return rr_fail(e, RR_EXIT_USAGE, "%s: %s and %s name the same file", path, o->role, role);
        }
    }
    if (use == OUTFILE_WRITES_ONE_OF_MANY) {
        free(c.path);
        return 0;
    }
    struct claim *nc = realloc(claims, (size_t)(n_claims + 1) * sizeof *nc);
    if (!nc || !(c.role = strdup(role))) {
        if (nc)
            claims = nc;
        free(c.path);
        return oom(e, path);
    }
    claims = nc;
    claims[n_claims++] = c;
    return 0;
}

int outfile_claim_folder(const char *dir, const char *role, bool (*owns)(const char *name), struct rr_err *e)
{
    free(folder.path);
    if (!(folder.path = canonical(dir)))
        return oom(e, dir);
    folder.role = role;
    folder.owns = owns;
    return 0;
}

int outfile_check_scene_path(const char *path, struct rr_err *e)
{
    const bool up = goes_up(path);
    if (path[0] == '/' || up)
        return rr_fail(e, RR_EXIT_USAGE, "output.path: \"%s\": a scene may only name a relative path inside the "
                       "current folder (no leading / and no ..); give -o PATH to write elsewhere", path);
    return 0;
}

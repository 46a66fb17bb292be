/* sinks/seq.c: the files of a numbered output (NAME%05d.png, NAME%04d.exr),
 * one per frame (sinks.h). Atomic as a set: each frame is written under a
 * temporary name beside its target, sink_seq_commit moves them all into
 * place, sink_seq_free without a commit removes them. */
#include "outfile.h"
#include "sinks.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sink_seq_name(const struct sink_seq *q, long i, char *buf, size_t n, struct rr_err *e)
{
    if (sink_pattern_name(buf, n, q->pattern, i) < 0)
        return rr_fail(e, RR_EXIT_USAGE, "%s: the name of frame %ld is too long", q->pattern, i);
    return 0;
}

/* A target of a set, and the frame whose name leads there: an existing
 * file (new false: a, b its device and inode), or one the run makes (new:
 * a the digest of its path, outfile_target_path's). */
struct seq_file {
    bool new;
    uint64_t a, b;
    long i;
};

static int by_file(const void *pa, const void *pb)
{
    const struct seq_file *x = pa, *y = pb;
    return x->new != y->new ? (x->new ? 1 : -1) : x->a != y->a ? (x->a < y->a ? -1 : 1)
                                               : x->b != y->b ? (x->b < y->b ? -1 : 1) : 0;
}

/* 64-bit FNV-1a of s. */
static uint64_t digest(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Whether frames i and j of the set lead to one file: their entries x, y
 * alike (a digest checked against the paths themselves). */
static bool same_file(const struct sink_seq *q, const struct seq_file *x, const struct seq_file *y)
{
    if (by_file(x, y))
        return false;
    if (!x->new)
        return true;
    char a[PATH_MAX], b[PATH_MAX], name[4096];
    return sink_pattern_name(name, sizeof name, q->pattern, x->i) == 0 && outfile_target_path(name, a) == 0
           && sink_pattern_name(name, sizeof name, q->pattern, y->i) == 0 && outfile_target_path(name, b) == 0 && !strcmp(a, b);
}

int sink_seq_open(struct sink_seq *q, const char *pattern, const struct sink_params *p, struct rr_err *e)
{
    if (sink_pattern_check(pattern, e) < 0)
        return -1;
    q->pattern = pattern;
    q->overwrite = p->overwrite;
    /* Refuse before writing anything when any target of the run exists. */
    char name[4096], path[PATH_MAX];
    struct stat st;
    struct seq_file *had = NULL;
    long n_had = 0;
    /* The number in a folder's name: the frames' folders may lead to one
     * (links to it, NAME/..), where the run would make one file twice. */
    const char *field = strchr(pattern, '%');
    while (field && field[1] == '%')
        field = strchr(field + 2, '%');
    const bool in_folder = field && strchr(field, '/');
    for (long i = p->first; i < p->first + p->frames; i++) {
        if (sink_seq_name(q, i, name, sizeof name, e) < 0 || outfile_check_target(name, p->overwrite, e) < 0
            || outfile_claim(name, "-o", OUTFILE_WRITES_ONE_OF_MANY, e) < 0) {
            free(had);
            return -1;
        }
        const bool exists = p->overwrite && stat(name, &st) == 0;   /* only -y passes an existing target */
        if (!exists && !(in_folder && outfile_target_path(name, path) == 0))
            continue;
        if (!had && !(had = malloc((size_t)p->frames * sizeof *had)))
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", pattern);
        had[n_had++] = exists ? (struct seq_file){ false, st.st_dev, st.st_ino, i }
                              : (struct seq_file){ true, digest(path), 0, i };
    }
    /* Two frames whose names lead to one file (symbolic links, which -y
     * writes through, as a hold of repeated frames is often made; folders
     * that lead to one): each would overwrite the other's picture. */
    if (n_had > 1)
        qsort(had, (size_t)n_had, sizeof *had, by_file);
    for (long k = 1; k < n_had; k++)
        for (long m = k - 1; m >= 0 && !by_file(&had[m], &had[k]); m--) {
            if (!same_file(q, &had[m], &had[k]))
                continue;   /* two paths of one digest */
            const long a = had[m].i < had[k].i ? had[m].i : had[k].i, b = a ^ had[m].i ^ had[k].i;
            free(had);
            if (sink_seq_name(q, b, name, sizeof name, e) < 0)
                return -1;
            return rr_fail(e, RR_EXIT_USAGE, "%s: frames %ld and %ld of %s name the same file", name, a, b, pattern);
        }
    free(had);
    return 0;
}

struct outfile *sink_seq_begin(struct sink_seq *q, const char *name, struct rr_err *e)
{
    if (q->n == q->cap) {
        long nc = q->cap ? q->cap * 2 : 64;
        struct outfile *nf = realloc(q->files, (size_t)nc * sizeof *nf);
        if (!nf) {
            rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", name);
            return NULL;
        }
        memset(nf + q->cap, 0, (size_t)(nc - q->cap) * sizeof *nf);
        q->files = nf;
        q->cap = nc;
    }
    struct outfile *of = &q->files[q->n];
    /* Named: the frames wait for the commit without a descriptor each. */
    if (outfile_begin_named(of, name, q->overwrite, e) < 0)
        return NULL;
    q->n++;   /* from here on sink_seq_free removes its temporary file */
    return of;
}

int sink_seq_commit(struct sink_seq *q, struct rr_err *e)
{
    /* A second Ctrl-C waits for the moves: the set lands whole, not cut. */
    sigset_t old;
    outfile_hold_signals(&old);
    for (long i = 0; i < q->n; i++) {
        /* With -y, the file each move replaces is kept (a hard link) until
         * the whole set is in place. */
        if (outfile_keep_old(&q->files[i], e) < 0 || outfile_move(&q->files[i], e) < 0) {
            /* Take back what this commit already moved, the files they
             * replaced put back, so the set stays all-or-nothing. */
            for (long k = 0; k < i; k++) {
                outfile_put_back(&q->files[k]);
                outfile_abort(&q->files[k]);
            }
            outfile_release_signals(&old);
            return -1;
        }
    }
    outfile_release_signals(&old);
    for (long i = 0; i < q->n; i++)
        outfile_abort(&q->files[i]);   /* the temporary names are gone: removes the kept files, frees the paths */
    q->n = 0;
    return 0;
}

void sink_seq_free(struct sink_seq *q)
{
    for (long i = 0; i < q->n; i++)
        outfile_abort(&q->files[i]);
    free(q->files);
    q->files = NULL;
    q->n = q->cap = 0;
}

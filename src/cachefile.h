/* cachefile.h: the folder of ripplerender's caches (the tuner's choices,
 * src/tunecache.h; the FFT wisdom, src/fftwisdom.h), the CPU's name their
 * files are kept under, and writing one of them whole.
 *
 * The folder: $XDG_CACHE_HOME/ripplerender when XDG_CACHE_HOME is an
 * absolute path (the XDG base directory spec ignores relative values), else
 * $HOME/.cache/ripplerender, else none. RIPPLERENDER_CACHE=0 turns every
 * cache off. A cache only ever saves time: what is in it never changes a
 * frame's bits unless a user asked for it (RIPPLERENDER_FFT=measure), and
 * one that cannot be read or written is ignored. */
#ifndef RR_CACHEFILE_H
#define RR_CACHEFILE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether caches are on: false when the environment has RIPPLERENDER_CACHE=0. */
bool cachefile_on(void);

struct rr_err;

/* Checks RIPPLERENDER_CACHE: 0 (off), 1 or empty or unset (on). Returns 0,
 * or -1 with e filled (RR_EXIT_USAGE) for any other value, which a user
 * would mean as off ("no", "off") and which would leave the caches on. */
int cachefile_check_env(struct rr_err *e);

/* The cache folder into dir (n bytes). Returns 0, or -1 (dir empty) when
 * neither variable gives an absolute path or it does not fit. */
int cachefile_dir(char *dir, size_t n);

/* The CPU's name for a file name: /proc/cpuinfo's model name, family and
 * model, letters, digits, '.' and '_' kept and every run of other characters
 * one '-' ("unknown" when there is no model name). */
void cachefile_cpu(char *out, size_t n);

/* Reads the cache file path whole into buf (max + 1 bytes: the text and a
 * NUL after it). Allocates nothing, so that a cache never adds a way for a
 * run to fail. Opened without waiting: a named pipe in its place would hold
 * open() until a writer came. Returns the bytes read (NUL bytes inside
 * included), or -1 when there is no file (why empty), or when it cannot be
 * read, is not a regular file or holds more than max bytes (why, why_size
 * bytes, says which, for a debug line). Removes the file's abandoned
 * temporaries first, as cachefile_write does. */
long cachefile_read(const char *path, char *buf, size_t max, char *why, size_t why_size);

/* Writes len bytes of data as the file path whole: its folders made (mode
 * 0700, as the XDG spec asks), a temporary beside it, renamed over it, with
 * the catchable signals held meanwhile, so that neither a reader nor an
 * interrupt finds half a file or leaves the temporary. The temporary is
 * named PATH.tmp-PID-HOST-XXXXXX; one that a SIGKILL or a crash left is
 * removed by a later read or write of the same file once it is provably
 * abandoned: of this host and its process gone, or of another host (farm
 * nodes sharing the folder over NFS) and a day old. Nothing else in the
 * folder is touched (not PATH.XXXXXX, older versions' form, which a user's
 * PATH.backup matches). A SIGXFSZ the write
 * raises (ulimit -f) is the cache's, not the run's: it is taken and
 * dropped. Returns 0, or -1 with errno set (the temporary removed). */
int cachefile_write(const char *path, const void *data, size_t len);

#endif

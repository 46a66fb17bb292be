/* tunecache.h: what the drivers' tuner (tblock_internal.h) learned on this
 * CPU, kept between runs in a small text file, so that a run does not spend
 * its first passes timing ways that an earlier run on the same CPU model has
 * already timed. A remembered choice only picks among ways that give the same
 * bits, so no frame ever depends on the file: a missing, unreadable, corrupt
 * or unwritable one is ignored (RIPPLERENDER_DEBUG=kernels says why) and the
 * tuner times the ways as it would without it.
 *
 * The file: tuner-CPU.txt in the caches' folder (src/cachefile.h:
 * $XDG_CACHE_HOME/ripplerender, else $HOME/.cache/ripplerender), CPU the
 * CPU's name (cachefile_cpu). One header
 * line, then one line a choice:
 *     KERNEL WxH PASS THREADS WAYS CHOSEN
 * (the kernel's name, the grid, "step" or "pass<n>" for a fused pass of n
 * steps, the team, how many ways the tuner had and the one it chose). A
 * line that does not parse is dropped; a file without the header, larger
 * than TUNECACHE_MAX_BYTES or with more than TUNECACHE_MAX_LINES lines is
 * ignored whole. It is rewritten whole (cachefile_write), so a reader
 * never sees half a file.
 *
 * Off until tunecache_enable (main.c calls it; the library, the unit tests
 * and the bench's solver table leave it off), and off when the environment
 * has RIPPLERENDER_CACHE=0. Thread-safe. */
#ifndef RR_TUNECACHE_H
#define RR_TUNECACHE_H

#define TUNECACHE_MAX_BYTES (64 * 1024)
#define TUNECACHE_MAX_LINES 512

/* Turns the cache on for this process, unless RIPPLERENDER_CACHE is "0". */
void tunecache_enable(void);

/* The choice remembered for this key (kernel name, grid w x h, pass, team
 * of threads, ways), 0 .. ways - 1, or -1: none (or the cache is off, or
 * kernel is NULL). Reads the file on the first call. */
int tunecache_lookup(const char *kernel, int w, int h, const char *pass, int threads, int ways);

/* Remembers a choice: rewrites the file with it (replacing the key's old
 * line) when it differs from what the file holds. Never fails the caller:
 * a file that cannot be written is left as it was. */
void tunecache_store(const char *kernel, int w, int h, const char *pass, int threads, int ways, int chosen);

/* The file's path, or NULL when the cache is off or has no folder. */
const char *tunecache_path(void);

#endif

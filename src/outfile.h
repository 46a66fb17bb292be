/* outfile.h: every file ripplerender writes goes through here: the policy
 * (what may be written, what may be replaced) and the atomic write (a
 * temporary file beside the target, moved into place only when complete).
 * docs/output.md ("Atomic writes", "Which paths") is the user's side of it.
 *
 * Usage:
 *     struct outfile of = { 0 };
 *     if (outfile_begin(&of, "out/a.mp4", overwrite, e) < 0) return -1;
 *     FILE *f = outfile_fopen(&of, e);   ... write, fclose ...
 *         (or libavformat: avio_open(&pb, outfile_url(&of), AVIO_FLAG_WRITE))
 *     if (outfile_commit(&of, e) < 0) ...             (on any failure: outfile_abort)
 *
 * The temporary file is unnamed where the file system allows (O_TMPFILE,
 * linked into place with linkat), so that no kill, not even SIGKILL, leaves
 * it behind; otherwise it is ".NAME.XXXXXX.tmp" beside the target (NAME cut
 * to fit the 255-byte limit), and stale ones of that naming are removed by
 * the next run that writes in that folder while no other run does (an flock
 * on the folder). Without overwrite an existing target is never replaced, not
 * even one that appeared while we were writing (link, never rename). */
#ifndef RR_OUTFILE_H
#define RR_OUTFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "rr_err.h"

struct outfile {
    char *target;       /* owned: the target, symbolic links followed; NULL when idle */
    char *temp;         /* the named temporary file (inside `live`), or NULL when unnamed */
    char *url;          /* owned: "file:" + a path to the temporary file, for libav* */
    void *live;         /* this file's entry in the list outfile_remove_temps walks */
    int fd;             /* the temporary file, open for reading and writing; -1 when closed */
    mode_t mode;        /* the mode the target gets (an existing one's permission bits, else 0666 & ~umask) */
    gid_t gid;          /* the group it gets: the replaced file's, or (gid_t)-1 for a new file */
    bool overwrite;
    void *kept;         /* outfile_keep_old's link to the file the move replaces, or NULL */
};

/* The signals that interrupt a run (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 * SIGXCPU): main installs its handler for them, and outfile_hold_signals
 * holds them off. */
extern const int outfile_stop_signals[];
extern const int outfile_n_stop_signals;

/* Checks that `target` may be written (the policy of docs/output.md):
 * a symbolic link is followed (one to a missing file is refused); an
 * existing target must be a regular file, and is refused without overwrite
 * ("PATH: already exists (use -y to replace it)"), and even with it when it
 * is read-only, belongs to another user or has other hard links; the
 * nearest existing folder above a missing one must be a folder. Creates
 * nothing. Returns 0, or -1 with e filled (RR_EXIT_RUNTIME). */
int outfile_check_target(const char *target, bool overwrite, struct rr_err *e);

/* For --validate, before outfile_check_target: whether target is an
 * existing regular file (a link to one included) that a run without
 * overwrite would refuse ("already exists (use -y to replace it)"). Then
 * the first such target is noted for outfile_existing and the caller checks
 * the rest with overwrite: the scene and its settings are valid, and a run
 * before leaves its outputs. False with overwrite. Creates nothing. */
bool outfile_note_existing(const char *target, bool overwrite);

/* The first target outfile_note_existing noted, or NULL: --validate's line
 * says that the run replaces it only with -y. */
const char *outfile_existing(void);

/* Opens path, a file the run reads (not "-"), for reading, without
 * hanging on a FIFO: open(2) of a FIFO without a writer would wait for one,
 * restarted after the stop signals' handler (SA_RESTART), so that no signal
 * could end the run. A FIFO is opened without waiting, then waited on with
 * poll(2), which a signal cuts short, until its writer sends something or
 * goes. regular_only: anything but a regular file is refused (a file the
 * run itself wrote: a FIFO or an endless device is none). Returns the
 * stream, or NULL with errno set: EINTR (a stop signal came while waiting
 * for the FIFO's writer), EISDIR (a folder), EINVAL (regular_only and not
 * a regular file), or open(2)'s. */
FILE *outfile_fopen_input(const char *path, bool regular_only);

/* The path of the file `name` leads to, into out (PATH_MAX bytes): its
 * longest leading part that exists, links followed (realpath), then the
 * rest as written, "." left out and ".." the folder before (the folders a
 * run makes are plain ones, so NAME/.. is where the kernel will find it).
 * Returns 0, or -1 when nothing resolves or it does not fit. */
int outfile_target_path(const char *name, char *out);

/* outfile_check_target, then makes the missing folders above target (mode
 * 0777 & ~umask, as mkdir -p; outfile_remove_made_dirs takes them back),
 * removes stale temporary files there, and creates the temporary file.
 * `of` must be zeroed or finished. Returns 0, or -1 with e filled and
 * nothing left on disk. */
int outfile_begin(struct outfile *of, const char *target, bool overwrite, struct rr_err *e);

/* As outfile_begin, but the temporary file always has a name and its
 * descriptor may be closed (outfile_close_fd) before the commit: for the
 * frames of a PNG sequence, which would otherwise hold a descriptor each. */
int outfile_begin_named(struct outfile *of, const char *target, bool overwrite, struct rr_err *e);

/* The temporary file as a "file:" URL for libavformat (never read as another
 * protocol, whatever the name holds); valid between begin and commit/abort. */
const char *outfile_url(const struct outfile *of);

/* A stream over the temporary file (on a duplicate of its descriptor, at
 * offset 0), which the caller fcloses before the commit. NULL with e filled. */
FILE *outfile_fopen(struct outfile *of, struct rr_err *e);

/* Closes the descriptor of a named temporary file (outfile_begin_named). */
void outfile_close_fd(struct outfile *of);

/* Gives the temporary file its final mode and moves it into place. Returns
 * 0, or -1 with e filled; on failure the temporary file is removed and the
 * target left as it was. The outfile is finished either way. */
int outfile_commit(struct outfile *of, struct rr_err *e);

/* Removes the temporary file and finishes; safe on a zeroed, committed or
 * aborted outfile, any number of times. Cannot fail. */
void outfile_abort(struct outfile *of);

/* Removes every named temporary file that is still open (begun, not
 * committed or aborted) in this process, and the folders outfile_begin made
 * that are empty, for a process about to exit: it takes the lock under
 * which other threads make and list those files and folders and keeps it,
 * so that none appears after it looked. For the signal handler that stops at
 * once on a second Ctrl-C: unlink(2) and rmdir(2), and a lock that every
 * thread takes only with the stop signals held, so the handler never
 * interrupts its own thread holding it. Call it once, then exit. */
void outfile_remove_temps(void);

/* Removes the folders outfile_begin made, deepest first, where empty: after
 * a run that failed or was interrupted before its first frame. */
void outfile_remove_made_dirs(void);

/* Holds the stop signals off in this thread (saving the mask in *old) and
 * lets them through again: for a run of moves that must not be cut in half,
 * such as the frames of a PNG sequence. */
void outfile_hold_signals(sigset_t *old);
void outfile_release_signals(const sigset_t *old);

/* Moves a named temporary file into place as outfile_commit does (link +
 * unlink without overwrite, rename with it), without finishing it: for the
 * frames of a PNG sequence, moved together. */
int outfile_move(struct outfile *of, struct rr_err *e);

/* For a set of files moved together with overwrite (a PNG sequence): before
 * of's move, keeps the file its target holds (if any) under a temporary name
 * beside it (a hard link, listed with the temporary files), so that
 * outfile_put_back can restore it when a later move of the set fails. On a
 * file system without hard links nothing is kept. Returns 0, or -1 with e
 * filled (nothing kept). outfile_abort removes what was kept. */
int outfile_keep_old(struct outfile *of, struct rr_err *e);

/* Takes back of's move (outfile_move): the file outfile_keep_old kept goes
 * back under the target's name, or the target is removed when it held none. */
void outfile_put_back(struct outfile *of);

/* How a run uses a file it claims. */
enum outfile_use {
    OUTFILE_READS,     /* an input: the scene, an image, --check's file */
    OUTFILE_WRITES,    /* an output */
    OUTFILE_WRITES_ONE_OF_MANY,   /* a frame of a PNG sequence: compared, not recorded */
};

/* Records a file the run reads or writes (`role` names it in messages:
 * "the scene", "obstacles.0.path", "-o", "--manifest") and refuses, with
 * RR_EXIT_USAGE and one line, an output that is a file already recorded, or
 * an input that is a recorded output (the same path after following links,
 * or the same inode). Returns 0, or -1 with e filled. */
int outfile_claim(const char *path, const char *role, enum outfile_use use, struct rr_err *e);

/* Records the folder dir, a name in which that `owns` accepts (its last
 * component) is a file the run makes itself (--save-state DIR's checkpoints
 * and records): a later claim of a file of such a name there (an output,
 * or an input, which the run would write over or remove), through links
 * too, is refused with RR_EXIT_USAGE and one line naming `role`. One
 * folder; claimed before the outputs. Returns 0, or -1 with e filled. */
int outfile_claim_folder(const char *dir, const char *role, bool (*owns)(const char *name), struct rr_err *e);

/* Refuses an output path that a scene file chose (output.path): it must be
 * relative and not climb out of the current folder (no ".." component), as
 * a downloaded scene must not write elsewhere; -o lifts it. RR_EXIT_USAGE. */
int outfile_check_scene_path(const char *path, struct rr_err *e);

#endif

/* sink.h: where frames go: the output interface and its registry.
 *
 * The kind comes from the output's name, matched against the table of kinds
 * (sink_kinds, src/sinks/registry.c): .mp4 .mkv .mov .webm (video through
 * libavformat/libavcodec), .gif (palettegen + paletteuse, gif muxer), a name
 * with a printf field such as f%05d.png (a PNG sequence, deflated by
 * libdeflate), .framemd5 / .framehash (FFmpeg's hash muxers over rgb24), .npy (float32
 * heights, shape (frames, height, width)), "-" (a y4m or NUT stream on
 * standard output). The same table gives the list of
 * kinds in the unknown-kind error, in --help and, checked by
 * tests/cli/test_sink_table.sh, in the man page and the bash completion.
 *
 * Every sink writes beside its target under a temporary name and renames into
 * place in close; free without a successful close removes the temporary
 * files, so nothing half-written is ever left under the target's name. An
 * existing target is replaced only with params.overwrite; without it open
 * fails before anything is written. */
#ifndef RR_SINK_H
#define RR_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "frame.h"
#include "rr_err.h"
#include "scene.h"

struct sink_params {
    int width, height;        /* rendered frame size */
    int grid_w, grid_h;       /* height field size (npy) */
    double fps;
    long frames;              /* how many frames will be written */
    long first;               /* the number of the first (--range), from 0 */
    bool overwrite;           /* -y */
    int threads;              /* encoder threads (0: the library's choice) */
    enum render_alpha alpha;  /* render.alpha (sink_open fills it from the scene) */
    int atlas[2];             /* render.atlas's columns and rows, 0: none (sink_open fills it) */
    /* What render.mode gives a sink that writes floats (RENDER_NEED_FLOAT),
     * so that sinks need not know the modes; sink_open fills them from the
     * scene through the render modes' table (render.h). */
    const char *mode_name;            /* render.mode's name */
    const char *const *float_names;   /* its float channels' names, NULL-terminated; NULL: none */
    const char *float_modes;          /* the modes that have them, for messages ("height, normals or caustics") */
};

/* The picture and threads sink_ops.bytes costs a writer for. */
struct sink_budget {
    uint64_t width, height;   /* the picture it is handed: the render's, or an atlas's image */
    uint64_t frames;          /* the pictures it is handed: time.frames, or an atlas's images */
    int threads;              /* the run's threads (-j, or every core) */
    int encoder_threads;      /* an encoder's thread_count as the run asks it (-j n: n; 0: the library's count) */
};

/* sink_ops.libav's bits. */
enum { SINK_LIBAV_CODEC = 1, SINK_LIBAV_FORMAT = 2, SINK_LIBAV_FILTER = 4, SINK_LIBAV_ALL = 7 };

struct sink_ops {
    const char *name;
    /* What it writes, for messages: "a PNG sequence". */
    const char *noun;
    /* The output.* keys it reads besides path (docs/scene.md's "used by"),
     * NULL-terminated; NULL: none. sink_warn_idle names the others given. */
    const char *const *keys;
    /* The names it takes: extensions without the dot, space-separated,
     * matched without regard to case ("mp4 mkv mov webm"). */
    const char *exts;
    /* The name holds one printf frame number field (NAME%05d.png): a file
     * per frame, its names checked by sink_find. */
    bool numbered;
    /* The kind writes to standard output, named "-" (its exts are ""): no
     * file, so nothing to claim, replace or rename. */
    bool to_stdout;
    /* What it writes, in one line of --help. */
    const char *help;
    /* The libraries its run calls, SINK_LIBAV_* bits: the program loads
     * them and finds the functions an output calls when it opens
     * (sink_load_libav, src/lazy/lazyav.c), and --validate does too
     * (sink_check), so that a broken installation fails it as it fails the
     * run. */
    unsigned libav;
    size_t priv_size;
    /* The kind acts on output.bit_depth 16 and render.alpha itself; for the
     * others sink_open refuses them (a hash, a GIF, float heights). */
    bool deep;
    /* It writes floats: output.bit_depth 32 (and 16 as half floats); for the
     * others sink_open refuses 32. */
    bool floats;
    /* Optional (NULL: the kind is written in one piece, and --resume refuses
     * it): joins the files this kind wrote for consecutive parts of one run,
     * in order, into out without re-encoding (--resume's segments,
     * src/resume.c; ripplerender join). A numbered kind needs none: its
     * frames are files already. */
    int (*join)(const char *const *in, int n, const char *out, bool overwrite, struct rr_err *e);
    /* With join: closing a part takes long (an encoder drains), so --resume
     * closes it on a thread of its own while the next part opens. */
    bool slow_close;
    /* Returns the RENDER_NEED_* bits (frame.h) this sink wants for this output. */
    int (*needs)(const struct output_config *o, const struct scene *sc);
    /* Optional (NULL: nothing beyond the frames of the writer's ring, which
     * src/budget.c counts from needs): the bytes this kind's writer holds at
     * its peak for sc's output handed pictures of b's size (an encoder's
     * frames in flight, a PNG sequence's compressions, a GIF's palette
     * tables), for the memory budget, writing what they are into what
     * (size bytes) for its message ("the libx264 encoder's 47 frames in
     * flight"). As solver_ops.bytes is the solver's: a new kind's cost is
     * in its own file. */
    uint64_t (*bytes)(const struct scene *sc, const struct sink_budget *b, char *what, size_t size);
    /* Optional (NULL: never): whether this output's writer costs little
     * beside the frame loop (no encoder, no conversion), so that steps
     * fused across frames gain on the whole run (sink_fuses). */
    bool (*fuses)(const struct output_config *o);
    /* Optional: the refusals of open that need no file and no memory (a
     * codec, a pixel format, a preset, a size), for --validate (sink_check);
     * open makes them too. */
    int (*check)(const struct output_config *o, const struct sink_params *p, struct rr_err *e);
    int (*open)(void *priv, const struct output_config *o, const struct sink_params *p,
                struct rr_err *e);
    int (*write)(void *priv, const struct frame *fr, struct rr_err *e);
    /* Optional, for a sink whose frames are finished later than write
     * returns (an encoder holding frames for its lookahead): the frames
     * encoded and written so far. Called from another thread than write's. */
    long (*frames_done)(void *priv);
    /* Finishes the file (trailer, header patch) and renames it into place. */
    int (*close)(void *priv, struct rr_err *e);
    /* Releases everything; removes temporary files if close did not succeed.
     * Safe after a failed open, and after close. */
    void (*free)(void *priv);
};

/* The table of sink kinds, NULL-terminated, in the order --help lists them. */
extern const struct sink_ops *const sink_kinds[];

/* The most kinds a program holds, the table's and those added by
 * sink_register together. */
#define SINK_MAX 32

/* The kind at index i: the table's, then those sink_register added; NULL
 * past the last. Everything that lists or finds kinds (sink_find, its
 * error, --help, --list-outputs) walks these. */
const struct sink_ops *sink_kind_at(int i);

/* Adds ops after the table's kinds, for a program (or a test) that brings
 * an output of its own without adding it to src/sinks/, as solver_register
 * adds a solver. Call it before opening outputs; not thread-safe. Returns
 * 0, or -1 when its name or one of its extensions is another kind's, or
 * SINK_MAX kinds are there already. */
int sink_register(const struct sink_ops *ops);

/* How the kind's names are shown to a user: ".mp4 .mkv .mov .webm", or
 * "NAME%05d.png" for a numbered kind. Returns buf. */
const char *sink_kind_shown(const struct sink_ops *k, char *buf, size_t n);

/* The table for tests and scripts (ripplerender --list-outputs): a line per
 * kind, "NAME<TAB>EXTS<TAB>SHOWN<TAB>HELP". */
void sink_print_kinds(FILE *f);

/* The warnings of the keys the scene file or --set gave (a preset's are its
 * starting values) that act on nothing in this run's outputs, one line
 * each on f naming the key, where it was given, its value and what it
 * applies to; the run goes on (docs/scene.md, output). no_output: NULL for
 * a run that writes (or --validate checks) output.path, else the option
 * that renders without writing it ("--hash", "--check"); hashes: the run
 * hashes the pictures (--hash, --check, --manifest).
 * - Without an output, every output.* key but the file's output.path
 *   (which --hash and --check replace with none, as documented); a --set
 *   output.path names the -o that would write it.
 * - With one, each output.* key its kind does not read ("FILE:L:C:
 *   output.crf (18) is not used by a PNG sequence (out/f%04d.png); it
 *   applies to mp4, mkv, mov, webm"); the kind comes from -o, so one scene
 *   goes to several kinds and such a key is not refused.
 * - The render.* keys, when the output's kind takes only the heights at
 *   grid size (.npy) and nothing hashes the pictures: one line naming the
 *   first and its value and counting the others.
 * A key at its default value (as --print-scene writes every output key)
 * is not named. Nothing for a path that names no kind (sink_find refuses
 * it). */
void sink_warn_idle(const struct scene *sc, const char *no_output, bool hashes, FILE *f);

/* The sink kind for an output path, or NULL (e filled, RR_EXIT_USAGE, naming
 * the path and the kinds there are) when the name fits none. */
const struct sink_ops *sink_find(const char *path, struct rr_err *e);

/* Whether the first n bytes of name end in ".EXT", EXT (any case) an
 * extension of a kind of sink_kind_at: how src/outfile.c knows the stale
 * temporary files of an output of ours. */
bool sink_ext_ends(const char *name, size_t n);

/* The fewest grid cells for which a run with an output fuses steps across
 * frames (sink_fuses): below, the planes stay in the L3 and frame by frame
 * loses little (docs/performance.md, "What limits each case"). */
#define SINK_FUSE_CELLS (2048L * 2048)

/* Whether a run writing sc's output (output.path) draws its frames by
 * batches of steps fused across frames straight into the writer's ring
 * (src/batch.h, pipeline_batch): the kind's fuses says yes and the grid has
 * at least SINK_FUSE_CELLS cells, the render is at grid size and the
 * solver fuses steps (solver_ops.advance). A fixed rule of the scene: the
 * frames are the same either way. The environment variable
 * RIPPLERENDER_FUSE overrides the first part, for measuring: "on" for any
 * kind and size, "off" for none ("auto" or unset: the rule). */
bool sink_fuses(const struct scene *sc);

/* What sc's output's writer holds at its peak (sink_ops.bytes of its kind,
 * or of render.atlas's wrapper around it) for pictures of the render's size
 * with b's threads (b's width and height are filled here), and what they
 * are in what; 0 and "" for a kind that holds nothing beyond the ring or an
 * output path that names no kind. */
uint64_t sink_bytes(const struct scene *sc, struct sink_budget b, char *what, size_t size);

/* Refuses (status 2) a RIPPLERENDER_FUSE other than auto, on, off or empty.
 * Returns 0 or -1. */
int sink_fuse_check(struct rr_err *e);

struct sink;

/* What sink_open would refuse in the scene's output settings (the kind, an
 * atlas, bit_depth, alpha, the kind's own check) and its targets (an
 * existing file without p->overwrite, a folder, a link to nowhere: each
 * frame's of a numbered kind), with nothing opened, made or allocated:
 * --validate. Loads the libraries the kind's run calls
 * (sink_load_libav). Returns 0, or -1 with e filled. */
int sink_check(const struct scene *sc, const struct sink_params *p, struct rr_err *e);

/* The uses of those libraries (src/lazy/lazyav.c): writing an output
 * (src/sink.c, the kinds in src/sinks; --validate's check of it), reading a
 * video (src/render/backdrop.c), joining videos (src/join.c: ripplerender
 * join, and the segments of a --save-state run), the versions --manifest
 * records (src/manifest.c). */
enum { LAZYAV_OUTPUT = 1, LAZYAV_READ = 2, LAZYAV_JOIN = 4, LAZYAV_MANIFEST = 8 };

/* Before a use's first call into the libraries of libs (SINK_LIBAV_* bits):
 * in the program (src/lazy/lazyav.c), loads them and finds every function
 * of theirs the use calls, so that a library that cannot be loaded or
 * lacks one ends the run here, in one line naming it (the loader's reason
 * or the function) with status 1, never in the middle of the run; a use
 * found once is found. Linked as usual (the tests), it does nothing. */
void lazyav_use(unsigned uses, unsigned libs);

/* lazyav_use(LAZYAV_OUTPUT, libs): the output's use, at its opening
 * (sink_open) and --validate's check (sink_check). */
void sink_load_libav(unsigned libs);

/* Finds the kind and opens it. Returns 0 and *out, or -1 with e filled
 * (RR_EXIT_USAGE for a bad codec/pix_fmt/name, RR_EXIT_RUNTIME for I/O or an
 * existing file without overwrite). */
int sink_open(struct sink **out, const struct scene *sc, const struct sink_params *p,
              struct rr_err *e);
int sink_needs(const struct sink *s);
int sink_write(struct sink *s, const struct frame *fr, struct rr_err *e);
/* Frames the sink has finished: encoded and written, never more than the
 * writes that returned (a video encoder's frames count once their packet is
 * written). Safe to call while another thread calls sink_write. */
long sink_frames_done(const struct sink *s);
int sink_close(struct sink *s, struct rr_err *e);
void sink_free(struct sink *s);   /* accepts NULL; removes temporaries if not closed */

/* The header of a NumPy .npy file (format 1.0) of little-endian float32 in C
 * order and the given shape ("(3, 4)") into buf: `total` bytes (0: the
 * shortest, a multiple of 64), spaces before the final '\n'. Returns its
 * length, or 0 when it does not fit in cap or total bytes. */
size_t npy_float32_header(char *buf, size_t cap, const char *shape, size_t total);

/* A PNG sequence's frames in flight: with `threads` threads (-j, or every
 * core), that many compression workers (at most SINK_PNG_WORKERS_MAX) each
 * on a frame and one more frame being handed over; one frame, compressed by
 * the writer itself, with 1 thread. Each holds a copy of the frame's picture
 * (with a filter-type byte a row), its compressed file, and libdeflate's
 * compressor, whose hash chains over the 32 KiB window take under
 * SINK_PNG_JOB_FIXED at levels 0-9 (its sink_ops.bytes counts them). */
#define SINK_PNG_WORKERS_MAX 16
#define SINK_PNG_JOB_FIXED ((uint64_t)512 << 10)
int sink_png_jobs(int threads);
/* The version of the OpenEXR library loaded ("3.1.5"), for --version and
 * the manifest. */
const char *sink_exr_version(void);
/* The version of libdeflate the PNG sequences are deflated with ("1.14"):
 * another version may pack the same pixels into other bytes. */
const char *sink_png_deflate_version(void);

/* Routes FFmpeg's log into memory instead of standard error: its chatter is
 * dropped and its last error line becomes the reason in the next failure
 * message of a sink ("out.mkv: cannot open the libx265 encoder: Image size is
 * too small (10x256)"), so every error stays one line. Call once, early. */
void sink_capture_library_log(void);

/* Checks a numbered file name (PNG, EXR outputs; mask sequences, src/obstacles.c):
 * exactly one integer conversion (%d, %i or %u, with optional flags "-+ 0",
 * width and precision, no length modifier; "%%" is a literal percent sign).
 * Returns 0, or -1 with e filled (RR_EXIT_USAGE). */
int sink_pattern_check(const char *pattern, struct rr_err *e);

/* The name of frame i under a checked pattern. Returns 0, or -1 when it does
 * not fit in n bytes. */
int sink_pattern_name(char *buf, size_t n, const char *pattern, long i);

/* The files an earlier, longer set left after the scene's numbered output
 * (a PNG or EXR sequence, render.atlas's images counted) as a run that ends
 * at the scene's last frame writes it: every name of the pattern (the number
 * in the file's name or a folder's) for a number after the last that
 * exists, found in one pass over the folder that holds the number's
 * component, each entry's name parsed and rebuilt from its number ("f5.png"
 * is not %02d's; a folder is not a file). Nothing is removed (they may be
 * another run's). Returns how many, the lowest and highest names in first
 * and last (n bytes each); 0 for an output that is not numbered or a folder
 * that cannot be read. */
long sink_numbered_left(const struct scene *sc, char *first, char *last, size_t n);

#endif

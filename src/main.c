/* main.c: the command line: options, exit statuses and the frame loop.
 * Nothing else lives here: every step of the loop is one call into its module
 * (scene -> sim -> render -> sink), and this file alone prints and exits. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <budget.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <libavutil/avutil.h>
#include <png.h>

#include "framehash.h"
#include "join.h"
#include "manifest.h"
#include "batch.h"
#include "budget.h"
#include "cachefile.h"
#include "fftwisdom.h"
#include "debug.h"
#include "outfile.h"
#include "pipeline.h"
#include "render.h"
#include "resume.h"
#include "rr_err.h"
#include "scene.h"
#include "sim.h"
#include "sink.h"
#include "state.h"
#include "tblock.h"
#include "team.h"
#include "tunecache.h"
#include "version.h"

enum progress_mode { PROGRESS_AUTO, PROGRESS_ALWAYS, PROGRESS_NEVER };

struct options {
    const char *scene_path;      /* NULL: the preset alone */
    const char *preset;          /* --preset NAME, or NULL */
    const char *output;          /* -o, or NULL */
    const char **sets;           /* --set values and the ones -f adds */
    char **args;                 /* argv as given, before getopt permutes it (--manifest) */
    int n_sets;
    char frames_set[64];         /* "time.frames=N" from -f */
    int threads;                 /* 0: every core */
    bool overwrite, hash, validate, print_scene;
    const char *check;           /* --check FILE */
    const char *probes;          /* --probes FILE.csv */
    const char *manifest;        /* --manifest FILE.json */
    enum progress_mode progress;
    struct state_options farm;   /* --range, --chunk, --save-state, --state-every, --load-state */
};

static const char usage_head[] =
    "Usage: ripplerender SCENE [-o OUTPUT] [options]\n"
    "       ripplerender --preset NAME [SCENE] [-o OUTPUT] [options]   (--preset list: the names)\n"
    "       ripplerender join IN... -o OUT [-y]   (the parts of a run into one: join -h)\n"
    "Simulates water ripples from a JSON scene and writes the frames.\n"
    "\n"
    "  SCENE                    a JSON scene file, or - for standard input\n"
    "  -o, --output PATH        output (overrides output.path); the kind comes from the name:\n";
/* Then a line per sink kind (sink_kind_at), then: */
static const char usage_tail[] =
    "  -s, --set KEY=VALUE      override a scene value by dotted path (solver.damping=0.98,\n"
    "                           drops.0.x=40); VALUE is JSON, a number as typed (.98, +2),\n"
    "                           else a string; repeatable\n"
    "      --preset NAME        start from a scene built into the program (pond, pool, harbour, ...);\n"
    "                           SCENE's keys, then --set, override its own; --preset list names them\n"
    "  -f, --frames N           override time.frames\n"
    "  -j, --threads N          worker threads (default: every core); frames never depend on N\n"
    "  -y, --overwrite          replace an existing output (without it, the run fails)\n"
    "      --hash               print each frame's index and the MD5 of its rgb24 pixels\n"
    "      --check FILE         compare every frame with a .framemd5 file or --hash lines;\n"
    "                           exit 3 naming the size, pixel format or frame count that\n"
    "                           differs, or the first frame; one line says when all match\n"
    "      --validate           load and check the scene (images and the output's codec, pixel\n"
    "                           format and preset included), render nothing\n"
    "      --print-scene        print the fully resolved scene (and -o) as JSON, render nothing\n"
    "      --probes FILE.csv    write the height under each of the scene's probes, per frame\n"
    "      --manifest FILE.json write the resolved scene, versions, frame hashes and timings\n"
    "      --range A-B          render frames A to B of the scene's timeline (numbered as in the\n"
    "                           whole run); the frames before are simulated, not rendered\n"
    "      --chunk K/N          the K-th (from 0) of N near-equal parts of the frames; --chunk\n"
    "                           alone or --chunk /N: K (and N) from a Slurm job array or a\n"
    "                           Kubernetes Indexed Job (docs/farm.md)\n"
    "      --save-state DIR     write the simulation's state after the last frame to DIR\n"
    "      --state-every K      ... and after every frame rendered that is a multiple of K\n"
    "      --load-state FILE    start from a saved state (DIR/state-FRAME.json) of this scene\n"
    "      --resume             continue the render --save-state DIR holds, killed or stopped,\n"
    "                           from its last checkpoint, keeping its outputs so far (from\n"
    "                           the start when DIR holds none); give the same options\n"
    "      --progress WHEN      a line of frames written (encoded), fps and ETA on stderr:\n"
    "                           auto (on a terminal), always or never\n"
    "  -q, --quiet              same as --progress never (refused beside auto or always)\n"
    "  -h, --help               this text\n"
    "  -V, --version            the version of ripplerender and its libraries\n"
    "\n"
    "An option that takes a value is given once (-s repeats): a second is refused.\n"
    "With --hash or --check and no -o, nothing is written: the frames are only hashed.\n"
    "-o - writes the frames to standard output for another program (not a terminal, not\n"
    "with --hash): y4m, or NUT with -s output.format=nut: ripplerender S -o - | ffmpeg -i - ...\n"
    "Exit status: 0 success, 1 run-time failure (I/O, encoder, unstable simulation),\n"
    "2 usage error or invalid scene, 3 --check mismatch, 130 interrupted.\n"
    "Ctrl-C, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU or a closed standard output (--hash | head)\n"
    "stop after the current frame and finish the output so the frames so far play (before\n"
    "frame 0: nothing is written); a second signal stops at once, removing the temporary files.\n"
    "Missing folders of the outputs are made. docs/output.md says which paths are written.\n"
    "RIPPLERENDER_MEM_LIMIT=SIZE (bytes, or K M G T; default 4G; none: no limit) caps the\n"
    "memory a run may need: larger grids, renders and images are refused before allocating.\n"
    "RIPPLERENDER_DEBUG=kernels prints on standard error which kernels and threads the run\n"
    "chose, one line a decision (the frames are the same).\n"
    "RIPPLERENDER_FFT=measure: the spectral solver's FFT plans timed on this machine and kept\n"
    "in $XDG_CACHE_HOME/ripplerender (faster; frames differ from the default estimate by rounding).\n"
    "The kernels' fastest ways are remembered per CPU model in\n"
    "$XDG_CACHE_HOME/ripplerender/tuner-CPU.txt (~/.cache without it; any frame is the same\n"
    "with it, without it or with it corrupt); RIPPLERENDER_CACHE=0 turns the caches off.\n"
    "RIPPLERENDER_FUSE=auto|on|off: steps fused across frames into the writer's ring (auto:\n"
    "a NUT rgb24 stream or .npy of 2048x2048 cells or more; the frames are the same).\n"
    "RIPPLERENDER_SUBNORMALS=auto|careful|plain: row kernels careful of subnormal heights\n"
    "(auto: AVX-512 ones where a probe finds those slow); the frames are the same.\n"
    "The scene keys are described in docs/scene.md.\n";

static volatile sig_atomic_t interrupted;
static pthread_t main_thread;
static bool stdout_closed;   /* --hash's reader went away (EPIPE): an interruption */

/* The stop signals (outfile_stop_signals): the first asks the frame loop to
 * stop after the current frame (it then finishes the outputs, or commits
 * nothing before frame 0); a second stops at once, removing the
 * temporary files (outfile_remove_temps is async-signal-safe), so nothing is
 * left beside the targets; outputs already moved into place stay whole. */
static void on_signal(int sig)
{
    /* Handled on the main thread only, which holds the signals off while it
     * changes the list of temporary files or moves a PNG set into place
     * (outfile_hold_signals): a signal the kernel gave to a worker or the
     * writer thread is passed on, and waits there until it is let through. */
    if (!pthread_equal(pthread_self(), main_thread)) {
        pthread_kill(main_thread, sig);
        return;
    }
    if (interrupted) {
        static const char msg[] = "ripplerender: interrupted again: stopped at once, "
                                  "temporary files removed\n";
        outfile_remove_temps();   /* and the folders made for the outputs */
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
        _exit(RR_EXIT_INTERRUPTED);
    }
    interrupted = 1;
}

/* Installs on_signal for the stop signals (SA_RESTART: a write to a pipe is
 * not cut short), before the scene is read: a wait for its writer ends with
 * one line and status 130 (scene_load). */
static void install_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    main_thread = pthread_self();
    for (int i = 0; i < outfile_n_stop_signals; i++)
        sigaction(outfile_stop_signals[i], &sa, NULL);
}

/* Ignores SIGPIPE, so that a reader of standard output that goes away is an
 * EPIPE the frame loop treats as an interruption, and SIGXFSZ, so that a
 * file-size limit (ulimit -f) is an EFBIG write error: the run fails with
 * one line (exit 1) and removes its temporaries. */
static void install_signals(void)
{
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
}

/* A closed standard stream would hand its number to the first file we open,
 * and --hash would write into an output: give it /dev/null, read-only, so
 * that writes to it fail (EBADF) as they would on the closed stream. */
static void hold_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int n = open("/dev/null", O_RDONLY);
            if (n >= 0 && n != fd) {
                dup2(n, fd);
                close(n);
            }
        }
}

/* Prints one usage error and a hint; returns the usage exit status. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    /* Through rr_fail: one line, bounded, a long argument cut in its middle. */
    struct rr_err e = { 0 };
    char what[sizeof e.msg];
    va_list ap;
    va_start(ap, fmt);
    rr_vformat(what, sizeof what, fmt, ap);
    va_end(ap);
    rr_fail(&e, RR_EXIT_USAGE, "%s (see ripplerender --help)", what);
    fprintf(stderr, "ripplerender: %s\n", e.msg);
    return RR_EXIT_USAGE;
}

/* Reads a whole positive number that fits an int, or returns -1. */
static long parse_count(const char *s, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max)
        return -1;
    return v;
}

static void print_usage(void)
{
    fputs(usage_head, stdout);
    char shown[128];
    const struct sink_ops *k;
    for (int i = 0; (k = sink_kind_at(i)); i++)
        printf("%29s%-21s %s\n", "", sink_kind_shown(k, shown, sizeof shown), k->help);
    fputs(usage_tail, stdout);
}

/* The name of option c for a message: "-o/--output", or "--check" for one
 * without a short form. */
static const char *option_name(const struct option *longopts, int c, char *buf, size_t size)
{
    for (const struct option *l = longopts; l->name; l++)
        if (l->val == c) {
            if (c < 256)
                snprintf(buf, size, "-%c/--%s", c, l->name);
            else
                snprintf(buf, size, "--%s", l->name);
            return buf;
        }
    return "?";
}

/* Parses argv into o. Returns -1 to go on, or an exit status to stop with. */
static int parse_options(int argc, char **argv, struct options *o)
{
    enum { OPT_HASH = 256, OPT_CHECK, OPT_VALIDATE, OPT_PRINT, OPT_PROBES, OPT_MANIFEST, OPT_PROGRESS,
           OPT_RANGE, OPT_CHUNK, OPT_SAVE_STATE, OPT_STATE_EVERY, OPT_LOAD_STATE, OPT_RESUME, OPT_LIST_OUTPUTS,
           OPT_PRESET, OPT_END };
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },   { "set", required_argument, NULL, 's' },
        { "frames", required_argument, NULL, 'f' },   { "threads", required_argument, NULL, 'j' },
        { "overwrite", no_argument, NULL, 'y' },      { "hash", no_argument, NULL, OPT_HASH },
        { "check", required_argument, NULL, OPT_CHECK }, { "validate", no_argument, NULL, OPT_VALIDATE },
        { "print-scene", no_argument, NULL, OPT_PRINT }, { "probes", required_argument, NULL, OPT_PROBES },
        { "manifest", required_argument, NULL, OPT_MANIFEST },
        { "progress", required_argument, NULL, OPT_PROGRESS }, { "quiet", no_argument, NULL, 'q' },
        { "range", required_argument, NULL, OPT_RANGE },  { "chunk", optional_argument, NULL, OPT_CHUNK },
        { "save-state", required_argument, NULL, OPT_SAVE_STATE },
        { "state-every", required_argument, NULL, OPT_STATE_EVERY },
        { "load-state", required_argument, NULL, OPT_LOAD_STATE },
        { "resume", no_argument, NULL, OPT_RESUME },
        { "preset", required_argument, NULL, OPT_PRESET },
        { "help", no_argument, NULL, 'h' },           { "version", no_argument, NULL, 'V' },
        { "list-outputs", no_argument, NULL, OPT_LIST_OUTPUTS },   /* not in --help: for tests */
        { NULL, 0, NULL, 0 },
    };
    o->sets = calloc((size_t)argc + 1, sizeof *o->sets);
    o->args = malloc(((size_t)argc + 1) * sizeof *o->args);
    if (!o->sets || !o->args) {
        fprintf(stderr, "ripplerender: out of memory\n");
        return RR_EXIT_RUNTIME;
    }
    memcpy(o->args, argv, ((size_t)argc + 1) * sizeof *o->args);
    opterr = 0;
    int c;
    long n;
    /* The value each option that takes one was given (--chunk alone: ""):
     * a second is refused, naming both, rather than one of them dropped.
     * -s/--set is the one that repeats. */
    const char *given[OPT_END] = { 0 };
    while ((c = getopt_long(argc, argv, ":o:s:f:j:yqhV", longopts, NULL)) != -1) {
        const char *value = c != OPT_CHUNK ? optarg
                            : optarg ? optarg : optind < argc && state_chunk_word(argv[optind]) ? argv[optind++] : "";
        if (value && c != 's' && c > 0 && c < OPT_END) {
            char name[48];
            if (given[c])
                return usage_error("%s: given twice (\"%s\", then \"%s\"); it takes one value",
                                   option_name(longopts, c, name, sizeof name), given[c], value);
            given[c] = value;
        }
        switch (c) {
        case 'o':
            if (!*optarg)   /* not output.path's fault: say -o, not the scene's key */
                return usage_error("-o: expected a file name, got \"\"");
            o->output = optarg;
            break;
        case 's':
            if (!strchr(optarg, '='))
                return usage_error("--set %s: expected KEY=VALUE", optarg);
            o->sets[o->n_sets++] = optarg;
            break;
        case 'f':
            if ((n = parse_count(optarg, 10000000)) < 0)
                return usage_error("-f %s: expected a whole number of frames from 1 to 10000000", optarg);
            snprintf(o->frames_set, sizeof o->frames_set, "time.frames=%ld", n);
            break;
        case 'j':
            if ((n = parse_count(optarg, 1024)) < 0)
                return usage_error("-j %s: expected a thread count from 1 to 1024", optarg);
            o->threads = (int)n;
            break;
        case 'y': o->overwrite = true; break;
        case OPT_HASH: o->hash = true; break;
        case OPT_CHECK: o->check = optarg; break;
        case OPT_VALIDATE: o->validate = true; break;
        case OPT_PRINT: o->print_scene = true; break;
        case OPT_PROBES: o->probes = optarg; break;
        case OPT_MANIFEST: o->manifest = optarg; break;
        case OPT_PROGRESS:
            if (given['q'] && strcmp(optarg, "never"))
                return usage_error("--progress %s: given with -q/--quiet (--progress never); give one of them", optarg);
            if (!strcmp(optarg, "auto")) o->progress = PROGRESS_AUTO;
            else if (!strcmp(optarg, "always")) o->progress = PROGRESS_ALWAYS;
            else if (!strcmp(optarg, "never")) o->progress = PROGRESS_NEVER;
            else return usage_error("--progress %s: expected auto, always or never", optarg);
            break;
        case 'q':   /* --progress never: refused beside another --progress */
            if (given[OPT_PROGRESS] && strcmp(given[OPT_PROGRESS], "never"))
                return usage_error("-q/--quiet: given with --progress %s; give one of them", given[OPT_PROGRESS]);
            given['q'] = "";
            o->progress = PROGRESS_NEVER;
            break;
        case OPT_RANGE: o->farm.range = optarg; break;
        case OPT_CHUNK:   /* --chunk=K/N, --chunk K/N, or --chunk alone */
            o->farm.chunk = value;
            break;
        case OPT_SAVE_STATE: o->farm.save_dir = optarg; break;
        case OPT_STATE_EVERY:
            if ((o->farm.every = parse_count(optarg, 10000000)) < 0)
                return usage_error("--state-every %s: expected a whole number of frames from 1 to 10000000", optarg);
            break;
        case OPT_LOAD_STATE: o->farm.load = optarg; break;
        case OPT_RESUME: o->farm.resume = true; break;
        case OPT_PRESET: o->preset = optarg; break;
        case 'h': print_usage(); return 0;
        case OPT_LIST_OUTPUTS: sink_print_kinds(stdout); return 0;
        case 'V':
            printf("ripplerender %s\nFFmpeg %s (libavcodec, libavformat, libswscale, libavfilter)\n"
                   "libpng %s\nlibdeflate %s\ncJSON %s\nOpenEXR %s\n", RR_VERSION, av_version_info(),
                   PNG_LIBPNG_VER_STRING, sink_png_deflate_version(), cJSON_Version(), sink_exr_version());
            return 0;
        case ':': return usage_error("%s: needs a value", argv[optind - 1]);
        default: return usage_error("%s: unknown option", argv[optind - 1]);
        }
    }
    o->farm.overwrite = o->overwrite;
    /* --print-scene renders nothing: an option that runs or writes something
     * would do nothing. One that only says how a run goes (-y, -j, -q) is
     * taken, so that --print-scene added to a run's command line shows its scene. */
    const char *idle = !o->print_scene ? NULL : o->hash ? "--hash" : o->check ? "--check" : o->validate ? "--validate"
                       : o->probes ? "--probes" : o->manifest ? "--manifest" : o->farm.range ? "--range"
                       : o->farm.chunk ? "--chunk" : o->farm.save_dir ? "--save-state" : o->farm.every ? "--state-every"
                       : o->farm.load ? "--load-state" : o->farm.resume ? "--resume" : NULL;
    if (idle)
        return usage_error("%s: does nothing with --print-scene, which prints the scene and renders nothing", idle);
    if (o->hash && o->output && !strcmp(o->output, "-"))
        return usage_error("%s", "-o - and --hash both write to standard output; use one of them "
                           "(or --check FILE, or -o FILE.framemd5)");
    /* The contract names a file for each (FILE.json, FILE.csv): "-" is refused
     * rather than taken as a file of that name. */
    if ((o->manifest && !strcmp(o->manifest, "-")) || (o->probes && !strcmp(o->probes, "-")))
        return usage_error("%s -: writes a file, not standard output (name one, e.g. %s)",
                           o->manifest && !strcmp(o->manifest, "-") ? "--manifest" : "--probes",
                           o->manifest && !strcmp(o->manifest, "-") ? "run.json" : "probes.csv");
    if (o->frames_set[0])       /* after the --set values, so -f wins */
        o->sets[o->n_sets++] = o->frames_set;
    if (o->preset && !strcmp(o->preset, "list")) {
        for (const struct scene_preset *p = scene_presets; p->name; p++)
            printf("%-14s %s\n", p->name, p->about);
        return 0;
    }
    if (optind >= argc && !o->preset)
        return usage_error("%s", "no scene file given (nor --preset NAME)");
    if (optind + 1 < argc) {
        /* a second name that is an output's (out.mp4, f%04d.png): -o forgotten */
        struct rr_err ignored = { 0 };
        const char *extra = argv[optind + 1];
        if (strcmp(extra, "-") && sink_find(extra, &ignored))
            return usage_error("%s: only one scene file can be given; to write it, give -o %s", extra, extra);
        return usage_error("%s: only one scene file can be given", extra);
    }
    o->scene_path = optind < argc ? argv[optind] : NULL;
    if (o->scene_path && !strcmp(o->scene_path, "-") && o->check && !strcmp(o->check, "-"))
        return usage_error("%s", "the scene (-) and --check - both read standard input; give one of them a file");
    return -1;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The progress line counts the frames finished (sink_frames_done: encoded
 * and written, not merely handed to the writer thread), and its rate and ETA
 * come from those frames since the first one finished: the start-up and the
 * encoder's lookahead, before any frame comes out, are not a rate. Until
 * there is such a rate (and on the last line) the rate shown is the whole
 * run's and there is no ETA. */
struct progress {
    bool show;
    long total;
    long first;              /* frames finished when the rate's clock started; -1 before */
    double t_first, t_start;
    int width;               /* of the line last shown */
};

static bool progress_open;   /* a progress line without its newline is on stderr */

static void show_progress(struct progress *p, long done, const char *state)
{
    if (!p->show)
        return;
    double now = now_seconds();
    if (p->first < 0 && done > 0) {
        p->first = done;
        p->t_first = now;
    }
    bool steady = p->first >= 0 && done > p->first && now > p->t_first;
    double fps = steady ? (done - p->first) / (now - p->t_first)
                        : now > p->t_start ? done / (now - p->t_start) : 0;
    char line[160], eta[32] = "";
    if (done < p->total && steady && fps > 0) {
        long s = lround((double)(p->total - done) / fps);
        snprintf(eta, sizeof eta, "  ETA %ld:%02ld", s / 60, s % 60);
    } else if (done < p->total) {
        snprintf(eta, sizeof eta, "  ETA -:--");
    }
    int n = snprintf(line, sizeof line, "frame %ld/%ld written  %.1f fps%s%s%s", done, p->total, fps, eta,
                     state ? "  " : "", state ? state : "");
    /* Blanks over the rest of a longer line before. */
    fprintf(stderr, "\r%-*s", p->width > n ? p->width : n, line);
    p->width = n;
    progress_open = true;
}

/* Ends the progress line, if one is open, before anything else is printed. */
static void end_progress(void)
{
    if (progress_open)
        fputc('\n', stderr);
    progress_open = false;
}

/* The probe CSV: one row per frame, a column per probe (height at the nearest cell). */
struct probe_log {
    struct outfile file;
    FILE *f;
};

/* One CSV field as RFC 4180 (section 2, rules 6 and 7) says: a name holding a
 * comma, a double quote, CR or LF is enclosed in double quotes, its quotes doubled. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static int probes_open(struct probe_log *pl, const char *path, const struct scene *sc, bool overwrite,
                       struct rr_err *e)
{
    if (outfile_begin(&pl->file, path, overwrite, e) < 0)
        return -1;
    if (!(pl->f = outfile_fopen(&pl->file, e)))
        return -1;
    fputs("frame,time", pl->f);
    for (int i = 0; i < sc->n_probes; i++) {
        fputc(',', pl->f);
        csv_field(pl->f, sc->probes[i].name);
    }
    fputc('\n', pl->f);
    return 0;
}

static void probes_write(struct probe_log *pl, const struct scene *sc, const struct field *f, long frame)
{
    fprintf(pl->f, "%ld,%.9g", frame, (double)frame / sc->time.fps);
    for (int i = 0; i < sc->n_probes; i++) {
        long x = lround(sc->probes[i].x), y = lround(sc->probes[i].y);
        fprintf(pl->f, ",%.9g", (double)f->cur[y * f->stride + x]);
    }
    fputc('\n', pl->f);
}

/* Closes the CSV's temporary file; the caller commits pl->file once every
 * output is complete (see the end of main). */
static int probes_finish(struct probe_log *pl, const char *path, struct rr_err *e)
{
    FILE *f = pl->f;
    pl->f = NULL;
    if (ferror(f) | fclose(f))
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

static void probes_free(struct probe_log *pl)
{
    if (pl->f)
        fclose(pl->f);
    pl->f = NULL;
    outfile_abort(&pl->file);
}

/* The threads: how many simulate and render (the frame loop: src/team.h's
 * pool, and OpenMP for the spectral solver, both sized by OpenMP's thread
 * setting, which only this policy sets) and how many encode (the sink's own,
 * sink_params.threads: -j, or the library's choice). -j N, or every core,
 * is `all`.
 *
 * With a sink, the pipeline's writer thread and the encoder's threads share
 * the cores with the frame loop, which then wastes them twice: an idle
 * worker spins before it sleeps (OpenMP's, the pool's for TEAM_SPIN_US), and
 * a team of two waits at every barrier for whichever thread the encoder's
 * pushed off a core; a one-thread frame loop beside libx264 at 1080p ran
 * faster than a two-thread one. So the frame loop starts on one thread, and
 * after THREADS_PROBE frames compares the CPU time it used (this thread)
 * with the rest of the process's (the writer and the encoder): only when it
 * needs clearly more (a cheap sink: npy, PNG) does it go back to all.
 * Without a sink (--hash, --check) it runs on all from the start. The
 * frames never depend on the thread count: this sets the speed only. */
#define THREADS_PROBE 8

struct thread_policy {
    int all;                      /* -j, or every core */
    bool probing;                 /* beside a writer thread: on one thread until the probe */
    double cpu0_self, cpu0_all;   /* CPU seconds of this thread and the process at the probe's start */
};

static double cpu_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* -j (0: every core). Before anything runs in parallel. */
static void threads_start(struct thread_policy *tp, int jobs)
{
    if (jobs > 0)
        omp_set_num_threads(jobs);
    tp->all = omp_get_max_threads();
    team_set_most(tp->all);
    debug_line(DEBUG_KERNELS, "threads: %d (%s)", tp->all, jobs > 0 ? "-j" : "every core");
}

/* A writer thread (the pipeline) now shares the cores: the frame loop goes
 * down to one thread until the probe. Before the sim and the renderer are
 * made (the spectral solver runs a large domain on the setting then). */
static void threads_beside_writer(struct thread_policy *tp)
{
    if (tp->all < 2)
        return;
    tp->probing = true;
    omp_set_num_threads(1);
    debug_line(DEBUG_KERNELS, "threads: frame loop on 1 beside the writer and encoder until a probe over frames 2 to %d",
               1 + THREADS_PROBE);
}

/* Frames by fused batches beside a cheap writer (sink_fuses): the batches
 * take every thread, no probe (a batch's steps all run at its first frame,
 * which a probe over frames would miss). */
static void threads_for_batches(struct thread_policy *tp)
{
    if (!tp->probing)
        return;
    tp->probing = false;
    omp_set_num_threads(tp->all);
    debug_line(DEBUG_KERNELS, "threads: frame loop back to %d: batches of steps fused across frames", tp->all);
}

/* Before frame n of the run (0, 1, ...) goes to the writer: the probe. */
static void threads_before_write(struct thread_policy *tp, long n)
{
    if (!tp->probing)
        return;
    if (n == 2) {   /* after the first two, which carry the start-up */
        tp->cpu0_self = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
        tp->cpu0_all = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    } else if (n == 2 + THREADS_PROBE) {
        tp->probing = false;
        double self = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - tp->cpu0_self;
        double rest = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - tp->cpu0_all - self;
        if (rest < 0)   /* the two clocks are read at different instants: a tick apart */
            rest = 0;
        bool more = self > 1.5 * rest;
        if (more)
            omp_set_num_threads(tp->all);
        debug_line(DEBUG_KERNELS, "threads: frame loop %s %d (CPU over %d frames: %.1f ms, the writer and encoder %.1f ms)",
                   more ? "back to" : "stays on", more ? tp->all : 1, THREADS_PROBE, self * 1e3, rest * 1e3);
    }
}

struct run {
    struct scene sc;
    struct sim *sim;
    struct renderer *render;
    struct sink *sink;
    struct pipeline *pipe;       /* writes to sink on its own thread */
    struct thread_policy threads;
    struct probe_log probes;
    struct framehash_golden expected;   /* --check */
    struct manifest *manifest;   /* --manifest */
    struct progress progress;
    struct state *state;         /* the frame range and checkpoints */
    struct resume *resume;       /* --save-state's record, segments; --resume */
    struct batch *batch;         /* frames by batches of fused steps (src/batch.h), or NULL */
};

static void run_free(struct run *r)
{
    batch_free(r->batch);
    pipeline_free(r->pipe);
    sink_free(r->sink);
    render_free(r->render);
    sim_free(r->sim);
    probes_free(&r->probes);
    free(r->expected.md5s);
    manifest_free(r->manifest);
    state_free(r->state);
    resume_free(r->resume);
    scene_free(&r->sc);
}

/* Whether a --set gave output.path (the user's own choice, as -o is). */
static bool set_output_path(const struct options *o)
{
    for (int i = 0; i < o->n_sets; i++)
        if (!strncmp(o->sets[i], "output.path=", strlen("output.path=")))
            return true;
    return false;
}

/* Claims the file standard stream fd (0 or 1) is, when it is a regular file
 * (a shell's < FILE or > FILE), under role: a scene read from standard
 * input is then no output's target through /dev/stdin. */
static int claim_std_stream(int fd, const char *role, enum outfile_use use, struct rr_err *e)
{
    struct stat st;
    char proc[32], self[PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? readlink(proc, self, sizeof self - 1) : -1;
    if (n <= 0)
        return 0;
    self[n] = '\0';
    return outfile_claim(self, role, use, e);
}

/* Records every file the run reads and writes, so that no output is an input
 * or another output (outfile_claim); the main output last, by its sink. */
static int claim_files(const struct run *r, const struct options *o, bool writes_output, struct rr_err *e)
{
    const struct scene *sc = &r->sc;
    char role[64];
    static char folder_role[4200];
    snprintf(folder_role, sizeof folder_role, "--save-state %s (its checkpoints, resume records and segments)",
             o->farm.save_dir ? o->farm.save_dir : "");
    if (o->farm.save_dir && outfile_claim_folder(o->farm.save_dir, folder_role, resume_dir_owns, e) < 0)
        return -1;
    if (o->scene_path && strcmp(o->scene_path, "-")
        && outfile_claim(o->scene_path, "the scene", OUTFILE_READS, e) < 0)
        return -1;
    if (((o->scene_path && !strcmp(o->scene_path, "-")) || (o->check && !strcmp(o->check, "-")))
        && claim_std_stream(STDIN_FILENO, o->check && !strcmp(o->check, "-") ? "--check (standard input)"
                                                                             : "the scene (standard input)",
                            OUTFILE_READS, e) < 0)
        return -1;
    for (int i = 0; i < sc->n_obstacles; i++) {
        snprintf(role, sizeof role, "obstacles.%d.path", i);
        if (sc->obstacles[i].path && outfile_claim(sc->obstacles[i].path, role, OUTFILE_READS, e) < 0)
            return -1;
    }
    for (int i = 0; i < sc->n_initial; i++) {
        snprintf(role, sizeof role, "initial.%d.path", i);
        if (sc->initial[i].path && outfile_claim(sc->initial[i].path, role, OUTFILE_READS, e) < 0)
            return -1;
    }
    if ((sc->solver.speed_map && outfile_claim(sc->solver.speed_map, "solver.speed_map", OUTFILE_READS, e) < 0)
        || (sc->solver.depth_map && outfile_claim(sc->solver.depth_map, "solver.depth_map", OUTFILE_READS, e) < 0)
        || (sc->render.depth_map && outfile_claim(sc->render.depth_map, "render.depth_map", OUTFILE_READS, e) < 0)
        || (sc->render.background && outfile_claim(sc->render.background, "render.background", OUTFILE_READS, e) < 0)
        || (sc->render.floor && outfile_claim(sc->render.floor, "render.floor", OUTFILE_READS, e) < 0)
        || (o->check && strcmp(o->check, "-") && outfile_claim(o->check, "--check", OUTFILE_READS, e) < 0)
        || (o->manifest && outfile_claim(o->manifest, "--manifest", OUTFILE_WRITES, e) < 0)
        || (o->probes && outfile_claim(o->probes, "--probes", OUTFILE_WRITES, e) < 0))
        return -1;
    /* A PNG sequence claims its frames' names when it opens. */
    const struct sink_ops *ops = writes_output ? sink_find(sc->output.path, e) : NULL;
    if (writes_output && !ops)
        return -1;
    if (ops && !ops->numbered && !ops->to_stdout
        && outfile_claim(sc->output.path, o->output ? "-o" : "output.path", OUTFILE_WRITES, e) < 0)
        return -1;
    /* Standard output, written by --hash and -o -, is an output too when it
     * is a regular file (scene.json --hash >> scene.json). */
    if (o->hash || (ops && ops->to_stdout))
        return claim_std_stream(STDOUT_FILENO, "standard output", OUTFILE_WRITES, e);
    return 0;
}

/* time.loop: one line on stderr (not an error) when the warm-up leaves more
 * than 1/256 of the start's motion, and the preroll that would not
 * (docs/render.md, "Seamless loops": preroll >= ln(256) / rate). */
static void warn_short_preroll(const struct scene *sc)
{
    double rate, left = sim_loop_residue(sc, &rate);
    if (!sc->time.loop || !(rate > 0) || left <= 1.0 / 256)
        return;
    double need = ceil(log(256.0) / rate * 100) / 100;
    fprintf(stderr,
            "ripplerender: warning: time.preroll: %g s leaves %.2g of the start's motion in the loop (more than "
            "1/256, a seam may show); the %s solver as set needs a preroll of %.15g s (ln 256 / %.4g per s)\n",
            sc->time.preroll, left, sc->solver.type->name, need, rate);
}

/* Builds every stage. Returns 0, or -1 with e filled. */
static int run_setup(struct run *r, const struct options *o, int argc, bool writes_output, struct rr_err *e)
{
    struct scene *sc = &r->sc;
    if (!o->output && !set_output_path(o) && (writes_output || (o->validate && !(o->hash || o->check)))
        && outfile_check_scene_path(sc->output.path, e) < 0)
        return -1;
    if (o->output) {
        char *p = strdup(o->output);
        if (!p)
            return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
        free(sc->output.path);
        sc->output.path = p;
    }
    if (!o->output && (o->hash || o->check))   /* nothing written, --validate or not */
        budget_without_output();
    /* Probes and checkpoints need the field at each frame's end: no batch
     * (budget_batch_frames, which batch_create asks). */
    const bool frame_by_frame = o->probes || o->farm.save_dir;
    if (frame_by_frame)
        budget_frame_by_frame();
    budget_encoder_threads(o->threads);
    if (o->farm.save_dir || o->manifest)
        budget_resolved_scene();
    if (budget_check_run(sc, e) < 0 || claim_files(r, o, writes_output, e) < 0)
        return -1;
    const struct resume_run run = { writes_output, o->manifest, o->probes != NULL, o->validate,
                                    o->validate && (o->output || !(o->hash || o->check)) };
    if (resume_open(&r->resume, &r->state, &o->farm, sc, &run, e) < 0)
        return -1;
    const long first = state_first(r->state), count = state_count(r->state);
    const long range_first = state_range_first(r->state);   /* before first when resumed */
    bool overwrite = o->overwrite;   /* or the manifest an interruption left (resume_note_left) */
    if (o->manifest && !overwrite && resume_may_replace(r->resume, o->manifest, &overwrite, e) < 0)
        return -1;
    /* Before the frame loop goes down to one thread beside the writer
     * (threads_beside_writer): the manifest records the -j asked for. */
    if (o->manifest && (manifest_check_scene_text(sc, "--manifest", e) < 0
                        || manifest_create(&r->manifest, o->manifest,
                                           overwrite || (o->validate && outfile_note_existing(o->manifest, overwrite)),
                                           state_last(r->state) - range_first + 1, argc, o->args, e) < 0))
        return -1;
    manifest_range(r->manifest, range_first, state_last(r->state));
    resume_manifest(r->resume, r->manifest);
    if (sc->n_probes == 0 && o->probes)
        return rr_fail(e, RR_EXIT_USAGE, "--probes %s: the scene has no probes", o->probes);
    int needs = 0;
    struct sink_params sp = {
        .width = scene_render_width(sc), .height = scene_render_height(sc),
        .grid_w = sc->grid.width, .grid_h = sc->grid.height,
        .fps = sc->time.fps, .frames = count, .first = first,
        .overwrite = o->overwrite, .threads = o->threads,
    };
    if (writes_output) {
        if (resume_sink_open(r->resume, &r->sink, &r->pipe, &sp, e) < 0)
            return -1;
        threads_beside_writer(&r->threads);
        needs = sink_needs(r->sink);
        /* Hashes are of rgb24: without them a yuv420p encoder needs no rgb. */
        if (!o->hash && !o->check && !r->manifest)
            needs |= RENDER_YUV_ONLY;
    } else if (o->validate && (o->output || !(o->hash || o->check)) ? sink_check(sc, &sp, e) < 0
                                                                      : !sink_find(sc->output.path, e)) {
        return -1;   /* --validate: what opening the output would refuse */
    }
    /* Keys that act on nothing this run writes: a warning each, not a refusal. */
    sink_warn_idle(sc, o->output ? NULL : o->hash ? "--hash" : o->check ? "--check" : NULL,
                   o->hash || o->check || o->manifest, stderr);
    for (int i = 0; i < sc->n_warned && i < SCENE_WARN_MAX; i++)
        fprintf(stderr, "ripplerender: warning: %s\n", sc->warned[i]);
    if (sc->n_warned > SCENE_WARN_MAX)
        fprintf(stderr, "ripplerender: warning: and %d more render keys of another mode: ignored\n",
                sc->n_warned - SCENE_WARN_MAX);
    if (render_create(&r->render, sc, needs, e) < 0
        || (state_loads(r->state) ? sim_create_restart : sim_create)(&r->sim, sc, e) < 0)
        return -1;
    warn_short_preroll(sc);
    /* Without probes or checkpoints (whose frame the simulation must show),
     * frames come by batches of steps fused across frames, as
     * budget_batch_frames decides: without a sink, or into the writer's
     * ring. */
    if (!o->validate && batch_create(&r->batch, r->render, sc, &interrupted, r->pipe, e) < 0)
        return -1;
    if (r->batch && r->pipe)
        threads_for_batches(&r->threads);
    if (o->check && (framehash_load(o->check, &r->expected, sc->time.frames, e) < 0
                     || framehash_fits(&r->expected, o->check, scene_render_width(sc), scene_render_height(sc),
                                       sc->time.frames, e) < 0))
        return -1;
    if (o->probes && (o->validate ? outfile_check_target(o->probes,
                                                         o->overwrite || outfile_note_existing(o->probes, o->overwrite), e)
                                  : probes_open(&r->probes, o->probes, sc, o->overwrite, e)) < 0)
        return -1;
    if (o->validate && o->manifest)
        lazyav_use(LAZYAV_MANIFEST, SINK_LIBAV_ALL);   /* the manifest records their versions */
    return o->validate ? 0 : state_start(r->state, r->sim, &interrupted, e);
}

/* Compares frame i with --check's list (as long as the scene's, framehash_fits).
 * Returns 0, or -1 with e filled (status 3). */
static int check_frame(const struct run *r, const char *file, long i, const char *md5, struct rr_err *e)
{
    if (strcmp(r->expected.md5s[i], md5) != 0)
        return rr_fail(e, RR_EXIT_MISMATCH, "%s: frame %ld differs: expected %s, got %s", file, i,
                       r->expected.md5s[i], md5);
    return 0;
}

/* Frames finished: by the sink when there is one, else (hashes only) the frames rendered. */
static long frames_done(const struct run *r, long rendered)
{
    return r->sink ? resume_frames_before(r->resume) + sink_frames_done(r->sink) : rendered;
}

/* The frame loop. Returns 0, or -1 with e filled. *done counts the frames rendered. */
static int run_frames(struct run *r, const struct options *o, long *done, struct rr_err *e)
{
    const struct scene *sc = &r->sc;
    const long first = state_first(r->state), last = state_last(r->state), total = state_count(r->state);
    r->progress = (struct progress){
        .show = o->progress == PROGRESS_ALWAYS || (o->progress == PROGRESS_AUTO && isatty(2)),
        .total = total, .first = -1, .t_start = now_seconds(),
    };
    for (long i = first; i <= last; i++) {
        if (interrupted)
            break;
        struct frame fr;
        char md5[33];
        const bool batched = r->batch && i > first, hashes = o->hash || o->check || r->manifest;
        if ((batched ? batch_next(r->batch, r->sim, i, last, &fr, hashes ? md5 : NULL, e)
                     : i > first ? sim_advance_frame(r->sim, e) : 0) < 0
            || resume_before_frame(r->resume, i, e) < 0)
            return -1;
        /* With a sink, render straight into the pipeline's next slot. */
        uint8_t *slot = NULL;
        if (r->pipe && !batched && render_makes_rgb(r->render)
            && !(slot = pipeline_rgb_buffer(r->pipe, scene_render_width(sc), scene_render_height(sc), e)))
            return -1;
        if (!batched && render_frame_to(r->render, sim_field(r->sim), sim_walls(r->sim), i, slot, &fr, e) < 0)
            return -1;
        if (hashes) {
            if (!batched)
                frame_md5_hex(&fr, md5);
            if (o->hash && (printf("%ld %s\n", i, md5) < 0 || fflush(stdout) != 0)) {
                /* A reader that went away interrupts the run; any other
                 * failure of standard output fails it, committing nothing. */
                if (errno != EPIPE)
                    return rr_fail(e, RR_EXIT_RUNTIME, "standard output: write failed: %s", strerror(errno));
                clearerr(stdout);
                stdout_closed = true;
                interrupted = 1;
            }
            if (o->check && check_frame(r, o->check, i, md5, e) < 0)
                return -1;
        }
        if (r->probes.f)
            probes_write(&r->probes, sc, sim_field(r->sim), i);
        if (r->pipe)
            threads_before_write(&r->threads, i - first);
        if (r->pipe && pipeline_write(r->pipe, &fr, e) < 0)
            return -1;
        if (r->manifest)
            manifest_frame(r->manifest, i - state_range_first(r->state), md5);
        if (resume_after_frame(r->resume, r->sim, i, r->manifest ? md5 : NULL, e) < 0)
            return -1;
        *done = i - first + 1;
        show_progress(&r->progress, frames_done(r, *done), NULL);
    }
    /* Stopped before this run's first frame: nothing was rendered, so no
     * segment is closed and no checkpoint taken (the simulation shows frame
     * first - 1, or frame 0 of a fresh start, as it would after frame 0:
     * --resume would skip it). */
    if (interrupted && *done == 0)
        return 0;
    /* What the writer still holds and the encoder's lookahead are encoded now. */
    long finished = frames_done(r, *done);
    if (finished < *done)
        show_progress(&r->progress, finished, "flushing encoder");
    return resume_frames_end(r->resume, r->sim, e);
}

/* A refusal from setting up the run says where the scene value came from
 * (scene_locate); one that names the output by its path is about output.path
 * when the scene gave the path (-o names itself). */
static void locate(const struct run *r, const struct options *o, struct rr_err *e)
{
    const char *path = r->sc.output.path;
    size_t n = path ? strlen(path) : 0;
    if (e->status == RR_EXIT_USAGE && !o->output && n && !strncmp(e->msg, path, n)
        && !strncmp(e->msg + n, ": ", 2))
        rr_wrap(e, "output.path: ");
    scene_locate(&r->sc, e);
}

/* A numbered set written up to the scene's last frame (whole, or its last
 * part) where an earlier, longer one was: its later frames are never
 * removed (a file is never lost), but a user importing the sequence would
 * take them for this run's, so one line says so (docs/output.md). */
static void warn_numbered_left(const struct run *r)
{
    char first[4096], last[4096];
    const long k = sink_numbered_left(&r->sc, first, last, sizeof first);
    if (k == 1)
        fprintf(stderr, "ripplerender: warning: %s: 1 file of an earlier set remains after this run's last frame "
                "(%s)\n", r->sc.output.path, first);
    else if (k > 1)
        fprintf(stderr, "ripplerender: warning: %s: %ld files of an earlier set remain after this run's last "
                "frame (%s to %s)\n", r->sc.output.path, k, first, last);
}

static int fail(const struct rr_err *e)
{
    end_progress();
    fflush(stdout);
    fprintf(stderr, "ripplerender: %s\n", e->msg);
    return e->status ? e->status : RR_EXIT_RUNTIME;
}

int main(int argc, char **argv)
{
    struct options o = { .progress = PROGRESS_AUTO };
    hold_std_fds();
    if (argc > 1 && !strcmp(argv[1], "join"))
        return join_main(argc, argv);
    int status = parse_options(argc, argv, &o);
    if (status >= 0) {
        free(o.sets);
        free(o.args);
        return status;
    }
    struct rr_err e = { 0 };
    struct run r = { 0 };
    bool fft_measure;
    if (cachefile_check_env(&e) < 0 || sink_fuse_check(&e) < 0 || tblock_careful_check(&e) < 0
        || fft_planning(&fft_measure, &e) < 0) {   /* the environment's values, before the scene */
        status = fail(&e);
        goto end;
    }
    threads_start(&r.threads, o.threads);
    tunecache_enable();   /* the tuner's choices kept between runs (src/tunecache.h) */
    /* The libraries' own chatter (libx264's statistics) is not ours to print;
     * their last error becomes the reason in our one-line verdict. */
    sink_capture_library_log();

    status = RR_EXIT_OK;
    install_stop_signals();
    const struct scene_preset *preset = o.preset ? scene_preset_find(o.preset, &e) : NULL;
    if ((o.preset && !preset) || scene_load_preset(&r.sc, preset, o.scene_path, o.sets, o.n_sets, &e) < 0) {
        status = fail(&e);
        goto end;
    }
    if (o.print_scene) {
        char *path = o.output ? strdup(o.output) : NULL;   /* -o overrides output.path, as in a run */
        if (o.output && !path) {
            rr_fail(&e, RR_EXIT_RUNTIME, "out of memory");
            status = fail(&e);
            goto end;
        }
        if (path) {
            free(r.sc.output.path);
            r.sc.output.path = path;
        }
        /* An -o naming no kind: refused, as the loader refuses such an output.path. */
        if ((path && !sink_find(path, &e)) || manifest_check_scene_text(&r.sc, "--print-scene", &e) < 0) {
            status = fail(&e);
            goto end;
        }
        if (scene_print(&r.sc, stdout) < 0 || fflush(stdout) != 0) {
            rr_fail(&e, RR_EXIT_RUNTIME, "standard output: write failed: %s", strerror(errno));
            status = fail(&e);
        }
        goto end;
    }
    bool writes_output = !o.validate && (o.output || !(o.hash || o.check));
    install_signals();   /* before the first output is opened */
    if (run_setup(&r, &o, argc, writes_output, &e) < 0) {
        locate(&r, &o, &e);
        status = fail(&e);
        goto end;
    }
    if (o.validate) {
        /* what the run would write: the output (or a stream), or only hashes, and the side files */
        const bool hashes_only = !o.output && (o.hash || o.check), extra = o.probes || o.manifest;
        const char *out = strcmp(r.sc.output.path, "-") ? r.sc.output.path : "standard output";
        const char *there = outfile_existing();   /* a target that only -y lets the run replace */
        printf("%s: valid (%dx%d cells, %d frames at %g fps, solver %s); %s%s%s%s%s%s%s%s%s%s\n",
               !o.scene_path ? r.sc.file : strcmp(o.scene_path, "-") ? o.scene_path : "<stdin>", r.sc.grid.width,
               r.sc.grid.height, r.sc.time.frames, r.sc.time.fps, r.sc.solver.type->name,
               hashes_only ? "hashes the frames, writes " : "writes ", hashes_only ? "" : out,
               hashes_only && !extra ? "no file" : "", o.probes && !hashes_only ? ", " : "",
               o.probes ? o.probes : "", o.manifest && (o.probes || !hashes_only) ? ", " : "",
               o.manifest ? o.manifest : "", there ? " (" : "", there ? there : "",
               there ? " exists: the run replaces it only with -y)" : "");
        goto end;
    }

    long done = 0;
    if (run_frames(&r, &o, &done, &e) < 0) {
        status = fail(&e);
        goto end;
    }
    if (interrupted && done == 0) {
        /* Nothing to show: no output is committed (an existing one stays). */
        fprintf(stderr, "ripplerender: %s before the first frame; nothing written\n",
                stdout_closed ? "standard output was closed" : "interrupted");
        status = RR_EXIT_INTERRUPTED;
        goto end;
    }
    if (!stdout_closed && (fflush(stdout) != 0 || ferror(stdout))) {
        rr_fail(&e, RR_EXIT_RUNTIME, "standard output: write failed: %s", strerror(errno));
        status = fail(&e);
        goto end;
    }
    /* Interrupted or not, finish what was written so the frames so far play.
     * Everything that can fail for want of memory or space is done first,
     * under temporary names; the main output is committed by sink_close, and
     * the probe CSV and manifest after it (renames only), so a failure leaves
     * no output of this run under its name (docs/output.md). */
    if (r.probes.f && probes_finish(&r.probes, o.probes, &e) < 0) {
        status = fail(&e);
        goto end;
    }
    if (o.manifest && manifest_write(r.manifest, &r.sc, !interrupted, &e) < 0) {
        status = fail(&e);
        goto end;
    }
    if ((r.sink && (pipeline_finish(r.pipe, &e) < 0 || sink_close(r.sink, &e) < 0))
        || resume_complete(r.resume, &e) < 0) {
        status = fail(&e);
        goto end;
    }
    show_progress(&r.progress, frames_done(&r, done), NULL);
    end_progress();
    if ((o.probes && outfile_commit(&r.probes.file, &e) < 0)
        || (o.manifest && manifest_commit(r.manifest, &e) < 0)) {
        status = fail(&e);
        goto end;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        rr_fail(&e, RR_EXIT_RUNTIME, "standard output: write failed: %s", strerror(errno));
        status = fail(&e);
        goto end;
    }
    if (!interrupted)
        resume_clean(r.resume);   /* the render is complete: its segments and record go */
    else if (resume_note_left(r.resume, o.manifest, &e) < 0) {
        status = fail(&e);
        goto end;
    }
    if (!interrupted && r.sink && state_last(r.state) == r.sc.time.frames - 1)
        warn_numbered_left(&r);
    if (o.check && !interrupted)
        fprintf(stderr, "ripplerender: %s: %ld %s\n", o.check, done, done == 1 ? "frame matches" : "frames match");
    if (interrupted) {
        bool piped = writes_output && !strcmp(r.sc.output.path, "-");   /* -o -: no file holds them */
        fprintf(stderr, "ripplerender: %s after %ld of %ld frames; %s%s%s\n",
                stdout_closed ? "standard output was closed (its reader went away): interrupted" : "interrupted",
                done, state_count(r.state), piped ? "standard output got the frames so far"
                : writes_output ? r.sc.output.path : "nothing", piped ? "" : " holds the frames so far",
                resume_kept(r.resume) ? " (--resume continues the render)" : "");
        status = RR_EXIT_INTERRUPTED;
    }
end:
    run_free(&r);
    if (status != RR_EXIT_OK)
        outfile_remove_made_dirs();   /* the empty ones: a folder that got an output stays */
    free(o.sets);
    free(o.args);
    return status;
}

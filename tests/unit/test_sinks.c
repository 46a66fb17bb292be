/* test_sinks.c: the output kinds on real files: the registry, atomic output
 * (outfile), .npy bytes, FFmpeg's framemd5 against frame_md5_hex, PNG
 * sequences (all-or-nothing, 16-bit grey), and video checked with ffprobe and
 * decoded back with ffmpeg. */
#define _GNU_SOURCE   /* memmem */
#include <dirent.h>
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <libdeflate.h>
#include <libavutil/log.h>

#include "framehash.h"
#include "outfile.h"
#include "sink.h"
#include "sink_fixture.h"

/* Number of entries of the test directory whose name starts with prefix. */
static int count_entries(const char *prefix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(d);
    return n;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void write_outfile(struct outfile *of, const char *text)
{
    struct rr_err e = { 0 };
    FILE *f = outfile_fopen(of, &e);
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

/* Runs a shell command and returns its standard output (malloc'd). */
static char *run(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while ((k = fread(buf + n, 1, cap - 1 - n, p)) > 0) {
        n += k;
        if (n + 1 >= cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[n] = '\0';
    int rc = pclose(p);
    if (rc != 0)
        fail_msg("command failed (%d): %s", rc, cmd);
    return buf;
}

static bool have_program(const char *name)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

/* ---- frames ---------------------------------------------------------------- */

struct frames {
    int w, h, n;
    uint8_t *rgb;       /* n frames */
    uint16_t *g16;
    float *heights;
};

static void frames_make(struct frames *fs, int w, int h, int n)
{
    fs->w = w;
    fs->h = h;
    fs->n = n;
    fs->rgb = malloc((size_t)w * h * 3 * n);
    fs->g16 = malloc((size_t)w * h * 2 * n);
    fs->heights = malloc((size_t)w * h * sizeof(float) * n);
    for (int i = 0; i < n; i++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t p = ((size_t)i * h + y) * w + x;
                fs->rgb[3 * p] = (uint8_t)(x * 4 + i * 20);
                fs->rgb[3 * p + 1] = (uint8_t)(y * 5 + i * 7);
                fs->rgb[3 * p + 2] = (uint8_t)((x + y) * 3 + i * 11);
                fs->g16[p] = (uint16_t)(p * 997 + 12345);
                fs->heights[p] = (float)x * 0.25f - (float)y * 0.5f + (float)i;
            }
}

static struct frame frame_at(const struct frames *fs, int i)
{
    size_t px = (size_t)fs->w * fs->h;
    struct frame fr = {
        .index = i, .width = fs->w, .height = fs->h,
        .rgb = fs->rgb + px * 3 * i, .gray16 = fs->g16 + px * i,
        .grid_w = fs->w, .grid_h = fs->h, .heights = fs->heights + px * i,
    };
    return fr;
}

static void frames_free(struct frames *fs)
{
    free(fs->rgb);
    free(fs->g16);
    free(fs->heights);
}

/* Writes every frame of fs to path through the sink registry, checking the
 * progress count on the way: never more than the frames written, all of them
 * once closed. Returns the most frames the sink held unfinished after a write. */
static long write_all(struct scene *sc, const struct frames *fs, bool overwrite)
{
    struct sink *s = NULL;
    struct rr_err e = { 0 };
    struct sink_params p = params(fs->w, fs->h, fs->n, overwrite);
    if (sink_open(&s, sc, &p, &e) < 0)
        fail_msg("sink_open: %s", e.msg);
    assert_int_equal(sink_frames_done(s), 0);
    long held = 0;
    for (int i = 0; i < fs->n; i++) {
        struct frame fr = frame_at(fs, i);
        if (sink_write(s, &fr, &e) < 0)
            fail_msg("sink_write: %s", e.msg);
        long done = sink_frames_done(s);
        if (done < 0 || done > i + 1)
            fail_msg("%s: %ld frames done after %d written", sc->output.path, done, i + 1);
        held = i + 1 - done > held ? i + 1 - done : held;
    }
    if (sink_close(s, &e) < 0)
        fail_msg("sink_close: %s", e.msg);
    assert_int_equal(sink_frames_done(s), fs->n);
    sink_free(s);
    return held;
}

/* ---- registry ---------------------------------------------------------------- */

static void test_sink_find(void **state)
{
    (void)state;
    struct rr_err e = { 0 };
    const struct sink_ops *v = sink_find("a.mp4", &e);
    assert_non_null(v);
    assert_string_equal(v->name, "video");
    assert_ptr_equal(sink_find("out/B.MKV", &e), v);
    assert_ptr_equal(sink_find("x.mov", &e), v);
    assert_ptr_equal(sink_find("x.WebM", &e), v);
    assert_string_equal(sink_find("x.framemd5", &e)->name, "hash");
    assert_ptr_equal(sink_find("x.FrameHash", &e), sink_find("x.framemd5", &e));
    assert_string_equal(sink_find("x.npy", &e)->name, "npy");
    assert_string_equal(sink_find("out/loop.GIF", &e)->name, "gif");
    assert_string_equal(sink_find("out/f%05d.png", &e)->name, "png");
    assert_string_equal(sink_find("100%%_%d.png", &e)->name, "png");
    assert_string_equal(sink_find("f%-3i.PNG", &e)->name, "png");
    assert_string_equal(sink_find("-", &e)->name, "pipe");
    assert_null(sink_find("out/-", &e));   /* a file named "-" in a folder has no kind */

    assert_null(sink_find("out.xyz", &e));
    assert_int_equal(e.status, RR_EXIT_USAGE);
    /* Every kind of the table in its order, as --help shows it: the
     * build's seven by hand (in their places), then any kind added after. */
    static const char *const shown_by_hand[] = { ".mp4 .mkv .mov .webm", ".gif", "NAME%05d.png",
                                                  ".framemd5 .framehash", ".npy", "NAME%05d.exr", "-" };
    const int by_hand = (int)(sizeof shown_by_hand / sizeof shown_by_hand[0]);
    char want[1024] = "out.xyz: unknown output kind (use ", shown[128];
    for (int i = 0; sink_kind_at(i); i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s",
                 i == 0 ? "" : sink_kind_at(i + 1) ? ", " : " or ",
                 i < by_hand ? shown_by_hand[i] : sink_kind_shown(sink_kind_at(i), shown, sizeof shown));
    snprintf(want + strlen(want), sizeof want - strlen(want), ")");
    assert_true(sink_kind_at(by_hand - 1) != NULL);
    assert_string_equal(e.msg, want);
    assert_null(sink_find("dir.mp4/noext", &e));
    assert_null(sink_find("f.png", &e));
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_null(sink_find("f%d_%d.png", &e));
    assert_null(sink_find("f%s.png", &e));
    assert_null(sink_find("f%ld.png", &e));
    assert_null(sink_find("f%%.png", &e));
    assert_null(sink_find("", &e));
}

/* ---- outfile ----------------------------------------------------------------- */

static void test_outfile(void **state)
{
    (void)state;
    struct rr_err e = { 0 };
    const char *target = in_dir("a.txt");
    write_text(target, "old");

    struct outfile of = { 0 };
    assert_int_equal(outfile_begin(&of, target, false, &e), -1);
    assert_int_equal(e.status, RR_EXIT_RUNTIME);
    char want[600];
    snprintf(want, sizeof want, "%s: already exists (use -y to replace it)", target);
    assert_string_equal(e.msg, want);
    char *txt = read_all(target, NULL);
    assert_string_equal(txt, "old");
    free(txt);
    assert_int_equal(count_entries(".a.txt."), 0);

    /* With overwrite: replaced at commit, and only then. The temporary file
     * has no name where the file system has O_TMPFILE, else it is
     * ".a.txt.XXXXXX.tmp"; libav* gets it as a file: URL. */
    assert_int_equal(outfile_begin(&of, target, true, &e), 0);
    assert_int_equal(strncmp(outfile_url(&of), "file:", 5), 0);
    assert_int_equal(count_entries(".a.txt."), of.temp ? 1 : 0);
    write_outfile(&of, "new");
    txt = read_all(target, NULL);
    assert_string_equal(txt, "old");
    free(txt);
    assert_int_equal(outfile_commit(&of, &e), 0);
    txt = read_all(target, NULL);
    assert_string_equal(txt, "new");
    free(txt);
    assert_int_equal(count_entries(".a.txt."), 0);
    outfile_abort(&of);   /* safe after commit */

    /* Abort leaves nothing, twice. */
    const char *b = in_dir("b.txt");
    assert_int_equal(outfile_begin(&of, b, false, &e), 0);
    write_outfile(&of, "x");
    outfile_abort(&of);
    outfile_abort(&of);
    assert_false(exists(b));
    assert_int_equal(count_entries(".b.txt."), 0);

    /* A target that appears while writing is not replaced without overwrite. */
    assert_int_equal(outfile_begin(&of, b, false, &e), 0);
    write_outfile(&of, "ours");
    write_text(b, "theirs");
    assert_int_equal(outfile_commit(&of, &e), -1);
    snprintf(want, sizeof want, "%s: already exists (use -y to replace it)", b);
    assert_string_equal(e.msg, want);
    txt = read_all(b, NULL);
    assert_string_equal(txt, "theirs");
    free(txt);
    assert_int_equal(count_entries(".b.txt."), 0);
    unlink(b);

    /* A named temporary file (PNG frames) is ".NAME.XXXXXX.tmp" beside the
     * target, cut to fit a 255-byte name. */
    char longname[256];
    memset(longname, 'n', 251);
    strcpy(longname + 251, ".txt");
    const char *lp = in_dir(longname);
    assert_int_equal(outfile_begin_named(&of, lp, false, &e), 0);
    assert_non_null(strstr(of.temp, "/.nnn"));
    assert_int_equal(strlen(strrchr(of.temp, '/') + 1), 255);
    assert_int_equal(count_entries(".nnn"), 1);
    write_outfile(&of, "long");
    assert_int_equal(outfile_commit(&of, &e), 0);
    assert_int_equal(count_entries(".nnn"), 0);
    assert_true(exists(lp));
    unlink(lp);

    /* A missing folder is made at begin; a file in the way is named. */
    const char *nodir = in_dir("nodir/c.txt");
    assert_int_equal(outfile_check_target(nodir, false, &e), 0);
    assert_int_equal(outfile_begin(&of, nodir, false, &e), 0);
    outfile_abort(&of);
    outfile_remove_made_dirs();
    assert_false(exists(in_dir("nodir")));
    const char *under = in_dir("a.txt/c.txt");
    assert_int_equal(outfile_begin(&of, under, false, &e), -1);
    snprintf(want, sizeof want, "%s: %s/a.txt is not a directory", under, dir);
    assert_string_equal(e.msg, want);
    outfile_abort(&of);
    unlink(target);
}

/* ---- npy ----------------------------------------------------------------------- */

static void test_npy(void **state)
{
    (void)state;
    struct frames fs;
    frames_make(&fs, 4, 3, 3);
    const char *path = in_dir("h.npy");
    struct scene sc;
    setup_scene(&sc, path, 4, 3);
    struct sink *s = NULL;
    struct rr_err e = { 0 };
    /* Expect 5 frames, write 3 (an interrupted run): the header must say 3. */
    struct sink_params p = params(4, 3, 5, false);
    assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
    assert_int_equal(sink_needs(s), RENDER_NEED_HEIGHTS);
    for (int i = 0; i < 3; i++) {
        struct frame fr = frame_at(&fs, i);
        assert_int_equal(sink_write(s, &fr, &e), 0);
    }
    assert_false(exists(path));
    assert_int_equal(sink_close(s, &e), 0);
    sink_free(s);

    size_t len;
    char *b = read_all(path, &len);
    assert_memory_equal(b, "\x93NUMPY\x01\x00", 8);
    size_t hl = (unsigned char)b[8] | (size_t)(unsigned char)b[9] << 8;
    assert_int_equal((10 + hl) % 64, 0);
    assert_int_equal(b[10 + hl - 1], '\n');
    char header[256];
    memcpy(header, b + 10, hl);
    header[hl] = '\0';
    assert_non_null(strstr(header, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 3, 4), }"));
    assert_int_equal(len, 10 + hl + 3 * 12 * sizeof(float));
    assert_memory_equal(b + 10 + hl, fs.heights, 3 * 12 * sizeof(float));
    float v;
    memcpy(&v, b + 10 + hl + 5 * sizeof(float), sizeof v);   /* frame 0, x=1 y=1 */
    assert_true(v == 0.25f - 0.5f);
    free(b);

    /* Existing file without overwrite: refused, untouched. */
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_null(s);
    assert_int_equal(e.status, RR_EXIT_RUNTIME);
    assert_int_equal(count_entries(".h.npy."), 0);
    unlink(path);
    frames_free(&fs);
}

/* ---- framemd5 / framehash -------------------------------------------------------- */

static void test_framemd5(void **state)
{
    (void)state;
    struct frames fs;
    frames_make(&fs, 8, 6, 3);
    const char *path = in_dir("f.framemd5");
    struct scene sc;
    setup_scene(&sc, path, 8, 6);
    assert_int_equal(write_all(&sc, &fs, false), 0);   /* each frame done as written */
    char *txt = read_all(path, NULL);
    char md5[3][33];
    for (int i = 0; i < 3; i++) {
        struct frame fr = frame_at(&fs, i);
        frame_md5_hex(&fr, md5[i]);
    }
    char want[2048];
    snprintf(want, sizeof want,
             "#format: frame checksums\n#version: 2\n#hash: MD5\n#tb 0: 1/30\n#media_type 0: video\n"
             "#codec_id 0: rawvideo\n#dimensions 0: 8x6\n#sar 0: 0/1\n"
             "#stream#, dts,        pts, duration,     size, hash\n"
             "0,          0,          0,        1,      144, %s\n"
             "0,          1,          1,        1,      144, %s\n"
             "0,          2,          2,        1,      144, %s\n",
             md5[0], md5[1], md5[2]);
    assert_string_equal(txt, want);
    assert_null(strstr(txt, "#software"));
    free(txt);

    /* --check reads it back in order. */
    struct framehash_golden g;
    struct rr_err e = { 0 };
    assert_int_equal(framehash_load(path, &g, 3, &e), 0);
    assert_int_equal(g.count, 3);
    for (int i = 0; i < 3; i++)
        assert_string_equal(g.md5s[i], md5[i]);
    /* ... with its header: what --check compares before rendering. */
    assert_int_equal(g.width, 8);
    assert_int_equal(g.height, 6);
    assert_string_equal(g.codec, "rawvideo");
    assert_string_equal(g.media, "video");
    assert_int_equal(g.frame_bytes, 144);
    assert_int_equal(g.frame_line, 10);
    assert_int_equal(framehash_fits(&g, path, 8, 6, 3, &e), 0);
    free(g.md5s);
    unlink(path);

    /* .framehash: the same muxer family, SHA-256 by default. */
    path = in_dir("f.framehash");
    setup_scene(&sc, path, 8, 6);
    write_all(&sc, &fs, false);
    txt = read_all(path, NULL);
    assert_non_null(strstr(txt, "#hash: SHA256\n"));
    free(txt);
    assert_int_equal(framehash_load(path, &g, 3, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    char msg[600];
    snprintf(msg, sizeof msg, "%s:3: the file holds SHA256 hashes, --check needs MD5 (a .framemd5 file)", path);
    assert_string_equal(e.msg, msg);
    unlink(path);
    frames_free(&fs);
}

static void test_framehash_load_hash_lines(void **state)
{
    (void)state;
    const char *path = in_dir("h.txt");
    write_text(path, "0 0123456789abcdef0123456789ABCDEF\n\n1 ffffffffffffffffffffffffffffffff\n");
    struct framehash_golden g;
    struct rr_err e = { 0 };
    assert_int_equal(framehash_load(path, &g, 2, &e), 0);
    assert_int_equal(g.count, 2);
    assert_string_equal(g.md5s[0], "0123456789abcdef0123456789abcdef");
    assert_string_equal(g.md5s[1], "ffffffffffffffffffffffffffffffff");
    /* No header: only the count can be compared. */
    assert_int_equal(g.width, 0);
    assert_int_equal(g.frame_bytes, 0);
    assert_int_equal(framehash_fits(&g, path, 8, 6, 2, &e), 0);
    free(g.md5s);

    /* A run of 1 frame: the file is read up to its second frame (line 3,
     * after the blank line), which is refused without reading on. */
    char msg[600];
    assert_int_equal(framehash_load(path, &g, 1, &e), 0);
    assert_int_equal(g.count, 1);
    assert_int_equal(g.over_line, 3);
    assert_int_equal(framehash_fits(&g, path, 8, 6, 1, &e), -1);
    assert_int_equal(e.status, RR_EXIT_MISMATCH);
    snprintf(msg, sizeof msg, "%s:3: frame count differs: the file has more than 1 frame, the scene renders 1", path);
    assert_string_equal(e.msg, msg);
    free(g.md5s);

    write_text(path, "0 0123456789abcdef0123456789abcdef\n2 0123456789abcdef0123456789abcdef\n");
    assert_int_equal(framehash_load(path, &g, 10, &e), -1);
    assert_null(g.md5s);
    snprintf(msg, sizeof msg, "%s:2: expected frame 1, got 2", path);
    assert_string_equal(e.msg, msg);

    write_text(path, "#x\n0, 0, 0, 1, 9, nothex\n");
    assert_int_equal(framehash_load(path, &g, 10, &e), -1);
    snprintf(msg, sizeof msg, "%s:2: expected an MD5 of 32 hex digits, got \"nothex\"", path);
    assert_string_equal(e.msg, msg);
    assert_int_equal(e.status, RR_EXIT_USAGE);

    assert_int_equal(framehash_load(in_dir("missing.framemd5"), &g, 10, &e), -1);
    assert_non_null(strstr(e.msg, "missing.framemd5: cannot read: No such file or directory"));
    unlink(path);
}

/* framehash_fits: each way a golden cannot describe the scene's frames, one
 * line, status 3, from the golden's own header and size column. */
static void test_framehash_fits(void **state)
{
    (void)state;
    const char *path = in_dir("g.framemd5");
    const char *head = "#format: frame checksums\n#version: 2\n#hash: MD5\n#tb 0: 1/30\n";
    const char *md5 = "0123456789abcdef0123456789abcdef";
#define REMEDY "make it with ffmpeg -i IN -pix_fmt rgb24 -f framemd5 OUT"
    struct {
        const char *media, *codec, *dims;
        int size;                 /* of each frame, bytes */
        int frames;
        const char *want;         /* the message after "PATH" */
    } cases[] = {
        { "video", "rawvideo", "8x6", 144, 2, NULL },
        { "video", "rawvideo", "8x6", 144, 3, ":11: frame count differs: the file has more than 2 frames, the scene renders 2" },
        { "video", "rawvideo", "8x6", 144, 1, ": frame count differs: the file has 1 frame, the scene renders 2" },
        { "video", "rawvideo", "16x6", 288, 2,
          ": size differs: the file's frames are 16x6 (#dimensions 0), the scene renders 8x6" },
        { "video", "rawvideo", "8x6", 72, 2,
          ":9: pixel format differs: the file's frames are 72 bytes, rgb24 at 8x6 is 144 (the size of yuv420p "
          "frames: made without -pix_fmt rgb24); " REMEDY },
        { "video", "rawvideo", "8x6", 100, 2,
          ":9: pixel format differs: the file's frames are 100 bytes, rgb24 at 8x6 is 144 (another pixel "
          "format: made without -pix_fmt rgb24); " REMEDY },
        { "video", "h264", "8x6", 31, 2,
          ": codec differs: the file hashes h264 packets (#codec_id 0), --check needs decoded rgb24 frames "
          "(rawvideo); " REMEDY },
        { "audio", "pcm_s16le", "", 4, 2,
          ": stream 0 differs: the file's header says audio (#media_type 0), --check needs video; " REMEDY },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char txt[2048], want[600];
        int len = snprintf(txt, sizeof txt, "%s#media_type 0: %s\n#codec_id 0: %s\n#dimensions 0: %s\n"
                           "#stream#, dts,        pts, duration,     size, hash\n", head, cases[k].media,
                           cases[k].codec, cases[k].dims);
        for (int i = 0; i < cases[k].frames; i++)
            len += snprintf(txt + len, sizeof txt - (size_t)len, "0, %d, %d, 1, %d, %s\n", i, i, cases[k].size, md5);
        write_text(path, txt);
        struct framehash_golden g;
        struct rr_err e = { 0 };
        assert_int_equal(framehash_load(path, &g, 2, &e), 0);   /* the run's 2 frames */
        int rc = framehash_fits(&g, path, 8, 6, 2, &e);
        free(g.md5s);
        if (!cases[k].want) {
            assert_int_equal(rc, 0);
            continue;
        }
        assert_int_equal(rc, -1);
        assert_int_equal(e.status, RR_EXIT_MISMATCH);
        snprintf(want, sizeof want, "%s%s", path, cases[k].want);
        assert_string_equal(e.msg, want);
    }
    unlink(path);
#undef REMEDY
}

/* ---- PNG sequences ------------------------------------------------------------------ */

static void test_pngseq_atomic(void **state)
{
    (void)state;
    struct frames fs;
    frames_make(&fs, 5, 4, 3);
    const char *pattern = in_dir("p%03d.png");
    struct scene sc;
    setup_scene(&sc, pattern, 5, 4);
    struct sink *s = NULL;
    struct rr_err e = { 0 };
    struct sink_params p = params(5, 4, 3, false);

    /* free without close: nothing at all is left. */
    assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
    assert_int_equal(sink_needs(s), 0);
    for (int i = 0; i < 2; i++) {
        struct frame fr = frame_at(&fs, i);
        assert_int_equal(sink_write(s, &fr, &e), 0);
    }
    assert_int_equal(count_entries(".p00"), 2);
    sink_free(s);
    assert_int_equal(count_entries(".p00"), 0);
    assert_int_equal(count_entries("p00"), 0);

    /* Files appear only at close. */
    assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
    for (int i = 0; i < 3; i++) {
        struct frame fr = frame_at(&fs, i);
        assert_int_equal(sink_write(s, &fr, &e), 0);
    }
    assert_int_equal(count_entries("p00"), 0);
    assert_int_equal(sink_close(s, &e), 0);
    sink_free(s);
    assert_int_equal(count_entries("p00"), 3);
    assert_int_equal(count_entries(".p00"), 0);

    /* Read frame 2 back: the same rgb bytes. */
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, in_dir("p002.png")));
    assert_int_equal(img.width, 5);
    assert_int_equal(img.height, 4);
    img.format = PNG_FORMAT_RGB;
    uint8_t px[5 * 4 * 3];
    assert_true(png_image_finish_read(&img, NULL, px, 0, NULL));
    assert_memory_equal(px, fs.rgb + 2 * sizeof px, sizeof px);

    /* Any existing target of the run refuses the open. */
    unlink(in_dir("p000.png"));
    unlink(in_dir("p001.png"));
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: already exists (use -y to replace it)", in_dir("p002.png"));
    assert_string_equal(e.msg, want);
    assert_false(exists(in_dir("p000.png")));
    /* With overwrite it goes through. */
    p.overwrite = true;
    assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
    sink_free(s);
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "p%03d.png", i);
        unlink(in_dir(name));
    }
    frames_free(&fs);
}

static void test_pngseq_gray16(void **state)
{
    (void)state;
    struct frames fs;
    frames_make(&fs, 7, 3, 1);
    const char *pattern = in_dir("g%d.png");
    struct scene sc;
    setup_scene(&sc, pattern, 7, 3);
    sc.output.bit_depth = 16;
    struct sink *s = NULL;
    struct rr_err e = { 0 };
    struct sink_params p = params(7, 3, 1, false);
    assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
    assert_int_equal(sink_needs(s), RENDER_NEED_GRAY16);
    struct frame fr = frame_at(&fs, 0);
    assert_int_equal(sink_write(s, &fr, &e), 0);
    assert_int_equal(sink_close(s, &e), 0);
    sink_free(s);

    /* IHDR: bit depth 16, colour type 0 (grey). */
    size_t len;
    char *b = read_all(in_dir("g0.png"), &len);
    assert_true(len > 26);
    assert_memory_equal(b + 12, "IHDR", 4);
    assert_int_equal((unsigned char)b[24], 16);
    assert_int_equal((unsigned char)b[25], 0);
    free(b);

    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, in_dir("g0.png")));
    assert_true(img.format & PNG_FORMAT_FLAG_LINEAR);
    assert_false(img.format & PNG_FORMAT_FLAG_COLOR);
    img.format = PNG_FORMAT_LINEAR_Y;
    uint16_t px[7 * 3];
    assert_true(png_image_finish_read(&img, NULL, px, 0, NULL));
    assert_memory_equal(px, fs.g16, sizeof px);
    unlink(in_dir("g0.png"));

    /* Another mode: the sink asks for grey the same way, the renderer gives
     * 16-bit colour (frame.h), written from the deep picture as RGB. */
    sc.render.mode = RENDER_COLORMAP;
    assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
    assert_int_equal(sink_needs(s), RENDER_NEED_GRAY16);
    sink_free(s);
    /* With alpha: 16-bit colour and alpha from the deep picture, not grey. */
    sc.render.mode = RENDER_HEIGHT;
    sc.render.alpha = ALPHA_HEIGHT;
    assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
    assert_int_equal(sink_needs(s), RENDER_NEED_RGB16 | RENDER_NEED_ALPHA);
    sink_free(s);
    frames_free(&fs);
}

/* Writes fs through a PNG sink of pattern with `threads` threads (so
 * sink_png_jobs(threads) frames in flight) and returns the files' bytes, one
 * after another, with their lengths in lens[]. */
static unsigned char *png_set_bytes(struct scene *sc, const struct frames *fs, int threads, size_t *lens,
                                    size_t *total)
{
    struct sink *s = NULL;
    struct rr_err e = { 0 };
    struct sink_params p = params(fs->w, fs->h, fs->n, true);
    p.threads = threads;
    if (sink_open(&s, sc, &p, &e) < 0)
        fail_msg("sink_open: %s", e.msg);
    for (int i = 0; i < fs->n; i++) {
        struct frame fr = frame_at(fs, i);
        if (sink_write(s, &fr, &e) < 0)
            fail_msg("sink_write: %s", e.msg);
        assert_true(sink_frames_done(s) <= i + 1);
    }
    assert_int_equal(sink_close(s, &e), 0);
    assert_int_equal(sink_frames_done(s), fs->n);
    sink_free(s);
    unsigned char *all = NULL;
    *total = 0;
    for (int i = 0; i < fs->n; i++) {
        char name[600];
        snprintf(name, sizeof name, "%s/par%02d.png", dir, i);   /* the pattern of test_pngseq_parallel */
        char *b = read_all(name, &lens[i]);
        all = realloc(all, *total + lens[i]);
        memcpy(all + *total, b, lens[i]);
        *total += lens[i];
        free(b);
        unlink(name);
    }
    return all;
}

/* The simplified API's file for frame i of fs (PNG_IMAGE_FLAG_FAST), as the
 * sink wrote them through libpng. */
static unsigned char *png_simplified(const struct frames *fs, int i, bool gray16, size_t *len)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)fs->w;
    img.height = (png_uint_32)fs->h;
    img.flags = PNG_IMAGE_FLAG_FAST;
    img.format = gray16 ? PNG_FORMAT_LINEAR_Y : PNG_FORMAT_RGB;
    size_t px = (size_t)fs->w * fs->h;
    const void *pixels = gray16 ? (const void *)(fs->g16 + px * i) : (const void *)(fs->rgb + px * 3 * i);
    png_alloc_size_t n = 0;
    assert_true(png_image_write_to_memory(&img, NULL, &n, 0, pixels, 0, NULL));
    unsigned char *b = malloc(n);
    assert_true(png_image_write_to_memory(&img, b, &n, 0, pixels, 0, NULL));
    *len = n;
    return b;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A PNG file's parts: the bytes before its first IDAT chunk (*head), its IDAT
 * chunks' data joined (returned, malloc'd, *z bytes) and their count
 * (*chunks). Asserts the IDAT chunks are consecutive, none longer than
 * 2^18 bytes and all but the last exactly that long, and the file ends
 * with IEND right after them. */
static unsigned char *png_parts(const unsigned char *f, size_t len, size_t *head, size_t *z, int *chunks)
{
    size_t p = 8;
    while (p + 8 <= len && memcmp(f + p + 4, "IDAT", 4) != 0)
        p += 12 + be32(f + p);
    *head = p;
    unsigned char *out = malloc(len);
    *z = 0;
    *chunks = 0;
    size_t last = 0;
    for (; p + 8 <= len && memcmp(f + p + 4, "IDAT", 4) == 0; p += 12 + last) {
        assert_true(*chunks == 0 || *z % ((size_t)1 << 18) == 0);
        last = be32(f + p);
        assert_true(last <= (size_t)1 << 18 && p + 12 + last <= len);
        memcpy(out + *z, f + p + 8, last);
        *z += last;
        ++*chunks;
    }
    assert_int_equal(len - p, 12);
    assert_memory_equal(f + p, "\0\0\0\0IEND\xae\x42\x60\x82", 12);
    return out;
}

/* libdeflate's zlib stream of n bytes at `level` (malloc'd, *zn bytes). */
static unsigned char *deflate_ref(const unsigned char *rows, size_t n, int level, size_t *zn)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    assert_non_null(c);
    size_t cap = libdeflate_zlib_compress_bound(c, n);
    unsigned char *z = malloc(cap);
    *zn = libdeflate_zlib_compress(c, rows, n, z, cap);
    assert_true(*zn > 0);
    libdeflate_free_compressor(c);
    return z;
}

/* Frame i of fs as a PNG stores it unfiltered: each row a 0 (filter type
 * none), then rgb bytes or big-endian 16-bit grey (malloc'd, *n bytes). */
static unsigned char *rows_none(const struct frames *fs, int i, bool gray16, size_t *n)
{
    size_t row = (size_t)fs->w * (gray16 ? 2 : 3), px = (size_t)fs->w * fs->h;
    unsigned char *r = malloc((row + 1) * fs->h), *o = r;
    for (int y = 0; y < fs->h; y++) {
        *o++ = 0;
        for (int x = 0; x < fs->w; x++) {
            size_t k = px * i + (size_t)y * fs->w + x;
            if (gray16) {
                *o++ = (unsigned char)(fs->g16[k] >> 8);
                *o++ = (unsigned char)fs->g16[k];
            } else {
                memcpy(o, fs->rgb + 3 * k, 3);
                o += 3;
            }
        }
    }
    *n = (row + 1) * fs->h;
    return r;
}

static void test_pngseq_parallel(void **state)
{
    (void)state;
    /* Gradients with a little noise, which the levels pack differently. */
    struct frames fs;
    frames_make(&fs, 61, 37, 7);
    for (size_t k = 0; k < (size_t)61 * 37 * 3 * 7; k++)
        fs.rgb[k] = (uint8_t)(k / 3 % 61 / 8 * 32 + ((k * 2654435761u) >> 30));
    for (size_t k = 0; k < (size_t)61 * 37 * 7; k++)
        fs.g16[k] = (uint16_t)(k % 61 / 8 * 4096 + ((k * 2654435761u) >> 30));
    struct scene sc;
    setup_scene(&sc, in_dir("par%02d.png"), 61, 37);
    size_t lens[7], lens1[7], total, total1;
    for (int gray = 0; gray < 2; gray++) {
        sc.output.bit_depth = gray ? 16 : 8;
        sc.output.compression = 3;
        /* 1 thread (compressed by write itself), 2 and 8: the same files. */
        unsigned char *one = png_set_bytes(&sc, &fs, 1, lens1, &total1);
        for (int t = 2; t <= 8; t += 6) {
            unsigned char *par = png_set_bytes(&sc, &fs, t, lens, &total);
            assert_int_equal(total, total1);
            assert_memory_equal(par, one, total);
            free(par);
        }
        /* The signature, IHDR and colour chunks of the simplified API's files
         * (sRGB, or gAMA 1.0 and cHRM for linear grey). */
        size_t off = 0;
        for (int i = 0; i < 7; i++) {
            size_t n, head, ref_head, zn;
            int chunks;
            unsigned char *ref = png_simplified(&fs, i, gray, &n);
            free(png_parts(ref, n, &ref_head, &zn, &chunks));
            free(png_parts(one + off, lens1[i], &head, &zn, &chunks));
            assert_int_equal(head, ref_head);
            assert_memory_equal(one + off, ref, head);
            off += lens1[i];
            free(ref);
        }
        free(one);
        /* Every level acts: each file's image data is libdeflate's zlib
         * stream of the unfiltered rows at that level, and reads back to the
         * frame through libpng (which checks every CRC). Level 0 stores, so
         * its files are larger than the raw rows; on the rgb frames level 1
         * (the fastest) packs less than level 5 (the grey ones are mostly
         * noise, the same size at every level but 0). */
        size_t sizes[10];
        for (int level = 0; level <= 9; level++) {
            sc.output.compression = level;
            unsigned char *all = png_set_bytes(&sc, &fs, 2, lens, &total);
            off = 0;
            for (int i = 0; i < 7; i++) {
                size_t head, zn, rn, refn;
                int chunks;
                unsigned char *z = png_parts(all + off, lens[i], &head, &zn, &chunks);
                unsigned char *rows = rows_none(&fs, i, gray, &rn);
                unsigned char *ref = deflate_ref(rows, rn, level, &refn);
                assert_int_equal(chunks, 1);
                assert_int_equal(zn, refn);
                assert_memory_equal(z, ref, zn);
                if (level == 0)
                    assert_true(zn > rn);
                free(z);
                free(rows);
                free(ref);

                png_image img;
                memset(&img, 0, sizeof img);
                img.version = PNG_IMAGE_VERSION;
                assert_true(png_image_begin_read_from_memory(&img, all + off, lens[i]));
                size_t px = (size_t)61 * 37;
                img.format = gray ? PNG_FORMAT_LINEAR_Y : PNG_FORMAT_RGB;
                unsigned char *back = malloc(px * 3);
                assert_true(png_image_finish_read(&img, NULL, back, 0, NULL));
                if (gray)
                    assert_memory_equal(back, fs.g16 + px * i, px * 2);
                else
                    assert_memory_equal(back, fs.rgb + px * 3 * i, px * 3);
                free(back);
                off += lens[i];
            }
            sizes[level] = total;
            free(all);
        }
        if (!gray)
            assert_true(sizes[0] > sizes[1] && sizes[1] > sizes[5]);
    }
    /* Out of range: refused at open, naming the key. */
    sc.output.compression = 10;
    struct sink *s = NULL;
    struct rr_err e = { 0 };
    struct sink_params p = params(61, 37, 7, true);
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_string_equal(e.msg, "output.compression: expected 0 to 9, got 10");
    assert_int_equal(e.status, RR_EXIT_USAGE);
    /* frames in flight: one without workers, a worker per thread plus one, at most 16 workers. */
    assert_int_equal(sink_png_jobs(0), 1);
    assert_int_equal(sink_png_jobs(1), 1);
    assert_int_equal(sink_png_jobs(2), 3);
    assert_int_equal(sink_png_jobs(64), SINK_PNG_WORKERS_MAX + 1);
    frames_free(&fs);
}

/* libpng's full API reading path's rows, 16-bit samples swapped to
 * little-endian: the file's pixels as the frame's deep picture holds them
 * (malloc'd). Asserts the IHDR's size, depth and colour type. */
static unsigned char *png_read_raw(const char *path, int w, int h, int bits, int color_type)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png)))
        fail_msg("libpng cannot read %s", path);
    png_init_io(png, f);
    png_read_png(png, info, PNG_TRANSFORM_SWAP_ENDIAN, NULL);
    assert_int_equal(png_get_image_width(png, info), w);
    assert_int_equal(png_get_image_height(png, info), h);
    assert_int_equal(png_get_bit_depth(png, info), bits);
    assert_int_equal(png_get_color_type(png, info), color_type);
    size_t row = png_get_rowbytes(png, info);
    unsigned char *px = malloc(row * h), **rows = (unsigned char **)png_get_rows(png, info);
    for (int y = 0; y < h; y++)
        memcpy(px + row * y, rows[y], row);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    return px;
}

/* The deep picture (alpha, or 16-bit colour in a mode other than height):
 * RGBA or RGB at 8 or 16 bits, each row Sub-filtered, 16-bit samples
 * big-endian; a frame whose data takes more than 2^18 bytes comes in
 * several IDAT chunks. */
static void test_pngseq_deep(void **state)
{
    (void)state;
    /* 2 x 2 pixels of 16-bit RGBA and the rows the file stores, by hand:
     * each pixel's bytes less those of the pixel to its left. */
    static const uint16_t rgba16[16] = { 0x0102, 0x0304, 0x0506, 0xffff, 0x0203, 0x0405, 0x0607, 0x8000,
                                         0x1000, 0x2000, 0x3000, 0x4000, 0x0fff, 0x2001, 0x3000, 0x0000 };
    static const unsigned char sub16[2 * 17] = {
        1, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0xff, 0xff, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x81, 0x01,
        1, 0x10, 0x00, 0x20, 0x00, 0x30, 0x00, 0x40, 0x00, 0xff, 0xff, 0x00, 0x01, 0x00, 0x00, 0xc0, 0x00,
    };
    /* 3 x 1 pixels of 8-bit RGBA. */
    static const uint8_t rgba8[12] = { 10, 20, 30, 255, 15, 10, 30, 0, 0, 0, 0, 128 };
    static const unsigned char sub8[13] = { 1, 10, 20, 30, 255, 5, 246, 0, 1, 241, 246, 226, 128 };
    struct {
        int w, h, bits, channels, alpha;
        const void *px;
        const unsigned char *rows;
    } cases[] = {
        { 2, 2, 16, 4, ALPHA_HEIGHT, rgba16, sub16 },
        { 3, 1, 8, 4, ALPHA_HEIGHT, rgba8, sub8 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct scene sc;
        setup_scene(&sc, in_dir("d%d.png"), cases[c].w, cases[c].h);
        sc.output.bit_depth = cases[c].bits;
        sc.render.alpha = cases[c].alpha;
        struct sink *s = NULL;
        struct rr_err e = { 0 };
        struct sink_params p = params(cases[c].w, cases[c].h, 1, true);
        p.alpha = cases[c].alpha;
        assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
        struct frame fr = { .index = 0, .width = cases[c].w, .height = cases[c].h, .rgb = (const uint8_t *)"",
                            .grid_w = cases[c].w, .grid_h = cases[c].h, .deep = cases[c].px,
                            .deep_bits = cases[c].bits, .deep_channels = cases[c].channels };
        assert_int_equal(sink_write(s, &fr, &e), 0);
        assert_int_equal(sink_close(s, &e), 0);
        sink_free(s);
        size_t len, head, zn, rn = (size_t)cases[c].h * (1 + (size_t)cases[c].w * 4 * cases[c].bits / 8), refn;
        int chunks;
        unsigned char *f = (unsigned char *)read_all(in_dir("d0.png"), &len);
        unsigned char *z = png_parts(f, len, &head, &zn, &chunks);
        unsigned char *ref = deflate_ref(cases[c].rows, rn, 3, &refn);
        assert_int_equal(zn, refn);
        assert_memory_equal(z, ref, zn);
        unsigned char *back = png_read_raw(in_dir("d0.png"), cases[c].w, cases[c].h, cases[c].bits,
                                           PNG_COLOR_TYPE_RGB_ALPHA);
        assert_memory_equal(back, cases[c].px, rn - (size_t)cases[c].h);
        free(back);
        free(ref);
        free(z);
        free(f);
        unlink(in_dir("d0.png"));
    }

    /* 16-bit RGB of noise, 300 x 250 (450000 bytes that do not pack): two
     * IDAT chunks, 1 and 2 threads the same bytes, read back to the frame. */
    int w = 300, h = 250;
    uint16_t *noise = malloc((size_t)w * h * 3 * 2);
    uint32_t x = 2463534242u;   /* xorshift32 */
    for (size_t k = 0; k < (size_t)w * h * 3; k++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        noise[k] = (uint16_t)x;
    }
    struct scene sc;
    setup_scene(&sc, in_dir("d%d.png"), w, h);
    sc.output.bit_depth = 16;
    sc.render.mode = RENDER_SHADED;
    unsigned char *files[2];
    size_t lens[2];
    for (int t = 1; t <= 2; t++) {
        struct sink *s = NULL;
        struct rr_err e = { 0 };
        struct sink_params p = params(w, h, 1, true);
        p.threads = t;
        assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
        struct frame fr = { .index = 0, .width = w, .height = h, .rgb = (const uint8_t *)"", .grid_w = w,
                            .grid_h = h, .deep = noise, .deep_bits = 16, .deep_channels = 3 };
        assert_int_equal(sink_write(s, &fr, &e), 0);
        assert_int_equal(sink_close(s, &e), 0);
        sink_free(s);
        files[t - 1] = (unsigned char *)read_all(in_dir("d0.png"), &lens[t - 1]);
    }
    assert_int_equal(lens[0], lens[1]);
    assert_memory_equal(files[0], files[1], lens[0]);
    size_t head, zn;
    int chunks;
    free(png_parts(files[0], lens[0], &head, &zn, &chunks));
    assert_int_equal(chunks, 2);
    unsigned char *back = png_read_raw(in_dir("d0.png"), w, h, 16, PNG_COLOR_TYPE_RGB);
    assert_memory_equal(back, noise, (size_t)w * h * 6);
    free(back);
    free(files[0]);
    free(files[1]);
    free(noise);
    unlink(in_dir("d0.png"));
}

/* A file that cannot be written (a file-size limit, SIGXFSZ ignored as
 * main.c does) fails the write or the close that takes the frame back, naming
 * the frame's file and errno's reason; free then leaves nothing. */
static void test_pngseq_parallel_error(void **state)
{
    (void)state;
    struct frames fs;
    frames_make(&fs, 40, 30, 5);
    for (size_t k = 0; k < (size_t)40 * 30 * 3 * 5; k++)
        fs.rgb[k] = (uint8_t)((k * 2654435761u) >> 11);
    struct scene sc;
    setup_scene(&sc, in_dir("lim%d.png"), 40, 30);
    for (int threads = 1; threads <= 2; threads++) {
        struct sink *s = NULL;
        struct rr_err e = { 0 };
        struct sink_params p = params(40, 30, 5, false);
        p.threads = threads;
        assert_int_equal(sink_open(&s, &sc, &p, &e), 0);
        struct rlimit old, lim;
        getrlimit(RLIMIT_FSIZE, &old);
        lim = old;
        lim.rlim_cur = 200;   /* a frame of noise is some 3600 bytes */
        void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        int rc = 0;
        for (int i = 0; i < 5 && rc == 0; i++) {
            struct frame fr = frame_at(&fs, i);
            rc = sink_write(s, &fr, &e);
        }
        if (rc == 0)
            rc = sink_close(s, &e);
        setrlimit(RLIMIT_FSIZE, &old);
        signal(SIGXFSZ, was);
        assert_int_equal(rc, -1);
        char want[700];
        snprintf(want, sizeof want, "%s: cannot write PNG: File too large", in_dir("lim0.png"));
        assert_string_equal(e.msg, want);
        sink_free(s);
        assert_int_equal(count_entries(".lim"), 0);
        assert_int_equal(count_entries("lim"), 0);
    }
    frames_free(&fs);
}

/* ---- video -------------------------------------------------------------------------- */

static const char *probe_value(const char *out, const char *key, char *buf, size_t n)
{
    char k[64];
    snprintf(k, sizeof k, "%s=", key);
    for (const char *p = out; (p = strstr(p, k)); p++) {
        if (p == out || p[-1] == '\n') {
            p += strlen(k);
            size_t l = strcspn(p, "\n");
            snprintf(buf, n, "%.*s", (int)l, p);
            return buf;
        }
    }
    fail_msg("ffprobe printed no %s in:\n%s", key, out);
    return NULL;
}

/* dur_section: "stream" (mp4: the stream's exact duration; the format's is
 * rounded up to the movie header's 1/1000 s) or "format" (webm has no stream
 * duration). */
static void probe_video(const char *path, const char *codec, const char *pix, int w, int h, int frames,
                        const char *dur_section, const char *duration)
{
    if (!have_program("ffprobe"))
        skip();
    char cmd[1024], v[64];
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
             "stream=codec_name,pix_fmt,width,height,nb_read_frames%s -of default=nw=1 '%s'",
             strcmp(dur_section, "stream") == 0 ? ",duration" : ":format=duration", path);
    char *out = run(cmd);
    assert_string_equal(probe_value(out, "codec_name", v, sizeof v), codec);
    assert_string_equal(probe_value(out, "pix_fmt", v, sizeof v), pix);
    assert_int_equal(atoi(probe_value(out, "width", v, sizeof v)), w);
    assert_int_equal(atoi(probe_value(out, "height", v, sizeof v)), h);
    assert_int_equal(atoi(probe_value(out, "nb_read_frames", v, sizeof v)), frames);
    assert_string_equal(probe_value(out, "duration", v, sizeof v), duration);
    free(out);
}

static void test_video_mp4(void **state)
{
    (void)state;
    struct frames fs;
    frames_make(&fs, 64, 48, 10);
    const char *path = in_dir("v.mp4");
    struct scene sc;
    setup_scene(&sc, path, 64, 48);
    /* libx264 holds frames for its lookahead: they are not done when written. */
    assert_true(write_all(&sc, &fs, false) > 0);
    assert_int_equal(count_entries(".v.mp4."), 0);
    probe_video(path, "h264", "yuv420p", 64, 48, 10, "stream", "0.333333");
    if (have_program("ffprobe")) {
        /* Browser-friendly: avc1 tag, moov before mdat (faststart). */
        char cmd[600];
        snprintf(cmd, sizeof cmd, "ffprobe -v error -show_entries stream=codec_tag_string -of default=nw=1 '%s'", path);
        char *out = run(cmd);
        assert_string_equal(out, "codec_tag_string=avc1\n");
        free(out);
        size_t len;
        char *b = read_all(path, &len);
        char *moov = memmem(b, len, "moov", 4), *mdat = memmem(b, len, "mdat", 4);
        assert_non_null(moov);
        assert_non_null(mdat);
        assert_true(moov < mdat);
        free(b);
    }
    unlink(path);
    frames_free(&fs);
}

static void test_video_odd_size(void **state)
{
    (void)state;
    struct frames fs;
    frames_make(&fs, 63, 47, 4);
    const char *path = in_dir("odd.mp4");
    struct scene sc;
    setup_scene(&sc, path, 63, 47);
    write_all(&sc, &fs, false);
    probe_video(path, "h264", "yuv420p", 64, 48, 4, "stream", "0.133333");
    unlink(path);
    frames_free(&fs);
}

static void test_video_webm(void **state)
{
    (void)state;
    struct frames fs;
    frames_make(&fs, 64, 48, 10);
    const char *path = in_dir("v.webm");
    struct scene sc;
    setup_scene(&sc, path, 64, 48);
    write_all(&sc, &fs, false);
    probe_video(path, "vp9", "yuv420p", 64, 48, 10, "format", "0.333000");
    unlink(path);
    frames_free(&fs);
}

static void test_video_ffv1_roundtrip(void **state)
{
    (void)state;
    if (!have_program("ffmpeg"))
        skip();
    struct frames fs;
    frames_make(&fs, 40, 30, 5);
    const char *path = in_dir("lossless.mkv");
    struct scene sc;
    setup_scene(&sc, path, 40, 30);
    strcpy(sc.output.codec, "ffv1");
    write_all(&sc, &fs, false);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ffmpeg -v error -i '%s' -pix_fmt rgb24 -f framemd5 -", path);
    char *out = run(cmd);
    int n = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char md5[33];
        struct frame fr = frame_at(&fs, n);
        frame_md5_hex(&fr, md5);
        const char *last = strrchr(line, ',');
        assert_non_null(last);
        assert_string_equal(last + 2, md5);
        n++;
    }
    assert_int_equal(n, 5);
    free(out);
    unlink(path);
    frames_free(&fs);
}

static void test_video_errors(void **state)
{
    (void)state;
    struct scene sc;
    struct sink *s = NULL;
    struct rr_err e = { 0 };
    struct sink_params p = params(64, 48, 1, false);
    const char *path = in_dir("bad.mp4");
    setup_scene(&sc, path, 64, 48);
    strcpy(sc.output.codec, "x264nope");
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_string_equal(e.msg, "output.codec: \"x264nope\" is not an encoder in this FFmpeg");

    setup_scene(&sc, path, 64, 48);
    strcpy(sc.output.pix_fmt, "rgb24");
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_int_equal(e.status, RR_EXIT_USAGE);
    /* The list is libx264's own (Debian 12: yuv420p first, ... gray10le last). */
    const char *head = "output.pix_fmt: \"rgb24\" is not supported by libx264 (supported: yuv420p, yuvj420p, ";
    if (strncmp(e.msg, head, strlen(head)) != 0 || e.msg[strlen(e.msg) - 1] != ')')
        fail_msg("got: %s", e.msg);

    setup_scene(&sc, path, 64, 48);
    strcpy(sc.output.pix_fmt, "nosuchfmt");
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_string_equal(e.msg, "output.pix_fmt: \"nosuchfmt\" is not a pixel format");

    setup_scene(&sc, path, 64, 48);
    strcpy(sc.output.codec, "ffv1");
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_string_equal(e.msg, "output.codec: ffv1 cannot be stored in a .mp4 file");

    setup_scene(&sc, in_dir("bad.mkv"), 64, 48);
    strcpy(sc.output.codec, "ffv1");
    sc.output.crf = 10;
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_string_equal(e.msg, "output.crf: ffv1 has no crf option");

    setup_scene(&sc, in_dir("bad.webm"), 64, 48);
    strcpy(sc.output.codec, "libx264");
    assert_int_equal(sink_open(&s, &sc, &p, &e), -1);
    assert_string_equal(e.msg, "output.codec: libx264 cannot be stored in a .webm file");
    assert_int_equal(count_entries(".bad."), 0);
    assert_false(exists(path));
}

static int group_setup(void **state)
{
    (void)state;
    av_log_set_level(AV_LOG_ERROR);
    return fixture_dir_make("/tmp/rr_sinks_XXXXXX");
}

static int group_teardown(void **state)
{
    (void)state;
    return fixture_dir_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sink_find),
        cmocka_unit_test(test_outfile),
        cmocka_unit_test(test_npy),
        cmocka_unit_test(test_framemd5),
        cmocka_unit_test(test_framehash_load_hash_lines),
        cmocka_unit_test(test_framehash_fits),
        cmocka_unit_test(test_pngseq_atomic),
        cmocka_unit_test(test_pngseq_gray16),
        cmocka_unit_test(test_pngseq_parallel),
        cmocka_unit_test(test_pngseq_deep),
        cmocka_unit_test(test_pngseq_parallel_error),
        cmocka_unit_test(test_video_mp4),
        cmocka_unit_test(test_video_odd_size),
        cmocka_unit_test(test_video_webm),
        cmocka_unit_test(test_video_ffv1_roundtrip),
        cmocka_unit_test(test_video_errors),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

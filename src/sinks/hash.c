/* sinks/hash.c: .framemd5 and .framehash outputs through FFmpeg's own hash
 * muxers (one rgb24 rawvideo stream), the MD5 of a frame for --hash, and the
 * reader of expected hashes for --check. */
#include "framehash.h"
#include "join.h"
#include "md5lanes.h"
#include "outfile.h"
#include "sinks.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libavformat/avformat.h>
#include <libavutil/mathematics.h>
#include <libavutil/md5.h>

void frame_md5_hex(const struct frame *fr, char out[33])
{
    uint8_t d[16];
    av_md5_sum(d, fr->rgb, (size_t)fr->width * fr->height * 3);
    md5_hex(d, out);
}

/* ---- the sink ------------------------------------------------------------ */

struct hash_sink {
    const char *muxer;          /* "framemd5" or "framehash" */
    const char *path;
    struct outfile file;
    AVFormatContext *oc;
    AVStream *st;
    AVPacket *pkt;
    AVRational tb;              /* 1/fps */
    size_t frame_bytes;
    int width, height;
    bool done;
};

static int hash_needs(const struct output_config *o, const struct scene *sc)
{
    (void)o;
    (void)sc;
    return 0;
}

static int hash_open(struct hash_sink *s, const char *muxer, const struct output_config *o,
                     const struct sink_params *p, struct rr_err *e)
{
    int ret;
    s->muxer = muxer;
    s->path = o->path;
    s->width = p->width;
    s->height = p->height;
    s->frame_bytes = (size_t)p->width * p->height * 3;
    if (outfile_begin(&s->file, o->path, p->overwrite, e) < 0)
        return -1;
    const char *tmp = outfile_url(&s->file);   /* "file:...": never another protocol */
    ret = avformat_alloc_output_context2(&s->oc, NULL, muxer, tmp);
    if (ret < 0 || !s->oc)
        return sink_av_fail(e, RR_EXIT_RUNTIME, o->path, muxer, ret < 0 ? ret : AVERROR(ENOMEM));
    /* No "#software: Lavf..." line: the file depends on the frames only. */
    s->oc->flags |= AVFMT_FLAG_BITEXACT;
    s->st = avformat_new_stream(s->oc, NULL);
    s->pkt = av_packet_alloc();
    if (!s->st || !s->pkt)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    s->tb = av_inv_q(av_d2q(p->fps, 100000));
    s->st->time_base = s->tb;
    AVCodecParameters *par = s->st->codecpar;
    par->codec_type = AVMEDIA_TYPE_VIDEO;
    par->codec_id = AV_CODEC_ID_RAWVIDEO;
    par->format = AV_PIX_FMT_RGB24;
    par->width = p->width;
    par->height = p->height;
    if (!(s->oc->oformat->flags & AVFMT_NOFILE)) {
        ret = avio_open(&s->oc->pb, tmp, AVIO_FLAG_WRITE);
        if (ret < 0)
            return sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot open the temporary file", ret);
    }
    ret = avformat_write_header(s->oc, NULL);
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, o->path, "cannot write the header", ret);
    return 0;
}

/* The muxer is the extension: FFmpeg's framemd5 and framehash muxers. */
static int hash_kind_open(void *priv, const struct output_config *o, const struct sink_params *p,
                          struct rr_err *e)
{
    return hash_open(priv, strcasecmp(sink_extension(o->path), "framemd5") == 0 ? "framemd5" : "framehash", o,
                     p, e);
}

static int hash_write(void *priv, const struct frame *fr, struct rr_err *e)
{
    struct hash_sink *s = priv;
    if (fr->width != s->width || fr->height != s->height)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: frame %ld is %dx%d, the file was opened for %dx%d", s->path,
                       fr->index, fr->width, fr->height, s->width, s->height);
    av_packet_unref(s->pkt);
    /* Not reference-counted: av_write_frame does not keep the data. */
    s->pkt->data = (uint8_t *)(uintptr_t)fr->rgb;
    s->pkt->size = (int)s->frame_bytes;
    s->pkt->stream_index = 0;
    s->pkt->pts = s->pkt->dts = fr->index;
    s->pkt->duration = 1;
    s->pkt->flags |= AV_PKT_FLAG_KEY;
    av_packet_rescale_ts(s->pkt, s->tb, s->st->time_base);
    int ret = av_write_frame(s->oc, s->pkt);
    s->pkt->data = NULL;
    s->pkt->size = 0;
    if (ret < 0)
        return sink_av_fail(e, RR_EXIT_RUNTIME, s->path, "cannot write a frame", ret);
    return 0;
}

static int hash_close(void *priv, struct rr_err *e)
{
    struct hash_sink *s = priv;
    if (sink_mux_finish(s->oc, &s->file, s->path, e) < 0)
        return -1;
    s->done = true;
    return 0;
}

static void hash_free(void *priv)
{
    struct hash_sink *s = priv;
    sink_mux_free(&s->oc);
    av_packet_free(&s->pkt);
    outfile_abort(&s->file);
}

const struct sink_ops sink_hash_ops = {
    .name = "hash",
    .noun = "a frame hash file",
    .exts = "framemd5 framehash",
    .help = "FFmpeg's per-frame hashes of the rgb24 frames",
    .libav = SINK_LIBAV_CODEC | SINK_LIBAV_FORMAT,
    .priv_size = sizeof(struct hash_sink),
    .needs = hash_needs,
    .open = hash_kind_open,
    .write = hash_write,
    .close = hash_close,
    .free = hash_free,
    .join = join_hash_lists,
};

/* ---- reading expected hashes for --check --------------------------------- */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Copies a 32-digit hex MD5 in lowercase; returns 0, or -1 if it is not one. */
static int take_md5(char out[33], const char *s)
{
    if (strlen(s) != 32)
        return -1;
    for (int i = 0; i < 32; i++) {
        if (!isxdigit((unsigned char)s[i]))
            return -1;
        out[i] = (char)tolower((unsigned char)s[i]);
    }
    out[32] = '\0';
    return 0;
}

/* Copies a header line's value ("#codec_id 0: rawvideo") into out if the line
 * is that key of stream 0. Returns whether it was. */
static bool header_value(const char *line, const char *key, char *out, size_t size)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0 || strncmp(line + n, " 0:", 3) != 0)
        return false;
    snprintf(out, size, "%s", line + n + 3);
    char *t = trim(out);
    memmove(out, t, strlen(t) + 1);
    return true;
}

int framehash_load(const char *path, struct framehash_golden *g, long max_frames, struct rr_err *e)
{
    memset(g, 0, sizeof *g);
    FILE *f = strcmp(path, "-") == 0 ? stdin : outfile_fopen_input(path, false);
    if (!f && errno == EINTR)
        return rr_fail(e, RR_EXIT_INTERRUPTED, "interrupted before the first frame (waiting for the writer of %s); "
                       "nothing written", path);
    if (!f)
        return rr_fail(e, errno == ENOENT || errno == EISDIR ? RR_EXIT_USAGE : RR_EXIT_RUNTIME, "%s: cannot read: %s", path,
                       strerror(errno));
    char (*list)[33] = NULL;
    long n = 0, cap = 0, lineno = 0;
    char line[4096];
    int r = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            r = rr_fail(e, RR_EXIT_USAGE, "%s:%ld: line too long", path, lineno);
            goto out;
        }
        char *s = trim(line);
        if (!*s)
            continue;
        if (*s == '#') {
            char dims[32];
            if (header_value(s, "#dimensions", dims, sizeof dims)
                && sscanf(dims, "%dx%d", &g->width, &g->height) != 2)
                g->width = g->height = 0;
            header_value(s, "#codec_id", g->codec, sizeof g->codec);
            header_value(s, "#media_type", g->media, sizeof g->media);
            if (strncmp(s, "#hash:", 6) == 0 && strcmp(trim(s + 6), "MD5") != 0) {
                r = rr_fail(e, RR_EXIT_USAGE, "%s:%ld: the file holds %s hashes, --check needs MD5 (a .framemd5 file)",
                            path, lineno, trim(s + 6));
                goto out;
            }
            continue;
        }
        const char *hash;
        char *comma = strrchr(s, ',');
        if (comma) {
            /* framemd5: "stream, dts, pts, duration, size, md5"; stream 0 only. */
            char *end;
            long stream = strtol(s, &end, 10);
            if (end == s || *trim(end) != ',') {
                char *c = strchr(s, ',');
                *c = '\0';
                r = rr_fail(e, RR_EXIT_USAGE, "%s:%ld: expected a stream number, got \"%s\"", path, lineno,
                            trim(s));
                goto out;
            }
            if (stream != 0)
                continue;
            hash = trim(comma + 1);
            /* The size is the field before the hash. */
            *comma = '\0';
            char *size = strrchr(s, ',');
            if (n == 0 && size) {
                g->frame_bytes = strtol(size + 1, NULL, 10);
                g->frame_line = lineno;
            }
        } else {
            /* --hash: "INDEX MD5" */
            char *end;
            errno = 0;
            long idx = strtol(s, &end, 10);
            if (end == s || !isspace((unsigned char)*end)) {
                r = rr_fail(e, RR_EXIT_USAGE,
                            "%s:%ld: expected \"INDEX MD5\" or a framemd5 line \"stream, dts, pts, duration, size, md5\"",
                            path, lineno);
                goto out;
            }
            if (idx != n) {
                r = rr_fail(e, RR_EXIT_USAGE, "%s:%ld: expected frame %ld, got %ld", path, lineno, n, idx);
                goto out;
            }
            hash = trim(end);
        }
        char md5[33];
        if (take_md5(md5, hash) < 0) {
            r = rr_fail(e, RR_EXIT_USAGE, "%s:%ld: expected an MD5 of 32 hex digits, got \"%.80s\"", path, lineno,
                        hash);
            goto out;
        }
        /* A frame past the run's: the file cannot fit (framehash_fits says
         * so, after the header's checks); read no further, so that a long
         * or endless file never fills memory. */
        if (n == max_frames) {
            g->over_line = lineno;
            break;
        }
        if (n == cap) {
            long nc = cap ? cap * 2 : 256;
            if (nc > max_frames)
                nc = max_frames;
            char (*nl)[33] = realloc(list, (size_t)nc * sizeof *list);
            if (!nl) {
                r = rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", path);
                goto out;
            }
            list = nl;
            cap = nc;
        }
        memcpy(list[n], md5, sizeof md5);
        n++;
    }
    if (ferror(f))
        r = rr_fail(e, RR_EXIT_RUNTIME, "%s: read failed: %s", path, strerror(errno));
    else if (n == 0)
        r = rr_fail(e, RR_EXIT_USAGE, "%s: no frame hashes in the file", path);
out:
    if (f != stdin)
        fclose(f);
    if (r < 0) {
        free(list);
        return -1;
    }
    g->md5s = list;
    g->count = n;
    return 0;
}

/* What a frame of `bytes` at width x height most likely is, for the message. */
static const char *pix_fmt_guess(long bytes, int width, int height)
{
    static const struct { int num, den; const char *name; } fmts[] = {
        { 3, 2, "yuv420p" }, { 2, 1, "yuv422p" }, { 4, 1, "rgba or bgr0" }, { 1, 1, "gray" },
        { 6, 1, "rgb48" },
    };
    long px = (long)width * height;
    for (size_t k = 0; k < sizeof fmts / sizeof *fmts; k++)
        if (bytes * fmts[k].den == px * fmts[k].num)
            return fmts[k].name;
    return NULL;
}

int framehash_fits(const struct framehash_golden *g, const char *path, int width, int height, long frames,
                   struct rr_err *e)
{
    static const char remedy[] = "make it with ffmpeg -i IN -pix_fmt rgb24 -f framemd5 OUT";
    if (g->media[0] && strcmp(g->media, "video") != 0)
        return rr_fail(e, RR_EXIT_MISMATCH, "%s: stream 0 differs: the file's header says %s (#media_type 0), "
                       "--check needs video; %s", path, g->media, remedy);
    if (g->codec[0] && strcmp(g->codec, "rawvideo") != 0)
        return rr_fail(e, RR_EXIT_MISMATCH, "%s: codec differs: the file hashes %s packets (#codec_id 0), "
                       "--check needs decoded rgb24 frames (rawvideo); %s", path, g->codec, remedy);
    if (g->width && (g->width != width || g->height != height))
        return rr_fail(e, RR_EXIT_MISMATCH, "%s: size differs: the file's frames are %dx%d (#dimensions 0), "
                       "the scene renders %dx%d", path, g->width, g->height, width, height);
    long rgb24 = (long)width * height * 3;
    if (g->frame_bytes && g->frame_bytes != rgb24) {
        const char *guess = pix_fmt_guess(g->frame_bytes, width, height);
        return rr_fail(e, RR_EXIT_MISMATCH, "%s:%ld: pixel format differs: the file's frames are %ld bytes, "
                       "rgb24 at %dx%d is %ld (%s%s%s: made without -pix_fmt rgb24); %s", path, g->frame_line,
                       g->frame_bytes, width, height, rgb24, guess ? "the size of " : "another pixel format",
                       guess ? guess : "", guess ? " frames" : "", remedy);
    }
    if (g->over_line)
        return rr_fail(e, RR_EXIT_MISMATCH, "%s:%ld: frame count differs: the file has more than %ld frame%s, "
                       "the scene renders %ld", path, g->over_line, frames, frames == 1 ? "" : "s", frames);
    if (g->count != frames)
        return rr_fail(e, RR_EXIT_MISMATCH, "%s: frame count differs: the file has %ld frame%s, "
                       "the scene renders %ld", path, g->count, g->count == 1 ? "" : "s", frames);
    return 0;
}

/* join.c: `ripplerender join`: the parts of a run into one file (join.h). */
#include "join.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "rr_err.h"
#include "sink.h"
#include "state.h"

static const char join_usage[] =
    "Usage: ripplerender join IN... -o OUT [-y]\n"
    "Joins the outputs of the parts of a run (--range, --chunk), given in timeline order:\n"
    "  videos (.mp4 .mkv .mov .webm) into one video, their packets copied (no re-encoding);\n"
    "  they must hold the same codec, size, pixel format and time base, and their frames\n"
    "  must follow one another without gap or overlap;\n"
    "  manifests (OUT ending in .json) into one manifest of the whole range.\n"
    "  -o, --output PATH   the joined file\n"
    "  -y, --overwrite     replace an existing output\n"
    "  -h, --help          this text\n"
    "PNG sequences need no join; GIFs cannot be joined without re-quantising (docs/farm.md).\n";

/* The output, for the stop signals' line. */
static const char *join_out;

/* A stop signal: a join has nothing to finish, so it ends at once, its
 * temporary file and the folders made for OUT removed (outfile_remove_temps,
 * async-signal-safe), with one line and status 130, as a run does. */
static void join_on_signal(int sig)
{
    (void)sig;
    static const char pre[] = "ripplerender: join: interrupted; ", post[] = " not written\n";
    outfile_remove_temps();
    ssize_t w = write(STDERR_FILENO, pre, sizeof pre - 1);
    w = write(STDERR_FILENO, join_out, strlen(join_out));
    w = write(STDERR_FILENO, post, sizeof post - 1);
    (void)w;
    _exit(RR_EXIT_INTERRUPTED);
}

/* Installs join_on_signal for the stop signals (out: the output named in its
 * line), and ignores SIGXFSZ, so that a file size limit is an EFBIG write
 * error with its one line. */
static void join_signals(const char *out)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = join_on_signal;
    sigemptyset(&sa.sa_mask);
    join_out = out;
    for (int i = 0; i < outfile_n_stop_signals; i++)
        sigaction(outfile_stop_signals[i], &sa, NULL);
    signal(SIGXFSZ, SIG_IGN);
}

/* Commits the joined file; under `ripplerender join` (join_out set), with
 * the stop signals held until the exit: once it is in place, the join is
 * done (or fails with its own line). A run's join of its segments
 * (resume_complete) is under the run's handler. */
static int join_commit(struct outfile *of, struct rr_err *e)
{
    sigset_t old;
    if (join_out)
        outfile_hold_signals(&old);
    return outfile_commit(of, e);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* ---- videos ---------------------------------------------------------------- */

/* One input video: its stream and the frames its timestamps cover. */
struct part {
    const char *path;
    AVFormatContext *ic;
    AVStream *st;
    AVRational fps;
    long first, last;    /* timeline frame numbers of its first and last frames */
    /* Decoding timestamps: Matroska stores none, so the first packets of a
     * stream with reordered frames (h264's B-frames) come back without one.
     * The join then gives each packet the k-th smallest frame number of all
     * packets before and at it, in decoding order, less a delay: in decoding
     * order the k-th packet (from first) gets dts = first + k - delay, which
     * rises by one frame a packet across parts and is at most every pts when
     * delay >= first + k - frame(k) for every k (the part's `delay`). */
    bool dts_missing;
    long delay;
};

static int av_fail(struct rr_err *e, int status, const char *path, const char *what, int err)
{
    char buf[AV_ERROR_MAX_STRING_SIZE];
    av_strerror(err, buf, sizeof buf);
    return rr_fail(e, status, "%s: %s: %s", path, what, buf);
}

static int open_part(struct part *p, struct rr_err *e)
{
    /* A part is read twice (its frames, then its packets): a regular file,
     * refused at once otherwise (a FIFO's open would wait for a writer). */
    struct stat st;
    if (stat(p->path, &st) == 0 && !S_ISREG(st.st_mode))
        return rr_fail(e, RR_EXIT_USAGE, "join %s: cannot read: %s", p->path,
                       S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
    /* "file:": a part's name is a file's, never read as another protocol
     * (pipe:1.mkv, concat:...), as the outputs' temporaries are named. */
    char *url = malloc(strlen(p->path) + sizeof "file:");
    if (!url)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", p->path);
    strcpy(url, "file:");
    strcat(url, p->path);
    int err = avformat_open_input(&p->ic, url, NULL, NULL);
    free(url);
    if (err < 0)   /* a part missing or not a video: bad input, as a manifest part (contract: status 2) */
        return av_fail(e, RR_EXIT_USAGE, p->path, "cannot open", err);
    if ((err = avformat_find_stream_info(p->ic, NULL)) < 0)
        return av_fail(e, RR_EXIT_RUNTIME, p->path, "cannot read", err);
    if (p->ic->nb_streams != 1 || p->ic->streams[0]->codecpar->codec_type != AVMEDIA_TYPE_VIDEO)
        return rr_fail(e, RR_EXIT_USAGE, "%s: not a video of one stream (%u streams): not a ripplerender output",
                       p->path, p->ic->nb_streams);
    p->st = p->ic->streams[0];
    p->fps = av_guess_frame_rate(p->ic, p->st, NULL);
    if (p->fps.num <= 0 || p->fps.den <= 0)
        return rr_fail(e, RR_EXIT_USAGE, "%s: no frame rate", p->path);
    return 0;
}

/* Reads every packet of p to find the frames it covers (pts rounded to the
 * frame grid of its frame rate), and closes it. */
static int scan_part(struct part *p, struct rr_err *e)
{
    AVPacket *pkt = av_packet_alloc();
    if (!pkt)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", p->path);
    AVRational frame = av_inv_q(p->fps);
    long n = 0, ahead = 0;   /* ahead: the largest k - frame(k) */
    int err;
    while ((err = av_read_frame(p->ic, pkt)) >= 0) {
        if (pkt->dts == AV_NOPTS_VALUE)
            p->dts_missing = true;
        if (pkt->pts == AV_NOPTS_VALUE) {
            av_packet_free(&pkt);
            return rr_fail(e, RR_EXIT_USAGE, "%s: a packet without a timestamp", p->path);
        }
        long f = (long)av_rescale_q_rnd(pkt->pts, p->st->time_base, frame, AV_ROUND_NEAR_INF);
        if (n == 0 || f < p->first) p->first = f;
        if (n == 0 || f > p->last) p->last = f;
        if (n == 0 || n - f > ahead) ahead = n - f;
        n++;
        av_packet_unref(pkt);
    }
    av_packet_free(&pkt);
    if (err != AVERROR_EOF)
        return av_fail(e, RR_EXIT_RUNTIME, p->path, "cannot read", err);
    if (n == 0)
        return rr_fail(e, RR_EXIT_USAGE, "%s: no frames", p->path);
    if (n != p->last - p->first + 1)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %ld frames for frames %ld to %ld: not a ripplerender output",
                       p->path, n, p->first, p->last);
    p->delay = p->first + ahead;
    avformat_close_input(&p->ic);   /* opened again to copy from the start */
    return 0;
}

/* Refuses b when its stream cannot follow a's without re-encoding. */
static int check_same(const struct part *a, const struct part *b, struct rr_err *e)
{
    const AVCodecParameters *x = a->st->codecpar, *y = b->st->codecpar;
    if (x->codec_id != y->codec_id)
        return rr_fail(e, RR_EXIT_USAGE, "join: %s holds %s, %s holds %s: joining them would need re-encoding",
                       a->path, avcodec_get_name(x->codec_id), b->path, avcodec_get_name(y->codec_id));
    if (x->width != y->width || x->height != y->height)
        return rr_fail(e, RR_EXIT_USAGE, "join: %s is %dx%d, %s is %dx%d", a->path, x->width, x->height,
                       b->path, y->width, y->height);
    if (x->format != y->format) {
        const char *fx = av_get_pix_fmt_name(x->format), *fy = av_get_pix_fmt_name(y->format);
        return rr_fail(e, RR_EXIT_USAGE, "join: %s has pixel format %s, %s has %s", a->path, fx ? fx : "none",
                       b->path, fy ? fy : "none");
    }
    if (av_cmp_q(a->fps, b->fps) != 0)
        return rr_fail(e, RR_EXIT_USAGE, "join: %s has %d/%d fps, %s has %d/%d", a->path, a->fps.num, a->fps.den,
                       b->path, b->fps.num, b->fps.den);
    if (av_cmp_q(a->st->time_base, b->st->time_base) != 0)
        return rr_fail(e, RR_EXIT_USAGE, "join: %s has time base %d/%d, %s has %d/%d", a->path,
                       a->st->time_base.num, a->st->time_base.den, b->path, b->st->time_base.num,
                       b->st->time_base.den);
    if (x->extradata_size != y->extradata_size
        || (x->extradata_size > 0 && memcmp(x->extradata, y->extradata, (size_t)x->extradata_size) != 0))
        return rr_fail(e, RR_EXIT_USAGE, "join: %s and %s were encoded with other settings (codec headers differ)",
                       a->path, b->path);
    return 0;
}

/* Refuses a gap or an overlap between the frames of a and those of b. */
static int check_follows(long a_first, long a_last, const char *a, long b_first, long b_last, const char *b,
                         struct rr_err *e)
{
    if (b_first == a_last + 1)
        return 0;
    if (b_first > a_last + 1)
        return rr_fail(e, RR_EXIT_USAGE, "join: %s ends at frame %ld but %s starts at frame %ld: frames %ld to %ld are missing",
                       a, a_last, b, b_first, a_last + 1, b_first - 1);
    return rr_fail(e, RR_EXIT_USAGE, "join: %s (frames %ld to %ld) and %s (frames %ld to %ld) overlap%s",
                   a, a_first, a_last, b, b_first, b_last, b_last <= a_first ? " or are out of order" : "");
}

/* Copies p's packets to oc (the file out); with delay >= 0, their decoding
 * timestamps are made anew (struct part's dts_missing). */
static int copy_packets(struct part *p, AVFormatContext *oc, const char *out, long delay, struct rr_err *e)
{
    AVPacket *pkt = av_packet_alloc();
    if (!pkt)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", p->path);
    AVRational frame = av_inv_q(p->fps);
    long k = p->first;
    int err;
    while ((err = av_read_frame(p->ic, pkt)) >= 0) {
        if (delay >= 0)
            pkt->dts = av_rescale_q(k++ - delay, frame, p->st->time_base);
        pkt->stream_index = 0;
        pkt->pos = -1;
        av_packet_rescale_ts(pkt, p->st->time_base, oc->streams[0]->time_base);
        if ((err = av_interleaved_write_frame(oc, pkt)) < 0) {
            av_packet_free(&pkt);
            return av_fail(e, RR_EXIT_RUNTIME, out, "cannot write", err);   /* the output's error (a full disk) */
        }
    }
    av_packet_free(&pkt);
    return err == AVERROR_EOF ? 0 : av_fail(e, RR_EXIT_RUNTIME, p->path, "cannot read", err);
}

void join_prepare(const struct sink_ops *kind)
{
    if (kind && kind->join == join_videos)
        lazyav_use(LAZYAV_JOIN, SINK_LIBAV_CODEC | SINK_LIBAV_FORMAT);
}

int join_videos(const char *const *in, int n, const char *out, bool overwrite, struct rr_err *e)
{
    lazyav_use(LAZYAV_JOIN, SINK_LIBAV_CODEC | SINK_LIBAV_FORMAT);
    struct part *p = calloc((size_t)n, sizeof *p);
    AVFormatContext *oc = NULL;
    struct outfile of = { 0 };
    int ret = -1, err;
    if (!p) {
        rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
        goto end;
    }
    for (int i = 0; i < n; i++) {
        p[i].path = in[i];
        /* one part open at a time, besides the first (the reference): a
         * farm's parts may outnumber the descriptors a process may hold */
        if (open_part(&p[i], e) < 0 || (i > 0 && check_same(&p[0], &p[i], e) < 0) || scan_part(&p[i], e) < 0
            || (i == 0 && open_part(&p[0], e) < 0))
            goto end;
        if (i > 0 && check_follows(p[i - 1].first, p[i - 1].last, p[i - 1].path, p[i].first, p[i].last,
                                   p[i].path, e) < 0)
            goto end;
    }
    const AVOutputFormat *fmt = av_guess_format(NULL, out, NULL);
    if (!fmt) {
        rr_fail(e, RR_EXIT_USAGE, "-o %s: unknown video kind (give .mp4, .mkv, .mov or .webm)", out);
        goto end;
    }
    const AVCodecParameters *par = p[0].st->codecpar;
    if (avformat_query_codec(fmt, par->codec_id, FF_COMPLIANCE_NORMAL) != 1) {
        rr_fail(e, RR_EXIT_USAGE, "-o %s: a %s file cannot hold %s without re-encoding", out, fmt->name,
                avcodec_get_name(par->codec_id));
        goto end;
    }
    if ((err = avformat_alloc_output_context2(&oc, fmt, NULL, NULL)) < 0) {
        av_fail(e, RR_EXIT_RUNTIME, out, "cannot set up", err);
        goto end;
    }
    AVStream *os = avformat_new_stream(oc, NULL);
    if (!os || avcodec_parameters_copy(os->codecpar, par) < 0) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", out);
        goto end;
    }
    os->codecpar->codec_tag = 0;
    os->time_base = p[0].st->time_base;
    os->avg_frame_rate = os->r_frame_rate = p[0].fps;
    if (outfile_begin(&of, out, overwrite, e) < 0)
        goto end;
    if ((err = avio_open(&oc->pb, outfile_url(&of), AVIO_FLAG_WRITE)) < 0
        || (err = avformat_write_header(oc, NULL)) < 0) {
        av_fail(e, RR_EXIT_RUNTIME, out, "cannot write", err);
        goto end;
    }
    bool remake_dts = false;
    long delay = 0;
    for (int i = 0; i < n; i++) {
        remake_dts |= p[i].dts_missing;
        if (p[i].delay > delay)
            delay = p[i].delay;
    }
    for (int i = 0; i < n; i++) {
        if ((i > 0 && open_part(&p[i], e) < 0) || copy_packets(&p[i], oc, out, remake_dts ? delay : -1, e) < 0)
            goto end;
        if (i > 0)
            avformat_close_input(&p[i].ic);
    }
    if ((err = av_write_trailer(oc)) < 0 || (err = avio_closep(&oc->pb)) < 0) {
        av_fail(e, RR_EXIT_RUNTIME, out, "cannot write", err);
        goto end;
    }
    ret = join_commit(&of, e);
end:
    if (oc) {
        avio_closep(&oc->pb);
        avformat_free_context(oc);
    }
    outfile_abort(&of);
    for (int i = 0; p && i < n; i++)
        avformat_close_input(&p[i].ic);
    free(p);
    return ret;
}

/* ---- hash lists ------------------------------------------------------------ */

/* Copies f's lines to out: the '#' header lines when `head`, else checks
 * that they are head_text's lines, and every frame line. */
static int copy_hash_lines(FILE *f, const char *path, FILE *out, char **head_text, size_t *head_len, bool first,
                           struct rr_err *e)
{
    char line[1024];
    size_t at = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (line[0] != '#') {
            if (fputs(line, out) == EOF)
                return rr_fail(e, RR_EXIT_RUNTIME, "write failed: %s", strerror(errno));
            continue;
        }
        if (first) {
            char *t = realloc(*head_text, *head_len + len + 1);
            if (!t)
                return rr_fail(e, RR_EXIT_RUNTIME, "out of memory");
            memcpy(t + *head_len, line, len + 1);
            *head_text = t;
            *head_len += len;
            if (fputs(line, out) == EOF)
                return rr_fail(e, RR_EXIT_RUNTIME, "write failed: %s", strerror(errno));
        } else if (at + len > *head_len || memcmp(*head_text + at, line, len) != 0) {
            return rr_fail(e, RR_EXIT_USAGE, "join: %s: its header line \"%.*s\" is not the first part's", path,
                           (int)strcspn(line, "\n"), line);
        } else {
            at += len;
        }
    }
    return ferror(f) ? rr_fail(e, RR_EXIT_RUNTIME, "%s: read failed", path) : 0;
}

int join_hash_lists(const char *const *in, int n, const char *out, bool overwrite, struct rr_err *e)
{
    struct outfile of = { 0 };
    char *head = NULL;
    size_t head_len = 0;
    int rc = -1;
    FILE *o = NULL;
    if (outfile_begin(&of, out, overwrite, e) < 0 || !(o = outfile_fopen(&of, e)))
        goto end;
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(in[i], "r");
        if (!f) {
            rr_fail(e, RR_EXIT_USAGE, "join: %s: cannot read: %s", in[i], strerror(errno));
            goto end;
        }
        int bad = copy_hash_lines(f, in[i], o, &head, &head_len, i == 0, e);
        fclose(f);
        if (bad < 0)
            goto end;
    }
    FILE *f = o;
    o = NULL;
    if (ferror(f) | fclose(f)) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", out, strerror(errno));
        goto end;
    }
    rc = join_commit(&of, e);
end:
    if (o)
        fclose(o);
    outfile_abort(&of);
    free(head);
    return rc;
}

/* ---- manifests ------------------------------------------------------------- */

/* A part's manifest: a regular file (a folder, a FIFO or an endless device
 * is refused at once, as --load-state's header is), parsed. */
static cJSON *read_json(const char *path, struct rr_err *e)
{
    cJSON *j = NULL;
    if (state_read_json(path, "join", &j, e) == 0 && !j)
        rr_fail(e, RR_EXIT_USAGE, "%s: not JSON: not a ripplerender manifest", path);
    return j;
}

/* Refuses path's key (a dotted path: frames.3.md5) for its value v, shown
 * as JSON (NULL: missing). Returns -1. */
static int bad_value(struct rr_err *e, const char *path, const char *key, const char *want, const cJSON *v)
{
    char *shown = v ? cJSON_PrintUnformatted(v) : NULL;
    if (v && !shown)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", path);
    rr_fail(e, RR_EXIT_USAGE, "%s: %s: expected %s, got %s", path, key, want, shown ? shown : "nothing");
    cJSON_free(shown);
    return -1;
}

/* A frame number: a whole number from 0 to 2^53 (exact in a double). */
static bool whole(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0
           && v->valuedouble == (double)(long long)v->valuedouble;
}

/* The [A, B] of a manifest, its frames checked (numbered A to B in order,
 * each MD5 32 lowercase hexadecimal digits, as a run writes them): a part
 * edited or damaged is refused, not joined into the whole. Returns 0, or -1
 * naming the file, the key and the value. */
static int manifest_range(const cJSON *m, const char *path, long *a, long *b, struct rr_err *e)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "range");
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(m, "frames");
    if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(r, 0))
        || !cJSON_IsNumber(cJSON_GetArrayItem(r, 1)) || !cJSON_IsArray(frames)
        || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(m, "scene")))
        return rr_fail(e, RR_EXIT_USAGE, "%s: no range, frames or scene: not a ripplerender manifest", path);
    const cJSON *ra = cJSON_GetArrayItem(r, 0), *rb = cJSON_GetArrayItem(r, 1);
    if (!whole(ra) || !whole(rb) || ra->valuedouble > rb->valuedouble)
        return bad_value(e, path, "range", "two whole numbers A <= B", r);
    *a = (long)ra->valuedouble;
    *b = (long)rb->valuedouble;
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "complete")))
        return rr_fail(e, RR_EXIT_USAGE, "%s: the part was not complete (\"complete\": false): render it again", path);
    if (cJSON_GetArraySize(frames) != *b - *a + 1)
        return rr_fail(e, RR_EXIT_USAGE, "%s: %d frames for the range %ld to %ld", path, cJSON_GetArraySize(frames),
                       *a, *b);
    long i = 0;
    for (const cJSON *f = frames->child; f; f = f->next, i++) {
        char key[64], want[96];
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(f, "frame");
        const cJSON *md5 = cJSON_GetObjectItemCaseSensitive(f, "md5");
        if (!whole(n) || n->valuedouble != (double)(*a + i)) {
            snprintf(key, sizeof key, "frames.%ld.frame", i);
            snprintf(want, sizeof want, "%ld (the range %ld to %ld in order)", *a + i, *a, *b);
            return bad_value(e, path, key, want, n);
        }
        if (!cJSON_IsString(md5) || strlen(md5->valuestring) != 32
            || strspn(md5->valuestring, "0123456789abcdef") != 32) {
            snprintf(key, sizeof key, "frames.%ld.md5", i);
            return bad_value(e, path, key, "32 lowercase hexadecimal digits", md5);
        }
    }
    return 0;
}

static double timing(const cJSON *m, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "timing"), key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int join_manifests(const char **in, int n, const char *out, bool overwrite, int argc, char **argv,
                          struct rr_err *e)
{
    cJSON *all = NULL, *m = NULL;
    struct outfile of = { 0 };
    char *text = NULL;
    int ret = -1;
    long a0 = 0, b0 = 0, pa = 0, pb = 0;
    double frames_s = 0, wall_s = 0;
    for (int i = 0; i < n; i++) {
        long a = 0, b = 0;
        if (!(m = read_json(in[i], e)) || manifest_range(m, in[i], &a, &b, e) < 0)
            goto end;
        frames_s += timing(m, "frames_seconds");
        wall_s += timing(m, "wall_seconds");
        if (i == 0) {
            all = m;
            a0 = a;
        } else {
            /* the scenes compared without "output": the parts' files differ */
            cJSON *s0 = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(all, "scene"), true);
            cJSON *s1 = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(m, "scene"), true);
            cJSON_DeleteItemFromObjectCaseSensitive(s0, "output");
            cJSON_DeleteItemFromObjectCaseSensitive(s1, "output");
            bool copied = s0 && s1, same = copied && cJSON_Compare(s0, s1, true);
            cJSON_Delete(s0);
            cJSON_Delete(s1);
            if (!copied) {
                rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", out);
                goto end;
            }
            if (!same) {
                rr_fail(e, RR_EXIT_USAGE, "join: %s and %s were rendered from different scenes", in[0], in[i]);
                goto end;
            }
            if (check_follows(pa, pb, in[i - 1], a, b, in[i], e) < 0)
                goto end;
            cJSON *dst = cJSON_GetObjectItemCaseSensitive(all, "frames");
            cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "frames");
            while (cJSON_GetArraySize(src) > 0)
                cJSON_AddItemToArray(dst, cJSON_DetachItemFromArray(src, 0));
            cJSON_Delete(m);
        }
        m = NULL;
        pa = a;
        pb = b0 = b;
    }
    cJSON *range = cJSON_CreateArray(), *args = cJSON_CreateStringArray((const char *const *)argv, argc);
    cJSON *t = cJSON_CreateObject();
    if (range) {
        cJSON_AddItemToArray(range, cJSON_CreateNumber((double)a0));
        cJSON_AddItemToArray(range, cJSON_CreateNumber((double)b0));
    }
    if (t) {
        cJSON_AddNumberToObject(t, "frames_seconds", frames_s);
        cJSON_AddNumberToObject(t, "frames_per_second", frames_s > 0 ? (double)(b0 - a0 + 1) / frames_s : 0);
        cJSON_AddNumberToObject(t, "wall_seconds", wall_s);
    }
    if (!range || !args || !t || !cJSON_ReplaceItemInObjectCaseSensitive(all, "range", range)
        || !cJSON_ReplaceItemInObjectCaseSensitive(all, "timing", t)
        || !cJSON_ReplaceItemInObjectCaseSensitive(all, "arguments", args)
        || !cJSON_ReplaceItemInObjectCaseSensitive(all, "frame_count", cJSON_CreateNumber((double)(b0 - a0 + 1)))
        || !(text = cJSON_Print(all))) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", out);
        goto end;
    }
    if (outfile_begin(&of, out, overwrite, e) < 0)
        goto end;
    FILE *f = outfile_fopen(&of, e);
    if (!f)
        goto end;
    bool bad = fputs(text, f) < 0 || fputc('\n', f) < 0;
    if (fclose(f) != 0 || bad) {
        rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", out, strerror(errno));
        goto end;
    }
    ret = join_commit(&of, e);
end:
    outfile_abort(&of);
    free(text);
    cJSON_Delete(m);
    cJSON_Delete(all);
    return ret;
}

/* ---- the command ----------------------------------------------------------- */

int join_main(int argc, char **argv)
{
    const char **in = calloc((size_t)argc, sizeof *in), *out = NULL;
    int n = 0;
    bool overwrite = false;
    struct rr_err e = { 0 };
    sink_capture_library_log();   /* the libraries' warnings are not ours to print */
    if (!in) {
        fputs("ripplerender: out of memory\n", stderr);
        return RR_EXIT_RUNTIME;
    }
    for (int i = 2; i < argc && !e.status; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(join_usage, stdout);
            free(in);
            return 0;
        } else if (!strcmp(a, "-y") || !strcmp(a, "--overwrite")) {
            overwrite = true;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc || !argv[i + 1][0])
                rr_fail(&e, RR_EXIT_USAGE, "join %s: needs a file name", a);
            else if (out)
                rr_fail(&e, RR_EXIT_USAGE, "join %s: given twice (\"%s\", then \"%s\"); it takes one output", a, out,
                        argv[i + 1]);
            else
                out = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            rr_fail(&e, RR_EXIT_USAGE, "join %s: unknown option (ripplerender join -h)", a);
        } else {
            in[n++] = a;
        }
    }
    if (!e.status && !out)
        rr_fail(&e, RR_EXIT_USAGE, "join: no output given (-o OUT)");
    else if (!e.status && n < 1)
        rr_fail(&e, RR_EXIT_USAGE, "join: no inputs given");
    bool manifests = out && ends_with(out, ".json");
    for (int i = 0; !e.status && i < n; i++)
        if (ends_with(in[i], ".json") != manifests)
            rr_fail(&e, RR_EXIT_USAGE, "join %s: %s -o %s joins %s only", in[i], manifests ? "a manifest" : "a video",
                    out, manifests ? "manifests (.json)" : "videos");
        else if (ends_with(in[i], ".gif") || ends_with(in[i], ".png"))
            rr_fail(&e, RR_EXIT_USAGE, "join %s: %s", in[i], ends_with(in[i], ".gif")
                    ? "GIFs cannot be joined without re-quantising: render the whole range as one GIF"
                    : "a PNG sequence needs no join: the parts' files already make the whole");
    if (!e.status && ends_with(out, ".gif"))
        rr_fail(&e, RR_EXIT_USAGE, "join -o %s: GIFs cannot be joined without re-quantising", out);
    if (!e.status && outfile_claim(out, "-o", OUTFILE_WRITES, &e) == 0)
        for (int i = 0; i < n && !e.status; i++)
            outfile_claim(in[i], in[i], OUTFILE_READS, &e);
    if (!e.status)
        join_signals(out);
    if (!e.status)
        (manifests ? join_manifests(in, n, out, overwrite, argc, argv, &e)
                   : join_videos(in, n, out, overwrite, &e));
    free(in);
    if (!e.status)
        return 0;
    outfile_remove_made_dirs();   /* the folders made for OUT, when empty */
    fprintf(stderr, "ripplerender: %s\n", e.msg);
    return e.status;
}

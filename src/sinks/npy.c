/* sinks/npy.c: the raw float32 height fields as one NumPy .npy file (format
 * version 1.0), shape (frames, grid_h, grid_w), little-endian '<f4', C order.
 *
 * The header is written at open with the expected frame count and rewritten
 * at close with the count actually written; its length never changes because
 * the dictionary is padded with spaces to a fixed length (a multiple of 64
 * bytes including the 10-byte preamble, ending in '\n') that any count fits. */
#include "outfile.h"
#include "sinks.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_PREAMBLE 10          /* magic (6) + version (2) + header length (2) */

struct npy_sink {
    const char *path;
    struct outfile file;
    FILE *f;
    int gw, gh;
    long written;
    size_t header_len;           /* total header bytes, preamble included */
    float *swap;                 /* one row, for big-endian hosts only */
};

static int npy_needs(const struct output_config *o, const struct scene *sc)
{
    (void)o;
    (void)sc;
    return RENDER_NEED_HEIGHTS;
}

/* The heights as they are, a write. */
static bool npy_fuses(const struct output_config *o)
{
    (void)o;
    return true;
}

static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

size_t npy_float32_header(char *buf, size_t cap, const char *shape, size_t total)
{
    char dict[160];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape);
    if (n < 0 || (size_t)n >= sizeof dict)
        return 0;
    if (total == 0)
        total = (NPY_PREAMBLE + (size_t)n + 1 + 63) / 64 * 64;
    if (total > cap || total < NPY_PREAMBLE + (size_t)n + 1)
        return 0;
    size_t hl = total - NPY_PREAMBLE;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)(hl & 0xff);
    buf[9] = (char)(hl >> 8);
    memset(buf + NPY_PREAMBLE, ' ', hl);
    memcpy(buf + NPY_PREAMBLE, dict, (size_t)n);
    buf[total - 1] = '\n';
    return total;
}

/* Builds the full header for `frames` into buf (at least `total` bytes);
 * total = 0 asks for the fixed length, which is returned. */
static size_t npy_header(char *buf, size_t cap, long frames, int gh, int gw, size_t total)
{
    char shape[80];
    if (total == 0) {
        /* Room for a 20-digit count whatever the count now, plus the '\n'. */
        snprintf(shape, sizeof shape, "(%020d, %d, %d)", 0, gh, gw);
        total = npy_float32_header(buf, cap, shape, 0);
    }
    snprintf(shape, sizeof shape, "(%ld, %d, %d)", frames, gh, gw);
    return npy_float32_header(buf, cap, shape, total);
}

static int npy_open(void *priv, const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    struct npy_sink *s = priv;
    s->path = o->path;
    s->gw = p->grid_w;
    s->gh = p->grid_h;
    if (s->gw <= 0 || s->gh <= 0)
        return rr_fail(e, RR_EXIT_USAGE, "%s: bad grid size %dx%d", o->path, s->gw, s->gh);
    if (!host_is_little_endian() && !(s->swap = malloc((size_t)s->gw * sizeof(float))))
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: out of memory", o->path);
    if (outfile_begin(&s->file, o->path, p->overwrite, e) < 0)
        return -1;
    s->f = outfile_fopen(&s->file, e);
    if (!s->f)
        return -1;
    char hdr[256];
    s->header_len = npy_header(hdr, sizeof hdr, p->frames, s->gh, s->gw, 0);
    if (!s->header_len || fwrite(hdr, 1, s->header_len, s->f) != s->header_len)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", o->path, strerror(errno));
    return 0;
}

static int npy_write(void *priv, const struct frame *fr, struct rr_err *e)
{
    struct npy_sink *s = priv;
    if (!fr->heights || fr->grid_w != s->gw || fr->grid_h != s->gh)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: frame %ld has no %dx%d heights", s->path, fr->index, s->gw,
                       s->gh);
    size_t n = (size_t)s->gw * s->gh;
    if (!s->swap) {
        if (fwrite(fr->heights, sizeof(float), n, s->f) != n)
            return rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", s->path, strerror(errno));
    } else {
        for (int y = 0; y < s->gh; y++) {
            const unsigned char *src = (const unsigned char *)(fr->heights + (size_t)y * s->gw);
            unsigned char *dst = (unsigned char *)s->swap;
            for (int x = 0; x < s->gw * 4; x += 4) {
                dst[x] = src[x + 3];
                dst[x + 1] = src[x + 2];
                dst[x + 2] = src[x + 1];
                dst[x + 3] = src[x];
            }
            if (fwrite(s->swap, sizeof(float), (size_t)s->gw, s->f) != (size_t)s->gw)
                return rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", s->path, strerror(errno));
        }
    }
    s->written++;
    return 0;
}

static int npy_close(void *priv, struct rr_err *e)
{
    struct npy_sink *s = priv;
    char hdr[256];
    if (npy_header(hdr, sizeof hdr, s->written, s->gh, s->gw, s->header_len) != s->header_len)
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: header does not fit", s->path);
    FILE *f = s->f;
    s->f = NULL;
    int bad = fseek(f, 0, SEEK_SET) != 0 || fwrite(hdr, 1, s->header_len, f) != s->header_len;
    if (bad | ferror(f) | fclose(f))
        return rr_fail(e, RR_EXIT_RUNTIME, "%s: write failed: %s", s->path, strerror(errno));
    return outfile_commit(&s->file, e);
}

static void npy_free(void *priv)
{
    struct npy_sink *s = priv;
    if (s->f)
        fclose(s->f);
    s->f = NULL;
    free(s->swap);
    s->swap = NULL;
    outfile_abort(&s->file);
}

const struct sink_ops sink_npy_ops = {
    .name = "npy",
    .noun = "a .npy file",
    .exts = "npy",
    .help = "float32 heights, shape (frames, height, width)",
    .priv_size = sizeof(struct npy_sink),
    .needs = npy_needs,
    .fuses = npy_fuses,
    .open = npy_open,
    .write = npy_write,
    .close = npy_close,
    .free = npy_free,
};

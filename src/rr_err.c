/* rr_err.c: filling the error record (see rr_err.h). */
#include "rr_err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* Escapes src[0..len) into out[cap] so that the message stays one line of
 * text whatever it quotes (a key with "\n" in it, a file name with a tab, a
 * Latin-1 name): control characters become \n, \r, \t or \xNN, and so do
 * bytes that are not UTF-8 (tests/fuzz/regressions holds such inputs).
 * Stops when out is full. */
static void escape(const char *src, size_t len, char *out, size_t cap)
{
    size_t at = 0, left = len;
    for (const char *p = src; left > 0 && at + 1 < cap; p++, left--) {
        unsigned char c = (unsigned char)*p;
        char esc[8];
        size_t n = c >= 0x80 ? utf8_seq_len((const unsigned char *)p, left) : 0;
        if (n > 0) {
            if (at + n + 1 > cap)
                break;
            memcpy(out + at, p, n);
            at += n;
            p += n - 1;
            left -= n - 1;
            continue;
        }
        if (c >= 0x20 && c != 0x7F && c < 0x80) {
            out[at++] = (char)c;
            continue;
        }
        if (c == '\n' || c == '\r' || c == '\t')
            snprintf(esc, sizeof esc, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        else
            snprintf(esc, sizeof esc, "\\x%02x", c);
        n = strlen(esc);
        if (at + n + 1 > cap)
            break;
        memcpy(out + at, esc, n);
        at += n;
    }
    out[at] = '\0';
}

void rr_cut_middle(char *dst, size_t size, const char *src)
{
    static const char dots[] = " ... ";
    size_t n = strlen(src);
    if (n < size || size < 3 * sizeof dots) {
        snprintf(dst, size, "%s", src);
        return;
    }
    size_t head = (size - sizeof dots) / 3, from = n - (size - sizeof dots - head);
    while (head > 0 && ((unsigned char)src[head] & 0xC0) == 0x80)   /* whole UTF-8 characters */
        head--;
    while (from < n && ((unsigned char)src[from] & 0xC0) == 0x80)
        from++;
    memcpy(dst, src, head);
    memcpy(dst + head, dots, sizeof dots - 1);
    memcpy(dst + head + sizeof dots - 1, src + from, n - from + 1);
}

void rr_vformat(char *dst, size_t size, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(dst, size, fmt, ap);
    char *full = n >= (int)size ? malloc((size_t)n + 1) : NULL;
    if (full) {
        vsnprintf(full, (size_t)n + 1, fmt, again);
        rr_cut_middle(dst, size, full);
        free(full);
    }
    va_end(again);
}

/* Sets e->msg to the formatted message, one line (escape), its middle cut
 * when it is too long. Without memory for the whole text, the end is cut. */
static void set_message(struct rr_err *e, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    char *full = n >= (int)sizeof e->msg ? malloc((size_t)n + 1) : NULL;
    char *esc = full ? malloc(4 * (size_t)n + 1) : NULL;
    if (esc) {
        vsnprintf(full, (size_t)n + 1, fmt, again);
        escape(full, (size_t)n, esc, 4 * (size_t)n + 1);
        rr_cut_middle(e->msg, sizeof e->msg, esc);
    } else {
        char out[sizeof e->msg];
        escape(e->msg, strlen(e->msg), out, sizeof out);
        rr_cut_middle(e->msg, sizeof e->msg, out);
    }
    free(full);
    free(esc);
    va_end(again);
}

int rr_fail(struct rr_err *e, int status, const char *fmt, ...)
{
    int saved = errno;
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        set_message(e, fmt, ap);
        va_end(ap);
        e->status = status;
    }
    errno = saved;
    return -1;
}

static void wrap_message(struct rr_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The prefix and the old message through set_message (its va_list). */
static void wrap_message(struct rr_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_message(e, fmt, ap);
    va_end(ap);
}

int rr_wrap(struct rr_err *e, const char *fmt, ...)
{
    int saved = errno;
    if (e) {
        char prefix[512], old[sizeof e->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof prefix, fmt, ap);
        va_end(ap);
        memcpy(old, e->msg, sizeof old);
        wrap_message(e, "%s%s", prefix, old);
        if (!e->status)
            e->status = RR_EXIT_RUNTIME;
    }
    errno = saved;
    return -1;
}

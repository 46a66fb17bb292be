/* rr_err.c: filling the error record (see rr_err.h). */
#include "rr_err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

/* Keeps the message one line whatever it quotes (a key with "\n" in it, a
 * file name with a tab): control characters become \n, \r, \t or \xNN,
 * truncated to the record's size. Found by fuzzing (tests/fuzz/regressions).
 * Bytes that are not UTF-8 (a Latin-1 file name) become \xNN too, so the line
 * is text whatever it quotes. */
static void one_line(char *msg, size_t size)
{
    char out[sizeof ((struct rr_err *)0)->msg];
    size_t at = 0, left = strlen(msg);
    for (const char *p = msg; *p && at + 1 < sizeof out; p++, left--) {
        unsigned char c = (unsigned char)*p;
        char esc[8];
        size_t n = c >= 0x80 ? utf8_seq_len((const unsigned char *)p, left) : 0;
        if (n > 0) {
            if (at + n + 1 > sizeof out)
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
        if (at + n + 1 > sizeof out)
            break;
        memcpy(out + at, esc, n);
        at += n;
    }
    out[at] = '\0';
    snprintf(msg, size, "%s", out);
}

int rr_fail(struct rr_err *e, int status, const char *fmt, ...)
{
    int saved = errno;
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        one_line(e->msg, sizeof e->msg);
        e->status = status;
    }
    errno = saved;
    return -1;
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
        /* Truncation is acceptable here: the message stays one bounded line. */
        size_t n = strlen(prefix);
        if (n >= sizeof e->msg)
            n = sizeof e->msg - 1;
        memcpy(e->msg, prefix, n);
        size_t rest = sizeof e->msg - 1 - n, m = strlen(old);
        if (m > rest)
            m = rest;
        memcpy(e->msg + n, old, m);
        e->msg[n + m] = '\0';
        one_line(e->msg, sizeof e->msg);
        if (!e->status)
            e->status = RR_EXIT_RUNTIME;
    }
    errno = saved;
    return -1;
}

/* rr_err.c: filling the error record (see rr_err.h). */
#include "rr_err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rr_fail(struct rr_err *e, int status, const char *fmt, ...)
{
    int saved = errno;
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
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
        if (!e->status)
            e->status = RR_EXIT_RUNTIME;
    }
    errno = saved;
    return -1;
}

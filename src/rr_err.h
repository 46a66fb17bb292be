/* rr_err.h: the error record every fallible function fills.
 *
 * Functions return 0 on success and a negative value on failure, after filling
 * a caller-owned struct rr_err with one line of text ("what: why", naming the
 * file, key path and value) and the exit status the contract assigns to it.
 * Only main.c prints the message and decides to exit. */
#ifndef RR_ERR_H
#define RR_ERR_H

#include <stdarg.h>
#include <stddef.h>

enum rr_status {
    RR_EXIT_OK = 0,
    RR_EXIT_RUNTIME = 1,   /* I/O, encoder, unstable simulation, out of memory */
    RR_EXIT_USAGE = 2,     /* bad command line or invalid scene */
    RR_EXIT_MISMATCH = 3,  /* --check found a differing frame */
    RR_EXIT_INTERRUPTED = 130,
};

struct rr_err {
    int status;            /* one of enum rr_status; 0 while no error */
    char msg[1024];
};

/* Formats the message into e (if e is not NULL), sets e->status and returns -1,
 * so that callers can write `return rr_fail(e, RR_EXIT_USAGE, "...", ...);`.
 * A message already present is replaced. Saves and restores errno. */
int rr_fail(struct rr_err *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Like rr_fail, but prefixes the current message: used to add context
 * ("out/ripple.mp4: " + what failed underneath). */
int rr_wrap(struct rr_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Copies src into dst (size bytes), cutting its middle to " ... " when it
 * does not fit, so that a long quoted value or path gives way and a message
 * keeps its start (the file, the key) and its end (the reason). Messages
 * longer than the record are cut so by rr_fail and rr_wrap. */
void rr_cut_middle(char *dst, size_t size, const char *src);

/* vsnprintf into dst (size bytes), its middle cut (rr_cut_middle) rather than
 * its end when the text does not fit (without memory for it, its end). */
void rr_vformat(char *dst, size_t size, const char *fmt, va_list ap);

#endif

/* debug.h: RIPPLERENDER_DEBUG, the environment variable that asks for
 * diagnostic lines on standard error. Its value is a comma-separated list
 * of topics:
 *     kernels   what the speed machinery chose, one line per decision: the
 *               thread policy (main.c), each leapfrog kernel's builds and
 *               fused depth, and each choice of the drivers' tuner with the
 *               times it compared and the threads' row shares (tblock.c),
 *               and the bands the renderer scales a picture in (scale.c)
 * A line reads "ripplerender: TOPIC: ...". Asking for a topic never changes
 * a frame. A topic this build does not know is ignored, with one warning
 * line that names the known ones (when the value is first read). */
#ifndef RR_DEBUG_H
#define RR_DEBUG_H

#include <stdbool.h>

enum debug_topic {
    DEBUG_KERNELS,
    DEBUG_TOPICS   /* the count */
};

/* Whether `topic` is on. Reads RIPPLERENDER_DEBUG on the first call (from
 * any thread), warning then about unknown topics. */
bool debug_on(enum debug_topic topic);

/* Prints "ripplerender: TOPIC: " and the formatted text as one line on
 * standard error when the topic is on; else nothing. */
void debug_line(enum debug_topic topic, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

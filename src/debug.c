/* debug.c: RIPPLERENDER_DEBUG (see debug.h). */
#include "debug.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const topic_names[DEBUG_TOPICS] = { [DEBUG_KERNELS] = "kernels" };

static bool topic_on[DEBUG_TOPICS];
static pthread_once_t read_once = PTHREAD_ONCE_INIT;

/* Parses the variable's comma-separated topics; empty items are skipped.
 * The unknown ones are named in one warning line. */
static void read_env(void)
{
    const char *v = getenv("RIPPLERENDER_DEBUG");
    if (!v)
        return;
    char unknown[256] = "";
    size_t n_unknown = 0;
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, ",");
        bool known = false;
        for (int t = 0; t < DEBUG_TOPICS; t++)
            if (len == strlen(topic_names[t]) && !strncmp(p, topic_names[t], len))
                known = topic_on[t] = true;
        if (!known && len > 0) {
            size_t used = strlen(unknown);
            snprintf(unknown + used, sizeof unknown - used, "%s\"%.*s\"", n_unknown ? ", " : "", (int)len, p);
            n_unknown++;
        }
        p += len + (p[len] == ',');
    }
    if (n_unknown == 0)
        return;
    char known[128] = "";
    for (int t = 0; t < DEBUG_TOPICS; t++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s%s", t ? ", " : "", topic_names[t]);
    }
    fprintf(stderr, "ripplerender: warning: RIPPLERENDER_DEBUG: unknown topic%s %s ignored (known: %s)\n",
            n_unknown > 1 ? "s" : "", unknown, known);
}

bool debug_on(enum debug_topic topic)
{
    pthread_once(&read_once, read_env);
    return (unsigned)topic < DEBUG_TOPICS && topic_on[topic];
}

void debug_line(enum debug_topic topic, const char *fmt, ...)
{
    if (!debug_on(topic))
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ripplerender: %s: %s\n", topic_names[topic], line);
}

/* scene_json.h: JSON helpers private to the scene loader (src/scene*.c).
 *
 * cJSON keeps no source positions and accepts a few things RFC 8259 does not
 * ("01", "1.", control characters in strings). A strict scanner of our own
 * walks the same text: it refuses what cJSON let through and records where
 * every value starts, so that each cJSON node maps to a line and column.
 * The --set overrides are applied to the cJSON tree here as well. */
#ifndef RR_SCENE_JSON_H
#define RR_SCENE_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* A 1-based line and column (columns count UTF-8 characters). */
struct sj_pos { int line, col; };

struct sj_posmap;

/* Checks `text` (len bytes, no NUL inside) against the JSON grammar. Returns 0,
 * or -1 with *err_off the byte offset of the problem and *reason a static
 * phrase ("expected ',' or '}'"). Cannot fail otherwise. */
int sj_check_syntax(const char *text, size_t len, size_t *err_off, const char **reason);

/* Maps every node of `root` (which cJSON parsed from `text`) to its position.
 * Returns 0 and *out (free with sj_posmap_free), or -1 with *err_off and
 * *reason on a syntax error, or -1 with *reason NULL when out of memory. */
int sj_posmap_build(struct sj_posmap **out, const char *text, size_t len, const cJSON *root,
                    size_t *err_off, const char **reason);

/* The position of node's value and, for an object member, of its key (else
 * the value's). Returns false for nodes the map does not know (those --set
 * created). Accepts a NULL map. */
bool sj_posmap_find(const struct sj_posmap *pm, const cJSON *node, struct sj_pos *value,
                    struct sj_pos *key);

/* The first node whose string value (or, *in_key, whose key) held a \u0000
 * escape, which cJSON's C strings cut short; NULL when none did. */
const cJSON *sj_posmap_nul(const struct sj_posmap *pm, bool *in_key);

void sj_posmap_free(struct sj_posmap *pm);   /* accepts NULL */

/* The line and column of byte `off` in text. Cannot fail. */
struct sj_pos sj_linecol(const char *text, size_t off);

/* Applies one override "dotted.path=VALUE" to root. VALUE is JSON when it is
 * valid (strict) JSON, else a string. Nodes it replaces are moved into
 * `graveyard` (a cJSON array) rather than freed, so that no new node reuses
 * an address the position map knows. Returns 0; or -1 with msg filled (one
 * line, without the "--set " prefix) and *oom telling a memory failure from a
 * bad override. */
int sj_apply_set(cJSON *root, cJSON *graveyard, const char *set, char *msg, size_t msg_size,
                 bool *oom);

#endif

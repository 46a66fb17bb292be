/* sinks/registry.c: the table of sink kinds (sink.h). Adding a sink is a
 * file in src/sinks/ defining its struct sink_ops (name, extensions,
 * numbered, help, needs, open, write, close, free) and a line here; its
 * place in the table is its place in --help and in the unknown-kind error.
 * Extensions must not repeat across kinds: sink_find takes the first. */
#include "sink.h"

extern const struct sink_ops sink_video_ops, sink_gif_ops, sink_pngseq_ops, sink_hash_ops, sink_npy_ops,
    sink_exr_ops, sink_pipe_ops;

const struct sink_ops *const sink_kinds[] = {
    &sink_video_ops,
    &sink_gif_ops,
    &sink_pngseq_ops,
    &sink_hash_ops,
    &sink_npy_ops,
    &sink_exr_ops,
    &sink_pipe_ops,
    NULL,
};

_Static_assert(sizeof sink_kinds / sizeof sink_kinds[0] <= SINK_MAX + 1, "more sink kinds than SINK_MAX (src/sink.h)");

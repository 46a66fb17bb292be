/* test_toy_sink.c: an output kind needs its struct sink_ops and nothing
 * else. "toytxt" (defined here, added with sink_register as a program
 * bringing its own output would; a kind of the build goes into
 * src/sinks/registry.c instead) writes a text line per frame, the frame's
 * index and its mean r, g and b, through outfile (src/outfile.h). The
 * dispatch, the unknown-kind error, --list-outputs and sink_open all take
 * it from the table: a .txt name finds it, the error lists it last, its
 * file holds the hand-computed means and appears only at close, a killed
 * run's temporary .txt file is cleaned up like any kind's, and free without
 * close leaves nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "outfile.h"
#include "sink_fixture.h"

struct toytxt {
    struct outfile of;
    FILE *f;
};

static int toytxt_needs(const struct output_config *o, const struct scene *sc)
{
    (void)o, (void)sc;
    return 0;   /* the rgb24 picture alone */
}

static int toytxt_open(void *priv, const struct output_config *o, const struct sink_params *p, struct rr_err *e)
{
    struct toytxt *t = priv;
    if (outfile_begin(&t->of, o->path, p->overwrite, e) < 0)
        return -1;
    return (t->f = outfile_fopen(&t->of, e)) ? 0 : -1;
}

/* The mean of each channel over the picture, to 3 decimals. */
static int toytxt_write(void *priv, const struct frame *fr, struct rr_err *e)
{
    struct toytxt *t = priv;
    (void)e;
    double s[3] = { 0, 0, 0 };
    const long n = (long)fr->width * fr->height;
    for (long i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            s[c] += fr->rgb[3 * i + c];
    fprintf(t->f, "%ld %.3f %.3f %.3f\n", fr->index, s[0] / (double)n, s[1] / (double)n, s[2] / (double)n);
    return 0;
}

static int toytxt_close(void *priv, struct rr_err *e)
{
    struct toytxt *t = priv;
    int bad = fclose(t->f) != 0;
    t->f = NULL;
    if (bad) {
        outfile_abort(&t->of);
        return rr_fail(e, RR_EXIT_RUNTIME, "toytxt: cannot write");
    }
    return outfile_commit(&t->of, e);
}

static void toytxt_free(void *priv)
{
    struct toytxt *t = priv;
    if (t->f)
        fclose(t->f);
    outfile_abort(&t->of);
}

static const struct sink_ops sink_toytxt_ops = {
    .name = "toytxt",
    .exts = "txt",
    .help = "a text line per frame: its mean r g b",
    .priv_size = sizeof(struct toytxt),
    .needs = toytxt_needs,
    .open = toytxt_open,
    .write = toytxt_write,
    .close = toytxt_close,
    .free = toytxt_free,
};

static int group_setup(void **state)
{
    (void)state;
    if (fixture_dir_make("/tmp/rr_toy_sink_XXXXXX") < 0)
        return -1;
    return sink_register(&sink_toytxt_ops);
}

static int group_teardown(void **state)
{
    (void)state;
    return fixture_dir_remove();
}

/* A name or an extension another kind has, or a second standard output,
 * is refused: sink_find would take the first. */
static void test_register_refuses_clashes(void **state)
{
    (void)state;
    assert_int_equal(sink_register(&sink_toytxt_ops), -1);
    struct sink_ops gif = sink_toytxt_ops;
    gif.name = "gif2";
    gif.exts = "bmp GIF";
    assert_int_equal(sink_register(&gif), -1);
    struct sink_ops out = sink_toytxt_ops;
    out.name = "stdout2";
    out.exts = "";
    out.to_stdout = true;
    assert_int_equal(sink_register(&out), -1);
    int n = 0;
    while (sink_kind_at(n))
        n++;
    assert_ptr_equal(sink_kind_at(n - 1), &sink_toytxt_ops);
}

static void test_found_listed_refused(void **state)
{
    (void)state;
    struct rr_err e = { 0 };
    assert_ptr_equal(sink_find("out/a.TXT", &e), &sink_toytxt_ops);
    assert_null(sink_find("out/a.zzz", &e));
    assert_int_equal(e.status, RR_EXIT_USAGE);
    assert_non_null(strstr(e.msg, "out/a.zzz: unknown output kind (use .mp4"));
    const char *last = " or .txt)";   /* after the table's kinds */
    assert_true(strlen(e.msg) > strlen(last));
    assert_string_equal(e.msg + strlen(e.msg) - strlen(last), last);
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    sink_print_kinds(f);
    fclose(f);
    assert_non_null(strstr(buf, "\ntoytxt\ttxt\t.txt\ta text line per frame: its mean r g b\n"));
}

/* Two frames of 2 x 2 pixels: the means by hand. */
static void write_two(struct sink *s)
{
    static const uint8_t a[12] = { 0, 10, 20, 2, 30, 40, 4, 50, 60, 6, 70, 80 };   /* 3, 40, 50 */
    static const uint8_t b[12] = { 255, 0, 1, 255, 0, 0, 255, 0, 0, 254, 0, 0 };   /* 254.75, 0, 0.25 */
    struct rr_err e = { 0 };
    struct frame fr = { .index = 0, .width = 2, .height = 2, .rgb = a, .grid_w = 2, .grid_h = 2 };
    assert_int_equal(sink_write(s, &fr, &e), 0);
    fr.index = 1;
    fr.rgb = b;
    assert_int_equal(sink_write(s, &fr, &e), 0);
}

/* Opens path as a 2 x 2 render of 2 frames (through the table, as main
 * does) and writes the two frames; the open sink, or NULL with *e filled. */
static struct sink *open_and_write(const char *path, struct rr_err *e)
{
    struct scene sc;
    setup_scene(&sc, path, 2, 2);
    struct sink_params p = params(2, 2, 2, false);
    struct sink *s = NULL;
    if (sink_open(&s, &sc, &p, e) < 0)
        return NULL;
    assert_int_equal(sink_needs(s), 0);
    write_two(s);
    return s;
}

static void test_writes_the_means_atomically(void **state)
{
    (void)state;
    const char *path = in_dir("means.txt");
    /* A temporary file of this kind's naming that a killed run left is
     * removed when the first output opens in its folder; a tool's is not. */
    char stale[4096], notes[4096];
    snprintf(stale, sizeof stale, "%s", in_dir(".old.TXT.Ab12Cd.tmp"));
    snprintf(notes, sizeof notes, "%s", in_dir(".old.text.Ab12Cd.tmp"));
    for (int k = 0; k < 2; k++) {
        FILE *t = fopen(k ? notes : stale, "w");
        assert_non_null(t);
        fclose(t);
    }
    struct rr_err e = { 0 };
    struct sink *s = open_and_write(path, &e);
    assert_non_null(s);
    assert_false(exists(stale));
    assert_true(exists(notes));
    assert_int_equal(remove(notes), 0);
    assert_false(exists(path));   /* nothing under the name before close */
    assert_int_equal(sink_close(s, &e), 0);
    sink_free(s);
    char got[256] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    assert_string_equal(got, "0 3.000 40.000 50.000\n1 254.750 0.000 0.250\n");
    /* An existing file is refused without overwrite, before anything is written. */
    assert_null(open_and_write(path, &e));
    assert_int_equal(e.status, RR_EXIT_RUNTIME);
    assert_non_null(strstr(e.msg, "already exists"));
}

static void test_free_without_close_leaves_nothing(void **state)
{
    (void)state;
    const char *path = in_dir("sub/left.txt");
    struct rr_err e = { 0 };
    struct sink *s = open_and_write(path, &e);
    assert_non_null(s);
    sink_free(s);
    assert_false(exists(path));
    outfile_remove_made_dirs();
    assert_false(exists(in_dir("sub")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register_refuses_clashes),
        cmocka_unit_test(test_found_listed_refused),
        cmocka_unit_test(test_writes_the_means_atomically),
        cmocka_unit_test(test_free_without_close_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

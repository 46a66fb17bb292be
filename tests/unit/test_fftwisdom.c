/* test_fftwisdom.c: RIPPLERENDER_FFT's values and the FFTW wisdom cache
 * (src/fftwisdom.h): where the file goes ($XDG_CACHE_HOME, else
 * $HOME/.cache), that measured plans are written and read back, and that a
 * corrupt file or an unwritable folder is ignored without a trace. Every
 * test runs in its own temporary folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <fftw3.h>

#include "fftwisdom.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/rr_wisdom_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    fftwf_forget_wisdom();
    return setenv("XDG_CACHE_HOME", dir, 1);
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    fftwf_forget_wisdom();
    return system(cmd) == 0 ? 0 : -1;
}

/* The names of the entries of folder d (not . and ..), sorted, joined by
 * spaces, into out. */
static void list_dir(const char *d, char *out, size_t n)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls -A '%s' 2>/dev/null | tr '\\n' ' '", d);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = 0;
    pclose(p);
}

static void test_planning_values(void **state)
{
    (void)state;
    static const struct { const char *v; int ret; bool measure; } cases[] = {
        { NULL, 0, false }, { "", 0, false }, { "estimate", 0, false }, { "measure", 0, true },
        { "Measure", -1, false }, { "fast", -1, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cases[i].v)
            setenv("RIPPLERENDER_FFT", cases[i].v, 1);
        else
            unsetenv("RIPPLERENDER_FFT");
        bool m = !cases[i].measure;
        struct rr_err e = { 0 };
        assert_int_equal(fft_planning(&m, &e), cases[i].ret);
        assert_int_equal(m, cases[i].measure);
        if (cases[i].ret < 0) {
            char want[128];
            snprintf(want, sizeof want, "RIPPLERENDER_FFT=%s: expected estimate or measure", cases[i].v);
            assert_string_equal(e.msg, want);
            assert_int_equal(e.status, RR_EXIT_USAGE);
        }
    }
    unsetenv("RIPPLERENDER_FFT");
}

/* $XDG_CACHE_HOME when absolute; a relative one is invalid (the XDG base
 * directory spec) and $HOME/.cache is used; neither: no path. The file's
 * name is the same under both (one machine). */
static void test_path(void **state)
{
    (void)state;
    char p[4096], q[4096], id[64];
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/home/u", 1);
    assert_true(fft_wisdom_path(p, sizeof p));
    assert_int_equal(strncmp(p, "/x/cache/ripplerender/fftw3f-", 29), 0);
    assert_int_equal(strlen(p), 29 + 16 + strlen(".wisdom"));
    assert_string_equal(p + 29 + 16, ".wisdom");
    memcpy(id, p + 29, 16 + sizeof ".wisdom");
    setenv("XDG_CACHE_HOME", "relative/cache", 1);
    assert_true(fft_wisdom_path(q, sizeof q));
    snprintf(p, sizeof p, "/home/u/.cache/ripplerender/fftw3f-%s", id);
    assert_string_equal(q, p);
    unsetenv("XDG_CACHE_HOME");
    assert_true(fft_wisdom_path(q, sizeof q));
    assert_string_equal(q, p);
    unsetenv("HOME");
    assert_false(fft_wisdom_path(q, sizeof q));
    assert_string_equal(q, "");
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    assert_false(fft_wisdom_path(q, 20));   /* does not fit */
    assert_string_equal(q, "");
}

/* A measured plan's wisdom is written (its folder made, no temporary file
 * left) and read back: after forgetting, a wisdom-only plan exists only
 * once the file is loaded. Nothing new: the file is not written again. */
static void test_written_and_read(void **state)
{
    (void)state;
    char p[4096], names[256];
    assert_true(fft_wisdom_path(p, sizeof p));
    assert_false(fft_wisdom_load());   /* no file yet */
    fftwf_complex *a = fftwf_alloc_complex(60), *b = fftwf_alloc_complex(60);
    fftwf_plan pl = fftwf_plan_dft_1d(60, a, b, FFTW_FORWARD, FFTW_MEASURE);
    assert_non_null(pl);
    fftwf_destroy_plan(pl);
    fft_wisdom_save();
    char sub[128];
    snprintf(sub, sizeof sub, "%s/ripplerender", dir);
    list_dir(sub, names, sizeof names);
    char want[256];
    snprintf(want, sizeof want, "%s ", strrchr(p, '/') + 1);
    assert_string_equal(names, want);
    fftwf_forget_wisdom();
    assert_null(fftwf_plan_dft_1d(60, a, b, FFTW_FORWARD, FFTW_MEASURE | FFTW_WISDOM_ONLY));
    assert_true(fft_wisdom_load());
    pl = fftwf_plan_dft_1d(60, a, b, FFTW_FORWARD, FFTW_MEASURE | FFTW_WISDOM_ONLY);
    assert_non_null(pl);
    fftwf_destroy_plan(pl);
    assert_int_equal(unlink(p), 0);
    fft_wisdom_save();   /* the planner holds what was loaded: nothing to write */
    assert_int_equal(access(p, F_OK), -1);
    fftwf_free(a);
    fftwf_free(b);
}

/* A file that is not FFTW wisdom is ignored (nothing imported) and replaced
 * by the next save. */
static void test_corrupt_ignored(void **state)
{
    (void)state;
    char p[4096];
    assert_true(fft_wisdom_path(p, sizeof p));
    char sub[128];
    snprintf(sub, sizeof sub, "%s/ripplerender", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    FILE *fp = fopen(p, "w");
    assert_non_null(fp);
    fputs("(fftw-3.3.10 fftwf_wisdom #x0 #x1 garbage", fp);
    fclose(fp);
    assert_false(fft_wisdom_load());
    fftwf_complex *a = fftwf_alloc_complex(48), *b = fftwf_alloc_complex(48);
    assert_null(fftwf_plan_dft_1d(48, a, b, FFTW_FORWARD, FFTW_MEASURE | FFTW_WISDOM_ONLY));
    fftwf_plan pl = fftwf_plan_dft_1d(48, a, b, FFTW_FORWARD, FFTW_MEASURE);
    assert_non_null(pl);
    fftwf_destroy_plan(pl);
    fft_wisdom_save();
    fftwf_forget_wisdom();
    assert_true(fft_wisdom_load());
    fftwf_free(a);
    fftwf_free(b);
}

/* A cache folder that cannot be made (its parent is a file): the save is
 * skipped, nothing is left, and loading finds nothing. */
static void test_unwritable_ignored(void **state)
{
    (void)state;
    char file[128], names[256];
    snprintf(file, sizeof file, "%s/file", dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);
    setenv("XDG_CACHE_HOME", file, 1);
    fftwf_complex *a = fftwf_alloc_complex(40), *b = fftwf_alloc_complex(40);
    fftwf_plan pl = fftwf_plan_dft_1d(40, a, b, FFTW_FORWARD, FFTW_MEASURE);
    assert_non_null(pl);
    fftwf_destroy_plan(pl);
    fft_wisdom_save();
    list_dir(dir, names, sizeof names);
    assert_string_equal(names, "file ");
    assert_false(fft_wisdom_load());
    fftwf_free(a);
    fftwf_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_planning_values, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_path, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_written_and_read, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_corrupt_ignored, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_unwritable_ignored, make_dir, remove_dir),
    };
    return cmocka_run_group_tests_name("fftwisdom", tests, NULL, NULL);
}

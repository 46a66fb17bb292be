/* test_cachefile.c: a cache file's temporaries (src/cachefile.h). A write
 * killed before its rename (SIGKILL, a power cut) leaves its temporary; a
 * later read or write of the same cache removes those provably abandoned:
 * named for this host and a process that is gone, or another farm node's
 * (over NFS) a day old, and nothing else: not a live writer's, not a recent
 * one of another host, not "NAME.XXXXXX" (a user's "NAME.backup"), not
 * another cache's, not a folder. */
#define _GNU_SOURCE   /* utimensat's UTIME_OMIT */
#include <setjmp.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cachefile.h"

static char dir[64];   /* the test folder */

static void path_of(char *out, size_t n, const char *name) { snprintf(out, n, "%.63s/%.255s", dir, name); }

/* Makes the file dir/name, its time `age` seconds ago. */
static void make_aged(const char *name, long age)
{
    char p[PATH_MAX];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("half a cache", f);
    assert_int_equal(fclose(f), 0);
    const struct timespec t[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_sec = time(NULL) - age } };
    assert_int_equal(utimensat(AT_FDCWD, p, t, 0), 0);
}

static bool exists(const char *name)
{
    char p[PATH_MAX];
    struct stat st;
    path_of(p, sizeof p, name);
    return lstat(p, &st) == 0;
}

/* A process id that no process has now: a child's, once it is reaped (no
 * new process of this test takes it meanwhile). */
static long gone_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return pid;
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/rr_test_cachefile_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

#define HOUR 3600L
#define DAY (24 * HOUR)

/* Run by each of a read and a write of tuner-x.txt. */
static void sweep_by(bool write)
{
    char host[HOST_NAME_MAX + 1] = "", name[NAME_MAX], path[PATH_MAX];
    assert_int_equal(gethostname(host, sizeof host - 1), 0);
    const long gone = gone_pid(), me = (long)getpid();
    /* base.tmp-PID-HOST-X (a temporary's form, pid_pre before the pid), or
     * the literal name. */
    struct {
        const char *base, *pid_pre;
        long pid;   /* 1: this process's; 0: one gone */
        const char *host, *x, *literal;
        long age;
        bool stays;
    } cases[] = {
        { "tuner-x.txt", "", 0, host, "AbC123", NULL, HOUR, false },   /* this host's, its writer gone */
        { "tuner-x.txt", "", 0, host, "AbC124", NULL, 0, false },      /* ... however recent */
        { "tuner-x.txt", "", 1, host, "AbC125", NULL, DAY + HOUR, true },   /* a live writer's (this one) */
        { "tuner-x.txt", "", 0, "other-node.farm", "AbC126", NULL, HOUR, true },   /* another host's */
        { "tuner-x.txt", "", 0, "other-node.farm", "AbC127", NULL, DAY + HOUR, false },   /* ... a day old */
        /* NAME, a dot and six letters: a user's backup as much as a
         * temporary of an older version, so never taken, however old. */
        { NULL, NULL, 0, NULL, NULL, "tuner-x.txt.AbC128", DAY + HOUR, true },
        { NULL, NULL, 0, NULL, NULL, "tuner-x.txt.backup", 30 * DAY, true },
        { NULL, NULL, 0, NULL, NULL, "tuner-x.txt.AbC129", HOUR, true },
        { "fftw-x.txt", "", 0, host, "AbC130", NULL, DAY + HOUR, true },   /* another cache's */
        { "tuner-x.txt", "", 0, host, "AbC12", NULL, DAY + HOUR, true },   /* not a temporary's name */
        { "tuner-x.txt", "x", 0, host, "AbC131", NULL, DAY + HOUR, true },
        { NULL, NULL, 0, NULL, NULL, "tuner-x.txt.AbC1", DAY + HOUR, true },
        { NULL, NULL, 0, NULL, NULL, "tuner-x.txt.old", DAY + HOUR, true },
        { NULL, NULL, 0, NULL, NULL, "tuner-x.txtAbC133", DAY + HOUR, true },
    };
    const int n = (int)(sizeof cases / sizeof cases[0]);
    char names[sizeof cases / sizeof cases[0]][NAME_MAX];
    for (int i = 0; i < n; i++) {
        if (cases[i].literal)
            snprintf(names[i], sizeof names[i], "%s", cases[i].literal);
        else
            snprintf(names[i], sizeof names[i], "%s.tmp-%s%ld-%s-%s", cases[i].base, cases[i].pid_pre,
                     cases[i].pid ? me : gone, cases[i].host, cases[i].x);
        make_aged(names[i], cases[i].age);
    }
    /* A folder of a temporary's name is no temporary. */
    snprintf(name, sizeof name, "tuner-x.txt.tmp-%ld-%s-AbC132", gone, host);
    path_of(path, sizeof path, name);
    assert_int_equal(mkdir(path, 0700), 0);

    path_of(path, sizeof path, "tuner-x.txt");
    if (write) {
        assert_int_equal(cachefile_write(path, "abc\n", 4), 0);
    } else {
        char buf[64], why[64];
        make_aged("tuner-x.txt", 0);
        assert_int_equal(cachefile_read(path, buf, sizeof buf - 1, why, sizeof why), 12);
    }
    for (int i = 0; i < n; i++)
        if (exists(names[i]) != cases[i].stays)
            fail_msg("%s %s: %s", write ? "a write" : "a read", cases[i].stays ? "removed" : "left", names[i]);
    assert_true(exists(name));
    path_of(path, sizeof path, name);
    assert_int_equal(rmdir(path), 0);
    for (int i = 0; i < n; i++) {
        path_of(path, sizeof path, names[i]);
        unlink(path);
    }
}

static void test_read_sweeps(void **state)
{
    (void)state;
    sweep_by(false);
}

static void test_write_sweeps(void **state)
{
    (void)state;
    sweep_by(true);
}

/* A whole write leaves the file alone beside what it found, whatever the
 * host name's length. */
static void test_write_leaves_nothing(void **state)
{
    (void)state;
    char path[PATH_MAX], buf[64], why[64];
    path_of(path, sizeof path, "w/fftw-y.txt");
    assert_int_equal(cachefile_write(path, "wisdom\n", 7), 0);
    assert_int_equal(cachefile_write(path, "wisdom 2\n", 9), 0);
    assert_int_equal(cachefile_read(path, buf, sizeof buf - 1, why, sizeof why), 9);
    assert_string_equal(buf, "wisdom 2\n");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s/w')\" = fftw-y.txt", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_sweeps),
        cmocka_unit_test(test_write_sweeps),
        cmocka_unit_test(test_write_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
